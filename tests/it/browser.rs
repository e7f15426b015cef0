//! The Chrome connector for real: Chromium, the bundled extension, the native host, the daemon.

use crate::browser_util::*;
use crate::util::*;
use std::time::Duration;

fn say(d: &Daemon, text: &str) -> serde_json::Value {
    let out = d.cli(&["say", "--json", "--wait", text]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("say {text:?}: {} {}\n{}", stdout(&out), stderr(&out), d.log())
    })
}

fn setup(page: &str) -> (Sites, Daemon, Browser) {
    let sites = Sites::start();
    let d = Daemon::start("[node]\nname = \"desk\"\n");
    let b = Browser::start(&d, &format!("{}{page}", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (sites, d, b)
}

#[test]
fn upvote_the_third_story() {
    let (sites, d, _b) = setup("/news/index.html");
    let v = say(&d, "upvote the third story");
    assert_eq!(v["operation"]["status"], "completed", "{v:#}");
    let actions = sites.actions();
    assert_eq!(actions, vec![serde_json::json!({"site": "news", "action": "upvote", "item": 3})], "exactly one effect, on the right story");
}

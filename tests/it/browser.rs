//! The Chrome connector for real: Chromium, the bundled extension, the native host, the daemon.

use crate::browser_util::*;
use crate::util::*;
use serde_json::json;
use std::time::Duration;

fn say(d: &Daemon, text: &str) -> serde_json::Value {
    let out = d.cli(&["say", "--json", "--wait", text]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "say {text:?}: {} {}\n{}",
            stdout(&out),
            stderr(&out),
            d.log()
        )
    })
}

fn setup(page: &str) -> (Sites, Daemon, Browser) {
    let sites = Sites::start();
    let d = Daemon::start("[node]\nname = \"desk\"\n");
    let b = Browser::start(&d, &format!("{}{page}", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (sites, d, b)
}

fn status(v: &serde_json::Value) -> &str {
    v["operation"]["status"].as_str().unwrap_or("?")
}

/// The GETs since `since` (the fixture server's log), for checking navigation independently.
fn gets_since(sites: &Sites, since: usize) -> Vec<String> {
    sites.gets()[since..].to_vec()
}

#[test]
fn news_commands_complete_with_zero_wrong_clicks() {
    let (sites, d, _b) = setup("/news/index.html");

    let v = say(&d, "upvote the third story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "news", "action": "upvote", "item": 3})]
    );
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(summary.starts_with("Clicked \"upvote\" (3 of"), "{summary}");
    let steps = v["operation"]["steps"].as_array().unwrap();
    assert_eq!(steps[1]["result"], "applied");
    assert_eq!(steps[1]["irreversible"], true);

    let v = say(&d, "hide the fifth story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions()[1],
        json!({"site": "news", "action": "hide", "item": 5})
    );

    let before = sites.gets().len();
    let v = say(&d, "open the comments on the second story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(
        gets_since(&sites, before)
            .iter()
            .any(|g| g == "/news/item.html?id=2"),
        "{:?}",
        gets_since(&sites, before)
    );

    let before = sites.gets().len();
    let v = say(&d, "go back");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(
        gets_since(&sites, before)
            .iter()
            .any(|g| g.starts_with("/news/index.html")),
        "{:?}",
        gets_since(&sites, before)
    );

    let v = say(&d, "scroll down");
    assert_eq!(status(&v), "completed", "{v:#}");
    let v = say(&d, "scroll back up");
    assert_eq!(status(&v), "completed", "{v:#}");

    assert_eq!(
        sites.actions().len(),
        2,
        "no other effect happened: {:?}",
        sites.actions()
    );
}

#[test]
fn an_ambiguous_command_asks_with_the_right_top_candidate_and_the_answer_resumes_it() {
    let (sites, d, _b) = setup("/news/index.html");
    let out = d.cli(&["say", "--json", "upvote the story about the rust database"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let op = v["operation"]["id"].as_str().unwrap().to_string();
    // The question is on the interaction once the operation has looked at the page.
    let mut question = serde_json::Value::Null;
    for _ in 0..100 {
        let s: serde_json::Value =
            serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
        if s["interaction"]["pending"]["type"] == "question" {
            question = s["interaction"]["pending"].clone();
            assert_eq!(s["operation"]["status"], "needsInput");
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let choices = question["choices"]
        .as_array()
        .unwrap_or_else(|| panic!("no question: {}", d.log()));
    assert!(!choices.is_empty() && choices.len() <= 3, "{question:#}");
    assert!(
        choices[0]["label"]
            .as_str()
            .unwrap()
            .contains("A tiny Rust database"),
        "{question:#}"
    );
    assert!(
        sites.actions().is_empty(),
        "nothing is clicked while asking"
    );

    let out = d.cli(&["answer", "--json", "--wait", "the first one"]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    assert_eq!(
        v["operation"]["id"],
        op.as_str(),
        "the same operation resumed"
    );
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "news", "action": "upvote", "item": 1})]
    );
    let ops: Vec<serde_json::Value> =
        serde_json::from_slice(&d.cli(&["ops", "--json"]).stdout).unwrap();
    assert_eq!(ops.len(), 1, "no second operation");
}

#[test]
fn the_cookie_banner_blocks_what_it_covers_until_it_is_accepted() {
    let (sites, d, _b) = setup("/shop/index.html?q=desk");
    // ALEX is in the bottom row, under the banner: never clicked through it.
    let v = say(&d, "add the ALEX desk to the cart");
    assert_eq!(status(&v), "blocked", "{v:#}");
    let reason = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(reason.contains("covered by \"Cookie consent\""), "{reason}");
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());

    let v = say(&d, "add the MICKE desk to the cart");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "shop", "action": "add", "item": "MICKE Desk"})]
    );

    let v = say(&d, "accept all cookies");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions()[1],
        json!({"site": "shop", "action": "cookies", "item": "accept"})
    );

    // Now visible. The Director may still ask (another card's context says "Added to cart"); if it
    // does, ALEX must be the first choice, and answering it adds ALEX.
    let mut v = say(&d, "add the ALEX desk to the cart");
    if status(&v) == "needsInput" {
        let first = &v["interaction"]["pending"]["choices"][0]["label"];
        assert!(first.as_str().unwrap().contains("ALEX"), "{v:#}");
        let out = d.cli(&["answer", "--json", "--wait", "the first one"]);
        v = serde_json::from_slice(&out.stdout).unwrap();
    }
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions()[2],
        json!({"site": "shop", "action": "add", "item": "ALEX Desk"})
    );
    assert_eq!(sites.actions().len(), 3);
}

#[test]
fn search_youtube_for_lo_fi_beats() {
    let (sites, d, _b) = setup("/video/index.html");
    let before = sites.gets().len();
    let v = say(&d, "search YouTube for lo-fi beats");
    assert_eq!(status(&v), "completed", "{v:#}");
    let gets = gets_since(&sites, before);
    assert!(
        gets.iter()
            .any(|g| g.starts_with("/video/results.html?search_query=lo-fi+beats")),
        "{gets:?}"
    );
    let steps = v["operation"]["steps"].as_array().unwrap();
    assert!(
        steps[1]["action"]
            .as_str()
            .unwrap()
            .starts_with("typed \"lo-fi beats\" into \"Search\""),
        "{steps:#?}"
    );
    assert_eq!(steps[2]["action"], "pressed Enter");
    assert!(steps.iter().all(|s| s["result"] == "applied"));
}

#[test]
fn questions_about_the_page_get_an_honest_not_yet() {
    let (sites, d, _b) = setup("/news/index.html");
    let out = d.cli(&["say", "--wait", "what is this page about?"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stdout(&out).contains("not built yet"), "{}", stdout(&out));
    assert!(sites.actions().is_empty());
}

//! The Chrome connector for real: Chromium, the bundled extension, the native host, the daemon.

use crate::browser_util::*;
use crate::util::*;
use serde_json::json;
use std::time::Duration;

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
    let target = &v["operation"]["target"];
    assert_eq!(
        (target["type"].as_str(), target["connectorProfile"].as_str()),
        (Some("browser"), Some("Chrome")),
        "{target}"
    );
    assert!(
        target["tab"].as_i64().is_some(),
        "the tab it acted in is recorded: {target}"
    );
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

    let before = sites.gets().len();
    let v = say(&d, "open the fourth story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(
        gets_since(&sites, before)
            .iter()
            .any(|g| g == "/news/item.html?id=4"),
        "{:?}",
        gets_since(&sites, before)
    );
    let v = say(&d, "go back");
    assert_eq!(status(&v), "completed", "{v:#}");

    let v = say(&d, "scroll down");
    assert_eq!(status(&v), "completed", "{v:#}");
    // "More" is at the bottom, in view only after scrolling.
    let before = sites.gets().len();
    let v = say(&d, "show more stories");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(
        gets_since(&sites, before)
            .iter()
            .any(|g| g == "/news/index.html?p=2"),
        "{:?}",
        gets_since(&sites, before)
    );
    let v = say(&d, "scroll back up");
    assert_eq!(
        status(&v),
        "blocked",
        "already at the top: nothing to scroll: {v:#}"
    );
    assert_eq!(
        v["operation"]["outcome"]["summary"],
        "Not done: the page is already at the top."
    );

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

    // Now visible: ALEX is the one card that carries that name, so it acts without asking, even
    // though every card has an "Add to cart" and another's context says "Added to cart".
    let v = say(&d, "add the ALEX desk to the cart");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions()[2],
        json!({"site": "shop", "action": "add", "item": "ALEX Desk"})
    );
    assert_eq!(sites.actions().len(), 3);
}

/// A list's choice named in words is chosen in the real `<select>` (the scan sends its options),
/// and the page's own change handler sees it; a choice said in the other order is the other one.
#[test]
fn a_named_choice_of_a_list_is_chosen_in_the_page() {
    let (sites, d, _b) = setup("/shop/index.html?q=desk");
    let v = say(&d, "sort by price from high to low");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "shop", "action": "sort", "item": "price-desc"})]
    );
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(summary.contains("Price: high to low"), "{summary}");
    let v = say(&d, "sort by price, low to high");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions()[1],
        json!({"site": "shop", "action": "sort", "item": "price-asc"})
    );
    assert_eq!(sites.actions().len(), 2, "{:?}", sites.actions());
}

/// Searching the page in front types into its search box (naming a site instead goes to that
/// site's own search address: tests/it/navigation.rs).
#[test]
fn search_for_lo_fi_beats_types_into_the_pages_search_box() {
    let (sites, d, _b) = setup("/video/index.html");
    let before = sites.gets().len();
    let v = say(&d, "search for lo-fi beats");
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
fn without_a_planner_questions_about_the_page_say_they_need_one() {
    let (sites, d, _b) = setup("/news/index.html");
    let out = d.cli(&["say", "--wait", "what is this page about?"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stdout(&out).contains("needs a planner, and none is configured"),
        "{}",
        stdout(&out)
    );
    assert!(sites.actions().is_empty());
}

#[test]
fn placing_an_order_waits_for_approval_and_a_tab_closed_by_it_is_never_reported_done() {
    let (sites, d, _b) = setup("/lab/index.html");
    let v = say(&d, "open the order form");
    assert_eq!(status(&v), "completed", "{v:#}");
    // "Place order" cannot be undone: the operation waits for an approval naming it.
    let asked = say(&d, "place order");
    assert_eq!(status(&asked), "needsInput", "{asked:#}");
    let state: serde_json::Value =
        serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    let pending = &state["interaction"]["pending"];
    assert_eq!(pending["type"], "approval", "{state:#}");
    assert!(
        pending["prompt"]
            .as_str()
            .unwrap()
            .contains("Click \"Place order\""),
        "{pending:#}"
    );
    assert!(sites.actions().is_empty(), "nothing before the yes");
    // "no" withdraws it: the waiting operation is stopped and nothing is clicked.
    let no = d.cli(&["say", "--json", "no"]);
    let no: serde_json::Value = serde_json::from_slice(&no.stdout).unwrap();
    assert_eq!(no["relation"], "answer", "{no:#}");
    assert_eq!(no["interaction"]["closed"], true, "{no:#}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
    let refused: serde_json::Value =
        serde_json::from_slice(&d.cli(&["ops", "--json"]).stdout).unwrap();
    let refused = refused
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == asked["operation"]["id"])
        .unwrap()
        .clone();
    assert_eq!(refused["status"], "stopped", "{refused:#}");

    // Asked again and approved: the click happens; placing the order closes its tab before any
    // change shows, so it is never reported done.
    let asked = say(&d, "place order");
    assert_eq!(status(&asked), "needsInput", "{asked:#}");
    let v = serde_json::from_slice::<serde_json::Value>(
        &d.cli(&["say", "--json", "--wait", "yes"]).stdout,
    )
    .unwrap();
    assert_eq!(v["relation"], "answer", "{v:#}");
    assert_eq!(
        v["operation"]["id"], asked["operation"]["id"],
        "the same operation"
    );
    let s = status(&v);
    assert!(s == "outcomeUnknown" || s == "blocked", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "lab", "action": "order", "item": 1})],
        "the click did happen, once"
    );
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    eprintln!("tab closed mid-operation: {s}: {summary}");
}

#[test]
fn the_connector_reconnects_when_the_daemon_restarts_and_chrome_stays_open() {
    let (sites, mut d, _b) = setup("/news/index.html");
    let before: serde_json::Value =
        serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    let generation = before["executors"]["browser"]["generation"]
        .as_u64()
        .unwrap();
    assert!(d.signal(libc::SIGTERM).success());
    d.spawn();
    wait_connected(&d, Duration::from_secs(30));
    let v = say(&d, "upvote the second story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "news", "action": "upvote", "item": 2})]
    );
    assert!(stdout(&d.cli(&["state"])).contains("browser: Chrome profile \"Chrome\" connected"));
    let after: serde_json::Value =
        serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    assert_eq!(after["executors"]["browser"]["profile"]["label"], "Chrome");
    assert!(
        after["executors"]["browser"]["generation"]
            .as_u64()
            .is_some(),
        "{generation}"
    );
}

#[test]
fn native_hosts_must_present_the_secret_and_our_extension_origin() {
    use circe::browser::framing::{read_frame, write_frame, Order};
    let d = Daemon::start("");
    let socket = d.dir.path().join("run/circe/browser.sock");
    let secret = std::fs::read_to_string(d.dir.path().join("data/circe/browser.secret")).unwrap();
    assert_eq!(file_mode(&socket), 0o600);
    assert_eq!(
        file_mode(&d.dir.path().join("data/circe/browser.secret")),
        0o600
    );
    rt().block_on(async {
        let attempt = |secret: String, origin: &'static str| {
            let socket = socket.clone();
            async move {
                let mut s = tokio::net::UnixStream::connect(&socket).await.unwrap();
                let auth = json!({"type": "auth", "secret": secret, "origin": origin});
                write_frame(&mut s, &serde_json::to_vec(&auth).unwrap(), 65536, Order::Little).await.unwrap();
                let hello = json!({"type": "hello", "protocol": 1, "profile": {"id": "p", "label": "Intruder"}});
                let _ = write_frame(&mut s, &serde_json::to_vec(&hello).unwrap(), 65536, Order::Little).await;
                // A refused host is dropped: the read ends.
                tokio::time::timeout(Duration::from_secs(2), read_frame(&mut s, 65536, Order::Little)).await
            }
        };
        let ours = "chrome-extension://dhnfkefodfmddfnkfkkbeilnaiafageh/";
        let wrong_secret = attempt("0".repeat(64), ours).await;
        assert!(matches!(wrong_secret, Ok(Ok(None)) | Ok(Err(_))), "{wrong_secret:?}");
        let wrong_origin = attempt(secret.trim().to_string(), "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/").await;
        assert!(matches!(wrong_origin, Ok(Ok(None)) | Ok(Err(_))), "{wrong_origin:?}");
        let state = d.state().await;
        assert_eq!(state.executors["browser"]["connected"], false, "no refused host became the connector");
        // The right secret and origin: accepted, said in a frame (the host tells the extension
        // "connected" only after it), and the connection stays open.
        let accepted = attempt(secret.trim().to_string(), ours).await;
        assert!(
            matches!(&accepted, Ok(Ok(Some(f))) if f == br#"{"type":"accepted"}"#),
            "{accepted:?}"
        );
    });
}

#[test]
fn the_extension_id_is_derived_from_the_manifest_key() {
    use sha2::Digest;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/chrome-extension/manifest.json"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let der = base64_decode(manifest["key"].as_str().unwrap());
    let digest = sha2::Sha256::digest(&der);
    let id: String = digest[..16]
        .iter()
        .flat_map(|b| [b >> 4, b & 15])
        .map(|n| (b'a' + n) as char)
        .collect();
    assert_eq!(id, circe::browser::bridge::EXTENSION_ID);
    assert!(manifest.get("externally_connectable").is_none());
}

fn base64_decode(s: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| *c != b'=') {
        acc = (acc << 6) | A.iter().position(|x| *x == c).expect("base64") as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[test]
fn an_unreachable_remote_decider_changes_nothing() {
    // The remote decider points at a closed port: every call fails, and Circe grounds locally.
    let sites = Sites::start();
    let d = Daemon::start(
        "[decider]\nremote = \"openai\"\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"none\"\ntimeout_ms = 300\n",
    );
    let _b = Browser::start(&d, &format!("{}/news/index.html", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    let v = say(&d, "upvote the third story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "news", "action": "upvote", "item": 3})]
    );
    assert!(
        d.log().contains("remote decider failed"),
        "the fallback is logged: {}",
        d.log()
    );
}

#[test]
fn the_chrome_profile_preference_refuses_another_profile_and_does_nothing() {
    let (sites, d, _b) = setup("/news/index.html");
    let out = d.cli(&["devices", "prefer", "chrome profile", "Work"]);
    assert!(out.status.success(), "{}", crate::util::stderr(&out));
    let v = say(&d, "upvote the third story");
    assert_eq!(status(&v), "blocked", "{v:#}");
    let reason = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        reason.contains("\"Work\"") && reason.contains("\"Chrome\""),
        "names both profiles: {reason}"
    );
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
    // The extension's profile is labelled "Chrome" until the person renames it.
    let out = d.cli(&["devices", "prefer", "chrome profile", "chrome"]);
    assert!(out.status.success(), "{}", crate::util::stderr(&out));
    let v = say(&d, "upvote the third story");
    assert_eq!(status(&v), "completed", "{v:#}");
    // Removed, any connected profile will do again.
    let out = d.cli(&["devices", "prefer", "chrome profile"]);
    assert!(out.status.success(), "{}", crate::util::stderr(&out));
    let v = say(&d, "hide the fifth story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(sites.actions().len(), 2, "{:?}", sites.actions());
}

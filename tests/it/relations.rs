//! How an input relates to a pending question, through a real daemon: an answer only when it fits
//! what the question expects; a request of its own runs and sets the question aside; "no, I meant
//! …" corrects; "never mind" cancels. From the CLI, and from a paired phone over the mesh.

use crate::browser_util::{wait_connected, Browser, Sites};
use crate::mesh::{authed, call, pair, say as phone_say};
use crate::util::*;
use serde_json::json;
use std::sync::atomic::Ordering;
use std::time::Duration;

fn json_of(d: &Daemon, args: &[&str]) -> serde_json::Value {
    let out = d.cli(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {} {}\n{}", stdout(&out), stderr(&out), d.log()))
}

fn status(v: &serde_json::Value) -> &str {
    v["operation"]["status"].as_str().unwrap_or("?")
}

/// A desk with the weather service and a browser on the fixture news page.
fn desk(page: &str) -> (WeatherServer, Sites, Daemon, Browser) {
    let weather = WeatherServer::start();
    let sites = Sites::start();
    let d = Daemon::start(&weather.config());
    let b = Browser::start(&d, &format!("{}{page}", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (weather, sites, d, b)
}

/// Says `text` and waits until the browser operation asks; returns the pending question.
fn asks(d: &Daemon, text: &str) -> serde_json::Value {
    let v = json_of(d, &["say", "--json", text]);
    assert!(v["operation"]["id"].is_string(), "{v:#}");
    for _ in 0..200 {
        let s = json_of(d, &["state", "--json"]);
        if s["interaction"]["pending"]["type"] == "question" {
            assert_eq!(s["operation"]["status"], "needsInput", "{s:#}");
            return s["interaction"]["pending"].clone();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{text:?} did not ask: {}", d.log());
}

fn interaction(d: &Daemon, id: &str) -> circe::model::Interaction {
    let store = circe::store::Store::open(&d.database()).unwrap();
    store.interaction(id.parse().unwrap()).unwrap().unwrap()
}

#[test]
fn a_pending_weather_question_does_not_swallow_a_browser_request() {
    let (weather, sites, d, _b) = desk("/news/index.html");
    let asked = json_of(&d, &["say", "--json", "what's the weather?"]);
    assert_eq!(
        asked["interaction"]["pending"]["kind"], "place",
        "{asked:#}"
    );
    let first = asked["interaction"]["id"].as_str().unwrap().to_string();

    let v = json_of(&d, &["say", "--json", "--wait", "upvote the third story"]);
    assert_eq!(v["relation"], "newRequest", "{v:#}");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "news", "action": "upvote", "item": 3})]
    );
    assert_eq!(
        weather.geocodes.load(Ordering::SeqCst),
        0,
        "no weather lookup for the words of another request"
    );
    // The weather question was set aside: closed, naming the request that replaced it.
    let old = interaction(&d, &first);
    assert!(old.closed, "{old:?}");
    assert!(matches!(old.pending, circe::model::Pending::None));
    assert!(!old.arguments.contains_key("place"), "{old:?}");
    // Answering the old question now is no answer at all: there is nothing asked.
    let late = d.cli(&["answer", "Ahmedabad"]);
    assert!(!late.status.success());
    assert!(
        stderr(&late).contains("nothing is being asked"),
        "{}",
        stderr(&late)
    );
}

#[test]
fn a_pending_browser_question_does_not_swallow_an_unrelated_request() {
    let (weather, sites, d, _b) = desk("/news/index.html");
    let question = asks(&d, "upvote the story about the rust database");
    assert_eq!(question["kind"], "choice", "{question:#}");
    let waiting = json_of(&d, &["state", "--json"])["operation"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let v = json_of(
        &d,
        &["say", "--json", "--wait", "what's the weather in Pune"],
    );
    assert_eq!(v["relation"], "newRequest", "{v:#}");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(weather.forecasts.load(Ordering::SeqCst), 1);
    assert!(
        sites.actions().is_empty(),
        "nothing clicked: {:?}",
        sites.actions()
    );
    // The browser operation that waited was stopped; nothing was done.
    let ops = json_of(&d, &["ops", "--json"]);
    let old = ops
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == waiting.as_str())
        .unwrap();
    assert_eq!(old["status"], "stopped", "{old:#}");

    // Words that are neither an answer nor a request are refused, and nothing changes.
    let question = asks(&d, "upvote the story about the rust database");
    let before = json_of(&d, &["state", "--json"]);
    let refused = d.cli(&["say", "the purple one"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("is not one of the choices"),
        "{}",
        stderr(&refused)
    );
    let after = json_of(&d, &["state", "--json"]);
    assert_eq!(before["interaction"], after["interaction"]);
    assert_eq!(after["interaction"]["pending"], question);
}

#[test]
fn answers_by_number_ordinal_and_label_resume_the_same_operation() {
    let (_weather, sites, d, _b) = desk("/news/index.html");
    for (n, answer) in ["1", "the first one", "LABEL"].into_iter().enumerate() {
        let question = asks(&d, "upvote the story about the rust database");
        let choices = question["choices"].as_array().unwrap();
        let first = choices[0]["label"].as_str().unwrap().to_string();
        let said = if answer == "LABEL" {
            first.as_str()
        } else {
            answer
        };
        let op = json_of(&d, &["state", "--json"])["operation"]["id"].clone();
        let v = json_of(&d, &["answer", "--json", "--wait", said]);
        assert_eq!(v["relation"], "answer", "{said}: {v:#}");
        assert_eq!(
            v["operation"]["id"], op,
            "{said}: the same operation resumed"
        );
        assert_eq!(status(&v), "completed", "{said}: {v:#}");
        let actions = sites.actions();
        assert_eq!(actions.len(), n + 1, "{said}: one click for one answer");
        assert_eq!(actions[n]["action"], "upvote", "{said}: {actions:?}");
    }
}

#[test]
fn a_correction_and_a_cancel_of_a_browser_question() {
    let (_weather, sites, d, _b) = desk("/news/index.html");
    asks(&d, "upvote the story about the rust database");
    let v = json_of(
        &d,
        &["say", "--json", "--wait", "no, I meant the first one"],
    );
    assert_eq!(v["relation"], "correction", "{v:#}");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "news", "action": "upvote", "item": 1})]
    );

    asks(&d, "upvote the story about the rust database");
    let v = json_of(&d, &["say", "--json", "never mind"]);
    assert_eq!(v["relation"], "cancel", "{v:#}");
    assert_eq!(v["interaction"]["closed"], true, "{v:#}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sites.actions().len(), 1, "nothing more clicked");
}

#[test]
fn from_the_phone_a_new_request_is_not_taken_as_the_answer() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let (token, _) = pair(&d, "Phone").await;
        let mut ws = authed(&d, &token).await;
        let asked = call(&mut ws, 1, phone_say("what's the weather?")).await;
        assert_eq!(
            asked["ok"]["interaction"]["pending"]["kind"], "place",
            "{asked}"
        );
        // A request of its own while "Which city?" waits: a new interaction, the old one set aside.
        let other = call(&mut ws, 2, phone_say("what's the weather in Pune")).await;
        assert_eq!(other["ok"]["relation"], "newRequest", "{other}");
        assert_ne!(
            other["ok"]["interaction"]["id"],
            asked["ok"]["interaction"]["id"]
        );
        assert_eq!(other["ok"]["interaction"]["arguments"]["place"], "Pune");
        // The same from the phone: an answer that fits, then a cancel.
        let again = call(&mut ws, 3, phone_say("what's the weather?")).await;
        assert_eq!(again["ok"]["interaction"]["pending"]["kind"], "place");
        let answered = call(&mut ws, 4, phone_say("in Ahmedabad")).await;
        assert_eq!(answered["ok"]["relation"], "answer", "{answered}");
        assert_eq!(
            answered["ok"]["interaction"]["arguments"]["place"],
            "Ahmedabad"
        );
        let third = call(&mut ws, 5, phone_say("what's the weather?")).await;
        assert_eq!(third["ok"]["interaction"]["pending"]["kind"], "place");
        let cancelled = call(&mut ws, 6, phone_say("never mind")).await;
        assert_eq!(cancelled["ok"]["relation"], "cancel", "{cancelled}");
        assert_eq!(cancelled["ok"]["interaction"]["closed"], true);
    });
}

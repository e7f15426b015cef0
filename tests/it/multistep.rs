//! Several steps said at once, for real (issue 10, point 7): Chromium with the extension, the
//! daemon, and the form fixture (`tests/fixtures/sites/form/`), whose Submit posts exactly what
//! the form holds at that moment.

use crate::browser_util::*;
use crate::util::*;
use serde_json::{json, Value};
use std::time::Duration;

/// The actions of an operation's steps, in order, without the observations.
fn acts(op: &Value) -> Vec<String> {
    op["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["action"].as_str().unwrap().to_string())
        .filter(|a| a != "observe the page")
        .collect()
}

/// The latest operation as `circe ops` lists it.
fn listed(d: &Daemon) -> Value {
    let ops: Vec<Value> = serde_json::from_slice(&d.cli(&["ops", "--json"]).stdout).unwrap();
    ops.into_iter()
        .max_by_key(|o| o["acceptedAt"].as_u64().unwrap_or(0))
        .expect("an operation")
}

#[test]
fn enter_a_name_and_press_submit_types_then_submits() {
    let (sites, d, _b) = setup("/form/index.html");
    let v = say(
        &d,
        "enter Ada Lovelace into the name field and press Submit",
    );
    assert_eq!(status(&v), "completed", "{v:#}");
    // The server saw one submit, holding exactly the typed name: the click came after the typing.
    assert_eq!(
        sites.actions(),
        vec![
            json!({"site": "form", "action": "submit", "item": {"name": "Ada Lovelace", "email": "", "country": null}})
        ]
    );
    let op = listed(&d);
    assert_eq!(
        acts(&op),
        vec![
            "typed \"Ada Lovelace\" into \"Name\"".to_string(),
            "clicked \"Submit\"".to_string()
        ],
        "{op:#}"
    );
    // observe, type, observe (fresh, after the typing), click: each step applied, in order.
    let steps = op["steps"].as_array().unwrap();
    let kinds: Vec<&str> = steps
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        vec![
            "observe the page",
            "typed \"Ada Lovelace\" into \"Name\"",
            "observe the page",
            "clicked \"Submit\""
        ]
    );
    assert!(steps.iter().all(|s| s["result"] == "applied"), "{op:#}");
    assert_eq!(steps[1]["arguments"]["step"], "1 of 2");
    assert_eq!(steps[3]["arguments"]["step"], "2 of 2");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert_eq!(
        summary,
        "Typed \"Ada Lovelace\" into \"Name\", then clicked \"Submit\" on \"Sign-up form\"."
    );
}

#[test]
fn select_a_country_and_click_submit() {
    let (sites, d, _b) = setup("/form/index.html");
    let v = say(&d, "select Germany and click Submit");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![
            json!({"site": "form", "action": "country", "item": "Germany"}),
            json!({"site": "form", "action": "submit", "item": {"name": "", "email": "", "country": "Germany"}}),
        ]
    );
    assert_eq!(acts(&listed(&d)).len(), 2);
}

#[test]
fn a_later_step_that_fits_nothing_stops_there_and_says_what_was_done() {
    let (sites, d, _b) = setup("/form/index.html");
    let v = say(
        &d,
        "enter Ada Lovelace into the name field and then click the frobnicate button",
    );
    assert_eq!(status(&v), "blocked", "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with(
            "Done: typed \"Ada Lovelace\" into \"Name\". Not done: \"click the frobnicate button\""
        ),
        "{summary}"
    );
    assert!(
        sites.actions().is_empty(),
        "nothing was clicked: {:?}",
        sites.actions()
    );
    let op = listed(&d);
    assert_eq!(
        acts(&op),
        vec!["typed \"Ada Lovelace\" into \"Name\"".to_string()],
        "{op:#}"
    );

    // The first step really was done: submitting now sends the typed name.
    let v = say(&d, "click Submit");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![
            json!({"site": "form", "action": "submit", "item": {"name": "Ada Lovelace", "email": "", "country": null}})
        ]
    );
}

#[test]
fn typing_then_pressing_enter_is_one_typing_step_and_the_next_step_sees_the_new_page() {
    let (sites, d, _b) = setup("/video/index.html");
    let before = sites.gets().len();
    let v = say(&d, "type lo-fi beats in the search box and hit enter");
    assert_eq!(status(&v), "completed", "{v:#}");
    let gets = sites.gets()[before..].to_vec();
    assert!(
        gets.iter()
            .any(|g| g.starts_with("/video/results.html?search_query=lo-fi+beats")),
        "{gets:?}"
    );
    let done = acts(&listed(&d));
    assert_eq!(done.len(), 2, "{done:?}");
    assert!(
        done[0].starts_with("typed \"lo-fi beats\" into \"Search\""),
        "{done:?}"
    );
    assert_eq!(done[1], "pressed Enter");
}

#[test]
fn a_question_about_a_later_step_is_answered_and_resumes_that_step_only() {
    let (sites, d, _b) = setup("/form/index.html");
    let out = d.cli(&[
        "say",
        "--json",
        "enter Ada Lovelace into the name field and then press the button",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let op = v["operation"]["id"].as_str().unwrap().to_string();
    let mut question = Value::Null;
    for _ in 0..200 {
        let s: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
        if s["interaction"]["pending"]["type"] == "question" {
            question = s["interaction"]["pending"].clone();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let prompt = question["prompt"]
        .as_str()
        .unwrap_or_else(|| panic!("no question: {}", d.log()));
    assert!(
        prompt.starts_with("Typed \"Ada Lovelace\" into \"Name\". For \"press the button\":"),
        "{question:#}"
    );
    assert_eq!(question["slot"], "target2", "{question:#}");
    assert!(sites.actions().is_empty(), "nothing clicked while asking");

    let out = d.cli(&["answer", "--json", "--wait", "Submit"]);
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    assert_eq!(
        v["operation"]["id"],
        op.as_str(),
        "the same operation resumed"
    );
    assert_eq!(status(&v), "completed", "{v:#}");
    // The answer resumed the second step: the name was typed once, then Submit was clicked.
    assert_eq!(
        sites.actions(),
        vec![
            json!({"site": "form", "action": "submit", "item": {"name": "Ada Lovelace", "email": "", "country": null}})
        ]
    );
    assert_eq!(
        acts(&listed(&d)),
        vec![
            "typed \"Ada Lovelace\" into \"Name\"".to_string(),
            "clicked \"Submit\"".to_string()
        ]
    );
    assert_eq!(
        v["operation"]["outcome"]["summary"],
        "Typed \"Ada Lovelace\" into \"Name\", then clicked \"Submit\" on \"Sign-up form\"."
    );
}

#[test]
fn search_then_open_a_result_grounds_the_second_step_on_the_results_page() {
    let (sites, d, _b) = setup("/video/index.html");
    let v = say(&d, "search for lo-fi beats and open the lo-fi beats radio");
    assert_eq!(status(&v), "completed", "{v:#}");
    let gets = sites.gets();
    let results = gets
        .iter()
        .position(|g| g.starts_with("/video/results.html?search_query=lo-fi+beats"))
        .unwrap_or_else(|| panic!("{gets:?}"));
    // The text typed was "lo-fi beats", never "lo-fi beats and open the …".
    assert!(gets.iter().all(|g| !g.contains("+and+open")), "{gets:?}");
    // "lo-fi beats radio 24/7" is a result (its title is made from the query): grounded on the
    // fresh observation of the results page, after the search.
    assert!(
        gets[results..]
            .iter()
            .any(|g| g.starts_with("/video/watch.html?v=")),
        "{gets:?}"
    );
    let op = listed(&d);
    let done = acts(&op);
    assert_eq!(done.len(), 3, "{done:?}");
    assert!(done[0].starts_with("typed \"lo-fi beats\""), "{done:?}");
    assert_eq!(done[1], "pressed Enter");
    assert_eq!(done[2], "clicked \"lo-fi beats radio 24/7\"");
    let steps = op["steps"].as_array().unwrap();
    assert_eq!(steps[3]["action"], "observe the page");
    assert!(
        steps[3]["evidence"]["url"]
            .as_str()
            .unwrap()
            .contains("/video/results.html"),
        "the second step was grounded on the results page: {op:#}"
    );
}

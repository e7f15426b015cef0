//! A withdrawn question ends its operation (issue 17): cancelling, correcting or setting aside a
//! browser clarification stops the operation that waited for the answer, confirmed, in the same
//! commit; a stop aimed at a waiting operation is confirmed at once; the next request runs. From
//! the CLI and from a paired phone, with real Chromium on the fixture news page; and a store left
//! in the old shape (a closed interaction, its operation still waiting) is reported by
//! `circe doctor` and repaired on the next start.

use crate::browser_util::{wait_connected, Browser, Sites};
use crate::mesh::{authed, call, pair, say as phone_say};
use crate::util::*;
use circe::model::{Input, InputMode, OperationStatus};
use std::time::{Duration, Instant};

/// Asks "which story?" on the fixture news page.
const ASKS: &str = "upvote the story about the rust database";
/// Acts at once on the same page, and is no answer to that question: one hide of story 12.
const ACTS: &str = "hide the story about the Game Boy emulator";

fn json_of(d: &Daemon, args: &[&str]) -> serde_json::Value {
    let out = d.cli(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {} {}\n{}", stdout(&out), stderr(&out), d.log()))
}

fn desk() -> (Sites, Daemon, Browser) {
    let sites = Sites::start();
    let d = Daemon::start("");
    let b = Browser::start(&d, &format!("{}/news/index.html", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (sites, d, b)
}

/// The operation the current interaction waits on, once it asks.
fn waiting(d: &Daemon) -> String {
    for _ in 0..200 {
        let s = json_of(d, &["state", "--json"]);
        if s["interaction"]["pending"]["type"] == "question" {
            assert_eq!(s["operation"]["status"], "needsInput", "{s:#}");
            return s["operation"]["id"].as_str().unwrap().to_string();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no question: {}", d.log());
}

fn asks(d: &Daemon) -> String {
    let v = json_of(d, &["say", "--json", ASKS]);
    assert!(v["operation"]["id"].is_string(), "{v:#}");
    waiting(d)
}

fn operation(d: &Daemon, id: &str) -> circe::model::Operation {
    let store = circe::store::Store::open(&d.database()).unwrap();
    store.operation(id.parse().unwrap()).unwrap().unwrap()
}

/// The waiting operation ended as stopped, its stop confirmed, requested by `by`; no step ran
/// after the question.
fn assert_withdrawn(d: &Daemon, id: &str, by: &str) {
    let op = operation(d, id);
    assert_eq!(op.status, OperationStatus::Stopped, "{op:#?}");
    let stop = op.stop.as_ref().expect("a stop is recorded");
    assert_eq!(stop.requested_by, by, "{op:#?}");
    assert!(stop.confirmed_at.is_some(), "confirmed: {op:#?}");
    let outcome = op.outcome.as_ref().expect("an outcome");
    assert_eq!(outcome.status, OperationStatus::Stopped);
    assert!(op.steps.iter().all(|s| s.result.is_some()), "{op:#?}");
}

/// `ACTS` runs to completion and clicks exactly once more.
fn next_request_acts(d: &Daemon, sites: &Sites, clicks_before: usize) {
    let v = json_of(d, &["say", "--json", "--wait", ACTS]);
    assert_eq!(v["relation"], "newRequest", "{v:#}");
    assert_eq!(v["operation"]["status"], "completed", "{v:#}\n{}", d.log());
    let actions = sites.actions();
    assert_eq!(actions.len(), clicks_before + 1, "{actions:?}");
    assert_eq!(actions[clicks_before]["action"], "hide", "{actions:?}");
    assert_eq!(actions[clicks_before]["item"], 12, "{actions:?}");
}

#[test]
fn never_mind_stops_the_waiting_operation_and_the_next_request_runs() {
    let (sites, d, _b) = desk();
    let op = asks(&d);
    let v = json_of(&d, &["say", "--json", "never mind"]);
    assert_eq!(v["relation"], "cancel", "{v:#}");
    assert_eq!(v["interaction"]["closed"], true, "{v:#}");
    // One commit: by the time the reply is back, the operation is already stopped.
    assert_withdrawn(&d, &op, "cancel");
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
    next_request_acts(&d, &sites, 0);
}

#[test]
fn an_unrelated_request_runs_and_the_waiting_operation_is_stopped() {
    let (sites, d, _b) = desk();
    let op = asks(&d);
    next_request_acts(&d, &sites, 0);
    assert_withdrawn(&d, &op, "set aside by a new request");
}

#[test]
fn a_correction_of_a_question_stops_the_waiting_operation_and_runs_the_corrected_one() {
    let (sites, d, _b) = desk();
    let op = asks(&d);
    let v = json_of(
        &d,
        &["say", "--json", "--wait", "no, I meant the first one"],
    );
    assert_eq!(v["relation"], "correction", "{v:#}");
    assert_eq!(v["operation"]["status"], "completed", "{v:#}");
    assert_ne!(v["operation"]["id"], op.as_str(), "a new operation");
    assert_withdrawn(&d, &op, "correction");
    assert_eq!(sites.actions().len(), 1, "{:?}", sites.actions());
}

#[test]
fn a_stop_aimed_at_a_waiting_operation_is_confirmed_at_once() {
    let (sites, d, _b) = desk();
    let op = asks(&d);
    let started = Instant::now();
    let v = json_of(&d, &["stop", "--json"]);
    let took = started.elapsed();
    assert_eq!(v["operation"]["id"], op.as_str(), "{v:#}");
    assert!(v["operation"]["stop"]["confirmedAt"].is_u64(), "{v:#}");
    assert_eq!(v["operation"]["status"], "stopped", "{v:#}");
    // The stop bound of the brief (nothing runs, nothing to wait for): well under a second.
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_withdrawn(&d, &op, "cli");
    // Its question is withdrawn with it: the interaction asks nothing any more.
    let s = json_of(&d, &["state", "--json"]);
    assert_ne!(s["interaction"]["pending"]["type"], "question", "{s:#}");
    next_request_acts(&d, &sites, 0);
}

#[test]
fn from_the_phone_cancel_set_aside_and_stop_end_the_waiting_operation() {
    let (sites, d, _b) = desk();
    rt().block_on(async {
        let (token, _) = pair(&d, "Phone").await;
        let mut ws = authed(&d, &token).await;
        let mut id = 0;
        let ask = |n: &mut u64| {
            *n += 1;
            *n
        };

        // Cancel.
        let asked = call(&mut ws, ask(&mut id), phone_say(ASKS)).await;
        let op = asked["ok"]["operation"]["id"].as_str().unwrap().to_string();
        assert_eq!(waiting(&d), op);
        let cancelled = call(&mut ws, ask(&mut id), phone_say("never mind")).await;
        assert_eq!(cancelled["ok"]["relation"], "cancel", "{cancelled}");
        assert_withdrawn(&d, &op, "cancel");

        // Set aside by a request of its own, which runs.
        let asked = call(&mut ws, ask(&mut id), phone_say(ASKS)).await;
        let op = asked["ok"]["operation"]["id"].as_str().unwrap().to_string();
        assert_eq!(waiting(&d), op);
        let other = call(&mut ws, ask(&mut id), phone_say(ACTS)).await;
        assert_eq!(other["ok"]["relation"], "newRequest", "{other}");
        assert_withdrawn(&d, &op, "set aside by a new request");
        wait_for(|| sites.actions().len() == 1, "the phone's request clicked");

        // Stop.
        let asked = call(&mut ws, ask(&mut id), phone_say(ASKS)).await;
        let op = asked["ok"]["operation"]["id"].as_str().unwrap().to_string();
        assert_eq!(waiting(&d), op);
        let started = Instant::now();
        let stopped = call(
            &mut ws,
            ask(&mut id),
            serde_json::json!({"verb": "interrupt"}),
        )
        .await;
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(stopped["ok"]["operation"]["id"], op.as_str(), "{stopped}");
        assert!(
            stopped["ok"]["operation"]["stop"]["confirmedAt"].is_u64(),
            "{stopped}"
        );
        let op = operation(&d, &op);
        assert_eq!(op.status, OperationStatus::Stopped);

        // And the phone's next request runs (another story: the first one is hidden now).
        let again = call(
            &mut ws,
            ask(&mut id),
            phone_say("hide the story about the QWERTY keyboard layout"),
        )
        .await;
        assert_eq!(again["ok"]["relation"], "newRequest", "{again}");
        wait_for(|| sites.actions().len() == 2, "the next request clicked");
        let actions = sites.actions();
        assert_eq!(
            (&actions[0]["item"], &actions[1]["item"]),
            (&12.into(), &11.into()),
            "{actions:?}"
        );
    });
}

fn wait_for(mut f: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The old shape: a cancel committed on the interaction while its operation still waits (what a
/// crash between the two commits of earlier versions left). Doctor reports it; the next start
/// repairs it with an event.
#[test]
fn a_store_left_with_a_waiting_operation_behind_a_closed_interaction_is_repaired_on_start() {
    let (sites, mut d, _b) = desk();
    let op = asks(&d);
    d.signal(libc::SIGKILL);
    {
        let mut store = circe::store::Store::open(&d.database()).unwrap();
        let current = store.current_interaction().unwrap().unwrap();
        let now = circe::clock::now();
        let cx = circe::interaction::Context {
            node: &current.owner,
            current: Some(&current),
            operation_status: Some(OperationStatus::NeedsInput),
            newest: None,
            now,
            new_interaction_id: uuid::Uuid::new_v4(),
            new_operation_id: uuid::Uuid::new_v4(),
        };
        let input = Input {
            id: uuid::Uuid::new_v4(),
            device: "cli".into(),
            text: "never mind".into(),
            mode: InputMode::default(),
            interaction: None,
            expected_revision: None,
            choice: None,
            heard: Vec::new(),
        };
        let proposal = circe::interaction::Proposal {
            relation: Some(circe::model::Relation::Cancel),
            ..Default::default()
        };
        let change = circe::interaction::dispose(&cx, &input, &proposal).unwrap();
        // Only the interaction's half, as the old code committed it.
        let reply = serde_json::json!({});
        store
            .commit_input(
                &change,
                None,
                None,
                ("cli", &input.id.to_string(), "x", &reply),
                now,
            )
            .unwrap();
    }
    assert_eq!(operation(&d, &op).status, OperationStatus::NeedsInput);

    let doctor = d.cli(&["doctor"]);
    let report = stdout(&doctor);
    assert!(
        report.contains(&op) && report.contains("closed"),
        "doctor names the stranded operation: {report}"
    );

    d.spawn();
    let repaired = operation(&d, &op);
    assert_eq!(repaired.status, OperationStatus::Stopped, "{repaired:#?}");
    let outcome = repaired.outcome.as_ref().unwrap();
    assert!(
        outcome.summary.contains("withdrawn"),
        "the event says why: {outcome:?}"
    );
    let doctor = d.cli(&["doctor"]);
    assert!(!stdout(&doctor).contains(&op), "{}", stdout(&doctor));
    wait_connected(&d, Duration::from_secs(30));
    next_request_acts(&d, &sites, 0);
}

/// A restart stops an operation that waited for an answer even while its question stood: it ran
/// nothing while it waited (so not outcomeUnknown), and its choices pointed into a page read over
/// the connection before the restart (element references do not outlive one connection), so the
/// question goes with it and says why. The same request again asks again, and its answer acts.
#[test]
fn a_restart_stops_a_waiting_operation_with_its_question_and_says_why() {
    let (sites, mut d, _b) = desk();
    let op = asks(&d);
    d.signal(libc::SIGKILL);
    d.spawn();
    let stopped = operation(&d, &op);
    assert_eq!(stopped.status, OperationStatus::Stopped, "{stopped:#?}");
    assert_eq!(stopped.stop.as_ref().unwrap().requested_by, "restart");
    let summary = &stopped.outcome.as_ref().unwrap().summary;
    assert!(summary.contains("restarted while this waited"), "{summary}");
    let s = json_of(&d, &["state", "--json"]);
    assert_ne!(s["interaction"]["pending"]["type"], "question", "{s:#}");
    assert_eq!(s["interaction"]["outcome"]["status"], "stopped", "{s:#}");
    assert!(!stdout(&d.cli(&["doctor"])).contains(&op));

    wait_connected(&d, Duration::from_secs(30));
    let again = asks(&d);
    assert_ne!(again, op);
    let v = json_of(&d, &["answer", "--json", "--wait", "1"]);
    assert_eq!(v["relation"], "answer", "{v:#}");
    assert_eq!(v["operation"]["id"], again.as_str(), "{v:#}");
    assert_eq!(v["operation"]["status"], "completed", "{v:#}\n{}", d.log());
    let actions = sites.actions();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0]["action"], "upvote", "{actions:?}");
}

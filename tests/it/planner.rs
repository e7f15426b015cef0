//! The planner's model adapter against a scripted model server on 127.0.0.1 speaking the OpenAI
//! chat-completions protocol: narrated answers are read up to their first object, an unreadable
//! answer is repaired once with the raw text shown back, a slow or broken server is an error of
//! its own kind, and the key goes as a bearer token.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use circe::planner::provider::{OpenAiPlanner, PlannerError};
use circe::planner::Proposal;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Debug)]
enum Reply {
    Content(&'static str),
    Slow,
    Status(u16),
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    seen: Vec<(Value, Option<String>)>,
}

type Shared = Arc<Mutex<Script>>;

async fn chat(
    State(state): State<Shared>,
    headers: axum::http::HeaderMap,
    Json(body): Json<Value>,
) -> Result<Json<Value>, axum::http::StatusCode> {
    let reply = {
        let mut s = state.lock().unwrap();
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        s.seen.push((body, auth));
        s.replies.pop_front().expect("a scripted reply")
    };
    match reply {
        Reply::Content(c) => Ok(Json(json!({
            "id": "x", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": c}}]
        }))),
        Reply::Slow => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Err(axum::http::StatusCode::GATEWAY_TIMEOUT)
        }
        Reply::Status(s) => Err(axum::http::StatusCode::from_u16(s).unwrap()),
    }
}

async fn server(replies: Vec<Reply>) -> (String, Shared) {
    let state: Shared = Arc::new(Mutex::new(Script {
        replies: replies.into(),
        seen: Vec::new(),
    }));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), state)
}

fn planner(url: &str, key: Option<&str>) -> OpenAiPlanner {
    OpenAiPlanner::new(
        url,
        "scripted",
        key.map(String::from),
        Duration::from_millis(800),
    )
    .unwrap()
}

#[test]
fn a_narrating_model_is_read_up_to_its_first_object_and_repaired_once() {
    crate::util::rt().block_on(async {
        let (url, state) = server(vec![
            Reply::Content(
                "Sure! {\"step\": \"sort by price\"} Then I will add the desk {\"step\": \"add\"}",
            ),
            Reply::Content("First I will sort the list, then add the desk."),
            Reply::Content("{\"done\": \"the desk is in the cart\"}"),
        ])
        .await;
        let p = planner(&url, Some("sk-test"));
        assert_eq!(
            p.propose("Goal: x", None).await.unwrap(),
            Proposal::Step {
                words: "sort by price".into(),
                irreversible: false
            }
        );
        let raw = match p.propose("Goal: x", None).await.unwrap() {
            Proposal::Malformed { raw } => raw,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            p.propose("Goal: x", Some(&raw)).await.unwrap(),
            Proposal::Done {
                summary: "the desk is in the cart".into()
            }
        );
        let s = state.lock().unwrap();
        let (repair, auth) = &s.seen[2];
        assert_eq!(repair["messages"][2]["content"], raw.as_str());
        assert!(repair["messages"][3]["content"]
            .as_str()
            .unwrap()
            .contains("exactly one JSON object"));
        assert_eq!(auth.as_deref(), Some("Bearer sk-test"));
        assert_eq!(s.seen[0].0["messages"][0]["role"], "system");
    });
}

#[test]
fn a_slow_or_broken_model_is_an_error_of_its_own_kind() {
    crate::util::rt().block_on(async {
        let (url, _) = server(vec![Reply::Slow, Reply::Status(500)]).await;
        let p = planner(&url, None);
        let slow = p.propose("Goal: x", None).await.unwrap_err();
        assert!(matches!(slow, PlannerError::Timeout(_)), "{slow}");
        let broken = p.propose("Goal: x", None).await.unwrap_err();
        assert!(
            matches!(broken, PlannerError::Http { status: 500, .. }),
            "{broken}"
        );
        let nowhere = planner("http://127.0.0.1:9/v1", None)
            .propose("Goal: x", None)
            .await
            .unwrap_err();
        assert!(matches!(nowhere, PlannerError::Unavailable(_)), "{nowhere}");
        assert!(matches!(
            OpenAiPlanner::new("", "m", None, Duration::from_secs(1)),
            Err(PlannerError::NotConfigured)
        ));
    });
}

/// The scripted model server on its own thread (the daemon tests are synchronous).
fn model_server(replies: Vec<Reply>) -> (String, Shared) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = crate::util::rt();
        rt.block_on(async move {
            let served = server(replies).await;
            tx.send(served).unwrap();
            std::future::pending::<()>().await;
        });
    });
    rx.recv().unwrap()
}

/// A desk with the fixture sites, a daemon whose planner is the scripted model, and Chromium.
fn desk(
    page: &str,
    replies: Vec<Reply>,
) -> (
    crate::browser_util::Sites,
    crate::util::Daemon,
    crate::browser_util::Browser,
    Shared,
) {
    use crate::browser_util::*;
    let (url, state) = model_server(replies);
    let sites = Sites::start();
    let d = crate::util::Daemon::start(&format!(
        "[node]\nname = \"desk\"\n\n[planner]\nurl = \"{url}\"\nmodel = \"scripted\"\ntimeout_ms = 2000\n"
    ));
    let b = Browser::start(&d, &format!("{}{page}", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (sites, d, b, state)
}

/// The prompts the model was sent, in order.
fn prompts(state: &Shared) -> Vec<String> {
    state
        .lock()
        .unwrap()
        .seen
        .iter()
        .map(|(body, _)| {
            body["messages"][1]["content"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[test]
fn a_task_of_several_steps_is_planned_in_words_and_each_step_grounded_and_verified() {
    let (sites, d, _b, state) = desk(
        "/shop/index.html?q=desk",
        vec![
            Reply::Content("{\"step\": \"reject all cookies\"}"),
            // The model narrates: only its first object is read.
            Reply::Content(
                "{\"step\": \"add the LINNMON Small desk to the cart\"} and then I will check out",
            ),
            Reply::Content("{\"done\": \"the LINNMON Small desk is in the cart\"}"),
        ],
    );
    let v = crate::browser_util::say(&d, "find the cheapest desk and add it to my cart");
    assert_eq!(
        crate::browser_util::status(&v),
        "completed",
        "{v:#}\n{}",
        d.log()
    );
    // The page reports its effects by requests of its own: wait for them.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while sites.actions().len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let actions = sites.actions();
    assert_eq!(actions.len(), 2, "{actions:?}\n{v:#}");
    assert_eq!(actions[0]["action"], "cookies", "{actions:?}");
    assert_eq!(actions[1]["action"], "add", "{actions:?}");
    assert_eq!(actions[1]["item"], "LINNMON Small desk", "{actions:?}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Done: reject all cookies"),
        "the steps that were done, then the model's summary: {summary}"
    );
    // The click was journaled and verified like one the person asked for.
    let steps = v["operation"]["steps"].as_array().unwrap();
    assert!(
        steps.iter().any(|s| s["action"]
            .as_str()
            .is_some_and(|a| a.contains("Add to cart"))
            && s["result"] == "applied"),
        "{steps:#?}"
    );
    let sent = prompts(&state);
    assert_eq!(sent.len(), 3, "one call a step and one to finish");
    assert!(sent[0].contains("LINNMON Small desk"), "{}", sent[0]);
    assert!(sent[0].contains("(nothing yet)"), "{}", sent[0]);
    assert!(
        !regex_like_id(&sent[0]),
        "the model never sees an element id: {}",
        sent[0]
    );
    assert!(
        sent[2].contains("2. add the LINNMON Small desk to the cart -> done"),
        "{}",
        sent[2]
    );
}

/// An element id as the scan makes them ("r17") anywhere in a prompt.
fn regex_like_id(s: &str) -> bool {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.len() >= 2 && w.starts_with('r') && w[1..].chars().all(|c| c.is_ascii_digit()))
}

#[test]
fn a_question_about_the_page_is_answered_with_its_passage_and_nothing_is_clicked() {
    let (sites, d, _b, state) = desk(
        "/news/index.html",
        vec![Reply::Content(
            "{\"answer\": \"Mostly software: Rust, SQLite, Linux.\", \"passage\": \"Show HN: A tiny Rust database that fits in 4 KB of RAM\"}",
        )],
    );
    let v = crate::browser_util::say(&d, "what is this page about?");
    assert_eq!(crate::browser_util::status(&v), "completed", "{v:#}");
    let outcome = &v["operation"]["outcome"];
    assert_eq!(outcome["summary"], "Mostly software: Rust, SQLite, Linux.");
    assert_eq!(
        outcome["data"]["passage"],
        "Show HN: A tiny Rust database that fits in 4 KB of RAM"
    );
    assert!(sites.actions().is_empty());
    // The page's text went with the question, within its bound.
    let sent = prompts(&state);
    assert!(sent[0].contains("Page text:"), "{}", sent[0]);
}

#[test]
fn a_model_that_names_what_is_not_on_screen_or_repeats_itself_ends_the_run_honestly() {
    let (sites, d, _b, _state) = desk(
        "/shop/index.html?q=desk",
        vec![
            Reply::Content("{\"step\": \"press the purple checkout rocket\"}"),
            Reply::Content("{\"step\": \"press the violet checkout rocket\"}"),
        ],
    );
    let v = crate::browser_util::say(&d, "find the cheapest desk and add it to my cart");
    assert_eq!(crate::browser_util::status(&v), "blocked", "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("2 steps in a row could not be done"),
        "{summary}"
    );
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
}

#[test]
fn stop_during_a_planner_call_stops_before_the_next_step() {
    let (sites, d, _b, _state) = desk(
        "/shop/index.html?q=desk",
        vec![
            Reply::Slow,
            Reply::Content("{\"step\": \"add the MICKE Desk to the cart\"}"),
        ],
    );
    let started = crate::util::stdout(&d.cli(&[
        "say",
        "--json",
        "find the cheapest desk and add it to my cart",
    ]));
    let v: Value = serde_json::from_str(&started).unwrap();
    let id = v["operation"]["id"].as_str().unwrap().to_string();
    std::thread::sleep(Duration::from_millis(1500));
    let stop = d.cli(&["stop", "--json"]);
    let stopped: Value = serde_json::from_slice(&stop.stdout).unwrap();
    assert_eq!(stopped["operation"]["id"], id.as_str(), "{stopped:#}");
    assert_eq!(stopped["operation"]["status"], "stopped", "{stopped:#}");
    assert!(stopped["operation"]["stop"]["confirmedAt"].is_u64());
    std::thread::sleep(Duration::from_millis(500));
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
}

#[test]
fn without_a_planner_a_task_says_it_needs_one_and_does_nothing() {
    let (sites, d, _b) = crate::browser_util::setup("/shop/index.html?q=desk");
    let v = crate::browser_util::say(&d, "find the cheapest desk and add it to my cart");
    assert_eq!(crate::browser_util::status(&v), "blocked", "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(summary.contains("needs a planner"), "{summary}");
    assert!(sites.actions().is_empty());
}

#[test]
fn a_step_the_model_flags_as_irreversible_waits_for_approval_and_no_leaves_it_undone() {
    let (sites, d, _b, _state) = desk(
        "/shop/index.html?q=desk",
        vec![Reply::Content(
            "{\"step\": \"reject all cookies\", \"irreversible\": true}",
        )],
    );
    let v = crate::browser_util::say(&d, "find the cheapest desk and buy it");
    assert_eq!(crate::browser_util::status(&v), "needsInput", "{v:#}");
    let state: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    let pending = &state["interaction"]["pending"];
    assert_eq!(pending["type"], "approval", "{state:#}");
    assert!(
        pending["prompt"].as_str().unwrap().contains("Reject all"),
        "{pending:#}"
    );
    let no: Value = serde_json::from_slice(&d.cli(&["say", "--json", "no"]).stdout).unwrap();
    assert_eq!(no["interaction"]["closed"], true, "{no:#}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
}

/// The planner reaches a purchase: it waits for the person's yes, and the yes resumes the run
/// from its history; the order is placed once.
#[test]
fn a_purchase_the_planner_reaches_waits_for_yes_and_then_runs_once() {
    // Answers from the prompt, so a resumed run is answered the same way.
    let (url, state) = {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            crate::util::rt().block_on(async move {
                let state: Shared = Arc::new(Mutex::new(Script::default()));
                async fn policy(
                    State(state): State<Shared>,
                    Json(body): Json<Value>,
                ) -> Json<Value> {
                    let prompt = body["messages"][1]["content"]
                        .as_str()
                        .unwrap_or("")
                        .to_string();
                    state.lock().unwrap().seen.push((body, None));
                    let content = if !prompt.contains("\"Place order\"") {
                        json!({"step": "open the order form"})
                    } else if !prompt.contains("Place order\" -> done")
                        && !prompt.contains("clicked \"Place order\"")
                    {
                        json!({"step": "place the order"})
                    } else {
                        json!({"done": "ordered"})
                    };
                    Json(json!({"choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content.to_string()}}]}))
                }
                let app = Router::new()
                    .route("/v1/chat/completions", post(policy))
                    .with_state(state.clone());
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                tx.send((format!("http://{addr}/v1"), state)).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        rx.recv().unwrap()
    };
    use crate::browser_util::*;
    let sites = Sites::start();
    let d = crate::util::Daemon::start(&format!(
        "[node]\nname = \"desk\"\n\n[planner]\nurl = \"{url}\"\nmodel = \"scripted\"\ntimeout_ms = 2000\n"
    ));
    // On the order form itself (no new tab to follow: the run's only step is the purchase).
    let _b = Browser::start(&d, &format!("{}/lab/form.html", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    let asked = say(&d, "order the cheapest widget for me");
    assert_eq!(status(&asked), "needsInput", "{asked:#}\n{}", d.log());
    assert!(sites.actions().is_empty(), "nothing ordered before the yes");
    let v: Value =
        serde_json::from_slice(&d.cli(&["say", "--json", "--wait", "yes"]).stdout).unwrap();
    assert_eq!(
        v["operation"]["id"], asked["operation"]["id"],
        "the same operation"
    );
    let s = status(&v);
    // Placing the order closes its tab before a change shows: never reported done.
    assert!(
        s == "outcomeUnknown" || s == "blocked" || s == "completed",
        "{v:#}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while sites.actions().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "lab", "action": "order", "item": 1})],
        "ordered once"
    );
    assert!(state.lock().unwrap().seen.len() >= 2);
}

#[test]
fn a_desktop_task_of_several_steps_is_planned_in_words_and_each_step_verified_on_disk() {
    use crate::desktop_util::{write, Desktop};
    let desktop = Desktop::start();
    let docs = desktop.docs.clone();
    write(&docs.join("notes.md"), "# Notes\n");
    write(&docs.join("todo.md"), "# Todo\n");
    desktop.select_in_file_manager(&docs.join("notes.md"));
    let (url, state) = model_server(vec![
        Reply::Content("{\"step\": \"create a folder called Q3 review\"}"),
        Reply::Content("{\"step\": \"rename todo.md to review-todo.md\"}"),
        Reply::Content("{\"done\": \"the review folder and its to-do list are ready\"}"),
    ]);
    let d = crate::util::Daemon::start_with_env(
        &format!(
            "[node]\nname = \"desk\"\n\n[planner]\nurl = \"{url}\"\nmodel = \"scripted\"\ntimeout_ms = 2000\n"
        ),
        desktop.daemon_env(),
    );
    let v = crate::browser_util::say(
        &d,
        "in the file manager, get things ready for the quarterly review",
    );
    assert_eq!(
        crate::browser_util::status(&v),
        "completed",
        "{v:#}\n{}",
        d.log()
    );
    assert!(docs.join("Q3 review").is_dir(), "{v:#}");
    assert!(!docs.join("todo.md").exists(), "{v:#}");
    assert_eq!(
        std::fs::read_to_string(docs.join("review-todo.md")).unwrap(),
        "# Todo\n"
    );
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Done: create a folder called Q3 review"),
        "{summary}"
    );
    // The model planned in words from what the window showed, never from element ids.
    let prompts = prompts(&state);
    assert_eq!(prompts.len(), 3, "{prompts:?}");
    assert!(
        prompts[0].contains("todo.md"),
        "the window's items are in the prompt: {}",
        prompts[0]
    );
    assert!(
        !prompts[0].contains("\"d1\"") && !prompts[0].contains(" d12"),
        "{}",
        prompts[0]
    );
    assert!(
        prompts[1].contains("create a folder called Q3 review"),
        "{}",
        prompts[1]
    );
}

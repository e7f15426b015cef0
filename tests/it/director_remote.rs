//! Remote deciders against a scripted model server on 127.0.0.1 speaking the
//! OpenAI chat-completions protocol (with logprobs) and a decisions API.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

use circe::decider::remote::{decide_with, DecisionsApi, OpenAiChat, RemoteDecider};
use circe::director::{decide_locally, Action, Decision, Element, Envelope, Observation, Snapshot};

/// How the scripted model answers the target question.
#[derive(Debug, Clone)]
enum Script {
    /// Answer this key with this log-probability.
    Target(&'static str, f64),
    /// Answer a key that was never offered.
    Invented,
    /// Take longer than the caller waits.
    Slow,
    /// Fail with HTTP 500.
    Broken,
}

type Shared = Arc<Mutex<(Script, usize)>>;

fn observation() -> Observation {
    let el = |id: &str, role: &str, label: &str| Element {
        id: id.into(),
        role: role.into(),
        label: label.into(),
        ..Element::default()
    };
    Observation {
        title: "Shop".into(),
        elements: vec![
            el("e1", "link", "Home"),
            el("e2", "button", "Add to cart"),
            el("e3", "link", "Checkout"),
        ],
        ..Observation::default()
    }
}

fn snapshot() -> Snapshot {
    Snapshot {
        observation: Some(observation()),
        ..Snapshot::default()
    }
}

/// The answer key the script gives for one prompt.
fn key_for(prompt: &str, script: &Script) -> Option<(String, f64)> {
    if prompt.contains("\nclick: ") {
        return Some(("click".into(), -0.02));
    }
    if prompt.contains("\ndown: ") {
        return Some(("down".into(), -0.1));
    }
    match script {
        Script::Target(k, lp) => Some(((*k).into(), *lp)),
        Script::Invented => Some(("e999".into(), -0.01)),
        Script::Slow | Script::Broken => None,
    }
}

async fn chat(
    State(state): State<Shared>,
    Json(body): Json<Value>,
) -> Result<Json<Value>, axum::http::StatusCode> {
    let script = {
        let mut s = state.lock().expect("lock");
        s.1 += 1;
        s.0.clone()
    };
    assert_eq!(body["logprobs"], json!(true));
    let prompt = body["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    match script {
        Script::Slow => tokio::time::sleep(Duration::from_secs(3)).await,
        Script::Broken => return Err(axum::http::StatusCode::INTERNAL_SERVER_ERROR),
        _ => {}
    }
    let (key, lp) = key_for(&prompt, &script).unwrap_or(("0".into(), -0.1));
    Ok(Json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": body["model"],
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": key},
            "logprobs": {"content": [{
                "token": key,
                "logprob": lp,
                "top_logprobs": [
                    {"token": key, "logprob": lp},
                    {"token": "0", "logprob": -4.0},
                ],
            }]},
            "finish_reason": "stop",
        }],
    })))
}

async fn decisions(State(state): State<Shared>, Json(body): Json<Value>) -> Json<Value> {
    let script = state.lock().expect("lock").0.clone();
    assert!(body["questions"]["target"]["criteria"].is_object());
    let target = match script {
        Script::Target(k, _) => k,
        _ => "e999",
    };
    Json(json!({"answers": {
        "action": {"choice": "click", "probabilities": {"click": 0.9, "reason": 0.1}},
        "target": {"choice": target, "probabilities": {target: 0.92}},
        "direction": {"choice": "down", "probabilities": {"down": 0.5, "up": 0.5}},
    }}))
}

/// Starts the scripted server; returns its base URL.
async fn server(script: Script) -> (String, Shared) {
    let state: Shared = Arc::new(Mutex::new((script, 0)));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/decisions", post(decisions))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("serve");
    });
    (format!("http://{addr}"), state)
}

fn chat_decider(base: &str) -> OpenAiChat {
    OpenAiChat::new(
        &format!("{base}/v1"),
        "scripted",
        None,
        Duration::from_secs(1),
    )
    .expect("client")
}

async fn ground<R: RemoteDecider>(remote: &R, text: &str) -> Decision {
    decide_with(
        Some(remote),
        &Envelope::voice("r1", text),
        &snapshot(),
        Duration::from_millis(800),
    )
    .await
}

#[tokio::test]
async fn a_remote_answer_that_agrees_is_used() {
    // Choice keys: "0" is none, element i is key i + 1; e2 is "2".
    let (base, state) = server(Script::Target("2", -0.05)).await;
    let d = ground(&chat_decider(&base), "add it to the cart").await;
    assert!(
        matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e2".into() }),
        "{d:?}"
    );
    assert_eq!(state.lock().expect("lock").1, 3, "one request per question");
}

#[tokio::test]
async fn an_invented_key_is_rejected_and_the_local_decider_answers() {
    let (base, _) = server(Script::Invented).await;
    let d = ground(&chat_decider(&base), "add it to the cart").await;
    let local = decide_locally(&Envelope::voice("r1", "add it to the cart"), &snapshot());
    assert_eq!(d, local);
}

#[tokio::test]
async fn a_timeout_falls_back_to_the_local_decider() {
    let (base, _) = server(Script::Slow).await;
    let d = ground(&chat_decider(&base), "go home").await;
    assert!(
        matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e1".into() }),
        "{d:?}"
    );
}

#[tokio::test]
async fn a_server_error_falls_back_to_the_local_decider() {
    let (base, _) = server(Script::Broken).await;
    let d = ground(&chat_decider(&base), "go home").await;
    assert!(
        matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e1".into() }),
        "{d:?}"
    );
}

#[tokio::test]
async fn a_confident_remote_model_cannot_act_alone_against_the_evidence() {
    // The model insists on "Checkout" (e3, key 3) for words that name "Home".
    let (base, _) = server(Script::Target("3", -0.01)).await;
    let d = ground(&chat_decider(&base), "go home").await;
    assert!(matches!(d, Decision::Clarify(_)), "{d:?}");
}

#[tokio::test]
async fn the_decisions_api_answers_all_questions_in_one_call() {
    let (base, _) = server(Script::Target("2", 0.0)).await;
    let remote = DecisionsApi::new(&base, None, Duration::from_secs(1)).expect("client");
    let d = ground(&remote, "add it to the cart").await;
    assert!(
        matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e2".into() }),
        "{d:?}"
    );
}

#[tokio::test]
async fn the_decisions_api_rejects_unknown_keys() {
    let (base, _) = server(Script::Invented).await;
    let remote = DecisionsApi::new(&base, None, Duration::from_secs(1)).expect("client");
    let d = ground(&remote, "go home").await;
    assert_eq!(
        d,
        decide_locally(&Envelope::voice("r1", "go home"), &snapshot())
    );
}

#[tokio::test]
async fn no_remote_decider_is_the_local_path() {
    let d = decide_with::<OpenAiChat>(
        None,
        &Envelope::voice("r1", "go home"),
        &snapshot(),
        Duration::from_millis(10),
    )
    .await;
    assert_eq!(
        d,
        decide_locally(&Envelope::voice("r1", "go home"), &snapshot())
    );
}

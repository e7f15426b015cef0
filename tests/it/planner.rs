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

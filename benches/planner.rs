//! The planner loop's own cost (issue 14): a two-step task on the shop fixture ("find the
//! cheapest desk and add it to my cart": reject the cookie banner, add the LINNMON desk, done)
//! through a real daemon, real headless Chromium with the bundled extension, and a scripted
//! OpenAI-compatible model server on 127.0.0.1 that answers from the prompt at once. Reported:
//! the loop's overhead per step with the model's own time taken out (observe, ground, act,
//! verify, journal), and model calls per completed task.
//!
//! Needs Chromium. Run with `cargo bench --bench planner` (`CIRCE_BENCH_PLANNER_N` tasks,
//! default 15). Results: docs/BENCHMARKS.md.

#[path = "../tests/it/browser_util.rs"]
#[allow(dead_code)]
mod browser_util;
#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use browser_util::{wait_connected, Browser, Sites};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use util::Daemon;

/// Milliseconds the model server spent answering, in all.
type ModelTime = Arc<Mutex<f64>>;

/// The scripted model: the cookie banner first, then the desk, then done.
async fn chat(State(time): State<ModelTime>, Json(body): Json<Value>) -> Json<Value> {
    let start = Instant::now();
    let prompt = body["messages"][1]["content"].as_str().unwrap_or("");
    let content =
        if prompt.contains("\"Reject all\"") && !prompt.contains("reject all cookies -> done") {
            json!({"step": "reject all cookies"})
        } else if !prompt.contains("add the LINNMON Small desk to the cart -> done") {
            json!({"step": "add the LINNMON Small desk to the cart"})
        } else {
            json!({"done": "the LINNMON Small desk is in the cart"})
        };
    *time.lock().unwrap() += start.elapsed().as_secs_f64() * 1e3;
    Json(json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": content.to_string()}}]}))
}

fn model_server(time: ModelTime) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        util::rt().block_on(async move {
            let app = Router::new()
                .route("/v1/chat/completions", post(chat))
                .with_state(time);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    format!("http://{}/v1", rx.recv().unwrap())
}

fn report(name: &str, mut samples: Vec<f64>, unit: &str) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<52} n={:<4} p50={:>8.1} {unit}  p95={:>8.1} {unit}  min={:>8.1}  max={:>8.1}",
        samples.len(),
        at(0.5),
        at(0.95),
        samples[0],
        samples.last().unwrap()
    );
}

fn main() {
    let n: usize = std::env::var("CIRCE_BENCH_PLANNER_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let model_time: ModelTime = Arc::default();
    let url = model_server(model_time.clone());
    let sites = Sites::start();
    let page = format!("{}/shop/index.html?q=desk", sites.url);
    let d = Daemon::start(&format!(
        "[node]\nname = \"desk\"\n\n[planner]\nurl = \"{url}\"\nmodel = \"scripted\"\n"
    ));
    let _b = Browser::start(&d, &page);
    wait_connected(&d, Duration::from_secs(30));

    let (mut per_step, mut calls) = (Vec::new(), Vec::new());
    for i in 0..n {
        if i > 0 {
            // A fresh page, its cookie banner back.
            let out = d.cli(&["say", "--wait", &format!("open {page}")]);
            assert!(out.status.success(), "{}", util::stdout(&out));
        }
        *model_time.lock().unwrap() = 0.0;
        let start = Instant::now();
        let out = d.cli(&[
            "say",
            "--json",
            "--wait",
            "find the cheapest desk and add it to my cart",
        ]);
        let wall = start.elapsed().as_secs_f64() * 1e3;
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["operation"]["status"], "completed", "{v:#}");
        let planner = &v["operation"]["outcome"]["data"]["planner"];
        let steps = planner["steps"].as_array().unwrap().len() as f64;
        assert_eq!(steps, 2.0, "{v:#}");
        let model = *model_time.lock().unwrap();
        per_step.push((wall - model) / steps);
        calls.push(planner["calls"].as_f64().unwrap());
    }
    report(
        "planner loop overhead per step (model time out)",
        per_step,
        "ms",
    );
    report("model calls per completed two-step task", calls, "  ");
}

//! The navigation fast path (issue 14, item 2): "search YouTube for X" from a blank new tab to
//! the verified results page, through a real daemon, real headless Chromium with the bundled
//! extension and native host, and the TLS fixture server that answers for www.youtube.com (the
//! real name, mapped by `--host-resolver-rules`, as in tests/it/navigation.rs).
//!
//! Needs Chromium (`/usr/lib/chromium/chromium`). Run with `cargo bench --bench navigation`
//! (`CIRCE_BENCH_NAV_N` runs, default 40). Results: docs/BENCHMARKS.md.

#[path = "../tests/it/browser_util.rs"]
#[allow(dead_code)]
mod browser_util;
#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use browser_util::{wait_connected, Browser, RealSites};
use circe::model::{Input, InputMode, Operation, OperationStatus};
use circe::protocol::{Notification, Verb};
use std::time::{Duration, Instant};
use util::Daemon;

fn report(name: &str, mut samples: Vec<f64>) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<58} n={:<4} p50={:>8.1} ms  p95={:>8.1} ms  min={:>8.1} ms  max={:>8.1} ms",
        samples.len(),
        at(0.5),
        at(0.95),
        samples[0],
        samples.last().unwrap()
    );
}

fn input(text: &str) -> Input {
    Input {
        id: uuid::Uuid::new_v4(),
        device: "bench".into(),
        text: text.into(),
        choice: None,
        mode: InputMode::Typed,
        interaction: None,
        expected_revision: None,
        heard: Vec::new(),
    }
}

/// Submit and wait for the operation to end; (wall ms from submit to the final status, the
/// operation). Fails unless it completed.
async fn run(d: &Daemon, text: &str) -> (f64, Operation) {
    let mut sub = d.client().await.subscribe().await.unwrap();
    let mut c = d.client().await;
    let start = Instant::now();
    let v = c.call(Verb::Submit { input: input(text) }).await.unwrap();
    let id: uuid::Uuid = serde_json::from_value(v["operation"]["id"].clone()).unwrap();
    loop {
        if let Notification::Operation { operation } = sub.next_folded().await.unwrap() {
            if operation.id == id && !operation.status.is_active() {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                assert_eq!(
                    operation.status,
                    OperationStatus::Completed,
                    "{text}: {operation:#?}"
                );
                return (ms, operation);
            }
        }
    }
}

fn main() {
    let n: usize = std::env::var("CIRCE_BENCH_NAV_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let real = RealSites::start();
    let rt = util::rt();
    let d = Daemon::start("");
    let _b = Browser::start_with(&d, "about:blank", &real.flags());
    wait_connected(&d, Duration::from_secs(30));

    let (mut whole, mut list, mut open, mut seen) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut new_tab = Vec::new();
    rt.block_on(async {
        // A first search warms the connection, the fixture server and the daemon's store.
        run(&d, "search YouTube for warm up").await;
        for i in 0..n {
            // A blank new tab in front (Chrome's new tab page), then the search from it.
            run(&d, "open a new tab").await;
            let (ms, op) = run(&d, &format!("search YouTube for lo-fi beats {i}")).await;
            let act = &op.steps[1];
            assert_eq!(
                act.arguments.get("newTab").map(String::as_str),
                Some("false"),
                "the blank tab is reused: {op:#?}"
            );
            assert_eq!(
                act.arguments.get("url").map(String::as_str),
                Some(
                    format!("https://www.youtube.com/results?search_query=lo-fi+beats+{i}")
                        .as_str()
                )
            );
            assert_eq!(act.evidence["page"]["loaded"], true, "{op:#?}");
            whole.push(ms);
            if std::env::var_os("CIRCE_BENCH_NAV_DEBUG").is_some() {
                let s = &op.steps;
                eprintln!(
                    "whole {ms:.0}: accepted→list {} list {} gap {} open {} →end {}",
                    s[0].started_at - op.accepted_at,
                    s[0].finished_at.unwrap() - s[0].started_at,
                    s[1].started_at - s[0].finished_at.unwrap(),
                    s[1].finished_at.unwrap() - s[1].started_at,
                    op.updated_at - s[1].finished_at.unwrap()
                );
            }
            let step_ms =
                |k: usize| (op.steps[k].finished_at.unwrap() - op.steps[k].started_at) as f64;
            list.push(step_ms(0));
            open.push(step_ms(1));
            seen.push(act.evidence["elapsedMs"].as_f64().unwrap_or(0.0));
            // From a page of another site: the results open in a new tab beside it.
            let (ms, op) = run(&d, &format!("search YouTube for jazz {i} in a new tab")).await;
            assert_eq!(
                op.steps[1].arguments.get("newTab").map(String::as_str),
                Some("true")
            );
            new_tab.push(ms);
            // Keep two tabs at most: close the results tabs just made.
            run(&d, "close this tab").await;
            run(&d, "close this tab").await;
        }
    });
    let pages = real
        .requests()
        .iter()
        .filter(|r| r.starts_with("www.youtube.com /results?search_query=lo-fi+beats+"))
        .count();
    assert_eq!(pages, n, "each search asked for its results page once");
    println!("search YouTube for X from a blank new tab to the verified results page ({n} runs):");
    report("  submit → completed (subscriber's view)", whole);
    report("  step: list the open tabs (journal + `tabs`)", list);
    report(
        "  step: open + verify (journal, extension, page loaded)",
        open,
    );
    report(
        "    of which in the extension (navigate, seen, loaded)",
        seen,
    );
    report(
        "search YouTube for X in a new tab beside a page, submit → completed",
        new_tab,
    );
}

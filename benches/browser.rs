//! Browser connector benchmarks: the page scan (200 elements) and utterance → verified click.
//!
//! Needs Chromium (`/usr/lib/chromium/chromium`). Run with `cargo bench --bench browser`.
//! Results: docs/BENCHMARKS.md.

#[path = "../tests/it/browser_util.rs"]
#[allow(dead_code)]
mod browser_util;
#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use browser_util::{wait_connected, Browser, Sites};
use circe::model::{Input, InputMode};
use circe::protocol::{Notification, Verb};
use std::time::{Duration, Instant};
use util::Daemon;

fn report(name: &str, mut samples: Vec<f64>) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<46} n={:<4} p50={:>8.2} ms  p95={:>8.2} ms  max={:>8.2} ms",
        samples.len(),
        at(0.5),
        at(0.95),
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

/// Submit and wait for the operation to finish; returns (wall ms, the operation).
async fn run(d: &Daemon, text: &str) -> (f64, circe::model::Operation) {
    let mut sub = d.client().await.subscribe().await.unwrap();
    let mut c = d.client().await;
    let start = Instant::now();
    let v = c.call(Verb::Submit { input: input(text) }).await.unwrap();
    let id: uuid::Uuid = serde_json::from_value(v["operation"]["id"].clone()).unwrap();
    loop {
        if let Notification::Operation { operation } = sub.next_folded().await.unwrap() {
            if operation.id == id && !operation.status.is_active() {
                return (start.elapsed().as_secs_f64() * 1e3, operation);
            }
        }
    }
}

fn main() {
    let sites = Sites::start();
    let rt = util::rt();

    // lab/many.html: 240 buttons, 200 kept; scan/many.html: the same, every element changed
    // between two scans (no cached accessibility-tree entry can be reused: 200+ lookups each).
    for page in ["/lab/many.html", "/scan/many.html", "/news/index.html"] {
        let d = Daemon::start("");
        let _b = Browser::start(&d, &format!("{}{page}", sites.url));
        wait_connected(&d, Duration::from_secs(30));
        let (mut scan, mut whole, mut elements) = (Vec::new(), Vec::new(), 0);
        let (mut names, mut total, mut lookups) = (Vec::new(), Vec::new(), 0.0);
        let mut parts: [Vec<f64>; 6] = Default::default();
        let mut source = String::new();
        rt.block_on(async {
            // The first observation attaches the debugger (and waits for its infobar): apart.
            let (_, op) = run(&d, "scroll up").await;
            let ev = &op.steps[0].evidence;
            println!(
                "{:<46} {:.1} ms (of which attach + settle {:.1} ms)",
                format!("first observe, {page}"),
                ev["timing"]["totalMs"].as_f64().unwrap_or(0.0),
                ev["timing"]["axPrepareMs"].as_f64().unwrap_or(0.0)
            );
            for _ in 0..40 {
                let (_, op) = run(&d, "scroll up").await;
                let ev = &op.steps[0].evidence;
                elements = ev["elements"].as_u64().unwrap_or(0);
                source = ev["observation"]["names"]["source"]
                    .as_str()
                    .unwrap_or("?")
                    .to_string();
                let t = &ev["timing"];
                scan.push(
                    t["scanMs"]
                        .as_f64()
                        .expect("the extension reports scan time"),
                );
                total.push(t["totalMs"].as_f64().unwrap_or(0.0));
                names.push(t["namesMs"].as_f64().unwrap_or(0.0));
                lookups += t["axPending"].as_f64().unwrap_or(0.0);
                whole.push((op.steps[0].finished_at.unwrap() - op.steps[0].started_at) as f64);
                for (i, part) in [
                    "collectMs",
                    "loopMs",
                    "contextMs",
                    "axPrepareMs",
                    "framesMs",
                    "axLookupMs",
                ]
                .iter()
                .enumerate()
                {
                    parts[i].push(t[part].as_f64().unwrap_or(0.0));
                }
            }
        });
        println!(
            "{page}: {elements} elements, names from {source}, {:.0} accessibility lookups per scan",
            lookups / 40.0
        );
        report(&format!("whole scan in the extension, {page}"), total);
        for (i, part) in [
            "attach check + click listeners (CDP)",
            "content scripts, all frames",
            "accessibility lookups (CDP)",
        ]
        .iter()
        .enumerate()
        {
            report(&format!("  {part}"), std::mem::take(&mut parts[i + 3]));
        }
        report("  scan in page, top frame", scan);
        for (i, part) in ["collect", "hit-test + describe loop", "of which context"]
            .iter()
            .enumerate()
        {
            report(&format!("    {part}"), std::mem::take(&mut parts[i]));
        }
        report("  names (CDP + in-page scan)", names);
        report(
            &format!("observe step, daemon side (ms clock), {page}"),
            whole,
        );
    }

    let d = Daemon::start("");
    let _b = Browser::start(&d, &format!("{}/lab/counter.html", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    let mut click = Vec::new();
    rt.block_on(async {
        // The first click attaches the debugger (and its infobar resizes the page): measured apart.
        let (first, op) = run(&d, "add one").await;
        assert_eq!(
            op.status,
            circe::model::OperationStatus::Completed,
            "{op:?}"
        );
        println!("{:<46} {first:.2} ms", "first click (debugger attach)");
        for _ in 0..40 {
            let (ms, op) = run(&d, "add one").await;
            assert_eq!(
                op.status,
                circe::model::OperationStatus::Completed,
                "{op:?}"
            );
            click.push(ms);
        }
    });
    report("utterance -> verified click (through the daemon)", click);
}

//! What one browser click costs beyond the click: the bytes a subscriber (the phone, the CLI's
//! `--wait`) receives, and the store's write transactions, from submit to the outcome.
//!
//! Needs Chromium (`/usr/lib/chromium/chromium`). Run with `cargo bench --bench click`.
//! Results: docs/BENCHMARKS.md ("Per click: bytes and store transactions").

#[path = "../tests/it/browser_util.rs"]
#[allow(dead_code)]
mod browser_util;
#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use browser_util::{wait_connected, Browser, Sites};
use circe::client::Client;
use circe::protocol::Verb;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use util::Daemon;

/// Empty the WAL, so every frame in it afterwards is this click's.
fn checkpoint(db: &Path) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let (busy, _, _): (i64, i64, i64) = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(busy, 0, "the checkpoint was not blocked");
}

/// The write transactions committed to the WAL since the last checkpoint: its frames whose
/// header marks a commit (a nonzero database size), with the WAL's current salts.
fn commits(db: &Path) -> usize {
    let path = db.with_extension("db-wal");
    let wal = std::fs::read(&path).unwrap_or_default();
    if std::env::var_os("CLICK_DEBUG").is_some() {
        eprintln!("{}: {} bytes", path.display(), wal.len());
        for e in std::fs::read_dir(db.parent().unwrap()).unwrap() {
            let e = e.unwrap();
            eprintln!("  {:?} {}", e.file_name(), e.metadata().unwrap().len());
        }
    }
    if wal.len() < 32 {
        return 0;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let page = be(&wal[8..12]) as usize;
    let salts = &wal[16..24];
    let mut at = 32;
    let mut n = 0;
    while at + 24 + page <= wal.len() {
        let header = &wal[at..at + 24];
        if &header[8..16] == salts && be(&header[4..8]) != 0 {
            n += 1;
        }
        at += 24 + page;
    }
    n
}

/// The operation a notification line is about, and its status when it says one.
fn about(v: &Value) -> (Option<String>, Option<String>) {
    let op = &v["operation"];
    match op {
        Value::String(id) => (Some(id.clone()), v["status"].as_str().map(String::from)),
        Value::Object(_) => (
            op["id"].as_str().map(String::from),
            op["status"].as_str().map(String::from),
        ),
        _ => (None, None),
    }
}

/// One click: (bytes to the subscriber, notifications, write transactions, steps).
async fn click(d: &Daemon, text: &str) -> (usize, usize, usize, usize) {
    let db = d.database();
    checkpoint(&db);
    let mut watcher = Client::connect(&d.socket()).await.unwrap();
    watcher.call(Verb::Subscribe).await.unwrap();
    let _snapshot = watcher.line().await.unwrap();
    let mut c = Client::connect(&d.socket()).await.unwrap();
    let input = json!({"id": uuid::Uuid::new_v4(), "device": "bench", "text": text});
    let reply = c
        .call(Verb::Submit {
            input: serde_json::from_value(input).unwrap(),
        })
        .await
        .unwrap();
    let id = reply["operation"]["id"].as_str().unwrap().to_string();
    let (mut bytes, mut lines, mut ended) = (0, 0, false);
    loop {
        // After the operation ended, the interaction's outcome follows.
        let wait = if ended { 500 } else { 20_000 };
        let Ok(line) = tokio::time::timeout(Duration::from_millis(wait), watcher.line()).await
        else {
            break;
        };
        let line = line.unwrap();
        bytes += line.len() + 1;
        lines += 1;
        let v: Value = serde_json::from_str(&line).unwrap();
        let (op, status) = about(&v);
        if op.as_deref() == Some(id.as_str())
            && status.is_some_and(|s| {
                !["accepted", "running", "verifying", "needsInput"].contains(&s.as_str())
            })
        {
            ended = true;
        }
        if ended && v["event"] == "interaction" && !v["interaction"]["outcome"].is_null() {
            break;
        }
    }
    let state = c
        .call(Verb::State {
            operations: Some(1),
        })
        .await
        .unwrap();
    let steps = state["operations"][0]["steps"]
        .as_array()
        .map_or(0, Vec::len);
    let op = &state["operations"][0];
    assert_eq!(op["status"], "completed", "{text}: {}", op["outcome"]);
    (bytes, lines, commits(&db), steps)
}

fn main() {
    let sites = Sites::start();
    let rt = util::rt();
    // Each click on a story that was not clicked yet (an upvoted story has no upvote link).
    let stories = ["second", "third", "fourth", "fifth", "sixth", "seventh"];
    for (page, texts) in [
        ("/lab/counter.html", vec!["add one".to_string(); 6]),
        (
            "/news/index.html",
            stories
                .iter()
                .map(|s| format!("upvote the {s} story"))
                .collect(),
        ),
    ] {
        let d = Daemon::start("");
        let _b = Browser::start(&d, &format!("{}{page}", sites.url));
        wait_connected(&d, Duration::from_secs(30));
        rt.block_on(async {
            // The first click attaches the debugger: not counted.
            click(&d, &texts[0]).await;
            let mut runs = Vec::new();
            for text in &texts[1..] {
                runs.push(click(&d, text).await);
            }
            let n = runs.len();
            let mean = |f: fn(&(usize, usize, usize, usize)) -> usize| {
                runs.iter().map(f).sum::<usize>() as f64 / n as f64
            };
            println!(
                "{page} \"{}\": {:.0} bytes to a subscriber in {:.1} notifications, {:.1} store write transactions, {:.0} steps (mean of {n})",
                texts[1],
                mean(|r| r.0),
                mean(|r| r.1),
                mean(|r| r.2),
                mean(|r| r.3)
            );
        });
    }
}

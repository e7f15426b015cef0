//! Core benchmarks: durable acceptance, submit-to-notification latency, idle CPU and memory.
//!
//! Run with `cargo bench --bench core`. Prints distributions (p50/p95/max), not single timings;
//! `CIRCE_BENCH_IDLE_SECS` shortens the idle measurement (default 60 s). Results: docs/BENCHMARKS.md.

/// The weather API points at a closed port: these benchmarks never reach it.
const CONFIG: &str =
    "[weather]\ngeocoding_url = \"http://127.0.0.1:9\"\nforecast_url = \"http://127.0.0.1:9\"\n";

#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use circe::client::Client;
use circe::interaction::{self, Context, Proposal};
use circe::model::{Goal, Input, InputMode, Relation};
use circe::protocol::{Notification, Verb};
use circe::store::Store;
use std::time::{Duration, Instant};
use util::Daemon;
use uuid::Uuid;

fn main() {
    let filter = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    if run("acceptance") {
        acceptance();
    }
    if run("notification") {
        notification();
    }
    if run("idle") {
        idle();
    }
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<40} n={:<5} p50={:>8.3} ms  p95={:>8.3} ms  max={:>8.3} ms",
        samples.len(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3
    );
}

fn input(text: &str) -> Input {
    Input {
        id: Uuid::new_v4(),
        device: "bench".into(),
        text: text.into(),
        choice: None,
        mode: InputMode::Typed,
        interaction: None,
        expected_revision: None,
        heard: Vec::new(),
    }
}

/// One input that accepts an operation, committed with synchronous=FULL on a real file.
fn acceptance() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut store = Store::open(&dir.path().join("bench.db")).unwrap();
    let mut samples = Vec::new();
    for n in 0..500 {
        let i = input("weather in Pune");
        let proposal = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Weather),
            arguments: [("place".to_string(), "Pune".to_string())].into(),
            value: None,
            ..Proposal::default()
        };
        let now = 1_000_000 + n;
        let cx = Context {
            node: "bench",
            current: None,
            operation_status: None,
            newest: None,
            now,
            new_interaction_id: Uuid::new_v4(),
            new_operation_id: Uuid::new_v4(),
        };
        let change = interaction::dispose(&cx, &i, &proposal).unwrap();
        let op = change
            .start
            .as_ref()
            .unwrap()
            .accepted(&change.interaction, now);
        let reply = serde_json::json!({ "ok": true });
        let start = Instant::now();
        store
            .commit_input(
                &change,
                Some(&op),
                None,
                ("bench", &i.id.to_string(), "hash", &reply),
                now,
            )
            .unwrap();
        samples.push(start.elapsed());
    }
    report("durable acceptance (commit, FULL)", samples);
}

/// A real daemon: from sending a submit to a subscriber holding the change it made.
fn notification() {
    let served = Daemon::quiet(CONFIG);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut sub = Client::connect(&served.socket())
            .await
            .unwrap()
            .subscribe()
            .await
            .unwrap();
        let _snapshot = sub.next().await.unwrap();
        let mut c = Client::connect(&served.socket()).await.unwrap();
        let mut to_notify = Vec::new();
        let mut to_reply = Vec::new();
        for _ in 0..300 {
            let start = Instant::now();
            let send = c.call(Verb::Submit {
                input: input("what's the weather?"),
            });
            let wait = async {
                loop {
                    if let Notification::Interaction { .. } = sub.next().await.unwrap() {
                        return start.elapsed();
                    }
                }
            };
            let (reply, notified) = tokio::join!(
                async {
                    send.await.unwrap();
                    start.elapsed()
                },
                wait
            );
            to_reply.push(reply);
            to_notify.push(notified);
        }
        report("submit -> reply (daemon, FULL)", to_reply);
        report("submit -> subscriber notified", to_notify);
    });
}

fn proc_stat_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line; 12 and 13 after the name.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A daemon that has done some work, then sits idle.
fn idle() {
    let secs: u64 = std::env::var("CIRCE_BENCH_IDLE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let served = Daemon::quiet(CONFIG);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = Client::connect(&served.socket()).await.unwrap();
        for _ in 0..50 {
            c.call(Verb::Submit {
                input: input("what's the weather?"),
            })
            .await
            .unwrap();
        }
    });
    std::thread::sleep(Duration::from_secs(1));
    let pid = served.pid();
    let tick_hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let before = proc_stat_ticks(pid);
    std::thread::sleep(Duration::from_secs(secs));
    let after = proc_stat_ticks(pid);
    let cpu = (after - before) as f64 / tick_hz / secs as f64 * 100.0;
    println!(
        "{:<40} {cpu:.3}% of one core over {secs} s ({} ticks)",
        "idle CPU",
        after - before
    );
    println!(
        "{:<40} {:.1} MiB",
        "resident memory (VmRSS) after idle",
        rss_kib(pid) as f64 / 1024.0
    );
}

//! Desktop benchmarks on a real headless desktop (Xvfb, D-Bus, AT-SPI, openbox, Thunar, mousepad):
//! one observation of a large window (p50/p95, with the AT-SPI calls it made) and the whole
//! acceptance task through the daemon. Run with `cargo bench --bench desktop`. Results:
//! docs/BENCHMARKS.md.

#[path = "../tests/it/desktop_util.rs"]
#[allow(dead_code)]
mod desktop_util;
#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use circe::desktop::Page;
use std::time::{Duration, Instant};

const TASK: &str = "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.";
const NOTES: &str = "# Weekly sync\n\nAgenda:\n- budget\n- hiring\n";

fn report(name: &str, mut samples: Vec<f64>) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<52} n={:<3} p50={:>8.1} ms  p95={:>8.1} ms  max={:>8.1} ms",
        samples.len(),
        at(0.5),
        at(0.95),
        samples.last().unwrap()
    );
}

fn main() {
    let rt = util::rt();
    for files in [40, 300] {
        let desktop = desktop_util::Desktop::start();
        // A folder of files: Thunar's window becomes a tree of rows and cells.
        let notes = desktop.docs.join("notes.md");
        std::fs::write(&notes, NOTES).unwrap();
        for i in 1..files {
            std::fs::write(desktop.docs.join(format!("file-{i:03}.txt")), "x\n").unwrap();
        }
        desktop.select_in_file_manager(&notes);
        // The adapter itself, in this process, on the desktop's buses.
        for (k, v) in desktop.daemon_env() {
            std::env::set_var(k, v);
        }
        rt.block_on(async {
            let session = circe::desktop::platform_session("bench");
            let windows = session.windows().await.expect("windows");
            let thunar = windows
                .iter()
                .find(|w| w.app.eq_ignore_ascii_case("thunar"))
                .expect("a Thunar window");
            let mut times = Vec::new();
            let (mut elements, mut calls) = (0, 0);
            for _ in 0..15 {
                let t = Instant::now();
                let obs = session
                    .observe(
                        thunar,
                        Page {
                            index: 0,
                            size: usize::MAX,
                        },
                    )
                    .await
                    .expect("observe");
                times.push(t.elapsed().as_secs_f64() * 1e3);
                elements = obs.observation.elements.len();
                calls = obs.calls;
            }
            report(
                &format!(
                    "observe Thunar, {files} files ({elements} elements, {calls} AT-SPI calls)"
                ),
                times,
            );
        });
    }

    // The whole task through the daemon, each run on a fresh desktop.
    let mut times = Vec::new();
    for _ in 0..3 {
        let desktop = desktop_util::Desktop::start();
        let notes = desktop.docs.join("notes.md");
        std::fs::write(&notes, NOTES).unwrap();
        std::fs::write(desktop.docs.join("todo.md"), "# Todo\n").unwrap();
        desktop.select_in_file_manager(&notes);
        let d = util::Daemon::start_with_env("[node]\nname = \"desk\"\n", desktop.daemon_env());
        let t = Instant::now();
        let out = d.cli(&["say", "--json", "--wait", TASK]);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["operation"]["status"], "completed", "{v:#}");
        let steps = v["operation"]["steps"].as_array().map_or(0, Vec::len);
        println!("  task run: {} steps", steps);
        std::thread::sleep(Duration::from_millis(100));
    }
    report("acceptance task through `circe say --wait`", times);
}

//! Desktop benchmarks on a real headless desktop (Xvfb, D-Bus, AT-SPI, openbox, Thunar, mousepad):
//! one observation of a large window (p50/p95, with the AT-SPI calls it made), observation and
//! grounding of a ~300-element window end to end, the whole acceptance task and each general
//! desktop task through the daemon. Run with `cargo bench --bench desktop`. Results:
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
            if files == 40 {
                // Observation and grounding together: the window as the Director sees it
                // (one page, at most 200 elements) and a decision over it.
                let mut times = Vec::new();
                let mut decided = String::new();
                for i in 0..15 {
                    let t = Instant::now();
                    let obs = session
                        .observe(thunar, Page::default())
                        .await
                        .expect("observe");
                    let words = format!("open file-{:03}.txt", 5 + i);
                    let envelope = circe::director::Envelope::typed("bench", &words);
                    let snapshot = circe::director::Snapshot {
                        observation: Some(obs.observation.clone()),
                        ..Default::default()
                    };
                    let d = circe::director::decide(
                        &envelope,
                        &snapshot,
                        &circe::director::local::LocalDecider,
                    );
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    decided = format!("{:?}", std::mem::discriminant(&d));
                    if let circe::director::Decision::Execute(plan) = &d {
                        if let circe::director::Action::Click { target } = &plan.action {
                            let label = &obs.element(target).expect("chosen").0.label;
                            assert_eq!(label, &format!("file-{:03}.txt", 5 + i));
                        }
                    }
                }
                let _ = decided;
                report(
                    &format!("observe + ground Thunar, {files} files (~300 elements)"),
                    times,
                );
            }
        });
    }

    // The variables set above for the in-process adapter belong to desktops that are gone; the
    // desktops below make their own (and their apps would inherit these).
    for k in [
        "DISPLAY",
        "DBUS_SESSION_BUS_ADDRESS",
        "GTK_MODULES",
        "NO_AT_BRIDGE",
        "XDG_CONFIG_DIRS",
        "WAYLAND_DISPLAY",
        "XDG_SESSION_TYPE",
    ] {
        std::env::remove_var(k);
    }

    // Each general desktop task through the daemon, on a fresh desktop each run.
    let tasks: [(&str, &str); 5] = [
        ("rename a file", "in the file manager, rename todo.md to tasks.md"),
        ("create a folder", "in the file manager, create a folder called Reports"),
        ("open a folder", "in the file manager, open the Documents folder"),
        (
            "append a line and save",
            "in the editor, add a line Action items at the end of notes.md and save it",
        ),
        (
            "replace a word, save as in another folder",
            "in the editor, replace draft with final in notes.md and save it as final.md in Archive",
        ),
    ];
    for (name, words) in tasks {
        let mut times = Vec::new();
        for _ in 0..3 {
            let desktop = desktop_util::Desktop::start();
            let docs = desktop.docs.clone();
            std::fs::write(docs.join("notes.md"), "# Notes\n\ndraft one\n").unwrap();
            std::fs::write(docs.join("todo.md"), "# Todo\n").unwrap();
            std::fs::create_dir_all(docs.join("Documents")).unwrap();
            std::fs::create_dir_all(docs.join("Archive")).unwrap();
            desktop.select_in_file_manager(&docs.join("notes.md"));
            let d = util::Daemon::start_with_env("[node]\nname = \"desk\"\n", desktop.daemon_env());
            let t = Instant::now();
            let out = d.cli(&["say", "--json", "--wait", words]);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                v["operation"]["status"],
                "completed",
                "{name}: {v:#}\n{}",
                d.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        report(&format!("{name} through `circe say --wait`"), times);
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

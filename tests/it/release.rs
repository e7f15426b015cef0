//! Issue 16's release gate, the desktop row: twenty phrasings of the editor → file manager task
//! (`tests/fixtures/release/desktop-task.jsonl`, written before they were run), each on a fresh
//! real headless desktop through the real daemon, each effect checked independently on disk and
//! in the file manager. Counts: completed, asked, refused, wrong target, duplicate, false success;
//! the last three must be 0.

use crate::desktop_util::{write, Desktop};
use crate::util::Daemon;
use serde_json::Value;

const NOTES: &str = "# Weekly sync\n\nAgenda:\n- budget\n";
const TODO: &str = "# Todo\n- milk\n";
const EXPECTED: &str = "# Meeting notes\n\nAgenda:\n- budget\n";

#[derive(Debug, Default)]
struct Counts {
    completed: u32,
    asked: u32,
    refused: u32,
    unknown: u32,
    wrong_target: u32,
    duplicate: u32,
    false_success: u32,
}

#[test]
fn the_editor_to_file_manager_task_in_twenty_phrasings() {
    let cases: Vec<Value> = include_str!("../fixtures/release/desktop-task.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(cases.len() >= 20, "at least twenty phrasings");
    let mut counts = Counts::default();
    let mut lines = Vec::new();
    for case in &cases {
        let said = case["say"].as_str().unwrap();
        let desktop = Desktop::start();
        let notes = desktop.docs.join("notes.md");
        let todo = desktop.docs.join("todo.md");
        write(&notes, NOTES);
        write(&todo, TODO);
        desktop.select_in_file_manager(&notes);
        let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", desktop.daemon_env());
        let out = d.cli(&["say", "--json", "--wait", said]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let status = v["operation"]["status"]
            .as_str()
            .unwrap_or("none")
            .to_string();
        let now = std::fs::read_to_string(&notes).unwrap();
        // Checked apart from what Circe says: the other file, the saved bytes, the operations.
        if std::fs::read_to_string(&todo).unwrap() != TODO {
            counts.wrong_target += 1;
        }
        let state = crate::util::rt().block_on(d.state());
        if state.operations.len() > 1 {
            counts.duplicate += 1;
        }
        let class = match status.as_str() {
            "completed" => {
                let saved_right = now == EXPECTED;
                let revealed = v.to_string().contains("showed it in");
                let wants_reveal = case["reveals"].as_bool().unwrap_or(false);
                if !saved_right || (wants_reveal && !revealed) {
                    counts.false_success += 1;
                    "FALSE SUCCESS"
                } else {
                    counts.completed += 1;
                    "completed"
                }
            }
            "needsInput" => {
                assert_eq!(now, NOTES, "nothing changes before the answer: {said}");
                counts.asked += 1;
                "asked"
            }
            "blocked" => {
                assert_eq!(now, NOTES, "a refusal changed nothing: {said}");
                counts.refused += 1;
                "refused"
            }
            // The interaction asks before any operation (a slot the words did not fill).
            "none"
                if !v["interaction"]["pending"].is_null()
                    && v["interaction"]["pending"] != "none" =>
            {
                assert_eq!(now, NOTES, "nothing changes before the answer: {said}");
                counts.asked += 1;
                "asked"
            }
            _ => {
                counts.unknown += 1;
                "unknown"
            }
        };
        let why = v["operation"]["outcome"]["summary"]
            .as_str()
            .or(v["interaction"]["pending"]["question"]["prompt"].as_str())
            .unwrap_or("")
            .to_string();
        lines.push(format!("{class:<14} {said}  → {why}"));
    }
    eprintln!("{}\n{counts:?}", lines.join("\n"));
    assert_eq!(counts.wrong_target, 0, "{}", lines.join("\n"));
    assert_eq!(counts.duplicate, 0, "{}", lines.join("\n"));
    assert_eq!(counts.false_success, 0, "{}", lines.join("\n"));
    // The floor: the first run's count (docs/RELEASE.md), never lower.
    assert!(
        counts.completed >= FLOOR,
        "{counts:?}\n{}",
        lines.join("\n")
    );
}

/// Completed phrasings: 10 of 20 on the first run (docs/RELEASE.md), 20 after two general fixes
/// (the heading after "heading … to" / "heading says"; a named file is not a chosen path); one
/// is allowed to end otherwise (asked or refused, never wrong) on a loaded machine.
const FLOOR: u32 = 19;

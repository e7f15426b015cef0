//! The acceptance task on a real headless desktop, through the real daemon.

use crate::desktop_util::{write, Desktop};
use crate::util::Daemon;
use std::time::Instant;

const TASK: &str = "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.";
const NOTES: &str = "# Weekly sync\n\nAgenda:\n- budget\n- hiring\n";

fn say(d: &Daemon, text: &str) -> serde_json::Value {
    let out = d.cli(&["say", "--json", "--wait", text]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "say: {} {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            d.log()
        )
    })
}

fn daemon(desktop: &Desktop) -> Daemon {
    Daemon::start_with_env("[node]\nname = \"desk\"\n", desktop.daemon_env())
}

fn expected() -> String {
    NOTES.replacen("# Weekly sync", "# Meeting notes", 1)
}

#[test]
fn the_acceptance_task_edits_saves_and_reveals_the_selected_file() {
    let desktop = Desktop::start();
    let notes = desktop.docs.join("notes.md");
    write(&notes, NOTES);
    write(&desktop.docs.join("todo.md"), "# Todo\n");
    desktop.select_in_file_manager(&notes);
    let d = daemon(&desktop);
    let t = Instant::now();
    let v = say(&d, TASK);
    let took = t.elapsed();
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        expected(),
        "{v:#}\n{}",
        d.log()
    );
    assert_eq!(
        std::fs::read_to_string(desktop.docs.join("todo.md")).unwrap(),
        "# Todo\n"
    );
    let text = v.to_string();
    assert!(text.contains("showed it in"), "{v:#}");
    eprintln!("acceptance task took {took:?}");
}

fn setup() -> (Desktop, std::path::PathBuf) {
    let desktop = Desktop::start();
    let notes = desktop.docs.join("notes.md");
    write(&notes, NOTES);
    (desktop, notes)
}

#[test]
fn a_second_document_and_window_are_left_alone() {
    let (desktop, notes) = setup();
    let other = desktop.docs.join("other.md");
    write(&other, "# Other doc\nkeep\n");
    desktop.open_in_editor(&other);
    desktop.select_in_file_manager(&notes);
    let d = daemon(&desktop);
    let v = say(&d, TASK);
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        expected(),
        "{v:#}"
    );
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "# Other doc\nkeep\n"
    );
}

#[test]
fn a_moved_window_changes_nothing_semantic() {
    let (desktop, notes) = setup();
    desktop.open_in_editor(&notes);
    desktop.xdotool(&[
        "search",
        "--name",
        "notes.md",
        "windowmove",
        "--sync",
        "700",
        "500",
    ]);
    desktop.select_in_file_manager(&notes);
    desktop.xdotool(&[
        "search",
        "--name",
        "docs - Thunar",
        "windowmove",
        "--sync",
        "10",
        "600",
    ]);
    let d = daemon(&desktop);
    let v = say(&d, TASK);
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        expected(),
        "{v:#}"
    );
    assert!(v.to_string().contains("showed it in"), "{v:#}");
}

#[test]
fn a_connection_lost_after_save_is_settled_by_reading_the_file() {
    let (desktop, notes) = setup();
    desktop.select_in_file_manager(&notes);
    let mut env = desktop.daemon_env();
    env.push(("CIRCE_DESKTOP_FAULT".into(), "lose-after-save".into()));
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let v = say(&d, TASK);
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        expected(),
        "{v:#}"
    );
    let text = v.to_string();
    assert!(text.contains("connection dropped after Save"), "{v:#}");
    let state = crate::util::rt().block_on(d.state());
    let steps = serde_json::to_string(&state.operations).unwrap();
    assert!(
        steps.contains("\"unknown\""),
        "the save step stays unknown: {steps}"
    );
    assert!(steps.contains("to settle whether it was saved"), "{steps}");
}

fn answer(d: &Daemon, text: &str) -> serde_json::Value {
    let out = d.cli(&["answer", "--json", "--wait", text]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "answer: {} {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn human_mouse_takeover_pauses_until_continue() {
    let (desktop, notes) = setup();
    desktop.select_in_file_manager(&notes);
    let d = daemon(&desktop);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mover = {
        let stop = stop.clone();
        let mut cmd_env = desktop.env.clone();
        cmd_env.retain(|(k, _)| k == "DISPLAY");
        std::thread::spawn(move || {
            let mut i = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                i += 1;
                let _ = std::process::Command::new("xdotool")
                    .envs(cmd_env.iter().map(|(k, v)| (k, v)))
                    .args(["mousemove", &(100 + (i % 50) * 10).to_string(), "300"])
                    .status();
                std::thread::sleep(std::time::Duration::from_millis(30));
            }
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let v = say(&d, TASK);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    mover.join().unwrap();
    assert!(v.to_string().contains("paused"), "{v:#}");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        NOTES,
        "paused before changing anything"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let v = answer(&d, "continue");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        expected(),
        "{v:#}"
    );
}

#[test]
fn unsaved_changes_are_asked_about_then_kept() {
    let (desktop, notes) = setup();
    desktop.open_in_editor(&notes);
    // As a person would: focus the window, go to the end, type. (Separate calls: GTK drops a key
    // sent in the same instant as the activation.)
    desktop.activate("notes.md");
    desktop.xdotool(&["key", "--delay", "50", "ctrl+End"]);
    desktop.xdotool(&["type", "--delay", "30", "extra"]);
    desktop.wait_window(r"^\*.*notes\.md");
    desktop.select_in_file_manager(&notes);
    let d = daemon(&desktop);
    let v = say(&d, TASK);
    assert!(v.to_string().contains("unsaved changes"), "{v:#}");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        NOTES,
        "nothing saved before the answer"
    );
    let v = answer(&d, "include them");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        format!("{}extra", expected()),
        "{v:#}"
    );
}

#[test]
fn an_unexpected_dialog_blocks_before_any_change() {
    let (desktop, notes) = setup();
    desktop.open_in_editor(&notes);
    // A dialog the person left open: Save As (separate calls: GTK drops a key sent in the same
    // instant as the activation).
    desktop.activate("notes.md");
    desktop.xdotool(&["key", "--delay", "50", "ctrl+shift+s"]);
    desktop.wait_window("Save As");
    desktop.select_in_file_manager(&notes);
    let d = daemon(&desktop);
    let v = say(&d, TASK);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), NOTES, "{v:#}");
    assert!(v.to_string().contains("Save As"), "{v:#}");
}

//! The acceptance task on a real headless desktop, through the real daemon.

use crate::desktop_util::{write, Desktop};
use crate::util::Daemon;
use std::time::Instant;

const TASK: &str = "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.";
const NOTES: &str = "# Weekly sync\n\nAgenda:\n- budget\n- hiring\n";

fn say(d: &Daemon, text: &str) -> serde_json::Value {
    let out = d.cli(&["say", "--json", "--wait", text]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("say: {} {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr), d.log())
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
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), expected(), "{v:#}\n{}", d.log());
    assert_eq!(std::fs::read_to_string(desktop.docs.join("todo.md")).unwrap(), "# Todo\n");
    let text = v.to_string();
    assert!(text.contains("showed it in"), "{v:#}");
    eprintln!("acceptance task took {took:?}");
}

//! Desktop requests beyond the heading recipe, said in words through the real daemon on a real
//! headless desktop (Thunar, Mousepad), each verified on disk or in the app's window.

use crate::desktop_util::{write, Desktop};
use crate::util::Daemon;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

fn run(d: &Daemon, verb: &str, text: &str) -> Value {
    let t = Instant::now();
    let out = d.cli(&[verb, "--json", "--wait", text]);
    let took = t.elapsed();
    eprintln!("{verb} {text:?} took {took:?}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "{verb}: {} {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            d.log()
        )
    })
}

fn say(d: &Daemon, text: &str) -> Value {
    run(d, "say", text)
}

fn daemon(desktop: &Desktop) -> Daemon {
    Daemon::start_with_env("[node]\nname = \"desk\"\n", desktop.daemon_env())
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The operation's outcome status in a `--wait` reply.
fn status(v: &Value) -> String {
    let s = v.to_string();
    for k in [
        "completed",
        "blocked",
        "outcomeUnknown",
        "needsInput",
        "stopped",
    ] {
        if s.contains(&format!("\"status\":\"{k}\"")) {
            return k.into();
        }
    }
    s
}

/// A folder of files shown in the file manager: notes.md selected, todo.md, Documents/, Archive/.
fn files(desktop: &Desktop) -> std::path::PathBuf {
    let docs = desktop.docs.clone();
    write(
        &docs.join("notes.md"),
        "# Notes\n\ndraft one\nthe draft plan\n",
    );
    write(&docs.join("todo.md"), "# Todo\n- milk\n");
    std::fs::create_dir_all(docs.join("Documents")).unwrap();
    std::fs::create_dir_all(docs.join("Archive")).unwrap();
    write(&docs.join("Documents/inside.txt"), "inside\n");
    desktop.select_in_file_manager(&docs.join("notes.md"));
    docs
}

#[test]
fn the_file_manager_opens_a_folder_renames_a_file_and_creates_a_folder() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);

    let v = say(&d, "in the file manager, rename todo.md to tasks.md");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(!docs.join("todo.md").exists(), "{v:#}");
    assert_eq!(read(&docs.join("tasks.md")), "# Todo\n- milk\n");

    let v = say(&d, "in the file manager, create a folder called Reports");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(docs.join("Reports").is_dir(), "{v:#}");

    let v = say(&d, "in the file manager, open the Documents folder");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    desktop.wait_window("Documents - Thunar");

    // Nothing else changed.
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );
    let mut names: Vec<String> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["Archive", "Documents", "Reports", "notes.md", "tasks.md"]
    );
}

#[test]
fn a_name_the_window_does_not_show_is_refused_and_nothing_changes() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    let v = say(&d, "in the file manager, rename budget.xlsx to old.xlsx");
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(v.to_string().contains("I don't see budget.xlsx"), "{v:#}");
    assert!(docs.join("todo.md").exists());
}

#[test]
fn the_editor_appends_a_line_and_saves() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    let v = say(
        &d,
        "in the editor, add a line Action items at the end of notes.md and save it",
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\nAction items\n"
    );
    assert_eq!(read(&docs.join("todo.md")), "# Todo\n- milk\n");
}

#[test]
fn the_editor_replaces_a_word_and_saves_as_a_new_file_in_another_folder() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    let v = say(
        &d,
        "in the editor, replace draft with final in notes.md and save it as final.md in Archive",
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&docs.join("Archive/final.md")),
        "# Notes\n\nfinal one\nthe final plan\n"
    );
    // The original file on disk is untouched: Save As wrote the new one only.
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );
    desktop.wait_window("final.md");
}

#[test]
fn overwriting_a_file_waits_for_approval() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    write(&docs.join("Archive/old.md"), "keep me\n");
    let d = daemon(&desktop);
    let v = say(
        &d,
        "in the editor, open notes.md and save it as old.md in Archive",
    );
    assert_eq!(status(&v), "needsInput", "{v:#}\n{}", d.log());
    assert!(v.to_string().contains("cannot be undone"), "{v:#}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        read(&docs.join("Archive/old.md")),
        "keep me\n",
        "nothing before the yes"
    );
    let v = run(&d, "answer", "yes");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&docs.join("Archive/old.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );
}

#[test]
fn an_unexpected_dialog_is_described_with_its_choices_and_can_be_closed() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    desktop.open_in_editor(&docs.join("notes.md"));
    desktop.activate("notes.md");
    desktop.xdotool(&["key", "--delay", "50", "ctrl+shift+s"]);
    desktop.wait_window("Save As");
    let d = daemon(&desktop);
    let v = say(
        &d,
        "in the editor, add a line Action items at the end of notes.md and save it",
    );
    assert_eq!(status(&v), "blocked", "{v:#}");
    let text = v.to_string();
    assert!(text.contains("Save As"), "{v:#}");
    assert!(
        text.contains("Cancel") && text.contains("Save"),
        "the choices: {v:#}"
    );
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );

    let v = say(&d, "in the editor, close the Save As dialog");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    let v = say(
        &d,
        "in the editor, add a line Action items at the end of notes.md and save it",
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\nAction items\n"
    );
}

#[test]
fn the_editor_follows_the_default_application() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    // As the person would set it: `xdg-mime default`, into the daemon's own config home.
    let out = desktop
        .command("xdg-mime")
        .args(["default", "org.gnome.gedit.desktop", "text/plain"])
        .env("XDG_CONFIG_HOME", d.dir.path().join("config"))
        .output()
        .expect("xdg-mime (apt-get install xdg-utils)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = say(&d, "in the editor, open notes.md");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(v.to_string().contains("gedit"), "{v:#}");
    desktop.wait_window("notes.md.*gedit");
    let v = say(
        &d,
        "in the editor, add a line Action items at the end of notes.md and save it",
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\nAction items\n"
    );
}

#[test]
fn a_denied_app_is_refused_and_a_read_only_one_is_only_read() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = Daemon::start_with_env(
        "[node]\nname = \"desk\"\n[desktop]\ndeny = [\"mousepad\"]\nread_only = [\"thunar\"]\n",
        desktop.daemon_env(),
    );
    let v = say(
        &d,
        "in the editor, add a line Action items at the end of notes.md and save it",
    );
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(v.to_string().contains("deny list"), "{v:#}");
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );

    let v = say(&d, "in the file manager, rename todo.md to tasks.md");
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(v.to_string().contains("does not change it"), "{v:#}");
    assert!(docs.join("todo.md").exists());

    let v = say(&d, "in the file manager, open Documents");
    assert_eq!(
        status(&v),
        "completed",
        "reading is allowed: {v:#}\n{}",
        d.log()
    );
}

#[test]
fn deleting_permanently_waits_for_approval_and_no_keeps_the_file() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    let v = say(&d, "in the file manager, delete todo.md permanently");
    assert_eq!(status(&v), "needsInput", "{v:#}\n{}", d.log());
    assert!(v.to_string().contains("cannot be undone"), "{v:#}");
    let v = run(&d, "answer", "no");
    assert!(docs.join("todo.md").exists(), "a no keeps it: {v:#}");

    let v = say(&d, "in the file manager, delete todo.md permanently");
    assert_eq!(status(&v), "needsInput", "{v:#}");
    let v = run(&d, "answer", "yes");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(!docs.join("todo.md").exists(), "{v:#}");
    assert!(docs.join("notes.md").exists());
}

#[test]
fn moving_to_the_trash_says_truthfully_what_happened() {
    // Thunar offers "Move to Trash" only where the desktop has a trash (gvfs); either way the
    // outcome must match the disk.
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    let v = say(&d, "in the file manager, move todo.md to the trash");
    match status(&v).as_str() {
        "completed" => assert!(!docs.join("todo.md").exists(), "{v:#}"),
        "blocked" => {
            assert!(docs.join("todo.md").exists(), "{v:#}");
            assert!(v.to_string().contains("nothing was changed"), "{v:#}");
        }
        other => panic!("{other}: {v:#}\n{}", d.log()),
    }
}

#[test]
fn a_task_that_is_not_one_step_needs_a_planner_and_says_so() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    let v = say(
        &d,
        "in the file manager, get things ready for the quarterly review",
    );
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(v.to_string().contains("no planner is configured"), "{v:#}");
    assert!(docs.join("todo.md").exists() && docs.join("notes.md").exists());
}

#[test]
fn closing_a_changed_document_puts_the_apps_question_to_the_person() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let notes = docs.join("notes.md");
    let d = daemon(&desktop);
    let v = say(
        &d,
        "in the editor, add a line Action items at the end of notes.md and close it",
    );
    assert_eq!(status(&v), "needsInput", "{v:#}\n{}", d.log());
    let text = v.to_string();
    assert!(
        text.contains("Don't Save") && text.contains("Cancel"),
        "the app's choices: {v:#}"
    );
    assert_eq!(
        read(&notes),
        "# Notes\n\ndraft one\nthe draft plan\n",
        "nothing saved yet"
    );
    let v = run(&d, "answer", "Save");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&notes),
        "# Notes\n\ndraft one\nthe draft plan\nAction items\n"
    );
    // The line was added once: the resumed operation did not do the first step again.
    let steps = v["operation"]["steps"].as_array().unwrap();
    let adds = steps
        .iter()
        .filter(|s| {
            s["action"]
                .as_str()
                .is_some_and(|a| a.starts_with("add the line"))
        })
        .count();
    assert_eq!(adds, 1, "{v:#}");
    std::thread::sleep(Duration::from_millis(300));
    let out = desktop
        .command("xdotool")
        .args(["search", "--name", "notes.md"])
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "no window shows notes.md any more");

    // Said in the words: no question.
    let v = say(
        &d,
        "in the editor, add a line Scratch at the end of notes.md and close it without saving",
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&notes),
        "# Notes\n\ndraft one\nthe draft plan\nAction items\n"
    );
}

#[test]
fn a_running_editor_opens_a_file_through_its_own_open_dialog() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    write(&docs.join("Archive/plan.md"), "# Plan\n");
    desktop.open_in_editor(&docs.join("notes.md"));
    let d = daemon(&desktop);
    let plan = docs.join("Archive/plan.md");
    let v = say(
        &d,
        &format!(
            "in the editor, open {} and add a line Step one at the end and save it",
            plan.display()
        ),
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(
        v.to_string().contains("the Open dialog"),
        "through the file chooser: {v:#}"
    );
    assert_eq!(read(&plan), "# Plan\nStep one\n");
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );
}

#[test]
fn text_and_items_are_selected_by_what_they_say() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    let d = daemon(&desktop);
    // In the file manager: the row, checked by what a later request does with "the file I
    // selected".
    let v = say(&d, "in the file manager, select todo.md");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    let v = say(
        &d,
        "On my desktop, open the file I selected, change its heading to Groceries, and save it.",
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(read(&docs.join("todo.md")), "# Groceries\n- milk\n");
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );

    // In the editor: the one occurrence, read back from the app's own selection.
    let v = say(&d, "in the editor, select the word plan in notes.md");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    let text = "# Notes\n\ndraft one\nthe draft plan\n";
    let at = text.find("plan").unwrap();
    assert!(
        v.to_string().contains(&format!("[{at},{}]", at + 4)),
        "{v:#}"
    );
    // Twice in the text: not guessed.
    let v = say(&d, "in the editor, select the word draft in notes.md");
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(v.to_string().contains("2 times"), "{v:#}");
}

#[test]
fn an_option_is_chosen_in_the_list_that_offers_it() {
    let desktop = Desktop::start();
    let docs = files(&desktop);
    desktop.open_in_editor(&docs.join("notes.md"));
    desktop.activate("notes.md");
    desktop.xdotool(&["key", "--delay", "50", "ctrl+shift+s"]);
    desktop.wait_window("Save As");
    let d = daemon(&desktop);
    let v = say(&d, "in the editor, choose Klingon in the encoding list");
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(
        v.to_string().contains("no list for encoding offers"),
        "{v:#}"
    );
    let v = say(&d, "in the editor, set the encoding to ISO-8859-15");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    let steps = v["operation"]["steps"].as_array().unwrap();
    let chose = steps
        .iter()
        .find(|s| s["action"] == "choose ISO-8859-15")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(chose["result"], "applied", "read back from the list: {v:#}");
    let v = say(&d, "in the editor, choose All Files");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_eq!(
        read(&docs.join("notes.md")),
        "# Notes\n\ndraft one\nthe draft plan\n"
    );
}

#[test]
fn the_file_i_selected_is_the_file_managers_selection() {
    let desktop = Desktop::start();
    let docs = files(&desktop); // notes.md selected in Thunar
    let notes = "# Notes\n\ndraft one\nthe draft plan\n";
    // The editor shows another file: the words name the selection, not the editor's window.
    desktop.open_in_editor(&docs.join("todo.md"));
    let d = daemon(&desktop);
    let v = say(
        &d,
        "in the editor, open the file I selected, add a line buy milk at the end, and save it",
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(v.to_string().contains("notes.md"), "{v:#}");
    assert_eq!(read(&docs.join("notes.md")), format!("{notes}buy milk\n"));
    assert_eq!(read(&docs.join("todo.md")), "# Todo\n- milk\n");

    // In the file manager the selected item is opened as a person would: Return on its row
    // (the words CI once read as a file named "notes file I selected").
    let v = say(&d, "in the file manager, open the notes file I selected");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(v.to_string().contains("Opened notes.md"), "{v:#}");

    // The file manager shows it, selected (it is already).
    let v = say(&d, "show the file I selected in the file manager");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert!(v.to_string().contains("Showed notes.md"), "{v:#}");

    // A folder selected is not a file: said, and nothing runs.
    let v = say(&d, "in the file manager, select Documents");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    let v = say(
        &d,
        "in the editor, open the file I selected, add a line eggs at the end, and save it",
    );
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(v.to_string().contains("the folder"), "{v:#}");
    assert!(v.to_string().contains("Documents"), "{v:#}");

    // Several selected: said, naming them, and nothing runs.
    desktop.activate("docs - Thunar");
    desktop.xdotool(&["key", "ctrl+a"]);
    std::thread::sleep(Duration::from_millis(300));
    let v = say(&d, "in the file manager, open the file I selected");
    assert_eq!(status(&v), "blocked", "{v:#}");
    let s = v.to_string();
    assert!(s.contains("items are selected"), "{v:#}");
    assert!(s.contains("todo.md") && s.contains("notes.md"), "{v:#}");
    assert_eq!(read(&docs.join("notes.md")), format!("{notes}buy milk\n"));
    assert_eq!(read(&docs.join("todo.md")), "# Todo\n- milk\n");
}

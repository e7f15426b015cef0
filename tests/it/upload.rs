//! The browser-to-native file-picker handoff (issue 15), for real: Chromium with the extension,
//! the daemon, and the upload fixture (`tests/fixtures/sites/upload/`): a hidden file input behind
//! a "Choose file" button, whose page shows "Selected: <name> (<size> bytes)", reports the choice,
//! and on Submit posts the file's bytes to the fixture server.

use crate::browser_util::*;
use crate::desktop_util::{write, Desktop};
use crate::util::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

const PAGE: &str = "/upload/index.html";

/// The fixture sites, a daemon whose home folder is `home` (with `env` besides), and Chromium on
/// the upload page, connected.
fn start(home: &Path, env: Vec<(String, String)>) -> (Sites, Daemon, Browser) {
    let sites = Sites::start();
    let mut env = env;
    env.push(("HOME".into(), home.display().to_string()));
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let b = Browser::start(&d, &format!("{}{PAGE}", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (sites, d, b)
}

/// The latest operation as `circe ops` lists it.
fn listed(d: &Daemon) -> Value {
    let ops: Vec<Value> = serde_json::from_slice(&d.cli(&["ops", "--json"]).stdout).unwrap();
    ops.into_iter()
        .max_by_key(|o| o["acceptedAt"].as_u64().unwrap_or(0))
        .expect("an operation")
}

/// The upload step of the latest operation.
fn upload_step(d: &Daemon) -> Value {
    let op = listed(d);
    op["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["arguments"]["action"] == "upload")
        .cloned()
        .unwrap_or_else(|| panic!("no upload step: {op:#}"))
}

/// What the page reported choosing ("chosen" actions), in order.
fn chosen(sites: &Sites) -> Vec<Value> {
    sites
        .actions()
        .into_iter()
        .filter(|a| a["site"] == "upload" && a["action"] == "chosen")
        .map(|a| a["item"].clone())
        .collect()
}

/// The page holds `file` (its name and size as on disk), says so, and Submit sends its bytes.
fn assert_page_holds(sites: &Sites, d: &Daemon, file: &Path) {
    let bytes = std::fs::read(file).unwrap();
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let want = json!({ "name": name, "size": bytes.len() });
    // The page's own change handler saw exactly this file in its input.
    assert_eq!(chosen(sites), vec![want.clone()], "{}", d.log());
    // The extension read the input's files and the page's words after the choice.
    let step = upload_step(d);
    assert_eq!(step["result"], "applied", "{step:#}");
    assert_eq!(step["evidence"]["files"], json!([want]), "{step:#}");
    assert_eq!(step["evidence"]["shown"], true, "{step:#}");
    assert_eq!(step["arguments"]["path"], file.display().to_string());
    // Submit posts the file: the server receives its name and its bytes.
    let v = say(d, "click Submit");
    assert_eq!(status(&v), "completed", "{v:#}");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while sites.uploads().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(sites.uploads(), vec![(name, bytes)]);
}

fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("circe-upload")
        .tempdir()
        .unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    (dir, home)
}

#[test]
fn a_path_said_is_chosen_in_the_pages_file_chooser_and_the_page_confirms_it() {
    let (dir, home) = folder();
    let cv = dir.path().join("docs/cv.pdf");
    std::fs::create_dir_all(cv.parent().unwrap()).unwrap();
    std::fs::write(&cv, b"%PDF-1.4\n% Ada Lovelace, curriculum vitae\n").unwrap();
    let (sites, d, _b) = start(&home, Vec::new());
    let v = say(&d, &format!("choose {} for the report field", cv.display()));
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    let size = std::fs::metadata(&cv).unwrap().len();
    assert_eq!(
        summary,
        format!(
            "Chose {} ({size} bytes) with \"Choose file\" on \"Report upload\".",
            cv.display()
        )
    );
    assert_page_holds(&sites, &d, &cv);
}

#[test]
fn a_bare_name_is_found_among_the_recent_files() {
    let (dir, home) = folder();
    // Outside every folder Circe looks in by itself: only the recent-files list names it.
    let minutes = dir.path().join("elsewhere/minutes.txt");
    std::fs::create_dir_all(minutes.parent().unwrap()).unwrap();
    std::fs::write(&minutes, "Minutes of the board meeting\n").unwrap();
    let (sites, d, _b) = start(&home, Vec::new());
    // The daemon's XDG_DATA_HOME is its data folder: GTK's list is there.
    let xbel = d.dir.path().join("data/recently-used.xbel");
    std::fs::write(
        &xbel,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xbel version=\"1.0\">\n  <bookmark href=\"file://{}\" added=\"2026-01-01T00:00:00Z\" modified=\"2026-01-01T00:00:00Z\" visited=\"2026-01-01T00:00:00Z\"/>\n</xbel>\n",
            minutes.display()
        ),
    )
    .unwrap();
    let v = say(&d, "upload minutes.txt");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_page_holds(&sites, &d, &minutes);
}

#[test]
fn a_name_that_fits_two_files_asks_and_the_answer_picks_one() {
    let (_dir, home) = folder();
    for (sub, text) in [
        ("Documents", "the report, final"),
        ("Downloads", "the report, draft 2"),
    ] {
        std::fs::create_dir_all(home.join(sub)).unwrap();
        std::fs::write(home.join(sub).join("report.pdf"), text).unwrap();
    }
    let (sites, d, _b) = start(&home, Vec::new());
    let asked = say(&d, "upload report.pdf");
    assert_eq!(status(&asked), "needsInput", "{asked:#}\n{}", d.log());
    let s: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    let question = &s["interaction"]["pending"];
    let labels: Vec<&str> = question["choices"]
        .as_array()
        .unwrap_or_else(|| panic!("no question: {s:#}"))
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    let (documents, downloads) = (
        home.join("Documents/report.pdf"),
        home.join("Downloads/report.pdf"),
    );
    assert_eq!(
        labels,
        vec![
            documents.display().to_string(),
            downloads.display().to_string()
        ],
        "{question:#}"
    );
    assert!(
        chosen(&sites).is_empty(),
        "nothing is chosen while asking: {:?}",
        sites.actions()
    );
    let out = d.cli(&["answer", "--json", "--wait", "the second one"]);
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    assert_eq!(
        v["operation"]["id"], asked["operation"]["id"],
        "the same operation resumed"
    );
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_page_holds(&sites, &d, &downloads);
}

#[test]
fn a_file_that_does_not_exist_is_refused_and_nothing_is_set() {
    let (dir, home) = folder();
    let missing = dir.path().join("docs/missing.pdf");
    let (sites, d, _b) = start(&home, Vec::new());
    let v = say(&d, &format!("upload {}", missing.display()));
    assert_eq!(status(&v), "blocked", "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert_eq!(
        summary,
        format!("there is no file {}; nothing was done", missing.display())
    );
    // A bare name found nowhere says where it was looked for.
    let v = say(&d, "upload nowhere-to-be-found.pdf");
    assert_eq!(status(&v), "blocked", "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("no file named \"nowhere-to-be-found.pdf\" is in the file manager, the recent files, Documents, Downloads, Desktop or the home folder"),
        "{summary}"
    );
    // Circe's own secret exists and is readable, but never goes to a page.
    let secret = d.dir.path().join("data/circe/browser.secret");
    assert!(secret.is_file(), "{}", secret.display());
    let v = say(&d, &format!("upload {}", secret.display()));
    assert_eq!(status(&v), "blocked", "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(summary.contains("Circe's own folder"), "{summary}");
    // Nothing was clicked or set: no operation has an upload step (each observed the page), and
    // the page reported no choice.
    let ops: Vec<Value> = serde_json::from_slice(&d.cli(&["ops", "--json"]).stdout).unwrap();
    assert_eq!(ops.len(), 3, "{ops:?}");
    for op in &ops {
        let steps = op["steps"].as_array().unwrap();
        assert!(!steps.is_empty(), "{op:#}");
        assert!(
            steps.iter().all(|s| s["arguments"]["action"] != "upload"),
            "{op:#}"
        );
    }
    assert!(chosen(&sites).is_empty(), "{:?}", sites.actions());
}

#[test]
fn the_file_selected_in_the_file_manager_is_chosen() {
    let desktop = Desktop::start();
    let (_dir, home) = folder();
    let notes = desktop.docs.join("notes.md");
    write(&notes, "# Weekly sync\n\nAgenda: budget, hiring\n");
    write(&desktop.docs.join("todo.md"), "# Todo\n");
    desktop.select_in_file_manager(&notes);
    let (sites, d, _b) = start(&home, desktop.daemon_env());
    let v = say(&d, "upload the file I selected");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    assert_page_holds(&sites, &d, &notes);
}

#[test]
fn a_control_that_opens_no_file_chooser_is_not_done_and_says_why() {
    let (dir, home) = folder();
    let cv = dir.path().join("cv.pdf");
    std::fs::write(&cv, b"%PDF-1.4\n").unwrap();
    let sites = Sites::start();
    let d = Daemon::start_with_env(
        "[node]\nname = \"desk\"\n",
        vec![("HOME".into(), home.display().to_string())],
    );
    let _b = Browser::start(&d, &format!("{}/upload/broken.html", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    let v = say(&d, &format!("upload {}", cv.display()));
    assert_eq!(status(&v), "blocked", "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("clicking \"Choose file\" opened no file chooser")
            && summary.contains("no file was set"),
        "{summary}"
    );
    let step = upload_step(&d);
    assert_eq!(step["result"], "notApplied", "{step:#}");
    assert_eq!(step["evidence"]["reason"], "no_chooser", "{step:#}");
    assert!(chosen(&sites).is_empty(), "{:?}", sites.actions());
}

#[test]
fn a_name_in_documents_attached_then_submitted_in_one_request() {
    let (_dir, home) = folder();
    let notes = home.join("Documents/notes.md");
    std::fs::create_dir_all(notes.parent().unwrap()).unwrap();
    std::fs::write(&notes, "# Notes\n\n- ship the upload\n").unwrap();
    let (sites, d, _b) = start(&home, Vec::new());
    let v = say(&d, "attach notes.md to the form and then click Submit");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    let size = std::fs::metadata(&notes).unwrap().len();
    assert_eq!(
        v["operation"]["outcome"]["summary"].as_str().unwrap(),
        format!(
            "Chose {} ({size} bytes) with \"Choose file\", then clicked \"Submit\" on \"Report upload\".",
            notes.display()
        )
    );
    // The click came after the choice: the server got the file.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while sites.uploads().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        sites.uploads(),
        vec![("notes.md".to_string(), std::fs::read(&notes).unwrap())]
    );
}

#[test]
fn a_visible_file_input_is_marked_by_the_scan_and_the_field_words_choose_it() {
    let (dir, home) = folder();
    let letter = dir.path().join("letter.pdf");
    std::fs::write(&letter, b"%PDF-1.4\nDear hiring team,\n").unwrap();
    let sites = Sites::start();
    let d = Daemon::start_with_env(
        "[node]\nname = \"desk\"\n",
        vec![("HOME".into(), home.display().to_string())],
    );
    let _b = Browser::start(&d, &format!("{}/upload/native.html", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    let v = say(
        &d,
        &format!("upload {} for the cover letter", letter.display()),
    );
    assert_eq!(status(&v), "completed", "{v:#}\n{}", d.log());
    // Two native file inputs, both marked `file` by the scan; the words chose the second.
    let step = upload_step(&d);
    let observed = step["observation"]
        .as_str()
        .unwrap_or_else(|| panic!("{step:#}"))
        .to_string();
    let seen: Value =
        serde_json::from_slice(&d.cli(&["ops", "--observation", &observed, "--json"]).stdout)
            .unwrap();
    let files: Vec<&Value> = seen["observation"]["elements"]
        .as_array()
        .unwrap_or_else(|| panic!("{seen:#}"))
        .iter()
        .filter(|e| {
            e["states"]
                .as_array()
                .is_some_and(|s| s.iter().any(|s| s == "file"))
        })
        .collect();
    assert_eq!(files.len(), 2, "{seen:#}");
    assert_eq!(step["arguments"]["ref"], files[1]["id"], "{step:#}");
    assert_eq!(step["evidence"]["mode"], "selectMultiple", "{step:#}");
    assert_eq!(
        chosen(&sites),
        vec![
            json!({ "field": "letter", "name": "letter.pdf", "size": std::fs::metadata(&letter).unwrap().len() })
        ]
    );
}

//! Coding requests (issue 14 item 6, seed 002) through a real `circe serve`: the `[[projects]]`
//! catalog, aliases confirmed in the store, and the provider command run as a real child process
//! (`tests/fixtures/coding/provider.sh`, which records its working directory, its arguments and
//! the operation id into a directory of its own).

use crate::util::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const PROVIDER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/coding/provider.sh"
);

/// One project: its directory, and where its provider records how it was started.
struct Project {
    dir: PathBuf,
    record: PathBuf,
}

impl Project {
    fn read(&self, file: &str) -> Option<String> {
        std::fs::read_to_string(self.record.join(file)).ok()
    }

    /// The arguments the provider got after its behaviour (the objective, when passed as one).
    fn argv(&self) -> Vec<String> {
        self.read("argv")
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    fn ran(&self) -> bool {
        self.record.join("cwd").exists()
    }

    fn forget_run(&self) {
        for f in ["cwd", "argv", "operation", "stdin"] {
            let _ = std::fs::remove_file(self.record.join(f));
        }
    }
}

/// A root with one directory per project and per record, and the config naming them.
struct Catalog {
    _root: tempfile::TempDir,
    projects: Vec<Project>,
    config: String,
}

/// `[[projects]]` entries: (name, behaviour, extra TOML lines), on node "desk".
fn catalog(entries: &[(&str, &str, &str)]) -> Catalog {
    let root = tempfile::Builder::new()
        .prefix("circe-coding")
        .tempdir()
        .unwrap();
    let mut config = "[node]\nname = \"desk\"\n".to_string();
    let mut projects = Vec::new();
    for (name, behaviour, extra) in entries {
        let dir = root.path().join(format!("src-{}", name.to_lowercase()));
        let record = root.path().join(format!("record-{}", name.to_lowercase()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&record).unwrap();
        let dir = dir.canonicalize().unwrap();
        config.push_str(&format!(
            "[[projects]]\nname = {name:?}\npath = {:?}\ncommand = [\"/bin/sh\", {PROVIDER:?}, {:?}, {behaviour:?}]\n{extra}\n",
            dir.to_str().unwrap(),
            record.to_str().unwrap(),
        ));
        projects.push(Project { dir, record });
    }
    Catalog {
        _root: root,
        projects,
        config,
    }
}

fn json_of(d: &Daemon, args: &[&str]) -> serde_json::Value {
    let out = d.cli(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {} {}\n{}", stdout(&out), stderr(&out), d.log()))
}

fn aliases(d: &Daemon) -> Vec<(String, String, String)> {
    circe::store::Store::open(&d.database())
        .unwrap()
        .aliases()
        .unwrap()
        .into_iter()
        .map(|a| (a.heard, a.node, a.project))
        .collect()
}

fn wait_for_file(p: &Path, secs: u64) -> String {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if let Ok(s) = std::fs::read_to_string(p) {
            if !s.trim().is_empty() {
                return s.trim().to_string();
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} was not written within {secs} s", p.display());
}

/// A process that still runs (a zombie has ended: only its exit status waits to be read).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().chars().next())
        })
        .flatten()
        .is_some_and(|state| state != 'Z' && state != 'X')
}

#[test]
fn a_named_project_runs_its_command_in_its_directory_with_the_objective_alone() {
    let c = catalog(&[
        ("Rivvl", "ok", ""),
        ("Notes", "stdin", "objective = \"stdin\""),
    ]);
    let d = Daemon::start(&c.config);
    let rivvl = &c.projects[0];

    let v = json_of(
        &d,
        &[
            "say",
            "--json",
            "--wait",
            "in Rivvl, check out branch Zivil",
        ],
    );
    assert_eq!(v["relation"], "newRequest", "{v:#}");
    assert_eq!(v["interaction"]["goal"], "coding", "{v:#}");
    let op = &v["operation"];
    assert_eq!(op["status"], "completed", "{v:#}\n{}", d.log());
    assert_eq!(op["arguments"]["project"], "Rivvl");
    assert_eq!(op["arguments"]["objective"], "check out branch Zivil");
    // Started in Rivvl's directory, with the objective as its last argument, and nothing else
    // of the words: the routing span "in Rivvl" was consumed.
    assert_eq!(
        rivvl.read("cwd").unwrap().trim(),
        rivvl.dir.to_str().unwrap()
    );
    let argv = rivvl.argv();
    assert_eq!(argv, ["check out branch Zivil"], "{argv:?}");
    assert!(argv.iter().all(|a| !a.contains("Rivvl")), "{argv:?}");
    // It knows the operation record it belongs to, and the step was journalled.
    assert_eq!(rivvl.read("operation").unwrap(), op["id"].as_str().unwrap());
    let step = &op["steps"][0];
    assert_eq!(step["action"], "start provider command", "{step:#}");
    assert_eq!(step["result"], "applied", "{step:#}");
    assert_eq!(step["arguments"]["path"], rivvl.dir.to_str().unwrap());
    assert_eq!(step["evidence"]["exit"], "exit status 0", "{step:#}");
    // The outcome is the command's own last lines.
    let summary = op["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Rivvl: ") && summary.ends_with("done: check out branch Zivil"),
        "{summary}"
    );
    assert!(c.projects[1].read("cwd").is_none(), "Notes did not run");

    // Another project takes the objective on its standard input.
    let notes = &c.projects[1];
    let v = json_of(
        &d,
        &["say", "--json", "--wait", "fix the flaky test in Notes"],
    );
    assert_eq!(v["operation"]["status"], "completed", "{v:#}");
    assert_eq!(
        notes.read("cwd").unwrap().trim(),
        notes.dir.to_str().unwrap()
    );
    assert_eq!(notes.read("stdin").unwrap(), "fix the flaky test");
    assert_eq!(notes.argv(), [""], "no objective among its arguments");
}

#[test]
fn a_sound_alike_asks_yes_stores_the_alias_and_the_next_turn_routes_without_asking() {
    let c = catalog(&[("Rivvl", "ok", "")]);
    let mut d = Daemon::start(&c.config);
    let rivvl = &c.projects[0];

    let v = json_of(
        &d,
        &[
            "say",
            "--voice",
            "--json",
            "in Rivel, check out branch Zivil",
        ],
    );
    let pending = &v["interaction"]["pending"];
    assert_eq!(pending["type"], "question", "{v:#}");
    assert_eq!(pending["prompt"], "Did you mean Rivvl?", "{v:#}");
    assert_eq!(pending["kind"], "yesNo", "{v:#}");
    assert!(
        v["operation"].is_null(),
        "nothing runs before the answer: {v:#}"
    );
    assert!(!rivvl.ran());
    assert!(aliases(&d).is_empty());

    // "yes", through the ordinary answer path: the same request resumes, once.
    let v = json_of(&d, &["answer", "--json", "--wait", "yes"]);
    assert_eq!(v["relation"], "answer", "{v:#}");
    assert_eq!(v["operation"]["status"], "completed", "{v:#}\n{}", d.log());
    assert_eq!(rivvl.argv(), ["check out branch Zivil"]);
    assert_eq!(
        aliases(&d),
        [("rivel".to_string(), "desk".to_string(), "Rivvl".to_string())]
    );

    // The alias is stored: after a restart, the next spoken turn that says "Rivel" routes.
    assert!(d.signal(libc::SIGTERM).success());
    d.spawn();
    rivvl.forget_run();
    let v = json_of(
        &d,
        &[
            "say",
            "--voice",
            "--json",
            "--wait",
            "in Rivel, run the tests",
        ],
    );
    assert_eq!(v["relation"], "newRequest", "{v:#}");
    assert_eq!(v["interaction"]["pending"]["type"], "none", "{v:#}");
    assert_eq!(v["operation"]["status"], "completed", "{v:#}");
    assert_eq!(rivvl.argv(), ["run the tests"]);

    // Typed words are never corrected by sound: the same words typed are no coding request.
    rivvl.forget_run();
    let v = json_of(&d, &["say", "--json", "in Rivel, run the tests"]);
    assert_ne!(v["interaction"]["goal"], "coding", "{v:#}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!rivvl.ran());
}

#[test]
fn no_cancels_the_question_and_nothing_runs() {
    let c = catalog(&[("Rivvl", "ok", "")]);
    let d = Daemon::start(&c.config);
    let v = json_of(
        &d,
        &["say", "--voice", "--json", "I need you to check out Zivil"],
    );
    assert_eq!(
        v["interaction"]["pending"]["prompt"], "Did you mean Rivvl?",
        "{v:#}"
    );
    let v = json_of(&d, &["answer", "--json", "no"]);
    assert_eq!(v["relation"], "cancel", "{v:#}");
    assert_eq!(v["interaction"]["closed"], true, "{v:#}");
    assert!(v["operation"].is_null(), "{v:#}");
    let ops = json_of(&d, &["ops", "--json"]);
    assert_eq!(ops.as_array().map(Vec::len), Some(0), "{ops:#}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!c.projects[0].ran());
    assert!(aliases(&d).is_empty(), "a no confirms nothing");
}

#[test]
fn a_failing_command_is_blocked_with_its_reason() {
    let c = catalog(&[("Rivvl", "fail", "")]);
    let d = Daemon::start(&c.config);
    let out = d.cli(&[
        "say",
        "--json",
        "--wait",
        "in Rivvl, check out branch Zivil",
    ]);
    assert_eq!(out.status.code(), Some(3), "not done: {}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let op = &v["operation"];
    assert_eq!(op["status"], "blocked", "{v:#}");
    let reason = op["outcome"]["summary"].as_str().unwrap();
    assert!(
        reason.contains("exited with status 3")
            && reason.contains("pathspec 'Zivil' did not match"),
        "{reason}"
    );
    assert_eq!(op["steps"][0]["result"], "blocked", "{op:#}");
    assert!(c.projects[0].ran(), "it did run");
}

#[test]
fn stop_ends_a_long_running_command_and_is_confirmed() {
    let c = catalog(&[("Rivvl", "sleep", ""), ("Notes", "stubborn", "")]);
    let d = Daemon::start(&c.config);
    // (request, project, the last signal it needs, at least how long the stop takes)
    let table = [
        (
            "in Rivvl, run the whole test suite",
            &c.projects[0],
            "SIGTERM",
            0,
        ),
        (
            "in Notes, run the whole test suite",
            &c.projects[1],
            "SIGKILL",
            2,
        ),
    ];
    for (words, project, signal, at_least) in table {
        let v = json_of(&d, &["say", "--json", words]);
        let id = v["operation"]["id"].as_str().unwrap().to_string();
        let pid = wait_for_file(&project.record.join("pid"), 20);
        let child = wait_for_file(&project.record.join("child"), 20);
        assert!(alive(&pid) && alive(&child));

        let started = Instant::now();
        let v = json_of(&d, &["stop", "--json"]);
        let took = started.elapsed();
        let op = &v["operation"];
        assert_eq!(op["id"], id.as_str(), "{v:#}");
        assert_eq!(op["status"], "stopped", "{words}: {v:#}\n{}", d.log());
        assert!(op["stop"]["confirmedAt"].is_u64(), "confirmed: {v:#}");
        assert!(
            took >= Duration::from_secs(at_least) && took < Duration::from_secs(10),
            "{words}: {took:?}"
        );
        // The command and what it started are gone, and it never got past its sleep.
        assert!(!alive(&pid), "{words}: the command {pid} still runs");
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(&child) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(&child), "{words}: its child {child} still runs");
        assert!(project.read("finished").is_none());
        let step = &op["steps"][0];
        assert_eq!(
            step["result"], "unknown",
            "what it did before the stop: {step:#}"
        );
        assert_eq!(step["evidence"]["stopped"], true, "{step:#}");
        assert_eq!(step["evidence"]["signal"], signal, "{words}: {step:#}");
    }
}

#[test]
fn a_bad_catalog_entry_is_refused_at_start() {
    let c = catalog(&[("Rivvl", "ok", "")]);
    let missing = c._root.path().join("no-such-dir");
    let bad = format!(
        "{}[[projects]]\nname = \"Notes\"\npath = {:?}\ncommand = [\"/bin/true\"]\n",
        c.config,
        missing.to_str().unwrap()
    );
    let err = serve_refusal(&bad);
    assert!(
        err.contains("[[projects]] entry 2 (\"Notes\")") && err.contains("no-such-dir"),
        "{err}"
    );
    let err = serve_refusal(&format!(
        "{}[[projects]]\nname = \"Notes\"\npath = {:?}\ncommand = []\n",
        c.config,
        c.projects[0].dir.to_str().unwrap()
    ));
    assert!(
        err.contains("[[projects]] entry 2 (\"Notes\")") && err.contains("command is empty"),
        "{err}"
    );
}

#[test]
fn a_choice_by_number_resumes_the_request_and_another_nodes_project_is_not_run_here() {
    let c = catalog(&[("Rivvl", "ok", ""), ("Kernel", "ok", "node = \"laptop\"")]);
    let d = Daemon::start(&c.config);
    let v = json_of(
        &d,
        &[
            "say",
            "--voice",
            "--json",
            "in Rivel, check out branch Zivil",
        ],
    );
    // Two nodes in the catalog: the candidate names its node.
    assert_eq!(
        v["interaction"]["pending"]["prompt"], "Did you mean Rivvl on desk?",
        "{v:#}"
    );
    // A choice by number (the phone's buttons) resumes the same request with its objective.
    let v = json_of(&d, &["answer", "--json", "--wait", "--choice", "1"]);
    assert_eq!(v["operation"]["status"], "completed", "{v:#}");
    assert_eq!(
        v["operation"]["arguments"]["objective"],
        "check out branch Zivil"
    );
    assert_eq!(c.projects[0].argv(), ["check out branch Zivil"]);
    assert_eq!(aliases(&d).len(), 1);

    // Kernel is on another node: routed, but not run here, and said so.
    let out = d.cli(&["say", "--json", "--wait", "in Kernel, bump the version"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["operation"]["status"], "blocked", "{v:#}");
    let reason = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        reason.contains("on node laptop") && reason.contains("nothing was started"),
        "{reason}"
    );
    assert!(!c.projects[1].ran());
}

//! Issue 16's release gate, the desktop row: twenty phrasings of the editor → file manager task
//! (`tests/fixtures/release/desktop-task.jsonl`, written before they were run), each on a fresh
//! real headless desktop through the real daemon, each effect checked independently on disk and
//! in the file manager. Counts: completed, asked, refused, wrong target, duplicate, false success;
//! the last three must be 0.

use crate::desktop_util::{write, Desktop};
use crate::mesh_browser::paired_phone;
use crate::nodes::free_port;
use crate::release_youtube::{known, wait_new};
use crate::util::Daemon;
use crate::voice::{fake_microphone, hear, norm, synth, text, the_request, voice_env, Voice};
use serde_json::Value;
use std::path::Path;

const NOTES: &str = "# Weekly sync\n\nAgenda:\n- budget\n";
const TODO: &str = "# Todo\n- milk\n";
const EXPECTED: &str = "# Meeting notes\n\nAgenda:\n- budget\n";

/// What became of a gate task's phrasings (the release variations tests share it).
#[derive(Debug, Default)]
pub struct Counts {
    pub completed: u32,
    pub asked: u32,
    pub refused: u32,
    pub unknown: u32,
    /// Spoken only: the recogniser's words were not the ones said (done as heard, not counted
    /// as Circe's error; the gate's three zeros still hold for them).
    pub misheard: u32,
    /// Spoken only: the always-on stop detector also heard "stop" inside the request (in
    /// "desk·top"); with nothing running it stops nothing, and the request still runs.
    pub false_stop: u32,
    pub wrong_target: u32,
    pub duplicate: u32,
    pub false_success: u32,
}

/// The phrasings of a JSON-lines file.
pub fn cases(file: &str) -> Vec<Value> {
    file.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// How a phrasing reaches the daemon.
#[derive(Clone, Copy, Debug)]
pub enum How {
    Typed,
    Spoken(Voice),
}

/// One phrasing of the desktop task on a fresh desktop and daemon: its class and why, the words
/// heard (spoken) and the voice latencies recorded for it (phase, ms).
fn desktop_case(case: &Value, how: How, audio: &Path, counts: &mut Counts) -> String {
    let said = case["say"].as_str().unwrap();
    let desktop = Desktop::start();
    let notes = desktop.docs.join("notes.md");
    let todo = desktop.docs.join("todo.md");
    write(&notes, NOTES);
    write(&todo, TODO);
    desktop.select_in_file_manager(&notes);
    let mut env = desktop.daemon_env();
    if matches!(how, How::Spoken(_)) {
        env.extend(voice_env());
    }
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let (v, heard) = match how {
        How::Typed => {
            let out = d.cli(&["say", "--json", "--wait", said]);
            let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
            (v, said.to_string())
        }
        How::Spoken(voice) => {
            let name = format!("case{}", said.len());
            let wav = synth(audio, &name, voice, said);
            let hearings = hear(&d, &wav, &["--wait"]);
            if hearings
                .iter()
                .any(|h| text(h).starts_with("stop (the stop detector)"))
            {
                counts.false_stop += 1;
            }
            let h = the_request(hearings);
            let heard = text(&h);
            (h, heard)
        }
    };
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
    // What the interaction waits for (a hearing carries only its operation).
    let pending = match &state.interaction {
        Some(i) if !i.closed => serde_json::to_value(&i.pending).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    // Spoken words have no case: the recogniser's capitals are not the person's.
    let saved_right = match how {
        How::Typed => now == EXPECTED,
        How::Spoken(_) => now.to_lowercase() == EXPECTED.to_lowercase(),
    };
    let heard_right = norm(&heard).join(" ").contains("meeting notes");
    let class = match status.as_str() {
        "completed" => {
            let revealed = v.to_string().contains("showed it in");
            let wants_reveal = case["reveals"].as_bool().unwrap_or(false);
            if saved_right && (!wants_reveal || revealed) {
                counts.completed += 1;
                "completed"
            } else if !heard_right && now.starts_with("# ") && now != NOTES {
                // Done as heard: the heading is the words the recogniser gave.
                counts.misheard += 1;
                "misheard"
            } else {
                counts.false_success += 1;
                "FALSE SUCCESS"
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
        "none" if matches!(pending["type"].as_str(), Some("question" | "approval")) => {
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
        .or(pending["prompt"].as_str())
        .or(v["outcome"]["reason"].as_str())
        .unwrap_or("")
        .to_string();
    let heard = match how {
        How::Typed => String::new(),
        How::Spoken(voice) => format!(" [{voice:?} heard: {heard}]"),
    };
    if matches!(how, How::Spoken(_)) {
        LATENCIES.with(|l| l.borrow_mut().extend(latencies(&d)));
    }
    format!("{class:<14} {said}{heard}  → {why}")
}

thread_local! {
    static LATENCIES: std::cell::RefCell<Vec<(String, u64)>> = Default::default();
}

/// The daemon's recorded voice latencies, as (phase, ms) per utterance: each phase's p50 when
/// only one utterance was heard.
pub fn latencies(d: &Daemon) -> Vec<(String, u64)> {
    let m = d.cli(&["metrics", "--json"]);
    let m: Value = serde_json::from_slice(&m.stdout).unwrap_or(Value::Null);
    m.as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["count"] == 1)
        .map(|r| {
            (
                r["phase"].as_str().unwrap_or("?").to_string(),
                r["p50Ms"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// p50 / p95 of each phase among `samples`, one line each.
pub fn distribution(samples: &[(String, u64)]) -> String {
    let mut phases: Vec<&str> = samples.iter().map(|(p, _)| p.as_str()).collect();
    phases.sort();
    phases.dedup();
    phases
        .iter()
        .map(|p| {
            let mut ms: Vec<u64> = samples
                .iter()
                .filter(|(q, _)| q == p)
                .map(|(_, ms)| *ms)
                .collect();
            ms.sort();
            let at = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
            format!("{p}: n={} p50={} ms p95={} ms", ms.len(), at(0.5), at(0.95))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The gate's three zeros: no wrong target, no duplicate, no false success.
pub fn assert_the_gate(counts: &Counts, lines: &[String]) {
    eprintln!("{}\n{counts:?}", lines.join("\n"));
    assert_eq!(counts.wrong_target, 0, "{}", lines.join("\n"));
    assert_eq!(counts.duplicate, 0, "{}", lines.join("\n"));
    assert_eq!(counts.false_success, 0, "{}", lines.join("\n"));
}

#[test]
fn the_editor_to_file_manager_task_in_twenty_phrasings() {
    let cases = cases(include_str!("../fixtures/release/desktop-task.jsonl"));
    assert!(cases.len() >= 20, "at least twenty phrasings");
    let mut counts = Counts::default();
    let lines: Vec<String> = cases
        .iter()
        .map(|case| desktop_case(case, How::Typed, Path::new("."), &mut counts))
        .collect();
    assert_the_gate(&counts, &lines);
    // The floor: the first run's count (docs/RELEASE.md), never lower.
    assert!(
        counts.completed >= FLOOR,
        "{counts:?}\n{}",
        lines.join("\n")
    );
}

/// Half of the twenty (every other one), spoken: flite's and espeak-ng's voices in turn, through
/// `circe say --audio` (the daemon's voice session, Whisper, the same admission path).
#[test]
fn the_editor_to_file_manager_task_spoken_in_two_voices() {
    let cases = cases(include_str!("../fixtures/release/desktop-task.jsonl"));
    let audio = tempfile::tempdir().unwrap();
    let mut counts = Counts::default();
    let lines: Vec<String> = cases
        .iter()
        .step_by(2)
        .enumerate()
        .map(|(i, case)| {
            let voice = if i % 2 == 0 {
                Voice::Flite
            } else {
                Voice::Espeak
            };
            desktop_case(case, How::Spoken(voice), audio.path(), &mut counts)
        })
        .collect();
    assert_eq!(lines.len(), 10);
    let samples = LATENCIES.with(|l| l.borrow().clone());
    eprintln!(
        "latencies from the end of speech:\n{}",
        distribution(&samples)
    );
    assert_the_gate(&counts, &lines);
    assert!(
        counts.completed >= SPOKEN_FLOOR,
        "{counts:?}\n{}",
        lines.join("\n")
    );
    // Every completed one recorded its way from the end of speech to the verified effect.
    let verified = samples
        .iter()
        .filter(|(p, _)| p == "verifiedResult")
        .count();
    assert!(verified as u32 >= counts.completed, "{samples:?}");
}

/// Spoken completions, first run (docs/RELEASE.md): 6 of 10 (1 asked, 1 refused on a misheard
/// "its heading", 2 cut by the stop detector hearing "stop" in the request); never lowered.
const SPOKEN_FLOOR: u32 = 6;

/// Completed phrasings: 10 of 20 on the first run (docs/RELEASE.md), 20 after two general fixes
/// (the heading after "heading … to" / "heading says"; a named file is not a chosen path); one
/// is allowed to end otherwise (asked or refused, never wrong) on a loaded machine.
const FLOOR: u32 = 19;

/// The processes named `comm` in `desktop`'s session (found by its bus address).
fn session_pids(desktop: &Desktop, comm: &str) -> Vec<i32> {
    // Started by D-Bus activation, an app has the address as DBUS_STARTER_ADDRESS.
    let bus = desktop
        .env
        .iter()
        .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
        .map(|(_, v)| format!("={v}"))
        .expect("the session's bus");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let ours = environ
            .split(|b| *b == 0)
            .any(|v| v.ends_with(bus.as_bytes()) && v.starts_with(b"DBUS_"));
        if name.trim().eq_ignore_ascii_case(comm) && ours {
            pids.push(pid);
        }
    }
    pids
}

/// Freeze or thaw the session's file manager: while it is frozen, the task waits on it, so it
/// is still running when the test stops, corrects or kills something.
fn file_manager(desktop: &Desktop, signal: i32) {
    let pids = session_pids(desktop, "thunar");
    assert!(!pids.is_empty(), "no file manager in the session");
    for pid in pids {
        unsafe { libc::kill(pid, signal) };
    }
}

/// Row 4 for the desktop task, from the phone: stop while it runs (confirmed, nothing after it),
/// a correction mid-run ("no, I meant Project notes": the stale heading never lands), the phone
/// reloading mid-operation, and the daemon killed with SIGKILL mid-operation (the goal survives,
/// the operation is unknown, never done).
#[test]
fn the_desktop_task_stops_corrects_and_survives_reconnects() {
    use crate::util::rt;
    use circe::model::OperationStatus;
    use std::time::Duration;
    const TASK: &str = "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.";

    let desktop = Desktop::start();
    let notes = desktop.docs.join("notes.md");
    write(&notes, NOTES);
    write(&desktop.docs.join("todo.md"), TODO);
    desktop.select_in_file_manager(&notes);
    let mut d = Daemon::start_with_env(
        &format!(
            "[node]\nname = \"desk\"\n[mesh]\nlisten = \"127.0.0.1:{}\"\n",
            free_port()
        ),
        desktop.daemon_env(),
    );
    let mut phone = paired_phone(&d, &[]);

    let running = |o: &circe::model::Operation| o.status == OperationStatus::Running;

    // Stop while it runs: confirmed, and nothing after it once the file manager answers again.
    file_manager(&desktop, libc::SIGSTOP);
    let before = known(&d);
    phone.say(TASK);
    let op = wait_new(&d, &before, "the task running", 60, running);
    std::thread::sleep(Duration::from_millis(500));
    phone.eval("document.getElementById('stop').click(); true");
    let stopped = wait_new(&d, &before, "stopped", 60, |o| o.status.is_final());
    assert_eq!(stopped.id, op.id);
    assert_eq!(stopped.status, OperationStatus::Stopped, "{stopped:#?}");
    assert!(stopped.stop.as_ref().unwrap().confirmed_at.is_some());
    file_manager(&desktop, libc::SIGCONT);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        NOTES,
        "nothing after the stop"
    );
    let store = circe::store::Store::open(&d.database()).unwrap();
    let later = store.operation(op.id).unwrap().unwrap();
    assert_eq!(later.steps.len(), stopped.steps.len(), "{later:#?}");

    // A correction mid-run: the heading becomes the corrected one, never the stale one.
    file_manager(&desktop, libc::SIGSTOP);
    let before = known(&d);
    phone.say(TASK);
    let first = wait_new(&d, &before, "the task running", 60, running);
    phone.wait_shown(first.interaction, 20);
    phone.say("no, I meant Project notes");
    file_manager(&desktop, libc::SIGCONT);
    let stale = wait_new(&d, &before, "the correction stops it", 60, |o| {
        o.id == first.id && o.status.is_final()
    });
    assert_eq!(stale.status, OperationStatus::Stopped, "{stale:#?}");
    assert_eq!(stale.stop.as_ref().unwrap().requested_by, "correction");
    let corrected = wait_new(&d, &before, "the corrected task", 60, |o| {
        o.id != first.id && o.status.is_final()
    });
    assert_eq!(
        corrected.status,
        OperationStatus::Completed,
        "{corrected:#?}"
    );
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        NOTES.replace("Weekly sync", "Project notes")
    );

    // The phone reloads mid-operation: the running operation is shown, then its end.
    file_manager(&desktop, libc::SIGSTOP);
    let before = known(&d);
    phone.say("on my desktop, change the heading of notes.md to Meeting notes and save it");
    wait_new(&d, &before, "running", 60, running);
    phone.call("Page.reload", serde_json::json!({}));
    phone.wait(
        "document.getElementById('status').textContent === 'online' && document.getElementById('steps').textContent.includes('in progress')",
        10,
    );
    file_manager(&desktop, libc::SIGCONT);
    phone.wait(
        "document.getElementById('outcome-class').textContent === 'done'",
        30,
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), EXPECTED);

    // SIGKILL mid-operation: after the restart the goal survives and the operation is unknown.
    file_manager(&desktop, libc::SIGSTOP);
    let before = known(&d);
    phone.say("on my desktop, change the heading of notes.md to Final notes and save it");
    let op = wait_new(&d, &before, "running", 60, running);
    d.signal(libc::SIGKILL);
    file_manager(&desktop, libc::SIGCONT);
    d.spawn();
    let store = circe::store::Store::open(&d.database()).unwrap();
    let after = store.operation(op.id).unwrap().unwrap();
    assert_eq!(
        after.status,
        OperationStatus::OutcomeUnknown,
        "unknown, never done: {after:#?}"
    );
    let state = rt().block_on(d.state());
    assert_eq!(state.interaction.expect("the goal").id, op.interaction);
    phone.wait(
        "document.getElementById('status').textContent === 'online'",
        30,
    );
    phone.wait(
        "document.getElementById('outcome-class').textContent.includes('unknown')",
        10,
    );
    // The file is as the killed operation left it: before its edit, or after it (the daemon
    // cannot know, and says so); never anything else.
    let now = std::fs::read_to_string(&notes).unwrap();
    assert!(
        now == EXPECTED || now == EXPECTED.replace("Meeting notes", "Final notes"),
        "{now}"
    );
}

/// Row 3 spoken: the seed's sentence said into the phone page's microphone (flite's voice as
/// Chromium's fake capture device), streamed to the node, heard by Whisper, and done on the
/// desktop once: verified on disk, the phone showing what happened.
#[test]
fn the_phone_page_runs_the_desktop_task_from_its_microphone() {
    use crate::mesh_browser::text_of;
    use crate::util::rt;
    use crate::voice::sox;
    use circe::model::OperationStatus;
    use std::time::{Duration, Instant};
    const TASK: &str = "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.";

    let desktop = Desktop::start();
    let notes = desktop.docs.join("notes.md");
    let todo = desktop.docs.join("todo.md");
    write(&notes, NOTES);
    write(&todo, TODO);
    desktop.select_in_file_manager(&notes);
    let mut env = desktop.daemon_env();
    env.extend(voice_env());
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let dir = tempfile::tempdir().unwrap();
    let said = synth(dir.path(), "task", Voice::Flite, TASK);
    // Chromium loops the file: a long silence after the words, so they are said once here.
    let looped = dir.path().join("looped.wav");
    sox(&[said.as_os_str(), looped.as_os_str(), "pad 0 60".as_ref()]);
    let mut phone = paired_phone(&d, &fake_microphone(&looped));

    phone.eval("document.getElementById('talk').click()");
    phone.wait("talking !== null", 10);
    let deadline = Instant::now() + Duration::from_secs(120);
    let op = loop {
        let state = rt().block_on(d.state());
        if let Some(op) = state.operation.filter(|o| o.status.is_final()) {
            break op;
        }
        assert!(
            Instant::now() < deadline,
            "no finished operation from the phone's microphone: {:#?}\n{}",
            state.interaction,
            d.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    phone.eval("document.getElementById('talk').click()");
    assert_eq!(op.mode, circe::model::InputMode::Voice, "{op:#?}");
    assert_eq!(op.status, OperationStatus::Completed, "{op:#?}");
    // Spoken words have no case: the recogniser's capitals are not the person's.
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap().to_lowercase(),
        EXPECTED.to_lowercase(),
        "heard: {:?}",
        op.heard
    );
    assert_eq!(std::fs::read_to_string(&todo).unwrap(), TODO);
    phone.wait(
        "document.getElementById('outcome-class').textContent === 'done'",
        10,
    );
    assert!(
        text_of(&mut phone, "outcome").contains("showed it in"),
        "{}",
        text_of(&mut phone, "outcome")
    );
    assert_eq!(rt().block_on(d.state()).operations.len(), 1, "done once");
}

/// Row 1 spoken: the weather question, its answer and a correction said into the phone page's
/// microphone, one after another (one recording, as Chromium's fake microphone plays one file:
/// "what's the weather?", a pause, "London", a pause, "actually, in Paris"), streamed to the
/// node and heard by Whisper. The answer fills the question, the correction stops London's
/// running lookup and Paris is looked up instead; the phone shows Paris.
#[test]
fn the_phone_page_asks_answers_and_corrects_the_weather_by_voice() {
    use crate::mesh_browser::text_of;
    use crate::util::{rt, WeatherServer};
    use crate::voice::sox;
    use circe::model::{OperationStatus, Pending};
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    let weather = WeatherServer::start();
    // Each forecast takes 12 s: London's is still running when the correction is said.
    weather
        .behaviour
        .forecast_delay_ms
        .store(12_000, Ordering::SeqCst);
    let d = Daemon::start_with_env(
        &weather
            .config()
            .replace("timeout_ms = 1500", "timeout_ms = 60000"),
        voice_env(),
    );
    let dir = tempfile::tempdir().unwrap();
    let parts = [
        synth(dir.path(), "ask", Voice::Flite, "what's the weather?"),
        synth(dir.path(), "answer", Voice::Flite, "London"),
        synth(dir.path(), "correct", Voice::Flite, "actually, in Paris"),
    ];
    let gap = dir.path().join("gap.wav");
    sox(&[
        "-n -r 16000 -c 1 -b 16".as_ref(),
        gap.as_os_str(),
        "trim 0 6".as_ref(),
    ]);
    let said = dir.path().join("said.wav");
    let mut cmd = std::process::Command::new("sox");
    for p in &parts {
        cmd.arg(p).arg(&gap);
    }
    cmd.arg(&said);
    assert!(cmd.status().unwrap().success());
    let looped = dir.path().join("looped.wav");
    sox(&[said.as_os_str(), looped.as_os_str(), "pad 0 90".as_ref()]);
    let mut phone = paired_phone(&d, &fake_microphone(&looped));

    phone.eval("document.getElementById('talk').click()");
    phone.wait("talking !== null", 10);
    // The question is asked, and shown on the phone.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = rt().block_on(d.state());
        if matches!(
            state.interaction.as_ref().map(|i| &i.pending),
            Some(Pending::Question(_))
        ) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no question: {:#?}\n{}",
            state.interaction,
            d.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    phone.wait("!document.getElementById('question-box').hidden", 10);
    // Then the answer runs London, the correction stops it, and Paris is the outcome.
    let deadline = Instant::now() + Duration::from_secs(120);
    let (london, paris) = loop {
        let ops = rt().block_on(d.state()).operations;
        let place = |p: &str| {
            ops.iter()
                .find(|o| o.arguments.get("place").is_some_and(|x| x == p))
                .cloned()
        };
        if let (Some(l), Some(p)) = (place("London"), place("Paris")) {
            if p.status.is_final() && l.status.is_final() {
                break (l, p);
            }
        }
        assert!(
            Instant::now() < deadline,
            "not both London and Paris: {ops:#?}\n{}",
            d.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    phone.eval("document.getElementById('talk').click()");
    assert_eq!(london.interaction, paris.interaction, "one goal, corrected");
    assert_eq!(london.status, OperationStatus::Stopped, "{london:#?}");
    assert_eq!(london.stop.as_ref().unwrap().requested_by, "correction");
    assert_eq!(paris.status, OperationStatus::Completed, "{paris:#?}");
    assert_eq!(paris.mode, circe::model::InputMode::Voice);
    phone.wait(
        "document.getElementById('outcome').textContent.includes('Paris')",
        10,
    );
    assert!(text_of(&mut phone, "outcome").contains("France"));
    // Nothing else was looked up: the recording's three utterances, one question, two places.
    let names = weather.names.lock().unwrap().clone();
    assert_eq!(names, ["London", "Paris"], "{names:?}");
}

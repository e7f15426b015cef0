//! Voice end to end: speech synthesized here (flite's `slt` voice and espeak-ng, 16 kHz through
//! sox) goes through `circe say --audio` into the real daemon's voice session (energy VAD,
//! Whisper tiny.en through whisper.cpp, the guards, the one admission path) and, where a page is
//! named, real Chromium with the extension on the fixture sites.
//!
//! A missing tool or model fails the test with what to install; nothing is skipped.

use crate::browser_util::{wait_connected, Browser, Sites};
use crate::util::{stderr, stdout, Daemon, WeatherServer};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The word-error ceiling for the 20 commands (97 words), flite's voice, biased by the shop page
/// (measured 2026-12-03: 7.2 %, 7 errors; docs/VOICE.md). The ceiling leaves room for a few more.
const WER_CEILING_FLITE: f64 = 0.12;
/// espeak-ng's formant voice is far from what Whisper learned from (measured 18.6 %, 18 errors;
/// the probe saw 28–38 % on its set).
const WER_CEILING_ESPEAK: f64 = 0.30;

/// The 20 commands (79 + words), as a person would say them to the shop or news pages.
const COMMANDS: [&str; 20] = [
    "open the comments on the third story",
    "add the small desk to my cart",
    "search youtube for lo-fi beats",
    "change the heading to meeting notes",
    "what's the weather in london",
    "scroll down",
    "click the sign in button",
    "go back to the previous page",
    "play the next video",
    "close this tab",
    "type hello world in the search box",
    "open a new tab and go to wikipedia",
    "reply to the first email",
    "zoom in on the picture",
    "accept all cookies",
    "sort by price",
    "show only items in stock",
    "save the black desk",
    "scroll up",
    "search for office chairs",
];

fn require(tool: &str, package: &str) {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{tool} is missing: install Debian's {package} package (scripts/test does this)"
    );
}

/// The recogniser's model directory; fails with how to install it.
fn model_dir() -> PathBuf {
    let dir = std::env::var_os("CIRCE_WHISPER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".models/whisper-tiny.en"));
    assert!(
        dir.join("ggml-tiny.en.bin").is_file(),
        "the Whisper model is missing from {}: run scripts/install-whisper {} (scripts/test does this)",
        dir.display(),
        dir.display()
    );
    dir
}

pub fn voice_env() -> Vec<(String, String)> {
    require("flite", "flite");
    require("espeak-ng", "espeak-ng");
    require("sox", "sox");
    vec![(
        "CIRCE_WHISPER_DIR".into(),
        model_dir().to_string_lossy().into_owned(),
    )]
}

#[derive(Clone, Copy, Debug)]
pub enum Voice {
    Flite,
    Espeak,
}

/// Speak `text` into a 16 kHz mono 16-bit WAV with 0.4 s of silence before and 0.6 s after.
pub fn synth(dir: &Path, name: &str, voice: Voice, text: &str) -> PathBuf {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
    let ok = match voice {
        Voice::Flite => Command::new("flite")
            .args(["-voice", "slt", "-t", text, "-o"])
            .arg(&raw)
            .status(),
        Voice::Espeak => Command::new("espeak-ng")
            .args(["-v", "en-us", "-s", "160", "-w"])
            .arg(&raw)
            .arg(text)
            .status(),
    }
    .unwrap();
    assert!(ok.success(), "{voice:?} failed on {text:?}");
    sox(&[
        raw.as_os_str(),
        "-r 16000 -c 1 -b 16".as_ref(),
        out.as_os_str(),
        "pad 0.4 0.6".as_ref(),
    ]);
    out
}

/// Run sox with arguments (a multi-word &str is split on spaces).
pub fn sox(args: &[&std::ffi::OsStr]) {
    let mut cmd = Command::new("sox");
    for a in args {
        let s = a.to_string_lossy();
        if s.contains(' ') && !Path::new(&*s).exists() {
            cmd.args(s.split(' '));
        } else {
            cmd.arg(a);
        }
    }
    let status = cmd.status().unwrap();
    assert!(status.success(), "sox {args:?}");
}

/// A daemon whose weather forecasts take 30 s: an operation that is still running when "stop" is
/// said.
fn slow_forecast_daemon(env: Vec<(String, String)>) -> (WeatherServer, Daemon) {
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(30_000, Ordering::SeqCst);
    let config = weather
        .config()
        .replace("timeout_ms = 1500", "timeout_ms = 60000");
    let d = Daemon::start_with_env(&config, env);
    (weather, d)
}

/// `circe listen --json --quiet --from FILE`: its lines, each parsed.
fn listen_from(d: &Daemon, file: &Path) -> Vec<Value> {
    let out = d.cli(&[
        "listen",
        "--json",
        "--quiet",
        "--from",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}\n{}", stderr(&out), d.log());
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Several WAVs one after another, with a second of silence between them.
fn concat(dir: &Path, name: &str, parts: &[PathBuf]) -> PathBuf {
    let gap = dir.join("gap.wav");
    sox(&[
        "-n -r 16000 -c 1 -b 16".as_ref(),
        gap.as_os_str(),
        "trim 0 1".as_ref(),
    ]);
    let out = dir.join(format!("{name}.wav"));
    let mut cmd = Command::new("sox");
    for p in parts {
        cmd.arg(p).arg(&gap);
    }
    cmd.arg(&out);
    assert!(cmd.status().unwrap().success());
    out
}

/// `circe say --audio FILE --json [extra...]`: the hearings.
pub fn hear(d: &Daemon, file: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["say", "--json", "--audio", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = d.cli(&args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "say --audio {}: {}\n{}\n{}",
            file.display(),
            stdout(&out),
            stderr(&out),
            d.log()
        )
    })
}

/// Chromium's flags for a microphone that plays `wav` (in a loop) and needs no permission click.
pub fn fake_microphone(wav: &Path) -> Vec<String> {
    vec![
        "--use-fake-ui-for-media-stream".into(),
        "--use-fake-device-for-media-stream".into(),
        format!("--use-file-for-fake-audio-capture={}", wav.display()),
    ]
}

/// Of one file's hearings, the request: the one admitted, else the last. The always-on stop
/// detector may also have heard "stop" inside a word of it ("desk·top"): with nothing running
/// that hearing is "nothing to stop", and the request is still recognised and admitted.
pub fn the_request(hearings: Vec<Value>) -> Value {
    hearings
        .iter()
        .find(|h| kind(h) == "admitted")
        .or(hearings.last())
        .cloned()
        .unwrap_or(Value::Null)
}

pub fn kind(h: &Value) -> &str {
    h["outcome"]["kind"].as_str().unwrap_or("?")
}

pub fn text(h: &Value) -> String {
    h["outcome"]["text"]
        .as_str()
        .or(h["recognized"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// Words for scoring: lower case, punctuation dropped, hyphens as spaces.
pub fn norm(s: &str) -> Vec<String> {
    s.to_lowercase()
        .replace(['-', '—'], " ")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// Word edit distance.
fn edits(a: &[String], b: &[String]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, y) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(x != y))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}

fn shop(env: Vec<(String, String)>) -> (Sites, Daemon, Browser) {
    shop_with("", env)
}

/// The shop page in real Chromium, and a daemon with `config` added to its node's.
fn shop_with(config: &str, env: Vec<(String, String)>) -> (Sites, Daemon, Browser) {
    let sites = Sites::start();
    let d = Daemon::start_with_env(&format!("[node]\nname = \"desk\"\n{config}"), env);
    let b = Browser::start(&d, &format!("{}/shop/index.html?q=desk", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (sites, d, b)
}

#[test]
fn twenty_commands_are_heard_within_the_word_error_ceiling() {
    let env = voice_env();
    let (_sites, d, _b) = shop(env);
    let dir = tempfile::tempdir().unwrap();
    for (voice, ceiling) in [
        (Voice::Flite, WER_CEILING_FLITE),
        (Voice::Espeak, WER_CEILING_ESPEAK),
    ] {
        let parts: Vec<PathBuf> = COMMANDS
            .iter()
            .enumerate()
            .map(|(i, c)| synth(dir.path(), &format!("{voice:?}{i}"), voice, c))
            .collect();
        // Two files of ten (a file holds at most 60 s of audio).
        let mut hearings = Vec::new();
        for (k, half) in parts.chunks(10).enumerate() {
            let file = concat(dir.path(), &format!("{voice:?}-{k}"), half);
            hearings.extend(hear(&d, &file, &["--transcribe"]));
        }
        assert_eq!(
            hearings.len(),
            COMMANDS.len(),
            "{voice:?}: the VAD found {} utterances in 20 commands: {hearings:#?}",
            hearings.len()
        );
        let (mut errors, mut words) = (0, 0);
        let mut report = String::new();
        for (h, said) in hearings.iter().zip(COMMANDS) {
            // The screen's labels were the prompt.
            assert!(h["prompt"].as_str().unwrap().contains("MICKE Desk"), "{h}");
            let e = edits(&norm(said), &norm(&text(h)));
            errors += e;
            words += norm(said).len();
            report.push_str(&format!("{e} | {said} | {}\n", text(h)));
        }
        let wer = errors as f64 / words as f64;
        eprintln!(
            "{voice:?}: WER {:.1} % ({errors}/{words})\n{report}",
            wer * 100.0
        );
        assert!(
            wer <= ceiling,
            "{voice:?}: WER {:.1} % is over the ceiling {:.0} %:\n{report}",
            wer * 100.0,
            ceiling * 100.0
        );
    }
}

#[test]
fn a_proper_noun_on_screen_is_heard_only_with_the_screens_bias_and_acted_on() {
    let env = voice_env();
    let (sites, d, _b) = shop(env);
    let dir = tempfile::tempdir().unwrap();
    let said = synth(
        dir.path(),
        "linnmon",
        Voice::Flite,
        "add the LINNMON small desk to my cart",
    );
    // Unbiased, Whisper does not know the name.
    let plain = hear(&d, &said, &["--transcribe", "--no-bias"]);
    assert_eq!(plain.len(), 1, "{plain:#?}");
    assert!(
        !norm(&text(&plain[0])).contains(&"linnmon".to_string()),
        "unbiased recognition already got it: {plain:#?}"
    );
    // No screen: only the words of what Circe does.
    assert_eq!(plain[0]["prompt"], circe::voice::session::VOCABULARY);
    assert!(sites.actions().is_empty());
    // With the screen's labels as the prompt it does, and the request acts on that product.
    let biased = hear(&d, &said, &["--wait"]);
    assert_eq!(biased.len(), 1, "{biased:#?}");
    assert_eq!(kind(&biased[0]), "admitted", "{biased:#?}");
    assert!(
        norm(&text(&biased[0])).contains(&"linnmon".to_string()),
        "{biased:#?}"
    );
    assert_eq!(biased[0]["operation"]["status"], "completed", "{biased:#?}");
    assert_eq!(biased[0]["operation"]["mode"], "voice");
    assert_eq!(
        sites.actions(),
        vec![serde_json::json!({"site": "shop", "action": "add", "item": "LINNMON Small desk"})]
    );
    // The hypotheses reached the operation with their confidence.
    let heard = &biased[0]["operation"]["heard"];
    assert!(
        heard[0]["confidence"]
            .as_u64()
            .is_some_and(|c| c > 0 && c <= 1000),
        "{heard}"
    );
    // Latency was recorded for it.
    let m = d.cli(&["metrics", "--json"]);
    assert!(m.status.success(), "{}", stderr(&m));
    let m: Value = serde_json::from_slice(&m.stdout).unwrap();
    eprintln!(
        "latencies: {m}\nunbiased: {}\nbiased: {}",
        text(&plain[0]),
        text(&biased[0])
    );
    let phases: Vec<&str> = m
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["phase"].as_str().unwrap())
        .collect();
    for p in [
        "admission",
        "firstResponse",
        "firstAction",
        "verifiedResult",
    ] {
        assert!(phases.contains(&p), "{p} missing from {m}");
    }
}

/// Issue 13 items 3 and (this branch) 2: "stop" or "cancel" in a recorded file (`say --audio`)
/// during a running operation takes the stop path once: the always-on stop detector (pocketsphinx's
/// keyword spotter) runs over a file as over a live stream, and the recogniser's own "stop" for
/// the same words is not a second one. Measured (docs/VOICE-SPHINX.md): the spotter hears flite's
/// "stop" and "cancel" and espeak-ng's "stop", and misses espeak-ng's "cancel"; then Whisper's
/// "cancel" is the stop path's only way in.
#[test]
fn stop_said_during_a_running_operation_stops_it() {
    let mut env = voice_env();
    crate::sphinx_util::require_packages();
    env.push(("RUST_LOG".into(), "info".into()));
    let (_weather, d) = slow_forecast_daemon(env);
    let dir = tempfile::tempdir().unwrap();
    let stop = synth(dir.path(), "stop", Voice::Flite, "stop");
    // Nothing running: the stop says so once and changes nothing.
    let idle = hear(&d, &stop, &[]);
    let kinds: Vec<&str> = idle.iter().map(kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "nothingToStop").count(),
        1,
        "{idle:#?}"
    );
    assert!(
        kinds
            .iter()
            .all(|k| ["nothingToStop", "ignored"].contains(k)),
        "{idle:#?}"
    );
    let mut report = Vec::new();
    // (voice, word, heard by the stop detector: measured, docs/VOICE-SPHINX.md)
    for (voice, word, spotted) in [
        (Voice::Flite, "stop", true),
        (Voice::Flite, "cancel", true),
        (Voice::Espeak, "stop", true),
        (Voice::Espeak, "cancel", false),
    ] {
        let clip = synth(dir.path(), &format!("{voice:?}-{word}"), voice, word);
        let said = d.cli(&["say", "weather in Pune"]);
        assert!(
            stdout(&said).contains("accepted operation"),
            "{}",
            stdout(&said)
        );
        let heard = hear(&d, &clip, &[]);
        let summary: Vec<String> = heard
            .iter()
            .map(|h| format!("{} {}", kind(h), h["recognized"]))
            .collect();
        report.push(format!("{voice:?} {word:?}: {summary:?}"));
        let stops: Vec<&Value> = heard.iter().filter(|h| kind(h) == "stopped").collect();
        let by_detector = stops
            .iter()
            .any(|h| h["recognized"] == "stop (the stop detector)");
        assert_eq!(by_detector, spotted, "{voice:?} {word}: {heard:#?}");
        if !spotted {
            // The known miss: the recogniser alone decides (Whisper heard espeak-ng's "cancel"
            // as "cancelled" here: not a stop). Never two stops; end the operation by hand.
            assert!(stops.len() <= 1, "{heard:#?}");
            let _ = d.cli(&["stop"]);
            continue;
        }
        assert_eq!(stops.len(), 1, "{voice:?} {word}: {heard:#?}\n{}", d.log());
        assert_eq!(
            stops[0]["outcome"]["interrupted"]["confirmed"], true,
            "{heard:#?}"
        );
        assert_eq!(
            stops[0]["outcome"]["interrupted"]["operation"]["status"],
            "stopped"
        );
        assert_eq!(
            stops[0]["outcome"]["interrupted"]["stop"]["requestedBy"],
            "voice"
        );
        // The recogniser's own "stop" for the same words is not a second one.
        assert!(
            heard
                .iter()
                .all(|h| ["stopped", "ignored"].contains(&kind(h))),
            "{heard:#?}"
        );
    }
    eprintln!("{}", report.join("\n"));
    // It went the stop path: no input was stored for it.
    let db = rusqlite::Connection::open(d.database()).unwrap();
    let inputs: i64 = db
        .query_row(
            "SELECT count(*) FROM inputs WHERE device = 'voice'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(inputs, 0);
    let m: Value = serde_json::from_slice(&d.cli(&["metrics", "--json"]).stdout).unwrap();
    eprintln!("latencies: {m}");
    assert!(
        m.as_array()
            .unwrap()
            .iter()
            .any(|r| r["phase"] == "cessation"),
        "{m}"
    );
}

/// "stop" into a live stream: the always-on stop detector (pocketsphinx's keyword spotter) takes
/// the stop path before Whisper has the words, and Whisper's own "stop" is not a second stop.
#[test]
fn stop_said_into_a_live_stream_is_spotted_and_stops_once() {
    let env = voice_env();
    crate::sphinx_util::require_packages();
    let (_weather, d) = slow_forecast_daemon(env);
    let dir = tempfile::tempdir().unwrap();
    let stop = synth(dir.path(), "stop", Voice::Flite, "stop");
    let said = d.cli(&["say", "weather in Pune"]);
    assert!(
        stdout(&said).contains("accepted operation"),
        "{}",
        stdout(&said)
    );
    let lines = listen_from(&d, &stop);
    let heard: Vec<&Value> = lines.iter().filter(|l| l["event"] == "heard").collect();
    let stops: Vec<&&Value> = heard
        .iter()
        .filter(|h| kind(&h["hearing"]) == "stopped")
        .collect();
    assert_eq!(stops.len(), 1, "{lines:#?}");
    assert_eq!(
        stops[0]["hearing"]["recognized"], "stop (the stop detector)",
        "{lines:#?}"
    );
    assert_eq!(
        stops[0]["hearing"]["outcome"]["interrupted"]["confirmed"], true,
        "{lines:#?}"
    );
    // Whisper heard the same word after: not a second stop, not "nothing to stop".
    assert!(
        heard.iter().all(|h| kind(&h["hearing"]) != "nothingToStop"),
        "{lines:#?}"
    );
}

/// The spotter hears "stop" inside "desk·top" (measured on the release gate's spoken phrasings):
/// a stop is taken only at a pause after the word, so a sentence that goes on is the
/// recogniser's, and the running operation is not stopped by the detector.
#[test]
fn a_stop_heard_inside_a_sentence_is_not_the_stop_path() {
    let env = voice_env();
    crate::sphinx_util::require_packages();
    let (_weather, d) = slow_forecast_daemon(env);
    let dir = tempfile::tempdir().unwrap();
    let sentence = synth(
        dir.path(),
        "desktop",
        Voice::Flite,
        "on my desktop please open notes.md, change its heading to Meeting notes and save it",
    );
    let said = d.cli(&["say", "weather in Pune"]);
    assert!(
        stdout(&said).contains("accepted operation"),
        "{}",
        stdout(&said)
    );
    let hearings = hear(&d, &sentence, &["--wait"]);
    assert!(
        hearings
            .iter()
            .all(|h| text(h) != "stop (the stop detector)"),
        "{hearings:#?}"
    );
    // The sentence was heard as itself (a request of its own).
    assert!(
        hearings
            .iter()
            .any(|h| norm(&text(h)).contains(&"heading".to_string())),
        "{hearings:#?}"
    );
    // And "stop" said alone still takes the stop path at once.
    let said = d.cli(&["say", "weather in Mumbai"]);
    assert!(stdout(&said).contains("accepted operation"));
    let stop = synth(dir.path(), "stop", Voice::Flite, "stop");
    let hearings = hear(&d, &stop, &[]);
    assert!(
        hearings
            .iter()
            .any(|h| text(h) == "stop (the stop detector)" && kind(h) == "stopped"),
        "{hearings:#?}"
    );
}

#[test]
fn silence_noise_and_hum_produce_no_utterance_and_an_unrelated_sentence_acts_on_nothing() {
    let env = voice_env();
    let (sites, d, _b) = shop(env);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    for (name, synth_args) in [
        ("silence", "trim 0 2"),
        ("pink", "synth 2 pinknoise vol 0.3"),
        ("white", "synth 2 whitenoise vol 0.05"),
        ("hum", "synth 2 sine 120 vol 0.3"),
        ("hum50", "synth 2 sine 50 vol 0.5"),
    ] {
        let f = p.join(format!("{name}.wav"));
        // Repeatable noise (-R seeds sox's generator): one random white-noise sample in CI
        // made the stop spotter hear "stop" (a false stop the note of stop 26 reports).
        sox(&[
            "-R -n -r 16000 -c 1 -b 16".as_ref(),
            f.as_os_str(),
            synth_args.as_ref(),
        ]);
        let hearings = hear(&d, &f, &[]);
        assert!(
            hearings.iter().all(|h| kind(h) == "notSpeech"),
            "{name}: {hearings:#?}"
        );
    }
    // A sentence said to someone else: heard, not a request, nothing acts.
    let unrelated = synth(
        p,
        "unrelated",
        Voice::Flite,
        "my grandmother baked bread on sunday",
    );
    let hearings = hear(&d, &unrelated, &[]);
    assert_eq!(hearings.len(), 1, "{hearings:#?}");
    assert_eq!(kind(&hearings[0]), "notUnderstood", "{hearings:#?}");
    let state: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    assert!(state["interaction"].is_null(), "{state}");
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
}

#[test]
fn bad_audio_is_refused_with_the_reason_and_changes_nothing() {
    let env = voice_env();
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let said = synth(p, "scroll", Voice::Flite, "scroll down");
    let at44 = p.join("at44.wav");
    sox(&[said.as_os_str(), "-r 44100".as_ref(), at44.as_os_str()]);
    let stereo = p.join("stereo.wav");
    sox(&[said.as_os_str(), "-c 2".as_ref(), stereo.as_os_str()]);
    let text_file = p.join("notes.wav");
    std::fs::write(&text_file, "hello").unwrap();
    for (file, want) in [
        (at44, "44100 Hz"),
        (stereo, "2 channels"),
        (text_file, "not a WAV file"),
        (p.join("missing.wav"), "No such file"),
    ] {
        let out = d.cli(&["say", "--audio", file.to_str().unwrap()]);
        assert!(!out.status.success(), "{}", stdout(&out));
        assert!(stderr(&out).contains(want), "{want}: {}", stderr(&out));
    }
    let state: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    assert!(state["interaction"].is_null(), "{state}");
    // A daemon without the model says what to install, and admits nothing.
    let empty = p.join("no-model");
    let bare = Daemon::start_with_env(
        "[node]\nname = \"desk\"\n",
        vec![(
            "CIRCE_WHISPER_DIR".into(),
            empty.to_string_lossy().into_owned(),
        )],
    );
    let out = bare.cli(&["say", "--audio", said.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("scripts/install-whisper"),
        "{}",
        stderr(&out)
    );
}

/// The daemon's child processes (a recorder while a microphone is open).
pub fn children(pid: u32) -> Vec<String> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let path = task.unwrap().path().join("children");
        out.extend(
            std::fs::read_to_string(path)
                .unwrap_or_default()
                .split_whitespace()
                .map(String::from),
        );
    }
    out
}

#[test]
fn listen_hears_a_live_stream_through_the_same_session_and_closes_the_microphone() {
    let mut env = voice_env();
    // No sound server here: the microphone cannot open, and the error says so.
    env.push(("PULSE_SERVER".into(), "unix:/nonexistent/circe-test".into()));
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let dir = tempfile::tempdir().unwrap();
    let parts = [
        synth(dir.path(), "scroll", Voice::Flite, "scroll down"),
        synth(
            dir.path(),
            "unrelated",
            Voice::Flite,
            "my grandmother baked bread on sunday",
        ),
    ];
    let file = concat(dir.path(), "live", &parts);
    // Voice off: no recorder, nothing listening.
    assert!(children(d.pid()).is_empty());
    let lines = listen_from(&d, &file);
    let heard: Vec<&Value> = lines.iter().filter(|l| l["event"] == "heard").collect();
    assert_eq!(heard.len(), 2, "{lines:#?}");
    assert_eq!(kind(&heard[0]["hearing"]), "admitted", "{lines:#?}");
    assert_eq!(
        heard[0]["hearing"]["outcome"]["submitted"]["interaction"]["mode"],
        "voice"
    );
    assert_eq!(kind(&heard[1]["hearing"]), "notUnderstood", "{lines:#?}");
    assert_eq!(lines.last().unwrap()["event"], "ended");
    // The microphone: an honest error when it cannot be opened, and nothing left running.
    let mic = d.cli(&["listen", "--quiet"]);
    assert!(!mic.status.success());
    assert!(stderr(&mic).contains("microphone"), "{}", stderr(&mic));
    std::thread::sleep(Duration::from_millis(300));
    assert!(children(d.pid()).is_empty(), "{:?}", children(d.pid()));
}

/// Issue 13, 4(c): the phone page streams its microphone (Chromium's fake capture device playing
/// a WAV) over its authenticated WebSocket; the node hears it with its own recogniser and acts on
/// it as the phone's own voice request.
#[test]
fn the_phone_page_streams_its_microphone_and_the_node_acts_on_it() {
    use crate::util::rt;
    let env = voice_env();
    let weather = WeatherServer::start();
    let d = Daemon::start_with_env(&weather.config(), env);
    let dir = tempfile::tempdir().unwrap();
    let said = synth(
        dir.path(),
        "weather",
        Voice::Flite,
        "what's the weather in Mumbai",
    );
    // Chromium loops the file: silence after the words ends the utterance before they repeat.
    let looped = dir.path().join("looped.wav");
    sox(&[said.as_os_str(), looped.as_os_str(), "pad 0 4".as_ref()]);
    let mut phone = crate::mesh_browser::paired_phone(&d, &fake_microphone(&looped));
    assert!(rt().block_on(d.state()).interaction.is_none());

    // What the page says aloud (the browser's speech synthesis, recorded at its seam).
    phone.eval(
        "window.__said = []; speechSynthesis.speak = (u) => window.__said.push(u.text); true",
    );
    phone.eval("document.getElementById('talk').click()");
    phone.wait("talking !== null", 10);
    // The node hears it and the request runs: the page shows the question or the outcome.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let heard = loop {
        if let Some(i) = rt().block_on(d.state()).interaction {
            break i;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nothing was admitted from the phone's microphone; page banner: {}",
            crate::mesh_browser::text_of(&mut phone, "banner")
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    phone.eval("document.getElementById('talk').click()");
    assert_eq!(
        phone.eval("talking === null"),
        true,
        "the microphone closed"
    );
    assert_eq!(heard.mode, circe::model::InputMode::Voice, "{heard:?}");
    assert_eq!(heard.goal, circe::model::Goal::Weather, "{heard:?}");
    assert!(
        heard.request.to_lowercase().contains("weather"),
        "{heard:?}"
    );
    phone.wait(
        "!document.getElementById('question-box').hidden || document.getElementById('outcome-class').textContent !== ''",
        30,
    );
    // The reply is spoken from the state: the outcome (or the question) the page shows, once.
    phone.wait("window.__said.length > 0", 15);
    let said = phone.eval("window.__said.join('\\n')");
    let shown = phone.eval(
        "document.getElementById('question-box').hidden ? document.getElementById('outcome').textContent : document.getElementById('question').textContent",
    );
    let shown = shown.as_str().unwrap_or_default().to_string();
    assert!(
        said.as_str().unwrap_or_default().contains(&shown) && !shown.is_empty(),
        "said {said}, shown {shown}"
    );
    // It was the phone's input: the store keeps its device.
    let store = circe::store::Store::open(&d.database()).unwrap();
    let devices = store.devices().unwrap();
    let phone_device = devices
        .iter()
        .find(|r| r.name == "Test phone")
        .expect("paired");
    let inputs = store.input_devices().unwrap();
    assert!(
        inputs
            .iter()
            .any(|dev| *dev == format!("device:{}", phone_device.id)),
        "{inputs:?}"
    );
}

/// This daemon's environment without Whisper's model: a test of another recogniser proves that
/// Whisper is not the one hearing.
fn without_whisper(mut env: Vec<(String, String)>, dir: &Path) -> Vec<(String, String)> {
    env.retain(|(k, _)| k != "CIRCE_WHISPER_DIR");
    env.push((
        "CIRCE_WHISPER_DIR".into(),
        dir.join("no-whisper").to_string_lossy().into_owned(),
    ));
    env
}

/// `circe doctor`'s line about voice.
fn doctor_voice(d: &Daemon) -> String {
    let out = d.cli(&["doctor"]);
    let text = stdout(&out);
    let mut lines = text.lines().skip_while(|l| !l.contains(" voice "));
    let line = lines.next().unwrap_or_default().to_string();
    let fix = lines
        .next()
        .filter(|l| l.contains("fix:"))
        .unwrap_or_default();
    assert!(
        !line.is_empty(),
        "no voice line in circe doctor's report:\n{text}"
    );
    format!("{line}\n{fix}")
}

/// Issue 13 item 1: `[voice] recogniser = "grammar"`. The daemon hears with pocketsphinx's
/// grammar of the shop page's commands (Whisper's model is not even there), admits through the
/// same path, and the shop acts; out-of-grammar speech is "not understood" and nothing acts.
#[test]
fn a_daemon_with_the_grammar_recogniser_acts_on_a_spoken_command() {
    crate::sphinx_util::require_packages();
    let dir = tempfile::tempdir().unwrap();
    let env = without_whisper(voice_env(), dir.path());
    let (sites, d, _b) = shop_with("[voice]\nrecogniser = \"grammar\"\n", env);
    let doctor = doctor_voice(&d);
    assert!(doctor.contains("recogniser grammar: ready"), "{doctor}");
    let said = synth(
        dir.path(),
        "linnmon",
        Voice::Flite,
        "add the LINNMON small desk to my cart",
    );
    let heard = hear(&d, &said, &["--wait"]);
    assert_eq!(heard.len(), 1, "{heard:#?}\n{}", d.log());
    // The grammar's own sentence (lower case, no punctuation: not Whisper's).
    assert_eq!(
        heard[0]["recognized"], "add the linnmon small desk to my cart",
        "{heard:#?}"
    );
    assert_eq!(kind(&heard[0]), "admitted", "{heard:#?}");
    assert_eq!(heard[0]["operation"]["status"], "completed", "{heard:#?}");
    assert_eq!(heard[0]["operation"]["mode"], "voice");
    // The rejection check's confidence (1 − phone error rate) reached the operation.
    let confidence = heard[0]["operation"]["heard"][0]["confidence"].as_u64();
    assert!(confidence.is_some_and(|c| c > 0 && c <= 1000), "{heard:#?}");
    assert_eq!(
        sites.actions(),
        vec![serde_json::json!({"site": "shop", "action": "add", "item": "LINNMON Small desk"})]
    );
    // A sentence the screen's commands do not fit: the rejection check, nothing acts.
    let other = synth(
        dir.path(),
        "garden",
        Voice::Flite,
        "my grandmother grew tomatoes in her garden every summer",
    );
    let heard = hear(&d, &other, &[]);
    assert_eq!(heard.len(), 1, "{heard:#?}");
    assert_eq!(kind(&heard[0]), "notUnderstood", "{heard:#?}");
    assert!(
        heard[0]["outcome"]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("did not sound like any command"),
        "{heard:#?}"
    );
    assert_eq!(sites.actions().len(), 1, "{:?}", sites.actions());
}

/// A chosen recogniser that cannot load says what to install or configure, in the refusal and in
/// `circe doctor`; nothing falls back to another recogniser.
#[test]
fn a_chosen_recogniser_that_is_missing_says_what_to_install_or_configure() {
    let dir = tempfile::tempdir().unwrap();
    let env = without_whisper(voice_env(), dir.path());
    let said = synth(dir.path(), "scroll", Voice::Flite, "scroll down");
    // The grammar backend without its model.
    let mut grammar_env = env.clone();
    grammar_env.push((
        "CIRCE_SPHINX_MODEL".into(),
        dir.path().join("no-model").to_string_lossy().into_owned(),
    ));
    let d = Daemon::start_with_env(
        "[node]\nname = \"desk\"\n[voice]\nrecogniser = \"grammar\"\n",
        grammar_env,
    );
    let out = d.cli(&["say", "--audio", said.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", stdout(&out));
    let e = stderr(&out);
    assert!(
        e.contains("recogniser = \"grammar\"") && e.contains("apt-get install pocketsphinx-en-us"),
        "{e}"
    );
    let doctor = doctor_voice(&d);
    assert!(
        doctor.contains("recogniser grammar ([voice] recogniser) is not ready")
            && doctor.contains("fix: apt-get install pocketsphinx"),
        "{doctor}"
    );
    // Realtime with no server at its endpoint.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let mut rt_env = env.clone();
    rt_env.push(("CIRCE_TEST_REALTIME_KEY".into(), REALTIME_KEY.into()));
    let d = Daemon::start_with_env(
        &format!(
            "[node]\nname = \"desk\"\n[voice]\nrecogniser = \"realtime\"\n[voice.realtime]\nbase_url = \"ws://127.0.0.1:{port}/v1/realtime\"\napi_key_env = \"CIRCE_TEST_REALTIME_KEY\"\nreconnect_min_ms = 100\n"
        ),
        rt_env,
    );
    let out = d.cli(&["say", "--audio", said.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", stdout(&out));
    let e = stderr(&out);
    assert!(
        e.contains("recogniser = \"realtime\" is not ready")
            && e.contains("[voice.realtime] base_url")
            && e.contains(&port.to_string()),
        "{e}"
    );
    let doctor = doctor_voice(&d);
    assert!(
        doctor.contains("is not reachable")
            && doctor.contains("fix: check [voice.realtime] base_url"),
        "{doctor}"
    );
    // Realtime without its key: the variable to set, and the key appears nowhere.
    let d = Daemon::start_with_env(
        &format!(
            "[node]\nname = \"desk\"\n[voice]\nrecogniser = \"realtime\"\n[voice.realtime]\nbase_url = \"ws://127.0.0.1:{port}/v1/realtime\"\napi_key_env = \"CIRCE_TEST_REALTIME_KEY\"\n"
        ),
        env,
    );
    let out = d.cli(&["say", "--audio", said.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("CIRCE_TEST_REALTIME_KEY"),
        "{}",
        stderr(&out)
    );
    let doctor = doctor_voice(&d);
    assert!(
        doctor.contains("fix: set CIRCE_TEST_REALTIME_KEY"),
        "{doctor}"
    );
    let state: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    assert!(state["interaction"].is_null(), "{state}");
}

const REALTIME_KEY: &str = "sk-test-CIRCE-VOICE-4b1d";

/// Issue 13 item 1: `[voice] recogniser = "realtime"`. The daemon's VAD cuts the utterance, the
/// Realtime adapter sends it to the mock server on 127.0.0.1 and commits it (manual turns), and
/// the completed transcription is admitted through the same path: the weather is looked up.
#[test]
fn a_daemon_with_the_realtime_recogniser_transcribes_through_the_mock_server() {
    use crate::realtime_mock::{Mock, Outcome, Scenario, Turn};
    let dir = tempfile::tempdir().unwrap();
    let mut env = without_whisper(voice_env(), dir.path());
    env.push(("CIRCE_TEST_REALTIME_KEY".into(), REALTIME_KEY.into()));
    env.push(("RUST_LOG".into(), "debug".into()));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mock = rt.block_on(Mock::start(Scenario {
        turns: vec![Turn::new(
            "item_rt_1",
            0,
            0,
            &["What's the", " weather in"],
            Outcome::Completed("What's the weather in Pune?".into()),
        )],
        ..Scenario::default()
    }));
    let weather = WeatherServer::start();
    let d = Daemon::start_with_env(
        &format!(
            "{}[voice]\nrecogniser = \"realtime\"\n[voice.realtime]\nbase_url = \"{}\"\napi_key_env = \"CIRCE_TEST_REALTIME_KEY\"\n",
            weather.config(),
            mock.base_url()
        ),
        env,
    );
    let said = synth(
        dir.path(),
        "weather",
        Voice::Flite,
        "what's the weather in pune",
    );
    let heard = hear(&d, &said, &["--wait"]);
    assert_eq!(heard.len(), 1, "{heard:#?}\n{}", d.log());
    assert_eq!(kind(&heard[0]), "admitted", "{heard:#?}\n{}", d.log());
    assert_eq!(text(&heard[0]), "What's the weather in Pune?");
    assert_eq!(heard[0]["operation"]["goal"], "weather", "{heard:#?}");
    assert_eq!(heard[0]["operation"]["status"], "completed", "{heard:#?}");
    assert_eq!(weather.forecasts.load(Ordering::SeqCst), 1);
    // What the server got: the key, a transcription session with manual turns, the utterance's
    // audio resampled to 24 kHz, one commit.
    let conn = mock.conn(0);
    assert_eq!(
        conn.authorization.as_deref(),
        Some(format!("Bearer {REALTIME_KEY}").as_str())
    );
    assert!(
        conn.uri.ends_with("/v1/realtime?intent=transcription"),
        "{}",
        conn.uri
    );
    assert!(
        conn.session["audio"]["input"]["turn_detection"].is_null(),
        "{}",
        conn.session
    );
    assert_eq!(conn.client("input_audio_buffer.commit").len(), 1);
    let segment_ms =
        heard[0]["speechEndMs"].as_u64().unwrap() + 200 - heard[0]["startMs"].as_u64().unwrap();
    let sent_ms = conn.samples.len() as u64 / 24;
    assert!(
        sent_ms.abs_diff(segment_ms) <= 40,
        "sent {sent_ms} ms of audio for a {segment_ms} ms utterance"
    );
    // The key went only into the header.
    assert!(!d.log().contains(REALTIME_KEY), "the key is in the log");
    // Ready, says the doctor (its probe is the server's second connection).
    let doctor = doctor_voice(&d);
    assert!(doctor.contains("recogniser realtime: ready"), "{doctor}");
    drop(rt);
}

//! Voice benchmarks: the recogniser's real-time factor, and end of speech → admission through a
//! real `circe serve` (VAD, Whisper, guards, submit).
//!
//! Run with `cargo bench --bench voice` (a filter: `rtf`, `admission`). Needs flite, sox and the
//! Whisper model (scripts/install-whisper; `CIRCE_WHISPER_DIR` or .models/whisper-tiny.en).
//! `CIRCE_BENCH_VOICE_N` sets the number of utterances (default 10). Results: docs/BENCHMARKS.md.

#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use circe::voice::session::Recognizer;
use circe::voice::{audio, vad, whisper};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const COMMANDS: [&str; 10] = [
    "scroll down",
    "open the comments on the third story",
    "add the small desk to my cart",
    "click the sign in button",
    "go back to the previous page",
    "type hello world in the search box",
    "accept all cookies",
    "sort by price",
    "save the black desk",
    "search for office chairs",
];

fn main() {
    let filter = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let n: usize = std::env::var("CIRCE_BENCH_VOICE_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let dir = tempfile::tempdir().unwrap();
    let clips: Vec<PathBuf> = (0..n)
        .map(|i| synth(dir.path(), i, COMMANDS[i % COMMANDS.len()]))
        .collect();
    if run("rtf") {
        rtf(&clips);
    }
    if run("admission") {
        admission(&clips);
    }
}

fn model_dir() -> PathBuf {
    std::env::var_os("CIRCE_WHISPER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".models/whisper-tiny.en"))
}

fn synth(dir: &Path, i: usize, text: &str) -> PathBuf {
    let raw = dir.join(format!("{i}.raw.wav"));
    let out = dir.join(format!("{i}.wav"));
    let ok = Command::new("flite")
        .args(["-voice", "slt", "-t", text, "-o"])
        .arg(&raw)
        .status()
        .expect("flite (apt-get install flite)");
    assert!(ok.success());
    let ok = Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16"])
        .arg(&out)
        .args(["pad", "0.4", "0.6"])
        .status()
        .expect("sox (apt-get install sox)");
    assert!(ok.success());
    out
}

fn report(name: &str, mut samples: Vec<f64>, unit: &str) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name}: n={} p50={:.3}{unit} p95={:.3}{unit} max={:.3}{unit}",
        samples.len(),
        at(0.5),
        at(0.95),
        samples[samples.len() - 1]
    );
}

/// Decode time / speech time, per utterance (the VAD's segment, as the session decodes it).
fn rtf(clips: &[PathBuf]) {
    let load = Instant::now();
    let mut w = whisper::Whisper::load(&model_dir()).expect("the Whisper model");
    println!(
        "model load with hash check: {:.0} ms",
        load.elapsed().as_secs_f64() * 1e3
    );
    let mut rtfs = Vec::new();
    let mut times = Vec::new();
    for clip in clips {
        let samples = audio::parse_wav(&std::fs::read(clip).unwrap()).unwrap();
        for seg in vad::segments(&samples, vad::Config::default()) {
            let t = Instant::now();
            let r = w.recognize(&seg.samples, &[]).unwrap();
            let secs = t.elapsed().as_secs_f64();
            let audio_secs = seg.samples.len() as f64 / 16_000.0;
            rtfs.push(secs / audio_secs);
            times.push(secs * 1e3);
            println!("  {:.0} ms for {:.2} s: {}", secs * 1e3, audio_secs, r.text);
        }
    }
    report("recognition real-time factor", rtfs, "");
    report("recognition time per utterance", times, " ms");
}

/// `circe say --audio` on each clip: the daemon's recorded end of speech → admission.
fn admission(clips: &[PathBuf]) {
    let d = util::Daemon::start_with_env(
        "[node]\nname = \"desk\"\n",
        vec![
            (
                "CIRCE_WHISPER_DIR".into(),
                model_dir().to_string_lossy().into_owned(),
            ),
            ("RUST_LOG".into(), "warn".into()),
        ],
    );
    // Load the model once first (its load is not a per-utterance cost).
    let _ = d.cli(&["say", "--audio", clips[0].to_str().unwrap(), "--transcribe"]);
    let mut wall = Vec::new();
    for clip in clips {
        let t = Instant::now();
        let out = d.cli(&["say", "--json", "--audio", clip.to_str().unwrap()]);
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Let the operation end before the next (no browser: it is blocked at once).
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = d.cli(&["metrics", "--json"]);
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("daemon metrics: {m}");
    report(
        "say --audio wall time (file read, VAD, recognition, admission)",
        wall,
        " ms",
    );
}

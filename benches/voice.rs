//! Voice benchmarks, as distributions:
//! - `rtf`: recognition real-time factor (decode time / utterance length) of Whisper and of the
//!   grammar backend, through the session's `Recognizer` seam on the same VAD segments;
//! - `admission`: end of speech → admission through a real `circe serve` (`say --audio`: VAD,
//!   recognition, guards, submit), with `[voice] recogniser = "whisper"` and `"grammar"`;
//! - `levers`: Whisper's latency levers side by side on the same utterances, interleaved so that
//!   the machine's load falls on each alike: the encoder window sized to the utterance
//!   (`audio_ctx`, with the redo on the whole window when it loops), threads, flash attention;
//!   time per utterance and word error rate for each;
//! - `prompt`: the initial prompt with no screen (`session::prompt(&[])`, the vocabulary) against
//!   no prompt: word error over desktop requests and browser commands said by four voices at
//!   three speeds, half with noise (`CIRCE_BENCH_PROMPT` adds one more prompt to compare);
//! - `stop`: "stop" said into a live stream (`listen --from`, played in real time) while an
//!   operation runs → the operation confirmed stopped, through the stop spotter, measured from
//!   the end of the word in the stream to the hearing that reports the confirmed stop.
//!
//! Run with `cargo bench --bench voice [rtf|admission|levers|prompt|stop]`. Needs flite, sox, pocketsphinx's
//! packages and the Whisper model (scripts/install-whisper; `CIRCE_WHISPER_DIR` or
//! .models/whisper-tiny.en). `CIRCE_BENCH_VOICE_N` sets the number of utterances or rounds
//! (default 20). Results: docs/BENCHMARKS.md.

#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use circe::voice::backend::GrammarSession;
use circe::voice::session::Recognizer;
use circe::voice::{audio, sphinx, vad, whisper};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// What is said for Whisper (free dictation: the shop and news pages' commands).
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

/// What the grammar backend takes with no screen (a daemon with no browser): command shapes
/// without a label.
const GRAMMAR_COMMANDS: [&str; 10] = [
    "scroll down",
    "go back to the previous page",
    "zoom in",
    "close this tab",
    "open a new tab",
    "play the next video",
    "reply to the first email",
    "open the third story",
    "scroll up",
    "what's the weather",
];

/// The screen the recognisers are biased with in `rtf`.
const LABELS: [&str; 10] = [
    "small desk",
    "comments",
    "Sign in",
    "search box",
    "Accept all",
    "Sort by",
    "black desk",
    "Save",
    "office chairs",
    "heading",
];

fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .filter(|a| {
            ["rtf", "admission", "levers", "prompt", "stop"]
                .iter()
                .any(|k| k.contains(a.as_str()))
        });
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let n: usize = std::env::var("CIRCE_BENCH_VOICE_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let dir = tempfile::tempdir().unwrap();
    let clips = |set: &[&str], tag: &str| -> Vec<PathBuf> {
        (0..n)
            .map(|i| synth(dir.path(), &format!("{tag}{i}"), set[i % set.len()]))
            .collect()
    };
    println!("load average at start: {}", load_average());
    if run("rtf") {
        rtf(&clips(&COMMANDS, "w"));
    }
    if run("levers") {
        levers(&clips(&COMMANDS, "w"), &COMMANDS);
    }
    if run("prompt") {
        prompt_lever(dir.path());
    }
    if run("admission") {
        admission(
            &clips(&COMMANDS, "w"),
            &[
                ("whisper, the default threads (every core)", ""),
                ("whisper, threads = 1", "[voice]\nthreads = 1\n"),
            ],
        );
        admission(
            &clips(&GRAMMAR_COMMANDS, "g"),
            &[("grammar", "[voice]\nrecogniser = \"grammar\"\n")],
        );
    }
    if run("stop") {
        stop(dir.path(), n);
    }
    println!("load average at end: {}", load_average());
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn model_dir() -> PathBuf {
    std::env::var_os("CIRCE_WHISPER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".models/whisper-tiny.en"))
}

/// flite's `slt` voice, 16 kHz mono, 0.4 s of silence before and 0.6 s after.
fn synth(dir: &Path, name: &str, text: &str) -> PathBuf {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
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
    if samples.is_empty() {
        println!("{name}: no samples");
        return;
    }
    samples.sort_by(f64::total_cmp);
    // Nearest rank, as `circe metrics` computes it.
    let at =
        |q: f64| samples[((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len()) - 1];
    println!(
        "{name}: n={} p50={:.3}{unit} p95={:.3}{unit} min={:.3}{unit} max={:.3}{unit}",
        samples.len(),
        at(0.5),
        at(0.95),
        samples[0],
        samples[samples.len() - 1]
    );
}

/// Decode time / segment length per utterance, for each recogniser, on the VAD's segments.
fn rtf(clips: &[PathBuf]) {
    let labels: Vec<String> = LABELS.iter().map(|s| s.to_string()).collect();
    let segments: Vec<vad::Segment> = clips
        .iter()
        .flat_map(|clip| {
            let samples = audio::parse_wav(&std::fs::read(clip).unwrap()).unwrap();
            vad::segments(&samples, vad::Config::default())
        })
        .collect();
    let t = Instant::now();
    let w = whisper::Whisper::load(&model_dir()).expect("the Whisper model");
    println!(
        "whisper: model load with hash check: {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let g = GrammarSession::new(sphinx::grammar_backend().expect("pocketsphinx's packages"));
    println!(
        "grammar: two decoders loaded: {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut recognisers: Vec<(&str, Box<dyn Recognizer>)> =
        vec![("whisper", Box::new(w)), ("grammar", Box::new(g))];
    for (name, r) in &mut recognisers {
        // One warm-up (caches, the grammar built for the labels), not counted.
        let _ = r.recognize(&segments[0].samples, &labels);
        let (mut rtfs, mut times) = (Vec::new(), Vec::new());
        for seg in &segments {
            let t = Instant::now();
            let out = r.recognize(&seg.samples, &labels).unwrap();
            let secs = t.elapsed().as_secs_f64();
            let audio_secs = seg.samples.len() as f64 / 16_000.0;
            rtfs.push(secs / audio_secs);
            times.push(secs * 1e3);
            println!(
                "  {name}: {:.0} ms for {:.2} s: {:?}{}",
                secs * 1e3,
                audio_secs,
                out.text,
                out.rejected
                    .map(|r| format!(" (rejected: {r})"))
                    .unwrap_or_default()
            );
        }
        report(&format!("{name}: recognition real-time factor"), rtfs, "");
        report(
            &format!("{name}: recognition time per utterance"),
            times,
            " ms",
        );
    }
}

fn env() -> Vec<(String, String)> {
    vec![
        (
            "CIRCE_WHISPER_DIR".into(),
            model_dir().to_string_lossy().into_owned(),
        ),
        ("RUST_LOG".into(), "warn".into()),
    ]
}

/// `circe say --audio` on each clip, through one daemon per configuration, the daemons taking
/// turns on each clip (so the machine's load falls on each alike): each daemon's recorded end of
/// speech → admission, and the CLI's wall time.
fn admission(clips: &[PathBuf], configs: &[(&str, &str)]) {
    let daemons: Vec<util::Daemon> = configs
        .iter()
        .map(|(_, extra)| {
            util::Daemon::start_with_env(&format!("[node]\nname = \"desk\"\n{extra}"), env())
        })
        .collect();
    for d in &daemons {
        // Load the recogniser once first (its load is not a per-utterance cost).
        let _ = d.cli(&["say", "--audio", clips[0].to_str().unwrap(), "--transcribe"]);
    }
    let mut wall = vec![Vec::new(); daemons.len()];
    let mut admitted = vec![0; daemons.len()];
    for (k, clip) in clips.iter().enumerate() {
        for i in 0..daemons.len() {
            let v = (i + k) % daemons.len();
            let t = Instant::now();
            let out = daemons[v].cli(&["say", "--json", "--audio", clip.to_str().unwrap()]);
            wall[v].push(t.elapsed().as_secs_f64() * 1e3);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let heard: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            admitted[v] += heard
                .as_array()
                .into_iter()
                .flatten()
                .filter(|h| h["outcome"]["kind"] == "admitted")
                .count();
            // Let the operation end before the next (no browser: it is blocked at once).
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    for (v, (name, _)) in configs.iter().enumerate() {
        let out = daemons[v].cli(&["metrics", "--json"]);
        let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let admission = m
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["phase"] == "admission")
            .cloned()
            .unwrap_or_default();
        println!(
            "{name}: {} of {} admitted; end of speech -> admission (daemon, nearest rank): n={} p50={} ms p95={} ms",
            admitted[v],
            clips.len(),
            admission["count"],
            admission["p50Ms"],
            admission["p95Ms"]
        );
        report(
            &format!("{name}: say --audio wall time (file read, VAD, recognition, admission)"),
            wall[v].clone(),
            " ms",
        );
    }
}

/// "stop" into a live stream while a weather lookup is held: end of the word in the stream →
/// the spotter's stop confirmed (the hearing arrives once the executor has stopped).
fn stop(dir: &Path, n: usize) {
    let clip = synth(dir, "stop", "stop");
    let samples = audio::parse_wav(&std::fs::read(&clip).unwrap()).unwrap();
    let word_end_ms = vad::segments(&samples, vad::Config::default())[0].speech_end_ms as f64;
    let weather = util::WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(30_000, Ordering::SeqCst);
    let config = weather
        .config()
        .replace("timeout_ms = 1500", "timeout_ms = 60000");
    let d = util::Daemon::start_with_env(&config, env());
    let _ = d.cli(&["say", "--audio", clip.to_str().unwrap(), "--transcribe"]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut latencies = Vec::new();
    let mut missed = 0;
    for _ in 0..n {
        let said = d.cli(&["say", "weather in Pune"]);
        assert!(
            String::from_utf8_lossy(&said.stdout).contains("accepted operation"),
            "{}",
            String::from_utf8_lossy(&said.stdout)
        );
        let stopped = rt.block_on(async {
            let mut c = circe::client::Client::connect(&d.socket()).await.unwrap();
            c.call_voice(circe::protocol::VoiceVerb::Listen {
                from: Some(clip.to_string_lossy().into_owned()),
                quiet: true,
            })
            .await
            .unwrap();
            // The file starts playing (in real time) as the session starts, just before this
            // reply: the word ends `word_end_ms` later.
            let started = Instant::now();
            let mut stopped = None;
            loop {
                let line = c.line().await.unwrap();
                let v: serde_json::Value = serde_json::from_str(&line).unwrap();
                let h = &v["hearing"];
                if v["event"] == "heard"
                    && h["outcome"]["kind"] == "stopped"
                    && h["recognized"] == "stop (the stop detector)"
                    && h["outcome"]["interrupted"]["confirmed"] == true
                {
                    stopped = Some(started.elapsed().as_secs_f64() * 1e3);
                }
                if v["event"] == "ended" {
                    return stopped;
                }
            }
        });
        match stopped {
            Some(ms) => latencies.push(ms - word_end_ms),
            None => {
                missed += 1;
                let _ = d.cli(&["stop"]);
            }
        }
    }
    println!(
        "stop: {} of {n} stopped by the spotter, {missed} missed",
        latencies.len()
    );
    report(
        "stop said (end of the word) -> operation confirmed stopped, live stream",
        latencies,
        " ms",
    );
    let out = d.cli(&["metrics", "--json"]);
    println!(
        "daemon metrics (cessation: detection -> confirmed): {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Desktop requests (the seed's sentence and others of its kind, none of them used to choose the
/// prompt's words) and the browser commands: what the prompt must not make worse.
const SPOKEN_REQUESTS: [&str; 8] = [
    "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.",
    "Open the report I selected and set its heading to Budget review, then save it.",
    "On my desktop, change the heading of todo.md to Groceries and show it in the file manager.",
    "Open the selected file, change its heading to Weekly plan and save it.",
    "Rename the heading to Project ideas, save the file and reveal it in the file manager.",
    "On the desktop, open plan.md, change its heading to Launch checklist, and save it.",
    "search youtube for lo-fi beats",
    "what's the weather in Ahmedabad",
];

/// The initial prompt with no screen against the prompt `session::prompt` gives: word error
/// over the requests and the browser commands, said by flite's voices and espeak-ng, at three
/// speeds, clean and with noise (the live microphone path's variations, offline).
fn prompt_lever(dir: &Path) {
    use circe::voice::session::prompt;
    let mut prompts = vec![
        ("no prompt", String::new()),
        ("session::prompt(no labels)", prompt(&[])),
    ];
    // `CIRCE_BENCH_PROMPT`: one more prompt to compare.
    if let Ok(p) = std::env::var("CIRCE_BENCH_PROMPT") {
        prompts.push(("CIRCE_BENCH_PROMPT", p));
    }
    let mut w = whisper::Whisper::load(&model_dir()).expect("the Whisper model");
    let said: Vec<&str> = SPOKEN_REQUESTS
        .iter()
        .chain(COMMANDS.iter())
        .copied()
        .collect();
    let mut errors = vec![0usize; prompts.len()];
    let mut desk_errors = vec![0usize; prompts.len()];
    let (mut words, mut desk_words) = (0, 0);
    let mut n = 0;
    for (k, text) in said.iter().enumerate() {
        for (v, voice) in ["flite:slt", "flite:kal", "flite:awb", "espeak"]
            .iter()
            .enumerate()
        {
            for (t, tempo) in ["0.9", "1.0", "1.12"].iter().enumerate() {
                let noisy = (k + v + t) % 2 == 1;
                let clip = variant(dir, &format!("p{k}-{v}-{t}"), voice, text, tempo, noisy);
                let samples = audio::parse_wav(&std::fs::read(&clip).unwrap()).unwrap();
                let segments = vad::segments(&samples, vad::Config::default());
                let reference = norm(text);
                words += reference.len();
                let desk = k < 6;
                if desk {
                    desk_words += reference.len();
                }
                n += 1;
                for (i, (name, p)) in prompts.iter().enumerate() {
                    let mut heard = String::new();
                    for seg in &segments {
                        heard.push_str(&w.transcribe(&seg.samples, p).unwrap().text);
                        heard.push(' ');
                    }
                    let e = edits(&reference, &norm(&heard));
                    errors[i] += e;
                    if desk {
                        desk_errors[i] += e;
                    }
                    if e > 0 {
                        println!(
                            "  {name} [{voice} x{tempo}{}]: {e} | {heard}",
                            if noisy { " noise" } else { "" }
                        );
                    }
                }
            }
        }
    }
    for (i, (name, p)) in prompts.iter().enumerate() {
        println!(
            "{name} ({p:?}): WER {:.1} % ({}/{words}) over {n} clips; desktop requests {:.1} % ({}/{desk_words})",
            100.0 * errors[i] as f64 / words as f64,
            errors[i],
            100.0 * desk_errors[i] as f64 / desk_words as f64,
            desk_errors[i],
        );
    }
}

/// `text` said by `voice` ("flite:<voice>" or "espeak"), at `tempo`, 16 kHz, with low white
/// noise mixed in when `noisy`.
fn variant(dir: &Path, name: &str, voice: &str, text: &str, tempo: &str, noisy: bool) -> PathBuf {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
    let ok = match voice.strip_prefix("flite:") {
        Some(v) => Command::new("flite")
            .args(["-voice", v, "-t", text, "-o"])
            .arg(&raw)
            .status(),
        None => Command::new("espeak-ng")
            .args(["-v", "en-us", "-s", "160", "-w"])
            .arg(&raw)
            .arg(text)
            .status(),
    }
    .expect("flite and espeak-ng");
    assert!(ok.success());
    let clean = dir.join(format!("{name}.clean.wav"));
    let ok = Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16"])
        .arg(&clean)
        .args(["tempo", tempo, "pad", "0.4", "0.6"])
        .status()
        .expect("sox");
    assert!(ok.success());
    if !noisy {
        std::fs::rename(&clean, &out).unwrap();
        return out;
    }
    let noise = dir.join(format!("{name}.noise.wav"));
    let secs = audio::parse_wav(&std::fs::read(&clean).unwrap())
        .unwrap()
        .len() as f64
        / 16_000.0;
    let ok = Command::new("sox")
        .args(["-n", "-r", "16000", "-c", "1", "-b", "16"])
        .arg(&noise)
        .args(["synth", &format!("{secs:.3}"), "whitenoise", "vol", "0.02"])
        .status()
        .expect("sox");
    assert!(ok.success());
    let ok = Command::new("sox")
        .arg("-m")
        .arg(&clean)
        .arg(&noise)
        .arg(&out)
        .status()
        .expect("sox");
    assert!(ok.success());
    out
}

/// Words for scoring: lower case, punctuation dropped, hyphens as spaces.
fn norm(s: &str) -> Vec<String> {
    s.to_lowercase()
        .replace(['-', '—'], " ")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

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

/// Whisper's options side by side, each utterance decoded by every variant in turn.
fn levers(clips: &[PathBuf], said: &[&str]) {
    use whisper::Options;
    let labels: Vec<String> = LABELS.iter().map(|s| s.to_string()).collect();
    let two = Options::default().threads;
    let sized = |margin: i32, threads: i32| Options {
        sized_context: Some(margin),
        threads,
        ..Options::default()
    };
    let variants: Vec<(String, Options)> = vec![
        (
            format!("whole window, {two} threads (before)"),
            Options::default(),
        ),
        (
            "whole window, 1 thread".into(),
            Options {
                threads: 1,
                ..Options::default()
            },
        ),
        (
            format!("sized window +64 (1.3 s), {two} threads"),
            sized(64, two),
        ),
        (
            format!("sized window +150 (3 s), {two} threads"),
            sized(150, two),
        ),
        (
            format!("sized window +250 (5 s), {two} threads"),
            sized(250, two),
        ),
        (
            format!("sized window +400 (8 s), {two} threads"),
            sized(400, two),
        ),
        ("sized window +250 (5 s), 1 thread".into(), sized(250, 1)),
    ];
    let mut models: Vec<whisper::Whisper> = variants
        .iter()
        .map(|(_, o)| whisper::Whisper::load_with(&model_dir(), *o).expect("the Whisper model"))
        .collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    let mut errors = vec![0usize; variants.len()];
    let mut words = 0;
    for (k, clip) in clips.iter().enumerate() {
        let samples = audio::parse_wav(&std::fs::read(clip).unwrap()).unwrap();
        let segments = vad::segments(&samples, vad::Config::default());
        let reference = norm(said[k % said.len()]);
        words += reference.len();
        // A different variant first each time.
        for i in 0..variants.len() {
            let v = (i + k) % variants.len();
            let mut text = String::new();
            for seg in &segments {
                let t = Instant::now();
                let r = models[v].recognize(&seg.samples, &labels).unwrap();
                times[v].push(t.elapsed().as_secs_f64() * 1e3);
                text.push_str(&r.text);
                text.push(' ');
            }
            let e = edits(&reference, &norm(&text));
            errors[v] += e;
            if e > 0 {
                println!(
                    "  {}: {e} | {} | {text}",
                    variants[v].0,
                    said[k % said.len()]
                );
            }
        }
    }
    for (v, (name, _)) in variants.iter().enumerate() {
        println!(
            "{name}: WER {:.1} % ({}/{words}), redone on the whole window {}",
            100.0 * errors[v] as f64 / words as f64,
            errors[v],
            models[v].redone
        );
        report(
            &format!("{name}: recognition time per utterance"),
            times[v].clone(),
            " ms",
        );
    }
}

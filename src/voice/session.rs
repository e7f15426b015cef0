//! The voice session: audio → VAD segments → recogniser → guards → [`VoiceEvent`]s →
//! [`Utterances`] → effects → the daemon.
//!
//! The pure half (no I/O, clock or async; table-tested) is [`judge`] (the guards on what the
//! recogniser returned), [`events_of`] (one segment's events), [`prompt`] (the screen's labels as
//! the initial prompt), [`addressed`] (is this speech a request at all?) and [`percentiles`].
//! The adapter half, [`VoiceSession`], runs them against the engine: an admitted utterance is
//! submitted through [`Utterance::input`] like any input; "stop" goes to `Engine::interrupt`,
//! never the input queue; anything not understood is said to be so and nothing acts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::audio;
use super::vad::{self, Segment, VadEvent};
use super::{Effect, Heard, Utterance, UtteranceId, Utterances, VoiceEvent};
use crate::daemon::engine::Engine;
use crate::model::{Operation, OperationId, Pending};
use crate::protocol::{ApiError, ErrorCode, Interrupted, Notification, Submitted};

/// What a recogniser made of one segment.
#[derive(Clone, Debug, PartialEq)]
pub struct Recognition {
    pub text: String,
    /// The model's probability that there was no speech at all.
    pub no_speech: f32,
    /// The mean log-probability of the text tokens.
    pub avg_logprob: f32,
    pub tokens: usize,
    /// The decode stopped at the token limit.
    pub max_tokens: bool,
    /// The recogniser's own refusal: speech, but nothing it accepts (the grammar backend's
    /// rejection check, a failed cloud transcription). The guards make it "not understood".
    pub rejected: Option<String>,
}

impl Recognition {
    /// Words heard by a recogniser that gives a confidence (0..1) rather than Whisper's
    /// probabilities: no-speech 0, the confidence as the mean log-probability.
    pub fn words(text: &str, confidence: Option<f32>) -> Recognition {
        Recognition {
            text: text.trim().to_string(),
            no_speech: 0.0,
            avg_logprob: confidence.map_or(f32::NAN, |c| c.clamp(1e-6, 1.0).ln()),
            tokens: text.split_whitespace().count(),
            max_tokens: false,
            rejected: None,
        }
    }

    /// Speech the recogniser refused, with its reason.
    pub fn rejected(reason: &str) -> Recognition {
        Recognition {
            rejected: Some(reason.to_string()),
            ..Recognition::words("", None)
        }
    }
}

/// The seam between the session and a speech recogniser (Whisper, the grammar backend, the
/// Realtime adapter: `voice::backend` chooses one).
pub trait Recognizer: Send {
    /// Recognise one finished segment of 16 kHz mono samples, biased toward what is on the
    /// screen (`labels`, empty for no bias).
    fn recognize(&mut self, samples: &[i16], labels: &[String]) -> anyhow::Result<Recognition>;
}

/// Whisper's own silence rule: a no-speech probability over this...
pub const NO_SPEECH_AT: f32 = 0.6;
/// ...together with a mean log-probability under this means nothing was said.
pub const LOW_LOGPROB: f32 = -1.0;
/// The most labels the prompt carries (Whisper's prompt is at most 224 tokens).
pub const MAX_PROMPT_LABELS: usize = 40;
pub const MAX_PROMPT_CHARS: usize = 600;
/// The same words this many times in a row is a decoding loop.
const REPEATS: usize = 3;

/// The guards' verdict on one recognition.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Heard(Heard),
    /// "stop" / "cancel": the stop path.
    Stop,
    /// Not speech (silence, noise, music): no utterance at all.
    NotSpeech(String),
    /// Speech, but nothing to act on.
    NotUnderstood(String),
}

/// The words of a text, lower case, punctuation dropped.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// The text without the non-speech tags Whisper writes: `[BLANK_AUDIO]`, `(upbeat music)`, `*cough*`.
fn without_tags(text: &str) -> String {
    let mut out = String::new();
    let mut closing: Option<char> = None;
    for c in text.chars() {
        match closing {
            Some(end) if c == end => closing = None,
            Some(_) => {}
            None => match c {
                '[' => closing = Some(']'),
                '(' => closing = Some(')'),
                '*' => closing = Some('*'),
                '♪' => {}
                c => out.push(c),
            },
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A decoding loop: some words repeated [`REPEATS`] times in a row, or a phrase of three words
/// or more said twice in a row (a command decoded twice over: acting on it would act twice).
fn loops(words: &[String]) -> bool {
    for n in 3..=words.len() / 2 {
        if (0..=words.len() - 2 * n).any(|i| words[i..i + n] == words[i + n..i + 2 * n]) {
            return true;
        }
    }
    for n in 1..=4 {
        let mut i = 0;
        while i + n * REPEATS <= words.len() {
            let first = &words[i..i + n];
            if (1..REPEATS).all(|k| &words[i + k * n..i + (k + 1) * n] == first) {
                return true;
            }
            i += 1;
        }
    }
    false
}

/// Whether a recogniser's text repeats itself (a decoding loop, as [`judge`] sees one).
pub fn repeats(text: &str) -> bool {
    loops(&words(&without_tags(text)))
}

/// Whether a recogniser's text has no words at all once its non-speech tags are dropped.
pub fn no_words(text: &str) -> bool {
    words(&without_tags(text)).is_empty()
}

/// Whether the words are a stop: "stop", "cancel", "stop that", "cancel it", "stop stop".
pub fn is_stop(text: &str) -> bool {
    let w = words(text);
    let head = ["stop", "cancel", "halt"];
    let tail = ["that", "it", "this", "now", "please", "stop", "cancel"];
    match w.as_slice() {
        [one] => head.contains(&one.as_str()),
        [a, b] => head.contains(&a.as_str()) && tail.contains(&b.as_str()),
        _ => false,
    }
}

/// The guards on what the recogniser returned.
pub fn judge(r: &Recognition) -> Verdict {
    if let Some(reason) = &r.rejected {
        return Verdict::NotUnderstood(reason.clone());
    }
    let text = without_tags(&r.text);
    let w = words(&text);
    if w.is_empty() {
        return Verdict::NotSpeech(format!("no words (\"{}\")", r.text.trim()));
    }
    if r.no_speech > NO_SPEECH_AT && r.avg_logprob < LOW_LOGPROB {
        return Verdict::NotSpeech(format!(
            "no speech (p = {:.2}, mean log-probability {:.2})",
            r.no_speech, r.avg_logprob
        ));
    }
    // Whisper's stock hallucinations in noise, unless the model is sure there was speech.
    let stock = [
        "you",
        "thank you",
        "thanks for watching",
        "thank you for watching",
        "bye",
    ];
    if stock.contains(&w.join(" ").as_str()) && r.no_speech > 0.2 {
        return Verdict::NotSpeech(format!("\"{text}\" heard in what is likely no speech"));
    }
    if r.max_tokens || loops(&w) {
        return Verdict::NotUnderstood("the recogniser repeated itself".into());
    }
    if is_stop(&text) {
        return Verdict::Stop;
    }
    let confidence = if r.avg_logprob.is_finite() {
        Some(r.avg_logprob.exp())
    } else {
        None
    };
    Verdict::Heard(Heard::new(text, confidence))
}

/// One segment's events for the tracker: speech started and stopped, then the verdict.
pub fn events_of(id: &UtteranceId, segment: &Segment, verdict: &Verdict) -> Vec<VoiceEvent> {
    let mut events = vec![
        VoiceEvent::SpeechStarted {
            utterance: id.clone(),
            at_ms: segment.start_ms,
        },
        VoiceEvent::SpeechStopped {
            utterance: id.clone(),
            at_ms: segment.speech_end_ms,
        },
    ];
    events.push(match verdict {
        Verdict::Heard(h) => VoiceEvent::Final {
            utterance: id.clone(),
            heard: vec![h.clone()],
        },
        Verdict::Stop => VoiceEvent::StopHeard {
            at_ms: segment.speech_end_ms,
        },
        Verdict::NotSpeech(_) => VoiceEvent::Discarded {
            utterance: id.clone(),
        },
        Verdict::NotUnderstood(reason) => VoiceEvent::NotUnderstood {
            utterance: id.clone(),
            reason: reason.clone(),
        },
    });
    if matches!(verdict, Verdict::Stop) {
        // The stop detector's event names no utterance; this one is finished too.
        events.push(VoiceEvent::Discarded {
            utterance: id.clone(),
        });
    }
    events
}

/// What the prompt says when the screen gives no labels (no browser, a desktop task, `--no-bias`):
/// the words of what Circe does, so that a command's own words are what tiny.en expects. The
/// voice bench's `prompt` lever measured it against no prompt on 216 clips (requests said by
/// flite's three voices and espeak-ng at three speeds, half with noise): word error 17.7 % →
/// 13.0 %, the desktop requests 12.1 % → 7.8 % (docs/VOICE.md).
pub const VOCABULARY: &str =
    "Open, save, change the heading, show it in the file manager, search, scroll down, click, type, select, go back, stop.";

/// The initial prompt: the screen's labels, deduplicated, bounded; [`VOCABULARY`] when the
/// screen gives none.
pub fn prompt(labels: &[String]) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let mut kept: Vec<String> = Vec::new();
    let mut chars = 0;
    for label in labels {
        let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
        let label: String = label.chars().take(60).collect();
        if label.is_empty() || !label.chars().any(char::is_alphabetic) {
            continue;
        }
        if !seen.insert(label.to_lowercase()) {
            continue;
        }
        if kept.len() == MAX_PROMPT_LABELS || chars + label.len() + 2 > MAX_PROMPT_CHARS {
            break;
        }
        chars += label.len() + 2;
        kept.push(label);
    }
    if kept.is_empty() {
        VOCABULARY.to_string()
    } else {
        format!("On screen: {}.", kept.join(", "))
    }
}

/// Whether words heard by an open microphone are addressed to Circe: a request of their own
/// (the reader's test), anything while Circe waits for an answer (the reader then decides
/// whether it fits), or a correction or cancel ("actually, in Paris", "never mind") while an
/// interaction is live. Otherwise they are not understood and nothing acts (a sentence said to
/// someone else must not become a request).
pub fn addressed(text: &str, live: bool, asking: bool) -> Result<(), String> {
    let about_the_current = live && crate::director::reader::corrects_or_cancels(text);
    if asking || about_the_current || crate::director::reader::is_request(text) {
        Ok(())
    } else {
        Err(format!("\"{text}\" is not a request Circe knows"))
    }
}

/// The 50th and 95th percentiles (nearest rank) of some values.
pub fn percentiles(values: &[u64]) -> Option<(u64, u64)> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_unstable();
    let rank = |p: f64| v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Some((rank(0.50), rank(0.95)))
}

// ---------------------------------------------------------------------------------------------
// The adapter half.

/// What is on screen now, for the prompt (the browser's latest observation).
pub trait Screen: Send + Sync {
    fn labels(&self) -> crate::executor::BoxFuture<'_, Vec<String>>;
}

/// No screen: no prompt.
pub struct NoScreen;

impl Screen for NoScreen {
    fn labels(&self) -> crate::executor::BoxFuture<'_, Vec<String>> {
        Box::pin(async { Vec::new() })
    }
}

/// Circe's own voice (the desktop's espeak-ng), stopped at once when the person speaks.
pub trait Speaker: Send + Sync {
    fn say(&self, text: &str);
    fn stop(&self);
    fn playing(&self) -> bool;
}

/// How a session treats what it hears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HearOptions {
    /// Prompt the recogniser with the screen's labels.
    pub bias: bool,
    /// Recognise and report only: admit nothing.
    pub transcribe: bool,
}

impl Default for HearOptions {
    fn default() -> Self {
        HearOptions {
            bias: true,
            transcribe: false,
        }
    }
}

/// What became of one utterance: the reply of `hear` and the lines of `listen`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hearing {
    pub utterance: String,
    pub start_ms: u64,
    pub speech_end_ms: u64,
    /// What the recogniser returned, before the guards.
    pub recognized: String,
    /// The initial prompt it was given.
    pub prompt: String,
    pub recognition_ms: u64,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Outcome {
    /// Submitted as voice input; the reply is the submit's.
    Admitted {
        text: String,
        submitted: Box<Submitted>,
    },
    /// Submitted, and the engine refused it (with the reason; nothing changed).
    Refused { text: String, error: ApiError },
    /// Heard, and only reported (`transcribe`).
    Transcribed { text: String },
    /// "stop": the interrupt path.
    Stopped { interrupted: Box<Interrupted> },
    /// "stop" with nothing running.
    NothingToStop { message: String },
    /// Said to be not understood; nothing acted.
    NotUnderstood { reason: String },
    /// Not speech; no utterance.
    NotSpeech { reason: String },
    /// A backchannel ("ok", "mhm"): ends nothing, asks nothing.
    Ignored { text: String },
}

/// Makes the recogniser on first use (called on a blocking thread, inside the runtime).
pub type Loader = Box<dyn Fn() -> anyhow::Result<Box<dyn Recognizer>> + Send + Sync>;

/// One daemon's voice session: the recogniser (loaded on first use), the tracker, the screen.
pub struct VoiceSession {
    id: String,
    device: String,
    engine: Arc<Engine>,
    load: Arc<Loader>,
    recognizer: Arc<Mutex<Option<Box<dyn Recognizer>>>>,
    screen: Arc<dyn Screen>,
    utterances: Mutex<Utterances>,
    next: AtomicU64,
    latency: Arc<dyn LatencyLog>,
    speaker: Mutex<Option<Arc<dyn Speaker>>>,
    /// Makes the always-on stop detector a live stream runs beside the recogniser, if any.
    stop_detector: Mutex<Option<StopFactory>>,
    /// Where in the stream (ms of audio) that detector last took the stop path: the
    /// recogniser's own "stop" for the same words, an utterance around that point, is then not
    /// a second stop. Audio time, not wall time: a recogniser slowed by a busy machine hears the
    /// same words late, and they are still the same words.
    spotted: Mutex<Option<u64>>,
}

/// Makes a stop detector for one stream (`None`: none can be made here).
pub type StopFactory = Arc<dyn Fn() -> Option<Box<dyn super::sphinx::StopDetector>> + Send + Sync>;

/// The detector fires during the word or up to this long after it ends (ms of audio).
const SPOTTED_AFTER_MS: u64 = 2000;

/// A "stop" the spotter heard is taken once the speaker pauses this long after it.
const HOLD_QUIET_MS: u64 = 300;
/// Speech going on this long after a spotted "stop" means it was inside a sentence.
const HOLD_SPEECH_MS: u64 = 600;

/// What a "stop" the spotter heard at `hit_ms` (stream time) is, once the audio up to
/// `heard_ms` has been framed and the open utterance's speech last ended at `speech_end_ms`
/// (`None`: no utterance is open, the speaker has stopped). The keyword spotter also hears
/// "stop" inside words ("on my desk·top please open …"): a stop is a pause after the word, and
/// when speech goes on instead, the words are left to the recogniser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    Wait,
    Stop,
    Inside,
}

pub fn held_stop(hit_ms: u64, heard_ms: u64, speech_end_ms: Option<u64>) -> Held {
    match speech_end_ms {
        None => Held::Stop,
        Some(end) if end > hit_ms + HOLD_SPEECH_MS => Held::Inside,
        Some(end) if heard_ms.saturating_sub(end) >= HOLD_QUIET_MS => Held::Stop,
        Some(_) => Held::Wait,
    }
}

/// A file's audio is heard in chunks of this many samples (100 ms, the stop detector's own).
const FILE_CHUNK: usize = 1600;

/// How audio arrives: as it is spoken (a microphone, a file played in real time), or all at
/// once (a file): where the end of speech is on the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    Live,
    AtOnce,
}

/// Where latencies go (the store, in the daemon).
pub trait LatencyLog: Send + Sync {
    fn record(&self, utterance: &str, phase: Phase, ms: u64);
    fn all(&self) -> anyhow::Result<Vec<(Phase, u64)>>;
}

/// The measured phases, each from the end of speech.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    Admission,
    FirstResponse,
    FirstAction,
    VerifiedResult,
    /// From the end of "stop" to the operation confirmed stopped.
    Cessation,
}

impl Phase {
    pub const ALL: [Phase; 5] = [
        Phase::Admission,
        Phase::FirstResponse,
        Phase::FirstAction,
        Phase::VerifiedResult,
        Phase::Cessation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Admission => "admission",
            Phase::FirstResponse => "firstResponse",
            Phase::FirstAction => "firstAction",
            Phase::VerifiedResult => "verifiedResult",
            Phase::Cessation => "cessation",
        }
    }

    pub fn parse(s: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// p50/p95 of each phase.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseStats {
    pub phase: Phase,
    pub count: usize,
    pub p50_ms: u64,
    pub p95_ms: u64,
}

pub fn stats(samples: &[(Phase, u64)]) -> Vec<PhaseStats> {
    Phase::ALL
        .into_iter()
        .filter_map(|phase| {
            let v: Vec<u64> = samples
                .iter()
                .filter(|(p, _)| *p == phase)
                .map(|(_, ms)| *ms)
                .collect();
            percentiles(&v).map(|(p50, p95)| PhaseStats {
                phase,
                count: v.len(),
                p50_ms: p50,
                p95_ms: p95,
            })
        })
        .collect()
}

/// How long the screen's labels may take before recognition goes on without them.
const SCREEN_BUDGET: Duration = Duration::from_millis(1500);
/// How long a spoken stop waits for the operation to confirm it.
const STOP_WAIT: Duration = Duration::from_secs(10);
/// How long the latency watcher follows an operation.
const WATCH_FOR: Duration = Duration::from_secs(60);

impl VoiceSession {
    pub fn new(
        engine: Arc<Engine>,
        load: Loader,
        screen: Arc<dyn Screen>,
        latency: Arc<dyn LatencyLog>,
    ) -> VoiceSession {
        VoiceSession {
            id: uuid::Uuid::new_v4().to_string(),
            device: "voice".into(),
            engine,
            load: Arc::new(load),
            recognizer: Arc::new(Mutex::new(None)),
            screen,
            utterances: Mutex::new(Utterances::new()),
            next: AtomicU64::new(1),
            latency,
            speaker: Mutex::new(None),
            stop_detector: Mutex::new(None),
            spotted: Mutex::new(None),
        }
    }

    /// Run `make`'s stop detector beside the recogniser on every live stream (`listen`, a
    /// phone's microphone): "stop" then takes the stop path as soon as it is said, also while
    /// Circe speaks.
    pub fn set_stop_detector(&self, make: Option<StopFactory>) {
        *self.stop_detector.lock().unwrap_or_else(|p| p.into_inner()) = make;
    }

    /// A session that hears nothing: no recogniser (audio is refused as unavailable), no screen,
    /// no latency log. For a control socket served without voice (tests of the control API).
    pub fn unavailable(engine: Arc<Engine>) -> VoiceSession {
        struct Forget;
        impl LatencyLog for Forget {
            fn record(&self, _: &str, _: Phase, _: u64) {}
            fn all(&self) -> anyhow::Result<Vec<(Phase, u64)>> {
                Ok(Vec::new())
            }
        }
        let load: Loader = Box::new(|| anyhow::bail!("this daemon has no recogniser"));
        VoiceSession::new(engine, load, Arc::new(NoScreen), Arc::new(Forget))
    }

    /// The same recogniser, screen and latency log hearing another device (a phone streaming
    /// its microphone): what it admits is that device's input, under a session id of its own.
    pub fn for_device(&self, device: &str) -> Arc<VoiceSession> {
        Arc::new(VoiceSession {
            id: uuid::Uuid::new_v4().to_string(),
            device: device.to_string(),
            engine: self.engine.clone(),
            load: self.load.clone(),
            recognizer: self.recognizer.clone(),
            screen: self.screen.clone(),
            utterances: Mutex::new(Utterances::new()),
            next: AtomicU64::new(1),
            latency: self.latency.clone(),
            speaker: Mutex::new(None),
            stop_detector: Mutex::new(
                self.stop_detector
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone(),
            ),
            spotted: Mutex::new(None),
        })
    }

    /// Speak replies (a listening session at the desktop) or not (`None`).
    pub fn set_speaker(&self, speaker: Option<Arc<dyn Speaker>>) {
        *self.speaker.lock().unwrap_or_else(|p| p.into_inner()) = speaker;
    }

    fn speaker(&self) -> Option<Arc<dyn Speaker>> {
        self.speaker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Hear a whole recording (a WAV file's bytes): every utterance in it, in order, with the
    /// stop detector beside the recogniser as on a live stream (unless only transcribing).
    /// Bad audio is refused with the reason and changes nothing.
    pub async fn hear_wav(
        self: &Arc<Self>,
        bytes: &[u8],
        options: HearOptions,
    ) -> Result<Vec<Hearing>, ApiError> {
        let samples = audio::parse_wav(bytes)
            .map_err(|e| ApiError::new(ErrorCode::BadAudio, e.to_string()))?;
        self.ensure_recognizer().await?;
        // The file in the chunks a microphone would give, all queued at once.
        let chunks: Vec<Vec<i16>> = samples.chunks(FILE_CHUNK).map(<[i16]>::to_vec).collect();
        let (frames_tx, frames) = tokio::sync::mpsc::channel(chunks.len().max(1));
        // At most one stop per chunk and one utterance per chunk, so the report never waits.
        let (report, mut hearings) = tokio::sync::mpsc::channel(2 * chunks.len() + 2);
        for chunk in chunks {
            frames_tx.try_send(chunk).expect("room for every chunk");
        }
        drop(frames_tx);
        self.hear_chunks(frames, options, report, Arrival::AtOnce)
            .await;
        let mut out = Vec::new();
        while let Ok(h) = hearings.try_recv() {
            out.push(h);
        }
        Ok(out)
    }

    /// Load the recogniser on first use; an error says what to install.
    pub async fn ensure_recognizer(&self) -> Result<(), ApiError> {
        if self
            .recognizer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
        {
            return Ok(());
        }
        // Loading reads a model or connects to a server: off the async threads.
        let load = self.load.clone();
        let loaded = tokio::task::spawn_blocking(move || (*load)())
            .await
            .unwrap_or_else(|e| Err(anyhow::anyhow!("loading the recogniser panicked: {e}")))
            .map_err(|e| ApiError::new(ErrorCode::VoiceUnavailable, e.to_string()))?;
        let mut slot = self.recognizer.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(loaded);
        }
        Ok(())
    }

    /// Speech began (the VAD, before recognition): barge-in.
    pub fn speech_started(&self) {
        let speaker = self.speaker();
        let mut u = self.utterances.lock().unwrap_or_else(|p| p.into_inner());
        u.playback(speaker.as_ref().is_some_and(|s| s.playing()));
        // Its own id: a finished id is refused by the tracker, so each start needs a new one.
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let id = UtteranceId(format!("vad{n}"));
        for effect in u.apply(VoiceEvent::SpeechStarted {
            utterance: id.clone(),
            at_ms: 0,
        }) {
            if effect == Effect::StopPlayback {
                if let Some(s) = &speaker {
                    s.stop();
                }
            }
        }
        u.apply(VoiceEvent::Discarded { utterance: id });
    }

    /// Recognise one segment and carry out what it means. `ended` is when its speech ended.
    pub async fn hear_segment(
        self: &Arc<Self>,
        segment: Segment,
        options: HearOptions,
        ended: Instant,
    ) -> Hearing {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let id = UtteranceId(format!("u{n}"));
        let labels = if options.bias {
            tokio::time::timeout(SCREEN_BUDGET, self.screen.labels())
                .await
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let prompt_text = prompt(&labels);
        let started = Instant::now();
        let recognizer = self.recognizer.clone();
        let samples = segment.samples.clone();
        let recognized = tokio::task::spawn_blocking(move || {
            let mut guard = recognizer.lock().unwrap_or_else(|p| p.into_inner());
            match guard.as_mut() {
                Some(r) => r.recognize(&samples, &labels),
                None => Err(anyhow::anyhow!("the recogniser is not loaded")),
            }
        })
        .await
        .unwrap_or_else(|e| Err(anyhow::anyhow!("the recogniser panicked: {e}")));
        let recognition_ms = started.elapsed().as_millis() as u64;
        let (recognized_text, verdict) = match recognized {
            Ok(r) => (r.text.clone(), judge(&r)),
            Err(e) => (
                String::new(),
                Verdict::NotUnderstood(format!("recognition failed: {e}")),
            ),
        };
        tracing::info!(utterance = %id, text = %recognized_text, ?verdict, recognition_ms, "heard");
        let mut hearing = Hearing {
            utterance: id.0.clone(),
            start_ms: segment.start_ms,
            speech_end_ms: segment.speech_end_ms,
            recognized: recognized_text,
            prompt: prompt_text,
            recognition_ms,
            outcome: Outcome::NotSpeech {
                reason: String::new(),
            },
        };
        if let Verdict::NotSpeech(reason) = &verdict {
            hearing.outcome = Outcome::NotSpeech {
                reason: reason.clone(),
            };
            let _ = self.apply(events_of(&id, &segment, &verdict));
            return hearing;
        }
        if options.transcribe {
            hearing.outcome = match &verdict {
                Verdict::Heard(h) => Outcome::Transcribed {
                    text: h.text.clone(),
                },
                Verdict::Stop => Outcome::Transcribed {
                    text: hearing.recognized.clone(),
                },
                Verdict::NotUnderstood(reason) => Outcome::NotUnderstood {
                    reason: reason.clone(),
                },
                Verdict::NotSpeech(_) => unreachable!("handled above"),
            };
            return hearing;
        }
        let effects = self.apply(events_of(&id, &segment, &verdict));
        hearing.outcome = Outcome::Ignored {
            text: hearing.recognized.clone(),
        };
        for effect in effects {
            match effect {
                Effect::StopPlayback => {
                    if let Some(s) = self.speaker() {
                        s.stop();
                    }
                }
                Effect::Stop => {
                    let spotted = *self.spotted.lock().unwrap_or_else(|p| p.into_inner());
                    let same_words = spotted.is_some_and(|at| {
                        hearing.start_ms <= at && at <= hearing.speech_end_ms + SPOTTED_AFTER_MS
                    });
                    hearing.outcome = if same_words {
                        // The detector heard these words first and took the stop path.
                        Outcome::Ignored {
                            text: hearing.recognized.clone(),
                        }
                    } else {
                        self.stop(&id, ended).await
                    };
                }
                Effect::Show { .. } => {}
                Effect::Admit(utterance) => {
                    hearing.outcome = self.admit(utterance, ended).await;
                }
                Effect::NotUnderstood { reason, .. } => {
                    self.say("Not understood.");
                    hearing.outcome = Outcome::NotUnderstood { reason };
                }
            }
        }
        hearing
    }

    fn apply(&self, events: Vec<VoiceEvent>) -> Vec<Effect> {
        let speaker = self.speaker();
        let mut u = self.utterances.lock().unwrap_or_else(|p| p.into_inner());
        u.playback(speaker.as_ref().is_some_and(|s| s.playing()));
        events.into_iter().flat_map(|e| u.apply(e)).collect()
    }

    fn say(&self, text: &str) {
        if let Some(s) = self.speaker() {
            s.say(text);
        }
    }

    async fn admit(self: &Arc<Self>, utterance: Utterance, ended: Instant) -> Outcome {
        let text = utterance.heard[0].text.clone();
        let (live, asking) = match self.engine.state(0).await {
            Ok(state) => state.interaction.map_or((false, false), |i| {
                (!i.closed, !i.closed && !matches!(i.pending, Pending::None))
            }),
            Err(_) => (false, false),
        };
        if let Err(reason) = addressed(&text, live, asking) {
            self.say("Not understood.");
            return Outcome::NotUnderstood { reason };
        }
        let input = utterance.input(&self.id, &self.device);
        let mut changes = self.engine.subscribe();
        let reply = match self.engine.submit(input) {
            Ok(pending) => pending.reply().await,
            Err(e) => Err(e),
        };
        let admitted = ended.elapsed().as_millis() as u64;
        match reply {
            Ok(submitted) => {
                let key = utterance.id.0.clone();
                self.latency.record(&key, Phase::Admission, admitted);
                // The question it asks, said from the interaction's state.
                if let Pending::Question(q) = &submitted.interaction.pending {
                    self.say(&q.prompt);
                }
                if let Some(op) = &submitted.operation {
                    let me = self.clone();
                    let id = op.id;
                    tokio::spawn(async move {
                        me.follow(id, key, ended, &mut changes).await;
                    });
                }
                Outcome::Admitted {
                    text,
                    submitted: Box::new(submitted),
                }
            }
            Err(error) => Outcome::Refused { text, error },
        }
    }

    /// Follow an admitted operation to its end: latencies, and its outcome said aloud.
    async fn follow(
        &self,
        id: OperationId,
        key: String,
        ended: Instant,
        changes: &mut tokio::sync::broadcast::Receiver<Notification>,
    ) {
        let mut responded = false;
        // The end of speech on the wall clock, to place the operation's own step times.
        let ended_wall = crate::clock::now().saturating_sub(ended.elapsed().as_millis() as u64);
        let deadline = tokio::time::sleep(WATCH_FOR);
        tokio::pin!(deadline);
        // The operation arrives whole when accepted, then as small events folded into it.
        let mut fold = crate::protocol::OperationFold::default();
        loop {
            let n = tokio::select! {
                n = changes.recv() => n,
                _ = &mut deadline => return,
            };
            let op: Operation = match n {
                Ok(n) => match fold.apply(&n) {
                    crate::protocol::Folded::Changed(ids) if ids.contains(&id) => {
                        match fold.get(id) {
                            Some(op) => op.clone(),
                            None => continue,
                        }
                    }
                    _ => continue,
                },
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            let ms = ended.elapsed().as_millis() as u64;
            if !responded && (!op.steps.is_empty() || !op.status.is_active()) {
                responded = true;
                // The operation's first step (its journal's clock, like the first action), or
                // its end when it ended without one.
                let at = op
                    .steps
                    .first()
                    .map_or(ms, |s| s.started_at.saturating_sub(ended_wall));
                self.latency.record(&key, Phase::FirstResponse, at);
            }
            if op.status.is_final() {
                // The first action: when the first step that took effect (not a read of the
                // page, not a refusal) started, from the operation's own journal.
                if let Some(step) = op.steps.iter().find(|s| {
                    s.action != "observe" && s.result == Some(crate::model::StepResult::Applied)
                }) {
                    let at = step.started_at.saturating_sub(ended_wall);
                    self.latency.record(&key, Phase::FirstAction, at);
                }
                // Verified: completed, its outcome observed (not stopped, not refused).
                if op.status == crate::model::OperationStatus::Completed {
                    self.latency.record(&key, Phase::VerifiedResult, ms);
                }
                if let Some(text) = super::speak::outcome_words(&op) {
                    self.say(&text);
                }
                return;
            }
        }
    }

    /// The stop path: interrupt the running operation and wait (a while) for the stop to be
    /// confirmed, like `circe stop`.
    async fn stop(self: &Arc<Self>, id: &UtteranceId, ended: Instant) -> Outcome {
        if let Some(s) = self.speaker() {
            s.stop();
        }
        let mut changes = self.engine.subscribe();
        let mut interrupted = match self.engine.interrupt(None, self.device.clone()).await {
            Ok(i) => i,
            Err(e) => return Outcome::NothingToStop { message: e.message },
        };
        if !interrupted.confirmed && interrupted.stop.is_some() {
            let op = interrupted.operation.id;
            let deadline = tokio::time::sleep(STOP_WAIT);
            tokio::pin!(deadline);
            // The operation as the interrupt left it, then its events folded in.
            let mut fold = crate::protocol::OperationFold::default();
            fold.insert(interrupted.operation.clone());
            loop {
                let n = tokio::select! {
                    n = changes.recv() => n,
                    _ = &mut deadline => break,
                };
                let folded = match &n {
                    Ok(n) => fold.apply(n),
                    Err(_) => crate::protocol::Folded::Unchanged,
                };
                match n {
                    Ok(_) if matches!(&folded, crate::protocol::Folded::Changed(ids) if ids.contains(&op)) =>
                    {
                        let operation = fold.get(op).expect("folded").clone();
                        let confirmed = operation
                            .stop
                            .as_ref()
                            .is_some_and(|s| s.confirmed_at.is_some());
                        interrupted.stop = operation.stop.clone();
                        interrupted.operation = operation;
                        if confirmed {
                            interrupted.confirmed = true;
                            break;
                        }
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => break,
                }
            }
        }
        if interrupted.confirmed {
            self.latency
                .record(&id.0, Phase::Cessation, ended.elapsed().as_millis() as u64);
            self.say("Stopped.");
        }
        Outcome::Stopped {
            interrupted: Box::new(interrupted),
        }
    }

    /// p50/p95 of every recorded phase.
    pub fn metrics(&self) -> Result<Vec<PhaseStats>, ApiError> {
        let all = self
            .latency
            .all()
            .map_err(|e| ApiError::new(ErrorCode::StoreError, e.to_string()))?;
        Ok(stats(&all))
    }

    /// The stop detector heard "stop": the stop path at once, before the recogniser has the words.
    async fn spotted_stop(self: &Arc<Self>, at_ms: u64) -> Hearing {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let id = UtteranceId(format!("kws{n}"));
        *self.spotted.lock().unwrap_or_else(|p| p.into_inner()) = Some(at_ms);
        let outcome = self.stop(&id, Instant::now()).await;
        Hearing {
            utterance: id.0,
            start_ms: 0,
            speech_end_ms: 0,
            recognized: "stop (the stop detector)".into(),
            prompt: String::new(),
            recognition_ms: 0,
            outcome,
        }
    }

    /// Segments of a live stream: feed samples, get each utterance handled as it ends.
    pub async fn hear_stream(
        self: &Arc<Self>,
        frames: tokio::sync::mpsc::Receiver<Vec<i16>>,
        options: HearOptions,
        report: tokio::sync::mpsc::Sender<Hearing>,
    ) -> Result<(), ApiError> {
        self.ensure_recognizer().await?;
        self.hear_chunks(frames, options, report, Arrival::Live)
            .await;
        Ok(())
    }

    /// The one loop over audio, a file's or a stream's: each chunk goes to the stop detector
    /// (its "stop" takes the stop path at once) and to the VAD (each finished utterance is
    /// recognised and carried out), in order. Ends with the chunks or when `report` is closed.
    async fn hear_chunks(
        self: &Arc<Self>,
        mut frames: tokio::sync::mpsc::Receiver<Vec<i16>>,
        options: HearOptions,
        report: tokio::sync::mpsc::Sender<Hearing>,
        arrival: Arrival,
    ) {
        let make = self
            .stop_detector
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        // Transcribing only acts on nothing, a stop included.
        let mut spotter = make.filter(|_| !options.transcribe).and_then(|make| make());
        let mut vad = vad::Vad::new(vad::Config::default());
        let end_silence = Duration::from_millis(vad::Config::default().end_silence_ms);
        let mut done = false;
        // Audio heard so far in this stream (samples at 16 kHz); a new stream starts at 0.
        let mut fed: u64 = 0;
        // A "stop" heard and not yet taken or left (`held_stop`), at its stream time.
        let mut held: Option<u64> = None;
        *self.spotted.lock().unwrap_or_else(|p| p.into_inner()) = None;
        while !done {
            let (events, take) = match frames.recv().await {
                Some(chunk) => {
                    fed += chunk.len() as u64;
                    let stop = spotter.as_mut().is_some_and(|s| match s.feed(&chunk) {
                        Ok(events) => events
                            .iter()
                            .any(|e| matches!(e, VoiceEvent::StopHeard { .. })),
                        Err(e) => {
                            tracing::warn!(error = %e, "the stop detector failed");
                            false
                        }
                    });
                    if stop && held.is_none() {
                        held = Some(fed * 1000 / u64::from(super::audio::RATE));
                    }
                    let events = vad.push(&chunk);
                    let take = match held
                        .map(|at| (at, held_stop(at, vad.heard_ms(), vad.last_speech_end_ms())))
                    {
                        Some((at, Held::Stop)) => Some(at),
                        Some((_, Held::Inside)) => {
                            tracing::debug!("a \"stop\" inside the speech: the recogniser decides");
                            held = None;
                            None
                        }
                        _ => None,
                    };
                    (events, take)
                }
                None => {
                    done = true;
                    (vad.finish(), held)
                }
            };
            if let Some(at) = take {
                held = None;
                let hearing = self.spotted_stop(at).await;
                if report.send(hearing).await.is_err() {
                    return;
                }
            }
            for event in events {
                match event {
                    VadEvent::SpeechStarted { .. } => self.speech_started(),
                    VadEvent::Dropped { .. } => {}
                    VadEvent::Segment(segment) => {
                        let ended = match arrival {
                            // The speech ended one end-of-utterance silence ago.
                            Arrival::Live => Instant::now()
                                .checked_sub(end_silence)
                                .unwrap_or_else(Instant::now),
                            // A file arrives at once: its end of speech is now.
                            Arrival::AtOnce => Instant::now(),
                        };
                        let hearing = self.hear_segment(segment, options, ended).await;
                        if report.send(hearing).await.is_err() {
                            return;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(text: &str, no_speech: f32, avg_logprob: f32) -> Recognition {
        Recognition {
            text: text.into(),
            no_speech,
            avg_logprob,
            tokens: text.split_whitespace().count(),
            max_tokens: false,
            rejected: None,
        }
    }

    #[test]
    fn a_spotted_stop_is_taken_at_a_pause_and_left_inside_a_sentence() {
        use Held::*;
        // (hit, heard so far, the open utterance's last speech end) → what it is.
        let table = [
            (1000, 1100, Some(1000), Wait),
            (1000, 1300, Some(1000), Stop),
            (1000, 1400, None, Stop),
            // "stop it": a word after it, then the pause.
            (1000, 1300, Some(1250), Wait),
            (1000, 1560, Some(1250), Stop),
            // "on my desk·top please open …": the speech goes on.
            (1000, 1700, Some(1700), Inside),
            (1000, 1600, Some(1580), Wait),
        ];
        for (hit, heard, end, want) in table {
            assert_eq!(held_stop(hit, heard, end), want, "{hit} {heard} {end:?}");
        }
    }

    #[test]
    fn the_guards_judge_what_the_recogniser_returned() {
        use Verdict::*;
        let heard = |t: &str, lp: f32| Heard(crate::model::Heard::new(t, Some(f32::exp(lp))));
        let table: Vec<(Recognition, Verdict)> = vec![
            (
                rec(" Scroll down.", 0.01, -0.2),
                heard("Scroll down.", -0.2),
            ),
            (
                rec("[BLANK_AUDIO]", 0.1, -0.5),
                NotSpeech("no words (\"[BLANK_AUDIO]\")".into()),
            ),
            (
                rec("(upbeat music)", 0.1, -0.5),
                NotSpeech("no words (\"(upbeat music)\")".into()),
            ),
            (
                rec("you", 0.3, -0.4),
                NotSpeech("\"you\" heard in what is likely no speech".into()),
            ),
            (
                rec("Thank you.", 0.5, -0.3),
                NotSpeech("\"Thank you.\" heard in what is likely no speech".into()),
            ),
            (rec("you", 0.05, -0.2), heard("you", -0.2)),
            (
                rec("Open the door.", 0.8, -1.5),
                NotSpeech("no speech (p = 0.80, mean log-probability -1.50)".into()),
            ),
            (
                rec("Open the door.", 0.8, -0.5),
                heard("Open the door.", -0.5),
            ),
            (
                rec("Scroll down. Scroll down. Scroll down. Scroll", 0.0, -0.3),
                NotUnderstood("the recogniser repeated itself".into()),
            ),
            (
                rec(
                    "Go back to the previous page. Go back to the previous page.",
                    0.0,
                    -0.3,
                ),
                NotUnderstood("the recogniser repeated itself".into()),
            ),
            // Words said twice that are not a phrase of three: a person may.
            (
                rec("Scroll down, scroll down.", 0.0, -0.3),
                heard("Scroll down, scroll down.", -0.3),
            ),
            (
                rec("Open the the comments", 0.0, -0.3),
                heard("Open the the comments", -0.3),
            ),
            (
                Recognition {
                    max_tokens: true,
                    ..rec("a b c d e f", 0.0, -0.3)
                },
                NotUnderstood("the recogniser repeated itself".into()),
            ),
            (rec("Stop.", 0.0, -0.1), Stop),
            (rec("Cancel that!", 0.0, -0.1), Stop),
            (
                rec("stop the music player", 0.0, -0.1),
                heard("stop the music player", -0.1),
            ),
            (
                rec("(coughs) Scroll up.", 0.0, -0.3),
                heard("Scroll up.", -0.3),
            ),
            // Recognisers with a confidence (the grammar backend, Realtime) and their refusals.
            (
                Recognition::words(" scroll down ", Some(0.5)),
                Heard(crate::model::Heard::new("scroll down", Some(0.5))),
            ),
            (
                Recognition::words("scroll down", None),
                Heard(crate::model::Heard::new("scroll down", None)),
            ),
            (Recognition::words("stop", Some(0.9)), Stop),
            (
                Recognition::rejected("closest: \"add the desk to my cart\""),
                NotUnderstood("closest: \"add the desk to my cart\"".into()),
            ),
        ];
        for (r, want) in table {
            assert_eq!(judge(&r), want, "{r:?}");
        }
    }

    #[test]
    fn a_segment_becomes_its_events() {
        let seg = Segment {
            start_ms: 100,
            speech_end_ms: 900,
            samples: Vec::new(),
        };
        let id = UtteranceId("u1".into());
        let h = crate::model::Heard::new("scroll down", Some(0.9));
        let mut t = Utterances::new();
        let effects: Vec<Effect> = events_of(&id, &seg, &Verdict::Heard(h.clone()))
            .into_iter()
            .flat_map(|e| t.apply(e))
            .collect();
        assert!(matches!(effects.as_slice(), [Effect::Admit(u)] if u.heard == vec![h.clone()]));
        // Stop: the stop path, and the utterance is finished (a later final is refused).
        let id2 = UtteranceId("u2".into());
        let effects: Vec<Effect> = events_of(&id2, &seg, &Verdict::Stop)
            .into_iter()
            .flat_map(|e| t.apply(e))
            .collect();
        assert_eq!(effects, vec![Effect::Stop]);
        assert!(t
            .apply(VoiceEvent::Final {
                utterance: id2,
                heard: vec![h.clone()]
            })
            .is_empty());
        // Not speech: nothing at all.
        let id3 = UtteranceId("u3".into());
        let effects: Vec<Effect> = events_of(&id3, &seg, &Verdict::NotSpeech("noise".into()))
            .into_iter()
            .flat_map(|e| t.apply(e))
            .collect();
        assert!(effects.is_empty(), "{effects:?}");
        let effects: Vec<Effect> = events_of(
            &UtteranceId("u4".into()),
            &seg,
            &Verdict::NotUnderstood("loop".into()),
        )
        .into_iter()
        .flat_map(|e| t.apply(e))
        .collect();
        assert!(
            matches!(effects.as_slice(), [Effect::NotUnderstood { reason, .. }] if reason == "loop")
        );
    }

    #[test]
    fn the_prompt_is_the_screens_labels_bounded() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(prompt(&[]), VOCABULARY);
        assert_eq!(prompt(&s(&["", "12", "  "])), VOCABULARY);
        assert_eq!(
            prompt(&s(&[
                "MICKE desk",
                " micke  DESK ",
                "",
                "12",
                "Add to cart"
            ])),
            "On screen: MICKE desk, Add to cart."
        );
        let many: Vec<String> = (0..100).map(|i| format!("label number {i}")).collect();
        let p = prompt(&many);
        assert!(p.len() <= MAX_PROMPT_CHARS + 20, "{}", p.len());
        assert!(p.matches(", ").count() < MAX_PROMPT_LABELS);
    }

    #[test]
    fn only_requests_are_addressed_to_circe_unless_it_asked() {
        // (words, an interaction is live, it asks) → addressed.
        let table = [
            ("scroll down", false, false, true),
            ("open the comments on the third story", false, false, true),
            ("add the MICKE desk to my cart", false, false, true),
            ("what's the weather in Pune", false, false, true),
            ("my grandmother baked bread on sunday", false, false, false),
            ("my grandmother baked bread on sunday", true, false, false),
            ("Pune", false, false, false),
            ("Pune", true, true, true),
            // A correction or a cancel is about the live interaction, and only then.
            ("Actually, in Paris.", true, false, true),
            ("No, I meant Mumbai", true, false, true),
            ("never mind", true, false, true),
            ("Actually, in Paris.", false, false, false),
        ];
        for (text, live, asking, want) in table {
            assert_eq!(addressed(text, live, asking).is_ok(), want, "{text}");
        }
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        assert_eq!(percentiles(&[]), None);
        assert_eq!(percentiles(&[7]), Some((7, 7)));
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentiles(&v), Some((50, 95)));
        assert_eq!(percentiles(&[30, 10, 20]), Some((20, 30)));
        let s = stats(&[
            (Phase::Admission, 5),
            (Phase::Admission, 9),
            (Phase::Cessation, 3),
        ]);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].phase, s[0].count, s[0].p50_ms, s[0].p95_ms),
            (Phase::Admission, 2, 5, 9)
        );
    }

    /// A recogniser that says what it is told, one answer per call.
    struct Scripted(std::collections::VecDeque<Recognition>);

    impl Recognizer for Scripted {
        fn recognize(&mut self, _: &[i16], labels: &[String]) -> anyhow::Result<Recognition> {
            assert!(labels.is_empty(), "no screen, no labels");
            self.0
                .pop_front()
                .ok_or_else(|| anyhow::anyhow!("nothing scripted"))
        }
    }

    #[derive(Default)]
    struct FakeSpeaker {
        playing: std::sync::atomic::AtomicBool,
        said: Mutex<Vec<String>>,
        stops: AtomicU64,
    }

    impl Speaker for FakeSpeaker {
        fn say(&self, text: &str) {
            self.said.lock().unwrap().push(text.into());
            self.playing.store(true, Ordering::SeqCst);
        }
        fn stop(&self) {
            self.stops.fetch_add(1, Ordering::SeqCst);
            self.playing.store(false, Ordering::SeqCst);
        }
        fn playing(&self) -> bool {
            self.playing.load(Ordering::SeqCst)
        }
    }

    #[derive(Default)]
    struct Log(Mutex<Vec<(Phase, u64)>>);

    impl LatencyLog for Log {
        fn record(&self, _: &str, phase: Phase, ms: u64) {
            self.0.lock().unwrap().push((phase, ms));
        }
        fn all(&self) -> anyhow::Result<Vec<(Phase, u64)>> {
            Ok(self.0.lock().unwrap().clone())
        }
    }

    /// Two bursts of tone: two utterances for the VAD.
    fn two_utterances() -> Vec<u8> {
        let tone = |ms: usize, amp: f32| -> Vec<i16> {
            (0..ms * audio::PER_MS)
                .map(|i| (amp * (i as f32 * 0.09).sin() * 32767.0) as i16)
                .collect()
        };
        let samples = [
            tone(400, 0.0),
            tone(700, 0.3),
            tone(900, 0.0),
            tone(700, 0.3),
            tone(900, 0.0),
        ]
        .concat();
        audio::wav_bytes(&samples)
    }

    #[tokio::test]
    async fn the_session_admits_stops_and_refuses_through_the_engine() {
        let engine = Engine::start(
            "desk".into(),
            crate::store::Store::open_in_memory().unwrap(),
            crate::executor::Executors::default(),
            crate::config::Limits::default(),
        )
        .unwrap();
        let script = std::sync::Arc::new(Mutex::new(Some(vec![
            rec("Scroll down.", 0.01, -0.2),
            rec("my grandmother baked bread on sunday", 0.01, -0.3),
            rec("Stop.", 0.0, -0.1),
            rec("(upbeat music)", 0.2, -0.9),
        ])));
        let load: Loader = Box::new(move || {
            let script = script.lock().unwrap().take().expect("loaded once");
            Ok(Box::new(Scripted(script.into())) as Box<dyn Recognizer>)
        });
        let log = Arc::new(Log::default());
        let session = Arc::new(VoiceSession::new(
            engine.clone(),
            load,
            Arc::new(NoScreen),
            log.clone(),
        ));
        let speaker = Arc::new(FakeSpeaker::default());
        session.set_speaker(Some(speaker.clone()));

        // Bad audio: refused, nothing loaded, nothing changed.
        let bad = session.hear_wav(b"RIFF", HearOptions::default()).await;
        assert_eq!(bad.unwrap_err().code, ErrorCode::BadAudio);
        assert!(engine.state(0).await.unwrap().interaction.is_none());

        // "Scroll down." is admitted as voice input with its hypothesis; the unrelated sentence is not.
        let hearings = session
            .hear_wav(&two_utterances(), HearOptions::default())
            .await
            .unwrap();
        assert_eq!(hearings.len(), 2, "{hearings:?}");
        match &hearings[0].outcome {
            Outcome::Admitted { text, submitted } => {
                assert_eq!(text, "Scroll down.");
                assert_eq!(submitted.interaction.mode, crate::model::InputMode::Voice);
                assert_eq!(submitted.interaction.heard[0].text, "Scroll down.");
                assert_eq!(submitted.interaction.heard[0].confidence, Some(819));
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&hearings[1].outcome, Outcome::NotUnderstood { .. }),
            "{:?}",
            hearings[1]
        );
        assert_eq!(
            speaker.said.lock().unwrap().last().map(String::as_str),
            Some("Not understood.")
        );
        let interaction = engine.state(0).await.unwrap().interaction.unwrap();
        assert_eq!(interaction.request, "Scroll down.");
        assert!(log
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|(p, _)| *p == Phase::Admission));

        // Circe is speaking and the person starts talking: playback stops at once.
        speaker.say("Done.");
        let stops = speaker.stops.load(Ordering::SeqCst);
        session.speech_started();
        assert!(!speaker.playing());
        assert_eq!(speaker.stops.load(Ordering::SeqCst), stops + 1);
        // Again: every start of speech stops Circe's speech, not only the first.
        speaker.say("Done.");
        session.speech_started();
        assert!(!speaker.playing());
        assert_eq!(speaker.stops.load(Ordering::SeqCst), stops + 2);
        // Speech while Circe is silent stops nothing.
        session.speech_started();
        assert_eq!(speaker.stops.load(Ordering::SeqCst), stops + 2);

        // "Stop." goes the stop path; music is no utterance at all.
        let hearings = session
            .hear_wav(&two_utterances(), HearOptions::default())
            .await
            .unwrap();
        assert!(
            matches!(
                &hearings[0].outcome,
                Outcome::Stopped { .. } | Outcome::NothingToStop { .. }
            ),
            "{:?}",
            hearings[0]
        );
        assert!(
            matches!(&hearings[1].outcome, Outcome::NotSpeech { .. }),
            "{:?}",
            hearings[1]
        );
        // Only the one request became an interaction.
        assert_eq!(
            engine.state(0).await.unwrap().interaction.unwrap().id,
            interaction.id
        );
    }
}

//! The OpenAI Realtime adapter (GA protocol over WebSocket): a voice provider that reports
//! [`VoiceEvent`]s, in transcription sessions (`?intent=transcription`) and speech-to-speech
//! sessions (`?model=…`). The protocol mapping is in docs/VOICE-REALTIME.md.
//!
//! - Utterance id = the server's `item_id`. Partial text comes from
//!   `conversation.item.input_audio_transcription.delta` (display only); an utterance is final
//!   **only** on `…transcription.completed`, with its `transcript` (never the concatenated
//!   deltas); `…transcription.failed` is [`VoiceEvent::Failed`]. Finals are released in
//!   conversation order (`previous_item_id`), not in arrival order ([`TurnOrder`], pure).
//! - Turn detection by the server (`server_vad`, `semantic_vad`) or by Circe (`manual`:
//!   `turn_detection: null` and [`Realtime::commit`]); speech-to-speech sessions use
//!   `create_response: false` (the daemon decides what Circe says) and
//!   `interrupt_response: true`.
//! - The screen's labels bias recognition: [`Realtime::labels`] sends a `session.update` with
//!   `audio.input.transcription.prompt` (or `keywords` for the models that take them) whenever
//!   they change, and again after a reconnect.
//! - Audio goes up as base64 PCM16 24 kHz (`input_audio_buffer.append`), resampled from 16 kHz
//!   when needed; the reply's audio plays through a [`Playback`].
//! - Barge-in (speech started while Circe speaks, or [`Realtime::barge_in`]): stop the local
//!   playback at once, then `response.cancel` and `conversation.item.truncate` at the *played*
//!   position.
//! - Reconnect with exponential backoff; audio that was waiting when the connection dropped (or
//!   that arrives while it is down) is dropped, never sent to the next session; utterances already
//!   final are refused by the tracker ([`super::Utterances`]).
//!
//! **Invariants:** the API key is read from the environment variable named in the config, sent
//! only as the `Authorization` header (marked sensitive) and never logged or displayed
//! ([`ApiKey`]'s `Debug` hides it); plain `ws://` only to loopback; every queue and message is
//! bounded.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use futures_util::{SinkExt as _, StreamExt as _};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::playback::Playback;
use super::resample::Resampler;
use super::{Heard, UtteranceId, VoiceEvent};

/// Commands waiting for the adapter (audio chunks included); beyond this audio is refused.
pub const COMMAND_QUEUE: usize = 64;
/// Events waiting for the voice session.
pub const EVENT_QUEUE: usize = 256;
/// The most audio one `input_audio_buffer.append` carries (1 s at 24 kHz, 64 KiB in base64).
pub const MAX_APPEND_SAMPLES: usize = 24_000;
/// The most samples one call hands the adapter (10 s at 24 kHz).
pub const MAX_CHUNK_SAMPLES: usize = 240_000;
/// The longest partial text kept for one utterance, in characters.
pub const MAX_PARTIAL_CHARS: usize = 4_000;
/// The longest transcription prompt, in characters.
pub const MAX_PROMPT_CHARS: usize = 1_000;
/// User and assistant items remembered for ordering.
pub const MAX_ITEMS: usize = 256;

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// `[voice.realtime]`: every setting defaulted, unknown keys refused.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RealtimeConfig {
    /// `transcription` (the default: speech in, text out) or `speech` (speech-to-speech: the
    /// reply is spoken by the provider).
    pub session: SessionKind,
    /// The WebSocket endpoint, without query: `wss://api.openai.com/v1/realtime`. Plain `ws://`
    /// is accepted for loopback only (tests, a local proxy).
    pub base_url: String,
    /// The speech-to-speech model (`?model=`), for `session = "speech"`.
    pub model: String,
    /// The transcription model (`audio.input.transcription.model`).
    pub transcription_model: String,
    /// ISO-639-1; empty for automatic.
    pub language: String,
    /// The name of the environment variable holding the API key (the key is never in a file).
    pub api_key_env: String,
    /// `server_vad` (the default), `semantic_vad`, or `manual` (`turn_detection: null`, Circe
    /// commits each turn). Some transcription models take only `manual`.
    pub turn_detection: TurnDetection,
    /// `server_vad`: activation threshold (0..1).
    pub vad_threshold: f32,
    /// `server_vad`: audio kept before the detected start.
    pub prefix_padding_ms: u64,
    /// `server_vad`: the silence that ends a turn.
    pub silence_duration_ms: u64,
    /// `semantic_vad`: `low`, `medium`, `high` or `auto`.
    pub eagerness: String,
    /// How the screen's labels bias recognition: `auto` (by model), `prompt`, `keywords`, `none`.
    pub bias: Bias,
    /// The most labels sent.
    pub max_labels: usize,
    /// `speech`: the provider's voice.
    pub voice: String,
    /// `speech`: standing instructions (what to say is always given per reply).
    pub instructions: String,
    /// The largest message accepted from the server, in bytes.
    pub max_message_bytes: usize,
    /// Reconnect backoff: first and longest wait.
    pub reconnect_min_ms: u64,
    pub reconnect_max_ms: u64,
}

impl Default for RealtimeConfig {
    fn default() -> Self {
        RealtimeConfig {
            session: SessionKind::Transcription,
            base_url: "wss://api.openai.com/v1/realtime".into(),
            model: "gpt-realtime".into(),
            transcription_model: "gpt-4o-transcribe".into(),
            language: "en".into(),
            api_key_env: "OPENAI_API_KEY".into(),
            turn_detection: TurnDetection::ServerVad,
            vad_threshold: 0.5,
            prefix_padding_ms: 300,
            silence_duration_ms: 500,
            eagerness: "auto".into(),
            bias: Bias::Auto,
            max_labels: 40,
            voice: "marin".into(),
            instructions: "You are the voice of a remote control. Say only what you are asked to say, word for word.".into(),
            max_message_bytes: 4 * 1024 * 1024,
            reconnect_min_ms: 250,
            reconnect_max_ms: 30_000,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    Transcription,
    Speech,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnDetection {
    ServerVad,
    SemanticVad,
    Manual,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bias {
    Auto,
    Prompt,
    Keywords,
    None,
}

/// Why the adapter could not do something, in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RealtimeError {
    #[error("[voice.realtime] {0}")]
    Config(String),
    #[error("the environment variable {var} (named by [voice.realtime] api_key_env) is not set or not a valid key")]
    NoApiKey { var: String },
    #[error("cannot connect to {url}: {why}")]
    Connect { url: String, why: String },
    #[error("the Realtime server at {url} refused the connection: HTTP {status}")]
    Refused { url: String, status: u16 },
    #[error("the Realtime connection was lost: {0}")]
    Lost(String),
    #[error("a message from the Realtime server was refused: {0}")]
    Protocol(String),
    #[error("the Realtime server reported an error ({code}): {message}")]
    Server { code: String, message: String },
    #[error("the Realtime audio queue is full: {samples} samples dropped")]
    QueueFull { samples: usize },
    #[error("{samples} samples in one chunk is more than {MAX_CHUNK_SAMPLES}")]
    ChunkTooLarge { samples: usize },
    #[error("this is a transcription session: Circe's replies are spoken locally")]
    NotSpeech,
    #[error("the Realtime adapter has stopped")]
    Stopped,
}

impl RealtimeError {
    /// Whether trying again cannot help (a refused key, a bad configuration).
    pub fn is_fatal(&self) -> bool {
        match self {
            RealtimeError::Config(_) | RealtimeError::NoApiKey { .. } => true,
            RealtimeError::Refused { status, .. } => matches!(status, 401 | 403 | 404),
            _ => false,
        }
    }
}

/// The API key. Its `Debug` shows nothing of it and it has no `Display`.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key from the environment variable `var`.
    pub fn from_env(var: &str) -> Result<ApiKey, RealtimeError> {
        match std::env::var(var) {
            Ok(key) => ApiKey::new(key).map_err(|_| RealtimeError::NoApiKey { var: var.into() }),
            Err(_) => Err(RealtimeError::NoApiKey { var: var.into() }),
        }
    }

    /// A key given directly (tests); refused when empty or not a valid header value.
    pub fn new(key: String) -> Result<ApiKey, RealtimeError> {
        let key = key.trim().to_string();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(RealtimeError::NoApiKey {
                var: "(given)".into(),
            });
        }
        Ok(ApiKey(key))
    }

    fn header(&self) -> tungstenite::http::HeaderValue {
        let mut value = tungstenite::http::HeaderValue::from_str(&format!("Bearer {}", self.0))
            .expect("checked in ApiKey::new");
        value.set_sensitive(true);
        value
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(hidden)")
    }
}

impl RealtimeConfig {
    /// The URL of a session: `?intent=transcription` (no model) or `?model=…`.
    pub fn session_url(&self) -> Result<String, RealtimeError> {
        let base = self.base_url.trim();
        let scheme_ok = base.starts_with("wss://") || base.starts_with("ws://");
        if !scheme_ok || base.contains('?') || base.contains('#') {
            return Err(RealtimeError::Config(format!(
                "base_url {base:?} must be a ws:// or wss:// URL without a query"
            )));
        }
        let query = match self.session {
            SessionKind::Transcription => "intent=transcription".to_string(),
            SessionKind::Speech => {
                if self.model.is_empty()
                    || !self
                        .model
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
                {
                    return Err(RealtimeError::Config(format!(
                        "model {:?} is not a model name",
                        self.model
                    )));
                }
                format!("model={}", self.model)
            }
        };
        Ok(format!("{base}?{query}"))
    }

    /// Check what can be checked before connecting.
    pub fn check(&self) -> Result<(), RealtimeError> {
        self.session_url()?;
        if self.max_labels == 0 || self.max_message_bytes < 64 * 1024 {
            return Err(RealtimeError::Config(
                "max_labels must be at least 1 and max_message_bytes at least 65536".into(),
            ));
        }
        if self.reconnect_min_ms == 0 || self.reconnect_max_ms < self.reconnect_min_ms {
            return Err(RealtimeError::Config(
                "reconnect_min_ms must be positive and at most reconnect_max_ms".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.vad_threshold) {
            return Err(RealtimeError::Config(
                "vad_threshold must be between 0 and 1".into(),
            ));
        }
        Ok(())
    }

    /// How labels bias this transcription model.
    pub fn effective_bias(&self) -> Bias {
        match self.bias {
            Bias::Auto => {
                let m = self.transcription_model.as_str();
                if m.starts_with("gpt-realtime-whisper") {
                    Bias::None
                } else if m.starts_with("gpt-transcribe") || m.starts_with("gpt-live-transcribe") {
                    Bias::Keywords
                } else {
                    Bias::Prompt
                }
            }
            other => other,
        }
    }

    /// Backoff before reconnect attempt `attempt` (1, 2, …): doubling, capped.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u64 << attempt.saturating_sub(1).min(20);
        Duration::from_millis(
            self.reconnect_min_ms
                .saturating_mul(factor)
                .min(self.reconnect_max_ms),
        )
    }

    fn kind(&self) -> &'static str {
        match self.session {
            SessionKind::Transcription => "transcription",
            SessionKind::Speech => "realtime",
        }
    }

    /// `audio.input.transcription` with the labels.
    pub fn transcription(&self, labels: &[String]) -> Value {
        let mut t = json!({ "model": self.transcription_model });
        if !self.language.is_empty() {
            t["language"] = json!(self.language);
        }
        match self.effective_bias() {
            Bias::Prompt => {
                let list = labels.join(", ");
                let prompt = if list.is_empty() {
                    String::new()
                } else if self.transcription_model.starts_with("whisper") {
                    // whisper-1 takes a list of keywords.
                    list
                } else {
                    format!("Expect these on-screen labels: {list}")
                };
                t["prompt"] = json!(truncate_chars(&prompt, MAX_PROMPT_CHARS));
            }
            Bias::Keywords => t["keywords"] = json!(labels),
            Bias::None | Bias::Auto => {}
        }
        t
    }

    fn turn_detection_json(&self) -> Value {
        let mut td = match self.turn_detection {
            TurnDetection::Manual => return Value::Null,
            TurnDetection::ServerVad => json!({
                "type": "server_vad",
                "threshold": self.vad_threshold,
                "prefix_padding_ms": self.prefix_padding_ms,
                "silence_duration_ms": self.silence_duration_ms,
            }),
            TurnDetection::SemanticVad => json!({
                "type": "semantic_vad",
                "eagerness": self.eagerness,
            }),
        };
        if self.session == SessionKind::Speech {
            td["create_response"] = json!(false);
            td["interrupt_response"] = json!(true);
        }
        td
    }

    /// The whole session configuration, sent right after connecting.
    pub fn session_update(&self, labels: &[String]) -> Value {
        let format = json!({ "type": "audio/pcm", "rate": 24_000 });
        let input = json!({
            "format": format,
            "transcription": self.transcription(labels),
            "turn_detection": self.turn_detection_json(),
        });
        let session = match self.session {
            SessionKind::Transcription => json!({
                "type": "transcription",
                "audio": { "input": input },
                "include": ["item.input_audio_transcription.logprobs"],
            }),
            SessionKind::Speech => json!({
                "type": "realtime",
                "output_modalities": ["audio"],
                "instructions": self.instructions,
                "audio": {
                    "input": input,
                    "output": { "format": format, "voice": self.voice },
                },
                "include": ["item.input_audio_transcription.logprobs"],
            }),
        };
        json!({ "type": "session.update", "session": session })
    }

    /// Only the transcription settings, when the screen's labels change.
    pub fn labels_update(&self, labels: &[String]) -> Value {
        json!({
            "type": "session.update",
            "session": {
                "type": self.kind(),
                "audio": { "input": { "transcription": self.transcription(labels) } },
            },
        })
    }
}

fn truncate_chars(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// The labels worth sending: trimmed, non-empty, without duplicates (ignoring case), at most
/// `max`, in screen order.
pub fn normalize_labels(labels: &[String], max: usize) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    labels
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty() && l.chars().count() <= 80)
        .filter(|l| seen.insert(l.to_lowercase()))
        .take(max)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Conversation order (pure)

#[derive(Clone, Debug, PartialEq, Eq)]
enum UserState {
    /// Committed, transcription pending.
    Open,
    /// Transcribed (or failed), waiting for an earlier turn.
    Ready(VoiceEvent),
    /// Released.
    Done,
}

/// Releases each user turn's final (or failure) in conversation order: a turn waits while the
/// nearest earlier user turn (following `previous_item_id` through assistant items) is still
/// being transcribed. Pure; bounded by [`MAX_ITEMS`].
#[derive(Debug, Default)]
pub struct TurnOrder {
    /// item → the item before it (`None`: the first of the conversation).
    previous: HashMap<String, Option<String>>,
    user: HashMap<String, UserState>,
    /// Items in the order first seen, for eviction and for a stable release order.
    seen: VecDeque<String>,
}

impl TurnOrder {
    pub fn new() -> TurnOrder {
        TurnOrder::default()
    }

    fn remember(&mut self, item: &str) {
        if self.previous.contains_key(item) || self.user.contains_key(item) {
            return;
        }
        self.seen.push_back(item.to_string());
        while self.seen.len() > MAX_ITEMS {
            if let Some(old) = self.seen.pop_front() {
                // A forgotten unfinished turn holds nothing back any more.
                self.previous.remove(&old);
                self.user.remove(&old);
            }
        }
    }

    /// `item` follows `previous` in the conversation (`committed`, `conversation.item.added`).
    pub fn link(&mut self, item: &str, previous: Option<&str>) {
        self.remember(item);
        self.previous
            .insert(item.to_string(), previous.map(str::to_string));
    }

    /// `item` is the person's turn, now being transcribed.
    pub fn user(&mut self, item: &str) {
        self.remember(item);
        self.user.entry(item.to_string()).or_insert(UserState::Open);
    }

    /// The turn's last word (a `Final` or `Failed`); returns what can be released now, in order.
    pub fn finish(&mut self, item: &str, event: VoiceEvent) -> Vec<VoiceEvent> {
        match self.user.get(item) {
            // A turn never committed here (or already released): nothing to wait for.
            None | Some(UserState::Done) => {
                let mut out = vec![event];
                out.extend(self.release());
                out
            }
            Some(UserState::Open) | Some(UserState::Ready(_)) => {
                self.user.insert(item.to_string(), UserState::Ready(event));
                self.release()
            }
        }
    }

    /// The connection was lost: turns still being transcribed never will be. Each becomes a
    /// failure, and everything waiting is released in order.
    pub fn lost(&mut self, why: &str) -> Vec<VoiceEvent> {
        let open: Vec<String> = self
            .seen
            .iter()
            .filter(|i| self.user.get(*i) == Some(&UserState::Open))
            .cloned()
            .collect();
        for item in open {
            self.user.insert(
                item.clone(),
                UserState::Ready(VoiceEvent::Failed {
                    utterance: UtteranceId(item),
                    message: why.to_string(),
                }),
            );
        }
        let out = self.release();
        self.previous.clear();
        self.user.clear();
        self.seen.clear();
        out
    }

    fn waits(&self, item: &str) -> bool {
        let mut at = self.previous.get(item).cloned().flatten();
        for _ in 0..MAX_ITEMS {
            let Some(p) = at else { return false };
            match self.user.get(&p) {
                Some(UserState::Open | UserState::Ready(_)) => return true,
                Some(UserState::Done) => return false,
                None => at = self.previous.get(&p).cloned().flatten(),
            }
        }
        false
    }

    fn release(&mut self) -> Vec<VoiceEvent> {
        let mut out = Vec::new();
        loop {
            let next = self
                .seen
                .iter()
                .find(|i| matches!(self.user.get(*i), Some(UserState::Ready(_))) && !self.waits(i));
            let Some(item) = next.cloned() else { break };
            if let Some(UserState::Ready(e)) = self.user.insert(item, UserState::Done) {
                out.push(e);
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Server events

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum ServerEvent {
    #[serde(rename = "input_audio_buffer.speech_started")]
    SpeechStarted {
        item_id: String,
        #[serde(default)]
        audio_start_ms: u64,
    },
    #[serde(rename = "input_audio_buffer.speech_stopped")]
    SpeechStopped {
        item_id: String,
        #[serde(default)]
        audio_end_ms: u64,
    },
    #[serde(rename = "input_audio_buffer.committed")]
    Committed {
        item_id: String,
        #[serde(default)]
        previous_item_id: Option<String>,
    },
    #[serde(
        rename = "conversation.item.added",
        alias = "conversation.item.created"
    )]
    ItemAdded {
        #[serde(default)]
        previous_item_id: Option<String>,
        item: Item,
    },
    #[serde(rename = "conversation.item.input_audio_transcription.delta")]
    TranscriptionDelta {
        item_id: String,
        #[serde(default)]
        delta: Option<String>,
    },
    #[serde(rename = "conversation.item.input_audio_transcription.completed")]
    TranscriptionCompleted {
        item_id: String,
        transcript: String,
        #[serde(default)]
        logprobs: Option<Vec<Logprob>>,
    },
    #[serde(rename = "conversation.item.input_audio_transcription.failed")]
    TranscriptionFailed {
        item_id: String,
        #[serde(default)]
        error: Option<ErrorBody>,
    },
    #[serde(rename = "response.created")]
    ResponseCreated { response: Response },
    #[serde(rename = "response.output_audio.delta")]
    OutputAudioDelta {
        #[serde(default)]
        response_id: Option<String>,
        item_id: String,
        delta: String,
    },
    #[serde(rename = "response.done")]
    ResponseDone { response: Response },
    #[serde(rename = "conversation.item.truncated")]
    Truncated {
        item_id: String,
        #[serde(default)]
        audio_end_ms: u64,
    },
    #[serde(rename = "error")]
    Error { error: ErrorBody },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct Item {
    id: String,
    #[serde(default)]
    role: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Logprob {
    logprob: f64,
}

#[derive(Debug, Deserialize)]
struct Response {
    id: String,
    #[serde(default)]
    status: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ErrorBody {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    event_id: Option<String>,
}

impl ErrorBody {
    fn code(&self) -> String {
        self.code
            .clone()
            .or_else(|| self.kind.clone())
            .unwrap_or_else(|| "unknown".into())
    }

    fn message(&self) -> String {
        self.message.clone().unwrap_or_default()
    }
}

/// The transcription's confidence: the geometric mean of its token probabilities.
fn confidence(logprobs: &Option<Vec<Logprob>>) -> Option<f32> {
    let lp = logprobs.as_ref().filter(|l| !l.is_empty())?;
    let mean = lp.iter().map(|l| l.logprob).sum::<f64>() / lp.len() as f64;
    Some(mean.exp() as f32)
}

// ---------------------------------------------------------------------------------------------
// The adapter

/// What the adapter reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RealtimeEvent {
    /// A provider event for the utterance tracker.
    Voice(VoiceEvent),
    /// A session is open and configured (`connection` counts from 1).
    Connected { connection: u32 },
    /// The connection is gone; the next attempt is in `retry_in_ms`.
    Disconnected {
        error: RealtimeError,
        retry_in_ms: u64,
    },
    /// Circe's speech was stopped for a barge-in, `played_ms` into `item`.
    PlaybackStopped {
        item: Option<String>,
        played_ms: u64,
    },
    /// The server reported an error that ends nothing.
    ServerError(RealtimeError),
    /// The adapter gave up (a refused key, a bad configuration) or was closed.
    Ended(Option<RealtimeError>),
}

enum Command {
    Audio16k(Vec<i16>),
    Audio24k(Vec<i16>),
    Commit,
    Clear,
    Labels(Vec<String>),
    Say(String),
    BargeIn,
    Close,
}

/// The running adapter: hand it audio, labels and replies; read its events from the receiver
/// [`Realtime::start`] returned.
pub struct Realtime {
    commands: mpsc::Sender<Command>,
    session: SessionKind,
}

impl Realtime {
    /// Check the config and start connecting (needs a tokio runtime).
    pub fn start(
        config: RealtimeConfig,
        key: ApiKey,
        playback: Arc<dyn Playback>,
    ) -> Result<(Realtime, mpsc::Receiver<RealtimeEvent>), RealtimeError> {
        config.check()?;
        let (commands, rx) = mpsc::channel(COMMAND_QUEUE);
        let (events, events_rx) = mpsc::channel(EVENT_QUEUE);
        let session = config.session;
        let adapter = Adapter {
            config,
            key,
            playback,
            rx,
            events,
            labels: Vec::new(),
            resampler: Resampler::up_16k_to_24k(),
            order: TurnOrder::new(),
            partials: HashMap::new(),
            response: None,
            cancelled: None,
            playing_item: None,
            uncommitted: 0,
            event_counter: 0,
            benign: VecDeque::new(),
        };
        tokio::spawn(adapter.run());
        Ok((Realtime { commands, session }, events_rx))
    }

    fn audio(&self, command: Command, samples: usize) -> Result<(), RealtimeError> {
        if samples > MAX_CHUNK_SAMPLES {
            return Err(RealtimeError::ChunkTooLarge { samples });
        }
        self.commands.try_send(command).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => RealtimeError::QueueFull { samples },
            mpsc::error::TrySendError::Closed(_) => RealtimeError::Stopped,
        })
    }

    /// Microphone audio, PCM16 mono 16 kHz (resampled to 24 kHz). Never waits: a full queue
    /// drops the chunk with [`RealtimeError::QueueFull`].
    pub fn audio_16k(&self, pcm: &[i16]) -> Result<(), RealtimeError> {
        self.audio(Command::Audio16k(pcm.to_vec()), pcm.len())
    }

    /// Microphone audio already at 24 kHz.
    pub fn audio_24k(&self, pcm: &[i16]) -> Result<(), RealtimeError> {
        self.audio(Command::Audio24k(pcm.to_vec()), pcm.len())
    }

    async fn send(&self, command: Command) -> Result<(), RealtimeError> {
        self.commands
            .send(command)
            .await
            .map_err(|_| RealtimeError::Stopped)
    }

    /// Manual turn detection: the turn ended; its audio (the resampler's tail included) is
    /// committed. Ignored when nothing was sent since the last commit.
    pub async fn commit(&self) -> Result<(), RealtimeError> {
        self.send(Command::Commit).await
    }

    /// Drop the audio sent since the last commit.
    pub async fn clear(&self) -> Result<(), RealtimeError> {
        self.send(Command::Clear).await
    }

    /// The screen changed: these labels bias recognition from now on.
    pub async fn labels(&self, labels: Vec<String>) -> Result<(), RealtimeError> {
        self.send(Command::Labels(labels)).await
    }

    /// Speech-to-speech: have the provider say `text` (rendered by the daemon from the
    /// operation's state; the provider adds nothing).
    pub async fn say(&self, text: impl Into<String>) -> Result<(), RealtimeError> {
        if self.session != SessionKind::Speech {
            return Err(RealtimeError::NotSpeech);
        }
        self.send(Command::Say(text.into())).await
    }

    /// A local detector heard the person (or "stop"): barge in as if the server had.
    pub async fn barge_in(&self) -> Result<(), RealtimeError> {
        self.send(Command::BargeIn).await
    }

    /// Close the session; the adapter ends with [`RealtimeEvent::Ended`]`(None)`.
    pub async fn close(&self) -> Result<(), RealtimeError> {
        self.send(Command::Close).await
    }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
type WsSink = futures_util::stream::SplitSink<Ws, Message>;

/// How a session ended.
enum End {
    Closed,
    Lost(RealtimeError),
}

struct Adapter {
    config: RealtimeConfig,
    key: ApiKey,
    playback: Arc<dyn Playback>,
    rx: mpsc::Receiver<Command>,
    events: mpsc::Sender<RealtimeEvent>,
    labels: Vec<String>,
    resampler: Resampler,
    order: TurnOrder,
    /// Running partial text per open utterance (bounded).
    partials: HashMap<String, String>,
    /// The response in progress, as far as we know.
    response: Option<String>,
    /// A response we cancelled: its late audio is not played.
    cancelled: Option<String>,
    /// The assistant item whose audio is in the playback.
    playing_item: Option<String>,
    /// Samples appended since the last commit.
    uncommitted: u64,
    event_counter: u64,
    /// Client event ids whose errors are expected (a cancel after the server already stopped).
    benign: VecDeque<String>,
}

impl Adapter {
    async fn emit(&self, event: RealtimeEvent) {
        let _ = self.events.send(event).await;
    }

    async fn run(mut self) {
        let mut connection = 0u32;
        let mut failures = 0u32;
        loop {
            connection += 1;
            let url = self.config.session_url().unwrap_or_default();
            tracing::info!(url = %url, connection, "realtime: connecting");
            let end = match connect(&self.config, &self.key).await {
                Ok(ws) => {
                    failures = 0;
                    self.session(ws, connection).await
                }
                Err(e) => End::Lost(e),
            };
            let error = match end {
                End::Closed => {
                    tracing::info!("realtime: closed");
                    self.emit(RealtimeEvent::Ended(None)).await;
                    return;
                }
                End::Lost(e) => e,
            };
            self.after_loss(&error.to_string()).await;
            if error.is_fatal() {
                tracing::warn!(error = %error, "realtime: giving up");
                self.emit(RealtimeEvent::Ended(Some(error))).await;
                return;
            }
            failures += 1;
            let wait = self.config.backoff(failures);
            tracing::warn!(error = %error, retry_in_ms = wait.as_millis() as u64, "realtime: disconnected");
            self.emit(RealtimeEvent::Disconnected {
                error,
                retry_in_ms: wait.as_millis() as u64,
            })
            .await;
            if self.wait_offline(wait).await {
                self.emit(RealtimeEvent::Ended(None)).await;
                return;
            }
        }
    }

    /// Forget everything tied to the lost session: its open turns fail, waiting finals are
    /// released, queued audio is dropped.
    async fn after_loss(&mut self, why: &str) {
        for e in self.order.lost(&format!("connection lost: {why}")) {
            self.emit(RealtimeEvent::Voice(e)).await;
        }
        self.partials.clear();
        self.response = None;
        self.cancelled = None;
        self.playing_item = None;
        self.uncommitted = 0;
        self.resampler.reset();
        self.benign.clear();
        let mut dropped = 0usize;
        while let Ok(c) = self.rx.try_recv() {
            dropped += self.offline(c);
        }
        if dropped > 0 {
            tracing::debug!(
                samples = dropped,
                "realtime: audio from before the drop not sent"
            );
        }
    }

    /// A command while disconnected: audio is dropped, labels kept. Returns the samples dropped
    /// (`usize::MAX` for `Close`).
    fn offline(&mut self, command: Command) -> usize {
        match command {
            Command::Audio16k(a) | Command::Audio24k(a) => a.len(),
            Command::Labels(l) => {
                self.labels = normalize_labels(&l, self.config.max_labels);
                0
            }
            Command::BargeIn => {
                self.playback.stop();
                0
            }
            Command::Commit | Command::Clear | Command::Say(_) => 0,
            Command::Close => usize::MAX,
        }
    }

    /// Wait out the backoff; true when closed meanwhile.
    async fn wait_offline(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::sleep(wait);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                _ = &mut deadline => return false,
                c = self.rx.recv() => match c {
                    None => return true,
                    Some(c) => if self.offline(c) == usize::MAX { return true },
                },
            }
        }
    }

    fn event_id(&mut self) -> String {
        self.event_counter += 1;
        format!("circe_{}", self.event_counter)
    }

    async fn session(&mut self, ws: Ws, connection: u32) -> End {
        let (mut sink, mut stream) = ws.split();
        let update = self.config.session_update(&self.labels);
        if let Err(e) = send(&mut sink, &update).await {
            return End::Lost(e);
        }
        tracing::info!(
            connection,
            kind = self.config.kind(),
            "realtime: session open"
        );
        self.emit(RealtimeEvent::Connected { connection }).await;
        loop {
            tokio::select! {
                message = stream.next() => {
                    let result = match message {
                        None => Err(RealtimeError::Lost("the server closed the connection".into())),
                        Some(Err(e)) => Err(RealtimeError::Lost(e.to_string())),
                        Some(Ok(Message::Text(text))) => self.on_server(text.as_str(), &mut sink).await,
                        Some(Ok(Message::Close(frame))) => Err(RealtimeError::Lost(match frame {
                            Some(f) => format!("closed by the server ({}): {}", u16::from(f.code), f.reason),
                            None => "closed by the server".into(),
                        })),
                        Some(Ok(Message::Binary(_))) => {
                            tracing::debug!("realtime: binary message ignored");
                            Ok(())
                        }
                        Some(Ok(_)) => Ok(()),
                    };
                    if let Err(e) = result {
                        return End::Lost(e);
                    }
                }
                command = self.rx.recv() => {
                    let result = match command {
                        None | Some(Command::Close) => {
                            let _ = sink.send(Message::Close(None)).await;
                            return End::Closed;
                        }
                        Some(c) => self.on_command(c, &mut sink).await,
                    };
                    if let Err(e) = result {
                        return End::Lost(e);
                    }
                }
            }
        }
    }

    async fn append(&mut self, sink: &mut WsSink, pcm: &[i16]) -> Result<(), RealtimeError> {
        for chunk in pcm.chunks(MAX_APPEND_SAMPLES) {
            let mut bytes = Vec::with_capacity(chunk.len() * 2);
            for s in chunk {
                bytes.extend_from_slice(&s.to_le_bytes());
            }
            let audio = base64::engine::general_purpose::STANDARD.encode(&bytes);
            send(
                sink,
                &json!({ "type": "input_audio_buffer.append", "audio": audio }),
            )
            .await?;
            self.uncommitted += chunk.len() as u64;
        }
        Ok(())
    }

    async fn on_command(
        &mut self,
        command: Command,
        sink: &mut WsSink,
    ) -> Result<(), RealtimeError> {
        match command {
            Command::Audio16k(pcm) => {
                let out = self.resampler.process(&pcm);
                self.append(sink, &out).await
            }
            Command::Audio24k(pcm) => self.append(sink, &pcm).await,
            Command::Commit => {
                let tail = self.resampler.flush();
                self.append(sink, &tail).await?;
                if self.uncommitted == 0 {
                    tracing::debug!("realtime: nothing to commit");
                    return Ok(());
                }
                self.uncommitted = 0;
                let id = self.event_id();
                send(
                    sink,
                    &json!({ "type": "input_audio_buffer.commit", "event_id": id }),
                )
                .await
            }
            Command::Clear => {
                self.resampler.reset();
                self.uncommitted = 0;
                send(sink, &json!({ "type": "input_audio_buffer.clear" })).await
            }
            Command::Labels(labels) => {
                let labels = normalize_labels(&labels, self.config.max_labels);
                if labels == self.labels {
                    return Ok(());
                }
                self.labels = labels;
                tracing::debug!(count = self.labels.len(), "realtime: labels changed");
                send(sink, &self.config.labels_update(&self.labels)).await
            }
            Command::Say(text) => {
                let id = self.event_id();
                send(
                    sink,
                    &json!({
                        "type": "response.create",
                        "event_id": id,
                        "response": {
                            "output_modalities": ["audio"],
                            "instructions": format!("Say exactly this, and nothing else: {text}"),
                        },
                    }),
                )
                .await
            }
            Command::BargeIn => self.barge_in(sink).await,
            // Handled by the session loop.
            Command::Close => Ok(()),
        }
    }

    /// Stop Circe's speech at once, then cancel the response and truncate the item at the
    /// played position.
    async fn barge_in(&mut self, sink: &mut WsSink) -> Result<(), RealtimeError> {
        let was_playing = self.playback.is_playing();
        let played_ms = self.playback.stop();
        let item = self.playing_item.take();
        let responding = self.response.is_some();
        if was_playing || responding {
            self.emit(RealtimeEvent::PlaybackStopped {
                item: item.clone(),
                played_ms,
            })
            .await;
        }
        if let Some(response) = self.response.take() {
            let id = self.event_id();
            self.remember_benign(id.clone());
            self.cancelled = Some(response.clone());
            send(
                sink,
                &json!({ "type": "response.cancel", "event_id": id, "response_id": response }),
            )
            .await?;
        }
        if let Some(item) = item {
            // Still sounding, or still being generated past what was played (an underrun).
            if was_playing || responding {
                let id = self.event_id();
                tracing::debug!(item = %item, played_ms, "realtime: truncating the reply");
                send(
                    sink,
                    &json!({
                        "type": "conversation.item.truncate",
                        "event_id": id,
                        "item_id": item,
                        "content_index": 0,
                        "audio_end_ms": played_ms,
                    }),
                )
                .await?;
            }
        }
        Ok(())
    }

    /// A reply audio delta that is not PCM16: not played, reported, the session goes on.
    async fn bad_audio(&self, why: String) -> Result<(), RealtimeError> {
        tracing::warn!(why = %why, "realtime: an audio delta was refused");
        self.emit(RealtimeEvent::ServerError(RealtimeError::Protocol(
            format!("audio delta: {why}"),
        )))
        .await;
        Ok(())
    }

    fn remember_benign(&mut self, id: String) {
        self.benign.push_back(id);
        while self.benign.len() > 16 {
            self.benign.pop_front();
        }
    }

    async fn voice(&self, event: VoiceEvent) {
        self.emit(RealtimeEvent::Voice(event)).await;
    }

    async fn on_server(&mut self, text: &str, sink: &mut WsSink) -> Result<(), RealtimeError> {
        let event: ServerEvent = match serde_json::from_str(text) {
            Ok(e) => e,
            Err(e) => {
                // A known event with an unexpected shape: say so, but keep the session.
                tracing::warn!(error = %e, "realtime: a server event was not understood");
                self.emit(RealtimeEvent::ServerError(RealtimeError::Protocol(
                    e.to_string(),
                )))
                .await;
                return Ok(());
            }
        };
        match event {
            ServerEvent::SpeechStarted {
                item_id,
                audio_start_ms,
            } => {
                if self.playback.is_playing() || self.response.is_some() {
                    self.barge_in(sink).await?;
                }
                self.voice(VoiceEvent::SpeechStarted {
                    utterance: UtteranceId(item_id),
                    at_ms: audio_start_ms,
                })
                .await;
            }
            ServerEvent::SpeechStopped {
                item_id,
                audio_end_ms,
            } => {
                self.voice(VoiceEvent::SpeechStopped {
                    utterance: UtteranceId(item_id),
                    at_ms: audio_end_ms,
                })
                .await;
            }
            ServerEvent::Committed {
                item_id,
                previous_item_id,
            } => {
                self.order.link(&item_id, previous_item_id.as_deref());
                self.order.user(&item_id);
            }
            ServerEvent::ItemAdded {
                previous_item_id,
                item,
            } => {
                self.order.link(&item.id, previous_item_id.as_deref());
                if item.role.as_deref() == Some("user") {
                    self.order.user(&item.id);
                }
            }
            ServerEvent::TranscriptionDelta { item_id, delta } => {
                let delta = delta.unwrap_or_default();
                if delta.is_empty() {
                    return Ok(());
                }
                if !self.partials.contains_key(&item_id) && self.partials.len() >= 64 {
                    self.partials.clear();
                }
                let text = self.partials.entry(item_id.clone()).or_default();
                if text.chars().count() < MAX_PARTIAL_CHARS {
                    text.push_str(&delta);
                }
                let text = text.clone();
                self.voice(VoiceEvent::Partial {
                    utterance: UtteranceId(item_id),
                    text,
                })
                .await;
            }
            ServerEvent::TranscriptionCompleted {
                item_id,
                transcript,
                logprobs,
            } => {
                self.partials.remove(&item_id);
                let fin = VoiceEvent::Final {
                    utterance: UtteranceId(item_id.clone()),
                    heard: vec![Heard::new(
                        truncate_chars(&transcript, MAX_PARTIAL_CHARS),
                        confidence(&logprobs),
                    )],
                };
                for e in self.order.finish(&item_id, fin) {
                    self.voice(e).await;
                }
            }
            ServerEvent::TranscriptionFailed { item_id, error } => {
                self.partials.remove(&item_id);
                let error = error.unwrap_or_default();
                let failed = VoiceEvent::Failed {
                    utterance: UtteranceId(item_id.clone()),
                    message: format!("{}: {}", error.code(), error.message()),
                };
                for e in self.order.finish(&item_id, failed) {
                    self.voice(e).await;
                }
            }
            ServerEvent::ResponseCreated { response } => {
                self.response = Some(response.id);
            }
            ServerEvent::OutputAudioDelta {
                response_id,
                item_id,
                delta,
            } => {
                if response_id.is_some() && response_id == self.cancelled {
                    return Ok(());
                }
                let bytes = match base64::engine::general_purpose::STANDARD.decode(delta.as_bytes())
                {
                    Ok(b) if b.len() % 2 == 0 => b,
                    Ok(_) => return self.bad_audio("an odd number of bytes".into()).await,
                    Err(e) => return self.bad_audio(e.to_string()).await,
                };
                let pcm: Vec<i16> = bytes
                    .chunks_exact(2)
                    .map(|b| i16::from_le_bytes([b[0], b[1]]))
                    .collect();
                if self.playing_item.as_deref() != Some(item_id.as_str()) {
                    self.playback.begin();
                    self.playing_item = Some(item_id);
                }
                self.playback.play(&pcm);
            }
            ServerEvent::ResponseDone { response } => {
                tracing::debug!(status = ?response.status, "realtime: response done");
                if self.response.as_deref() == Some(response.id.as_str()) {
                    self.response = None;
                }
            }
            ServerEvent::Truncated {
                item_id,
                audio_end_ms,
            } => {
                tracing::debug!(item = %item_id, audio_end_ms, "realtime: reply truncated");
            }
            ServerEvent::Error { error } => {
                let benign = error
                    .event_id
                    .as_ref()
                    .is_some_and(|id| self.benign.contains(id));
                if benign {
                    tracing::debug!(code = %error.code(), "realtime: expected error after a cancel");
                } else {
                    tracing::warn!(code = %error.code(), message = %error.message(), "realtime: server error");
                    self.emit(RealtimeEvent::ServerError(RealtimeError::Server {
                        code: error.code(),
                        message: error.message(),
                    }))
                    .await;
                }
            }
            ServerEvent::Other => {}
        }
        Ok(())
    }
}

async fn send(sink: &mut WsSink, event: &Value) -> Result<(), RealtimeError> {
    sink.send(Message::Text(event.to_string().into()))
        .await
        .map_err(|e| RealtimeError::Lost(e.to_string()))
}

fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn tls_config() -> Arc<rustls::ClientConfig> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("the ring provider supports TLS 1.2 and 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// Open the WebSocket: `wss://` verified against the web's roots, `ws://` to loopback only, the
/// key as the `Authorization` header.
async fn connect(config: &RealtimeConfig, key: &ApiKey) -> Result<Ws, RealtimeError> {
    use tungstenite::client::IntoClientRequest as _;
    use tungstenite::protocol::WebSocketConfig;
    let url = config.session_url()?;
    let fail = |why: String| RealtimeError::Connect {
        url: url.clone(),
        why,
    };
    let mut request = url
        .as_str()
        .into_client_request()
        .map_err(|e| RealtimeError::Config(format!("base_url: {e}")))?;
    request
        .headers_mut()
        .insert(tungstenite::http::header::AUTHORIZATION, key.header());
    let uri = request.uri().clone();
    let host = uri
        .host()
        .ok_or_else(|| RealtimeError::Config(format!("base_url {url:?} names no host")))?
        .to_string();
    let (connector, default_port) = match uri.scheme_str() {
        Some("wss") => (tokio_tungstenite::Connector::Rustls(tls_config()), 443),
        Some("ws") if is_loopback_host(&host) => (tokio_tungstenite::Connector::Plain, 80),
        _ => {
            return Err(RealtimeError::Config(format!(
                "base_url {:?}: plain ws:// only to loopback; use wss://",
                config.base_url
            )))
        }
    };
    let plain = matches!(connector, tokio_tungstenite::Connector::Plain);
    let port = uri.port_u16().unwrap_or(default_port);
    let bare = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let addrs: Vec<SocketAddr> = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        tokio::net::lookup_host((bare.as_str(), port)),
    )
    .await
    .map_err(|_| fail("name resolution timed out".into()))?
    .map_err(|e| fail(format!("cannot resolve {host}: {e}")))?
    .filter(|a| !plain || a.ip().is_loopback())
    .collect();
    let mut tcp = None;
    let mut last = "no address".to_string();
    for addr in addrs {
        match tokio::time::timeout(HANDSHAKE_TIMEOUT, TcpStream::connect(addr)).await {
            Ok(Ok(s)) => {
                tcp = Some(s);
                break;
            }
            Ok(Err(e)) => last = e.to_string(),
            Err(_) => last = "timed out".into(),
        }
    }
    let tcp = tcp.ok_or_else(|| fail(last))?;
    let _ = tcp.set_nodelay(true);
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(config.max_message_bytes))
        .max_frame_size(Some(config.max_message_bytes));
    let handshake = tokio_tungstenite::client_async_tls_with_config(
        request,
        tcp,
        Some(ws_config),
        Some(connector),
    );
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await {
        Ok(Ok((ws, _response))) => Ok(ws),
        Ok(Err(tungstenite::Error::Http(response))) => Err(RealtimeError::Refused {
            url,
            status: response.status().as_u16(),
        }),
        Ok(Err(e)) => Err(fail(e.to_string())),
        Err(_) => Err(fail("no WebSocket handshake within 10 s".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> UtteranceId {
        UtteranceId(s.into())
    }

    fn fin(item: &str, text: &str) -> VoiceEvent {
        VoiceEvent::Final {
            utterance: id(item),
            heard: vec![Heard::new(text, None)],
        }
    }

    fn ids(events: &[VoiceEvent]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                VoiceEvent::Final { utterance, .. } | VoiceEvent::Failed { utterance, .. } => {
                    utterance.0.clone()
                }
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn finals_are_released_in_conversation_order() {
        // (committed items with their previous, completions in arrival order) → release order
        let mut o = TurnOrder::new();
        o.link("a", None);
        o.user("a");
        o.link("b", Some("a"));
        o.user("b");
        o.link("c", Some("b"));
        o.user("c");
        assert!(o.finish("c", fin("c", "third")).is_empty());
        assert!(o.finish("b", fin("b", "second")).is_empty());
        assert_eq!(ids(&o.finish("a", fin("a", "first"))), ["a", "b", "c"]);
        // A later turn after released ones goes at once.
        o.link("d", Some("c"));
        o.user("d");
        assert_eq!(ids(&o.finish("d", fin("d", "x"))), ["d"]);
    }

    #[test]
    fn assistant_items_between_turns_are_walked_through() {
        let mut o = TurnOrder::new();
        o.link("u1", None);
        o.user("u1");
        o.link("asst1", Some("u1"));
        o.link("u2", Some("asst1"));
        o.user("u2");
        assert!(o.finish("u2", fin("u2", "b")).is_empty());
        assert_eq!(ids(&o.finish("u1", fin("u1", "a"))), ["u1", "u2"]);
    }

    #[test]
    fn a_failure_frees_the_turns_after_it() {
        let mut o = TurnOrder::new();
        o.link("a", None);
        o.user("a");
        o.link("b", Some("a"));
        o.user("b");
        assert!(o.finish("b", fin("b", "go")).is_empty());
        let out = o.finish(
            "a",
            VoiceEvent::Failed {
                utterance: id("a"),
                message: "x".into(),
            },
        );
        assert_eq!(ids(&out), ["a", "b"]);
        assert!(matches!(out[0], VoiceEvent::Failed { .. }));
    }

    #[test]
    fn unknown_or_repeated_turns_pass_through_and_a_lost_connection_fails_open_ones() {
        let mut o = TurnOrder::new();
        assert_eq!(ids(&o.finish("x", fin("x", "hi"))), ["x"]);
        o.link("a", None);
        o.user("a");
        o.link("b", Some("a"));
        o.user("b");
        o.link("c", Some("b"));
        o.user("c");
        assert!(o.finish("c", fin("c", "later")).is_empty());
        let out = o.lost("connection lost");
        assert_eq!(ids(&out), ["a", "b", "c"]);
        assert!(
            matches!(&out[0], VoiceEvent::Failed { message, .. } if message == "connection lost")
        );
        assert!(matches!(out[2], VoiceEvent::Final { .. }));
        // Replays are passed on; the utterance tracker refuses them.
        assert_eq!(ids(&o.finish("c", fin("c", "later"))), ["c"]);
    }

    #[test]
    fn the_order_is_bounded() {
        let mut o = TurnOrder::new();
        let mut prev: Option<String> = None;
        for i in 0..(MAX_ITEMS * 3) {
            let item = format!("i{i}");
            o.link(&item, prev.as_deref());
            o.user(&item);
            o.finish(&item, fin(&item, "x"));
            prev = Some(item);
        }
        assert!(o.seen.len() <= MAX_ITEMS);
        assert!(o.previous.len() <= MAX_ITEMS && o.user.len() <= MAX_ITEMS);
    }

    #[test]
    fn session_urls() {
        let mut c = RealtimeConfig::default();
        assert_eq!(
            c.session_url().unwrap(),
            "wss://api.openai.com/v1/realtime?intent=transcription"
        );
        c.session = SessionKind::Speech;
        assert_eq!(
            c.session_url().unwrap(),
            "wss://api.openai.com/v1/realtime?model=gpt-realtime"
        );
        for (base, model) in [
            ("https://api.openai.com/v1/realtime", "gpt-realtime"),
            ("wss://x/v1/realtime?model=y", "gpt-realtime"),
            ("wss://x/v1/realtime", "a model&x=1"),
        ] {
            c.base_url = base.into();
            c.model = model.into();
            assert!(
                matches!(c.session_url(), Err(RealtimeError::Config(_))),
                "{base} {model}"
            );
        }
    }

    #[test]
    fn session_updates_follow_the_config() {
        let labels = vec!["MICKE desk".to_string(), "KALLAX shelf".to_string()];
        let c = RealtimeConfig::default();
        let u = c.session_update(&labels);
        let input = &u["session"]["audio"]["input"];
        assert_eq!(u["session"]["type"], "transcription");
        assert_eq!(input["format"], json!({"type": "audio/pcm", "rate": 24000}));
        assert_eq!(input["turn_detection"]["type"], "server_vad");
        assert!(input["turn_detection"].get("create_response").is_none());
        assert_eq!(
            input["transcription"]["prompt"],
            "Expect these on-screen labels: MICKE desk, KALLAX shelf"
        );
        let speech = RealtimeConfig {
            session: SessionKind::Speech,
            turn_detection: TurnDetection::SemanticVad,
            ..RealtimeConfig::default()
        };
        let u = speech.session_update(&labels);
        let td = &u["session"]["audio"]["input"]["turn_detection"];
        assert_eq!(u["session"]["type"], "realtime");
        assert_eq!(td["type"], "semantic_vad");
        assert_eq!(td["create_response"], false);
        assert_eq!(td["interrupt_response"], true);
        assert_eq!(u["session"]["audio"]["output"]["voice"], "marin");
        let manual = RealtimeConfig {
            turn_detection: TurnDetection::Manual,
            ..RealtimeConfig::default()
        };
        assert!(
            manual.session_update(&labels)["session"]["audio"]["input"]["turn_detection"].is_null()
        );
    }

    #[test]
    fn the_bias_follows_the_model() {
        let labels = vec!["LINNMON table".to_string()];
        let cases: &[(&str, Bias, &str)] = &[
            ("gpt-4o-transcribe", Bias::Prompt, "prompt"),
            ("whisper-1", Bias::Prompt, "prompt"),
            ("gpt-live-transcribe", Bias::Keywords, "keywords"),
            ("gpt-transcribe", Bias::Keywords, "keywords"),
            ("gpt-realtime-whisper", Bias::None, ""),
        ];
        for &(model, bias, field) in cases {
            let c = RealtimeConfig {
                transcription_model: model.into(),
                ..RealtimeConfig::default()
            };
            assert_eq!(c.effective_bias(), bias, "{model}");
            let t = c.labels_update(&labels)["session"]["audio"]["input"]["transcription"].clone();
            assert_eq!(t["model"], model);
            for f in ["prompt", "keywords"] {
                assert_eq!(t.get(f).is_some(), f == field, "{model}: {t}");
            }
        }
        let whisper = RealtimeConfig {
            transcription_model: "whisper-1".into(),
            ..RealtimeConfig::default()
        };
        assert_eq!(
            whisper.transcription(&labels)["prompt"],
            "LINNMON table",
            "whisper-1 takes a keyword list"
        );
    }

    #[test]
    fn labels_are_normalized_and_bounded() {
        let raw: Vec<String> = [
            "  Add  to cart ",
            "",
            "add to CART",
            "Checkout",
            &"x".repeat(81),
            "Search",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            normalize_labels(&raw, 10),
            ["Add to cart", "Checkout", "Search"]
        );
        assert_eq!(normalize_labels(&raw, 2), ["Add to cart", "Checkout"]);
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let c = RealtimeConfig::default();
        let got: Vec<u64> = (1..=10).map(|a| c.backoff(a).as_millis() as u64).collect();
        assert_eq!(
            got,
            [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
    }

    #[test]
    fn config_is_defaulted_and_refuses_unknown_keys() {
        let c: RealtimeConfig = toml::from_str("").unwrap();
        assert_eq!(c, RealtimeConfig::default());
        let c: RealtimeConfig = toml::from_str(
            "session = \"speech\"\nturn_detection = \"manual\"\nbase_url = \"ws://127.0.0.1:9/v1/realtime\"\n",
        )
        .unwrap();
        assert_eq!(
            (c.session, c.turn_detection),
            (SessionKind::Speech, TurnDetection::Manual)
        );
        assert!(c.check().is_ok());
        let err = toml::from_str::<RealtimeConfig>("api_key = \"sk-x\"\n").unwrap_err();
        assert!(err.to_string().contains("api_key"), "{err}");
        let bad = RealtimeConfig {
            reconnect_min_ms: 0,
            ..RealtimeConfig::default()
        };
        assert!(matches!(bad.check(), Err(RealtimeError::Config(_))));
    }

    #[test]
    fn the_key_never_shows() {
        let key = ApiKey::new("sk-secret-123".into()).unwrap();
        assert_eq!(format!("{key:?}"), "ApiKey(hidden)");
        assert!(key.header().is_sensitive());
        assert_eq!(key.header().to_str().unwrap(), "Bearer sk-secret-123");
        assert!(ApiKey::new("  ".into()).is_err());
        assert!(ApiKey::new("sk bad\n".into()).is_err());
        assert_eq!(
            ApiKey::from_env("CIRCE_TEST_UNSET_VARIABLE_4711").unwrap_err(),
            RealtimeError::NoApiKey {
                var: "CIRCE_TEST_UNSET_VARIABLE_4711".into()
            }
        );
    }

    #[test]
    fn ws_is_for_loopback_only() {
        for (host, ok) in [
            ("127.0.0.1", true),
            ("localhost", true),
            ("[::1]", true),
            ("api.openai.com", false),
            ("10.0.0.1", false),
        ] {
            assert_eq!(is_loopback_host(host), ok, "{host}");
        }
    }
}

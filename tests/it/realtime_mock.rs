//! A mock OpenAI Realtime server (GA events, docs/VOICE-REALTIME.md and the probe note's A.7) on
//! 127.0.0.1 for the adapter's tests: scripted VAD by the position of the appended audio,
//! transcription deltas and completions (in or out of order, failed, or held until a test
//! releases them), manual commit, responses streaming audio faster than real time, cancel (by
//! the client, or by `interrupt_response` when speech starts), truncate with its checks, errors,
//! an abrupt drop; it records the handshake and every client event, and the audio it received.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::Message;

/// How a scripted turn's transcription ends.
#[derive(Clone, Debug)]
pub enum Outcome {
    Completed(String),
    Failed(String),
    /// Completed with this text, but only when the test calls [`Mock::release`].
    Held(String),
}

/// One user turn: speech from `start_ms` to `end_ms` of the audio appended on connection `conn`.
#[derive(Clone, Debug)]
pub struct Turn {
    pub conn: usize,
    pub item: String,
    pub start_ms: u64,
    pub end_ms: u64,
    pub deltas: Vec<String>,
    pub outcome: Outcome,
    /// Send the completion only after this item's completion (out-of-order arrival).
    pub after: Option<String>,
    /// Stream the deltas while the person is still speaking (before `speech_stopped`), as a
    /// streaming transcription model may.
    pub early_deltas: bool,
}

impl Turn {
    pub fn new(item: &str, start_ms: u64, end_ms: u64, deltas: &[&str], outcome: Outcome) -> Turn {
        Turn {
            conn: 0,
            item: item.into(),
            start_ms,
            end_ms,
            deltas: deltas.iter().map(|d| d.to_string()).collect(),
            outcome,
            after: None,
            early_deltas: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub turns: Vec<Turn>,
    /// The VAD's closing silence: `speech_stopped` comes this long after a turn's end.
    pub silence_ms: u64,
    /// A reply's length, in chunks of `chunk_ms`, one every `chunk_every`.
    pub reply_ms: u64,
    pub chunk_ms: u64,
    pub chunk_every: Duration,
    /// Server events sent at once on every connection after the first (old speech replayed).
    pub replay_on_reconnect: Vec<Value>,
    /// Refuse the handshake with this HTTP status.
    pub refuse: Option<u16>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            turns: Vec::new(),
            silence_ms: 500,
            reply_ms: 3_000,
            chunk_ms: 100,
            chunk_every: Duration::from_millis(20),
            replay_on_reconnect: Vec::new(),
            refuse: None,
        }
    }
}

/// What one connection carried.
#[derive(Clone, Debug, Default)]
pub struct Conn {
    pub uri: String,
    pub authorization: Option<String>,
    /// Client events, with the time since the mock started.
    pub events: Vec<(Duration, Value)>,
    /// Server events sent.
    pub sent: Vec<Value>,
    /// The audio appended (PCM16 samples at 24 kHz).
    pub samples: Vec<i16>,
    /// The session as merged from `session.update`s.
    pub session: Value,
    /// Milliseconds of audio streamed per assistant item.
    pub item_audio_ms: HashMap<String, u64>,
}

impl Conn {
    /// The client events of type `kind`.
    pub fn client(&self, kind: &str) -> Vec<Value> {
        self.events
            .iter()
            .filter(|(_, e)| e["type"] == kind)
            .map(|(_, e)| e.clone())
            .collect()
    }

    /// The position of the first client event of type `kind`.
    pub fn position(&self, kind: &str) -> Option<usize> {
        self.events.iter().position(|(_, e)| e["type"] == kind)
    }

    /// The server events of type `kind`.
    pub fn server(&self, kind: &str) -> Vec<Value> {
        self.sent
            .iter()
            .filter(|e| e["type"] == kind)
            .cloned()
            .collect()
    }
}

struct Shared {
    scenario: Scenario,
    conns: Vec<Conn>,
    current: Option<Arc<Mutex<ConnState>>>,
    kill: Option<mpsc::UnboundedSender<()>>,
    start: Instant,
}

struct Streaming {
    id: String,
    item: String,
    cancelled: Arc<AtomicBool>,
}

struct ConnState {
    idx: usize,
    shared: Arc<Mutex<Shared>>,
    out: mpsc::UnboundedSender<Message>,
    appended: u64,
    since_commit: u64,
    started: HashSet<String>,
    stopped: HashSet<String>,
    last_item: Option<String>,
    completed: HashSet<String>,
    waiting: Vec<(String, String, Value)>,
    held: HashMap<String, Value>,
    response: Option<Streaming>,
    responses: u32,
    events: u64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Merge `patch` into `base` (objects recursively; anything else replaces, `null` included).
fn merge(base: &mut Value, patch: &Value) {
    match (base.as_object_mut(), patch.as_object()) {
        (Some(b), Some(p)) => {
            for (k, v) in p {
                if v.is_object() && b.get(k).is_some_and(Value::is_object) {
                    merge(b.get_mut(k).unwrap(), v);
                } else {
                    b.insert(k.clone(), v.clone());
                }
            }
        }
        _ => *base = patch.clone(),
    }
}

impl ConnState {
    fn send(&mut self, mut event: Value) {
        self.events += 1;
        event["event_id"] = json!(format!("evt_{}_{}", self.idx, self.events));
        lock(&self.shared).conns[self.idx].sent.push(event.clone());
        let _ = self.out.send(Message::Text(event.to_string().into()));
    }

    fn error(&mut self, code: &str, message: &str, client_event: &Value) {
        self.send(json!({
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "code": code,
                "message": message,
                "param": null,
                "event_id": client_event.get("event_id").cloned().unwrap_or(Value::Null),
            }
        }));
    }

    fn session(&self) -> Value {
        lock(&self.shared).conns[self.idx].session.clone()
    }

    fn vad_on(&self) -> bool {
        !self.session()["audio"]["input"]["turn_detection"].is_null()
    }

    fn interrupts(&self) -> bool {
        self.session()["audio"]["input"]["turn_detection"]["interrupt_response"] == true
    }

    fn turns(&self) -> Vec<Turn> {
        let shared = lock(&self.shared);
        shared
            .scenario
            .turns
            .iter()
            .filter(|t| t.conn == self.idx)
            .cloned()
            .collect()
    }

    fn speech_started(&mut self, item: &str, at_ms: u64) {
        self.send(json!({
            "type": "input_audio_buffer.speech_started",
            "audio_start_ms": at_ms,
            "item_id": item,
        }));
        if self.interrupts() {
            self.cancel("turn_detected");
        }
    }

    fn vad(&mut self) {
        let pos_ms = self.appended / 24;
        let silence = lock(&self.shared).scenario.silence_ms;
        for turn in self.turns() {
            if !self.started.contains(&turn.item) && pos_ms > turn.start_ms {
                self.started.insert(turn.item.clone());
                self.speech_started(&turn.item, turn.start_ms);
                if turn.early_deltas {
                    self.deltas(&turn);
                }
            }
            if self.started.contains(&turn.item)
                && !self.stopped.contains(&turn.item)
                && pos_ms >= turn.end_ms + silence
            {
                self.stopped.insert(turn.item.clone());
                self.send(json!({
                    "type": "input_audio_buffer.speech_stopped",
                    "audio_end_ms": turn.end_ms + silence,
                    "item_id": turn.item,
                }));
                self.commit_turn(&turn);
            }
        }
    }

    fn commit_turn(&mut self, turn: &Turn) {
        let previous = self.last_item.replace(turn.item.clone());
        self.send(json!({
            "type": "input_audio_buffer.committed",
            "item_id": turn.item,
            "previous_item_id": previous,
        }));
        self.send(json!({
            "type": "conversation.item.added",
            "previous_item_id": previous,
            "item": {"id": turn.item, "type": "message", "role": "user",
                     "content": [{"type": "input_audio", "transcript": null}]},
        }));
        if !turn.early_deltas {
            self.deltas(turn);
        }
        let completed = |text: &str| {
            json!({
                "type": "conversation.item.input_audio_transcription.completed",
                "item_id": turn.item,
                "content_index": 0,
                "transcript": text,
                "usage": {"type": "duration", "seconds": 1.2},
            })
        };
        match &turn.outcome {
            Outcome::Completed(text) => {
                let event = completed(text);
                match &turn.after {
                    Some(after) if !self.completed.contains(after) => {
                        self.waiting.push((after.clone(), turn.item.clone(), event));
                    }
                    _ => self.complete(&turn.item, event),
                }
            }
            Outcome::Failed(message) => {
                let event = json!({
                    "type": "conversation.item.input_audio_transcription.failed",
                    "item_id": turn.item,
                    "content_index": 0,
                    "error": {"type": "server_error", "code": "transcription_failed",
                              "message": message, "param": null},
                });
                self.complete(&turn.item, event);
            }
            Outcome::Held(text) => {
                self.held.insert(turn.item.clone(), completed(text));
            }
        }
    }

    fn deltas(&mut self, turn: &Turn) {
        for delta in &turn.deltas {
            self.send(json!({
                "type": "conversation.item.input_audio_transcription.delta",
                "item_id": turn.item,
                "content_index": 0,
                "delta": delta,
            }));
        }
    }

    fn complete(&mut self, item: &str, event: Value) {
        self.send(event);
        self.completed.insert(item.to_string());
        while let Some(i) = self
            .waiting
            .iter()
            .position(|(after, _, _)| self.completed.contains(after))
        {
            let (_, item, event) = self.waiting.remove(i);
            self.send(event);
            self.completed.insert(item);
        }
    }

    fn cancel(&mut self, reason: &str) -> bool {
        let Some(r) = self.response.take() else {
            return false;
        };
        r.cancelled.store(true, Ordering::SeqCst);
        self.send(json!({
            "type": "response.output_audio.done",
            "response_id": r.id, "item_id": r.item, "output_index": 0, "content_index": 0,
        }));
        self.send(json!({
            "type": "response.done",
            "response": {"id": r.id, "object": "realtime.response", "status": "cancelled",
                         "status_details": {"type": "cancelled", "reason": reason}},
        }));
        true
    }

    fn start_response(state: &Arc<Mutex<ConnState>>) {
        let (id, item, cancelled, reply_ms, chunk_ms, every) = {
            let mut s = lock(state);
            s.responses += 1;
            let id = format!("resp_{}", s.responses);
            let item = format!("item_asst_{}", s.responses);
            let previous = s.last_item.replace(item.clone());
            s.send(json!({
                "type": "response.created",
                "response": {"id": id, "object": "realtime.response", "status": "in_progress", "output": []},
            }));
            s.send(json!({
                "type": "response.output_item.added", "response_id": id, "output_index": 0,
                "item": {"id": item, "type": "message", "role": "assistant"},
            }));
            s.send(json!({
                "type": "conversation.item.added", "previous_item_id": previous,
                "item": {"id": item, "type": "message", "role": "assistant"},
            }));
            s.send(json!({
                "type": "response.content_part.added", "response_id": id, "item_id": item,
                "output_index": 0, "content_index": 0, "part": {"type": "audio"},
            }));
            let cancelled = Arc::new(AtomicBool::new(false));
            s.response = Some(Streaming {
                id: id.clone(),
                item: item.clone(),
                cancelled: cancelled.clone(),
            });
            let shared = s.shared.clone();
            let sc = lock(&shared);
            let t = (
                sc.scenario.reply_ms,
                sc.scenario.chunk_ms,
                sc.scenario.chunk_every,
            );
            drop(sc);
            lock(&shared).conns[s.idx]
                .item_audio_ms
                .insert(item.clone(), 0);
            (id, item, cancelled, t.0, t.1, t.2)
        };
        let state = state.clone();
        tokio::spawn(async move {
            let chunks = reply_ms / chunk_ms;
            for i in 0..chunks {
                {
                    let mut s = lock(&state);
                    if cancelled.load(Ordering::SeqCst) {
                        return;
                    }
                    let pcm: Vec<u8> = (0..chunk_ms * 24)
                        .flat_map(|n| (((n + i) % 48) as i16 * 100).to_le_bytes())
                        .collect();
                    s.send(json!({
                        "type": "response.output_audio.delta", "response_id": id, "item_id": item,
                        "output_index": 0, "content_index": 0,
                        "delta": base64::engine::general_purpose::STANDARD.encode(&pcm),
                    }));
                    let shared = s.shared.clone();
                    *lock(&shared).conns[s.idx]
                        .item_audio_ms
                        .get_mut(&item)
                        .unwrap() += chunk_ms;
                }
                tokio::time::sleep(every).await;
            }
            let mut s = lock(&state);
            if cancelled.load(Ordering::SeqCst) {
                return;
            }
            s.response = None;
            s.send(
                json!({"type": "response.output_audio.done", "response_id": id, "item_id": item}),
            );
            s.send(
                json!({"type": "response.output_audio_transcript.done", "response_id": id,
                          "item_id": item, "transcript": "(reply)"}),
            );
            s.send(json!({"type": "response.done",
                          "response": {"id": id, "status": "completed", "status_details": null}}));
        });
    }

    fn handle(state: &Arc<Mutex<ConnState>>, event: Value) {
        let kind = event["type"].as_str().unwrap_or_default().to_string();
        if kind == "response.create" {
            ConnState::start_response(state);
            return;
        }
        let mut s = lock(state);
        match kind.as_str() {
            "session.update" => {
                let shared = s.shared.clone();
                let session = {
                    let mut sh = lock(&shared);
                    let conn = &mut sh.conns[s.idx];
                    merge(&mut conn.session, &event["session"]);
                    conn.session.clone()
                };
                s.send(json!({"type": "session.updated", "session": session}));
            }
            "input_audio_buffer.append" => {
                let Ok(bytes) = base64::engine::general_purpose::STANDARD
                    .decode(event["audio"].as_str().unwrap_or_default())
                else {
                    return s.error("invalid_base64", "audio is not base64", &event);
                };
                if bytes.len() % 2 != 0 {
                    return s.error("invalid_audio", "odd number of bytes", &event);
                }
                let samples: Vec<i16> = bytes
                    .chunks_exact(2)
                    .map(|b| i16::from_le_bytes([b[0], b[1]]))
                    .collect();
                s.appended += samples.len() as u64;
                s.since_commit += samples.len() as u64;
                let shared = s.shared.clone();
                lock(&shared).conns[s.idx].samples.extend(samples);
                if s.vad_on() {
                    s.vad();
                }
            }
            "input_audio_buffer.commit" => {
                if s.since_commit == 0 {
                    return s.error(
                        "input_audio_buffer_commit_empty",
                        "the buffer is empty",
                        &event,
                    );
                }
                s.since_commit = 0;
                let next = s.turns().into_iter().find(|t| !s.started.contains(&t.item));
                match next {
                    Some(turn) => {
                        s.started.insert(turn.item.clone());
                        s.commit_turn(&turn);
                    }
                    None => {
                        let item = format!("item_manual_{}", s.events);
                        let previous = s.last_item.replace(item.clone());
                        s.send(json!({"type": "input_audio_buffer.committed",
                                      "item_id": item, "previous_item_id": previous}));
                    }
                }
            }
            "input_audio_buffer.clear" => {
                s.since_commit = 0;
                s.send(json!({"type": "input_audio_buffer.cleared"}));
            }
            "response.cancel" => {
                if !s.cancel("client_cancelled") {
                    s.error(
                        "response_cancel_not_active",
                        "no active response found",
                        &event,
                    );
                }
            }
            "conversation.item.truncate" => {
                let item = event["item_id"].as_str().unwrap_or_default().to_string();
                let end = event["audio_end_ms"].as_u64().unwrap_or(u64::MAX);
                let shared = s.shared.clone();
                let audio = lock(&shared).conns[s.idx].item_audio_ms.get(&item).copied();
                match audio {
                    None => s.error(
                        "invalid_value",
                        "only assistant messages can be truncated",
                        &event,
                    ),
                    Some(total) if end > total => s.error(
                        "invalid_value",
                        "audio_end_ms is longer than the audio",
                        &event,
                    ),
                    Some(_) => s.send(json!({
                        "type": "conversation.item.truncated", "item_id": item,
                        "content_index": event["content_index"], "audio_end_ms": end,
                    })),
                }
            }
            _ => s.error("unknown_event", "unknown client event type", &event),
        }
    }
}

pub struct Mock {
    port: u16,
    shared: Arc<Mutex<Shared>>,
}

impl Mock {
    pub async fn start(scenario: Scenario) -> Mock {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Mutex::new(Shared {
            scenario,
            conns: Vec::new(),
            current: None,
            kill: None,
            start: Instant::now(),
        }));
        let s = shared.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(s.clone(), stream));
            }
        });
        Mock { port, shared }
    }

    /// The base URL to configure (`[voice.realtime] base_url`).
    pub fn base_url(&self) -> String {
        format!("ws://127.0.0.1:{}/v1/realtime", self.port)
    }

    pub fn conns(&self) -> Vec<Conn> {
        lock(&self.shared).conns.clone()
    }

    pub fn conn(&self, i: usize) -> Conn {
        self.conns().get(i).cloned().unwrap_or_default()
    }

    fn current(&self) -> Arc<Mutex<ConnState>> {
        lock(&self.shared).current.clone().expect("a connection")
    }

    /// Send a raw server event on the current connection.
    pub fn push(&self, event: Value) {
        lock(&self.current()).send(event);
    }

    /// The server's VAD hears speech begin (cancelling a reply when `interrupt_response`).
    pub fn speech_started(&self, item: &str, at_ms: u64) {
        lock(&self.current()).speech_started(item, at_ms);
    }

    /// Send the held completion of `item`.
    pub fn release(&self, item: &str) {
        let state = self.current();
        let mut s = lock(&state);
        let event = s.held.remove(item).expect("a held completion");
        s.complete(item, event);
    }

    /// Drop the current connection without a close frame.
    pub fn drop_connection(&self) {
        if let Some(kill) = lock(&self.shared).kill.take() {
            let _ = kill.send(());
        }
    }

    /// Wait (up to 5 s) until `check` holds of the recorded connections.
    pub async fn until(&self, what: &str, check: impl Fn(&[Conn]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if check(&self.conns()) {
                return;
            }
            assert!(Instant::now() < deadline, "the mock never saw: {what}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

async fn serve(shared: Arc<Mutex<Shared>>, stream: tokio::net::TcpStream) {
    let seen = Arc::new(Mutex::new((String::new(), None::<String>)));
    let refuse = lock(&shared).scenario.refuse;
    let record = seen.clone();
    // The callback's signature is tungstenite's.
    #[allow(clippy::result_large_err)]
    let callback = move |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        *lock(&record) = (
            req.uri().to_string(),
            req.headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
        );
        match refuse {
            Some(status) => Err(tokio_tungstenite::tungstenite::http::Response::builder()
                .status(status)
                .body(Some("refused".into()))
                .unwrap()),
            None => Ok(resp),
        }
    };
    let ws = tokio_tungstenite::accept_hdr_async(stream, callback).await;
    let (uri, authorization) = lock(&seen).clone();
    let Ok(ws) = ws else {
        lock(&shared).conns.push(Conn {
            uri,
            authorization,
            ..Conn::default()
        });
        return;
    };
    let kind = if uri.contains("intent=transcription") {
        "transcription"
    } else {
        "realtime"
    };
    let (out, mut out_rx) = mpsc::unbounded_channel();
    let (kill, mut kill_rx) = mpsc::unbounded_channel();
    let (idx, replay) = {
        let mut sh = lock(&shared);
        sh.conns.push(Conn {
            uri,
            authorization,
            session: json!({"type": kind, "id": "sess_mock", "audio": {"input": {
                "format": {"type": "audio/pcm", "rate": 24000},
                "turn_detection": {"type": "server_vad", "threshold": 0.5,
                                   "prefix_padding_ms": 300, "silence_duration_ms": 500}}}}),
            ..Conn::default()
        });
        sh.kill = Some(kill);
        let idx = sh.conns.len() - 1;
        let replay = if idx > 0 {
            sh.scenario.replay_on_reconnect.clone()
        } else {
            Vec::new()
        };
        (idx, replay)
    };
    let state = Arc::new(Mutex::new(ConnState {
        idx,
        shared: shared.clone(),
        out,
        appended: 0,
        since_commit: 0,
        started: HashSet::new(),
        stopped: HashSet::new(),
        last_item: None,
        completed: HashSet::new(),
        waiting: Vec::new(),
        held: HashMap::new(),
        response: None,
        responses: 0,
        events: 0,
    }));
    lock(&shared).current = Some(state.clone());
    {
        let mut s = lock(&state);
        let session = s.session();
        s.send(json!({"type": "session.created", "session": session}));
        for event in replay {
            s.send(event);
        }
    }
    let (mut sink, mut stream) = ws.split();
    loop {
        tokio::select! {
            _ = kill_rx.recv() => return,
            Some(m) = out_rx.recv() => {
                if sink.send(m).await.is_err() {
                    return;
                }
            }
            m = stream.next() => match m {
                Some(Ok(Message::Text(text))) => {
                    let Ok(event) = serde_json::from_str::<Value>(text.as_str()) else { continue };
                    {
                        let mut sh = lock(&shared);
                        let at = sh.start.elapsed();
                        sh.conns[idx].events.push((at, event.clone()));
                    }
                    ConnState::handle(&state, event);
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            }
        }
    }
}

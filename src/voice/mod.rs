//! Voice: the contract every voice provider speaks, and the one path from speech to an input.
//!
//! A provider (the offline recogniser, the OpenAI Realtime adapter, the phone's streamed
//! microphone) reports [`VoiceEvent`]s for utterances it names with stable ids. [`Utterances`]
//! (pure) folds them into [`Effect`]s: partial text is for display only; an utterance is admitted
//! once, when its provider finalizes it, never on its first fragment, on a pause, or because Circe
//! started speaking; a final seen again (a reconnect replaying old speech) admits nothing; speech
//! beginning while Circe speaks stops the playback at once; the stop detector's "stop" goes the
//! stop path, which bypasses every queue.
//!
//! Admission turns one finalized [`Utterance`] into one [`Input`] (mode voice, its hypotheses
//! with their confidences) through [`Utterance::input`]; the input id is derived from the session
//! and the utterance id, so the store's idempotency also refuses a replayed utterance.
//!
//! **Invariants:** this module and `utterance` are pure (no I/O, no clock, no async); the voice
//! path never declares an operation done or invents a question: what Circe says is rendered from
//! the operation's state elsewhere.

pub mod audio;
pub mod backend;
pub mod playback;
pub mod realtime;
pub mod resample;
pub mod session;
pub mod speak;
pub mod sphinx;
pub mod tray;
mod utterance;
pub mod vad;
pub mod whisper;

pub use utterance::{is_backchannel, Utterances, MAX_REMEMBERED};

use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use crate::model::Heard;
use crate::model::{Input, InputMode};

/// A provider's name for one utterance, stable across its revisions (Realtime: the `item_id`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UtteranceId(pub String);

impl std::fmt::Display for UtteranceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a voice provider reports. Times are milliseconds of audio since its session began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VoiceEvent {
    /// The provider's voice-activity detector heard speech begin.
    SpeechStarted { utterance: UtteranceId, at_ms: u64 },
    /// Speech paused or ended; never a reason to finalize by itself.
    SpeechStopped { utterance: UtteranceId, at_ms: u64 },
    /// The running text of an open utterance, for display only.
    Partial {
        utterance: UtteranceId,
        text: String,
    },
    /// The provider's last word on the utterance: its hypotheses, best first.
    Final {
        utterance: UtteranceId,
        heard: Vec<Heard>,
    },
    /// Speech that fit nothing the provider accepts (a grammar's rejection, the no-speech check).
    NotUnderstood {
        utterance: UtteranceId,
        reason: String,
    },
    /// The provider failed on this utterance; nothing is admitted.
    Failed {
        utterance: UtteranceId,
        message: String,
    },
    /// The always-on stop detector heard "stop" or "cancel".
    StopHeard { at_ms: u64 },
    /// What began as speech was not (noise, a cough, silence the VAD let through): the utterance
    /// ends with no effect at all.
    Discarded { utterance: UtteranceId },
}

/// What the voice session does about an event, in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Stop Circe's own speech at once (the person started talking, or said stop).
    StopPlayback,
    /// Interrupt the running operation through the stop path (never the input queue).
    Stop,
    /// Show the running text; `revision` grows with each partial of that utterance.
    Show {
        utterance: UtteranceId,
        revision: u32,
        text: String,
    },
    /// One finalized utterance for the core.
    Admit(Utterance),
    /// Say so and act on nothing.
    NotUnderstood {
        utterance: UtteranceId,
        reason: String,
    },
}

/// A finalized utterance: what goes to the core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utterance {
    pub id: UtteranceId,
    /// How many revisions (partials) preceded the final one, plus one.
    pub revision: u32,
    /// Best first; never empty, and the first has words.
    pub heard: Vec<Heard>,
}

/// The namespace of input ids derived from utterances (a fixed random UUID).
const UTTERANCE_NAMESPACE: Uuid = Uuid::from_u128(0x6c0e_2a47_93d1_4f0b_9a57_1e3b_d5c8_0f21);

impl Utterance {
    /// The one admission path: this utterance as an input from `device` in voice session
    /// `session`. The same session and utterance always give the same input id.
    pub fn input(&self, session: &str, device: &str) -> Input {
        Input {
            id: Uuid::new_v5(
                &UTTERANCE_NAMESPACE,
                format!("{session}\u{0}{}", self.id).as_bytes(),
            ),
            device: device.to_string(),
            text: self.heard[0].text.trim().to_string(),
            choice: None,
            mode: InputMode::Voice,
            interaction: None,
            expected_revision: None,
            heard: self.heard.clone(),
        }
    }
}

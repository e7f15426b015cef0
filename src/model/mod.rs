//! Plain data shared by every layer: the Interaction, the Operation, their events, and inputs.
//!
//! Architecture invariant: this module depends on nothing else in the crate and does no I/O.
//! Times are milliseconds since the Unix epoch, passed in by the caller (see `clock.rs`).
//! These types are also the wire format of the control API, so field names are stable.

pub mod observation;

pub use observation::{
    Element, Glosses, NameSource, Observation, Similarity, Surface, Unobserved, MAX_OPTIONS,
};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

/// Milliseconds since the Unix epoch.
pub type Millis = u64;

/// A node's stable identifier (its name until the mesh issue gives nodes key-derived ids).
pub type NodeId = String;

pub type InteractionId = Uuid;
pub type OperationId = Uuid;
pub type InputId = Uuid;

/// What the person is trying to get done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Goal {
    Weather,
    Browser,
    NativeApp,
    Coding,
    Conversation,
}

impl Goal {
    pub fn as_str(self) -> &'static str {
        match self {
            Goal::Weather => "weather",
            Goal::Browser => "browser",
            Goal::NativeApp => "nativeApp",
            Goal::Coding => "coding",
            Goal::Conversation => "conversation",
        }
    }
}

/// One labelled option of a question, so a person can answer "the second one".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub key: String,
    pub label: String,
}

/// What kind of value a question expects. The reader takes an input as the answer only when it
/// fits this kind; anything else is a new request, a correction, a cancel, or refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum QuestionKind {
    /// A place name (a city): a short phrase that is not a request of its own.
    Place,
    /// One of the question's choices: by number, ordinal, label or a fitting description.
    Choice,
    /// Yes or no.
    YesNo,
    /// Free text (a heading, a name): anything that is not a request of its own.
    Text,
}

/// A question Circe asks. It is stored before anyone says it aloud.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// What kind of value answers it; an input is an answer only if it fits.
    pub kind: QuestionKind,
    /// The argument this question fills.
    pub slot: String,
    /// The words Circe says or shows.
    pub prompt: String,
    /// Arguments already known for the request the question belongs to.
    pub known_arguments: BTreeMap<String, String>,
    pub choices: Vec<Choice>,
    /// The node that owns the question (and the interaction).
    pub owner: NodeId,
    pub expires_at: Millis,
}

/// A confirmation the person must give before an operation runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    /// What will happen, exactly, in words ("Click \"Place order\" on Checkout: it cannot be
    /// undone. Go ahead?").
    pub prompt: String,
    pub expires_at: Millis,
    /// What the approval is for: the element the step acts on, as the operation knows it. A
    /// "yes" puts it in the operation's arguments as `approved`; the step runs only on it.
    #[serde(default)]
    pub key: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Pending {
    #[default]
    None,
    Question(Question),
    Approval(Approval),
}

/// Where an operation runs: node + desktop session + application.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetRef {
    pub node: NodeId,
    /// `None` for work that needs no desktop session (a weather lookup).
    pub desktop_session: Option<String>,
    pub application: String,
}

/// A browser target adds the connector profile, window and tab to a `TargetRef`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserTarget {
    pub target: TargetRef,
    pub connector_profile: String,
    pub window: Option<i64>,
    pub tab: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Target {
    #[default]
    Unresolved,
    App(TargetRef),
    Browser(BrowserTarget),
}

/// What finally happened to a request, in words and class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub status: OperationStatus,
    pub summary: String,
    #[serde(default)]
    pub data: serde_json::Value,
}

/// The conversation record: one request, owned by one node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interaction {
    pub owner: NodeId,
    pub id: InteractionId,
    pub revision: u64,
    pub goal: Goal,
    /// The words of the request that started it, as heard.
    pub request: String,
    /// How those words arrived: spoken words may be misheard, typed ones are literal.
    #[serde(default)]
    pub mode: InputMode,
    /// For a spoken request: the recogniser's hypotheses of it, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heard: Vec<Heard>,
    pub arguments: BTreeMap<String, String>,
    pub pending: Pending,
    pub target: Target,
    pub operation: Option<OperationId>,
    /// The outcome of the latest operation, once it is known.
    pub outcome: Option<Outcome>,
    /// True once cancelled: no further answer or correction applies.
    pub closed: bool,
    pub created_at: Millis,
    pub updated_at: Millis,
}

/// How an input relates to the interaction it is read against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Relation {
    Answer,
    Correction,
    NewRequest,
    Cancel,
}

impl Relation {
    pub const ALL: [Relation; 4] = [
        Relation::Answer,
        Relation::Correction,
        Relation::NewRequest,
        Relation::Cancel,
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum InputMode {
    Voice,
    #[default]
    Typed,
}

/// One hypothesis of what was said, as a recogniser gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Heard {
    pub text: String,
    /// The recogniser's confidence in per mille (0..=1000), when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<u16>,
}

impl Heard {
    pub fn new(text: impl Into<String>, confidence: Option<f32>) -> Heard {
        Heard {
            text: text.into(),
            confidence: confidence.map(|c| (c.clamp(0.0, 1.0) * 1000.0).round() as u16),
        }
    }
}

/// One input from a person, on any device. The id makes a retried submit harmless.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    pub id: InputId,
    /// The device that sent it (the CLI says `cli`).
    pub device: String,
    #[serde(default)]
    pub text: String,
    /// An answer by number: 1 is the first choice offered.
    #[serde(default)]
    pub choice: Option<usize>,
    #[serde(default)]
    pub mode: InputMode,
    /// The interaction this input is meant for; `None` means the node's current one.
    #[serde(default)]
    pub interaction: Option<InteractionId>,
    /// The revision the sender saw; a stale one loses with a revision conflict.
    #[serde(default)]
    pub expected_revision: Option<u64>,
    /// For speech: the recogniser's hypotheses, best first (the first is `text`). Empty for typed
    /// input and for clients that predate it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heard: Vec<Heard>,
}

/// The status of an operation. `Accepted` is durable before any effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OperationStatus {
    Accepted,
    NeedsInput,
    Running,
    Verifying,
    Completed,
    Stopped,
    Blocked,
    OutcomeUnknown,
}

impl OperationStatus {
    pub const ALL: [OperationStatus; 8] = [
        OperationStatus::Accepted,
        OperationStatus::NeedsInput,
        OperationStatus::Running,
        OperationStatus::Verifying,
        OperationStatus::Completed,
        OperationStatus::Stopped,
        OperationStatus::Blocked,
        OperationStatus::OutcomeUnknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OperationStatus::Accepted => "accepted",
            OperationStatus::NeedsInput => "needsInput",
            OperationStatus::Running => "running",
            OperationStatus::Verifying => "verifying",
            OperationStatus::Completed => "completed",
            OperationStatus::Stopped => "stopped",
            OperationStatus::Blocked => "blocked",
            OperationStatus::OutcomeUnknown => "outcomeUnknown",
        }
    }

    pub fn parse(s: &str) -> Option<OperationStatus> {
        OperationStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Terminal statuses never change again, except `OutcomeUnknown`, which an observation may settle.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            OperationStatus::Completed | OperationStatus::Stopped | OperationStatus::Blocked
        )
    }

    /// Still able to produce effects.
    pub fn is_active(self) -> bool {
        matches!(
            self,
            OperationStatus::Accepted
                | OperationStatus::NeedsInput
                | OperationStatus::Running
                | OperationStatus::Verifying
        )
    }
}

/// What a step did to the world, as observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StepResult {
    Applied,
    NotApplied,
    Unknown,
    Blocked,
}

/// One grounded action of an operation and what was observed after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub index: u32,
    /// The id of the observation the action was grounded in, if any (`"<operation id>/<step>"`:
    /// the observe step that took it). The observation itself is stored once, apart from the
    /// operation, and fetched on demand (the `observation` verb).
    pub observation: Option<String>,
    /// The grounded action, in words a person can read: `geocode`, `fetch forecast`, `click e12`.
    pub action: String,
    pub arguments: BTreeMap<String, String>,
    /// Reads can be repeated safely; anything else is never retried automatically.
    pub irreversible: bool,
    /// `None` while the step is in flight.
    pub result: Option<StepResult>,
    pub evidence: serde_json::Value,
    pub started_at: Millis,
    pub finished_at: Option<Millis>,
}

/// Whether a stop was asked for, and whether the target confirmed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StopState {
    pub requested_at: Millis,
    pub requested_by: String,
    pub confirmed_at: Option<Millis>,
}

/// The device operation: owned by the target node, accepted durably before it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    pub id: OperationId,
    pub interaction: InteractionId,
    pub interaction_revision: u64,
    pub target: Target,
    /// What the operation is allowed to do, e.g. `weather:read`.
    pub authorized_scope: Vec<String>,
    pub goal: Goal,
    pub arguments: BTreeMap<String, String>,
    /// How the request's words arrived (its interaction's mode).
    #[serde(default)]
    pub mode: InputMode,
    /// For a spoken request: the recogniser's hypotheses of it, best first (its interaction's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heard: Vec<Heard>,
    /// What a person should see when it worked, in words.
    pub expected_outcome: String,
    pub status: OperationStatus,
    /// How many events of its log this operation is the fold of: 1 once accepted, one more per
    /// event. Notifications carry it, so a subscriber applies them in order and sees a gap.
    #[serde(default)]
    pub revision: u64,
    pub steps: Vec<Step>,
    pub stop: Option<StopState>,
    pub outcome: Option<Outcome>,
    pub accepted_at: Millis,
    pub updated_at: Millis,
}

/// What a device may do (the mesh's scopes). The phone default is every capability but the last
/// two.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "camelCase")]
pub enum Capability {
    /// Read state and subscribe to changes.
    Read,
    /// Submit a new request or a correction.
    Submit,
    /// Answer a pending question.
    Answer,
    /// Confirm a pending approval.
    Confirm,
    /// Stop an operation; always honoured.
    Stop,
    /// Change settings or preferences.
    Settings,
    /// Pair, approve or revoke devices.
    Devices,
}

impl Capability {
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Read => "read",
            Capability::Submit => "submit",
            Capability::Answer => "answer",
            Capability::Confirm => "confirm",
            Capability::Stop => "stop",
            Capability::Settings => "settings",
            Capability::Devices => "devices",
        }
    }
}

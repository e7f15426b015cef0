//! The control API's wire format: newline-delimited JSON over the local socket.
//!
//! The public surface is four verbs: `submit` an input, `interrupt` an operation, read `state`,
//! `subscribe` to changes. Every request carries an `id` that its reply echoes. A subscription
//! turns the connection into a stream of `Notification`s, starting with the current state.
//! Architecture invariant: these are the only serde types of the control API; limits are explicit.

use crate::interaction::Refusal;
use crate::model::{
    Input, Interaction, Millis, Operation, OperationId, OperationStatus, Outcome, Relation, Step,
    StopState, Target,
};
use crate::operation::OperationEvent;
use crate::store::{DeviceRecord, PeerRecord};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The largest event notification (a step started or ended, an operation's status, an
/// interaction): one over it is not sent; the subscriber gets a fresh snapshot instead.
pub const MAX_EVENT_BYTES: usize = 64 * 1024;
/// The largest reply or snapshot (a state, an observation) the daemon sends, and what a client
/// of it (the CLI, another node's link) accepts. A state's recent operations are left out, oldest
/// first, to fit (`StateView::fit`).
pub const MAX_REPLY_BYTES: usize = 2 * 1024 * 1024;
/// The most a step's evidence takes: what was observed about one action, never a whole
/// observation (stored apart, by its id). A larger one is kept as a note of its size.
pub const MAX_EVIDENCE_BYTES: usize = 4 * 1024;
/// The largest observation stored (its JSON); a larger one is kept as a note of its size.
pub const MAX_OBSERVATION_BYTES: usize = 1024 * 1024;

/// A client's message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    /// The node (name or id) the request is for, when it is not this one: the local daemon
    /// carries it to that peer over the mesh. Only the local control socket routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(flatten)]
    pub verb: Verb,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verb", rename_all = "camelCase")]
pub enum Verb {
    Submit {
        input: Input,
    },
    /// Stop an operation; `None` means the running one. Never queued behind inputs.
    Interrupt {
        #[serde(default)]
        operation: Option<OperationId>,
        #[serde(default = "default_device")]
        device: String,
    },
    State {
        /// How many recent operations to include.
        #[serde(default)]
        operations: Option<usize>,
    },
    Subscribe,
    /// What Circe saw: the observation whose id a step's `observation` holds, fetched on
    /// demand (it is stored once, apart from the operation). `observation_pruned` once past
    /// retention.
    Observation {
        observation: String,
    },
}

fn default_device() -> String {
    "cli".into()
}

/// The daemon's reply to one request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub id: u64,
    #[serde(flatten)]
    pub body: ReplyBody,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReplyBody {
    Ok(serde_json::Value),
    Error(ApiError),
}

/// What `submit` returns: how the input was read and the state it produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Submitted {
    pub relation: Relation,
    pub interaction: Interaction,
    pub operation: Option<Operation>,
    /// True when this was a retry of an input already taken: nothing new happened.
    #[serde(default)]
    pub replayed: bool,
}

/// What `interrupt` returns. `confirmed` is false until the operation's executor has stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupted {
    pub operation: Operation,
    pub stop: Option<StopState>,
    pub confirmed: bool,
    /// Set when there was nothing to stop (it had already finished).
    pub already_finished: bool,
}

/// What `state` returns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateView {
    pub node: String,
    /// Each executor's connector status, by goal (`weather`, `browser`).
    #[serde(default)]
    pub executors: std::collections::BTreeMap<String, serde_json::Value>,
    pub interaction: Option<Interaction>,
    pub operation: Option<Operation>,
    pub operations: Vec<Operation>,
    /// The peers this node routes to, and whether each is online (local state only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeStatus>,
}

impl StateView {
    /// Leave out recent operations, oldest first, until the state serializes within `max`
    /// bytes; the current interaction and operation always stay. Returns how many were left out.
    pub fn fit(&mut self, max: usize) -> usize {
        let size = |v: &StateView| serde_json::to_string(v).map_or(0, |s| s.len());
        let mut total = size(self);
        let mut dropped = 0;
        while total > max {
            let Some(op) = self.operations.pop() else {
                break;
            };
            total -= serde_json::to_string(&op).map_or(0, |s| s.len() + 1);
            dropped += 1;
        }
        dropped
    }
}

/// Whether a peer node is reachable now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeStatus {
    pub id: String,
    pub name: String,
    pub online: bool,
    /// Since when it has been online (or offline).
    pub since: crate::model::Millis,
    /// Why it is offline, when it is.
    #[serde(default)]
    pub error: Option<String>,
}

/// What the `observation` verb returns: the observation as it was taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationView {
    /// `"<operation id>/<step index>"`.
    pub id: String,
    pub taken_at: Millis,
    pub observation: serde_json::Value,
}

/// One message on a subscription. After the snapshot, operations change by small events, each
/// carrying the operation's `revision` after it: a subscriber applies the one that is its
/// revision + 1, ignores older ones (already in its snapshot), and on a gap waits for (or reads)
/// the state again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum Notification {
    /// The current state, first on every subscription and after falling behind.
    Snapshot { state: Box<StateView> },
    /// An interaction as it now is (a question asked, an answer taken, an outcome): small, since
    /// an interaction holds no steps.
    Interaction { interaction: Interaction },
    /// An operation was accepted: the whole operation (it has no steps yet).
    Operation { operation: Operation },
    /// A step began (journalled before its effect).
    StepStarted {
        operation: OperationId,
        revision: u64,
        step: Step,
    },
    /// A step ended: the step as it now is (result, evidence, finish time).
    StepEnded {
        operation: OperationId,
        revision: u64,
        step: Step,
    },
    /// The operation's status, stop, outcome, target or arguments changed: all of them as they
    /// now are, without its steps.
    OperationStatus {
        operation: OperationId,
        revision: u64,
        status: OperationStatus,
        stop: Option<StopState>,
        outcome: Option<Outcome>,
        target: Target,
        arguments: BTreeMap<String, String>,
        updated_at: Millis,
    },
    /// A routed subscription's node went online or offline. While it is offline nothing it
    /// owns can be observed: its last state is not its current one.
    Node { node: NodeStatus },
}

impl Notification {
    /// The notifications for `events` just appended to an operation's log, which is now `op`:
    /// one per event, in order, with the revision each produced.
    pub fn for_events(op: &Operation, events: &[OperationEvent]) -> Vec<Notification> {
        let base = op.revision.saturating_sub(events.len() as u64);
        let step = |index: u32| op.steps.iter().find(|s| s.index == index).cloned();
        events
            .iter()
            .enumerate()
            .filter_map(|(i, event)| {
                let revision = base + i as u64 + 1;
                Some(match event {
                    OperationEvent::Accepted { .. } => Notification::Operation {
                        operation: op.clone(),
                    },
                    OperationEvent::StepBegun { step } => Notification::StepStarted {
                        operation: op.id,
                        revision,
                        step: step.clone(),
                    },
                    OperationEvent::StepEnded { index, .. } => Notification::StepEnded {
                        operation: op.id,
                        revision,
                        step: step(*index)?,
                    },
                    OperationEvent::Moved { .. }
                    | OperationEvent::StopRequested { .. }
                    | OperationEvent::StopConfirmed
                    | OperationEvent::OutcomeRecorded { .. }
                    | OperationEvent::Resumed { .. }
                    | OperationEvent::Targeted { .. } => Notification::OperationStatus {
                        operation: op.id,
                        revision,
                        status: op.status,
                        stop: op.stop.clone(),
                        outcome: op.outcome.clone(),
                        target: op.target.clone(),
                        arguments: op.arguments.clone(),
                        updated_at: op.updated_at,
                    },
                })
            })
            .collect()
    }
}

/// The operations a subscriber follows, folded from its notifications: a snapshot or an accepted
/// operation gives the whole operation, and each event applies to it in revision order.
#[derive(Clone, Debug, Default)]
pub struct OperationFold {
    known: HashMap<OperationId, Operation>,
}

/// What folding one notification did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Folded {
    /// These operations changed (a snapshot may change several).
    Changed(Vec<OperationId>),
    /// Nothing: not about operations, about one not followed, or already applied.
    Unchanged,
    /// An event after a missing one: the operation is no longer known until the next snapshot
    /// (or a `state` read) gives it whole.
    Gap(OperationId),
}

impl OperationFold {
    pub fn get(&self, id: OperationId) -> Option<&Operation> {
        self.known.get(&id)
    }

    /// Follow `op` as it is now (a reply's operation), unless a newer revision is known.
    pub fn insert(&mut self, op: Operation) -> bool {
        match self.known.get(&op.id) {
            Some(known) if known.revision >= op.revision => false,
            _ => {
                self.known.insert(op.id, op);
                true
            }
        }
    }

    pub fn apply(&mut self, n: &Notification) -> Folded {
        let (id, revision) = match n {
            Notification::Snapshot { state } => {
                let changed = state
                    .operation
                    .iter()
                    .chain(&state.operations)
                    .filter(|op| self.insert((*op).clone()))
                    .map(|op| op.id)
                    .collect::<Vec<_>>();
                return if changed.is_empty() {
                    Folded::Unchanged
                } else {
                    Folded::Changed(changed)
                };
            }
            Notification::Operation { operation } => {
                return if self.insert(operation.clone()) {
                    Folded::Changed(vec![operation.id])
                } else {
                    Folded::Unchanged
                };
            }
            Notification::Interaction { .. } | Notification::Node { .. } => {
                return Folded::Unchanged
            }
            Notification::StepStarted {
                operation,
                revision,
                ..
            }
            | Notification::StepEnded {
                operation,
                revision,
                ..
            }
            | Notification::OperationStatus {
                operation,
                revision,
                ..
            } => (*operation, *revision),
        };
        let Some(op) = self.known.get_mut(&id) else {
            return Folded::Unchanged;
        };
        if revision <= op.revision {
            return Folded::Unchanged;
        }
        if revision > op.revision + 1 {
            self.known.remove(&id);
            return Folded::Gap(id);
        }
        op.revision = revision;
        match n {
            Notification::StepStarted { step, .. } | Notification::StepEnded { step, .. } => {
                match op.steps.iter_mut().find(|s| s.index == step.index) {
                    Some(known) => *known = step.clone(),
                    None => op.steps.push(step.clone()),
                }
                op.updated_at = step.finished_at.unwrap_or(step.started_at);
            }
            Notification::OperationStatus {
                status,
                stop,
                outcome,
                target,
                arguments,
                updated_at,
                ..
            } => {
                op.status = *status;
                op.stop.clone_from(stop);
                op.outcome.clone_from(outcome);
                op.target = target.clone();
                op.arguments.clone_from(arguments);
                op.updated_at = *updated_at;
            }
            _ => {}
        }
        Folded::Changed(vec![id])
    }
}

/// An error that says what was wrong. The stored state is unchanged by any request that got one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_revision: Option<u64>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            current_revision: None,
        }
    }
}

/// Declares `ErrorCode` from one table of variants and their wire strings.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $wire:literal,)*) => {
        /// Every error code on the wire (control API replies, the mesh's `authFailed`), shared
        /// by the daemon, the mesh and the CLI. On the wire it is its snake_case string, as
        /// listed in docs/protocol.md's error table (a test checks that the two agree).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
            /// A code this build does not know (a newer peer's), kept as it came.
            Other(String),
        }

        impl ErrorCode {
            /// Every known code, in the order of the table.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as it is on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $(ErrorCode::$variant => $wire,)*
                    ErrorCode::Other(code) => code,
                }
            }

            /// The code a wire string names (`Other` when this build does not know it).
            pub fn from_wire(code: &str) -> ErrorCode {
                match code {
                    $($wire => ErrorCode::$variant,)*
                    other => ErrorCode::Other(other.to_string()),
                }
            }
        }
    };
}

error_codes! {
    // The request itself.
    MalformedRequest = "malformed_request",
    MessageTooLarge = "message_too_large",
    TooManySubscriptions = "too_many_subscriptions",
    // Reading an input against its interaction.
    RevisionConflict = "revision_conflict",
    IllegalRelation = "illegal_relation",
    InvalidAnswer = "invalid_answer",
    Superseded = "superseded",
    IdempotencyMismatch = "idempotency_mismatch",
    UnknownInteraction = "unknown_interaction",
    UnknownOperation = "unknown_operation",
    NothingToStop = "nothing_to_stop",
    InputTooLong = "input_too_long",
    EmptyInput = "empty_input",
    BadDevice = "bad_device",
    BadInput = "bad_input",
    QueueFull = "queue_full",
    // Voice.
    BadAudio = "bad_audio",
    VoiceUnavailable = "voice_unavailable",
    // The daemon.
    ShuttingDown = "shutting_down",
    StoreError = "store_error",
    Internal = "internal",
    // Routing to other nodes.
    MeshDisabled = "mesh_disabled",
    UnknownNode = "unknown_node",
    NodeOffline = "node_offline",
    NodeTimeout = "node_timeout",
    NoTargetNode = "no_target_node",
    NotRouted = "not_routed",
    ControllerNode = "controller_node",
    // The mesh: authentication and scope.
    Forbidden = "forbidden",
    RateLimited = "rate_limited",
    Unauthenticated = "unauthenticated",
    UnknownDevice = "unknown_device",
    BadSignature = "bad_signature",
    // Pairing a device or a node.
    NoPairing = "no_pairing",
    PairingExpired = "pairing_expired",
    WrongCode = "wrong_code",
    TooManyAttempts = "too_many_attempts",
    PairingTaken = "pairing_taken",
    BadDeviceName = "bad_device_name",
    NothingToDecide = "nothing_to_decide",
    PairingDenied = "pairing_denied",
    PairingRefused = "pairing_refused",
    BadExchange = "bad_exchange",
    // Joining another node.
    BadUrl = "bad_url",
    NodeIdRequired = "node_id_required",
    NodeUnreachable = "node_unreachable",
    BadNode = "bad_node",
    WrongNode = "wrong_node",
    NodeNameTaken = "node_name_taken",
    // Local administration.
    BadPreference = "bad_preference",
    // What Circe saw.
    UnknownObservation = "unknown_observation",
    ObservationPruned = "observation_pruned",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ErrorCode, D::Error> {
        Ok(ErrorCode::from_wire(&String::deserialize(deserializer)?))
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        let current_revision = match &r {
            Refusal::RevisionConflict { current, .. } => Some(*current),
            _ => None,
        };
        let code = match &r {
            Refusal::RevisionConflict { .. } => ErrorCode::RevisionConflict,
            Refusal::IllegalRelation { .. } => ErrorCode::IllegalRelation,
            Refusal::InvalidAnswer { .. } => ErrorCode::InvalidAnswer,
            Refusal::Superseded { .. } => ErrorCode::Superseded,
        };
        ApiError {
            code,
            message: r.to_string(),
            current_revision,
        }
    }
}

/// One request line, read once: its `id` and `verb` (so even a malformed request's error can be
/// matched, and an administration verb told by its name), then the request they make.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestLine {
    /// The line's `id`; 0 when it has none.
    pub id: u64,
    /// The line's `verb`; empty when it has none.
    pub verb: String,
    /// The request, or `malformed_request` saying what is wrong.
    pub parsed: Result<AnyRequest, ApiError>,
}

/// A control request or (on the local control socket only) an administration one.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyRequest {
    Control(Request),
    Admin(AdminRequest),
    Voice(VoiceRequest),
}

impl RequestLine {
    pub fn parse(line: &str) -> RequestLine {
        let malformed = |e: serde_json::Error| {
            ApiError::new(
                ErrorCode::MalformedRequest,
                format!("the request is not valid: {e}"),
            )
        };
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return RequestLine {
                    id: 0,
                    verb: String::new(),
                    parsed: Err(malformed(e)),
                }
            }
        };
        let id = value.get("id").and_then(|i| i.as_u64()).unwrap_or(0);
        let verb = value
            .get("verb")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let parsed = if AdminVerb::NAMES.contains(&verb.as_str()) {
            AdminRequest::deserialize(value).map(AnyRequest::Admin)
        } else if VoiceVerb::NAMES.contains(&verb.as_str()) {
            VoiceRequest::deserialize(value).map(AnyRequest::Voice)
        } else {
            Request::deserialize(value).map(AnyRequest::Control)
        };
        RequestLine {
            id,
            verb,
            parsed: parsed.map_err(malformed),
        }
    }
}

/// The local administration verbs: served on the control socket only (this OS user), never over
/// the mesh, where they are refused for lack of scope. They are not part of the public surface.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdminRequest {
    pub id: u64,
    #[serde(flatten)]
    pub verb: AdminVerb,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verb", rename_all = "camelCase")]
pub enum AdminVerb {
    /// Open a pairing session (closing any other): returns the code and the URL.
    PairStart,
    /// Wait (at most until the session expires) until a device offers the code.
    PairWait,
    /// Approve or deny the device that offered the code.
    PairDecide { approve: bool },
    /// List paired devices.
    Devices,
    /// Revoke a device: its sockets close at once.
    Revoke { device: String },
    /// Set or (with no value) remove a preference such as "my desktop".
    SetPreference {
        key: String,
        #[serde(default)]
        value: Option<String>,
    },
    /// Offer another node's pairing code (shown there by `circe pair`), as this node; `node` is
    /// the id it must have. Returns the verification code both nodes show.
    JoinStart {
        url: String,
        code: String,
        #[serde(default)]
        node: Option<String>,
    },
    /// Wait for the other node's decision; on approval it becomes a peer.
    JoinWait,
    /// The nodes this one routes to, and whether each is online.
    Nodes,
    /// Stop routing to a node and forget it.
    Forget { node: String },
}

impl AdminVerb {
    /// The wire names, so a connection can tell an admin request from a control one.
    pub const NAMES: &'static [&'static str] = &[
        "pairStart",
        "pairWait",
        "pairDecide",
        "devices",
        "revoke",
        "setPreference",
        "joinStart",
        "joinWait",
        "nodes",
        "forget",
    ];
}

/// The local voice verbs: served on the control socket only (this OS user; `hear` reads a file
/// the daemon can read), never over the mesh.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VoiceRequest {
    pub id: u64,
    #[serde(flatten)]
    pub verb: VoiceVerb,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verb", rename_all = "camelCase")]
pub enum VoiceVerb {
    /// Hear a WAV file (16-bit PCM, mono, 16 kHz; an absolute path the daemon reads) through the
    /// voice session: every utterance in it, in order. Replies with the list of what became of
    /// each (`voice::session::Hearing`).
    Hear {
        path: String,
        /// Prompt the recogniser with the screen's labels (the default).
        #[serde(default = "yes")]
        bias: bool,
        /// Recognise and report only; admit nothing.
        #[serde(default)]
        transcribe: bool,
    },
    /// Open the microphone (or stream a WAV file in real time, `from`) through the voice session
    /// until the connection closes: first `{"listening": true}`, then one line per utterance.
    /// Replies are spoken (espeak-ng) unless `quiet`.
    Listen {
        #[serde(default)]
        from: Option<String>,
        #[serde(default)]
        quiet: bool,
    },
    /// p50/p95 of each recorded voice latency phase.
    Metrics,
}

fn yes() -> bool {
    true
}

impl VoiceVerb {
    pub const NAMES: &'static [&'static str] = &["hear", "listen", "metrics"];
}

// The replies of the administration verbs (`pairWait` replies with `mesh::pairing::Stage`).

/// A node by its id and name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeName {
    pub id: String,
    pub name: String,
}

/// `pairStart`: the pairing session a device joins.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PairStarted {
    pub code: String,
    pub url: String,
    pub expires_at: Millis,
    pub node: NodeName,
    pub tls: bool,
    /// The browser certificate's fingerprint, behind TLS.
    pub fingerprint: Option<String>,
}

/// `pairDecide`: the device, when approved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairDecided {
    pub approved: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceRecord>,
}

/// `devices`: this node, its devices and its preferences.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DevicesView {
    pub node: ListeningNode,
    pub devices: Vec<DeviceView>,
    pub preferences: std::collections::BTreeMap<String, String>,
}

/// This node as `devices` shows it: where it listens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListeningNode {
    pub id: String,
    pub name: String,
    pub role: String,
    pub listen: String,
    pub origin: String,
    pub tls: bool,
    pub fingerprint: Option<String>,
}

/// A paired device and how many sockets it holds now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceView {
    #[serde(flatten)]
    pub device: DeviceRecord,
    pub sockets: usize,
}

/// `revoke`: the device, its sockets closed, and what it started that was still running.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Revoked {
    pub revoked: String,
    pub closed_sockets: usize,
    pub stopped_operations: Vec<OperationId>,
}

/// `setPreference`: the preference as it is now (`value` null: removed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PreferenceSet {
    pub key: String,
    pub value: Option<String>,
}

/// `joinStart`: the verification code both nodes show, and the node as its hello gave it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JoinStarted {
    pub verification: Option<String>,
    pub node: HelloNode,
}

/// A node as its hello names it (a missing field is empty, and then not the key's id).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HelloNode {
    pub id: String,
    pub name: String,
    pub role: String,
    pub public_key: String,
}

/// `joinWait`: the new peer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Joined {
    pub peer: PeerRecord,
}

/// `nodes`: this node and its peers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodesView {
    pub node: RoleNode,
    pub nodes: Vec<PeerView>,
}

/// A node by its id, name and role.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleNode {
    pub id: String,
    pub name: String,
    pub role: String,
}

/// A peer and, when its link runs, whether it is online.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerView {
    #[serde(flatten)]
    pub peer: PeerRecord,
    #[serde(flatten)]
    pub link: Option<LinkStatus>,
}

/// Whether a peer's link is up, since when, and why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkStatus {
    pub online: bool,
    pub since: Millis,
    pub error: Option<String>,
}

/// `forget`: the node no longer routed to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Forgotten {
    pub forgotten: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_code_is_its_wire_string_and_an_unknown_one_is_kept() {
        let e = ApiError::new(ErrorCode::NodeOffline, "desk is offline");
        let line = serde_json::to_string(&e).unwrap();
        assert_eq!(
            line,
            r#"{"code":"node_offline","message":"desk is offline"}"#
        );
        assert_eq!(serde_json::from_str::<ApiError>(&line).unwrap(), e);
        // A newer peer's code passes through unchanged.
        let newer: ApiError =
            serde_json::from_str(r#"{"code":"some_new_code","message":"?"}"#).unwrap();
        assert_eq!(newer.code, ErrorCode::Other("some_new_code".into()));
        assert!(serde_json::to_string(&newer)
            .unwrap()
            .contains(r#""code":"some_new_code""#));
    }

    #[test]
    fn a_line_is_read_once_into_its_id_verb_and_request() {
        let admin = RequestLine::parse(r#"{"id": 3, "verb": "revoke", "device": "d1"}"#);
        assert_eq!((admin.id, admin.verb.as_str()), (3, "revoke"));
        assert!(matches!(admin.parsed, Ok(AnyRequest::Admin(_))));
        let control = RequestLine::parse(r#"{"id": 4, "verb": "state"}"#);
        assert!(matches!(control.parsed, Ok(AnyRequest::Control(_))));
        // A malformed request keeps its id and verb, so its error can be matched.
        let bad = RequestLine::parse(r#"{"id": 5, "verb": "revoke"}"#);
        assert_eq!((bad.id, bad.verb.as_str()), (5, "revoke"));
        assert_eq!(bad.parsed.unwrap_err().code, ErrorCode::MalformedRequest);
        let garbage = RequestLine::parse("{not json");
        assert_eq!((garbage.id, garbage.verb.as_str()), (0, ""));
        assert!(garbage.parsed.is_err());
    }

    fn accepted() -> Operation {
        use crate::model::{Goal, InputMode};
        Operation {
            id: uuid::Uuid::from_u128(7),
            interaction: uuid::Uuid::from_u128(8),
            interaction_revision: 1,
            target: Target::Unresolved,
            authorized_scope: vec!["browser:act".into()],
            goal: Goal::Browser,
            arguments: BTreeMap::new(),
            mode: InputMode::Typed,
            heard: Vec::new(),
            expected_outcome: "done".into(),
            status: OperationStatus::Accepted,
            revision: 1,
            steps: Vec::new(),
            stop: None,
            outcome: None,
            accepted_at: 10,
            updated_at: 10,
        }
    }

    fn step(index: u32, at: Millis) -> Step {
        Step {
            index,
            observation: Some(format!("op/{index}")),
            action: format!("click e{index}"),
            arguments: BTreeMap::new(),
            irreversible: true,
            result: None,
            evidence: serde_json::Value::Null,
            started_at: at,
            finished_at: None,
        }
    }

    /// The events of a whole run, notified one commit at a time, fold into exactly the stored
    /// operation; an event already applied changes nothing; a missing one is a gap.
    #[test]
    fn events_fold_into_the_projection_in_revision_order() {
        use crate::model::StepResult;
        use crate::operation::{apply, Transition};
        let commits: Vec<Vec<OperationEvent>> = vec![
            vec![OperationEvent::Moved {
                transition: Transition::Start,
                status: OperationStatus::Running,
            }],
            vec![OperationEvent::StepBegun { step: step(0, 12) }],
            vec![OperationEvent::StepEnded {
                index: 0,
                result: StepResult::Applied,
                evidence: serde_json::json!({"x": 1}),
            }],
            vec![OperationEvent::StepBegun { step: step(1, 14) }],
            vec![OperationEvent::StepEnded {
                index: 1,
                result: StepResult::Unknown,
                evidence: serde_json::json!({}),
            }],
            vec![
                OperationEvent::Moved {
                    transition: Transition::Lose,
                    status: OperationStatus::OutcomeUnknown,
                },
                OperationEvent::OutcomeRecorded {
                    outcome: Outcome {
                        status: OperationStatus::OutcomeUnknown,
                        summary: "?".into(),
                        data: serde_json::Value::Null,
                    },
                },
            ],
        ];
        let mut stored = accepted();
        let mut fold = OperationFold::default();
        fold.apply(&Notification::Operation {
            operation: stored.clone(),
        });
        let mut sent = Vec::new();
        for (at, events) in (11..).zip(&commits) {
            for e in events {
                stored = apply(Some(&stored), e, at);
            }
            for n in Notification::for_events(&stored, events) {
                let line = serde_json::to_string(&n).unwrap();
                assert!(line.len() < 1024, "{line}");
                assert_eq!(
                    fold.apply(&serde_json::from_str(&line).unwrap()),
                    Folded::Changed(vec![stored.id])
                );
                sent.push(n);
            }
        }
        assert_eq!(stored.revision, 1 + 7);
        assert_eq!(fold.get(stored.id), Some(&stored));
        // Already applied: nothing changes.
        assert_eq!(fold.apply(&sent[2]), Folded::Unchanged);
        assert_eq!(fold.get(stored.id), Some(&stored));
        // A subscriber that missed one sees the gap and forgets the operation until a snapshot.
        let mut behind = OperationFold::default();
        behind.apply(&Notification::Operation {
            operation: accepted(),
        });
        behind.apply(&sent[0]);
        assert_eq!(behind.apply(&sent[2]), Folded::Gap(stored.id));
        assert_eq!(behind.get(stored.id), None);
    }

    #[test]
    fn a_state_too_large_leaves_out_its_oldest_recent_operations() {
        let mut big = accepted();
        big.steps = (0..40).map(|i| step(i, 20)).collect();
        let mut view = StateView {
            node: "desk".into(),
            executors: BTreeMap::new(),
            interaction: None,
            operation: Some(accepted()),
            operations: vec![big.clone(), big.clone(), big],
            nodes: Vec::new(),
        };
        let whole = serde_json::to_string(&view).unwrap().len();
        let one = serde_json::to_string(&view.operations[0]).unwrap().len();
        assert_eq!(view.fit(whole), 0);
        assert_eq!(view.fit(whole - one), 1);
        assert_eq!(view.operations.len(), 2);
        assert!(serde_json::to_string(&view).unwrap().len() <= whole - one);
        // The current operation always stays.
        assert_eq!(view.fit(10), 2);
        assert!(view.operations.is_empty() && view.operation.is_some());
    }
}

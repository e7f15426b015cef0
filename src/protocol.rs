//! The control API's wire format: newline-delimited JSON over the local socket.
//!
//! The public surface is four verbs: `submit` an input, `interrupt` an operation, read `state`,
//! `subscribe` to changes. Every request carries an `id` that its reply echoes. A subscription
//! turns the connection into a stream of `Notification`s, starting with the current state.
//! Architecture invariant: these are the only serde types of the control API; limits are explicit.

use crate::interaction::Refusal;
use crate::model::{Input, Interaction, Operation, OperationId, Relation, StopState};
use serde::{Deserialize, Serialize};

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

/// One message on a subscription.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum Notification {
    /// The current state, first on every subscription and after falling behind.
    Snapshot {
        state: Box<StateView>,
    },
    Interaction {
        interaction: Interaction,
    },
    Operation {
        operation: Operation,
    },
    /// A routed subscription's node went online or offline. While it is offline nothing it
    /// owns can be observed: its last state is not its current one.
    Node {
        node: NodeStatus,
    },
}

/// An error that says what was wrong. The stored state is unchanged by any request that got one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct ApiError {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_revision: Option<u64>,
}

impl ApiError {
    pub fn new(code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code: code.into(),
            message: message.into(),
            current_revision: None,
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        let current_revision = match &r {
            Refusal::RevisionConflict { current, .. } => Some(*current),
            _ => None,
        };
        let code = match &r {
            Refusal::RevisionConflict { .. } => "revision_conflict",
            Refusal::IllegalRelation { .. } => "illegal_relation",
            Refusal::InvalidAnswer { .. } => "invalid_answer",
        };
        ApiError {
            code: code.into(),
            message: r.to_string(),
            current_revision,
        }
    }
}

/// The `verb` of a request line, if it has one.
pub fn verb_of(line: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()?
        .get("verb")?
        .as_str()
        .map(String::from)
}

/// Read one request line, with a clear error for anything malformed.
pub fn parse_request(line: &str) -> Result<Request, ApiError> {
    serde_json::from_str(line).map_err(|e| {
        ApiError::new(
            "malformed_request",
            format!("the request is not valid: {e}"),
        )
    })
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

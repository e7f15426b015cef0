//! Plain data in and out of the Director: the recognition envelope, the
//! bounded context snapshot, and the closed decision union.
//!
//! Invariant: nothing here performs I/O or reads a clock. A `Decision` is the
//! only thing callers act on; they never combine a resolver result with a
//! separately edited transcript.

use super::observation::Observation;

/// What the recogniser (or keyboard) produced for one capture.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Envelope {
    pub capture_id: String,
    /// Identity of the user's request; a confirmed clarification resumes it.
    pub request_id: String,
    pub text: String,
    pub mode: InputMode,
    /// Other recognition hypotheses, best first.
    pub alternatives: Vec<Alternative>,
}

impl Envelope {
    pub fn voice(request_id: &str, text: &str) -> Envelope {
        Envelope {
            capture_id: format!("cap-{request_id}"),
            request_id: request_id.to_string(),
            text: text.to_string(),
            mode: InputMode::Voice,
            alternatives: Vec::new(),
        }
    }

    pub fn typed(request_id: &str, text: &str) -> Envelope {
        Envelope {
            mode: InputMode::Typed,
            ..Envelope::voice(request_id, text)
        }
    }
}

/// How the words arrived: one type from the input to the Director (spoken words may be misheard
/// and are matched by sound too; typed ones are literal).
pub use crate::model::InputMode;

#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    pub text: String,
    /// Recogniser confidence in [0, 1], when it gives one.
    pub confidence: Option<f32>,
}

/// Everything the Director may know, bounded and taken at one moment.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    pub interaction: Interaction,
    pub catalogs: Catalogs,
    /// The task the user explicitly asked to continue, if any.
    pub continuation: Option<TaskRef>,
    /// Ambient focus: a default for a missing route, never proof of one.
    pub focus: Focus,
    /// Pronunciations the user has confirmed.
    pub aliases: Vec<Alias>,
    /// What is on screen now, if the turn is about the screen.
    pub observation: Option<Observation>,
}

/// The interaction state the turn relates to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Interaction {
    pub goal: Option<String>,
    pub pending: Option<Pending>,
    pub recent: Vec<String>,
}

impl Interaction {
    /// The interaction after a decision was delivered: a clarification becomes
    /// the pending question; anything else clears it, so a confirmation can
    /// resume its request exactly once.
    pub fn after(&self, decision: &Decision) -> Interaction {
        let pending = match decision {
            Decision::Clarify(c) => Some(Pending {
                request: c.request.clone(),
                slot: c.slot,
                candidates: c.candidates.clone(),
                revision: self.pending.as_ref().map_or(1, |p| p.revision + 1),
            }),
            Decision::Execute(_) | Decision::Reject(_) => None,
        };
        Interaction {
            goal: self.goal.clone(),
            pending,
            recent: self.recent.clone(),
        }
    }
}

/// A question waiting for the user's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The original request, resumed when the user answers.
    pub request: Envelope,
    pub slot: Slot,
    pub candidates: Vec<Candidate>,
    pub revision: u64,
}

/// Real catalogs. `loaded` is false until the first catalog arrives.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Catalogs {
    pub loaded: bool,
    pub nodes: Vec<Node>,
    pub apps: Vec<Named>,
    pub profiles: Vec<Named>,
    pub projects: Vec<Project>,
    pub tasks: Vec<Task>,
    pub providers: Vec<Named>,
    pub models: Vec<Model>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    pub label: String,
}

/// An app, browser profile or provider: an id on a node, with a name.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    pub node: String,
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    pub node: String,
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub project: ProjectRef,
    pub id: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub provider: String,
    pub id: String,
    pub name: String,
}

/// A project, qualified by the node that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProjectRef {
    pub node: String,
    pub project: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TaskRef {
    pub project: ProjectRef,
    pub task: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Focus {
    pub project: Option<ProjectRef>,
    pub task: Option<TaskRef>,
}

/// A confirmed pronunciation: when `heard` is said, it means `entity`.
#[derive(Debug, Clone, PartialEq)]
pub struct Alias {
    pub heard: String,
    pub entity: EntityRef,
}

/// Anything a span can be grounded to.
#[derive(Debug, Clone, PartialEq)]
pub enum EntityRef {
    Element(String),
    Project(ProjectRef),
    Task(TaskRef),
    Provider { node: String, id: String },
    Model { provider: String, id: String },
}

/// The closed output union. One is made per turn, so the size difference
/// between a plan and a rejection does not matter.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Decision {
    Execute(Plan),
    Clarify(Clarification),
    Reject(Rejection),
}

/// A closed control plan: everything needed to act, nothing left to infer.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub action: Action,
    pub route: Route,
    /// The user explicitly asked to continue a task.
    pub continuation: bool,
    /// Natural task text with consumed control spans removed or replaced.
    pub objective: String,
    pub evidence: Vec<Evidence>,
    pub source: Source,
    /// The request this plan resumes after a confirmed clarification.
    pub resumes: Option<String>,
    /// Pronunciations learned from a confirmation, for the caller to store.
    pub learned: Vec<Alias>,
    /// The decider's probability for the chosen grounding.
    pub confidence: f32,
    /// Several steps said at once: the texts of the steps after this one, in order, each a
    /// slice of the user's words, grounded later against a fresh observation
    /// ([`super::steps`]). Empty for a one-step request.
    pub steps: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Click {
        target: String,
    },
    Type {
        target: String,
        text: String,
    },
    /// Give a file to the page's file input through the chooser `target` opens; `file` is what
    /// the words named (the daemon finds the file, `browser::files`).
    Upload {
        target: String,
        file: super::upload::File,
    },
    Scroll(Direction),
    Back,
    /// A question or multi-step task: hand the goal to the planner.
    Planner,
    /// Send the objective to a provider in the routed project or task.
    Dispatch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Down,
    Up,
}

/// Exact, node-qualified references. Empty fields were not needed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Route {
    pub project: Option<ProjectRef>,
    pub task: Option<TaskRef>,
    pub provider: Option<String>,
    pub model: Option<String>,
}

/// Why one span of the utterance was consumed. Diagnostic data, never
/// provider text.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub heard: String,
    pub role: SpanRole,
    pub entity: Option<EntityRef>,
    pub kind: MatchKind,
    pub confirmation: Confirmation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanRole {
    Target,
    Text,
    Project,
    Task,
    Provider,
    Model,
    Action,
    Direction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Alias,
    Fuzzy,
    Phonetic,
    Ordinal,
    Meaning,
    Ambient,
    Continuation,
    Literal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// Grounded from the turn alone.
    Unconfirmed,
    /// The user picked it in a clarification.
    User,
    /// A stored, user-confirmed pronunciation.
    Alias,
    /// The user explicitly asked to continue.
    Explicit,
    /// Filled from ambient focus, as a default.
    Ambient,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub raw: String,
    pub capture_id: String,
    pub request_id: String,
    pub mode: InputMode,
    pub alternatives: Vec<Alternative>,
}

impl Source {
    pub fn of(envelope: &Envelope) -> Source {
        Source {
            raw: envelope.text.clone(),
            capture_id: envelope.capture_id.clone(),
            request_id: envelope.request_id.clone(),
            mode: envelope.mode,
            alternatives: envelope.alternatives.clone(),
        }
    }
}

/// A question for the user, with at most three labelled candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct Clarification {
    pub question: String,
    pub slot: Slot,
    pub candidates: Vec<Candidate>,
    /// The original request, resumed when the user answers.
    pub request: Envelope,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Which on-screen element.
    Target,
    /// Which project (node-qualified).
    Project,
    /// What text to type.
    Text,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// "1", "2", "3": what the user can answer with ("the second one").
    pub key: String,
    /// What the user sees and hears.
    pub label: String,
    pub entity: EntityRef,
    pub probability: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub reason: RejectReason,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectReason {
    /// Nothing on screen or in the catalogs fits.
    NothingFits,
    /// The words asked for an action no target supports.
    Unsupported,
    /// There was no text to act on.
    Empty,
    /// The user cancelled the pending question.
    Cancelled,
}

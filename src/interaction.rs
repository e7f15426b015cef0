//! The interaction state machine: which relations are legal in which phase, and what they change.
//!
//! The interpreter (and later the grounding Director) *proposes* a relation; this module *disposes*.
//! Architecture invariant: pure. No I/O, no clock (`now` is a parameter), no async. Every change it
//! returns bumps the revision by exactly one and is described by events, so the stored state is a
//! projection of the event log (`apply`).

use crate::model::{
    Approval, Choice, Goal, Heard, Input, InputId, InputMode, Interaction, InteractionId, Millis,
    NodeId, Operation, OperationId, OperationStatus, Outcome, Pending, Question, QuestionKind,
    Relation, Target, TargetRef,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How long a question stays answerable.
pub const QUESTION_TTL_MS: Millis = 10 * 60 * 1000;

/// Where an interaction stands, as far as relations are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Phase {
    /// There is no current interaction on this node.
    #[default]
    Empty,
    /// A question is pending and has not expired.
    Asking,
    /// An approval is pending and has not expired.
    Approving,
    /// Its operation can still produce effects.
    Running,
    /// Nothing pending, nothing running (or a question expired).
    Finished,
    /// Cancelled: only a new request applies.
    Closed,
}

impl Phase {
    pub const ALL: [Phase; 6] = [
        Phase::Empty,
        Phase::Asking,
        Phase::Approving,
        Phase::Running,
        Phase::Finished,
        Phase::Closed,
    ];

    pub fn of(
        interaction: Option<&Interaction>,
        operation: Option<OperationStatus>,
        now: Millis,
    ) -> Phase {
        let Some(i) = interaction else {
            return Phase::Empty;
        };
        if i.closed {
            return Phase::Closed;
        }
        let waiting = operation == Some(OperationStatus::NeedsInput)
            && matches!(i.pending, Pending::Question(_) | Pending::Approval(_));
        if operation.is_some_and(|s| s.is_active()) && !waiting {
            return Phase::Running;
        }
        match &i.pending {
            Pending::Question(q) if q.expires_at > now => Phase::Asking,
            Pending::Approval(a) if a.expires_at > now => Phase::Approving,
            _ => Phase::Finished,
        }
    }
}

/// Why an input cannot apply. Every refusal leaves the stored state unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Refusal {
    #[error("revision conflict: you answered revision {expected}, but the interaction is at revision {current}")]
    RevisionConflict { expected: u64, current: u64 },
    #[error("{relation:?} does not apply now: {reason}")]
    IllegalRelation { relation: Relation, reason: String },
    #[error("invalid answer: {reason}")]
    InvalidAnswer { reason: String },
    #[error("superseded: you answered an earlier request ({named}); a newer one ({newest}) is current, and nothing was changed")]
    Superseded {
        named: InteractionId,
        newest: InteractionId,
    },
}

/// The table: which relation is legal in which phase. `Err` carries the reason a person reads.
pub fn legal(phase: Phase, relation: Relation) -> Result<(), &'static str> {
    use Phase::*;
    use Relation::*;
    match (phase, relation) {
        (_, NewRequest) => Ok(()),
        (Asking | Approving, Answer | Correction | Cancel) => Ok(()),
        (Running, Correction | Cancel) => Ok(()),
        (Finished, Correction) => Ok(()),
        (Running, Answer) => Err("nothing was asked; an operation is running"),
        (Empty | Finished | Closed, Answer) => Err("nothing was asked"),
        (Empty, Correction) => Err("there is no request to correct"),
        (Closed, Correction) => Err("that request was cancelled; make a new request"),
        (Empty | Finished | Closed, Cancel) => Err("nothing is pending or running"),
    }
}

/// What the interpreter thinks an input means. A proposal, not a decision.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Proposal {
    pub relation: Option<Relation>,
    /// For a new request or a correction that changes it.
    pub goal: Option<Goal>,
    /// Arguments named in the words (`place` = `Pune`).
    pub arguments: BTreeMap<String, String>,
    /// For an answer: the value in the person's words, already trimmed to its span.
    pub value: Option<String>,
    /// For an answer: why the words do not fit what the question expects. `dispose` refuses it
    /// with this reason and changes nothing.
    pub misfit: Option<String>,
    /// The question to ask for a slot the request leaves open, when the reader already knows it
    /// (the Director's "Did you mean Rivvl?" with its candidates); otherwise a generic one is
    /// asked.
    pub ask: Option<Ask>,
    /// Pronunciations the person confirmed with this input, stored with its change.
    pub learned: Vec<Learned>,
}

/// A question the reader composed for one slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ask {
    pub slot: String,
    pub kind: QuestionKind,
    pub prompt: String,
    pub choices: Vec<Choice>,
}

/// A confirmed pronunciation: when `heard` (lower case) is said, it means project `project` on
/// node `node`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Learned {
    pub heard: String,
    pub node: String,
    pub project: String,
}

/// One durable fact about an interaction. The log of these is the source of truth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum InteractionEvent {
    #[serde(rename_all = "camelCase")]
    Created {
        owner: NodeId,
        id: InteractionId,
        goal: Goal,
        request: String,
        #[serde(default)]
        mode: InputMode,
        /// The recogniser's hypotheses of a spoken request, best first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        heard: Vec<Heard>,
        arguments: BTreeMap<String, String>,
    },
    /// A step that cannot be undone waits for an explicit yes.
    ApprovalAsked {
        approval: Approval,
    },
    Asked {
        question: Question,
    },
    #[serde(rename_all = "camelCase")]
    Answered {
        slot: String,
        value: String,
        input: InputId,
        /// Arguments the answer settles beside its slot (a confirmed project's objective, read
        /// from the request's own words); empty for most answers.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        arguments: BTreeMap<String, String>,
    },
    Corrected {
        arguments: BTreeMap<String, String>,
        input: InputId,
    },
    #[serde(rename_all = "camelCase")]
    OperationAccepted {
        operation: OperationId,
        target: Target,
    },
    OutcomeRecorded {
        outcome: Outcome,
    },
    Cancelled {
        input: InputId,
    },
    /// A new request arrived while this one's question was pending: the question is set aside
    /// (closed, like a cancel) and its waiting operation stopped; `by` is the new interaction.
    SetAside {
        input: InputId,
        by: InteractionId,
    },
}

/// An operation the change asks the engine to accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperationPlan {
    pub id: OperationId,
    pub goal: Goal,
    pub arguments: BTreeMap<String, String>,
    pub mode: InputMode,
    pub heard: Vec<Heard>,
    pub target: Target,
    pub authorized_scope: Vec<String>,
    pub expected_outcome: String,
}

impl OperationPlan {
    /// The operation record this plan becomes when it is accepted for `interaction`.
    pub fn accepted(&self, interaction: &Interaction, now: Millis) -> Operation {
        Operation {
            id: self.id,
            interaction: interaction.id,
            interaction_revision: interaction.revision,
            target: self.target.clone(),
            authorized_scope: self.authorized_scope.clone(),
            goal: self.goal,
            arguments: self.arguments.clone(),
            mode: self.mode,
            heard: self.heard.clone(),
            expected_outcome: self.expected_outcome.clone(),
            status: OperationStatus::Accepted,
            revision: 1,
            steps: Vec::new(),
            stop: None,
            outcome: None,
            accepted_at: now,
            updated_at: now,
        }
    }
}

/// The result of disposing an input: the new state, the events that explain it, and the effects.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub interaction: Interaction,
    pub events: Vec<InteractionEvent>,
    /// True when the input started a new interaction.
    pub created: bool,
    /// Accept this operation in the same transaction.
    pub start: Option<OperationPlan>,
    /// Stop this operation (a cancel, a correction that replaces it, a request that sets its
    /// question aside). When it waits for an answer the stop ends it in the same commit.
    pub stop: Option<Stop>,
    /// Resume this operation, which was waiting for the answer, with these arguments.
    pub resume: Option<(OperationId, BTreeMap<String, String>)>,
    /// The interaction whose pending question this new request set aside, committed in the same
    /// transaction; its waiting operation is in `stop`.
    pub set_aside: Option<Box<Change>>,
    /// Pronunciations confirmed by this input, stored in the same commit.
    pub learned: Vec<Learned>,
}

/// An operation this change stops, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    pub operation: OperationId,
    pub reason: StopReason,
    /// It waits for an answer (needsInput): nothing runs, so nothing has to confirm; the stop is
    /// confirmed with the change itself.
    pub waiting: bool,
}

/// Why an input stops an operation; `as_str` is what its stop records as requested by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Cancel,
    Correction,
    SetAside,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Cancel => "cancel",
            StopReason::Correction => "correction",
            StopReason::SetAside => "set aside by a new request",
        }
    }
}

/// Everything `dispose` needs, gathered by the caller.
pub struct Context<'a> {
    pub node: &'a str,
    pub current: Option<&'a Interaction>,
    pub operation_status: Option<OperationStatus>,
    /// The node's newest interaction. When the input named another (`current`), the client's
    /// view is stale, so only a new request may follow from it.
    pub newest: Option<InteractionId>,
    pub now: Millis,
    /// Ids the caller generated for anything this change may create.
    pub new_interaction_id: InteractionId,
    pub new_operation_id: OperationId,
}

/// The slots a goal needs before an operation can run (the desktop's heading recipe needs its
/// heading; its general steps only the request).
pub fn required_slots(goal: Goal, arguments: &BTreeMap<String, String>) -> &'static [&'static str] {
    match goal {
        Goal::Weather => &["place"],
        Goal::Browser => &["request"],
        Goal::NativeApp if arguments.get("task").is_some_and(|t| t == "steps") => &["request"],
        Goal::NativeApp => &["heading"],
        Goal::Coding => &["project", "objective"],
        Goal::Conversation => &[],
    }
}

/// Decide what an input does to the current interaction.
pub fn dispose(cx: &Context<'_>, input: &Input, proposal: &Proposal) -> Result<Change, Refusal> {
    let phase = Phase::of(cx.current, cx.operation_status, cx.now);
    if let (Some(expected), Some(current)) = (input.expected_revision, cx.current) {
        if expected != current.revision {
            return Err(Refusal::RevisionConflict {
                expected,
                current: current.revision,
            });
        }
    }
    let relation = proposal.relation.unwrap_or(match phase {
        Phase::Asking | Phase::Approving => Relation::Answer,
        _ => Relation::NewRequest,
    });
    // An answer, a correction or a cancel read against a request that is no longer the newest
    // would act on what the person no longer sees as current: the stale view loses, visibly.
    if let (Some(named), Some(newest)) = (cx.current, cx.newest) {
        if relation != Relation::NewRequest && named.id != newest {
            return Err(Refusal::Superseded {
                named: named.id,
                newest,
            });
        }
    }
    legal(phase, relation).map_err(|reason| Refusal::IllegalRelation {
        relation,
        reason: reason.to_string(),
    })?;
    if relation == Relation::Answer {
        if let Some(reason) = &proposal.misfit {
            return Err(Refusal::InvalidAnswer {
                reason: reason.clone(),
            });
        }
    }
    let mut draft = match relation {
        Relation::NewRequest => new_request(cx, input, proposal),
        Relation::Answer => answer(cx, input, proposal, phase)?,
        Relation::Correction => correction(cx, input, proposal, phase)?,
        Relation::Cancel => cancel(cx, input, phase),
    };
    draft.ask = proposal.ask.clone();
    if relation == Relation::Answer {
        draft.learned = proposal.learned.clone();
    }
    let aside = (relation == Relation::NewRequest)
        .then(|| set_aside(cx, input, phase))
        .flatten();
    if aside.is_none() {
        advance(cx, &mut draft);
    } else {
        // The new interaction has no operation waiting: advance as if nothing were current.
        let fresh = Context {
            current: None,
            operation_status: None,
            ..*cx
        };
        advance(&fresh, &mut draft);
    }
    let mut change = draft.finish();
    if let Some((old, waiting)) = aside {
        change.set_aside = Some(Box::new(old));
        change.stop = waiting.map(|operation| Stop {
            operation,
            reason: StopReason::SetAside,
            waiting: true,
        });
    }
    Ok(change)
}

/// A change being built: the state it started from, the events so far, and its one new revision.
struct Draft {
    base: Option<Interaction>,
    events: Vec<InteractionEvent>,
    revision: u64,
    now: Millis,
    start: Option<OperationPlan>,
    stop: Option<Stop>,
    resume: Option<(OperationId, BTreeMap<String, String>)>,
    ask: Option<Ask>,
    learned: Vec<Learned>,
}

impl Draft {
    fn from(base: Option<&Interaction>, now: Millis) -> Draft {
        Draft {
            revision: base.map_or(1, |b| b.revision + 1),
            base: base.cloned(),
            events: Vec::new(),
            now,
            start: None,
            stop: None,
            resume: None,
            ask: None,
            learned: Vec::new(),
        }
    }

    fn state(&self) -> Interaction {
        let mut state = self.base.clone();
        for event in &self.events {
            state = Some(apply(state.as_ref(), event, self.revision, self.now));
        }
        state.expect("a draft has a base or a Created event")
    }

    fn finish(self) -> Change {
        Change {
            interaction: self.state(),
            created: self.base.is_none(),
            events: self.events,
            start: self.start,
            stop: self.stop,
            resume: self.resume,
            set_aside: None,
            learned: self.learned,
        }
    }
}

fn new_request(cx: &Context<'_>, input: &Input, proposal: &Proposal) -> Draft {
    let mut draft = Draft::from(None, cx.now);
    draft.events.push(InteractionEvent::Created {
        owner: cx.node.to_string(),
        id: cx.new_interaction_id,
        goal: proposal.goal.unwrap_or(Goal::Conversation),
        request: input.text.clone(),
        mode: input.mode,
        heard: input.heard.clone(),
        arguments: proposal.arguments.clone(),
    });
    draft
}

/// The set-aside rule: a new request while a question (or approval) is pending closes that
/// interaction (`SetAside`, naming the new one) and stops its waiting operation, so nothing is
/// left half-asked behind the new request. The old question stays readable in its interaction.
/// An expired question whose operation still waits is set aside the same way: the operation
/// must not outlive it.
fn set_aside(
    cx: &Context<'_>,
    input: &Input,
    phase: Phase,
) -> Option<(Change, Option<OperationId>)> {
    if !matches!(phase, Phase::Asking | Phase::Approving) && waiting_operation(cx).is_none() {
        return None;
    }
    let current = cx.current?;
    let mut draft = Draft::from(Some(current), cx.now);
    draft.events.push(InteractionEvent::SetAside {
        input: input.id,
        by: cx.new_interaction_id,
    });
    Some((draft.finish(), waiting_operation(cx)))
}

fn answer(
    cx: &Context<'_>,
    input: &Input,
    proposal: &Proposal,
    phase: Phase,
) -> Result<Draft, Refusal> {
    let current = cx
        .current
        .expect("Asking and Approving have an interaction");
    let mut draft = Draft::from(Some(current), cx.now);
    let event = match (&current.pending, phase) {
        (Pending::Question(q), Phase::Asking) => InteractionEvent::Answered {
            slot: q.slot.clone(),
            value: answer_value(q, input, proposal)?,
            input: input.id,
            arguments: proposal.arguments.clone(),
        },
        (Pending::Approval(a), Phase::Approving) => {
            let value = proposal.value.as_deref().unwrap_or(input.text.as_str());
            match yes_or_no(value) {
                // The yes names what it approves: the waiting step runs on that only.
                Some(true) => InteractionEvent::Answered {
                    slot: "approval".into(),
                    value: "yes".into(),
                    input: input.id,
                    arguments: [("approved".to_string(), a.key.clone())].into(),
                },
                Some(false) => InteractionEvent::Cancelled { input: input.id },
                None => {
                    return Err(Refusal::InvalidAnswer {
                        reason: "say yes or no".into(),
                    })
                }
            }
        }
        _ => unreachable!("phase Asking/Approving matches the pending kind"),
    };
    // "No" to an approval withdraws it: the operation that waited for it ends with it.
    if matches!(event, InteractionEvent::Cancelled { .. }) {
        draft.stop = stop_for(cx, phase, StopReason::Cancel);
    }
    draft.events.push(event);
    Ok(draft)
}

fn answer_value(q: &Question, input: &Input, proposal: &Proposal) -> Result<String, Refusal> {
    if let Some(n) = input.choice {
        return match q.choices.get(n.wrapping_sub(1)) {
            Some(c) => Ok(c.key.clone()),
            None if q.choices.is_empty() => Err(Refusal::InvalidAnswer {
                reason: "this question has no numbered choices; answer in words".into(),
            }),
            None => Err(Refusal::InvalidAnswer {
                reason: format!(
                    "choice {n} does not exist; there are {} choices",
                    q.choices.len()
                ),
            }),
        };
    }
    let value = proposal
        .value
        .clone()
        .unwrap_or_else(|| input.text.trim().to_string());
    if value.is_empty() {
        return Err(Refusal::InvalidAnswer {
            reason: format!("the answer for {} is empty", q.slot),
        });
    }
    if !q.choices.is_empty() {
        let found = q
            .choices
            .iter()
            .find(|c| c.key.eq_ignore_ascii_case(&value) || c.label.eq_ignore_ascii_case(&value));
        return found
            .map(|c| c.key.clone())
            .ok_or_else(|| Refusal::InvalidAnswer {
                reason: format!("\"{value}\" is not one of the choices"),
            });
    }
    Ok(value)
}

fn correction(
    cx: &Context<'_>,
    input: &Input,
    proposal: &Proposal,
    phase: Phase,
) -> Result<Draft, Refusal> {
    let current = cx.current.expect("a correction needs an interaction");
    let mut arguments = proposal.arguments.clone();
    if arguments.is_empty() {
        // "No, Pune" while asking: the corrected value fills the slot that was asked; otherwise
        // ("no, I meant Mumbai" while it runs) the goal's one required slot, when it has exactly one.
        let slot = match (
            &current.pending,
            required_slots(current.goal, &current.arguments),
        ) {
            (Pending::Question(q), _) => Some(q.slot.clone()),
            (_, [only]) => Some(only.to_string()),
            _ => None,
        };
        if let (Some(slot), Some(v)) = (slot, &proposal.value) {
            arguments.insert(slot, v.clone());
        }
    }
    if arguments.is_empty() {
        return Err(Refusal::InvalidAnswer {
            reason: "I could not tell what to change; say the new value, for example \"actually, in Pune\"".into(),
        });
    }
    let mut draft = Draft::from(Some(current), cx.now);
    draft.events.push(InteractionEvent::Corrected {
        arguments,
        input: input.id,
    });
    draft.stop = stop_for(cx, phase, StopReason::Correction);
    Ok(draft)
}

fn cancel(cx: &Context<'_>, input: &Input, phase: Phase) -> Draft {
    let current = cx.current.expect("a cancel needs an interaction");
    let mut draft = Draft::from(Some(current), cx.now);
    draft
        .events
        .push(InteractionEvent::Cancelled { input: input.id });
    draft.stop = stop_for(cx, phase, StopReason::Cancel);
    draft
}

/// The current operation, when a cancel or correction must stop it: it runs, or it waits.
fn stop_for(cx: &Context<'_>, phase: Phase, reason: StopReason) -> Option<Stop> {
    let waiting = waiting_operation(cx);
    if phase != Phase::Running && waiting.is_none() {
        return None;
    }
    cx.current.and_then(|c| c.operation).map(|operation| Stop {
        operation,
        reason,
        waiting: waiting.is_some(),
    })
}

/// After a change: ask for the first missing slot, or accept the operation.
fn advance(cx: &Context<'_>, draft: &mut Draft) {
    let i = draft.state();
    if i.closed || !matches!(i.pending, Pending::None) {
        return;
    }
    let missing = required_slots(i.goal, &i.arguments)
        .iter()
        .find(|s| !i.arguments.contains_key(**s));
    if let (None, Some(op)) = (missing, waiting_operation(cx)) {
        // The operation asked; the answer resumes that same operation, once.
        if draft.stop.is_none() {
            draft.resume = Some((op, i.arguments.clone()));
            return;
        }
    }
    let event = match missing {
        Some(slot) => InteractionEvent::Asked {
            question: match draft.ask.as_ref().filter(|a| a.slot == *slot) {
                Some(ask) => Question {
                    kind: ask.kind,
                    slot: ask.slot.clone(),
                    prompt: ask.prompt.clone(),
                    known_arguments: i.arguments.clone(),
                    choices: ask.choices.clone(),
                    owner: cx.node.to_string(),
                    expires_at: cx.now + QUESTION_TTL_MS,
                },
                None => question_for(cx, &i, slot),
            },
        },
        None => {
            let plan = plan_for(cx, &i);
            let event = InteractionEvent::OperationAccepted {
                operation: plan.id,
                target: plan.target.clone(),
            };
            draft.start = Some(plan);
            event
        }
    };
    draft.events.push(event);
}

/// The current interaction's operation, when it is waiting for an answer.
fn waiting_operation(cx: &Context<'_>) -> Option<OperationId> {
    (cx.operation_status == Some(OperationStatus::NeedsInput))
        .then(|| cx.current.and_then(|c| c.operation))
        .flatten()
}

fn question_for(cx: &Context<'_>, i: &Interaction, slot: &str) -> Question {
    let prompt = match (i.goal, slot) {
        (Goal::Weather, "place") => "Which city?".to_string(),
        (Goal::NativeApp, "heading") => "What should the new heading say?".to_string(),
        (Goal::Coding, "objective") => format!(
            "What should I do in {}?",
            i.arguments.get("project").map_or("that project", |s| s)
        ),
        (_, slot) => format!("What {slot}?"),
    };
    Question {
        kind: if slot == "place" {
            QuestionKind::Place
        } else {
            QuestionKind::Text
        },
        slot: slot.to_string(),
        prompt,
        known_arguments: i.arguments.clone(),
        choices: Vec::<Choice>::new(),
        owner: cx.node.to_string(),
        expires_at: cx.now + QUESTION_TTL_MS,
    }
}

fn plan_for(cx: &Context<'_>, i: &Interaction) -> OperationPlan {
    let (application, scope, expected) = match i.goal {
        Goal::Weather => (
            "weather-service",
            "weather:read",
            format!(
                "the current weather for {}",
                i.arguments.get("place").map_or("", |s| s)
            ),
        ),
        Goal::Browser => (
            "chrome",
            "browser:act",
            format!(
                "\"{}\" done in the browser",
                i.arguments.get("request").map_or("", |s| s)
            ),
        ),
        Goal::Coding => (
            "coding-provider",
            "coding:run",
            format!(
                "\"{}\" done in {}, as its provider command reports",
                i.arguments.get("objective").map_or("", |s| s),
                i.arguments.get("project").map_or("", |s| s)
            ),
        ),
        other => ("unresolved", "none", format!("a {} task", other.as_str())),
    };
    OperationPlan {
        id: cx.new_operation_id,
        goal: i.goal,
        arguments: i.arguments.clone(),
        mode: i.mode,
        heard: i.heard.clone(),
        target: Target::App(TargetRef {
            node: cx.node.to_string(),
            desktop_session: None,
            application: application.to_string(),
        }),
        authorized_scope: vec![scope.to_string()],
        expected_outcome: expected,
    }
}

/// Put a question an operation asks on its interaction: one change, one new revision.
pub fn ask(current: &Interaction, question: Question, now: Millis) -> Change {
    let mut draft = Draft::from(Some(current), now);
    draft.events.push(InteractionEvent::Asked { question });
    draft.finish()
}

/// An operation's step waits for an approval: it goes on the interaction, one new revision.
pub fn ask_approval(current: &Interaction, approval: Approval, now: Millis) -> Change {
    let mut draft = Draft::from(Some(current), now);
    draft
        .events
        .push(InteractionEvent::ApprovalAsked { approval });
    draft.finish()
}

/// Record an operation's outcome on its interaction: one change, one new revision.
pub fn record_outcome(current: &Interaction, outcome: Outcome, now: Millis) -> Change {
    let mut draft = Draft::from(Some(current), now);
    draft
        .events
        .push(InteractionEvent::OutcomeRecorded { outcome });
    draft.finish()
}

/// Apply one event to a state, giving it `revision`. Replaying the log through this gives the projection.
pub fn apply(
    state: Option<&Interaction>,
    event: &InteractionEvent,
    revision: u64,
    at: Millis,
) -> Interaction {
    let mut i = match (state, event) {
        (
            _,
            InteractionEvent::Created {
                owner,
                id,
                goal,
                request,
                mode,
                heard,
                arguments,
            },
        ) => Interaction {
            owner: owner.clone(),
            id: *id,
            revision: 0,
            goal: *goal,
            request: request.clone(),
            mode: *mode,
            heard: heard.clone(),
            arguments: arguments.clone(),
            pending: Pending::None,
            target: Target::Unresolved,
            operation: None,
            outcome: None,
            closed: false,
            created_at: at,
            updated_at: at,
        },
        (Some(s), _) => s.clone(),
        (None, _) => panic!("event {event:?} needs an existing interaction"),
    };
    match event {
        InteractionEvent::Created { .. } => {}
        InteractionEvent::Asked { question } => i.pending = Pending::Question(question.clone()),
        InteractionEvent::ApprovalAsked { approval } => {
            i.pending = Pending::Approval(approval.clone())
        }
        InteractionEvent::Answered {
            slot,
            value,
            arguments,
            ..
        } => {
            if slot != "approval" {
                i.arguments.insert(slot.clone(), value.clone());
            }
            i.arguments.extend(arguments.clone());
            i.pending = Pending::None;
        }
        InteractionEvent::Corrected { arguments, .. } => {
            i.arguments.extend(arguments.clone());
            i.pending = Pending::None;
            i.outcome = None;
        }
        InteractionEvent::OperationAccepted { operation, target } => {
            i.operation = Some(*operation);
            i.target = target.clone();
            i.outcome = None;
        }
        InteractionEvent::OutcomeRecorded { outcome } => {
            // The operation ended: a question it asked can no longer be answered.
            i.outcome = Some(outcome.clone());
            i.pending = Pending::None;
        }
        InteractionEvent::Cancelled { .. } | InteractionEvent::SetAside { .. } => {
            i.pending = Pending::None;
            i.closed = true;
        }
    }
    i.revision = revision;
    i.updated_at = at;
    i
}

fn yes_or_no(text: &str) -> Option<bool> {
    let t = text
        .trim()
        .trim_end_matches(['.', '!'])
        .to_ascii_lowercase();
    match t.as_str() {
        "yes" | "yeah" | "yep" | "sure" | "ok" | "okay" | "do it" | "go ahead" | "confirm" => {
            Some(true)
        }
        "no" | "nope" | "don't" | "do not" | "cancel" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{InputMode, OperationStatus};
    use uuid::Uuid;

    const NODE: &str = "desk";
    const NOW: Millis = 1_000_000;

    fn input(text: &str) -> Input {
        Input {
            id: Uuid::from_u128(7),
            device: "phone".into(),
            text: text.into(),
            choice: None,
            mode: InputMode::Typed,
            interaction: None,
            expected_revision: None,
            heard: Vec::new(),
        }
    }

    fn cx<'a>(current: Option<&'a Interaction>, status: Option<OperationStatus>) -> Context<'a> {
        Context {
            node: NODE,
            current,
            operation_status: status,
            newest: None,
            now: NOW,
            new_interaction_id: Uuid::from_u128(1),
            new_operation_id: Uuid::from_u128(2),
        }
    }

    fn weather(arguments: &[(&str, &str)]) -> Proposal {
        Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Weather),
            arguments: arguments
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Proposal::default()
        }
    }

    fn relation(r: Relation, value: Option<&str>, place: Option<&str>) -> Proposal {
        let mut p = Proposal {
            relation: Some(r),
            value: value.map(String::from),
            ..Proposal::default()
        };
        if let Some(place) = place {
            p.arguments.insert("place".into(), place.into());
        }
        p
    }

    #[test]
    fn a_spoken_request_keeps_its_hypotheses_through_to_the_operation() {
        let heard = vec![
            Heard::new("open the kallax shelf page", Some(0.6)),
            Heard::new("open the calax shelf page", Some(0.3)),
        ];
        let spoken = Input {
            mode: InputMode::Voice,
            heard: heard.clone(),
            ..input("open the kallax shelf page")
        };
        let proposal = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Browser),
            arguments: [("request".to_string(), spoken.text.clone())].into(),
            ..Proposal::default()
        };
        let change = dispose(&cx(None, None), &spoken, &proposal).unwrap();
        assert_eq!(change.interaction.heard, heard);
        let plan = change.start.expect("a browser request starts an operation");
        assert_eq!(plan.heard, heard);
        assert_eq!(plan.accepted(&change.interaction, NOW).heard, heard);
        // Replaying the log gives the same projection.
        let mut state = None;
        for (n, e) in change.events.iter().enumerate() {
            state = Some(apply(state.as_ref(), e, n as u64 + 1, NOW));
        }
        assert_eq!(state.unwrap().heard, heard);
        // Typed input carries none, and an old client's JSON without the field still parses.
        let typed = dispose(&cx(None, None), &input("open the shelf"), &proposal).unwrap();
        assert!(typed.interaction.heard.is_empty());
        let old: Input = serde_json::from_str(
            r#"{"id":"00000000-0000-0000-0000-000000000007","device":"cli","text":"stop"}"#,
        )
        .unwrap();
        assert!(old.heard.is_empty());
        assert!(!serde_json::to_string(&old).unwrap().contains("heard"));
    }

    /// An interaction in each phase, built through `dispose` itself.
    fn in_phase(phase: Phase) -> (Option<Interaction>, Option<OperationStatus>) {
        let asking = dispose(
            &cx(None, None),
            &input("what's the weather?"),
            &weather(&[]),
        )
        .unwrap()
        .interaction;
        let running = dispose(
            &cx(None, None),
            &input("weather in Pune"),
            &weather(&[("place", "Pune")]),
        )
        .unwrap()
        .interaction;
        match phase {
            Phase::Empty => (None, None),
            Phase::Asking => (Some(asking), None),
            Phase::Approving => {
                let mut i = running;
                i.operation = None;
                i.pending = Pending::Approval(crate::model::Approval {
                    prompt: "Send it?".into(),
                    expires_at: NOW + 1000,
                    key: "0:r1".into(),
                });
                (Some(i), None)
            }
            Phase::Running => (Some(running), Some(OperationStatus::Running)),
            Phase::Finished => (Some(running), Some(OperationStatus::Completed)),
            Phase::Closed => {
                let c = dispose(
                    &cx(Some(&asking), None),
                    &input("cancel"),
                    &relation(Relation::Cancel, None, None),
                )
                .unwrap();
                (Some(c.interaction), None)
            }
        }
    }

    /// Every (phase, relation) pair: legal ones apply and bump the revision once; illegal ones refuse.
    #[test]
    fn transition_table() {
        use Phase::*;
        use Relation::*;
        let table: [(Phase, [bool; 4]); 6] = [
            //            Answer Correction NewRequest Cancel
            (Empty, [false, false, true, false]),
            (Asking, [true, true, true, true]),
            (Approving, [true, true, true, true]),
            (Running, [false, true, true, true]),
            (Finished, [false, true, true, false]),
            (Closed, [false, false, true, false]),
        ];
        assert_eq!(table.len(), Phase::ALL.len());
        for (phase, row) in table {
            let (current, status) = in_phase(phase);
            assert_eq!(Phase::of(current.as_ref(), status, NOW), phase);
            for (relation, expect_legal) in Relation::ALL.into_iter().zip(row) {
                assert_eq!(
                    legal(phase, relation).is_ok(),
                    expect_legal,
                    "{phase:?} × {relation:?}"
                );
                let proposal = match relation {
                    Answer => relation_value(phase),
                    Correction => super::tests::relation(Correction, None, Some("Pune")),
                    NewRequest => weather(&[]),
                    Cancel => super::tests::relation(Cancel, None, None),
                };
                let result = dispose(&cx(current.as_ref(), status), &input("x"), &proposal);
                match (expect_legal, &result) {
                    (true, Ok(change)) => {
                        let expected_revision = if relation == NewRequest {
                            1
                        } else {
                            current.as_ref().unwrap().revision + 1
                        };
                        assert_eq!(
                            change.interaction.revision, expected_revision,
                            "{phase:?} × {relation:?}"
                        );
                        assert!(!change.events.is_empty());
                    }
                    (false, Err(Refusal::IllegalRelation { relation: r, .. })) => {
                        assert_eq!(*r, relation)
                    }
                    _ => panic!("{phase:?} × {relation:?}: unexpected {result:?}"),
                }
            }
        }
    }

    fn relation_value(phase: Phase) -> Proposal {
        let v = if phase == Phase::Approving {
            "yes"
        } else {
            "Ahmedabad"
        };
        relation(Relation::Answer, Some(v), None)
    }

    #[test]
    fn question_then_answer_accepts_an_operation() {
        let asked = dispose(
            &cx(None, None),
            &input("what's the weather?"),
            &weather(&[]),
        )
        .unwrap();
        assert!(asked.created && asked.start.is_none());
        let Pending::Question(q) = &asked.interaction.pending else {
            panic!("no question")
        };
        assert_eq!((q.slot.as_str(), q.owner.as_str()), ("place", NODE));
        let answered = dispose(
            &cx(Some(&asked.interaction), None),
            &input("Ahmedabad"),
            &relation(Relation::Answer, Some("Ahmedabad"), None),
        )
        .unwrap();
        assert_eq!(answered.interaction.revision, 2);
        assert_eq!(answered.interaction.pending, Pending::None);
        let plan = answered.start.expect("an operation");
        assert_eq!(
            plan.arguments.get("place").map(String::as_str),
            Some("Ahmedabad")
        );
        assert_eq!(answered.interaction.operation, Some(plan.id));
    }

    #[test]
    fn correction_while_running_replaces_the_operation() {
        let (current, status) = in_phase(Phase::Running);
        let old = current.as_ref().unwrap().operation;
        let mut c = cx(current.as_ref(), status);
        c.new_operation_id = Uuid::from_u128(99);
        let change = dispose(
            &c,
            &input("actually in Mumbai"),
            &relation(Relation::Correction, None, Some("Mumbai")),
        )
        .unwrap();
        let stop = change.stop.unwrap();
        assert_eq!(Some(stop.operation), old);
        assert_eq!((stop.reason, stop.waiting), (StopReason::Correction, false));
        assert_eq!(
            change.interaction.id,
            current.unwrap().id,
            "same interaction, not a new request"
        );
        assert_eq!(change.start.unwrap().arguments["place"], "Mumbai");
    }

    #[test]
    fn a_bare_corrected_value_fills_the_goals_one_slot() {
        let (current, status) = in_phase(Phase::Running);
        let change = dispose(
            &cx(current.as_ref(), status),
            &input("no, I meant Mumbai"),
            &relation(Relation::Correction, Some("Mumbai"), None),
        )
        .unwrap();
        assert_eq!(change.start.unwrap().arguments["place"], "Mumbai");
        assert_eq!(change.stop.map(|s| s.operation), current.unwrap().operation);
    }

    #[test]
    fn stale_revision_loses_and_names_the_current_one() {
        let (current, _) = in_phase(Phase::Asking);
        let mut i = input("Pune");
        i.expected_revision = Some(0);
        let err = dispose(
            &cx(current.as_ref(), None),
            &i,
            &relation(Relation::Answer, Some("Pune"), None),
        )
        .unwrap_err();
        assert_eq!(
            err,
            Refusal::RevisionConflict {
                expected: 0,
                current: 1
            }
        );
    }

    #[test]
    fn an_input_naming_an_older_interaction_only_starts_a_new_request() {
        // The client had not yet seen the newer request: its correction, answer or cancel of the
        // older one loses and changes nothing; a new request from it runs as ever.
        let newest = Uuid::from_u128(99);
        for (phase, rel, value) in [
            (Phase::Finished, Relation::Correction, Some("blues")),
            (Phase::Running, Relation::Correction, Some("blues")),
            (Phase::Running, Relation::Cancel, None),
            (Phase::Asking, Relation::Answer, Some("Pune")),
        ] {
            let (current, status) = in_phase(phase);
            let mut stale = cx(current.as_ref(), status);
            stale.newest = Some(newest);
            let named = current.as_ref().unwrap().id;
            assert_eq!(
                dispose(
                    &stale,
                    &input("no, I meant blues"),
                    &relation(rel, value, None)
                ),
                Err(Refusal::Superseded { named, newest }),
                "{phase:?} {rel:?}"
            );
            // The same input against the newest interaction is read as ever.
            let fresh = cx(current.as_ref(), status);
            assert!(
                dispose(
                    &fresh,
                    &input("no, I meant blues"),
                    &relation(rel, value, None)
                )
                .is_ok(),
                "{phase:?} {rel:?}"
            );
        }
        let (current, status) = in_phase(Phase::Finished);
        let mut stale = cx(current.as_ref(), status);
        stale.newest = Some(newest);
        let change = dispose(
            &stale,
            &input("weather in Pune"),
            &weather(&[("place", "Pune")]),
        );
        assert!(change.unwrap().start.is_some());
    }

    #[test]
    fn expired_question_cannot_be_answered() {
        let (current, _) = in_phase(Phase::Asking);
        let mut late = cx(current.as_ref(), None);
        late.now = NOW + QUESTION_TTL_MS + 1;
        let err = dispose(
            &late,
            &input("Pune"),
            &relation(Relation::Answer, Some("Pune"), None),
        )
        .unwrap_err();
        assert!(matches!(
            err,
            Refusal::IllegalRelation {
                relation: Relation::Answer,
                ..
            }
        ));
    }

    #[test]
    fn choices_by_number_are_checked() {
        let (current, _) = in_phase(Phase::Asking);
        let mut i = current.unwrap();
        let Pending::Question(q) = &mut i.pending else {
            unreachable!()
        };
        q.choices = vec![
            Choice {
                key: "ahmedabad-in".into(),
                label: "Ahmedabad, India".into(),
            },
            Choice {
                key: "ahmedabad-us".into(),
                label: "Ahmedabad, Kansas".into(),
            },
        ];
        let mut pick = input("");
        pick.choice = Some(2);
        let change = dispose(
            &cx(Some(&i), None),
            &pick,
            &relation(Relation::Answer, None, None),
        )
        .unwrap();
        assert_eq!(change.interaction.arguments["place"], "ahmedabad-us");
        pick.choice = Some(3);
        let err = dispose(
            &cx(Some(&i), None),
            &pick,
            &relation(Relation::Answer, None, None),
        )
        .unwrap_err();
        assert!(err.to_string().contains("there are 2 choices"), "{err}");
    }

    /// A step waiting for approval: "yes" resumes that operation with `approved` naming the
    /// step; "no" closes the interaction and stops it; a stale revision loses.
    #[test]
    fn an_approval_names_what_it_approves_and_no_withdraws_it() {
        let mut c = cx(None, None);
        let browse = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Browser),
            arguments: [("request".to_string(), "place order".to_string())].into(),
            ..Proposal::default()
        };
        let started = dispose(&c, &input("place order"), &browse).unwrap();
        let op = started.start.unwrap().id;
        let approval = Approval {
            prompt: "Click \"Place order\"? It cannot be undone.".into(),
            expires_at: NOW + 1000,
            key: "0:r7".into(),
        };
        let asked = ask_approval(&started.interaction, approval.clone(), NOW);
        assert_eq!(asked.interaction.pending, Pending::Approval(approval));
        c.current = Some(&asked.interaction);
        c.operation_status = Some(OperationStatus::NeedsInput);
        assert_eq!(
            Phase::of(c.current, c.operation_status, NOW),
            Phase::Approving
        );
        let yes = dispose(
            &c,
            &input("yes"),
            &relation(Relation::Answer, Some("yes"), None),
        )
        .unwrap();
        let (resumed, args) = yes.resume.expect("the same operation resumes");
        assert_eq!((resumed, args["approved"].as_str()), (op, "0:r7"));
        let no = dispose(
            &c,
            &input("no"),
            &relation(Relation::Answer, Some("no"), None),
        )
        .unwrap();
        assert!(no.interaction.closed);
        assert_eq!(no.stop.map(|s| (s.operation, s.waiting)), Some((op, true)));
        let mut stale = input("yes");
        stale.interaction = Some(asked.interaction.id);
        stale.expected_revision = Some(asked.interaction.revision - 1);
        assert!(matches!(
            dispose(&c, &stale, &relation(Relation::Answer, Some("yes"), None)),
            Err(Refusal::RevisionConflict { .. })
        ));
    }

    #[test]
    fn an_answer_to_an_operations_question_resumes_that_operation_once() {
        let mut c = cx(None, None);
        let browse = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Browser),
            arguments: [("request".to_string(), "open the thing".to_string())].into(),
            ..Proposal::default()
        };
        let started = dispose(&c, &input("open the thing"), &browse).unwrap();
        let op = started
            .start
            .expect("a browser request starts an operation")
            .id;
        let question = Question {
            kind: crate::model::QuestionKind::Choice,
            slot: "target".into(),
            prompt: "Which one?".into(),
            known_arguments: started.interaction.arguments.clone(),
            choices: vec![
                Choice {
                    key: "r1".into(),
                    label: "A".into(),
                },
                Choice {
                    key: "r2".into(),
                    label: "B".into(),
                },
            ],
            owner: NODE.into(),
            expires_at: NOW + 1000,
        };
        let asked = ask(&started.interaction, question, NOW);
        assert_eq!(asked.interaction.revision, started.interaction.revision + 1);
        c.current = Some(&asked.interaction);
        c.operation_status = Some(OperationStatus::NeedsInput);
        assert_eq!(Phase::of(c.current, c.operation_status, NOW), Phase::Asking);
        let answered = dispose(
            &c,
            &input("the second one"),
            &relation(Relation::Answer, Some("r2"), None),
        )
        .unwrap();
        assert!(answered.start.is_none(), "no second operation");
        let (resumed, args) = answered.resume.expect("the same operation resumes");
        assert_eq!(resumed, op);
        assert_eq!(args["target"], "r2");
        assert_eq!(args["request"], "open the thing");
        // A cancel instead stops the waiting operation.
        let cancelled = dispose(
            &c,
            &input("cancel"),
            &relation(Relation::Cancel, None, None),
        )
        .unwrap();
        let stop = Stop {
            operation: op,
            reason: StopReason::Cancel,
            waiting: true,
        };
        assert_eq!((cancelled.stop, cancelled.resume), (Some(stop), None));
        // A correction stops it too (and starts the corrected one); a new request sets it aside.
        let corrected = dispose(
            &c,
            &input("no, I meant r1"),
            &relation(Relation::Correction, Some("r1"), None),
        )
        .unwrap();
        assert_eq!(
            corrected.stop,
            Some(Stop {
                reason: StopReason::Correction,
                ..stop
            })
        );
        assert!(corrected.start.is_some() && corrected.resume.is_none());
        let aside = dispose(
            &c,
            &input("scroll down"),
            &relation(Relation::NewRequest, None, None),
        )
        .unwrap();
        assert_eq!(
            aside.stop,
            Some(Stop {
                reason: StopReason::SetAside,
                ..stop
            })
        );
        assert!(aside.set_aside.unwrap().interaction.closed);
        // Once its question expired, a new request still ends the operation that waits on it.
        let late = Context {
            now: c.now + QUESTION_TTL_MS + 1,
            ..c
        };
        let aside = dispose(
            &late,
            &input("scroll down"),
            &relation(Relation::NewRequest, None, None),
        )
        .unwrap();
        assert_eq!(
            aside.stop,
            Some(Stop {
                reason: StopReason::SetAside,
                ..stop
            })
        );
    }

    /// A coding request the reader could not route asks the reader's own question; the answer
    /// settles the objective beside its slot and carries the pronunciation it confirmed; one
    /// routed but with nothing to do asks for the objective.
    #[test]
    fn a_coding_request_asks_the_readers_question_and_the_answer_settles_the_objective() {
        let choice = Choice {
            key: "desk/Rivvl".into(),
            label: "Rivvl".into(),
        };
        let asking = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Coding),
            arguments: [(
                "request".to_string(),
                "in Rivel, check out branch Zivil".to_string(),
            )]
            .into(),
            ask: Some(Ask {
                slot: "project".into(),
                kind: QuestionKind::YesNo,
                prompt: "Did you mean Rivvl?".into(),
                choices: vec![choice.clone()],
            }),
            ..Proposal::default()
        };
        let asked = dispose(
            &cx(None, None),
            &input("in Rivel, check out branch Zivil"),
            &asking,
        )
        .unwrap();
        assert!(asked.start.is_none(), "nothing runs before the answer");
        let Pending::Question(q) = &asked.interaction.pending else {
            panic!("no question: {asked:?}")
        };
        assert_eq!(
            (q.kind, q.slot.as_str(), q.prompt.as_str()),
            (QuestionKind::YesNo, "project", "Did you mean Rivvl?")
        );
        assert_eq!(q.choices, [choice]);
        assert_eq!(
            q.known_arguments["request"],
            "in Rivel, check out branch Zivil"
        );

        let learned = Learned {
            heard: "rivel".into(),
            node: "desk".into(),
            project: "Rivvl".into(),
        };
        let yes = Proposal {
            relation: Some(Relation::Answer),
            value: Some("desk/Rivvl".into()),
            arguments: [
                ("project", "Rivvl"),
                ("node", "desk"),
                ("objective", "check out branch Zivil"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into(),
            learned: vec![learned.clone()],
            ..Proposal::default()
        };
        let answered = dispose(&cx(Some(&asked.interaction), None), &input("yes"), &yes).unwrap();
        assert_eq!(answered.learned, [learned]);
        let plan = answered.start.clone().expect("the request runs");
        assert_eq!(plan.goal, Goal::Coding);
        assert_eq!(plan.arguments["project"], "Rivvl");
        assert_eq!(plan.arguments["objective"], "check out branch Zivil");
        assert_eq!(plan.authorized_scope, ["coding:run"]);
        // The log replays to the projection, the answer's arguments included.
        let mut state = None;
        for (change, rev) in [(&asked, 1), (&answered, 2)] {
            for e in &change.events {
                state = Some(apply(state.as_ref(), e, rev, NOW));
            }
        }
        assert_eq!(state.unwrap(), answered.interaction);
        // An answer stored before answers carried arguments still reads.
        let old: InteractionEvent = serde_json::from_str(
            r#"{"type":"answered","slot":"place","value":"Pune","input":"00000000-0000-0000-0000-000000000007"}"#,
        )
        .unwrap();
        assert!(
            matches!(old, InteractionEvent::Answered { ref arguments, .. } if arguments.is_empty())
        );
        // A "no" that cancels confirms nothing, and a misfit answer is refused.
        let misfit = Proposal {
            misfit: Some("Gone is no longer in the project catalog".into()),
            learned: yes.learned.clone(),
            ..yes.clone()
        };
        let err = dispose(&cx(Some(&asked.interaction), None), &input("yes"), &misfit).unwrap_err();
        assert!(err.to_string().contains("no longer in the project catalog"));

        // Routed, but nothing to do: the objective is asked for, naming the project.
        let bare = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Coding),
            arguments: [("project", "Rivvl"), ("node", "desk"), ("request", "Rivvl")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into(),
            ..Proposal::default()
        };
        let asked = dispose(&cx(None, None), &input("Rivvl"), &bare).unwrap();
        let Pending::Question(q) = &asked.interaction.pending else {
            panic!("no question: {asked:?}")
        };
        assert_eq!(
            (q.kind, q.slot.as_str(), q.prompt.as_str()),
            (
                QuestionKind::Text,
                "objective",
                "What should I do in Rivvl?"
            )
        );
    }

    #[test]
    fn events_replay_to_the_same_state() {
        let asked = dispose(
            &cx(None, None),
            &input("what's the weather?"),
            &weather(&[]),
        )
        .unwrap();
        let answered = dispose(
            &cx(Some(&asked.interaction), None),
            &input("Pune"),
            &relation(Relation::Answer, Some("Pune"), None),
        )
        .unwrap();
        let mut state = None;
        for (change, rev) in [(&asked, 1), (&answered, 2)] {
            for e in &change.events {
                state = Some(apply(state.as_ref(), e, rev, NOW));
            }
        }
        assert_eq!(state.unwrap(), answered.interaction);
    }
}

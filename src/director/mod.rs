//! The grounded-turn Director: one closed interpretation of a turn before
//! anything is dispatched.
//!
//! Input is one recognition [`Envelope`] and one bounded [`Snapshot`]; output
//! is a [`Decision`]: Execute a closed plan, Clarify with at most three
//! labelled candidates and the original request, or Reject with a reason.
//! Questions are asked in order: the turn's relation to a pending question
//! first; then authority from real catalogs (projects, nodes) when the turn
//! routes work; then content as a span of the user's own words; then the
//! action and target among what the observation supports.
//!
//! Architecture invariant: pure. No I/O, no clock, no async, never fails: every
//! problem is a `Clarify` or a `Reject`. Closed-choice questions go through
//! the [`Decider`] seam; [`prepare`] and [`Prepared::conclude`] let an async
//! caller put them to a remote decider without this module knowing.

pub mod coding;
pub mod decider;
pub mod desktop;
pub mod foreign;
pub mod language;
pub mod lexicon;
pub mod local;
pub mod navigation;
pub mod observation;
pub mod reader;
pub mod screen;
pub mod semantic;
pub mod steps;
pub mod text;
pub mod time_of_day;
pub mod turn;
pub mod types;
pub mod upload;
pub mod utterance;

pub use observation::{Element, Observation, Structure, Surface};
pub use types::*;

use decider::{Answer, Ask, Decider};

/// Grounds one turn with a synchronous decider (the local one by default).
pub fn decide(envelope: &Envelope, snapshot: &Snapshot, decider: &dyn Decider) -> Decision {
    match prepare(envelope, snapshot) {
        Prepared::Done(decision) => decision,
        screen @ Prepared::Screen { .. } => {
            let ask = screen.ask().expect("a screen step has an ask");
            match decider
                .decide(&ask)
                .and_then(|a| decider::validate(&ask, &a).map(|_| a))
            {
                Ok(answers) => screen.conclude(&ask, &answers),
                Err(_) => screen.unanswered(),
            }
        }
    }
}

/// Grounds one turn with the local decider.
pub fn decide_locally(envelope: &Envelope, snapshot: &Snapshot) -> Decision {
    decide(envelope, snapshot, &local::LocalDecider)
}

/// A turn either decided without questions, or waiting for a decider's
/// answers about a screen.
#[derive(Debug, Clone)]
pub enum Prepared {
    Done(Decision),
    Screen {
        /// The words grounded now: the whole request, or its first step.
        envelope: Envelope,
        observation: Observation,
        structure: Structure,
        /// Several steps said at once: the whole request and the texts of the later steps.
        multi: Option<Multi>,
    },
}

/// A request of several steps (see [`steps`]): its first step is grounded now; the plan carries
/// the others.
#[derive(Debug, Clone)]
pub struct Multi {
    pub whole: Envelope,
    pub rest: Vec<String>,
}

impl Multi {
    /// The decision about the first step, made the decision about the whole request: a plan
    /// carries the later steps; the planner, a question or a refusal speak for the whole.
    fn decision(&self, first: Decision) -> Decision {
        match first {
            Decision::Execute(mut plan) => {
                if plan.action != Action::Planner {
                    plan.steps = self.rest.clone();
                }
                plan.objective = utterance::read(&self.whole.text).request().to_string();
                plan.source = Source::of(&self.whole);
                Decision::Execute(plan)
            }
            Decision::Clarify(mut c) => {
                c.request = self.whole.clone();
                Decision::Clarify(c)
            }
            // A first step that is no action on this screen ("make the text a bit bigger and
            // then apply"): the whole task is the planner's, as before steps were split.
            Decision::Reject(r) if r.reason != RejectReason::Cancelled => Decision::Execute(Plan {
                action: Action::Planner,
                route: Route::default(),
                continuation: false,
                objective: utterance::read(&self.whole.text).request().to_string(),
                evidence: Vec::new(),
                source: Source::of(&self.whole),
                resumes: None,
                learned: Vec::new(),
                confidence: 0.0,
                steps: Vec::new(),
            }),
            other => other,
        }
    }
}

impl Prepared {
    /// The closed-choice questions to put to a decider.
    pub fn ask(&self) -> Option<Ask<'_>> {
        match self {
            Prepared::Done(_) => None,
            Prepared::Screen {
                envelope,
                observation,
                structure,
                ..
            } => Some(screen::ask(envelope, observation, structure)),
        }
    }

    /// The decision, given validated answers to [`Prepared::ask`].
    pub fn conclude(&self, ask: &Ask<'_>, answers: &[Answer]) -> Decision {
        match self {
            Prepared::Done(decision) => decision.clone(),
            Prepared::Screen {
                envelope,
                observation,
                structure,
                multi,
            } => {
                let decision = screen::conclude(envelope, observation, structure, ask, answers);
                match multi {
                    Some(multi) => multi.decision(decision),
                    None => decision,
                }
            }
        }
    }

    /// The decision when no decider could answer: ask, never guess.
    pub fn unanswered(&self) -> Decision {
        match self {
            Prepared::Done(decision) => decision.clone(),
            Prepared::Screen {
                envelope, multi, ..
            } => Decision::Clarify(Clarification {
                question: "I could not work out what to do. Could you say it another way?".into(),
                slot: Slot::Target,
                candidates: Vec::new(),
                request: multi.as_ref().map_or(envelope, |m| &m.whole).clone(),
            }),
        }
    }
}

/// Everything that can be decided before asking a decider.
pub fn prepare(envelope: &Envelope, snapshot: &Snapshot) -> Prepared {
    if let Some(pending) = &snapshot.interaction.pending {
        match reply_to(pending, envelope) {
            Reply::Cancel => {
                return Prepared::Done(Decision::Reject(Rejection {
                    reason: RejectReason::Cancelled,
                    message: "Cancelled.".into(),
                }))
            }
            Reply::Pick(k) => return Prepared::Done(resume(pending, k, snapshot)),
            Reply::New => {}
        }
    }
    if envelope.text.trim().is_empty() {
        return Prepared::Done(Decision::Reject(Rejection {
            reason: RejectReason::Empty,
            message: "Nothing was said.".into(),
        }));
    }
    match &snapshot.observation {
        Some(observation) => {
            let (envelope, multi) = match steps::split(&envelope.text) {
                steps::Steps::TooMany(n) => {
                    return Prepared::Done(Decision::Reject(Rejection {
                        reason: RejectReason::Unsupported,
                        message: format!(
                            "That is {n} steps; I do at most {} at once. Nothing was done.",
                            steps::MAX_STEPS
                        ),
                    }))
                }
                steps::Steps::Many(spans) => {
                    let text = |i: usize| envelope.text[spans[i].clone()].to_string();
                    // Recognition alternatives are of the whole sentence, not of one step.
                    let first = Envelope {
                        text: text(0),
                        alternatives: Vec::new(),
                        ..envelope.clone()
                    };
                    let multi = Multi {
                        whole: envelope.clone(),
                        rest: (1..spans.len()).map(text).collect(),
                    };
                    (first, Some(multi))
                }
                steps::Steps::One | steps::Steps::Shared => (envelope.clone(), None),
            };
            // "upload report.pdf": a closed choice over the controls that open a file chooser.
            if let Some(request) = upload::read(&envelope.text) {
                let decision = upload::decide(&envelope, &request, observation);
                return Prepared::Done(match &multi {
                    Some(multi) => multi.decision(decision),
                    None => decision,
                });
            }
            // "the seven o'clock showing" beside a "19:00" link: the time as the screen writes it.
            let labels = observation.elements.iter().map(|e| e.label.as_str());
            let envelope = match time_of_day::as_written(&envelope.text, labels) {
                Some(text) => Envelope { text, ..envelope },
                None => envelope,
            };
            Prepared::Screen {
                envelope,
                structure: Structure::of(observation),
                observation: observation.clone(),
                multi,
            }
        }
        None => Prepared::Done(turn::decide_turn(envelope, snapshot)),
    }
}

/// How a turn relates to the pending question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Picks the candidate at this index.
    Pick(usize),
    Cancel,
    /// Not an answer: a new request.
    New,
}

/// Classifies a turn against the pending question: answer, cancel, or new. The same reading as
/// every daemon input ([`reader::pick`]): a number, ordinal, label or fitting description picks a
/// candidate; anything else is a new request.
pub fn reply_to(pending: &Pending, envelope: &Envelope) -> Reply {
    let tokens = text::tokens(&envelope.text);
    let words: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
    let cancel = [
        "cancel",
        "nevermind",
        "forget",
        "none",
        "nothing",
        "stop",
        "abort",
    ];
    if words == ["no"]
        || (words.len() <= 4 && words.iter().any(|w| cancel.contains(w)))
        || words.windows(2).any(|w| w == ["never", "mind"])
    {
        return Reply::Cancel;
    }
    let labels: Vec<&str> = pending
        .candidates
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    match reader::pick(&envelope.text, &labels) {
        Some(i) => Reply::Pick(i),
        None => Reply::New,
    }
}

/// The same request, resumed once with the user's pick.
fn resume(pending: &Pending, k: usize, snapshot: &Snapshot) -> Decision {
    let chosen = &pending.candidates[k];
    match (&chosen.entity, pending.slot) {
        (EntityRef::Project(r), _) => turn::resume_with_project(&pending.request, snapshot, r),
        (EntityRef::Element(id), _) => {
            let Some(observation) = &snapshot.observation else {
                return stale();
            };
            // A request of several steps was asked about its first one; the others follow.
            let mut texts = steps::texts(&pending.request.text).into_iter();
            let first = texts.next().unwrap_or_default();
            let Some(action) = resumed_action(&first, observation, id) else {
                return stale();
            };
            let reading = utterance::read(&pending.request.text);
            Decision::Execute(Plan {
                action,
                route: Route::default(),
                continuation: false,
                objective: reading.request().to_string(),
                evidence: vec![Evidence {
                    heard: pending.request.text.clone(),
                    role: SpanRole::Target,
                    entity: Some(chosen.entity.clone()),
                    kind: MatchKind::Exact,
                    confirmation: Confirmation::User,
                }],
                source: Source::of(&pending.request),
                resumes: Some(pending.request.request_id.clone()),
                learned: Vec::new(),
                confidence: 1.0,
                steps: texts.collect(),
            })
        }
        _ => stale(),
    }
}

/// The action a clarified request resumes with, once the person picked `chosen`: the same kind the
/// Director clarified (a request to type resumes as a type, with its text from the request's own
/// words), never a click by default. `None` when `chosen` is not on this observation or the text
/// to type cannot be read for it.
pub fn resumed_action(request: &str, observation: &Observation, chosen: &str) -> Option<Action> {
    let index = observation.elements.iter().position(|e| e.id == chosen)?;
    if let Some(request) = upload::read(request) {
        return Some(Action::Upload {
            target: chosen.to_string(),
            file: request.file,
        });
    }
    let reading = utterance::read(request);
    match &reading.typing {
        Some(_) => {
            let structure = Structure::of(observation);
            screen::text_to_type(&reading, &structure, index).map(|text| Action::Type {
                target: chosen.to_string(),
                text,
            })
        }
        None => Some(Action::Click {
            target: chosen.to_string(),
        }),
    }
}

fn stale() -> Decision {
    Decision::Reject(Rejection {
        reason: RejectReason::NothingFits,
        message: "What you picked is no longer there.".into(),
    })
}

/// Checks the hard invariant of a plan: a span consumed as a project, task,
/// provider or model never stays in the objective.
pub fn check_plan(plan: &Plan) -> Result<(), String> {
    let objective = text::tokens(&plan.objective);
    for e in &plan.evidence {
        let consumed = matches!(
            e.role,
            SpanRole::Project | SpanRole::Task | SpanRole::Provider | SpanRole::Model
        );
        if !consumed || e.heard.is_empty() {
            continue;
        }
        let heard = text::tokens(&e.heard);
        let stays = !heard.is_empty()
            && objective
                .windows(heard.len())
                .any(|w| w.iter().zip(&heard).all(|(a, b)| a.norm == b.norm));
        if stays {
            return Err(format!(
                "\"{}\" routed the turn and is still in the objective",
                e.heard
            ));
        }
    }
    Ok(())
}

/// Envelopes wait here until the catalogs they need have loaded; each is
/// grounded at dequeue against the snapshot current then, never before.
#[derive(Debug, Clone, Default)]
pub struct TurnQueue {
    waiting: std::collections::VecDeque<Envelope>,
}

impl TurnQueue {
    pub fn push(&mut self, envelope: Envelope) {
        self.waiting.push_back(envelope);
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Grounds every waiting envelope if the snapshot can ground them; else
    /// keeps them waiting and returns nothing.
    pub fn drain(
        &mut self,
        snapshot: &Snapshot,
        decider: &dyn Decider,
    ) -> Vec<(Envelope, Decision)> {
        if !snapshot.catalogs.loaded && snapshot.observation.is_none() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut interaction = snapshot.interaction.clone();
        while let Some(envelope) = self.waiting.pop_front() {
            let now = Snapshot {
                interaction: interaction.clone(),
                ..snapshot.clone()
            };
            let decision = decide(&envelope, &now, decider);
            interaction = interaction.after(&decision);
            out.push((envelope, decision));
        }
        out
    }
}

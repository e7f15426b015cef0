//! The executor seam: one trait that the weather, browser and desktop connectors implement.
//!
//! An executor carries out one accepted operation. It records every step through its `Journal`
//! *before* the step's effect (so a crash leaves evidence) and finishes it with what was observed.
//! It must watch `cancel` and return `ExecOutcome::Stopped` promptly when it fires.
//! The composition root (`daemon`) picks the implementations; nothing else names them.

use crate::model::{Goal, Operation, Question, StepResult, Target};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use tokio_util::sync::CancellationToken;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How an execution ended, as observed by the executor.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecOutcome {
    /// The expected outcome was observed.
    Completed {
        summary: String,
        data: serde_json::Value,
    },
    /// It could not be done and nothing uncertain happened.
    Blocked { reason: String },
    /// Cancelled; effects already observed are in the steps.
    Stopped,
    /// An effect may or may not have happened; only an observation can settle it.
    Unknown { reason: String },
    /// It cannot go on without an answer; the question goes on the interaction, and the answer
    /// resumes this same operation (with the answer in its arguments, under the question's slot).
    NeedsInput { question: Question },
    /// A step that cannot be undone waits for an explicit yes (`Pending::Approval`); the yes
    /// resumes this same operation with `approved` naming what was approved.
    NeedsApproval { approval: crate::model::Approval },
}

/// A step about to run.
#[derive(Clone, Debug, PartialEq)]
pub struct StepStart {
    pub action: String,
    pub arguments: BTreeMap<String, String>,
    pub observation: Option<String>,
    pub irreversible: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("the step could not be recorded: {0}")]
pub struct JournalError(pub String);

/// Where an executor records its steps. Implemented by the daemon over the store.
pub trait Journal: Send + Sync {
    /// Durably record that a step starts; returns its index. Call before the effect.
    fn begin(&self, step: StepStart) -> BoxFuture<'_, Result<u32, JournalError>>;
    /// Record what was observed after the step.
    fn end(
        &self,
        index: u32,
        result: StepResult,
        evidence: serde_json::Value,
    ) -> BoxFuture<'_, Result<(), JournalError>>;
    /// End an observe step as applied, storing what it saw once, apart from the operation (its
    /// evidence gets the observation's id under `"observation"`, never the observation itself).
    /// Returns the id, which the steps grounded in it carry as their `observation`. `target`,
    /// when given, is what the operation's target resolved to (as `target`), in the same commit.
    fn observed(
        &self,
        index: u32,
        evidence: serde_json::Value,
        observation: serde_json::Value,
        target: Option<Target>,
    ) -> BoxFuture<'_, Result<String, JournalError>>;
    /// Record what the operation's target resolved to (the tab, window and profile a browser
    /// operation acts in). It narrows the accepted target on the same node; it never moves it.
    fn target(&self, target: Target) -> BoxFuture<'_, Result<(), JournalError>>;
    /// Whether the operation is still what its interaction wants now: the interaction still points
    /// at it and is not cancelled. Checked right before every mutation, beside `cancel`.
    fn current(&self) -> BoxFuture<'_, bool>;
}

pub struct RunContext<'a> {
    pub cancel: CancellationToken,
    pub journal: &'a dyn Journal,
}

/// Record that a step starts (durably, before its effect); returns its index.
pub async fn begin(
    cx: &RunContext<'_>,
    action: &str,
    arguments: BTreeMap<String, String>,
    observation: Option<String>,
    irreversible: bool,
) -> Result<u32, String> {
    let step = StepStart {
        action: action.into(),
        arguments,
        observation,
        irreversible,
    };
    cx.journal.begin(step).await.map_err(|e| e.to_string())
}

/// Record what was observed after a step.
pub async fn end(
    cx: &RunContext<'_>,
    step: u32,
    result: StepResult,
    evidence: serde_json::Value,
) -> Result<(), String> {
    cx.journal
        .end(step, result, evidence)
        .await
        .map_err(|e| e.to_string())
}

/// End an observe step, storing its observation apart; returns the observation's id.
pub async fn observed(
    cx: &RunContext<'_>,
    step: u32,
    evidence: serde_json::Value,
    observation: serde_json::Value,
    target: Option<Target>,
) -> Result<String, String> {
    cx.journal
        .observed(step, evidence, observation, target)
        .await
        .map_err(|e| e.to_string())
}

/// End a step as not applied with `reason` as its evidence, and block the operation with it:
/// the step failed before it could have any effect.
pub async fn blocked(
    cx: &RunContext<'_>,
    step: u32,
    reason: String,
) -> Result<ExecOutcome, String> {
    end(
        cx,
        step,
        StepResult::NotApplied,
        serde_json::json!({ "error": reason }),
    )
    .await?;
    Ok(ExecOutcome::Blocked { reason })
}

pub trait Executor: Send + Sync {
    fn goal(&self) -> Goal;
    fn run<'a>(
        &'a self,
        operation: &'a Operation,
        cx: RunContext<'a>,
    ) -> BoxFuture<'a, ExecOutcome>;
    /// What the executor's connector looks like now (shown by `circe state` and `doctor`).
    fn status(&self) -> serde_json::Value {
        serde_json::json!({ "ready": true })
    }
}

/// The executors this node has, by goal.
#[derive(Default)]
pub struct Executors {
    by_goal: Vec<Box<dyn Executor>>,
}

impl Executors {
    pub fn with(mut self, executor: Box<dyn Executor>) -> Executors {
        self.by_goal.retain(|e| e.goal() != executor.goal());
        self.by_goal.push(executor);
        self
    }

    pub fn for_goal(&self, goal: Goal) -> Option<&dyn Executor> {
        self.by_goal
            .iter()
            .find(|e| e.goal() == goal)
            .map(|e| e.as_ref())
    }

    pub fn status(&self) -> std::collections::BTreeMap<String, serde_json::Value> {
        self.by_goal
            .iter()
            .map(|e| (e.goal().as_str().to_string(), e.status()))
            .collect()
    }
}

//! The engine: the one owner of this node's interactions and operations.
//!
//! Inputs go through one queue and are read against the stored state one at a time, so the
//! read-decide-commit of each input is atomic. Stop does not use that queue: `interrupt` writes
//! "stop requested" and fires the operation's cancellation directly. Every commit is followed by a
//! notification to subscribers; nothing polls.

use crate::clock;
use crate::config::Limits;
use crate::director::{coding, reader};
use crate::executor::{
    BoxFuture, ExecOutcome, Executors, Journal, JournalError, RunContext, StepStart,
};
use crate::interaction::{self, Context, Phase, Proposal};
use crate::model::{
    Input, Interaction, Operation, OperationId, OperationStatus, Outcome, Question, Relation, Step,
    StepResult, StopState,
};
use crate::operation::{self, OperationEvent, Transition};
use crate::protocol::{
    ApiError, ErrorCode, Interrupted, Notification, ObservationView, StateView, Submitted,
    MAX_EVIDENCE_BYTES, MAX_OBSERVATION_BYTES, MAX_REPLY_BYTES,
};
use crate::store::{self, Retention, Store, StoreError, StoredObservation};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

/// How many notifications a slow subscriber may fall behind before it gets a fresh snapshot.
const NOTIFY_CAPACITY: usize = 1024;

pub struct Engine {
    node: String,
    store: Arc<Mutex<Store>>,
    executors: Executors,
    limits: Limits,
    retention: Retention,
    notify: broadcast::Sender<Notification>,
    cancels: Mutex<HashMap<OperationId, CancellationToken>>,
    queue: mpsc::Sender<Queued>,
    runners: TaskTracker,
    /// The project catalog (`[[projects]]`): words that name one are a coding request.
    projects: Arc<Vec<coding::Entry>>,
}

struct Queued {
    input: Input,
    reply: oneshot::Sender<Result<Submitted, ApiError>>,
}

/// A submit that was queued; await `reply` for its result.
pub struct Pending(oneshot::Receiver<Result<Submitted, ApiError>>);

impl Pending {
    pub async fn reply(self) -> Result<Submitted, ApiError> {
        self.0.await.unwrap_or_else(|_| {
            Err(ApiError::new(
                ErrorCode::ShuttingDown,
                "circe is shutting down",
            ))
        })
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::RevisionConflict { current } => ApiError {
                code: ErrorCode::RevisionConflict,
                message: format!("revision conflict: the interaction is now at revision {current}"),
                current_revision: Some(current),
            },
            other => ApiError::new(ErrorCode::StoreError, other.to_string()),
        }
    }
}

impl Engine {
    /// Recover what a crash left, then start taking inputs (observations kept by the default
    /// retention).
    pub fn start(
        node: String,
        store: Store,
        executors: Executors,
        limits: Limits,
    ) -> Result<Arc<Engine>, StoreError> {
        let retention = crate::config::StoreConfig::default().retention();
        Engine::start_with(node, store, executors, limits, retention)
    }

    /// As `start`, keeping observations as `retention` says.
    pub fn start_with(
        node: String,
        store: Store,
        executors: Executors,
        limits: Limits,
        retention: Retention,
    ) -> Result<Arc<Engine>, StoreError> {
        Engine::start_with_projects(node, store, executors, limits, retention, Vec::new())
    }

    /// As `start_with`, with the project catalog coding requests are read against.
    pub fn start_with_projects(
        node: String,
        store: Store,
        executors: Executors,
        limits: Limits,
        retention: Retention,
        projects: Vec<coding::Entry>,
    ) -> Result<Arc<Engine>, StoreError> {
        let (queue, rx) = mpsc::channel(limits.input_queue_depth.max(1));
        let (notify, _) = broadcast::channel(NOTIFY_CAPACITY);
        let engine = Arc::new(Engine {
            node,
            store: Arc::new(Mutex::new(store)),
            executors,
            limits,
            retention,
            notify,
            cancels: Mutex::new(HashMap::new()),
            queue,
            runners: TaskTracker::new(),
            projects: Arc::new(projects),
        });
        engine.recover()?;
        tokio::spawn(Engine::take_inputs(engine.clone(), rx));
        Ok(engine)
    }

    pub fn node(&self) -> &str {
        &self.node
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Notification> {
        self.notify.subscribe()
    }

    /// Run `f` on the store off the async threads.
    async fn db<T: Send + 'static>(&self, f: impl FnOnce(&mut Store) -> T + Send + 'static) -> T {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || f(&mut store.lock().unwrap_or_else(|p| p.into_inner())))
            .await
            .expect("store task panicked")
    }

    fn publish(&self, n: Notification) {
        let _ = self.notify.send(n);
    }

    /// Append events to an operation's log and publish one small notification per event. The
    /// notifications go out under the store lock, so subscribers get them in revision order.
    async fn record(
        &self,
        id: OperationId,
        events: Vec<OperationEvent>,
    ) -> Result<Operation, StoreError> {
        let notify = self.notify.clone();
        self.db(move |s| {
            let op = s.record(id, &events, clock::now())?;
            publish_events(&notify, &op, &events);
            Ok(op)
        })
        .await
    }

    /// What Circe saw: the observation with this id (`observation_pruned` once past
    /// retention, `unknown_observation` when never stored).
    pub async fn observation(&self, id: String) -> Result<ObservationView, ApiError> {
        let key = id.clone();
        match self.db(move |s| s.observation(&key)).await? {
            Some(StoredObservation::Kept { body, at }) => Ok(ObservationView {
                id,
                taken_at: at,
                observation: body,
            }),
            Some(StoredObservation::Pruned { pruned_at, .. }) => Err(ApiError::new(
                ErrorCode::ObservationPruned,
                format!(
                    "observation {id} was pruned at {pruned_at} (only the newest are kept: [store] keep_observations*)"
                ),
            )),
            None => Err(ApiError::new(
                ErrorCode::UnknownObservation,
                format!("no observation {id}"),
            )),
        }
    }

    /// Check an input and put it on the queue. Errors here are immediate and change nothing.
    pub fn submit(&self, input: Input) -> Result<Pending, ApiError> {
        validate(&input, &self.limits)?;
        let (tx, rx) = oneshot::channel();
        self.queue
            .try_send(Queued { input, reply: tx })
            .map_err(|e| match e {
                mpsc::error::TrySendError::Full(_) => ApiError::new(
                    ErrorCode::QueueFull,
                    format!(
                        "{} inputs are already waiting; try again shortly",
                        self.limits.input_queue_depth
                    ),
                ),
                mpsc::error::TrySendError::Closed(_) => {
                    ApiError::new(ErrorCode::ShuttingDown, "circe is shutting down")
                }
            })?;
        Ok(Pending(rx))
    }

    async fn take_inputs(engine: Arc<Engine>, mut rx: mpsc::Receiver<Queued>) {
        while let Some(Queued { input, reply }) = rx.recv().await {
            let result = engine.take(input).await;
            let _ = reply.send(result);
        }
    }

    /// Read one input against the stored state, dispose it, and commit, all under the store lock.
    async fn take(self: &Arc<Engine>, input: Input) -> Result<Submitted, ApiError> {
        let node = self.node.clone();
        let browser = self
            .executors
            .for_goal(crate::model::Goal::Browser)
            .is_some();
        let notify = self.notify.clone();
        let projects = self.projects.clone();
        let (submitted, stop, resume, set_aside) = self
            .db(move |store| take_input(store, &notify, &node, &input, browser, &projects))
            .await?;
        if submitted.replayed {
            return Ok(submitted);
        }
        if let Some(old) = set_aside {
            self.publish(Notification::Interaction { interaction: old });
        }
        self.publish(Notification::Interaction {
            interaction: submitted.interaction.clone(),
        });
        // Its stop is recorded; a running operation's executor is told (a waiting one has ended).
        if let Some(stop) = stop.filter(|s| !s.waiting) {
            self.cancel(stop.operation);
        }
        match (&submitted.operation, resume) {
            (Some(op), None) => {
                self.publish(Notification::Operation {
                    operation: op.clone(),
                });
                self.launch(op.clone());
            }
            (_, Some((id, arguments))) => {
                let op = self
                    .record(id, vec![OperationEvent::Resumed { arguments }])
                    .await?;
                self.launch(op);
            }
            (None, None) => {}
        }
        Ok(submitted)
    }

    /// Stop an operation. Never queued behind inputs.
    pub async fn interrupt(
        self: &Arc<Engine>,
        operation: Option<OperationId>,
        device: String,
    ) -> Result<Interrupted, ApiError> {
        let now = clock::now();
        let notify = self.notify.clone();
        let (op, changed) = self
            .db(move |store| -> Result<(Operation, bool), ApiError> {
                let op = match operation {
                    Some(id) => store.operation(id)?.ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::UnknownOperation,
                            format!("no operation with id {id}"),
                        )
                    })?,
                    None => store.active_operations()?.pop().ok_or_else(|| {
                        ApiError::new(ErrorCode::NothingToStop, "nothing is running")
                    })?,
                };
                // A waiting operation ends here, with its question, in one commit; a running one
                // is asked to stop and its executor confirms.
                let events = operation::stop_events(&op, &device, now);
                if events.is_empty() {
                    return Ok((op, false));
                }
                let (op, interaction) =
                    store.record_with_change(op.id, &events, now, |op, i| {
                        let outcome = op.outcome.clone().filter(|_| !op.status.is_active())?;
                        outcome_change(op, i, outcome, now)
                    })?;
                publish_events(&notify, &op, &events);
                if let Some(interaction) = interaction {
                    let _ = notify.send(Notification::Interaction { interaction });
                }
                Ok((op, true))
            })
            .await?;
        if changed && op.status.is_active() {
            self.cancel(op.id);
        }
        Ok(Interrupted {
            already_finished: !op.status.is_active() && op.stop.is_none(),
            confirmed: op.stop.as_ref().is_some_and(|s| s.confirmed_at.is_some()),
            stop: op.stop.clone(),
            operation: op,
        })
    }

    /// Tell the executor running `id` to stop (its stop is already recorded). An operation not yet
    /// launched has no token: `run` sees the recorded stop before it starts.
    fn cancel(&self, id: OperationId) {
        let token = self
            .cancels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&id)
            .cloned();
        if let Some(token) = token {
            token.cancel();
        }
    }

    /// Stop every running operation of an interaction that `device` sent inputs to (its
    /// revocation: what a lost phone started does not go on). Returns what was stopped.
    pub async fn stop_from_device(
        self: &Arc<Engine>,
        device: &str,
        by: &str,
    ) -> Result<Vec<OperationId>, ApiError> {
        let from = device.to_string();
        let ops = self
            .db(move |s| -> Result<Vec<OperationId>, StoreError> {
                let interactions = s.interactions_from(&from)?;
                Ok(s.active_operations()?
                    .into_iter()
                    .filter(|o| interactions.contains(&o.interaction.to_string()))
                    .map(|o| o.id)
                    .collect())
            })
            .await?;
        for id in &ops {
            self.interrupt(Some(*id), by.to_string()).await?;
        }
        Ok(ops)
    }

    pub async fn state(&self, operations: usize) -> Result<StateView, ApiError> {
        let node = self.node.clone();
        let executors = self.executors.status();
        self.db(move |store| -> Result<StateView, StoreError> {
            let interaction = store.current_interaction()?;
            let operation = match interaction.as_ref().and_then(|i| i.operation) {
                Some(id) => store.operation(id)?,
                None => None,
            };
            let mut view = StateView {
                node,
                executors,
                interaction,
                operation,
                operations: store.operations(operations)?,
                nodes: Vec::new(),
            };
            // Within the reply limit: the oldest recent operations are left out first.
            view.fit(MAX_REPLY_BYTES - 64 * 1024);
            Ok(view)
        })
        .await
        .map_err(ApiError::from)
    }

    fn launch(self: &Arc<Engine>, op: Operation) {
        let token = CancellationToken::new();
        self.cancels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(op.id, token.clone());
        let engine = self.clone();
        self.runners.spawn(async move {
            let id = op.id;
            if let Err(e) = engine.run(op, token).await {
                tracing::error!(operation = %id, error = %e, "operation could not be recorded");
            }
            engine
                .cancels
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
        });
    }

    async fn run(
        self: &Arc<Engine>,
        op: Operation,
        cancel: CancellationToken,
    ) -> Result<(), StoreError> {
        let span = tracing::info_span!("operation", id = %op.id, goal = op.goal.as_str());
        let _enter = span.enter();
        // A stop can be recorded between acceptance and this task getting its token: honour it.
        let id = op.id;
        let stop_recorded = self
            .db(move |s| s.operation(id))
            .await?
            .is_some_and(|o| o.stop.is_some());
        if cancel.is_cancelled() || stop_recorded {
            return self.finish(op.id, op.status, ExecOutcome::Stopped).await;
        }
        let started = self.moved(op.id, op.status, Transition::Start).await?;
        let Some(executor) = self.executors.for_goal(op.goal) else {
            let reason = format!(
                "Circe cannot do {} requests yet; nothing was done",
                op.goal.as_str()
            );
            return self
                .finish(op.id, started.status, ExecOutcome::Blocked { reason })
                .await;
        };
        // A resumed operation goes on numbering its steps after the ones it has (a step's index
        // names its observation, so it is never reused).
        let next = started.steps.iter().map(|s| s.index + 1).max().unwrap_or(0);
        let journal = OperationJournal {
            engine: self.clone(),
            operation: op.id,
            next: AtomicU32::new(next),
        };
        let outcome = executor
            .run(
                &started,
                RunContext {
                    cancel,
                    journal: &journal,
                },
            )
            .await;
        tracing::info!(?outcome, "executor returned");
        let now = self.db(move |s| s.operation(op.id)).await?;
        let status = now.as_ref().map_or(started.status, |o| o.status);
        let asked_to_stop = now.as_ref().is_some_and(|o| o.stop.is_some());
        self.finish(op.id, status, operation::after_stop(outcome, asked_to_stop))
            .await
    }

    async fn moved(
        &self,
        id: OperationId,
        from: OperationStatus,
        t: Transition,
    ) -> Result<Operation, StoreError> {
        let status = operation::next(from, t).unwrap_or(from);
        self.record(
            id,
            vec![OperationEvent::Moved {
                transition: t,
                status,
            }],
        )
        .await
    }

    /// Record how an operation ended, on the operation and on its interaction.
    async fn finish(
        &self,
        id: OperationId,
        from: OperationStatus,
        outcome: ExecOutcome,
    ) -> Result<(), StoreError> {
        if let ExecOutcome::NeedsInput { question } = outcome {
            return self
                .wait_for_answer(id, from, Asking::Question(question))
                .await;
        }
        if let ExecOutcome::NeedsApproval { approval } = outcome {
            return self
                .wait_for_answer(id, from, Asking::Approval(approval))
                .await;
        }
        let (transition, summary, data) = match outcome {
            ExecOutcome::Completed { summary, data } => (Transition::Complete, summary, data),
            ExecOutcome::Blocked { reason } => (Transition::Block, reason, serde_json::Value::Null),
            ExecOutcome::Stopped => (
                Transition::ConfirmStop,
                "Stopped.".to_string(),
                serde_json::Value::Null,
            ),
            ExecOutcome::Unknown { reason } => (Transition::Lose, reason, serde_json::Value::Null),
            ExecOutcome::NeedsInput { .. } | ExecOutcome::NeedsApproval { .. } => {
                unreachable!("handled above")
            }
        };
        let status = match operation::next(from, transition) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "illegal finish");
                OperationStatus::OutcomeUnknown
            }
        };
        let outcome = Outcome {
            status,
            summary,
            data,
        };
        let notify = self.notify.clone();
        self.db(move |s| -> Result<(), StoreError> {
            let now = clock::now();
            let mut events = vec![OperationEvent::Moved { transition, status }];
            if transition == Transition::ConfirmStop {
                events.push(OperationEvent::StopConfirmed);
            }
            events.push(OperationEvent::OutcomeRecorded {
                outcome: outcome.clone(),
            });
            // The outcome, on the operation and on its interaction: one commit.
            let (op, interaction) = s.record_with_change(id, &events, now, |op, current| {
                outcome_change(op, current, outcome, now)
            })?;
            publish_events(&notify, &op, &events);
            if let Some(interaction) = interaction {
                let _ = notify.send(Notification::Interaction { interaction });
            }
            Ok(())
        })
        .await
    }

    /// The operation asked a question: it waits (needsInput) and the question goes on its interaction.
    async fn wait_for_answer(
        &self,
        id: OperationId,
        from: OperationStatus,
        question: Asking,
    ) -> Result<(), StoreError> {
        let prompt = match &question {
            Asking::Question(q) => q.prompt.clone(),
            Asking::Approval(a) => a.prompt.clone(),
        };
        let status =
            operation::next(from, Transition::NeedInput).unwrap_or(OperationStatus::NeedsInput);
        let notify = self.notify.clone();
        self.db(move |s| -> Result<(), StoreError> {
            let now = clock::now();
            let events = [OperationEvent::Moved {
                transition: Transition::NeedInput,
                status,
            }];
            // Asked to stop while it ran, or its interaction let go of it (a cancel, a correction):
            // the question is not asked, and the operation ends as stopped instead of waiting.
            let before = s.operation(id)?;
            let holder = match &before {
                Some(op) => s.interaction(op.interaction)?,
                None => None,
            };
            if let Some(op) = before.filter(|op| {
                op.stop.is_some()
                    || holder
                        .as_ref()
                        .is_none_or(|i| i.closed || i.operation != Some(op.id))
            }) {
                let mut events = Vec::new();
                if op.stop.is_none() {
                    events.push(OperationEvent::StopRequested {
                        stop: StopState {
                            requested_at: now,
                            requested_by: "its interaction let go of it".into(),
                            confirmed_at: None,
                        },
                    });
                }
                let by = op
                    .stop
                    .as_ref()
                    .map_or("its interaction let go of it", |s| s.requested_by.as_str());
                events.extend(operation::confirmed_stop(format!(
                    "Stopped ({by}) before it could ask \"{prompt}\"; nothing ran after that."
                )));
                let op = s.record(id, &events, now)?;
                publish_events(&notify, &op, &events);
                return Ok(());
            }
            // The operation waits and the question goes on its interaction: one commit.
            let (op, asked) = s.record_with_change(id, &events, now, |op, current| {
                (current.operation == Some(op.id)).then(|| match question {
                    Asking::Approval(a) => interaction::ask_approval(current, a, now),
                    Asking::Question(q) => interaction::ask(current, q, now),
                })
            })?;
            publish_events(&notify, &op, &events);
            if let Some(interaction) = asked {
                // The question asked: the interaction, as it now is.
                let _ = notify.send(Notification::Interaction { interaction });
            }
            Ok(())
        })
        .await
    }

    /// Mark what a crash left behind: anything that may have acted becomes outcomeUnknown; an
    /// operation waiting for an answer is stopped, with its question (the event says why).
    fn recover(&self) -> Result<(), StoreError> {
        let mut store = self.store.lock().unwrap_or_else(|p| p.into_inner());
        let now = clock::now();
        for op in store.active_operations()? {
            let Some(t) = operation::on_restart(op.status) else {
                continue;
            };
            if t == Transition::ConfirmStop {
                let holder = store.interaction(op.interaction)?;
                let summary = match operation::standing(&op, holder.as_ref()) {
                    operation::Standing::Abandoned(why) => format!(
                        "Its question was withdrawn ({why}) and it was still waiting when Circe restarted; nothing ran after the question: stopped."
                    ),
                    operation::Standing::Held => "Circe restarted while this waited for an answer; its choices pointed into the page as it was read before, so nothing was done: say the request again.".to_string(),
                };
                let mut events = vec![OperationEvent::StopRequested {
                    stop: StopState {
                        requested_at: now,
                        requested_by: "restart".into(),
                        confirmed_at: None,
                    },
                }];
                events.extend(operation::confirmed_stop(summary));
                let outcome = op_outcome(&events);
                let (op, _) = store.record_with_change(op.id, &events, now, |op, current| {
                    outcome_change(op, current, outcome?, now)
                })?;
                tracing::warn!(operation = %op.id, "stopped after restart: it waited for an answer");
                continue;
            }
            let status = operation::next(op.status, t).unwrap_or(OperationStatus::OutcomeUnknown);
            let summary = if status == OperationStatus::OutcomeUnknown {
                "Circe restarted while this was running; whether it took effect is unknown until it is observed"
                    .to_string()
            } else {
                "Circe restarted before this started; nothing was done".to_string()
            };
            let mut events: Vec<OperationEvent> = op
                .steps
                .iter()
                .filter(|s| s.result.is_none())
                .map(|s| OperationEvent::StepEnded {
                    index: s.index,
                    result: StepResult::Unknown,
                    evidence: serde_json::json!({ "reason": "circe restarted during this step" }),
                })
                .collect();
            let outcome = Outcome {
                status,
                summary,
                data: serde_json::Value::Null,
            };
            events.push(OperationEvent::Moved {
                transition: t,
                status,
            });
            events.push(OperationEvent::OutcomeRecorded {
                outcome: outcome.clone(),
            });
            let (op, _) = store.record_with_change(op.id, &events, now, |op, current| {
                outcome_change(op, current, outcome, now)
            })?;
            tracing::warn!(operation = %op.id, status = status.as_str(), "recovered after restart");
        }
        Ok(())
    }

    /// Stop taking inputs, stop running operations, and wait (bounded) for them to record it.
    pub async fn shutdown(&self) {
        for token in self
            .cancels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
        {
            token.cancel();
        }
        self.runners.close();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(3), self.runners.wait()).await;
    }
}

/// The outcome among `events`, if one is recorded.
fn op_outcome(events: &[OperationEvent]) -> Option<Outcome> {
    events.iter().find_map(|e| match e {
        OperationEvent::OutcomeRecorded { outcome } => Some(outcome.clone()),
        _ => None,
    })
}

/// Publish the notifications of `events`, just appended to the log of `op` (now as it is).
fn publish_events(
    notify: &broadcast::Sender<Notification>,
    op: &Operation,
    events: &[OperationEvent],
) {
    for n in Notification::for_events(op, events) {
        let _ = notify.send(n);
    }
}

/// Evidence within `MAX_EVIDENCE_BYTES`, or a note of how large it was.
fn bounded(evidence: serde_json::Value) -> serde_json::Value {
    within(evidence, MAX_EVIDENCE_BYTES, "evidence")
}

/// `value` when it serializes within `max` bytes, else a note of how large it was.
fn within(value: serde_json::Value, max: usize, what: &str) -> serde_json::Value {
    let bytes = serde_json::to_string(&value).map_or(0, |s| s.len());
    if bytes <= max {
        return value;
    }
    tracing::warn!(bytes, what, "over its limit and not kept");
    serde_json::json!({
        "omitted": format!("{bytes} bytes of {what}, over the {max}-byte limit"),
    })
}

/// An operation's outcome on its interaction, if the interaction still points at it.
fn outcome_change(
    op: &Operation,
    current: &Interaction,
    outcome: Outcome,
    now: u64,
) -> Option<interaction::Change> {
    (current.operation == Some(op.id)).then(|| interaction::record_outcome(current, outcome, now))
}

fn validate(input: &Input, limits: &Limits) -> Result<(), ApiError> {
    let chars = input.text.chars().count();
    if chars > limits.max_input_chars {
        return Err(ApiError::new(
            ErrorCode::InputTooLong,
            format!(
                "the input is {chars} characters; the limit is {}",
                limits.max_input_chars
            ),
        ));
    }
    if input.text.trim().is_empty() && input.choice.is_none() {
        return Err(ApiError::new(
            ErrorCode::EmptyInput,
            "the input has no text and no choice",
        ));
    }
    if input.device.is_empty() || input.device.len() > 64 {
        return Err(ApiError::new(
            ErrorCode::BadDevice,
            "the device name must be 1 to 64 bytes",
        ));
    }
    if input.expected_revision.is_some() && input.interaction.is_none() {
        return Err(ApiError::new(
            ErrorCode::BadInput,
            "an expected revision needs the interaction it refers to",
        ));
    }
    Ok(())
}

/// The identity of an input's content: a retry with the same id must carry the same content.
fn params_hash(input: &Input) -> String {
    let canonical = serde_json::json!([
        input.text,
        input.choice,
        input.mode,
        input.interaction,
        input.expected_revision
    ]);
    store::sha256(&canonical.to_string())
}

type Taken = (
    Submitted,
    Option<interaction::Stop>,
    Option<(OperationId, std::collections::BTreeMap<String, String>)>,
    Option<Interaction>,
);

fn take_input(
    store: &mut Store,
    notify: &broadcast::Sender<Notification>,
    node: &str,
    input: &Input,
    browser: bool,
    projects: &[coding::Entry],
) -> Result<Taken, ApiError> {
    let hash = params_hash(input);
    if let Some(stored) = store.stored_input(&input.device, &input.id.to_string())? {
        if stored.params_hash != hash {
            return Err(ApiError::new(
                ErrorCode::IdempotencyMismatch,
                format!(
                    "input {} was already taken with different content",
                    input.id
                ),
            ));
        }
        let mut reply: Submitted = serde_json::from_value(stored.reply).map_err(|e| {
            ApiError::new(
                ErrorCode::StoreError,
                format!("stored reply unreadable: {e}"),
            )
        })?;
        reply.replayed = true;
        return Ok((reply, None, None, None));
    }
    let newest = store.current_interaction()?;
    let current = match input.interaction {
        Some(id) => Some(store.interaction(id)?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::UnknownInteraction,
                format!("no interaction with id {id}"),
            )
        })?),
        None => newest.clone(),
    };
    let newest = newest.map(|i| i.id);
    let operation_status = match current.as_ref().and_then(|i| i.operation) {
        Some(id) => store.operation(id)?.map(|o| o.status),
        None => None,
    };
    let now = clock::now();
    let phase = Phase::of(current.as_ref(), operation_status, now);
    let pending = current
        .as_ref()
        .map_or(&crate::model::Pending::None, |i| &i.pending);
    // The catalog as it is now, with every alias confirmed so far: grounded at dequeue.
    let snapshot = if projects.is_empty() {
        None
    } else {
        Some(coding::snapshot(node, projects, &store.aliases()?))
    };
    // A choice by number for a coding request's question is read like its words ("2"), so the
    // request resumes with its objective.
    let coding_choice = input
        .choice
        .filter(|_| input.text.trim().is_empty())
        .filter(|_| matches!(pending, crate::model::Pending::Question(q) if coding::asks(q)))
        .map(|n| n.to_string());
    let proposal =
        if input.choice.is_some() && input.text.trim().is_empty() && coding_choice.is_none() {
            Proposal {
                relation: Some(Relation::Answer),
                ..Proposal::default()
            }
        } else {
            reader::read(
                coding_choice.as_deref().unwrap_or(&input.text),
                &reader::Situation {
                    phase,
                    pending,
                    browser,
                    mode: input.mode,
                    projects: snapshot.as_ref(),
                    // Only where the request's words are its one slot (the browser, the
                    // desktop's general steps): a heading task's correction is its heading.
                    request: current
                        .as_ref()
                        .filter(|c| {
                            !c.closed
                                && interaction::required_slots(c.goal, &c.arguments) == ["request"]
                        })
                        .and_then(|c| c.arguments.get("request"))
                        .map(String::as_str),
                },
            )
        };
    let cx = Context {
        node,
        current: current.as_ref(),
        operation_status,
        newest,
        now,
        new_interaction_id: Uuid::new_v4(),
        new_operation_id: Uuid::new_v4(),
    };
    let change = interaction::dispose(&cx, input, &proposal)?;
    let relation = proposal.relation.unwrap_or(Relation::NewRequest);
    let accepted = change
        .start
        .as_ref()
        .map(|plan| plan.accepted(&change.interaction, now));
    // The operation this input started, or the waiting one it resumes.
    let operation = match (&accepted, &change.resume) {
        (Some(op), _) => Some(op.clone()),
        (None, Some((id, _))) => store.operation(*id)?,
        (None, None) => None,
    };
    let submitted = Submitted {
        relation,
        interaction: change.interaction.clone(),
        operation,
        replayed: false,
    };
    let reply = serde_json::to_value(&submitted)
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    // The operation this input stops: asked to stop in the same commit, and, when it only waited
    // for an answer, ended there too (nothing runs, nothing has to confirm).
    let stop_events = match change.stop {
        Some(stop) => store
            .operation(stop.operation)?
            .map(|op| operation::stop_events(&op, stop.reason.as_str(), now))
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let stopped = store.commit_input(
        &change,
        accepted.as_ref(),
        change.stop.map(|s| (s.operation, stop_events.as_slice())),
        (&input.device, &input.id.to_string(), &hash, &reply),
        now,
    )?;
    if let Some(op) = &stopped {
        publish_events(notify, op, &stop_events);
    }
    let set_aside = change.set_aside.as_ref().map(|c| c.interaction.clone());
    Ok((submitted, change.stop, change.resume, set_aside))
}

/// What a waiting operation puts on its interaction.
enum Asking {
    Question(Question),
    Approval(crate::model::Approval),
}

/// The journal an executor writes its steps to: each step is durable before it acts.
struct OperationJournal {
    engine: Arc<Engine>,
    operation: OperationId,
    next: AtomicU32,
}

impl OperationJournal {
    async fn record(&self, event: OperationEvent, now: u64) -> Result<(), JournalError> {
        let id = self.operation;
        let notify = self.engine.notify.clone();
        self.engine
            .db(move |s| {
                let events = [event];
                let op = s.record(id, &events, now)?;
                publish_events(&notify, &op, &events);
                Ok::<_, StoreError>(())
            })
            .await
            .map_err(|e| JournalError(e.to_string()))
    }
}

impl Journal for OperationJournal {
    fn begin(&self, step: StepStart) -> BoxFuture<'_, Result<u32, JournalError>> {
        Box::pin(async move {
            let index = self.next.fetch_add(1, Ordering::SeqCst);
            let now = clock::now();
            let step = Step {
                index,
                observation: step.observation,
                action: step.action,
                arguments: step.arguments,
                irreversible: step.irreversible,
                result: None,
                evidence: serde_json::Value::Null,
                started_at: now,
                finished_at: None,
            };
            self.record(OperationEvent::StepBegun { step }, now).await?;
            Ok(index)
        })
    }

    fn end(
        &self,
        index: u32,
        result: StepResult,
        evidence: serde_json::Value,
    ) -> BoxFuture<'_, Result<(), JournalError>> {
        Box::pin(async move {
            self.record(
                OperationEvent::StepEnded {
                    index,
                    result,
                    evidence: bounded(evidence),
                },
                clock::now(),
            )
            .await
        })
    }

    fn observed(
        &self,
        index: u32,
        evidence: serde_json::Value,
        observation: serde_json::Value,
        target: Option<crate::model::Target>,
    ) -> BoxFuture<'_, Result<String, JournalError>> {
        Box::pin(async move {
            let id = self.operation;
            let notify = self.engine.notify.clone();
            let retention = self.engine.retention;
            let observation_id = store::observation_id(id, index);
            let mut evidence = bounded(evidence);
            if let Some(o) = evidence.as_object_mut() {
                o.insert("observation".into(), observation_id.into());
            }
            let mut events: Vec<OperationEvent> = target
                .into_iter()
                .map(|target| OperationEvent::Targeted { target })
                .collect();
            events.push(OperationEvent::StepEnded {
                index,
                result: StepResult::Applied,
                evidence,
            });
            self.engine
                .db(move |s| {
                    let observation = within(observation, MAX_OBSERVATION_BYTES, "observation");
                    let (op, observation_id) = s.record_observation(
                        id,
                        index,
                        &observation,
                        &events,
                        retention,
                        clock::now(),
                    )?;
                    publish_events(&notify, &op, &events);
                    Ok::<_, StoreError>(observation_id)
                })
                .await
                .map_err(|e| JournalError(e.to_string()))
        })
    }

    fn current(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let id = self.operation;
            self.engine
                .db(move |s| -> Result<bool, StoreError> {
                    let Some(op) = s.operation(id)? else {
                        return Ok(false);
                    };
                    let i = s.interaction(op.interaction)?;
                    Ok(i.is_some_and(|i| i.operation == Some(id) && !i.closed))
                })
                .await
                .unwrap_or(false)
        })
    }

    fn target(&self, target: crate::model::Target) -> BoxFuture<'_, Result<(), JournalError>> {
        Box::pin(async move {
            self.record(OperationEvent::Targeted { target }, clock::now())
                .await
        })
    }
}

//! The operation state machine: which status changes are legal, and what a restart means.
//!
//! Architecture invariant: pure. An uncertain effect stays uncertain (`OutcomeUnknown`) until an
//! observation settles it; nothing here ever schedules a retry of an irreversible step.

use crate::executor::ExecOutcome;
use crate::model::OperationStatus::{self, *};
use crate::model::{
    Interaction, Millis, Operation, Outcome, Pending, Step, StepResult, StopState, Target,
};
use serde::{Deserialize, Serialize};

/// Something that happened to an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Transition {
    /// The executor took it: effects may happen from now on.
    Start,
    /// The effects are done; their result is being observed.
    Verify,
    /// Waiting for a person (an approval, a missing value).
    NeedInput,
    /// The person answered; carry on.
    Resume,
    /// Observed: what was asked for is true.
    Complete,
    /// Observed: it could not be done, and nothing uncertain happened.
    Block,
    /// The executor confirmed it stopped.
    ConfirmStop,
    /// The daemon restarted (or lost the target) while effects may have been in flight.
    Lose,
    /// An observation after `Lose` showed what is true.
    Settle(Settled),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Settled {
    Done,
    NotDone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an operation that is {} cannot take {transition:?}", from.as_str())]
pub struct IllegalTransition {
    pub from: OperationStatus,
    pub transition: Transition,
}

pub fn next(
    from: OperationStatus,
    transition: Transition,
) -> Result<OperationStatus, IllegalTransition> {
    use Transition as T;
    let to = match (from, transition) {
        (Accepted | NeedsInput, T::Start) => Running,
        (Running, T::Verify) => Verifying,
        (Running | Verifying, T::NeedInput) => NeedsInput,
        (NeedsInput, T::Resume) => Running,
        (Running | Verifying, T::Complete) => Completed,
        (Accepted | Running | Verifying | NeedsInput, T::Block) => Blocked,
        (Accepted | Running | Verifying | NeedsInput, T::ConfirmStop) => Stopped,
        // Accepted but never started: nothing happened, so it is not uncertain.
        (Accepted, T::Lose) => Blocked,
        (Running | Verifying | NeedsInput, T::Lose) => OutcomeUnknown,
        (OutcomeUnknown, T::Settle(Settled::Done)) => Completed,
        (OutcomeUnknown, T::Settle(Settled::NotDone)) => Blocked,
        _ => return Err(IllegalTransition { from, transition }),
    };
    Ok(to)
}

/// Whether an active operation's interaction still holds it: its current operation, not closed,
/// and (for one waiting for an answer) still asking its question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// The interaction still waits on it.
    Held,
    /// The interaction was closed, moved on to another operation, or no longer asks; why.
    Abandoned(&'static str),
}

/// The standing of `op` with its interaction (`None`: the interaction is missing).
pub fn standing(op: &Operation, interaction: Option<&Interaction>) -> Standing {
    let Some(i) = interaction else {
        return Standing::Abandoned("its interaction is missing");
    };
    if i.closed {
        Standing::Abandoned("its interaction is closed")
    } else if i.operation != Some(op.id) {
        Standing::Abandoned("its interaction moved on to another operation")
    } else if op.status == NeedsInput && !matches!(i.pending, Pending::Question(_)) {
        Standing::Abandoned("its interaction asks no question")
    } else {
        Standing::Held
    }
}

/// Whether `op` is stranded: active while its interaction has let go of it, with nothing on its
/// way to end it (a waiting operation never ends by itself; a running one ends once asked to stop).
pub fn stranded(op: &Operation, interaction: Option<&Interaction>) -> Option<&'static str> {
    match standing(op, interaction) {
        Standing::Abandoned(why)
            if op.status.is_active() && (op.status == NeedsInput || op.stop.is_none()) =>
        {
            Some(why)
        }
        _ => None,
    }
}

/// What startup does with an operation it finds in `status`. One waiting for an answer ran
/// nothing while it waited, so it is not uncertain: it is stopped (`ConfirmStop`), because the
/// choices of its question point into a page read before the restart (element references live
/// as long as one connection). Anything else active may have acted: `Lose`.
pub fn on_restart(status: OperationStatus) -> Option<Transition> {
    match status {
        NeedsInput => Some(Transition::ConfirmStop),
        s => s.is_active().then_some(Transition::Lose),
    }
}

/// The events a stop request means for `op` now. A waiting operation (its question unanswered)
/// has nothing running and no executor to confirm, so the stop is requested, confirmed and its
/// outcome recorded at once, in one commit with whatever withdrew it. A running one gets the
/// request; its executor confirms. A finished one, or one already asked to stop, gets nothing.
pub fn stop_events(op: &Operation, by: &str, now: Millis) -> Vec<OperationEvent> {
    if !op.status.is_active() || op.stop.is_some() {
        return Vec::new();
    }
    let mut events = vec![OperationEvent::StopRequested {
        stop: StopState {
            requested_at: now,
            requested_by: by.to_string(),
            confirmed_at: None,
        },
    }];
    if op.status == NeedsInput {
        events.extend(confirmed_stop(format!(
            "Stopped while it waited for an answer ({by}); nothing ran after its question."
        )));
    }
    events
}

/// How an execution ends when a stop was requested while it ran: a step that failed without
/// any effect ("blocked") after the stop is the stop taking hold, so the operation is stopped
/// (and the stop confirmed) rather than blocked. An effect seen (completed) or possible
/// (unknown) stays as the executor observed it: the truth outranks the request.
pub fn after_stop(outcome: ExecOutcome, asked_to_stop: bool) -> ExecOutcome {
    match outcome {
        ExecOutcome::Blocked { .. } if asked_to_stop => ExecOutcome::Stopped,
        other => other,
    }
}

/// A stop confirmed for an operation that was waiting: the move, the confirmation, the outcome.
pub fn confirmed_stop(summary: String) -> [OperationEvent; 3] {
    [
        OperationEvent::Moved {
            transition: Transition::ConfirmStop,
            status: Stopped,
        },
        OperationEvent::StopConfirmed,
        OperationEvent::OutcomeRecorded {
            outcome: Outcome {
                status: Stopped,
                summary,
                data: serde_json::Value::Null,
            },
        },
    ]
}

/// One durable fact about an operation. The stored operation is the fold of these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum OperationEvent {
    Accepted {
        operation: Box<Operation>,
    },
    Moved {
        transition: Transition,
        status: OperationStatus,
    },
    StepBegun {
        step: Step,
    },
    StepEnded {
        index: u32,
        result: StepResult,
        evidence: serde_json::Value,
    },
    StopRequested {
        stop: StopState,
    },
    StopConfirmed,
    OutcomeRecorded {
        outcome: Outcome,
    },
    /// The person answered the operation's question; these arguments now hold.
    Resumed {
        arguments: std::collections::BTreeMap<String, String>,
    },
    /// The executor resolved where exactly it acts (a tab in a profile).
    Targeted {
        target: Target,
    },
}

/// Apply one event. `Moved` carries the status `next` computed, so replay needs no table.
pub fn apply(state: Option<&Operation>, event: &OperationEvent, at: Millis) -> Operation {
    let mut op = match (state, event) {
        (_, OperationEvent::Accepted { operation }) => (**operation).clone(),
        (Some(s), _) => {
            let mut op = s.clone();
            op.revision += 1;
            op
        }
        (None, _) => panic!("event {event:?} needs an accepted operation"),
    };
    match event {
        OperationEvent::Accepted { .. } => {}
        OperationEvent::Moved { status, .. } => op.status = *status,
        OperationEvent::StepBegun { step } => op.steps.push(step.clone()),
        OperationEvent::StepEnded {
            index,
            result,
            evidence,
        } => {
            if let Some(step) = op.steps.iter_mut().find(|s| s.index == *index) {
                step.result = Some(*result);
                step.evidence = evidence.clone();
                step.finished_at = Some(at);
            }
        }
        OperationEvent::StopRequested { stop } => {
            if op.stop.is_none() {
                op.stop = Some(stop.clone());
            }
        }
        OperationEvent::StopConfirmed => {
            if let Some(stop) = op.stop.as_mut() {
                stop.confirmed_at.get_or_insert(at);
            }
        }
        OperationEvent::OutcomeRecorded { outcome } => op.outcome = Some(outcome.clone()),
        OperationEvent::Resumed { arguments } => op.arguments.clone_from(arguments),
        OperationEvent::Targeted { target } => op.target = target.clone(),
    }
    op.updated_at = at;
    op
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OperationStatus;

    #[test]
    fn a_block_after_a_stop_request_is_the_stop() {
        let blocked = || ExecOutcome::Blocked {
            reason: "the app did not answer".into(),
        };
        let done = ExecOutcome::Completed {
            summary: "saved".into(),
            data: serde_json::Value::Null,
        };
        let unknown = ExecOutcome::Unknown {
            reason: "the save may have happened".into(),
        };
        let table = [
            (blocked(), true, ExecOutcome::Stopped),
            (blocked(), false, blocked()),
            (done.clone(), true, done),
            (unknown.clone(), true, unknown),
        ];
        for (outcome, asked, want) in table {
            assert_eq!(
                after_stop(outcome.clone(), asked),
                want,
                "{outcome:?} {asked}"
            );
        }
    }

    const ALL_TRANSITIONS: [Transition; 10] = [
        Transition::Start,
        Transition::Verify,
        Transition::NeedInput,
        Transition::Resume,
        Transition::Complete,
        Transition::Block,
        Transition::ConfirmStop,
        Transition::Lose,
        Transition::Settle(Settled::Done),
        Transition::Settle(Settled::NotDone),
    ];

    /// Every (status, transition) pair, with the expected result; `None` means illegal.
    #[test]
    fn table() {
        use Transition as T;
        let expect = |from: OperationStatus, t: Transition| -> Option<OperationStatus> {
            Some(match (from, t) {
                (Accepted, T::Start) | (NeedsInput, T::Start) => Running,
                (Running, T::Verify) => Verifying,
                (Running, T::NeedInput) | (Verifying, T::NeedInput) => NeedsInput,
                (NeedsInput, T::Resume) => Running,
                (Running, T::Complete) | (Verifying, T::Complete) => Completed,
                (Accepted, T::Block)
                | (Running, T::Block)
                | (Verifying, T::Block)
                | (NeedsInput, T::Block) => Blocked,
                (Accepted, T::ConfirmStop)
                | (Running, T::ConfirmStop)
                | (Verifying, T::ConfirmStop)
                | (NeedsInput, T::ConfirmStop) => Stopped,
                (Accepted, T::Lose) => Blocked,
                (Running, T::Lose) | (Verifying, T::Lose) | (NeedsInput, T::Lose) => OutcomeUnknown,
                (OutcomeUnknown, T::Settle(Settled::Done)) => Completed,
                (OutcomeUnknown, T::Settle(Settled::NotDone)) => Blocked,
                _ => return None,
            })
        };
        let mut legal = 0;
        for from in OperationStatus::ALL {
            for t in ALL_TRANSITIONS {
                assert_eq!(next(from, t).ok(), expect(from, t), "{from:?} + {t:?}");
                legal += usize::from(expect(from, t).is_some());
            }
        }
        assert_eq!(legal, 22);
    }

    #[test]
    fn final_statuses_take_nothing() {
        for from in [Completed, Stopped, Blocked] {
            for t in ALL_TRANSITIONS {
                assert!(next(from, t).is_err(), "{from:?} + {t:?}");
            }
        }
    }

    /// Every status: what a restart does.
    #[test]
    fn restart_marks_what_may_have_acted_and_stops_what_waited() {
        use Transition as T;
        for status in OperationStatus::ALL {
            let expected = match status {
                Accepted | Running | Verifying => Some(T::Lose),
                NeedsInput => Some(T::ConfirmStop),
                Completed | Stopped | Blocked | OutcomeUnknown => None,
            };
            assert_eq!(on_restart(status), expected, "{status:?}");
            if let Some(t) = expected {
                assert!(next(status, t).is_ok(), "{status:?} + {t:?} is legal");
            }
        }
        assert_eq!(next(Running, Transition::Lose), Ok(OutcomeUnknown));
        assert_eq!(next(Accepted, Transition::Lose), Ok(Blocked));
        assert_eq!(next(NeedsInput, Transition::ConfirmStop), Ok(Stopped));
    }

    fn operation(status: OperationStatus) -> Operation {
        Operation {
            id: uuid::Uuid::nil(),
            interaction: uuid::Uuid::nil(),
            interaction_revision: 1,
            target: Target::default(),
            authorized_scope: Vec::new(),
            goal: crate::model::Goal::Browser,
            arguments: Default::default(),
            mode: Default::default(),
            heard: Vec::new(),
            expected_outcome: String::new(),
            status,
            revision: 1,
            steps: Vec::new(),
            stop: None,
            outcome: None,
            accepted_at: 0,
            updated_at: 0,
        }
    }

    fn holding(op: &Operation, closed: bool, asking: bool, current: bool) -> Interaction {
        let question = crate::model::Question {
            kind: crate::model::QuestionKind::Choice,
            slot: "target".into(),
            prompt: "Which one?".into(),
            known_arguments: Default::default(),
            choices: Vec::new(),
            owner: "n".into(),
            expires_at: 10,
        };
        Interaction {
            owner: "n".into(),
            id: op.interaction,
            revision: 3,
            goal: crate::model::Goal::Browser,
            request: "open it".into(),
            mode: Default::default(),
            heard: Vec::new(),
            arguments: Default::default(),
            pending: if asking {
                Pending::Question(question)
            } else {
                Pending::None
            },
            target: Target::default(),
            operation: Some(if current {
                op.id
            } else {
                uuid::Uuid::from_u128(9)
            }),
            outcome: None,
            closed,
            created_at: 0,
            updated_at: 0,
        }
    }

    /// (status, stop requested, interaction closed, asking, still its operation) → stranded?
    #[test]
    fn stranded_operations() {
        let table = [
            (NeedsInput, false, false, true, true, None),
            (
                NeedsInput,
                false,
                true,
                false,
                true,
                Some("its interaction is closed"),
            ),
            (
                NeedsInput,
                true,
                true,
                false,
                true,
                Some("its interaction is closed"),
            ),
            (
                NeedsInput,
                false,
                false,
                true,
                false,
                Some("its interaction moved on to another operation"),
            ),
            (
                NeedsInput,
                false,
                false,
                false,
                true,
                Some("its interaction asks no question"),
            ),
            (Running, false, false, false, true, None),
            (
                Running,
                false,
                true,
                false,
                true,
                Some("its interaction is closed"),
            ),
            // Asked to stop: its executor is on its way to confirm.
            (Running, true, true, false, true, None),
            (Completed, false, true, false, true, None),
            (Stopped, true, true, false, false, None),
        ];
        for (status, stopping, closed, asking, current, expected) in table {
            let mut op = operation(status);
            if stopping {
                op.stop = Some(StopState {
                    requested_at: 1,
                    requested_by: "cli".into(),
                    confirmed_at: None,
                });
            }
            let i = holding(&op, closed, asking, current);
            assert_eq!(
                stranded(&op, Some(&i)),
                expected,
                "{status:?} stopping={stopping} closed={closed} asking={asking} current={current}"
            );
        }
        assert_eq!(
            stranded(&operation(NeedsInput), None),
            Some("its interaction is missing")
        );
    }

    /// A stop on a waiting operation ends it in the same events; on a running one it is a request;
    /// on a finished or already-stopping one it is nothing.
    #[test]
    fn stop_events_by_status() {
        for status in OperationStatus::ALL {
            let op = operation(status);
            let events = stop_events(&op, "cancel", 7);
            let mut after = op.clone();
            for e in &events {
                after = apply(Some(&after), e, 7);
            }
            match status {
                NeedsInput => {
                    assert_eq!(after.status, Stopped);
                    let stop = after.stop.as_ref().unwrap();
                    assert_eq!(
                        (stop.requested_by.as_str(), stop.confirmed_at),
                        ("cancel", Some(7))
                    );
                    let outcome = after.outcome.as_ref().unwrap();
                    assert_eq!(outcome.status, Stopped);
                    assert!(outcome.summary.contains("(cancel)"), "{outcome:?}");
                }
                Accepted | Running | Verifying => {
                    assert_eq!(after.status, status, "the executor confirms");
                    assert!(after.stop.as_ref().unwrap().confirmed_at.is_none());
                }
                _ => assert!(events.is_empty(), "{status:?}: {events:?}"),
            }
        }
        let mut stopping = operation(NeedsInput);
        stopping.stop = Some(StopState {
            requested_at: 1,
            requested_by: "cli".into(),
            confirmed_at: None,
        });
        assert!(stop_events(&stopping, "cancel", 7).is_empty());
    }
}

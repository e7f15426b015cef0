//! The operation state machine: which status changes are legal, and what a restart means.
//!
//! Architecture invariant: pure. An uncertain effect stays uncertain (`OutcomeUnknown`) until an
//! observation settles it; nothing here ever schedules a retry of an irreversible step.

use crate::model::OperationStatus::{self, *};
use crate::model::{Millis, Operation, Outcome, Step, StepResult, StopState, Target};
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

/// What startup does with an operation it finds in `status`: `Some(Lose)` when it must be marked.
pub fn on_restart(status: OperationStatus) -> Option<Transition> {
    status.is_active().then_some(Transition::Lose)
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

    #[test]
    fn restart_marks_what_may_have_acted() {
        assert_eq!(on_restart(Running), Some(Transition::Lose));
        assert_eq!(next(Running, Transition::Lose), Ok(OutcomeUnknown));
        assert_eq!(next(Accepted, Transition::Lose), Ok(Blocked));
        assert_eq!(on_restart(Completed), None);
        assert_eq!(on_restart(OutcomeUnknown), None);
    }
}

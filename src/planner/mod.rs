//! The planner loop (seed 003): perceive → decide → act → settle → verify, one step at a time,
//! until the goal is done or answered, the person must say something, it failed, it was stopped,
//! or it ran out of budget.
//!
//! Architecture invariant: pure. `Loop::next` takes an event and the time and returns the one
//! effect the executor carries out next (observe, ask the model, ground and act on words, ask the
//! person, finish); no I/O, no clock, no async. The model plans in words (`provider`); each step
//! in words is grounded by the Director exactly as if the person had said it, so the model never
//! sees or writes an element id. An uncertain step ends the run as uncertain; a step that changed
//! nothing, said again on the same screen, ends it as no progress; nothing is retried blindly.

pub mod provider;

use crate::model::Millis;

/// How much one run may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Steps acted on (grounded and tried).
    pub steps: u32,
    /// Time from the start, in milliseconds (checked before every step).
    pub millis: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 8,
            millis: 120_000,
        }
    }
}

/// What became of one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    /// Done and seen on the page.
    Applied,
    /// Tried, and the page shows it did not happen.
    NotApplied,
    /// Tried; whether it happened cannot be told.
    Unknown,
    /// Not tried: something stood in the way (covered, disabled, a refused action).
    Blocked,
    /// The Director found nothing on screen that the words name.
    NotGrounded,
}

impl StepOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            StepOutcome::Applied => "done",
            StepOutcome::NotApplied => "not done",
            StepOutcome::Unknown => "unknown",
            StepOutcome::Blocked => "blocked",
            StepOutcome::NotGrounded => "not found on screen",
        }
    }
}

/// One step of the run, as the model and the person read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    pub words: String,
    pub outcome: StepOutcome,
    /// What happened, in words ("clicked \"Sort by price\"", "nothing on screen fits that").
    pub note: String,
    /// The screen the step was decided on.
    pub screen: u64,
}

/// What the model answered, read (`provider::parse`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proposal {
    /// An answer to a question about the page, and the passage it rests on.
    Answer {
        text: String,
        passage: Option<String>,
    },
    /// The goal is reached.
    Done { summary: String },
    /// The person must say something first.
    Ask { question: String },
    /// One step in plain words; `irreversible` when the model says it cannot be undone.
    Step { words: String, irreversible: bool },
    /// Not one of the above; the raw text.
    Malformed { raw: String },
}

/// What happened, told to the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Started,
    /// The page was observed; `screen` fingerprints what it showed.
    Observed {
        screen: u64,
    },
    Proposed(Proposal),
    /// The model could not be asked (unreachable, timed out); why.
    ModelFailed {
        reason: String,
    },
    /// The step the loop asked for ended so.
    Stepped {
        outcome: StepOutcome,
        note: String,
    },
    /// Stop was asked for, or the interaction moved on.
    Cancelled,
}

/// The one thing to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    Observe,
    /// Ask the model for the next move; with the unreadable answer when this is the one repair.
    Propose {
        repair: Option<String>,
    },
    /// Ground `words` with the Director and act on what it chooses, then verify.
    Ground {
        words: String,
        irreversible: bool,
    },
    /// Ask the person (the run ends; their answer starts the next one).
    Ask {
        question: String,
    },
    Finish(Finish),
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finish {
    Answered {
        text: String,
        passage: Option<String>,
    },
    Completed {
        summary: String,
    },
    Failed {
        reason: String,
    },
    Stopped,
    /// A step's effect is unknown: the run stops there, uncertain.
    Unknown {
        reason: String,
    },
    OutOfBudget {
        reason: String,
    },
}

/// Steps in a row that could not be done before the run gives up.
const MAX_FAILURES: u32 = 2;

/// One run.
#[derive(Clone, Debug)]
pub struct Loop {
    goal: String,
    budget: Budget,
    started: Millis,
    done: Vec<Done>,
    /// Screens seen after each observation, in order.
    screens: Vec<u64>,
    repaired: bool,
    failures: u32,
    calls: u32,
    /// The step asked for and not yet reported.
    pending: Option<(String, u64)>,
    finished: Option<Finish>,
}

impl Loop {
    pub fn new(goal: &str, budget: Budget, now: Millis) -> Loop {
        Loop {
            goal: goal.to_string(),
            budget,
            started: now,
            done: Vec::new(),
            screens: Vec::new(),
            repaired: false,
            failures: 0,
            calls: 0,
            pending: None,
            finished: None,
        }
    }

    /// A run that goes on after the person answered (an approval, a question): the steps done
    /// before are its history, so the model sees them.
    pub fn resume(goal: &str, budget: Budget, now: Millis, done: Vec<Done>) -> Loop {
        Loop {
            done,
            ..Loop::new(goal, budget, now)
        }
    }

    pub fn goal(&self) -> &str {
        &self.goal
    }

    /// The steps so far, with their outcomes.
    pub fn done(&self) -> &[Done] {
        &self.done
    }

    /// How many times the model was asked.
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// The next effect, after `event` at `now`.
    pub fn next(&mut self, event: Event, now: Millis) -> Effect {
        if let Some(finish) = &self.finished {
            return Effect::Finish(finish.clone());
        }
        let effect = self.decide(event, now);
        if let Effect::Finish(f) = &effect {
            self.finished = Some(f.clone());
        }
        effect
    }

    fn decide(&mut self, event: Event, now: Millis) -> Effect {
        match event {
            Event::Cancelled => Effect::Finish(Finish::Stopped),
            Event::Started => Effect::Observe,
            Event::Observed { screen } => {
                self.screens.push(screen);
                if let Some(reason) = self.going_in_circles() {
                    return Effect::Finish(Finish::Failed { reason });
                }
                self.calls += 1;
                Effect::Propose { repair: None }
            }
            Event::ModelFailed { reason } => Effect::Finish(Finish::Failed {
                reason: format!("the planner could not be asked: {reason}"),
            }),
            Event::Proposed(p) => self.proposed(p, now),
            Event::Stepped { outcome, note } => {
                let Some((words, screen)) = self.pending.take() else {
                    return Effect::Finish(Finish::Failed {
                        reason: "a step was reported that was never asked for".into(),
                    });
                };
                self.done.push(Done {
                    words,
                    outcome,
                    note: note.clone(),
                    screen,
                });
                match outcome {
                    StepOutcome::Applied => {
                        self.failures = 0;
                        Effect::Observe
                    }
                    StepOutcome::Unknown => Effect::Finish(Finish::Unknown {
                        reason: format!(
                            "{note}: whether it took effect is unknown, so nothing more was done"
                        ),
                    }),
                    StepOutcome::NotApplied | StepOutcome::Blocked | StepOutcome::NotGrounded => {
                        self.failures += 1;
                        if self.failures >= MAX_FAILURES {
                            Effect::Finish(Finish::Failed {
                                reason: format!("{MAX_FAILURES} steps in a row could not be done (the last: {note})"),
                            })
                        } else {
                            Effect::Observe
                        }
                    }
                }
            }
        }
    }

    fn proposed(&mut self, p: Proposal, now: Millis) -> Effect {
        match p {
            Proposal::Malformed { raw } if !self.repaired => {
                self.repaired = true;
                self.calls += 1;
                Effect::Propose { repair: Some(raw) }
            }
            Proposal::Malformed { raw } => Effect::Finish(Finish::Failed {
                reason: format!("the planner's answer could not be read twice; it said: {raw}"),
            }),
            Proposal::Answer { text, passage } => {
                Effect::Finish(Finish::Answered { text, passage })
            }
            // A "done" right after a step that was not done is the model's word against the
            // page's: not a success.
            Proposal::Done { summary } => match self.done.last() {
                Some(last) if last.outcome != StepOutcome::Applied => Effect::Finish(Finish::Failed {
                    reason: format!(
                        "the planner said \"{summary}\", but its last step, \"{}\", was not done ({})",
                        last.words, last.note
                    ),
                }),
                _ => Effect::Finish(Finish::Completed { summary }),
            },
            Proposal::Ask { question } => Effect::Ask { question },
            Proposal::Step {
                words,
                irreversible,
            } => {
                self.repaired = false;
                let words = words.trim().to_string();
                if words.is_empty() {
                    return Effect::Finish(Finish::Failed {
                        reason: "the planner proposed an empty step".into(),
                    });
                }
                let screen = self.screens.last().copied().unwrap_or(0);
                // The same words on the same screen after they changed nothing: no progress.
                if self.done.last().is_some_and(|d| {
                    d.words.eq_ignore_ascii_case(&words)
                        && (d.screen == screen || d.outcome != StepOutcome::Applied)
                }) {
                    return Effect::Finish(Finish::Failed {
                        reason: format!(
                            "no progress: \"{words}\" again on a screen it did not change"
                        ),
                    });
                }
                if self.done.len() as u32 >= self.budget.steps {
                    return Effect::Finish(Finish::OutOfBudget {
                        reason: format!(
                            "{} steps taken, the most one request may take",
                            self.budget.steps
                        ),
                    });
                }
                if now.saturating_sub(self.started) > self.budget.millis {
                    return Effect::Finish(Finish::OutOfBudget {
                        reason: format!(
                            "{} s passed, the most one request may take",
                            self.budget.millis / 1000
                        ),
                    });
                }
                self.pending = Some((words.clone(), screen));
                Effect::Ground {
                    words,
                    irreversible,
                }
            }
        }
    }

    /// Back and forth between two screens (A B A B after steps that each applied).
    fn going_in_circles(&self) -> Option<String> {
        let s = &self.screens;
        let n = s.len();
        (n >= 4 && s[n - 1] == s[n - 3] && s[n - 2] == s[n - 4] && s[n - 1] != s[n - 2])
            .then(|| "no progress: going back and forth between two pages".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(words: &str) -> Event {
        Event::Proposed(Proposal::Step {
            words: words.into(),
            irreversible: false,
        })
    }

    fn stepped(outcome: StepOutcome) -> Event {
        Event::Stepped {
            outcome,
            note: "clicked".into(),
        }
    }

    /// Runs `events` from the start (time 0 unless given), returning every effect.
    fn run(budget: Budget, events: Vec<(Event, Millis)>) -> Vec<Effect> {
        let mut l = Loop::new("sort by price, then add the cheapest desk", budget, 0);
        let mut out = vec![l.next(Event::Started, 0)];
        for (e, now) in events {
            out.push(l.next(e, now));
        }
        out
    }

    fn ground(words: &str) -> Effect {
        Effect::Ground {
            words: words.into(),
            irreversible: false,
        }
    }

    const PROPOSE: Effect = Effect::Propose { repair: None };

    #[test]
    fn a_task_of_two_steps_completes() {
        let effects = run(
            Budget::default(),
            vec![
                (Event::Observed { screen: 1 }, 1),
                (step("sort by price"), 2),
                (stepped(StepOutcome::Applied), 3),
                (Event::Observed { screen: 2 }, 4),
                (step("add the cheapest desk to the cart"), 5),
                (stepped(StepOutcome::Applied), 6),
                (Event::Observed { screen: 3 }, 7),
                (
                    Event::Proposed(Proposal::Done {
                        summary: "added".into(),
                    }),
                    8,
                ),
            ],
        );
        assert_eq!(
            effects,
            vec![
                Effect::Observe,
                PROPOSE,
                ground("sort by price"),
                Effect::Observe,
                PROPOSE,
                ground("add the cheapest desk to the cart"),
                Effect::Observe,
                PROPOSE,
                Effect::Finish(Finish::Completed {
                    summary: "added".into()
                }),
            ]
        );
    }

    /// Each row: the events after the start, and how the run must end.
    #[test]
    fn how_runs_end() {
        let malformed = |raw: &str| Event::Proposed(Proposal::Malformed { raw: raw.into() });
        let seen = |s| Event::Observed { screen: s };
        let table: Vec<(&str, Vec<Event>, Finish)> = vec![
            (
                "malformed twice",
                vec![seen(1), malformed("I think"), malformed("hmm")],
                Finish::Failed {
                    reason: "the planner's answer could not be read twice; it said: hmm".into(),
                },
            ),
            (
                "an uncertain step stops the run uncertain",
                vec![seen(1), step("buy"), stepped(StepOutcome::Unknown)],
                Finish::Unknown {
                    reason: "clicked: whether it took effect is unknown, so nothing more was done"
                        .into(),
                },
            ),
            (
                "the same step on an unchanged screen",
                vec![
                    seen(1),
                    step("next page"),
                    stepped(StepOutcome::Applied),
                    seen(1),
                    step("next page"),
                ],
                Finish::Failed {
                    reason: "no progress: \"next page\" again on a screen it did not change".into(),
                },
            ),
            (
                "two failures in a row",
                vec![
                    seen(1),
                    step("press the purple button"),
                    stepped(StepOutcome::NotGrounded),
                    seen(1),
                    step("press the violet button"),
                    stepped(StepOutcome::NotGrounded),
                ],
                Finish::Failed {
                    reason: "2 steps in a row could not be done (the last: clicked)".into(),
                },
            ),
            (
                "back and forth between two pages",
                vec![
                    seen(1),
                    step("open the item"),
                    stepped(StepOutcome::Applied),
                    seen(2),
                    step("go back"),
                    stepped(StepOutcome::Applied),
                    seen(1),
                    step("open the item again"),
                    stepped(StepOutcome::Applied),
                    seen(2),
                ],
                Finish::Failed {
                    reason: "no progress: going back and forth between two pages".into(),
                },
            ),
            (
                "the model cannot be reached",
                vec![
                    seen(1),
                    Event::ModelFailed {
                        reason: "timed out after 20 s".into(),
                    },
                ],
                Finish::Failed {
                    reason: "the planner could not be asked: timed out after 20 s".into(),
                },
            ),
            (
                "stopped mid-run",
                vec![seen(1), step("sort"), Event::Cancelled],
                Finish::Stopped,
            ),
            (
                "done said after a step that was not done",
                vec![
                    seen(1),
                    step("add the desk"),
                    stepped(StepOutcome::Blocked),
                    seen(1),
                    Event::Proposed(Proposal::Done {
                        summary: "added".into(),
                    }),
                ],
                Finish::Failed {
                    reason: "the planner said \"added\", but its last step, \"add the desk\", was not done (clicked)".into(),
                },
            ),
            (
                "an answer about the page",
                vec![
                    seen(1),
                    Event::Proposed(Proposal::Answer {
                        text: "A Rust database".into(),
                        passage: Some("Show HN: a tiny Rust database".into()),
                    }),
                ],
                Finish::Answered {
                    text: "A Rust database".into(),
                    passage: Some("Show HN: a tiny Rust database".into()),
                },
            ),
        ];
        for (name, events, want) in table {
            let effects = run(
                Budget::default(),
                events.into_iter().map(|e| (e, 1)).collect(),
            );
            assert_eq!(
                effects.last(),
                Some(&Effect::Finish(want)),
                "{name}: {effects:?}"
            );
        }
    }

    #[test]
    fn one_repair_then_on() {
        let effects = run(
            Budget::default(),
            vec![
                (Event::Observed { screen: 1 }, 1),
                (
                    Event::Proposed(Proposal::Malformed {
                        raw: "Sure! First".into(),
                    }),
                    2,
                ),
                (step("sort by price"), 3),
            ],
        );
        assert_eq!(
            &effects[2..],
            &[
                Effect::Propose {
                    repair: Some("Sure! First".into())
                },
                ground("sort by price")
            ]
        );
    }

    #[test]
    fn budgets_are_checked_before_a_step() {
        let budget = Budget {
            steps: 1,
            millis: 10_000,
        };
        let effects = run(
            budget,
            vec![
                (Event::Observed { screen: 1 }, 1),
                (step("sort by price"), 2),
                (stepped(StepOutcome::Applied), 3),
                (Event::Observed { screen: 2 }, 4),
                (step("add the desk"), 5),
            ],
        );
        assert!(matches!(
            effects.last(),
            Some(Effect::Finish(Finish::OutOfBudget { .. }))
        ));
        let effects = run(
            Budget::default(),
            vec![
                (Event::Observed { screen: 1 }, 1),
                (step("sort by price"), 120_001),
            ],
        );
        assert_eq!(
            effects.last(),
            Some(&Effect::Finish(Finish::OutOfBudget {
                reason: "120 s passed, the most one request may take".into()
            }))
        );
    }

    #[test]
    fn a_finished_run_stays_finished() {
        let mut l = Loop::new("g", Budget::default(), 0);
        l.next(Event::Started, 0);
        assert_eq!(l.next(Event::Cancelled, 1), Effect::Finish(Finish::Stopped));
        assert_eq!(
            l.next(Event::Observed { screen: 3 }, 2),
            Effect::Finish(Finish::Stopped)
        );
        assert_eq!(l.calls(), 0);
    }
}

//! The decider seam: typed closed-choice questions in, one probability per
//! offered option out, several independent questions per call.
//!
//! This module owns the question and answer types and their validation. A
//! decider can only rank options it was offered; [`validate`] rejects any
//! answer that names something else or whose numbers are not probabilities.
//! The local decider (`director::local`) is the default and needs nothing but
//! the question; remote deciders (`src/decider/`) are optional,
//! async, and always fall back to it.

use crate::director::observation::{Observation, Structure};
use crate::director::types::Direction;

/// One call: what was heard and the questions to answer about it.
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    /// Recognition hypotheses, best first, with a prior weight in (0, 1].
    pub heard: Vec<Heard>,
    pub questions: Vec<Question>,
    /// The screen the target options point into, if any.
    pub screen: Option<Screen<'a>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Heard {
    pub text: String,
    pub weight: f32,
}

impl Ask<'_> {
    /// How a choice is described to a model: its own text, or for an element
    /// a rendering of that element.
    pub fn describe(&self, choice: &Choice) -> String {
        match (choice.meaning, self.screen) {
            (Meaning::Element(i), Some(screen)) if choice.text.is_empty() => screen
                .observation
                .elements
                .get(i)
                .map(crate::director::screen::option_text)
                .unwrap_or_default(),
            _ => choice.text.clone(),
        }
    }
}

/// An observation together with the structure derived from it.
#[derive(Debug, Clone, Copy)]
pub struct Screen<'a> {
    pub observation: &'a Observation,
    pub structure: &'a Structure,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub key: QuestionKey,
    pub instructions: String,
    pub choices: Vec<Choice>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionKey {
    /// What kind of action the words ask for.
    Action,
    /// Which on-screen element they refer to.
    Target,
    /// Which way to scroll.
    Direction,
}

impl QuestionKey {
    pub fn name(self) -> &'static str {
        match self {
            QuestionKey::Action => "action",
            QuestionKey::Target => "target",
            QuestionKey::Direction => "direction",
        }
    }
}

/// One offered option. `key` is what a remote model must answer with;
/// `text` is how it is described to a model; `meaning` is what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub key: String,
    pub text: String,
    pub meaning: Meaning,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// No element is needed / none fits.
    Nothing,
    Action(ActionKind),
    Direction(Direction),
    /// An element of `Ask::screen`, by index in reading order.
    Element(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    Click,
    Type,
    Scroll,
    Back,
    /// A question or multi-step task for the planner.
    Reason,
}

/// One probability per choice, aligned with `Question::choices`.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub key: QuestionKey,
    pub probabilities: Vec<f32>,
}

impl Answer {
    /// The most probable choice index and its probability.
    pub fn best(&self) -> Option<(usize, f32)> {
        self.probabilities
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecideError {
    #[error("the decider is not available: {0}")]
    Unavailable(String),
    #[error("the decider timed out")]
    Timeout,
    #[error("the decider answered outside the offered options: {0}")]
    Invalid(String),
}

/// A synchronous decider (the local one; test doubles).
pub trait Decider {
    fn name(&self) -> &'static str;
    fn decide(&self, ask: &Ask<'_>) -> Result<Vec<Answer>, DecideError>;
}

/// Checks that `answers` answer exactly the asked questions with
/// probabilities over exactly the offered choices.
pub fn validate(ask: &Ask<'_>, answers: &[Answer]) -> Result<(), DecideError> {
    for question in &ask.questions {
        let Some(answer) = answers.iter().find(|a| a.key == question.key) else {
            return Err(DecideError::Invalid(format!(
                "no answer for {}",
                question.key.name()
            )));
        };
        if answer.probabilities.len() != question.choices.len() {
            return Err(DecideError::Invalid(format!(
                "{} has {} probabilities for {} choices",
                question.key.name(),
                answer.probabilities.len(),
                question.choices.len()
            )));
        }
        if answer
            .probabilities
            .iter()
            .any(|p| !p.is_finite() || *p < 0.0 || *p > 1.0 + 1e-4)
        {
            return Err(DecideError::Invalid(format!(
                "{} has a number that is not a probability",
                question.key.name()
            )));
        }
        let sum: f32 = answer.probabilities.iter().sum();
        if sum > 1.0 + 1e-3 {
            return Err(DecideError::Invalid(format!(
                "{} probabilities sum to {sum}",
                question.key.name()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask() -> Ask<'static> {
        Ask {
            heard: vec![Heard {
                text: "scroll down".into(),
                weight: 1.0,
            }],
            questions: vec![Question {
                key: QuestionKey::Direction,
                instructions: "Which way?".into(),
                choices: vec![
                    Choice {
                        key: "1".into(),
                        text: "down".into(),
                        meaning: Meaning::Direction(Direction::Down),
                    },
                    Choice {
                        key: "2".into(),
                        text: "up".into(),
                        meaning: Meaning::Direction(Direction::Up),
                    },
                ],
            }],
            screen: None,
        }
    }

    #[test]
    fn validation_accepts_only_distributions_over_offered_choices() {
        let table: [(Vec<f32>, bool); 5] = [
            (vec![0.9, 0.1], true),
            (vec![0.5, 0.2], true),
            (vec![0.9], false),
            (vec![0.9, 0.9], false),
            (vec![f32::NAN, 0.0], false),
        ];
        for (probabilities, ok) in table {
            let answers = [Answer {
                key: QuestionKey::Direction,
                probabilities: probabilities.clone(),
            }];
            assert_eq!(validate(&ask(), &answers).is_ok(), ok, "{probabilities:?}");
        }
        assert!(validate(&ask(), &[]).is_err());
    }
}

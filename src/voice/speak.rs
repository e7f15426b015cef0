//! Circe's spoken replies on the desktop: espeak-ng, stopped at once when the person speaks.
//!
//! What is said is rendered from the operation's or interaction's state only ([`outcome_words`],
//! pure): the voice path never declares an operation done or invents a question. Playback is an
//! `espeak-ng` child process; [`Espeak::stop`] kills it (barge-in), and `playing` is true only
//! while it runs.

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use super::session::Speaker;
use crate::model::{Operation, OperationStatus};

/// The longest reply spoken, in characters (a summary is said, not a page).
pub const MAX_SPOKEN_CHARS: usize = 300;

/// What to say when an operation has ended, from its state; `None` while it is still active.
pub fn outcome_words(op: &Operation) -> Option<String> {
    if !op.status.is_final() && op.status != OperationStatus::OutcomeUnknown {
        return None;
    }
    let summary = op
        .outcome
        .as_ref()
        .map(|o| o.summary.trim().to_string())
        .unwrap_or_default();
    let head = match op.status {
        OperationStatus::Completed => "Done.",
        OperationStatus::Stopped => "Stopped.",
        OperationStatus::Blocked => "Not done.",
        _ => "I could not tell whether it worked.",
    };
    let text = if summary.is_empty() {
        head.to_string()
    } else {
        format!("{head} {summary}")
    };
    Some(text.chars().take(MAX_SPOKEN_CHARS).collect())
}

/// espeak-ng on the default audio device.
pub struct Espeak {
    child: Arc<Mutex<Option<Child>>>,
}

impl Espeak {
    /// `None` with the reason when espeak-ng is not installed.
    pub fn new() -> Result<Espeak, String> {
        match Command::new("espeak-ng")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(s) if s.success() => Ok(Espeak {
                child: Arc::new(Mutex::new(None)),
            }),
            _ => Err(
                "espeak-ng is not installed (apt-get install espeak-ng); replies are not spoken"
                    .into(),
            ),
        }
    }
}

impl Speaker for Espeak {
    fn say(&self, text: &str) {
        self.stop();
        let spawned = Command::new("espeak-ng")
            .args(["-v", "en-us", "-s", "170", "--"])
            .arg(text)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            Ok(child) => *self.child.lock().unwrap_or_else(|p| p.into_inner()) = Some(child),
            Err(e) => tracing::warn!("espeak-ng: {e}"),
        }
    }

    fn stop(&self) {
        if let Some(mut child) = self.child.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn playing(&self) -> bool {
        let mut guard = self.child.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_mut().map(|c| c.try_wait()) {
            Some(Ok(None)) => true,
            Some(_) => {
                // Finished (or gone): reap it.
                *guard = None;
                false
            }
            None => false,
        }
    }
}

impl Drop for Espeak {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Goal, InputMode, Outcome};

    fn op(status: OperationStatus, summary: Option<&str>) -> Operation {
        Operation {
            id: uuid::Uuid::nil(),
            interaction: uuid::Uuid::nil(),
            interaction_revision: 1,
            target: Default::default(),
            authorized_scope: Vec::new(),
            goal: Goal::Browser,
            arguments: Default::default(),
            mode: InputMode::Voice,
            heard: Vec::new(),
            expected_outcome: String::new(),
            status,
            revision: 0,
            steps: Vec::new(),
            stop: None,
            outcome: summary.map(|s| Outcome {
                status,
                summary: s.into(),
                data: serde_json::Value::Null,
            }),
            accepted_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn replies_are_rendered_from_the_operation_state_only() {
        let long = "x".repeat(1000);
        let table = [
            (op(OperationStatus::Running, Some("half")), None),
            (op(OperationStatus::Accepted, None), None),
            (
                op(OperationStatus::Completed, Some("Clicked \"Add to cart\".")),
                Some("Done. Clicked \"Add to cart\".".to_string()),
            ),
            (op(OperationStatus::Stopped, None), Some("Stopped.".into())),
            (
                op(OperationStatus::Blocked, Some("nothing on screen fits")),
                Some("Not done. nothing on screen fits".into()),
            ),
            (
                op(OperationStatus::OutcomeUnknown, None),
                Some("I could not tell whether it worked.".into()),
            ),
        ];
        for (o, want) in table {
            assert_eq!(outcome_words(&o), want, "{:?}", o.status);
        }
        let said = outcome_words(&op(OperationStatus::Completed, Some(&long))).unwrap();
        assert_eq!(said.chars().count(), MAX_SPOKEN_CHARS);
    }

    #[test]
    fn stop_ends_playback_at_once() {
        // A stand-in for espeak-ng that plays for a long time: the same child handling.
        let child = Command::new("sleep").arg("30").spawn().unwrap();
        let speaker = Espeak {
            child: Arc::new(Mutex::new(Some(child))),
        };
        assert!(speaker.playing());
        let t = std::time::Instant::now();
        speaker.stop();
        assert!(!speaker.playing());
        assert!(t.elapsed() < std::time::Duration::from_millis(500));
    }
}

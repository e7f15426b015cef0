//! What every accept loop (control socket, `browser.sock`, mesh listener) does when `accept`
//! fails: pause with backoff, and log rarely.
//!
//! An `accept` that fails for want of descriptors (EMFILE, ENFILE) leaves the connection in the
//! kernel's queue, so retrying at once fails again at once: a loop that neither pauses nor limits
//! its log spins a core and fills the disk. `Pause` waits 10 ms after the first failure, doubling
//! to 1 s, and back to nothing after the next success; it logs the first failure and then at most
//! one line per 10 s, with how many it left out.

use std::time::{Duration, Instant};

/// The first pause after a failed accept.
pub const FIRST_PAUSE: Duration = Duration::from_millis(10);
/// The longest pause between attempts.
pub const LONGEST_PAUSE: Duration = Duration::from_secs(1);
/// At most one log line per this much time.
pub const LOG_EVERY: Duration = Duration::from_secs(10);

pub struct Pause {
    what: &'static str,
    next: Duration,
    log: Rarely,
}

/// A log line at most once per `LOG_EVERY`, saying how many it left out.
#[derive(Default)]
pub struct Rarely {
    logged_at: Option<Instant>,
    left_out: u64,
}

impl Rarely {
    /// `Some(left out since the last line)` when a line is due at `now`; else counts one more.
    pub fn due(&mut self, now: Instant) -> Option<u64> {
        match self.logged_at {
            Some(at) if now.duration_since(at) < LOG_EVERY => {
                self.left_out += 1;
                None
            }
            _ => {
                self.logged_at = Some(now);
                Some(std::mem::take(&mut self.left_out))
            }
        }
    }
}

impl Pause {
    /// `what` names the listener in the log.
    pub fn new(what: &'static str) -> Pause {
        Pause {
            what,
            next: FIRST_PAUSE,
            log: Rarely::default(),
        }
    }

    /// An accept succeeded: the next failure pauses briefly again.
    pub fn accepted(&mut self) {
        self.next = FIRST_PAUSE;
    }

    /// An accept failed: log (rarely), then wait before the next attempt.
    pub async fn failed(&mut self, error: &std::io::Error) {
        if let Some(left_out) = self.log.due(Instant::now()) {
            tracing::warn!(
                listener = self.what,
                %error,
                left_out,
                pause_ms = self.next.as_millis() as u64,
                "accept failed; pausing before the next attempt"
            );
        }
        tokio::time::sleep(self.lengthen()).await;
    }

    /// The pause to take now; the next one is twice as long, up to `LONGEST_PAUSE`.
    fn lengthen(&mut self) -> Duration {
        let now = self.next;
        self.next = (self.next * 2).min(LONGEST_PAUSE);
        now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_to_a_ceiling_and_logs_are_rare() {
        let mut p = Pause::new("test");
        let total: Duration = (0..12).map(|_| p.lengthen()).sum();
        // 10+20+40+…+640 ms, then 1 s each: 1.27 s + 5 s.
        assert_eq!(total, Duration::from_millis(6270));
        assert_eq!(p.next, LONGEST_PAUSE);
        p.accepted();
        assert_eq!(p.next, FIRST_PAUSE);
        let mut r = Rarely::default();
        let t = Instant::now();
        assert_eq!(r.due(t), Some(0));
        assert_eq!(r.due(t + Duration::from_secs(9)), None);
        assert_eq!(r.due(t + Duration::from_secs(9)), None);
        assert_eq!(r.due(t + LOG_EVERY), Some(2));
    }
}

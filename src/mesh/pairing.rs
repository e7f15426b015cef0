//! The pairing state machine, pure: the desktop opens a session with a short code; a phone
//! offers the code and its name; the person at the desktop approves after comparing the
//! verification code shown on both screens.
//!
//! Invariants:
//! - a session lives 120 s; an address that offered `MAX_ATTEMPTS` wrong codes may offer no
//!   more (others still may), and after `MAX_WRONG` wrong codes in all the session is closed (a
//!   fresh `circe pair` is needed); one session at a time (the server keeps one);
//! - no device exists until `decide(approve = true)`; a session is single-use;
//! - the code is compared in constant time.

use crate::model::Millis;
use crate::protocol::ErrorCode;
use std::collections::HashMap;
use std::net::IpAddr;

/// How long a pairing session stays open.
pub const SESSION_MS: Millis = 120_000;
/// Wrong codes one address may offer to a session.
pub const MAX_ATTEMPTS: u32 = 3;
/// Wrong codes a session takes in all before it closes (a guess succeeds with probability
/// 20 / 10^6 at most).
pub const MAX_WRONG: u32 = 20;
/// Digits in the short code.
pub const CODE_DIGITS: usize = 6;

/// On the wire (`pairWait`'s reply) `{"stage": "open" | "offered" | ..., ...its fields}`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "stage", rename_all = "camelCase")]
pub enum Stage {
    /// Waiting for a phone to offer the code.
    Open,
    /// A phone offered the right code; its key exchange (`exchange`) is under way.
    Offered {
        name: String,
    },
    /// A phone offered the right code; the desktop must approve.
    Requested {
        name: String,
        verification: String,
    },
    Approved {
        name: String,
    },
    Denied,
    /// Too many wrong codes, or expired.
    Closed {
        reason: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub id: String,
    pub code: String,
    pub expires_at: Millis,
    /// Wrong codes in all, and by address.
    pub wrong: u32,
    pub wrong_by: HashMap<IpAddr, u32>,
    pub stage: Stage,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairError {
    #[error("no pairing is open; run `circe pair` on the desktop")]
    NoSession,
    #[error("the pairing code has expired; run `circe pair` again")]
    Expired,
    #[error("wrong code; {left} attempts left")]
    WrongCode { left: u32 },
    #[error("too many wrong codes; this pairing is closed; run `circe pair` again")]
    TooManyAttempts,
    #[error("too many wrong codes from this address; this pairing takes no more offers from it")]
    LockedOut,
    #[error("this pairing is already taken by another device")]
    Taken,
    #[error("the device name must be 1 to 64 characters")]
    BadName,
    #[error("nothing is waiting for approval")]
    NothingToDecide,
}

impl PairError {
    pub fn code(&self) -> ErrorCode {
        match self {
            PairError::NoSession => ErrorCode::NoPairing,
            PairError::Expired => ErrorCode::PairingExpired,
            PairError::WrongCode { .. } => ErrorCode::WrongCode,
            PairError::TooManyAttempts | PairError::LockedOut => ErrorCode::TooManyAttempts,
            PairError::Taken => ErrorCode::PairingTaken,
            PairError::BadName => ErrorCode::BadDeviceName,
            PairError::NothingToDecide => ErrorCode::NothingToDecide,
        }
    }
}

impl Session {
    /// A new session; `id` and `code` come from the caller's random source.
    pub fn open(id: String, code: String, now: Millis) -> Session {
        Session {
            id,
            code,
            expires_at: now + SESSION_MS,
            wrong: 0,
            wrong_by: HashMap::new(),
            stage: Stage::Open,
        }
    }

    fn expire(&mut self, now: Millis) -> Result<(), PairError> {
        if now >= self.expires_at {
            if !matches!(self.stage, Stage::Approved { .. } | Stage::Denied) {
                self.stage = Stage::Closed {
                    reason: "expired".into(),
                };
            }
            return Err(PairError::Expired);
        }
        Ok(())
    }

    /// A phone at address `from` offers `code` and its `name`: on the right code the session is
    /// taken (`Offered`) until the verification code is known (`verify`).
    pub fn offer(
        &mut self,
        code: &str,
        name: &str,
        from: IpAddr,
        now: Millis,
    ) -> Result<(), PairError> {
        if let Stage::Closed { .. } = self.stage {
            return Err(PairError::TooManyAttempts);
        }
        self.expire(now)?;
        let mine = self.wrong_by.get(&from).copied().unwrap_or(0);
        if mine >= MAX_ATTEMPTS {
            return Err(PairError::LockedOut);
        }
        if self.stage != Stage::Open {
            return Err(PairError::Taken);
        }
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
            return Err(PairError::BadName);
        }
        if !constant_time_eq(code.trim().as_bytes(), self.code.as_bytes()) {
            self.wrong += 1;
            self.wrong_by.insert(from, mine + 1);
            if self.wrong >= MAX_WRONG {
                self.stage = Stage::Closed {
                    reason: "too many wrong codes".into(),
                };
                return Err(PairError::TooManyAttempts);
            }
            if mine + 1 >= MAX_ATTEMPTS {
                return Err(PairError::LockedOut);
            }
            return Err(PairError::WrongCode {
                left: MAX_ATTEMPTS - mine - 1,
            });
        }
        self.stage = Stage::Offered { name: name.into() };
        Ok(())
    }

    /// The verification code of an offered session (both screens show it): now the desktop may
    /// decide.
    pub fn verify(&mut self, verification: String, now: Millis) -> Result<(), PairError> {
        self.expire(now)?;
        let Stage::Offered { name } = &self.stage else {
            return Err(PairError::NothingToDecide);
        };
        self.stage = Stage::Requested {
            name: name.clone(),
            verification,
        };
        Ok(())
    }

    /// The offering side left before the verification code was known: closed, say why.
    pub fn abandon(&mut self, reason: &str) {
        if matches!(self.stage, Stage::Offered { .. }) {
            self.stage = Stage::Closed {
                reason: reason.into(),
            };
        }
    }

    /// The desktop's answer. Returns the approved device name.
    pub fn decide(&mut self, approve: bool, now: Millis) -> Result<Option<String>, PairError> {
        self.expire(now)?;
        let Stage::Requested { name, .. } = &self.stage else {
            return Err(PairError::NothingToDecide);
        };
        let name = name.clone();
        if approve {
            self.stage = Stage::Approved { name: name.clone() };
            Ok(Some(name))
        } else {
            self.stage = Stage::Denied;
            Ok(None)
        }
    }
}

/// A node's verification code (a phone's comes from `exchange`): the hash of the session, the
/// node's name and a server nonce.
pub fn verification_code(session: &str, name: &str, nonce: &str) -> String {
    use sha2::{Digest, Sha256};
    let h = Sha256::digest(format!("circe-pair-v1\n{session}\n{name}\n{nonce}").as_bytes());
    format!("{:02X}{:02X}", h[0], h[1])
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        Session::open("s1".into(), "123456".into(), 1_000)
    }

    const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 1, 5));

    #[test]
    fn right_code_then_approval() {
        let mut s = session();
        s.offer("123456", "Pixel", HERE, 2_000).unwrap();
        assert_eq!(
            s.decide(true, 2_500),
            Err(PairError::NothingToDecide),
            "not before the code is known"
        );
        s.verify("123456".into(), 2_500).unwrap();
        assert_eq!(s.decide(true, 3_000).unwrap(), Some("Pixel".into()));
        assert_eq!(
            s.offer("123456", "Other", HERE, 4_000),
            Err(PairError::Taken)
        );
    }

    #[test]
    fn the_table() {
        // (code offered, at ms, expected)
        let cases: &[(&str, Millis, Result<(), PairError>)] = &[
            ("123456", 2_000, Ok(())),
            (" 123456 ", 2_000, Ok(())),
            ("123457", 2_000, Err(PairError::WrongCode { left: 2 })),
            ("12345", 2_000, Err(PairError::WrongCode { left: 2 })),
            ("123456", 1_000 + SESSION_MS, Err(PairError::Expired)),
        ];
        for (code, at, want) in cases {
            let mut s = session();
            assert_eq!(
                s.offer(code, "Pixel", HERE, *at).map(|_| ()),
                *want,
                "{code:?} at {at}"
            );
        }
    }

    #[test]
    fn an_address_is_locked_out_after_three_wrong_codes_and_others_are_not() {
        let mut s = session();
        for left in [2, 1] {
            assert_eq!(
                s.offer("000000", "x", HERE, 2_000),
                Err(PairError::WrongCode { left })
            );
        }
        assert_eq!(
            s.offer("000000", "x", HERE, 2_000),
            Err(PairError::LockedOut)
        );
        assert_eq!(
            s.offer("123456", "x", HERE, 2_000),
            Err(PairError::LockedOut),
            "even the right code, from that address"
        );
        let phone = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 1, 9));
        assert!(s.offer("123456", "Pixel", phone, 2_000).is_ok());
    }

    #[test]
    fn a_session_closes_after_twenty_wrong_codes_in_all() {
        let mut s = session();
        for i in 0..MAX_WRONG {
            let from = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, i as u8));
            let r = s.offer("000000", "x", from, 2_000);
            if i + 1 < MAX_WRONG {
                assert_eq!(r, Err(PairError::WrongCode { left: 2 }));
            } else {
                assert_eq!(r, Err(PairError::TooManyAttempts));
            }
        }
        assert_eq!(
            s.offer("123456", "x", HERE, 2_000),
            Err(PairError::TooManyAttempts),
            "a closed session never opens again"
        );
    }

    #[test]
    fn denial_and_expiry_of_the_approval() {
        let mut s = session();
        s.offer("123456", "Pixel", HERE, 2_000).unwrap();
        s.verify("000111".into(), 2_000).unwrap();
        assert_eq!(s.decide(false, 3_000).unwrap(), None);
        assert_eq!(s.stage, Stage::Denied);
        let mut late = session();
        late.offer("123456", "Pixel", HERE, 2_000).unwrap();
        late.verify("000111".into(), 2_000).unwrap();
        assert_eq!(
            late.decide(true, 1_000 + SESSION_MS),
            Err(PairError::Expired)
        );
        assert!(matches!(late.stage, Stage::Closed { .. }));
        assert_eq!(
            session().decide(true, 2_000),
            Err(PairError::NothingToDecide)
        );
        let mut left = session();
        left.offer("123456", "Pixel", HERE, 2_000).unwrap();
        left.abandon("the phone left");
        assert!(matches!(left.stage, Stage::Closed { .. }));
    }

    #[test]
    fn names_are_checked() {
        for bad in ["", "   ", "a\u{7}b", &"x".repeat(65)] {
            assert_eq!(
                session().offer("123456", bad, HERE, 2_000),
                Err(PairError::BadName),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn verification_depends_on_everything() {
        let v = verification_code("s", "n", "x");
        assert_ne!(v, verification_code("t", "n", "x"));
        assert_ne!(v, verification_code("s", "m", "x"));
        assert_ne!(v, verification_code("s", "n", "y"));
    }
}

//! The connector's lifecycle as explicit state: which connection generation is live, and whether a
//! tab handle taken earlier still means the same thing.
//!
//! Architecture invariant: pure. Tab ids are session-scoped: a reconnect (host restarted, worker
//! suspended and woken, daemon restarted) starts a new generation and invalidates every handle.

use std::collections::{HashMap, HashSet};

/// Something the extension reported about its tabs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TabEvent {
    Removed { tab: i64 },
    Navigated { tab: i64, url: String },
    DebuggerDetached { tab: i64, reason: String },
    Activated { tab: i64 },
}

/// A tab as seen at one moment: valid only for its connection generation and navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TabHandle {
    pub generation: u64,
    pub tab: i64,
    pub navigation: u64,
}

/// Why a handle no longer holds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TabProblem {
    #[error("the browser connection is down")]
    Disconnected,
    #[error("the browser reconnected since; tab ids from before are void")]
    Reconnected,
    #[error("the tab was closed")]
    Closed,
    #[error("the tab navigated to another page")]
    Navigated,
    #[error("the person detached the debugger from the tab ({0})")]
    DebuggerDetached(String),
}

#[derive(Debug, Default)]
pub struct Lifecycle {
    generation: u64,
    connected: bool,
    closed: HashSet<i64>,
    navigations: HashMap<i64, u64>,
    detached: HashMap<i64, String>,
    active: Option<i64>,
}

impl Lifecycle {
    /// A new connection said hello: a new generation, nothing known about its tabs.
    pub fn connected(&mut self) -> u64 {
        self.generation += 1;
        self.connected = true;
        self.closed.clear();
        self.navigations.clear();
        self.detached.clear();
        self.active = None;
        self.generation
    }

    pub fn disconnected(&mut self) {
        self.connected = false;
    }

    pub fn is_connected(&self) -> bool {
        self.connected
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn active_tab(&self) -> Option<i64> {
        self.active
    }

    pub fn apply(&mut self, event: &TabEvent) {
        match event {
            TabEvent::Removed { tab } => {
                self.closed.insert(*tab);
            }
            TabEvent::Navigated { tab, .. } => {
                *self.navigations.entry(*tab).or_default() += 1;
                self.detached.remove(tab);
            }
            TabEvent::DebuggerDetached { tab, reason } => {
                self.detached.insert(*tab, reason.clone());
            }
            TabEvent::Activated { tab } => self.active = Some(*tab),
        }
    }

    pub fn handle(&self, tab: i64) -> TabHandle {
        TabHandle {
            generation: self.generation,
            tab,
            navigation: self.navigations.get(&tab).copied().unwrap_or(0),
        }
    }

    pub fn check(&self, h: &TabHandle) -> Result<(), TabProblem> {
        if !self.connected {
            return Err(TabProblem::Disconnected);
        }
        if h.generation != self.generation {
            return Err(TabProblem::Reconnected);
        }
        if self.closed.contains(&h.tab) {
            return Err(TabProblem::Closed);
        }
        if let Some(reason) = self.detached.get(&h.tab) {
            return Err(TabProblem::DebuggerDetached(reason.clone()));
        }
        if self.navigations.get(&h.tab).copied().unwrap_or(0) != h.navigation {
            return Err(TabProblem::Navigated);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_hold_until_something_changes() {
        let mut l = Lifecycle::default();
        assert_eq!(
            l.check(&TabHandle {
                generation: 0,
                tab: 1,
                navigation: 0
            }),
            Err(TabProblem::Disconnected)
        );
        l.connected();
        let h = l.handle(7);
        assert_eq!(l.check(&h), Ok(()));
        l.apply(&TabEvent::Activated { tab: 7 });
        assert_eq!(
            l.check(&h),
            Ok(()),
            "activation changes nothing about the tab's page"
        );
        l.apply(&TabEvent::Navigated {
            tab: 7,
            url: "http://127.0.0.1/x".into(),
        });
        assert_eq!(l.check(&h), Err(TabProblem::Navigated));
        let h = l.handle(7);
        l.apply(&TabEvent::DebuggerDetached {
            tab: 7,
            reason: "canceled_by_user".into(),
        });
        assert_eq!(
            l.check(&h),
            Err(TabProblem::DebuggerDetached("canceled_by_user".into()))
        );
        l.apply(&TabEvent::Removed { tab: 7 });
        assert_eq!(l.check(&h), Err(TabProblem::Closed));
    }

    #[test]
    fn a_reconnect_voids_every_earlier_handle() {
        let mut l = Lifecycle::default();
        l.connected();
        let h = l.handle(3);
        l.disconnected();
        assert_eq!(l.check(&h), Err(TabProblem::Disconnected));
        l.connected();
        assert_eq!(l.check(&h), Err(TabProblem::Reconnected));
        assert_eq!(l.check(&l.handle(3)), Ok(()));
    }
}

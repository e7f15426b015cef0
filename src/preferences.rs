//! Stored, removable preferences such as "my desktop" and "chrome profile". The store keeps
//! them (`circe devices prefer KEY [VALUE]`); this shared copy is what the mesh and the executors
//! read, always current because the one writer (the mesh's `setPreference`) updates both.

use std::collections::BTreeMap;
use std::sync::RwLock;

/// The node a controller sends requests to when none is named.
pub const MY_DESKTOP: &str = "my desktop";
/// The label of the Chrome profile browser operations must act in (the extension's popup sets
/// a profile's label); any other connected profile is refused, nothing is done.
pub const CHROME_PROFILE: &str = "chrome profile";

#[derive(Debug, Default)]
pub struct Preferences(RwLock<BTreeMap<String, String>>);

impl Preferences {
    pub fn from_stored(stored: Vec<(String, String)>) -> Preferences {
        Preferences(RwLock::new(stored.into_iter().collect()))
    }

    pub fn get(&self, key: &str) -> Option<String> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned()
    }

    /// Set, or with `None` remove, after the store has it.
    pub fn set(&self, key: &str, value: Option<&str>) {
        let mut map = self.0.write().unwrap_or_else(|p| p.into_inner());
        match value {
            Some(v) => map.insert(key.to_string(), v.to_string()),
            None => map.remove(key),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_remove() {
        let p = Preferences::from_stored(vec![(MY_DESKTOP.into(), "desk".into())]);
        assert_eq!(p.get(MY_DESKTOP).as_deref(), Some("desk"));
        p.set(CHROME_PROFILE, Some("Work"));
        assert_eq!(p.get(CHROME_PROFILE).as_deref(), Some("Work"));
        p.set(CHROME_PROFILE, None);
        assert_eq!(p.get(CHROME_PROFILE), None);
    }
}

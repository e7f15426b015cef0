//! Windows (UI Automation) adapter: not built yet. It reports itself unsupported, honestly,
//! through the same contract; nothing falls back to another mechanism.

use super::Unsupported;

pub struct UiaSession;

impl UiaSession {
    pub fn new(_node: &str) -> Unsupported {
        Unsupported {
            platform: "Windows (UI Automation)",
        }
    }
}

//! macOS (AXUIElement) adapter: not built yet. It reports itself unsupported, honestly, through
//! the same contract; nothing falls back to another mechanism.

use super::Unsupported;

pub struct AxSession;

impl AxSession {
    pub fn new(_node: &str) -> Unsupported {
        Unsupported {
            platform: "macOS (Accessibility/AX)",
        }
    }
}

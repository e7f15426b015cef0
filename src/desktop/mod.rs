//! The desktop: one `DesktopSession` contract, its neutral types, and one adapter per OS.
//!
//! Invariants:
//! - `cfg(target_os)` appears only under this module; everything above it sees the trait.
//! - A `Handle` is bound to one session generation and one observation revision. The adapter
//!   refreshes a stale handle (same object, or same role + label + ordinal on a fresh
//!   observation of the same window) before any mutation, or refuses; there is no coordinate
//!   action in this contract, so a stale handle can never become a click at a position.
//! - Physical input (synthesized keys) is serialized per session; `release_keys` lets go of
//!   anything held. Semantic actions (Action, EditableText, Selection, Value) come first.
//! - Results are observed, never assumed from a call returning: `settle` waits for the
//!   accessibility events of an action to go quiet (bounded), and the caller re-reads.
//! - Readiness is reported as it is observed; a session never switches to another desktop.

pub mod apps;
pub mod entries;
pub mod executor;
pub mod general;
pub mod policy;
pub mod task;
pub mod translate;

#[cfg(target_os = "linux")]
pub mod linux;
#[cfg(target_os = "macos")]
pub mod macos;
#[cfg(target_os = "windows")]
pub mod windows;

use crate::executor::BoxFuture;
use crate::model::Element;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A desktop session: this node, the logged-in session it drives, and a generation that
/// changes whenever the connection to that session is re-established.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionId {
    pub node: String,
    /// The logged-in session, e.g. the X display and session bus it is reached through.
    pub login: String,
    pub generation: u64,
}

/// One window: session + app instance + window identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WindowRef {
    pub session: SessionId,
    /// The application as it names itself (`mousepad`, `Thunar`).
    pub app: String,
    /// The app instance (its bus name on Linux).
    pub instance: String,
    /// The window's identity within the instance (its object path on Linux).
    pub window: String,
    pub title: String,
    /// The AT-SPI-neutral kind: `window`, `dialog`, `alert`, `file chooser`.
    pub kind: String,
}

/// A reference to one observed element, valid for one session generation and revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Handle {
    pub generation: u64,
    pub revision: u64,
    pub instance: String,
    pub object: String,
    pub role: String,
    pub label: String,
    /// Position among elements with the same role and label in the observation, 1-based.
    pub ordinal: u32,
    /// What the element supports: `activate`, `edit`, `text`, `select`, `value`, `focus`.
    pub supports: Vec<String>,
}

/// A modal dialog that owns the window's input now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dialog {
    pub title: String,
    pub kind: String,
    /// The dialog's buttons and what they say.
    pub text: String,
}

/// Observation: window + revision + focused element + modal dialog, with the elements in the
/// eval format (`surface: "desktop"`), one page of them.
#[derive(Clone, Debug, Serialize)]
pub struct DesktopObservation {
    pub window: WindowRef,
    pub revision: u64,
    pub focused: Option<String>,
    pub dialog: Option<Dialog>,
    pub observation: crate::model::Observation,
    /// Element id → handle, for every element on this page.
    pub handles: BTreeMap<String, Handle>,
    pub page: Page,
    /// How many pages the window's elements fill.
    pub pages: usize,
    /// Accessibility calls this observation made (for the benchmarks).
    pub calls: u32,
}

impl DesktopObservation {
    pub fn element(&self, id: &str) -> Option<(&Element, &Handle)> {
        let e = self.observation.elements.iter().find(|e| e.id == id)?;
        Some((e, self.handles.get(id)?))
    }

    /// Elements with this eval role whose label (trimmed) equals `label`, in order.
    pub fn find(&self, role: &str, label: &str) -> Vec<(&Element, &Handle)> {
        self.observation
            .elements
            .iter()
            .filter(|e| e.role == role && e.label.trim() == label)
            .filter_map(|e| Some((e, self.handles.get(&e.id)?)))
            .collect()
    }
}

/// Which slice of a window's elements to return; pages are in reading order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Page {
    pub index: usize,
    pub size: usize,
}

impl Page {
    /// Every element of the window at once (for the executor's own checks, not for grounding).
    pub const ALL: Page = Page {
        index: 0,
        size: usize::MAX,
    };
}

impl Default for Page {
    fn default() -> Self {
        // The eval format holds at most 200 elements per observation.
        Page {
            index: 0,
            size: 200,
        }
    }
}

/// What to do to the target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Act {
    /// The element's default action (Action interface, index 0).
    Activate,
    /// Replace the characters `start..end` with `text` (EditableText).
    ReplaceText {
        start: usize,
        end: usize,
        text: String,
    },
    /// Select this element within its container (Selection).
    Select,
    /// Clear this container's selection (a menu bar: closes its open menu without a key).
    Deselect,
    /// Make this option the chosen one of the list it belongs to (a combo box's option: the
    /// list's Selection, at the option's own index among its siblings).
    Choose,
    /// Select the characters `start..end` of a Text element (the app's text selection).
    SelectText {
        start: usize,
        end: usize,
    },
    SetValue(f64),
    Focus,
    /// Synthesized keys, e.g. `["Control_L", "s"]` pressed together.
    Keys(Vec<String>),
}

/// Where an action goes: an observed element, or an explicit input target (a window).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum InputTarget {
    Element(Handle),
    Window(WindowRef),
}

/// Action: observation + target element or explicit input target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DesktopAction {
    pub window: WindowRef,
    pub revision: u64,
    pub target: InputTarget,
    pub act: Act,
    /// The action may open a modal dialog: send it where a modal cannot freeze the session.
    pub may_open_modal: bool,
}

/// What an action reported, before verification.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ActReport {
    /// The handle was stale and was re-resolved on a fresh observation.
    pub refreshed: bool,
    pub calls: u32,
}

/// Transition: source app, intended destination, observed result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub source: String,
    pub destination: String,
    pub observed: String,
}

/// How the events after an action went quiet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Settled {
    pub events: u64,
    pub waited_ms: u64,
    /// The cap was reached before a quiet period.
    pub capped: bool,
}

/// One readiness fact, as observed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub ok: bool,
    pub detail: String,
}

impl Fact {
    pub fn yes(detail: impl Into<String>) -> Fact {
        Fact {
            ok: true,
            detail: detail.into(),
        }
    }
    pub fn no(detail: impl Into<String>) -> Fact {
        Fact {
            ok: false,
            detail: detail.into(),
        }
    }
}

/// Policy and observed readiness, advertised by `circe doctor` and `circe state`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Readiness {
    pub policy: Fact,
    pub adapter: Fact,
    pub session: Fact,
    pub bus: Fact,
    pub apps: Fact,
    /// Where synthesized keys go (X11: AT-SPI; Wayland: the RemoteDesktop portal), or why they
    /// are refused. Not part of `ready`: semantic actions work without keys.
    pub input: Fact,
}

impl Readiness {
    pub fn ready(&self) -> bool {
        [&self.policy, &self.adapter, &self.session, &self.bus]
            .iter()
            .all(|f| f.ok)
    }

    /// The first fact that is not ok, as a sentence.
    pub fn problem(&self) -> Option<String> {
        [
            ("policy", &self.policy),
            ("adapter", &self.adapter),
            ("session", &self.session),
            ("accessibility bus", &self.bus),
        ]
        .iter()
        .find(|(_, f)| !f.ok)
        .map(|(n, f)| format!("desktop {n}: {}", f.detail))
    }

    /// Readiness of a platform this build has no adapter for.
    pub fn unsupported(platform: &str, why: &str) -> Readiness {
        let no = || Fact::no(format!("not checked: {why}"));
        Readiness {
            policy: Fact::yes("control is permitted"),
            adapter: Fact::no(format!("{platform}: {why}")),
            session: no(),
            bus: no(),
            apps: no(),
            input: no(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DesktopError {
    #[error("{0}")]
    Unsupported(String),
    #[error("the desktop session is not reachable: {0}")]
    NotConnected(String),
    /// The target is gone and could not be re-resolved; nothing was done.
    #[error("{0}")]
    Stale(String),
    /// The call was refused or failed before any effect.
    #[error("{0}")]
    Refused(String),
    /// The connection was lost or a call timed out after it was sent: the effect is unknown.
    #[error("{0}")]
    Lost(String),
}

impl DesktopError {
    /// Whether an effect may have happened.
    pub fn maybe_applied(&self) -> bool {
        matches!(self, DesktopError::Lost(_))
    }
}

pub type DesktopResult<T> = Result<T, DesktopError>;

/// Human input seen while an operation held the desktop.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HumanInput {
    pub pointer: u64,
    pub keys_or_text: u64,
}

impl HumanInput {
    pub fn any(&self) -> bool {
        self.pointer + self.keys_or_text > 0
    }
}

/// The contract every platform adapter implements.
pub trait DesktopSession: Send + Sync {
    /// Policy and observed readiness; `app` is a target app to look for.
    fn readiness<'a>(&'a self, app: Option<&'a str>) -> BoxFuture<'a, Readiness>;
    /// The session now (connecting, or reconnecting with a new generation, if needed).
    fn session(&self) -> BoxFuture<'_, DesktopResult<SessionId>>;
    /// Drop the connection; the next call reconnects with a new generation.
    fn disconnect(&self) -> BoxFuture<'_, ()>;
    /// Every top-level window of every application, in stacking-neutral order.
    fn windows(&self) -> BoxFuture<'_, DesktopResult<Vec<WindowRef>>>;
    /// One page of one window, with the app's modal dialog if it has one.
    fn observe<'a>(
        &'a self,
        window: &'a WindowRef,
        page: Page,
    ) -> BoxFuture<'a, DesktopResult<DesktopObservation>>;
    /// The whole text of a Text element (an authorized read).
    fn read_text<'a>(&'a self, handle: &'a Handle) -> BoxFuture<'a, DesktopResult<String>>;
    /// The keyboard shortcut the app gives an element's action (a menu item's accelerator), as
    /// key names pressed together (`["Control_L", "Shift_L", "s"]`); empty when it has none.
    fn shortcut<'a>(&'a self, handle: &'a Handle) -> BoxFuture<'a, DesktopResult<Vec<String>>>;
    /// Run one action; a stale handle is refreshed first, or the action is refused.
    fn act<'a>(&'a self, action: &'a DesktopAction) -> BoxFuture<'a, DesktopResult<ActReport>>;
    /// Start a program in the session (an app launch).
    fn launch<'a>(
        &'a self,
        program: &'a str,
        args: &'a [String],
    ) -> BoxFuture<'a, DesktopResult<()>>;
    /// Reveal files in the file manager (`org.freedesktop.FileManager1.ShowItems` on Linux).
    fn show_items<'a>(&'a self, paths: &'a [PathBuf]) -> BoxFuture<'a, DesktopResult<()>>;
    /// Wait until accessibility events have been quiet for `quiet`, at most `cap`.
    fn settle(&self, quiet: Duration, cap: Duration) -> BoxFuture<'_, Settled>;
    /// Start attributing input to the person: from now on, input not sent by this session counts.
    fn watch_human(&self) -> BoxFuture<'_, ()>;
    /// Human input seen since `watch_human`.
    fn human_input(&self) -> HumanInput;
    /// Release every key this session holds.
    fn release_keys(&self) -> BoxFuture<'_, ()>;
}

/// The adapter this build has for this OS, keeping nothing on disk.
pub fn platform_session(node: &str) -> std::sync::Arc<dyn DesktopSession> {
    #[cfg(target_os = "linux")]
    {
        std::sync::Arc::new(linux::AtspiSession::new(node))
    }
    #[cfg(not(target_os = "linux"))]
    {
        platform_session_in(node, Path::new(""))
    }
}

/// The adapter this build has for this OS; what it keeps (the RemoteDesktop portal's restore
/// token on Linux) goes in `data_dir`.
#[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
pub fn platform_session_in(node: &str, data_dir: &Path) -> std::sync::Arc<dyn DesktopSession> {
    #[cfg(target_os = "linux")]
    {
        std::sync::Arc::new(linux::AtspiSession::in_data_dir(node, data_dir))
    }
    #[cfg(target_os = "macos")]
    {
        std::sync::Arc::new(macos::AxSession::new(node))
    }
    #[cfg(target_os = "windows")]
    {
        std::sync::Arc::new(windows::UiaSession::new(node))
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
    {
        std::sync::Arc::new(Unsupported {
            platform: "this OS",
        })
    }
}

/// An adapter that reports itself unsupported and does nothing.
pub struct Unsupported {
    pub platform: &'static str,
}

impl DesktopSession for Unsupported {
    fn readiness<'a>(&'a self, _app: Option<&'a str>) -> BoxFuture<'a, Readiness> {
        Box::pin(async move {
            Readiness::unsupported(self.platform, "no desktop adapter in this build")
        })
    }
    fn session(&self) -> BoxFuture<'_, DesktopResult<SessionId>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn disconnect(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn windows(&self) -> BoxFuture<'_, DesktopResult<Vec<WindowRef>>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn observe<'a>(
        &'a self,
        _window: &'a WindowRef,
        _page: Page,
    ) -> BoxFuture<'a, DesktopResult<DesktopObservation>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn read_text<'a>(&'a self, _handle: &'a Handle) -> BoxFuture<'a, DesktopResult<String>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn shortcut<'a>(&'a self, _handle: &'a Handle) -> BoxFuture<'a, DesktopResult<Vec<String>>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn act<'a>(&'a self, _action: &'a DesktopAction) -> BoxFuture<'a, DesktopResult<ActReport>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn launch<'a>(
        &'a self,
        _program: &'a str,
        _args: &'a [String],
    ) -> BoxFuture<'a, DesktopResult<()>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn show_items<'a>(&'a self, _paths: &'a [PathBuf]) -> BoxFuture<'a, DesktopResult<()>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn settle(&self, _quiet: Duration, _cap: Duration) -> BoxFuture<'_, Settled> {
        Box::pin(async { Settled::default() })
    }
    fn watch_human(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn human_input(&self) -> HumanInput {
        HumanInput::default()
    }
    fn release_keys(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

impl Unsupported {
    fn refuse(&self) -> DesktopError {
        DesktopError::Unsupported(format!(
            "desktop control is not supported on {} in this build",
            self.platform
        ))
    }
}

/// `file:///…` for a path (ShowItems wants URIs); bytes outside the unreserved set are escaped.
pub fn file_uri(path: &Path) -> String {
    let mut s = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

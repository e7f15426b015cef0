//! The Linux adapter: AT-SPI over D-Bus (`atspi`, `zbus`), for X11 and Wayland sessions.
//!
//! - Observation reads the whole app in one `Cache.GetItems` call and keeps the target window's
//!   subtree plus the app's modal dialog; text values come from one `Text.GetText` per text
//!   element. Elements are paged (`Page`), never cut off.
//! - `DoAction` that may open a modal (`may_open_modal`) is sent on a throw-away connection: a
//!   GTK modal freezes the connection the action arrived on (the probe's trap), never ours.
//! - Every call has a short timeout; a timeout after sending is `Lost` (effect unknown).
//! - Settling listens to AT-SPI object/window events and waits for a quiet period, bounded.
//! - Human input: while `watch_human` is on, a pointer that moved (X11 position, `pointer.rs`;
//!   Circe never moves it) and text changes outside this session's own action windows count as
//!   the person's input.
//! - Keys: on X11 through AT-SPI's `GenerateKeyboardEvent`; on Wayland (AT-SPI still reads the
//!   tree and runs semantic actions) through the RemoteDesktop portal where the compositor offers
//!   one with a keyboard (`portal.rs`), else refused with the reason. Readiness' `input` says which.

mod observe;
pub mod portal;

mod pointer;
use super::{
    translate, Act, ActReport, DesktopAction, DesktopError, DesktopObservation, DesktopResult,
    DesktopSession, Fact, Handle, HumanInput, InputTarget, Page, Readiness, SessionId, Settled,
    WindowRef,
};
use crate::executor::BoxFuture;
use atspi::proxy::accessible::ObjectRefExt;
use atspi::proxy::device_event_controller::{DeviceEventControllerProxy, KeySynthType};
use atspi::proxy::proxy_ext::ProxyExt;
use atspi::AccessibilityConnection;
use futures_lite::StreamExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Longest a single accessibility call may take (zbus's default of 25 s is far too long).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(3);

/// Test hook: `CIRCE_DESKTOP_FAULT=lose-after-save` drops the connection right after a Save
/// action is sent, as a crash of the bus would, so the effect must be settled by a read.
/// Honoured only in debug builds (the tests'); a release build ignores it.
pub const FAULT_ENV: &str = "CIRCE_DESKTOP_FAULT";

pub(crate) struct Conn {
    pub a11y: AccessibilityConnection,
    pub session_bus: zbus::Connection,
    pub id: SessionId,
    pump: tokio::task::JoinHandle<()>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

#[derive(Default)]
struct Events {
    last: Mutex<Option<Instant>>,
    count: AtomicU64,
    notify: Notify,
    watching: AtomicBool,
    /// Events until this instant are explained by this session's own action.
    own_until: Mutex<Option<Instant>>,
    text: AtomicU64,
}

impl Events {
    fn ours_now(&self) -> bool {
        self.own_until
            .lock()
            .unwrap()
            .is_some_and(|t| Instant::now() <= t)
    }
}

pub struct AtspiSession {
    node: String,
    conn: tokio::sync::Mutex<Option<Arc<Conn>>>,
    generation: AtomicU64,
    revision: AtomicU64,
    /// Physical input is serialized per session.
    input: tokio::sync::Mutex<()>,
    held: Mutex<Vec<i32>>,
    events: Arc<Events>,
    calls: AtomicU64,
    /// The X11 pointer and where it was when watching began (see `pointer.rs`).
    pointer: Mutex<Option<(pointer::Pointer, Option<pointer::Position>)>>,
    /// Keys on Wayland (see `portal.rs`).
    portal: portal::PortalKeys,
}

impl AtspiSession {
    /// An adapter that keeps no RemoteDesktop restore token (the person is asked each session).
    pub fn new(node: &str) -> AtspiSession {
        Self::with_token_file(node, None)
    }

    /// An adapter whose RemoteDesktop restore token lives in `data_dir` (0600).
    pub fn in_data_dir(node: &str, data_dir: &std::path::Path) -> AtspiSession {
        Self::with_token_file(node, Some(data_dir.join(portal::TOKEN_FILE)))
    }

    fn with_token_file(node: &str, token_file: Option<PathBuf>) -> AtspiSession {
        AtspiSession {
            node: node.to_string(),
            conn: tokio::sync::Mutex::new(None),
            generation: AtomicU64::new(0),
            revision: AtomicU64::new(0),
            input: tokio::sync::Mutex::new(()),
            held: Mutex::new(Vec::new()),
            events: Arc::new(Events::default()),
            calls: AtomicU64::new(0),
            pointer: Mutex::new(None),
            portal: portal::PortalKeys::new(token_file),
        }
    }

    /// AT-SPI calls made so far (for the benchmarks).
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    fn count(&self, n: u32) {
        self.calls.fetch_add(u64::from(n), Ordering::Relaxed);
    }

    fn login() -> Result<String, String> {
        let display = std::env::var("DISPLAY").unwrap_or_default();
        let wayland = std::env::var("WAYLAND_DISPLAY").unwrap_or_default();
        let bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default();
        if bus.is_empty() {
            return Err(
                "no DBUS_SESSION_BUS_ADDRESS: this process is not in a logged-in session".into(),
            );
        }
        if display.is_empty() && wayland.is_empty() {
            return Err("neither DISPLAY nor WAYLAND_DISPLAY is set: no graphical session".into());
        }
        Ok(match portal::SessionKind::from_env() {
            portal::SessionKind::Wayland if wayland.is_empty() => "wayland".to_string(),
            portal::SessionKind::Wayland => format!("wayland {wayland}"),
            _ => format!("x11 {display}"),
        })
    }

    /// Where keys go now: AT-SPI on X11; on Wayland the portal if it offers a keyboard.
    async fn input_route(bus: Option<&zbus::Connection>) -> portal::InputRoute {
        let kind = portal::SessionKind::from_env();
        let offer = match (kind, bus) {
            (portal::SessionKind::Wayland, Some(bus)) => Some(portal::probe(bus).await),
            (portal::SessionKind::Wayland, None) => Some(portal::PortalOffer::Absent(
                "the session bus is not reachable".into(),
            )),
            _ => None,
        };
        portal::choose(kind, offer.as_ref())
    }

    pub(crate) async fn connection(&self) -> DesktopResult<Arc<Conn>> {
        let mut slot = self.conn.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let login = Self::login().map_err(DesktopError::NotConnected)?;
        let a11y = tokio::time::timeout(CALL_TIMEOUT, AccessibilityConnection::new())
            .await
            .map_err(|_| DesktopError::NotConnected("the accessibility bus did not answer".into()))?
            .map_err(|e| DesktopError::NotConnected(format!("the accessibility bus: {e}")))?;
        let session_bus = tokio::time::timeout(CALL_TIMEOUT, zbus::Connection::session())
            .await
            .map_err(|_| DesktopError::NotConnected("the session bus did not answer".into()))?
            .map_err(|e| DesktopError::NotConnected(format!("the session bus: {e}")))?;
        for r in [
            a11y.register_event::<atspi::events::ObjectEvents>().await,
            a11y.register_event::<atspi::events::WindowEvents>().await,
        ] {
            r.map_err(|e| DesktopError::NotConnected(format!("cannot listen to events: {e}")))?;
        }
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let pump = tokio::spawn(pump(a11y.event_stream(), self.events.clone()));
        let conn = Arc::new(Conn {
            a11y,
            session_bus,
            id: SessionId {
                node: self.node.clone(),
                login,
                generation,
            },
            pump,
        });
        *slot = Some(conn.clone());
        Ok(conn)
    }

    async fn drop_connection(&self) {
        *self.conn.lock().await = None;
    }

    /// Mark the next `window` as this session's own doing (events then are not the person's).
    fn own(&self, window: Duration) {
        *self.events.own_until.lock().unwrap() = Some(Instant::now() + window);
    }

    async fn run_act(&self, conn: &Conn, action: &DesktopAction) -> DesktopResult<ActReport> {
        let mut report = ActReport::default();
        let handle = match &action.target {
            InputTarget::Element(h) => Some(self.refresh(conn, action, h, &mut report).await?),
            InputTarget::Window(_) => None,
        };
        let lost = |what: &str, e: String| DesktopError::Lost(format!("{what}: {e}"));
        self.own(Duration::from_millis(400));
        match (&action.act, handle) {
            (Act::Keys(keys), _) => {
                report.calls += self.keys(conn, keys).await?;
            }
            (act, Some(h)) => {
                let o = observe::object(&h.instance, &h.object)?;
                let acc = o
                    .as_accessible_proxy(conn.a11y.connection())
                    .await
                    .map_err(|e| DesktopError::Refused(e.to_string()))?;
                let proxies = acc
                    .proxies()
                    .await
                    .map_err(|e| DesktopError::Refused(e.to_string()))?;
                report.calls += 2;
                match act {
                    Act::Activate if action.may_open_modal => {
                        // A throw-away connection: a modal may freeze it, never the session's.
                        let spare =
                            tokio::time::timeout(CALL_TIMEOUT, AccessibilityConnection::new())
                                .await
                                .map_err(|_| DesktopError::Refused("no spare connection".into()))?
                                .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        let spare_acc = o
                            .as_accessible_proxy(spare.connection())
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        let action_proxy = spare_acc
                            .proxies()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?
                            .action()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        report.calls += 2;
                        let sent =
                            tokio::time::timeout(CALL_TIMEOUT, action_proxy.do_action(0)).await;
                        // Keep the connection alive in the background until it unfreezes.
                        tokio::spawn(async move {
                            tokio::time::sleep(Duration::from_secs(30)).await;
                            drop(spare);
                        });
                        match sent {
                            Ok(Ok(_)) => {}
                            Ok(Err(e)) => return Err(lost("the action", e.to_string())),
                            Err(_) => return Err(lost("the action", "no reply in time".into())),
                        }
                    }
                    Act::Activate => {
                        let a = proxies
                            .action()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        timed(a.do_action(0))
                            .await
                            .map_err(|e| lost("the action", e))?;
                    }
                    Act::ReplaceText { start, end, text } => {
                        let et = proxies
                            .editable_text()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        let (s, e) = (*start as i32, *end as i32);
                        timed(et.delete_text(s, e))
                            .await
                            .map_err(|e| lost("deleting text", e))?;
                        let n = text.chars().count() as i32;
                        timed(et.insert_text(s, text, n))
                            .await
                            .map_err(|e| lost("inserting text", e))?;
                        report.calls += 2;
                    }
                    Act::Select => {
                        // Selection lives on a container: the nearest ancestor that offers it
                        // (a table's cell may sit inside a composite cell), selecting the child
                        // on the path down to this element.
                        let mut child = acc.clone();
                        let mut selected = false;
                        for _ in 0..4 {
                            let parent =
                                timed(child.parent()).await.map_err(DesktopError::Refused)?;
                            let index = timed(child.get_index_in_parent())
                                .await
                                .map_err(DesktopError::Refused)?;
                            let pacc = parent
                                .into_accessible_proxy(conn.a11y.connection())
                                .await
                                .map_err(|e| DesktopError::Refused(e.to_string()))?;
                            report.calls += 3;
                            let sel = pacc
                                .proxies()
                                .await
                                .map_err(|e| DesktopError::Refused(e.to_string()))?
                                .selection()
                                .await;
                            if let Ok(sel) = sel {
                                timed(sel.select_child(index))
                                    .await
                                    .map_err(|e| lost("selecting", e))?;
                                selected = true;
                                break;
                            }
                            child = pacc;
                        }
                        if !selected {
                            return Err(DesktopError::Refused(
                                "no container around this element can select it".into(),
                            ));
                        }
                    }
                    Act::Deselect => {
                        let sel = proxies
                            .selection()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        timed(sel.clear_selection())
                            .await
                            .map_err(|e| lost("clearing the selection", e))?;
                        report.calls += 1;
                    }
                    Act::Choose => {
                        // option → its menu → the combo box, which chooses by the option's index.
                        let index = timed(acc.get_index_in_parent())
                            .await
                            .map_err(DesktopError::Refused)?;
                        let menu = timed(acc.parent()).await.map_err(DesktopError::Refused)?;
                        let macc = menu
                            .into_accessible_proxy(conn.a11y.connection())
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        let list = timed(macc.parent()).await.map_err(DesktopError::Refused)?;
                        let lacc = list
                            .into_accessible_proxy(conn.a11y.connection())
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        let sel = lacc
                            .proxies()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?
                            .selection()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        timed(sel.select_child(index))
                            .await
                            .map_err(|e| lost("choosing", e))?;
                        report.calls += 5;
                    }
                    Act::SelectText { start, end } => {
                        let text = proxies
                            .text()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        let (s, e) = (*start as i32, *end as i32);
                        let n = timed(text.get_n_selections())
                            .await
                            .map_err(DesktopError::Refused)?;
                        if n > 0 {
                            timed(text.set_selection(0, s, e))
                                .await
                                .map_err(|e| lost("selecting text", e))?;
                        } else {
                            timed(text.add_selection(s, e))
                                .await
                                .map_err(|e| lost("selecting text", e))?;
                        }
                        // Read back: the app's selection is exactly that range.
                        let got = timed(text.get_selection(0))
                            .await
                            .map_err(|e| lost("reading the selection", e))?;
                        report.calls += 3;
                        if got != (s, e) {
                            return Err(DesktopError::Lost(format!(
                                "the app selected {}..{}, not {s}..{e}",
                                got.0, got.1
                            )));
                        }
                    }
                    Act::SetValue(v) => {
                        let val = proxies
                            .value()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        timed(val.set_current_value(*v))
                            .await
                            .map_err(|e| lost("setting the value", e))?;
                    }
                    Act::Focus => {
                        let c = proxies
                            .component()
                            .await
                            .map_err(|e| DesktopError::Refused(e.to_string()))?;
                        timed(c.grab_focus())
                            .await
                            .map_err(|e| lost("focusing", e))?;
                    }
                    // Handled above, before any element is resolved.
                    Act::Keys(_) => {}
                }
                report.calls += 1;
            }
            (_, None) => {
                return Err(DesktopError::Refused(
                    "only keys can go to a window; other actions need an element".into(),
                ))
            }
        }
        self.own(Duration::from_millis(400));
        Ok(report)
    }

    /// The handle if it is still current; else the same element on a fresh observation of the
    /// same window (same role, label and ordinal); else a refusal. Never a position.
    async fn refresh(
        &self,
        conn: &Conn,
        action: &DesktopAction,
        h: &Handle,
        report: &mut ActReport,
    ) -> DesktopResult<Handle> {
        let current = h.generation == conn.id.generation
            && h.revision == self.revision.load(Ordering::SeqCst);
        if current {
            return Ok(h.clone());
        }
        if h.generation == conn.id.generation {
            // Same connection, later revision: the object may still be the same one.
            if let Ok(o) = observe::object(&h.instance, &h.object) {
                if let Ok(acc) = o.as_accessible_proxy(conn.a11y.connection()).await {
                    let same = timed(acc.name())
                        .await
                        .map(|n| translate::label(&n) == h.label);
                    report.calls += 1;
                    if same == Ok(true) {
                        return Ok(h.clone());
                    }
                }
            }
        }
        let windows = observe::windows(conn, &self.calls).await?;
        let window = windows
            .into_iter()
            .find(|w| w.app == action.window.app && w.title == action.window.title)
            .ok_or_else(|| {
                DesktopError::Stale(format!(
                    "the window \"{}\" is gone; nothing was done",
                    action.window.title
                ))
            })?;
        let fresh = self.observe_window(conn, &window, Page::ALL).await?;
        report.refreshed = true;
        fresh
            .handles
            .values()
            .find(|n| n.role == h.role && n.label == h.label && n.ordinal == h.ordinal)
            .cloned()
            .ok_or_else(|| {
                DesktopError::Stale(format!(
                    "\"{}\" is no longer in \"{}\"; nothing was done",
                    h.label, window.title
                ))
            })
    }

    async fn observe_window(
        &self,
        conn: &Conn,
        window: &WindowRef,
        page: Page,
    ) -> DesktopResult<DesktopObservation> {
        let revision = self.revision.fetch_add(1, Ordering::SeqCst) + 1;
        let o = observe::observe(conn, window, page, revision).await?;
        self.count(o.calls);
        Ok(o)
    }

    /// Keys pressed together, in order, then released in reverse. Names: X keysyms.
    async fn keys(&self, conn: &Conn, keys: &[String]) -> DesktopResult<u32> {
        match Self::input_route(Some(&conn.session_bus)).await {
            portal::InputRoute::Atspi => {}
            portal::InputRoute::Portal { version } => {
                let _input = self.input.lock().await;
                return self.portal.chord(conn.id.generation, version, keys).await;
            }
            portal::InputRoute::Refused(why) => return Err(DesktopError::Unsupported(why)),
        }
        let _input = self.input.lock().await;
        let dec = DeviceEventControllerProxy::builder(conn.a11y.connection())
            .destination("org.a11y.atspi.Registry")
            .map_err(|e| DesktopError::Refused(e.to_string()))?
            .path("/org/a11y/atspi/registry/deviceeventcontroller")
            .map_err(|e| DesktopError::Refused(e.to_string()))?
            .build()
            .await
            .map_err(|e| DesktopError::Refused(e.to_string()))?;
        let mut calls = 0;
        let (mods, last) = keys.split_at(keys.len().saturating_sub(1));
        if let Some(k) = last.first() {
            if modifier_code(k).is_none() && k.chars().count() != 1 && portal::keysym(k).is_none() {
                return Err(DesktopError::Refused(format!("unknown key name {k}")));
            }
        }
        for m in mods {
            let code = modifier_code(m)
                .ok_or_else(|| DesktopError::Refused(format!("unknown modifier {m}")))?;
            timed(dec.generate_keyboard_event(code, "", KeySynthType::Press))
                .await
                .map_err(DesktopError::Lost)?;
            self.held.lock().unwrap().push(code);
            calls += 1;
        }
        let result = match last.first() {
            Some(k) => match modifier_code(k) {
                Some(code) => {
                    timed(dec.generate_keyboard_event(code, "", KeySynthType::Pressrelease)).await
                }
                // One character is typed as itself; a named key (F2, Delete, space) by its keysym
                // (typed as a string, "F2" would be the two characters F and 2).
                None if k.chars().count() == 1 => {
                    timed(dec.generate_keyboard_event(0, k, KeySynthType::String)).await
                }
                None => match portal::keysym(k) {
                    Some(sym) => {
                        timed(dec.generate_keyboard_event(sym, "", KeySynthType::Sym)).await
                    }
                    None => Err(format!("unknown key name {k}")),
                },
            },
            None => Ok(()),
        };
        calls += 1;
        let held: Vec<i32> = self.held.lock().unwrap().drain(..).rev().collect();
        for code in held {
            let _ = timed(dec.generate_keyboard_event(code, "", KeySynthType::Release)).await;
            calls += 1;
        }
        result.map_err(DesktopError::Lost)?;
        Ok(calls)
    }
}

/// X keycodes of the modifiers on Xvfb's and most PC keymaps.
fn modifier_code(name: &str) -> Option<i32> {
    Some(match name {
        "Control_L" | "Control" | "Ctrl" => 37,
        "Shift_L" | "Shift" => 50,
        "Alt_L" | "Alt" => 64,
        "Escape" => 9,
        "Return" | "Enter" => 36,
        "Tab" => 23,
        _ => return None,
    })
}

/// One call with the session's timeout; the error says what happened.
pub(crate) async fn timed<T>(
    f: impl std::future::Future<Output = zbus::Result<T>>,
) -> Result<T, String> {
    match tokio::time::timeout(CALL_TIMEOUT, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!(
            "no answer within {} s (a modal dialog may be up)",
            CALL_TIMEOUT.as_secs()
        )),
    }
}

async fn pump(
    stream: impl futures_lite::Stream<Item = Result<atspi::Event, atspi::AtspiError>>,
    events: Arc<Events>,
) {
    use atspi::events::ObjectEvents;
    let mut stream = std::pin::pin!(stream);
    while let Some(ev) = stream.next().await {
        let Ok(ev) = ev else { continue };
        let human = events.watching.load(Ordering::SeqCst) && !events.ours_now();
        match &ev {
            // Pointer events are neither a sign an action is still settling nor reliable evidence
            // of a person (absent on some setups, emitted without motion on others): takeover by
            // mouse is read from the pointer position instead (`pointer.rs`).
            atspi::Event::Mouse(_) => continue,
            atspi::Event::Object(ObjectEvents::TextChanged(_)) if human => {
                events.text.fetch_add(1, Ordering::SeqCst);
            }
            _ => {}
        }
        *events.last.lock().unwrap() = Some(Instant::now());
        events.count.fetch_add(1, Ordering::SeqCst);
        events.notify.notify_waiters();
    }
}

impl DesktopSession for AtspiSession {
    fn readiness<'a>(&'a self, app: Option<&'a str>) -> BoxFuture<'a, Readiness> {
        Box::pin(async move {
            let policy = Fact::yes("control of this node's desktop is permitted");
            let adapter = match portal::SessionKind::from_env() {
                // Takeover by mouse is read from the X11 pointer, which Wayland does not give.
                portal::SessionKind::Wayland => Fact::yes(
                    "Linux AT-SPI (Wayland; a person's pointer is not seen, their text changes are)",
                ),
                _ => Fact::yes("Linux AT-SPI (X11)"),
            };
            let session = match Self::login() {
                Ok(l) => Fact::yes(l),
                Err(e) => Fact::no(e),
            };
            if !session.ok {
                let skip = Fact::no("not checked: no session");
                return Readiness {
                    policy,
                    adapter,
                    session,
                    bus: skip.clone(),
                    apps: skip,
                    input: Self::input_route(None).await.fact(),
                };
            }
            let conn = self.connection().await;
            let input = match &conn {
                Ok(c) => Self::input_route(Some(&c.session_bus)).await,
                Err(_) => {
                    let bus = tokio::time::timeout(CALL_TIMEOUT, zbus::Connection::session())
                        .await
                        .ok()
                        .and_then(Result::ok);
                    Self::input_route(bus.as_ref()).await
                }
            }
            .fact();
            let (bus, apps) = match conn {
                Err(e) => (
                    Fact::no(e.to_string()),
                    Fact::no("not checked: no accessibility bus"),
                ),
                Ok(conn) => {
                    let bus = Fact::yes(format!("connected (generation {})", conn.id.generation));
                    match observe::windows(&conn, &self.calls).await {
                        Err(e) => (bus, Fact::no(e.to_string())),
                        Ok(ws) => {
                            let mut names: Vec<&str> = ws.iter().map(|w| w.app.as_str()).collect();
                            names.dedup();
                            let apps = match app {
                                Some(a) if !names.iter().any(|n| n.eq_ignore_ascii_case(a)) => {
                                    Fact::no(format!(
                                        "{a} has no window (open: {})",
                                        names.join(", ")
                                    ))
                                }
                                _ => Fact::yes(format!(
                                    "{} window(s): {}",
                                    ws.len(),
                                    names.join(", ")
                                )),
                            };
                            (bus, apps)
                        }
                    }
                }
            };
            Readiness {
                policy,
                adapter,
                session,
                bus,
                apps,
                input,
            }
        })
    }

    fn session(&self) -> BoxFuture<'_, DesktopResult<SessionId>> {
        Box::pin(async move { Ok(self.connection().await?.id.clone()) })
    }

    fn disconnect(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.drop_connection())
    }

    fn windows(&self) -> BoxFuture<'_, DesktopResult<Vec<WindowRef>>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            observe::windows(&conn, &self.calls).await
        })
    }

    fn observe<'a>(
        &'a self,
        window: &'a WindowRef,
        page: Page,
    ) -> BoxFuture<'a, DesktopResult<DesktopObservation>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            if window.session.generation != conn.id.generation {
                return Err(DesktopError::Stale(format!(
                    "the window \"{}\" was found on an earlier connection; look again",
                    window.title
                )));
            }
            self.observe_window(&conn, window, page).await
        })
    }

    fn read_text<'a>(&'a self, handle: &'a Handle) -> BoxFuture<'a, DesktopResult<String>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            if handle.generation != conn.id.generation {
                return Err(DesktopError::Stale(
                    "the element is from an earlier connection".into(),
                ));
            }
            self.count(3);
            observe::text_of(&conn, &handle.instance, &handle.object).await
        })
    }

    fn shortcut<'a>(&'a self, handle: &'a Handle) -> BoxFuture<'a, DesktopResult<Vec<String>>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            if handle.generation != conn.id.generation {
                return Err(DesktopError::Stale(
                    "the element is from an earlier connection".into(),
                ));
            }
            self.count(2);
            let o = observe::object(&handle.instance, &handle.object)?;
            let acc = o
                .as_accessible_proxy(conn.a11y.connection())
                .await
                .map_err(|e| DesktopError::Refused(e.to_string()))?;
            let action = acc
                .proxies()
                .await
                .map_err(|e| DesktopError::Refused(e.to_string()))?
                .action()
                .await
                .map_err(|e| DesktopError::Refused(e.to_string()))?;
            let binding = timed(action.get_key_binding(0))
                .await
                .map_err(DesktopError::Refused)?;
            Ok(translate::shortcut(&binding))
        })
    }

    fn act<'a>(&'a self, action: &'a DesktopAction) -> BoxFuture<'a, DesktopResult<ActReport>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            let r = self.run_act(&conn, action).await;
            if let Ok(rep) = &r {
                self.count(rep.calls);
            }
            if matches!(r, Err(DesktopError::Lost(_))) {
                self.drop_connection().await;
            }
            let is_save = matches!(&action.target, InputTarget::Element(h) if h.label == "Save")
                || matches!(&action.act, Act::Keys(k) if k.last().is_some_and(|k| k == "s"));
            let fault = cfg!(debug_assertions)
                && std::env::var(FAULT_ENV).as_deref() == Ok("lose-after-save");
            if r.is_ok() && is_save && fault {
                self.drop_connection().await;
                return Err(DesktopError::Lost(
                    "the desktop connection was lost right after Save".into(),
                ));
            }
            r
        })
    }

    fn launch<'a>(
        &'a self,
        program: &'a str,
        args: &'a [String],
    ) -> BoxFuture<'a, DesktopResult<()>> {
        Box::pin(async move {
            Self::login().map_err(DesktopError::NotConnected)?;
            self.own(Duration::from_secs(2));
            let mut child = tokio::process::Command::new(program)
                .args(args)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .map_err(|e| DesktopError::Refused(format!("cannot start {program}: {e}")))?;
            // Reap it whenever it ends (a single-instance app hands over and exits at once).
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
            Ok(())
        })
    }

    fn show_items<'a>(&'a self, paths: &'a [PathBuf]) -> BoxFuture<'a, DesktopResult<()>> {
        Box::pin(async move {
            let conn = self.connection().await?;
            let uris: Vec<String> = paths.iter().map(|p| super::file_uri(p)).collect();
            self.own(Duration::from_secs(2));
            let body = (uris, "");
            let call = conn.session_bus.call_method(
                Some("org.freedesktop.FileManager1"),
                "/org/freedesktop/FileManager1",
                Some("org.freedesktop.FileManager1"),
                "ShowItems",
                &body,
            );
            // Activating the file manager can take a moment on a cold start.
            match tokio::time::timeout(Duration::from_secs(10), call).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(DesktopError::Refused(format!(
                    "the file manager refused ShowItems: {e}"
                ))),
                Err(_) => Err(DesktopError::Lost(
                    "the file manager did not answer ShowItems".into(),
                )),
            }
        })
    }

    fn settle(&self, quiet: Duration, cap: Duration) -> BoxFuture<'_, Settled> {
        Box::pin(async move {
            let start = Instant::now();
            let before = self.events.count.load(Ordering::SeqCst);
            loop {
                let since = self
                    .events
                    .last
                    .lock()
                    .unwrap()
                    .map_or(quiet, |t| t.elapsed());
                let elapsed = start.elapsed();
                if elapsed >= cap {
                    break Settled {
                        events: self.events.count.load(Ordering::SeqCst) - before,
                        waited_ms: elapsed.as_millis() as u64,
                        capped: true,
                    };
                }
                if since >= quiet {
                    break Settled {
                        events: self.events.count.load(Ordering::SeqCst) - before,
                        waited_ms: elapsed.as_millis() as u64,
                        capped: false,
                    };
                }
                let wait = (quiet - since).min(cap - elapsed);
                let _ = tokio::time::timeout(wait, self.events.notify.notified()).await;
            }
        })
    }

    fn watch_human(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.events.text.store(0, Ordering::SeqCst);
            self.events.watching.store(true, Ordering::SeqCst);
            let mut p = self.pointer.lock().unwrap();
            if p.is_none() {
                *p = pointer::Pointer::connect().map(|x| (x, None));
            }
            if let Some((x, start)) = p.as_mut() {
                *start = x.position();
            }
        })
    }

    fn human_input(&self) -> HumanInput {
        // The pointer moved since watching began: Circe never moves it, so a person did.
        let moved = self
            .pointer
            .lock()
            .unwrap()
            .as_ref()
            .is_some_and(|(x, start)| start.is_some() && x.position() != *start);
        HumanInput {
            pointer: u64::from(moved),
            keys_or_text: self.events.text.load(Ordering::SeqCst),
        }
    }

    fn release_keys(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.portal.release_all().await;
            let held: Vec<i32> = self.held.lock().unwrap().drain(..).collect();
            if held.is_empty() {
                return;
            }
            let Ok(conn) = self.connection().await else {
                return;
            };
            if let Ok(b) = DeviceEventControllerProxy::builder(conn.a11y.connection())
                .destination("org.a11y.atspi.Registry")
                .and_then(|b| b.path("/org/a11y/atspi/registry/deviceeventcontroller"))
            {
                if let Ok(dec) = b.build().await {
                    for code in held.into_iter().rev() {
                        let _ = timed(dec.generate_keyboard_event(code, "", KeySynthType::Release))
                            .await;
                    }
                }
            }
        })
    }
}

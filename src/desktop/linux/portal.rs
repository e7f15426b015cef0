//! Keys on Wayland: the RemoteDesktop portal (`org.freedesktop.portal.RemoteDesktop`, through
//! `ashpd`), where the compositor offers one with a keyboard.
//!
//! - Choosing (`SessionKind`, `choose`, pure): an X11 session keeps AT-SPI's
//!   `GenerateKeyboardEvent`; a Wayland session sends keys through the portal when
//!   `org.freedesktop.portal.Desktop` exposes RemoteDesktop with a keyboard among its
//!   `AvailableDeviceTypes`, and otherwise refuses keys with the reason (semantic AT-SPI actions
//!   are not affected). There is no fallback from one route to the other.
//! - A portal session (CreateSession, SelectDevices(keyboard), Start) is made on the first chord
//!   of a desktop-session generation and kept for the chords after it; `Start` shows the
//!   compositor's consent dialog, and a denial or cancel is a refusal. Any failure drops the
//!   portal session; the next chord makes a new one.
//! - From RemoteDesktop version 2 the session asks to persist (`persist_mode` 2) and keeps the
//!   portal's restore token in Circe's data directory (0600), so the person consents once. The
//!   token is never logged.

use super::super::{DesktopError, DesktopResult, Fact};
use ashpd::desktop::remote_desktop::{DeviceType, KeyState, RemoteDesktop};
use ashpd::desktop::{PersistMode, Session};
use std::path::PathBuf;
use std::time::Duration;

/// The portal frontend's bus name and object.
pub const PORTAL: &str = "org.freedesktop.portal.Desktop";
pub const PORTAL_PATH: &str = "/org/freedesktop/portal/desktop";
pub const REMOTE_DESKTOP: &str = "org.freedesktop.portal.RemoteDesktop";

/// The refusal when the person (or the compositor) says no to remote keyboard input.
pub const NOT_ALLOWED: &str = "the desktop did not allow remote keyboard input";

/// The restore token's file in the data directory.
pub const TOKEN_FILE: &str = "remote-desktop.token";

/// `AvailableDeviceTypes` / `devices` bit for a keyboard.
const KEYBOARD: u32 = 1;

/// Longest a portal call other than `Start` may take (activation included).
const CALL: Duration = Duration::from_secs(10);
/// Longest the person has to answer the consent dialog.
const CONSENT: Duration = Duration::from_secs(120);

/// The kind of graphical session this process is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionKind {
    X11,
    Wayland,
    /// Neither: no graphical session.
    NoSession,
}

impl SessionKind {
    /// From `DISPLAY`, `WAYLAND_DISPLAY` and `XDG_SESSION_TYPE`: an explicit session type
    /// decides; else a Wayland display makes it Wayland (Xwayland sets `DISPLAY` too), else an
    /// X display makes it X11.
    pub fn of(display: &str, wayland_display: &str, session_type: &str) -> SessionKind {
        match session_type {
            "wayland" => SessionKind::Wayland,
            "x11" if !display.is_empty() => SessionKind::X11,
            _ if !wayland_display.is_empty() => SessionKind::Wayland,
            _ if !display.is_empty() => SessionKind::X11,
            _ => SessionKind::NoSession,
        }
    }

    pub fn from_env() -> SessionKind {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        SessionKind::of(
            &var("DISPLAY"),
            &var("WAYLAND_DISPLAY"),
            &var("XDG_SESSION_TYPE").to_ascii_lowercase(),
        )
    }
}

/// What the session bus says about the RemoteDesktop portal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortalOffer {
    /// The portal answers with RemoteDesktop: its version and `AvailableDeviceTypes` bits.
    Offered { version: u32, devices: u32 },
    /// No RemoteDesktop portal, and why.
    Absent(String),
}

/// Where `Act::Keys` goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputRoute {
    /// AT-SPI's `DeviceEventController.GenerateKeyboardEvent` (X11).
    Atspi,
    /// The RemoteDesktop portal (Wayland), at this version.
    Portal { version: u32 },
    /// Keys are refused; the reason as a sentence.
    Refused(String),
}

/// The route for keys in a session of `kind`, given what the portal offers (asked only on
/// Wayland; `None` when it was not asked).
pub fn choose(kind: SessionKind, offer: Option<&PortalOffer>) -> InputRoute {
    match (kind, offer) {
        (SessionKind::X11, _) => InputRoute::Atspi,
        (SessionKind::NoSession, _) => InputRoute::Refused(
            "no graphical session (neither DISPLAY nor WAYLAND_DISPLAY): keys cannot be sent"
                .into(),
        ),
        (SessionKind::Wayland, Some(PortalOffer::Offered { version, devices }))
            if devices & KEYBOARD != 0 =>
        {
            InputRoute::Portal { version: *version }
        }
        (SessionKind::Wayland, offer) => {
            let why = match offer {
                Some(PortalOffer::Offered { devices, .. }) => {
                    format!("its devices are {}", device_names(*devices))
                }
                Some(PortalOffer::Absent(why)) => why.clone(),
                None => "not asked".into(),
            };
            InputRoute::Refused(format!(
                "Wayland: no RemoteDesktop portal offers a keyboard ({why}); steps that need keys are refused"
            ))
        }
    }
}

impl InputRoute {
    /// The readiness fact for input.
    pub fn fact(&self) -> Fact {
        match self {
            InputRoute::Atspi => Fact::yes("X11: keys through AT-SPI"),
            InputRoute::Portal { version } => Fact::yes(format!(
                "Wayland: keys through the RemoteDesktop portal (version {version}, keyboard)"
            )),
            InputRoute::Refused(why) => Fact::no(why.clone()),
        }
    }
}

fn device_names(bits: u32) -> String {
    let names: Vec<&str> = [(1, "keyboard"), (2, "pointer"), (4, "touchscreen")]
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, n)| *n)
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Ask the session bus whether a RemoteDesktop portal is there (running or activatable), and
/// read its version and device types.
pub async fn probe(bus: &zbus::Connection) -> PortalOffer {
    match tokio::time::timeout(CALL, probe_inner(bus)).await {
        Ok(Ok(o)) => o,
        Ok(Err(why)) => PortalOffer::Absent(why),
        Err(_) => PortalOffer::Absent(format!(
            "{PORTAL} did not answer within {} s",
            CALL.as_secs()
        )),
    }
}

async fn probe_inner(bus: &zbus::Connection) -> Result<PortalOffer, String> {
    let dbus = zbus::fdo::DBusProxy::new(bus)
        .await
        .map_err(|e| format!("the session bus: {e}"))?;
    let name = zbus::names::BusName::try_from(PORTAL).expect("a valid bus name");
    let running = dbus.name_has_owner(name).await.unwrap_or(false);
    let activatable = running
        || dbus
            .list_activatable_names()
            .await
            .map(|names| names.iter().any(|n| n.as_str() == PORTAL))
            .unwrap_or(false);
    if !activatable {
        return Ok(PortalOffer::Absent(format!(
            "{PORTAL} is not on the session bus"
        )));
    }
    let props = zbus::fdo::PropertiesProxy::builder(bus)
        .destination(PORTAL)
        .and_then(|b| b.path(PORTAL_PATH))
        .map_err(|e| e.to_string())?
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let iface = zbus::names::InterfaceName::try_from(REMOTE_DESKTOP).expect("a valid name");
    let all = match props.get_all(iface).await {
        Ok(all) => all,
        Err(e) => {
            return Ok(PortalOffer::Absent(format!(
                "{PORTAL} has no RemoteDesktop interface: {e}"
            )))
        }
    };
    let number = |k: &str| all.get(k).and_then(|v| v.downcast_ref::<u32>().ok());
    match (number("version"), number("AvailableDeviceTypes")) {
        (Some(version), Some(devices)) => Ok(PortalOffer::Offered { version, devices }),
        _ => Ok(PortalOffer::Absent(format!(
            "{PORTAL} exposes RemoteDesktop without its version and AvailableDeviceTypes"
        ))),
    }
}

/// The X keysym for a key name the adapter uses (`Control_L`, `s`, `Return`, `F2`…).
pub fn keysym(name: &str) -> Option<i32> {
    let sym = match name {
        "Control_L" | "Control" | "Ctrl" => 0xffe3,
        "Control_R" => 0xffe4,
        "Shift_L" | "Shift" => 0xffe1,
        "Shift_R" => 0xffe2,
        "Alt_L" | "Alt" => 0xffe9,
        "Alt_R" => 0xffea,
        "Super_L" | "Super" => 0xffeb,
        "Escape" => 0xff1b,
        "Return" | "Enter" => 0xff0d,
        "Tab" => 0xff09,
        "BackSpace" => 0xff08,
        "Delete" => 0xffff,
        "Insert" => 0xff63,
        "Home" => 0xff50,
        "End" => 0xff57,
        "Page_Up" => 0xff55,
        "Page_Down" => 0xff56,
        "Left" => 0xff51,
        "Up" => 0xff52,
        "Right" => 0xff53,
        "Down" => 0xff54,
        "space" => 0x20,
        _ => {
            if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<i32>().ok()) {
                // F1..F12 are consecutive keysyms from 0xffbe.
                return (1..=12).contains(&n).then_some(0xffbe + n - 1);
            }
            // One printable ASCII character: Latin-1 keysyms are the character's code.
            let mut chars = name.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if (' '..='~').contains(&c) => c as i32,
                _ => return None,
            }
        }
    };
    Some(sym)
}

/// One started portal session, for one desktop-session generation.
struct Live {
    generation: u64,
    portal: RemoteDesktop<'static>,
    session: Session<'static, RemoteDesktop<'static>>,
}

/// Keys through the RemoteDesktop portal: one session per generation, re-made after a failure.
pub struct PortalKeys {
    token_file: Option<PathBuf>,
    live: tokio::sync::Mutex<Option<Live>>,
    /// Keysyms pressed and not yet released.
    held: std::sync::Mutex<Vec<i32>>,
}

impl PortalKeys {
    /// `token_file`: where the restore token is kept (none: the person is asked every session).
    pub fn new(token_file: Option<PathBuf>) -> PortalKeys {
        PortalKeys {
            token_file,
            live: tokio::sync::Mutex::new(None),
            held: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Press `keys` together in order, then release them in reverse; the calls made.
    /// `version` is the portal's RemoteDesktop version (from the probe).
    pub async fn chord(
        &self,
        generation: u64,
        version: u32,
        keys: &[String],
    ) -> DesktopResult<u32> {
        let syms = keys
            .iter()
            .map(|k| {
                keysym(k).ok_or_else(|| {
                    DesktopError::Refused(format!("no keysym for the key {k:?}; nothing was sent"))
                })
            })
            .collect::<DesktopResult<Vec<i32>>>()?;
        if syms.is_empty() {
            return Ok(0);
        }
        let mut live = self.live.lock().await;
        if live.as_ref().is_some_and(|l| l.generation != generation) {
            if let Some(old) = live.take() {
                close(old).await;
            }
        }
        if live.is_none() {
            *live = Some(self.start(generation, version).await?);
        }
        let l = live.as_ref().expect("a live session");
        let mut calls = 0;
        let mut failed = None;
        for (i, sym) in syms.iter().enumerate() {
            let sent = notify(l, *sym, KeyState::Pressed).await;
            calls += 1;
            match sent {
                Ok(()) => self.held.lock().unwrap().push(*sym),
                Err(e) => {
                    // Modifiers alone do nothing, and a press the portal answered with an error
                    // was not made: only a last key whose press went unanswered may have acted.
                    let unknown = i + 1 == syms.len() && matches!(e, CallError::NoAnswer(_));
                    failed = Some(if unknown {
                        DesktopError::Lost(format!("the portal, pressing a key: {e}"))
                    } else {
                        DesktopError::Refused(format!(
                            "the portal refused a key press: {e}; the keys were let go"
                        ))
                    });
                    break;
                }
            }
        }
        let held: Vec<i32> = self.held.lock().unwrap().drain(..).rev().collect();
        for sym in held {
            calls += 1;
            if let Err(e) = notify(l, sym, KeyState::Released).await {
                failed.get_or_insert(DesktopError::Lost(format!(
                    "the portal, releasing a key: {e}"
                )));
            }
        }
        if let Some(e) = failed {
            if let Some(old) = live.take() {
                close(old).await;
            }
            return Err(e);
        }
        Ok(calls)
    }

    /// Release every key still held (after an interrupted chord).
    pub async fn release_all(&self) {
        let held: Vec<i32> = self.held.lock().unwrap().drain(..).rev().collect();
        if held.is_empty() {
            return;
        }
        let live = self.live.lock().await;
        if let Some(l) = live.as_ref() {
            for sym in held {
                let _ = notify(l, sym, KeyState::Released).await;
            }
        }
    }

    /// Close the portal session, if there is one.
    pub async fn close(&self) {
        if let Some(old) = self.live.lock().await.take() {
            close(old).await;
        }
    }

    /// CreateSession, SelectDevices(keyboard), Start (the consent dialog).
    async fn start(&self, generation: u64, version: u32) -> DesktopResult<Live> {
        let failed = |what: &str, e: CallError| {
            DesktopError::Refused(format!("the RemoteDesktop portal {what}: {e}"))
        };
        let portal = within(CALL, RemoteDesktop::new())
            .await
            .map_err(|e| failed("is not reachable", e))?;
        let session = within(CALL, portal.create_session())
            .await
            .map_err(|e| failed("refused a session", e))?;
        let live = Live {
            generation,
            portal,
            session,
        };
        match self.select_and_start(&live, version).await {
            Ok(()) => Ok(live),
            Err(e) => {
                close(live).await;
                Err(e)
            }
        }
    }

    async fn select_and_start(&self, live: &Live, version: u32) -> DesktopResult<()> {
        // Persisting (and restore tokens) came with version 2 of the interface.
        let persist = version >= 2;
        let token = match (&self.token_file, persist) {
            (Some(f), true) => std::fs::read_to_string(f)
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty()),
            _ => None,
        };
        let mode = if persist {
            PersistMode::ExplicitlyRevoked
        } else {
            PersistMode::DoNot
        };
        within(
            CALL,
            live.portal.select_devices(
                &live.session,
                DeviceType::Keyboard.into(),
                token.as_deref(),
                mode,
            ),
        )
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r.response().map_err(|e| refusal(&e)))
        .map_err(|e| {
            DesktopError::Refused(format!(
                "the RemoteDesktop portal did not select a keyboard: {e}"
            ))
        })?;
        let started =
            match tokio::time::timeout(CONSENT, live.portal.start(&live.session, None)).await {
                Err(_) => {
                    return Err(DesktopError::Refused(format!(
                        "{NOT_ALLOWED}: nobody answered the desktop's question within {} s",
                        CONSENT.as_secs()
                    )))
                }
                Ok(Err(e)) => return Err(start_error(&e)),
                Ok(Ok(r)) => r.response().map_err(|e| start_error(&e))?,
            };
        if !started.devices().contains(DeviceType::Keyboard) {
            return Err(DesktopError::Refused(format!(
                "{NOT_ALLOWED} (the keyboard was not granted)"
            )));
        }
        if let (Some(f), Some(t)) = (&self.token_file, started.restore_token()) {
            // Not fatal: without the token the person is asked again next time.
            if let Err(e) = crate::private::write(f, t.as_bytes()) {
                tracing::warn!(
                    "the RemoteDesktop restore token could not be kept in {}: {e}",
                    f.display()
                );
            }
        }
        Ok(())
    }
}

/// A denied or cancelled request is the person's answer, said as such; anything else is the
/// portal's error.
fn refusal(e: &ashpd::Error) -> String {
    match e {
        ashpd::Error::Response(_) => NOT_ALLOWED.to_string(),
        e => e.to_string(),
    }
}

fn start_error(e: &ashpd::Error) -> DesktopError {
    match e {
        ashpd::Error::Response(_) => DesktopError::Refused(NOT_ALLOWED.to_string()),
        e => DesktopError::Refused(format!("the RemoteDesktop portal did not start: {e}")),
    }
}

async fn notify(l: &Live, sym: i32, state: KeyState) -> Result<(), CallError> {
    within(
        super::CALL_TIMEOUT,
        l.portal.notify_keyboard_keysym(&l.session, sym, state),
    )
    .await
}

async fn close(l: Live) {
    let _ = tokio::time::timeout(super::CALL_TIMEOUT, l.session.close()).await;
}

/// A portal call that failed: answered with an error (not made), or not answered in time (its
/// effect unknown).
#[derive(Debug)]
enum CallError {
    Failed(String),
    NoAnswer(Duration),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Failed(e) => f.write_str(e),
            CallError::NoAnswer(d) => write!(f, "no answer within {} s", d.as_secs()),
        }
    }
}

async fn within<T>(
    limit: Duration,
    f: impl std::future::Future<Output = ashpd::Result<T>>,
) -> Result<T, CallError> {
    match tokio::time::timeout(limit, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(CallError::Failed(e.to_string())),
        Err(_) => Err(CallError::NoAnswer(limit)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_map_to_x_keysyms() {
        let cases: &[(&str, Option<i32>)] = &[
            ("Control_L", Some(0xffe3)),
            ("Ctrl", Some(0xffe3)),
            ("Shift_L", Some(0xffe1)),
            ("Alt_L", Some(0xffe9)),
            ("s", Some(0x73)),
            ("S", Some(0x53)),
            ("1", Some(0x31)),
            ("/", Some(0x2f)),
            ("space", Some(0x20)),
            ("Return", Some(0xff0d)),
            ("Enter", Some(0xff0d)),
            ("Escape", Some(0xff1b)),
            ("Tab", Some(0xff09)),
            ("Delete", Some(0xffff)),
            ("BackSpace", Some(0xff08)),
            ("F1", Some(0xffbe)),
            ("F2", Some(0xffbf)),
            ("F12", Some(0xffc9)),
            ("F13", None),
            ("F0", None),
            ("F", Some(0x46)),
            ("Left", Some(0xff51)),
            ("Page_Down", Some(0xff56)),
            ("é", None),
            ("ss", None),
            ("", None),
            ("Hyper_Q", None),
        ];
        for (name, want) in cases {
            assert_eq!(keysym(name), *want, "{name:?}");
        }
    }

    #[test]
    fn the_session_kind_comes_from_the_environment() {
        use SessionKind::*;
        let cases: &[(&str, &str, &str, SessionKind)] = &[
            (":0", "", "", X11),
            (":0", "", "x11", X11),
            ("", "wayland-0", "", Wayland),
            // Xwayland: DISPLAY is set too, the session is Wayland.
            (":0", "wayland-0", "", Wayland),
            (":0", "wayland-0", "wayland", Wayland),
            (":0", "", "wayland", Wayland),
            // An explicit x11 session with a stray Wayland display is X11.
            (":0", "wayland-1", "x11", X11),
            ("", "", "", NoSession),
            ("", "", "tty", NoSession),
        ];
        for (display, wayland, kind, want) in cases {
            assert_eq!(
                SessionKind::of(display, wayland, kind),
                *want,
                "{display:?} {wayland:?} {kind:?}"
            );
        }
    }

    #[test]
    fn the_route_follows_the_session_and_the_portal() {
        use SessionKind::*;
        let keyboard = PortalOffer::Offered {
            version: 2,
            devices: 7,
        };
        let pointer_only = PortalOffer::Offered {
            version: 2,
            devices: 2,
        };
        let absent = PortalOffer::Absent(format!("{PORTAL} is not on the session bus"));
        let cases: &[(SessionKind, Option<&PortalOffer>, InputRoute, &str)] = &[
            (X11, None, InputRoute::Atspi, "X11: keys through AT-SPI"),
            // X11 never goes through the portal, even when one is offered.
            (X11, Some(&keyboard), InputRoute::Atspi, "X11: keys through AT-SPI"),
            (
                Wayland,
                Some(&keyboard),
                InputRoute::Portal { version: 2 },
                "Wayland: keys through the RemoteDesktop portal (version 2, keyboard)",
            ),
            (
                Wayland,
                Some(&pointer_only),
                InputRoute::Refused(
                    "Wayland: no RemoteDesktop portal offers a keyboard (its devices are pointer); steps that need keys are refused".into(),
                ),
                "Wayland: no RemoteDesktop portal offers a keyboard (its devices are pointer); steps that need keys are refused",
            ),
            (
                Wayland,
                Some(&absent),
                InputRoute::Refused(
                    "Wayland: no RemoteDesktop portal offers a keyboard (org.freedesktop.portal.Desktop is not on the session bus); steps that need keys are refused".into(),
                ),
                "Wayland: no RemoteDesktop portal offers a keyboard (org.freedesktop.portal.Desktop is not on the session bus); steps that need keys are refused",
            ),
        ];
        for (kind, offer, route, fact) in cases {
            let got = choose(*kind, *offer);
            assert_eq!(&got, route, "{kind:?} {offer:?}");
            let f = got.fact();
            assert_eq!(f.detail, *fact);
            assert_eq!(f.ok, !matches!(route, InputRoute::Refused(_)));
        }
        assert!(matches!(choose(NoSession, None), InputRoute::Refused(_)));
    }
}

//! The tray voice session: a StatusNotifierItem showing what Circe is doing, with the
//! microphone toggle and push-to-talk.
//!
//! `circe tray` is a client of the daemon's control socket: it subscribes and derives its state
//! (idle, listening, working, asking) purely from the notifications ([`Seen`] folds them,
//! [`TrayState::from`] decides; both pure and table-tested). It serves
//! `org.kde.StatusNotifierItem` on the session bus (zbus) and registers with
//! `org.kde.StatusNotifierWatcher` whenever one is there (the desktop shell's tray owns it).
//! Activating the item toggles the microphone; the toggle is a `watch` channel
//! ([`Microphone`]) that the tray's microphone task carries out: on opens the daemon's desktop
//! microphone session (the `listen` verb: the daemon's recorder, `parec`/`pw-record`, the same
//! path as `circe listen`), off closes that connection and the daemon stops the recorder (no
//! recorder process, no CPU). A microphone that cannot open turns the switch back off and the
//! item says why ([`TrayView::problem`], `org.circe.Tray1.MicrophoneError`). Push-to-talk
//! uses the GlobalShortcuts portal (`ashpd`) where the desktop offers it and says plainly when
//! it does not. On other platforms `circe tray` reports itself unsupported.

use crate::model::{OperationStatus, Pending};
use crate::protocol::Notification;

/// What the tray shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrayState {
    /// The microphone is off and nothing is happening.
    Idle,
    /// The microphone is on, waiting for speech.
    Listening,
    /// An operation is running.
    Working,
    /// Circe asked something and waits for the answer.
    Asking,
}

impl TrayState {
    pub fn as_str(self) -> &'static str {
        match self {
            TrayState::Idle => "idle",
            TrayState::Listening => "listening",
            TrayState::Working => "working",
            TrayState::Asking => "asking",
        }
    }

    /// The StatusNotifierItem `Status`: `Passive`, `Active` or `NeedsAttention`.
    pub fn sni_status(self) -> &'static str {
        match self {
            TrayState::Idle => "Passive",
            TrayState::Listening | TrayState::Working => "Active",
            TrayState::Asking => "NeedsAttention",
        }
    }

    /// A freedesktop icon name for the state.
    pub fn icon(self) -> &'static str {
        match self {
            TrayState::Idle => "microphone-sensitivity-muted",
            TrayState::Listening => "audio-input-microphone",
            TrayState::Working => "system-run",
            TrayState::Asking => "dialog-question",
        }
    }
}

/// What the notifications said, reduced to what the tray shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Digest {
    /// Whether the daemon's control socket answers.
    pub connected: bool,
    /// The latest operation: its status, what it is for, and its outcome once known.
    pub operation: Option<(OperationStatus, String, Option<String>)>,
    /// The open question or approval of the current interaction.
    pub question: Option<String>,
}

impl From<(&Digest, bool)> for TrayState {
    /// The tray's state from what the daemon said and whether the microphone is on.
    fn from((d, mic_on): (&Digest, bool)) -> TrayState {
        if d.connected {
            if d.question.is_some() {
                return TrayState::Asking;
            }
            match d.operation.as_ref().map(|o| o.0) {
                Some(OperationStatus::NeedsInput) => return TrayState::Asking,
                Some(s) if s.is_active() => return TrayState::Working,
                _ => {}
            }
        }
        if mic_on {
            TrayState::Listening
        } else {
            TrayState::Idle
        }
    }
}

/// Everything the item publishes, derived from the digest and the microphone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrayView {
    pub state: TrayState,
    pub mic_on: bool,
    /// Why the microphone could not be opened (it is off then), if it could not.
    pub problem: Option<String>,
    /// The tooltip's title, e.g. "Circe: working".
    pub title: String,
    /// The tooltip's text: what is being done, asked, or how the last operation ended.
    pub detail: String,
}

/// How an operation ended, in one word.
pub fn ended(status: OperationStatus) -> &'static str {
    match status {
        OperationStatus::Completed => "done",
        OperationStatus::Stopped => "stopped",
        OperationStatus::Blocked => "blocked",
        OperationStatus::OutcomeUnknown => "outcome unknown",
        OperationStatus::NeedsInput => "waiting for an answer",
        OperationStatus::Accepted | OperationStatus::Running | OperationStatus::Verifying => {
            "working"
        }
    }
}

impl TrayView {
    /// The view of what the daemon said, the microphone switch, and why the microphone could
    /// not be opened (`problem`: shown while the switch is off).
    pub fn of(d: &Digest, mic_on: bool, problem: Option<&str>) -> TrayView {
        let state = TrayState::from((d, mic_on));
        let problem = problem.filter(|_| !mic_on).map(str::to_string);
        let mic = match (mic_on, &problem) {
            (true, _) => "mic on",
            (false, Some(_)) => "mic unavailable",
            (false, None) => "mic off",
        };
        let detail = if !d.connected {
            "circe is not running (start it with `circe serve`)".to_string()
        } else {
            match (state, &d.question, &d.operation) {
                (TrayState::Asking, Some(q), _) => q.clone(),
                (TrayState::Idle, _, _) if problem.is_some() => format!(
                    "the microphone could not be opened: {}",
                    problem.as_deref().unwrap_or_default()
                ),
                (_, _, Some((status, what, outcome))) => {
                    let mut s = format!("{}: {what}", ended(*status));
                    if let Some(o) = outcome.as_ref().filter(|_| !status.is_active()) {
                        s = format!("{}: {o}", ended(*status));
                    }
                    s
                }
                _ => "nothing yet".to_string(),
            }
        };
        TrayView {
            state,
            mic_on,
            problem,
            title: format!("Circe: {} ({mic})", state.as_str()),
            detail,
        }
    }
}

/// The daemon's notifications folded into the current interaction and operation.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    connected: bool,
    interaction: Option<crate::model::Interaction>,
    operation: Option<crate::model::Operation>,
    /// Every followed operation, folded from the step and status events.
    fold: crate::protocol::OperationFold,
}

impl Seen {
    pub fn apply(&mut self, n: Notification) {
        self.connected = true;
        self.fold.apply(&n);
        match n {
            Notification::Snapshot { state } => {
                let state = *state;
                self.interaction = state.interaction;
                self.operation = state
                    .operation
                    .or_else(|| state.operations.into_iter().next());
            }
            Notification::Interaction { interaction } => {
                let newer = match &self.interaction {
                    Some(i) if i.id == interaction.id => interaction.revision >= i.revision,
                    Some(i) => interaction.created_at >= i.created_at,
                    None => true,
                };
                if newer {
                    self.interaction = Some(interaction);
                }
            }
            Notification::Operation { operation } => {
                let newer = match &self.operation {
                    Some(o) if o.id == operation.id => operation.updated_at >= o.updated_at,
                    Some(o) => !o.status.is_active() || operation.accepted_at >= o.accepted_at,
                    None => true,
                };
                if newer {
                    self.operation = Some(operation);
                }
            }
            Notification::StepStarted { .. }
            | Notification::StepEnded { .. }
            | Notification::OperationStatus { .. } => {
                // The shown operation as the events left it (unchanged after a gap, until the
                // next snapshot).
                if let Some(now) = self.operation.as_ref().and_then(|o| self.fold.get(o.id)) {
                    self.operation = Some(now.clone());
                }
            }
            Notification::Node { .. } => {}
        }
    }

    /// The control socket went away: nothing it said is current any more.
    pub fn disconnected(&mut self) {
        *self = Seen::default();
    }

    pub fn digest(&self) -> Digest {
        let question = self
            .interaction
            .as_ref()
            .filter(|i| !i.closed)
            .and_then(|i| match &i.pending {
                Pending::None => None,
                Pending::Question(q) => Some(q.prompt.clone()),
                Pending::Approval(a) => Some(a.prompt.clone()),
            });
        Digest {
            connected: self.connected,
            operation: self.operation.as_ref().map(|o| {
                (
                    o.status,
                    o.expected_outcome.clone(),
                    o.outcome.as_ref().map(|x| x.summary.clone()),
                )
            }),
            question,
        }
    }
}

/// The microphone switch: `true` means the microphone should be open.
pub type Microphone = tokio::sync::watch::Receiver<bool>;

/// What `circe tray` says about push-to-talk when the desktop has no GlobalShortcuts portal.
pub const NO_PORTAL: &str = "push-to-talk unsupported here: no GlobalShortcuts portal";

/// `circe tray` on a platform without a session bus.
#[cfg(not(target_os = "linux"))]
pub async fn run(
    _socket: &std::path::Path,
    _mic_on: bool,
    _mic: tokio::sync::watch::Sender<bool>,
) -> anyhow::Result<()> {
    anyhow::bail!("circe tray is unsupported on this platform: it needs a Linux desktop's D-Bus session bus (StatusNotifierItem)")
}

#[cfg(target_os = "linux")]
pub use linux::run;

#[cfg(target_os = "linux")]
mod linux {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    use tokio::sync::watch;
    use zbus::object_server::SignalEmitter;

    const ITEM_PATH: &str = "/StatusNotifierItem";
    const WATCHER: &str = "org.kde.StatusNotifierWatcher";
    const PORTAL: &str = "org.freedesktop.portal.Desktop";

    fn say(line: &str) {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    struct Item {
        view: Arc<Mutex<TrayView>>,
        mic: watch::Sender<bool>,
    }

    impl Item {
        fn view(&self) -> TrayView {
            self.view.lock().unwrap_or_else(|p| p.into_inner()).clone()
        }
    }

    type Pixmap = Vec<(i32, i32, Vec<u8>)>;

    /// The tray's own interface on the same object: the microphone switch and the state, for a
    /// voice session in another process (and for scripts: `busctl --user set-property …`).
    struct Control {
        view: Arc<Mutex<TrayView>>,
        mic: watch::Sender<bool>,
    }

    #[zbus::interface(name = "org.circe.Tray1")]
    impl Control {
        /// Whether the microphone may be open.
        #[zbus(property)]
        fn microphone(&self) -> bool {
            *self.mic.borrow()
        }
        #[zbus(property)]
        fn set_microphone(&mut self, on: bool) {
            self.mic.send_replace(on);
        }
        /// Why the microphone could not be opened ("" when it could, or was not asked to).
        #[zbus(property)]
        fn microphone_error(&self) -> String {
            self.view
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .problem
                .clone()
                .unwrap_or_default()
        }
        /// idle, listening, working or asking.
        #[zbus(property)]
        fn state(&self) -> String {
            self.view
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .state
                .as_str()
                .to_string()
        }
    }

    #[zbus::interface(name = "org.kde.StatusNotifierItem")]
    impl Item {
        #[zbus(property)]
        fn category(&self) -> &str {
            "ApplicationStatus"
        }
        #[zbus(property)]
        fn id(&self) -> &str {
            "circe"
        }
        #[zbus(property)]
        fn title(&self) -> String {
            self.view().title
        }
        #[zbus(property)]
        fn status(&self) -> &str {
            self.view().state.sni_status()
        }
        #[zbus(property)]
        fn window_id(&self) -> i32 {
            0
        }
        #[zbus(property)]
        fn icon_name(&self) -> &str {
            self.view().state.icon()
        }
        #[zbus(property)]
        fn icon_pixmap(&self) -> Pixmap {
            Vec::new()
        }
        #[zbus(property)]
        fn attention_icon_name(&self) -> &str {
            TrayState::Asking.icon()
        }
        #[zbus(property)]
        fn tool_tip(&self) -> (String, Pixmap, String, String) {
            let v = self.view();
            (v.state.icon().to_string(), Vec::new(), v.title, v.detail)
        }
        #[zbus(property)]
        fn item_is_menu(&self) -> bool {
            false
        }
        /// Activate (a click) toggles the microphone.
        async fn activate(&self, _x: i32, _y: i32) {
            self.mic.send_modify(|on| *on = !*on);
        }
        async fn secondary_activate(&self, _x: i32, _y: i32) {
            self.mic.send_modify(|on| *on = !*on);
        }
        async fn context_menu(&self, _x: i32, _y: i32) {}
        async fn scroll(&self, _delta: i32, _orientation: &str) {}

        #[zbus(signal)]
        async fn new_title(e: &SignalEmitter<'_>) -> zbus::Result<()>;
        #[zbus(signal)]
        async fn new_icon(e: &SignalEmitter<'_>) -> zbus::Result<()>;
        #[zbus(signal)]
        async fn new_tool_tip(e: &SignalEmitter<'_>) -> zbus::Result<()>;
        #[zbus(signal)]
        async fn new_status(e: &SignalEmitter<'_>, status: &str) -> zbus::Result<()>;
    }

    /// Serve the item until the process is stopped.
    pub async fn run(socket: &Path, mic_on: bool, mic: watch::Sender<bool>) -> anyhow::Result<()> {
        mic.send_replace(mic_on);
        let view = Arc::new(Mutex::new(TrayView::of(&Digest::default(), mic_on, None)));
        let name = format!("org.kde.StatusNotifierItem-{}-1", std::process::id());
        let conn = zbus::connection::Builder::session()
            .map_err(|e| anyhow::anyhow!("no D-Bus session bus ({e}): circe tray needs a desktop session (DBUS_SESSION_BUS_ADDRESS)"))?
            .name(name.as_str())?
            .serve_at(
                ITEM_PATH,
                Item {
                    view: view.clone(),
                    mic: mic.clone(),
                },
            )?
            .serve_at(
                ITEM_PATH,
                Control {
                    view: view.clone(),
                    mic: mic.clone(),
                },
            )?
            .build()
            .await
            .map_err(|e| anyhow::anyhow!("the D-Bus session bus refused the tray item: {e}"))?;
        say(&format!("tray: serving {name} at {ITEM_PATH}"));

        tokio::spawn(register(conn.clone(), name.clone()));
        tokio::spawn(push_to_talk(mic.clone()));
        let (problem_tx, problem_rx) = watch::channel(None);
        tokio::spawn(microphone(socket.to_path_buf(), mic.clone(), problem_tx));

        let (digest_tx, digest_rx) = watch::channel(Digest::default());
        tokio::spawn(follow(socket.to_path_buf(), digest_tx));
        publish(conn, view, digest_rx, mic.subscribe(), problem_rx).await
    }

    /// The microphone switch, carried out: on opens the daemon's desktop microphone session
    /// (`listen`: its recorder, the same path as `circe listen`, heard by the recogniser the
    /// daemon chose); off drops that connection, and the daemon stops the recorder. When the
    /// microphone cannot be opened, or its session ends, the switch goes back off and `problem`
    /// says why.
    async fn microphone(
        socket: PathBuf,
        mic: watch::Sender<bool>,
        problem: watch::Sender<Option<String>>,
    ) {
        let mut wanted = mic.subscribe();
        loop {
            while !*wanted.borrow_and_update() {
                if wanted.changed().await.is_err() {
                    return;
                }
            }
            problem.send_replace(None);
            let ended = tokio::select! {
                why = listen(&socket) => Some(why),
                () = until_off(&mut wanted) => None,
            };
            // Leaving `listen` closed its connection: the daemon stops its recorder.
            match ended {
                Some(why) => {
                    say(&format!("tray: microphone unavailable: {why}"));
                    problem.send_replace(Some(why));
                    mic.send_replace(false);
                }
                None => say("tray: microphone closed"),
            }
        }
    }

    async fn until_off(wanted: &mut watch::Receiver<bool>) {
        loop {
            if wanted.changed().await.is_err() {
                // The switch is gone with the tray: keep the session until the process ends.
                std::future::pending::<()>().await;
            }
            if !*wanted.borrow_and_update() {
                return;
            }
        }
    }

    /// One desktop microphone session; returns why it ended (it runs until dropped otherwise).
    async fn listen(socket: &Path) -> String {
        let mut client = match crate::client::Client::connect(socket).await {
            Ok(c) => c,
            Err(e) => return e.to_string(),
        };
        let verb = crate::protocol::VoiceVerb::Listen {
            from: None,
            quiet: false,
        };
        if let Err(e) = client.call_voice(verb).await {
            return e.to_string();
        }
        say("tray: microphone open");
        loop {
            let line = match client.line().await {
                Ok(l) => l,
                Err(e) => return format!("the microphone session was lost: {e}"),
            };
            let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            match v["event"].as_str() {
                Some("heard") => say(&format!(
                    "tray: heard {} ({})",
                    v["hearing"]["recognized"],
                    v["hearing"]["outcome"]["kind"].as_str().unwrap_or("?")
                )),
                Some("ended") => {
                    return v["error"]
                        .as_str()
                        .unwrap_or("the microphone session ended")
                        .to_string()
                }
                _ => {}
            }
        }
    }

    /// Follow the daemon's notifications for as long as the tray runs, reconnecting.
    async fn follow(socket: PathBuf, out: watch::Sender<Digest>) {
        let mut seen = Seen::default();
        let mut said_down = false;
        loop {
            match crate::client::Client::connect(&socket).await {
                Ok(c) => match c.subscribe().await {
                    Ok(mut sub) => {
                        said_down = false;
                        while let Ok(n) = sub.next().await {
                            seen.apply(n);
                            out.send_replace(seen.digest());
                        }
                    }
                    Err(e) => say(&format!("tray: subscribing failed: {e}")),
                },
                Err(e) if !said_down => {
                    say(&format!("tray: {e}"));
                    said_down = true;
                }
                Err(_) => {}
            }
            seen.disconnected();
            out.send_replace(seen.digest());
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Recompute the view on every change and tell the tray what changed.
    async fn publish(
        conn: zbus::Connection,
        view: Arc<Mutex<TrayView>>,
        mut digest: watch::Receiver<Digest>,
        mut mic: watch::Receiver<bool>,
        mut problem: watch::Receiver<Option<String>>,
    ) -> anyhow::Result<()> {
        let iface = conn.object_server().interface::<_, Item>(ITEM_PATH).await?;
        let control = conn
            .object_server()
            .interface::<_, Control>(ITEM_PATH)
            .await?;
        loop {
            let next = TrayView::of(
                &digest.borrow_and_update(),
                *mic.borrow_and_update(),
                problem.borrow_and_update().as_deref(),
            );
            let old = std::mem::replace(
                &mut *view.lock().unwrap_or_else(|p| p.into_inner()),
                next.clone(),
            );
            if old != next {
                say(&format!(
                    "tray: {} | {} | {}",
                    next.state.as_str(),
                    next.title,
                    next.detail
                ));
                let e = iface.signal_emitter();
                let item = iface.get().await;
                let _ = Item::new_title(e).await;
                let _ = Item::new_tool_tip(e).await;
                let _ = item.title_changed(e).await;
                let _ = item.tool_tip_changed(e).await;
                let c = control.get().await;
                if old.mic_on != next.mic_on {
                    let _ = c.microphone_changed(control.signal_emitter()).await;
                }
                if old.problem != next.problem {
                    let _ = c.microphone_error_changed(control.signal_emitter()).await;
                }
                if old.state != next.state {
                    let _ = c.state_changed(control.signal_emitter()).await;
                    let _ = Item::new_icon(e).await;
                    let _ = Item::new_status(e, next.state.sni_status()).await;
                    let _ = item.icon_name_changed(e).await;
                    let _ = item.status_changed(e).await;
                }
            }
            tokio::select! {
                r = digest.changed() => r?,
                r = mic.changed() => r?,
                r = problem.changed() => r?,
            }
        }
    }

    /// Register with the StatusNotifierWatcher now and whenever a new one appears.
    async fn register(conn: zbus::Connection, name: String) {
        let dbus = match zbus::fdo::DBusProxy::new(&conn).await {
            Ok(d) => d,
            Err(e) => return say(&format!("tray: the bus driver did not answer: {e}")),
        };
        let mut owners = match dbus
            .receive_name_owner_changed_with_args(&[(0, WATCHER)])
            .await
        {
            Ok(s) => s,
            Err(e) => return say(&format!("tray: cannot watch for a tray: {e}")),
        };
        let mut said_missing = false;
        loop {
            let call = conn
                .call_method(
                    Some(WATCHER),
                    "/StatusNotifierWatcher",
                    Some(WATCHER),
                    "RegisterStatusNotifierItem",
                    &(name.as_str(),),
                )
                .await;
            match call {
                Ok(_) => say(&format!("tray: registered {name} with {WATCHER}")),
                Err(e) if !said_missing => {
                    said_missing = true;
                    say(&format!(
                        "tray: no {WATCHER} on the session bus ({e}); the item is served and registers when a tray appears"
                    ));
                }
                Err(_) => {}
            }
            // Wait for the watcher to (re)appear.
            loop {
                use futures_util::StreamExt as _;
                let Some(change) = owners.next().await else {
                    return;
                };
                if change.args().ok().is_some_and(|a| a.new_owner().is_some()) {
                    break;
                }
            }
        }
    }

    /// Hold-to-talk through the GlobalShortcuts portal, when the desktop offers one.
    async fn push_to_talk(mic: watch::Sender<bool>) {
        match bind_shortcut(mic).await {
            Ok(()) => {}
            Err(reason) => say(&reason),
        }
    }

    async fn bind_shortcut(mic: watch::Sender<bool>) -> Result<(), String> {
        use ashpd::desktop::global_shortcuts::{GlobalShortcuts, NewShortcut};
        use futures_util::StreamExt as _;
        // ashpd reads the portal's version leniently (a missing service looks like version 1),
        // so ask the bus first whether any portal is there at all.
        let conn = zbus::Connection::session()
            .await
            .map_err(|e| format!("{NO_PORTAL} (no session bus: {e})"))?;
        let dbus = zbus::fdo::DBusProxy::new(&conn)
            .await
            .map_err(|e| format!("{NO_PORTAL} ({e})"))?;
        let portal = zbus::names::BusName::try_from(PORTAL).expect("a valid bus name");
        let running = dbus.name_has_owner(portal.clone()).await.unwrap_or(false);
        let activatable = dbus
            .list_activatable_names()
            .await
            .map(|names| names.iter().any(|n| n.as_str() == PORTAL))
            .unwrap_or(false);
        if !running && !activatable {
            return Err(NO_PORTAL.to_string());
        }
        let shortcuts = GlobalShortcuts::new()
            .await
            .map_err(|e| format!("{NO_PORTAL} ({e})"))?;
        let session = shortcuts
            .create_session()
            .await
            .map_err(|e| format!("{NO_PORTAL} (the portal refused a session: {e})"))?;
        let wanted = [NewShortcut::new("push-to-talk", "Hold to talk to Circe")
            .preferred_trigger(Some("CTRL+ALT+space"))];
        shortcuts
            .bind_shortcuts(&session, &wanted, None)
            .await
            .and_then(|r| r.response())
            .map_err(|e| format!("push-to-talk unavailable: the portal did not bind it: {e}"))?;
        let mut down = shortcuts
            .receive_activated()
            .await
            .map_err(|e| format!("push-to-talk unavailable: {e}"))?;
        let mut up = shortcuts
            .receive_deactivated()
            .await
            .map_err(|e| format!("push-to-talk unavailable: {e}"))?;
        say("tray: push-to-talk bound through the GlobalShortcuts portal");
        let mut before = *mic.borrow();
        loop {
            tokio::select! {
                Some(a) = down.next() => if a.shortcut_id() == "push-to-talk" {
                    before = *mic.borrow();
                    mic.send_replace(true);
                },
                Some(d) = up.next() => if d.shortcut_id() == "push-to-talk" {
                    mic.send_replace(before);
                },
                else => return Err("push-to-talk stopped: the portal went away".into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use OperationStatus::*;

    fn digest(op: Option<OperationStatus>, question: Option<&str>) -> Digest {
        Digest {
            connected: true,
            operation: op.map(|s| {
                (
                    s,
                    "the weather in Pune".to_string(),
                    (!s.is_active()).then(|| "23 °C in Pune".to_string()),
                )
            }),
            question: question.map(str::to_string),
        }
    }

    #[test]
    fn the_state_follows_the_operation_and_the_microphone() {
        type Case = (
            Option<OperationStatus>,
            Option<&'static str>,
            bool,
            TrayState,
        );
        let cases: &[Case] = &[
            (None, None, false, TrayState::Idle),
            (None, None, true, TrayState::Listening),
            (Some(Accepted), None, false, TrayState::Working),
            (Some(Running), None, true, TrayState::Working),
            (Some(Verifying), None, true, TrayState::Working),
            (Some(NeedsInput), None, true, TrayState::Asking),
            (None, Some("Which city?"), false, TrayState::Asking),
            (Some(Running), Some("Which city?"), true, TrayState::Asking),
            (Some(Completed), None, true, TrayState::Listening),
            (Some(Completed), None, false, TrayState::Idle),
            (Some(Stopped), None, false, TrayState::Idle),
            (Some(Blocked), None, true, TrayState::Listening),
            (Some(OutcomeUnknown), None, true, TrayState::Listening),
        ];
        for (op, q, mic, want) in cases {
            assert_eq!(
                TrayState::from((&digest(*op, *q), *mic)),
                *want,
                "{op:?} {q:?} mic {mic}"
            );
        }
        // Nothing the daemon said holds while it is unreachable.
        let mut d = digest(Some(Running), Some("Which city?"));
        d.connected = false;
        assert_eq!(TrayState::from((&d, true)), TrayState::Listening);
        assert_eq!(TrayState::from((&d, false)), TrayState::Idle);
    }

    #[test]
    fn each_state_has_its_status_and_icon() {
        for (s, status, name) in [
            (TrayState::Idle, "Passive", "idle"),
            (TrayState::Listening, "Active", "listening"),
            (TrayState::Working, "Active", "working"),
            (TrayState::Asking, "NeedsAttention", "asking"),
        ] {
            assert_eq!(s.sni_status(), status);
            assert_eq!(s.as_str(), name);
            assert!(!s.icon().is_empty());
        }
    }

    #[test]
    fn the_tooltip_says_what_is_done_asked_or_how_it_ended() {
        type Case = (
            Option<OperationStatus>,
            Option<&'static str>,
            bool,
            &'static str,
            &'static str,
        );
        let cases: &[Case] = &[
            (
                Some(Running),
                None,
                true,
                "Circe: working (mic on)",
                "working: the weather in Pune",
            ),
            (
                Some(Completed),
                None,
                true,
                "Circe: listening (mic on)",
                "done: 23 °C in Pune",
            ),
            (
                Some(Stopped),
                None,
                false,
                "Circe: idle (mic off)",
                "stopped: 23 °C in Pune",
            ),
            (
                None,
                Some("Which city?"),
                false,
                "Circe: asking (mic off)",
                "Which city?",
            ),
            (None, None, false, "Circe: idle (mic off)", "nothing yet"),
        ];
        for (op, q, mic, title, detail) in cases {
            let v = TrayView::of(&digest(*op, *q), *mic, None);
            assert_eq!((v.title.as_str(), v.detail.as_str()), (*title, *detail));
        }
        let v = TrayView::of(&Digest::default(), false, None);
        assert!(v.detail.contains("not running"), "{v:?}");
    }

    #[test]
    fn a_microphone_that_could_not_open_says_why_while_off() {
        let why =
            "the microphone could not be read: parec ended (exit status: 1): Connection refused";
        // (operation, question, mic on, title, detail, problem shown)
        type Case = (
            Option<OperationStatus>,
            Option<&'static str>,
            bool,
            &'static str,
            String,
            bool,
        );
        let cases: Vec<Case> = vec![
            (
                None,
                None,
                false,
                "Circe: idle (mic unavailable)",
                format!("the microphone could not be opened: {why}"),
                true,
            ),
            // Done, and the microphone failed since: the failure is what matters now.
            (
                Some(Completed),
                None,
                false,
                "Circe: idle (mic unavailable)",
                format!("the microphone could not be opened: {why}"),
                true,
            ),
            // Working or asking: that comes first; the title still says the mic is unavailable.
            (
                Some(Running),
                None,
                false,
                "Circe: working (mic unavailable)",
                "working: the weather in Pune".into(),
                true,
            ),
            (
                None,
                Some("Which city?"),
                false,
                "Circe: asking (mic unavailable)",
                "Which city?".into(),
                true,
            ),
            // Switched on again: the old problem is not shown.
            (
                None,
                None,
                true,
                "Circe: listening (mic on)",
                "nothing yet".into(),
                false,
            ),
        ];
        for (op, q, mic, title, detail, shown) in cases {
            let v = TrayView::of(&digest(op, q), mic, Some(why));
            assert_eq!(
                (v.title.as_str(), v.detail.as_str()),
                (title, detail.as_str())
            );
            assert_eq!(v.problem.is_some(), shown, "{v:?}");
        }
    }

    fn op(id: u128, status: OperationStatus, accepted_at: u64, updated_at: u64) -> Notification {
        Notification::Operation {
            operation: crate::model::Operation {
                id: uuid::Uuid::from_u128(id),
                interaction: uuid::Uuid::from_u128(99),
                interaction_revision: 1,
                target: crate::model::Target::Unresolved,
                authorized_scope: Vec::new(),
                goal: crate::model::Goal::Weather,
                arguments: Default::default(),
                mode: crate::model::InputMode::Voice,
                heard: Vec::new(),
                expected_outcome: format!("op {id}"),
                status,
                steps: Vec::new(),
                stop: None,
                outcome: None,
                accepted_at,
                updated_at,
                revision: updated_at,
            },
        }
    }

    #[test]
    fn operation_notifications_fold_to_the_latest() {
        // (notifications in arrival order, the operation and status the tray shows after them)
        type Case = (Vec<Notification>, Option<(&'static str, OperationStatus)>);
        let cases: Vec<Case> = vec![
            (vec![], None),
            (vec![op(1, Running, 10, 10)], Some(("op 1", Running))),
            (
                vec![op(1, Running, 10, 10), op(1, Completed, 10, 20)],
                Some(("op 1", Completed)),
            ),
            // A late, older update of the same operation changes nothing.
            (
                vec![op(1, Completed, 10, 20), op(1, Running, 10, 15)],
                Some(("op 1", Completed)),
            ),
            // A newer operation replaces a finished one.
            (
                vec![op(1, Completed, 10, 20), op(2, Accepted, 30, 30)],
                Some(("op 2", Accepted)),
            ),
            // An older operation's late news does not hide the running one.
            (
                vec![op(2, Running, 30, 30), op(1, Stopped, 10, 40)],
                Some(("op 2", Running)),
            ),
        ];
        for (notifications, want) in cases {
            let mut seen = Seen::default();
            for n in notifications {
                seen.apply(n);
            }
            let got = seen.digest().operation;
            assert_eq!(
                got.as_ref().map(|(s, what, _)| (what.as_str(), *s)),
                want,
                "{got:?}"
            );
        }
    }

    #[test]
    fn a_snapshot_then_changes_are_folded() {
        let mut seen = Seen::default();
        assert!(!seen.digest().connected);
        let snapshot: Notification = serde_json::from_value(serde_json::json!({
            "event": "snapshot",
            "state": {"node": "n", "interaction": null, "operation": null, "operations": []}
        }))
        .unwrap();
        seen.apply(snapshot);
        assert_eq!(
            seen.digest(),
            Digest {
                connected: true,
                operation: None,
                question: None
            }
        );
        seen.disconnected();
        assert!(!seen.digest().connected);
    }
}

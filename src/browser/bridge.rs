//! The daemon's side of the Chrome connector: `browser.sock`, where native hosts connect.
//!
//! A host must be this user's (peer uid), present the per-install secret and name the bundled
//! extension's origin in its first frame, within 5 s; otherwise it is dropped. After that, frames
//! are commands (daemon → extension, each awaiting one reply by id), replies, and events.
//! Architecture invariant: a command never outlives its connection: when the connection drops,
//! every pending command fails with `Disconnected` (an action's effect is then unknown).

use super::framing::{read_frame, write_frame, Order, FROM_CHROME_MAX, TO_CHROME_MAX};
use super::lifecycle::{Lifecycle, TabEvent, TabHandle, TabProblem};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot, watch};

/// The bundled extension's id, derived from the `key` in chrome-extension/manifest.json.
pub const EXTENSION_ID: &str = "dhnfkefodfmddfnkfkkbeilnaiafageh";
/// The native-messaging host name the extension connects to.
pub const HOST_NAME: &str = "com.circe.connector";

const AUTH_DEADLINE: Duration = Duration::from_secs(5);
/// The daemon's answer to a host that authenticated.
const ACCEPTED: &[u8] = br#"{"type":"accepted"}"#;

/// The Chrome profile a connector serves, as the extension introduced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub id: String,
    pub label: String,
}

/// What `circe doctor` and the state show about the connector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorInfo {
    pub connected: bool,
    pub generation: u64,
    pub profile: Option<Profile>,
    pub extension_version: Option<String>,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BridgeError {
    #[error(
        "no Chrome connector is connected (run `circe install-browser`, then open Chrome with the Circe extension)"
    )]
    NotConnected,
    #[error("the Chrome connector disconnected before answering")]
    Disconnected,
    #[error("the Chrome connector did not answer {cmd} within {ms} ms")]
    Timeout { cmd: String, ms: u64 },
    #[error("the command is {size} bytes; frames toward Chrome are capped at {max}")]
    TooLarge { size: usize, max: usize },
    #[error("{code}: {message}")]
    Remote {
        code: String,
        message: String,
        observation: Option<serde_json::Value>,
    },
    #[error("{0}")]
    Tab(#[from] TabProblem),
}

type Waiter = oneshot::Sender<Result<serde_json::Value, BridgeError>>;

struct Link {
    connection: u64,
    out: mpsc::Sender<Vec<u8>>,
    pending: HashMap<u64, Waiter>,
}

#[derive(Default)]
struct Inner {
    link: Option<Link>,
    lifecycle: Lifecycle,
    info: Option<ConnectorInfo>,
}

pub struct Bridge {
    secret: String,
    inner: Mutex<Inner>,
    next_id: AtomicU64,
    next_connection: AtomicU64,
    /// Bumped on every change a waiter may care about (hello, disconnect, tab events).
    changed: watch::Sender<u64>,
}

#[derive(Deserialize)]
struct Auth {
    #[serde(rename = "type")]
    kind: String,
    secret: String,
    origin: String,
}

impl Bridge {
    pub fn new(secret: String) -> Arc<Bridge> {
        Arc::new(Bridge {
            secret,
            inner: Mutex::default(),
            next_id: AtomicU64::new(1),
            next_connection: AtomicU64::new(1),
            changed: watch::channel(0).0,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    pub fn info(&self) -> ConnectorInfo {
        let inner = self.lock();
        inner.info.clone().unwrap_or(ConnectorInfo {
            connected: false,
            generation: inner.lifecycle.generation(),
            profile: None,
            extension_version: None,
        })
    }

    /// Wait until a connector has said hello (for tests and for `doctor`).
    pub async fn wait_connected(&self, within: Duration) -> bool {
        let mut rx = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if self.lock().info.as_ref().is_some_and(|i| i.connected) {
                return true;
            }
            if tokio::time::timeout_at(deadline, rx.changed())
                .await
                .is_err()
            {
                return false;
            }
        }
    }

    pub fn tab_handle(&self, tab: i64) -> TabHandle {
        self.lock().lifecycle.handle(tab)
    }

    pub fn check(&self, handle: &TabHandle) -> Result<(), TabProblem> {
        self.lock().lifecycle.check(handle)
    }

    /// Send one command and wait for its reply.
    pub async fn command(
        &self,
        cmd: &str,
        args: serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, BridgeError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let frame = serde_json::to_vec(
            &serde_json::json!({ "type": "command", "id": id, "cmd": cmd, "args": args }),
        )
        .expect("commands serialize");
        if frame.len() > TO_CHROME_MAX {
            return Err(BridgeError::TooLarge {
                size: frame.len(),
                max: TO_CHROME_MAX,
            });
        }
        let (tx, rx) = oneshot::channel();
        let out = {
            let mut inner = self.lock();
            let link = inner.link.as_mut().ok_or(BridgeError::NotConnected)?;
            link.pending.insert(id, tx);
            link.out.clone()
        };
        if out.send(frame).await.is_err() {
            return Err(BridgeError::Disconnected);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(BridgeError::Disconnected),
            Err(_) => {
                if let Some(link) = self.lock().link.as_mut() {
                    link.pending.remove(&id);
                }
                Err(BridgeError::Timeout {
                    cmd: cmd.to_string(),
                    ms: timeout.as_millis() as u64,
                })
            }
        }
    }

    /// Accept native hosts until the listener fails.
    pub async fn serve(self: Arc<Bridge>, listener: UnixListener) {
        let me = unsafe { libc::geteuid() };
        let mut pause = crate::accept::Pause::new("browser");
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => {
                    pause.accepted();
                    stream
                }
                Err(e) => {
                    pause.failed(&e).await;
                    continue;
                }
            };
            if !stream.peer_cred().is_ok_and(|c| c.uid() == me) {
                tracing::warn!("refused a browser connection from another user");
                continue;
            }
            tokio::spawn(self.clone().connection(stream));
        }
    }

    async fn connection(self: Arc<Bridge>, mut stream: UnixStream) {
        let auth = tokio::time::timeout(
            AUTH_DEADLINE,
            read_frame(&mut stream, 64 * 1024, Order::Little),
        )
        .await;
        let auth: Option<Auth> = match auth {
            Ok(Ok(Some(frame))) => serde_json::from_slice(&frame).ok(),
            _ => None,
        };
        let expected_origin = format!("chrome-extension://{EXTENSION_ID}/");
        match auth {
            Some(a)
                if a.kind == "auth"
                    && constant_time_eq(a.secret.as_bytes(), self.secret.as_bytes())
                    && a.origin == expected_origin => {}
            Some(a) if a.kind == "auth" && a.origin != expected_origin => {
                tracing::warn!(origin = %a.origin, "refused a native host for another extension");
                return;
            }
            _ => {
                tracing::warn!("refused a native host that did not authenticate");
                return;
            }
        }
        // The host tells the extension "connected" only after this.
        if write_frame(&mut stream, ACCEPTED, 64, Order::Little)
            .await
            .is_err()
        {
            return;
        }
        let connection = self.next_connection.fetch_add(1, Ordering::SeqCst);
        let (out, mut frames) = mpsc::channel::<Vec<u8>>(64);
        {
            let mut inner = self.lock();
            if let Some(old) = inner.link.take() {
                fail_all(old.pending);
            }
            inner.link = Some(Link {
                connection,
                out,
                pending: HashMap::new(),
            });
            inner.lifecycle.disconnected();
            inner.info = None;
        }
        tracing::info!(connection, "a Chrome connector connected");
        let (mut r, mut w) = stream.into_split();
        let writer = tokio::spawn(async move {
            while let Some(frame) = frames.recv().await {
                if write_frame(&mut w, &frame, TO_CHROME_MAX, Order::Little)
                    .await
                    .is_err()
                {
                    return;
                }
            }
        });
        loop {
            match read_frame(&mut r, FROM_CHROME_MAX, Order::Little).await {
                Ok(Some(frame)) => self.receive(connection, &frame),
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "bad frame from the Chrome connector; dropping it");
                    break;
                }
            }
        }
        writer.abort();
        let mut inner = self.lock();
        if inner
            .link
            .as_ref()
            .is_some_and(|l| l.connection == connection)
        {
            if let Some(link) = inner.link.take() {
                fail_all(link.pending);
            }
            inner.lifecycle.disconnected();
            if let Some(info) = inner.info.as_mut() {
                info.connected = false;
            }
            drop(inner);
            self.bump();
            tracing::info!(connection, "the Chrome connector disconnected");
        }
    }

    fn receive(&self, connection: u64, frame: &[u8]) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(frame) else {
            tracing::warn!("unreadable frame from the Chrome connector");
            return;
        };
        let mut inner = self.lock();
        if inner
            .link
            .as_ref()
            .is_none_or(|l| l.connection != connection)
        {
            return;
        }
        match v.get("type").and_then(|t| t.as_str()) {
            Some("hello") => {
                let generation = inner.lifecycle.connected();
                let profile = v
                    .get("profile")
                    .and_then(|p| serde_json::from_value::<Profile>(p.clone()).ok());
                inner.info = Some(ConnectorInfo {
                    connected: true,
                    generation,
                    profile,
                    extension_version: v
                        .get("extensionVersion")
                        .and_then(|s| s.as_str())
                        .map(String::from),
                });
                // Commands sent to the previous generation can no longer be answered meaningfully.
                if let Some(link) = inner.link.as_mut() {
                    fail_all(std::mem::take(&mut link.pending));
                }
                drop(inner);
                self.bump();
            }
            Some("reply") => {
                let Some(id) = v.get("id").and_then(|i| i.as_u64()) else {
                    return;
                };
                let waiter = inner.link.as_mut().and_then(|l| l.pending.remove(&id));
                drop(inner);
                let Some(waiter) = waiter else { return };
                let result = if v.get("ok").and_then(|o| o.as_bool()) == Some(true) {
                    Ok(v.get("result").cloned().unwrap_or(serde_json::Value::Null))
                } else {
                    let e = v.get("error").cloned().unwrap_or_default();
                    Err(BridgeError::Remote {
                        code: e
                            .get("code")
                            .and_then(|c| c.as_str())
                            .unwrap_or("error")
                            .to_string(),
                        message: e
                            .get("message")
                            .and_then(|c| c.as_str())
                            .unwrap_or("")
                            .to_string(),
                        observation: e.get("observation").cloned(),
                    })
                };
                let _ = waiter.send(result);
            }
            Some("event") => {
                if let Some(event) = tab_event(&v) {
                    inner.lifecycle.apply(&event);
                    drop(inner);
                    self.bump();
                }
            }
            _ => {}
        }
    }
}

fn tab_event(v: &serde_json::Value) -> Option<TabEvent> {
    let tab = v.get("tabId")?.as_i64()?;
    let text = |k: &str| v.get(k).and_then(|s| s.as_str()).unwrap_or("").to_string();
    Some(match v.get("event")?.as_str()? {
        "tabRemoved" => TabEvent::Removed { tab },
        "navigated" => TabEvent::Navigated {
            tab,
            url: text("url"),
        },
        "debuggerDetached" => TabEvent::DebuggerDetached {
            tab,
            reason: text("reason"),
        },
        "tabActivated" => TabEvent::Activated { tab },
        _ => return None,
    })
}

fn fail_all(pending: HashMap<u64, Waiter>) {
    for (_, w) in pending {
        let _ = w.send(Err(BridgeError::Disconnected));
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Bind `browser.sock` (0600 in the 0700 runtime dir).
pub fn bind(path: &Path) -> std::io::Result<UnixListener> {
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// The per-install secret native hosts present; created (0600) on first use.
pub fn load_or_create_secret(path: &Path) -> std::io::Result<String> {
    match std::fs::read_to_string(path) {
        Ok(s) if s.trim().len() >= 32 => return Ok(s.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut bytes = [0u8; 32];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut bytes)?;
    let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    std::io::Write::write_all(&mut f, secret.as_bytes())?;
    Ok(secret)
}

use std::os::unix::fs::OpenOptionsExt;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_in_constant_time_shape() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }

    #[test]
    fn events_map_to_tab_events() {
        let v = serde_json::json!({"type": "event", "event": "debuggerDetached", "tabId": 4, "reason": "canceled_by_user"});
        assert_eq!(
            tab_event(&v),
            Some(TabEvent::DebuggerDetached {
                tab: 4,
                reason: "canceled_by_user".into()
            })
        );
        assert_eq!(
            tab_event(&serde_json::json!({"event": "weird", "tabId": 1})),
            None
        );
    }
}

//! The local control API: newline-delimited JSON over a Unix socket that only this user can open.
//!
//! The socket lives in a 0700 directory and is itself 0600; every connection's peer uid is also
//! checked. Lines are capped (`max_message_bytes`); a longer one gets an error and the connection
//! is closed. Submits are queued in the order they arrive; every other verb runs at once, so a
//! stop is never behind a submit, even on the same connection.

use super::engine::Engine;
use crate::mesh::{peer::Link, Mesh};
use crate::protocol::{
    AdminRequest, AnyRequest, ApiError, ErrorCode, Notification, Reply, ReplyBody, Request,
    RequestLine, Verb, MAX_EVENT_BYTES, MAX_REPLY_BYTES,
};
use crate::voice::session::VoiceSession;
use futures_util::StreamExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{broadcast, mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, Decoder, FramedRead};

#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error("another circe is already serving on {0}")]
    AlreadyRunning(PathBuf),
    #[error("cannot set up the control socket {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Requests one connection may have in flight (a stop excepted: it never waits and is never
/// counted). While that many are, the connection's reader reads nothing more, so a client that
/// writes without reading replies is held back by its own socket, not by this node's memory.
pub const MAX_IN_FLIGHT: usize = 32;
/// Replies and notifications waiting to be written to one connection.
pub const MAX_WAITING_REPLIES: usize = 64;
/// Subscriptions one connection may hold.
pub const MAX_SUBSCRIPTIONS: usize = 4;

/// One connection's places for requests in flight and for subscriptions.
pub(crate) struct InFlight {
    requests: Arc<Semaphore>,
    subscriptions: Arc<Semaphore>,
}

/// A request's place, given back when it is dropped (once its reply is queued; a subscription's
/// when the subscription ends). A stop holds none.
pub struct Place {
    _permit: Option<OwnedSemaphorePermit>,
}

impl InFlight {
    pub(crate) fn new() -> InFlight {
        InFlight {
            requests: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
            subscriptions: Arc::new(Semaphore::new(MAX_SUBSCRIPTIONS)),
        }
    }

    /// Wait for a place for a request; a stop takes none and never waits.
    pub(crate) async fn admit(&self, stop: bool) -> Place {
        if stop {
            return Place { _permit: None };
        }
        Place {
            _permit: self.requests.clone().acquire_owned().await.ok(),
        }
    }

    /// A place for one more subscription, or `too_many_subscriptions`.
    fn subscription(&self) -> Result<Place, ApiError> {
        self.subscriptions
            .clone()
            .try_acquire_owned()
            .map(|p| Place { _permit: Some(p) })
            .map_err(|_| {
                ApiError::new(
                    ErrorCode::TooManySubscriptions,
                    format!("a connection holds at most {MAX_SUBSCRIPTIONS} subscriptions"),
                )
            })
    }
}

/// Fail when a live daemon answers on `path`.
pub fn refuse_if_serving(path: &Path) -> Result<(), ControlError> {
    if std::os::unix::net::UnixStream::connect(path).is_ok() {
        return Err(ControlError::AlreadyRunning(path.to_path_buf()));
    }
    Ok(())
}

/// Create `dir` if needed and make it private to this user (0700).
pub fn private_dir(dir: &Path) -> Result<(), ControlError> {
    let io = |source| ControlError::Io {
        path: dir.to_path_buf(),
        source,
    };
    crate::private::dir(dir).map_err(io)
}

/// Bind the socket (private to this user), replacing a stale one.
pub fn bind(path: &Path) -> Result<UnixListener, ControlError> {
    let io = |source| ControlError::Io {
        path: path.to_path_buf(),
        source,
    };
    private_dir(path.parent().expect("socket path has a parent"))?;
    refuse_if_serving(path)?;
    if path.exists() {
        std::fs::remove_file(path).map_err(io)?;
    }
    let listener = UnixListener::bind(path).map_err(io)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    Ok(listener)
}

pub async fn serve(
    listener: UnixListener,
    engine: Arc<Engine>,
    mesh: Option<Arc<Mesh>>,
    voice: Arc<VoiceSession>,
) {
    let me = unsafe { libc::geteuid() };
    let mut pause = crate::accept::Pause::new("control");
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(s) => {
                pause.accepted();
                s
            }
            Err(e) => {
                pause.failed(&e).await;
                continue;
            }
        };
        match stream.peer_cred() {
            Ok(cred) if cred.uid() == me => {}
            other => {
                tracing::warn!(?other, "refused a control connection from another user");
                continue;
            }
        }
        tokio::spawn(connection(
            stream,
            engine.clone(),
            mesh.clone(),
            voice.clone(),
        ));
    }
}

/// The lines of a newline-delimited stream, at most `max` bytes each (tokio-util's framing).
///
/// `AnyDelimiterCodec` is the byte-level twin of `LinesCodec`: `LinesCodec` refuses a line that
/// is not UTF-8 with an error that ends the stream, while a control line that is not UTF-8 must
/// get its own `malformed_request` reply; so bytes are read and decoded lossily here.
pub struct Lines<R> {
    frames: FramedRead<R, LineCodec>,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub fn new(reader: R, max: usize) -> Lines<R> {
        let codec = AnyDelimiterCodec::new_with_max_length(b"\n".to_vec(), b"\n".to_vec(), max);
        Lines {
            frames: FramedRead::new(reader, LineCodec(codec)),
        }
    }

    /// The next line. `Ok(None)` at end of stream; `Ok(Some(Err(n)))` when a line is over the
    /// limit (`n`: the bytes read without finding its end).
    pub async fn next(&mut self) -> std::io::Result<Option<Result<String, usize>>> {
        match self.frames.next().await {
            None => Ok(None),
            Some(Ok(line)) => Ok(Some(Ok(line))),
            Some(Err(LineError::TooLong(n))) => Ok(Some(Err(n))),
            Some(Err(LineError::Io(e))) => Err(e),
        }
    }
}

struct LineCodec(AnyDelimiterCodec);

enum LineError {
    TooLong(usize),
    Io(std::io::Error),
}

impl From<std::io::Error> for LineError {
    fn from(e: std::io::Error) -> LineError {
        LineError::Io(e)
    }
}

impl Decoder for LineCodec {
    type Item = String;
    type Error = LineError;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<String>, LineError> {
        let size = buf.len();
        match self.0.decode(buf) {
            Ok(line) => Ok(line.map(|b| String::from_utf8_lossy(&b).into_owned())),
            Err(AnyDelimiterCodecError::MaxChunkLengthExceeded) => Err(LineError::TooLong(size)),
            Err(AnyDelimiterCodecError::Io(e)) => Err(LineError::Io(e)),
        }
    }
}

async fn connection(
    stream: UnixStream,
    engine: Arc<Engine>,
    mesh: Option<Arc<Mesh>>,
    voice: Arc<VoiceSession>,
) {
    let (read, mut write) = stream.into_split();
    let (out, mut lines) = mpsc::channel::<String>(MAX_WAITING_REPLIES);
    let writer = tokio::spawn(async move {
        while let Some(mut line) = lines.recv().await {
            line.push('\n');
            if write.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let max = engine.limits().max_message_bytes;
    let mut reader = Lines::new(read, max);
    let in_flight = InFlight::new();
    loop {
        let line = match reader.next().await {
            Ok(Some(Ok(line))) => line,
            Ok(Some(Err(size))) => {
                let e = ApiError::new(
                    ErrorCode::MessageTooLarge,
                    format!("the message is over {size} bytes; the limit is {max}; closing the connection"),
                );
                let _ = out.send(encode(0, Err(e))).await;
                break;
            }
            Ok(None) | Err(_) => break,
        };
        if line.trim().is_empty() {
            continue;
        }
        let line = RequestLine::parse(&line);
        let request = match line.parsed {
            Ok(AnyRequest::Control(request)) => request,
            Ok(AnyRequest::Admin(request)) => {
                let place = in_flight.admit(false).await;
                admin(request, mesh.clone(), &out, place);
                continue;
            }
            Ok(AnyRequest::Voice(request)) => {
                let place = in_flight.admit(false).await;
                super::voice::serve(request, voice.clone(), &out, place);
                continue;
            }
            Err(e) => {
                let _ = out.send(encode(line.id, Err(e))).await;
                continue;
            }
        };
        // Back-pressure: with MAX_IN_FLIGHT requests unanswered, stop reading until one is.
        let place = in_flight
            .admit(matches!(request.verb, Verb::Interrupt { .. }))
            .await;
        let reading = matches!(
            request.verb,
            Verb::State { .. } | Verb::Subscribe | Verb::Observation { .. }
        );
        match mesh
            .as_ref()
            .map(|m| m.route(request.node.as_deref(), reading))
        {
            Some(Err(e)) => {
                let _ = out.send(encode(request.id, Err(e))).await;
            }
            Some(Ok(Some(link))) => forward(request, link, &out, &in_flight, place),
            Some(Ok(None)) if matches!(request.verb, Verb::State { .. }) => {
                state_with_nodes(request, &engine, mesh.clone(), &out, &in_flight, place)
            }
            None if request.node.as_deref().is_some_and(|n| n != engine.node()) => {
                let e = ApiError::new(
                    ErrorCode::MeshDisabled,
                    "the mesh is not enabled on this node ([mesh] enabled = false), so it reaches no other node",
                );
                let _ = out.send(encode(request.id, Err(e))).await;
            }
            _ => dispatch(request, &engine, &out, &in_flight, place),
        }
    }
    drop(out);
    // Let replies already produced go out; a subscription still holds a sender, so after a
    // moment stop the writer, which ends the subscription too (it watches `out.closed()`).
    let mut writer = writer;
    if tokio::time::timeout(std::time::Duration::from_secs(1), &mut writer)
        .await
        .is_err()
    {
        writer.abort();
    }
}

/// A local administration request (pairing, devices): only ever from this OS user.
fn admin(request: AdminRequest, mesh: Option<Arc<Mesh>>, out: &mpsc::Sender<String>, place: Place) {
    let out = out.clone();
    let id = request.id;
    tokio::spawn(async move {
        let result = match mesh {
            None => Err(ApiError::new(
                ErrorCode::MeshDisabled,
                "the mesh is not enabled on this node ([mesh] enabled = false)",
            )),
            Some(mesh) => mesh.admin(request.verb).await,
        };
        let _ = out.send(encode(id, result)).await;
        drop(place);
    });
}

/// Run one control request, replying on `out`; `place` is given back once the reply is queued.
/// Also used by the mesh, after its scope check.
pub(crate) fn dispatch(
    request: Request,
    engine: &Arc<Engine>,
    out: &mpsc::Sender<String>,
    in_flight: &InFlight,
    place: Place,
) {
    let Request { id, verb, .. } = request;
    let out = out.clone();
    match verb {
        Verb::Submit { input } => {
            // Queued now, in arrival order; the reply is awaited off the reading loop.
            let queued = engine.submit(input);
            tokio::spawn(async move {
                let result = match queued {
                    Ok(pending) => pending.reply().await.and_then(to_value),
                    Err(e) => Err(e),
                };
                let _ = out.send(encode(id, result)).await;
                drop(place);
            });
        }
        Verb::Interrupt { operation, device } => {
            let engine = engine.clone();
            tokio::spawn(async move {
                let result = engine.interrupt(operation, device).await.and_then(to_value);
                let _ = out.send(encode(id, result)).await;
                drop(place);
            });
        }
        Verb::State { operations } => {
            let engine = engine.clone();
            tokio::spawn(async move {
                let result = engine
                    .state(operations.unwrap_or(10).min(500))
                    .await
                    .and_then(to_value);
                let _ = out.send(encode(id, result)).await;
                drop(place);
            });
        }
        Verb::Observation { observation } => {
            let engine = engine.clone();
            tokio::spawn(async move {
                let result = engine.observation(observation).await.and_then(to_value);
                let _ = out.send(encode(id, result)).await;
                drop(place);
            });
        }
        Verb::Subscribe => match in_flight.subscription() {
            Ok(held) => {
                let engine = engine.clone();
                tokio::spawn(async move {
                    drop(place);
                    subscription(id, engine, out, held).await
                });
            }
            Err(e) => {
                tokio::spawn(async move {
                    let _ = out.send(encode(id, Err(e))).await;
                    drop(place);
                });
            }
        },
    }
}

/// This node's state, with whether each of its peers is online.
fn state_with_nodes(
    request: Request,
    engine: &Arc<Engine>,
    mesh: Option<Arc<Mesh>>,
    out: &mpsc::Sender<String>,
    in_flight: &InFlight,
    place: Place,
) {
    let Verb::State { operations } = request.verb else {
        return dispatch(request, engine, out, in_flight, place);
    };
    let (engine, out, id) = (engine.clone(), out.clone(), request.id);
    tokio::spawn(async move {
        let result = engine
            .state(operations.unwrap_or(10).min(500))
            .await
            .map(|mut view| {
                view.nodes = mesh.map(|m| m.peers.statuses()).unwrap_or_default();
                view
            })
            .and_then(to_value);
        let _ = out.send(encode(id, result)).await;
        drop(place);
    });
}

/// Carry a request to the peer that owns what it is about, and its reply back.
fn forward(
    request: Request,
    link: Arc<Link>,
    out: &mpsc::Sender<String>,
    in_flight: &InFlight,
    place: Place,
) {
    let Request { id, verb, .. } = request;
    let out = out.clone();
    match verb {
        Verb::Subscribe => {
            let held = in_flight.subscription();
            tokio::spawn(async move {
                drop(place);
                match held {
                    Ok(held) => routed_subscription(id, link, out, held).await,
                    Err(e) => {
                        let _ = out.send(encode(id, Err(e))).await;
                    }
                }
            });
        }
        verb => {
            let stopping = matches!(verb, Verb::Interrupt { .. });
            tokio::spawn(async move {
                let result = link.request(verb).await.map_err(|mut e| {
                    // Say plainly that a stop that never arrived was not even requested there.
                    if stopping && e.code == ErrorCode::NodeOffline {
                        e.message = format!(
                            "the stop did not reach {0}: {1}; if {0} is up but unreachable, what it runs goes on",
                            link.peer.name, e.message
                        );
                    }
                    e
                });
                let _ = out.send(encode(id, result)).await;
                drop(place);
            });
        }
    }
}

/// A subscription to a peer: its status first, then its current state (when online), then every
/// change it sends and every change of its status. After a reconnect the peer's first
/// notification is a fresh snapshot; nothing from before is replayed.
async fn routed_subscription(id: u64, link: Arc<Link>, out: mpsc::Sender<String>, _held: Place) {
    let mut status = link.watch();
    let mut events = link.events();
    let ok = encode(id, Ok(serde_json::json!({ "subscribed": true })));
    let node = status.borrow_and_update().clone();
    if out.send(ok).await.is_err()
        || out
            .send(notification(&Notification::Node { node: node.clone() }))
            .await
            .is_err()
    {
        return;
    }
    if node.online && !send_peer_snapshot(&link, &out).await {
        return;
    }
    loop {
        tokio::select! {
            changed = status.changed() => {
                if changed.is_err() {
                    return;
                }
                let node = status.borrow_and_update().clone();
                if out.send(notification(&Notification::Node { node })).await.is_err() {
                    return;
                }
            }
            line = events.recv() => match line {
                Ok(line) => {
                    if out.send(line).await.is_err() {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if !send_peer_snapshot(&link, &out).await {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = out.closed() => return,
        }
    }
}

/// Read the peer's current state and send it as a snapshot; false when the client is gone.
async fn send_peer_snapshot(link: &Link, out: &mpsc::Sender<String>) -> bool {
    let Ok(state) = link.request(Verb::State { operations: None }).await else {
        return true;
    };
    let Ok(state) = serde_json::from_value(state) else {
        return true;
    };
    let snapshot = Notification::Snapshot {
        state: Box::new(state),
    };
    out.send(notification(&snapshot)).await.is_ok()
}

/// Send the current state, then every change as a small event; a subscriber that falls behind
/// (or an event over `MAX_EVENT_BYTES`) gets a fresh snapshot.
async fn subscription(id: u64, engine: Arc<Engine>, out: mpsc::Sender<String>, _held: Place) {
    let mut rx = engine.subscribe();
    if out
        .send(encode(id, Ok(serde_json::json!({ "subscribed": true }))))
        .await
        .is_err()
    {
        return;
    }
    loop {
        let state = match engine.state(10).await {
            Ok(state) => state,
            Err(e) => {
                let _ = out.send(encode(id, Err(e))).await;
                return;
            }
        };
        if out
            .send(notification(&Notification::Snapshot {
                state: Box::new(state),
            }))
            .await
            .is_err()
        {
            return;
        }
        loop {
            // A client that left ends its subscription now, not at the next change.
            let received = tokio::select! {
                r = rx.recv() => r,
                _ = out.closed() => return,
            };
            match received {
                Ok(n) => {
                    let line = notification(&n);
                    // An event over its limit is not sent: a fresh snapshot says the same.
                    if line.len() > MAX_EVENT_BYTES {
                        tracing::warn!(
                            bytes = line.len(),
                            "an event over the limit: a snapshot instead"
                        );
                        break;
                    }
                    if out.send(line).await.is_err() {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => break,
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }
}

fn notification(n: &Notification) -> String {
    serde_json::to_string(n).expect("notifications serialize")
}

fn to_value<T: serde::Serialize>(v: T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
}

/// One reply line, within `MAX_REPLY_BYTES`: a larger one (no verb makes one: a state is
/// fitted, an observation stored within its own limit) is replaced by `message_too_large`.
pub(crate) fn encode(id: u64, result: Result<serde_json::Value, ApiError>) -> String {
    let body = match result {
        Ok(v) => ReplyBody::Ok(v),
        Err(e) => ReplyBody::Error(e),
    };
    let line = serde_json::to_string(&Reply { id, body }).expect("replies serialize");
    if line.len() <= MAX_REPLY_BYTES {
        return line;
    }
    tracing::error!(bytes = line.len(), "a reply over the limit was not sent");
    let e = ApiError::new(
        ErrorCode::MessageTooLarge,
        format!(
            "the reply is {} bytes, over the {MAX_REPLY_BYTES}-byte limit",
            line.len()
        ),
    );
    serde_json::to_string(&Reply {
        id,
        body: ReplyBody::Error(e),
    })
    .expect("replies serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_over_the_limit_is_replaced_by_a_clear_error() {
        let small = encode(3, Ok(serde_json::json!({"ok": true})));
        assert_eq!(small, r#"{"id":3,"ok":{"ok":true}}"#);
        let big = encode(4, Ok(serde_json::json!("x".repeat(MAX_REPLY_BYTES))));
        let reply: Reply = serde_json::from_str(&big).unwrap();
        assert_eq!(reply.id, 4);
        match reply.body {
            ReplyBody::Error(e) => assert_eq!(e.code, ErrorCode::MessageTooLarge),
            other => panic!("{other:?}"),
        }
        assert!(big.len() < 1024);
    }
}

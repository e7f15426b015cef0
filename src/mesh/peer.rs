//! Links to the other nodes this node routes requests to (its peers), and joining one.
//!
//! A link is one WebSocket to the peer's mesh listener, authenticated both ways by signatures:
//! this node signs the peer's challenge with its key, and the peer signs this node's nonce with
//! the key pinned when they paired (its id is that key's hash). Over the link travel exactly the
//! four control verbs, as this node's own requests: the peer owns the interaction and the
//! operation; this node only carries inputs there and state back.
//!
//! Invariants:
//! - a peer is online only between a verified handshake and the socket's end (or three
//!   keepalive periods of silence, `[mesh] keepalive_ms`); its status changes are published, so a client sees "offline" instead of a stale
//!   "running";
//! - nothing is replayed after a reconnect: the link subscribes again and the peer's first
//!   notification is its current state;
//! - a stop travels in its own lane on the link, sent ahead of any request still waiting to go;
//! - a request while the peer is offline fails at once (`node_offline`); one without an answer
//!   within 30 s fails with `node_timeout`, which says its effect is unknown (a retried submit
//!   with the same input id is safe: the peer deduplicates it).

use super::identity::{self, proof, NodeIdentity};
use crate::clock;
use crate::model::Millis;
use crate::protocol::{ApiError, ErrorCode, NodeStatus, Reply, ReplyBody, Request, Verb};
use crate::store::PeerRecord;
use futures_util::{SinkExt, StreamExt};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

/// How long a request over a link may wait for its reply.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Reconnection backoff: from the first to the last, doubling.
const BACKOFF_FIRST: Duration = Duration::from_millis(200);
const BACKOFF_LAST: Duration = Duration::from_secs(5);
/// After the peer refused this node's key (revoked there, or never paired): retry rarely, so a
/// revoked node does not spend the peer's failed-attempt budget for its address.
const AFTER_REFUSAL: Duration = Duration::from_secs(60);
/// The request id of the link's own subscription.
const SUBSCRIPTION_ID: u64 = u64::MAX;

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The two ways out of a live link: stops go first, whatever waits in the other lane.
#[derive(Clone)]
struct Lanes {
    requests: mpsc::Sender<String>,
    stops: mpsc::Sender<String>,
}

/// One peer and its connection, kept up by a task.
pub struct Link {
    pub peer: PeerRecord,
    status: watch::Sender<NodeStatus>,
    out: Mutex<Option<Lanes>>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<serde_json::Value, ApiError>>>>,
    /// The peer's notifications, as the lines it sent.
    events: broadcast::Sender<String>,
    next_id: AtomicU64,
    stop: CancellationToken,
    /// A ping goes out this often; a link silent for three of these is dropped.
    keepalive: Duration,
}

impl Link {
    pub fn status(&self) -> NodeStatus {
        self.status.borrow().clone()
    }

    pub fn watch(&self) -> watch::Receiver<NodeStatus> {
        self.status.subscribe()
    }

    pub fn events(&self) -> broadcast::Receiver<String> {
        self.events.subscribe()
    }

    /// Send one control request to the peer and wait for its reply.
    pub async fn request(&self, verb: Verb) -> Result<serde_json::Value, ApiError> {
        let offline = || {
            let s = self.status();
            ApiError::new(
                ErrorCode::NodeOffline,
                format!(
                    "{} is offline{}",
                    self.peer.name,
                    s.error.map(|e| format!(" ({e})")).unwrap_or_default()
                ),
            )
        };
        let Some(lanes) = self.out.lock().unwrap_or_else(|p| p.into_inner()).clone() else {
            return Err(offline());
        };
        let out = match verb {
            Verb::Interrupt { .. } => lanes.stops,
            _ => lanes.requests,
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        let line = serde_json::to_string(&Request {
            id,
            node: None,
            verb,
        })
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
        if out.send(line).await.is_err() {
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            return Err(offline());
        }
        match tokio::time::timeout(REQUEST_TIMEOUT, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(ApiError::new(
                ErrorCode::NodeOffline,
                format!(
                    "{} went offline before it answered; whether it took the request is unknown until it is back (a retry with the same input id is safe)",
                    self.peer.name
                ),
            )),
            Err(_) => {
                self.pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                Err(ApiError::new(
                    ErrorCode::NodeTimeout,
                    format!(
                        "{} did not answer within {} s; whether it took the request is unknown (a retry with the same input id is safe)",
                        self.peer.name,
                        REQUEST_TIMEOUT.as_secs()
                    ),
                ))
            }
        }
    }

    fn set(&self, online: bool, error: Option<String>) {
        self.status.send_modify(|s| {
            if s.online != online {
                s.since = clock::now();
            }
            s.online = online;
            s.error = error;
        });
    }

    /// Fail every request still waiting: the socket they went out on is gone.
    fn fail_pending(&self) {
        let pending: Vec<_> = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .collect();
        drop(pending);
    }
}

/// This node's links, by peer id.
#[derive(Default)]
pub struct Peers {
    links: Mutex<HashMap<String, Arc<Link>>>,
}

impl Peers {
    /// Start (or restart) the link to `peer`.
    pub fn start(
        &self,
        identity: Arc<NodeIdentity>,
        peer: PeerRecord,
        keepalive: Duration,
    ) -> Arc<Link> {
        let (status, _) = watch::channel(NodeStatus {
            id: peer.id.clone(),
            name: peer.name.clone(),
            online: false,
            since: clock::now(),
            error: Some("connecting".into()),
        });
        let (events, _) = broadcast::channel(1024);
        let link = Arc::new(Link {
            peer,
            status,
            out: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            events,
            next_id: AtomicU64::new(1),
            stop: CancellationToken::new(),
            keepalive,
        });
        if let Some(old) = self
            .links
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(link.peer.id.clone(), link.clone())
        {
            old.stop.cancel();
        }
        tokio::spawn(keep_up(link.clone(), identity));
        link
    }

    /// Stop the link to `id`; false when there is none.
    pub fn stop(&self, id: &str) -> bool {
        match self
            .links
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
        {
            Some(link) => {
                link.stop.cancel();
                true
            }
            None => false,
        }
    }

    /// The link to the peer with this name or id.
    pub fn find(&self, node: &str) -> Option<Arc<Link>> {
        let links = self.links.lock().unwrap_or_else(|p| p.into_inner());
        links
            .get(node)
            .or_else(|| links.values().find(|l| l.peer.name == node))
            .cloned()
    }

    pub fn statuses(&self) -> Vec<NodeStatus> {
        let mut v: Vec<NodeStatus> = self
            .links
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .map(|l| l.status())
            .collect();
        v.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        v
    }
}

/// Connect, serve, and reconnect with backoff until the link is stopped.
async fn keep_up(link: Arc<Link>, identity: Arc<NodeIdentity>) {
    let mut backoff = BACKOFF_FIRST;
    loop {
        let started = clock::now();
        let (ended, refused) = tokio::select! {
            e = connect_and_serve(&link, &identity) => e,
            _ = link.stop.cancelled() => ("this node stopped the link".to_string(), false),
        };
        *link.out.lock().unwrap_or_else(|p| p.into_inner()) = None;
        link.fail_pending();
        tracing::info!(peer = %link.peer.name, reason = %ended, "peer link down");
        link.set(false, Some(ended));
        if link.stop.is_cancelled() {
            return;
        }
        if clock::now().saturating_sub(started) > 10_000 {
            backoff = BACKOFF_FIRST;
        }
        let wait = if refused { AFTER_REFUSAL } else { backoff };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = link.stop.cancelled() => return,
        }
        backoff = (backoff * 2).min(BACKOFF_LAST);
    }
}

/// The origin a node presents to a peer: the peer's own (it is the peer's listener we speak to).
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split('/').next()?;
    let scheme = match scheme {
        "ws" => "http",
        "wss" => "https",
        _ => return None,
    };
    Some(format!("{scheme}://{host}"))
}

/// A node's WebSocket URL from the address a person types or `circe pair` shows:
/// `http://H:P[/...]` → `ws://H:P/ws`, `https://…` → `wss://…/ws`; ws/wss URLs are kept.
pub fn socket_url(address: &str) -> Option<String> {
    let (scheme, rest) = address.trim().split_once("://")?;
    let host = rest
        .split(['/', '#', '?'])
        .next()
        .filter(|h| !h.is_empty())?;
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => "ws",
        "https" | "wss" => "wss",
        _ => return None,
    };
    Some(format!("{scheme}://{host}/ws"))
}

/// Open a WebSocket to a peer's listener and read its hello. Over `wss://` the certificate is
/// pinned to `expected` (a node id); plain `ws://` goes to loopback only.
pub async fn open(url: &str, expected: Option<&str>) -> Result<(Ws, serde_json::Value), String> {
    let origin = origin_of(url).ok_or_else(|| format!("{url} is not a ws:// or wss:// URL"))?;
    let connect = super::tls::connect_ws(url, &origin, expected);
    let mut ws = tokio::time::timeout(Duration::from_secs(10), connect)
        .await
        .map_err(|_| "no connection within 10 s".to_string())?
        .map_err(|e| format!("cannot connect: {e:#}"))?;
    let hello = next_json(&mut ws, Duration::from_secs(10)).await?;
    if hello["type"] != "hello" {
        return Err(format!("not a Circe node: {hello}"));
    }
    Ok((ws, hello))
}

/// The next text message as JSON.
pub async fn next_json(ws: &mut Ws, within: Duration) -> Result<serde_json::Value, String> {
    loop {
        let m = tokio::time::timeout(within, ws.next())
            .await
            .map_err(|_| "no answer in time".to_string())?
            .ok_or_else(|| "the connection closed".to_string())?
            .map_err(|e| format!("the connection failed: {e}"))?;
        match m {
            Message::Text(t) => {
                return serde_json::from_str(t.as_str()).map_err(|e| format!("bad message: {e}"))
            }
            Message::Close(frame) => {
                return Err(match frame {
                    Some(f) => format!("closed ({}: {})", u16::from(f.code), f.reason),
                    None => "closed".into(),
                })
            }
            _ => continue,
        }
    }
}

/// Check that the hello comes from the pinned peer.
fn check_hello(peer: &PeerRecord, hello: &serde_json::Value) -> Result<String, String> {
    let id = hello["node"]["id"].as_str().unwrap_or_default();
    let key = hello["node"]["publicKey"].as_str().unwrap_or_default();
    if id != peer.id || !key.eq_ignore_ascii_case(&peer.public_key) {
        return Err(format!(
            "the node at {} is not the {} this node paired with (it says it is {id})",
            peer.url, peer.name
        ));
    }
    hello["challenge"]
        .as_str()
        .map(String::from)
        .ok_or_else(|| "the hello carries no challenge".to_string())
}

/// One connection, and why it ended; true when the peer refused this node's key.
async fn connect_and_serve(link: &Arc<Link>, identity: &NodeIdentity) -> (String, bool) {
    let mut refused = false;
    let why = serve_once(link, identity, &mut refused).await;
    (why, refused)
}

/// Handshake, subscribe, then carry requests and notifications until the connection ends.
/// Returns why it ended.
async fn serve_once(link: &Arc<Link>, identity: &NodeIdentity, refused: &mut bool) -> String {
    let peer = &link.peer;
    let (mut ws, hello) = match open(&peer.url, Some(&peer.id)).await {
        Ok(v) => v,
        Err(e) => return e,
    };
    let challenge = match check_hello(peer, &hello) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let nonce = identity::base32(&identity::random_bytes(16));
    let signature =
        identity::hex(&identity.sign(&proof::client(&peer.id, &challenge, &identity.id)));
    let auth = serde_json::json!({"type": "node", "node": identity.id, "signature": signature, "nonce": nonce});
    if ws
        .send(Message::Text(auth.to_string().into()))
        .await
        .is_err()
    {
        return "the connection closed during the handshake".into();
    }
    let answer = match next_json(&mut ws, Duration::from_secs(10)).await {
        Ok(a) => a,
        Err(e) => return e,
    };
    if answer["type"] != "authOk" {
        *refused = true;
        return format!(
            "{} refused this node: {}",
            peer.name,
            answer["message"].as_str().unwrap_or("no reason given")
        );
    }
    let statement = proof::server(&identity.id, &nonce, &peer.id);
    if !identity::verify(
        &peer.public_key,
        &statement,
        answer["signature"].as_str().unwrap_or_default(),
    ) {
        return format!("{} did not prove it holds its pinned key", peer.name);
    }
    let subscribe = serde_json::to_string(&Request {
        id: SUBSCRIPTION_ID,
        node: None,
        verb: Verb::Subscribe,
    })
    .expect("requests serialize");
    if ws.send(Message::Text(subscribe.into())).await.is_err() {
        return "the connection closed".into();
    }
    let (requests, mut rx) = mpsc::channel::<String>(256);
    let (stops, mut stop_rx) = mpsc::channel::<String>(64);
    *link.out.lock().unwrap_or_else(|p| p.into_inner()) = Some(Lanes { requests, stops });
    link.set(true, None);
    tracing::info!(peer = %peer.name, "peer link up");
    let mut ping = tokio::time::interval(link.keepalive);
    let silence = 3 * link.keepalive;
    ping.tick().await;
    let mut heard: Millis = clock::now();
    loop {
        tokio::select! {
            biased;
            line = stop_rx.recv() => {
                let Some(line) = line else { return "the link was replaced".into() };
                if ws.send(Message::Text(line.into())).await.is_err() {
                    return "the connection failed".into();
                }
            }
            line = rx.recv() => {
                let Some(line) = line else { return "the link was replaced".into() };
                if ws.send(Message::Text(line.into())).await.is_err() {
                    return "the connection failed".into();
                }
            }
            m = ws.next() => {
                heard = clock::now();
                match m {
                    Some(Ok(Message::Text(t))) => deliver(link, t.as_str()),
                    Some(Ok(Message::Close(frame))) => {
                        return match frame {
                            Some(f) => format!("{} closed the link ({}: {})", peer.name, u16::from(f.code), f.reason),
                            None => format!("{} closed the link", peer.name),
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return format!("the connection failed: {e}"),
                    None => return "the connection closed".into(),
                }
            }
            _ = ping.tick() => {
                if clock::now().saturating_sub(heard) > silence.as_millis() as Millis {
                    return format!("{} sent nothing for {} ms", peer.name, silence.as_millis());
                }
                if ws.send(Message::Ping(Vec::new().into())).await.is_err() {
                    return "the connection failed".into();
                }
            }
        }
    }
}

/// A line from the peer: a reply to one of our requests, or a notification.
fn deliver(link: &Link, line: &str) {
    if let Ok(reply) = serde_json::from_str::<Reply>(line) {
        if reply.id == SUBSCRIPTION_ID {
            return;
        }
        let waiting = link
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&reply.id);
        if let Some(tx) = waiting {
            let _ = tx.send(match reply.body {
                ReplyBody::Ok(v) => Ok(v),
                ReplyBody::Error(e) => Err(e),
            });
        }
        return;
    }
    let _ = link.events.send(line.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_is_spoken_to_with_its_own_origin() {
        assert_eq!(
            origin_of("ws://127.0.0.1:7457/ws").as_deref(),
            Some("http://127.0.0.1:7457")
        );
        assert_eq!(
            origin_of("wss://desk.lan:7457/ws").as_deref(),
            Some("https://desk.lan:7457")
        );
        assert_eq!(origin_of("http://127.0.0.1:7457/ws"), None);
        assert_eq!(origin_of("127.0.0.1:7457"), None);
    }

    #[test]
    fn addresses_become_socket_urls() {
        for (given, want) in [
            (
                "http://127.0.0.1:7457/#pair",
                Some("ws://127.0.0.1:7457/ws"),
            ),
            ("http://127.0.0.1:7457", Some("ws://127.0.0.1:7457/ws")),
            ("https://desk.lan:7457/", Some("wss://desk.lan:7457/ws")),
            ("ws://[::1]:7457/ws", Some("ws://[::1]:7457/ws")),
            ("ftp://x:1", None),
            ("http://", None),
            ("desk:7457", None),
        ] {
            assert_eq!(socket_url(given).as_deref(), want, "{given}");
        }
    }

    #[test]
    fn a_hello_from_another_key_is_not_the_peer() {
        let peer = PeerRecord {
            id: "aaaa".into(),
            name: "desk".into(),
            url: "ws://127.0.0.1:1/ws".into(),
            public_key: "00ff".into(),
            added_at: 0,
        };
        let good = serde_json::json!({"type": "hello", "node": {"id": "aaaa", "publicKey": "00FF"}, "challenge": "c"});
        assert_eq!(check_hello(&peer, &good).unwrap(), "c");
        let other = serde_json::json!({"type": "hello", "node": {"id": "bbbb", "publicKey": "00ff"}, "challenge": "c"});
        assert!(check_hello(&peer, &other).is_err());
        let key = serde_json::json!({"type": "hello", "node": {"id": "aaaa", "publicKey": "0100"}, "challenge": "c"});
        assert!(check_hello(&peer, &key).is_err());
        let none =
            serde_json::json!({"type": "hello", "node": {"id": "aaaa", "publicKey": "00ff"}});
        assert!(check_hello(&peer, &none).is_err());
    }
}

//! The HTTP + WebSocket listener: the phone client's static files, `/healthz`, and `/ws`, which
//! carries the control API for authenticated devices.
//!
//! Invariants:
//! - every request's `Host` is checked before routing; every non-GET request and every
//!   WebSocket upgrade must carry one of this listener's own origins;
//! - no CORS header is ever sent, no cookie is set, and no GET changes state;
//! - WebSocket messages and frames are capped at 64 KiB (a larger one closes the socket);
//! - the first message must be `auth` or `pair` within 5 s, or the socket is closed (4401);
//! - with TLS on, nothing is served before a completed TLS handshake (3 s at most each);
//! - connections, handshakes and unauthenticated sockets are counted (`slots`) in total and per
//!   address; a request head must arrive within `[mesh] header_timeout_ms`;
//! - stop is never rate limited; submits are limited per device (5/s, burst 20).

use super::policy::{self, MessageKind};
use super::{pairing::Stage, Client, Mesh};
use crate::config::TlsMode;
use crate::daemon::control;
use crate::protocol::{AdminVerb, AnyRequest, ApiError, ErrorCode, Request, RequestLine, Verb};
use crate::store::DeviceRecord;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Request as HttpRequest, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// The cap on one WebSocket message (and frame).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// How long a new socket has to authenticate.
pub const AUTH_DEADLINE: Duration = Duration::from_secs(5);
/// How long a client has to finish the TLS handshake.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(3);
/// TLS handshakes in progress at once, in total and from one address; a newer one evicts the
/// oldest (`slots::Evicting`).
pub const MAX_HANDSHAKES: usize = 64;
pub const MAX_HANDSHAKES_PER_ADDRESS: usize = 8;
/// WebSockets that have not sent their first message yet, in total and from one address; a
/// newer one evicts the oldest (`slots::Evicting`).
pub const MAX_UNAUTHENTICATED: usize = 32;
pub const MAX_UNAUTHENTICATED_PER_ADDRESS: usize = 8;

/// Close codes.
pub const CLOSE_UNAUTHENTICATED: u16 = 4401;
pub const CLOSE_REVOKED: u16 = 4403;
pub const CLOSE_TOO_MANY: u16 = 4429;
/// A message over `MAX_MESSAGE_BYTES` (RFC 6455 "message too big").
pub const CLOSE_TOO_LARGE: u16 = 1009;
/// How long a socket closed for an oversized message stays open, unread, so the client can read
/// the close frame before the connection drops.
const CLOSE_LINGER: Duration = Duration::from_millis(500);

const INDEX: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");
const MANIFEST: &str = include_str!("assets/manifest.webmanifest");
const ICON: &str = include_str!("assets/icon.svg");

const CSP: &str = "default-src 'self'; connect-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

/// Parse `[mesh] listen` and decide TLS from `[mesh] tls`: beyond loopback the listener is
/// served over TLS only, so `off` with a non-loopback address is refused (naming the setting).
/// Returns the address and whether TLS is on.
pub fn check_listen(listen: &str, tls: TlsMode) -> anyhow::Result<(SocketAddr, bool)> {
    let addr: SocketAddr = listen.parse().map_err(|_| {
        anyhow::anyhow!("[mesh] listen = {listen:?} is not an address like \"127.0.0.1:7457\"")
    })?;
    let on = tls.enabled_for(addr.ip()).map_err(|e| anyhow::anyhow!(e))?;
    Ok((addr, on))
}

pub fn router(mesh: Arc<Mesh>) -> axum::Router {
    axum::Router::new()
        .route(
            "/",
            get(|| async { page("text/html; charset=utf-8", INDEX) }),
        )
        .route(
            "/app.js",
            get(|| async { page("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/app.css",
            get(|| async { page("text/css; charset=utf-8", APP_CSS) }),
        )
        .route(
            "/manifest.webmanifest",
            get(|| async { page("application/manifest+json", MANIFEST) }),
        )
        .route("/icon.svg", get(|| async { page("image/svg+xml", ICON) }))
        .route("/healthz", get(|| async { "ok" }))
        .route("/ws", get(upgrade))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found") })
        .layer(middleware::from_fn_with_state(mesh.clone(), guard))
        .with_state(mesh)
}

/// Serve `router` on `listener` until the task is aborted. Each connection takes a slot
/// (`[mesh] max_connections`, in total and per address; without one it is closed at once), then,
/// with `tls`, finishes its handshake within `HANDSHAKE_DEADLINE` holding a handshake slot, and
/// must send each request head within `[mesh] header_timeout_ms`. A failed accept pauses the
/// loop (`accept::Pause`).
pub async fn serve(
    listener: tokio::net::TcpListener,
    mesh: Arc<Mesh>,
    tls: Option<Arc<rustls::ServerConfig>>,
) {
    let app = router(mesh.clone());
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let mut pause = crate::accept::Pause::new("mesh");
    let mut refusals = crate::accept::Rarely::default();
    loop {
        let (tcp, peer) = match listener.accept().await {
            Ok(accepted) => {
                pause.accepted();
                accepted
            }
            Err(e) => {
                pause.failed(&e).await;
                continue;
            }
        };
        let slot = match mesh.connections.take(peer.ip()) {
            Ok(slot) => slot,
            Err(full) => {
                // Closed at once: a flood costs this node a descriptor for a moment only.
                if let Some(left_out) = refusals.due(std::time::Instant::now()) {
                    tracing::warn!(%peer, ?full, left_out, "mesh connections full; closing new ones");
                }
                continue;
            }
        };
        let (app, mesh, acceptor) = (app.clone(), mesh.clone(), acceptor.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let _ = tcp.set_nodelay(true);
            match acceptor {
                None => connection_http(tcp, peer, app, mesh.header_timeout).await,
                Some(acceptor) => {
                    let handshake = mesh.handshakes.take(peer.ip());
                    let accepted = tokio::select! {
                        a = tokio::time::timeout(HANDSHAKE_DEADLINE, acceptor.accept(tcp)) => a,
                        _ = handshake.evicted.cancelled() => {
                            tracing::debug!(%peer, "TLS handshake evicted by a newer one");
                            return;
                        }
                    };
                    let tls = match accepted {
                        Ok(Ok(tls)) => tls,
                        Ok(Err(e)) => {
                            tracing::debug!(%peer, error = %e, "TLS handshake failed");
                            return;
                        }
                        Err(_) => {
                            tracing::debug!(%peer, "TLS handshake timed out");
                            return;
                        }
                    };
                    drop(handshake);
                    connection_http(tls, peer, app, mesh.header_timeout).await
                }
            }
        });
    }
}

/// Serve HTTP/1.1 (and WebSocket upgrades) on one connection, with `peer` as axum's
/// `ConnectInfo`.
async fn connection_http<I>(io: I, peer: SocketAddr, app: axum::Router, header_timeout: Duration)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    use tower_service::Service as _;
    let service =
        hyper::service::service_fn(move |mut request: HttpRequest<hyper::body::Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().call(request.map(axum::body::Body::new))
        });
    let served = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(hyper_util::rt::TokioIo::new(io), service)
        .with_upgrades()
        .await;
    if let Err(e) = served {
        tracing::debug!(%peer, error = %e, "mesh connection ended");
    }
}

fn page(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// Host on every request; Origin on the upgrade and on anything but GET/HEAD; security headers
/// on every response.
async fn guard(State(mesh): State<Arc<Mesh>>, request: HttpRequest, next: Next) -> Response {
    let headers = request.headers();
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let host = text(header::HOST);
    let mut response = if !mesh.allowlist.host_allowed(host) {
        (StatusCode::FORBIDDEN, "host not allowed").into_response()
    } else if (request.uri().path() == "/ws"
        || !matches!(*request.method(), Method::GET | Method::HEAD))
        && !mesh.allowlist.origin_allowed(text(header::ORIGIN))
    {
        (StatusCode::FORBIDDEN, "origin not allowed").into_response()
    } else if !matches!(*request.method(), Method::GET | Method::HEAD) {
        (StatusCode::METHOD_NOT_ALLOWED, "only GET is served").into_response()
    } else {
        next.run(request).await
    };
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

async fn upgrade(
    State(mesh): State<Arc<Mesh>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    _headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    // An address out of attempts is refused before upgrading, so a flood of sockets costs this
    // node no task and no buffer. On loopback (every local client shares the address) budgets
    // are per client, known only from the first message.
    if !peer.ip().is_loopback() && !mesh.failures_allow(&Client::new(peer.ip(), "silent"), false) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many failed attempts from this address; wait a minute",
        )
            .into_response();
    }
    // A place among the sockets not yet authenticated; a newcomer evicts the oldest (of its
    // address when that address holds its share), so silent sockets never keep a device out.
    let waiting = mesh.unauthenticated.take(peer.ip());
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        // The largest message out is a reply or snapshot (`protocol::MAX_REPLY_BYTES`, what a
        // node client accepts); events are far smaller (`protocol::MAX_EVENT_BYTES`).
        .max_write_buffer_size(super::tls::MAX_RECEIVE_BYTES)
        .on_upgrade(move |socket| connection(socket, mesh, peer, waiting))
}

fn json_text(v: serde_json::Value) -> Message {
    Message::Text(v.to_string().into())
}

fn close(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.to_string().into(),
    }))
}

/// The first message on a socket.
#[derive(serde::Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Hello {
    /// A phone (or browser) with the token it got at pairing.
    Auth { token: String },
    /// A phone offering the pairing code, with its ECDH public key (`exchange`).
    Pair {
        code: String,
        name: String,
        key: String,
    },
    /// A paired node: its signature of the hello's challenge, and a nonce for this node to sign.
    #[serde(rename_all = "camelCase")]
    Node {
        node: String,
        signature: String,
        nonce: String,
    },
    /// A node offering the pairing code, proving it holds the key it will be known by.
    #[serde(rename_all = "camelCase")]
    PairNode {
        code: String,
        name: String,
        role: super::identity::Role,
        public_key: String,
        signature: String,
    },
}

async fn connection(
    mut socket: WebSocket,
    mesh: Arc<Mesh>,
    peer: SocketAddr,
    waiting: super::slots::Evictable,
) {
    // The challenge a node signs to authenticate; phones ignore it.
    let challenge = super::identity::base32(&super::identity::random_bytes(16));
    let hello = serde_json::json!({
        "type": "hello", "protocol": 1,
        "node": {
            "id": mesh.identity.id, "name": mesh.name, "role": mesh.role,
            "publicKey": super::identity::hex(mesh.identity.public_key()),
        },
        "challenge": challenge,
    });
    if socket.send(json_text(hello)).await.is_err() {
        return;
    }
    let ip = peer.ip();
    // Silence (and a first message that is not text) counts against the address; on loopback
    // it is bounded by the evicting places alone, so one local client cannot lock out the others.
    let silent = Client::new(ip, "silent");
    let silence = |mesh: &Mesh| {
        if !ip.is_loopback() {
            mesh.failures_allow(&silent, true);
        }
    };
    let first = tokio::select! {
        first = tokio::time::timeout(AUTH_DEADLINE, socket.recv()) => first,
        _ = waiting.evicted.cancelled() => {
            // Evicted for a newer socket after waiting silently: a failed attempt.
            silence(&mesh);
            let _ = socket
                .send(close(CLOSE_UNAUTHENTICATED, "evicted by a newer socket; authenticate first"))
                .await;
            return;
        }
    };
    // The first message is in: the place is free for the next socket.
    drop(waiting);
    let first = match first {
        Ok(Some(Ok(Message::Text(t)))) => t,
        Ok(Some(Err(e))) if over_limit(&e) => {
            silence(&mesh);
            let _ = socket
                .send(close(CLOSE_TOO_LARGE, "a message is over 64 KiB"))
                .await;
            tokio::time::sleep(CLOSE_LINGER).await;
            return;
        }
        // A client that closes before a word (the page peeking at the hello) has failed at
        // nothing; data that is not text has.
        Ok(Some(Ok(Message::Close(_)))) | Ok(None) => return,
        Ok(Some(Ok(_))) | Ok(Some(Err(_))) => {
            silence(&mesh);
            let _ = socket
                .send(close(CLOSE_UNAUTHENTICATED, "authenticate first"))
                .await;
            return;
        }
        Err(_) => {
            // Silence is a failed attempt too: an address that keeps sockets open without
            // authenticating runs out of attempts like one that guesses.
            silence(&mesh);
            let _ = socket
                .send(close(CLOSE_UNAUTHENTICATED, "no authentication within 5 s"))
                .await;
            return;
        }
    };
    let hello = serde_json::from_str::<Hello>(first.as_str());
    let client = Client::new(ip, claim(hello.as_ref().ok()));
    if !mesh.failures_allow(&client, false) {
        let _ = socket
            .send(json_text(serde_json::json!({"type": "authFailed", "code": ErrorCode::RateLimited, "message": "too many failed attempts; wait a minute"})))
            .await;
        let _ = socket.send(close(CLOSE_TOO_MANY, "rate limited")).await;
        return;
    }
    // What to send once the socket is registered (pairing sends its own `paired`).
    let (device, ok) = match hello {
        Ok(Hello::Auth { token }) => match mesh.authenticate(&token) {
            Some(device) => {
                let ok = serde_json::json!({"type": "authOk", "device": device});
                (device, Some(ok))
            }
            None => {
                mesh.failures_allow(&client, true);
                refuse(
                    &mut socket,
                    ErrorCode::UnknownDevice,
                    "this device is not paired (or was revoked); pair it again",
                )
                .await;
                return;
            }
        },
        Ok(Hello::Pair { code, name, key }) => {
            match pair(&mut socket, &mesh, &code, &name, Offerer::Phone { key }, ip).await {
                Some(device) => (device, None),
                None => {
                    mesh.failures_allow(&client, true);
                    return;
                }
            }
        }
        Ok(Hello::Node {
            node,
            signature,
            nonce,
        }) => match mesh.authenticate_node(&node, &challenge, &signature) {
            Some(device) if nonce.len() >= 16 && nonce.len() <= 128 => {
                let proof = super::identity::proof::server(&node, &nonce, &mesh.identity.id);
                let ok = serde_json::json!({
                    "type": "authOk", "device": device,
                    "signature": super::identity::hex(&mesh.identity.sign(&proof)),
                });
                (device, Some(ok))
            }
            _ => {
                mesh.failures_allow(&client, true);
                refuse(
                    &mut socket,
                    ErrorCode::UnknownDevice,
                    "this node is not paired here (or was revoked), or its signature is wrong",
                )
                .await;
                return;
            }
        },
        Ok(Hello::PairNode {
            code,
            name,
            role,
            public_key,
            signature,
        }) => {
            let id = super::identity::unhex(&public_key)
                .filter(|k| k.len() == 32)
                .map(|k| super::identity::node_id(&k));
            let proven = id.as_ref().is_some_and(|id| {
                let statement =
                    super::identity::proof::pair(&mesh.identity.id, &challenge, &code, id);
                super::identity::verify(&public_key, &statement, &signature)
            });
            if !proven {
                mesh.failures_allow(&client, true);
                refuse(
                    &mut socket,
                    ErrorCode::BadSignature,
                    "the pairing offer is not signed by the key it names",
                )
                .await;
                return;
            }
            let offer = super::NodeOffer { public_key, role };
            match pair(&mut socket, &mesh, &code, &name, Offerer::Node(offer), ip).await {
                Some(device) => (device, None),
                None => {
                    mesh.failures_allow(&client, true);
                    return;
                }
            }
        }
        Err(_) => {
            mesh.failures_allow(&client, true);
            refuse(
                &mut socket,
                ErrorCode::Unauthenticated,
                "the first message must be {\"type\":\"auth\"} or {\"type\":\"pair\"}",
            )
            .await;
            return;
        }
    };
    // Authenticated: from now on the socket counts against `max_sockets` (and the device's 4),
    // checked before `authOk` so a socket over a limit is never told it is in.
    let registered = mesh
        .admit()
        .and_then(|total| mesh.register(&device.id).map(|r| (total, r)));
    let Some((_total, (_registration, revoked))) = registered else {
        let _ = socket
            .send(close(
                CLOSE_TOO_MANY,
                "too many connections for this device or this node",
            ))
            .await;
        return;
    };
    if let Some(ok) = ok {
        if socket.send(json_text(ok)).await.is_err() {
            return;
        }
    }
    authenticated(socket, mesh, device, revoked).await;
}

/// What a first message claims to be, for the failure budget on loopback (`Client`).
fn claim(hello: Option<&Hello>) -> String {
    match hello {
        Some(Hello::Auth { token }) => {
            format!("token:{}", &super::identity::token_hash(token)[..16])
        }
        Some(Hello::Node { node, .. }) => format!("node:{node}"),
        Some(Hello::Pair { .. } | Hello::PairNode { .. }) => "pair".into(),
        None => "unreadable".into(),
    }
}

async fn refuse(socket: &mut WebSocket, code: ErrorCode, message: &str) {
    let _ = socket
        .send(json_text(
            serde_json::json!({"type": "authFailed", "code": code, "message": message}),
        ))
        .await;
    let _ = socket
        .send(close(CLOSE_UNAUTHENTICATED, code.as_str()))
        .await;
}

/// How long a phone has for each step of the key exchange.
const EXCHANGE_DEADLINE: Duration = Duration::from_secs(10);

/// Who offers a pairing code.
enum Offerer {
    /// A phone, with its ECDH public key (`exchange`).
    Phone { key: String },
    /// A node, proven to hold the key it will be known by.
    Node(super::NodeOffer),
}

/// Offer the pairing code, agree on the verification code, then wait for the desktop's
/// decision; on approval the socket is authenticated as the new device.
async fn pair(
    socket: &mut WebSocket,
    mesh: &Arc<Mesh>,
    code: &str,
    name: &str,
    offerer: Offerer,
    from: std::net::IpAddr,
) -> Option<DeviceRecord> {
    let (phone_key, node) = match offerer {
        Offerer::Phone { key } => (Some(key), None),
        Offerer::Node(n) => (None, Some(n)),
    };
    let (mut changes, expires_at) = match mesh.offer(code, name, node, from) {
        Ok(v) => v,
        Err(e) => {
            refuse(socket, e.code(), &e.to_string()).await;
            return None;
        }
    };
    let mut sealing = None;
    let pending = match phone_key {
        Some(phone_key) => match exchange(socket, &phone_key).await {
            Ok((verification, key, node_nonce)) => {
                mesh.verified(verification).ok()?;
                sealing = Some(key);
                serde_json::json!({"type": "pairPending", "nonce": node_nonce, "node": mesh.name})
            }
            Err(why) => {
                mesh.abandon(why);
                refuse(socket, ErrorCode::BadExchange, why).await;
                return None;
            }
        },
        None => {
            // A node already pins this node's id (`circe join --node-id`): its code is the
            // server's, shown on both screens.
            let nonce = super::identity::base32(&super::identity::random_bytes(16));
            let verification = super::pairing::verification_code(&mesh.session_id()?, name, &nonce);
            mesh.verified(verification.clone()).ok()?;
            serde_json::json!({"type": "pairPending", "verification": verification, "node": mesh.name})
        }
    };
    socket.send(json_text(pending)).await.ok()?;
    let left = expires_at.saturating_sub(crate::clock::now());
    let decided = tokio::time::timeout(Duration::from_millis(left), async {
        changes
            .wait_for(|s| {
                !matches!(
                    s,
                    Stage::Open | Stage::Offered { .. } | Stage::Requested { .. }
                )
            })
            .await
            .map(|s| s.clone())
    })
    .await;
    let stage = match decided {
        Ok(Ok(stage)) => stage,
        _ => Stage::Closed {
            reason: "expired".into(),
        },
    };
    match (stage, mesh.take_approved()) {
        (Stage::Approved { .. }, Some((device, token))) => {
            // A node authenticates by its key from now on: it gets no token. A phone's token
            // travels sealed under the exchanged key.
            let paired = match sealing {
                Some(key) => serde_json::json!({
                    "type": "paired", "device": device,
                    "sealedToken": super::exchange::seal(&key, &token),
                }),
                None => serde_json::json!({"type": "paired", "device": device}),
            };
            socket.send(json_text(paired)).await.ok()?;
            Some(device)
        }
        (Stage::Denied, _) => {
            refuse(
                socket,
                ErrorCode::PairingDenied,
                "the desktop did not approve this device",
            )
            .await;
            None
        }
        _ => {
            refuse(
                socket,
                ErrorCode::PairingExpired,
                "the pairing expired before it was approved",
            )
            .await;
            None
        }
    }
}

/// The node's side of a phone's key exchange (`exchange`): returns the verification code, the
/// sealing key and the node's nonce (to reveal), or why it failed.
async fn exchange(
    socket: &mut WebSocket,
    phone_key: &str,
) -> Result<(String, [u8; 32], String), &'static str> {
    use super::exchange::{commit, is_nonce, nonce, KeyPair, Transcript};
    let keys = KeyPair::generate();
    let node_key = keys.public.clone();
    let node_nonce = nonce();
    let offer = serde_json::json!({
        "type": "pairKey", "key": node_key,
        "commit": commit(&node_key, phone_key, &node_nonce),
    });
    socket
        .send(json_text(offer))
        .await
        .map_err(|_| "the phone left during the key exchange")?;
    let answer = match tokio::time::timeout(EXCHANGE_DEADLINE, socket.recv()).await {
        Ok(Some(Ok(Message::Text(t)))) => t,
        _ => return Err("the phone did not send its nonce within 10 s"),
    };
    let phone_nonce = serde_json::from_str::<serde_json::Value>(answer.as_str())
        .ok()
        .filter(|v| v["type"] == "pairNonce")
        .and_then(|v| v["nonce"].as_str().map(String::from))
        .filter(|n| is_nonce(n))
        .ok_or("the phone's nonce is not 16 bytes in hex")?;
    let transcript = Transcript {
        phone_key,
        node_key: &node_key,
        phone_nonce: &phone_nonce,
        node_nonce: &node_nonce,
    };
    let verification = transcript.code();
    let key = keys
        .agree(phone_key, &transcript)
        .ok_or("the phone's key is not a P-256 point")?;
    Ok((verification, key, node_nonce))
}

/// Serve the control API to an authenticated device until it leaves or is revoked.
async fn authenticated(
    socket: WebSocket,
    mesh: Arc<Mesh>,
    device: DeviceRecord,
    revoked: tokio_util::sync::CancellationToken,
) {
    let (mut sink, mut stream) = socket.split();
    let (out, mut lines) = mpsc::channel::<String>(control::MAX_WAITING_REPLIES);
    let writer_revoked = revoked.clone();
    let keepalive = mesh.keepalive;
    // The reader's reason to close, when it is not revocation (an oversized message).
    let (ending, mut ended) = tokio::sync::oneshot::channel::<Message>();
    let writer = tokio::spawn(async move {
        let mut ping = tokio::time::interval(keepalive);
        ping.tick().await;
        loop {
            tokio::select! {
                biased;
                _ = writer_revoked.cancelled() => break,
                end = &mut ended => {
                    if let Ok(frame) = end {
                        let _ = sink.send(frame).await;
                    }
                    return;
                }
                _ = ping.tick() => {
                    if sink.send(Message::Ping(Vec::new().into())).await.is_err() {
                        return;
                    }
                }
                line = lines.recv() => match line {
                    Some(line) => {
                        if sink.send(Message::Text(line.into())).await.is_err() {
                            return;
                        }
                    }
                    None => break,
                },
            }
        }
        // The reader also stops on revocation and drops its sender: say why either way.
        if writer_revoked.is_cancelled() {
            let _ = sink
                .send(close(CLOSE_REVOKED, "this device was revoked"))
                .await;
        }
    });
    // A device that sent nothing (not even a pong) for three keepalive periods is gone.
    let silence = 3 * mesh.keepalive;
    let in_flight = control::InFlight::new();
    let mut too_large = false;
    // The phone's streamed microphone (binary messages), heard by this node's voice session.
    let mut microphone = super::microphone::Microphone::default();
    loop {
        let message = tokio::select! {
            m = stream.next() => m,
            _ = revoked.cancelled() => break,
            _ = tokio::time::sleep(silence) => {
                tracing::info!(device = %device.id, "closing a silent socket");
                break;
            }
        };
        let text = match message {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Binary(audio))) => {
                microphone.push(&audio, mesh.voice(), &device, &out).await;
                continue;
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Err(e)) if over_limit(&e) => {
                too_large = true;
                break;
            }
            // Close, or a broken socket.
            _ => break,
        };
        let Some(request) = handle(text.as_str(), &mesh, &device, &out).await else {
            continue;
        };
        // Back-pressure: with MAX_IN_FLIGHT requests unanswered, read nothing more until one is
        // (a stop never waits).
        let stop = matches!(request.verb, Verb::Interrupt { .. });
        let place = tokio::select! {
            place = in_flight.admit(stop) => place,
            _ = revoked.cancelled() => break,
        };
        control::dispatch(request, &mesh.engine, &out, &in_flight, place);
    }
    drop(out);
    if too_large {
        // Close 1009, not a reset: the library stops reading at the frame's header, so let the
        // close frame go out and give the client a moment to read it before the socket drops.
        let _ = ending.send(close(CLOSE_TOO_LARGE, "a message is over 64 KiB"));
        let _ = tokio::time::timeout(Duration::from_secs(1), writer).await;
        tokio::time::sleep(CLOSE_LINGER).await;
        return;
    }
    if revoked.is_cancelled() {
        let _ = writer.await;
    } else {
        // The device left. A subscription still holds a sender, so the writer would wait for
        // the next notification: stop it now, which also ends the subscription at its next send.
        writer.abort();
    }
    if revoked.is_cancelled() {
        // Let the close frame reach the device: wait (briefly) for its close reply, so the
        // connection is not reset with the frame still unread.
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            while let Some(Ok(m)) = stream.next().await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
}

/// Whether a read failed because the message (or frame) is over `MAX_MESSAGE_BYTES`.
fn over_limit(e: &axum::Error) -> bool {
    use std::error::Error as _;
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(t) = s.downcast_ref::<tokio_tungstenite::tungstenite::Error>() {
            return matches!(t, tokio_tungstenite::tungstenite::Error::Capacity(_));
        }
        source = s.source();
    }
    false
}

/// One message from an authenticated device: scope and rate limit. Returns the request to
/// dispatch, or `None` when it was refused (the refusal is queued on `out`, waiting for room).
async fn handle(
    line: &str,
    mesh: &Arc<Mesh>,
    device: &DeviceRecord,
    out: &mpsc::Sender<String>,
) -> Option<Request> {
    let line = RequestLine::parse(line);
    let id = line.id;
    let refusal = match check(line, mesh, device) {
        Ok(request) => return Some(request),
        Err(e) => e,
    };
    let _ = out.send(control::encode(id, Err(refusal))).await;
    None
}

/// Scope, routing and rate limit for one message from an authenticated device.
fn check(line: RequestLine, mesh: &Arc<Mesh>, device: &DeviceRecord) -> Result<Request, ApiError> {
    // Administration is refused by its name, whether or not the rest of it is well formed.
    if AdminVerb::NAMES.contains(&line.verb.as_str()) {
        let needs = if line.verb == "setPreference" {
            policy::Capability::Settings
        } else {
            policy::Capability::Devices
        };
        if !policy::allowed(&device.scopes, MessageKind::Admin(needs)) {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "this device's scope does not include {}; do that on the desktop",
                    needs.as_str()
                ),
            ));
        }
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "administration is served on the desktop only",
        ));
    }
    let Request { id, node, verb } = match line.parsed? {
        AnyRequest::Control(request) => request,
        // Its verb names administration, so it was refused above.
        AnyRequest::Admin(_) => {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "administration is served on the desktop only",
            ))
        }
        // The local voice verbs read files and open the desktop's microphone.
        AnyRequest::Voice(_) => {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "the voice verbs are served on the desktop's control socket only",
            ))
        }
    };
    if node.is_some_and(|n| n != mesh.name && n != mesh.identity.id) {
        // Routing is for this node's own user, on its control socket: a device's request is never
        // carried on to a third node.
        return Err(ApiError::new(
            ErrorCode::NotRouted,
            "this node does not carry a device's requests to other nodes; connect to that node",
        ));
    }
    let (kind, verb) = match verb {
        Verb::Submit { mut input } => {
            // Inputs are submitted under the authenticated device, never one it names.
            input.device = format!("device:{}", device.id);
            let kind = if input.choice.is_some() || input.expected_revision.is_some() {
                MessageKind::SubmitAnswer
            } else {
                MessageKind::SubmitText
            };
            (kind, Verb::Submit { input })
        }
        Verb::Interrupt { operation, .. } => (
            MessageKind::Interrupt,
            Verb::Interrupt {
                operation,
                device: format!("device:{}", device.id),
            },
        ),
        v @ Verb::State { .. } => (MessageKind::State, v),
        v @ Verb::Subscribe => (MessageKind::Subscribe, v),
        v @ Verb::Observation { .. } => (MessageKind::Observation, v),
    };
    if !policy::allowed(&device.scopes, kind) {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "this device's scope does not include {}",
                policy::required(kind).as_str()
            ),
        ));
    }
    if mesh.role == super::identity::Role::Controller
        && matches!(kind, MessageKind::SubmitText | MessageKind::SubmitAnswer)
    {
        // A controller acts nowhere itself, and a device's request is never carried on.
        return Err(ApiError::new(
            ErrorCode::ControllerNode,
            format!(
                "{} is a controller and acts nowhere itself; pair this device with the node that should act",
                mesh.name
            ),
        ));
    }
    if matches!(kind, MessageKind::SubmitText | MessageKind::SubmitAnswer)
        && !mesh.submit_allowed(&device.id)
    {
        return Err(ApiError::new(
            ErrorCode::RateLimited,
            "more than 5 inputs a second from this device; wait a moment",
        ));
    }
    Ok(Request {
        id,
        node: None,
        verb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_and_tls() {
        let on = |listen: &str, tls: TlsMode| check_listen(listen, tls).map(|(_, on)| on);
        assert!(!on("127.0.0.1:7457", TlsMode::Auto).unwrap());
        assert!(on("127.0.0.1:7457", TlsMode::On).unwrap());
        assert!(!on("[::1]:7457", TlsMode::Off).unwrap());
        // Beyond loopback: allowed, with TLS.
        assert!(on("0.0.0.0:7457", TlsMode::Auto).unwrap());
        assert!(on("192.168.1.5:7457", TlsMode::On).unwrap());
        let err = on("0.0.0.0:0", TlsMode::Off).unwrap_err().to_string();
        assert!(
            err.contains("[mesh] tls") && err.contains("not loopback"),
            "{err}"
        );
        let err = on("localhost:7457", TlsMode::Auto).unwrap_err().to_string();
        assert!(err.contains("[mesh] listen"), "{err}");
    }
}

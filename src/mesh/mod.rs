//! The node mesh: this node's identity, the directory of paired devices, pairing, and the
//! HTTP + WebSocket listener that serves the phone client and carries the control API.
//!
//! Invariants:
//! - the mesh carries exactly the four control verbs (submit, interrupt, state, subscribe);
//!   administration (pairing, devices, preferences) is served on the local control socket only;
//! - every WebSocket authenticates (a device token, or a pairing offer) before anything else,
//!   within 5 s; every message after that is checked against the device's scope;
//! - a device's input is submitted under its own device id, never under one it claims;
//! - revoking a device closes its sockets at once; tokens are stored only as SHA-256;
//! - the listener is loopback unless configured otherwise, and beyond loopback it serves TLS only
//!   (`[mesh] tls`, see `tls`): then every origin it accepts is `https://`.

pub mod exchange;
pub mod identity;
pub mod microphone;
pub mod pairing;
pub mod peer;
pub mod policy;
pub mod server;
pub mod slots;
pub mod tls;

use crate::clock;
use crate::daemon::engine::Engine;
use crate::model::Millis;
use crate::protocol::{
    AdminVerb, ApiError, DeviceView, DevicesView, ErrorCode, Forgotten, HelloNode, JoinStarted,
    Joined, LinkStatus, ListeningNode, NodeName, NodesView, PairDecided, PairStarted, PeerView,
    PreferenceSet, Revoked, RoleNode,
};
use crate::store::{DeviceRecord, Store};
use identity::{NodeIdentity, Role};
use pairing::{PairError, Session, Stage};
use policy::{Allowlist, Bucket};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// Live sockets a device may hold (limits table 6.3); the total is `[mesh] max_sockets` (64).
pub const MAX_SOCKETS_PER_DEVICE: usize = 4;

/// The open pairing session and what the approval produced.
struct Pairing {
    session: Session,
    /// Every change of the session's stage, for the CLI waiting to approve and the phone waiting
    /// to be approved.
    changes: watch::Sender<Stage>,
    /// The new device and its token, once approved, until the waiting phone takes it.
    approved: Option<(DeviceRecord, String)>,
    /// When a node (not a phone) offered the code: its public key and role.
    node: Option<NodeOffer>,
}

/// A node offering the pairing code proves it holds this key; its id is the key's hash.
#[derive(Clone, Debug)]
pub struct NodeOffer {
    pub public_key: String,
    pub role: Role,
}

pub struct Mesh {
    pub identity: Arc<NodeIdentity>,
    pub name: String,
    pub role: Role,
    pub engine: Arc<Engine>,
    pub allowlist: Allowlist,
    pub addr: SocketAddr,
    /// How often a ping goes out on each socket; three silent periods close it.
    pub keepalive: std::time::Duration,
    /// Whether the listener serves TLS (`[mesh] tls` and the listen address).
    pub tls: bool,
    /// With TLS: the browser certificate's fingerprint (`tls::spki_sha256_base64`).
    pub fingerprint: Option<String>,
    store: Mutex<Store>,
    pairing: Mutex<Option<Pairing>>,
    /// Live sockets by device id: each one's cancellation closes it.
    sockets: Mutex<HashMap<String, Vec<(u64, CancellationToken)>>>,
    total: AtomicUsize,
    max_sockets: usize,
    next_socket: AtomicU64,
    submit_buckets: Mutex<HashMap<String, Bucket>>,
    /// Failed authentications and pairing offers, by client (never a forwarded header).
    failure_buckets: Mutex<HashMap<Client, Bucket>>,
    /// The links to the nodes this one routes to.
    pub peers: peer::Peers,
    /// The stored preferences, as the executors read them.
    preferences: Arc<Preferences>,
    /// TCP connections held now (`[mesh] max_connections`, per address too).
    pub connections: Arc<slots::Slots>,
    /// TLS handshakes in progress (`server::MAX_HANDSHAKES`, per address too; the oldest is
    /// evicted for a newcomer).
    pub handshakes: Arc<slots::Evicting>,
    /// WebSockets that have not sent their first message (`server::MAX_UNAUTHENTICATED`, per
    /// address too; the oldest is evicted for a newcomer); authenticated ones count against
    /// `max_sockets` instead.
    pub unauthenticated: Arc<slots::Evicting>,
    /// `[mesh] header_timeout_ms`.
    pub header_timeout: std::time::Duration,
    /// A pairing with another node that this one started (`circe join`), awaiting approval there.
    joining: tokio::sync::Mutex<Option<Joining>>,
    /// The voice session a phone's streamed microphone goes through (`hear_with`); none: a
    /// phone's audio is refused as unavailable.
    voice: std::sync::OnceLock<Arc<crate::voice::session::VoiceSession>>,
}

/// This node's side of pairing with another node: the socket waits for the other's decision.
struct Joining {
    url: String,
    node: HelloNode,
    socket: peer::Ws,
}

use crate::preferences::{Preferences, MY_DESKTOP};

/// Who a failed attempt counts against: the peer's address (never a forwarded header). On
/// loopback, where every local client shares one address, the address and what the client
/// claimed to be (its token's hash, its node id, a pairing offer), so one local client's failures
/// do not lock out the others.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    ip: IpAddr,
    claim: Option<String>,
}

impl Client {
    pub fn new(ip: IpAddr, claim: impl Into<String>) -> Client {
        Client {
            ip,
            claim: ip.is_loopback().then(|| claim.into()),
        }
    }
}

/// Failure budgets kept at once. Beyond this, budgets that are whole again are forgotten; if
/// there is still no room, a client without a budget yet gets an empty one.
pub const MAX_FAILURE_BUDGETS: usize = 4096;

/// A live socket's registration; dropping it unregisters.
pub struct SocketGuard {
    mesh: Arc<Mesh>,
    device: String,
    id: u64,
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        let mut sockets = self.mesh.sockets.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(list) = sockets.get_mut(&self.device) {
            list.retain(|(id, _)| *id != self.id);
            if list.is_empty() {
                sockets.remove(&self.device);
            }
        }
    }
}

impl Mesh {
    /// Hear the phones' streamed microphones through `voice` (set once, at start).
    pub fn hear_with(&self, voice: Arc<crate::voice::session::VoiceSession>) {
        let _ = self.voice.set(voice);
    }

    pub fn voice(&self) -> Option<&Arc<crate::voice::session::VoiceSession>> {
        self.voice.get()
    }

    /// The mesh for a listener bound at `addr`, configured by `config` (`[node]` and `[mesh]`).
    pub fn new(
        identity: NodeIdentity,
        config: &crate::config::Config,
        engine: Arc<Engine>,
        store: Store,
        addr: SocketAddr,
        preferences: Arc<Preferences>,
    ) -> Arc<Mesh> {
        // `check_listen` refused `off` beyond loopback already; never fall back to plaintext.
        let tls = config.mesh.tls.enabled_for(addr.ip()).unwrap_or(true);
        let fingerprint = tls.then(|| tls::spki_sha256_base64(&identity));
        Arc::new(Mesh {
            identity: Arc::new(identity),
            name: config.node.name.clone(),
            role: config.node.role,
            engine,
            allowlist: Allowlist::for_listener(addr, &config.mesh.hosts, tls),
            addr,
            keepalive: std::time::Duration::from_millis(config.mesh.keepalive_ms.max(100)),
            tls,
            fingerprint,
            store: Mutex::new(store),
            pairing: Mutex::new(None),
            sockets: Mutex::new(HashMap::new()),
            total: AtomicUsize::new(0),
            max_sockets: config.mesh.max_sockets,
            next_socket: AtomicU64::new(1),
            submit_buckets: Mutex::new(HashMap::new()),
            failure_buckets: Mutex::new(HashMap::new()),
            peers: peer::Peers::default(),
            preferences,
            connections: slots::Slots::new(
                config.mesh.max_connections,
                config.mesh.max_connections_per_address,
            ),
            handshakes: slots::Evicting::new(
                server::MAX_HANDSHAKES,
                server::MAX_HANDSHAKES_PER_ADDRESS,
            ),
            unauthenticated: slots::Evicting::new(
                server::MAX_UNAUTHENTICATED,
                server::MAX_UNAUTHENTICATED_PER_ADDRESS,
            ),
            header_timeout: std::time::Duration::from_millis(
                config.mesh.header_timeout_ms.max(100),
            ),
            joining: tokio::sync::Mutex::new(None),
            voice: std::sync::OnceLock::new(),
        })
    }

    /// Start the links to every stored peer.
    pub fn start_peers(&self) -> Result<(), crate::store::StoreError> {
        for p in self.db(|s| s.peers())? {
            self.peers.start(self.identity.clone(), p, self.keepalive);
        }
        Ok(())
    }

    /// Where a request for `node` goes: `None` is this node; otherwise the link to that peer.
    /// A controller with no node named sends to its "my desktop" preference; without one it
    /// still reads its own state (`reading`), but acts nowhere.
    pub fn route(
        &self,
        node: Option<&str>,
        reading: bool,
    ) -> Result<Option<Arc<peer::Link>>, ApiError> {
        let named = match node {
            Some(n) if n == self.name || n == self.identity.id => return Ok(None),
            Some(n) => n.to_string(),
            None if self.role == Role::Controller => {
                match self.preferences.get(MY_DESKTOP) {
                    Some(n) => n,
                    None if reading => return Ok(None),
                    None => {
                        return Err(ApiError::new(
                            ErrorCode::NoTargetNode,
                            format!("this node is a controller: name the node to act on (--node NAME) or set the \"{MY_DESKTOP}\" preference (circe devices prefer \"{MY_DESKTOP}\" NAME)"),
                        ))
                    }
                }
            }
            None => return Ok(None),
        };
        self.peers.find(&named).map(Some).ok_or_else(|| {
            ApiError::new(
                ErrorCode::UnknownNode,
                format!("no node named {named} is paired with this one (see circe nodes; pair with circe join)"),
            )
        })
    }

    /// Offer another node's pairing code (`circe join`): returns the verification code to compare
    /// with the one that node shows. The socket then waits for its decision (`join_wait`).
    async fn join_start(
        &self,
        url: &str,
        code: &str,
        expect: Option<&str>,
    ) -> Result<JoinStarted, ApiError> {
        let fail = |code: ErrorCode, e: String| ApiError::new(code, e);
        let url = peer::socket_url(url).ok_or_else(|| {
            fail(
                ErrorCode::BadUrl,
                format!("{url} is not a node address like http://HOST:PORT"),
            )
        })?;
        if url.starts_with("wss://") && expect.is_none() {
            return Err(fail(
                ErrorCode::NodeIdRequired,
                format!("{url} is served over TLS: give the node id its circe pair shows (--node-id), which pins its certificate"),
            ));
        }
        let (mut socket, hello) = peer::open(&url, expect)
            .await
            .map_err(|e| fail(ErrorCode::NodeUnreachable, format!("{url}: {e}")))?;
        let node: HelloNode = serde_json::from_value(hello["node"].clone()).unwrap_or_default();
        let id = node.id.clone();
        let key_id = identity::unhex(&node.public_key).map(|k| identity::node_id(&k));
        if key_id.as_deref() != Some(id.as_str()) {
            return Err(fail(
                ErrorCode::BadNode,
                format!("the node at {url} gives an id that is not its key's"),
            ));
        }
        if expect.is_some_and(|e| e != id) {
            return Err(fail(
                ErrorCode::WrongNode,
                format!("the node at {url} is {id}, not the node id you gave; nothing was paired"),
            ));
        }
        self.name_free(&node.name, &id)?;
        let challenge = hello["challenge"].as_str().unwrap_or_default();
        let statement = identity::proof::pair(&id, challenge, code, &self.identity.id);
        let offer = serde_json::json!({
            "type": "pairNode", "code": code, "name": self.name, "role": self.role,
            "publicKey": identity::hex(self.identity.public_key()),
            "signature": identity::hex(&self.identity.sign(&statement)),
        });
        use futures_util::SinkExt;
        socket
            .send(tokio_tungstenite::tungstenite::Message::Text(
                offer.to_string().into(),
            ))
            .await
            .map_err(|e| fail(ErrorCode::NodeUnreachable, e.to_string()))?;
        let answer = peer::next_json(&mut socket, std::time::Duration::from_secs(10))
            .await
            .map_err(|e| fail(ErrorCode::NodeUnreachable, e))?;
        if answer["type"] != "pairPending" {
            return Err(fail(
                answer["code"]
                    .as_str()
                    .map_or(ErrorCode::PairingRefused, ErrorCode::from_wire),
                answer["message"]
                    .as_str()
                    .unwrap_or("the node refused the pairing")
                    .to_string(),
            ));
        }
        let started = JoinStarted {
            verification: answer["verification"].as_str().map(String::from),
            node: node.clone(),
        };
        *self.joining.lock().await = Some(Joining { url, node, socket });
        Ok(started)
    }

    /// `--node NAME` must name exactly one node: this one, or one peer.
    fn name_free(&self, name: &str, id: &str) -> Result<(), ApiError> {
        let clash = self
            .db(|s| s.peers())
            .map_err(store_error)?
            .into_iter()
            .any(|p| p.name == name && p.id != id);
        if name.is_empty() || name == self.name || clash {
            return Err(ApiError::new(
                ErrorCode::NodeNameTaken,
                format!("this node or one of its peers is already called {name:?}: rename one ([node] name) and pair again; nothing was paired"),
            ));
        }
        Ok(())
    }

    /// Wait for the other node's decision; on approval it becomes a peer and its link starts.
    async fn join_wait(&self) -> Result<Joined, ApiError> {
        let Some(mut j) = self.joining.lock().await.take() else {
            return Err(ApiError::new(
                ErrorCode::NoPairing,
                "no pairing with another node is waiting; run circe join first",
            ));
        };
        let answer = peer::next_json(
            &mut j.socket,
            std::time::Duration::from_millis(pairing::SESSION_MS + 5_000),
        )
        .await
        .map_err(|e| ApiError::new(ErrorCode::PairingExpired, e))?;
        if answer["type"] != "paired" {
            return Err(ApiError::new(
                answer["code"]
                    .as_str()
                    .map_or(ErrorCode::PairingDenied, ErrorCode::from_wire),
                answer["message"]
                    .as_str()
                    .unwrap_or("the other node did not approve")
                    .to_string(),
            ));
        }
        let record = crate::store::PeerRecord {
            id: j.node.id,
            name: j.node.name,
            url: j.url,
            public_key: j.node.public_key,
            added_at: clock::now(),
        };
        let r = record.clone();
        self.db(move |s| s.upsert_peer(&r)).map_err(store_error)?;
        self.peers
            .start(self.identity.clone(), record.clone(), self.keepalive);
        tracing::info!(peer = %record.name, id = %record.id, "paired with a node");
        Ok(Joined { peer: record })
    }

    fn db<T>(&self, f: impl FnOnce(&mut Store) -> T) -> T {
        f(&mut self.store.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The live device holding `token`, if any.
    pub fn authenticate(&self, token: &str) -> Option<DeviceRecord> {
        let hash = identity::token_hash(token);
        let device = self.db(|s| s.device_by_token(&hash)).ok().flatten()?;
        let _ = self.db(|s| s.touch_device(&device.id, clock::now()));
        Some(device)
    }

    /// The live node device `node`, if `signature` proves it answered `challenge` with its key.
    pub fn authenticate_node(
        &self,
        node: &str,
        challenge: &str,
        signature: &str,
    ) -> Option<DeviceRecord> {
        let device = self.db(|s| s.node_device(node)).ok().flatten()?;
        let statement = identity::proof::client(&self.identity.id, challenge, node);
        if !identity::verify(device.public_key.as_deref()?, &statement, signature) {
            return None;
        }
        let _ = self.db(|s| s.touch_device(&device.id, clock::now()));
        Some(device)
    }

    /// Whether `client` may try to authenticate or pair now; `fail` records a failed attempt.
    pub fn failures_allow(&self, client: &Client, fail: bool) -> bool {
        let now = clock::now();
        let mut buckets = self
            .failure_buckets
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !buckets.contains_key(client) && buckets.len() >= MAX_FAILURE_BUDGETS {
            buckets.retain(|_, b| !b.whole(now));
            if buckets.len() >= MAX_FAILURE_BUDGETS {
                return false;
            }
        }
        // 10 failures at once, then one every 6 s: a cool-down, never a permanent ban.
        let bucket = buckets
            .entry(client.clone())
            .or_insert_with(|| Bucket::new(10.0 / 60.0, 10.0, now));
        if fail {
            bucket.take(now)
        } else {
            let mut probe = *bucket;
            probe.take(now)
        }
    }

    /// Take a submit token for `device`; false when over 5/s (burst 20).
    pub fn submit_allowed(&self, device: &str) -> bool {
        let now = clock::now();
        self.submit_buckets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(device.to_string())
            .or_insert_with(|| policy::submit_bucket(now))
            .take(now)
    }

    /// Register a live socket for `device`; `None` when over the limits.
    pub fn register(self: &Arc<Mesh>, device: &str) -> Option<(SocketGuard, CancellationToken)> {
        let mut sockets = self.sockets.lock().unwrap_or_else(|p| p.into_inner());
        let list = sockets.entry(device.to_string()).or_default();
        if list.len() >= MAX_SOCKETS_PER_DEVICE {
            return None;
        }
        let id = self.next_socket.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        list.push((id, token.clone()));
        Some((
            SocketGuard {
                mesh: self.clone(),
                device: device.to_string(),
                id,
            },
            token,
        ))
    }

    /// Count a socket against the total; `None` when the node already has `max_sockets`.
    pub fn admit(self: &Arc<Mesh>) -> Option<TotalGuard> {
        let n = self.total.fetch_add(1, Ordering::SeqCst);
        if n >= self.max_sockets {
            self.total.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(TotalGuard(self.clone()))
    }

    /// A phone (or node) at `from` offers the pairing code. Returns a receiver of the session's
    /// changes, to wait for the desktop's decision, and when the session expires; the session is
    /// `Offered` until `verified` gives the verification code.
    pub fn offer(
        &self,
        code: &str,
        name: &str,
        node: Option<NodeOffer>,
        from: IpAddr,
    ) -> Result<(watch::Receiver<Stage>, Millis), PairError> {
        let mut pairing = self.pairing.lock().unwrap_or_else(|p| p.into_inner());
        let Some(p) = pairing.as_mut() else {
            return Err(PairError::NoSession);
        };
        let result = p.session.offer(code, name, from, clock::now());
        p.changes.send_replace(p.session.stage.clone());
        result?;
        p.node = node;
        Ok((p.changes.subscribe(), p.session.expires_at))
    }

    /// The offered session's verification code: the desktop shows it and may now decide.
    pub fn verified(&self, verification: String) -> Result<(), PairError> {
        let mut pairing = self.pairing.lock().unwrap_or_else(|p| p.into_inner());
        let Some(p) = pairing.as_mut() else {
            return Err(PairError::NoSession);
        };
        let result = p.session.verify(verification, clock::now());
        p.changes.send_replace(p.session.stage.clone());
        result
    }

    /// The offering side left during the key exchange: the session is closed, saying why.
    pub fn abandon(&self, reason: &str) {
        let mut pairing = self.pairing.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = pairing.as_mut() {
            p.session.abandon(reason);
            p.changes.send_replace(p.session.stage.clone());
        }
    }

    /// The session's id (a node's verification code is derived from it).
    pub fn session_id(&self) -> Option<String> {
        self.pairing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|p| p.session.id.clone())
    }

    /// After approval: the new device and its token, handed out once.
    pub fn take_approved(&self) -> Option<(DeviceRecord, String)> {
        self.pairing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .and_then(|p| p.approved.take())
    }

    fn pair_start(&self) -> PairStarted {
        let now = clock::now();
        let session = Session::open(
            identity::base32(&identity::random_bytes(16)),
            identity::numeric_code(pairing::CODE_DIGITS),
            now,
        );
        let (changes, _) = watch::channel(Stage::Open);
        let url = format!("{}/#pair", self.allowlist.own_origin());
        let started = PairStarted {
            code: session.code.clone(),
            url,
            expires_at: session.expires_at,
            node: NodeName {
                id: self.identity.id.clone(),
                name: self.name.clone(),
            },
            tls: self.tls,
            fingerprint: self.fingerprint.clone(),
        };
        // One session at a time: a new one replaces (and closes) the old.
        *self.pairing.lock().unwrap_or_else(|p| p.into_inner()) = Some(Pairing {
            session,
            changes,
            approved: None,
            node: None,
        });
        started
    }

    async fn pair_wait(&self) -> Result<Stage, ApiError> {
        let (mut rx, expires_at) = {
            let pairing = self.pairing.lock().unwrap_or_else(|p| p.into_inner());
            let p = pairing
                .as_ref()
                .ok_or_else(|| no_pairing(PairError::NoSession))?;
            (p.changes.subscribe(), p.session.expires_at)
        };
        let left = expires_at.saturating_sub(clock::now());
        let wait = async {
            rx.wait_for(|s| !matches!(s, Stage::Open | Stage::Offered { .. }))
                .await
                .map(|s| s.clone())
        };
        let stage = match tokio::time::timeout(std::time::Duration::from_millis(left), wait).await {
            Ok(Ok(stage)) => stage,
            _ => Stage::Closed {
                reason: "expired".into(),
            },
        };
        Ok(stage)
    }

    fn pair_decide(&self, approve: bool) -> Result<PairDecided, ApiError> {
        let mut pairing = self.pairing.lock().unwrap_or_else(|p| p.into_inner());
        let p = pairing
            .as_mut()
            .ok_or_else(|| no_pairing(PairError::NoSession))?;
        let now = clock::now();
        let decided = p.session.decide(approve, now);
        let name = match decided {
            Ok(Some(name)) => name,
            Ok(None) => {
                p.changes.send_replace(p.session.stage.clone());
                return Ok(PairDecided {
                    approved: false,
                    device: None,
                });
            }
            Err(e) => {
                p.changes.send_replace(p.session.stage.clone());
                return Err(no_pairing(e));
            }
        };
        let token = identity::new_token();
        // A node is known by its key (its id is the key's hash); a phone by a random id and token.
        let (id, role, public_key) = match &p.node {
            Some(n) => (
                identity::node_id(&identity::unhex(&n.public_key).unwrap_or_default()),
                n.role,
                Some(n.public_key.clone()),
            ),
            None => (
                identity::base32(&identity::random_bytes(10)),
                Role::Controller,
                None,
            ),
        };
        let device = DeviceRecord {
            id,
            name,
            role: role.as_str().into(),
            scopes: policy::PHONE_SCOPE.to_vec(),
            created_at: now,
            last_seen: None,
            revoked_at: None,
            public_key,
        };
        self.db(|s| s.insert_device(&device, &identity::token_hash(&token)))
            .map_err(store_error)?;
        p.approved = Some((device.clone(), token));
        p.changes.send_replace(p.session.stage.clone());
        Ok(PairDecided {
            approved: true,
            device: Some(device),
        })
    }

    /// Revoke `id`, close its sockets now, and stop what it started that is still running.
    pub async fn revoke(&self, id: &str) -> Result<Revoked, ApiError> {
        let revoked = self
            .db(|s| s.revoke_device(id, clock::now()))
            .map_err(store_error)?;
        if !revoked {
            return Err(ApiError::new(
                ErrorCode::UnknownDevice,
                format!("no live device with id {id}"),
            ));
        }
        let closed = self
            .sockets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
            .unwrap_or_default();
        for (_, token) in &closed {
            token.cancel();
        }
        let stopped = self
            .engine
            .stop_from_device(
                &format!("device:{id}"),
                &format!("revocation of device:{id}"),
            )
            .await?;
        tracing::info!(
            device = id,
            sockets = closed.len(),
            stopped = stopped.len(),
            "device revoked"
        );
        Ok(Revoked {
            revoked: id.to_string(),
            closed_sockets: closed.len(),
            stopped_operations: stopped,
        })
    }

    /// A local administration request (from the control socket: this OS user only).
    pub async fn admin(&self, verb: AdminVerb) -> Result<serde_json::Value, ApiError> {
        match verb {
            AdminVerb::PairStart => reply(self.pair_start()),
            AdminVerb::PairWait => reply(self.pair_wait().await?),
            AdminVerb::PairDecide { approve } => reply(self.pair_decide(approve)?),
            AdminVerb::Devices => reply(self.devices()?),
            AdminVerb::Revoke { device } => reply(self.revoke(&device).await?),
            AdminVerb::JoinStart { url, code, node } => {
                reply(self.join_start(&url, &code, node.as_deref()).await?)
            }
            AdminVerb::JoinWait => reply(self.join_wait().await?),
            AdminVerb::Nodes => reply(self.nodes()?),
            AdminVerb::Forget { node } => reply(self.forget(&node)?),
            AdminVerb::SetPreference { key, value } => reply(self.set_preference(key, value)?),
        }
    }

    /// This node, its devices (with how many sockets each holds now) and its preferences.
    fn devices(&self) -> Result<DevicesView, ApiError> {
        let devices = self.db(|s| s.devices()).map_err(store_error)?;
        let live = self
            .sockets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let preferences = self.db(|s| s.preferences()).map_err(store_error)?;
        let devices = devices
            .into_iter()
            .map(|device| DeviceView {
                sockets: live.get(&device.id).map_or(0, Vec::len),
                device,
            })
            .collect();
        Ok(DevicesView {
            node: ListeningNode {
                id: self.identity.id.clone(),
                name: self.name.clone(),
                role: self.role.as_str().into(),
                listen: self.addr.to_string(),
                origin: self.allowlist.own_origin().to_string(),
                tls: self.tls,
                fingerprint: self.fingerprint.clone(),
            },
            devices,
            preferences: preferences.into_iter().collect(),
        })
    }

    /// The peers this node routes to, and whether each is online.
    fn nodes(&self) -> Result<NodesView, ApiError> {
        let peers = self.db(|s| s.peers()).map_err(store_error)?;
        let statuses = self.peers.statuses();
        let nodes = peers
            .into_iter()
            .map(|peer| PeerView {
                link: statuses
                    .iter()
                    .find(|s| s.id == peer.id)
                    .map(|s| LinkStatus {
                        online: s.online,
                        since: s.since,
                        error: s.error.clone(),
                    }),
                peer,
            })
            .collect();
        Ok(NodesView {
            node: RoleNode {
                id: self.identity.id.clone(),
                name: self.name.clone(),
                role: self.role.as_str().into(),
            },
            nodes,
        })
    }

    /// Stop routing to `node` (a name or an id) and forget it.
    fn forget(&self, node: &str) -> Result<Forgotten, ApiError> {
        let id = self
            .peers
            .find(node)
            .map(|l| l.peer.id.clone())
            .unwrap_or(node.to_string());
        let removed = self
            .db(|s| s.remove_peer(&id, clock::now()))
            .map_err(store_error)?;
        self.peers.stop(&id);
        if !removed {
            return Err(ApiError::new(
                ErrorCode::UnknownNode,
                format!("no node {node} is paired with this one"),
            ));
        }
        Ok(Forgotten { forgotten: id })
    }

    /// Set or (with no value) remove a preference: the store first, then the shared copy.
    fn set_preference(
        &self,
        key: String,
        value: Option<String>,
    ) -> Result<PreferenceSet, ApiError> {
        if key.is_empty() || key.len() > 64 || value.as_ref().is_some_and(|v| v.len() > 1024) {
            return Err(ApiError::new(
                ErrorCode::BadPreference,
                "a preference key is 1 to 64 bytes and its value at most 1024",
            ));
        }
        self.db(|s| s.set_preference(&key, value.as_deref(), clock::now()))
            .map_err(store_error)?;
        self.preferences.set(&key, value.as_deref());
        Ok(PreferenceSet { key, value })
    }
}

fn store_error(e: crate::store::StoreError) -> ApiError {
    ApiError::new(ErrorCode::StoreError, e.to_string())
}

/// An administration reply as the JSON of its reply line.
fn reply<T: serde::Serialize>(value: T) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(value).map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
}

/// A socket counted against the node's total.
pub struct TotalGuard(Arc<Mesh>);

impl Drop for TotalGuard {
    fn drop(&mut self) {
        self.0.total.fetch_sub(1, Ordering::SeqCst);
    }
}

fn no_pairing(e: PairError) -> ApiError {
    ApiError::new(e.code(), e.to_string())
}

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

pub mod identity;
pub mod pairing;
pub mod policy;
pub mod server;
pub mod tls;

use crate::clock;
use crate::daemon::engine::Engine;
use crate::model::Millis;
use crate::protocol::{AdminVerb, ApiError};
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
}

pub struct Mesh {
    pub identity: NodeIdentity,
    pub name: String,
    pub role: Role,
    pub engine: Arc<Engine>,
    pub allowlist: Allowlist,
    pub addr: SocketAddr,
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
    /// Failed authentications and pairing offers, by peer address (never a forwarded header).
    failure_buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

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
    /// The mesh for a listener bound at `addr`, configured by `config` (`[node]` and `[mesh]`).
    pub fn new(
        identity: NodeIdentity,
        config: &crate::config::Config,
        engine: Arc<Engine>,
        store: Store,
        addr: SocketAddr,
    ) -> Arc<Mesh> {
        // `check_listen` refused `off` beyond loopback already; never fall back to plaintext.
        let tls = config.mesh.tls.enabled_for(addr.ip()).unwrap_or(true);
        let fingerprint = tls.then(|| tls::spki_sha256_base64(&identity));
        Arc::new(Mesh {
            identity,
            name: config.node.name.clone(),
            role: config.node.role,
            engine,
            allowlist: Allowlist::for_listener(addr, &config.mesh.hosts, tls),
            addr,
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
        })
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

    /// Whether `peer` may try to authenticate or pair now; `fail` records a failed attempt.
    pub fn failures_allow(&self, peer: IpAddr, fail: bool) -> bool {
        let now = clock::now();
        let mut buckets = self
            .failure_buckets
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        // 10 failures at once, then one every 6 s: a cool-down, never a permanent ban.
        let bucket = buckets
            .entry(peer)
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

    /// A phone offers the pairing code. Returns the verification code and a receiver of the
    /// session's changes, to wait for the desktop's decision.
    pub fn offer(
        &self,
        code: &str,
        name: &str,
    ) -> Result<(String, watch::Receiver<Stage>, Millis), PairError> {
        let mut pairing = self.pairing.lock().unwrap_or_else(|p| p.into_inner());
        let Some(p) = pairing.as_mut() else {
            return Err(PairError::NoSession);
        };
        let nonce = identity::base32(&identity::random_bytes(16));
        let result = p.session.offer(code, name, &nonce, clock::now());
        p.changes.send_replace(p.session.stage.clone());
        let verification = result?;
        Ok((verification, p.changes.subscribe(), p.session.expires_at))
    }

    /// After approval: the new device and its token, handed out once.
    pub fn take_approved(&self) -> Option<(DeviceRecord, String)> {
        self.pairing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .and_then(|p| p.approved.take())
    }

    fn pair_start(&self) -> serde_json::Value {
        let now = clock::now();
        let session = Session::open(
            identity::base32(&identity::random_bytes(16)),
            identity::numeric_code(pairing::CODE_DIGITS),
            now,
        );
        let (changes, _) = watch::channel(Stage::Open);
        let url = format!("{}/#pair", self.allowlist.own_origin());
        let out = serde_json::json!({
            "code": session.code,
            "url": url,
            "expiresAt": session.expires_at,
            "node": {"id": self.identity.id, "name": self.name},
            "tls": self.tls,
            "fingerprint": self.fingerprint,
        });
        // One session at a time: a new one replaces (and closes) the old.
        *self.pairing.lock().unwrap_or_else(|p| p.into_inner()) = Some(Pairing {
            session,
            changes,
            approved: None,
        });
        out
    }

    async fn pair_wait(&self) -> Result<serde_json::Value, ApiError> {
        let (mut rx, expires_at) = {
            let pairing = self.pairing.lock().unwrap_or_else(|p| p.into_inner());
            let p = pairing
                .as_ref()
                .ok_or_else(|| no_pairing(PairError::NoSession))?;
            (p.changes.subscribe(), p.session.expires_at)
        };
        let left = expires_at.saturating_sub(clock::now());
        let wait = async {
            rx.wait_for(|s| !matches!(s, Stage::Open))
                .await
                .map(|s| s.clone())
        };
        let stage = match tokio::time::timeout(std::time::Duration::from_millis(left), wait).await {
            Ok(Ok(stage)) => stage,
            _ => Stage::Closed {
                reason: "expired".into(),
            },
        };
        Ok(stage_json(&stage))
    }

    fn pair_decide(&self, approve: bool) -> Result<serde_json::Value, ApiError> {
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
                return Ok(serde_json::json!({"approved": false}));
            }
            Err(e) => {
                p.changes.send_replace(p.session.stage.clone());
                return Err(no_pairing(e));
            }
        };
        let token = identity::new_token();
        let device = DeviceRecord {
            id: identity::base32(&identity::random_bytes(10)),
            name,
            role: Role::Controller.as_str().into(),
            scopes: policy::PHONE_SCOPE.to_vec(),
            created_at: now,
            last_seen: None,
            revoked_at: None,
        };
        self.db(|s| s.insert_device(&device, &identity::token_hash(&token)))
            .map_err(|e| ApiError::new("store_error", e.to_string()))?;
        p.approved = Some((device.clone(), token));
        p.changes.send_replace(p.session.stage.clone());
        Ok(serde_json::json!({"approved": true, "device": device}))
    }

    /// Revoke `id` and close its sockets now.
    pub fn revoke(&self, id: &str) -> Result<serde_json::Value, ApiError> {
        let revoked = self
            .db(|s| s.revoke_device(id, clock::now()))
            .map_err(|e| ApiError::new("store_error", e.to_string()))?;
        if !revoked {
            return Err(ApiError::new(
                "unknown_device",
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
        tracing::info!(device = id, sockets = closed.len(), "device revoked");
        Ok(serde_json::json!({"revoked": id, "closedSockets": closed.len()}))
    }

    /// A local administration request (from the control socket: this OS user only).
    pub async fn admin(&self, verb: AdminVerb) -> Result<serde_json::Value, ApiError> {
        let store_err = |e: crate::store::StoreError| ApiError::new("store_error", e.to_string());
        match verb {
            AdminVerb::PairStart => Ok(self.pair_start()),
            AdminVerb::PairWait => self.pair_wait().await,
            AdminVerb::PairDecide { approve } => self.pair_decide(approve),
            AdminVerb::Devices => {
                let devices = self.db(|s| s.devices()).map_err(store_err)?;
                let live = self
                    .sockets
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                let preferences = self.db(|s| s.preferences()).map_err(store_err)?;
                let devices: Vec<serde_json::Value> = devices
                    .into_iter()
                    .map(|d| {
                        let sockets = live.get(&d.id).map_or(0, Vec::len);
                        let mut v = serde_json::to_value(&d).unwrap_or_default();
                        v["sockets"] = sockets.into();
                        v
                    })
                    .collect();
                Ok(serde_json::json!({
                    "node": {"id": self.identity.id, "name": self.name, "role": self.role, "listen": self.addr.to_string(),
                        "origin": self.allowlist.own_origin(), "tls": self.tls, "fingerprint": self.fingerprint},
                    "devices": devices,
                    "preferences": preferences.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
                }))
            }
            AdminVerb::Revoke { device } => self.revoke(&device),
            AdminVerb::SetPreference { key, value } => {
                if key.is_empty()
                    || key.len() > 64
                    || value.as_ref().is_some_and(|v| v.len() > 1024)
                {
                    return Err(ApiError::new(
                        "bad_preference",
                        "a preference key is 1 to 64 bytes and its value at most 1024",
                    ));
                }
                self.db(|s| s.set_preference(&key, value.as_deref(), clock::now()))
                    .map_err(store_err)?;
                Ok(serde_json::json!({"key": key, "value": value}))
            }
        }
    }
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

pub fn stage_json(stage: &Stage) -> serde_json::Value {
    match stage {
        Stage::Open => serde_json::json!({"stage": "open"}),
        Stage::Requested { name, verification } => {
            serde_json::json!({"stage": "requested", "name": name, "verification": verification})
        }
        Stage::Approved { name } => serde_json::json!({"stage": "approved", "name": name}),
        Stage::Denied => serde_json::json!({"stage": "denied"}),
        Stage::Closed { reason } => serde_json::json!({"stage": "closed", "reason": reason}),
    }
}

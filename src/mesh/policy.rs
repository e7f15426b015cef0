//! Pure policy: which Host and Origin a request may carry, what each scope allows, and the
//! per-device rate limiter. Each takes data and returns data; the server only applies them.
//!
//! Invariants:
//! - Host and Origin are compared exactly (case-insensitive, port included, one trailing dot
//!   tolerated); never by suffix or prefix, and never "Origin equals Host".
//! - A missing Origin is refused on the device WebSocket; `null` is refused everywhere.
//! - Behind TLS only `https://` origins are accepted; without it only `http://` ones.
//! - `required` is an exhaustive match: a new message kind cannot compile without a capability.
//! - `stop` is never rate limited.

use std::net::SocketAddr;

/// The names this listener answers to, and the origins of the pages it serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allowlist {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl Allowlist {
    /// For a listener on `addr`: on loopback, `localhost`, `127.0.0.1` and `[::1]` at its port.
    /// With `tls` its origins are `https://…` only (no `http://` origin is accepted then).
    pub fn for_listener(addr: SocketAddr, extra_hosts: &[String], tls: bool) -> Allowlist {
        let scheme = if tls { "https" } else { "http" };
        let port = addr.port();
        let mut names: Vec<String> = Vec::new();
        if addr.ip().is_loopback() {
            names.extend(["127.0.0.1".into(), "localhost".into(), "[::1]".into()]);
        } else {
            names.push(match addr.ip() {
                std::net::IpAddr::V6(ip) => format!("[{ip}]"),
                ip => ip.to_string(),
            });
        }
        names.extend(extra_hosts.iter().map(|h| h.to_ascii_lowercase()));
        Allowlist {
            hosts: names.iter().map(|n| format!("{n}:{port}")).collect(),
            origins: names
                .iter()
                .map(|n| format!("{scheme}://{n}:{port}"))
                .collect(),
        }
    }

    /// The `Host` header must name this listener exactly.
    pub fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        let host = normalize_host(host);
        !host.is_empty() && self.hosts.contains(&host)
    }

    /// The `Origin` header must be one of this listener's own origins. `None` (no header) is
    /// refused: every client of the device endpoint sends one (browsers always do).
    pub fn origin_allowed(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else { return false };
        let origin = origin.trim().to_ascii_lowercase();
        let origin = origin.trim_end_matches('/');
        self.origins.iter().any(|o| o == origin)
    }

    /// The origin a non-browser client (the CLI of another node, tests) presents.
    pub fn own_origin(&self) -> &str {
        &self.origins[0]
    }
}

/// Lower-case, drop one trailing dot before the port, and add no default port: a Host without
/// a port never matches (the listener never runs on 80).
fn normalize_host(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    match host.rsplit_once(':') {
        Some((name, port)) => {
            if name.is_empty() || port.is_empty() {
                return String::new();
            }
            format!("{}:{port}", name.strip_suffix('.').unwrap_or(name))
        }
        None => host,
    }
}

pub use crate::model::Capability;

/// The scope a paired phone (or controller) gets.
pub const PHONE_SCOPE: &[Capability] = &[
    Capability::Read,
    Capability::Submit,
    Capability::Answer,
    Capability::Confirm,
    Capability::Stop,
];

/// Every kind of message a mesh client can send after authenticating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// `submit` of a new request or a correction (text, no choice).
    SubmitText,
    /// `submit` carrying a choice or an expected revision: an answer or a confirmation.
    SubmitAnswer,
    Interrupt,
    State,
    Subscribe,
    /// `observation`: what Circe saw at a step (the phone's "what Circe saw").
    Observation,
    /// Any local administration verb (`pairStart`, `devices`, `revoke`, settings): never
    /// served to a mesh device without the capability.
    Admin(Capability),
}

/// The capability a message needs.
pub fn required(kind: MessageKind) -> Capability {
    match kind {
        MessageKind::SubmitText => Capability::Submit,
        MessageKind::SubmitAnswer => Capability::Answer,
        MessageKind::Interrupt => Capability::Stop,
        MessageKind::State | MessageKind::Subscribe | MessageKind::Observation => Capability::Read,
        MessageKind::Admin(c) => c,
    }
}

/// Whether `scope` allows `kind`. Stop is allowed whenever the device is authenticated at all.
pub fn allowed(scope: &[Capability], kind: MessageKind) -> bool {
    kind == MessageKind::Interrupt || scope.contains(&required(kind))
}

/// A token bucket: `rate` tokens a second, at most `burst` saved up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    pub rate_per_s: f64,
    pub burst: f64,
    tokens: f64,
    at_ms: u64,
}

impl Bucket {
    pub fn new(rate_per_s: f64, burst: f64, now_ms: u64) -> Bucket {
        Bucket {
            rate_per_s,
            burst,
            tokens: burst,
            at_ms: now_ms,
        }
    }

    /// Whether the bucket has refilled to its burst by `now_ms` (nothing to remember).
    pub fn whole(&self, now_ms: u64) -> bool {
        let elapsed = now_ms.saturating_sub(self.at_ms) as f64 / 1000.0;
        self.tokens + elapsed * self.rate_per_s >= self.burst
    }

    /// Take one token at `now_ms`; false (and nothing taken) when the bucket is empty.
    pub fn take(&mut self, now_ms: u64) -> bool {
        let elapsed = now_ms.saturating_sub(self.at_ms) as f64 / 1000.0;
        self.tokens = (self.tokens + elapsed * self.rate_per_s).min(self.burst);
        self.at_ms = self.at_ms.max(now_ms);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Submit: 5 a second, burst 20 (security notes, limits table 6.3).
pub fn submit_bucket(now_ms: u64) -> Bucket {
    Bucket::new(5.0, 20.0, now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> Allowlist {
        Allowlist::for_listener("127.0.0.1:7457".parse().unwrap(), &[], false)
    }

    #[test]
    fn hosts() {
        let cases: &[(Option<&str>, bool)] = &[
            (Some("127.0.0.1:7457"), true),
            (Some("localhost:7457"), true),
            (Some("LOCALHOST:7457"), true),
            (Some("localhost.:7457"), true),
            (Some("[::1]:7457"), true),
            (Some("evil.example"), false),
            (Some("evil.example:7457"), false),
            (Some("127.0.0.1.nip.io:7457"), false),
            (Some("localhost.evil.example:7457"), false),
            (Some("[::]:7457"), false),
            (Some(""), false),
            (Some(":7457"), false),
            (Some("localhost"), false),
            (Some("localhost:7458"), false),
            (None, false),
        ];
        for (host, want) in cases {
            assert_eq!(local().host_allowed(*host), *want, "{host:?}");
        }
    }

    #[test]
    fn origins() {
        let cases: &[(Option<&str>, bool)] = &[
            (Some("http://127.0.0.1:7457"), true),
            (Some("http://localhost:7457"), true),
            (Some("http://localhost:7457/"), true),
            (Some("https://evil.example"), false),
            (Some("null"), false),
            (Some("http://localhost.evil.example:7457"), false),
            (Some("http://localhost:7458"), false),
            (Some("http://evil.example:7457"), false),
            (Some("http://127.0.0.1:74570"), false),
            (Some(""), false),
            (None, false),
        ];
        for (origin, want) in cases {
            assert_eq!(local().origin_allowed(*origin), *want, "{origin:?}");
        }
    }

    #[test]
    fn lan_listener_names_only_its_address() {
        let lan = Allowlist::for_listener("192.168.1.5:7457".parse().unwrap(), &[], true);
        assert!(lan.host_allowed(Some("192.168.1.5:7457")));
        assert!(!lan.host_allowed(Some("localhost:7457")));
        assert!(lan.origin_allowed(Some("https://192.168.1.5:7457")));
        assert!(!lan.origin_allowed(Some("http://192.168.1.5:7457")));
        assert_eq!(lan.own_origin(), "https://192.168.1.5:7457");
    }

    #[test]
    fn behind_tls_only_https_origins() {
        let hosts = ["desk.local".to_string()];
        let tls = Allowlist::for_listener("127.0.0.1:7457".parse().unwrap(), &hosts, true);
        let cases: &[(Option<&str>, bool)] = &[
            (Some("https://127.0.0.1:7457"), true),
            (Some("https://localhost:7457"), true),
            (Some("https://desk.local:7457"), true),
            (Some("HTTPS://LOCALHOST:7457/"), true),
            (Some("http://127.0.0.1:7457"), false),
            (Some("http://localhost:7457"), false),
            (Some("http://desk.local:7457"), false),
            (Some("https://localhost:7458"), false),
            (Some("https://localhost"), false),
            (Some("wss://localhost:7457"), false),
            (Some("https://desk.local.evil.example:7457"), false),
            (Some("null"), false),
            (None, false),
        ];
        for (origin, want) in cases {
            assert_eq!(tls.origin_allowed(*origin), *want, "{origin:?}");
        }
        assert_eq!(tls.own_origin(), "https://127.0.0.1:7457");
        // Host is the same with or without TLS.
        assert!(tls.host_allowed(Some("desk.local:7457")));
        assert!(!tls.host_allowed(Some("evil.example:7457")));
    }

    #[test]
    fn phone_scope() {
        use MessageKind::*;
        let cases = [
            (SubmitText, true),
            (SubmitAnswer, true),
            (Interrupt, true),
            (State, true),
            (Subscribe, true),
            (Observation, true),
            (Admin(Capability::Settings), false),
            (Admin(Capability::Devices), false),
        ];
        for (kind, want) in cases {
            assert_eq!(allowed(PHONE_SCOPE, kind), want, "{kind:?}");
        }
        // Stop needs nothing but being authenticated.
        assert!(allowed(&[], Interrupt));
        assert!(!allowed(&[], State));
        assert!(!allowed(&[Capability::Submit], Observation));
    }

    #[test]
    fn bucket_allows_the_burst_then_the_rate() {
        let mut b = submit_bucket(0);
        let burst = (0..25).filter(|_| b.take(0)).count();
        assert_eq!(burst, 20);
        assert!(!b.take(100), "0.5 token after 100 ms");
        assert!(b.take(200), "one token after 200 ms");
        assert!(!b.take(200));
        // A long pause refills to the burst, not beyond.
        let refilled = (0..25).filter(|_| b.take(60_000)).count();
        assert_eq!(refilled, 20);
    }
}

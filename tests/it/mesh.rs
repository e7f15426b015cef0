//! The mesh listener from outside: HTTP surface (Host, Origin, headers), in-band authentication,
//! pairing, scopes, revocation, frame limits, rate limits and two devices answering at once.

use crate::util::{rt, Daemon, WeatherServer};
use circe::protocol::AdminVerb;
use futures_util::{SinkExt, StreamExt};
use std::io::{Read, Write};
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The head of one raw HTTP/1.1 request (`Connection: close` unless the headers say otherwise).
pub fn request_head(method: &str, path: &str, headers: &[(&str, &str)]) -> String {
    let mut req = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| *k == "Connection") {
        req.push_str("Connection: close\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req
}

/// One raw HTTP request; returns the status code and the whole response head.
pub fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(request_head(method, path, headers).as_bytes())
        .unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // Read the head (a 101 never closes, so stop at the blank line).
    loop {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.windows(4).any(|w| w == b"\r\n\r\n") && !buf.starts_with(b"HTTP/1.1 2") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let code = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

pub const UPGRADE: &[(&str, &str)] = &[
    ("Upgrade", "websocket"),
    ("Connection", "Upgrade"),
    ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ("Sec-WebSocket-Version", "13"),
];

/// A WebSocket to the daemon's mesh with its own origin; the hello is read. Behind TLS it is
/// `wss://`, pinned to the daemon's node id.
pub async fn connect(d: &Daemon) -> Ws {
    connect_hello(d).await.0
}

/// A WebSocket to the daemon's mesh, and the hello it sent (with the node's key and challenge).
pub async fn connect_hello(d: &Daemon) -> (Ws, serde_json::Value) {
    let addr = d.mesh_addr();
    let mut ws = if d.mesh_tls() {
        let node = node_id(d).await;
        circe::mesh::tls::connect_ws(
            &format!("wss://{addr}/ws"),
            &format!("https://{addr}"),
            Some(&node),
        )
        .await
        .unwrap()
    } else {
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        req.headers_mut()
            .insert("Origin", format!("http://{addr}").parse().unwrap());
        tokio_tungstenite::connect_async(req).await.unwrap().0
    };
    let hello = next_json(&mut ws).await;
    assert_eq!(hello["type"], "hello", "{hello}");
    (ws, hello)
}

/// A WebSocket to the daemon's plain mesh from `from` (any 127.0.0.0/8 address: another machine
/// as far as per-address limits go); the hello is read.
pub async fn connect_from(d: &Daemon, from: &str) -> Ws {
    let addr = d.mesh_addr();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let tcp = socket.connect(addr.parse().unwrap()).await.unwrap();
    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut()
        .insert("Origin", format!("http://{addr}").parse().unwrap());
    let (mut ws, _) =
        tokio_tungstenite::client_async(req, tokio_tungstenite::MaybeTlsStream::Plain(tcp))
            .await
            .unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    ws
}

pub async fn send(ws: &mut Ws, v: serde_json::Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next text message as JSON; panics on close or after 10 s.
pub async fn next_json(ws: &mut Ws) -> serde_json::Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message within 10 s")
            .expect("the socket is open")
            .expect("no socket error");
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
        assert!(!m.is_close(), "closed: {m:?}");
    }
}

/// Wait for the close frame; returns its code.
pub async fn close_code(ws: &mut Ws) -> Option<u16> {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("closed within 10 s")
        {
            Some(Ok(Message::Close(f))) => return f.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            Some(Err(e)) => {
                eprintln!("socket error instead of a close frame: {e}");
                return None;
            }
            None => return None,
        }
    }
}

/// The daemon's node id, as the control socket reports it.
pub async fn node_id(d: &Daemon) -> String {
    let listed = admin(d, AdminVerb::Devices).await.unwrap();
    listed["node"]["id"].as_str().unwrap().to_string()
}

pub async fn admin(d: &Daemon, verb: AdminVerb) -> Result<serde_json::Value, String> {
    d.client()
        .await
        .call_admin(verb)
        .await
        .map_err(|e| e.to_string())
}

/// A phone's side of pairing on `ws` (hello read): offer `code` with a fresh key, run the key
/// exchange (`circe::mesh::exchange`), and return the verification code it computed and its
/// sealing key, once `pairPending` arrived.
pub async fn offer_code(
    ws: &mut Ws,
    code: &str,
    name: &str,
) -> Result<(String, [u8; 32]), serde_json::Value> {
    use circe::mesh::exchange::{commit, nonce, KeyPair, Transcript};
    let keys = KeyPair::generate();
    let phone_key = keys.public.clone();
    send(
        ws,
        serde_json::json!({"type": "pair", "code": code, "name": name, "key": phone_key}),
    )
    .await;
    let offered = next_json(ws).await;
    if offered["type"] != "pairKey" {
        return Err(offered);
    }
    let node_key = offered["key"].as_str().unwrap().to_string();
    let phone_nonce = nonce();
    send(
        ws,
        serde_json::json!({"type": "pairNonce", "nonce": phone_nonce}),
    )
    .await;
    let pending = next_json(ws).await;
    if pending["type"] != "pairPending" {
        return Err(pending);
    }
    let node_nonce = pending["nonce"].as_str().unwrap().to_string();
    assert_eq!(
        offered["commit"].as_str().unwrap(),
        commit(&node_key, &phone_key, &node_nonce),
        "the node's nonce is the one it committed to"
    );
    let transcript = Transcript {
        phone_key: &phone_key,
        node_key: &node_key,
        phone_nonce: &phone_nonce,
        node_nonce: &node_nonce,
    };
    let verification = transcript.code();
    let key = keys.agree(&node_key, &transcript).unwrap();
    Ok((verification, key))
}

/// Pair a device named `name` the way a phone does; returns (token, device id).
pub async fn pair(d: &Daemon, name: &str) -> (String, String) {
    let started = admin(d, AdminVerb::PairStart).await.unwrap();
    let code = started["code"].as_str().unwrap().to_string();
    let mut ws = connect(d).await;
    let (verification, key) = offer_code(&mut ws, &code, name).await.unwrap();
    let waited = admin(d, AdminVerb::PairWait).await.unwrap();
    assert_eq!(
        waited["verification"], verification,
        "codes match on both screens"
    );
    assert_eq!(waited["name"], name);
    admin(d, AdminVerb::PairDecide { approve: true })
        .await
        .unwrap();
    let paired = next_json(&mut ws).await;
    assert_eq!(paired["type"], "paired", "{paired}");
    assert!(
        paired.get("token").is_none(),
        "the token travels sealed: {paired}"
    );
    let token = circe::mesh::exchange::open(&key, &paired["sealedToken"])
        .expect("the token opens with the exchanged key");
    (token, paired["device"]["id"].as_str().unwrap().to_string())
}

/// An authenticated socket for `token`.
pub async fn authed(d: &Daemon, token: &str) -> Ws {
    let mut ws = connect(d).await;
    send(&mut ws, serde_json::json!({"type": "auth", "token": token})).await;
    let ok = next_json(&mut ws).await;
    assert_eq!(ok["type"], "authOk", "{ok}");
    ws
}

/// Send a request and return its reply (skipping notifications).
pub async fn call(ws: &mut Ws, id: u64, body: serde_json::Value) -> serde_json::Value {
    let mut req = body;
    req["id"] = id.into();
    send(ws, req).await;
    loop {
        let m = next_json(ws).await;
        if m["id"] == id {
            return m;
        }
    }
}

pub fn say(text: &str) -> serde_json::Value {
    serde_json::json!({"verb": "submit", "input": {"id": uuid::Uuid::new_v4(), "device": "phone", "text": text}})
}

#[test]
fn the_http_surface_checks_host_and_origin_and_sends_no_cors() {
    let d = Daemon::start("");
    let addr = d.mesh_addr();
    assert!(
        addr.starts_with("127.0.0.1:"),
        "loopback by default: {addr}"
    );
    let port = addr.rsplit(':').next().unwrap().to_string();
    let own = format!("http://{addr}");

    let (code, head) = http(&addr, "GET", "/", &[("Host", &addr)]);
    assert_eq!(code, 200, "{head}");
    let lower = head.to_ascii_lowercase();
    assert!(
        lower.contains("frame-ancestors 'none'") && lower.contains("default-src 'self'"),
        "{head}"
    );
    assert!(lower.contains("x-content-type-options: nosniff"), "{head}");
    assert!(lower.contains("referrer-policy: no-referrer"), "{head}");
    for forbidden in ["access-control-allow", "set-cookie"] {
        assert!(!lower.contains(forbidden), "{forbidden} in {head}");
    }
    let (code, head) = http(
        &addr,
        "GET",
        "/healthz",
        &[("Host", &format!("localhost:{port}"))],
    );
    assert_eq!(code, 200, "{head}");
    assert!(head.ends_with("ok"), "{head}");

    // DNS rebinding: a foreign Host is refused on every route, the upgrade included.
    let foreign = [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("[::]:{port}"),
        String::new(),
        "127.0.0.1:1".to_string(),
    ];
    for host in &foreign {
        for path in ["/", "/healthz", "/app.js", "/ws", "/nope"] {
            let mut headers = vec![("Host", host.as_str()), ("Origin", own.as_str())];
            headers.extend_from_slice(UPGRADE);
            let (code, head) = http(&addr, "GET", path, &headers);
            assert_eq!(code, 403, "Host {host:?} on {path}: {head}");
        }
    }
    // Cross-site WebSocket hijacking: a wrong or missing Origin is refused on the upgrade.
    let origins = [
        Some("https://evil.example".to_string()),
        Some("null".to_string()),
        Some(format!("http://localhost.evil.example:{port}")),
        Some("http://127.0.0.1:1".to_string()),
        Some(format!("https://{addr}")),
        None,
    ];
    for origin in &origins {
        let mut headers = vec![("Host", addr.as_str())];
        if let Some(o) = origin {
            headers.push(("Origin", o));
        }
        headers.extend_from_slice(UPGRADE);
        let (code, head) = http(&addr, "GET", "/ws", &headers);
        assert_eq!(code, 403, "Origin {origin:?}: {head}");
    }
    let mut headers = vec![("Host", addr.as_str()), ("Origin", own.as_str())];
    headers.extend_from_slice(UPGRADE);
    let (code, head) = http(&addr, "GET", "/ws", &headers);
    assert_eq!(code, 101, "the node's own origin upgrades: {head}");
    // Nothing but GET, whatever the method or origin (no state change by any HTTP request).
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let (code, head) = http(
            &addr,
            method,
            "/",
            &[("Host", &addr), ("Origin", &own), ("Content-Length", "0")],
        );
        assert_eq!(code, 405, "{method}: {head}");
        let (code, head) = http(
            &addr,
            method,
            "/",
            &[
                ("Host", &addr),
                ("Origin", "https://evil.example"),
                ("Content-Length", "0"),
            ],
        );
        assert_eq!(code, 403, "{method} cross-origin: {head}");
        assert!(
            !head.to_ascii_lowercase().contains("access-control-allow"),
            "{head}"
        );
    }
}

#[test]
fn a_socket_that_does_not_authenticate_first_is_closed() {
    let d = Daemon::start("");
    rt().block_on(async {
        let mut ws = connect(&d).await;
        send(&mut ws, serde_json::json!({"id": 1, "verb": "state"})).await;
        let m = next_json(&mut ws).await;
        assert_eq!(m["type"], "authFailed", "{m}");
        assert_eq!(close_code(&mut ws).await, Some(4401));

        let mut ws = connect(&d).await;
        send(
            &mut ws,
            serde_json::json!({"type": "auth", "token": "not-a-token"}),
        )
        .await;
        assert_eq!(next_json(&mut ws).await["code"], "unknown_device");
        assert_eq!(close_code(&mut ws).await, Some(4401));
    });
    let ops = rt().block_on(d.state()).operations;
    assert!(ops.is_empty(), "nothing ran: {ops:?}");
}

#[test]
fn pairing_needs_the_desktop_and_limits_guesses() {
    let d = Daemon::start("");
    rt().block_on(async {
        // No session: nothing to pair with.
        let mut ws = connect(&d).await;
        send(
            &mut ws,
            serde_json::json!({"type": "pair", "code": "123456", "name": "x", "key": "04"}),
        )
        .await;
        assert_eq!(next_json(&mut ws).await["code"], "no_pairing");

        let started = admin(&d, AdminVerb::PairStart).await.unwrap();
        let code = started["code"].as_str().unwrap().to_string();
        assert_eq!(code.len(), 6);
        let wrong = if code == "000000" { "111111" } else { "000000" };
        let mut codes = Vec::new();
        for _ in 0..3 {
            let mut ws = connect(&d).await;
            send(
                &mut ws,
                serde_json::json!({"type": "pair", "code": wrong, "name": "thief", "key": "04"}),
            )
            .await;
            codes.push(
                next_json(&mut ws).await["code"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
        assert_eq!(codes, ["wrong_code", "wrong_code", "too_many_attempts"]);
        // The right code no longer works from that address: it is locked out of this session.
        let mut ws = connect(&d).await;
        send(
            &mut ws,
            serde_json::json!({"type": "pair", "code": code, "name": "late", "key": "04"}),
        )
        .await;
        assert_eq!(next_json(&mut ws).await["code"], "too_many_attempts");

        // Another address may still offer it (three wrong codes from anyone no longer close the
        // session); denied on the desktop: no device.
        let mut ws = connect_from(&d, "127.0.0.3").await;
        offer_code(&mut ws, &code, "stranger").await.unwrap();
        admin(&d, AdminVerb::PairDecide { approve: false })
            .await
            .unwrap();
        assert_eq!(next_json(&mut ws).await["code"], "pairing_denied");
        let listed = admin(&d, AdminVerb::Devices).await.unwrap();
        assert_eq!(listed["devices"].as_array().unwrap().len(), 0, "{listed}");
    });
}

#[test]
fn a_paired_phone_reads_submits_and_stops_but_cannot_administer() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let (token, id) = pair(&d, "Pixel").await;
        let mut ws = authed(&d, &token).await;
        let asked = call(&mut ws, 1, say("what's the weather?")).await;
        assert_eq!(
            asked["ok"]["interaction"]["pending"]["type"], "question",
            "{asked}"
        );
        assert_eq!(
            asked["ok"]["interaction"]["pending"]["owner"], "desk",
            "the desktop owns the interaction"
        );
        for (n, verb) in [
            serde_json::json!({"verb": "setPreference", "key": "my-desktop", "value": "x"}),
            serde_json::json!({"verb": "pairStart"}),
            serde_json::json!({"verb": "revoke", "device": id}),
            serde_json::json!({"verb": "devices"}),
        ]
        .into_iter()
        .enumerate()
        {
            let r = call(&mut ws, 10 + n as u64, verb.clone()).await;
            assert_eq!(r["error"]["code"], "forbidden", "{verb}: {r}");
        }
        let listed = admin(&d, AdminVerb::Devices).await.unwrap();
        assert_eq!(
            listed["preferences"],
            serde_json::json!({}),
            "nothing was set"
        );
        assert_eq!(listed["devices"][0]["revokedAt"], serde_json::Value::Null);
        assert_eq!(listed["devices"][0]["sockets"], 1);
        // The input was recorded under the device, not the name it claimed.
        let stop = call(&mut ws, 20, serde_json::json!({"verb": "interrupt"})).await;
        assert_eq!(stop["error"]["code"], "nothing_to_stop", "{stop}");
    });
    let out = d.cli(&["devices"]);
    let text = crate::util::stdout(&out);
    assert!(
        text.contains("Pixel") && text.contains("read,submit,answer,confirm,stop"),
        "{text}"
    );
}

#[test]
fn a_revoked_device_is_dropped_mid_connection() {
    let d = Daemon::start("");
    rt().block_on(async {
        let (token, id) = pair(&d, "Lost phone").await;
        let (other, _) = pair(&d, "Tablet").await;
        let mut ws = authed(&d, &token).await;
        let mut second = authed(&d, &token).await;
        let mut keep = authed(&d, &other).await;
        let r = call(&mut ws, 1, serde_json::json!({"verb": "subscribe"})).await;
        assert_eq!(r["ok"]["subscribed"], true);
        let started = std::time::Instant::now();
        let out = d.cli(&["devices", "revoke", &id]);
        assert!(out.status.success(), "{}", crate::util::stderr(&out));
        assert_eq!(close_code(&mut ws).await, Some(4403));
        assert_eq!(close_code(&mut second).await, Some(4403));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        // The token no longer works; the other device is untouched.
        let mut again = connect(&d).await;
        send(
            &mut again,
            serde_json::json!({"type": "auth", "token": token}),
        )
        .await;
        assert_eq!(next_json(&mut again).await["code"], "unknown_device");
        let r = call(&mut keep, 2, serde_json::json!({"verb": "state"})).await;
        assert!(r["ok"]["node"].is_string(), "{r}");
    });
}

#[test]
fn an_oversized_frame_closes_the_socket() {
    let d = Daemon::start("");
    rt().block_on(async {
        let (token, _) = pair(&d, "Pixel").await;
        let mut ws = authed(&d, &token).await;
        let big = say(&"a".repeat(70 * 1024));
        let _ = ws.send(Message::Text(big.to_string().into())).await;
        // A close frame saying why (1009), not a reset.
        assert_eq!(close_code(&mut ws).await, Some(1009));
        // The same for a first message, before authenticating, and for a far larger one.
        for size in [70 * 1024, 1024 * 1024] {
            let mut ws = connect(&d).await;
            let _ = ws.send(Message::Text("a".repeat(size).into())).await;
            assert_eq!(close_code(&mut ws).await, Some(1009), "{size} bytes");
        }
    });
    assert!(
        rt().block_on(d.state()).interaction.is_none(),
        "nothing was taken"
    );
}

#[test]
fn submits_are_rate_limited_but_stop_never_is() {
    let d = Daemon::start("");
    rt().block_on(async {
        let (token, _) = pair(&d, "Pixel").await;
        let mut ws = authed(&d, &token).await;
        let mut limited = 0;
        for n in 0..30u64 {
            let r = call(&mut ws, n + 1, say("hello there")).await;
            if r["error"]["code"] == "rate_limited" {
                limited += 1;
            }
        }
        assert!(limited >= 5, "{limited} of 30 limited");
        for n in 0..30u64 {
            let r = call(&mut ws, 100 + n, serde_json::json!({"verb": "interrupt"})).await;
            assert_ne!(r["error"]["code"], "rate_limited", "{r}");
            assert!(
                r.get("ok").is_some() || r["error"]["code"] == "nothing_to_stop",
                "{r}"
            );
        }
    });
}

#[test]
fn two_devices_answer_the_same_question_one_wins() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let (a, _) = pair(&d, "Phone A").await;
        let (b, _) = pair(&d, "Phone B").await;
        let mut wa = authed(&d, &a).await;
        let mut wb = authed(&d, &b).await;
        let asked = call(&mut wa, 1, say("what's the weather?")).await;
        let i = &asked["ok"]["interaction"];
        let answer = |text: &str| {
            serde_json::json!({"verb": "submit", "input": {"id": uuid::Uuid::new_v4(), "device": "phone",
                "text": text, "interaction": i["id"], "expectedRevision": i["revision"]}})
        };
        let (ra, rb) = tokio::join!(
            call(&mut wa, 2, answer("Ahmedabad")),
            call(&mut wb, 2, answer("Pune"))
        );
        let ok = [&ra, &rb].iter().filter(|r| r.get("ok").is_some()).count();
        let conflicts: Vec<_> = [&ra, &rb]
            .into_iter()
            .filter(|r| r["error"]["code"] == "revision_conflict")
            .collect();
        assert_eq!((ok, conflicts.len()), (1, 1), "{ra} {rb}");
        assert!(conflicts[0]["error"]["currentRevision"].as_u64().unwrap() > i["revision"].as_u64().unwrap());
    });
}

#[test]
fn a_silent_socket_is_closed_and_a_live_one_is_kept() {
    let d = Daemon::start("[mesh]\nlisten = \"127.0.0.1:0\"\nkeepalive_ms = 200\n");
    rt().block_on(async {
        let (token, id) = pair(&d, "Pixel").await;
        let mut silent = authed(&d, &token).await;
        let mut live = authed(&d, &token).await;
        // The live client reads (and so answers every ping) for 1.5 s: it stays connected.
        let deadline = tokio::time::Instant::now() + Duration::from_millis(1500);
        let mut pings = 0;
        loop {
            match tokio::time::timeout_at(deadline, live.next()).await {
                Err(_) => break,
                Ok(Some(Ok(Message::Ping(_)))) => pings += 1,
                Ok(Some(Ok(Message::Text(_) | Message::Pong(_)))) => {}
                Ok(other) => panic!("the live socket ended: {other:?}"),
            }
        }
        assert!(pings >= 3, "pings every 200 ms: {pings}");
        // The silent one never answered: the node has closed it.
        let ended = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(Ok(Message::Ping(_) | Message::Text(_))) = silent.next().await {}
        })
        .await;
        assert!(ended.is_ok(), "the silent socket was closed");
        let listed = admin(&d, AdminVerb::Devices).await.unwrap();
        let device = listed["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id.as_str())
            .unwrap()
            .clone();
        assert_eq!(
            device["sockets"], 1,
            "only the live socket counts: {device}"
        );
        let r = call(&mut live, 9, serde_json::json!({"verb": "state"})).await;
        assert!(r["ok"]["node"].is_string(), "{r}");
    });
}

#[test]
fn failed_attempts_cool_down_per_client_whatever_the_headers_claim() {
    let d = Daemon::start("");
    rt().block_on(async {
        let (token, _) = pair(&d, "Pixel").await;
        let attempt = |headers: Vec<(&'static str, String)>| {
            let addr = d.mesh_addr();
            async move {
                let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
                req.headers_mut()
                    .insert("Origin", format!("http://{addr}").parse().unwrap());
                for (k, v) in headers {
                    req.headers_mut().insert(k, v.parse().unwrap());
                }
                let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
                assert_eq!(next_json(&mut ws).await["type"], "hello");
                send(
                    &mut ws,
                    serde_json::json!({"type": "auth", "token": "not-a-token"}),
                )
                .await;
                next_json(&mut ws).await["code"]
                    .as_str()
                    .unwrap()
                    .to_string()
            }
        };
        for _ in 0..10 {
            assert_eq!(attempt(Vec::new()).await, "unknown_device");
        }
        // That client now waits out the cool-down, and forwarding headers that claim another
        // address change nothing: the budget is the peer's own address (on loopback, with what
        // the client claims to be).
        let forwarded = vec![
            ("X-Forwarded-For", "203.0.113.9".to_string()),
            ("Forwarded", "for=203.0.113.9".to_string()),
        ];
        assert_eq!(attempt(forwarded).await, "rate_limited");
        // Every local client shares 127.0.0.1: another one (the paired phone) is not locked out.
        let _phone = authed(&d, &token).await;
        // The desktop itself is unaffected: its control socket answers.
        assert!(admin(&d, AdminVerb::Devices).await.is_ok());
    });
}

/// What Circe saw is read over the mesh with the read scope (a phone's); an id that names no
/// stored observation is `unknown_observation`, and a malformed request changes nothing.
#[test]
fn a_phone_reads_an_observation_by_id() {
    let d = Daemon::start("");
    rt().block_on(async {
        let (token, _) = pair(&d, "Pixel").await;
        let mut ws = authed(&d, &token).await;
        let r = call(
            &mut ws,
            1,
            serde_json::json!({"verb": "observation", "observation": "nope/1"}),
        )
        .await;
        assert_eq!(r["error"]["code"], "unknown_observation", "{r}");
        let r = call(&mut ws, 2, serde_json::json!({"verb": "observation"})).await;
        assert_eq!(r["error"]["code"], "malformed_request", "{r}");
        let r = call(&mut ws, 3, serde_json::json!({"verb": "state"})).await;
        assert!(r["ok"]["interaction"].is_null(), "{r}");
    });
}

//! The mesh listener behind TLS (`[mesh] tls = "on"` on 127.0.0.1): a client pinned to the
//! node id reaches it, one pinned to another node or speaking plaintext does not, Host and
//! Origin are still checked (only `https://` origins), the phone page works over https in real
//! Chromium trusting exactly the certificate's fingerprint, and the start-up refusals.

use crate::mesh::{admin, authed, call, next_json, node_id, pair, say, UPGRADE};
use crate::mesh_browser::{text_of, Phone};
use crate::util::{rt, serve_refusal, Daemon, WeatherServer};
use circe::mesh::tls;
use circe::protocol::AdminVerb;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TLS_ON: &str = "[mesh]\nlisten = \"127.0.0.1:0\"\ntls = \"on\"\n";

fn tls_daemon() -> Daemon {
    let d = Daemon::start(TLS_ON);
    assert!(d.mesh_tls(), "mesh.addr says https: {}", d.mesh_file());
    d
}

/// One raw HTTP request over TLS pinned to `node`; the status code and the response head (the
/// whole response when it is not a 101).
pub async fn https(
    addr: &str,
    node: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Result<(u16, String), String> {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let connector = tokio_rustls::TlsConnector::from(tls::pinned_client_config(node));
    let ip: std::net::IpAddr = addr.rsplit_once(':').unwrap().0.parse().unwrap();
    let mut s = connector
        .connect(rustls::pki_types::ServerName::IpAddress(ip.into()), tcp)
        .await
        .map_err(|e| e.to_string())?;
    s.write_all(crate::mesh::request_head(method, path, headers).as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let read = async {
        loop {
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
            if buf.starts_with(b"HTTP/1.1 101") && buf.windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let code = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok((code, text))
}

#[test]
fn a_pinned_client_reaches_healthz_and_authenticates_a_websocket() {
    let d = tls_daemon();
    let addr = d.mesh_addr();
    rt().block_on(async {
        let node = node_id(&d).await;
        let (code, text) = https(&addr, &node, "GET", "/healthz", &[("Host", &addr)])
            .await
            .unwrap();
        assert_eq!(code, 200, "{text}");
        assert!(text.ends_with("ok"), "{text}");
        let (code, text) = https(&addr, &node, "GET", "/", &[("Host", &addr)])
            .await
            .unwrap();
        assert_eq!(code, 200, "the phone page is served over TLS: {text}");
        assert!(
            text.to_ascii_lowercase().contains("frame-ancestors 'none'"),
            "{text}"
        );

        // The pairing URL says https, and the fingerprint comes with it.
        let listed = admin(&d, AdminVerb::Devices).await.unwrap();
        assert_eq!(listed["node"]["tls"], true, "{listed}");
        assert_eq!(listed["node"]["origin"], format!("https://{addr}"));
        let fingerprint = listed["node"]["fingerprint"].as_str().unwrap().to_string();
        let key = d.dir.path().join("data/circe/node.key");
        let identity = circe::mesh::identity::NodeIdentity::load_or_create(&key).unwrap();
        assert_eq!(identity.id, node);
        assert_eq!(fingerprint, tls::spki_sha256_base64(&identity));
        let started = admin(&d, AdminVerb::PairStart).await.unwrap();
        assert!(
            started["url"]
                .as_str()
                .unwrap()
                .starts_with(&format!("https://{addr}/")),
            "{started}"
        );
        assert_eq!(started["fingerprint"], fingerprint.as_str());

        // Pairing and authentication over wss:// (connect_ws, pinned to the node id).
        let (token, _) = pair(&d, "Pixel").await;
        let mut ws = authed(&d, &token).await;
        let r = call(&mut ws, 1, serde_json::json!({"verb": "state"})).await;
        assert!(r["ok"]["node"].is_string(), "{r}");
        let asked = call(&mut ws, 2, say("what's the weather?")).await;
        assert_eq!(
            asked["ok"]["interaction"]["pending"]["type"], "question",
            "{asked}"
        );
        // The 64 KiB cap holds over TLS too.
        use futures_util::SinkExt;
        let big = say(&"a".repeat(70 * 1024));
        let _ = ws
            .send(tokio_tungstenite::tungstenite::Message::Text(
                big.to_string().into(),
            ))
            .await;
        let code = crate::mesh::close_code(&mut ws).await;
        assert!(code.is_none() || code == Some(1009), "{code:?}");
    });
    let out = d.cli(&["devices"]);
    let text = crate::util::stdout(&out);
    let listed = rt().block_on(admin(&d, AdminVerb::Devices)).unwrap();
    let fingerprint = listed["node"]["fingerprint"].as_str().unwrap();
    assert!(
        text.contains(fingerprint) && text.contains(&format!("https://{addr}")),
        "circe devices shows the fingerprint: {text}"
    );
}

#[test]
fn the_wrong_node_and_plaintext_get_nothing() {
    let d = tls_daemon();
    let addr = d.mesh_addr();
    let other_dir = tempfile::tempdir().unwrap();
    let other =
        circe::mesh::identity::NodeIdentity::load_or_create(&other_dir.path().join("node.key"))
            .unwrap();
    rt().block_on(async {
        let node = node_id(&d).await;
        assert_ne!(other.id, node);
        // Pinned to another node: the handshake fails, and says which node answered.
        let err = https(&addr, &other.id, "GET", "/healthz", &[("Host", &addr)])
            .await
            .unwrap_err();
        assert!(err.contains("invalid peer certificate"), "{err}");
        let err = tls::connect_ws(
            &format!("wss://{addr}/ws"),
            &format!("https://{addr}"),
            Some(&other.id),
        )
        .await
        .expect_err("a wrong pin does not connect")
        .to_string();
        assert!(
            err.contains(&format!(
                "the server is node {node}, not the pinned node {}",
                other.id
            )),
            "{err}"
        );
        // wss:// without a pin is refused before connecting.
        let err = tls::connect_ws(
            &format!("wss://{addr}/ws"),
            &format!("https://{addr}"),
            None,
        )
        .await
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("needs the node id"), "{err}");
        // Plain ws:// to the TLS port: no WebSocket.
        let plain =
            tls::connect_ws(&format!("ws://{addr}/ws"), &format!("http://{addr}"), None).await;
        assert!(plain.is_err(), "plaintext WebSocket on the TLS port");
    });
    // Plaintext HTTP to the TLS port: no HTTP answer at all.
    for path in ["/healthz", "/", "/ws"] {
        let (code, head) = crate::mesh::http(&addr, "GET", path, &[("Host", &addr)]);
        assert_ne!(code, 200, "{path}: {head}");
        assert!(!head.starts_with("HTTP/"), "{path}: {head:?}");
    }
    // The listener still serves after those failures.
    rt().block_on(async {
        let node = node_id(&d).await;
        let (code, _) = https(&addr, &node, "GET", "/healthz", &[("Host", &addr)])
            .await
            .unwrap();
        assert_eq!(code, 200);
    });
}

#[test]
fn a_silent_client_does_not_hold_up_the_listener() {
    let d = tls_daemon();
    let addr = d.mesh_addr();
    // Connections that never start a handshake.
    let idle: Vec<std::net::TcpStream> = (0..8)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    rt().block_on(async {
        let node = node_id(&d).await;
        let started = std::time::Instant::now();
        let (code, _) = https(&addr, &node, "GET", "/healthz", &[("Host", &addr)])
            .await
            .unwrap();
        assert_eq!(code, 200);
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    });
    drop(idle);
}

#[test]
fn host_and_origin_are_checked_over_tls_and_only_https_origins_pass() {
    let d = tls_daemon();
    let addr = d.mesh_addr();
    let port = addr.rsplit(':').next().unwrap().to_string();
    rt().block_on(async {
        let node = node_id(&d).await;
        for host in [
            "evil.example".to_string(),
            format!("evil.example:{port}"),
            format!("localhost.evil.example:{port}"),
            String::new(),
        ] {
            let (code, text) = https(&addr, &node, "GET", "/healthz", &[("Host", &host)])
                .await
                .unwrap();
            assert_eq!(code, 403, "Host {host:?}: {text}");
        }
        let (code, _) = https(
            &addr,
            &node,
            "GET",
            "/healthz",
            &[("Host", &format!("localhost:{port}"))],
        )
        .await
        .unwrap();
        assert_eq!(code, 200);
        let upgrade = |origin: Option<String>| {
            let addr = addr.clone();
            let node = node.clone();
            async move {
                let mut headers = vec![("Host", addr.as_str())];
                if let Some(o) = &origin {
                    headers.push(("Origin", o.as_str()));
                }
                headers.extend_from_slice(UPGRADE);
                https(&addr, &node, "GET", "/ws", &headers).await.unwrap()
            }
        };
        for origin in [
            Some(format!("http://{addr}")),
            Some(format!("http://localhost:{port}")),
            Some("https://evil.example".to_string()),
            Some(format!("https://localhost.evil.example:{port}")),
            Some("null".to_string()),
            None,
        ] {
            let (code, text) = upgrade(origin.clone()).await;
            assert_eq!(code, 403, "Origin {origin:?}: {text}");
        }
        let (code, text) = upgrade(Some(format!("https://{addr}"))).await;
        assert_eq!(code, 101, "the node's own https origin upgrades: {text}");
        let (code, text) = upgrade(Some(format!("https://localhost:{port}"))).await;
        assert_eq!(code, 101, "{text}");
        // Nothing but GET, over TLS too.
        let (code, _) = https(
            &addr,
            &node,
            "POST",
            "/",
            &[
                ("Host", &addr),
                ("Origin", &format!("https://{addr}")),
                ("Content-Length", "0"),
            ],
        )
        .await
        .unwrap();
        assert_eq!(code, 405);
        // connect_ws with an http:// origin is refused by the listener.
        let refused = tls::connect_ws(
            &format!("wss://{addr}/ws"),
            &format!("http://{addr}"),
            Some(&node),
        )
        .await
        .expect_err("an http origin is refused behind TLS")
        .to_string();
        assert!(refused.contains("403"), "{refused}");
        let mut ws = tls::connect_ws(
            &format!("wss://{addr}/ws"),
            &format!("https://{addr}"),
            Some(&node),
        )
        .await
        .unwrap();
        assert_eq!(next_json(&mut ws).await["type"], "hello");
    });
}

#[test]
fn the_phone_page_pairs_over_https_in_chromium_trusting_only_the_fingerprint() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&format!("{}{TLS_ON}", weather.config()));
    let addr = d.mesh_addr();
    let listed = rt().block_on(admin(&d, AdminVerb::Devices)).unwrap();
    let fingerprint = listed["node"]["fingerprint"].as_str().unwrap().to_string();

    // Without the fingerprint Chromium refuses the self-signed certificate.
    {
        let mut phone = Phone::start(&d.dir.path().join("chromium-untrusted.log"));
        phone.goto(&format!("https://{addr}/"));
        phone.wait("location.href.startsWith('chrome-error://')", 10);
        let pairing = phone.eval("!!document.getElementById('pair-code')");
        assert_eq!(pairing, false, "an untrusted certificate shows no page");
    }

    let flag = format!("--ignore-certificate-errors-spki-list={fingerprint}");
    let mut phone = Phone::start_with(&d.dir.path().join("chromium.log"), &[flag]);
    let started = rt().block_on(admin(&d, AdminVerb::PairStart)).unwrap();
    let url = started["url"].as_str().unwrap().to_string();
    assert!(url.starts_with(&format!("https://{addr}/")), "{url}");
    phone.goto(&url);
    phone.wait("!document.getElementById('pairing').hidden", 15);
    assert_eq!(phone.eval("location.protocol"), "https:");
    assert_eq!(
        phone.wait(
            "document.getElementById('node').textContent !== '…' && document.getElementById('node').textContent",
            10
        ),
        "desk",
        "the hello arrived over wss://"
    );
    crate::mesh_browser::pair_on_the_page(&mut phone, &d, &started, "TLS phone");
    // The control API works over the page's wss:// socket.
    phone.say("what's the weather?");
    phone.wait("!document.getElementById('question-box').hidden", 10);
    assert!(
        text_of(&mut phone, "question").contains("Which city?"),
        "{}",
        text_of(&mut phone, "question")
    );
}

#[test]
fn start_up_refuses_plaintext_beyond_loopback_and_unknown_tls_values() {
    let err = serve_refusal("[mesh]\nlisten = \"0.0.0.0:0\"\ntls = \"off\"\n");
    assert!(
        err.contains("[mesh] tls") && err.contains("not loopback"),
        "{err}"
    );
    let err = serve_refusal("[mesh]\nlisten = \"127.0.0.1:0\"\ntls = \"maybe\"\n");
    assert!(
        err.contains("tls") && err.contains("maybe") && err.contains("auto"),
        "{err}"
    );
    // `off` on loopback is plain HTTP, as before.
    let d = Daemon::start("[mesh]\nlisten = \"127.0.0.1:0\"\ntls = \"off\"\n");
    assert!(!d.mesh_tls(), "{}", d.mesh_file());
    let addr = d.mesh_addr();
    let (code, _) = crate::mesh::http(&addr, "GET", "/healthz", &[("Host", &addr)]);
    assert_eq!(code, 200);
}

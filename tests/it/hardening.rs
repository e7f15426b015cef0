//! Issue 11, attack by attack, against real `circe serve` daemons: private store files, half-open
//! and silent connections, floods of unread requests, held TLS handshakes.

use crate::util::*;
use std::path::Path;
use std::time::Duration;

/// Every directory under `dir` (itself included) and every file in them, with its mode.
fn modes_under(dir: &Path) -> Vec<(String, u32, bool)> {
    let mut out = vec![(dir.display().to_string(), file_mode(dir), true)];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(modes_under(&path));
        } else {
            out.push((path.display().to_string(), file_mode(&path), false));
        }
    }
    out
}

#[test]
fn store_files_are_private_under_umask_022() {
    let weather = WeatherServer::start();
    let d = Daemon::start_launched(
        &weather.config(),
        Launch {
            umask: Some(0o022),
            ..Launch::default()
        },
    );
    // A write, so the WAL and shared-memory files exist too.
    let done = d.cli(&["say", "--wait", "weather in Pune"]);
    assert!(done.status.success(), "{}", stderr(&done));
    let data = d.dir.path().join("data/circe");
    let modes = modes_under(&data);
    let names: Vec<&str> = modes.iter().map(|(p, _, _)| p.as_str()).collect();
    for expected in [
        "circe.db",
        "circe.db-wal",
        "circe.db-shm",
        "node.key",
        "tls.key",
    ] {
        assert!(
            names.iter().any(|n| n.ends_with(&format!("/{expected}"))),
            "{expected} in {names:?}"
        );
    }
    for (path, mode, is_dir) in &modes {
        let want = if *is_dir { 0o700 } else { 0o600 };
        assert_eq!(*mode, want, "{path} is {mode:o}, not {want:o}");
    }
    assert_eq!(file_mode(&d.dir.path().join("run/circe/mesh.addr")), 0o600);
}

/// A TCP connection to `addr` from `from` (any 127.0.0.0/8 address: one "machine" each) that
/// sends the start of a request head and then nothing more.
async fn half_open(from: &str, addr: &str) -> std::io::Result<tokio::net::TcpStream> {
    use tokio::io::AsyncWriteExt;
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(format!("{from}:0").parse().unwrap())?;
    let mut s = socket.connect(addr.parse().unwrap()).await?;
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
        .await?;
    Ok(s)
}

/// How many of `streams` the server still holds open (no EOF, no reset, nothing to read).
async fn held(streams: &mut [tokio::net::TcpStream]) -> usize {
    use tokio::io::AsyncReadExt;
    let mut n = 0;
    for s in streams.iter_mut() {
        let mut buf = [0u8; 64];
        if tokio::time::timeout(Duration::from_millis(2), s.read(&mut buf))
            .await
            .is_err()
        {
            n += 1;
        }
    }
    n
}

/// `circe state` over the control socket, and how long it took.
async fn timed_state(d: &Daemon) -> Duration {
    let start = std::time::Instant::now();
    tokio::time::timeout(Duration::from_secs(5), d.state())
        .await
        .expect("circe state answers within 5 s");
    start.elapsed()
}

const HALF_OPEN: &str = "[node]\nname = \"desk\"\n[mesh]\nlisten = \"127.0.0.1:0\"\nmax_connections = 48\nmax_connections_per_address = 16\nheader_timeout_ms = 1500\n";

#[test]
fn half_open_connections_neither_stall_the_daemon_nor_flood_the_log() {
    // 256 descriptors (lowered, as a small default would be): the issue's 1,010 half-open
    // connections against 1,024 is the same attack at a quarter of the size.
    let d = Daemon::start_launched(
        HALF_OPEN,
        Launch {
            open_files: Some(256),
            ..Launch::default()
        },
    );
    let addr = d.mesh_addr();
    let log_before = d.log().len();
    rt().block_on(async {
        // One machine opens 100: it holds its 16, the rest are closed at once, and another
        // machine is still served meanwhile.
        let mut one = Vec::new();
        for _ in 0..100 {
            one.push(half_open("127.0.0.2", &addr).await.unwrap());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let n = held(&mut one).await;
        assert_eq!(
            n, 16,
            "one address holds at most max_connections_per_address"
        );
        let (code, head) = tokio::task::spawn_blocking({
            let addr = addr.clone();
            move || crate::mesh::http(&addr, "GET", "/healthz", &[("Host", &addr)])
        })
        .await
        .unwrap();
        assert_eq!(
            code, 200,
            "another address is served during the flood: {head}"
        );

        // Eight machines open 400: the listener holds max_connections, the control socket
        // answers at once, and the held ones are closed after the header timeout.
        let mut many = Vec::new();
        for i in 0..400 {
            let from = format!("127.0.0.{}", 3 + i % 8);
            many.push(half_open(&from, &addr).await.unwrap());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let n = held(&mut many).await + held(&mut one).await;
        assert!(n <= 48, "{n} connections held; the cap is 48");
        let took = timed_state(&d).await;
        assert!(
            took < Duration::from_millis(500),
            "state took {took:?} during the flood"
        );
        eprintln!("state during the half-open flood: {took:?}");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let n = held(&mut many).await + held(&mut one).await;
        assert_eq!(n, 0, "every half-open connection is closed after 1.5 s");

        // Descriptors run out on the control socket itself: the accept loop pauses and logs
        // rarely, and serves again as soon as descriptors are free.
        let mut hogs = Vec::new();
        for _ in 0..300 {
            match tokio::net::UnixStream::connect(d.socket()).await {
                Ok(s) => hogs.push(s),
                Err(e) => panic!("connect: {e}"),
            }
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        drop(hogs);
        let took = timed_state(&d).await;
        assert!(
            took < Duration::from_millis(2500),
            "state took {took:?} after the flood"
        );
        eprintln!("state once descriptors are free: {took:?}");
    });
    let log = d.log();
    let grown = log.len() - log_before;
    let failures = log.matches("accept failed").count();
    assert!(
        log.contains("accept failed") && failures <= 3,
        "the descriptor flood is logged, rarely: {failures} lines"
    );
    assert!(grown < 16 * 1024, "the log grew by {grown} bytes");
    eprintln!(
        "log grew by {grown} bytes, {failures} accept-failure lines:\n{}",
        &log[log_before..]
    );
}

const TLS_HALF_OPEN: &str = "[node]\nname = \"desk\"\n[mesh]\nlisten = \"127.0.0.1:0\"\ntls = \"on\"\nheader_timeout_ms = 1500\n";

#[test]
fn silent_tls_connections_do_not_delay_a_real_handshake() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let d = Daemon::start(TLS_HALF_OPEN);
    assert!(d.mesh_tls());
    let addr = d.mesh_addr();
    rt().block_on(async {
        let node = crate::mesh::node_id(&d).await;
        // 130 connections that never start a handshake, from ten machines and from the real
        // client's own address: more than every handshake slot (64, 8 per address).
        let mut idle = Vec::new();
        for i in 0..138 {
            let from = if i < 8 {
                "127.0.0.1".to_string()
            } else {
                format!("127.0.0.{}", 2 + i % 10)
            };
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
            idle.push(socket.connect(addr.parse().unwrap()).await.unwrap());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let started = std::time::Instant::now();
        let (code, head) =
            crate::mesh_tls::https(&addr, &node, "GET", "/healthz", &[("Host", &addr)])
                .await
                .unwrap();
        let took = started.elapsed();
        assert_eq!(code, 200, "{head}");
        assert!(
            took < Duration::from_secs(1),
            "a real handshake took {took:?}"
        );
        eprintln!("a real handshake and request behind 138 silent connections: {took:?}");
        // Every silent one is gone after the 3 s handshake deadline.
        tokio::time::sleep(Duration::from_millis(3300)).await;
        assert_eq!(
            held(&mut idle).await,
            0,
            "silent connections are closed after 3 s"
        );

        // A completed handshake, then half a request head: closed after the header timeout.
        let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let connector =
            tokio_rustls::TlsConnector::from(circe::mesh::tls::pinned_client_config(&node));
        let ip: std::net::IpAddr = "127.0.0.1".parse().unwrap();
        let mut s = connector
            .connect(rustls::pki_types::ServerName::IpAddress(ip.into()), tcp)
            .await
            .unwrap();
        s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let mut buf = [0u8; 256];
        let read = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await;
        let took = started.elapsed();
        assert!(
            matches!(read, Ok(Ok(_)) | Ok(Err(_))),
            "the connection is closed, not held: {read:?}"
        );
        assert!(
            took >= Duration::from_millis(1200) && took < Duration::from_millis(2500),
            "closed after {took:?}; the header timeout is 1.5 s"
        );
    });
}

/// Open a WebSocket to the mesh from `from` and send nothing: `Ok` when upgraded (the socket
/// stays open), `Err(status)` when the upgrade was refused.
async fn silent_socket(from: &str, addr: &str) -> Result<crate::mesh::Ws, u16> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let tcp = socket.connect(addr.parse().unwrap()).await.unwrap();
    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut()
        .insert("Origin", format!("http://{addr}").parse().unwrap());
    match tokio_tungstenite::client_async(req, tokio_tungstenite::MaybeTlsStream::Plain(tcp)).await
    {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("upgrade: {e}"),
    }
}

#[test]
fn silent_sockets_do_not_lock_out_paired_devices() {
    let d = Daemon::start("");
    let addr = d.mesh_addr();
    rt().block_on(async {
        let (token, _) = crate::mesh::pair(&d, "Pixel").await;
        // Another machine opens 64 sockets and never authenticates (the issue: enough to fill
        // `max_sockets` and keep every device out with 4429, again every few seconds).
        let mut silent = Vec::new();
        let mut refused = 0;
        for _ in 0..64 {
            match silent_socket("127.0.0.2", &addr).await {
                Ok(ws) => silent.push(ws),
                Err(429) => refused += 1,
                Err(other) => panic!("upgrade refused with {other}"),
            }
        }
        // One address waits with at most 8; each newer one evicts the oldest. (127.0.0.2 is
        // loopback, where silence is bounded by the places alone; from a LAN address it also
        // spends the address's attempts: `silence_spends_a_lan_address_attempts`.)
        let mut evicted = 0;
        let mut open = Vec::new();
        for mut ws in silent {
            let closed =
                tokio::time::timeout(Duration::from_millis(200), crate::mesh::close_code(&mut ws))
                    .await;
            match closed {
                Ok(code) => {
                    assert_eq!(code, Some(4401));
                    evicted += 1;
                }
                Err(_) => open.push(ws),
            }
        }
        assert!(
            open.len() <= 8,
            "{} silent sockets still open; one address may hold 8",
            open.len()
        );
        assert_eq!(open.len() + evicted + refused, 64);
        eprintln!(
            "64 silent sockets: {} held, {evicted} evicted, {refused} refused (429)",
            open.len()
        );
        // The paired phone is let in at once, and served.
        let started = std::time::Instant::now();
        let mut phone = crate::mesh::authed(&d, &token).await;
        let took = started.elapsed();
        assert!(took < Duration::from_secs(1), "authOk after {took:?}");
        let state = crate::mesh::call(&mut phone, 1, serde_json::json!({"verb": "state"})).await;
        assert!(state["ok"]["operations"].is_array(), "{state}");
        // The held ones are closed at the 5 s deadline; the phone still gets in.
        for ws in open.iter_mut() {
            assert_eq!(crate::mesh::close_code(ws).await, Some(4401));
        }
        let _second = crate::mesh::authed(&d, &token).await;
    });
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

#[test]
fn unread_request_floods_are_held_back_and_stop_keeps_its_bound() {
    use circe::model::OperationStatus;
    use circe::protocol::{Notification, Verb};
    use futures_util::SinkExt;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    use tokio::io::AsyncWriteExt;
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(30_000, Ordering::SeqCst);
    let d = Daemon::start(
        &weather
            .config()
            .replace("timeout_ms = 1500", "timeout_ms = 60000"),
    );
    rt().block_on(async {
        let (token, _) = crate::mesh::pair(&d, "Pixel").await;
        let mut sub = d.client().await.subscribe().await.unwrap();
        let said = d.cli(&["say", "weather in Pune"]);
        assert!(said.status.success(), "{}", stderr(&said));
        let op = wait_until(&mut sub, 10, |n| match n {
            Notification::Operation { operation } if operation.steps.len() == 2 => {
                Some(operation.id)
            }
            _ => None,
        })
        .await;
        let before = rss_kib(d.pid());
        let flooding = Arc::new(AtomicBool::new(true));

        // The control socket: `state` requests written as fast as they go, never read.
        let control_written = Arc::new(AtomicU64::new(0));
        let mut raw = tokio::net::UnixStream::connect(d.socket()).await.unwrap();
        let control = tokio::spawn({
            let (flooding, written) = (flooding.clone(), control_written.clone());
            async move {
                let mut n = 0u64;
                while flooding.load(Ordering::SeqCst) && n < 100_000 {
                    n += 1;
                    let line = format!("{{\"id\":{n},\"verb\":\"state\"}}\n");
                    if raw.write_all(line.as_bytes()).await.is_err() {
                        break;
                    }
                    written.store(n, Ordering::SeqCst);
                }
                raw
            }
        });
        // A paired phone does the same on the mesh.
        let mesh_written = Arc::new(AtomicU64::new(0));
        let phone = crate::mesh::authed(&d, &token).await;
        let mesh = tokio::spawn({
            let (flooding, written) = (flooding.clone(), mesh_written.clone());
            async move {
                use futures_util::StreamExt;
                let (mut sink, stream) = phone.split();
                let mut n = 0u64;
                while flooding.load(Ordering::SeqCst) && n < 400_000 {
                    n += 1;
                    let m = serde_json::json!({"id": n, "verb": "state"}).to_string();
                    let sent = sink
                        .send(tokio_tungstenite::tungstenite::Message::Text(m.into()))
                        .await;
                    if sent.is_err() {
                        break;
                    }
                    written.store(n, Ordering::SeqCst);
                }
                (sink, stream)
            }
        });
        let mut peak = before;
        for _ in 0..15 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            peak = peak.max(rss_kib(d.pid()));
        }
        // Both writers are stalled: the daemon reads nothing more from them.
        let counts = || {
            (
                control_written.load(Ordering::SeqCst),
                mesh_written.load(Ordering::SeqCst),
            )
        };
        let at_3s = counts();
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(
            counts(),
            at_3s,
            "writers still make progress: no back-pressure"
        );
        // Stop from the CLI's socket during the flood.
        let started = std::time::Instant::now();
        let stopped = d
            .client()
            .await
            .call(Verb::Interrupt {
                operation: Some(op),
                device: "cli".into(),
            })
            .await
            .unwrap();
        let requested = started.elapsed();
        assert!(stopped["stop"].is_object(), "{stopped}");
        wait_until(&mut sub, 10, |n| match n {
            Notification::Operation { operation }
                if operation.id == op && operation.status == OperationStatus::Stopped =>
            {
                Some(())
            }
            _ => None,
        })
        .await;
        let confirmed = started.elapsed();
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            peak = peak.max(rss_kib(d.pid()));
        }
        let (control_n, mesh_n) = counts();
        eprintln!(
            "flood: {control_n} control lines and {mesh_n} mesh messages written in 4 s; \
             stop requested in {requested:?}, confirmed in {confirmed:?}; \
             RSS {before} KiB before, peak {peak} KiB"
        );
        assert!(
            control_n < 100_000 && mesh_n < 400_000,
            "the daemon stopped reading: {control_n} lines, {mesh_n} messages"
        );
        assert!(
            requested < Duration::from_millis(500),
            "stop requested after {requested:?}"
        );
        assert!(
            confirmed < Duration::from_secs(1),
            "stop confirmed after {confirmed:?}"
        );
        assert!(
            peak - before < 64 * 1024,
            "RSS grew from {before} KiB to {peak} KiB during the flood"
        );
        flooding.store(false, Ordering::SeqCst);
        control.abort();
        mesh.abort();
    });
}

const EXTENSION_ORIGIN: &str = "chrome-extension://dhnfkefodfmddfnkfkkbeilnaiafageh/";

/// `circe` started the way Chrome starts its native host, with `dir`'s XDG directories; the test
/// is Chrome on its stdin and stdout.
fn native_host(dir: &Path) -> tokio::process::Child {
    tokio::process::Command::new(CIRCE)
        .arg(EXTENSION_ORIGIN)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_RUNTIME_DIR", dir.join("run"))
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the native host")
}

async fn chrome_reads(host: &mut tokio::process::Child) -> serde_json::Value {
    use circe::browser::framing::{read_frame, Order};
    let out = host.stdout.as_mut().unwrap();
    let frame = tokio::time::timeout(
        Duration::from_secs(10),
        read_frame(out, 1 << 20, Order::Native),
    )
    .await
    .expect("a frame from the host within 10 s")
    .unwrap()
    .expect("the host is still there");
    serde_json::from_slice(&frame).unwrap()
}

#[test]
fn the_native_host_relays_interleaved_frames_whole_both_ways() {
    use circe::browser::framing::{read_frame, write_frame, Order};
    use tokio::io::AsyncWriteExt;
    let dir = tempfile::tempdir().unwrap();
    let secret = "5".repeat(64);
    std::fs::create_dir_all(dir.path().join("data/circe")).unwrap();
    std::fs::write(dir.path().join("data/circe/browser.secret"), &secret).unwrap();
    circe::private::dir(&dir.path().join("run/circe")).unwrap();
    const N: usize = 300;
    rt().block_on(async {
        // The daemon's side is this test's socket, so it can trickle its frames a few bytes at a
        // time: the host is nearly always in the middle of one when Chrome's side sends.
        let listener = tokio::net::UnixListener::bind(dir.path().join("run/circe/browser.sock")).unwrap();
        let mut host = native_host(dir.path());
        let (mut daemon, _) = tokio::time::timeout(Duration::from_secs(10), listener.accept())
            .await
            .unwrap()
            .unwrap();
        let auth = read_frame(&mut daemon, 65536, Order::Little).await.unwrap().unwrap();
        let auth: serde_json::Value = serde_json::from_slice(&auth).unwrap();
        assert_eq!((auth["secret"].as_str(), auth["origin"].as_str()), (Some(secret.as_str()), Some(EXTENSION_ORIGIN)));
        write_frame(&mut daemon, br#"{"type":"accepted"}"#, 64, Order::Little).await.unwrap();
        assert_eq!(chrome_reads(&mut host).await["daemon"], "connected");

        let (mut daemon_r, mut daemon_w) = daemon.into_split();
        let trickle = tokio::spawn(async move {
            for n in 0..N {
                let body = serde_json::json!({"type": "command", "id": n, "cmd": "ping", "args": {"pad": "x".repeat(n % 40)}}).to_string();
                let mut bytes = (body.len() as u32).to_le_bytes().to_vec();
                bytes.extend(body.as_bytes());
                for chunk in bytes.chunks(5) {
                    daemon_w.write_all(chunk).await.unwrap();
                    tokio::time::sleep(Duration::from_micros(300)).await;
                }
            }
            daemon_w
        });
        let mut stdin = host.stdin.take().unwrap();
        let chrome_writes = tokio::spawn(async move {
            for n in 0..N {
                let body = serde_json::json!({"type": "reply", "id": n, "ok": true, "result": {"pong": true}}).to_string();
                write_frame(&mut stdin, body.as_bytes(), 1 << 20, Order::Native).await.unwrap();
                tokio::time::sleep(Duration::from_micros(700)).await;
            }
            stdin
        });
        let daemon_reads = tokio::spawn(async move {
            let mut ids = Vec::new();
            while ids.len() < N {
                let f = read_frame(&mut daemon_r, 1 << 22, Order::Little).await.unwrap().expect("the host stays connected");
                let v: serde_json::Value = serde_json::from_slice(&f).unwrap();
                ids.push(v["id"].as_u64().unwrap() as usize);
            }
            ids
        });
        let mut chrome_ids = Vec::new();
        while chrome_ids.len() < N {
            let v = chrome_reads(&mut host).await;
            assert_eq!(v["type"], "command", "{v}");
            assert_eq!(v["args"]["pad"].as_str().unwrap().len(), chrome_ids.len() % 40, "{v}");
            chrome_ids.push(v["id"].as_u64().unwrap() as usize);
        }
        let daemon_ids = tokio::time::timeout(Duration::from_secs(20), daemon_reads).await.unwrap().unwrap();
        let _ = (trickle.await, chrome_writes.await);
        let expected: Vec<usize> = (0..N).collect();
        assert_eq!(chrome_ids, expected, "daemon → Chrome, every frame whole and in order");
        assert_eq!(daemon_ids, expected, "Chrome → daemon, every frame whole and in order");
    });
}

#[test]
fn the_native_host_says_connected_only_once_the_daemon_accepted_it() {
    let d = Daemon::start("");
    rt().block_on(async {
        let mut host = native_host(d.dir.path());
        assert_eq!(chrome_reads(&mut host).await["daemon"], "connected");
        drop(host);
        // A host with another secret is refused by the daemon: it never says connected.
        std::fs::write(
            d.dir.path().join("data/circe/browser.secret"),
            "7".repeat(64),
        )
        .unwrap();
        let mut host = native_host(d.dir.path());
        assert_eq!(chrome_reads(&mut host).await["daemon"], "disconnected");
        let next = tokio::time::timeout(Duration::from_secs(2), chrome_reads(&mut host)).await;
        assert!(next.is_err(), "nothing more (no \"connected\"): {next:?}");
    });
}

#[test]
fn silence_spends_a_lan_address_attempts() {
    use crate::nodes::Netns;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let ns = Netns::create();
    let listen = format!("{}:7457", Netns::ADDR);
    let d = Daemon::start_in_netns(
        &format!("[node]\nname = \"desk\"\n[mesh]\nlisten = \"{listen}\"\n"),
        ns.pid(),
    );
    assert!(d.mesh_tls(), "a LAN address is served over TLS");
    ns.block_on(|| async {
        let node = crate::mesh::node_id(&d).await;
        let (token, _) = crate::mesh::pair(&d, "Pixel").await;
        // Another machine on the LAN opens silent wss:// sockets.
        let silent = || async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket
                .bind(format!("{}:0", Netns::OTHER).parse().unwrap())
                .unwrap();
            let tcp = socket.connect(listen.parse().unwrap()).await.unwrap();
            let connector =
                tokio_rustls::TlsConnector::from(circe::mesh::tls::pinned_client_config(&node));
            let ip: std::net::IpAddr = Netns::ADDR.parse().unwrap();
            let tls = connector
                .connect(rustls::pki_types::ServerName::IpAddress(ip.into()), tcp)
                .await
                .unwrap();
            let mut req = format!("wss://{listen}/ws").into_client_request().unwrap();
            req.headers_mut()
                .insert("Origin", format!("https://{listen}").parse().unwrap());
            match tokio_tungstenite::client_async(
                req,
                tokio_tungstenite::MaybeTlsStream::Rustls(tls),
            )
            .await
            {
                Ok((ws, _)) => Ok(ws),
                Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
                Err(e) => panic!("upgrade: {e}"),
            }
        };
        // 8 wait, and each newer one evicts the oldest; each eviction is a failed attempt, and
        // after the 10 an address may make it is refused before upgrading.
        let mut held = Vec::new();
        let refused = loop {
            match silent().await {
                Ok(ws) => held.push(ws),
                Err(status) => break status,
            }
            assert!(held.len() < 30, "30 silent sockets upgraded");
        };
        assert_eq!(refused, 429);
        assert!(held.len() <= 8 + 10 + 1, "{} upgraded", held.len());
        eprintln!(
            "a silent LAN address was refused after {} sockets",
            held.len()
        );
        // The phone, on its own address, is not.
        let _phone = crate::mesh::authed(&d, &token).await;
        drop(held);
    });
}

/// A relay in the middle of a phone's pairing, as a LAN attacker would run one: it serves the
/// node's page unchanged, and on `/ws` runs its own key exchange with each side (its own key and
/// nonces toward the phone, others toward the node), passing everything else through.
struct Relay {
    url: String,
    _runtime: tokio::runtime::Runtime,
}

impl Relay {
    fn start(node: String) -> Relay {
        use axum::extract::ws::{Message as AxMessage, WebSocketUpgrade};
        use axum::extract::Request;
        use axum::response::IntoResponse;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let page_node = node.clone();
        let app = axum::Router::new()
            .route(
                "/ws",
                axum::routing::get(move |ws: WebSocketUpgrade| {
                    let node = node.clone();
                    async move { ws.on_upgrade(move |phone| relay_socket(phone, node)) }
                }),
            )
            .fallback(move |request: Request| {
                let node = page_node.clone();
                async move {
                    let url = format!("http://{node}{}", request.uri().path());
                    let got = reqwest::get(&url).await.unwrap();
                    let kind = got.headers()["content-type"].to_str().unwrap().to_string();
                    let body = got.bytes().await.unwrap();
                    ([(axum::http::header::CONTENT_TYPE, kind)], body).into_response()
                }
            });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });

        async fn relay_socket(mut phone: axum::extract::ws::WebSocket, node: String) {
            use circe::mesh::exchange::{commit, nonce, KeyPair};
            use futures_util::{SinkExt, StreamExt};
            use tokio_tungstenite::tungstenite::client::IntoClientRequest;
            use tokio_tungstenite::tungstenite::Message;
            let mut req = format!("ws://{node}/ws").into_client_request().unwrap();
            req.headers_mut()
                .insert("Origin", format!("http://{node}").parse().unwrap());
            let (mut upstream, _) = tokio_tungstenite::connect_async(req).await.unwrap();
            let (mut phone_key, mut toward_phone) = (String::new(), None::<(KeyPair, String)>);
            loop {
                tokio::select! {
                    m = phone.recv() => {
                        let Some(Ok(AxMessage::Text(t))) = m else { return };
                        let mut v: serde_json::Value = serde_json::from_str(&t).unwrap();
                        if v["type"] == "pair" {
                            // Toward the node, the relay's own key.
                            phone_key = v["key"].as_str().unwrap().to_string();
                            v["key"] = KeyPair::generate().public.into();
                        } else if v["type"] == "pairNonce" {
                            v["nonce"] = nonce().into();
                        }
                        if upstream.send(Message::Text(v.to_string().into())).await.is_err() {
                            return;
                        }
                    }
                    m = upstream.next() => {
                        let Some(Ok(Message::Text(t))) = m else { return };
                        let mut v: serde_json::Value = serde_json::from_str(&t).unwrap();
                        if v["type"] == "pairKey" {
                            // Toward the phone, another key and a nonce committed to.
                            let (keys, n) = (KeyPair::generate(), nonce());
                            v["key"] = keys.public.clone().into();
                            v["commit"] = commit(&keys.public, &phone_key, &n).into();
                            toward_phone = Some((keys, n));
                        } else if v["type"] == "pairPending" {
                            v["nonce"] = toward_phone.as_ref().unwrap().1.clone().into();
                        }
                        if phone.send(AxMessage::Text(v.to_string().into())).await.is_err() {
                            return;
                        }
                    }
                }
            }
        }

        Relay {
            url,
            _runtime: runtime,
        }
    }
}

#[test]
fn a_relayed_pairing_shows_different_codes_and_does_not_pair() {
    use crate::mesh_browser::Phone;
    use circe::protocol::AdminVerb;
    let d = Daemon::start("[node]\nname = \"desk\"\n");
    let relay = Relay::start(d.mesh_addr());
    let mut phone = Phone::start(&d.dir.path().join("chromium-relay.log"));
    let started = rt()
        .block_on(crate::mesh::admin(&d, AdminVerb::PairStart))
        .unwrap();
    // The person opens the relay's address (what a LAN attacker would get them to open) and
    // types the code the desktop shows.
    phone.goto(&format!("{}/#pair", relay.url));
    phone.wait("!document.getElementById('pairing').hidden", 15);
    phone.eval(&format!(
        "document.getElementById('pair-code').value = '{}'; document.getElementById('pair-name').value = 'Pixel'; document.getElementById('pair-go').click(); true",
        started["code"].as_str().unwrap()
    ));
    let waited = rt()
        .block_on(crate::mesh::admin(&d, AdminVerb::PairWait))
        .unwrap();
    let desktop = waited["verification"].as_str().unwrap().to_string();
    let shown = phone.wait("document.getElementById('verification').textContent", 10);
    let on_phone = shown.as_str().unwrap().to_string();
    eprintln!("relayed pairing: the desktop shows {desktop}, the phone {on_phone}");
    assert_eq!((desktop.len(), on_phone.len()), (6, 6));
    assert_ne!(
        desktop, on_phone,
        "a relay shows different codes on the two screens"
    );
    // The person sees two codes and refuses: nothing is paired, and the phone holds no token.
    rt().block_on(crate::mesh::admin(
        &d,
        AdminVerb::PairDecide { approve: false },
    ))
    .unwrap();
    phone.wait("document.getElementById('pair-error').textContent", 10);
    assert_eq!(
        phone.eval("localStorage.getItem('circe.token')"),
        serde_json::Value::Null
    );
    let listed = rt()
        .block_on(crate::mesh::admin(&d, AdminVerb::Devices))
        .unwrap();
    assert_eq!(listed["devices"].as_array().unwrap().len(), 0, "{listed}");
    // Without the relay, the same page pairs, with matching codes.
    let started = rt()
        .block_on(crate::mesh::admin(&d, AdminVerb::PairStart))
        .unwrap();
    phone.goto(&format!("http://{}/#pair", d.mesh_addr()));
    phone.wait("!document.getElementById('pairing').hidden", 15);
    crate::mesh_browser::pair_on_the_page(&mut phone, &d, &started, "Pixel");
}

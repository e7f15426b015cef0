//! Mesh benchmarks: submit → state update at a subscribed WebSocket client over loopback,
//! 200 concurrent subscribed clients (update latency at every client, daemon memory), and the
//! same submit routed through a controller node to the desk (`--node`).
//!
//! Run with `cargo bench --bench mesh`. Prints distributions (p50/p95/max). Results:
//! docs/BENCHMARKS.md ("Mesh").

#[path = "../tests/it/util.rs"]
#[allow(dead_code)]
mod util;

use circe::client::Client;
use circe::protocol::AdminVerb;
use futures_util::{SinkExt, StreamExt};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use util::Daemon;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const DESK: &str = "[node]\nname = \"desk\"\n[weather]\ngeocoding_url = \"http://127.0.0.1:9\"\nforecast_url = \"http://127.0.0.1:9\"\n[mesh]\nlisten = \"127.0.0.1:0\"\nmax_sockets = 256\n";
const CONTROLLER: &str =
    "[node]\nname = \"laptop\"\nrole = \"controller\"\n[mesh]\nlisten = \"127.0.0.1:0\"\n";

fn main() {
    let served = Daemon::quiet(DESK);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // 50 devices × 4 sockets = 200 clients (a device may hold at most 4).
        let mut tokens = Vec::new();
        for n in 0..50 {
            tokens.push(pair(&served, &format!("bench {n}")).await);
        }
        latency(&served, &tokens).await;
        fan_out(&served, &tokens).await;
        routed(&served).await;
    });
}

/// Submit on a controller's control socket for the desk, time until a routed subscription on the
/// controller holds the change (controller → desk over the mesh link → back).
async fn routed(desk: &Daemon) {
    let laptop = Daemon::quiet(CONTROLLER);
    let mut admin = Client::connect(&desk.socket()).await.unwrap();
    let started = admin.call_admin(AdminVerb::PairStart).await.unwrap();
    let mut joiner = Client::connect(&laptop.socket()).await.unwrap();
    joiner
        .call_admin(AdminVerb::JoinStart {
            url: format!("http://{}", desk.mesh_addr()),
            code: started["code"].as_str().unwrap().to_string(),
            node: None,
        })
        .await
        .unwrap();
    admin.call_admin(AdminVerb::PairWait).await.unwrap();
    admin
        .call_admin(AdminVerb::PairDecide { approve: true })
        .await
        .unwrap();
    joiner.call_admin(AdminVerb::JoinWait).await.unwrap();
    let desk_node = Some("desk".to_string());
    let mut sub = loop {
        let client = Client::connect(&laptop.socket()).await.unwrap();
        let mut sub = client.via(desk_node.clone()).subscribe().await.unwrap();
        // The first notification is the desk's status; wait until the link is up.
        if let circe::protocol::Notification::Node { node } = sub.next().await.unwrap() {
            if node.online {
                break sub;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut client = Client::connect(&laptop.socket())
        .await
        .unwrap()
        .via(desk_node);
    let mut samples = Vec::new();
    for _ in 0..120 {
        let input = circe::model::Input {
            id: uuid::Uuid::new_v4(),
            device: "bench".into(),
            text: "what's the weather?".into(),
            choice: None,
            mode: Default::default(),
            interaction: None,
            expected_revision: None,
            heard: Vec::new(),
        };
        let t0 = Instant::now();
        let id = client
            .send(circe::protocol::Verb::Submit { input })
            .await
            .unwrap();
        loop {
            if let circe::protocol::Notification::Interaction { .. } = sub.next().await.unwrap() {
                break;
            }
        }
        samples.push(t0.elapsed());
        // The reply, so the connection never backs up.
        while serde_json::from_str::<serde_json::Value>(&client.line().await.unwrap())
            .ok()
            .and_then(|v| v["id"].as_u64())
            != Some(id)
        {}
        // Under the desk's 5/s submit limit for the controller's device.
        tokio::time::sleep(Duration::from_millis(210)).await;
    }
    report("routed submit -> update via the controller", samples);
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<48} n={:<6} p50={:>8.3} ms  p95={:>8.3} ms  max={:>8.3} ms",
        samples.len(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3
    );
}

fn submit(n: u64) -> String {
    serde_json::json!({"id": n, "verb": "submit", "input": {"id": uuid::Uuid::new_v4(), "device": "bench", "text": "what's the weather?"}}).to_string()
}

/// Submit from one device, time until a subscribed socket (another device) holds the change.
async fn latency(served: &Daemon, tokens: &[String]) {
    let mut sub = subscribed(served, &tokens[0]).await;
    let mut submitters = Vec::new();
    for t in &tokens[1..] {
        submitters.push(authed(served, t).await);
    }
    let mut samples = Vec::new();
    for n in 0..400u64 {
        // Round robin over 49 devices keeps each under its 5/s submit limit.
        let ws = &mut submitters[n as usize % 49];
        let t0 = Instant::now();
        ws.send(Message::Text(submit(n + 1).into())).await.unwrap();
        loop {
            let m = json(&mut sub).await;
            if m["event"] == "interaction" {
                break;
            }
        }
        samples.push(t0.elapsed());
        // Drain the submit's reply so its socket never backs up.
        loop {
            if json(ws).await["id"] == n + 1 {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    report("submit -> update at a subscribed WebSocket", samples);
    // Free the devices' socket slots (4 each) for the fan-out.
    let _ = sub.close(None).await;
    for mut ws in submitters {
        let _ = ws.close(None).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
}

/// 200 subscribed sockets; each round one submit, timed until every socket holds the change.
async fn fan_out(served: &Daemon, tokens: &[String]) {
    let before = rss_kib(served.pid());
    let mut clients = Vec::new();
    for t in tokens {
        for _ in 0..4 {
            clients.push(subscribed(served, t).await);
        }
    }
    let with = rss_kib(served.pid());
    let mut submitter = Client::connect(&served.socket()).await.unwrap();
    let mut every = Vec::new();
    let mut last = Vec::new();
    for round in 0..20u64 {
        let t0 = Instant::now();
        let input: circe::model::Input = serde_json::from_value(
            serde_json::from_str::<serde_json::Value>(&submit(round)).unwrap()["input"].clone(),
        )
        .unwrap();
        submitter
            .send(circe::protocol::Verb::Submit { input })
            .await
            .unwrap();
        let waits = clients.iter_mut().map(|ws| async move {
            loop {
                if json(ws).await["event"] == "interaction" {
                    return t0.elapsed();
                }
            }
        });
        let times = futures_util::future::join_all(waits).await;
        last.push(*times.iter().max().unwrap());
        every.extend(times);
        let _ = submitter.line().await;
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    report("200 clients: update at each client", every);
    report("200 clients: update at the last client", last);
    println!(
        "daemon VmRSS: {:.1} MiB before, {:.1} MiB with 200 subscribed clients ({:.1} KiB each)",
        before as f64 / 1024.0,
        with as f64 / 1024.0,
        (with.saturating_sub(before)) as f64 / 200.0
    );
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn json(ws: &mut Ws) -> serde_json::Value {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).unwrap(),
            Ok(Some(Ok(Message::Close(f)))) => panic!("closed by the daemon: {f:?}"),
            Ok(Some(Ok(_))) => continue,
            other => panic!("socket ended: {other:?}"),
        }
    }
}

async fn connect(served: &Daemon) -> Ws {
    let addr = served.mesh_addr();
    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut()
        .insert("Origin", format!("http://{addr}").parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    assert_eq!(json(&mut ws).await["type"], "hello");
    ws
}

async fn authed(served: &Daemon, token: &str) -> Ws {
    let mut ws = connect(served).await;
    let auth = serde_json::json!({"type": "auth", "token": token}).to_string();
    ws.send(Message::Text(auth.into())).await.unwrap();
    assert_eq!(json(&mut ws).await["type"], "authOk");
    ws
}

async fn subscribed(served: &Daemon, token: &str) -> Ws {
    let mut ws = authed(served, token).await;
    ws.send(Message::Text(r#"{"id":1,"verb":"subscribe"}"#.into()))
        .await
        .unwrap();
    // The reply, then the snapshot.
    while json(&mut ws).await["event"] != "snapshot" {}
    ws
}

async fn pair(served: &Daemon, name: &str) -> String {
    use circe::mesh::exchange::{nonce, KeyPair, Transcript};
    let mut admin = Client::connect(&served.socket()).await.unwrap();
    let started = admin.call_admin(AdminVerb::PairStart).await.unwrap();
    let mut ws = connect(served).await;
    // The phone's side of the key exchange (`circe::mesh::exchange`).
    let keys = KeyPair::generate();
    let phone_key = keys.public.clone();
    let offer = serde_json::json!({"type": "pair", "code": started["code"], "name": name, "key": phone_key});
    ws.send(Message::Text(offer.to_string().into()))
        .await
        .unwrap();
    let offered = json(&mut ws).await;
    assert_eq!(offered["type"], "pairKey");
    let phone_nonce = nonce();
    let answer = serde_json::json!({"type": "pairNonce", "nonce": phone_nonce});
    ws.send(Message::Text(answer.to_string().into()))
        .await
        .unwrap();
    let pending = json(&mut ws).await;
    assert_eq!(pending["type"], "pairPending");
    let node_key = offered["key"].as_str().unwrap();
    let transcript = Transcript {
        phone_key: &phone_key,
        node_key,
        phone_nonce: &phone_nonce,
        node_nonce: pending["nonce"].as_str().unwrap(),
    };
    let key = keys.agree(node_key, &transcript).unwrap();
    admin
        .call_admin(AdminVerb::PairDecide { approve: true })
        .await
        .unwrap();
    let paired = json(&mut ws).await;
    circe::mesh::exchange::open(&key, &paired["sealedToken"]).unwrap()
}

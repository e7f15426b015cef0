//! Two nodes on this machine: a controller (the "laptop") pairs with an execution node (the
//! "desk") and routes requests there with `--node`. The desk owns the interaction and the
//! operation; the laptop only carries inputs there and state back.

use crate::mesh::{connect, connect_hello, next_json, send};
use crate::util::{rt, stderr, stdout, Daemon, WeatherServer};
use circe::mesh::identity::{hex, proof, verify, NodeIdentity};
use circe::protocol::AdminVerb;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A free loopback port (so a restarted node comes back at the same address).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn desk_config(weather: &WeatherServer, port: u16) -> String {
    format!(
        "[node]\nname = \"desk\"\n[weather]\ngeocoding_url = \"{0}\"\nforecast_url = \"{0}\"\ntimeout_ms = 60000\n[mesh]\nlisten = \"127.0.0.1:{port}\"\n",
        weather.url
    )
}

const LAPTOP: &str = "[node]\nname = \"laptop\"\nrole = \"controller\"\n";

async fn admin(d: &Daemon, verb: AdminVerb) -> Result<serde_json::Value, String> {
    d.client()
        .await
        .call_admin(verb)
        .await
        .map_err(|e| e.to_string())
}

/// Pair `laptop` with `desk` the way `circe pair` / `circe join` do; returns the laptop's node id
/// as the desk knows it.
async fn join(desk: &Daemon, laptop: &Daemon, port: u16) -> String {
    join_at(desk, laptop, &format!("http://127.0.0.1:{port}")).await
}

async fn join_at(desk: &Daemon, laptop: &Daemon, url: &str) -> String {
    let started = admin(desk, AdminVerb::PairStart).await.unwrap();
    let code = started["code"].as_str().unwrap().to_string();
    let desk_id = started["node"]["id"].as_str().unwrap().to_string();
    let offered = admin(
        laptop,
        AdminVerb::JoinStart {
            url: url.to_string(),
            code,
            node: Some(desk_id.clone()),
        },
    )
    .await
    .unwrap();
    let waited = admin(desk, AdminVerb::PairWait).await.unwrap();
    assert_eq!(waited["name"], "laptop", "{waited}");
    assert_eq!(
        waited["verification"], offered["verification"],
        "both nodes show the same verification code"
    );
    let decided = admin(desk, AdminVerb::PairDecide { approve: true })
        .await
        .unwrap();
    assert_eq!(decided["approved"], true, "{decided}");
    let joined = admin(laptop, AdminVerb::JoinWait).await.unwrap();
    assert_eq!(joined["peer"]["id"], desk_id.as_str(), "{joined}");
    assert_eq!(joined["peer"]["name"], "desk");
    let laptop_id = decided["device"]["id"].as_str().unwrap().to_string();
    assert_eq!(decided["device"]["role"], "controller");
    assert!(
        decided["device"]["publicKey"].as_str().is_some(),
        "a node device is known by its key: {decided}"
    );
    laptop_id
}

/// Wait until the laptop sees the desk online (or offline).
fn wait_online(laptop: &Daemon, online: bool, secs: u64) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let out = laptop.cli(&["nodes", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap_or_default();
        let desk = v["nodes"]
            .as_array()
            .and_then(|n| n.iter().find(|n| n["name"] == "desk"))
            .cloned()
            .unwrap_or_default();
        if desk["online"] == online {
            return desk;
        }
        assert!(
            Instant::now() < deadline,
            "the desk is not {} after {secs} s: {v}\n{}",
            if online { "online" } else { "offline" },
            laptop.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Two nodes on this machine, paired and linked: the desk (at `port`, with the weather server)
/// and the laptop (a controller).
struct Pair {
    weather: WeatherServer,
    port: u16,
    desk: Daemon,
    laptop: Daemon,
    /// The laptop's id as the desk knows it.
    laptop_id: String,
}

fn paired() -> Pair {
    let weather = WeatherServer::start();
    let port = free_port();
    let desk = Daemon::start(&desk_config(&weather, port));
    let laptop = Daemon::start(LAPTOP);
    let laptop_id = rt().block_on(join(&desk, &laptop, port));
    wait_online(&laptop, true, 10);
    Pair {
        weather,
        port,
        desk,
        laptop,
        laptop_id,
    }
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(stdout(out).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(out), stderr(out)))
}

#[test]
fn a_controller_routes_requests_to_the_execution_node_which_owns_them() {
    let Pair {
        weather,
        desk,
        laptop,
        laptop_id,
        ..
    } = paired();

    // A controller acts nowhere by itself: with no node named and no preference it says so.
    let out = laptop.cli(&["say", "what's the weather?"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stderr(&out).contains("--node"), "{}", stderr(&out));

    // The question is asked by the desk and answered from the laptop, against the desk's state.
    let out = laptop.cli(&["say", "--node", "desk", "--json", "what's the weather?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let asked = json_of(&out);
    assert_eq!(asked["interaction"]["owner"], "desk", "{asked}");
    assert_eq!(
        asked["interaction"]["pending"]["type"], "question",
        "{asked}"
    );
    let out = laptop.cli(&["answer", "--node", "desk", "--wait", "--json", "Ahmedabad"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let answered = json_of(&out);
    assert_eq!(answered["operation"]["status"], "completed", "{answered}");
    assert_eq!(weather.forecasts.load(Ordering::SeqCst), 1);

    // The desk holds the interaction and the operation, under the laptop's authenticated id;
    // the laptop holds neither.
    let desk_state = rt().block_on(desk.state());
    let op = desk_state
        .operations
        .first()
        .expect("the desk has the operation");
    assert_eq!(op.status.as_str(), "completed");
    let laptop_state = rt().block_on(laptop.state());
    assert!(
        laptop_state.interaction.is_none(),
        "no interaction on the laptop"
    );
    assert!(
        laptop_state.operations.is_empty(),
        "no operation on the laptop"
    );
    assert!(
        laptop_state
            .nodes
            .iter()
            .any(|n| n.name == "desk" && n.online),
        "{:?}",
        laptop_state.nodes
    );
    let inputs = desk_inputs(&desk);
    assert!(
        inputs.iter().all(|d| d == &format!("device:{laptop_id}")),
        "the desk took the inputs as the laptop's: {inputs:?}"
    );

    // With the preference set, the controller's requests go to its desktop without --node.
    let out = laptop.cli(&["devices", "prefer", "my desktop", "desk"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = laptop.cli(&["state", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json_of(&out)["node"], "desk");

    // Stop travels to the desk and is confirmed there.
    weather
        .behaviour
        .forecast_delay_ms
        .store(30_000, Ordering::SeqCst);
    let out = laptop.cli(&["say", "--node", "desk", "weather in Pune"]);
    assert!(out.status.success(), "{}", stderr(&out));
    wait_forecast_requests(&weather, 2);
    let out = laptop.cli(&["stop", "--node", "desk", "--json"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let stopped = json_of(&out);
    assert_eq!(stopped["operation"]["status"], "stopped", "{stopped}");
    assert!(
        stopped["operation"]["stop"]["confirmedAt"].is_u64(),
        "{stopped}"
    );
}

/// The device each stored input came from, on the desk.
fn desk_inputs(desk: &Daemon) -> Vec<String> {
    let db = rusqlite::Connection::open(desk.database()).unwrap();
    let mut st = db.prepare("SELECT device FROM inputs").unwrap();
    let rows = st.query_map([], |r| r.get::<_, String>(0)).unwrap();
    rows.map(|r| r.unwrap()).collect()
}

fn wait_forecast_requests(weather: &WeatherServer, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while weather.forecasts.load(Ordering::SeqCst) < n {
        assert!(
            Instant::now() < deadline,
            "the forecast was never requested"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn killing_the_execution_node_shows_it_offline_and_nothing_completes_falsely() {
    let Pair {
        weather,
        mut desk,
        laptop,
        ..
    } = paired();

    // A lookup that is in flight at the weather server when the desk dies.
    weather
        .behaviour
        .forecast_delay_ms
        .store(60_000, Ordering::SeqCst);
    let waiting = laptop
        .command()
        .args([
            "say",
            "--node",
            "desk",
            "--wait",
            "--json",
            "weather in Pune",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_forecast_requests(&weather, 1);
    desk.signal(libc::SIGKILL);

    let out = waiting.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "not done: {}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let said = json_of(&out);
    assert_eq!(said["error"]["code"], "node_offline", "{said}");
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown"),
        "{said}"
    );
    let offline = wait_online(&laptop, false, 5);
    assert!(offline["error"].is_string(), "why it is offline: {offline}");
    let out = laptop.cli(&["state", "--node", "desk"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("desk is offline"), "{}", stderr(&out));
    let out = laptop.cli(&["stop", "--node", "desk"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the stop did not reach desk"),
        "{}",
        stderr(&out)
    );
    let out = laptop.cli(&["doctor"]);
    assert!(
        stdout(&out).contains("desk is offline"),
        "doctor names the offline node: {}",
        stdout(&out)
    );
    // Nothing took the desk's place: the laptop has no interaction of its own.
    assert!(rt().block_on(laptop.state()).interaction.is_none());

    // The desk comes back: the laptop reconnects and reads the current state, in which the
    // interrupted lookup is outcomeUnknown, never completed.
    desk.spawn();
    wait_online(&laptop, true, 15);
    let out = laptop.cli(&["state", "--node", "desk", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let state = json_of(&out);
    assert_eq!(state["operation"]["status"], "outcomeUnknown", "{state}");
    assert!(stdout(&laptop.cli(&["doctor"])).contains("desk is online"));
}

#[test]
fn only_the_paired_key_authenticates_a_node_and_revoking_it_drops_the_link() {
    let Pair {
        weather,
        desk,
        laptop,
        laptop_id,
        ..
    } = paired();

    rt().block_on(async {
        // Claiming the laptop's id without its key: the signature cannot be right.
        let mut ws = connect(&desk).await;
        send(
            &mut ws,
            serde_json::json!({"type": "node", "node": laptop_id, "signature": "00".repeat(64), "nonce": "n".repeat(26)}),
        )
        .await;
        let refused = next_json(&mut ws).await;
        assert_eq!(refused["type"], "authFailed", "{refused}");
        // A pairing offer signed by another key than the one it names.
        let started = admin(&desk, AdminVerb::PairStart).await.unwrap();
        let mut ws = connect(&desk).await;
        send(
            &mut ws,
            serde_json::json!({"type": "pairNode", "code": started["code"], "name": "mallory",
                "role": "controller", "publicKey": "11".repeat(32), "signature": "22".repeat(64)}),
        )
        .await;
        let refused = next_json(&mut ws).await;
        assert_eq!(refused["code"], "bad_signature", "{refused}");
    });

    // A phone paired with the controller cannot make it act (it acts nowhere) or carry on.
    rt().block_on(async {
        let (token, _) = crate::mesh::pair(&laptop, "phone").await;
        let mut ws = connect(&laptop).await;
        send(&mut ws, serde_json::json!({"type": "auth", "token": token})).await;
        assert_eq!(next_json(&mut ws).await["type"], "authOk");
        send(
            &mut ws,
            serde_json::json!({"id": 3, "verb": "submit", "input": {"id": uuid::Uuid::new_v4(), "device": "x", "text": "what's the weather?"}}),
        )
        .await;
        let reply = next_json(&mut ws).await;
        assert_eq!(reply["error"]["code"], "controller_node", "{reply}");
    });
    assert!(rt().block_on(laptop.state()).interaction.is_none());

    // A device of the desk cannot make the desk carry its requests on to a third node.
    rt().block_on(async {
        let (token, _) = crate::mesh::pair(&desk, "phone").await;
        let mut ws = connect(&desk).await;
        send(&mut ws, serde_json::json!({"type": "auth", "token": token})).await;
        assert_eq!(next_json(&mut ws).await["type"], "authOk");
        send(
            &mut ws,
            serde_json::json!({"id": 7, "node": "elsewhere", "verb": "state"}),
        )
        .await;
        let reply = next_json(&mut ws).await;
        assert_eq!(reply["error"]["code"], "not_routed", "{reply}");
    });

    // Revoked on the desk while a lookup it asked for runs: the laptop's link is closed at once
    // and stays refused, and what it started is stopped.
    weather
        .behaviour
        .forecast_delay_ms
        .store(30_000, Ordering::SeqCst);
    let out = laptop.cli(&["say", "--node", "desk", "weather in Pune"]);
    assert!(out.status.success(), "{}", stderr(&out));
    wait_forecast_requests(&weather, 1);
    let out = desk.cli(&["devices", "revoke", &laptop_id, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let revoked = json_of(&out);
    assert_eq!(
        revoked["stoppedOperations"].as_array().map(Vec::len),
        Some(1),
        "{revoked}"
    );
    let op = rt().block_on(desk.state()).operations.remove(0);
    let stop = op.stop.expect("a stop was requested");
    assert!(stop.requested_by.starts_with("revocation"), "{stop:?}");
    let offline = wait_online(&laptop, false, 5);
    assert!(offline["error"].is_string(), "{offline}");
    std::thread::sleep(Duration::from_millis(800));
    let out = laptop.cli(&["say", "--node", "desk", "what's the weather?"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("offline"), "{}", stderr(&out));
    let after = rt().block_on(desk.state());
    assert_eq!(after.operations.len(), 1, "nothing new reached the desk");
    assert_eq!(after.operations[0].status.as_str(), "stopped");
}

#[test]
fn over_tls_the_link_is_pinned_to_the_node_id() {
    let weather = WeatherServer::start();
    let port = free_port();
    let config = desk_config(&weather, port).replace("[mesh]\n", "[mesh]\ntls = \"on\"\n");
    let desk = Daemon::start(&config);
    let laptop = Daemon::start(LAPTOP);
    let url = format!("https://127.0.0.1:{port}");
    rt().block_on(async {
        let started = admin(&desk, AdminVerb::PairStart).await.unwrap();
        let code = started["code"].as_str().unwrap().to_string();
        assert!(
            started["url"].as_str().unwrap().starts_with("https://"),
            "{started}"
        );
        // Without the node id there is nothing to pin: refused before connecting.
        let e = admin(
            &laptop,
            AdminVerb::JoinStart {
                url: url.clone(),
                code: code.clone(),
                node: None,
            },
        )
        .await
        .unwrap_err();
        assert!(e.contains("--node-id"), "{e}");
        // Pinned to another node (the laptop's own id): the TLS handshake fails.
        let own = admin(&laptop, AdminVerb::Nodes).await.unwrap();
        let e = admin(
            &laptop,
            AdminVerb::JoinStart {
                url: url.clone(),
                code,
                node: own["node"]["id"].as_str().map(String::from),
            },
        )
        .await
        .unwrap_err();
        assert!(e.contains("pinned"), "{e}");
        join_at(&desk, &laptop, &url).await;
        // Another node by the same name cannot be paired: `--node desk` must mean one node.
        let twin = Daemon::start(&desk_config(&weather, free_port()));
        let started = admin(&twin, AdminVerb::PairStart).await.unwrap();
        let e = admin(
            &laptop,
            AdminVerb::JoinStart {
                url: format!("http://{}", twin.mesh_addr()),
                code: started["code"].as_str().unwrap().to_string(),
                node: None,
            },
        )
        .await
        .unwrap_err();
        assert!(e.contains("already called"), "{e}");
    });
    let online = wait_online(&laptop, true, 10);
    assert!(
        online["url"].as_str().unwrap().starts_with("wss://"),
        "{online}"
    );
    let out = laptop.cli(&["say", "--node", "desk", "--json", "what's the weather?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json_of(&out)["interaction"]["pending"]["type"], "question");
}

#[test]
fn without_the_mesh_a_request_for_another_node_is_refused_not_run_here() {
    let weather = WeatherServer::start();
    let lone = Daemon::start(&format!("{}[mesh]\nenabled = false\n", weather.config()));
    let out = lone.cli(&["say", "--node", "elsewhere", "what's the weather?"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("mesh is not enabled"),
        "{}",
        stderr(&out)
    );
    assert!(
        rt().block_on(lone.state()).interaction.is_none(),
        "nothing ran here"
    );
    // Naming this node itself is fine.
    let out = lone.cli(&["say", "--node", "desk", "what's the weather?"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// This test plays a node by hand, with its own key, to check the server side of the handshake.
#[test]
fn a_node_signature_is_good_for_one_connection_only() {
    let desk = Daemon::start("[node]\nname = \"desk\"\n");
    let keys = tempfile::tempdir().unwrap();
    let me = NodeIdentity::load_or_create(&keys.path().join("me.key")).unwrap();
    let stranger = NodeIdentity::load_or_create(&keys.path().join("stranger.key")).unwrap();
    rt().block_on(async {
        // Pair as a node: the offer is signed over this connection's challenge and the code.
        let started = admin(&desk, AdminVerb::PairStart).await.unwrap();
        let code = started["code"].as_str().unwrap().to_string();
        let (mut ws, hello) = connect_hello(&desk).await;
        let desk_id = hello["node"]["id"].as_str().unwrap().to_string();
        let desk_key = hello["node"]["publicKey"].as_str().unwrap().to_string();
        let statement = proof::pair(&desk_id, hello["challenge"].as_str().unwrap(), &code, &me.id);
        send(
            &mut ws,
            serde_json::json!({"type": "pairNode", "code": code, "name": "tool", "role": "controller",
                "publicKey": hex(me.public_key()), "signature": hex(&me.sign(&statement))}),
        )
        .await;
        assert_eq!(next_json(&mut ws).await["type"], "pairPending");
        admin(&desk, AdminVerb::PairWait).await.unwrap();
        admin(&desk, AdminVerb::PairDecide { approve: true })
            .await
            .unwrap();
        let paired = next_json(&mut ws).await;
        assert_eq!(paired["type"], "paired", "{paired}");
        assert_eq!(paired["device"]["id"], me.id.as_str(), "known by its key's id");
        assert!(paired.get("token").is_none(), "a node gets no token: {paired}");

        // Authenticate: sign this connection's challenge; the desk proves its key in return.
        let (mut ws, hello) = connect_hello(&desk).await;
        let nonce = "n".repeat(26);
        let signature = hex(&me.sign(&proof::client(
            &desk_id,
            hello["challenge"].as_str().unwrap(),
            &me.id,
        )));
        let auth = serde_json::json!({"type": "node", "node": me.id, "signature": signature, "nonce": nonce});
        send(&mut ws, auth.clone()).await;
        let ok = next_json(&mut ws).await;
        assert_eq!(ok["type"], "authOk", "{ok}");
        assert!(
            verify(
                &desk_key,
                &proof::server(&me.id, &nonce, &desk_id),
                ok["signature"].as_str().unwrap()
            ),
            "the desk signed our nonce with the key it showed"
        );
        send(&mut ws, serde_json::json!({"id": 1, "verb": "state"})).await;
        assert!(next_json(&mut ws).await["ok"]["node"].is_string());

        // The same signature on another connection (another challenge) is worthless.
        let (mut replay, _) = connect_hello(&desk).await;
        send(&mut replay, auth).await;
        let refused = next_json(&mut replay).await;
        assert_eq!(refused["type"], "authFailed", "a replay: {refused}");

        // A key that was never paired, signing correctly for itself, is refused too.
        let (mut other, hello) = connect_hello(&desk).await;
        let signature = hex(&stranger.sign(&proof::client(
            &desk_id,
            hello["challenge"].as_str().unwrap(),
            &stranger.id,
        )));
        send(
            &mut other,
            serde_json::json!({"type": "node", "node": stranger.id, "signature": signature, "nonce": nonce}),
        )
        .await;
        assert_eq!(next_json(&mut other).await["type"], "authFailed");
    });
}

#[test]
fn a_different_node_at_the_paired_address_is_never_taken_for_it() {
    let Pair {
        weather,
        port,
        mut desk,
        laptop,
        ..
    } = paired();
    // The desk goes; another node (its own key, the same name) takes its address.
    desk.signal(libc::SIGKILL);
    wait_online(&laptop, false, 5);
    let impostor = Daemon::start(&desk_config(&weather, port));
    // The laptop's link reaches it (it keeps retrying) and refuses it: never online.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let seen = wait_online(&laptop, false, 1);
        if seen["error"]
            .as_str()
            .is_some_and(|e| e.contains("is not the desk this node paired with"))
        {
            break;
        }
        assert!(Instant::now() < deadline, "never refused: {seen}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = laptop.cli(&["say", "--node", "desk", "what's the weather?"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        rt().block_on(impostor.state()).interaction.is_none(),
        "nothing reached it"
    );
}

#[test]
fn a_large_state_comes_back_whole_over_the_link() {
    // The weather server is held to the end: the desk looks the weather up there.
    let Pair {
        weather: _weather,
        desk,
        laptop,
        ..
    } = paired();
    // Eighty finished lookups on the desk: its state with all of them is far over 64 KiB.
    rt().block_on(async {
        let mut c = desk.client().await;
        for n in 0..80 {
            let input = circe::model::Input {
                id: uuid::Uuid::new_v4(),
                device: "cli".into(),
                text: format!("weather in {}", ["Pune", "Mumbai"][n % 2]),
                choice: None,
                mode: Default::default(),
                interaction: None,
                expected_revision: None,
                heard: Vec::new(),
            };
            c.call(circe::protocol::Verb::Submit { input })
                .await
                .unwrap();
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while rt()
        .block_on(desk.state())
        .operations
        .iter()
        .any(|o| o.status.is_active())
    {
        assert!(Instant::now() < deadline, "the lookups did not finish");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = laptop.cli(&["ops", "--node", "desk", "--limit", "500", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.len() > 64 * 1024, "{} bytes", out.stdout.len());
    let ops: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ops.len(), 80);
    // The link survived it.
    wait_online(&laptop, true, 1);
}

/// A network namespace of this test's own, whose loopback interface also carries 10.77.0.1 and
/// 10.77.0.2: addresses that are not loopback, as LAN addresses are to the daemon, on this
/// machine only.
pub struct Netns {
    holder: std::process::Child,
}

impl Netns {
    pub const ADDR: &'static str = "10.77.0.1";
    /// Another "machine" in the namespace.
    pub const OTHER: &'static str = "10.77.0.2";

    pub fn create() -> Netns {
        assert_eq!(
            unsafe { libc::geteuid() },
            0,
            "this test makes a network namespace (unshare, nsenter, ip from util-linux and iproute2) and needs root"
        );
        let holder = std::process::Command::new("unshare")
            .args(["--net", "sleep", "600"])
            .spawn()
            .expect("unshare (util-linux) is needed");
        let ns = Netns { holder };
        // unshare execs sleep once the namespace exists: wait for that.
        let ours = std::fs::read_link("/proc/self/ns/net").unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_link(format!("/proc/{}/ns/net", ns.pid())).ok() == Some(ours.clone()) {
            assert!(
                Instant::now() < deadline,
                "unshare made no network namespace"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        for args in [
            vec!["link", "set", "lo", "up"],
            vec!["addr", "add", "10.77.0.1/32", "dev", "lo"],
            vec!["addr", "add", "10.77.0.2/32", "dev", "lo"],
        ] {
            let out = ns.run("ip", &args);
            assert!(out.status.success(), "ip {args:?}: {}", stderr(&out));
        }
        ns
    }

    pub fn pid(&self) -> u32 {
        self.holder.id()
    }

    /// Run `f`'s future on a thread of its own inside the namespace (the network namespace is
    /// per thread), on a single-threaded runtime, so every socket it opens is in there.
    pub fn block_on<F: std::future::Future>(&self, f: impl FnOnce() -> F + Send) -> F::Output
    where
        F::Output: Send,
    {
        use std::os::fd::AsRawFd;
        let ns = std::fs::File::open(format!("/proc/{}/ns/net", self.pid())).unwrap();
        std::thread::scope(|scope| {
            scope
                .spawn(move || {
                    // SAFETY: setns on a descriptor we own; it changes only this thread.
                    assert_eq!(
                        unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) },
                        0
                    );
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap()
                        .block_on(f())
                })
                .join()
                .expect("the namespace thread")
        })
    }

    /// Run a program inside the namespace.
    fn run(&self, program: &str, args: &[&str]) -> std::process::Output {
        std::process::Command::new("nsenter")
            .args(["-t", &self.pid().to_string(), "-n", program])
            .args(args)
            .output()
            .expect("nsenter (util-linux) is needed")
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

#[test]
fn on_a_lan_address_the_mesh_is_tls_only_and_a_peer_reaches_it_pinned() {
    let ns = Netns::create();
    let listen = format!("{}:7457", Netns::ADDR);
    // No `[mesh] tls`: the default ("auto") serves TLS because the address is not loopback.
    let desk = Daemon::start_in_netns(
        &format!("[node]\nname = \"desk\"\n[mesh]\nlisten = \"{listen}\"\n"),
        ns.pid(),
    );
    let laptop = Daemon::start_in_netns(LAPTOP, ns.pid());
    assert_eq!(desk.mesh_file(), format!("https://{listen}"));

    // It listens on exactly that address, nowhere else.
    let out = ns.run("ss", &["-ltnH"]);
    let sockets = stdout(&out);
    assert!(sockets.contains(&listen), "{sockets}");
    assert!(
        !sockets.contains("0.0.0.0:7457") && !sockets.contains("*:7457"),
        "{sockets}"
    );
    // Plain HTTP to it gets no HTTP answer.
    let probe = format!(
        "exec 3<>/dev/tcp/{}/7457 && echo connected; printf 'GET /healthz HTTP/1.1\\r\\nHost: {listen}\\r\\nConnection: close\\r\\n\\r\\n' >&3; timeout 3 cat <&3",
        Netns::ADDR
    );
    let out = ns.run("bash", &["-c", &probe]);
    assert!(stdout(&out).starts_with("connected"), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("HTTP/1.1"),
        "plaintext was answered: {}",
        stdout(&out)
    );

    // A peer pairs over https with the node id and routes to it over the pinned wss:// link.
    rt().block_on(join_at(&desk, &laptop, &format!("https://{listen}")));
    let online = wait_online(&laptop, true, 10);
    assert_eq!(online["url"], format!("wss://{listen}/ws"), "{online}");
    let out = laptop.cli(&["say", "--node", "desk", "--json", "what's the weather?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json_of(&out)["interaction"]["pending"]["type"], "question");
}

/// The peer relay carries `observation` to the node that stored it, and the small events of a
/// routed subscription back: a routed `--wait` folds them into the desk's operation.
#[test]
fn an_observation_is_read_from_the_node_that_owns_it() {
    let Pair {
        weather: _weather,
        desk,
        laptop,
        ..
    } = paired();
    let out = laptop.cli(&["ops", "--node", "desk", "--observation", "nope/1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no observation nope/1"),
        "{}",
        stderr(&out)
    );
    let out = laptop.cli(&[
        "say",
        "--node",
        "desk",
        "--wait",
        "--json",
        "weather in Pune",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let waited = json_of(&out);
    let on_desk = rt().block_on(desk.state()).operations[0].clone();
    assert_eq!(waited["operation"]["status"], "completed", "{waited}");
    assert_eq!(
        waited["operation"],
        serde_json::to_value(&on_desk).unwrap(),
        "the routed events fold into the desk's operation"
    );
}

//! A randomized run with nemeses (security notes R25, scaled to CI): four clients submit new
//! weather requests, retry them with the same input id, stop and read state, while the daemon
//! is killed (-9) and restarted, paused (SIGSTOP/SIGCONT), and clients drop their sockets
//! mid-request. Then the checkers: every submit that got an answer is in the store; a retry
//! names the operation the first try got; every operation is finished and its log replays to
//! its projection; each operation caused at most one forecast request (one effect per key), a
//! completed one exactly one, one that "did nothing" none; no forecast request without an
//! operation whose forecast step was journalled first (no phantom effects); the store passes
//! `integrity_check` after every kill.
//!
//! A failure prints the seed: `CIRCE_CHAOS_SEED=N` replays the same choices (the timing is the
//! machine's); `CIRCE_CHAOS_SECS` runs longer than the default 12 s.

use crate::util::{Daemon, WeatherServer};
use circe::client::Client;
use circe::model::{Input, InputMode, OperationId, OperationStatus};
use circe::protocol::Verb;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// xorshift64*: small, seeded, enough to choose actions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A submit and what its reply said (when it got one).
#[derive(Clone)]
struct Sent {
    input: Input,
    operation: Option<OperationId>,
}

#[derive(Default)]
struct History {
    sent: Vec<Sent>,
    violations: Vec<String>,
    /// Open questions: (interaction, the revision that asked), for any worker to answer.
    questions: Vec<(circe::model::InteractionId, u64)>,
    /// Answers that were accepted, by (interaction, the revision they were made against).
    accepted: HashMap<(circe::model::InteractionId, u64), usize>,
    /// Answers refused as stale.
    conflicts: usize,
}

/// "Chaos" and letters for `n`: a place name of its own (interpretation keeps words, not digits).
fn place(n: u64) -> String {
    let mut letters = String::new();
    let mut n = n + 26;
    while n > 0 {
        letters.insert(0, (b'a' + (n % 26) as u8) as char);
        n /= 26;
    }
    format!("Chaos{letters}")
}

fn input(device: &str, text: &str) -> Input {
    Input {
        id: uuid::Uuid::new_v4(),
        device: device.into(),
        text: text.into(),
        choice: None,
        mode: InputMode::Typed,
        interaction: None,
        expected_revision: None,
        heard: Vec::new(),
    }
}

async fn client(socket: &std::path::Path) -> Option<Client> {
    tokio::time::timeout(Duration::from_secs(2), Client::connect(socket))
        .await
        .ok()?
        .ok()
}

/// One client's random actions until `until`.
async fn worker(
    id: usize,
    seed: u64,
    socket: std::path::PathBuf,
    until: Instant,
    next_place: Arc<AtomicU64>,
    history: Arc<Mutex<History>>,
) {
    let mut rng = Rng(seed ^ (id as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let device = format!("chaos-{id}");
    while Instant::now() < until {
        // A person's pace times a hundred, not a flood: the rest of the suite runs beside this.
        tokio::time::sleep(Duration::from_millis(10)).await;
        let roll = rng.below(100);
        let Some(mut c) = client(&socket).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        if roll < 55 {
            let text = format!(
                "weather in {}",
                place(next_place.fetch_add(1, Ordering::SeqCst))
            );
            let input = input(&device, &text);
            if rng.below(10) == 0 {
                // Send and drop the socket before the reply: whether it was taken is unknown.
                let _ = c
                    .send(Verb::Submit {
                        input: input.clone(),
                    })
                    .await;
                drop(c);
                history.lock().unwrap().sent.push(Sent {
                    input,
                    operation: None,
                });
                continue;
            }
            let reply = tokio::time::timeout(
                Duration::from_secs(3),
                c.call(Verb::Submit {
                    input: input.clone(),
                }),
            )
            .await;
            let operation = match reply {
                Ok(Ok(v)) => serde_json::from_value(v["operation"]["id"].clone()).ok(),
                _ => None,
            };
            history.lock().unwrap().sent.push(Sent { input, operation });
        } else if roll < 75 {
            // Retry an earlier submit of this worker, same id and content.
            let earlier: Vec<Sent> = history
                .lock()
                .unwrap()
                .sent
                .iter()
                .filter(|s| s.input.device == device)
                .cloned()
                .collect();
            if earlier.is_empty() {
                continue;
            }
            let sent = &earlier[rng.below(earlier.len() as u64) as usize];
            let reply = tokio::time::timeout(
                Duration::from_secs(3),
                c.call(Verb::Submit {
                    input: sent.input.clone(),
                }),
            )
            .await;
            if let Ok(Ok(v)) = reply {
                let again: Option<OperationId> =
                    serde_json::from_value(v["operation"]["id"].clone()).ok();
                let mut h = history.lock().unwrap();
                let known = h
                    .sent
                    .iter_mut()
                    .find(|s| s.input.id == sent.input.id)
                    .expect("recorded");
                match (known.operation, again) {
                    (Some(a), Some(b)) if a != b => h.violations.push(format!(
                        "input {} got operation {a} and on retry {b}",
                        sent.input.id
                    )),
                    (None, Some(b)) => known.operation = Some(b),
                    _ => {}
                }
            }
        } else if roll < 80 {
            // Ask (or pick an open question, maybe another worker's) and answer it against the
            // revision that asked: with others answering too, at most one answer per revision wins.
            let open = {
                let h = history.lock().unwrap();
                (!h.questions.is_empty() && rng.below(2) == 0)
                    .then(|| h.questions[rng.below(h.questions.len() as u64) as usize])
            };
            let question = match open {
                Some(q) => Some(q),
                None => {
                    let asked = tokio::time::timeout(
                        Duration::from_secs(3),
                        c.call(Verb::Submit {
                            input: input(&device, "what's the weather?"),
                        }),
                    )
                    .await;
                    match asked {
                        Ok(Ok(v)) if v["interaction"]["pending"]["type"] == "question" => {
                            let id = serde_json::from_value(v["interaction"]["id"].clone()).ok();
                            let revision = v["interaction"]["revision"].as_u64();
                            let q = id.zip(revision);
                            if let Some(q) = q {
                                history.lock().unwrap().questions.push(q);
                            }
                            q
                        }
                        _ => None,
                    }
                }
            };
            let Some((interaction, revision)) = question else {
                continue;
            };
            let text = place(next_place.fetch_add(1, Ordering::SeqCst));
            let mut answer = input(&device, &text);
            answer.interaction = Some(interaction);
            answer.expected_revision = Some(revision);
            let reply = tokio::time::timeout(
                Duration::from_secs(3),
                c.call(Verb::Submit {
                    input: answer.clone(),
                }),
            )
            .await;
            let mut h = history.lock().unwrap();
            match reply {
                Ok(Ok(v)) => {
                    *h.accepted.entry((interaction, revision)).or_default() += 1;
                    let operation = serde_json::from_value(v["operation"]["id"].clone()).ok();
                    h.sent.push(Sent {
                        input: answer,
                        operation,
                    });
                }
                Ok(Err(circe::client::ClientError::Api(e)))
                    if e.code.as_str() == "revision_conflict" =>
                {
                    h.conflicts += 1;
                    if e.current_revision.is_none_or(|c| c <= revision) {
                        h.violations.push(format!(
                            "a conflict for revision {revision} names {:?}",
                            e.current_revision
                        ));
                    }
                }
                _ => {}
            }
        } else if roll < 88 {
            let _ = tokio::time::timeout(
                Duration::from_secs(3),
                c.call(Verb::Interrupt {
                    operation: None,
                    device: device.clone(),
                }),
            )
            .await;
        } else {
            let _ = tokio::time::timeout(
                Duration::from_secs(3),
                c.call(Verb::State {
                    operations: Some(5),
                }),
            )
            .await;
        }
    }
}

fn integrity(d: &Daemon) -> String {
    let store = circe::store::Store::open(&d.database()).expect("the store opens after a kill");
    store.integrity_check().unwrap()
}

#[test]
fn kills_pauses_and_dropped_sockets_lose_nothing_and_never_double_an_effect() {
    let seed: u64 = std::env::var("CIRCE_CHAOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    let secs: u64 = std::env::var("CIRCE_CHAOS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    println!("chaos seed {seed} ({secs} s): replay with CIRCE_CHAOS_SEED={seed}");
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(40, Ordering::SeqCst);
    let daemon = Arc::new(Mutex::new(Daemon::start(&weather.config())));
    let socket = daemon.lock().unwrap().socket();
    let until = Instant::now() + Duration::from_secs(secs);
    let history = Arc::new(Mutex::new(History::default()));
    let kills = Arc::new(AtomicU64::new(0));

    // The nemesis: kill -9 and restart, or pause, every 0.3 to 1.5 s.
    let nemesis = {
        let (daemon, history, kills) = (daemon.clone(), history.clone(), kills.clone());
        std::thread::spawn(move || {
            let mut rng = Rng(seed.rotate_left(17) | 1);
            while Instant::now() < until {
                std::thread::sleep(Duration::from_millis(300 + rng.below(1200)));
                let mut d = daemon.lock().unwrap();
                match rng.below(10) {
                    0..=3 => {
                        d.signal(libc::SIGKILL);
                        kills.fetch_add(1, Ordering::SeqCst);
                        let ok = integrity(&d);
                        if ok != "ok" {
                            history
                                .lock()
                                .unwrap()
                                .violations
                                .push(format!("integrity_check after a kill: {ok}"));
                        }
                        d.spawn();
                    }
                    4..=6 => {
                        let pid = d.pid() as i32;
                        unsafe { libc::kill(pid, libc::SIGSTOP) };
                        std::thread::sleep(Duration::from_millis(100 + rng.below(500)));
                        unsafe { libc::kill(pid, libc::SIGCONT) };
                    }
                    _ => {}
                }
            }
        })
    };
    let rt = crate::util::rt();
    rt.block_on(async {
        let next_place = Arc::new(AtomicU64::new(0));
        let workers: Vec<_> = (0..4)
            .map(|i| {
                tokio::spawn(worker(
                    i,
                    seed,
                    socket.clone(),
                    until,
                    next_place.clone(),
                    history.clone(),
                ))
            })
            .collect();
        for w in workers {
            w.await.unwrap();
        }
    });
    nemesis.join().unwrap();

    // Let what is still running finish, then stop the daemon cleanly and read the store.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = rt.block_on(daemon.lock().unwrap().state());
        if !state.operations.iter().any(|o| o.status.is_active()) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "seed {seed}: operations never finished"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut d = daemon.lock().unwrap();
    d.signal(libc::SIGTERM);
    let store = circe::store::Store::open(&d.database()).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok", "seed {seed}");
    let history = history.lock().unwrap();
    let mut violations = history.violations.clone();
    let operations = store.operations(100_000).unwrap();
    let by_id: HashMap<OperationId, &circe::model::Operation> =
        operations.iter().map(|o| (o.id, o)).collect();

    // Durability: an answered submit's operation is there.
    for s in history.sent.iter().filter(|s| s.operation.is_some()) {
        let id = s.operation.unwrap();
        match by_id.get(&id) {
            None => violations.push(format!("operation {id} was acknowledged and is gone")),
            Some(op) => {
                if store.replay_operation(id).unwrap().as_ref() != Some(*op) {
                    violations.push(format!("operation {id}: its log does not replay to it"));
                }
            }
        }
    }
    // Effects, by place (one place per operation).
    let chaos = weather.chaos.lock().unwrap();
    let mut effects: HashMap<&str, usize> = HashMap::new();
    for p in &chaos.forecasts {
        *effects.entry(p.as_str()).or_default() += 1;
    }
    let place_of = |op: &circe::model::Operation| {
        op.arguments
            .values()
            .find(|v| v.to_ascii_lowercase().starts_with("chaos"))
            .cloned()
            .unwrap_or_default()
    };
    let mut ops_by_place: HashMap<String, Vec<&circe::model::Operation>> = HashMap::new();
    for op in &operations {
        ops_by_place.entry(place_of(op)).or_default().push(op);
        if op.status.is_active() {
            violations.push(format!("operation {} is still {:?}", op.id, op.status));
        }
    }
    for (place, ops) in &ops_by_place {
        let n = effects.get(place.as_str()).copied().unwrap_or(0);
        if n > 1 {
            violations.push(format!("{place}: {n} forecast requests (at most one)"));
        }
        for op in ops {
            let did_nothing = op
                .outcome
                .as_ref()
                .is_some_and(|o| o.summary.contains("nothing was done"));
            if op.status == OperationStatus::Completed && n != 1 {
                violations.push(format!("{place}: completed with {n} forecast requests"));
            }
            if did_nothing && n != 0 {
                violations.push(format!("{place}: \"nothing was done\" but {n} requests"));
            }
        }
    }
    for place in effects.keys() {
        let journalled = ops_by_place.get(*place).is_some_and(|ops| {
            ops.iter()
                .any(|op| op.steps.iter().any(|s| s.action.contains("forecast")))
        });
        if !journalled {
            violations.push(format!(
                "{place}: a forecast request with no operation that journalled it first"
            ));
        }
    }
    for ((interaction, revision), n) in &history.accepted {
        if *n > 1 {
            violations.push(format!(
                "{n} answers accepted for interaction {interaction} at revision {revision}"
            ));
        }
    }
    let answered = history
        .sent
        .iter()
        .filter(|s| s.operation.is_some())
        .count();
    println!(
        "seed {seed}: {} submits ({answered} answered), {} answers accepted, {} refused as stale, {} operations, {} forecast requests, {} kills",
        history.sent.len(),
        history.accepted.len(),
        history.conflicts,
        operations.len(),
        chaos.forecasts.len(),
        kills.load(Ordering::SeqCst)
    );
    assert!(answered > 20, "seed {seed}: too little happened to check");
    assert!(violations.is_empty(), "seed {seed}: {violations:#?}");
}

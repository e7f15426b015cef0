//! The daemon for real: `circe serve` processes, the CLI, the control socket, a weather server.

use crate::util::*;
use circe::client::Client;
use circe::model::{Input, InputMode, OperationStatus, Pending, Relation, StepResult};
use circe::protocol::{Interrupted, Notification, Submitted, Verb};
use std::sync::atomic::Ordering;
use std::time::Duration;
use uuid::Uuid;

fn input(text: &str) -> Input {
    Input {
        id: Uuid::new_v4(),
        device: "test".into(),
        text: text.into(),
        choice: None,
        mode: InputMode::Typed,
        interaction: None,
        expected_revision: None,
        heard: Vec::new(),
    }
}

async fn submit(
    client: &mut Client,
    input: Input,
) -> Result<Submitted, circe::client::ClientError> {
    let v = client.call(Verb::Submit { input }).await?;
    Ok(serde_json::from_value(v).unwrap())
}

#[test]
fn weather_end_to_end_through_the_cli() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());

    let asked = d.cli(&["say", "What's the weather?"]);
    assert!(asked.status.success(), "{}", stderr(&asked));
    assert!(
        stdout(&asked).contains("? Which city?"),
        "{}",
        stdout(&asked)
    );
    assert_eq!(
        weather.geocodes.load(Ordering::SeqCst),
        0,
        "nothing is fetched before the city is known"
    );

    let state = d.cli(&["state", "--json"]);
    let state: serde_json::Value = serde_json::from_slice(&state.stdout).unwrap();
    assert_eq!(
        state["interaction"]["pending"]["type"], "question",
        "the question is stored: {state}"
    );
    assert_eq!(state["interaction"]["pending"]["slot"], "place");
    let interaction = state["interaction"]["id"].as_str().unwrap().to_string();

    let answered = d.cli(&["answer", "Ahmedabad", "--wait"]);
    let out = stdout(&answered);
    assert!(answered.status.success(), "{out} {}", stderr(&answered));
    assert!(
        out.contains("done: Ahmedabad, Gujarat, India: 23 °C, mainly clear"),
        "{out}"
    );
    assert!(
        out.contains("step 1: find place [applied]")
            && out.contains("step 2: fetch forecast [applied]"),
        "{out}"
    );

    let corrected = d.cli(&["say", "--json", "--wait", "Actually, in Pune"]);
    assert!(corrected.status.success(), "{}", stderr(&corrected));
    let v: serde_json::Value = serde_json::from_slice(&corrected.stdout).unwrap();
    assert_eq!(v["relation"], "correction", "{v}");
    assert_eq!(
        v["interaction"]["id"],
        interaction.as_str(),
        "a correction keeps the interaction"
    );
    assert_eq!(v["operation"]["arguments"]["place"], "Pune");
    assert_eq!(v["operation"]["status"], "completed");
    assert_eq!(
        v["interaction"]["outcome"]["status"], "completed",
        "--wait shows the interaction as it ended: {v}"
    );
    assert!(
        v["operation"]["outcome"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("Pune, Maharashtra, India: 29 °C"),
        "{v}"
    );

    let st = d.cli(&["state"]);
    assert!(stdout(&st).contains("place=Pune"), "{}", stdout(&st));
    let ops = d.cli(&["ops", "--json"]);
    let ops: Vec<serde_json::Value> = serde_json::from_slice(&ops.stdout).unwrap();
    assert_eq!(ops.len(), 2);
    assert!(ops.iter().all(|o| o["status"] == "completed"));
    assert_eq!(weather.forecasts.load(Ordering::SeqCst), 2);
}

#[test]
fn correction_during_a_running_operation_replaces_it() {
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(800, Ordering::SeqCst);
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let mut sub = d.client().await.subscribe().await.unwrap();
        let mut c = d.client().await;
        let first = submit(&mut c, input("weather in Ahmedabad")).await.unwrap();
        let first_op = first.operation.unwrap().id;
        wait_until(&mut sub, 10, |n| match n {
            Notification::Operation { operation }
                if operation.id == first_op && operation.steps.len() == 2 =>
            {
                Some(())
            }
            _ => None,
        })
        .await;
        let second = submit(&mut c, input("actually, in Mumbai")).await.unwrap();
        assert_eq!(second.relation, Relation::Correction);
        assert_eq!(second.interaction.id, first.interaction.id);
        let second_op = second.operation.unwrap().id;
        weather
            .behaviour
            .forecast_delay_ms
            .store(0, Ordering::SeqCst);
        let done = wait_until(&mut sub, 10, |n| match n {
            Notification::Interaction { interaction } if interaction.outcome.is_some() => {
                Some(interaction.clone())
            }
            _ => None,
        })
        .await;
        assert_eq!(done.operation, Some(second_op));
        assert!(done.outcome.unwrap().summary.starts_with("Mumbai"));
        let state = d.state().await;
        let old = state.operations.iter().find(|o| o.id == first_op).unwrap();
        assert_eq!(
            old.status,
            OperationStatus::Stopped,
            "the replaced operation is stopped, not completed"
        );
        assert_eq!(old.stop.as_ref().unwrap().requested_by, "correction");
    });
}

/// A client that has not yet seen the newer request (the phone's notification is late) corrects
/// the older one: the correction loses with `superseded`, nothing starts and nothing is stopped;
/// the same words against the newest request correct it.
#[test]
fn a_correction_naming_an_older_request_loses_and_the_newer_one_runs_on() {
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(1_500, Ordering::SeqCst);
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let mut c = d.client().await;
        let old = submit(&mut c, input("weather in Pune")).await.unwrap();
        let newer = submit(&mut c, input("weather in Ahmedabad")).await.unwrap();
        assert_ne!(old.interaction.id, newer.interaction.id);
        let newer_op = newer.operation.unwrap().id;
        let before = d.state().await;
        let stale = Input {
            interaction: Some(old.interaction.id),
            expected_revision: None,
            heard: Vec::new(),
            ..input("no, I meant Mumbai")
        };
        match submit(&mut c, stale).await {
            Err(circe::client::ClientError::Api(e)) => {
                assert_eq!(e.code.as_str(), "superseded", "{e:?}");
                assert!(e.message.contains("nothing was changed"), "{e:?}");
            }
            other => panic!("the stale correction must lose: {other:?}"),
        }
        let after = d.state().await;
        assert_eq!(
            after.operations.len(),
            before.operations.len(),
            "nothing started"
        );
        let running = after.operations.iter().find(|o| o.id == newer_op).unwrap();
        assert!(running.stop.is_none(), "nothing stopped: {running:?}");
        // Read against the newest, the same words correct it.
        let fresh = Input {
            interaction: Some(newer.interaction.id),
            expected_revision: None,
            heard: Vec::new(),
            ..input("no, I meant Mumbai")
        };
        let corrected = submit(&mut c, fresh).await.unwrap();
        assert_eq!(corrected.relation, Relation::Correction);
        assert_eq!(corrected.interaction.id, newer.interaction.id);
    });
}

#[test]
fn two_clients_answer_one_question_exactly_one_wins() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let mut setup = d.client().await;
        let mut a = d.client().await;
        let mut b = d.client().await;
        for round in 0..100 {
            let asked = submit(&mut setup, input("what's the weather"))
                .await
                .unwrap();
            let i = asked.interaction;
            assert!(matches!(i.pending, Pending::Question(_)));
            let answer = |city: &str| Input {
                interaction: Some(i.id),
                expected_revision: Some(i.revision),
                heard: Vec::new(),
                ..input(city)
            };
            let (ra, rb) = tokio::join!(
                submit(&mut a, answer("Pune")),
                submit(&mut b, answer("Mumbai"))
            );
            let (won, lost) = match (ra, rb) {
                (Ok(w), Err(l)) | (Err(l), Ok(w)) => (w, l),
                (ra, rb) => panic!("round {round}: exactly one must win: {ra:?} / {rb:?}"),
            };
            assert_eq!(won.interaction.revision, i.revision + 1);
            match lost {
                circe::client::ClientError::Api(e) => {
                    assert_eq!(e.code.as_str(), "revision_conflict", "{e:?}");
                    assert_eq!(
                        e.current_revision,
                        Some(i.revision + 1),
                        "the conflict names the current revision"
                    );
                }
                other => panic!("round {round}: {other:?}"),
            }
        }
    });
    // Each round's winner started exactly one lookup.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while weather.forecasts.load(Ordering::SeqCst) < 100 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(weather.geocodes.load(Ordering::SeqCst), 100);
}

#[test]
fn the_same_submit_fifty_times_is_one_operation_and_one_effect() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let same = input("what is the weather in Pune");
        let mut tasks = Vec::new();
        for _ in 0..50 {
            let socket = d.socket();
            let same = same.clone();
            tasks.push(tokio::spawn(async move {
                let mut c = Client::connect(&socket).await.unwrap();
                submit(&mut c, same).await.unwrap()
            }));
        }
        let mut replies = Vec::new();
        for t in tasks {
            replies.push(t.await.unwrap());
        }
        let op = replies[0].operation.as_ref().unwrap().id;
        assert!(
            replies
                .iter()
                .all(|r| r.operation.as_ref().map(|o| o.id) == Some(op)),
            "every reply names the same operation"
        );
        assert_eq!(
            replies.iter().filter(|r| !r.replayed).count(),
            1,
            "one was taken, 49 were replays"
        );
        // The same id with other content is refused, not merged.
        let mut c = d.client().await;
        let err = submit(
            &mut c,
            Input {
                text: "weather in Mumbai".into(),
                ..same.clone()
            },
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("different content"), "{err}");
        let mut sub = d.client().await.subscribe().await.unwrap();
        wait_until(&mut sub, 10, |n| match n {
            Notification::Snapshot { state }
                if state
                    .operations
                    .iter()
                    .any(|o| o.id == op && !o.status.is_active()) =>
            {
                Some(())
            }
            Notification::Operation { operation }
                if operation.id == op && !operation.status.is_active() =>
            {
                Some(())
            }
            _ => None,
        })
        .await;
        let state = d.state().await;
        assert_eq!(state.operations.len(), 1);
    });
    assert_eq!(weather.geocodes.load(Ordering::SeqCst), 1);
    assert_eq!(weather.forecasts.load(Ordering::SeqCst), 1);
}

#[test]
fn sigkill_while_running_leaves_outcome_unknown_and_loses_nothing() {
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(60_000, Ordering::SeqCst);
    let mut d = Daemon::start(
        &weather
            .config()
            .replace("timeout_ms = 1500", "timeout_ms = 120000"),
    );
    let accepted: Vec<Submitted> = rt().block_on(async {
        let mut c = d.client().await;
        let mut accepted = Vec::new();
        for text in ["what's the weather?", "hello there", "what's the weather?"] {
            accepted.push(submit(&mut c, input(text)).await.unwrap());
        }
        let mut sub = d.client().await.subscribe().await.unwrap();
        let running = submit(&mut c, input("weather in Ahmedabad")).await.unwrap();
        let op = running.operation.as_ref().unwrap().id;
        wait_until(&mut sub, 10, |n| match n {
            Notification::Operation { operation }
                if operation.id == op && operation.steps.len() == 2 =>
            {
                Some(())
            }
            _ => None,
        })
        .await;
        // The request is in flight at the weather server: the effect has started.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while weather.forecasts.load(Ordering::SeqCst) == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the forecast request never arrived"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        accepted.push(running);
        accepted
    });
    let status = d.signal(libc::SIGKILL);
    assert!(!status.success());
    d.spawn();
    rt().block_on(async {
        let state = d.state().await;
        let op_id = accepted.last().unwrap().operation.as_ref().unwrap().id;
        let op = state
            .operations
            .iter()
            .find(|o| o.id == op_id)
            .expect("the accepted operation survived");
        assert_eq!(op.status, OperationStatus::OutcomeUnknown);
        assert_eq!(op.steps[0].result, Some(StepResult::Applied));
        assert_eq!(
            op.steps[1].result,
            Some(StepResult::Unknown),
            "the in-flight step is unknown, not failed"
        );
        assert_eq!(
            state
                .interaction
                .as_ref()
                .unwrap()
                .outcome
                .as_ref()
                .unwrap()
                .status,
            OperationStatus::OutcomeUnknown
        );
    });
    d.signal(libc::SIGTERM);
    // Every accepted input's interaction is in the log, at the revision its reply named.
    let store = circe::store::Store::open(&d.database()).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    for s in &accepted {
        let events = store.interaction_events(s.interaction.id).unwrap();
        assert!(
            events
                .iter()
                .any(|(rev, _, _)| *rev == s.interaction.revision),
            "{:?} lost",
            s.interaction.id
        );
        assert_eq!(
            store.replay_interaction(s.interaction.id).unwrap().unwrap(),
            store.interaction(s.interaction.id).unwrap().unwrap()
        );
    }
    // Nothing was run again after the restart.
    assert_eq!(weather.forecasts.load(Ordering::SeqCst), 1);
}

#[test]
fn stop_overtakes_a_hundred_queued_inputs() {
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
        let mut sub = d.client().await.subscribe().await.unwrap();
        let mut c = d.client().await;
        let running = submit(&mut c, input("weather in Pune")).await.unwrap();
        let op = running.operation.unwrap().id;
        wait_until(&mut sub, 10, |n| match n {
            Notification::Operation { operation }
                if operation.id == op && operation.steps.len() == 2 =>
            {
                Some(())
            }
            _ => None,
        })
        .await;
        // 100 inputs, then the stop, all written at once on one connection.
        let mut pipe = d.client().await;
        let mut bytes = Vec::new();
        for n in 0..100u64 {
            let req = circe::protocol::Request {
                id: n + 1,
                node: None,
                verb: Verb::Submit {
                    input: input("what's the weather?"),
                },
            };
            bytes.extend(serde_json::to_vec(&req).unwrap());
            bytes.push(b'\n');
        }
        let stop = circe::protocol::Request {
            id: 1000,
            node: None,
            verb: Verb::Interrupt {
                operation: Some(op),
                device: "phone".into(),
            },
        };
        bytes.extend(serde_json::to_vec(&stop).unwrap());
        bytes.push(b'\n');
        pipe.send_raw(&bytes).await.unwrap();
        let mut before_stop = 0;
        let mut replies = 0;
        let mut stop_reply = None;
        while replies < 101 {
            let line = pipe.line().await.unwrap();
            let reply: circe::protocol::Reply = serde_json::from_str(&line).unwrap();
            replies += 1;
            if reply.id == 1000 {
                stop_reply = Some(reply);
            } else if stop_reply.is_none() {
                before_stop += 1;
            }
        }
        eprintln!("submit replies before the stop reply: {before_stop} of 100");
        assert!(
            before_stop < 100,
            "the stop waited behind every queued input"
        );
        let circe::protocol::ReplyBody::Ok(v) = stop_reply.unwrap().body else {
            panic!("stop failed")
        };
        let interrupted: Interrupted = serde_json::from_value(v).unwrap();
        assert!(interrupted.stop.is_some(), "stop is requested at once");
        let stopped = wait_until(&mut sub, 10, |n| match n {
            Notification::Operation { operation }
                if operation.id == op && operation.status == OperationStatus::Stopped =>
            {
                Some(operation.clone())
            }
            _ => None,
        })
        .await;
        let stop = stopped.stop.unwrap();
        assert_eq!(stop.requested_by, "phone");
        assert!(
            stop.confirmed_at.is_some(),
            "stop requested and stop confirmed are both recorded"
        );
        assert_eq!(stopped.steps[1].result, Some(StepResult::NotApplied));
    });
}

#[test]
fn stop_from_the_cli_reports_requested_then_confirmed() {
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
    let said = d.cli(&["say", "weather in Pune"]);
    assert!(
        stdout(&said).contains("accepted operation"),
        "{}",
        stdout(&said)
    );
    let stop = d.cli(&["stop"]);
    assert!(stop.status.success(), "{}", stderr(&stop));
    assert!(
        stdout(&stop).contains("stopped (confirmed)"),
        "{}",
        stdout(&stop)
    );
    let again = d.cli(&["stop"]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("nothing is running"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn bad_input_gets_a_clear_error_and_changes_nothing() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    rt().block_on(async {
        let mut c = d.client().await;
        let asked = submit(&mut c, input("what's the weather?")).await.unwrap();
        let before = d.state().await;
        let counts = || {
            circe::store::Store::open(&d.database())
                .unwrap()
                .event_counts()
                .unwrap()
        };
        let events_before = counts();

        // Malformed JSON, an unknown verb, a missing field: errors, and the connection stays usable.
        c.send_raw(b"{not json\n").await.unwrap();
        let reply: serde_json::Value = serde_json::from_str(&c.line().await.unwrap()).unwrap();
        assert_eq!(reply["error"]["code"], "malformed_request", "{reply}");
        c.send_raw(b"{\"id\": 5, \"verb\": \"explode\"}\n")
            .await
            .unwrap();
        let reply: serde_json::Value = serde_json::from_str(&c.line().await.unwrap()).unwrap();
        assert_eq!(
            (reply["id"].as_u64(), reply["error"]["code"].as_str()),
            (Some(5), Some("malformed_request"))
        );

        // Unknown ids.
        let ghost = Uuid::new_v4();
        let err = submit(
            &mut c,
            Input {
                interaction: Some(ghost),
                ..input("Pune")
            },
        )
        .await
        .unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("no interaction with id {ghost}")),
            "{err}"
        );
        let err = c
            .call(Verb::Interrupt {
                operation: Some(ghost),
                device: "t".into(),
            })
            .await
            .unwrap_err();
        assert!(err.to_string().contains("no operation with id"), "{err}");

        // A stale revision.
        let stale = Input {
            interaction: Some(asked.interaction.id),
            expected_revision: Some(0),
            heard: Vec::new(),
            ..input("Pune")
        };
        let err = submit(&mut c, stale).await.unwrap_err();
        assert!(
            err.to_string().contains("revision conflict") && err.to_string().contains("revision 1"),
            "{err}"
        );

        // Too long an input; an empty one.
        let err = submit(&mut c, input(&"a".repeat(4001))).await.unwrap_err();
        assert!(err.to_string().contains("the limit is 4000"), "{err}");
        let err = submit(&mut c, input("   ")).await.unwrap_err();
        assert!(err.to_string().contains("no text"), "{err}");

        // An oversized message: an error, then the connection is closed.
        let mut big = d.client().await;
        big.send_raw(&vec![b'x'; 70 * 1024]).await.unwrap();
        let reply: serde_json::Value = serde_json::from_str(&big.line().await.unwrap()).unwrap();
        assert_eq!(reply["error"]["code"], "message_too_large", "{reply}");
        assert!(
            big.line().await.is_err(),
            "the connection is closed after an oversized message"
        );

        assert_eq!(d.state().await, before, "the stored state is unchanged");
        assert_eq!(counts(), events_before, "the logs are unchanged");
    });
}

#[test]
fn a_weather_api_that_times_out_or_sends_garbage_blocks_with_a_reason() {
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    weather
        .behaviour
        .forecast_delay_ms
        .store(3_000, Ordering::SeqCst);
    let slow = d.cli(&["say", "--wait", "weather in Pune"]);
    assert_eq!(slow.status.code(), Some(3), "not done is a non-zero exit");
    assert!(
        stdout(&slow).contains("blocked: the weather service did not answer within 1500 ms"),
        "{}",
        stdout(&slow)
    );
    assert!(
        stdout(&slow).contains("step 2: fetch forecast [not applied]"),
        "{}",
        stdout(&slow)
    );

    weather
        .behaviour
        .forecast_delay_ms
        .store(0, Ordering::SeqCst);
    weather.behaviour.garbage.store(true, Ordering::SeqCst);
    let garbage = d.cli(&["say", "--wait", "weather in Mumbai"]);
    assert_eq!(garbage.status.code(), Some(3));
    assert!(
        stdout(&garbage).contains("blocked: the weather service sent data Circe could not read"),
        "{}",
        stdout(&garbage)
    );

    // A place the geocoder cannot find is asked again, never taken as found.
    let nowhere = d.cli(&["say", "--wait", "weather in Atlantis"]);
    assert!(
        stdout(&nowhere).contains("I could not find a place called \"Atlantis\". Which city?"),
        "{}",
        stdout(&nowhere)
    );
    let state: serde_json::Value =
        serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    assert_eq!(
        state["interaction"]["pending"]["kind"], "place",
        "{state:#}"
    );
    let cancelled = d.cli(&["say", "never mind"]);
    assert!(cancelled.status.success(), "{}", stderr(&cancelled));

    // The interaction stays consistent with its log after each failure.
    let store = circe::store::Store::open(&d.database()).unwrap();
    let ops = store.operations(10).unwrap();
    for op in &ops {
        assert_eq!(store.replay_operation(op.id).unwrap().unwrap(), *op);
    }
    let (latest, earlier) = ops.split_first().unwrap();
    assert!(latest
        .steps
        .iter()
        .any(|s| s.result == Some(StepResult::NotApplied)));
    for op in earlier {
        assert_eq!(op.status, OperationStatus::Blocked);
    }
}

#[test]
fn serve_owns_a_private_socket_and_stops_cleanly_on_sigterm() {
    let weather = WeatherServer::start();
    let mut d = Daemon::start(&weather.config());
    assert_eq!(file_mode(&d.socket()), 0o600);
    assert_eq!(file_mode(d.socket().parent().unwrap()), 0o700);
    // A second daemon on the same socket refuses to start.
    let second = d.cli(&["serve"]);
    assert!(!second.status.success());
    assert!(
        stderr(&second).contains("already serving"),
        "{}",
        stderr(&second)
    );
    // Nor does one on another socket over the same data directory.
    let other_socket = d.dir.path().join("other.sock");
    let third = d.cli(&["--socket", other_socket.to_str().unwrap(), "serve"]);
    assert!(!third.status.success());
    assert!(
        stderr(&third).contains("already serving the data directory"),
        "{}",
        stderr(&third)
    );
    let doctor = d.cli(&["doctor"]);
    assert!(doctor.status.success(), "{}", stdout(&doctor));
    assert!(
        stdout(&doctor).contains("serving node desk"),
        "{}",
        stdout(&doctor)
    );

    let status = d.signal(libc::SIGTERM);
    assert!(status.success(), "SIGTERM is a clean exit: {status}");
    assert!(!d.socket().exists(), "the socket is removed on shutdown");
    assert!(d.log().contains("SIGTERM: shutting down"), "{}", d.log());

    let cli = d.cli(&["state"]);
    assert_eq!(cli.status.code(), Some(1));
    assert!(
        stderr(&cli).contains("circe is not running"),
        "{}",
        stderr(&cli)
    );
    let doctor = d.cli(&["doctor"]);
    assert!(!doctor.status.success());
    assert!(
        stdout(&doctor).contains("fix: start it with `circe serve`"),
        "{}",
        stdout(&doctor)
    );
}

#[test]
fn a_bad_config_file_is_named_with_its_error() {
    let d = Daemon::start("");
    let path = d.dir.path().join("config/circe/config.toml");
    std::fs::write(&path, "[weather]\nforcast_url = \"x\"\n").unwrap();
    let out = d.cli(&["--socket", "/nonexistent/x.sock", "serve"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("config.toml is not valid") && err.contains("forcast_url"),
        "{err}"
    );
}

#[test]
fn an_observation_that_was_never_stored_is_a_clear_error() {
    let d = Daemon::start("");
    let out = d.cli(&["ops", "--observation", "nope/1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no observation nope/1"),
        "{}",
        stderr(&out)
    );
    let out = d.cli(&["ops", "--observation", "nope/1", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no observation nope/1")
            || stdout(&out).contains("unknown_observation"),
        "{} {}",
        stdout(&out),
        stderr(&out)
    );
}

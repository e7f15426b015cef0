//! The engine in-process with a scripted executor at the seam: what an executor sees mid-run.

use circe::client::Client;
use circe::config::Limits;
use circe::daemon::engine::Engine;
use circe::executor::{self, BoxFuture, ExecOutcome, Executor, Executors, RunContext};
use circe::model::{Goal, Input, InputMode, Operation, OperationStatus, StepResult};
use circe::protocol::{
    ErrorCode, Folded, Notification, OperationFold, StateView, Submitted, Verb, MAX_EVENT_BYTES,
    MAX_REPLY_BYTES,
};
use circe::store::{Retention, Store};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Records whether the operation is still current before and after it is released.
struct Probe {
    release: Arc<Notify>,
    started: Arc<Notify>,
    seen: Arc<Mutex<Vec<bool>>>,
}

impl Executor for Probe {
    fn goal(&self) -> Goal {
        Goal::Weather
    }

    fn run<'a>(&'a self, _op: &'a Operation, cx: RunContext<'a>) -> BoxFuture<'a, ExecOutcome> {
        Box::pin(async move {
            let now = cx.journal.current().await;
            self.seen.lock().unwrap().push(now);
            self.started.notify_one();
            // Deliberately not watching `cancel`: the revision check must catch what it misses.
            self.release.notified().await;
            let now = cx.journal.current().await;
            self.seen.lock().unwrap().push(now);
            ExecOutcome::Completed {
                summary: "done".into(),
                data: serde_json::Value::Null,
            }
        })
    }
}

/// Submit `text` and wait for its reply.
async fn said(engine: &Arc<Engine>, text: &str) -> circe::protocol::Submitted {
    engine.submit(input(text)).unwrap().reply().await.unwrap()
}

fn input(text: &str) -> Input {
    Input {
        id: uuid::Uuid::new_v4(),
        device: "test".into(),
        text: text.into(),
        choice: None,
        mode: InputMode::Typed,
        interaction: None,
        expected_revision: None,
        heard: Vec::new(),
    }
}

#[test]
fn an_operation_its_interaction_moved_past_is_no_longer_current() {
    let rt = crate::util::rt();
    rt.block_on(async {
        let (release, started, seen) = (
            Arc::new(Notify::new()),
            Arc::new(Notify::new()),
            Arc::default(),
        );
        let probe = Probe {
            release: release.clone(),
            started: started.clone(),
            seen: Arc::clone(&seen),
        };
        let engine = Engine::start(
            "desk".into(),
            Store::open_in_memory().unwrap(),
            Executors::default().with(Box::new(probe)),
            Limits::default(),
        )
        .unwrap();
        said(&engine, "weather in Pune").await;
        started.notified().await;
        let cancelled = said(&engine, "cancel").await;
        assert!(cancelled.interaction.closed);
        release.notify_one();
        for _ in 0..200 {
            if seen.lock().unwrap().len() == 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        assert_eq!(
            *seen.lock().unwrap(),
            vec![true, false],
            "current before the cancel, not after"
        );
    });
}

/// Asks a question once released, not watching `cancel` (as an executor mid-read would not).
struct Asker {
    release: Arc<Notify>,
    started: Arc<Notify>,
}

impl Executor for Asker {
    fn goal(&self) -> Goal {
        Goal::Weather
    }

    fn run<'a>(&'a self, _op: &'a Operation, _cx: RunContext<'a>) -> BoxFuture<'a, ExecOutcome> {
        Box::pin(async move {
            self.started.notify_one();
            self.release.notified().await;
            ExecOutcome::NeedsInput {
                question: circe::model::Question {
                    kind: circe::model::QuestionKind::Choice,
                    slot: "target".into(),
                    prompt: "Which one?".into(),
                    known_arguments: Default::default(),
                    choices: vec![circe::model::Choice {
                        key: "r1".into(),
                        label: "A".into(),
                    }],
                    owner: "desk".into(),
                    expires_at: u64::MAX,
                },
            }
        })
    }
}

/// Cancelled while it ran, an executor that then asks does not leave its operation waiting behind
/// a closed interaction: the question is not asked and the operation ends stopped, confirmed.
#[test]
fn a_question_asked_after_a_cancel_ends_the_operation_as_stopped() {
    let rt = crate::util::rt();
    rt.block_on(async {
        let (release, started) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
        let asker = Asker {
            release: release.clone(),
            started: started.clone(),
        };
        let engine = Engine::start(
            "desk".into(),
            Store::open_in_memory().unwrap(),
            Executors::default().with(Box::new(asker)),
            Limits::default(),
        )
        .unwrap();
        let submitted = said(&engine, "weather in Pune").await;
        let id = submitted.operation.unwrap().id;
        started.notified().await;
        let cancelled = said(&engine, "cancel").await;
        assert!(cancelled.interaction.closed);
        release.notify_one();
        let mut op = None;
        for _ in 0..400 {
            let state = engine.state(10).await.unwrap();
            op = state.operations.into_iter().find(|o| o.id == id);
            if op.as_ref().is_some_and(|o| !o.status.is_active()) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let op = op.unwrap();
        assert_eq!(op.status, OperationStatus::Stopped, "{op:#?}");
        let stop = op.stop.as_ref().unwrap();
        assert_eq!(stop.requested_by, "cancel");
        assert!(stop.confirmed_at.is_some());
        assert!(
            op.outcome
                .as_ref()
                .unwrap()
                .summary
                .contains("before it could ask"),
            "{op:#?}"
        );
        let state = engine.state(10).await.unwrap();
        let i = state.interaction.unwrap();
        assert!(i.closed);
        assert_eq!(i.pending, circe::model::Pending::None);
    });
}

/// A scripted page reader at the executor seam: `pages` observations (each `elements` buttons
/// long), each followed by `acts` steps grounded in it.
struct Pages {
    pages: usize,
    elements: usize,
    acts: usize,
    /// A pause after each page, so observations are of different ages.
    pause_ms: u64,
}

/// An observation as the browser connector gives it, `n` elements long; `page` tells them apart.
fn page(page: usize, n: usize) -> serde_json::Value {
    let elements: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({"id": format!("r{i}"), "role": "button", "label": format!("button {i} of page {page}"),
                "context": "a row of the fixture page, long enough to be like a real one", "states": ["focusable"]})
        })
        .collect();
    serde_json::json!({"surface": "browser", "title": format!("page {page}"), "url": format!("http://127.0.0.1/{page}"),
        "elements": elements, "text": "x".repeat(2000)})
}

impl Executor for Pages {
    fn goal(&self) -> Goal {
        Goal::Weather
    }

    fn run<'a>(&'a self, _op: &'a Operation, cx: RunContext<'a>) -> BoxFuture<'a, ExecOutcome> {
        Box::pin(async move {
            for p in 0..self.pages {
                let step =
                    executor::begin(&cx, "observe the page", Default::default(), None, false)
                        .await
                        .unwrap();
                let evidence = serde_json::json!({"url": format!("http://127.0.0.1/{p}"), "elements": self.elements});
                let seen = executor::observed(&cx, step, evidence, page(p, self.elements), None)
                    .await
                    .unwrap();
                for a in 0..self.acts {
                    let args = [
                        ("ref".to_string(), format!("r{a}")),
                        ("action".into(), "click".into()),
                    ];
                    let step = executor::begin(
                        &cx,
                        &format!("click \"button {a}\""),
                        args.into(),
                        Some(seen.clone()),
                        true,
                    )
                    .await
                    .unwrap();
                    let evidence = serde_json::json!({"action": "click", "expect": {"change": true}, "x": 120, "y": 48,
                        "delivered": true, "checks": 3, "url": format!("http://127.0.0.1/{p}"), "elapsedMs": 41});
                    executor::end(&cx, step, StepResult::Applied, evidence)
                        .await
                        .unwrap();
                }
                tokio::time::sleep(std::time::Duration::from_millis(self.pause_ms)).await;
            }
            ExecOutcome::Completed {
                summary: "done".into(),
                data: serde_json::Value::Null,
            }
        })
    }
}

/// Submit a request and wait until its operation ends; returns the operation as stored.
async fn run_to_end(engine: &Arc<Engine>, text: &str) -> Operation {
    let mut rx = engine.subscribe();
    let submitted = engine.submit(input(text)).unwrap().reply().await.unwrap();
    let id = submitted.operation.unwrap().id;
    loop {
        if let Ok(Notification::OperationStatus {
            operation, status, ..
        }) = rx.recv().await
        {
            if operation == id && !status.is_active() {
                break;
            }
        }
    }
    engine
        .state(10)
        .await
        .unwrap()
        .operations
        .into_iter()
        .find(|o| o.id == id)
        .unwrap()
}

#[test]
fn observations_are_stored_once_by_id_and_pruned_past_retention() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("circe.db");
    crate::util::rt().block_on(async {
        let engine = Engine::start_with(
            "desk".into(),
            Store::open(&db).unwrap(),
            Executors::default().with(Box::new(Pages {
                pages: 4,
                elements: 50,
                acts: 1,
                pause_ms: 0,
            })),
            Limits::default(),
            Retention {
                per_operation: 2,
                total: 3,
                max_age_ms: 0,
            },
        )
        .unwrap();
        let op = run_to_end(&engine, "weather in Pune").await;
        assert_eq!(op.status, OperationStatus::Completed, "{op:?}");
        assert_eq!(op.steps.len(), 8);
        // Each observe step's evidence and the step grounded in it hold its id; the observation
        // itself is in no step.
        for pair in op.steps.chunks(2) {
            let seen = format!("{}/{}", op.id, pair[0].index);
            assert_eq!(
                pair[0].evidence["observation"],
                seen.as_str(),
                "{:?}",
                pair[0]
            );
            assert_eq!(pair[1].observation.as_deref(), Some(seen.as_str()));
        }
        let stored = serde_json::to_string(&op).unwrap();
        assert!(
            !stored.contains("button 3 of page"),
            "no observation inside the operation"
        );
        assert!(stored.len() < 8 * 1024, "{} bytes", stored.len());
        // The newest two are kept, whole; the older ones were pruned, and say so.
        let newest = engine.observation(format!("{}/6", op.id)).await.unwrap();
        assert_eq!(newest.observation, page(3, 50));
        let pruned = engine
            .observation(format!("{}/0", op.id))
            .await
            .unwrap_err();
        assert_eq!(pruned.code, ErrorCode::ObservationPruned, "{pruned:?}");
        let unknown = engine
            .observation(format!("{}/1", op.id))
            .await
            .unwrap_err();
        assert_eq!(unknown.code, ErrorCode::UnknownObservation, "{unknown:?}");
        // A second operation: the total cap (3) prunes the first one's older kept observation.
        let second = run_to_end(&engine, "weather in Mumbai").await;
        let store = Store::open(&db).unwrap();
        assert_eq!(store.observation_counts().unwrap(), (3, 5));
        assert!(engine.observation(format!("{}/6", op.id)).await.is_ok());
        assert_eq!(
            engine
                .observation(format!("{}/4", op.id))
                .await
                .unwrap_err()
                .code,
            ErrorCode::ObservationPruned
        );
        // The log stays append-only, and its replay is still the projection.
        for id in [op.id, second.id] {
            assert_eq!(
                store.replay_operation(id).unwrap(),
                store.operation(id).unwrap()
            );
        }
        let events = store.operation_events(op.id).unwrap();
        assert!(!serde_json::to_string(&events)
            .unwrap()
            .contains("button 3 of page"));
    });
}

#[test]
fn a_500_step_operation_fits_every_limit_on_a_real_control_socket() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::rt().block_on(async {
        let engine = Engine::start(
            "desk".into(),
            Store::open(&dir.path().join("circe.db")).unwrap(),
            Executors::default().with(Box::new(Pages {
                pages: 50,
                elements: 200,
                acts: 9,
                pause_ms: 0,
            })),
            Limits::default(),
        )
        .unwrap();
        let socket = dir.path().join("run/control.sock");
        let listener = circe::daemon::control::bind(&socket).unwrap();
        tokio::spawn(circe::daemon::control::serve(
            listener,
            engine.clone(),
            None,
            std::sync::Arc::new(circe::voice::session::VoiceSession::unavailable(
                engine.clone(),
            )),
        ));
        // A subscriber from before the operation: a snapshot, then only small events, which fold
        // into exactly the stored operation.
        let mut watcher = Client::connect(&socket).await.unwrap();
        watcher.call(Verb::Subscribe).await.unwrap();
        let mut c = Client::connect(&socket).await.unwrap();
        let submitted: Submitted = serde_json::from_value(
            c.call(Verb::Submit {
                input: input("weather in Pune"),
            })
            .await
            .unwrap(),
        )
        .unwrap();
        let id = submitted.operation.unwrap().id;
        let (mut fold, mut events, mut largest, mut total) = (OperationFold::default(), 0, 0, 0);
        loop {
            let line = watcher.line().await.unwrap();
            let n: Notification = serde_json::from_str(&line).unwrap();
            if !matches!(n, Notification::Snapshot { .. }) {
                events += 1;
                largest = largest.max(line.len());
                total += line.len();
            }
            assert!(
                !matches!(fold.apply(&n), Folded::Gap(_)),
                "no event is missing"
            );
            if fold.get(id).is_some_and(|o| !o.status.is_active()) {
                break;
            }
        }
        let state: StateView = serde_json::from_value(
            c.call(Verb::State {
                operations: Some(10),
            })
            .await
            .unwrap(),
        )
        .unwrap();
        let stored = state.operation.clone().unwrap();
        assert_eq!(stored.steps.len(), 500);
        // The events of the final commit after the one that ended it.
        while fold.get(id).unwrap().revision < stored.revision {
            let line = watcher.line().await.unwrap();
            largest = largest.max(line.len());
            total += line.len();
            events += 1;
            fold.apply(&serde_json::from_str(&line).unwrap());
        }
        let folded = fold.get(id).cloned().unwrap();
        assert!(
            folded == stored,
            "the events fold into the stored operation"
        );
        assert!(
            largest < 4 * 1024,
            "every event is small: the largest is {largest} bytes"
        );
        assert!(largest < MAX_EVENT_BYTES);
        eprintln!("500 steps: {events} events, {total} bytes in all, the largest {largest} bytes");
        // Read whole: the state and a new subscriber's snapshot fit the reply limit.
        let reply = serde_json::to_string(&state).unwrap().len();
        assert!(reply < MAX_REPLY_BYTES, "{reply} bytes");
        let mut late = Client::connect(&socket).await.unwrap();
        late.call(Verb::Subscribe).await.unwrap();
        let snapshot = late.line().await.unwrap();
        assert!(snapshot.len() < MAX_REPLY_BYTES, "{} bytes", snapshot.len());
        let Notification::Snapshot { state } = serde_json::from_str(&snapshot).unwrap() else {
            panic!("the first notification is a snapshot")
        };
        assert_eq!(state.operation.unwrap().steps.len(), 500);
        eprintln!("a 500-step operation's snapshot: {} bytes", snapshot.len());
    });
}

#[test]
fn observations_older_than_the_age_limit_are_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("circe.db");
    crate::util::rt().block_on(async {
        let engine = Engine::start_with(
            "desk".into(),
            Store::open(&db).unwrap(),
            Executors::default().with(Box::new(Pages {
                pages: 3,
                elements: 5,
                acts: 0,
                pause_ms: 50,
            })),
            Limits::default(),
            Retention {
                per_operation: 10,
                total: 10,
                max_age_ms: 20,
            },
        )
        .unwrap();
        let op = run_to_end(&engine, "weather in Pune").await;
        assert_eq!(op.steps.len(), 3);
        // Each page is 50 ms after the last: when the third is stored, the first two are too old.
        assert_eq!(
            Store::open(&db).unwrap().observation_counts().unwrap(),
            (1, 2)
        );
        assert!(engine.observation(format!("{}/2", op.id)).await.is_ok());
        let old = engine
            .observation(format!("{}/1", op.id))
            .await
            .unwrap_err();
        assert_eq!(old.code, ErrorCode::ObservationPruned);
        assert!(old.message.contains("pruned"), "{}", old.message);
    });
}

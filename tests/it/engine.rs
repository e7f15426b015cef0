//! The engine in-process with a scripted executor at the seam: what an executor sees mid-run.

use circe::config::Limits;
use circe::daemon::engine::Engine;
use circe::executor::{BoxFuture, ExecOutcome, Executor, Executors, RunContext};
use circe::model::{Goal, Input, InputMode, Operation};
use circe::store::Store;
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
        engine
            .submit(input("weather in Pune"))
            .unwrap()
            .reply()
            .await
            .unwrap();
        started.notified().await;
        let cancelled = engine
            .submit(input("cancel"))
            .unwrap()
            .reply()
            .await
            .unwrap();
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

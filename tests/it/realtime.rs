//! The OpenAI Realtime adapter against the mock server (`realtime_mock.rs`) on 127.0.0.1: what
//! finalizes an utterance, the order of finals, failures, barge-in at the played position, the
//! labels prompt, manual commit, the audio's rate and length, reconnecting without replaying old
//! speech, and the API key.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use circe::voice::playback::{NullSink, PacedPlayback, Playback};
use circe::voice::realtime::{
    ApiKey, Realtime, RealtimeConfig, RealtimeError, RealtimeEvent, SessionKind, TurnDetection,
};
use circe::voice::{Effect, Utterances, VoiceEvent};
use serde_json::json;
use tokio::sync::mpsc;

use crate::realtime_mock::{Mock, Outcome, Scenario, Turn};

const KEY: &str = "sk-test-CIRCE-SECRET-7f3a9c";

struct Client {
    rt: Realtime,
    events: mpsc::Receiver<RealtimeEvent>,
    got: Vec<RealtimeEvent>,
    playback: Arc<PacedPlayback>,
    sink: NullSink,
}

fn config(mock: &Mock, session: SessionKind, turn_detection: TurnDetection) -> RealtimeConfig {
    RealtimeConfig {
        session,
        turn_detection,
        base_url: mock.base_url(),
        reconnect_min_ms: 300,
        reconnect_max_ms: 1_000,
        ..RealtimeConfig::default()
    }
}

impl Client {
    fn start(config: RealtimeConfig) -> Client {
        let sink = NullSink::new();
        let playback = Arc::new(PacedPlayback::new(sink.clone()));
        let (rt, events) = Realtime::start(
            config,
            ApiKey::new(KEY.into()).unwrap(),
            playback.clone() as Arc<dyn Playback>,
        )
        .unwrap();
        Client {
            rt,
            events,
            got: Vec::new(),
            playback,
            sink,
        }
    }

    /// Receive until an event matches (5 s at most); every event is kept in `got`.
    async fn until(&mut self, what: &str, check: impl Fn(&RealtimeEvent) -> bool) -> RealtimeEvent {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            let e = tokio::time::timeout_at(deadline, self.events.recv())
                .await
                .unwrap_or_else(|_| panic!("no {what} within 5 s; got {:#?}", self.got))
                .expect("the adapter ended");
            self.got.push(e.clone());
            if check(&e) {
                return e;
            }
        }
    }

    /// Take whatever arrives within `wait`.
    async fn drain(&mut self, wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        while let Ok(Some(e)) = tokio::time::timeout_at(deadline, self.events.recv()).await {
            self.got.push(e);
        }
    }

    async fn connected(&mut self, n: u32) {
        self.until(
            "a connection",
            |e| matches!(e, RealtimeEvent::Connected { connection } if *connection == n),
        )
        .await;
    }

    fn voice(&self) -> Vec<VoiceEvent> {
        self.got
            .iter()
            .filter_map(|e| match e {
                RealtimeEvent::Voice(v) => Some(v.clone()),
                _ => None,
            })
            .collect()
    }

    fn finals(&self) -> Vec<(String, String)> {
        self.voice()
            .into_iter()
            .filter_map(|v| match v {
                VoiceEvent::Final { utterance, heard } => {
                    Some((utterance.0, heard[0].text.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The voice events through the utterance tracker: what would be admitted.
    fn admitted(&self) -> (Vec<(String, String)>, Vec<Effect>) {
        let mut tracker = Utterances::new();
        let effects: Vec<Effect> = self
            .voice()
            .into_iter()
            .flat_map(|v| tracker.apply(v))
            .collect();
        let admitted = effects
            .iter()
            .filter_map(|e| match e {
                Effect::Admit(u) => Some((u.id.0.clone(), u.heard[0].text.clone())),
                _ => None,
            })
            .collect();
        (admitted, effects)
    }

    /// Send `ms` of 24 kHz audio at `level` in 100 ms chunks.
    fn audio(&self, ms: usize, level: i16) {
        for _ in 0..ms / 100 {
            self.rt.audio_24k(&vec![level; 2_400]).unwrap();
        }
    }
}

fn is_final(e: &RealtimeEvent) -> bool {
    matches!(e, RealtimeEvent::Voice(VoiceEvent::Final { .. }))
}

#[tokio::test]
async fn realtime_finalizes_only_on_the_completed_transcription() {
    let mut turn = Turn::new(
        "item_001",
        200,
        1_200,
        &["Add the", " MICKE desk"],
        Outcome::Held("Add the MICKE desk to my cart.".into()),
    );
    // The running text is there before the pause, so finalizing on `speech_stopped` would show.
    turn.early_deltas = true;
    let mock = Mock::start(Scenario {
        turns: vec![turn],
        ..Scenario::default()
    })
    .await;
    let mut c = Client::start(config(&mock, SessionKind::Speech, TurnDetection::ServerVad));
    c.connected(1).await;
    let uri = mock.conn(0).uri;
    assert!(uri.ends_with("/v1/realtime?model=gpt-realtime"), "{uri}");
    c.audio(2_000, 500);
    // Deltas and the end of speech: not final.
    c.until("the second partial", |e| {
        matches!(e, RealtimeEvent::Voice(VoiceEvent::Partial { text, .. }) if text == "Add the MICKE desk")
    })
    .await;
    c.until("speech stopped", |e| {
        matches!(e, RealtimeEvent::Voice(VoiceEvent::SpeechStopped { .. }))
    })
    .await;
    c.drain(Duration::from_millis(100)).await;
    assert!(
        c.finals().is_empty(),
        "final on speech_stopped: {:?}",
        c.got
    );
    // The reply's audio starts while the user item is still only deltas: still not final.
    c.rt.say("One moment.").await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while c.playback.received_ms() == 0 {
        assert!(tokio::time::Instant::now() < deadline, "no reply audio");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    c.drain(Duration::from_millis(200)).await;
    assert!(mock.conn(0).server("response.output_audio.delta").len() >= 2);
    assert!(c.finals().is_empty(), "final before completed: {:?}", c.got);
    let (admitted, _) = c.admitted();
    assert!(admitted.is_empty(), "{admitted:?}");
    // The completion is the final, with its own transcript (not the deltas joined).
    mock.release("item_001");
    c.until("the final", is_final).await;
    assert_eq!(
        c.finals(),
        [(
            "item_001".to_string(),
            "Add the MICKE desk to my cart.".to_string()
        )]
    );
    let (admitted, effects) = c.admitted();
    assert_eq!(
        admitted,
        [(
            "item_001".to_string(),
            "Add the MICKE desk to my cart.".to_string()
        )]
    );
    assert!(effects
        .iter()
        .any(|e| matches!(e, Effect::Admit(u) if u.revision == 3)));
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_orders_out_of_order_completions_by_previous_item_id() {
    let mut first = Turn::new(
        "item_a",
        100,
        600,
        &["scroll"],
        Outcome::Completed("scroll down".into()),
    );
    first.after = Some("item_b".into());
    let second = Turn::new(
        "item_b",
        1_300,
        1_800,
        &[],
        Outcome::Completed("open the comments".into()),
    );
    let mock = Mock::start(Scenario {
        turns: vec![first, second],
        ..Scenario::default()
    })
    .await;
    let mut c = Client::start(config(
        &mock,
        SessionKind::Transcription,
        TurnDetection::ServerVad,
    ));
    c.connected(1).await;
    c.audio(3_000, 300);
    c.until("the first final", is_final).await;
    c.until("the second final", is_final).await;
    // The server sent b's completion first…
    let sent = mock
        .conn(0)
        .server("conversation.item.input_audio_transcription.completed");
    let arrival: Vec<&str> = sent
        .iter()
        .map(|e| e["item_id"].as_str().unwrap())
        .collect();
    assert_eq!(arrival, ["item_b", "item_a"]);
    let committed = mock.conn(0).server("input_audio_buffer.committed");
    assert_eq!(committed[1]["previous_item_id"], "item_a");
    // …and the adapter emits them in conversation order.
    let order: Vec<String> = c.finals().into_iter().map(|(id, _)| id).collect();
    assert_eq!(order, ["item_a", "item_b"]);
    let (admitted, _) = c.admitted();
    assert_eq!(
        admitted,
        [
            ("item_a".to_string(), "scroll down".to_string()),
            ("item_b".to_string(), "open the comments".to_string())
        ]
    );
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_failed_transcription_admits_nothing() {
    let mock = Mock::start(Scenario {
        turns: vec![Turn::new(
            "item_f",
            100,
            600,
            &["turn the"],
            Outcome::Failed("audio unintelligible".into()),
        )],
        ..Scenario::default()
    })
    .await;
    let mut c = Client::start(config(
        &mock,
        SessionKind::Transcription,
        TurnDetection::ServerVad,
    ));
    c.connected(1).await;
    c.audio(1_500, 300);
    let failed = c
        .until("the failure", |e| {
            matches!(e, RealtimeEvent::Voice(VoiceEvent::Failed { .. }))
        })
        .await;
    match failed {
        RealtimeEvent::Voice(VoiceEvent::Failed { utterance, message }) => {
            assert_eq!(utterance.0, "item_f");
            assert!(message.contains("audio unintelligible"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A completion arriving after the failure changes nothing.
    mock.push(json!({
        "type": "conversation.item.input_audio_transcription.completed",
        "item_id": "item_f", "content_index": 0, "transcript": "turn the lights off",
    }));
    c.drain(Duration::from_millis(200)).await;
    let (admitted, effects) = c.admitted();
    assert!(admitted.is_empty(), "{admitted:?}");
    let not_understood: Vec<&Effect> = effects
        .iter()
        .filter(|e| matches!(e, Effect::NotUnderstood { .. }))
        .collect();
    assert_eq!(not_understood.len(), 1, "{effects:?}");
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_barge_in_truncates_at_the_played_position() {
    let mock = Mock::start(Scenario::default()).await;
    let mut c = Client::start(config(&mock, SessionKind::Speech, TurnDetection::ServerVad));
    c.connected(1).await;
    c.rt.say("Here are the three desks I found.").await.unwrap();
    // The reply (3 s) arrives five times faster than it plays.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while c.playback.played_ms() < 300 {
        assert!(tokio::time::Instant::now() < deadline, "nothing played");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    mock.speech_started("item_u2", 4_000);
    let stopped = c
        .until("playback stopped", |e| {
            matches!(e, RealtimeEvent::PlaybackStopped { .. })
        })
        .await;
    let RealtimeEvent::PlaybackStopped { item, played_ms } = stopped else {
        unreachable!()
    };
    assert_eq!(item.as_deref(), Some("item_asst_1"));
    let written_ms = c.sink.written() / 24;
    assert!(!c.playback.is_playing());
    mock.until("the truncate", |conns| {
        !conns[0].client("conversation.item.truncate").is_empty()
    })
    .await;
    let conn = mock.conn(0);
    let truncate = &conn.client("conversation.item.truncate")[0];
    assert_eq!(truncate["item_id"], "item_asst_1");
    assert_eq!(truncate["content_index"], 0);
    let end = truncate["audio_end_ms"].as_u64().unwrap();
    // The played position, which is what reached the sink, not what was received.
    assert_eq!(end, played_ms);
    assert!(
        end.abs_diff(written_ms) <= 100,
        "truncated at {end} ms, the sink played {written_ms} ms"
    );
    let received = conn.item_audio_ms["item_asst_1"];
    assert!(
        end >= 280 && end + 300 < received,
        "truncated at {end} ms of {received} ms received"
    );
    // Cancel first, then truncate; the server accepted the truncation.
    let cancel = conn.position("response.cancel").expect("a response.cancel");
    let trunc = conn.position("conversation.item.truncate").unwrap();
    assert!(cancel < trunc);
    mock.until("truncated", |conns| {
        !conns[0].server("conversation.item.truncated").is_empty()
    })
    .await;
    assert_eq!(
        mock.conn(0).server("conversation.item.truncated")[0]["audio_end_ms"],
        end
    );
    // Nothing more reaches the sink, and the server's cancel (interrupt_response got there first)
    // makes the client's cancel a harmless error that is not reported.
    let at_stop = c.sink.written();
    c.drain(Duration::from_millis(250)).await;
    assert_eq!(c.sink.written(), at_stop, "audio played after the barge-in");
    assert!(!mock.conn(0).server("error").is_empty());
    assert!(
        !c.got
            .iter()
            .any(|e| matches!(e, RealtimeEvent::ServerError(_))),
        "{:?}",
        c.got
    );
    let speech = c.voice();
    assert!(
        matches!(&speech[..], [VoiceEvent::SpeechStarted { utterance, .. }] if utterance.0 == "item_u2")
    );
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_local_barge_in_cancels_and_truncates() {
    // A local detector (the stop spotter, a local VAD) interrupts: no server VAD involved.
    let mock = Mock::start(Scenario::default()).await;
    let mut c = Client::start(config(&mock, SessionKind::Speech, TurnDetection::Manual));
    c.connected(1).await;
    c.rt.say("Deleting the three files now.").await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while c.playback.played_ms() < 200 {
        assert!(tokio::time::Instant::now() < deadline, "nothing played");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    c.rt.barge_in().await.unwrap();
    let RealtimeEvent::PlaybackStopped { played_ms, .. } = c
        .until("playback stopped", |e| {
            matches!(e, RealtimeEvent::PlaybackStopped { .. })
        })
        .await
    else {
        unreachable!()
    };
    mock.until("the cancelled response", |conns| {
        conns[0]
            .server("response.done")
            .iter()
            .any(|d| d["response"]["status"] == "cancelled")
    })
    .await;
    mock.until("truncated", |conns| {
        !conns[0].server("conversation.item.truncated").is_empty()
    })
    .await;
    let conn = mock.conn(0);
    let done = &conn.server("response.done")[0];
    assert_eq!(
        done["response"]["status_details"]["reason"],
        "client_cancelled"
    );
    assert_eq!(conn.client("response.cancel")[0]["response_id"], "resp_1");
    let truncate = &conn.client("conversation.item.truncate")[0];
    assert_eq!(truncate["audio_end_ms"], played_ms);
    assert!(played_ms >= 200 && played_ms + 300 < conn.item_audio_ms["item_asst_1"]);
    assert!(
        conn.server("error").is_empty(),
        "{:?}",
        conn.server("error")
    );
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_sends_the_labels_prompt_and_updates_it() {
    let mock = Mock::start(Scenario::default()).await;
    let mut c = Client::start(config(
        &mock,
        SessionKind::Transcription,
        TurnDetection::ServerVad,
    ));
    c.connected(1).await;
    let uri = mock.conn(0).uri;
    assert!(uri.ends_with("/v1/realtime?intent=transcription"), "{uri}");
    assert!(!uri.contains("model="), "{uri}");
    let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    c.rt.labels(labels(&["MICKE desk", "KALLAX shelf"]))
        .await
        .unwrap();
    c.rt.labels(labels(&["MICKE desk", "KALLAX shelf"]))
        .await
        .unwrap();
    c.rt.labels(labels(&["LINNMON table"])).await.unwrap();
    mock.until("three session updates", |conns| {
        conns[0].client("session.update").len() == 3
    })
    .await;
    c.drain(Duration::from_millis(100)).await;
    let conn = mock.conn(0);
    let prompts: Vec<String> = conn
        .client("session.update")
        .iter()
        .map(|u| {
            u["session"]["audio"]["input"]["transcription"]["prompt"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        prompts,
        [
            "",
            "Expect these on-screen labels: MICKE desk, KALLAX shelf",
            "Expect these on-screen labels: LINNMON table"
        ]
    );
    let first = &conn.client("session.update")[0]["session"];
    assert_eq!(first["type"], "transcription");
    // The merged session kept the rest of the configuration.
    let input = &conn.session["audio"]["input"];
    assert_eq!(input["transcription"]["model"], "gpt-4o-transcribe");
    assert_eq!(input["turn_detection"]["type"], "server_vad");
    assert_eq!(input["format"]["rate"], 24_000);
    assert_eq!(conn.server("session.updated").len(), 3);
    c.rt.close().await.unwrap();

    // A model that takes keywords gets them as keywords.
    let mock = Mock::start(Scenario::default()).await;
    let mut c = Client::start(RealtimeConfig {
        transcription_model: "gpt-live-transcribe".into(),
        ..config(&mock, SessionKind::Transcription, TurnDetection::Manual)
    });
    c.connected(1).await;
    c.rt.labels(labels(&["Checkout", "Add to cart"]))
        .await
        .unwrap();
    mock.until("the labels", |conns| {
        conns[0].client("session.update").len() == 2
    })
    .await;
    let update = &mock.conn(0).client("session.update")[1];
    let t = &update["session"]["audio"]["input"]["transcription"];
    assert_eq!(t["keywords"], json!(["Checkout", "Add to cart"]));
    assert!(t.get("prompt").is_none());
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_manual_commit_mode_commits() {
    let mock = Mock::start(Scenario {
        turns: vec![Turn::new(
            "item_m",
            0,
            0,
            &["close"],
            Outcome::Completed("close this tab".into()),
        )],
        ..Scenario::default()
    })
    .await;
    let mut c = Client::start(config(
        &mock,
        SessionKind::Transcription,
        TurnDetection::Manual,
    ));
    c.connected(1).await;
    // Nothing sent yet: nothing to commit.
    c.rt.commit().await.unwrap();
    c.rt.audio_16k(&vec![800; 8_000]).unwrap();
    c.rt.commit().await.unwrap();
    c.until("the final", is_final).await;
    let conn = mock.conn(0);
    assert!(conn.session["audio"]["input"]["turn_detection"].is_null());
    assert_eq!(conn.client("input_audio_buffer.commit").len(), 1);
    assert!(
        conn.server("error").is_empty(),
        "{:?}",
        conn.server("error")
    );
    assert!(conn.server("input_audio_buffer.speech_started").is_empty());
    let appends: Vec<usize> = conn
        .events
        .iter()
        .enumerate()
        .filter(|(_, (_, e))| e["type"] == "input_audio_buffer.append")
        .map(|(i, _)| i)
        .collect();
    assert!(appends.last() < conn.position("input_audio_buffer.commit").as_ref());
    assert_eq!(
        c.finals(),
        [("item_m".to_string(), "close this tab".to_string())]
    );
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_resampled_audio_arrives_at_24k_with_the_right_length() {
    let mock = Mock::start(Scenario::default()).await;
    let mut c = Client::start(config(
        &mock,
        SessionKind::Transcription,
        TurnDetection::Manual,
    ));
    c.connected(1).await;
    // 1 s of 440 Hz at 16 kHz, in 20 ms chunks.
    let tone: Vec<i16> = (0..16_000)
        .map(|i| {
            (8_000.0 * (2.0 * std::f64::consts::PI * 440.0 * i as f64 / 16_000.0).sin()) as i16
        })
        .collect();
    for chunk in tone.chunks(320) {
        c.rt.audio_16k(chunk).unwrap();
    }
    c.rt.commit().await.unwrap();
    mock.until("the commit", |conns| {
        !conns[0].client("input_audio_buffer.commit").is_empty()
    })
    .await;
    let samples = mock.conn(0).samples;
    assert_eq!(samples.len(), 24_000, "1 s at 24 kHz");
    // Upward zero crossings per second at 24 kHz: 440.
    let crossings = samples.windows(2).filter(|w| w[0] < 0 && w[1] >= 0).count();
    assert!((439..=441).contains(&crossings), "{crossings} crossings");
    let peak = samples.iter().map(|s| s.unsigned_abs()).max().unwrap();
    assert!((7_800..=8_200).contains(&peak), "peak {peak}");
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_reconnect_does_not_replay_old_speech() {
    let mut second = Turn::new(
        "item_2",
        100,
        600,
        &[],
        Outcome::Completed("play the next video".into()),
    );
    second.conn = 1;
    let mock = Mock::start(Scenario {
        turns: vec![
            Turn::new(
                "item_1",
                100,
                600,
                &["scroll"],
                Outcome::Completed("scroll down".into()),
            ),
            second,
        ],
        // The server replays the old turn's completion on the new connection.
        replay_on_reconnect: vec![json!({
            "type": "conversation.item.input_audio_transcription.completed",
            "item_id": "item_1", "content_index": 0, "transcript": "scroll down",
        })],
        ..Scenario::default()
    })
    .await;
    let mut c = Client::start(config(
        &mock,
        SessionKind::Transcription,
        TurnDetection::ServerVad,
    ));
    c.connected(1).await;
    c.rt.labels(vec!["Next video".into()]).await.unwrap();
    c.audio(1_200, 1_111);
    c.until("the first final", is_final).await;
    // The connection drops; audio sent around and after the drop belongs to no session.
    mock.drop_connection();
    c.audio(300, 2_222);
    c.until("the disconnect", |e| {
        matches!(e, RealtimeEvent::Disconnected { .. })
    })
    .await;
    c.audio(500, 2_222);
    c.connected(2).await;
    c.audio(1_200, 3_333);
    c.until("the second final", |e| {
        matches!(e, RealtimeEvent::Voice(VoiceEvent::Final { utterance, .. }) if utterance.0 == "item_2")
    })
    .await;
    let conns = mock.conns();
    assert_eq!(conns.len(), 2);
    let levels: std::collections::BTreeSet<i16> = conns[1].samples.iter().copied().collect();
    assert_eq!(
        levels,
        [3_333].into_iter().collect(),
        "old audio sent to the new session"
    );
    assert_eq!(conns[1].samples.len(), 1_200 * 24);
    // The labels came back with the new session.
    let update = &conns[1].client("session.update")[0];
    assert_eq!(
        update["session"]["audio"]["input"]["transcription"]["prompt"],
        "Expect these on-screen labels: Next video"
    );
    // The replayed final reached the tracker, which admitted it only once.
    let finals_1 = c.finals().iter().filter(|(id, _)| id == "item_1").count();
    assert_eq!(finals_1, 2, "{:?}", c.finals());
    let (admitted, _) = c.admitted();
    assert_eq!(
        admitted,
        [
            ("item_1".to_string(), "scroll down".to_string()),
            ("item_2".to_string(), "play the next video".to_string())
        ]
    );
    c.rt.close().await.unwrap();
}

#[tokio::test]
async fn realtime_reports_drops_and_server_errors_typed() {
    let mock = Mock::start(Scenario {
        turns: vec![Turn::new(
            "item_open",
            100,
            400,
            &["half"],
            Outcome::Held("never sent".into()),
        )],
        ..Scenario::default()
    })
    .await;
    let mut c = Client::start(config(
        &mock,
        SessionKind::Transcription,
        TurnDetection::ServerVad,
    ));
    c.connected(1).await;
    mock.push(
        json!({"type": "error", "error": {"type": "invalid_request_error",
        "code": "rate_limit_exceeded", "message": "slow down", "param": null}}),
    );
    let e = c
        .until("the server error", |e| {
            matches!(e, RealtimeEvent::ServerError(_))
        })
        .await;
    assert_eq!(
        e,
        RealtimeEvent::ServerError(RealtimeError::Server {
            code: "rate_limit_exceeded".into(),
            message: "slow down".into()
        })
    );
    // A known event with a missing field is a protocol error, and the session goes on.
    mock.push(
        json!({"type": "conversation.item.input_audio_transcription.completed", "item_id": "x"}),
    );
    c.until("the protocol error", |e| {
        matches!(e, RealtimeEvent::ServerError(RealtimeError::Protocol(_)))
    })
    .await;
    // Reply audio that is not PCM16 is refused and not played; the session goes on.
    mock.push(
        json!({"type": "response.output_audio.delta", "response_id": "resp_x",
        "item_id": "item_x", "output_index": 0, "content_index": 0, "delta": "AA=="}),
    );
    c.until("the refused audio", |e| {
        matches!(e, RealtimeEvent::ServerError(RealtimeError::Protocol(m)) if m.starts_with("audio delta"))
    })
    .await;
    assert_eq!(c.playback.received_ms(), 0);
    assert!(!c
        .got
        .iter()
        .any(|e| matches!(e, RealtimeEvent::Disconnected { .. })));
    // A turn still being transcribed when the connection drops fails; nothing is admitted.
    c.audio(1_000, 100);
    c.until("the partial", |e| {
        matches!(e, RealtimeEvent::Voice(VoiceEvent::Partial { .. }))
    })
    .await;
    mock.drop_connection();
    let failed = c
        .until("the lost turn", |e| {
            matches!(e, RealtimeEvent::Voice(VoiceEvent::Failed { .. }))
        })
        .await;
    assert!(
        matches!(&failed, RealtimeEvent::Voice(VoiceEvent::Failed { utterance, message })
            if utterance.0 == "item_open" && message.starts_with("connection lost")),
        "{failed:?}"
    );
    let lost = c
        .until("the disconnect", |e| {
            matches!(e, RealtimeEvent::Disconnected { .. })
        })
        .await;
    assert!(
        matches!(
            &lost,
            RealtimeEvent::Disconnected {
                error: RealtimeError::Lost(_),
                retry_in_ms: 300
            }
        ),
        "{lost:?}"
    );
    c.connected(2).await;
    let (admitted, _) = c.admitted();
    assert!(admitted.is_empty());
    c.rt.close().await.unwrap();
    c.until("the end", |e| matches!(e, RealtimeEvent::Ended(None)))
        .await;
}

/// Captures formatted tracing output.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn realtime_api_key_is_the_authorization_header_and_never_logged() {
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    // A current-thread runtime: the adapter's tasks log on this thread, into this subscriber.
    let _guard = tracing::subscriber::set_default(subscriber);
    // Callsites hit by other tests' threads first may have cached "no subscriber wants this";
    // recompute with this thread's subscriber in place, so the capture misses nothing.
    tracing::callsite::rebuild_interest_cache();

    let mock = Mock::start(Scenario::default()).await;
    let mut c = Client::start(config(&mock, SessionKind::Speech, TurnDetection::ServerVad));
    c.connected(1).await;
    c.rt.labels(vec!["Checkout".into()]).await.unwrap();
    c.audio(500, 10);
    mock.push(
        json!({"type": "error", "error": {"type": "server_error", "code": "boom", "message": "x"}}),
    );
    c.until("the server error", |e| {
        matches!(e, RealtimeEvent::ServerError(_))
    })
    .await;
    mock.drop_connection();
    c.connected(2).await;
    c.rt.close().await.unwrap();
    c.until("the end", |e| matches!(e, RealtimeEvent::Ended(None)))
        .await;
    for conn in mock.conns() {
        assert_eq!(
            conn.authorization.as_deref(),
            Some(&*format!("Bearer {KEY}"))
        );
        assert!(!conn.uri.contains(KEY));
    }

    // A refused key ends the adapter with a typed error that does not show the key.
    let refusing = Mock::start(Scenario {
        refuse: Some(401),
        ..Scenario::default()
    })
    .await;
    let mut c = Client::start(config(
        &refusing,
        SessionKind::Transcription,
        TurnDetection::ServerVad,
    ));
    let ended = c
        .until("the end", |e| matches!(e, RealtimeEvent::Ended(_)))
        .await;
    let RealtimeEvent::Ended(Some(error)) = ended else {
        panic!("{ended:?}")
    };
    assert!(
        matches!(error, RealtimeError::Refused { status: 401, .. }),
        "{error:?}"
    );
    assert!(error.is_fatal());
    assert!(!error.to_string().contains(KEY) && !format!("{error:?}").contains(KEY));
    assert_eq!(refusing.conns().len(), 1, "a refused key is not retried");
    assert_eq!(
        refusing.conn(0).authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );

    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("realtime: connecting"), "{logs}");
    assert!(logs.contains("realtime: disconnected"), "{logs}");
    assert!(logs.contains("realtime: giving up"), "{logs}");
    assert!(
        !logs.contains("CIRCE-SECRET"),
        "the key was logged:\n{logs}"
    );
    assert!(!logs.contains("Bearer"), "{logs}");
}

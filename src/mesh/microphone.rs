//! A phone's microphone, streamed over its authenticated WebSocket to this node's voice session:
//! binary messages of 16 kHz mono 16-bit little-endian PCM, each within the socket's message
//! limit; an empty binary message ends the stream (so does the socket closing). The node hears it
//! with its screen-biased recogniser and admits what it hears through the one admission path, as
//! that phone's own input. Each utterance's fate goes back as a line
//! `{"event":"heard","hearing":…}`; a refused stream as `{"event":"microphone","error":…}`.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use super::policy::{self, MessageKind};
use crate::store::DeviceRecord;
use crate::voice::session::{HearOptions, VoiceSession};

/// The sample rate the stream must have.
pub const SAMPLE_RATE: usize = 16_000;
/// The longest one stream may be; the phone starts a new one after.
pub const MAX_STREAM_SECONDS: usize = 60;
/// Chunks waiting to be heard before the stream is refused as too fast.
const QUEUE: usize = 256;

/// One socket's microphone stream, if one is open.
#[derive(Default)]
pub struct Microphone {
    frames: Option<mpsc::Sender<Vec<i16>>>,
    samples: usize,
}

impl Microphone {
    /// One binary message from `device`. A refusal ends the stream and tells the phone why.
    pub async fn push(
        &mut self,
        bytes: &[u8],
        voice: Option<&Arc<VoiceSession>>,
        device: &DeviceRecord,
        out: &mpsc::Sender<String>,
    ) {
        if let Err(why) = self.take(bytes, voice, device, out) {
            self.frames = None;
            self.samples = 0;
            let _ = out
                .send(json!({ "event": "microphone", "error": why }).to_string())
                .await;
        }
    }

    fn take(
        &mut self,
        bytes: &[u8],
        voice: Option<&Arc<VoiceSession>>,
        device: &DeviceRecord,
        out: &mpsc::Sender<String>,
    ) -> Result<(), String> {
        if bytes.is_empty() {
            // The end: the session hears what is left.
            self.frames = None;
            self.samples = 0;
            return Ok(());
        }
        if bytes.len() % 2 != 0 {
            return Err("audio must be 16-bit samples: an odd number of bytes arrived".into());
        }
        if self.frames.is_none() {
            self.frames = Some(open(voice, device, out)?);
        }
        let chunk: Vec<i16> = bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        self.samples += chunk.len();
        if self.samples > MAX_STREAM_SECONDS * SAMPLE_RATE {
            return Err(format!(
                "a stream is at most {MAX_STREAM_SECONDS} s; start a new one"
            ));
        }
        let frames = self.frames.as_ref().expect("opened above");
        frames
            .try_send(chunk)
            .map_err(|_| "audio arrives faster than it can be heard; stream ended".to_string())
    }
}

/// Start hearing a stream from `device`: its chunks go to the voice session, what became of each
/// utterance back to the phone.
fn open(
    voice: Option<&Arc<VoiceSession>>,
    device: &DeviceRecord,
    out: &mpsc::Sender<String>,
) -> Result<mpsc::Sender<Vec<i16>>, String> {
    // Speech is a request like typed words: the same scope.
    if !policy::allowed(&device.scopes, MessageKind::SubmitText) {
        return Err("this device's scope does not include submit".into());
    }
    let Some(voice) = voice else {
        return Err("this node hears no audio (no voice session)".into());
    };
    let session = voice.for_device(&format!("device:{}", device.id));
    let (frames, chunks) = mpsc::channel(QUEUE);
    let (report, mut hearings) = mpsc::channel(16);
    let out = out.clone();
    tokio::spawn(async move {
        let forward = {
            let out = out.clone();
            async move {
                while let Some(hearing) = hearings.recv().await {
                    let line = json!({ "event": "heard", "hearing": hearing }).to_string();
                    if out.send(line).await.is_err() {
                        break;
                    }
                }
            }
        };
        let hear = session.hear_stream(chunks, HearOptions::default(), report);
        let (heard, ()) = tokio::join!(hear, forward);
        if let Err(e) = heard {
            let _ = out
                .send(json!({ "event": "microphone", "error": e.message }).to_string())
                .await;
        }
    });
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Capability;

    fn device(scopes: Vec<Capability>) -> DeviceRecord {
        DeviceRecord {
            id: "p1".into(),
            name: "phone".into(),
            role: "phone".into(),
            scopes,
            created_at: 0,
            last_seen: None,
            revoked_at: None,
            public_key: None,
        }
    }

    #[test]
    fn a_stream_is_refused_with_the_reason_and_nothing_is_heard() {
        let (out, _lines) = mpsc::channel(4);
        let phone = device(policy::PHONE_SCOPE.to_vec());
        let reader = device(vec![Capability::Read]);
        let cases: [(&[u8], &DeviceRecord, &str); 3] = [
            (&[1, 2, 3], &phone, "odd number of bytes"),
            (&[0, 0, 1, 0], &reader, "does not include submit"),
            (&[0, 0, 1, 0], &phone, "no voice session"),
        ];
        for (bytes, who, why) in cases {
            let mut mic = Microphone::default();
            let err = mic.take(bytes, None, who, &out).unwrap_err();
            assert!(err.contains(why), "{err}");
            assert!(mic.frames.is_none());
        }
        // An empty message ends a stream (here: none was open) and is no error.
        let mut mic = Microphone::default();
        assert_eq!(mic.take(&[], None, &phone, &out), Ok(()));
    }
}

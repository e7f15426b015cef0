//! The voice-activity detector in front of the recogniser: energy over a noise floor.
//!
//! Pure and streaming: samples in (any chunk size), [`Segment`]s out. Audio is cut into 20 ms
//! frames; a frame is speech when its level is above an absolute threshold and
//! [`Config::over_floor_db`] above the noise floor, which follows quiet frames down at once and
//! loud ones up slowly, so a steady noise or hum becomes the floor and is never speech.
//! Speech starts after [`Config::start_frames`] speech frames in a row (a click is not speech);
//! the utterance ends after [`Config::end_silence_ms`] without speech (a pause inside a sentence
//! is shorter), or at [`Config::max_segment_ms`]. Segments shorter than
//! [`Config::min_speech_ms`] of speech are dropped.

use super::audio::{ms_of, PER_MS};

/// Frame length.
pub const FRAME_MS: u64 = 20;
const FRAME: usize = FRAME_MS as usize * PER_MS;

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Below this level (dBFS) nothing is speech.
    pub min_db: f32,
    /// How far above the noise floor speech must be.
    pub over_floor_db: f32,
    /// How fast the floor rises under a loud frame, per frame.
    pub floor_rise_db: f32,
    pub start_frames: usize,
    /// Silence that ends an utterance.
    pub end_silence_ms: u64,
    /// Audio kept before the first speech frame (the onset of a soft first sound).
    pub pre_roll_ms: u64,
    pub min_speech_ms: u64,
    pub max_segment_ms: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            min_db: -50.0,
            over_floor_db: 15.0,
            floor_rise_db: 0.05,
            start_frames: 3,
            end_silence_ms: 500,
            pre_roll_ms: 200,
            min_speech_ms: 150,
            max_segment_ms: 20_000,
        }
    }
}

/// What the detector reports, with times in ms since the stream began.
#[derive(Clone, Debug, PartialEq)]
pub enum VadEvent {
    SpeechStarted {
        at_ms: u64,
    },
    /// An utterance ended: its audio (pre-roll included, trailing silence trimmed to 200 ms)
    /// and when its speech stopped.
    Segment(Segment),
    /// Speech started but was too short to be an utterance.
    Dropped {
        at_ms: u64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    pub start_ms: u64,
    /// The end of the last speech frame: the "end of speech".
    pub speech_end_ms: u64,
    pub samples: Vec<i16>,
}

#[derive(Debug)]
pub struct Vad {
    config: Config,
    floor_db: Option<f32>,
    /// Samples not yet a whole frame.
    partial: Vec<i16>,
    frames_seen: u64,
    /// Recent frames before speech (the pre-roll).
    before: std::collections::VecDeque<Vec<i16>>,
    run: usize,
    open: Option<Open>,
}

#[derive(Debug)]
struct Open {
    start_ms: u64,
    samples: Vec<i16>,
    speech_frames: u64,
    /// Frames since the last speech frame.
    quiet: u64,
    last_speech_end_ms: u64,
}

/// A frame's level in dBFS (−120 for digital silence).
pub fn level_db(frame: &[i16]) -> f32 {
    if frame.is_empty() {
        return -120.0;
    }
    let sum: f64 = frame.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    let ms = sum / frame.len() as f64 / (32768.0 * 32768.0);
    if ms <= 1e-12 {
        -120.0
    } else {
        (10.0 * ms.log10()) as f32
    }
}

impl Vad {
    pub fn new(config: Config) -> Vad {
        Vad {
            config,
            floor_db: None,
            partial: Vec::new(),
            frames_seen: 0,
            before: Default::default(),
            run: 0,
            open: None,
        }
    }

    /// Whether an utterance is open (speech heard, its end not yet).
    pub fn in_speech(&self) -> bool {
        self.open.is_some()
    }

    /// The end of the open utterance's last speech frame (stream time), if one is open.
    pub fn last_speech_end_ms(&self) -> Option<u64> {
        self.open.as_ref().map(|o| o.last_speech_end_ms)
    }

    /// How much audio has been framed so far, in ms of stream time.
    pub fn heard_ms(&self) -> u64 {
        self.frames_seen * FRAME_MS
    }

    /// Feed samples; returns what ended or started in them.
    pub fn push(&mut self, samples: &[i16]) -> Vec<VadEvent> {
        let mut events = Vec::new();
        self.partial.extend_from_slice(samples);
        let whole = self.partial.len() / FRAME * FRAME;
        let frames: Vec<i16> = self.partial.drain(..whole).collect();
        for frame in frames.chunks_exact(FRAME) {
            self.frame(frame, &mut events);
        }
        events
    }

    /// The stream ended: close an open utterance.
    pub fn finish(&mut self) -> Vec<VadEvent> {
        let mut events = Vec::new();
        if !self.partial.is_empty() {
            let mut last = std::mem::take(&mut self.partial);
            last.resize(FRAME, 0);
            self.frame(&last, &mut events);
        }
        if let Some(open) = self.open.take() {
            events.push(self.close(open));
        }
        events
    }

    fn frame(&mut self, frame: &[i16], events: &mut Vec<VadEvent>) {
        let c = &self.config;
        let db = level_db(frame);
        let floor = *self.floor_db.get_or_insert(db);
        let speech = db > c.min_db && db > floor + c.over_floor_db;
        // The floor: down at once, up slowly (speech raises it a little; a steady sound fully).
        self.floor_db = Some(if db < floor {
            db
        } else {
            floor + (db - floor).min(c.floor_rise_db)
        });
        let start_of_frame = self.frames_seen * FRAME_MS;
        self.frames_seen += 1;
        let end_of_frame = self.frames_seen * FRAME_MS;

        if let Some(open) = self.open.as_mut() {
            open.samples.extend_from_slice(frame);
            if speech {
                open.speech_frames += 1;
                open.quiet = 0;
                open.last_speech_end_ms = end_of_frame;
            } else {
                open.quiet += 1;
            }
            let ended = open.quiet * FRAME_MS >= c.end_silence_ms;
            let too_long = end_of_frame - open.start_ms >= c.max_segment_ms;
            if ended || too_long {
                let open = self.open.take().expect("open");
                events.push(self.close(open));
                self.run = 0;
            }
            return;
        }

        self.run = if speech { self.run + 1 } else { 0 };
        self.before.push_back(frame.to_vec());
        let keep = (c.pre_roll_ms / FRAME_MS) as usize + c.start_frames;
        while self.before.len() > keep {
            self.before.pop_front();
        }
        if self.run >= c.start_frames {
            let samples: Vec<i16> = self.before.drain(..).flatten().collect();
            let start_ms = end_of_frame.saturating_sub(ms_of(samples.len()));
            let speech_start =
                start_of_frame.saturating_sub((c.start_frames as u64 - 1) * FRAME_MS);
            events.push(VadEvent::SpeechStarted {
                at_ms: speech_start,
            });
            self.open = Some(Open {
                start_ms,
                samples,
                speech_frames: c.start_frames as u64,
                quiet: 0,
                last_speech_end_ms: end_of_frame,
            });
        }
    }

    fn close(&mut self, mut open: Open) -> VadEvent {
        self.before.clear();
        if open.speech_frames * FRAME_MS < self.config.min_speech_ms {
            return VadEvent::Dropped {
                at_ms: open.start_ms,
            };
        }
        // Keep 200 ms after the last speech frame (the decay of the last sound).
        let keep_ms = (open.last_speech_end_ms - open.start_ms) + 200;
        let keep = (keep_ms as usize * PER_MS).min(open.samples.len());
        open.samples.truncate(keep);
        VadEvent::Segment(Segment {
            start_ms: open.start_ms,
            speech_end_ms: open.last_speech_end_ms,
            samples: open.samples,
        })
    }
}

/// Every segment of a whole recording.
pub fn segments(samples: &[i16], config: Config) -> Vec<Segment> {
    let mut vad = Vad::new(config);
    let mut events = vad.push(samples);
    events.extend(vad.finish());
    events
        .into_iter()
        .filter_map(|e| match e {
            VadEvent::Segment(s) => Some(s),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tone of `ms` at `amp` (a stand-in for voiced speech), or silence at amp 0.
    fn tone(ms: u64, amp: f32, hz: f32) -> Vec<i16> {
        (0..ms as usize * PER_MS)
            .map(|i| {
                (amp * (i as f32 * hz * std::f32::consts::TAU / 16_000.0).sin() * 32767.0) as i16
            })
            .collect()
    }

    /// Deterministic white-ish noise.
    fn noise(ms: u64, amp: f32) -> Vec<i16> {
        let mut x: u32 = 12345;
        (0..ms as usize * PER_MS)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                ((((x >> 16) & 0x7fff) as f32 / 16384.0 - 1.0) * amp * 32767.0) as i16
            })
            .collect()
    }

    fn cat(parts: &[Vec<i16>]) -> Vec<i16> {
        parts.concat()
    }

    fn spans(samples: &[i16]) -> Vec<(u64, u64)> {
        segments(samples, Config::default())
            .into_iter()
            .map(|s| (s.start_ms, s.speech_end_ms))
            .collect()
    }

    #[test]
    fn speech_is_cut_at_half_a_second_of_silence() {
        type Case = (&'static str, Vec<i16>, Vec<(u64, u64)>);
        let table: Vec<Case> = vec![
            ("silence", tone(2000, 0.0, 0.0), vec![]),
            ("steady hum", tone(2000, 0.3, 120.0), vec![]),
            ("steady noise", noise(2000, 0.2), vec![]),
            (
                "one utterance",
                cat(&[
                    tone(400, 0.0, 0.0),
                    tone(800, 0.3, 220.0),
                    tone(700, 0.0, 0.0),
                ]),
                vec![(200, 1200)],
            ),
            (
                "a 300 ms pause inside a sentence does not end it",
                cat(&[
                    tone(400, 0.0, 0.0),
                    tone(500, 0.3, 220.0),
                    tone(300, 0.0, 0.0),
                    tone(500, 0.3, 220.0),
                    tone(700, 0.0, 0.0),
                ]),
                vec![(200, 1700)],
            ),
            (
                "two utterances",
                cat(&[
                    tone(400, 0.0, 0.0),
                    tone(500, 0.3, 220.0),
                    tone(800, 0.0, 0.0),
                    tone(500, 0.3, 220.0),
                    tone(700, 0.0, 0.0),
                ]),
                vec![(200, 900), (1500, 2200)],
            ),
            (
                "a click is not speech",
                cat(&[
                    tone(400, 0.0, 0.0),
                    tone(40, 0.5, 220.0),
                    tone(700, 0.0, 0.0),
                ]),
                vec![],
            ),
            (
                "speech over steady noise",
                cat(&[
                    noise(600, 0.01),
                    {
                        let mut s = tone(800, 0.3, 220.0);
                        for (a, b) in s.iter_mut().zip(noise(800, 0.01)) {
                            *a = a.saturating_add(b);
                        }
                        s
                    },
                    noise(700, 0.01),
                ]),
                vec![(400, 1400)],
            ),
            (
                "speech at the very end is closed by the end of the stream",
                cat(&[tone(400, 0.0, 0.0), tone(600, 0.3, 220.0)]),
                vec![(200, 1000)],
            ),
        ];
        for (name, samples, want) in table {
            assert_eq!(spans(&samples), want, "{name}");
        }
    }

    #[test]
    fn chunking_does_not_change_the_result() {
        let audio = cat(&[
            tone(400, 0.0, 0.0),
            tone(800, 0.3, 220.0),
            tone(700, 0.0, 0.0),
        ]);
        let mut vad = Vad::new(Config::default());
        let mut events = Vec::new();
        for chunk in audio.chunks(123) {
            events.extend(vad.push(chunk));
        }
        events.extend(vad.finish());
        let whole = segments(&audio, Config::default());
        let streamed: Vec<Segment> = events
            .into_iter()
            .filter_map(|e| match e {
                VadEvent::Segment(s) => Some(s),
                _ => None,
            })
            .collect();
        assert_eq!(streamed, whole);
        // The segment keeps the pre-roll and 200 ms after the speech.
        assert_eq!(whole[0].samples.len(), (1200 - 200 + 200) * PER_MS);
    }

    #[test]
    fn an_endless_sound_is_cut_at_the_maximum() {
        let config = Config {
            max_segment_ms: 1000,
            floor_rise_db: 0.0,
            ..Config::default()
        };
        let audio = cat(&[tone(200, 0.0, 0.0), tone(2500, 0.3, 220.0)]);
        let got = segments(&audio, config);
        assert!(got.len() >= 2, "{}", got.len());
        assert!(got.iter().all(|s| ms_of(s.samples.len()) <= 1200));
    }
}

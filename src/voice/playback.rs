//! Circe's own speech going out: a playback sink that knows how much has really been *played*
//! (not merely received), and stops at once.
//!
//! A speech-to-speech provider sends its reply faster than real time, so most of a reply may be
//! buffered when the person interrupts; truncating the provider's record of the reply must use
//! the played position ([`Playback::played_ms`]), which [`PlayClock`] computes (pure: the time
//! is a parameter). [`PacedPlayback`] plays in real time into an [`AudioSink`], handing each
//! sample to the sink when its time comes; [`NullSink`] counts them (tests, and a node without a
//! loudspeaker).
//!
//! **Invariants:** PCM16 mono at 24 kHz; `stop` drops everything not yet played before it
//! returns, and the sink receives nothing more of that reply; the played position never exceeds
//! what was received.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// The playback rate: the Realtime API's output rate.
pub const PLAYBACK_HZ: u64 = 24_000;

const SAMPLES_PER_MS: u64 = PLAYBACK_HZ / 1000;

/// How often [`PacedPlayback`] hands samples to its sink.
pub const PACE: Duration = Duration::from_millis(10);

/// The most audio one reply may queue (10 minutes); beyond it, samples are dropped.
pub const MAX_QUEUED_SAMPLES: usize = 10 * 60 * PLAYBACK_HZ as usize;

/// Where Circe's speech goes: queue, report the played position, stop at once.
pub trait Playback: Send + Sync + 'static {
    /// A new reply begins: anything still queued is dropped and the position is back at zero.
    fn begin(&self);
    /// Queue PCM16 mono 24 kHz samples of the current reply.
    fn play(&self, pcm: &[i16]);
    /// Milliseconds of the current reply actually played.
    fn played_ms(&self) -> u64;
    /// Milliseconds of the current reply received.
    fn received_ms(&self) -> u64;
    /// Whether some of the current reply is still to be played.
    fn is_playing(&self) -> bool;
    /// Stop at once: drop what is not yet played; returns the played milliseconds.
    fn stop(&self) -> u64;
}

/// The played position of one reply played in real time (pure). Times are offsets from any
/// fixed origin; positions are in samples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayClock {
    received: u64,
    /// Samples played when the clock last (re)started.
    base: u64,
    /// When it last (re)started; `None` while stopped or never started.
    since: Option<Duration>,
}

impl PlayClock {
    pub fn new() -> PlayClock {
        PlayClock::default()
    }

    /// Samples arrive at `now`. After an underrun (everything received was already played)
    /// playing resumes from `now`.
    pub fn push(&mut self, samples: u64, now: Duration) {
        let played = self.played(now);
        if self.since.is_none() || played >= self.received {
            self.base = played;
            self.since = Some(now);
        }
        self.received += samples;
    }

    /// Samples played by `now`.
    pub fn played(&self, now: Duration) -> u64 {
        match self.since {
            None => self.base,
            Some(since) => {
                let elapsed = now.saturating_sub(since);
                let by_time = self.base + (elapsed.as_micros() as u64 * PLAYBACK_HZ) / 1_000_000;
                by_time.min(self.received)
            }
        }
    }

    pub fn received(&self) -> u64 {
        self.received
    }

    pub fn is_playing(&self, now: Duration) -> bool {
        self.played(now) < self.received
    }

    /// Stop at `now`: what was not played is forgotten. Returns the samples played.
    pub fn stop(&mut self, now: Duration) -> u64 {
        let played = self.played(now);
        self.received = played;
        self.base = played;
        self.since = None;
        played
    }
}

/// Whole milliseconds in `samples` at 24 kHz.
pub fn samples_to_ms(samples: u64) -> u64 {
    samples / SAMPLES_PER_MS
}

/// Where played samples go (a sound device, or nowhere).
pub trait AudioSink: Send + 'static {
    fn write(&mut self, pcm: &[i16]);
}

/// A sink that only counts what it was given.
#[derive(Clone, Debug, Default)]
pub struct NullSink {
    written: Arc<AtomicU64>,
}

impl NullSink {
    pub fn new() -> NullSink {
        NullSink::default()
    }

    /// Samples written so far (shared with every clone).
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::SeqCst)
    }
}

impl AudioSink for NullSink {
    fn write(&mut self, pcm: &[i16]) {
        self.written.fetch_add(pcm.len() as u64, Ordering::SeqCst);
    }
}

struct Inner {
    clock: PlayClock,
    queue: VecDeque<i16>,
    /// Samples of the current reply handed to the sink.
    handed: u64,
    origin: tokio::time::Instant,
}

impl Inner {
    fn now(&self) -> Duration {
        tokio::time::Instant::now().saturating_duration_since(self.origin)
    }
}

/// Plays in real time into a sink: a task hands the sink each sample once its time has come
/// (every [`PACE`]), so the sink never holds more than one pace of audio ahead of the clock.
pub struct PacedPlayback {
    inner: Arc<Mutex<Inner>>,
}

impl PacedPlayback {
    /// Start playing into `sink` (needs a tokio runtime; the task ends when this is dropped).
    pub fn new(sink: impl AudioSink) -> PacedPlayback {
        let inner = Arc::new(Mutex::new(Inner {
            clock: PlayClock::new(),
            queue: VecDeque::new(),
            handed: 0,
            origin: tokio::time::Instant::now(),
        }));
        tokio::spawn(pace(Arc::downgrade(&inner), sink));
        PacedPlayback { inner }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

async fn pace(inner: Weak<Mutex<Inner>>, mut sink: impl AudioSink) {
    let mut tick = tokio::time::interval(PACE);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut chunk = Vec::new();
    loop {
        tick.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        {
            let mut g = inner.lock().unwrap_or_else(|e| e.into_inner());
            let now = g.now();
            let due = g.clock.played(now).saturating_sub(g.handed) as usize;
            let n = due.min(g.queue.len());
            chunk.clear();
            chunk.extend(g.queue.drain(..n));
            g.handed += n as u64;
        }
        if !chunk.is_empty() {
            sink.write(&chunk);
        }
    }
}

impl Playback for PacedPlayback {
    fn begin(&self) {
        let mut g = self.lock();
        g.clock = PlayClock::new();
        g.queue.clear();
        g.handed = 0;
    }

    fn play(&self, pcm: &[i16]) {
        let mut g = self.lock();
        let room = MAX_QUEUED_SAMPLES.saturating_sub(g.queue.len());
        let pcm = &pcm[..pcm.len().min(room)];
        let now = g.now();
        g.clock.push(pcm.len() as u64, now);
        g.queue.extend(pcm.iter().copied());
    }

    fn played_ms(&self) -> u64 {
        let g = self.lock();
        samples_to_ms(g.clock.played(g.now()))
    }

    fn received_ms(&self) -> u64 {
        samples_to_ms(self.lock().clock.received())
    }

    fn is_playing(&self) -> bool {
        let g = self.lock();
        g.clock.is_playing(g.now())
    }

    fn stop(&self) -> u64 {
        let mut g = self.lock();
        let now = g.now();
        let played = g.clock.stop(now);
        g.queue.clear();
        // The sink gets nothing more of this reply, even what was due but not yet handed over.
        g.handed = played;
        samples_to_ms(played)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_clock_counts_played_not_received() {
        // (action, time ms, samples pushed) → played samples expected after it
        let mut c = PlayClock::new();
        assert_eq!(c.played(ms(0)), 0);
        assert!(!c.is_playing(ms(0)));
        c.push(24_000 * 3, ms(100)); // 3 s arrive at once
        let table: &[(u64, u64)] = &[
            (100, 0),
            (110, 240),
            (600, 12_000),
            (3_100, 72_000),
            (9_000, 72_000),
        ];
        for &(t, want) in table {
            assert_eq!(c.played(ms(t)), want, "at {t} ms");
        }
        assert_eq!(c.received(), 72_000);
        assert!(!c.is_playing(ms(3_100)));
    }

    #[test]
    fn an_underrun_resumes_from_the_new_audio() {
        let mut c = PlayClock::new();
        c.push(2_400, ms(0)); // 100 ms
        assert_eq!(c.played(ms(500)), 2_400);
        c.push(2_400, ms(500)); // more, after a gap
        assert_eq!(c.played(ms(550)), 2_400 + 1_200);
        // Audio arriving while playing does not restart the clock.
        c.push(2_400, ms(560));
        assert_eq!(c.played(ms(650)), 2_400 + 3_600);
        assert_eq!(c.played(ms(2_000)), 7_200);
    }

    #[test]
    fn stop_keeps_the_played_position_and_forgets_the_rest() {
        let mut c = PlayClock::new();
        c.push(24_000, ms(0));
        assert_eq!(c.stop(ms(250)), 6_000);
        assert_eq!(c.played(ms(900)), 6_000);
        assert_eq!(c.received(), 6_000);
        assert!(!c.is_playing(ms(900)));
        assert_eq!(samples_to_ms(6_000), 250);
    }

    /// Real time on a shared machine: every bound is relative to the time measured around it
    /// (the exact arithmetic is `PlayClock`'s, tested above).
    #[tokio::test]
    async fn paced_playback_hands_samples_over_in_real_time_and_stops_at_once() {
        let sink = NullSink::new();
        let p = PacedPlayback::new(sink.clone());
        p.begin();
        let t0 = tokio::time::Instant::now();
        p.play(&vec![7; 24_000]); // 1 s
        assert!(p.is_playing());
        tokio::time::sleep(ms(300)).await;
        let played = p.played_ms();
        let elapsed = t0.elapsed().as_millis() as u64;
        assert!(
            played <= elapsed && played + 20 >= 300,
            "{played} ms played after {elapsed} ms"
        );
        let written = sink.written();
        // The sink is never ahead of the clock by more than one pace.
        assert!(
            written <= played * 24 + 240,
            "{written} samples written, {played} ms played"
        );
        assert!(written > 0);
        assert_eq!(p.received_ms(), 1_000);
        let stopped = p.stop();
        let elapsed = t0.elapsed().as_millis() as u64;
        assert!(
            stopped >= played && stopped <= elapsed,
            "{stopped} vs {played}, {elapsed}"
        );
        assert!(!p.is_playing());
        assert_eq!(p.received_ms(), stopped);
        let at_stop = sink.written();
        tokio::time::sleep(ms(200)).await;
        assert_eq!(sink.written(), at_stop, "the sink got audio after stop");
        assert_eq!(p.played_ms(), stopped);
        assert!(at_stop <= stopped * 24 + 24);
        // A new reply starts from zero and ends when played.
        p.begin();
        let t1 = tokio::time::Instant::now();
        p.play(&[1; 2_400]);
        assert!(p.played_ms() <= t1.elapsed().as_millis() as u64);
        tokio::time::sleep(ms(200)).await;
        assert_eq!(p.played_ms(), 100);
        assert!(!p.is_playing());
    }
}

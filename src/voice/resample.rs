//! PCM16 mono resampling between the local recognisers' 16 kHz and the Realtime API's 24 kHz
//! (3:2 and 2:3), pure and streaming.
//!
//! A rational polyphase resampler: conceptually the input is upsampled by `L` (zeros between
//! samples), low-passed at the intermediate rate (48 kHz for 16↔24 kHz) below the lower of the two
//! Nyquist frequencies, and every `M`-th sample kept. Only the taps that meet a real input sample
//! are computed. The filter is a Blackman-windowed sinc (`40·max(L, M) + 1` taps: 121 for 3:2,
//! about 74 dB stopband), cut at 0.46 of the lower rate (7.36 kHz for 16 kHz), so content between
//! 8 and 12 kHz in 24 kHz audio does not fold back into speech, and the images of upsampling are
//! removed. Each polyphase branch is normalized to a gain of exactly one, so DC is preserved, and
//! the stream is extended with its first and last samples at the edges (no fade in or out).
//!
//! Output sample `k` sits at input time `k·M/L` (the filter's delay is compensated), so `n` input
//! samples give `ceil(n·L/M)` output samples once [`Resampler::flush`] is called; while streaming,
//! the output lags by half the filter (about 1.3 ms).
//!
//! **Invariants:** pure (no I/O, no clock); chunking does not change the output.

use std::collections::VecDeque;

/// The rates Circe resamples between.
pub const LOCAL_HZ: u32 = 16_000;
pub const REALTIME_HZ: u32 = 24_000;

/// The largest up or down factor accepted (the filter grows with it).
const MAX_FACTOR: u64 = 8;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResampleError {
    #[error("cannot resample from {from} Hz to {to} Hz: the ratio is not a small fraction (at most {MAX_FACTOR}:{MAX_FACTOR} after reduction)")]
    Ratio { from: u32, to: u32 },
}

/// A streaming resampler for one audio stream.
#[derive(Debug, Clone)]
pub struct Resampler {
    up: u64,
    down: u64,
    /// Half the filter length: the filter's delay at the intermediate rate.
    delay: u64,
    /// For each phase `r` (`0..up`): the taps `j` with `j % up == r` and their normalized weights.
    phases: Vec<Vec<(u64, f32)>>,
    /// Input samples still needed, the first being absolute index `base`.
    buf: VecDeque<f32>,
    base: u64,
    /// Input samples received in all.
    received: u64,
    /// The next output sample's index.
    next: u64,
    first: Option<f32>,
    last: f32,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Resampler {
    /// A resampler from `from` Hz to `to` Hz.
    pub fn new(from: u32, to: u32) -> Result<Resampler, ResampleError> {
        if from == 0 || to == 0 {
            return Err(ResampleError::Ratio { from, to });
        }
        let g = gcd(from as u64, to as u64);
        let (up, down) = (to as u64 / g, from as u64 / g);
        if up > MAX_FACTOR || down > MAX_FACTOR {
            return Err(ResampleError::Ratio { from, to });
        }
        let taps = if up == 1 && down == 1 {
            1
        } else {
            40 * up.max(down) + 1
        };
        let delay = (taps - 1) / 2;
        // Cut-off as a fraction of the intermediate rate (from · up).
        let intermediate = from as f64 * up as f64;
        let cutoff = 0.46 * from.min(to) as f64 / intermediate;
        let mut phases = vec![Vec::new(); up as usize];
        for j in 0..taps {
            let weight = if taps == 1 {
                1.0
            } else {
                let n = j as f64 - delay as f64;
                let sinc = if n == 0.0 {
                    2.0 * cutoff
                } else {
                    (2.0 * std::f64::consts::PI * cutoff * n).sin() / (std::f64::consts::PI * n)
                };
                let x = 2.0 * std::f64::consts::PI * j as f64 / (taps - 1) as f64;
                let window = 0.42 - 0.5 * x.cos() + 0.08 * (2.0 * x).cos();
                sinc * window
            };
            phases[(j % up) as usize].push((j, weight));
        }
        let phases = phases
            .into_iter()
            .map(|taps| {
                let sum: f64 = taps.iter().map(|&(_, w)| w).sum();
                taps.into_iter()
                    .map(|(j, w)| (j, (w / sum) as f32))
                    .collect()
            })
            .collect();
        Ok(Resampler {
            up,
            down,
            delay,
            phases,
            buf: VecDeque::new(),
            base: 0,
            received: 0,
            next: 0,
            first: None,
            last: 0.0,
        })
    }

    /// 16 kHz (the local recognisers) to 24 kHz (the Realtime API).
    pub fn up_16k_to_24k() -> Resampler {
        Resampler::new(LOCAL_HZ, REALTIME_HZ).expect("3:2 is supported")
    }

    /// 24 kHz (the Realtime API) to 16 kHz.
    pub fn down_24k_to_16k() -> Resampler {
        Resampler::new(REALTIME_HZ, LOCAL_HZ).expect("2:3 is supported")
    }

    /// How many output samples `n` input samples give in all.
    pub fn output_len(&self, n: u64) -> u64 {
        (n * self.up).div_ceil(self.down)
    }

    /// Feed a chunk; returns the output samples that are complete.
    pub fn process(&mut self, input: &[i16]) -> Vec<i16> {
        if let (None, Some(&s)) = (self.first, input.first()) {
            self.first = Some(s as f32);
        }
        if let Some(&s) = input.last() {
            self.last = s as f32;
        }
        self.buf.extend(input.iter().map(|&s| s as f32));
        self.received += input.len() as u64;
        let mut out = Vec::with_capacity((input.len() as u64 * self.up / self.down + 1) as usize);
        self.produce(false, &mut out);
        out
    }

    /// End the stream: the remaining output (the edge extended with the last sample), and the
    /// resampler is ready for a new stream.
    pub fn flush(&mut self) -> Vec<i16> {
        let mut out = Vec::new();
        self.produce(true, &mut out);
        self.reset();
        out
    }

    /// Forget the stream without producing its tail.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.base = 0;
        self.received = 0;
        self.next = 0;
        self.first = None;
        self.last = 0.0;
    }

    fn sample(&self, i: i64) -> f32 {
        if i < 0 {
            self.first.unwrap_or(0.0)
        } else if i as u64 >= self.received {
            self.last
        } else {
            self.buf[(i as u64 - self.base) as usize]
        }
    }

    fn produce(&mut self, flushing: bool, out: &mut Vec<i16>) {
        let total = self.output_len(self.received);
        loop {
            let center = self.next * self.down + self.delay;
            let ready = if flushing {
                self.next < total
            } else {
                center / self.up < self.received
            };
            if !ready {
                break;
            }
            let phase = &self.phases[(center % self.up) as usize];
            let mut acc = 0.0f32;
            for &(j, w) in phase {
                // Exact: center − j is a multiple of `up` in this phase.
                let i = (center as i64 - j as i64) / self.up as i64;
                acc += w * self.sample(i);
            }
            out.push(acc.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16);
            self.next += 1;
        }
        // Drop the input no later output needs: the oldest tap of output `next`.
        let oldest = (self.next * self.down).saturating_sub(self.delay) / self.up;
        while self.base < oldest && !self.buf.is_empty() {
            self.buf.pop_front();
            self.base += 1;
        }
    }
}

/// Resample a whole clip.
pub fn resample(input: &[i16], from: u32, to: u32) -> Result<Vec<i16>, ResampleError> {
    let mut r = Resampler::new(from, to)?;
    let mut out = r.process(input);
    out.extend(r.flush());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(hz: f64, rate: u32, n: usize, amplitude: f64) -> Vec<i16> {
        (0..n)
            .map(|i| {
                (amplitude * (2.0 * std::f64::consts::PI * hz * i as f64 / rate as f64).sin())
                    .round() as i16
            })
            .collect()
    }

    fn rms(x: &[i16]) -> f64 {
        (x.iter().map(|&s| (s as f64).powi(2)).sum::<f64>() / x.len() as f64).sqrt()
    }

    /// The amplitude of the `hz` component (Goertzel, normalized so a sine of amplitude A gives A).
    fn amplitude_at(x: &[i16], hz: f64, rate: u32) -> f64 {
        let w = 2.0 * std::f64::consts::PI * hz / rate as f64;
        let (mut s1, mut s2) = (0.0f64, 0.0f64);
        for &v in x {
            let s0 = v as f64 + 2.0 * w.cos() * s1 - s2;
            s2 = s1;
            s1 = s0;
        }
        let power = s1 * s1 + s2 * s2 - 2.0 * w.cos() * s1 * s2;
        2.0 * power.sqrt() / x.len() as f64
    }

    /// Frequency from upward zero crossings (interpolated), over the whole clip.
    fn frequency(x: &[i16], rate: u32) -> f64 {
        let mut crossings = Vec::new();
        for i in 1..x.len() {
            let (a, b) = (x[i - 1] as f64, x[i] as f64);
            if a < 0.0 && b >= 0.0 {
                crossings.push(i as f64 - 1.0 + (-a) / (b - a));
            }
        }
        let span = crossings.last().unwrap() - crossings.first().unwrap();
        (crossings.len() - 1) as f64 * rate as f64 / span
    }

    #[test]
    fn lengths() {
        let cases: &[(u32, u32, usize, usize)] = &[
            (16_000, 24_000, 0, 0),
            (16_000, 24_000, 1, 2),
            (16_000, 24_000, 2, 3),
            (16_000, 24_000, 320, 480),
            (16_000, 24_000, 16_000, 24_000),
            (16_000, 24_000, 16_001, 24_002),
            (24_000, 16_000, 1, 1),
            (24_000, 16_000, 3, 2),
            (24_000, 16_000, 480, 320),
            (24_000, 16_000, 24_000, 16_000),
            (16_000, 16_000, 777, 777),
        ];
        for &(from, to, n, want) in cases {
            let out = resample(&vec![100; n], from, to).unwrap();
            assert_eq!(out.len(), want, "{from} → {to}, {n} samples");
        }
    }

    #[test]
    fn unsupported_ratios_are_refused() {
        for (from, to) in [(16_000, 44_100), (0, 16_000), (16_000, 0)] {
            assert_eq!(
                Resampler::new(from, to).unwrap_err(),
                ResampleError::Ratio { from, to }
            );
        }
        assert!(Resampler::new(48_000, 16_000).is_ok());
    }

    #[test]
    fn dc_is_preserved_everywhere() {
        for (from, to) in [(16_000, 24_000), (24_000, 16_000)] {
            for level in [1234i16, -20_000, 0, i16::MAX] {
                let out = resample(&vec![level; 1000], from, to).unwrap();
                for (i, &s) in out.iter().enumerate() {
                    assert!(
                        (s as i32 - level as i32).abs() <= 1,
                        "{from}→{to} level {level}: sample {i} is {s}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_sines_frequency_and_level_are_preserved() {
        let cases: &[(u32, u32, f64)] = &[
            (16_000, 24_000, 440.0),
            (16_000, 24_000, 1_000.0),
            (16_000, 24_000, 3_000.0),
            (16_000, 24_000, 6_000.0),
            (24_000, 16_000, 440.0),
            (24_000, 16_000, 3_000.0),
            (24_000, 16_000, 6_000.0),
        ];
        for &(from, to, hz) in cases {
            let input = sine(hz, from, from as usize / 2, 10_000.0);
            let out = resample(&input, from, to).unwrap();
            let f = frequency(&out, to);
            assert!(
                (f - hz).abs() / hz < 0.002,
                "{from}→{to}: {hz} Hz came out at {f:.1} Hz"
            );
            let gain = rms(&out) / rms(&input);
            assert!(
                (gain - 1.0).abs() < 0.03,
                "{from}→{to}: {hz} Hz gain {gain:.3}"
            );
        }
    }

    #[test]
    fn what_the_lower_rate_cannot_carry_does_not_alias() {
        // 10 kHz at 24 kHz would fold to 6 kHz at 16 kHz; it must be filtered out.
        let input = sine(10_000.0, 24_000, 12_000, 10_000.0);
        let out = resample(&input, 24_000, 16_000).unwrap();
        assert!(
            amplitude_at(&out, 6_000.0, 16_000) < 10.0,
            "alias at 6 kHz: {}",
            amplitude_at(&out, 6_000.0, 16_000)
        );
        assert!(rms(&out) < 0.01 * rms(&input), "rms {}", rms(&out));
        // Upsampling 3 kHz makes images at 13 and 19 kHz (48 kHz intermediate), which would
        // land at 11 and 5 kHz: they must be gone.
        let input = sine(3_000.0, 16_000, 8_000, 10_000.0);
        let out = resample(&input, 16_000, 24_000).unwrap();
        let tone = amplitude_at(&out, 3_000.0, 24_000);
        assert!((tone - 10_000.0).abs() < 300.0, "tone {tone}");
        for image in [5_000.0, 11_000.0] {
            let a = amplitude_at(&out, image, 24_000);
            assert!(a < 10.0, "image at {image} Hz: {a}");
        }
    }

    #[test]
    fn chunking_does_not_change_the_output() {
        let input = sine(1_234.0, 16_000, 4_000, 12_000.0);
        let whole = resample(&input, 16_000, 24_000).unwrap();
        for chunk in [1, 7, 160, 333, 4_000] {
            let mut r = Resampler::up_16k_to_24k();
            let mut out = Vec::new();
            for c in input.chunks(chunk) {
                out.extend(r.process(c));
            }
            assert!(out.len() <= whole.len());
            out.extend(r.flush());
            assert_eq!(out, whole, "chunks of {chunk}");
        }
        // After a flush the resampler starts a new stream.
        let mut r = Resampler::down_24k_to_16k();
        let mut first = r.process(&input);
        first.extend(r.flush());
        let mut second = r.process(&input);
        second.extend(r.flush());
        assert_eq!(first, second);
    }

    #[test]
    fn the_streaming_lag_is_small() {
        let mut r = Resampler::up_16k_to_24k();
        let out = r.process(&[0; 320]);
        // 20 ms in; all but about 1.3 ms of output is available at once.
        assert!(out.len() >= 480 - 32 && out.len() < 480, "{}", out.len());
    }
}

//! Audio in: a WAV file's bytes to 16 kHz mono samples, with a clear error for anything else.
//!
//! Pure: bytes in, samples or an error out. Circe's recogniser takes 16-bit PCM, mono, 16 kHz
//! (what `sox in.wav -r 16000 -c 1 -b 16 out.wav` makes); other formats are refused, never
//! guessed at or resampled silently.

/// The one sample rate the recognisers take.
pub const RATE: u32 = 16_000;
/// Samples per millisecond at [`RATE`].
pub const PER_MS: usize = (RATE / 1000) as usize;
/// The longest audio accepted in one go (a request, not a dictation).
pub const MAX_AUDIO_MS: u64 = 60_000;

/// Why audio was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AudioError {
    #[error("not a WAV file ({0})")]
    NotWav(&'static str),
    #[error("the WAV file is {0}; Circe takes 16-bit PCM (convert with: sox in.wav -r 16000 -c 1 -b 16 out.wav)")]
    Format(String),
    #[error("the WAV file is {got} Hz; Circe takes {RATE} Hz (convert with: sox in.wav -r 16000 -c 1 -b 16 out.wav)")]
    Rate { got: u32 },
    #[error("the WAV file has {got} channels; Circe takes mono (convert with: sox in.wav -r 16000 -c 1 -b 16 out.wav)")]
    Channels { got: u16 },
    #[error("the audio is {ms} ms long; the limit is {MAX_AUDIO_MS} ms")]
    TooLong { ms: u64 },
}

/// Milliseconds of `samples` at [`RATE`].
pub fn ms_of(samples: usize) -> u64 {
    samples as u64 * 1000 / u64::from(RATE)
}

/// The samples of a 16-bit PCM mono 16 kHz WAV file.
pub fn parse_wav(bytes: &[u8]) -> Result<Vec<i16>, AudioError> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(AudioError::NotWav("no RIFF/WAVE header"));
    }
    let mut pos = 12;
    let mut format: Option<(u16, u16, u32, u16)> = None;
    while pos + 8 <= bytes.len() {
        let id = &bytes[pos..pos + 4];
        let size = u32::from_le_bytes([
            bytes[pos + 4],
            bytes[pos + 5],
            bytes[pos + 6],
            bytes[pos + 7],
        ]) as usize;
        let body = pos + 8;
        // sox and others write 0xFFFFFFFF (or too much) as the data size when streaming.
        let end = body.saturating_add(size).min(bytes.len());
        match id {
            b"fmt " => {
                if end - body < 16 {
                    return Err(AudioError::NotWav("a short fmt chunk"));
                }
                let f = &bytes[body..end];
                let tag = u16::from_le_bytes([f[0], f[1]]);
                let channels = u16::from_le_bytes([f[2], f[3]]);
                let rate = u32::from_le_bytes([f[4], f[5], f[6], f[7]]);
                let bits = u16::from_le_bytes([f[14], f[15]]);
                // WAVE_FORMAT_EXTENSIBLE keeps the real tag in its sub-format GUID.
                let tag = if tag == 0xFFFE && f.len() >= 26 {
                    u16::from_le_bytes([f[24], f[25]])
                } else {
                    tag
                };
                format = Some((tag, channels, rate, bits));
            }
            b"data" => {
                let (tag, channels, rate, bits) =
                    format.ok_or(AudioError::NotWav("data before the fmt chunk"))?;
                if tag != 1 || bits != 16 {
                    let what = if tag == 3 {
                        format!("{bits}-bit float")
                    } else if tag == 1 {
                        format!("{bits}-bit PCM")
                    } else {
                        format!("encoded (format tag {tag})")
                    };
                    return Err(AudioError::Format(what));
                }
                if channels != 1 {
                    return Err(AudioError::Channels { got: channels });
                }
                if rate != RATE {
                    return Err(AudioError::Rate { got: rate });
                }
                let data = &bytes[body..end];
                let n = data.len() / 2;
                let ms = ms_of(n);
                if ms > MAX_AUDIO_MS {
                    return Err(AudioError::TooLong { ms });
                }
                return Ok(data
                    .chunks_exact(2)
                    .map(|b| i16::from_le_bytes([b[0], b[1]]))
                    .collect());
            }
            _ => {}
        }
        // Chunks are padded to an even size.
        pos = body.saturating_add(size).saturating_add(size & 1);
    }
    Err(AudioError::NotWav("no data chunk"))
}

/// A WAV file of 16-bit PCM mono 16 kHz samples (for tests, benches and recordings).
pub fn wav_bytes(samples: &[i16]) -> Vec<u8> {
    let data = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&RATE.to_le_bytes());
    out.extend_from_slice(&(RATE * 2).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// Samples as the recogniser's floats in [-1, 1].
pub fn to_f32(samples: &[i16]) -> Vec<f32> {
    samples.iter().map(|&s| f32::from(s) / 32768.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_format(tag: u16, channels: u16, rate: u32, bits: u16) -> Vec<u8> {
        let mut w = wav_bytes(&[1, -2, 3]);
        w[20..22].copy_from_slice(&tag.to_le_bytes());
        w[22..24].copy_from_slice(&channels.to_le_bytes());
        w[24..28].copy_from_slice(&rate.to_le_bytes());
        w[34..36].copy_from_slice(&bits.to_le_bytes());
        w
    }

    #[test]
    fn wav_files_are_read_or_refused_with_the_reason() {
        let long = wav_bytes(&vec![0i16; (MAX_AUDIO_MS as usize + 1) * PER_MS]);
        type Case = (Vec<u8>, Result<Vec<i16>, AudioError>);
        let table: Vec<Case> = vec![
            (wav_bytes(&[1, -2, 3]), Ok(vec![1, -2, 3])),
            (
                b"hello".to_vec(),
                Err(AudioError::NotWav("no RIFF/WAVE header")),
            ),
            (
                with_format(1, 1, 44_100, 16),
                Err(AudioError::Rate { got: 44_100 }),
            ),
            (
                with_format(1, 2, RATE, 16),
                Err(AudioError::Channels { got: 2 }),
            ),
            (
                with_format(3, 1, RATE, 32),
                Err(AudioError::Format("32-bit float".into())),
            ),
            (
                with_format(1, 1, RATE, 8),
                Err(AudioError::Format("8-bit PCM".into())),
            ),
            (
                wav_bytes(&[])[..36].to_vec(),
                Err(AudioError::NotWav("no data chunk")),
            ),
            (
                long,
                Err(AudioError::TooLong {
                    ms: MAX_AUDIO_MS + 1,
                }),
            ),
        ];
        for (bytes, want) in table {
            assert_eq!(parse_wav(&bytes), want);
        }
    }

    #[test]
    fn a_streamed_data_size_and_extra_chunks_are_read() {
        let mut w = wav_bytes(&[7, 8]);
        // A LIST chunk (odd size, padded) before data, and a streaming data size.
        let list = [b"LIST".as_slice(), &3u32.to_le_bytes(), b"abc\0"].concat();
        w.splice(36..36, list);
        let data_size = 36 + 12 + 4;
        w[data_size..data_size + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(parse_wav(&w), Ok(vec![7, 8]));
        assert_eq!(ms_of(16_000), 1000);
        assert_eq!(to_f32(&[-32768, 0]), vec![-1.0, 0.0]);
    }
}

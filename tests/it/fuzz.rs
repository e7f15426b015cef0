//! The three fuzz targets of issue 11 (the control-line parser, the native-messaging framing, the
//! mesh's first message) as deterministic property tests: seeded mutations of valid inputs, run
//! against the parsers and against a real `circe serve`. `CIRCE_FUZZ_SEED` replays a seed,
//! `CIRCE_FUZZ_CASES` runs more cases; a failure names its seed and case.
//!
//! Why not `cargo fuzz`: it is not installed on this machine, and an instrumented nightly build of
//! the whole crate (candle, tokenizers, SQLite) does not fit the build budget here; these run in
//! the ordinary suite, in bounded time, on every run.

use crate::util::*;
use std::time::Duration;

/// xorshift64*: small, seeded, the same everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn seed() -> u64 {
    std::env::var("CIRCE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x11_c1_2c_e0)
}

fn cases(default: usize) -> usize {
    std::env::var("CIRCE_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Pieces that break parsers: quotes, brackets, escapes, numbers at the edges, odd UTF-8.
const TOKENS: &[&str] = &[
    "\"",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\\",
    "\\u0000",
    "\\ud800",
    "null",
    "true",
    "-0",
    "1e309",
    "18446744073709551616",
    "-1",
    "\u{0}",
    "\u{feff}",
    "é",
    "\u{10ffff}",
    "\"verb\"",
    "\"id\"",
    "\"type\"",
    "\"interrupt\"",
    "\"state\"",
    "\"submit\"",
    "\"auth\"",
    "\"pair\"",
];

/// One mutation of `input` (bytes flipped, inserted, deleted, duplicated, spliced with another
/// seed, truncated, or nested deep).
pub fn mutate(rng: &mut Rng, input: &[u8], seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(8) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = rng.pick(TOKENS).as_bytes().to_vec();
                v.splice(at..at, t);
            }
            2 if !v.is_empty() => {
                let end = (at + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            3 if !v.is_empty() => {
                let start = rng.below(v.len());
                let end = (start + rng.below(32)).min(v.len());
                let piece = v[start..end].to_vec();
                v.splice(at..at, piece);
            }
            4 => {
                let other = rng.pick(seeds);
                let cut = rng.below(other.len() + 1);
                v.truncate(at);
                v.extend_from_slice(&other[cut..]);
            }
            5 => v.truncate(at),
            6 => {
                let depth = 1 + rng.below(300);
                let mut nested = "[".repeat(depth).into_bytes();
                nested.extend(std::iter::repeat_n(b']', rng.below(depth + 1)));
                v.splice(at..at, nested);
            }
            _ => {
                let b = rng.next() as u8;
                v.insert(at, b);
            }
        }
    }
    v
}

fn control_seeds() -> Vec<Vec<u8>> {
    [
        r#"{"id":1,"verb":"state"}"#,
        r#"{"id":2,"verb":"state","operations":3}"#,
        r#"{"id":3,"verb":"interrupt","operation":null,"device":"cli"}"#,
        r#"{"id":4,"verb":"interrupt","operation":"6b1c9a54-2d6e-4a41-9f0e-2b8d1c7e3f10","device":"cli"}"#,
        r#"{"id":5,"verb":"submit","input":{"id":"0f8e2d1c-3b4a-4c5d-8e6f-7a8b9c0d1e2f","device":"cli","text":"zzz","mode":"typed"}}"#,
        r#"{"id":6,"node":"desk","verb":"state"}"#,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}

#[test]
fn fuzz_control_line_parser() {
    use circe::daemon::control::{Lines, MAX_IN_FLIGHT};
    let seed = seed();
    let mut rng = Rng::new(seed);
    let seeds = control_seeds();
    for s in &seeds {
        let line = String::from_utf8(s.clone()).unwrap();
        assert!(
            circe::protocol::RequestLine::parse(&line).parsed.is_ok(),
            "seed {line}"
        );
    }
    // The parser alone: never a panic; every refusal is `malformed_request`.
    let n = cases(20_000);
    for case in 0..n {
        let input = mutated(&mut rng, &seeds);
        let line = String::from_utf8_lossy(&input);
        if let Err(e) = circe::protocol::RequestLine::parse(&line).parsed {
            assert_eq!(
                e.code.as_str(),
                "malformed_request",
                "seed {seed} case {case}: {line:?}"
            );
        }
    }
    // The line reader: any chunking, lines over the cap refused by size, the rest exact.
    rt().block_on(async {
        for case in 0..cases(300) {
            let max = 64 + rng.below(512);
            let mut lines = Vec::new();
            let mut bytes = Vec::new();
            for _ in 0..1 + rng.below(20) {
                let len = rng.below(max * 2);
                let line: Vec<u8> = (0..len).map(|_| b'a' + (rng.next() % 26) as u8).collect();
                bytes.extend(&line);
                bytes.push(b'\n');
                lines.push(line);
            }
            let (mut w, r) = tokio::io::duplex(1 + rng.below(64));
            let chunks: Vec<usize> = (0..bytes.len()).map(|_| 1 + rng.below(97)).collect();
            let writer = tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let mut at = 0;
                for c in chunks {
                    if at >= bytes.len() {
                        break;
                    }
                    let end = (at + c).min(bytes.len());
                    if w.write_all(&bytes[at..end]).await.is_err() {
                        return;
                    }
                    at = end;
                }
            });
            let mut reader = Lines::new(r, max);
            for (i, want) in lines.iter().enumerate() {
                match reader.next().await.unwrap() {
                    Some(Ok(got)) => {
                        assert!(
                            want.len() <= max,
                            "seed {seed} case {case} line {i}: over the cap yet read"
                        );
                        assert_eq!(
                            got.as_bytes(),
                            &want[..],
                            "seed {seed} case {case} line {i}"
                        );
                    }
                    Some(Err(size)) => {
                        assert!(
                            want.len() > max && size > max,
                            "seed {seed} case {case} line {i}: {size} for {} (max {max})",
                            want.len()
                        );
                        break; // the connection is closed after an over-long line
                    }
                    None => panic!("seed {seed} case {case}: stream ended early"),
                }
            }
            writer.abort();
        }
    });
    // A real daemon: every mutated line on one connection gets exactly one reply, nothing
    // panics, and it answers afterwards.
    let d = Daemon::start("");
    rt().block_on(async {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let stream = tokio::net::UnixStream::connect(d.socket()).await.unwrap();
        let (r, mut w) = stream.into_split();
        let mut sent = 0usize;
        let mut lines_out = Vec::new();
        for _ in 0..cases(1500) {
            let mut input = mutated(&mut rng, &seeds);
            input.retain(|b| *b != b'\n');
            if String::from_utf8_lossy(&input).trim().is_empty() {
                continue;
            }
            sent += 1;
            input.push(b'\n');
            lines_out.push(input);
        }
        let writer = tokio::spawn(async move {
            for l in lines_out {
                w.write_all(&l).await.unwrap();
            }
            w
        });
        let mut reader = tokio::io::BufReader::new(r).lines();
        let mut replies = 0;
        while replies < sent {
            let line = tokio::time::timeout(Duration::from_secs(20), reader.next_line())
                .await
                .unwrap_or_else(|_| panic!("seed {seed}: {replies} replies of {sent} within 20 s"))
                .unwrap()
                .unwrap_or_else(|| {
                    panic!("seed {seed}: closed after {replies} of {sent}: {}", d.log())
                });
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v.get("id").is_some() {
                replies += 1;
            }
        }
        let _ = writer.await;
        assert!(sent > MAX_IN_FLIGHT, "more lines than places in flight");
        let _ = d.state().await;
    });
    assert!(!d.log().contains("panicked"), "{}", d.log());
}

/// A mutation of one of `seeds`, picked at random.
fn mutated(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let i = rng.below(seeds.len());
    mutate(rng, &seeds[i], seeds)
}

#[test]
fn fuzz_native_messaging_framing() {
    use circe::browser::framing::{read_frame, write_frame, FrameError, Order};
    let seed = seed();
    let mut rng = Rng::new(seed ^ 0xf4a3);
    rt().block_on(async {
        for case in 0..cases(2_000) {
            let order = if rng.below(2) == 0 {
                Order::Native
            } else {
                Order::Little
            };
            let max = 1 + rng.below(4096);
            // Frames within the cap, then maybe one damaged: a length over the cap, or cut short.
            let frames: Vec<Vec<u8>> = (0..rng.below(8))
                .map(|_| (0..rng.below(max + 1)).map(|_| rng.next() as u8).collect())
                .collect();
            let mut bytes = Vec::new();
            for f in &frames {
                write_frame(&mut bytes, f, max, order).await.unwrap();
            }
            let damage = rng.below(3);
            match damage {
                1 => {
                    let len = (max + 1 + rng.below(1 << 20)) as u32;
                    let prefix = match order {
                        Order::Native => len.to_ne_bytes(),
                        Order::Little => len.to_le_bytes(),
                    };
                    bytes.extend(prefix);
                }
                2 => {
                    let len = (1 + rng.below(max)) as u32;
                    let prefix = match order {
                        Order::Native => len.to_ne_bytes(),
                        Order::Little => len.to_le_bytes(),
                    };
                    bytes.extend(prefix);
                    bytes.extend((0..rng.below(len as usize)).map(|_| rng.next() as u8));
                }
                _ => {}
            }
            let (mut w, mut r) = tokio::io::duplex(1 + rng.below(256));
            let chunk = 1 + rng.below(300);
            let writer = tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                for piece in bytes.chunks(chunk) {
                    if w.write_all(piece).await.is_err() {
                        return;
                    }
                }
            });
            for (i, want) in frames.iter().enumerate() {
                let got = read_frame(&mut r, max, order).await;
                assert_eq!(
                    got.unwrap().as_deref(),
                    Some(&want[..]),
                    "seed {seed} case {case} frame {i}"
                );
            }
            let last = read_frame(&mut r, max, order).await;
            match (damage, last) {
                (0, Ok(None)) => {}
                (1, Err(FrameError::TooLarge { size, max: m })) => {
                    assert!(size > m, "seed {seed} case {case}")
                }
                (2, Err(FrameError::Io(_))) => {}
                (d, other) => panic!("seed {seed} case {case}: damage {d} read as {other:?}"),
            }
            let _ = writer.await;
        }
    });
}

#[test]
fn fuzz_mesh_first_message() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let seed = seed();
    let mut rng = Rng::new(seed ^ 0x3e5b);
    let seeds: Vec<Vec<u8>> = [
        r#"{"type":"auth","token":"0123456789abcdef0123456789abcdef"}"#,
        r#"{"type":"pair","code":"123456","name":"Pixel","key":"04aa"}"#,
        r#"{"type":"node","node":"aaaabbbbccccddddeeeeffffgggghhhh","signature":"00","nonce":"0123456789abcdef"}"#,
        r#"{"type":"pairNode","code":"123456","name":"laptop","role":"full","publicKey":"00","signature":"00"}"#,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let d = Daemon::start("");
    rt().block_on(async {
        for case in 0..cases(200) {
            let input = mutated(&mut rng, &seeds);
            let mut ws = crate::mesh::connect(&d).await;
            let text = String::from_utf8_lossy(&input).into_owned();
            let _ = ws.send(Message::Text(text.clone().into())).await;
            // Refused (authFailed, then a close), never let in.
            loop {
                use futures_util::StreamExt;
                let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
                    .await
                    .unwrap_or_else(|_| panic!("seed {seed} case {case}: no answer to {text:?}"));
                match m {
                    Some(Ok(Message::Text(t))) => {
                        let v: serde_json::Value = serde_json::from_str(&t).unwrap();
                        assert_eq!(
                            v["type"], "authFailed",
                            "seed {seed} case {case}: {text:?} → {v}"
                        );
                    }
                    Some(Ok(Message::Close(f))) => {
                        let code = f.map(|f| u16::from(f.code));
                        assert!(
                            matches!(code, Some(4401 | 4429 | 1009)),
                            "seed {seed} case {case}: {code:?}"
                        );
                        break;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => break,
                }
            }
        }
        let listed = crate::mesh::admin(&d, circe::protocol::AdminVerb::Devices)
            .await
            .unwrap();
        assert_eq!(listed["devices"].as_array().unwrap().len(), 0, "{listed}");
        let _ = d.state().await;
    });
    assert!(!d.log().contains("panicked"), "{}", d.log());
}

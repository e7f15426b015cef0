//! pocketsphinx benchmarks on speech synthesized now (flite and espeak-ng, 16 kHz): per-utterance
//! latency and real-time factor (RTF = decode time / audio time) of the grammar backend (grammar
//! pass + the rejection check's phone loop) and of the always-on stop spotter, plus the setup
//! cost. Run with `cargo bench --bench sphinx`. Results: docs/BENCHMARKS.md.

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("the pocketsphinx backend is unsupported on this platform (Linux only)");
}

#[cfg(target_os = "linux")]
#[path = "../tests/it/sphinx_util.rs"]
#[allow(dead_code)]
mod sphinx_util;

#[cfg(target_os = "linux")]
use circe::voice::sphinx::{
    grammar_words, jsgf, Decoder, GrammarBackend, GrammarRecognizer, Model, StopDetector,
    StopSpotter, COMMAND_SHAPES, DEFAULT_REJECTION, SAMPLE_RATE,
};
#[cfg(target_os = "linux")]
use circe::voice::UtteranceId;
#[cfg(target_os = "linux")]
use sphinx_util::*;
#[cfg(target_os = "linux")]
use std::time::Instant;

#[cfg(target_os = "linux")]
fn report(name: &str, mut samples: Vec<f64>, unit: &str) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<58} n={:<3} p50={:>8.3} {unit}  p95={:>8.3} {unit}  max={:>8.3} {unit}",
        samples.len(),
        at(0.5),
        at(0.95),
        samples.last().unwrap()
    );
}

#[cfg(target_os = "linux")]
fn main() {
    require_packages();
    let model = Model::locate().unwrap_or_else(|e| panic!("{e}"));
    let t = Instant::now();
    let mut grammar = GrammarRecognizer::new(&model, DEFAULT_REJECTION).unwrap();
    println!(
        "grammar backend: load model + phone loop: {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    grammar.set_screen(&screen_labels()).unwrap();
    println!(
        "grammar backend: build the screen's grammar (12 labels): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let mut spotter = StopSpotter::new(&model).unwrap();
    println!(
        "stop spotter: load: {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    let mut clips = Vec::new();
    for voice in Voice::BOTH {
        for text in COMMANDS.iter().chain(UNRELATED.iter()) {
            clips.push(padded(&speech(voice, text)));
        }
    }
    let seconds = |pcm: &[i16]| pcm.len() as f64 / f64::from(SAMPLE_RATE);

    let (mut lat, mut rtf) = (Vec::new(), Vec::new());
    for _round in 0..2 {
        for (i, pcm) in clips.iter().enumerate() {
            let t = Instant::now();
            let _ = grammar
                .recognize(UtteranceId(format!("u{i}")), pcm)
                .unwrap();
            let s = t.elapsed().as_secs_f64();
            lat.push(s * 1e3);
            rtf.push(s / seconds(pcm));
        }
    }
    report("grammar + rejection, per utterance (latency)", lat, "ms");
    report("grammar + rejection, RTF", rtf, "x ");

    // The two passes apart: the grammar alone, and the rejection check's phone loop.
    let mut d = Decoder::new(&model).unwrap();
    let g = jsgf(&screen_labels(), COMMAND_SHAPES).unwrap();
    for w in grammar_words(&g) {
        d.ensure_word(&w).unwrap();
    }
    d.set_jsgf("grammar", &g).unwrap();
    d.set_allphone("phones", &model.phone_lm).unwrap();
    for search in ["grammar", "phones"] {
        let (mut lat, mut rtf) = (Vec::new(), Vec::new());
        for pcm in &clips {
            let t = Instant::now();
            let _ = d.decode(search, pcm).unwrap();
            let s = t.elapsed().as_secs_f64();
            lat.push(s * 1e3);
            rtf.push(s / seconds(pcm));
        }
        report(&format!("{search} pass alone, per utterance"), lat, "ms");
        report(&format!("{search} pass alone, RTF"), rtf, "x ");
    }

    let (mut lat, mut rtf) = (Vec::new(), Vec::new());
    for pcm in &clips {
        // As a stream: 100 ms chunks, timed per chunk as the microphone would deliver them.
        for chunk in pcm.chunks(1600) {
            let t = Instant::now();
            let _ = spotter.feed(chunk).unwrap();
            let s = t.elapsed().as_secs_f64();
            lat.push(s * 1e3);
            rtf.push(s / seconds(chunk));
        }
    }
    report("stop spotter, per 100 ms chunk", lat, "ms");
    report("stop spotter, RTF", rtf, "x ");

    // Stop said → StopHeard: from the end of the word's audio to the event.
    let mut delay = Vec::new();
    for voice in Voice::BOTH {
        let stop = speech(voice, "stop");
        for _ in 0..5 {
            let mut s = StopSpotter::new(&model).unwrap();
            s.feed(&vec![0i16; 8000]).unwrap();
            let t = Instant::now();
            let mut heard = !s.feed(&stop).unwrap().is_empty();
            for _ in 0..10 {
                if heard {
                    break;
                }
                heard = !s.feed(&[0i16; 1600]).unwrap().is_empty();
            }
            if heard {
                // Decode time after the last sample arrived, plus the chunks of silence waited.
                delay.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    if !delay.is_empty() {
        report("\"stop\" audio fed → StopHeard (decode time)", delay, "ms");
    }
}

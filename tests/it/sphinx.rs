//! pocketsphinx for real: the stop spotter and the grammar backend on speech synthesized now
//! (flite and espeak-ng, 16 kHz), silence and sox-made noise.

use crate::sphinx_util::*;
use circe::voice::sphinx::{
    GrammarBackend, GrammarRecognizer, Model, StopDetector, StopSpotter, DEFAULT_REJECTION,
};
use circe::voice::{UtteranceId, VoiceEvent};

fn model() -> Model {
    require_packages();
    Model::locate().unwrap_or_else(|e| panic!("{e}"))
}

/// Every StopHeard in `pcm`, fed as a microphone would (100 ms chunks), to a fresh spotter.
fn stops(m: &Model, pcm: &[i16]) -> Vec<u64> {
    let mut s = StopSpotter::new(m).unwrap();
    let mut at = Vec::new();
    for chunk in pcm.chunks(1600) {
        for e in s.feed(chunk).unwrap() {
            match e {
                VoiceEvent::StopHeard { at_ms } => at.push(at_ms),
                other => panic!("the spotter emits only StopHeard, not {other:?}"),
            }
        }
    }
    at
}

#[test]
fn sphinx_spots_stop_and_cancel_that() {
    let m = model();
    let mut missed = Vec::new();
    for (voice, text) in [
        (Voice::Flite, "stop"),
        (Voice::Flite, "cancel that"),
        (Voice::Flite, "cancel"),
        (Voice::Espeak, "stop"),
    ] {
        let speech = padded(&speech(voice, text));
        let heard = stops(&m, &speech);
        if heard.len() != 1 {
            missed.push(format!("{} {text:?}: {heard:?}", voice.name()));
            continue;
        }
        // Heard after the word began (0.5 s of silence first) and by the end of the clip.
        let end_ms = speech.len() as u64 * 1000 / 16000;
        assert!(
            heard[0] > 500 && heard[0] <= end_ms,
            "{} {text}: at {} ms of {end_ms}",
            voice.name(),
            heard[0]
        );
    }
    assert!(missed.is_empty(), "missed or repeated: {missed:?}");
    // A stop inside a longer stream is heard once, at its place.
    let mut stream = padded(&speech(Voice::Flite, "scroll down"));
    let at = stream.len() as u64 * 1000 / 16000;
    stream.extend(padded(&speech(Voice::Flite, "stop")));
    let heard = stops(&m, &stream);
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert!(
        heard[0] > at,
        "stop heard at {} ms, before it was said at {at} ms",
        heard[0]
    );
}

#[test]
fn sphinx_no_false_stop_on_commands_silence_or_noise() {
    let m = model();
    let mut false_alarms = Vec::new();
    let mut n = 0;
    for voice in Voice::BOTH {
        for text in ordinary().iter().chain(UNRELATED.iter()) {
            n += 1;
            if !stops(&m, &padded(&speech(voice, text))).is_empty() {
                false_alarms.push(format!("{} {text:?}", voice.name()));
            }
        }
    }
    for kind in ["silence", "pink", "hum"] {
        n += 1;
        if !stops(&m, &noise(kind)).is_empty() {
            false_alarms.push(kind.to_string());
        }
    }
    assert!(n >= 40, "{n} clips");
    assert!(false_alarms.is_empty(), "false stops: {false_alarms:?}");
}

fn recognizer(m: &Model) -> GrammarRecognizer {
    let mut g = GrammarRecognizer::new(m, DEFAULT_REJECTION).unwrap();
    g.set_screen(&screen_labels()).unwrap();
    g
}

#[test]
fn sphinx_grammar_recognises_commands_with_on_screen_names() {
    let m = model();
    let mut g = recognizer(&m);
    let grammar = g.grammar().unwrap().to_string();
    assert!(grammar.contains("linnmon table"), "{grammar}");
    let mut wrong = Vec::new();
    let mut exact = 0;
    for text in COMMANDS {
        let id = UtteranceId(format!("flite-{text}"));
        match g
            .recognize(id.clone(), &padded(&speech(Voice::Flite, text)))
            .unwrap()
        {
            VoiceEvent::Final { utterance, heard } => {
                assert_eq!(utterance, id);
                let c = heard[0].confidence.unwrap();
                assert!(c > 0 && c <= 1000, "{c}");
                if heard[0].text == text {
                    exact += 1;
                } else {
                    wrong.push(format!("{text:?} → {:?}", heard[0].text));
                }
            }
            other => wrong.push(format!("{text:?} → {other:?}")),
        }
    }
    // flite's voice: every command exact, the proper nouns included (measured 16/16).
    assert_eq!(exact, COMMANDS.len(), "wrong: {wrong:#?}");
    // espeak-ng's robotic voice: the proper nouns still come through, most commands exact.
    let mut espeak_exact = 0;
    let mut espeak_wrong = Vec::new();
    for text in COMMANDS {
        match g
            .recognize(
                UtteranceId(text.into()),
                &padded(&speech(Voice::Espeak, text)),
            )
            .unwrap()
        {
            VoiceEvent::Final { heard, .. } if heard[0].text == text => espeak_exact += 1,
            other => espeak_wrong.push(format!("{text:?} → {other:?}")),
        }
    }
    for name in [
        "add the micke desk to my cart",
        "open the kallax shelf page",
    ] {
        assert!(
            !espeak_wrong
                .iter()
                .any(|w| w.starts_with(&format!("{name:?}"))),
            "{espeak_wrong:#?}"
        );
    }
    assert!(
        espeak_exact >= 11,
        "{espeak_exact}/16 exact: {espeak_wrong:#?}"
    );
}

#[test]
fn sphinx_grammar_rejects_unrelated_speech_and_noise() {
    let m = model();
    let mut g = recognizer(&m);
    let mut forced = Vec::new();
    for voice in Voice::BOTH {
        for text in UNRELATED {
            match g
                .recognize(UtteranceId(text.into()), &padded(&speech(voice, text)))
                .unwrap()
            {
                VoiceEvent::NotUnderstood { utterance, reason } => {
                    assert_eq!(utterance.0, text);
                    assert!(!reason.is_empty());
                }
                other => forced.push(format!("{} {text:?} → {other:?}", voice.name())),
            }
        }
    }
    for kind in ["silence", "pink", "hum"] {
        match g.recognize(UtteranceId(kind.into()), &noise(kind)).unwrap() {
            VoiceEvent::NotUnderstood { reason, .. } => {
                assert_eq!(reason, "no command heard", "{kind}")
            }
            other => forced.push(format!("{kind} → {other:?}")),
        }
    }
    assert!(forced.is_empty(), "forced onto a command: {forced:#?}");
}

#[test]
fn sphinx_grammar_follows_the_screen() {
    let m = model();
    let mut g = recognizer(&m);
    let clip = padded(&speech(Voice::Flite, "select the linnmon table"));
    assert!(matches!(
        g.recognize(UtteranceId("a".into()), &clip).unwrap(),
        VoiceEvent::Final { ref heard, .. } if heard[0].text == "select the linnmon table"
    ));
    // The table left the screen: the same words are no longer a command here.
    g.set_screen(&["KALLAX shelf".to_string(), "Sign in".to_string()])
        .unwrap();
    match g.recognize(UtteranceId("b".into()), &clip).unwrap() {
        VoiceEvent::Final { heard, .. } => {
            assert!(!heard[0].text.contains("linnmon"), "{heard:?}")
        }
        VoiceEvent::NotUnderstood { .. } => {}
        other => panic!("{other:?}"),
    }
}

//! The utterance tracker: provider events in, effects out (pure, table-tested).

use std::collections::{BTreeMap, VecDeque};

use super::{Effect, Heard, Utterance, UtteranceId, VoiceEvent};

/// How many finished utterance ids are remembered to refuse a replayed final.
pub const MAX_REMEMBERED: usize = 256;

/// The open and recently finished utterances of one voice session.
#[derive(Debug, Default)]
pub struct Utterances {
    /// Open utterances and the revision of their latest partial.
    open: BTreeMap<UtteranceId, u32>,
    /// Finished ids, oldest first, bounded by [`MAX_REMEMBERED`].
    finished: VecDeque<UtteranceId>,
    /// Whether Circe is speaking now.
    playing: bool,
}

impl Utterances {
    pub fn new() -> Utterances {
        Utterances::default()
    }

    /// Circe's own speech began or ended.
    pub fn playback(&mut self, playing: bool) {
        self.playing = playing;
    }

    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Fold one event; the effects come in the order they must happen.
    pub fn apply(&mut self, event: VoiceEvent) -> Vec<Effect> {
        match event {
            VoiceEvent::SpeechStarted { utterance, .. } => {
                if self.is_finished(&utterance) {
                    return Vec::new();
                }
                self.open.entry(utterance).or_insert(0);
                self.barge_in()
            }
            VoiceEvent::SpeechStopped { .. } => Vec::new(),
            VoiceEvent::Partial { utterance, text } => {
                if self.is_finished(&utterance) {
                    return Vec::new();
                }
                let revision = self.open.entry(utterance.clone()).or_insert(0);
                *revision += 1;
                vec![Effect::Show {
                    utterance,
                    revision: *revision,
                    text,
                }]
            }
            VoiceEvent::Final { utterance, heard } => {
                if self.is_finished(&utterance) {
                    return Vec::new();
                }
                let revision = self.open.get(&utterance).copied().unwrap_or(0) + 1;
                self.finish(&utterance);
                let heard: Vec<Heard> = heard
                    .into_iter()
                    .filter(|h| !h.text.trim().is_empty())
                    .collect();
                match heard.first() {
                    None => vec![Effect::NotUnderstood {
                        utterance,
                        reason: "nothing was heard".into(),
                    }],
                    Some(best) if is_backchannel(&best.text) => Vec::new(),
                    Some(_) => vec![Effect::Admit(Utterance {
                        id: utterance,
                        revision,
                        heard,
                    })],
                }
            }
            VoiceEvent::NotUnderstood { utterance, reason } => {
                if self.is_finished(&utterance) {
                    return Vec::new();
                }
                self.finish(&utterance);
                vec![Effect::NotUnderstood { utterance, reason }]
            }
            VoiceEvent::Failed { utterance, message } => {
                if self.is_finished(&utterance) {
                    return Vec::new();
                }
                self.finish(&utterance);
                vec![Effect::NotUnderstood {
                    utterance,
                    reason: format!("recognition failed: {message}"),
                }]
            }
            VoiceEvent::Discarded { utterance } => {
                self.finish(&utterance);
                Vec::new()
            }
            VoiceEvent::StopHeard { .. } => {
                let mut effects = self.barge_in();
                effects.push(Effect::Stop);
                effects
            }
        }
    }

    fn barge_in(&mut self) -> Vec<Effect> {
        if self.playing {
            self.playing = false;
            vec![Effect::StopPlayback]
        } else {
            Vec::new()
        }
    }

    fn is_finished(&self, utterance: &UtteranceId) -> bool {
        self.finished.contains(utterance)
    }

    fn finish(&mut self, utterance: &UtteranceId) {
        self.open.remove(utterance);
        if self.finished.len() == MAX_REMEMBERED {
            self.finished.pop_front();
        }
        self.finished.push_back(utterance.clone());
    }
}

/// A listener's acknowledgement ("ok", "mhm", "uh huh"): it ends nothing and is not a request.
pub fn is_backchannel(text: &str) -> bool {
    const BACKCHANNELS: &[&str] = &[
        "ok",
        "okay",
        "mhm",
        "mm",
        "mmhm",
        "uh huh",
        "uhhuh",
        "hm",
        "hmm",
        "right",
        "i see",
        "alright",
        "all right",
        "yeah ok",
        "ok ok",
    ];
    let words: String = text
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == ' ' {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    BACKCHANNELS.contains(&words.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> UtteranceId {
        UtteranceId(s.into())
    }

    fn partial(u: &str, text: &str) -> VoiceEvent {
        VoiceEvent::Partial {
            utterance: id(u),
            text: text.into(),
        }
    }

    fn final_(u: &str, text: &str) -> VoiceEvent {
        VoiceEvent::Final {
            utterance: id(u),
            heard: vec![Heard::new(text, Some(0.9))],
        }
    }

    fn started(u: &str) -> VoiceEvent {
        VoiceEvent::SpeechStarted {
            utterance: id(u),
            at_ms: 0,
        }
    }

    fn admitted(effects: &[Effect]) -> Vec<(String, u32)> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Admit(u) => Some((u.heard[0].text.clone(), u.revision)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn partials_show_and_only_the_final_admits() {
        let mut t = Utterances::new();
        let mut all = Vec::new();
        for e in [
            started("a"),
            partial("a", "open"),
            partial("a", "open new tab"),
            VoiceEvent::SpeechStopped {
                utterance: id("a"),
                at_ms: 800,
            },
            partial("a", "open new tab and go to wikipedia"),
        ] {
            all.extend(t.apply(e));
        }
        assert!(admitted(&all).is_empty(), "{all:?}");
        assert!(matches!(all.last(), Some(Effect::Show { revision: 3, .. })));
        let fin = t.apply(final_("a", "open a new tab and go to wikipedia"));
        assert_eq!(
            admitted(&fin),
            vec![("open a new tab and go to wikipedia".to_string(), 4)]
        );
    }

    #[test]
    fn a_replayed_final_admits_nothing() {
        let mut t = Utterances::new();
        assert_eq!(admitted(&t.apply(final_("a", "scroll down"))).len(), 1);
        for e in [
            started("a"),
            partial("a", "scroll"),
            final_("a", "scroll down"),
        ] {
            assert_eq!(t.apply(e), Vec::new());
        }
        assert_eq!(admitted(&t.apply(final_("b", "scroll down"))).len(), 1);
    }

    #[test]
    fn speech_while_circe_speaks_stops_the_playback_once() {
        let mut t = Utterances::new();
        assert_eq!(t.apply(started("a")), Vec::new());
        t.playback(true);
        assert_eq!(t.apply(started("b")), vec![Effect::StopPlayback]);
        assert!(!t.is_playing());
        assert_eq!(t.apply(partial("b", "no")).len(), 1);
    }

    #[test]
    fn stop_goes_the_stop_path_and_silences_circe() {
        let mut t = Utterances::new();
        assert_eq!(
            t.apply(VoiceEvent::StopHeard { at_ms: 5 }),
            vec![Effect::Stop]
        );
        t.playback(true);
        assert_eq!(
            t.apply(VoiceEvent::StopHeard { at_ms: 9 }),
            vec![Effect::StopPlayback, Effect::Stop]
        );
    }

    #[test]
    fn empty_or_failed_speech_is_not_understood_and_admits_nothing() {
        let mut t = Utterances::new();
        let cases = [
            (final_("a", "   "), "nothing was heard"),
            (
                VoiceEvent::Failed {
                    utterance: id("b"),
                    message: "timeout".into(),
                },
                "recognition failed: timeout",
            ),
            (
                VoiceEvent::NotUnderstood {
                    utterance: id("c"),
                    reason: "out of grammar".into(),
                },
                "out of grammar",
            ),
        ];
        for (event, want) in cases {
            match t.apply(event).as_slice() {
                [Effect::NotUnderstood { reason, .. }] => assert_eq!(reason, want),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(t.apply(final_("b", "late text")), Vec::new());
    }

    #[test]
    fn a_discarded_utterance_ends_with_no_effect() {
        let mut t = Utterances::new();
        t.apply(started("n"));
        assert_eq!(
            t.apply(VoiceEvent::Discarded { utterance: id("n") }),
            Vec::new()
        );
        assert!(t.open.is_empty());
        assert_eq!(t.apply(final_("n", "you")), Vec::new());
    }

    #[test]
    fn a_backchannel_ends_nothing() {
        let mut t = Utterances::new();
        for text in ["OK.", "mhm", "Uh-huh", "all right!"] {
            assert!(is_backchannel(text), "{text}");
        }
        for text in ["ok google search", "okay cancel", "right click the file"] {
            assert!(!is_backchannel(text), "{text}");
        }
        assert_eq!(t.apply(final_("a", "Okay.")), Vec::new());
    }

    #[test]
    fn the_remembered_ids_are_bounded() {
        let mut t = Utterances::new();
        for i in 0..(MAX_REMEMBERED + 10) {
            t.apply(final_(&i.to_string(), "scroll down"));
        }
        assert_eq!(t.finished.len(), MAX_REMEMBERED);
        // The newest are still refused.
        assert_eq!(
            t.apply(final_(&(MAX_REMEMBERED + 9).to_string(), "x")),
            Vec::new()
        );
    }

    #[test]
    fn an_utterance_becomes_one_input_with_a_stable_id() {
        let u = Utterance {
            id: id("item_001"),
            revision: 2,
            heard: vec![Heard::new(" scroll down ", Some(0.8))],
        };
        let a = u.input("session-1", "tray");
        let b = u.input("session-1", "tray");
        let c = u.input("session-2", "tray");
        assert_eq!(a.id, b.id);
        assert_ne!(a.id, c.id);
        assert_eq!(a.text, "scroll down");
        assert_eq!(a.mode, crate::model::InputMode::Voice);
        assert_eq!(a.device, "tray");
    }
}

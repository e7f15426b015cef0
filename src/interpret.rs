//! A small deterministic reading of typed or heard text into a `Proposal`.
//!
//! This is the seam the grounding Director takes over: it proposes a relation, a goal and argument
//! spans taken from the person's own words; `interaction::dispose` decides whether that is legal.
//! Architecture invariant: pure, no I/O; values are spans of the input, never invented text.

use crate::interaction::{Phase, Proposal};
use crate::model::{Choice, Goal, Relation};

/// The longest place name accepted as an answer (a sentence is not a city).
pub const MAX_PLACE_CHARS: usize = 80;

/// What the reading may consult besides the words.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reading<'a> {
    pub phase: Phase,
    /// The choices of the pending question, if any.
    pub choices: &'a [Choice],
    /// True when this node has a browser connector to send other requests to.
    pub browser: bool,
}

pub fn propose(text: &str, phase: Phase) -> Proposal {
    read(
        text,
        &Reading {
            phase,
            ..Reading::default()
        },
    )
}

pub fn read(text: &str, r: &Reading<'_>) -> Proposal {
    let phase = r.phase;
    let words = normalize(text);
    let waiting = matches!(phase, Phase::Asking | Phase::Approving);
    if waiting && !r.choices.is_empty() {
        if let Some(choice) = pick(&words, r.choices) {
            return Proposal {
                relation: Some(Relation::Answer),
                value: Some(choice),
                ..Proposal::default()
            };
        }
    }

    if is_cancel(&words) && phase != Phase::Empty {
        return Proposal {
            relation: Some(Relation::Cancel),
            ..Proposal::default()
        };
    }
    if let Some(rest) = strip_correction(text) {
        if phase != Phase::Empty && phase != Phase::Closed {
            let mut proposal = Proposal {
                relation: Some(Relation::Correction),
                ..Proposal::default()
            };
            let rest_words = normalize(rest);
            if let Some(place) = place_in(rest) {
                proposal.arguments.insert("place".into(), place);
            } else if !mentions_weather(&rest_words) {
                proposal.value = clean_value(rest);
            }
            return proposal;
        }
    }
    if mentions_weather(&words) {
        let mut proposal = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Weather),
            ..Proposal::default()
        };
        if let Some(place) = place_in(text) {
            proposal.arguments.insert("place".into(), place);
        }
        return proposal;
    }
    if waiting {
        return Proposal {
            relation: Some(Relation::Answer),
            value: clean_value(strip_preposition(text)),
            ..Proposal::default()
        };
    }
    if mentions_desktop(&words) {
        let mut proposal = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::NativeApp),
            ..Proposal::default()
        };
        proposal
            .arguments
            .insert("request".into(), text.trim().to_string());
        return proposal;
    }
    if r.browser {
        let mut proposal = Proposal {
            relation: Some(Relation::NewRequest),
            goal: Some(Goal::Browser),
            ..Proposal::default()
        };
        proposal
            .arguments
            .insert("request".into(), text.trim().to_string());
        return proposal;
    }
    Proposal {
        relation: Some(Relation::NewRequest),
        goal: Some(Goal::Conversation),
        ..Proposal::default()
    }
}

/// "the second one", "2", "number two", "the last one", or a choice's own label: its key.
fn pick(words: &[String], choices: &[Choice]) -> Option<String> {
    const ORDINALS: [(&str, usize); 10] = [
        ("first", 1),
        ("second", 2),
        ("third", 3),
        ("1st", 1),
        ("2nd", 2),
        ("3rd", 3),
        ("one", 1),
        ("two", 2),
        ("three", 3),
        ("top", 1),
    ];
    let filler = [
        "the", "one", "number", "option", "choice", "please", "that", "is", "it", "i", "mean",
        "meant",
    ];
    let content: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !filler.contains(w))
        .collect();
    let n = match content.as_slice() {
        [w] => w.parse::<usize>().ok().or_else(|| {
            if *w == "last" {
                Some(choices.len())
            } else {
                ORDINALS.iter().find(|(o, _)| o == w).map(|(_, n)| *n)
            }
        }),
        [] if words.iter().any(|w| w == "one") => Some(1).filter(|_| words.len() == 1),
        _ => None,
    };
    if let Some(n) = n {
        return choices.get(n.checked_sub(1)?).map(|c| c.key.clone());
    }
    let said = words.join(" ");
    choices
        .iter()
        .find(|c| normalize(&c.label).join(" ") == said)
        .map(|c| c.key.clone())
}

fn normalize(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

fn is_cancel(words: &[String]) -> bool {
    let joined = words.join(" ");
    matches!(
        joined.as_str(),
        "cancel"
            | "cancel that"
            | "cancel it"
            | "stop"
            | "stop it"
            | "stop that"
            | "never mind"
            | "nevermind"
            | "forget it"
            | "abort"
    )
}

/// Requests about the desktop's own apps and files: "on my desktop", "the file manager",
/// "in the editor", "the file I selected".
fn mentions_desktop(words: &[String]) -> bool {
    let joined = format!(" {} ", words.join(" "));
    [
        " my desktop ",
        " file manager ",
        " the editor ",
        " text editor ",
        " file i selected ",
    ]
    .iter()
    .any(|m| joined.contains(m))
}

fn mentions_weather(words: &[String]) -> bool {
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "weather" | "forecast" | "temperature" | "raining" | "rain" | "sunny" | "umbrella"
        )
    })
}

/// "Actually, in Pune" / "no, I meant Pune" / "I meant Pune": the text after the marker.
fn strip_correction(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    const MARKERS: [&str; 8] = [
        "actually",
        "no i meant",
        "no, i meant",
        "i meant",
        "sorry,",
        "make that",
        "no,",
        "instead",
    ];
    for m in MARKERS {
        if lower.starts_with(m) && lower.is_char_boundary(m.len()) {
            let after = &t[m.len()..];
            if after.is_empty() || after.starts_with(|c: char| !c.is_alphanumeric()) {
                return Some(after.trim_start_matches(|c: char| c == ',' || c.is_whitespace()));
            }
        }
    }
    None
}

/// A place named after "in", "for" or "at", up to the end of the sentence.
fn place_in(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    for prep in [" in ", " for ", " at "] {
        let padded = format!(" {lower}");
        if let Some(pos) = padded.rfind(prep) {
            // `pos` indexes `padded`, which is `text` shifted by one character.
            let start = pos + prep.len() - 1;
            if let Some(rest) = text.get(start..) {
                let rest = rest
                    .trim_start_matches(|c: char| c.is_whitespace())
                    .trim_start_matches("the city of ");
                let cut = ["today", "tomorrow", "right now", "now", "please"]
                    .iter()
                    .filter_map(|w| rest.to_lowercase().find(&format!(" {w}")))
                    .min()
                    .unwrap_or(rest.len());
                if let Some(v) = clean_value(&rest[..cut]) {
                    return Some(v);
                }
            }
        }
    }
    None
}

fn strip_preposition(text: &str) -> &str {
    let t = text.trim();
    for prep in ["in ", "for ", "at "] {
        if t.len() > prep.len() && t[..prep.len()].eq_ignore_ascii_case(prep) {
            return &t[prep.len()..];
        }
    }
    t
}

/// Trim punctuation and whitespace; refuse empty or over-long spans.
fn clean_value(text: &str) -> Option<String> {
    let v = text
        .trim()
        .trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace());
    if v.is_empty() || v.chars().count() > MAX_PLACE_CHARS {
        return None;
    }
    Some(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        text: &str,
        phase: Phase,
        relation: Relation,
        place: Option<&str>,
        value: Option<&str>,
    ) {
        let p = propose(text, phase);
        assert_eq!(p.relation, Some(relation), "{text:?} in {phase:?}");
        assert_eq!(
            p.arguments.get("place").map(String::as_str),
            place,
            "{text:?} place"
        );
        assert_eq!(p.value.as_deref(), value, "{text:?} value");
    }

    #[test]
    fn readings() {
        use Phase::*;
        use Relation::*;
        check("What's the weather?", Empty, NewRequest, None, None);
        check(
            "what is the weather in Pune today",
            Empty,
            NewRequest,
            Some("Pune"),
            None,
        );
        check(
            "weather for New York",
            Finished,
            NewRequest,
            Some("New York"),
            None,
        );
        check("Ahmedabad", Asking, Answer, None, Some("Ahmedabad"));
        check("in Ahmedabad.", Asking, Answer, None, Some("Ahmedabad"));
        check("Actually, in Pune", Running, Correction, Some("Pune"), None);
        check("actually in Pune", Finished, Correction, Some("Pune"), None);
        check("No, I meant Pune", Asking, Correction, None, Some("Pune"));
        check("cancel", Asking, Cancel, None, None);
        check("never mind", Running, Cancel, None, None);
        check(
            "open the comments on the third story",
            Empty,
            NewRequest,
            None,
            None,
        );
    }

    #[test]
    fn choices_are_picked_by_number_or_label() {
        let choices: Vec<Choice> = ["r1", "r2", "r3"]
            .iter()
            .zip(["upvote (1 of 30)", "Show HN: A tiny Rust database", "hide"])
            .map(|(k, l)| Choice {
                key: k.to_string(),
                label: l.to_string(),
            })
            .collect();
        let r = Reading {
            phase: Phase::Asking,
            choices: &choices,
            browser: true,
        };
        for (said, key) in [
            ("the second one", Some("r2")),
            ("2", Some("r2")),
            ("number three", Some("r3")),
            ("the last one", Some("r3")),
            ("first", Some("r1")),
            ("Show HN: a tiny Rust database", Some("r2")),
            ("the fourth one", None),
        ] {
            let p = read(said, &r);
            assert_eq!(
                p.value.as_deref(),
                key.or(p.value.as_deref().filter(|_| key.is_none())),
                "{said}"
            );
            if let Some(key) = key {
                assert_eq!(p.relation, Some(Relation::Answer), "{said}");
                assert_eq!(p.value.as_deref(), Some(key), "{said}");
            } else {
                assert!(
                    !choices
                        .iter()
                        .any(|c| Some(c.key.as_str()) == p.value.as_deref()),
                    "{said} picked a choice"
                );
            }
        }
    }

    #[test]
    fn other_requests_go_to_the_browser_when_there_is_one() {
        let p = read(
            "upvote the third story",
            &Reading {
                phase: Phase::Finished,
                choices: &[],
                browser: true,
            },
        );
        assert_eq!(
            (p.relation, p.goal),
            (Some(Relation::NewRequest), Some(Goal::Browser))
        );
        assert_eq!(p.arguments["request"], "upvote the third story");
        let p = read(
            "upvote the third story",
            &Reading {
                phase: Phase::Finished,
                choices: &[],
                browser: false,
            },
        );
        assert_eq!(p.goal, Some(Goal::Conversation));
    }

    #[test]
    fn values_are_bounded_spans() {
        let long = "x".repeat(MAX_PLACE_CHARS + 1);
        assert_eq!(propose(&long, Phase::Asking).value, None);
        assert_eq!(propose("  ?! ", Phase::Asking).value, None);
    }

    #[test]
    fn actually_needs_a_word_boundary() {
        // "Actuallyville" is a place, not a correction marker.
        let p = propose("Actuallyville", Phase::Asking);
        assert_eq!(p.relation, Some(Relation::Answer));
    }

    #[test]
    fn desktop_requests_go_to_the_native_app_executor() {
        let p = read(
            "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.",
            &Reading { browser: true, ..Reading::default() },
        );
        assert_eq!(p.goal, Some(Goal::NativeApp));
        assert!(p.arguments["request"].contains("Meeting notes"));
        let web = read(
            "click the third story",
            &Reading {
                browser: true,
                ..Reading::default()
            },
        );
        assert_eq!(web.goal, Some(Goal::Browser));
        assert_eq!(
            propose("show it in the file manager", Phase::Empty).goal,
            Some(Goal::NativeApp)
        );
    }
}

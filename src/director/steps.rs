//! Several steps said at once: "enter Ada Lovelace into the name field and press Submit".
//!
//! Pure splitting of one sentence into ordered step texts, each a token-bounded slice of the
//! user's own words, at step joiners: "and then", "then", "after that", and "and" (or ", and")
//! when the words after it begin with an action verb. Joiners inside quotes are text, never
//! joiners. A question, a condition ("if …") or verbs sharing one object ("like and retweet the
//! tweet") are not split: they stay with the planner. Each step is later grounded on its own,
//! the later ones against a fresh observation (see the browser executor).

use std::ops::Range;

use super::lexicon::{self, is_in};
use super::text::{self, Token};
use super::utterance::UI_VERBS;

/// The most steps one sentence may carry; more are refused with a reason.
pub const MAX_STEPS: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Steps {
    /// One step (or nothing this module splits).
    One,
    /// Two to [`MAX_STEPS`] steps, in order, as byte spans of the source.
    Many(Vec<Range<usize>>),
    /// More steps than [`MAX_STEPS`]: how many.
    TooMany(usize),
    /// Joined verbs that share what follows ("like and retweet the tweet"): one task of
    /// several steps that cannot be split into self-contained ones.
    Shared,
}

/// Splits a sentence into its steps.
pub fn split(source: &str) -> Steps {
    let tokens = text::tokens(source);
    let words: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
    let lead = words
        .iter()
        .position(|w| !is_in(lexicon::FILLERS, w))
        .unwrap_or(0);
    let Some(first) = words.get(lead) else {
        return Steps::One;
    };
    if source.contains('?')
        || is_in(lexicon::QUESTION_WORDS, first)
        || is_in(lexicon::REASON_VERBS, first)
        || matches!(*first, "if" | "when" | "unless" | "once" | "while")
    {
        return Steps::One;
    }
    let quoted = quoted_spans(source);
    let in_quotes = |t: &Token| quoted.iter().any(|q| q.contains(&t.start));
    // Token ranges of the steps.
    let mut steps: Vec<Range<usize>> = Vec::new();
    let mut start = lead;
    let mut i = lead + 1;
    while i < tokens.len() {
        if in_quotes(&tokens[i]) {
            i += 1;
            continue;
        }
        let joiner = match words[i] {
            "and" if words.get(i + 1) == Some(&"then") => 2,
            "and" if words.get(i + 1) == Some(&"after") && words.get(i + 2) == Some(&"that") => 3,
            "after" if words.get(i + 1) == Some(&"that") => 2,
            "then" => 1,
            "and" if words.get(i + 1).is_some_and(|w| is_action_verb(w)) => 1,
            _ => 0,
        };
        if joiner == 0 || i + joiner >= tokens.len() {
            i += 1;
            continue;
        }
        if i > start {
            steps.push(start..i);
        }
        start = i + joiner;
        // "and then also", "then just": fillers open the next step.
        while start + 1 < tokens.len() && is_in(lexicon::FILLERS, words[start]) {
            start += 1;
        }
        i = start + 1;
    }
    steps.push(start..tokens.len());
    if steps.len() < 2 {
        return Steps::One;
    }
    // "like and retweet the amy lee tweet": a bare verb before another step shares its object.
    let bare = |r: &Range<usize>| r.len() == 1 && is_action_verb(words[r.start]);
    if steps
        .windows(2)
        .any(|w| bare(&w[0]) && !bare(&w[1]) && !presses_key(&w[1], &words))
    {
        return Steps::Shared;
    }
    if steps.len() > MAX_STEPS {
        return Steps::TooMany(steps.len());
    }
    Steps::Many(
        steps
            .iter()
            .map(|r| widen(source, tokens[r.start].start..tokens[r.end - 1].end))
            .collect(),
    )
}

/// The step texts of a sentence: the whole sentence when it is one step (or not split).
pub fn texts(source: &str) -> Vec<String> {
    match split(source) {
        Steps::Many(spans) => spans
            .iter()
            .map(|s| source[s.clone()].to_string())
            .collect(),
        _ => vec![source.trim().to_string()],
    }
}

/// Whether the sentence joins steps in a way this module recognises (any split, refused or not).
pub fn joined(source: &str) -> bool {
    split(source) != Steps::One
}

/// "press enter", "hit return": the step presses the Enter key where text was just typed.
pub fn presses_enter(step: &str) -> bool {
    let tokens = text::tokens(step);
    let words: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
    presses_key(&(0..words.len()), &words)
}

fn presses_key(r: &Range<usize>, words: &[&str]) -> bool {
    let w: Vec<&str> = words[r.clone()]
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "the" | "key" | "button" | "please"))
        .collect();
    matches!(
        w.as_slice(),
        ["press" | "hit" | "push" | "tap", "enter" | "return"]
    )
}

/// A word that begins a step of its own: a verb from the lexicon's verb lists.
pub fn is_action_verb(word: &str) -> bool {
    is_in(lexicon::ACTIVATE_VERBS, word)
        || is_in(lexicon::TOGGLE_VERBS, word)
        || is_in(lexicon::TYPE_VERBS, word)
        || is_in(lexicon::SEARCH_VERBS, word)
        || is_in(UI_VERBS, word)
        || matches!(word, "scroll" | "go")
}

/// Byte spans between matching quotes.
fn quoted_spans(source: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for (open, close) in [('"', '"'), ('“', '”'), ('‘', '’')] {
        let mut from = 0;
        while let Some(a) = source[from..]
            .find(open)
            .map(|a| from + a + open.len_utf8())
        {
            let Some(b) = source[a..].find(close).map(|b| a + b) else {
                break;
            };
            out.push(a..b);
            from = b + close.len_utf8();
        }
    }
    out
}

/// A step's span with the quotes that open or close it.
fn widen(source: &str, mut span: Range<usize>) -> Range<usize> {
    let quote = |c: char| matches!(c, '"' | '“' | '”' | '‘' | '’' | '\'');
    while let Some(c) = source[..span.start]
        .chars()
        .next_back()
        .filter(|c| quote(*c))
    {
        span.start -= c.len_utf8();
    }
    while let Some(c) = source[span.end..].chars().next().filter(|c| quote(*c)) {
        span.end += c.len_utf8();
    }
    span
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_into_their_own_words() {
        let table: &[(&str, &[&str])] = &[
            (
                "enter Ada Lovelace into the name field and press Submit",
                &["enter Ada Lovelace into the name field", "press Submit"],
            ),
            (
                "type hello in the search box and hit enter",
                &["type hello in the search box", "hit enter"],
            ),
            (
                "select Germany and click Submit",
                &["select Germany", "click Submit"],
            ),
            (
                "search for ecdsa and open the first result",
                &["search for ecdsa", "open the first result"],
            ),
            (
                "open the first story and then upvote it",
                &["open the first story", "upvote it"],
            ),
            (
                "okay, open settings, then turn on dark mode and after that click save",
                &["open settings", "turn on dark mode", "click save"],
            ),
            (
                "log in and reply to pepemaus",
                &["log in", "reply to pepemaus"],
            ),
            (
                "type \"fish and then chips\" into search and press enter",
                &["type \"fish and then chips\" into search", "press enter"],
            ),
            ("save and close", &["save", "close"]),
            (
                "type hello then press enter",
                &["type hello", "press enter"],
            ),
        ];
        for (source, want) in table {
            let got = texts(source);
            assert_eq!(got, *want, "{source}");
            assert!(matches!(split(source), Steps::Many(_)), "{source}");
        }
    }

    #[test]
    fn one_step_sentences_stay_whole() {
        for source in [
            "for the user @sam, click Share",
            "search for tom and jerry",
            "type salt and pepper into the name field",
            "add the ALEX desk to the cart",
            "what is this page and then what",
            "if there is a cookie banner then accept it",
            "reply to anna saying I'll be late",
            "search for rock and roll",
            "then",
            "and then open it",
            "click and",
        ] {
            assert!(
                matches!(split(source), Steps::One),
                "{source}: {:?}",
                split(source)
            );
            assert_eq!(texts(source), vec![source.trim().to_string()]);
        }
    }

    #[test]
    fn verbs_sharing_an_object_and_long_lists_are_not_split() {
        assert_eq!(split("like and share the amy lee tweet"), Steps::Shared);
        assert_eq!(
            split("open a, then open b, then open c, then open d, then open e, then open f"),
            Steps::TooMany(6)
        );
        assert!(joined("like and share the amy lee tweet"));
        assert!(!joined("click Share"));
    }

    #[test]
    fn enter_key_steps_are_recognised() {
        for s in [
            "hit enter",
            "press Enter",
            "press the enter key",
            "hit return",
        ] {
            assert!(presses_enter(s), "{s}");
        }
        for s in ["press Submit", "enter hello", "press enter twice"] {
            assert!(!presses_enter(s), "{s}");
        }
    }

    use crate::director::{
        decide_locally, Action, Decision, Element, Envelope, Observation, Snapshot,
    };

    fn page(elements: &[(&str, &str, &str, &str)]) -> Snapshot {
        Snapshot {
            observation: Some(Observation {
                title: "Page".into(),
                elements: elements
                    .iter()
                    .map(|(id, role, label, context)| Element {
                        id: id.to_string(),
                        role: role.to_string(),
                        label: label.to_string(),
                        context: context.to_string(),
                        ..Element::default()
                    })
                    .collect(),
                ..Observation::default()
            }),
            ..Snapshot::default()
        }
    }

    fn form() -> Snapshot {
        page(&[
            ("e1", "textbox", "Name", ""),
            ("e2", "textbox", "Email", ""),
            ("e3", "radio", "Germany", "Country"),
            ("e4", "radio", "France", "Country"),
            ("e5", "button", "Submit", ""),
            ("e6", "button", "Clear", ""),
        ])
    }

    fn decide(text: &str, snapshot: &Snapshot) -> Decision {
        decide_locally(&Envelope::voice("r1", text), snapshot)
    }

    #[test]
    fn the_director_grounds_the_first_step_and_the_plan_carries_the_rest() {
        let Decision::Execute(plan) = decide(
            "enter Ada Lovelace into the name field and press Submit",
            &form(),
        ) else {
            panic!("no plan")
        };
        assert_eq!(
            plan.action,
            Action::Type {
                target: "e1".into(),
                text: "Ada Lovelace".into()
            }
        );
        assert_eq!(plan.steps, ["press Submit"]);
        assert_eq!(
            plan.source.raw,
            "enter Ada Lovelace into the name field and press Submit"
        );

        let Decision::Execute(plan) = decide("select Germany and click Submit", &form()) else {
            panic!("no plan")
        };
        assert_eq!(
            plan.action,
            Action::Click {
                target: "e3".into()
            }
        );
        assert_eq!(plan.steps, ["click Submit"]);

        // A later step is grounded later, against its own observation.
        let Decision::Execute(plan) = decide("press Submit", &form()) else {
            panic!("no plan")
        };
        assert_eq!(
            plan.action,
            Action::Click {
                target: "e5".into()
            }
        );
        assert!(plan.steps.is_empty());
    }

    #[test]
    fn too_many_steps_are_refused_and_a_first_step_that_is_no_action_goes_to_the_planner() {
        let Decision::Reject(r) = decide(
            "click Submit, then click Clear, then click Submit, then click Clear, then click Submit, then click Clear",
            &form(),
        ) else {
            panic!("not refused")
        };
        assert!(r.message.contains("at most 5"), "{}", r.message);
        let Decision::Execute(plan) =
            decide("make the text a bit bigger and then click Submit", &form())
        else {
            panic!("no plan")
        };
        assert_eq!(plan.action, Action::Planner);
    }

    #[test]
    fn a_scope_before_the_command_scopes_its_target() {
        let card = |who: &str| format!("@{who} {who} · 2h a post Share Like");
        let (ada, sam, bob) = (card("ada"), card("sam"), card("bob"));
        let feed = page(&[
            ("e1", "link", "@ada", &ada),
            ("e2", "button", "Share", &ada),
            ("e3", "link", "@sam", &sam),
            ("e4", "button", "Share", &sam),
            ("e5", "link", "@bob", &bob),
            ("e6", "button", "Share", &bob),
        ]);
        let Decision::Execute(plan) = decide("for the user @sam, click Share", &feed) else {
            panic!("no plan")
        };
        assert_eq!(
            plan.action,
            Action::Click {
                target: "e4".into()
            }
        );
        assert!(plan.steps.is_empty(), "one step");
    }

    #[test]
    fn an_answer_about_the_first_step_resumes_it_and_keeps_the_rest() {
        let snapshot = form();
        let asked = decide("press the button and then click Submit", &snapshot);
        let Decision::Clarify(c) = &asked else {
            panic!("expected a question, got {asked:?}")
        };
        assert_eq!(c.request.text, "press the button and then click Submit");
        let after = Snapshot {
            interaction: snapshot.interaction.after(&asked),
            ..snapshot.clone()
        };
        let pick = c
            .candidates
            .iter()
            .find(|k| k.label.contains("Clear"))
            .expect("Clear offered");
        let Decision::Execute(plan) = decide(&pick.label.replace('"', ""), &after) else {
            panic!("not resumed")
        };
        assert_eq!(
            plan.action,
            Action::Click {
                target: "e6".into()
            }
        );
        assert_eq!(plan.steps, ["click Submit"]);
        assert_eq!(plan.resumes.as_deref(), Some("r1"));
    }
}

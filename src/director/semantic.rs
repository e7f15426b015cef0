//! The semantic signal as one feature of the local decider (pure).
//!
//! A caller may put cosine similarities from a sentence-embedding model on the
//! observation ([`Similarity`], computed by src/semantic.rs). They join the
//! lexical scores here, under the Director's usual gates:
//!
//! - when the lexical evidence already names a target clearly
//!   ([`LEXICAL_SURE`]), meaning changes nothing;
//! - otherwise meaning alone can make the closest one or two elements
//!   candidates worth asking about ([`ASK_SCORE`], below what any gate acts
//!   on), never an action;
//! - it can make an element act ([`ACT_SCORE`]) only with a clear margin over
//!   every competitor ([`ACT_FROM`], [`ACT_MARGIN`]) AND agreement: the words
//!   the screen does not say (the verb: "respond") are close to the element's
//!   own name ("Reply", [`LABEL_ACT_FROM`]), the words
//!   of the request that the screen does say somewhere ("lucaspiller") are
//!   carried by this element as much as by any other (competitors are the
//!   elements that carry them as well), it is a control (role), no lexical
//!   candidate points elsewhere, and its label is not destructive (delete,
//!   pay, report...: meaning alone only asks about those).
//!
//! An element's meaning score is the larger of its two cosines: the request
//! against its label, description and context, and the words the screen does
//! not say ("respond") against its own name ("Reply").

use crate::director::lexicon;
use crate::director::observation::{Observation, RoleClass, Similarity, Structure};
use crate::director::text::Token;
use crate::director::utterance::Reading;

use super::decider::ActionKind;

/// A lexical score this high is left alone (p ≈ 0.82 against "nothing fits").
pub const LEXICAL_SURE: f32 = 0.56;
/// A text cosine from which meaning alone offers an element.
pub const ASK_FROM: f32 = 0.5;
/// Elements within this of the closest one are offered too (two at most).
pub const ASK_BAND: f32 = 0.05;
/// A text cosine from which meaning alone offers the closest element when it is
/// [`SOLE_ASK_MARGIN`] closer than any other.
pub const SOLE_ASK_FROM: f32 = 0.4;
/// How much closer than every other element that is.
pub const SOLE_ASK_MARGIN: f32 = 0.1;
/// The score meaning alone gives: p < 0.22 against "nothing fits", so two
/// such candidates together stay below every act gate.
pub const ASK_SCORE: f32 = 0.36;
/// A text cosine from which meaning may act, with agreement.
pub const ACT_FROM: f32 = 0.6;
/// ... and its lead over the next element.
pub const ACT_MARGIN: f32 = 0.1;
/// The words the screen does not say ("respond") must be this close to the
/// element's own name ("Reply") for meaning to act on it...
pub const LABEL_ACT_FROM: f32 = 0.45;
/// ... and this close for meaning to offer it.
pub const LABEL_ASK_FROM: f32 = 0.3;
/// The score of an agreed meaning match: acts when nothing else competes.
pub const ACT_SCORE: f32 = 0.62;
/// A lexical score from which an element counts as a competing candidate.
const LEXICAL_CANDIDATE: f32 = 0.3;
/// ... and from which it does when it is above the closest element's own.
const LEXICAL_HINT: f32 = 0.2;

/// A cosine from which meaning offers the one link a request the planner would take is about
/// ("when do they pick up the garbage" beside *Abfallentsorgung*)...
pub const PLANNER_LINK_FROM: f32 = 0.4;
/// ... when that link is this much closer than every other element.
pub const PLANNER_LINK_MARGIN: f32 = 0.25;

/// The link that a request the words send to the planner is about, by meaning alone: the
/// element closest to it (at least [`PLANNER_LINK_FROM`], its own name at least
/// [`LABEL_ASK_FROM`]) by [`PLANNER_LINK_MARGIN`] over every other, when that element is a link.
/// The request is then grounded as a click: meaning alone only asks about the link, and the
/// words act on it only when they clear the gates any click's words must.
pub fn planner_link(sim: &Similarity, observation: &Observation) -> Option<usize> {
    let n = observation.elements.len();
    if sim.text.len() != n || sim.label.len() != n {
        return None;
    }
    let ranked = by_meaning(sim, 0..n);
    let top = *ranked.first()?;
    let c1 = meaning(sim, top);
    let c2 = ranked.get(1).map_or(0.0, |&j| meaning(sim, j));
    (observation.elements[top].role == "link"
        && c1 >= PLANNER_LINK_FROM
        && c1 - c2 >= PLANNER_LINK_MARGIN
        && sim.label[top] >= LABEL_ASK_FROM)
        .then_some(top)
}

/// Label words whose action meaning alone must never take.
const DESTRUCTIVE: &[&str] = &[
    "delete",
    "remove",
    "erase",
    "discard",
    "trash",
    "destroy",
    "wipe",
    "reset",
    "unsubscribe",
    "cancel",
    "revoke",
    "uninstall",
    "block",
    "report",
    "flag",
    "pay",
    "buy",
    "purchase",
    "order",
    "checkout",
    "send",
    "transfer",
    "submit",
    "leave",
    "close",
    "deactivate",
    "disable",
    "logout",
    "signout",
    "löschen",
    "entfernen",
    "supprimer",
    "kaufen",
    "acheter",
];

/// What the decider knows about one element, for the blend.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Fit {
    /// The action can apply to it (not disabled, not static, editable when typing).
    pub eligible: bool,
    /// It carries as many of the request's on-screen words as any element
    /// (all elements do when the screen says none of them).
    pub carries: bool,
    /// A control of the right role whose label is not destructive.
    pub safe: bool,
}

/// An element's meaning score: the larger of its two cosines.
pub fn meaning(sim: &Similarity, i: usize) -> f32 {
    match (sim.text.get(i), sim.label.get(i)) {
        (Some(t), Some(l)) if t.is_finite() && l.is_finite() => t.max(*l),
        _ => 0.0,
    }
}

/// `elements`, closest in meaning first (the first of equals first).
fn by_meaning(sim: &Similarity, elements: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut ranked: Vec<usize> = elements.collect();
    ranked.sort_by(|&a, &b| meaning(sim, b).total_cmp(&meaning(sim, a)).then(a.cmp(&b)));
    ranked
}

/// Lexical scores with the semantic signal folded in. Unchanged without a
/// similarity of the right length.
/// `verb` says the request names a verb its target must offer ("print", "reply"): then
/// meaning offers only what is close to that verb too, never the nearest thing alone.
pub fn blend(
    lexical: &[f32],
    similarity: Option<&Similarity>,
    fits: &[Fit],
    verb: bool,
) -> Vec<f32> {
    let mut out = lexical.to_vec();
    let Some(sim) = similarity else {
        return out;
    };
    let n = lexical.len();
    if sim.text.len() != n || sim.label.len() != n || fits.len() != n {
        return out;
    }
    let lexical_best = lexical.iter().copied().fold(0.0f32, f32::max);
    if lexical_best >= LEXICAL_SURE {
        return out;
    }
    let ranked = by_meaning(sim, (0..n).filter(|&i| fits[i].eligible && fits[i].carries));
    let Some(&top) = ranked.first() else {
        return out;
    };
    let c1 = meaning(sim, top);
    let c2 = ranked.get(1).map_or(0.0, |&j| meaning(sim, j));
    // Words point elsewhere: a candidate of their own, or more of them on another element.
    let lexical_elsewhere = (0..n).any(|j| {
        j != top
            && (lexical[j] >= LEXICAL_CANDIDATE
                || (lexical[j] >= LEXICAL_HINT && lexical[j] > lexical[top]))
    });
    if c1 >= ACT_FROM
        && c1 - c2 >= ACT_MARGIN
        && sim.label[top] >= LABEL_ACT_FROM
        && fits[top].safe
        && !lexical_elsewhere
        // A verb the words name must be offered: an element the verb gate shut out ("join the
        // party" on a menu entry "Partei") is at most asked about.
        && (!verb || lexical[top] > 0.0)
    {
        out[top] = out[top].max(ACT_SCORE);
        return out;
    }
    for &i in ranked.iter().take(2) {
        let m = meaning(sim, i);
        if m >= ASK_FROM && m >= c1 - ASK_BAND && sim.label[i] >= LABEL_ASK_FROM {
            out[i] = out[i].max(ASK_SCORE);
        }
    }
    // Far closer than any other, when no words point anywhere: worth asking about from a
    // lower cosine.
    if !verb
        && lexical_best < LEXICAL_CANDIDATE
        && c1 >= SOLE_ASK_FROM
        && c1 - c2 >= SOLE_ASK_MARGIN
        && sim.label[top] >= LABEL_ASK_FROM
    {
        out[top] = out[top].max(ASK_SCORE);
    }
    out
}

/// The label says an action meaning alone must not take.
pub fn destructive(label: &[Token]) -> bool {
    static WORDS: std::sync::OnceLock<Vec<Token>> = std::sync::OnceLock::new();
    // Folded and stemmed the way labels are ("löschen").
    let words = WORDS.get_or_init(|| {
        DESTRUCTIVE
            .iter()
            .flat_map(|w| crate::director::text::tokens(w))
            .collect()
    });
    label
        .iter()
        .any(|t| words.iter().any(|w| w.norm == t.norm || w.stem == t.stem))
}

/// Per element: may the action apply, does it carry the request's on-screen
/// words, is it a safe control.
pub fn fits(
    reading: &Reading<'_>,
    observation: &Observation,
    structure: &Structure,
    action: ActionKind,
) -> Vec<Fit> {
    let words: Vec<&Token> = reading.tokens[reading.begin..]
        .iter()
        .filter(|t| !lexicon::is_in(lexicon::STOPWORDS, &t.norm) && !t.is_number())
        .collect();
    let carried = |t: &Token, i: usize| {
        let f = &structure.facts[i];
        let has = |ws: &[Token]| ws.iter().any(|w| w.stem == t.stem || w.norm == t.norm);
        has(&f.label) || has(&f.description) || has(structure.context(i))
    };
    let eligible: Vec<bool> = structure
        .facts
        .iter()
        .map(|f| {
            !f.disabled
                && f.class != RoleClass::Static
                && match action {
                    ActionKind::Type => f.class == RoleClass::Editable,
                    ActionKind::Click => f.class != RoleClass::Editable,
                    _ => false,
                }
        })
        .collect();
    let counts: Vec<usize> = (0..structure.facts.len())
        .map(|i| words.iter().filter(|t| carried(t, i)).count())
        .collect();
    let most = (0..counts.len())
        .filter(|&i| eligible[i])
        .map(|i| counts[i])
        .max()
        .unwrap_or(0);
    // Meaning does not count: "the fourth section" is close in meaning to a "sections"
    // button, but which one is meant is the ordinal's to say, so meaning may offer then,
    // never act.
    let counts_something = reading.head.ordinal.is_some() || reading.qualifier.ordinal.is_some();
    structure
        .facts
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let role = matches!(f.class, RoleClass::Activatable | RoleClass::Toggle)
                || action == ActionKind::Type;
            Fit {
                eligible: eligible[i] && i < observation.elements.len(),
                carries: counts[i] == most,
                safe: role && !destructive(&f.label) && !counts_something,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Carries the words, but not a safe control (destructive or wrong role).
    const UNSAFE: Fit = Fit {
        eligible: true,
        carries: true,
        safe: false,
    };
    const SAFE: Fit = Fit {
        eligible: true,
        carries: true,
        safe: true,
    };
    /// Lacks words of the request that the screen says elsewhere.
    const ELSEWHERE: Fit = Fit {
        eligible: true,
        carries: false,
        safe: true,
    };
    const OUT: Fit = Fit {
        eligible: false,
        carries: true,
        safe: true,
    };

    struct Row {
        name: &'static str,
        lexical: &'static [f32],
        text: &'static [f32],
        label: &'static [f32],
        fits: &'static [Fit],
        verb: bool,
        want: &'static [f32],
    }

    #[test]
    fn blend_table() {
        let rows = [
            Row {
                name: "a clear lexical target is left alone",
                lexical: &[0.9, 0.1, 0.0],
                text: &[0.2, 0.9, 0.1],
                label: &[0.2, 0.9, 0.1],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[0.9, 0.1, 0.0],
            },
            Row {
                name: "clear margin and agreement act",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.70, 0.51, 0.31],
                label: &[0.50, 0.47, 0.30],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[ACT_SCORE, 0.0, 0.0],
            },
            Row {
                name: "the argument matches but the verb fits no name: nothing",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.63, 0.17, 0.16],
                label: &[0.12, 0.38, 0.26],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[0.0, 0.0, 0.0],
            },
            Row {
                name: "the verb against the name counts as much as the whole text",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.43, 0.37, 0.31],
                label: &[0.19, 0.80, 0.40],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[0.0, ACT_SCORE, 0.0],
            },
            Row {
                name: "a destructive or static best match: ask only",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.70, 0.51, 0.31],
                label: &[0.70, 0.47, 0.30],
                fits: &[UNSAFE, SAFE, SAFE],
                verb: false,
                want: &[ASK_SCORE, 0.0, 0.0],
            },
            Row {
                name: "a small margin asks about both",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.74, 0.72, 0.2],
                label: &[0.74, 0.72, 0.2],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[ASK_SCORE, ASK_SCORE, 0.0],
            },
            Row {
                name: "the same name on two rows is a tie: ask",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.40, 0.35, 0.2],
                label: &[0.80, 0.80, 0.2],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[ASK_SCORE, ASK_SCORE, 0.0],
            },
            Row {
                name: "the row the request names wins the tie",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.40, 0.35, 0.2],
                label: &[0.80, 0.80, 0.2],
                fits: &[ELSEWHERE, SAFE, SAFE],
                verb: false,
                want: &[0.0, ACT_SCORE, 0.0],
            },
            Row {
                name: "a lexical candidate elsewhere: meaning only adds a candidate",
                lexical: &[0.0, 0.4, 0.0],
                text: &[0.70, 0.40, 0.31],
                label: &[0.70, 0.40, 0.30],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[ASK_SCORE, 0.4, 0.0],
            },
            Row {
                name: "more of the words on another element: meaning only adds a candidate",
                lexical: &[0.23, 0.26, 0.0],
                text: &[0.72, 0.60, 0.1],
                label: &[0.55, 0.47, 0.1],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[ASK_SCORE, 0.26, 0.0],
            },
            Row {
                name: "weak meaning adds nothing",
                lexical: &[0.0, 0.2, 0.0],
                text: &[0.45, 0.40, 0.31],
                label: &[0.45, 0.40, 0.30],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[0.0, 0.2, 0.0],
            },
            Row {
                name: "far closer than any other: ask from a lower cosine",
                lexical: &[0.0, 0.2, 0.0],
                text: &[0.45, 0.30, 0.31],
                label: &[0.45, 0.30, 0.30],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[ASK_SCORE, 0.2, 0.0],
            },
            Row {
                name: "... but not when the request names a verb to offer",
                lexical: &[0.0, 0.2, 0.0],
                text: &[0.45, 0.30, 0.31],
                label: &[0.45, 0.30, 0.30],
                fits: &[SAFE, SAFE, SAFE],
                verb: true,
                want: &[0.0, 0.2, 0.0],
            },
            Row {
                name: "... nor when words point somewhere",
                lexical: &[0.0, 0.35, 0.0],
                text: &[0.45, 0.30, 0.31],
                label: &[0.45, 0.30, 0.30],
                fits: &[SAFE, SAFE, SAFE],
                verb: false,
                want: &[0.0, 0.35, 0.0],
            },
            Row {
                name: "ineligible elements are never raised",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.90, 0.65, 0.1],
                label: &[0.90, 0.55, 0.1],
                fits: &[OUT, SAFE, SAFE],
                verb: false,
                want: &[0.0, ACT_SCORE, 0.0],
            },
        ];
        for row in rows {
            let sim = Similarity {
                text: row.text.to_vec(),
                label: row.label.to_vec(),
            };
            let got = blend(row.lexical, Some(&sim), row.fits, row.verb);
            assert_eq!(got, row.want, "{}", row.name);
        }
    }

    #[test]
    fn without_a_similarity_nothing_changes() {
        let lexical = [0.3, 0.1];
        assert_eq!(blend(&lexical, None, &[SAFE, SAFE], false), lexical);
        // A similarity for another observation (wrong length) is ignored.
        let sim = Similarity {
            text: vec![0.9],
            label: vec![0.9],
        };
        assert_eq!(blend(&lexical, Some(&sim), &[SAFE, SAFE], false), lexical);
    }

    #[test]
    fn meaning_alone_never_reaches_an_act_gate() {
        // Two elements at the ask score, everything else nothing: the
        // probabilities of the decider's softmax stay below every gate.
        let s = super::super::local::SHARPNESS;
        let nothing = (s * super::super::local::NOTHING_SCORE).exp();
        let one = (s * ASK_SCORE).exp();
        let both = 2.0 * one / (nothing + 2.0 * one);
        assert!(both < crate::director::screen::CLEAR_ACT_AT, "{both}");
        assert!(one / (nothing + one) >= crate::director::screen::OFFER_AT);
    }

    #[test]
    fn destructive_labels_are_recognised() {
        let t = crate::director::text::tokens;
        assert!(destructive(&t("Delete account")));
        assert!(destructive(&t("Report")));
        assert!(destructive(&t("Alle löschen")));
        assert!(!destructive(&t("Reply")));
        assert!(!destructive(&t(
            "You must be signed in to star a repository"
        )));
    }

    /// The link a planner's request is about: clearly the closest element, and a link.
    #[test]
    fn a_planner_request_is_about_the_link_meaning_singles_out() {
        use crate::director::observation::{element, Observation};
        let obs = Observation {
            elements: vec![
                element("l1", "link", "Abfallentsorgung", ""),
                element("l2", "link", "Bürgerservice", ""),
                element("b1", "button", "Suchen", ""),
            ],
            ..Observation::default()
        };
        let sim = |text: [f32; 3], label: [f32; 3]| Similarity {
            text: text.to_vec(),
            label: label.to_vec(),
        };
        let table = [
            // Closest by far, its name close too: the link.
            (sim([0.5, 0.21, 0.1], [0.5, 0.2, 0.1]), Some(0)),
            // Not far enough ahead of the next.
            (sim([0.5, 0.3, 0.1], [0.5, 0.3, 0.1]), None),
            // Too far from everything.
            (sim([0.35, 0.05, 0.0], [0.35, 0.05, 0.0]), None),
            // The words said close to its context, not to its name.
            (sim([0.6, 0.2, 0.1], [0.2, 0.2, 0.1]), None),
            // The closest is a button: the planner's request is not about a link.
            (sim([0.1, 0.2, 0.6], [0.1, 0.2, 0.6]), None),
        ];
        for (similarity, want) in table {
            assert_eq!(planner_link(&similarity, &obs), want, "{similarity:?}");
        }
    }

    #[test]
    fn meaning_never_acts_on_a_count() {
        use crate::director::observation::{element, Observation, Structure};
        let obs = Observation {
            elements: vec![
                element("b", "button", "sections", "Go to sections"),
                element("l", "link", "Study Design", "Go to sections"),
            ],
            ..Observation::default()
        };
        let structure = Structure::of(&obs);
        let fit = |text: &str| {
            let reading = crate::director::utterance::read(text);
            fits(&reading, &obs, &structure, ActionKind::Click)
        };
        assert!(fit("open the sections menu")[0].safe);
        assert!(!fit("open the fourth section")[0].safe);
        assert!(!fit("the last section")[0].safe);
    }
}

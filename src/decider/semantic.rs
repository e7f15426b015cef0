//! The semantic signal as one feature of the local decider (pure).
//!
//! A caller may put cosine similarities from a sentence-embedding model on the
//! observation ([`Similarity`], computed by `crate::semantic`). They join the
//! lexical scores here, under the Director's usual gates:
//!
//! - when the lexical evidence already names a target clearly
//!   ([`LEXICAL_SURE`]), meaning changes nothing;
//! - otherwise meaning alone can make the closest one or two elements
//!   candidates worth asking about ([`ASK_SCORE`], below what any gate acts
//!   on), never an action;
//! - it can make an element act ([`ACT_SCORE`]) only with a clear margin over
//!   the next element ([`ACT_FROM`], [`ACT_MARGIN`]) AND agreement: the
//!   element's own name is the closest to the words the screen does not say
//!   (the verb, [`LABEL_FROM`]), it is a control (role), it carries every word
//!   of the request that the screen does carry somewhere ("lucaspiller"), no
//!   lexical candidate points elsewhere, and its label is not destructive
//!   (delete, pay, report...: meaning alone only asks about those).

use crate::director::lexicon;
use crate::director::observation::{Observation, RoleClass, Similarity, Structure};
use crate::director::text::Token;
use crate::director::utterance::Reading;

use super::ActionKind;

/// A lexical score this high is left alone (p ≈ 0.82 against "nothing fits").
pub const LEXICAL_SURE: f32 = 0.56;
/// A text cosine from which meaning alone offers an element.
pub const ASK_FROM: f32 = 0.5;
/// Elements within this of the closest one are offered too (two at most).
pub const ASK_BAND: f32 = 0.05;
/// The score meaning alone gives: p < 0.22 against "nothing fits", so two
/// such candidates together stay below every act gate.
pub const ASK_SCORE: f32 = 0.36;
/// A text cosine from which meaning may act, with agreement.
pub const ACT_FROM: f32 = 0.6;
/// ... and its lead over the next element.
pub const ACT_MARGIN: f32 = 0.1;
/// The unexplained words (the verb) must be this close to the element's name.
pub const LABEL_FROM: f32 = 0.45;
/// The score of an agreed meaning match: acts when nothing else competes.
pub const ACT_SCORE: f32 = 0.62;
/// A lexical score from which an element counts as a competing candidate.
const LEXICAL_CANDIDATE: f32 = 0.3;

/// Label words whose action meaning alone must never take.
const DESTRUCTIVE: &[&str] = &[
    "delete", "remove", "erase", "discard", "trash", "destroy", "wipe", "reset", "unsubscribe",
    "cancel", "revoke", "uninstall", "block", "report", "flag", "pay", "buy", "purchase", "order",
    "checkout", "send", "transfer", "submit", "leave", "close", "deactivate", "disable", "logout",
    "signout", "löschen", "entfernen", "supprimer", "kaufen", "acheter",
];

/// What the decider knows about one element, for the blend.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Fit {
    /// The action can apply to it (not disabled, not static, editable when typing).
    pub eligible: bool,
    /// Role, words on screen and safety agree with acting on it (see module doc).
    pub agrees: bool,
}

/// Lexical scores with the semantic signal folded in. Unchanged without a
/// similarity of the right length.
pub fn blend(lexical: &[f32], similarity: Option<&Similarity>, fits: &[Fit]) -> Vec<f32> {
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
    let mut ranked: Vec<usize> = (0..n)
        .filter(|&i| fits[i].eligible && sim.text[i].is_finite())
        .collect();
    ranked.sort_by(|&a, &b| sim.text[b].total_cmp(&sim.text[a]).then(a.cmp(&b)));
    let Some(&top) = ranked.first() else {
        return out;
    };
    let c1 = sim.text[top];
    // Same label in the same context (a duplicate) is not a competitor.
    let c2 = ranked
        .iter()
        .skip(1)
        .find(|&&j| sim.text[j] < c1 - 1e-4)
        .map_or(0.0, |&j| sim.text[j]);
    let label_best = ranked
        .iter()
        .map(|&j| sim.label[j])
        .fold(f32::MIN, f32::max);
    let lexical_elsewhere = (0..n).any(|j| j != top && lexical[j] >= LEXICAL_CANDIDATE);
    let act = c1 >= ACT_FROM
        && c1 - c2 >= ACT_MARGIN
        && fits[top].agrees
        && sim.label[top] >= LABEL_FROM
        && sim.label[top] >= label_best - 0.02
        && !lexical_elsewhere;
    if act {
        out[top] = out[top].max(ACT_SCORE);
        return out;
    }
    for &i in ranked.iter().take(2) {
        if sim.text[i] >= ASK_FROM && sim.text[i] >= c1 - ASK_BAND {
            out[i] = out[i].max(ASK_SCORE);
        }
    }
    out
}

/// The label says an action meaning alone must not take.
pub fn destructive(label: &[Token]) -> bool {
    label.iter().any(|t| {
        lexicon::is_in(DESTRUCTIVE, &t.norm) || lexicon::is_in(DESTRUCTIVE, &t.stem)
    })
}

/// Per element: may the action apply, and does acting on it agree with the
/// request's other evidence.
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
    // Words some actionable element carries must be carried by the target.
    let on_screen: Vec<&Token> = words
        .iter()
        .copied()
        .filter(|t| {
            structure
                .facts
                .iter()
                .enumerate()
                .any(|(i, f)| f.class != RoleClass::Static && carried(t, i))
        })
        .collect();
    structure
        .facts
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let eligible = !f.disabled
                && f.class != RoleClass::Static
                && match action {
                    ActionKind::Type => f.class == RoleClass::Editable,
                    ActionKind::Click => f.class != RoleClass::Editable,
                    _ => false,
                };
            let role = matches!(f.class, RoleClass::Activatable | RoleClass::Toggle)
                || action == ActionKind::Type;
            let agrees = eligible
                && role
                && !destructive(&f.label)
                && i < observation.elements.len()
                && on_screen.iter().all(|t| carried(t, i));
            Fit { eligible, agrees }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ELIGIBLE: Fit = Fit {
        eligible: true,
        agrees: false,
    };
    const AGREES: Fit = Fit {
        eligible: true,
        agrees: true,
    };
    const OUT: Fit = Fit {
        eligible: false,
        agrees: false,
    };

    fn sim(text: &[f32], label: &[f32]) -> Similarity {
        Similarity {
            text: text.to_vec(),
            label: label.to_vec(),
        }
    }

    struct Row {
        name: &'static str,
        lexical: &'static [f32],
        text: &'static [f32],
        label: &'static [f32],
        fits: &'static [Fit],
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
                fits: &[AGREES, AGREES, AGREES],
                want: &[0.9, 0.1, 0.0],
            },
            Row {
                name: "clear margin and agreement act",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.70, 0.51, 0.31],
                label: &[0.80, 0.47, 0.30],
                fits: &[AGREES, AGREES, AGREES],
                want: &[ACT_SCORE, 0.0, 0.0],
            },
            Row {
                name: "no agreement (role, words, destructive): ask only",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.70, 0.51, 0.31],
                label: &[0.80, 0.47, 0.30],
                fits: &[ELIGIBLE, AGREES, AGREES],
                want: &[ASK_SCORE, 0.0, 0.0],
            },
            Row {
                name: "a small margin asks about both",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.74, 0.72, 0.2],
                label: &[0.74, 0.72, 0.2],
                fits: &[AGREES, AGREES, AGREES],
                want: &[ASK_SCORE, ASK_SCORE, 0.0],
            },
            Row {
                name: "the verb fits another element's name better: ask",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.70, 0.50, 0.31],
                label: &[0.40, 0.80, 0.30],
                fits: &[AGREES, AGREES, AGREES],
                want: &[ASK_SCORE, 0.0, 0.0],
            },
            Row {
                name: "a lexical candidate elsewhere: meaning only adds a candidate",
                lexical: &[0.0, 0.4, 0.0],
                text: &[0.70, 0.40, 0.31],
                label: &[0.80, 0.40, 0.30],
                fits: &[AGREES, AGREES, AGREES],
                want: &[ASK_SCORE, 0.4, 0.0],
            },
            Row {
                name: "weak meaning adds nothing",
                lexical: &[0.0, 0.2, 0.0],
                text: &[0.45, 0.40, 0.31],
                label: &[0.80, 0.40, 0.30],
                fits: &[AGREES, AGREES, AGREES],
                want: &[0.0, 0.2, 0.0],
            },
            Row {
                name: "ineligible elements are never raised",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.90, 0.55, 0.1],
                label: &[0.90, 0.55, 0.1],
                fits: &[OUT, AGREES, AGREES],
                want: &[0.0, ACT_SCORE, 0.0],
            },
            Row {
                name: "duplicates (same text) do not block the margin",
                lexical: &[0.0, 0.0, 0.0],
                text: &[0.70, 0.70, 0.3],
                label: &[0.80, 0.80, 0.3],
                fits: &[AGREES, AGREES, AGREES],
                want: &[ACT_SCORE, 0.0, 0.0],
            },
        ];
        for row in rows {
            let got = blend(row.lexical, Some(&sim(row.text, row.label)), row.fits);
            assert_eq!(got, row.want, "{}", row.name);
        }
    }

    #[test]
    fn without_a_similarity_nothing_changes() {
        let lexical = [0.3, 0.1];
        assert_eq!(blend(&lexical, None, &[AGREES, AGREES]), lexical);
        // A similarity for another observation (wrong length) is ignored.
        let s = sim(&[0.9], &[0.9]);
        assert_eq!(blend(&lexical, Some(&s), &[AGREES, AGREES]), lexical);
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
        assert!(!destructive(&t("You must be signed in to star a repository")));
    }
}

//! Which language a screen is written in, from its small words: enough to choose a glossary.
//!
//! Architecture invariant: pure. Labels, contexts and the title are counted against short lists
//! of function words; the language with the most (at least three, more than English) wins.

use super::text;
use crate::model::Observation;
use std::collections::HashSet;

/// Languages Circe can read a screen in, as ISO 639-1 codes, with their function words.
const FUNCTION_WORDS: &[(&str, &[&str])] = &[
    (
        "en",
        &[
            "the", "and", "of", "to", "for", "with", "your", "you", "is", "on", "more", "this",
            "are", "by", "from", "our", "all", "new", "at", "in", "about", "how", "what", "my",
        ],
    ),
    (
        "de",
        &[
            "der", "die", "das", "und", "mit", "fur", "von", "zu", "den", "dem", "des", "ist",
            "ein", "eine", "im", "auf", "nicht", "mehr", "sie", "ihre", "jetzt", "alle", "oder",
            "bei", "zum", "zur", "aus", "wie", "uber", "mein", "unsere", "ihr",
        ],
    ),
    (
        "fr",
        &[
            "le", "la", "les", "et", "des", "du", "un", "une", "pour", "avec", "sur", "dans",
            "est", "vous", "votre", "vos", "plus", "au", "aux", "par", "ne", "pas", "mon", "nos",
        ],
    ),
    (
        "es",
        &[
            "el", "los", "las", "y", "del", "para", "con", "por", "una", "es", "su", "sus", "mas",
            "al", "que", "se", "mi", "nuestro", "como",
        ],
    ),
    (
        "it",
        &[
            "il", "lo", "gli", "di", "della", "per", "con", "che", "non", "piu", "dei", "delle",
            "alla", "sono", "questo", "nel", "il",
        ],
    ),
    (
        "nl",
        &[
            "het", "een", "en", "van", "voor", "met", "op", "niet", "meer", "naar", "bij", "uw",
            "je", "ons", "om", "te", "zijn", "onze",
        ],
    ),
    (
        "pt",
        &[
            "os", "e", "do", "da", "dos", "das", "em", "para", "com", "um", "uma", "nao", "mais",
            "por", "no", "na", "seu", "sua",
        ],
    ),
];

/// The language of the screen's words (`"de"`, `"fr"`, …), or `None` when too few small words
/// say it. English wins ties: a glossary is only for screens that are clearly not English.
pub fn of(observation: &Observation) -> Option<&'static str> {
    let mut seen_contexts = HashSet::new();
    let mut words: Vec<String> = text::tokens(&observation.title)
        .into_iter()
        .map(|t| t.norm)
        .collect();
    for e in &observation.elements {
        words.extend(text::tokens(&e.label).into_iter().map(|t| t.norm));
        if seen_contexts.insert(e.context.as_str()) {
            words.extend(text::tokens(&e.context).into_iter().map(|t| t.norm));
        }
    }
    of_words(words.iter().map(String::as_str))
}

/// The same over any words (already lower-case and folded).
pub fn of_words<'a>(words: impl Iterator<Item = &'a str>) -> Option<&'static str> {
    let mut counts = [0usize; FUNCTION_WORDS.len()];
    for w in words {
        for (k, (_, list)) in FUNCTION_WORDS.iter().enumerate() {
            if list.contains(&w) {
                counts[k] += 1;
            }
        }
    }
    let english = counts[0];
    let (best, n) = counts
        .iter()
        .enumerate()
        .skip(1)
        .max_by_key(|(_, n)| **n)
        .map(|(k, n)| (k, *n))?;
    if n >= 3 && n > english {
        Some(FUNCTION_WORDS[best].0)
    } else if english >= 3 {
        Some("en")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_words_tell_the_language() {
        let table = [
            (
                "Jetzt vergleichen und sparen mit der Hotline für alle Kunden",
                Some("de"),
            ),
            (
                "Abonnez-vous pour lire la suite de nos articles et des dossiers",
                Some("fr"),
            ),
            (
                "Inicia sesión para ver los precios de las ofertas del día",
                Some("es"),
            ),
            (
                "Sign in to see more of your feed and all the new posts",
                Some("en"),
            ),
            // Mixed: English wins ties.
            ("the and for der die das", Some("en")),
            ("Login", None),
        ];
        for (words, want) in table {
            let tokens = text::tokens(words);
            let got = of_words(tokens.iter().map(|t| t.norm.as_str()));
            assert_eq!(got, want, "{words}");
        }
    }
}

//! The glossary: English glosses of the words of a screen in another language, so a person who
//! says "electricity" on a German page meets its "Strom", and "insurance" its "Versicherungen".
//!
//! Built once by `circe install-glossary` from FreeDict's dictionaries (the Debian packages
//! `dict-freedict-{deu,fra,spa,ita,nld,por,pol,ces,swe,dan,jpn,fin,hun,tur,hrv,ell,slv}-eng` and
//! `dict-freedict-eng-{…}`,
//! dictd format under `/usr/share/dictd`) into sorted files per language: `<dir>/<lang>.tsv`
//! (the language's words in English) and `<dir>/en-<lang>.tsv` (English words in the language),
//! each line `word<TAB>gloss gloss …` (folded, lower case, first sense first, at most
//! `MAX_GLOSSES`). A direction that is missing or thin (under a tenth of the other's words:
//! FreeDict's Czech-English has a few hundred, its English-Czech a hundred thousand) is filled
//! in from the other read backwards, for the words it lacks ("account" → "účet" gives "ucet" →
//! account). Both
//! directions meet on the screen's words: a label word's English glosses, and the English words
//! said that translate into a label word. The directory is `$CIRCE_GLOSSARY_DIR` when set,
//! else `<data dir>/glossary`. Loaded at start (a few MB per language, looked up by binary
//! search); without it the Director matches words as before, and `circe doctor` says so.
//!
//! Japanese is written without spaces: a run of it is read as the dictionary's words
//! (`segments`: "犬の顔の折り紙" → 犬 dog, 顔 face, 折り紙 origami), and the run is glossed by
//! all of them.
//!
//! The glosses only add evidence: a translated word counts for less than the label's own word
//! (`director::local`), and nothing here decides a target.

use crate::director::{language, text};
use crate::model::{Glosses, Observation};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Glosses kept per word.
pub const MAX_GLOSSES: usize = 16;
/// Where the Debian packages put the dictionaries.
pub const DICTD_DIR: &str = "/usr/share/dictd";
/// The languages read, as (ISO 639-1 code, FreeDict code).
pub const LANGUAGES: &[(&str, &str)] = &[
    ("de", "deu"),
    ("fr", "fra"),
    ("es", "spa"),
    ("it", "ita"),
    ("nl", "nld"),
    ("pt", "por"),
    ("pl", "pol"),
    ("cs", "ces"),
    ("sv", "swe"),
    ("da", "dan"),
    ("ja", "jpn"),
    // Norwegian (Bokmål) has only an English-Norwegian dictionary, read backwards.
    ("nb", "nor"),
    ("fi", "fin"),
    ("hu", "hun"),
    ("tr", "tur"),
    // Russian has no Russian-English dictionary among the packages: Mueller's English-Russian
    // one (package mueller7-dict, 7th edition, about 46,000 headwords) is read backwards.
    ("ru", "rus"),
    ("hr", "hrv"),
    ("el", "ell"),
    // Bulgarian and Indonesian have only English-to dictionaries, read backwards.
    ("bg", "bul"),
    ("id", "ind"),
    // Slovenian has only a Slovenian-English dictionary (5,500 headwords), read both ways.
    ("sl", "slv"),
];

/// Dictionaries published under another name than FreeDict's: (FreeDict name, file stem in
/// the dictd directory, Debian package).
const OTHER_DICTIONARIES: &[(&str, &str, &str)] = &[("eng-rus", "mueller7", "mueller7-dict")];

/// The file stem of the dictd dictionary `name` ("deu-eng") in `from`: the one published under
/// another name when it is there (Mueller's 46,000 headwords over FreeDict's 1,700), else
/// FreeDict's.
fn dictd_stem(from: &Path, name: &str) -> Option<String> {
    OTHER_DICTIONARIES
        .iter()
        .find(|(n, stem, _)| *n == name && from.join(format!("{stem}.index")).exists())
        .map(|(_, stem, _)| stem.to_string())
        .or_else(|| {
            let freedict = format!("freedict-{name}");
            from.join(format!("{freedict}.index"))
                .exists()
                .then_some(freedict)
        })
}

/// Languages whose written words mostly are another's too: a word the one's dictionary lacks is
/// looked up in the other's (Norwegian Bokmål and Danish; a screen with only the small words
/// the two share is read as Danish).
const SIBLINGS: &[(&str, &str)] = &[("nb", "da"), ("da", "nb")];

/// The dictionaries a screen's words are looked up in, in turn.
struct Shelf<'w>(Vec<&'w Words>);

impl<'w> Shelf<'w> {
    fn lookup(&self, word: &str) -> Option<&'w str> {
        self.0.iter().find_map(|w| w.lookup(word))
    }

    /// Every dictionary's senses of `word`, the screen's language's first ("bonde": pawn in the
    /// Norwegian dictionary, farmer in the Danish one).
    fn senses(&self, word: &str) -> Option<String> {
        let all: Vec<&str> = self.0.iter().filter_map(|w| w.lookup(word)).collect();
        (!all.is_empty()).then(|| all.join(" "))
    }
}

/// Directions FreeDict does not publish (a language's other direction is read backwards).
const UNPUBLISHED: &[&str] = &["nor-eng", "rus-eng", "bul-eng", "ind-eng", "eng-slv"];

/// The Debian packages the glossary is built from, both directions of every language
/// (`dict-freedict-deu-eng dict-freedict-eng-deu …`), for the messages that say what to install.
pub fn packages() -> String {
    LANGUAGES
        .iter()
        .flat_map(|(_, f)| [format!("{f}-eng"), format!("eng-{f}")])
        .filter(|d| !UNPUBLISHED.contains(&d.as_str()))
        .map(
            |d| match OTHER_DICTIONARIES.iter().find(|(n, _, _)| *n == d) {
                Some((_, _, package)) => package.to_string(),
                None => format!("dict-freedict-{d}"),
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, thiserror::Error)]
pub enum GlossaryError {
    #[error("no glossary in {0}: run `circe install-glossary` (it needs the Debian packages dict-freedict-deu-eng, dict-freedict-fra-eng, dict-freedict-pol-eng, …)")]
    NotInstalled(PathBuf),
    #[error("no FreeDict dictionary in {0}: apt-get install {packages}", packages = packages())]
    NoDictionaries(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {reason}")]
    Format { path: PathBuf, reason: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GlossaryError + '_ {
    move |source| GlossaryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The glossary directory: `$CIRCE_GLOSSARY_DIR`, else `<data dir>/glossary`.
pub fn dir(data_dir: &Path) -> PathBuf {
    match std::env::var_os("CIRCE_GLOSSARY_DIR") {
        Some(d) => PathBuf::from(d),
        None => data_dir.join("glossary"),
    }
}

/// One language's words: the file's text and where each line starts, sorted by word.
struct Words {
    language: &'static str,
    text: String,
    lines: Vec<u32>,
}

impl Words {
    fn parse(language: &'static str, text: String, path: &Path) -> Result<Words, GlossaryError> {
        let mut lines = Vec::new();
        let mut at = 0usize;
        let mut last: Option<&str> = None;
        for line in text.split_inclusive('\n') {
            let word = line.split('\t').next().unwrap_or("");
            if !line.contains('\t') || last.is_some_and(|l| l >= word) {
                return Err(GlossaryError::Format {
                    path: path.to_path_buf(),
                    reason: format!(
                        "line {} is not a sorted `word<TAB>glosses` line",
                        lines.len() + 1
                    ),
                });
            }
            last = Some(word);
            lines.push(at as u32);
            at += line.len();
        }
        Ok(Words {
            language,
            text,
            lines,
        })
    }

    fn line(&self, k: usize) -> &str {
        let start = self.lines[k] as usize;
        let end = self
            .lines
            .get(k + 1)
            .map_or(self.text.len(), |e| *e as usize);
        self.text[start..end].trim_end_matches('\n')
    }

    fn lookup(&self, word: &str) -> Option<&str> {
        let (mut lo, mut hi) = (0usize, self.lines.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let line = self.line(mid);
            let (w, glosses) = line.split_once('\t').unwrap_or((line, ""));
            match w.cmp(word) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(glosses),
            }
        }
        None
    }
}

/// The loaded glossary: the languages installed.
pub struct Glossary {
    languages: Vec<Words>,
    english: Vec<Words>,
}

impl Glossary {
    /// Every `<lang>.tsv` in `dir`; none at all is `NotInstalled`.
    pub fn load(dir: &Path) -> Result<Glossary, GlossaryError> {
        let (mut languages, mut english) = (Vec::new(), Vec::new());
        for (code, _) in LANGUAGES {
            for (name, into) in [
                (format!("{code}.tsv"), &mut languages),
                (format!("en-{code}.tsv"), &mut english),
            ] {
                let path = dir.join(name);
                if !path.exists() {
                    continue;
                }
                let text = std::fs::read_to_string(&path).map_err(io(&path))?;
                into.push(Words::parse(code, text, &path)?);
            }
        }
        if languages.is_empty() {
            return Err(GlossaryError::NotInstalled(dir.to_path_buf()));
        }
        Ok(Glossary { languages, english })
    }

    /// The words of `language` for the English `word` (folded, lower case).
    pub fn translate(&self, language: &str, word: &str) -> Vec<&str> {
        self.english
            .iter()
            .find(|w| w.language == language)
            .and_then(|w| w.lookup(word))
            .map(|g| g.split(' ').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    /// The languages loaded, with how many words each.
    pub fn languages(&self) -> Vec<(&'static str, usize)> {
        self.languages
            .iter()
            .map(|w| (w.language, w.lines.len()))
            .collect()
    }

    /// The languages whose dictionaries are in `from` (FreeDict's dictd files) but not in this
    /// glossary: built before they were installed, or before Circe read them.
    pub fn missing(&self, from: &Path) -> Vec<&'static str> {
        LANGUAGES
            .iter()
            .filter(|(code, _)| !self.languages.iter().any(|w| w.language == *code))
            .filter(|(_, f)| {
                [format!("{f}-eng"), format!("eng-{f}")]
                    .iter()
                    .any(|d| dictd_stem(from, d).is_some())
            })
            .map(|(code, _)| *code)
            .collect()
    }

    /// The English glosses of `word` (folded, lower case) in `language`.
    pub fn lookup(&self, language: &str, word: &str) -> Vec<&str> {
        self.languages
            .iter()
            .find(|w| w.language == language)
            .and_then(|w| w.lookup(word))
            .map(|g| g.split(' ').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    /// Glosses for the label words of a screen in another language; `None` for an English
    /// screen, an unknown language, or one this glossary does not have. A word not in the
    /// dictionary is looked up by its last part when it is a compound ("Nettokreditbetrag" →
    /// "betrag" → amount).
    pub fn glosses(&self, observation: &Observation) -> Option<Glosses> {
        self.glosses_for(observation, "")
    }

    /// The language of a screen whose small words say none (a menu: "Levesek", "Játékok",
    /// "Receptfeltöltés"): the one whose dictionary knows clearly the most of its labels'
    /// words (at least four, a third of them, twice the next language's), their base forms
    /// counted. Not Japanese (told by its writing system).
    fn by_vocabulary(&self, observation: &Observation) -> Option<&'static str> {
        let mut words = std::collections::BTreeSet::new();
        for e in &observation.elements {
            for t in text::tokens(&e.label) {
                if t.norm.chars().count() >= 4 && !t.is_number() {
                    words.insert(t.norm);
                }
            }
        }
        if words.len() < 6 {
            return None;
        }
        let mut counts: Vec<(&'static str, usize)> = self
            .languages
            .iter()
            .filter(|w| w.language != "ja")
            .map(|w| {
                let known = words
                    .iter()
                    .filter(|word| {
                        w.lookup(word).is_some()
                            || uninflected(w.language, word)
                                .iter()
                                .any(|b| w.lookup(b).is_some())
                    })
                    .count();
                (w.language, known)
            })
            .collect();
        counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        let (best, n) = *counts.first()?;
        let next = counts.get(1).map_or(0, |c| c.1);
        (n >= 4 && n * 3 >= words.len() && n >= 2 * next).then_some(best)
    }

    /// [`Glossary::glosses`], and the words `said` (English) wherever the English-to-page
    /// dictionary translates one of them into a label's word ("compare" → "vergleichen").
    pub fn glosses_for(&self, observation: &Observation, said: &str) -> Option<Glosses> {
        let language = language::of(observation).or_else(|| self.by_vocabulary(observation))?;
        let own = self.languages.iter().find(|w| w.language == language)?;
        if language == "ja" {
            return Some(self.japanese(own, observation, said));
        }
        let sibling = SIBLINGS
            .iter()
            .find(|(l, _)| *l == language)
            .and_then(|(_, s)| self.languages.iter().find(|w| w.language == *s));
        let words = &Shelf(std::iter::once(own).chain(sibling).collect());
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut add = |word: &str, gloss: &str| {
            let glosses = out.entry(word.to_string()).or_default();
            if !glosses.iter().any(|g| g == gloss) {
                glosses.push(gloss.to_string());
            }
        };
        let mut labels = std::collections::BTreeSet::new();
        for e in &observation.elements {
            // A control's name, and its description (a tooltip, "Wochenbericht 14. - 20. Januar
            // 2022" on the link "WoB 14.-20. Januar").
            let described = e.description.as_deref().unwrap_or("");
            // A closed list's choices too ("48 Monate").
            let choices = e.options.iter().flat_map(|o| text::tokens(o));
            // And the first word of its row, where a heading stands ("Bürgerservice" over the
            // links it heads).
            let row = text::tokens(&e.context).into_iter().take(1);
            for t in text::tokens(&e.label)
                .into_iter()
                .chain(text::tokens(described))
                .chain(choices)
                .chain(row)
            {
                if t.norm.chars().count() < 3
                    || t.is_number()
                    || language::is_function_word(language, &t.norm)
                    || !labels.insert(t.norm.clone())
                {
                    continue;
                }
                // An inflected form ("kurze Folgen") also means what its base form does
                // ("kurz": short); the dictionary may list the form only as another word
                // ("Kürze": shortness).
                let base = uninflected(language, &t.norm)
                    .into_iter()
                    .find_map(|b| words.senses(&b));
                // A word read as a compound only when it is no form of a known word
                // ("Desszertek" is desserts, not "desszer|tek").
                let (found, head): (Option<String>, Option<String>) = match words.senses(&t.norm) {
                    Some(g) => (Some(g), None),
                    None if base.is_none() && compounds(language) => {
                        match compound_parts(words, &t.norm) {
                            Some((head, tail)) => (Some(tail.to_string()), head),
                            None => (None, None),
                        }
                    }
                    None => (None, None),
                };
                // The word's own senses, its base form's and its first part's, in turn.
                let sources: Vec<Vec<&str>> = [found.as_deref(), base.as_deref(), head.as_deref()]
                    .into_iter()
                    .flatten()
                    .map(|g| g.split(' ').filter(|g| !g.is_empty()).collect())
                    .collect();
                let deepest = sources.iter().map(Vec::len).max().unwrap_or(0);
                for k in 0..deepest {
                    for g in sources.iter().filter_map(|s| s.get(k)) {
                        add(&t.norm, g);
                    }
                }
            }
        }
        for t in text::tokens(said) {
            if t.norm.chars().count() < 3 || t.is_number() {
                continue;
            }
            let sibling = SIBLINGS.iter().find(|(l, _)| *l == language);
            let translations = self.translate(language, &t.norm).into_iter().chain(
                sibling
                    .into_iter()
                    .flat_map(|(_, s)| self.translate(s, &t.norm)),
            );
            for foreign in translations {
                if labels.contains(foreign) {
                    add(foreign, &t.norm);
                }
                // The first or last part of a compound ("graduation" → "abschluss" in
                // "Abschlussfeiern", "main" → "haupt" in "Hauptmodul").
                if compounds(language) && foreign.chars().count() >= 4 {
                    let parts: Vec<String> = labels
                        .iter()
                        .filter(|l| {
                            l.chars().count() >= foreign.chars().count() + 3
                                && (l.starts_with(foreign) || l.ends_with(foreign))
                        })
                        .cloned()
                        .collect();
                    for label in parts {
                        add(&label, &t.norm);
                    }
                }
            }
        }
        Some(Glosses {
            language: language.to_string(),
            words: out,
        })
    }
}

impl Glossary {
    /// [`Glossary::glosses_for`] on a Japanese screen: each label's run of Japanese is glossed by
    /// the words it is read as (`segments`), a few glosses of each in turn; and an English word
    /// said glosses a run when its Japanese translation is one of the run's words, or a word of
    /// two characters or more inside it ("dog" → 犬 in "犬の顔の折り紙").
    fn japanese(&self, words: &Words, observation: &Observation, said: &str) -> Glosses {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut runs: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for e in &observation.elements {
            for t in text::tokens(&e.label) {
                if !t.norm.chars().any(japanese) || runs.contains_key(&t.norm) {
                    continue;
                }
                let found = segments(words, &t.norm);
                let mut glosses: Vec<String> = Vec::new();
                for k in 0..GLOSSES_PER_SEGMENT {
                    for (_, g) in &found {
                        if let Some(g) = g.split(' ').filter(|g| !g.is_empty()).nth(k) {
                            if glosses.len() < MAX_GLOSSES && !glosses.iter().any(|o| o == g) {
                                glosses.push(g.to_string());
                            }
                        }
                    }
                }
                if !glosses.is_empty() {
                    out.insert(t.norm.clone(), glosses);
                }
                runs.insert(t.norm, found.into_iter().map(|(w, _)| w).collect());
            }
        }
        for t in text::tokens(said) {
            if t.norm.chars().count() < 3 || t.is_number() {
                continue;
            }
            for foreign in self.translate("ja", &t.norm) {
                for (run, read) in &runs {
                    let inside = foreign.chars().count() >= 2 && run.contains(foreign);
                    if inside || read.iter().any(|w| w == foreign) {
                        let glosses = out.entry(run.clone()).or_default();
                        if !glosses.contains(&t.norm) {
                            glosses.push(t.norm.clone());
                        }
                    }
                }
            }
        }
        Glosses {
            language: "ja".to_string(),
            words: out,
        }
    }
}

/// Glosses taken from each word of a Japanese run, first senses first.
const GLOSSES_PER_SEGMENT: usize = 4;
/// The longest Japanese word looked up, in characters.
const MAX_SEGMENT: usize = 12;

/// A character of Japanese writing: kana or kanji.
fn japanese(c: char) -> bool {
    text::is_kana(c) || text::is_ideograph(c)
}

/// Japanese particles: a lone one between words is no word of its own (の, を, は …).
const PARTICLES: &[char] = &[
    'の', 'を', 'は', 'が', 'に', 'へ', 'と', 'で', 'も', 'や', 'か', 'な', 'ね', 'よ',
];

/// A run of Japanese read as the dictionary's words, with their glosses: the reading that leaves
/// the fewest characters unread (a lone particle costs half of another character), then the one
/// of fewest words. A lone kana is never a word, a lone kanji may be. "いぬのかお" is いぬ, の,
/// かお (dog, face), not いぬ, のか, お.
fn segments<'w>(words: &'w Words, run: &str) -> Vec<(String, &'w str)> {
    /// The best reading of a run's first characters: what it left unread, its words, where its
    /// last step began and that step's glosses (`None`: a character left unread).
    #[derive(Clone, Copy)]
    struct Reading<'w> {
        cost: usize,
        count: usize,
        from: usize,
        glosses: Option<&'w str>,
    }
    let chars: Vec<char> = run.chars().collect();
    let n = chars.len();
    let mut best: Vec<Option<Reading<'w>>> = vec![None; n + 1];
    best[0] = Some(Reading {
        cost: 0,
        count: 0,
        from: 0,
        glosses: None,
    });
    for i in 0..n {
        let Some(Reading { cost, count, .. }) = best[i] else {
            continue;
        };
        let skip = if PARTICLES.contains(&chars[i]) { 1 } else { 2 };
        let mut relax = |j: usize, cost: usize, count: usize, glosses: Option<&'w str>| {
            if best[j].is_none_or(|b| (cost, count) < (b.cost, b.count)) {
                best[j] = Some(Reading {
                    cost,
                    count,
                    from: i,
                    glosses,
                });
            }
        };
        relax(i + 1, cost + skip, count, None);
        for len in 1..=MAX_SEGMENT.min(n - i) {
            let piece = &chars[i..i + len];
            if !piece.iter().all(|c| japanese(*c)) {
                break;
            }
            if len == 1 && !text::is_ideograph(piece[0]) {
                continue;
            }
            let word: String = piece.iter().collect();
            if let Some(glosses) = words.lookup(&word) {
                relax(i + len, cost, count + 1, Some(glosses));
            }
        }
    }
    let mut out = Vec::new();
    let mut at = n;
    while at > 0 {
        let Some(Reading { from, glosses, .. }) = best[at] else {
            break;
        };
        if let Some(glosses) = glosses {
            out.push((chars[from..at].iter().collect(), glosses));
        }
        at = from;
    }
    out.reverse();
    out
}

/// The base forms an inflected word may have, by the language's endings (German adjectives
/// "kurze", "kleinen"; French "petites"; Spanish "cortos"; Polish "komentarze", "strony";
/// Swedish "bilarna"; …), each ending cut and, where given, the base form's own ending put in
/// its place (Polish "strony" → "strona", "nowego" → "nowy"); longest ending first, the stem
/// never shorter than three letters. Words are folded ("składy" → "sklady" → "sklad").
fn uninflected(language: &str, word: &str) -> Vec<String> {
    let endings: &[(&str, &str)] = match language {
        // Adjectives' and nouns' endings, the genitive's "s" ("des Esszimmers") and the
        // plural's "n" ("Feiern").
        "de" => &[
            ("en", ""),
            ("em", ""),
            ("er", ""),
            ("es", ""),
            ("e", ""),
            ("s", ""),
            ("n", ""),
        ],
        "fr" => &[("es", ""), ("e", ""), ("s", "")],
        "es" | "pt" => &[("as", ""), ("os", ""), ("a", ""), ("o", ""), ("s", "")],
        // Plurals to their singular ("ricette" → "ricetta", "legumi" → "legume", "libri" →
        // "libro"), and the bare stem.
        "it" => &[
            ("e", "a"),
            ("i", "o"),
            ("i", "e"),
            ("a", ""),
            ("e", ""),
            ("i", ""),
            ("o", ""),
        ],
        "nl" => &[("e", "")],
        // Nouns' plural and case endings (masculine "komentarze", "meczu", "składów",
        // feminine "strony", "relacji"), adjectives' to their masculine "-y".
        "pl" => &[
            ("ami", ""),
            ("ach", ""),
            ("ami", "a"),
            ("ach", "a"),
            ("ego", "y"),
            ("ych", "y"),
            ("ymi", "y"),
            ("ow", ""),
            ("om", ""),
            ("em", ""),
            ("ie", "a"),
            ("ej", "y"),
            ("ym", "y"),
            ("y", ""),
            ("y", "a"),
            ("e", ""),
            ("e", "y"),
            ("e", "a"),
            ("i", ""),
            ("i", "a"),
            ("u", ""),
            ("a", ""),
            ("a", "y"),
        ],
        // The same for Czech ("komentáře", "zápasu", "stránky", "nového").
        "cs" => &[
            ("ami", ""),
            ("ach", ""),
            ("ech", ""),
            ("ami", "a"),
            ("ach", "a"),
            ("eho", "y"),
            ("ych", "y"),
            ("ymi", "y"),
            ("ove", ""),
            ("um", ""),
            ("em", ""),
            ("ou", "a"),
            ("ym", "y"),
            ("y", ""),
            ("y", "a"),
            ("e", ""),
            ("e", "y"),
            ("e", "a"),
            ("i", ""),
            ("u", ""),
            ("u", "a"),
            ("a", ""),
            ("a", "y"),
        ],
        // Plurals and the definite article's endings ("bilarna", "husen", "flickor", "flickan").
        "sv" => &[
            ("arna", ""),
            ("erna", ""),
            ("orna", "a"),
            ("ar", ""),
            ("er", ""),
            ("or", "a"),
            ("en", ""),
            ("et", ""),
            ("na", ""),
            ("n", ""),
        ],
        // ("bilerne", "husene", "biler", "bilen", "huset", "store", "kaffen"; Norwegian
        // "oppskrifter", "bilene").
        "da" | "nb" => &[
            // The genitive: "bondens" (the farmer's), "husets".
            ("ens", "e"),
            ("erne", ""),
            ("ene", ""),
            ("er", ""),
            ("en", ""),
            ("et", ""),
            ("ne", ""),
            ("e", ""),
            ("n", ""),
            ("s", ""),
        ],
        // Plurals and the accusative ("levesek", "játékok", "receptet"; folded).
        "hu" => &[
            ("ek", ""),
            ("ok", ""),
            ("ak", ""),
            ("et", ""),
            ("ot", ""),
            ("at", ""),
            ("k", ""),
            ("t", ""),
        ],
        // Plurals and the commonest cases ("reseptit", "kaupassa", "kotiin" aside).
        "fi" => &[
            // "-nen" nouns' plurals ("uutiset": uutinen), superlatives ("tuoreimmat": tuore,
            // "uusimmat": uusi).
            ("set", "nen"),
            ("immat", ""),
            ("immat", "i"),
            ("ssa", ""),
            ("sta", ""),
            ("lla", ""),
            ("lta", ""),
            ("lle", ""),
            ("ksi", ""),
            ("ja", ""),
            ("t", ""),
            ("n", ""),
            ("a", ""),
        ],
        // Plurals, the possessive and locative endings ("tarifler", "haberleri", "evde").
        "tr" => &[
            ("leri", ""),
            ("lari", ""),
            ("ler", ""),
            ("lar", ""),
            ("den", ""),
            ("dan", ""),
            ("de", ""),
            ("da", ""),
            ("si", ""),
            ("su", ""),
            ("i", ""),
            ("u", ""),
        ],
        // Russian: nouns' plural and case endings to the nominative singular ("новости":
        // новость, "турниры", "фотогалереи", "букмекеров", "календаря"), adjectives' to their
        // masculine ("главная": главный, "мировые", "нового").
        "ru" => &[
            ("ого", "ый"),
            ("ий", "ия"),
            ("его", "ий"),
            ("ами", ""),
            ("ями", "я"),
            ("ями", "ь"),
            ("ая", "ый"),
            ("яя", "ий"),
            ("ое", "ый"),
            ("ее", "ий"),
            ("ые", "ый"),
            ("ие", "ий"),
            ("ой", "ый"),
            ("ую", "ый"),
            ("ых", "ый"),
            ("их", "ий"),
            ("ым", "ый"),
            ("им", "ий"),
            ("ов", ""),
            ("ев", ""),
            ("ей", "ь"),
            ("ей", ""),
            ("ам", ""),
            ("ям", "я"),
            ("ах", ""),
            ("ях", "я"),
            ("ом", ""),
            ("ем", ""),
            ("ой", "а"),
            ("ы", ""),
            ("ы", "а"),
            ("и", ""),
            ("и", "ь"),
            ("и", "я"),
            ("и", "а"),
            ("а", ""),
            ("а", "о"),
            ("я", "ь"),
            ("я", "е"),
            ("я", "й"),
            ("у", ""),
            ("у", "а"),
            ("ю", "я"),
            ("ю", "ь"),
            ("е", ""),
            ("е", "а"),
        ],
        // Croatian: nouns' case and plural endings to the nominative ("liječnika": liječnik,
        // "košaricu": košarica, "usluge": usluga), adjectives' to their masculine
        // ("zdravstvene": zdravstveni, "novog": novi), and imperatives to the infinitive a
        // dictionary lists ("pitaj": pitati, "pretraži": pretražiti).
        "hr" => &[
            ("ajte", "ati"),
            ("ite", "iti"),
            ("aj", "ati"),
            ("i", "iti"),
            ("ima", ""),
            ("ama", "a"),
            ("om", ""),
            ("og", "i"),
            ("oj", "i"),
            ("em", ""),
            ("a", ""),
            ("e", "a"),
            ("e", "i"),
            ("u", "a"),
            ("u", ""),
            ("i", "a"),
            ("i", ""),
            ("e", ""),
            ("o", ""),
        ],
        // Slovenian: as Croatian, and its own: the plural imperative ("vprašajte": vprašati),
        // the adjective's masculine in -en ("brezplačna": brezplačen) and the fleeting e
        // ("pripomočki": pripomoček).
        "sl" => &[
            ("ajte", "ati"),
            ("ite", "iti"),
            ("aj", "ati"),
            ("i", "iti"),
            ("ki", "ek"),
            ("na", "en"),
            ("no", "en"),
            ("ne", "en"),
            ("ami", ""),
            ("om", ""),
            ("ega", "i"),
            ("em", ""),
            ("a", "e"),
            ("a", "o"),
            ("a", ""),
            ("o", "a"),
            ("e", "a"),
            ("u", ""),
            ("i", "a"),
            ("i", ""),
            ("e", ""),
            ("o", ""),
        ],
        _ => &[],
    };
    let mut out: Vec<String> = Vec::new();
    for (ending, base) in endings {
        let Some(stem) = word.strip_suffix(ending) else {
            continue;
        };
        let form = format!("{stem}{base}");
        if stem.chars().count() >= 3 && form != word && !out.contains(&form) {
            out.push(form);
        }
    }
    out
}

/// Whether the language makes words by joining others, so that an unknown long word may be read
/// by its last part (German "Nettokreditbetrag", Swedish "kundtjänst"); not Polish and Czech,
/// where a long word's tail is mostly a prefixed verb's or noun's own ("udostępnij").
fn compounds(language: &str) -> bool {
    !matches!(language, "pl" | "cs" | "ru")
}

/// A compound of eight letters or more read as its parts: the glosses of its longest known last
/// part (four letters or more), and of the part before it when that is a word of four letters
/// or more too, with or without a joining "s", or with the "-e" a first part drops
/// ("Abschluss|feiern": graduation, celebrations; "Arbeits|zeit": work, time; "Best|preis":
/// "best" is "premier", "beste" best; "Schul|buch": school).
fn compound_parts<'w>(words: &Shelf<'w>, word: &str) -> Option<(Option<String>, &'w str)> {
    if word.chars().count() < 8 {
        return None;
    }
    let (at, tail) = word
        .char_indices()
        .skip(3)
        .filter(|(i, _)| word[*i..].chars().count() >= 4)
        .find_map(|(i, _)| {
            // The last part in a form of its own ("alue|uutiset": news, from "uutinen").
            let tail = &word[i..];
            let language = words.0.first().map_or("", |w| w.language);
            words
                .lookup(tail)
                .or_else(|| {
                    uninflected(language, tail)
                        .iter()
                        .find_map(|b| words.lookup(b))
                })
                .map(|g| (i, g))
        })?;
    let first = &word[..at];
    let with_e = format!("{first}e");
    let heads: Vec<&str> = [Some(first), first.strip_suffix('s'), Some(with_e.as_str())]
        .into_iter()
        .flatten()
        .filter(|h| h.chars().count() >= 4)
        .filter_map(|h| words.lookup(h))
        .collect();
    let head = (!heads.is_empty()).then(|| heads.join(" "));
    Some((head, tail))
}

/// What `install` wrote for one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub language: &'static str,
    /// English words in `language` (else `language`'s words in English).
    pub english_to: bool,
    pub words: usize,
    /// Of `words`, those read backwards from the other direction's dictionary (this one missing
    /// or thin).
    pub reversed: usize,
    pub path: PathBuf,
}

/// A direction with fewer words than this fraction of the other's is filled in from the other.
const THIN: usize = 10;

/// Convert every FreeDict `<xxx>-eng` and `eng-<xxx>` dictionary found in `from` into
/// `<to>/<lang>.tsv` and `<to>/en-<lang>.tsv`; a direction missing or thin is filled in from the
/// other read backwards.
pub fn install(from: &Path, to: &Path) -> Result<Vec<Installed>, GlossaryError> {
    std::fs::create_dir_all(to).map_err(io(to))?;
    let mut done = Vec::new();
    for (code, freedict) in LANGUAGES {
        let read = |name: String| -> Result<Option<Dictd>, GlossaryError> {
            let Some(stem) = dictd_stem(from, &name) else {
                return Ok(None);
            };
            let index = from.join(format!("{stem}.index"));
            let dict = from.join(format!("{stem}.dict.dz"));
            if !dict.exists() {
                return Ok(None);
            }
            read_dictd(&index, &dict).map(Some)
        };
        let into = read(format!("{freedict}-eng"))?;
        let out_of = read(format!("eng-{freedict}"))?;
        for (this, other, name, english_to) in [
            (&into, &out_of, code.to_string(), false),
            (&out_of, &into, format!("en-{code}"), true),
        ] {
            let mut entries = this.as_ref().map(|d| d.words.clone()).unwrap_or_default();
            let mut reversed = 0;
            if let Some(other) = other {
                if entries.len() * THIN < other.words.len() {
                    for (word, glosses) in &other.reversed {
                        if !entries.contains_key(word) {
                            entries.insert(word.clone(), glosses.clone());
                            reversed += 1;
                        }
                    }
                }
            }
            if entries.is_empty() {
                continue;
            }
            let path = to.join(format!("{name}.tsv"));
            let tmp = to.join(format!(".{name}.tsv.tmp"));
            let mut text = String::new();
            for (word, glosses) in &entries {
                text.push_str(word);
                text.push('\t');
                text.push_str(&glosses.join(" "));
                text.push('\n');
            }
            std::fs::write(&tmp, text).map_err(io(&tmp))?;
            std::fs::rename(&tmp, &path).map_err(io(&path))?;
            done.push(Installed {
                language: code,
                english_to,
                words: entries.len(),
                reversed,
                path,
            });
        }
    }
    if !done.iter().any(|d| !d.english_to) {
        return Err(GlossaryError::NoDictionaries(from.to_path_buf()));
    }
    Ok(done)
}

/// One dictd dictionary read both ways.
struct Dictd {
    /// Headword → gloss words (`gloss_words`).
    words: BTreeMap<String, Vec<String>>,
    /// A one-word gloss → the headwords it glosses, in dictionary order.
    reversed: BTreeMap<String, Vec<String>>,
}

/// A dictd dictionary as word → glosses: one-word headwords only, folded to lower case; each
/// entry's sense lines read by `gloss_words`, senses of the same word merged in order; and
/// backwards, each one-word gloss → its headwords.
fn read_dictd(index: &Path, dict: &Path) -> Result<Dictd, GlossaryError> {
    // The index: headword, offset, length (dictd's base64 numbers), in headword order. The
    // database's description (an empty word here) says how its entries are written.
    let mut entries: Vec<(u64, u64, String)> = Vec::new();
    let file = std::fs::File::open(index).map_err(io(index))?;
    for line in BufReader::new(file).lines() {
        let line = line.map_err(io(index))?;
        let mut parts = line.split('\t');
        let (Some(word), Some(offset), Some(len)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let info = word == "00databaseinfo" || word == "00-database-info";
        let folded = if info {
            String::new()
        } else {
            if word.starts_with("00") || word.contains('-') {
                continue;
            }
            let Some(word) = headword(word) else {
                continue;
            };
            let folded = text::fold(&word.to_lowercase());
            if !word_kept(&folded) || !folded.chars().all(char::is_alphanumeric) {
                continue;
            }
            folded
        };
        let (Some(offset), Some(len)) = (b64(offset), b64(len)) else {
            return Err(GlossaryError::Format {
                path: index.to_path_buf(),
                reason: format!("bad offset or length in {line:?}"),
            });
        };
        entries.push((offset, len, folded));
    }
    entries.sort_by_key(|e| e.0);
    // The dictionary, inflated as a stream; the entries are read in offset order.
    let file = std::fs::File::open(dict).map_err(io(dict))?;
    let mut body = flate2::read::MultiGzDecoder::new(BufReader::new(file));
    let mut at = 0u64;
    let mut words: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut reversed: BTreeMap<String, Vec<(usize, String)>> = BTreeMap::new();
    let mut format = Format::Plain;
    let mut buf = Vec::new();
    let mut last: Option<(u64, u64)> = None;
    for (offset, len, word) in entries {
        // An entry the index names under several headwords (Japanese: its kanji and its kana
        // spellings, 犬 and いぬ) is read once, for all of them.
        if last != Some((offset, len)) {
            if offset < at {
                continue; // an entry overlapping the one before
            }
            std::io::copy(&mut (&mut body).take(offset - at), &mut std::io::sink())
                .map_err(io(dict))?;
            buf.clear();
            (&mut body)
                .take(len)
                .read_to_end(&mut buf)
                .map_err(io(dict))?;
            at = offset + buf.len() as u64;
            last = Some((offset, len));
        }
        let entry = String::from_utf8_lossy(&buf);
        if word.is_empty() {
            if entry.contains("WikDict") {
                format = Format::WikDict;
            } else if entry.contains("JMdict") {
                format = Format::Jmdict;
            } else if entry.contains("Mueller") {
                format = Format::Mueller;
            }
            continue;
        }
        let glosses = words.entry(word.clone()).or_default();
        for g in gloss_words_in(&entry, format) {
            if glosses.len() < MAX_GLOSSES && !glosses.contains(&g) {
                glosses.push(g);
            }
        }
        for (rank, item) in one_word_glosses(&entry, format).into_iter().enumerate() {
            let back = reversed.entry(item).or_default();
            if !back.iter().any(|(_, w)| *w == word) {
                back.push((rank, word.clone()));
            }
        }
    }
    words.retain(|_, g| !g.is_empty());
    // A headword the gloss translates first comes first ("výsledek": result, before
    // accomplishment, of which it is the fourth).
    let reversed = reversed
        .into_iter()
        .map(|(item, mut back)| {
            back.sort_by_key(|(rank, _)| *rank);
            let back = back.into_iter().take(MAX_GLOSSES).map(|(_, w)| w).collect();
            (item, back)
        })
        .collect();
    Ok(Dictd { words, reversed })
}

/// Words of a dictionary phrase that only stand for its objects ("jdn./etw. mit jdm./etw.
/// vergleichen": somebody, something, with).
const PLACEHOLDERS: &[&str] = &[
    "sich",
    "mit",
    "an",
    "auf",
    "über",
    "von",
    "zu",
    "für",
    "in",
    "aus",
    "um",
    "gegen",
    "nach",
    "vor",
    "bei",
    "qn",
    "qc",
    "algo",
    "alguien",
    "qualcuno",
    "qualcosa",
    "iets",
    "iem",
    "alg",
    "to",
    "sb",
    "sth",
    "sbsth",
    "with",
    "oneself",
    "somebody",
    "something",
    "a",
    "an",
    "the",
];

/// The one word a headword is about: the headword itself, or the one word of a phrase whose
/// other words are placeholders ("jdnetw mit jdmetw vergleichen" → "vergleichen").
fn headword(word: &str) -> Option<&str> {
    let mut content = word
        .split_whitespace()
        .filter(|w| !(w.starts_with("jd") || w.starts_with("etw") || PLACEHOLDERS.contains(w)));
    let one = content.next()?;
    content.next().is_none().then_some(one)
}

/// dictd's base64 number.
fn b64(s: &str) -> Option<u64> {
    const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    s.bytes().try_fold(0u64, |n, c| {
        DIGITS
            .iter()
            .position(|d| *d == c)
            .map(|v| n * 64 + v as u64)
    })
}

/// English words that carry no meaning of their own in a gloss.
const GLOSS_STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "to",
    "of",
    "sth",
    "sb",
    "something",
    "somebody",
    "someone",
    "one",
    "ones",
    "be",
    "is",
    "and",
    "or",
    "with",
    "for",
    "in",
    "on",
    "at",
    "by",
    "from",
    "as",
    "etc",
    "up",
    "out",
    "into",
    "its",
    "his",
    "her",
    "their",
    "oneself",
    "s",
    "etw",
    "jdn",
    "jdm",
    "jds",
    "jd",
    "sich",
    "einer",
    "sache",
    "qn",
    "qc",
    "algo",
    "alguien",
    // Russian small words in a translation phrase ("сообщение для печати").
    "для",
    "на",
    "по",
    "от",
    "из",
    "за",
    "как",
    "что",
    "это",
    "или",
    "при",
    "без",
    "под",
    "над",
    "себя",
    "свой",
    "кого",
    "чего",
];

/// How a dictionary writes its entries' senses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// Every unindented line after the headword is a sense ("amount <n>, sum <n>").
    Plain,
    /// WikDict's (FreeDict's Polish-English): each sense's translations on one line, the line
    /// after the headword or one numbered "2. …", then a definition in the language itself
    /// ("1. commentary, comment" / "objaśnienie lub uzupełnienie …"), which is no gloss.
    WikDict,
    /// JMdict's (FreeDict's Japanese-English): numbered senses after lines of grammar in
    /// brackets; a sense may open with an indented note whose tag runs into the gloss
    /// ("Note: abbreviationhome"), and a sense noted archaic, obscure or vulgar is left out.
    Jmdict,
    /// Mueller's English-Russian: a transcription in brackets, grammar tags (`_n.`, `_v.`,
    /// `_юр.`), senses numbered "1)" (under "1. _n." and "_I" for homonyms), each sense's
    /// translations first, then examples that begin with English words ("to enter a room
    /// войти в комнату"), whose Russian is the example's, not the headword's.
    Mueller,
}

/// JMdict's note tags, as its notes begin.
const JMDICT_NOTES: &[&str] = &[
    "word usually written using kana alone",
    "word usually written using kanji alone",
    "honorific or respectful (sonkeigo) language",
    "humble (kenjougo) language",
    "polite (teineigo) language",
    "familiar language",
    "abbreviation",
    "colloquialism",
    "slang",
    "idiomatic expression",
    "onomatopoeic or mimetic word",
    "female term or language",
    "male term or language",
    "children's language",
    "jocular, humorous term",
    "yojijukugo",
    "poetical term",
    "proverb",
    "manga slang",
    "Internet slang",
    "dated term",
    "historical term",
    "euphemistic",
    "archaism",
    "obscure term",
    "obsolete term",
    "rare term",
    "vulgar expression or word",
    "derogatory",
    "sensitive",
    "rude or X-rated term",
];

/// Of those, the notes of senses that are no gloss of the word today.
const JMDICT_NOT_TODAY: &[&str] = &[
    "archaism",
    "obscure term",
    "obsolete term",
    "rare term",
    "vulgar expression or word",
    "derogatory",
    "sensitive",
    "rude or X-rated term",
];

/// A JMdict note line's gloss: what follows its tags, `None` when a tag says the sense is not
/// today's language.
fn jmdict_note(note: &str) -> Option<&str> {
    let mut rest = note.trim_start();
    loop {
        let Some(tag) = JMDICT_NOTES.iter().find(|t| rest.starts_with(**t)) else {
            return Some(rest);
        };
        if JMDICT_NOT_TODAY.contains(tag) {
            return None;
        }
        rest = rest[tag.len()..].trim_start();
    }
}

/// Whether a folded word may be a headword or a gloss: two letters or more, or one kanji
/// (Japanese 犬 dog, 松 pine).
fn word_kept(word: &str) -> bool {
    let mut chars = word.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => text::is_ideograph(c),
        (Some(_), Some(_)) => true,
        _ => false,
    }
}

/// A gloss word: English letters only (a pronunciation in the line is none), or Japanese
/// (English-Japanese entries: "犬, 狗").
fn gloss_word(word: &str) -> bool {
    word_kept(word)
        && (word.chars().all(|c| c.is_ascii_alphabetic())
            || word.chars().all(japanese)
            || word.chars().all(text::is_russian))
        && !GLOSS_STOPWORDS.contains(&word)
}

/// The gloss words of one dictd entry: the sense lines after the headword line ("amount <n>,
/// sum <n>", "1. account, bill"), without domains `[…]`, grammar `<…>`, notes `(…)`, examples,
/// synonyms and cross-references; one word per item, folded.
pub fn gloss_words(entry: &str) -> Vec<String> {
    gloss_words_in(entry, Format::Plain)
}

fn gloss_words_in(entry: &str, format: Format) -> Vec<String> {
    let lines = sense_lines(entry, format);
    // JMdict explains many words in a phrase ("conclusion from reasoning, judgement …, reason,
    // cause, meaning"): its short items (three words at most) are the glosses, the long ones
    // only when there is no short one.
    let short: Vec<String> = lines
        .iter()
        .flat_map(|l| l.split([',', ';']))
        .filter(|item| {
            let words = text::tokens(item)
                .into_iter()
                .filter(|t| gloss_word(&t.norm))
                .count();
            (1..=3).contains(&words)
        })
        .map(str::to_string)
        .collect();
    let lines = if format == Format::Jmdict && !short.is_empty() {
        short
    } else {
        lines
    };
    let mut out = Vec::new();
    for line in lines {
        for word in text::tokens(&line) {
            // `tokens` folded a German or French gloss's accents to ASCII already.
            let w = word.norm;
            if gloss_word(&w) && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// The glosses of one dictd entry that are one word each ("účet" of "account": "ucet"; not
/// "Jaderské moře" of "Adriatic"), folded: what the entry's headword translates back from.
fn one_word_glosses(entry: &str, format: Format) -> Vec<String> {
    let mut out = Vec::new();
    for line in sense_lines(entry, format) {
        for item in line.split([',', ';', '/']) {
            let words = text::tokens(item);
            let [word] = words.as_slice() else {
                continue;
            };
            let w = &word.norm;
            if gloss_word(w) && !out.contains(w) {
                out.push(w.clone());
            }
        }
    }
    out
}

/// A Mueller entry's translations: of each line that opens a sense ("1) новость, новости;
/// известие", "2. _a. главный"), the items before the first that holds a Latin letter (an
/// example, or a cross-reference "= mainmast"); grammar tags, numbering, the transcription
/// and notes in brackets taken off. A line that continues a sense, or a lettered one ("а)"),
/// holds examples only.
fn mueller_senses(entry: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in entry.lines().skip(1) {
        let mut rest = line.trim().to_string();
        let mut opens = false;
        loop {
            let t = rest.trim_start();
            // The transcription ("[njʊ:z]").
            if let Some(after) = t.strip_prefix('[').and_then(|b| b.split_once(']')) {
                rest = after.1.to_string();
                continue;
            }
            // A grammar tag ("_n.", "_pl.", "_юр.", "_I").
            if let Some(tag) = t.strip_prefix('_') {
                let end = tag.find([' ', '.']).map_or(tag.len(), |k| k + 1);
                rest = tag[end..].to_string();
                opens = true;
                continue;
            }
            // Numbering: "1.", "2)". Lettered lines ("а) в основном") mostly translate an
            // example phrase, not the headword: they open nothing.
            let marker = match t.chars().next() {
                Some(c) if c.is_ascii_digit() => {
                    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
                    t[end..].starts_with(['.', ')']).then_some(end + 1)
                }
                _ => None,
            };
            match marker {
                Some(end) => {
                    rest = t[end..].to_string();
                    opens = true;
                }
                None => break,
            }
        }
        if !opens {
            continue;
        }
        let rest = strip_brackets(&rest);
        let senses: Vec<&str> = rest
            .split(';')
            .take_while(|item| !item.chars().any(|c| c.is_ascii_alphabetic() || c == '='))
            .collect();
        let senses = senses.join(",");
        if senses.chars().any(text::is_russian) {
            out.push(senses.trim().to_string());
        }
    }
    out
}

/// The sense lines of one dictd entry, numbering and brackets taken off.
fn sense_lines(entry: &str, format: Format) -> Vec<String> {
    if format == Format::Mueller {
        return mueller_senses(entry);
    }
    let mut out = Vec::new();
    for (k, line) in entry.lines().enumerate().skip(1) {
        // JMdict leaves blank lines inside an entry; elsewhere a blank line ends the senses.
        if line.trim().is_empty() {
            if format == Format::Jmdict {
                continue;
            }
            break;
        }
        let indent = line.len() - line.trim_start().len();
        let line = line.trim();
        if format == Format::Jmdict {
            let gloss = match line.strip_prefix("Note:") {
                Some(note) => jmdict_note(note),
                None if indent >= 3 => None,
                None => Some(line),
            };
            if let Some(gloss) = gloss {
                let gloss = gloss
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start_matches('.');
                out.push(strip_brackets(gloss).trim().to_string());
            }
            continue;
        }
        let numbered = line.starts_with(|c: char| c.is_ascii_digit());
        if indent >= 3
            || line.starts_with('"')
            || line.starts_with("see:")
            || line.starts_with("Synonym")
            || line.starts_with("Note:")
            || (format == Format::WikDict && k > 1 && !numbered)
        {
            continue;
        }
        let line = line
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start_matches('.')
            .trim();
        out.push(strip_brackets(line));
    }
    out
}

fn strip_brackets(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '[' | '<' | '(' | '{' => depth += 1,
            ']' | '>' | ')' | '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gloss_lines_give_their_words() {
        let table = [
            (
                "Betrag /bətɾˈɑːk/ <masc, n, sg>\namount <n>, sum <n>\n         Note: of + numerical figure\n      \"zu viel bezahlter Betrag\"  - excess amount\n",
                vec!["amount", "sum"],
            ),
            (
                "Strom /ʃtɾˈoːm/ <masc, n, sg>\n [electr.] electric current <n>, current <n>\n      \"hoher Strom\"  - high current\n   Synonym: {elektrischer Strom}\n\n see: {Ströme}\n",
                vec!["electric", "current"],
            ),
            (
                "cuenta /kwˈɛnta/\n1. account, bill, invoice\n2. calculation\n",
                vec!["account", "bill", "invoice", "calculation"],
            ),
            (
                "Handy /hˈɛndiː/ <neut, n, sg>\n [telco.] mobile phone <n> [Br.] , mobile <n>, cell phone <n> [Am.]\n",
                vec!["mobile", "phone", "cell"],
            ),
        ];
        for (entry, want) in table {
            assert_eq!(gloss_words(entry), want, "{entry}");
        }
    }

    #[test]
    fn a_phrase_of_placeholders_and_one_word_is_that_word() {
        assert_eq!(headword("vergleichen"), Some("vergleichen"));
        assert_eq!(
            headword("jdnetw mit jdmetw vergleichen"),
            Some("vergleichen")
        );
        assert_eq!(headword("sich anmelden"), Some("anmelden"));
        assert_eq!(headword("vergleiche anstellen"), None);
        assert_eq!(headword("jdn"), None);
        assert_eq!(headword("to compare sth with sth"), Some("compare"));
    }

    #[test]
    fn dictd_numbers() {
        assert_eq!(b64("A"), Some(0));
        assert_eq!(b64("Bq"), Some(64 + 42));
        assert_eq!(b64("a!"), None);
    }

    /// A glossary file of `lines`, sorted as `install` writes them (by bytes: ページ after 前).
    fn words(lines: &[&str]) -> Words {
        let mut lines = lines.to_vec();
        lines.sort();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Words::parse("de", text, Path::new("t")).unwrap()
    }

    #[test]
    fn inflected_forms_have_their_base_forms() {
        assert_eq!(uninflected("de", "kurze"), ["kurz"]);
        assert_eq!(uninflected("de", "kleinen"), ["klein", "kleine"]);
        assert_eq!(uninflected("de", "esszimmers"), ["esszimmer"]);
        assert_eq!(uninflected("it", "ricette")[0], "ricetta");
        assert!(uninflected("it", "legumi").contains(&"legume".to_string()));
        assert_eq!(uninflected("fr", "petites"), ["petit", "petite"]);
        assert!(uninflected("de", "die").is_empty());
        assert!(uninflected("en", "short").is_empty());
    }

    #[test]
    fn inflected_forms_of_polish_czech_swedish_and_danish() {
        // (language, word as `text` folds it, a base form among those tried)
        let table = [
            ("pl", "komentarze", "komentarz"),
            ("pl", "sklady", "sklad"),
            ("pl", "meczu", "mecz"),
            ("pl", "meczow", "mecz"),
            ("pl", "meczami", "mecz"),
            ("pl", "strony", "strona"),
            ("pl", "relacji", "relacja"),
            ("pl", "stronie", "strona"),
            ("pl", "nowego", "nowy"),
            ("pl", "nowe", "nowy"),
            ("sl", "vprasajte", "vprasati"),
            ("sl", "naroci", "narociti"),
            ("sl", "brezplacna", "brezplacen"),
            ("sl", "pripomocki", "pripomocek"),
            ("sl", "vprasanja", "vprasanje"),
            ("sl", "odgovori", "odgovor"),
            ("cs", "komentare", "komentar"),
            ("cs", "zapasu", "zapas"),
            ("cs", "stranky", "stranka"),
            ("cs", "novou", "nova"),
            ("cs", "noveho", "novy"),
            ("sv", "bilarna", "bil"),
            ("sv", "bilar", "bil"),
            ("sv", "huset", "hus"),
            ("sv", "flickor", "flicka"),
            ("sv", "flickan", "flicka"),
            ("da", "bilerne", "bil"),
            ("da", "husene", "hus"),
            ("da", "bilen", "bil"),
            ("da", "store", "stor"),
            ("fi", "uutiset", "uutinen"),
            ("fi", "tuoreimmat", "tuore"),
            ("fi", "uusimmat", "uusi"),
            ("ru", "новости", "новость"),
            ("ru", "матчи", "матч"),
            ("ru", "турниры", "турнир"),
            ("ru", "фотогалереи", "фотогалерея"),
            ("ru", "букмекеров", "букмекер"),
            ("ru", "календаря", "календарь"),
            ("ru", "главная", "главный"),
            ("ru", "нового", "новый"),
            ("ru", "редакций", "редакция"),
            ("ru", "статьи", "статья"),
        ];
        for (language, word, base) in table {
            let got = uninflected(language, word);
            assert!(got.iter().any(|b| b == base), "{language} {word}: {got:?}");
        }
        // The first tried is the longest ending's.
        assert_eq!(uninflected("pl", "meczami")[0], "mecz");
        // Never a stem under three letters, never the word itself.
        assert!(uninflected("pl", "psy").is_empty());
        assert!(uninflected("sv", "bilar").iter().all(|b| b.len() >= 3));
        assert!(!uninflected("cs", "nova").contains(&"nova".to_string()));
    }

    fn glossary(language: &'static str, lines: &[&str]) -> Glossary {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Glossary {
            languages: vec![Words::parse(language, text, Path::new("t")).unwrap()],
            english: Vec::new(),
        }
    }

    fn element(label: &str) -> crate::model::Element {
        crate::model::Element {
            label: label.into(),
            ..Default::default()
        }
    }

    /// A Polish sports page's labels, capitals and diacritics and all, meet their base forms
    /// in a Polish glossary; a long Polish word is not read by its tail.
    #[test]
    fn a_polish_screen_is_glossed_by_base_forms() {
        let g = glossary(
            "pl",
            &[
                "chwila\tmoment minute",
                "komentarz\tcommentary comment",
                "mecz\tmatch",
                "relacja\tkinship relation story",
                "sklad\tline",
                "stepnij\tjunk",
                "zywo\tvividly",
            ],
        );
        let observation = Observation {
            title: "Wynik i relacja na żywo - Sport".into(),
            elements: [
                "Start",
                "RELACJA NA ŻYWO",
                "KOMENTARZE 962",
                "SKŁADY",
                "O MECZU",
                "Odświeżone przed chwilą",
                "Udostępnij",
            ]
            .into_iter()
            .map(element)
            .collect(),
            ..Default::default()
        };
        let glosses = g.glosses(&observation).expect("a Polish page");
        assert_eq!(glosses.language, "pl");
        let of = |w: &str| glosses.words.get(w).cloned().unwrap_or_default();
        assert_eq!(of("komentarze"), ["commentary", "comment"]);
        assert_eq!(of("sklady"), ["line"]);
        assert_eq!(of("meczu"), ["match"]);
        assert_eq!(of("relacja"), ["kinship", "relation", "story"]);
        assert_eq!(of("zywo"), ["vividly"]);
        assert_eq!(of("chwila"), ["moment", "minute"]);
        assert!(of("udostepnij").is_empty(), "{:?}", of("udostepnij"));
    }

    /// A German compound is read by its parts, both of them ("Abschluss|feiern"), and an English
    /// word said meets a compound by its translation's first or last part ("main" → "haupt" in
    /// "Hauptmodul"); a small word of the language is no label word ("oder" is no river).
    #[test]
    fn norwegian_words_the_norwegian_dictionary_lacks_are_read_in_danish() {
        let mut nb = words(&["bonde\tpawn", "oppskrift\treceipt recipe"]);
        nb.language = "nb";
        let mut da = words(&["bonde\tfarmer", "helse\thealth", "sundhed\thealth"]);
        da.language = "da";
        let g = Glossary {
            languages: vec![nb, da],
            english: Vec::new(),
        };
        let observation = Observation {
            title: "Jobb i TINE: les mer om hvordan melka blir levert av bonden".into(),
            elements: ["Oppskrifter", "Helse", "Kontakt", "Bondens side"]
                .into_iter()
                .map(element)
                .collect(),
            ..Default::default()
        };
        let glosses = g.glosses_for(&observation, "recipes").expect("Norwegian");
        assert_eq!(glosses.language, "nb");
        let of = |w: &str| glosses.words.get(w).cloned().unwrap_or_default();
        // The plural by its base form, the word Danish shares by the Danish dictionary.
        assert_eq!(of("oppskrifter"), ["receipt", "recipe"]);
        assert_eq!(of("helse"), ["health"]);
        assert!(of("kontakt").is_empty());
        // A word both have: both dictionaries' senses, Norwegian first.
        assert_eq!(of("bondens"), ["pawn", "farmer"]);
    }

    /// A menu says no small words: its language is the one whose dictionary knows clearly the
    /// most of its words, plurals by their base forms; a plural is not read as a compound
    /// ("desszertek" is desserts, not "desszer|tek").
    #[test]
    fn a_menu_is_read_in_the_language_that_knows_its_words() {
        let mut hu = words(&[
            "alma\tapple",
            "desszert\tdessert sweet",
            "ertek\tvalue worth",
            "jatek\tgame toy",
            "leves\tsoup",
            "recept\trecipe",
            "salata\tsalad",
        ]);
        hu.language = "hu";
        let mut de = words(&["salat\tsalad lettuce", "suppe\tsoup"]);
        de.language = "de";
        let g = Glossary {
            languages: vec![de, hu],
            english: Vec::new(),
        };
        let menu = |labels: &[&str]| Observation {
            elements: labels.iter().map(|l| element(l)).collect(),
            ..Default::default()
        };
        let hungarian = menu(&[
            "Receptek",
            "Levesek",
            "Saláták",
            "Desszertek",
            "Játékok",
            "Almás sütik",
        ]);
        let glosses = g
            .glosses_for(&hungarian, "desserts")
            .expect("read as Hungarian");
        assert_eq!(glosses.language, "hu");
        let of = |w: &str| glosses.words.get(w).cloned().unwrap_or_default();
        assert_eq!(of("levesek"), ["soup"]);
        assert_eq!(of("desszertek"), ["dessert", "sweet"]);
        // An English menu is no language of the glossary's.
        let english = menu(&[
            "Recipes",
            "Soups",
            "Salads",
            "Desserts",
            "Games",
            "Apple cakes",
        ]);
        assert!(g.glosses_for(&english, "desserts").is_none());
    }

    #[test]
    fn a_compound_is_glossed_by_its_parts() {
        let mut de = words(&[
            "abschluss\tconclusion completion",
            "feiern\tcelebrations ceremonies",
            "jahre\tyears",
            "modul\tmodule",
            "oder\triver",
        ]);
        let mut english = words(&["graduation\tabschluss", "main\thaupt"]);
        english.language = "de";
        de.language = "de";
        let g = Glossary {
            languages: vec![de],
            english: vec![english],
        };
        let observation = Observation {
            title: "Lehrberufe und Abschlussfeiern der Schule mit den Betrieben".into(),
            elements: [
                "Abschlussfeiern",
                "Spezialmodul oder 2. Hauptmodul",
                "Kontakt",
            ]
            .into_iter()
            .map(element)
            .collect(),
            ..Default::default()
        };
        let glosses = g
            .glosses_for(&observation, "the main module after graduation")
            .expect("German");
        let of = |w: &str| glosses.words.get(w).cloned().unwrap_or_default();
        assert_eq!(
            of("abschlussfeiern"),
            [
                "celebrations",
                "conclusion",
                "ceremonies",
                "completion",
                "graduation"
            ]
        );
        assert_eq!(of("hauptmodul"), ["module", "main"]);
        // A description's words are glossed too.
        let described = Observation {
            elements: vec![crate::model::Element {
                label: "WoB 14.-20. Januar".into(),
                description: Some("Abschlussfeiern der Schule".into()),
                ..Default::default()
            }],
            ..observation.clone()
        };
        let glosses = g.glosses_for(&described, "").expect("German");
        assert!(glosses.words.contains_key("abschlussfeiern"));
        assert_eq!(of("spezialmodul"), ["module"]);
        assert!(of("oder").is_empty());
    }

    #[test]
    fn wikdict_senses_are_their_first_lines_only() {
        let entry = "komentarz /kɔ̃ˈmɛ̃ntaʃ/ <n>\n1. commentary, comment\nobjaśnienie lub uzupełnienie jakiegoś tekstu bądź grafiki\n2. comment\nuwaga odnośnie czegoś lub kogoś\n";
        assert_eq!(
            gloss_words_in(entry, Format::WikDict),
            ["commentary", "comment"]
        );
        let entry = "mecz /mɛʧ̑/ <n>\nmatch\n(sport, sportowy) część rozgrywek sportowych\n";
        assert_eq!(gloss_words_in(entry, Format::WikDict), ["match"]);
        // Read as plain, the definition's words would be glosses.
        assert!(gloss_words_in(entry, Format::Plain).contains(&"czesc".to_string()));
    }

    #[test]
    fn one_word_glosses_translate_back() {
        let entry = "account <n>\n [ekon] účet, konto; vyúčtování\n";
        assert_eq!(
            one_word_glosses(entry, Format::Plain),
            ["ucet", "konto", "vyuctovani"]
        );
        let entry = "Adriatic Sea <n>\n [zem] Jaderské moře\n";
        assert!(one_word_glosses(entry, Format::Plain).is_empty());
    }

    /// Writes a dictd dictionary (index and gzip body) of `entries` (headword, entry text).
    fn write_dictd(dir: &Path, name: &str, entries: &[(&str, &str)]) {
        use std::io::Write;
        const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let b64 = |mut n: usize| {
            let mut s = Vec::new();
            loop {
                s.insert(0, DIGITS[n % 64]);
                n /= 64;
                if n == 0 {
                    break String::from_utf8(s).unwrap();
                }
            }
        };
        let (mut body, mut index) = (String::new(), String::new());
        for (word, entry) in entries {
            index.push_str(&format!(
                "{word}\t{}\t{}\n",
                b64(body.len()),
                b64(entry.len())
            ));
            body.push_str(entry);
        }
        std::fs::write(dir.join(format!("freedict-{name}.index")), index).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(body.as_bytes()).unwrap();
        std::fs::write(
            dir.join(format!("freedict-{name}.dict.dz")),
            gz.finish().unwrap(),
        )
        .unwrap();
    }

    /// Czech as FreeDict has it: a few Czech-English words, many English-Czech ones. The thin
    /// direction is filled in from the other read backwards; its own words come first.
    #[test]
    fn a_thin_direction_is_filled_in_from_the_other() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        write_dictd(from.path(), "ces-eng", &[("ucet", "účet\nbill\n")]);
        let letter = |k: u8| char::from(b'a' + k);
        let english: Vec<(String, String)> = (0..30u8)
            .map(|k| {
                let (a, b) = (letter(k / 26), letter(k % 26));
                (format!("w{a}{b}"), format!("w{a}{b}\nslovo{a}{b}\n"))
            })
            .chain([
                (
                    "account".into(),
                    "account <n>\n [ekon] účet, konto\n".into(),
                ),
                ("search".into(), "search <v>\n hledat\n".into()),
            ])
            .collect();
        let english: Vec<(&str, &str)> = english
            .iter()
            .map(|(w, e)| (w.as_str(), e.as_str()))
            .collect();
        write_dictd(from.path(), "eng-ces", &english);
        let done = install(from.path(), to.path()).unwrap();
        let cs = done
            .iter()
            .find(|d| d.language == "cs" && !d.english_to)
            .unwrap();
        assert_eq!((cs.words, cs.reversed), (33, 32));
        let en = done
            .iter()
            .find(|d| d.language == "cs" && d.english_to)
            .unwrap();
        assert_eq!((en.words, en.reversed), (32, 0));
        let g = Glossary::load(to.path()).unwrap();
        // The Czech-English dictionary's own gloss, not the one read backwards.
        assert_eq!(g.lookup("cs", "ucet"), ["bill"]);
        assert_eq!(g.lookup("cs", "konto"), ["account"]);
        assert_eq!(g.lookup("cs", "hledat"), ["search"]);
        assert_eq!(g.translate("cs", "account"), ["ucet", "konto"]);
    }

    /// JMdict's entries as FreeDict writes them: grammar in brackets, numbered senses, a note
    /// that runs into its gloss, blank lines inside.
    #[test]
    fn jmdict_senses_without_their_notes() {
        let home = " [gai1]  [ichi1] ホーム /hˈo̞o̞mɯᵝ/\n1. (noun (common) (futsuumeishi))\n (nouns which may take the genitive case particle `no')\nplatform\n2.\n         Note: abbreviationhome\n";
        assert_eq!(gloss_words_in(home, Format::Jmdict), ["platform", "home"]);
        let new_year = " [ichi1]  元旦 /x/,  [ichi1] がんたん /ɡˈäntäɴ/\n1. (noun (common) (futsuumeishi))\n{元日}\n\n         Note: colloquialismNew Year's Day\n2. (orig. meaning)\nNew Year's morning, morning of New Year's Day\n";
        assert_eq!(
            gloss_words_in(new_year, Format::Jmdict),
            ["new", "year", "day", "morning"]
        );
        // An archaic or vulgar sense is no gloss of today's word.
        let dog = "犬 /x/, いぬ /ˈinɯᵝ/\n1. (noun (common) (futsuumeishi))\ndog (Canis (lupus) familiaris)\n3.\n         Note: derogatoryloser, asshole\n";
        assert_eq!(gloss_words_in(dog, Format::Jmdict), ["dog"]);
        // A word explained at length: its short items are the glosses.
        let reason = "訳 /x/, わけ /wˈäke̞/\n(noun (common) (futsuumeishi))\n\n         Note: word usually written using kana aloneconclusion from reasoning, judgement or calculation based on something read or heard, reason, cause\n";
        assert_eq!(
            gloss_words_in(reason, Format::Jmdict),
            ["conclusion", "reasoning", "reason", "cause"]
        );
        assert_eq!(jmdict_note(" archaismmoon"), None);
        assert_eq!(
            jmdict_note(" honorific or respectful (sonkeigo) languagemother"),
            Some("mother")
        );
    }

    /// Mueller's English-Russian entries: the transcription, grammar tags, homonyms `_I`/`_II`,
    /// senses "1)" under "1. _n.", and examples whose Russian is the example's.
    #[test]
    fn mueller_senses_are_translations_before_examples() {
        let news = "news\n   [njʊ:z] _n. _pl. (употр. как sing)\n   1) новость, новости, известие; what is the news? что нового?; that is no\n   news это уже всем известно\n   2) известия, сообщения печати, радио и т.п.; latest news последние\n   известия\n";
        assert_eq!(
            one_word_glosses(news, Format::Mueller),
            ["новость", "новости", "известие", "известия"]
        );
        let main = "main\n   _I  [mɛɪn]\n      1. _n.\n         1) главная часть; основное; in the main\n            а) в основном;\n         2) магистраль\n         3) _поэт. открытое море, океан\n         4) = mainmast\n      2. _a.\n         1) главный; основной; the main features основные черты\n   _II [mɛɪn] _n.\n         1) число очков\n";
        assert_eq!(
            one_word_glosses(main, Format::Mueller),
            ["основное", "магистраль", "океан", "главный", "основной"]
        );
        // "а) в основном" translates the example "in the main", not the headword.
        assert!(!gloss_words_in(main, Format::Mueller).contains(&"основном".to_string()));
        // The same entry's words, for the English-to-Russian direction.
        let words = gloss_words_in(news, Format::Mueller);
        assert!(words.contains(&"новости".to_string()), "{words:?}");
        assert!(
            !words.iter().any(|w| w == "что" || w == "нового"),
            "{words:?}"
        );
    }

    /// A run of Japanese is read as the dictionary's words; the particles between are none.
    #[test]
    fn a_run_of_japanese_is_read_as_words() {
        let w = words(&[
            "いぬ\tdog",
            "おりがみ\torigami",
            "かお\tface",
            "のか\tis it",
            "前\tprevious before",
            "戻る\treturn go back",
            "折り紙\torigami",
            "犬\tdog",
            "顔\tface",
            "ページ\tpage",
        ]);
        let read =
            |run: &str| -> Vec<String> { segments(&w, run).into_iter().map(|(s, _)| s).collect() };
        assert_eq!(read("犬の顔の折り紙"), ["犬", "顔", "折り紙"]);
        // Not いぬ, のか, お: a lone particle left unread costs less than another character.
        assert_eq!(read("いぬのかお"), ["いぬ", "かお"]);
        assert_eq!(read("前のページへ戻る"), ["前", "ページ", "戻る"]);
        assert!(read("イソップ").is_empty());
        // Latin letters and digits in a run are no Japanese word.
        assert_eq!(read("1949年Mr犬"), ["犬"]);
    }

    /// A Japanese screen: each label's run is glossed by its words, and an English word said
    /// glosses the run that holds its translation.
    #[test]
    fn a_japanese_screen_is_glossed_word_by_word() {
        let mut ja = words(&[
            "ページ\tpage",
            "前\tprevious",
            "戻る\treturn",
            "折り紙\torigami",
            "顔\tface",
        ]);
        ja.language = "ja";
        let mut english = words(&["dog\t犬 いぬ"]);
        english.language = "ja";
        let g = Glossary {
            languages: vec![ja],
            english: vec![english],
        };
        let observation = Observation {
            title: "欲張りなイヌ　＜福娘童話集　きょうのイソップ童話＞".into(),
            elements: [
                "前のページへ戻る",
                "犬の顔の折り紙",
                "いぬのかお",
                "English",
            ]
            .into_iter()
            .map(element)
            .collect(),
            ..Default::default()
        };
        let glosses = g
            .glosses_for(&observation, "fold the dog's face")
            .expect("Japanese");
        assert_eq!(glosses.language, "ja");
        let of = |w: &str| glosses.words.get(w).cloned().unwrap_or_default();
        assert_eq!(of("前のページへ戻る"), ["previous", "page", "return"]);
        // "dog" → いぬ, inside the run; its 犬 is one kanji, which glosses a run only when the
        // run is read with it as a word (this dictionary has no 犬).
        assert_eq!(of("いぬのかお"), ["dog"]);
        assert_eq!(of("犬の顔の折り紙"), ["face", "origami"]);
        assert!(of("english").is_empty());
    }

    /// JMdict names one entry under each of its spellings (犬 and いぬ at one offset): every
    /// spelling gets the entry's glosses, and the dictionary's Japanese translations of English
    /// words are kept (one kanji is a word).
    #[test]
    fn an_entry_under_two_headwords_glosses_both() {
        use std::io::Write;
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let info = "00-database-info\nconverted from JMdict\n";
        let entry = "犬 /x/, いぬ /ˈinɯᵝ/\n1. (noun (common) (futsuumeishi))\ndog\n";
        let body = format!("{info}{entry}");
        let b64 = |n: usize| -> String {
            const DIGITS: &[u8] =
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            let (mut n, mut s) = (n, Vec::new());
            loop {
                s.insert(0, DIGITS[n % 64]);
                n /= 64;
                if n == 0 {
                    break String::from_utf8(s).unwrap();
                }
            }
        };
        let (at, len) = (b64(info.len()), b64(entry.len()));
        let index = format!(
            "00databaseinfo\tA\t{}\nいぬ\t{at}\t{len}\n犬\t{at}\t{len}\n",
            b64(info.len())
        );
        std::fs::write(from.path().join("freedict-jpn-eng.index"), index).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(body.as_bytes()).unwrap();
        std::fs::write(
            from.path().join("freedict-jpn-eng.dict.dz"),
            gz.finish().unwrap(),
        )
        .unwrap();
        install(from.path(), to.path()).unwrap();
        let g = Glossary::load(to.path()).unwrap();
        assert_eq!(g.lookup("ja", "犬"), ["dog"]);
        assert_eq!(g.lookup("ja", "いぬ"), ["dog"]);
        // Read backwards (no English-Japanese dictionary here): both spellings.
        assert_eq!(g.translate("ja", "dog"), ["いぬ", "犬"]);
    }

    #[test]
    fn lookup_by_word_and_by_the_last_part_of_a_compound() {
        let w = words(&[
            "betrag\tamount sum",
            "konto\taccount",
            "strom\tcurrent power",
            "best\tpremier",
            "beste\tbest top",
            "preis\tprice prize",
        ]);
        assert_eq!(w.lookup("konto"), Some("account"));
        assert_eq!(w.lookup("kont"), None);
        let shelf = Shelf(vec![&w]);
        assert_eq!(
            compound_parts(&shelf, "nettokreditbetrag"),
            Some((None, "amount sum"))
        );
        assert_eq!(
            compound_parts(&shelf, "kontobetrag"),
            Some((Some("account".to_string()), "amount sum"))
        );
        // "kontos|strom": a joining "s".
        assert_eq!(
            compound_parts(&shelf, "kontosstrom"),
            Some((Some("account".to_string()), "current power"))
        );
        // "best|preis": the first part without the "-e" it drops ("beste"), and as itself.
        assert_eq!(
            compound_parts(&shelf, "bestpreis"),
            Some((Some("premier best top".to_string()), "price prize"))
        );
        assert_eq!(
            compound_parts(&shelf, "xyzabetrag"),
            Some((None, "amount sum"))
        );
        assert_eq!(compound_parts(&shelf, "betragx"), None);
        // A last part in an inflected form: Finnish "alue|uutiset" (region, news).
        let mut fi = words(&["alue\tarea region", "uutinen\tnews"]);
        fi.language = "fi";
        assert_eq!(
            compound_parts(&Shelf(vec![&fi]), "alueuutiset"),
            Some((Some("area region".into()), "news"))
        );
        assert!(Words::parse("de", "b\tx\na\ty\n".into(), Path::new("t")).is_err());
        assert!(Words::parse("de", "no tab\n".into(), Path::new("t")).is_err());
    }
}

//! The glossary: English glosses of the words of a screen in another language, so a person who
//! says "electricity" on a German page meets its "Strom", and "insurance" its "Versicherungen".
//!
//! Built once by `circe install-glossary` from FreeDict's dictionaries (the Debian packages
//! `dict-freedict-{deu,fra,spa,ita,nld,por}-eng` and `dict-freedict-eng-{…}`, dictd format under
//! `/usr/share/dictd`) into sorted files per language: `<dir>/<lang>.tsv` (the language's words
//! in English) and `<dir>/en-<lang>.tsv` (English words in the language), each line
//! `word<TAB>gloss gloss …` (folded, lower case, first sense first, at most `MAX_GLOSSES`). Both
//! directions meet on the screen's words: a label word's English glosses, and the English words
//! said that translate into a label word. The directory is `$CIRCE_GLOSSARY_DIR` when set,
//! else `<data dir>/glossary`. Loaded at start (a few MB per language, looked up by binary
//! search); without it the Director matches words as before, and `circe doctor` says so.
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
];

#[derive(Debug, thiserror::Error)]
pub enum GlossaryError {
    #[error("no glossary in {0}: run `circe install-glossary` (it needs the Debian packages dict-freedict-deu-eng, dict-freedict-fra-eng, dict-freedict-spa-eng, …)")]
    NotInstalled(PathBuf),
    #[error("no FreeDict dictionary in {0}: apt-get install dict-freedict-deu-eng dict-freedict-fra-eng dict-freedict-spa-eng dict-freedict-ita-eng dict-freedict-nld-eng dict-freedict-por-eng")]
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

    /// [`Glossary::glosses`], and the words `said` (English) wherever the English-to-page
    /// dictionary translates one of them into a label's word ("compare" → "vergleichen").
    pub fn glosses_for(&self, observation: &Observation, said: &str) -> Option<Glosses> {
        let language = language::of(observation)?;
        let words = self.languages.iter().find(|w| w.language == language)?;
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut add = |word: &str, gloss: &str| {
            let glosses = out.entry(word.to_string()).or_default();
            if !glosses.iter().any(|g| g == gloss) {
                glosses.push(gloss.to_string());
            }
        };
        let mut labels = std::collections::BTreeSet::new();
        for e in &observation.elements {
            for t in text::tokens(&e.label) {
                if t.norm.chars().count() < 3 || t.is_number() || !labels.insert(t.norm.clone()) {
                    continue;
                }
                let found = words
                    .lookup(&t.norm)
                    .or_else(|| compound_tail(words, &t.norm));
                // An inflected form ("kurze Folgen") also means what its base form does
                // ("kurz": short); the dictionary may list the form only as another word
                // ("Kürze": shortness).
                let base = uninflected(language, &t.norm)
                    .into_iter()
                    .find_map(|b| words.lookup(&b));
                for g in found.into_iter().chain(base).flat_map(|g| g.split(' ')) {
                    if !g.is_empty() {
                        add(&t.norm, g);
                    }
                }
            }
        }
        for t in text::tokens(said) {
            if t.norm.chars().count() < 3 || t.is_number() {
                continue;
            }
            for foreign in self.translate(language, &t.norm) {
                if labels.contains(foreign) {
                    add(foreign, &t.norm);
                }
            }
        }
        Some(Glosses {
            language: language.to_string(),
            words: out,
        })
    }
}

/// The base forms an inflected word may have, by the language's endings (German adjectives
/// "kurze", "kleinen"; French "petites"; Spanish "cortos"; …), longest ending first, never
/// shorter than three letters.
fn uninflected(language: &str, word: &str) -> Vec<String> {
    let endings: &[&str] = match language {
        "de" => &["en", "em", "er", "es", "e"],
        "fr" => &["es", "e", "s"],
        "es" | "pt" => &["as", "os", "a", "o", "s"],
        "it" => &["a", "e", "i", "o"],
        "nl" => &["e"],
        _ => &[],
    };
    endings
        .iter()
        .filter_map(|e| word.strip_suffix(e))
        .filter(|b| b.chars().count() >= 3)
        .map(str::to_string)
        .collect()
}

/// The glosses of the longest known last part (four letters or more) of a compound of eight or
/// more.
fn compound_tail<'w>(words: &'w Words, word: &str) -> Option<&'w str> {
    let n = word.chars().count();
    if n < 8 {
        return None;
    }
    word.char_indices()
        .skip(3)
        .map(|(i, _)| &word[i..])
        .filter(|tail| tail.chars().count() >= 4)
        .find_map(|tail| words.lookup(tail))
}

/// What `install` wrote for one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub language: &'static str,
    /// English words in `language` (else `language`'s words in English).
    pub english_to: bool,
    pub words: usize,
    pub path: PathBuf,
}

/// Convert every FreeDict `<xxx>-eng` dictionary found in `from` into `<to>/<lang>.tsv`.
pub fn install(from: &Path, to: &Path) -> Result<Vec<Installed>, GlossaryError> {
    std::fs::create_dir_all(to).map_err(io(to))?;
    let mut done = Vec::new();
    let both = LANGUAGES.iter().flat_map(|(code, freedict)| {
        [
            (*code, format!("{freedict}-eng"), code.to_string(), false),
            (*code, format!("eng-{freedict}"), format!("en-{code}"), true),
        ]
    });
    for (code, freedict, name, english_to) in both {
        let index = from.join(format!("freedict-{freedict}.index"));
        let dict = from.join(format!("freedict-{freedict}.dict.dz"));
        if !index.exists() || !dict.exists() {
            continue;
        }
        let entries = read_dictd(&index, &dict)?;
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
            path,
        });
    }
    if !done.iter().any(|d| !d.english_to) {
        return Err(GlossaryError::NoDictionaries(from.to_path_buf()));
    }
    Ok(done)
}

/// A dictd dictionary as word → glosses: one-word headwords only, folded to lower case; each
/// entry's sense lines read by `gloss_words`, senses of the same word merged in order.
fn read_dictd(index: &Path, dict: &Path) -> Result<BTreeMap<String, Vec<String>>, GlossaryError> {
    // The index: headword, offset, length (dictd's base64 numbers), in headword order.
    let mut entries: Vec<(u64, u64, String)> = Vec::new();
    let file = std::fs::File::open(index).map_err(io(index))?;
    for line in BufReader::new(file).lines() {
        let line = line.map_err(io(index))?;
        let mut parts = line.split('\t');
        let (Some(word), Some(offset), Some(len)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if word.starts_with("00") || word.contains('-') {
            continue;
        }
        let Some(word) = headword(word) else {
            continue;
        };
        let folded = text::fold(&word.to_lowercase());
        if folded.chars().count() < 2 || !folded.chars().all(char::is_alphanumeric) {
            continue;
        }
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
    let mut buf = Vec::new();
    for (offset, len, word) in entries {
        if offset < at {
            continue; // an entry the index names twice
        }
        std::io::copy(&mut (&mut body).take(offset - at), &mut std::io::sink())
            .map_err(io(dict))?;
        buf.clear();
        (&mut body)
            .take(len)
            .read_to_end(&mut buf)
            .map_err(io(dict))?;
        at = offset + buf.len() as u64;
        let entry = String::from_utf8_lossy(&buf);
        let glosses = words.entry(word).or_default();
        for g in gloss_words(&entry) {
            if glosses.len() < MAX_GLOSSES && !glosses.contains(&g) {
                glosses.push(g);
            }
        }
    }
    words.retain(|_, g| !g.is_empty());
    Ok(words)
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
];

/// The gloss words of one dictd entry: the sense lines after the headword line ("amount <n>,
/// sum <n>", "1. account, bill"), without domains `[…]`, grammar `<…>`, notes `(…)`, examples,
/// synonyms and cross-references; one word per item, folded.
pub fn gloss_words(entry: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in entry.lines().skip(1) {
        if line.trim().is_empty() {
            break;
        }
        let indent = line.len() - line.trim_start().len();
        let line = line.trim();
        if indent >= 3
            || line.starts_with('"')
            || line.starts_with("see:")
            || line.starts_with("Synonym")
            || line.starts_with("Note:")
        {
            continue;
        }
        let line = line
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start_matches('.')
            .trim();
        let clean = strip_brackets(line);
        for word in text::tokens(&clean) {
            let w = word.norm;
            // Words in letters only (a pronunciation in the line is not a gloss); `tokens`
            // folded a German or French gloss's accents to ASCII already.
            if w.chars().count() < 2
                || !w.chars().all(|c| c.is_ascii_alphabetic())
                || GLOSS_STOPWORDS.contains(&w.as_str())
                || out.contains(&w)
            {
                continue;
            }
            out.push(w);
        }
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

    fn words(lines: &[&str]) -> Words {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Words::parse("de", text, Path::new("t")).unwrap()
    }

    #[test]
    fn inflected_forms_have_their_base_forms() {
        assert_eq!(uninflected("de", "kurze"), ["kurz"]);
        assert_eq!(uninflected("de", "kleinen"), ["klein"]);
        assert_eq!(uninflected("fr", "petites"), ["petit", "petite"]);
        assert!(uninflected("de", "die").is_empty());
        assert!(uninflected("en", "short").is_empty());
    }

    #[test]
    fn lookup_by_word_and_by_the_last_part_of_a_compound() {
        let w = words(&[
            "betrag\tamount sum",
            "konto\taccount",
            "strom\tcurrent power",
        ]);
        assert_eq!(w.lookup("konto"), Some("account"));
        assert_eq!(w.lookup("kont"), None);
        assert_eq!(compound_tail(&w, "nettokreditbetrag"), Some("amount sum"));
        assert_eq!(compound_tail(&w, "betragx"), None);
        assert!(Words::parse("de", "b\tx\na\ty\n".into(), Path::new("t")).is_err());
        assert!(Words::parse("de", "no tab\n".into(), Path::new("t")).is_err());
    }
}

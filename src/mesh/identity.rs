//! This node's identity: an Ed25519 key pair kept 0600 in the data directory, and an id that is
//! the base32 SHA-256 of its public key, so the id cannot be claimed without the key; beside it,
//! the ECDSA P-256 key of the certificate browsers see (they do not speak Ed25519 in TLS).
//! Also the random tokens devices authenticate with; only their SHA-256 is ever stored.

use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{Ed25519KeyPair, KeyPair};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// What a node is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// Executes operations on its desktop and owns interactions.
    Full,
    /// Routes inputs to an authorized execution node; a phone is a controller.
    Controller,
    /// Executes in the background, without a person at it.
    Headless,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Full => "full",
            Role::Controller => "controller",
            Role::Headless => "headless",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        [Role::Full, Role::Controller, Role::Headless]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

pub struct NodeIdentity {
    key: Ed25519KeyPair,
    /// The node key's PKCS#8 document, so the node certificate's key is the node key itself.
    pkcs8: Vec<u8>,
    /// The key of the certificate browsers see (ECDSA P-256, PKCS#8): browsers do not offer
    /// Ed25519 in TLS, so the page is served under this one (see `tls`).
    web_pkcs8: Vec<u8>,
    pub id: String,
}

/// The file beside `node.key` that holds the browser certificate's key.
pub const WEB_KEY_FILE: &str = "tls.key";

impl NodeIdentity {
    /// Load the key at `path`, or create it (0600) on first start; the same for the browser
    /// certificate's key, `tls.key` beside it.
    pub fn load_or_create(path: &Path) -> anyhow::Result<NodeIdentity> {
        let pkcs8 = load_or_create_pkcs8(path, || {
            Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
                .map(|doc| doc.as_ref().to_vec())
                .map_err(|_| anyhow::anyhow!("cannot generate the node key"))
        })?;
        let key = Ed25519KeyPair::from_pkcs8(&pkcs8)
            .map_err(|_| anyhow::anyhow!("the node key {} is not valid", path.display()))?;
        let web_path = path.with_file_name(WEB_KEY_FILE);
        let alg = &ring::signature::ECDSA_P256_SHA256_ASN1_SIGNING;
        let web_pkcs8 = load_or_create_pkcs8(&web_path, || {
            ring::signature::EcdsaKeyPair::generate_pkcs8(alg, &SystemRandom::new())
                .map(|doc| doc.as_ref().to_vec())
                .map_err(|_| anyhow::anyhow!("cannot generate the TLS key"))
        })?;
        ring::signature::EcdsaKeyPair::from_pkcs8(alg, &web_pkcs8, &SystemRandom::new())
            .map_err(|_| anyhow::anyhow!("the TLS key {} is not valid", web_path.display()))?;
        let id = node_id(key.public_key().as_ref());
        Ok(NodeIdentity {
            key,
            pkcs8,
            web_pkcs8,
            id,
        })
    }

    pub fn public_key(&self) -> &[u8] {
        self.key.public_key().as_ref()
    }

    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        self.key.sign(message).as_ref().to_vec()
    }

    /// The node key (Ed25519) as PKCS#8, for the node certificate.
    pub(crate) fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// The browser certificate's key (ECDSA P-256) as PKCS#8.
    pub(crate) fn web_pkcs8(&self) -> &[u8] {
        &self.web_pkcs8
    }
}

/// Read the PKCS#8 key at `path`, or write a new one (0600, never over an existing file).
fn load_or_create_pkcs8(
    path: &Path,
    generate: impl FnOnce() -> anyhow::Result<Vec<u8>>,
) -> anyhow::Result<Vec<u8>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let doc = generate()?;
            let mut f = std::fs::OpenOptions::new()
                .create_new(true)
                .write(true)
                .mode(0o600)
                .open(path)?;
            f.write_all(&doc)?;
            f.sync_all()?;
            Ok(doc)
        }
        Err(e) => Err(e.into()),
    }
}

/// `base32(SHA-256(public key))`, lower case, without padding.
pub fn node_id(public_key: &[u8]) -> String {
    use sha2::Digest;
    base32(&sha2::Sha256::digest(public_key))
}

/// RFC 4648 base32 (lower case, no padding).
pub fn base32(bytes: &[u8]) -> String {
    data_encoding::BASE32_NOPAD
        .encode(bytes)
        .to_ascii_lowercase()
}

/// `n` random bytes from the OS.
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut v)
        .expect("the OS random source works");
    v
}

/// A 256-bit device token, base32.
pub fn new_token() -> String {
    base32(&random_bytes(32))
}

/// A uniformly random numeric code of `digits` digits.
pub fn numeric_code(digits: usize) -> String {
    let mut out = String::new();
    while out.len() < digits {
        let b = random_bytes(1)[0];
        // Reject 250..=255 so every digit is equally likely.
        if b < 250 {
            out.push(char::from(b'0' + b % 10));
        }
    }
    out
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Decode lower- or upper-case hex; `None` for anything else.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// Whether `signature` (hex) is `public_key`'s (hex Ed25519) signature of `message`.
pub fn verify(public_key: &str, message: &[u8], signature: &str) -> bool {
    let (Some(key), Some(sig)) = (unhex(public_key), unhex(signature)) else {
        return false;
    };
    ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, key)
        .verify(message, &sig)
        .is_ok()
}

/// The node handshake's signed statements. Each names its purpose, both nodes and the nonce the
/// *other* side chose, so a signature is good for exactly one handshake in one direction.
pub mod proof {
    /// A node pairing with `server`: "I hold the key of `client`", for this pairing code.
    pub fn pair(server: &str, challenge: &str, code: &str, client: &str) -> Vec<u8> {
        format!("circe-node-pair-v1\n{server}\n{challenge}\n{code}\n{client}").into_bytes()
    }
    /// A paired node authenticating to `server`, answering the server's `challenge`.
    pub fn client(server: &str, challenge: &str, client: &str) -> Vec<u8> {
        format!("circe-node-client-v1\n{server}\n{challenge}\n{client}").into_bytes()
    }
    /// The server's answer: "I hold the key of `server`", for the client's `nonce`.
    pub fn server(client: &str, nonce: &str, server: &str) -> Vec<u8> {
        format!("circe-node-server-v1\n{client}\n{nonce}\n{server}").into_bytes()
    }
}

/// What the store keeps of a token: its SHA-256.
pub fn token_hash(token: &str) -> String {
    crate::store::sha256(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_vectors() {
        // RFC 4648 test vectors, lower case and unpadded.
        for (input, want) in [
            ("", ""),
            ("f", "my"),
            ("fo", "mzxq"),
            ("foo", "mzxw6"),
            ("foob", "mzxw6yq"),
            ("fooba", "mzxw6ytb"),
            ("foobar", "mzxw6ytboi"),
        ] {
            assert_eq!(base32(input.as_bytes()), want);
        }
    }

    #[test]
    fn ids_follow_keys() {
        assert_eq!(node_id(&[1; 32]), node_id(&[1; 32]));
        assert_ne!(node_id(&[1; 32]), node_id(&[2; 32]));
        assert_eq!(node_id(&[0; 32]).len(), 52);
    }

    #[test]
    fn the_key_is_kept_private_and_stable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("node.key");
        let a = NodeIdentity::load_or_create(&path).unwrap();
        let b = NodeIdentity::load_or_create(&path).unwrap();
        assert_eq!(a.id, b.id);
        assert_eq!(a.id, node_id(a.public_key()));
        for file in ["node.key", WEB_KEY_FILE] {
            let mode = std::fs::metadata(dir.path().join(file))
                .unwrap()
                .permissions()
                .mode()
                & 0o777;
            assert_eq!(mode, 0o600, "{file}");
        }
        assert_eq!(a.web_pkcs8(), b.web_pkcs8(), "the TLS key is kept too");
        let sig = a.sign(b"hello");
        let pk = ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, b.public_key());
        assert!(pk.verify(b"hello", &sig).is_ok());
        assert!(pk.verify(b"hellp", &sig).is_err());
    }

    #[test]
    fn hex_round_trips_and_refuses_garbage() {
        assert_eq!(hex(&[0, 1, 0xab, 0xff]), "0001abff");
        assert_eq!(unhex("0001abff"), Some(vec![0, 1, 0xab, 0xff]));
        assert_eq!(unhex("0001ABFF"), Some(vec![0, 1, 0xab, 0xff]));
        for bad in ["0", "zz", "0g", "é0"] {
            assert_eq!(unhex(bad), None, "{bad}");
        }
    }

    #[test]
    fn proofs_verify_only_for_their_key_purpose_and_nonce() {
        let dir = tempfile::tempdir().unwrap();
        let a = NodeIdentity::load_or_create(&dir.path().join("a.key")).unwrap();
        let b = NodeIdentity::load_or_create(&dir.path().join("b.key")).unwrap();
        let (ka, kb) = (hex(a.public_key()), hex(b.public_key()));
        let statement = proof::client(&b.id, "n1", &a.id);
        let sig = hex(&a.sign(&statement));
        assert!(verify(&ka, &statement, &sig));
        assert!(!verify(&kb, &statement, &sig), "another key");
        assert!(
            !verify(&ka, &proof::client(&b.id, "n2", &a.id), &sig),
            "another nonce"
        );
        assert!(
            !verify(&ka, &proof::server(&b.id, "n1", &a.id), &sig),
            "another purpose"
        );
        assert!(!verify(&ka, &statement, "00"), "a short signature");
        assert!(!verify("zz", &statement, &sig), "a bad key");
    }

    #[test]
    fn codes_and_tokens() {
        let c = numeric_code(6);
        assert_eq!(c.len(), 6);
        assert!(c.bytes().all(|b| b.is_ascii_digit()));
        assert_ne!(new_token(), new_token());
        assert_eq!(new_token().len(), 52);
    }
}

//! TLS for the mesh: the listener's certificates, the pinned client, and `connect_ws`.
//!
//! Two self-signed certificates, both made at start-up from keys kept in the data directory:
//! - the **node certificate**, whose key IS the node's Ed25519 identity key: a node-to-node
//!   client pins it by node id (`pinned_client_config`), so the pin needs no CA, name or date;
//! - the **browser certificate** (ECDSA P-256, `tls.key`): browsers do not offer Ed25519 in
//!   TLS, so a phone page could not be served under the node certificate. Its key's SHA-256 is
//!   the fingerprint a person compares and what Chromium's `--ignore-certificate-errors-spki-list`
//!   takes (`spki_sha256_base64`).
//!
//! The server picks one per connection from the client's offered signature schemes: a client
//! that can verify only Ed25519 (the pinned client) gets the node certificate, every other one
//! the browser certificate.
//!
//! Invariants:
//! - only the ring provider, passed explicitly (never a process-default provider);
//! - the pinned verifier accepts exactly an Ed25519 key whose `node_id` is the pinned id, and
//!   still verifies the handshake signature with that key (a copied certificate is not enough);
//! - `ws://` is used only toward loopback; `wss://` only with a pinned node id;
//! - a handshake has 10 s and never holds up the accept loop.

use super::identity::{self, NodeIdentity};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The only application protocol the listener speaks.
pub const ALPN_HTTP1: &[u8] = b"http/1.1";
/// How long this node, as a client, waits to connect and finish a TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The cap on one message (and frame) a node client *receives*. Requests going out stay far
/// below the server's 64 KiB; what comes back is at most a reply or snapshot
/// (`protocol::MAX_REPLY_BYTES`, 2 MiB: observations are no longer inside operations, and
/// changes come as small events, `protocol::MAX_EVENT_BYTES`).
pub const MAX_RECEIVE_BYTES: usize = crate::protocol::MAX_REPLY_BYTES;

/// Browser certificates are renewed at every start; this keeps them within what phones accept
/// for a TLS server certificate (at most 398 days).
const CERT_VALIDITY_DAYS: i64 = 397;

/// The ring provider, always passed explicitly.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The names a listener on `addr` answers to, for the certificates' subject alt names: the
/// loopback names, `[mesh] hosts`, and the listen IP (unless it is unspecified).
pub fn listener_names(addr: SocketAddr, hosts: &[String]) -> Vec<String> {
    let mut names: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    names.extend(hosts.iter().map(|h| h.trim().to_ascii_lowercase()));
    if !addr.ip().is_unspecified() {
        names.push(addr.ip().to_string());
    }
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| !n.is_empty() && seen.insert(n.clone()));
    names
}

/// A self-signed certificate for `pkcs8` (of algorithm `alg`) naming `names`.
fn self_signed(
    pkcs8: &[u8],
    alg: &'static rcgen::SignatureAlgorithm,
    names: &[String],
    common_name: &str,
) -> anyhow::Result<CertificateDer<'static>> {
    let key = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(&PrivatePkcs8KeyDer::from(pkcs8), alg)?;
    let mut params = rcgen::CertificateParams::new(names.to_vec())?;
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, common_name);
    let now = (crate::clock::now() / 1000) as i64;
    params.not_before = time::OffsetDateTime::from_unix_timestamp(now - 86_400)?;
    params.not_after =
        time::OffsetDateTime::from_unix_timestamp(now + CERT_VALIDITY_DAYS * 86_400)?;
    // A fresh random serial: rcgen's default is derived from the key, and a browser refuses a
    // second, different certificate with the same issuer and serial.
    let mut serial = identity::random_bytes(16);
    serial[0] &= 0x7f;
    params.serial_number = Some(rcgen::SerialNumber::from(serial));
    params.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    Ok(params.self_signed(&key)?.der().clone())
}

fn certified(
    cert: CertificateDer<'static>,
    pkcs8: &[u8],
    provider: &CryptoProvider,
) -> anyhow::Result<Arc<CertifiedKey>> {
    let key = PrivateKeyDer::Pkcs8(pkcs8.to_vec().into());
    Ok(Arc::new(CertifiedKey::from_der(vec![cert], key, provider)?))
}

/// The two certificates a listener presents.
#[derive(Debug)]
struct Certificates {
    /// The node key's certificate, for clients that verify only Ed25519 (pinned node clients).
    node: Arc<CertifiedKey>,
    /// The browser certificate (ECDSA P-256), for everyone else.
    web: Arc<CertifiedKey>,
}

impl Certificates {
    fn make(identity: &NodeIdentity, names: &[String]) -> anyhow::Result<Certificates> {
        let provider = provider();
        let short = &identity.id[..16.min(identity.id.len())];
        let node = self_signed(
            identity.pkcs8(),
            &rcgen::PKCS_ED25519,
            names,
            &format!("circe node {short}"),
        )?;
        let web = self_signed(
            identity.web_pkcs8(),
            &rcgen::PKCS_ECDSA_P256_SHA256,
            names,
            &format!("circe {short}"),
        )?;
        Ok(Certificates {
            node: certified(node, identity.pkcs8(), &provider)?,
            web: certified(web, identity.web_pkcs8(), &provider)?,
        })
    }
}

impl ResolvesServerCert for Certificates {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let schemes = hello.signature_schemes();
        let ed25519_only = schemes.contains(&SignatureScheme::ED25519)
            && !schemes.contains(&SignatureScheme::ECDSA_NISTP256_SHA256);
        Some(if ed25519_only {
            self.node.clone()
        } else {
            self.web.clone()
        })
    }
}

/// The listener's TLS configuration: TLS 1.2 and 1.3 (ring), ALPN `http/1.1`, no client
/// certificates, the node certificate for pinned node clients and the browser certificate for
/// browsers. Fails only if a name in `names` cannot go in a certificate.
pub fn server_config(
    identity: &NodeIdentity,
    names: &[String],
) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let certificates = Certificates::make(identity, names)?;
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(certificates));
    config.alpn_protocols = vec![ALPN_HTTP1.to_vec()];
    Ok(Arc::new(config))
}

/// The base64 SHA-256 of the browser certificate's SubjectPublicKeyInfo (DER): the value
/// Chromium's `--ignore-certificate-errors-spki-list` takes, and the fingerprint shown to people.
/// It follows the key (`tls.key`), so it is the same after every restart.
pub fn spki_sha256_base64(identity: &NodeIdentity) -> String {
    use base64::Engine as _;
    use rcgen::PublicKeyData as _;
    use sha2::Digest as _;
    let key = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(
        &PrivatePkcs8KeyDer::from(identity.web_pkcs8()),
        &rcgen::PKCS_ECDSA_P256_SHA256,
    )
    .expect("NodeIdentity checked the TLS key when it loaded it");
    let digest = sha2::Sha256::digest(key.subject_public_key_info());
    base64::engine::general_purpose::STANDARD.encode(digest)
}

/// A client configuration that trusts exactly the node `expected_node_id`: TLS 1.3, ring, ALPN
/// `http/1.1`, and a verifier that pins the certificate's Ed25519 key to the node id.
pub fn pinned_client_config(expected_node_id: &str) -> Arc<rustls::ClientConfig> {
    let provider = provider();
    let verifier = PinnedNode {
        expected: expected_node_id.to_string(),
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("the ring provider supports TLS 1.3")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![ALPN_HTTP1.to_vec()];
    Arc::new(config)
}

/// Trusts a server certificate exactly when its key is the pinned node's Ed25519 key. Names,
/// dates and issuers are ignored: the pin is the trust.
#[derive(Debug)]
struct PinnedNode {
    expected: String,
    algorithms: WebPkiSupportedAlgorithms,
}

/// Why a pinned handshake was refused, in words (it reaches the caller of `connect_ws`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PinError(String);

fn pin_error(message: String) -> rustls::Error {
    rustls::Error::InvalidCertificate(CertificateError::Other(rustls::OtherError(Arc::new(
        PinError(message),
    ))))
}

/// The 32-byte key of an Ed25519 SubjectPublicKeyInfo (RFC 8410), or `None` for any other.
fn ed25519_key(spki: &[u8]) -> Option<&[u8]> {
    const PREFIX: [u8; 12] = [
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
    ];
    (spki.len() == PREFIX.len() + 32 && spki[..PREFIX.len()] == PREFIX)
        .then(|| &spki[PREFIX.len()..])
}

/// The node id a certificate's key stands for, if it is an Ed25519 key.
pub fn certificate_node_id(cert: &CertificateDer<'_>) -> Option<String> {
    let parsed = webpki::EndEntityCert::try_from(cert).ok()?;
    let spki = parsed.subject_public_key_info();
    ed25519_key(spki.as_ref()).map(identity::node_id)
}

impl ServerCertVerifier for PinnedNode {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match certificate_node_id(end_entity) {
            Some(id) if id == self.expected => Ok(ServerCertVerified::assertion()),
            Some(id) => Err(pin_error(format!(
                "the server is node {id}, not the pinned node {}",
                self.expected
            ))),
            None => Err(pin_error(format!(
                "the server's certificate key is not a Circe node key (Ed25519); expected node {}",
                self.expected
            ))),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        if dss.scheme != SignatureScheme::ED25519 {
            return Err(rustls::PeerMisbehaved::SignedHandshakeWithUnadvertisedSigScheme.into());
        }
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        if dss.scheme != SignatureScheme::ED25519 {
            return Err(rustls::PeerMisbehaved::SignedHandshakeWithUnadvertisedSigScheme.into());
        }
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    /// Only Ed25519: node keys are Ed25519, and offering only it makes the server present the
    /// node certificate.
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SignatureScheme::ED25519]
    }
}

/// Whether `host` (from a URL, IPv6 in brackets) is a loopback name or address.
fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<IpAddr>()
            .is_ok_and(|ip: IpAddr| ip.is_loopback())
}

/// Open a WebSocket to another node's mesh (or this one's): `wss://` with the pinned client
/// configuration for `expected_node` (required), `ws://` only toward loopback. `origin` is sent
/// as the `Origin` header (the listener checks it). Messages and frames are capped at 64 KiB.
/// A certificate that is not the pinned node's fails the handshake, with the reason.
pub async fn connect_ws(
    url: &str,
    origin: &str,
    expected_node: Option<&str>,
) -> anyhow::Result<WebSocketStream<MaybeTlsStream<TcpStream>>> {
    use anyhow::Context as _;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
    use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
    let mut request = url
        .into_client_request()
        .with_context(|| format!("{url:?} is not a WebSocket URL"))?;
    let uri = request.uri().clone();
    let host = uri
        .host()
        .with_context(|| format!("{url:?} names no host"))?
        .to_string();
    let (connector, default_port) = match uri.scheme_str() {
        Some("wss") => {
            let node = expected_node.with_context(|| {
                format!("{url:?}: a wss:// connection needs the node id to pin its certificate")
            })?;
            (
                tokio_tungstenite::Connector::Rustls(pinned_client_config(node)),
                443,
            )
        }
        Some("ws") => {
            if !is_loopback_host(&host) {
                anyhow::bail!(
                    "{url:?}: plain ws:// is allowed only to loopback; use wss:// with the node id"
                );
            }
            (tokio_tungstenite::Connector::Plain, 80)
        }
        _ => anyhow::bail!("{url:?} is neither ws:// nor wss://"),
    };
    request.headers_mut().insert(
        "Origin",
        origin
            .parse()
            .with_context(|| format!("{origin:?} is not a valid Origin"))?,
    );
    let port = uri.port_u16().unwrap_or(default_port);
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback_only = matches!(connector, tokio_tungstenite::Connector::Plain);
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare, port))
        .await
        .with_context(|| format!("cannot resolve {host}"))?
        .filter(|a| !loopback_only || a.ip().is_loopback())
        .collect();
    let mut last = None;
    let mut tcp = None;
    for addr in addrs {
        match tokio::time::timeout(HANDSHAKE_TIMEOUT, TcpStream::connect(addr)).await {
            Ok(Ok(s)) => {
                tcp = Some(s);
                break;
            }
            Ok(Err(e)) => last = Some(anyhow::Error::from(e)),
            Err(_) => last = Some(anyhow::anyhow!("timed out")),
        }
    }
    let tcp = tcp.ok_or_else(|| {
        let why = last.map_or_else(|| "no address".to_string(), |e| e.to_string());
        anyhow::anyhow!("cannot connect to {host}:{port}: {why}")
    })?;
    let _ = tcp.set_nodelay(true);
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_RECEIVE_BYTES))
        .max_frame_size(Some(MAX_RECEIVE_BYTES));
    let handshake = tokio_tungstenite::client_async_tls_with_config(
        request,
        tcp,
        Some(config),
        Some(connector),
    );
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await {
        Ok(Ok((ws, _response))) => Ok(ws),
        Ok(Err(e)) => Err(anyhow::anyhow!("{url}: {}", describe(&e))),
        Err(_) => anyhow::bail!("{url}: no TLS and WebSocket handshake within 10 s"),
    }
}

/// A connection error in words: a pin refusal says which node answered.
fn describe(e: &tokio_tungstenite::tungstenite::Error) -> String {
    use tokio_tungstenite::tungstenite::Error;
    if let Error::Io(io) = e {
        if let Some(tls) = io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        {
            if let rustls::Error::InvalidCertificate(CertificateError::Other(other)) = tls {
                return format!("TLS handshake refused: {}", other.0);
            }
            return format!("TLS handshake failed: {tls}");
        }
    }
    e.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn identity(dir: &tempfile::TempDir, name: &str) -> NodeIdentity {
        std::fs::create_dir_all(dir.path().join(name)).unwrap();
        NodeIdentity::load_or_create(&dir.path().join(name).join("node.key")).unwrap()
    }

    fn names() -> Vec<String> {
        listener_names("127.0.0.1:7457".parse().unwrap(), &["desk.local".into()])
    }

    #[test]
    fn names_cover_loopback_hosts_and_the_listen_ip() {
        let n = listener_names(
            "192.168.1.5:7457".parse().unwrap(),
            &["Desk.local".into(), "localhost".into()],
        );
        assert_eq!(
            n,
            ["localhost", "127.0.0.1", "::1", "desk.local", "192.168.1.5"]
        );
        assert!(!listener_names("0.0.0.0:1".parse().unwrap(), &[]).contains(&"0.0.0.0".into()));
    }

    #[test]
    fn the_node_certificate_key_is_the_node_key() {
        let dir = tempfile::tempdir().unwrap();
        let a = identity(&dir, "a");
        let certs = Certificates::make(&a, &names()).unwrap();
        let node_cert = &certs.node.cert[0];
        assert_eq!(
            certificate_node_id(node_cert).as_deref(),
            Some(a.id.as_str())
        );
        let parsed = webpki::EndEntityCert::try_from(node_cert).unwrap();
        assert_eq!(
            ed25519_key(parsed.subject_public_key_info().as_ref()),
            Some(a.public_key())
        );
        // The browser certificate is P-256 (not a node key) and its SPKI is the fingerprint.
        let web_cert = &certs.web.cert[0];
        assert_eq!(certificate_node_id(web_cert), None);
        let parsed = webpki::EndEntityCert::try_from(web_cert).unwrap();
        use base64::Engine as _;
        use sha2::Digest as _;
        let want = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(
            parsed.subject_public_key_info().as_ref(),
        ));
        assert_eq!(spki_sha256_base64(&a), want);
        // Stable across restarts (the key is kept), different per node.
        let again = NodeIdentity::load_or_create(&dir.path().join("a/node.key")).unwrap();
        assert_eq!(spki_sha256_base64(&again), want);
        assert_ne!(spki_sha256_base64(&identity(&dir, "b")), want);
        // Certificates are not reissued with a reused serial.
        let other = Certificates::make(&a, &names()).unwrap();
        assert_ne!(other.web.cert[0], certs.web.cert[0]);
        assert!(certs.node.keys_match().is_ok() && certs.web.keys_match().is_ok());
    }

    #[test]
    fn the_pin_accepts_the_node_and_refuses_another() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (identity(&dir, "a"), identity(&dir, "b"));
        let cert_a = Certificates::make(&a, &names()).unwrap().node.cert[0].clone();
        let cert_b = Certificates::make(&b, &names()).unwrap().node.cert[0].clone();
        let web_a = Certificates::make(&a, &names()).unwrap().web.cert[0].clone();
        let pin = PinnedNode {
            expected: a.id.clone(),
            algorithms: provider().signature_verification_algorithms,
        };
        let name = ServerName::try_from("evil.example").unwrap();
        let verify =
            |c: &CertificateDer<'_>| pin.verify_server_cert(c, &[], &name, &[], UnixTime::now());
        assert!(verify(&cert_a).is_ok(), "names and dates do not matter");
        let err = verify(&cert_b).unwrap_err().to_string();
        assert!(err.contains(&b.id) && err.contains(&a.id), "{err}");
        let err = verify(&web_a).unwrap_err().to_string();
        assert!(err.contains("not a Circe node key"), "{err}");
        let err = verify(&CertificateDer::from(vec![1, 2, 3])).unwrap_err();
        assert!(err.to_string().contains("not a Circe node key"), "{err}");
    }

    /// A server with `config` on one end of an in-memory pipe, a client with `client` on the
    /// other; returns the client's handshake result and the certificate it was shown.
    async fn handshake(
        server: Arc<rustls::ServerConfig>,
        client: Arc<rustls::ClientConfig>,
    ) -> Result<CertificateDer<'static>, std::io::Error> {
        let (c, s) = tokio::io::duplex(64 * 1024);
        let acceptor = tokio_rustls::TlsAcceptor::from(server);
        let served = tokio::spawn(async move {
            if let Ok(mut tls) = acceptor.accept(s).await {
                let mut buf = [0u8; 4];
                if tls.read_exact(&mut buf).await.is_ok() {
                    let _ = tls.write_all(b"pong").await;
                }
            }
        });
        let connector = tokio_rustls::TlsConnector::from(client);
        let name = ServerName::try_from("127.0.0.1").unwrap();
        let mut tls = connector.connect(name, c).await?;
        tls.write_all(b"ping").await?;
        let mut buf = [0u8; 4];
        tls.read_exact(&mut buf).await?;
        assert_eq!(&buf, b"pong");
        let cert = tls.get_ref().1.peer_certificates().unwrap()[0].clone();
        served.await.unwrap();
        Ok(cert)
    }

    #[tokio::test]
    async fn a_pinned_handshake_reaches_only_the_pinned_node() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (identity(&dir, "a"), identity(&dir, "b"));
        let server = server_config(&a, &names()).unwrap();
        let cert = handshake(server.clone(), pinned_client_config(&a.id))
            .await
            .unwrap();
        assert_eq!(
            certificate_node_id(&cert).as_deref(),
            Some(a.id.as_str()),
            "a pinned client is shown the node certificate"
        );
        let err = handshake(server, pinned_client_config(&b.id))
            .await
            .unwrap_err();
        let inner = err
            .get_ref()
            .and_then(|e| e.downcast_ref::<rustls::Error>())
            .unwrap();
        assert!(
            matches!(inner, rustls::Error::InvalidCertificate(_)),
            "{inner:?}"
        );
        assert!(err.to_string().contains(&b.id), "{err}");
    }

    /// A server that presents node A's certificate but holds another key cannot sign the
    /// handshake: copying the certificate is not enough.
    #[tokio::test]
    async fn the_handshake_signature_is_still_verified() {
        #[derive(Debug)]
        struct Stolen(Arc<CertifiedKey>);
        impl ResolvesServerCert for Stolen {
            fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
                Some(self.0.clone())
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (identity(&dir, "a"), identity(&dir, "b"));
        let cert_a = Certificates::make(&a, &names()).unwrap().node.cert[0].clone();
        let key_b = provider()
            .key_provider
            .load_private_key(PrivateKeyDer::Pkcs8(b.pkcs8().to_vec().into()))
            .unwrap();
        let stolen = CertifiedKey::new(vec![cert_a], key_b);
        assert!(stolen.keys_match().is_err());
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_cert_resolver(Arc::new(Stolen(Arc::new(stolen))));
        config.alpn_protocols = vec![ALPN_HTTP1.to_vec()];
        let err = handshake(Arc::new(config), pinned_client_config(&a.id))
            .await
            .unwrap_err();
        let inner = err
            .get_ref()
            .and_then(|e| e.downcast_ref::<rustls::Error>())
            .unwrap();
        assert!(
            matches!(
                inner,
                rustls::Error::InvalidCertificate(CertificateError::BadSignature)
            ),
            "{inner:?}"
        );
    }

    /// A client that verifies P-256 (as browsers do) is shown the browser certificate.
    #[tokio::test]
    async fn browsers_get_the_browser_certificate() {
        #[derive(Debug)]
        struct AnyP256(WebPkiSupportedAlgorithms);
        impl ServerCertVerifier for AnyP256 {
            fn verify_server_cert(
                &self,
                _: &CertificateDer<'_>,
                _: &[CertificateDer<'_>],
                _: &ServerName<'_>,
                _: &[u8],
                _: UnixTime,
            ) -> Result<ServerCertVerified, rustls::Error> {
                Ok(ServerCertVerified::assertion())
            }
            fn verify_tls12_signature(
                &self,
                m: &[u8],
                c: &CertificateDer<'_>,
                d: &DigitallySignedStruct,
            ) -> Result<HandshakeSignatureValid, rustls::Error> {
                rustls::crypto::verify_tls12_signature(m, c, d, &self.0)
            }
            fn verify_tls13_signature(
                &self,
                m: &[u8],
                c: &CertificateDer<'_>,
                d: &DigitallySignedStruct,
            ) -> Result<HandshakeSignatureValid, rustls::Error> {
                rustls::crypto::verify_tls13_signature(m, c, d, &self.0)
            }
            fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
                vec![
                    SignatureScheme::ECDSA_NISTP256_SHA256,
                    SignatureScheme::RSA_PSS_SHA256,
                ]
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let a = identity(&dir, "a");
        let p = provider();
        let verifier = AnyP256(p.signature_verification_algorithms);
        let mut client = rustls::ClientConfig::builder_with_provider(p)
            .with_safe_default_protocol_versions()
            .unwrap()
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        client.alpn_protocols = vec![ALPN_HTTP1.to_vec()];
        let cert = handshake(server_config(&a, &names()).unwrap(), Arc::new(client))
            .await
            .unwrap();
        use base64::Engine as _;
        use sha2::Digest as _;
        let parsed = webpki::EndEntityCert::try_from(&cert).unwrap();
        let spki = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(
            parsed.subject_public_key_info().as_ref(),
        ));
        assert_eq!(spki, spki_sha256_base64(&a));
    }

    #[tokio::test]
    async fn connect_ws_refuses_before_connecting() {
        let cases = [
            ("ws://192.168.1.5:7457/ws", None, "only to loopback"),
            ("ws://evil.example:7457/ws", None, "only to loopback"),
            ("ws://127.0.0.1.nip.io:7457/ws", None, "only to loopback"),
            ("wss://127.0.0.1:7457/ws", None, "needs the node id"),
            (
                "http://127.0.0.1:7457/ws",
                Some("x"),
                "neither ws:// nor wss://",
            ),
        ];
        for (url, node, want) in cases {
            let err = connect_ws(url, "https://127.0.0.1:7457", node)
                .await
                .err()
                .unwrap_or_else(|| panic!("{url} connected"))
                .to_string();
            assert!(err.contains(want), "{url}: {err}");
        }
        assert!(is_loopback_host("[::1]") && is_loopback_host("LOCALHOST"));
        assert!(is_loopback_host("127.0.0.2") && !is_loopback_host("localhost.evil.example"));
    }
}

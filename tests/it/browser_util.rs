//! The real browser for tests: the fixture sites on 127.0.0.1, and Chromium (headless) with the
//! bundled extension, whose native host is this build's `circe`, talking to a test daemon.

use crate::util::{Daemon, CIRCE};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const CHROMIUM: &str = "/usr/lib/chromium/chromium";

/// What every test Chromium runs with: headless, quiet, and resolving no name but loopback
/// (the tests reach only this machine).
pub const TEST_FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
];

/// Fail (never skip) when the browser is missing, saying what to install.
pub fn require_chromium() {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is missing: install Debian's chromium package (scripts/test does this: apt-get install chromium)"
    );
}

/// What the fixture sites were asked: every GET (path and query) and every POST /api/action body.
#[derive(Default)]
pub struct Record {
    pub gets: Vec<String>,
    pub actions: Vec<serde_json::Value>,
    /// Every POST /api/upload: the file name the page sent (`x-file-name`) and the bytes.
    pub uploads: Vec<(String, Vec<u8>)>,
}

pub struct Sites {
    pub url: String,
    pub record: Arc<Mutex<Record>>,
    _runtime: tokio::runtime::Runtime,
}

impl Sites {
    pub fn start() -> Sites {
        use axum::body::Bytes;
        use axum::extract::State;
        use axum::http::{header, StatusCode};
        use axum::response::IntoResponse;

        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sites"));
        let record: Arc<Mutex<Record>> = Arc::default();
        type S = (PathBuf, Arc<Mutex<Record>>);
        async fn get(
            State((root, record)): State<S>,
            uri: axum::http::Uri,
        ) -> axum::response::Response {
            let pq = uri
                .path_and_query()
                .map(|p| p.as_str().to_string())
                .unwrap_or_default();
            record.lock().unwrap().gets.push(pq);
            let mut rel = uri.path().trim_start_matches('/').to_string();
            if rel.is_empty() || rel.ends_with('/') {
                rel.push_str("index.html");
            }
            if rel.contains("..") {
                return StatusCode::FORBIDDEN.into_response();
            }
            let path = root.join(&rel);
            let kind = match path.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript; charset=utf-8",
                Some("css") => "text/css; charset=utf-8",
                Some("json") => "application/json",
                Some("svg") => "image/svg+xml",
                _ => "application/octet-stream",
            };
            match std::fs::read(&path) {
                Ok(body) => (
                    [
                        (header::CONTENT_TYPE, kind),
                        (header::CACHE_CONTROL, "no-store"),
                    ],
                    body,
                )
                    .into_response(),
                Err(_) => StatusCode::NOT_FOUND.into_response(),
            }
        }
        async fn action(State((_, record)): State<S>, body: Bytes) -> StatusCode {
            match serde_json::from_slice(&body) {
                Ok(v) => {
                    record.lock().unwrap().actions.push(v);
                    StatusCode::NO_CONTENT
                }
                Err(_) => StatusCode::BAD_REQUEST,
            }
        }
        async fn upload(
            State((_, record)): State<S>,
            headers: axum::http::HeaderMap,
            body: Bytes,
        ) -> StatusCode {
            let Some(name) = headers.get("x-file-name").and_then(|h| h.to_str().ok()) else {
                return StatusCode::BAD_REQUEST;
            };
            let name = percent_decode(name);
            record.lock().unwrap().uploads.push((name, body.to_vec()));
            StatusCode::NO_CONTENT
        }
        let app = axum::Router::new()
            .route("/api/action", axum::routing::post(action))
            .route("/api/upload", axum::routing::post(upload))
            .fallback(axum::routing::get(get))
            .with_state((root, record.clone()));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
        Sites {
            url,
            record,
            _runtime: runtime,
        }
    }

    pub fn actions(&self) -> Vec<serde_json::Value> {
        self.record.lock().unwrap().actions.clone()
    }

    pub fn gets(&self) -> Vec<String> {
        self.record.lock().unwrap().gets.clone()
    }

    /// The files pages uploaded: (name, bytes).
    pub fn uploads(&self) -> Vec<(String, Vec<u8>)> {
        self.record.lock().unwrap().uploads.clone()
    }
}

/// `encodeURIComponent` undone (the fixture pages send file names that way).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            s.get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok()),
        ) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The real sites' names, served over TLS from the fixture directory on 127.0.0.1: what a test
/// Chromium reaches when a request names YouTube, Wikipedia or a configured site. Chromium maps
/// these names (and nothing else but loopback) to this server with `--host-resolver-rules`, and
/// trusts exactly this server's test certificate by its key (`--ignore-certificate-errors-spki-list`,
/// which takes effect only with `--user-data-dir`, as every test Chromium has): the addresses stay
/// the real `https://` ones, and every other certificate is still checked.
pub struct RealSites {
    pub port: u16,
    /// The base64 SHA-256 of the test certificate's SubjectPublicKeyInfo.
    pub spki: String,
    /// Every request: `"<host> <path and query>"`.
    pub record: Arc<Mutex<Vec<String>>>,
    /// What the pages reported (`POST /api/action`, as the fixture sites do).
    actions: Arc<Mutex<Vec<serde_json::Value>>>,
    /// How long a page (not its scripts or styles) takes to arrive, in ms: an operation still
    /// running when a test stops or corrects it.
    pub page_delay_ms: Arc<std::sync::atomic::AtomicU64>,
    _runtime: tokio::runtime::Runtime,
}

/// The names `RealSites` answers to, and the fixture directory each is served from (a path with
/// no file extension is that name plus `.html`; `/` is `index.html`; `/wiki/Main_Page` is the
/// wiki's front page; anything not found there is looked up from the fixture root).
pub const REAL_HOSTS: &[(&str, &str)] = &[
    ("www.youtube.com", "video"),
    ("en.wikipedia.org", "wiki"),
    ("shop.circe.test", ""),
];

impl RealSites {
    pub fn start() -> RealSites {
        use axum::http::{header, HeaderMap, StatusCode};
        use axum::response::IntoResponse;
        use rcgen::PublicKeyData as _;
        use sha2::Digest as _;
        use tower_service::Service as _;

        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sites"));
        let record: Arc<Mutex<Vec<String>>> = Arc::default();
        let actions: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
        let page_delay_ms: Arc<std::sync::atomic::AtomicU64> = Arc::default();
        // A test certificate for the mapped names, valid for a day either side of now.
        let names: Vec<String> = REAL_HOSTS.iter().map(|(h, _)| h.to_string()).collect();
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(names).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        params.not_before = time::OffsetDateTime::from_unix_timestamp(now - 86_400).unwrap();
        params.not_after = time::OffsetDateTime::from_unix_timestamp(now + 86_400).unwrap();
        let cert = params.self_signed(&key).unwrap();
        let spki = {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .encode(sha2::Sha256::digest(key.subject_public_key_info()))
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .unwrap();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));

        type S = (
            PathBuf,
            Arc<Mutex<Vec<String>>>,
            Arc<std::sync::atomic::AtomicU64>,
        );
        async fn get(
            axum::extract::State((root, record, delay)): axum::extract::State<S>,
            headers: HeaderMap,
            uri: axum::http::Uri,
        ) -> axum::response::Response {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("")
                .split(':')
                .next()
                .unwrap_or("")
                .to_string();
            let pq = uri
                .path_and_query()
                .map(|p| p.as_str().to_string())
                .unwrap_or_default();
            record.lock().unwrap().push(format!("{host} {pq}"));
            let Some((_, dir)) = REAL_HOSTS.iter().find(|(h, _)| *h == host) else {
                return StatusCode::MISDIRECTED_REQUEST.into_response();
            };
            let path = uri.path();
            if path.contains("..") {
                return StatusCode::FORBIDDEN.into_response();
            }
            let rel = match path {
                "/" => "index.html".to_string(),
                "/wiki/Main_Page" => "index.html".to_string(),
                p if !p.rsplit('/').next().unwrap_or("").contains('.') => {
                    format!("{}.html", p.trim_start_matches('/'))
                }
                p => p.trim_start_matches('/').to_string(),
            };
            let candidates = [root.join(dir).join(&rel), root.join(&rel)];
            let Some(file) = candidates.iter().find(|c| c.is_file()) else {
                return StatusCode::NOT_FOUND.into_response();
            };
            let html = file.extension().is_some_and(|e| e == "html");
            let wait = delay.load(std::sync::atomic::Ordering::SeqCst);
            if html && wait > 0 {
                tokio::time::sleep(Duration::from_millis(wait)).await;
            }
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript; charset=utf-8",
                Some("css") => "text/css; charset=utf-8",
                Some("json") => "application/json",
                Some("svg") => "image/svg+xml",
                _ => "application/octet-stream",
            };
            (
                [
                    (header::CONTENT_TYPE, kind),
                    (header::CACHE_CONTROL, "no-store"),
                ],
                std::fs::read(file).unwrap(),
            )
                .into_response()
        }
        let reported = actions.clone();
        let app = axum::Router::new()
            .route(
                "/api/action",
                axum::routing::post(move |body: axum::body::Bytes| async move {
                    if let Ok(v) = serde_json::from_slice(&body) {
                        reported.lock().unwrap().push(v);
                    }
                    StatusCode::NO_CONTENT
                }),
            )
            .fallback(axum::routing::get(get))
            .with_state((root, record.clone(), page_delay_ms.clone()));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        runtime.spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let (acceptor, app) = (acceptor.clone(), app.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper::service::service_fn(
                        move |request: axum::http::Request<hyper::body::Incoming>| {
                            app.clone().call(request.map(axum::body::Body::new))
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        RealSites {
            port,
            spki,
            record,
            actions,
            page_delay_ms,
            _runtime: runtime,
        }
    }

    /// What the pages reported, in order.
    pub fn actions(&self) -> Vec<serde_json::Value> {
        self.actions.lock().unwrap().clone()
    }

    /// The requests so far, `"<host> <path and query>"`.
    pub fn requests(&self) -> Vec<String> {
        self.record.lock().unwrap().clone()
    }

    /// The resolver rules that send the real names here and resolve nothing else but loopback.
    pub fn resolver_rules(&self) -> String {
        resolver_rules(
            &REAL_HOSTS
                .iter()
                .map(|(h, _)| (*h, self.port))
                .collect::<Vec<_>>(),
        )
    }

    /// The Chromium flags for these sites: the resolver rules and the test certificate's key.
    pub fn flags(&self) -> Vec<String> {
        vec![
            format!("--host-resolver-rules={}", self.resolver_rules()),
            format!("--ignore-certificate-errors-spki-list={}", self.spki),
        ]
    }
}

/// The loopback-only rule of [`TEST_FLAGS`]: every name fails to resolve but 127.0.0.1 and localhost.
pub const LOOPBACK_ONLY: &str = "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost";

/// `--host-resolver-rules` mapping each `(name, port)` to 127.0.0.1 on that port, before the
/// loopback-only rule (the first MAP that matches wins; the EXCLUDEs keep loopback itself).
pub fn resolver_rules(maps: &[(&str, u16)]) -> String {
    let mut rules: Vec<String> = maps
        .iter()
        .map(|(host, port)| format!("MAP {host} 127.0.0.1:{port}"))
        .collect();
    rules.push(LOOPBACK_ONLY.to_string());
    rules.join(" , ")
}

/// Headless Chromium with the Circe extension, in its own profile and process group.
pub struct Browser {
    child: Option<Child>,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Start Chromium on `url` with the extension; its native host reaches `daemon`.
    pub fn start(daemon: &Daemon, url: &str) -> Browser {
        Browser::start_with(daemon, url, &[])
    }

    /// [`Browser::start`] with extra flags; a `--host-resolver-rules` among them replaces the
    /// loopback-only one (it must end with [`LOOPBACK_ONLY`]: tests reach only this machine).
    pub fn start_with(daemon: &Daemon, url: &str, extra: &[String]) -> Browser {
        require_chromium();
        let profile = tempfile::Builder::new()
            .prefix("circe-chromium")
            .tempdir()
            .unwrap();
        let hosts = profile.path().join("NativeMessagingHosts");
        // The same command a user runs, pointed at this profile.
        let out = daemon.cli(&[
            "install-browser",
            "--user-data-dir",
            profile.path().to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "install-browser: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let manifest: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(hosts.join("com.circe.connector.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(manifest["path"], CIRCE);
        let extension = concat!(env!("CARGO_MANIFEST_DIR"), "/chrome-extension");
        let log = std::fs::File::create(daemon.dir.path().join("chromium.log")).unwrap();
        let d = daemon.dir.path();
        let rules = extra
            .iter()
            .find(|f| f.starts_with("--host-resolver-rules="));
        if let Some(rules) = rules {
            assert!(
                rules.ends_with(LOOPBACK_ONLY),
                "{rules} must keep the loopback-only rule"
            );
        }
        let mut cmd = Command::new(CHROMIUM);
        cmd.args(
            TEST_FLAGS
                .iter()
                .filter(|f| rules.is_none() || !f.starts_with("--host-resolver-rules=")),
        )
        .args(extra)
        .args(["--window-size=1280,900", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--load-extension={extension}"))
        .arg(format!("--disable-extensions-except={extension}"))
        .arg(url)
        // Chrome and the native host it starts see the daemon's XDG dirs; HOME stays private.
        .env("HOME", profile.path())
        .env("XDG_CONFIG_HOME", d.join("config"))
        .env("XDG_DATA_HOME", d.join("data"))
        .env("XDG_RUNTIME_DIR", d.join("run"))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log);
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().expect("start chromium");
        Browser {
            child: Some(child),
            _profile: profile,
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let group = child.id() as i32;
            unsafe { libc::kill(-group, libc::SIGTERM) };
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            unsafe { libc::kill(-group, libc::SIGKILL) };
            let _ = child.wait();
        }
    }
}

/// Wait until the daemon reports a connected Chrome profile.
pub fn wait_connected(daemon: &Daemon, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let out = daemon.cli(&["state", "--json"]);
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&out.stdout) {
            if v["executors"]["browser"]["connected"] == true {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the extension did not connect within {within:?}; chromium log:\n{}\ndaemon log:\n{}",
            std::fs::read_to_string(daemon.dir.path().join("chromium.log")).unwrap_or_default(),
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `circe say --json --wait TEXT`, parsed; a reply that is not JSON fails with the daemon's log.
pub fn say(d: &Daemon, text: &str) -> serde_json::Value {
    let out = d.cli(&["say", "--json", "--wait", text]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "say {text:?}: {} {}\n{}",
            crate::util::stdout(&out),
            crate::util::stderr(&out),
            d.log()
        )
    })
}

/// The fixture sites, a daemon named "desk", and Chromium with the extension on `page`, connected.
pub fn setup(page: &str) -> (Sites, Daemon, Browser) {
    let sites = Sites::start();
    let d = Daemon::start("[node]\nname = \"desk\"\n");
    let b = Browser::start(&d, &format!("{}{page}", sites.url));
    wait_connected(&d, Duration::from_secs(30));
    (sites, d, b)
}

/// The operation's status in a `say --json` reply.
pub fn status(v: &serde_json::Value) -> &str {
    v["operation"]["status"].as_str().unwrap_or("?")
}

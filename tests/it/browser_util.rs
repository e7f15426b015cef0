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
        let app = axum::Router::new()
            .route("/api/action", axum::routing::post(action))
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
}

/// Headless Chromium with the Circe extension, in its own profile and process group.
pub struct Browser {
    child: Option<Child>,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Start Chromium on `url` with the extension; its native host reaches `daemon`.
    pub fn start(daemon: &Daemon, url: &str) -> Browser {
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
        let mut cmd = Command::new(CHROMIUM);
        cmd.args(TEST_FLAGS)
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

//! Test helpers: a real `circe serve` in private XDG dirs, the CLI, and a weather server on 127.0.0.1.

use circe::client::Client;
use circe::protocol::{Notification, StateView, Verb};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const CIRCE: &str = env!("CARGO_BIN_EXE_circe");

/// A daemon with its own data, config and runtime directories.
pub struct Daemon {
    pub dir: tempfile::TempDir,
    child: Option<Child>,
    /// Extra environment for the daemon and the CLI (e.g. a desktop session's DISPLAY).
    env: Vec<(String, String)>,
    /// The network namespace (of this process id) the daemon and its CLI run in, if not ours.
    netns: Option<u32>,
    /// How `circe serve` is started, beyond this process's own settings.
    launch: Launch,
}

/// Process settings for `circe serve` (lowered, never raised).
#[derive(Clone, Copy, Default)]
pub struct Launch {
    /// The umask (e.g. 0o022, which leaves new files readable by others).
    pub umask: Option<libc::mode_t>,
    /// The descriptor limit (`RLIMIT_NOFILE`, soft and hard).
    pub open_files: Option<u64>,
}

impl Daemon {
    /// Start `circe serve` with `config` (TOML) and wait until its socket answers.
    pub fn start(config: &str) -> Daemon {
        Daemon::start_with_env(config, Vec::new())
    }

    /// Start `circe serve` with extra environment variables.
    pub fn start_with_env(config: &str, env: Vec<(String, String)>) -> Daemon {
        let mut d = Daemon::start_stopped(config);
        d.env = env;
        d.spawn();
        d
    }

    /// The directories and config, not yet serving.
    fn start_stopped(config: &str) -> Daemon {
        let dir = tempfile::Builder::new()
            .prefix("circe-it")
            .tempdir()
            .unwrap();
        for sub in ["data", "config/circe", "run"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        // Each test daemon's mesh listens on its own free loopback port (see `mesh_addr`).
        let config = if config.contains("[mesh]") {
            config.to_string()
        } else {
            format!("{config}\n[mesh]\nlisten = \"127.0.0.1:0\"\n")
        };
        std::fs::write(dir.path().join("config/circe/config.toml"), config).unwrap();
        Daemon {
            dir,
            child: None,
            env: Vec::new(),
            netns: None,
            launch: Launch::default(),
        }
    }

    /// Start `circe serve` inside the network namespace of process `pid` (its Unix sockets are
    /// still reachable from here: they live in the file system).
    pub fn start_in_netns(config: &str, pid: u32) -> Daemon {
        let mut d = Daemon::start_stopped(config);
        d.netns = Some(pid);
        d.spawn();
        d
    }

    /// Start `circe serve` with `launch`'s process settings.
    pub fn start_launched(config: &str, launch: Launch) -> Daemon {
        let mut d = Daemon::start_stopped(config);
        d.launch = launch;
        d.spawn();
        d
    }

    pub fn spawn(&mut self) {
        use std::os::unix::process::CommandExt as _;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("serve.log"))
            .unwrap();
        let mut command = self.command();
        let launch = self.launch;
        // SAFETY: umask and setrlimit are async-signal-safe; nothing is allocated.
        unsafe {
            command.pre_exec(move || {
                if let Some(mask) = launch.umask {
                    libc::umask(mask);
                }
                if let Some(n) = launch.open_files {
                    let limit = libc::rlimit {
                        rlim_cur: n,
                        rlim_max: n,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let child = command
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn circe serve");
        self.child = Some(child);
        self.wait_ready();
    }

    fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if std::os::unix::net::UnixStream::connect(self.socket()).is_ok() {
                return;
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("circe serve exited with {status}: {}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "circe serve did not open its socket within 20 s: {}",
            self.log()
        );
    }

    /// The daemon's process id (benchmarks read its memory).
    #[allow(dead_code)] // used by benches/
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// A daemon for benchmarks: logging at `warn`, so log writes do not skew the timings.
    #[allow(dead_code)] // used by benches/
    pub fn quiet(config: &str) -> Daemon {
        Daemon::start_with_env(config, vec![("RUST_LOG".into(), "warn".into())])
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("serve.log")).unwrap_or_default()
    }

    /// A `circe` command in this daemon's environment.
    pub fn command(&self) -> Command {
        let mut c = match self.netns {
            Some(pid) => {
                let mut c = Command::new("nsenter");
                c.args(["-t", &pid.to_string(), "-n", CIRCE]);
                c
            }
            None => Command::new(CIRCE),
        };
        let d = self.dir.path();
        c.env("XDG_DATA_HOME", d.join("data"))
            .env("XDG_CONFIG_HOME", d.join("config"))
            .env("XDG_RUNTIME_DIR", d.join("run"))
            .env_remove("CIRCE_SOCKET")
            .env_remove("CIRCE_DATA_DIR")
            .env_remove("CIRCE_CONFIG")
            .env("RUST_LOG", "info")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        c
    }

    /// Run the CLI and return its output.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run circe")
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("run/circe/control.sock")
    }

    /// The mesh listener's address (`127.0.0.1:PORT`), as the daemon wrote it, without a scheme.
    pub fn mesh_addr(&self) -> String {
        let file = self.mesh_file();
        file.strip_prefix("https://").unwrap_or(&file).to_string()
    }

    /// What the daemon wrote: `127.0.0.1:PORT`, or `https://127.0.0.1:PORT` behind TLS.
    pub fn mesh_file(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("run/circe/mesh.addr"))
            .expect("the daemon writes run/circe/mesh.addr")
    }

    /// Whether the mesh listener serves TLS.
    pub fn mesh_tls(&self) -> bool {
        self.mesh_file().starts_with("https://")
    }

    pub fn database(&self) -> PathBuf {
        self.dir.path().join("data/circe/circe.db")
    }

    pub async fn client(&self) -> Client {
        Client::connect(&self.socket())
            .await
            .expect("connect to circe")
    }

    pub async fn state(&self) -> StateView {
        let v = self
            .client()
            .await
            .call(Verb::State {
                operations: Some(500),
            })
            .await
            .unwrap();
        serde_json::from_value(v).unwrap()
    }

    /// Send a signal and wait for the process to end; returns its exit status.
    pub fn signal(&mut self, sig: i32) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        unsafe { libc::kill(child.id() as i32, sig) };
        child.wait().unwrap()
    }
}

/// Run `circe serve` with `config` in fresh directories and expect it to refuse to start:
/// returns its stderr (panics if it is still running after 20 s or exits 0).
pub fn serve_refusal(config: &str) -> String {
    let d = Daemon::start_stopped(config);
    let mut child = d
        .command()
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn circe serve");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("circe serve kept running with {config:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        !status.success(),
        "circe serve started with {config:?}: {err}"
    );
    err
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// How the weather server should behave.
#[derive(Default)]
pub struct WeatherBehaviour {
    /// Hold every forecast request this long.
    pub forecast_delay_ms: AtomicU64,
    /// Answer the forecast with something that is not a forecast.
    pub garbage: AtomicBool,
}

/// An Open-Meteo-shaped HTTP server on 127.0.0.1, counting what it is asked.
pub struct WeatherServer {
    pub url: String,
    pub geocodes: Arc<AtomicUsize>,
    pub forecasts: Arc<AtomicUsize>,
    pub behaviour: Arc<WeatherBehaviour>,
    /// Places named "Chaos…" (any letters after it): each gets a latitude of its own, so every
    /// forecast request says which place (and so which operation) it was for.
    pub chaos: Arc<std::sync::Mutex<ChaosPlaces>>,
    /// Every name asked of the geocoder, in order.
    pub names: Arc<std::sync::Mutex<Vec<String>>>,
    _runtime: tokio::runtime::Runtime,
}

#[derive(Default)]
pub struct ChaosPlaces {
    /// The k-th place geocoded has latitude k / 100 + 0.005.
    pub names: Vec<String>,
    /// The place of every forecast request, in arrival order.
    pub forecasts: Vec<String>,
}

impl ChaosPlaces {
    fn latitude(&mut self, name: &str) -> f64 {
        let k = match self.names.iter().position(|n| n == name) {
            Some(k) => k,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        };
        k as f64 / 100.0 + 0.005
    }

    fn place_at(&self, latitude: f64) -> Option<String> {
        let k = ((latitude - 0.005) * 100.0).round();
        (k >= 0.0 && ((k / 100.0 + 0.005) - latitude).abs() < 0.001)
            .then(|| self.names.get(k as usize).cloned())
            .flatten()
    }
}

impl WeatherServer {
    pub fn start() -> WeatherServer {
        use axum::extract::{Query, State};
        use axum::routing::get;
        use std::collections::HashMap;

        #[derive(Clone)]
        struct S {
            geocodes: Arc<AtomicUsize>,
            forecasts: Arc<AtomicUsize>,
            behaviour: Arc<WeatherBehaviour>,
            chaos: Arc<std::sync::Mutex<ChaosPlaces>>,
            names: Arc<std::sync::Mutex<Vec<String>>>,
        }
        let state = S {
            geocodes: Arc::default(),
            forecasts: Arc::default(),
            behaviour: Arc::default(),
            chaos: Arc::default(),
            names: Arc::default(),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let app = axum::Router::new()
            .route(
                "/v1/search",
                get(|State(s): State<S>, Query(q): Query<HashMap<String, String>>| async move {
                    s.geocodes.fetch_add(1, Ordering::SeqCst);
                    let name = q.get("name").cloned().unwrap_or_default();
                    s.names.lock().unwrap().push(name.clone());
                    let places: &[(&str, f64, f64, &str, &str)] = &[
                        ("Ahmedabad", 23.0258, 72.5873, "Gujarat", "India"),
                        ("Pune", 18.5196, 73.8554, "Maharashtra", "India"),
                        ("Mumbai", 19.0728, 72.8826, "Maharashtra", "India"),
                        ("London", 51.5072, -0.1276, "England", "United Kingdom"),
                        ("Paris", 48.8566, 2.3522, "Île-de-France", "France"),
                    ];
                    if name.to_ascii_lowercase().starts_with("chaos") {
                        let lat = s.chaos.lock().unwrap().latitude(&name);
                        return axum::Json(serde_json::json!({"results": [{
                            "id": 2, "name": name, "latitude": lat, "longitude": 0.5, "admin1": "Nowhere", "country": "Testland",
                            "timezone": "UTC"}], "generationtime_ms": 0.5}));
                    }
                    let hit = places.iter().find(|p| p.0.eq_ignore_ascii_case(&name));
                    axum::Json(match hit {
                        Some((n, lat, lon, admin, country)) => serde_json::json!({"results": [{
                            "id": 1, "name": n, "latitude": lat, "longitude": lon, "admin1": admin, "country": country,
                            "timezone": "Asia/Kolkata"}], "generationtime_ms": 0.5}),
                        None => serde_json::json!({"generationtime_ms": 0.4}),
                    })
                }),
            )
            .route(
                "/v1/forecast",
                get(|State(s): State<S>, Query(q): Query<HashMap<String, String>>| async move {
                    s.forecasts.fetch_add(1, Ordering::SeqCst);
                    if let Some(lat) = q.get("latitude").and_then(|v| v.parse::<f64>().ok()) {
                        let mut chaos = s.chaos.lock().unwrap();
                        if let Some(place) = chaos.place_at(lat) {
                            chaos.forecasts.push(place);
                        }
                    }
                    let delay = s.behaviour.forecast_delay_ms.load(Ordering::SeqCst);
                    if delay > 0 {
                        tokio::time::sleep(Duration::from_millis(delay)).await;
                    }
                    if s.behaviour.garbage.load(Ordering::SeqCst) {
                        return (axum::http::StatusCode::OK, "<html>not json</html>".to_string());
                    }
                    let lat: f64 = q.get("latitude").and_then(|v| v.parse().ok()).unwrap_or(0.0);
                    // A temperature that depends on the place, so tests can tell places apart.
                    let t = 20.0 + (lat % 10.0);
                    let body = serde_json::json!({
                        "latitude": lat, "longitude": 0.0, "timezone": "Asia/Kolkata",
                        "current_units": {"temperature_2m": "°C", "wind_speed_10m": "km/h"},
                        "current": {"time": "2026-12-02T10:00", "interval": 900, "temperature_2m": t, "weather_code": 1, "wind_speed_10m": 7.2},
                        "daily": {"time": ["2026-12-02"], "temperature_2m_max": [t + 5.0], "temperature_2m_min": [t - 6.0]}
                    });
                    (axum::http::StatusCode::OK, body.to_string())
                }),
            )
            .with_state(state.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
        WeatherServer {
            url,
            geocodes: state.geocodes,
            forecasts: state.forecasts,
            behaviour: state.behaviour,
            chaos: state.chaos,
            names: state.names,
            _runtime: runtime,
        }
    }

    pub fn config(&self) -> String {
        format!(
            "[node]\nname = \"desk\"\n[weather]\ngeocoding_url = \"{0}\"\nforecast_url = \"{0}\"\ntimeout_ms = 1500\n",
            self.url
        )
    }
}

/// Wait for a notification that satisfies `pred`, within `secs`.
pub async fn wait_until<T>(
    sub: &mut circe::client::Subscription,
    secs: u64,
    mut pred: impl FnMut(&Notification) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        // Events about an operation come as the whole operation, as it now is.
        let n = tokio::time::timeout_at(deadline, sub.next_folded())
            .await
            .expect("timed out waiting for a notification")
            .unwrap();
        if let Some(t) = pred(&n) {
            return t;
        }
    }
}

pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

pub fn file_mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// The glossary the grounding tests use: `$CIRCE_GLOSSARY_DIR`, else `.models/glossary` in the
/// repository, built there once from the FreeDict dictionaries (`/usr/share/dictd`, the Debian
/// packages scripts/test installs) when missing or without a language those have. Fails, saying what to install, without them.
pub fn glossary_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::var_os("CIRCE_GLOSSARY_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join(".models/glossary"),
            PathBuf::from,
        );
        // Missing, or built before a language's dictionary was installed (or read).
        let dictd = Path::new(circe::glossary::DICTD_DIR);
        if circe::glossary::Glossary::load(&dir).map_or(true, |g| !g.missing(dictd).is_empty()) {
            circe::glossary::install(Path::new(circe::glossary::DICTD_DIR), &dir).unwrap_or_else(
                |e| panic!("the glossary cannot be built: {e} (scripts/test installs them)"),
            );
        }
        dir
    })
    .clone()
}

pub fn glossary() -> &'static circe::glossary::Glossary {
    static G: std::sync::OnceLock<circe::glossary::Glossary> = std::sync::OnceLock::new();
    G.get_or_init(|| circe::glossary::Glossary::load(&glossary_dir()).expect("glossary"))
}

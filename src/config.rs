//! Configuration (a TOML file, every setting defaulted) and the XDG paths Circe uses.

use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub node: NodeConfig,
    pub weather: WeatherConfig,
    pub limits: Limits,
    pub decider: DeciderConfig,
    pub mesh: MeshConfig,
    pub voice: VoiceConfig,
    pub store: StoreConfig,
}

/// `[store]`: how long what Circe saw is kept. Observations (a browser page as Circe read it)
/// are stored once, apart from the operation log, and pruned past these bounds; a pruned one's
/// fetch says `observation_pruned`. The operation log itself is never pruned.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// The newest observations kept per operation (older ones of the same operation are pruned).
    pub keep_observations_per_operation: usize,
    /// The newest observations kept in all.
    pub keep_observations: usize,
    /// Observations older than this many days are pruned (0: no age limit).
    pub keep_observations_days: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            keep_observations_per_operation: 8,
            keep_observations: 500,
            keep_observations_days: 30,
        }
    }
}

impl StoreConfig {
    /// The store's view of these bounds.
    pub fn retention(&self) -> crate::store::Retention {
        crate::store::Retention {
            per_operation: self.keep_observations_per_operation.max(1),
            total: self.keep_observations.max(1),
            max_age_ms: self.keep_observations_days.saturating_mul(86_400_000),
        }
    }
}

/// `[voice]`: which recogniser hears speech, and the voice providers' settings.
/// `[voice.realtime]` is the OpenAI Realtime adapter (docs/VOICE-REALTIME.md).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoiceConfig {
    /// `whisper` (the default), `grammar` (pocketsphinx with the screen's command grammar) or
    /// `realtime` (`[voice.realtime]`), for every audio source; read only by
    /// `voice::backend::Backend::chosen`.
    pub recogniser: crate::voice::backend::Recogniser,
    /// Whisper's decoding threads; 0 (the default): every core, at most four. On a machine
    /// other work keeps busy, 1 has the shorter tail (docs/VOICE.md).
    pub threads: u32,
    pub realtime: crate::voice::realtime::RealtimeConfig,
}

/// Which decider grounds on-screen choices. The local one always runs; a remote one may add its
/// view, and any error, timeout or invented answer falls back to the local decision.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeciderConfig {
    /// `none` (the default), `openai` (any OpenAI-compatible chat endpoint with logprobs), or
    /// `decisions` (a decisions-API endpoint).
    pub remote: String,
    /// Base URL: for `openai`, up to and including `/v1`.
    pub url: String,
    /// The model name, for `openai`.
    pub model: String,
    /// The name of the environment variable that holds the API key (the key is never in the file).
    pub api_key_env: String,
    pub timeout_ms: u64,
}

impl Default for DeciderConfig {
    fn default() -> Self {
        DeciderConfig {
            remote: "none".into(),
            url: String::new(),
            model: String::new(),
            api_key_env: String::new(),
            timeout_ms: 1500,
        }
    }
}

/// The HTTP + WebSocket listener for paired devices (the phone client and other nodes).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MeshConfig {
    pub enabled: bool,
    /// Loopback by default. Any other address is served over TLS only.
    pub listen: String,
    /// `auto` (the default: TLS exactly when `listen` is not loopback), `on` (TLS on loopback
    /// too) or `off` (refused with a non-loopback `listen`).
    pub tls: TlsMode,
    /// Extra host names this node answers to (exact match, e.g. an mDNS name).
    pub hosts: Vec<String>,
    /// Live WebSockets the node accepts in total (each device may hold at most 4).
    pub max_sockets: usize,
    /// A ping goes out on every device socket and peer link this often; one that has sent
    /// nothing for three of these is closed (a phone that left the network frees its socket).
    pub keepalive_ms: u64,
    /// TCP connections the listener holds at once (HTTP, WebSocket, TLS handshakes); beyond
    /// this a new connection is closed at once.
    pub max_connections: usize,
    /// The same, from one peer address.
    pub max_connections_per_address: usize,
    /// How long a client has to send a whole request head (and an idle keep-alive connection
    /// waits for the next one) before its connection is closed.
    pub header_timeout_ms: u64,
}

impl Default for MeshConfig {
    fn default() -> Self {
        MeshConfig {
            enabled: true,
            listen: "127.0.0.1:7457".into(),
            tls: TlsMode::Auto,
            hosts: Vec::new(),
            max_sockets: 64,
            keepalive_ms: 15_000,
            max_connections: 256,
            max_connections_per_address: 32,
            header_timeout_ms: 5_000,
        }
    }
}

/// `[mesh] tls`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    Auto,
    On,
    Off,
}

impl TlsMode {
    pub fn as_str(self) -> &'static str {
        match self {
            TlsMode::Auto => "auto",
            TlsMode::On => "on",
            TlsMode::Off => "off",
        }
    }

    /// Whether a listener on `ip` serves TLS; `Err` for `off` beyond loopback, with a message
    /// that names the setting.
    pub fn enabled_for(self, ip: std::net::IpAddr) -> Result<bool, String> {
        match self {
            TlsMode::On => Ok(true),
            TlsMode::Auto => Ok(!ip.is_loopback()),
            TlsMode::Off if ip.is_loopback() => Ok(false),
            TlsMode::Off => Err(format!(
                "[mesh] tls = \"off\" with [mesh] listen on {ip}, which is not loopback: beyond loopback the mesh is served over TLS only; remove [mesh] tls (or set it to \"auto\"), or listen on 127.0.0.1"
            )),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NodeConfig {
    /// The name people see for this device; defaults to the host name.
    pub name: String,
    /// What this node is for: `full` (executes), `controller` or `headless`.
    pub role: crate::mesh::identity::Role,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WeatherConfig {
    /// Base URL of an Open-Meteo-compatible geocoding API (`/v1/search`).
    pub geocoding_url: String,
    /// Base URL of an Open-Meteo-compatible forecast API (`/v1/forecast`).
    pub forecast_url: String,
    /// How long one HTTP request may take before the step is abandoned.
    pub timeout_ms: u64,
}

/// Explicit limits; each is enforced with a clear error, never by partial processing.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// The longest control message (one JSON line) in bytes.
    pub max_message_bytes: usize,
    /// The longest input text, in characters.
    pub max_input_chars: usize,
    /// Inputs waiting to be read against the state; beyond this a submit gets `queue_full`.
    pub input_queue_depth: usize,
}

impl Default for NodeConfig {
    fn default() -> Self {
        NodeConfig {
            name: host_name(),
            role: crate::mesh::identity::Role::Full,
        }
    }
}

impl Default for WeatherConfig {
    fn default() -> Self {
        WeatherConfig {
            geocoding_url: "https://geocoding-api.open-meteo.com".into(),
            forecast_url: "https://api.open-meteo.com".into(),
            timeout_ms: 10_000,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 64 * 1024,
            max_input_chars: 4000,
            input_queue_depth: 256,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path} is not valid: {message}")]
    Parse { path: PathBuf, message: String },
}

impl Config {
    /// Read `path` if it exists; a missing file means every default.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text).map_err(|message| ConfigError::Parse {
                path: path.into(),
                message,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(source) => Err(ConfigError::Read {
                path: path.into(),
                source,
            }),
        }
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim().replace('\n', " "))
    }
}

/// Where Circe keeps things, following the XDG base directory spec.
#[derive(Clone, Debug)]
pub struct Paths {
    pub data_dir: PathBuf,
    pub config_file: PathBuf,
    pub runtime_dir: PathBuf,
}

impl Paths {
    pub fn from_env(data_dir: Option<PathBuf>, config_file: Option<PathBuf>) -> Paths {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/"));
        let xdg = |var: &str, fallback: &str| {
            std::env::var_os(var)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| home.join(fallback))
        };
        let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .map(|p| p.join("circe"))
            // Without a runtime dir the socket lives beside the data, still private to the user.
            .unwrap_or_else(|| {
                xdg("XDG_DATA_HOME", ".local/share")
                    .join("circe")
                    .join("run")
            });
        Paths {
            data_dir: data_dir
                .unwrap_or_else(|| xdg("XDG_DATA_HOME", ".local/share").join("circe")),
            config_file: config_file.unwrap_or_else(|| {
                xdg("XDG_CONFIG_HOME", ".config")
                    .join("circe")
                    .join("config.toml")
            }),
            runtime_dir,
        }
    }

    pub fn database(&self) -> PathBuf {
        self.data_dir.join("circe.db")
    }

    pub fn control_socket(&self) -> PathBuf {
        self.runtime_dir.join("control.sock")
    }

    /// Where native hosts (started by Chrome) reach the daemon.
    pub fn browser_socket(&self) -> PathBuf {
        self.runtime_dir.join("browser.sock")
    }

    /// This node's identity key (Ed25519, PKCS#8, 0600); the browser certificate's key
    /// (`tls.key`, ECDSA P-256) lives beside it.
    pub fn node_key(&self) -> PathBuf {
        self.data_dir.join("node.key")
    }

    /// Where the daemon writes the mesh listener's actual address (for `listen = "...:0"`):
    /// `127.0.0.1:PORT` for plain HTTP, `https://127.0.0.1:PORT` behind TLS.
    pub fn mesh_addr(&self) -> PathBuf {
        self.runtime_dir.join("mesh.addr")
    }

    /// The per-install secret a native host presents to the daemon.
    pub fn browser_secret(&self) -> PathBuf {
        self.data_dir.join("browser.secret")
    }
}

fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "this-computer".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_config_is_all_defaults() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.limits.max_message_bytes, 64 * 1024);
        assert_eq!(c.weather.timeout_ms, 10_000);
    }

    #[test]
    fn partial_config_keeps_other_defaults() {
        let c = Config::parse("[weather]\nforecast_url = \"http://127.0.0.1:9\"\n").unwrap();
        assert_eq!(c.weather.forecast_url, "http://127.0.0.1:9");
        assert_eq!(
            c.weather.geocoding_url,
            WeatherConfig::default().geocoding_url
        );
    }

    #[test]
    fn a_remote_decider_is_opt_in() {
        assert_eq!(Config::parse("").unwrap().decider.remote, "none");
        let c = Config::parse(
            "[decider]\nremote = \"openai\"\nurl = \"http://127.0.0.1:8080/v1\"\nmodel = \"m\"\n",
        )
        .unwrap();
        assert_eq!(
            (c.decider.remote.as_str(), c.decider.timeout_ms),
            ("openai", 1500)
        );
    }

    #[test]
    fn mesh_tls_follows_the_listen_address() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.mesh.tls, TlsMode::Auto);
        let (lo, lan): (std::net::IpAddr, std::net::IpAddr) =
            ("127.0.0.1".parse().unwrap(), "0.0.0.0".parse().unwrap());
        assert_eq!(TlsMode::Auto.enabled_for(lo), Ok(false));
        assert_eq!(TlsMode::Auto.enabled_for(lan), Ok(true));
        assert_eq!(TlsMode::On.enabled_for(lo), Ok(true));
        assert_eq!(TlsMode::Off.enabled_for(lo), Ok(false));
        let err = TlsMode::Off.enabled_for(lan).unwrap_err();
        assert!(err.contains("[mesh] tls"), "{err}");
        let c = Config::parse("[mesh]\ntls = \"on\"\n").unwrap();
        assert_eq!(c.mesh.tls, TlsMode::On);
        let err = Config::parse("[mesh]\ntls = \"maybe\"\n").unwrap_err();
        assert!(err.contains("tls") && err.contains("auto"), "{err}");
    }

    #[test]
    fn the_realtime_adapter_is_configured_under_voice_realtime() {
        let c = Config::parse("").unwrap();
        assert_eq!(
            c.voice.realtime,
            crate::voice::realtime::RealtimeConfig::default()
        );
        let c = Config::parse(
            "[voice.realtime]\nbase_url = \"ws://127.0.0.1:9/v1/realtime\"\nturn_detection = \"manual\"\n",
        )
        .unwrap();
        assert_eq!(c.voice.realtime.base_url, "ws://127.0.0.1:9/v1/realtime");
        assert_eq!(c.voice.realtime.reconnect_min_ms, 250);
        let err = Config::parse("[voice.realtime]\napi_key = \"sk-x\"\n").unwrap_err();
        assert!(err.contains("api_key"), "{err}");
    }

    #[test]
    fn observation_retention_is_bounded_and_configurable() {
        let r = Config::parse("").unwrap().store.retention();
        assert_eq!((r.per_operation, r.total), (8, 500));
        assert_eq!(r.max_age_ms, 30 * 86_400_000);
        let c = Config::parse(
            "[store]\nkeep_observations_per_operation = 2\nkeep_observations = 0\nkeep_observations_days = 0\n",
        )
        .unwrap();
        // At least one is always kept (the one a question may be about); 0 days is no age limit.
        let r = c.store.retention();
        assert_eq!((r.per_operation, r.total, r.max_age_ms), (2, 1, 0));
        let err = Config::parse("[store]\nkeep_observation = 3\n").unwrap_err();
        assert!(err.contains("keep_observation"), "{err}");
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = Config::parse("[weather]\nforcast_url = \"x\"\n").unwrap_err();
        assert!(err.contains("forcast_url"), "{err}");
    }
}

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
    /// `[[projects]]`: the project catalog coding requests are routed to (seed 002).
    pub projects: Vec<ProjectConfig>,
    pub browser: BrowserConfig,
    pub planner: PlannerConfig,
    pub desktop: DesktopConfig,
}

/// `[desktop]`: which applications Circe may control on this node's desktop. Each list names
/// apps by desktop id, program or name, or accessible name, ignoring case; a list left out is
/// its default ([`crate::desktop::policy::DEFAULT_DENY`], [`crate::desktop::policy::DEFAULT_READ_ONLY`]),
/// an explicit one (even empty) replaces it:
///
/// ```toml
/// [desktop]
/// deny = ["keepassxc", "bitwarden"]   # never observed, never changed
/// read_only = ["xterm", "konsole"]    # observed, never changed
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DesktopConfig {
    pub deny: Option<Vec<String>>,
    pub read_only: Option<Vec<String>>,
}

impl DesktopConfig {
    /// The policy these lists make.
    pub fn policy(&self) -> crate::desktop::policy::Policy {
        crate::desktop::policy::Policy::new(self.deny.clone(), self.read_only.clone())
    }

    /// Every entry names something: an empty or blank one is refused, naming its list and place.
    fn check(&self) -> Result<(), String> {
        for (key, list) in [("deny", &self.deny), ("read_only", &self.read_only)] {
            for (i, entry) in list.iter().flatten().enumerate() {
                if entry.trim().is_empty() {
                    return Err(format!(
                        "[desktop] {key} entry {} is empty; name an app by its desktop id, program or name",
                        i + 1
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The longest project name.
pub const MAX_PROJECT_NAME_CHARS: usize = 64;

/// One `[[projects]]` entry: a project a coding request may name, where it lives, and the
/// provider command that works on it. Validated on load ([`Config::parse`]): every problem names
/// the entry.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectConfig {
    /// What a person says ("Rivvl"); unique on its node, case-insensitively.
    pub name: String,
    /// The node that holds it; this node when left out.
    #[serde(default)]
    pub node: Option<String>,
    /// Its directory (absolute; on this node it must exist and be a directory). The command
    /// starts there.
    pub path: PathBuf,
    /// The provider command, as an argument list (no shell): `["claude", "-p"]`. The objective
    /// is its last argument, or its standard input when `objective = "stdin"`.
    pub command: Vec<String>,
    /// How the command gets the objective: `"argument"` (the default) or `"stdin"`.
    #[serde(default)]
    pub objective: ObjectiveVia,
}

/// `[[projects]] objective`: how the provider command receives the objective.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectiveVia {
    /// As the command's last argument.
    #[default]
    Argument,
    /// On its standard input (then closed).
    Stdin,
}

impl ProjectConfig {
    /// The node that holds it, given this node's name.
    pub fn node_or<'a>(&'a self, this: &'a str) -> &'a str {
        self.node.as_deref().unwrap_or(this)
    }
}

/// `[browser]`: the Chrome connector. `[[browser.sites]]` adds sites to the navigation fast
/// paths ("open <site>", "search <site> for …"), beside the built-in YouTube, Wikipedia, GitHub
/// and DuckDuckGo; an entry with a built-in's name replaces it:
///
/// ```toml
/// [[browser.sites]]
/// name = "Rust docs"                 # what people say
/// aliases = ["docs.rs"]              # other names (optional)
/// home = "https://docs.rs/"          # "open Rust docs"
/// search = "https://docs.rs/releases/search?query={query}"   # optional; {query} once
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrowserConfig {
    pub sites: Vec<crate::browser::navigation::Site>,
}

impl BrowserConfig {
    /// The site table (built-in sites plus these), or what is wrong with an entry.
    pub fn sites(&self) -> Result<crate::browser::navigation::Sites, String> {
        crate::browser::navigation::Sites::new(&self.sites)
    }
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

/// `[planner]`: the model that plans multi-step tasks and answers questions about a page, in
/// words (src/planner). Any OpenAI-compatible chat endpoint; none by default, and then Circe says
/// plainly which requests need one.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlannerConfig {
    /// Base URL up to and including `/v1` (llama.cpp server, ollama, vLLM, OpenAI).
    pub url: String,
    pub model: String,
    /// The name of the environment variable that holds the API key (the key is never in the file).
    pub api_key_env: String,
    /// How long one answer may take.
    pub timeout_ms: u64,
    /// Steps one request may take.
    pub steps: u32,
    /// Seconds one request may take.
    pub seconds: u64,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        PlannerConfig {
            url: String::new(),
            model: String::new(),
            api_key_env: String::new(),
            timeout_ms: 20_000,
            steps: 8,
            seconds: 120,
        }
    }
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
        let config: Config =
            toml::from_str(text).map_err(|e| e.to_string().trim().replace('\n', " "))?;
        config.browser.sites()?;
        config.check_projects()?;
        config.desktop.check()?;
        Ok(config)
    }

    /// The `[[projects]]` entries make sense: a name (unique on its node), a node when one is
    /// given, a command, and on this node a directory that exists. The error names the entry.
    pub fn check_projects(&self) -> Result<(), String> {
        let this = self.node.name.as_str();
        let mut seen: Vec<(String, String)> = Vec::new();
        for (i, p) in self.projects.iter().enumerate() {
            let entry = format!("[[projects]] entry {} ({:?})", i + 1, p.name);
            let name = p.name.trim();
            if name.is_empty() {
                return Err(format!("[[projects]] entry {}: name is empty", i + 1));
            }
            if name != p.name
                || name.chars().count() > MAX_PROJECT_NAME_CHARS
                || name.contains('/')
                || name.chars().any(char::is_control)
                || !name.chars().any(char::is_alphanumeric)
            {
                return Err(format!(
                    "{entry}: name must be 1 to {MAX_PROJECT_NAME_CHARS} characters with a letter or digit, no '/', no control characters and no spaces around it"
                ));
            }
            if p.node.as_deref().is_some_and(|n| n.trim().is_empty()) {
                return Err(format!(
                    "{entry}: node is empty; leave it out for this node ({this:?})"
                ));
            }
            let node = p.node_or(this).to_string();
            let key = (node.clone(), name.to_lowercase());
            if seen.contains(&key) {
                return Err(format!(
                    "{entry}: another entry on node {node:?} is already named {name:?}"
                ));
            }
            seen.push(key);
            match p.command.first() {
                None => {
                    return Err(format!(
                        "{entry}: command is empty; give the provider command as a list, e.g. [\"claude\", \"-p\"]"
                    ))
                }
                Some(program) if program.trim().is_empty() => {
                    return Err(format!("{entry}: command's program (its first item) is empty"))
                }
                Some(_) => {}
            }
            if !p.path.is_absolute() {
                return Err(format!(
                    "{entry}: path {} is not absolute",
                    p.path.display()
                ));
            }
            if node == this {
                match std::fs::metadata(&p.path) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => {
                        return Err(format!(
                            "{entry}: path {} is not a directory",
                            p.path.display()
                        ))
                    }
                    Err(e) => {
                        return Err(format!(
                            "{entry}: path {} cannot be used ({e})",
                            p.path.display()
                        ))
                    }
                }
            }
        }
        Ok(())
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

    /// A `[[projects]]` entry with `path` and `extra` lines, after `[node] name = "desk"`.
    fn projects(entries: &[(&str, &str, &str)]) -> String {
        let mut out = "[node]\nname = \"desk\"\n".to_string();
        for (name, path, extra) in entries {
            out.push_str(&format!(
                "[[projects]]\nname = {name:?}\npath = {path:?}\ncommand = [\"/bin/echo\"]\n{extra}\n"
            ));
        }
        out
    }

    #[test]
    fn project_entries_are_checked_on_load_and_named_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let here = dir.path().to_str().unwrap().to_string();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        let file = file.to_str().unwrap().to_string();
        let c = Config::parse(&projects(&[
            ("Rivvl", &here, ""),
            (
                "Notes",
                "/does/not/matter",
                "node = \"laptop\"\nobjective = \"stdin\"",
            ),
        ]))
        .unwrap();
        assert_eq!(c.projects.len(), 2);
        assert_eq!(c.projects[0].node_or("desk"), "desk");
        assert_eq!(c.projects[0].objective, ObjectiveVia::Argument);
        assert_eq!(c.projects[1].node_or("desk"), "laptop");
        assert_eq!(c.projects[1].objective, ObjectiveVia::Stdin);
        // (entries, what the error must say)
        type Entries<'a> = Vec<(&'a str, &'a str, &'a str)>;
        let table: Vec<(Entries, &[&str])> = vec![
            (
                vec![("Rivvl", "/does/not/exist", "")],
                &["entry 1", "\"Rivvl\"", "/does/not/exist"],
            ),
            (vec![("Rivvl", &file, "")], &["entry 1", "not a directory"]),
            (
                vec![("Rivvl", "relative/dir", "")],
                &["entry 1", "not absolute"],
            ),
            (vec![("", &here, "")], &["entry 1", "name is empty"]),
            (vec![("a/b", &here, "")], &["entry 1", "'/'"]),
            (
                vec![("Rivvl", &here, ""), ("rivvl", &here, "")],
                &["entry 2", "already named"],
            ),
            (
                vec![("Rivvl", &here, "node = \"\"")],
                &["entry 1", "node is empty"],
            ),
            (
                vec![("Rivvl", &here, "objective = \"pipe\"")],
                &["objective", "stdin"],
            ),
            (vec![("Rivvl", &here, "cmd = 1")], &["cmd"]),
        ];
        for (entries, says) in table {
            let err = Config::parse(&projects(&entries)).unwrap_err();
            for s in says {
                assert!(err.contains(s), "{entries:?}: {err:?} does not say {s:?}");
            }
        }
        // An empty command, and a command whose program is empty.
        let text = format!("[[projects]]\nname = \"X\"\npath = {here:?}\ncommand = []\n");
        assert!(Config::parse(&text)
            .unwrap_err()
            .contains("command is empty"));
        let text = format!("[[projects]]\nname = \"X\"\npath = {here:?}\ncommand = [\" \"]\n");
        assert!(Config::parse(&text).unwrap_err().contains("program"));
        // The same name on two nodes is two projects.
        assert!(Config::parse(&projects(&[
            ("Rivvl", &here, ""),
            ("Rivvl", "/elsewhere", "node = \"laptop\""),
        ]))
        .is_ok());
    }

    #[test]
    fn sites_are_added_under_browser_sites_and_checked_on_load() {
        let c = Config::parse(
            "[[browser.sites]]\nname = \"Rust docs\"\naliases = [\"docs.rs\"]\nhome = \"https://docs.rs/\"\nsearch = \"https://docs.rs/releases/search?query={query}\"\n",
        )
        .unwrap();
        let sites = c.browser.sites().unwrap();
        assert_eq!(
            sites
                .find("rust docs")
                .unwrap()
                .search_url("serde json")
                .unwrap(),
            "https://docs.rs/releases/search?query=serde+json"
        );
        assert!(sites.find("YouTube").is_some(), "the built-in sites stay");
        let table: &[(&str, &str)] = &[
            (
                "[[browser.sites]]\nname = \"X\"\nhome = \"https://x.example/\"\nsearch = \"https://x.example/?q=\"\n",
                "[[browser.sites]] \"X\": search \"https://x.example/?q=\" has {query} 0 times",
            ),
            (
                "[[browser.sites]]\nname = \"X\"\nhome = \"x.example\"\n",
                "[[browser.sites]] \"X\": home \"x.example\" is not an address",
            ),
            ("[[browser.sites]]\nname = \"X\"\n", "missing field `home`"),
            (
                "[[browser.sites]]\nname = \"X\"\nhome = \"https://x.example/\"\nurl = \"y\"\n",
                "unknown field `url`",
            ),
        ];
        for (text, want) in table {
            let err = Config::parse(text).unwrap_err();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn desktop_lists_default_and_an_explicit_list_replaces_the_default() {
        use crate::desktop::policy::{DEFAULT_DENY, DEFAULT_READ_ONLY};
        let p = Config::parse("").unwrap().desktop.policy();
        assert_eq!((p.deny_is_default, p.read_only_is_default), (true, true));
        assert_eq!(p.deny, DEFAULT_DENY);
        assert_eq!(p.read_only, DEFAULT_READ_ONLY);
        let p = Config::parse("[desktop]\ndeny = [\"Mousepad\"]\n")
            .unwrap()
            .desktop
            .policy();
        assert_eq!(p.deny, ["Mousepad"]);
        assert!(!p.deny_is_default && p.read_only_is_default);
        let p = Config::parse("[desktop]\nread_only = []\n")
            .unwrap()
            .desktop
            .policy();
        assert!(p.read_only.is_empty() && !p.read_only_is_default);
        let table = [
            (
                "[desktop]\ndeny = [\"a\", \" \"]\n",
                "[desktop] deny entry 2 is empty",
            ),
            (
                "[desktop]\nread_only = [\"\"]\n",
                "[desktop] read_only entry 1 is empty",
            ),
            ("[desktop]\nallow = [\"x\"]\n", "unknown field `allow`"),
            ("[desktop]\ndeny = \"keepassxc\"\n", "deny"),
        ];
        for (text, says) in table {
            let err = Config::parse(text).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    /// The README's config block shows the `[desktop]` defaults as they are.
    #[test]
    fn the_readme_shows_the_desktop_defaults() {
        let readme = include_str!("../README.md");
        let block = readme
            .split("```toml\n")
            .nth(1)
            .and_then(|b| b.split("```").next())
            .expect("README.md has a toml block");
        // Read without the load checks (the example project's directory is not here).
        let config: Config = toml::from_str(block).unwrap();
        let desktop = config.desktop.policy();
        assert_eq!(desktop.deny, crate::desktop::policy::DEFAULT_DENY);
        assert_eq!(desktop.read_only, crate::desktop::policy::DEFAULT_READ_ONLY);
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = Config::parse("[weather]\nforcast_url = \"x\"\n").unwrap_err();
        assert!(err.contains("forcast_url"), "{err}");
    }
}

//! The command line: `circe serve` runs the daemon; every other command is a client of it.
//!
//! Every command takes `--json` for scripts. Errors are one line on stderr and a non-zero exit:
//! 1 for an error, 3 when a waited-for operation ended other than completed.

use crate::client::{Client, ClientError, Subscription};
use crate::config::{Config, Paths};
use crate::daemon::{self, ServeOptions};
use crate::mesh::pairing::Stage;
use crate::model::{
    Input, InputMode, Interaction, Operation, OperationId, OperationStatus, Pending, StepResult,
};
use crate::protocol::{
    AdminVerb, ApiError, DevicesView, ErrorCode, Interrupted, JoinStarted, Joined, NodesView,
    Notification, PairDecided, PairStarted, StateView, Submitted, Verb,
};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use uuid::Uuid;

#[derive(Parser, Debug)]
#[command(
    name = "circe",
    version,
    about = "Voice as a reliable remote control for your desktop"
)]
pub struct Cli {
    /// The control socket (default: $XDG_RUNTIME_DIR/circe/control.sock).
    #[arg(long, global = true, env = "CIRCE_SOCKET")]
    socket: Option<PathBuf>,
    /// The config file (default: $XDG_CONFIG_HOME/circe/config.toml).
    #[arg(long, global = true, env = "CIRCE_CONFIG")]
    config: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    json: bool,
    /// Act on another node (a paired peer, by name or id), through this one's daemon.
    #[arg(long, global = true, env = "CIRCE_NODE")]
    node: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the node daemon.
    Serve {
        /// Where the store lives (default: $XDG_DATA_HOME/circe).
        #[arg(long, env = "CIRCE_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Say something to Circe, as if spoken.
    Say {
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
        /// Wait until the operation it starts has finished, and print the outcome.
        #[arg(long)]
        wait: bool,
        /// The input id; a retry with the same id causes nothing new.
        #[arg(long)]
        id: Option<Uuid>,
        /// Read it against this interaction instead of the current one.
        #[arg(long)]
        interaction: Option<Uuid>,
        /// The revision you saw; a stale one is refused with a conflict.
        #[arg(long, requires = "interaction")]
        revision: Option<u64>,
        #[arg(long, default_value = "cli")]
        device: String,
        /// Mark the words as heard (speech) rather than typed.
        #[arg(long)]
        voice: bool,
    },
    /// Answer the question Circe is asking.
    Answer {
        #[arg(num_args = 0.., required_unless_present = "choice")]
        text: Vec<String>,
        /// Answer by number: 1 is the first choice.
        #[arg(long)]
        choice: Option<usize>,
        #[arg(long)]
        wait: bool,
        #[arg(long)]
        id: Option<Uuid>,
        #[arg(long, default_value = "cli")]
        device: String,
    },
    /// Stop an operation (the running one by default). Bypasses every queue.
    Stop {
        operation: Option<Uuid>,
        /// Return once the stop is requested, without waiting for its confirmation.
        #[arg(long)]
        no_wait: bool,
    },
    /// Show the current interaction and its operation.
    State,
    /// Follow changes live as they happen.
    Watch,
    /// List recent operations.
    Ops {
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Ground one utterance against an observation file and print the decision (no daemon needed;
    /// with the semantic signal when its model is installed).
    Ground {
        /// An observation in the element format of the grounding corpus.
        #[arg(long)]
        observation: PathBuf,
        /// Treat the text as typed (no pronunciation-aware matching) rather than heard.
        #[arg(long)]
        typed: bool,
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
    },
    /// Run a grounding corpus (every *.jsonl under PATH) and print the scores.
    /// Uses the semantic signal when its model is installed (see `circe doctor`).
    Eval {
        path: PathBuf,
        /// Ground without the semantic signal even when its model is installed.
        #[arg(long)]
        no_semantic: bool,
    },
    /// Write the native-messaging host manifest so Chrome's Circe extension can reach this daemon.
    InstallBrowser {
        #[arg(long, value_enum, default_value = "all")]
        browser: crate::browser::install::Browser,
        /// A custom Chrome profile directory (its NativeMessagingHosts/ gets the manifest).
        #[arg(long)]
        user_data_dir: Option<PathBuf>,
        /// Print the manifest instead of writing it.
        #[arg(long)]
        print: bool,
    },
    /// Be the native-messaging host (what Chrome starts; useful for manual tests).
    NativeHost {
        #[arg(default_value = "chrome-extension://dhnfkefodfmddfnkfkkbeilnaiafageh/")]
        origin: String,
    },
    /// Pair a phone (or another computer): shows a code and a URL, then asks you to approve.
    Pair {
        /// Approve without asking (only when you can see the verification code yourself).
        #[arg(long)]
        yes: bool,
    },
    /// List paired devices, or approve, deny or revoke one.
    Devices {
        #[command(subcommand)]
        action: Option<DevicesAction>,
    },
    /// Pair this node with another one (which shows the code in `circe pair`), to route
    /// requests there with `--node NAME`.
    Join {
        /// The other node's address, as its `circe pair` shows it (http://HOST:PORT).
        url: String,
        /// The pairing code it shows.
        #[arg(long)]
        code: String,
        /// The node id it shows; pairing is refused if the node at `url` is another.
        #[arg(long)]
        node_id: Option<String>,
    },
    /// List the nodes this one routes to and whether each is online, or forget one.
    Nodes {
        #[command(subcommand)]
        action: Option<NodesAction>,
    },
    /// Show what is ready and what is missing, with the fix.
    Doctor {
        #[arg(long, env = "CIRCE_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
enum DevicesAction {
    /// List paired devices (the default).
    List,
    /// Approve the device waiting in `circe pair`.
    Approve,
    /// Deny the device waiting in `circe pair`.
    Deny,
    /// Revoke a device: it is disconnected at once and its token stops working.
    Revoke { id: String },
    /// Set a preference such as "my-desktop" (no value removes it).
    Prefer { key: String, value: Option<String> },
}

#[derive(Subcommand, Debug)]
enum NodesAction {
    /// List them (the default).
    List,
    /// Stop routing to a node and forget it (pair again with `circe join`).
    Forget { node: String },
}

/// Where control requests go: the local daemon's socket, and the node they are for.
struct Endpoint {
    socket: PathBuf,
    node: Option<String>,
}

impl Endpoint {
    async fn client(&self) -> Result<Client, ClientError> {
        Ok(Client::connect(&self.socket).await?.via(self.node.clone()))
    }
}

/// Exit codes.
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_NOT_DONE: i32 = 3;

pub fn run() -> i32 {
    let args: Vec<String> = std::env::args().collect();
    if let Some(origin) = crate::browser::host::is_native_host_launch(&args) {
        // Started by Chrome: stdout carries frames only; logs go to stderr (Chrome's log).
        init_tracing(false);
        return match tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
        {
            Ok(rt) => rt.block_on(crate::browser::host::run(origin)),
            Err(_) => EXIT_ERROR,
        };
    }
    let cli = Cli::parse();
    init_tracing(matches!(cli.command, Command::Serve { .. }));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("circe: cannot start: {e}");
            return EXIT_ERROR;
        }
    };
    match runtime.block_on(dispatch(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("circe: {}", one_line(&e));
            EXIT_ERROR
        }
    }
}

fn one_line(e: &anyhow::Error) -> String {
    let mut s = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !s.contains(&c) {
            s.push_str(": ");
            s.push_str(&c);
        }
    }
    s.replace('\n', " ")
}

fn init_tracing(daemon: bool) {
    let default = if daemon { "info" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

async fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    let Cli {
        socket,
        config,
        json,
        node,
        command,
    } = cli;
    let data_dir = match &command {
        Command::Serve { data_dir } | Command::Doctor { data_dir } => data_dir.clone(),
        _ => None,
    };
    let paths = Paths::from_env(data_dir, config);
    let socket = socket.unwrap_or_else(|| paths.control_socket());
    let at = Endpoint {
        socket: socket.clone(),
        node,
    };
    match command {
        Command::Serve { .. } => {
            let config = Config::load(&paths.config_file)?;
            let paths = Paths {
                runtime_dir: socket
                    .parent()
                    .map(PathBuf::from)
                    .unwrap_or(paths.runtime_dir.clone()),
                ..paths
            };
            daemon::serve(ServeOptions { paths, config }).await?;
            Ok(0)
        }
        Command::Say {
            text,
            wait,
            id,
            interaction,
            revision,
            device,
            voice,
        } => {
            let input = Input {
                id: id.unwrap_or_else(Uuid::new_v4),
                device,
                text: text.join(" "),
                choice: None,
                mode: if voice {
                    InputMode::Voice
                } else {
                    InputMode::Typed
                },
                interaction,
                expected_revision: revision,
            };
            submit(&at, input, wait, json).await
        }
        Command::Answer {
            text,
            choice,
            wait,
            id,
            device,
        } => {
            let mut client = at.client().await?;
            let state: StateView = serde_json::from_value(
                client
                    .call(Verb::State {
                        operations: Some(0),
                    })
                    .await?,
            )?;
            let Some(current) = state
                .interaction
                .filter(|i| !matches!(i.pending, Pending::None))
            else {
                anyhow::bail!("nothing is being asked; use `circe say` for a new request");
            };
            let input = Input {
                id: id.unwrap_or_else(Uuid::new_v4),
                device,
                text: text.join(" "),
                choice,
                mode: InputMode::Typed,
                interaction: Some(current.id),
                expected_revision: Some(current.revision),
            };
            submit(&at, input, wait, json).await
        }
        Command::Stop { operation, no_wait } => stop(&at, operation, !no_wait, json).await,
        Command::State => {
            let mut client = at.client().await?;
            let value = client
                .call(Verb::State {
                    operations: Some(0),
                })
                .await?;
            if json {
                println!("{value}");
            } else {
                let state: StateView = serde_json::from_value(value)?;
                print_state(&state);
            }
            Ok(0)
        }
        Command::Ops { limit } => {
            let mut client = at.client().await?;
            let value = client
                .call(Verb::State {
                    operations: Some(limit),
                })
                .await?;
            let state: StateView = serde_json::from_value(value)?;
            if json {
                println!("{}", serde_json::to_string(&state.operations)?);
            } else if state.operations.is_empty() {
                println!("no operations yet");
            } else {
                for op in &state.operations {
                    println!("{}", operation_line(op));
                }
            }
            Ok(0)
        }
        Command::Watch => {
            let mut sub = at.client().await?.subscribe().await?;
            loop {
                let n = sub.next().await?;
                if json {
                    println!("{}", serde_json::to_string(&n)?);
                } else {
                    print_notification(&n);
                }
            }
        }
        Command::Ground {
            observation,
            typed,
            text,
        } => {
            let mut observation = crate::director::load_observation(&observation)?;
            let text = text.join(" ");
            // The semantic signal, when its model is installed (as `circe eval`).
            if let Ok(semantic) =
                crate::semantic::Semantic::load(&crate::semantic::model_dir(&paths.data_dir))
            {
                observation.similarity = semantic.similarity(&text, &observation).ok();
            }
            let decision = if typed {
                let envelope = crate::director::Envelope::typed("cli", &text);
                let snapshot = crate::director::Snapshot {
                    observation: Some(observation),
                    ..Default::default()
                };
                crate::director::decide(&envelope, &snapshot, &crate::decider::local::LocalDecider)
            } else {
                crate::eval::ground_text(&observation, &text, &crate::decider::local::LocalDecider)
            };
            if json {
                println!("{}", crate::eval::decision_json(&decision));
            } else {
                println!("{}", crate::eval::decision_text(&decision));
            }
            Ok(0)
        }
        Command::Eval { path, no_semantic } => {
            let dir = crate::semantic::model_dir(&paths.data_dir);
            let semantic = if no_semantic {
                None
            } else {
                match crate::semantic::Semantic::load(&dir) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        eprintln!("circe eval: semantic signal off: {e}");
                        None
                    }
                }
            };
            let report = crate::eval::run_corpus_with(
                &path,
                &crate::decider::local::LocalDecider,
                semantic.as_ref(),
            )?;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                print!("{report}");
            }
            Ok(0)
        }
        Command::InstallBrowser {
            browser,
            user_data_dir,
            print,
        } => {
            let binary = std::env::current_exe()?;
            if print {
                print!("{}", crate::browser::install::manifest(&binary));
                return Ok(0);
            }
            let dirs = crate::browser::install::manifest_dirs(browser, user_data_dir.as_deref())?;
            let written = crate::browser::install::install(&binary, &dirs)?;
            if json {
                println!("{}", serde_json::json!({ "written": written }));
            } else {
                for path in written {
                    println!("wrote {}", path.display());
                }
                println!(
                    "now load the extension from {} in chrome://extensions (developer mode)",
                    extension_dir()
                );
            }
            Ok(0)
        }
        Command::Pair { yes } => pair(&socket, yes, json).await,
        Command::Join { url, code, node_id } => join(&socket, url, code, node_id, json).await,
        Command::Nodes { action } => {
            let verb = match action.unwrap_or(NodesAction::List) {
                NodesAction::List => AdminVerb::Nodes,
                NodesAction::Forget { node } => AdminVerb::Forget { node },
            };
            if !matches!(verb, AdminVerb::Nodes) {
                let (value, _) = admin::<serde_json::Value>(&socket, verb).await?;
                println!("{value}");
                return Ok(0);
            }
            let (value, listed) = admin::<NodesView>(&socket, verb).await?;
            if json {
                println!("{value}");
            } else {
                print_nodes(&listed);
            }
            Ok(0)
        }
        Command::Devices { action } => {
            devices(&socket, action.unwrap_or(DevicesAction::List), json).await
        }
        Command::NativeHost { origin } => Ok(crate::browser::host::run(origin).await),
        Command::Doctor { .. } => {
            let report = crate::doctor::check_all(&paths, &socket).await;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                print!("{report}");
            }
            Ok(if report.ready() { 0 } else { EXIT_ERROR })
        }
    }
}

/// One administration request on the control socket: its reply as sent (for `--json`) and read
/// as `T`.
async fn admin<T: serde::de::DeserializeOwned>(
    socket: &std::path::Path,
    verb: AdminVerb,
) -> anyhow::Result<(serde_json::Value, T)> {
    let mut client = Client::connect(socket).await?;
    let value = client.call_admin(verb).await?;
    let typed = serde_json::from_value(value.clone())?;
    Ok((value, typed))
}

/// Pair this node with another: offer its code, show the verification code, wait for approval.
async fn join(
    socket: &std::path::Path,
    url: String,
    code: String,
    node: Option<String>,
    json: bool,
) -> anyhow::Result<i32> {
    let (value, started) =
        admin::<JoinStarted>(socket, AdminVerb::JoinStart { url, code, node }).await?;
    let name = &started.node.name;
    if json {
        println!("{value}");
    } else {
        println!(
            "{name} shows the verification code {}: approve it there if it is the same.",
            started.verification.as_deref().unwrap_or_default()
        );
        println!("Waiting for {name} to approve...");
    }
    let (value, joined) = admin::<Joined>(socket, AdminVerb::JoinWait).await?;
    if json {
        println!("{value}");
    } else {
        println!(
            "Paired with {name} ({}). Send it requests with --node {name}.",
            joined.peer.id
        );
    }
    Ok(0)
}

fn print_nodes(listed: &NodesView) {
    if listed.nodes.is_empty() {
        println!("no nodes paired; pair one with circe join (its circe pair shows how)");
    }
    for n in &listed.nodes {
        let state = match &n.link {
            Some(link) if link.online => "online".to_string(),
            link => format!(
                "offline ({})",
                link.as_ref()
                    .and_then(|l| l.error.as_deref())
                    .unwrap_or("not connected")
            ),
        };
        println!("{}  {}  {}  {state}", n.peer.name, n.peer.id, n.peer.url);
    }
}

async fn pair(socket: &std::path::Path, yes: bool, json: bool) -> anyhow::Result<i32> {
    let (value, started) = admin::<PairStarted>(socket, AdminVerb::PairStart).await?;
    let (code, url) = (&started.code, &started.url);
    if json {
        println!("{value}");
    } else {
        println!("Pair a device with {}", started.node.name);
        println!("  open  {url}");
        println!("  code  {code}   (valid for 120 s, 3 tries)");
        println!(
            "  from another computer:  circe join {} --code {code} --node-id {}",
            url.trim_end_matches("/#pair"),
            started.node.id
        );
        if let Some(fingerprint) = &started.fingerprint {
            println!("  certificate  SHA-256 of its key (SPKI, base64) {fingerprint}");
            println!("               the browser warns about this self-signed certificate: accept it only if its key's SHA-256 matches");
        }
        if let Ok(qr) = qrcode::QrCode::new(url.as_bytes()) {
            println!(
                "{}",
                qr.render::<qrcode::render::unicode::Dense1x2>()
                    .quiet_zone(true)
                    .build()
            );
        }
        println!("Waiting for the device...");
    }
    let (name, verification) = match admin::<Stage>(socket, AdminVerb::PairWait).await?.1 {
        Stage::Requested { name, verification } => (name, verification),
        other => anyhow::bail!(
            "no device offered the code in time ({}); run `circe pair` again",
            match &other {
                Stage::Closed { reason } => reason.as_str(),
                _ => "expired",
            }
        ),
    };
    let approve = if yes {
        true
    } else {
        use std::io::Write as _;
        print!("Pair \"{name}\"? The device shows {verification}; approve only if this one matches. [y/N] ");
        std::io::stdout().flush()?;
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        matches!(line.trim(), "y" | "Y" | "yes")
    };
    let (value, decided) = admin::<PairDecided>(socket, AdminVerb::PairDecide { approve }).await?;
    if json {
        println!("{value}");
    } else if decided.approved {
        let id = decided.device.as_ref().map_or("", |d| d.id.as_str());
        println!("Paired \"{name}\" ({id}).");
    } else {
        println!("Not paired.");
    }
    Ok(if decided.approved { 0 } else { EXIT_ERROR })
}

async fn devices(
    socket: &std::path::Path,
    action: DevicesAction,
    json: bool,
) -> anyhow::Result<i32> {
    let verb = match action {
        DevicesAction::List => AdminVerb::Devices,
        DevicesAction::Approve => AdminVerb::PairDecide { approve: true },
        DevicesAction::Deny => AdminVerb::PairDecide { approve: false },
        DevicesAction::Revoke { id } => AdminVerb::Revoke { device: id },
        DevicesAction::Prefer { key, value } => AdminVerb::SetPreference { key, value },
    };
    if !matches!(verb, AdminVerb::Devices) {
        let (value, _) = admin::<serde_json::Value>(socket, verb).await?;
        println!("{value}");
        return Ok(0);
    }
    let (value, listed) = admin::<DevicesView>(socket, verb).await?;
    if json {
        println!("{value}");
        return Ok(0);
    }
    let node = &listed.node;
    println!(
        "node {} ({}, {}) id {} on {}",
        node.name,
        node.role,
        if listed.devices.is_empty() {
            "no devices"
        } else {
            "paired"
        },
        node.id,
        node.origin
    );
    if let Some(fingerprint) = &node.fingerprint {
        println!("  TLS certificate key SHA-256 (SPKI, base64) {fingerprint}");
    }
    for d in &listed.devices {
        let state = match (d.device.revoked_at, d.sockets) {
            (Some(_), _) => "revoked",
            (None, 0) => "offline",
            (None, _) => "online",
        };
        let scopes: Vec<&str> = d.device.scopes.iter().map(|c| c.as_str()).collect();
        println!(
            "  {}  {:<20} {:<8} scopes {}",
            d.device.id,
            d.device.name,
            state,
            scopes.join(",")
        );
    }
    Ok(0)
}

async fn submit(at: &Endpoint, input: Input, wait: bool, json: bool) -> anyhow::Result<i32> {
    let mut sub = subscribe_if(at, wait).await?;
    let mut client = at.client().await?;
    let value = client.call(Verb::Submit { input }).await?;
    let submitted: Submitted = serde_json::from_value(value.clone())?;
    let operation = match (&mut sub, &submitted.operation) {
        (Some(sub), Some(op)) => match wait_for(sub, op.id).await {
            Ok(op) => Some(op),
            Err(ClientError::Api(e)) if e.code == ErrorCode::NodeOffline => {
                if json {
                    println!("{}", serde_json::json!({"submitted": value, "error": e}));
                } else {
                    print_submitted(&submitted, Some(op));
                    println!("unknown: {}", e.message);
                }
                return Ok(EXIT_NOT_DONE);
            }
            Err(e) => return Err(e.into()),
        },
        _ => None,
    };
    // After waiting, show the interaction as it is now (its outcome, or the question it asks).
    let mut submitted = submitted;
    if operation.is_some() {
        let state: StateView = serde_json::from_value(
            client
                .call(Verb::State {
                    operations: Some(0),
                })
                .await?,
        )?;
        if let Some(i) = state
            .interaction
            .filter(|i| i.id == submitted.interaction.id)
        {
            submitted.interaction = i;
        }
    }
    if json {
        let mut out = value;
        out["interaction"] = serde_json::to_value(&submitted.interaction)?;
        if let Some(op) = &operation {
            out["operation"] = serde_json::to_value(op)?;
        }
        println!("{out}");
    } else {
        print_submitted(&submitted, operation.as_ref());
    }
    Ok(match operation {
        Some(op)
            if !matches!(
                op.status,
                OperationStatus::Completed | OperationStatus::NeedsInput
            ) =>
        {
            EXIT_NOT_DONE
        }
        _ => 0,
    })
}

/// Subscribe (before acting, so no change is missed) when the command will wait.
async fn subscribe_if(at: &Endpoint, wait: bool) -> Result<Option<Subscription>, ClientError> {
    Ok(if wait {
        Some(at.client().await?.subscribe().await?)
    } else {
        None
    })
}

/// Wait until the operation can no longer change by itself.
async fn wait_for(sub: &mut Subscription, id: OperationId) -> Result<Operation, ClientError> {
    let mut ran = false;
    loop {
        let op = match sub.next().await? {
            Notification::Operation { operation } if operation.id == id => operation,
            Notification::Node { node } if !node.online => {
                return Err(ClientError::Api(ApiError::new(
                    ErrorCode::NodeOffline,
                    format!(
                        "{} went offline while this was running ({}); whether it took effect is unknown until {} is back",
                        node.name,
                        node.error.as_deref().unwrap_or("no reason known"),
                        node.name
                    ),
                )));
            }
            Notification::Snapshot { state } => {
                match state.operations.into_iter().find(|o| o.id == id) {
                    Some(op) => op,
                    None => continue,
                }
            }
            _ => continue,
        };
        // Finished, or (after running) waiting for the person: either way there is something to show.
        // A resumed operation starts out still marked needsInput, so that alone does not count.
        if !op.status.is_active() || (op.status == OperationStatus::NeedsInput && ran) {
            return Ok(op);
        }
        ran |= matches!(
            op.status,
            OperationStatus::Running | OperationStatus::Verifying
        );
    }
}

async fn stop(
    at: &Endpoint,
    operation: Option<Uuid>,
    wait: bool,
    json: bool,
) -> anyhow::Result<i32> {
    let mut sub = subscribe_if(at, wait).await?;
    let mut client = at.client().await?;
    let value = client
        .call(Verb::Interrupt {
            operation,
            device: "cli".into(),
        })
        .await?;
    let interrupted: Interrupted = serde_json::from_value(value.clone())?;
    let finished = match (&mut sub, interrupted.already_finished) {
        (Some(sub), false) => {
            let id = interrupted.operation.id;
            Some(tokio::time::timeout(std::time::Duration::from_secs(10), wait_for(sub, id)).await)
        }
        _ => None,
    };
    let op = match &finished {
        Some(Ok(Ok(op))) => op.clone(),
        Some(Ok(Err(e))) => {
            anyhow::bail!("stop requested, but watching for its confirmation failed: {e}")
        }
        Some(Err(_)) => {
            println!(
                "stop requested for {}; not confirmed within 10 s",
                interrupted.operation.id
            );
            return Ok(EXIT_NOT_DONE);
        }
        None => interrupted.operation.clone(),
    };
    if json {
        println!(
            "{}",
            serde_json::json!({ "requested": value, "operation": op })
        );
    } else if interrupted.already_finished {
        println!("nothing to stop: {}", operation_line(&op));
    } else if op.stop.as_ref().is_some_and(|s| s.confirmed_at.is_some()) {
        println!("stopped (confirmed): {}", operation_line(&op));
    } else if wait {
        println!(
            "stop requested; the operation ended first: {}",
            operation_line(&op)
        );
    } else {
        println!(
            "stop requested (not yet confirmed): {}",
            operation_line(&op)
        );
    }
    Ok(0)
}

/// The outcome class a person reads: done / not done / unknown / blocked.
pub fn outcome_class(status: OperationStatus) -> &'static str {
    match status {
        OperationStatus::Completed => "done",
        OperationStatus::Stopped => "not done (stopped)",
        OperationStatus::Blocked => "blocked",
        OperationStatus::OutcomeUnknown => "unknown",
        OperationStatus::Accepted => "accepted",
        OperationStatus::NeedsInput => "needs input",
        OperationStatus::Running => "running",
        OperationStatus::Verifying => "verifying",
    }
}

fn operation_line(op: &Operation) -> String {
    let what = op
        .outcome
        .as_ref()
        .map_or(op.expected_outcome.as_str(), |o| o.summary.as_str());
    format!(
        "{}  {:<10}  {}  {}",
        op.id,
        op.status.as_str(),
        op.goal.as_str(),
        what
    )
}

fn print_submitted(s: &Submitted, op: Option<&Operation>) {
    if s.replayed {
        println!("(already taken: nothing new happened)");
    }
    print_interaction(&s.interaction);
    match (op, &s.operation) {
        (Some(op), _) => print_operation(op),
        (None, Some(op)) => println!("accepted operation {}: {}", op.id, op.expected_outcome),
        (None, None) => {}
    }
}

fn print_interaction(i: &Interaction) {
    match &i.pending {
        Pending::Question(q) => {
            println!("? {}", q.prompt);
            for (n, c) in q.choices.iter().enumerate() {
                println!("  {}. {}", n + 1, c.label);
            }
            println!("  (answer with: circe answer ...)");
        }
        Pending::Approval(a) => println!("? {} (yes/no)", a.prompt),
        Pending::None if i.closed => println!("cancelled: {}", i.request),
        Pending::None => {}
    }
}

fn print_operation(op: &Operation) {
    for step in &op.steps {
        let result = step.result.map_or("…", |r| match r {
            StepResult::Applied => "applied",
            StepResult::NotApplied => "not applied",
            StepResult::Unknown => "unknown",
            StepResult::Blocked => "blocked",
        });
        println!("  step {}: {} [{}]", step.index + 1, step.action, result);
    }
    let summary = op
        .outcome
        .as_ref()
        .map_or(op.expected_outcome.as_str(), |o| o.summary.as_str());
    println!("{}: {}", outcome_class(op.status), summary);
    if let Some(stop) = &op.stop {
        let confirmed = if stop.confirmed_at.is_some() {
            "confirmed"
        } else {
            "not yet confirmed"
        };
        println!("  stop requested by {} ({confirmed})", stop.requested_by);
    }
}

fn print_state(state: &StateView) {
    for n in &state.nodes {
        let seen = if n.online { "online" } else { "offline" };
        println!(
            "node {} {seen}{}",
            n.name,
            n.error
                .as_ref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        );
    }
    println!("node {}", state.node);
    if let Some(b) = state.executors.get("browser") {
        match b["profile"]["label"].as_str() {
            Some(label) if b["connected"] == true => {
                println!("browser: Chrome profile \"{label}\" connected")
            }
            _ => println!("browser: no Chrome connected"),
        }
    }
    let Some(i) = &state.interaction else {
        println!("no interaction yet");
        return;
    };
    println!(
        "interaction {} (revision {}): {} \"{}\"",
        i.id,
        i.revision,
        i.goal.as_str(),
        i.request
    );
    if !i.arguments.is_empty() {
        let args: Vec<String> = i
            .arguments
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!("  arguments: {}", args.join(", "));
    }
    print_interaction(i);
    if let Some(op) = &state.operation {
        println!("operation {}", op.id);
        print_operation(op);
    }
}

fn print_notification(n: &Notification) {
    match n {
        Notification::Snapshot { state } => print_state(state),
        Notification::Interaction { interaction } => {
            println!(
                "interaction {} → revision {}",
                interaction.id, interaction.revision
            );
            print_interaction(interaction);
        }
        Notification::Node { node } => {
            if node.online {
                println!("node {} is online", node.name);
            } else {
                println!(
                    "node {} is offline{}",
                    node.name,
                    node.error
                        .as_ref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                );
            }
        }
        Notification::Operation { operation } => {
            println!("operation {} → {}", operation.id, operation.status.as_str());
            if let Some(step) = operation.steps.last() {
                println!(
                    "  step {}: {} [{:?}]",
                    step.index + 1,
                    step.action,
                    step.result
                );
            }
            if let Some(o) = &operation.outcome {
                println!("  {}: {}", outcome_class(o.status), o.summary);
            }
        }
    }
}

fn extension_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/chrome-extension").to_string()
}

//! The command line's definitions (clap): every command, its arguments and their help.
//! The `///` comments are the help text; an `*Args` struct takes its help from its variant.

use clap::{Args, Parser, Subcommand};
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
    pub socket: Option<PathBuf>,
    /// The config file (default: $XDG_CONFIG_HOME/circe/config.toml).
    #[arg(long, global = true, env = "CIRCE_CONFIG")]
    pub config: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// Act on another node (a paired peer, by name or id), through this one's daemon.
    #[arg(long, global = true, env = "CIRCE_NODE")]
    pub node: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the node daemon.
    Serve {
        /// Where the store lives (default: $XDG_DATA_HOME/circe).
        #[arg(long, env = "CIRCE_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Say something to Circe, as if spoken (or speak it: --audio FILE.wav).
    Say(SayArgs),
    /// Talk to Circe through the microphone (PulseAudio/PipeWire) until Ctrl-C; replies are
    /// spoken with espeak-ng.
    Listen(ListenArgs),
    /// Voice latency per phase (end of speech → admission, first response, first action,
    /// verified result; stop → cessation): p50 and p95.
    Metrics,
    /// Answer the question Circe is asking.
    Answer(AnswerArgs),
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
    /// List recent operations, or show what Circe saw at a step.
    Ops {
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Show the observation with this id (a step's `observation`, OPERATION/STEP)
        /// instead of the list.
        #[arg(long, value_name = "ID")]
        observation: Option<String>,
    },
    /// Ground one utterance against an observation file and print the decision (no daemon needed;
    /// with the semantic signal when its model is installed).
    Ground(GroundArgs),
    /// Run a grounding corpus (every *.jsonl under PATH) and print the scores.
    /// Uses the semantic signal when its model is installed (see `circe doctor`).
    Eval(EvalArgs),
    /// Write the native-messaging host manifest so Chrome's Circe extension can reach this daemon.
    InstallBrowser(InstallBrowserArgs),
    /// Set Circe up for this user (no root): the daemon's systemd user unit (started with the
    /// session, restarted on failure), the tray's autostart entry and Chrome's native-host
    /// manifest; then `systemctl --user enable --now circe.service` when a user systemd answers.
    Install(InstallArgs),
    /// Remove exactly the files `circe install` wrote (a file changed since is kept unless
    /// --force), disabling the unit first.
    Uninstall(UninstallArgs),
    /// Print the man page (roff), or write one page per command into a directory.
    Man {
        /// Write circe.1, circe-serve.1, … here instead of printing circe.1.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Print the completion script for a shell.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Build the glossary (English glosses of German, French, Spanish, Italian, Dutch,
    /// Portuguese, Polish, Czech, Swedish, Danish, Norwegian, Finnish, Hungarian, Turkish,
    /// Russian, Croatian, Greek, Bulgarian, Indonesian, Slovenian and Japanese words) from the
    /// FreeDict dictionaries
    /// (apt-get install dict-freedict-deu-eng dict-freedict-eng-deu …).
    InstallGlossary(InstallGlossaryArgs),
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
    Join(JoinArgs),
    /// List the nodes this one routes to and whether each is online, or forget one.
    Nodes {
        #[command(subcommand)]
        action: Option<NodesAction>,
    },
    /// Show Circe in the desktop's tray (a StatusNotifierItem): idle, listening, working or
    /// asking, following the daemon; click it to turn the microphone on or off.
    Tray {
        /// Start with the microphone on (default: off, no microphone open).
        #[arg(long)]
        mic_on: bool,
    },
    /// Show what is ready and what is missing, with the fix.
    Doctor {
        #[arg(long, env = "CIRCE_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum DevicesAction {
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
pub enum NodesAction {
    /// List them (the default).
    List,
    /// Stop routing to a node and forget it (pair again with `circe join`).
    Forget { node: String },
}

#[derive(Args, Debug)]
pub struct SayArgs {
    #[arg(required_unless_present = "audio", num_args = 1..)]
    pub text: Vec<String>,
    /// Speak a WAV file instead (16-bit PCM, mono, 16 kHz): it goes through the voice session
    /// (VAD, recogniser biased by the screen, the same admission as the microphone).
    #[arg(long, conflicts_with_all = ["text", "id", "interaction", "voice"])]
    pub audio: Option<PathBuf>,
    /// With --audio: recognise without the screen's labels as the prompt.
    #[arg(long, requires = "audio")]
    pub no_bias: bool,
    /// With --audio: print what was heard and admit nothing.
    #[arg(long, requires = "audio")]
    pub transcribe: bool,
    /// Wait until the operation it starts has finished, and print the outcome.
    #[arg(long)]
    pub wait: bool,
    /// The input id; a retry with the same id causes nothing new.
    #[arg(long)]
    pub id: Option<Uuid>,
    /// Read it against this interaction instead of the current one.
    #[arg(long)]
    pub interaction: Option<Uuid>,
    /// The revision you saw; a stale one is refused with a conflict.
    #[arg(long, requires = "interaction")]
    pub revision: Option<u64>,
    #[arg(long, default_value = "cli")]
    pub device: String,
    /// Mark the words as heard (speech) rather than typed.
    #[arg(long)]
    pub voice: bool,
}

#[derive(Args, Debug)]
pub struct ListenArgs {
    /// Play this WAV file (16-bit PCM, mono, 16 kHz) in real time instead of the microphone.
    #[arg(long)]
    pub from: Option<PathBuf>,
    /// Do not speak replies.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct AnswerArgs {
    #[arg(num_args = 0.., required_unless_present = "choice")]
    pub text: Vec<String>,
    /// Answer by number: 1 is the first choice.
    #[arg(long)]
    pub choice: Option<usize>,
    #[arg(long)]
    pub wait: bool,
    #[arg(long)]
    pub id: Option<Uuid>,
    #[arg(long, default_value = "cli")]
    pub device: String,
}

#[derive(Args, Debug)]
pub struct GroundArgs {
    /// An observation in the element format of the grounding corpus.
    #[arg(long)]
    pub observation: PathBuf,
    /// Treat the text as typed (no pronunciation-aware matching) rather than heard.
    #[arg(long)]
    pub typed: bool,
    #[arg(required = true, num_args = 1..)]
    pub text: Vec<String>,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    pub path: PathBuf,
    /// Ground without the semantic signal even when its model is installed.
    #[arg(long)]
    pub no_semantic: bool,
    /// Ground without the glossary even when it is installed.
    #[arg(long)]
    pub no_glossary: bool,
}

#[derive(Args, Debug)]
pub struct InstallGlossaryArgs {
    /// Where the FreeDict dictd files are (freedict-deu-eng.index, freedict-deu-eng.dict.dz, …).
    #[arg(long, default_value = crate::glossary::DICTD_DIR)]
    pub from: std::path::PathBuf,
    /// The glossary directory (default: $CIRCE_GLOSSARY_DIR, else <data dir>/glossary).
    #[arg(long)]
    pub to: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct InstallBrowserArgs {
    #[arg(long, value_enum, default_value = "all")]
    pub browser: crate::browser::install::Browser,
    /// A custom Chrome profile directory (its NativeMessagingHosts/ gets the manifest).
    #[arg(long)]
    pub user_data_dir: Option<PathBuf>,
    /// Print the manifest instead of writing it.
    #[arg(long)]
    pub print: bool,
}

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Say what would be written and run, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace files someone else wrote or changed since the last install.
    #[arg(long)]
    pub force: bool,
    /// Print one file's contents instead of installing (e.g. for a package).
    #[arg(long, value_enum, conflicts_with_all = ["dry_run", "force"])]
    pub print: Option<crate::install::Kind>,
    /// The binary the files name (default: this one).
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// Where the record of what was written lives (default: $XDG_DATA_HOME/circe).
    #[arg(long, env = "CIRCE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct UninstallArgs {
    /// Say what would be removed, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also remove files changed since install.
    #[arg(long)]
    pub force: bool,
    #[arg(long, env = "CIRCE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct JoinArgs {
    /// The other node's address, as its `circe pair` shows it (http://HOST:PORT).
    pub url: String,
    /// The pairing code it shows.
    #[arg(long)]
    pub code: String,
    /// The node id it shows; pairing is refused if the node at `url` is another.
    #[arg(long)]
    pub node_id: Option<String>,
}

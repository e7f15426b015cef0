//! The command line: `circe serve` runs the daemon; every other command is a client of it.
//!
//! Every command takes `--json` for scripts. Errors are one line on stderr and a non-zero exit:
//! 1 for an error, 3 when a waited-for operation ended other than completed.
//! `args` defines the commands (clap), `commands` runs them (one function each), `render`
//! prints for a person.

mod args;
mod commands;
mod render;
mod voice;

use crate::client::{Client, ClientError};
use crate::config::Paths;
use args::{Cli, Command, DevicesAction, NodesAction};
use clap::Parser;
use std::path::PathBuf;

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

/// Run one command line.
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
        Command::Install(a) => a.data_dir.clone(),
        Command::Uninstall(a) => a.data_dir.clone(),
        _ => None,
    };
    let paths = Paths::from_env(data_dir, config);
    let socket = socket.unwrap_or_else(|| paths.control_socket());
    let at = Endpoint {
        socket: socket.clone(),
        node,
    };
    match command {
        Command::Serve { .. } => commands::serve(paths, &socket).await,
        Command::Say(args) if args.audio.is_some() => voice::say_audio(&at, args, json).await,
        Command::Say(args) => commands::say(&at, args, json).await,
        Command::Listen(args) => voice::listen(&at, args, json).await,
        Command::Metrics => voice::metrics(&at, json).await,
        Command::Answer(args) => commands::answer(&at, args, json).await,
        Command::Stop { operation, no_wait } => {
            commands::stop(&at, operation, !no_wait, json).await
        }
        Command::State => commands::state(&at, json).await,
        Command::Ops {
            observation: Some(observation),
            ..
        } => commands::observation(&at, observation, json).await,
        Command::Ops { limit, .. } => commands::ops(&at, limit, json).await,
        Command::Watch => commands::watch(&at, json).await,
        Command::Ground(args) => commands::ground(&paths, args, json),
        Command::Eval(args) => commands::eval(&paths, args, json),
        Command::InstallBrowser(args) => commands::install_browser(args, json),
        Command::Install(args) => commands::install(&paths, args, json),
        Command::Uninstall(args) => commands::uninstall(&paths, args, json),
        Command::Man { dir } => commands::man(dir, json),
        Command::Completions { shell } => commands::completions(shell),
        Command::InstallGlossary(args) => commands::install_glossary(&paths, args, json),
        Command::Pair { yes } => commands::pair(&socket, yes, json).await,
        Command::Join(args) => commands::join(&socket, args, json).await,
        Command::Nodes { action } => {
            commands::nodes(&socket, action.unwrap_or(NodesAction::List), json).await
        }
        Command::Devices { action } => {
            commands::devices(&socket, action.unwrap_or(DevicesAction::List), json).await
        }
        Command::NativeHost { origin } => Ok(crate::browser::host::run(origin).await),
        Command::Doctor { .. } => commands::doctor(&paths, &socket, json).await,
        Command::Tray { mic_on } => {
            // The tray carries out its microphone switch itself (the daemon's `listen`); the
            // receiver kept here keeps the switch alive for the life of the tray.
            let (mic, _microphone) = tokio::sync::watch::channel(mic_on);
            crate::voice::tray::run(&socket, mic_on, mic).await?;
            Ok(0)
        }
    }
}

//! The commands: one function per command. Most are clients of the control socket; `serve`
//! runs the daemon, and `ground`, `eval` and `install-browser` need none. What they print for a
//! person is in `render`.

use super::args::{
    AnswerArgs, DevicesAction, EvalArgs, GroundArgs, InstallArgs, InstallBrowserArgs,
    InstallGlossaryArgs, JoinArgs, NodesAction, SayArgs, UninstallArgs,
};
use super::render::{self, operation_line, print_notification, print_state, print_submitted};
use super::{Endpoint, EXIT_ERROR, EXIT_NOT_DONE};
use crate::client::{Client, ClientError, Subscription};
use crate::config::{Config, Paths};
use crate::daemon::{self, ServeOptions};
use crate::mesh::pairing::Stage;
use crate::model::{Input, InputMode, Operation, OperationId, OperationStatus, Pending};
use crate::protocol::{
    AdminVerb, ApiError, DevicesView, ErrorCode, Interrupted, JoinStarted, Joined, NodesView,
    Notification, ObservationView, PairDecided, PairStarted, StateView, Submitted, Verb,
};
use std::path::{Path, PathBuf};
use uuid::Uuid;

/// `circe serve`: run the daemon; its runtime directory is the control socket's.
pub async fn serve(paths: Paths, socket: &Path) -> anyhow::Result<i32> {
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

/// `circe say`: a new input, read against the current interaction (or the one named).
pub async fn say(at: &Endpoint, args: SayArgs, json: bool) -> anyhow::Result<i32> {
    let SayArgs {
        text,
        wait,
        id,
        interaction,
        revision,
        device,
        voice,
        ..
    } = args;
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
        heard: Vec::new(),
    };
    submit(at, input, wait, json).await
}

/// `circe answer`: an input against the question being asked, at the revision that asked it.
pub async fn answer(at: &Endpoint, args: AnswerArgs, json: bool) -> anyhow::Result<i32> {
    let AnswerArgs {
        text,
        choice,
        wait,
        id,
        device,
    } = args;
    let state = current_state(&mut at.client().await?).await?;
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
        heard: Vec::new(),
    };
    submit(at, input, wait, json).await
}

/// `circe state`: the current interaction and its operation.
pub async fn state(at: &Endpoint, json: bool) -> anyhow::Result<i32> {
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

/// `circe ops`: the most recent operations.
pub async fn ops(at: &Endpoint, limit: usize, json: bool) -> anyhow::Result<i32> {
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

/// `circe ops --observation ID`: what Circe saw at a step.
pub async fn observation(at: &Endpoint, observation: String, json: bool) -> anyhow::Result<i32> {
    let mut client = at.client().await?;
    let value = client.call(Verb::Observation { observation }).await?;
    if json {
        println!("{value}");
    } else {
        let view: ObservationView = serde_json::from_value(value)?;
        render::print_observation(&view);
    }
    Ok(0)
}

/// `circe watch`: every notification, until interrupted.
pub async fn watch(at: &Endpoint, json: bool) -> anyhow::Result<i32> {
    let mut sub = at.client().await?.subscribe().await?;
    // One commit may end with several status events (the status, then the outcome): a person
    // reads the status once.
    let mut said: Option<(OperationId, OperationStatus, Option<String>)> = None;
    loop {
        let n = sub.next().await?;
        if json {
            println!("{}", serde_json::to_string(&n)?);
            continue;
        }
        if let Notification::OperationStatus {
            operation,
            status,
            outcome,
            ..
        } = &n
        {
            let now = Some((
                *operation,
                *status,
                outcome.as_ref().map(|o| o.summary.clone()),
            ));
            if now == said {
                continue;
            }
            said = now;
        }
        print_notification(&n);
    }
}

/// `circe ground`: the Director's decision for one utterance on one observation file.
pub fn ground(paths: &Paths, args: GroundArgs, json: bool) -> anyhow::Result<i32> {
    let GroundArgs {
        observation,
        typed,
        text,
    } = args;
    let mut observation = crate::eval::load_observation(&observation)?;
    let text = text.join(" ");
    // The glossary, when installed (as `circe eval`), first: the semantic signal reads the
    // screen's language from it.
    if let Ok(glossary) = crate::glossary::Glossary::load(&crate::glossary::dir(&paths.data_dir)) {
        observation.glosses = glossary.glosses_for(&observation, &text);
    }
    // The semantic signal, when its models are installed (as `circe eval`).
    if let Ok(semantic) = crate::semantic::Semantic::load_installed(&paths.data_dir) {
        observation.similarity = semantic.similarity(&text, &observation).ok();
    }
    let decision = if typed {
        let envelope = crate::director::Envelope::typed("cli", &text);
        let snapshot = crate::director::Snapshot {
            observation: Some(observation),
            ..Default::default()
        };
        crate::director::decide(&envelope, &snapshot, &crate::director::local::LocalDecider)
    } else {
        crate::eval::ground_text(&observation, &text, &crate::director::local::LocalDecider)
    };
    if json {
        println!("{}", crate::eval::decision_json(&decision));
    } else {
        println!("{}", crate::eval::decision_text(&decision));
    }
    Ok(0)
}

/// `circe eval`: a grounding corpus's scores.
/// `circe install-glossary`: convert the FreeDict dictionaries into the glossary.
pub fn install_glossary(
    paths: &Paths,
    args: InstallGlossaryArgs,
    json: bool,
) -> anyhow::Result<i32> {
    let to = args
        .to
        .unwrap_or_else(|| crate::glossary::dir(&paths.data_dir));
    let done = crate::glossary::install(&args.from, &to)?;
    if json {
        let v: Vec<_> = done
            .iter()
            .map(|d| serde_json::json!({"language": d.language, "englishTo": d.english_to, "words": d.words, "reversed": d.reversed, "path": d.path}))
            .collect();
        println!("{}", serde_json::Value::Array(v));
    } else {
        for d in &done {
            let what = if d.english_to {
                format!("English to {}", d.language)
            } else {
                format!("{} to English", d.language)
            };
            let reversed = if d.reversed > 0 {
                format!(" ({} read backwards from the other direction)", d.reversed)
            } else {
                String::new()
            };
            println!(
                "{what}: {} words{reversed} -> {}",
                d.words,
                d.path.display()
            );
        }
    }
    Ok(0)
}

pub fn eval(paths: &Paths, args: EvalArgs, json: bool) -> anyhow::Result<i32> {
    let EvalArgs {
        path,
        no_semantic,
        no_glossary,
    } = args;
    let glossary = if no_glossary {
        None
    } else {
        match crate::glossary::Glossary::load(&crate::glossary::dir(&paths.data_dir)) {
            Ok(g) => Some(g),
            Err(e) => {
                eprintln!("circe eval: glossary off: {e}");
                None
            }
        }
    };
    let semantic = if no_semantic {
        None
    } else {
        match crate::semantic::Semantic::load_installed(&paths.data_dir) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("circe eval: semantic signal off: {e}");
                None
            }
        }
    };
    let report = crate::eval::run_corpus_with_signals(
        &path,
        &crate::director::local::LocalDecider,
        semantic.as_ref(),
        glossary.as_ref(),
    )?;
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
    }
    Ok(0)
}

/// `circe install-browser`: the native-messaging host manifest, written or printed.
pub fn install_browser(args: InstallBrowserArgs, json: bool) -> anyhow::Result<i32> {
    let InstallBrowserArgs {
        browser,
        user_data_dir,
        print,
    } = args;
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

/// `circe install`: the unit, the autostart entry and the native-host manifest, recorded.
pub fn install(paths: &Paths, args: InstallArgs, json: bool) -> anyhow::Result<i32> {
    let binary = match args.binary {
        Some(b) => b,
        None => std::env::current_exe()?,
    };
    if let Some(kind) = args.print {
        let text = match kind {
            crate::install::Kind::Unit => crate::install::unit(&binary)?,
            crate::install::Kind::Autostart => crate::install::autostart(&binary)?,
            crate::install::Kind::NativeHost => crate::browser::install::manifest(&binary),
        };
        print!("{text}");
        return Ok(0);
    }
    let places = crate::install::Places::from_env(&paths.data_dir)?;
    let report = crate::install::install(&binary, &places, args.force, args.dry_run)?;
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
        if report
            .files
            .iter()
            .any(|f| f.kind == crate::install::Kind::NativeHost)
        {
            println!(
                "Chrome: load the extension from {} in chrome://extensions (developer mode)",
                extension_dir()
            );
        }
    }
    Ok(0)
}

/// `circe uninstall`: exactly what `circe install` recorded.
pub fn uninstall(paths: &Paths, args: UninstallArgs, json: bool) -> anyhow::Result<i32> {
    let places = crate::install::Places::from_env(&paths.data_dir)?;
    let report = crate::install::uninstall(&places, args.force, args.dry_run)?;
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else if report.files.is_empty() {
        println!(
            "nothing to remove: {} does not exist (`circe install` was not run, or everything it wrote is gone)",
            report.record.display()
        );
    } else {
        print!("{report}");
    }
    Ok(0)
}

/// `circe man`: the man page from the command definitions.
pub fn man(dir: Option<PathBuf>, json: bool) -> anyhow::Result<i32> {
    use clap::CommandFactory as _;
    let (page, written) = crate::install::man(super::args::Cli::command(), dir.as_deref())?;
    if dir.is_none() {
        print_all(&page)?;
    } else if json {
        println!("{}", serde_json::json!({ "written": written }));
    } else {
        for path in written {
            println!("wrote {}", path.display());
        }
    }
    Ok(0)
}

/// `circe completions SHELL`: the completion script.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<i32> {
    use clap::CommandFactory as _;
    print_all(&crate::install::completions(
        super::args::Cli::command(),
        shell,
    ))?;
    Ok(0)
}

/// Print `text` to stdout; a reader that went away (`circe man | head`) is not an error.
fn print_all(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// `circe nodes`: the peers and whether each is online, or forget one.
pub async fn nodes(socket: &Path, action: NodesAction, json: bool) -> anyhow::Result<i32> {
    let verb = match action {
        NodesAction::List => AdminVerb::Nodes,
        NodesAction::Forget { node } => AdminVerb::Forget { node },
    };
    let listing = matches!(verb, AdminVerb::Nodes);
    admin_command::<NodesView>(socket, verb, listing, json, render::print_nodes).await
}

/// `circe doctor`: what is ready and what is missing; not ready is exit 1.
pub async fn doctor(paths: &Paths, socket: &Path, json: bool) -> anyhow::Result<i32> {
    let report = crate::doctor::check_all(paths, socket).await;
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
    }
    Ok(if report.ready() { 0 } else { EXIT_ERROR })
}

/// One administration request on the control socket: its reply as sent (for `--json`) and read
/// as `T`.
async fn admin<T: serde::de::DeserializeOwned>(
    socket: &Path,
    verb: AdminVerb,
) -> anyhow::Result<(serde_json::Value, T)> {
    let mut client = Client::connect(socket).await?;
    let value = client.call_admin(verb).await?;
    let typed = serde_json::from_value(value.clone())?;
    Ok((value, typed))
}

/// Pair this node with another: offer its code, show the verification code, wait for approval.
pub async fn join(socket: &Path, args: JoinArgs, json: bool) -> anyhow::Result<i32> {
    let JoinArgs {
        url,
        code,
        node_id: node,
    } = args;
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

pub async fn pair(socket: &Path, yes: bool, json: bool) -> anyhow::Result<i32> {
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

/// `circe devices`: the paired devices, or approve, deny, revoke, prefer.
pub async fn devices(socket: &Path, action: DevicesAction, json: bool) -> anyhow::Result<i32> {
    let verb = match action {
        DevicesAction::List => AdminVerb::Devices,
        DevicesAction::Approve => AdminVerb::PairDecide { approve: true },
        DevicesAction::Deny => AdminVerb::PairDecide { approve: false },
        DevicesAction::Revoke { id } => AdminVerb::Revoke { device: id },
        DevicesAction::Prefer { key, value } => AdminVerb::SetPreference { key, value },
    };
    let listing = matches!(verb, AdminVerb::Devices);
    admin_command::<DevicesView>(socket, verb, listing, json, render::print_devices).await
}

/// An administration command: a listing is rendered for a person (unless `--json`); any other
/// verb's reply is printed as it came.
async fn admin_command<T: serde::de::DeserializeOwned>(
    socket: &Path,
    verb: AdminVerb,
    listing: bool,
    json: bool,
    print: fn(&T),
) -> anyhow::Result<i32> {
    if json || !listing {
        let (value, _) = admin::<serde_json::Value>(socket, verb).await?;
        println!("{value}");
    } else {
        print(&admin::<T>(socket, verb).await?.1);
    }
    Ok(0)
}

async fn submit(at: &Endpoint, input: Input, wait: bool, json: bool) -> anyhow::Result<i32> {
    let mut sub = subscribe_if(at, wait).await?;
    let mut client = at.client().await?;
    let value = client.call(Verb::Submit { input }).await?;
    let submitted: Submitted = serde_json::from_value(value.clone())?;
    let operation = match (&mut sub, &submitted.operation) {
        (Some(sub), Some(op)) => match wait_for(sub, &mut client, op.id).await {
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
    // After waiting, show the interaction as it is now (its outcome, or the question it asks),
    // and the operation as stored (the events of its last commit after the one that ended it
    // are in it).
    let mut submitted = submitted;
    let mut operation = operation;
    if let Some(waited) = &operation {
        let state = current_state(&mut client).await?;
        if let Some(i) = state
            .interaction
            .filter(|i| i.id == submitted.interaction.id)
        {
            submitted.interaction = i;
        }
        if let Some(stored) = state
            .operation
            .filter(|o| o.id == waited.id && o.revision >= waited.revision)
        {
            operation = Some(stored);
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

/// The current interaction and its operation (no list of recent operations).
async fn current_state(client: &mut Client) -> anyhow::Result<StateView> {
    let value = client
        .call(Verb::State {
            operations: Some(0),
        })
        .await?;
    Ok(serde_json::from_value(value)?)
}

/// Subscribe (before acting, so no change is missed) when the command will wait.
pub(super) async fn subscribe_if(
    at: &Endpoint,
    wait: bool,
) -> Result<Option<Subscription>, ClientError> {
    Ok(if wait {
        Some(at.client().await?.subscribe().await?)
    } else {
        None
    })
}

/// Wait until the operation can no longer change by itself. Its events come folded into it;
/// one the subscription could not fold (it did not have the operation, or an event is missing)
/// is followed by a read of the state, through `client`.
pub(super) async fn wait_for(
    sub: &mut Subscription,
    client: &mut Client,
    id: OperationId,
) -> Result<Operation, ClientError> {
    let mut ran = false;
    loop {
        let op = match sub.next_folded().await? {
            Notification::Operation { operation } if operation.id == id => operation,
            Notification::StepStarted { operation, .. }
            | Notification::StepEnded { operation, .. }
            | Notification::OperationStatus { operation, .. }
                if operation == id =>
            {
                let value = client
                    .call(Verb::State {
                        operations: Some(10),
                    })
                    .await?;
                let state: StateView = serde_json::from_value(value)
                    .map_err(|e| ClientError::Protocol(e.to_string()))?;
                match state
                    .operation
                    .into_iter()
                    .chain(state.operations)
                    .find(|o| o.id == id)
                {
                    Some(op) => {
                        sub.follow(op.clone());
                        op
                    }
                    None => continue,
                }
            }
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

pub async fn stop(
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
    // Confirmed at once (it only waited for an answer): nothing to wait for.
    let finished = match (
        &mut sub,
        interrupted.already_finished || interrupted.confirmed,
    ) {
        (Some(sub), false) => {
            let id = interrupted.operation.id;
            Some(
                tokio::time::timeout(
                    std::time::Duration::from_secs(10),
                    wait_for(sub, &mut client, id),
                )
                .await,
            )
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

fn extension_dir() -> String {
    crate::install::extension_dir().display().to_string()
}

//! The composition root: the only place that chooses concrete adapters, and the daemon's main loop.
//!
//! `circe serve` opens the store (migrating it), recovers what a crash left, picks the executors,
//! serves the control socket, and stops cleanly on SIGINT or SIGTERM. Idle means idle: every task
//! waits on a socket, a channel or a signal; nothing polls.

pub mod control;
pub mod engine;
pub mod voice;

use crate::browser::bridge::{self, Bridge};
use crate::browser::executor::{BrowserExecutor, Remote};
use crate::coding::CodingExecutor;
use crate::config::{Config, Paths};
use crate::decider::remote::{DecisionsApi, OpenAiChat};
use crate::desktop::executor::DesktopExecutor;
use crate::executor::Executors;
use crate::preferences::Preferences;
use crate::store::Store;
use crate::weather::WeatherExecutor;
use anyhow::Context as _;
use engine::Engine;
use std::sync::Arc;

/// Everything `serve` was started with.
pub struct ServeOptions {
    pub paths: Paths,
    pub config: Config,
}

/// Hold an exclusive lock on `<data dir>/circe.lock` for as long as the returned file lives.
fn lock_data_dir(paths: &Paths) -> anyhow::Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    crate::private::dir(&paths.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {}",
            paths.data_dir.display()
        )
    })?;
    let path = paths.data_dir.join("circe.lock");
    let file =
        crate::private::file(&path).with_context(|| format!("cannot open {}", path.display()))?;
    // SAFETY: flock on a file descriptor we own; no memory is involved.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        anyhow::bail!(
            "another circe is already serving the data directory {}",
            paths.data_dir.display()
        );
    }
    Ok(file)
}

/// Build the engine from its adapters: the store at `paths`, and this node's executors.
pub fn build(paths: &Paths, config: &Config) -> anyhow::Result<(Arc<Engine>, Arc<Preferences>)> {
    build_with_bridge(paths, config).map(|(engine, preferences, _)| (engine, preferences))
}

/// [`build`], also giving the browser bridge (the voice session reads the screen through it).
pub fn build_with_bridge(
    paths: &Paths,
    config: &Config,
) -> anyhow::Result<(Arc<Engine>, Arc<Preferences>, Arc<Bridge>)> {
    crate::private::dir(&paths.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {}",
            paths.data_dir.display()
        )
    })?;
    let db = paths.database();
    let store =
        Store::open(&db).with_context(|| format!("cannot open the store {}", db.display()))?;
    let preferences = Arc::new(Preferences::from_stored(
        store
            .preferences()
            .context("cannot read the stored preferences")?,
    ));
    let bridge = start_browser_bridge(paths)?;
    // One desktop session: the desktop executor's, and the browser's for the file manager's
    // selection when an upload names "the file I selected".
    let desktop = crate::desktop::platform_session_in(&config.node.name, &paths.data_dir);
    let mut executors = Executors::default()
        .with(Box::new(
            WeatherExecutor::new(&config.weather).context("cannot set up the weather client")?,
        ))
        .with(Box::new(
            BrowserExecutor::new(
                bridge.clone(),
                config.node.name.clone(),
                remote_decider(config)?,
                preferences.clone(),
            )
            .with_semantic(semantic_signal(paths))
            .with_glossary(glossary(paths))
            .with_planner(planner(config)?)
            .with_desktop(desktop.clone())
            .with_private(
                [
                    Some(paths.data_dir.clone()),
                    Some(paths.runtime_dir.clone()),
                    // The config's folder when it is Circe's own (not a folder the user chose).
                    paths
                        .config_file
                        .parent()
                        .filter(|d| d.ends_with("circe"))
                        .map(std::path::Path::to_path_buf),
                ]
                .into_iter()
                .flatten()
                .collect(),
            )
            .with_sites(
                config
                    .browser
                    .sites()
                    .map_err(|e| anyhow::anyhow!("the config's [browser] section: {e}"))?,
            ),
        ))
        .with(Box::new(
            DesktopExecutor::new(desktop, config.node.name.clone(), config.desktop.policy())
                .with_planner(planner(config)?),
        ));
    // The project catalog (`[[projects]]`, checked when the config was read): turns that name a
    // project are coding requests, run by the project's provider command.
    if !config.projects.is_empty() {
        executors = executors.with(Box::new(CodingExecutor::new(
            &config.node.name,
            &config.projects,
        )));
    }
    let projects = config
        .projects
        .iter()
        .map(|p| crate::director::coding::Entry {
            node: p.node_or(&config.node.name).to_string(),
            name: p.name.clone(),
        })
        .collect();
    let engine = Engine::start_with_projects(
        config.node.name.clone(),
        store,
        executors,
        config.limits.clone(),
        crate::config::StoreConfig::default().retention(),
        projects,
    )?;
    Ok((engine, preferences, bridge))
}

/// The voice session: the recogniser `[voice] recogniser` chose (`voice::backend`), loaded on
/// first use, for every audio source; the browser's labels as the screen; latencies in the store.
fn voice_session(
    paths: &Paths,
    config: &Config,
    engine: &Arc<Engine>,
    bridge: Arc<Bridge>,
) -> anyhow::Result<Arc<crate::voice::session::VoiceSession>> {
    use crate::voice::{backend::Backend, session};
    let backend = Backend::chosen(&config.voice, &paths.data_dir);
    tracing::info!(recogniser = backend.kind.as_str(), "voice");
    let load = backend.loader();
    let db = paths.database();
    let store =
        Store::open(&db).with_context(|| format!("cannot open the store {}", db.display()))?;
    let session = session::VoiceSession::new(
        engine.clone(),
        load,
        Arc::new(voice::BrowserScreen(bridge)),
        Arc::new(voice::StoreLatency(std::sync::Mutex::new(store))),
    );
    // Live streams run pocketsphinx's keyword spotter beside Whisper when it is installed.
    session.set_stop_detector(Some(Arc::new(|| {
        crate::voice::sphinx::stop_detector()
            .map_err(|e| tracing::info!(error = %e, "no always-on stop detector"))
            .ok()
    })));
    Ok(Arc::new(session))
}

/// The semantic signal's model when installed; otherwise grounding uses shared
/// words only (`circe doctor` says how to install it).
fn semantic_signal(paths: &Paths) -> Option<Arc<crate::semantic::Semantic>> {
    let dir = crate::semantic::model_dir(&paths.data_dir);
    match crate::semantic::Semantic::load_installed(&paths.data_dir) {
        Ok(s) => {
            tracing::info!(dir = %dir.display(), "semantic signal on");
            Some(Arc::new(s))
        }
        Err(e) => {
            tracing::info!("semantic signal off: {e}");
            None
        }
    }
}

/// The glossary when installed (`circe install-glossary`); otherwise words in other languages
/// meet English only as cognates (`circe doctor` says how to install it).
fn glossary(paths: &Paths) -> Option<Arc<crate::glossary::Glossary>> {
    let dir = crate::glossary::dir(&paths.data_dir);
    match crate::glossary::Glossary::load(&dir) {
        Ok(g) => {
            tracing::info!(dir = %dir.display(), languages = ?g.languages(), "glossary on");
            Some(Arc::new(g))
        }
        Err(e) => {
            tracing::info!("glossary off: {e}");
            None
        }
    }
}

/// The planner's model the config names (none by default: Circe then says which requests need
/// one and still runs its fast paths).
fn planner(config: &Config) -> anyhow::Result<Option<crate::browser::executor::Planner>> {
    let p = &config.planner;
    if p.url.is_empty() && p.model.is_empty() {
        return Ok(None);
    }
    let key = (!p.api_key_env.is_empty())
        .then(|| std::env::var(&p.api_key_env).ok())
        .flatten();
    let model = crate::planner::provider::OpenAiPlanner::new(
        &p.url,
        &p.model,
        key,
        std::time::Duration::from_millis(p.timeout_ms),
    )
    .map_err(|e| anyhow::anyhow!("the config's [planner] section: {e}"))?;
    Ok(Some(crate::browser::executor::Planner {
        model: Arc::new(model),
        budget: crate::planner::Budget {
            steps: p.steps,
            millis: p.seconds * 1000,
        },
    }))
}

/// The remote decider the config asks for (none by default).
fn remote_decider(config: &Config) -> anyhow::Result<Remote> {
    let d = &config.decider;
    let timeout = std::time::Duration::from_millis(d.timeout_ms);
    let key = (!d.api_key_env.is_empty())
        .then(|| std::env::var(&d.api_key_env).ok())
        .flatten();
    Ok(match d.remote.as_str() {
        "none" | "" => Remote::None,
        "openai" => Remote::OpenAi(OpenAiChat::new(&d.url, &d.model, key, timeout)?, timeout),
        "decisions" => Remote::Decisions(DecisionsApi::new(&d.url, key, timeout)?, timeout),
        other => anyhow::bail!("decider.remote = {other:?} is not one of none, openai, decisions"),
    })
}

/// The Chrome connector's socket, authenticated by the per-install secret.
fn start_browser_bridge(paths: &Paths) -> anyhow::Result<Arc<Bridge>> {
    let secret_path = paths.browser_secret();
    let secret = bridge::load_or_create_secret(&secret_path)
        .with_context(|| format!("cannot create the browser secret {}", secret_path.display()))?;
    let socket = paths.browser_socket();
    control::private_dir(&paths.runtime_dir)?;
    let listener =
        bridge::bind(&socket).with_context(|| format!("cannot listen on {}", socket.display()))?;
    let bridge = Bridge::new(secret);
    tokio::spawn(bridge.clone().serve(listener));
    Ok(bridge)
}

/// The mesh listener (loopback unless configured), with this node's identity and device directory.
async fn start_mesh(
    paths: &Paths,
    config: &Config,
    engine: &Arc<Engine>,
    preferences: Arc<Preferences>,
) -> anyhow::Result<Option<Arc<crate::mesh::Mesh>>> {
    use crate::mesh::{identity::NodeIdentity, server, tls, Mesh};
    if !config.mesh.enabled {
        return Ok(None);
    }
    let (addr, tls_on) = server::check_listen(&config.mesh.listen, config.mesh.tls)?;
    let key = paths.node_key();
    let identity = NodeIdentity::load_or_create(&key)
        .with_context(|| format!("cannot load the node key {}", key.display()))?;
    let db = paths.database();
    let store =
        Store::open(&db).with_context(|| format!("cannot open the store {}", db.display()))?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} ([mesh] listen)"))?;
    let addr = listener.local_addr()?;
    let tls_config = if tls_on {
        let names = tls::listener_names(addr, &config.mesh.hosts);
        Some(tls::server_config(&identity, &names).with_context(|| {
            format!("cannot make the mesh TLS certificate for {names:?} ([mesh] hosts)")
        })?)
    } else {
        None
    };
    let mesh = Mesh::new(identity, config, engine.clone(), store, addr, preferences);
    mesh.start_peers()
        .context("cannot read the paired nodes from the store")?;
    // A bare address means plain HTTP (loopback only); behind TLS the file says `https://`.
    let written = if tls_on {
        format!("https://{addr}")
    } else {
        addr.to_string()
    };
    crate::private::write(&paths.mesh_addr(), written.as_bytes())
        .with_context(|| format!("cannot write {}", paths.mesh_addr().display()))?;
    tracing::info!(%addr, tls = tls_on, fingerprint = mesh.fingerprint.as_deref().unwrap_or("-"), node_id = %mesh.identity.id, "mesh listening");
    tokio::spawn(server::serve(listener, mesh.clone(), tls_config));
    Ok(Some(mesh))
}

pub async fn serve(options: ServeOptions) -> anyhow::Result<()> {
    let ServeOptions { paths, config } = options;
    let socket = paths.control_socket();
    control::refuse_if_serving(&socket)?;
    // One daemon per data directory: recovery must never run under a live daemon.
    let _lock = lock_data_dir(&paths)?;
    let (engine, preferences, bridge) = build_with_bridge(&paths, &config)?;
    let voice = voice_session(&paths, &config, &engine, bridge)?;
    let mesh = start_mesh(&paths, &config, &engine, preferences).await?;
    if let Some(mesh) = &mesh {
        mesh.hear_with(voice.clone());
    }
    // Bound last, so a client that can connect finds a migrated, recovered store.
    let listener = control::bind(&socket)?;
    tracing::info!(node = engine.node(), data = %paths.data_dir.display(), socket = %socket.display(), "circe is serving");
    println!(
        "circe serving node {} (control socket {})",
        engine.node(),
        socket.display()
    );
    let server = tokio::spawn(control::serve(listener, engine.clone(), mesh, voice));

    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: shutting down"),
        _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
    }
    server.abort();
    engine.shutdown().await;
    let _ = std::fs::remove_file(&socket);
    let _ = std::fs::remove_file(paths.browser_socket());
    let _ = std::fs::remove_file(paths.mesh_addr());
    tracing::info!("stopped");
    Ok(())
}

//! `circe doctor`: what is ready and what is missing, each with the fix.

use crate::client::{Client, ClientError};
use crate::config::{Config, Paths};
use crate::protocol::{StateView, Verb};
use crate::store::Store;
use serde::Serialize;
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

#[derive(Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    /// Not ready here does not make the node not ready (an optional connector).
    pub optional: bool,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// What the check found, as data (`--json`), where a line is not enough.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    pub fn ready(&self) -> bool {
        self.checks.iter().all(|c| c.ok || c.optional)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.checks {
            writeln!(
                f,
                "{} {:<10} {}",
                if c.ok { "ok " } else { "NO " },
                c.name,
                c.detail
            )?;
            if let Some(fix) = &c.fix {
                writeln!(f, "    fix: {fix}")?;
            }
        }
        writeln!(f, "{}", if self.ready() { "ready" } else { "not ready" })
    }
}

fn check(name: &'static str, result: Result<String, (String, String)>) -> Check {
    match result {
        Ok(detail) => Check {
            name,
            ok: true,
            optional: false,
            detail,
            fix: None,
            data: None,
        },
        Err((detail, fix)) => Check {
            name,
            ok: false,
            optional: false,
            detail,
            fix: Some(fix),
            data: None,
        },
    }
}

pub async fn check_all(paths: &Paths, socket: &Path) -> Report {
    let mut checks = Vec::new();
    let config = Config::load(&paths.config_file);
    checks.push(check(
        "config",
        match &config {
            Ok(_) if paths.config_file.exists() => {
                Ok(format!("{} is valid", paths.config_file.display()))
            }
            Ok(_) => Ok(format!(
                "no {} (every setting has its default)",
                paths.config_file.display()
            )),
            Err(e) => Err((
                e.to_string(),
                format!("correct or remove {}", paths.config_file.display()),
            )),
        },
    ));
    let db = paths.database();
    checks.push(check(
        "store",
        if !db.exists() {
            Ok(format!("{} will be created by `circe serve`", db.display()))
        } else {
            match Store::inspect(&db) {
                Ok((applied, known)) if applied == known => {
                    Ok(format!("{} (schema {applied})", db.display()))
                }
                Ok((applied, known)) => Err((
                    format!(
                        "{} has schema {applied}; this circe ships {known}",
                        db.display()
                    ),
                    "run `circe serve` once to migrate (a newer schema needs a newer circe)".into(),
                )),
                Err(e) => Err((
                    format!("{}: {e}", db.display()),
                    "move the file aside and restart `circe serve`".into(),
                )),
            }
        },
    ));
    let store_ok = checks.last().is_some_and(|c| c.ok);
    if db.exists() && store_ok {
        checks.push(check(
            "operations",
            match Store::stranded_in(&db) {
                Ok(found) if found.is_empty() => {
                    Ok("no operation is left active behind its interaction".into())
                }
                Ok(found) => Err((
                    found
                        .iter()
                        .map(|(op, why)| {
                            format!("operation {} is {} but {why}", op.id, op.status.as_str())
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                    "restart `circe serve`: it stops them on start, with an event saying why"
                        .into(),
                )),
                Err(e) => Err((
                    format!("{}: {e}", db.display()),
                    "move the file aside and restart `circe serve`".into(),
                )),
            },
        ));
    }
    let (daemon_check, state) = daemon(socket).await;
    checks.push(check("daemon", daemon_check));
    if let Some(state) = &state {
        let browser = &state.executors.get("browser").cloned().unwrap_or_default();
        let mut c = check(
            "browser",
            if browser["connected"] == true {
                Ok(format!(
                    "Chrome profile \"{}\" connected (extension {})",
                    browser["profile"]["label"].as_str().unwrap_or("?"),
                    browser["extensionVersion"].as_str().unwrap_or("?")
                ))
            } else {
                Err((
                    "no Chrome connector is connected".into(),
                    "run `circe install-browser`, load chrome-extension/ in chrome://extensions, and keep Chrome open".into(),
                ))
            },
        );
        c.optional = true;
        checks.push(c);
    }
    if let Some(state) = &state {
        if let Some(desktop) = state.executors.get("nativeApp") {
            let mut c = check(
                "desktop",
                if desktop["ready"] == true {
                    let r = &desktop["readiness"];
                    Ok(format!(
                        "{}; session {}; bus {}; {}; {}",
                        r["adapter"]["detail"].as_str().unwrap_or("?"),
                        r["session"]["detail"].as_str().unwrap_or("?"),
                        r["bus"]["detail"].as_str().unwrap_or("?"),
                        r["apps"]["detail"].as_str().unwrap_or("?"),
                        r["input"]["detail"].as_str().unwrap_or("?")
                    ))
                } else {
                    Err((
                        desktop["problem"].as_str().unwrap_or("the desktop is not ready").to_string(),
                        "run `circe serve` inside the graphical session (DISPLAY and DBUS_SESSION_BUS_ADDRESS set, at-spi2-core installed)".into(),
                    ))
                },
            );
            c.optional = true;
            checks.push(c);
        }
    }
    for node in state.iter().flat_map(|s| &s.nodes) {
        let mut c = check(
            "node",
            if node.online {
                Ok(format!("{} is online", node.name))
            } else {
                Err((
                    format!(
                        "{} is offline ({})",
                        node.name,
                        node.error.as_deref().unwrap_or("not connected")
                    ),
                    format!(
                        "start `circe serve` on {0}; if it was re-installed or revoked this node, pair again (`circe nodes forget {0}`, then `circe join`)",
                        node.name
                    ),
                ))
            },
        );
        c.optional = true;
        checks.push(c);
    }
    if let Ok(config) = &config {
        checks.push(check(
            "weather",
            ["geocoding_url", "forecast_url"]
                .iter()
                .zip([&config.weather.geocoding_url, &config.weather.forecast_url])
                .map(|(k, url)| match reqwest::Url::parse(url) {
                    Ok(u) if u.scheme() == "https" || u.scheme() == "http" => Ok(()),
                    _ => Err((
                        format!("weather.{k} = {url:?} is not an http(s) URL"),
                        format!("set weather.{k} in the config"),
                    )),
                })
                .collect::<Result<Vec<()>, _>>()
                .map(|_| {
                    format!(
                        "{} and {}",
                        config.weather.geocoding_url, config.weather.forecast_url
                    )
                }),
        ));
    }
    if let Ok(config) = &config {
        checks.push(policy(&config.desktop.policy()));
    }
    checks.push(apps(&crate::desktop::apps::Apps::load(
        &crate::desktop::apps::Env::from_process(),
    )));
    checks.push(semantic(paths));
    checks.push(multilingual(paths));
    checks.push(glossary(paths));
    if let Ok(config) = &config {
        let backend = crate::voice::backend::Backend::chosen(&config.voice, &paths.data_dir);
        let readiness = {
            let b = backend.clone();
            tokio::task::spawn_blocking(move || b.readiness())
                .await
                .unwrap_or_else(|e| Err((e.to_string(), "report this".into())))
        };
        checks.push(voice(backend.kind, readiness));
    }
    Report { checks }
}

/// `[desktop]`: the apps Circe never touches and those it only reads.
fn policy(policy: &crate::desktop::policy::Policy) -> Check {
    let list = |key: &str, entries: &[String], default: bool| {
        format!(
            "{key}{}: {}",
            if default { " (default)" } else { "" },
            if entries.is_empty() {
                "none".to_string()
            } else {
                entries.join(", ")
            }
        )
    };
    let mut c = check(
        "policy",
        Ok(format!(
            "[desktop] {}; {}",
            list("deny", &policy.deny, policy.deny_is_default),
            list("read_only", &policy.read_only, policy.read_only_is_default)
        )),
    );
    c.data = serde_json::to_value(policy).ok();
    c
}

/// Which app "the editor" and "the file manager" are on this desktop (as this command's
/// environment finds them), and why (optional: without one, such requests ask or say none fits).
fn apps(apps: &crate::desktop::apps::Apps) -> Check {
    use crate::desktop::entries::{Resolution, Role};
    let mut lines = Vec::new();
    let mut fixes = Vec::new();
    let mut data = serde_json::Map::new();
    for (key, role) in [("editor", Role::Editor), ("fileManager", Role::FileManager)] {
        let words = role.words();
        let (line, value) = match apps.catalog.for_role(role) {
            Resolution::One(app, why) => (
                format!("{words}: {} ({}), {why}", app.name, app.id),
                serde_json::json!({ "words": words, "app": app.id, "name": app.name, "why": why }),
            ),
            Resolution::Ask(several) => {
                let ids: Vec<&str> = several.iter().map(|a| a.id.as_str()).collect();
                fixes.push(format!("xdg-mime default {} {}", ids[0], role.mime()));
                (
                    format!(
                        "{words}: ambiguous, no default for {} and {} fit: {}",
                        role.mime(),
                        ids.len(),
                        several
                            .iter()
                            .map(|a| format!("{} ({})", a.name, a.id))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    serde_json::json!({ "words": words, "ask": ids }),
                )
            }
            Resolution::None(why) => {
                fixes.push(format!("install a {} application", role.category()));
                (
                    format!("{words}: none ({why})"),
                    serde_json::json!({ "words": words, "none": why }),
                )
            }
        };
        lines.push(line);
        data.insert(key.into(), value);
    }
    if !apps.skipped.is_empty() {
        lines.push(format!(
            "{} desktop files skipped (first: {})",
            apps.skipped.len(),
            apps.skipped[0]
        ));
    }
    data.insert("skipped".into(), serde_json::json!(apps.skipped));
    let detail = lines.join("; ");
    let mut c = check(
        "apps",
        if fixes.is_empty() {
            Ok(detail)
        } else {
            Err((detail, fixes.join("; ")))
        },
    );
    c.optional = true;
    c.data = Some(serde_json::Value::Object(data));
    c
}

/// The semantic signal's model (optional: without it grounding uses shared
/// words only, exactly as before).
fn semantic(paths: &Paths) -> Check {
    let dir = crate::semantic::model_dir(&paths.data_dir);
    let mut c = check(
        "semantic",
        match crate::semantic::verify(&dir) {
            Ok(()) => Ok(format!(
                "all-MiniLM-L6-v2 at {} (pinned hashes match)",
                dir.display()
            )),
            Err(e) => Err((
                format!("semantic signal off (grounding uses shared words only): {e}"),
                format!(
                    "scripts/install-model {} (or set CIRCE_MODEL_DIR to a directory it filled), then restart `circe serve`",
                    dir.display()
                ),
            )),
        },
    );
    c.optional = true;
    c
}

/// The multilingual model (optional: without it a screen in another language is met through
/// the English model's reading of its glosses only).
fn multilingual(paths: &Paths) -> Check {
    let dir = crate::multilingual::model_dir(&paths.data_dir);
    let mut c = check(
        "multilingual",
        match crate::multilingual::verify(&dir) {
            Ok(()) => Ok(format!(
                "Universal Sentence Encoder Multilingual v3 at {} (pinned hashes match)",
                dir.display()
            )),
            Err(e) => Err((
                format!("multilingual model off (screens in another language are read through their glosses only): {e}"),
                format!(
                    "scripts/install-multilingual {} (or set CIRCE_MULTILINGUAL_DIR to a directory it filled), then restart `circe serve`",
                    dir.display()
                ),
            )),
        },
    );
    c.optional = true;
    c
}

/// The glossary (optional: without it a screen in another language is matched by its own words
/// and their cognates only).
fn glossary(paths: &Paths) -> Check {
    let dir = crate::glossary::dir(&paths.data_dir);
    let mut c = check(
        "glossary",
        match crate::glossary::Glossary::load(&dir) {
            Ok(g) => {
                let built = format!(
                    "{} ({})",
                    dir.display(),
                    g.languages()
                        .iter()
                        .map(|(l, n)| format!("{l}: {n} words"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                // Dictionaries installed after the glossary was built (or read by a newer
                // Circe): their languages are not in it yet.
                let missing = g.missing(std::path::Path::new(crate::glossary::DICTD_DIR));
                if missing.is_empty() {
                    Ok(built)
                } else {
                    Err((
                        format!(
                            "{built}; without {}, whose dictionaries are installed",
                            missing.join(", ")
                        ),
                        "circe install-glossary; then restart `circe serve`".into(),
                    ))
                }
            }
            Err(e) => Err((
                format!(
                    "glossary off (words in other languages meet English only as cognates): {e}"
                ),
                format!(
                    "apt-get install {}; circe install-glossary; then restart `circe serve`",
                    crate::glossary::packages()
                ),
            )),
        },
    );
    c.optional = true;
    c
}

/// The chosen recogniser (`[voice] recogniser`) and whether it is ready, with the always-on
/// stop spotter beside it (optional: without them voice input is refused with the fix, and
/// "stop" is heard by the recogniser alone).
fn voice(
    kind: crate::voice::backend::Recogniser,
    readiness: crate::voice::backend::Readiness,
) -> Check {
    let spotter = match crate::voice::sphinx::Model::locate() {
        Ok(_) => "stop spotter ready (pocketsphinx)".to_string(),
        Err(e) => format!("no stop spotter ({e})"),
    };
    let mut c = check(
        "voice",
        match readiness {
            Ok(what) => Ok(format!("recogniser {}: ready: {what}; {spotter}", kind.as_str())),
            Err((why, fix)) => Err((
                format!(
                    "recogniser {} ([voice] recogniser) is not ready, voice input is off: {why}; {spotter}",
                    kind.as_str()
                ),
                fix,
            )),
        },
    );
    c.optional = true;
    c
}

async fn daemon(socket: &Path) -> (Result<String, (String, String)>, Option<StateView>) {
    let mut client = match Client::connect(socket).await {
        Ok(c) => c,
        Err(ClientError::NotRunning(p)) => {
            return (
                Err((
                    format!("not running (no socket at {})", p.display()),
                    "start it with `circe serve`".into(),
                )),
                None,
            )
        }
        Err(e) => {
            return (
                Err((e.to_string(), "check that this user owns the socket".into())),
                None,
            )
        }
    };
    let mode = std::fs::metadata(socket)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0);
    if mode & 0o077 != 0 {
        return (
            Err((
                format!(
                    "socket {} is mode {mode:o}; other users could use it",
                    socket.display()
                ),
                "restart `circe serve` (it creates the socket 0600)".into(),
            )),
            None,
        );
    }
    match client
        .call(Verb::State {
            operations: Some(0),
        })
        .await
        .map(serde_json::from_value::<StateView>)
    {
        Ok(Ok(state)) => (
            Ok(format!(
                "serving node {} on {}",
                state.node,
                socket.display()
            )),
            Some(state),
        ),
        Ok(Err(e)) => (
            Err((
                format!("the daemon's answer was unreadable: {e}"),
                "use the same circe version".into(),
            )),
            None,
        ),
        Err(e) => (
            Err((
                format!("the daemon did not answer: {e}"),
                "restart `circe serve`".into(),
            )),
            None,
        ),
    }
}

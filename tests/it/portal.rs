//! Keys on Wayland through the RemoteDesktop portal, against a scripted portal.
//!
//! No compositor runs here, so the portal is a test double at the D-Bus seam: a zbus server on a
//! private session bus (dbus-daemon) that owns `org.freedesktop.portal.Desktop` and speaks
//! `org.freedesktop.portal.RemoteDesktop` as xdg-desktop-portal does (request and session object
//! paths derived from the caller's unique name and its handle tokens, `Request.Response`
//! signals with the results, `NotifyKeyboardKeysym` on a started session only), recording what
//! it is asked. The accessibility bus is the real one (at-spi-bus-launcher, activated on the
//! private bus). Circe's side is the real adapter (`AtspiSession` through the `DesktopSession`
//! trait, `ashpd` underneath), run in a child process of this test binary: `ashpd` keeps one
//! session-bus connection per process, so each scenario gets its own process and bus.

use circe::desktop::linux::portal::{NOT_ALLOWED, PORTAL, PORTAL_PATH, TOKEN_FILE};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

/// A private session bus whose only activatable service is the accessibility bus.
struct Bus {
    child: Child,
    address: String,
    _dir: tempfile::TempDir,
}

impl Bus {
    fn start() -> Bus {
        for (package, file) in [
            ("dbus-daemon", "/usr/bin/dbus-daemon"),
            (
                "at-spi2-core",
                "/usr/share/dbus-1/services/org.a11y.Bus.service",
            ),
        ] {
            assert!(
                Path::new(file).exists(),
                "the portal tests need {file}: apt-get install {package} (scripts/test installs it)"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let services = dir.path().join("services");
        let runtime = dir.path().join("runtime");
        std::fs::create_dir_all(&services).unwrap();
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::copy(
            "/usr/share/dbus-1/services/org.a11y.Bus.service",
            services.join("org.a11y.Bus.service"),
        )
        .unwrap();
        let config = dir.path().join("session.conf");
        std::fs::write(
            &config,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={}</listen>
  <servicedir>{}</servicedir>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
                dir.path().display(),
                services.display()
            ),
        )
        .unwrap();
        // The accessibility bus it activates puts its socket in this runtime directory.
        let mut child = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--print-address", "--nofork"])
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("HOME", dir.path())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start dbus-daemon");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line.trim().to_string();
        assert!(address.starts_with("unix:"), "dbus-daemon said {line:?}");
        Bus {
            child,
            address,
            _dir: dir,
        }
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How the scripted portal answers `Start`, one answer per session in turn (the last repeats).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Answer {
    Grant,
    Deny,
}

#[derive(Clone)]
struct Script {
    version: u32,
    devices: u32,
    answers: Vec<Answer>,
    /// The desktop ends the session at this key event (1-based), as a person revoking it would.
    revoke_at_key: Option<usize>,
}

#[derive(Default)]
struct Record {
    log: Vec<String>,
    started: Vec<String>,
    sessions: u32,
    tokens: u32,
    keys: usize,
}

/// The scripted `org.freedesktop.portal.RemoteDesktop`.
struct RemoteDesktop {
    script: Script,
    record: Arc<Mutex<Record>>,
}

/// `/org/freedesktop/portal/desktop/{kind}/{sender}/{token}`, as xdg-desktop-portal makes it.
fn handle_path(kind: &str, sender: &str, token: &str) -> String {
    let sender = sender.trim_start_matches(':').replace('.', "_");
    format!("{PORTAL_PATH}/{kind}/{sender}/{token}")
}

fn text(options: &HashMap<String, OwnedValue>, key: &str) -> Option<String> {
    options
        .get(key)
        .and_then(|v| v.downcast_ref::<&str>().ok().map(str::to_string))
}

fn number(options: &HashMap<String, OwnedValue>, key: &str) -> Option<u32> {
    options.get(key).and_then(|v| v.downcast_ref::<u32>().ok())
}

/// Answer a request the way the portal does: the `Response` signal on the request's path,
/// after the method has returned the path.
fn respond(conn: &zbus::Connection, path: String, code: u32, results: HashMap<String, OwnedValue>) {
    let conn = conn.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let results: HashMap<&str, Value<'_>> = results
            .iter()
            .map(|(k, v)| (k.as_str(), Value::from(v.try_clone().unwrap())))
            .collect();
        conn.emit_signal(
            None::<zbus::names::BusName<'_>>,
            path.as_str(),
            "org.freedesktop.portal.Request",
            "Response",
            &(code, results),
        )
        .await
        .expect("emit Response");
    });
}

fn request_path(
    header: &zbus::message::Header<'_>,
    options: &HashMap<String, OwnedValue>,
) -> zbus::fdo::Result<String> {
    let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
    let token = text(options, "handle_token")
        .ok_or_else(|| zbus::fdo::Error::InvalidArgs("no handle_token".into()))?;
    Ok(handle_path("request", &sender, &token))
}

fn owned(path: &str) -> OwnedObjectPath {
    OwnedObjectPath::try_from(path.to_string()).unwrap()
}

#[zbus::interface(name = "org.freedesktop.portal.RemoteDesktop")]
impl RemoteDesktop {
    #[zbus(property, name = "version")]
    fn version(&self) -> u32 {
        self.script.version
    }

    #[zbus(property)]
    fn available_device_types(&self) -> u32 {
        self.script.devices
    }

    async fn create_session(
        &self,
        options: HashMap<String, OwnedValue>,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] conn: &zbus::Connection,
    ) -> zbus::fdo::Result<OwnedObjectPath> {
        let request = request_path(&header, &options)?;
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let token = text(&options, "session_handle_token")
            .ok_or_else(|| zbus::fdo::Error::InvalidArgs("no session_handle_token".into()))?;
        let session = handle_path("session", &sender, &token);
        let n = {
            let mut r = self.record.lock().unwrap();
            r.sessions += 1;
            r.log.push("CreateSession".into());
            r.sessions
        };
        conn.object_server()
            .at(
                session.as_str(),
                PortalSession {
                    n,
                    record: self.record.clone(),
                },
            )
            .await
            .map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?;
        // xdg-desktop-portal answers the handle as a string, not an object path.
        let results = HashMap::from([(
            "session_handle".to_string(),
            OwnedValue::try_from(Value::from(session.clone())).unwrap(),
        )]);
        respond(conn, request.clone(), 0, results);
        Ok(owned(&request))
    }

    async fn select_devices(
        &self,
        session: OwnedObjectPath,
        options: HashMap<String, OwnedValue>,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] conn: &zbus::Connection,
    ) -> zbus::fdo::Result<OwnedObjectPath> {
        let request = request_path(&header, &options)?;
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        if !session
            .as_str()
            .starts_with(&handle_path("session", &sender, ""))
        {
            return Err(zbus::fdo::Error::AccessDenied("not your session".into()));
        }
        self.record.lock().unwrap().log.push(format!(
            "SelectDevices types={} persist={} restore={}",
            number(&options, "types").map_or("-".into(), |t| t.to_string()),
            number(&options, "persist_mode").map_or("-".into(), |t| t.to_string()),
            text(&options, "restore_token").unwrap_or_else(|| "-".into()),
        ));
        respond(conn, request.clone(), 0, HashMap::new());
        Ok(owned(&request))
    }

    async fn start(
        &self,
        session: OwnedObjectPath,
        _parent_window: String,
        options: HashMap<String, OwnedValue>,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] conn: &zbus::Connection,
    ) -> zbus::fdo::Result<OwnedObjectPath> {
        let request = request_path(&header, &options)?;
        let (answer, token) = {
            let mut r = self.record.lock().unwrap();
            let i = (r.sessions as usize).saturating_sub(1);
            let answer = *self
                .script
                .answers
                .get(i)
                .or(self.script.answers.last())
                .unwrap();
            r.log.push(format!("Start {answer:?}"));
            if answer == Answer::Grant {
                r.started.push(session.as_str().to_string());
                r.tokens += 1;
            }
            (answer, format!("restore-secret-{}", r.tokens))
        };
        match answer {
            Answer::Deny => respond(conn, request.clone(), 1, HashMap::new()),
            Answer::Grant => {
                let mut results = HashMap::from([(
                    "devices".to_string(),
                    OwnedValue::from(self.script.devices & 1),
                )]);
                if self.script.version >= 2 {
                    results.insert(
                        "restore_token".into(),
                        OwnedValue::try_from(Value::from(token)).unwrap(),
                    );
                }
                respond(conn, request.clone(), 0, results)
            }
        }
        Ok(owned(&request))
    }

    async fn notify_keyboard_keysym(
        &self,
        session: OwnedObjectPath,
        options: HashMap<String, OwnedValue>,
        keysym: i32,
        state: u32,
    ) -> zbus::fdo::Result<()> {
        let mut r = self.record.lock().unwrap();
        if !r.started.iter().any(|s| s == session.as_str()) {
            return Err(zbus::fdo::Error::AccessDenied(
                "the session is not started".into(),
            ));
        }
        if !options.is_empty() {
            return Err(zbus::fdo::Error::InvalidArgs("unexpected options".into()));
        }
        r.keys += 1;
        if Some(r.keys) == self.script.revoke_at_key {
            r.started.clear();
            r.log.push("revoked".into());
            return Err(zbus::fdo::Error::AccessDenied(
                "the session is not started".into(),
            ));
        }
        r.log.push(format!("key {keysym:#x} {state}"));
        Ok(())
    }
}

/// `org.freedesktop.portal.Session`: closing it is recorded.
struct PortalSession {
    n: u32,
    record: Arc<Mutex<Record>>,
}

#[zbus::interface(name = "org.freedesktop.portal.Session")]
impl PortalSession {
    #[zbus(property, name = "version")]
    fn version(&self) -> u32 {
        1
    }

    async fn close(
        &self,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] conn: &zbus::Connection,
    ) -> zbus::fdo::Result<()> {
        let mut r = self.record.lock().unwrap();
        r.log.push(format!("Close {}", self.n));
        if let Some(path) = header.path() {
            r.started.retain(|s| s != path.as_str());
            let path = path.to_owned();
            let conn = conn.clone();
            tokio::spawn(async move {
                let _ = conn.object_server().remove::<PortalSession, _>(path).await;
            });
        }
        Ok(())
    }
}

/// The scripted portal on `bus`, recording into the returned log.
async fn portal(bus: &Bus, script: Script) -> (zbus::Connection, Arc<Mutex<Record>>) {
    let record = Arc::new(Mutex::new(Record::default()));
    let conn = zbus::connection::Builder::address(bus.address.as_str())
        .unwrap()
        .serve_at(
            PORTAL_PATH,
            RemoteDesktop {
                script,
                record: record.clone(),
            },
        )
        .unwrap()
        .name(PORTAL)
        .unwrap()
        .build()
        .await
        .expect("the scripted portal on the private bus");
    (conn, record)
}

/// What the child process printed: one JSON value per step.
fn run_child(bus: &Bus, data: &Path, display: (&str, &str), steps: &str) -> Vec<serde_json::Value> {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["portal::child", "--exact", "--ignored", "--nocapture"])
        .args(["--test-threads", "1"])
        .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
        .env(display.0, display.1)
        .env_remove(if display.0 == "DISPLAY" {
            "WAYLAND_DISPLAY"
        } else {
            "DISPLAY"
        })
        .env_remove("XDG_SESSION_TYPE")
        .env("CIRCE_PORTAL_DATA", data)
        .env("CIRCE_PORTAL_STEPS", steps)
        .stdin(Stdio::null())
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "child failed:\n{stdout}\n{stderr}");
    // The restore token is never printed or logged.
    assert!(
        !stdout.contains("restore-secret") && !stderr.contains("restore-secret"),
        "the restore token leaked:\n{stdout}\n{stderr}"
    );
    stdout
        .lines()
        // libtest's "test portal::child ... " may open the first line.
        .filter_map(|l| l.split_once("@@ ").map(|(_, json)| json))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const WAYLAND: (&str, &str) = ("WAYLAND_DISPLAY", "wayland-circe-test");

fn log(record: &Arc<Mutex<Record>>) -> Vec<String> {
    record.lock().unwrap().log.clone()
}

/// Run in a child process by the tests below: `CIRCE_PORTAL_STEPS` is `;`-separated steps
/// (`readiness`, `keys A B…`, `disconnect`), each printed as one `@@ {json}` line.
#[test]
#[ignore = "run by the portal tests in a child process, on a private bus"]
fn child() {
    use circe::desktop::{Act, DesktopAction, DesktopSession, InputTarget, WindowRef};
    let steps = std::env::var("CIRCE_PORTAL_STEPS")
        .expect("run by the portal tests, with CIRCE_PORTAL_STEPS set");
    let data = PathBuf::from(std::env::var("CIRCE_PORTAL_DATA").unwrap());
    let rt = crate::util::rt();
    rt.block_on(async {
        let desktop = circe::desktop::linux::AtspiSession::in_data_dir("portal-test", &data);
        for step in steps.split(';') {
            let words: Vec<&str> = step.split_whitespace().collect();
            let out = match words.as_slice() {
                ["readiness"] => serde_json::to_value(desktop.readiness(None).await).unwrap(),
                ["disconnect"] => {
                    desktop.disconnect().await;
                    serde_json::json!("disconnected")
                }
                ["keys", keys @ ..] => {
                    let session = desktop.session().await.expect("the accessibility bus");
                    let window = WindowRef {
                        session,
                        app: "test".into(),
                        instance: ":1.0".into(),
                        window: "/".into(),
                        title: "test".into(),
                        kind: "window".into(),
                    };
                    let action = DesktopAction {
                        window: window.clone(),
                        revision: 0,
                        target: InputTarget::Window(window),
                        act: Act::Keys(keys.iter().map(|k| k.to_string()).collect()),
                        may_open_modal: false,
                    };
                    match desktop.act(&action).await {
                        Ok(r) => serde_json::json!({ "calls": r.calls }),
                        Err(e) => serde_json::json!({ "error": format!("{e:?}") }),
                    }
                }
                other => panic!("unknown step {other:?}"),
            };
            println!("@@ {out}");
        }
    });
}

#[test]
fn wayland_keys_go_through_the_portal_once_consented_and_the_token_is_kept() {
    let bus = Bus::start();
    let data = tempfile::tempdir().unwrap();
    let rt = crate::util::rt();
    let (_portal, record) = rt.block_on(portal(
        &bus,
        Script {
            version: 2,
            devices: 7,
            answers: vec![Answer::Grant],
            revoke_at_key: None,
        },
    ));
    let out = run_child(
        &bus,
        data.path(),
        WAYLAND,
        "readiness;keys Control_L s;keys Return;disconnect;keys F2",
    );
    let readiness = &out[0];
    assert_eq!(
        readiness["input"],
        serde_json::json!({
            "ok": true,
            "detail": "Wayland: keys through the RemoteDesktop portal (version 2, keyboard)"
        }),
        "{readiness:#}"
    );
    assert_eq!(readiness["adapter"]["ok"], true, "{readiness:#}");
    assert!(
        readiness["session"]["detail"]
            .as_str()
            .unwrap()
            .starts_with("wayland "),
        "{readiness:#}"
    );
    for step in [&out[1], &out[2], &out[4]] {
        assert!(step["calls"].is_u64(), "{out:?}");
    }
    // One consent per desktop-session generation: the second chord reuses the session; after
    // the reconnect the old one is closed and the new one restores with the kept token.
    assert_eq!(
        log(&record),
        [
            "CreateSession",
            "SelectDevices types=1 persist=2 restore=-",
            "Start Grant",
            "key 0xffe3 1",
            "key 0x73 1",
            "key 0x73 0",
            "key 0xffe3 0",
            "key 0xff0d 1",
            "key 0xff0d 0",
            "Close 1",
            "CreateSession",
            "SelectDevices types=1 persist=2 restore=restore-secret-1",
            "Start Grant",
            "key 0xffbf 1",
            "key 0xffbf 0",
        ]
    );
    let token = data.path().join(TOKEN_FILE);
    assert_eq!(std::fs::read_to_string(&token).unwrap(), "restore-secret-2");
    assert_eq!(crate::util::file_mode(&token), 0o600);
}

#[test]
fn a_denied_consent_refuses_keys_and_the_next_chord_asks_again() {
    let bus = Bus::start();
    let data = tempfile::tempdir().unwrap();
    let rt = crate::util::rt();
    let (_portal, record) = rt.block_on(portal(
        &bus,
        Script {
            version: 1,
            devices: 3,
            answers: vec![Answer::Deny, Answer::Grant],
            revoke_at_key: None,
        },
    ));
    let out = run_child(&bus, data.path(), WAYLAND, "keys Control_L s;keys Escape");
    assert_eq!(
        out[0]["error"],
        format!("Refused({NOT_ALLOWED:?})"),
        "{out:?}"
    );
    assert!(out[1]["calls"].is_u64(), "{out:?}");
    // Version 1: nothing persists and no token is kept; the denied session was closed and the
    // next chord made a new one.
    assert_eq!(
        log(&record),
        [
            "CreateSession",
            "SelectDevices types=1 persist=0 restore=-",
            "Start Deny",
            "Close 1",
            "CreateSession",
            "SelectDevices types=1 persist=0 restore=-",
            "Start Grant",
            "key 0xff1b 1",
            "key 0xff1b 0",
        ]
    );
    assert!(!data.path().join(TOKEN_FILE).exists());
}

#[test]
fn wayland_without_a_keyboard_portal_says_so_and_refuses_keys() {
    // No portal on the bus at all.
    let bus = Bus::start();
    let data = tempfile::tempdir().unwrap();
    let out = run_child(&bus, data.path(), WAYLAND, "readiness;keys Control_L s");
    let want = "Wayland: no RemoteDesktop portal offers a keyboard (org.freedesktop.portal.Desktop is not on the session bus); steps that need keys are refused";
    assert_eq!(
        out[0]["input"],
        serde_json::json!({ "ok": false, "detail": want }),
        "{:#}",
        out[0]
    );
    // Semantic actions still work: the desktop is ready without keys.
    assert_eq!(out[0]["adapter"]["ok"], true, "{:#}", out[0]);
    assert_eq!(out[0]["bus"]["ok"], true, "{:#}", out[0]);
    assert_eq!(out[1]["error"], format!("Unsupported({want:?})"));
    drop(bus);

    // A portal whose RemoteDesktop offers a pointer only: never asked for a session.
    let bus = Bus::start();
    let rt = crate::util::rt();
    let (_portal, record) = rt.block_on(portal(
        &bus,
        Script {
            version: 2,
            devices: 2,
            answers: vec![Answer::Grant],
            revoke_at_key: None,
        },
    ));
    let out = run_child(&bus, data.path(), WAYLAND, "readiness;keys Return");
    let want = "Wayland: no RemoteDesktop portal offers a keyboard (its devices are pointer); steps that need keys are refused";
    assert_eq!(out[0]["input"]["detail"], want, "{:#}", out[0]);
    assert_eq!(out[0]["input"]["ok"], false);
    assert_eq!(out[1]["error"], format!("Unsupported({want:?})"));
    assert!(log(&record).is_empty(), "{:?}", log(&record));
}

#[test]
fn x11_keys_stay_on_atspi_even_with_a_portal() {
    let bus = Bus::start();
    let data = tempfile::tempdir().unwrap();
    let rt = crate::util::rt();
    let (_portal, record) = rt.block_on(portal(
        &bus,
        Script {
            version: 2,
            devices: 7,
            answers: vec![Answer::Grant],
            revoke_at_key: None,
        },
    ));
    // No X server answers at this display; keys go to AT-SPI all the same.
    let out = run_child(
        &bus,
        data.path(),
        ("DISPLAY", ":97"),
        "readiness;keys Control_L s",
    );
    assert_eq!(
        out[0]["input"],
        serde_json::json!({ "ok": true, "detail": "X11: keys through AT-SPI" }),
        "{:#}",
        out[0]
    );
    assert_eq!(out[0]["adapter"]["detail"], "Linux AT-SPI (X11)");
    assert!(out[1].is_object(), "{out:?}");
    assert!(log(&record).is_empty(), "{:?}", log(&record));
}

#[test]
fn circe_doctor_shows_the_portal_route_without_asking_for_consent() {
    let bus = Bus::start();
    let rt = crate::util::rt();
    let (_portal, record) = rt.block_on(portal(
        &bus,
        Script {
            version: 2,
            devices: 7,
            answers: vec![Answer::Grant],
            revoke_at_key: None,
        },
    ));
    let env = [
        ("DBUS_SESSION_BUS_ADDRESS", bus.address.as_str()),
        (WAYLAND.0, WAYLAND.1),
        ("DISPLAY", ""),
        ("XDG_SESSION_TYPE", ""),
    ];
    let d = crate::util::Daemon::start_with_env(
        "[node]\nname = \"desk\"\n",
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    // The desktop's readiness is checked once at start, in the background.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let line = loop {
        let out = crate::util::stdout(&d.cli(&["doctor"]));
        let line = out
            .lines()
            .find(|l| l.contains("desktop"))
            .unwrap_or_default()
            .to_string();
        if line.starts_with("ok ") || std::time::Instant::now() > deadline {
            break line;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        line.starts_with("ok ")
            && line.contains("Linux AT-SPI (Wayland")
            && line
                .contains("Wayland: keys through the RemoteDesktop portal (version 2, keyboard)"),
        "{line}\n{}",
        d.log()
    );
    // Readiness only looks: no session, no consent dialog.
    assert!(log(&record).is_empty(), "{:?}", log(&record));
}

#[test]
fn a_session_the_desktop_ends_is_dropped_and_made_again_for_the_next_chord() {
    let bus = Bus::start();
    let data = tempfile::tempdir().unwrap();
    let rt = crate::util::rt();
    let (_portal, record) = rt.block_on(portal(
        &bus,
        Script {
            version: 2,
            devices: 1,
            answers: vec![Answer::Grant],
            revoke_at_key: Some(2),
        },
    ));
    let out = run_child(&bus, data.path(), WAYLAND, "keys Control_L s;keys Return");
    // The press of "s" was answered with an error: it was not made, and Ctrl was let go.
    let error = out[0]["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("Refused(\"the portal refused a key press"),
        "{out:?}"
    );
    assert!(out[1]["calls"].is_u64(), "{out:?}");
    assert_eq!(
        log(&record),
        [
            "CreateSession",
            "SelectDevices types=1 persist=2 restore=-",
            "Start Grant",
            "key 0xffe3 1",
            "revoked",
            "Close 1",
            "CreateSession",
            "SelectDevices types=1 persist=2 restore=restore-secret-1",
            "Start Grant",
            "key 0xff0d 1",
            "key 0xff0d 0",
        ]
    );
}

//! `circe tray` for real: a private session bus (dbus-daemon), a StatusNotifierWatcher stand-in
//! (the test double of the desktop shell's tray), a private PulseAudio server (null sinks: what
//! the test plays into one is what the microphone hears), a real `circe serve`, and the item's
//! properties following an operation and the microphone toggle, which opens and closes the
//! daemon's recorder.

use crate::util::{stderr, stdout, Daemon, WeatherServer};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A private session bus with no services to activate (so no portal, no tray of its own).
pub(crate) struct Bus {
    child: Child,
    address: String,
    _dir: tempfile::TempDir,
}

impl Bus {
    pub(crate) fn start() -> Bus {
        assert!(
            std::path::Path::new("/usr/bin/dbus-daemon").exists(),
            "the tray tests need a private D-Bus: apt-get install dbus-daemon (scripts/test installs it)"
        );
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("session.conf");
        std::fs::write(
            &config,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
                dir.path().display()
            ),
        )
        .unwrap();
        let mut child = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--print-address", "--nofork"])
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

/// A private PulseAudio server (its own runtime directory and socket, no configuration, anonymous
/// clients): a "mic" null sink whose monitor is the default source, so what the test plays into
/// it is what a microphone hears, and a "speaker" null sink, the default sink, for Circe's spoken
/// replies (which so never reach the "microphone").
pub struct Sound {
    child: Child,
    server: String,
    dir: tempfile::TempDir,
    /// The "microphone": one stream into the "mic" sink for as long as the server runs,
    /// silence unless the test says something (a null sink's monitor carries sound only while
    /// something plays, and a real microphone never stops; one stream, because a second one
    /// starting makes the sink rewind and its monitor lose the new stream's beginning).
    mic: Option<Child>,
    said: Arc<Mutex<std::collections::VecDeque<i16>>>,
}

impl Sound {
    pub fn start() -> Sound {
        for (tool, package) in [
            ("/usr/bin/pulseaudio", "pulseaudio"),
            ("/usr/bin/parec", "pulseaudio-utils"),
            ("/usr/bin/pactl", "pulseaudio-utils"),
        ] {
            assert!(
                std::path::Path::new(tool).exists(),
                "the microphone tests need a private sound server: apt-get install {package} (scripts/test installs it)"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let home = dir.path().join("home");
        for d in [&run, &home] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .unwrap();
        }
        let socket = dir.path().join("native");
        let log = std::fs::File::create(dir.path().join("pulse.log")).unwrap();
        let child = Command::new("pulseaudio")
            .args([
                "--daemonize=no",
                "-n",
                "--exit-idle-time=-1",
                "--disallow-exit",
                "--use-pid-file=no",
                "--disable-shm=yes",
                &format!(
                    "--load=module-native-protocol-unix auth-anonymous=1 socket={}",
                    socket.display()
                ),
                "--load=module-null-sink sink_name=mic",
                "--load=module-null-sink sink_name=speaker",
            ])
            .env("HOME", &home)
            .env("XDG_RUNTIME_DIR", &run)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start pulseaudio");
        let server = format!("unix:{}", socket.display());
        let mut sound = Sound {
            child,
            server,
            dir,
            mic: None,
            said: Arc::default(),
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        while !socket.exists() {
            if let Ok(Some(status)) = sound.child.try_wait() {
                panic!("pulseaudio ended ({status}): {}", sound.log());
            }
            assert!(
                Instant::now() < deadline,
                "pulseaudio never made its socket: {}",
                sound.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        sound.pactl(&["set-default-source", "mic.monitor"]);
        sound.pactl(&["set-default-sink", "speaker"]);
        let mut mic = Command::new("pacat")
            .arg("--server")
            .arg(&sound.server)
            .args([
                "--playback",
                "--device=mic",
                "--format=s16le",
                "--rate=16000",
                "--channels=1",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pacat");
        let mut input = mic.stdin.take().unwrap();
        let said = sound.said.clone();
        // 20 ms at a time, in real time: what was said, else silence.
        std::thread::spawn(move || {
            use std::io::Write as _;
            let start = Instant::now();
            for n in 1u64.. {
                let chunk: Vec<i16> = {
                    let mut q = said.lock().unwrap();
                    (0..320).map(|_| q.pop_front().unwrap_or(0)).collect()
                };
                let bytes: Vec<u8> = chunk.iter().flat_map(|s| s.to_le_bytes()).collect();
                if input.write_all(&bytes).is_err() {
                    return;
                }
                let due = start + Duration::from_millis(20 * n);
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
            }
        });
        sound.mic = Some(mic);
        sound
    }

    /// How many recording streams the server has (a recorder that is really reading).
    pub fn recording(&self) -> usize {
        let out = Command::new("pactl")
            .arg("--server")
            .arg(&self.server)
            .args(["list", "short", "source-outputs"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).lines().count()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("pulse.log")).unwrap_or_default()
    }

    fn pactl(&self, args: &[&str]) {
        let out = Command::new("pactl")
            .arg("--server")
            .arg(&self.server)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pactl {args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
    }

    /// Say 16 kHz samples into the "microphone" (returns at once; they play in real time).
    pub fn say(&self, samples: &[i16]) {
        self.said.lock().unwrap().extend(samples.iter().copied());
    }

    /// The environment that points a client (the daemon's recorder) at this server.
    pub fn env(&self) -> (String, String) {
        ("PULSE_SERVER".into(), self.server.clone())
    }
}

impl Drop for Sound {
    fn drop(&mut self) {
        if let Some(mut mic) = self.mic.take() {
            let _ = mic.kill();
            let _ = mic.wait();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The daemon's recorder processes (`parec`, `pw-record`) running now.
fn recorders(daemon: u32) -> Vec<String> {
    crate::voice::children(daemon)
        .into_iter()
        .filter(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            matches!(comm.trim(), "parec" | "pw-record")
        })
        .collect()
}

/// The desktop shell's tray, reduced to what an item talks to.
#[derive(Clone, Default)]
struct Watcher {
    items: Arc<Mutex<Vec<String>>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    fn register_status_notifier_item(
        &self,
        service: String,
        #[zbus(header)] header: zbus::message::Header<'_>,
    ) {
        // A bare object path means "the sender's bus name at this path" (the spec allows both).
        let name = if service.starts_with('/') {
            header.sender().map(|s| s.to_string()).unwrap_or_default()
        } else {
            service
        };
        self.items.lock().unwrap().push(name);
    }
    fn register_status_notifier_host(&self, _service: String) {}
    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items.lock().unwrap().clone()
    }
    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }
    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }
}

/// `circe tray`'s stdout, line by line, as it comes.
pub(crate) struct Tray {
    child: Child,
    out: Arc<Mutex<Vec<String>>>,
}

impl Tray {
    /// The bus name the item is served under.
    fn name(&self) -> String {
        format!("org.kde.StatusNotifierItem-{}-1", self.child.id())
    }

    pub(crate) fn start(d: &Daemon, bus: &Bus) -> Tray {
        Tray::start_args(d, bus, &["tray"])
    }

    /// Any long-running `circe` command (`tray`, `watch`) on `bus`, its stdout collected.
    pub(crate) fn start_args(d: &Daemon, bus: &Bus, args: &[&str]) -> Tray {
        let mut child = d
            .command()
            .args(args)
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start circe tray");
        let out = Arc::new(Mutex::new(Vec::new()));
        let lines = out.clone();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                lines.lock().unwrap().push(line);
            }
        });
        Tray { child, out }
    }

    /// Whether it is still running.
    pub(crate) fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    pub(crate) fn said(&self) -> String {
        self.out.lock().unwrap().join("\n")
    }

    pub(crate) fn wait_said(&self, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.said().contains(what) {
            assert!(
                Instant::now() < deadline,
                "circe tray never said {what:?}; it said:\n{}",
                self.said()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Tray {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type ToolTip = (String, Vec<(i32, i32, Vec<u8>)>, String, String);

/// What the item shows now: (Status, IconName, tooltip title, tooltip text).
async fn shown(item: &zbus::Proxy<'_>) -> (String, String, String, String) {
    let status: String = item.get_property("Status").await.unwrap();
    let icon: String = item.get_property("IconName").await.unwrap();
    let tip: ToolTip = item.get_property("ToolTip").await.unwrap();
    (status, icon, tip.2, tip.3)
}

/// Poll the item until `pred` holds (within 20 s); returns what it showed then.
async fn until(
    item: &zbus::Proxy<'_>,
    what: &str,
    pred: impl Fn(&(String, String, String, String)) -> bool,
) -> (String, String, String, String) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    loop {
        let now = shown(item).await;
        // The properties are read one by one: take a reading only when a second one agrees, so
        // an update landing between two reads is not taken for the state.
        if pred(&now) && shown(item).await == now {
            return now;
        }
        if seen.last() != Some(&now) {
            seen.push(now);
        }
        assert!(
            Instant::now() < deadline,
            "the item never showed {what}; it showed {seen:#?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[test]
fn tray_item_registers_and_follows_the_operation_and_the_microphone() {
    let bus = Bus::start();
    let sound = Sound::start();
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(1000, Ordering::SeqCst);
    // The microphone really opens when toggled on: the recogniser's model and a sound server.
    let mut env = crate::voice::voice_env();
    env.push(sound.env());
    let d = Daemon::start_with_env(&weather.config(), env);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let conn = zbus::connection::Builder::address(bus.address.as_str())
            .unwrap()
            .build()
            .await
            .unwrap();
        let watcher = Watcher::default();
        conn.object_server()
            .at("/StatusNotifierWatcher", watcher.clone())
            .await
            .unwrap();
        conn.request_name("org.kde.StatusNotifierWatcher")
            .await
            .unwrap();

        let tray = Tray::start(&d, &bus);
        // Registered with the watcher, under the name the spec asks for.
        let deadline = Instant::now() + Duration::from_secs(20);
        let service = loop {
            if let Some(s) = watcher.items.lock().unwrap().first().cloned() {
                break s;
            }
            assert!(
                Instant::now() < deadline,
                "the item never registered; circe tray said:\n{}",
                tray.said()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert!(
            service.starts_with("org.kde.StatusNotifierItem-"),
            "{service}"
        );
        // No portal on this bus: push-to-talk says so.
        tray.wait_said(circe::voice::tray::NO_PORTAL);

        let item = zbus::proxy::Builder::<zbus::Proxy>::new(&conn)
            .destination(service.clone())
            .unwrap()
            .path("/StatusNotifierItem")
            .unwrap()
            .interface("org.kde.StatusNotifierItem")
            .unwrap()
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .unwrap();
        let id: String = item.get_property("Id").await.unwrap();
        assert_eq!(id, "circe");
        let category: String = item.get_property("Category").await.unwrap();
        assert_eq!(category, "ApplicationStatus");

        // Mic off by default: idle, once the daemon's snapshot is in.
        let idle = until(&item, "idle", |s| {
            s.2 == "Circe: idle (mic off)" && s.3 == "nothing yet"
        })
        .await;
        assert_eq!(idle.0, "Passive");

        // Activate toggles the microphone: listening.
        let _: () = item.call("Activate", &(0i32, 0i32)).await.unwrap();
        let listening = until(&item, "listening", |s| s.2 == "Circe: listening (mic on)").await;
        assert_eq!(listening.0, "Active");
        assert_eq!(listening.1, "audio-input-microphone");
        // Listening is real: the daemon's recorder runs.
        wait_for(
            60,
            "a recorder",
            || tray.said(),
            || !recorders(d.pid()).is_empty(),
        )
        .await;

        // An operation: working while the forecast is held, then done.
        let said = d.cli(&["say", "weather in Ahmedabad"]);
        assert!(said.status.success(), "{} {}", stdout(&said), stderr(&said));
        let working = until(&item, "working", |s| s.2.starts_with("Circe: working")).await;
        assert_eq!(working.0, "Active");
        assert_eq!(working.1, "system-run");
        assert!(working.3.starts_with("working: "), "{working:?}");
        let done = until(&item, "done", |s| s.3.starts_with("done: ")).await;
        assert_eq!(done.2, "Circe: listening (mic on)", "{done:?}");
        assert!(done.3.contains("Ahmedabad"), "{done:?}");
        assert_eq!(weather.forecasts.load(Ordering::SeqCst), 1);

        // A question: asking, with the question as the tooltip.
        let asked = d.cli(&["say", "What's the weather?"]);
        assert!(asked.status.success(), "{}", stderr(&asked));
        let asking = until(&item, "asking", |s| s.2.starts_with("Circe: asking")).await;
        assert_eq!(asking.0, "NeedsAttention");
        assert!(asking.3.contains("city"), "{asking:?}");
        let answered = d.cli(&["answer", "Pune", "--wait"]);
        assert!(answered.status.success(), "{}", stderr(&answered));
        until(&item, "done again", |s| {
            s.3.starts_with("done: ") && s.3.contains("Pune")
        })
        .await;

        // The switch a voice session reads, on the tray's own interface.
        let control = zbus::proxy::Builder::<zbus::Proxy>::new(&conn)
            .destination(service.clone())
            .unwrap()
            .path("/StatusNotifierItem")
            .unwrap()
            .interface("org.circe.Tray1")
            .unwrap()
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .unwrap();
        let on: bool = control.get_property("Microphone").await.unwrap();
        assert!(on);
        let state: String = control.get_property("State").await.unwrap();
        assert_eq!(state, "listening");

        // Toggle again: microphone off, idle.
        let _: () = item.call("Activate", &(0i32, 0i32)).await.unwrap();
        let off = until(&item, "idle again", |s| s.2 == "Circe: idle (mic off)").await;
        assert_eq!(off.0, "Passive");
        wait_for(
            10,
            "the recorder stopped",
            || tray.said(),
            || recorders(d.pid()).is_empty(),
        )
        .await;
        let on: bool = control.get_property("Microphone").await.unwrap();
        assert!(!on);
        // Set through the property: the same switch.
        control.set_property("Microphone", true).await.unwrap();
        until(&item, "listening by property", |s| {
            s.2 == "Circe: listening (mic on)"
        })
        .await;
        assert!(tray.said().contains("tray: working |"), "{}", tray.said());
    });
}

#[test]
fn tray_without_a_watcher_serves_and_says_so() {
    let bus = Bus::start();
    let d = Daemon::start("[node]\nname = \"desk\"\n");
    let tray = Tray::start(&d, &bus);
    tray.wait_said("no org.kde.StatusNotifierWatcher on the session bus");
    tray.wait_said(circe::voice::tray::NO_PORTAL);
    tray.wait_said("tray: serving org.kde.StatusNotifierItem-");
}

/// A proxy for the tray's own interface (`org.circe.Tray1`).
async fn control<'a>(conn: &'a zbus::Connection, tray: &Tray) -> zbus::Proxy<'a> {
    zbus::proxy::Builder::<zbus::Proxy>::new(conn)
        .destination(tray.name())
        .unwrap()
        .path("/StatusNotifierItem")
        .unwrap()
        .interface("org.circe.Tray1")
        .unwrap()
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .unwrap()
}

/// Wait (`secs`) until `pred` holds; `what` and `said` explain a timeout.
async fn wait_for(
    secs: u64,
    what: &str,
    said: impl Fn() -> String,
    mut pred: impl FnMut() -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !pred() {
        assert!(Instant::now() < deadline, "never {what}; {}", said());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Issue 13 item 4(a): the tray's microphone switch opens the desktop microphone (the daemon's
/// recorder, the same path as `circe listen`), what the microphone hears is admitted through the
/// one admission path, and switching it off stops the recorder: voice off, no recorder process.
#[test]
fn tray_microphone_opens_the_desktop_microphone_and_off_stops_the_recorder() {
    let bus = Bus::start();
    let sound = Sound::start();
    let mut env = crate::voice::voice_env();
    env.push(sound.env());
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let words = crate::sphinx_util::padded(&crate::sphinx_util::speech(
        crate::sphinx_util::Voice::Flite,
        "scroll down",
    ));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let conn = zbus::connection::Builder::address(bus.address.as_str())
            .unwrap()
            .build()
            .await
            .unwrap();
        let tray = Tray::start(&d, &bus);
        tray.wait_said("tray: serving ");
        let control = control(&conn, &tray).await;
        // Voice off: no recorder.
        assert!(recorders(d.pid()).is_empty(), "{:?}", recorders(d.pid()));
        control.set_property("Microphone", true).await.unwrap();
        wait_for(
            60,
            "a recorder",
            || tray.said(),
            || !recorders(d.pid()).is_empty(),
        )
        .await;
        tray.wait_said("tray: microphone open");
        wait_for(
            20,
            "a recording stream",
            || sound.log(),
            || sound.recording() > 0,
        )
        .await;
        let state: String = control.get_property("State").await.unwrap();
        assert_eq!(state, "listening");
        // What the microphone hears is heard and admitted as voice input.
        sound.say(&words);
        let deadline = Instant::now() + Duration::from_secs(60);
        let heard = loop {
            if let Some(i) = d.state().await.interaction {
                break i;
            }
            assert!(
                Instant::now() < deadline,
                "nothing was admitted from the microphone; tray said:\n{}\n{}",
                tray.said(),
                d.log()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(heard.mode, circe::model::InputMode::Voice, "{heard:?}");
        assert!(
            heard.request.to_lowercase().contains("scroll down"),
            "{heard:?}"
        );
        tray.wait_said("tray: heard ");
        // Off: the connection closes and the daemon stops the recorder.
        control.set_property("Microphone", false).await.unwrap();
        wait_for(
            10,
            "the recorder stopped",
            || format!("{:?}\n{}", recorders(d.pid()), tray.said()),
            || recorders(d.pid()).is_empty(),
        )
        .await;
        assert_eq!(
            sound.recording(),
            0,
            "the server still has a recording stream"
        );
        tray.wait_said("tray: microphone closed");
        let error: String = control.get_property("MicrophoneError").await.unwrap();
        assert_eq!(error, "");
        let state: String = control.get_property("State").await.unwrap();
        assert_eq!(state, "idle");
    });
}

/// No sound server: switching the microphone on says exactly why it could not open (the
/// recorder's own reason), the switch goes back off, and no recorder is left running.
#[test]
fn tray_microphone_without_a_sound_server_says_why_and_runs_no_recorder() {
    let bus = Bus::start();
    let mut env = crate::voice::voice_env();
    env.push(("PULSE_SERVER".into(), "unix:/nonexistent/circe-test".into()));
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", env);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let conn = zbus::connection::Builder::address(bus.address.as_str())
            .unwrap()
            .build()
            .await
            .unwrap();
        let tray = Tray::start(&d, &bus);
        tray.wait_said("tray: serving ");
        let control = control(&conn, &tray).await;
        let item = zbus::proxy::Builder::<zbus::Proxy>::new(&conn)
            .destination(tray.name())
            .unwrap()
            .path("/StatusNotifierItem")
            .unwrap()
            .interface("org.kde.StatusNotifierItem")
            .unwrap()
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .unwrap();
        let _: () = item.call("Activate", &(0i32, 0i32)).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let error = loop {
            let e: String = control.get_property("MicrophoneError").await.unwrap();
            if !e.is_empty() {
                break e;
            }
            assert!(
                Instant::now() < deadline,
                "no error; tray said:\n{}",
                tray.said()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(
            error.contains("the microphone could not be read: parec ended"),
            "{error}"
        );
        let on: bool = control.get_property("Microphone").await.unwrap();
        assert!(!on);
        let shown = until(&item, "the microphone's problem", |s| {
            s.2 == "Circe: idle (mic unavailable)"
        })
        .await;
        assert!(
            shown.3.starts_with("the microphone could not be opened: "),
            "{shown:?}"
        );
        tray.wait_said("tray: microphone unavailable: ");
        assert!(recorders(d.pid()).is_empty(), "{:?}", recorders(d.pid()));
    });
}

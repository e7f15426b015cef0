//! `circe tray` for real: a private session bus (dbus-daemon), a StatusNotifierWatcher stand-in
//! (the test double of the desktop shell's tray), a real `circe serve`, and the item's properties
//! following an operation and the microphone toggle.

use crate::util::{stderr, stdout, Daemon, WeatherServer};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A private session bus with no services to activate (so no portal, no tray of its own).
struct Bus {
    child: Child,
    address: String,
    _dir: tempfile::TempDir,
}

impl Bus {
    fn start() -> Bus {
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
struct Tray {
    child: Child,
    out: Arc<Mutex<Vec<String>>>,
}

impl Tray {
    fn start(d: &Daemon, bus: &Bus) -> Tray {
        let mut child = d
            .command()
            .arg("tray")
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

    fn said(&self) -> String {
        self.out.lock().unwrap().join("\n")
    }

    fn wait_said(&self, what: &str) {
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
    let weather = WeatherServer::start();
    weather
        .behaviour
        .forecast_delay_ms
        .store(1000, Ordering::SeqCst);
    let d = Daemon::start(&weather.config());
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

//! A private headless desktop per test: Xvfb, a private session bus, the AT-SPI bus, openbox,
//! all in a PID namespace that ends (with every process in it) when the test drops it.
//! A missing package fails the test with the package to install; nothing is skipped.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The probe's recipe (`../shared/notes/linux-desktop-probe.md`), unchanged in substance.
const SESSION_SCRIPT: &str = r#"#!/usr/bin/env bash
set -euo pipefail
if [ "${1:-}" != "--inner" ]; then
  SESSION_DIR=$(mktemp -d /tmp/desktop-session.XXXXXX); export SESSION_DIR
  rc=0
  unshare --pid --fork --kill-child --mount-proc "$0" --inner "$@" || rc=$?
  rm -rf "$SESSION_DIR"
  exit $rc
fi
shift
export HOME=$SESSION_DIR/home
export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share XDG_CACHE_HOME=$HOME/.cache
export XDG_RUNTIME_DIR=$SESSION_DIR/runtime
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" && mkdir -m 700 "$XDG_RUNTIME_DIR"
export NO_AT_BRIDGE=0 GTK_MODULES=gail:atk-bridge GNOME_ACCESSIBILITY=1
mkdir -p "$XDG_CONFIG_HOME/gtk-3.0"
printf '[Settings]\ngtk-enable-animations=0\n' > "$XDG_CONFIG_HOME/gtk-3.0/settings.ini"
mkdir -p "$XDG_CONFIG_HOME/xfce4/xfconf/xfce-perchannel-xml"
cat > "$XDG_CONFIG_HOME/xfce4/xfconf/xfce-perchannel-xml/thunar.xml" <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<channel name="thunar" version="1.0">
  <property name="default-view" type="string" value="ThunarDetailsView"/>
  <property name="last-view" type="string" value="ThunarDetailsView"/>
</channel>
X
# The session's default apps, as a distribution sets them (the user's own mimeapps.list wins).
mkdir -p "$SESSION_DIR/xdg"
printf '[Default Applications]\ntext/plain=org.xfce.mousepad.desktop\ninode/directory=thunar.desktop\n' > "$SESSION_DIR/xdg/mimeapps.list"
export XDG_CONFIG_DIRS="$SESSION_DIR/xdg:/etc/xdg"
exec 5> "$SESSION_DIR/displayfd"
Xvfb -displayfd 5 -screen 0 1280x1024x24 -nolisten tcp -noreset > "$SESSION_DIR/xvfb.log" 2>&1 &
exec 5>&-
for _ in $(seq 400); do [ -s "$SESSION_DIR/displayfd" ] && break; sleep 0.025; done
[ -s "$SESSION_DIR/displayfd" ] || { echo "Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(head -1 "$SESSION_DIR/displayfd")"
exec dbus-run-session -- bash -c '
  for _ in $(seq 400); do
    gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus \
      --method org.a11y.Bus.GetAddress >/dev/null 2>&1 && break
    sleep 0.025
  done
  openbox > "$SESSION_DIR/openbox.log" 2>&1 &
  "$@"
' session "$@"
"#;

/// Packages the desktop tests need: (Debian package, a file it provides).
pub const PACKAGES: [(&str, &str); 10] = [
    ("xvfb", "/usr/bin/Xvfb"),
    ("at-spi2-core", "/usr/libexec/at-spi-bus-launcher"),
    ("dbus", "/usr/bin/dbus-run-session"),
    ("libglib2.0-bin", "/usr/bin/gdbus"),
    ("openbox", "/usr/bin/openbox"),
    ("mousepad", "/usr/bin/mousepad"),
    ("thunar", "/usr/bin/thunar"),
    ("xdotool", "/usr/bin/xdotool"),
    ("gedit", "/usr/bin/gedit"),
    ("xdg-utils", "/usr/bin/xdg-mime"),
];

/// One headless desktop at a time: the AT-SPI timing checks (settling, human input) are not
/// meant to compete with a second desktop for the machine's two cores.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub struct Desktop {
    _turn: std::sync::MutexGuard<'static, ()>,
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    pub env: Vec<(String, String)>,
    /// A folder for the test's documents (not the daemon's logs).
    pub docs: PathBuf,
    /// Apps the test started outside the session's PID namespace; killed and reaped on drop.
    apps: std::sync::Mutex<Vec<Child>>,
    _script: tempfile::TempDir,
}

impl Desktop {
    pub fn start() -> Desktop {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let missing: Vec<&str> = PACKAGES
            .iter()
            .filter(|(_, f)| !Path::new(f).exists())
            .map(|(p, _)| *p)
            .collect();
        assert!(
            missing.is_empty(),
            "the desktop tests need these Debian packages: apt-get install {} (scripts/test installs them)",
            missing.join(" ")
        );
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("desktop-session.sh");
        std::fs::write(&script, SESSION_SCRIPT).unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let mut child = Command::new(&script)
            .args(["bash", "-c", "env; echo READY; exec cat >/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .env_remove("NO_AT_BRIDGE")
            .spawn()
            .expect("start the desktop session");
        let stdin = child.stdin.take();
        let mut env = Vec::new();
        let out = BufReader::new(child.stdout.take().unwrap());
        for line in out.lines() {
            let line = line.unwrap();
            if line == "READY" {
                break;
            }
            if let Some((k, v)) = line.split_once('=') {
                if k == "DISPLAY"
                    || k == "DBUS_SESSION_BUS_ADDRESS"
                    || k == "SESSION_DIR"
                    || k == "HOME"
                    || k.starts_with("XDG_")
                    || k == "GTK_MODULES"
                    || k == "NO_AT_BRIDGE"
                {
                    env.push((k.to_string(), v.to_string()));
                }
            }
        }
        let session_dir = env
            .iter()
            .find(|(k, _)| k == "SESSION_DIR")
            .map(|(_, v)| PathBuf::from(v))
            .expect("the desktop session started");
        let docs = session_dir.join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        Desktop {
            _turn: turn,
            child,
            stdin,
            env,
            docs,
            apps: std::sync::Mutex::new(Vec::new()),
            _script: dir,
        }
    }

    /// The environment a daemon inside this desktop has (its own XDG dirs are set by `Daemon`).
    /// The session is X11 even when the tests run inside a Wayland session.
    pub fn daemon_env(&self) -> Vec<(String, String)> {
        self.env
            .iter()
            .filter(|(k, _)| {
                k == "DISPLAY"
                    || k == "DBUS_SESSION_BUS_ADDRESS"
                    || k == "GTK_MODULES"
                    || k == "NO_AT_BRIDGE"
                    || k == "XDG_CONFIG_DIRS"
            })
            .cloned()
            .chain([
                ("WAYLAND_DISPLAY".to_string(), String::new()),
                ("XDG_SESSION_TYPE".to_string(), "x11".to_string()),
            ])
            .collect()
    }

    /// A command run inside the desktop's session (outside its PID namespace).
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        c
    }

    /// Show `file` selected in Thunar (D-Bus-activated inside the session) and wait for it.
    pub fn select_in_file_manager(&self, file: &Path) {
        let uri = format!("['file://{}']", file.display());
        let out = self
            .command("gdbus")
            .args([
                "call",
                "--session",
                "--dest",
                "org.freedesktop.FileManager1",
                "--object-path",
                "/org/freedesktop/FileManager1",
                "--method",
                "org.freedesktop.FileManager1.ShowItems",
                &uri,
                "",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ShowItems: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        self.wait_window(&format!("{dir} - Thunar"));
    }

    /// Wait until an X window with this title exists.
    pub fn wait_window(&self, title: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let out = self
                .command("xdotool")
                .args(["search", "--name", title])
                .output()
                .unwrap();
            if out.status.success() && !out.stdout.is_empty() {
                // Give the app's accessibility tree a moment to fill in.
                std::thread::sleep(Duration::from_millis(300));
                return;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
        panic!("no window titled {title:?} appeared within 10 s");
    }

    /// Open a file in its own mousepad window (as the person would), and wait for it.
    pub fn open_in_editor(&self, file: &Path) {
        let child = self
            .command("mousepad")
            .arg("--opening-mode=window")
            .arg(file)
            .spawn()
            .unwrap();
        self.apps.lock().unwrap().push(child);
        self.wait_window(&file.file_name().unwrap().to_string_lossy());
    }

    /// Focus the visible window titled `title`, as a person would, and give GTK a moment: a key
    /// sent in the same instant as the activation is dropped.
    pub fn activate(&self, title: &str) {
        self.xdotool(&[
            "search",
            "--onlyvisible",
            "--name",
            title,
            "windowactivate",
            "--sync",
        ]);
        std::thread::sleep(std::time::Duration::from_millis(300));
    }

    pub fn xdotool(&self, args: &[&str]) {
        let out = self.command("xdotool").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "xdotool {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        // Closing stdin ends the session's last command; the PID namespace takes the rest.
        for mut app in self.apps.lock().unwrap().drain(..) {
            let _ = app.kill();
            let _ = app.wait();
        }
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn write(path: &Path, text: &str) {
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

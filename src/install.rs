//! `circe install` / `circe uninstall`: the user-level install (no root) — the daemon's systemd
//! user unit, the tray's autostart entry and Chrome's native-host manifest — and the record of
//! exactly what was written, so `uninstall` removes those files and nothing else.
//! `circe man` and `circe completions` are generated here from the clap definition.
//!
//! The pure part ([`plan`], [`unit`], [`autostart`], [`decide_install`], [`decide_uninstall`])
//! says which files and what they hold; [`install`] and [`uninstall`] read the disk, write, and
//! talk to `systemctl --user`.

use crate::browser::install as browser;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The unit's name under `systemd/user/`.
pub const UNIT_NAME: &str = "circe.service";
/// The autostart entry's name under `autostart/`.
pub const AUTOSTART_NAME: &str = "circe-tray.desktop";
/// What `install` keeps in the data directory.
pub const RECORD_NAME: &str = "installed.json";

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("the circe binary path {0} is not absolute")]
    RelativeBinary(PathBuf),
    #[error("the circe binary path {0:?} has a newline or is not UTF-8; a unit cannot name it")]
    UnnamableBinary(PathBuf),
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Browser(#[from] browser::InstallError),
    #[error("cannot {what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a record of `circe install`: {reason}")]
    Record { path: PathBuf, reason: String },
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> InstallError {
    let path = path.to_path_buf();
    move |source| InstallError::Io { what, path, source }
}

/// What a file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// The daemon's systemd user unit.
    Unit,
    /// The tray's XDG autostart entry.
    Autostart,
    /// Chrome's (or Chromium's) native-messaging host manifest.
    NativeHost,
}

impl Kind {
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Unit => "the daemon's systemd user unit",
            Kind::Autostart => "the tray's autostart entry",
            Kind::NativeHost => "the browser's native-messaging host manifest",
        }
    }
}

/// One file `install` puts in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub kind: Kind,
    pub path: PathBuf,
    pub contents: String,
}

/// Where the files go (the environment, read once by [`Places::from_env`]).
#[derive(Clone, Debug)]
pub struct Places {
    /// `$XDG_CONFIG_HOME` (else `~/.config`).
    pub config_home: PathBuf,
    /// The directories Chrome and Chromium read host manifests from.
    pub native_host_dirs: Vec<PathBuf>,
    /// Where the record of what was installed lives (`<data dir>/installed.json`).
    pub record: PathBuf,
}

impl Places {
    pub fn from_env(data_dir: &Path) -> Result<Places, InstallError> {
        if !cfg!(target_os = "linux") {
            return Err(InstallError::Unsupported(format!(
                "`circe install` sets Circe up with systemd and XDG autostart, which this system ({}) does not have; run `circe serve` and `circe tray` yourself, and `circe install-browser` for Chrome",
                std::env::consts::OS
            )));
        }
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/"));
        let config_home = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| home.join(".config"));
        Ok(Places {
            config_home,
            native_host_dirs: browser::manifest_dirs(browser::Browser::All, None)?,
            record: data_dir.join(RECORD_NAME),
        })
    }
}

/// Quote one argument for a systemd `ExecStart=` line (`%` and `$` are doubled: systemd would
/// expand them).
fn systemd_quote(arg: &str) -> String {
    let escaped = arg
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('%', "%%")
        .replace('$', "$$");
    if arg.is_empty()
        || arg
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\'')
    {
        format!("\"{escaped}\"")
    } else {
        escaped
    }
}

/// Quote one argument for a desktop entry's `Exec=` (the Desktop Entry spec: reserved
/// characters inside double quotes with `"`, `` ` ``, `$`, `\` escaped, then the string value's
/// own escaping of `\`; `%` is `%%`).
fn exec_quote(arg: &str) -> String {
    const RESERVED: &str = " \t\n\"'\\><~|&;$*?#()`";
    let arg = arg.replace('%', "%%");
    if arg.chars().any(|c| RESERVED.contains(c)) {
        let mut inner = String::new();
        for c in arg.chars() {
            if matches!(c, '"' | '`' | '$' | '\\') {
                inner.push('\\');
            }
            inner.push(c);
        }
        format!("\"{inner}\"").replace('\\', "\\\\")
    } else {
        arg
    }
}

fn checked(binary: &Path) -> Result<&str, InstallError> {
    if !binary.is_absolute() {
        return Err(InstallError::RelativeBinary(binary.to_path_buf()));
    }
    match binary.to_str() {
        Some(s) if !s.contains('\n') && !s.contains('\r') => Ok(s),
        _ => Err(InstallError::UnnamableBinary(binary.to_path_buf())),
    }
}

/// The systemd user unit that runs `binary serve`, restarted when it fails.
pub fn unit(binary: &Path) -> Result<String, InstallError> {
    let path = checked(binary)?;
    Ok(format!(
        "[Unit]
Description=Circe node daemon: voice as a reliable remote control
Documentation=man:circe(1)
After=dbus.socket pipewire.service pulseaudio.service

[Service]
Type=simple
ExecStart={} serve
Restart=on-failure
RestartSec=2

[Install]
WantedBy=default.target
",
        systemd_quote(path)
    ))
}

/// The XDG autostart entry that starts `binary tray` with the session.
pub fn autostart(binary: &Path) -> Result<String, InstallError> {
    let path = checked(binary)?;
    Ok(format!(
        "[Desktop Entry]
Type=Application
Name=Circe tray
Comment=Circe in the tray: idle, listening, working or asking; click to turn the microphone on or off
Exec={} tray
Icon=audio-input-microphone
Terminal=false
NoDisplay=true
X-GNOME-Autostart-enabled=true
",
        exec_quote(path)
    ))
}

/// Every file `install` puts in place for `binary`, with its contents.
pub fn plan(binary: &Path, places: &Places) -> Result<Vec<Item>, InstallError> {
    let mut items = vec![
        Item {
            kind: Kind::Unit,
            path: places.config_home.join("systemd/user").join(UNIT_NAME),
            contents: unit(binary)?,
        },
        Item {
            kind: Kind::Autostart,
            path: places.config_home.join("autostart").join(AUTOSTART_NAME),
            contents: autostart(binary)?,
        },
    ];
    let manifest = browser::manifest(binary);
    for dir in &places.native_host_dirs {
        items.push(Item {
            kind: Kind::NativeHost,
            path: browser::manifest_path(dir),
            contents: manifest.clone(),
        });
    }
    Ok(items)
}

/// A file as `install` left it: its path and the SHA-256 of what it wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    pub kind: Kind,
    pub path: PathBuf,
    pub sha256: String,
}

/// `<data dir>/installed.json`: exactly what `install` put in place.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub binary: PathBuf,
    pub files: Vec<Written>,
}

pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What is on disk at a path now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OnDisk {
    Missing,
    /// A file, by the SHA-256 of its bytes.
    File(String),
    /// Something that is not a regular file (a directory, a socket…).
    Other,
}

/// What install (or uninstall) does with one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// Written (it was missing).
    Install,
    /// Already there with exactly these contents.
    AlreadyInstalled,
    /// Rewritten: it was ours and unchanged, but what we would write now differs (another binary).
    Update,
    /// Replaced with `--force` although someone else wrote or changed it.
    Replace,
    /// Left alone: someone else wrote or changed it (without `--force`).
    KeepChanged,
    /// Left alone: not a regular file.
    KeepNotAFile,
    /// Removed.
    Remove,
    /// Already gone.
    AlreadyGone,
}

impl Action {
    pub fn words(self, dry_run: bool) -> &'static str {
        match (self, dry_run) {
            (Action::Install, false) => "installed",
            (Action::Install, true) => "would install",
            (Action::AlreadyInstalled, _) => "already installed",
            (Action::Update, false) => "updated",
            (Action::Update, true) => "would update",
            (Action::Replace, false) => "replaced (--force)",
            (Action::Replace, true) => "would replace (--force)",
            (Action::KeepChanged, _) => "kept, changed since install (--force replaces it)",
            (Action::KeepNotAFile, _) => "kept, not a regular file",
            (Action::Remove, false) => "removed",
            (Action::Remove, true) => "would remove",
            (Action::AlreadyGone, _) => "already gone",
        }
    }

    /// Whether the file is ours after this action (recorded for uninstall).
    fn ours(self) -> bool {
        matches!(
            self,
            Action::Install | Action::AlreadyInstalled | Action::Update | Action::Replace
        )
    }

    fn writes(self) -> bool {
        matches!(self, Action::Install | Action::Update | Action::Replace)
    }
}

/// What install does with `item`, given what is on disk and what the last install wrote there.
pub fn decide_install(item: &Item, disk: &OnDisk, recorded: Option<&str>, force: bool) -> Action {
    let wanted = sha256(item.contents.as_bytes());
    match disk {
        OnDisk::Missing => Action::Install,
        OnDisk::Other => Action::KeepNotAFile,
        OnDisk::File(h) if *h == wanted => Action::AlreadyInstalled,
        OnDisk::File(h) if Some(h.as_str()) == recorded => Action::Update,
        OnDisk::File(_) if force => Action::Replace,
        OnDisk::File(_) => Action::KeepChanged,
    }
}

/// What uninstall does with a recorded file, given what is on disk.
pub fn decide_uninstall(written: &Written, disk: &OnDisk, force: bool) -> Action {
    match disk {
        OnDisk::Missing => Action::AlreadyGone,
        OnDisk::Other => Action::KeepNotAFile,
        OnDisk::File(h) if *h == written.sha256 || force => Action::Remove,
        OnDisk::File(_) => Action::KeepChanged,
    }
}

/// One line of the report.
#[derive(Clone, Debug, Serialize)]
pub struct Done {
    pub kind: Kind,
    pub path: PathBuf,
    pub action: Action,
}

/// What `systemctl --user` did (or why it was not used).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Systemd {
    /// Whether a systemd user instance answered.
    pub reachable: bool,
    /// The commands run and what each said, or why none were.
    pub detail: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub dry_run: bool,
    pub binary: PathBuf,
    pub files: Vec<Done>,
    /// None when nothing asked for systemd (a dry run, or no unit to act on).
    pub systemd: Option<Systemd>,
    pub record: PathBuf,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for d in &self.files {
            writeln!(
                f,
                "{}: {} ({})",
                d.action.words(self.dry_run),
                d.path.display(),
                d.kind.describe()
            )?;
        }
        if let Some(s) = &self.systemd {
            writeln!(f, "systemd: {}", s.detail)?;
        }
        Ok(())
    }
}

fn on_disk(path: &Path) -> Result<OnDisk, InstallError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(OnDisk::Missing),
        Err(e) => Err(io("read", path)(e)),
        Ok(m) if m.is_file() => {
            let bytes = std::fs::read(path).map_err(io("read", path))?;
            Ok(OnDisk::File(sha256(&bytes)))
        }
        Ok(_) => Ok(OnDisk::Other),
    }
}

pub fn load_record(path: &Path) -> Result<Option<Record>, InstallError> {
    match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("read", path)(e)),
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| InstallError::Record {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
    }
}

fn save_record(path: &Path, record: &Record) -> Result<(), InstallError> {
    if let Some(dir) = path.parent() {
        crate::private::dir(dir).map_err(io("create", dir))?;
    }
    let text = serde_json::to_vec_pretty(record).expect("a record serializes");
    crate::private::write(path, &text).map_err(io("write", path))
}

/// The program run as `systemctl` (`CIRCE_SYSTEMCTL` overrides it, for tests and odd systems).
fn systemctl_program() -> String {
    std::env::var("CIRCE_SYSTEMCTL").unwrap_or_else(|_| "systemctl".to_string())
}

/// Run `systemctl --user ARGS`: Ok(stdout) on exit 0, Err(what it said) otherwise.
fn systemctl(args: &[&str]) -> Result<String, String> {
    let program = systemctl_program();
    match Command::new(&program).arg("--user").args(args).output() {
        Err(e) => Err(format!("cannot run {program}: {e}")),
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        Ok(o) => {
            let said = String::from_utf8_lossy(&o.stderr).trim().replace('\n', " ");
            Err(format!(
                "`systemctl --user {}` failed ({}): {said}",
                args.join(" "),
                o.status
            ))
        }
    }
}

/// Put every file of [`plan`] in place (or say what would be done), record them, and start the
/// daemon through `systemctl --user` when a user instance answers.
pub fn install(
    binary: &Path,
    places: &Places,
    force: bool,
    dry_run: bool,
) -> Result<Report, InstallError> {
    let items = plan(binary, places)?;
    let previous = load_record(&places.record)?.unwrap_or_default();
    let recorded = |p: &Path| {
        previous
            .files
            .iter()
            .find(|w| w.path == p)
            .map(|w| w.sha256.clone())
    };
    let mut files = Vec::new();
    let mut record = Record {
        binary: binary.to_path_buf(),
        files: Vec::new(),
    };
    let mut unit_changed = false;
    let mut unit_ours = false;
    for item in &items {
        let action = decide_install(
            item,
            &on_disk(&item.path)?,
            recorded(&item.path).as_deref(),
            force,
        );
        if action.writes() && !dry_run {
            write_item(binary, item)?;
        }
        if action.ours() {
            record.files.push(Written {
                kind: item.kind,
                path: item.path.clone(),
                sha256: sha256(item.contents.as_bytes()),
            });
        } else if let Some(h) = recorded(&item.path) {
            // Still ours to remove with --force; the record keeps what we wrote.
            record.files.push(Written {
                kind: item.kind,
                path: item.path.clone(),
                sha256: h,
            });
        }
        if item.kind == Kind::Unit {
            unit_changed = action.writes();
            unit_ours = action.ours() || action == Action::KeepChanged;
        }
        files.push(Done {
            kind: item.kind,
            path: item.path.clone(),
            action,
        });
    }
    // Files an older install wrote that this plan no longer names stay recorded, so uninstall
    // still removes them.
    for w in &previous.files {
        if !record.files.iter().any(|r| r.path == w.path) {
            record.files.push(w.clone());
        }
    }
    if !dry_run {
        save_record(&places.record, &record)?;
    }
    let systemd = (!dry_run && unit_ours).then(|| start_unit(unit_changed));
    Ok(Report {
        dry_run,
        binary: binary.to_path_buf(),
        files,
        systemd,
        record: places.record.clone(),
    })
}

fn write_item(binary: &Path, item: &Item) -> Result<(), InstallError> {
    match item.kind {
        // Chrome's manifest goes through `circe install-browser`'s own writer.
        Kind::NativeHost => {
            let dir = item.path.parent().expect("a manifest path has a directory");
            browser::install(binary, &[dir.to_path_buf()])?;
        }
        Kind::Unit | Kind::Autostart => {
            let dir = item.path.parent().expect("an item path has a directory");
            std::fs::create_dir_all(dir).map_err(io("create", dir))?;
            std::fs::write(&item.path, &item.contents).map_err(io("write", &item.path))?;
        }
    }
    Ok(())
}

const BY_HAND: &str = "start the daemon by hand with `circe serve` (and the tray with `circe tray`), or, in a session with systemd, `systemctl --user daemon-reload && systemctl --user enable --now circe.service`";

fn start_unit(changed: bool) -> Systemd {
    if let Err(e) = systemctl(&["daemon-reload"]) {
        return Systemd {
            reachable: false,
            detail: format!(
                "no systemd user instance answered ({e}); the files are in place: {BY_HAND}"
            ),
        };
    }
    let was = systemctl(&["is-enabled", UNIT_NAME]).unwrap_or_default() == "enabled"
        && systemctl(&["is-active", UNIT_NAME]).unwrap_or_default() == "active";
    if was && !changed {
        return Systemd {
            reachable: true,
            detail: format!("{UNIT_NAME} already enabled and running"),
        };
    }
    let result = if was {
        systemctl(&["restart", UNIT_NAME])
            .map(|_| format!("{UNIT_NAME} restarted with the new unit"))
    } else {
        systemctl(&["enable", "--now", UNIT_NAME])
            .map(|_| format!("{UNIT_NAME} enabled and started (daemon-reload, enable --now)"))
    };
    match result {
        Ok(detail) => Systemd {
            reachable: true,
            detail,
        },
        Err(e) => Systemd {
            reachable: true,
            detail: format!("{e}; the files are in place: {BY_HAND}"),
        },
    }
}

/// Remove exactly what the record says install wrote (a file changed since is kept unless
/// `force`), disabling the unit first.
pub fn uninstall(places: &Places, force: bool, dry_run: bool) -> Result<Report, InstallError> {
    let Some(record) = load_record(&places.record)? else {
        return Ok(Report {
            dry_run,
            binary: PathBuf::new(),
            files: Vec::new(),
            systemd: None,
            record: places.record.clone(),
        });
    };
    let mut decided = Vec::new();
    for w in &record.files {
        decided.push((w, decide_uninstall(w, &on_disk(&w.path)?, force)));
    }
    let unit_goes = decided
        .iter()
        .any(|(w, a)| w.kind == Kind::Unit && *a == Action::Remove);
    let mut systemd = None;
    if unit_goes && !dry_run {
        systemd = Some(match systemctl(&["disable", "--now", UNIT_NAME]) {
            Ok(_) => Systemd {
                reachable: true,
                detail: format!("{UNIT_NAME} stopped and disabled"),
            },
            Err(e) => Systemd {
                reachable: false,
                detail: format!("not disabled through systemd ({e})"),
            },
        });
    }
    let mut files = Vec::new();
    let mut kept = Vec::new();
    for (w, action) in decided {
        if action == Action::Remove && !dry_run {
            std::fs::remove_file(&w.path).map_err(io("remove", &w.path))?;
        }
        if matches!(action, Action::KeepChanged | Action::KeepNotAFile) {
            kept.push(w.clone());
        }
        files.push(Done {
            kind: w.kind,
            path: w.path.clone(),
            action,
        });
    }
    if !dry_run {
        if kept.is_empty() {
            std::fs::remove_file(&places.record).map_err(io("remove", &places.record))?;
        } else {
            save_record(
                &places.record,
                &Record {
                    binary: record.binary.clone(),
                    files: kept,
                },
            )?;
        }
        if let Some(s) = systemd.as_mut().filter(|s| s.reachable) {
            if let Err(e) = systemctl(&["daemon-reload"]) {
                s.detail.push_str(&format!("; {e}"));
            }
        }
    }
    Ok(Report {
        dry_run,
        binary: record.binary,
        files,
        systemd,
        record: places.record.clone(),
    })
}

/// Where the Chrome extension's folder is: beside an installed binary
/// (`<prefix>/share/circe/chrome-extension`, as the .deb puts it), else this source tree's.
pub fn extension_dir() -> PathBuf {
    let installed = std::env::current_exe().ok().and_then(|exe| {
        let prefix = exe.parent()?.parent()?.to_path_buf();
        Some(prefix.join("share/circe/chrome-extension"))
    });
    match installed {
        Some(dir) if dir.join("manifest.json").is_file() => dir,
        _ => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/chrome-extension")),
    }
}

/// The man page of `cmd` (roff), or with `dir` one page per command written there (`circe.1`,
/// `circe-serve.1`, …); returns the files written.
pub fn man(cmd: clap::Command, dir: Option<&Path>) -> Result<(String, Vec<PathBuf>), InstallError> {
    match dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .map_err(io("render the man page to", Path::new("stdout")))?;
            Ok((String::from_utf8_lossy(&out).into_owned(), Vec::new()))
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(io("create", dir))?;
            clap_mangen::generate_to(cmd, dir).map_err(io("write man pages in", dir))?;
            let mut written: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(io("read", dir))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|e| e == "1")
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n == "circe.1" || n.starts_with("circe-"))
                })
                .collect();
            written.sort();
            Ok((String::new(), written))
        }
    }
}

/// The completion script of `cmd` for `shell`.
pub fn completions(mut cmd: clap::Command, shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    let name = cmd.get_name().to_string();
    clap_complete::generate(shell, &mut cmd, name, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places {
            config_home: PathBuf::from("/home/u/.config"),
            native_host_dirs: vec![
                PathBuf::from("/home/u/.config/google-chrome/NativeMessagingHosts"),
                PathBuf::from("/home/u/.config/chromium/NativeMessagingHosts"),
            ],
            record: PathBuf::from("/home/u/.local/share/circe/installed.json"),
        }
    }

    #[test]
    fn the_plan_names_the_unit_the_entry_and_each_manifest() {
        let items = plan(Path::new("/opt/circe/bin/circe"), &places()).unwrap();
        let paths: Vec<_> = items.iter().map(|i| i.path.to_str().unwrap()).collect();
        assert_eq!(
            paths,
            [
                "/home/u/.config/systemd/user/circe.service",
                "/home/u/.config/autostart/circe-tray.desktop",
                "/home/u/.config/google-chrome/NativeMessagingHosts/com.circe.connector.json",
                "/home/u/.config/chromium/NativeMessagingHosts/com.circe.connector.json",
            ]
        );
        assert!(items[0]
            .contents
            .contains("\nExecStart=/opt/circe/bin/circe serve\n"));
        assert!(items[1]
            .contents
            .contains("\nExec=/opt/circe/bin/circe tray\n"));
    }

    #[test]
    fn odd_paths_are_quoted_for_systemd_and_desktop_entries() {
        let odd = Path::new("/opt/my apps/100%/$circe");
        let u = unit(odd).unwrap();
        assert!(
            u.contains("ExecStart=\"/opt/my apps/100%%/$$circe\" serve"),
            "{u}"
        );
        let exec = |binary: &str| {
            let e = autostart(Path::new(binary)).unwrap();
            let line = e
                .lines()
                .find_map(|l| l.strip_prefix("Exec="))
                .expect("an Exec line")
                .to_string();
            crate::desktop::entries::split_exec(&line).unwrap().0
        };
        assert_eq!(exec("/opt/my apps/$circe"), ["/opt/my apps/$circe", "tray"]);
        assert_eq!(exec("/opt/a\\b \"c\""), ["/opt/a\\b \"c\"", "tray"]);
        assert_eq!(exec("/opt/100%/circe"), ["/opt/100%/circe", "tray"]);
    }

    #[test]
    fn relative_or_multiline_binaries_are_refused() {
        assert!(matches!(
            unit(Path::new("circe")),
            Err(InstallError::RelativeBinary(_))
        ));
        assert!(matches!(
            autostart(Path::new("/a\nb")),
            Err(InstallError::UnnamableBinary(_))
        ));
    }

    #[test]
    fn install_decisions() {
        let item = &plan(Path::new("/usr/bin/circe"), &places()).unwrap()[0];
        let ours = sha256(item.contents.as_bytes());
        let file = |s: &str| OnDisk::File(s.to_string());
        assert_eq!(
            decide_install(item, &OnDisk::Missing, None, false),
            Action::Install
        );
        assert_eq!(
            decide_install(item, &file(&ours), None, false),
            Action::AlreadyInstalled
        );
        assert_eq!(
            decide_install(item, &file("old"), Some("old"), false),
            Action::Update
        );
        assert_eq!(
            decide_install(item, &file("edited"), Some("old"), false),
            Action::KeepChanged
        );
        assert_eq!(
            decide_install(item, &file("edited"), None, true),
            Action::Replace
        );
        assert_eq!(
            decide_install(item, &OnDisk::Other, None, true),
            Action::KeepNotAFile
        );
    }

    #[test]
    fn uninstall_decisions() {
        let w = Written {
            kind: Kind::Unit,
            path: PathBuf::from("/x"),
            sha256: "ours".into(),
        };
        let file = |s: &str| OnDisk::File(s.to_string());
        assert_eq!(decide_uninstall(&w, &file("ours"), false), Action::Remove);
        assert_eq!(
            decide_uninstall(&w, &file("edited"), false),
            Action::KeepChanged
        );
        assert_eq!(decide_uninstall(&w, &file("edited"), true), Action::Remove);
        assert_eq!(
            decide_uninstall(&w, &OnDisk::Missing, false),
            Action::AlreadyGone
        );
    }
}

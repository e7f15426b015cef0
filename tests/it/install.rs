//! `circe install` / `circe uninstall` into private XDG directories (the files, their contents,
//! the record, idempotency, exactly-those removal), `circe man` and `circe completions` read by
//! groff and bash, and the README's "A short tour" run line by line against a real daemon.

use crate::util::{stderr, stdout, Daemon, WeatherServer, CIRCE};
use circe::browser::bridge::EXTENSION_ID;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A user's home with its own XDG directories and no session (no systemd user instance).
struct Home {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "config", "data", "run"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Home {
            dir,
            env: Vec::new(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn circe(&self, args: &[&str]) -> Output {
        let d = self.dir.path();
        Command::new(CIRCE)
            .args(args)
            .env("HOME", d.join("home"))
            .env("XDG_CONFIG_HOME", d.join("config"))
            .env("XDG_DATA_HOME", d.join("data"))
            .env("XDG_RUNTIME_DIR", d.join("run"))
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("CIRCE_DATA_DIR")
            .env_remove("CIRCE_SYSTEMCTL")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .output()
            .expect("run circe")
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.circe(args);
        assert!(
            o.status.success(),
            "circe {args:?}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        stdout(&o)
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        serde_json::from_str(&self.ok(&all)).expect("--json prints JSON")
    }

    fn unit(&self) -> PathBuf {
        self.path("config/systemd/user/circe.service")
    }
    fn autostart(&self) -> PathBuf {
        self.path("config/autostart/circe-tray.desktop")
    }
    fn manifests(&self) -> [PathBuf; 2] {
        [
            self.path("config/google-chrome/NativeMessagingHosts/com.circe.connector.json"),
            self.path("config/chromium/NativeMessagingHosts/com.circe.connector.json"),
        ]
    }
    fn record(&self) -> PathBuf {
        self.path("data/circe/installed.json")
    }
    fn all(&self) -> Vec<PathBuf> {
        let mut v = vec![self.unit(), self.autostart()];
        v.extend(self.manifests());
        v
    }
}

/// The value of `key=` in a unit or desktop entry (the only one: a second is a failure).
fn value(text: &str, key: &str) -> String {
    let found: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{key}=")))
        .collect();
    assert_eq!(found.len(), 1, "{key}= in:\n{text}");
    found[0].to_string()
}

fn actions(report: &serde_json::Value) -> Vec<(String, String)> {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["action"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn snapshot(paths: &[PathBuf]) -> Vec<(Vec<u8>, std::time::SystemTime)> {
    paths
        .iter()
        .map(|p| {
            (
                std::fs::read(p).unwrap(),
                std::fs::metadata(p).unwrap().modified().unwrap(),
            )
        })
        .collect()
}

#[test]
fn install_puts_the_unit_the_tray_entry_and_the_manifests_in_place_and_uninstall_removes_exactly_those(
) {
    let h = Home::new();

    // A dry run says what it would write and writes nothing.
    let dry = h.json(&["install", "--dry-run"]);
    assert_eq!(dry["dryRun"], true);
    assert_eq!(actions(&dry).len(), 4, "{dry}");
    assert!(actions(&dry).iter().all(|(_, a)| a == "install"), "{dry}");
    assert!(h.all().iter().all(|p| !p.exists()) && !h.record().exists());

    let out = h.ok(&["install"]);
    // No systemd user instance here: said plainly, files left in place, the way by hand given.
    assert!(out.contains("no systemd user instance answered"), "{out}");
    assert!(out.contains("circe serve"), "{out}");

    let unit = std::fs::read_to_string(h.unit()).unwrap();
    assert_eq!(value(&unit, "ExecStart"), format!("{CIRCE} serve"));
    assert_eq!(value(&unit, "Restart"), "on-failure");
    assert!(value(&unit, "RestartSec").parse::<u32>().unwrap() > 0);
    assert_eq!(value(&unit, "WantedBy"), "default.target");
    assert!(value(&unit, "Description").contains("Circe"));

    let entry = std::fs::read_to_string(h.autostart()).unwrap();
    assert_eq!(value(&entry, "Type"), "Application");
    assert_eq!(value(&entry, "X-GNOME-Autostart-enabled"), "true");
    let (exec, _) = circe::desktop::entries::split_exec(&value(&entry, "Exec")).unwrap();
    assert_eq!(exec, [CIRCE, "tray"]);

    for m in h.manifests() {
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
        assert_eq!(m["path"], CIRCE);
        assert_eq!(m["name"], "com.circe.connector");
        assert_eq!(
            m["allowed_origins"],
            serde_json::json!([format!("chrome-extension://{EXTENSION_ID}/")])
        );
    }

    // The record names exactly these files, and only this user can read it.
    assert_eq!(crate::util::file_mode(&h.record()), 0o600);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(h.record()).unwrap()).unwrap();
    let mut recorded: Vec<PathBuf> = record["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| PathBuf::from(f["path"].as_str().unwrap()))
        .collect();
    recorded.sort();
    let mut all = h.all();
    all.sort();
    assert_eq!(recorded, all);

    // A second install changes nothing and says so per file.
    let before = snapshot(&h.all());
    std::thread::sleep(Duration::from_millis(20));
    let again = h.json(&["install"]);
    assert_eq!(actions(&again).len(), 4);
    assert!(
        actions(&again).iter().all(|(_, a)| a == "alreadyInstalled"),
        "{again}"
    );
    assert_eq!(again["systemd"]["reachable"], false);
    assert_eq!(snapshot(&h.all()), before);
    assert!(h.ok(&["install"]).contains("already installed: "));

    // Files of the user's own beside ours.
    let theirs = [
        h.path("config/systemd/user/other.service"),
        h.path("config/autostart/other.desktop"),
        h.path("config/chromium/NativeMessagingHosts/org.other.json"),
    ];
    for t in &theirs {
        std::fs::write(t, "someone else's\n").unwrap();
    }

    // A dry uninstall removes nothing.
    let dry = h.json(&["uninstall", "--dry-run"]);
    assert!(actions(&dry).iter().all(|(_, a)| a == "remove"), "{dry}");
    assert!(h.all().iter().all(|p| p.exists()) && h.record().exists());

    // The user changed the unit: kept and reported; the rest removed; theirs untouched.
    std::fs::write(h.unit(), format!("{unit}# my change\n")).unwrap();
    let gone = h.json(&["uninstall"]);
    let a = actions(&gone);
    assert!(
        a.contains(&(h.unit().display().to_string(), "keepChanged".into())),
        "{gone}"
    );
    for p in [
        h.autostart(),
        h.manifests()[0].clone(),
        h.manifests()[1].clone(),
    ] {
        assert!(
            a.contains(&(p.display().to_string(), "remove".into())),
            "{gone}"
        );
        assert!(!p.exists(), "{} was not removed", p.display());
    }
    assert!(std::fs::read_to_string(h.unit())
        .unwrap()
        .ends_with("# my change\n"));
    let text = h.ok(&["uninstall", "--dry-run"]);
    assert!(text.contains("kept, changed since install"), "{text}");
    for t in &theirs {
        assert_eq!(std::fs::read_to_string(t).unwrap(), "someone else's\n");
    }

    // --force removes the changed unit too; then the record is gone and nothing is left to do.
    let forced = h.json(&["uninstall", "--force"]);
    assert_eq!(
        actions(&forced),
        [(h.unit().display().to_string(), "remove".into())]
    );
    assert!(!h.unit().exists() && !h.record().exists());
    for t in &theirs {
        assert!(t.exists(), "{} was removed", t.display());
    }
    assert!(h.ok(&["uninstall"]).contains("nothing to remove"));
}

#[test]
fn a_file_someone_else_wrote_is_kept_unless_forced_and_never_removed_by_uninstall() {
    let h = Home::new();
    std::fs::create_dir_all(h.autostart().parent().unwrap()).unwrap();
    std::fs::write(h.autostart(), "[Desktop Entry]\nExec=my-own-tray\n").unwrap();
    let r = h.json(&["install"]);
    assert!(
        actions(&r).contains(&(h.autostart().display().to_string(), "keepChanged".into())),
        "{r}"
    );
    assert_eq!(
        std::fs::read_to_string(h.autostart()).unwrap(),
        "[Desktop Entry]\nExec=my-own-tray\n"
    );
    // Not ours, so not recorded and not removed.
    h.ok(&["uninstall"]);
    assert!(h.autostart().exists());
    assert!(!h.unit().exists());
    // --force replaces it, and then it is ours to remove.
    let r = h.json(&["install", "--force"]);
    assert!(
        actions(&r).contains(&(h.autostart().display().to_string(), "replace".into())),
        "{r}"
    );
    assert!(std::fs::read_to_string(h.autostart())
        .unwrap()
        .contains(" tray"));
    h.ok(&["uninstall"]);
    assert!(!h.autostart().exists());
}

#[test]
fn with_a_user_systemd_install_enables_the_unit_and_uninstall_disables_it_before_removing() {
    let mut h = Home::new();
    // A systemctl that answers like a user instance and logs each call, with whether the unit
    // file existed when it was called.
    let log = h.path("systemctl.log");
    let fake = h.path("systemctl");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ -f '{unit}' ]; then f=present; else f=absent; fi\necho \"$* ($f)\" >> '{log}'\ncase \"$2\" in is-enabled) echo disabled; exit 1;; is-active) echo inactive; exit 3;; esac\nexit 0\n",
            unit = h.unit().display(),
            log = log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    h.env
        .push(("CIRCE_SYSTEMCTL".into(), fake.display().to_string()));

    let r = h.json(&["install"]);
    assert_eq!(r["systemd"]["reachable"], true, "{r}");
    let calls = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(
        calls,
        [
            "--user daemon-reload (present)",
            "--user is-enabled circe.service (present)",
            "--user enable --now circe.service (present)",
        ]
    );
    std::fs::remove_file(&log).unwrap();
    h.ok(&["uninstall"]);
    let calls = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(
        calls,
        [
            "--user disable --now circe.service (present)",
            "--user daemon-reload (absent)",
        ]
    );
}

#[test]
fn the_man_page_and_the_completions_come_from_the_command_definitions() {
    let h = Home::new();
    let page = h.ok(&["man"]);
    assert!(page.contains(".TH circe 1"), "{page}");
    assert!(page.contains(".SH NAME") && page.contains(".SH SYNOPSIS"));
    // Every command is listed (their names as clap knows them, from the help).
    let help = h.ok(&["--help"]);
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    for c in [
        "serve",
        "install",
        "uninstall",
        "man",
        "completions",
        "doctor",
    ] {
        assert!(commands.iter().any(|x| x == c), "{c} not in --help: {help}");
    }
    for c in &commands {
        assert!(
            page.contains(&format!("circe\\-{}", c.replace('-', "\\-"))),
            "{c} not in the man page"
        );
    }
    // groff (with preconv, as man does) reads it without a warning, and the text names the
    // commands.
    assert!(
        Path::new("/usr/bin/groff").exists(),
        "the man page test reads the page with groff: apt-get install groff-base (scripts/test installs it)"
    );
    let mut groff = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    groff
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let read = groff.wait_with_output().unwrap();
    assert!(
        read.status.success() && read.stderr.is_empty(),
        "{}",
        stderr(&read)
    );
    let text = stdout(&read);
    assert!(
        text.contains("circe-serve") || text.contains("circe‐serve"),
        "{text}"
    );

    // One page per command into a directory.
    let dir = h.path("man");
    let listed = h.json(&["man", "--dir", dir.to_str().unwrap()]);
    let written = listed["written"].as_array().unwrap();
    assert!(written.len() > commands.len(), "{listed}");
    for page in ["circe.1", "circe-serve.1", "circe-install.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        assert!(text.contains(".TH "), "{page}");
    }

    // Completions: bash parses the script, and it offers the commands.
    let bash = h.ok(&["completions", "bash"]);
    for c in &commands {
        assert!(bash.contains(c.as_str()), "{c} not in the bash completions");
    }
    let script = h.path("circe.bash");
    std::fs::write(&script, &bash).unwrap();
    let check = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(check.status.success(), "bash -n: {}", stderr(&check));
    let zsh = h.ok(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef circe"), "{zsh}");
    let fish = h.ok(&["completions", "fish"]);
    assert!(
        fish.contains("complete -c circe") && fish.contains("uninstall"),
        "{fish}"
    );
    // A shell it does not know is refused, naming the ones it does.
    let bad = h.circe(&["completions", "tcsh"]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("bash") && stderr(&bad).contains("fish"),
        "{}",
        stderr(&bad)
    );
}

/// One command of the tour, the output the README shows after it, and the line's number.
struct TourLine {
    line: usize,
    args: Vec<String>,
    shown: Vec<String>,
}

/// Split a command line as a shell would for these lines: words, '…' and "…" quoting, and a
/// `#` comment after whitespace.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' if word.is_none() => break,
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '"' | '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => w.push(chars.next().expect("an escape")),
                        Some(x) => w.push(x),
                        None => panic!("unclosed quote in {line:?}"),
                    }
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The first console block of README.md's "A short tour".
fn tour() -> Vec<TourLine> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .lines()
        .position(|l| l.trim() == "## A short tour")
        .expect("README.md has a section \"A short tour\"");
    let mut lines = readme.lines().enumerate().skip(start + 1);
    lines
        .by_ref()
        .find(|(_, l)| l.starts_with("```console"))
        .expect("the tour has a console block");
    let mut tour: Vec<TourLine> = Vec::new();
    for (n, l) in lines {
        if l.starts_with("```") {
            break;
        }
        if let Some(cmd) = l.strip_prefix("$ ") {
            tour.push(TourLine {
                line: n + 1,
                args: shell_words(cmd),
                shown: Vec::new(),
            });
        } else {
            tour.last_mut()
                .expect("output before any command")
                .shown
                .push(l.trim().to_string());
        }
    }
    tour
}

/// Digits vary (a temperature, a step number): compare lines with each run of digits as `#`.
fn shape(line: &str) -> String {
    let mut out = String::new();
    for c in line.trim().chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Commands that run until stopped: they must start, print, and still be running.
const FOLLOWERS: &[&str] = &["watch", "tray"];

#[test]
fn the_readme_short_tour_runs_as_written() {
    let tour = tour();
    assert!(tour.len() >= 5, "the tour has {} commands", tour.len());
    let weather = WeatherServer::start();
    let d = Daemon::start(&weather.config());
    let bus = crate::tray::Bus::start();
    for t in &tour {
        assert_eq!(t.args[0], "circe", "README line {}: {:?}", t.line, t.args);
        let args: Vec<&str> = t.args[1..].iter().map(String::as_str).collect();
        if FOLLOWERS.contains(&args[0]) {
            let mut tray = crate::tray::Tray::start_args(&d, &bus, &args);
            let deadline = Instant::now() + Duration::from_secs(20);
            while tray.said().trim().is_empty() {
                assert!(
                    Instant::now() < deadline,
                    "README line {}: `circe {}` printed nothing",
                    t.line,
                    args.join(" ")
                );
                std::thread::sleep(Duration::from_millis(20));
            }
            std::thread::sleep(Duration::from_millis(300));
            assert!(
                tray.running(),
                "README line {}: `circe {}` ended: {}",
                t.line,
                args.join(" "),
                tray.said()
            );
            continue;
        }
        if args[0] == "stop" {
            // "stop the running operation": make one run (a forecast the server holds).
            let asked = weather.forecasts.load(Ordering::SeqCst);
            weather
                .behaviour
                .forecast_delay_ms
                .store(30_000, Ordering::SeqCst);
            let o = d.cli(&["say", "What's the weather in Mumbai?"]);
            assert!(o.status.success(), "{}", stderr(&o));
            let deadline = Instant::now() + Duration::from_secs(20);
            while weather.forecasts.load(Ordering::SeqCst) == asked {
                assert!(
                    Instant::now() < deadline,
                    "the forecast was never asked for"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
            weather
                .behaviour
                .forecast_delay_ms
                .store(0, Ordering::SeqCst);
        }
        let o = d.cli(&args);
        let out = stdout(&o);
        assert!(
            o.status.success(),
            "README line {}: `circe {}` exited {}: {}{}",
            t.line,
            args.join(" "),
            o.status,
            out,
            stderr(&o)
        );
        assert!(
            !out.trim().is_empty(),
            "README line {}: `circe {}` printed nothing",
            t.line,
            args.join(" ")
        );
        // What the README shows after the command is what it prints (numbers aside), in order.
        let printed: Vec<String> = out.lines().map(shape).collect();
        let mut at = 0;
        for shown in &t.shown {
            let want = shape(shown);
            match printed[at..].iter().position(|p| *p == want) {
                Some(k) => at += k + 1,
                None => panic!(
                    "README line {}: `circe {}` did not print {shown:?}; it printed:\n{out}",
                    t.line,
                    args.join(" ")
                ),
            }
        }
    }
}

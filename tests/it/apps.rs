//! Which app "the editor" and "the file manager" are, and the `[desktop]` policy, as
//! `circe doctor --json` reports them from real desktop entries and mimeapps.list files in a
//! private home (issue 15).

use crate::util::{stdout, Daemon};
use std::path::Path;
use std::process::Command;

/// Desktop entries as their packages install them (trimmed to the keys Circe reads).
const ENTRIES: &[(&str, &str)] = &[
    (
        "org.xfce.mousepad.desktop",
        "[Desktop Entry]\nName=Mousepad\nGenericName=Text Editor\nExec=mousepad %U\nType=Application\nStartupNotify=true\nCategories=Utility;TextEditor;GTK;\nMimeType=text/plain;\n",
    ),
    (
        "org.gnome.gedit.desktop",
        "[Desktop Entry]\nName=gedit\nGenericName=Text Editor\nExec=gedit %U\nTerminal=false\nType=Application\nCategories=GNOME;GTK;Utility;TextEditor;\nMimeType=text/plain;application/x-zerosize;\nStartupWMClass=gedit\n",
    ),
    (
        "thunar.desktop",
        "[Desktop Entry]\nName=Thunar File Manager\nName[de]=Thunar-Dateiverwaltung\nExec=thunar %F\nType=Application\nCategories=System;Utility;Core;GTK;FileTools;FileManager;\nMimeType=inode/directory;\n",
    ),
    (
        "org.keepassxc.KeePassXC.desktop",
        "[Desktop Entry]\nName=KeePassXC\nExec=keepassxc %f\nType=Application\nCategories=Utility;Security;Qt;\n",
    ),
];

/// A daemon whose CLI sees only this test's applications: the entries in its system data
/// directory (`XDG_DATA_DIRS`), none of the machine's, and no desktop-specific list.
fn daemon(config: &str, system: &Path) -> Daemon {
    let apps = system.join("applications");
    std::fs::create_dir_all(&apps).unwrap();
    for (id, text) in ENTRIES {
        std::fs::write(apps.join(id), text).unwrap();
    }
    let etc = system.join("etc");
    std::fs::create_dir_all(&etc).unwrap();
    let env = [
        ("XDG_DATA_DIRS", system.to_str().unwrap()),
        ("XDG_CONFIG_DIRS", etc.to_str().unwrap()),
        ("XDG_CURRENT_DESKTOP", ""),
        ("HOME", system.to_str().unwrap()),
        ("LC_ALL", ""),
        ("LC_MESSAGES", ""),
        ("LANG", "de_DE.UTF-8"),
    ];
    Daemon::start_with_env(
        config,
        env.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// `circe doctor --json`'s check `name`.
fn doctor_check(d: &Daemon, name: &str) -> serde_json::Value {
    let out = d.cli(&["doctor", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("circe doctor --json: {e}: {}", stdout(&out)));
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {report}"))
        .clone()
}

/// The user's own mimeapps.list, where `xdg-mime default` writes.
fn user_mimeapps(d: &Daemon) -> std::path::PathBuf {
    d.dir.path().join("config/mimeapps.list")
}

#[test]
fn the_editor_is_the_default_for_text_plain_and_a_denied_app_is_in_the_policy() {
    let system = tempfile::tempdir().unwrap();
    let d = daemon(
        "[desktop]\ndeny = [\"keepassxc\", \"Thunar\"]\n",
        system.path(),
    );

    // No default anywhere: two installed text editors, so Circe would ask which.
    let apps = doctor_check(&d, "apps");
    assert_eq!(apps["ok"], false, "{apps}");
    assert_eq!(
        apps["data"]["editor"]["ask"],
        serde_json::json!(["org.gnome.gedit.desktop", "org.xfce.mousepad.desktop"]),
        "{apps}"
    );
    assert!(
        apps["fix"]
            .as_str()
            .unwrap()
            .contains("xdg-mime default org.gnome.gedit.desktop text/plain"),
        "{apps}"
    );
    // The one file manager, named in LANG's language.
    assert_eq!(
        apps["data"]["fileManager"]["app"], "thunar.desktop",
        "{apps}"
    );
    assert_eq!(
        apps["data"]["fileManager"]["name"], "Thunar-Dateiverwaltung",
        "{apps}"
    );

    // The user's default (as `xdg-mime default` writes it) decides, and changing it changes it.
    let mimeapps = user_mimeapps(&d);
    for id in ["org.xfce.mousepad.desktop", "org.gnome.gedit.desktop"] {
        std::fs::write(
            &mimeapps,
            format!("[Default Applications]\ntext/plain={id}\n"),
        )
        .unwrap();
        let apps = doctor_check(&d, "apps");
        let editor = &apps["data"]["editor"];
        assert_eq!(editor["app"], id, "{apps}");
        assert_eq!(
            editor["why"],
            format!("the default for text/plain in {}", mimeapps.display()),
            "{apps}"
        );
        assert_eq!(apps["ok"], true, "{apps}");
    }
    // A default that is not installed is skipped: the next one in the list counts.
    std::fs::write(
        &mimeapps,
        "[Default Applications]\ntext/plain=org.gnome.TextEditor.desktop;org.xfce.mousepad.desktop;\n",
    )
    .unwrap();
    assert_eq!(
        doctor_check(&d, "apps")["data"]["editor"]["app"],
        "org.xfce.mousepad.desktop"
    );

    // The policy: the configured deny list replaces the default; read_only is the default.
    let policy = doctor_check(&d, "policy");
    assert_eq!(
        policy["data"]["deny"],
        serde_json::json!(["keepassxc", "Thunar"]),
        "{policy}"
    );
    assert_eq!(policy["data"]["deny_is_default"], false, "{policy}");
    assert_eq!(policy["data"]["read_only_is_default"], true, "{policy}");
    assert!(
        policy["data"]["read_only"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("xterm")),
        "{policy}"
    );
    let detail = policy["detail"].as_str().unwrap();
    assert!(
        detail.contains("deny: keepassxc, Thunar") && detail.contains("read_only (default): xterm"),
        "{detail}"
    );
}

/// The real `xdg-mime default` (xdg-utils) writes the user's mimeapps.list, and Circe's editor
/// follows it.
#[test]
fn xdg_mime_default_changes_the_editor() {
    assert!(
        Path::new("/usr/bin/xdg-mime").exists(),
        "this test needs xdg-mime: apt-get install xdg-utils (scripts/test installs it)"
    );
    let system = tempfile::tempdir().unwrap();
    let d = daemon("", system.path());
    for id in ["org.gnome.gedit.desktop", "org.xfce.mousepad.desktop"] {
        let out = Command::new("xdg-mime")
            .args(["default", id, "text/plain"])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", system.path())
            .env("XDG_CONFIG_HOME", d.dir.path().join("config"))
            .env("XDG_DATA_HOME", d.dir.path().join("data"))
            .env("XDG_DATA_DIRS", system.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "xdg-mime default {id}: {out:?}");
        let written = std::fs::read_to_string(user_mimeapps(&d)).unwrap();
        assert!(written.contains(&format!("text/plain={id}")), "{written}");
        let apps = doctor_check(&d, "apps");
        assert_eq!(apps["data"]["editor"]["app"], id, "{apps}");
    }
}

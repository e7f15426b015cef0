//! The applications installed on this desktop and its MIME associations, read from the files
//! the XDG specs name (the I/O side of `desktop::entries`, which does the parsing and choosing).
//!
//! Where from: desktop entries under `applications/` of `$XDG_DATA_HOME`, then of each of
//! `$XDG_DATA_DIRS` (the first entry with an id wins, a `Hidden` one hiding the others);
//! association files in the MIME Applications spec's order (`[Env::association_files]`).
//! Bounded: a file over [`MAX_FILE_BYTES`] is skipped, at most [`MAX_ENTRIES`] entries are read,
//! directories at most [`MAX_DEPTH`] deep; every skipped file is named with why.

use super::entries::{parse_associations, parse_entry, Catalog, Entry, Resolution};
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The largest desktop entry or association file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// The most desktop entries read, over every directory.
pub const MAX_ENTRIES: usize = 2_000;
/// How deep subdirectories of `applications/` are read (`applications/kde4/x.desktop` is 1).
pub const MAX_DEPTH: usize = 3;

/// The environment the files are found from: an explicit snapshot, so that what is read does
/// not depend on this process's variables unless asked ([`Env::from_process`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Env {
    /// `$XDG_DATA_HOME` (default `$HOME/.local/share`).
    pub data_home: PathBuf,
    /// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
    pub data_dirs: Vec<PathBuf>,
    /// `$XDG_CONFIG_HOME` (default `$HOME/.config`).
    pub config_home: PathBuf,
    /// `$XDG_CONFIG_DIRS` (default `/etc/xdg`).
    pub config_dirs: Vec<PathBuf>,
    /// `$XDG_CURRENT_DESKTOP`, split on `:` (`ubuntu:GNOME`).
    pub desktops: Vec<String>,
    /// The messages locale: `$LC_ALL`, else `$LC_MESSAGES`, else `$LANG`.
    pub locale: String,
    /// `$PATH`, where a `TryExec` program without a directory is looked for.
    pub path: Vec<PathBuf>,
}

impl Env {
    /// The snapshot from variables (`var` returns a variable's value), with the base directory
    /// spec's defaults for those unset, empty or not absolute.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Env {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        let home = PathBuf::from(set("HOME").unwrap_or_else(|| "/".into()));
        let dir = |name: &str, fallback: PathBuf| {
            set(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or(fallback)
        };
        let dirs = |name: &str, fallback: &str| {
            let listed: Vec<PathBuf> = set(name)
                .unwrap_or_default()
                .split(':')
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .collect();
            if listed.is_empty() {
                fallback.split(':').map(PathBuf::from).collect()
            } else {
                listed
            }
        };
        Env {
            data_home: dir("XDG_DATA_HOME", home.join(".local/share")),
            data_dirs: dirs("XDG_DATA_DIRS", "/usr/local/share:/usr/share"),
            config_home: dir("XDG_CONFIG_HOME", home.join(".config")),
            config_dirs: dirs("XDG_CONFIG_DIRS", "/etc/xdg"),
            desktops: set("XDG_CURRENT_DESKTOP")
                .unwrap_or_default()
                .split(':')
                .filter(|d| !d.is_empty())
                .map(str::to_string)
                .collect(),
            locale: set("LC_ALL")
                .or_else(|| set("LC_MESSAGES"))
                .or_else(|| set("LANG"))
                .unwrap_or_default(),
            path: set("PATH")
                .unwrap_or_default()
                .split(':')
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .collect(),
        }
    }

    /// The snapshot of this process's environment.
    pub fn from_process() -> Env {
        Env::from_vars(|name| std::env::var(name).ok())
    }

    /// The `applications/` directories, highest precedence first.
    pub fn application_dirs(&self) -> Vec<PathBuf> {
        std::iter::once(&self.data_home)
            .chain(&self.data_dirs)
            .map(|d| d.join("applications"))
            .collect()
    }

    /// The association files, highest precedence first (MIME Applications spec 1.0.1): in
    /// `$XDG_CONFIG_HOME`, then each of `$XDG_CONFIG_DIRS`, then each `applications/` directory,
    /// the desktop-specific `$desktop-mimeapps.list` (desktop in lower case) before
    /// `mimeapps.list`; the older `defaults.list` of each `applications/` directory last.
    pub fn association_files(&self) -> Vec<PathBuf> {
        let names: Vec<String> = self
            .desktops
            .iter()
            .map(|d| format!("{}-mimeapps.list", d.to_lowercase()))
            .chain(std::iter::once("mimeapps.list".to_string()))
            .collect();
        let dirs: Vec<PathBuf> = std::iter::once(self.config_home.clone())
            .chain(self.config_dirs.iter().cloned())
            .chain(self.application_dirs())
            .collect();
        let mut files: Vec<PathBuf> = dirs
            .iter()
            .flat_map(|d| names.iter().map(move |n| d.join(n)))
            .collect();
        files.extend(
            self.application_dirs()
                .iter()
                .map(|d| d.join("defaults.list")),
        );
        files
    }

    /// Whether a `TryExec` program exists and is executable (a name without `/` is looked for
    /// on `path`).
    fn finds(&self, program: &str) -> bool {
        let runnable = |p: &Path| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        };
        if program.contains('/') {
            runnable(Path::new(program))
        } else {
            self.path.iter().any(|d| runnable(&d.join(program)))
        }
    }
}

/// The installed apps and associations, and what was skipped reading them.
#[derive(Clone, Debug, Default)]
pub struct Apps {
    pub catalog: Catalog,
    /// Files not used, each `path: why` (too large, not valid, `TryExec` not found, over the
    /// entry limit).
    pub skipped: Vec<String>,
}

impl Apps {
    /// Read the desktop entries and association files `env` names. Never fails: what cannot be
    /// read is in `skipped`.
    pub fn load(env: &Env) -> Apps {
        let mut apps = Apps {
            catalog: Catalog {
                desktops: env.desktops.clone(),
                ..Catalog::default()
            },
            skipped: Vec::new(),
        };
        let mut seen = BTreeSet::new();
        let mut read = 0;
        for dir in env.application_dirs() {
            let mut files = Vec::new();
            entry_files(&dir, "", 0, &mut files);
            for (id, path) in files {
                if seen.contains(&id) {
                    continue;
                }
                if read == MAX_ENTRIES {
                    apps.skipped.push(format!(
                        "{}: not read, {MAX_ENTRIES} desktop entries were read already",
                        path.display()
                    ));
                    continue;
                }
                read += 1;
                let parsed =
                    bounded_text(&path).and_then(|text| parse_entry(&id, &text, &env.locale));
                match parsed {
                    Ok(entry) => {
                        seen.insert(id);
                        match entry {
                            Entry::App(app) => match &app.try_exec {
                                Some(t) if !env.finds(t) => apps.skipped.push(format!(
                                    "{}: not installed (TryExec {t} not found)",
                                    path.display()
                                )),
                                _ => apps.catalog.apps.push(app),
                            },
                            Entry::Hidden | Entry::Other(_) => {}
                        }
                    }
                    Err(e) => apps.skipped.push(format!("{}: {e}", path.display())),
                }
            }
        }
        for path in env.association_files() {
            if !path.is_file() {
                continue;
            }
            let shown = path.display().to_string();
            match bounded_text(&path).and_then(|text| parse_associations(&shown, &text)) {
                Ok(a) => apps.catalog.associations.push(a),
                Err(e) => apps.skipped.push(format!("{shown}: {e}")),
            }
        }
        apps
    }

    /// What a person's words name ([`Catalog::resolve`]).
    pub fn resolve(&self, words: &str) -> Resolution {
        self.catalog.resolve(words)
    }
}

/// A file's text, refused past [`MAX_FILE_BYTES`] or when it is not UTF-8.
fn bounded_text(path: &Path) -> Result<String, String> {
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot be read ({e})"))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(format!(
            "{size} bytes, larger than the {MAX_FILE_BYTES} bytes read"
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    String::from_utf8(bytes).map_err(|_| "is not UTF-8".to_string())
}

/// The `.desktop` files under `dir`, with their desktop ids (`kde4/x.desktop` → `kde4-x.desktop`),
/// in name order.
fn entry_files(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<(String, PathBuf)>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = read.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if path.is_dir() {
            if depth < MAX_DEPTH {
                entry_files(&path, &format!("{prefix}{name}-"), depth + 1, out);
            }
        } else if name.ends_with(".desktop") {
            out.push((format!("{prefix}{name}"), path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desktop::entries::App;

    fn vars(pairs: &[(&str, &str)]) -> Env {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env::from_vars(|name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    fn paths(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn the_environment_has_the_base_directory_defaults() {
        let e = vars(&[("HOME", "/home/u")]);
        assert_eq!(e.data_home, PathBuf::from("/home/u/.local/share"));
        assert_eq!(e.data_dirs, paths(&["/usr/local/share", "/usr/share"]));
        assert_eq!(e.config_home, PathBuf::from("/home/u/.config"));
        assert_eq!(e.config_dirs, paths(&["/etc/xdg"]));
        assert!(e.desktops.is_empty() && e.locale.is_empty());
        let e = vars(&[
            ("HOME", "/home/u"),
            ("XDG_DATA_HOME", "relative/is/ignored"),
            ("XDG_DATA_DIRS", "/a:rel:/b"),
            ("XDG_CONFIG_HOME", "/cfg"),
            ("XDG_CONFIG_DIRS", ""),
            ("XDG_CURRENT_DESKTOP", "ubuntu:GNOME"),
            ("LANG", "en_US.UTF-8"),
            ("LC_MESSAGES", "de_DE.UTF-8"),
        ]);
        assert_eq!(e.data_home, PathBuf::from("/home/u/.local/share"));
        assert_eq!(e.data_dirs, paths(&["/a", "/b"]));
        assert_eq!(e.config_home, PathBuf::from("/cfg"));
        assert_eq!(e.config_dirs, paths(&["/etc/xdg"]));
        assert_eq!(e.desktops, ["ubuntu", "GNOME"]);
        assert_eq!(e.locale, "de_DE.UTF-8");
        assert_eq!(
            vars(&[("LC_ALL", "fr_FR"), ("LANG", "en_US")]).locale,
            "fr_FR"
        );
    }

    #[test]
    fn association_files_are_in_the_specs_order() {
        let e = vars(&[
            ("XDG_CONFIG_HOME", "/h/c"),
            ("XDG_CONFIG_DIRS", "/etc/xdg"),
            ("XDG_DATA_HOME", "/h/d"),
            ("XDG_DATA_DIRS", "/usr/share"),
            ("XDG_CURRENT_DESKTOP", "XFCE"),
        ]);
        assert_eq!(
            e.association_files(),
            paths(&[
                "/h/c/xfce-mimeapps.list",
                "/h/c/mimeapps.list",
                "/etc/xdg/xfce-mimeapps.list",
                "/etc/xdg/mimeapps.list",
                "/h/d/applications/xfce-mimeapps.list",
                "/h/d/applications/mimeapps.list",
                "/usr/share/applications/xfce-mimeapps.list",
                "/usr/share/applications/mimeapps.list",
                "/h/d/applications/defaults.list",
                "/usr/share/applications/defaults.list",
            ])
        );
    }

    /// A temporary home with its own data and config directories and an empty system data dir.
    struct Home {
        dir: tempfile::TempDir,
    }

    impl Home {
        fn new() -> Home {
            Home {
                dir: tempfile::tempdir().unwrap(),
            }
        }

        fn write(&self, rel: &str, text: &str) {
            let path = self.dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }

        fn env(&self, desktop: &str) -> Env {
            let d = self.dir.path().to_str().unwrap().to_string();
            vars(&[
                ("HOME", &d),
                ("XDG_DATA_HOME", &format!("{d}/data")),
                ("XDG_DATA_DIRS", &format!("{d}/sys")),
                ("XDG_CONFIG_HOME", &format!("{d}/config")),
                ("XDG_CONFIG_DIRS", &format!("{d}/etc")),
                ("XDG_CURRENT_DESKTOP", desktop),
                ("LANG", "de_DE.UTF-8"),
                ("PATH", &format!("{d}/bin")),
            ])
        }
    }

    fn entry(name: &str, exec: &str, extra: &str) -> String {
        format!("[Desktop Entry]\nType=Application\nName={name}\nExec={exec}\n{extra}\n")
    }

    fn one(r: Resolution) -> (String, String) {
        match r {
            Resolution::One(app, why) => (app.id, why),
            other => panic!("not one app: {other:?}"),
        }
    }

    fn ids(apps: &[App]) -> Vec<&str> {
        apps.iter().map(|a| a.id.as_str()).collect()
    }

    #[test]
    fn entries_and_associations_are_read_from_real_files() {
        let h = Home::new();
        let editor = "MimeType=text/plain;\nCategories=Utility;TextEditor;";
        h.write(
            "data/applications/org.xfce.mousepad.desktop",
            &entry("Mousepad", "mousepad %U", editor),
        );
        h.write(
            "sys/applications/org.gnome.gedit.desktop",
            &entry(
                "gedit",
                "gedit %U",
                &format!("{editor}\nName[de]=Gedit-Editor"),
            ),
        );
        // A lower-precedence entry with the same id is not used.
        h.write(
            "sys/applications/org.xfce.mousepad.desktop",
            &entry("Old Mousepad", "old-mousepad", editor),
        );
        // Hidden in the user's directory: the system one is gone too.
        h.write(
            "data/applications/thunar.desktop",
            "[Desktop Entry]\nType=Application\nName=Thunar\nExec=thunar\nHidden=true\n",
        );
        h.write(
            "sys/applications/thunar.desktop",
            &entry("Thunar", "thunar %F", "Categories=FileManager;"),
        );
        // A subdirectory's entries are prefixed.
        h.write(
            "sys/applications/kde4/kate.desktop",
            &entry("Kate", "kate %U", ""),
        );
        // TryExec found on PATH, and not found.
        h.write("bin/nautilus", "#!/bin/sh\n");
        std::fs::set_permissions(
            h.dir.path().join("bin/nautilus"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        h.write(
            "sys/applications/org.gnome.Nautilus.desktop",
            &entry(
                "Files",
                "nautilus %U",
                "TryExec=nautilus\nMimeType=inode/directory;\nCategories=FileManager;",
            ),
        );
        h.write(
            "sys/applications/pcmanfm.desktop",
            &entry(
                "PCManFM",
                "pcmanfm %U",
                "TryExec=pcmanfm\nMimeType=inode/directory;",
            ),
        );
        // Not valid, too large, not an application.
        h.write(
            "sys/applications/broken.desktop",
            "[Desktop Entry]\nType=Application\nExec=x\n",
        );
        h.write(
            "sys/applications/huge.desktop",
            &format!(
                "{}# {}\n",
                entry("Huge", "huge", ""),
                "x".repeat(MAX_FILE_BYTES as usize)
            ),
        );
        h.write(
            "sys/applications/site.desktop",
            "[Desktop Entry]\nType=Link\nName=Site\nURL=https://x.example/\n",
        );

        let apps = Apps::load(&h.env("XFCE"));
        assert_eq!(
            ids(&apps.catalog.apps),
            [
                "org.xfce.mousepad.desktop",
                "kde4-kate.desktop",
                "org.gnome.Nautilus.desktop",
                "org.gnome.gedit.desktop",
            ]
        );
        let gedit = apps.catalog.app("org.gnome.gedit.desktop").unwrap();
        assert_eq!(gedit.name, "Gedit-Editor", "the name in LANG's language");
        assert_eq!(
            apps.catalog.app("org.xfce.mousepad.desktop").unwrap().name,
            "Mousepad"
        );
        let skipped = apps.skipped.join("\n");
        for says in [
            "broken.desktop: it has no Name",
            "huge.desktop: ",
            "larger than the 65536 bytes read",
            "pcmanfm.desktop: not installed (TryExec pcmanfm not found)",
        ] {
            assert!(
                skipped.contains(says),
                "skipped does not say {says:?}:\n{skipped}"
            );
        }
        assert_eq!(apps.skipped.len(), 3, "{skipped}");

        // No association file: two editors, ask; the one file manager that opens directories.
        match apps.resolve("the editor") {
            Resolution::Ask(a) => assert_eq!(
                ids(&a),
                ["org.xfce.mousepad.desktop", "org.gnome.gedit.desktop"]
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            one(apps.resolve("the file manager")).0,
            "org.gnome.Nautilus.desktop"
        );

        // The system's default, then the user's, then the user's for this desktop.
        h.write(
            "sys/applications/defaults.list",
            "[Default Applications]\ntext/plain=org.gnome.gedit.desktop\n",
        );
        let (id, why) = one(Apps::load(&h.env("XFCE")).resolve("the editor"));
        assert_eq!(id, "org.gnome.gedit.desktop");
        assert!(why.ends_with("sys/applications/defaults.list"), "{why}");
        h.write(
            "config/mimeapps.list",
            "[Default Applications]\ntext/plain=org.xfce.mousepad.desktop\n",
        );
        let (id, why) = one(Apps::load(&h.env("XFCE")).resolve("the editor"));
        assert_eq!(id, "org.xfce.mousepad.desktop");
        assert!(why.ends_with("config/mimeapps.list"), "{why}");
        h.write(
            "config/xfce-mimeapps.list",
            "[Default Applications]\ntext/plain=kde4-kate.desktop\n",
        );
        assert_eq!(
            one(Apps::load(&h.env("XFCE")).resolve("the editor")).0,
            "kde4-kate.desktop"
        );
        assert_eq!(
            one(Apps::load(&h.env("GNOME")).resolve("the editor")).0,
            "org.xfce.mousepad.desktop"
        );
        // A bad association file is named and the rest still count.
        h.write(
            "config/xfce-mimeapps.list",
            "text/plain=kde4-kate.desktop\n",
        );
        let apps = Apps::load(&h.env("XFCE"));
        assert_eq!(
            one(apps.resolve("the editor")).0,
            "org.xfce.mousepad.desktop"
        );
        assert!(
            apps.skipped
                .iter()
                .any(|s| s.contains("xfce-mimeapps.list: line 1")),
            "{:?}",
            apps.skipped
        );
    }

    #[test]
    fn at_most_the_entry_limit_is_read() {
        let h = Home::new();
        for i in 0..MAX_ENTRIES + 3 {
            h.write(
                &format!("sys/applications/app{i:05}.desktop"),
                &entry(&format!("App {i}"), "app", ""),
            );
        }
        let apps = Apps::load(&h.env(""));
        assert_eq!(apps.catalog.apps.len(), MAX_ENTRIES);
        assert_eq!(apps.skipped.len(), 3);
        assert!(
            apps.skipped[0]
                .contains("app02000.desktop: not read, 2000 desktop entries were read already"),
            "{}",
            apps.skipped[0]
        );
    }
}

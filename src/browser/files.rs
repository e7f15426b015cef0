//! Which file an upload's words mean: one existing regular file the user can read.
//!
//! An absolute path or `~/…` is that file. A bare name ("report.pdf") is looked up, in order of
//! places, among (a) the files the file manager shows (its selection first), (b) the GTK recent
//! files (`$XDG_DATA_HOME/recently-used.xbel`), (c) `~/Documents`, `~/Downloads`, `~/Desktop` and
//! the home folder itself (one level each). One match is the file; several are a question (a
//! closed choice of their paths); none is said plainly. "The file I selected" is the file
//! manager's selection (one; several → a question). Nothing is invented: every path offered or
//! used was found on disk just now.

use std::path::{Path, PathBuf};

use crate::desktop::{DesktopSession, Page};
use crate::director::upload::File;

/// The most paths one question offers.
pub const MAX_CHOICES: usize = 3;

/// Where bare names are looked up.
#[derive(Debug, Clone, Default)]
pub struct Places {
    pub home: Option<PathBuf>,
    /// `$XDG_DATA_HOME` (default `~/.local/share`), where `recently-used.xbel` is.
    pub data_home: Option<PathBuf>,
    /// Circe's own folders (its store, keys, secret, config): nothing in them goes to a page.
    pub private: Vec<PathBuf>,
}

impl Places {
    /// The places of the user this daemon runs as; `private`: Circe's own folders.
    pub fn from_env(private: Vec<PathBuf>) -> Places {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let data_home = std::env::var_os("XDG_DATA_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".local/share")));
        Places {
            home,
            data_home,
            private,
        }
    }
}

/// What the words came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The one file: its path and size in bytes.
    File(PathBuf, u64),
    /// Several files fit: ask which (at most [`MAX_CHOICES`] paths; `more` were left out).
    Ask { paths: Vec<PathBuf>, more: usize },
    /// Nothing fits, or what fits cannot be used: why, in words.
    Refused(String),
}

/// The files the file manager shows: (path, selected). Empty when none is open or the desktop
/// cannot be read (`Err` says why).
pub async fn shown_in_file_manager(
    desktop: &dyn DesktopSession,
) -> Result<Vec<(PathBuf, bool)>, String> {
    let windows = desktop.windows().await.map_err(|e| e.to_string())?;
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    // The person's file manager (its windows by the names it has on the accessibility bus).
    let manager = crate::desktop::general::AppRules::new(Default::default()).file_manager();
    for w in windows
        .iter()
        .filter(|w| manager.owns(w) && w.kind == "window")
    {
        let obs = desktop
            .observe(w, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        for (p, selected) in crate::desktop::executor::files_in(&obs) {
            match out.iter_mut().find(|(q, _)| *q == p) {
                Some(slot) => slot.1 |= selected,
                None => out.push((p, selected)),
            }
        }
    }
    Ok(out)
}

/// The file the words mean. `shown` is what the file manager shows (`Err`: why it could not be
/// read); `chosen` is the path the person picked in an earlier question, which must still be
/// one of the files that fit.
pub fn resolve(
    file: &File,
    places: &Places,
    shown: &Result<Vec<(PathBuf, bool)>, String>,
    chosen: Option<&str>,
) -> Resolved {
    let fits: Vec<PathBuf> = match file {
        File::Selected => match shown {
            Err(why) => {
                return Resolved::Refused(format!(
                    "the file manager's selection could not be read ({why}); nothing was done"
                ))
            }
            Ok(files) if files.is_empty() => {
                return Resolved::Refused(
                    "no file manager window shows any file, so there is no selected file; nothing was done"
                        .into(),
                )
            }
            Ok(files) => {
                let selected: Vec<PathBuf> = files
                    .iter()
                    .filter(|(_, s)| *s)
                    .map(|(p, _)| p.clone())
                    .collect();
                if selected.is_empty() {
                    return Resolved::Refused(
                        "no file is selected in the file manager; nothing was done".into(),
                    );
                }
                selected
            }
        },
        File::Named(words) => match path_of(words, places) {
            Some(Ok(path)) => vec![path],
            Some(Err(why)) => return Resolved::Refused(why),
            None => {
                let shown = shown.as_ref().map(Vec::as_slice).unwrap_or_default();
                let found = look_up(words, places, shown);
                if found.is_empty() {
                    return Resolved::Refused(format!(
                        "no file named \"{words}\" is in the file manager, the recent files, Documents, Downloads, Desktop or the home folder; say its whole path. Nothing was done"
                    ));
                }
                found
            }
        },
    };
    let pick = match chosen {
        Some(c) => match fits.iter().find(|p| p.as_os_str() == c) {
            Some(p) => p.clone(),
            None => {
                return Resolved::Refused(format!(
                    "{c} no longer fits what you asked for; nothing was done"
                ))
            }
        },
        None if fits.len() > 1 => {
            let more = fits.len().saturating_sub(MAX_CHOICES);
            return Resolved::Ask {
                paths: fits.into_iter().take(MAX_CHOICES).collect(),
                more,
            };
        }
        None => fits[0].clone(),
    };
    if let Some(dir) = inside(&pick, &places.private) {
        return Resolved::Refused(format!(
            "{} is in Circe's own folder {} (its store, keys and settings), which Circe never gives to a page; nothing was done",
            pick.display(),
            dir.display()
        ));
    }
    match readable(&pick) {
        Ok(size) => Resolved::File(pick, size),
        Err(why) => Resolved::Refused(why),
    }
}

/// The folder of `dirs` that holds `path` (links followed), if one does.
fn inside<'d>(path: &Path, dirs: &'d [PathBuf]) -> Option<&'d PathBuf> {
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    dirs.iter().find(|d| {
        let d_real = d.canonicalize().unwrap_or_else(|_| d.to_path_buf());
        real.starts_with(&d_real) || path.starts_with(d)
    })
}

/// A path said in full: `/…` or `~/…` (`None` for a bare name). A relative path with folders
/// is refused: from where would it start?
fn path_of(words: &str, places: &Places) -> Option<Result<PathBuf, String>> {
    if words.starts_with('/') {
        return Some(Ok(PathBuf::from(words)));
    }
    if let Some(rest) = words.strip_prefix("~/") {
        return Some(match &places.home {
            Some(home) => Ok(home.join(rest)),
            None => Err("the home folder is not known (HOME is not set); say the whole path from /. Nothing was done".into()),
        });
    }
    if words.contains('/') {
        return Some(Err(format!(
            "\"{words}\" is a path from no known folder; say it from / or ~/. Nothing was done"
        )));
    }
    None
}

/// An existing regular file this user can read: its size in bytes.
fn readable(path: &Path) -> Result<u64, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("there is no file {shown}; nothing was done"),
        _ => format!("{shown} cannot be read ({e}); nothing was done"),
    })?;
    if !meta.is_file() {
        return Err(format!("{shown} is not a file; nothing was done"));
    }
    std::fs::File::open(path)
        .map_err(|e| format!("{shown} cannot be read ({e}); nothing was done"))?;
    Ok(meta.len())
}

/// The files named `name` (letter case aside) in the places, in order, each once.
fn look_up(name: &str, places: &Places, shown: &[(PathBuf, bool)]) -> Vec<PathBuf> {
    let named = |p: &Path| {
        p.file_name()
            .is_some_and(|f| f.to_string_lossy().to_lowercase() == name.to_lowercase())
    };
    let mut candidates: Vec<PathBuf> = Vec::new();
    // The file manager's selection first, then the rest it shows.
    let (selected, rest): (Vec<_>, Vec<_>) = shown.iter().partition(|(_, s)| *s);
    candidates.extend(selected.into_iter().chain(rest).map(|(p, _)| p.clone()));
    if let Some(data) = &places.data_home {
        candidates.extend(recent_files(&data.join("recently-used.xbel")));
    }
    if let Some(home) = &places.home {
        for dir in ["Documents", "Downloads", "Desktop", ""] {
            let dir = if dir.is_empty() {
                home.clone()
            } else {
                home.join(dir)
            };
            if let Ok(entries) = std::fs::read_dir(&dir) {
                let mut here: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                here.sort();
                candidates.extend(here);
            }
        }
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for p in candidates.into_iter().filter(|p| named(p) && p.is_file()) {
        let same = |q: &PathBuf| {
            *q == p || matches!((q.canonicalize(), p.canonicalize()), (Ok(a), Ok(b)) if a == b)
        };
        if !out.iter().any(same) {
            out.push(p);
        }
    }
    out
}

/// The local files of a GTK recent-files list (`<bookmark href="file:///…">`), newest first as
/// listed; anything unreadable is no recent file.
pub fn recent_files(xbel: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(xbel) else {
        return Vec::new();
    };
    bookmarks(&text)
}

/// The `file://` hrefs of `<bookmark>` elements, as paths.
fn bookmarks(xbel: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for chunk in xbel.split("<bookmark").skip(1) {
        // The element's own attributes only, not a child's.
        let head = chunk.split('>').next().unwrap_or("");
        let Some(at) = head.find("href=") else {
            continue;
        };
        let rest = &head[at + 5..];
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        let Some(end) = rest[1..].find(quote) else {
            continue;
        };
        let href = xml_unescape(&rest[1..1 + end]);
        if let Some(path) = href.strip_prefix("file://") {
            // A host part ("file://host/…") other than none or localhost is no local file.
            let path = path.strip_prefix("localhost").unwrap_or(path);
            if let (true, Some(p)) = (
                path.starts_with('/'),
                crate::director::text::percent_decode(path),
            ) {
                out.push(PathBuf::from(p));
            }
        }
    }
    out
}

fn xml_unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_are_the_bookmarks_local_paths() {
        let xbel = r#"<?xml version="1.0" encoding="UTF-8"?>
<xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks">
  <bookmark href="file:///home/me/My%20Docs/report.pdf" added="2026-01-01T00:00:00Z">
    <info><metadata owner="http://freedesktop.org"><mime:mime-type type="application/pdf"/></metadata></info>
  </bookmark>
  <bookmark href="https://example.org/x.pdf" added="2026-01-01T00:00:00Z"/>
  <bookmark href='file://localhost/tmp/a&amp;b.txt'/>
  <bookmark href="file:///bad%zz"/>
</xbel>"#;
        assert_eq!(
            bookmarks(xbel),
            vec![
                PathBuf::from("/home/me/My Docs/report.pdf"),
                PathBuf::from("/tmp/a&b.txt")
            ]
        );
    }

    #[test]
    fn names_paths_and_the_selection_resolve_to_files_that_exist() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        for d in ["Documents", "Downloads", ".local/share"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::write(home.join("Documents/report.pdf"), b"12345").unwrap();
        std::fs::write(home.join("Downloads/report.pdf"), b"abc").unwrap();
        std::fs::write(home.join("Documents/notes.md"), b"# notes").unwrap();
        let places = Places {
            home: Some(home.clone()),
            data_home: Some(home.join(".local/share")),
            private: vec![home.join(".local/share/circe")],
        };
        let none: Result<Vec<(PathBuf, bool)>, String> = Ok(Vec::new());
        let named = |w: &str| File::Named(w.into());
        assert_eq!(
            resolve(&named("notes.md"), &places, &none, None),
            Resolved::File(home.join("Documents/notes.md"), 7)
        );
        assert_eq!(
            resolve(&named("~/Documents/notes.md"), &places, &none, None),
            Resolved::File(home.join("Documents/notes.md"), 7)
        );
        assert_eq!(
            resolve(&named("report.pdf"), &places, &none, None),
            Resolved::Ask {
                paths: vec![
                    home.join("Documents/report.pdf"),
                    home.join("Downloads/report.pdf")
                ],
                more: 0
            }
        );
        let chosen = home.join("Downloads/report.pdf");
        assert_eq!(
            resolve(&named("report.pdf"), &places, &none, chosen.to_str()),
            Resolved::File(chosen.clone(), 3)
        );
        assert!(matches!(
            resolve(&named("report.pdf"), &places, &none, Some("/etc/passwd")),
            Resolved::Refused(_)
        ));
        assert!(matches!(
            resolve(&named("missing.pdf"), &places, &none, None),
            Resolved::Refused(why) if why.contains("no file named \"missing.pdf\"")
        ));
        assert!(matches!(
            resolve(&named("/nowhere/cv.pdf"), &places, &none, None),
            Resolved::Refused(why) if why.contains("there is no file /nowhere/cv.pdf")
        ));
        assert!(matches!(
            resolve(&named("~/Documents"), &places, &none, None),
            Resolved::Refused(_)
        ));
        assert!(matches!(
            resolve(&named("docs/cv.pdf"), &places, &none, None),
            Resolved::Refused(_)
        ));
        // The selection: exactly one selected file, else a question or a refusal.
        let shown = Ok(vec![
            (home.join("Documents/notes.md"), true),
            (home.join("Documents/report.pdf"), false),
        ]);
        assert_eq!(
            resolve(&File::Selected, &places, &shown, None),
            Resolved::File(home.join("Documents/notes.md"), 7)
        );
        assert!(matches!(
            resolve(&File::Selected, &places, &none, None),
            Resolved::Refused(_)
        ));
        assert!(matches!(
            resolve(&File::Selected, &places, &Err("no desktop".into()), None),
            Resolved::Refused(why) if why.contains("no desktop")
        ));
        // Circe's own files never go to a page, by a path or through a link.
        std::fs::create_dir_all(home.join(".local/share/circe")).unwrap();
        std::fs::write(home.join(".local/share/circe/browser.secret"), b"s").unwrap();
        std::os::unix::fs::symlink(
            home.join(".local/share/circe/browser.secret"),
            home.join("Documents/secret.txt"),
        )
        .unwrap();
        for words in ["~/.local/share/circe/browser.secret", "secret.txt"] {
            assert!(
                matches!(
                    resolve(&named(words), &places, &none, None),
                    Resolved::Refused(why) if why.contains("Circe's own folder")
                ),
                "{words}"
            );
        }
        // A recent file is found by its name, even outside the usual folders.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("minutes.txt"), b"m").unwrap();
        std::fs::write(
            home.join(".local/share/recently-used.xbel"),
            format!(
                "<xbel><bookmark href=\"file://{}\"/></xbel>",
                elsewhere.join("minutes.txt").display()
            ),
        )
        .unwrap();
        assert_eq!(
            resolve(&named("minutes.txt"), &places, &none, None),
            Resolved::File(elsewhere.join("minutes.txt"), 1)
        );
    }
}

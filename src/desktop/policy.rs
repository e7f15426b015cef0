//! Which applications Circe may control (pure): `[desktop] deny` (never touched) and
//! `[desktop] read_only` (observed, never changed), matched case-insensitively against an app's
//! id, program or name, or an application's accessible name.

use super::entries::App;

/// The password managers Circe never touches unless `[desktop] deny` says otherwise.
pub const DEFAULT_DENY: &[&str] = &[
    "keepassxc",
    "keepassx",
    "keepass2",
    "bitwarden",
    "1password",
    "seahorse",
];

/// The terminals Circe may read but never change unless `[desktop] read_only` says otherwise.
pub const DEFAULT_READ_ONLY: &[&str] = &[
    "xterm",
    "uxterm",
    "gnome-terminal",
    "konsole",
    "xfce4-terminal",
    "tilix",
    "alacritty",
    "kitty",
    "terminator",
    "lxterminal",
    "foot",
    "wezterm",
    "qterminal",
];

/// The two lists, and whether each is the default (no key in the config) or the config's own.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Policy {
    pub deny: Vec<String>,
    pub read_only: Vec<String>,
    pub deny_is_default: bool,
    pub read_only_is_default: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new(None, None)
    }
}

impl Policy {
    /// The policy from the config's lists; a list left out is its default, an explicit list
    /// (even an empty one) replaces it.
    pub fn new(deny: Option<Vec<String>>, read_only: Option<Vec<String>>) -> Policy {
        let or_default = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        Policy {
            deny_is_default: deny.is_none(),
            read_only_is_default: read_only.is_none(),
            deny: deny.unwrap_or_else(|| or_default(DEFAULT_DENY)),
            read_only: read_only.unwrap_or_else(|| or_default(DEFAULT_READ_ONLY)),
        }
    }
}

/// What a decision is about: an installed app, or an application known only by its accessible
/// name (AT-SPI: `mousepad`, `org.keepassxc.KeePassXC`).
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    App(&'a App),
    Accessible(&'a str),
}

impl Subject<'_> {
    fn is_called(&self, entry: &str) -> bool {
        match self {
            Subject::App(app) => app.is_called(entry),
            Subject::Accessible(name) => {
                let entry = entry.trim();
                let name = name.trim();
                !entry.is_empty()
                    && (name.eq_ignore_ascii_case(entry)
                        || name
                            .rsplit('.')
                            .next()
                            .unwrap_or(name)
                            .eq_ignore_ascii_case(entry))
            }
        }
    }

    fn shown(&self) -> &str {
        match self {
            Subject::App(app) => &app.name,
            Subject::Accessible(name) => name,
        }
    }
}

/// Whether Circe may act on `subject`: observing (`mutating` false) or changing it (`mutating`
/// true). A denied app is refused either way, a read-only one only when mutating; the refusal
/// says which list, which entry, and what Circe does not do.
pub fn decide(policy: &Policy, subject: Subject, mutating: bool) -> Result<(), String> {
    if let Some(entry) = policy.deny.iter().find(|e| subject.is_called(e)) {
        return Err(format!(
            "{} is on the deny list ({entry:?}) in [desktop] deny of config.toml{}; Circe does not control it",
            subject.shown(),
            default_note(policy.deny_is_default)
        ));
    }
    if mutating {
        if let Some(entry) = policy.read_only.iter().find(|e| subject.is_called(e)) {
            return Err(format!(
                "{} is read-only ({entry:?}) in [desktop] read_only of config.toml{}; Circe may read it but does not change it",
                subject.shown(),
                default_note(policy.read_only_is_default)
            ));
        }
    }
    Ok(())
}

/// Said after a list that is the default, so a person knows writing one replaces it.
fn default_note(default: bool) -> &'static str {
    if default {
        " (the default; an explicit list replaces it)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desktop::entries::{parse_entry, Entry};

    fn app(id: &str, name: &str, exec: &str) -> App {
        let text = format!("[Desktop Entry]\nType=Application\nName={name}\nExec={exec}\n");
        match parse_entry(id, &text, "") {
            Ok(Entry::App(a)) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_default_lists_deny_password_managers_and_keep_terminals_read_only() {
        let policy = Policy::default();
        assert!(policy.deny_is_default && policy.read_only_is_default);
        let keepass = app(
            "org.keepassxc.KeePassXC.desktop",
            "KeePassXC",
            "keepassxc %f",
        );
        let xterm = app("debian-xterm.desktop", "XTerm", "xterm");
        let mousepad = app("org.xfce.mousepad.desktop", "Mousepad", "mousepad %U");
        // (subject, mutating, Ok or what the refusal says)
        type Row<'a> = (Subject<'a>, bool, Result<(), &'a [&'a str]>);
        let table: Vec<Row> = vec![
            (
                Subject::App(&keepass),
                false,
                Err(&[
                    "KeePassXC is on the deny list (\"keepassxc\") in [desktop] deny of config.toml",
                    "the default",
                    "Circe does not control it",
                ]),
            ),
            (Subject::App(&keepass), true, Err(&["deny list"])),
            (Subject::Accessible("org.keepassxc.KeePassXC"), false, Err(&["deny list"])),
            (Subject::Accessible("Seahorse"), false, Err(&["deny list (\"seahorse\")"])),
            (Subject::App(&xterm), false, Ok(())),
            (
                Subject::App(&xterm),
                true,
                Err(&[
                    "XTerm is read-only (\"xterm\") in [desktop] read_only of config.toml",
                    "Circe may read it but does not change it",
                ]),
            ),
            (Subject::Accessible("gnome-terminal"), true, Err(&["read-only"])),
            (Subject::Accessible("gnome-terminal-server"), true, Ok(())),
            (Subject::App(&mousepad), true, Ok(())),
            (Subject::Accessible("mousepad"), true, Ok(())),
            (Subject::Accessible(""), true, Ok(())),
        ];
        for (subject, mutating, want) in table {
            match (decide(&policy, subject, mutating), want) {
                (Ok(()), Ok(())) => {}
                (Err(got), Err(says)) => {
                    for s in says {
                        assert!(got.contains(s), "{subject:?}: {got:?} does not say {s:?}");
                    }
                }
                (got, want) => panic!("{subject:?} mutating {mutating}: {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn an_explicit_list_replaces_the_default() {
        let policy = Policy::new(Some(vec!["Mousepad".into()]), Some(vec![]));
        assert!(!policy.deny_is_default && !policy.read_only_is_default);
        let mousepad = app("org.xfce.mousepad.desktop", "Mousepad", "mousepad %U");
        let err = decide(&policy, Subject::App(&mousepad), false).unwrap_err();
        assert!(
            err.contains(
                "Mousepad is on the deny list (\"Mousepad\") in [desktop] deny of config.toml;"
            ),
            "{err}"
        );
        assert!(!err.contains("default"), "{err}");
        // The defaults are gone: a password manager and a terminal are now just apps.
        assert_eq!(
            decide(&policy, Subject::Accessible("keepassxc"), true),
            Ok(())
        );
        assert_eq!(decide(&policy, Subject::Accessible("xterm"), true), Ok(()));
    }
}

//! Which applications a desktop has and which one a person means (pure: text in, data out).
//!
//! - Freedesktop desktop entries (the `[Desktop Entry]` group, Desktop Entry Specification 1.5):
//!   [`parse_entry`] turns one file's text into an [`Entry`].
//! - MIME associations (`mimeapps.list`, the older `defaults.list`; XDG MIME Applications
//!   Specification 1.0.1): [`parse_associations`].
//! - What a person says ("the editor", "Mousepad") against the installed apps and the
//!   association files: [`Catalog::resolve`] → [`Resolution`].
//!
//! The I/O side (which files, in which order, from which environment) is `desktop::apps`.

use std::collections::BTreeMap;

/// An application a desktop entry describes, as Circe uses it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct App {
    /// The desktop file id: `org.gnome.gedit.desktop` (a file under `applications/`, its
    /// subdirectories joined with `-`).
    pub id: String,
    /// `Name`, in the locale's language when the entry has it.
    pub name: String,
    /// `GenericName` ("Text Editor"), localized the same way.
    pub generic_name: Option<String>,
    /// The program `exec` starts, without its directory: `gedit`.
    pub program: String,
    /// `Exec` as an argument list, field codes (`%f`, `%U`, …) removed.
    pub exec: Vec<String>,
    /// Where in `exec` the entry's file or URL argument (`%f`, `%F`, `%u`, `%U`) stood, if it
    /// takes one.
    pub file_at: Option<usize>,
    /// `TryExec`: a program that must exist for the app to count as installed.
    pub try_exec: Option<String>,
    /// `StartupWMClass`.
    pub wm_class: Option<String>,
    /// `MimeType`: the types it opens.
    pub mime: Vec<String>,
    /// `Categories`: `TextEditor`, `FileManager`, `WebBrowser`, …
    pub categories: Vec<String>,
    /// `Keywords`, localized.
    pub keywords: Vec<String>,
    /// `NoDisplay`: installed, but not meant to be listed to people.
    pub no_display: bool,
    /// `Terminal`: it runs inside a terminal (its window is the terminal's).
    pub terminal: bool,
    /// `OnlyShowIn` and `NotShowIn`: the desktops (`XFCE`, `GNOME`) it is meant for, or not.
    pub only_show_in: Vec<String>,
    pub not_show_in: Vec<String>,
}

/// What one desktop entry file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `Type=Application`, not hidden.
    App(App),
    /// `Hidden=true`: the entry is deleted, and it hides entries with its id in
    /// lower-precedence directories.
    Hidden,
    /// Another `Type` (`Link`, `Directory`): not an application.
    Other(String),
}

impl App {
    /// The desktop id without `.desktop`: `org.gnome.gedit`.
    pub fn stem(&self) -> &str {
        self.id.strip_suffix(".desktop").unwrap_or(&self.id)
    }

    /// Whether an application's accessible name (AT-SPI: `mousepad`, `Thunar`, `gedit`,
    /// `org.gnome.TextEditor`) is this app: the same as its program, its `StartupWMClass`, its
    /// id without `.desktop`, or the last dotted part of that id, ignoring case.
    pub fn is_named(&self, accessible: &str) -> bool {
        let accessible = accessible.trim();
        !accessible.is_empty()
            && self
                .own_names()
                .iter()
                .any(|n| n.eq_ignore_ascii_case(accessible))
    }

    /// The names that identify this app (not what it is called on screen).
    fn own_names(&self) -> Vec<&str> {
        let mut names = vec![self.program.as_str(), self.stem(), last_dotted(self.stem())];
        if let Some(class) = &self.wm_class {
            names.push(class);
        }
        names
    }

    /// Whether a list entry of the `[desktop]` policy (`keepassxc`) names this app: its id (with
    /// or without `.desktop`), its program, its name, or one of the names [`App::is_named`]
    /// compares, ignoring case.
    pub fn is_called(&self, entry: &str) -> bool {
        let entry = entry.trim();
        self.is_named(entry)
            || self.id.eq_ignore_ascii_case(entry)
            || self.name.to_lowercase() == entry.to_lowercase()
    }

    /// Whether it is meant to be shown on the running desktops (`XDG_CURRENT_DESKTOP`, split on
    /// `:`): not `NoDisplay`, and allowed by `OnlyShowIn` / `NotShowIn`.
    pub fn shown_in(&self, desktops: &[String]) -> bool {
        let on = |list: &[String]| {
            list.iter()
                .any(|d| desktops.iter().any(|c| c.eq_ignore_ascii_case(d)))
        };
        !self.no_display
            && (self.only_show_in.is_empty() || on(&self.only_show_in))
            && !on(&self.not_show_in)
    }

    /// The command that opens `file` (a path or URL) in this app: `exec` with the file where the
    /// entry's `%f`/`%F`/`%u`/`%U` stood, or `exec` alone without a file. An app whose entry takes
    /// no file argument is refused rather than handed one it would ignore.
    pub fn command(&self, file: Option<&str>) -> Result<Vec<String>, String> {
        let mut argv = self.exec.clone();
        match (file, self.file_at) {
            (None, _) => Ok(argv),
            (Some(f), Some(at)) => {
                argv.insert(at.min(argv.len()), f.to_string());
                Ok(argv)
            }
            (Some(_), None) => Err(format!(
                "{} ({}) takes no file: its Exec line has no %f, %F, %u or %U",
                self.name, self.id
            )),
        }
    }
}

fn last_dotted(s: &str) -> &str {
    s.rsplit('.').next().unwrap_or(s)
}

/// The keys a locale (`de_DE.UTF-8@euro`, as in `LANG`) looks up, best first, per the Desktop
/// Entry spec: `lang_COUNTRY@MODIFIER`, `lang_COUNTRY`, `lang@MODIFIER`, `lang`. `C`, `POSIX`
/// and the empty locale look up none (the unlocalized value is used).
pub fn locale_keys(locale: &str) -> Vec<String> {
    let (rest, modifier) = match locale.split_once('@') {
        Some((r, m)) => (r, Some(m)),
        None => (locale, None),
    };
    let rest = rest.split('.').next().unwrap_or("");
    let (lang, country) = match rest.split_once('_') {
        Some((l, c)) => (l, Some(c)),
        None => (rest, None),
    };
    if lang.is_empty() || lang == "C" || lang == "POSIX" {
        return Vec::new();
    }
    let mut keys = Vec::new();
    if let (Some(c), Some(m)) = (country, modifier) {
        keys.push(format!("{lang}_{c}@{m}"));
    }
    if let Some(c) = country {
        keys.push(format!("{lang}_{c}"));
    }
    if let Some(m) = modifier {
        keys.push(format!("{lang}@{m}"));
    }
    keys.push(lang.to_string());
    keys
}

/// The keys of one group: key → (locale or "" → raw value). The first of a repeated key counts.
type Group = BTreeMap<String, BTreeMap<String, String>>;

/// The groups of a desktop-entry-style file (`[Group]`, `Key[locale]=value`, `#` comments).
fn groups(text: &str) -> Result<Vec<(String, Group)>, String> {
    let mut out: Vec<(String, Group)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            let name = name
                .strip_suffix(']')
                .ok_or_else(|| format!("line {}: group header {line:?} has no ']'", n + 1))?;
            out.push((name.to_string(), Group::new()));
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!(
                "line {}: {line:?} is not a key=value line, a [group] or a # comment",
                n + 1
            ));
        };
        let Some((_, group)) = out.last_mut() else {
            return Err(format!(
                "line {}: key {key:?} comes before any group",
                n + 1
            ));
        };
        let key = key.trim();
        let (key, locale) = match key.split_once('[') {
            Some((k, l)) => (
                k,
                l.strip_suffix(']').ok_or_else(|| {
                    format!("line {}: key {key:?} has no ']' after its locale", n + 1)
                })?,
            ),
            None => (key, ""),
        };
        group
            .entry(key.to_string())
            .or_default()
            .entry(locale.to_string())
            .or_insert_with(|| value.trim().to_string());
    }
    Ok(out)
}

/// A string value with the spec's escapes (`\s`, `\n`, `\t`, `\r`, `\\`) undone.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push(' '),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A `;`-separated list (`\;` is a semicolon inside an item), empty items dropped.
fn list(raw: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut item = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(';') => item.push(';'),
                Some(other) => {
                    item.push('\\');
                    item.push(other);
                }
                None => item.push('\\'),
            },
            ';' => items.push(std::mem::take(&mut item)),
            c => item.push(c),
        }
    }
    items.push(item);
    items
        .into_iter()
        .map(|i| unescape(i.trim()))
        .filter(|i| !i.is_empty())
        .collect()
}

/// `Exec` as an argument list: quoting per the spec (double quotes; inside them `\"`, `` \` ``,
/// `\$` and `\\`), field codes removed (`%%` is a `%`). Returns the arguments and where the
/// file or URL argument stood.
pub fn split_exec(value: &str) -> Result<(Vec<String>, Option<usize>), String> {
    let value = unescape(value);
    // (argument, whether any of it was quoted)
    let mut args: Vec<(String, bool)> = Vec::new();
    let mut current: Option<(String, bool)> = None;
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some(a) = current.take() {
                    args.push(a);
                }
            }
            '"' => {
                let arg = current.get_or_insert_with(|| (String::new(), true));
                arg.1 = true;
                loop {
                    match chars.next() {
                        None => return Err(format!("Exec {value:?} has an unclosed quote")),
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '`' | '$' | '\\')) => arg.0.push(e),
                            Some(other) => {
                                arg.0.push('\\');
                                arg.0.push(other);
                            }
                            None => return Err(format!("Exec {value:?} has an unclosed quote")),
                        },
                        Some(other) => arg.0.push(other),
                    }
                }
            }
            c => current
                .get_or_insert_with(|| (String::new(), false))
                .0
                .push(c),
        }
    }
    if let Some(a) = current.take() {
        args.push(a);
    }
    let mut out = Vec::new();
    let mut file_at = None;
    for (arg, quoted) in args {
        if quoted {
            out.push(arg);
            continue;
        }
        let mut kept = String::new();
        let mut chars = arg.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                kept.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => kept.push('%'),
                Some('f' | 'F' | 'u' | 'U') => {
                    file_at.get_or_insert(out.len());
                }
                Some('i' | 'c' | 'k' | 'd' | 'D' | 'n' | 'N' | 'v' | 'm') => {}
                Some(other) => {
                    return Err(format!(
                        "Exec {value:?} has %{other}, which is not a field code"
                    ))
                }
                None => return Err(format!("Exec {value:?} ends with a lone %")),
            }
        }
        if !kept.is_empty() {
            out.push(kept);
        }
    }
    if out.is_empty() {
        return Err(format!("Exec {value:?} names no program"));
    }
    Ok((out, file_at))
}

/// The program an argument list starts, without its directory (`env VAR=x gedit` starts
/// `gedit`).
fn program_of(exec: &[String]) -> String {
    let mut args = exec.iter().map(String::as_str);
    let mut first = args.next().unwrap_or("");
    if first.rsplit('/').next() == Some("env") {
        if let Some(next) = args.find(|a| !a.contains('=') && !a.starts_with('-')) {
            first = next;
        }
    }
    first.rsplit('/').next().unwrap_or(first).to_string()
}

/// One desktop entry file: `id` is its desktop file id, `locale` chooses the localized `Name`,
/// `GenericName` and `Keywords` (as in `LANG`). Errors name what is wrong.
pub fn parse_entry(id: &str, text: &str, locale: &str) -> Result<Entry, String> {
    let groups = groups(text)?;
    let group = groups
        .iter()
        .find(|(name, _)| name == "Desktop Entry")
        .map(|(_, g)| g)
        .ok_or("it has no [Desktop Entry] group")?;
    let keys = locale_keys(locale);
    let localized = |key: &str| -> Option<String> {
        let values = group.get(key)?;
        keys.iter()
            .find_map(|k| values.get(k))
            .or_else(|| values.get(""))
            .map(|v| v.to_string())
    };
    let string = |key: &str| {
        localized(key)
            .map(|v| unescape(&v))
            .filter(|v| !v.is_empty())
    };
    let raw = |key: &str| group.get(key).and_then(|v| v.get("")).map(String::as_str);
    let boolean = |key: &str| -> Result<bool, String> {
        match raw(key) {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(format!("{key}={other:?} is neither true nor false")),
        }
    };
    // A user's override that only hides an entry often has nothing but `Hidden=true`.
    if boolean("Hidden")? {
        return Ok(Entry::Hidden);
    }
    let kind = raw("Type").ok_or("it has no Type")?;
    if kind != "Application" {
        return Ok(Entry::Other(kind.to_string()));
    }
    let name = string("Name").ok_or("it has no Name")?;
    let exec = raw("Exec").ok_or("it has no Exec")?;
    let (exec, file_at) = split_exec(exec)?;
    let listed = |key: &str| raw(key).map(list).unwrap_or_default();
    Ok(Entry::App(App {
        id: id.to_string(),
        name,
        generic_name: string("GenericName"),
        program: program_of(&exec),
        exec,
        file_at,
        try_exec: raw("TryExec")
            .map(unescape)
            .filter(|t| !t.trim().is_empty()),
        wm_class: raw("StartupWMClass")
            .map(unescape)
            .filter(|c| !c.is_empty()),
        mime: listed("MimeType"),
        categories: listed("Categories"),
        keywords: localized("Keywords").map(|k| list(&k)).unwrap_or_default(),
        no_display: boolean("NoDisplay")?,
        terminal: boolean("Terminal")?,
        only_show_in: listed("OnlyShowIn"),
        not_show_in: listed("NotShowIn"),
    }))
}

/// One `mimeapps.list` (or `defaults.list`): MIME type → desktop ids, per group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Associations {
    /// Where it was read from, for saying why an app was chosen.
    pub file: String,
    /// `[Default Applications]`: the preferred apps, best first.
    pub default: BTreeMap<String, Vec<String>>,
    /// `[Added Associations]`.
    pub added: BTreeMap<String, Vec<String>>,
    /// `[Removed Associations]`: not to be used for the type (from this file or any below it).
    pub removed: BTreeMap<String, Vec<String>>,
}

/// A `mimeapps.list` or `defaults.list`; `file` is where it was read from. Other groups are
/// ignored.
pub fn parse_associations(file: &str, text: &str) -> Result<Associations, String> {
    let mut out = Associations {
        file: file.to_string(),
        ..Associations::default()
    };
    for (name, group) in groups(text)? {
        let target = match name.as_str() {
            "Default Applications" => &mut out.default,
            "Added Associations" => &mut out.added,
            "Removed Associations" => &mut out.removed,
            _ => continue,
        };
        for (mime, values) in group {
            if let Some(v) = values.get("") {
                target.entry(mime).or_insert_with(|| list(v));
            }
        }
    }
    Ok(out)
}

/// What a person's words came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// This app, and why it is the one (in words).
    One(App, String),
    /// Several apps fit and none is the default: ask which.
    Ask(Vec<App>),
    /// Nothing fits; the reason in words.
    None(String),
}

/// A kind of application a person names by what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Editor,
    FileManager,
    Browser,
}

impl Role {
    /// Every role, for tables and `circe doctor`.
    pub const ALL: [Role; 3] = [Role::Editor, Role::FileManager, Role::Browser];

    /// The role the words name ("editor", "text editor", "files", "web browser"), without
    /// an article.
    pub fn named(words: &str) -> Option<Role> {
        match words {
            "editor" | "text editor" => Some(Role::Editor),
            "file manager" | "files" | "file browser" => Some(Role::FileManager),
            "browser" | "web browser" => Some(Role::Browser),
            _ => None,
        }
    }

    /// How a person says it: "the editor".
    pub fn words(self) -> &'static str {
        match self {
            Role::Editor => "the editor",
            Role::FileManager => "the file manager",
            Role::Browser => "the browser",
        }
    }

    /// The MIME type whose default app plays this role.
    pub fn mime(self) -> &'static str {
        match self {
            Role::Editor => "text/plain",
            Role::FileManager => "inode/directory",
            Role::Browser => "x-scheme-handler/https",
        }
    }

    /// The desktop entry category of apps that play it.
    pub fn category(self) -> &'static str {
        match self {
            Role::Editor => "TextEditor",
            Role::FileManager => "FileManager",
            Role::Browser => "WebBrowser",
        }
    }
}

/// The installed apps and the association files, as one desktop sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalog {
    /// Installed apps, one per desktop id, in the order their directories were read.
    pub apps: Vec<App>,
    /// The association files, highest precedence first.
    pub associations: Vec<Associations>,
    /// The running desktops (`XDG_CURRENT_DESKTOP`), for `OnlyShowIn`/`NotShowIn`.
    pub desktops: Vec<String>,
}

impl Catalog {
    /// The installed app with this desktop id.
    pub fn app(&self, id: &str) -> Option<&App> {
        self.apps.iter().find(|a| a.id == id)
    }

    /// The app a person's words name: a role ("the editor", "files", "the browser") is the
    /// default for its MIME type; an app's name, desktop id (without `.desktop`) or program is
    /// that app. Bare words that are both an app's name and a role ("Text Editor") name the
    /// app; with an article ("the text editor") they name the role.
    pub fn resolve(&self, words: &str) -> Resolution {
        let said = words.to_lowercase();
        let mut said: Vec<&str> = said.split_whitespace().collect();
        let article = said.first().is_some_and(|w| ["the", "my", "a"].contains(w));
        if article {
            said.remove(0);
        }
        if said.len() > 1
            && said
                .last()
                .is_some_and(|w| ["app", "application"].contains(w))
        {
            said.pop();
        }
        let bare = said.join(" ");
        let bare = bare.as_str();
        if bare.is_empty() {
            return Resolution::None(format!("{words:?} names no application"));
        }
        let role = Role::named(bare);
        if let (Some(role), true) = (role, article) {
            return self.for_role(role);
        }
        let named: Vec<&App> = self.apps.iter().filter(|a| a.is_called(bare)).collect();
        match (named.as_slice(), role) {
            ([one], _) => Resolution::One((*one).clone(), format!("its name is {:?}", one.name)),
            ([], Some(role)) => self.for_role(role),
            ([], None) => Resolution::None(format!(
                "no installed application is called {:?} (by its name, desktop id or program)",
                words.trim()
            )),
            (several, _) => Resolution::Ask(several.iter().map(|a| (*a).clone()).collect()),
        }
    }

    /// The app that plays `role`: the default for its MIME type; else, among the apps of its
    /// category shown on this desktop and not run in a terminal, the one (or the several to ask
    /// about).
    pub fn for_role(&self, role: Role) -> Resolution {
        match self.default_for(role.mime()) {
            Some((app, why)) => Resolution::One(app.clone(), why),
            None => {
                let shown = |a: &&App| a.shown_in(&self.desktops) && !a.terminal;
                let in_category = |a: &&App| a.categories.iter().any(|c| c == role.category());
                let associated = self.associated(role.mime());
                let mut fit: Vec<&App> = associated
                    .iter()
                    .copied()
                    .filter(in_category)
                    .filter(shown)
                    .collect();
                let mut how = format!("lists {} and is a {}", role.mime(), role.category());
                if fit.is_empty() {
                    fit = self.apps.iter().filter(in_category).filter(shown).collect();
                    how = format!("is the one installed {}", role.category());
                }
                if fit.is_empty() {
                    fit = associated;
                    how = format!("is the one installed app that lists {}", role.mime());
                }
                match fit.as_slice() {
                    [] => Resolution::None(format!(
                        "no installed application is a {} or opens {}",
                        role.category(),
                        role.mime()
                    )),
                    [one] => Resolution::One(
                        (*one).clone(),
                        format!("no default for {}; it {how}", role.mime()),
                    ),
                    several => Resolution::Ask(several.iter().map(|a| (*a).clone()).collect()),
                }
            }
        }
    }

    /// The default app for a MIME type, with the file that says so: the first installed id in a
    /// `[Default Applications]` entry, files in precedence order, skipping ids removed for the
    /// type in that file or a higher one; else the first added association (see
    /// [`Catalog::associated`]). `None` when neither says.
    pub fn default_for(&self, mime: &str) -> Option<(&App, String)> {
        let mut removed: Vec<&str> = Vec::new();
        for file in &self.associations {
            removed.extend(
                file.removed
                    .get(mime)
                    .into_iter()
                    .flatten()
                    .map(String::as_str),
            );
            for id in file.default.get(mime).into_iter().flatten() {
                if removed.contains(&id.as_str()) {
                    continue;
                }
                if let Some(app) = self.app(id) {
                    return Some((app, format!("the default for {mime} in {}", file.file)));
                }
            }
        }
        let mut removed: Vec<&str> = Vec::new();
        for file in &self.associations {
            removed.extend(
                file.removed
                    .get(mime)
                    .into_iter()
                    .flatten()
                    .map(String::as_str),
            );
            for id in file.added.get(mime).into_iter().flatten() {
                if removed.contains(&id.as_str()) {
                    continue;
                }
                if let Some(app) = self.app(id) {
                    return Some((
                        app,
                        format!("no default for {mime}; added for it in {}", file.file),
                    ));
                }
            }
        }
        None
    }

    /// The installed apps that list `mime` in their `MimeType`, less those a
    /// `[Removed Associations]` entry removed for it.
    pub fn associated(&self, mime: &str) -> Vec<&App> {
        let removed: Vec<&str> = self
            .associations
            .iter()
            .flat_map(|f| f.removed.get(mime).into_iter().flatten())
            .map(String::as_str)
            .collect();
        self.apps
            .iter()
            .filter(|a| a.mime.iter().any(|m| m == mime) && !removed.contains(&a.id.as_str()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, text: &str) -> App {
        match parse_entry(id, text, "") {
            Ok(Entry::App(app)) => app,
            other => panic!("{id}: {other:?}"),
        }
    }

    /// An application entry with these extra lines.
    fn app(id: &str, name: &str, exec: &str, extra: &str) -> App {
        entry(
            id,
            &format!("[Desktop Entry]\nType=Application\nName={name}\nExec={exec}\n{extra}\n"),
        )
    }

    #[test]
    fn locales_are_looked_up_best_first() {
        let table: &[(&str, &[&str])] = &[
            (
                "de_DE.UTF-8@euro",
                &["de_DE@euro", "de_DE", "de@euro", "de"],
            ),
            ("de_DE.UTF-8", &["de_DE", "de"]),
            ("sr@latin", &["sr@latin", "sr"]),
            ("fr", &["fr"]),
            ("C.UTF-8", &[]),
            ("POSIX", &[]),
            ("", &[]),
        ];
        for (locale, want) in table {
            assert_eq!(locale_keys(locale), *want, "{locale}");
        }
    }

    #[test]
    fn the_name_is_chosen_by_the_locale() {
        let text = "[Desktop Entry]\nType=Application\nName=Files\nName[de]=Dateien\nName[de_AT]=Dateien (AT)\nName[sr@latin]=Datoteke\nGenericName=File Manager\nGenericName[de]=Dateimanager\nExec=thunar %F\n";
        let table = [
            ("", "Files", "File Manager"),
            ("C", "Files", "File Manager"),
            ("de_DE.UTF-8", "Dateien", "Dateimanager"),
            ("de_AT.UTF-8", "Dateien (AT)", "Dateimanager"),
            ("sr_RS@latin", "Datoteke", "File Manager"),
            ("fr_FR.UTF-8", "Files", "File Manager"),
        ];
        for (locale, name, generic) in table {
            let Ok(Entry::App(a)) = parse_entry("thunar.desktop", text, locale) else {
                panic!("{locale}")
            };
            assert_eq!(
                (a.name.as_str(), a.generic_name.as_deref()),
                (name, Some(generic)),
                "{locale}"
            );
        }
    }

    #[test]
    fn exec_is_split_by_the_specs_quoting_and_field_codes_are_removed() {
        let table: &[(&str, &[&str], Option<usize>)] = &[
            ("gedit %U", &["gedit"], Some(1)),
            ("/usr/bin/mousepad %F", &["/usr/bin/mousepad"], Some(1)),
            ("thunar --daemon", &["thunar", "--daemon"], None),
            (
                "app --icon %i --name %c %k -x %f",
                &["app", "--icon", "--name", "-x"],
                Some(4),
            ),
            (
                r#"sh -c "echo \"hi\" \$HOME" %u"#,
                &["sh", "-c", r#"echo "hi" $HOME"#],
                Some(3),
            ),
            (
                "\"/opt/My App/run\" --open=%u",
                &["/opt/My App/run", "--open="],
                Some(1),
            ),
            ("printf 100%%", &["printf", "100%"], None),
            // `\s` is undone before the quoting rule: a space inside an argument needs quotes.
            (r"a\sb c", &["a", "b", "c"], None),
            (r#""a\sb" c"#, &["a b", "c"], None),
            ("\"100%\" x", &["100%", "x"], None),
            ("  spaced   out  ", &["spaced", "out"], None),
        ];
        for (exec, want, at) in table {
            let (args, file_at) = split_exec(exec).unwrap_or_else(|e| panic!("{exec}: {e}"));
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!((args, file_at), (want, *at), "{exec}");
        }
        let bad: &[(&str, &str)] = &[
            ("app \"unclosed", "unclosed quote"),
            ("app %z", "%z, which is not a field code"),
            ("app %", "lone %"),
            ("%U", "names no program"),
            ("", "names no program"),
        ];
        for (exec, says) in bad {
            let err = split_exec(exec).unwrap_err();
            assert!(err.contains(says), "{exec}: {err}");
        }
    }

    #[test]
    fn an_entry_gives_every_field_circe_uses() {
        let a = app(
            "org.gnome.gedit.desktop",
            "gedit",
            "env GTK_THEME=x /usr/bin/gedit %U",
            "GenericName=Text Editor\nTryExec=gedit\nStartupWMClass=Gedit\nMimeType=text/plain;application/x-zerosize;\nCategories=GNOME;GTK;Utility;TextEditor;\nKeywords=edit;text\\;plain;\nNoDisplay=false\nOnlyShowIn=GNOME;XFCE;\nNotShowIn=KDE;\n# a comment\n[Desktop Action new]\nName=New Window\nExec=gedit --new-window",
        );
        assert_eq!(a.id, "org.gnome.gedit.desktop");
        assert_eq!(a.stem(), "org.gnome.gedit");
        assert_eq!(a.name, "gedit");
        assert_eq!(a.program, "gedit");
        assert_eq!(a.exec, ["env", "GTK_THEME=x", "/usr/bin/gedit"]);
        assert_eq!(a.file_at, Some(3));
        assert_eq!(a.try_exec.as_deref(), Some("gedit"));
        assert_eq!(a.wm_class.as_deref(), Some("Gedit"));
        assert_eq!(a.mime, ["text/plain", "application/x-zerosize"]);
        assert_eq!(a.categories, ["GNOME", "GTK", "Utility", "TextEditor"]);
        assert_eq!(a.keywords, ["edit", "text;plain"]);
        assert_eq!(a.only_show_in, ["GNOME", "XFCE"]);
        assert_eq!(a.not_show_in, ["KDE"]);
        assert!(!a.no_display);
        assert_eq!(
            a.command(Some("/tmp/a b.txt")).unwrap(),
            ["env", "GTK_THEME=x", "/usr/bin/gedit", "/tmp/a b.txt"]
        );
    }

    #[test]
    fn hidden_other_types_and_bad_entries_are_told_apart() {
        let table: &[(&str, Result<Entry, &str>)] = &[
            (
                "[Desktop Entry]\nType=Application\nName=X\nExec=x\nHidden=true\n",
                Ok(Entry::Hidden),
            ),
            ("[Desktop Entry]\nHidden=true\n", Ok(Entry::Hidden)),
            (
                "[Desktop Entry]\nType=Link\nName=X\nURL=https://x.example/\n",
                Ok(Entry::Other("Link".into())),
            ),
            ("[Desktop Entry]\nName=X\nExec=x\n", Err("no Type")),
            (
                "[Desktop Entry]\nType=Application\nExec=x\n",
                Err("no Name"),
            ),
            (
                "[Desktop Entry]\nType=Application\nName=X\n",
                Err("no Exec"),
            ),
            (
                "[Other]\nType=Application\n",
                Err("no [Desktop Entry] group"),
            ),
            ("Type=Application\n", Err("comes before any group")),
            ("[Desktop Entry]\nType=Application\njunk\n", Err("line 3")),
            ("[Desktop Entry\nType=Application\n", Err("has no ']'")),
            (
                "[Desktop Entry]\nType=Application\nName=X\nExec=x\nNoDisplay=yes\n",
                Err("NoDisplay=\"yes\" is neither true nor false"),
            ),
            (
                "[Desktop Entry]\nType=Application\nName=X\nExec=x \"y\n",
                Err("unclosed quote"),
            ),
        ];
        for (text, want) in table {
            match (parse_entry("x.desktop", text, ""), want) {
                (Ok(got), Ok(want)) => assert_eq!(&got, want, "{text}"),
                (Err(got), Err(want)) => assert!(got.contains(want), "{text}: {got}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn an_accessible_name_is_matched_to_its_app() {
        let gedit = app(
            "org.gnome.gedit.desktop",
            "gedit",
            "gedit %U",
            "StartupWMClass=Gedit",
        );
        let text_editor = app(
            "org.gnome.TextEditor.desktop",
            "Text Editor",
            "gnome-text-editor %U",
            "",
        );
        let thunar = app("thunar.desktop", "Thunar File Manager", "thunar %F", "");
        let mousepad = app("org.xfce.mousepad.desktop", "Mousepad", "mousepad %U", "");
        let table = [
            (&gedit, "gedit", true),
            (&gedit, "GEDIT", true),
            (&gedit, "org.gnome.gedit", true),
            (&text_editor, "org.gnome.TextEditor", true),
            (&text_editor, "texteditor", true),
            (&text_editor, "gnome-text-editor", true),
            (&text_editor, "Text Editor", false),
            (&thunar, "Thunar", true),
            (&mousepad, "mousepad", true),
            (&mousepad, "thunar", false),
            (&gedit, "", false),
            (&gedit, "org", false),
        ];
        for (app, name, want) in table {
            assert_eq!(app.is_named(name), want, "{} is {name:?}", app.id);
        }
        assert!(thunar.is_called("thunar file manager") && thunar.is_called("THUNAR.desktop"));
    }

    #[test]
    fn shown_in_follows_no_display_and_the_desktop_lists() {
        let desktops = vec!["ubuntu".to_string(), "GNOME".to_string()];
        let table = [
            ("", true),
            ("NoDisplay=true", false),
            ("OnlyShowIn=GNOME;", true),
            ("OnlyShowIn=XFCE;", false),
            ("NotShowIn=gnome;", false),
            ("NotShowIn=KDE;", true),
        ];
        for (extra, want) in table {
            assert_eq!(
                app("a.desktop", "A", "a", extra).shown_in(&desktops),
                want,
                "{extra}"
            );
        }
    }

    #[test]
    fn an_app_that_takes_no_file_is_not_handed_one() {
        let a = app("a.desktop", "A", "a --new", "");
        assert_eq!(a.command(None).unwrap(), ["a", "--new"]);
        let err = a.command(Some("/tmp/x")).unwrap_err();
        assert!(err.contains("A (a.desktop) takes no file"), "{err}");
    }

    #[test]
    fn association_files_are_read_by_group() {
        let text = "[Default Applications]\ntext/plain=org.gnome.gedit.desktop;mousepad.desktop;\n\n[Added Associations]\ntext/plain=code.desktop;\nimage/png=gimp.desktop\n[Removed Associations]\ntext/plain=libreoffice-writer.desktop;\n[Other]\nx=y\n";
        let a = parse_associations("/home/u/.config/mimeapps.list", text).unwrap();
        assert_eq!(a.file, "/home/u/.config/mimeapps.list");
        assert_eq!(
            a.default["text/plain"],
            ["org.gnome.gedit.desktop", "mousepad.desktop"]
        );
        assert_eq!(a.added["text/plain"], ["code.desktop"]);
        assert_eq!(a.added["image/png"], ["gimp.desktop"]);
        assert_eq!(a.removed["text/plain"], ["libreoffice-writer.desktop"]);
        let err = parse_associations("m", "text/plain=x.desktop\n").unwrap_err();
        assert!(err.contains("before any group"), "{err}");
    }

    fn installed() -> Vec<App> {
        vec![
            app(
                "org.xfce.mousepad.desktop",
                "Mousepad",
                "mousepad %U",
                "MimeType=text/plain;\nCategories=Utility;TextEditor;GTK;",
            ),
            app(
                "org.gnome.gedit.desktop",
                "gedit",
                "gedit %U",
                "MimeType=text/plain;\nCategories=Utility;TextEditor;",
            ),
            app(
                "org.gnome.TextEditor.desktop",
                "Text Editor",
                "gnome-text-editor %U",
                "Categories=Utility;TextEditor;",
            ),
            app(
                "libreoffice-writer.desktop",
                "LibreOffice Writer",
                "libreoffice --writer %U",
                "MimeType=text/plain;application/vnd.oasis.opendocument.text;\nCategories=Office;",
            ),
            app(
                "thunar.desktop",
                "Thunar File Manager",
                "thunar %F",
                "MimeType=inode/directory;\nCategories=System;FileManager;",
            ),
            app(
                "firefox.desktop",
                "Firefox",
                "firefox %u",
                "MimeType=x-scheme-handler/https;text/html;\nCategories=Network;WebBrowser;",
            ),
            app(
                "chromium.desktop",
                "Chromium",
                "chromium %U",
                "MimeType=x-scheme-handler/https;\nCategories=Network;WebBrowser;",
            ),
        ]
    }

    fn catalog(files: &[(&str, &str)]) -> Catalog {
        Catalog {
            apps: installed(),
            associations: files
                .iter()
                .map(|(f, t)| parse_associations(f, t).unwrap())
                .collect(),
            desktops: vec!["XFCE".into()],
        }
    }

    /// What a resolution comes to, as ids: one id and its reason, or the ids to ask about, or
    /// the reason for none.
    fn ids(r: &Resolution) -> (Vec<String>, String) {
        match r {
            Resolution::One(a, why) => (vec![a.id.clone()], why.clone()),
            Resolution::Ask(apps) => (apps.iter().map(|a| a.id.clone()).collect(), "ask".into()),
            Resolution::None(why) => (vec![], why.clone()),
        }
    }

    #[test]
    fn what_a_person_says_resolves_to_an_app() {
        let user = "/home/u/.config/mimeapps.list";
        let system = "/usr/share/applications/mimeapps.list";
        let gedit_default = "[Default Applications]\ntext/plain=org.gnome.gedit.desktop\n";
        // (association files, words, the ids, what the reason says)
        type Files<'a> = &'a [(&'a str, &'a str)];
        let table: &[(Files, &str, &[&str], &str)] = &[
            // The default for text/plain, from the first file that names an installed one.
            (&[(user, gedit_default)], "the editor", &["org.gnome.gedit.desktop"], user),
            // Bare words that are an app's name name that app; with an article, the role.
            (&[(user, gedit_default)], "text editor", &["org.gnome.TextEditor.desktop"], "its name"),
            (&[(user, gedit_default)], "the text editor", &["org.gnome.gedit.desktop"], user),
            (&[(user, gedit_default)], "editor", &["org.gnome.gedit.desktop"], user),
            (
                &[
                    (user, "[Default Applications]\ntext/plain=gone.desktop;org.xfce.mousepad.desktop\n"),
                    (system, gedit_default),
                ],
                "the editor",
                &["org.xfce.mousepad.desktop"],
                user,
            ),
            (
                &[(user, "[Default Applications]\ntext/plain=gone.desktop\n"), (system, gedit_default)],
                "the editor",
                &["org.gnome.gedit.desktop"],
                system,
            ),
            // Removed in a higher file: the lower file's default is skipped.
            (
                &[
                    (user, "[Removed Associations]\ntext/plain=org.gnome.gedit.desktop\n"),
                    (system, "[Default Applications]\ntext/plain=org.gnome.gedit.desktop;org.xfce.mousepad.desktop\n"),
                ],
                "the editor",
                &["org.xfce.mousepad.desktop"],
                system,
            ),
            // No default: an added association.
            (
                &[(user, "[Added Associations]\ntext/plain=org.gnome.TextEditor.desktop\n")],
                "the editor",
                &["org.gnome.TextEditor.desktop"],
                "added for it in /home/u/.config/mimeapps.list",
            ),
            // Nothing says: several installed text editors list text/plain; ask.
            (&[], "the editor", &["org.xfce.mousepad.desktop", "org.gnome.gedit.desktop"], "ask"),
            // One of them removed: the other one.
            (
                &[(user, "[Removed Associations]\ntext/plain=org.gnome.gedit.desktop\n")],
                "the editor",
                &["org.xfce.mousepad.desktop"],
                "lists text/plain and is a TextEditor",
            ),
            (&[], "the file manager", &["thunar.desktop"], "lists inode/directory"),
            (&[], "files", &["thunar.desktop"], "lists inode/directory"),
            (&[], "the browser", &["firefox.desktop", "chromium.desktop"], "ask"),
            (
                &[(user, "[Default Applications]\nx-scheme-handler/https=chromium.desktop\n")],
                "the browser",
                &["chromium.desktop"],
                user,
            ),
            // Named apps: by name, id, id's last part, program; the app whatever the defaults.
            (&[(user, gedit_default)], "Mousepad", &["org.xfce.mousepad.desktop"], "its name"),
            (&[], "gedit", &["org.gnome.gedit.desktop"], "its name"),
            (&[], "org.gnome.gedit", &["org.gnome.gedit.desktop"], "its name"),
            (&[], "Text Editor", &["org.gnome.TextEditor.desktop"], "its name"),
            (&[], "the Text Editor", &["org.xfce.mousepad.desktop", "org.gnome.gedit.desktop"], "ask"),
            (&[], "thunar", &["thunar.desktop"], "its name"),
            (&[], "the Thunar app", &["thunar.desktop"], "its name"),
            (&[], "libreoffice", &["libreoffice-writer.desktop"], "its name"),
            (&[], "gimp", &[], "no installed application is called \"gimp\""),
            (&[], "the", &[], "names no application"),
        ];
        for (files, words, want, why) in table {
            let c = catalog(files);
            let r = c.resolve(words);
            let (got, reason) = ids(&r);
            assert_eq!(got, *want, "{words:?} with {files:?}: {r:?}");
            assert!(
                reason.contains(why),
                "{words:?}: {reason:?} does not say {why:?}"
            );
        }
    }

    #[test]
    fn a_role_falls_back_to_its_category_then_to_the_mime_type() {
        let mut c = catalog(&[]);
        // No editor lists text/plain: the one TextEditor left.
        c.apps.retain(|a| {
            a.id == "org.gnome.TextEditor.desktop" || a.id == "libreoffice-writer.desktop"
        });
        let (got, why) = ids(&c.resolve("the editor"));
        assert_eq!(got, ["org.gnome.TextEditor.desktop"]);
        assert!(why.contains("one installed TextEditor"), "{why}");
        // Without an app called "Text Editor", the bare words name the role.
        c.apps.retain(|a| a.id != "org.gnome.TextEditor.desktop");
        c.apps.extend(
            installed()
                .into_iter()
                .filter(|a| a.id == "org.gnome.gedit.desktop"),
        );
        let (got, why) = ids(&c.resolve("text editor"));
        assert_eq!(got, ["org.gnome.gedit.desktop"]);
        assert!(
            why.contains("lists text/plain and is a TextEditor"),
            "{why}"
        );
        c.apps.retain(|a| a.id != "org.gnome.gedit.desktop");
        // No TextEditor at all: the one app that opens text/plain.
        c.apps.retain(|a| a.id == "libreoffice-writer.desktop");
        let (got, why) = ids(&c.resolve("the editor"));
        assert_eq!(got, ["libreoffice-writer.desktop"]);
        assert!(why.contains("lists text/plain"), "{why}");
        // Nothing.
        c.apps.clear();
        let (got, why) = ids(&c.resolve("the editor"));
        assert!(got.is_empty());
        assert!(
            why.contains("no installed application is a TextEditor"),
            "{why}"
        );
        // A text editor not meant for this desktop is not offered by its category.
        let mut c = catalog(&[]);
        for a in &mut c.apps {
            if a.id == "org.gnome.gedit.desktop" {
                a.only_show_in = vec!["GNOME".into()];
            }
        }
        assert_eq!(
            ids(&c.resolve("the editor")).0,
            ["org.xfce.mousepad.desktop"]
        );
    }
}

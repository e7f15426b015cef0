//! The words of a desktop request, read into the app it names and its ordered steps.
//!
//! "In the file manager, rename todo.md to tasks.md", "in the editor, add a line Action items at
//! the end of notes.md and save it", "close the Save As dialog": one [`DesktopRequest`] with an
//! [`AppWords`] and [`Step`]s, each step's values bounded spans of the person's own words. A clause
//! that names none of the known steps is kept as [`Step::Press`] with its words, for the Director
//! to ground against the app's window like any request on a page.
//!
//! Invariant: pure; nothing here knows which apps are installed or what a window shows. Values
//! are never invented: a name, a line, a folder is a span of the words, quotes trimmed.

use super::reader::MAX_TEXT_CHARS;

/// Which application the words name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppWords {
    /// "the editor", "text editor": the person's default editor.
    Editor,
    /// "the file manager", "files": the person's default file manager.
    FileManager,
    /// "in Mousepad", "in gedit": an application by its name.
    Named(String),
    /// No app named: inferred from the steps.
    Unsaid,
}

/// What a step is about: an item by the name said, or the file manager's selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Object {
    /// A file or folder by its name or path as said ("notes.md", "Documents").
    Named(String),
    /// The file manager's current selection: "the file I selected", "the notes file I
    /// selected", "the selected file", "what I selected", "the selection" ([`names_selection`]).
    Selection,
}

impl Object {
    /// How a step names it in the journal and the outcome.
    pub fn describe(&self) -> &str {
        match self {
            Object::Named(n) => n,
            Object::Selection => "the selection",
        }
    }
}

/// One thing to do in the app, in the order said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Open an item shown in the file manager (a folder or a file), or a file in the editor.
    Open {
        object: Object,
    },
    /// Show the selection ("show the file I selected in the file manager"): the file manager
    /// already shows it, selected; in the editor, the document it is.
    Show {
        object: Object,
    },
    Rename {
        from: String,
        to: String,
    },
    CreateFolder {
        name: String,
    },
    /// Move to the trash; `permanently` deletes without the trash (cannot be undone).
    Delete {
        name: String,
        permanently: bool,
    },
    /// Add a line at the end of the document.
    Append {
        text: String,
    },
    /// Replace every whole-word occurrence of `old` with `new`.
    Replace {
        old: String,
        new: String,
    },
    Save,
    /// Save under `name` in `folder` (a folder's name or a path, as said).
    SaveAs {
        name: String,
        folder: Option<String>,
    },
    /// Select: in the editor the text the words quote ("select the word draft"), in the file
    /// manager the item of that name ("select todo.md").
    Select {
        what: String,
    },
    /// Choose an option in a list that offers it (a combo box): "set the encoding to UTF-16",
    /// "choose All Files in the file type list"; `field` names the list when the words do.
    Choose {
        option: String,
        field: Option<String>,
    },
    /// Dismiss the dialog that is open ("close the Save dialog", "cancel the dialog").
    CloseDialog,
    /// Close the document; `save` says what to do with unsaved changes when the words say it
    /// ("without saving" → no), else the app's question is put to the person.
    Close {
        save: Option<bool>,
    },
    /// Anything else: these words, grounded by the Director on the app's window.
    Press {
        words: String,
    },
}

impl Step {
    /// Does this step change something (a file, a document, a dialog)?
    pub fn mutates(&self) -> bool {
        !matches!(
            self,
            Step::Open { .. } | Step::Show { .. } | Step::Select { .. }
        )
    }

    /// Is this step about a document's text (the editor's), rather than files?
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            Step::Append { .. }
                | Step::Replace { .. }
                | Step::Save
                | Step::SaveAs { .. }
                | Step::Close { .. }
        )
    }

    /// A short description for the journal and the outcome.
    pub fn describe(&self) -> String {
        match self {
            Step::Open { object } => format!("open {}", object.describe()),
            Step::Show { object } => format!("show {}", object.describe()),
            Step::Rename { from, to } => format!("rename {from} to {to}"),
            Step::CreateFolder { name } => format!("create the folder {name}"),
            Step::Delete { name, permanently } => {
                if *permanently {
                    format!("delete {name} permanently")
                } else {
                    format!("move {name} to the trash")
                }
            }
            Step::Append { text } => format!("add the line \"{text}\" at the end"),
            Step::Replace { old, new } => format!("replace \"{old}\" with \"{new}\""),
            Step::Save => "save".into(),
            Step::SaveAs { name, folder } => match folder {
                Some(f) => format!("save as {name} in {f}"),
                None => format!("save as {name}"),
            },
            Step::Select { what } => format!("select \"{what}\""),
            Step::Choose { option, .. } => format!("choose {option}"),
            Step::CloseDialog => "close the dialog".into(),
            Step::Close { save: None } => "close the document".into(),
            Step::Close { save: Some(true) } => "close the document, saving its changes".into(),
            Step::Close { save: Some(false) } => "close the document without saving".into(),
            Step::Press { words } => words.clone(),
        }
    }
}

/// A desktop request: the app, the file it is about (when one is named), and the steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopRequest {
    pub app: AppWords,
    /// The file the words name for the editor ("… of notes.md", "open notes.md in the editor"),
    /// or the file manager's selection ("in the editor, open the file I selected", "… of the
    /// file I selected").
    pub file: Option<Object>,
    pub steps: Vec<Step>,
}

/// Does this read as a request for the desktop (beyond the heading recipe's phrases)? True when
/// the editor or the file manager is named, or a step only the desktop has (rename a file,
/// create a folder) is said.
pub fn is_desktop(text: &str) -> bool {
    let r = read(text);
    // "in Rivvl, …" may name a project or a site as well as an app: only the phrases that
    // name the desktop's own apps count here.
    if matches!(r.app, AppWords::Editor | AppWords::FileManager) {
        return true;
    }
    r.steps.iter().any(|s| {
        matches!(
            s,
            Step::Rename { from, .. } if looks_like_file(from)
        ) || matches!(s, Step::CreateFolder { .. })
    })
}

/// Read the words into the app, the file and the steps.
pub fn read(text: &str) -> DesktopRequest {
    let (app, rest) = app_of(text.trim());
    let mut file = None;
    let mut steps = Vec::new();
    for clause in clauses(&rest) {
        let (step, named) = step_of(&clause);
        if file.is_none() {
            file = named;
        }
        if let Some(s) = step {
            steps.push(s);
        }
    }
    // "open notes.md in the editor": the file to open is the document the steps are about.
    // "(in the editor,) open the file I selected, add a line …": so is the selection, unless
    // the file manager is the app (there it is the item selected in its window).
    if file.is_none() {
        match steps.first() {
            Some(Step::Open {
                object: Object::Named(name),
            }) if app == AppWords::Editor && looks_like_file(name) => {
                file = Some(Object::Named(name.clone()));
            }
            Some(Step::Open {
                object: Object::Selection,
            })
            | Some(Step::Show {
                object: Object::Selection,
            }) if app != AppWords::FileManager
                && (app != AppWords::Unsaid || steps.iter().any(Step::is_text)) =>
            {
                file = Some(Object::Selection);
            }
            _ => {}
        }
    }
    DesktopRequest { app, file, steps }
}

/// Phrases that name the app, anywhere in the words; the rest of the words without them.
const APP_PHRASES: [(&str, AppWordsKind); 10] = [
    ("in the file manager", AppWordsKind::FileManager),
    ("in my file manager", AppWordsKind::FileManager),
    ("in the files app", AppWordsKind::FileManager),
    ("the file manager", AppWordsKind::FileManager),
    ("in the text editor", AppWordsKind::Editor),
    ("in the editor", AppWordsKind::Editor),
    ("in my editor", AppWordsKind::Editor),
    ("the text editor", AppWordsKind::Editor),
    ("the editor", AppWordsKind::Editor),
    ("on my desktop", AppWordsKind::Unsaid),
];

#[derive(Clone, Copy)]
enum AppWordsKind {
    Editor,
    FileManager,
    Unsaid,
}

fn app_of(text: &str) -> (AppWords, String) {
    let mut rest = text.to_string();
    let mut app = AppWords::Unsaid;
    for (phrase, kind) in APP_PHRASES {
        while let Some(at) = find_words(&rest, phrase) {
            if app == AppWords::Unsaid {
                app = match kind {
                    AppWordsKind::Editor => AppWords::Editor,
                    AppWordsKind::FileManager => AppWords::FileManager,
                    AppWordsKind::Unsaid => AppWords::Unsaid,
                };
            }
            rest.replace_range(at..at + phrase.len(), " ");
        }
    }
    // "in Mousepad, …" at the start names an app by its name.
    if app == AppWords::Unsaid {
        let lower = rest.trim_start().to_lowercase();
        if let Some(after) = lower.strip_prefix("in ") {
            if let Some(comma) = after.find(',') {
                let name = after[..comma].trim();
                if !name.is_empty() && name.split_whitespace().count() <= 3 && !name.contains('.') {
                    let start = rest.len() - rest.trim_start().len() + 3;
                    let original = rest[start..start + comma].trim().to_string();
                    app = AppWords::Named(original);
                    rest = rest[start + comma + 1..].to_string();
                }
            }
        }
    }
    (app, rest)
}

/// Byte offset of `phrase` in `text` as whole words, case-insensitively.
fn find_words(text: &str, phrase: &str) -> Option<usize> {
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return None;
    }
    let mut from = 0;
    while let Some(i) = lower[from..].find(phrase) {
        let at = from + i;
        let end = at + phrase.len();
        let before = lower[..at].chars().next_back();
        let after = lower[end..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if boundary(before) && boundary(after) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Verbs that start a step; " and " splits clauses only before one of them.
const STEP_VERBS: [&str; 24] = [
    "open", "rename", "create", "make", "add", "append", "insert", "write", "replace", "change",
    "save", "close", "dismiss", "cancel", "delete", "remove", "trash", "move", "click", "press",
    "show", "go", "select", "choose",
];

/// The clauses of a request, in order: split at ", then", ";", "then", and at "and"/"," before a
/// step verb (so "add a line Bread and butter" stays one clause).
fn clauses(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let bare = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let next = words.get(i + 1).map(|n| {
            n.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        });
        let next_is_verb = next
            .as_deref()
            .is_some_and(|n| STEP_VERBS.contains(&n) || n == "then");
        let ends_with_sep = w.ends_with(',') || w.ends_with(';');
        if (bare == "and" || bare == "then") && next_is_verb && !current.is_empty() {
            flush(&mut out, &mut current);
            i += 1;
            continue;
        }
        if bare == "then" && !current.is_empty() {
            flush(&mut out, &mut current);
            i += 1;
            continue;
        }
        current.push(w);
        if ends_with_sep && next_is_verb {
            flush(&mut out, &mut current);
        }
        i += 1;
    }
    flush(&mut out, &mut current);
    out
}

fn flush(out: &mut Vec<String>, current: &mut Vec<&str>) {
    let c = current
        .join(" ")
        .trim()
        .trim_matches(|c: char| c == ',' || c == ';' || c == '.' || c.is_whitespace())
        .to_string();
    if !c.is_empty() {
        out.push(c);
    }
    current.clear();
}

/// One clause's step, and a file it names ("… of notes.md", "… in the file I selected").
fn step_of(clause: &str) -> (Option<Step>, Option<Object>) {
    let c = strip_politeness(clause);
    let lower = c.to_lowercase();
    let (c, lower, file) = split_file_suffix(&c, &lower);
    let span = |s: &str| value(s);
    // rename X to Y
    if let Some(rest) = after_verb(&c, &lower, &["rename"]) {
        if let Some((from, to)) = split_on(&rest, " to ") {
            let from = strip_article_noun(&from, &["file", "folder"]);
            if let (Some(from), Some(to)) = (span(&from), span(&to)) {
                return (Some(Step::Rename { from, to }), file);
            }
        }
    }
    // create a folder (called|named) X
    if let Some(rest) = after_verb(&c, &lower, &["create", "make", "add"]) {
        let r = rest.trim();
        let rl = r.to_lowercase();
        for lead in [
            "a new folder",
            "new folder",
            "a folder",
            "the folder",
            "folder",
        ] {
            if let Some(tail) = rl.strip_prefix(lead) {
                let tail = &r[r.len() - tail.len()..];
                let tail = strip_lead(tail, &["called", "named", "with the name", "name"]);
                if let Some(name) = span(&tail) {
                    return (Some(Step::CreateFolder { name }), file);
                }
            }
        }
    }
    // add a line X (at the end)
    if let Some(rest) = after_verb(&c, &lower, &["add", "append", "insert", "write"]) {
        let r = strip_lead(
            &rest,
            &[
                "a new line saying",
                "a new line that says",
                "a new line",
                "a line saying",
                "a line that says",
                "a line with",
                "a line",
                "the line",
                "line",
            ],
        );
        let r = strip_tail(
            &r,
            &[
                "at the end of the file",
                "at the end of it",
                "at the end",
                "to the end",
                "at the bottom",
                "to the file",
                "to it",
            ],
        );
        if let Some(text) = span(&r) {
            return (Some(Step::Append { text }), file);
        }
    }
    // replace X with Y / change (the word) X to Y
    if let Some(rest) = after_verb(&c, &lower, &["replace"]) {
        if let Some((old, new)) = split_on(&rest, " with ").or_else(|| split_on(&rest, " by ")) {
            let old = strip_lead(&old, &["the word", "every", "all"]);
            if let (Some(old), Some(new)) = (span(&old), span(&new)) {
                return (Some(Step::Replace { old, new }), file);
            }
        }
    }
    if let Some(rest) = after_verb(&c, &lower, &["change"]) {
        let r = rest.trim().to_lowercase();
        if r.starts_with("the word") || r.starts_with("every") || r.starts_with("all ") {
            if let Some((old, new)) = split_on(&rest, " to ") {
                let old = strip_lead(&old, &["the word", "every", "all"]);
                if let (Some(old), Some(new)) = (span(&old), span(&new)) {
                    return (Some(Step::Replace { old, new }), file);
                }
            }
        }
    }
    // save (it) as NAME (in|into|to FOLDER) / save (it)
    if let Some(rest) = after_verb(&c, &lower, &["save"]) {
        let r = strip_lead(&rest, &["it", "the file", "the document", "this", "that"]);
        let rl = r.trim().to_lowercase();
        if let Some(tail) = rl.strip_prefix("as ") {
            let tail = &r.trim()[r.trim().len() - tail.len()..];
            let (name, folder) = match split_on_any(
                tail,
                &[" in the folder ", " in folder ", " into ", " in ", " to "],
            ) {
                Some((n, f)) => (n, Some(strip_article_noun(&f, &["folder", "directory"]))),
                None => (tail.to_string(), None),
            };
            if let Some(name) = span(&name) {
                return (
                    Some(Step::SaveAs {
                        name,
                        folder: folder.and_then(|f| span(&f)),
                    }),
                    file,
                );
            }
        }
        if rl.is_empty() || ["changes", "the changes", "my changes", "again"].contains(&rl.as_str())
        {
            return (Some(Step::Save), file);
        }
    }
    // close / dismiss / cancel the dialog
    if let Some(rest) = after_verb(&c, &lower, &["close", "dismiss", "cancel"]) {
        let rl = rest.to_lowercase();
        if rl.split_whitespace().any(|w| {
            matches!(
                w.trim_matches(|c: char| !c.is_alphanumeric()),
                "dialog" | "dialogue" | "popup" | "prompt" | "window"
            )
        }) && (rl.contains("dialog") || rl.contains("prompt") || rl.contains("popup"))
        {
            return (Some(Step::CloseDialog), file);
        }
    }
    // set the X to Y / choose Y in|from the X (list|menu|box)
    if let Some(rest) = after_verb(&c, &lower, &["set", "change"]) {
        if let Some((f, o)) = split_on(&rest, " to ") {
            let f = strip_article_noun(&f, &["list", "menu", "box", "option", "setting"]);
            if let (Some(field), Some(option)) = (span(&f), span(&o)) {
                if !field.to_lowercase().contains("heading")
                    && field.split_whitespace().count() <= 3
                {
                    return (
                        Some(Step::Choose {
                            option,
                            field: Some(field),
                        }),
                        file,
                    );
                }
            }
        }
    }
    if let Some(rest) = after_verb(&c, &lower, &["choose", "pick"]) {
        let (o, f) = match split_on_any(&rest, &[" in the ", " from the ", " in ", " from "]) {
            Some((o, f)) => (
                o,
                Some(strip_article_noun(
                    &f,
                    &["list", "menu", "box", "drop-down", "dropdown"],
                )),
            ),
            None => (rest.clone(), None),
        };
        if let Some(option) = span(&o) {
            return (
                Some(Step::Choose {
                    option,
                    field: f.and_then(|f| span(&f)),
                }),
                file,
            );
        }
    }
    // select X (text in the editor, an item in the file manager)
    if let Some(rest) = after_verb(&c, &lower, &["select", "highlight"]) {
        let r = strip_lead(
            &rest,
            &[
                "the word",
                "the words",
                "the text",
                "the line",
                "the file",
                "the folder",
                "the item",
            ],
        );
        if let Some(what) = span(&r) {
            if !["all", "everything", "it"].contains(&what.to_lowercase().as_str()) {
                return (Some(Step::Select { what }), file);
            }
        }
    }
    // close the document ("close notes.md", "close it without saving")
    if let Some(rest) = after_verb(&c, &lower, &["close"]) {
        let rl = rest.to_lowercase();
        let save = if ["without saving", "discard", "don't save", "do not save"]
            .iter()
            .any(|m| rl.contains(m))
        {
            Some(false)
        } else if [
            "saving the changes",
            "saving changes",
            "save the changes",
            "save changes",
            "and save",
        ]
        .iter()
        .any(|m| rl.contains(m))
        {
            Some(true)
        } else {
            None
        };
        let what = strip_tail(
            &rest,
            &[
                "without saving",
                "and discard the changes",
                "and discard changes",
                "discarding the changes",
                "saving the changes",
                "and save the changes",
                "and save changes",
            ],
        );
        let what = strip_article_noun(&what, &["file", "document", "tab"]);
        let named = looks_like_file(&what).then(|| what.clone());
        if what.is_empty()
            || named.is_some()
            || ["it", "this", "that"].contains(&what.to_lowercase().as_str())
        {
            return (
                Some(Step::Close { save }),
                file.or(named.map(Object::Named)),
            );
        }
    }
    // delete X (permanently) / move X to the trash
    if let Some(rest) = after_verb(&c, &lower, &["delete", "remove", "trash"]) {
        let rl = rest.to_lowercase();
        let permanently = rl.contains("permanently") || rl.contains("for good");
        let r = strip_tail(&rest, &["permanently", "for good", "to the trash"]);
        let r = strip_article_noun(&r, &["file", "folder"]);
        if let Some(name) = span(&r) {
            return (Some(Step::Delete { name, permanently }), file);
        }
    }
    if let Some(rest) = after_verb(&c, &lower, &["move"]) {
        if let Some(r) = strip_tail_opt(&rest, &["to the trash", "to trash", "into the trash"]) {
            let r = strip_article_noun(&r, &["file", "folder"]);
            if let Some(name) = span(&r) {
                return (
                    Some(Step::Delete {
                        name,
                        permanently: false,
                    }),
                    file,
                );
            }
        }
    }
    // open X (folder|file) / go to X; "open the file I selected" opens the selection
    if let Some(rest) = after_verb(&c, &lower, &["open", "go to", "go into", "enter"]) {
        if names_selection(&rest) {
            return (
                Some(Step::Open {
                    object: Object::Selection,
                }),
                file,
            );
        }
        let r = strip_article_noun(&rest, &["folder", "directory", "file", "document"]);
        if let Some(name) = span(&r) {
            return (
                Some(Step::Open {
                    object: Object::Named(name),
                }),
                file,
            );
        }
    }
    // show / reveal the selection ("show the file I selected"); other things to show ("show
    // hidden files") stay words for the Director
    if let Some(rest) = after_verb(&c, &lower, &["show", "reveal"]) {
        if names_selection(&rest) {
            return (
                Some(Step::Show {
                    object: Object::Selection,
                }),
                file,
            );
        }
    }
    match span(&c) {
        Some(words) if !words.is_empty() => (Some(Step::Press { words }), file),
        _ => (None, file),
    }
}

/// The words after one of the verbs at the clause's start ("rename …"), or `None`.
fn after_verb(c: &str, lower: &str, verbs: &[&str]) -> Option<String> {
    let t = lower.trim_start();
    let skip = lower.len() - t.len();
    for v in verbs {
        if let Some(rest) = t.strip_prefix(v) {
            if rest.is_empty() || rest.starts_with(' ') {
                return Some(c[skip + v.len()..].trim().to_string());
            }
        }
    }
    None
}

/// "please", "can you", "could you", "now" at the start.
fn strip_politeness(clause: &str) -> String {
    let mut c = clause.trim().to_string();
    loop {
        let lower = c.to_lowercase();
        let mut changed = false;
        for lead in [
            "please ",
            "can you ",
            "could you ",
            "would you ",
            "now ",
            "also ",
            "and ",
            "then ",
            "i want you to ",
            "i'd like you to ",
        ] {
            if lower.starts_with(lead) {
                c = c[lead.len()..].trim_start().to_string();
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    c.trim_end_matches(['.', '!', ','])
        .trim_end_matches(" please")
        .to_string()
}

/// "… of notes.md" / "… in notes.md" / "… to notes.md" at the end names the document; "… of
/// the file I selected" names the selection.
fn split_file_suffix(c: &str, lower: &str) -> (String, String, Option<Object>) {
    for prep in [" of ", " in ", " to ", " into "] {
        if let Some(at) = lower.rfind(prep) {
            let tail = c[at + prep.len()..].trim();
            let name =
                tail.trim_matches(|ch: char| ch == '"' || ch == '\'' || ch == '“' || ch == '”');
            let object = if looks_like_file(name) && !name.contains(' ') {
                Object::Named(name.to_string())
            } else if names_selection(tail) {
                Object::Selection
            } else {
                continue;
            };
            // Keep "rename a to b.md" and "save as x.md in y" whole: their names are values.
            let head = lower[..at].trim_start();
            if head.starts_with("rename") || head.starts_with("save") {
                continue;
            }
            return (c[..at].to_string(), lower[..at].to_string(), Some(object));
        }
    }
    (c.to_string(), lower.to_string(), None)
}

/// Do these words name the file manager's selection rather than an item by its name? "the
/// selection", "what I selected", "the selected file", "the notes file I selected", "the one
/// I've selected", "the file that is selected". A name said ("notes.md", "Selected") is not.
pub fn names_selection(words: &str) -> bool {
    let t: Vec<String> = words
        .split_whitespace()
        .map(|w| {
            w.replace('’', "'")
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .trim_matches('\'')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let t: Vec<&str> = t.iter().map(String::as_str).collect();
    // "the Selected Works folder": a capital says it is a name.
    let capital = words.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        w.starts_with("Selected") || w.starts_with("Selection")
    });
    if capital || t.is_empty() || t.len() > 8 {
        return false;
    }
    const DETERMINERS: [&str; 4] = ["the", "this", "that", "my"];
    const NOUNS: [&str; 8] = [
        "file", "folder", "item", "document", "doc", "one", "thing", "files",
    ];
    let phrase = t.join(" ");
    // "the selection", "my current selection"
    if matches!(
        phrase.as_str(),
        "the selection" | "my selection" | "this selection" | "the current selection"
    ) {
        return true;
    }
    // "what I selected", "what's selected", "whatever I've selected"
    let tails = [
        "i selected",
        "i've selected",
        "i have selected",
        "i just selected",
        "i had selected",
        "is selected",
        "i've just selected",
        "i have just selected",
    ];
    if let Some(rest) = phrase
        .strip_prefix("what ")
        .or_else(|| phrase.strip_prefix("whatever "))
    {
        if tails.contains(&rest) {
            return true;
        }
    }
    if phrase == "what's selected" {
        return true;
    }
    let Some((det, rest)) = t.split_first() else {
        return false;
    };
    if !DETERMINERS.contains(det) {
        return false;
    }
    // "the selected file", "the currently selected notes file"
    let rest = rest.strip_prefix(&["currently"]).unwrap_or(rest);
    if let [first, .., noun] = rest {
        if *first == "selected" && NOUNS.contains(noun) && rest.len() <= 4 {
            return true;
        }
    }
    // "the notes file I selected", "the one that is selected"
    let joined = rest.join(" ");
    tails.iter().any(|tail| {
        joined.strip_suffix(tail).is_some_and(|head| {
            let head: Vec<&str> = head.split_whitespace().collect();
            let head = match head.as_slice() {
                [h @ .., "that" | "which"] => h,
                h => h,
            };
            matches!(head.last(), Some(noun) if NOUNS.contains(noun)) && head.len() <= 4
        })
    })
}

/// A file name as said: a dot followed by an alphanumeric extension, or a path.
pub fn looks_like_file(s: &str) -> bool {
    let s = s.trim();
    if s.starts_with('/') || s.starts_with("~/") {
        return true;
    }
    match s.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && !ext.is_empty()
                && ext.len() <= 8
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

fn split_on(s: &str, sep: &str) -> Option<(String, String)> {
    let lower = s.to_lowercase();
    let at = lower.rfind(sep)?;
    Some((s[..at].to_string(), s[at + sep.len()..].to_string()))
}

fn split_on_any(s: &str, seps: &[&str]) -> Option<(String, String)> {
    let lower = s.to_lowercase();
    seps.iter()
        .filter_map(|sep| lower.rfind(sep).map(|at| (at, sep.len())))
        .max_by_key(|(at, _)| *at)
        .map(|(at, n)| (s[..at].to_string(), s[at + n..].to_string()))
}

fn strip_lead(s: &str, leads: &[&str]) -> String {
    let t = s.trim();
    let lower = t.to_lowercase();
    for lead in leads {
        if let Some(rest) = lower.strip_prefix(lead) {
            if rest.is_empty() || rest.starts_with(' ') || rest.starts_with(':') {
                return t[lead.len()..].trim_start_matches(':').trim().to_string();
            }
        }
    }
    t.to_string()
}

fn strip_tail(s: &str, tails: &[&str]) -> String {
    strip_tail_opt(s, tails).unwrap_or_else(|| s.trim().to_string())
}

fn strip_tail_opt(s: &str, tails: &[&str]) -> Option<String> {
    let t = s.trim();
    let lower = t.to_lowercase();
    for tail in tails {
        if let Some(head) = lower.strip_suffix(tail) {
            if head.is_empty() || head.ends_with(' ') {
                return Some(t[..head.len()].trim().to_string());
            }
        }
    }
    None
}

/// "the Documents folder" → "Documents"; "the file todo.md" → "todo.md"; "Documents" stays.
fn strip_article_noun(s: &str, nouns: &[&str]) -> String {
    let mut t = strip_lead(s, &["the", "my", "a", "this"]);
    for noun in nouns {
        t = strip_lead(&t, &[noun]);
        t = strip_tail(&t, &[noun]);
    }
    t = strip_lead(&t, &["called", "named"]);
    t
}

/// A bounded span of the words, quotes and trailing punctuation trimmed.
fn value(s: &str) -> Option<String> {
    let v = s
        .trim()
        .trim_end_matches(['.', ',', '!', '?', ';'])
        .trim()
        .trim_matches(|c: char| {
            c == '"' || c == '\'' || c == '“' || c == '”' || c == '‘' || c == '’'
        })
        .trim();
    (!v.is_empty() && v.chars().count() <= MAX_TEXT_CHARS).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(text: &str) -> Vec<Step> {
        read(text).steps
    }

    #[test]
    fn apps_are_named_by_phrase_or_name() {
        let cases: &[(&str, AppWords)] = &[
            ("in the file manager, open Documents", AppWords::FileManager),
            ("open Documents in the file manager", AppWords::FileManager),
            (
                "in the editor, add a line Done at the end and save",
                AppWords::Editor,
            ),
            ("in the text editor, save it", AppWords::Editor),
            ("in Mousepad, save it", AppWords::Named("Mousepad".into())),
            ("rename todo.md to tasks.md", AppWords::Unsaid),
        ];
        for (text, want) in cases {
            assert_eq!(&read(text).app, want, "{text}");
        }
    }

    #[test]
    fn steps_are_read_in_order_with_their_values() {
        use Step::*;
        let s = |x: &str| x.to_string();
        let cases: Vec<(&str, Vec<Step>)> = vec![
            (
                "in the file manager, open Documents",
                vec![Open {
                    object: Object::Named(s("Documents")),
                }],
            ),
            (
                "open the Documents folder in the file manager",
                vec![Open {
                    object: Object::Named(s("Documents")),
                }],
            ),
            (
                "in the file manager, rename todo.md to tasks.md",
                vec![Rename {
                    from: s("todo.md"),
                    to: s("tasks.md"),
                }],
            ),
            (
                "rename the file todo.md to \"tasks.md\"",
                vec![Rename {
                    from: s("todo.md"),
                    to: s("tasks.md"),
                }],
            ),
            (
                "in the file manager, create a folder called Reports",
                vec![CreateFolder { name: s("Reports") }],
            ),
            (
                "make a new folder named Q3 reports",
                vec![CreateFolder {
                    name: s("Q3 reports"),
                }],
            ),
            (
                "in the editor, add a line Action items at the end and save",
                vec![
                    Append {
                        text: s("Action items"),
                    },
                    Save,
                ],
            ),
            (
                "in the editor, add a line Bread and butter at the end, then save it",
                vec![
                    Append {
                        text: s("Bread and butter"),
                    },
                    Save,
                ],
            ),
            (
                "in the editor, replace draft with final and save it as final.md in Archive",
                vec![
                    Replace {
                        old: s("draft"),
                        new: s("final"),
                    },
                    SaveAs {
                        name: s("final.md"),
                        folder: Some(s("Archive")),
                    },
                ],
            ),
            (
                "change the word draft to final and save it as /tmp/x/final.md",
                vec![
                    Replace {
                        old: s("draft"),
                        new: s("final"),
                    },
                    SaveAs {
                        name: s("/tmp/x/final.md"),
                        folder: None,
                    },
                ],
            ),
            ("close the Save As dialog", vec![CloseDialog]),
            ("in the editor, cancel the dialog", vec![CloseDialog]),
            (
                "delete old.txt",
                vec![Delete {
                    name: s("old.txt"),
                    permanently: false,
                }],
            ),
            (
                "delete old.txt permanently",
                vec![Delete {
                    name: s("old.txt"),
                    permanently: true,
                }],
            ),
            (
                "move the file old.txt to the trash",
                vec![Delete {
                    name: s("old.txt"),
                    permanently: false,
                }],
            ),
            (
                "in the file manager, click Home",
                vec![Press {
                    words: s("click Home"),
                }],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(steps(text), want, "{text}");
        }
    }

    #[test]
    fn the_document_is_named_by_a_trailing_file() {
        let r = read("in the editor, add a line Action items at the end of notes.md and save it");
        assert_eq!(r.file, Some(Object::Named("notes.md".into())));
        assert_eq!(
            r.steps,
            vec![
                Step::Append {
                    text: "Action items".into()
                },
                Step::Save
            ]
        );
        let r = read("open notes.md in the editor");
        assert_eq!(r.file, Some(Object::Named("notes.md".into())));
        let r = read("in the editor, replace draft with final in notes.md");
        assert_eq!(r.file, Some(Object::Named("notes.md".into())));
    }

    #[test]
    fn the_selection_is_read_as_the_selection_not_as_a_name() {
        use Step::*;
        let sel = Some(Object::Selection);
        let open = Open {
            object: Object::Selection,
        };
        let cases: Vec<(&str, AppWords, Option<Object>, Vec<Step>)> = vec![
            (
                "in the editor, open the notes file I selected",
                AppWords::Editor,
                sel.clone(),
                vec![open.clone()],
            ),
            (
                "open the file I selected, add a line buy milk, save it",
                AppWords::Unsaid,
                sel.clone(),
                vec![
                    open.clone(),
                    Append {
                        text: "buy milk".into(),
                    },
                    Save,
                ],
            ),
            (
                "in the editor, open the file I selected, add a line buy milk at the end, and save it",
                AppWords::Editor,
                sel.clone(),
                vec![
                    open.clone(),
                    Append {
                        text: "buy milk".into(),
                    },
                    Save,
                ],
            ),
            (
                "show the file I selected in the file manager",
                AppWords::FileManager,
                None,
                vec![Show {
                    object: Object::Selection,
                }],
            ),
            // In the file manager the selection is the item selected in its window.
            (
                "in the file manager, open the file I selected",
                AppWords::FileManager,
                None,
                vec![open.clone()],
            ),
            // No app and no text step: the file manager opens it, as "open notes.md" does.
            (
                "open the notes file I selected",
                AppWords::Unsaid,
                None,
                vec![open.clone()],
            ),
            (
                "in the editor, add a line buy milk at the end of the file I selected and save it",
                AppWords::Editor,
                sel.clone(),
                vec![
                    Append {
                        text: "buy milk".into(),
                    },
                    Save,
                ],
            ),
            // A name is a name, as before.
            (
                "open notes.md in the editor",
                AppWords::Editor,
                Some(Object::Named("notes.md".into())),
                vec![Open {
                    object: Object::Named("notes.md".into()),
                }],
            ),
            (
                "in the file manager, open notes.md",
                AppWords::FileManager,
                None,
                vec![Open {
                    object: Object::Named("notes.md".into()),
                }],
            ),
            (
                "in the file manager, open the Selected Works folder",
                AppWords::FileManager,
                None,
                vec![Open {
                    object: Object::Named("Selected Works".into()),
                }],
            ),
            (
                "in the file manager, show hidden files",
                AppWords::FileManager,
                None,
                vec![Press {
                    words: "show hidden files".into(),
                }],
            ),
        ];
        for (text, app, file, want) in cases {
            let r = read(text);
            assert_eq!(r.app, app, "{text}");
            assert_eq!(r.file, file, "{text}");
            assert_eq!(r.steps, want, "{text}");
        }
    }

    #[test]
    fn selection_phrases_are_told_from_names() {
        for yes in [
            "the file I selected",
            "the notes file I selected",
            "the selected file",
            "the file I've selected",
            "the file I’ve selected",
            "the file I have selected",
            "what I selected",
            "what I've selected",
            "what's selected",
            "the selection",
            "my selection",
            "the one I selected",
            "the file that is selected",
            "the currently selected file",
            "the selected notes file",
            "\"the file I selected\"",
        ] {
            assert!(names_selection(yes), "{yes}");
        }
        for no in [
            "notes.md",
            "Selected",
            "the Selected folder",
            "the Selected Works folder",
            "selected.md",
            "Documents",
            "it",
            "the file",
            "the notes I selected yesterday in the other window of the app",
            "hidden files",
        ] {
            assert!(!names_selection(no), "{no}");
        }
    }

    #[test]
    fn desktop_requests_are_told_from_page_requests() {
        for yes in [
            "in the file manager, open Documents",
            "rename todo.md to tasks.md",
            "create a folder called Reports",
            "in the editor, save it",
        ] {
            assert!(is_desktop(yes), "{yes}");
        }
        for no in [
            "open the comments on the third story",
            "rename the playlist to Chill",
            "search YouTube for lo-fi beats",
            "add to cart",
            "in Rivvl, check out branch Zivil",
        ] {
            assert!(!is_desktop(no), "{no}");
        }
    }
}

//! The acceptance task's recipe, as pure functions: what the person asked for (the arguments the
//! one reader took from their own words), which line is the heading, the edit that changes only that line, and the checks that
//! verify what was saved and revealed.
//!
//! Invariant: every value comes from the request or from an observation; nothing is invented.
//! A request this recipe cannot read completely is refused, not half-done.

/// What the person asked the desktop to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditRequest {
    /// The file they named ("notes.md"), or `None` for "the file I selected".
    pub named_file: Option<String>,
    /// The new heading, verbatim from the request.
    pub heading: String,
    pub save: bool,
    pub reveal: bool,
}

impl EditRequest {
    /// The request from the operation's arguments, which the one reader
    /// (`director::reader::desktop_arguments`) took from the person's words. Returns why not when
    /// the heading is missing.
    pub fn from_arguments(
        arguments: &std::collections::BTreeMap<String, String>,
    ) -> Result<EditRequest, String> {
        let heading = arguments
            .get("heading")
            .filter(|h| !h.trim().is_empty())
            .ok_or("I can change a file's heading (\"change its heading to …\"); this request does not say what to change")?;
        Ok(EditRequest {
            named_file: arguments.get("file").cloned(),
            heading: heading.clone(),
            save: arguments.get("save").map(String::as_str) == Some("yes"),
            reveal: arguments.get("reveal").map(String::as_str) == Some("yes"),
        })
    }
}

/// The heading line of a text: the first Markdown heading (`#` …), else the first non-empty line.
/// Returns (line start, line end) in characters, and the heading marker kept on rewrite.
pub fn heading_line(text: &str) -> Option<(usize, usize, String)> {
    let mut offset = 0;
    let mut first_nonempty = None;
    for line in text.split('\n') {
        let len = line.chars().count();
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            let hashes: String = trimmed.chars().take_while(|c| *c == '#').collect();
            let indent = len - trimmed.chars().count();
            let marker = format!("{}{hashes} ", &line[..line.len() - trimmed.len()]);
            let _ = indent;
            return Some((offset, offset + len, marker));
        }
        if first_nonempty.is_none() && !line.trim().is_empty() {
            first_nonempty = Some((offset, offset + len, String::new()));
        }
        offset += len + 1;
    }
    first_nonempty
}

/// The one edit that changes only the heading line: replace characters `start..end` with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadingEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
    /// The whole text after the edit, for verification.
    pub after: String,
}

pub fn heading_edit(text: &str, heading: &str) -> Option<HeadingEdit> {
    let (start, end, marker) = heading_line(text)?;
    let line = format!("{marker}{heading}");
    let chars: Vec<char> = text.chars().collect();
    let after: String = chars[..start]
        .iter()
        .chain(line.chars().collect::<Vec<_>>().iter())
        .chain(chars[end..].iter())
        .collect();
    Some(HeadingEdit {
        start,
        end,
        text: line,
        after,
    })
}

/// Does the saved file have the new heading and nothing else changed?
pub fn verify_saved(before: &str, saved: &str, heading: &str) -> Result<(), String> {
    let Some(want) = heading_edit(before, heading) else {
        return Err("the file had no heading line".into());
    };
    if saved == want.after {
        return Ok(());
    }
    match heading_line(saved) {
        Some((s, e, _)) => {
            let got: String = saved.chars().skip(s).take(e - s).collect();
            if got == want.text {
                Err("the heading is right but other lines changed too".into())
            } else {
                Err(format!(
                    "the saved heading is \"{got}\", not \"{}\"",
                    want.text
                ))
            }
        }
        None => Err("the saved file has no heading line".into()),
    }
}

/// Mousepad titles a window "<name> - Mousepad" or "*<name> - Mousepad" while modified; some
/// builds use the full path. Which file, and is it modified?
pub fn editor_title(title: &str) -> Option<(String, bool)> {
    let t = title.trim();
    let (modified, t) = match t.strip_prefix('*') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t),
    };
    let name = t.rsplit_once(" - ").map_or(t, |(n, _)| n).trim();
    // gedit: "notes.md (/home/me/docs)" or "*notes.md (~/docs)"; the folder in parentheses.
    if let Some((file, rest)) = name.rsplit_once(" (") {
        if let Some(dir) = rest.strip_suffix(')') {
            if dir.starts_with('/') || dir.starts_with('~') {
                let path = format!("{}/{}", dir.trim_end_matches('/'), file.trim());
                return Some((path, modified));
            }
        }
    }
    (!name.is_empty()).then(|| (name.to_string(), modified))
}

/// Does an editor window title show this file (by path or by name)?
pub fn title_shows(title: &str, path: &std::path::Path) -> Option<bool> {
    let (name, modified) = editor_title(title)?;
    let file = path.file_name()?.to_string_lossy();
    let shown = std::path::Path::new(&name);
    (shown == path || name == file || name.ends_with(&format!("/{file}"))).then_some(modified)
}

/// One edit of a document: replace characters `start..end` with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The edits (last first, so earlier offsets stay valid) and the whole text after them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextChange {
    pub edits: Vec<TextEdit>,
    pub after: String,
}

/// Add `line` as the document's last line (after a final newline, or on a new line).
pub fn append_line(text: &str, line: &str) -> TextChange {
    let len = text.chars().count();
    let insert = if text.is_empty() || text.ends_with('\n') {
        format!("{line}\n")
    } else {
        format!("\n{line}")
    };
    TextChange {
        edits: vec![TextEdit {
            start: len,
            end: len,
            text: insert.clone(),
        }],
        after: format!("{text}{insert}"),
    }
}

/// Replace every whole-word occurrence of `old` (case as written) with `new`; `None` when
/// there is none.
pub fn replace_words(text: &str, old: &str, new: &str) -> Option<TextChange> {
    let chars: Vec<char> = text.chars().collect();
    let pat: Vec<char> = old.chars().collect();
    if pat.is_empty() {
        return None;
    }
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    let mut found = Vec::new();
    let mut i = 0;
    while i + pat.len() <= chars.len() {
        if chars[i..i + pat.len()] == pat[..]
            && !word(i.checked_sub(1).and_then(|j| chars.get(j)))
            && !word(chars.get(i + pat.len()))
        {
            found.push(i);
            i += pat.len();
        } else {
            i += 1;
        }
    }
    if found.is_empty() {
        return None;
    }
    let mut after = String::new();
    let mut last = 0;
    for &at in &found {
        after.extend(&chars[last..at]);
        after.push_str(new);
        last = at + pat.len();
    }
    after.extend(&chars[last..]);
    let edits = found
        .iter()
        .rev()
        .map(|&at| TextEdit {
            start: at,
            end: at + pat.len(),
            text: new.to_string(),
        })
        .collect();
    Some(TextChange { edits, after })
}

/// Apply edits (in the order given) to a text, as the editor would.
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let end = e.end.min(chars.len());
        let start = e.start.min(end);
        chars.splice(start..end, e.text.chars());
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: &str = "# Weekly sync\n\nAgenda:\n- budget\n# not the heading\n";

    fn read_request(text: &str) -> Result<EditRequest, String> {
        EditRequest::from_arguments(&crate::director::reader::desktop_arguments(text))
    }

    #[test]
    fn the_acceptance_request_is_read_from_its_own_words() {
        let r = read_request("On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.").unwrap();
        assert_eq!(r.heading, "Meeting notes");
        assert_eq!(r.named_file, None);
        assert!(r.save && r.reveal);
    }

    #[test]
    fn named_files_and_other_phrasings() {
        let table = [
            (
                "open plan.md and change the heading to \"Q3 plan\" and save it",
                Some("plan.md"),
                "Q3 plan",
                true,
                false,
            ),
            (
                "change its heading to Retro. Then save",
                None,
                "Retro",
                true,
                false,
            ),
            (
                "in the editor change the heading to v2.0 launch, reveal it",
                None,
                "v2.0 launch",
                false,
                true,
            ),
        ];
        for (text, file, heading, save, reveal) in table {
            let r = read_request(text).unwrap();
            assert_eq!(r.named_file.as_deref(), file, "{text}");
            assert_eq!(
                (r.heading.as_str(), r.save, r.reveal),
                (heading, save, reveal),
                "{text}"
            );
        }
        assert!(read_request("open the notes file").is_err());
        assert!(read_request("change its heading to ").is_err());
    }

    #[test]
    fn only_the_heading_line_changes() {
        let e = heading_edit(NOTES, "Meeting notes").unwrap();
        assert_eq!((e.start, e.end), (0, 13));
        assert_eq!(e.text, "# Meeting notes");
        assert_eq!(
            e.after,
            "# Meeting notes\n\nAgenda:\n- budget\n# not the heading\n"
        );
        let plain = heading_edit("\nTitle\nbody\n", "New").unwrap();
        assert_eq!(plain.after, "\nNew\nbody\n");
        let wide = heading_edit("intro é\n## Été\nx", "Hiver").unwrap();
        assert_eq!((wide.start, wide.end), (8, 14));
        assert_eq!(wide.after, "intro é\n## Hiver\nx");
        assert!(heading_edit("\n\n", "x").is_none());
    }

    #[test]
    fn verification_reads_what_was_saved() {
        let good = heading_edit(NOTES, "Meeting notes").unwrap().after;
        assert_eq!(verify_saved(NOTES, &good, "Meeting notes"), Ok(()));
        assert!(verify_saved(NOTES, NOTES, "Meeting notes")
            .unwrap_err()
            .contains("Weekly sync"));
        let extra = format!("{good}more\n");
        assert!(verify_saved(NOTES, &extra, "Meeting notes")
            .unwrap_err()
            .contains("other lines"));
    }

    #[test]
    fn editor_titles_name_the_file_and_its_modified_mark() {
        let p = std::path::Path::new("/tmp/s/notes.md");
        assert_eq!(title_shows("notes.md - Mousepad", p), Some(false));
        assert_eq!(title_shows("*notes.md - Mousepad", p), Some(true));
        assert_eq!(title_shows("/tmp/s/notes.md - Mousepad", p), Some(false));
        assert_eq!(title_shows("other.md - Mousepad", p), None);
        assert_eq!(title_shows("notes.md (/tmp/s) - gedit", p), Some(false));
        assert_eq!(title_shows("*notes.md (/tmp/s) - gedit", p), Some(true));
        assert_eq!(
            editor_title("notes.md (/tmp/s) - gedit"),
            Some(("/tmp/s/notes.md".into(), false))
        );
        assert_eq!(
            editor_title("*Untitled 1 - Mousepad"),
            Some(("Untitled 1".into(), true))
        );
    }

    #[test]
    fn a_line_is_added_at_the_end() {
        let cases = [
            ("a\nb\n", "c", "a\nb\nc\n"),
            ("a\nb", "c", "a\nb\nc"),
            ("", "c", "c\n"),
        ];
        for (text, line, want) in cases {
            let change = append_line(text, line);
            assert_eq!(change.after, want);
            assert_eq!(apply(text, &change.edits), want);
        }
    }

    #[test]
    fn words_are_replaced_whole_and_everywhere() {
        let c = replace_words(
            "draft one, draft two; drafts stay, redraft too",
            "draft",
            "final",
        )
        .unwrap();
        assert_eq!(c.after, "final one, final two; drafts stay, redraft too");
        assert_eq!(
            apply("draft one, draft two; drafts stay, redraft too", &c.edits),
            c.after
        );
        assert_eq!(c.edits.len(), 2);
        assert!(c.edits[0].start > c.edits[1].start, "last first");
        assert_eq!(replace_words("no such word", "draft", "x"), None);
        let u = replace_words("é draft é", "draft", "fin").unwrap();
        assert_eq!(apply("é draft é", &u.edits), "é fin é");
    }
}

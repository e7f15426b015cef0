//! A file for a page's file input: "upload report.pdf", "attach notes.md to the form", "upload
//! the file I selected", "choose /home/me/docs/cv.pdf for the CV field".
//!
//! Pure. [`read`] finds the request in the words: an upload verb, the file (a bounded span of the
//! words, or "the file I selected": the file manager's selection) and, after "for"/"to"/"into"/…,
//! the words naming the field. [`decide`] is a closed choice over the observed controls that open
//! a file chooser (the scan's state `file`, or a button or link whose label says choose file,
//! upload, attach or browse); the field words narrow it; several left → a question. Which file
//! on disk the words mean is the daemon's business (`browser::files`): the Director never looks.

use std::ops::Range;

use super::observation::Observation;
use super::screen;
use super::types::*;

/// Longest file words taken from one utterance, in bytes (a path's limit on Linux).
pub const MAX_FILE_WORDS: usize = 4096;

/// What the words name as the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum File {
    /// A path ("/home/me/cv.pdf", "~/notes.md") or a name ("report.pdf"): the words said.
    Named(String),
    /// "the file I selected": the file manager's selection.
    Selected,
}

/// An upload request read from the words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub file: File,
    /// Byte span of the words naming the field ("the CV field"), when said.
    pub field: Option<Range<usize>>,
}

/// Verbs that always ask for a file ("upload", "attach"); "choose", "select" and "pick" do only
/// with a path or a field ("select budget.xlsx" on a file list is a click).
const VERBS: &[&str] = &["upload", "attach"];
const CHOOSING: &[&str] = &["choose", "select", "pick"];
/// Words before the verb that are no part of the request.
const OPENERS: &[&str] = &[
    "please", "ok", "okay", "now", "so", "circe", "hey", "can", "could", "would", "will", "you",
    "just", "and", "then",
];
/// Words that end the file and begin the field.
const FIELD_WORDS: &[&str] = &["for", "to", "into", "in", "on", "as", "under"];
const DETERMINERS: &[&str] = &["the", "a", "an", "my", "this", "that", "our"];

/// One whitespace-separated word: its byte span and its lowercase form without edge punctuation.
struct Word {
    span: Range<usize>,
    lower: String,
}

fn words(source: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in source
        .char_indices()
        .chain(std::iter::once((source.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push(Word {
                    span: s..i,
                    lower: source[s..i]
                        .trim_matches(|c: char| matches!(c, ',' | ';' | '!' | '?' | ':'))
                        .to_lowercase(),
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// A path ("/…", "~/…") or a name with an extension ("report.pdf", "notes.md").
fn file_like(words: &str) -> bool {
    let w = words.trim();
    if w.starts_with('/') || w.starts_with("~/") {
        return true;
    }
    match w.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.trim().is_empty()
                && (1..=8).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        }
        None => false,
    }
}

/// "the file I selected", "the selected file", "what I picked", "my selection".
fn means_selection(lower: &[&str]) -> bool {
    let picked = |w: &&str| matches!(*w, "selected" | "picked" | "chose" | "chosen" | "marked");
    lower.iter().any(picked) || lower == ["selection"]
}

/// The upload request in the words, if they are one.
pub fn read(source: &str) -> Option<Upload> {
    let all = words(source);
    let begin = all
        .iter()
        .position(|w| !OPENERS.contains(&w.lower.as_str()))?;
    let verb = all[begin].lower.as_str();
    let choosing = CHOOSING.contains(&verb);
    if !VERBS.contains(&verb) && !choosing {
        return None;
    }
    let rest = &all[begin + 1..];
    // The file's words end at the first field word that is not inside a path or a quote.
    let quoted = rest
        .first()
        .is_some_and(|w| source[w.span.clone()].starts_with(['"', '\'', '“']));
    let end = if quoted {
        rest.iter()
            .position(|w| source[w.span.clone()].ends_with(['"', '\'', '”']))
            .map_or(rest.len(), |i| i + 1)
    } else {
        rest.iter()
            .position(|w| FIELD_WORDS.contains(&w.lower.as_str()))
            .unwrap_or(rest.len())
    };
    let mut object = &rest[..end];
    while object
        .first()
        .is_some_and(|w| DETERMINERS.contains(&w.lower.as_str()))
    {
        object = &object[1..];
    }
    let lower: Vec<&str> = object.iter().map(|w| w.lower.as_str()).collect();
    let mut field = rest.get(end + usize::from(!quoted)..).and_then(|f| {
        let (first, last) = (f.first()?, f.last()?);
        Some(first.span.start..last.span.end)
    });
    // "… the file I selected in the file manager": where the selection is, not a field.
    if let Some(f) = &field {
        let f = source[f.clone()].to_lowercase();
        if f.contains("file manager") || f.contains("thunar") || f.contains("files app") {
            field = None;
        }
    }
    if means_selection(&lower) {
        return Some(Upload {
            file: File::Selected,
            field,
        });
    }
    // "the file report.pdf": the noun before the name is no part of it.
    if lower.len() > 1 && matches!(lower[0], "file" | "document") {
        object = &object[1..];
    }
    let (first, last) = (object.first()?, object.last()?);
    let span = first.span.start..last.span.end;
    let named = source[span]
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '“' | '”' | ',' | ';' | '!' | '?'))
        .trim_end_matches('.')
        .trim();
    if named.is_empty() || named.len() > MAX_FILE_WORDS || !file_like(named) {
        return None;
    }
    let is_path = named.starts_with('/') || named.starts_with("~/");
    if choosing && !is_path && field.is_none() {
        return None;
    }
    Some(Upload {
        file: File::Named(named.to_string()),
        field,
    })
}

/// The words an upload named: the file said, or "the file I selected".
pub fn file_words(file: &File) -> &str {
    match file {
        File::Named(words) => words,
        File::Selected => "the file I selected",
    }
}

/// Label words of a control that opens a file chooser when the scan could not tell.
const OPENER_LABELS: &[&str] = &[
    "choose file",
    "choose files",
    "select file",
    "select files",
    "add file",
    "add files",
    "browse",
    "upload",
    "attach",
];

/// Does this element open a file chooser: the scan says so, or its label does.
pub fn opens_chooser(e: &super::observation::Element) -> bool {
    if e.has_state("disabled") {
        return false;
    }
    if e.has_state("file") {
        return true;
    }
    let label = e.label.to_lowercase();
    matches!(e.role.as_str(), "button" | "link") && OPENER_LABELS.iter().any(|l| label.contains(l))
}

/// The field words that say something: no determiners, no "field", "form", "input", "box".
fn field_terms(words_said: &str) -> Vec<String> {
    super::text::tokens(words_said)
        .into_iter()
        .map(|t| t.norm)
        .filter(|w| {
            !DETERMINERS.contains(&w.as_str())
                && !matches!(
                    w.as_str(),
                    "field" | "form" | "input" | "box" | "upload" | "file" | "page" | "here"
                )
        })
        .collect()
}

/// The control to give the file to: a closed choice over the observed elements that open a file
/// chooser, narrowed by the field words; never an element that was not observed.
pub fn decide(envelope: &Envelope, upload: &Upload, observation: &Observation) -> Decision {
    let openers: Vec<usize> = (0..observation.elements.len())
        .filter(|&i| opens_chooser(&observation.elements[i]))
        .collect();
    if openers.is_empty() {
        return Decision::Reject(Rejection {
            reason: RejectReason::NothingFits,
            message: "Nothing on this page opens a file chooser (no file input, and no \"Choose file\", \"Upload\" or \"Attach\" control); nothing was done.".into(),
        });
    }
    let terms = upload
        .field
        .as_ref()
        .map(|f| field_terms(&envelope.text[f.clone()]))
        .unwrap_or_default();
    // A field word in the control's own label counts twice one in its context or description
    // (a form's controls often share one context that names every field).
    let words_of =
        |s: &str| -> Vec<String> { super::text::tokens(s).into_iter().map(|t| t.norm).collect() };
    let score = |i: usize| {
        let e = &observation.elements[i];
        let label = words_of(&e.label);
        let around = words_of(&format!(
            "{} {}",
            e.context,
            e.description.as_deref().unwrap_or("")
        ));
        terms
            .iter()
            .map(|t| 2 * usize::from(label.contains(t)) + usize::from(around.contains(t)))
            .sum::<usize>()
    };
    let best = openers.iter().map(|&i| score(i)).max().unwrap_or(0);
    // Field words that name none of them leave them all (a question when several).
    let chosen: Vec<usize> = openers.into_iter().filter(|&i| score(i) == best).collect();
    if chosen.len() > 1 {
        let p = 1.0 / chosen.len() as f32;
        let ranked: Vec<(usize, f32)> = chosen.iter().map(|&i| (i, p)).collect();
        return screen::clarify(envelope, observation, &ranked);
    }
    let e = &observation.elements[chosen[0]];
    let file = match &upload.file {
        File::Named(words) => Evidence {
            heard: words.clone(),
            role: SpanRole::Text,
            entity: None,
            kind: MatchKind::Literal,
            confirmation: Confirmation::Unconfirmed,
        },
        File::Selected => Evidence {
            heard: "the file I selected".into(),
            role: SpanRole::Text,
            entity: None,
            kind: MatchKind::Ambient,
            confirmation: Confirmation::Unconfirmed,
        },
    };
    Decision::Execute(Plan {
        action: Action::Upload {
            target: e.id.clone(),
            file: upload.file.clone(),
        },
        route: Route::default(),
        continuation: false,
        objective: envelope.text.trim().to_string(),
        evidence: vec![
            file,
            Evidence {
                heard: e.label.clone(),
                role: SpanRole::Target,
                entity: Some(EntityRef::Element(e.id.clone())),
                kind: MatchKind::Exact,
                confirmation: Confirmation::Unconfirmed,
            },
        ],
        source: Source::of(envelope),
        resumes: None,
        learned: Vec::new(),
        confidence: 1.0,
        steps: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::director::observation::Element;

    fn named(source: &str) -> Option<(String, Option<String>)> {
        read(source).map(|u| {
            let field = u.field.map(|f| source[f].to_string());
            match u.file {
                File::Named(n) => (n, field),
                File::Selected => ("<selected>".into(), field),
            }
        })
    }

    #[test]
    fn the_file_is_a_span_of_the_words_and_the_field_follows_it() {
        let table: &[(&str, &str, Option<&str>)] = &[
            ("upload report.pdf", "report.pdf", None),
            ("please upload report.pdf.", "report.pdf", None),
            ("attach notes.md to the form", "notes.md", Some("the form")),
            (
                "choose /home/me/docs/cv.pdf for the CV field",
                "/home/me/docs/cv.pdf",
                Some("the CV field"),
            ),
            ("upload ~/Documents/cv.pdf", "~/Documents/cv.pdf", None),
            ("upload the file report.pdf", "report.pdf", None),
            ("upload \"annual report.pdf\"", "annual report.pdf", None),
            ("upload the file I selected", "<selected>", None),
            (
                "upload the file I selected in the file manager",
                "<selected>",
                None,
            ),
            (
                "attach the selected file to the form",
                "<selected>",
                Some("the form"),
            ),
            (
                "select budget.xlsx for the report",
                "budget.xlsx",
                Some("the report"),
            ),
        ];
        for (source, file, field) in table {
            assert_eq!(
                named(source),
                Some((file.to_string(), field.map(str::to_string))),
                "{source}"
            );
        }
    }

    #[test]
    fn other_requests_are_not_uploads() {
        for source in [
            "select budget.xlsx",
            "choose see pee pee",
            "upload a photo of my cake",
            "upload",
            "click upload",
            "select all messages",
            "pick the arrival date",
            "attach",
        ] {
            assert_eq!(read(source), None, "{source}");
        }
    }

    fn page(elements: Vec<Element>) -> Observation {
        Observation {
            title: "Upload".into(),
            elements,
            ..Observation::default()
        }
    }

    fn el(id: &str, role: &str, label: &str, context: &str, states: &[&str]) -> Element {
        Element {
            id: id.into(),
            role: role.into(),
            label: label.into(),
            context: context.into(),
            states: states.iter().map(|s| s.to_string()).collect(),
            ..Element::default()
        }
    }

    fn decided(source: &str, o: &Observation) -> Decision {
        let envelope = Envelope::typed("r", source);
        decide(&envelope, &read(source).unwrap(), o)
    }

    #[test]
    fn the_target_is_the_one_observed_control_that_opens_a_chooser() {
        let o = page(vec![
            el("r1", "textbox", "Title", "", &[]),
            el("r2", "button", "Choose file", "", &[]),
            el("r3", "button", "Submit", "", &[]),
        ]);
        match decided("upload report.pdf", &o) {
            Decision::Execute(p) => assert_eq!(
                p.action,
                Action::Upload {
                    target: "r2".into(),
                    file: File::Named("report.pdf".into())
                }
            ),
            other => panic!("{other:?}"),
        }
        // The scan's `file` state counts whatever the label says.
        let o = page(vec![el("r1", "button", "Lebenslauf", "", &["file"])]);
        assert!(matches!(
            decided("upload the file I selected", &o),
            Decision::Execute(Plan { action: Action::Upload { ref target, file: File::Selected }, .. }) if target == "r1"
        ));
    }

    #[test]
    fn the_field_words_choose_among_several_and_otherwise_it_asks() {
        let o = page(vec![
            el("r1", "button", "Choose file", "CV", &[]),
            el("r2", "button", "Choose file", "Cover letter", &[]),
        ]);
        match decided("choose /home/me/docs/cv.pdf for the CV field", &o) {
            Decision::Execute(p) => assert!(
                matches!(p.action, Action::Upload { ref target, .. } if target == "r1"),
                "{p:?}"
            ),
            other => panic!("{other:?}"),
        }
        // One context naming every field: the label decides.
        let shared = page(vec![
            el("r1", "button", "CV", "CV Cover letter", &["file"]),
            el("r2", "button", "Cover letter", "CV Cover letter", &["file"]),
        ]);
        match decided("upload /tmp/letter.pdf for the cover letter", &shared) {
            Decision::Execute(p) => assert!(
                matches!(p.action, Action::Upload { ref target, .. } if target == "r2"),
                "{p:?}"
            ),
            other => panic!("{other:?}"),
        }
        match decided("upload cv.pdf", &o) {
            Decision::Clarify(c) => {
                let ids: Vec<_> = c.candidates.iter().map(|c| c.entity.clone()).collect();
                assert_eq!(
                    ids,
                    vec![
                        EntityRef::Element("r1".into()),
                        EntityRef::Element("r2".into())
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_page_without_a_file_control_is_refused() {
        let o = page(vec![
            el("r1", "button", "Submit", "", &[]),
            el("r2", "button", "Upload", "", &["disabled"]),
        ]);
        assert!(matches!(
            decided("upload report.pdf", &o),
            Decision::Reject(Rejection {
                reason: RejectReason::NothingFits,
                ..
            })
        ));
    }
}

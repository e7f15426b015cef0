//! The observation of a screen: what is on it now, in reading order (the element format of
//! `shared/eval/README.md`). Plain data shared by the connectors that observe (browser, desktop),
//! the Director that grounds against it and the store; no I/O.

use serde::{Deserialize, Serialize};

/// One observation of a screen (browser tab or desktop window).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Observation {
    #[serde(default)]
    pub surface: Surface,
    #[serde(default)]
    pub app: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub elements: Vec<Element>,
    /// Where the browser connector took names and descriptions from: Chrome's accessibility
    /// tree, the DOM (the debugger was not available, with the reason), or both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<NameSource>,
    /// Frames on screen whose content could not be observed (never silently missing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unobserved: Vec<Unobserved>,
    /// How close in meaning the request is to each element, when a caller
    /// computed it (src/semantic.rs); never read from or written to files.
    #[serde(skip)]
    pub similarity: Option<Similarity>,
    /// English glosses of the screen's words when it is in another language, when a caller
    /// looked them up (src/glossary.rs); never read from or written to files.
    #[serde(skip)]
    pub glosses: Option<Glosses>,
}

/// English words for the words of a screen in another language: a word as the Director folds
/// it ("strom") → its glosses, folded, first sense first ("current", "electricity", "power").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Glosses {
    /// The screen's language (ISO 639-1).
    pub language: String,
    pub words: std::collections::BTreeMap<String, Vec<String>>,
}

/// `names` of an observation: `accessibility`, `dom` or `mixed`, and why not all from the tree.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NameSource {
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A frame on screen that was not observed, and why.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Unobserved {
    pub url: String,
    #[serde(default)]
    pub reason: String,
}

/// Cosine similarities from a sentence-embedding model, one per element in
/// order: `text` compares the request with each element's label, description
/// and context; `label` compares the request's words that no element says
/// ("respond" in "respond to lucaspiller") with each element's own name.
/// Data, not a model: the Director stays pure.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Similarity {
    pub text: Vec<f32>,
    pub label: Vec<f32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    #[default]
    Browser,
    Desktop,
}

/// One element on screen. `ordinal`/`of` count elements with the same label.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Element {
    pub id: String,
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub context: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordinal: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A closed list's choices (a `<select>`'s options), as shown, at most [`MAX_OPTIONS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Where a link goes: its address's host and path, and a fingerprint of its query and
    /// fragment (never the query itself), at most
    /// [`MAX_DESTINATION`] characters. Two links of one name that go to different places are
    /// two things ("Instagram" of the magazine and of the author).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
}

/// Choices kept per closed list (the scan sends no more).
pub const MAX_OPTIONS: usize = 50;

/// The longest destination the scan sends, in characters.
pub const MAX_DESTINATION: usize = 200;

impl Element {
    /// Whether both are links the scan says go to one place (equal `destination`s).
    pub fn same_place(&self, other: &Element) -> bool {
        matches!((&self.destination, &other.destination), (Some(a), Some(b)) if a == b)
    }

    pub fn has_state(&self, state: &str) -> bool {
        self.states.iter().any(|s| s == state)
    }

    /// Whether the element shows itself on, or as the one shown now: a checked box, a
    /// pressed toggle, a selected tab, the current page or slide.
    pub fn is_on(&self) -> bool {
        ["checked", "pressed", "selected", "current"]
            .iter()
            .any(|s| self.has_state(s))
    }

    /// A closed list (a `<select>`): it takes a choice, never typed text.
    pub fn is_closed_list(&self) -> bool {
        self.role == "combobox" && !self.has_state("editable")
    }

    /// Whether typed text can go in: an editable field. A read-only text box (a date picker's
    /// field, a search box's decoy input) is scanned without `editable` and takes none; an
    /// observation that carries no states at all is taken at its role.
    pub fn accepts_text(&self) -> bool {
        if self.has_state("editable") {
            return true;
        }
        let field = matches!(
            self.role.as_str(),
            "textbox" | "searchbox" | "textarea" | "spinbutton"
        );
        field && self.states.is_empty()
    }
}

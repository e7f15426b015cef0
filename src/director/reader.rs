//! The one reader: what an input is, read against the interaction's pending state.
//!
//! Every input (CLI, phone, voice) goes through [`read`] before anything changes. It decides the
//! input's relation to the pending question first (seed 000: answer | correction | new request |
//! cancel), then its goal and the arguments named in the words. An input is an *answer* only when
//! it fits what the pending question expects ([`QuestionKind`]): a place takes a short place name,
//! a choice takes one of its choices (by number, ordinal, label or a fitting description), yes/no
//! takes yes or no, free text takes anything that is not a request of its own. A request of its own
//! (a goal, or an action on something on screen) is a new request even while a question waits; it
//! never becomes the question's value. Words that fit neither are refused with the reason
//! (`Proposal::misfit`), and nothing changes.
//!
//! Architecture invariant: pure (no I/O, no clock, no async); values are bounded spans of the
//! person's own words, never invented text.

use std::collections::BTreeMap;

use super::coding;
use super::lexicon::{self, is_in};
use super::text;
use super::types::Snapshot;
use super::utterance::{self, Cue, Verb};
use crate::interaction::{Phase, Proposal};
use crate::model::{Choice, Goal, InputMode, Pending, Question, QuestionKind, Relation};

/// The longest place name accepted as an answer (a sentence is not a city).
pub const MAX_PLACE_CHARS: usize = 80;
/// The most words a place answer has ("Frankfurt am Main, Germany").
pub const MAX_PLACE_WORDS: usize = 6;
/// The longest free-text answer, in characters.
pub const MAX_TEXT_CHARS: usize = 200;

/// What the reader consults besides the words.
#[derive(Clone, Copy, Debug)]
pub struct Situation<'a> {
    pub phase: Phase,
    /// The current interaction's pending question or approval.
    pub pending: &'a Pending,
    /// True when this node has a browser connector to send screen requests to.
    pub browser: bool,
    /// How the words arrived: spoken words may name a project by a confirmed alias or by sound.
    pub mode: InputMode,
    /// The project catalog and confirmed aliases, when this node has projects: words that name
    /// one are a coding request ([`coding`]).
    pub projects: Option<&'a Snapshot>,
    /// The current interaction's request in words (a browser or desktop request): what a
    /// correction corrects when no question is pending.
    pub request: Option<&'a str>,
}

impl Default for Situation<'_> {
    fn default() -> Self {
        Situation {
            phase: Phase::Empty,
            pending: &Pending::None,
            browser: false,
            mode: InputMode::Typed,
            projects: None,
            request: None,
        }
    }
}

/// Reads one input against the situation.
pub fn read(text: &str, s: &Situation<'_>) -> Proposal {
    let words = words(text);
    let question = match (s.phase, s.pending) {
        (Phase::Asking, Pending::Question(q)) => Some(q),
        _ => None,
    };
    let approving = s.phase == Phase::Approving;

    if s.phase != Phase::Empty && is_cancel(&words) {
        return relation(Relation::Cancel);
    }
    if let Some(q) = question.filter(|q| coding::asks(q)) {
        if let Some(p) = coding::answer(text, q, s.projects) {
            return p;
        }
    }
    if let Some(rest) = strip_correction(text) {
        if !matches!(s.phase, Phase::Empty | Phase::Closed) {
            return correction(rest, question, s.request);
        }
    }
    if let Some(q) = question {
        if let Some(value) = answer(text, q) {
            return Proposal {
                relation: Some(Relation::Answer),
                value: Some(value),
                ..Proposal::default()
            };
        }
    }
    if approving {
        if let Some(yes) = yes_or_no(text) {
            return Proposal {
                relation: Some(Relation::Answer),
                value: Some(if yes { "yes" } else { "no" }.into()),
                ..Proposal::default()
            };
        }
    }
    // A navigation request ("search YouTube for Rivvl") is the browser's, whatever it names.
    let coding = s
        .projects
        .filter(|_| super::navigation::read(text).is_none())
        .and_then(|p| coding::request(text, s.mode, p));
    if let Some(request) = coding {
        // A name that only sounds like a project does not outweigh words about the weather or
        // the desktop.
        if request.ask.is_none() || !(mentions_weather(&words) || mentions_desktop(&words)) {
            return request;
        }
    }
    if let Some(request) = request_of_its_own(text, s.browser) {
        return request;
    }
    if let Some(q) = question {
        return Proposal {
            relation: Some(Relation::Answer),
            misfit: Some(misfit(text, q)),
            ..Proposal::default()
        };
    }
    if approving {
        return Proposal {
            relation: Some(Relation::Answer),
            misfit: Some("say yes or no, a new request, or \"never mind\"".into()),
            ..Proposal::default()
        };
    }
    // Nothing pending: whatever it is, it is a new request for the best goal this node has.
    new_request(text, s.browser)
}

/// The value an input gives the question, when it fits the question's kind.
pub fn answer(text: &str, q: &Question) -> Option<String> {
    match q.kind {
        QuestionKind::Choice => {
            let labels: Vec<&str> = q.choices.iter().map(|c| c.label.as_str()).collect();
            pick(text, &labels).map(|i| q.choices[i].key.clone())
        }
        QuestionKind::YesNo => yes_or_no(text).map(|y| if y { "yes" } else { "no" }.into()),
        QuestionKind::Place => {
            let value = place_answer(text)?;
            (!is_request(strip_answer_opener(text))).then_some(value)
        }
        QuestionKind::Text => {
            let value = clean(strip_answer_opener(text), MAX_TEXT_CHARS)?;
            (!is_request(strip_answer_opener(text))).then_some(value)
        }
    }
}

/// Why an input does not answer the question, in words a person reads.
fn misfit(text: &str, q: &Question) -> String {
    let said = text.trim();
    match q.kind {
        QuestionKind::Choice => {
            let n = q.choices.len();
            format!(
                "\"{said}\" is not one of the choices; say a number from 1 to {n}, a choice's name, a new request, or \"never mind\""
            )
        }
        QuestionKind::Place => format!(
            "\"{said}\" is not a place name; say a city (\"{}\" is still asked), a new request, or \"never mind\"",
            q.prompt
        ),
        QuestionKind::YesNo => "say yes or no, a new request, or \"never mind\"".into(),
        QuestionKind::Text => format!("\"{said}\" does not answer \"{}\"", q.prompt),
    }
}

/// A request of its own: a goal named in the words, or an action on something on screen.
/// `None` when the words are not a request (a bare name, "the blue one").
pub fn request_of_its_own(text: &str, browser: bool) -> Option<Proposal> {
    let words = words(text);
    if mentions_weather(&words) {
        let place = place_in(text);
        // "find rain sounds on YouTube" searches a site; "search for weather in Pune" is the
        // weather in Pune (the "site" is the place).
        let searches_a_site = matches!(
            super::navigation::read(text),
            Some(super::navigation::Nav::Search { name, .. }) if place.as_deref() != Some(name.as_str())
        );
        if !searches_a_site {
            let mut p = new(Goal::Weather);
            if let Some(place) = place {
                p.arguments.insert("place".into(), place);
            }
            return Some(p);
        }
    }
    // "upload the file I selected": the page's file input, whatever the words say of the desktop.
    if super::upload::read(text).is_some() {
        return Some(new_request(text, browser));
    }
    if mentions_desktop(&words) || super::desktop::is_desktop(text) {
        let mut p = new(Goal::NativeApp);
        p.arguments = desktop_arguments(text);
        return Some(p);
    }
    is_request(text).then(|| new_request(text, browser))
}

/// True when the words ask for something themselves: a question, a scroll or back, text to type,
/// several steps, or a verb with something to act on.
pub fn is_request(text: &str) -> bool {
    if super::upload::read(text).is_some() {
        return true;
    }
    let words = words(text);
    if mentions_weather(&words) || mentions_desktop(&words) || super::desktop::is_desktop(text) {
        return true;
    }
    // "reload", "switch to my mail tab": navigation is a request of its own.
    if super::navigation::read(text).is_some() {
        return true;
    }
    let reading = utterance::read(text);
    match reading.cue {
        Cue::Question | Cue::MultiStep | Cue::Scroll(_) | Cue::Back | Cue::Type => true,
        // "where's the privacy policy", "what are the best credit cards": questions.
        Cue::Act if reading.locates || reading.asks_about || reading.asks_way => true,
        Cue::Act => {
            let after_begin = reading.tokens.len().saturating_sub(reading.begin);
            reading.verb != Verb::None && after_begin >= 2
        }
    }
}

fn new_request(text: &str, browser: bool) -> Proposal {
    let mut p = new(if browser {
        Goal::Browser
    } else {
        Goal::Conversation
    });
    if browser {
        p.arguments
            .insert("request".into(), text.trim().to_string());
    }
    p
}

fn new(goal: Goal) -> Proposal {
    Proposal {
        relation: Some(Relation::NewRequest),
        goal: Some(goal),
        ..Proposal::default()
    }
}

fn relation(r: Relation) -> Proposal {
    Proposal {
        relation: Some(r),
        ..Proposal::default()
    }
}

/// "No, I meant Pune" / "actually, the second one": the corrected value, read against the
/// question when one is pending.
fn correction(rest: &str, question: Option<&Question>, request: Option<&str>) -> Proposal {
    let mut p = relation(Relation::Correction);
    if let Some(q) = question.filter(|q| q.kind == QuestionKind::Choice) {
        p.value = answer(rest, q);
        if p.value.is_none() {
            p.relation = Some(Relation::Answer);
            p.misfit = Some(misfit(rest, q));
        }
        return p;
    }
    let rest_words = words(rest);
    if let Some(place) = place_in(rest) {
        p.arguments.insert("place".into(), place);
    } else if let Some(request) = request.filter(|_| question.is_none()) {
        if let Some(value) = clean(strip_preposition(rest), MAX_TEXT_CHARS) {
            p.arguments
                .insert("request".into(), corrected_request(request, &value));
        }
    } else if !mentions_weather(&rest_words) {
        p.value = clean(strip_preposition(rest), MAX_TEXT_CHARS);
    }
    p
}

/// A request corrected by a few words: "search YouTube for jazz" + "blues" → "search YouTube
/// for blues". Words that are a request of their own ("search for blues") replace it; a search's
/// query is replaced by them; otherwise they take the place of what followed the request's verb
/// ("upvote the third story" + "the fourth one" → "upvote the fourth one").
pub fn corrected_request(request: &str, value: &str) -> String {
    if request_of_its_own(value, true).is_some_and(|p| p.goal != Some(Goal::Conversation))
        && utterance::read(value).verb != Verb::None
    {
        return value.to_string();
    }
    if let Some(super::navigation::Nav::Search { query, .. }) = super::navigation::read(request) {
        if let Some(at) = request.to_lowercase().rfind(&query.to_lowercase()) {
            return format!("{}{value}{}", &request[..at], &request[at + query.len()..]);
        }
    }
    let reading = utterance::read(request);
    let object = reading.head.span.first().map(|&i| &reading.tokens[i]);
    match object {
        Some(object) if reading.verb != Verb::None && object.start > 0 => {
            format!("{}{value}", &request[..object.start])
        }
        _ => value.to_string(),
    }
}

/// Words that carry no choice of their own in an answer ("I'll take the second one, please").
const ANSWER_WORDS: &[&str] = &[
    "the", "a", "an", "one", "number", "option", "choice", "please", "that", "this", "is", "it",
    "i", "ll", "d", "mean", "meant", "want", "choose", "pick", "select", "take", "click", "tap",
    "press", "open", "go", "with", "for", "me", "ok", "okay", "yes", "yeah", "no", "let", "s",
    "us", "item", "entry", "result", "link", "button", "row", "story", "post", "on", "thanks",
];
const YES: &[&str] = &[
    "yes", "yeah", "yep", "yup", "correct", "right", "sure", "exactly", "ok", "okay", "confirm",
];

/// Which of the labels the words pick: by number ("2", "number two"), ordinal ("the second
/// one", "the last"), "yes" when there is one, the label itself, or a description only one label
/// fits ("the one about rust"). The words besides the number must fit that label too, so
/// "upvote the third story" picks the third of three upvote arrows but not the third of three
/// "Comments" links.
pub fn pick(text: &str, labels: &[&str]) -> Option<usize> {
    let tokens = text::tokens(text);
    if tokens.is_empty() || labels.is_empty() {
        return None;
    }
    let n = labels.len() as u32;
    let norms: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
    let label_tokens: Vec<Vec<text::Token>> = labels.iter().map(|l| text::tokens(l)).collect();
    // The whole label said back picks it, whatever numbers it holds.
    if let Some(exact) = label_tokens.iter().position(|l| {
        l.len() == tokens.len() && l.iter().zip(&tokens).all(|(a, b)| a.norm == b.norm)
    }) {
        return Some(exact);
    }
    let mut number: Option<u32> = None;
    let mut rest = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| norms[p]);
        let k = text::ordinal_word(&t.norm)
            .or_else(|| (t.norm == "last").then_some(n))
            .or_else(|| (t.norm == "top").then_some(1))
            .or_else(|| {
                // "one" is a number only alone or after "number"/"option"/"choice".
                let counted = t.norm != "one"
                    || norms.len() == 1
                    || matches!(prev, Some("number" | "option" | "choice"));
                text::number_word(&t.norm).filter(|_| counted)
            });
        // A number beyond the choices is a word of a label ("70% faster"), not a pick.
        let k = k.filter(|k| (1..=n).contains(k) || text::ordinal_word(&t.norm).is_some());
        match k {
            Some(k) if number.is_none() => number = Some(k),
            Some(_) => return None, // two numbers: not one pick
            None if is_in(ANSWER_WORDS, &t.norm) || is_in(lexicon::STOPWORDS, &t.norm) => {}
            None => rest.push(t),
        }
    }

    let fits = |i: usize| {
        rest.iter().all(|w| {
            label_tokens[i].iter().any(|l| {
                l.stem == w.stem
                    || (w.norm.len() >= 5 && l.norm.starts_with(&w.norm))
                    || (l.norm.len() >= 5 && w.norm.starts_with(&l.norm))
            })
        })
    };
    if let Some(k) = number {
        let i = (k as usize).checked_sub(1)?;
        return (i < labels.len() && fits(i)).then_some(i);
    }
    if rest.is_empty() {
        let yes = norms.iter().any(|w| is_in(YES, w));
        return (yes && labels.len() == 1).then_some(0);
    }
    let said: Vec<&str> = rest.iter().map(|t| t.norm.as_str()).collect();
    if let Some(exact) = label_tokens.iter().position(|l| {
        let label: Vec<&str> = l.iter().map(|t| t.norm.as_str()).collect();
        label == said
    }) {
        return Some(exact);
    }
    let fitting: Vec<usize> = (0..labels.len()).filter(|&i| fits(i)).collect();
    match fitting.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// Keys of choices, by the labels they show.
pub fn pick_choice<'c>(text: &str, choices: &'c [Choice]) -> Option<&'c Choice> {
    let labels: Vec<&str> = choices.iter().map(|c| c.label.as_str()).collect();
    pick(text, &labels).map(|i| &choices[i])
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

/// Words about the current interaction rather than a new one: a correction ("actually, in
/// Paris", "no, I meant …") or a cancel ("never mind").
pub fn corrects_or_cancels(text: &str) -> bool {
    strip_correction(text).is_some() || is_cancel(&words(text))
}

fn is_cancel(words: &[String]) -> bool {
    let joined = words.join(" ");
    let joined = joined
        .trim_start_matches("oh ")
        .trim_end_matches(" please")
        .trim_end_matches(" then");
    matches!(
        joined,
        "cancel"
            | "cancel that"
            | "cancel it"
            | "stop"
            | "stop it"
            | "stop that"
            | "never mind"
            | "nevermind"
            | "forget it"
            | "forget about it"
            | "abort"
            | "none"
            | "none of them"
            | "none of those"
            | "no never mind"
    )
}

pub(crate) fn yes_or_no(text: &str) -> Option<bool> {
    let t = words(text).join(" ");
    match t.as_str() {
        "yes" | "yeah" | "yep" | "sure" | "ok" | "okay" | "do it" | "go ahead" | "confirm"
        | "yes please" => Some(true),
        "no" | "nope" | "don't" | "do not" | "no thanks" => Some(false),
        _ => None,
    }
}

/// Requests about the desktop's own apps and files: "on my desktop", "the file manager",
/// "in the editor", "the file I selected".
fn mentions_desktop(words: &[String]) -> bool {
    let joined = format!(" {} ", words.join(" "));
    [
        " my desktop ",
        " file manager ",
        " the editor ",
        " text editor ",
        " file i selected ",
    ]
    .iter()
    .any(|m| joined.contains(m))
}

fn mentions_weather(words: &[String]) -> bool {
    let has = |w: &str| words.iter().any(|x| x == w);
    let named = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "weather" | "forecast" | "temperature" | "raining" | "rain" | "sunny" | "umbrella"
        )
    });
    // "how hot is it in Mumbai", "is it cold in Pune": how it feels, asked of "it" (a page's
    // "Hot" tab is not the weather); "what's it like outside".
    let feels = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "hot" | "cold" | "warm" | "chilly" | "humid" | "windy" | "snowing" | "freezing"
        )
    }) && has("it")
        && (has("how") || words.first().is_some_and(|w| w == "is"));
    let outside = has("outside") && has("like");
    named || feels || outside
}

/// "Actually, in Pune" / "no, I meant Pune" / "I meant Pune": the text after the marker.
pub(crate) fn strip_correction(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    const MARKERS: [&str; 8] = [
        "actually",
        "no i meant",
        "no, i meant",
        "i meant",
        "sorry,",
        "make that",
        "no,",
        "instead",
    ];
    for m in MARKERS {
        if lower.starts_with(m) && lower.is_char_boundary(m.len()) {
            let after = &t[m.len()..];
            if after.is_empty() || after.starts_with(|c: char| !c.is_alphanumeric()) {
                return Some(after.trim_start_matches(|c: char| c == ',' || c.is_whitespace()));
            }
        }
    }
    None
}

/// A place named after "in", "for" or "at", up to the end of the sentence.
fn place_in(text: &str) -> Option<String> {
    // "… in Ahmedabad for me": the closer is not the place.
    let trimmed = text.trim().trim_end_matches(['.', '!', '?']);
    let text = [" for me", " for us", " please"]
        .iter()
        .find_map(|c| trimmed.strip_suffix(c))
        .unwrap_or(trimmed);
    if let Some(place) = place_before_weather(text) {
        return Some(place);
    }
    let lower = text.to_lowercase();
    for prep in [" in ", " for ", " at "] {
        let padded = format!(" {lower}");
        if let Some(pos) = padded.rfind(prep) {
            // `pos` indexes `padded`, which is `text` shifted by one character.
            let start = pos + prep.len() - 1;
            if let Some(rest) = text.get(start..) {
                let rest = rest
                    .trim_start_matches(|c: char| c.is_whitespace())
                    .trim_start_matches("the city of ");
                let cut = ["today", "tonight", "tomorrow", "right now", "now", "please"]
                    .iter()
                    .filter_map(|w| rest.to_lowercase().find(&format!(" {w}")))
                    .min()
                    .unwrap_or(rest.len());
                if let Some(v) = clean(&rest[..cut], MAX_PLACE_CHARS) {
                    return Some(v);
                }
            }
        }
    }
    None
}

/// "Pune weather", "Mumbai forecast": a place said before the word, with nothing else.
fn place_before_weather(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (last, before) = words.split_last()?;
    let last = last.to_lowercase();
    let fits = matches!(last.as_str(), "weather" | "forecast")
        && (1..=3).contains(&before.len())
        && before
            .iter()
            .all(|w| w.chars().next().is_some_and(char::is_uppercase));
    fits.then(|| clean(&before.join(" "), MAX_PLACE_CHARS))
        .flatten()
}

/// "in Ahmedabad.", "how about Pune?", "Pune please": the place, when the words are short enough
/// to be one.
fn place_answer(text: &str) -> Option<String> {
    let t = strip_preposition(strip_answer_opener(text));
    let t = t.trim().trim_end_matches(['.', '!', '?']);
    let t = t
        .strip_suffix(" please")
        .or_else(|| t.strip_suffix(", please"))
        .unwrap_or(t);
    let v = clean(t, MAX_PLACE_CHARS)?;
    (words(&v).len() <= MAX_PLACE_WORDS).then_some(v)
}

/// "how about X", "what about X", "try X", "it's X", "it is X": the answer after the opener.
fn strip_answer_opener(text: &str) -> &str {
    let t = text.trim();
    let lower = t.to_lowercase();
    for opener in [
        "how about ",
        "what about ",
        "try ",
        "it's ",
        "it is ",
        "i'm in ",
        "i am in ",
    ] {
        if lower.starts_with(opener) && t.is_char_boundary(opener.len()) {
            return &t[opener.len()..];
        }
    }
    t
}

fn strip_preposition(text: &str) -> &str {
    let t = text.trim();
    for prep in ["in ", "for ", "at "] {
        if t.len() > prep.len()
            && t.is_char_boundary(prep.len())
            && t[..prep.len()].eq_ignore_ascii_case(prep)
        {
            return &t[prep.len()..];
        }
    }
    t
}

/// Trim punctuation and whitespace; refuse empty or over-long spans.
fn clean(text: &str, max_chars: usize) -> Option<String> {
    let v = text
        .trim()
        .trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace());
    if v.is_empty() || v.chars().count() > max_chars {
        return None;
    }
    Some(v.to_string())
}

/// The desktop recipe's arguments from the person's words: `heading` (verbatim after "heading
/// to"), `file` (a file name they said, if any), `save` and `reveal` ("yes"/"no"), and the whole
/// `request`. A missing heading is left out, so the interaction asks for it.
pub fn desktop_arguments(request: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert("request".to_string(), request.trim().to_string());
    let lower = request.to_lowercase();
    // The heading recipe, or the general steps (`director::desktop`) read again by the executor.
    let task = if lower.contains("heading") {
        "heading"
    } else {
        "steps"
    };
    out.insert("task".to_string(), task.to_string());
    let mut heading = None;
    // The new heading: after "heading … to" ("change its heading to X", "the heading of notes.md
    // to X") or "heading says X", up to the next clause.
    let value_at = lower.find("heading").and_then(|h| {
        [" to ", " says ", " say ", " reads "]
            .iter()
            .filter_map(|m| lower[h..].find(m).map(|i| h + i + m.len()))
            .min()
    });
    if let Some(start) = value_at.filter(|s| request.is_char_boundary(*s)) {
        let rest = &request[start..];
        let rest_lower = &lower[start..];
        let end = [
            ", ",
            " and save",
            " and show",
            ";",
            ". ",
            " then ",
            " in the editor",
            " in the text editor",
            " on my desktop",
        ]
        .iter()
        .filter_map(|m| rest_lower.find(m))
        .min()
        .unwrap_or(rest.len());
        let h = rest[..end]
            .trim()
            .trim_end_matches('.')
            .trim_matches(|c| c == '"' || c == '\'' || c == '“' || c == '”')
            .trim()
            .to_string();
        if !h.is_empty() && h.chars().count() <= MAX_TEXT_CHARS {
            heading = Some(h);
        }
    }
    let file = request
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_matches(|c: char| c == '"' || c == '\'' || c == '.'))
        .find(|w| {
            w.contains('.')
                && w.rsplit('.').next().is_some_and(|ext| {
                    !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())
                })
                && !w.starts_with('.')
        })
        .filter(|w| heading.as_deref().is_none_or(|h| !h.contains(w)))
        .map(str::to_string);
    if let Some(h) = heading {
        out.insert("heading".into(), h);
    }
    if let Some(f) = file {
        out.insert("file".into(), f);
    }
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    out.insert("save".into(), yes_no(lower.contains("save")));
    out.insert(
        "reveal".into(),
        yes_no(
            ["file manager", "show it", "reveal"]
                .iter()
                .any(|m| lower.contains(m)),
        ),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Question;

    fn question(kind: QuestionKind, labels: &[&str]) -> Pending {
        Pending::Question(Question {
            kind,
            slot: if kind == QuestionKind::Place {
                "place"
            } else {
                "target"
            }
            .into(),
            prompt: "Which one?".into(),
            known_arguments: BTreeMap::new(),
            choices: labels
                .iter()
                .enumerate()
                .map(|(i, l)| Choice {
                    key: format!("k{}", i + 1),
                    label: l.to_string(),
                })
                .collect(),
            owner: "desk".into(),
            expires_at: u64::MAX,
        })
    }

    fn read_in(text: &str, phase: Phase, pending: &Pending) -> Proposal {
        read(
            text,
            &Situation {
                phase,
                pending,
                browser: true,
                ..Situation::default()
            },
        )
    }

    /// (said, relation, goal, value or place, misfit?).
    type Row = (
        &'static str,
        Relation,
        Option<Goal>,
        Option<&'static str>,
        bool,
    );

    /// Rows against a pending "Which city?".
    #[test]
    #[allow(clippy::type_complexity)]
    fn against_a_place_question() {
        use Relation::*;
        let q = question(QuestionKind::Place, &[]);
        let table: &[Row] = &[
            ("Ahmedabad", Answer, None, Some("Ahmedabad"), false),
            ("in Ahmedabad.", Answer, None, Some("Ahmedabad"), false),
            ("New York", Answer, None, Some("New York"), false),
            ("how about Pune?", Answer, None, Some("Pune"), false),
            (
                "Frankfurt am Main, Germany",
                Answer,
                None,
                Some("Frankfurt am Main, Germany"),
                false,
            ),
            (
                "upvote the third story",
                NewRequest,
                Some(Goal::Browser),
                None,
                false,
            ),
            (
                "open the comments on the second story",
                NewRequest,
                Some(Goal::Browser),
                None,
                false,
            ),
            (
                "search YouTube for lo-fi beats",
                NewRequest,
                Some(Goal::Browser),
                None,
                false,
            ),
            ("scroll down", NewRequest, Some(Goal::Browser), None, false),
            ("reload", NewRequest, Some(Goal::Browser), None, false),
            (
                "switch to my mail tab",
                NewRequest,
                Some(Goal::Browser),
                None,
                false,
            ),
            (
                "what's the weather in Pune",
                NewRequest,
                Some(Goal::Weather),
                Some("Pune"),
                false,
            ),
            ("never mind", Cancel, None, None, false),
            ("cancel", Cancel, None, None, false),
            ("No, I meant Pune", Correction, None, Some("Pune"), false),
            ("actually in Pune", Correction, None, Some("Pune"), false),
            (
                "well I am really not sure which of the cities I would like to know about",
                Answer,
                None,
                None,
                true,
            ),
        ];
        for (said, relation, goal, value, misfit) in table {
            let p = read_in(said, Phase::Asking, &q);
            assert_eq!(p.relation, Some(*relation), "{said}");
            assert_eq!(p.goal, *goal, "{said}");
            let got = p
                .value
                .as_deref()
                .or(p.arguments.get("place").map(String::as_str));
            assert_eq!(got, *value, "{said}: {p:?}");
            assert_eq!(p.misfit.is_some(), *misfit, "{said}: {p:?}");
        }
    }

    #[test]
    fn weather_is_read_from_how_it_feels_and_a_place_before_the_word() {
        let table = [
            (
                "how hot is it in Mumbai",
                Some(Goal::Weather),
                Some("Mumbai"),
            ),
            (
                "is it cold in Pune tonight",
                Some(Goal::Weather),
                Some("Pune"),
            ),
            (
                "what's it like outside in Pune",
                Some(Goal::Weather),
                Some("Pune"),
            ),
            ("Pune weather", Some(Goal::Weather), Some("Pune")),
            (
                "could you check the weather in Ahmedabad for me",
                Some(Goal::Weather),
                Some("Ahmedabad"),
            ),
            (
                "how cold is it in Ahmedabad tonight",
                Some(Goal::Weather),
                Some("Ahmedabad"),
            ),
            // A page's "Hot" tab is not the weather.
            ("open hot", Some(Goal::Browser), None),
            // Searching a site for rain sounds is not the weather; the weather in a place is.
            ("find rain sounds on YouTube", Some(Goal::Browser), None),
            ("search YouTube for rain sounds", Some(Goal::Browser), None),
            (
                "search for weather in Pune",
                Some(Goal::Weather),
                Some("Pune"),
            ),
        ];
        for (said, goal, place) in table {
            let p = read(
                said,
                &Situation {
                    browser: true,
                    ..Situation::default()
                },
            );
            assert_eq!(p.goal, goal, "{said}: {p:?}");
            assert_eq!(
                p.arguments.get("place").map(String::as_str),
                place,
                "{said}: {p:?}"
            );
        }
    }

    #[test]
    fn a_correction_while_a_request_runs_corrects_that_request() {
        let table = [
            (
                "search YouTube for jazz",
                "no, I meant blues",
                "search YouTube for blues",
            ),
            (
                "look up Ada Lovelace on Wikipedia",
                "actually Grace Hopper",
                "look up Grace Hopper on Wikipedia",
            ),
            (
                "upvote the third story",
                "no, the fourth one",
                "upvote the fourth one",
            ),
            (
                "search YouTube for jazz",
                "no, I meant open the news tab",
                "open the news tab",
            ),
        ];
        for (request, said, want) in table {
            let p = read(
                said,
                &Situation {
                    phase: Phase::Running,
                    browser: true,
                    request: Some(request),
                    ..Situation::default()
                },
            );
            assert_eq!(p.relation, Some(Relation::Correction), "{said}");
            assert_eq!(
                p.arguments.get("request").map(String::as_str),
                Some(want),
                "{request} / {said}: {p:?}"
            );
        }
        // The weather's place is still a place.
        let p = read(
            "actually in Pune",
            &Situation {
                phase: Phase::Running,
                request: None,
                ..Situation::default()
            },
        );
        assert_eq!(p.arguments.get("place").map(String::as_str), Some("Pune"));
    }

    #[test]
    fn against_a_choice_question() {
        use Relation::*;
        let q = question(
            QuestionKind::Choice,
            &[
                "upvote (1. Show HN: A tiny Rust database)",
                "upvote (2. SQLite in 2026)",
                "upvote (3. The Feynman lectures)",
            ],
        );
        let table: &[(&str, Relation, Option<&str>)] = &[
            ("2", Answer, Some("k2")),
            ("the second one", Answer, Some("k2")),
            ("number three", Answer, Some("k3")),
            ("the last one", Answer, Some("k3")),
            ("first", Answer, Some("k1")),
            ("I'll take the second, please", Answer, Some("k2")),
            ("the sqlite one", Answer, Some("k2")),
            ("the one about the feynman lectures", Answer, Some("k3")),
            ("upvote the third story", Answer, Some("k3")),
            ("no, I meant the first one", Correction, Some("k1")),
            ("never mind", Cancel, None),
            ("none of them", Cancel, None),
            ("open the comments on the second story", NewRequest, None),
            ("what's the weather?", NewRequest, None),
            ("the fourth one", Answer, None),
            ("the purple one", Answer, None),
        ];
        for (said, relation, key) in table {
            let p = read_in(said, Phase::Asking, &q);
            assert_eq!(p.relation, Some(*relation), "{said}: {p:?}");
            assert_eq!(p.value.as_deref(), *key, "{said}: {p:?}");
            if *relation == Answer && key.is_none() {
                assert!(p.misfit.is_some(), "{said}: {p:?}");
            }
        }
    }

    #[test]
    fn yes_picks_the_only_choice_and_words_must_fit_the_numbered_label() {
        assert_eq!(pick("yes", &["Sign in"]), Some(0));
        assert_eq!(pick("yes", &["Sign in", "Sign up"]), None);
        assert_eq!(
            pick("the second comments link", &["upvote", "upvote"]),
            None
        );
        assert_eq!(
            pick(
                "Show HN: a tiny Rust database",
                &["upvote", "Show HN: A tiny Rust database"]
            ),
            Some(1)
        );
        assert_eq!(pick("one", &["a", "b"]), Some(0));
        assert_eq!(pick("that one", &["a", "b"]), None);
    }

    #[test]
    fn with_nothing_pending() {
        let none = Pending::None;
        let p = read_in("What's the weather?", Phase::Empty, &none);
        assert_eq!(
            (p.relation, p.goal),
            (Some(Relation::NewRequest), Some(Goal::Weather))
        );
        let p = read_in("weather for New York", Phase::Finished, &none);
        assert_eq!(p.arguments["place"], "New York");
        let p = read_in("upvote the third story", Phase::Finished, &none);
        assert_eq!(
            (p.relation, p.goal),
            (Some(Relation::NewRequest), Some(Goal::Browser))
        );
        assert_eq!(p.arguments["request"], "upvote the third story");
        let p = read(
            "upvote the third story",
            &Situation {
                phase: Phase::Finished,
                pending: &none,
                browser: false,
                ..Situation::default()
            },
        );
        assert_eq!(p.goal, Some(Goal::Conversation));
        // An upload is the page's, even when it names the file manager's selection.
        for upload in [
            "upload the file I selected",
            "upload the file I selected in the file manager",
            "attach notes.md to the form",
        ] {
            let p = read_in(upload, Phase::Finished, &none);
            assert_eq!(p.goal, Some(Goal::Browser), "{upload}");
            assert_eq!(p.arguments["request"], upload);
        }
        // The desktop task that names the selection stays the desktop's.
        let p = read_in(
            "open the notes file I selected on my desktop",
            Phase::Finished,
            &none,
        );
        assert_eq!(p.goal, Some(Goal::NativeApp));
        let p = read_in("never mind", Phase::Running, &none);
        assert_eq!(p.relation, Some(Relation::Cancel));
        // "Actuallyville" is a place, not a correction marker.
        let q = question(QuestionKind::Place, &[]);
        assert_eq!(
            read_in("Actuallyville", Phase::Asking, &q).relation,
            Some(Relation::Answer)
        );
    }

    #[test]
    fn values_are_bounded_spans() {
        let q = question(QuestionKind::Place, &[]);
        let long = "x".repeat(MAX_PLACE_CHARS + 1);
        let p = read_in(&long, Phase::Asking, &q);
        assert_eq!(p.value, None);
        assert!(p.misfit.is_some());
        assert!(read_in("  ?! ", Phase::Asking, &q).value.is_none());
    }

    /// With a project catalog: words that name a project are a coding request before anything
    /// else; a sound-alike does not outweigh weather words; the project question takes yes, no
    /// and a pick, and lets a request of its own through.
    #[test]
    fn coding_turns_with_a_catalog() {
        use crate::director::coding::{self, Entry};
        let entries = [Entry {
            node: "desk".into(),
            name: "Rivvl".into(),
        }];
        let snapshot = coding::snapshot("desk", &entries, &[]);
        let voice = |text: &str, phase: Phase, pending: &Pending| {
            read(
                text,
                &Situation {
                    phase,
                    pending,
                    browser: true,
                    mode: InputMode::Voice,
                    projects: Some(&snapshot),
                    request: None,
                },
            )
        };
        let none = Pending::None;
        // (words, goal, asks)
        let table: &[(&str, Goal, bool)] = &[
            ("in Rivvl, check out branch Zivil", Goal::Coding, false),
            ("in Rivel, check out branch Zivil", Goal::Coding, true),
            ("what's the weather in Rivel", Goal::Weather, false),
            ("in Rivvl, check the weather widget", Goal::Coding, false),
            ("upvote the third story", Goal::Browser, false),
            // A project's name inside a navigation request is the request's words.
            ("search YouTube for Rivvl", Goal::Browser, false),
            ("open youtube in a new tab", Goal::Browser, false),
            ("in Rivvl, open the README", Goal::Coding, false),
            ("in Rivvl, switch to the main branch", Goal::Coding, false),
            ("open Rivvl", Goal::Browser, false),
        ];
        for (words, goal, asks) in table {
            let p = voice(words, Phase::Finished, &none);
            assert_eq!(p.relation, Some(Relation::NewRequest), "{words}");
            assert_eq!(p.goal, Some(*goal), "{words}: {p:?}");
            assert_eq!(p.ask.is_some(), *asks, "{words}: {p:?}");
        }
        // Without a catalog nothing is a coding request.
        let p = read_in("in Rivvl, check out branch Zivil", Phase::Empty, &none);
        assert_eq!(p.goal, Some(Goal::Browser));

        let asking = voice("in Rivel, check out branch Zivil", Phase::Empty, &none)
            .ask
            .unwrap();
        let q = Pending::Question(Question {
            kind: asking.kind,
            slot: asking.slot,
            prompt: asking.prompt,
            known_arguments: [(
                "request".to_string(),
                "in Rivel, check out branch Zivil".to_string(),
            )]
            .into(),
            choices: asking.choices,
            owner: "desk".into(),
            expires_at: u64::MAX,
        });
        // (said, relation, value)
        let table: &[(&str, Relation, Option<&str>)] = &[
            ("yes", Relation::Answer, Some("desk/Rivvl")),
            ("no", Relation::Cancel, None),
            ("never mind", Relation::Cancel, None),
            ("what's the weather in Pune", Relation::NewRequest, None),
            ("the purple one", Relation::Answer, None),
        ];
        for (said, relation, value) in table {
            let p = voice(said, Phase::Asking, &q);
            assert_eq!(p.relation, Some(*relation), "{said}: {p:?}");
            assert_eq!(p.value.as_deref(), *value, "{said}: {p:?}");
            if *relation == Relation::Answer {
                assert_eq!(p.misfit.is_some(), value.is_none(), "{said}: {p:?}");
            }
        }
        let yes = voice("yes", Phase::Asking, &q);
        assert_eq!(yes.arguments["objective"], "check out branch Zivil");
        assert_eq!(yes.learned.len(), 1);
    }

    #[test]
    fn desktop_requests_carry_their_arguments() {
        let p = read_in(
            "On my desktop, open the notes file I selected, change its heading to Meeting notes, save it, and show it in the file manager.",
            Phase::Empty,
            &Pending::None,
        );
        assert_eq!(p.goal, Some(Goal::NativeApp));
        assert_eq!(p.arguments["heading"], "Meeting notes");
        assert_eq!(p.arguments["save"], "yes");
        assert_eq!(p.arguments["reveal"], "yes");
        assert!(!p.arguments.contains_key("file"));
        let named =
            desktop_arguments("on my desktop, open todo.md and change its heading to \"Plan\"");
        assert_eq!(named["file"], "todo.md");
        assert_eq!(named["heading"], "Plan");
        assert_eq!(named["save"], "no");
        // The heading after "heading … to" or "heading says", up to the next clause.
        for (said, file) in [
            (
                "change the heading of notes.md to Meeting notes, save it",
                Some("notes.md"),
            ),
            (
                "update the heading of the file I selected to Meeting notes, then save it",
                None,
            ),
            (
                "change the file I selected so its heading says Meeting notes, save it",
                None,
            ),
            (
                "set the heading of notes.md to Meeting notes in the editor and save it",
                Some("notes.md"),
            ),
        ] {
            let a = desktop_arguments(said);
            assert_eq!(a["heading"], "Meeting notes", "{said}");
            assert_eq!(a.get("file").map(String::as_str), file, "{said}");
        }
        let missing = desktop_arguments("open the notes file in the editor");
        assert!(!missing.contains_key("heading"));
        let web = read_in("click the third story", Phase::Empty, &Pending::None);
        assert_eq!(web.goal, Some(Goal::Browser));
    }
}

//! The structure the Director derives from an observation (numbered list items, primary links,
//! bylines, section numbers, interchangeable duplicates). The observation itself (the element
//! format of `shared/eval/README.md`) is plain data in `crate::model::observation`. Derivation is
//! pure: the same observation always gives the same facts.

use std::collections::HashMap;

pub use crate::model::observation::{
    Element, NameSource, Observation, Similarity, Surface, Unobserved,
};

use super::text::{self, Token};

/// What kind of thing an element is, for role/action compatibility.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleClass {
    /// Accepts typed text (textbox, searchbox, combobox, editable).
    Editable,
    /// Has an on/off state (checkbox, switch, radio).
    Toggle,
    /// Activates or navigates (link, button, tab, menuitem, option, treeitem, ...).
    Activatable,
    /// Static content (text, heading, image, main, ...): not a click target.
    Static,
}

pub fn role_class(element: &Element) -> RoleClass {
    match element.role.as_str() {
        "textbox" | "searchbox" | "combobox" | "textarea" | "spinbutton" => RoleClass::Editable,
        "checkbox" | "switch" | "radio" | "menuitemcheckbox" | "menuitemradio" => RoleClass::Toggle,
        "link" | "button" | "tab" | "menuitem" | "option" | "treeitem" | "listitem" | "row"
        | "gridcell" | "cell" | "slider" | "file" | "icon" => RoleClass::Activatable,
        _ if element.has_state("editable") => RoleClass::Editable,
        _ => RoleClass::Static,
    }
}

/// Facts the Director derives about one element from the whole observation.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementFacts {
    /// Index in reading order.
    pub index: usize,
    pub class: RoleClass,
    /// Label tokens, section number prefix removed.
    pub label: Vec<Token>,
    /// Concepts the label names, with their token ranges.
    pub label_concepts: Vec<(usize, std::ops::Range<usize>)>,
    /// Description tokens (often the link's title attribute).
    pub description: Vec<Token>,
    /// The words of where a link goes ([`destination_words`]) and the other site it goes to
    /// ([`other_site`]): weaker evidence than its own.
    pub destination: Vec<Token>,
    /// The name of the other site a link goes to: "share it on Facebook" is the link to
    /// facebook.com/sharer.php, whatever its label says; "their Twitter", an icon link.
    pub site: Option<String>,
    /// English glosses of the label's words, when the screen is in another language and a
    /// glossary was consulted (`Observation::glosses`): weaker evidence than the label's own words.
    pub glosses: Vec<Token>,
    /// Index into `Structure::contexts`: the tokens of the row it sits in,
    /// item number removed.
    pub context_slot: usize,
    /// Index into `Structure::item_texts` of the list item it belongs to.
    pub item_slot: Option<usize>,
    /// The visible number of the list item it belongs to ("3." in "3. Title").
    pub item: Option<u32>,
    /// Position of that item among the visible items, 1-based.
    pub item_position: Option<u32>,
    /// This is the main link of its list item (the title).
    pub primary: bool,
    /// The label is a section number heading ("3.5 SeaMonkey").
    pub section: bool,
    /// The label is a footnote marker (`[2]`).
    pub footnote: bool,
    /// The label follows "by" in its context: an author or poster.
    pub byline: bool,
    /// A link to the site's front page (`home_links`), whatever its label says.
    pub home: bool,
    pub disabled: bool,
    /// A closed list's choices, each as its words (empty for anything else).
    pub options: Vec<Vec<Token>>,
    pub value: Option<String>,
}

/// A field's value that is a number, with or without its unit ("1", "1 tk", "2 pcs"): the field
/// holds an amount.
pub fn holds_a_number(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.trim_start().starts_with(|c: char| c.is_ascii_digit()))
}

/// All derived facts of an observation, index-aligned with its elements.
#[derive(Debug, Clone, PartialEq)]
pub struct Structure {
    pub facts: Vec<ElementFacts>,
    /// Visible item numbers in reading order.
    pub items: Vec<u32>,
    /// Text of each list item (all its rows), aligned with `items`.
    pub item_texts: Vec<Vec<Token>>,
    /// Tokens of each distinct row context, in order of first appearance.
    pub contexts: Vec<Vec<Token>>,
    /// English glosses of each row context's first word (aligned with `contexts`), on a screen
    /// in another language: the heading of a run ("Bürgerservice") in English words.
    pub context_glosses: Vec<Vec<Token>>,
    /// Tokens of the page title (and its initialism), which name the page itself.
    pub title: Vec<Token>,
}

/// Glosses kept per element.
const MAX_ELEMENT_GLOSSES: usize = 24;

/// The English glosses of `label`'s words, each once: every word's first sense, then every
/// word's second, and so on, so that a long label's last words are glossed too ("Grundmodul
/// Lehrzeit: 2 Jahre": module, apprenticeship, years before a first word's rarer senses).
fn glosses_of(observation: &Observation, label: &[Token]) -> Vec<Token> {
    let Some(glosses) = &observation.glosses else {
        return Vec::new();
    };
    let per_word: Vec<&Vec<String>> = label
        .iter()
        .filter_map(|t| glosses.words.get(&t.norm))
        .collect();
    let deepest = per_word.iter().map(|g| g.len()).max().unwrap_or(0);
    let mut out: Vec<Token> = Vec::new();
    for k in 0..deepest {
        for g in per_word.iter().filter_map(|g| g.get(k)) {
            if out.len() < MAX_ELEMENT_GLOSSES && !out.iter().any(|o| &o.norm == g) {
                out.push(Token::synthetic(g));
            }
        }
    }
    out
}

/// The concepts a label names. A link named by a file format ("mp3", "PDF", "opus (16 MB)")
/// offers that file: it downloads, whatever else its words say.
fn label_concepts(e: &Element, label: &[Token]) -> Vec<(usize, std::ops::Range<usize>)> {
    let mut concepts = super::lexicon::concepts_in(label);
    let first = label
        .iter()
        .position(|t| super::lexicon::is_in(super::lexicon::FILE_FORMATS, &t.norm));
    if let (Some(k), "link" | "button") = (first, e.role.as_str()) {
        let meaningful = label
            .iter()
            .filter(|t| {
                !t.is_number() && !super::lexicon::is_in(super::lexicon::STOPWORDS, &t.norm)
            })
            .count();
        let download = super::lexicon::CONCEPTS
            .iter()
            .position(|(name, _)| *name == "download");
        if let (true, Some(c)) = (meaningful <= 2, download) {
            if !concepts.iter().any(|(x, _)| *x == c) {
                concepts.push((c, k..k + 1));
            }
        }
    }
    // A link or button that says only a phone number calls it ("call the office" on
    // *03-5829-8082*).
    if matches!(e.role.as_str(), "link" | "button") && !label.is_empty() && phone_number(&e.label) {
        if let Some(c) = super::lexicon::concept_named("phone") {
            concepts.push((c, 0..label.len()));
        }
    }
    // A button drawn as the letter X is a close button (a link "X" may be the network X).
    if e.role == "button" && label.len() == 1 && label[0].norm == "x" {
        if let Some(c) = super::lexicon::concept_named("close") {
            concepts.push((c, 0..1));
        }
    }
    concepts
}

/// Text that is a telephone number as written: digits (seven to fifteen) with only the signs
/// numbers are grouped by ("+49 30 1234567", "(03) 5829-8082"); not a date ("12/05/2020") or a
/// price.
fn phone_number(text: &str) -> bool {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    let groups: Vec<usize> = text
        .split([' ', '-'])
        .filter(|g| !g.is_empty())
        .map(str::len)
        .collect();
    let date = matches!(groups.as_slice(), [4, 2, 2] | [2, 2, 4]);
    !date
        && (7..=15).contains(&digits)
        && text
            .trim()
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '+' | '-' | '(' | ')'))
        && text.trim().chars().any(|c| matches!(c, ' ' | '-'))
}

impl Structure {
    pub fn of(observation: &Observation) -> Structure {
        let elements = &observation.elements;
        let mut item_numbers: Vec<Option<u32>> =
            elements.iter().map(|e| item_number(&e.context)).collect();
        if item_numbers.iter().all(Option::is_none) {
            if let Some(loose) = loose_numbers(elements) {
                item_numbers = loose;
            }
        }
        let mut membership = item_membership(elements, &item_numbers);
        if membership.iter().all(Option::is_none) {
            if let Some(cards) = card_membership(elements).or_else(|| link_cards(elements)) {
                item_numbers = cards.clone();
                membership = cards;
            }
        }

        let mut items: Vec<u32> = Vec::new();
        for n in membership.iter().flatten() {
            if items.last() != Some(n) && !items.contains(n) {
                items.push(*n);
            }
        }
        // Rows share one context string; tokenize each once.
        let mut contexts: HashMap<&str, Vec<Token>> = HashMap::new();
        let mut context_order: Vec<&str> = Vec::new();
        for e in elements {
            contexts.entry(e.context.as_str()).or_insert_with(|| {
                context_order.push(e.context.as_str());
                text::tokens(strip_item_number(&e.context))
            });
        }
        // The text of an item: the distinct words of its distinct rows.
        let mut item_text: Vec<(u32, Vec<Token>, Vec<&str>)> = Vec::new();
        for (i, element) in elements.iter().enumerate() {
            let Some(n) = membership[i] else { continue };
            let slot = match item_text.iter().position(|(k, _, _)| *k == n) {
                Some(p) => p,
                None => {
                    item_text.push((n, Vec::new(), Vec::new()));
                    item_text.len() - 1
                }
            };
            let (_, tokens, rows) = &mut item_text[slot];
            if rows.contains(&element.context.as_str()) {
                continue;
            }
            rows.push(element.context.as_str());
            for t in &contexts[element.context.as_str()] {
                if !tokens.iter().any(|x| x.norm == t.norm) {
                    tokens.push(t.clone());
                }
            }
        }
        let primary = primary_links(elements, &item_numbers);
        let crumbs: Vec<usize> = crumb_trails(elements).into_iter().flatten().collect();
        let home = home_links(observation);
        let own_sites = own_sites(observation);

        let facts = elements
            .iter()
            .enumerate()
            .map(|(index, e)| {
                let site = other_site(e, &own_sites);
                let (section, label_rest) = split_section_number(&e.label, &e.context);
                let item = membership[index];
                let label = text::tokens(label_rest);
                let glosses = glosses_of(
                    observation,
                    &label
                        .iter()
                        .cloned()
                        .chain(text::tokens(e.description.as_deref().unwrap_or("")))
                        .collect::<Vec<_>>(),
                );
                ElementFacts {
                    index,
                    class: role_class(e),
                    label_concepts: label_concepts(e, &label),
                    label,
                    description: described(e, crumbs.contains(&index)),
                    destination: destination_words(e.destination.as_deref().unwrap_or(""))
                        .iter()
                        .chain(site.as_ref())
                        .map(|w| Token::synthetic(w))
                        .collect(),
                    site,
                    glosses,
                    context_slot: context_order
                        .iter()
                        .position(|c| *c == e.context.as_str())
                        .unwrap_or(0),
                    item_slot: item.and_then(|n| items.iter().position(|k| *k == n)),
                    item,
                    item_position: item
                        .and_then(|n| items.iter().position(|k| *k == n))
                        .map(|p| p as u32 + 1),
                    primary: primary.contains(&index),
                    section,
                    footnote: is_footnote(&e.label),
                    byline: is_byline(e),
                    home: home.contains(&index),
                    disabled: e.has_state("disabled"),
                    options: if e.is_closed_list() {
                        e.options
                            .iter()
                            .take(crate::model::MAX_OPTIONS)
                            .map(|o| text::tokens(o))
                            .collect()
                    } else {
                        Vec::new()
                    },
                    value: e.value.clone().filter(|v| !v.is_empty()),
                }
            })
            .collect();

        let mut title = text::tokens(&observation.title);
        let initials: String = title
            .iter()
            .filter(|t| t.norm.chars().all(|c| c.is_alphabetic()))
            .filter_map(|t| t.norm.chars().next())
            .collect();
        if initials.chars().count() >= 2 {
            title.push(Token::synthetic(&initials));
        }
        let item_texts = items
            .iter()
            .map(|n| {
                item_text
                    .iter()
                    .find(|(k, _, _)| k == n)
                    .map(|(_, t, _)| t.clone())
                    .unwrap_or_default()
            })
            .collect();
        let contexts: Vec<Vec<Token>> = context_order
            .iter()
            .map(|c| contexts.remove(c).unwrap_or_default())
            .collect();
        // Only the row's first word, where a heading stands: the rest of a row glossed made
        // two ordinals pick wrong rows.
        let context_glosses = contexts
            .iter()
            .map(|c| glosses_of(observation, &c[..c.len().min(1)]))
            .collect();
        Structure {
            facts,
            items,
            item_texts,
            contexts,
            context_glosses,
            title,
        }
    }

    /// The English glosses of the first word of an element's row (empty without a glossary).
    pub fn context_glosses(&self, index: usize) -> &[Token] {
        &self.context_glosses[self.facts[index].context_slot]
    }

    /// The tokens of an element's row context.
    pub fn context(&self, index: usize) -> &[Token] {
        &self.contexts[self.facts[index].context_slot]
    }

    /// The text of the list item an element belongs to (empty if none).
    pub fn item_text(&self, index: usize) -> &[Token] {
        match self.facts[index].item_slot {
            Some(slot) => &self.item_texts[slot],
            None => &[],
        }
    }

    /// Two elements do the same thing: same accessible name, and nothing on the
    /// page tells them apart: the same row, or two links outside any list
    /// item whose label names an entity (links named "Mozilla Foundation" go
    /// to one place; "17 comments" or a button acts on what it sits in).
    pub fn interchangeable(&self, observation: &Observation, a: usize, b: usize) -> bool {
        let (ea, eb) = (&observation.elements[a], &observation.elements[b]);
        let (fa, fb) = (&self.facts[a], &self.facts[b]);
        let alike = |x: &str, y: &str| {
            let (x, y) = (x.trim(), y.trim());
            x.len() == y.len() && x.to_lowercase() == y.to_lowercase()
        };
        let same_label = !ea.label.trim().is_empty() && alike(&ea.label, &eb.label);
        if !same_label {
            return false;
        }
        // A field holds a value of its own: the month, the day and the year under one "Date of
        // Birth" are three things. (A toggle of one name in one row may be a copy: an
        // ingredient list drawn twice.)
        if fa.class == RoleClass::Editable || fb.class == RoleClass::Editable {
            return false;
        }
        // Where each goes, when the scan says: the same place is the same thing, whatever
        // row it sits in; two places are two things, whatever their names.
        if ea.destination.is_some() && eb.destination.is_some() {
            return ea.same_place(eb);
        }
        let links = ea.role == "link" && eb.role == "link";
        // Two links of one name, one going to a place and one to none the scan sees (a
        // "TEILEN" link to Facebook's sharer beside one handled by a script): two things.
        if links && ea.destination.is_some() != eb.destination.is_some() {
            return false;
        }
        // A named link that is not its item's main link (a channel or a publisher under a
        // tile) goes where its name says, whichever item it sits in.
        let named = links && !fa.primary && !fb.primary && names_entity(&ea.label);
        // Two descriptions that differ say where each goes ("Discussion about the content
        // page" / "Discussion about edits from this IP address" on two "Talk" links).
        // So does one described and one not (a share link "Twitter" beside the follow link
        // "Twitter" titled "Follow the Whitehouse on Twitter.").
        let told_apart = !alike(
            ea.description.as_deref().unwrap_or(""),
            eb.description.as_deref().unwrap_or(""),
        );
        !told_apart && ((fa.item == fb.item && ea.context == eb.context) || named)
    }
}

/// Whether a destination (host and path, as the scan writes it) is the observed page itself.
fn goes_to_itself(destination: &str, observation: &Observation) -> bool {
    host_and_path(destination) == host_and_path(&observation.url)
}

/// Two links to one page under two names ("Contact Us" in the header, "Contacts" in a
/// menu). Not links to the observed page itself (a script's "#"): where those go, the scan
/// cannot tell.
pub fn same_page(observation: &Observation, a: usize, b: usize) -> bool {
    let (ea, eb) = (&observation.elements[a], &observation.elements[b]);
    ea.role == "link"
        && eb.role == "link"
        && ea.same_place(eb)
        && !ea
            .destination
            .as_deref()
            .is_some_and(|d| goes_to_itself(d, observation))
}

/// A label that names something ("Mozilla Foundation") rather than counting
/// or acting on its surroundings ("17 comments", "Read more", "reply"): no
/// digits, a capitalised word, and not led by a verb.
fn names_entity(label: &str) -> bool {
    let words = text::tokens(label);
    let Some(first) = words.first() else {
        return false;
    };
    let verb = super::lexicon::is_in(super::lexicon::ACTIVATE_VERBS, &first.norm)
        || super::utterance::UI_VERBS.contains(&first.norm.as_str())
        || first.norm == "more";
    !verb
        && !label.chars().any(|c| c.is_ascii_digit())
        && label
            .split_whitespace()
            .any(|w| w.chars().next().is_some_and(char::is_uppercase))
}

/// The visible list number at the start of a row context: "3. Title" -> 3.
fn item_number(context: &str) -> Option<u32> {
    let trimmed = context.trim_start();
    let digits: String = trimmed.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() || digits.len() > 4 {
        return None;
    }
    let rest = &trimmed[digits.len()..];
    if rest.starts_with(". ") || rest.starts_with(") ") {
        digits.parse().ok()
    } else {
        None
    }
}

fn strip_item_number(context: &str) -> &str {
    match item_number(context) {
        Some(_) => {
            let trimmed = context.trim_start();
            let cut = trimmed
                .find(". ")
                .or_else(|| trimmed.find(") "))
                .map_or(0, |p| p + 2);
            &trimmed[cut..]
        }
        None => context,
    }
}

/// Which numbered list item each element belongs to. An item starts at a row
/// whose context is numbered and takes the following unnumbered rows (like a
/// story's subtext row) until the next item. The last item takes at most as
/// many rows as the complete items had, so a footer does not join it.
fn item_membership(elements: &[Element], numbers: &[Option<u32>]) -> Vec<Option<u32>> {
    let mut tentative: Vec<Option<u32>> = vec![None; elements.len()];
    let mut rows_per_item: Vec<(u32, usize)> = Vec::new();
    let mut current: Option<u32> = None;
    let mut last_context: Option<&str> = None;
    for (i, e) in elements.iter().enumerate() {
        if let Some(n) = numbers[i] {
            if current != Some(n) {
                rows_per_item.push((n, 0));
                last_context = None;
            }
            current = Some(n);
        } else if e.context.trim().is_empty() {
            current = None;
        }
        if let Some(n) = current {
            if last_context != Some(e.context.as_str()) {
                if let Some(last) = rows_per_item.last_mut() {
                    last.1 += 1;
                }
                last_context = Some(e.context.as_str());
            }
            tentative[i] = Some(n);
        }
    }
    if rows_per_item.len() < 2 {
        return tentative;
    }
    let complete = &rows_per_item[..rows_per_item.len() - 1];
    let cap = complete.iter().map(|(_, r)| *r).max().unwrap_or(1);
    let last = rows_per_item[rows_per_item.len() - 1].0;
    let mut rows = 0;
    let mut last_context: Option<&str> = None;
    for (i, e) in elements.iter().enumerate() {
        if tentative[i] == Some(last) {
            if last_context != Some(e.context.as_str()) {
                rows += 1;
                last_context = Some(e.context.as_str());
            }
            if rows > cap {
                tentative[i] = None;
            }
        }
    }
    tentative
}

/// Rows numbered without a dot ("1 Bohemian Rhapsody Queen 5:55") count as
/// list items only when at least three distinct rows carry consecutive
/// numbers, so a stray count ("3 comments") does not make a list.
fn loose_numbers(elements: &[Element]) -> Option<Vec<Option<u32>>> {
    let lead = |context: &str| -> Option<u32> {
        let t = context.trim_start();
        let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
        let rest = &t[digits.len()..];
        let word = rest.strip_prefix(' ')?;
        if digits.is_empty() || digits.len() > 4 || !word.chars().next()?.is_alphabetic() {
            return None;
        }
        digits.parse().ok()
    };
    let mut rows: Vec<(&str, u32)> = Vec::new();
    for e in elements {
        // A table of contents ("1 History 1.1 Eich ...") is sections, not a list.
        if has_dotted_number(&e.context) {
            return None;
        }
        if let Some(n) = lead(&e.context) {
            if !rows.iter().any(|(c, _)| *c == e.context) {
                rows.push((e.context.as_str(), n));
            }
        }
    }
    // One run counting up, or several (two teams' tables: 9-15, then 1-8), each of three rows
    // or more, and no number twice, so a number names one row.
    let mut runs: Vec<usize> = vec![0];
    for w in rows.windows(2) {
        if w[1].1 == w[0].1 + 1 {
            *runs.last_mut().expect("a run") += 1;
        } else {
            runs.push(0);
        }
    }
    let mut numbers: Vec<u32> = rows.iter().map(|r| r.1).collect();
    numbers.sort_unstable();
    numbers.dedup();
    let counted = rows.len() >= 3 && runs.iter().all(|r| r + 1 >= 3) && numbers.len() == rows.len();
    counted.then(|| elements.iter().map(|e| lead(&e.context)).collect())
}

/// Unnumbered lists of cards (products, videos): when an action button
/// repeats with the same label in several distinct contexts ("Add to cart"
/// on each product card), each of those contexts is one item, numbered in
/// reading order. Repeated links do not make cards: same-named links usually
/// go to the same place.
fn card_membership(elements: &[Element]) -> Option<Vec<Option<u32>>> {
    let mut cards: Vec<&str> = Vec::new();
    for (i, e) in elements.iter().enumerate() {
        if e.role == "link" || role_class(e) == RoleClass::Static || e.context.trim().is_empty() {
            continue;
        }
        let label = e.label.trim();
        let repeats_elsewhere = !label.is_empty()
            && elements.iter().enumerate().any(|(j, o)| {
                j != i && o.role == e.role && o.label.trim() == label && o.context != e.context
            });
        if repeats_elsewhere && !cards.contains(&e.context.as_str()) {
            cards.push(e.context.as_str());
        }
    }
    if cards.len() < 2 {
        return None;
    }
    Some(
        elements
            .iter()
            .map(|e| {
                cards
                    .iter()
                    .position(|c| *c == e.context)
                    .map(|p| p as u32 + 1)
            })
            .collect(),
    )
}

/// Unnumbered tiles made only of links (a video result: its title, its channel, then words
/// that are no control: views, age, a snippet), where no button repeats to mark cards. A row is
/// such a tile when its first element is a link whose label leads the row's text (after at most
/// four words such as a duration), it holds more
/// than one element, and words of its own beyond their labels follow that title; the tiles are the rows of
/// the most common shape (their elements' roles in order), at least three, numbered in reading
/// order. A menu or a footer column is not one: its text is its links' labels.
fn link_cards(elements: &[Element]) -> Option<Vec<Option<u32>>> {
    let mut rows: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, e) in elements.iter().enumerate() {
        if e.context.trim().is_empty() {
            continue;
        }
        match rows.iter_mut().find(|(c, _)| *c == e.context) {
            Some((_, members)) => members.push(i),
            None => rows.push((e.context.as_str(), vec![i])),
        }
    }
    let shape = |(context, members): &(&str, Vec<usize>)| -> Option<Vec<&str>> {
        let first = &elements[*members.first()?];
        let row: Vec<String> = text::tokens(context).into_iter().map(|t| t.norm).collect();
        let lead: Vec<String> = text::tokens(&first.label)
            .into_iter()
            .map(|t| t.norm)
            .collect();
        // The title leads the row, after at most a few words that are no control (a
        // thumbnail's duration "1:00:04", a badge "LIVE"); after it come words of the tile's
        // own ("3.1M views", "1 year ago", a snippet), not only other labels.
        let at = (0..=4.min(row.len())).find(|&k| row[k..].starts_with(&lead));
        let leads = first.role == "link" && !lead.is_empty() && at.is_some();
        let labelled: Vec<String> = members
            .iter()
            .flat_map(|&m| text::tokens(&elements[m].label))
            .map(|t| t.norm)
            .collect();
        let own_words = row
            .iter()
            .skip(at.unwrap_or(0) + lead.len())
            .filter(|w| w.chars().any(char::is_alphabetic) && !labelled.contains(w))
            .count();
        (members.len() >= 2 && leads && own_words >= 2)
            .then(|| members.iter().map(|&m| elements[m].role.as_str()).collect())
    };
    let shapes: Vec<(&str, Vec<&str>)> = rows
        .iter()
        .filter_map(|r| shape(r).map(|s| (r.0, s)))
        .collect();
    let common = shapes
        .iter()
        .map(|(_, s)| s)
        .max_by_key(|s| shapes.iter().filter(|(_, o)| o == *s).count())?;
    let tiles: Vec<&str> = shapes
        .iter()
        .filter(|(_, s)| s == common)
        .map(|(c, _)| *c)
        .collect();
    (tiles.len() >= 3).then(|| {
        elements
            .iter()
            .map(|e| {
                tiles
                    .iter()
                    .position(|c| *c == e.context)
                    .map(|p| p as u32 + 1)
            })
            .collect()
    })
}

/// The main link of each numbered row: the link whose label covers most of it.
fn primary_links(elements: &[Element], numbers: &[Option<u32>]) -> Vec<usize> {
    let mut best: Vec<(u32, usize, usize)> = Vec::new();
    for (i, e) in elements.iter().enumerate() {
        let Some(n) = numbers[i] else { continue };
        // The main link is a link or a row, never a button on the card.
        if role_class(e) != RoleClass::Activatable || e.role == "button" {
            continue;
        }
        let len = e.label.trim().chars().count();
        match best.iter_mut().find(|(k, _, _)| *k == n) {
            Some(entry) if len > entry.2 => *entry = (n, i, len),
            Some(_) => {}
            None => best.push((n, i, len)),
        }
    }
    best.into_iter().map(|(_, i, _)| i).collect()
}

/// "3.5 SeaMonkey" -> (true, "SeaMonkey"). An undotted number is a section
/// only inside a table of contents (its row has dotted numbers too): "1
/// History" in "1 History 1.1 Eich ..." is; "17 comments" is a count.
fn split_section_number<'a>(label: &'a str, context: &str) -> (bool, &'a str) {
    let trimmed = label.trim_start();
    let prefix = number_prefix(trimmed);
    let rest = &trimmed[prefix.len()..];
    let numbered = !prefix.is_empty()
        && rest.starts_with(' ')
        && rest
            .trim()
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic());
    let dotted = prefix.trim_end_matches('.').contains('.');
    if numbered && (dotted || has_dotted_number(context)) {
        (true, rest.trim_start())
    } else {
        (false, label)
    }
}

/// The digits and dots a label starts with ("3.5" of "3.5 SeaMonkey"), when it starts with a
/// digit; empty otherwise.
fn number_prefix(label: &str) -> &str {
    if !label.starts_with(|c: char| c.is_ascii_digit()) {
        return "";
    }
    let end = label
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(label.len());
    &label[..end]
}

/// Whether a label's section number ("3.3 Neutral") is under another's ("3 Gifts").
pub fn section_under(child: &str, parent: &str) -> bool {
    fn number(label: &str) -> Option<&str> {
        let n = number_prefix(label.trim_start()).trim_end_matches('.');
        (!n.is_empty()).then_some(n)
    }
    match (number(child), number(parent)) {
        (Some(c), Some(p)) => c.strip_prefix(p).is_some_and(|r| r.starts_with('.')),
        _ => false,
    }
}

/// An item of the menu a button heads: the button's label opens the group's text (the
/// "Shopping" button of "Shopping Earn points Use points") and the item, after it, is not a
/// button itself ("Earn points"). What the menu's name says is what the item is part of.
pub fn menu_under(observation: &Observation, item: usize, heading: usize) -> bool {
    let (e, h) = (&observation.elements[item], &observation.elements[heading]);
    let label = h.label.trim();
    heading < item
        && h.role == "button"
        && e.role != "button"
        && !label.is_empty()
        && !e.context.is_empty()
        && e.context == h.context
        && e.context
            .get(..label.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(label))
}

/// Whether a context holds a section number: a dotted number that heads words ("1.1 Eich" of
/// a table of contents). A price or a change ("$9.05 -1.37", "13.90 -0.18") heads none.
fn has_dotted_number(context: &str) -> bool {
    let words: Vec<&str> = context.split_whitespace().collect();
    words.windows(2).any(|w| {
        let number = w[0].trim_end_matches('.');
        number.contains('.')
            && number.split('.').all(|part| {
                !part.is_empty() && part.len() <= 3 && part.bytes().all(|b| b.is_ascii_digit())
            })
            && w[1].chars().next().is_some_and(char::is_alphabetic)
    })
}

/// An element's description tokens; a link of a breadcrumb trail is also described as one (the
/// words people call it: "the first link in the breadcrumbs", "the breadcrumb trail").
fn described(e: &Element, crumb: bool) -> Vec<Token> {
    let mut out = text::tokens(e.description.as_deref().unwrap_or(""));
    if crumb {
        out.extend(["breadcrumb", "crumb", "trail"].map(Token::synthetic));
    }
    out
}

/// Endings of a page's address that say nothing of what it shows.
const PAGE_ENDINGS: &[&str] = &["html", "htm", "shtml", "php", "asp", "aspx", "jsp", "cfm"];

/// The words of where a link goes, as its address's last two parts spell them: a page's slug
/// ("/news/nvidia-newegg-rtx-3080-apologize": nvidia, newegg, apologize), a section
/// ("/author/michelle-ehrhardt"), a file's format ("…_Affiche2_BD.pdf": pdf). Only words of
/// three letters or more without digits (no ids, dates or fingerprints); not the host.
pub fn destination_words(destination: &str) -> Vec<String> {
    let address = destination.split(' ').next().unwrap_or("");
    let Some((_, path)) = address.split_once('/') else {
        return Vec::new();
    };
    // Escapes read (`%C3%A8` as `è`); a malformed one leaves the path as it is.
    let path = text::percent_decode(path).unwrap_or_else(|| path.to_string());
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let mut out: Vec<String> = Vec::new();
    for part in &parts[parts.len().saturating_sub(2)..] {
        for word in part.split(|c: char| !c.is_alphanumeric()) {
            let word = word.to_lowercase();
            if word.chars().count() >= 3
                && word.chars().all(char::is_alphabetic)
                && !PAGE_ENDINGS.contains(&word.as_str())
                && !out.contains(&word)
            {
                out.push(word);
            }
        }
    }
    out
}

/// The name of the site a host belongs to: "www.facebook.com" → facebook, "api.whatsapp.com"
/// → whatsapp, "news.bbc.co.uk" → bbc. None for an address by number ("127.0.0.1").
pub fn site_name(host: &str) -> Option<String> {
    let host = host.split(':').next().unwrap_or("").to_lowercase();
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    if labels.len() < 2 || labels.iter().all(|l| l.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let mut k = labels.len() - 2;
    // A country's second level ("co.uk", "com.au"): the name is one label further left.
    if k > 0
        && matches!(
            labels[k],
            "co" | "com" | "org" | "net" | "gov" | "ac" | "edu"
        )
    {
        k -= 1;
    }
    Some(labels[k].to_string())
}

fn host_of(destination: &str) -> &str {
    host_and_path(destination).0
}

/// A destination's host and its path (without query or fragment): "https://a.b/c?d" is
/// ("a.b", "c").
fn host_and_path(destination: &str) -> (&str, &str) {
    let address = destination.split(' ').next().unwrap_or("");
    let address = address.split("://").last().unwrap_or(address);
    let end = address.find(['/', '?', '#']).unwrap_or(address.len());
    let (host, rest) = address.split_at(end);
    let path = rest.strip_prefix('/').unwrap_or("");
    (host, path.split(['?', '#']).next().unwrap_or(""))
}

/// The page's own site names: its address's, and the one most of its links go to (a page saved
/// from its site links by the site's full address).
fn own_sites(observation: &Observation) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for e in &observation.elements {
        let Some(name) = e.destination.as_deref().map(host_of).and_then(site_name) else {
            continue;
        };
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => counts.push((name, 1)),
        }
    }
    let mut own: Vec<String> = site_name(host_of(&observation.url)).into_iter().collect();
    if let Some((name, _)) = counts.iter().max_by_key(|(_, c)| *c) {
        own.push(name.clone());
    }
    own
}

/// The name of the other site a link goes to.
fn other_site(e: &Element, own: &[String]) -> Option<String> {
    let name = site_name(host_of(e.destination.as_deref()?))?;
    let word = name.chars().count() >= 3 && name.chars().all(char::is_alphabetic);
    (word && !own.contains(&name)).then_some(name)
}

/// Separators of a path of pages in a row's text.
const PATH_SEPARATORS: &[char] = &['>', '/', '»', '›', '→', '＞', '〉', '\\'];

/// Links that their row reads one after another with a path separator between ("Home /
/// News - Kraftfahrzeugtechnik / Lehrberufe KFT", "福娘童話集 > きょうのイソップ童話"): the
/// breadcrumb trails, each in reading order. Two links at least; the page itself, last, is
/// usually no link.
pub fn crumb_trails(elements: &[Element]) -> Vec<Vec<usize>> {
    let mut trails: Vec<Vec<usize>> = Vec::new();
    for i in 1..elements.len() {
        let (a, b) = (&elements[i - 1], &elements[i]);
        if a.context != b.context || !separated(&a.context, a.label.trim(), b.label.trim()) {
            continue;
        }
        match trails.last_mut() {
            Some(trail) if trail.last() == Some(&(i - 1)) => trail.push(i),
            _ => trails.push(vec![i - 1, i]),
        }
    }
    trails
}

/// `a`, a path separator and `b`, in that order in `row`.
fn separated(row: &str, a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    row.match_indices(a).any(|(at, _)| {
        let rest = row[at + a.len()..].trim_start();
        rest.chars().next().is_some_and(|sep| {
            PATH_SEPARATORS.contains(&sep) && rest[sep.len_utf8()..].trim_start().starts_with(b)
        })
    })
}

fn is_footnote(label: &str) -> bool {
    let l = label.trim();
    l.len() >= 3
        && l.starts_with('[')
        && l.ends_with(']')
        && l[1..l.len() - 1].chars().all(|c| c.is_alphanumeric())
}

/// Words that say the name after them is the author's: "by", "author:", and the same in the
/// languages the glossary reads ("von", "par", "Autor", Japanese 著者 and 作者).
const BYLINE_MARKERS: &[&str] = &[
    "by", "author", "authors", "writer", "von", "autor", "autorin", "par", "auteur", "auteure",
    "por", "autore", "autrice", "door", "av", "af", "著者", "作者", "著", "作",
];

/// The links to the site's front page: links to an address with no path (or only an index
/// page) on the page's own host when one goes there, else on the host the first such link goes
/// to (a page saved from its site links home by the site's full address).
pub fn home_links(observation: &Observation) -> Vec<usize> {
    let root_host = |address: &str| -> Option<String> {
        let (host, path) = host_and_path(address);
        let root = path.is_empty() || path.starts_with("index.") && !path.contains('/');
        (root && !host.is_empty()).then(|| host.to_lowercase())
    };
    let roots: Vec<(usize, String)> = observation
        .elements
        .iter()
        .enumerate()
        .filter(|(_, e)| e.role == "link")
        .filter_map(|(i, e)| Some((i, root_host(e.destination.as_deref()?)?)))
        .collect();
    let page = Some(host_of(&observation.url).to_lowercase());
    let site = page
        .filter(|p| roots.iter().any(|(_, h)| h == p))
        .or_else(|| roots.first().map(|(_, h)| h.clone()));
    roots
        .into_iter()
        .filter(|(_, h)| Some(h) == site.as_ref())
        .map(|(i, _)| i)
        .collect()
}

/// Path parts after which a site puts one person's page: "/author/michelle-ehrhardt",
/// "/users/Maxime/", "/u/EvilSpark", "/artists/Prince".
const PERSON_PAGES: &[&str] = &[
    "author",
    "authors",
    "autor",
    "autoren",
    "auteur",
    "auteurs",
    "autore",
    "writer",
    "writers",
    "contributor",
    "contributors",
    "user",
    "users",
    "u",
    "profile",
    "profiles",
    "people",
    "member",
    "members",
    "artist",
    "artists",
];

/// A link to one person's page: a person-page part followed by that person's name or id.
fn is_person_page(destination: &str) -> bool {
    let address = destination.split(' ').next().unwrap_or("");
    let Some((_, path)) = address.split_once('/') else {
        return false;
    };
    let parts: Vec<&str> = path
        .split(['/', '?', '#'])
        .filter(|p| !p.is_empty())
        .collect();
    parts
        .windows(2)
        .any(|w| PERSON_PAGES.contains(&w[0].to_lowercase().as_str()))
}

fn is_byline(element: &Element) -> bool {
    if element.role == "link" && element.destination.as_deref().is_some_and(is_person_page) {
        return true;
    }
    let label = element.label.trim().to_lowercase();
    if label.chars().count() < 2 {
        return false;
    }
    let context = element.context.to_lowercase();
    context.match_indices(&label).any(|(at, _)| {
        let before =
            context[..at].trim_end_matches(|c: char| c.is_whitespace() || ":：|-–".contains(c));
        // The label starts a word of its row.
        let starts_word = context[..at]
            .chars()
            .last()
            .is_none_or(|c| !c.is_alphanumeric());
        let marker = before.rsplit(char::is_whitespace).next().unwrap_or("");
        starts_word && BYLINE_MARKERS.contains(&marker)
    })
}

/// A plain element, for tests.
#[cfg(test)]
pub(crate) fn element(id: &str, role: &str, label: &str, context: &str) -> Element {
    Element {
        id: id.into(),
        role: role.into(),
        label: label.into(),
        context: context.into(),
        ..Element::default()
    }
}

#[cfg(test)]
mod tests {
    use super::element as el;
    use super::*;

    #[test]
    fn a_host_names_its_site() {
        let rows = [
            ("www.facebook.com", Some("facebook")),
            ("api.whatsapp.com", Some("whatsapp")),
            ("twitter.com:443", Some("twitter")),
            ("news.bbc.co.uk", Some("bbc")),
            ("127.0.0.1", None),
            ("localhost", None),
        ];
        for (host, want) in rows {
            assert_eq!(site_name(host).as_deref(), want, "{host}");
        }
    }

    #[test]
    fn an_address_splits_into_its_host_and_path() {
        let rows = [
            ("https://a.example/b/c?d=1#e", ("a.example", "b/c")),
            ("http://a.example", ("a.example", "")),
            ("a.example/index.html#top", ("a.example", "index.html")),
            ("https://a.example?q=1", ("a.example", "")),
            // A destination carries its link text after a space.
            ("https://a.example/ Home", ("a.example", "")),
        ];
        for (address, want) in rows {
            assert_eq!(host_and_path(address), want, "{address}");
        }
    }

    #[test]
    fn a_links_destination_says_words_of_its_last_two_parts() {
        let rows: &[(&str, &[&str])] = &[
            (
                "www.tomshardware.com/uk/news/nvidia-newegg-rtx-3080-apologize",
                &["news", "nvidia", "newegg", "rtx", "apologize"],
            ),
            (
                "www.tomshardware.com/uk/author/michelle-ehrhardt",
                &["author", "michelle", "ehrhardt"],
            ),
            // A file's format is a word; ids, dates and the page ending are not; escapes read.
            (
                "www.infocomcgt.fr/wp-content/uploads/2019/12/2019_212_InfoCom-CGT_Caisse-de-gr%C3%A8ve_Affiche2_BD.pdf",
                &["infocom", "cgt", "caisse", "grève", "pdf"],
            ),
            ("example.org/forum/index.php abc123", &["forum", "index"]),
            // The host alone, or nothing: no words.
            ("example.org/", &[]),
            ("", &[]),
        ];
        for (destination, want) in rows {
            assert_eq!(&destination_words(destination), want, "{destination}");
        }
    }

    /// The front page's links: to the page's own host when one goes there, else to the host
    /// of the first link to a bare address; never a page below it or another site's root.
    #[test]
    fn the_home_links_go_to_the_sites_front_page() {
        let link = |id: &str, to: &str| Element {
            destination: Some(to.into()),
            ..el(id, "link", "", "")
        };
        let saved = Observation {
            url: "http://127.0.0.1:4000/real/party/index.html".into(),
            elements: vec![
                link("r1", "127.0.0.1:4000/real/party/index.html 1a2b3c4d"),
                link("r2", "www.gruene.de/"),
                link("r3", "www.gruene.de/themen/arbeit"),
                link("r4", "sport.gruene.de/"),
                link("r5", "www.gruene.de/index.php"),
            ],
            ..Observation::default()
        };
        assert_eq!(home_links(&saved), [1, 4]);
        let own = Observation {
            url: "https://example.org/news/today".into(),
            elements: vec![link("r1", "facebook.com/"), link("r2", "example.org/")],
            ..Observation::default()
        };
        assert_eq!(home_links(&own), [1]);
        assert!(home_links(&Observation::default()).is_empty());
    }

    /// A link to one person's page is a byline whatever its row says; a link to the list
    /// of them, or a page that merely has the word, is not.
    #[test]
    fn a_link_to_a_persons_page_is_a_byline() {
        let link = |to: &str| Element {
            destination: Some(to.into()),
            ..el("r1", "link", "EvilSpark", "Untitled a guest 4 hours ago")
        };
        for (to, want) in [
            ("pastebin.com/u/EvilSpark", true),
            ("www.tomshardware.com/uk/author/michelle-ehrhardt", true),
            ("habr.com/users/Maxime/ 1a2b3c4d", true),
            ("genius.com/artists/Prince", true),
            ("example.org/authors/", false),
            ("example.org/news/user-guide", false),
            ("example.org/", false),
        ] {
            assert_eq!(is_byline(&link(to)), want, "{to}");
        }
    }

    /// A name after "by", "Author:" or the same word in another language is a byline.
    #[test]
    fn a_name_after_an_author_word_is_a_byline() {
        let table = [
            ("Anna Smith", "Posted by Anna Smith 3 hours ago", true),
            ("Anna Smith", "Author: Anna Smith", true),
            ("お米ゴハン", "著者 お米ゴハン イラスト 汐街コナ", true),
            ("Jean Dupont", "Un article par Jean Dupont", true),
            ("汐街コナ", "著者 お米ゴハン イラスト 汐街コナ", false),
            ("Standby", "Go to standby mode", false),
            ("Home", "Home About Contact", false),
        ];
        for (label, context, want) in table {
            assert_eq!(
                is_byline(&el("r1", "link", label, context)),
                want,
                "{label} in {context}"
            );
        }
    }

    /// A long label's glosses take every word's first senses before any word's rarer ones: a
    /// first word of many senses leaves room for the last word's.
    #[test]
    fn every_label_word_is_glossed_before_rarer_senses() {
        let many: Vec<String> = (0..30).map(|k| format!("sense{k}")).collect();
        let obs = Observation {
            elements: vec![el("r1", "button", "Grundmodul Lehrzeit: 2 Jahre", "")],
            glosses: Some(crate::model::Glosses {
                language: "de".into(),
                words: [
                    ("grundmodul".to_string(), many),
                    ("jahre".to_string(), vec!["years".to_string()]),
                ]
                .into_iter()
                .collect(),
            }),
            ..Observation::default()
        };
        let glosses = &Structure::of(&obs).facts[0].glosses;
        assert_eq!(glosses.len(), MAX_ELEMENT_GLOSSES);
        assert_eq!(glosses[1].norm, "years");
    }

    /// Links a row reads with a path separator between are a breadcrumb trail; a menu's links
    /// side by side, and a label that holds a slash, are none.
    #[test]
    fn links_joined_by_path_separators_are_a_breadcrumb_trail() {
        let row = |labels: &[&str], context: &str| -> Vec<Element> {
            labels
                .iter()
                .enumerate()
                .map(|(k, l)| el(&format!("r{k}"), "link", l, context))
                .collect()
        };
        let trail = row(
            &["Home", "News - Kraftfahrzeugtechnik"],
            "Home / News - Kraftfahrzeugtechnik / Lehrberufe KFT",
        );
        assert_eq!(crumb_trails(&trail), [vec![0, 1]]);
        let japanese = row(
            &["福娘童話集", "きょうのイソップ童話", "１月のイソップ童話"],
            "福娘童話集 > きょうのイソップ童話 > １月のイソップ童話 > 欲張りなイヌ",
        );
        assert_eq!(crumb_trails(&japanese), [vec![0, 1, 2]]);
        let menu = row(
            &["About", "Submit", "ALERTS / RSS"],
            "Home About Submit ALERTS / RSS",
        );
        assert!(crumb_trails(&menu).is_empty());
        let facts = Structure::of(&Observation {
            elements: trail,
            ..Observation::default()
        });
        assert!(facts.facts[0]
            .description
            .iter()
            .any(|t| t.norm == "breadcrumb"));
    }

    /// Rows led by a number ("13 Piotr Pawlicki 3 3 3 3 - 12") are items when they count up in
    /// runs of three or more (two teams' tables, 9-15 then 1-8) and no number is said twice.
    #[test]
    fn numbered_rows_in_runs_are_items_when_each_number_is_one_row() {
        let rows = |numbers: &[u32]| -> Observation {
            Observation {
                elements: numbers
                    .iter()
                    .enumerate()
                    .map(|(k, n)| {
                        element(
                            &format!("r{k}"),
                            "link",
                            &format!("Rider {k}"),
                            &format!("{n} Rider {k} 3 2 1 - 6"),
                        )
                    })
                    .collect(),
                ..Observation::default()
            }
        };
        let table: &[(&[u32], bool)] = &[
            (&[9, 10, 11, 12, 1, 2, 3, 4], true),
            (&[1, 2, 3], true),
            // The same numbers in two tables: "number 2" would be two rows.
            (&[1, 2, 3, 1, 2, 3], false),
            // A run of two is no list.
            (&[9, 10, 1, 2, 3], false),
        ];
        for (numbers, items) in table {
            let structure = Structure::of(&rows(numbers));
            assert_eq!(!structure.items.is_empty(), *items, "{numbers:?}");
        }
        // Prices and changes in a row are no table of contents: a stock table's ranks count.
        let stocks = Observation {
            elements: ["Ford Motor (F)", "Pfizer (PFE)", "Hertz (HTZ)"]
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let context = format!("{} {name} 33,745,287 $17.05 -0.22 -1.27", k + 4);
                    element(&format!("r{k}"), "link", name, &context)
                })
                .collect(),
            ..Observation::default()
        };
        assert_eq!(Structure::of(&stocks).items, [4, 5, 6]);
        // A table of contents's rows are sections, not items.
        let contents = Observation {
            elements: ["History", "Design", "Usage"]
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let context = format!("{} {name} {}.1 Origins", k + 1, k + 1);
                    element(&format!("r{k}"), "link", name, &context)
                })
                .collect(),
            ..Observation::default()
        };
        assert!(Structure::of(&contents).items.is_empty());
    }

    #[test]
    fn name_sources_and_unobserved_frames_are_optional_fields() {
        let plain: Observation = serde_json::from_str(r#"{"elements": []}"#).unwrap();
        assert_eq!((&plain.names, plain.unobserved.len()), (&None, 0));
        let raw = r#"{"elements": [], "names": {"source": "dom", "reason": "the user cancelled debugging of this tab", "fromDom": 3},
                      "unobserved": [{"url": "http://localhost:1/frame.html", "reason": "no content script", "title": "Ad"}]}"#;
        let o: Observation = serde_json::from_str(raw).unwrap();
        assert_eq!(o.names.as_ref().unwrap().source, "dom");
        assert_eq!(o.unobserved[0].url, "http://localhost:1/frame.html");
        let back = serde_json::to_value(&o).unwrap();
        assert_eq!(
            back["names"]["reason"],
            "the user cancelled debugging of this tab"
        );
        assert!(serde_json::to_value(&plain)
            .unwrap()
            .get("unobserved")
            .is_none());
    }

    #[test]
    fn numbered_rows_and_their_subtext_form_items() {
        let obs = Observation {
            elements: vec![
                el("e1", "link", "new", "Site new | past"),
                el("e2", "link", "upvote", "1. First story (a.com)"),
                el("e3", "link", "First story", "1. First story (a.com)"),
                el("e4", "link", "5 comments", "9 points by ann | 5 comments"),
                el("e5", "link", "upvote", "2. Second story (b.com)"),
                el("e6", "link", "Second story", "2. Second story (b.com)"),
                el("e7", "link", "ann", "3 points by ann | hide"),
                el("e8", "link", "Guidelines", "Guidelines | FAQ"),
            ],
            ..Observation::default()
        };
        let s = Structure::of(&obs);
        let items: Vec<Option<u32>> = s.facts.iter().map(|f| f.item).collect();
        assert_eq!(
            items,
            vec![
                None,
                Some(1),
                Some(1),
                Some(1),
                Some(2),
                Some(2),
                Some(2),
                None
            ]
        );
        assert!(s.facts[2].primary && s.facts[5].primary && !s.facts[1].primary);
        assert!(s.facts[6].byline);
        assert_eq!(s.items, vec![1, 2]);
    }

    #[test]
    fn tiles_of_links_with_words_of_their_own_are_items_and_a_menu_is_not() {
        let tile = |n: u32, title: &str, channel: &str| {
            let row = format!("1{n}:04 {title} {channel} {n}K views 2 weeks ago");
            [
                el(&format!("t{n}"), "link", title, &row),
                el(&format!("c{n}"), "link", channel, &row),
            ]
        };
        let mut elements = vec![
            el("m1", "link", "Home", "Home Shorts Subscriptions"),
            el("m2", "link", "Shorts", "Home Shorts Subscriptions"),
            el("m3", "link", "Subscriptions", "Home Shorts Subscriptions"),
        ];
        elements.extend(tile(1, "Jazz for work", "Quiet Rooms"));
        elements.extend(tile(2, "Jazz radio 24/7", "Chill Station"));
        elements.extend(tile(3, "Best of jazz", "Playlist Central"));
        let s = Structure::of(&Observation {
            elements,
            ..Observation::default()
        });
        let items: Vec<Option<u32>> = s.facts.iter().map(|f| f.item).collect();
        assert_eq!(
            items,
            [
                None,
                None,
                None,
                Some(1),
                Some(1),
                Some(2),
                Some(2),
                Some(3),
                Some(3)
            ]
        );
        assert_eq!(s.items, [1, 2, 3]);
        // Two tiles are not yet a list; a footer column's text is only its links.
        let two = Structure::of(&Observation {
            elements: [tile(1, "A", "B"), tile(2, "C", "D")].concat(),
            ..Observation::default()
        });
        assert!(two.items.is_empty());
        let column = |k: &str| {
            let row = format!("{k} About {k} Careers {k} Press");
            vec![
                el("a", "link", &format!("{k} About"), &row),
                el("b", "link", &format!("{k} Careers"), &row),
                el("c", "link", &format!("{k} Press"), &row),
            ]
        };
        let footer = Structure::of(&Observation {
            elements: [column("Company"), column("Help"), column("Legal")].concat(),
            ..Observation::default()
        });
        assert!(footer.items.is_empty(), "{:?}", footer.items);
    }

    #[test]
    fn labels_know_sections_and_footnotes() {
        let table = [
            ("3.5 SeaMonkey", "", true, false),
            (
                "1 History",
                "1 History 1.1 Eich CEO promotion controversy",
                true,
                false,
            ),
            ("[2]", "", false, true),
            ("Helldivers 2", "", false, false),
            (
                "17 comments",
                "93 points by ann | 17 comments",
                false,
                false,
            ),
        ];
        for (label, context, section, footnote) in table {
            let s = Structure::of(&Observation {
                elements: vec![el("e1", "link", label, context)],
                ..Observation::default()
            });
            assert_eq!(s.facts[0].section, section, "{label}");
            assert_eq!(s.facts[0].footnote, footnote, "{label}");
        }
    }

    /// Two links to one destination are one page; links to the observed page itself (a
    /// script's "#", "Firmy" and "Fixly" on Otodom) and buttons are not.
    #[test]
    fn links_to_one_destination_are_one_page() {
        let to = |id: &str, role: &str, place: &str| Element {
            destination: Some(place.to_string()),
            ..el(id, role, id, "")
        };
        let obs = Observation {
            url: "http://127.0.0.1:8080/real/otodom/index.html#top".into(),
            elements: vec![
                to("a", "link", "127.0.0.1:8080/about/contacts"),
                to("b", "link", "127.0.0.1:8080/about/contacts"),
                to("c", "link", "127.0.0.1:8080/real/otodom/index.html"),
                to("d", "link", "127.0.0.1:8080/real/otodom/index.html"),
                to("e", "button", "127.0.0.1:8080/about/contacts"),
                to("f", "link", "127.0.0.1:8080/about/careers"),
            ],
            ..Observation::default()
        };
        assert!(same_page(&obs, 0, 1));
        assert!(!same_page(&obs, 2, 3));
        assert!(!same_page(&obs, 0, 4));
        assert!(!same_page(&obs, 0, 5));
    }

    #[test]
    fn duplicates_are_interchangeable_only_when_nothing_tells_them_apart() {
        let obs = Observation {
            elements: vec![
                el("e1", "button", "upvote", "124"),
                el("e2", "button", "upvote", "124"),
                el("e3", "button", "r/Python", "header"),
                el("e4", "link", "r/Python", "sidebar"),
                el("e5", "link", "Mozilla Foundation", "See also"),
                el("e6", "link", "Mozilla Foundation", ""),
                Element {
                    description: Some("Discussion about edits from this IP address".into()),
                    ..el("e7", "link", "Talk", "Not logged in Talk Contributions")
                },
                Element {
                    description: Some("Discussion about the content page".into()),
                    ..el("e8", "link", "Talk", "Namespaces Article Talk")
                },
            ],
            ..Observation::default()
        };
        let s = Structure::of(&obs);
        assert!(s.interchangeable(&obs, 0, 1));
        assert!(!s.interchangeable(&obs, 2, 3));
        assert!(s.interchangeable(&obs, 4, 5));
        // Same name, different descriptions: two places.
        assert!(!s.interchangeable(&obs, 6, 7));
        // One described, one not: a share link and a follow link.
        let obs = Observation {
            elements: vec![
                el(
                    "e1",
                    "link",
                    "Twitter",
                    "Share This: Twitter Facebook Email",
                ),
                Element {
                    description: Some("Follow the Whitehouse on Twitter.".into()),
                    ..el("e2", "link", "Twitter", "Twitter Instagram Facebook")
                },
            ],
            ..Observation::default()
        };
        assert!(!Structure::of(&obs).interchangeable(&obs, 0, 1));
        // Fields of one name in one row hold a value each.
        let obs = Observation {
            elements: vec![
                el("m", "combobox", "Date of Birth", "Date of Birth"),
                el("d", "combobox", "Date of Birth", "Date of Birth"),
                el("y", "textbox", "Date of Birth", "Date of Birth"),
            ],
            ..Observation::default()
        };
        let s = Structure::of(&obs);
        assert!(!s.interchangeable(&obs, 0, 1));
        assert!(!s.interchangeable(&obs, 1, 2));
        // Where each goes decides when the scan says it: two "Instagram" links in one row to
        // two accounts are two things; two "Home" links in two rows to one page are one.
        let to = |id: &str, label: &str, context: &str, destination: &str| Element {
            destination: Some(destination.into()),
            ..el(id, "link", label, context)
        };
        let obs = Observation {
            elements: vec![
                to(
                    "i1",
                    "Instagram",
                    "Facebook Instagram",
                    "www.instagram.com/goodnight.at/",
                ),
                to(
                    "i2",
                    "Instagram",
                    "Facebook Instagram",
                    "www.instagram.com/johanna/",
                ),
                to("h1", "Home", "Home News", "example.org/"),
                to("h2", "Home", "About Home Contact", "example.org/"),
            ],
            ..Observation::default()
        };
        let s = Structure::of(&obs);
        assert!(!s.interchangeable(&obs, 0, 1));
        assert!(s.interchangeable(&obs, 2, 3));
    }
}

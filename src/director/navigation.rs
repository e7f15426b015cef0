//! Navigation requests, read from the words alone: open a site or an address, search a site,
//! open a new tab, switch to a tab, close a tab, reload.
//!
//! This is the shape of the request only. Which site a name means, whether a tab matches, and
//! where the page opens are decided by the browser connector against its site table and the tabs
//! Chrome reports (`crate::browser::navigation`); a name that is no site falls back to grounding
//! on the page ("open the comments" is a link, not a site).
//!
//! Architecture invariant: pure (no I/O, no clock, no async); every value is a slice of the
//! person's own words (the search text is never rebuilt or invented).

use super::text::{self, Token};

/// The longest search text taken from one request, in characters.
pub const MAX_QUERY_CHARS: usize = 200;
/// The most words a site's name may have ("search the new york times for …").
const MAX_NAME_WORDS: usize = 4;

/// What a navigation request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nav {
    /// "open YouTube", "go to example.com": `name` as said (a site's name or an address).
    Open { name: String, tab: Placement },
    /// "search YouTube for lo-fi beats" (`named_first`), "look up Ada Lovelace on Wikipedia".
    /// `query` is the person's words, trimmed of surrounding quotes and end punctuation.
    Search {
        name: String,
        query: String,
        tab: Placement,
        /// The site was named before the search words ("search X for …"): words that name no
        /// known site and nothing on the page are refused. After them ("… on X") an unknown
        /// name is just words ("search for flights in Berlin").
        named_first: bool,
    },
    /// "open a new tab".
    NewTab,
    /// "switch to the YouTube tab", "go to my mail tab": the words that name the tab.
    Switch { words: String },
    /// "close this tab", "close the YouTube tab".
    Close(Which),
    /// "reload", "refresh the page", "reload the YouTube tab".
    Reload(Which),
}

/// Where a page opens, as said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Not said: the connector decides (a blank tab or the same site is reused, else a new tab).
    Auto,
    /// "in a new tab".
    NewTab,
    /// "in this tab", "here".
    ThisTab,
}

/// Which tab a close or reload is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    /// "this tab", "the page": the tab in front.
    This,
    /// "the YouTube tab": the words that name it.
    Named(String),
}

/// Words before a command that change nothing ("please", "can you").
const OPENERS: &[&str] = &[
    "please", "can", "could", "would", "will", "you", "hey", "circe", "ok", "okay", "now", "just",
    "kindly", "then", "also", "and", "so", "um", "uh",
];
/// Openers of more than one word: "I want to find …", "I'd like to search …", "let's open …".
const OPENER_PHRASES: &[&[&str]] = &[
    &["i", "want", "to"],
    &["i", "d", "like", "to"],
    &["i", "would", "like", "to"],
    &["i", "need", "to"],
    &["let", "s"],
    &["let", "me"],
];
/// Words that name no tab ("my mail tab" is the "mail" tab).
const TAB_FILLERS: &[&str] = &["my", "the", "a", "an", "that", "this", "one", "tab", "tabs"];
/// Ways of saying "the tab in front".
const THIS_TAB: &[&[&str]] = &[
    &["this", "tab"],
    &["the", "tab"],
    &["tab"],
    &["the", "current", "tab"],
    &["current", "tab"],
    &["this", "browser", "tab"],
];
const THIS_PAGE: &[&[&str]] = &[
    &[],
    &["it"],
    &["page"],
    &["the", "page"],
    &["this", "page"],
    &["the", "current", "page"],
    &["the", "tab"],
    &["this", "tab"],
    &["the", "current", "tab"],
];
const NEW_TAB: &[&[&str]] = &[
    &["new", "tab"],
    &["a", "new", "tab"],
    &["a", "tab"],
    &["another", "tab"],
    &["a", "blank", "tab"],
    &["a", "new", "blank", "tab"],
    &["an", "empty", "tab"],
    &["a", "fresh", "tab"],
];
/// Verbs that open a place.
const OPEN_VERBS: &[&[&str]] = &[
    &["open", "up"],
    &["open"],
    &["go", "to"],
    &["navigate", "to"],
    &["browse", "to"],
    &["head", "to"],
    &["take", "me", "to"],
    &["bring", "up"],
    &["pull", "up"],
    &["visit"],
    &["load"],
];
/// Verbs that bring a tab to the front.
const SWITCH_VERBS: &[&[&str]] = &[
    &["switch", "over", "to"],
    &["switch", "tabs", "to"],
    &["switch", "back", "to"],
    &["switch", "to"],
    &["change", "to"],
    &["go", "back", "to"],
    &["return", "to"],
    &["show", "me"],
    &["show"],
];
/// Verbs that search a site with the words after the site's name.
const SEARCH_VERBS: &[&[&str]] = &[&["search"]];
/// Verbs that look something up on a site named at the end.
const LOOKUP_VERBS: &[&[&str]] = &[
    &["search", "for"],
    &["search"],
    &["look", "up"],
    &["look", "for"],
    &["find"],
];
/// "… in a new tab" / "… in this tab" at the end of a request.
const PLACEMENTS: &[(&[&str], Placement)] = &[
    (&["in", "a", "new", "tab"], Placement::NewTab),
    (&["in", "new", "tab"], Placement::NewTab),
    (&["in", "another", "tab"], Placement::NewTab),
    (&["in", "a", "separate", "tab"], Placement::NewTab),
    (&["in", "a", "new", "browser", "tab"], Placement::NewTab),
    (&["in", "this", "tab"], Placement::ThisTab),
    (&["in", "the", "current", "tab"], Placement::ThisTab),
    (&["in", "the", "same", "tab"], Placement::ThisTab),
    (&["in", "current", "tab"], Placement::ThisTab),
    (&["in", "same", "tab"], Placement::ThisTab),
];

/// Reads a navigation request; `None` when the words ask for something else.
pub fn read(source: &str) -> Option<Nav> {
    let tokens = text::tokens(source);
    let words: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
    let mut begin = 0;
    loop {
        if begin < words.len() && OPENERS.contains(&words[begin]) {
            begin += 1;
        } else if let Some(p) = OPENER_PHRASES
            .iter()
            .find(|p| words[begin..].starts_with(p))
        {
            begin += p.len();
        } else {
            break;
        }
    }
    let mut end = words.len();
    loop {
        if end > begin && matches!(words[end - 1], "please" | "thanks") {
            end -= 1;
        } else if end >= begin + 2
            && matches!(
                words[end - 2..end],
                ["thank", "you"] | ["for", "me"] | ["for", "us"]
            )
        {
            end -= 2;
        } else {
            break;
        }
    }
    // Where the request's own words stop (before "please", "in a new tab").
    let cut = |end: usize| tokens.get(end).map_or(source.len(), |t| t.start);
    let w = &words[begin..end];
    if w.is_empty() {
        return None;
    }
    let (mut placed_end, mut placement) = placement(&words, begin, end);
    if placement == Placement::Auto && placed_end >= begin + 3 && words[placed_end - 1] == "here" {
        placed_end -= 1;
        placement = Placement::ThisTab;
    }
    let p = &words[begin..placed_end];

    if w == ["new", "tab"] {
        return Some(Nav::NewTab);
    }
    // Search: "search X for Q", or "search for Q on X", "look up Q on X".
    if let Some(nav) = search(source, &tokens, &words, begin, end, cut(end)) {
        return Some(nav);
    }
    // Close and reload.
    if let Some(rest) = after(w, &[&["close"], &["shut"]]) {
        if THIS_TAB.contains(&rest) {
            return Some(Nav::Close(Which::This));
        }
        return named_tab(source, &tokens, begin + (w.len() - rest.len()), end)
            .map(|n| Nav::Close(Which::Named(n)));
    }
    if let Some(rest) = after(w, &[&["reload"], &["refresh"]]) {
        if THIS_PAGE.contains(&rest) {
            return Some(Nav::Reload(Which::This));
        }
        return named_tab(source, &tokens, begin + (w.len() - rest.len()), end)
            .map(|n| Nav::Reload(Which::Named(n)));
    }
    // Switch: "switch to X", "go back to my mail tab".
    if let Some(rest) = after(w, SWITCH_VERBS) {
        let at = begin + (w.len() - rest.len());
        let explicit = w[0] == "switch" || w[0] == "change" && ends_with_tab(rest);
        if explicit || ends_with_tab(rest) {
            if let Some(words) = tab_words(source, &tokens, at, end) {
                return Some(Nav::Switch { words });
            }
        }
        if w[0] == "switch" {
            return None;
        }
    }
    // Open: "open YouTube", "go to my mail tab" (a tab), "open a new tab".
    if let Some(rest) = after(p, OPEN_VERBS) {
        if NEW_TAB.contains(&rest) {
            return Some(Nav::NewTab);
        }
        let at = begin + (p.len() - rest.len());
        if rest.is_empty() {
            return None;
        }
        if ends_with_tab(rest) && placement == Placement::Auto {
            return tab_words(source, &tokens, at, placed_end).map(|words| Nav::Switch { words });
        }
        let name = span(source, &tokens, at, cut(placed_end))?;
        return Some(Nav::Open {
            name,
            tab: placement,
        });
    }
    None
}

/// "search X for Q" (the site first) or "search for Q on X" / "look up Q on X" (the site last).
fn search(
    source: &str,
    tokens: &[Token],
    words: &[&str],
    begin: usize,
    end: usize,
    end_byte: usize,
) -> Option<Nav> {
    let w = &words[begin..end];
    // The site named as a heading: "YouTube search lo-fi beats", "YouTube: lo-fi beats".
    for k in 1..=MAX_NAME_WORDS.min(3) {
        let Some(name_end) = tokens.get(begin + k - 1).map(|t| t.end) else {
            break;
        };
        let colon = source[name_end..].starts_with(": ");
        let searched = words.get(begin + k) == Some(&"search");
        if !(colon || searched) || is_page(&words[begin..begin + k]) {
            continue;
        }
        let mut q = begin + k + usize::from(searched && !colon);
        if searched && words.get(q) == Some(&"for") {
            q += 1;
        }
        let verb = |w: &str| {
            SEARCH_VERBS
                .iter()
                .chain(LOOKUP_VERBS)
                .chain(OPEN_VERBS)
                .chain(SWITCH_VERBS)
                .any(|v| v[0] == w)
        };
        // "on YouTube, search for …": the site after its preposition.
        let from = begin + usize::from(matches!(words[begin], "on" | "in"));
        let heading = from < begin + k
            && words[from..begin + k]
                .iter()
                .all(|w| !verb(w) && !OPENERS.contains(w));
        if q < end && heading {
            let (q_end, tab) = placement(words, q, end);
            let q_end_byte = tokens
                .get(q_end)
                .map_or(end_byte, |t| t.start.min(end_byte));
            let query = query(source, tokens[q].start, q_end_byte)?;
            let name = span(source, tokens, from, name_end)?;
            return Some(Nav::Search {
                name,
                query,
                tab,
                named_first: true,
            });
        }
    }
    // The site named first: "search YouTube for lo-fi beats (in a new tab)".
    if let Some(rest) = after(w, SEARCH_VERBS) {
        let mut at = begin + (w.len() - rest.len());
        if matches!(words.get(at), Some(&"on" | &"in")) {
            at += 1;
        }
        if words.get(at) != Some(&"for") {
            if let Some(f) = (at + 1..end).find(|&i| words[i] == "for") {
                let name_words = &words[at..f];
                if !name_words.is_empty()
                    && name_words.len() <= MAX_NAME_WORDS
                    && !is_page(name_words)
                    && f + 1 < end
                {
                    let (q_end, tab) = placement(words, f + 1, end);
                    let q_end_byte = if q_end == end {
                        end_byte
                    } else {
                        tokens[q_end].start
                    };
                    let query = query(source, tokens[f].end, q_end_byte)?;
                    let name = span(source, tokens, at, tokens[f].start)?;
                    return Some(Nav::Search {
                        name,
                        query,
                        tab,
                        named_first: true,
                    });
                }
            }
        }
    }
    // The site named last: "search for lo-fi beats on YouTube", "look up Ada on Wikipedia".
    let rest = after(w, LOOKUP_VERBS)?;
    let at = begin + (w.len() - rest.len());
    let (placed_end, mut tab) = placement(words, at, end);
    let (placed_end, here) = if placed_end > at + 2 && words[placed_end - 1] == "here" {
        (placed_end - 1, true)
    } else {
        (placed_end, false)
    };
    if here {
        tab = Placement::ThisTab;
    }
    let on = (at + 1..placed_end)
        .rev()
        .find(|&i| matches!(words[i], "on" | "in"))?;
    let name_words = &words[on + 1..placed_end];
    if name_words.is_empty() || name_words.len() > MAX_NAME_WORDS || is_page(name_words) {
        return None;
    }
    let name_end = tokens
        .get(placed_end)
        .map_or(end_byte.min(source.len()), |t| t.start.min(end_byte));
    let name = span(source, tokens, on + 1, name_end)?;
    let query = query(source, tokens[at - 1].end, tokens[on].start)?;
    Some(Nav::Search {
        name,
        query,
        tab,
        named_first: false,
    })
}

/// Words that mean the page itself, not a site ("search this page for …").
fn is_page(name: &[&str]) -> bool {
    let name: Vec<&str> = name
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "the" | "this" | "current"))
        .collect();
    matches!(
        name.as_slice(),
        [] | ["page"] | ["site"] | ["here"] | ["it"] | ["tab"]
    )
}

/// The placement said at the end of `words[begin..end]`: where the rest ends, and the placement.
fn placement(words: &[&str], begin: usize, end: usize) -> (usize, Placement) {
    for (phrase, p) in PLACEMENTS {
        if end > begin + phrase.len() && words[end - phrase.len()..end] == **phrase {
            return (end - phrase.len(), *p);
        }
    }
    (end, Placement::Auto)
}

/// The words after one of `verbs` at the start of `w`.
fn after<'w, 'a>(w: &'w [&'a str], verbs: &[&[&str]]) -> Option<&'w [&'a str]> {
    verbs
        .iter()
        .find(|v| w.len() >= v.len() && w[..v.len()] == ***v)
        .map(|v| &w[v.len()..])
}

fn ends_with_tab(w: &[&str]) -> bool {
    w.len() >= 2 && matches!(w.last(), Some(&"tab"))
}

/// The words naming a tab in `tokens[at..end]` that end with "tab": "the YouTube tab" → "YouTube".
fn named_tab(source: &str, tokens: &[Token], at: usize, end: usize) -> Option<String> {
    let words: Vec<&str> = tokens[at..end].iter().map(|t| t.norm.as_str()).collect();
    if !ends_with_tab(&words) {
        return None;
    }
    tab_words(source, tokens, at, end)
}

/// `tokens[at..end]` without the words that name no tab; `None` when nothing is left.
fn tab_words(source: &str, tokens: &[Token], at: usize, end: usize) -> Option<String> {
    let mut from = at;
    let mut to = end;
    while from < to && TAB_FILLERS.contains(&tokens[from].norm.as_str()) {
        from += 1;
    }
    while to > from && TAB_FILLERS.contains(&tokens[to - 1].norm.as_str()) {
        to -= 1;
    }
    (from < to).then(|| source[tokens[from].start..tokens[to - 1].end].to_string())
}

/// The source from `tokens[at]` up to byte `end`, trimmed of spaces, quotes and end punctuation.
fn span(source: &str, tokens: &[Token], at: usize, end: usize) -> Option<String> {
    let start = tokens.get(at)?.start;
    let s = trim(source.get(start..end.max(start))?);
    (!s.is_empty()).then(|| s.to_string())
}

/// The search text: `source[start..end]` trimmed, at most [`MAX_QUERY_CHARS`].
fn query(source: &str, start: usize, end: usize) -> Option<String> {
    let mut q = trim(source.get(start..end.max(start))?);
    // "search for some lo-fi beats", "look for the lo-fi radio": the words searched are what
    // follows the determiner ("The Who", capitalised, keeps its article).
    for lead in ["some ", "any ", "the ", "a ", "an "] {
        if let Some(rest) = q.strip_prefix(lead) {
            if !rest.trim().is_empty() {
                q = rest.trim_start();
            }
            break;
        }
    }
    (!q.is_empty() && q.chars().count() <= MAX_QUERY_CHARS).then(|| q.to_string())
}

fn trim(s: &str) -> &str {
    let quotes = |c: char| matches!(c, '"' | '\'' | '“' | '”' | '‘' | '’' | '«' | '»');
    let mut s = s.trim();
    loop {
        let t = s.trim_end_matches(['.', '!', '?', ',', ';', ':']).trim();
        let t = if t.starts_with(quotes) && t.ends_with(quotes) && t.chars().count() >= 2 {
            let inner = t.char_indices().nth(1).map_or(t.len(), |(i, _)| i);
            let last = t.char_indices().last().map_or(t.len(), |(i, _)| i);
            t[inner..last.max(inner)].trim()
        } else {
            t
        };
        if t == s {
            return s;
        }
        s = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(name: &str, tab: Placement) -> Option<Nav> {
        Some(Nav::Open {
            name: name.into(),
            tab,
        })
    }

    fn search(name: &str, query: &str, tab: Placement, named_first: bool) -> Option<Nav> {
        Some(Nav::Search {
            name: name.into(),
            query: query.into(),
            tab,
            named_first,
        })
    }

    fn switch(words: &str) -> Option<Nav> {
        Some(Nav::Switch {
            words: words.into(),
        })
    }

    #[test]
    fn navigation_requests_are_read_from_the_words() {
        use Placement::*;
        let table: &[(&str, Option<Nav>)] = &[
            (
                "search YouTube for lo-fi beats",
                search("YouTube", "lo-fi beats", Auto, true),
            ),
            // Openers and closers of more than one word are not the request's.
            (
                "I want to find lo-fi beats on YouTube",
                search("YouTube", "lo-fi beats", Auto, false),
            ),
            (
                "could you find lo-fi beats on YouTube for me",
                search("YouTube", "lo-fi beats", Auto, false),
            ),
            // A determiner is not searched for; a capitalised article is part of a name.
            (
                "search YouTube for some lo-fi beats",
                search("YouTube", "lo-fi beats", Auto, true),
            ),
            (
                "search YouTube for the lo-fi hip hop radio",
                search("YouTube", "lo-fi hip hop radio", Auto, true),
            ),
            (
                "search Wikipedia for The Who",
                search("Wikipedia", "The Who", Auto, true),
            ),
            // The site as a heading.
            (
                "YouTube search lo-fi beats",
                search("YouTube", "lo-fi beats", Auto, true),
            ),
            (
                "YouTube: lo-fi beats",
                search("YouTube", "lo-fi beats", Auto, true),
            ),
            (
                "Search YouTube for lo-fi beats.",
                search("YouTube", "lo-fi beats", Auto, true),
            ),
            (
                "please search youtube for \"lo-fi beats\" in a new tab",
                search("youtube", "lo-fi beats", NewTab, true),
            ),
            (
                "search on Wikipedia for Ada Lovelace",
                search("Wikipedia", "Ada Lovelace", Auto, true),
            ),
            (
                "search GitHub for C++ json parser",
                search("GitHub", "C++ json parser", Auto, true),
            ),
            (
                "can you search duck duck go for rust async book",
                search("duck duck go", "rust async book", Auto, true),
            ),
            (
                "search for lo-fi beats on YouTube",
                search("YouTube", "lo-fi beats", Auto, false),
            ),
            (
                "look up Ada Lovelace on Wikipedia in this tab",
                search("Wikipedia", "Ada Lovelace", ThisTab, false),
            ),
            (
                "search for songs on repeat on YouTube",
                search("YouTube", "songs on repeat", Auto, false),
            ),
            (
                "search for flights in Berlin",
                search("Berlin", "flights", Auto, false),
            ),
            ("search for lo-fi beats", None),
            ("search for office chairs on this page", None),
            ("search this page for desks", None),
            ("search YouTube for", None),
            ("open YouTube", open("YouTube", Auto)),
            ("Open YouTube.", open("YouTube", Auto)),
            ("go to wikipedia", open("wikipedia", Auto)),
            ("open youtube in a new tab", open("youtube", NewTab)),
            (
                "go to https://example.com/a?b=1",
                open("https://example.com/a?b=1", Auto),
            ),
            ("go to example.com here", open("example.com", ThisTab)),
            (
                "open the comments on the second story",
                open("the comments on the second story", Auto),
            ),
            ("open a new tab", Some(Nav::NewTab)),
            ("new tab", Some(Nav::NewTab)),
            ("go to my mail tab", switch("mail")),
            ("switch to the YouTube tab", switch("YouTube")),
            ("switch to YouTube", switch("YouTube")),
            ("go back to my mail tab", switch("mail")),
            ("show me the Inbox tab", switch("Inbox")),
            ("switch tabs", None),
            ("close this tab", Some(Nav::Close(Which::This))),
            ("close the tab", Some(Nav::Close(Which::This))),
            (
                "close the YouTube tab",
                Some(Nav::Close(Which::Named("YouTube".into()))),
            ),
            ("close the cookie banner", None),
            ("close", None),
            ("reload", Some(Nav::Reload(Which::This))),
            ("refresh the page", Some(Nav::Reload(Which::This))),
            (
                "reload the news tab",
                Some(Nav::Reload(Which::Named("news".into()))),
            ),
            ("refresh the feed", None),
            ("go back", None),
            ("upvote the third story", None),
            ("scroll down", None),
            ("", None),
        ];
        for (said, want) in table {
            assert_eq!(&read(said), want, "{said}");
        }
    }

    #[test]
    fn the_search_text_is_a_bounded_slice_of_the_words() {
        let long = format!("search YouTube for {}", "la ".repeat(MAX_QUERY_CHARS));
        assert_eq!(read(&long), None);
        let said = "search YouTube for Ünïcödé — beats!";
        let Some(Nav::Search { query, .. }) = read(said) else {
            panic!("not a search")
        };
        assert!(said.contains(&query), "{query}");
        assert_eq!(query, "Ünïcödé — beats");
    }
}

//! Reading one utterance: what kind of turn it is, which words name the
//! action, which words refer to a target, and which span is content.
//!
//! This is grammar, not a phrase list: fillers and wrappers are dropped, a
//! leading verb is classified, the rest is split at its first preposition into
//! a head ("the comments") and a qualifier ("on the second story"), and each
//! part yields content words, a kind noun and an ordinal. Content to type is
//! always a token-bounded slice of the source.

use std::ops::Range;

use super::lexicon::{self, is_in, RoleNoun};
use super::text::{self, Token};
use super::types::Direction;

/// Longest text Circe will type from one utterance, in bytes.
pub const MAX_TEXT: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub struct Reading<'s> {
    pub source: &'s str,
    pub tokens: Vec<Token>,
    /// First token after fillers and wrappers.
    pub begin: usize,
    pub cue: Cue,
    pub verb: Verb,
    pub head: Phrase,
    pub qualifier: Phrase,
    /// Soft evidence words implied by the verb ("back to" -> "return").
    pub implied: Vec<Token>,
    pub typing: Option<Typing>,
    /// "all"/"every"/"each" right after the verb.
    pub quantified: bool,
    /// All words after the openers, for "leaving from berlin": a field
    /// label followed by its value, told apart only against the screen.
    pub fill: Option<Range<usize>>,
    /// The leading word is not a known verb but sounds like one ("hyde",
    /// "upboat"): it is read as that verb, and the result may only be offered,
    /// never acted on (a misheard verb must not become "open").
    pub guessed_verb: bool,
    /// "the link next to print", "the word right after maudlin": the target is named by its
    /// place beside another element (the anchor), not by its own words.
    pub relation: Option<Relation>,
    /// "where's the privacy policy": a question that names a thing to find. It is a
    /// reference when the screen shows that thing, a question for reasoning otherwise.
    pub locates: bool,
    /// "what are the best credit cards", "tell me about nature and climate": a question about
    /// a thing. A control named by all its words ("Best Credit Cards") is where the answer is;
    /// otherwise it is a question for reasoning.
    pub asks_about: bool,
    /// "how do I contact customs", "is there an app for my iPhone": a question about a way or
    /// a thing the site offers. A link the rest names is the page with the answer; a control
    /// that acts never is (asking how is not asking to do it). Otherwise it is reasoned.
    pub asks_way: bool,
    /// "go back to the search results", "return to the list": a way back to a page. A control
    /// that names it is the way; when none does, it is the browser's back.
    pub returns: bool,
}

/// A target named by where it sits relative to another element.
#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    pub side: Side,
    /// The words before the marker ("the link"), naming what kind of thing is wanted.
    pub head: Phrase,
    /// The words after the marker ("print"), naming the anchor.
    pub anchor: Phrase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Right after the anchor in reading order.
    After,
    /// Right before it.
    Before,
    /// Either neighbour ("next to", "beside").
    Beside,
    /// In the next row, where the anchor is in its own ("the file below gitignore").
    Below,
    /// In the row before.
    Above,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    Act,
    Question,
    /// Several steps joined ("and then").
    MultiStep,
    Scroll(Direction),
    Back,
    Type,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verb {
    None,
    /// "open", "click", "go to": activate, naming no particular target.
    Activate,
    /// "tick", "turn on": set a state.
    Toggle,
    /// A verb that must be supported by the target's own label ("upvote").
    Specific {
        tokens: Range<usize>,
        concept: Option<usize>,
    },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Phrase {
    /// Indices of content tokens.
    pub content: Vec<usize>,
    pub kind: Kind,
    pub ordinal: Option<Ordinal>,
    /// The token that said the ordinal ("third", "last"), so a label that
    /// spells it as a word ("Third-party plugins") can take it back.
    pub ordinal_token: Option<usize>,
    /// The kind noun was plural ("stories"): a collection, not one item.
    pub plural: bool,
    /// Concept ids named by the content words.
    pub concepts: Vec<usize>,
    /// The token that set `kind`, so the kind can fall back to content.
    pub kind_token: Option<usize>,
    /// Every token of the phrase, stopwords included ("not now").
    pub span: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    #[default]
    Plain,
    /// "one": a pronoun for a thing already described.
    One,
    Item,
    Section,
    Footnote,
    Author,
    Role(RoleNoun),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordinal {
    /// "the third", "top".
    Nth(u32),
    Last,
    /// "number ten", "footnote two": a visible number, not a position.
    Number(u32),
}

/// Where the text to type comes from and what names the field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Typing {
    /// Byte span of the text, when the grammar fixes it.
    pub text: Option<Range<usize>>,
    /// "enter the username karl": field words then text, split against the
    /// field labels on screen. Token range.
    pub rest: Option<Range<usize>>,
    /// Tokens naming the field ("in the search box", "the password is").
    pub field: Vec<usize>,
    /// "replace oD with done": the current value of the field.
    pub replace: Option<Range<usize>>,
    /// A search verb: the field is a search field.
    pub search: bool,
}

impl Reading<'_> {
    /// The source text of a byte span.
    pub fn slice(&self, span: &Range<usize>) -> &str {
        &self.source[span.clone()]
    }

    /// Byte span covering a token range.
    pub fn span(&self, tokens: &Range<usize>) -> Option<Range<usize>> {
        if tokens.is_empty() || tokens.end > self.tokens.len() {
            return None;
        }
        Some(self.tokens[tokens.start].start..self.tokens[tokens.end - 1].end)
    }

    /// Content tokens of head and qualifier.
    pub fn content(&self) -> impl Iterator<Item = &Token> {
        self.head
            .content
            .iter()
            .chain(self.qualifier.content.iter())
            .map(|&i| &self.tokens[i])
    }

    /// The words after fillers, as one slice of the source.
    pub fn request(&self) -> &str {
        match self.tokens.get(self.begin) {
            Some(t) => self.source[t.start..].trim(),
            None => self.source.trim(),
        }
    }
}

/// Phrases that say how, never what: "jump all the way to page 10" (no "all" that counts).
/// (Not "right now": it may end a text to type.)
const IDIOMS: &[(&[&str], Option<&str>)] = &[
    (&["all", "the", "way"], None),
    // A phrasal verb said for the one word a label uses ("Contact Us").
    (&["get", "in", "touch", "with"], Some("contact")),
    (&["get", "in", "touch"], Some("contact")),
    (&["reach", "out", "to"], Some("contact")),
];

/// Drops idioms that say nothing of the target, and puts the one word a label would use for a
/// phrasal verb in its place (its span is the phrase's, so the source still reads right).
fn without_idioms(tokens: Vec<Token>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let idiom = IDIOMS.iter().find(|(idiom, _)| {
            tokens[i..].len() >= idiom.len()
                && idiom.iter().zip(&tokens[i..]).all(|(w, t)| t.norm == *w)
        });
        match idiom {
            Some((idiom, word)) => {
                if let Some(word) = word {
                    out.push(Token {
                        start: tokens[i].start,
                        end: tokens[i + idiom.len() - 1].end,
                        ..Token::synthetic(word)
                    });
                }
                i += idiom.len();
            }
            None => {
                out.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// Reads one utterance.
pub fn read(source: &str) -> Reading<'_> {
    read_with(source, true)
}

/// Reads one utterance as a reference to a control, never as text to type
/// ("search flights" said to a page with a "Search flights" button).
pub fn read_as_reference(source: &str) -> Reading<'_> {
    read_with(source, false)
}

fn read_with(source: &str, typing_allowed: bool) -> Reading<'_> {
    let tokens = without_idioms(spoken_letters(spoken_digits(spoken_numbers(text::tokens(
        source,
    )))));
    let begin = last_sentence(source, &tokens);
    let begin = begin + skip_openers(&tokens[begin..]);
    // "baixa a versão assinada", "klik op Aanmelden": a command in another language.
    let tokens = super::foreign::in_english(tokens, begin);
    // "for the user @sam, click Share": the leading scope qualifies the target of the command
    // after the comma, as "click Share for the user @sam" would.
    let scope = leading_scope(source, &tokens, begin);
    let begin = scope.as_ref().map_or(begin, |s| s.end);
    let mut reading = Reading {
        source,
        tokens,
        begin,
        cue: Cue::Act,
        verb: Verb::None,
        head: Phrase::default(),
        qualifier: Phrase::default(),
        implied: Vec::new(),
        typing: None,
        quantified: false,
        fill: None,
        guessed_verb: false,
        relation: None,
        locates: false,
        asks_about: false,
        asks_way: false,
        returns: false,
    };
    let located = locating(&reading.tokens[begin..]);
    let way = if located == 0 {
        asking_way(&reading.tokens[begin..])
    } else {
        0
    };
    let about = if located == 0 && way == 0 {
        asking_about(&reading.tokens[begin..])
    } else {
        0
    };
    let begin = begin + located + way + about;
    reading.begin = begin;
    reading.locates = located > 0;
    reading.asks_way = way > 0;
    reading.asks_about = about > 0;
    let words: Vec<String> = reading.tokens[begin..]
        .iter()
        .map(|t| t.norm.clone())
        .collect();
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    if w.is_empty() {
        return reading;
    }
    reading.fill = (w.len() >= 2).then_some(begin..reading.tokens.len());
    reading.returns = returns(&w);
    if let Some(cue) = global_cue(source, &w) {
        reading.cue = cue;
        // "compare the editions": a reasoning verb's words may still be a control's name
        // ("Compare Editions"), which the decider can tell.
        // "who sits on the board of directors": a question's words may name a link in full
        // ("Board of Directors"), the page with the answer.
        if cue == Cue::Question {
            let all: Vec<usize> = (begin..reading.tokens.len()).collect();
            reading.head = phrase(&reading.tokens, &all);
        }
        return reading;
    }
    if let Some(mut typing) = typing(&reading, &w).filter(|_| typing_allowed) {
        reading.cue = Cue::Type;
        // "in the review, write …": the leading scope names the field the text goes into.
        // What follows the verb is then all text: nothing after it is left to name a field.
        if let Some(s) = scope.as_ref().filter(|_| typing.field.is_empty()) {
            typing.field = (s.start + 1..s.end).collect();
            if typing.text.is_none() {
                // From the word after the verb: "write the staff was friendly" keeps "the".
                let b = reading.begin;
                typing.text = typing
                    .rest
                    .take()
                    .and_then(|r| reading.span(&(b + 1..r.end)));
            }
        }
        let field = typing.field.clone();
        reading.typing = Some(typing);
        // A field is named by its label: "the email field" is not an email.
        let mut head = phrase(&reading.tokens, &field);
        if !matches!(head.kind, Kind::Role(_) | Kind::Plain) {
            if let Some(t) = head.kind_token.take() {
                head.content.push(t);
                head.content.sort_unstable();
            }
            head.kind = Kind::Plain;
        }
        reading.head = head;
        return reading;
    }
    // "reply to anna saying I'll be late": a message to compose and send,
    // unless the words before the marker name a field on screen ("leave a
    // comment saying ..."), which the decider can tell.
    if let Some(m) = (begin + 1..reading.tokens.len()).find(|&i| marks_text(&reading.tokens, i)) {
        if m + 1 < reading.tokens.len() {
            reading.typing = Some(Typing {
                text: reading.span(&(m + 1..reading.tokens.len())),
                field: (begin..m).collect(),
                ..Typing::default()
            });
        }
    }
    if joins_steps(&w)
        || super::steps::joined(source)
        || (begin + 1..reading.tokens.len()).any(|i| marks_text(&reading.tokens, i))
    {
        reading.cue = Cue::MultiStep;
    }
    let after_verb = verb(&mut reading, &w);
    // Only after a command's verb: "no, I don't want your cookies" is all one answer.
    let end = if after_verb > 0 {
        remark_start(source, &reading.tokens, begin + after_verb)
    } else {
        reading.tokens.len()
    };
    let rest: Vec<usize> = (begin + after_verb..end).collect();
    if let Some(first) = rest.first() {
        let q = &reading.tokens[*first].norm;
        reading.quantified = matches!(q.as_str(), "all" | "every" | "each");
    }
    // "open the about page", "about the institute": "about" first, or after an article, is
    // the About page's name, not a preposition.
    let names_about = |k: usize| {
        reading.tokens[rest[k]].norm == "about"
            && (k == 0
                || matches!(
                    reading.tokens[rest[k - 1]].norm.as_str(),
                    "the" | "an" | "a"
                ))
    };
    let split = (0..rest.len()).position(|k| {
        is_in(lexicon::PREPOSITIONS, &reading.tokens[rest[k]].norm) && !names_about(k)
    });
    let (head, qualifier) = match split {
        // "click on the search box", "click in the name field": the words after the
        // preposition are the reference itself.
        Some(0)
            if matches!(
                reading.tokens[rest[0]].norm.as_str(),
                "on" | "in" | "into" | "onto" | "at" | "by" | "for"
            ) =>
        {
            (&rest[1..], &[][..])
        }
        Some(p) if names_more_of_a_source(&reading.tokens, &rest, p) => (&rest[p + 1..], &[][..]),
        Some(p) => {
            // "stuff that has subtitles", "the ones which are free": after a relative word,
            // having or being says nothing of the thing; what follows does.
            let relative = matches!(
                reading.tokens[rest[p]].norm.as_str(),
                "that" | "which" | "where"
            );
            let says_nothing = |k: usize| {
                rest.get(k)
                    .is_some_and(|&i| is_in(lexicon::LINKING_VERBS, &reading.tokens[i].norm))
            };
            let from = if relative && says_nothing(p + 1) && p + 2 < rest.len() {
                p + 2
            } else {
                p + 1
            };
            (&rest[..p], &rest[from..])
        }
        None => (&rest[..], &[][..]),
    };
    let qualifier: Vec<usize> = qualifier
        .iter()
        .copied()
        .chain(scope.into_iter().flat_map(|s| {
            // "the user @sam": the noun only says what the name is; the name scopes.
            let tokens = &reading.tokens;
            (s.start + 1..s.end).filter(move |&i| {
                !(i + 1 < s.end
                    && matches!(
                        tokens[i].norm.as_str(),
                        "user" | "account" | "person" | "member" | "handle"
                    ))
            })
        }))
        .collect();
    reading.head = phrase(&reading.tokens, head);
    reading.qualifier = phrase(&reading.tokens, &qualifier);
    reading.relation = relation(&reading.tokens, &rest);
    reading
}

/// "more from The Office", "more by Prince", "more posts by this author": the source to see
/// more of is named after the preposition at `p` of `rest` ("more about the rates" keeps "More"
/// as the control's word). When it is the author, what there is more of (one word) says
/// nothing more: the author's page lists it ("more news from the park" is the news). "More by
/// this" points at no source; "this author" is one.
fn names_more_of_a_source(tokens: &[Token], rest: &[usize], p: usize) -> bool {
    let norm = |i: usize| tokens[i].norm.as_str();
    if p + 1 >= rest.len()
        || !rest[..p].iter().any(|&i| norm(i) == "more")
        || !matches!(norm(rest[p]), "from" | "by")
    {
        return false;
    }
    let author = phrase(tokens, &rest[p + 1..]).kind == Kind::Author;
    let other = rest[..p]
        .iter()
        .filter(|&&i| !matches!(norm(i), "more" | "some" | "the"))
        .count();
    (other == 0 || (other == 1 && author))
        && (author || !is_in(lexicon::POINTING, norm(rest[p + 1])))
}

/// "the link next to print", "the word right after maudlin", "the button to the left of
/// Save": a marker of place followed by words naming the anchor. Without anchor words ("the
/// day before", "coined after them") there is no relation.
fn relation(tokens: &[Token], rest: &[usize]) -> Option<Relation> {
    let norm = |k: usize| rest.get(k).map(|&i| tokens[i].norm.as_str());
    // The marker starts the reference's qualifier: inside one ("the tweet that starts now
    // before you write me off") it is the qualifier's words.
    let first_preposition = rest
        .iter()
        .position(|&i| is_in(lexicon::PREPOSITIONS, &tokens[i].norm))
        .unwrap_or(rest.len());
    let (at, len, side) = (0..=first_preposition.min(rest.len())).find_map(|k| {
        let previous = k.checked_sub(1).and_then(norm);
        let marker = match (norm(k)?, norm(k + 1), norm(k + 2), norm(k + 3)) {
            ("after", ..) => Some((1, Side::After)),
            ("before", ..) => Some((1, Side::Before)),
            ("following", ..) if !matches!(previous, Some("the" | "a" | "an") | None) => {
                Some((1, Side::After))
            }
            ("preceding", ..) if !matches!(previous, Some("the" | "a" | "an") | None) => {
                Some((1, Side::Before))
            }
            ("next", Some("to"), ..) => Some((2, Side::Beside)),
            ("beside", ..) => Some((1, Side::Beside)),
            // In a list read top to bottom, below is after and above is before.
            // "Under" and "over" stay qualifiers ("the comments under the second story").
            ("below" | "beneath", ..) if k > 0 => Some((1, Side::Below)),
            // "right under New License": a place, said so.
            ("under", ..) if matches!(previous, Some("right" | "just" | "directly")) => {
                Some((1, Side::Below))
            }
            ("above", ..) if k > 0 => Some((1, Side::Above)),
            ("to", Some("the"), Some("right"), Some("of")) => Some((4, Side::After)),
            ("to", Some("the"), Some("left"), Some("of")) => Some((4, Side::Before)),
            ("right", Some("of"), ..) if k > 0 => Some((2, Side::After)),
            ("left", Some("of"), ..) if k > 0 => Some((2, Side::Before)),
            _ => None,
        };
        marker.map(|(len, side)| (k, len, side))
    })?;
    // "right after", "just before", "immediately after": how close, not what.
    let head: Vec<usize> = rest[..at]
        .iter()
        .copied()
        .filter(|&i| {
            !matches!(
                tokens[i].norm.as_str(),
                "right" | "just" | "immediately" | "directly"
            )
        })
        .collect();
    let anchor = phrase(tokens, &rest[at + len..]);
    if anchor.content.is_empty() {
        return None;
    }
    Some(Relation {
        side,
        head: phrase(tokens, &head),
        anchor,
    })
}

/// Numbers said in words as a label writes them: "forty seven" is 47, "five thousand" is 5000
/// ([`multiplied`]), and "point" or "dot" between two numbers is the written dot, gone as the
/// label's tokens have it ("four point forty seven point four" meets "4.47.4" as 4, 47, 4), the
/// digits said one by one after it one number ("one point seven five" meets "1,75" as 1, 75).
fn spoken_numbers(tokens: Vec<Token>) -> Vec<Token> {
    decimal_points(multiplied(tens_and_units(tokens)))
}

/// The number a text says when it says one number and nothing else: "four" is 4, "forty
/// seven" 47, "five thousand" 5000, "12" 12; `None` for "four pairs" or "one point five".
pub fn said_number(text: &str) -> Option<u64> {
    match spoken_numbers(text::tokens(text)).as_slice() {
        [one] => number_value(one),
        _ => None,
    }
}

/// The value of a number token, said ("seven") or written ("7").
fn number_value(t: &Token) -> Option<u64> {
    if t.is_number() {
        t.stem.parse().ok()
    } else {
        text::number_word(&t.norm).map(u64::from)
    }
}

/// A token spanning `tokens[from..to]` in the source, with this norm.
fn spanning(tokens: &[Token], from: usize, to: usize, norm: String) -> Token {
    Token::spanning(tokens[from].start, tokens[to - 1].end, norm)
}

/// "forty seven" is one number, 47.
fn tens_and_units(tokens: Vec<Token>) -> Vec<Token> {
    let mut joined: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let tens =
            text::number_word(&tokens[i].norm).filter(|n| (20..=90).contains(n) && n % 10 == 0);
        let unit = tokens
            .get(i + 1)
            .filter(|t| t.norm.chars().all(char::is_alphabetic))
            .and_then(|t| text::number_word(&t.norm))
            .filter(|n| (1..=9).contains(n));
        if let (Some(tens), Some(unit)) = (tens, unit) {
            joined.push(spanning(&tokens, i, i + 2, (tens + unit).to_string()));
            i += 2;
        } else {
            joined.push(tokens[i].clone());
            i += 1;
        }
    }
    joined
}

/// A number said with a multiplier: its value, the token after it, and the count and the
/// multiplier when it is one times the other ("fifteen thousand": 15 and 1000).
struct Multiplied {
    value: u64,
    end: usize,
    simple: Option<(u64, u64)>,
}

fn multiplier(norm: &str) -> Option<u64> {
    match norm {
        "hundred" => Some(100),
        "thousand" => Some(1_000),
        "million" => Some(1_000_000),
        _ => None,
    }
}

/// Numbers said with hundred, thousand or million are one number as written: "five thousand"
/// is 5000, "a hundred" 100, "two hundred and fifty" 250, "5 thousand" 5000. In a range the
/// first number takes the second's multiplier when it is smaller than its count: "between ten
/// and fifteen thousand" is 10000 and 15000, as "from five to ten thousand" is 5000 and 10000.
fn multiplied(tokens: Vec<Token>) -> Vec<Token> {
    let is_multiplier = |k: usize| tokens.get(k).and_then(|t| multiplier(&t.norm)).is_some();
    let read = |i: usize| -> Option<Multiplied> {
        let mut total = 0u64;
        let mut current: Option<u64> = None;
        let mut after_multiplier = false;
        let mut scales = Vec::new();
        let mut k = i;
        let mut end = i;
        while k < tokens.len() {
            let t = &tokens[k];
            if let Some(m) = multiplier(&t.norm) {
                let count = current?;
                if m == 100 {
                    current = Some(count.checked_mul(100)?);
                } else {
                    total = total.checked_add(count.checked_mul(m)?)?;
                    current = None;
                }
                scales.push((count, m));
                after_multiplier = true;
                k += 1;
                end = k;
                continue;
            }
            let a = t.norm == "a" && current.is_none() && is_multiplier(k + 1);
            let value = number_value(t).or(a.then_some(1));
            if let Some(v) = value {
                match current {
                    None if k == i || after_multiplier => current = Some(v),
                    Some(c) if after_multiplier && c % 100 == 0 && v < 100 => current = Some(c + v),
                    _ => break,
                }
                after_multiplier = false;
                k += 1;
                if !scales.is_empty() {
                    end = k;
                }
                continue;
            }
            if t.norm == "and"
                && after_multiplier
                && tokens.get(k + 1).and_then(number_value).is_some()
            {
                k += 1;
                continue;
            }
            break;
        }
        if scales.is_empty() {
            return None;
        }
        let value = total.checked_add(current.unwrap_or(0))?;
        let simple = (scales.len() == 1 && end == i + 2).then(|| scales[0]);
        Some(Multiplied { value, end, simple })
    };
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let Some(number) = read(i) {
            out.push(spanning(&tokens, i, number.end, number.value.to_string()));
            i = number.end;
            continue;
        }
        // "ten and fifteen thousand": the first of a range takes the second's multiplier.
        let range = tokens
            .get(i + 1)
            .is_some_and(|t| matches!(t.norm.as_str(), "and" | "to" | "or"));
        let first = number_value(&tokens[i]).filter(|_| range && !is_multiplier(i + 1));
        let second = read(i + 2).and_then(|n| n.simple);
        if let (Some(first), Some((count, scale))) = (first, second) {
            if first < count && first > 0 {
                out.push(spanning(&tokens, i, i + 1, (first * scale).to_string()));
                i += 1;
                continue;
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// "point" or "dot" between two numbers is the written dot, gone; the digits said one by one
/// after it are one number ("point seven five" is 75, as "1,75" writes it).
fn decimal_points(tokens: Vec<Token>) -> Vec<Token> {
    let number = |k: usize| tokens.get(k).and_then(number_value).is_some();
    let digit = |k: usize| {
        tokens.get(k).is_some_and(|t| {
            t.norm.chars().all(char::is_alphabetic)
                && text::number_word(&t.norm).is_some_and(|n| n <= 9)
        })
    };
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        let point = matches!(tokens[k].norm.as_str(), "point" | "dot")
            && k > 0
            && number(k - 1)
            && number(k + 1);
        if !point {
            out.push(tokens[k].clone());
            k += 1;
            continue;
        }
        let mut end = k + 1;
        while digit(end) {
            end += 1;
        }
        if end - (k + 1) >= 2 {
            let digits: String = tokens[k + 1..end]
                .iter()
                .filter_map(|t| text::number_word(&t.norm))
                .map(|n| n.to_string())
                .collect();
            out.push(spanning(&tokens, k + 1, end, digits));
            k = end;
        } else {
            k += 1;
        }
    }
    out
}

/// "issue one oh three", "room four one two": digits said one by one are one number (103,
/// 412). A run of three digits or more, or of two with an "oh" or "zero" among them; a leading
/// "oh" is a zero ("draft oh one"), a trailing one, or one alone, is a word ("oh, open three",
/// "version two oh").
fn spoken_digits(tokens: Vec<Token>) -> Vec<Token> {
    let is_oh = |t: &Token| matches!(t.norm.as_str(), "oh" | "o");
    let digit = |t: &Token| -> Option<char> {
        if is_oh(t) {
            return Some('0');
        }
        let d = text::number_word(&t.norm).filter(|n| *n <= 9)?;
        (t.norm.chars().all(|c| c.is_alphabetic()) || t.norm.len() == 1)
            .then(|| char::from_digit(d, 10))
            .flatten()
    };
    let one_number = |run: &[Token]| {
        let zeros = run
            .iter()
            .filter(|t| matches!(t.norm.as_str(), "oh" | "o" | "zero"))
            .count();
        run.len() >= 3 || (run.len() == 2 && zeros > 0)
    };
    join_runs(tokens, digit, is_oh, one_number)
}

/// "open the t x t", "the p d f": letters said one by one are one word ("txt", "pdf"). A run of
/// two single letters or more; "a" and "i" (words of their own) only inside a run of three.
fn spoken_letters(tokens: Vec<Token>) -> Vec<Token> {
    let letter = |t: &Token| {
        let mut chars = t.norm.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_alphabetic() => Some(c),
            _ => None,
        }
    };
    let one_word = |run: &[Token]| {
        let words = run
            .iter()
            .filter(|t| matches!(t.norm.as_str(), "a" | "i"))
            .count();
        run.len() >= 3 || (run.len() == 2 && words == 0)
    };
    join_runs(tokens, letter, |_| false, one_word)
}

/// Joins each run of tokens that are one character each (`piece`) into one token, when
/// `one_word` says the run (without the trailing tokens `trailing_word` keeps as words) is one;
/// the joined token spans the run in the source and is stemmed as any word.
fn join_runs(
    tokens: Vec<Token>,
    piece: impl Fn(&Token) -> Option<char>,
    trailing_word: impl Fn(&Token) -> bool,
    one_word: impl Fn(&[Token]) -> bool,
) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        let mut end = k;
        while end < tokens.len() && piece(&tokens[end]).is_some() {
            end += 1;
        }
        while end > k && trailing_word(&tokens[end - 1]) {
            end -= 1;
        }
        let run = &tokens[k..end];
        if !run.is_empty() && one_word(run) {
            let word: String = run.iter().filter_map(&piece).collect();
            out.push(spanning(run, 0, run.len(), word));
            k = end;
        } else {
            out.push(tokens[k].clone());
            k += 1;
        }
    }
    out
}

/// "where's the privacy policy", "where can I find the archive": the words that ask where
/// (their count), when a thing to find follows them.
fn locating(tokens: &[Token]) -> usize {
    const ASKS: &[&[&str]] = &[
        &["where", "s"],
        &["where", "is"],
        &["where", "are"],
        &["where", "can", "i", "find"],
        &["where", "do", "i", "find"],
        &["where", "would", "i", "find"],
        &["where", "could", "i", "find"],
    ];
    ASKS.iter()
        .find(|ask| tokens.len() > ask.len() && ask.iter().zip(tokens).all(|(a, t)| *a == t.norm))
        .map_or(0, |ask| ask.len())
}

/// "how do I contact customs", "is there a calculator for import duties", "where can I hand
/// her in": the words before the way or thing asked about, when two words at least follow.
fn asking_way(tokens: &[Token]) -> usize {
    const ASKS: &[&[&str]] = &[
        &["how", "do", "i"],
        &["how", "can", "i"],
        &["how", "could", "i"],
        &["how", "would", "i"],
        &["how", "should", "i"],
        &["how", "do", "we"],
        &["how", "can", "we"],
        &["how", "do", "you"],
        &["how", "can", "you"],
        &["how", "to"],
        &["where", "can", "i"],
        &["where", "do", "i"],
        &["where", "should", "i"],
        &["is", "there", "a"],
        &["is", "there", "an"],
        &["is", "there", "any"],
        &["is", "there"],
        &["are", "there", "any"],
        &["are", "there"],
        &["do", "they", "have"],
        &["do", "you", "have"],
        &["does", "it", "have"],
    ];
    ASKS.iter()
        .find(|ask| {
            tokens.len() > ask.len() + 1 && ask.iter().zip(tokens).all(|(a, t)| *a == t.norm)
        })
        .map_or(0, |ask| ask.len())
}

/// "what are the best credit cards", "tell me about nature and climate": the words before the
/// thing asked about, when a thing follows (after "what", one named by two words at least).
fn asking_about(tokens: &[Token]) -> usize {
    const ASKS: &[&[&str]] = &[
        &["tell", "me", "about"],
        &["tell", "me", "more", "about"],
        &["what", "are"],
        &["what", "is"],
        &["what", "s"],
    ];
    let asked = ASKS
        .iter()
        .find(|ask| {
            tokens.len() > ask.len() + 1 && ask.iter().zip(tokens).all(|(a, t)| *a == t.norm)
        })
        .map_or(0, |ask| ask.len());
    // "what is this video about", "what is it for": a question about what is shown.
    let rest = &tokens[asked..];
    let shown = rest
        .first()
        .is_some_and(|t| is_in(lexicon::POINTING, &t.norm))
        || rest
            .last()
            .is_some_and(|t| lexicon::is_in(lexicon::PREPOSITIONS, &t.norm));
    // "what is the price" asks for a value the page shows; a thing named by two words or more
    // ("the best credit cards") may be a place to go.
    let thing =
        tokens.first().is_some_and(|t| t.norm == "tell") || lexicon::content_words(rest).len() >= 2;
    if shown || !thing {
        0
    } else {
        asked
    }
}

/// "what's new? open the changelog": the command is the last sentence.
fn last_sentence(source: &str, tokens: &[Token]) -> usize {
    let body = source.trim_end().trim_end_matches(['?', '.', '!']);
    match body.rfind(['?', '.', '!']) {
        Some(end) if source[end + 1..].starts_with(' ') => {
            let start = tokens.iter().position(|t| t.start > end).unwrap_or(0);
            if tokens.len() - start >= 2 {
                start
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// "for the user @sam, click Share", "on the second story, click hide": a leading
/// preposition's phrase, closed by a comma before an action verb. Returns the token range from
/// the preposition to the last token before the comma.
fn leading_scope(source: &str, tokens: &[Token], begin: usize) -> Option<Range<usize>> {
    let first = tokens.get(begin)?;
    if !matches!(first.norm.as_str(), "for" | "on" | "in" | "under" | "at") {
        return None;
    }
    (begin + 2..tokens.len()).find_map(|c| {
        let verb = &tokens[c].norm;
        // "in the review write: lovely food", "in the name field enter Ana": a verb of typing
        // closes a short scope without the comma that speech often leaves out.
        let closed =
            comma_before(source, tokens, c) || (c - begin <= 5 && is_in(lexicon::TYPE_VERBS, verb));
        (closed && super::steps::is_action_verb(verb)).then_some(begin..c)
    })
}

/// Where a remark after a command's comma starts ("tick off the egg, I've got it", "open the
/// second one, thanks"): the words from there say something about the speaker, not which
/// thing is meant. A remark begins with a speaker's subject or a thanks; the reference's end
/// otherwise.
fn remark_start(source: &str, tokens: &[Token], from: usize) -> usize {
    (from + 1..tokens.len())
        .find(|&c| {
            comma_before(source, tokens, c) && is_in(lexicon::REMARK_OPENERS, &tokens[c].norm)
        })
        .unwrap_or(tokens.len())
}

/// Whether a comma stands between token `c` and the one before it (`c` ≥ 1).
fn comma_before(source: &str, tokens: &[Token], c: usize) -> bool {
    source[tokens[c - 1].end..tokens[c].start].contains(',')
}

fn skip_openers(tokens: &[Token]) -> usize {
    let mut i = 0;
    'outer: while i < tokens.len() {
        if is_in(lexicon::FILLERS, &tokens[i].norm) && i + 1 < tokens.len() {
            i += 1;
            continue;
        }
        for wrapper in lexicon::WRAPPERS {
            let fits = i + wrapper.len() < tokens.len()
                && wrapper
                    .iter()
                    .enumerate()
                    .all(|(k, w)| tokens[i + k].norm == *w);
            if fits {
                i += wrapper.len();
                continue 'outer;
            }
        }
        break;
    }
    i
}

/// Questions, scrolling and going back: turns that need no target.
fn global_cue(source: &str, w: &[&str]) -> Option<Cue> {
    let first = w[0];
    let asks = source.trim_end().ends_with('?');
    // Spoken questions have no "?": an auxiliary followed by its subject ("is this wine sweet",
    // "do I have any unread emails") asks as well.
    let plain_aux = matches!(
        first,
        "is" | "are" | "was" | "were" | "do" | "does" | "did" | "has" | "have" | "am"
    );
    let subject = plain_aux
        && w.get(1).is_some_and(|x| {
            matches!(
                *x,
                "this" | "that" | "it" | "there" | "these" | "those" | "i" | "we" | "my" | "any"
            )
        });
    // "answer the last comment" replies; "answer this question" reasons.
    let replies = first == "answer"
        && !w
            .iter()
            .any(|x| matches!(*x, "question" | "questions" | "quiz" | "riddle" | "me"));
    if let Some(direction) = a_place_on_the_page(w) {
        return Some(Cue::Scroll(direction));
    }
    if is_in(lexicon::QUESTION_WORDS, first)
        || (is_in(lexicon::REASON_VERBS, first) && !replies)
        || ((asks || subject) && is_in(lexicon::AUXILIARIES, first))
    {
        return Some(Cue::Question);
    }
    let up = |words: &[&str]| words.iter().any(|x| matches!(*x, "up" | "top" | "upwards"));
    let scrolls = w.iter().take(3).any(|x| *x == "scroll")
        || (first == "page" && w.len() == 2 && matches!(w[1], "down" | "up"))
        || (matches!(first, "go" | "move")
            && w.len() >= 2
            && matches!(w[1], "up" | "down")
            && w[2..]
                .iter()
                .all(|x| matches!(*x, "a" | "bit" | "little" | "more" | "please")))
        || (first == "read" && w.get(1) == Some(&"on") && w.len() == 2)
        || (matches!(first, "keep" | "continue")
            && w[1..]
                .iter()
                .all(|x| matches!(*x, "reading" | "going" | "scrolling" | "on")));
    if scrolls {
        return Some(Cue::Scroll(if up(w) {
            Direction::Up
        } else {
            Direction::Down
        }));
    }
    let mentions_back = w.contains(&"back") || (w.contains(&"previous") && w.contains(&"page"));
    let only_back = w.iter().all(|x| {
        matches!(
            *x,
            "go" | "back"
                | "take"
                | "bring"
                | "return"
                | "me"
                | "us"
                | "just"
                | "to"
                | "the"
                | "previous"
                | "page"
                | "last"
                | "please"
                | "navigate"
                | "where"
                | "i"
                | "was"
                | "screen"
        )
    });
    if mentions_back && only_back {
        return Some(Cue::Back);
    }
    None
}

/// "show me what's further down", "what's below", "the rest of the page": words that say only a
/// part of the page above or below what is shown, and nothing to find there.
fn a_place_on_the_page(w: &[&str]) -> Option<Direction> {
    const SAYS_NOTHING_ELSE: &[&str] = &[
        "show", "me", "us", "let", "see", "what", "s", "is", "whats", "there", "the", "of", "page",
        "a", "bit", "little", "more", "please", "else", "on", "this", "screen", "just", "list",
        "results", "table",
    ];
    // "the rest" of the page or of the list it shows; "show me the rest" alone may be the rest
    // of a comment.
    let whole_page = w
        .iter()
        .any(|x| matches!(*x, "page" | "list" | "results" | "table"));
    let down = |x: &&str| {
        matches!(*x, "below" | "lower" | "beneath" | "further" | "farther")
            || (*x == "rest" && whole_page)
    };
    let up = |x: &&str| matches!(*x, "above" | "higher" | "up");
    let only_place = w
        .iter()
        .all(|x| down(x) || up(x) || matches!(*x, "down" | "rest") || is_in(SAYS_NOTHING_ELSE, x));
    if !only_place || w.len() < 2 {
        return None;
    }
    if w.iter().any(up) {
        Some(Direction::Up)
    } else if w.iter().any(down) {
        Some(Direction::Down)
    } else {
        None
    }
}

/// "go back to the search results", "take me back to the list", "return to the results": a
/// way back to a named page (the words after "to").
fn returns(w: &[&str]) -> bool {
    let rest = match w {
        ["go" | "get" | "head" | "navigate" | "jump", "back", rest @ ..] => rest,
        ["take" | "bring" | "get", "me" | "us", "back", rest @ ..] => rest,
        ["return" | "back", rest @ ..] => rest,
        _ => return false,
    };
    matches!(rest, ["to", _, ..])
}

/// A field of one's own and its value joined by "as": "put my name in as Ana Novak", "enter our
/// company as Acme" (the field, then the value), "use ana@example.com as my email address" (the
/// value, then the field). Only a field said with "my" or "our": "save as draft", "mark as
/// read" and "log in as guest" name controls.
fn as_a_value(reading: &Reading<'_>) -> Option<Typing> {
    let (b, n) = (reading.begin, reading.tokens.len());
    let norm = |i: usize| reading.tokens.get(i).map_or("", |t| t.norm.as_str());
    let at = (b + 2..n.saturating_sub(1)).find(|&i| norm(i) == "as")?;
    let mine = |i: usize| matches!(norm(i), "my" | "our");
    match norm(b) {
        "use" if mine(at + 1) && at + 2 < n => Some(Typing {
            text: reading.span(&(b + 1..at)),
            field: (at + 1..n).collect(),
            ..Typing::default()
        }),
        "put" | "enter" | "type" | "fill" | "set" | "write" | "add" if mine(b + 1) => {
            let mut end = at;
            while end > b + 2 && matches!(norm(end - 1), "in" | "down") {
                end -= 1;
            }
            Some(Typing {
                text: reading.span(&(at + 1..n)),
                field: (b + 1..end).collect(),
                ..Typing::default()
            })
        }
        _ => None,
    }
}

/// Whether token `i` begins the text a message says ("reply saying I'll be late", "a sign
/// reading closed"): not "reading" after a determiner, which names a kind of thing ("these
/// reading lenses", "my reading list").
fn marks_text(tokens: &[Token], i: usize) -> bool {
    let t = &tokens[i];
    is_in(lexicon::TEXT_MARKERS, &t.norm)
        && !(t.norm == "reading"
            && i > 0
            && matches!(
                tokens[i - 1].norm.as_str(),
                "the"
                    | "a"
                    | "an"
                    | "these"
                    | "this"
                    | "those"
                    | "that"
                    | "my"
                    | "your"
                    | "our"
                    | "his"
                    | "her"
                    | "their"
                    | "some"
                    | "new"
            ))
}

fn joins_steps(w: &[&str]) -> bool {
    w.windows(2)
        .any(|p| p == ["and", "then"] || p == ["after", "that"])
        || w.iter().skip(1).any(|x| *x == "then")
}

/// Classifies the leading verb; returns how many tokens after `begin` it used.
fn verb(reading: &mut Reading<'_>, w: &[&str]) -> usize {
    let begin = reading.begin;
    let first = w[0];
    let mut used;
    // "make it one way", "set it to weekly", "give it five stars": select
    // what follows.
    if matches!(first, "make" | "set" | "give") && w.get(1) == Some(&"it") {
        reading.verb = Verb::Activate;
        used = 2;
        while used < w.len() && matches!(w[used], "to" | "a" | "an") {
            used += 1;
        }
        return used;
    }
    // "check in for my flight", "check in online": the traveller's check-in, a verb of its own
    // that a control must offer, not a box to tick.
    let checks_in = first == "check" && w.get(1) == Some(&"in");
    if (is_in(lexicon::ACTIVATE_VERBS, first) || is_in(lexicon::TOGGLE_VERBS, first)) && !checks_in
    {
        // "switch to hotels", "switch back to the article" navigate; "switch on dark mode"
        // toggles.
        let navigates = w.get(1) == Some(&"to") || w.get(1..3) == Some(&["back", "to"][..]);
        reading.verb = if is_in(lexicon::TOGGLE_VERBS, first) && !navigates {
            Verb::Toggle
        } else {
            Verb::Activate
        };
        used = 1;
        while used < w.len() && matches!(w[used], "me" | "us") {
            used += 1;
        }
        if used < w.len() && w[used] == "back" {
            reading.implied.push(Token::synthetic("return"));
            used += 1;
        }
        while used < w.len()
            && matches!(
                w[used],
                "to" | "on" | "off" | "at" | "into" | "over" | "out"
            )
        {
            used += 1;
        }
        return used;
    }
    if first == "back" || first == "return" {
        reading.implied.push(Token::synthetic("return"));
        reading.verb = Verb::Activate;
        used = 1;
        while used < w.len() && w[used] == "to" {
            used += 1;
        }
        return used;
    }
    if !is_in(UI_VERBS, first) && !checks_in {
        // A misheard verb is followed by its object ("hyde the story", "upboat this"); a noun
        // that sounds like one is not ("rider number 13").
        let object_follows = w.get(1).is_none_or(|x| {
            matches!(
                *x,
                "the"
                    | "this"
                    | "that"
                    | "these"
                    | "those"
                    | "it"
                    | "a"
                    | "an"
                    | "my"
                    | "all"
                    | "them"
                    | "him"
                    | "her"
                    | "me"
                    | "us"
                    | "our"
                    | "your"
                    | "his"
                    | "its"
            )
        });
        // A small word ("all", "any") is no misheard verb: "all the speedway news".
        let small = is_in(lexicon::STOPWORDS, first)
            || matches!(first, "all" | "every" | "each" | "any" | "some");
        if !sounds_like_a_ui_verb(first) || !object_follows || small {
            return 0;
        }
        reading.guessed_verb = true;
    }
    used = 1;
    let mut words = vec![reading.tokens[begin].clone()];
    while used < w.len() && matches!(w[used], "me" | "us" | "in" | "up" | "out" | "on" | "off") {
        if !matches!(w[used], "me" | "us") {
            words.push(reading.tokens[begin + used].clone());
        }
        used += 1;
    }
    // "log into my account", "sign into Gmail": the verb is "log in".
    if used == 1 && matches!(first, "log" | "sign") && w.get(1) == Some(&"into") {
        words.push(Token::synthetic("in"));
        used += 1;
    }
    let concept = lexicon::concepts_in(&words)
        .into_iter()
        .find(|(_, r)| r.start == 0)
        .map(|(c, _)| c);
    reading.verb = Verb::Specific {
        tokens: begin..begin + used,
        concept,
    };
    used
}

/// A leading word that is no verb of ours but is close in sound or spelling to
/// an interface verb: what speech recognition makes of "hide" or "upvote".
fn sounds_like_a_ui_verb(word: &str) -> bool {
    if word.len() < 3 || is_in(lexicon::ACTIVATE_VERBS, word) || is_in(lexicon::TOGGLE_VERBS, word)
    {
        return false;
    }
    let key = super::text::sound_key(word);
    UI_VERBS.iter().any(|v| {
        v.len() >= 3
            && (super::text::sound_key(v) == key || super::text::similarity(word, v) >= 0.8)
    })
}

/// Common interface verbs. A leading verb from this list must be supported
/// by the target's label: "downvote" on a page with no downvote button fits
/// nothing.
#[rustfmt::skip]
pub const UI_VERBS: &[&str] = &[
    "react",
    "refuse", "write", "compose", "upvote", "downvote", "vote", "hide", "unhide", "join",
    "leave", "buy", "purchase", "order", "play", "pause", "stop", "reply", "answer", "comment", "edit",
    "delete", "remove", "add", "like", "unlike", "share", "subscribe", "unsubscribe", "follow",
    "unfollow", "download", "upload", "save", "accept", "allow", "agree", "reject", "decline",
    "deny", "close", "dismiss", "cancel", "submit", "send", "post", "print", "log", "sign",
    "create", "register", "login", "logout", "signin", "signup", "bookmark", "star", "pin",
    "report", "flag", "mute", "unmute", "rate", "watch", "listen", "call", "book", "reserve",
    "pay", "checkout", "apply", "sort", "filter", "refresh", "reload", "install", "rename",
    "copy", "paste", "undo", "redo", "minimize", "maximize", "zoom", "confirm", "continue",
    "retry", "approve", "archive", "move", "attach", "forward", "mark", "restart", "update",
    "change", "put", "start", "reset", "clear", "empty", "make", "block", "unblock", "ban",
    "unban", "fork", "retweet", "repost", "publish", "invite", "kick", "unstar", "unpin", "snooze",
    "restore", "unarchive", "merge", "clone", "embed", "duplicate", "favorite",
    "favourite",
];

fn typing(reading: &Reading<'_>, w: &[&str]) -> Option<Typing> {
    let b = reading.begin;
    let n = reading.tokens.len();
    if let Some((span, before, after)) = quoted(reading) {
        let field: Vec<usize> = (after..n)
            .filter(|&i| !is_in(lexicon::STOPWORDS, &reading.tokens[i].norm))
            .chain(before.clone())
            .collect();
        let search = is_in(lexicon::SEARCH_VERBS, w[0]);
        if is_in(lexicon::TYPE_VERBS, w[0]) || search {
            return Some(Typing {
                text: Some(span),
                field,
                search,
                ..Typing::default()
            });
        }
    }
    let first = w[0];
    // "write a new email", "write a comment" compose something; only the
    // words after a marker or in quotes would be text.
    let composes = matches!(
        w.get(1),
        Some(&"a") | Some(&"an") | Some(&"some") | Some(&"another")
    ) && !(b..n).any(|i| marks_text(&reading.tokens, i));
    if let Some(typing) = as_a_value(reading) {
        return Some(typing);
    }
    // "put in my email, ana@…", "put down my name as …": putting a value in or down types it.
    let puts_in = first == "put" && matches!(w.get(1), Some(&"in") | Some(&"down"));
    if (is_in(lexicon::TYPE_VERBS, first) || puts_in) && !composes {
        let mut start = b + 1;
        if (first == "fill" && w.get(1) == Some(&"in")) || puts_in {
            start += 1;
        }
        if let Some(m) = (start..n).find(|&i| marks_text(&reading.tokens, i)) {
            if m + 1 < n {
                return Some(Typing {
                    text: reading.span(&(m + 1..n)),
                    field: (start..m).collect(),
                    ..Typing::default()
                });
            }
        }
        let last_in = (start + 1..n)
            .rev()
            .find(|&i| matches!(reading.tokens[i].norm.as_str(), "in" | "into"));
        return Some(match last_in {
            Some(p) if p + 1 < n => Typing {
                text: reading.span(&(start..p)),
                field: (p + 1..n).collect(),
                ..Typing::default()
            },
            _ => Typing {
                rest: Some(skip_determiners(reading, start)..n).filter(|r| !r.is_empty()),
                ..Typing::default()
            },
        });
    }
    // "put petr@example.cz in the newsletter box": a value put into a field. Not "put it in the
    // cart" or "put this paste on my website" (a thing, not a value).
    if first == "put"
        && w.get(1).is_some_and(|x| {
            !is_in(lexicon::STOPWORDS, x)
                && !matches!(
                    *x,
                    "it" | "this" | "that" | "them" | "these" | "those" | "my"
                )
        })
    {
        let last_in = (b + 2..n)
            .rev()
            .find(|&i| matches!(reading.tokens[i].norm.as_str(), "in" | "into"));
        if let Some(p) = last_in.filter(|p| p + 1 < n) {
            return Some(Typing {
                text: reading.span(&(b + 1..p)),
                field: (p + 1..n).collect(),
                ..Typing::default()
            });
        }
    }
    if matches!(first, "replace" | "change") {
        let with =
            (b + 2..n).find(|&i| matches!(reading.tokens[i].norm.as_str(), "with" | "to"))?;
        return Some(Typing {
            text: reading.span(&(with + 1..n)),
            replace: Some(b + 1..with),
            ..Typing::default()
        });
    }
    if first == "set" {
        let to = (b + 2..n).find(|&i| reading.tokens[i].norm == "to")?;
        return Some(Typing {
            text: reading.span(&(to + 1..n)),
            field: (b + 1..to).collect(),
            ..Typing::default()
        });
    }
    if is_in(lexicon::SEARCH_VERBS, first) {
        let mut start = b + 1;
        if first == "look" {
            if !matches!(w.get(1), Some(&"up") | Some(&"for")) {
                return None;
            }
            start += 1;
        }
        let scope_end = (start..n).find(|&i| {
            matches!(
                reading.tokens[i].norm.as_str(),
                "for" | "by" | "nach" | "pour" | "por"
            )
        });
        let (field, mut from) = match scope_end {
            Some(f) => ((start..f).collect(), f + 1),
            None => (Vec::new(), start),
        };
        // "find me a dentist", "find us a table": the one it is for is no part of the text,
        // nor an article before it.
        if scope_end.is_none()
            && from + 1 < n
            && matches!(reading.tokens[from].norm.as_str(), "me" | "us")
        {
            from = skip_determiners(reading, from + 1);
        }
        from = skip_topic(reading, from);
        let to = trim_tail(reading, from, n);
        if from >= to {
            return None;
        }
        return Some(Typing {
            text: reading.span(&(from..to)),
            field,
            search: true,
            ..Typing::default()
        });
    }
    // "the password is h7q2", "user name is darcy", "my frequent flyer number is 1923…": a
    // field's name of up to four words before "is".
    // An address after the last "is" is a value whatever the field's name takes to say ("my
    // email for the deals newsletter is anna@example.nl").
    let address_after = |i: usize| {
        let rest = reading.source[reading.tokens[i].end..].trim();
        rest.contains('@') && !rest.contains(char::is_whitespace)
    };
    let is = (b + 1..n.min(b + 5))
        .find(|&i| reading.tokens[i].norm == "is")
        .or_else(|| (b + 1..n).rfind(|&i| reading.tokens[i].norm == "is" && address_after(i)))?;
    if is + 1 >= n || is_in(UI_VERBS, first) || is_in(lexicon::ACTIVATE_VERBS, first) {
        return None;
    }
    Some(Typing {
        text: reading.span(&(is + 1..trim_tail(reading, is + 1, n))),
        field: (b..is).collect(),
        ..Typing::default()
    })
}

fn quoted(reading: &Reading<'_>) -> Option<(Range<usize>, Range<usize>, usize)> {
    let s = reading.source;
    for (open, close) in [('"', '"'), ('“', '”'), ('‘', '’'), ('\'', '\'')] {
        let Some(a) = s.find(open) else { continue };
        let inner = a + open.len_utf8();
        let Some(len) = s[inner..].find(close) else {
            continue;
        };
        let b = inner + len;
        if open == '\'' && a > 0 && !s[..a].ends_with(' ') {
            continue;
        }
        let text = s[inner..b].trim();
        if text.is_empty() || text.len() > MAX_TEXT {
            continue;
        }
        let start = inner + (s[inner..b].len() - s[inner..b].trim_start().len());
        let before = reading.begin
            ..reading
                .tokens
                .iter()
                .position(|t| t.start >= a)
                .unwrap_or(reading.tokens.len());
        let after = reading
            .tokens
            .iter()
            .position(|t| t.start > b)
            .unwrap_or(reading.tokens.len());
        let before = before.start + 1..before.end;
        return Some((start..start + text.len(), before, after));
    }
    None
}

fn skip_determiners(reading: &Reading<'_>, mut i: usize) -> usize {
    while i < reading.tokens.len()
        && matches!(reading.tokens[i].norm.as_str(), "the" | "a" | "an" | "my")
    {
        i += 1;
    }
    i
}

/// "posts about X", "something on X": the topic words are framing, not text.
fn skip_topic(reading: &Reading<'_>, from: usize) -> usize {
    let t = &reading.tokens;
    let framing = [
        "post",
        "story",
        "article",
        "thing",
        "result",
        "video",
        "item",
        "page",
        "information",
        "info",
        "stuff",
        "something",
        "anything",
        "thread",
        "discussion",
    ];
    if from + 1 < t.len()
        && framing.contains(&t[from].stem.as_str())
        && matches!(
            t[from + 1].norm.as_str(),
            "about" | "on" | "regarding" | "for" | "with"
        )
    {
        return from + 2;
    }
    from
}

/// Drops trailing "here", "on this page", "please", "for me".
fn trim_tail(reading: &Reading<'_>, from: usize, mut to: usize) -> usize {
    let t = &reading.tokens;
    loop {
        let last = |k: usize| to >= from + k && to >= k;
        let scope = |k: usize| last(k) && is_in(SCOPE_NOUNS, &t[to - 1].norm);
        if last(2) && t[to - 2].norm == "right" && t[to - 1].norm == "now" {
            to -= 2;
        } else if last(1)
            && matches!(
                t[to - 1].norm.as_str(),
                "here" | "please" | "now" | "instead" | "thanks" | "again"
            )
        {
            to -= 1;
        } else if last(2) && t[to - 2].norm == "for" && t[to - 1].norm == "me" {
            to -= 2;
        } else if scope(3)
            && is_in(SCOPE_PREPOSITIONS, &t[to - 3].norm)
            && is_in(SCOPE_DETERMINERS, &t[to - 2].norm)
        {
            // "on the encyclopedia", "in this forum": where to search, not what.
            to -= 3;
        } else if scope(2) && is_in(SCOPE_PREPOSITIONS, &t[to - 2].norm) {
            to -= 2;
        } else {
            return to;
        }
    }
}

/// Words that scope a request to the page, the site or a part of it ("in this forum", "on the
/// encyclopedia"): never part of the text to type.
const SCOPE_NOUNS: &[&str] = &[
    "page",
    "site",
    "website",
    "forum",
    "board",
    "encyclopedia",
    "wiki",
    "store",
    "shop",
    "section",
    "tab",
    "app",
    "channel",
    "inbox",
    "thread",
    "blog",
    "docs",
    "documentation",
    "catalog",
    "catalogue",
    "list",
    "box",
    "field",
    "bar",
    "searchbox",
    "screen",
    "window",
];
const SCOPE_PREPOSITIONS: &[&str] = &["on", "in", "at", "across", "within", "into"];
const SCOPE_DETERMINERS: &[&str] = &["the", "this", "that", "my", "our", "your"];

/// Splits a token list into content words, a kind noun and an ordinal.
fn phrase(tokens: &[Token], indices: &[usize]) -> Phrase {
    let mut p = Phrase {
        span: indices.to_vec(),
        ..Phrase::default()
    };
    let mut k = 0;
    while k < indices.len() {
        let i = indices[k];
        let t = &tokens[i];
        let next = indices.get(k + 1).map(|&j| &tokens[j]);
        let number_after = next.and_then(|n| text::number_word(&n.norm));
        if adverbial_ordinal(tokens, indices, k) {
            // "the file that was last touched", "last updated in May": when, not which one.
        } else if let Some(n) = text::ordinal_word(&t.norm) {
            p.ordinal = Some(Ordinal::Nth(n));
            p.ordinal_token = Some(i);
        } else if matches!(t.norm.as_str(), "last" | "final" | "bottom") {
            p.ordinal = Some(Ordinal::Last);
            p.ordinal_token = Some(i);
        } else if t.norm == "top" && next.is_some() {
            p.ordinal = Some(Ordinal::Nth(1));
        } else if matches!(t.norm.as_str(), "number" | "no" | "nr") && number_after.is_some() {
            p.ordinal = number_after.map(Ordinal::Number);
            k += 1;
        } else if let Some(kind) =
            kind_noun(t, next).filter(|kind| !modifies(tokens, indices, k, *kind))
        {
            let mut kind_at = i;
            if let Kind::Role(_) = kind {
                if next.is_some_and(|n| role_noun(&n.stem).is_some()) {
                    // "text field", "search box": the first word qualifies the second, the
                    // kind's own word.
                    if t.norm == "search" {
                        p.content.push(i);
                    }
                    k += 1;
                    kind_at = indices[k];
                }
            }
            if p.kind == Kind::Plain || p.kind == Kind::One {
                p.kind = kind;
                p.kind_token = Some(kind_at);
                p.plural = t.norm != t.stem && t.norm.ends_with('s');
            }
            if let Some(n) = number_after {
                if kind != Kind::One {
                    p.ordinal = Some(Ordinal::Number(n));
                    k += 1;
                }
            }
        } else if t.norm == "about"
            && (k == 0 || matches!(tokens[indices[k - 1]].norm.as_str(), "the" | "an" | "a"))
        {
            // "the about page": the About page's name.
            p.content.push(i);
        } else if t.stem == "option" && p.ordinal.is_some() {
            // "the second option": a position among choices, not a word of a label ("the
            // result options" is content: a label may say it).
        } else if !is_in(lexicon::STOPWORDS, &t.norm) && !is_in(lexicon::STOPWORDS, &t.stem) {
            p.content.push(i);
        }
        k += 1;
    }
    let content: Vec<Token> = p.content.iter().map(|&i| tokens[i].clone()).collect();
    p.concepts = lexicon::concept_ids(&content);
    p
}

/// An ordinal word used as an adverb of time, not a position: after a form of "be" ("that was
/// last touched"), or before a past participle that ends the phrase or is followed by a small word
/// ("last touched in September", "first published"). "The second shared folder" keeps its ordinal.
fn adverbial_ordinal(tokens: &[Token], indices: &[usize], k: usize) -> bool {
    let t = &tokens[indices[k]];
    if text::ordinal_word(&t.norm).is_none() && !matches!(t.norm.as_str(), "last" | "final") {
        return false;
    }
    let at = |d: isize| {
        let j = k as isize + d;
        (j >= 0)
            .then(|| indices.get(j as usize))
            .flatten()
            .map(|&i| tokens[i].norm.as_str())
    };
    if at(-1).is_some_and(|p| matches!(p, "was" | "is" | "were" | "are" | "been" | "be")) {
        return true;
    }
    let participle = at(1).is_some_and(|n| n.len() >= 5 && n.ends_with("ed"));
    participle && at(2).is_none_or(|n| is_in(lexicon::STOPWORDS, n))
}

/// A noun of a kind of thing that qualifies the noun after it ("the video abstract", "the email
/// address") is a word of the reference, not the kind of thing referred to: the thing is an
/// abstract, and a label must say "video" for it. Not before a role noun ("the story link"),
/// a number ("story 3"), a small word or another kind noun.
fn modifies(tokens: &[Token], indices: &[usize], k: usize, kind: Kind) -> bool {
    if !matches!(
        kind,
        Kind::Item | Kind::Section | Kind::Footnote | Kind::Author
    ) {
        return false;
    }
    let Some(next) = indices.get(k + 1).map(|&j| &tokens[j]) else {
        return false;
    };
    let after = indices.get(k + 2).map(|&j| &tokens[j]);
    !next.is_number()
        && text::number_word(&next.norm).is_none()
        && text::ordinal_word(&next.norm).is_none()
        && !is_in(lexicon::STOPWORDS, &next.norm)
        && !is_in(lexicon::PREPOSITIONS, &next.norm)
        && role_noun(&next.stem).is_none()
        && kind_noun(next, after).is_none()
}

fn role_noun(stem: &str) -> Option<RoleNoun> {
    lexicon::ROLE_NOUNS
        .iter()
        .find(|(w, _)| *w == stem)
        .map(|(_, r)| *r)
}

fn kind_noun(t: &Token, next: Option<&Token>) -> Option<Kind> {
    let s = t.stem.as_str();
    // "the one with the red cover", "the second one": a pronoun; "one beaten egg", "one
    // cup": the number, before the words it counts.
    let counts_a_thing = next.is_some_and(|n| {
        !is_in(lexicon::STOPWORDS, &n.norm)
            && !is_in(lexicon::PREPOSITIONS, &n.norm)
            && !matches!(
                n.norm.as_str(),
                "which" | "who" | "that" | "i" | "you" | "we"
            )
    });
    if (t.norm == "one" && !counts_a_thing) || t.norm == "ones" {
        return Some(Kind::One);
    }
    if matches!(
        t.norm.as_str(),
        "text" | "check" | "input" | "search" | "drop"
    ) {
        if let Some(r) = next.and_then(|n| role_noun(&n.stem)) {
            let role = match (t.norm.as_str(), r) {
                ("check", _) => RoleNoun::Toggle,
                (_, RoleNoun::Field) | (_, RoleNoun::Editable) => RoleNoun::Editable,
                (_, other) => other,
            };
            return Some(Kind::Role(role));
        }
        return None;
    }
    if is_in(lexicon::ITEM_NOUNS, s) {
        return Some(Kind::Item);
    }
    if is_in(lexicon::SECTION_NOUNS, s) || is_in(lexicon::SECTION_NOUNS, &t.norm) {
        return Some(Kind::Section);
    }
    if is_in(lexicon::FOOTNOTE_NOUNS, s) {
        return Some(Kind::Footnote);
    }
    if is_in(lexicon::AUTHOR_NOUNS, s) {
        return Some(Kind::Author);
    }
    role_noun(s).map(Kind::Role)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_said_one_by_one_are_one_number() {
        let table = [
            ("read issue one oh three", "read issue 103"),
            ("room four one two", "room 412"),
            ("call zero seven", "call 07"),
            // Two digits without a zero, and an "oh" outside digits, stay words.
            ("the one two punch", "the one two punch"),
            ("oh open three", "oh open three"),
            ("show draft oh one", "show draft 01"),
            ("open the t x t", "open the txt"),
            ("download the p d f", "download the pdf"),
            ("take a picture", "take a picture"),
            ("i want a b", "i want a b"),
            ("version two oh", "version two oh"),
        ];
        for (said, want) in table {
            let got: Vec<String> = read(said).tokens.iter().map(|t| t.norm.clone()).collect();
            assert_eq!(got.join(" "), want, "{said}");
        }
    }

    #[test]
    fn a_place_marker_with_anchor_words_is_a_relation() {
        let table: &[(&str, Option<(Side, &str)>)] = &[
            (
                "click the link next to print",
                Some((Side::Beside, "print")),
            ),
            (
                "the word right after maudlin",
                Some((Side::After, "maudlin")),
            ),
            (
                "the button to the left of Save",
                Some((Side::Before, "save")),
            ),
            (
                "the tab following settings",
                Some((Side::After, "settings")),
            ),
            (
                "the file right below gitignore",
                Some((Side::Below, "gitignore")),
            ),
            ("the link above Help", Some((Side::Above, "help"))),
            (
                "the link right under Downloads",
                Some((Side::Below, "downloads")),
            ),
            // "Under" alone is a qualifier: the comments under a story are its comments.
            ("the comments under the second story", None),
            // No anchor words: a time, a pronoun.
            ("the word from the day before", None),
            ("open the following link", None),
            ("show the words coined after them", None),
            // Inside the qualifier the marker is the qualifier's words.
            (
                "reply to the tweet that starts now before you write me off",
                None,
            ),
        ];
        for (said, want) in table {
            let r = read(said);
            let got = r.relation.as_ref().map(|rel| {
                let words: Vec<&str> = rel
                    .anchor
                    .content
                    .iter()
                    .map(|&i| r.tokens[i].norm.as_str())
                    .collect();
                (rel.side, words.join(" "))
            });
            assert_eq!(
                got,
                want.map(|(side, words)| (side, words.to_string())),
                "{said}"
            );
        }
    }

    #[test]
    fn a_way_back_names_the_page() {
        let table = [
            ("go back to the search results", true),
            ("take me back to the list of bugs", true),
            ("return to the results", true),
            ("back to the RPG section", true),
            ("go back", false),
            ("go to the search results", false),
            ("return this item", false),
            ("go back to", false),
        ];
        for (said, want) in table {
            assert_eq!(read(said).returns, want, "{said}");
        }
    }

    #[test]
    fn global_cues_need_no_target() {
        let table = [
            ("what is this page about?", Cue::Question),
            ("is this article worth reading?", Cue::Question),
            ("summarize the answers people gave", Cue::Question),
            ("scroll down", Cue::Scroll(Direction::Down)),
            ("page down", Cue::Scroll(Direction::Down)),
            ("scroll back up", Cue::Scroll(Direction::Up)),
            ("go up a bit", Cue::Scroll(Direction::Up)),
            ("read on", Cue::Scroll(Direction::Down)),
            ("keep reading", Cue::Scroll(Direction::Down)),
            // A part of the page said, and nothing to find there.
            ("show me what's further down", Cue::Scroll(Direction::Down)),
            ("what's below", Cue::Scroll(Direction::Down)),
            ("show me the rest of the page", Cue::Scroll(Direction::Down)),
            ("show me the rest of the list", Cue::Scroll(Direction::Down)),
            ("the rest of the results", Cue::Scroll(Direction::Down)),
            ("what's further up", Cue::Scroll(Direction::Up)),
            ("what's below the comments", Cue::Act),
            ("show me the rest of the comments", Cue::Act),
            ("go back to the previous page", Cue::Back),
            ("back", Cue::Back),
            ("take me back to the previous page", Cue::Back),
            ("bring me back please", Cue::Back),
            ("return to the previous page", Cue::Back),
            ("take me to the previous article", Cue::Act),
            ("back to the RPG section", Cue::Act),
            ("open the first story and then upvote it", Cue::MultiStep),
            // "reading" after a determiner names a kind of thing, not a message's text.
            ("buy these reading lenses", Cue::Act),
            ("add it to my reading list", Cue::Act),
            ("reply to anna saying I'll be late", Cue::MultiStep),
            // "answer" replies to a message, and reasons about a question.
            ("answer the last comment", Cue::Act),
            ("answer this question", Cue::Question),
            // "where's X" names a thing to find; the decider tells a reference from a question.
            ("where's the privacy policy", Cue::Act),
            ("where", Cue::Question),
        ];
        // "one" before the words it counts is the number, not the pronoun.
        assert_eq!(read("one beaten egg").head.kind, Kind::Plain);
        assert_eq!(read("the one with the red cover").head.kind, Kind::One);
        assert_eq!(read("the second one").head.kind, Kind::One);
        // "click in the search box": the words after the preposition are the reference, and
        // the kind's word is the role noun, not "search".
        let r = read("click in the search box");
        assert_eq!(r.head.kind, Kind::Role(RoleNoun::Editable));
        assert_eq!(r.tokens[r.head.kind_token.unwrap()].norm, "box");
        assert!(r.qualifier.span.is_empty());
        assert_eq!(read("browse by genre").head.content.len(), 1);
        // "about" first or after an article names the About page.
        for said in ["open the about page", "about bioRxiv"] {
            let r = read(said);
            assert!(
                r.head.content.iter().any(|&i| r.tokens[i].norm == "about"),
                "{said}"
            );
        }
        assert!(!read("the paper about cryptogams")
            .head
            .content
            .iter()
            .any(|&i| read("the paper about cryptogams").tokens[i].norm == "about"));
        // "with" names what to do it with: no reference of its own.
        assert!(read("sign in with facebook").head.content.is_empty());
        // A kind noun before another noun qualifies it: a word a label must say.
        let video = read("play the video abstract");
        assert_eq!(video.head.kind, Kind::Plain);
        assert_eq!(video.head.content.len(), 2);
        assert_eq!(read("the story link").head.kind, Kind::Item);
        assert_eq!(read("story 3").head.kind, Kind::Item);
        assert_eq!(read("the third story").head.kind, Kind::Item);
        // A thing put somewhere is no value typed.
        assert!(read("put it in the cart").typing.is_none());
        assert!(read("put this paste on my website").typing.is_none());
        // Nouns and small words that sound like a verb are none.
        for said in ["all the speedway news", "rider number 13"] {
            assert!(!read(said).guessed_verb, "{said}");
            assert!(!matches!(read(said).verb, Verb::Specific { .. }), "{said}");
        }
        assert!(read("hyde the story").guessed_verb);
        for (text, cue) in table {
            assert_eq!(read(text).cue, cue, "{text}");
        }
    }

    /// "forty seven" is 47 and a spoken "point" between numbers is the dot a label writes; a
    /// text to type keeps the words as said.
    #[test]
    fn numbers_said_in_words_are_written_as_labels_write_them() {
        let stems =
            |s: &str| -> Vec<String> { read(s).tokens.iter().map(|t| t.stem.clone()).collect() };
        assert_eq!(
            stems("patch notes four point forty seven point four"),
            ["patch", "note", "4", "47", "4"]
        );
        assert_eq!(stems("twenty one pilots"), ["21", "pilot"]);
        assert_eq!(stems("one point seven five"), ["one", "75"]);
        assert_eq!(stems("under five thousand"), ["under", "5000"]);
        assert_eq!(stems("a hundred"), ["100"]);
        assert_eq!(stems("two hundred and fifty"), ["250"]);
        assert_eq!(stems("one thousand five hundred"), ["1500"]);
        assert_eq!(stems("5 thousand"), ["5000"]);
        assert_eq!(
            stems("between ten and fifteen thousand"),
            ["between", "10000", "and", "15000"]
        );
        assert_eq!(
            stems("from five to ten thousand"),
            ["from", "5000", "to", "10000"]
        );
        // Only a smaller first number of a range takes the multiplier.
        assert_eq!(stems("twenty and two thousand"), ["20", "and", "2000"]);
        assert_eq!(stems("the thousand islands"), ["the", "thousand", "island"]);
        assert_eq!(stems("two three"), ["2", "3"]);
        assert_eq!(stems("the point of it"), ["the", "point", "of", "it"]);
        let r = read("type forty seven point five into the price field");
        let typed = r
            .typing
            .as_ref()
            .and_then(|t| t.text.clone())
            .expect("text");
        assert_eq!(r.slice(&typed), "forty seven point five");
    }

    #[test]
    fn typed_text_is_a_slice_of_the_words_said() {
        let table = [
            ("search for rust databases", "rust databases"),
            ("search hacker news for sqlite", "sqlite"),
            ("find posts about WebAssembly", "WebAssembly"),
            ("look up asyncio here", "asyncio"),
            ("type pyproject.toml in the search box", "pyproject.toml"),
            ("the password is h7q2", "h7q2"),
            // A field named in four words: "my frequent flyer number is …".
            ("my frequent flyer number is 1923456789", "1923456789"),
            // An address is a value however long the field's name.
            (
                "my email for the deals newsletter is anna.dekker@example.nl",
                "anna.dekker@example.nl",
            ),
            ("replace oD with done", "done"),
            ("type \"lo-fi beats\" into search", "lo-fi beats"),
            (
                "put petr.svoboda@email.cz in the newsletter box",
                "petr.svoboda@email.cz",
            ),
            // Words that scope the request to the page or site are not content.
            ("search for red pandas on the encyclopedia", "red pandas"),
            ("search for flohkot in this forum please", "flohkot"),
            (
                "search the docs for wildcard certificates instead",
                "wildcard certificates",
            ),
            ("search for sqlite right now", "sqlite"),
            ("suche nach Zecken", "Zecken"),
            ("cherche pour vélos", "vélos"),
            // A place or time is content ("on monday" is not a scope).
            ("search for flights on monday", "flights on monday"),
            // The one it is for is not what is searched.
            ("find me a dentist", "dentist"),
            ("find us the cheapest flights", "cheapest flights"),
            // A leading scope names the field, with or without a comma or colon.
            (
                "in the review write: lovely Greek food and very friendly staff",
                "lovely Greek food and very friendly staff",
            ),
            ("in the name field enter Ana Novak", "Ana Novak"),
            (
                "in the review write the staff was friendly",
                "the staff was friendly",
            ),
            ("on the search page, type tide tables", "tide tables"),
            // A field of one's own and its value, joined by "as".
            ("put my name in as Ana Novak", "Ana Novak"),
            ("enter my company as Acme Tools", "Acme Tools"),
            (
                "use ana.novak@gmail.com as my email address",
                "ana.novak@gmail.com",
            ),
        ];
        for (source, want) in table {
            let r = read(source);
            let span = r
                .typing
                .as_ref()
                .and_then(|t| t.text.clone())
                .expect(source);
            assert_eq!(r.slice(&span), want, "{source}");
        }
        let r = read("enter the username karl");
        let rest = r.typing.and_then(|t| t.rest).expect("rest");
        assert_eq!(r.tokens[rest.start].norm, "username");
        // "as" in a control's name is no value: nothing to type.
        for source in ["save as draft", "mark it as read", "use this as a template"] {
            assert!(read(source).typing.is_none(), "{source}");
        }
        let field = |source: &str| -> Vec<String> {
            let r = read(source);
            let typing = r.typing.as_ref().expect(source);
            typing
                .field
                .iter()
                .map(|&i| r.tokens[i].norm.clone())
                .collect()
        };
        assert_eq!(field("put my name in as Ana Novak"), ["my", "name"]);
        assert_eq!(field("in the review write: lovely food"), ["the", "review"]);
    }

    #[test]
    fn an_ordinal_of_time_is_not_a_position() {
        let table = [
            ("open the file that was last touched in September", None),
            ("the commit last updated in May", None),
            ("the one that was first published", None),
            ("open the last file", Some(Ordinal::Last)),
            ("open the second shared folder", Some(Ordinal::Nth(2))),
            ("the last edited file", Some(Ordinal::Last)),
            ("open the first one", Some(Ordinal::Nth(1))),
        ];
        for (text, want) in table {
            let r = read(text);
            let got = r.head.ordinal.or(r.qualifier.ordinal);
            assert_eq!(got, want, "{text}");
        }
    }

    /// "more from X": X is what to see more of; "more about X" keeps "more" as the head (a
    /// "More" control about X), and "more of these" stays about what is shown.
    #[test]
    fn more_from_a_source_names_the_source() {
        let words = |r: &Reading<'_>, p: &Phrase| -> Vec<String> {
            p.content
                .iter()
                .map(|&i| r.tokens[i].norm.clone())
                .collect()
        };
        let r = read("more from The Office");
        assert_eq!(words(&r, &r.head), ["office"]);
        assert!(r.qualifier.content.is_empty());
        let r = read("more by Prince");
        assert_eq!(words(&r, &r.head), ["prince"]);
        let r = read("more about the top interest rates");
        assert_eq!(words(&r, &r.head), ["more"]);
        let r = read("load more of these");
        assert!(!words(&r, &r.head).contains(&"these".to_string()));
        // The author is a source; what there is more of, the author's page lists.
        for said in ["more posts by this author", "more articles by the author"] {
            let r = read(said);
            assert_eq!(r.head.kind, Kind::Author, "{said}");
            assert!(r.head.content.is_empty(), "{said}");
        }
        // A source that is no author: what there is more of is named.
        let r = read("show me more news from the park");
        assert!(words(&r, &r.head).contains(&"news".to_string()));
    }

    /// "stuff that has subtitles": the relative clause's having or being says nothing; the
    /// placeholder noun says nothing either.
    #[test]
    fn a_relative_clause_keeps_what_it_says() {
        let words = |p: &Phrase, r: &Reading<'_>| -> Vec<String> {
            p.content
                .iter()
                .map(|&i| r.tokens[i].norm.clone())
                .collect()
        };
        let table: &[(&str, &[&str], &[&str])] = &[
            ("show stuff that has subtitles", &[], &["subtitles"]),
            ("the ones which are free", &[], &["free"]),
            ("the shirts that contain cotton", &["shirts"], &["cotton"]),
            // A relative clause with its own verb keeps it.
            ("the shirt that shows a cat", &["shirt"], &["shows", "cat"]),
        ];
        for (text, head, qual) in table {
            let r = read(text);
            assert_eq!(words(&r.head, &r), *head, "{text}");
            assert_eq!(words(&r.qualifier, &r), *qual, "{text}");
        }
    }

    #[test]
    fn a_remark_after_a_commands_comma_is_not_the_reference() {
        let words = |said: &str| -> Vec<String> {
            let r = read(said);
            r.head
                .content
                .iter()
                .chain(&r.qualifier.content)
                .map(|&i| r.tokens[i].norm.clone())
                .collect()
        };
        let table: [(&str, &[&str]); 5] = [
            ("tick off the egg, I've got it", &["egg"]),
            ("open the comments, thanks", &["comments"]),
            ("open the recipe, we liked it", &["recipe"]),
            // Without a verb first the whole is one answer; a comma before other words stays.
            ("no, I don't want your cookies", &["cookies"]),
            ("open the recipe, the long one", &["recipe", "long"]),
        ];
        for (said, want) in table {
            let got = words(said);
            for w in want {
                assert!(got.iter().any(|g| g == w), "{said}: {got:?} lacks {w}");
            }
            if said.starts_with("tick") || said.ends_with("thanks") || said.ends_with("it") {
                let remark = ["got", "thanks", "liked"];
                assert!(
                    !got.iter().any(|g| remark.contains(&g.as_str())),
                    "{said}: {got:?}"
                );
            }
        }
    }

    #[test]
    fn references_split_into_head_qualifier_kind_and_ordinal() {
        let r = read("open the comments on the second story");
        assert_eq!(r.verb, Verb::Activate);
        assert_eq!(r.head.content.len(), 1);
        assert_eq!(r.qualifier.kind, Kind::Item);
        assert_eq!(r.qualifier.ordinal, Some(Ordinal::Nth(2)));

        let r = read("upvote number ten");
        assert!(matches!(r.verb, Verb::Specific { .. }));
        assert_eq!(r.head.ordinal, Some(Ordinal::Number(10)));

        let r = read("type hello in the first text field");
        assert_eq!(r.head.kind, Kind::Role(RoleNoun::Editable));
        assert_eq!(r.head.ordinal, Some(Ordinal::Nth(1)));

        let r = read("show other stories from krebsonsecurity");
        assert_eq!(r.head.kind, Kind::Item);
        assert!(r.head.plural);

        // A leading scope qualifies the command after the comma.
        let r = read("for the user @sam, click Share");
        assert_eq!(r.verb, Verb::Activate);
        let words = |p: &Phrase| -> Vec<String> {
            p.content
                .iter()
                .map(|&i| r.tokens[i].norm.clone())
                .collect()
        };
        assert_eq!(words(&r.head), ["share"]);
        assert!(words(&r.qualifier).contains(&"sam".to_string()));

        for said in [
            "okay, allow everything",
            "fine, accept the cookies",
            "sure, accept them",
        ] {
            let r = read(said);
            assert!(
                matches!(
                    r.verb,
                    Verb::Specific {
                        concept: Some(_),
                        ..
                    }
                ),
                "{said}: {:?}",
                r.verb
            );
        }
    }

    #[test]
    fn a_possessive_s_is_no_content_word() {
        for text in ["open the author's profile", "show me what's in the news"] {
            let r = read(text);
            let words: Vec<&str> = r
                .head
                .content
                .iter()
                .chain(&r.qualifier.content)
                .map(|&i| r.tokens[i].norm.as_str())
                .collect();
            assert!(!words.contains(&"s"), "{text}: {words:?}");
        }
    }
}

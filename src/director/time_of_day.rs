//! Times of day said as people say them, read as the screen writes them.
//!
//! A showtime, a departure or an appointment slot is a control labelled by a clock time
//! ("19:00", "7:30 PM"); a person says "the seven o'clock showing", "at quarter to ten", "half
//! past three". [`as_written`] finds such a spoken time in a request and, when exactly one time
//! of day written on screen is what it says, puts the screen's writing in its place, so the
//! words meet the label as any other words do. Said without "am" or "pm", a time may be either
//! half of the day; a screen that shows both is left to ask.
//!
//! Pure: text in, text out.

use std::ops::Range;

use super::text::{self, number_word, Token};

/// Minutes since midnight.
type Minutes = u16;

/// The request with its spoken time of day written as the screen writes it (`labels`), when
/// exactly one time on screen is the one said; `None` when nothing changes.
pub fn as_written<'a>(request: &str, labels: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let said = said_times(request);
    if said.is_empty() {
        return None;
    }
    let written: Vec<(Minutes, &str)> = labels
        .into_iter()
        .filter_map(|l| Some((written_time(l)?, l.trim())))
        .collect();
    let mut out = request.to_string();
    let mut changed = false;
    // From the end, so the earlier spans stay where they were.
    for (span, candidates) in said.into_iter().rev() {
        let mut shown: Vec<(Minutes, &str)> = written
            .iter()
            .filter(|(m, _)| candidates.contains(m))
            .copied()
            .collect();
        shown.sort_unstable();
        shown.dedup_by_key(|(m, _)| *m);
        if let [(_, label)] = shown.as_slice() {
            out.replace_range(span, label);
            changed = true;
        }
    }
    changed.then_some(out)
}

/// The time of day a label is, when it is one and nothing else ("19:00", "7:30 PM", "19.00 Uhr",
/// "7pm"; not a price, "€12.50").
pub fn written_time(label: &str) -> Option<Minutes> {
    let label = label.trim().to_lowercase();
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let h_len = digits(&label);
    if !(1..=2).contains(&h_len) {
        return None;
    }
    let h: u16 = label[..h_len].parse().ok()?;
    let rest = &label[h_len..];
    let (m, rest) = match rest.strip_prefix([':', '.']) {
        Some(after) if digits(after) == 2 => (after[..2].parse().ok()?, &after[2..]),
        Some(_) => return None,
        None => (0, rest),
    };
    let clock = rest.len() < label.len() - h_len;
    match rest.trim() {
        "" | "uhr" | "h" if clock => at(h, m, None),
        "am" | "a.m." => at(h, m, Some(false)),
        "pm" | "p.m." => at(h, m, Some(true)),
        _ => None,
    }
}

/// The spoken times of day in `request`: each one's byte span and the times it may be.
fn said_times(request: &str) -> Vec<(Range<usize>, Vec<Minutes>)> {
    let tokens = text::tokens(request);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match time_at(&tokens, i) {
            Some((len, candidates)) if !candidates.is_empty() => {
                out.push((tokens[i].start..tokens[i + len - 1].end, candidates));
                i += len;
            }
            _ => i += 1,
        }
    }
    out
}

/// A spoken time starting at token `i`: how many tokens it takes and the times it may be.
fn time_at(tokens: &[Token], i: usize) -> Option<(usize, Vec<Minutes>)> {
    let word = |k: usize| tokens.get(k).map_or("", |t| t.norm.as_str());
    let hour = |k: usize| number_word(word(k)).filter(|h| (1..=12).contains(h));
    // "7 pm", "7:30 pm", "seven thirty pm" resolve the half of the day; so do "in the morning",
    // "tonight" and the like after the time.
    // "tonight", "in the evening", "this morning" anywhere in the request say the half of the day.
    let said_half = tokens.iter().find_map(|t| match t.norm.as_str() {
        "morning" => Some(false),
        "tonight" | "evening" | "afternoon" => Some(true),
        _ => None,
    });
    let half_after = |k: usize| -> (usize, Option<bool>) {
        match (word(k), word(k + 1)) {
            ("am", _) => (1, Some(false)),
            ("pm", _) => (1, Some(true)),
            ("a", "m") => (2, Some(false)),
            ("p", "m") => (2, Some(true)),
            _ => (0, said_half),
        }
    };
    let with_half = |len: usize, h: u32, m: u32| -> Option<(usize, Vec<Minutes>)> {
        let (extra, half) = half_after(i + len);
        Some((len + extra, either(h as u16, m as u16, half)))
    };
    match word(i) {
        "noon" | "midday" => return Some((1, vec![12 * 60])),
        "midnight" => return Some((1, vec![0])),
        "half" | "quarter" if matches!(word(i + 1), "past" | "to") => {
            let h = hour(i + 2)?;
            let m = if word(i) == "half" { 30 } else { 15 };
            return if word(i + 1) == "past" {
                with_half(3, h, m)
            } else if word(i) == "quarter" {
                with_half(3, if h == 1 { 12 } else { h - 1 }, 45)
            } else {
                None
            };
        }
        _ => {}
    }
    // "7pm", "10am": one word.
    if let Some((h, half)) = split_half(word(i)) {
        return Some((1, at(h, 0, Some(half)).into_iter().collect()));
    }
    // "ten to one", "twenty past seven", "twenty five minutes to nine".
    if let Some((len, m)) = minutes_at(tokens, i).filter(|(_, m)| (1..=30).contains(m)) {
        let minutes_word = usize::from(word(i + len) == "minutes");
        let by = word(i + len + minutes_word);
        if matches!(by, "past" | "to") {
            let of = hour(i + len + minutes_word + 1)?;
            let len = len + minutes_word + 2;
            return if by == "past" {
                with_half(len, of, m)
            } else {
                with_half(len, if of == 1 { 12 } else { of - 1 }, 60 - m)
            };
        }
    }
    let h = hour(i)?;
    // "seven o'clock", "seven oclock".
    if word(i + 1) == "oclock" {
        return with_half(2, h, 0);
    }
    if word(i + 1) == "o" && word(i + 2) == "clock" {
        return with_half(3, h, 0);
    }
    // "7:30", "seven thirty", "nine forty five" after "at", or with "am"/"pm" after them.
    let after_at = i > 0 && word(i - 1) == "at";
    let (len, m) = minutes_at(tokens, i + 1).map_or((1, 0), |(len, m)| (1 + len, m));
    let (said_with, _) = half_after(i + len);
    if after_at || said_with > 0 {
        return with_half(len, h, m);
    }
    None
}

/// Minutes said after an hour: "30" (of "7:30"), "thirty", "forty five", "oh five".
fn minutes_at(tokens: &[Token], k: usize) -> Option<(usize, u32)> {
    let word = |k: usize| tokens.get(k).map_or("", |t| t.norm.as_str());
    let first = word(k);
    if first.len() == 2 && is_digits(first) {
        return first.parse().ok().filter(|m| *m < 60).map(|m| (1, m));
    }
    if first == "oh" {
        return number_word(word(k + 1))
            .filter(|m| (1..10).contains(m))
            .map(|m| (2, m));
    }
    let tens = number_word(first).filter(|m| (1..60).contains(m))?;
    match number_word(word(k + 1)) {
        Some(unit) if tens % 10 == 0 && tens >= 20 && (1..10).contains(&unit) => {
            Some((2, tens + unit))
        }
        _ => Some((1, tens)),
    }
}

/// The times an hour and minute said may be: both halves of the day unless said.
fn either(h: u16, m: u16, half: Option<bool>) -> Vec<Minutes> {
    match half {
        Some(_) => at(h, m, half).into_iter().collect(),
        None => [at(h, m, Some(false)), at(h, m, Some(true))]
            .into_iter()
            .flatten()
            .collect(),
    }
}

/// The minute of the day of a clock's hour and minute; `half` is Some(true) for "pm" (then the
/// hour is 1 to 12).
fn at(h: u16, m: u16, half: Option<bool>) -> Option<Minutes> {
    if m >= 60 {
        return None;
    }
    let h = match half {
        None => h,
        Some(_) if !(1..=12).contains(&h) => return None,
        Some(false) => h % 12,
        Some(true) => h % 12 + 12,
    };
    (h < 24).then_some(h * 60 + m)
}

/// "7pm" → (7, true), "10am" → (10, false).
fn split_half(word: &str) -> Option<(u16, bool)> {
    let (digits, half) = match (word.strip_suffix("am"), word.strip_suffix("pm")) {
        (Some(d), _) => (d, false),
        (_, Some(d)) => (d, true),
        _ => return None,
    };
    is_digits(digits)
        .then(|| digits.parse().ok())?
        .map(|h| (h, half))
}

fn is_digits(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHOWTIMES: [&str; 7] = [
        "Trailer", "12:50", "15:30", "13:40", "16:20", "19:00", "21:45",
    ];

    /// A time said as people say it becomes the screen's writing of that time; a request
    /// without one, or with one the screen does not show, is left as it was.
    #[test]
    fn a_spoken_time_is_written_as_the_screen_writes_it() {
        let table = [
            (
                "book the seven o'clock showing of Chappie",
                Some("book the 19:00 showing of Chappie"),
            ),
            (
                "I want to see Chappie at quarter to ten tonight",
                Some("I want to see Chappie at 21:45 tonight"),
            ),
            (
                "tickets for Big Hero 6 at half past three",
                Some("tickets for Big Hero 6 at 15:30"),
            ),
            (
                "book the ten to one showing",
                Some("book the 12:50 showing"),
            ),
            ("the 4:20 pm one", Some("the 16:20 one")),
            ("at twenty past four", Some("at 16:20")),
            ("the one at one forty", Some("the one at 13:40")),
            ("the 7pm showing", Some("the 19:00 showing")),
            // Not on screen, or not a time.
            ("the eight o'clock showing", None),
            ("seven in the morning", None),
            ("watch the trailer", None),
            ("get me seven tickets", None),
            ("seven tickets for the evening", None),
            ("Big Hero 6 trailer", None),
            ("本文を印刷して", None),
            ("book two seats at 19:00", None),
        ];
        for (said, want) in table {
            assert_eq!(as_written(said, SHOWTIMES).as_deref(), want, "{said}");
        }
    }

    /// Both halves of the day on screen: which is meant is not in the words, so nothing is
    /// rewritten (and the request asks); "pm" settles it.
    #[test]
    fn a_time_two_halves_of_the_day_show_is_left_alone() {
        let labels = ["7:00 AM", "7:00 PM", "9:30 PM"];
        assert_eq!(as_written("the seven o'clock bus", labels), None);
        assert_eq!(
            as_written("the seven o'clock bus in the evening", labels).as_deref(),
            Some("the 7:00 PM bus in the evening")
        );
        assert_eq!(
            as_written("half past nine", labels).as_deref(),
            Some("9:30 PM")
        );
    }

    /// Through the Director: the showtime said is the showtime clicked, on the film said.
    #[test]
    fn a_spoken_showtime_is_clicked() {
        use crate::director::observation::{element as el, Element, Observation};
        use crate::director::{decide_locally, Action, Decision, Envelope, Snapshot};
        let film = |name: &str| format!("{name} Trailer 13:40 16:20 19:00 21:45");
        let elements = ["13:40", "16:20", "19:00", "21:45"]
            .iter()
            .enumerate()
            .map(|(k, t)| (format!("c{k}"), t, "Chappie"))
            .chain([("b0".to_string(), &"12:50", "Big Hero 6")])
            .map(|(id, t, name)| Element {
                description: Some(format!("book {name} on 14/03/2015 {t}")),
                ..el(&id, "link", t, &film(name))
            })
            .collect();
        let snapshot = Snapshot {
            observation: Some(Observation {
                elements,
                ..Observation::default()
            }),
            ..Snapshot::default()
        };
        let clicked = |said: &str| match decide_locally(&Envelope::voice("t", said), &snapshot) {
            Decision::Execute(p) => match p.action {
                Action::Click { target } => Some(target),
                _ => None,
            },
            _ => None,
        };
        assert_eq!(
            clicked("book the seven o'clock showing of Chappie").as_deref(),
            Some("c2")
        );
        assert_eq!(
            clicked("book the ten to one showing").as_deref(),
            Some("b0")
        );
        assert_eq!(clicked("book the eight o'clock showing"), None);
    }

    #[test]
    fn written_times() {
        let table = [
            ("19:00", Some(19 * 60)),
            ("7:30 PM", Some(19 * 60 + 30)),
            ("7:30 p.m.", Some(19 * 60 + 30)),
            ("12:15 AM", Some(15)),
            ("19.00 Uhr", Some(19 * 60)),
            ("7pm", Some(19 * 60)),
            ("12.50", Some(12 * 60 + 50)),
            ("25:00", None),
            ("3.5", None),
            ("Big Hero 6", None),
            ("19:00 Chappie", None),
            ("2:1", None),
            ("€12.50", None),
        ];
        for (label, want) in table {
            assert_eq!(written_time(label), want, "{label}");
        }
    }
}

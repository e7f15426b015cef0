//! The local decider: offline, deterministic, pure. The default, and the
//! fallback for every remote decider.
//!
//! It reads each hypothesis with the Director's grammar and scores every
//! offered element by how much of the reference its label, description and
//! list item explain (fuzzy and pronunciation-aware word matching, meaning
//! through the concept tables), under hard constraints from the verb, the
//! kind noun and the ordinal. Scores become probabilities with a softmax that
//! includes a "nothing fits" option, so a lone weak match stays unlikely.

use crate::director::lexicon;
use crate::director::lexicon::RoleNoun;
use crate::director::observation::{self, RoleClass, Structure};
use crate::director::text::{self, Token};
use crate::director::utterance::{self, Cue, Kind, Ordinal, Reading, Verb};

use super::decider::{ActionKind, Answer, Ask, DecideError, Decider, Meaning, QuestionKey, Screen};
use super::semantic;

/// Sharpness of the score-to-probability softmax (fitted on the dev corpus,
/// see docs/GROUNDING.md).
pub const SHARPNESS: f32 = 14.0;
/// Score of the "nothing fits" option.
pub const NOTHING_SCORE: f32 = 0.45;

#[derive(Debug, Clone, Copy, Default)]
pub struct LocalDecider;

impl Decider for LocalDecider {
    fn name(&self) -> &'static str {
        "local"
    }

    fn decide(&self, ask: &Ask<'_>) -> Result<Vec<Answer>, DecideError> {
        let readings: Vec<(Reading<'_>, f32)> = ask
            .heard
            .iter()
            .map(|h| (utterance::read(&h.text), h.weight))
            .collect();
        let Some((first, _)) = readings.first() else {
            return Err(DecideError::Invalid("nothing was heard".into()));
        };
        // A request the words send to the planner that meaning says is about one link is read
        // as a click: meaning alone asks about that link, the words act only through the
        // gates any click's words pass.
        let planner_link = ask.screen.and_then(|screen| {
            let sim = screen.observation.similarity.as_ref()?;
            (action_of(first, Some(screen)) == ActionKind::Reason)
                .then(|| semantic::planner_link(sim, screen.observation))
                .flatten()
        });
        let action = |screen: Option<Screen<'_>>| match planner_link {
            Some(_) => ActionKind::Click,
            None => action_of(first, screen),
        };
        let mut answers = Vec::new();
        for question in &ask.questions {
            let probabilities = match question.key {
                QuestionKey::Action => {
                    let kind = action(ask.screen);
                    question
                        .choices
                        .iter()
                        .map(|c| match c.meaning {
                            Meaning::Action(k) if k == kind => 0.9,
                            Meaning::Action(_) => {
                                0.1 / (question.choices.len() as f32 - 1.0).max(1.0)
                            }
                            _ => 0.0,
                        })
                        .collect()
                }
                QuestionKey::Direction => {
                    let want = match first.cue {
                        Cue::Scroll(d) => Some(d),
                        _ => None,
                    };
                    question
                        .choices
                        .iter()
                        .map(|c| match (c.meaning, want) {
                            (Meaning::Direction(d), Some(w)) if d == w => 0.95,
                            (Meaning::Direction(_), Some(_)) => 0.05,
                            _ => 1.0 / question.choices.len() as f32,
                        })
                        .collect()
                }
                QuestionKey::Target => {
                    let Some(screen) = ask.screen else {
                        return Err(DecideError::Invalid(
                            "a target question needs a screen".into(),
                        ));
                    };
                    let action = action(Some(screen));
                    let mut best = vec![0.0f32; screen.observation.elements.len()];
                    for (reading, weight) in &readings {
                        let as_reference;
                        let reading = if action == ActionKind::Click && reading.cue == Cue::Type {
                            as_reference = utterance::read_as_reference(reading.source);
                            &as_reference
                        } else if action == ActionKind::Click && reading.cue == Cue::Question {
                            match question_topic(reading, screen) {
                                Some(topic) => {
                                    as_reference = topic;
                                    &as_reference
                                }
                                None => reading,
                            }
                        } else {
                            reading
                        };
                        let scores = score_elements(reading, screen, action);
                        for (b, s) in best.iter_mut().zip(scores) {
                            *b = b.max(s * weight);
                        }
                    }
                    // Meaning beyond shared words, when a caller measured it.
                    if let Some(similarity) = screen.observation.similarity.as_ref() {
                        let fits =
                            semantic::fits(first, screen.observation, screen.structure, action);
                        let verb = matches!(first.verb, Verb::Specific { .. });
                        best = semantic::blend(&best, Some(similarity), &fits, verb);
                    }
                    if let Some(link) = planner_link {
                        best[link] = best[link].max(semantic::ASK_SCORE);
                    }
                    softmax(&question.choices, &best)
                }
            };
            answers.push(Answer {
                key: question.key,
                probabilities,
            });
        }
        Ok(answers)
    }
}

/// An address's words with the account word a path word begins with read alone: addresses
/// run words together ("/user/loginform", "/signupPage" lower-cased), and "login", "logout",
/// "signin", "signout" and "signup" begin no other word a path would hold.
fn account_words(words: &[Token]) -> Vec<Token> {
    const ACCOUNT: &[&str] = &["login", "logon", "logout", "signin", "signout", "signup"];
    words
        .iter()
        .map(|w| {
            match ACCOUNT
                .iter()
                .find(|a| w.norm.len() > a.len() && w.norm.starts_with(*a))
            {
                Some(a) => Token::synthetic(a),
                None => w.clone(),
            }
        })
        .collect()
}

/// What kind of action a reading asks for, given the screen.
pub fn action_of(reading: &Reading<'_>, screen: Option<Screen<'_>>) -> ActionKind {
    match reading.cue {
        // "compare the editions" beside "Compare Editions": the control that does it, named in
        // full, is the way to do it.
        Cue::Question => match screen {
            Some(screen)
                if reading
                    .tokens
                    .get(reading.begin)
                    .is_some_and(|t| lexicon::is_in(lexicon::REASON_VERBS, &t.norm))
                    && names_a_control(reading, screen) =>
            {
                ActionKind::Click
            }
            Some(screen) if question_topic(reading, screen).is_some() => ActionKind::Click,
            // "what about those chain emails" beside *Chain E-mails*: a turn to a thing the
            // screen names, not a question.
            Some(screen) if turns_to(reading) && best_click(reading, screen) >= 0.5 => {
                ActionKind::Click
            }
            _ => ActionKind::Reason,
        },
        // "leave a comment saying delicious": the words before the marker
        // name a field, so it is one fill, not a task.
        Cue::MultiStep => match (screen, &reading.typing) {
            (Some(screen), Some(typing)) if names_a_field(reading, &typing.field, screen) => {
                ActionKind::Type
            }
            _ => ActionKind::Reason,
        },
        Cue::Scroll(_) => ActionKind::Scroll,
        Cue::Back => ActionKind::Back,
        Cue::Type => match screen {
            Some(screen) if compares(reading, screen) => ActionKind::Reason,
            // "search flights" is the name of the "Search flights" button.
            Some(screen) if names_a_control(reading, screen) => ActionKind::Click,
            // "set the target group to families": a choice of a closed list, chosen as such.
            Some(screen) if chooses_an_option(reading, screen) => ActionKind::Click,
            _ => ActionKind::Type,
        },
        Cue::Act => {
            if let Some(screen) = screen {
                if reading.verb == Verb::None && fills_a_field(reading, screen) {
                    return ActionKind::Type;
                }
                // "what are the best credit cards": the control named by all the words asked
                // about ("Best Credit Cards") is where the answer is; else it is reasoned.
                if reading.asks_about && !names_a_control(reading, screen) {
                    return ActionKind::Reason;
                }
                // "where's the privacy policy": shown when the screen has it, else reasoned.
                if reading.locates && best_click(reading, screen) < 0.5 {
                    return ActionKind::Reason;
                }
                // "go back to the search results": a control that names them, or else back;
                // not while a control's name is unread (it may be the page said).
                if reading.returns
                    && best_click(reading, screen) < 0.5
                    && !screen.structure.facts.iter().any(unread)
                {
                    return ActionKind::Back;
                }
                // "how do I contact customs": the link the rest names is where the answer is;
                // a button that acts is not, and a weak match is no answer.
                if reading.asks_way && !answered_by_link(reading, screen) {
                    return ActionKind::Reason;
                }
                if names_field_and_value(reading, screen)
                    || quantifies_over_list(reading, screen)
                    || counts_several(reading)
                    || compares(reading, screen)
                    || sets_an_amount(reading, screen)
                    || acts_on_something_elsewhere(reading, screen)
                {
                    return ActionKind::Reason;
                }
            }
            if (reading.locates || reading.asks_about || reading.asks_way) && screen.is_none() {
                return ActionKind::Reason;
            }
            ActionKind::Click
        }
    }
}

/// A control whose name the words said cannot meet: written only in another script (no Latin
/// letter or digit in it) and not glossed ("ブログ" without a Japanese glossary).
fn unread(f: &observation::ElementFacts) -> bool {
    f.class != RoleClass::Static
        && f.glosses.is_empty()
        && f.label.iter().any(|t| t.norm.chars().any(char::is_alphabetic))
        // Labels are folded: a Latin letter is an ASCII one.
        && f.label.iter().all(|t| !t.norm.chars().any(|c| c.is_ascii_alphanumeric()))
}

/// The best score any element has as the target of a click.
fn best_click(reading: &Reading<'_>, screen: Screen<'_>) -> f32 {
    score_elements(reading, screen, ActionKind::Click)
        .into_iter()
        .fold(0.0f32, f32::max)
}

/// Words ending in "est" that are not superlatives.
const NOT_SUPERLATIVE: &[&str] = &[
    "interest", "request", "contest", "forest", "guest", "digest", "manifest", "protest",
    "suggest", "harvest", "test", "rest", "chest", "nest", "west", "quest", "honest", "modest",
    "invest", "arrest", "latest",
];

/// "the cheapest desk", "the most popular": a comparison across items is
/// reasoning, unless a label says that very word ("newest" -> "new"), also as the start of a
/// compound ("Bestpreis-Garantie", "Bestsellers").
/// So is a superlative the screen says with the word said after it, as a row's heading ("the
/// last best gift" beside "Best Gifts: Diamond Emerald …").
fn compares(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    let said = &reading.tokens[reading.begin..];
    said.iter().enumerate().any(|(k, t)| {
        let superlative = matches!(t.norm.as_str(), "best" | "worst" | "most" | "least")
            || (t.norm.ends_with("est")
                && t.norm.chars().count() >= 6
                && !lexicon::is_in(NOT_SUPERLATIVE, &t.norm));
        let says = |t: &Token| {
            screen.structure.facts.iter().any(|f| {
                f.label.iter().any(|w| {
                    w.stem == t.stem
                        || w.norm == t.norm
                        || (t.norm.chars().count() >= 4 && w.norm.starts_with(t.norm.as_str()))
                })
            })
        };
        // "the most recent shots" beside "Recent Shots": the order a label names.
        let in_a_label = || {
            says(t)
                || (matches!(t.norm.as_str(), "most" | "least")
                    && said.get(k + 1).is_some_and(&says))
        };
        let heading_a_row = || {
            said.get(k + 1).is_some_and(|next| {
                (0..screen.structure.facts.len()).any(|i| {
                    screen
                        .structure
                        .context(i)
                        .windows(2)
                        .any(|w| w[0].norm == t.norm && w[1].stem == next.stem)
                })
            })
        };
        superlative && !in_a_label() && !heading_a_row()
    })
}

/// Some of `words` are words of an editable field's label.
fn names_a_field(reading: &Reading<'_>, words: &[usize], screen: Screen<'_>) -> bool {
    screen.structure.facts.iter().any(|f| {
        f.class == RoleClass::Editable
            && words.iter().any(|&i| {
                let t = &reading.tokens[i];
                !lexicon::is_in(lexicon::STOPWORDS, &t.norm)
                    && f.label
                        .iter()
                        .any(|l| l.stem == t.stem && !lexicon::is_in(lexicon::STOPWORDS, &l.norm))
            })
    })
}

/// Where a field's label is said first: "leaving from berlin".
fn field_at_start(reading: &Reading<'_>, screen: Screen<'_>) -> Option<usize> {
    let words = &reading.tokens[reading.begin..];
    screen.structure.facts.iter().position(|f| {
        f.class == RoleClass::Editable
            && !f.label.is_empty()
            && ((words.len() > f.label.len()
                && words.iter().zip(&f.label).all(|(a, b)| a.stem == b.stem))
                || names_before_a_number(words, &f.label))
    })
}

/// "zip code 33101" beside *Zip / Postal Code*: two words or more, each a meaningful word of
/// the field's label, then a number, the value.
fn names_before_a_number(words: &[Token], label: &[Token]) -> bool {
    let Some(value) = words.iter().position(Token::is_number) else {
        return false;
    };
    value >= 2
        && words[..value].iter().all(|w| {
            !lexicon::is_in(lexicon::STOPWORDS, &w.norm) && label.iter().any(|l| l.stem == w.stem)
        })
}

/// A verbless turn that is a field's label and a value.
fn fills_a_field(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    field_at_start(reading, screen).is_some()
}

/// The words said are exactly the words of one control's label.
/// A word said is a word shown, or one of its glosses ("compare" / "vergleichen").
fn says_word(screen: Screen<'_>, q: &Token, w: &Token) -> bool {
    q.stem == w.stem
        || lexicon::names_language(&q.norm, &w.norm)
        || screen
            .observation
            .glosses
            .as_ref()
            .and_then(|g| g.words.get(&w.norm))
            .is_some_and(|senses| {
                senses
                    .iter()
                    .any(|s| *s == q.norm || text::stem(s) == q.stem)
            })
}

/// Verbs that pick a choice of a list: a one-word choice is named only after one of them.
const CHOOSE_VERBS: &[&str] = &[
    "choose", "pick", "select", "set", "switch", "change", "make", "sort", "filter", "limit",
    "restrict", "narrow",
];

/// The choice of the closed list `i` (a `<select>`) the words name in full ("pick check spelling
/// from more actions", "make it 48 months" / "48 Monate"; one word of three or more may go
/// unsaid; each word said stands for one word of the choice): the one with the most words said,
/// then the one said in its own order ("price from high to low" is "Price: high to low", not
/// "Price: low to high"); none when two still tie. After a verb that chooses ("select Deutsch",
/// "sort by name", "switch the actions menu to print view") the other words may name the list;
/// after any other verb ("open the anagram server") every word said is the choice's, and a
/// one-word choice is never named ("the word from the day before" is no "A.Word.A.Day").
pub fn named_option(reading: &Reading<'_>, screen: Screen<'_>, i: usize) -> Option<usize> {
    let options = &screen.structure.facts.get(i)?.options;
    if options.is_empty() {
        return None;
    }
    let lead = reading.tokens.get(reading.begin);
    let chooses = lead.is_some_and(|t| lexicon::is_in(CHOOSE_VERBS, &t.norm));
    let verb_first = lead.is_some_and(|t| {
        lexicon::is_in(CHOOSE_VERBS, &t.norm) || lexicon::is_in(lexicon::ACTIVATE_VERBS, &t.norm)
    });
    let from = reading.begin + usize::from(verb_first);
    let said = lexicon::content_words(&reading.tokens[from.min(reading.tokens.len())..]);
    let mut best: Option<(usize, (usize, bool))> = None;
    let mut tie = false;
    for (k, option) in options.iter().enumerate() {
        let words = lexicon::content_words(option);
        // Where each of the choice's words was said, if it was (each word said once).
        let mut used = vec![false; said.len()];
        let mut at: Vec<usize> = Vec::new();
        for w in &words {
            if let Some(p) = (0..said.len()).find(|&p| !used[p] && says_word(screen, said[p], w)) {
                used[p] = true;
                at.push(p);
            }
        }
        let met = at.len();
        let unmet = words.len() - met;
        let named = met > 0 && (unmet == 0 || (unmet == 1 && words.len() >= 3));
        let only_the_choice = used.iter().all(|u| *u);
        if !named || (!chooses && (met == 1 || !only_the_choice)) {
            continue;
        }
        let rank = (met, at.windows(2).all(|w| w[0] < w[1]));
        match best {
            Some((_, r)) if r > rank => {}
            // A choice listed twice ("Canada" among the first few and again in its place in
            // the alphabet) is one choice, not a tie.
            Some((b, r)) if r == rank && same_words(&options[b], option) => {}
            Some((_, r)) if r == rank => tie = true,
            _ => {
                best = Some((k, rank));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(k, _)| k).or_else(|| {
        chooses
            .then(|| said_in_order(reading, screen, from, options))
            .flatten()
    })
}

/// The text the grammar fixed as typed ("the password is h7q2": "h7q2").
fn typed_text<'r>(reading: &'r Reading<'_>) -> Option<&'r str> {
    reading
        .typing
        .as_ref()
        .and_then(|t| t.text.as_ref())
        .map(|span| reading.slice(span))
}

/// The choice of a closed list that typed text is, in full: folded, small words before it left
/// out ("on the 14th"), a number's ordinal ending too ("14th" is "14"). None when no choice
/// or two different ones are.
pub fn typed_choice(typed: Option<&str>, options: &[String]) -> Option<usize> {
    let fold = |o: &str| -> Vec<String> { text::tokens(o).into_iter().map(|t| t.norm).collect() };
    let mut words = fold(typed?);
    let lead = words
        .iter()
        .take_while(|w| lexicon::is_in(lexicon::STOPWORDS, w) && words.len() > 1)
        .count();
    words.drain(..lead.min(words.len().saturating_sub(1)));
    if let [w] = words.as_mut_slice() {
        for end in ["st", "nd", "rd", "th"] {
            if let Some(n) = w
                .strip_suffix(end)
                .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            {
                *w = n.to_string();
            }
        }
    }
    let mut found: Option<(usize, Vec<String>)> = None;
    for (k, o) in options.iter().enumerate() {
        let o = fold(o);
        if o.is_empty() || o != words {
            continue;
        }
        match &found {
            Some((_, seen)) if *seen == o => {}
            Some(_) => return None,
            None => found = Some((k, o)),
        }
    }
    found.map(|(k, _)| k)
}

/// Two choices that say the same words (folded).
fn same_words(a: &[Token], b: &[Token]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.norm == y.norm)
}

/// The one choice whose words, small ones too, were said in its own order after a verb that
/// chooses, all but one of them and at least two ("sort them Z to A": "Z bis A", not "A bis
/// Z"), when the content words alone do not tell the choices apart.
fn said_in_order(
    reading: &Reading<'_>,
    screen: Screen<'_>,
    from: usize,
    options: &[Vec<Token>],
) -> Option<usize> {
    let said = &reading.tokens[from.min(reading.tokens.len())..];
    let fits = |option: &Vec<Token>| {
        let (mut p, mut met) = (0, 0);
        for w in option {
            match (p..said.len()).find(|&q| says_word(screen, &said[q], w)) {
                Some(q) => {
                    p = q + 1;
                    met += 1;
                }
                // Said, but before a word said after it: another order.
                None if said[..p].iter().any(|q| says_word(screen, q, w)) => return false,
                None => {}
            }
        }
        met >= 2 && option.len() - met <= 1
    };
    let mut fitting = options.iter().enumerate().filter(|(_, o)| fits(o));
    match (fitting.next(), fitting.next()) {
        (Some((k, _)), None) => Some(k),
        _ => None,
    }
}

/// Some closed list on screen has a choice the words name.
fn chooses_an_option(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    (0..screen.structure.facts.len()).any(|i| offers_named_option(reading, screen, i))
}

/// Element `i` is an enabled closed list with a choice the words name.
fn offers_named_option(reading: &Reading<'_>, screen: Screen<'_>, i: usize) -> bool {
    !screen.structure.facts[i].disabled && named_option(reading, screen, i).is_some()
}

/// How strongly a closed list is meant when the words name one of its choices.
const OPTION_NAMED: f32 = 0.85;

fn names_a_control(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    let said = lexicon::content_words(&reading.tokens[reading.begin..]);
    // A word said is a label word, or one of its glosses ("compare now" / "JETZT VERGLEICHEN").
    let meets = |q: &Token, w: &Token| says_word(screen, q, w);
    screen.structure.facts.iter().any(|f| {
        let label = lexicon::content_words(&f.label);
        // "tell me more about the web audio editor": a link that offers more about a thing
        // ("Learn more about Web Audio Editor") is named by the thing.
        let offers_more =
            |w: &Token| reading.asks_about && lexicon::is_in(lexicon::MORE_ABOUT, &w.norm);
        f.class == RoleClass::Activatable
            && !label.is_empty()
            && said.iter().all(|q| label.iter().any(|w| meets(q, w)))
            // Named in full but for one word ("compare now" / "JETZT VERGLEICHEN", "compare"
            // / "Compare Editions").
            && label
                .iter()
                .filter(|w| !said.iter().any(|q| meets(q, w)) && !offers_more(w))
                .count()
                <= 1
    })
}

/// "what about X", "how about X": the words turn to X.
fn turns_to(reading: &Reading<'_>) -> bool {
    let norm = |k: usize| reading.tokens.get(k).map(|t| t.norm.as_str());
    let b = reading.begin;
    matches!(norm(b), Some("what" | "how")) && norm(b + 1) == Some("about") && norm(b + 2).is_some()
}

/// "who sits on the board of directors" beside *Board of Directors*: a question that says every
/// word of a link's label, two at least, is answered on the page the link opens (a link that
/// offers more about a topic, by the topic: `more_about`). The whole utterance counts, so
/// "what is a verified certificate? tell me more" asks about the certificate. Its words that
/// name such links ("board of directors"), read as a reference; the rest asks about the page
/// and names nothing. A question about what is shown ("how many likes does this tweet have")
/// has none.
fn question_topic<'a>(reading: &Reading<'a>, screen: Screen<'_>) -> Option<Reading<'a>> {
    let asked = 0..reading.tokens.len();
    if reading.tokens[asked.clone()]
        .iter()
        .any(|t| lexicon::is_in(lexicon::POINTING, &t.norm))
    {
        return None;
    }
    let mut span: Option<(usize, usize)> = None;
    for f in &screen.structure.facts {
        // "Learn more about the verified Certificate of Achievement" is about its topic: the
        // words after "about", of which one of three or more may go unsaid.
        let topic = more_about(&f.label);
        let label = lexicon::content_words(topic.unwrap_or(&f.label));
        let may_miss = usize::from(topic.is_some() && label.len() >= 3);
        let meets = |i: usize| {
            label
                .iter()
                .any(|w| says_word(screen, &reading.tokens[i], w))
        };
        let said: Vec<usize> = asked
            .clone()
            .filter(|&i| !lexicon::is_in(lexicon::STOPWORDS, &reading.tokens[i].norm))
            .filter(|&i| meets(i))
            .collect();
        let unsaid = label
            .iter()
            .filter(|w| {
                !said
                    .iter()
                    .any(|&i| says_word(screen, &reading.tokens[i], w))
            })
            .count();
        let named = screen.observation.elements[f.index].role == "link"
            && label.len() >= 2
            && unsaid <= may_miss;
        if let (true, Some(&first), Some(&last)) = (named, said.first(), said.last()) {
            span = Some(span.map_or((first, last), |(a, b)| (a.min(first), b.max(last))));
        }
    }
    let (first, last) = span?;
    let source = reading.source;
    Some(utterance::read_as_reference(
        &source[reading.tokens[first].start..reading.tokens[last].end],
    ))
}

/// The topic of a label that offers more about it: "Learn more about X", "Read more about X",
/// "Find out more about X", "More about X" give X.
fn more_about(label: &[Token]) -> Option<&[Token]> {
    let about = label.iter().position(|t| t.norm == "about")?;
    let lead: Vec<&str> = label[..about].iter().map(|t| t.norm.as_str()).collect();
    let offers_more = matches!(
        lead.as_slice(),
        ["more"] | ["learn", "more"] | ["read", "more"] | ["find", "out", "more"]
    );
    (offers_more && about + 1 < label.len()).then(|| &label[about + 1..])
}

/// Whether the element that best fits a way question's rest ("contact customs") is a link and
/// fits it well: the page it opens is where the answer is.
fn answered_by_link(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    let scores = score_elements(reading, screen, ActionKind::Click);
    let top = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, s)| (i, *s));
    top.is_some_and(|(i, s)| s >= 0.3 && screen.observation.elements[i].role == "link")
}

/// "log in as karl with password h7q2": an action plus a value for a field on
/// screen is a fill-then-act task, not one grounded action.
fn names_field_and_value(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    if field_at_start(reading, screen).is_some() {
        return false;
    }
    let tokens = &reading.tokens;
    // "click the name field": a kind noun after the label names the field, it is no value.
    let names_kind = |t: &Token| {
        lexicon::ROLE_NOUNS.iter().any(|(w, _)| *w == t.stem)
            || matches!(t.norm.as_str(), "area" | "input" | "entry" | "line")
    };
    screen.structure.facts.iter().any(|f| {
        f.class == RoleClass::Editable
            && !f.label.is_empty()
            && tokens.windows(f.label.len() + 1).any(|w| {
                let after = &w[f.label.len()];
                w[..f.label.len()]
                    .iter()
                    .zip(&f.label)
                    .all(|(a, b)| a.stem == b.stem)
                    && !lexicon::is_in(lexicon::STOPWORDS, &after.norm)
                    && !names_kind(after)
            })
    })
}

/// "upvote all the stories about AI": a quantifier over list items, unless a
/// label itself says "all" ("Accept all").
fn quantifies_over_list(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    if !reading.quantified {
        return false;
    }
    // "show me all the older words", "view all posts": seeing a collection is one place to go.
    // A bare "all the speedway news" names the collection too.
    let sees = reading.verb == Verb::None
        || reading.verb == Verb::Activate
            && reading.tokens.get(reading.begin).is_some_and(|t| {
                matches!(
                    t.norm.as_str(),
                    "show" | "view" | "see" | "list" | "browse" | "display"
                    // "back to all news", "go to all products": going is to one place.
                    | "go" | "back" | "return" | "head" | "navigate" | "take"
                )
            });
    if sees {
        return false;
    }
    let all = lexicon::CONCEPTS.iter().position(|(n, _)| *n == "all");
    let verb = match &reading.verb {
        Verb::Specific { tokens, .. } => tokens.clone().next().map(|i| &reading.tokens[i]),
        // "select all messages" is the "Select all" checkbox.
        Verb::Toggle | Verb::Activate => reading.tokens.get(reading.begin),
        _ => None,
    };
    // Only a label that says both the verb and "all" makes it one click.
    !screen.structure.facts.iter().any(|f| {
        let concepts = lexicon::concept_ids(&f.label);
        all.is_some_and(|a| concepts.contains(&a))
            && verb.is_some_and(|v| {
                word_match(v, &f.label) >= 0.75
                    || lexicon::concept_ids(std::slice::from_ref(v))
                        .iter()
                        .any(|c| concepts.contains(c))
            })
    })
}

/// "open the first three results", "the top 5 stories", "the last two comments": several things
/// of a list, each its own step; never one click.
fn counts_several(reading: &Reading<'_>) -> bool {
    let said = &reading.tokens[reading.begin..];
    said.windows(3).any(|w| {
        let count = if w[1].is_number() {
            w[1].stem.parse::<u32>().ok()
        } else {
            text::number_word(&w[1].norm)
        };
        matches!(w[0].norm.as_str(), "first" | "top" | "last")
            && count.is_some_and(|n| n >= 2)
            && w[2].norm != w[2].stem
    })
}

/// "add six bottles to the cart" beside a quantity field: setting the amount
/// is a step of its own before the click, so it is a task, not one click.
/// A number a label also says ("the 17 comments link") names, it does not count.
fn sets_an_amount(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    if reading.head.ordinal.is_some() || reading.qualifier.ordinal.is_some() {
        return false;
    }
    let facts = &screen.structure.facts;
    let mut numbers = reading.tokens[reading.begin..]
        .iter()
        .filter(|t| t.is_number())
        .peekable();
    let said = numbers.peek().is_some();
    let named = numbers.any(|n| {
        facts.iter().any(|f| {
            f.label.iter().any(|w| w.stem == n.stem)
                || f.options.iter().flatten().any(|w| w.stem == n.stem)
        })
    });
    let amount_field = screen.observation.elements.iter().zip(facts).any(|(e, f)| {
        f.class == RoleClass::Editable
            && (e.role == "spinbutton" || observation::holds_a_number(e.value.as_deref()))
    });
    said && !named && amount_field
}

/// "delete the email from vercel" where the only Delete is in a toolbar, away
/// from the Vercel row: the row must be selected first, so it is a task. A
/// verb's control inside its object's own row or card ("hide" under each
/// story) is one click; "this" is the page itself ("block this user").
fn acts_on_something_elsewhere(reading: &Reading<'_>, screen: Screen<'_>) -> bool {
    let Verb::Specific { tokens, .. } = &reading.verb else {
        return false;
    };
    let verb: Vec<&Token> = tokens.clone().map(|i| &reading.tokens[i]).collect();
    let words = |phrase: &utterance::Phrase| -> Vec<&Token> {
        phrase
            .content
            .iter()
            .filter(|&&i| Some(i) != phrase.kind_token)
            .map(|&i| &reading.tokens[i])
            .filter(|t| !t.is_number() && !lexicon::is_in(lexicon::STOPWORDS, &t.norm))
            .collect()
    };
    let deictic = |phrase: &utterance::Phrase| {
        phrase.span.iter().any(|&i| {
            matches!(
                reading.tokens[i].norm.as_str(),
                "this" | "these" | "current"
            )
        })
    };
    if deictic(&reading.head) || deictic(&reading.qualifier) {
        return false;
    }
    let object = match words(&reading.qualifier) {
        q if !q.is_empty() => q,
        _ => words(&reading.head),
    };
    if object.is_empty() || verb.is_empty() {
        return false;
    }
    let structure = screen.structure;
    let facts = &structure.facts;
    let offers = |i: usize| verb.iter().any(|v| word_match(v, &facts[i].label) >= 0.75);
    let about = |i: usize| {
        object.iter().all(|q| {
            word_match(q, &facts[i].label) >= 0.7
                || word_match(q, structure.context(i)) >= 0.7
                || word_match(q, structure.item_text(i)) >= 0.7
        })
    };
    let controls: Vec<usize> = (0..facts.len()).filter(|&i| offers(i)).collect();
    !controls.is_empty()
        && controls
            .iter()
            .all(|&c| facts[c].item.is_none() && !about(c))
        && (0..facts.len()).any(|e| facts[e].item.is_some() && about(e))
}

fn softmax(choices: &[super::decider::Choice], scores: &[f32]) -> Vec<f32> {
    let raw: Vec<f32> = choices
        .iter()
        .map(|c| match c.meaning {
            Meaning::Element(i) => match scores.get(i) {
                Some(&s) if s > 0.0 => (SHARPNESS * s).exp(),
                _ => 0.0,
            },
            Meaning::Nothing => (SHARPNESS * NOTHING_SCORE).exp(),
            _ => 0.0,
        })
        .collect();
    let total: f32 = raw.iter().sum();
    if total <= 0.0 {
        return raw;
    }
    raw.iter().map(|r| r / total).collect()
}

/// How well one query word is matched by a list of words, in [0, 1].
pub fn word_match(q: &Token, words: &[Token]) -> f32 {
    let mut best: f32 = 0.0;
    for w in words {
        best = best.max(pair_match(q, w));
        if best >= 1.0 {
            return 1.0;
        }
    }
    best
}

fn pair_match(q: &Token, w: &Token) -> f32 {
    if q.stem == w.stem || q.norm == w.norm {
        return 1.0;
    }
    if q.is_number() || w.is_number() {
        return 0.0;
    }
    // "switch the page to Spanish" on *En Español*: a language by the name it gives itself.
    if lexicon::names_language(&q.norm, &w.norm) {
        return 0.9;
    }
    // A name or loanword in the other alphabet ("VKontakte" / ВКонтакте, "videos" / Видео,
    // "blogs" / Блоги): the Russian word's letters, its plural or case ending off.
    if q.norm.is_ascii() != w.norm.is_ascii() {
        let (latin, other) = if q.norm.is_ascii() { (q, w) } else { (w, q) };
        if let Some(t) = text::transliterated(&other.norm) {
            let bare = t.strip_suffix(['i', 'y', 'a', 'e', 'u']).unwrap_or(&t);
            let same =
                t == latin.norm || t == latin.stem || (bare.len() >= 4 && bare == latin.stem);
            return if same && t.len() >= 4 { 0.9 } else { 0.0 };
        }
    }
    let (ql, wl) = (q.norm.len(), w.norm.len());
    let (short, long) = if ql <= wl {
        (&q.norm, &w.norm)
    } else {
        (&w.norm, &q.norm)
    };
    // The person who does a thing is not the thing: "the commenter" is no Comment button.
    // (Said the other way round, the word may be a link's address: facebook.com/sharer.)
    let agent = ql > wl
        && q.norm
            .strip_prefix(w.norm.as_str())
            .is_some_and(|rest| matches!(rest, "er" | "ers" | "or" | "ors" | "r" | "rs"));
    if short.len() >= 5 && long.starts_with(short.as_str()) && short.chars().count() >= 5 {
        if agent {
            return 0.0;
        }
        return 0.8;
    }
    // A person named by what they play or do, against the thing ("the drummer" / "Drums",
    // "the cellist" / "Cello"): the agent noun's base, four letters or more, starts the longer
    // word. Never the base itself ("player" is no "Play" button).
    if let Some(base) = agent_base(&q.norm) {
        if w.norm.len() > base.len() && w.norm.starts_with(base.as_str()) {
            return 0.75;
        }
    }
    // One word made from the other ("cite" / "citation", "attached" / "Attachments",
    // "delete" / "deletion"): the same meaning as a noun.
    if derived(q, w) || derived(w, q) {
        return 0.75;
    }
    // The last part of a compound (German, Dutch, Scandinavian) carries its meaning:
    // "Ergebnisoptionen" is options, "Kundenservice" a service. A weak match: the head is unread.
    if let Some(m) = compound_tail(short, long) {
        return m;
    }
    // Cognates across languages share their start: "nature" / "naturaleza",
    // "society" / "sociedad", "category" / "categoría".
    let common = short
        .chars()
        .zip(long.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let cognate = if common >= 5 && common * 10 >= short.chars().count() * 7 {
        0.7
    } else {
        0.0
    };
    if ql < 4 || wl < 4 || ql.abs_diff(wl) > 3 {
        return cognate;
    }
    let (qb, wb) = (q.norm.as_bytes(), w.norm.as_bytes());
    // Up to seven letters, similarity 0.75 allows one edit: a word that
    // differs at both ends cannot reach it.
    let far = ql.max(wl) <= 7 && qb[0] != wb[0] && qb[ql - 1] != wb[wl - 1];
    let sim = if far {
        0.0
    } else {
        text::similarity(&q.norm, &w.norm)
    };
    let mut m = if sim >= 0.75 { sim * 0.9 } else { 0.0 };
    if m < 0.7
        && text::sound_first(&q.norm) == text::sound_first(&w.norm)
        && text::sound_alike(&q.norm, &w.norm, 3)
    {
        m = 0.7;
    }
    m.max(cognate)
}

/// `long` is a noun made from `short` by "-ation", "-ion", "-ment" (plural or not): "citation" of
/// "cite", "attachments" of "attached" (its stem "attach"), "deletion" of "delete",
/// "publication" of "publish", "notification" of "notify". The base
/// keeps four letters ("cit" only before "-ation"): "notion" is not "not".
fn derived(short: &Token, long: &Token) -> bool {
    let long = long.norm.strip_suffix('s').unwrap_or(&long.norm);
    // "publication" of "published", "notification" of "notify".
    if let Some(root) = long
        .strip_suffix("ication")
        .filter(|r| r.chars().count() >= 4)
    {
        let said = &short.stem;
        if said.strip_suffix("ish") == Some(root) || said.strip_suffix('y') == Some(root) {
            return true;
        }
    }
    let base = short.stem.strip_suffix('e').unwrap_or(&short.stem);
    [("ation", 3), ("ition", 4), ("ion", 4), ("ment", 4)]
        .iter()
        .any(|(suffix, min)| {
            long.strip_suffix(suffix).is_some_and(|root| {
                root.chars().count() >= *min
                    && (root == base || root.strip_suffix('e') == Some(base))
            })
        })
}

/// The base of an agent noun ("drummer" → "drum", "cellist" → "cell", "arranger" → "arrang"),
/// four letters or more; `None` for other words.
fn agent_base(word: &str) -> Option<String> {
    let (suffix, stem) = ["ist", "er", "or"]
        .iter()
        .find_map(|s| word.strip_suffix(s).map(|stem| (*s, stem)))?;
    // "drummer" doubles its consonant before "-er"; "cellist" keeps its own.
    let base = match suffix {
        "er" => text::undoubled(stem, 2).unwrap_or(stem),
        _ => stem,
    };
    (base.chars().count() >= 4).then(|| base.to_string())
}

/// `long` is the "-ing" form of `short`: "buying" / "buy", "pricing" / "price", "shopping" /
/// "shop" (a base of three letters or more).
fn is_ing_form(long: &str, short: &str) -> bool {
    let Some(base) = long.strip_suffix("ing").filter(|b| b.len() >= 3) else {
        return false;
    };
    short == base
        || short.strip_suffix('e') == Some(base)
        || text::undoubled(base, 4) == Some(short)
}

/// A word said for a gloss of a label word (the label's word in English): an exact gloss counts
/// as 0.8 of the label's own word, anything looser (a prefix, a sound-alike) not at all.
fn gloss_strength(m: f32) -> f32 {
    if m >= 1.0 {
        0.8
    } else {
        0.0
    }
}

/// A one-word verb said meets a button's label word of another language through that word's
/// glosses ("sign" / "Je signe", "share" / "Teilen"), or through their meaning ("buy" /
/// "Naroči", glossed "order"): as strong as a gloss (0.8), never a phrasal verb ("sign in" is no
/// "Abmelden", glossed "sign out").
fn verb_in_glosses(screen: Screen<'_>, zone: &[Token], verb: &[&Token], concepts: &[usize]) -> f32 {
    let [v] = verb else {
        return 0.0;
    };
    let means = |w: &Token| {
        let Some(senses) = screen
            .observation
            .glosses
            .as_ref()
            .and_then(|g| g.words.get(&w.norm))
        else {
            return false;
        };
        senses.iter().any(|s| {
            let words = text::tokens(s);
            lexicon::concept_ids(&words)
                .iter()
                .any(|c| concepts.contains(c))
        })
    };
    if zone.iter().any(|w| says_word(screen, v, w) || means(w)) {
        gloss_strength(1.0)
    } else {
        0.0
    }
}

/// `short` said for the last part of the compound `long` (a head of four letters or more, a
/// tail the word or its cognate: "options" / "ergebnisoptionen"): 0.55, else `None`.
fn compound_tail(short: &str, long: &str) -> Option<f32> {
    let n = short.chars().count();
    if n < 6 || long.chars().count() < n + 4 {
        return None;
    }
    long.char_indices().skip(4).find_map(|(i, _)| {
        let tail = &long[i..];
        let common = short
            .chars()
            .zip(tail.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let shorter = n.min(tail.chars().count());
        (common >= 5 && common * 10 >= shorter * 7 && tail.chars().count() + 3 >= n).then_some(0.55)
    })
}

/// Query words with their compounds (two or three adjacent words joined)
/// built once, so matching against many elements allocates nothing.
#[derive(Debug, Clone, Default)]
pub struct Query<'a> {
    words: Vec<&'a Token>,
    joined: Vec<(usize, usize, Token)>,
    /// The initials of two to four adjacent words of two letters or more ("creative commons"
    /// → "cc"), for `label_match`.
    initials: Vec<(usize, usize, String)>,
}

impl<'a> Query<'a> {
    pub fn new(words: Vec<&'a Token>) -> Query<'a> {
        let mut joined = Vec::new();
        for span in [2usize, 3] {
            for start in 0..words.len().saturating_sub(span - 1) {
                let j: String = words[start..start + span]
                    .iter()
                    .map(|t| t.norm.as_str())
                    .collect();
                if j.chars().count() >= 4 {
                    joined.push((start, start + span, Token::synthetic(&j)));
                }
            }
        }
        let mut initials = Vec::new();
        for span in 2..=4usize {
            for start in 0..words.len().saturating_sub(span - 1) {
                let said = &words[start..start + span];
                if said.iter().all(|q| {
                    q.norm.chars().count() >= 2 && q.norm.chars().all(|c| c.is_alphabetic())
                }) {
                    let i: String = said.iter().filter_map(|q| q.norm.chars().next()).collect();
                    initials.push((start, start + span, i));
                }
            }
        }
        Query {
            words,
            joined,
            initials,
        }
    }
}

impl<'a> std::ops::Deref for Query<'a> {
    type Target = [&'a Token];
    fn deref(&self) -> &Self::Target {
        &self.words
    }
}

/// [`phrase_match`] against a label, with "-ing" forms and initials: "creative commons" for the "CC" of
/// "CC-BY-NC-ND 4.0 license", "tos" for "Terms of Service". Two to four words, each of two
/// letters or more, whose first letters are the whole of a label word; or a word said whose
/// letters are the first letters of as many label words in a row. Only a label's words: a
/// description's class names ("drp") spell anything.
fn label_match(query: &Query<'_>, words: &[Token]) -> Vec<f32> {
    let mut out = phrase_match(query, words);
    // "the second social icon", "open their social media": a social network's own name is what
    // "social" means on a label (never one network for another).
    if words
        .iter()
        .any(|w| lexicon::is_in(lexicon::SOCIAL_NETWORKS, &w.norm))
    {
        for k in 0..query.len() {
            let social = lexicon::names_social_kind(query[k])
                || (k > 0
                    && lexicon::names_social_kind(query[k - 1])
                    && matches!(query[k].norm.as_str(), "media" | "network" | "networks"));
            if social {
                out[k] = out[k].max(0.85);
            }
        }
    }
    // "open the buying options" for "Buy Now": a verb's "-ing" form is the label's verb (in a
    // label only; a row's "showing" is no "show").
    for (o, q) in out.iter_mut().zip(query.iter()) {
        if words
            .iter()
            .any(|w| is_ing_form(&q.norm, &w.norm) || is_ing_form(&w.norm, &q.norm))
        {
            *o = o.max(0.8);
        }
    }
    for (start, end, initials) in &query.initials {
        if words.iter().any(|w| w.norm == *initials) {
            for o in &mut out[*start..*end] {
                *o = o.max(0.9);
            }
        }
    }
    for (qi, q) in query.iter().enumerate() {
        let n = q.norm.chars().count();
        if (2..=4).contains(&n) && q.norm.chars().all(|c| c.is_alphabetic()) {
            let spelled = words.windows(n).any(|run| {
                run.iter().all(|w| w.norm.chars().count() >= 2)
                    && run
                        .iter()
                        .filter_map(|w| w.norm.chars().next())
                        .eq(q.norm.chars())
            });
            if spelled {
                out[qi] = out[qi].max(0.9);
            }
        }
    }
    out
}

/// Per-word match of a query against candidate words, with compounds: two or
/// three adjacent query words may spell one candidate word ("sea monkey" ->
/// "SeaMonkey"), and one query word may spell two ("login" -> "log in").
fn phrase_match(query: &Query<'_>, words: &[Token]) -> Vec<f32> {
    let mut out: Vec<f32> = query.iter().map(|q| word_match(q, words)).collect();
    if words.is_empty() {
        return out;
    }
    for (start, end, joined) in &query.joined {
        // A compound must spell a whole word: "director branch" is not
        // "director" just because it starts with it.
        let m = words
            .iter()
            .filter(|w| w.norm.len().abs_diff(joined.norm.len()) <= 3)
            .map(|w| pair_match(joined, w))
            .fold(0.0f32, f32::max)
            * 0.95;
        for o in &mut out[*start..*end] {
            *o = o.max(m);
        }
    }
    // A number means a quantity of the word beside it: "17 points" is not
    // "17 comments". Out of its phrase it is weak evidence, unless the label is the number
    // alone: then it is a name ("draft 01" for the version link "01").
    if query.len() > 1 && words.len() > 1 {
        for (k, q) in query.iter().enumerate() {
            if !q.is_number() || out[k] < 1.0 {
                continue;
            }
            let beside = words.iter().enumerate().any(|(j, w)| {
                w.stem == q.stem
                    && ((k + 1 < query.len()
                        && j + 1 < words.len()
                        && pair_match(query[k + 1], &words[j + 1]) >= 0.75)
                        || (k > 0 && j > 0 && pair_match(query[k - 1], &words[j - 1]) >= 0.75))
            });
            if !beside {
                out[k] = 0.6;
            }
        }
    }
    for (qi, q) in query.iter().enumerate() {
        let spelled = words.windows(2).any(|pair| {
            q.norm
                .strip_prefix(pair[0].norm.as_str())
                .is_some_and(|rest| rest == pair[1].norm)
        });
        if spelled {
            out[qi] = out[qi].max(0.95);
        }
    }
    out
}

/// Document frequency weight: words found on many labels say little. A word
/// found nowhere does not tell elements apart; it only lowers confidence.
fn weight(q: &Token, structure: &Structure) -> f32 {
    let qc = lexicon::concept_ids(std::slice::from_ref(q));
    let df = structure
        .facts
        .iter()
        .filter(|f| {
            word_match(q, &f.label) >= 0.75
                || word_match(q, &f.description) >= 0.75
                || f.label_concepts.iter().any(|(c, _)| qc.contains(c))
                || word_match(q, &f.glosses) >= 1.0
                // The other site a link goes to is seen, as a description is.
                || f.site.as_deref() == Some(q.norm.as_str())
        })
        .count();
    let w = if df == 0 {
        UNSEEN_WEIGHT
    } else {
        1.0 / (1.0 + (1.0 + df as f32).ln())
    };
    if structure.title.iter().any(|t| t.stem == q.stem) {
        w * 0.35
    } else {
        w
    }
}

/// One address, `name@host.tld`, and nothing else.
fn is_email_address(s: &str) -> bool {
    let s = s.trim().trim_end_matches(['.', ',']);
    match s.split_once('@') {
        Some((name, host)) => {
            !name.is_empty()
                && !s.contains(char::is_whitespace)
                && !host.contains('@')
                && host.split('.').count() >= 2
                && host.split('.').all(|p| !p.is_empty())
        }
        None => false,
    }
}

/// How much a word of where a link goes counts against a word of its name: a page's slug
/// describes it, but it was written for addresses, not for people.
const DESTINATION_WEIGHT: f32 = 0.6;

/// [`DESTINATION_WEIGHT`] for a word no label says; nothing for one a label says (that label
/// is what it names).
fn destination_weight(unsaid: bool) -> f32 {
    if unsaid {
        DESTINATION_WEIGHT
    } else {
        0.0
    }
}

/// How much a word met in a control's description says the control is that thing: a tooltip
/// ("Toggle comment display") or a title (the next paper's, on a "Next" link) names it; a word
/// inside a paragraph of help text, over 20 words (a field's explanation, "When searching,
/// selecting the option All only finds…"), only mentions it.
fn description_weight(description: &[Token]) -> f32 {
    if description.len() > 20 {
        0.5
    } else {
        0.9
    }
}

/// Weight of a word that no label on screen contains.
pub const UNSEEN_WEIGHT: f32 = 0.3;

/// Per query word: the concept ids of the phrase it belongs to.
fn phrase_concepts(words: &[&Token]) -> Vec<Vec<usize>> {
    let owned: Vec<Token> = words.iter().map(|t| lexicon::said_as_verb(t)).collect();
    let mut out = vec![Vec::new(); words.len()];
    for (c, range) in lexicon::concepts_in(&owned) {
        for k in range {
            out[k].push(c);
        }
    }
    out
}

/// Per content word: the concepts of the phrase it belongs to, found over
/// the whole phrase with its small words ("not now" names "later").
fn span_concepts(
    reading: &Reading<'_>,
    phrase: &utterance::Phrase,
    content: &[&Token],
) -> Vec<Vec<usize>> {
    let all: Vec<Token> = phrase
        .span
        .iter()
        .map(|&i| lexicon::said_as_verb(&reading.tokens[i]))
        .collect();
    let mut out = vec![Vec::new(); content.len()];
    for (c, range) in lexicon::concepts_in(&all) {
        for k in range {
            let index = phrase.span[k];
            if let Some(pos) = phrase.content.iter().position(|&i| i == index) {
                if pos < out.len() && !out[pos].contains(&c) {
                    out[pos].push(c);
                }
            }
        }
    }
    let own = phrase_concepts(content);
    for (o, extra) in out.iter_mut().zip(own) {
        for c in extra {
            if !o.contains(&c) {
                o.push(c);
            }
        }
    }
    out
}

/// Whether every "all" of a label ("Full Report (All Nutrients)", "Tutte le notizie") counts a
/// noun after it that no word of the request says: then the request's own "all" ("browse all
/// the foods") counts something else and does not meet it. "View All", with nothing after, and
/// "All News" for "all the news" still do.
fn label_all_counts_another(
    label: &[Token],
    label_concepts: &[(usize, std::ops::Range<usize>)],
    head: &[&Token],
    qual: &[&Token],
) -> bool {
    let Some(all) = lexicon::concept_named("all") else {
        return false;
    };
    if !label_concepts.iter().any(|(c, _)| *c == all) {
        return false;
    }
    let said: Vec<&Token> = head
        .iter()
        .chain(qual)
        .copied()
        .filter(|t| !lexicon::concept_ids(std::slice::from_ref(*t)).contains(&all))
        .collect();
    let said_concepts =
        lexicon::concept_ids(&said.iter().map(|t| (*t).clone()).collect::<Vec<_>>());
    label_concepts
        .iter()
        .filter(|(c, _)| *c == all)
        .all(|(_, range)| {
            let next = label[range.end..].iter().find(|w| {
                !lexicon::is_in(lexicon::STOPWORDS, &w.norm)
                    && !super::language::is_any_function_word(&w.norm)
            });
            next.is_some_and(|next| {
                let concepts = lexicon::concept_ids(std::slice::from_ref(next));
                said.iter().all(|q| pair_match(q, next) < 0.7)
                    && !concepts.iter().any(|c| said_concepts.contains(c))
            })
        })
}

/// How a label carries a concept: 1.0 if the label is nothing but that
/// concept ("More" for "next"), 0.9 if it is part of it, 0 if absent.
fn concept_strength(
    label: &[Token],
    label_concepts: &[(usize, std::ops::Range<usize>)],
    wanted: &[usize],
) -> (f32, Vec<usize>) {
    let mut best = 0.0f32;
    let mut covered = Vec::new();
    for (c, range) in label_concepts {
        if wanted.contains(c) {
            let whole = range.len() == label.len();
            best = best.max(if whole { 0.95 } else { 0.9 });
            covered.extend(range.clone());
        }
    }
    (best, covered)
}

/// Scores every element of the screen for one reading, in [0, 1]; 0 means
/// excluded by a hard constraint. Two constraints relax when they exclude
/// everything: a media verb ("play") with no control of its own means
/// "open", and a kind noun no element has ("radio") is a content word.
pub fn score_elements(reading: &Reading<'_>, screen: Screen<'_>, action: ActionKind) -> Vec<f32> {
    // "the options for that result" on a screen without radio buttons, check boxes or a
    // list's options: the word is a word ("Ergebnisoptionen"), not a kind of control.
    let plain;
    let reading = if screen
        .observation
        .elements
        .iter()
        .any(|e| role_fits(RoleNoun::Choice, RoleClass::Toggle, &e.role))
    {
        reading
    } else {
        plain = without_kind(reading, RoleNoun::Choice);
        &plain
    };
    // "the last option in the poll" where nothing says "poll": the container said is the
    // screen's own structure, not a word to find.
    let uncontained;
    let reading = match without_unseen_container(reading, screen.structure) {
        Some(r) => {
            uncontained = r;
            &uncontained
        }
        None => reading,
    };
    let mut scores = score_by_words(reading, screen, action);
    if action == ActionKind::Click {
        verb_or_object(reading, screen, &mut scores);
    }
    // "pick check spelling from more actions": the closed list whose choice is named.
    if action == ActionKind::Click {
        for (i, s) in scores.iter_mut().enumerate() {
            if offers_named_option(reading, screen, i) {
                *s = s.max(OPTION_NAMED);
            }
        }
    }
    scores
}

fn score_by_words(reading: &Reading<'_>, screen: Screen<'_>, action: ActionKind) -> Vec<f32> {
    if let Some(relation) = &reading.relation {
        return score_beside(reading, relation, screen, action);
    }
    let counted;
    let reading = match unseen_noun_as_kind(reading, screen.structure) {
        Some(r) => {
            counted = r;
            &counted
        }
        None => reading,
    };
    let mut scores = score_once(reading, screen, action);
    // A kind noun that is a label's own word on this screen ("Article", "No Results
    // Posted", "sections", "Next Chapter") may be that label's word rather than a kind of
    // thing. When that reading fits as well as the other, it is the more specific one and
    // is taken ("the talk page for this article": the Talk beside "Article"); otherwise
    // each element keeps the better of the two.
    if let Some(literal) = kind_noun_as_label_word(reading, screen.structure) {
        let other = score_once(&literal, screen, action);
        let top = |v: &[f32]| v.iter().copied().fold(0.0f32, f32::max);
        if top(&other) >= 0.9 * top(&scores) {
            scores = other;
        } else {
            for (s, o) in scores.iter_mut().zip(other) {
                *s = s.max(o);
            }
        }
    }
    if action == ActionKind::Click {
        headed_rows(reading, screen, &mut scores);
    }
    if scores.iter().any(|s| *s > 0.0) {
        return scores;
    }
    let mut relaxed = reading.clone();
    let mut changed = false;
    if let Verb::Specific { tokens, .. } = &reading.verb {
        let first = &reading.tokens[tokens.start];
        if lexicon::is_in(lexicon::MEDIA_VERBS, &first.norm) {
            relaxed.verb = Verb::Activate;
            changed = true;
        }
    }
    // "watch the video", "see some videos" where no list holds videos: the noun alone is a
    // label's own word ("Video & Further Resources", "Видео" glossed video). Not after "play",
    // which starts a video rather than opening where videos are.
    let plays = matches!(&reading.verb, Verb::Specific { tokens, .. }
        if reading.tokens[tokens.start].norm == "play");
    let labelled = |phrase: &utterance::Phrase| {
        phrase.kind == Kind::Item
            && !plays
            && phrase.content.is_empty()
            && phrase.kind_token.is_some_and(|t| {
                let noun = &reading.tokens[t];
                screen.structure.facts.iter().any(|f| {
                    word_match(noun, &f.label) >= 0.9 || word_match(noun, &f.glosses) >= 1.0
                })
            })
    };
    let item_words = [labelled(&reading.head), labelled(&reading.qualifier)];
    for (phrase, item_word) in [&mut relaxed.head, &mut relaxed.qualifier]
        .into_iter()
        .zip(item_words)
    {
        if item_word || matches!(phrase.kind, Kind::Footnote | Kind::Author | Kind::Role(_)) {
            kind_as_word(phrase);
            changed = true;
        }
    }
    if changed {
        score_once(&relaxed, screen, action)
    } else {
        scores
    }
}

/// A row headed "Birthday: Fall 2" or "Friends: Maru Sam" (an infobox, a details list): a
/// request that says the heading's word and no label's ("her birthday", "her friend's page")
/// means the row's controls. Only when nothing fits better (the best score under
/// `HEADED_ROW`); one control, or copies of one, is taken at that score; several are asked
/// about.
fn headed_rows(reading: &Reading<'_>, screen: Screen<'_>, scores: &mut [f32]) {
    let best = scores.iter().copied().fold(0.0f32, f32::max);
    if best >= HEADED_ROW {
        return;
    }
    let said: Vec<&Token> = reading
        .head
        .content
        .iter()
        .chain(&reading.qualifier.content)
        .map(|&t| &reading.tokens[t])
        .filter(|q| !q.is_number())
        .collect();
    let elements = &screen.observation.elements;
    let heads_row = |i: usize| {
        let e = &elements[i];
        let Some((heading, rest)) = e.context.split_once(':') else {
            return false;
        };
        let heading = text::tokens(heading);
        !heading.is_empty()
            && heading.len() <= 3
            && rest.contains(e.label.trim())
            && !e.label.trim().is_empty()
            && said
                .iter()
                .any(|q| heading.iter().any(|h| h.stem == q.stem))
    };
    let labelled = |q: &Token| {
        screen
            .structure
            .facts
            .iter()
            .any(|f| word_match(q, &f.label) >= 0.7)
    };
    if said.iter().any(|q| labelled(q)) {
        return;
    }
    let row: Vec<usize> = (0..elements.len())
        .filter(|&i| !screen.structure.facts[i].disabled && heads_row(i))
        .collect();
    let Some(&first) = row.first() else { return };
    // One row only: the heading's controls share its context, and after the heading it says
    // their names and nothing else but a remark in brackets ("Pam (Mother)"); a menu whose
    // heading runs on into text or controls not seen is not such a row.
    let slot = screen.structure.facts[first].context_slot;
    if row.len() > 3
        || row
            .iter()
            .any(|&i| screen.structure.facts[i].context_slot != slot)
    {
        return;
    }
    let rest = elements[first].context.split_once(':').map_or("", |r| r.1);
    let words = text::tokens(&outside_brackets(rest));
    let named: Vec<Token> = row
        .iter()
        .flat_map(|&i| text::tokens(&elements[i].label))
        .collect();
    if !words
        .iter()
        .all(|w| w.is_number() || named.iter().any(|n| n.norm == w.norm))
    {
        return;
    }
    // The other words said already chose among the row ("version zero two").
    let lead = row.iter().map(|&i| scores[i]).fold(0.0f32, f32::max);
    if lead >= best && row.iter().any(|&i| scores[i] < lead) {
        return;
    }
    let one = row.iter().all(|&i| {
        screen
            .structure
            .interchangeable(screen.observation, first, i)
    });
    // The heading's own word said is more than a word's concept met elsewhere ("friends" in
    // the share links' "share with friends"): several controls lead the question.
    let several = (best.max(semantic::ASK_SCORE) + 0.05).min(HEADED_ROW - 0.1);
    for &i in &row {
        scores[i] = scores[i].max(if one { HEADED_ROW } else { several });
    }
}

/// `text` without what it says in brackets ("Pam (Mother)" → "Pam ").
fn outside_brackets(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .filter(|&c| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 0,
        })
        .collect()
}

/// The score of a headed row's one control ([`headed_rows`]).
const HEADED_ROW: f32 = 0.6;

/// "install on Ubuntu" beside an "Install" link and an "Ubuntu" link: the control that offers
/// the verb names none of the words said after its preposition, and another control is named
/// by exactly those words. Which is meant (the install page, or Ubuntu's page to install from) is asked;
/// the verb alone does not decide.
fn verb_or_object(reading: &Reading<'_>, screen: Screen<'_>, scores: &mut [f32]) {
    // Only an object after a preposition ("install on", "sign up for"): a direct object
    // ("download this paste") is what the verb's own control acts on.
    let Verb::Specific { tokens, .. } = &reading.verb else {
        return;
    };
    let last = tokens
        .end
        .checked_sub(1)
        .map(|t| reading.tokens[t].norm.as_str());
    if !matches!(last, Some("on" | "for" | "in" | "with" | "into" | "onto"))
        || reading.head.ordinal.is_some()
    {
        return;
    }
    let said: Vec<&Token> = reading
        .head
        .content
        .iter()
        .map(|&t| &reading.tokens[t])
        .collect();
    if said.is_empty() {
        return;
    }
    let Some(top) = (0..scores.len()).max_by(|a, b| scores[*a].total_cmp(&scores[*b])) else {
        return;
    };
    let lead = scores[top];
    let facts = &screen.structure.facts;
    if lead <= 0.0 || said.iter().any(|q| word_match(q, &facts[top].label) >= 0.7) {
        return;
    }
    let named = |i: usize| {
        let label: Vec<&Token> = facts[i]
            .label
            .iter()
            .filter(|t| !lexicon::is_in(lexicon::STOPWORDS, &t.norm))
            .collect();
        !label.is_empty()
            && said.iter().all(|q| word_match(q, &facts[i].label) >= 0.9)
            && label
                .iter()
                .all(|l| said.iter().any(|q| pair_match(q, l) >= 0.9))
    };
    let objects: Vec<usize> = (0..scores.len())
        .filter(|&i| i != top && !facts[i].disabled && named(i))
        .collect();
    if let [object] = objects.as_slice() {
        scores[*object] = scores[*object].max(lead);
    }
}

/// `reading` with the kind noun `noun` read as a plain word of its phrase.
/// The reading without its qualifier, when that names only a kind of container
/// ([`lexicon::CONTAINER_NOUNS`]) that nothing on screen says.
fn without_unseen_container<'a>(
    reading: &Reading<'a>,
    structure: &Structure,
) -> Option<Reading<'a>> {
    let qualifier = &reading.qualifier.content;
    let container = !qualifier.is_empty()
        && qualifier.iter().all(|&t| {
            let word = &reading.tokens[t];
            lexicon::is_in(lexicon::CONTAINER_NOUNS, &word.stem) && !said_on_screen(word, structure)
        });
    container.then(|| {
        let mut plain = reading.clone();
        plain.qualifier = utterance::Phrase::default();
        plain
    })
}

fn without_kind<'a>(reading: &Reading<'a>, noun: RoleNoun) -> Reading<'a> {
    let mut plain = reading.clone();
    let mut phrases = vec![&mut plain.head, &mut plain.qualifier];
    if let Some(relation) = plain.relation.as_mut() {
        phrases.push(&mut relation.head);
        phrases.push(&mut relation.anchor);
    }
    for phrase in phrases {
        if phrase.kind == Kind::Role(noun) {
            kind_as_word(phrase);
        }
    }
    plain
}

/// The phrase's kind noun read as one of its words ("the options" as the word "options").
fn kind_as_word(phrase: &mut utterance::Phrase) {
    if let Some(t) = phrase.kind_token.take() {
        phrase.content.push(t);
        phrase.content.sort_unstable();
    }
    phrase.kind = Kind::Plain;
}

/// "The file below gitignore" in a table: the element at the anchor's place in the next (or
/// previous) row of several controls, when the anchor's row has more than itself; rows are the
/// contexts in reading order.
fn vertical(
    structure: &Structure,
    anchor: usize,
    down: bool,
    usable: &dyn Fn(usize) -> bool,
) -> Option<usize> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for i in (0..structure.facts.len()).filter(|&i| usable(i) || i == anchor) {
        let slot = structure.facts[i].context_slot;
        match rows
            .iter_mut()
            .find(|r| structure.facts[r[0]].context_slot == slot)
        {
            Some(r) => r.push(i),
            None => rows.push(vec![i]),
        }
    }
    let row = rows.iter().position(|r| r.contains(&anchor))?;
    if rows[row].len() < 2 {
        return None;
    }
    let place = rows[row].iter().position(|&i| i == anchor)?;
    let next = if down { row + 1 } else { row.checked_sub(1)? };
    rows.get(next)?.get(place).copied()
}

/// A label that is a web address rather than a name.
fn is_address(label: &str) -> bool {
    let l = label.trim();
    l.contains("://") || l.starts_with("www.")
}

/// The element's description says every meaningful word of its label, and more.
fn says_the_label(f: &crate::director::observation::ElementFacts) -> bool {
    let meaningful: Vec<&Token> = f
        .label
        .iter()
        .filter(|t| !lexicon::is_in(lexicon::STOPWORDS, &t.norm))
        .collect();
    !meaningful.is_empty()
        && f.description.len() > meaningful.len()
        && meaningful
            .iter()
            .all(|q| f.description.iter().any(|d| pair_match(q, d) >= 0.9))
}

/// Every content word of `label` is one of `words` ("Vote" in "submit my vote", "Asan Imza"
/// in "sign in with Asan Imza"); a label of small words only is named by nothing.
fn names_in_full(words: &[&Token], label: &[Token]) -> bool {
    let label = lexicon::content_words(label);
    !label.is_empty()
        && label
            .iter()
            .all(|w| words.iter().any(|q| pair_match(q, w) >= 0.9))
}

/// The label adds to a place ("Add to Playlist", "Add to my list") that the request names after
/// its own "to", "in" or "into" ("save Chappie to my playlist"): every meaningful word of the
/// place is said there.
fn adds_to_the_place_said(reading: &Reading<'_>, label: &[Token]) -> bool {
    let into = |t: &Token| matches!(t.norm.as_str(), "to" | "in" | "into" | "onto");
    let [add, to, place @ ..] = label else {
        return false;
    };
    let adds = lexicon::concepts_in(std::slice::from_ref(add))
        .iter()
        .any(|(c, _)| lexicon::concept_name(*c) == "add");
    let Some(k) = reading.tokens[reading.begin..].iter().position(into) else {
        return false;
    };
    let said: Vec<&Token> = reading.tokens[reading.begin + k + 1..].iter().collect();
    adds && into(to) && names_in_full(&said, place)
}

/// The words that say the means: a qualifier opened by "with" ("sign in with my ID card"), or
/// a head opened by "using", "via" or "through" ("log in using Google"); empty otherwise.
fn means_said<'r>(reading: &'r Reading<'_>) -> Vec<&'r Token> {
    let means = |t: &Token| matches!(t.norm.as_str(), "with" | "using" | "via" | "through");
    let small = |t: &Token| matches!(t.norm.as_str(), "my" | "the" | "a" | "an" | "your" | "our");
    let words = |ids: &[usize]| ids.iter().map(|&i| &reading.tokens[i]).collect::<Vec<_>>();
    if let Some(&first) = reading.qualifier.content.first() {
        let opened = reading.tokens[reading.begin..first]
            .iter()
            .rev()
            .find(|t| !small(t))
            .is_some_and(means);
        return if opened {
            words(&reading.qualifier.content)
        } else {
            Vec::new()
        };
    }
    match reading.head.content.split_first() {
        Some((&first, rest)) if means(&reading.tokens[first]) => {
            words(rest).into_iter().filter(|t| !small(t)).collect()
        }
        _ => Vec::new(),
    }
}

/// Two elements sit in one row: the same context, or one's context holds the other's (a
/// paste's syntax link before its toolbar: "text 14 KB copy raw …" and "copy raw …").
fn same_row(observation: &crate::director::observation::Observation, a: usize, b: usize) -> bool {
    let (a, b) = (
        observation.elements[a].context.as_str(),
        observation.elements[b].context.as_str(),
    );
    !a.is_empty() && !b.is_empty() && (a.contains(b) || b.contains(a))
}

/// "the link next to print", "the word right after maudlin": the anchor is grounded as a
/// reference of its own; the target is its neighbour in reading order among the controls of
/// its row (the whole screen's controls when the row has no other), of the kind the head
/// names when any neighbour is of that kind. Beside means either neighbour, so two are asked
/// about. An anchor two elements fit equally gives each one's neighbours; an anchor nothing
/// fits gives nothing (the request is not read as the anchor itself).
fn score_beside(
    reading: &Reading<'_>,
    relation: &utterance::Relation,
    screen: Screen<'_>,
    action: ActionKind,
) -> Vec<f32> {
    let structure = screen.structure;
    let n = structure.facts.len();
    let mut scores = vec![0.0f32; n];
    let mut anchor_reading = reading.clone();
    anchor_reading.relation = None;
    anchor_reading.head = relation.anchor.clone();
    anchor_reading.qualifier = utterance::Phrase::default();
    anchor_reading.verb = Verb::Activate;
    anchor_reading.typing = None;
    anchor_reading.cue = Cue::Act;
    let anchors = score_once(&anchor_reading, screen, ActionKind::Click);
    let top = anchors.iter().copied().fold(0.0f32, f32::max);
    if top < 0.3 {
        return scores;
    }
    let mut named: Vec<usize> = (0..n).filter(|&i| anchors[i] >= 0.8 * top).collect();
    // Copies of one control (a header and a footer "Print") are one anchor.
    named.dedup_by(|b, a| structure.interchangeable(screen.observation, *a, *b));
    if named.len() > 2 {
        return scores;
    }
    let usable = |i: usize| {
        let f = &structure.facts[i];
        !f.disabled
            && f.class != RoleClass::Static
            && (action != ActionKind::Type || f.class == RoleClass::Editable)
    };
    let kind = match relation.head.kind {
        Kind::Role(noun) => Some(noun),
        _ => None,
    };
    for &anchor in &named {
        let row = structure.facts[anchor].context_slot;
        let mut peers: Vec<usize> = (0..n)
            .filter(|&i| usable(i) || i == anchor)
            .filter(|&i| structure.facts[i].context_slot == row)
            .collect();
        if peers.len() < 2 {
            peers = (0..n).filter(|&i| usable(i) || i == anchor).collect();
        }
        let fits = |i: &usize| fits_kind(kind, screen, *i);
        if kind.is_some() && !peers.iter().any(|i| *i != anchor && fits(i)) {
            // "the button next to print" where the toolbar is links: people call both buttons.
        } else {
            peers.retain(|i| *i == anchor || fits(i));
        }
        let Some(at) = peers.iter().position(|&i| i == anchor) else {
            continue;
        };
        let before = at.checked_sub(1).map(|k| peers[k]);
        let after = peers.get(at + 1).copied();
        let picked = match relation.side {
            utterance::Side::After => vec![after],
            utterance::Side::Before => vec![before],
            utterance::Side::Beside => vec![before, after],
            utterance::Side::Below | utterance::Side::Above => {
                vec![vertical(
                    structure,
                    anchor,
                    relation.side == utterance::Side::Below,
                    &usable,
                )
                .or(if relation.side == utterance::Side::Below {
                    after
                } else {
                    before
                })]
            }
        };
        let mut picked: Vec<usize> = picked.into_iter().flatten().collect();
        // "the search button next to the search field", where the field's own form (a row of
        // its own) holds the button right after it and the header row a farther one: a control
        // of the kind said that is closer in reading order, in any row, is the one beside it.
        if kind.is_some()
            && relation.side != utterance::Side::Below
            && relation.side != utterance::Side::Above
        {
            let distance = |i: usize| i.abs_diff(anchor);
            let nearest_row = picked
                .iter()
                .map(|&i| distance(i))
                .min()
                .unwrap_or(usize::MAX);
            let sides: &[bool] = match relation.side {
                utterance::Side::After => &[true],
                utterance::Side::Before => &[false],
                _ => &[false, true],
            };
            let closer: Vec<usize> = sides
                .iter()
                .filter_map(|&after| {
                    let near = |i: &usize| usable(*i) && fits(i);
                    if after {
                        (anchor + 1..n).find(near)
                    } else {
                        (0..anchor).rev().find(near)
                    }
                })
                .filter(|&i| distance(i) < nearest_row)
                .collect();
            if let Some(best) = closer.iter().map(|&i| distance(i)).min() {
                picked = closer
                    .into_iter()
                    .filter(|&i| distance(i) == best)
                    .collect();
            }
        }
        for i in picked {
            scores[i] = scores[i].max(0.9);
        }
        // "the little button next to Como Fazer" where an unlabelled button is described by
        // those words: the words may be the text beside that very button, so it is asked about
        // with its neighbours.
        if structure.facts[anchor].label.is_empty() && usable(anchor) {
            scores[anchor] = scores[anchor].max(0.9);
        }
    }
    scores
}

/// "rider number 13", "the third rider": a counted noun that no label, description or row on
/// screen says is the name of the things counted, like "story" in "the third story".
fn unseen_noun_as_kind<'a>(reading: &Reading<'a>, structure: &Structure) -> Option<Reading<'a>> {
    if structure.items.is_empty() {
        return None;
    }
    let mut counted = reading.clone();
    let mut changed = false;
    for phrase in [&mut counted.head, &mut counted.qualifier] {
        if phrase.kind != Kind::Plain || phrase.ordinal.is_none() || phrase.content.len() != 1 {
            continue;
        }
        let t = phrase.content[0];
        let word = &reading.tokens[t];
        let seen = word.is_number() || said_on_screen(word, structure);
        if !seen {
            phrase.content.clear();
            phrase.kind = Kind::Item;
            phrase.kind_token = Some(t);
            changed = true;
        }
    }
    changed.then_some(counted)
}

/// A label, description or row on screen says `word`.
fn said_on_screen(word: &Token, structure: &Structure) -> bool {
    structure.facts.iter().enumerate().any(|(i, f)| {
        word_match(word, &f.label) >= 0.7
            || word_match(word, &f.description) >= 0.7
            || word_match(word, structure.context(i)) >= 0.7
    })
}

/// The reading with its item or section noun taken as a content word, when some label on
/// screen has that word and the noun is not counted ("the third story" counts stories).
fn kind_noun_as_label_word<'a>(
    reading: &Reading<'a>,
    structure: &Structure,
) -> Option<Reading<'a>> {
    let mut literal = reading.clone();
    let mut changed = false;
    for phrase in [&mut literal.head, &mut literal.qualifier] {
        if !matches!(phrase.kind, Kind::Item | Kind::Section) || phrase.ordinal.is_some() {
            continue;
        }
        let Some(t) = phrase.kind_token else {
            continue;
        };
        let word = &reading.tokens[t];
        // Also through the glosses of a one-word label ("the products" / "Produkter"; not "the
        // article headline" / "Alle Artikel").
        let on_screen = structure.facts.iter().any(|f| {
            f.label.iter().any(|l| l.stem == word.stem)
                || (f.label.len() == 1 && f.glosses.iter().any(|g| g.stem == word.stem))
        });
        if on_screen {
            kind_as_word(phrase);
            changed = true;
        }
    }
    changed.then_some(literal)
}

fn score_once(reading: &Reading<'_>, screen: Screen<'_>, action: ActionKind) -> Vec<f32> {
    let words = read_words(reading, screen.structure);
    let scene = read_scene(reading, &words, screen);
    let mut tally = Tally {
        head_best: vec![0.0f32; words.head.len()],
        qual_best: vec![0.0f32; words.qual.len()],
        context_memo: Vec::new(),
        label_memo: std::collections::HashMap::new(),
    };
    let mut scores: Vec<f32> = (0..screen.structure.facts.len())
        .map(|i| score_element(reading, screen, action, &words, &scene, &mut tally, i))
        .collect();
    weaken_for_unmet_words(
        reading,
        screen.structure,
        action,
        &words,
        &tally,
        &mut scores,
    );
    sees_no_change(reading, screen.structure, &mut scores);
    points_at_nothing(reading, screen.structure, &mut scores);
    apply_ordinals(reading, screen, &mut scores);
    apply_relative(reading, screen, &mut scores);
    scores
}

/// "hide that", "delete this": the verb is all that is said, and "this" or "that" points at
/// something the person sees. A control whose label names its own object besides the verb
/// ("Hide Obsolete", "Delete account") may be another thing than the one meant: asked about,
/// not clicked. One that is the verb alone ("Hide", "Like", "Up vote" for "upvote") is the
/// verb's control. "it" is the page's own thing ("print it" on a recipe is "Print Recipe").
fn points_at_nothing(reading: &Reading<'_>, structure: &Structure, scores: &mut [f32]) {
    let Verb::Specific { tokens: verb, .. } = &reading.verb else {
        return;
    };
    let rest = &reading.tokens[verb.end.min(reading.tokens.len())..];
    let demonstrative = |t: &Token| matches!(t.norm.as_str(), "this" | "that");
    let pointed = rest.iter().any(demonstrative)
        && rest.iter().all(|t| demonstrative(t) || t.norm == "please");
    if !pointed || verb.start < reading.begin {
        return;
    }
    let said = &reading.tokens[verb.clone()];
    let joined: String = said.iter().map(|t| t.norm.as_str()).collect();
    for (score, f) in scores.iter_mut().zip(&structure.facts) {
        let label: String = f.label.iter().map(|t| t.norm.as_str()).collect();
        let own_object = label != joined
            && f.label.iter().any(|w| {
                w.norm.chars().count() >= 3
                    && w.norm.chars().all(char::is_alphabetic)
                    && !lexicon::is_in(lexicon::STOPWORDS, &w.norm)
                    && !said.iter().any(|v| pair_match(v, w) >= 0.7)
            });
        if own_object {
            *score *= 0.45;
        }
    }
}

/// "show me the changes" asks to see something: a control whose label begins with a verb that
/// changes, sends or removes ("Save Changes", "Delete comment") shows nothing, whatever else
/// its label shares with the request, unless the request says that verb too.
fn sees_no_change(reading: &Reading<'_>, structure: &Structure, scores: &mut [f32]) {
    let views = reading.verb == Verb::Activate
        && reading
            .tokens
            .get(reading.begin)
            .is_some_and(|t| lexicon::is_in(lexicon::VIEW_VERBS, &t.norm));
    if !views {
        return;
    }
    for (score, f) in scores.iter_mut().zip(&structure.facts) {
        let Some(first) = f.label.first() else {
            continue;
        };
        let changes = lexicon::changes_something(&first.norm)
            && !reading.tokens.iter().any(|t| t.stem == first.stem);
        if changes {
            *score *= 0.3;
        }
    }
}

/// One element's score for the reading, in [0, 1]; 0 when a hard constraint excludes it.
fn score_element<'s>(
    reading: &Reading<'_>,
    screen: Screen<'s>,
    action: ActionKind,
    words: &Words<'_>,
    scene: &Scene,
    tally: &mut Tally<'s>,
    i: usize,
) -> f32 {
    let structure = screen.structure;
    let typing = reading.typing.as_ref();
    let Words {
        head,
        qual,
        verb_tokens,
        verb_concepts,
        head_seen,
        rest,
        replace,
        head_w,
        qual_w,
        head_c,
        qual_c,
        verb_word,
        who,
        head_q,
        qual_q,
        verb_q,
        replace_q,
    } = words;
    let Tally {
        head_best,
        qual_best,
        context_memo,
        label_memo,
    } = tally;
    let (search_concept, any_search_field, text_fields) = (
        scene.search_concept,
        scene.any_search_field,
        scene.text_fields,
    );
    let (specific, has_items, relative) = (scene.specific, scene.has_items, scene.relative);
    let (head_around, qual_around) = (scene.head_around, scene.qual_around);
    let (unnamed_toggle, toggles_to) = (scene.unnamed_toggle, scene.toggles_to);
    let (items_with_primary, items_with_toggle) =
        (&scene.items_with_primary, &scene.items_with_toggle);
    let editables = scene.editables;
    let is_search_field = |i: usize| is_search_field(screen, search_concept, i);
    let f = &structure.facts[i];
    let element = &screen.observation.elements[i];
    if f.disabled || f.class == RoleClass::Static {
        return 0.0;
    }
    let mut factor = 1.0f32;
    match action {
        ActionKind::Type if f.class != RoleClass::Editable => return 0.0,
        // A closed list (a <select>) takes a choice and a read-only field nothing: never
        // typed text, unless the text is one of the list's choices ("my birthday is on the
        // 14th" beside a day list of 1 to 31).
        ActionKind::Type
            if !element.accepts_text()
                && typed_choice(typed_text(reading), &element.options).is_none() =>
        {
            return 0.0
        }
        // Clicking a field is rarely meant, unless the words call it one ("the name field").
        ActionKind::Click
            if f.class == RoleClass::Editable
                && !matches!(
                    reading.head.kind,
                    Kind::Role(RoleNoun::Field | RoleNoun::Editable)
                ) =>
        {
            factor *= 0.6
        }
        _ => {}
    }
    if reading.verb == Verb::Toggle && f.class != RoleClass::Toggle {
        factor *= 0.8;
    }
    // "tick the ingredient" beside a button whose label says ingredients: only a checkbox is
    // ticked, so anything else is at most asked about.
    let checkbox_verb = reading.verb == Verb::Toggle
        && reading
            .tokens
            .get(reading.begin)
            .is_some_and(|t| lexicon::is_in(lexicon::CHECKBOX_VERBS, &t.norm));
    let mut synonym_only = checkbox_verb && f.class != RoleClass::Toggle;
    // "switch it off", "turn that on": a state verb that names nothing
    // means a switch, one in the state the verb changes.
    if unnamed_toggle {
        let on = element.has_state("checked") || element.has_state("pressed");
        if f.class != RoleClass::Toggle || toggles_to == Some(on) {
            return 0.0;
        }
    }
    let label_concepts = &f.label_concepts;
    let mut explained = 0.0f32;
    let mut total = 0.0f32;
    let mut label_hits = vec![false; f.label.len()];
    let mark = |q: &Token, hits: &mut [bool]| {
        for (k, w) in f.label.iter().enumerate() {
            if pair_match(q, w) >= 0.7 {
                hits[k] = true;
            }
        }
    };

    // A specific verb must be the element's own word or meaning.
    if !verb_tokens.is_empty() {
        // An unnamed control (an icon) is called by its description: a tooltip, or where it
        // goes and its class names as the scan read them. That may say its action ("facebook
        // share", "print"); it never adds to what the label explains.
        let unnamed = f.label.is_empty();
        let called: &[Token] = if unnamed { &f.description } else { &f.label };
        let described;
        let called_concepts = if unnamed {
            described = lexicon::concepts_in(called);
            &described
        } else {
            label_concepts
        };
        // A verb names an action label ("Add to cart", "Share this
        // page"), so it must be among a long label's first words:
        // "report" in a mail subject is not a Report button.
        let meaningful = called
            .iter()
            .filter(|t| !lexicon::is_in(lexicon::STOPWORDS, &t.norm))
            .count();
        // An icon's description is read whole: its words are class names and where it goes, in
        // no order ("jvdzf animated kuzh share"), not a sentence whose verb comes first.
        let zone = if meaningful > 3 && !unnamed {
            called.len().min(2)
        } else {
            called.len()
        };
        // "You must be signed in to star a repository", "Log in to reply": a label that states
        // its precondition names its action after "to".
        let after_to = called
            .windows(2)
            .position(|w| {
                w[0].norm == "to" && verb_tokens.first().is_some_and(|v| v.stem == w[1].stem)
            })
            .map_or(0.0, |_| 1.0);
        // The control's own name: a verb's "-ing" form is its verb ("vote" / "voting plus").
        let by_word = label_match(verb_q, &called[..zone])
            .into_iter()
            .fold(1.0f32, f32::min)
            .max(after_to);
        let zone_concepts: Vec<(usize, std::ops::Range<usize>)> = called_concepts
            .iter()
            .filter(|(_, r)| r.start < zone)
            .cloned()
            .collect();
        let (by_concept, covered) = concept_strength(called, &zone_concepts, verb_concepts);
        // A tooltip that says the label and more ("Share on Facebook" on "Facebook") is the
        // control's fuller name: the verb may be its first words.
        let fuller = if !unnamed && !f.description.is_empty() && says_the_label(f) {
            let zone = f.description.len().min(2);
            let said = phrase_match(verb_q, &f.description[..zone])
                .into_iter()
                .fold(1.0f32, f32::min);
            let concepts: Vec<(usize, std::ops::Range<usize>)> =
                lexicon::concepts_in(&f.description)
                    .into_iter()
                    .filter(|(_, r)| r.start < zone)
                    .collect();
            said.max(concept_strength(&f.description, &concepts, verb_concepts).0)
        } else {
            0.0
        };
        // "Share This: Twitter Facebook Email", "Share on Facebook Twitter …": a row headed by
        // the verb offers it through each of its links.
        let row = structure.context(i);
        let headed = if !unnamed
            && row.len() > verb_q.len()
            && !f.label.iter().any(|w| w.norm == row[0].norm)
        {
            let said = phrase_match(verb_q, &row[..verb_q.len()])
                .into_iter()
                .fold(1.0f32, f32::min);
            if said >= 0.9 {
                0.85
            } else {
                0.0
            }
        } else {
            0.0
        };
        // Only a button's: a link's label names where it goes ("Olympische Spiele" is games,
        // not "play").
        let glossed = if unnamed || element.role != "button" {
            0.0
        } else {
            verb_in_glosses(screen, &called[..zone], verb_tokens, verb_concepts)
        };
        // A link to a file offers what is done with that kind of file ("play this episode" on
        // an .mp3, "download the poster" on a .pdf), whatever its label says.
        // Not when a control adds to the place the request names ("save Chappie to my
        // playlist" beside "Add to Playlist" does not download the trailer).
        let by_file = match (&element.destination, verb_tokens.first()) {
            (Some(d), Some(v))
                if element.role == "link"
                    && lexicon::file_offers(d, &v.norm)
                    && !screen
                        .structure
                        .facts
                        .iter()
                        .any(|g| adds_to_the_place_said(reading, &g.label)) =>
            {
                0.9
            }
            _ => 0.0,
        };
        // A label that names an order sorts ("sort by popular" on "Popular Shots").
        let by_order = match verb_tokens.first() {
            Some(v) if lexicon::order_offers(&f.label, &v.norm) => 0.9,
            _ => 0.0,
        };
        // "submit my vote" on "Vote", "send your reply" on "Reply": a control named by what is
        // sent, and by nothing else, sends it; not something already there, sent on to
        // someone ("send this review to a friend").
        let sends_it = verb_concepts
            .iter()
            .any(|c| matches!(lexicon::concept_name(*c), "send" | "post"))
            && !unnamed
            && reading.qualifier.content.is_empty()
            && !reading
                .head
                .span
                .iter()
                .any(|&t| lexicon::is_in(lexicon::POINTING, &reading.tokens[t].norm))
            && names_in_full(head, &f.label);
        // "follow them on social media", "follow Firefox on Twitter": a link to a social
        // network's page is how one follows there; not one that shares this page.
        let follows_there = verb_concepts
            .iter()
            .any(|c| lexicon::concept_name(*c) == "follow")
            && element.role == "link"
            && (f
                .site
                .as_deref()
                .is_some_and(|s| lexicon::is_in(lexicon::SOCIAL_NETWORKS, s))
                || f.label
                    .iter()
                    .any(|w| lexicon::is_in(lexicon::SOCIAL_NETWORKS, &w.norm)))
            && !f
                .destination
                .iter()
                .any(|w| matches!(w.norm.as_str(), "share" | "sharer" | "intent" | "sharing"));
        // "log in to my account" on *account* going to /login/home, "sign in" on *Ingresa*
        // going to /account/signin: a link goes where its verb is done, whatever its label
        // says; weaker than its own name.
        let goes_to_verb = element.role == "link"
            && !f.destination.is_empty()
            && lexicon::concepts_in(&account_words(&f.destination))
                .iter()
                .any(|(c, _)| {
                    verb_concepts.contains(c)
                        && matches!(
                            lexicon::concept_name(*c),
                            "login" | "logout" | "signup" | "contact"
                        )
                });
        // "sign in with Asan Imza", "log in using Google": the means said after a sign-in verb
        // names the control that signs in that way (a method's tab, a provider's button) when
        // it names all of its label.
        let by_means = verb_concepts
            .iter()
            .any(|c| matches!(lexicon::concept_name(*c), "login" | "signup"))
            && !unnamed
            && names_in_full(&means_said(reading), &f.label);
        // "save Chappie to my playlist" on "Add to Playlist": keeping something in a place is
        // adding it there, so a control that adds to the place said after "to" does it.
        let adds_there = verb_concepts
            .iter()
            .any(|c| matches!(lexicon::concept_name(*c), "save" | "add"))
            && !unnamed
            && adds_to_the_place_said(reading, &f.label);
        let m = by_word
            .max(by_concept)
            .max(if by_means { 0.85 } else { 0.0 })
            .max(if adds_there { 0.85 } else { 0.0 })
            .max(if goes_to_verb { 0.8 } else { 0.0 })
            .max(if follows_there { 0.85 } else { 0.0 })
            .max(fuller)
            .max(headed)
            .max(if sends_it { 0.85 } else { 0.0 })
            .max(glossed)
            .max(by_file)
            .max(by_order)
            .max(undoes(verb_tokens, &called[..zone], element));
        if m < 0.75 {
            return 0.0;
        }
        // "flag lucaspiller's comment" on a Report button: a destructive control is acted on
        // when its own word is said; a synonym only asks.
        if by_word < 0.75 && semantic::destructive(called) {
            synonym_only = true;
        }
        explained += m;
        total += 1.0;
        for q in verb_tokens {
            mark(q, &mut label_hits);
        }
        if !unnamed {
            covered.into_iter().for_each(|k| label_hits[k] = true);
        }
    }

    // Kind nouns constrain what sort of element is meant.
    for phrase in [&reading.head, &reading.qualifier] {
        match phrase.kind {
            Kind::Role(r) if !role_fits(r, f.class, &element.role) => {
                // "the user menu" for a button labelled "User account
                // menu": the noun is the label's own word.
                let own_word = phrase
                    .kind_token
                    .is_some_and(|t| word_match(&reading.tokens[t], &f.label) >= 0.9);
                if !own_word {
                    factor *= if drawn_as(r, &element.role) {
                        0.85
                    } else {
                        0.4
                    };
                }
            }
            Kind::Footnote if !f.footnote => factor = 0.0,
            // "the author's profile" is the byline; "donate to the author", "reply to the
            // author" act on something else, for or beside the author.
            Kind::Author if !f.byline && std::ptr::eq(phrase, &reading.head) => factor = 0.0,
            Kind::Author if !f.byline => factor *= 0.8,
            Kind::Section if !f.section => factor *= 0.8,
            Kind::Item if f.section => factor *= 0.8,
            _ => {}
        }
    }
    // "show me who works there" names people, not the tab *Work* its verb says.
    if let Some(member) = *who {
        if !f.label_concepts.iter().any(|(c, _)| *c == member) {
            factor *= 0.8;
        }
    }
    // "the second one" over a list counts its items as "the second story" does.
    let counted_one = reading.head.kind == Kind::One && reading.head.ordinal.is_some();
    let wants_primary = (reading.head.kind == Kind::Item || counted_one)
        && !reading.head.plural
        && !specific
        && !relative
        && has_items;
    // "select the AWS email", "tick the second row": a state verb on an
    // item means the item's own checkbox when it has one.
    let item_toggle = f
        .item_slot
        .is_some_and(|slot| items_with_toggle.contains(&slot));
    if wants_primary && reading.verb == Verb::Toggle && item_toggle {
        if f.class != RoleClass::Toggle {
            factor = 0.0;
        }
    } else if wants_primary && !f.primary {
        // Inside a list item, only its main link is "the story"; outside
        // any item, or in items without a main link, it is weaker.
        let item_has_primary = f
            .item_slot
            .is_some_and(|slot| items_with_primary.contains(&slot));
        factor *= if item_has_primary { 0.0 } else { 0.5 };
    }
    if factor == 0.0 {
        return 0.0;
    }

    let item_text = structure.item_text(i);
    let context: &[Token] = if item_text.is_empty() {
        structure.context(i)
    } else {
        item_text
    };
    // Repeated labels ("upvote", "hide") are matched once.
    let (head_label, qual_label, said) = match label_memo.get(element.label.as_str()) {
        Some(memo) => memo.clone(),
        None => {
            let said: Vec<bool> = f
                .label
                .iter()
                .map(|w| {
                    head.iter()
                        .chain(qual.iter())
                        .any(|q| pair_match(q, w) >= 0.7)
                })
                .collect();
            let memo = (
                label_match(head_q, &f.label),
                label_match(qual_q, &f.label),
                said,
            );
            label_memo.insert(element.label.as_str(), memo.clone());
            memo
        }
    };
    for (hit, s) in label_hits.iter_mut().zip(&said) {
        *hit |= *s;
    }
    let head_desc = phrase_match(head_q, &f.description);
    let head_dest = phrase_match(head_q, &f.destination);
    let head_gloss = phrase_match(head_q, &f.glosses);
    let ctx_key = (f.item_slot, element.context.as_str());
    let (head_ctx, qual_ctx) = match context_memo.iter().find(|(k, _, _)| *k == ctx_key) {
        Some((_, h, q)) => (h.clone(), q.clone()),
        None => {
            let h = phrase_match(head_q, context);
            let q = phrase_match(qual_q, context);
            context_memo.push((ctx_key, h.clone(), q.clone()));
            (h, q)
        }
    };
    let mut head_hit = reading.head.kind != Kind::Plain || !head_seen.iter().any(|x| *x);
    let mut label_content_hit = false;
    let mut noun_missed = false;
    let mut noun_k: Option<usize> = None;
    // An unlabelled control is named by its description: its concepts too ("aktualne logo"
    // is the home link).
    let described_concepts = if f.label.is_empty() && !f.description.is_empty() {
        lexicon::concepts_in(&f.description)
    } else {
        Vec::new()
    };
    let all_elsewhere = label_all_counts_another(&f.label, label_concepts, head, qual);
    for k in 0..head.len() {
        let (mut c, covered) = concept_strength(&f.label, label_concepts, &head_c[k]);
        let mut head_label_k = head_label[k];
        // The request's "all" counts a noun of its own ("all the foods"), not "everything
        // else Johanna wrote" (*Alle Artikel*).
        let counts_a_noun =
            head[k].norm != "everything" && head.get(k + 1).is_some_and(|next| next.norm != "else");
        if all_elsewhere
            && counts_a_noun
            && head_c[k].iter().any(|&x| lexicon::concept_name(x) == "all")
        {
            (c, head_label_k) = (0.0, 0.0);
        }
        let described = if described_concepts.is_empty() {
            0.0
        } else {
            concept_strength(&f.description, &described_concepts, &head_c[k]).0 * 0.9
        };
        // A label that is an address ("http://datatracker.ietf.org/…") holds words, not a name.
        let addressed = if is_address(&element.label) {
            0.85
        } else {
            1.0
        };
        // "the search box" for a field that is one by its row (a Search button beside it).
        let searches = match search_concept {
            Some(sc)
                if head_c[k].contains(&sc)
                    && f.class == RoleClass::Editable
                    && is_search_field(i) =>
            {
                0.9
            }
            _ => 0.0,
        };
        // "the home page" for a link to the site's front page, whatever its label says (a
        // logo, the site's name), when the other words name the site too ("the Houzz home
        // page"), not something of it ("the story's main page").
        // "The logo" is the picture itself, not any link home.
        let is_home = |k: usize| {
            head[k].norm != "logo"
                && head_c[k]
                    .iter()
                    .any(|c| lexicon::concept_name(*c) == "home")
        };
        let home = if f.home
            && is_home(k)
            && !matches!(
                reading.head.kind,
                Kind::Item | Kind::Section | Kind::Author | Kind::Footnote
            )
            && head.iter().enumerate().all(|(j, q)| {
                is_home(j)
                    || lexicon::is_in(lexicon::STOPWORDS, &q.norm)
                    || head_label[j] >= 0.7
                    || word_match(q, &structure.title) >= 0.9
            })
            && qual.iter().all(|q| {
                lexicon::is_in(lexicon::STOPWORDS, &q.norm)
                    || word_match(q, &f.label) >= 0.7
                    || word_match(q, &structure.title) >= 0.9
            }) {
            0.9
        } else {
            0.0
        };
        let own = (head_label_k * addressed)
            .max(c)
            .max(described)
            .max(searches)
            .max(home)
            .max(head_desc[k] * description_weight(&f.description))
            .max(head_dest[k] * destination_weight(scene.head_unsaid[k]))
            .max(gloss_strength(head_gloss[k]));
        // "show the raw text" beside a toolbar's "raw": the row's "raw" is that control's
        // name, not a description of the "text" link next to it.
        let neighbours_name = !specific
            && own < 0.7
            && scene.head_named[k]
                .iter()
                .any(|&j| j != i && same_row(screen.observation, i, j));
        let head_ctx_k = if neighbours_name { 0.0 } else { head_ctx[k] };
        // "the points shopping": Earn points and Use points in the menu the Shopping button
        // heads; the noun names the menu they are part of.
        let in_named_menu = k + 1 == head.len()
            && reading.head.kind == Kind::Plain
            && scene.head_named[k]
                .iter()
                .any(|&j| observation::menu_under(screen.observation, i, j));
        let menu = if in_named_menu { 0.8 } else { 0.0 };
        let m = own.max(head_ctx_k * head_around).max(menu);
        head_best[k] = head_best[k].max(m);
        label_content_hit |= own >= 0.7;
        let fits =
            own >= 0.7 || in_named_menu || head_ctx_k * head_around >= 0.63 && head_around > 0.5;
        if fits {
            head_hit = true;
        }
        // The head noun is the last word ("the director branch"): when
        // the screen has that word, the target must have it too. A noun of presentation
        // ("the raw text", "the mobile version", "the print view") is often left out of the
        // label ("raw", "Mobile"), so its modifier may name the target alone.
        let presentation =
            head.len() > 1 && lexicon::is_in(lexicon::PRESENTATION_NOUNS, &head[k].norm);
        if reading.head.kind == Kind::Plain
            && k + 1 == head.len()
            && head_seen[k]
            && !fits
            && !presentation
        {
            noun_missed = true;
        }
        noun_k = Some(k);
        explained += head_w[k] * m;
        total += head_w[k];
        covered.into_iter().for_each(|k| label_hits[k] = true);
    }
    // The head names the target; an element that matches only the
    // qualifier ("the comments on X" vs the title of X) is the wrong kind.
    // A label said in full ("Downloads" for "the downloads folder") makes
    // the head noun a category word, not a requirement.
    let said_in_full = {
        let meaningful: Vec<usize> = (0..f.label.len())
            .filter(|&k| !lexicon::is_in(lexicon::STOPWORDS, &f.label[k].norm))
            .collect();
        !meaningful.is_empty() && meaningful.iter().all(|&k| label_hits[k])
    };
    // Unless the head noun is itself another control's whole name ("the game wiki" beside
    // "Game" and "Wiki": the Wiki); not after a possessive ("EvilSpark's pastes" are the
    // user's, beside a "paste" link) nor for a number ("diff two").
    let possessive = reading
        .head
        .span
        .iter()
        .any(|&t| reading.tokens[t].norm == "s");
    // A numbered part of the section the head noun names ("neutral gifts": "3.3 Neutral"
    // under "3 Gifts") is the thing meant, not a modifier of it.
    let labels = &screen.observation.elements;
    let noun_named_elsewhere = !possessive
        && noun_k.is_some_and(|k| {
            !head[k].is_number()
                && scene.head_named[k].iter().any(|&j| {
                    j != i && !observation::section_under(&labels[i].label, &labels[j].label)
                })
        });
    let noun_missed = noun_missed && (!said_in_full || noun_named_elsewhere) && noun_k.is_some();
    // "fact checks of Mike Pence": the qualifier says a name of two words or more in full, and
    // the head says what of it is wanted, which its link leads to; the head meeting nothing in
    // that label does not make it the wrong kind.
    let qualifier_names_label = !head_hit && {
        let meaningful: Vec<&Token> = f
            .label
            .iter()
            .filter(|w| !lexicon::is_in(lexicon::STOPWORDS, &w.norm))
            .collect();
        meaningful.len() >= 2
            && meaningful
                .iter()
                .all(|w| qual.iter().any(|q| pair_match(q, w) >= 0.7))
    };
    if (!head_hit || noun_missed) && !specific && !qualifier_names_label {
        factor *= 0.5;
    }
    let qual_desc = phrase_match(qual_q, &f.description);
    let qual_dest = phrase_match(qual_q, &f.destination);
    let qual_gloss = phrase_match(qual_q, &f.glosses);
    // "the second link under citizen services": the row's heading met through its glosses.
    let qual_ctx_gloss = phrase_match(qual_q, structure.context_glosses(i));
    for k in 0..qual.len() {
        let (c, covered) = concept_strength(&f.label, label_concepts, &qual_c[k]);
        let addressed = if is_address(&element.label) {
            0.85
        } else {
            1.0
        };
        let own = (qual_label[k] * addressed)
            .max(c)
            .max(qual_dest[k] * destination_weight(scene.qual_unsaid[k]))
            .max(gloss_strength(qual_gloss[k]));
        let ctx = qual_ctx[k].max(gloss_strength(qual_ctx_gloss[k]));
        let m = own.max(ctx * qual_around).max(qual_desc[k] * 0.9);
        label_content_hit |= own >= 0.7;
        qual_best[k] = qual_best[k].max(m);
        explained += qual_w[k] * m;
        total += qual_w[k];
        covered.into_iter().for_each(|k| label_hits[k] = true);
    }
    for q in &reading.implied {
        let qc = lexicon::concept_ids(std::slice::from_ref(q));
        let (c, covered) = concept_strength(&f.label, label_concepts, &qc);
        explained += 0.3 * word_match(q, &f.label).max(c);
        mark(q, &mut label_hits);
        covered.into_iter().for_each(|k| label_hits[k] = true);
    }

    // Typing: the field is named by its label, by search, or by its value.
    if action == ActionKind::Type {
        let search_field = is_search_field(i);
        if typing.is_some_and(|t| t.search) {
            // No field says "search": the one text field there is may be it (worth asking).
            let lone = !any_search_field && text_fields == 1;
            explained += if search_field {
                1.0
            } else if lone {
                0.6
            } else {
                0.3
            };
            total += 1.0;
            if let (true, Some(c)) = (search_field, search_concept) {
                for (cid, range) in label_concepts {
                    if *cid == c {
                        range.clone().for_each(|k| label_hits[k] = true);
                    }
                }
            }
        }
        if !rest.is_empty() {
            // "enter the username karl" names the field first; "type
            // karl" names none, which leaves every field possible.
            let take = rest.len().min(f.label.len().max(1) + 1);
            let prefix = phrase_match(&Query::new(rest[..take].to_vec()), &f.label);
            let m = prefix.iter().copied().fold(0.0f32, f32::max);
            let only_field = editables == 1 && element.has_state("focused");
            let unnamed = if only_field { 0.75 } else { 0.5 };
            explained += if m >= 0.75 { m } else { unnamed };
            total += 1.0;
        }
        // An email address goes where an email address is asked for, whatever the field is
        // called ("put jane@example.com in the newsletter box" / "Your Email Address"); in
        // any other field it may still be meant (a search for it).
        let typed = typed_text(reading);
        if typed.is_some_and(is_email_address) {
            let email = lexicon::CONCEPTS.iter().position(|(n, _)| *n == "email");
            let asks_for_it = label_concepts
                .iter()
                .chain(&lexicon::concepts_in(&f.description))
                .any(|(c, _)| Some(*c) == email);
            if asks_for_it {
                explained += 1.0;
                total += 1.0;
            }
        }
        // A value one of a closed list's choices says goes to that list, before any field of
        // the same name that would take it as free text.
        if element.is_closed_list() && typed_choice(typed, &element.options).is_some() {
            explained += 1.0;
            total += 1.0;
        }
        if !replace.is_empty() {
            let value = text::tokens(f.value.as_deref().unwrap_or(""));
            let m = phrase_match(replace_q, &value)
                .iter()
                .copied()
                .fold(1.0f32, f32::min);
            if m < 0.75 {
                return 0.0;
            }
            explained += m;
            total += 1.0;
        }
    }

    let coverage = if total > 0.0 {
        explained / total
    } else if reading.head.ordinal.is_some()
        || reading.qualifier.ordinal.is_some()
        || reading.head.kind != Kind::Plain
        || action == ActionKind::Type
        || unnamed_toggle
    {
        0.6
    } else {
        0.0
    };
    let mut bonus = 0.0;
    if let Some(v) = verb_word {
        if label_content_hit && f.label.iter().any(|w| w.stem == v.stem) {
            mark(v, &mut label_hits);
            bonus = 0.05;
        }
    }
    // A count after a label ("Bewertungen 1", "Inbox 3") is not a word anyone says.
    let last = f.label.len().saturating_sub(1);
    let meaningful: Vec<bool> = f
        .label
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let count = k == last && k > 0 && t.is_number();
            !count && !lexicon::is_in(lexicon::STOPWORDS, &t.norm)
        })
        .collect();
    let words = meaningful.iter().filter(|m| **m).count();
    let precision = if words == 0 {
        0.0
    } else {
        label_hits
            .iter()
            .zip(&meaningful)
            .filter(|(h, m)| **h && **m)
            .count() as f32
            / words as f32
    };
    // Saying every word of a label is strong evidence; saying some words
    // of two labels does not choose between them.
    let said = if precision >= 0.999 {
        0.2
    } else {
        0.1 * precision
    };
    let score = factor * (0.8 * coverage.min(1.0) + said + bonus);
    if synonym_only {
        score.min(semantic::ASK_SCORE)
    } else {
        score
    }
}

/// What the words say, read once per reading: the phrases' content words (without what the
/// verb's own meaning took), how much each weighs on this screen and what it means, and what
/// is to be typed.
struct Words<'r> {
    head: Vec<&'r Token>,
    qual: Vec<&'r Token>,
    verb_tokens: Vec<&'r Token>,
    verb_concepts: Vec<usize>,
    /// Whether each head word is in some possible target's own label.
    head_seen: Vec<bool>,
    rest: Vec<&'r Token>,
    replace: Vec<&'r Token>,
    head_w: Vec<f32>,
    qual_w: Vec<f32>,
    head_c: Vec<Vec<usize>>,
    qual_c: Vec<Vec<usize>>,
    /// A generic verb that is also a label's own word ("open" in "Open a file").
    verb_word: Option<&'r Token>,
    /// The members concept, when the words ask who (`asks_who`).
    who: Option<usize>,
    head_q: Query<'r>,
    qual_q: Query<'r>,
    verb_q: Query<'r>,
    replace_q: Query<'r>,
}

fn read_words<'r>(reading: &'r Reading<'_>, structure: &Structure) -> Words<'r> {
    let typing = reading.typing.as_ref();

    let head: Vec<&Token> = reading
        .head
        .content
        .iter()
        .map(|&i| &reading.tokens[i])
        .collect();
    let qual: Vec<&Token> = reading
        .qualifier
        .content
        .iter()
        .map(|&i| &reading.tokens[i])
        .collect();
    // "buy a ticket for this film", "share it with this group": a qualifier that points at
    // what is shown, in words no element says, is the page's own subject, not a requirement
    // some element must meet.
    let points_at_shown = reading
        .qualifier
        .span
        .iter()
        .any(|&t| matches!(reading.tokens[t].norm.as_str(), "this" | "these"));
    let qual = if points_at_shown && qual.iter().all(|q| !said_on_screen(q, structure)) {
        Vec::new()
    } else {
        qual
    };
    let verb_tokens: Vec<&Token> = match &reading.verb {
        Verb::Specific { tokens, .. } => tokens
            .clone()
            .enumerate()
            .filter(|(k, i)| {
                let t = &reading.tokens[*i];
                *k == 0
                    || !lexicon::is_in(lexicon::STOPWORDS, &t.norm)
                    || matches!(t.norm.as_str(), "in" | "up" | "on" | "out")
            })
            .map(|(_, i)| &reading.tokens[i])
            .collect(),
        _ => Vec::new(),
    };
    // The verb's meaning may span its object: "create an account" = sign up.
    let verb_concepts: Vec<usize> = match &reading.verb {
        Verb::Specific { concept, .. } => {
            let mut words: Vec<&Token> = verb_tokens.clone();
            words.extend(head.iter().copied());
            let mut cs: Vec<usize> = phrase_concepts(&words).first().cloned().unwrap_or_default();
            cs.extend(*concept);
            // "make a donation", "do a search", "leave a comment", "create a new account": a
            // light verb means what its noun names.
            let light = verb_tokens.first().is_some_and(|v| {
                matches!(
                    v.norm.as_str(),
                    "make" | "create" | "do" | "give" | "take" | "leave"
                )
            });
            if light {
                let object: Vec<Token> = head.iter().map(|t| (*t).clone()).collect();
                cs.extend(lexicon::concept_ids(&object));
            }
            // "add this to my favourites": adding to a place is that place's own action (save).
            let adds = verb_tokens
                .first()
                .is_some_and(|v| matches!(v.norm.as_str(), "add" | "put"));
            if adds {
                let dest: Vec<Token> = reading
                    .qualifier
                    .content
                    .iter()
                    .map(|&i| reading.tokens[i].clone())
                    .collect();
                cs.extend(lexicon::concept_ids(&dest));
            }
            cs
        }
        _ => Vec::new(),
    };
    // Head words that the verb's meaning consumed are not a description.
    let head: Vec<&Token> = if verb_concepts.is_empty() {
        head
    } else {
        let mut words: Vec<&Token> = verb_tokens.clone();
        words.extend(head.iter().copied());
        let owned: Vec<Token> = words.iter().map(|t| (*t).clone()).collect();
        let consumed = lexicon::concepts_in(&owned)
            .into_iter()
            .filter(|(c, r)| r.start == 0 && verb_concepts.contains(c))
            .map(|(_, r)| r.end)
            .max()
            .unwrap_or(0);
        let skip = consumed.saturating_sub(verb_tokens.len());
        head.into_iter().skip(skip).collect()
    };
    // "switch it off": the state word after a pronoun belongs to the verb.
    let head: Vec<&Token> = if reading.verb == Verb::Toggle {
        head.into_iter()
            .filter(|t| !matches!(t.norm.as_str(), "on" | "off"))
            .collect()
    } else {
        head
    };
    // Words that appear nowhere on screen, or only in the page title, cannot
    // tell elements apart.
    // Words that no possible target's own label has (or only the page
    // title has) cannot tell elements apart.
    let seen = |q: &Token| {
        !structure.title.iter().any(|t| t.stem == q.stem)
            && structure.facts.iter().any(|f| {
                !f.disabled
                    && f.class != RoleClass::Static
                    && f.label
                        .iter()
                        .chain(&f.description)
                        .any(|t| t.stem == q.stem)
            })
    };
    let head_seen: Vec<bool> = head.iter().map(|q| seen(q)).collect();
    let rest: Vec<&Token> = typing
        .and_then(|t| t.rest.clone())
        .or_else(|| reading.fill.clone().filter(|_| typing.is_none()))
        .map(|r| r.map(|i| &reading.tokens[i]).collect())
        .unwrap_or_default();
    let replace: Vec<&Token> = typing
        .and_then(|t| t.replace.clone())
        .map(|r| r.map(|i| &reading.tokens[i]).collect())
        .unwrap_or_default();
    // A noun of presentation after its modifier ("the raw text", "the print view") says
    // little: the modifier names the thing.
    let head_w: Vec<f32> = head
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let presentation = k > 0
                && k + 1 == head.len()
                && lexicon::is_in(lexicon::PRESENTATION_NOUNS, &q.norm);
            weight(q, structure) * if presentation { 0.5 } else { 1.0 }
        })
        .collect();
    let qual_w: Vec<f32> = qual.iter().map(|q| weight(q, structure)).collect();
    let mut head_c = span_concepts(reading, &reading.head, &head);
    // "show me who works there": a clause that begins with "who" asks for people; each of its
    // words also names the members.
    let who = asks_who(reading);
    if let Some(member) = who {
        for cs in head_c.iter_mut().filter(|cs| !cs.contains(&member)) {
            cs.push(member);
        }
    }
    let qual_c = span_concepts(reading, &reading.qualifier, &qual);
    let verb_word: Option<&Token> = match reading.verb {
        Verb::Activate | Verb::Toggle => reading.tokens.get(reading.begin),
        _ => None,
    };
    Words {
        head_q: Query::new(head.clone()),
        qual_q: Query::new(qual.clone()),
        verb_q: Query::new(verb_tokens.clone()),
        replace_q: Query::new(replace.clone()),
        head,
        qual,
        verb_tokens,
        verb_concepts,
        head_seen,
        rest,
        replace,
        head_w,
        qual_w,
        head_c,
        qual_c,
        verb_word,
        who,
    }
}

/// What the screen offers this reading, the same for every element.
struct Scene {
    search_concept: Option<usize>,
    any_search_field: bool,
    text_fields: usize,
    specific: bool,
    has_items: bool,
    head_around: f32,
    editables: usize,
    items_with_primary: Vec<usize>,
    unnamed_toggle: bool,
    toggles_to: Option<bool>,
    items_with_toggle: Vec<usize>,
    relative: bool,
    qual_around: f32,
    /// Per head word: the controls whose whole label is that word ("raw" in a toolbar). In
    /// their row the word is their name, not a description of their neighbours.
    head_named: Vec<Vec<usize>>,
    /// Per head and qualifier word: no label on screen says it, so where a link goes may
    /// ("review" in an address; not "support" beside a label "Super Supportive").
    head_unsaid: Vec<bool>,
    qual_unsaid: Vec<bool>,
}

fn read_scene(reading: &Reading<'_>, words: &Words<'_>, screen: Screen<'_>) -> Scene {
    let structure = screen.structure;
    let n = structure.facts.len();
    let (head, qual) = (&words.head, &words.qual);
    let search_concept = lexicon::CONCEPTS.iter().position(|(n, _)| *n == "search");
    let is_search_field = |i: usize| is_search_field(screen, search_concept, i);
    // Fields that take typed words: not a closed list, not a password.
    let text_field = |i: usize| {
        let e = &screen.observation.elements[i];
        structure.facts[i].class == RoleClass::Editable
            && e.accepts_text()
            && !e.is_closed_list()
            && !e.label.to_lowercase().contains("passw")
    };
    let any_search_field = (0..n).any(|i| text_field(i) && is_search_field(i));
    let unsaid = |q: &Token| {
        !structure
            .facts
            .iter()
            .any(|f| word_match(q, &f.label) >= 0.75)
    };
    let text_fields = (0..n).filter(|&i| text_field(i)).count();
    let specific = matches!(reading.verb, Verb::Specific { .. });
    let has_items = !structure.items.is_empty();
    // Words of the head describe the element itself, unless the head is an
    // item noun or the verb already named the element: then they describe
    // the item it sits in.
    let head_around = if (reading.head.kind == Kind::Item && !reading.head.plural) || specific {
        0.9
    } else {
        0.5
    };
    let editables = structure
        .facts
        .iter()
        .filter(|f| f.class == RoleClass::Editable)
        .count();
    let items_with_primary: Vec<usize> = structure
        .facts
        .iter()
        .filter(|f| f.primary)
        .filter_map(|f| f.item_slot)
        .collect();
    let unnamed_toggle = reading.verb == Verb::Toggle && head.is_empty() && qual.is_empty();
    // The state a state verb leaves: "off" -> off, "on" -> on.
    let toggles_to = reading.tokens[reading.begin..]
        .iter()
        .find_map(|t| match t.norm.as_str() {
            "off" => Some(false),
            "on" => Some(true),
            _ => None,
        });
    let items_with_toggle: Vec<usize> = structure
        .facts
        .iter()
        .filter(|f| f.class == RoleClass::Toggle)
        .filter_map(|f| f.item_slot)
        .collect();
    // "the next song", "the previous track" name a player or pager control,
    // not a list item.
    let relative = reading
        .head
        .concepts
        .iter()
        .any(|c| matches!(lexicon::concept_name(*c), "next" | "previous"));
    // A qualifier describes the item around the target when the head names
    // something else ("the comments on X"); when the head is the item
    // itself ("the one about X"), the target's own label should say it.
    let names_itself = match reading.head.kind {
        Kind::One => true,
        Kind::Item => reading.head.plural,
        Kind::Plain => head.is_empty(),
        _ => false,
    };
    let qual_around = if specific || !names_itself { 0.9 } else { 0.6 };
    let head_named: Vec<Vec<usize>> = head
        .iter()
        .map(|q| {
            (0..n)
                .filter(|&i| {
                    let f = &structure.facts[i];
                    let meaningful: Vec<&Token> = f
                        .label
                        .iter()
                        .filter(|t| !lexicon::is_in(lexicon::STOPWORDS, &t.norm))
                        .collect();
                    f.class != RoleClass::Static
                        && meaningful.len() == 1
                        && pair_match(q, meaningful[0]) >= 0.9
                })
                .collect()
        })
        .collect();
    Scene {
        search_concept,
        any_search_field,
        text_fields,
        specific,
        has_items,
        head_around,
        editables,
        items_with_primary,
        unnamed_toggle,
        toggles_to,
        items_with_toggle,
        relative,
        qual_around,
        head_named,
        head_unsaid: head.iter().map(|q| unsaid(q)).collect(),
        qual_unsaid: qual.iter().map(|q| unsaid(q)).collect(),
    }
}

/// A field for searching: its label or its item says search, or it is a searchbox.
fn is_search_field(screen: Screen<'_>, search_concept: Option<usize>, i: usize) -> bool {
    let structure = screen.structure;
    let e = &screen.observation.elements[i];
    search_concept.is_some_and(|c| {
        // Its label says search, or in another language its glosses ("Hledaný výraz": searched
        // term).
        says_concept(&structure.facts[i], c)
            || lexicon::concept_ids(structure.context(i)).contains(&c)
            || e.role == "searchbox"
            // A field with a Search button in its row ("ad es. ricette con i ceci" | Search).
            || (structure.facts[i].class == RoleClass::Editable
                && screen.observation.elements.iter().enumerate().any(|(j, b)| {
                    j != i
                        && b.role == "button"
                        && (b.context == e.context || only_text_field(screen, i))
                        && says_concept(&structure.facts[j], c)
                }))
    })
}

/// The people concept when the words ask for people with a clause ("show me who works
/// there", "see who reacted"): whatever its verb says, the clause describes persons.
fn asks_who(reading: &Reading<'_>) -> Option<usize> {
    let first = reading
        .head
        .span
        .first()
        .map(|&i| reading.tokens[i].norm.as_str());
    matches!(first, Some("who" | "whoever"))
        .then(|| lexicon::concept_named("member"))
        .flatten()
}

/// Whether the label says the concept, in its own words or (another language) its glosses.
fn says_concept(f: &observation::ElementFacts, c: usize) -> bool {
    f.label_concepts.iter().any(|(x, _)| *x == c) || lexicon::concept_ids(&f.glosses).contains(&c)
}

/// Whether element `i` is the one field on screen that takes typed text: a Search button
/// anywhere on that screen searches what is typed there.
fn only_text_field(screen: Screen<'_>, i: usize) -> bool {
    let takes_text = |j: usize| {
        screen.structure.facts[j].class == RoleClass::Editable
            && screen.observation.elements[j].accepts_text()
    };
    takes_text(i)
        && (0..screen.observation.elements.len())
            .filter(|&j| takes_text(j))
            .count()
            == 1
}

/// Elements of one row or list item share their context; repeated labels ("upvote", "hide")
/// are matched once.
type ContextMemo<'c> = ((Option<usize>, &'c str), Vec<f32>, Vec<f32>);
type LabelMemo = (Vec<f32>, Vec<f32>, Vec<bool>);

/// What scoring the elements one by one gathers: each word's best match anywhere, and the
/// matches of the contexts and labels already seen.
struct Tally<'s> {
    head_best: Vec<f32>,
    qual_best: Vec<f32>,
    context_memo: Vec<ContextMemo<'s>>,
    label_memo: std::collections::HashMap<&'s str, LabelMemo>,
}

/// Words that fit nothing on screen weaken every element: a modifier of the head ("my music
/// folder": the thing referred to is not here) or a qualifier ("sign in with facebook": a
/// requirement no element meets).
fn weaken_for_unmet_words(
    reading: &Reading<'_>,
    structure: &Structure,
    action: ActionKind,
    words: &Words<'_>,
    tally: &Tally<'_>,
    scores: &mut [f32],
) {
    let (head, qual, head_best) = (&words.head, &words.qual, &tally.head_best);
    // A modifier that fits nothing on screen ("my music folder") means the
    // thing referred to is not here, whatever its head noun matches.
    // A verb's own control ("make the font larger" on "Kontrast plus") is doubtful when a
    // modifier it lacks names other controls ("Schriftgröße", glossed "font").
    let generic = matches!(reading.verb, Verb::Activate | Verb::Toggle | Verb::None);
    let specific = matches!(reading.verb, Verb::Specific { .. });
    let named_elsewhere = |q: &Token| {
        structure.facts.iter().any(|f| {
            word_match(q, &f.label) >= 0.7
                || word_match(q, &f.description) >= 0.7
                || word_match(q, &f.glosses) >= 1.0
        })
    };
    if (generic || specific)
        && action == ActionKind::Click
        && matches!(reading.head.kind, Kind::Plain | Kind::One)
        && head.len() >= 2
    {
        let missing = head[..head.len() - 1]
            .iter()
            .zip(head_best)
            .any(|(q, best)| !q.is_number() && *best < 0.7 && (generic || named_elsewhere(q)));
        if missing {
            scores.iter_mut().for_each(|s| *s *= 0.5);
        }
    }
    // A qualifier that fits nothing ("sign in with facebook") is a
    // requirement no element meets.
    let unmet = qual.iter().any(|q| {
        !q.is_number()
            && !structure.facts.iter().enumerate().any(|(i, f)| {
                word_match(q, &f.label) >= 0.7
                    || word_match(q, structure.context(i)) >= 0.7
                    || word_match(q, &f.glosses) >= 1.0
            })
    });
    if action == ActionKind::Click && unmet {
        scores.iter_mut().for_each(|s| *s *= 0.6);
    }
}

/// "unstar", "unfollow", "unlike", "unpin": undoing a state is done on the
/// control that shows the state is on ("Starred", "Following", "Liked", or a
/// pressed or checked "Star"), never on the one that would set it.
fn undoes(verb: &[&Token], zone: &[Token], element: &crate::director::Element) -> f32 {
    let [only] = verb else { return 0.0 };
    let Some(rest) = only.norm.strip_prefix("un").filter(|r| r.len() >= 3) else {
        return 0.0;
    };
    let on = element.is_on();
    let shows_on = zone.iter().any(|w| {
        (w.norm.starts_with(rest) && w.norm.len() > rest.len() + 1)
            || (on && (w.norm == rest || w.stem == rest))
    });
    if shows_on {
        0.9
    } else {
        0.0
    }
}

/// Real pages draw tabs as links or buttons (a record's "Tabular View", a wiki's
/// "Talk") and open menus with buttons: a person still calls them a tab or a menu, so
/// the noun is weaker evidence against them than against any other role.
fn drawn_as(noun: RoleNoun, role: &str) -> bool {
    match noun {
        RoleNoun::Tab => matches!(role, "link" | "button"),
        RoleNoun::Menu => role == "button",
        _ => false,
    }
}

/// Element `i` is of the kind said, if one was.
fn fits_kind(kind: Option<RoleNoun>, screen: Screen<'_>, i: usize) -> bool {
    kind.is_none_or(|noun| {
        role_fits(
            noun,
            screen.structure.facts[i].class,
            &screen.observation.elements[i].role,
        )
    })
}

fn role_fits(noun: RoleNoun, class: RoleClass, role: &str) -> bool {
    match noun {
        RoleNoun::Field => matches!(class, RoleClass::Editable | RoleClass::Toggle),
        RoleNoun::Editable => class == RoleClass::Editable,
        RoleNoun::Toggle => class == RoleClass::Toggle,
        RoleNoun::Button => role == "button",
        RoleNoun::Link => role == "link",
        RoleNoun::Tab => role == "tab",
        RoleNoun::Menu => matches!(role, "menuitem" | "menu" | "menubar"),
        RoleNoun::Choice => matches!(
            role,
            "radio" | "option" | "menuitemradio" | "checkbox" | "menuitemcheckbox"
        ),
    }
}

/// Ordinals select by list structure: an item noun ("the second story",
/// "number ten") picks a numbered list item; otherwise the n-th of the
/// matching elements, using `ordinal`/`of` when they share a label.
fn apply_ordinals(reading: &Reading<'_>, screen: Screen<'_>, scores: &mut [f32]) {
    let structure = screen.structure;
    for phrase in [&reading.head, &reading.qualifier] {
        let Some(ordinal) = phrase.ordinal else {
            continue;
        };
        if phrase
            .ordinal_token
            .is_some_and(|t| spelled_in_a_label(reading, structure, t))
        {
            continue;
        }
        // "the last page", "the second page": a page of results is a pager's number.
        if phrase.span.iter().any(|&t| says_page(&reading.tokens[t])) {
            if let Some(pick) = pager_pick(screen, ordinal) {
                keep_only(scores, pick);
                continue;
            }
        }
        // "the third picture" over buttons "Go to Slide 1" … "Go to Slide 32": labels that
        // differ only by their number are counted by it, not by their place on screen.
        if let Some(pick) = numbered_pick(structure, scores, ordinal) {
            keep_only(scores, pick);
            continue;
        }
        let by_item = matches!(phrase.kind, Kind::Item | Kind::One | Kind::Plain)
            && !structure.items.is_empty()
            && (phrase.kind != Kind::Plain || matches!(ordinal, Ordinal::Number(_)));
        if by_item {
            let visible = &structure.items;
            let wanted = match ordinal {
                Ordinal::Number(n) => Some(n),
                Ordinal::Last => visible.last().copied(),
                Ordinal::Nth(n) if visible.contains(&n) => Some(n),
                // The page is scrolled: "the first story" is ambiguous between
                // item 1 (not visible) and the first visible one, so nothing
                // is certain enough to act on.
                Ordinal::Nth(_) => None,
            };
            for (i, s) in scores.iter_mut().enumerate() {
                if structure.facts[i].item != wanted || wanted.is_none() {
                    *s = 0.0;
                }
            }
            continue;
        }
        if phrase.kind == Kind::Footnote {
            if let Ordinal::Number(n) = ordinal {
                let want = n.to_string();
                for (i, s) in scores.iter_mut().enumerate() {
                    if !structure.facts[i].label.iter().any(|t| t.stem == want) {
                        *s = 0.0;
                    }
                }
            }
            continue;
        }
        // "the third recent post" where nothing is numbered: a run of links in one row (a
        // sidebar's list) is a list to count in. The runs that hold what the words matched,
        // else every run; one run acts, several are asked about (the n-th of each).
        if matches!(phrase.kind, Kind::Item | Kind::One) {
            let runs = alike_runs(structure);
            let matched: Vec<&Vec<usize>> = runs
                .iter()
                .filter(|run| run.iter().any(|&i| scores[i] > 0.0))
                .collect();
            let counted: Vec<&Vec<usize>> = if matched.is_empty() {
                runs.iter().collect()
            } else {
                matched
            };
            // "the second one of the settings sections": when two or more of a run say the
            // words, they are the ones counted.
            let says = |i: usize| {
                reading
                    .head
                    .content
                    .iter()
                    .chain(&reading.qualifier.content)
                    .any(|&t| word_match(&reading.tokens[t], &structure.facts[i].label) >= 0.9)
            };
            let picks: Vec<usize> = counted
                .iter()
                .filter_map(|run| {
                    let saying: Vec<usize> = run.iter().copied().filter(|&i| says(i)).collect();
                    if saying.len() >= 2 {
                        nth_of(&saying, ordinal)
                    } else {
                        nth_of(run, ordinal)
                    }
                })
                .take(3)
                .collect();
            for (i, s) in scores.iter_mut().enumerate() {
                *s = match picks.iter().position(|&p| p == i) {
                    Some(0) => 0.8,
                    Some(_) => 0.78,
                    None => 0.0,
                };
            }
            continue;
        }
        // "the fourth section" where no label is a numbered section: only labels that are
        // the noun and a name ("Section A", "Part 2") can be counted. Counting whatever else
        // is on screen picks an arbitrary link, and a label that only carries the word
        // ("sections", "Next Chapter", "Report Chapter") is a thing of its own, not one of a
        // counted row.
        if phrase.kind == Kind::Section && !structure.facts.iter().any(|f| f.section) {
            let noun = phrase.kind_token.map(|t| reading.tokens[t].norm.as_str());
            for (i, s) in scores.iter_mut().enumerate() {
                let label = &structure.facts[i].label;
                let is_noun = |t: &Token| Some(t.norm.as_str()) == noun;
                let is_name = |t: &Token| t.is_number() || t.norm.chars().count() <= 2;
                let counted = label.len() == 2
                    && ((is_noun(&label[0]) && is_name(&label[1]))
                        || (is_name(&label[0]) && is_noun(&label[1])));
                if !counted {
                    *s = 0.0;
                }
            }
        }
        // "the very first version" beside "Versions: 00 01 02 03 04": a run of links whose row
        // opens with the noun is the list of those things, and the count is in it.
        if let Some(run) = headed_run(reading, phrase, structure) {
            if let Some(pick) = nth_of(&run, ordinal) {
                keep_only(scores, Some(pick));
                continue;
            }
        }
        let top = scores.iter().copied().fold(0.0f32, f32::max);
        if top <= 0.0 {
            continue;
        }
        let mut pool: Vec<usize> = (0..scores.len())
            .filter(|&i| scores[i] >= 0.8 * top)
            .collect();
        // "the top comment" under a post that shows "50 Comments": the card with the count of
        // the things counted is what they belong to, not one of them.
        let parents = parent_items(reading, phrase, structure);
        // Only the parent fits ("the permalink of the first comment" finds "50 Comments"): no
        // count of the things themselves; asked at most.
        let mut only_parents = false;
        if !parents.is_empty() {
            let within: Vec<usize> = pool
                .iter()
                .copied()
                .filter(|&i| {
                    !structure.facts[i]
                        .item
                        .is_some_and(|n| parents.contains(&n))
                })
                .collect();
            only_parents = within.is_empty();
            if !within.is_empty() && within.len() < pool.len() {
                for &i in &pool {
                    if !within.contains(&i) {
                        scores[i] = 0.0;
                    }
                }
                pool = within;
            }
        }
        let readings = counted_readings(reading, phrase, structure, &pool, ordinal);
        // "the first ingredient" where one button's row mentions ingredients: a count of one
        // thing that only its row names is no count; it may be asked about, not acted on.
        let own_words = |i: usize| {
            phrase.content.iter().any(|&t| {
                let w = &reading.tokens[t];
                word_match(w, &structure.facts[i].label) >= 0.7
                    || word_match(w, &structure.facts[i].description) >= 0.7
            })
        };
        let uncounted = only_parents
            || pool.len() == 1
                && !phrase.content.is_empty()
                && matches!(ordinal, Ordinal::Nth(_) | Ordinal::Last)
                && !own_words(pool[0]);
        // "the first heart event" where only the heading "4 Heart Events" says it: the one
        // label names the group, so the thing counted is one of its members, which the heading
        // is not. The n-th control after it in its row is offered with it; nothing is acted on.
        if let ([heading], Ordinal::Nth(_) | Ordinal::Last) = (pool.as_slice(), ordinal) {
            if names_the_group(reading, phrase, &structure.facts[*heading].label) {
                let row = structure.facts[*heading].context_slot;
                let members: Vec<usize> = (heading + 1..scores.len())
                    .take_while(|&i| structure.facts[i].context_slot == row)
                    .collect();
                let member = nth_of(&members, ordinal);
                for (i, s) in scores.iter_mut().enumerate() {
                    *s = if Some(i) == member {
                        semantic::ASK_SCORE
                    } else if i == *heading {
                        0.98 * semantic::ASK_SCORE
                    } else {
                        0.0
                    };
                }
                continue;
            }
        }
        match readings.as_slice() {
            [one] if uncounted => {
                for (i, s) in scores.iter_mut().enumerate() {
                    if i != *one {
                        *s = 0.0;
                    } else {
                        *s = s.min(semantic::ASK_SCORE);
                    }
                }
            }
            [one] => {
                for (i, s) in scores.iter_mut().enumerate() {
                    if i != *one {
                        *s = 0.0;
                    } else {
                        *s = s.max(0.75);
                    }
                }
            }
            // The count is ambiguous: each reading stays, equally likely, so
            // the gate asks which one was meant.
            _ => {
                for (i, s) in scores.iter_mut().enumerate() {
                    *s = match readings.iter().position(|&r| r == i) {
                        Some(0) => top,
                        Some(_) => 0.98 * top,
                        None => 0.0,
                    };
                }
            }
        }
        if only_parents {
            for s in scores.iter_mut() {
                *s = s.min(semantic::ASK_SCORE);
            }
        }
    }
}

/// Whether element `first` heads the row the `rest` share, named by the qualifier: its label
/// is the qualifier's words and nothing else ("ABOUT" for "under About").
fn heads_the_row(
    reading: &Reading<'_>,
    structure: &Structure,
    first: usize,
    rest: &[usize],
) -> bool {
    let said: Vec<&Token> = reading
        .qualifier
        .content
        .iter()
        .map(|&t| &reading.tokens[t])
        .collect();
    let label = &structure.facts[first].label;
    let row = structure.facts[first].context_slot;
    !said.is_empty()
        && label.len() == said.len()
        && label.iter().all(|l| said.iter().any(|q| q.stem == l.stem))
        && rest.iter().all(|&i| structure.facts[i].context_slot == row)
}

/// Whether a label says the phrase's last word in the plural where the phrase says it in the
/// singular ("Heart Events" for "the first heart event"): the label names a group of them.
fn names_the_group(reading: &Reading<'_>, phrase: &utterance::Phrase, label: &[Token]) -> bool {
    let Some(&last) = phrase.content.last() else {
        return false;
    };
    let said = &reading.tokens[last];
    !said.norm.ends_with('s')
        && label
            .iter()
            .any(|l| l.stem == said.stem && l.norm != said.norm && l.norm.ends_with('s'))
}

/// The element an ordinal's place picks from a list in reading order ("the third", "the
/// last"); a visible number ("number 13") is no place in a list.
/// Among the elements the words fit best, the run of three or more whose labels are one name
/// and a number ("Go to Slide 3", "Chapter 12", a pager's "1 2 3"), with each one's number.
fn numbered_run(structure: &Structure, scores: &[f32]) -> Option<Vec<(usize, u32)>> {
    let numbered = |i: usize| -> Option<(Vec<&str>, u32)> {
        let (last, name) = structure.facts[i].label.split_last()?;
        let n = last.is_number().then(|| last.stem.parse().ok()).flatten()?;
        Some((name.iter().map(|t| t.norm.as_str()).collect(), n))
    };
    let top = scores.iter().copied().fold(0.0f32, f32::max);
    let fitting: Vec<(usize, Vec<&str>, u32)> = (0..scores.len())
        .filter(|&i| top > 0.0 && scores[i] >= 0.8 * top)
        .filter_map(|i| numbered(i).map(|(name, n)| (i, name, n)))
        .collect();
    // The name most of the fitting elements share, with three different numbers at least.
    let mut best: Option<(&Vec<&str>, usize)> = None;
    for (_, name, _) in &fitting {
        let mut numbers: Vec<u32> = fitting
            .iter()
            .filter(|(_, other, _)| other == name)
            .map(|(_, _, n)| *n)
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        if numbers.len() >= 3 && best.is_none_or(|(_, count)| numbers.len() > count) {
            best = Some((name, numbers.len()));
        }
    }
    let (name, _) = best?;
    Some(
        fitting
            .iter()
            .filter(|(_, other, _)| other == name)
            .map(|(i, _, n)| (*i, *n))
            .collect(),
    )
}

/// In a [`numbered_run`], the one whose number the ordinal says ("the third" from the run's
/// start, "number ten"; "the last" is the highest). `Some(None)` when the run has no such
/// number: nothing fits. None when no such run fits the words.
fn numbered_pick(structure: &Structure, scores: &[f32], ordinal: Ordinal) -> Option<Option<usize>> {
    let run = numbered_run(structure, scores)?;
    // A place ("the third", "the last") is counted in a run that starts at its beginning (0 or
    // 1: "Versions: 00 01 02" starts at 00); a run seen from its middle is not counted here.
    let first = run.iter().map(|(_, n)| *n).min()?;
    let wanted = match ordinal {
        Ordinal::Number(n) => n,
        Ordinal::Nth(n) if first <= 1 && n >= 1 => first + n - 1,
        Ordinal::Last if first <= 1 => run.iter().map(|(_, n)| *n).max()?,
        _ => return None,
    };
    Some(run.iter().find(|(_, n)| *n == wanted).map(|(i, _)| *i))
}

/// Leaves only `pick` in the running, at 0.8 at least; nothing when `pick` is None.
fn keep_only(scores: &mut [f32], pick: Option<usize>) {
    for (i, s) in scores.iter_mut().enumerate() {
        *s = if Some(i) == pick { s.max(0.8) } else { 0.0 };
    }
}

/// A pager: three or more links in one row each labelled by a page number alone ("2" … "8",
/// "40", "41"), with their numbers. Empty when the screen has none, or more than one.
fn screen_pager(structure: &Structure) -> Vec<(usize, u32)> {
    let mut rows: Vec<Vec<(usize, u32)>> = Vec::new();
    for (i, f) in structure.facts.iter().enumerate() {
        let [only] = f.label.as_slice() else {
            continue;
        };
        let Some(n) = only
            .is_number()
            .then(|| only.stem.parse::<u32>().ok())
            .flatten()
        else {
            continue;
        };
        if f.class != RoleClass::Activatable || f.disabled {
            continue;
        }
        match rows
            .iter_mut()
            .find(|row| structure.facts[row[0].0].context_slot == f.context_slot)
        {
            Some(row) => row.push((i, n)),
            None => rows.push(vec![(i, n)]),
        }
    }
    rows.retain(|row| row.len() >= 3);
    match rows.as_slice() {
        [one] => one.clone(),
        _ => Vec::new(),
    }
}

/// A word for a page of results, in the languages of the glossary's pages ("Seite", "página").
fn says_page(t: &Token) -> bool {
    matches!(
        t.norm.as_str(),
        "page" | "pages" | "pagina" | "seite" | "strona"
    )
}

/// In a pager, the page `step` after (or before) the current one: the one number the pager's
/// row shows without a link. None when the row shows no such number, or more than one.
fn pager_step(screen: Screen<'_>, step: i64) -> Option<usize> {
    let pager = screen_pager(screen.structure);
    let &(first, _) = pager.first()?;
    let linked: Vec<u32> = pager.iter().map(|(_, n)| *n).collect();
    let unlinked: Vec<u32> = screen
        .structure
        .context(first)
        .iter()
        .filter_map(|t| t.is_number().then(|| t.stem.parse::<u32>().ok()).flatten())
        .filter(|n| !linked.contains(n))
        .collect();
    let [current] = unlinked.as_slice() else {
        return None;
    };
    let wanted = i64::from(*current) + step;
    pager
        .iter()
        .find(|(_, n)| i64::from(*n) == wanted)
        .map(|(i, _)| *i)
}

/// The page an ordinal says in a pager: "the last page" is the highest number, "the second
/// page" is page 2 (not the second link: the current page is often no link). None when there
/// is no pager; `Some(None)` when the pager has no such page.
/// The highest number is the last page only when the pager's row shows no gap after it ("1 2
/// 3 … 9" may go on past 9; "« 1 2 … 40 41 »" ends at 41).
fn pager_pick(screen: Screen<'_>, ordinal: Ordinal) -> Option<Option<usize>> {
    let pager = screen_pager(screen.structure);
    let &(first, _) = pager.first()?;
    let wanted = match ordinal {
        Ordinal::Number(n) | Ordinal::Nth(n) => n,
        Ordinal::Last => {
            let highest = pager.iter().map(|(_, n)| *n).max()?;
            let row = &screen.observation.elements[first].context;
            let after = row.rfind(&highest.to_string()).map_or("", |p| &row[p..]);
            if after.contains("...") || after.contains('…') {
                return Some(None);
            }
            highest
        }
    };
    Some(pager.iter().find(|(_, n)| *n == wanted).map(|(i, _)| *i))
}

/// "the next picture" where no control says next: in a [`numbered_run`] with one member
/// shown as the current one (checked, selected, current), the member numbered after it
/// ("previous": before it).
fn apply_relative(reading: &Reading<'_>, screen: Screen<'_>, scores: &mut [f32]) {
    let step: i64 = match reading
        .head
        .concepts
        .iter()
        .map(|c| lexicon::concept_name(*c))
        .find(|c| matches!(*c, "next" | "previous"))
    {
        Some("next") => 1,
        Some(_) => -1,
        None => return,
    };
    // "the next page" on a pager whose current page is no link ("« 1 2 3 … 41 »" on page 1):
    // the number after the one the row shows unlinked.
    if reading
        .head
        .span
        .iter()
        .any(|&t| says_page(&reading.tokens[t]))
    {
        if let Some(pick) = pager_step(screen, step) {
            keep_only(scores, Some(pick));
            return;
        }
    }
    let Some(run) = numbered_run(screen.structure, scores) else {
        return;
    };
    let elements = &screen.observation.elements;
    let current: Vec<u32> = run
        .iter()
        .filter(|(i, _)| elements[*i].is_on())
        .map(|(_, n)| *n)
        .collect();
    let [current] = current.as_slice() else {
        return;
    };
    let wanted = i64::from(*current) + step;
    let pick = run
        .iter()
        .find(|(_, n)| i64::from(*n) == wanted)
        .map(|(i, _)| *i);
    keep_only(scores, pick);
}

fn nth_of(list: &[usize], ordinal: Ordinal) -> Option<usize> {
    match ordinal {
        Ordinal::Nth(n) if n >= 1 => list.get(n as usize - 1).copied(),
        Ordinal::Last => list.last().copied(),
        _ => None,
    }
}

/// The words naming the things a phrase counts ("comment" in "the top comment"), numbers left out.
fn counted_nouns<'r>(reading: &'r Reading<'_>, phrase: &utterance::Phrase) -> Vec<&'r Token> {
    phrase
        .content
        .iter()
        .chain(phrase.kind_token.iter())
        .map(|&t| &reading.tokens[t])
        .filter(|t| !t.is_number())
        .collect()
}

/// The one run of three or more links in a row whose text opens with the phrase's noun
/// ("Versions: 00 01 02 03 04" for "the first version").
fn headed_run(
    reading: &Reading<'_>,
    phrase: &utterance::Phrase,
    structure: &Structure,
) -> Option<Vec<usize>> {
    let nouns = counted_nouns(reading, phrase);
    let headed: Vec<Vec<usize>> = alike_runs(structure)
        .into_iter()
        .filter(|run| {
            let first = structure.context(run[0]).first();
            first.is_some_and(|w| nouns.iter().any(|q| q.stem == w.stem))
                && !run.iter().any(|&i| {
                    structure.facts[i]
                        .label
                        .iter()
                        .any(|l| nouns.iter().any(|q| q.stem == l.stem))
                })
        })
        .collect();
    match headed.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The items that show a count of the phrase's noun ("50 Comments", "3 replies"): the parents
/// of the things counted.
fn parent_items(
    reading: &Reading<'_>,
    phrase: &utterance::Phrase,
    structure: &Structure,
) -> Vec<u32> {
    let nouns = counted_nouns(reading, phrase);
    if nouns.is_empty() {
        return Vec::new();
    }
    structure
        .facts
        .iter()
        .filter(|f| {
            f.label.iter().any(Token::is_number)
                && f.label.len() <= 3
                && nouns
                    .iter()
                    .any(|q| f.label.iter().any(|w| !w.is_number() && w.stem == q.stem))
        })
        .filter_map(|f| f.item)
        .collect()
}

/// Runs of three or more links or buttons that share one row, in reading order: the lists a
/// page shows without numbering them.
fn alike_runs(structure: &Structure) -> Vec<Vec<usize>> {
    rows_of_controls(structure, false)
}

/// The enabled controls that share a row (a context), three or more to a row, labelled ones
/// only unless `unlabelled`.
fn rows_of_controls(structure: &Structure, unlabelled: bool) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for (i, f) in structure.facts.iter().enumerate() {
        if f.class != RoleClass::Activatable || f.disabled || (f.label.is_empty() && !unlabelled) {
            continue;
        }
        match runs
            .iter_mut()
            .find(|run| structure.facts[run[0]].context_slot == f.context_slot)
        {
            Some(run) => run.push(i),
            None => runs.push(vec![i]),
        }
    }
    runs.retain(|run| run.len() >= 3);
    runs
}

/// "the second campus", "the last campus link": an ordinal over a noun that no label,
/// description or row on screen says, on a screen without numbered items. What is counted is
/// one of the rows of alike controls; the n-th of each (at most three) is what may be meant, to
/// be offered, never acted on. Empty when the words are not that.
pub fn counted_in_rows(reading: &Reading<'_>, screen: Screen<'_>) -> Vec<usize> {
    let structure = screen.structure;
    // Only a reference ("open", "click", "show", or none): a verb of its own ("accept the top
    // answer") needs a control that does it.
    let refers = matches!(reading.verb, Verb::None | Verb::Activate);
    if !refers || !structure.items.is_empty() || reading.relation.is_some() {
        return Vec::new();
    }
    let phrase = &reading.head;
    let Some(ordinal) = phrase.ordinal.filter(|o| !matches!(o, Ordinal::Number(_))) else {
        return Vec::new();
    };
    let words: Vec<&Token> = phrase
        .content
        .iter()
        .map(|&t| &reading.tokens[t])
        .filter(|t| !t.is_number() && !lexicon::is_in(lexicon::STOPWORDS, &t.norm))
        .collect();
    if words.is_empty() || words.len() > 2 || words.iter().any(|w| said_on_screen(w, structure)) {
        return Vec::new();
    }
    let kind = match phrase.kind {
        Kind::Role(noun) => Some(noun),
        Kind::Plain => None,
        _ => return Vec::new(),
    };
    let fits = |i: &usize| fits_kind(kind, screen, *i);
    // Unlabelled controls counted too (a photo strip whose first image has no name).
    let mut offered: Vec<usize> = Vec::new();
    for run in rows_of_controls(structure, true) {
        let run: Vec<usize> = run.into_iter().filter(fits).collect();
        if run.len() < 3 {
            continue;
        }
        if let Some(i) = nth_of(&run, ordinal) {
            if !offered.contains(&i) {
                offered.push(i);
            }
        }
    }
    offered.truncate(3);
    offered
}

/// "third party plugins" on a page with "Third-party plugins": the ordinal
/// word and the word after it stand together in a label, so they are its
/// words, not a count.
fn spelled_in_a_label(reading: &Reading<'_>, structure: &Structure, t: usize) -> bool {
    let (Some(word), Some(next)) = (reading.tokens.get(t), reading.tokens.get(t + 1)) else {
        return false;
    };
    let same = |a: &Token, b: &Token| a.norm == b.norm || a.stem == b.stem;
    structure.facts.iter().any(|f| {
        f.label
            .windows(2)
            .any(|w| same(&w[0], word) && same(&w[1], next))
    })
}

/// The elements an ordinal can pick from `pool` (matching elements in reading
/// order), one per way of counting. The head's ordinal counts the elements the
/// noun names; when some carry the noun in their label and others only in
/// their row ("the second plugin" under "Getting certificates (and choosing
/// plugins)"), both counts are readings. The qualifier's ordinal ("more options
/// on the second tweet") counts the qualifier's things: only pool elements
/// whose row names them count, and without such rows every pool element stays
/// a reading.
fn counted_readings(
    reading: &Reading<'_>,
    phrase: &utterance::Phrase,
    structure: &Structure,
    pool: &[usize],
    ordinal: Ordinal,
) -> Vec<usize> {
    // Among matching elements a visible number counts as a place ("number two" = the second).
    let place = match ordinal {
        Ordinal::Number(n) => Ordinal::Nth(n),
        other => other,
    };
    let nth = |within: &[usize]| nth_of(within, place);
    let nouns: Vec<&Token> = phrase
        .content
        .iter()
        .map(|&t| &reading.tokens[t])
        .filter(|t| !t.is_number())
        .collect();
    let in_label = |i: usize| {
        !nouns.is_empty()
            && nouns
                .iter()
                .all(|q| word_match(q, &structure.facts[i].label) >= 0.7)
    };
    if std::ptr::eq(phrase, &reading.qualifier) {
        // Count the qualifier's things by the page's list items when it has
        // them; a count of whatever else is nested is not certain enough.
        let wanted = match ordinal {
            Ordinal::Number(n) => Some(n),
            Ordinal::Nth(n) if structure.items.contains(&n) => Some(n),
            Ordinal::Nth(_) => None,
            Ordinal::Last => structure.items.last().copied(),
        };
        let inside: Vec<usize> = pool
            .iter()
            .copied()
            .filter(|&i| wanted.is_some() && structure.facts[i].item == wanted)
            .collect();
        return match inside.as_slice() {
            [one] => vec![*one],
            _ => pool.to_vec(),
        };
    }
    // "the third link under About": the row's heading, a link named by nothing but the
    // qualifier's words, heads the things counted and is not one of them.
    let pool = match pool.split_first() {
        Some((&first, rest))
            if rest.len() >= 2 && heads_the_row(reading, structure, first, rest) =>
        {
            rest
        }
        _ => pool,
    };
    let Some(chosen) = nth(pool) else {
        return Vec::new();
    };
    // Counting is certain among alike things ("the second Reply", "the third
    // 12 comments link"); among differently named things that merely share
    // the noun ("DNS Plugins", "Combining plugins") it is a preference only.
    let unlike = |i: &usize| {
        let words = |i: usize| -> Vec<&str> {
            structure.facts[i]
                .label
                .iter()
                .filter(|t| !t.is_number())
                .map(|t| t.stem.as_str())
                .collect()
        };
        words(*i) != words(chosen)
    };
    if phrase.kind == Kind::Plain && pool.iter().all(|&i| in_label(i)) && pool.iter().any(unlike) {
        let mut out = vec![chosen];
        out.extend(pool.iter().copied().filter(|&i| i != chosen));
        return out;
    }
    vec![chosen]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::director::observation::Observation;
    use crate::director::{screen, Envelope};

    use crate::director::observation::element as el;
    use crate::director::Element;

    fn page() -> Observation {
        let mut elements = vec![
            el("e1", "link", "Home", "Home Shop Help"),
            el(
                "e2",
                "button",
                "ALLE AKZEPTIEREN",
                "Speichern ALLE AKZEPTIEREN",
            ),
            el("e3", "link", "3.5 SeaMonkey", "3 Software 3.5 SeaMonkey"),
            el("e4", "textbox", "", "Form"),
            el("e5", "textbox", "", "Form"),
            el("e6", "link", "17 comments", "9 points | 17 comments"),
            el("e7", "link", "17 points", "17 points | 3 comments"),
        ];
        for k in 1..=3 {
            let ctx = format!("{k}. Story number {k} (site.example)");
            elements.push(el(&format!("u{k}"), "link", "upvote", &ctx));
            elements.push(el(
                &format!("t{k}"),
                "link",
                &format!("Story number {k}"),
                &ctx,
            ));
        }
        Observation {
            elements,
            ..Observation::default()
        }
    }

    /// "delete this" names no object: "Delete account" names its own and may be another thing
    /// than the one meant, so it is asked about; a control that is the verb alone is clicked.
    #[test]
    fn a_verb_said_of_this_clicks_only_its_own_control() {
        let mut obs = Observation {
            elements: vec![
                el("a", "button", "Delete account", "Settings"),
                el("o", "link", "Hide Obsolete", "Attachments"),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "delete this"), None);
        assert_eq!(clicked(&obs, "hide that"), None);
        assert_eq!(clicked(&obs, "delete my account").as_deref(), Some("a"));
        obs.elements
            .push(el("h", "button", "Hide", "Comment by Ana"));
        assert_eq!(clicked(&obs, "hide that").as_deref(), Some("h"));
        // "it" is the page's own thing: "Print Recipe" on a recipe.
        obs.elements
            .push(el("p", "button", "Print Recipe", "Lentil soup"));
        assert_eq!(clicked(&obs, "print it").as_deref(), Some("p"));
    }

    /// "go back to the search results" is the way back to them: a control that names them,
    /// else the browser's back, never a control that only mentions searching in its help text.
    #[test]
    fn going_back_to_a_page_is_its_link_or_back() {
        let mut help = el("h", "link", "Hardware:", "Hardware: x86 Windows");
        help.description = "The hardware platform the bug was observed on. Note: When searching, \
            selecting the option All only finds bugs whose value for this field is literally \
            the word All."
            .to_string()
            .into();
        let mut obs = Observation {
            elements: vec![help, el("s", "button", "Save Changes", "Comment Preview")],
            ..Observation::default()
        };
        let back = Some(crate::director::Action::Back);
        assert_eq!(executed(&obs, "go back to the search results"), back);
        assert_eq!(executed(&obs, "take me back to the results"), back);
        obs.elements
            .push(el("r", "link", "Back to search results", "Bug 14414"));
        assert_eq!(
            clicked(&obs, "go back to the search results").as_deref(),
            Some("r")
        );
        // A link named in a script the words cannot meet may be the page said: not back.
        let mut menu = Observation {
            elements: vec![
                el("h", "link", "HOME", "HOME ブログ"),
                el("b", "link", "ブログ", "HOME ブログ"),
            ],
            ..Observation::default()
        };
        assert_ne!(executed(&menu, "back to the blog"), back);
        // Glossed, it is read: "blog" is its name.
        menu.glosses = glossed("ja", &[("ブログ", "blog")]);
        assert_eq!(clicked(&menu, "back to the blog").as_deref(), Some("b"));
        menu.glosses = glossed("ja", &[("ブログ", "weblog")]);
        assert_eq!(executed(&menu, "back to the blog"), back);
    }

    /// "what about X" turns to X: the control that names it, else a question for the planner.
    #[test]
    fn what_about_a_thing_on_screen_opens_it() {
        let obs = Observation {
            elements: vec![
                el(
                    "p",
                    "link",
                    "Mike Pence",
                    "People Donald Trump Mike Pence Chain E-mails",
                ),
                el(
                    "c",
                    "link",
                    "Chain E-mails",
                    "People Donald Trump Mike Pence Chain E-mails",
                ),
            ],
            ..Observation::default()
        };
        assert_eq!(
            clicked(&obs, "what about those chain emails").as_deref(),
            Some("c")
        );
        assert_eq!(clicked(&obs, "how about Mike Pence").as_deref(), Some("p"));
        assert_eq!(
            executed(&obs, "what about the weather tomorrow"),
            Some(crate::director::Action::Planner)
        );
    }

    /// A control drawn as a phone number calls it; a button drawn as the letter X closes. A
    /// date is no phone number, and a link "X" is the network.
    #[test]
    fn a_phone_number_calls_and_an_x_button_closes() {
        let obs = Observation {
            elements: vec![
                el("p", "link", "03-5829-8082", "受付時間 03-5829-8082"),
                el("d", "link", "2016-12-01", "by Lighthouse 2016-12-01"),
                el(
                    "x",
                    "button",
                    "X",
                    "X Notice Your privacy is important to us.",
                ),
                el("t", "link", "X", "Follow us: Facebook X"),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "call the office").as_deref(), Some("p"));
        let dated = Observation {
            elements: obs.elements[1..].to_vec(),
            ..Observation::default()
        };
        assert_eq!(clicked(&dated, "call the office"), None);
        assert_eq!(
            clicked(&obs, "close the privacy notice").as_deref(),
            Some("x")
        );
        assert_eq!(clicked(&obs, "dismiss this").as_deref(), Some("x"));
        // Without the button, the link X (the network) closes nothing.
        let network = Observation {
            elements: vec![obs.elements[3].clone()],
            ..Observation::default()
        };
        assert_eq!(clicked(&network, "close the privacy notice"), None);
    }

    /// "show me the changes" asks to see them: "Save Changes" saves and shows nothing, whatever
    /// word it shares with the request. Said with its own verb, it is the control.
    #[test]
    fn a_view_verb_never_clicks_a_control_that_changes() {
        let obs = Observation {
            elements: vec![
                el("h", "link", "History", "Modified: 2010-12-26 (History)"),
                el("s", "button", "Save Changes", "Comment Preview"),
                el("d", "button", "Delete comment", "Comment by Ana"),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "show me the changes"), None);
        assert_eq!(clicked(&obs, "view the comment"), None);
        assert_eq!(clicked(&obs, "save the changes").as_deref(), Some("s"));
        assert_eq!(clicked(&obs, "show me the history").as_deref(), Some("h"));
    }

    /// "tick" and "untick" are said only of a checkbox: a button whose label names the thing
    /// ("Add the ingredients to the shopping list") is at most asked about, never clicked.
    #[test]
    fn a_checkbox_verb_never_clicks_a_button() {
        let obs = Observation {
            elements: vec![
                el("c1", "checkbox", "✓ egg", "egg 1 piece"),
                el("c2", "checkbox", "✓ salt", "pumpkin 400 g onion 1 salt"),
                el(
                    "b1",
                    "button",
                    "Add the ingredients to the shopping list",
                    "My shopping list",
                ),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "tick the egg").as_deref(), Some("c1"));
        assert_eq!(clicked(&obs, "tick the ingredients"), None);
        assert_eq!(
            clicked(&obs, "add the ingredients to the shopping list").as_deref(),
            Some("b1")
        );
    }

    /// A word said that meets a label only through its gloss ("church" / "Kościół") is a word
    /// the screen has: it weighs as much as a label's own word would and is no unmet
    /// requirement, so it is not outweighed by a word many glosses share ("news").
    #[test]
    fn a_word_met_through_a_gloss_weighs_as_a_word_on_screen() {
        let menu = "Informacje Polska Kościół Watykan";
        let mut obs = Observation {
            elements: vec![
                el(
                    "n1",
                    "link",
                    "Serwis informacyjny, godz. 11.00",
                    "5 maja 11:00",
                ),
                el(
                    "n2",
                    "link",
                    "Serwis informacyjny, godz. 10.00",
                    "5 maja 10:00",
                ),
                el(
                    "n3",
                    "link",
                    "Serwis informacyjny, godz. 02.00",
                    "5 maja 02:00",
                ),
                el("m1", "link", "Informacje", menu),
                el("m2", "link", "Polska", menu),
                el("m3", "link", "Kościół", menu),
                el("m4", "link", "Watykan", menu),
            ],
            ..Observation::default()
        };
        let words = [
            ("serwis", "service news bulletin"),
            ("informacyjny", "informative"),
            ("informacje", "information"),
            ("polska", "poland"),
            ("kosciol", "church"),
            ("watykan", "vatican"),
        ];
        obs.glosses = glossed("pl", &words);
        for (said, first) in [("church news", "m3"), ("news from Poland", "m2")] {
            let got = clicked(&obs, said).map_or_else(|| asked(&obs, said), |c| vec![c]);
            assert_eq!(
                got.first().map(String::as_str),
                Some(first),
                "{said}: {got:?}"
            );
        }
        // Without the glosses nothing names the church or Poland.
        obs.glosses = None;
        assert!(clicked(&obs, "church news").is_none_or(|c| c != "m3"));
    }

    /// English words meet a German page's labels through their glosses, and only through them.
    #[test]
    fn glosses_carry_english_words_to_labels_in_another_language() {
        let mut obs = Observation {
            elements: vec![
                el(
                    "g1",
                    "radio",
                    "Strom",
                    "Strom Gas Versicherungen Immobilien",
                ),
                el("g2", "radio", "Gas", "Strom Gas Versicherungen Immobilien"),
                el(
                    "g3",
                    "radio",
                    "Versicherungen",
                    "Strom Gas Versicherungen Immobilien",
                ),
                el(
                    "g4",
                    "radio",
                    "Immobilien",
                    "Strom Gas Versicherungen Immobilien",
                ),
            ],
            ..Observation::default()
        };
        let decide = clicked;
        assert_eq!(
            decide(&obs, "real estate"),
            None,
            "no glossary: nothing to go on"
        );
        let words = [
            ("strom", "current electric power"),
            ("versicherungen", "insurances insurance insurers"),
            ("immobilien", "property real estate"),
        ];
        obs.glosses = glossed("de", &words);
        let table = [
            ("real estate", Some("g4")),
            ("open insurance", Some("g3")),
            ("gas", Some("g2")),
            ("water", None),
        ];
        for (text, want) in table {
            assert_eq!(decide(&obs, text).as_deref(), want, "{text}");
        }
    }

    /// A verb said meets a button of another language through its glosses, and a request that
    /// names such a button in full ("compare now" / "JETZT VERGLEICHEN") is its click, not a
    /// question to reason about. A link's glosses offer no verb: "Olympische Spiele" are games,
    /// nothing to "play".
    #[test]
    fn a_verb_meets_a_button_of_another_language_through_its_glosses() {
        let mut obs = Observation {
            elements: vec![
                el("v1", "link", "Olympische Spiele", "Olympische Spiele Sport"),
                el(
                    "v2",
                    "button",
                    "Je signe",
                    "Signez avec votre email Je signe",
                ),
                el(
                    "v3",
                    "button",
                    "JETZT VERGLEICHEN",
                    "Autokredit JETZT VERGLEICHEN",
                ),
            ],
            ..Observation::default()
        };
        let decide = clicked;
        assert_eq!(decide(&obs, "sign the petition"), None, "no glossary");
        let words = [
            ("spiele", "games play"),
            ("signe", "character mark sign signal"),
            ("jetzt", "now"),
            ("vergleichen", "compare liken"),
        ];
        obs.glosses = glossed("de", &words);
        let table = [
            ("sign the petition", Some("v2")),
            ("sign it", Some("v2")),
            ("compare now", Some("v3")),
            ("play the video", None),
        ];
        for (text, want) in table {
            assert_eq!(decide(&obs, text).as_deref(), want, "{text}");
        }
    }

    /// A verb's own control is doubtful when a modifier said names other controls and not it:
    /// "make the font larger" beside "Kontrast plus" and "Schriftgröße groß" (glossed "font")
    /// is asked, never acted on "plus" alone.
    #[test]
    fn a_verbs_control_without_the_modifier_said_elsewhere_is_asked() {
        let row = "Kontrast normal Kontrast plus Schriftgröße normal Schriftgröße groß";
        let mut obs = Observation {
            elements: vec![
                el("c1", "link", "Kontrast normal", row),
                el("c2", "link", "Kontrast plus", row),
                el("f1", "link", "Schriftgröße normal", row),
                el("f2", "link", "Schriftgröße groß", row),
            ],
            ..Observation::default()
        };
        let words = [
            ("kontrast", "contrast"),
            ("schriftgrosse", "type size font"),
            ("gross", "large big great"),
            ("plus", "plus addition"),
        ];
        obs.glosses = glossed("de", &words);
        let table = [
            ("make the font larger", None),
            ("make the contrast larger", Some("c2")),
        ];
        for (text, want) in table {
            assert_eq!(clicked(&obs, text).as_deref(), want, "{text}");
        }
    }

    /// A run's heading in another language is met through its glosses: "the second link under
    /// citizen services" is the second link of the run headed "Bürgerservice".
    #[test]
    fn a_heading_in_another_language_is_met_through_its_glosses() {
        let row = "Bürgerservice Bürgerbüros Verwaltungsleistungen Online-Dienste";
        let crumbs = "Service Presse Stadtplan Fahrplan";
        let mut obs = Observation {
            elements: vec![
                el("c1", "link", "Presse", crumbs),
                el("c2", "link", "Stadtplan", crumbs),
                el("c3", "link", "Fahrplan", crumbs),
                el("b1", "link", "Bürgerbüros", row),
                el("b2", "link", "Verwaltungsleistungen", row),
                el("b3", "link", "Online-Dienste", row),
            ],
            ..Observation::default()
        };
        let said = "the second link under citizen services";
        let pick =
            |obs: &Observation| clicked(obs, said).map_or_else(|| asked(obs, said), |c| vec![c]);
        // Without the glossary nothing names the run: the second link of either is asked.
        assert_ne!(pick(&obs), ["b2"], "no glossary");
        let words = [
            ("burgerservice", "citizens support service"),
            ("burgerburos", "citizens support centres"),
            ("presse", "press"),
            ("stadtplan", "city map"),
        ];
        obs.glosses = glossed("de", &words);
        assert_eq!(pick(&obs), ["b2"], "{said}");
    }

    /// Where a link goes speaks for it, less than its name: "promising" is the link whose
    /// address ends in "…-newegg-rtx-3080-apologize"; said with a word its name has, it is
    /// clicked, by the address's word alone it is asked about.
    #[test]
    fn a_links_address_speaks_for_it_less_than_its_name() {
        let row = "the company's flagship RTX 3080 card sold out instantly when it launched";
        let to = |id: &str, label: &str, destination: &str| Element {
            destination: Some(destination.into()),
            ..el(id, "link", label, row)
        };
        let obs = Observation {
            elements: vec![
                to("a", "RTX 3080", "example.com/news/nvidia-rtx-3080-sold-out"),
                to(
                    "c",
                    "promising",
                    "example.com/news/nvidia-newegg-rtx-3080-apologize",
                ),
                to("d", "Comments", "example.com/news/where-to-buy-rtx-3080"),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "open the newegg story").as_deref(), Some("c"));
        assert_eq!(asked(&obs, "the link about newegg"), vec!["c".to_string()]);
        // Batch 29's page: of the article's links only "RTX 3070"'s address says review.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/grounding/observations/hardware-tomshardware.json");
        let page = crate::eval::load_observation(&path).expect("observation");
        assert_eq!(
            clicked(&page, "open the 3070 review").as_deref(),
            Some("r13")
        );
    }

    /// A kind noun ("products", "articles") is a label's word when a one-word label glosses to
    /// it ("Produkter"), not when a longer label's word does ("Alle Artikel").
    #[test]
    fn a_kind_noun_a_one_word_label_glosses_to_is_that_label() {
        let menu = "Oppskrifter Kontakt Produkter Om TINE";
        let mut obs = Observation {
            elements: vec![
                el("o", "link", "Oppskrifter", menu),
                el("k", "link", "Kontakt", menu),
                el("p", "link", "Produkter", menu),
                el(
                    "h",
                    "link",
                    "Konzert-Highlights im November",
                    "Kultur Konzert-Highlights",
                ),
                el(
                    "a",
                    "link",
                    "Alle Artikel",
                    "Johanna Kropfitsch Alle Artikel",
                ),
            ],
            ..Observation::default()
        };
        obs.glosses = Some(crate::model::Glosses {
            language: "nb".into(),
            words: [
                ("oppskrifter", "recipe"),
                ("kontakt", "contact"),
                ("produkter", "product"),
                ("artikel", "article"),
            ]
            .iter()
            .map(|(w, g)| (w.to_string(), vec![g.to_string()]))
            .collect(),
        });
        let snapshot = crate::director::Snapshot {
            observation: Some(obs),
            ..Default::default()
        };
        let decide = |text: &str| {
            crate::director::decide(&Envelope::typed("t", text), &snapshot, &LocalDecider)
        };
        match decide("show me their products") {
            crate::director::Decision::Execute(plan) => {
                assert!(
                    matches!(&plan.action, crate::director::Action::Click { target } if target == "p"),
                    "{plan:?}"
                )
            }
            other => panic!("{other:?}"),
        }
        let d = decide("open the article headline");
        assert!(
            !matches!(&d, crate::director::Decision::Execute(p) if matches!(&p.action, crate::director::Action::Click { target } if target == "a")),
            "{d:?}"
        );
    }

    /// "Option" names radio buttons, check boxes and a list's options ("radio" the first):
    /// "the third search option" counts the radios that say search; on a screen without any,
    /// "options" is a word.
    #[test]
    fn typed_text_is_a_choice_only_in_full() {
        let options: Vec<String> = ["1", "2", "14", "March", "United States", "Canada", "Canada"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let table = [
            (Some("14"), Some(2)),
            (Some("on the 14th"), Some(2)),
            (Some("the 2nd"), Some(1)),
            (Some("march"), Some(3)),
            (Some("the United States"), Some(4)),
            // A choice listed twice is one choice.
            (Some("Canada"), Some(5)),
            (Some("United"), None),
            (Some("14 March"), None),
            (Some("the"), None),
            (None, None),
        ];
        for (typed, want) in table {
            assert_eq!(typed_choice(typed, &options), want, "{typed:?}");
        }
    }

    #[test]
    fn an_option_is_a_radio_button() {
        let scope = "Search this site Search all Rutgers Search People";
        let obs = Observation {
            elements: vec![
                el("close", "button", "Close Search", "Rutgers"),
                el("go", "button", "Search", scope),
                el("a", "radio", "Search this site", scope),
                el("b", "radio", "Search all Rutgers", scope),
                el("c", "radio", "Search People", scope),
            ],
            ..Observation::default()
        };
        let plain = Observation {
            elements: vec![
                el("m", "link", "microspot.ch", "Kaffeemaschinen microspot.ch"),
                el("o", "button", "Options", "Kaffeemaschinen microspot.ch"),
            ],
            ..Observation::default()
        };
        // A check box is an option too: "the audio description option" is the box, not the
        // link named Options (as Einstellungen glosses).
        let boxes = Observation {
            elements: vec![
                el("s", "link", "Options", "Watchlist Options"),
                el(
                    "ad",
                    "checkbox",
                    "with audio description",
                    "full programmes",
                ),
            ],
            ..Observation::default()
        };
        let table = [
            (&obs, "pick the third search option", Some("c")),
            (&obs, "select the second radio button", Some("b")),
            (&plain, "open the options", Some("o")),
            (&boxes, "tick the audio description option", Some("ad")),
        ];
        for (obs, text, want) in table {
            assert_eq!(clicked(obs, text).as_deref(), want, "{text}");
        }
    }

    /// "The search button next to the search field": the button of the kind said nearest the
    /// field in reading order, even when it sits in the field's own form (another row) and the
    /// header row holds a farther one; in a table, the row's own control.
    #[test]
    fn beside_means_the_nearest_control_of_the_kind_said() {
        let header = "Search Log in Search SpringerLink Search";
        let mut field = el("f", "textbox", "Search SpringerLink", header);
        field.states = vec!["editable".into()];
        let obs = Observation {
            elements: vec![
                el("logo", "link", "SpringerLink", header),
                el("b1", "button", "Search", header),
                el("login", "link", "Log in", header),
                field,
                el("b2", "button", "Search", "Search SpringerLink Search"),
            ],
            ..Observation::default()
        };
        let rows = Observation {
            elements: vec![
                el("c1", "checkbox", "Select", "Invoice March 2 KB"),
                el("l1", "link", "Invoice March", "Invoice March 2 KB"),
                el("c2", "checkbox", "Select", "Team notes 4 KB"),
                el("l2", "link", "Team notes", "Team notes 4 KB"),
            ],
            ..Observation::default()
        };
        assert_eq!(
            clicked(&obs, "press the search button next to the search field").as_deref(),
            Some("b2")
        );
        assert_eq!(
            clicked(&rows, "click the checkbox next to team notes").as_deref(),
            Some("c2")
        );
    }

    /// "install on Ubuntu" beside an "Install" breadcrumb and an "Ubuntu" link is asked about
    /// (the verb's control names nothing said after the preposition, the other is named by it);
    /// "download this paste" stays with the Download button.
    #[test]
    fn a_verbs_control_and_the_object_after_its_preposition_are_asked_about() {
        let obs = Observation {
            elements: vec![
                el(
                    "install",
                    "link",
                    "Install",
                    "Manuals Docker Engine Install",
                ),
                el("ubuntu", "link", "Ubuntu", "CentOS Debian Ubuntu"),
                el("debian", "link", "Debian", "CentOS Debian Ubuntu"),
                el("paste", "link", "paste", "Pastebin paste API tools"),
                el("download", "button", "download", "raw download clone"),
            ],
            ..Observation::default()
        };
        let ids = asked(&obs, "install on Ubuntu");
        assert!(ids.len() >= 2, "{ids:?}");
        assert_eq!(sorted(ids[..2].to_vec()), ["install", "ubuntu"]);
        // A direct object is what the verb's control acts on: never the paste's own link.
        assert_ne!(
            clicked(&obs, "download this paste").as_deref(),
            Some("paste")
        );
        assert!(!asked(&obs, "download this paste").contains(&"paste".to_string()));
    }

    /// An infobox: a row's heading names its controls when no label says the words ("her
    /// birthday": Fall; "her friends": Maru or Sam, asked), and a superlative the screen says
    /// as a heading is its word, not a comparison ("the last best gift"). A heading whose text
    /// runs on past the controls seen (a menu) names nothing.
    #[test]
    fn a_rows_heading_names_its_controls() {
        let obs = Observation {
            elements: vec![
                el("f1", "link", "Fall", "Birthday: Fall 2"),
                el("f2", "link", "Fall", "Birthday: Fall 2"),
                el("pam", "link", "Pam", "Family: Pam (Mother)"),
                el("maru", "link", "Maru", "Friends: Maru Sam"),
                el("sam", "link", "Sam", "Friends: Maru Sam"),
                el("d", "link", "Diamond", "Best Gifts: Diamond Emerald Melon"),
                el("e", "link", "Emerald", "Best Gifts: Diamond Emerald Melon"),
                el("m", "link", "Melon", "Best Gifts: Diamond Emerald Melon"),
                el(
                    "p",
                    "link",
                    "Prospective Students",
                    "Info For: Prospective Students Partners Faculty",
                ),
            ],
            ..Observation::default()
        };
        assert!(matches!(
            clicked(&obs, "open her birthday").as_deref(),
            Some("f1" | "f2")
        ));
        // Taken or asked about; never another.
        let family = clicked(&obs, "the family link")
            .map_or_else(|| asked(&obs, "the family link"), |c| vec![c]);
        assert_eq!(family, ["pam"]);
        assert_eq!(sorted(asked(&obs, "show her friends")), ["maru", "sam"]);
        assert_eq!(clicked(&obs, "info for"), None);
        let structure = Structure::of(&obs);
        let screen = Screen {
            observation: &obs,
            structure: &structure,
        };
        let r = utterance::read("the last best gift");
        assert_eq!(action_of(&r, Some(screen)), ActionKind::Click);
        let r = utterance::read("the most expensive gift");
        assert_eq!(action_of(&r, Some(screen)), ActionKind::Reason);
    }

    /// A contents list: "3.3 Neutral" is a part of "3 Gifts", so "neutral gifts" may mean it
    /// (asked, never "3 Gifts" clicked); "the first heart event", where only the heading says
    /// "Heart Events", offers the heading's first member and the heading, and acts on neither.
    #[test]
    fn a_section_and_its_heading_are_asked_about() {
        let gifts = "3 Gifts 3.1 Love 3.2 Like 3.3 Neutral";
        let hearts = "4 Heart Events 4.1 Two Hearts 4.2 Four Hearts";
        let obs = Observation {
            elements: vec![
                el("g", "link", "3 Gifts", gifts),
                el("l", "link", "3.1 Love", gifts),
                el("k", "link", "3.2 Like", gifts),
                el("n", "link", "3.3 Neutral", gifts),
                el("h", "link", "4 Heart Events", hearts),
                el("t", "link", "4.1 Two Hearts", hearts),
                el("f", "link", "4.2 Four Hearts", hearts),
            ],
            ..Observation::default()
        };
        for (said, offered) in [
            ("neutral gifts", ["g", "n"]),
            ("the first heart event", ["h", "t"]),
            ("the second heart event", ["f", "h"]),
        ] {
            assert_eq!(sorted(asked(&obs, said)), offered, "{said}");
        }
        // Said in full, the section is taken at once.
        assert_eq!(
            clicked(&obs, "the heart events section").as_deref(),
            Some("h")
        );
        assert!(observation::section_under("3.3 Neutral", "3 Gifts"));
        assert!(!observation::section_under("4.1 Two Hearts", "3 Gifts"));
        assert!(!observation::section_under("Neutral", "Gifts"));
    }

    /// A language is named by the name it gives itself ("En Español", "Deutsch") when a
    /// request says its English name, in any words around it.
    #[test]
    fn a_language_is_met_by_its_own_name() {
        let obs = Observation {
            elements: vec![
                el("es", "link", "En Español", "En Español Share |"),
                el("sh", "link", "Share", "En Español Share |"),
                el("de", "link", "Deutsch", "Forums Deutsch News"),
                el("n", "link", "News", "Forums Deutsch News"),
            ],
            ..Observation::default()
        };
        for (said, picked) in [
            ("switch the page to Spanish", "es"),
            ("the German forum", "de"),
        ] {
            let got = clicked(&obs, said).map_or_else(|| asked(&obs, said), |c| vec![c]);
            assert_eq!(got, [picked], "{said}");
        }
    }

    /// A menu whose heading is a link of its row ("ABOUT" over "About NWS", "Organization",
    /// …): the links under it are counted without it, whether taken or asked about.
    #[test]
    fn a_menus_heading_link_is_not_one_of_its_links() {
        let menu = "ABOUT About NWS Organization Strategic Plan Careers";
        let obs = Observation {
            elements: vec![
                el("s", "link", "SEARCH", "SEARCH Search For"),
                el("h", "link", "ABOUT", menu),
                el("a", "link", "About NWS", menu),
                el("o", "link", "Organization", menu),
                el("p", "link", "Strategic Plan", menu),
                el("c", "link", "Careers", menu),
            ],
            ..Observation::default()
        };
        for (said, picked) in [
            ("the third link under About", "p"),
            ("the first link under About", "a"),
            ("the last link under About", "c"),
        ] {
            // Taken, or the one asked about.
            let got = clicked(&obs, said).map_or_else(|| asked(&obs, said), |c| vec![c]);
            assert_eq!(got, [picked], "{said}");
        }
    }

    /// The head noun is the last word: a control named by a word before it ("Game" in "the
    /// game wiki") is not meant when the head noun is another control's whole name ("Wiki");
    /// a possessive's owner ("EvilSpark's pastes") still may be.
    #[test]
    fn the_head_noun_names_the_control_over_its_modifier() {
        let menu = "Game V&H Support Wiki";
        let game = Observation {
            elements: vec![
                el("g", "button", "Game", menu),
                el("s", "link", "V&H Support", menu),
                el("w", "link", "Wiki", menu),
            ],
            ..Observation::default()
        };
        let paste = Observation {
            elements: vec![
                el("p", "link", "paste", "Pastebin paste API tools"),
                el("u", "link", "EvilSpark", "EvilSpark Oct 2nd, 2021"),
            ],
            ..Observation::default()
        };
        let decide = |obs: &Observation, text: &str| {
            let snapshot = crate::director::Snapshot {
                observation: Some(obs.clone()),
                ..Default::default()
            };
            crate::director::decide(&Envelope::typed("t", text), &snapshot, &LocalDecider)
        };
        let clicked = |d: &crate::director::Decision| match d {
            crate::director::Decision::Execute(plan) => match &plan.action {
                crate::director::Action::Click { target } => Some(target.clone()),
                _ => None,
            },
            _ => None,
        };
        assert_eq!(
            clicked(&decide(&game, "open the game wiki")).as_deref(),
            Some("w")
        );
        let d = decide(&paste, "show me EvilSpark's other pastes");
        assert_ne!(clicked(&d).as_deref(), Some("p"), "{d:?}");
    }

    /// A noun made from a word by "-ation", "-ion" or "-ment" meets that word; a base shorter
    /// than four letters only before "-ation".
    #[test]
    fn a_word_meets_the_noun_made_from_it() {
        let t = |w: &str| text::tokens(w).remove(0);
        let table = [
            ("cite", "citation", true),
            ("attached", "Attachments", true),
            ("delete", "deletion", true),
            ("install", "installation", true),
            ("pay", "payment", false),
            ("not", "notion", false),
            ("station", "st", false),
            ("comment", "comments", true),
            ("publication", "Published", true),
            ("notify", "Notifications", true),
        ];
        for (said, label, want) in table {
            assert_eq!(
                pair_match(&t(said), &t(label)) >= 0.75,
                want,
                "{said} / {label}"
            );
        }
    }

    /// "all the way" goes somewhere and counts nothing; a superlative a label starts with
    /// ("Bestpreis-Garantie", "Bestsellers") names that control instead of asking to compare.
    #[test]
    fn a_way_and_a_superlative_a_label_says_are_no_reasoning() {
        let pages = "Page 2 Page 3 Page 10 Weiter";
        let mut obs = Observation {
            elements: vec![
                el("p2", "link", "Page 2", pages),
                el("p3", "link", "Page 3", pages),
                el("p10", "link", "Page 10", pages),
                el("w", "link", "Weiter", pages),
                el(
                    "b",
                    "link",
                    "Bestpreis-Garantie",
                    "Bestpreis-Garantie Trustpilot",
                ),
                el("s", "link", "Bestsellers", "New releases Bestsellers"),
            ],
            ..Observation::default()
        };
        obs.glosses = Some(crate::model::Glosses {
            language: "de".into(),
            words: [
                ("bestpreis", "premier best price"),
                ("garantie", "guarantee"),
            ]
            .iter()
            .map(|(w, g)| (w.to_string(), g.split(' ').map(String::from).collect()))
            .collect(),
        });
        let snapshot = crate::director::Snapshot {
            observation: Some(obs),
            ..Default::default()
        };
        let table = [
            ("jump all the way to page 10", Some("p10")),
            ("show me the best price guarantee", Some("b")),
            ("open the bestsellers", Some("s")),
        ];
        for (text, want) in table {
            let got = match crate::director::decide(
                &Envelope::typed("t", text),
                &snapshot,
                &LocalDecider,
            ) {
                crate::director::Decision::Execute(plan) => match plan.action {
                    crate::director::Action::Click { target } => Some(target),
                    other => panic!("{text}: {other:?}"),
                },
                other => panic!("{text}: {other:?}"),
            };
            assert_eq!(got.as_deref(), want, "{text}");
        }
    }

    /// What a typed request types where, through the whole Director (`None` for anything else).
    fn typed_into(obs: &Observation, text: &str) -> Option<(String, String)> {
        let snapshot = crate::director::Snapshot {
            observation: Some(obs.clone()),
            ..Default::default()
        };
        match crate::director::decide(&Envelope::typed("t", text), &snapshot, &LocalDecider) {
            crate::director::Decision::Execute(plan) => match plan.action {
                crate::director::Action::Type { target, text, .. } => Some((target, text)),
                _ => None,
            },
            _ => None,
        }
    }

    /// An email address goes to the field that asks for one, whatever the request calls it;
    /// a search for an address still goes to the search field.
    #[test]
    fn an_email_address_goes_where_an_email_address_is_asked_for() {
        let form = "Receive news and offers from our other brands? Yes No";
        let obs = Observation {
            elements: vec![
                el("q", "textbox", "Search", "Hardware news"),
                el("m", "textbox", "Your Email Address", form),
                el("b", "button", "Sign me up", form),
            ],
            ..Observation::default()
        };
        let rows: &[(&str, Option<(&str, &str)>)] = &[
            (
                "put jane.doe@example.com in the newsletter box",
                Some(("m", "jane.doe@example.com")),
            ),
            (
                "search for jane.doe@example.com",
                Some(("q", "jane.doe@example.com")),
            ),
        ];
        for (text, want) in rows {
            let got = typed_into(&obs, text);
            let got = got.as_ref().map(|(t, v)| (t.as_str(), v.as_str()));
            assert_eq!(got, *want, "{text}");
        }
        for (s, want) in [
            ("jane.doe@example.com", true),
            ("jane@example.com.", true),
            ("jane@example", false),
            ("jane at example.com", false),
            ("@example.com", false),
            ("a@b@c.com", false),
        ] {
            assert_eq!(is_email_address(s), want, "{s}");
        }
    }

    /// A field whose label says search in another language is the search field.
    #[test]
    fn a_search_field_named_in_another_language_takes_the_search() {
        let form = "Nejnovější zprávy do e-mailu";
        let mut obs = Observation {
            elements: vec![
                el("n1", "textbox", "zadejte e-mail", form),
                el("n2", "button", "Odebírat", form),
                el("s1", "textbox", "Hledaný výraz", "Domácí Zahraničí Sport"),
                el("s2", "button", "Hledání", "Domácí Zahraničí Sport"),
            ],
            ..Observation::default()
        };
        obs.glosses = Some(crate::model::Glosses {
            language: "cs".into(),
            words: [
                ("hledany", "searched wanted"),
                ("hledani", "finding search"),
            ]
            .iter()
            .map(|(w, g)| (w.to_string(), g.split(' ').map(String::from).collect()))
            .collect(),
        });
        let snapshot = crate::director::Snapshot {
            observation: Some(obs.clone()),
            ..Default::default()
        };
        let decision = crate::director::decide(
            &Envelope::typed("t", "search for West Ham"),
            &snapshot,
            &LocalDecider,
        );
        match decision {
            crate::director::Decision::Execute(plan) => match plan.action {
                crate::director::Action::Type { target, text, .. } => {
                    assert_eq!((target.as_str(), text.as_str()), ("s1", "West Ham"));
                }
                other => panic!("typed nothing: {other:?}"),
            },
            other => panic!("no action: {other:?}"),
        }
    }

    #[test]
    fn the_last_part_of_a_compound_is_a_weak_match() {
        let m = |q: &str, w: &str| word_match(&Token::synthetic(q), &[Token::synthetic(w)]);
        let table = [
            ("options", "Ergebnisoptionen", 0.55),
            ("service", "Kundenservice", 0.55),
            ("ticket", "Flugticket", 0.55),
            // Too short to tell a compound from a word that ends alike.
            ("sport", "transport", 0.0),
            ("order", "Bestellorder", 0.0),
            // Not the tail.
            ("options", "Optionsschein", 0.8),
            ("capsule", "Kapselmaschine", 0.0),
        ];
        for (q, w, want) in table {
            assert_eq!(m(q, w), want, "{q} / {w}");
        }
    }

    fn top(text: &str) -> Option<String> {
        let obs = page();
        let structure = Structure::of(&obs);
        let ask = screen::ask(&Envelope::voice("t", text), &obs, &structure);
        let answers = LocalDecider.decide(&ask).expect("answers");
        let target = answers
            .iter()
            .find(|a| a.key == QuestionKey::Target)
            .expect("target");
        let q = ask
            .questions
            .iter()
            .find(|q| q.key == QuestionKey::Target)
            .expect("q");
        let (i, p) = target.best()?;
        match q.choices[i].meaning {
            Meaning::Element(e) if p > 0.5 => Some(obs.elements[e].id.clone()),
            _ => None,
        }
    }

    #[test]
    fn an_icon_is_called_by_any_word_of_its_description() {
        // The scan names an unlabelled icon by its class names, in no order.
        let mut share = el("r3", "button", "", "Next Share Embed");
        share.description = Some("jvdzf animated kuzh share qeous bya".into());
        let mut embed = el("r4", "button", "", "Next Share Embed");
        embed.description = Some("jvdzf animated kuzh embed bya dgaq".into());
        let obs = Observation {
            elements: vec![
                el("r1", "link", "Entertainment GIFs", ""),
                el("r2", "link", "#the office", ""),
                share,
                embed,
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "share this gif").as_deref(), Some("r3"));
        // A label is read as before: its verb among its first words only.
        let obs = Observation {
            elements: vec![el(
                "r1",
                "link",
                "Weekly roundup: what readers share most",
                "",
            )],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "share this"), None);
    }

    #[test]
    fn names_and_loanwords_meet_across_alphabets() {
        let m = |a: &str, b: &str| {
            let (a, b) = (text::tokens(a), text::tokens(b));
            pair_match(&a[0], &b[0])
        };
        for (said, label) in [
            ("VKontakte", "ВКонтакте"),
            ("telegram", "Телеграм"),
            ("videos", "Видео"),
            ("blogs", "Блоги"),
        ] {
            assert!(
                m(said, label) >= 0.9,
                "{said} / {label}: {}",
                m(said, label)
            );
            assert!(
                m(label, said) >= 0.9,
                "{label} / {said}: {}",
                m(label, said)
            );
        }
        // Respelt by sound, or another word: no match; one ending only comes off.
        for (said, label) in [
            ("facebook", "фейсбуке"),
            ("german", "Германия"),
            ("news", "Новости"),
            ("tv", "ТВ"),
        ] {
            assert_eq!(m(said, label), 0.0, "{said} / {label}");
        }
    }

    #[test]
    fn cognates_match_across_languages_and_unrelated_words_do_not() {
        let m = |a: &str, b: &str| {
            let (a, b) = (text::tokens(a), text::tokens(b));
            pair_match(&a[0], &b[0])
        };
        for (said, label) in [
            ("society", "Sociedad"),
            ("nature", "naturaleza"),
            ("magazine", "Magazin"),
        ] {
            assert!(
                m(said, label) >= 0.7,
                "{said} / {label}: {}",
                m(said, label)
            );
        }
        // (Words of one root still meet: "community" / "communication" at 0.7.)
        for (said, label) in [
            ("station", "statue"),
            ("nature", "natives"),
            ("photo", "phone"),
        ] {
            assert!(m(said, label) < 0.7, "{said} / {label}: {}", m(said, label));
        }
    }

    /// The candidates' ids a decision leaves above the "show" line, best first.
    fn candidates(obs: &Observation, text: &str) -> Vec<String> {
        let structure = Structure::of(obs);
        let ask = screen::ask(&Envelope::voice("t", text), obs, &structure);
        let answers = LocalDecider.decide(&ask).expect("answers");
        let target = answers
            .iter()
            .find(|a| a.key == QuestionKey::Target)
            .expect("target");
        let q = ask
            .questions
            .iter()
            .find(|q| q.key == QuestionKey::Target)
            .expect("q");
        let mut ranked: Vec<(f32, String)> = q
            .choices
            .iter()
            .zip(&target.probabilities)
            .filter_map(|(c, p)| match c.meaning {
                Meaning::Element(e) if *p >= 0.2 => Some((*p, obs.elements[e].id.clone())),
                _ => None,
            })
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        ranked.into_iter().map(|(_, id)| id).collect()
    }

    /// The element that scores highest for the words (its id, its score), before the gates.
    /// Initials said for a label word, and a label's words' initials said as one word; never
    /// a description's class names.
    #[test]
    fn initials_meet_the_words_they_abbreviate() {
        let obs = Observation {
            elements: vec![
                el("r1", "link", "CC-BY-NC-ND 4.0 International license", ""),
                el("r2", "link", "Terms of Service", ""),
                Element {
                    description: Some("preiscalendar drp von".into()),
                    ..el("r3", "textbox", "", "")
                },
            ],
            ..Observation::default()
        };
        assert_eq!(best(&obs, "open the creative commons license").0, "r1");
        assert_eq!(best(&obs, "the tos").0, "r2");
        assert!(best(&obs, "the dining room photo").1 < 0.1);
    }

    #[test]
    fn an_agent_noun_meets_what_it_plays() {
        let t = Token::synthetic;
        assert_eq!(pair_match(&t("drummer"), &t("drums")), 0.75);
        assert_eq!(pair_match(&t("cellist"), &t("cello")), 0.75);
        // Never the base itself: a player is no Play button.
        assert_eq!(pair_match(&t("player"), &t("play")), 0.0);
        assert_eq!(pair_match(&t("commenter"), &t("comment")), 0.0);
        assert_eq!(pair_match(&t("followers"), &t("follow")), 0.0);
        // The concept tables read an English agent noun whole, not as an inflection.
        assert!(lexicon::concept_ids(&text::tokens("commenter")).is_empty());
        assert!(!lexicon::concept_ids(&text::tokens("comments")).is_empty());
        // The base said against a longer word still meets it (a share link's address).
        assert_eq!(pair_match(&t("share"), &t("sharer")), 0.8);
        assert_eq!(agent_base("user"), None);
    }

    #[test]
    fn ing_forms_meet_their_base() {
        for (long, short, want) in [
            ("buying", "buy", true),
            ("pricing", "price", true),
            ("shopping", "shop", true),
            ("setting", "set", true),
            ("sing", "s", false),
            ("thing", "th", false),
            ("buying", "bus", false),
        ] {
            assert_eq!(is_ing_form(long, short), want, "{long} {short}");
        }
    }

    /// In a run of links, "the second one of the settings sections" counts the links that say
    /// "settings", not every link of the run.
    #[test]
    fn an_ordinal_counts_the_links_of_a_run_that_say_its_words() {
        let row = "FIFA 21 Game Settings Match Settings Camera Settings Audio Settings";
        let obs = Observation {
            elements: vec![
                el("r1", "link", "FIFA 21", row),
                el("r2", "link", "Match Settings", row),
                el("r3", "link", "Camera Settings", row),
                el("r4", "link", "Audio Settings", row),
            ],
            ..Observation::default()
        };
        assert_eq!(
            best(&obs, "the second one of the settings sections").0,
            "r3"
        );
        assert_eq!(best(&obs, "the second one").0, "r2");
    }

    /// A page of results is a pager's number: "the last page" is the highest when the row shows
    /// no gap after it, "the second page" is page 2 however many links come before; never the
    /// last thing on screen.
    #[test]
    fn a_page_said_by_its_place_is_the_pagers_number() {
        let pager = |row: &str, numbers: &[&str]| Observation {
            elements: numbers
                .iter()
                .map(|n| el(&format!("p{n}"), "link", n, row))
                .chain([el("x", "button", "×Fechar", "")])
                .collect(),
            ..Observation::default()
        };
        let ends = pager("« 1 2 3 4 ... 40 41 »", &["2", "3", "4", "40", "41"]);
        assert_eq!(best(&ends, "go to the last page").0, "p41");
        assert_eq!(best(&ends, "open the very last page of results").0, "p41");
        assert_eq!(best(&ends, "open the second page").0, "p2");
        // Page 1 is the row's number without a link: the next page is 2.
        assert_eq!(best(&ends, "go to the next page").0, "p2");
        assert_eq!(best(&ends, "próxima página").0, "p2");
        // A page's number said in the page's language.
        assert_eq!(best(&ends, "vai para a página três").0, "p3");
        assert_eq!(best(&ends, "Seite vier").0, "p4");
        let goes_on = pager("1 2 3 4 5 … Next", &["2", "3", "4", "5"]);
        assert_ne!(best(&goes_on, "go to the last page").0, "p5");
        assert_ne!(best(&goes_on, "go to the last page").0, "x");
    }

    /// A label's "all" counts the noun after it: "all the foods" is the foods list, not "Full
    /// Report (All Nutrients)"; "all the news" is still "All News", and "View All" still all.
    #[test]
    fn a_labels_all_counts_its_own_noun() {
        let menu = "NDL Home Foods List Ground Beef Calculator SR25 Documentation Help";
        let tools = "Return to Search Results Full Report (All Nutrients) Statistics Report";
        let link = |id: &str, label: &str, row: &str, description: &str, to: &str| {
            let mut e = el(id, "link", label, row);
            e.description = Some(description.into());
            e.destination = Some(to.into());
            e
        };
        let obs = Observation {
            title: "Show Foods".into(),
            elements: vec![
                link(
                    "h",
                    "NDL Home",
                    menu,
                    "Go the NDL home page",
                    "ars.usda.gov/main",
                ),
                link(
                    "f",
                    "Foods List",
                    menu,
                    "Browse the foods list",
                    "h/ndb/search/list",
                ),
                link(
                    "b",
                    "Ground Beef Calculator",
                    menu,
                    "Use it",
                    "h/ndb/beef/show",
                ),
                link(
                    "s",
                    "Return to Search Results",
                    tools,
                    "Return",
                    "h/ndb/search/list",
                ),
                link(
                    "r",
                    "Full Report (All Nutrients)",
                    tools,
                    "View Full Report",
                    "h/ndb/foods/show/1732 4bb7a89f",
                ),
                link(
                    "t",
                    "Statistics Report",
                    tools,
                    "View Statistics Report",
                    "h/ndb/foods/show/1732 b2a5baef",
                ),
            ],
            ..Observation::default()
        };
        assert_eq!(best(&obs, "browse all the foods").0, "f");
        let news = Observation {
            elements: vec![
                el("n", "link", "Notizie", "Notizie Eventi"),
                el("a", "link", "All News", "All News Archive"),
            ],
            ..Observation::default()
        };
        assert_eq!(best(&news, "show me all the news").0, "a");
        // "everything else" counts no noun of its own: *Alle Artikel* is still all.
        let row = "Johanna Kropfitsch Alle Artikel Facebook Instagram";
        let author = Observation {
            elements: vec![
                el("a", "link", "Alle Artikel", row),
                el("i", "link", "Instagram", row),
            ],
            ..Observation::default()
        };
        assert_eq!(
            best(&author, "everything else Johanna Kropfitsch wrote").0,
            "a"
        );
    }

    /// A field whose row has a Search button is the search box, whatever its placeholder says.
    #[test]
    fn a_field_beside_a_search_button_is_the_search_box() {
        let row = "Notizie ad es. ricette con i ceci Search Reset";
        let mut field = el("r2", "textbox", "ad es. ricette con i ceci", row);
        field.states = vec!["editable".into()];
        let obs = Observation {
            elements: vec![
                el("r1", "link", "ProssimaSuccessivo", row),
                field,
                el("r3", "button", "Search", row),
                el("r4", "button", "Reset", row),
            ],
            ..Observation::default()
        };
        assert_eq!(best(&obs, "click in the search field").0, "r2");
        assert_eq!(
            best(&obs, "type lenticchie rosse in the search box").0,
            "r2"
        );
    }

    /// A read-only text box (scanned without `editable`: a search form's decoy input, a date
    /// picker's field) takes no typed text; the one field that does is the search box when a
    /// Search button is on screen, in another row or another language.
    #[test]
    fn typing_goes_to_the_field_that_takes_text() {
        let header = "Anmelden Als Experte registrieren";
        let mut decoy = el("r4", "textbox", "", header);
        decoy.description = Some("search input".into());
        decoy.states = vec!["focusable".into()];
        let mut field = el(
            "r6",
            "textbox",
            "Fotos, Wohnideen, Experten & mehr...",
            "FOTOS TRENDTHEMEN Balkon Garten",
        );
        field.states = vec!["focusable".into(), "editable".into()];
        let search = el("r3", "button", "Search", header);
        let obs = Observation {
            elements: vec![search.clone(), decoy.clone(), field.clone()],
            ..Observation::default()
        };
        let without_button = Observation {
            elements: vec![decoy.clone(), field.clone()],
            ..Observation::default()
        };
        let mut second = field.clone();
        second.id = "r7".into();
        second.label = "Postleitzahl".into();
        let two_fields = Observation {
            elements: vec![search, decoy, field, second],
            ..Observation::default()
        };
        let table = [
            (
                &obs,
                "search for scandinavian living room ideas",
                Some("r6"),
            ),
            (&obs, "type small bathroom into the search box", Some("r6")),
            // No Search button: nothing says the field searches, and the decoy takes nothing.
            (
                &without_button,
                "type small bathroom into the search box",
                None,
            ),
            // Two fields take text: the button alone does not say which one searches.
            (&two_fields, "type small bathroom into the search box", None),
        ];
        for (obs, text, want) in table {
            let got = typed_into(obs, text).map(|(id, _)| id);
            assert_eq!(got.as_deref(), want, "{text}");
        }
        // An observation that carries no states is taken at its roles.
        assert!(el("x", "textbox", "Name", "").accepts_text());
        assert!(!el("y", "combobox", "Sort", "").accepts_text());
    }

    /// "Leave a comment" is commenting: the light verb takes its noun's meaning, so the
    /// Comment control offers it; a noun no control's meaning names is still rejected.
    #[test]
    fn a_light_verb_means_what_its_noun_names() {
        let row = "Like Comment Share";
        let obs = Observation {
            elements: vec![
                el("r6", "link", "Like", row),
                el("r7", "link", "Comment", row),
                el("r8", "link", "Share", row),
            ],
            ..Observation::default()
        };
        assert_eq!(
            clicked(&obs, "leave a comment on the article").as_deref(),
            Some("r7")
        );
        assert_eq!(clicked(&obs, "leave a tip for the author"), None);
    }

    /// A link to an audio file plays, one to a PDF downloads, whatever their labels say; a
    /// link to a page does neither.
    #[test]
    fn a_link_to_a_file_offers_what_is_done_with_it() {
        let row = "Выпуск 369 аудио Tweet";
        let link = |id: &str, label: &str, to: &str| Element {
            destination: Some(to.into()),
            ..el(id, "link", label, row)
        };
        let obs = Observation {
            elements: vec![
                link(
                    "r1",
                    "Выпуск 369",
                    "podcast.umputun.com/p/2011/10/16/podcast-369/",
                ),
                link(
                    "r2",
                    "аудио",
                    "podcast.umputun.com/media/ump_podcast369.mp3",
                ),
                link("r3", "Tweet", "twitter.com/share"),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "play this episode").as_deref(), Some("r2"));
        assert_eq!(
            clicked(&obs, "download this episode").as_deref(),
            Some("r2")
        );
        assert_eq!(clicked(&obs, "print this episode"), None);
    }

    /// A link to a social network's page is how one follows there; a link that shares this
    /// page on it is not.
    #[test]
    fn a_social_network_link_offers_following() {
        let link = |id: &str, label: &str, to: &str| Element {
            destination: Some(to.into()),
            ..el(id, "link", label, "Contact Us Donate Twitter Share")
        };
        let obs = Observation {
            elements: vec![
                link("r1", "Contact Us", "www.mozilla.org/contact/"),
                link("r2", "Donate", "foundation.mozilla.org/donate/"),
                link("r3", "Twitter", "twitter.com/firefox"),
                link("r4", "Share", "www.facebook.com/sharer.php"),
            ],
            ..Observation::default()
        };
        assert_eq!(
            clicked(&obs, "follow Firefox on Twitter").as_deref(),
            Some("r3")
        );
        assert_eq!(clicked(&obs, "follow them on facebook"), None);
        assert_eq!(scores(&obs, "follow them on facebook")[3], 0.0);
    }

    /// A link goes where its verb is done: signing in, signing up and contacting are offered by
    /// a link to the page that does them, whatever its label says; other verbs are not.
    #[test]
    fn a_link_offers_the_account_verb_of_where_it_goes() {
        let link = |id: &str, label: &str, to: &str| Element {
            destination: Some(to.into()),
            ..el(id, "link", label, "Home Ingresa account Venta Empresas")
        };
        let obs = Observation {
            elements: vec![
                link("r1", "Home", "www.puntoticket.com/"),
                link("r2", "Ingresa", "compra.puntoticket.com/account/signin"),
                link("r3", "account", "accounts.craigslist.org/login/home"),
                link(
                    "r4",
                    "Venta Empresas",
                    "puntoticket.zendesk.com/hc/es/requests/new",
                ),
                link("r5", "Folleto", "www.example.com/files/download"),
            ],
            ..Observation::default()
        };
        assert_eq!(best(&obs, "sign in").0, "r2");
        assert_eq!(clicked(&obs, "log in to my account").as_deref(), Some("r3"));
        assert_eq!(clicked(&obs, "download the brochure"), None);
        // An address that runs the account word into the next: "/user/loginform" beside links
        // to the same host's other pages.
        let obs = Observation {
            elements: vec![
                link("r1", "로그인", "login.tmon.co.kr/user/loginform"),
                link("r2", "구매·배송조회", "login.tmon.co.kr/user/buyInfo"),
                link("r3", "회원가입", "login.tmon.co.kr/user/signup"),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "log in").as_deref(), Some("r1"));
    }

    /// "create a new account" is signing up and "create a new paste" a new paste: creating
    /// means what its object names, whatever words stand between.
    #[test]
    fn creating_means_what_its_object_names() {
        let obs = links(&["Home", "Ingresa", "Regístrate", "Mi cuenta", "new paste"]);
        assert_eq!(clicked(&obs, "create a new account").as_deref(), Some("r3"));
        assert_eq!(clicked(&obs, "create a new paste").as_deref(), Some("r5"));
    }

    /// "for this film" points at what the page shows: it is no requirement that some element
    /// must meet, as "for the concert", which nothing on screen says, is.
    #[test]
    fn a_qualifier_pointing_at_the_shown_thing_is_no_requirement() {
        let obs = Observation {
            elements: vec![
                el("r1", "link", "Buy tickets", "Lina de Lima Buy tickets"),
                el("r2", "link", "Points of sale", "Points of sale Help"),
                el("r3", "link", "Help", "Points of sale Help"),
            ],
            ..Observation::default()
        };
        let r1 = |said: &str| scores(&obs, said)[0];
        assert_eq!(r1("buy a ticket for this film"), r1("buy a ticket"));
        assert!(r1("buy a ticket for the concert") < r1("buy a ticket"));
    }

    /// A row headed by the verb offers it through its links: "share this on Twitter" is the
    /// Twitter link of "Share This:", not a link whose label starts with "Share".
    #[test]
    fn a_row_headed_by_the_verb_offers_it() {
        let row = "Share This: Twitter Facebook Email";
        let obs = Observation {
            elements: vec![
                el("r1", "link", "Twitter", row),
                el("r2", "link", "Facebook", row),
                el(
                    "r3",
                    "link",
                    "Share-Worthy",
                    "Latest News Share-Worthy Photos",
                ),
            ],
            ..Observation::default()
        };
        assert_eq!(best(&obs, "share this on Twitter").0, "r1");
        assert_eq!(best(&obs, "share it on facebook").0, "r2");
    }

    /// A reasoning verb that, with its words, is a control's whole name clicks it ("compare the
    /// editions" beside "Compare Editions"); otherwise it is reasoning.
    #[test]
    fn a_reasoning_verb_that_names_a_control_clicks_it() {
        let obs = Observation {
            elements: vec![
                el("r1", "link", "Compare Editions", ""),
                el("r2", "link", "Buy Now", ""),
            ],
            ..Observation::default()
        };
        let structure = Structure::of(&obs);
        let screen = Screen {
            observation: &obs,
            structure: &structure,
        };
        let r = utterance::read("compare the editions");
        assert_eq!(action_of(&r, Some(screen)), ActionKind::Click);
        assert_eq!(best(&obs, "compare the editions").0, "r1");
        let r = utterance::read("compare the prices of both");
        assert_eq!(action_of(&r, Some(screen)), ActionKind::Reason);
    }

    /// Asserts the action each request in `table` asks for, on a screen of links named `labels`.
    fn assert_actions(labels: &[&str], table: &[(&str, ActionKind)]) {
        assert_actions_on(&links(labels), table);
    }

    /// A screen of links named `labels`, with ids r1, r2 ….
    fn links(labels: &[&str]) -> Observation {
        Observation {
            elements: labels
                .iter()
                .enumerate()
                .map(|(k, label)| el(&format!("r{}", k + 1), "link", label, ""))
                .collect(),
            ..Observation::default()
        }
    }

    /// Asserts the action each request in `table` asks for, on `obs`.
    fn assert_actions_on(obs: &Observation, table: &[(&str, ActionKind)]) {
        let structure = Structure::of(obs);
        let screen = Screen {
            observation: obs,
            structure: &structure,
        };
        for (said, want) in table {
            let r = utterance::read(said);
            assert_eq!(action_of(&r, Some(screen)), *want, "{said}");
        }
    }

    /// "all" with a verb that goes somewhere names one place (the collection); with one that
    /// acts on each member, several steps.
    #[test]
    fn going_to_all_of_a_kind_is_one_place() {
        assert_actions(
            &["Home", "All News", "Story one", "Story two"],
            &[
                ("back to all news", ActionKind::Click),
                ("go to all news", ActionKind::Click),
                ("take me to all news", ActionKind::Click),
                ("show me all news", ActionKind::Click),
                ("open all the stories", ActionKind::Reason),
                ("delete all the stories", ActionKind::Reason),
            ],
        );
    }

    /// A question about a thing that a control names by all its words is answered where that
    /// control goes; about what is shown, or about a thing no control names, it is reasoned.
    #[test]
    fn a_question_about_a_named_thing_opens_it() {
        assert_actions(
            &["Best Credit Cards", "Nature and Climate", "Video", "Price"],
            &[
                ("what are the best credit cards", ActionKind::Click),
                ("tell me about nature and climate", ActionKind::Click),
                ("what is this video about", ActionKind::Reason),
                ("what are the opening hours", ActionKind::Reason),
                ("what is the price", ActionKind::Reason),
            ],
        );
        // A link that offers more about the thing is named by the thing; the words it offers
        // more with count only when asking about something ("learn more" is no thing).
        assert_actions(
            &["Learn more about Web Audio Editor", "Read more", "Price"],
            &[
                ("tell me more about the web audio editor", ActionKind::Click),
                ("tell me about the audio editor", ActionKind::Click),
                ("tell me more about the video editor", ActionKind::Reason),
            ],
        );
        let r = utterance::read("what are the best credit cards");
        assert_eq!(action_of(&r, None), ActionKind::Reason, "no screen");
        assert!(crate::director::reader::is_request(
            "what are the best credit cards"
        ));
    }

    /// A question of a way ("how do I contact …") or of a thing offered ("is there an app …")
    /// is answered on the page that a link its rest names opens. A button that acts is no
    /// answer (asking how is not asking to do it), nor is a weak match: both are reasoned.
    #[test]
    fn a_way_question_follows_the_link_that_answers_it() {
        assert_actions(
            &["Contact", "Android app", "Opening hours"],
            &[
                ("how do I contact them", ActionKind::Click),
                ("how can I contact them", ActionKind::Click),
                ("is there an android app", ActionKind::Click),
                ("are there any opening hours", ActionKind::Click),
                ("how do I bake bread", ActionKind::Reason),
                (
                    "is there a calculator for import duties",
                    ActionKind::Reason,
                ),
            ],
        );
        let obs = Observation {
            elements: vec![
                el("b1", "button", "Delete account", ""),
                el("l1", "link", "Help", ""),
            ],
            ..Observation::default()
        };
        assert_actions_on(
            &obs,
            &[
                ("how do I delete my account", ActionKind::Reason),
                ("delete my account", ActionKind::Click),
            ],
        );
        assert!(crate::director::reader::is_request("how do I contact them"));
    }

    /// "get in touch with them" is the one word a label uses: "Contact".
    #[test]
    fn a_phrasal_verb_is_the_word_a_label_uses() {
        let obs = links(&["Careers", "Contact Us", "Sitemap"]);
        assert_eq!(best(&obs, "get in touch with them").0, "r2");
        assert_actions_on(
            &obs,
            &[("how can I get in touch with them", ActionKind::Click)],
        );
        let r = utterance::read("how do I get in touch with them");
        assert_eq!(
            &r.source[r.tokens[r.begin].start..],
            "get in touch with them"
        );
    }

    /// A question that says every word of a link's label (two at least) is answered where the
    /// link goes, and its other words name nothing; one about what is shown is reasoned.
    #[test]
    fn a_question_naming_a_link_in_full_follows_it() {
        let labels = [
            "Board of Directors",
            "Management board",
            "Tweet likes",
            "History",
            "Learn more about the verified Certificate of Achievement",
        ];
        assert_actions(
            &labels,
            &[
                ("who sits on the board of directors", ActionKind::Click),
                // A link that offers more about its topic, the topic asked in the sentence
                // before (one word of three left out).
                (
                    "what is a verified certificate? tell me more",
                    ActionKind::Click,
                ),
                ("what is a certificate? tell me more", ActionKind::Reason),
                ("how many likes does this tweet have", ActionKind::Reason),
                ("who founded the company", ActionKind::Reason),
                ("who is on the board", ActionKind::Reason),
            ],
        );
        let obs = links(&labels);
        let structure = Structure::of(&obs);
        let screen = Screen {
            observation: &obs,
            structure: &structure,
        };
        let r = utterance::read("who sits on the board of directors");
        let topic = question_topic(&r, screen).expect("the link's words");
        let scores = score_elements(&topic, screen, ActionKind::Click);
        assert!(scores[0] > scores[1] + 0.1, "{scores:?}");
    }

    /// "the first three results" is several things of a list: a plan, never one click.
    #[test]
    fn a_count_of_several_is_a_plan() {
        let obs = Observation {
            elements: (1..=5)
                .map(|k| el(&format!("r{k}"), "link", &format!("Result {k}"), ""))
                .collect(),
            ..Observation::default()
        };
        let structure = Structure::of(&obs);
        let screen = Screen {
            observation: &obs,
            structure: &structure,
        };
        let table = [
            (
                "open the first three results in new tabs",
                ActionKind::Reason,
            ),
            ("the top 5 results", ActionKind::Reason),
            ("the last two results", ActionKind::Reason),
            ("open the first result", ActionKind::Click),
            ("open result 3", ActionKind::Click),
        ];
        for (said, want) in table {
            let r = utterance::read(said);
            assert_eq!(action_of(&r, Some(screen)), want, "{said}");
        }
    }

    /// Every element's score for what is said, for the action it is read as.
    fn scores(obs: &Observation, said: &str) -> Vec<f32> {
        let structure = Structure::of(obs);
        let screen = Screen {
            observation: obs,
            structure: &structure,
        };
        let r = utterance::read(said);
        score_elements(&r, screen, action_of(&r, Some(screen)))
    }

    fn best(obs: &Observation, said: &str) -> (String, f32) {
        let scores = scores(obs, said);
        let (i, top) =
            scores
                .iter()
                .enumerate()
                .fold((0, 0.0f32), |b, (i, s)| if *s > b.1 { (i, *s) } else { b });
        (obs.elements[i].id.clone(), top)
    }

    /// A target named by its place beside another: its neighbour in the anchor's row, never
    /// the anchor itself; "next to" is either neighbour, so both are asked about.
    #[test]
    fn a_place_beside_an_anchor_names_the_neighbour() {
        let toolbar = "copy raw download clone embed print report";
        let row = |id: &str, label: &str| el(id, "link", label, toolbar);
        let obs = Observation {
            elements: vec![
                el("h1", "link", "Pastebin", "Pastebin API tools faq"),
                el("h2", "link", "API", "Pastebin API tools faq"),
                row("t1", "copy"),
                row("t2", "raw"),
                row("t3", "download"),
                row("t4", "clone"),
                row("t5", "embed"),
                row("t6", "print"),
                row("t7", "report"),
                {
                    let mut icon = row("i1", "");
                    icon.role = "button".into();
                    icon.description = Some("more options".into());
                    icon
                },
                el("b1", "button", "Save", "Save Cancel"),
                el("b2", "button", "Cancel", "Save Cancel"),
            ],
            ..Observation::default()
        };
        let table: &[(&str, &[&str])] = &[
            ("click the link next to print", &["t5", "t7"]),
            ("the one right after download", &["t4"]),
            ("open the link just before clone", &["t3"]),
            ("the button to the left of Cancel", &["b1"]),
            ("press the button to the right of save", &["b2"]),
            // The first of its row has one neighbour.
            ("the link next to copy", &["t2"]),
            // An unlabelled control the anchor's words describe may be the one meant.
            ("the button next to more options", &["t7", "i1"]),
            // Nothing is called that: nothing, and never the words as a label.
            ("the link after subscribe", &[]),
        ];
        for (said, want) in table {
            assert_eq!(candidates(&obs, said), *want, "{said}");
        }
    }

    /// A toolbar's names are its own: "raw" in the row of the syntax link "text" does not
    /// describe that link, and "text" after "raw" names how the paste is shown, so "the raw
    /// text" is the Raw link; the syntax link is still what "text" alone names.
    #[test]
    fn a_neighbours_name_in_the_row_is_not_a_description() {
        let toolbar = "copy raw download clone embed print report";
        let mut copy = el("t1", "link", "copy", toolbar);
        copy.description = Some("Copy raw to clipboard".into());
        let obs = Observation {
            elements: vec![
                el("s1", "link", "text", &format!("text 14.84 KB {toolbar}")),
                copy,
                el("t2", "link", "raw", toolbar),
                el("t3", "link", "download", toolbar),
                el("t4", "link", "print", toolbar),
            ],
            ..Observation::default()
        };
        for (said, want) in [
            ("show the raw text", "t2"),
            ("open the raw version", "t2"),
            ("open text", "s1"),
        ] {
            assert_eq!(
                candidates(&obs, said).first().map(String::as_str),
                Some(want),
                "{said}"
            );
        }
    }

    /// What kind of action a request is, against a blog's comment form and its links.
    #[test]
    fn requests_that_look_like_tasks_or_questions_but_name_one_control() {
        let form = "Required fields are marked *";
        let obs = Observation {
            elements: vec![
                el("c1", "link", "Reply to John Doe", "John Doe wrote: thanks"),
                el("f1", "textbox", "Name *", form),
                el(
                    "f2",
                    "checkbox",
                    "Save my name, email, and website in this browser",
                    form,
                ),
                el("f3", "textbox", "Comment", form),
                el(
                    "f4",
                    "textbox",
                    "Your email address will not be published.",
                    form,
                ),
                el("b1", "button", "Post Comment", form),
                el(
                    "l1",
                    "link",
                    "Privacy policy",
                    "Home Archives Privacy policy",
                ),
                el("l2", "link", "Archives", "Home Archives Privacy policy"),
            ],
            ..Observation::default()
        };
        let structure = Structure::of(&obs);
        let screen = Screen {
            observation: &obs,
            structure: &structure,
        };
        let table = [
            ("where's the privacy policy", ActionKind::Click, Some("l1")),
            (
                "where can I find the archives",
                ActionKind::Click,
                Some("l2"),
            ),
            ("where is the nearest station", ActionKind::Reason, None),
            ("show me all the archives", ActionKind::Click, Some("l2")),
            ("click the name field", ActionKind::Click, Some("f1")),
            ("go to the comment box", ActionKind::Click, Some("f3")),
            ("answer John Doe", ActionKind::Click, Some("c1")),
            ("answer this question", ActionKind::Reason, None),
            // A verb, not the word of a note ("will not be published").
            ("publish it", ActionKind::Click, Some("b1")),
        ];
        for (said, kind, want) in table {
            let r = utterance::read(said);
            assert_eq!(action_of(&r, Some(screen)), kind, "{said}");
            if let Some(want) = want {
                assert_eq!(
                    candidates(&obs, said).first().map(String::as_str),
                    Some(want),
                    "{said}"
                );
            }
        }
    }

    /// A counted noun the screen never says ("rider") names the numbered rows, as "story"
    /// does; a noun the screen says is a word to match.
    #[test]
    fn an_unseen_counted_noun_counts_the_rows() {
        let obs = Observation {
            elements: [
                (9, "Emil Sajfutdinow"),
                (10, "Janusz Kolodziej"),
                (11, "Bartosz Smektala"),
            ]
            .iter()
            .map(|(n, name)| {
                el(
                    &format!("r{n}"),
                    "link",
                    name,
                    &format!("{n} {name} 3 3 2 - 8"),
                )
            })
            .chain([el("s1", "button", "Share", "Share the match")])
            .collect(),
            ..Observation::default()
        };
        let named = |said: &str| {
            let (id, score) = best(&obs, said);
            (score > 0.0).then_some(id)
        };
        assert_eq!(named("rider number 10").as_deref(), Some("r10"));
        assert_eq!(named("open the tenth rider").as_deref(), Some("r10"));
        // "share" is on screen: a word, not a kind of row.
        assert_ne!(named("the second share").as_deref(), Some("r10"));
    }

    /// Without numbered items, a run of links in one row is a list to count in: one run
    /// acts, two runs ask about the n-th of each, and a pair is no list.
    #[test]
    fn an_unnumbered_run_of_links_is_counted() {
        let posts = "Issue 106 Issue 105 Issue 104";
        let tags = "rust python sqlite";
        let obs = |with_tags: bool| Observation {
            elements: [
                el("c1", "link", "February 9", "John wrote on February 9"),
                el("c2", "link", "Reply to John", "John wrote on February 9"),
                el("p1", "link", "Issue 106", posts),
                el("p2", "link", "Issue 105", posts),
                el("p3", "link", "Issue 104", posts),
            ]
            .into_iter()
            .chain(
                with_tags
                    .then(|| {
                        [
                            el("t1", "link", "rust", tags),
                            el("t2", "link", "python", tags),
                            el("t3", "link", "sqlite", tags),
                        ]
                    })
                    .into_iter()
                    .flatten(),
            )
            .collect(),
            ..Observation::default()
        };
        assert_eq!(
            candidates(&obs(false), "open the third recent post"),
            ["p3"]
        );
        assert_eq!(candidates(&obs(false), "the last one"), ["p3"]);
        assert_eq!(candidates(&obs(true), "the second one"), ["p2", "t2"]);
        // What the words match picks the run.
        assert_eq!(candidates(&obs(true), "the second issue"), ["p2"]);
    }

    /// A link named by a file format offers that file: "download" fits it.
    #[test]
    fn a_file_format_link_downloads() {
        let obs = Observation {
            elements: vec![
                el("h1", "link", "Archiv", "Home Archiv Impressum"),
                el("d1", "link", "mp3", "mp3 (30 MB)"),
                el("d2", "link", "m4a", "m4a (24 MB)"),
                el("d3", "link", "opus", "opus (16 MB)"),
            ],
            ..Observation::default()
        };
        assert_eq!(candidates(&obs, "download the mp3"), ["d1"]);
        assert_eq!(candidates(&obs, "download the episode"), ["d1", "d2", "d3"]);
        // A format is no synonym of another: never one of them alone.
        assert_ne!(candidates(&obs, "download the pdf").len(), 1);
    }

    /// Interface synonyms: a synonym acts on a harmless control and only asks about a
    /// destructive one (its own word must be said to act).
    #[test]
    fn a_synonym_acts_on_a_harmless_control_and_asks_about_a_destructive_one() {
        let toolbar = "copy raw download clone embed print report";
        let obs = Observation {
            elements: vec![
                el("t1", "link", "clone", toolbar),
                el("t2", "link", "print", toolbar),
                el("t3", "link", "report", toolbar),
                el("f1", "checkbox", "Remember me", "Log in Remember me"),
            ],
            ..Observation::default()
        };
        let (id, score) = best(&obs, "fork this paste");
        assert_eq!(id, "t1");
        assert!(score > semantic::ASK_SCORE, "fork acts on clone: {score}");
        let (id, score) = best(&obs, "flag this as abuse");
        assert_eq!(id, "t3");
        assert!(
            score <= semantic::ASK_SCORE,
            "flag only asks about report: {score}"
        );
        let (id, score) = best(&obs, "report this paste");
        assert_eq!(id, "t3");
        assert!(
            score > semantic::ASK_SCORE,
            "report's own word acts: {score}"
        );
        assert_eq!(best(&obs, "save my details").0, "f1");
    }

    /// A label that states its precondition names its action after "to"; "log into" is "log
    /// in"; "improve this question" is the edit link.
    #[test]
    fn precondition_labels_and_particles_name_the_action() {
        let obs = Observation {
            elements: vec![
                el(
                    "s1",
                    "link",
                    "You must be signed in to star a repository",
                    "Code Issues",
                ),
                el("l1", "link", "Log in", "Log in Sign up"),
                el(
                    "q1",
                    "link",
                    "Improve this question",
                    "Share Improve this question Follow",
                ),
                el("h1", "link", "Help", "Help About"),
            ],
            ..Observation::default()
        };
        for (said, want) in [
            ("star this repository", "s1"),
            ("log into my account", "l1"),
            ("edit the question", "q1"),
        ] {
            assert_eq!(
                candidates(&obs, said).first().map(String::as_str),
                Some(want),
                "{said}"
            );
        }
    }

    /// "The first X" over one thing that only its row names is no count: never acted on.
    #[test]
    fn a_count_of_one_thing_its_row_names_is_not_acted_on() {
        let list = "1 cup of corn starch 3/4 cup of flour 1/4 cup of sugar";
        let obs = Observation {
            elements: vec![
                el("c1", "checkbox", "1 cup of corn starch", list),
                el("c2", "checkbox", "3/4 cup of flour", list),
                el("c3", "checkbox", "1/4 cup of sugar", list),
                el(
                    "b1",
                    "button",
                    "",
                    "How to make 1. Sift the dry ingredients into a bowl",
                ),
            ],
            ..Observation::default()
        };
        for said in ["check the first ingredient", "tick the last ingredient"] {
            let scores = scores(&obs, said);
            assert!(scores[3] <= semantic::ASK_SCORE, "{said}: {scores:?}");
        }
    }

    /// An unlabelled control is named by its description, concepts included: a logo link is
    /// a home link.
    #[test]
    fn an_unlabelled_logo_is_the_home_link() {
        let menu = "News World Sport Video";
        let mut logo = el("l1", "link", "", menu);
        logo.description = Some("aktualne logo".into());
        let obs = Observation {
            elements: vec![
                logo,
                el("m1", "link", "News", menu),
                el("m2", "link", "World", menu),
            ],
            ..Observation::default()
        };
        assert_eq!(candidates(&obs, "go to the home page"), ["l1"]);
    }

    /// A link to the site's front page is the home page whatever its label says; a page of
    /// something on the site ("the story's main page") is not.
    #[test]
    fn a_link_to_the_front_page_is_the_home_page() {
        let link = |id: &str, label: &str, to: &str| Element {
            destination: Some(to.into()),
            ..el(id, "link", label, "Menu")
        };
        let obs = Observation {
            url: "http://127.0.0.1:4000/real/party/index.html".into(),
            elements: vec![
                link(
                    "r1",
                    "Zum Inhalt springen",
                    "127.0.0.1:4000/real/party/index.html#main",
                ),
                link("r2", "Bündnis 90/Die Grünen", "www.gruene.de/"),
                link("r3", "Arbeit", "www.gruene.de/themen/arbeit"),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "go to the homepage").as_deref(), Some("r2"));
        assert_eq!(
            clicked(&obs, "take me to the front page").as_deref(),
            Some("r2")
        );
        assert_ne!(
            clicked(&obs, "go to the story's main page").as_deref(),
            Some("r2")
        );
    }

    /// A post that shows "50 Comments" is what the comments belong to, not the first of them.
    #[test]
    fn a_card_that_counts_the_things_is_not_one_of_them() {
        let post = "124 What to put in __init__.py Posted by u/someone 50 Comments Share";
        let first = "level 1 39 points 6 years ago I tend toward option 3";
        let second = "level 2 10 points 6 years ago flat is better than nested";
        let obs = Observation {
            elements: vec![
                el("p1", "button", "upvote", post),
                el("p2", "link", "50 Comments", post),
                el("p3", "button", "Share", post),
                el("c1", "button", "upvote", first),
                el("c2", "link", "6 years ago", first),
                el("d1", "button", "upvote", second),
                el("d2", "link", "6 years ago", second),
            ],
            ..Observation::default()
        };
        let upvote = scores(&obs, "upvote the top comment");
        assert!(
            upvote[0] <= semantic::ASK_SCORE,
            "the post is no comment: {upvote:?}"
        );
        // Where the rows do not say "comment", every upvote fits and the post's is left out.
        let mut plain = obs.clone();
        for e in &mut plain.elements[..3] {
            // A long post's row text is cut before its "50 Comments".
            e.context = "124 What to put in __init__.py Posted by u/someone".into();
        }
        assert_eq!(candidates(&plain, "upvote the top comment"), ["c1"]);
        // Only the post's own count fits: asked about at most, never clicked.
        let scores = scores(&obs, "open the permalink of the first comment");
        assert!(scores[1] <= semantic::ASK_SCORE, "{scores:?}");
    }

    /// Below and above in a table are the next and previous rows, in the anchor's column.
    #[test]
    fn below_and_above_are_rows_of_a_table() {
        let row = |n: &str, name: &str, message: &str| {
            let context = format!("{name} {message} 3 years ago");
            vec![
                el(&format!("n{n}"), "link", name, &context),
                el(&format!("m{n}"), "link", message, &context),
            ]
        };
        let obs = Observation {
            elements: [
                row("1", "docs", "Update the guide"),
                row("2", ".gitignore", "Ignore build output"),
                row("3", "setup.py", "Release 1.2"),
            ]
            .concat(),
            ..Observation::default()
        };
        assert_eq!(candidates(&obs, "the file right below gitignore"), ["n3"]);
        assert_eq!(candidates(&obs, "the folder above gitignore"), ["n1"]);
        assert_eq!(
            candidates(&obs, "the message below ignore build output"),
            ["m3"]
        );
    }

    /// A label that is a number alone is a name: "draft oh one" is the version link "01", not
    /// the draft's own link; an address's words are weaker than a name.
    #[test]
    fn a_number_alone_is_a_name() {
        let versions = "Versions: 00 01 02";
        let obs = Observation {
            elements: vec![
                el("v0", "link", "00", versions),
                el("v1", "link", "01", versions),
                el("v2", "link", "02", versions),
                el(
                    "d1",
                    "link",
                    "draft-dejong-remotestorage-02",
                    "Document: draft",
                ),
                el(
                    "u1",
                    "link",
                    "http://datatracker.ietf.org/drafts/current/",
                    "Document: draft",
                ),
            ],
            ..Observation::default()
        };
        let got = candidates(&obs, "show draft oh one");
        assert!(got.contains(&"v1".to_string()) && got != ["d1"], "{got:?}");
        assert_eq!(
            candidates(&obs, "open version zero two")
                .first()
                .map(String::as_str),
            Some("v2")
        );
    }

    /// A run of links whose row opens with the noun counted is the list of those things.
    #[test]
    fn a_row_headed_by_the_noun_is_the_list_counted() {
        let tools = "[Docs] [txt|pdf] [Tracker]";
        let mut txt = el("t1", "link", "txt", tools);
        txt.description = Some("Plaintext version of this document".into());
        let mut pdf = el("t2", "link", "pdf", tools);
        pdf.description = Some("PDF version of this document".into());
        let versions = "Versions: 00 01 02 03";
        let obs = Observation {
            elements: vec![
                el("t0", "link", "Docs", tools),
                txt,
                pdf,
                el("v0", "link", "00", versions),
                el("v1", "link", "01", versions),
                el("v2", "link", "02", versions),
                el("v3", "link", "03", versions),
            ],
            ..Observation::default()
        };
        assert_eq!(candidates(&obs, "open the very first version"), ["v0"]);
        assert_eq!(candidates(&obs, "the last version"), ["v3"]);
    }

    #[test]
    fn the_best_element_follows_meaning_structure_and_sound() {
        let table = [
            ("go home", Some("e1")),
            ("accept all cookies", Some("e2")),
            ("go to the sea monkey section", Some("e3")),
            ("write 42 in the second box", Some("e5")),
            ("open the one with seventeen comments", Some("e6")),
            ("upvote the second story", Some("u2")),
            ("open the third story", Some("t3")),
            ("downvote the first story", None),
            ("upvote the ninth story", None),
        ];
        for (text, want) in table {
            assert_eq!(top(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn probabilities_are_a_distribution_with_room_for_nothing() {
        let obs = page();
        let structure = Structure::of(&obs);
        let ask = screen::ask(
            &Envelope::voice("t", "open the weather forecast"),
            &obs,
            &structure,
        );
        let answers = LocalDecider.decide(&ask).expect("answers");
        crate::director::decider::validate(&ask, &answers).expect("valid");
        let target = answers
            .iter()
            .find(|a| a.key == QuestionKey::Target)
            .expect("target");
        let (i, p) = target.best().expect("best");
        assert_eq!(i, 0, "nothing fits best");
        assert!(p > 0.9, "{p}");
    }

    #[test]
    fn words_match_by_form_spelling_and_sound() {
        let w = |a: &str, b: &str| word_match(&Token::synthetic(a), &text::tokens(b));
        assert_eq!(w("comments", "17 comments"), 1.0);
        assert!(w("flotes", "random floats") >= 0.7);
        assert!(w("datenschutz", "Datenschutzerklärung") >= 0.75);
        assert_eq!(w("awk", "orc"), 0.0);
        assert_eq!(w("17", "17 comments"), 1.0);
        assert_eq!(w("2", "12 points"), 0.0);
    }

    #[test]
    fn numbers_bind_to_the_word_beside_them() {
        let words = text::tokens("17 comments");
        let q = text::tokens("17 points");
        let m = phrase_match(&Query::new(q.iter().collect()), &words);
        assert!(m[0] < 1.0, "{m:?}");
    }

    /// "show me who works there" asks for people: the members, not the tab *Work* its verb
    /// says; "show me their work" is that tab.
    #[test]
    fn a_clause_about_people_names_people() {
        let row = "Phenomenon Studio Design & Dev Agency";
        let obs = Observation {
            elements: vec![
                el("r10", "link", "Work", row),
                el("r11", "link", "Services New", row),
                el("r14", "link", "Members", row),
                el("r15", "link", "About", row),
            ],
            ..Observation::default()
        };
        let table = [
            ("show me who works there", Some("r14")),
            ("show me their work", Some("r10")),
            ("open the about section", Some("r15")),
        ];
        for (text, want) in table {
            assert_eq!(clicked(&obs, text).as_deref(), want, "{text}");
        }
    }

    /// Two links of one name, one to Facebook's sharer and one a script handles, are two
    /// things: "share this" asks; the site a link goes to names it ("share it on Facebook").
    #[test]
    fn the_site_a_link_goes_to_tells_two_of_one_name_apart() {
        let row = "Schnäppchen Blog TEILEN TWITTERN TEILEN";
        let to = |id: &str, label: &str, destination: Option<&str>| Element {
            destination: destination.map(String::from),
            ..el(id, "link", label, row)
        };
        let obs = Observation {
            url: "https://www.dealdoktor.de/deal/1/".into(),
            elements: vec![
                to(
                    "r5",
                    "Zum Deal",
                    Some("www.dealdoktor.de/goto/deal/321615/"),
                ),
                to("r10", "TEILEN", Some("www.facebook.com/sharer.php")),
                to("r11", "TWITTERN", Some("twitter.com/home")),
                to("r12", "TEILEN", None),
            ],
            ..Observation::default()
        };
        assert_eq!(asked(&obs, "share this"), ["r10", "r12"]);
        assert_eq!(
            clicked(&obs, "share it on Facebook").as_deref(),
            Some("r10")
        );
        // The page's own site names no link ("dealdoktor" is every link's host).
        let own = Structure::of(&obs);
        assert_eq!(own.facts[0].site, None);
        assert_eq!(own.facts[1].site.as_deref(), Some("facebook"));
    }

    /// Labels that are one name and a number ("Go to Slide 3") are counted by their
    /// numbers, from the run's start (1, or 0 for "Versions: 00 01 02"); "next" is the one
    /// after the slide shown as current.
    #[test]
    fn a_numbered_run_is_counted_by_its_numbers() {
        let row = "Tesla Model S P100D 2018";
        let slide = |id: &str, n: u32| el(id, "button", &format!("Go to Slide {n}"), row);
        let mut elements = vec![slide("r3", 12), el("r4", "button", "Open Fullscreen", row)];
        for n in 1..=12u32 {
            let mut e = slide(&format!("s{n}"), n);
            if n == 1 {
                e.states = vec!["focusable".into(), "checked".into()];
            }
            elements.push(e);
        }
        let obs = Observation {
            elements,
            ..Observation::default()
        };
        let table = [
            ("show the third picture", Some("s3")),
            ("jump to photo number ten", Some("s10")),
            ("back to the first photo", Some("s1")),
            ("go to the last photo", Some("r3")),
            ("next picture", Some("s2")),
            // Nothing comes before the first slide.
            ("previous picture", None),
        ];
        for (text, want) in table {
            assert_eq!(clicked(&obs, text).as_deref(), want, "{text}");
        }
        let versions = "Versions: 00 01 02 03 04";
        let obs = Observation {
            elements: ["00", "01", "02", "03", "04"]
                .iter()
                .enumerate()
                .map(|(k, v)| el(&format!("v{k}"), "link", v, versions))
                .collect(),
            ..Observation::default()
        };
        assert_eq!(
            clicked(&obs, "open the very first version").as_deref(),
            Some("v0")
        );
    }

    /// A label that names an order sorts ("sort by popular" / *Popular Shots*), and "the most
    /// recent" is the order a label names, not a comparison to reason about.
    #[test]
    fn a_label_that_names_an_order_sorts() {
        let row = "Featured Shots Recent Shots Popular Shots";
        let obs = Observation {
            elements: vec![
                el("r16", "link", "Featured Shots", row),
                el("r18", "link", "Recent Shots", row),
                el("r19", "link", "Popular Shots", row),
                el("r4", "link", "Get in touch", "Phenomenon Studio"),
            ],
            ..Observation::default()
        };
        let table = [
            ("sort by popular", Some("r19")),
            ("sort them by the most recent", Some("r18")),
            ("show the most recent shots", Some("r18")),
            // No label names this order.
            ("sort by price", None),
            // A label that names no order does not sort.
            ("sort by get in touch", None),
        ];
        for (text, want) in table {
            assert_eq!(clicked(&obs, text).as_deref(), want, "{text}");
        }
    }

    /// An icon described by a verb's "-ing" form offers the verb ("vote" / "orange voting plus
    /// column"); which way the vote goes is not read, so the two are asked about.
    #[test]
    fn a_verbs_ing_form_names_its_control() {
        let row = "Jacobs Gold Kaffee 149 MikeNils";
        let icon = |id: &str, description: &str| Element {
            description: Some(description.into()),
            ..el(id, "button", "", row)
        };
        let obs = Observation {
            elements: vec![
                icon("r1", "cyan voting minus column"),
                icon("r2", "orange voting plus column"),
                el("r3", "link", "MikeNils", row),
            ],
            ..Observation::default()
        };
        assert_eq!(asked(&obs, "vote for this deal"), ["r1", "r2"]);
        assert_eq!(clicked(&obs, "bookmark this deal"), None);
    }

    /// "watch the video" where no list holds videos: the noun alone is the link that says it.
    /// "play the video" starts a video, which no such link does.
    #[test]
    fn a_noun_alone_names_the_link_that_says_it() {
        let row = "Home Python Video & Further Resources About";
        let obs = Observation {
            elements: vec![
                el("r1", "link", "Home", row),
                el("r3", "link", "Python", row),
                el("r15", "link", "Video & Further Resources", row),
                el("r16", "link", "About", row),
            ],
            ..Observation::default()
        };
        assert_eq!(clicked(&obs, "watch the video").as_deref(), Some("r15"));
        assert_eq!(clicked(&obs, "play the video"), None);
    }

    /// "let me know when the price changes" is an alert: the link "crear alerta" is asked
    /// about (the price is not said by it).
    #[test]
    fn letting_know_is_an_alert() {
        let row = "Tesla Hunt > Alemania > Tesla Model S P100D 2018 507 visitas";
        let obs = Observation {
            elements: vec![
                el("r1", "link", "Importar 2,500 €", row),
                el("r37", "link", "crear alerta", row),
                el("r38", "tab", "SUBASTA", row),
            ],
            ..Observation::default()
        };
        assert_eq!(asked(&obs, "let me know when the price changes"), ["r37"]);
    }

    /// A verb meets a button of another language through what its glosses mean: "buy it" is
    /// "Naroči" (glossed "order", which buys); a gloss that means something else is no verb.
    #[test]
    fn a_verb_meets_a_button_by_what_its_glosses_mean() {
        let row = "Bralne leče STICK-ON Količina Naroči";
        let mut obs = Observation {
            elements: vec![
                el("s", "button", "Share to Natisni Print", "Share"),
                el("o", "button", "Naroči", row),
                el("k", "button", "Košarica", row),
            ],
            ..Observation::default()
        };
        obs.glosses = glossed("sl", &[("naroci", "order make"), ("kosarica", "basket")]);
        assert_eq!(clicked(&obs, "buy it").as_deref(), Some("o"));
        assert_eq!(clicked(&obs, "print it").as_deref(), Some("s"));
        obs.glosses = glossed("sl", &[("naroci", "orderly"), ("kosarica", "basket")]);
        assert_eq!(clicked(&obs, "buy it"), None);
    }

    /// The element an utterance picks on `obs` with more than half the probability.
    /// A glossary's findings for a screen: each word with its space-separated glosses.
    fn glossed(language: &str, words: &[(&str, &str)]) -> Option<crate::model::Glosses> {
        Some(crate::model::Glosses {
            language: language.into(),
            words: words
                .iter()
                .map(|(w, g)| (w.to_string(), g.split(' ').map(String::from).collect()))
                .collect(),
        })
    }

    /// The element a typed request clicks, through the whole Director (`None` for anything else).
    /// The action a typed request executes through the whole Director, if it executes one.
    fn executed(obs: &Observation, text: &str) -> Option<crate::director::Action> {
        let snapshot = crate::director::Snapshot {
            observation: Some(obs.clone()),
            ..Default::default()
        };
        match crate::director::decide(&Envelope::typed("t", text), &snapshot, &LocalDecider) {
            crate::director::Decision::Execute(plan) => Some(plan.action),
            _ => None,
        }
    }

    fn clicked(obs: &Observation, text: &str) -> Option<String> {
        match executed(obs, text)? {
            crate::director::Action::Click { target } => Some(target),
            _ => None,
        }
    }

    /// The elements a typed request asks about, in the question's order, through the whole
    /// Director (empty for anything but a question).
    fn asked(obs: &Observation, text: &str) -> Vec<String> {
        let snapshot = crate::director::Snapshot {
            observation: Some(obs.clone()),
            ..Default::default()
        };
        match crate::director::decide(&Envelope::typed("t", text), &snapshot, &LocalDecider) {
            crate::director::Decision::Clarify(c) => c
                .candidates
                .iter()
                .filter_map(|c| match &c.entity {
                    crate::director::EntityRef::Element(id) => Some(id.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `ids` in order, for comparing sets.
    fn sorted(mut ids: Vec<String>) -> Vec<String> {
        ids.sort();
        ids
    }

    fn picked(obs: &Observation, text: &str) -> Option<String> {
        let structure = Structure::of(obs);
        let ask = screen::ask(&Envelope::voice("t", text), obs, &structure);
        let answers = LocalDecider.decide(&ask).expect("answers");
        let target = answers.iter().find(|a| a.key == QuestionKey::Target)?;
        let q = ask
            .questions
            .iter()
            .find(|q| q.key == QuestionKey::Target)?;
        let (i, p) = target.best()?;
        match q.choices[i].meaning {
            Meaning::Element(e) if p > 0.5 => Some(obs.elements[e].id.clone()),
            _ => None,
        }
    }

    /// "The fourth section" counts sections, not whatever is on screen: without numbered
    /// sections only labels that are the noun and a name ("Part 2") are counted, never a
    /// label that merely carries the word ("sections", "Next Chapter").
    #[test]
    fn a_section_ordinal_counts_only_sections() {
        let jump = "Go to sections Top of Page Study Description Study Design Outcome Measures";
        let mut elements = vec![
            el("d1", "link", "Disclaimer", "Study record"),
            el("d2", "button", "sections", jump),
        ];
        for (k, label) in ["Top of Page", "Study Description", "Study Design"]
            .iter()
            .enumerate()
        {
            elements.push(el(&format!("s{k}"), "link", label, jump));
        }
        elements.push(el(
            "c1",
            "link",
            "Next Chapter",
            "Previous Chapter Next Chapter",
        ));
        let obs = Observation {
            elements,
            ..Observation::default()
        };
        assert_eq!(picked(&obs, "open the second section"), None);
        assert_eq!(picked(&obs, "the last section"), None);
        assert_eq!(picked(&obs, "the last chapter"), None);
        let parts = Observation {
            elements: (1..=3)
                .map(|k| {
                    el(
                        &format!("p{k}"),
                        "link",
                        &format!("Part {k}"),
                        "Part 1 Part 2 Part 3",
                    )
                })
                .collect(),
            ..Observation::default()
        };
        assert_eq!(
            picked(&parts, "open the second part").as_deref(),
            Some("p2")
        );
    }

    /// An item or section noun that a label on screen says is that label's word too.
    #[test]
    fn a_kind_noun_that_a_label_says_is_its_word() {
        let obs = Observation {
            elements: vec![
                el(
                    "t1",
                    "link",
                    "Tabular View",
                    "Study Details Tabular View No Results Posted",
                ),
                el(
                    "t2",
                    "link",
                    "No Results Posted",
                    "Study Details Tabular View No Results Posted",
                ),
                el("s1", "button", "sections", "Go to sections Top of Page"),
                el("s2", "link", "Top of Page", "Go to sections Top of Page"),
                el("w1", "link", "Random article", "Main page Random article"),
                el("w2", "link", "Main page", "Main page Random article"),
            ],
            ..Observation::default()
        };
        assert_eq!(picked(&obs, "show the results").as_deref(), Some("t2"));
        assert_eq!(
            picked(&obs, "open the sections menu").as_deref(),
            Some("s1")
        );
        assert_eq!(
            picked(&obs, "show me a random article").as_deref(),
            Some("w1")
        );
        let talk = |id: &str, description: &str, context: &str| Element {
            description: Some(description.into()),
            ..el(id, "link", "Talk", context)
        };
        let wiki = Observation {
            elements: vec![
                talk(
                    "p1",
                    "Discussion about edits from this IP address",
                    "Not logged in Talk Contributions",
                ),
                el("p2", "link", "Article", "Namespaces Article Talk"),
                talk(
                    "p3",
                    "Discussion about the content page",
                    "Namespaces Article Talk",
                ),
            ],
            ..Observation::default()
        };
        assert_eq!(
            picked(&wiki, "open the talk page for this article").as_deref(),
            Some("p3")
        );
        assert_eq!(picked(&wiki, "talk"), None);
    }

    /// A tab drawn as a link, a menu opened by a button: still "the tab", "the menu"; a
    /// real tab of the same name is still preferred.
    #[test]
    fn tabs_and_menus_may_be_links_and_buttons() {
        let row = "Study Details Tabular View No Results Posted";
        let obs = Observation {
            elements: vec![
                el("t1", "link", "Tabular View", row),
                el("t2", "link", "No Results Posted", row),
                el("m1", "button", "Find Studies", "Find Studies New Search"),
            ],
            ..Observation::default()
        };
        assert_eq!(
            picked(&obs, "open the no results posted tab").as_deref(),
            Some("t2")
        );
        assert_eq!(
            picked(&obs, "open the find studies menu").as_deref(),
            Some("m1")
        );
        let both = Observation {
            elements: vec![
                el("l1", "link", "Reviews", "Reviews Details"),
                el("t1", "tab", "Reviews", "Reviews Details"),
            ],
            ..Observation::default()
        };
        let structure = Structure::of(&both);
        let scores = score_elements(
            &utterance::read("the reviews tab"),
            Screen {
                observation: &both,
                structure: &structure,
            },
            action_of(&utterance::read("the reviews tab"), None),
        );
        assert!(scores[1] > scores[0], "{scores:?}");
    }

    /// The author noun of the head means the byline; in the qualifier it says whom the
    /// action is for, so the target need not be the byline itself.
    #[test]
    fn an_author_in_the_qualifier_is_not_the_target() {
        let bar = "Fiction Page Donate Patreon Report Chapter";
        let obs = Observation {
            elements: vec![
                el(
                    "t",
                    "link",
                    "Super Supportive",
                    "Super Supportive by Sleyca",
                ),
                el("a", "link", "Sleyca", "Super Supportive by Sleyca"),
                el("d", "link", "Donate", bar),
                el("r", "link", "Report Chapter", bar),
            ],
            ..Observation::default()
        };
        assert_eq!(
            picked(&obs, "open the author's profile").as_deref(),
            Some("a")
        );
        assert_eq!(picked(&obs, "donate to the author").as_deref(), Some("d"));
    }

    /// "when do they pick up the garbage" goes to the planner by its words; beside a link that
    /// meaning clearly singles out (*Abfallentsorgung*) it asks about that link instead.
    #[test]
    fn meaning_points_a_planner_request_at_its_link() {
        let said = "when do they pick up the garbage";
        let mut obs = Observation {
            elements: vec![
                el(
                    "l1",
                    "link",
                    "Abfallentsorgung",
                    "Bürgerservice Abfallentsorgung",
                ),
                el(
                    "l2",
                    "link",
                    "Bürgerservice",
                    "Bürgerservice Abfallentsorgung",
                ),
            ],
            ..Observation::default()
        };
        let planner = |obs: &Observation| {
            let snapshot = crate::director::Snapshot {
                observation: Some(obs.clone()),
                ..Default::default()
            };
            match crate::director::decide(&Envelope::typed("t", said), &snapshot, &LocalDecider) {
                crate::director::Decision::Execute(plan) => {
                    plan.action == crate::director::Action::Planner
                }
                _ => false,
            }
        };
        assert!(planner(&obs));
        obs.similarity = Some(crate::director::observation::Similarity {
            text: vec![0.5, 0.21],
            label: vec![0.5, 0.2],
        });
        assert_eq!(asked(&obs, said), ["l1"]);
        // Not clearly closer than the other link: the planner still answers.
        obs.similarity = Some(crate::director::observation::Similarity {
            text: vec![0.5, 0.4],
            label: vec![0.5, 0.4],
        });
        assert!(planner(&obs));
    }

    /// "fact checks of Mike Pence": the qualifier names a link of two words in full, so the
    /// head ("fact checks", what the link leads to) meeting nothing in it does not rule the link
    /// out, though "fact checks" half-meets *Health Check*. One word of the name ("fact checks of
    /// Pence") is not enough.
    #[test]
    fn a_qualifier_that_names_a_label_in_full_keeps_it() {
        let menu = "People Donald Trump Mike Pence Barack Obama Chain E-mails";
        let obs = Observation {
            elements: vec![
                el("t", "link", "Donald Trump", menu),
                el("p", "link", "Mike Pence", menu),
                el("o", "link", "Barack Obama", menu),
                el("c", "link", "Chain E-mails", menu),
                el("h", "link", "Health Check", "Health Check Facebook Hoaxes"),
            ],
            ..Observation::default()
        };
        let candidates = asked(&obs, "show me fact checks of Mike Pence");
        assert_eq!(
            candidates.first().map(String::as_str),
            Some("p"),
            "{candidates:?}"
        );
        let one = Screen {
            observation: &obs,
            structure: &Structure::of(&obs),
        };
        let full = utterance::read("show me fact checks of Mike Pence");
        let part = utterance::read("show me fact checks of Pence");
        let full_score = score_elements(&full, one, action_of(&full, None))[1];
        let part_score = score_elements(&part, one, action_of(&part, None))[1];
        assert!(
            full_score > part_score * 1.5,
            "{full_score} vs {part_score}"
        );
    }

    /// "the points shopping": the items of the menu the Shopping button heads that say
    /// "points" are what is meant, as much as the button; the noun names their menu. A link
    /// outside the menu ("Points calculator" under no button) gains nothing.
    #[test]
    fn a_menu_named_by_the_noun_holds_its_items() {
        let menu = "Shopping Earn points Use points";
        let obs = Observation {
            elements: vec![
                el("f", "link", "Flights", "Flights Hotels Shopping"),
                el("s", "button", "Shopping", menu),
                el("e", "link", "Earn points", menu),
                el("u", "link", "Use points", menu),
                el("c", "link", "Points calculator", "Tools Points calculator"),
            ],
            ..Observation::default()
        };
        let candidates = sorted(asked(&obs, "take me to the points shopping"));
        assert!(
            candidates.contains(&"e".to_string()) && candidates.contains(&"u".to_string()),
            "{candidates:?}"
        );
        assert!(!candidates.contains(&"c".to_string()), "{candidates:?}");
        // The button's own items are still its own: "the shopping menu" is the button.
        assert_eq!(
            clicked(&obs, "open the shopping menu").as_deref(),
            Some("s")
        );
    }

    /// "check in for my flight" is the traveller's check-in, which a control must offer: beside
    /// only a Flights link it fits nothing; a "Check-in" link takes it.
    #[test]
    fn check_in_needs_a_control_that_checks_in() {
        let bar = "Flights Hotels Holidays";
        let mut obs = Observation {
            elements: vec![
                el("f", "link", "Flights", bar),
                el("h", "link", "Hotels", bar),
            ],
            ..Observation::default()
        };
        let said = "check in for my flight to Sydney";
        assert_eq!(clicked(&obs, said), None);
        assert!(asked(&obs, said).is_empty());
        obs.elements.push(el("c", "link", "Check-in", bar));
        assert_eq!(clicked(&obs, said).as_deref(), Some("c"));
    }

    /// "sign in with Asan Imza": the means said after a sign-in verb names the method's tab,
    /// which says no "sign in" itself. Only a sign-in verb's means: "share it with Anna" does
    /// not click the link Anna, and the means must name the whole label.
    #[test]
    fn a_sign_in_means_names_its_control() {
        let tabs = "Asan Imza E-Imza Kod Parol";
        let obs = Observation {
            elements: vec![
                el("a", "tab", "Asan Imza", tabs),
                el("e", "tab", "E-Imza", tabs),
                el("k", "tab", "Kod Parol", tabs),
                el("n", "link", "Anna", "Friends Anna"),
            ],
            ..Observation::default()
        };
        assert_eq!(
            clicked(&obs, "I want to sign in with Asan Imza").as_deref(),
            Some("a")
        );
        assert_eq!(
            clicked(&obs, "log in using kod parol").as_deref(),
            Some("k")
        );
        assert_eq!(clicked(&obs, "share it with Anna"), None);
        assert_eq!(clicked(&obs, "sign in with asan"), None);
    }

    /// Saving something to a place is adding it there: "save Chappie to my playlist" is the
    /// film's "Add to Playlist", not its trailer (a video file, which "save" would download);
    /// the place must be the one said, and saving without a place is not adding.
    #[test]
    fn saving_to_a_place_adds_to_it() {
        let film = |name: &str| format!("{name} Trailer Add to Playlist Add to Watchlist 19:00");
        let obs = Observation {
            elements: vec![
                Element {
                    destination: Some("trailers.example/chappie.mp4".into()),
                    ..el("t", "link", "Trailer", &film("Chappie"))
                },
                el("p", "link", "Add to Playlist", &film("Chappie")),
                el("w", "link", "Add to Watchlist", &film("Chappie")),
                el("q", "link", "Add to Playlist", &film("Big Hero 6")),
            ],
            ..Observation::default()
        };
        assert_eq!(
            clicked(&obs, "save Chappie to my playlist").as_deref(),
            Some("p")
        );
        assert_eq!(
            clicked(&obs, "save Chappie in my watchlist").as_deref(),
            Some("w")
        );
        assert_eq!(clicked(&obs, "save Chappie to my favourites"), None);
    }
}

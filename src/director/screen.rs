//! Grounding a turn against what is on screen.
//!
//! Owns the questions put to a decider about one observation (action, target,
//! direction), and the gates that turn the decider's probabilities into a
//! decision: act only on an offered element whose merged probability clears
//! [`ACT_AT`]; otherwise ask with the top three candidates, or reject when
//! nothing fits. Text to type is taken from the utterance, never from a
//! decider.

use crate::director::decider::{
    ActionKind, Answer, Ask, Choice, Heard, Meaning, Question, QuestionKey, Screen,
};

use super::observation::{Observation, Structure};
use super::text;
use super::types::{
    Action, Candidate, Clarification, Confirmation, Decision, Direction, EntityRef, Envelope,
    Evidence, MatchKind, Plan, RejectReason, Rejection, Route, Slot, Source, SpanRole,
};
use super::utterance::{self, Ordinal, Reading, Verb, MAX_TEXT};

/// Act when the merged probability of the best element is at least this.
/// Chosen from the dev corpus coverage/accuracy curve (docs/GROUNDING.md).
pub const ACT_AT: f32 = 0.6;
/// Also act at this probability or more when the best element leads the next by
/// [`CLEAR_LEAD`] or more: a name that only one item carries ("the ALEX desk")
/// among many alike items ("Add to cart" on every card) spreads the remaining
/// mass thinly without making the choice any less clear.
pub const CLEAR_ACT_AT: f32 = 0.5;
pub const CLEAR_LEAD: f32 = 8.0;
/// A request led by a small word the page never says ("the", "their": a page in another
/// language) is acted on only at this probability or more, and without a count, a place or a
/// contrast; otherwise asked.
pub const CLEAR_SMALL_LEAD: f32 = 0.9;
/// Below this, the best element is not worth offering: reject instead.
pub const OFFER_AT: f32 = 0.08;
/// Below [`OFFER_AT`], an element at least this fraction as likely as "nothing fits" still
/// carries real evidence and is asked about rather than rejected: for the local decider a
/// score of 0.1 against its nothing score of 0.45 (exp(14 × −0.35)).
pub const EVIDENCE_RATIO: f32 = 0.0074;
/// Candidates below this are not shown in a clarification.
pub const SHOW_AT: f32 = 0.02;

/// The recognition hypotheses with their prior weights.
pub fn heard(envelope: &Envelope) -> Vec<Heard> {
    let mut out = vec![Heard {
        text: envelope.text.clone(),
        weight: 1.0,
    }];
    for (rank, alt) in envelope.alternatives.iter().enumerate() {
        let prior = 0.92 - 0.04 * rank as f32;
        let weight = match alt.confidence {
            Some(c) => (0.95 * c).clamp(0.05, 0.95),
            None => prior.max(0.5),
        };
        out.push(Heard {
            text: alt.text.clone(),
            weight,
        });
    }
    out
}

/// The three independent questions about one observation.
pub fn ask<'a>(
    envelope: &Envelope,
    observation: &'a Observation,
    structure: &'a Structure,
) -> Ask<'a> {
    let actions = [
        (
            ActionKind::Click,
            "click",
            "Click, open, select or toggle one element",
        ),
        (
            ActionKind::Type,
            "type",
            "Type text from the command into a field",
        ),
        (ActionKind::Scroll, "scroll", "Scroll the page"),
        (ActionKind::Back, "back", "Go back to the previous page"),
        (
            ActionKind::Reason,
            "reason",
            "A question, or a task of several steps",
        ),
    ];
    let mut targets = vec![Choice {
        key: "0".into(),
        text: "No element fits the command".into(),
        meaning: Meaning::Nothing,
    }];
    targets.extend(
        observation
            .elements
            .iter()
            .enumerate()
            .map(|(i, _)| Choice {
                key: (i + 1).to_string(),
                // Described on demand (`Ask::describe`): the local decider
                // never needs the text, and 200 descriptions cost time.
                text: String::new(),
                meaning: Meaning::Element(i),
            }),
    );
    Ask {
        heard: heard(envelope),
        questions: vec![
            Question {
                key: QuestionKey::Action,
                instructions: "What kind of action does the user's command ask for?".into(),
                choices: actions
                    .iter()
                    .map(|(k, key, text)| Choice {
                        key: (*key).into(),
                        text: (*text).into(),
                        meaning: Meaning::Action(*k),
                    })
                    .collect(),
            },
            Question {
                key: QuestionKey::Target,
                instructions: "Which on-screen element does the user's command refer to? Answer 0 if none fits.".into(),
                choices: targets,
            },
            Question {
                key: QuestionKey::Direction,
                instructions: "If the user wants to scroll, which direction?".into(),
                choices: vec![
                    Choice {
                        key: "down".into(),
                        text: "Down / further / more".into(),
                        meaning: Meaning::Direction(Direction::Down),
                    },
                    Choice {
                        key: "up".into(),
                        text: "Up / back to the top".into(),
                        meaning: Meaning::Direction(Direction::Up),
                    },
                ],
            },
        ],
        screen: Some(Screen {
            observation,
            structure,
        }),
    }
}

/// How an element is described to a remote model.
pub fn option_text(e: &super::observation::Element) -> String {
    let mut s = format!("{} \"{}\"", e.role, e.label.trim());
    if !e.context.trim().is_empty() {
        s.push_str(&format!(" in \"{}\"", e.context.trim()));
    }
    if let (Some(o), Some(of)) = (e.ordinal, e.of) {
        s.push_str(&format!(" (#{o} of {of})"));
    }
    if let Some(v) = e.value.as_deref().filter(|v| !v.is_empty()) {
        s.push_str(&format!(" value \"{v}\""));
    }
    if !e.states.is_empty() {
        s.push_str(&format!(" [{}]", e.states.join(", ")));
    }
    s
}

/// Turns the decider's answers into a decision.
pub fn conclude(
    envelope: &Envelope,
    observation: &Observation,
    structure: &Structure,
    ask: &Ask<'_>,
    answers: &[Answer],
) -> Decision {
    let reading = utterance::read(&envelope.text);
    let pick = |key: QuestionKey| -> Option<(&Question, &Answer)> {
        let q = ask.questions.iter().find(|q| q.key == key)?;
        let a = answers.iter().find(|a| a.key == key)?;
        Some((q, a))
    };
    let (action, action_p) = pick(QuestionKey::Action)
        .and_then(|(q, a)| {
            let (i, p) = a.best()?;
            match q.choices[i].meaning {
                Meaning::Action(k) => Some((k, p)),
                _ => None,
            }
        })
        .unwrap_or((ActionKind::Click, 0.0));
    let ranked = pick(QuestionKey::Target)
        .map(|(q, a)| rank_targets(observation, structure, q, a))
        .unwrap_or_default();
    let best = ranked.first().copied();
    let nothing_p = pick(QuestionKey::Target)
        .and_then(|(q, a)| {
            let k = q
                .choices
                .iter()
                .position(|c| c.meaning == Meaning::Nothing)?;
            a.probabilities.get(k).copied()
        })
        .unwrap_or(1.0);

    // Seed 001's consistency rule: action and target are judged apart, and a
    // confident target with a shaky "reason" means the user named a thing.
    let action = match (action, best) {
        (ActionKind::Reason, Some((_, p))) if action_p < 0.6 && p >= 0.6 => ActionKind::Click,
        (a, _) => a,
    };
    let plan = |action: Action, evidence: Vec<Evidence>, confidence: f32| {
        Decision::Execute(Plan {
            action,
            route: Route::default(),
            continuation: false,
            objective: reading.request().to_string(),
            evidence,
            source: Source::of(envelope),
            resumes: None,
            learned: Vec::new(),
            confidence,
            steps: Vec::new(),
        })
    };
    match action {
        ActionKind::Reason => plan(Action::Planner, Vec::new(), action_p),
        ActionKind::Back => plan(Action::Back, Vec::new(), action_p),
        ActionKind::Scroll => {
            let direction = pick(QuestionKey::Direction)
                .and_then(|(q, a)| match q.choices[a.best()?.0].meaning {
                    Meaning::Direction(d) => Some(d),
                    _ => None,
                })
                .unwrap_or(Direction::Down);
            plan(
                Action::Scroll(direction),
                vec![Evidence {
                    heard: reading.request().to_string(),
                    role: SpanRole::Direction,
                    entity: None,
                    kind: MatchKind::Meaning,
                    confirmation: Confirmation::Unconfirmed,
                }],
                action_p,
            )
        }
        ActionKind::Click | ActionKind::Type => {
            let Some((index, p)) = best.filter(|(_, p)| *p >= OFFER_AT) else {
                // "post it to reddit": no control says the verb, but one is named in full by
                // the channel it names; that may be the way to do it, so it is offered, never
                // acted on.
                let named = object_named_in_full(&reading, observation, structure);
                if action == ActionKind::Click && !named.is_empty() {
                    let p = 1.0 / named.len() as f32;
                    let offered: Vec<(usize, f32)> = named.iter().map(|&i| (i, p)).collect();
                    return clarify(envelope, observation, &offered);
                }
                // "the second campus": the n-th of a row of alike controls is offered.
                let screen = Screen {
                    observation,
                    structure,
                };
                let counted = super::local::counted_in_rows(&reading, screen);
                if action == ActionKind::Click && !counted.is_empty() {
                    let p = 1.0 / counted.len() as f32;
                    let offered: Vec<(usize, f32)> = counted.iter().map(|&i| (i, p)).collect();
                    return clarify(envelope, observation, &offered);
                }
                let evidenced = evidenced(&ranked, nothing_p);
                if !evidenced.is_empty() {
                    return clarify(envelope, observation, &evidenced);
                }
                return Decision::Reject(nothing_fits(&reading));
            };
            let next = ranked.get(1).map_or(0.0, |(_, q)| *q);
            let clear = p >= CLEAR_ACT_AT && p >= CLEAR_LEAD * next;
            if (p < ACT_AT && !clear)
                || one_word_in_two_forms(&reading, observation, structure, &ranked)
                || reading.guessed_verb
                || leads_with_an_unknown_word(&reading, observation, p)
                || names_only_a_kind_of_network(&reading, structure, index)
                || a_bare_word_could_be_an_action(&reading, observation, &ranked)
            {
                return clarify(envelope, observation, &ranked);
            }
            if let Some(named) = another_names_the_object(&reading, observation, structure, index) {
                let mut offered = vec![(index, p), (named, p)];
                offered.extend(ranked.iter().filter(|(i, _)| *i != index && *i != named));
                return clarify(envelope, observation, &offered);
            }
            let element = &observation.elements[index];
            let target = element.id.clone();
            let mut evidence = vec![Evidence {
                heard: reading.request().to_string(),
                role: SpanRole::Target,
                entity: Some(EntityRef::Element(target.clone())),
                kind: match_kind(&reading, structure, index),
                confirmation: Confirmation::Unconfirmed,
            }];
            if action == ActionKind::Click {
                // A closed list whose choice the words name: that choice is chosen, as typed.
                let screen = Screen {
                    observation,
                    structure,
                };
                if let Some(k) = super::local::named_option(&reading, screen, index) {
                    let text = element.options[k].clone();
                    evidence.push(Evidence {
                        heard: text.clone(),
                        role: SpanRole::Text,
                        entity: None,
                        kind: MatchKind::Literal,
                        confirmation: Confirmation::Unconfirmed,
                    });
                    return plan(Action::Type { target, text }, evidence, p);
                }
                return plan(Action::Click { target }, evidence, p);
            }
            let text = text_to_type(&reading, structure, index);
            // "look up train times" beside a "Train times & tickets" link: the words to search
            // for are a link's name; following it may be what is meant.
            let searched_link = match &text {
                Some(t) if reading.typing.as_ref().is_some_and(|t| t.search) => {
                    link_named_by(t, observation, structure)
                }
                _ => None,
            };
            // "filter by state", "look up opportunities by NAICS code": what follows "by" is how
            // to search, which a control offers ("Search by Agency, … State, and Type"), not
            // words to search for.
            let criterion = match &text {
                Some(t) if searched_by(&reading) => offered_criterion(t, observation, structure),
                _ => Vec::new(),
            };
            match text {
                Some(_) if let [control] = criterion.as_slice() => {
                    let target = observation.elements[*control].id.clone();
                    evidence[0].entity = Some(EntityRef::Element(target.clone()));
                    plan(Action::Click { target }, evidence, p)
                }
                Some(_) if !criterion.is_empty() => {
                    let share = 1.0 / criterion.len() as f32;
                    let offered: Vec<(usize, f32)> =
                        criterion.iter().map(|&i| (i, share)).collect();
                    clarify(envelope, observation, &offered)
                }
                Some(text) if names_another_form_control(&text, observation, structure, index) => {
                    clarify(envelope, observation, &ranked)
                }
                Some(_) if let Some(link) = searched_link => {
                    clarify(envelope, observation, &[(index, p), (link, p)])
                }
                Some(text) => {
                    // "find an on-call pharmacy": the article says there is one to find (which
                    // `link_named_by` reads); it is not what is searched for.
                    let searched = reading.typing.as_ref().is_some_and(|t| t.search);
                    let text = match text.split_once(' ') {
                        Some((article, rest))
                            if searched
                                && matches!(article.to_lowercase().as_str(), "a" | "an") =>
                        {
                            rest.to_string()
                        }
                        _ => text,
                    };
                    // A closed list takes the choice the text is, as the list writes it.
                    let text = match super::local::typed_choice(Some(&text), &element.options) {
                        Some(k) if element.is_closed_list() => element.options[k].clone(),
                        _ => text,
                    };
                    evidence.push(Evidence {
                        heard: text.clone(),
                        role: SpanRole::Text,
                        entity: None,
                        kind: MatchKind::Literal,
                        confirmation: Confirmation::Unconfirmed,
                    });
                    plan(Action::Type { target, text }, evidence, p)
                }
                None => Decision::Clarify(Clarification {
                    question: "What should I type?".into(),
                    slot: Slot::Text,
                    candidates: Vec::new(),
                    request: envelope.clone(),
                }),
            }
        }
    }
}

/// The two likeliest are one word in two forms ("Desszert" and "Desszertek": the same first
/// gloss, or one stem) on two controls in different places, and no other word said is in the
/// likeliest one's row and not in the other's ("star the linear email" is the Star of the
/// Linear row, not the Starred folder): which is meant is not in the words, so it is asked.
fn one_word_in_two_forms(
    reading: &Reading<'_>,
    observation: &Observation,
    structure: &Structure,
    ranked: &[(usize, f32)],
) -> bool {
    let [(a, _), (b, _), ..] = ranked else {
        return false;
    };
    let (fa, fb) = (&structure.facts[*a], &structure.facts[*b]);
    let (ea, eb) = (&observation.elements[*a], &observation.elements[*b]);
    let ([la], [lb]) = (fa.label.as_slice(), fb.label.as_slice()) else {
        return false;
    };
    let same_gloss = !fa.glosses.is_empty()
        && fa.glosses.first().map(|g| &g.norm) == fb.glosses.first().map(|g| &g.norm);
    let in_row =
        |i: usize, q: &text::Token| super::local::word_match(q, structure.context(i)) >= 0.7;
    let told_apart = super::lexicon::content_words(&reading.tokens[reading.begin..])
        .into_iter()
        .any(|q| {
            let names_them = [fa, fb].iter().any(|f| {
                super::local::word_match(q, &f.label) >= 0.7
                    || f.glosses.iter().any(|g| g.same_word(q))
            });
            !names_them && in_row(*a, q) && !in_row(*b, q)
        });
    la.norm != lb.norm
        && (la.stem == lb.stem || same_gloss)
        && !told_apart
        && !structure.interchangeable(observation, *a, *b)
        && ea.context != eb.context
}

/// The request starts with a word that is neither a verb Circe knows nor a word
/// on the screen: most likely a misheard verb ("upboat"), so what it targets
/// may be offered but not acted on.
fn leads_with_an_unknown_word(reading: &Reading<'_>, observation: &Observation, p: f32) -> bool {
    if !matches!(reading.verb, Verb::None)
        || reading.typing.is_some()
        || reading.cue != utterance::Cue::Act
    {
        return false;
    }
    let Some(lead) = reading.tokens.get(reading.begin) else {
        return false;
    };
    // Numbers, short words and words Circe knows the meaning of ("comments") are not misheard
    // verbs; nor is a small word ("their Instagram", "the love charm" on a page in another
    // language that never says "their" or "the") when the choice is clear: such a page's
    // evidence is mostly translated, weaker, so what is not clear, a count, a place or a
    // contrast is asked about (measured: acting on them there picks wrong).
    let counts = reading.head.ordinal.is_some()
        || reading.qualifier.ordinal.is_some()
        || reading.relation.is_some()
        || reading.tokens.iter().any(|t| t.norm == "not");
    let small = super::lexicon::is_in(super::lexicon::STOPWORDS, &lead.norm);
    if lead.is_number()
        || lead.norm.len() < 3
        || (small && !counts && p >= CLEAR_SMALL_LEAD)
        || !super::lexicon::concepts_in(std::slice::from_ref(lead)).is_empty()
    {
        return false;
    }
    let on_screen = |text: &str| {
        text::tokens(text)
            .iter()
            .any(|t| t.norm == lead.norm || t.stem == lead.stem)
    };
    // A word said in English for a label in another language is on screen too ("real estate"
    // for "Immobilien").
    let glossed = observation
        .glosses
        .as_ref()
        .is_some_and(|g| g.words.values().flatten().any(|w| *w == lead.norm));
    !glossed
        && !observation.elements.iter().any(|e| {
            on_screen(&e.label)
                || on_screen(&e.context)
                || e.value.as_deref().is_some_and(on_screen)
        })
        && !on_screen(&observation.title)
}

/// "buy a new license" where the best control is "Buy Now" and its row also has a "New License"
/// link: the verb's control does not say the words of its object, a kind of thing (said with
/// "a"), and another control of the row is named by them in full. Either may be meant (the menu item, or the button that opens
/// the menu), so the decision is asked, never guessed. Returns that other control.
fn another_names_the_object(
    reading: &Reading<'_>,
    observation: &Observation,
    structure: &Structure,
    best: usize,
) -> Option<usize> {
    use super::lexicon;
    // "a new license", "another seat": a kind of thing, of which a control may be the offer;
    // "edit grace", "follow montecon" name one thing, which the row's control acts on.
    let indefinite = reading.head.content.first().is_some_and(|&first| {
        first > 0
            && matches!(
                reading.tokens[first - 1].norm.as_str(),
                "a" | "an" | "another"
            )
    });
    if !matches!(reading.verb, Verb::Specific { .. }) || !indefinite {
        return None;
    }
    let content: Vec<&text::Token> = reading
        .head
        .content
        .iter()
        .chain(&reading.qualifier.content)
        .map(|&i| &reading.tokens[i])
        .collect();
    let best_label = &structure.facts[best].label;
    let missing: Vec<&&text::Token> = content
        .iter()
        .filter(|w| !best_label.iter().any(|l| l.same_word(w)))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let row = &observation.elements[best].context;
    (0..observation.elements.len()).find(|&j| {
        let label = lexicon::content_words(&structure.facts[j].label);
        j != best
            && !label.is_empty()
            && observation.elements[j].context == *row
            && label.iter().all(|l| content.iter().any(|w| w.same_word(l)))
            && missing.iter().all(|w| label.iter().any(|l| l.same_word(w)))
    })
}

/// Controls whose label is, in full, words of the channel a request names when a verb is said
/// that no control offers ("post it to reddit": the "reddit" link); at most three, none when
/// more would fit.
fn object_named_in_full(
    reading: &Reading<'_>,
    observation: &Observation,
    structure: &Structure,
) -> Vec<usize> {
    use super::lexicon;
    use super::observation::RoleClass;
    // Only a channel named after the thing, itself said as "it" or "this" ("post it to reddit",
    // "share this on LinkedIn"): a thing named as the verb's object ("delete this paste", "reply
    // to this comment") is what the verb acts on, and the control named by it is no way to do
    // that.
    let said_it = reading.head.span.iter().any(|&i| {
        matches!(
            reading.tokens[i].norm.as_str(),
            "it" | "this" | "that" | "them" | "these"
        )
    });
    if !matches!(reading.verb, Verb::Specific { .. })
        || !reading.head.content.is_empty()
        || !said_it
    {
        return Vec::new();
    }
    let content: Vec<&text::Token> = reading
        .qualifier
        .content
        .iter()
        .map(|&i| &reading.tokens[i])
        .collect();
    if content.is_empty() {
        return Vec::new();
    }
    let named: Vec<usize> = (0..observation.elements.len())
        .filter(|&j| {
            let f = &structure.facts[j];
            let label: Vec<&text::Token> = lexicon::content_words(&f.label)
                .into_iter()
                .filter(|t| !t.is_number())
                .collect();
            f.class == RoleClass::Activatable
                && !f.disabled
                && !label.is_empty()
                && label.iter().all(|l| content.iter().any(|w| w.same_word(l)))
        })
        .collect();
    if named.len() > 3 {
        return Vec::new();
    }
    named
}

/// The stems of the meaningful words, small words left out.
fn content_stems(tokens: &[text::Token]) -> Vec<String> {
    super::lexicon::content_words(tokens)
        .into_iter()
        .map(|t| t.stem.clone())
        .collect()
}

/// A link whose label says every word of `text` (two words or more, small words aside), and
/// little more: at most one word besides ("Train times & tickets" for "train times").
fn link_named_by(text: &str, observation: &Observation, structure: &Structure) -> Option<usize> {
    let tokens = text::tokens(text);
    let said = content_stems(&tokens);
    // One word names a link only as a thing to find ("find a doctor"), not as words to look
    // up ("search for cats").
    let a_thing = tokens
        .first()
        .is_some_and(|t| matches!(t.norm.as_str(), "a" | "an"));
    if said.len() < 2 && !(said.len() == 1 && a_thing) {
        return None;
    }
    (0..observation.elements.len()).find(|&j| {
        let label = content_stems(&structure.facts[j].label);
        observation.elements[j].role == "link"
            && label.len() <= said.len() + 1
            && said.iter().all(|w| label.contains(w))
    })
}

/// The words to search for follow "by" ("filter by state", "look up opportunities by NAICS
/// code"): they may be a way to search rather than words to search for.
fn searched_by(reading: &Reading<'_>) -> bool {
    let Some(typing) = reading.typing.as_ref().filter(|t| t.search) else {
        return false;
    };
    let Some(span) = &typing.text else {
        return false;
    };
    let first = reading.tokens.iter().position(|t| t.start == span.start);
    first.is_some_and(|i| {
        i > 0
            && matches!(
                reading.tokens[i - 1].norm.as_str(),
                "by" | "nach" | "par" | "por"
            )
    })
}

/// The controls that offer to search by what `text` names: a link or button whose name or
/// description has "by" and then every meaningful word of `text` ("Search by Classification,
/// NAICS code, and more" for "NAICS code").
fn offered_criterion(text: &str, observation: &Observation, structure: &Structure) -> Vec<usize> {
    let said = content_stems(&text::tokens(text));
    if said.is_empty() {
        return Vec::new();
    }
    let after_by = |tokens: &[text::Token]| -> Vec<String> {
        match tokens.iter().position(|t| t.norm == "by") {
            Some(k) => tokens[k + 1..].iter().map(|t| t.stem.clone()).collect(),
            None => Vec::new(),
        }
    };
    (0..observation.elements.len())
        .filter(|&j| {
            let facts = &structure.facts[j];
            matches!(observation.elements[j].role.as_str(), "link" | "button")
                && [&facts.label, &facts.description].iter().any(|words| {
                    let offered = after_by(words);
                    said.iter().all(|w| offered.contains(w))
                })
        })
        .collect()
}

/// "open their social media page": a kind of network, of which the screen may show several;
/// one is never picked for it, however the duplicates add up.
fn names_only_a_kind_of_network(reading: &Reading<'_>, structure: &Structure, best: usize) -> bool {
    use super::lexicon::names_social_kind;
    reading.tokens[reading.begin..]
        .iter()
        .any(names_social_kind)
        && !structure.facts[best].label.iter().any(names_social_kind)
}

/// "only search titles" beside a "Nur Titel durchsuchen" checkbox: the words
/// to type name another control of the form (a checkbox, a switch, a field or
/// a list), so they may be a setting to change rather than text to search for.
fn names_another_form_control(
    text: &str,
    observation: &Observation,
    structure: &Structure,
    field: usize,
) -> bool {
    use super::lexicon;
    let said: Vec<text::Token> = text::tokens(text)
        .into_iter()
        .filter(|t| !t.is_number() && !lexicon::is_in(lexicon::STOPWORDS, &t.norm))
        .collect();
    if said.is_empty() {
        return false;
    }
    let said_concepts = lexicon::concept_ids(&said);
    // "posts by the member X" beside a second field: a filter, maybe that field's value.
    let filters = text::tokens(text)
        .iter()
        .any(|t| lexicon::is_in(lexicon::FILTER_PREPOSITIONS, &t.norm));
    let other_field = (0..observation.elements.len())
        .any(|i| i != field && structure.facts[i].class == super::observation::RoleClass::Editable);
    if filters && other_field {
        return true;
    }
    observation.elements.iter().enumerate().any(|(i, e)| {
        let form_control = matches!(
            structure.facts[i].class,
            super::observation::RoleClass::Toggle | super::observation::RoleClass::Editable
        ) || e.role == "combobox";
        let label = &structure.facts[i].label;
        // "search page titles only" beside the field's "Titles" and "Text" buttons: a button
        // of the field's row said in full is a way of searching, maybe the one meant.
        let row_button = e.role == "button"
            && e.context == observation.elements[field].context
            && !label.is_empty()
            && label.iter().all(|w| {
                lexicon::is_in(lexicon::STOPWORDS, &w.norm) || said.iter().any(|s| w.same_word(s))
            });
        if row_button && i != field {
            return true;
        }
        if i == field || !form_control {
            return false;
        }
        let by_word = said
            .iter()
            .any(|s| label.iter().any(|w| w.stem == s.stem || w.norm == s.norm));
        let by_concept = lexicon::concept_ids(label)
            .iter()
            .any(|c| said_concepts.contains(c));
        by_word || by_concept
    })
}

/// A bare word ("spam") that one label is and another acts on ("Mark as
/// spam"): going to the Spam folder and marking as spam are both readings.
fn a_bare_word_could_be_an_action(
    reading: &Reading<'_>,
    observation: &Observation,
    ranked: &[(usize, f32)],
) -> bool {
    if !matches!(reading.verb, Verb::None)
        || reading.cue != utterance::Cue::Act
        || reading.typing.is_some()
    {
        return false;
    }
    let said: Vec<text::Token> = reading.tokens[reading.begin..]
        .iter()
        .filter(|t| !super::lexicon::is_in(super::lexicon::STOPWORDS, &t.norm))
        .cloned()
        .collect();
    if said.is_empty() || said.len() > 2 {
        return false;
    }
    let acts_on_it = |label: &str| {
        let words = text::tokens(label);
        let Some(first) = words.first() else {
            return false;
        };
        let verb = super::lexicon::is_in(super::lexicon::ACTIVATE_VERBS, &first.norm)
            || super::lexicon::is_in(super::lexicon::TOGGLE_VERBS, &first.norm)
            || utterance::UI_VERBS.contains(&first.norm.as_str());
        // The rest of the label is what was said, and only that.
        let object: Vec<&text::Token> = words[1..]
            .iter()
            .filter(|w| {
                w.norm.len() > 2 && !super::lexicon::is_in(super::lexicon::STOPWORDS, &w.norm)
            })
            .collect();
        verb && object.len() == said.len()
            && said
                .iter()
                .all(|s| object.iter().any(|w| w.stem == s.stem || w.norm == s.norm))
    };
    ranked
        .iter()
        .skip(1)
        .any(|(i, p)| *p >= SHOW_AT && acts_on_it(&observation.elements[*i].label))
        && ranked
            .first()
            .is_some_and(|(i, _)| !acts_on_it(&observation.elements[*i].label))
}

/// Target probabilities per element, with interchangeable duplicates merged
/// into the most probable of them (the first, when alike), best first.
pub fn rank_targets(
    observation: &Observation,
    structure: &Structure,
    question: &Question,
    answer: &Answer,
) -> Vec<(usize, f32)> {
    let mut scored: Vec<(usize, f32)> = question
        .choices
        .iter()
        .zip(&answer.probabilities)
        .filter_map(|(c, p)| match c.meaning {
            Meaning::Element(i) if *p > 0.0 && i < observation.elements.len() => Some((i, *p)),
            _ => None,
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let nothing = question
        .choices
        .iter()
        .zip(&answer.probabilities)
        .find(|(c, _)| c.meaning == Meaning::Nothing)
        .map_or(0.0, |(_, p)| *p);
    let mut merged: Vec<(usize, f32)> = Vec::new();
    for (i, p) in scored {
        // Two names of one page are one choice when the words fit both alike (half as well
        // at least) and each better than "nothing fits": weak names of one page add up to no
        // evidence, and a weak second name adds nothing to what the words found.
        match merged.iter_mut().find(|(j, q)| {
            structure.interchangeable(observation, *j, i)
                || (p >= 0.5 * *q
                    && p >= nothing
                    && super::observation::same_page(observation, *j, i))
        }) {
            // The duplicate the words describe best stands for them all ("Lisa Coleman under
            // keyboards"), the first of them when none is described better.
            Some(entry) => entry.1 += p,
            None => merged.push((i, p)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged
}

/// Evidence too weak to offer by probability is still evidence: an element at least
/// [`EVIDENCE_RATIO`] as likely as "nothing fits" is asked about (the top three, shown as
/// equally likely as they were relative to each other), never thrown away.
fn evidenced(ranked: &[(usize, f32)], nothing_p: f32) -> Vec<(usize, f32)> {
    let kept: Vec<(usize, f32)> = ranked
        .iter()
        .copied()
        .filter(|(_, p)| *p > 0.0 && *p >= EVIDENCE_RATIO * nothing_p)
        .take(3)
        .collect();
    // As likely a fourth as the third: the words do not pick out what to ask about.
    if let (Some((_, third)), Some((_, fourth))) = (kept.get(2), ranked.get(3)) {
        if *fourth >= 0.9 * third {
            return Vec::new();
        }
    }
    let total: f32 = kept.iter().map(|(_, p)| p).sum();
    kept.into_iter().map(|(i, p)| (i, p / total)).collect()
}

fn nothing_fits(reading: &Reading<'_>) -> Rejection {
    match &reading.verb {
        Verb::Specific { tokens, .. } => {
            let verb = reading
                .span(tokens)
                .map(|s| reading.slice(&s).to_string())
                .unwrap_or_default();
            Rejection {
                reason: RejectReason::Unsupported,
                message: format!("Nothing on screen can \"{verb}\" that."),
            }
        }
        _ => Rejection {
            reason: RejectReason::NothingFits,
            message: "Nothing on screen fits that.".into(),
        },
    }
}

/// Ask with up to three candidates, labelled so "the second one" answers.
pub fn clarify(
    envelope: &Envelope,
    observation: &Observation,
    ranked: &[(usize, f32)],
) -> Decision {
    let shown: Vec<(usize, f32)> = ranked
        .iter()
        .copied()
        .filter(|(_, p)| *p >= SHOW_AT)
        .take(3)
        .collect();
    let labels: Vec<String> = shown
        .iter()
        .map(|(i, _)| element_label(&observation.elements[*i]))
        .collect();
    let candidates: Vec<Candidate> = shown
        .iter()
        .enumerate()
        .map(|(k, (i, p))| {
            let e = &observation.elements[*i];
            let mut label = labels[k].clone();
            let repeated = labels.iter().filter(|l| **l == label).count() > 1;
            if repeated && !e.context.trim().is_empty() {
                label = format!("{label} ({})", shorten(e.context.trim(), 60));
            }
            Candidate {
                key: (k + 1).to_string(),
                label,
                entity: EntityRef::Element(e.id.clone()),
                probability: *p,
            }
        })
        .collect();
    Decision::Clarify(Clarification {
        question: question_text(&candidates),
        slot: Slot::Target,
        candidates,
        request: envelope.clone(),
    })
}

pub fn question_text(candidates: &[Candidate]) -> String {
    let listed: Vec<String> = candidates
        .iter()
        .map(|c| format!("{}. {}", c.key, c.label))
        .collect();
    match listed.len() {
        0 => "Which one did you mean?".into(),
        1 => format!("Did you mean {}?", candidates[0].label),
        _ => format!("Which one did you mean: {}?", listed.join(", ")),
    }
}

fn element_label(e: &super::observation::Element) -> String {
    let label = e.label.trim();
    if label.is_empty() {
        format!("the {} in \"{}\"", e.role, shorten(e.context.trim(), 40))
    } else {
        format!("\"{}\"", shorten(label, 60))
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{}…", cut.trim_end())
}

fn match_kind(reading: &Reading<'_>, structure: &Structure, index: usize) -> MatchKind {
    let ordinal = reading.head.ordinal.is_some() || reading.qualifier.ordinal.is_some();
    if ordinal {
        return match (reading.head.ordinal, reading.qualifier.ordinal) {
            (Some(Ordinal::Number(_)), _) | (_, Some(Ordinal::Number(_))) => MatchKind::Exact,
            _ => MatchKind::Ordinal,
        };
    }
    let label = &structure.facts[index].label;
    let words: Vec<_> = reading.content().collect();
    if words.iter().any(|q| label.iter().any(|l| l.stem == q.stem)) {
        MatchKind::Exact
    } else if words.iter().any(|q| {
        label
            .iter()
            .any(|l| text::similarity(&l.norm, &q.norm) >= 0.75)
    }) {
        MatchKind::Fuzzy
    } else {
        MatchKind::Meaning
    }
}

/// The text to type: the grammar's span, or for "enter the username karl"
/// the words after the chosen field's label. Bounded, never empty.
pub fn text_to_type(reading: &Reading<'_>, structure: &Structure, index: usize) -> Option<String> {
    let fill = crate::director::utterance::Typing {
        rest: reading.fill.clone(),
        ..Default::default()
    };
    let typing = reading.typing.as_ref().unwrap_or(&fill);
    let span = match (&typing.text, &typing.rest) {
        (Some(span), _) => span.clone(),
        (None, Some(rest)) => {
            // The field's own words said first name it, in any order ("enter my email, ana@…"
            // into *Insira seu email aqui*; "the username karl" into *Username*), a word said
            // as two ("user name") too; the text is what follows.
            let facts = &structure.facts[index];
            // A small word only after a word of the name ("going to" lisbon).
            let names = |t: &text::Token, after_name: bool| {
                facts.label.iter().any(|l| {
                    l.stem == t.stem
                        && (after_name
                            || !super::lexicon::is_in(super::lexicon::STOPWORDS, &l.norm))
                })
            };
            let mut start = rest.start;
            while start < rest.end {
                let t = &reading.tokens[start];
                let after_name = start > rest.start;
                let joined_next = reading
                    .tokens
                    .get(start + 1)
                    .map(|n| text::Token::synthetic(&format!("{}{}", t.norm, n.norm)));
                if names(t, after_name) {
                    start += 1;
                } else if joined_next.is_some_and(|j| names(&j, after_name)) && start + 1 < rest.end
                {
                    start += 2;
                } else {
                    break;
                }
            }
            reading.span(&(start..rest.end))?
        }
        (None, None) => return None,
    };
    let text = reading.slice(&span).trim();
    let text = text.trim_end_matches(['.', '!', '?', ',']);
    if text.is_empty() || text.len() > MAX_TEXT {
        return None;
    }
    // An address said aloud into an email field is typed as written.
    let facts = &structure.facts[index];
    let email_field = facts
        .label
        .iter()
        .chain(&facts.description)
        .any(|t| t.norm.contains("mail"));
    if email_field {
        if let Some(address) = written_email(text) {
            return Some(address);
        }
    }
    // A number said into a field that holds a number ("1", "1 tk", "2 pcs": a quantity) is
    // typed as written: "four" is 4.
    if crate::director::observation::holds_a_number(facts.value.as_deref()) {
        if let Some(n) = crate::director::utterance::said_number(text) {
            return Some(n.to_string());
        }
    }
    Some(text.to_string())
}

/// "jane dot smith at gmail dot com" as written: "jane.smith@gmail.com". Only words that make
/// an address: one "at", a "dot" after it, and otherwise names, digits, "dot", "underscore",
/// "dash" or "hyphen"; `None` for anything else ("meet me at the cafe").
pub fn written_email(said: &str) -> Option<String> {
    let mut out = String::new();
    let mut at = 0;
    for word in said.split_whitespace() {
        let lower = word.to_lowercase();
        match lower.as_str() {
            "at" => {
                out.push('@');
                at += 1;
            }
            "dot" | "point" => out.push('.'),
            "underscore" => out.push('_'),
            "dash" | "hyphen" => out.push('-'),
            _ if lower
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+')) =>
            {
                out.push_str(&lower)
            }
            _ => return None,
        }
    }
    match out.split_once('@') {
        Some((user, domain))
            if at == 1
                && !user.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.') =>
        {
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::director::decider::Decider;
    use crate::director::local::LocalDecider;
    use crate::director::observation::Element;

    use crate::director::observation::element as el;

    fn decide(elements: Vec<Element>, text: &str) -> Decision {
        let obs = Observation {
            elements,
            ..Observation::default()
        };
        let structure = Structure::of(&obs);
        let envelope = Envelope::voice("t", text);
        let ask = ask(&envelope, &obs, &structure);
        let answers = LocalDecider.decide(&ask).expect("answers");
        conclude(&envelope, &obs, &structure, &ask, &answers)
    }

    /// Weak evidence is asked about, never thrown away: a long request that names one
    /// control's word among many the page does not say ("the family rooms with balconies and
    /// lake views") offers that control; a request nothing on screen fits is still rejected.
    #[test]
    fn weak_evidence_is_asked_about_and_no_evidence_rejected() {
        let menu = "Home Restaurant Rooms Contact";
        let page = || {
            vec![
                el("e1", "link", "Home", menu),
                el("e2", "link", "Restaurant", menu),
                el("e3", "link", "Rooms", menu),
                el("e4", "link", "Contact", menu),
                el("e5", "link", "Opening hours of the kitchen", ""),
                el("e6", "button", "Print this page", ""),
            ]
        };
        let table = [
            ("the family rooms with balconies and lake views", Some("e3")),
            (
                "the restaurant menu with vegan dishes and wine list",
                Some("e2"),
            ),
            ("opening times of the bar and the terrace", Some("e5")),
            ("open the weather forecast", None),
        ];
        for (said, offered) in table {
            match (decide(page(), said), offered) {
                (Decision::Clarify(c), Some(id)) => assert_eq!(
                    c.candidates[0].entity,
                    EntityRef::Element(id.into()),
                    "{said}"
                ),
                (Decision::Reject(_), None) => {}
                (d, _) => panic!("{said}: {d:?}"),
            }
        }
    }

    /// The question over weak evidence: the top three, as likely relative to each other as
    /// they were; none when a fourth is as likely as the third (the words pick nothing out)
    /// or when nothing reaches the evidence ratio.
    #[test]
    fn the_weak_evidence_question_keeps_what_the_words_pick_out() {
        let nothing = 0.9;
        let weak = EVIDENCE_RATIO * nothing;
        type Row<'a> = (&'a [(usize, f32)], &'a [usize]);
        let table: [Row; 4] = [
            (&[(4, 2.0 * weak), (1, weak * 0.5)], &[4]),
            (&[(4, 4.0 * weak), (1, 2.0 * weak), (2, weak)], &[4, 1, 2]),
            (&[(4, weak), (1, weak), (2, weak), (3, weak)], &[]),
            (
                &[(4, 3.0 * weak), (1, 2.0 * weak), (2, 2.0 * weak), (3, weak)],
                &[4, 1, 2],
            ),
        ];
        for (ranked, kept) in table {
            let got = evidenced(ranked, nothing);
            let ids: Vec<usize> = got.iter().map(|(i, _)| *i).collect();
            assert_eq!(ids, kept, "{ranked:?}");
            if !got.is_empty() {
                let total: f32 = got.iter().map(|(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-4, "{got:?}");
            }
        }
    }

    #[test]
    fn competing_readings_ask_with_labelled_candidates() {
        let d = decide(
            vec![
                el("e1", "link", "17 comments", "story one"),
                el("e2", "link", "17 comments", "story two"),
                el("e3", "link", "Home", ""),
            ],
            "open the one with seventeen comments",
        );
        let Decision::Clarify(c) = d else {
            panic!("{d:?}")
        };
        assert_eq!(c.slot, Slot::Target);
        let keys: Vec<&str> = c.candidates.iter().map(|k| k.key.as_str()).collect();
        assert_eq!(keys, ["1", "2"]);
        assert!(
            c.candidates[0].label.contains("story one"),
            "{}",
            c.candidates[0].label
        );
        assert!(
            c.question.starts_with("Which one did you mean: 1."),
            "{}",
            c.question
        );
        assert_eq!(c.request.text, "open the one with seventeen comments");
    }

    /// What a table row wants decided.
    #[derive(Debug, Clone, Copy)]
    enum Want {
        Click(&'static str),
        /// Typed into that field.
        Type(&'static str),
        Ask,
        Reject,
        Planner,
    }
    use Want::*;

    fn expect(elements: &[Element], text: &str, want: Want) {
        let d = decide(elements.to_vec(), text);
        let ok = match want {
            Click(id) => {
                matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: id.into() })
            }
            Type(id) => {
                matches!(&d, Decision::Execute(p) if matches!(&p.action, Action::Type { target, .. } if target == id))
            }
            Ask => matches!(&d, Decision::Clarify(_)),
            Reject => matches!(&d, Decision::Reject(_)),
            Planner => matches!(&d, Decision::Execute(p) if p.action == Action::Planner),
        };
        assert!(ok, "{text}: wanted {want:?}, decided {d:?}");
    }

    /// A state verb that names nothing means a switch in the state it changes;
    /// "select all" over a list is the "Select all" control when there is one.
    #[test]
    fn state_verbs_without_a_name_and_select_all() {
        let switch = |id: &str, label: &str, on: bool| {
            let mut e = el(id, "switch", label, "Notifications");
            e.states = if on { vec!["checked".into()] } else { vec![] };
            e
        };
        let two_on = vec![
            switch("a", "Product updates", true),
            switch("b", "Security alerts", true),
            switch("c", "Weekly digest", false),
            el("s", "button", "Save preferences", "Notifications"),
        ];
        let one_on = vec![
            switch("a", "Product updates", true),
            switch("c", "Weekly digest", false),
        ];
        let mut mail = vec![el("all", "checkbox", "Select all", "Select all 1-3 of 3")];
        for (k, who) in ["Stripe", "Vercel", "Linear"].iter().enumerate() {
            let row = format!("{who} · Mail number {k}");
            mail.push(el(
                &format!("c{k}"),
                "checkbox",
                &format!("Select message from {who}"),
                &row,
            ));
            mail.push(el(&format!("s{k}"), "button", "Star", &row));
        }
        let table = [
            (&two_on, "switch it off", Ask),
            (&one_on, "switch it off", Click("a")),
            (&one_on, "turn it on", Click("c")),
            (&mail, "select all messages", Click("all")),
        ];
        for (elements, text, want) in table {
            expect(elements, text, want);
        }
        // It asks between the two that are on, not the one already off.
        let Decision::Clarify(c) = decide(two_on, "switch it off") else {
            unreachable!("asked above")
        };
        let offered: Vec<&str> = c.candidates.iter().map(|k| k.label.as_str()).collect();
        assert_eq!(offered.len(), 2, "{offered:?}");
        assert!(offered.iter().all(|l| !l.contains("Weekly")), "{offered:?}");
    }

    /// Typing goes into a field that takes words: never a closed list; a lone
    /// field that does not say "search" is asked about; words that name
    /// another control of the form, or filter by a second field, ask.
    #[test]
    fn typing_targets_take_words_and_ask_when_the_words_name_a_control() {
        let field = |id: &str, label: &str| {
            let mut e = el(id, "textbox", label, "Search form");
            e.states = vec!["editable".into()];
            e
        };
        let mut category = el(
            "c",
            "combobox",
            "In folgender Kategorie suchen:",
            "Search form",
        );
        category.value = Some("in Rezepten".into());
        let recipes = vec![
            field("q", "z. B. Pfannkuchen, Lasagne"),
            category,
            el("b", "button", "", "Search form"),
        ];
        let forum = vec![
            field("s", "Suche"),
            el("t", "checkbox", "Nur Titel durchsuchen", "Search form"),
            field("v", "Von:"),
        ];
        let table = [
            (&recipes, "search for lasagne", Type("q")),
            (&forum, "search for flohkot", Type("s")),
            (&forum, "only search titles", Ask),
            (&forum, "search for posts by the member pepemaus", Ask),
        ];
        for (elements, text, want) in table {
            expect(elements, text, want);
        }
        // Never typed into the closed list, whatever it says.
        let d = decide(recipes.clone(), "type lasagne into the category list");
        assert!(
            !matches!(&d, Decision::Execute(p) if matches!(&p.action, Action::Type { target, .. } if target == "c")),
            "{d:?}"
        );
    }

    /// "The second campus" where nothing says campus and nothing is numbered: the second of
    /// each row of alike controls is offered (never acted on); a verb of its own ("accept the
    /// top answer") is not a reference, and nothing is offered for it.
    #[test]
    fn an_ordinal_over_an_unseen_noun_offers_the_nth_of_each_row() {
        let campuses = "New Brunswick Newark Camden RBHS/Health";
        let menu = "Search this site Search all Search People";
        let elements = vec![
            el("m1", "link", "Search this site", menu),
            el("m2", "link", "Search all", menu),
            el("m3", "link", "Search People", menu),
            el("c1", "link", "New Brunswick", campuses),
            el("c2", "link", "Newark", campuses),
            el("c3", "link", "Camden", campuses),
            el("c4", "link", "RBHS/Health", campuses),
        ];
        let Decision::Clarify(c) = decide(elements.clone(), "the second campus") else {
            panic!("asked");
        };
        let offered: Vec<&str> = c.candidates.iter().map(|k| k.label.as_str()).collect();
        assert!(offered.iter().any(|l| l.contains("Newark")), "{offered:?}");
        assert!(offered.len() <= 3, "{offered:?}");
        let Decision::Clarify(c) = decide(elements.clone(), "open the last campus link") else {
            panic!("asked");
        };
        let offered: Vec<&str> = c.candidates.iter().map(|k| k.label.as_str()).collect();
        assert!(
            offered.iter().any(|l| l.contains("RBHS/Health")),
            "{offered:?}"
        );
        assert!(matches!(
            decide(elements, "accept the top answer"),
            Decision::Reject(_)
        ));
    }

    /// One word in two forms on two controls in different places ("Desszert" in the magazine
    /// menu, "Desszertek" in the recipe menu) is asked about, unless another word said is in
    /// one's row only ("star the linear email": the Linear row's Star, not the Starred folder).
    #[test]
    fn one_word_in_two_forms_is_asked_unless_the_row_tells() {
        let mut obs = Observation {
            elements: vec![
                el("m", "link", "Desszert", "Magazin Diéták Desszert"),
                el("r", "link", "Desszertek", "Receptek Levesek Desszertek"),
            ],
            ..Observation::default()
        };
        obs.glosses = Some(crate::model::Glosses {
            language: "hu".into(),
            words: [("desszert", "dessert"), ("desszertek", "dessert")]
                .iter()
                .map(|(w, g)| (w.to_string(), vec![g.to_string()]))
                .collect(),
        });
        let structure = Structure::of(&obs);
        let envelope = Envelope::voice("t", "dessert");
        let ask = ask(&envelope, &obs, &structure);
        let answers = LocalDecider.decide(&ask).expect("answers");
        assert!(
            matches!(
                conclude(&envelope, &obs, &structure, &ask, &answers),
                Decision::Clarify(_)
            ),
            "asked"
        );
        let mail = vec![
            el("f", "link", "Starred", "Inbox Sent Drafts Starred Archive"),
            el(
                "s",
                "button",
                "Star",
                "Select message from Linear Linear · Calendar",
            ),
        ];
        assert!(matches!(
            decide(mail, "star the linear email"),
            Decision::Execute(p) if matches!(&p.action, Action::Click { target } if target == "s")
        ));
    }

    /// "Find a doctor" beside a "Doctors" link may mean the link, so it asks; "search for
    /// cats" is words to look up, whatever link says them.
    #[test]
    fn a_thing_to_find_that_a_link_names_asks() {
        let mut search = el("s", "searchbox", "Search", "Search Symptoms Doctors");
        search.states = vec!["editable".into()];
        let elements = vec![
            search,
            el("go", "button", "Search", "Search Symptoms Doctors"),
            el("d", "link", "Doctors", "Search Symptoms Doctors"),
            el("c", "link", "Cats", "Pets Cats Dogs"),
        ];
        let Decision::Clarify(c) = decide(elements.clone(), "find a doctor") else {
            panic!("asked")
        };
        assert!(
            c.candidates.iter().any(|k| k.label.contains("Doctors")),
            "{:?}",
            c.candidates
        );
        assert!(matches!(
            decide(elements, "search for cats"),
            Decision::Execute(p) if matches!(&p.action, Action::Type { text, .. } if text == "cats")
        ));
    }

    /// An address said aloud is written as one ("jane dot smith at gmail dot com"), into an
    /// email field only; words that are no address stay as said.
    #[test]
    fn an_email_address_said_aloud_is_typed_as_written() {
        let table = [
            (
                "jane dot smith at gmail dot com",
                Some("jane.smith@gmail.com"),
            ),
            (
                "tomas underscore k at example dot cz",
                Some("tomas_k@example.cz"),
            ),
            (
                "Anna at mail dot example dot org",
                Some("anna@mail.example.org"),
            ),
            ("meet me at the cafe", None),
            ("jane at gmail", None),
            ("a at b at c dot com", None),
        ];
        for (said, want) in table {
            assert_eq!(written_email(said).as_deref(), want, "{said}");
        }
        let mut email = el("e", "textbox", "Email Address", "Sign up for news");
        email.states = vec!["editable".into()];
        let mut note = el("n", "textbox", "Note", "Sign up for news");
        note.states = vec!["editable".into()];
        let typed = |elements: Vec<Element>, said: &str| match decide(elements, said) {
            Decision::Execute(p) => match p.action {
                Action::Type { text, .. } => Some(text),
                _ => None,
            },
            _ => None,
        };
        assert_eq!(
            typed(
                vec![email.clone()],
                "put jane dot smith at gmail dot com in the email box"
            )
            .as_deref(),
            Some("jane.smith@gmail.com")
        );
        assert_eq!(
            typed(
                vec![note],
                "type jane dot smith at gmail dot com into the note"
            )
            .as_deref(),
            Some("jane dot smith at gmail dot com")
        );
    }

    /// A number said into a field that holds a number is typed as written ("four" is 4); into
    /// a field of words it stays as said, and so do words that are more than a number.
    #[test]
    fn a_number_said_into_a_number_field_is_typed_as_written() {
        let field = |id: &str, label: &str, value: Option<&str>| {
            let mut f = el(id, "textbox", label, "Product");
            f.states = vec!["editable".into()];
            f.value = value.map(str::to_string);
            f
        };
        let typed = |elements: Vec<Element>, said: &str| match decide(elements, said) {
            Decision::Execute(p) => match p.action {
                Action::Type { text, .. } => Some(text),
                _ => None,
            },
            _ => None,
        };
        let quantity = field("q", "Quantity", Some("1 pcs"));
        let table = [
            ("set the quantity to four", Some("4")),
            ("type forty seven into the quantity", Some("47")),
            ("set the quantity to 12", Some("12")),
            ("set the quantity to four pairs", Some("four pairs")),
        ];
        for (said, want) in table {
            assert_eq!(
                typed(vec![quantity.clone()], said).as_deref(),
                want,
                "{said}"
            );
        }
        let note = field("n", "Note", None);
        assert_eq!(
            typed(vec![note], "type four into the note").as_deref(),
            Some("four")
        );
    }

    /// A closed list whose choice the words name is set to that choice (typed, the way a
    /// A stated value that is one of a closed list's choices is chosen there, as the list writes
    /// it, before a free field of the same name; the three fields under one "Date of Birth" are
    /// three things, never merged into one.
    #[test]
    fn a_stated_value_that_is_a_choice_goes_to_its_list() {
        let list = |id: &str, options: &[&str]| {
            let mut e = el(id, "combobox", "Date of Birth", "Date of Birth");
            e.value = Some(options[0].into());
            e.options = options.iter().map(|o| o.to_string()).collect();
            e
        };
        let days: Vec<String> = (1..=31).map(|d| d.to_string()).collect();
        let days: Vec<&str> = days.iter().map(String::as_str).collect();
        let mut year = el("y", "textbox", "Date of Birth", "Date of Birth");
        year.value = Some("1978".into());
        let form = vec![
            el("mail", "textbox", "Email Address", ""),
            list("m", &["January", "February", "March"]),
            list("d", &days),
            year,
            el("join", "button", "Join Now - FREE", ""),
        ];
        let typed = |text: &str| match decide(form.clone(), text) {
            Decision::Execute(p) => match p.action {
                Action::Type { target, text } => Some((target, text)),
                _ => None,
            },
            _ => None,
        };
        let table = [
            ("my birthday is on the 14th", Some(("d", "14"))),
            ("my birthday is March", Some(("m", "March"))),
        ];
        for (text, want) in table {
            let got = typed(text);
            assert_eq!(
                got.as_ref().map(|(t, x)| (t.as_str(), x.as_str())),
                want,
                "{text}"
            );
        }
    }

    /// A closed list whose choice the words name is set to that choice (typed, the way a
    /// `<select>` takes it), whatever else the words say of the list; a one-word choice only
    /// after a verb that chooses; a list whose choices the words do not name is only clicked.
    #[test]
    fn a_named_choice_of_a_closed_list_is_chosen() {
        let list = |id: &str, label: &str, value: &str, options: &[&str]| {
            let mut e = el(
                id,
                "combobox",
                label,
                &format!("More Actions: {}", options.join(" ")),
            );
            e.value = Some(value.into());
            e.options = options.iter().map(|o| o.to_string()).collect();
            e
        };
        let wiki = vec![
            el(
                "info",
                "link",
                "Info",
                "Page Info Attachments More Actions:",
            ),
            el(
                "att",
                "link",
                "Attachments",
                "Page Info Attachments More Actions:",
            ),
            list(
                "act",
                "",
                "Raw Text",
                &["Raw Text", "Print View", "Check Spelling", "Local Site Map"],
            ),
            el("do", "button", "Do", "More Actions:"),
            list(
                "lang",
                "Language",
                "English",
                &["English", "Deutsch", "Germany"],
            ),
            el("de", "link", "Germany news", "World Europe Germany news"),
            list(
                "sort",
                "Sort by",
                "Relevance",
                &[
                    "Relevance",
                    "Price: low to high",
                    "Price: high to low",
                    "Name",
                ],
            ),
            list("order", "Sortieren nach:", "", &["A bis Z", "Z bis A"]),
            list(
                "group",
                "Stuttgart für:",
                "Zielgruppe wählen…",
                &["Zielgruppe wählen…", "Familien", "Senioren"],
            ),
            list(
                "more",
                "",
                "Other Services",
                &["Other Services", "A.Word.A.Day", "Internet Anagram Server"],
            ),
            el(
                "y",
                "link",
                "Yesterday's Word",
                "Today's Word Yesterday's Word",
            ),
            // The common choices first, then all of them: "Canada" is listed twice.
            list(
                "country",
                "Country",
                "United States",
                &["United States", "Canada", "Afghanistan", "Canada"],
            ),
        ];
        let chosen = |text: &str| match decide(wiki.clone(), text) {
            Decision::Execute(p) => match p.action {
                Action::Type { target, text } => Some((target, text)),
                _ => None,
            },
            _ => None,
        };
        let table = [
            (
                "pick check spelling from more actions",
                Some(("act", "Check Spelling")),
            ),
            (
                "switch the actions menu to print view",
                Some(("act", "Print View")),
            ),
            ("choose local site map", Some(("act", "Local Site Map"))),
            ("select deutsch", Some(("lang", "Deutsch"))),
            // A language said by its English name is the one a list names in its own.
            ("switch the language to german", Some(("lang", "Deutsch"))),
            ("open germany news", None),
            (
                "sort by price from high to low",
                Some(("sort", "Price: high to low")),
            ),
            (
                "sort by price, low to high",
                Some(("sort", "Price: low to high")),
            ),
            ("sort by name", Some(("sort", "Name"))),
            // A verb that narrows what is shown chooses too.
            ("limit the results to deutsch", Some(("lang", "Deutsch"))),
            (
                "restrict the language to germany",
                Some(("lang", "Germany")),
            ),
            (
                "open the anagram server",
                Some(("more", "Internet Anagram Server")),
            ),
            // The small words tell two choices of the same words apart by their order.
            ("sort them Z to A", Some(("order", "Z bis A"))),
            ("sort it from A to Z", Some(("order", "A bis Z"))),
            // "set … to …" names a choice as well as a field to type into.
            ("set the audience to senioren", Some(("group", "Senioren"))),
            // A choice listed twice is one choice.
            ("set the country to canada", Some(("country", "Canada"))),
            ("the word from the day before", None),
            ("open the more services dropdown", None),
            ("open the info page", None),
        ];
        for (text, want) in table {
            let got = chosen(text);
            assert_eq!(
                got.as_ref().map(|(t, x)| (t.as_str(), x.as_str())),
                want,
                "{text}"
            );
        }
    }

    /// "the rest" of something is more of it, and "expand" shows more: both meet the
    /// control that shows the rest.
    #[test]
    fn the_rest_is_more() {
        let elements = vec![
            el(
                "x",
                "button",
                "Expand full comment",
                "Ann Jul 1 My wife and I",
            ),
            el("l", "link", "Like (4)", "Ann Jul 1 My wife and I"),
            el("s", "button", "Subscribe", "The Map"),
        ];
        expect(&elements, "read the rest of the comment", Click("x"));
        expect(&elements, "show me the rest", Click("x"));
    }

    /// A tag or hashtag is a category of posts: "the travel hashtag" is the link to the travel
    /// category, not another link that says travel.
    #[test]
    fn a_hashtag_is_a_category() {
        let elements = vec![
            el(
                "c",
                "link",
                "Watch more videos of the travel category",
                "#travel #food",
            ),
            el(
                "t",
                "link",
                "Travel tips for Spain",
                "Travel tips for Spain",
            ),
        ];
        expect(&elements, "open the travel hashtag", Click("c"));
    }

    /// Clearing a field is what a Reset or a "löschen" control offers: the verb meets it (asked,
    /// as the words name the field, not the control).
    #[test]
    fn clearing_is_resetting() {
        let mut field = el("f", "textbox", "Search", "Search Go Reset");
        field.states = vec!["editable".into()];
        let elements = vec![
            field,
            el("go", "button", "Go", "Search Go Reset"),
            el("x", "button", "Reset", "Search Go Reset"),
        ];
        expect(&elements, "clear the search box", Ask);
        // "löschen" also deletes: clearing never deletes an account unasked.
        let account = vec![el("del", "button", "Konto löschen", "Profil Konto löschen")];
        let d = decide(account, "clear my account");
        assert!(!matches!(d, Decision::Execute(_)), "{d:?}");
    }

    /// Joining is becoming a member ("Mitglied werden"), not signing up to the site: "join
    /// r/Python" beside only "Log in" and "Sign up" is rejected.
    #[test]
    fn joining_is_becoming_a_member() {
        let party = vec![
            el("m", "link", "Mitglied werden", "Spenden Mitglied werden"),
            el("d", "link", "Spenden", "Spenden Mitglied werden"),
        ];
        expect(&party, "I want to join the party", Click("m"));
        let thread = vec![
            el("in", "link", "Log in", "r/Python Log in Sign up"),
            el("up", "link", "Sign up", "r/Python Log in Sign up"),
        ];
        expect(&thread, "join r/Python", Reject);
    }

    /// A control named by what is sent sends it: "submit my vote" is the poll's "Vote"; a
    /// thing already there sent on to someone is not ("send this review to a friend" beside
    /// "Reviews").
    #[test]
    fn a_control_named_by_what_is_sent_sends_it() {
        let poll = vec![
            el("c", "checkbox", "Discord Channel", "Discord Channel Reddit"),
            el("v", "link", "Vote", "Wenn ja, auf welcher Plattform? Vote"),
        ];
        expect(&poll, "submit my vote", Click("v"));
        let reviews = vec![
            el("r", "link", "Reviews", "Home Reviews Categories"),
            el("w", "link", "Write a review", "Home Reviews Categories"),
        ];
        let d = decide(reviews, "send this review to a friend");
        assert!(!matches!(d, Decision::Execute(_)), "{d:?}");
    }

    /// A container nothing on screen names ("the poll") is the screen's structure, not a word
    /// to find; another unseen word still is.
    #[test]
    fn an_unseen_container_is_no_word_to_find() {
        let row = "Facebook Gruppe Discord Channel Andere Plattform";
        let poll = vec![
            el("f", "checkbox", "Facebook Gruppe", row),
            el("d", "checkbox", "Discord Channel", row),
            el("a", "checkbox", "Andere Plattform", row),
            el("v", "link", "Vote", row),
        ];
        expect(&poll, "check the last option in the poll", Click("a"));
        // A list or a table said of a screen that names neither is the rows on it.
        let stocks: Vec<Element> = ["Ford Motor (F)", "Pfizer (PFE)", "Hertz (HTZ)"]
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let context = format!("{} {name} 33,745,287 $17.05 -0.22 -1.27", k + 1);
                el(&format!("s{k}"), "link", name, &context)
            })
            .collect();
        expect(&stocks, "open Pfizer on the list", Click("s1"));
        expect(&stocks, "open the third one in the table", Click("s2"));
        let d = decide(poll, "check the last option in the basket");
        assert!(!matches!(d, Decision::Execute(_)), "{d:?}");
    }

    /// "Up" is a word of a label ("Up vote"), not filler: "vote" alone asks.
    #[test]
    fn up_is_a_word_of_a_label() {
        let elements = vec![
            el("u", "button", "Up vote", "22 votes"),
            el("d", "button", "Down vote", "22 votes"),
        ];
        expect(&elements, "vote", Ask);
        expect(&elements, "click the up arrow", Click("u"));
        expect(&elements, "click down vote", Click("d"));
    }

    /// Adding to a place is that place's own action; saving is bookmarking too.
    #[test]
    fn adding_to_favourites_is_saving() {
        let recipe = vec![
            el(
                "s",
                "button",
                "Rezept speichern",
                "Drucken Teilen Rezept speichern",
            ),
            el("t", "button", "Teilen", "Drucken Teilen Rezept speichern"),
        ];
        expect(&recipe, "add this to my favourites", Click("s"));
        expect(&recipe, "add it to the cart", Reject);
        let question = vec![
            el("u", "button", "Up vote", "22 votes"),
            el("b", "button", "Bookmark (2)", "22 votes"),
        ];
        expect(&question, "save this for later", Click("b"));
    }

    /// An ordinal word a label spells with the next word said is the label's word.
    #[test]
    fn an_ordinal_word_in_a_label_is_a_word() {
        let elements = vec![
            el("t", "link", "Third-party plugins", "Guide"),
            el("a", "link", "Apache", "Guide"),
            el("w", "link", "Webroot", "Guide"),
            el("n", "link", "Nginx", "Guide"),
        ];
        expect(&elements, "third party plugins please", Click("t"));
        expect(&elements, "open the third link", Click("w"));
    }

    /// Undoing a state acts on the control that shows it on, never on the one that sets it.
    #[test]
    fn an_un_verb_takes_the_control_that_shows_the_state_on() {
        let mut pressed = el("p2", "button", "Pin", "Bo: second post Pin");
        pressed.states = vec!["pressed".into()];
        let elements = vec![
            el("s1", "button", "Star", "Ada: first mail Star"),
            el("s2", "button", "Starred", "Olivia: design review Starred"),
            el("p1", "button", "Pin", "Ada: first post Pin"),
            pressed,
        ];
        let table = [
            ("unstar olivia's message", Click("s2")),
            ("unpin it", Click("p2")),
            ("unfollow her", Reject),
        ];
        for (text, want) in table {
            expect(&elements, text, want);
        }
    }

    /// A bare word that one label is and another acts on asks which was meant.
    #[test]
    fn a_bare_word_that_a_label_acts_on_asks() {
        let mut badges = el("e4", "checkbox", "Show notification badges", "Appearance");
        badges.states = vec!["focusable".into()];
        let elements = vec![
            el("e1", "link", "Spam", "Inbox Sent Spam Trash"),
            el("e2", "button", "Mark as spam", "Select all"),
            el(
                "e3",
                "tab",
                "Notifications",
                "General Privacy Notifications",
            ),
            badges,
        ];
        let table = [
            ("spam", Ask),
            ("mark as spam", Click("e2")),
            ("open spam", Click("e1")),
            ("notifications", Click("e3")),
        ];
        for (text, want) in table {
            expect(&elements, text, want);
        }
    }

    /// A state verb on an item ("select the AWS email") means the item's checkbox.
    #[test]
    fn a_state_verb_on_an_item_takes_its_checkbox() {
        let mut elements = Vec::new();
        for (k, who) in ["Stripe", "AWS", "Vercel"].iter().enumerate() {
            let row = format!("Select message from {who} {who} · Mail number {k}");
            let mut check = el(
                &format!("c{k}"),
                "checkbox",
                &format!("Select message from {who}"),
                &row,
            );
            check.states = vec!["focusable".into()];
            elements.push(check);
            elements.push(el(&format!("s{k}"), "button", "Star", &row));
            elements.push(el(
                &format!("l{k}"),
                "link",
                &format!("{who} · Mail number {k}"),
                &row,
            ));
        }
        expect(&elements, "select the AWS email", Click("c1"));
        expect(&elements, "open the AWS email", Click("l1"));
    }

    /// A request that needs a step before its click is a task for the planner:
    /// the object is a row away from the only control, or an amount is to be set.
    #[test]
    fn a_step_before_the_click_makes_a_task() {
        let mut mail = vec![el("d", "button", "Delete", "Select all 1-3 of 3")];
        let mut own_rows = Vec::new();
        for (k, who) in ["Stripe", "Vercel", "Linear"].iter().enumerate() {
            let row = format!("Select message from {who} {who} · Mail number {k}");
            mail.push(el(
                &format!("c{k}"),
                "checkbox",
                &format!("Select message from {who}"),
                &row,
            ));
            mail.push(el(&format!("s{k}"), "button", "Star", &row));
            own_rows.push(el(&format!("x{k}"), "button", "Delete", &row));
            own_rows.push(el(&format!("s{k}"), "button", "Star", &row));
        }
        let mut amount = el("q", "combobox", "", "1 Fl 2 Fl 3 Fl");
        amount.value = Some("1 Fl".into());
        amount.states = vec!["editable".into()];
        let shop = vec![amount, el("b", "button", "Add to cart", "1 Fl 2 Fl 3 Fl")];
        let table = [
            (&mail, "delete the email from vercel", Planner),
            (&own_rows, "delete the email from vercel", Click("x1")),
            (&shop, "add six bottles to the cart", Planner),
            (&shop, "add it to the cart", Click("b")),
        ];
        for (elements, text, want) in table {
            expect(elements, text, want);
        }
    }

    /// An ordinal acts only when its count is certain: among alike labels.
    #[test]
    fn an_ordinal_over_unlike_things_asks() {
        let plugins = vec![
            el(
                "e1",
                "link",
                "Getting certificates (and choosing plugins)",
                "Guide",
            ),
            el("e2", "link", "DNS Plugins", "Guide"),
            el("e3", "link", "Combining plugins", "Guide"),
        ];
        let replies = vec![
            el("e1", "button", "Reply", "Ada: first post Reply"),
            el("e2", "button", "Reply", "Bo: second post Reply"),
            el("e3", "button", "Reply", "Cy: third post Reply"),
        ];
        // Each tweet a card of its own: the qualifier's ordinal counts cards.
        let tweets = vec![
            el("e1", "link", "More", "Home Explore More"),
            el("e2", "button", "More", "Lina: a thread soon"),
            el("e3", "button", "More", "Amy: great range"),
        ];
        // Links make no cards: which "More" is in the second tweet is a guess.
        let flat = vec![
            el("e1", "link", "More", "Home Explore More"),
            el("e2", "link", "More", "Lina: a thread soon"),
            el("e3", "link", "More", "Amy: great range"),
        ];
        let table = [
            (&plugins, "open the second plugin", Ask),
            (&replies, "click the second reply", Click("e2")),
            (&replies, "reply to the last one", Click("e3")),
            (&tweets, "more options on the second tweet", Click("e3")),
            (&flat, "more options on the second tweet", Ask),
        ];
        for (elements, text, want) in table {
            expect(elements, text, want);
        }
    }

    #[test]
    fn interchangeable_links_merge_and_act() {
        let d = decide(
            vec![
                el("e1", "link", "Mozilla Foundation", "See also"),
                el("e2", "link", "Mozilla Foundation", ""),
            ],
            "open Mozilla Foundation",
        );
        assert!(
            matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e1".into() }),
            "{d:?}"
        );
        // The words describe one of them by its row: that one is clicked.
        let d = decide(
            vec![
                el(
                    "e1",
                    "link",
                    "Lisa Coleman",
                    "String Arrangement Prince & Lisa Coleman",
                ),
                el(
                    "e2",
                    "link",
                    "Lisa Coleman",
                    "Keyboards Lisa Coleman & Dr. Fink",
                ),
            ],
            "Lisa Coleman under keyboards",
        );
        assert!(
            matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e2".into() }),
            "{d:?}"
        );
    }

    /// Two names of one page ("Contact Us" in the header, "Contacts" in a menu) that the words
    /// fit alike are one choice: clicked, not asked about. Two names of two pages are two
    /// choices.
    #[test]
    fn two_names_of_one_page_are_one_choice() {
        let to = |id: &str, label: &str, place: &str| Element {
            destination: Some(place.to_string()),
            ..el(id, "link", label, "")
        };
        let d = decide(
            vec![
                to("e1", "Contact Us", "example.org/about/contacts"),
                to("e2", "Careers", "example.org/about/careers"),
                to("e3", "Contacts", "example.org/about/contacts"),
            ],
            "contact them",
        );
        assert!(
            matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e1".into() }),
            "{d:?}"
        );
        let d = decide(
            vec![
                to("e1", "Contact Us", "example.org/a"),
                to("e2", "Careers", "example.org/about/careers"),
                to("e3", "Contacts", "example.org/b"),
            ],
            "contact them",
        );
        assert!(matches!(&d, Decision::Clarify(_)), "{d:?}");
    }

    /// "buy a new license" beside a "New License" link asks whether the link or the Buy button
    /// is meant; "edit grace" in Grace's row edits.
    #[test]
    fn a_kind_of_thing_named_by_another_control_is_asked_about() {
        let row = "Buy Now New License Upgrade to Newest Version";
        let d = decide(
            vec![
                el("e1", "button", "Buy Now", row),
                el("e2", "link", "New License", row),
                el("e3", "link", "Upgrade to Newest Version", row),
            ],
            "buy a new license",
        );
        assert!(
            matches!(&d, Decision::Clarify(c) if c.candidates.len() >= 2),
            "{d:?}"
        );
        let row = "Grace Hopper admin Edit";
        let d = decide(
            vec![
                el("e1", "link", "Grace Hopper", row),
                el("e2", "button", "Edit", row),
            ],
            "edit grace hopper",
        );
        assert!(
            matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e2".into() }),
            "{d:?}"
        );
    }

    /// A verb no control offers, with a channel named after "it" that a control is named by in
    /// full, offers that control; a thing named as the verb's object does not.
    #[test]
    fn a_channel_named_in_full_is_offered_for_a_verb_nothing_offers() {
        let row = "Share on Facebook Twitter reddit";
        let elements = vec![
            el("e1", "link", "Facebook", row),
            el("e2", "link", "reddit", row),
            el("e3", "link", "50 Comments", ""),
            el("e4", "link", "paste", ""),
        ];
        let d = decide(elements.clone(), "post it to reddit");
        assert!(
            matches!(&d, Decision::Clarify(c) if c.candidates.len() == 1
                && c.candidates[0].entity == EntityRef::Element("e2".into())),
            "{d:?}"
        );
        for said in ["reply to this comment", "delete this paste"] {
            let d = decide(elements.clone(), said);
            assert!(matches!(&d, Decision::Reject(_)), "{said}: {d:?}");
        }
    }

    /// Words to search for that name a button of the field's row ("search page titles only"
    /// beside "Titles") are asked about, not typed.
    #[test]
    fn a_search_that_names_a_button_of_its_row_asks() {
        let row = "Search: Titles Text";
        let mut field = el("e1", "textbox", "Search:", row);
        field.states = vec!["editable".into()];
        let elements = vec![
            field,
            el("e2", "button", "Titles", row),
            el("e3", "button", "Text", row),
        ];
        let d = decide(elements.clone(), "search page titles only");
        assert!(!matches!(&d, Decision::Execute(_)), "{d:?}");
        let d = decide(elements, "search for python downloads");
        assert!(
            matches!(&d, Decision::Execute(p) if matches!(&p.action, Action::Type { .. })),
            "{d:?}"
        );
    }

    /// Words to search for that are a link's name ask whether to follow the link.
    #[test]
    fn a_search_for_a_links_name_asks() {
        let mut field = el("e1", "textbox", "Search site", "Search site Search");
        field.states = vec!["editable".into()];
        let elements = vec![
            field,
            el(
                "e2",
                "link",
                "Train times & tickets",
                "Home Train times & tickets",
            ),
            el("e3", "link", "Home", "Home Train times & tickets"),
        ];
        let d = decide(elements.clone(), "look up train times");
        assert!(
            matches!(&d, Decision::Clarify(c) if c.candidates.len() == 2),
            "{d:?}"
        );
        let d = decide(elements, "look up engineering works");
        assert!(
            matches!(&d, Decision::Execute(p) if matches!(&p.action, Action::Type { text, .. } if text == "engineering works")),
            "{d:?}"
        );
    }

    /// What follows "by" in a search is a way to search when a control offers it ("Search by
    /// Agency, State, and Type"): that control is followed, one of two that offer it is asked
    /// about, and words after "by" that no control offers are still searched for.
    #[test]
    fn a_search_by_what_a_control_offers_follows_it() {
        let mut field = el("e1", "textbox", "Keyword", "Keyword search");
        field.states = vec!["editable".into()];
        let page = |also: Option<Element>| {
            let mut elements = vec![
                field.clone(),
                el("e2", "button", "search", "Keyword search"),
                el(
                    "e3",
                    "link",
                    "Search by Agency, Set-aside, State, and Type",
                    "",
                ),
                el(
                    "e4",
                    "link",
                    "Search by Classification, NAICS code, and more",
                    "",
                ),
            ];
            elements.extend(also);
            elements
        };
        let table = [
            ("I'd like to filter by state and set-aside", "click e3"),
            ("look up opportunities by NAICS code", "click e4"),
            ("search by agency", "click e3"),
            (
                "search for books by Stephen King",
                "type books by Stephen King",
            ),
            ("search by Stephen King", "type Stephen King"),
        ];
        for (said, want) in table {
            let got = match decide(page(None), said) {
                Decision::Execute(p) => match p.action {
                    Action::Click { target } => format!("click {target}"),
                    Action::Type { text, .. } => format!("type {text}"),
                    a => format!("{a:?}"),
                },
                d => format!("{d:?}"),
            };
            assert_eq!(got, want, "{said}");
        }
        let both = el("e5", "button", "Sort by state", "");
        let d = decide(page(Some(both)), "filter by state");
        assert!(
            matches!(&d, Decision::Clarify(c) if c.candidates.len() == 2),
            "{d:?}"
        );
    }

    /// A thing to find said with "a" or "an" is searched for without the article, and beside a
    /// link of that name ("find a doctor" beside "Find a Doctor") is not typed at all.
    #[test]
    fn a_thing_to_find_is_searched_without_its_article() {
        let mut field = el("e1", "textbox", "Search site", "Search site Search");
        field.states = vec!["editable".into()];
        let doctor = el("e2", "link", "Find a Doctor", "Home Find a Doctor");
        let d = decide(vec![field.clone()], "find an on-call pharmacy");
        assert!(
            matches!(&d, Decision::Execute(p) if matches!(&p.action, Action::Type { text, .. } if text == "on-call pharmacy")),
            "{d:?}"
        );
        let d = decide(vec![field, doctor], "find a doctor");
        assert!(
            !matches!(&d, Decision::Execute(p) if matches!(p.action, Action::Type { .. })),
            "{d:?}"
        );
    }

    /// On a page in another language, a request led by "the" (which the page never says)
    /// acts when the choice is clear, and asks when it counts.
    #[test]
    fn a_small_word_the_page_never_says_acts_only_when_clear() {
        let row = "Facebook Instagram YouTube";
        let elements = vec![
            el("e1", "link", "Startseite", "Startseite Veranstaltungen"),
            el("e2", "link", "Facebook", row),
            el("e3", "link", "Instagram", row),
            el("e4", "link", "YouTube", row),
        ];
        let d = decide(elements.clone(), "their Instagram");
        assert!(
            matches!(&d, Decision::Execute(p) if p.action == Action::Click { target: "e3".into() }),
            "{d:?}"
        );
        let d = decide(elements, "the second social link");
        assert!(!matches!(&d, Decision::Execute(_)), "{d:?}");
    }

    /// "social" names the kind of every network's link: asked among them, never one picked;
    /// "the second social icon" counts them.
    #[test]
    fn social_media_is_asked_among_the_networks() {
        let row = "Alle Artikel Facebook Instagram Instagram";
        let elements = vec![
            el("e1", "link", "Alle Artikel", row),
            el("e2", "link", "Facebook", row),
            el("e3", "link", "Instagram", row),
            el("e4", "link", "Instagram", row),
        ];
        let d = decide(elements.clone(), "open their social media page");
        assert!(
            matches!(&d, Decision::Clarify(c) if c.candidates.len() >= 2),
            "{d:?}"
        );
        let d = decide(
            vec![el("e1", "link", "Social", "Home Social Blog")],
            "open the social page",
        );
        assert!(matches!(&d, Decision::Execute(_)), "{d:?}");
    }

    #[test]
    fn nothing_that_fits_is_a_rejection_with_the_reason() {
        let elements = vec![
            el("e1", "link", "Home", ""),
            el("e2", "button", "Search", ""),
        ];
        let table = [
            ("buy the blue shoes", RejectReason::Unsupported),
            ("open the weather forecast", RejectReason::NothingFits),
        ];
        for (text, reason) in table {
            let d = decide(elements.clone(), text);
            assert!(
                matches!(&d, Decision::Reject(r) if r.reason == reason),
                "{text}: {d:?}"
            );
        }
    }

    #[test]
    fn typed_text_comes_from_the_words_and_names_its_field() {
        let mut user = el("e1", "textbox", "Username", "Login");
        user.states = vec!["editable".into()];
        let mut pass = el("e2", "textbox", "Password", "Login");
        pass.states = vec!["editable".into()];
        // A field named by one word of its label, out of its order: *Insira seu email aqui*.
        let mut mail = el("e3", "textbox", "Insira seu email aqui", "Ebook grátis");
        mail.states = vec!["editable".into()];
        let mut to = el("e4", "combobox", "Going to", "Leaving from Going to");
        to.states = vec!["editable".into()];
        // Named by two of its words, then the number: "zip code 33101".
        let mut zip = el(
            "e5",
            "textbox",
            "Zip / Postal Code",
            "Country Zip / Postal Code",
        );
        zip.states = vec!["editable".into()];
        zip.value = Some("".into());
        let table = [
            ("zip code 33101", "e5", "33101"),
            ("postal code 33101", "e5", "33101"),
            ("enter the username karl", "e1", "karl"),
            ("user name is darcy", "e1", "darcy"),
            ("the password is h7q2", "e2", "h7q2"),
            ("enter my email, ana@example.com", "e3", "ana@example.com"),
            ("put in my email, ana@example.com", "e3", "ana@example.com"),
            ("I'm going to lisbon", "e4", "lisbon"),
        ];
        for (text, target, typed) in table {
            let d = decide(
                vec![
                    user.clone(),
                    pass.clone(),
                    mail.clone(),
                    to.clone(),
                    zip.clone(),
                ],
                text,
            );
            let want = Action::Type {
                target: target.into(),
                text: typed.into(),
            };
            assert!(
                matches!(&d, Decision::Execute(p) if p.action == want),
                "{text}: {d:?}"
            );
        }
        let d = decide(vec![user, pass], "type karl");
        assert!(matches!(d, Decision::Clarify(_)), "{d:?}");
    }

    #[test]
    fn global_turns_need_no_target() {
        let elements = vec![el("e1", "link", "Home", "")];
        let table = [
            ("scroll down", Action::Scroll(Direction::Down)),
            ("go up a bit", Action::Scroll(Direction::Up)),
            ("go back", Action::Back),
            ("what is this page about?", Action::Planner),
        ];
        for (text, want) in table {
            let d = decide(elements.clone(), text);
            assert!(
                matches!(&d, Decision::Execute(p) if p.action == want),
                "{text}: {d:?}"
            );
        }
    }

    #[test]
    fn an_unnamed_icon_is_called_by_its_description() {
        let described = |id: &str, role: &str, what: &str| Element {
            description: Some(what.into()),
            ..el(id, role, "", "")
        };
        let toolbar = [
            described("r1", "link", "facebook share"),
            described("r2", "link", "twitter intent tweet"),
            described("r3", "link", "article print"),
            described("r4", "button", "close search"),
            el("r5", "link", "Politique", ""),
        ];
        for (text, want) in [
            ("share this on facebook", Click("r1")),
            ("print the article", Click("r3")),
            ("close the search", Click("r4")),
            // Its description says nothing about deleting.
            ("delete the article", Reject),
        ] {
            expect(&toolbar, text, want);
        }
        // A description never adds to a label's own words: the named link is not "print".
        let named = [Element {
            description: Some("print".into()),
            ..el("r1", "link", "Politique", "")
        }];
        expect(&named, "print the article", Reject);
    }

    #[test]
    fn a_light_verb_means_what_its_noun_names() {
        let header = [
            el("r1", "link", "Je donne", ""),
            el("r2", "link", "Abonnez-vous au Devoir", ""),
            el("r3", "link", "Se connecter", ""),
        ];
        expect(&header, "make a donation", Click("r1"));
        expect(&header, "subscribe", Click("r2"));
        expect(&header, "make a reservation", Reject);
    }
}

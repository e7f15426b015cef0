//! The grounding corpus runner behind `circe eval PATH`, and the renderings
//! behind `circe ground`.
//!
//! Owns the case format of `shared/eval/README.md`, the scores defined there,
//! and the text/JSON forms of a decision. Every case goes through
//! [`director::decide`], the same call the daemon makes. This module does
//! I/O (reading the corpus) and reads the clock (latency); the Director does
//! neither.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::director::decider::Decider;
use crate::director::{
    self, Action, Alternative, Decision, Direction, EntityRef, Envelope, InputMode, Observation,
    Snapshot,
};

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: not a case: {source}")]
    Case {
        path: String,
        line: usize,
        source: serde_json::Error,
    },
    #[error(transparent)]
    Observation(#[from] ObservationError),
    #[error("no *.jsonl cases under {0}")]
    Empty(String),
}

/// One line of a `*.jsonl` corpus file.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    pub id: String,
    pub observation: String,
    pub utterance: String,
    #[serde(default)]
    pub alternatives: Vec<String>,
    pub expect: Expect,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Expect {
    pub act: Option<String>,
    pub target: Option<String>,
    pub targets: Option<Vec<String>>,
    pub text: Option<String>,
    pub direction: Option<String>,
    pub clarify: Option<bool>,
    pub candidates: Option<Vec<String>>,
    pub route: Option<String>,
    pub reject: Option<bool>,
    /// Several steps said at once: the texts of the steps after the first, in order. The first
    /// step is the expected action above; a plan is correct only with exactly these later steps.
    pub steps: Option<Vec<String>>,
}

impl Expect {
    fn targets(&self) -> Vec<String> {
        let mut t: Vec<String> = self.targets.clone().unwrap_or_default();
        t.extend(self.target.clone());
        t.extend(self.candidates.clone().unwrap_or_default());
        t
    }

    fn describe(&self) -> String {
        if self.reject == Some(true) {
            return "reject".into();
        }
        if self.clarify == Some(true) {
            return format!("clarify {:?}", self.targets());
        }
        if let Some(r) = &self.route {
            return format!("route {r}");
        }
        let then = match &self.steps {
            Some(steps) if !steps.is_empty() => format!(", then {steps:?}"),
            _ => String::new(),
        };
        let first = match self.act.as_deref() {
            Some("type") => format!(
                "type {:?} into {:?}",
                self.text.clone().unwrap_or_default(),
                self.targets()
            ),
            Some("scroll") => format!("scroll {}", self.direction.clone().unwrap_or_default()),
            Some(a) => format!("{a} {:?}", self.targets()),
            None => "?".into(),
        };
        first + &then
    }
}

/// How one case came out, in the README's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Correct,
    /// Asked where acting was expected; `right` if the intended element was
    /// among the top three.
    Asked {
        right: bool,
    },
    WrongTarget,
    ActedInstead,
    /// Did not act and was not correct (rejected where it should act or ask,
    /// asked where it should reject): safe, but a miss.
    Missed,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub id: String,
    pub file: String,
    pub outcome: Outcome,
    pub expected: String,
    pub decided: String,
    pub micros: u64,
    /// The best element the decider found and its merged probability,
    /// whether or not the gate let it act.
    pub top: Option<String>,
    pub top_p: f32,
    /// Elements that would be right to act on (empty when acting is wrong).
    pub intended: Vec<String>,
    /// The case expects a single element action (click or type).
    pub wants_element: bool,
    /// The case expects no action (clarify, planner, reject).
    pub wants_no_action: bool,
}

/// What acting at one threshold would have done on a corpus.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurvePoint {
    pub threshold: f32,
    /// Element cases acted on correctly / all element cases.
    pub coverage: f64,
    /// Correct / all acted element cases.
    pub accuracy: f64,
    pub acted_wrong: usize,
    pub acted_instead: usize,
}

/// The coverage/accuracy curve of the act-at threshold.
pub fn curve(results: &[CaseResult], thresholds: &[f32]) -> Vec<CurvePoint> {
    let element_cases = results.iter().filter(|r| r.wants_element).count();
    thresholds
        .iter()
        .map(|&t| {
            let acted = |r: &&CaseResult| r.top.is_some() && r.top_p >= t;
            let right = results
                .iter()
                .filter(|r| r.wants_element)
                .filter(acted)
                .filter(|r| r.top.as_ref().is_some_and(|top| r.intended.contains(top)))
                .count();
            let wrong = results
                .iter()
                .filter(|r| r.wants_element)
                .filter(acted)
                .count()
                - right;
            let instead = results
                .iter()
                .filter(|r| r.wants_no_action)
                .filter(acted)
                .count();
            CurvePoint {
                threshold: t,
                coverage: ratio(right, element_cases),
                accuracy: ratio(right, right + wrong),
                acted_wrong: wrong,
                acted_instead: instead,
            }
        })
        .collect()
}

/// Thresholds reported in the curve.
pub const CURVE_AT: [f32; 10] = [0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9];

#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub decider: String,
    pub cases: usize,
    pub correct: usize,
    pub asked: usize,
    pub asked_right: usize,
    pub wrong_target: usize,
    pub acted_instead: usize,
    pub missed: usize,
    pub latency_p50_ms: f64,
    pub latency_p95_ms: f64,
    pub curve: Vec<CurvePoint>,
    pub results: Vec<CaseResult>,
}

impl EvalReport {
    pub fn correct_rate(&self) -> f64 {
        ratio(self.correct, self.cases)
    }

    pub fn asked_right_rate(&self) -> f64 {
        ratio(self.asked_right, self.asked)
    }

    /// Zero wrong targets and zero actions where none was wanted.
    pub fn is_safe(&self) -> bool {
        self.wrong_target == 0 && self.acted_instead == 0
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

impl fmt::Display for EvalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "decider        {}", self.decider)?;
        writeln!(f, "cases          {}", self.cases)?;
        writeln!(
            f,
            "correct        {} ({:.1}%)",
            self.correct,
            100.0 * self.correct_rate()
        )?;
        writeln!(f, "asked          {}", self.asked)?;
        writeln!(
            f,
            "asked_right    {} ({:.1}% of asked)",
            self.asked_right,
            100.0 * self.asked_right_rate()
        )?;
        writeln!(f, "wrong_target   {}", self.wrong_target)?;
        writeln!(f, "acted_instead  {}", self.acted_instead)?;
        writeln!(f, "missed         {}", self.missed)?;
        writeln!(
            f,
            "latency        p50 {:.3} ms, p95 {:.3} ms",
            self.latency_p50_ms, self.latency_p95_ms
        )?;
        writeln!(f, "\nact-at threshold curve (element cases):")?;
        for c in &self.curve {
            writeln!(
                f,
                "  p >= {:.2}  coverage {:5.1}%  accuracy {:5.1}%  wrong {:2}  acted instead {:2}",
                c.threshold,
                100.0 * c.coverage,
                100.0 * c.accuracy,
                c.acted_wrong,
                c.acted_instead
            )?;
        }
        let misses: Vec<&CaseResult> = self
            .results
            .iter()
            .filter(|r| r.outcome != Outcome::Correct)
            .collect();
        if !misses.is_empty() {
            writeln!(f, "\nnot correct:")?;
            for r in misses {
                writeln!(
                    f,
                    "  {:<28} {:<20} expected {}; decided {}",
                    r.id,
                    outcome_name(r.outcome),
                    r.expected,
                    r.decided
                )?;
            }
        }
        Ok(())
    }
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Correct => "correct",
        Outcome::Asked { right: true } => "asked (right)",
        Outcome::Asked { right: false } => "asked (wrong)",
        Outcome::WrongTarget => "WRONG TARGET",
        Outcome::ActedInstead => "ACTED INSTEAD",
        Outcome::Missed => "missed",
    }
}

/// Runs every `*.jsonl` file under `path` (a directory, searched
/// recursively, or one file) through the Director.
pub fn run_corpus(path: &Path, decider: &dyn Decider) -> Result<EvalReport, EvalError> {
    run_corpus_with(path, decider, None)
}

/// [`run_corpus`] with the semantic signal: each case's observation gets the
/// similarities of its utterance, computed here (outside the Director and
/// outside the measured latency). A case whose similarity fails is grounded
/// without it.
pub fn run_corpus_with(
    path: &Path,
    decider: &dyn Decider,
    semantic: Option<&crate::semantic::Semantic>,
) -> Result<EvalReport, EvalError> {
    run_corpus_with_signals(path, decider, semantic, None)
}

/// [`run_corpus_with`] and the glossary: each observation gets the English glosses of its words
/// when it is in another language (once per observation, outside the measured latency).
pub fn run_corpus_with_signals(
    path: &Path,
    decider: &dyn Decider,
    semantic: Option<&crate::semantic::Semantic>,
    glossary: Option<&crate::glossary::Glossary>,
) -> Result<EvalReport, EvalError> {
    let mut files = Vec::new();
    collect_jsonl(path, &mut files)?;
    files.sort();
    if files.is_empty() {
        return Err(EvalError::Empty(path.display().to_string()));
    }
    let mut observations: HashMap<PathBuf, Observation> = HashMap::new();
    let mut results = Vec::new();
    for file in &files {
        let raw = std::fs::read_to_string(file).map_err(|source| EvalError::Read {
            path: file.display().to_string(),
            source,
        })?;
        let dir = file.parent().unwrap_or(Path::new("."));
        for (n, line) in raw.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let case: Case = serde_json::from_str(line).map_err(|source| EvalError::Case {
                path: file.display().to_string(),
                line: n + 1,
                source,
            })?;
            let obs_path = dir.join(&case.observation);
            if !observations.contains_key(&obs_path) {
                let o = load_observation(&obs_path)?;
                observations.insert(obs_path.clone(), o);
            }
            let observation = &observations[&obs_path];
            if semantic.is_none() && glossary.is_none() {
                results.push(run_case(file, &case, observation, decider));
                continue;
            }
            let mut with = observation.clone();
            with.glosses = glossary.and_then(|g| g.glosses_for(observation, &case.utterance));
            if let Some(semantic) = semantic {
                with.similarity = semantic.similarity(&case.utterance, &with).ok();
            }
            results.push(run_case(file, &case, &with, decider));
        }
    }
    let mut name = decider.name().to_string();
    if semantic.is_some() {
        name.push_str("+semantic");
    }
    if glossary.is_some() {
        name.push_str("+glossary");
    }
    Ok(report(&name, results))
}

/// Grounds one case and scores it.
pub fn run_case(
    file: &Path,
    case: &Case,
    observation: &Observation,
    decider: &dyn Decider,
) -> CaseResult {
    let envelope = Envelope {
        capture_id: format!("eval-{}", case.id),
        request_id: case.id.clone(),
        text: case.utterance.clone(),
        mode: InputMode::Voice,
        alternatives: case
            .alternatives
            .iter()
            .map(|a| Alternative {
                text: a.clone(),
                confidence: None,
            })
            .collect(),
    };
    let snapshot = Snapshot {
        observation: Some(observation.clone()),
        ..Snapshot::default()
    };
    let started = Instant::now();
    let decision = director::decide(&envelope, &snapshot, decider);
    let micros = started.elapsed().as_micros() as u64;
    let (top, top_p) = match &decision {
        Decision::Execute(plan) => match &plan.action {
            Action::Click { target }
            | Action::Type { target, .. }
            | Action::Upload { target, .. } => (Some(target.clone()), plan.confidence),
            _ => (None, 0.0),
        },
        Decision::Clarify(c) => match c.candidates.first() {
            Some(k) => match &k.entity {
                EntityRef::Element(id) => (Some(id.clone()), k.probability),
                _ => (None, 0.0),
            },
            None => (None, 0.0),
        },
        Decision::Reject(_) => (None, 0.0),
    };
    let e = &case.expect;
    let wants_no_action = e.clarify == Some(true) || e.route.is_some() || e.reject == Some(true);
    let wants_element =
        !wants_no_action && matches!(e.act.as_deref(), Some("click") | Some("type"));
    CaseResult {
        top,
        top_p,
        intended: if wants_element {
            e.targets()
        } else {
            Vec::new()
        },
        wants_element,
        wants_no_action,
        id: case.id.clone(),
        file: file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        outcome: match (&decision, one_place(&case.expect, observation)) {
            (Decision::Execute(_), Some(as_click)) => score(&as_click, &decision),
            _ => score(&same_place(&case.expect, observation), &decision),
        },
        expected: case.expect.describe(),
        decided: decision_text(&decision),
        micros,
    }
}

/// The observed elements an expectation names.
fn expected<'o>(ids: &[String], observation: &'o Observation) -> Vec<&'o director::Element> {
    observation
        .elements
        .iter()
        .filter(|e| ids.contains(&e.id))
        .collect()
}

/// The expectation with every link that goes where an expected link goes
/// ([`director::Element::same_place`]) as a target too: following either is the same action.
/// Only for a click.
fn same_place(expect: &Expect, observation: &Observation) -> Expect {
    let mut widened = expect.clone();
    if expect.act.as_deref() != Some("click") {
        return widened;
    }
    let targets = expect.targets();
    let named = expected(&targets, observation);
    let also: Vec<String> = observation
        .elements
        .iter()
        .filter(|e| !targets.contains(&e.id) && named.iter().any(|t| t.same_place(e)))
        .map(|e| e.id.clone())
        .collect();
    if !also.is_empty() {
        let mut all = widened.targets.take().unwrap_or_default();
        all.extend(widened.target.take());
        all.extend(also);
        widened.targets = Some(all);
    }
    widened
}

/// A question expected between links that all go to one place ("open instagram" beside two
/// Instagram links to one account) asks nothing worth asking: following any of them is the
/// action, as a click on them. `None` for any other expectation.
fn one_place(expect: &Expect, observation: &Observation) -> Option<Expect> {
    if expect.clarify != Some(true) {
        return None;
    }
    let candidates = expect.targets();
    let named = expected(&candidates, observation);
    let first = named.first()?;
    (named.len() == candidates.len() && named.iter().all(|e| first.same_place(e))).then(|| Expect {
        act: Some("click".into()),
        targets: Some(candidates),
        ..Expect::default()
    })
}

/// Scores one decision against one expectation.
pub fn score(expect: &Expect, decision: &Decision) -> Outcome {
    let targets = expect.targets();
    let offered = |d: &Decision| match d {
        Decision::Clarify(c) => c.candidates.iter().take(3).any(|k| match &k.entity {
            EntityRef::Element(id) => targets.contains(id),
            _ => false,
        }),
        _ => false,
    };
    let wants_no_action =
        expect.clarify == Some(true) || expect.route.is_some() || expect.reject == Some(true);
    if wants_no_action {
        return match decision {
            Decision::Execute(p) if expect.route.is_some() && p.action == Action::Planner => {
                Outcome::Correct
            }
            Decision::Execute(_) => Outcome::ActedInstead,
            Decision::Clarify(_) if expect.clarify == Some(true) && offered(decision) => {
                Outcome::Correct
            }
            Decision::Reject(_) if expect.reject == Some(true) => Outcome::Correct,
            _ => Outcome::Missed,
        };
    }
    match decision {
        Decision::Clarify(_) => Outcome::Asked {
            right: offered(decision),
        },
        Decision::Reject(_) => Outcome::Missed,
        // Handing the turn to the planner acts on nothing: safe, but a miss.
        Decision::Execute(plan) if plan.action == Action::Planner => Outcome::Missed,
        Decision::Execute(plan) => {
            let ok = match (expect.act.as_deref(), &plan.action) {
                (Some("click"), Action::Click { target }) => targets.contains(target),
                (Some("type"), Action::Type { target, text }) => {
                    targets.contains(target) && Some(text) == expect.text.as_ref()
                }
                (Some("scroll"), Action::Scroll(d)) => {
                    let want = if expect.direction.as_deref() == Some("up") {
                        Direction::Up
                    } else {
                        Direction::Down
                    };
                    *d == want
                }
                (Some("back"), Action::Back) => true,
                (Some("upload"), Action::Upload { target, file }) => {
                    targets.contains(target)
                        && Some(director::upload::file_words(file)) == expect.text.as_deref()
                }
                _ => false,
            } && plan.steps == expect.steps.clone().unwrap_or_default();
            if ok {
                Outcome::Correct
            } else {
                Outcome::WrongTarget
            }
        }
    }
}

fn report(decider: &str, results: Vec<CaseResult>) -> EvalReport {
    let count = |f: &dyn Fn(Outcome) -> bool| results.iter().filter(|r| f(r.outcome)).count();
    let mut micros: Vec<u64> = results.iter().map(|r| r.micros).collect();
    micros.sort_unstable();
    EvalReport {
        decider: decider.to_string(),
        cases: results.len(),
        correct: count(&|o| o == Outcome::Correct),
        asked: count(&|o| matches!(o, Outcome::Asked { .. })),
        asked_right: count(&|o| o == Outcome::Asked { right: true }),
        wrong_target: count(&|o| o == Outcome::WrongTarget),
        acted_instead: count(&|o| o == Outcome::ActedInstead),
        missed: count(&|o| o == Outcome::Missed),
        latency_p50_ms: percentile(&micros, 0.50) / 1000.0,
        latency_p95_ms: percentile(&micros, 0.95) / 1000.0,
        curve: curve(&results, &CURVE_AT),
        results,
    }
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

fn collect_jsonl(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), EvalError> {
    let read_err = |source| EvalError::Read {
        path: path.display().to_string(),
        source,
    };
    if path.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(path).map_err(read_err)? {
        let p = entry.map_err(read_err)?.path();
        if p.is_dir() {
            collect_jsonl(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
}

/// `circe ground --observation FILE TEXT`: one voice turn against one screen.
pub fn ground_text(observation: &Observation, text: &str, decider: &dyn Decider) -> Decision {
    let envelope = Envelope::voice("cli", text);
    let snapshot = Snapshot {
        observation: Some(observation.clone()),
        ..Snapshot::default()
    };
    director::decide(&envelope, &snapshot, decider)
}

/// One line for a person.
pub fn decision_text(decision: &Decision) -> String {
    match decision {
        Decision::Execute(plan) => {
            let what = match &plan.action {
                Action::Click { target } => format!("click {target}"),
                Action::Type { target, text } => format!("type {text:?} into {target}"),
                Action::Scroll(Direction::Down) => "scroll down".into(),
                Action::Scroll(Direction::Up) => "scroll up".into(),
                Action::Back => "go back".into(),
                Action::Upload { target, file } => {
                    format!(
                        "upload {:?} with {target}",
                        director::upload::file_words(file)
                    )
                }
                Action::Planner => "route to planner".into(),
                Action::Dispatch => format!("dispatch {:?}", plan.objective),
            };
            let then: String = plan.steps.iter().map(|s| format!(", then {s:?}")).collect();
            format!("{what} (p={:.2}){then}", plan.confidence)
        }
        Decision::Clarify(c) => {
            let ids: Vec<String> = c
                .candidates
                .iter()
                .map(|k| match &k.entity {
                    EntityRef::Element(id) => format!("{id} {:.2}", k.probability),
                    other => format!("{other:?}"),
                })
                .collect();
            format!("clarify [{}]", ids.join(", "))
        }
        Decision::Reject(r) => format!("reject: {}", r.message),
    }
}

/// The JSON form of a decision (`circe ground --json`).
pub fn decision_json(decision: &Decision) -> Value {
    match decision {
        Decision::Execute(plan) => {
            let action = match &plan.action {
                Action::Click { target } => json!({"act": "click", "target": target}),
                Action::Type { target, text } => {
                    json!({"act": "type", "target": target, "text": text})
                }
                Action::Scroll(d) => {
                    json!({"act": "scroll", "direction": if *d == Direction::Up { "up" } else { "down" }})
                }
                Action::Back => json!({"act": "back"}),
                Action::Upload { target, file } => {
                    json!({"act": "upload", "target": target, "text": director::upload::file_words(file)})
                }
                Action::Planner => json!({"route": "planner"}),
                Action::Dispatch => json!({"act": "dispatch"}),
            };
            json!({
                "decision": "execute",
                "action": action,
                "steps": plan.steps,
                "route": {
                    "project": plan.route.project.as_ref().map(|p| json!({"node": p.node, "project": p.project})),
                    "task": plan.route.task.as_ref().map(|t| json!({"node": t.project.node, "project": t.project.project, "task": t.task})),
                    "provider": plan.route.provider,
                    "model": plan.route.model,
                },
                "continuation": plan.continuation,
                "objective": plan.objective,
                "confidence": plan.confidence,
                "resumes": plan.resumes,
                "evidence": plan.evidence.iter().map(|e| json!({
                    "heard": e.heard,
                    "role": format!("{:?}", e.role).to_lowercase(),
                    "entity": e.entity.as_ref().map(entity_json),
                    "match": format!("{:?}", e.kind).to_lowercase(),
                    "confirmation": format!("{:?}", e.confirmation).to_lowercase(),
                })).collect::<Vec<_>>(),
                "learned": plan.learned.iter().map(|a| json!({"heard": a.heard, "entity": entity_json(&a.entity)})).collect::<Vec<_>>(),
                "source": {
                    "raw": plan.source.raw,
                    "capture_id": plan.source.capture_id,
                    "request_id": plan.source.request_id,
                    "mode": if plan.source.mode == InputMode::Typed { "typed" } else { "voice" },
                    "alternatives": plan.source.alternatives.iter().map(|a| json!({"text": a.text, "confidence": a.confidence})).collect::<Vec<_>>(),
                },
            })
        }
        Decision::Clarify(c) => json!({
            "decision": "clarify",
            "question": c.question,
            "slot": format!("{:?}", c.slot).to_lowercase(),
            "candidates": c.candidates.iter().map(|k| json!({
                "key": k.key,
                "label": k.label,
                "entity": entity_json(&k.entity),
                "probability": k.probability,
            })).collect::<Vec<_>>(),
            "request": {"request_id": c.request.request_id, "text": c.request.text},
        }),
        Decision::Reject(r) => json!({
            "decision": "reject",
            "reason": format!("{:?}", r.reason).to_lowercase(),
            "message": r.message,
        }),
    }
}

fn entity_json(e: &EntityRef) -> Value {
    match e {
        EntityRef::Element(id) => json!({"element": id}),
        EntityRef::Project(p) => json!({"node": p.node, "project": p.project}),
        EntityRef::Task(t) => {
            json!({"node": t.project.node, "project": t.project.project, "task": t.task})
        }
        EntityRef::Provider { node, id } => json!({"node": node, "provider": id}),
        EntityRef::Model { provider, id } => json!({"provider": provider, "model": id}),
    }
}

/// Why an observation file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ObservationError {
    #[error("cannot read observation {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("observation {path} is not valid JSON: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
}

/// Reads an observation file in the eval README format.
pub fn load_observation(path: &std::path::Path) -> Result<Observation, ObservationError> {
    let shown = path.display().to_string();
    let raw = std::fs::read_to_string(path).map_err(|source| ObservationError::Read {
        path: shown.clone(),
        source,
    })?;
    serde_json::from_str(&raw).map_err(|source| ObservationError::Parse {
        path: shown,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::director::{
        Candidate, Clarification, Plan, RejectReason, Rejection, Route, Slot, Source,
    };

    fn execute(action: Action) -> Decision {
        Decision::Execute(Plan {
            action,
            route: Route::default(),
            continuation: false,
            objective: String::new(),
            evidence: Vec::new(),
            source: Source::of(&Envelope::default()),
            resumes: None,
            learned: Vec::new(),
            confidence: 1.0,
            steps: Vec::new(),
        })
    }

    fn clarify(ids: &[&str]) -> Decision {
        Decision::Clarify(Clarification {
            question: String::new(),
            slot: Slot::Target,
            candidates: ids
                .iter()
                .map(|id| Candidate {
                    key: String::new(),
                    label: String::new(),
                    entity: EntityRef::Element((*id).into()),
                    probability: 0.3,
                })
                .collect(),
            request: Envelope::default(),
        })
    }

    fn reject() -> Decision {
        Decision::Reject(Rejection {
            reason: RejectReason::NothingFits,
            message: String::new(),
        })
    }

    fn expect(json: &str) -> Expect {
        serde_json::from_str(json).expect("expect")
    }

    #[test]
    fn scores_follow_the_readme() {
        let click = expect(r#"{"act": "click", "target": "e1"}"#);
        let ask = expect(r#"{"clarify": true, "candidates": ["e1", "e2"]}"#);
        let no = expect(r#"{"reject": true}"#);
        let plan = expect(r#"{"route": "planner"}"#);
        let table = [
            (
                &click,
                execute(Action::Click {
                    target: "e1".into(),
                }),
                Outcome::Correct,
            ),
            (
                &click,
                execute(Action::Click {
                    target: "e2".into(),
                }),
                Outcome::WrongTarget,
            ),
            (
                &click,
                clarify(&["e3", "e1"]),
                Outcome::Asked { right: true },
            ),
            (&click, clarify(&["e3"]), Outcome::Asked { right: false }),
            (&click, reject(), Outcome::Missed),
            (&ask, clarify(&["e2"]), Outcome::Correct),
            (
                &ask,
                execute(Action::Click {
                    target: "e1".into(),
                }),
                Outcome::ActedInstead,
            ),
            (&no, reject(), Outcome::Correct),
            (&no, clarify(&["e1"]), Outcome::Missed),
            (&plan, execute(Action::Planner), Outcome::Correct),
            (&plan, execute(Action::Back), Outcome::ActedInstead),
            (&click, execute(Action::Planner), Outcome::Missed),
        ];
        for (e, d, want) in table {
            assert_eq!(
                score(e, &d),
                want,
                "{} vs {}",
                e.describe(),
                decision_text(&d)
            );
        }
    }

    /// Following a link that goes where the expected link goes is the same action; one that
    /// goes elsewhere is not, whatever its name.
    #[test]
    fn a_link_to_the_expected_links_place_is_right() {
        let e = expect(r#"{"act": "click", "target": "tab"}"#);
        let link = |id: &str, destination: &str| crate::model::Element {
            id: id.into(),
            role: "link".into(),
            label: "Disclaimer".into(),
            destination: Some(destination.into()),
            ..Default::default()
        };
        let observation = Observation {
            elements: vec![
                link("inline", "example.org/disclaimer"),
                link("tab", "example.org/disclaimer"),
                link("other", "example.org/terms"),
            ],
            ..Observation::default()
        };
        let widened = same_place(&e, &observation);
        let click = |id: &str| execute(Action::Click { target: id.into() });
        assert_eq!(score(&widened, &click("inline")), Outcome::Correct);
        assert_eq!(score(&widened, &click("tab")), Outcome::Correct);
        assert_eq!(score(&widened, &click("other")), Outcome::WrongTarget);
        assert_eq!(score(&e, &click("inline")), Outcome::WrongTarget);
        // A question expected between the two that go to one place: either is the action.
        let asked = expect(r#"{"clarify": true, "candidates": ["inline", "tab"]}"#);
        let as_click = one_place(&asked, &observation).expect("one place");
        assert_eq!(score(&as_click, &click("tab")), Outcome::Correct);
        let apart = expect(r#"{"clarify": true, "candidates": ["inline", "other"]}"#);
        assert!(one_place(&apart, &observation).is_none());
    }

    #[test]
    fn typing_other_text_is_a_wrong_target() {
        let e = expect(r#"{"act": "type", "target": "e1", "text": "karl"}"#);
        let good = execute(Action::Type {
            target: "e1".into(),
            text: "karl".into(),
        });
        let bad = execute(Action::Type {
            target: "e1".into(),
            text: "Karl!".into(),
        });
        assert_eq!(score(&e, &good), Outcome::Correct);
        assert_eq!(score(&e, &bad), Outcome::WrongTarget);
    }

    #[test]
    fn a_plan_of_several_steps_is_right_only_with_exactly_the_later_steps() {
        let e = expect(
            r#"{"act": "type", "target": "e1", "text": "ecdsa", "steps": ["open the first result"]}"#,
        );
        let first = Action::Type {
            target: "e1".into(),
            text: "ecdsa".into(),
        };
        let with = |steps: &[&str]| match execute(first.clone()) {
            Decision::Execute(mut p) => {
                p.steps = steps.iter().map(|s| s.to_string()).collect();
                Decision::Execute(p)
            }
            d => d,
        };
        assert_eq!(
            score(&e, &with(&["open the first result"])),
            Outcome::Correct
        );
        assert_eq!(score(&e, &with(&[])), Outcome::WrongTarget);
        assert_eq!(
            score(&e, &with(&["open it", "close it"])),
            Outcome::WrongTarget
        );
        // A one-step expectation is not met by a plan that does more.
        let one = expect(r#"{"act": "type", "target": "e1", "text": "ecdsa"}"#);
        assert_eq!(score(&one, &with(&["open it"])), Outcome::WrongTarget);
        // Acting on the first step where the planner was expected is acting.
        let plan = expect(r#"{"route": "planner"}"#);
        assert_eq!(score(&plan, &with(&["open it"])), Outcome::ActedInstead);
        let json = decision_json(&with(&["open the first result"]));
        assert_eq!(json["steps"], json!(["open the first result"]));
        assert!(decision_text(&with(&["open it"])).ends_with(", then \"open it\""));
    }

    #[test]
    fn decisions_render_as_json_for_the_cli() {
        let click = decision_json(&execute(Action::Click {
            target: "e1".into(),
        }));
        assert_eq!(click["decision"], "execute");
        assert_eq!(click["action"], json!({"act": "click", "target": "e1"}));
        let ask = decision_json(&clarify(&["e2"]));
        assert_eq!(ask["decision"], "clarify");
        assert_eq!(ask["candidates"][0]["entity"], json!({"element": "e2"}));
        assert_eq!(decision_json(&reject())["reason"], "nothingfits");
        assert!(decision_text(&clarify(&["e2"])).starts_with("clarify [e2"));
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 0.5), 50.0);
        assert_eq!(percentile(&v, 0.95), 95.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}

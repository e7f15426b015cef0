//! The browser executor: observe the tab, ground the request (the Director), act, verify.
//!
//! Every action is a closed choice over the observed elements; the Director never writes a ref.
//! A ref chosen after a clarification must still be on a fresh observation, or nothing is done.
//! The step result comes from what the extension observed after acting (`expect`), never from
//! "the call returned"; a lost connection during an action leaves its effect `unknown`.

use super::bridge::{Bridge, BridgeError};
use super::navigate;
use crate::clock;
use crate::decider::remote::{decide_with, DecisionsApi, OpenAiChat};
use crate::director::{
    self, Action, Decision, Direction, EntityRef, Envelope, Observation, Snapshot,
};
use crate::executor::{
    begin, blocked, end, observed, BoxFuture, ExecOutcome, Executor, RunContext,
};
use crate::interaction::QUESTION_TTL_MS;
use crate::model::{
    BrowserTarget, Choice, Goal, InputMode, Operation, Question, StepResult, Target, TargetRef,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

const OBSERVE_TIMEOUT: Duration = Duration::from_secs(5);
/// The extension polls the expected effect for up to 2 s; this leaves room for the round trip.
const ACT_TIMEOUT: Duration = Duration::from_secs(8);
/// How long grounding waits for the semantic signal (a new page's labels).
const SEMANTIC_BUDGET: Duration = Duration::from_millis(1500);

pub struct BrowserExecutor {
    bridge: Arc<Bridge>,
    node: String,
    remote: Remote,
    preferences: Arc<crate::preferences::Preferences>,
    /// The semantic signal, when its model is installed.
    semantic: Option<Arc<crate::semantic::Semantic>>,
    /// English glosses for a page in another language, when the glossary is installed.
    glossary: Option<Arc<crate::glossary::Glossary>>,
    /// The sites the navigation fast paths know (built in, and `[[browser.sites]]`).
    sites: super::navigation::Sites,
    /// The planner's model, for questions about the page and tasks of several steps.
    planner: Option<Planner>,
    /// The desktop, for the file manager's selection when an upload names "the file I selected".
    desktop: Option<Arc<dyn crate::desktop::DesktopSession>>,
    /// Circe's own folders (store, keys, secret, config): no upload takes a file from them.
    private: Vec<std::path::PathBuf>,
}

/// The planner's model and the budget of one run (`[planner]` in the config).
pub struct Planner {
    pub model: Arc<crate::planner::provider::OpenAiPlanner>,
    pub budget: crate::planner::Budget,
}

/// The remote decider, if one is configured (the composition root picks it).
pub enum Remote {
    None,
    OpenAi(OpenAiChat, Duration),
    Decisions(DecisionsApi, Duration),
}

impl BrowserExecutor {
    pub fn new(
        bridge: Arc<Bridge>,
        node: String,
        remote: Remote,
        preferences: Arc<crate::preferences::Preferences>,
    ) -> BrowserExecutor {
        BrowserExecutor {
            bridge,
            node,
            remote,
            preferences,
            semantic: None,
            glossary: None,
            sites: super::navigation::Sites::default(),
            planner: None,
            desktop: None,
            private: Vec::new(),
        }
    }

    /// Circe's own folders, whose files are never given to a page.
    pub fn with_private(mut self, dirs: Vec<std::path::PathBuf>) -> Self {
        self.private = dirs;
        self
    }

    /// Reads the file manager through this desktop session when an upload needs it.
    pub fn with_desktop(mut self, desktop: Arc<dyn crate::desktop::DesktopSession>) -> Self {
        self.desktop = Some(desktop);
        self
    }

    /// Plans questions about the page and tasks of several steps with this model.
    pub fn with_planner(mut self, planner: Option<Planner>) -> Self {
        self.planner = planner;
        self
    }

    /// Grounds with the glossary too (see `crate::glossary`).
    pub fn with_glossary(mut self, glossary: Option<Arc<crate::glossary::Glossary>>) -> Self {
        self.glossary = glossary;
        self
    }

    /// The site table for "open <site>" and "search <site> for …" (see `navigation::Sites`).
    pub fn with_sites(mut self, sites: super::navigation::Sites) -> Self {
        self.sites = sites;
        self
    }

    /// Grounds with the semantic signal too (see `crate::semantic`).
    pub fn with_semantic(mut self, semantic: Option<Arc<crate::semantic::Semantic>>) -> Self {
        self.semantic = semantic;
        self
    }

    /// Starts embedding the request's words on a blocking thread, so that
    /// [`Self::similarity`] after the observation finds them cached.
    fn prepare_similarity(&self, request: &str) {
        if let Some(semantic) = self.semantic.clone() {
            let request = request.to_string();
            tokio::task::spawn_blocking(move || {
                if let Err(e) = semantic.prepare(&request) {
                    tracing::debug!("semantic signal: request not prepared: {e}");
                }
            });
        }
    }

    /// The request's similarity to every element, computed off the async
    /// threads (a new page's labels take ~0.5–2 s; cached ones are free).
    /// None when the signal is off, fails, or takes longer than
    /// [`SEMANTIC_BUDGET`]: grounding then uses shared words only, and the
    /// embedding carries on in the background so the page's labels are
    /// cached for the next request.
    async fn similarity(
        &self,
        request: &str,
        observation: &Observation,
    ) -> Option<crate::model::Similarity> {
        let semantic = self.semantic.clone()?;
        let (request, observation) = (request.to_string(), observation.clone());
        let task = tokio::task::spawn_blocking(move || semantic.similarity(&request, &observation));
        match tokio::time::timeout(SEMANTIC_BUDGET, task).await {
            Ok(Ok(Ok(s))) => Some(s),
            Ok(Ok(Err(e))) => {
                tracing::warn!("semantic signal skipped: {e}");
                None
            }
            Ok(Err(_)) => None,
            Err(_) => {
                tracing::info!("semantic signal skipped: embedding a new page took longer than {SEMANTIC_BUDGET:?}");
                None
            }
        }
    }

    /// With a "chrome profile" preference, only that profile may be acted in: another connected
    /// profile is refused before anything is observed or done.
    fn wrong_profile(&self) -> Option<String> {
        let wanted = self.preferences.get(crate::preferences::CHROME_PROFILE)?;
        let info = self.bridge.info();
        if !info.connected {
            return None;
        }
        let label = info.profile.map(|p| p.label).unwrap_or_default();
        (!label.trim().eq_ignore_ascii_case(wanted.trim())).then(|| {
            format!(
                "the \"chrome profile\" preference asks for the Chrome profile \"{wanted}\", but the connected one is \"{label}\"; nothing was done"
            )
        })
    }

    /// Ground with the local decider, joined by the remote one when configured.
    async fn decide(&self, envelope: &Envelope, snapshot: &Snapshot) -> Decision {
        match &self.remote {
            Remote::None => director::decide_locally(envelope, snapshot),
            Remote::OpenAi(r, t) => decide_with(Some(r), envelope, snapshot, *t).await,
            Remote::Decisions(r, t) => decide_with(Some(r), envelope, snapshot, *t).await,
        }
    }
}

/// One action to send to the extension, with the words a person reads.
struct Act {
    args: Value,
    says: String,
    irreversible: bool,
}

impl Executor for BrowserExecutor {
    fn goal(&self) -> Goal {
        Goal::Browser
    }

    fn status(&self) -> Value {
        serde_json::to_value(self.bridge.info()).unwrap_or(Value::Null)
    }

    fn run<'a>(&'a self, op: &'a Operation, cx: RunContext<'a>) -> BoxFuture<'a, ExecOutcome> {
        Box::pin(async move {
            match self.run_steps(op, &cx).await {
                Ok(outcome) => outcome,
                Err(e) => ExecOutcome::Unknown { reason: e },
            }
        })
    }
}

/// What one observation of the tab gave.
struct Seen {
    observation: Observation,
    raw: Value,
    tab: i64,
    handle: super::lifecycle::TabHandle,
    /// The id of the stored observation the next actions are grounded in.
    observed: String,
}

/// The step said at `k` (0-based) of several: how its chosen candidate is stored when the
/// Director asks about it, so the answer resumes that step, not the whole sequence.
pub(super) fn target_slot(k: usize) -> String {
    if k == 0 {
        "target".into()
    } else {
        format!("target{}", k + 1)
    }
}

/// The step said at `k` (0-based) of several: how the file the person chose is stored when an
/// upload's words fit several files.
pub(super) fn file_slot(k: usize) -> String {
    if k == 0 {
        "file".into()
    } else {
        format!("file{}", k + 1)
    }
}

/// Where a run starts: the latest step whose candidate (or file) the person chose, with the
/// candidate chosen for it.
fn resume_point(op: &Operation, steps: usize) -> (usize, Option<String>) {
    let clarified = (0..steps).rev().find_map(|k| {
        let target = op.arguments.get(&target_slot(k)).cloned();
        (target.is_some() || op.arguments.contains_key(&file_slot(k))).then_some((k, target))
    });
    // An approved step ("<step>:<element>") resumes at that step, on that element.
    let approved = approved(op).filter(|(k, _)| *k < steps);
    match (clarified, approved) {
        // A clarification of a later step than the approved one is the newer question.
        (Some(c), Some((k, _))) if k < c.0 => c,
        (_, Some((k, id))) => (k, Some(id)),
        (c, None) => c.unwrap_or((0, None)),
    }
}

/// The step and element an approval was given for (`approved` = "<step>:<element>").
fn approved(op: &Operation) -> Option<(usize, String)> {
    let (k, id) = op.arguments.get("approved")?.split_once(':')?;
    Some((k.parse().ok()?, id.to_string()))
}

/// Where an approval belongs: a step of the request the person said, or a planner run's step.
#[derive(Clone, Copy)]
enum Approving<'w> {
    Step(usize),
    Planned { words: &'w str, flagged: bool },
}

/// A click on a control that cannot be undone ("Place order", "Send", "Delete"; in a planner run
/// also one the model flagged) that was not approved for this very step and element: the
/// approval to ask for, naming what will happen. Its key ("<step>:<element>", "p:<element>") is
/// what a yes puts in the operation's `approved`.
fn approval_needed(
    op: &Operation,
    at: Approving<'_>,
    action: &Action,
    observation: &Observation,
) -> Option<crate::model::Approval> {
    let Action::Click { target } = action else {
        return None;
    };
    let element = observation.elements.iter().find(|e| &e.id == target)?;
    let (scope, flagged) = match at {
        Approving::Step(k) => (k.to_string(), false),
        Approving::Planned { flagged, .. } => ("p".to_string(), flagged),
    };
    if !(flagged || director::lexicon::cannot_be_undone(&element.label)) {
        return None;
    }
    let key = format!("{scope}:{target}");
    if op.arguments.get("approved") == Some(&key) {
        return None;
    }
    let (label, title) = (element.label.trim(), &observation.title);
    let what = match at {
        Approving::Step(_) => format!("Click \"{label}\" on \"{title}\"?"),
        Approving::Planned { words, .. } => {
            format!("Next step: \"{words}\", clicking \"{label}\" on \"{title}\".")
        }
    };
    Some(crate::model::Approval {
        prompt: format!("{what} It cannot be undone. Say yes to go ahead."),
        expires_at: clock::now() + QUESTION_TTL_MS,
        key,
    })
}

impl BrowserExecutor {
    /// The file an upload step's words mean (`browser::files`): the file manager's files are read
    /// only when the words need them (the selection, or a bare name).
    async fn file_for(
        &self,
        op: &Operation,
        file: &director::upload::File,
        k: usize,
    ) -> super::files::Resolved {
        let places = super::files::Places::from_env(self.private.clone());
        let bare = match file {
            director::upload::File::Selected => true,
            director::upload::File::Named(words) => {
                !words.starts_with('/') && !words.starts_with('~')
            }
        };
        let shown = match (&self.desktop, bare) {
            (_, false) => Ok(Vec::new()),
            (Some(desktop), true) => super::files::shown_in_file_manager(desktop.as_ref()).await,
            (None, true) => Err("this node reads no desktop".into()),
        };
        let chosen = op.arguments.get(&file_slot(k)).map(String::as_str);
        super::files::resolve(file, &places, &shown, chosen)
    }
}

const OBSERVE: &str = "observe the page";

impl BrowserExecutor {
    /// Observe the tab, journalled as its own step.
    async fn observe(
        &self,
        cx: &RunContext<'_>,
        first: bool,
    ) -> Result<Result<Seen, ExecOutcome>, String> {
        let step = begin(cx, OBSERVE, BTreeMap::new(), None, false).await?;
        let raw = match self
            .bridge
            .command("observe", json!({}), OBSERVE_TIMEOUT)
            .await
        {
            Ok(v) => v,
            Err(e) => return Ok(Err(blocked(cx, step, e.to_string()).await?)),
        };
        let observation: Observation = match serde_json::from_value(raw.clone()) {
            Ok(o) => o,
            Err(e) => {
                return Ok(Err(blocked(
                    cx,
                    step,
                    format!("the page could not be read ({e})"),
                )
                .await?));
            }
        };
        let tab = raw.get("tabId").and_then(Value::as_i64).unwrap_or(-1);
        let handle = self.bridge.tab_handle(tab);
        // Where it acts (the first observation only), recorded with the observation.
        let target = first.then(|| {
            let profile = self
                .bridge
                .info()
                .profile
                .map_or_else(|| "unknown".to_string(), |p| p.label);
            Target::Browser(BrowserTarget {
                target: TargetRef {
                    node: self.node.clone(),
                    desktop_session: None,
                    application: "chrome".into(),
                },
                connector_profile: profile,
                window: raw.get("windowId").and_then(Value::as_i64),
                tab: Some(tab),
            })
        });
        // The observation is stored once, apart from the operation; the step's evidence and
        // the steps grounded in it carry its id.
        let observed = observed(
            cx,
            step,
            json!({ "url": observation.url, "title": observation.title, "elements": observation.elements.len(),
                    "tab": tab, "generation": raw.get("generation").cloned().unwrap_or(Value::Null),
                    "covered": raw.get("covered").cloned().unwrap_or(Value::Null),
                    "timing": raw.get("timing").cloned().unwrap_or(Value::Null) }),
            serde_json::to_value(&observation).map_err(|e| e.to_string())?,
            target,
        )
        .await?;
        Ok(Ok(Seen {
            observation,
            raw,
            tab,
            handle,
            observed,
        }))
    }

    /// Observe → ground → act → verify, once per step said; a request of several steps
    /// ("enter Ada into the name field and press Submit") grounds each later step against a
    /// fresh observation taken after the earlier ones' effects, and stops at the first step that
    /// cannot be grounded or done, saying what was done and what was not.
    async fn run_steps(&self, op: &Operation, cx: &RunContext<'_>) -> Result<ExecOutcome, String> {
        if let Some(reason) = self.wrong_profile() {
            return Ok(ExecOutcome::Blocked { reason });
        }
        let request = op.arguments.get("request").cloned().unwrap_or_default();
        let texts = director::steps::texts(&request);
        let (start, chosen) = resume_point(op, texts.len());
        // What earlier runs of this operation did (before a question about a later step).
        let mut said: Vec<String> = op
            .steps
            .iter()
            .filter(|s| {
                s.action != OBSERVE
                    && s.action != navigate::LIST_TABS
                    && s.result == Some(StepResult::Applied)
            })
            .map(|s| s.action.clone())
            .collect();
        let mut last = None;
        // What the tab in front shows after a navigation step (title, address), when one ended.
        let mut shown: Option<(String, String)> = None;
        let mut k = start;
        while k < texts.len() {
            // Not done (yet): this step and the ones after it, in the person's words.
            let left = |k: usize| texts[k..].to_vec();
            // Navigation (open, search a site, switch, close, reload): through chrome.tabs, no
            // page grounding; words that are not navigation after all are grounded below.
            let mut refusal = None;
            if let Some(request) = director::navigation::read(&texts[k]) {
                let navigator = navigate::Navigator {
                    bridge: &self.bridge,
                    sites: &self.sites,
                    node: &self.node,
                };
                let chosen_here = chosen.as_deref().filter(|_| k == start);
                match navigator
                    .step(op, cx, &request, k, k == start, chosen_here, &said)
                    .await?
                {
                    navigate::Step::Done { says, title, url } => {
                        said.push(says);
                        shown = Some((title, url));
                        k += 1;
                        continue;
                    }
                    navigate::Step::End(outcome) => return Ok(partial(outcome, &said, &left(k))),
                    navigate::Step::Ground(r) => refusal = r,
                }
            }
            // The request's own embedding needs no page: it is computed while the page is read.
            self.prepare_similarity(&texts[k]);
            let Seen {
                observation,
                raw,
                tab,
                handle,
                observed,
            } = match self.observe(cx, k == start).await? {
                Ok(seen) => seen,
                Err(outcome) => return Ok(partial(outcome, &said, &left(k))),
            };
            if let Some(r) = refusal
                .as_ref()
                .filter(|r| !r.grounds_on(&observation, &raw))
            {
                return Ok(partial(
                    ExecOutcome::Blocked {
                        reason: r.reason.clone(),
                    },
                    &said,
                    &left(k),
                ));
            }
            // Decide: a chosen candidate, or the Director over this observation.
            let action = match chosen.as_ref().filter(|_| k == start) {
                Some(chosen) => {
                    if !observation.elements.iter().any(|e| &e.id == chosen) {
                        return Ok(partial(
                            ExecOutcome::Blocked {
                                reason: "the element you chose is no longer on the page; nothing was done".into(),
                            },
                            &said,
                            &left(k),
                        ));
                    }
                    // The action the Director clarified: a request to type resumes as a type.
                    match director::resumed_action(&texts[k], &observation, chosen) {
                        Some(action) => action,
                        None => {
                            return Ok(partial(ExecOutcome::Blocked {
                                reason: "what to type into the element you chose could not be read from the request; nothing was done".into(),
                            }, &said, &left(k)))
                        }
                    }
                }
                None if director::steps::presses_enter(&texts[k]) => {
                    return Ok(partial(
                        ExecOutcome::Blocked {
                            reason: "pressing Enter needs text typed just before it".into(),
                        },
                        &said,
                        &left(k),
                    ));
                }
                None => {
                    // The first step is grounded with the whole request, so the Director sees
                    // every step (and refuses too many); later ones with their own words.
                    let words = if k == 0 { &request } else { &texts[k] };
                    let mut envelope = match op.mode {
                        InputMode::Voice => Envelope::voice(&op.id.to_string(), words),
                        InputMode::Typed => Envelope::typed(&op.id.to_string(), words),
                    };
                    // The recogniser's other hypotheses are of the whole request, so they go
                    // with the first step only, when it is grounded with the whole request.
                    if k == 0 && op.mode == InputMode::Voice {
                        envelope.alternatives = alternatives(&op.heard);
                    }
                    let mut grounded = observation.clone();
                    grounded.glosses = self
                        .glossary
                        .as_ref()
                        .and_then(|g| g.glosses_for(&observation, &texts[k]));
                    grounded.similarity = self.similarity(&texts[k], &grounded).await;
                    let snapshot = Snapshot {
                        observation: Some(grounded),
                        ..Default::default()
                    };
                    let decision = self.decide(&envelope, &snapshot).await;
                    if let Some(r) = refusal.as_ref().filter(|r| r.strict()) {
                        if !matches!(decision, Decision::Execute(_)) {
                            return Ok(partial(
                                ExecOutcome::Blocked {
                                    reason: r.reason.clone(),
                                },
                                &said,
                                &left(k),
                            ));
                        }
                    }
                    if !matches!(decision, Decision::Execute(_)) {
                        if let Some(reason) = aimed_under_an_overlay(&envelope, &raw) {
                            return Ok(partial(ExecOutcome::Blocked { reason }, &said, &left(k)));
                        }
                    }
                    match decision {
                        Decision::Execute(plan) => plan.action,
                        Decision::Clarify(c) => {
                            let choices: Vec<Choice> = c
                                .candidates
                                .iter()
                                .filter_map(|k| match &k.entity {
                                    EntityRef::Element(id) => Some(Choice {
                                        key: id.clone(),
                                        label: k.label.clone(),
                                    }),
                                    _ => None,
                                })
                                .collect();
                            if choices.is_empty() {
                                return Ok(partial(
                                    ExecOutcome::Blocked { reason: c.question },
                                    &said,
                                    &left(k),
                                ));
                            }
                            // A later step asks about itself, saying what was done already.
                            let prompt = if said.is_empty() {
                                c.question
                            } else {
                                format!("{}. For \"{}\": {}", sentence(&said), texts[k], c.question)
                            };
                            return Ok(ExecOutcome::NeedsInput {
                                question: Question {
                                    kind: crate::model::QuestionKind::Choice,
                                    slot: target_slot(k),
                                    prompt,
                                    known_arguments: op.arguments.clone(),
                                    choices,
                                    owner: self.node.clone(),
                                    expires_at: clock::now() + QUESTION_TTL_MS,
                                },
                            });
                        }
                        Decision::Reject(r) => {
                            return Ok(partial(
                                ExecOutcome::Blocked { reason: r.message },
                                &said,
                                &left(k),
                            ))
                        }
                    }
                }
            };

            // A question about the page, or a task the Director cannot ground as one step: the
            // planner's loop takes the rest of the request from this observation.
            if action == Action::Planner {
                let goal = if k == 0 {
                    request.clone()
                } else {
                    texts[k..].join(", then ")
                };
                let seen = Seen {
                    observation,
                    raw,
                    tab,
                    handle,
                    observed,
                };
                let outcome = self.plan_run(op, cx, &goal, seen).await?;
                return Ok(partial(outcome, &said, &[]));
            }
            // A step that cannot be undone waits for an explicit yes naming exactly it.
            if let Some(approval) = approval_needed(op, Approving::Step(k), &action, &observation) {
                return Ok(ExecOutcome::NeedsApproval { approval });
            }
            // An upload: which file the words mean, found on disk now (or a question, or why not).
            let file = match &action {
                Action::Upload { file, .. } => {
                    match self.file_for(op, file, k).await {
                        super::files::Resolved::File(path, size) => Some((path, size)),
                        super::files::Resolved::Ask { paths, more } => {
                            let mut prompt = format!(
                                "Several files fit \"{}\". Which one{}?",
                                director::upload::file_words(file),
                                if more > 0 {
                                    format!(" ({more} more not listed; you can also say the whole path)")
                                } else {
                                    String::new()
                                }
                            );
                            if !said.is_empty() {
                                prompt = format!("{}. {prompt}", sentence(&said));
                            }
                            return Ok(ExecOutcome::NeedsInput {
                                question: Question {
                                    kind: crate::model::QuestionKind::Choice,
                                    slot: file_slot(k),
                                    prompt,
                                    known_arguments: op.arguments.clone(),
                                    choices: paths
                                        .iter()
                                        .map(|p| Choice {
                                            key: p.display().to_string(),
                                            label: p.display().to_string(),
                                        })
                                        .collect(),
                                    owner: self.node.clone(),
                                    expires_at: clock::now() + QUESTION_TTL_MS,
                                },
                            });
                        }
                        super::files::Resolved::Refused(reason) => {
                            return Ok(partial(ExecOutcome::Blocked { reason }, &said, &left(k)))
                        }
                    }
                }
                _ => None,
            };
            // Act, then verify by what the page shows. "… and press enter" right after typing
            // is part of the typing.
            let enter = matches!(action, Action::Type { .. })
                && texts
                    .get(k + 1)
                    .is_some_and(|t| director::steps::presses_enter(t));
            let mut acts = match plan_acts(&action, &observation, &texts[k], enter, file.as_ref()) {
                Ok(acts) => acts,
                Err(reason) => {
                    return Ok(partial(ExecOutcome::Blocked { reason }, &said, &left(k)))
                }
            };
            if texts.len() > 1 {
                for act in &mut acts {
                    act.args["step"] = json!(format!("{} of {}", k + 1, texts.len()));
                }
            }
            match self.perform(cx, &handle, tab, &observed, acts).await? {
                Performed::Applied(says) => said.extend(says),
                Performed::Stopped => return Ok(ExecOutcome::Stopped),
                Performed::Blocked { says, reason } => {
                    said.extend(says);
                    return Ok(partial(ExecOutcome::Blocked { reason }, &said, &left(k)));
                }
                Performed::Unknown { says, reason } => {
                    said.extend(says);
                    // Nothing after an action whose answer is lost runs.
                    let outcome = ExecOutcome::Unknown { reason };
                    return Ok(partial(outcome, &said, &texts[(k + 1).min(texts.len())..]));
                }
            }
            last = Some(observation);
            shown = None;
            k += if enter { 2 } else { 1 };
        }
        if let Some((title, url)) = shown {
            // A navigation ended the request: what the tab in front shows now.
            let summary = if title.is_empty() {
                format!("{}.", sentence(&said))
            } else {
                format!("{}. The tab shows \"{title}\".", sentence(&said))
            };
            return Ok(ExecOutcome::Completed {
                summary,
                data: json!({ "url": url, "title": title, "done": said }),
            });
        }
        let observation = last.unwrap_or_default();
        let summary = format!("{} on \"{}\".", sentence(&said), observation.title);
        Ok(ExecOutcome::Completed {
            summary,
            data: json!({ "url": observation.url, "done": said }),
        })
    }
}

impl BrowserExecutor {
    /// The planner's loop (`crate::planner`): observe, ask the model for one move in words,
    /// ground those words with the Director exactly as if the person had said them, act and
    /// verify, until the loop finishes. `first` is the observation the request was decided on.
    async fn plan_run(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        goal: &str,
        first: Seen,
    ) -> Result<ExecOutcome, String> {
        use crate::planner::{provider, Effect, Event, Finish, Loop};
        let Some(planner) = &self.planner else {
            return Ok(ExecOutcome::Blocked {
                reason: "that is a question about the page or a task of several steps, which needs a planner, and none is configured ([planner] url and model in the config); nothing was done".into(),
            });
        };
        let goal = match op.arguments.get("answer") {
            Some(answer) => format!("{goal} (asked, the person answered: {answer})"),
            None => goal.to_string(),
        };
        // After an answer, the steps this operation already did are the run's history.
        let history: Vec<crate::planner::Done> = op
            .steps
            .iter()
            .filter(|s| s.action != OBSERVE && s.result == Some(StepResult::Applied))
            .map(|s| crate::planner::Done {
                words: s.action.clone(),
                outcome: crate::planner::StepOutcome::Applied,
                note: s.action.clone(),
                screen: 0,
            })
            .collect();
        let mut run = Loop::resume(&goal, planner.budget, clock::now(), history);
        let mut next_seen = Some(first);
        let mut current: Option<Seen> = None;
        let mut effect = run.next(Event::Started, clock::now());
        loop {
            let event = match effect {
                Effect::Observe => {
                    let seen = match next_seen.take() {
                        Some(seen) => seen,
                        None => match self.observe(cx, false).await? {
                            Ok(seen) => seen,
                            Err(outcome) => return Ok(outcome),
                        },
                    };
                    let screen = fingerprint(&seen.observation);
                    current = Some(seen);
                    Event::Observed { screen }
                }
                Effect::Propose { repair } => {
                    let Some(seen) = current.as_ref() else {
                        return Err("the planner was asked before the page was observed".into());
                    };
                    let text = seen.raw.get("text").and_then(Value::as_str).unwrap_or("");
                    let prompt = provider::prompt(run.goal(), run.done(), &seen.observation, text);
                    tokio::select! {
                        biased;
                        _ = cx.cancel.cancelled() => Event::Cancelled,
                        r = planner.model.propose(&prompt, repair.as_deref()) => match r {
                            Ok(p) => Event::Proposed(p),
                            Err(e) => Event::ModelFailed { reason: e.to_string() },
                        },
                    }
                }
                Effect::Ground {
                    words,
                    irreversible,
                } => {
                    let Some(seen) = current.take() else {
                        return Err("a step was planned before the page was observed".into());
                    };
                    if cx.cancel.is_cancelled() || !cx.journal.current().await {
                        Event::Cancelled
                    } else {
                        match self
                            .planned_step(op, cx, &words, irreversible, seen)
                            .await?
                        {
                            Planned::Event(event) => event,
                            // A step that cannot be undone waits for the person's yes; the yes
                            // resumes this operation, and the run goes on from its history.
                            Planned::Approve(approval) => {
                                return Ok(ExecOutcome::NeedsApproval { approval })
                            }
                        }
                    }
                }
                Effect::Ask { question } => {
                    return Ok(ExecOutcome::NeedsInput {
                        question: Question {
                            kind: crate::model::QuestionKind::Text,
                            slot: "answer".into(),
                            prompt: question,
                            known_arguments: op.arguments.clone(),
                            choices: Vec::new(),
                            owner: self.node.clone(),
                            expires_at: clock::now() + QUESTION_TTL_MS,
                        },
                    })
                }
                Effect::Finish(finish) => {
                    let done: Vec<&str> = run.done().iter().map(|d| d.words.as_str()).collect();
                    let data = json!({ "planner": { "steps": done, "calls": run.calls() } });
                    return Ok(match finish {
                        Finish::Answered { text, passage } => ExecOutcome::Completed {
                            summary: text.clone(),
                            data: json!({ "answer": text, "passage": passage, "planner": data["planner"] }),
                        },
                        Finish::Completed { summary } => ExecOutcome::Completed {
                            summary: format!("{}{summary}", done_so_far(run.done())),
                            data,
                        },
                        Finish::Failed { reason } | Finish::OutOfBudget { reason } => {
                            ExecOutcome::Blocked {
                                reason: format!(
                                    "{}not finished: {reason}",
                                    done_so_far(run.done())
                                ),
                            }
                        }
                        Finish::Stopped => ExecOutcome::Stopped,
                        Finish::Unknown { reason } => ExecOutcome::Unknown {
                            reason: format!("{}{reason}", done_so_far(run.done())),
                        },
                    });
                }
            };
            effect = run.next(event, clock::now());
        }
    }

    /// One step the planner said in words: grounded by the Director on the page as observed,
    /// acted on and verified like a step the person said.
    async fn planned_step(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        words: &str,
        irreversible: bool,
        seen: Seen,
    ) -> Result<Planned, String> {
        use crate::planner::{Event, StepOutcome};
        let not_grounded = |note: String| {
            Planned::Event(Event::Stepped {
                outcome: StepOutcome::NotGrounded,
                note,
            })
        };
        let envelope = Envelope::typed(&op.id.to_string(), words);
        let mut grounded = seen.observation.clone();
        grounded.glosses = self
            .glossary
            .as_ref()
            .and_then(|g| g.glosses_for(&seen.observation, words));
        grounded.similarity = self.similarity(words, &grounded).await;
        let snapshot = Snapshot {
            observation: Some(grounded),
            ..Default::default()
        };
        let action = match self.decide(&envelope, &snapshot).await {
            Decision::Execute(plan) if plan.action == Action::Planner => {
                return Ok(not_grounded(
                    "that is not one step on this page; say one action".into(),
                ))
            }
            Decision::Execute(plan) => plan.action,
            Decision::Clarify(c) => return Ok(not_grounded(format!("ambiguous: {}", c.question))),
            Decision::Reject(r) => return Ok(not_grounded(r.message)),
        };
        let planned = Approving::Planned {
            words,
            flagged: irreversible,
        };
        if let Some(approval) = approval_needed(op, planned, &action, &seen.observation) {
            return Ok(Planned::Approve(approval));
        }
        let acts = match plan_acts(&action, &seen.observation, words, false, None) {
            Ok(acts) => acts,
            Err(reason) => return Ok(not_grounded(reason)),
        };
        Ok(Planned::Event(
            match self
                .perform(cx, &seen.handle, seen.tab, &seen.observed, acts)
                .await?
            {
                Performed::Applied(says) => Event::Stepped {
                    outcome: StepOutcome::Applied,
                    note: says.join(", "),
                },
                Performed::Stopped => Event::Cancelled,
                Performed::Blocked { reason, .. } => Event::Stepped {
                    outcome: StepOutcome::NotApplied,
                    note: reason,
                },
                Performed::Unknown { reason, .. } => Event::Stepped {
                    outcome: StepOutcome::Unknown,
                    note: reason,
                },
            },
        ))
    }
}

/// What came of one planned step: an event for the loop, or an approval to wait for.
enum Planned {
    Event(crate::planner::Event),
    Approve(crate::model::Approval),
}

/// What a page showed, for the planner's no-progress check: its address and its elements.
fn fingerprint(o: &Observation) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    o.url.hash(&mut h);
    for e in &o.elements {
        (&e.role, &e.label, &e.value, &e.states).hash(&mut h);
    }
    h.finish()
}

/// "Done: sort by price (clicked …). " for the steps that applied, or nothing.
fn done_so_far(done: &[crate::planner::Done]) -> String {
    let applied: Vec<String> = done
        .iter()
        .filter(|d| d.outcome == crate::planner::StepOutcome::Applied)
        .map(|d| format!("{} ({})", d.words, d.note))
        .collect();
    if applied.is_empty() {
        String::new()
    } else {
        format!("Done: {}. ", applied.join("; "))
    }
}

/// What came of the acts of one grounded step.
enum Performed {
    /// Every act applied; what each did, in words.
    Applied(Vec<String>),
    Stopped,
    /// An act was not done (covered, refused, not taken); what applied before it, and why.
    Blocked {
        says: Vec<String>,
        reason: String,
    },
    /// An act's effect cannot be told; what applied before it, and why.
    Unknown {
        says: Vec<String>,
        reason: String,
    },
}

impl BrowserExecutor {
    /// Carry out the acts of one grounded step, each journaled before it acts and verified by
    /// what the page shows; stops at the first that is not applied.
    async fn perform(
        &self,
        cx: &RunContext<'_>,
        handle: &super::lifecycle::TabHandle,
        tab: i64,
        observed: &str,
        acts: Vec<Act>,
    ) -> Result<Performed, String> {
        let mut says = Vec::new();
        for act in acts {
            // Cancelled, or superseded (a correction or a cancel moved the interaction on).
            if cx.cancel.is_cancelled() || !cx.journal.current().await {
                return Ok(Performed::Stopped);
            }
            if let Err(problem) = self.bridge.check(handle) {
                return Ok(Performed::Blocked {
                    says,
                    reason: format!("{problem}; nothing more was done"),
                });
            }
            let mut args = act.args.clone();
            args["tabId"] = json!(tab);
            let arguments: BTreeMap<String, String> = args
                .as_object()
                .map(|m| {
                    m.iter()
                        .filter(|(k, _)| *k != "expect")
                        .map(|(k, v)| (k.clone(), plain(v)))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(o) = args.as_object_mut() {
                o.remove("step");
            }
            let step = begin(
                cx,
                &act.says,
                arguments,
                Some(observed.to_string()),
                act.irreversible,
            )
            .await?;
            let reply = tokio::select! {
                biased;
                // A stop during an action: its effect is whatever the page shows; we cannot say.
                _ = cx.cancel.cancelled() => {
                    end(cx, step, StepResult::Unknown, json!({ "stopped": "during the action" })).await?;
                    return Ok(Performed::Stopped);
                }
                r = self.bridge.command("act", args, ACT_TIMEOUT) => r,
            };
            let (result, evidence) = match reply {
                Ok(v) => (
                    result_of(&v),
                    v.get("evidence").cloned().unwrap_or(Value::Null),
                ),
                Err(e) => (error_result(&e), json!({ "error": e.to_string() })),
            };
            end(cx, step, result, evidence.clone()).await?;
            match result {
                StepResult::Applied => says.push(act.says),
                StepResult::Blocked => {
                    let by = evidence
                        .pointer("/coveredBy/label")
                        .and_then(Value::as_str)
                        .unwrap_or("something else");
                    let reason = format!(
                        "\"{}\" is covered by \"{by}\"; nothing was clicked",
                        label_of(&act)
                    );
                    return Ok(Performed::Blocked { says, reason });
                }
                StepResult::NotApplied => {
                    let why = evidence
                        .get("error")
                        .map(plain)
                        .or_else(|| evidence.get("message").map(plain))
                        .or_else(|| evidence.get("reason").map(|r| reason_words(&plain(r))))
                        .unwrap_or_else(|| "the page did not take it".into());
                    let reason = format!("Not done: {why}.");
                    return Ok(Performed::Blocked { says, reason });
                }
                StepResult::Unknown => {
                    let why = evidence
                        .get("error")
                        .map(plain)
                        .unwrap_or_else(|| "no change was seen in time".into());
                    let reason = format!("{}: whether it took effect is unknown ({why})", act.says);
                    return Ok(Performed::Unknown { says, reason });
                }
            }
        }
        Ok(Performed::Applied(says))
    }
}

/// An outcome that ends a request of several steps early, saying truthfully what was done
/// before and which steps were not done. A one-step request's outcome is left as it is.
fn partial(outcome: ExecOutcome, done: &[String], left: &[String]) -> ExecOutcome {
    if done.is_empty() && left.len() <= 1 {
        return outcome;
    }
    let tell = |why: String| {
        let not_done: Vec<String> = left.iter().map(|s| format!("\"{s}\"")).collect();
        let done = if done.is_empty() {
            "Nothing was done".to_string()
        } else {
            format!("Done: {}", lower_first(&sentence(done)))
        };
        if not_done.is_empty() {
            format!("{done}. {why}")
        } else {
            format!("{done}. Not done: {} ({why})", not_done.join(", then "))
        }
    };
    match outcome {
        ExecOutcome::Blocked { reason } => ExecOutcome::Blocked {
            reason: tell(reason),
        },
        ExecOutcome::Unknown { reason } => ExecOutcome::Unknown {
            reason: tell(reason),
        },
        other => other,
    }
}

/// The recogniser's hypotheses after the best one, as the Director's alternatives (confidence
/// per mille → [0, 1]).
fn alternatives(heard: &[crate::model::Heard]) -> Vec<director::Alternative> {
    heard
        .iter()
        .skip(1)
        .map(|h| director::Alternative {
            text: h.text.clone(),
            confidence: h.confidence.map(|c| f32::from(c.min(1000)) / 1000.0),
        })
        .collect()
}

/// "Typed …" → "typed …", to follow "Done: ".
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// When nothing visible fits, was the request aimed at something an overlay covers? Then say so
/// (and click nothing) instead of offering unrelated visible candidates.
fn aimed_under_an_overlay(envelope: &Envelope, raw: &Value) -> Option<String> {
    let covered = raw.get("covered")?.as_array()?;
    let elements: Vec<crate::model::Element> = covered
        .iter()
        .filter_map(|c| {
            Some(crate::model::Element {
                id: c.get("id")?.as_str()?.to_string(),
                role: c
                    .get("role")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                label: c
                    .get("label")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                context: c
                    .get("context")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                ..crate::model::Element::default()
            })
        })
        .collect();
    if elements.is_empty() {
        return None;
    }
    let hidden = Observation {
        elements,
        ..Observation::default()
    };
    let snapshot = Snapshot {
        observation: Some(hidden),
        ..Default::default()
    };
    let Decision::Execute(plan) = director::decide_locally(envelope, &snapshot) else {
        return None;
    };
    let (Action::Click { target } | Action::Type { target, .. }) = &plan.action else {
        return None;
    };
    let c = covered
        .iter()
        .find(|c| c.get("id").and_then(Value::as_str) == Some(target))?;
    let label = c.get("label").and_then(Value::as_str).unwrap_or("it");
    let by = c
        .get("by")
        .and_then(Value::as_str)
        .unwrap_or("something else");
    Some(format!(
        "\"{label}\" is covered by \"{by}\"; close or accept that first. Nothing was clicked"
    ))
}

/// The extension actions for one grounded action.
fn plan_acts(
    action: &Action,
    observation: &Observation,
    request: &str,
    enter: bool,
    file: Option<&(std::path::PathBuf, u64)>,
) -> Result<Vec<Act>, String> {
    let element = |id: &str| observation.elements.iter().find(|e| e.id == id);
    let name = |id: &str| {
        element(id).map_or_else(
            || id.to_string(),
            |e| match (e.ordinal, e.of) {
                (Some(n), Some(of)) if of > 1 => format!("\"{}\" ({n} of {of})", e.label),
                _ => format!("\"{}\"", e.label),
            },
        )
    };
    Ok(match action {
        Action::Click { target } => vec![Act {
            args: json!({ "action": "click", "ref": target, "label": element(target).map(|e| e.label.clone()), "expect": { "change": true } }),
            says: format!("clicked {}", name(target)),
            irreversible: true,
        }],
        // A closed list (a <select>) takes the named choice; nothing is typed, no Enter.
        Action::Type { target, text } if element(target).is_some_and(|e| e.is_closed_list()) => {
            vec![Act {
                args: json!({ "action": "select", "ref": target, "option": text, "label": element(target).map(|e| e.label.clone()), "expect": { "value": text } }),
                says: format!("chose \"{text}\" in {}", name(target)),
                irreversible: true,
            }]
        }
        Action::Type { target, text } => {
            let mut acts = vec![Act {
                args: json!({ "action": "type", "ref": target, "text": text, "label": element(target).map(|e| e.label.clone()), "expect": { "value": text } }),
                says: format!("typed \"{text}\" into {}", name(target)),
                irreversible: true,
            }];
            let searchish = element(target).is_some_and(|e| {
                e.role == "searchbox" || e.label.to_lowercase().contains("search")
            }) || request.trim_start().to_lowercase().starts_with("search");
            if searchish || enter {
                acts.push(Act {
                    args: json!({ "action": "press", "ref": target, "key": "Enter", "expect": { "navigation": true } }),
                    says: "pressed Enter".into(),
                    irreversible: true,
                });
            }
            acts
        }
        Action::Upload { target, .. } => {
            // Only the person's own words name a file (a planner step never uploads).
            let Some((path, size)) = file else {
                return Err("an upload takes a file only from your own words; nothing was done".into());
            };
            let path = path.display().to_string();
            vec![Act {
                args: json!({ "action": "upload", "ref": target, "path": path, "size": size, "label": element(target).map(|e| e.label.clone()) }),
                says: format!("chose {path} ({size} bytes) with {}", name(target)),
                irreversible: true,
            }]
        }
        Action::Scroll(d) => {
            let dir = if *d == Direction::Up { "up" } else { "down" };
            vec![Act {
                args: json!({ "action": "scroll", "direction": dir, "expect": { "scrolled": true } }),
                says: format!("scrolled {dir}"),
                irreversible: false,
            }]
        }
        Action::Back => vec![Act {
            args: json!({ "action": "back", "expect": { "navigation": true } }),
            says: "went back".into(),
            irreversible: false,
        }],
        Action::Planner => {
            return Err("questions about the page and tasks of several steps are the planner's (plan_run), not one act; nothing was done".into())
        }
        Action::Dispatch => return Err("that is not something to do in the browser; nothing was done".into()),
    })
}

/// The extension's reasons for doing nothing, in words.
fn reason_words(code: &str) -> String {
    match code {
        "at_bottom" => "the page is already at the bottom".into(),
        "at_top" => "the page is already at the top".into(),
        "no_history" => "there is no earlier page to go back to".into(),
        other => other.replace('_', " "),
    }
}

fn label_of(act: &Act) -> String {
    act.args.get("label").map(plain).unwrap_or_default()
}

fn result_of(v: &Value) -> StepResult {
    match v.get("result").and_then(Value::as_str) {
        Some("applied") => StepResult::Applied,
        Some("notApplied") => StepResult::NotApplied,
        Some("blocked") => StepResult::Blocked,
        _ => StepResult::Unknown,
    }
}

/// What a failed command means for the step's effect.
pub(super) fn error_result(e: &BridgeError) -> StepResult {
    match e {
        // Nothing was sent, or the extension refused before touching the page.
        BridgeError::NotConnected | BridgeError::TooLarge { .. } | BridgeError::Tab(_) => {
            StepResult::NotApplied
        }
        BridgeError::Remote { code, .. }
            if code == "stale_ref"
                || code == "no_tab"
                || code == "bad_args"
                || code == "unsupported" =>
        {
            StepResult::NotApplied
        }
        // The tab closed, the debugger was detached, or the answer never came: it may have happened.
        BridgeError::Remote { .. } | BridgeError::Disconnected | BridgeError::Timeout { .. } => {
            StepResult::Unknown
        }
    }
}

pub(super) fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn sentence(parts: &[String]) -> String {
    let mut s = parts.join(", then ");
    if let Some(first) = s.get(..1) {
        s = first.to_uppercase() + &s[1..];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Element;

    fn page() -> Observation {
        let el = |id: &str, role: &str, label: &str, n: Option<u32>| Element {
            id: id.into(),
            role: role.into(),
            label: label.into(),
            ordinal: n,
            of: n.map(|_| 30),
            ..Element::default()
        };
        Observation {
            title: "Hacker News".into(),
            elements: vec![
                el("r1", "link", "upvote", Some(3)),
                el("r2", "textbox", "Search", None),
            ],
            ..Observation::default()
        }
    }

    #[test]
    fn the_hypotheses_after_the_best_become_alternatives() {
        use crate::model::Heard;
        type Want = Vec<(&'static str, Option<f32>)>;
        let table: [(Vec<Heard>, Want); 3] = [
            (Vec::new(), Vec::new()),
            (vec![Heard::new("add the mic desk", Some(0.7))], Vec::new()),
            (
                vec![
                    Heard::new("add the mic desk", Some(0.7)),
                    Heard::new("add the MICKE desk", Some(0.25)),
                    Heard::new("add the mike desk", None),
                ],
                vec![
                    ("add the MICKE desk", Some(0.25)),
                    ("add the mike desk", None),
                ],
            ),
        ];
        for (heard, want) in table {
            let got: Vec<(String, Option<f32>)> = alternatives(&heard)
                .into_iter()
                .map(|a| (a.text, a.confidence))
                .collect();
            let want: Vec<(String, Option<f32>)> =
                want.into_iter().map(|(t, c)| (t.to_string(), c)).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn clicks_expect_a_change_and_name_what_they_touched() {
        let acts = plan_acts(
            &Action::Click {
                target: "r1".into(),
            },
            &page(),
            "upvote the third story",
            false,
            None,
        )
        .unwrap();
        assert_eq!(acts.len(), 1);
        assert_eq!(acts[0].args["expect"], json!({ "change": true }));
        assert_eq!(acts[0].says, "clicked \"upvote\" (3 of 30)");
        assert!(acts[0].irreversible);
    }

    #[test]
    fn typing_into_a_search_box_submits_it() {
        let acts = plan_acts(
            &Action::Type {
                target: "r2".into(),
                text: "lo-fi beats".into(),
            },
            &page(),
            "search for lo-fi beats",
            false,
            None,
        )
        .unwrap();
        assert_eq!(acts.len(), 2);
        assert_eq!(acts[0].args["expect"], json!({ "value": "lo-fi beats" }));
        assert_eq!(acts[1].args["key"], "Enter");
        assert_eq!(acts[1].args["expect"], json!({ "navigation": true }));
    }

    #[test]
    fn planner_work_is_refused_honestly() {
        let err = plan_acts(
            &Action::Planner,
            &page(),
            "what is this page about",
            false,
            None,
        )
        .err()
        .unwrap();
        assert!(err.contains("the planner's"), "{err}");
    }

    #[test]
    fn an_early_end_of_several_steps_says_what_was_done_and_what_was_not() {
        let done = vec!["typed \"Ada\" into \"Name\"".to_string()];
        let left = vec!["click Frobnicate".to_string(), "click Submit".to_string()];
        let out = partial(
            ExecOutcome::Blocked {
                reason: "Nothing on screen fits that.".into(),
            },
            &done,
            &left,
        );
        assert_eq!(
            out,
            ExecOutcome::Blocked {
                reason: "Done: typed \"Ada\" into \"Name\". Not done: \"click Frobnicate\", then \"click Submit\" (Nothing on screen fits that.)".into()
            }
        );
        // A one-step request keeps its own words.
        let one = ExecOutcome::Blocked {
            reason: "Not done: the page is already at the top.".into(),
        };
        assert_eq!(partial(one.clone(), &[], &left[..1]), one);
        // Nothing after a lost answer runs; it says so.
        let lost = partial(
            ExecOutcome::Unknown {
                reason: "clicked \"Submit\": whether it took effect is unknown".into(),
            },
            &done,
            &[],
        );
        assert!(
            matches!(lost, ExecOutcome::Unknown { reason } if reason.starts_with("Done: typed"))
        );
    }

    #[test]
    fn an_answer_resumes_the_step_it_was_asked_for() {
        assert_eq!(target_slot(0), "target");
        assert_eq!(target_slot(2), "target3");
        let mut op: Operation = serde_json::from_value(json!({
            "id": "00000000-0000-0000-0000-000000000001",
            "interaction": "00000000-0000-0000-0000-000000000002",
            "interactionRevision": 1,
            "target": {"type": "unresolved"},
            "authorizedScope": [],
            "goal": "browser",
            "arguments": {"request": "a and then b"},
            "expectedOutcome": "",
            "status": "running",
            "steps": [],
            "stop": null,
            "outcome": null,
            "acceptedAt": 0,
            "updatedAt": 0
        }))
        .expect("an operation");
        assert_eq!(resume_point(&op, 3), (0, None));
        op.arguments.insert("target".into(), "e1".into());
        assert_eq!(resume_point(&op, 3), (0, Some("e1".into())));
        op.arguments.insert("target3".into(), "e9".into());
        assert_eq!(resume_point(&op, 3), (2, Some("e9".into())));
        // A file chosen for a later step's upload resumes at that step, its target grounded anew.
        op.arguments.remove("target3");
        op.arguments.insert("file2".into(), "/tmp/a.pdf".into());
        assert_eq!(resume_point(&op, 3), (1, None));
    }

    #[test]
    fn lost_answers_are_unknown_refusals_are_not_applied() {
        assert_eq!(
            error_result(&BridgeError::Disconnected),
            StepResult::Unknown
        );
        assert_eq!(
            error_result(&BridgeError::NotConnected),
            StepResult::NotApplied
        );
        let stale = BridgeError::Remote {
            code: "stale_ref".into(),
            message: String::new(),
            observation: None,
        };
        assert_eq!(error_result(&stale), StepResult::NotApplied);
        let closed = BridgeError::Remote {
            code: "target_closed".into(),
            message: String::new(),
            observation: None,
        };
        assert_eq!(error_result(&closed), StepResult::Unknown);
    }
}

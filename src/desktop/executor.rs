//! The desktop executor (`Goal::NativeApp`): the acceptance task's recipe over a
//! `DesktopSession`. Observe → decide from the person's words and the observed desktop → act →
//! verify by an authorized read. Every step is journalled before its effect.
//!
//! Invariants:
//! - The file comes from the file manager's selection, the request's words, or the person's
//!   answer to a question whose choices were observed; the heading text is the request's.
//! - Only the heading line is replaced (one EditableText edit over that range).
//! - Cancellation and human input are checked right before every mutation; human input pauses
//!   the operation (a question: continue or stop); stopping releases held keys.
//! - A lost connection after an action leaves that step `unknown` until a read settles it.

use super::general::{AppChoice, Chosen};
use super::task::{self, EditRequest};
use super::{
    Act, DesktopAction, DesktopError, DesktopObservation, DesktopSession, InputTarget, Page,
    Transition, WindowRef,
};
use crate::clock;
use crate::executor::{begin, blocked, end, BoxFuture, ExecOutcome, Executor, RunContext};
use crate::interaction::QUESTION_TTL_MS;
use crate::model::{Choice, Goal, Operation, Question, StepResult};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::ops::ControlFlow::{self, Break, Continue};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One phase of the recipe: it hands its result on (`Continue`) or ends the operation with an
/// outcome (`Break`); `Err` is a journal failure, which leaves the outcome unknown.
pub(super) type Phase<T> = Result<ControlFlow<ExecOutcome, T>, String>;

/// The result of a phase, or return its outcome from `run_steps`.
macro_rules! proceed {
    ($phase:expr) => {
        match $phase? {
            Continue(v) => v,
            Break(outcome) => return Ok(outcome),
        }
    };
}

/// Quiet period that counts as "settled", and the most one settle may wait.
pub(super) const QUIET: Duration = Duration::from_millis(120);
pub(super) const SETTLE_CAP: Duration = Duration::from_secs(2);
/// How long an app may take to show a window or a result.
pub(super) const APPEAR: Duration = Duration::from_secs(8);

/// The editor and the file manager a recipe drives: the person's defaults (or the one they
/// chose when asked).
pub(super) struct Roles {
    pub editor: AppChoice,
    pub file_manager: AppChoice,
}

pub struct DesktopExecutor {
    pub(super) desktop: Arc<dyn DesktopSession>,
    /// Which apps a request means, and whether Circe may control them.
    pub(super) apps: super::general::AppRules,
    /// The planner's model, for a task that is not one step (`[planner]`; none by default).
    pub(super) planner: Option<crate::browser::executor::Planner>,
    node: String,
    /// Status as last observed (for `circe state` and `doctor`, which must not block).
    status: Arc<std::sync::Mutex<Value>>,
}

impl DesktopExecutor {
    pub fn new(
        desktop: Arc<dyn DesktopSession>,
        node: String,
        policy: super::policy::Policy,
    ) -> DesktopExecutor {
        let status = Arc::new(std::sync::Mutex::new(
            json!({ "ready": false, "problem": "not checked yet" }),
        ));
        // One readiness check at start (and one per operation); nothing polls.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let (d, s) = (desktop.clone(), status.clone());
            rt.spawn(async move {
                refresh(&*d, &s).await;
            });
        }
        DesktopExecutor {
            desktop,
            apps: super::general::AppRules::new(policy),
            planner: None,
            node,
            status,
        }
    }

    /// Plan tasks of several steps with this model.
    pub fn with_planner(mut self, planner: Option<crate::browser::executor::Planner>) -> Self {
        self.planner = planner;
        self
    }

    /// Check readiness now and remember it for `status()`.
    pub async fn refresh_status(&self) -> Value {
        refresh(&*self.desktop, &self.status).await
    }

    pub(super) fn ask(
        &self,
        op: &Operation,
        slot: &str,
        prompt: String,
        choices: Vec<Choice>,
    ) -> ExecOutcome {
        self.question(op, slot, prompt, choices)
    }

    fn question(
        &self,
        op: &Operation,
        slot: &str,
        prompt: String,
        choices: Vec<Choice>,
    ) -> ExecOutcome {
        ExecOutcome::NeedsInput {
            question: Question {
                kind: crate::model::QuestionKind::Choice,
                slot: slot.into(),
                prompt,
                known_arguments: op.arguments.clone(),
                choices,
                owner: self.node.clone(),
                expires_at: clock::now() + QUESTION_TTL_MS,
            },
        }
    }
}

impl Executor for DesktopExecutor {
    fn goal(&self) -> Goal {
        Goal::NativeApp
    }

    fn status(&self) -> Value {
        self.status.lock().unwrap().clone()
    }

    fn run<'a>(&'a self, op: &'a Operation, cx: RunContext<'a>) -> BoxFuture<'a, ExecOutcome> {
        Box::pin(async move {
            let outcome = match self.run_steps(op, &cx).await {
                Ok(o) => o,
                Err(e) => ExecOutcome::Unknown { reason: e },
            };
            self.desktop.release_keys().await;
            outcome
        })
    }
}

/// Why the recipe stops before a mutation.
enum Gate {
    Stop,
    Human(String),
}

impl DesktopExecutor {
    async fn gate(&self, cx: &RunContext<'_>) -> Option<Gate> {
        // Cancelled, or superseded (a correction or a cancel moved the interaction on).
        if cx.cancel.is_cancelled() || !cx.journal.current().await {
            return Some(Gate::Stop);
        }
        let h = self.desktop.human_input();
        if h.any() {
            let what = match (h.pointer > 0, h.keys_or_text > 0) {
                (true, true) => "the mouse and the keyboard",
                (true, false) => "the mouse",
                _ => "the keyboard",
            };
            return Some(Gate::Human(what.into()));
        }
        None
    }

    fn paused(&self, op: &Operation, gate: Gate, done: &[String]) -> ExecOutcome {
        match gate {
            Gate::Stop => ExecOutcome::Stopped,
            Gate::Human(what) => self.question(
                op,
                "takeover",
                format!(
                    "You used {what} on the desktop, so I paused{}. Say continue to go on, or stop.",
                    if done.is_empty() { String::new() } else { format!(" after: {}", done.join(", ")) }
                ),
                vec![
                    Choice { key: "continue".into(), label: "continue".into() },
                    Choice { key: "stop".into(), label: "stop".into() },
                ],
            ),
        }
    }

    async fn run_steps(&self, op: &Operation, cx: &RunContext<'_>) -> Result<ExecOutcome, String> {
        if op.arguments.get("task").map(String::as_str) == Some("steps") {
            return self.run_general(op, cx).await;
        }
        let (want, roles) = proceed!(self.preflight(op).await);
        self.desktop.watch_human().await;
        let mut done: Vec<String> = Vec::new();

        // 1. Which file: the file manager's selection, the request's name, or the answer.
        let (file, on_disk) = proceed!(self.choose_file(op, &want, &roles, cx).await);
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();

        // 2. The editor window showing that file: found, or opened.
        proceed!(self.checkpoint(op, cx, &done).await);
        let window = proceed!(self.open_editor(&file, &name, &roles, cx).await);
        done.push(format!("opened {name}"));

        // 3. Observe the editor: a dialog owns its input? unsaved changes?
        let editing = proceed!(
            self.read_editor(op, &window, &file, &name, &on_disk, &want)
                .await
        );

        // 4. Change only the heading line.
        proceed!(self.checkpoint(op, cx, &done).await);
        proceed!(self.change_heading(cx, &window, &editing, &want).await);
        done.push(format!("changed the heading to \"{}\"", want.heading));

        // 5. Save, and read the file back.
        let mut save_unknown = false;
        if want.save {
            proceed!(self.checkpoint(op, cx, &done).await);
            save_unknown = proceed!(self.save(cx, &window, &file, &name, &editing, &want).await);
            done.push(format!("saved {name}"));
        }

        // 6. Reveal the same file and check the file manager selects it.
        let mut revealed = None;
        if want.reveal {
            proceed!(self.checkpoint(op, cx, &done).await);
            let title = proceed!(self.reveal(cx, &file, &name, &roles, &done).await);
            done.push(format!("showed it in {title}"));
            revealed = Some(title);
        }
        let mut summary = sentence(&done);
        if save_unknown {
            summary.push_str(
                " (the connection dropped after Save; reading the file confirmed it was saved)",
            );
        }
        Ok(ExecOutcome::Completed {
            summary: format!("{summary}."),
            data: json!({ "file": file.display().to_string(), "heading": want.heading, "revealedIn": revealed, "saveWasUnknown": save_unknown }),
        })
    }

    /// What the request asks for, once the desktop is ready and no takeover said stop.
    async fn preflight(&self, op: &Operation) -> Phase<(EditRequest, Roles)> {
        if op.arguments.get("takeover").map(String::as_str) == Some("stop") {
            return Ok(Break(ExecOutcome::Blocked {
                reason: "stopped where you took over; nothing more was done".into(),
            }));
        }
        let want = match EditRequest::from_arguments(&op.arguments) {
            Ok(w) => w,
            Err(reason) => return Ok(Break(ExecOutcome::Blocked { reason })),
        };
        let ready = self.refresh_status().await;
        if ready["ready"] != true {
            let reason = ready["problem"]
                .as_str()
                .unwrap_or("the desktop is not ready")
                .to_string();
            return Ok(Break(ExecOutcome::Blocked { reason }));
        }
        use super::entries::Role;
        let editor = match self
            .apps
            .role(Role::Editor, op.arguments.get("app").map(String::as_str))
        {
            Chosen::One(a) => a,
            Chosen::Ask(prompt, choices) => {
                return Ok(Break(self.question(op, "app", prompt, choices)))
            }
            Chosen::Refused(reason) => return Ok(Break(ExecOutcome::Blocked { reason })),
        };
        let file_manager = self.apps.file_manager();
        for (app, mutates) in [(&editor, true), (&file_manager, false)] {
            if let Err(reason) = self.apps.permits(app, mutates) {
                return Ok(Break(ExecOutcome::Blocked { reason }));
            }
        }
        Ok(Continue((
            want,
            Roles {
                editor,
                file_manager,
            },
        )))
    }

    /// Right before a mutation: stopped, superseded, or a person using the desktop pauses here.
    pub(super) async fn checkpoint(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        done: &[String],
    ) -> Phase<()> {
        Ok(match self.gate(cx).await {
            Some(g) => Break(self.paused(op, g, done)),
            None => Continue(()),
        })
    }

    /// The file to edit and its text on disk (step 1).
    async fn choose_file(
        &self,
        op: &Operation,
        want: &EditRequest,
        roles: &Roles,
        cx: &RunContext<'_>,
    ) -> Phase<(PathBuf, String)> {
        let step = begin(
            cx,
            "look for the selected file",
            BTreeMap::new(),
            None,
            false,
        )
        .await?;
        let found = match self.find_file(op, want, roles).await {
            Ok(f) => f,
            Err(e) => return blocked(cx, step, e.to_string()).await.map(Break),
        };
        let file = match found {
            Found::File(path, evidence) => {
                end(cx, step, StepResult::Applied, evidence).await?;
                path
            }
            Found::Ask(prompt, choices, evidence) => {
                end(cx, step, StepResult::Applied, evidence).await?;
                if choices.is_empty() {
                    return Ok(Break(ExecOutcome::Blocked { reason: prompt }));
                }
                return Ok(Break(self.question(op, "file", prompt, choices)));
            }
            Found::Blocked(reason, evidence) => {
                end(cx, step, StepResult::NotApplied, evidence).await?;
                return Ok(Break(ExecOutcome::Blocked { reason }));
            }
        };
        let on_disk = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                return Ok(Break(ExecOutcome::Blocked {
                    reason: format!("cannot read {}: {e}", file.display()),
                }))
            }
        };
        if task::heading_line(&on_disk).is_none() {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            return Ok(Break(ExecOutcome::Blocked {
                reason: format!("{name} has no heading line to change; nothing was done"),
            }));
        }
        Ok(Continue((file, on_disk)))
    }

    /// The editor window showing the file (step 2).
    async fn open_editor(
        &self,
        file: &Path,
        name: &str,
        roles: &Roles,
        cx: &RunContext<'_>,
    ) -> Phase<WindowRef> {
        let mut args = BTreeMap::from([("file".to_string(), file.display().to_string())]);
        args.insert("app".into(), roles.editor.program.clone());
        let step = begin(cx, &format!("open {name} in the editor"), args, None, false).await?;
        let window = match self.editor_window(file, &roles.editor).await {
            Ok(w) => w,
            Err(e) => return blocked(cx, step, e).await.map(Break),
        };
        let into_editor = Transition {
            source: roles.file_manager.name.clone(),
            destination: roles.editor.name.clone(),
            observed: format!("\"{}\" is open", window.title),
        };
        end(
            cx,
            step,
            StepResult::Applied,
            json!({ "window": window, "transition": into_editor }),
        )
        .await?;
        Ok(Continue(window))
    }

    /// What the editor shows, and the one-line edit to make there (step 3). A dialog, unsaved
    /// changes the person did not include, or no heading line end the recipe before any change.
    async fn read_editor(
        &self,
        op: &Operation,
        window: &WindowRef,
        file: &Path,
        name: &str,
        on_disk: &str,
        want: &EditRequest,
    ) -> Phase<Editing> {
        let obs = match self.desktop.observe(window, Page::ALL).await {
            Ok(o) => o,
            Err(e) => {
                return Ok(Break(ExecOutcome::Blocked {
                    reason: e.to_string(),
                }))
            }
        };
        if let Some(d) = &obs.dialog {
            return Ok(Break(ExecOutcome::Blocked {
                reason: format!(
                    "{} shows a dialog \"{}\" ({}); close it, then ask again. Nothing was changed",
                    window.app, d.title, d.text
                ),
            }));
        }
        let Some(text_id) = document(&obs) else {
            return Ok(Break(ExecOutcome::Blocked {
                reason: format!(
                    "no editable text in \"{}\"; nothing was changed",
                    window.title
                ),
            }));
        };
        let handle = obs.handles[&text_id].clone();
        let buffer = self
            .desktop
            .read_text(&handle)
            .await
            .map_err(|e| e.to_string())?;
        let modified = task::title_shows(&window.title, file).unwrap_or(false) || buffer != on_disk;
        if modified {
            match op.arguments.get("unsaved").map(String::as_str) {
                Some("include") => {}
                Some(_) => {
                    return Ok(Break(ExecOutcome::Blocked {
                        reason: format!("{name} has unsaved changes in the editor; I left it as it was"),
                    }))
                }
                None => {
                    return Ok(Break(self.question(
                        op,
                        "unsaved",
                        format!("{name} has unsaved changes in the editor. Saving keeps them along with the new heading. Include them, or leave it?"),
                        vec![
                            Choice { key: "include".into(), label: "include them".into() },
                            Choice { key: "leave".into(), label: "leave it".into() },
                        ],
                    )))
                }
            }
        }
        let Some(edit) = task::heading_edit(&buffer, &want.heading) else {
            return Ok(Break(ExecOutcome::Blocked {
                reason: format!("{name} has no heading line in the editor; nothing was changed"),
            }));
        };
        Ok(Continue(Editing {
            revision: obs.revision,
            text_id,
            handle,
            buffer,
            edit,
        }))
    }

    /// Replace the heading line and read the text back (step 4).
    async fn change_heading(
        &self,
        cx: &RunContext<'_>,
        window: &WindowRef,
        editing: &Editing,
        want: &EditRequest,
    ) -> Phase<()> {
        let edit = &editing.edit;
        let args = BTreeMap::from([
            ("target".to_string(), editing.text_id.clone()),
            ("heading".to_string(), edit.text.clone()),
        ]);
        let observed = format!("{} revision {}", window.title, editing.revision);
        let step = begin(
            cx,
            &format!("change the heading to \"{}\"", want.heading),
            args,
            Some(observed),
            true,
        )
        .await?;
        let action = DesktopAction {
            window: window.clone(),
            revision: editing.revision,
            target: InputTarget::Element(editing.handle.clone()),
            act: Act::ReplaceText {
                start: edit.start,
                end: edit.end,
                text: edit.text.clone(),
            },
            may_open_modal: false,
        };
        if let Err(e) = self.desktop.act(&action).await {
            end(cx, step, failed_step(&e), json!({ "error": e.to_string() })).await?;
            return Ok(Break(outcome_of(
                &e,
                "changing the heading",
                "nothing was changed",
            )));
        }
        let settled = self.desktop.settle(QUIET, SETTLE_CAP).await;
        let now = self
            .desktop
            .read_text(&editing.handle)
            .await
            .map_err(|e| e.to_string())?;
        if now != edit.after {
            end(
                cx,
                step,
                StepResult::Unknown,
                json!({ "settled": settled, "error": "the text is not what was written" }),
            )
            .await?;
            return Ok(Break(ExecOutcome::Unknown {
                reason: "the editor's text is not what I wrote; someone may be typing".into(),
            }));
        }
        end(
            cx,
            step,
            StepResult::Applied,
            json!({ "settled": settled, "line": edit.text }),
        )
        .await?;
        Ok(Continue(()))
    }

    /// Save and read the file back until it shows the edit (step 5). Continues with whether the
    /// save itself was unknown (sent, then the connection went) and only the read settled it.
    async fn save(
        &self,
        cx: &RunContext<'_>,
        window: &WindowRef,
        file: &Path,
        name: &str,
        editing: &Editing,
        want: &EditRequest,
    ) -> Phase<bool> {
        let obs = match self.desktop.observe(window, Page::ALL).await {
            Ok(o) => o,
            Err(e) => {
                return Ok(Break(ExecOutcome::Blocked {
                    reason: format!("{e}; the heading is changed but not saved"),
                }))
            }
        };
        let save = obs
            .find("menuitem", "Save")
            .into_iter()
            .next()
            .map(|(_, h)| h.clone());
        let (target, act, how) = match save {
            Some(h) => (InputTarget::Element(h), Act::Activate, "the Save menu item"),
            None => (
                InputTarget::Window(window.clone()),
                Act::Keys(vec!["Control_L".into(), "s".into()]),
                "Ctrl+S",
            ),
        };
        let mut step = begin(
            cx,
            &format!("save {name}"),
            BTreeMap::from([("via".to_string(), how.to_string())]),
            Some(format!("{} revision {}", window.title, obs.revision)),
            true,
        )
        .await?;
        let action = DesktopAction {
            window: window.clone(),
            revision: obs.revision,
            target,
            act,
            may_open_modal: true,
        };
        let mut save_unknown = false;
        if let Err(e) = self.desktop.act(&action).await {
            end(cx, step, failed_step(&e), json!({ "error": e.to_string() })).await?;
            if !e.maybe_applied() {
                return Ok(Break(ExecOutcome::Blocked {
                    reason: format!("{e}; the heading is changed but not saved"),
                }));
            }
            // Sent, then the connection went: the save is unknown until a read settles it.
            save_unknown = true;
            step = begin(
                cx,
                &format!("read {name} to settle whether it was saved"),
                BTreeMap::new(),
                None,
                false,
            )
            .await?;
        }
        match wait_for_file(file, &editing.buffer, &want.heading).await {
            Ok(()) => {
                end(cx, step, StepResult::Applied, json!({ "read": file.display().to_string(), "heading": editing.edit.text, "settledUnknownSave": save_unknown })).await?;
                Ok(Continue(save_unknown))
            }
            Err(why) => {
                end(
                    cx,
                    step,
                    StepResult::Unknown,
                    json!({ "read": file.display().to_string(), "error": why }),
                )
                .await?;
                Ok(Break(ExecOutcome::Unknown {
                    reason: format!("after Save, {name} on disk does not show it: {why}"),
                }))
            }
        }
    }

    /// Ask the file manager to show the file and wait until it is selected (step 6); the title
    /// of the window that shows it.
    async fn reveal(
        &self,
        cx: &RunContext<'_>,
        file: &Path,
        name: &str,
        roles: &Roles,
        done: &[String],
    ) -> Phase<String> {
        let step = begin(
            cx,
            &format!("show {name} in the file manager"),
            BTreeMap::from([("file".to_string(), file.display().to_string())]),
            None,
            false,
        )
        .await?;
        if let Err(e) = self.desktop.show_items(&[file.to_path_buf()]).await {
            end(cx, step, failed_step(&e), json!({ "error": e.to_string() })).await?;
            let kept = format!("{} done", done.join(", "));
            return Ok(Break(outcome_of(
                &e,
                "showing it in the file manager",
                &kept,
            )));
        }
        match self.wait_selected(file, &roles.file_manager).await {
            Ok(title) => {
                let t = Transition {
                    source: roles.editor.name.clone(),
                    destination: roles.file_manager.name.clone(),
                    observed: format!("{name} is selected in \"{title}\""),
                };
                end(cx, step, StepResult::Applied, json!({ "transition": t })).await?;
                Ok(Continue(title))
            }
            Err(why) => {
                end(cx, step, StepResult::Unknown, json!({ "error": why })).await?;
                Ok(Break(ExecOutcome::Unknown {
                    reason: format!("asked the file manager to show {name}, but {why}"),
                }))
            }
        }
    }

    async fn find_file(
        &self,
        op: &Operation,
        want: &EditRequest,
        roles: &Roles,
    ) -> Result<Found, DesktopError> {
        let managers: Vec<WindowRef> = self
            .desktop
            .windows()
            .await?
            .into_iter()
            .filter(|w| roles.file_manager.owns(w) && w.kind == "window")
            .collect();
        // One file shown in two file-manager windows is one candidate, selected if either
        // window selects it.
        let mut candidates: Vec<(PathBuf, bool)> = Vec::new();
        for w in &managers {
            let obs = self.desktop.observe(w, Page::ALL).await?;
            for (path, selected) in files_in(&obs) {
                match candidates.iter_mut().find(|(p, _)| *p == path) {
                    Some(seen) => seen.1 |= selected,
                    None => candidates.push((path, selected)),
                }
            }
        }
        let evidence = json!({
            "fileManagerWindows": managers.iter().map(|w| w.title.clone()).collect::<Vec<_>>(),
            "files": candidates.iter().map(|(p, s)| json!({ "path": p.display().to_string(), "selected": s })).collect::<Vec<_>>(),
        });
        // The answer to "Which file?" is a path (the choice's key); a name the request said is
        // `want.named_file`, looked up below.
        if let Some(answer) = op
            .arguments
            .get("file")
            .filter(|a| Path::new(a.as_str()).is_absolute())
        {
            let p = PathBuf::from(answer);
            return Ok(if candidates.iter().any(|(c, _)| *c == p) && p.is_file() {
                Found::File(p, evidence)
            } else {
                Found::Blocked(
                    format!("{answer} is no longer shown in the file manager; nothing was done"),
                    evidence,
                )
            });
        }
        let pool: Vec<&(PathBuf, bool)> = match &want.named_file {
            Some(n) => candidates
                .iter()
                .filter(|(p, _)| p.file_name().is_some_and(|f| f.to_string_lossy() == *n))
                .collect(),
            None => candidates
                .iter()
                .filter(|(_, selected)| *selected)
                .collect(),
        };
        if let [(only, _)] = pool.as_slice() {
            return Ok(Found::File(only.clone(), evidence));
        }
        if managers.is_empty() {
            return Ok(Found::Blocked("no file manager window is open, so no file is selected; select the file in the file manager and ask again".into(), evidence));
        }
        let offer: Vec<&(PathBuf, bool)> = if pool.len() > 1 {
            pool
        } else {
            candidates.iter().collect()
        };
        let choices = offer
            .iter()
            .map(|(p, _)| Choice {
                key: p.display().to_string(),
                label: p
                    .file_name()
                    .map(|f| f.to_string_lossy().to_string())
                    .unwrap_or_default(),
            })
            .collect();
        let prompt = match &want.named_file {
            Some(n) => format!("I don't see exactly one {n} in the file manager. Which file?"),
            None => "No single file is selected in the file manager. Which file?".into(),
        };
        Ok(Found::Ask(prompt, choices, evidence))
    }

    /// An editor window showing `file`, opening one if there is none.
    async fn editor_window(&self, file: &Path, editor: &AppChoice) -> Result<WindowRef, String> {
        let showing = |ws: Vec<WindowRef>| {
            ws.into_iter().find(|w| {
                editor.owns(w) && w.kind == "window" && task::title_shows(&w.title, file).is_some()
            })
        };
        if let Some(w) = showing(self.desktop.windows().await.map_err(|e| e.to_string())?) {
            return Ok(w);
        }
        let argv = editor.open_command(Some(file))?;
        self.desktop
            .launch(&argv[0], &argv[1..])
            .await
            .map_err(|e| e.to_string())?;
        let deadline = Instant::now() + APPEAR;
        while Instant::now() < deadline {
            self.desktop.settle(QUIET, Duration::from_millis(500)).await;
            if let Some(w) = showing(self.desktop.windows().await.map_err(|e| e.to_string())?) {
                return Ok(w);
            }
        }
        Err(format!(
            "{} did not show {} within {} s",
            editor.name,
            file.display(),
            APPEAR.as_secs()
        ))
    }

    /// Wait until a file-manager window shows `file` selected; its title.
    async fn wait_selected(&self, file: &Path, manager: &AppChoice) -> Result<String, String> {
        let deadline = Instant::now() + APPEAR;
        let mut last = String::from("no file manager window appeared");
        while Instant::now() < deadline {
            self.desktop.settle(QUIET, Duration::from_millis(500)).await;
            let windows = self.desktop.windows().await.map_err(|e| e.to_string())?;
            for w in windows
                .iter()
                .filter(|w| manager.owns(w) && w.kind == "window")
            {
                let Ok(obs) = self.desktop.observe(w, Page::ALL).await else {
                    continue;
                };
                let files = files_in(&obs);
                if files.iter().any(|(p, s)| p == file && *s) {
                    return Ok(w.title.clone());
                }
                last = format!("\"{}\" does not show it selected", w.title);
            }
        }
        Err(last)
    }
}

async fn refresh(desktop: &dyn DesktopSession, status: &std::sync::Mutex<Value>) -> Value {
    let r = desktop.readiness(None).await;
    let v = json!({ "ready": r.ready(), "readiness": r, "problem": r.problem() });
    *status.lock().unwrap() = v.clone();
    v
}

enum Found {
    File(PathBuf, Value),
    Ask(String, Vec<Choice>, Value),
    Blocked(String, Value),
}

/// The editor as read before the change: its observation's revision, the document element,
/// its text, and the one-line edit to make.
struct Editing {
    revision: u64,
    text_id: String,
    handle: super::Handle,
    buffer: String,
    edit: task::HeadingEdit,
}

/// The files a file-manager observation lists: (path, selected). The folder is the location
/// bar's text; a row's name cell is a cell whose label is a file in that folder.
pub fn files_in(obs: &DesktopObservation) -> Vec<(PathBuf, bool)> {
    super::general::items(obs)
        .into_iter()
        .filter(|i| i.path.is_file())
        .map(|i| (i.path, i.selected))
        .collect()
}

/// The document's text area: the editable textbox that holds the most text.
pub(super) fn document(obs: &DesktopObservation) -> Option<String> {
    obs.observation
        .elements
        .iter()
        .filter(|e| e.role == "textbox" && e.has_state("editable"))
        // The page on screen, not a background tab's.
        .filter(|e| !e.has_state("offscreen"))
        .filter(|e| {
            obs.handles
                .get(&e.id)
                .is_some_and(|h| h.supports.iter().any(|s| s == "edit"))
        })
        .max_by_key(|e| e.value.as_ref().map_or(0, |v| v.len()))
        .map(|e| e.id.clone())
}

/// Saving takes effect after the call returns: read the file until it shows the edit (bounded).
async fn wait_for_file(file: &Path, buffer: &str, heading: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let saved = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
        let verdict = task::verify_saved(buffer, &saved, heading);
        if verdict.is_ok() || Instant::now() >= deadline {
            return verdict;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn outcome_of(e: &DesktopError, what: &str, kept: &str) -> ExecOutcome {
    if e.maybe_applied() {
        ExecOutcome::Unknown {
            reason: format!("{what}: {e}"),
        }
    } else {
        ExecOutcome::Blocked {
            reason: format!("{what}: {e}; {kept}"),
        }
    }
}

/// What a failed desktop call means for its step: it may have acted (unknown until a read
/// settles it), or it certainly did not.
pub(super) fn failed_step(e: &DesktopError) -> StepResult {
    if e.maybe_applied() {
        StepResult::Unknown
    } else {
        StepResult::NotApplied
    }
}

pub(super) fn sentence(parts: &[String]) -> String {
    let s = parts.join(", then ");
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => s,
    }
}

//! The desktop's general steps (`task = steps`): the request read by `director::desktop` into an
//! app and ordered steps, each carried out on what the app's window shows and verified by
//! reading the tree, the file on disk, or both.
//!
//! Invariants:
//! - What is acted on is chosen among observed elements: a file or folder by its exact name among
//!   the items the file manager lists (and that exist on disk), a menu command or a dialog's button
//!   by the Director's closed choice over the observed menu items or buttons; nothing is addressed
//!   by position and no element is invented.
//! - A menu command is run the way a person runs it: its menu opened, the item highlighted, then
//!   Return, so a command that opens a modal dialog never freezes the accessibility connection
//!   (`DoAction` would; see the Linux adapter's notes). Return is sent only after the item is
//!   observed highlighted.
//! - A dialog nobody asked for stops the steps before any change, described with its choices.
//! - A step that cannot be undone (overwriting a file, deleting permanently) waits for the
//!   person's yes before anything runs; the yes names exactly that step and path.
//! - Every mutation is journalled before it runs and ends applied only when its effect is
//!   observed; an effect that may have happened but is not observed is `unknown`, never done.

use super::apps::{Apps, Env};
use super::entries::{App, Resolution, Role};
use super::executor::{failed_step, sentence, DesktopExecutor, Phase, APPEAR, QUIET, SETTLE_CAP};
use super::policy::{decide, Policy, Subject};
use super::{Act, DesktopAction, DesktopObservation, InputTarget, Page, WindowRef};
use crate::clock;
use crate::director::desktop::{self as words, AppWords, DesktopRequest, Object, Step};
use crate::executor::{begin, end, ExecOutcome, RunContext};
use crate::interaction::QUESTION_TTL_MS;
use crate::model::{Element, Operation, StepResult};
use serde_json::json;
use std::collections::BTreeMap;
use std::ops::ControlFlow::{Break, Continue};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The result of a phase, or return its outcome.
macro_rules! proceed {
    ($phase:expr) => {
        match $phase? {
            Continue(v) => v,
            Break(outcome) => return Ok(outcome),
        }
    };
}

/// The result of a phase inside another phase: go on, or hand its break up.
macro_rules! within {
    ($phase:expr) => {
        match $phase? {
            Continue(v) => v,
            Break(outcome) => return Ok(Break(outcome)),
        }
    };
}

/// The app a request is for: how to start it and the names it has on the accessibility bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppChoice {
    /// What to call it in sentences ("Mousepad", "Thunar").
    pub name: String,
    /// The program that starts it.
    pub program: String,
    /// Names it registers on the accessibility bus, compared case-insensitively.
    pub accessible: Vec<String>,
    pub kind: AppKind,
    /// Its desktop entry, when it came from the installed applications.
    pub entry: Option<App>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppKind {
    Editor,
    FileManager,
    Other,
}

impl AppChoice {
    pub fn owns(&self, window: &WindowRef) -> bool {
        self.entry.as_ref().is_some_and(|e| e.is_named(&window.app))
            || self
                .accessible
                .iter()
                .any(|a| a.eq_ignore_ascii_case(&window.app))
    }

    fn from_entry(app: &App, kind: Option<AppKind>) -> AppChoice {
        let kind = kind.unwrap_or_else(|| {
            if app.categories.iter().any(|c| c == "TextEditor") {
                AppKind::Editor
            } else if app.categories.iter().any(|c| c == "FileManager") {
                AppKind::FileManager
            } else {
                AppKind::Other
            }
        });
        AppChoice {
            name: app.name.clone(),
            program: app
                .exec
                .first()
                .cloned()
                .unwrap_or_else(|| app.program.clone()),
            accessible: vec![app.program.clone()],
            kind,
            entry: Some(app.clone()),
        }
    }

    /// The command that opens `file` in this app (in a window of its own where the app needs
    /// telling).
    pub fn open_command(&self, file: Option<&Path>) -> Result<Vec<String>, String> {
        let f = file.map(|p| p.display().to_string());
        let mut argv = match &self.entry {
            Some(e) => e.command(f.as_deref())?,
            None => std::iter::once(self.program.clone()).chain(f).collect(),
        };
        // Mousepad opens a second file as a tab of the window in front unless told otherwise.
        if self.accessible.iter().any(|a| a == "mousepad") && file.is_some() {
            argv.insert(1, "--opening-mode=window".into());
        }
        Ok(argv)
    }
}

/// What choosing an app came to.
pub enum Chosen {
    One(AppChoice),
    /// Several fit and none is the default: the question's prompt and its choices.
    Ask(String, Vec<crate::model::Choice>),
    Refused(String),
}

/// Which app a request means (the installed applications and the person's defaults, read per
/// request so a changed default counts at once), and whether Circe may control it (`[desktop]`).
pub struct AppRules {
    policy: Policy,
}

impl AppRules {
    pub fn new(policy: Policy) -> AppRules {
        AppRules { policy }
    }

    fn catalog(&self) -> Apps {
        Apps::load(&Env::from_process())
    }

    /// The app of a role ("the editor"), or the one answered to an earlier question (`app`).
    pub fn role(&self, role: Role, answered: Option<&str>) -> Chosen {
        let apps = self.catalog();
        let kind = match role {
            Role::Editor => Some(AppKind::Editor),
            Role::FileManager => Some(AppKind::FileManager),
            Role::Browser => None,
        };
        if let Some(id) = answered {
            if let Some(app) = apps.catalog.app(id) {
                return Chosen::One(AppChoice::from_entry(app, kind));
            }
        }
        match apps.catalog.for_role(role) {
            Resolution::One(app, _) => Chosen::One(AppChoice::from_entry(&app, kind)),
            Resolution::Ask(several) => Chosen::Ask(
                format!(
                    "Which {}: {}? (no default is set for {})",
                    role_words(role),
                    several
                        .iter()
                        .map(|a| a.name.as_str())
                        .collect::<Vec<_>>()
                        .join(" or "),
                    role.mime()
                ),
                several
                    .iter()
                    .map(|a| crate::model::Choice {
                        key: a.id.clone(),
                        label: a.name.clone(),
                    })
                    .collect(),
            ),
            Resolution::None(reason) => Chosen::Refused(reason),
        }
    }

    /// The app the words name, or the one their steps need.
    pub fn choose(&self, request: &DesktopRequest, answered: Option<&str>) -> Chosen {
        match &request.app {
            AppWords::Editor => self.role(Role::Editor, answered),
            AppWords::FileManager => self.role(Role::FileManager, answered),
            AppWords::Named(n) => match self.catalog().resolve(n) {
                Resolution::One(app, _) => Chosen::One(AppChoice::from_entry(&app, None)),
                Resolution::Ask(several) => Chosen::Refused(format!(
                    "several apps are called {n}: {}; say the one you mean",
                    several
                        .iter()
                        .map(|a| a.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                Resolution::None(reason) => Chosen::Refused(reason),
            },
            AppWords::Unsaid => {
                if request.file.is_some() || request.steps.iter().any(Step::is_text) {
                    self.role(Role::Editor, answered)
                } else {
                    self.role(Role::FileManager, answered)
                }
            }
        }
    }

    /// May Circe control this app (`mutates`: change something in it)?
    pub fn permits(&self, app: &AppChoice, mutates: bool) -> Result<(), String> {
        match &app.entry {
            Some(e) => decide(&self.policy, Subject::App(e), mutates),
            None => decide(&self.policy, Subject::Accessible(&app.name), mutates),
        }
    }

    /// May Circe control this window's app?
    pub fn permits_window(&self, window: &WindowRef, mutates: bool) -> Result<(), String> {
        decide(&self.policy, Subject::Accessible(&window.app), mutates)
    }

    /// The file manager whose windows list the files a request may name.
    pub fn file_manager(&self) -> AppChoice {
        match self.role(Role::FileManager, None) {
            Chosen::One(a) => a,
            _ => AppChoice {
                name: "the file manager".into(),
                program: "thunar".into(),
                accessible: vec!["Thunar".into()],
                kind: AppKind::FileManager,
                entry: None,
            },
        }
    }
}

fn role_words(role: Role) -> &'static str {
    match role {
        Role::Editor => "editor",
        Role::FileManager => "file manager",
        Role::Browser => "browser",
    }
}

/// Where an editor step works: the window and the file it shows.
struct Document {
    window: WindowRef,
    file: PathBuf,
}

impl DesktopExecutor {
    /// Run the general steps of a desktop request.
    pub(super) async fn run_general(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
    ) -> Result<ExecOutcome, String> {
        let text = op.arguments.get("request").cloned().unwrap_or_default();
        let request = words::read(&text);
        if request.steps.is_empty() {
            return Ok(ExecOutcome::Blocked {
                reason: "I could not tell what to do on the desktop; say the app and the step, for example \"in the file manager, open Documents\"".into(),
            });
        }
        let ready = self.refresh_status().await;
        if ready["ready"] != true {
            let reason = ready["problem"]
                .as_str()
                .unwrap_or("the desktop is not ready")
                .to_string();
            return Ok(ExecOutcome::Blocked { reason });
        }
        let app = match self
            .apps
            .choose(&request, op.arguments.get("app").map(String::as_str))
        {
            Chosen::One(a) => a,
            Chosen::Ask(prompt, choices) => return Ok(self.ask(op, "app", prompt, choices)),
            Chosen::Refused(reason) => return Ok(ExecOutcome::Blocked { reason }),
        };
        let mutates = request.steps.iter().any(Step::mutates);
        if let Err(reason) = self.apps.permits(&app, mutates) {
            return Ok(ExecOutcome::Blocked { reason });
        }
        self.desktop.watch_human().await;
        let mut done: Vec<String> = Vec::new();
        let outcome = match app.kind {
            AppKind::Editor => {
                let doc = proceed!(self.document(op, cx, &app, &request).await);
                if self.needs_planner(&doc.window, &request).await {
                    return self
                        .plan_run(op, cx, &app, doc.window, &goal_words(&text))
                        .await;
                }
                proceed!(self.approvals(op, &request, Some(&doc.file), None));
                self.editor_steps(op, cx, &app, doc, &request, &mut done)
                    .await?
            }
            _ => {
                let window = proceed!(self.app_window(cx, &app).await);
                if self.needs_planner(&window, &request).await {
                    return self
                        .plan_run(op, cx, &app, window, &goal_words(&text))
                        .await;
                }
                let folder = self.folder_of(&window).await;
                proceed!(self.approvals(op, &request, None, folder.as_deref()));
                self.window_steps(op, cx, &app, window, &request, &mut done)
                    .await?
            }
        };
        Ok(outcome)
    }

    /// Steps that need the person's yes first: ask before anything runs.
    fn approvals(
        &self,
        op: &Operation,
        request: &DesktopRequest,
        file: Option<&Path>,
        folder: Option<&Path>,
    ) -> Phase<()> {
        for (k, step) in request.steps.iter().enumerate() {
            let (what, path) = match step {
                Step::SaveAs { name, folder: f } => {
                    let Some(dest) = file.and_then(|p| save_as_path(p, name, f.as_deref())) else {
                        continue;
                    };
                    if !dest.exists() {
                        continue;
                    }
                    (
                        format!(
                            "Saving as {} replaces the file that is there now.",
                            dest.display()
                        ),
                        dest,
                    )
                }
                Step::Delete {
                    name,
                    permanently: true,
                } => {
                    let Some(dir) = folder else { continue };
                    let p = dir.join(name);
                    (
                        format!("Deleting {} permanently skips the trash.", p.display()),
                        p,
                    )
                }
                _ => continue,
            };
            let key = format!("d{k}:{}", path.display());
            if op.arguments.get("approved") == Some(&key) {
                continue;
            }
            return Ok(Break(ExecOutcome::NeedsApproval {
                approval: crate::model::Approval {
                    prompt: format!("{what} It cannot be undone. Say yes to go ahead."),
                    expires_at: clock::now() + QUESTION_TTL_MS,
                    key,
                },
            }));
        }
        Ok(Continue(()))
    }

    /// The app's window: the one it has, or a new one when it has none. Several → the first
    /// that is not a dialog, in the registry's order.
    async fn app_window(&self, cx: &RunContext<'_>, app: &AppChoice) -> Phase<WindowRef> {
        let find = |ws: Vec<WindowRef>| ws.into_iter().find(|w| app.owns(w) && w.kind == "window");
        let windows = self.desktop.windows().await.map_err(|e| e.to_string())?;
        if let Some(w) = find(windows) {
            return Ok(Continue(w));
        }
        let step = begin(
            cx,
            &format!("open {}", app.name),
            BTreeMap::from([("app".to_string(), app.program.clone())]),
            None,
            false,
        )
        .await?;
        let argv = match app.open_command(None) {
            Ok(a) => a,
            Err(reason) => return crate::executor::blocked(cx, step, reason).await.map(Break),
        };
        if let Err(e) = self.desktop.launch(&argv[0], &argv[1..]).await {
            return crate::executor::blocked(cx, step, e.to_string())
                .await
                .map(Break);
        }
        let deadline = Instant::now() + APPEAR;
        while Instant::now() < deadline {
            self.desktop.settle(QUIET, Duration::from_millis(500)).await;
            let windows = self.desktop.windows().await.map_err(|e| e.to_string())?;
            if let Some(w) = find(windows) {
                end(cx, step, StepResult::Applied, json!({ "window": w.title })).await?;
                return Ok(Continue(w));
            }
        }
        let why = format!(
            "{} showed no window within {} s",
            app.name,
            APPEAR.as_secs()
        );
        crate::executor::blocked(cx, step, why).await.map(Break)
    }

    /// The folder a file-manager window shows (its location bar).
    async fn folder_of(&self, window: &WindowRef) -> Option<PathBuf> {
        let obs = self.desktop.observe(window, Page::ALL).await.ok()?;
        folder_shown(&obs)
    }

    /// The document an editor request is about: the window showing the file it names (or the
    /// file manager's selection, when the words name the selection), the only editor window, or
    /// the file manager's selection opened in the editor.
    async fn document(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        app: &AppChoice,
        request: &DesktopRequest,
    ) -> Phase<Document> {
        let windows = self.desktop.windows().await.map_err(|e| e.to_string())?;
        let editors: Vec<WindowRef> = windows
            .iter()
            .filter(|w| app.owns(w) && w.kind == "window")
            .cloned()
            .collect();
        // "the file I selected": the one file selected in the file manager, whatever the editor
        // shows now; none or several selected → why, and nothing runs.
        let selected = match &request.file {
            Some(Object::Selection) => match self.selection().await {
                Ok(p) => Some(p),
                Err(reason) => return Ok(Break(ExecOutcome::Blocked { reason })),
            },
            _ => None,
        };
        let named = match &request.file {
            Some(Object::Named(n)) => Some(n.clone()),
            Some(Object::Selection) => None,
            None => op.arguments.get("file").cloned(),
        };
        // A window already showing the named (or selected) file, or, with neither, the only one.
        let shown: Vec<(WindowRef, PathBuf)> = editors
            .iter()
            .filter_map(|w| {
                let (name, _) = super::task::editor_title(&w.title)?;
                let p = PathBuf::from(&name);
                p.is_absolute().then_some((w.clone(), p))
            })
            .filter(|(_, p)| match (&selected, &named) {
                (Some(s), _) => p == s,
                (None, Some(n)) => {
                    p.file_name().is_some_and(|f| f.to_string_lossy() == *n) || p == Path::new(n)
                }
                (None, None) => true,
            })
            .collect();
        if let [(w, p)] = shown.as_slice() {
            return Ok(Continue(Document {
                window: w.clone(),
                file: p.clone(),
            }));
        }
        if selected.is_none() && named.is_none() && shown.len() > 1 {
            let names: Vec<String> = shown
                .iter()
                .filter_map(|(_, p)| p.file_name().map(|f| f.to_string_lossy().to_string()))
                .collect();
            return Ok(Break(ExecOutcome::Blocked {
                reason: format!(
                    "{} shows several files ({}); say which one, for example \"in the editor, … of {}\"",
                    app.name,
                    names.join(", "),
                    names[0]
                ),
            }));
        }
        // Not open: find the file (a path, or a name the file manager lists or selects).
        let file = match (selected, &named) {
            (Some(p), _) => p,
            (None, Some(n)) => match self.locate(n).await {
                Ok(p) => p,
                Err(reason) => return Ok(Break(ExecOutcome::Blocked { reason })),
            },
            (None, None) => match self.selected_file().await {
                Some(p) => p,
                None => {
                    return Ok(Break(ExecOutcome::Blocked {
                        reason: format!(
                            "no file is open in {} and none is named; say which file, for example \"in the editor, open notes.md\"",
                            app.name
                        ),
                    }))
                }
            },
        };
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let step = begin(
            cx,
            &format!("open {name} in {}", app.name),
            BTreeMap::from([
                ("file".to_string(), file.display().to_string()),
                ("app".to_string(), app.program.clone()),
            ]),
            None,
            false,
        )
        .await?;
        // The app is running: open the file through its own Open dialog (the file chooser, the
        // path typed into its location field), as a person would.
        if let Some(w) = editors.first() {
            let o = self
                .desktop
                .observe(w, Page::ALL)
                .await
                .map_err(|e| e.to_string())?;
            if menu_item(&o, "open").is_some_and(|i| !i.has_state("disabled")) {
                within!(self.menu_command(cx, step, w, "open", &[]).await);
                let chooser = within!(self.wait_dialog(cx, step, w, &[]).await);
                // The location field: the chooser shows it for a typed path (Ctrl+L).
                self.keys(&chooser, &["Control_L+l"]).await;
                within!(
                    self.fill_text(cx, step, &chooser, &file.display().to_string(), None, &[])
                        .await
                );
                within!(self.press(cx, step, &chooser, &["open"], &[]).await);
                if let Some(shown) = self.window_showing(app, &file).await {
                    // Its tab's text on screen before the next step reads it.
                    self.wait_until(&shown, |o| super::executor::document(o).is_some())
                        .await;
                    end(
                        cx,
                        step,
                        StepResult::Applied,
                        json!({ "window": shown.title, "via": "the Open dialog" }),
                    )
                    .await?;
                    return Ok(Continue(Document {
                        window: shown,
                        file,
                    }));
                }
                let why = format!("{} did not show {name} after its Open dialog", app.name);
                end(cx, step, StepResult::Unknown, json!({ "error": why })).await?;
                return Ok(Break(ExecOutcome::Unknown { reason: why }));
            }
        }
        let argv = match app.open_command(Some(&file)) {
            Ok(a) => a,
            Err(reason) => return crate::executor::blocked(cx, step, reason).await.map(Break),
        };
        if let Err(e) = self.desktop.launch(&argv[0], &argv[1..]).await {
            return crate::executor::blocked(cx, step, e.to_string())
                .await
                .map(Break);
        }
        let deadline = Instant::now() + APPEAR;
        while Instant::now() < deadline {
            self.desktop.settle(QUIET, Duration::from_millis(500)).await;
            let windows = self.desktop.windows().await.map_err(|e| e.to_string())?;
            if let Some(w) = windows.into_iter().find(|w| {
                app.owns(w)
                    && w.kind == "window"
                    && super::task::title_shows(&w.title, &file).is_some()
            }) {
                end(cx, step, StepResult::Applied, json!({ "window": w.title })).await?;
                return Ok(Continue(Document { window: w, file }));
            }
        }
        let why = format!(
            "{} did not show {name} within {} s",
            app.name,
            APPEAR.as_secs()
        );
        crate::executor::blocked(cx, step, why).await.map(Break)
    }

    /// A file the person named: a path as said, else the one file of that name the file manager
    /// lists. Several or none → why, in words.
    async fn locate(&self, named: &str) -> Result<PathBuf, String> {
        let as_path = expand_home(named);
        if as_path.is_absolute() {
            return if as_path.is_file() {
                Ok(as_path)
            } else {
                Err(format!(
                    "there is no file {}; nothing was done",
                    as_path.display()
                ))
            };
        }
        let mut found: Vec<PathBuf> = Vec::new();
        for w in self.file_manager_windows().await {
            if let Ok(obs) = self.desktop.observe(&w, Page::ALL).await {
                for item in items(&obs) {
                    if item.path.is_file()
                        && item
                            .path
                            .file_name()
                            .is_some_and(|f| f.to_string_lossy() == named)
                        && !found.contains(&item.path)
                    {
                        found.push(item.path);
                    }
                }
            }
        }
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(format!(
                "I don't see {named} in the file manager; open its folder there, or say its full path. Nothing was done"
            )),
            _ => Err(format!(
                "there are several {named}: {}; say its full path. Nothing was done",
                found
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The file the words call the selection ("the file I selected"): the one item selected in
    /// the file manager's windows, which must be a file. None, several or a folder → why, naming
    /// what is selected.
    async fn selection(&self) -> Result<PathBuf, String> {
        let windows = self.file_manager_windows().await;
        let mut selected: Vec<PathBuf> = Vec::new();
        let mut titles: Vec<String> = Vec::new();
        for w in &windows {
            if let Ok(obs) = self.desktop.observe(w, Page::ALL).await {
                titles.push(format!("\"{}\"", w.title));
                selected.extend(
                    items(&obs)
                        .into_iter()
                        .filter(|i| i.selected)
                        .map(|i| i.path),
                );
            }
        }
        // The same file selected in two windows is one file.
        selected.sort();
        selected.dedup();
        let fm = self.apps.file_manager().name;
        match selected.as_slice() {
            [one] if one.is_file() => Ok(one.clone()),
            [one] => Err(format!(
                "the selection in {fm} is the folder {}, not a file; select the file, or say its name. Nothing was done",
                one.display()
            )),
            [] if titles.is_empty() => Err(format!(
                "{fm} shows no window, so nothing is selected; select the file there, or say its name. Nothing was done"
            )),
            [] => Err(format!(
                "nothing is selected in {fm} ({}); select the file there, or say its name. Nothing was done",
                titles.join(", ")
            )),
            several => Err(format!(
                "{} items are selected in {fm} ({}); select one, or say its name. Nothing was done",
                several.len(),
                several
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The one file selected in the file manager, if exactly one is.
    async fn selected_file(&self) -> Option<PathBuf> {
        let mut selected = Vec::new();
        for w in self.file_manager_windows().await {
            if let Ok(obs) = self.desktop.observe(&w, Page::ALL).await {
                selected.extend(
                    items(&obs)
                        .into_iter()
                        .filter(|i| i.selected && i.path.is_file())
                        .map(|i| i.path),
                );
            }
        }
        // The same file selected in two windows is one file.
        selected.sort();
        selected.dedup();
        (selected.len() == 1).then(|| selected.remove(0))
    }

    async fn file_manager_windows(&self) -> Vec<WindowRef> {
        let fm = self.apps.file_manager();
        self.desktop
            .windows()
            .await
            .unwrap_or_default()
            .into_iter()
            .filter(|w| fm.owns(w) && w.kind == "window")
            .collect()
    }

    /// Editor steps on one document, in order.
    async fn editor_steps(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        app: &AppChoice,
        mut doc: Document,
        request: &DesktopRequest,
        done: &mut Vec<String>,
    ) -> Result<ExecOutcome, String> {
        let name = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default()
        };
        let mut expected_text: Option<String> = None;
        for (k, step) in request.steps.iter().enumerate() {
            // Resumed after the person answered: a step this operation already did is not done
            // again.
            if already_done(op, step, &name(&doc.file)) {
                done.push(step.describe());
                continue;
            }
            proceed!(self.checkpoint(op, cx, done).await);
            let answered = matches!(step, Step::Close { .. }) && op.arguments.contains_key("close");
            let obs = proceed!(self.look(&doc.window, step, answered, done).await);
            match step {
                Step::Choose { option, field } => {
                    proceed!(
                        self.choose(cx, &doc.window, &obs, option, field.as_deref(), done)
                            .await
                    );
                }
                Step::Select { what } => {
                    proceed!(self.select_text(cx, &doc, &obs, what, done).await);
                }
                Step::Close { save } => {
                    proceed!(
                        self.close_document(op, cx, app, &doc, &obs, *save, done)
                            .await
                    );
                }
                Step::Open { .. } | Step::Show { .. } => {
                    done.push(format!("opened {}", name(&doc.file)));
                }
                Step::Append { .. } | Step::Replace { .. } => {
                    let Some(text_id) = super::executor::document(&obs) else {
                        return Ok(ExecOutcome::Blocked {
                            reason: format!(
                                "no editable text in \"{}\"; nothing was changed",
                                doc.window.title
                            ),
                        });
                    };
                    let handle = obs.handles[&text_id].clone();
                    let buffer = self
                        .desktop
                        .read_text(&handle)
                        .await
                        .map_err(|e| e.to_string())?;
                    let change = match step {
                        Step::Append { text } => super::task::append_line(&buffer, text),
                        Step::Replace { old, new } => {
                            match super::task::replace_words(&buffer, old, new) {
                                Some(c) => c,
                                None => {
                                    return Ok(partial(
                                        ExecOutcome::Blocked {
                                            reason: format!(
                                                "\"{old}\" is not in {}; nothing was replaced",
                                                name(&doc.file)
                                            ),
                                        },
                                        done,
                                    ))
                                }
                            }
                        }
                        _ => unreachable!("only text steps here"),
                    };
                    let s = begin(
                        cx,
                        &step.describe(),
                        BTreeMap::from([("file".to_string(), doc.file.display().to_string())]),
                        Some(format!("{} revision {}", doc.window.title, obs.revision)),
                        true,
                    )
                    .await?;
                    for edit in &change.edits {
                        let action = DesktopAction {
                            window: doc.window.clone(),
                            revision: obs.revision,
                            target: InputTarget::Element(handle.clone()),
                            act: Act::ReplaceText {
                                start: edit.start,
                                end: edit.end,
                                text: edit.text.clone(),
                            },
                            may_open_modal: false,
                        };
                        if let Err(e) = self.desktop.act(&action).await {
                            end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
                            return Ok(partial(unknown_or_blocked(&e, &step.describe()), done));
                        }
                    }
                    self.desktop.settle(QUIET, SETTLE_CAP).await;
                    let now = self
                        .desktop
                        .read_text(&handle)
                        .await
                        .map_err(|e| e.to_string())?;
                    if now != change.after {
                        end(
                            cx,
                            s,
                            StepResult::Unknown,
                            json!({ "error": "the text is not what was written" }),
                        )
                        .await?;
                        return Ok(partial(
                            ExecOutcome::Unknown {
                                reason:
                                    "the editor's text is not what I wrote; someone may be typing"
                                        .into(),
                            },
                            done,
                        ));
                    }
                    end(
                        cx,
                        s,
                        StepResult::Applied,
                        json!({ "edits": change.edits.len() }),
                    )
                    .await?;
                    done.push(step.describe());
                    expected_text = Some(now);
                }
                Step::Save => {
                    let text = match &expected_text {
                        Some(t) => t.clone(),
                        None => self.document_text(&obs).await?,
                    };
                    let s = begin(
                        cx,
                        &format!("save {}", name(&doc.file)),
                        BTreeMap::new(),
                        None,
                        true,
                    )
                    .await?;
                    proceed!(self.menu_command(cx, s, &doc.window, "save", done).await);
                    match wait_for_contents(&doc.file, &text).await {
                        Ok(()) => {
                            end(
                                cx,
                                s,
                                StepResult::Applied,
                                json!({ "read": doc.file.display().to_string() }),
                            )
                            .await?;
                            done.push(format!("saved {}", name(&doc.file)));
                        }
                        Err(why) => {
                            end(cx, s, StepResult::Unknown, json!({ "error": why })).await?;
                            return Ok(partial(
                                ExecOutcome::Unknown {
                                    reason: format!(
                                        "after Save, {} on disk does not show it: {why}",
                                        name(&doc.file)
                                    ),
                                },
                                done,
                            ));
                        }
                    }
                }
                Step::SaveAs { name: new, folder } => {
                    let Some(dest) = save_as_path(&doc.file, new, folder.as_deref()) else {
                        return Ok(partial(
                            ExecOutcome::Blocked {
                                reason: format!("I cannot tell where to save {new}; say a folder next to the file or a full path"),
                            },
                            done,
                        ));
                    };
                    if !dest.parent().is_some_and(Path::is_dir) {
                        return Ok(partial(
                            ExecOutcome::Blocked {
                                reason: format!(
                                    "there is no folder {}; nothing was saved",
                                    dest.parent().unwrap_or(Path::new("/")).display()
                                ),
                            },
                            done,
                        ));
                    }
                    let text = match &expected_text {
                        Some(t) => t.clone(),
                        None => self.document_text(&obs).await?,
                    };
                    let approved =
                        op.arguments.get("approved") == Some(&format!("d{k}:{}", dest.display()));
                    let s = begin(
                        cx,
                        &step.describe(),
                        BTreeMap::from([("path".to_string(), dest.display().to_string())]),
                        None,
                        true,
                    )
                    .await?;
                    proceed!(self.menu_command(cx, s, &doc.window, "save as", done).await);
                    let chooser = proceed!(self.wait_dialog(cx, s, &doc.window, done).await);
                    proceed!(self.fill_name(cx, s, &chooser, &dest, done).await);
                    proceed!(self.press(cx, s, &chooser, &["save"], done).await);
                    // A file already there: the app asks to replace it; only an approved step says yes.
                    if let Some(alert) = self.dialog_after(&doc.window, &chooser).await {
                        if approved {
                            proceed!(
                                self.press(cx, s, &alert, &["replace", "overwrite", "yes"], done)
                                    .await
                            );
                        } else {
                            let _ = self.press(cx, s, &alert, &["cancel"], done).await?;
                            end(
                                cx,
                                s,
                                StepResult::NotApplied,
                                json!({ "error": "the app asked to replace a file" }),
                            )
                            .await?;
                            return Ok(partial(
                                ExecOutcome::Blocked {
                                    reason: format!("{} asked to replace {}; I said no, since you had not approved it", app.name, dest.display()),
                                },
                                done,
                            ));
                        }
                    }
                    match wait_for_contents(&dest, &text).await {
                        Ok(()) => {
                            end(
                                cx,
                                s,
                                StepResult::Applied,
                                json!({ "read": dest.display().to_string() }),
                            )
                            .await?;
                            done.push(format!("saved it as {}", dest.display()));
                            doc = Document {
                                window: self.window_showing(app, &dest).await.unwrap_or(doc.window),
                                file: dest,
                            };
                        }
                        Err(why) => {
                            end(cx, s, StepResult::Unknown, json!({ "error": why })).await?;
                            return Ok(partial(
                                ExecOutcome::Unknown {
                                    reason: format!(
                                        "after Save As, {} does not show it: {why}",
                                        dest.display()
                                    ),
                                },
                                done,
                            ));
                        }
                    }
                }
                Step::CloseDialog | Step::Press { .. } => {
                    proceed!(self.press_step(cx, &doc.window, step, done).await);
                }
                Step::Rename { .. } | Step::CreateFolder { .. } | Step::Delete { .. } => {
                    return Ok(partial(
                        ExecOutcome::Blocked {
                            reason: format!(
                                "\"{}\" is a step for the file manager, not {}",
                                step.describe(),
                                app.name
                            ),
                        },
                        done,
                    ));
                }
            }
        }
        Ok(ExecOutcome::Completed {
            summary: format!("{}.", sentence(done)),
            data: json!({ "app": app.name, "file": doc.file.display().to_string() }),
        })
    }

    async fn document_text(&self, obs: &DesktopObservation) -> Result<String, String> {
        let id = super::executor::document(obs).ok_or("no editable text in the editor")?;
        self.desktop
            .read_text(&obs.handles[&id])
            .await
            .map_err(|e| e.to_string())
    }

    async fn window_showing(&self, app: &AppChoice, file: &Path) -> Option<WindowRef> {
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            let ws = self.desktop.windows().await.ok()?;
            if let Some(w) = ws.into_iter().find(|w| {
                app.owns(w)
                    && w.kind == "window"
                    && super::task::title_shows(&w.title, file).is_some()
            }) {
                return Some(w);
            }
            self.desktop.settle(QUIET, Duration::from_millis(300)).await;
        }
        None
    }

    /// File-manager (and other windows') steps, in order.
    async fn window_steps(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        app: &AppChoice,
        window: WindowRef,
        request: &DesktopRequest,
        done: &mut Vec<String>,
    ) -> Result<ExecOutcome, String> {
        for step in &request.steps {
            if already_done(op, step, "") {
                done.push(step.describe());
                continue;
            }
            proceed!(self.checkpoint(op, cx, done).await);
            let obs = proceed!(self.look(&window, step, false, done).await);
            let folder = folder_shown(&obs);
            match step {
                Step::Choose { option, field } => {
                    proceed!(
                        self.choose(cx, &window, &obs, option, field.as_deref(), done)
                            .await
                    );
                }
                Step::Select { what } => {
                    let item = proceed!(self.item(&obs, what, done));
                    proceed!(
                        self.select_row(cx, step, &window, &obs, &item, "selected", done)
                            .await
                    );
                    done.push(format!("selected {}", item.label));
                }
                Step::Show { object } => {
                    // The file manager shows it: its row selected (already, for the selection)
                    // and focused, seen selected.
                    let item = proceed!(self.object_item(&obs, object, done));
                    proceed!(
                        self.select_row(cx, step, &window, &obs, &item, "shown", done)
                            .await
                    );
                    done.push(format!(
                        "showed {}, selected in \"{}\"",
                        item.label, window.title
                    ));
                }
                Step::Open { object } => {
                    // "the file I selected": the item selected in this window (already selected,
                    // so selecting it again only focuses its row); then Return, as for a name.
                    let item = proceed!(self.object_item(&obs, object, done));
                    let name = &item.label;
                    let s = begin(
                        cx,
                        &step.describe(),
                        BTreeMap::from([("path".to_string(), item.path.display().to_string())]),
                        Some(format!("{} revision {}", window.title, obs.revision)),
                        false,
                    )
                    .await?;
                    // As a person opens it: its row selected, then Return (the row's own
                    // action does not open it in every file manager).
                    proceed!(self.select_item(cx, s, &window, &obs, &item, done).await);
                    let action = DesktopAction {
                        window: window.clone(),
                        revision: obs.revision,
                        target: InputTarget::Window(window.clone()),
                        act: Act::Keys(vec!["Return".into()]),
                        may_open_modal: true,
                    };
                    if let Err(e) = self.desktop.act(&action).await {
                        end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
                        return Ok(partial(unknown_or_blocked(&e, &step.describe()), done));
                    }
                    if item.path.is_dir() {
                        let shown = self
                            .wait_until(&window, |o| {
                                folder_shown(o).as_deref() == Some(item.path.as_path())
                            })
                            .await;
                        if !shown {
                            end(
                                cx,
                                s,
                                StepResult::Unknown,
                                json!({ "error": "the window does not show the folder" }),
                            )
                            .await?;
                            return Ok(partial(
                                ExecOutcome::Unknown {
                                    reason: format!(
                                        "I opened {name}, but {} does not show it",
                                        app.name
                                    ),
                                },
                                done,
                            ));
                        }
                    }
                    end(
                        cx,
                        s,
                        StepResult::Applied,
                        json!({ "opened": item.path.display().to_string() }),
                    )
                    .await?;
                    done.push(format!("opened {name}"));
                }
                Step::Rename { from, to } => {
                    let item = proceed!(self.item(&obs, from, done));
                    let dest = item.path.with_file_name(to);
                    if to.contains('/') || dest.exists() {
                        return Ok(partial(ExecOutcome::Blocked { reason: format!("{} already exists (or is not a plain name); nothing was renamed", dest.display()) }, done));
                    }
                    let s = begin(
                        cx,
                        &step.describe(),
                        BTreeMap::from([
                            ("from".to_string(), item.path.display().to_string()),
                            ("to".to_string(), dest.display().to_string()),
                        ]),
                        None,
                        true,
                    )
                    .await?;
                    proceed!(self.select_item(cx, s, &window, &obs, &item, done).await);
                    proceed!(self.menu_command(cx, s, &window, "rename", done).await);
                    let dialog = proceed!(self.wait_dialog(cx, s, &window, done).await);
                    proceed!(self.fill_text(cx, s, &dialog, to, Some(from), done).await);
                    proceed!(self.press(cx, s, &dialog, &["rename", "ok"], done).await);
                    if wait_for(|| dest.exists() && !item.path.exists()).await {
                        end(
                            cx,
                            s,
                            StepResult::Applied,
                            json!({ "renamed": dest.display().to_string() }),
                        )
                        .await?;
                        done.push(format!("renamed {from} to {to}"));
                    } else {
                        end(
                            cx,
                            s,
                            StepResult::Unknown,
                            json!({ "error": "the new name is not on disk" }),
                        )
                        .await?;
                        return Ok(partial(
                            ExecOutcome::Unknown {
                                reason: format!(
                                    "I asked {} to rename {from}, but {} is not on disk",
                                    app.name,
                                    dest.display()
                                ),
                            },
                            done,
                        ));
                    }
                }
                Step::CreateFolder { name } => {
                    let Some(dir) = folder.clone() else {
                        return Ok(partial(
                            ExecOutcome::Blocked {
                                reason: format!(
                                    "I cannot tell which folder {} shows; nothing was created",
                                    app.name
                                ),
                            },
                            done,
                        ));
                    };
                    let dest = dir.join(name);
                    if name.contains('/') || dest.exists() {
                        return Ok(partial(ExecOutcome::Blocked { reason: format!("{} already exists (or is not a plain name); nothing was created", dest.display()) }, done));
                    }
                    let s = begin(
                        cx,
                        &step.describe(),
                        BTreeMap::from([("path".to_string(), dest.display().to_string())]),
                        None,
                        true,
                    )
                    .await?;
                    proceed!(
                        self.menu_command(cx, s, &window, "create folder", done)
                            .await
                    );
                    let dialog = proceed!(self.wait_dialog(cx, s, &window, done).await);
                    proceed!(self.fill_text(cx, s, &dialog, name, None, done).await);
                    proceed!(self.press(cx, s, &dialog, &["create", "ok"], done).await);
                    if wait_for(|| dest.is_dir()).await {
                        end(
                            cx,
                            s,
                            StepResult::Applied,
                            json!({ "created": dest.display().to_string() }),
                        )
                        .await?;
                        done.push(format!("created the folder {name}"));
                    } else {
                        end(
                            cx,
                            s,
                            StepResult::Unknown,
                            json!({ "error": "the folder is not on disk" }),
                        )
                        .await?;
                        return Ok(partial(
                            ExecOutcome::Unknown {
                                reason: format!(
                                    "I asked {} to create {name}, but it is not on disk",
                                    app.name
                                ),
                            },
                            done,
                        ));
                    }
                }
                Step::Delete { name, permanently } => {
                    let item = proceed!(self.item(&obs, name, done));
                    let s = begin(
                        cx,
                        &step.describe(),
                        BTreeMap::from([("path".to_string(), item.path.display().to_string())]),
                        None,
                        true,
                    )
                    .await?;
                    proceed!(self.select_item(cx, s, &window, &obs, &item, done).await);
                    let command = if *permanently {
                        "delete"
                    } else {
                        "move to trash"
                    };
                    proceed!(self.menu_command(cx, s, &window, command, done).await);
                    if *permanently {
                        // The app asks "are you sure?"; the person's yes was given before anything ran.
                        if let Ok(Continue(alert)) = self.wait_dialog(cx, s, &window, done).await {
                            proceed!(
                                self.press(cx, s, &alert, &["delete", "yes", "ok"], done)
                                    .await
                            );
                        }
                    }
                    if wait_for(|| !item.path.exists()).await {
                        end(
                            cx,
                            s,
                            StepResult::Applied,
                            json!({ "gone": item.path.display().to_string() }),
                        )
                        .await?;
                        done.push(step.describe());
                    } else {
                        end(
                            cx,
                            s,
                            StepResult::Unknown,
                            json!({ "error": "the file is still there" }),
                        )
                        .await?;
                        return Ok(partial(
                            ExecOutcome::Unknown {
                                reason: format!("{} is still there", item.path.display()),
                            },
                            done,
                        ));
                    }
                }
                Step::CloseDialog | Step::Press { .. } => {
                    proceed!(self.press_step(cx, &window, step, done).await);
                }
                Step::Append { .. }
                | Step::Replace { .. }
                | Step::Save
                | Step::SaveAs { .. }
                | Step::Close { .. } => {
                    return Ok(partial(
                        ExecOutcome::Blocked {
                            reason: format!(
                                "\"{}\" is a step for the editor, not {}",
                                step.describe(),
                                app.name
                            ),
                        },
                        done,
                    ));
                }
            }
        }
        Ok(ExecOutcome::Completed {
            summary: format!("{}.", sentence(done)),
            data: json!({ "app": app.name, "window": window.title }),
        })
    }

    /// Observe the window before a step; a dialog nobody asked for stops here, described.
    async fn look(
        &self,
        window: &WindowRef,
        step: &Step,
        expects_dialog: bool,
        done: &[String],
    ) -> Phase<DesktopObservation> {
        let obs = match self.desktop.observe(window, Page::ALL).await {
            Ok(o) => o,
            Err(e) => {
                return Ok(Break(partial(
                    ExecOutcome::Blocked {
                        reason: e.to_string(),
                    },
                    done,
                )))
            }
        };
        let wants_dialog = expects_dialog
            || matches!(
                step,
                Step::CloseDialog | Step::Press { .. } | Step::Choose { .. }
            );
        if let (Some(d), false) = (&obs.dialog, wants_dialog) {
            let choices = dialog_buttons(&obs, &d.title);
            return Ok(Break(partial(
                ExecOutcome::Blocked {
                    reason: format!(
                        "{} shows a dialog \"{}\"{}; I stopped before \"{}\". Answer it (for example \"click {}\") or close it, then ask again",
                        window.app,
                        d.title,
                        if choices.is_empty() { String::new() } else { format!(" with the choices {}", choices.join(", ")) },
                        step.describe(),
                        choices.first().map(String::as_str).unwrap_or("Cancel"),
                    ),
                },
                done,
            )));
        }
        Ok(Continue(obs))
    }

    /// The item a step is about: the one listed under its name, or the one selected in the
    /// window for the selection (none or several selected → why, naming what is selected).
    /// A file manager's row selected as one journalled step, its effect seen; `key` names
    /// the path in the step's result ("selected", "shown").
    #[allow(clippy::too_many_arguments)]
    async fn select_row(
        &self,
        cx: &RunContext<'_>,
        step: &Step,
        window: &WindowRef,
        obs: &DesktopObservation,
        item: &Item,
        key: &str,
        done: &[String],
    ) -> Phase<()> {
        let s = begin(
            cx,
            &step.describe(),
            BTreeMap::from([("path".to_string(), item.path.display().to_string())]),
            None,
            false,
        )
        .await?;
        within!(self.select_item(cx, s, window, obs, item, done).await);
        end(
            cx,
            s,
            StepResult::Applied,
            json!({ key: item.path.display().to_string() }),
        )
        .await?;
        Ok(Continue(()))
    }

    fn object_item(
        &self,
        obs: &DesktopObservation,
        object: &Object,
        done: &[String],
    ) -> Phase<Item> {
        let name = match object {
            Object::Named(n) => return self.item(obs, n, done),
            Object::Selection => "the selection",
        };
        let all = items(obs);
        let selected: Vec<&Item> = all.iter().filter(|i| i.selected).collect();
        let reason = match selected.as_slice() {
            [one] => return Ok(Continue((*one).clone())),
            [] => format!(
                "nothing is selected in \"{}\", so I cannot tell which file you mean by {name}; select it there, or say its name. Nothing was done",
                obs.window.title
            ),
            several => format!(
                "{} items are selected in \"{}\" ({}); select one, or say its name. Nothing was done",
                several.len(),
                obs.window.title,
                several
                    .iter()
                    .map(|i| i.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Ok(Break(partial(ExecOutcome::Blocked { reason }, done)))
    }

    /// The item the file manager lists under exactly this name (case-insensitively when only
    /// one fits that way).
    fn item(&self, obs: &DesktopObservation, name: &str, done: &[String]) -> Phase<Item> {
        let all = items(obs);
        let exact: Vec<&Item> = all.iter().filter(|i| i.label == name).collect();
        let pool: Vec<&Item> = if exact.is_empty() {
            all.iter()
                .filter(|i| i.label.eq_ignore_ascii_case(name))
                .collect()
        } else {
            exact
        };
        match pool.as_slice() {
            [one] => Ok(Continue((*one).clone())),
            [] => {
                let shown: Vec<&str> = all.iter().take(8).map(|i| i.label.as_str()).collect();
                Ok(Break(partial(
                    ExecOutcome::Blocked {
                        reason: format!(
                            "I don't see {name} in \"{}\"{}; nothing was done",
                            obs.window.title,
                            if shown.is_empty() {
                                String::new()
                            } else {
                                format!(" (it shows {})", shown.join(", "))
                            }
                        ),
                    },
                    done,
                )))
            }
            _ => Ok(Break(partial(
                ExecOutcome::Blocked {
                    reason: format!(
                        "\"{}\" shows more than one {name}; say it exactly",
                        obs.window.title
                    ),
                },
                done,
            ))),
        }
    }

    /// Select an item as a person would (its row takes focus, which selects it) and see it
    /// selected.
    async fn select_item(
        &self,
        cx: &RunContext<'_>,
        s: u32,
        window: &WindowRef,
        obs: &DesktopObservation,
        item: &Item,
        done: &[String],
    ) -> Phase<()> {
        for act in [Act::Focus, Act::Select] {
            let action = DesktopAction {
                window: window.clone(),
                revision: obs.revision,
                target: InputTarget::Element(obs.handles[&item.id].clone()),
                act,
                may_open_modal: false,
            };
            let _ = self.desktop.act(&action).await;
            self.desktop.settle(QUIET, SETTLE_CAP).await;
            if let Ok(now) = self.desktop.observe(window, Page::ALL).await {
                if items(&now)
                    .iter()
                    .any(|i| i.path == item.path && i.selected)
                {
                    return Ok(Continue(()));
                }
            }
        }
        end(
            cx,
            s,
            StepResult::NotApplied,
            json!({ "error": "could not select it" }),
        )
        .await?;
        Ok(Break(partial(
            ExecOutcome::Blocked {
                reason: format!(
                    "I could not select {} in \"{}\"; nothing was changed",
                    item.label, window.title
                ),
            },
            done,
        )))
    }

    /// Run a menu command: find the menu item the words name (opening menus to see their items
    /// when the app builds them on demand), open its menu, highlight it, press Return.
    async fn menu_command(
        &self,
        cx: &RunContext<'_>,
        s: u32,
        window: &WindowRef,
        command: &str,
        done: &[String],
    ) -> Phase<()> {
        let fail = |reason: String| Ok(Break(partial(ExecOutcome::Blocked { reason }, done)));
        // Keys go to the focused window: make this one active first.
        self.focus_window(window).await;
        let mut obs = self
            .desktop
            .observe(window, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        let mut found = menu_item(&obs, command);
        if found.is_none() {
            // Menus built when opened: open each in turn and look.
            let tops: Vec<String> = top_menus(&obs).iter().map(|e| e.label.clone()).collect();
            for top in tops {
                let o = self
                    .desktop
                    .observe(window, Page::ALL)
                    .await
                    .map_err(|e| e.to_string())?;
                let Some(t) = top_menus(&o).into_iter().find(|e| e.label == top) else {
                    continue;
                };
                self.act_on(window, &o, &t.id, Act::Activate).await;
                self.desktop.settle(QUIET, SETTLE_CAP).await;
                obs = self
                    .desktop
                    .observe(window, Page::ALL)
                    .await
                    .map_err(|e| e.to_string())?;
                found = menu_item(&obs, command);
                if found.is_some() {
                    break;
                }
                self.keys(window, &["Escape"]).await;
            }
        }
        let Some(item) = found else {
            // No menu has it: a button that says it (a header bar's "Save").
            let now = self
                .desktop
                .observe(window, Page::ALL)
                .await
                .map_err(|e| e.to_string())?;
            let button = now.observation.elements.iter().find(|e| {
                e.role == "button" && !e.has_state("disabled") && norm(&e.label) == norm(command)
            });
            if let Some(b) = button {
                let label = b.label.trim().to_string();
                // A label with an ellipsis opens a dialog: focus, then space, as a person would.
                let acts = if label.ends_with('…') || label.ends_with("...") {
                    vec![
                        (InputTarget::Element(now.handles[&b.id].clone()), Act::Focus),
                        (
                            InputTarget::Window(window.clone()),
                            Act::Keys(vec!["space".into()]),
                        ),
                    ]
                } else {
                    vec![(
                        InputTarget::Element(now.handles[&b.id].clone()),
                        Act::Activate,
                    )]
                };
                for (target, act) in acts {
                    let action = DesktopAction {
                        window: window.clone(),
                        revision: now.revision,
                        target,
                        act,
                        may_open_modal: false,
                    };
                    if let Err(e) = self.desktop.act(&action).await {
                        end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
                        return Ok(Break(partial(
                            unknown_or_blocked(&e, &format!("pressing {label}")),
                            done,
                        )));
                    }
                }
                self.desktop.settle(QUIET, SETTLE_CAP).await;
                return Ok(Continue(()));
            }
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "error": format!("no menu command \"{command}\"") }),
            )
            .await?;
            return fail(format!(
                "{} has no menu command or button for \"{command}\"; nothing was changed",
                window.app
            ));
        };
        if item.has_state("disabled") {
            self.keys(window, &["Escape"]).await;
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "error": format!("\"{}\" is disabled", item.label) }),
            )
            .await?;
            return fail(format!(
                "\"{}\" is not available in {} now; nothing was changed",
                item.label.trim(),
                window.app
            ));
        }
        // The app's own shortcut for the command, pressed in its window: the most direct route
        // a person has, and one that needs no menu to hold the keyboard (a menu popped up by
        // an accessibility action may get no keyboard grab, and then Return goes to the window).
        let shortcut = match obs.handles.get(&item.id) {
            Some(h) => self.desktop.shortcut(h).await.unwrap_or_default(),
            None => Vec::new(),
        };
        if !shortcut.is_empty() {
            if top_menus(&obs).iter().any(|t| t.has_state("selected")) {
                // Close it through the menu bar's own selection: a menu opened by an
                // accessibility action may have no keyboard grab, and then Escape is lost.
                if let Some(bar) = obs
                    .observation
                    .elements
                    .iter()
                    .find(|e| e.role == "menubar")
                {
                    self.act_on(window, &obs, &bar.id, Act::Deselect).await;
                    self.desktop.settle(QUIET, SETTLE_CAP).await;
                }
                // And Escape, which also takes the menu bar out of its keyboard mode.
                self.keys(window, &["Escape"]).await;
                // The menu closed before the shortcut goes to the window.
                self.wait_until(window, |o| {
                    !top_menus(o).iter().any(|t| t.has_state("selected"))
                })
                .await;
            }
            self.focus_window(window).await;
            tracing::info!(item = %item.label, keys = ?shortcut, "menu command by its shortcut");
            let action = DesktopAction {
                window: window.clone(),
                revision: obs.revision,
                target: InputTarget::Window(window.clone()),
                act: Act::Keys(shortcut),
                may_open_modal: true,
            };
            if let Err(e) = self.desktop.act(&action).await {
                end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
                return Ok(Break(partial(
                    unknown_or_blocked(&e, &format!("the menu command \"{}\"", item.label.trim())),
                    done,
                )));
            }
            self.desktop.settle(QUIET, SETTLE_CAP).await;
            return Ok(Continue(()));
        }
        // Its menu open?
        let open = top_menus(&obs)
            .into_iter()
            .any(|t| t.label == item.context && t.has_state("selected"));
        if !open {
            let Some(t) = top_menus(&obs)
                .into_iter()
                .find(|t| t.label == item.context)
            else {
                end(
                    cx,
                    s,
                    StepResult::NotApplied,
                    json!({ "error": "its menu is not in the menu bar" }),
                )
                .await?;
                return fail(format!(
                    "I could not open the menu of \"{}\"; nothing was changed",
                    item.label.trim()
                ));
            };
            self.act_on(window, &obs, &t.id, Act::Activate).await;
            self.desktop.settle(QUIET, SETTLE_CAP).await;
            obs = self
                .desktop
                .observe(window, Page::ALL)
                .await
                .map_err(|e| e.to_string())?;
        }
        let Some(item) = menu_item(&obs, command) else {
            self.keys(window, &["Escape"]).await;
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "error": "the item went away" }),
            )
            .await?;
            return fail(format!(
                "the menu command \"{command}\" went away; nothing was changed"
            ));
        };
        self.act_on(window, &obs, &item.id, Act::Select).await;
        self.desktop.settle(QUIET, SETTLE_CAP).await;
        let now = self
            .desktop
            .observe(window, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        let highlighted = now.observation.elements.iter().any(|e| {
            e.role == "menuitem"
                && e.label == item.label
                && e.context == item.context
                && e.has_state("selected")
        });
        if !highlighted {
            self.keys(window, &["Escape", "Escape"]).await;
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "error": "the menu item was not highlighted" }),
            )
            .await?;
            return fail(format!(
                "I could not highlight \"{}\" in its menu; nothing was changed",
                item.label.trim()
            ));
        }
        tracing::info!(
            item = %item.label,
            menu = %item.context,
            focused = ?now.focused,
            open = ?top_menus(&now).iter().filter(|t| t.has_state("selected")).map(|t| t.label.clone()).collect::<Vec<_>>(),
            "menu command: the item is highlighted; Return"
        );
        // One Return, never two: a second could land in the dialog the first one opened (a
        // Save As would save). A menu that did not take it is found by the caller's wait for
        // the command's effect, which ends the step without it.
        let action = DesktopAction {
            window: window.clone(),
            revision: now.revision,
            target: InputTarget::Window(window.clone()),
            act: Act::Keys(vec!["Return".into()]),
            may_open_modal: true,
        };
        if let Err(e) = self.desktop.act(&action).await {
            end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
            return Ok(Break(partial(
                unknown_or_blocked(&e, &format!("the menu command \"{}\"", item.label.trim())),
                done,
            )));
        }
        self.desktop.settle(QUIET, SETTLE_CAP).await;
        Ok(Continue(()))
    }

    async fn focus_window(&self, window: &WindowRef) {
        let Ok(obs) = self.desktop.observe(window, Page::ALL).await else {
            return;
        };
        let target = obs
            .focused
            .clone()
            .or_else(|| super::executor::document(&obs))
            .or_else(|| {
                obs.observation
                    .elements
                    .iter()
                    .find(|e| e.role == "grid" && e.has_state("focusable"))
                    .map(|e| e.id.clone())
            });
        if let Some(id) = target {
            self.act_on(window, &obs, &id, Act::Focus).await;
            self.desktop.settle(QUIET, SETTLE_CAP).await;
        }
    }

    async fn act_on(&self, window: &WindowRef, obs: &DesktopObservation, id: &str, act: Act) {
        let Some(h) = obs.handles.get(id) else { return };
        let action = DesktopAction {
            window: window.clone(),
            revision: obs.revision,
            target: InputTarget::Element(h.clone()),
            act,
            may_open_modal: false,
        };
        let _ = self.desktop.act(&action).await;
    }

    /// Press each chord in turn ("Escape", "Control_L+l").
    async fn keys(&self, window: &WindowRef, keys: &[&str]) {
        for k in keys {
            let action = DesktopAction {
                window: window.clone(),
                revision: 0,
                target: InputTarget::Window(window.clone()),
                act: Act::Keys(k.split('+').map(String::from).collect()),
                may_open_modal: false,
            };
            let _ = self.desktop.act(&action).await;
        }
        self.desktop.settle(QUIET, SETTLE_CAP).await;
    }

    /// The dialog of this window's app that appears after a command.
    async fn wait_dialog(
        &self,
        cx: &RunContext<'_>,
        s: u32,
        window: &WindowRef,
        done: &[String],
    ) -> Phase<WindowRef> {
        let deadline = Instant::now() + APPEAR;
        while Instant::now() < deadline {
            let windows = self.desktop.windows().await.map_err(|e| e.to_string())?;
            if let Some(d) = windows
                .into_iter()
                .find(|w| w.instance == window.instance && w.kind != "window")
            {
                // Listed before its tree is readable: wait until it can be observed.
                if self
                    .desktop
                    .observe(&d, Page::ALL)
                    .await
                    .is_ok_and(|o| !o.observation.elements.is_empty())
                {
                    return Ok(Continue(d));
                }
            }
            self.desktop.settle(QUIET, Duration::from_millis(300)).await;
        }
        end(
            cx,
            s,
            StepResult::Unknown,
            json!({ "error": "no dialog appeared" }),
        )
        .await?;
        Ok(Break(partial(
            ExecOutcome::Unknown {
                reason: format!(
                    "{} showed no dialog after the command; I stopped there",
                    window.app
                ),
            },
            done,
        )))
    }

    /// Another dialog of the app that appears after `previous` was answered (an "are you sure?").
    async fn dialog_after(&self, window: &WindowRef, previous: &WindowRef) -> Option<WindowRef> {
        let deadline = Instant::now() + Duration::from_millis(1500);
        while Instant::now() < deadline {
            self.desktop.settle(QUIET, Duration::from_millis(300)).await;
            let windows = self.desktop.windows().await.ok()?;
            let dialogs: Vec<WindowRef> = windows
                .into_iter()
                .filter(|w| w.instance == window.instance && w.kind != "window")
                .collect();
            if let Some(d) = dialogs.iter().find(|d| d.window != previous.window) {
                return Some(d.clone());
            }
            if dialogs.is_empty() {
                return None;
            }
        }
        None
    }

    /// Put `text` into the dialog's name field: the editable field showing `current` when given,
    /// else the focused one, else the only one.
    async fn fill_text(
        &self,
        cx: &RunContext<'_>,
        s: u32,
        dialog: &WindowRef,
        text: &str,
        current: Option<&str>,
        done: &[String],
    ) -> Phase<()> {
        let obs = self
            .desktop
            .observe(dialog, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        let fields: Vec<&Element> = obs
            .observation
            .elements
            .iter()
            .filter(|e| e.role == "textbox" && e.has_state("editable"))
            .collect();
        let field = fields
            .iter()
            .find(|e| current.is_some_and(|c| e.value.as_deref() == Some(c)))
            .or_else(|| fields.iter().find(|e| e.has_state("focused")))
            .or_else(|| {
                if fields.len() == 1 {
                    fields.first()
                } else {
                    None
                }
            });
        let Some(field) = field else {
            self.keys(dialog, &["Escape"]).await;
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "error": "no name field in the dialog" }),
            )
            .await?;
            return Ok(Break(partial(
                ExecOutcome::Blocked { reason: format!("the dialog \"{}\" has no field I can tell is the name; I closed it, nothing was changed", dialog.title) },
                done,
            )));
        };
        let handle = obs.handles[&field.id].clone();
        let len = field.value.as_deref().map_or(0, |v| v.chars().count());
        let action = DesktopAction {
            window: dialog.clone(),
            revision: obs.revision,
            target: InputTarget::Element(handle.clone()),
            act: Act::ReplaceText {
                start: 0,
                end: len,
                text: text.to_string(),
            },
            may_open_modal: false,
        };
        if let Err(e) = self.desktop.act(&action).await {
            end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
            return Ok(Break(partial(
                unknown_or_blocked(&e, "typing the name"),
                done,
            )));
        }
        self.desktop.settle(QUIET, SETTLE_CAP).await;
        let now = self
            .desktop
            .read_text(&handle)
            .await
            .map_err(|e| e.to_string())?;
        if now != text {
            self.keys(dialog, &["Escape"]).await;
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "error": "the field does not show the name" }),
            )
            .await?;
            return Ok(Break(partial(
                ExecOutcome::Blocked { reason: format!("the dialog's field shows \"{now}\", not \"{text}\"; I closed it, nothing was changed") },
                done,
            )));
        }
        Ok(Continue(()))
    }

    /// The file chooser's name field takes the whole path (GTK reads a typed path as the place).
    async fn fill_name(
        &self,
        cx: &RunContext<'_>,
        s: u32,
        chooser: &WindowRef,
        dest: &Path,
        done: &[String],
    ) -> Phase<()> {
        let obs = self
            .desktop
            .observe(chooser, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        let current = obs
            .observation
            .elements
            .iter()
            .filter(|e| e.role == "textbox" && e.has_state("editable"))
            .find(|e| e.has_state("focused"))
            .and_then(|e| e.value.clone());
        self.fill_text(
            cx,
            s,
            chooser,
            &dest.display().to_string(),
            current.as_deref(),
            done,
        )
        .await
    }

    /// Press the dialog's button that the words name (the first of `words` that fits one).
    async fn press(
        &self,
        cx: &RunContext<'_>,
        s: u32,
        dialog: &WindowRef,
        words: &[&str],
        done: &[String],
    ) -> Phase<()> {
        let obs = self
            .desktop
            .observe(dialog, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        let buttons: Vec<&Element> = obs
            .observation
            .elements
            .iter()
            .filter(|e| e.role == "button" && !e.has_state("disabled"))
            .collect();
        let chosen = words
            .iter()
            .find_map(|w| buttons.iter().find(|b| norm(&b.label) == *w));
        let Some(button) = chosen else {
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "error": format!("no button {words:?}") }),
            )
            .await?;
            return Ok(Break(partial(
                ExecOutcome::Blocked {
                    reason: format!(
                        "the dialog \"{}\" has no {} button (it has {}); I left it open",
                        dialog.title,
                        words[0],
                        buttons
                            .iter()
                            .map(|b| b.label.trim())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
                done,
            )));
        };
        let action = DesktopAction {
            window: dialog.clone(),
            revision: obs.revision,
            target: InputTarget::Element(obs.handles[&button.id].clone()),
            act: Act::Activate,
            may_open_modal: false,
        };
        if let Err(e) = self.desktop.act(&action).await {
            end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
            return Ok(Break(partial(
                unknown_or_blocked(&e, &format!("pressing {}", button.label.trim())),
                done,
            )));
        }
        self.desktop.settle(QUIET, SETTLE_CAP).await;
        Ok(Continue(()))
    }

    /// "Close the dialog", or any words: grounded by the Director on the window as observed
    /// (its dialog first), then pressed and checked.
    async fn press_step(
        &self,
        cx: &RunContext<'_>,
        window: &WindowRef,
        step: &Step,
        done: &mut Vec<String>,
    ) -> Phase<()> {
        let obs = self
            .desktop
            .observe(window, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        let target = match step {
            Step::CloseDialog => {
                let Some(d) = &obs.dialog else {
                    return Ok(Break(partial(
                        ExecOutcome::Blocked {
                            reason: format!("{} shows no dialog; nothing was done", window.app),
                        },
                        done,
                    )));
                };
                let dismiss = ["close", "cancel", "ok", "no"];
                let buttons: Vec<&Element> = obs
                    .observation
                    .elements
                    .iter()
                    .filter(|e| {
                        e.role == "button" && e.context == d.title && !e.has_state("disabled")
                    })
                    .collect();
                match dismiss.iter().find_map(|w| buttons.iter().find(|b| norm(&b.label) == *w)) {
                    Some(b) => b.id.clone(),
                    None => {
                        return Ok(Break(partial(
                            ExecOutcome::Blocked {
                                reason: format!("the dialog \"{}\" has no Close or Cancel (it offers {}); say which to press", d.title, dialog_buttons(&obs, &d.title).join(", ")),
                            },
                            done,
                        )))
                    }
                }
            }
            Step::Press { words } => {
                let envelope = crate::director::Envelope::typed("desktop", words);
                let snapshot = crate::director::Snapshot {
                    observation: Some(obs.observation.clone()),
                    ..Default::default()
                };
                match crate::director::decide(
                    &envelope,
                    &snapshot,
                    &crate::director::local::LocalDecider,
                ) {
                    crate::director::Decision::Execute(plan) => match plan.action {
                        crate::director::Action::Click { target } => target,
                        _ => {
                            return Ok(Break(partial(
                                ExecOutcome::Blocked {
                                    reason: format!(
                                        "\"{words}\" is not something I can press in {}",
                                        window.app
                                    ),
                                },
                                done,
                            )))
                        }
                    },
                    crate::director::Decision::Clarify(c) => {
                        let names: Vec<String> = c
                            .candidates
                            .iter()
                            .map(|c| format!("\"{}\"", c.label))
                            .collect();
                        return Ok(Break(partial(
                            ExecOutcome::Blocked {
                                reason: format!(
                                    "\"{words}\" could be {}; say it with the name",
                                    names.join(" or ")
                                ),
                            },
                            done,
                        )));
                    }
                    crate::director::Decision::Reject(r) => {
                        return Ok(Break(partial(
                            ExecOutcome::Blocked {
                                reason: format!("{} ({})", r.message, window.app),
                            },
                            done,
                        )));
                    }
                }
            }
            _ => unreachable!("only presses here"),
        };
        let Some((element, handle)) = obs.element(&target) else {
            return Ok(Break(partial(
                ExecOutcome::Blocked {
                    reason: "the element went away".into(),
                },
                done,
            )));
        };
        let label = element.label.trim().to_string();
        let s = begin(
            cx,
            &format!("press {label}"),
            BTreeMap::from([("target".to_string(), target.clone())]),
            Some(format!("{} revision {}", window.title, obs.revision)),
            true,
        )
        .await?;
        // A label with an ellipsis opens a dialog: press it as a person would (focus, then
        // space) so a modal cannot freeze the connection.
        let opens = label.ends_with('…') || label.ends_with("...");
        let acts: Vec<(InputTarget, Act)> = if opens {
            vec![
                (InputTarget::Element(handle.clone()), Act::Focus),
                (
                    InputTarget::Window(window.clone()),
                    Act::Keys(vec!["space".into()]),
                ),
            ]
        } else {
            vec![(InputTarget::Element(handle.clone()), Act::Activate)]
        };
        for (target, act) in acts {
            let action = DesktopAction {
                window: window.clone(),
                revision: obs.revision,
                target,
                act,
                may_open_modal: opens,
            };
            if let Err(e) = self.desktop.act(&action).await {
                end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
                return Ok(Break(partial(
                    unknown_or_blocked(&e, &format!("pressing {label}")),
                    done,
                )));
            }
        }
        self.desktop.settle(QUIET, SETTLE_CAP).await;
        if matches!(step, Step::CloseDialog) {
            let gone = self.wait_until(window, |o| o.dialog.is_none()).await;
            if !gone {
                end(
                    cx,
                    s,
                    StepResult::Unknown,
                    json!({ "error": "the dialog is still open" }),
                )
                .await?;
                return Ok(Break(partial(
                    ExecOutcome::Unknown {
                        reason: format!("I pressed {label}, but the dialog is still open"),
                    },
                    done,
                )));
            }
            end(
                cx,
                s,
                StepResult::Applied,
                json!({ "pressed": label, "dialogClosed": true }),
            )
            .await?;
            done.push(format!("closed the dialog ({label})"));
        } else {
            end(cx, s, StepResult::Applied, json!({ "pressed": label })).await?;
            done.push(format!("pressed {label}"));
        }
        Ok(Continue(()))
    }

    /// Re-observe until `test` holds (bounded by [`APPEAR`]).
    async fn wait_until(
        &self,
        window: &WindowRef,
        test: impl Fn(&DesktopObservation) -> bool,
    ) -> bool {
        let deadline = Instant::now() + APPEAR;
        while Instant::now() < deadline {
            if let Ok(o) = self.desktop.observe(window, Page::ALL).await {
                if test(&o) {
                    return true;
                }
            }
            self.desktop.settle(QUIET, Duration::from_millis(300)).await;
        }
        false
    }
}

impl DesktopExecutor {
    /// Close the document. With unsaved changes the app asks; the person's words ("without
    /// saving") or their answer to that question (its buttons, put to them as choices) say which
    /// button; the document is closed when no window shows it any more, and saved bytes are read
    /// back.
    #[allow(clippy::too_many_arguments)]
    async fn close_document(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        app: &AppChoice,
        doc: &Document,
        obs: &DesktopObservation,
        save: Option<bool>,
        done: &mut Vec<String>,
    ) -> Phase<()> {
        let name = doc
            .file
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let answer = op.arguments.get("close").cloned();
        let text = self.document_text(obs).await.ok();
        let s = begin(
            cx,
            &Step::Close { save }.describe(),
            BTreeMap::from([("file".to_string(), doc.file.display().to_string())]),
            None,
            true,
        )
        .await?;
        // The app's question may be up already (this operation asked the person about it).
        let mut prompt = self.dialog_of(&doc.window).await;
        if prompt.is_none() {
            let mut closed = false;
            for command in ["close tab", "close", "close window", "close document"] {
                let o = self
                    .desktop
                    .observe(&doc.window, Page::ALL)
                    .await
                    .map_err(|e| e.to_string())?;
                if menu_item(&o, command).is_some() {
                    within!(self.menu_command(cx, s, &doc.window, command, done).await);
                    closed = true;
                    break;
                }
            }
            if !closed {
                within!(self.menu_command(cx, s, &doc.window, "close", done).await);
            }
            let deadline = Instant::now() + APPEAR;
            while Instant::now() < deadline && prompt.is_none() {
                if !self.shows(app, &doc.file).await {
                    end(
                        cx,
                        s,
                        StepResult::Applied,
                        json!({ "closed": doc.file.display().to_string() }),
                    )
                    .await?;
                    done.push(format!("closed {name}"));
                    return Ok(Continue(()));
                }
                prompt = self.dialog_of(&doc.window).await;
                if prompt.is_none() {
                    self.desktop.settle(QUIET, Duration::from_millis(300)).await;
                }
            }
        }
        let Some(prompt) = prompt else {
            end(
                cx,
                s,
                StepResult::Unknown,
                json!({ "error": "the document is still shown" }),
            )
            .await?;
            return Ok(Break(partial(
                ExecOutcome::Unknown {
                    reason: format!(
                        "I asked {} to close {name}, but it still shows it",
                        app.name
                    ),
                },
                done,
            )));
        };
        let pobs = self
            .desktop
            .observe(&prompt, Page::ALL)
            .await
            .map_err(|e| e.to_string())?;
        let buttons: Vec<String> = pobs
            .observation
            .elements
            .iter()
            .filter(|e| {
                e.role == "button" && !e.label.trim().is_empty() && !e.has_state("disabled")
            })
            .map(|e| e.label.trim().to_string())
            .collect();
        let wanted: Vec<String> = match (&answer, save) {
            (Some(a), _) => vec![norm(a)],
            (None, Some(true)) => vec!["save".into()],
            (None, Some(false)) => [
                "don't save",
                "close without saving",
                "discard",
                "do not save",
            ]
            .iter()
            .map(|w| w.to_string())
            .collect(),
            (None, None) => {
                end(
                    cx,
                    s,
                    StepResult::NotApplied,
                    json!({ "asked": prompt.title, "choices": buttons }),
                )
                .await?;
                let said = pobs
                    .observation
                    .elements
                    .iter()
                    .filter(|e| e.role == "text" && !e.label.trim().is_empty())
                    .map(|e| e.label.trim().to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                return Ok(Break(
                    self.ask(
                        op,
                        "close",
                        format!(
                            "{} asks: \"{said}\" Which: {}?",
                            app.name,
                            buttons.join(", ")
                        ),
                        buttons
                            .iter()
                            .map(|b| crate::model::Choice {
                                key: b.clone(),
                                label: b.clone(),
                            })
                            .collect(),
                    ),
                ));
            }
        };
        let words: Vec<&str> = wanted.iter().map(String::as_str).collect();
        within!(self.press(cx, s, &prompt, &words, done).await);
        let pressed_save = words.first() == Some(&"save");
        let cancelled = words.first() == Some(&"cancel");
        self.desktop.settle(QUIET, SETTLE_CAP).await;
        if cancelled {
            end(
                cx,
                s,
                StepResult::NotApplied,
                json!({ "pressed": "Cancel" }),
            )
            .await?;
            return Ok(Break(partial(
                ExecOutcome::Blocked {
                    reason: format!("{name} stays open (you chose Cancel); nothing was changed"),
                },
                done,
            )));
        }
        let deadline = Instant::now() + APPEAR;
        while Instant::now() < deadline && self.shows(app, &doc.file).await {
            self.desktop.settle(QUIET, Duration::from_millis(300)).await;
        }
        if self.shows(app, &doc.file).await {
            end(
                cx,
                s,
                StepResult::Unknown,
                json!({ "error": "the document is still shown" }),
            )
            .await?;
            return Ok(Break(partial(
                ExecOutcome::Unknown {
                    reason: format!(
                        "I answered {}'s question, but it still shows {name}",
                        app.name
                    ),
                },
                done,
            )));
        }
        if pressed_save {
            if let Some(t) = &text {
                if let Err(why) = wait_for_contents(&doc.file, t).await {
                    end(cx, s, StepResult::Unknown, json!({ "error": why })).await?;
                    return Ok(Break(partial(
                        ExecOutcome::Unknown { reason: format!("{name} closed, but the file on disk does not show the saved text: {why}") },
                        done,
                    )));
                }
            }
        }
        end(
            cx,
            s,
            StepResult::Applied,
            json!({ "closed": doc.file.display().to_string(), "saved": pressed_save }),
        )
        .await?;
        done.push(if pressed_save {
            format!("saved and closed {name}")
        } else {
            format!("closed {name} without saving")
        });
        Ok(Continue(()))
    }

    /// Select the text the words quote in the document: its one whole-word occurrence (else
    /// its one occurrence), read back from the app's selection.
    async fn select_text(
        &self,
        cx: &RunContext<'_>,
        doc: &Document,
        obs: &DesktopObservation,
        what: &str,
        done: &mut Vec<String>,
    ) -> Phase<()> {
        let Some(text_id) = super::executor::document(obs) else {
            return Ok(Break(partial(
                ExecOutcome::Blocked {
                    reason: "no text on screen to select in".into(),
                },
                done,
            )));
        };
        let handle = obs.handles[&text_id].clone();
        let buffer = self
            .desktop
            .read_text(&handle)
            .await
            .map_err(|e| e.to_string())?;
        let whole = super::task::replace_words(&buffer, what, what)
            .map(|c| c.edits.iter().map(|e| (e.start, e.end)).collect::<Vec<_>>())
            .unwrap_or_default();
        let ranges = if whole.is_empty() {
            let chars: Vec<char> = buffer.chars().collect();
            let pat: Vec<char> = what.chars().collect();
            (0..chars.len().saturating_sub(pat.len()).saturating_add(1))
                .filter(|&i| {
                    !pat.is_empty()
                        && i + pat.len() <= chars.len()
                        && chars[i..i + pat.len()] == pat[..]
                })
                .map(|i| (i, i + pat.len()))
                .collect::<Vec<_>>()
        } else {
            whole
        };
        let (start, end_at) = match ranges.as_slice() {
            [one] => *one,
            [] => {
                return Ok(Break(partial(
                    ExecOutcome::Blocked {
                        reason: format!("\"{what}\" is not in the document; nothing was selected"),
                    },
                    done,
                )))
            }
            many => {
                return Ok(Break(partial(
                    ExecOutcome::Blocked {
                        reason: format!(
                            "\"{what}\" is in the document {} times; say more of its line",
                            many.len()
                        ),
                    },
                    done,
                )))
            }
        };
        let s = begin(
            cx,
            &format!("select \"{what}\""),
            BTreeMap::from([("range".to_string(), format!("{start}..{end_at}"))]),
            None,
            false,
        )
        .await?;
        let action = DesktopAction {
            window: doc.window.clone(),
            revision: obs.revision,
            target: InputTarget::Element(handle),
            act: Act::SelectText { start, end: end_at },
            may_open_modal: false,
        };
        if let Err(e) = self.desktop.act(&action).await {
            end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
            return Ok(Break(partial(
                unknown_or_blocked(&e, "selecting the text"),
                done,
            )));
        }
        end(
            cx,
            s,
            StepResult::Applied,
            json!({ "selected": [start, end_at] }),
        )
        .await?;
        done.push(format!("selected \"{what}\""));
        Ok(Continue(()))
    }

    /// Choose an option in the list that offers it (a combo box: its options are the menu
    /// items that follow it in the tree). The list is the one the words name (by the label
    /// before it, or its current value), else the only one offering the option; checked by the
    /// list showing the option afterwards.
    async fn choose(
        &self,
        cx: &RunContext<'_>,
        window: &WindowRef,
        obs: &DesktopObservation,
        option: &str,
        field: Option<&str>,
        done: &mut Vec<String>,
    ) -> Phase<()> {
        let els = &obs.observation.elements;
        // Each combo box: its index, its label (the text just before it), its options.
        let mut lists: Vec<(usize, String, Vec<usize>)> = Vec::new();
        for (i, e) in els.iter().enumerate() {
            if e.role != "combobox" {
                continue;
            }
            let label = els[..i]
                .iter()
                .rev()
                .take(3)
                .find(|p| p.role == "text" && !p.label.trim().is_empty())
                .map(|p| p.label.trim().trim_end_matches(':').to_string())
                .unwrap_or_default();
            let options: Vec<usize> = (i + 1..els.len())
                .take_while(|&k| els[k].role == "menuitem")
                .filter(|&k| !els[k].label.trim().is_empty())
                .collect();
            lists.push((i, label, options));
        }
        let want = norm(option);
        let fits = |(i, label, options): &(usize, String, Vec<usize>)| {
            let named = field.is_none_or(|f| {
                let f = norm(f);
                (!label.is_empty() && (norm(label).contains(&f) || f.contains(&norm(label))))
                    || norm(&els[*i].label) == f
            });
            named && options.iter().any(|&k| norm(&els[k].label) == want)
        };
        let pool: Vec<&(usize, String, Vec<usize>)> = lists.iter().filter(|l| fits(l)).collect();
        let (i, label, options) = match pool.as_slice() {
            [one] => *one,
            [] => {
                let shown: Vec<String> = lists
                    .iter()
                    .map(|(i, _, _)| els[*i].label.trim().to_string())
                    .collect();
                return Ok(Break(partial(
                    ExecOutcome::Blocked {
                        reason: format!(
                            "no list {}offers \"{option}\"{}; nothing was changed",
                            field.map(|f| format!("for {f} ")).unwrap_or_default(),
                            if shown.is_empty() {
                                String::new()
                            } else {
                                format!(" (the lists show {})", shown.join(", "))
                            }
                        ),
                    },
                    done,
                )));
            }
            _ => {
                return Ok(Break(partial(
                    ExecOutcome::Blocked {
                        reason: format!("more than one list offers \"{option}\"; say which list"),
                    },
                    done,
                )))
            }
        };
        let Some(&k) = options.iter().find(|&&k| norm(&els[k].label) == want) else {
            return Ok(Break(partial(
                ExecOutcome::Blocked {
                    reason: "the option went away".into(),
                },
                done,
            )));
        };
        let s = begin(
            cx,
            &format!("choose {option}"),
            BTreeMap::from([(
                "list".to_string(),
                if label.is_empty() {
                    els[*i].label.clone()
                } else {
                    label.clone()
                },
            )]),
            Some(format!("{} revision {}", window.title, obs.revision)),
            true,
        )
        .await?;
        let action = DesktopAction {
            window: window.clone(),
            revision: obs.revision,
            target: InputTarget::Element(obs.handles[&els[k].id].clone()),
            act: Act::Choose,
            may_open_modal: false,
        };
        if let Err(e) = self.desktop.act(&action).await {
            end(cx, s, failed_step(&e), json!({ "error": e.to_string() })).await?;
            return Ok(Break(partial(
                unknown_or_blocked(&e, &format!("choosing {option}")),
                done,
            )));
        }
        self.desktop.settle(QUIET, SETTLE_CAP).await;
        let shown = self
            .wait_until(window, |o| {
                o.observation
                    .elements
                    .iter()
                    .any(|e| e.role == "combobox" && norm(&e.label) == want)
            })
            .await;
        if !shown {
            end(
                cx,
                s,
                StepResult::Unknown,
                json!({ "error": "the list does not show it" }),
            )
            .await?;
            return Ok(Break(partial(
                ExecOutcome::Unknown {
                    reason: format!("I chose {option}, but the list does not show it"),
                },
                done,
            )));
        }
        end(cx, s, StepResult::Applied, json!({ "chosen": option })).await?;
        done.push(format!("chose {option}"));
        Ok(Continue(()))
    }

    /// The dialog this window's app shows now, if any.
    async fn dialog_of(&self, window: &WindowRef) -> Option<WindowRef> {
        let windows = self.desktop.windows().await.ok()?;
        windows
            .into_iter()
            .find(|w| w.instance == window.instance && w.kind != "window")
    }

    /// Does any window of the app show this file?
    async fn shows(&self, app: &AppChoice, file: &Path) -> bool {
        self.desktop.windows().await.is_ok_and(|ws| {
            ws.iter().any(|w| {
                app.owns(w)
                    && w.kind == "window"
                    && super::task::title_shows(&w.title, file).is_some()
            })
        })
    }
}

/// Did this operation already do this step (it ran before a question and is resumed now)?
fn already_done(op: &Operation, step: &Step, file_name: &str) -> bool {
    let journal_name = match step {
        Step::Save => format!("save {file_name}"),
        other => other.describe(),
    };
    op.steps
        .iter()
        .any(|s| s.result == Some(StepResult::Applied) && s.action == journal_name)
}

/// One item a file-manager window lists: its name cell, its path, and whether it is selected.
#[derive(Clone, Debug)]
pub struct Item {
    pub id: String,
    pub label: String,
    pub path: PathBuf,
    pub selected: bool,
}

/// The folder a file-manager observation shows: its location bar's path.
fn folder_shown(obs: &DesktopObservation) -> Option<PathBuf> {
    obs.observation
        .elements
        .iter()
        .filter(|e| e.role == "textbox")
        .filter_map(|e| e.value.as_deref())
        .find(|v| v.starts_with('/'))
        .map(|v| PathBuf::from(v.trim_end_matches('/')))
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from("/")
            } else {
                p
            }
        })
}

/// The items listed: cells whose label is an entry of the shown folder on disk.
pub fn items(obs: &DesktopObservation) -> Vec<Item> {
    let Some(folder) = folder_shown(obs) else {
        return Vec::new();
    };
    let mut out: Vec<Item> = Vec::new();
    for e in obs
        .observation
        .elements
        .iter()
        .filter(|e| e.role == "cell" && !e.label.trim().is_empty())
    {
        let path = folder.join(e.label.trim());
        if !path.exists() {
            continue;
        }
        match out.iter_mut().find(|i| i.path == path) {
            Some(i) => i.selected |= e.has_state("selected"),
            None => out.push(Item {
                id: e.id.clone(),
                label: e.label.trim().to_string(),
                path,
                selected: e.has_state("selected"),
            }),
        }
    }
    out
}

/// The menu bar's own items (File, Edit, …): menu items not inside another item's menu (the
/// window's title, which a modified document changes, is not compared).
fn top_menus(obs: &DesktopObservation) -> Vec<&Element> {
    obs.observation
        .elements
        .iter()
        .filter(|e| e.role == "menuitem" && !e.label.trim().is_empty() && !in_menu(obs, e))
        .collect()
}

/// Is this menu item inside a menu (its context is another menu item's label)?
fn in_menu(obs: &DesktopObservation, item: &Element) -> bool {
    obs.observation
        .elements
        .iter()
        .any(|m| m.role == "menuitem" && m.id != item.id && m.label == item.context)
}

/// The menu item a command names: its label without mnemonic and ellipsis equals the words.
fn menu_item<'o>(obs: &'o DesktopObservation, command: &str) -> Option<&'o Element> {
    let want = norm(command);
    obs.observation
        .elements
        .iter()
        .filter(|e| e.role == "menuitem" && in_menu(obs, e))
        .find(|e| norm(&e.label) == want)
}

/// A label as words: lower case, without the mnemonic underscore, the ellipsis and extra space.
fn norm(label: &str) -> String {
    label
        .replace(['_', '…'], "")
        .replace("...", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The buttons of the dialog titled `title`, as a person reads them.
fn dialog_buttons(obs: &DesktopObservation, title: &str) -> Vec<String> {
    obs.observation
        .elements
        .iter()
        .filter(|e| e.role == "button" && e.context == title && !e.label.trim().is_empty())
        .map(|e| e.label.trim().to_string())
        .collect()
}

/// Where "save as NAME (in FOLDER)" puts the file: a path as said; else NAME in FOLDER, where
/// FOLDER is a path, or a folder next to the file, or in the home folder.
fn save_as_path(file: &Path, name: &str, folder: Option<&str>) -> Option<PathBuf> {
    let n = expand_home(name);
    if n.is_absolute() {
        return Some(n);
    }
    let base = file.parent()?;
    let dir = match folder {
        None => base.to_path_buf(),
        Some(f) => {
            let f = expand_home(f);
            if f.is_absolute() {
                f
            } else if base.join(&f).is_dir() {
                base.join(&f)
            } else if let Some(home) = std::env::var_os("HOME") {
                let h = PathBuf::from(home).join(&f);
                if h.is_dir() {
                    h
                } else {
                    base.join(&f)
                }
            } else {
                base.join(&f)
            }
        }
    };
    Some(dir.join(n))
}

fn expand_home(s: &str) -> PathBuf {
    match (s.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(s),
    }
}

fn unknown_or_blocked(e: &super::DesktopError, what: &str) -> ExecOutcome {
    if e.maybe_applied() {
        ExecOutcome::Unknown {
            reason: format!("{what}: {e}"),
        }
    } else {
        ExecOutcome::Blocked {
            reason: format!("{what}: {e}; nothing was changed"),
        }
    }
}

/// An outcome that says what was done before it.
fn partial(outcome: ExecOutcome, done: &[String]) -> ExecOutcome {
    if done.is_empty() {
        return outcome;
    }
    let before = format!("{} before that", sentence(done));
    match outcome {
        ExecOutcome::Blocked { reason } => ExecOutcome::Blocked {
            reason: format!("{reason} ({before})"),
        },
        ExecOutcome::Unknown { reason } => ExecOutcome::Unknown {
            reason: format!("{reason} ({before})"),
        },
        other => other,
    }
}

async fn wait_for(test: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        if test() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Saving takes effect after the call returns: read the file until it holds `text` (bounded).
async fn wait_for_contents(file: &Path, text: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        match std::fs::read_to_string(file) {
            // Some editors (gedit) keep the final newline out of the buffer and add it on save.
            Ok(saved)
                if saved == text || (!text.ends_with('\n') && saved == format!("{text}\n")) =>
            {
                return Ok(())
            }
            Ok(saved) if Instant::now() >= deadline => {
                return Err(format!(
                    "it holds {} characters, not the {} in the editor",
                    saved.chars().count(),
                    text.chars().count()
                ))
            }
            Err(e) if Instant::now() >= deadline => return Err(e.to_string()),
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// A planner run on the desktop: the model plans in words, each step it says is read like a step
/// the person said (`director::desktop`) and carried out on the app's window by the same code,
/// grounded, journalled and verified; the model never sees an element id.
impl DesktopExecutor {
    async fn plan_run(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        app: &AppChoice,
        window: WindowRef,
        goal: &str,
    ) -> Result<ExecOutcome, String> {
        use crate::planner::{provider, Done, Effect, Event, Finish, Loop, StepOutcome};
        let Some(planner) = &self.planner else {
            return Ok(ExecOutcome::Blocked {
                reason: format!(
                    "\"{goal}\" is not a step I can do in {} by itself, and no planner is configured ([planner] url and model in the config); nothing was done",
                    app.name
                ),
            });
        };
        let goal = match op.arguments.get("answer") {
            Some(answer) => format!("{goal} (asked, the person answered: {answer})"),
            None => goal.to_string(),
        };
        // After an answer or an approval, the steps this operation did are the run's history.
        let history: Vec<Done> = op
            .steps
            .iter()
            .filter(|s| s.result == Some(StepResult::Applied))
            .map(|s| Done {
                words: s.action.clone(),
                outcome: StepOutcome::Applied,
                note: s.action.clone(),
                screen: 0,
            })
            .collect();
        let mut run = Loop::resume(&goal, planner.budget, clock::now(), history);
        let mut current: Option<DesktopObservation> = None;
        let mut effect = run.next(Event::Started, clock::now());
        loop {
            let event = match effect {
                Effect::Observe => match self.desktop.observe(&window, Page::default()).await {
                    Ok(obs) => {
                        let screen = fingerprint(&obs);
                        current = Some(obs);
                        Event::Observed { screen }
                    }
                    Err(e) => {
                        return Ok(ExecOutcome::Blocked {
                            reason: format!("{}{e}", done_so_far(run.done())),
                        })
                    }
                },
                Effect::Propose { repair } => {
                    let Some(obs) = current.as_ref() else {
                        return Err("the planner was asked before the window was observed".into());
                    };
                    let prompt = provider::prompt(run.goal(), run.done(), &obs.observation, "");
                    tokio::select! {
                        biased;
                        _ = cx.cancel.cancelled() => Event::Cancelled,
                        r = planner.model.propose(&prompt, repair.as_deref()) => match r {
                            Ok(p) => Event::Proposed(p),
                            Err(e) => Event::ModelFailed { reason: e.to_string() },
                        },
                    }
                }
                Effect::Ground { words, .. } => {
                    if cx.cancel.is_cancelled() || !cx.journal.current().await {
                        Event::Cancelled
                    } else {
                        let step = words::read(&words);
                        let sub = DesktopRequest {
                            app: request_app(app),
                            file: step.file.clone(),
                            steps: step.steps,
                        };
                        let pressed_only =
                            sub.steps.iter().all(|s| matches!(s, Step::Press { .. }));
                        let mut done = Vec::new();
                        let outcome = if sub.steps.is_empty() {
                            ExecOutcome::Blocked {
                                reason: "no step in those words".into(),
                            }
                        } else if let Some(approval) = self.approvals_for(op, &sub, &window).await {
                            return Ok(ExecOutcome::NeedsApproval { approval });
                        } else {
                            match app.kind {
                                AppKind::Editor => match self.document(op, cx, app, &sub).await? {
                                    Continue(doc) => {
                                        self.editor_steps(op, cx, app, doc, &sub, &mut done).await?
                                    }
                                    Break(o) => o,
                                },
                                _ => {
                                    self.window_steps(op, cx, app, window.clone(), &sub, &mut done)
                                        .await?
                                }
                            }
                        };
                        let (outcome, note) = match outcome {
                            ExecOutcome::Completed { summary, .. } => {
                                (StepOutcome::Applied, summary)
                            }
                            ExecOutcome::Blocked { reason } if pressed_only && done.is_empty() => {
                                (StepOutcome::NotGrounded, reason)
                            }
                            ExecOutcome::Blocked { reason } => (StepOutcome::Blocked, reason),
                            ExecOutcome::Unknown { reason } => (StepOutcome::Unknown, reason),
                            ExecOutcome::Stopped => (StepOutcome::Blocked, "stopped".to_string()),
                            ExecOutcome::NeedsApproval { approval } => {
                                return Ok(ExecOutcome::NeedsApproval { approval })
                            }
                            ExecOutcome::NeedsInput { question } => {
                                return Ok(ExecOutcome::NeedsInput { question })
                            }
                        };
                        Event::Stepped { outcome, note }
                    }
                }
                Effect::Ask { question } => {
                    return Ok(self.ask(op, "answer", question, Vec::new()));
                }
                Effect::Finish(finish) => {
                    let steps: Vec<&str> = run.done().iter().map(|d| d.words.as_str()).collect();
                    let data = json!({ "app": app.name, "planner": { "steps": steps, "calls": run.calls() } });
                    return Ok(match finish {
                        Finish::Answered { text, .. } => ExecOutcome::Completed {
                            summary: text,
                            data,
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

    /// The approval a planned step needs before it runs, if any.
    async fn approvals_for(
        &self,
        op: &Operation,
        sub: &DesktopRequest,
        window: &WindowRef,
    ) -> Option<crate::model::Approval> {
        let folder = self.folder_of(window).await;
        let file = super::task::editor_title(&window.title)
            .map(|(p, _)| PathBuf::from(p))
            .filter(|p| p.is_absolute());
        match self.approvals(op, sub, file.as_deref(), folder.as_deref()) {
            Ok(Break(ExecOutcome::NeedsApproval { approval })) => Some(approval),
            _ => None,
        }
    }
}

/// A request only of words that name no step and that the Director does not ground as one
/// press on the window: a task for the planner.
impl DesktopExecutor {
    async fn needs_planner(&self, window: &WindowRef, request: &DesktopRequest) -> bool {
        let [Step::Press { words }, ..] = request.steps.as_slice() else {
            return false;
        };
        if !request
            .steps
            .iter()
            .all(|s| matches!(s, Step::Press { .. }))
        {
            return false;
        }
        let Ok(obs) = self.desktop.observe(window, Page::default()).await else {
            return false;
        };
        let envelope = crate::director::Envelope::typed("desktop", words);
        let snapshot = crate::director::Snapshot {
            observation: Some(obs.observation),
            ..Default::default()
        };
        !matches!(
            crate::director::decide(&envelope, &snapshot, &crate::director::local::LocalDecider),
            crate::director::Decision::Execute(crate::director::Plan {
                action: crate::director::Action::Click { .. },
                ..
            })
        )
    }
}

/// The goal for the planner: the request without the words that only name the app.
fn goal_words(text: &str) -> String {
    let r = words::read(text);
    let steps: Vec<String> = r.steps.iter().map(Step::describe).collect();
    if steps.is_empty() {
        text.trim().to_string()
    } else {
        steps.join(", then ")
    }
}

/// The words that name this app again, for a planned step read on its own.
fn request_app(app: &AppChoice) -> AppWords {
    match app.kind {
        AppKind::Editor => AppWords::Editor,
        AppKind::FileManager => AppWords::FileManager,
        AppKind::Other => AppWords::Named(app.name.clone()),
    }
}

fn fingerprint(obs: &DesktopObservation) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    obs.observation.title.hash(&mut h);
    for e in &obs.observation.elements {
        (&e.role, &e.label, &e.value, &e.states).hash(&mut h);
    }
    h.finish()
}

/// "Done: create the folder Q3 (Created the folder Q3.). " for the steps that applied.
fn done_so_far(done: &[crate::planner::Done]) -> String {
    let applied: Vec<String> = done
        .iter()
        .filter(|d| d.outcome == crate::planner::StepOutcome::Applied)
        .map(|d| d.words.clone())
        .collect();
    if applied.is_empty() {
        String::new()
    } else {
        format!("Done: {}. ", applied.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_as_goes_next_to_the_file_or_where_said() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("Archive")).unwrap();
        let file = dir.path().join("notes.md");
        assert_eq!(
            save_as_path(&file, "final.md", None),
            Some(dir.path().join("final.md"))
        );
        assert_eq!(
            save_as_path(&file, "final.md", Some("Archive")),
            Some(dir.path().join("Archive/final.md"))
        );
        assert_eq!(
            save_as_path(&file, "/tmp/x.md", Some("Archive")),
            Some(PathBuf::from("/tmp/x.md"))
        );
    }

    #[test]
    fn labels_compare_as_words() {
        assert_eq!(norm("_Save As…"), "save as");
        assert_eq!(norm("Rename..."), "rename");
        assert_eq!(norm("  Create  Folder... "), "create folder");
    }
}

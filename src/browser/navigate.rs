//! The browser executor's navigation steps: open a site or an address (its search page for
//! "search <site> for …"), open a new tab, switch to, close or reload a tab, through the
//! extension's `chrome.tabs` actions, each verified by what the tab shows afterwards.
//!
//! A step here is like a click: the tabs Chrome reports are listed and stored first (the closed
//! choice the step is grounded in), the action is journalled before it is sent, and its result is
//! what the tab showed (`navigation::opened`, `switched`, `reloaded`), never "the call returned".
//! Architecture invariant: a tab acted on is one the extension listed (its id from `tabs`); an
//! address is one the site table built from the person's words, or an address they said.

use super::bridge::{Bridge, BridgeError};
use super::executor::{error_result, plain, sentence, target_slot};
use super::navigation::{self as nav, Open, Page, Sites, Tab, TabChoice, Verdict};
use crate::clock;
use crate::director::navigation::{Nav, Which};
use crate::executor::{begin, blocked, end, observed, ExecOutcome, RunContext};
use crate::interaction::QUESTION_TTL_MS;
use crate::model::{
    BrowserTarget, Choice, Element, Observation, Operation, Question, QuestionKind, StepResult,
    Target, TargetRef,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// The step that lists the open tabs (a navigation step's observation).
pub const LIST_TABS: &str = "list the open tabs";
const TABS_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the extension waits to see the navigation start, then for the page to load.
const SEEN_MS: u64 = 5_000;
const LOAD_MS: u64 = 10_000;
/// The whole action's round trip: seen, loaded, and room for the answer.
const NAV_TIMEOUT: Duration = Duration::from_secs(20);

/// What a navigation step came to.
pub enum Step {
    /// Done and verified: what was done, in words, and what the tab in front shows now.
    Done {
        says: String,
        title: String,
        url: String,
    },
    /// The run ends with this outcome.
    End(ExecOutcome),
    /// The words are not a navigation after all: ground them on the page, as any request.
    Ground(Option<Refusal>),
}

/// What to say when the page does not take words that looked like navigation.
pub struct Refusal {
    pub reason: String,
    pub unless: Unless,
}

pub enum Unless {
    /// "search the shop for desks": the page is grounded as usual when it mentions the name
    /// (the Director's outcome stands); otherwise the reason is the outcome, before grounding.
    PageMentions(String),
    /// "switch to the Settings tab" with no such browser tab: an in-page tab may be meant. Only
    /// a page with tabs is grounded, and only a grounded action goes ahead.
    PageHasTabsAndActs,
}

impl Refusal {
    /// Whether the page may be grounded at all.
    pub fn grounds_on(&self, observation: &Observation, raw: &Value) -> bool {
        match &self.unless {
            Unless::PageMentions(name) => mentions(observation, raw, name),
            Unless::PageHasTabsAndActs => observation.elements.iter().any(|e| e.role == "tab"),
        }
    }

    /// Whether only an action grounded on the page may go ahead (anything else is the reason).
    pub fn strict(&self) -> bool {
        matches!(self.unless, Unless::PageHasTabsAndActs)
    }
}

/// Every word of `name` (but "the") appears on the page: its title, address, elements or text.
fn mentions(observation: &Observation, raw: &Value, name: &str) -> bool {
    use crate::director::text::tokens;
    let mut seen = String::new();
    seen.push_str(&observation.title);
    seen.push(' ');
    seen.push_str(&observation.url);
    for e in &observation.elements {
        seen.push(' ');
        seen.push_str(&e.label);
        seen.push(' ');
        seen.push_str(&e.context);
    }
    if let Some(text) = raw.get("text").and_then(Value::as_str) {
        seen.push(' ');
        seen.push_str(text);
    }
    let seen: Vec<String> = tokens(&seen).into_iter().map(|t| t.stem).collect();
    let said: Vec<String> = tokens(name)
        .into_iter()
        .filter(|t| t.norm != "the")
        .map(|t| t.stem)
        .collect();
    !said.is_empty() && said.iter().all(|w| seen.contains(w))
}

/// What a navigation step needs of the executor.
pub struct Navigator<'a> {
    pub bridge: &'a Bridge,
    pub sites: &'a Sites,
    pub node: &'a str,
}

/// Where a page goes, resolved before anything is listed or done.
struct Destination {
    url: String,
    says: String,
}

impl Navigator<'_> {
    /// One navigation step of `op` (step `k` of the request; `first`: the run's first step, whose
    /// tab becomes the operation's target; `chosen`: the tab the person picked when asked).
    #[allow(clippy::too_many_arguments)]
    pub async fn step(
        &self,
        op: &Operation,
        cx: &RunContext<'_>,
        request: &Nav,
        k: usize,
        first: bool,
        chosen: Option<&str>,
        said: &[String],
    ) -> Result<Step, String> {
        // An element picked after a question about the page: this step was grounded, not navigated.
        if chosen.is_some_and(|c| !c.starts_with("tab:")) {
            return Ok(Step::Ground(None));
        }
        // Where an open or a search goes; words that name no site are grounded on the page.
        let destination = match request {
            Nav::Open { name, .. } => match self.sites.find(name) {
                Some(site) => Destination {
                    url: site.home.clone(),
                    says: format!("opened {}", site.name),
                },
                None => match nav::address(name) {
                    Some(url) => Destination {
                        says: format!("opened {url}"),
                        url,
                    },
                    None => return Ok(Step::Ground(None)),
                },
            },
            Nav::Search {
                name,
                query,
                named_first,
                ..
            } => match self.sites.find(name) {
                Some(site) => match site.search_url(query) {
                    Some(url) => Destination {
                        url,
                        says: format!("searched {} for \"{query}\"", site.name),
                    },
                    None => {
                        return Ok(Step::End(ExecOutcome::Blocked {
                            reason: format!(
                                "Circe knows no search page for {0} (add `search` to its [[browser.sites]] entry); say \"open {0}\" to open its home page. Nothing was done",
                                site.name
                            ),
                        }))
                    }
                },
                None if *named_first => {
                    return Ok(Step::Ground(Some(Refusal {
                        reason: format!(
                            "Circe knows no site called \"{name}\" to search (it knows {}; more can be added under [[browser.sites]] in the config), and this page does not mention it. Nothing was done",
                            self.sites.names()
                        ),
                        unless: Unless::PageMentions(name.clone()),
                    })))
                }
                None => return Ok(Step::Ground(None)),
            },
            _ => Destination {
                url: String::new(),
                says: String::new(),
            },
        };

        let (tabs, seen) = match self.list(cx, first).await? {
            Ok(listed) => listed,
            Err(outcome) => return Ok(Step::End(outcome)),
        };
        let front = tabs
            .iter()
            .find(|t| t.current)
            .or_else(|| tabs.iter().find(|t| t.active));
        match request {
            Nav::Open { tab, .. } | Nav::Search { tab, .. } => {
                let Some(front) = front else {
                    return Ok(Step::End(no_window()));
                };
                let open = nav::placement(*tab, Some(&front.url), &destination.url);
                let new_tab = open == Open::NewTab;
                let says = if new_tab {
                    format!("{} in a new tab", destination.says)
                } else {
                    destination.says
                };
                let args = json!({ "action": "open", "tabId": front.tab_id, "url": destination.url,
                                   "newTab": new_tab, "observe": false, "timeoutMs": SEEN_MS, "loadMs": LOAD_MS });
                self.act(cx, front, args, &says, false, &seen, |reply| {
                    let page = page_of(reply);
                    (nav::opened(&destination.url, applied(reply), &page), page)
                })
                .await
            }
            Nav::NewTab => {
                let Some(front) = front else {
                    return Ok(Step::End(no_window()));
                };
                let args = json!({ "action": "open", "tabId": front.tab_id, "newTab": true, "observe": false, "timeoutMs": SEEN_MS });
                self.act(cx, front, args, "opened a new tab", false, &seen, |reply| {
                    let page = page_of(reply);
                    let verdict = if applied(reply) && page.exists && page.active {
                        Verdict::Shown { note: None }
                    } else {
                        Verdict::Unknown("the new tab was not seen in front in time".into())
                    };
                    (verdict, page)
                })
                .await
            }
            Nav::Switch { words } => {
                let tab = match self.which(op, &tabs, words, k, chosen, said)? {
                    Ok(tab) => tab,
                    Err(Step::Ground(_)) => {
                        return Ok(Step::Ground(Some(Refusal {
                            reason: nothing_matches(words, &tabs),
                            unless: Unless::PageHasTabsAndActs,
                        })))
                    }
                    Err(step) => return Ok(step),
                };
                let args = json!({ "action": "switchTab", "tabId": tab.tab_id, "observe": false });
                let says = format!("switched to the tab \"{}\"", tab.label());
                self.act(cx, tab, args, &says, false, &seen, |reply| {
                    let page = page_of(reply);
                    (nav::switched(tab, applied(reply), &page), page)
                })
                .await
            }
            Nav::Close(which) | Nav::Reload(which) => {
                let closing = matches!(request, Nav::Close(_));
                let tab = match which {
                    Which::This => match front {
                        Some(t) => t,
                        None => return Ok(Step::End(no_window())),
                    },
                    Which::Named(words) => match self.which(op, &tabs, words, k, chosen, said)? {
                        Ok(tab) => tab,
                        Err(Step::Ground(_)) => {
                            return Ok(Step::End(ExecOutcome::Blocked {
                                reason: nothing_matches(words, &tabs),
                            }))
                        }
                        Err(step) => return Ok(step),
                    },
                };
                if closing {
                    let args = json!({ "action": "close", "tabId": tab.tab_id });
                    let says = format!("closed the tab \"{}\"", tab.label());
                    self.act(cx, tab, args, &says, true, &seen, |reply| {
                        let ev = reply.get("evidence").cloned().unwrap_or(Value::Null);
                        let verdict = if ev.get("reason").and_then(Value::as_str) == Some("last_tab") {
                            Verdict::Failed("it is the only open tab, and closing it would close Chrome (and Circe's connection with it)".into())
                        } else if applied(reply) && ev.get("closed") == Some(&Value::Bool(true)) {
                            Verdict::Shown { note: None }
                        } else {
                            Verdict::Unknown("the tab was not seen gone in time".into())
                        };
                        let front = ev.get("front").cloned().unwrap_or(Value::Null);
                        let page = Page {
                            exists: true,
                            url: front.get("url").map(plain).unwrap_or_default(),
                            title: front.get("title").map(plain).unwrap_or_default(),
                            ..Page::default()
                        };
                        (verdict, page)
                    })
                    .await
                } else {
                    let args = json!({ "action": "reload", "tabId": tab.tab_id, "observe": false,
                                       "timeoutMs": SEEN_MS, "loadMs": LOAD_MS });
                    let says = format!("reloaded the tab \"{}\"", tab.label());
                    self.act(cx, tab, args, &says, true, &seen, |reply| {
                        let page = page_of(reply);
                        let fresh =
                            reply.pointer("/evidence/newDocument") == Some(&Value::Bool(true));
                        (nav::reloaded(tab, fresh, &page), page)
                    })
                    .await
                }
            }
        }
    }

    /// The open tabs, journalled as an observation (each tab an element: its title, its address
    /// as context), and that observation's id.
    async fn list(
        &self,
        cx: &RunContext<'_>,
        first: bool,
    ) -> Result<Result<(Vec<Tab>, String), ExecOutcome>, String> {
        let step = begin(cx, LIST_TABS, BTreeMap::new(), None, false).await?;
        let raw = match self.bridge.command("tabs", json!({}), TABS_TIMEOUT).await {
            Ok(v) => v,
            Err(e) => return Ok(Err(blocked(cx, step, e.to_string()).await?)),
        };
        let tabs: Vec<Tab> =
            match serde_json::from_value(raw.get("tabs").cloned().unwrap_or(Value::Null)) {
                Ok(t) => t,
                Err(e) => {
                    return Ok(Err(blocked(
                        cx,
                        step,
                        format!("the open tabs could not be read ({e})"),
                    )
                    .await?))
                }
            };
        let front = tabs.iter().find(|t| t.current);
        let observation = Observation {
            app: "Chrome".into(),
            title: "Open tabs".into(),
            url: front.map(|t| t.url.clone()).unwrap_or_default(),
            elements: tabs
                .iter()
                .map(|t| Element {
                    id: format!("tab:{}", t.tab_id),
                    role: "tab".into(),
                    label: t.title.clone(),
                    context: t.url.clone(),
                    states: if t.current {
                        vec!["selected".into()]
                    } else {
                        Vec::new()
                    },
                    ..Element::default()
                })
                .collect(),
            ..Observation::default()
        };
        let target = first.then(|| {
            Target::Browser(BrowserTarget {
                target: TargetRef {
                    node: self.node.to_string(),
                    desktop_session: None,
                    application: "chrome".into(),
                },
                connector_profile: self
                    .bridge
                    .info()
                    .profile
                    .map_or_else(|| "unknown".to_string(), |p| p.label),
                window: front.map(|t| t.window_id),
                tab: front.map(|t| t.tab_id),
            })
        });
        let evidence = json!({
            "tabs": tabs.len(),
            "front": front.map(|t| json!({ "tab": t.tab_id, "title": clip(&t.title), "url": clip(&t.url) })),
        });
        let id = observed(
            cx,
            step,
            evidence,
            serde_json::to_value(&observation).map_err(|e| e.to_string())?,
            target,
        )
        .await?;
        Ok(Ok((tabs, id)))
    }

    /// The tab `words` name among `tabs` (or the one the person chose): a question when several
    /// fit as well, `Err(Step::Ground(None))` when none does.
    fn which<'t>(
        &self,
        op: &Operation,
        tabs: &'t [Tab],
        words: &str,
        k: usize,
        chosen: Option<&str>,
        said: &[String],
    ) -> Result<Result<&'t Tab, Step>, String> {
        if let Some(chosen) = chosen.and_then(|c| c.strip_prefix("tab:")) {
            return Ok(match tabs.iter().find(|t| t.tab_id.to_string() == chosen) {
                Some(t) => Ok(t),
                None => Err(Step::End(ExecOutcome::Blocked {
                    reason: "the tab you chose is no longer open; nothing was done".into(),
                })),
            });
        }
        Ok(match nav::choose_tab(tabs, words, self.sites) {
            TabChoice::One(i) => Ok(&tabs[i]),
            TabChoice::Nothing => Err(Step::Ground(None)),
            TabChoice::Several(is) => {
                let question = format!("Which tab do you mean by \"{words}\"?");
                let prompt = if said.is_empty() {
                    question
                } else {
                    format!("{}. {question}", sentence(said))
                };
                Err(Step::End(ExecOutcome::NeedsInput {
                    question: Question {
                        kind: QuestionKind::Choice,
                        slot: target_slot(k),
                        prompt,
                        known_arguments: op.arguments.clone(),
                        choices: is
                            .iter()
                            .map(|&i| Choice {
                                key: format!("tab:{}", tabs[i].tab_id),
                                label: tabs[i].label(),
                            })
                            .collect(),
                        owner: self.node.to_string(),
                        expires_at: clock::now() + QUESTION_TTL_MS,
                    },
                }))
            }
        })
    }

    /// Journal the action, send it, and end the step with what the tab showed (`judge`).
    #[allow(clippy::too_many_arguments)]
    async fn act(
        &self,
        cx: &RunContext<'_>,
        tab: &Tab,
        args: Value,
        says: &str,
        irreversible: bool,
        seen: &str,
        judge: impl FnOnce(&Value) -> (Verdict, Page),
    ) -> Result<Step, String> {
        // Cancelled, or superseded (a correction or a cancel moved the interaction on).
        if cx.cancel.is_cancelled() || !cx.journal.current().await {
            return Ok(Step::End(ExecOutcome::Stopped));
        }
        let handle = self.bridge.tab_handle(tab.tab_id);
        if let Err(problem) = self.bridge.check(&handle) {
            return Ok(Step::End(ExecOutcome::Blocked {
                reason: format!("{problem}; nothing was done"),
            }));
        }
        let arguments: BTreeMap<String, String> = args
            .as_object()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| matches!(k.as_str(), "action" | "tabId" | "url" | "newTab"))
                    .map(|(k, v)| (k.clone(), plain(v)))
                    .collect()
            })
            .unwrap_or_default();
        let step = begin(cx, says, arguments, Some(seen.to_string()), irreversible).await?;
        let reply = tokio::select! {
            biased;
            _ = cx.cancel.cancelled() => {
                end(cx, step, StepResult::Unknown, json!({ "stopped": "during the action" })).await?;
                return Ok(Step::End(ExecOutcome::Stopped));
            }
            r = self.bridge.command("act", args, NAV_TIMEOUT) => r,
        };
        let reply = match reply {
            Ok(v) => v,
            Err(e) => return self.failed(cx, step, says, &e).await,
        };
        let (verdict, page) = judge(&reply);
        let mut evidence = reply.get("evidence").cloned().unwrap_or(Value::Null);
        // The extension did nothing (e.g. the last tab is not closed): not done, said as such.
        let refused = reply.get("result").and_then(Value::as_str) == Some("notApplied");
        let (result, step_says) = match &verdict {
            Verdict::Shown { note } => (StepResult::Applied, note.clone()),
            Verdict::Failed(r) if refused => (StepResult::NotApplied, Some(r.clone())),
            Verdict::Failed(r) => (StepResult::Blocked, Some(r.clone())),
            Verdict::Unknown(r) => (StepResult::Unknown, Some(r.clone())),
        };
        if let (Some(o), Some(s)) = (evidence.as_object_mut(), step_says) {
            o.insert("verdict".into(), Value::String(s));
        }
        end(cx, step, result, evidence).await?;
        Ok(match verdict {
            Verdict::Shown { note } => Step::Done {
                says: match note {
                    Some(n) => format!("{says} ({n})"),
                    None => says.to_string(),
                },
                title: page.title,
                url: page.url,
            },
            Verdict::Failed(r) if refused => Step::End(ExecOutcome::Blocked {
                reason: format!("Not done: {r}"),
            }),
            Verdict::Failed(r) => Step::End(ExecOutcome::Blocked {
                reason: format!("{}, but {r}", capital(says)),
            }),
            Verdict::Unknown(r) => Step::End(ExecOutcome::Unknown {
                reason: format!("{says}: whether it took effect is unknown ({r})"),
            }),
        })
    }

    async fn failed(
        &self,
        cx: &RunContext<'_>,
        step: u32,
        says: &str,
        e: &BridgeError,
    ) -> Result<Step, String> {
        let result = error_result(e);
        end(cx, step, result, json!({ "error": e.to_string() })).await?;
        Ok(Step::End(if result == StepResult::NotApplied {
            ExecOutcome::Blocked {
                reason: format!("Not done: {e}."),
            }
        } else {
            ExecOutcome::Unknown {
                reason: format!("{says}: whether it took effect is unknown ({e})"),
            }
        }))
    }
}

fn applied(reply: &Value) -> bool {
    reply.get("result").and_then(Value::as_str) == Some("applied")
}

fn page_of(reply: &Value) -> Page {
    reply
        .pointer("/evidence/page")
        .cloned()
        .and_then(|p| serde_json::from_value(p).ok())
        .unwrap_or_default()
}

fn no_window() -> ExecOutcome {
    ExecOutcome::Blocked {
        reason: "Chrome has no open tab to start from; nothing was done".into(),
    }
}

/// "No open tab matches …", naming the open tabs (a few).
fn nothing_matches(words: &str, tabs: &[Tab]) -> String {
    let names: Vec<String> = tabs
        .iter()
        .take(6)
        .map(|t| format!("\"{}\"", t.label()))
        .collect();
    let more = if tabs.len() > 6 {
        format!(" and {} more", tabs.len() - 6)
    } else {
        String::new()
    };
    format!(
        "No open tab matches \"{words}\" (open: {}{more}); nothing was done",
        names.join(", ")
    )
}

/// A title or address short enough for a step's evidence.
fn clip(s: &str) -> String {
    const MAX: usize = 300;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        s.chars().take(MAX).collect::<String>() + "…"
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

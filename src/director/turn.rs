//! Turns that route work to a project, task, provider or model: the Jarvis
//! invariants of seed 002.
//!
//! Authority comes from real catalogs only. A spoken name that merely sounds
//! like a project is a candidate to ask about, never a route. Ambient focus
//! may fill a missing route; it may never settle an explicit but uncertain
//! one. A span consumed as a route leaves the objective; literal terms
//! ("branch Zivil") stay. Typed input is never phonetically corrected.

use super::text::{self, Token};
use super::types::{
    Action, Alias, Candidate, Clarification, Confirmation, Decision, EntityRef, Envelope, Evidence,
    InputMode, MatchKind, Plan, Project, ProjectRef, RejectReason, Rejection, Route, Slot,
    Snapshot, Source, SpanRole,
};

/// Words after which a name is literal task content, never a route.
const LITERAL_MARKERS: &[&str] = &[
    "branch",
    "file",
    "symbol",
    "ticket",
    "issue",
    "commit",
    "tag",
    "function",
    "class",
    "method",
    "module",
    "pr",
    "folder",
    "directory",
    "test",
    "variable",
    "crate",
    "package",
];

/// Words that are never a project name when spoken.
const PLAIN_WORDS: &[&str] = &[
    "i", "need", "you", "to", "check", "out", "the", "a", "an", "in", "on", "for", "and", "of",
    "please", "project", "can", "could", "would", "fix", "run", "open", "make", "add", "it",
    "this", "that", "with", "my", "me", "git", "checkout", "want", "let", "s", "go", "look", "at",
    "tests", "build",
];

/// Edit similarity at which a spoken word becomes a project candidate.
const CANDIDATE_SIMILARITY: f32 = 0.55;

/// One grounded mention of a catalog entity in the utterance.
#[derive(Debug, Clone, PartialEq)]
struct Mention {
    tokens: std::ops::Range<usize>,
    /// Include the preposition that introduced it ("in Rivvl").
    cut: std::ops::Range<usize>,
    entity: EntityRef,
    kind: MatchKind,
    confirmation: Confirmation,
}

pub fn decide_turn(envelope: &Envelope, snapshot: &Snapshot) -> Decision {
    let catalogs = &snapshot.catalogs;
    if !catalogs.loaded {
        return Decision::Reject(Rejection {
            reason: RejectReason::NothingFits,
            message:
                "The catalogs have not loaded yet; queue the envelope and ground it at dequeue."
                    .into(),
        });
    }
    let source = envelope.text.as_str();
    let tokens = text::tokens(source);
    if tokens.is_empty() {
        return Decision::Reject(Rejection {
            reason: RejectReason::Empty,
            message: "Nothing was said.".into(),
        });
    }
    let literal = literal_positions(&tokens);
    let mut mentions: Vec<Mention> = Vec::new();

    // Exact names and confirmed aliases are routes.
    for project in &catalogs.projects {
        if let Some(range) = find_name(&tokens, &project.name, &literal) {
            mentions.push(project_mention(
                &tokens,
                range,
                project,
                MatchKind::Exact,
                Confirmation::Unconfirmed,
            ));
        }
    }
    if envelope.mode == InputMode::Voice {
        for alias in &snapshot.aliases {
            let EntityRef::Project(pref) = &alias.entity else {
                continue;
            };
            let Some(project) = catalogs
                .projects
                .iter()
                .find(|p| p.node == pref.node && p.id == pref.project)
            else {
                continue;
            };
            if let Some(range) = find_name(&tokens, &alias.heard, &literal) {
                if !mentions.iter().any(|m| m.tokens == range) {
                    mentions.push(project_mention(
                        &tokens,
                        range,
                        project,
                        MatchKind::Alias,
                        Confirmation::Alias,
                    ));
                }
            }
        }
    }
    // Providers and models named exactly route the turn too.
    let mut provider = None;
    let mut model = None;
    let named = catalogs
        .providers
        .iter()
        .map(|p| {
            let entity = EntityRef::Provider {
                node: p.node.clone(),
                id: p.id.clone(),
            };
            (p.name.as_str(), entity)
        })
        .chain(catalogs.models.iter().map(|m| {
            let entity = EntityRef::Model {
                provider: m.provider.clone(),
                id: m.id.clone(),
            };
            (m.name.as_str(), entity)
        }));
    for (name, entity) in named {
        let Some(range) = find_name(&tokens, name, &literal) else {
            continue;
        };
        match &entity {
            EntityRef::Provider { id, .. } => provider = Some(id.clone()),
            EntityRef::Model { id, .. } => model = Some(id.clone()),
            _ => {}
        }
        mentions.push(mention(
            &tokens,
            range,
            entity,
            MatchKind::Exact,
            Confirmation::Unconfirmed,
        ));
    }

    let projects: Vec<&Mention> = mentions
        .iter()
        .filter(|m| matches!(m.entity, EntityRef::Project(_)))
        .collect();
    // One spoken name, several projects of that name (on different nodes).
    if projects.len() > 1 {
        let candidates = projects
            .iter()
            .filter_map(|m| match &m.entity {
                EntityRef::Project(r) => Some(r.clone()),
                _ => None,
            })
            .collect::<Vec<_>>();
        return clarify_projects(envelope, snapshot, &candidates);
    }

    let mut route = Route {
        provider,
        model,
        ..Route::default()
    };
    let mut continuation = false;
    let mut evidence: Vec<Evidence> = Vec::new();
    if let Some(m) = projects.first() {
        if let EntityRef::Project(r) = &m.entity {
            route.project = Some(r.clone());
        }
    } else if let Some(task) = &snapshot.continuation {
        // Explicit continuation keeps the current task; the words stay literal.
        route.project = Some(task.project.clone());
        route.task = Some(task.clone());
        continuation = true;
        evidence.push(Evidence {
            heard: String::new(),
            role: SpanRole::Task,
            entity: Some(EntityRef::Task(task.clone())),
            kind: MatchKind::Continuation,
            confirmation: Confirmation::Explicit,
        });
    } else {
        // A spoken word that sounds like a project is a question, not a route,
        // even when ambient focus points somewhere.
        if envelope.mode == InputMode::Voice {
            let candidates = sound_alike(&tokens, &literal, &catalogs.projects);
            if !candidates.is_empty() {
                return clarify_projects(envelope, snapshot, &candidates);
            }
        }
        if let Some(task) = &snapshot.focus.task {
            route.project = Some(task.project.clone());
            route.task = Some(task.clone());
        } else if let Some(project) = &snapshot.focus.project {
            route.project = Some(project.clone());
        }
        if route.project.is_some() {
            evidence.push(Evidence {
                heard: String::new(),
                role: if route.task.is_some() {
                    SpanRole::Task
                } else {
                    SpanRole::Project
                },
                entity: route
                    .task
                    .clone()
                    .map(EntityRef::Task)
                    .or(route.project.clone().map(EntityRef::Project)),
                kind: MatchKind::Ambient,
                confirmation: Confirmation::Ambient,
            });
        } else {
            let all: Vec<ProjectRef> = catalogs
                .projects
                .iter()
                .map(|p| ProjectRef {
                    node: p.node.clone(),
                    project: p.id.clone(),
                })
                .collect();
            if all.is_empty() {
                return Decision::Reject(Rejection {
                    reason: RejectReason::NothingFits,
                    message: "There is no project to send this to.".into(),
                });
            }
            return clarify_projects(envelope, snapshot, &all);
        }
    }

    for m in &mentions {
        evidence.push(Evidence {
            heard: slice(source, &tokens, &m.tokens).to_string(),
            role: match m.entity {
                EntityRef::Project(_) => SpanRole::Project,
                EntityRef::Provider { .. } => SpanRole::Provider,
                EntityRef::Model { .. } => SpanRole::Model,
                _ => SpanRole::Target,
            },
            entity: Some(m.entity.clone()),
            kind: m.kind,
            confirmation: m.confirmation,
        });
    }
    let cuts: Vec<std::ops::Range<usize>> = mentions.iter().map(|m| m.cut.clone()).collect();
    Decision::Execute(Plan {
        action: Action::Dispatch,
        route,
        continuation,
        objective: compile_objective(source, &tokens, &cuts, "this project"),
        evidence,
        source: Source::of(envelope),
        resumes: None,
        learned: Vec::new(),
        confidence: 1.0,
        steps: Vec::new(),
    })
}

/// Whether the words name a catalog project: exactly (unless as literal content, "branch
/// Rivvl"), or, for spoken words only, by a confirmed alias or a sound-alike. Only such a turn
/// routes work: a caller asks [`decide_turn`] about it, and reads any other turn as something
/// else (so a request that names no project is never asked "which project?").
pub fn names_project(envelope: &Envelope, snapshot: &Snapshot) -> bool {
    let catalogs = &snapshot.catalogs;
    if !catalogs.loaded || catalogs.projects.is_empty() {
        return false;
    }
    let tokens = text::tokens(&envelope.text);
    let literal = literal_positions(&tokens);
    if catalogs
        .projects
        .iter()
        .any(|p| find_name(&tokens, &p.name, &literal).is_some())
    {
        return true;
    }
    if envelope.mode != InputMode::Voice {
        return false;
    }
    let known = |r: &ProjectRef| {
        catalogs
            .projects
            .iter()
            .any(|p| p.node == r.node && p.id == r.project)
    };
    let alias = snapshot.aliases.iter().any(|a| {
        matches!(&a.entity, EntityRef::Project(r) if known(r))
            && find_name(&tokens, &a.heard, &literal).is_some()
    });
    alias || !sound_alike(&tokens, &literal, &catalogs.projects).is_empty()
}

/// Resumes a request after the user picked a project: the same request,
/// once, with the heard span replaced and its pronunciation learned.
pub fn resume_with_project(
    original: &Envelope,
    snapshot: &Snapshot,
    chosen: &ProjectRef,
) -> Decision {
    let source = original.text.as_str();
    let tokens = text::tokens(source);
    let literal = literal_positions(&tokens);
    let Some(project) = snapshot
        .catalogs
        .projects
        .iter()
        .find(|p| p.node == chosen.node && p.id == chosen.project)
    else {
        return Decision::Reject(Rejection {
            reason: RejectReason::NothingFits,
            message: "That project is no longer in the catalog.".into(),
        });
    };
    let heard = find_name(&tokens, &project.name, &literal)
        .or_else(|| sound_alike_span(&tokens, &literal, project));
    let mut evidence = Vec::new();
    let mut learned = Vec::new();
    let mut cuts = Vec::new();
    if let Some(range) = heard {
        let said = slice(source, &tokens, &range).to_string();
        if !said.eq_ignore_ascii_case(&project.name) {
            learned.push(Alias {
                heard: said.to_lowercase(),
                entity: EntityRef::Project(chosen.clone()),
            });
        }
        evidence.push(Evidence {
            heard: said,
            role: SpanRole::Project,
            entity: Some(EntityRef::Project(chosen.clone())),
            kind: MatchKind::Phonetic,
            confirmation: Confirmation::User,
        });
        cuts.push(with_preposition(&tokens, range));
    } else {
        evidence.push(Evidence {
            heard: String::new(),
            role: SpanRole::Project,
            entity: Some(EntityRef::Project(chosen.clone())),
            kind: MatchKind::Exact,
            confirmation: Confirmation::User,
        });
    }
    Decision::Execute(Plan {
        action: Action::Dispatch,
        route: Route {
            project: Some(chosen.clone()),
            ..Route::default()
        },
        continuation: false,
        objective: compile_objective(source, &tokens, &cuts, "this project"),
        evidence,
        source: Source::of(original),
        resumes: Some(original.request_id.clone()),
        learned,
        confidence: 1.0,
        steps: Vec::new(),
    })
}

fn project_mention(
    tokens: &[Token],
    range: std::ops::Range<usize>,
    project: &Project,
    kind: MatchKind,
    confirmation: Confirmation,
) -> Mention {
    let entity = EntityRef::Project(ProjectRef {
        node: project.node.clone(),
        project: project.id.clone(),
    });
    mention(tokens, range, entity, kind, confirmation)
}

fn mention(
    tokens: &[Token],
    range: std::ops::Range<usize>,
    entity: EntityRef,
    kind: MatchKind,
    confirmation: Confirmation,
) -> Mention {
    Mention {
        cut: with_preposition(tokens, range.clone()),
        tokens: range,
        entity,
        kind,
        confirmation,
    }
}

fn clarify_projects(envelope: &Envelope, snapshot: &Snapshot, refs: &[ProjectRef]) -> Decision {
    let same_name = |r: &ProjectRef| {
        let name = project_name(snapshot, r);
        refs.iter()
            .filter(|o| project_name(snapshot, o) == name)
            .count()
            > 1
    };
    let candidates: Vec<Candidate> = refs
        .iter()
        .take(3)
        .enumerate()
        .map(|(k, r)| {
            let name = project_name(snapshot, r);
            let node = snapshot
                .catalogs
                .nodes
                .iter()
                .find(|n| n.id == r.node)
                .map_or(r.node.as_str(), |n| n.label.as_str());
            let label = if same_name(r) || snapshot.catalogs.nodes.len() > 1 {
                format!("{name} on {node}")
            } else {
                name
            };
            Candidate {
                key: (k + 1).to_string(),
                label,
                entity: EntityRef::Project(r.clone()),
                probability: 1.0 / refs.len().min(3) as f32,
            }
        })
        .collect();
    Decision::Clarify(Clarification {
        question: super::screen::question_text(&candidates),
        slot: Slot::Project,
        candidates,
        request: envelope.clone(),
    })
}

fn project_name(snapshot: &Snapshot, r: &ProjectRef) -> String {
    snapshot
        .catalogs
        .projects
        .iter()
        .find(|p| p.node == r.node && p.id == r.project)
        .map_or(r.project.clone(), |p| p.name.clone())
}

/// Token positions that follow a literal marker ("branch Zivil").
fn literal_positions(tokens: &[Token]) -> Vec<bool> {
    let mut out = vec![false; tokens.len()];
    for i in 1..tokens.len() {
        if LITERAL_MARKERS.contains(&tokens[i - 1].norm.as_str()) {
            out[i] = true;
        }
    }
    out
}

/// The token range where `name` is said exactly (case-insensitive), unless
/// that span is literal content.
fn find_name(tokens: &[Token], name: &str, literal: &[bool]) -> Option<std::ops::Range<usize>> {
    let words = text::tokens(name);
    if words.is_empty() || words.len() > tokens.len() {
        return None;
    }
    (0..=tokens.len() - words.len())
        .find(|&i| {
            !literal[i]
                && words
                    .iter()
                    .enumerate()
                    .all(|(k, w)| tokens[i + k].norm == w.norm)
        })
        .map(|i| i..i + words.len())
}

/// Projects whose name sounds like a spoken word. Candidates only.
fn sound_alike(tokens: &[Token], literal: &[bool], projects: &[Project]) -> Vec<ProjectRef> {
    let mut out: Vec<(f32, ProjectRef)> = Vec::new();
    for p in projects {
        if let Some(score) = sound_alike_score(tokens, literal, p) {
            out.push((
                score,
                ProjectRef {
                    node: p.node.clone(),
                    project: p.id.clone(),
                },
            ));
        }
    }
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.into_iter().map(|(_, r)| r).take(3).collect()
}

fn sound_alike_span(
    tokens: &[Token],
    literal: &[bool],
    project: &Project,
) -> Option<std::ops::Range<usize>> {
    best_sound_alike(tokens, literal, project).map(|(i, _)| i..i + 1)
}

fn sound_alike_score(tokens: &[Token], literal: &[bool], project: &Project) -> Option<f32> {
    best_sound_alike(tokens, literal, project).map(|(_, s)| s)
}

fn best_sound_alike(tokens: &[Token], literal: &[bool], project: &Project) -> Option<(usize, f32)> {
    let name = project.name.to_lowercase();
    if name.contains(' ') {
        return None;
    }
    let key = text::sound_key(&name);
    tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            !literal[*i] && t.norm.chars().count() >= 3 && !PLAIN_WORDS.contains(&t.norm.as_str())
        })
        .filter_map(|(i, t)| {
            let sim = text::similarity(&t.norm, &name);
            let tk = text::sound_key(&t.norm);
            let keys = text::similarity(&tk, &key);
            let score = sim.max(keys * 0.9);
            (score >= CANDIDATE_SIMILARITY && t.norm != name).then_some((i, score))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// Extends a mention to the preposition that introduced it ("in Rivvl",
/// "with Claude"), so removing it leaves a sentence.
fn with_preposition(tokens: &[Token], range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let mut start = range.start;
    if start > 0
        && matches!(
            tokens[start - 1].norm.as_str(),
            "in" | "on" | "for" | "with" | "using" | "via" | "project"
        )
    {
        start -= 1;
        if start > 0
            && tokens[start].norm == "project"
            && matches!(tokens[start - 1].norm.as_str(), "in" | "on" | "for" | "the")
        {
            start -= 1;
        }
    }
    start..range.end
}

/// The objective: the source with consumed spans removed. When a removed span
/// was the object of the sentence (it ends the sentence and no preposition
/// introduced it), a neutral reference takes its place, so the task keeps its
/// shape ("check out this project") without the heard name.
fn compile_objective(
    source: &str,
    tokens: &[Token],
    cuts: &[std::ops::Range<usize>],
    stand_in: &str,
) -> String {
    let mut sorted: Vec<std::ops::Range<usize>> = cuts.to_vec();
    sorted.sort_by_key(|r| r.start);
    let mut out = String::new();
    let (mut at_byte, mut next_token) = (0, 0);
    for cut in sorted {
        if cut.is_empty() || cut.start < next_token {
            continue;
        }
        let start = tokens[cut.start].start;
        let mut end = tokens[cut.end - 1].end;
        out.push_str(&source[at_byte..start]);
        let introduced = PREPOSITIONS.contains(&tokens[cut.start].norm.as_str());
        if !introduced && cut.start > 0 && cut.end == tokens.len() {
            out.push_str(stand_in);
        }
        let rest = &source[end..];
        let trimmed = rest.trim_start();
        if trimmed.starts_with(',') {
            end += rest.len() - trimmed.len() + 1;
        }
        at_byte = end;
        next_token = cut.end;
    }
    out.push_str(&source[at_byte..]);
    let words: Vec<&str> = out.split_whitespace().collect();
    words
        .join(" ")
        .trim_matches(|c: char| matches!(c, ',' | ':' | ';' | '-') || c.is_whitespace())
        .to_string()
}

const PREPOSITIONS: &[&str] = &["in", "on", "for", "with", "using", "via", "the", "project"];

fn slice<'s>(source: &'s str, tokens: &[Token], range: &std::ops::Range<usize>) -> &'s str {
    &source[tokens[range.start].start..tokens[range.end - 1].end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::director::types::{Catalogs, Named};

    #[test]
    fn objectives_drop_consumed_spans_and_keep_literal_ones() {
        let table: [(&str, &[&str], &str); 5] = [
            (
                "In Rivvl, check out branch Zivil",
                &["Rivvl"],
                "check out branch Zivil",
            ),
            (
                "fix the login bug in Rivvl",
                &["Rivvl"],
                "fix the login bug",
            ),
            (
                "I need you to check out Zivil",
                &["Zivil"],
                "I need you to check out this project",
            ),
            ("Kernel: bump the version", &["Kernel"], "bump the version"),
            ("run the tests", &[], "run the tests"),
        ];
        for (source, spans, want) in table {
            let tokens = text::tokens(source);
            let literal = literal_positions(&tokens);
            let cuts: Vec<std::ops::Range<usize>> = spans
                .iter()
                .map(|s| with_preposition(&tokens, find_name(&tokens, s, &literal).expect(s)))
                .collect();
            assert_eq!(
                compile_objective(source, &tokens, &cuts, "this project"),
                want,
                "{source}"
            );
        }
    }

    #[test]
    fn literal_markers_protect_names_from_routing() {
        let tokens = text::tokens("check out branch Rivvl");
        let literal = literal_positions(&tokens);
        assert_eq!(find_name(&tokens, "Rivvl", &literal), None);
        let tokens = text::tokens("in Rivvl check out main");
        assert_eq!(
            find_name(&tokens, "rivvl", &literal_positions(&tokens)),
            Some(1..2)
        );
    }

    #[test]
    fn sound_alikes_are_candidates_only_for_unusual_words() {
        let projects = [
            Project {
                node: "n".into(),
                id: "p1".into(),
                name: "Rivvl".into(),
            },
            Project {
                node: "n".into(),
                id: "p2".into(),
                name: "Notes".into(),
            },
        ];
        let table = [
            ("I need you to check out Zivil", Some("p1")),
            ("check out the tests", None),
            ("open the nodes", Some("p2")),
        ];
        for (source, want) in table {
            let tokens = text::tokens(source);
            let got = sound_alike(&tokens, &literal_positions(&tokens), &projects);
            assert_eq!(got.first().map(|r| r.project.as_str()), want, "{source}");
        }
    }

    #[test]
    fn providers_and_models_route_and_leave_the_objective() {
        let snapshot = Snapshot {
            catalogs: Catalogs {
                loaded: true,
                projects: vec![Project {
                    node: "n".into(),
                    id: "p1".into(),
                    name: "Rivvl".into(),
                }],
                providers: vec![Named {
                    node: "n".into(),
                    id: "claude".into(),
                    name: "Claude".into(),
                }],
                ..Catalogs::default()
            },
            ..Snapshot::default()
        };
        let d = decide_turn(
            &Envelope::voice("r", "in Rivvl with Claude fix the flaky test"),
            &snapshot,
        );
        let Decision::Execute(plan) = d else {
            panic!("{d:?}")
        };
        assert_eq!(plan.route.provider.as_deref(), Some("claude"));
        assert_eq!(plan.objective, "fix the flaky test");
    }
}

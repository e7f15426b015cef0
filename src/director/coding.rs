//! Coding turns in the one reader (seed 002): a request that names a project of the catalog
//! becomes `Goal::Coding` with the canonical objective of the Director's closed plan
//! ([`turn::decide_turn`]); a spoken name that only sounds like a project asks "Did you mean
//! Rivvl?", and the answer resumes the same request ([`turn::resume_with_project`]), once, with
//! the pronunciation it confirmed.
//!
//! Architecture invariant: pure. The catalog and the confirmed aliases come in as data
//! ([`snapshot`]); the arguments it proposes are the person's own words with the consumed routing
//! span removed, never invented text.

use super::reader::{pick_choice, strip_correction, yes_or_no};
use super::turn;
use super::types::{
    Alias, Catalogs, Decision, EntityRef, Envelope, Node, Plan, Project, ProjectRef, Slot, Snapshot,
};
use crate::interaction::{Ask, Learned, Proposal};
use crate::model::{Choice, Goal, InputMode, Question, QuestionKind, Relation};

/// The slot of "Did you mean Rivvl?": a choice key, `"<node>/<project>"`.
pub const PROJECT_SLOT: &str = "project";
/// The slot of "What should I do in Rivvl?": the objective, in the person's words.
pub const OBJECTIVE_SLOT: &str = "objective";
/// The longest objective taken as an answer, in characters.
pub const MAX_OBJECTIVE_CHARS: usize = 2000;

/// One project of the catalog: its node and its name (its id in the catalog).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub node: String,
    pub name: String,
}

/// The Director's snapshot for coding turns: the catalog (loaded: it comes from the config) and
/// the confirmed pronunciations, whose project is still in it.
pub fn snapshot(this_node: &str, projects: &[Entry], aliases: &[Learned]) -> Snapshot {
    let mut nodes = vec![this_node.to_string()];
    for p in projects {
        if !nodes.contains(&p.node) {
            nodes.push(p.node.clone());
        }
    }
    Snapshot {
        catalogs: Catalogs {
            loaded: true,
            nodes: nodes
                .into_iter()
                .map(|n| Node {
                    id: n.clone(),
                    label: n,
                })
                .collect(),
            projects: projects
                .iter()
                .map(|p| Project {
                    node: p.node.clone(),
                    id: p.name.clone(),
                    name: p.name.clone(),
                })
                .collect(),
            ..Catalogs::default()
        },
        aliases: aliases
            .iter()
            .map(|a| Alias {
                heard: a.heard.clone(),
                entity: EntityRef::Project(ProjectRef {
                    node: a.node.clone(),
                    project: a.project.clone(),
                }),
            })
            .collect(),
        ..Snapshot::default()
    }
}

/// The key of a project in a question's choices.
pub fn key(r: &ProjectRef) -> String {
    format!("{}/{}", r.node, r.project)
}

/// The project a choice key names (project names hold no '/', the config checks it).
fn from_key(key: &str) -> Option<ProjectRef> {
    let (node, project) = key.rsplit_once('/')?;
    Some(ProjectRef {
        node: node.to_string(),
        project: project.to_string(),
    })
}

/// Whether a pending question is one of a coding request's.
pub fn asks(q: &Question) -> bool {
    q.slot == PROJECT_SLOT || q.slot == OBJECTIVE_SLOT
}

/// A new coding request, when the words name a project of the catalog (exactly; spoken words
/// also by a confirmed alias or a sound-alike). `None`: not a coding turn.
pub fn request(text: &str, mode: InputMode, snapshot: &Snapshot) -> Option<Proposal> {
    let envelope = Envelope {
        text: text.trim().to_string(),
        mode,
        ..Envelope::default()
    };
    if !turn::names_project(&envelope, snapshot) {
        return None;
    }
    let mut p = Proposal {
        relation: Some(Relation::NewRequest),
        goal: Some(Goal::Coding),
        ..Proposal::default()
    };
    p.arguments.insert("request".into(), envelope.text.clone());
    match turn::decide_turn(&envelope, snapshot) {
        Decision::Execute(plan) => {
            let route = plan.route.project.clone()?;
            p.arguments.extend(routed(&route, &plan));
        }
        Decision::Clarify(c) if c.slot == Slot::Project => {
            let choices: Vec<Choice> = c
                .candidates
                .iter()
                .filter_map(|c| match &c.entity {
                    EntityRef::Project(r) => Some(Choice {
                        key: key(r),
                        label: c.label.clone(),
                    }),
                    _ => None,
                })
                .collect();
            p.ask = Some(Ask {
                slot: PROJECT_SLOT.into(),
                kind: if choices.len() == 1 {
                    QuestionKind::YesNo
                } else {
                    QuestionKind::Choice
                },
                prompt: c.question,
                choices,
            });
        }
        Decision::Clarify(_) | Decision::Reject(_) => return None,
    }
    Some(p)
}

/// The arguments a closed plan settles: the project, its node, and the objective when there is
/// one and no routing span stayed in it (else the interaction asks for it).
fn routed(route: &ProjectRef, plan: &Plan) -> Vec<(String, String)> {
    let mut out = vec![
        ("project".to_string(), route.project.clone()),
        ("node".to_string(), route.node.clone()),
    ];
    if !plan.objective.is_empty() && super::check_plan(plan).is_ok() {
        out.push((OBJECTIVE_SLOT.to_string(), plan.objective.clone()));
    }
    out
}

/// An input read against a coding request's question: "yes" (or the candidate, by number or
/// name, or "no, I meant the second") picks a project and resumes the request with its
/// objective and the pronunciation confirmed; "no" cancels; anything said to "What should I do
/// in Rivvl?" is the objective. `None`: none of these (the ordinary reading goes on).
pub fn answer(text: &str, q: &Question, snapshot: Option<&Snapshot>) -> Option<Proposal> {
    if q.slot == OBJECTIVE_SLOT {
        let value = text.trim();
        if value.is_empty() || value.chars().count() > MAX_OBJECTIVE_CHARS {
            return None;
        }
        return Some(Proposal {
            relation: Some(Relation::Answer),
            value: Some(value.to_string()),
            ..Proposal::default()
        });
    }
    if q.slot != PROJECT_SLOT {
        return None;
    }
    let chosen = strip_correction(text)
        .and_then(|rest| pick_choice(rest, &q.choices))
        .or_else(|| {
            (yes_or_no(text) != Some(false))
                .then(|| pick_choice(text, &q.choices))
                .flatten()
        });
    let Some(chosen) = chosen else {
        return (yes_or_no(text) == Some(false)).then(|| Proposal {
            relation: Some(Relation::Cancel),
            ..Proposal::default()
        });
    };
    let misfit = |why: String| {
        Some(Proposal {
            relation: Some(Relation::Answer),
            misfit: Some(why),
            ..Proposal::default()
        })
    };
    let (Some(snapshot), Some(r)) = (snapshot, from_key(&chosen.key)) else {
        return misfit(format!(
            "{} is no longer in the project catalog; say the request again",
            chosen.label
        ));
    };
    let request = q.known_arguments.get("request").map_or("", String::as_str);
    // Only a spoken request is asked about by sound; its words are read as heard.
    let original = Envelope::voice("", request);
    match turn::resume_with_project(&original, snapshot, &r) {
        Decision::Execute(plan) => Some(Proposal {
            relation: Some(Relation::Answer),
            value: Some(chosen.key.clone()),
            arguments: routed(&r, &plan).into_iter().collect(),
            learned: plan
                .learned
                .iter()
                .filter_map(|a| match &a.entity {
                    EntityRef::Project(p) => Some(Learned {
                        heard: a.heard.clone(),
                        node: p.node.clone(),
                        project: p.project.clone(),
                    }),
                    _ => None,
                })
                .collect(),
            ..Proposal::default()
        }),
        _ => misfit(format!(
            "{} is no longer in the project catalog; say the request again",
            chosen.label
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(aliases: &[(&str, &str)]) -> Snapshot {
        let entries =
            [("desk", "Rivvl"), ("desk", "Notes"), ("laptop", "Kernel")].map(|(node, name)| {
                Entry {
                    node: node.into(),
                    name: name.into(),
                }
            });
        let learned: Vec<Learned> = aliases
            .iter()
            .map(|(heard, project)| Learned {
                heard: heard.to_string(),
                node: "desk".into(),
                project: project.to_string(),
            })
            .collect();
        snapshot("desk", &entries, &learned)
    }

    /// (words, mode, aliases, project routed, objective, asks)
    type Row = (
        &'static str,
        InputMode,
        &'static [(&'static str, &'static str)],
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
    );

    #[test]
    fn requests_route_ask_or_are_no_coding_turn() {
        use InputMode::{Typed, Voice};
        let none: &[(&str, &str)] = &[];
        let table: &[Row] = &[
            (
                "in Rivvl, check out branch Zivil",
                Typed,
                none,
                Some("Rivvl"),
                Some("check out branch Zivil"),
                None,
            ),
            (
                "In Rivvl, check out branch Zivil",
                Voice,
                none,
                Some("Rivvl"),
                Some("check out branch Zivil"),
                None,
            ),
            (
                "fix the flaky test in Notes",
                Typed,
                none,
                Some("Notes"),
                Some("fix the flaky test"),
                None,
            ),
            // A sound-alike is a question, never a route.
            (
                "in Rivel, check out branch Zivil",
                Voice,
                none,
                None,
                None,
                // Two nodes in the catalog: the candidate says which.
                Some("Did you mean Rivvl on desk?"),
            ),
            // A confirmed alias routes a spoken turn without asking.
            (
                "in Rivel, run the tests",
                Voice,
                &[("rivel", "Rivvl")],
                Some("Rivvl"),
                Some("run the tests"),
                None,
            ),
            // Typed words are never corrected by sound, nor by a spoken alias.
            (
                "in Rivel, check out branch Zivil",
                Typed,
                none,
                None,
                None,
                None,
            ),
            (
                "in Rivel, run the tests",
                Typed,
                &[("rivel", "Rivvl")],
                None,
                None,
                None,
            ),
            // A name after a literal marker is content, not a route.
            ("check out branch Rivvl", Typed, none, None, None, None),
            ("upvote the third story", Voice, none, None, None, None),
            ("what's the weather in Pune", Typed, none, None, None, None),
            // The name alone: routed, and the objective is asked for.
            ("Rivvl", Typed, none, Some("Rivvl"), None, None),
        ];
        for (words, mode, aliases, project, objective, asks) in table {
            let got = request(words, *mode, &catalog(aliases));
            let is_coding = project.is_some() || asks.is_some();
            assert_eq!(got.is_some(), is_coding, "{words}: {got:?}");
            let Some(p) = got else { continue };
            assert_eq!(p.goal, Some(Goal::Coding), "{words}");
            assert_eq!(p.relation, Some(Relation::NewRequest), "{words}");
            assert_eq!(p.arguments["request"], words.trim(), "{words}");
            assert_eq!(
                p.arguments.get("project").map(String::as_str),
                *project,
                "{words}"
            );
            assert_eq!(
                p.arguments.get("objective").map(String::as_str),
                *objective,
                "{words}"
            );
            if let Some(o) = objective {
                assert!(!o.contains("Rivvl") && !o.contains("Rivel"), "{words}: {o}");
            }
            assert_eq!(p.ask.as_ref().map(|a| a.prompt.as_str()), *asks, "{words}");
            if let Some(ask) = &p.ask {
                assert_eq!(ask.slot, PROJECT_SLOT);
                assert_eq!(ask.kind, QuestionKind::YesNo);
                assert_eq!(ask.choices[0].key, "desk/Rivvl");
            }
        }
    }

    #[test]
    fn two_projects_of_one_name_are_asked_about_with_their_nodes() {
        let entries = [("desk", "Rivvl"), ("laptop", "Rivvl")].map(|(node, name)| Entry {
            node: node.into(),
            name: name.into(),
        });
        let s = snapshot("desk", &entries, &[]);
        let p = request("in Rivvl, run the tests", InputMode::Typed, &s).unwrap();
        let ask = p.ask.expect("asks which Rivvl");
        assert_eq!(ask.kind, QuestionKind::Choice);
        let labels: Vec<&str> = ask.choices.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["Rivvl on desk", "Rivvl on laptop"]);
        assert!(!p.arguments.contains_key("project"));
    }

    fn question(request: &str, choices: &[(&str, &str)]) -> Question {
        Question {
            kind: if choices.len() == 1 {
                QuestionKind::YesNo
            } else {
                QuestionKind::Choice
            },
            slot: PROJECT_SLOT.into(),
            prompt: "Did you mean Rivvl?".into(),
            known_arguments: [("request".to_string(), request.to_string())].into(),
            choices: choices
                .iter()
                .map(|(key, label)| Choice {
                    key: key.to_string(),
                    label: label.to_string(),
                })
                .collect(),
            owner: "desk".into(),
            expires_at: u64::MAX,
        }
    }

    #[test]
    fn answers_resume_with_the_objective_and_the_pronunciation() {
        let s = catalog(&[]);
        let q = question(
            "in Rivel, check out branch Zivil",
            &[("desk/Rivvl", "Rivvl")],
        );
        // (said, relation, project chosen)
        let table: &[(&str, Option<Relation>, Option<&str>)] = &[
            ("yes", Some(Relation::Answer), Some("desk/Rivvl")),
            ("yes please", Some(Relation::Answer), Some("desk/Rivvl")),
            ("Rivvl", Some(Relation::Answer), Some("desk/Rivvl")),
            ("no", Some(Relation::Cancel), None),
            ("nope", Some(Relation::Cancel), None),
            ("open the comments", None, None),
        ];
        for (said, relation, chosen) in table {
            let got = answer(said, &q, Some(&s));
            assert_eq!(got.as_ref().and_then(|p| p.relation), *relation, "{said}");
            let Some(p) = got else { continue };
            assert_eq!(p.value.as_deref(), *chosen, "{said}");
            assert!(p.misfit.is_none(), "{said}");
            if chosen.is_some() {
                assert_eq!(p.arguments["project"], "Rivvl");
                assert_eq!(p.arguments["node"], "desk");
                assert_eq!(p.arguments["objective"], "check out branch Zivil");
                assert_eq!(
                    p.learned,
                    [Learned {
                        heard: "rivel".into(),
                        node: "desk".into(),
                        project: "Rivvl".into()
                    }]
                );
            }
        }
        // Several candidates: by number, or "no, I meant …"; a project gone from the catalog
        // is refused with the reason.
        let q = question(
            "in Rivel, run it",
            &[("desk/Rivvl", "Rivvl"), ("desk/Notes", "Notes")],
        );
        let p = answer("the second one", &q, Some(&s)).unwrap();
        assert_eq!(p.value.as_deref(), Some("desk/Notes"));
        assert!(p.learned.is_empty() || p.learned[0].project == "Notes");
        let p = answer("no, I meant Rivvl", &q, Some(&s)).unwrap();
        assert_eq!(p.value.as_deref(), Some("desk/Rivvl"));
        let gone = question("in Rivel, run it", &[("desk/Gone", "Gone")]);
        let p = answer("yes", &gone, Some(&s)).unwrap();
        assert!(p
            .misfit
            .unwrap()
            .contains("no longer in the project catalog"));
        // The objective question takes the words as they are.
        let mut q = question("Rivvl", &[]);
        q.slot = OBJECTIVE_SLOT.into();
        q.kind = QuestionKind::Text;
        let p = answer("run the tests", &q, Some(&s)).unwrap();
        assert_eq!(p.value.as_deref(), Some("run the tests"));
        assert!(answer(&"x".repeat(MAX_OBJECTIVE_CHARS + 1), &q, Some(&s)).is_none());
        assert!(asks(&q));
    }
}

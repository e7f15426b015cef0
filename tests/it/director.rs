//! The Jarvis acceptance table (seed 002), one test per row, plus the
//! screen-turn relation to a pending question.

use circe::director::local::LocalDecider;
use circe::director::{
    check_plan, decide, decide_locally, Action, Catalogs, Confirmation, Decision, EntityRef,
    Envelope, Focus, Interaction, MatchKind, Node, Plan, Project, ProjectRef, Snapshot, SpanRole,
    TaskRef, TurnQueue,
};

fn rivvl() -> ProjectRef {
    ProjectRef {
        node: "laptop".into(),
        project: "p-rivvl".into(),
    }
}

fn catalogs() -> Catalogs {
    let names = [
        ("p-rivvl", "Rivvl"),
        ("p-circe", "Circe"),
        ("p-atlas", "Atlas"),
        ("p-blog", "Blog"),
        ("p-dotfiles", "dotfiles"),
        ("p-kernel", "Kernel"),
        ("p-webshop", "Webshop"),
        ("p-notes", "Notes"),
    ];
    Catalogs {
        loaded: true,
        nodes: vec![
            Node {
                id: "laptop".into(),
                label: "Laptop".into(),
            },
            Node {
                id: "tower".into(),
                label: "Tower".into(),
            },
        ],
        projects: names
            .iter()
            .map(|(id, name)| Project {
                node: "laptop".into(),
                id: (*id).into(),
                name: (*name).into(),
            })
            .collect(),
        ..Catalogs::default()
    }
}

/// Ambient focus is present in every Jarvis case: it must never decide.
fn snapshot() -> Snapshot {
    Snapshot {
        catalogs: catalogs(),
        focus: Focus {
            project: Some(ProjectRef {
                node: "laptop".into(),
                project: "p-circe".into(),
            }),
            task: None,
        },
        ..Snapshot::default()
    }
}

fn plan(decision: &Decision) -> &Plan {
    match decision {
        Decision::Execute(plan) => {
            check_plan(plan).expect("plan invariant");
            plan
        }
        other => panic!("expected a plan, got {other:?}"),
    }
}

#[test]
fn voice_zivil_with_rivvl_as_a_phonetic_candidate_clarifies_before_dispatch() {
    let d = decide_locally(
        &Envelope::voice("r1", "I need you to check out Zivil"),
        &snapshot(),
    );
    let Decision::Clarify(c) = d else {
        panic!("expected a clarification, got {d:?}")
    };
    assert_eq!(c.candidates[0].entity, EntityRef::Project(rivvl()));
    assert!(c.question.contains("Rivvl"), "{}", c.question);
    assert_eq!(c.request.request_id, "r1");
}

#[test]
fn confirming_rivvl_resumes_the_same_request_once_and_learns_the_pronunciation() {
    let first = Envelope::voice("r1", "I need you to check out Zivil");
    let s = snapshot();
    let asked = decide_locally(&first, &s);
    let interaction = s.interaction.after(&asked);
    assert!(interaction.pending.is_some());
    let answering = Snapshot {
        interaction: interaction.clone(),
        ..s.clone()
    };
    let resumed = decide_locally(&Envelope::voice("r2", "yes"), &answering);
    let p = plan(&resumed);
    assert_eq!(p.action, Action::Dispatch);
    assert_eq!(p.resumes.as_deref(), Some("r1"));
    assert_eq!(p.source.request_id, "r1");
    assert_eq!(p.route.project, Some(rivvl()));
    assert_eq!(p.objective, "I need you to check out this project");
    assert!(!p.objective.to_lowercase().contains("zivil"));
    assert_eq!(p.learned.len(), 1);
    assert_eq!(p.learned[0].heard, "zivil");
    assert_eq!(p.learned[0].entity, EntityRef::Project(rivvl()));
    assert!(p
        .evidence
        .iter()
        .any(|e| e.role == SpanRole::Project && e.confirmation == Confirmation::User));

    // Once: the pending question is gone, so a second "yes" resumes nothing.
    let after = Snapshot {
        interaction: interaction.after(&resumed),
        ..s.clone()
    };
    assert!(after.interaction.pending.is_none());
    let again = decide_locally(&Envelope::voice("r3", "yes"), &after);
    assert!(!matches!(&again, Decision::Execute(p) if p.resumes.is_some()));

    // The learned alias now routes the same words directly.
    let with_alias = Snapshot {
        aliases: p.learned.clone(),
        ..s
    };
    let direct = decide_locally(&Envelope::voice("r4", "check out Zivil"), &with_alias);
    let q = plan(&direct);
    assert_eq!(q.route.project, Some(rivvl()));
    assert!(q
        .evidence
        .iter()
        .any(|e| e.kind == MatchKind::Alias && e.confirmation == Confirmation::Alias));
}

#[test]
fn in_rivvl_check_out_branch_zivil_routes_and_keeps_the_branch_literal() {
    let d = decide_locally(
        &Envelope::voice("r1", "In Rivvl, check out branch Zivil"),
        &snapshot(),
    );
    let p = plan(&d);
    assert_eq!(p.route.project, Some(rivvl()));
    assert_eq!(p.objective, "check out branch Zivil");
    assert!(p
        .evidence
        .iter()
        .any(|e| e.role == SpanRole::Project && e.heard == "Rivvl"));
}

#[test]
fn explicit_continuation_keeps_the_task_and_the_literal_words() {
    let task = TaskRef {
        project: ProjectRef {
            node: "laptop".into(),
            project: "p-circe".into(),
        },
        task: "t-42".into(),
    };
    let s = Snapshot {
        continuation: Some(task.clone()),
        ..snapshot()
    };
    let d = decide_locally(&Envelope::voice("r1", "check out Zivil"), &s);
    let p = plan(&d);
    assert!(p.continuation);
    assert_eq!(p.route.task, Some(task));
    assert_eq!(p.objective, "check out Zivil");
    assert_ne!(p.route.project, Some(rivvl()));
}

#[test]
fn envelopes_captured_before_the_catalog_are_grounded_at_dequeue() {
    let mut queue = TurnQueue::default();
    queue.push(Envelope::voice("r1", "I need you to check out Zivil"));
    let empty = Snapshot {
        catalogs: Catalogs::default(),
        ..snapshot()
    };
    assert!(queue.drain(&empty, &LocalDecider).is_empty());
    assert_eq!(queue.len(), 1);
    let out = queue.drain(&snapshot(), &LocalDecider);
    assert!(queue.is_empty());
    assert_eq!(out.len(), 1);
    assert!(
        matches!(&out[0].1, Decision::Clarify(c) if c.candidates[0].entity == EntityRef::Project(rivvl()))
    );
}

#[test]
fn two_projects_of_one_name_on_two_nodes_clarify_with_node_labels() {
    let mut s = snapshot();
    s.catalogs.projects.push(Project {
        node: "tower".into(),
        id: "p-rivvl-2".into(),
        name: "Rivvl".into(),
    });
    let d = decide_locally(&Envelope::voice("r1", "in Rivvl run the tests"), &s);
    let Decision::Clarify(c) = d else {
        panic!("expected a clarification, got {d:?}")
    };
    let labels: Vec<&str> = c.candidates.iter().map(|k| k.label.as_str()).collect();
    assert_eq!(labels, ["Rivvl on Laptop", "Rivvl on Tower"]);
}

#[test]
fn typed_git_checkout_zivil_is_not_phonetically_corrected() {
    let d = decide_locally(&Envelope::typed("r1", "git checkout zivil"), &snapshot());
    let p = plan(&d);
    assert_eq!(p.objective, "git checkout zivil");
    assert_ne!(p.route.project, Some(rivvl()));
    assert!(p.evidence.iter().all(|e| e.kind != MatchKind::Phonetic));
}

#[test]
fn with_every_remote_decider_disabled_routing_is_deterministic() {
    let s = snapshot();
    let table = [
        "I need you to check out Zivil",
        "In Rivvl, check out branch Zivil",
        "in Circe fix the failing test",
    ];
    for text in table {
        let a = decide(&Envelope::voice("r1", text), &s, &LocalDecider);
        let b = decide(&Envelope::voice("r1", text), &s, &LocalDecider);
        assert_eq!(a, b, "{text}");
        assert!(!matches!(a, Decision::Reject(_)), "{text}: {a:?}");
    }
}

#[test]
fn a_span_that_routed_never_stays_in_the_objective() {
    let s = snapshot();
    for text in [
        "in Rivvl fix the login bug",
        "fix the login bug in Rivvl",
        "Kernel: bump the version",
    ] {
        let d = decide_locally(&Envelope::voice("r1", text), &s);
        let p = plan(&d);
        for e in p
            .evidence
            .iter()
            .filter(|e| e.role == SpanRole::Project && !e.heard.is_empty())
        {
            assert!(!p.objective.contains(&e.heard), "{text} -> {}", p.objective);
        }
    }
}

#[test]
fn a_cancel_drops_the_pending_question() {
    let s = snapshot();
    let asked = decide_locally(&Envelope::voice("r1", "check out Zivil"), &s);
    let pending = Snapshot {
        interaction: Interaction::default().after(&asked),
        ..s
    };
    let d = decide_locally(&Envelope::voice("r2", "never mind"), &pending);
    assert!(matches!(d, Decision::Reject(_)));
}

#[test]
fn the_director_stays_pure() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/director");
    let forbidden = [
        "tokio",
        "reqwest",
        "axum",
        "std::net",
        "Instant",
        "SystemTime",
        "async fn",
        ".await",
    ];
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("src/director") {
        let path = entry.expect("entry").path();
        let source = std::fs::read_to_string(&path).expect("source");
        for word in forbidden {
            assert!(!source.contains(word), "{} mentions {word}", path.display());
        }
        let file = path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default();
        if file != "observation.rs" {
            assert!(
                !source.contains("std::fs"),
                "{} reads files",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} files checked");
}

fn screen() -> circe::director::Observation {
    let el = |id: &str, label: &str, context: &str| circe::director::Element {
        id: id.into(),
        role: "link".into(),
        label: label.into(),
        context: context.into(),
        ..circe::director::Element::default()
    };
    circe::director::Observation {
        elements: vec![
            el("e1", "17 comments", "story one"),
            el("e2", "17 comments", "story two"),
            el("e3", "Home", ""),
        ],
        ..circe::director::Observation::default()
    }
}

#[test]
fn the_second_one_answers_a_screen_clarification_and_resumes_the_request() {
    let s = Snapshot {
        observation: Some(screen()),
        ..Snapshot::default()
    };
    let asked = decide_locally(
        &Envelope::voice("r1", "open the one with seventeen comments"),
        &s,
    );
    let Decision::Clarify(c) = &asked else {
        panic!("expected a clarification, got {asked:?}")
    };
    assert_eq!(c.candidates.len(), 2);
    let answering = Snapshot {
        interaction: s.interaction.after(&asked),
        ..s.clone()
    };
    for (reply, want) in [
        ("the second one", "e2"),
        ("first", "e1"),
        ("number two", "e2"),
    ] {
        let d = decide_locally(&Envelope::voice("r2", reply), &answering);
        let p = plan(&d);
        assert_eq!(
            p.action,
            Action::Click {
                target: want.into()
            },
            "{reply}"
        );
        assert_eq!(p.resumes.as_deref(), Some("r1"), "{reply}");
        assert_eq!(p.objective, "open the one with seventeen comments");
    }
    let other = decide_locally(&Envelope::voice("r3", "go home"), &answering);
    assert!(
        matches!(&other, Decision::Execute(p) if p.resumes.is_none() && p.action == Action::Click { target: "e3".into() }),
        "{other:?}"
    );
}

/// A misheard leading verb ("upboat", "hyde") must never turn into opening
/// whatever the rest of the words name: it may be offered, not acted on.
#[test]
fn a_misheard_verb_never_becomes_open() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/grounding/observations/news-fixture.json");
    let observation = circe::eval::load_observation(&path).unwrap();
    for text in [
        "upboat the tiny rust database",
        "hyde the sqlite story",
        "uproot the third story",
    ] {
        let decision =
            circe::eval::ground_text(&observation, text, &circe::director::local::LocalDecider);
        assert!(
            !matches!(decision, circe::director::Decision::Execute(_)),
            "{text:?} acted: {decision:?}"
        );
    }
    // The same words with the verb heard right act.
    let decision = circe::eval::ground_text(
        &observation,
        "upvote the tiny rust database",
        &circe::director::local::LocalDecider,
    );
    match decision {
        circe::director::Decision::Execute(plan) => {
            assert_eq!(
                plan.action,
                circe::director::Action::Click {
                    target: "r11".into()
                }
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_clear_lead_acts_below_the_act_gate_and_a_close_one_asks() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/grounding/observations/shop-fixture.json");
    let observation = circe::eval::load_observation(&path).unwrap();
    let ground = |text: &str| {
        circe::eval::ground_text(&observation, text, &circe::director::local::LocalDecider)
    };
    // Twelve cards, each with "Add to cart": the one named ALEX leads every other by far.
    match ground("add the ALEX desk to the cart") {
        circe::director::Decision::Execute(plan) => {
            assert_eq!(
                plan.action,
                circe::director::Action::Click {
                    target: "r43".into()
                }
            );
            assert!(
                plan.confidence < circe::director::screen::ACT_AT,
                "this is the clear-lead gate, not the plain one: {}",
                plan.confidence
            );
        }
        other => panic!("{other:?}"),
    }
    // No name: the cards tie, so it asks.
    assert!(matches!(
        ground("add the desk to the cart"),
        circe::director::Decision::Clarify(_)
    ));
}

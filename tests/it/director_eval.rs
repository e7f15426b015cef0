//! The grounding corpora: the shared dev set and Circe's own held-out cases.

use std::path::Path;

use circe::decider::local::LocalDecider;
use circe::eval::run_corpus;

/// A copy of the shared development corpus (`shared/eval/dev`), kept in the repository so the
/// test always runs.
const DEV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/eval/dev");

#[test]
fn dev_corpus_meets_the_targets() {
    let path = Path::new(DEV);
    let report = run_corpus(path, &LocalDecider).expect("corpus");
    println!("{report}");
    assert_eq!(report.wrong_target, 0, "{report}");
    assert_eq!(report.acted_instead, 0, "{report}");
    assert!(report.correct_rate() >= 0.90, "{report}");
    assert!(report.asked_right_rate() >= 0.95, "{report}");
}

#[test]
fn own_cases_are_safe() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/grounding");
    let report = run_corpus(&path, &LocalDecider).expect("corpus");
    println!("{report}");
    assert_eq!(report.wrong_target, 0, "{report}");
    // One known case acts where a person would ask: "cookies" said alone on
    // a consent banner whose only label with that word is "Paramétrer les
    // cookies" (lm-clarify-cookies). See docs/GROUNDING.md.
    assert!(report.acted_instead <= 1, "{report}");
    assert!(report.correct_rate() >= 0.85, "{report}");
}

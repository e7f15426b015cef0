//! One grounding decision over a 200-element observation, p50/p95.
//!
//! Run: `cargo bench --bench director`. Plain std::time measurement.

use std::time::Instant;

use circe::director::{decide_locally, Alternative, Element, Envelope, Observation, Snapshot};

const TOPICS: [&str; 10] = [
    "A tiny Rust database",
    "The Awk Programming Language",
    "How to scale nuclear power",
    "Commercially available chairs in Star Trek",
    "Higher quality random floats",
    "Microfrontends should be a last resort",
    "An ultra-quiet electric leaf blower",
    "Richard Feynman explains neutron stars",
    "What is the Demoscene? An interview",
    "USB-C head-to-head comparison",
];

/// 40 numbered stories of 5 elements each: 200 elements.
fn observation() -> Observation {
    let mut elements = Vec::new();
    for n in 1..=40u32 {
        let title = format!("{} part {n}", TOPICS[(n as usize - 1) % TOPICS.len()]);
        let row = format!("{n}. {title} (site{n}.example)");
        let sub = format!(
            "{} points by user{n} {} hours ago | hide | {} comments",
            3 * n,
            n % 12,
            7 * n
        );
        let mut push = |role: &str, label: String, context: &str, ordinal: Option<u32>| {
            elements.push(Element {
                id: format!("e{}", elements.len() + 1),
                role: role.into(),
                label,
                context: context.into(),
                ordinal,
                of: ordinal.map(|_| 40),
                ..Element::default()
            })
        };
        push("link", "upvote".into(), &row, Some(n));
        push("link", title.clone(), &row, None);
        push("link", format!("site{n}.example"), &row, None);
        push("link", format!("user{n}"), &sub, None);
        push("link", format!("{} comments", 7 * n), &sub, None);
    }
    Observation {
        title: "Hacker News".into(),
        elements,
        ..Observation::default()
    }
}

fn main() {
    let snapshot = Snapshot {
        observation: Some(observation()),
        ..Snapshot::default()
    };
    assert_eq!(
        snapshot.observation.as_ref().map(|o| o.elements.len()),
        Some(200)
    );
    let mut envelopes: Vec<Envelope> = [
        "upvote the third story",
        "open the comments on the story about nuclear power part 3",
        "open the Feynman one",
        "hide the leaf blower story",
        "scroll down",
        "what is this page about?",
        "open the profile of whoever posted the demoscene part 9 story",
        "click the weather forecast",
    ]
    .iter()
    .map(|t| Envelope::voice("bench", t))
    .collect();
    let mut garbled = Envelope::voice("bench", "open higher quality random flotes part five");
    garbled.alternatives = vec![Alternative {
        text: "open higher quality random floats part 5".into(),
        confidence: None,
    }];
    envelopes.push(garbled);

    for e in &envelopes {
        std::hint::black_box(decide_locally(e, &snapshot));
    }
    let mut micros: Vec<f64> = Vec::new();
    for _ in 0..60 {
        for e in &envelopes {
            let started = Instant::now();
            std::hint::black_box(decide_locally(e, &snapshot));
            micros.push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    micros.sort_by(f64::total_cmp);
    let at =
        |q: f64| micros[((q * micros.len() as f64).ceil() as usize).clamp(1, micros.len()) - 1];
    println!(
        "director: one decision over 200 elements, {} runs: p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
        micros.len(),
        at(0.50) / 1000.0,
        at(0.95) / 1000.0,
        micros[micros.len() - 1] / 1000.0
    );
}

//! One grounding decision over a 200-element observation, p50/p95.
//!
//! Run: `cargo bench --bench director`. Plain std::time measurement.
//!
//! With the semantic model installed (`scripts/install-model`; the directory
//! is `$CIRCE_MODEL_DIR`, else `.models/all-minilm-l6-v2` in the repository)
//! it also times the same decisions with the semantic signal: the request's
//! similarity to every element (labels cached) plus the decision, and,
//! separately, the cold cost of embedding a new observation's 200 labels.
//! With the glossary installed, it times glossing a Japanese screen of 200 labels
//! for one request. `BENCH_EACH=1` also prints each utterance's own p50/p95.

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
    report("director: one decision over 200 elements", &mut micros);
    if std::env::var_os("BENCH_EACH").is_some() {
        for e in &envelopes {
            let mut each: Vec<f64> = (0..60)
                .map(|_| {
                    let started = Instant::now();
                    std::hint::black_box(decide_locally(e, &snapshot));
                    started.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            report(&format!("  {:?}", e.text), &mut each);
        }
    }
    semantic(&snapshot, &envelopes);
    multilingual(&snapshot, &envelopes);
    japanese(&envelopes);
}

/// The multilingual model (`scripts/install-multilingual`; `$CIRCE_MULTILINGUAL_DIR`, else
/// `.models/use-multilingual-v3`), which reads a screen in another language besides the English
/// model: the cold cost of a new observation's 200 names, and one new request's.
fn multilingual(snapshot: &Snapshot, envelopes: &[Envelope]) {
    let dir = match std::env::var_os("CIRCE_MULTILINGUAL_DIR") {
        Some(d) if !d.is_empty() => std::path::PathBuf::from(d),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".models/use-multilingual-v3"),
    };
    let started = Instant::now();
    let model = match circe::multilingual::UseMultilingual::load(&dir) {
        Ok(m) => circe::semantic::Semantic::new(Box::new(m)),
        Err(e) => {
            println!("multilingual: not measured ({e})");
            return;
        }
    };
    println!(
        "multilingual: model load {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let observation = snapshot.observation.clone().expect("observation");
    let mut cold = Vec::new();
    for round in 0..3 {
        let names: Vec<String> = observation
            .elements
            .iter()
            .map(|e| format!("{} r{round}", circe::semantic::label_text(e)))
            .collect();
        let started = Instant::now();
        model.vectors(&names).expect("names");
        cold.push(started.elapsed().as_secs_f64() * 1e6);
    }
    report(
        "multilingual: cold, embedding a new observation's 200 names",
        &mut cold,
    );
    let mut requests = Vec::new();
    for round in 0..6 {
        for e in envelopes {
            let text = format!(
                "{} {}",
                e.text,
                ["please", "now", "for me", "ok", "then", "thanks"][round]
            );
            let started = Instant::now();
            model.vectors(&[text]).expect("request");
            requests.push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    report("multilingual: one new request", &mut requests);
}

/// Glossing a Japanese screen of 200 labels for one request (the browser executor does it once
/// per decision): each label a run read as the dictionary's words. The labels are the two
/// Japanese fixture pages', joined in pairs so that each of the 200 is a run of its own.
fn japanese(envelopes: &[Envelope]) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("CIRCE_GLOSSARY_DIR")
        .map_or_else(|| root.join(".models/glossary"), std::path::PathBuf::from);
    let glossary = match circe::glossary::Glossary::load(&dir) {
        Ok(g) if g.languages().iter().any(|(l, _)| *l == "ja") => g,
        _ => {
            println!(
                "glossary: not measured (no Japanese glossary in {})",
                dir.display()
            );
            return;
        }
    };
    let mut labels: Vec<String> = Vec::new();
    for page in ["ebook-bookwalker", "story-hukumusume"] {
        let path = root.join(format!("tests/fixtures/grounding/observations/{page}.json"));
        let text = std::fs::read_to_string(&path).expect("fixture");
        let o: Observation = serde_json::from_str(&text).expect("observation");
        labels.extend(o.elements.into_iter().map(|e| e.label));
    }
    let n = labels.len();
    let elements: Vec<Element> = (0..200)
        .map(|k| Element {
            id: format!("e{k}"),
            role: "link".into(),
            label: format!("{}{}", labels[k % n], labels[(k / n + 1 + k * 7) % n]),
            ..Element::default()
        })
        .collect();
    let observation = Observation {
        title: "福娘童話集 > きょうのイソップ童話".into(),
        elements,
        ..Observation::default()
    };
    let mut micros: Vec<f64> = Vec::new();
    for _ in 0..6 {
        for e in envelopes {
            let started = Instant::now();
            let glosses = glossary.glosses_for(&observation, &e.text);
            micros.push(started.elapsed().as_secs_f64() * 1e6);
            assert!(glosses.is_some_and(|g| g.language == "ja"));
        }
    }
    report(
        "glossary: a Japanese screen of 200 labels glossed for one request",
        &mut micros,
    );
}

fn report(what: &str, micros: &mut [f64]) {
    micros.sort_by(f64::total_cmp);
    let at =
        |q: f64| micros[((q * micros.len() as f64).ceil() as usize).clamp(1, micros.len()) - 1];
    println!(
        "{what}, {} runs: p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
        micros.len(),
        at(0.50) / 1000.0,
        at(0.95) / 1000.0,
        micros[micros.len() - 1] / 1000.0
    );
}

/// The same decisions with the semantic signal, when the model is installed.
fn semantic(snapshot: &Snapshot, envelopes: &[Envelope]) {
    circe::semantic::pin_threads();
    let dir = match std::env::var_os("CIRCE_MODEL_DIR") {
        Some(d) if !d.is_empty() => std::path::PathBuf::from(d),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".models/all-minilm-l6-v2"),
    };
    let started = Instant::now();
    let semantic = match circe::semantic::Semantic::load(&dir) {
        Ok(s) => s,
        Err(e) => {
            println!("director+semantic: not measured ({e})");
            return;
        }
    };
    println!(
        "director+semantic: model load {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let observation = snapshot.observation.clone().expect("observation");
    // Cold: a new observation's 200 element texts and labels, nothing cached.
    let mut cold = Vec::new();
    for round in 0..3 {
        let mut fresh = observation.clone();
        for e in &mut fresh.elements {
            e.context = format!("{} (round {round})", e.context);
            e.label = format!("{} r{round}", e.label);
        }
        let started = Instant::now();
        semantic.warm(&fresh).expect("warm");
        let labels: Vec<String> = fresh
            .elements
            .iter()
            .map(circe::semantic::label_text)
            .collect();
        semantic.vectors(&labels).expect("labels");
        cold.push(started.elapsed().as_secs_f64() * 1e6);
    }
    report(
        "director+semantic: cold, embedding a new observation's 200 labels",
        &mut cold,
    );
    // Warm: this observation's labels cached; each run embeds one new request.
    semantic.warm(&observation).expect("warm");
    let mut micros = Vec::new();
    let mut embedding = Vec::new();
    let mut deciding = Vec::new();
    for round in 0..6 {
        for e in envelopes {
            let mut envelope = e.clone();
            // A new request each time, as in use: only the labels are cached.
            envelope.text = format!(
                "{} {}",
                e.text,
                ["please", "now", "for me", "ok", "then", "thanks"][round]
            );
            let started = Instant::now();
            let mut with = observation.clone();
            with.similarity = Some(
                semantic
                    .similarity(&envelope.text, &observation)
                    .expect("similarity"),
            );
            let embedded = Instant::now();
            let s = Snapshot {
                observation: Some(with),
                ..Snapshot::default()
            };
            std::hint::black_box(decide_locally(&envelope, &s));
            micros.push(started.elapsed().as_secs_f64() * 1e6);
            embedding.push((embedded - started).as_secs_f64() * 1e6);
            deciding.push(embedded.elapsed().as_secs_f64() * 1e6);
        }
    }
    report(
        "director+semantic: similarity (labels cached) + one decision over 200 elements",
        &mut micros,
    );
    report(
        "  of which the similarity (one request embedded)",
        &mut embedding,
    );
    report("  of which the decision with the signal", &mut deciding);

    // As the browser executor runs it: the request's words are embedded while
    // the page is observed (they do not depend on it); after the observation,
    // only its unexplained words are embedded, then the decision.
    let mut after = Vec::new();
    for round in 0..6 {
        for e in envelopes {
            let mut envelope = e.clone();
            envelope.text = format!(
                "{} {}",
                e.text,
                ["again", "quickly", "here", "right", "yes", "now please"][round]
            );
            semantic.prepare(&envelope.text).expect("prepare");
            let started = Instant::now();
            let mut with = observation.clone();
            with.similarity = Some(
                semantic
                    .similarity(&envelope.text, &observation)
                    .expect("similarity"),
            );
            let s = Snapshot {
                observation: Some(with),
                ..Snapshot::default()
            };
            std::hint::black_box(decide_locally(&envelope, &s));
            after.push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    report(
        "director+semantic: after the observation, the request prepared while it was read",
        &mut after,
    );
}

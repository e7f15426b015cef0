//! Architecture invariants checked as tests, so the seams stay where docs/ARCHITECTURE.md says.

use std::path::Path;

fn source(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The modules docs/ARCHITECTURE.md calls pure (its "Pure modules" list says the same; checked
/// below). A directory means every file under it.
const PURE: &[&str] = &[
    "src/model",
    "src/interaction.rs",
    "src/operation.rs",
    "src/planner/mod.rs",
    "src/director",
    "src/voice/mod.rs",
    "src/voice/utterance.rs",
    "src/voice/resample.rs",
    "src/mesh/pairing.rs",
    "src/mesh/policy.rs",
    "src/browser/lifecycle.rs",
    "src/browser/navigation.rs",
    "src/desktop/translate.rs",
    "src/desktop/task.rs",
    "src/desktop/entries.rs",
    "src/desktop/policy.rs",
];

/// The pure core does no I/O, reads no clock, runs nothing async and knows no adapter.
#[test]
fn the_pure_core_stays_pure() {
    const FORBIDDEN: &[&str] = &[
        "tokio",
        "rusqlite",
        "axum",
        "reqwest",
        "std::fs",
        "TcpStream",
        "TcpListener",
        "UdpSocket",
        "SystemTime",
        "Instant::now",
        "std::process",
        "async fn",
        "crate::store",
        "crate::clock",
        "crate::daemon",
        "crate::mesh::server",
        "crate::browser::bridge",
        "crate::semantic::",
        "crate::decider",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for entry in PURE {
        let path = root.join(entry);
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else {
            files.push(path);
        }
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let shown = file.strip_prefix(root).unwrap().display().to_string();
            for word in FORBIDDEN {
                assert!(
                    !text.contains(word),
                    "{shown} mentions {word}; the pure core must not"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} pure files found");
}

/// ARCHITECTURE.md's list of pure modules is the list the test above checks.
#[test]
fn the_docs_list_the_pure_modules() {
    let doc = source("docs/ARCHITECTURE.md");
    let section = doc
        .split("### Pure modules")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a '### Pure modules' section")
        .split("\n#")
        .next()
        .unwrap();
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    assert_eq!(
        listed, PURE,
        "the docs' pure modules and the checked ones differ"
    );
}

/// `cfg(target_os)` lives only where the docs say: the desktop adapter's choice and its
/// per-OS adapters, the voice adapters that exist only on Linux (the tray's D-Bus item,
/// pocketsphinx), and the store's durability pragmas.
#[test]
fn target_os_lives_where_the_docs_say() {
    const ALLOWED: &[&str] = &[
        "src/desktop/mod.rs",
        "src/desktop/linux/",
        "src/desktop/macos.rs",
        "src/desktop/windows.rs",
        "src/voice/tray.rs",
        "src/voice/sphinx.rs",
        "src/store.rs",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for file in files {
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        if text.contains("cfg(target_os") {
            assert!(
                ALLOWED.iter().any(|a| shown.starts_with(a)),
                "{shown} uses cfg(target_os); only {ALLOWED:?} may (docs/ARCHITECTURE.md)"
            );
        }
    }
}

/// SQL lives in the store; every write transaction there is BEGIN IMMEDIATE.
#[test]
fn sql_lives_only_in_the_store() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for f in files {
        let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&f).unwrap();
        if rel == "src/store.rs" {
            assert!(
                !text.contains(".transaction()"),
                "store.rs opens a deferred transaction"
            );
            continue;
        }
        for sql in [
            "SELECT ",
            "INSERT INTO",
            "UPDATE ",
            "CREATE TABLE",
            "rusqlite",
        ] {
            assert!(
                !text.contains(sql),
                "{rel} contains {sql:?}; SQL belongs in src/store.rs"
            );
        }
    }
}

/// Only the clock module reads the wall clock.
#[test]
fn only_clock_reads_the_time() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for f in files {
        let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if rel == "src/clock.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(
            !text.contains("SystemTime::now"),
            "{rel} reads the wall clock; use circe::clock"
        );
    }
}

/// docs/protocol.md's error table and `ErrorCode` name the same codes: every code the daemon,
/// the mesh or the CLI can send is documented, and every documented code is one of them.
#[test]
fn the_error_table_is_the_error_codes() {
    use circe::protocol::ErrorCode;
    use std::collections::BTreeSet;
    let doc = source("docs/protocol.md");
    let table = doc
        .split("| error code | meaning |")
        .nth(1)
        .expect("docs/protocol.md has an error table");
    let mut documented = BTreeSet::new();
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let first = row.split('|').nth(1).unwrap_or_default();
        for code in first.split('`').skip(1).step_by(2) {
            assert!(
                documented.insert(code.to_string()),
                "{code} is listed twice"
            );
        }
    }
    let known: BTreeSet<String> = ErrorCode::ALL.iter().map(|c| c.as_str().into()).collect();
    assert_eq!(
        ErrorCode::ALL.len(),
        known.len(),
        "two variants share a wire string"
    );
    let undocumented: Vec<_> = known.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&known).collect();
    assert!(
        undocumented.is_empty(),
        "error codes missing from docs/protocol.md's table: {undocumented:?}"
    );
    assert!(
        unknown.is_empty(),
        "docs/protocol.md documents codes that are not ErrorCode variants: {unknown:?}"
    );
    for code in ErrorCode::ALL {
        assert_eq!(&ErrorCode::from_wire(code.as_str()), code);
    }
}

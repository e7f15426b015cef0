//! Issue 11, attack by attack, against real `circe serve` daemons: private store files, half-open
//! and silent connections, floods of unread requests, held TLS handshakes.

use crate::util::*;
use std::path::Path;

/// Every directory under `dir` (itself included) and every file in them, with its mode.
fn modes_under(dir: &Path) -> Vec<(String, u32, bool)> {
    let mut out = vec![(dir.display().to_string(), file_mode(dir), true)];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(modes_under(&path));
        } else {
            out.push((path.display().to_string(), file_mode(&path), false));
        }
    }
    out
}

#[test]
fn store_files_are_private_under_umask_022() {
    let weather = WeatherServer::start();
    let d = Daemon::start_under_umask(&weather.config(), 0o022);
    // A write, so the WAL and shared-memory files exist too.
    let done = d.cli(&["say", "--wait", "weather in Pune"]);
    assert!(done.status.success(), "{}", stderr(&done));
    let data = d.dir.path().join("data/circe");
    let modes = modes_under(&data);
    let names: Vec<&str> = modes.iter().map(|(p, _, _)| p.as_str()).collect();
    for expected in [
        "circe.db",
        "circe.db-wal",
        "circe.db-shm",
        "node.key",
        "tls.key",
    ] {
        assert!(
            names.iter().any(|n| n.ends_with(&format!("/{expected}"))),
            "{expected} in {names:?}"
        );
    }
    for (path, mode, is_dir) in &modes {
        let want = if *is_dir { 0o700 } else { 0o600 };
        assert_eq!(*mode, want, "{path} is {mode:o}, not {want:o}");
    }
    assert_eq!(file_mode(&d.dir.path().join("run/circe/mesh.addr")), 0o600);
}

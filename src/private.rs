//! Files and directories only this user can read: the data directory (0700) and everything the
//! daemon creates in it (0600), whatever the process umask.
//!
//! Invariant: these are created with their mode (`DirBuilder::mode`, `OpenOptions::mode`), never
//! created open and narrowed after; a directory or file left by an older version with wider bits
//! is narrowed when the daemon starts, before anything is written to it.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The mode of a private directory.
pub const DIR_MODE: u32 = 0o700;
/// The mode of a private file.
pub const FILE_MODE: u32 = 0o600;

/// Create `dir` (0700) if it is missing, its missing parents as the umask says; narrow it to
/// 0700 if it already exists with other bits.
pub fn dir(dir: &Path) -> std::io::Result<()> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match DirBuilder::new().mode(DIR_MODE).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {
            narrow(dir, DIR_MODE)
        }
        Err(e) => Err(e),
    }
}

/// Open `path` for reading and writing, creating it (0600) if it is missing; an existing file with
/// group or other bits is narrowed to 0600.
pub fn file(path: &Path) -> std::io::Result<File> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .open(path)?;
    narrow(path, FILE_MODE)?;
    Ok(f)
}

/// Make `path` private (0600): created with that mode when missing; an existing file is only
/// narrowed, never opened. Opening and closing a descriptor of a file drops every POSIX lock
/// this process holds on it, so a SQLite database another connection of this process has open
/// must never be opened outside SQLite (its WAL would look unused and be deleted under it).
pub fn existing_or_new(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(_) => narrow(path, FILE_MODE),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => file(path).map(drop),
        Err(e) => Err(e),
    }
}

/// Write `bytes` to `path` (created 0600, replaced if present).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(FILE_MODE)
        .open(path)?;
    narrow(path, FILE_MODE)?;
    f.write_all(bytes)
}

/// Clear group and other bits of an existing path (left by an older version).
fn narrow(path: &Path, mode: u32) -> std::io::Result<()> {
    let current = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if current & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn created_private_and_older_wide_ones_narrowed() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("a/b");
        dir(&d).unwrap();
        assert_eq!(mode(&d), 0o700);
        let f = d.join("x");
        file(&f).unwrap();
        assert_eq!(mode(&f), 0o600);
        write(&d.join("y"), b"hi").unwrap();
        assert_eq!(mode(&d.join("y")), 0o600);
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        dir(&d).unwrap();
        file(&f).unwrap();
        assert_eq!((mode(&d), mode(&f)), (0o700, 0o600));
    }
}

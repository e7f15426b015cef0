//! `circe install-browser`: write the native-messaging host manifest where Chrome and Chromium look.

use super::bridge::{EXTENSION_ID, HOST_NAME};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Browser {
    Chrome,
    Chromium,
    All,
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the circe binary path {0} is not absolute; Chrome needs an absolute path")]
    RelativeBinary(PathBuf),
    #[error("{0}")]
    Unsupported(String),
}

/// The manifest text for this OS, naming `binary` and only the bundled extension.
pub fn manifest(binary: &Path) -> String {
    // One template serves every OS: only where it is written differs.
    let template = include_str!("../../native-host-manifest/com.circe.connector.json");
    let path = serde_json::to_string(&binary.to_string_lossy()).expect("a string serializes");
    template
        .replace("\"@CIRCE_PATH@\"", &path)
        .replace("@EXTENSION_ID@", EXTENSION_ID)
}

/// The directories Chrome reads host manifests from, for `browser` (or one custom profile).
pub fn manifest_dirs(
    browser: Browser,
    user_data_dir: Option<&Path>,
) -> Result<Vec<PathBuf>, InstallError> {
    if let Some(dir) = user_data_dir {
        return Ok(vec![dir.join("NativeMessagingHosts")]);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"));
    let wanted = |b: Browser| browser == b || browser == Browser::All;
    let mut dirs = Vec::new();
    if cfg!(target_os = "macos") {
        let base = home.join("Library/Application Support");
        if wanted(Browser::Chrome) {
            dirs.push(base.join("Google/Chrome/NativeMessagingHosts"));
        }
        if wanted(Browser::Chromium) {
            dirs.push(base.join("Chromium/NativeMessagingHosts"));
        }
    } else if cfg!(windows) {
        return Err(InstallError::Unsupported(format!(
            "on Windows the manifest is found through the registry key HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\{HOST_NAME}; this build does not write the registry yet: save `circe install-browser --print` to a file and point that key at it"
        )));
    } else {
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| home.join(".config"));
        if wanted(Browser::Chrome) {
            dirs.push(config.join("google-chrome/NativeMessagingHosts"));
        }
        if wanted(Browser::Chromium) {
            dirs.push(config.join("chromium/NativeMessagingHosts"));
        }
    }
    Ok(dirs)
}

/// The manifest's file in one of [`manifest_dirs`].
pub fn manifest_path(dir: &Path) -> PathBuf {
    dir.join(format!("{HOST_NAME}.json"))
}

/// Write the manifest into each directory; returns the files written.
pub fn install(binary: &Path, dirs: &[PathBuf]) -> Result<Vec<PathBuf>, InstallError> {
    if !binary.is_absolute() {
        return Err(InstallError::RelativeBinary(binary.to_path_buf()));
    }
    let text = manifest(binary);
    let mut written = Vec::new();
    for dir in dirs {
        let path = manifest_path(dir);
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&path, &text))
            .map_err(|source| InstallError::Write {
                path: path.clone(),
                source,
            })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_names_the_binary_and_only_our_extension() {
        let m: serde_json::Value =
            serde_json::from_str(&manifest(Path::new("/opt/circe/bin/circe"))).unwrap();
        assert_eq!(m["name"], HOST_NAME);
        assert_eq!(m["path"], "/opt/circe/bin/circe");
        assert_eq!(m["type"], "stdio");
        assert_eq!(
            m["allowed_origins"],
            serde_json::json!([format!("chrome-extension://{EXTENSION_ID}/")])
        );
    }

    #[test]
    fn a_custom_profile_gets_its_own_directory() {
        let dirs = manifest_dirs(Browser::All, Some(Path::new("/tmp/profile"))).unwrap();
        assert_eq!(
            dirs,
            vec![PathBuf::from("/tmp/profile/NativeMessagingHosts")]
        );
    }

    #[test]
    fn relative_binaries_are_refused() {
        assert!(matches!(
            install(Path::new("circe"), &[]),
            Err(InstallError::RelativeBinary(_))
        ));
    }
}

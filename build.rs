//! Links pocketsphinx (src/voice/sphinx.rs) on Linux: the Debian packages `libpocketsphinx-dev`
//! and `libsphinxbase-dev` provide the libraries (scripts/test installs them). Other platforms
//! build without it and report the backend unsupported.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let multiarch = format!("/usr/lib/{arch}-linux-gnu");
    let dirs = [
        multiarch.as_str(),
        "/usr/lib",
        "/usr/lib64",
        "/usr/local/lib",
    ];
    for (lib, package) in [
        ("pocketsphinx", "libpocketsphinx-dev"),
        ("sphinxbase", "libsphinxbase-dev"),
    ] {
        let found = dirs
            .iter()
            .any(|d| Path::new(d).join(format!("lib{lib}.so")).exists());
        assert!(
            found,
            "circe links lib{lib} for its offline voice backend and it is missing: apt-get install {package} (scripts/test installs it)"
        );
        println!("cargo:rustc-link-lib={lib}");
    }
}

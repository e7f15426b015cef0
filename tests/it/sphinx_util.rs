//! Speech for the pocketsphinx tests and bench, synthesized at test time: flite (voice slt) and
//! espeak-ng, converted by sox to 16 kHz mono 16-bit; noise made by sox. A missing tool fails
//! with the package to install.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Debian packages (and a file each provides) the speech tests need.
pub const PACKAGES: [(&str, &str); 6] = [
    ("flite", "/usr/bin/flite"),
    ("espeak-ng", "/usr/bin/espeak-ng"),
    ("sox", "/usr/bin/sox"),
    (
        "pocketsphinx-en-us",
        "/usr/share/pocketsphinx/model/en-us/en-us/mdef",
    ),
    (
        "libpocketsphinx-dev",
        "/usr/include/pocketsphinx/pocketsphinx.h",
    ),
    ("libsphinxbase-dev", "/usr/share/doc/libsphinxbase-dev"),
];

pub fn require_packages() {
    let missing: Vec<&str> = PACKAGES
        .iter()
        .filter(|(_, f)| !Path::new(f).exists())
        .map(|(p, _)| *p)
        .collect();
    assert!(
        missing.is_empty(),
        "the speech tests need these Debian packages: apt-get install {} (scripts/test installs them)",
        missing.join(" ")
    );
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Voice {
    Flite,
    Espeak,
}

impl Voice {
    pub const BOTH: [Voice; 2] = [Voice::Flite, Voice::Espeak];

    pub fn name(self) -> &'static str {
        match self {
            Voice::Flite => "flite",
            Voice::Espeak => "espeak",
        }
    }
}

/// Where synthesized clips are kept for this process (one directory, removed at exit by the OS's
/// tmp cleaning; each clip is made once per process).
fn clip_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("circe-speech")
            .tempdir()
            .unwrap()
    })
    .path()
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn file_name(tag: &str, text: &str) -> PathBuf {
    let slug: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(60)
        .collect();
    clip_dir().join(format!("{tag}-{slug}.wav"))
}

/// `text` spoken by `voice`, as 16 kHz mono samples.
pub fn speech(voice: Voice, text: &str) -> Vec<i16> {
    require_packages();
    let out = file_name(voice.name(), text);
    if !out.exists() {
        let raw = out.with_extension("raw.wav");
        match voice {
            Voice::Flite => run(Command::new("flite")
                .args(["-voice", "slt", "-t", text, "-o"])
                .arg(&raw)),
            Voice::Espeak => run(Command::new("espeak-ng")
                .args(["-v", "en-us", "-s", "160", "-w"])
                .arg(&raw)
                .arg(text)),
        }
        run(Command::new("sox")
            .arg(&raw)
            .args(["-r", "16000", "-c", "1", "-b", "16"])
            .arg(&out));
    }
    read(&out)
}

/// Two seconds of sox-made sound: `silence`, `pink` noise, `hum` (120 Hz with harmonics).
pub fn noise(kind: &str) -> Vec<i16> {
    require_packages();
    let out = file_name("noise", kind);
    if !out.exists() {
        let effect: &[&str] = match kind {
            "silence" => &["trim", "0", "2"],
            "pink" => &["synth", "2", "pinknoise", "vol", "0.3"],
            "hum" => &[
                "synth", "2", "sine", "120", "sine", "240", "remix", "-", "vol", "0.4",
            ],
            other => panic!("no noise called {other}"),
        };
        run(Command::new("sox")
            .args(["-n", "-r", "16000", "-c", "1", "-b", "16"])
            .arg(&out)
            .args(effect));
    }
    read(&out)
}

fn read(path: &Path) -> Vec<i16> {
    circe::voice::sphinx::parse_wav(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Half a second of silence on both sides, as a microphone stream would have it.
pub fn padded(pcm: &[i16]) -> Vec<i16> {
    let mut v = vec![0i16; 8000];
    v.extend_from_slice(pcm);
    v.extend(std::iter::repeat_n(0i16, 8000));
    v
}

/// What is on the screen in these tests.
pub fn screen_labels() -> Vec<String> {
    [
        "MICKE desk",
        "LINNMON table",
        "KALLAX shelf",
        "small desk",
        "comments",
        "Sign in",
        "search box",
        "heading",
        "meeting notes",
        "Ahmedabad",
        "Wikipedia",
        "picture",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Commands the grammar covers (with on-screen proper nouns among them).
pub const COMMANDS: [&str; 16] = [
    "add the micke desk to my cart",
    "select the linnmon table",
    "open the kallax shelf page",
    "click the sign in button",
    "scroll down",
    "go back to the previous page",
    "close this tab",
    "zoom in",
    "play the next video",
    "reply to the first email",
    "open a new tab",
    "what's the weather in ahmedabad",
    "change the heading to meeting notes",
    "open the third story",
    "open the comments",
    "scroll up",
];

/// Ordinary speech with no stop word in it (the commands plus free dictation).
pub fn ordinary() -> Vec<&'static str> {
    let mut v = COMMANDS.to_vec();
    v.extend([
        "search youtube for lo-fi beats",
        "type hello world in the search box",
        "open the comments on the third story",
        "open a new tab and go to wikipedia",
    ]);
    v
}

/// Sentences no command on this screen fits.
pub const UNRELATED: [&str; 4] = [
    "the quick brown fox jumps over the lazy dog",
    "my grandmother grew tomatoes in her garden every summer",
    "i think it will rain tomorrow afternoon",
    "please remember to water the plants",
];

//! Issue 16's release gate, row 5 for the weather and YouTube tasks: twenty phrasings of each
//! (`tests/fixtures/release/{weather,youtube}-task.jsonl`, written and committed before they were
//! first run), every one typed through `circe say`, and every other one also spoken (flite's and
//! espeak-ng's voices in turn) through `circe say --audio` into the real recogniser. Each effect
//! is checked on the fixture server's own log (the places asked of the geocoder and the
//! forecasts; the YouTube requests), apart from what Circe says. Counts: completed, asked,
//! refused, wrong target, duplicate, false success; the last three must be 0.

use crate::browser_util::{wait_connected, Browser, RealSites, Sites};
use crate::release::{assert_the_gate, cases, Counts, How};
use crate::util::{Daemon, WeatherServer};
use crate::voice::{hear, norm, synth, text, the_request, voice_env, Voice};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The phrasings to run: all twenty typed, then every other one spoken, the voices in turn.
fn runs(cases: &[Value]) -> Vec<(&Value, How)> {
    let typed = cases.iter().map(|c| (c, How::Typed));
    let spoken = cases.iter().step_by(2).enumerate().map(|(i, c)| {
        let voice = if i % 2 == 0 {
            Voice::Flite
        } else {
            Voice::Espeak
        };
        (c, How::Spoken(voice))
    });
    typed.chain(spoken).collect()
}

/// Say `words` to `d` typed or spoken (waiting for the operation); returns what the daemon gave
/// back (the `say --json` reply, or the hearing) and the words it took in.
fn say(d: &Daemon, words: &str, how: How, audio: &Path, n: usize) -> (Value, String) {
    match how {
        How::Typed => {
            let out = d.cli(&["say", "--json", "--wait", words]);
            let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
            (v, words.to_string())
        }
        How::Spoken(voice) => {
            let wav = synth(audio, &format!("u{n}"), voice, words);
            let h = the_request(hear(d, &wav, &["--wait"]));
            let heard = text(&h);
            (h, heard)
        }
    }
}

/// The daemon's current interaction's pending question, if it waits for one.
fn pending(d: &Daemon) -> Value {
    let s: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
    let i = &s["interaction"];
    let waits = matches!(i["pending"]["type"].as_str(), Some("question" | "approval"));
    if i["closed"] == true || !waits {
        Value::Null
    } else {
        i["pending"].clone()
    }
}

fn report(what: &str, counts: &Counts, lines: &[String]) {
    eprintln!("{what}:");
    assert_the_gate(counts, lines);
}

/// The operation's status ("none" without one) and its outcome's summary.
fn ended(v: &Value) -> (String, String) {
    let field = |f: &Value, or: &str| f.as_str().unwrap_or(or).to_string();
    (
        field(&v["operation"]["status"], "none"),
        field(&v["operation"]["outcome"]["summary"], ""),
    )
}

/// What Circe said of it: the summary, else the refusal's reason or the error.
fn why(v: &Value, summary: String) -> String {
    if !summary.is_empty() {
        return summary;
    }
    v["outcome"]["reason"]
        .as_str()
        .or(v["error"]["message"].as_str())
        .unwrap_or("")
        .to_string()
}

fn label(how: How) -> String {
    match how {
        How::Typed => "typed".into(),
        How::Spoken(v) => format!("{v:?}"),
    }
}

#[test]
fn the_weather_task_in_twenty_phrasings_typed_and_spoken() {
    let cases = cases(include_str!("../fixtures/release/weather-task.jsonl"));
    assert!(cases.len() >= 20);
    let env = voice_env();
    let audio = tempfile::tempdir().unwrap();
    let (mut typed, mut spoken) = (Counts::default(), Counts::default());
    let mut lines = Vec::new();
    let mut samples = Vec::new();
    for (n, (case, how)) in runs(&cases).into_iter().enumerate() {
        let said = case["say"].as_str().unwrap();
        let place = case["place"].as_str().unwrap();
        let counts = match how {
            How::Typed => &mut typed,
            How::Spoken(_) => &mut spoken,
        };
        // A fresh daemon and weather server per phrasing: its logs are this phrasing's alone.
        let weather = WeatherServer::start();
        let d = Daemon::start_with_env(&weather.config(), env.clone());
        let (mut v, mut heard) = say(&d, said, how, audio.path(), 2 * n);
        let mut asked = false;
        if !pending(&d).is_null() {
            asked = true;
            if let Some(answer) = case["answer"].as_str() {
                (v, _) = say(&d, answer, how, audio.path(), 2 * n + 1);
                heard = format!("{heard} / {}", text(&v).trim());
            }
        }
        let (status, summary) = ended(&v);
        if matches!(how, How::Spoken(_)) {
            samples.extend(crate::release::latencies(&d));
        }
        let names = weather.names.lock().unwrap().clone();
        let forecasts = weather.forecasts.load(Ordering::SeqCst);
        let found: Vec<&String> = names
            .iter()
            .filter(|n| ["ahmedabad", "pune", "mumbai"].contains(&n.to_lowercase().as_str()))
            .collect();
        if found.iter().any(|n| !n.eq_ignore_ascii_case(place)) && forecasts > 0 {
            counts.wrong_target += 1;
        }
        if forecasts > 1 {
            counts.duplicate += 1;
        }
        let heard_right = norm(&heard).contains(&place.to_lowercase());
        let class = match status.as_str() {
            "completed" if summary.contains(place) && forecasts == 1 => {
                counts.completed += 1;
                "completed"
            }
            "completed" if !heard_right => {
                counts.misheard += 1;
                "misheard"
            }
            "completed" => {
                counts.false_success += 1;
                "FALSE SUCCESS"
            }
            _ if !pending(&d).is_null() => {
                assert_eq!(forecasts, 0, "nothing looked up while it asks: {said}");
                counts.asked += 1;
                "asked"
            }
            "blocked" | "none" => {
                assert_eq!(forecasts, 0, "a refusal looked nothing up: {said}");
                counts.refused += 1;
                "refused"
            }
            _ => {
                counts.unknown += 1;
                "unknown"
            }
        };
        let why = why(&v, summary);
        let asked = if asked { " (asked, answered)" } else { "" };
        lines.push(format!(
            "{class:<14} {:<7} {said}{asked} [heard: {heard}] → {why}",
            label(how)
        ));
    }
    eprintln!(
        "weather, spoken, from the end of speech (each utterance):\n{}",
        crate::release::distribution(&samples)
    );
    report("typed", &typed, &lines);
    report("spoken", &spoken, &lines);
    assert!(typed.completed >= WEATHER_TYPED_FLOOR, "{typed:?}");
    // Spoken, the first run completed none (Whisper tiny.en heard no Indian place name right;
    // Circe asked again every time): no floor but the three zeros above.
}

/// The first run's completed count (docs/RELEASE.md), never lowered: typed 15 of 20.
const WEATHER_TYPED_FLOOR: u32 = 15;

/// The query a results request asked for, in words: `lo-fi+beats` → "lofibeats" (spoken forms
/// and capitals differ: "lofi beats", "Lo-Fi Beats").
fn squeezed(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

fn percent_decoded(s: &str) -> String {
    let bytes = s.replace('+', " ").into_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&String::from_utf8_lossy(&bytes[i + 1..i + 3]), 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn the_youtube_search_in_twenty_phrasings_typed_and_spoken() {
    let cases = cases(include_str!("../fixtures/release/youtube-task.jsonl"));
    assert!(cases.len() >= 20);
    let audio = tempfile::tempdir().unwrap();
    // One desktop Chrome for the whole run, its front tab wherever the last phrasing left it
    // (a news page at first): each phrasing's effect is the requests made during it.
    let sites = Sites::start();
    let real = RealSites::start();
    let d = Daemon::start_with_env("[node]\nname = \"desk\"\n", voice_env());
    let _chrome = Browser::start_with(&d, &format!("{}/news/index.html", sites.url), &real.flags());
    wait_connected(&d, Duration::from_secs(30));
    let (mut typed, mut spoken) = (Counts::default(), Counts::default());
    let mut lines = Vec::new();
    for (n, (case, how)) in runs(&cases).into_iter().enumerate() {
        let said = case["say"].as_str().unwrap();
        let query = case["query"].as_str().unwrap();
        let counts = match how {
            How::Typed => &mut typed,
            How::Spoken(_) => &mut spoken,
        };
        let seen = real.requests().len();
        let news = sites.actions().len();
        let (v, heard) = say(&d, said, how, audio.path(), n);
        let (status, summary) = ended(&v);
        let searches: Vec<String> = real.requests()[seen..]
            .iter()
            // The address a navigation opens (/results) or the page's own form (results.html).
            .filter_map(|r| {
                r.strip_prefix("www.youtube.com /results?search_query=")
                    .or(r.strip_prefix("www.youtube.com /results.html?search_query="))
            })
            .map(percent_decoded)
            .collect();
        let right = searches.iter().any(|q| squeezed(q) == squeezed(query));
        let wrong =
            searches.iter().any(|q| squeezed(q) != squeezed(query)) || sites.actions().len() > news;
        if searches.len() > 1 {
            counts.duplicate += 1;
        }
        let heard_right = squeezed(&heard).contains(&squeezed(query));
        let class = match status.as_str() {
            "completed" if right => {
                counts.completed += 1;
                "completed"
            }
            "completed" if !heard_right => {
                counts.misheard += 1;
                "misheard"
            }
            "completed" => {
                counts.false_success += 1;
                "FALSE SUCCESS"
            }
            _ if !pending(&d).is_null() => {
                assert!(
                    searches.is_empty(),
                    "nothing searched while it asks: {said}"
                );
                counts.asked += 1;
                // Leave the question: the next phrasing is a request of its own.
                "asked"
            }
            "blocked" | "none" => {
                assert!(searches.is_empty(), "a refusal searched nothing: {said}");
                counts.refused += 1;
                "refused"
            }
            _ => {
                counts.unknown += 1;
                "unknown"
            }
        };
        let why = why(&v, summary);
        lines.push(format!(
            "{class:<14} {:<7} {said} [heard: {heard}] → {why}",
            label(how)
        ));
        // A misheard query (searched as heard) is not a wrong target of Circe's.
        if wrong && class != "misheard" {
            counts.wrong_target += 1;
        }
    }
    // One daemon heard every spoken phrasing: its metrics are their distribution.
    let m = d.cli(&["metrics", "--json"]);
    let m: Value = serde_json::from_slice(&m.stdout).unwrap_or(Value::Null);
    eprintln!("YouTube, spoken, from the end of speech: {m}");
    let verified = m
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["phase"] == "verifiedResult")
        .and_then(|r| r["count"].as_u64())
        .unwrap_or(0);
    report("typed", &typed, &lines);
    report("spoken", &spoken, &lines);
    assert!(
        verified >= u64::from(spoken.completed),
        "every completed spoken search recorded its verified effect: {m}"
    );
    assert!(typed.completed >= YOUTUBE_TYPED_FLOOR, "{typed:?}");
    assert!(spoken.completed >= YOUTUBE_SPOKEN_FLOOR, "{spoken:?}");
}

/// The first run's completed counts (docs/RELEASE.md), never lowered: typed 13 of 20 (with 5
/// wrong, since fixed in general); spoken 1 of 10 (seven misheard by Whisper tiny.en).
const YOUTUBE_TYPED_FLOOR: u32 = 13;
const YOUTUBE_SPOKEN_FLOOR: u32 = 1;

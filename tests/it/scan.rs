//! The complete scan (issue 10): names, descriptions, roles and states from Chrome's own
//! accessibility tree, click targets that only a script makes, cross-origin frames, and a
//! consent banner in another language. Real Chromium, the bundled extension, the native host
//! and `circe serve`; the fixture pages are `tests/fixtures/sites/scan/`.

use crate::browser_util::*;
use crate::util::Daemon;
use serde_json::{json, Value};

/// The observation the operation grounded its decision in: its first step's evidence names it
/// by id, and `circe ops --observation ID --json` fetches it (`seen` puts it under "seen").
fn observation(v: &Value) -> &Value {
    &v["seen"]["observation"]
}

/// `v` (what `say` printed) with the observation of its first step, fetched by its id.
fn seen(d: &Daemon, mut v: Value) -> Value {
    let id = v["operation"]["steps"][0]["evidence"]["observation"]
        .as_str()
        .unwrap_or_else(|| panic!("the first step names its observation: {v:#}"))
        .to_string();
    if !v["operation"]["steps"][1].is_null() {
        // The step grounded in it names the same observation.
        assert_eq!(
            v["operation"]["steps"][1]["observation"],
            id.as_str(),
            "{v:#}"
        );
    }
    let out = d.cli(&["ops", "--observation", &id, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    v["seen"] = serde_json::from_slice(&out.stdout).unwrap();
    v
}

fn elements(v: &Value) -> Vec<Value> {
    observation(v)["elements"]
        .as_array()
        .unwrap_or_else(|| panic!("no observation: {v:#}"))
        .clone()
}

/// The observed element with this label (the first one).
fn element(v: &Value, label: &str) -> Value {
    elements(v)
        .into_iter()
        .find(|e| e["label"] == label)
        .unwrap_or_else(|| {
            panic!(
                "no element labelled {label:?} in {:#}",
                observation(v)["elements"]
            )
        })
}

#[test]
fn a_vote_arrow_drawn_as_a_character_is_found_by_its_title() {
    let (sites, d, _b) = setup("/scan/news.html");
    let v = seen(&d, say(&d, "upvote the third story"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "scan", "action": "upvote", "item": 3})]
    );
    // The link's text is "▲"; its word is its title, as the accessibility tree describes it.
    let arrow = element(&v, "upvote");
    assert_eq!(arrow["role"], "link", "{arrow}");
    assert_eq!(arrow["description"], "upvote", "{arrow}");
    assert!(
        arrow["context"].as_str().unwrap().starts_with("1. ▲"),
        "{arrow}"
    );
    let third: Vec<Value> = elements(&v)
        .into_iter()
        .filter(|e| e["label"] == "upvote")
        .collect();
    assert!(
        third.len() >= 20,
        "every visible arrow is observed: {third:?}"
    );
    assert_eq!(observation(&v)["names"]["source"], "accessibility");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(summary.starts_with("Clicked \"upvote\" (3 of"), "{summary}");
}

#[test]
fn symbol_only_controls_are_found_by_their_words() {
    let (sites, d, _b) = setup("/scan/controls.html");
    let v = seen(&d, say(&d, "click the close button"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "scan", "action": "close", "item": 1})]
    );
    // ✕ titled "Close", ☰ described by a hidden "Menu", ⋮ titled "More options", and a button
    // whose only content is an SVG with <title>Star</title>.
    let close = element(&v, "Close");
    assert_eq!(
        (&close["role"], &close["description"]),
        (&json!("button"), &json!("Close"))
    );
    let menu = element(&v, "Menu");
    assert_eq!(menu["description"], "Menu", "{menu}");
    assert_eq!(element(&v, "More options")["role"], "button");
    assert_eq!(element(&v, "Star")["role"], "button");
    assert_eq!(observation(&v)["names"]["source"], "accessibility");

    // (⋮ "More options" is observed as such; the Director grounds "more options" to the page's
    // "Load more" instead, a grounding question outside the scan, so it is not commanded here.)
    // "open the menu" may ask (⋮ "More options" opens a menu too): the ☰ must then be the
    // first choice, found by its word, and choosing it clicks it.
    for (said, action) in [("open the menu", "menu"), ("click the star", "star")] {
        let mut v = say(&d, said);
        if status(&v) == "needsInput" && action == "menu" {
            let prompt = v.to_string();
            assert!(prompt.contains("1. \\\"Menu\\\""), "{said}: {v:#}");
            let out = d.cli(&["answer", "--json", "--wait", "the first one"]);
            v = serde_json::from_slice(&out.stdout).unwrap();
        }
        assert_eq!(status(&v), "completed", "{said}: {v:#}");
        assert_eq!(
            sites.actions().last(),
            Some(&json!({"site": "scan", "action": action, "item": 1})),
            "{said}"
        );
    }
    assert_eq!(sites.actions().len(), 3, "{:?}", sites.actions());
}

#[test]
fn script_made_click_targets_are_observed_and_clicked() {
    let (sites, d, _b) = setup("/scan/controls.html");
    // A div with only a click listener (no role, no tabindex, no pointer cursor).
    let v = seen(&d, say(&d, "load more"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "scan", "action": "load-more", "item": 1})]
    );
    assert_eq!(element(&v, "Load more")["role"], "button");
    // A span whose listener navigates is a link; so is a div whose onclick attribute does.
    assert_eq!(element(&v, "Documentation")["role"], "link");
    assert_eq!(element(&v, "Help center")["role"], "link");
    // A span with only cursor: pointer (its click is handled by a listener on the document).
    assert_eq!(element(&v, "Show archived")["role"], "button");

    let v = seen(&d, say(&d, "show archived"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions()[1],
        json!({"site": "scan", "action": "chip-archive", "item": 1})
    );

    let before = sites.gets().len();
    let v = seen(&d, say(&d, "open the documentation"));
    assert_eq!(status(&v), "completed", "{v:#}");
    let gets = sites.gets()[before..].to_vec();
    assert!(
        gets.iter().any(|g| g == "/scan/controls.html?page=docs"),
        "{gets:?}"
    );
    assert_eq!(sites.actions().len(), 2, "{:?}", sites.actions());
}

#[test]
fn a_link_named_only_link_is_found_by_its_image() {
    let (sites, d, _b) = setup("/scan/controls.html");
    // Two image links whose aria-label is the bare role word "Link": what they are is only in
    // their images' alt text (and where they go), which the scan keeps as their description.
    let before = sites.gets().len();
    let v = seen(&d, say(&d, "open twitter"));
    assert_eq!(status(&v), "completed", "{v:#}");
    let links: Vec<Value> = elements(&v)
        .into_iter()
        .filter(|e| e["label"] == "Link")
        .collect();
    assert_eq!(links.len(), 2, "{v:#}");
    let described: Vec<&str> = links
        .iter()
        .map(|e| e["description"].as_str().unwrap_or(""))
        .collect();
    assert!(described[0].contains("Twitter icon"), "{described:?}");
    assert!(described[1].contains("facebook icon"), "{described:?}");
    let gets = sites.gets()[before..].to_vec();
    assert!(
        gets.iter()
            .any(|g| g == "/scan/controls.html?page=follow-twitter"),
        "{gets:?}"
    );
}

/// Where each link goes is scanned (host and path, the query only as a fingerprint): the two
/// "Home" links go to one page, so either is followed at once; the two "Instagram" links go to
/// two accounts, so the request is asked about, and nothing is clicked.
#[test]
fn links_of_one_name_are_one_thing_only_when_they_go_to_one_place() {
    let (sites, d, _b) = setup("/scan/links.html");
    let before = sites.gets().len();
    let v = seen(&d, say(&d, "go to the home page"));
    assert_eq!(status(&v), "completed", "{v:#}");
    let gets = sites.gets()[before..].to_vec();
    assert!(
        gets.iter().any(|g| g == "/scan/links.html?page=home"),
        "{gets:?}"
    );
    let destinations = |label: &str| -> Vec<String> {
        elements(&v)
            .into_iter()
            .filter(|e| e["label"] == label)
            .map(|e| e["destination"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let home = destinations("Home");
    assert_eq!(home.len(), 2, "{v:#}");
    assert_eq!(home[0], home[1]);
    assert!(home[0].contains("/scan/links.html "), "{home:?}");
    assert!(
        !home[0].contains("page=home"),
        "the query is never sent: {home:?}"
    );
    let instagram = destinations("Instagram");
    assert_eq!(instagram.len(), 2, "{v:#}");
    assert!(
        instagram[0].starts_with("www.instagram.com/magazine/ ")
            && instagram[1] == "www.instagram.com/jane.doe/",
        "{instagram:?}"
    );
    assert_ne!(destinations("Magazine"), destinations("Imprint"));

    // Back on the page, "open instagram" is a question between the two accounts.
    let v = say(&d, "go back");
    assert_eq!(status(&v), "completed", "{v:#}");
    let out = d.cli(&["say", "--json", "open instagram"]);
    assert!(out.status.success(), "{}", crate::util::stderr(&out));
    let mut question = Value::Null;
    for _ in 0..200 {
        let s: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
        if s["interaction"]["pending"]["type"] == "question" {
            question = s["interaction"]["pending"].clone();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let choices = question["choices"]
        .as_array()
        .unwrap_or_else(|| panic!("no question: {}", d.log()));
    assert_eq!(choices.len(), 2, "{question:#}");
    assert!(
        choices
            .iter()
            .all(|c| c["label"].as_str().unwrap_or("").contains("Instagram")),
        "{question:#}"
    );
    assert!(sites.actions().is_empty(), "nothing clicked while asking");
}

#[test]
fn a_cross_origin_frame_is_observed_through_its_own_frame() {
    let (sites, d, _b) = setup("/scan/controls.html");
    let v = seen(&d, say(&d, "subscribe to the newsletter"));
    assert_eq!(status(&v), "completed", "{v:#}");
    // The frame is http://localhost:PORT inside http://127.0.0.1:PORT: another site, its own
    // renderer process and debugger target.
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "scan", "action": "subscribe", "item": "localhost"})]
    );
    let button = element(&v, "Subscribe to the newsletter");
    assert_ne!(button["frameId"], 0, "{button}");
    assert_eq!(button["role"], "button");
    let obs = observation(&v);
    assert_eq!(
        obs["names"]["source"], "accessibility",
        "the frame's names come from its own target's tree too: {}",
        obs["names"]
    );
    assert!(
        obs.get("unobserved").is_none(),
        "every frame on screen was observed: {}",
        obs["unobserved"]
    );
}

#[test]
fn a_german_consent_banner_accepts_all_cookies_in_english() {
    let (sites, d, _b) = setup("/scan/consent.html");
    let v = seen(&d, say(&d, "accept all cookies"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "scan", "action": "cookies", "item": "accept"})]
    );
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(summary.contains("Alle akzeptieren"), "{summary}");
}

#[test]
fn a_frame_no_content_script_can_read_is_reported_as_not_observed() {
    let (sites, d, _b) = setup("/scan/frames.html");
    let v = seen(&d, say(&d, "click continue"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "scan", "action": "continue", "item": 1})]
    );
    // The frame's server refuses the connection: Chrome shows its own error page there, where
    // no extension runs. It is listed, never silently missing.
    let unobserved = observation(&v)["unobserved"]
        .as_array()
        .unwrap_or_else(|| panic!("no unobserved frames: {:#}", observation(&v)))
        .clone();
    assert_eq!(unobserved.len(), 1, "{unobserved:?}");
    assert_eq!(unobserved[0]["url"], "http://127.0.0.1:9/offer.html");
    assert!(
        unobserved[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no Circe content script"),
        "{unobserved:?}"
    );
    // The same-origin frame beside it is observed, its names from the tree like the page's.
    let button = element(&v, "Subscribe to the newsletter");
    assert_ne!(button["frameId"], 0, "{button}");
    assert_eq!(observation(&v)["names"]["source"], "accessibility");
}

/// A file list built as an ARIA grid (GitHub's): its icon, name and date cells are not targets of
/// their own (the links inside are), so "open the tests folder" and "the second file" open the
/// named link, never the "Directory" / "File" icon cell of its row. A date picker's focusable,
/// selectable cells stay targets.
#[test]
fn a_grids_cells_are_targets_only_when_they_can_be() {
    let (sites, d, _b) = setup("/scan/grid.html");
    let opened = |from: usize| -> Vec<String> {
        sites.gets()[from..]
            .iter()
            .filter(|g| g.starts_with("/scan/grid.html?"))
            .cloned()
            .collect()
    };
    let before = sites.gets().len();
    let v = seen(&d, say(&d, "open the tests folder"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(opened(before), vec!["/scan/grid.html?open=tests"]);
    let all = elements(&v);
    for label in ["Directory", "File", "May 10, 2022", "Sep 14, 2021"] {
        assert!(
            !all.iter().any(|e| e["label"] == label),
            "{label:?} is a cell, not a target: {all:#?}"
        );
    }
    assert!(
        !all.iter()
            .any(|e| e["role"] == "gridcell" && e["label"] == "tests"),
        "the name cell is not a second target beside its link: {all:#?}"
    );
    for day in ["12", "13", "14"] {
        let cell = element(&v, day);
        assert_eq!(cell["role"], "gridcell", "{cell}");
    }

    let before = sites.gets().len();
    let v = say(&d, "show me the git ignore file");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(opened(before), vec!["/scan/grid.html?open=gitignore"]);
    assert!(sites.actions().is_empty(), "{:?}", sites.actions());
}

/// A style sheet beside a post's controls is no text of the post: the controls' context is the
/// post's words, never CSS (a real Reddit page gave every control its theme sheet as context).
#[test]
fn a_style_sheet_is_no_context() {
    let (sites, d, _b) = setup("/scan/styled.html");
    let v = seen(&d, say(&d, "hide this post"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![json!({"site": "scan", "action": "hide", "item": 1})]
    );
    for label in ["Share", "Save", "Hide"] {
        let e = element(&v, label);
        let context = e["context"].as_str().unwrap_or_default();
        assert!(context.contains("What to put in __init__.py"), "{e}");
    }
    for e in elements(&v) {
        let context = e["context"].as_str().unwrap_or_default();
        assert!(!context.contains("--theme"), "{e}");
    }
}

/// A link wrapped over two lines, and links whose neighbours' padding lies over their middle,
/// are on screen where their words show: scanned, and clicked there.
#[test]
fn a_link_is_seen_and_clicked_where_it_shows_not_only_at_its_centre() {
    let (sites, d, _b) = setup("/scan/wrapped.html");
    let before = sites.gets().len();
    let v = seen(&d, say(&d, "open photos"));
    assert_eq!(status(&v), "completed", "{v:#}");
    for label in [
        "Photos",
        "Posters",
        "Communication and press",
        "Videos",
        "expect shortages throughout the year",
    ] {
        element(&v, label);
    }
    let gets = sites.gets()[before..].to_vec();
    assert!(
        gets.iter().any(|g| g == "/scan/wrapped.html?page=photos"),
        "{gets:?}"
    );
    let before = sites.gets().len();
    let v = say(&d, "open the link about shortages");
    assert_eq!(status(&v), "completed", "{v:#}");
    let gets = sites.gets()[before..].to_vec();
    assert!(
        gets.iter()
            .any(|g| g == "/scan/wrapped.html?page=shortages"),
        "{gets:?}"
    );
}

/// A sign-up form whose `<label for>` attributes name ids its fields do not have (as real ones
/// do): the accessibility tree names none of the fields, and the scan takes the broken label a
/// person reads beside each one (after a radio button, before the other fields), never a label
/// that names another control.
#[test]
fn fields_whose_labels_point_nowhere_are_named_by_the_label_beside_them() {
    let (_sites, d, _b) = setup("/scan/signup.html");
    let v = seen(&d, say(&d, "type 33101 into the zip code"));
    assert_eq!(status(&v), "completed", "{v:#}");
    let named = |role: &str| -> Vec<String> {
        elements(&v)
            .into_iter()
            .filter(|e| e["role"] == role)
            .map(|e| e["label"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(
        named("combobox"),
        ["Date of Birth", "Date of Birth", "Country"],
        "{v:#}"
    );
    assert_eq!(named("radio"), ["Man", "Woman", "Man", "Woman"], "{v:#}");
    assert_eq!(
        named("textbox"),
        // The year field follows the two selects; the field after the zip code has no name of
        // its own, and the working label before it is the zip code's.
        ["Email Address", "Date of Birth", "Zip / Postal Code", ""],
        "{v:#}"
    );
    assert_eq!(named("checkbox"), ["I accept the terms"], "{v:#}");
    let summary = v["operation"]["outcome"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Typed \"33101\" into \"Zip / Postal Code\""),
        "{summary}"
    );
}

//! The glossary (src/glossary.rs): built by `circe install-glossary` from the real FreeDict
//! dictionaries, read by the daemon, and used when a page is in another language: "real estate"
//! said on a German comparison site opens its "Immobilien" tab in real Chromium, and without the
//! glossary the same words act on nothing.

use crate::browser_util::{say, status, wait_connected, Browser, Sites};
use crate::util::*;
use std::time::Duration;

#[test]
fn install_glossary_builds_every_installed_language_and_refuses_a_wrong_source() {
    let to = tempfile::tempdir().unwrap();
    let d = Daemon::quiet("");
    let out = d.cli(&[
        "install-glossary",
        "--json",
        "--to",
        to.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let built: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let languages: Vec<&str> = built
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["language"].as_str().unwrap())
        .collect();
    for l in [
        "de", "fr", "es", "pl", "cs", "sv", "da", "ru", "hr", "el", "bg", "id", "sl",
    ] {
        assert!(languages.contains(&l), "{languages:?}");
    }
    let g = circe::glossary::Glossary::load(to.path()).unwrap();
    for (language, word, gloss) in [
        ("de", "versicherungen", "insurance"),
        ("de", "immobilien", "estate"),
        ("de", "konto", "account"),
        ("de", "betrag", "amount"),
        ("fr", "compte", "account"),
        ("es", "cuenta", "account"),
        ("pl", "komentarz", "comment"),
        ("pl", "konto", "account"),
        // Read backwards from English-Czech: FreeDict's Czech-English has a few hundred words.
        ("cs", "ucet", "account"),
        ("sv", "konto", "account"),
        ("da", "konto", "account"),
        // Read backwards from Mueller's English-Russian (package mueller7-dict).
        ("ru", "новость", "news"),
        ("ru", "регистрация", "registration"),
        ("hr", "kosarica", "basket"),
        ("hr", "lijecnik", "doctor"),
        ("el", "αναζητηση", "search"),
        // Read backwards from English-Bulgarian and English-Indonesian.
        ("bg", "количка", "trolley"),
        ("id", "keranjang", "basket"),
        // Slovenian-English only: the English words are read backwards from it.
        ("sl", "narociti", "order"),
        ("sl", "vprasanje", "question"),
    ] {
        let glosses = g.lookup(language, word);
        assert!(glosses.contains(&gloss), "{language} {word}: {glosses:?}");
    }

    let nowhere = tempfile::tempdir().unwrap();
    let out = d.cli(&[
        "install-glossary",
        "--from",
        nowhere.path().to_str().unwrap(),
        "--to",
        to.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("apt-get install dict-freedict-deu-eng"),
        "{}",
        stderr(&out)
    );
    // What was built before is untouched.
    assert!(circe::glossary::Glossary::load(to.path()).is_ok());
}

/// A German page's label words get English glosses; an English page's get none.
#[test]
fn a_german_page_is_glossed_and_an_english_one_is_not() {
    let g = glossary();
    let german = circe::eval::load_observation(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/grounding/observations/form-verivox.json"
    )))
    .unwrap();
    let glosses = g.glosses(&german).expect("a German page");
    assert_eq!(glosses.language, "de");
    assert!(glosses.words["versicherungen"].contains(&"insurance".to_string()));
    // A compound not in the dictionary is read by its last part.
    assert!(
        glosses.words["nettokreditbetrag"].contains(&"amount".to_string()),
        "{:?}",
        glosses.words.get("nettokreditbetrag")
    );
    // The other direction: an English word said, in the page's language.
    assert!(g.translate("de", "insurance").contains(&"versicherung"));
    let said = g.glosses_for(&german, "compare now").unwrap();
    assert!(
        said.words["vergleichen"].contains(&"compare".to_string()),
        "{:?}",
        said.words.get("vergleichen")
    );
    let english = circe::eval::load_observation(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/grounding/observations/forge-github.json"
    )))
    .unwrap();
    assert_eq!(g.glosses(&english), None);
}

/// A Polish page's labels get English glosses, inflected ones by their base forms
/// ("KOMENTARZE" → komentarz, "SKŁADY" → skład, "O MECZU" → mecz).
#[test]
fn a_polish_page_is_glossed() {
    let g = glossary();
    let polish = circe::eval::load_observation(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/grounding/observations/sports-sportowefakty.json"
    )))
    .unwrap();
    let glosses = g.glosses(&polish).expect("a Polish page");
    assert_eq!(glosses.language, "pl");
    for (word, gloss) in [
        ("komentarze", "comment"),
        ("sklady", "line"),
        ("meczu", "match"),
        ("relacja", "story"),
    ] {
        assert!(
            glosses
                .words
                .get(word)
                .is_some_and(|g| g.iter().any(|g| g == gloss)),
            "{word}: {:?}",
            glosses.words.get(word)
        );
    }
}

/// A Russian page (football.ua) is told by its writing system and glossed through Mueller's
/// English-Russian dictionary read backwards, inflected labels by their base forms ("Новости"
/// → новость, "Матчи и турниры" → матч, турнир, "Битва редакций" → битва).
#[test]
fn a_russian_page_is_glossed() {
    let g = glossary();
    let russian = circe::eval::load_observation(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/grounding/observations/sportsnews-footballua.json"
    )))
    .unwrap();
    let glosses = g.glosses(&russian).expect("a Russian page");
    assert_eq!(glosses.language, "ru");
    for (word, gloss) in [
        ("новости", "news"),
        ("матчи", "match"),
        ("турниры", "tournament"),
        ("битва", "battle"),
        ("календарь", "calendar"),
        ("чемпионат", "championship"),
    ] {
        assert!(
            glosses
                .words
                .get(word)
                .is_some_and(|g| g.iter().any(|g| g == gloss)),
            "{word}: {:?}",
            glosses.words.get(word)
        );
    }
    // English said, in Russian: the other direction.
    assert!(
        g.translate("ru", "news").contains(&"новости"),
        "{:?}",
        g.translate("ru", "news")
    );
}

/// Real daemon, real Chromium, the saved Verivox page: "real estate" opens the "Immobilien"
/// tab with the glossary, and acts on nothing without it.
#[test]
fn real_estate_said_on_a_german_page_opens_immobilien() {
    let sites = Sites::start();
    let page = format!("{}/real/form-verivox/index.html", sites.url);

    let without = Daemon::start_with_env(
        "",
        vec![("CIRCE_GLOSSARY_DIR".into(), "/nonexistent/glossary".into())],
    );
    let _b = Browser::start(&without, &page);
    wait_connected(&without, Duration::from_secs(30));
    let v = say(&without, "real estate");
    assert_ne!(status(&v), "completed", "{v:#}");
    drop(_b);

    let with = Daemon::start_with_env(
        "",
        vec![(
            "CIRCE_GLOSSARY_DIR".into(),
            glossary_dir().to_str().unwrap().into(),
        )],
    );
    let _b = Browser::start(&with, &page);
    wait_connected(&with, Duration::from_secs(30));
    let v = say(&with, "real estate");
    assert_eq!(status(&v), "completed", "{v:#}\n{}", with.log());
    let clicked = v["operation"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["action"]
                .as_str()
                .is_some_and(|a| a.starts_with("clicked"))
        })
        .unwrap_or_else(|| panic!("a click: {v:#}"));
    assert!(
        clicked["action"].as_str().unwrap().contains("Immobilien"),
        "{clicked:#}"
    );
}

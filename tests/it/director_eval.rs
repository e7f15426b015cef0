//! The grounding corpora: the shared dev set and Circe's own held-out cases.

use std::path::Path;

use circe::director::local::LocalDecider;
use circe::eval::{run_corpus_with_signals, EvalError, EvalReport};

/// A corpus as the daemon grounds it without the semantic model: Circe's own words, and the
/// glossary for screens in another language.
fn run_corpus(path: &Path, decider: &LocalDecider) -> Result<EvalReport, EvalError> {
    run_corpus_with_signals(path, decider, None, Some(crate::util::glossary()))
}

/// A copy of the shared development corpus (`shared/eval/dev`), kept in the repository so the
/// test always runs.
const DEV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/eval/dev");

#[test]
fn dev_corpus_meets_the_targets() {
    let path = Path::new(DEV);
    let report = run_corpus(path, &LocalDecider).expect("corpus");
    println!("{report}");
    assert_eq!(report.wrong_target, 0, "{report}");
    assert_eq!(report.acted_instead, 0, "{report}");
    assert!(report.correct_rate() >= 0.90, "{report}");
    assert!(report.asked_right_rate() >= 0.95, "{report}");
}

/// Circe's own held-out cases.
const OWN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/grounding");

/// First-run batches awaiting fixes: new blind batches of cases (file names in
/// `tests/fixtures/grounding`), committed and scored once before any change prompted by them
/// (docs/GROUNDING.md, blind first runs). `own_cases_are_safe` skips them until they are safe
/// (0 wrong targets, 0 acted instead); remove a file from this list when its batch is.
/// What each still gets wrong is listed in docs/GROUNDING.md.
const FIRST_RUN_PENDING: &[&str] = &[
    "shop-ebrosia.jsonl",
    "form-verivox.jsonl",
    // Batch 11 (docs/batch11-first-run.md): a wrong target and an acted-instead case left.
    "dictionary-wordsmith.jsonl",
    // Batch 12 (docs/batch12-first-run.md): an acted-instead case each, a wrong target.
    "blog-firefoxnightly.jsonl",
    "public-nationalrail.jsonl",
    // Batch 14 (docs/batch14-first-run.md): wrong targets and an acted-instead case left.
    "reviews-trustpilot.jsonl",
    "gov-parcoabruzzo.jsonl",
    "standards-ietf.jsonl",
    // Batch 15 (docs/batch15-first-run.md): first run, nothing changed for it yet.
    "events-goodnight.jsonl",
    // Batch 18 (docs/batch18-first-run.md): first run, nothing changed for it yet.
    "guide-fifplay.jsonl",
    "address-whitehouse.jsonl",
    // Batch 21 (docs/batch21-first-run.md): first run, nothing changed for it yet.
    "patchnotes-villagersandheroes.jsonl",
    "university-rutgers.jsonl",
    "travelblog-pixnet.jsonl",
    // Batch 22 (docs/batch22-first-run.md): a wrong target and acted-instead cases left.
    "directory-bahamaslocal.jsonl",
    "foodportal-mindmegette.jsonl",
    // Batch 23: the Russian glossary (stop 28) turned 8 rejections into 3 right clicks and 5
    // right questions, and "open the championship" into a click on "Чемпионат мира" where
    // the batch asks between it and "Евро-2020".
    "sportsnews-footballua.jsonl",
    // Batch 24 (docs/batch24-first-run.md): first run, nothing changed for it yet.
    "music-tidal.jsonl",
    "docs-docker.jsonl",
    // Batch 25 (docs/batch25-first-run.md): first run, nothing changed for it.
    "creditcards-thepointsguy.jsonl",
    "permits-hejfish.jsonl",
    // Batch 26 (docs/batch26-first-run.md): first run; only "more from The Office" changed.
    "community-habr.jsonl",
    "zoo-zooberlin.jsonl",
    "gifs-giphy.jsonl",
    // Batch 27 (docs/batch27-first-run.md): first run, nothing changed for it.
    "humor-pikabu.jsonl",
    "loans-giromatch.jsonl",
    // Batch 29 (docs/batch29-first-run.md): first run, nothing changed for it.
    "producttest-adac.jsonl",
    // Batch 30 (docs/batch30-first-run.md): first run, nothing changed for it.
    "jobs-jobsnhire.jsonl",
    // Batch 35 (docs/batch35-first-run.md): "find an on-call pharmacy" types into the city's
    // search (the batch expects "Notdienste"); "open the Xbox Facebook group" clicks the one
    // group link that says all three words (the batch asks between two Xbox groups on Facebook).
    "city-stuttgart.jsonl",
    "gamedb-coopbuddy.jsonl",
    // Batch 36 (docs/batch36-first-run.md): first run, nothing changed for it yet.
    "devtools-mozilla.jsonl",
    "customs-zoll.jsonl",
    // Batch 39 (docs/batch39-first-run.md): "I want a refund" clicks the one link whose address
    // says refund (the batch asks between it and My TMON's cancel/refund/exchange, which only
    // the Korean says); "find me a dentist" types into the search field.
    "socialcommerce-tmon.jsonl",
    "healthservices-eklinika.jsonl",
    // Batch 42 (docs/batch42-first-run.md): "show me the flip flops" clicks *Full Flop* (the
    // batch asks among No Flip, Half Flip and Full Flop).
    "factcheck-politifact.jsonl",
    // Batch 45 (docs/batch45-first-run.md): "write a review saying the souvlaki was great and
    // send it off" types the text and then sends (the two steps it says); the batch expects the
    // planner.
    "restaurant-iens.jsonl",
    // Batch 46 (docs/batch46-first-run.md): "show me the public tenders" clicks *Publicações
    // Oficiais* ("public" meets the start of the Portuguese word; "tenders" nothing on screen).
    "gazette-cianorte.jsonl",
    // Batch 47 (docs/batch47-first-run.md): "look up the forecast for Seattle" types into the
    // site search (*Search For*), not the unlabelled forecast location field.
    "forecast-nws.jsonl",
];

/// Every issue-10 first-run batch, with what it scores now (local decider, no semantic model) as
/// a floor for correct and a ceiling for wrong targets and acted-instead: nothing may regress.
/// (file, at least correct, at most wrong, at most acted instead)
/// Stop 30 lowered five floors by one (sportowefakty, reddit, parallels, rutgers, football.ua):
/// weak evidence is now asked about (`screen::EVIDENCE_RATIO`), so one request each that the
/// batch expects rejected ("uninstall circe" beside a "Download" button) is asked instead; over
/// all corpora that rule turned 101 rejections into right questions.
const FIRST_RUN_FLOORS: &[(&str, usize, usize, usize)] = &[
    // "how do I set up automatic renewal" expected the planner until stop 36, when a question a
    // link answers came to follow the link; it asks between the two renewal links (both right).
    ("docs-certbot.jsonl", 22, 0, 0),
    ("forum-katzen.jsonl", 16, 0, 0),
    ("mail-adminlte.jsonl", 21, 0, 0),
    ("settings-adminlte.jsonl", 19, 0, 0),
    ("shop-ebrosia.jsonl", 19, 0, 1),
    ("social-twitter.jsonl", 13, 0, 0),
    // Batch 7 (docs/batch7-first-run.md): first scored 17/0/1, 11/0/0, 12/4/1.
    ("qa-stackexchange.jsonl", 21, 0, 0),
    ("news-elpais.jsonl", 12, 0, 0),
    ("recipe-chefkoch.jsonl", 20, 0, 0),
    // Batch 8 (docs/batch8-first-run.md): first scored 7/0/0, 10/0/0, 12/0/0.
    ("video-eurosport.jsonl", 16, 0, 0),
    ("travel-travanto.jsonl", 17, 0, 0),
    ("fr-ledevoir.jsonl", 21, 0, 0),
    // Batch 9 (docs/batch9-first-run.md): first scored 10/1/0, 8/5/0, 8/0/0.
    ("search-google.jsonl", 15, 0, 0),
    ("forge-github.jsonl", 12, 0, 0),
    ("form-verivox.jsonl", 13, 0, 1),
    // Batch 10 (docs/batch10-first-run.md): first scored 20/2/1, 18/0/0, 18/1/0.
    ("wiki-wikipedia.jsonl", 27, 0, 0),
    ("fiction-royalroad.jsonl", 25, 0, 0),
    ("registry-clinicaltrials.jsonl", 24, 0, 0),
    // Batch 11 (docs/batch11-first-run.md): first scored 13/1/0, 16/1/1, 15/2/1.
    ("podcast-resonator.jsonl", 21, 0, 0),
    ("paste-pastebin.jsonl", 20, 0, 0),
    ("dictionary-wordsmith.jsonl", 20, 1, 1),
    // Batch 12 (docs/batch12-first-run.md): first scored 15/1/1, 10/0/0, 13/2/1.
    ("blog-firefoxnightly.jsonl", 21, 0, 1),
    ("sports-sportowefakty.jsonl", 11, 0, 0),
    ("public-nationalrail.jsonl", 14, 0, 1),
    // Batch 13 (docs/batch13-first-run.md): first scored 17/3/0, 12/3/0, 12/1/0.
    ("thread-reddit.jsonl", 19, 0, 0),
    ("recipe-cybercook.jsonl", 14, 0, 0),
    ("newsletter-aktualne.jsonl", 18, 0, 0),
    // Batch 14 (docs/batch14-first-run.md): first scored 17/1/0, 12/0/1, 12/3/1.
    ("reviews-trustpilot.jsonl", 18, 1, 0),
    ("gov-parcoabruzzo.jsonl", 17, 0, 1),
    ("standards-ietf.jsonl", 17, 1, 0),
    // Batch 15 (docs/batch15-first-run.md): first scored 16/1/1, 7/0/0 (9 with the Japanese glossary).
    ("events-goodnight.jsonl", 20, 1, 0),
    ("story-hukumusume.jsonl", 13, 0, 0),
    // Batch 16 (docs/batch16-first-run.md): first scored 5/1/0, 18/0/1, 11/1/0.
    ("ebook-bookwalker.jsonl", 8, 0, 0),
    ("preprint-biorxiv.jsonl", 20, 0, 0),
    ("school-siegfriedmarcus.jsonl", 16, 0, 0),
    // Batch 17 (docs/batch17-first-run.md): first scored 12/1/0, 18/3/0, 14/0/0.
    ("software-parallels.jsonl", 12, 0, 0),
    ("lyrics-genius.jsonl", 24, 0, 0),
    ("petition-mesopinions.jsonl", 17, 0, 0),
    // Batch 18 (docs/batch18-first-run.md): first scored 24/2/1, 19/2/4, 12/0/0.
    ("guide-fifplay.jsonl", 25, 1, 1),
    ("address-whitehouse.jsonl", 25, 0, 1),
    ("magazine-vegolosi.jsonl", 16, 0, 0),
    // Batch 19 (docs/batch19-first-run.md): first scored 16/1/0, 17/0/0, 14/1/0.
    ("wiki-pythonwiki.jsonl", 19, 0, 0),
    ("tutorial-statisticsglobe.jsonl", 20, 0, 0),
    ("weather-slf.jsonl", 15, 0, 0),
    // Batch 20 (docs/batch20-first-run.md): first scored 10/0/0, 12/1/0, 17/1/0.
    ("press-tine.jsonl", 14, 0, 0),
    ("advisory-ipa.jsonl", 15, 0, 0),
    ("journal-springer.jsonl", 18, 0, 0),
    // Batch 21 (docs/batch21-first-run.md): first scored 11/1/1, 15/0/1, 10/2/0.
    // 14 until glossed words weighed as words on screen: "the forum index" now asks between
    // "Register" (read as German, glossed "index") and "Forums".
    ("patchnotes-villagersandheroes.jsonl", 15, 0, 1),
    ("university-rutgers.jsonl", 15, 0, 1),
    ("travelblog-pixnet.jsonl", 10, 2, 0),
    // Batch 22 (docs/batch22-first-run.md): first scored 13/2/1, 5/0/1, 17/2/0.
    ("directory-bahamaslocal.jsonl", 14, 1, 1),
    ("foodportal-mindmegette.jsonl", 13, 0, 2),
    ("health-webmd.jsonl", 17, 0, 0),
    // Batch 23 (docs/batch23-first-run.md): first scored 11/2/0, 14/2/0, 9/0/0.
    ("news-yle.jsonl", 14, 0, 0),
    ("gamewiki-stardew.jsonl", 18, 0, 0),
    ("sportsnews-footballua.jsonl", 14, 0, 1),
    // Batch 24 (docs/batch24-first-run.md): first scored 15/2/1, 12/0/0, 18/2/0.
    ("music-tidal.jsonl", 17, 1, 1),
    ("traveladvice-auswaertigesamt.jsonl", 16, 0, 0),
    ("docs-docker.jsonl", 18, 1, 0),
    // Batch 25 (docs/batch25-first-run.md): first scored 12/2/0, 11/0/1, 15/0/0.
    ("creditcards-thepointsguy.jsonl", 13, 2, 0),
    ("permits-hejfish.jsonl", 11, 0, 1),
    ("club-rnloewen.jsonl", 16, 0, 0),
    // Batch 26 (docs/batch26-first-run.md): first scored 6/1/1, 5/0/2, 6/2/0.
    ("community-habr.jsonl", 7, 0, 1),
    ("zoo-zooberlin.jsonl", 5, 0, 2),
    ("gifs-giphy.jsonl", 9, 1, 0),
    // Batch 27 (docs/batch27-first-run.md): first scored 6/1/0, 7/0/0, 7/0/1.
    ("humor-pikabu.jsonl", 8, 1, 0),
    ("casting-backstage.jsonl", 7, 0, 0),
    ("loans-giromatch.jsonl", 8, 0, 1),
    // Batch 28 (docs/batch28-first-run.md): first scored 4/0/0, 9/0/0.
    ("podcast-umputun.jsonl", 5, 0, 0),
    ("plantcare-plantcaretoday.jsonl", 9, 0, 0),
    // Batch 29 (docs/batch29-first-run.md): first scored 9/0/0, 7/0/1, 8/0/0.
    ("hardware-tomshardware.jsonl", 11, 0, 0),
    ("producttest-adac.jsonl", 10, 0, 1),
    ("union-infocomcgt.jsonl", 12, 0, 0),
    // Batch 30 (docs/batch30-first-run.md): first scored 8/0/1, 5/0/0.
    ("jobs-jobsnhire.jsonl", 8, 0, 1),
    ("radio-radiomaryja.jsonl", 5, 0, 0),
    // Batch 31 (docs/batch31-first-run.md): first scored 6/0/1, 4/0/0, 9/0/0.
    ("recipe-przepisy.jsonl", 7, 0, 0),
    ("inn-schlosswirtjuval.jsonl", 4, 0, 0),
    ("portal-yahoo.jsonl", 9, 0, 0),
    // Batch 32 (docs/batch32-first-run.md): first scored 7/2/0, 8/0/1, 4/0/0.
    ("design-houzz.jsonl", 9, 0, 0),
    ("network-linkedin.jsonl", 9, 0, 0),
    ("party-gruene.jsonl", 5, 0, 0),
    // Batch 33 (docs/batch33-first-run.md): first scored 6/0/1, 3/0/0, 7/1/0.
    ("deals-dealdoktor.jsonl", 7, 0, 0),
    ("cars-teslahunt.jsonl", 8, 0, 0),
    ("portfolio-dribbble.jsonl", 10, 0, 0),
    // Batch 34 (docs/batch34-first-run.md): first scored 4/0/0, 8/0/0, 11/0/0.
    ("mediathek-zdf.jsonl", 7, 0, 0),
    ("newsletter-substack.jsonl", 12, 0, 0),
    ("shortvideo-tiktok.jsonl", 13, 0, 0),
    // Batch 35 (docs/batch35-first-run.md): first scored 5/2/0, 3/0/0, 5/0/1.
    ("city-stuttgart.jsonl", 6, 1, 0),
    ("shelter-tierheimberlin.jsonl", 3, 0, 0),
    ("gamedb-coopbuddy.jsonl", 8, 0, 1),
    // Batch 36 (docs/batch36-first-run.md): first scored 6/1/0, 8/0/0, 1/3/0.
    ("devtools-mozilla.jsonl", 6, 1, 0),
    ("law-dalloz.jsonl", 8, 0, 0),
    ("customs-zoll.jsonl", 1, 3, 0),
    // Batch 37 (docs/batch37-first-run.md): first scored 3/0/0, 1/0/0, 2/0/0.
    ("corporate-rosneft.jsonl", 7, 0, 0),
    ("realestate-otodom.jsonl", 1, 0, 0),
    ("construction-edilportale.jsonl", 2, 0, 0),
    // Batch 38 (docs/batch38-first-run.md): first scored 3/0/0, 6/0/0, 4/0/0.
    ("tickets-puntoticket.jsonl", 3, 0, 0),
    ("alerts-alarmeringen.jsonl", 6, 0, 0),
    ("classifieds-craigslist.jsonl", 4, 0, 0),
    // Batch 39 (docs/batch39-first-run.md): first scored 5/0/1, 4/0/0, 7/1/0.
    ("socialcommerce-tmon.jsonl", 5, 0, 1),
    ("marketplace-emag.jsonl", 4, 0, 0),
    ("healthservices-eklinika.jsonl", 7, 1, 0),
    // Batch 40 (docs/batch40-first-run.md): first scored 8/0/0, 3/1/0, 2/1/0; stop 39 cleared
    // both wrong targets (the FAQ concept, a number typed as digits), so neither page is pending.
    ("pricecompare-smartprix.jsonl", 8, 0, 0),
    ("optician-vsezaoci.jsonl", 3, 0, 0),
    ("diy-krauta.jsonl", 3, 0, 0),
    // Batch 41 (docs/batch41-first-run.md): first scored 3/2/1, 4/0/0, 4/0/0; stop 40 cleared
    // the Bugzilla page's two wrong targets and its acted-instead case, so it is not pending.
    ("bugtracker-rproject.jsonl", 6, 0, 0),
    ("appointment-dgt.jsonl", 4, 0, 0),
    ("newsportal-xinhua.jsonl", 4, 0, 0),
    // Batch 42 (docs/batch42-first-run.md): first scored 6/0/1, 4/1/0, 5/0/0; stop 41 cleared
    // the Japanese page's wrong target ("back to the blog" went Back beside the unread ブログ).
    ("factcheck-politifact.jsonl", 8, 0, 1),
    ("ipfirm-lhpat.jsonl", 6, 0, 0),
    ("parenting-comoeducarseusfilhos.jsonl", 7, 0, 0),
    // Batch 43 (docs/batch43-first-run.md): first scored 6/0/0, 3/0/0, 8/0/2; stop 42 cleared
    // the airline page's two acted-instead cases (check-in, the points items of the Shopping
    // menu), so it is not pending.
    // Stop 43: "click on card number" asked between two links where it was counted correct
    // while the card-number field and the saved-card list of one name were merged as one
    // thing; fields of one name are now two things (a field holds a value of its own).
    ("bank-cibc.jsonl", 5, 0, 0),
    ("tax-etaxes.jsonl", 4, 0, 0),
    ("airline-qantas.jsonl", 10, 0, 0),
    // Batch 44 (docs/batch44-first-run.md): first run without the glossary.
    ("library-smartbib.jsonl", 6, 0, 0),
    // Stop 43: 8 -> 10 (a question answered by "Learn more about X", "drop" a class).
    ("course-edx.jsonl", 10, 0, 0),
    // Re-captured in stop 43 with the scan that names a field by a broken label beside it;
    // 6 -> 9 with the choices of closed lists and the zip code said before its number.
    ("dating-mingle2.jsonl", 9, 0, 0),
    // Batch 45 (docs/batch45-first-run.md): first scored 6/1/0, 2/0/1, 5/2/0.
    ("cinema-odeon.jsonl", 10, 0, 0),
    ("restaurant-iens.jsonl", 7, 0, 1),
    ("procurement-fbo.jsonl", 7, 0, 0),
    // Batch 46 (docs/batch46-first-run.md): first scored 3/2/0, 8/1/0, 7/0/0.
    ("gazette-cianorte.jsonl", 10, 1, 0),
    ("nutrition-usda.jsonl", 8, 0, 0),
    ("stocks-wsj.jsonl", 9, 0, 0),
    // Batch 47 (docs/batch47-first-run.md): first scored 7/2/0, 2/0/0, 8/0/0. Stop 46 raised
    // the floors of the pages its commands in other languages, menu headings and language
    // names moved (gazette-cianorte, restaurant-iens, news-yle, corporate-rosneft, …).
    ("forecast-nws.jsonl", 9, 1, 0),
    ("appstore-googleplay.jsonl", 2, 0, 0),
    ("crowdfunding-patchofland.jsonl", 8, 0, 0),
];

/// A copy of the own corpus without the files `skip` names (the observations are shared).
fn own_cases_without(skip: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("circe-own-cases")
        .tempdir()
        .unwrap();
    let own = Path::new(OWN);
    for entry in std::fs::read_dir(own).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if p.extension().is_some_and(|e| e == "jsonl") && !skip.contains(&name.as_str()) {
            std::fs::copy(&p, dir.path().join(&name)).unwrap();
        }
    }
    std::os::unix::fs::symlink(own.join("observations"), dir.path().join("observations")).unwrap();
    dir
}

#[test]
fn first_run_batches_hold_their_floors() {
    for (name, correct, wrong, acted) in FIRST_RUN_FLOORS {
        let path = Path::new(OWN).join(name);
        let report = run_corpus(&path, &LocalDecider).expect("batch");
        println!("{name}:\n{report}");
        assert!(report.correct >= *correct, "{name}: {report}");
        assert!(report.wrong_target <= *wrong, "{name}: {report}");
        assert!(report.acted_instead <= *acted, "{name}: {report}");
        if !FIRST_RUN_PENDING.contains(name) {
            assert_eq!(
                (report.wrong_target, report.acted_instead),
                (0, 0),
                "{name}: {report}"
            );
        }
    }
}

#[test]
fn own_cases_are_safe() {
    let dir = own_cases_without(FIRST_RUN_PENDING);
    let report = run_corpus(dir.path(), &LocalDecider).expect("corpus");
    println!("{report}");
    assert_eq!(report.wrong_target, 0, "{report}");
    // One known case acts where a person would ask: "cookies" said alone on
    // a consent banner whose only label with that word is "Paramétrer les
    // cookies" (lm-clarify-cookies). See docs/GROUNDING.md.
    assert!(report.acted_instead <= 1, "{report}");
    // The rate is held on the cases written before the first-run batches;
    // each batch holds its own floor (first_run_batches_hold_their_floors).
    let batches: Vec<&str> = FIRST_RUN_FLOORS.iter().map(|f| f.0).collect();
    let dir = own_cases_without(&batches);
    let report = run_corpus(dir.path(), &LocalDecider).expect("corpus");
    assert!(report.correct_rate() >= 0.85, "{report}");
}

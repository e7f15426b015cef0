//! Navigation for real (issue 14, item 2): Chromium with the bundled extension and native host,
//! a real daemon, the fixture sites on 127.0.0.1, and the real sites' names (www.youtube.com,
//! en.wikipedia.org, a configured shop.circe.test) mapped by `--host-resolver-rules` to a TLS
//! fixture server with a test certificate (see `RealSites`). Everything else still resolves to
//! nothing: github.com, for one, cannot be reached.

use crate::browser_util::*;
use crate::util::*;
use serde_json::Value;
use std::time::Duration;

/// The fixture sites, the real names' server, a daemon (with `config`), and Chromium on `page`
/// (a fixture path, or a full URL such as `about:blank`), connected.
fn setup(page: &str, config: &str) -> (Sites, RealSites, Daemon, Browser) {
    let sites = Sites::start();
    let real = RealSites::start();
    let d = Daemon::start(&format!("[node]\nname = \"desk\"\n{config}"));
    let url = if page.starts_with('/') {
        format!("{}{page}", sites.url)
    } else {
        page.to_string()
    };
    let b = Browser::start_with(&d, &url, &real.flags());
    wait_connected(&d, Duration::from_secs(30));
    (sites, real, d, b)
}

/// The page requests among `requests` (not scripts, styles or icons).
fn pages(requests: &[String]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| {
            let path = r.split(['?', '#']).next().unwrap_or("");
            let last = path.rsplit('/').next().unwrap_or("");
            !last.contains('.') || last.ends_with(".html")
        })
        .cloned()
        .collect()
}

fn steps(v: &Value) -> Vec<Value> {
    v["operation"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn summary(v: &Value) -> String {
    v["operation"]["outcome"]["summary"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// The open tabs as the last navigation step listed them: (count, title of the one in front).
fn listed(v: &Value) -> (u64, String) {
    let s = steps(v);
    let list = s
        .iter()
        .find(|s| s["action"] == "list the open tabs")
        .unwrap_or_else(|| panic!("no tab listing: {v:#}"));
    (
        list["evidence"]["tabs"].as_u64().unwrap(),
        list["evidence"]["front"]["title"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

/// `circe say` without waiting, then the question once the operation asks it.
fn asked(d: &Daemon, text: &str) -> Value {
    let out = d.cli(&["say", "--json", text]);
    assert!(out.status.success(), "{}", stderr(&out));
    for _ in 0..200 {
        let s: Value = serde_json::from_slice(&d.cli(&["state", "--json"]).stdout).unwrap();
        if s["interaction"]["pending"]["type"] == "question" {
            assert_eq!(s["operation"]["status"], "needsInput", "{s:#}");
            return s["interaction"]["pending"].clone();
        }
        let status = s["operation"]["status"].as_str().unwrap_or("");
        assert!(
            !matches!(
                status,
                "completed" | "blocked" | "outcomeUnknown" | "stopped"
            ),
            "{text}: ended without asking: {s:#}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{text}: no question within 10 s: {}", d.log());
}

#[test]
fn the_resolver_rules_map_the_real_names_and_keep_everything_else_unresolved() {
    let rules = resolver_rules(&[("www.youtube.com", 4443), ("en.wikipedia.org", 4443)]);
    assert_eq!(
        rules,
        "MAP www.youtube.com 127.0.0.1:4443 , MAP en.wikipedia.org 127.0.0.1:4443 , MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"
    );
    assert!(TEST_FLAGS.contains(
        &"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"
    ));
}

#[test]
fn search_youtube_for_lo_fi_beats_from_a_blank_new_tab_opens_the_real_results_address() {
    let (sites, real, d, _b) = setup("about:blank", "");
    let v = say(&d, "search YouTube for lo-fi beats");
    assert_eq!(status(&v), "completed", "{v:#}");
    // The real address, asked of the server behind www.youtube.com, exactly once.
    let requests = real.requests();
    assert_eq!(
        requests
            .iter()
            .filter(|r| r.starts_with("www.youtube.com /results"))
            .collect::<Vec<_>>(),
        vec!["www.youtube.com /results?search_query=lo-fi+beats"],
        "{requests:?}"
    );
    assert!(
        sites.gets().is_empty(),
        "nothing else was asked: {:?}",
        sites.gets()
    );
    // One blank tab, reused: the step says where it went, and what the tab showed.
    assert_eq!(listed(&v).0, 1, "{v:#}");
    let s = steps(&v);
    assert_eq!(s.len(), 2, "{s:#?}");
    assert_eq!(s[0]["result"], "applied");
    assert_eq!(s[1]["action"], "searched YouTube for \"lo-fi beats\"");
    assert_eq!(s[1]["result"], "applied", "{s:#?}");
    assert_eq!(s[1]["arguments"]["newTab"], "false");
    assert_eq!(
        s[1]["arguments"]["url"],
        "https://www.youtube.com/results?search_query=lo-fi+beats"
    );
    assert_eq!(
        s[1]["observation"], s[0]["evidence"]["observation"],
        "the action is grounded in the tab listing"
    );
    let page = &s[1]["evidence"]["page"];
    assert_eq!(page["loaded"], true, "{page:#}");
    assert_eq!(page["httpStatus"], 200, "{page:#}");
    assert_eq!(
        v["operation"]["outcome"]["data"]["url"],
        "https://www.youtube.com/results?search_query=lo-fi+beats"
    );
    assert!(
        summary(&v).starts_with("Searched YouTube for \"lo-fi beats\". The tab shows \""),
        "{}",
        summary(&v)
    );
    // The results page is a page like any other: the next request is grounded on it.
    let v = say(&d, "open the lo-fi beats radio");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(
        real.requests()
            .iter()
            .any(|r| r.starts_with("www.youtube.com /watch")),
        "{:?}",
        real.requests()
    );
    // And in one request: the search, then a step grounded on the results it opened.
    let v = say(&d, "search YouTube for jazz and then open the jazz radio");
    assert_eq!(status(&v), "completed", "{v:#}");
    let done: Vec<String> = steps(&v)
        .iter()
        .filter(|s| s["result"] == "applied")
        .map(|s| s["action"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        done,
        [
            "list the open tabs",
            "searched YouTube for \"jazz\"",
            "observe the page",
            "clicked \"jazz radio 24/7\""
        ],
        "{v:#}"
    );
    let after = real.requests();
    let at = after
        .iter()
        .position(|r| r == "www.youtube.com /results?search_query=jazz")
        .unwrap_or_else(|| panic!("{after:?}"));
    assert!(
        after[at..]
            .iter()
            .any(|r| r.starts_with("www.youtube.com /watch")),
        "{after:?}"
    );
}

#[test]
fn tabs_are_opened_switched_by_title_and_site_reloaded_and_closed() {
    let (sites, real, d, _b) = setup("/news/index.html", "");
    // From another site the page is kept: the results open in a new tab.
    let v = say(&d, "search YouTube for lo-fi beats");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(steps(&v)[1]["arguments"]["newTab"], "true", "{v:#}");
    assert!(summary(&v).contains("in a new tab"), "{}", summary(&v));
    assert!(real
        .requests()
        .contains(&"www.youtube.com /results?search_query=lo-fi+beats".to_string()));

    // "open <site>" opens its home page, here in the tab that already shows that site.
    let v = say(&d, "open YouTube");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(steps(&v)[1]["arguments"]["newTab"], "false");
    assert!(real.requests().contains(&"www.youtube.com /".to_string()));
    assert_eq!(
        v["operation"]["outcome"]["data"]["url"],
        "https://www.youtube.com/"
    );

    // By title.
    let v = say(&d, "switch to the Hacker News tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        steps(&v)[1]["action"],
        "switched to the tab \"Hacker News (127.0.0.1)\""
    );
    assert_eq!(v["operation"]["outcome"]["data"]["title"], "Hacker News");
    // The page in front is now Hacker News: grounded requests act there.
    let v = say(&d, "upvote the third story");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        sites.actions(),
        vec![serde_json::json!({"site": "news", "action": "upvote", "item": 3})]
    );

    // By site.
    let v = say(&d, "go to my YouTube tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(
        v["operation"]["outcome"]["data"]["url"]
            .as_str()
            .unwrap()
            .starts_with("https://www.youtube.com/"),
        "{v:#}"
    );

    // Reload: the page in front is asked for again and seen loaded.
    let before = real.requests().len();
    let v = say(&d, "reload the page");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(steps(&v)[1]["evidence"]["newDocument"], true, "{v:#}");
    assert_eq!(
        pages(&real.requests()[before..]),
        vec!["www.youtube.com /"],
        "{:?}",
        real.requests()
    );
    // A named tab is reloaded where it is.
    let before = sites.gets().len();
    let v = say(&d, "reload the hacker news tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(
        sites.gets()[before..]
            .iter()
            .any(|g| g == "/news/index.html"),
        "{:?}",
        sites.gets()
    );

    // No such tab: said, nothing done.
    let v = say(&d, "switch to my mail tab");
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(
        summary(&v).starts_with("No open tab matches \"mail\" (open: \"Hacker News (127.0.0.1)\", \"YouTube (youtube.com)\")"),
        "{}",
        summary(&v)
    );

    // A mail tab, opened by its address; "my mail tab" is found by its title ("Mailbox").
    let mail = format!("{}/real/mail-adminlte/index.html", sites.url);
    let v = say(&d, &format!("open {mail} in a new tab"));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        steps(&v)[1]["action"],
        format!("opened {mail} in a new tab")
    );
    let v = say(&d, "switch to the Hacker News tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    let v = say(&d, "go to my mail tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        v["operation"]["outcome"]["data"]["title"],
        "AdminLTE 4 | Mailbox"
    );

    // Close a tab by its site (behind), then the one in front (the mail tab); the last one is
    // refused: it would close Chrome.
    let v = say(&d, "close the YouTube tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        steps(&v)[1]["action"],
        "closed the tab \"YouTube (youtube.com)\""
    );
    assert_eq!(steps(&v)[1]["evidence"]["closed"], true);
    assert_eq!(steps(&v)[1]["irreversible"], true);
    let v = say(&d, "close this tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        steps(&v)[1]["action"],
        "closed the tab \"AdminLTE 4 | Mailbox (127.0.0.1)\""
    );
    assert!(
        summary(&v).ends_with("The tab shows \"Hacker News\"."),
        "{}",
        summary(&v)
    );
    let v = say(&d, "close the hacker news tab");
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(
        summary(&v).starts_with("Not done: it is the only open tab"),
        "{}",
        summary(&v)
    );
    assert_eq!(steps(&v)[1]["result"], "notApplied");
    assert_eq!(listed(&v).0, 1);
    assert_eq!(
        sites.actions().len(),
        1,
        "no other effect: {:?}",
        sites.actions()
    );
}

#[test]
fn an_ambiguous_tab_asks_with_the_open_tabs_and_the_answer_switches() {
    let (_sites, real, d, _b) = setup("/news/index.html", "");
    for q in ["lo-fi beats", "jazz"] {
        let v = say(&d, &format!("search YouTube for {q} in a new tab"));
        assert_eq!(status(&v), "completed", "{v:#}");
    }
    assert!(real
        .requests()
        .contains(&"www.youtube.com /results?search_query=jazz".to_string()));
    let v = say(&d, "switch to the Hacker News tab");
    assert_eq!(status(&v), "completed", "{v:#}");

    let question = asked(&d, "switch to the YouTube tab");
    let choices = question["choices"].as_array().unwrap();
    let labels: Vec<&str> = choices
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 2, "{question:#}");
    assert!(
        labels[0].contains("lo-fi beats") && labels[1].contains("jazz"),
        "{labels:?}"
    );
    assert!(
        choices
            .iter()
            .all(|c| c["key"].as_str().unwrap().starts_with("tab:")),
        "{question:#}"
    );
    assert!(
        question["prompt"].as_str().unwrap().contains("Which tab"),
        "{question:#}"
    );

    let out = d.cli(&["answer", "--json", "--wait", "the jazz one"]);
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        v["operation"]["outcome"]["data"]["url"],
        "https://www.youtube.com/results?search_query=jazz"
    );
    let ops: Vec<Value> = serde_json::from_slice(&d.cli(&["ops", "--json"]).stdout).unwrap();
    assert_eq!(ops.len(), 4, "the answer resumed the same operation");
}

#[test]
fn sites_unknown_unreachable_configured_and_opened_by_address() {
    let config = "[[browser.sites]]\nname = \"Nordhem\"\naliases = [\"the furniture shop\"]\nhome = \"https://shop.circe.test/shop/index.html\"\nsearch = \"https://shop.circe.test/shop/index.html?q={query}\"\n";
    let (sites, real, d, _b) = setup("about:blank", config);

    // An unknown site to search: refused with the reason, before anything is done.
    let v = say(&d, "search Vimeo for cats");
    assert_eq!(status(&v), "blocked", "{v:#}");
    let reason = summary(&v);
    assert!(
        reason.starts_with("Circe knows no site called \"Vimeo\" to search (it knows YouTube, Wikipedia, GitHub, DuckDuckGo, Nordhem;"),
        "{reason}"
    );
    assert!(
        steps(&v).iter().all(|s| s["action"] == "observe the page"),
        "nothing but looking: {v:#}"
    );
    assert!(real.requests().is_empty() && sites.gets().is_empty());

    // A configured site, by its alias; the person's words in its search address.
    let v = say(&d, "search the furniture shop for office chair");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert_eq!(
        pages(&real.requests()),
        vec!["shop.circe.test /shop/index.html?q=office+chair".to_string()],
    );
    assert_eq!(
        steps(&v)[1]["action"],
        "searched Nordhem for \"office chair\""
    );

    // "open <site>": Wikipedia's front page (a new tab: the shop was in front).
    let v = say(&d, "open Wikipedia");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(real
        .requests()
        .contains(&"en.wikipedia.org /wiki/Main_Page".to_string()));
    assert_eq!(
        v["operation"]["outcome"]["data"]["title"],
        "Wikipedia, the free encyclopedia"
    );

    // A known site that cannot be reached: the tab shows Chrome's error page, and Circe says so.
    let v = say(&d, "open GitHub here");
    assert_eq!(status(&v), "blocked", "{v:#}");
    let reason = summary(&v);
    assert!(
        reason.starts_with(
            "Opened GitHub, but github.com could not be reached: Chrome shows its error page"
        ),
        "{reason}"
    );
    assert_eq!(steps(&v)[1]["result"], "blocked");
    assert_eq!(steps(&v)[1]["evidence"]["page"]["errorPage"], true);

    // An address said as such.
    let v = say(&d, "go to https://shop.circe.test/shop/index.html?q=sofa");
    assert_eq!(status(&v), "completed", "{v:#}");
    assert!(real
        .requests()
        .contains(&"shop.circe.test /shop/index.html?q=sofa".to_string()));

    // No browser tab is called "Security", but the page has a tab of that name: it is clicked.
    let settings = format!("{}/real/settings-adminlte/index.html", sites.url);
    let v = say(&d, &format!("open {settings} in a new tab"));
    assert_eq!(status(&v), "completed", "{v:#}");
    let v = say(&d, "switch to the Security tab");
    assert_eq!(status(&v), "completed", "{v:#}");
    let done: Vec<String> = steps(&v)
        .iter()
        .map(|s| s["action"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        done,
        [
            "list the open tabs",
            "observe the page",
            "clicked \"Security\""
        ],
        "{v:#}"
    );
    // Neither a browser tab nor one on the page: said, nothing clicked.
    let v = say(&d, "switch to the Vimeo tab");
    assert_eq!(status(&v), "blocked", "{v:#}");
    assert!(
        summary(&v).starts_with("No open tab matches \"Vimeo\""),
        "{}",
        summary(&v)
    );
    assert!(
        steps(&v)
            .iter()
            .all(|s| s["action"] != "clicked \"Security\""),
        "{v:#}"
    );

    // Words that name no site are a request about the page, as before.
    let v = say(&d, "open the kallax shelf page");
    assert_ne!(
        steps(&v).first().map(|s| s["action"].clone()),
        Some(Value::from("list the open tabs")),
        "{v:#}"
    );
}

#[test]
fn a_bad_site_entry_in_the_config_is_refused_with_what_to_write() {
    let err = serve_refusal(
        "[[browser.sites]]\nname = \"Rust docs\"\nhome = \"https://docs.rs/\"\nsearch = \"https://docs.rs/releases/search\"\n",
    );
    assert!(
        err.contains("config.toml is not valid")
            && err.contains("[[browser.sites]] \"Rust docs\": search \"https://docs.rs/releases/search\" has {query} 0 times; it must appear once"),
        "{err}"
    );
    let err = serve_refusal(
        "[[browser.sites]]\nname = \"Tube\"\naliases = [\"you tube\"]\nhome = \"https://tube.example/\"\n",
    );
    assert!(
        err.contains("the name \"you tube\" already means YouTube"),
        "{err}"
    );
}

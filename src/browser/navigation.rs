//! Navigation's pure parts: the site table (built in, extended by `[[browser.sites]]`), the
//! addresses it builds, where a page opens, which open tab the words name, and what the tab
//! showed afterwards means.
//!
//! The words are read by `director::navigation`; the browser executor (`navigate.rs`) lists the
//! tabs, acts through the extension and brings back what Chrome shows, and this module decides.
//! Architecture invariant: pure (no I/O, no clock, no async); an address is built only from the
//! table and a slice of the person's words (URL-encoded), and a tab is only ever one Chrome
//! listed.

use crate::director::text;
use serde::{Deserialize, Serialize};
use url::Url;

/// Where the search words go in a site's `search` address.
pub const QUERY: &str = "{query}";

/// One site Circe can open or search without looking at a page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// What people call it ("YouTube").
    pub name: String,
    /// Other names for it ("yt"); spaces, case and punctuation do not matter.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Its home page (http or https).
    pub home: String,
    /// Its search page, with `{query}` where the search words go.
    #[serde(default)]
    pub search: Option<String>,
}

impl Site {
    fn new(name: &str, aliases: &[&str], home: &str, search: &str) -> Site {
        Site {
            name: name.into(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            home: home.into(),
            search: Some(search.into()),
        }
    }

    /// The search page's address for `query` (the person's words, encoded for where they go:
    /// `+` for spaces in a query string, `%20` in a path). None: the site has no search page.
    pub fn search_url(&self, query: &str) -> Option<String> {
        let template = self.search.as_deref()?;
        let at = template.find(QUERY)?;
        let in_query = template[..at].contains('?') || template[..at].contains('#');
        let encoded = if in_query {
            form_encode(query)
        } else {
            path_encode(query)
        };
        Some(template.replacen(QUERY, &encoded, 1))
    }

    /// The host of its home page, without a leading `www.`.
    pub fn host(&self) -> String {
        bare_host(&self.home).unwrap_or_default()
    }
}

/// The sites Circe knows without any configuration.
pub fn builtin() -> Vec<Site> {
    vec![
        Site::new(
            "YouTube",
            &["yt"],
            "https://www.youtube.com/",
            "https://www.youtube.com/results?search_query={query}",
        ),
        Site::new(
            "Wikipedia",
            &["wiki"],
            "https://en.wikipedia.org/wiki/Main_Page",
            "https://en.wikipedia.org/w/index.php?search={query}&fulltext=1",
        ),
        Site::new(
            "GitHub",
            &[],
            "https://github.com/",
            "https://github.com/search?q={query}",
        ),
        Site::new(
            "DuckDuckGo",
            &["ddg", "duck"],
            "https://duckduckgo.com/",
            "https://duckduckgo.com/?q={query}",
        ),
    ]
}

/// The site table: the built-in sites, then the configured ones (a configured site with a
/// built-in's name replaces it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sites {
    list: Vec<Site>,
}

impl Default for Sites {
    fn default() -> Self {
        Sites { list: builtin() }
    }
}

impl Sites {
    /// The table with `configured` added; an entry that is not usable is refused with a message
    /// that names it and says what to write instead.
    pub fn new(configured: &[Site]) -> Result<Sites, String> {
        let mut list = builtin();
        let mut seen_configured: Vec<String> = Vec::new();
        for (i, site) in configured.iter().enumerate() {
            let site = check(i + 1, site)?;
            let k = key(&site.name);
            if seen_configured.contains(&k) {
                return Err(format!(
                    "[[browser.sites]] \"{}\" is listed twice; keep one entry per site",
                    site.name
                ));
            }
            seen_configured.push(k.clone());
            match list.iter().position(|s| key(&s.name) == k) {
                Some(at) => list[at] = site,
                None => list.push(site),
            }
        }
        // Every name and alias names one site.
        let mut names: Vec<(String, &str)> = Vec::new();
        for site in &list {
            let mut own: Vec<String> = Vec::new();
            for said in std::iter::once(&site.name).chain(&site.aliases) {
                let k = key(said);
                if own.contains(&k) {
                    continue;
                }
                if let Some((_, other)) = names.iter().find(|(n, _)| *n == k) {
                    return Err(format!(
                        "[[browser.sites]] \"{}\": the name \"{said}\" already means {other}; give it another name or alias",
                        site.name
                    ));
                }
                own.push(k.clone());
                names.push((k, &site.name));
            }
        }
        Ok(Sites { list })
    }

    pub fn all(&self) -> &[Site] {
        &self.list
    }

    /// The names of the sites, for a message ("YouTube, Wikipedia, …").
    pub fn names(&self) -> String {
        self.list
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The site the words name: its name or an alias (ignoring case, spaces and punctuation;
    /// "the YouTube website" is YouTube), or its home page's host ("youtube.com").
    pub fn find(&self, said: &str) -> Option<&Site> {
        let whole = key(said);
        if whole.is_empty() {
            return None;
        }
        if let Some(site) = self.list.iter().find(|s| {
            std::iter::once(&s.name)
                .chain(&s.aliases)
                .any(|n| key(n) == whole)
        }) {
            return Some(site);
        }
        let tokens = text::tokens(said);
        let mut words: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
        while matches!(words.first(), Some(&"the" | &"my")) {
            words.remove(0);
        }
        while words.len() > 1
            && matches!(
                words.last(),
                Some(&"website" | &"site" | &"homepage" | &"home" | &"page" | &"web" | &"app")
            )
        {
            words.pop();
        }
        let said = words.concat();
        if said.is_empty() {
            return None;
        }
        self.list
            .iter()
            .find(|s| {
                std::iter::once(&s.name)
                    .chain(&s.aliases)
                    .any(|n| key(n) == said)
            })
            .or_else(|| self.list.iter().find(|s| key(&s.host()) == said))
    }

    /// The site whose home page is on `url`'s host (or a subdomain of it).
    pub fn of_url(&self, url: &str) -> Option<&Site> {
        let host = bare_host(url)?;
        self.list.iter().find(|s| {
            let h = s.host();
            !h.is_empty() && (host == h || host.ends_with(&format!(".{h}")))
        })
    }
}

/// One configured entry, checked: a name, http(s) addresses, `{query}` once in the search
/// address's path or query.
fn check(n: usize, site: &Site) -> Result<Site, String> {
    let name = site.name.trim();
    if key(name).is_empty() {
        return Err(format!(
            "[[browser.sites]] entry {n}: name is empty; give the site a name people say, e.g. name = \"Rust docs\""
        ));
    }
    let it = |what: String| format!("[[browser.sites]] \"{name}\": {what}");
    for alias in &site.aliases {
        if key(alias).is_empty() {
            return Err(it(format!(
                "the alias \"{alias}\" has no letters or digits"
            )));
        }
    }
    web_address(&site.home).map_err(|why| it(format!("home \"{}\" {why}", site.home)))?;
    if let Some(search) = &site.search {
        let count = search.matches(QUERY).count();
        if count != 1 {
            return Err(it(format!(
                "search \"{search}\" has {QUERY} {count} times; it must appear once, where the search words go, e.g. \"https://example.com/search?q={QUERY}\""
            )));
        }
        let probe = search.replace(QUERY, "circequery");
        let url = web_address(&probe).map_err(|why| it(format!("search \"{search}\" {why}")))?;
        if url.host_str().unwrap_or("").contains("circequery") {
            return Err(it(format!(
                "search \"{search}\" has {QUERY} in the host; it goes in the path or the query, e.g. \"https://example.com/search?q={QUERY}\""
            )));
        }
    }
    Ok(Site {
        name: name.to_string(),
        aliases: site.aliases.iter().map(|a| a.trim().to_string()).collect(),
        home: site.home.trim().to_string(),
        search: site.search.as_ref().map(|s| s.trim().to_string()),
    })
}

/// An http(s) address with a host, or why not.
fn web_address(s: &str) -> Result<Url, String> {
    let url = Url::parse(s.trim()).map_err(|e| format!("is not an address ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "is not an http(s) address (it starts with {}:)",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    Ok(url)
}

/// Lower-case letters and digits only: how names are compared ("You Tube" = "youtube").
fn key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A query string's encoding (application/x-www-form-urlencoded): spaces become `+`.
fn form_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A path segment's encoding: everything but the unreserved characters is percent-encoded.
fn path_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Top-level domains taken as an address without a scheme ("example.com").
const COMMON_TLDS: &[&str] = &[
    "com", "org", "net", "edu", "gov", "io", "dev", "app", "ai", "co", "info", "biz", "me", "tv",
    "uk", "de", "fr", "es", "nl", "eu", "ca", "au", "jp", "ch", "at", "be", "se", "no", "dk", "fi",
    "pl", "cz", "ie", "nz", "us", "news", "blog", "shop", "wiki", "test", "example",
];

/// An address said as one word ("example.com", "https://example.com/a"), as a full http(s)
/// address; None for anything else.
pub fn address(said: &str) -> Option<String> {
    let said = said.trim();
    if said.is_empty() || said.contains(char::is_whitespace) {
        return None;
    }
    let lower = said.to_ascii_lowercase();
    let full = if lower.starts_with("http://") || lower.starts_with("https://") {
        said.to_string()
    } else {
        let host = lower.split(['/', '?', '#']).next().unwrap_or("");
        let host = host.split(':').next().unwrap_or("");
        let tld = host.rsplit('.').next().unwrap_or("");
        let labels_ok = host
            .split('.')
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
        // A file name ("notes.md", "main.py") is no address: without a scheme or "www.", only
        // the common top-level domains are taken (others need the scheme, or a site entry).
        if !host.contains('.')
            || !labels_ok
            || !(host.starts_with("www.") || COMMON_TLDS.contains(&tld))
        {
            return None;
        }
        format!("https://{said}")
    };
    web_address(&full).ok().map(|u| u.to_string())
}

/// The host of `url`, lower case, without a leading `www.`.
pub fn bare_host(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    Some(host.strip_prefix("www.").unwrap_or(&host).to_string())
}

/// A tab showing nothing yet (a new tab page, `about:blank`).
pub fn is_blank(url: &str) -> bool {
    let u = url.trim();
    u.is_empty()
        || u == "about:blank"
        || u == "about:newtab"
        || u.starts_with("chrome://newtab")
        || u.starts_with("chrome://new-tab-page")
        || u.starts_with("chrome-search://local-ntp")
        || u.starts_with("edge://newtab")
}

/// Where a page opens: in a new tab or in the tab in front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    NewTab,
    ThisTab,
}

/// Where `target` opens. Said wins; otherwise the tab in front is reused when it is blank or
/// already on the target's site, and a new tab keeps whatever else the person was looking at.
pub fn placement(
    said: crate::director::navigation::Placement,
    front: Option<&str>,
    target: &str,
) -> Open {
    use crate::director::navigation::Placement;
    match (said, front) {
        (_, None) => Open::NewTab,
        (Placement::NewTab, _) => Open::NewTab,
        (Placement::ThisTab, _) => Open::ThisTab,
        (Placement::Auto, Some(front)) => {
            if is_blank(front)
                || (bare_host(front).is_some() && bare_host(front) == bare_host(target))
            {
                Open::ThisTab
            } else {
                Open::NewTab
            }
        }
    }
}

/// One open tab, as the extension listed it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tab {
    pub tab_id: i64,
    #[serde(default)]
    pub window_id: i64,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub active: bool,
    /// The tab in front ("this tab": the active tab of the last focused window).
    #[serde(default)]
    pub current: bool,
}

impl Tab {
    /// How a person tells it apart: its title and host.
    pub fn label(&self) -> String {
        let title = if self.title.trim().is_empty() {
            self.url.as_str()
        } else {
            self.title.trim()
        };
        match bare_host(&self.url) {
            Some(host) if !title.to_lowercase().contains(&host) => format!("{title} ({host})"),
            _ => title.to_string(),
        }
    }
}

/// Which of the open tabs the words name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TabChoice {
    One(usize),
    /// Several fit as well as each other: the best, at most three, to ask about.
    Several(Vec<usize>),
    Nothing,
}

/// The most tabs offered in a question.
pub const MAX_TAB_CHOICES: usize = 3;

/// Words that name no tab in particular.
const NOT_A_NAME: &[&str] = &[
    "my", "the", "a", "an", "tab", "tabs", "that", "this", "one", "with", "of", "page", "window",
    "open",
];

/// Which tabs `words` name: by a site's name (its tabs are those on its host), else by words of
/// the title and host, each word said fitting (exact or stem: 2; inside a longer word, for words
/// of four letters or more: 1). The best sum wins; a tie asks.
pub fn choose_tab(tabs: &[Tab], words: &str, sites: &Sites) -> TabChoice {
    let mut scored: Vec<(usize, u32)> = Vec::new();
    if let Some(site) = sites.find(words) {
        let host = site.host();
        for (i, t) in tabs.iter().enumerate() {
            if let Some(h) = bare_host(&t.url) {
                if !host.is_empty() && (h == host || h.ends_with(&format!(".{host}"))) {
                    scored.push((i, 10));
                }
            }
        }
    }
    if scored.is_empty() {
        let said: Vec<text::Token> = text::tokens(words)
            .into_iter()
            .filter(|t| !NOT_A_NAME.contains(&t.norm.as_str()))
            .collect();
        if said.is_empty() {
            return TabChoice::Nothing;
        }
        for (i, t) in tabs.iter().enumerate() {
            let mut seen = text::tokens(&t.title);
            if let Some(host) = bare_host(&t.url) {
                seen.extend(text::tokens(&host.replace('.', " ")));
            }
            let mut sum = 0;
            let all = said.iter().all(|w| {
                let fit = seen
                    .iter()
                    .map(|s| {
                        if s.norm == w.norm || s.stem == w.stem {
                            2
                        } else if w.norm.chars().count() >= 4 && s.norm.contains(&w.norm) {
                            1
                        } else {
                            0
                        }
                    })
                    .max()
                    .unwrap_or(0);
                sum += fit;
                fit > 0
            });
            if all {
                scored.push((i, sum));
            }
        }
    }
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    match scored.as_slice() {
        [] => TabChoice::Nothing,
        [(only, _)] => TabChoice::One(*only),
        [(best, s1), (_, s2), ..] if s1 > s2 => TabChoice::One(*best),
        tied => TabChoice::Several(tied.iter().take(MAX_TAB_CHOICES).map(|(i, _)| *i).collect()),
    }
}

/// Where a tab ended up, against the address it was sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landing {
    /// The same host, path and every query parameter that was sent.
    Exact,
    /// The same site, another page (the site redirected, e.g. to an article).
    SameSite,
    /// Another site, or a page that contradicts a parameter that was sent.
    Elsewhere,
}

pub fn landing(expected: &str, actual: &str) -> Landing {
    let (Ok(e), Ok(a)) = (Url::parse(expected), Url::parse(actual)) else {
        return Landing::Elsewhere;
    };
    if bare_host(expected) != bare_host(actual)
        || e.port_or_known_default() != a.port_or_known_default()
    {
        return Landing::Elsewhere;
    }
    let path = |u: &Url| u.path().trim_end_matches('/').to_string();
    let pairs: Vec<(String, String)> = a.query_pairs().into_owned().collect();
    let same_query = e.query_pairs().into_owned().all(|p| pairs.contains(&p));
    // A parameter sent that comes back with another value is another page (a search for "jazz"
    // showing the results for "blues"), whatever the path; case and spacing are the site's.
    let loose = |v: &str| {
        v.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let contradicted = e.query_pairs().any(|(k, v)| {
        let theirs: Vec<&(String, String)> = pairs.iter().filter(|(ak, _)| *ak == k).collect();
        !theirs.is_empty() && theirs.iter().all(|(_, av)| loose(av) != loose(&v))
    });
    if contradicted {
        return Landing::Elsewhere;
    }
    if path(&e) == path(&a) && same_query {
        Landing::Exact
    } else {
        Landing::SameSite
    }
}

/// What Chrome showed in a tab after a navigation (the extension's `evidence.page`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Page {
    pub exists: bool,
    pub url: String,
    pub title: String,
    pub active: bool,
    /// The document is there and parsed (not still loading).
    pub loaded: bool,
    /// Chrome shows its own error page (the site could not be reached).
    pub error_page: bool,
    /// The HTTP status of the page's document, when the page could tell.
    pub http_status: Option<u16>,
}

/// What a navigation step's observation means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The tab shows the page: `note` says how it differs from what was sent, if it does.
    Shown { note: Option<String> },
    /// It did not happen, for this reason (said to the person).
    Failed(String),
    /// Whether it happened cannot be told from what was seen.
    Unknown(String),
}

/// The verdict on a page opened at `expected`. `seen` is whether the extension saw the tab
/// navigate in time.
pub fn opened(expected: &str, seen: bool, page: &Page) -> Verdict {
    let host = bare_host(expected).unwrap_or_else(|| expected.to_string());
    if !page.exists {
        return Verdict::Unknown("the tab was closed before its page could be seen".into());
    }
    if page.error_page {
        return Verdict::Failed(format!(
            "{host} could not be reached: Chrome shows its error page for {expected}"
        ));
    }
    if !seen && landing(expected, &page.url) == Landing::Elsewhere {
        return Verdict::Unknown(format!(
            "the tab was not seen going to {expected} in time (it shows {})",
            shown(&page.url)
        ));
    }
    if let Some(status) = page.http_status.filter(|s| *s >= 400) {
        return Verdict::Failed(format!("{host} answered HTTP {status} for {expected}"));
    }
    match landing(expected, &page.url) {
        Landing::Elsewhere => Verdict::Failed(format!(
            "the tab shows {} instead of {expected}",
            shown(&page.url)
        )),
        _ if !page.loaded => Verdict::Unknown(format!(
            "{expected} was still loading when Circe stopped waiting"
        )),
        Landing::Exact => Verdict::Shown { note: None },
        Landing::SameSite => Verdict::Shown {
            note: Some(format!("{host} showed {}", page.url)),
        },
    }
}

/// The verdict on bringing `tab` to the front.
pub fn switched(tab: &Tab, seen: bool, page: &Page) -> Verdict {
    if !page.exists {
        return Verdict::Failed(format!(
            "the tab \"{}\" was closed before it came to the front",
            tab.label()
        ));
    }
    if seen && page.active {
        Verdict::Shown { note: None }
    } else {
        Verdict::Unknown(format!(
            "the tab \"{}\" was not seen in front in time",
            tab.label()
        ))
    }
}

/// The verdict on reloading a tab: a new document of the same page, loaded.
pub fn reloaded(tab: &Tab, new_document: bool, page: &Page) -> Verdict {
    if !page.exists {
        return Verdict::Unknown("the tab was closed while it reloaded".into());
    }
    if page.error_page {
        return Verdict::Failed(format!(
            "the page could not be reached again: Chrome shows its error page for {}",
            tab.url
        ));
    }
    if let Some(status) = page.http_status.filter(|s| *s >= 400) {
        return Verdict::Failed(format!("the site answered HTTP {status} on reload"));
    }
    if new_document && page.loaded {
        Verdict::Shown { note: None }
    } else {
        Verdict::Unknown(format!(
            "no new load of \"{}\" was seen in time",
            tab.label()
        ))
    }
}

fn shown(url: &str) -> String {
    if url.is_empty() {
        "nothing".into()
    } else {
        url.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::director::navigation::Placement;

    fn site(name: &str, aliases: &[&str], home: &str, search: Option<&str>) -> Site {
        Site {
            name: name.into(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            home: home.into(),
            search: search.map(str::to_string),
        }
    }

    #[test]
    fn sites_are_found_by_name_alias_or_host() {
        let sites = Sites::default();
        let table: &[(&str, Option<&str>)] = &[
            ("YouTube", Some("YouTube")),
            ("youtube", Some("YouTube")),
            ("you tube", Some("YouTube")),
            ("the YouTube website", Some("YouTube")),
            ("yt", Some("YouTube")),
            ("youtube.com", Some("YouTube")),
            ("Wikipedia", Some("Wikipedia")),
            ("wiki", Some("Wikipedia")),
            ("en.wikipedia.org", Some("Wikipedia")),
            ("git hub", Some("GitHub")),
            ("duck duck go", Some("DuckDuckGo")),
            ("DDG", Some("DuckDuckGo")),
            ("Vimeo", None),
            ("the wiki", Some("Wikipedia")),
            ("the comments on the second story", None),
            ("the", None),
            ("", None),
        ];
        for (said, want) in table {
            assert_eq!(sites.find(said).map(|s| s.name.as_str()), *want, "{said}");
        }
        assert_eq!(
            sites
                .of_url("https://m.youtube.com/watch?v=1")
                .map(|s| s.name.as_str()),
            Some("YouTube")
        );
        assert_eq!(sites.of_url("https://example.com/"), None);
    }

    #[test]
    fn search_addresses_carry_the_words_encoded() {
        let sites = Sites::default();
        let url = |name: &str, q: &str| sites.find(name).unwrap().search_url(q).unwrap();
        let table: &[(&str, &str, &str)] = &[
            (
                "YouTube",
                "lo-fi beats",
                "https://www.youtube.com/results?search_query=lo-fi+beats",
            ),
            (
                "Wikipedia",
                "Ada Lovelace",
                "https://en.wikipedia.org/w/index.php?search=Ada+Lovelace&fulltext=1",
            ),
            (
                "GitHub",
                "C++ json & co",
                "https://github.com/search?q=C%2B%2B+json+%26+co",
            ),
            (
                "DuckDuckGo",
                "Müller?",
                "https://duckduckgo.com/?q=M%C3%BCller%3F",
            ),
        ];
        for (name, q, want) in table {
            assert_eq!(url(name, q), *want, "{name} {q}");
        }
        let path = site(
            "Docs",
            &[],
            "https://docs.example/",
            Some("https://docs.example/find/{query}"),
        );
        assert_eq!(
            path.search_url("a b/c").unwrap(),
            "https://docs.example/find/a%20b%2Fc"
        );
        assert_eq!(
            site("Home only", &[], "https://h.example/", None).search_url("x"),
            None
        );
    }

    #[test]
    fn configured_sites_extend_the_table_and_bad_ones_are_refused_clearly() {
        let docs = site(
            "Rust docs",
            &["docs.rs"],
            "https://docs.rs/",
            Some("https://docs.rs/releases/search?query={query}"),
        );
        let sites = Sites::new(std::slice::from_ref(&docs)).unwrap();
        assert_eq!(sites.find("rust docs"), Some(&docs));
        assert_eq!(sites.find("docs.rs"), Some(&docs));
        let shop = site(
            "Nordhem",
            &["the furniture shop"],
            "https://shop.example/",
            None,
        );
        let sites_with_shop = Sites::new(std::slice::from_ref(&shop)).unwrap();
        assert_eq!(sites_with_shop.find("the furniture shop"), Some(&shop));
        assert_eq!(sites_with_shop.find("furniture shop"), None);
        assert_eq!(sites.all().len(), builtin().len() + 1);
        // A built-in's name replaces it.
        let mine = site("youtube", &[], "https://yt.example/", None);
        let sites = Sites::new(std::slice::from_ref(&mine)).unwrap();
        assert_eq!(sites.find("YouTube").unwrap().home, "https://yt.example/");
        assert_eq!(sites.all().len(), builtin().len());

        let table: &[(Site, &str)] = &[
            (site(" ", &[], "https://a.example/", None), "name is empty"),
            (
                site("A", &[], "ftp://a.example/", None),
                "\"A\": home \"ftp://a.example/\" is not an http(s) address",
            ),
            (
                site("A", &[], "not a url", None),
                "\"A\": home \"not a url\" is not an address",
            ),
            (
                site(
                    "A",
                    &[],
                    "https://a.example/",
                    Some("https://a.example/?q="),
                ),
                "has {query} 0 times",
            ),
            (
                site(
                    "A",
                    &[],
                    "https://a.example/",
                    Some("https://a.example/{query}?q={query}"),
                ),
                "has {query} 2 times",
            ),
            (
                site(
                    "A",
                    &[],
                    "https://a.example/",
                    Some("https://{query}.example/"),
                ),
                "in the host",
            ),
            (
                site("Tube", &["you tube"], "https://t.example/", None),
                "\"Tube\": the name \"you tube\" already means YouTube",
            ),
            (site("A", &["?!"], "https://a.example/", None), "no letters"),
        ];
        for (bad, want) in table {
            let err = Sites::new(std::slice::from_ref(bad)).unwrap_err();
            assert!(
                err.starts_with("[[browser.sites]]") && err.contains(want),
                "{bad:?}: {err}"
            );
        }
        let twice = Sites::new(&[docs.clone(), docs]).unwrap_err();
        assert!(twice.contains("listed twice"), "{twice}");
    }

    #[test]
    fn addresses_said_as_one_word() {
        let table: &[(&str, Option<&str>)] = &[
            ("example.com", Some("https://example.com/")),
            ("example.com/a?b=1", Some("https://example.com/a?b=1")),
            ("http://127.0.0.1:8080/x", Some("http://127.0.0.1:8080/x")),
            ("HTTPS://Example.COM", Some("https://example.com/")),
            ("the comments", None),
            ("youtube", None),
            ("v1.2", None),
            ("notes.md", None),
            ("main.py", None),
            ("docs.rs", None),
            ("www.docs.rs", Some("https://www.docs.rs/")),
            ("shop.circe.test/shop", Some("https://shop.circe.test/shop")),
            ("ftp://example.com", None),
            ("", None),
        ];
        for (said, want) in table {
            assert_eq!(address(said).as_deref(), *want, "{said}");
        }
    }

    #[test]
    fn a_blank_or_same_site_tab_is_reused_anything_else_kept() {
        let yt = "https://www.youtube.com/results?search_query=x";
        let table: &[(Placement, Option<&str>, Open)] = &[
            (Placement::Auto, Some("about:blank"), Open::ThisTab),
            (Placement::Auto, Some("chrome://newtab/"), Open::ThisTab),
            (Placement::Auto, Some(""), Open::ThisTab),
            (
                Placement::Auto,
                Some("https://youtube.com/watch?v=1"),
                Open::ThisTab,
            ),
            (Placement::Auto, Some("https://news.example/"), Open::NewTab),
            (Placement::Auto, None, Open::NewTab),
            (Placement::NewTab, Some("about:blank"), Open::NewTab),
            (
                Placement::ThisTab,
                Some("https://news.example/"),
                Open::ThisTab,
            ),
        ];
        for (said, front, want) in table {
            assert_eq!(placement(*said, *front, yt), *want, "{said:?} {front:?}");
        }
    }

    fn tab(id: i64, title: &str, url: &str) -> Tab {
        Tab {
            tab_id: id,
            window_id: 1,
            title: title.into(),
            url: url.into(),
            active: false,
            current: false,
        }
    }

    #[test]
    fn the_tab_is_a_closed_choice_over_the_open_tabs() {
        let tabs = vec![
            tab(11, "Inbox (3) - Mail", "https://mail.example.org/inbox"),
            tab(
                12,
                "lo-fi beats - YouTube",
                "https://www.youtube.com/results?search_query=lo-fi",
            ),
            tab(13, "Hacker News", "https://news.ycombinator.com/"),
            tab(14, "Rust - YouTube", "https://www.youtube.com/watch?v=2"),
            tab(15, "Calendar", "https://calendar.example.org/"),
            tab(16, "Mailing lists", "https://lists.example.org/"),
        ];
        let sites = Sites::default();
        let table: &[(&str, TabChoice)] = &[
            ("mail", TabChoice::One(0)),
            ("hacker news", TabChoice::One(2)),
            ("news", TabChoice::One(2)),
            ("YouTube", TabChoice::Several(vec![1, 3])),
            ("the Rust YouTube", TabChoice::One(3)),
            ("lo-fi", TabChoice::One(1)),
            ("calendar", TabChoice::One(4)),
            ("example", TabChoice::Several(vec![0, 4, 5])),
            ("weather", TabChoice::Nothing),
            ("my tab", TabChoice::Nothing),
        ];
        for (words, want) in table {
            assert_eq!(&choose_tab(&tabs, words, &sites), want, "{words}");
        }
        assert_eq!(tabs[0].label(), "Inbox (3) - Mail (mail.example.org)");
        assert_eq!(
            tab(1, "", "https://a.example/").label(),
            "https://a.example/"
        );
    }

    #[test]
    fn where_a_tab_landed() {
        let sent = "https://www.youtube.com/results?search_query=lo-fi+beats";
        let table: &[(&str, Landing)] = &[
            (sent, Landing::Exact),
            (
                "https://youtube.com/results/?search_query=lo-fi%20beats&sp=1",
                Landing::Exact,
            ),
            ("https://www.youtube.com/watch?v=1", Landing::SameSite),
            (
                "https://www.youtube.com/results?search_query=other",
                Landing::Elsewhere,
            ),
            (
                "https://www.youtube.com/results?search_query=Lo-Fi++Beats",
                Landing::SameSite,
            ),
            (
                "https://consent.youtube.com/m?continue=x",
                Landing::Elsewhere,
            ),
            (
                "https://www.youtube.com:8443/results?search_query=lo-fi+beats",
                Landing::Elsewhere,
            ),
            ("chrome-error://chromewebdata/", Landing::Elsewhere),
            ("", Landing::Elsewhere),
        ];
        for (actual, want) in table {
            assert_eq!(landing(sent, actual), *want, "{actual}");
        }
    }

    #[test]
    fn verdicts_are_honest() {
        let sent = "https://www.youtube.com/results?search_query=lo-fi+beats";
        let page = |url: &str, loaded: bool| Page {
            exists: true,
            url: url.into(),
            title: "t".into(),
            active: true,
            loaded,
            error_page: false,
            http_status: Some(200),
        };
        let shown = Verdict::Shown { note: None };
        assert_eq!(opened(sent, true, &page(sent, true)), shown);
        let redirected = opened(sent, true, &page("https://www.youtube.com/watch?v=1", true));
        assert!(
            matches!(&redirected, Verdict::Shown { note: Some(n) } if n.contains("watch?v=1")),
            "{redirected:?}"
        );
        assert!(matches!(
            opened(sent, true, &page(sent, false)),
            Verdict::Unknown(r) if r.contains("still loading")
        ));
        assert!(matches!(
            opened(sent, false, &page("about:blank", true)),
            Verdict::Unknown(r) if r.contains("not seen")
        ));
        assert!(matches!(
            opened(sent, true, &page("https://consent.youtube.com/", true)),
            Verdict::Failed(r) if r.contains("instead of")
        ));
        // Another search in the tab (another request navigated it meanwhile) is not this one.
        assert!(matches!(
            opened(sent, true, &page("https://www.youtube.com/results?search_query=blues", true)),
            Verdict::Failed(r) if r.contains("search_query=blues instead of")
        ));
        let error = Page {
            error_page: true,
            http_status: None,
            ..page(sent, false)
        };
        assert!(matches!(
            opened(sent, true, &error),
            Verdict::Failed(r) if r.contains("could not be reached")
        ));
        let missing = Page {
            http_status: Some(404),
            ..page(sent, true)
        };
        assert!(matches!(
            opened(sent, true, &missing),
            Verdict::Failed(r) if r.contains("HTTP 404")
        ));
        assert!(matches!(
            opened(sent, true, &Page::default()),
            Verdict::Unknown(r) if r.contains("closed")
        ));

        let t = tab(3, "Mail", "https://mail.example.org/");
        assert_eq!(switched(&t, true, &page(&t.url, true)), shown);
        let behind = Page {
            active: false,
            ..page(&t.url, true)
        };
        assert!(matches!(switched(&t, true, &behind), Verdict::Unknown(_)));
        assert!(matches!(
            switched(&t, false, &Page::default()),
            Verdict::Failed(_)
        ));
        assert_eq!(reloaded(&t, true, &page(&t.url, true)), shown);
        assert!(matches!(
            reloaded(&t, false, &page(&t.url, true)),
            Verdict::Unknown(_)
        ));
    }
}

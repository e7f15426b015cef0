//! Which language a screen is written in, from its small words: enough to choose a glossary.
//!
//! Architecture invariant: pure. A screen written in kana, Hangul, ideographs, Cyrillic or Greek
//! is told by its writing system; otherwise labels, contexts and the title are counted against short lists
//! of function words, and the language with the most (at least three, more than English) wins.

use super::text;
use crate::model::Observation;
use std::collections::HashSet;

/// Languages Circe can read a screen in, as ISO 639-1 codes, with their function words.
const FUNCTION_WORDS: &[(&str, &[&str])] = &[
    (
        "en",
        &[
            "the", "and", "of", "to", "for", "with", "your", "you", "is", "on", "more", "this",
            "are", "by", "from", "our", "all", "new", "at", "in", "about", "how", "what", "my",
        ],
    ),
    (
        "de",
        &[
            "der", "die", "das", "und", "mit", "fur", "von", "zu", "den", "dem", "des", "ist",
            "ein", "eine", "im", "auf", "nicht", "mehr", "sie", "ihre", "jetzt", "alle", "oder",
            "bei", "zum", "zur", "aus", "wie", "uber", "mein", "unsere", "ihr", "oder", "als",
            "auch", "noch", "nur",
        ],
    ),
    (
        "fr",
        &[
            "le", "la", "les", "et", "des", "du", "un", "une", "pour", "avec", "sur", "dans",
            "est", "vous", "votre", "vos", "plus", "au", "aux", "par", "ne", "pas", "mon", "nos",
        ],
    ),
    (
        "es",
        &[
            "el", "los", "las", "y", "del", "para", "con", "por", "una", "es", "su", "sus", "mas",
            "al", "que", "se", "mi", "nuestro", "como",
        ],
    ),
    (
        "it",
        &[
            "il", "lo", "gli", "di", "della", "per", "con", "che", "non", "piu", "dei", "delle",
            "alla", "sono", "questo", "nel", "la", "le", "del", "un", "una", "da", "al", "dal",
            "sul", "nella", "degli", "tutti", "tutte", "anche", "tuoi", "tuo", "tua", "nostri",
            "ed", "ai", "sulla", "dalla", "questa",
        ],
    ),
    (
        "nl",
        &[
            "het", "een", "en", "van", "voor", "met", "op", "niet", "meer", "naar", "bij", "uw",
            "je", "ons", "om", "te", "zijn", "onze",
        ],
    ),
    (
        "pt",
        &[
            "os", "e", "do", "da", "dos", "das", "em", "para", "com", "um", "uma", "nao", "mais",
            "por", "no", "na", "seu", "sua",
        ],
    ),
    // Folded as `text` folds ("się" → "sie", "że" → "ze", "już" → "juz"). Not "a" and "o"
    // (Portuguese, English), nor "s" (English "it's").
    (
        "pl",
        &[
            "i", "w", "na", "z", "do", "nie", "sie", "jest", "ze", "po", "dla", "od", "przez",
            "jak", "co", "ale", "tak", "za", "sa", "lub", "oraz", "przy", "ten", "jego", "juz",
            "tylko", "czy", "przed", "pod", "wiecej", "twoje", "nas",
        ],
    ),
    (
        "cs",
        &[
            "v", "na", "se", "je", "z", "ze", "do", "jak", "k", "po", "pro", "ale", "jsou", "jako",
            "od", "za", "by", "jsme", "tak", "ne", "co", "jen", "nebo", "podle", "u", "pri",
            "ktery", "ktere", "take", "vice", "vase",
        ],
    ),
    // Not "du" (French), "de" (Romance), "men", "at" (English).
    (
        "sv",
        &[
            "och", "i", "att", "det", "som", "en", "pa", "ar", "med", "till", "av", "den", "har",
            "inte", "om", "ett", "var", "jag", "kan", "eller", "fran", "vi", "sig", "nar", "alla",
            "mer", "din", "ditt", "dina", "hur", "ocksa",
        ],
    ),
    // Norwegian before Danish: a screen with only the words the two share is Danish (the last
    // of equal counts wins); "av", "hva", "seg", "ble", "mye", "noe" tell Norwegian.
    (
        "nb",
        &[
            "og", "i", "det", "som", "en", "pa", "er", "med", "til", "av", "den", "har", "ikke",
            "om", "et", "var", "jeg", "kan", "eller", "fra", "vi", "seg", "nar", "alle", "mer",
            "din", "ditt", "dine", "hvordan", "ogsa", "hva", "ble", "blir", "mye", "noe", "deg",
            "meg", "vart", "hvor", "etter",
        ],
    ),
    (
        "da",
        &[
            "og", "i", "det", "som", "en", "pa", "er", "med", "til", "af", "den", "har", "ikke",
            "om", "et", "var", "jeg", "kan", "eller", "fra", "vi", "sig", "nar", "alle", "mere",
            "din", "dit", "dine", "hvordan", "ogsa", "hvad",
        ],
    ),
    (
        "fi",
        &[
            "ja", "ei", "se", "etta", "kun", "tai", "mutta", "myos", "ovat", "oli", "seka",
            "kanssa", "jos", "niin", "kuin", "vain", "tama", "joka", "jotka", "lisaa", "kaikki",
            "sinun", "meidan", "nyt", "mita",
        ],
    ),
    // Not "a" (Portuguese), "is", "on", "be" (English), "de" (Romance).
    (
        "hu",
        &[
            "az", "es", "hogy", "nem", "egy", "meg", "van", "mar", "csak", "vagy", "mint", "ez",
            "ezt", "azt", "volt", "kell", "minden", "tobb", "itt", "uj", "ki",
        ],
    ),
    // Said of a screen mostly in Latin letters with some Russian in it (Cyrillic screens are
    // told by their writing system): folded ("её" → "ее", "ещё" → "еще").
    (
        "ru",
        &[
            "и",
            "в",
            "на",
            "с",
            "не",
            "по",
            "для",
            "от",
            "к",
            "из",
            "за",
            "что",
            "как",
            "это",
            "все",
            "вы",
            "мы",
            "или",
            "но",
            "же",
            "при",
            "без",
            "уже",
            "еще",
            "только",
            "ваш",
        ],
    ),
    // Croatian (and the Bosnian and Serbian written in Latin letters): its own small words,
    // folded ("što" → "sto", "još" → "jos"), not those it shares with Czech and Polish ("na",
    // "je", "se", "do", "od", "za", "po"), nor "i" and "u", which product names spell
    // ("i-Size", "Around U").
    (
        "hr",
        &[
            "su", "ili", "koji", "koja", "koje", "kako", "samo", "sve", "svi", "iz", "sto", "vise",
            "jos", "kao", "nije", "biti", "ovo", "ovaj", "ova", "vam", "nase", "kod", "nakon",
            "prema", "gdje", "kada", "zbog", "svoj", "svoje",
        ],
    ),
    // Slovenian: its own small words, folded ("vaše" → "vase"), not those it shares with
    // Croatian and Czech ("na", "za", "pri", "je", "vse"), nor "in" and "so", which English
    // writes.
    (
        "sl",
        &[
            "ki", "ter", "tudi", "lahko", "kjer", "kot", "brez", "jih", "smo", "ste", "vasa",
            "vase", "vasi", "kaj", "zakaj", "ali", "bomo", "ker", "oziroma",
        ],
    ),
    // Indonesian (and Malay). Not "di" (Italian).
    (
        "id",
        &[
            "dan", "yang", "ke", "dari", "untuk", "dengan", "ini", "itu", "pada", "adalah", "atau",
            "tidak", "akan", "kami", "anda", "juga", "dalam", "oleh", "lebih", "semua", "bisa",
            "kita", "sudah", "saya", "baru", "cara", "tentang", "kamu",
        ],
    ),
    // Not "da", "de" (Danish, Romance), "en", "her" (English), "ne" (French).
    (
        "tr",
        &[
            "ve", "bir", "bu", "icin", "ile", "daha", "cok", "olan", "gibi", "mi", "ya", "veya",
            "kadar", "sonra", "tum", "sizin", "bizim", "ama", "degil", "nasil", "yeni",
        ],
    ),
];

/// The language of the screen's words (`"de"`, `"fr"`, …), or `None` when too few small words
/// say it. English wins ties: a glossary is only for screens that are clearly not English.
pub fn of(observation: &Observation) -> Option<&'static str> {
    // The title, every label and each row's words once.
    let mut seen_contexts = HashSet::new();
    let mut texts = vec![observation.title.as_str()];
    for e in &observation.elements {
        texts.push(e.label.as_str());
        if seen_contexts.insert(e.context.as_str()) {
            texts.push(e.context.as_str());
        }
    }
    if let Some(language) = of_script(texts.iter().copied()).or_else(|| of_marks(&texts)) {
        return Some(language);
    }
    let words: Vec<String> = texts
        .iter()
        .flat_map(|t| text::tokens(t))
        .map(|t| t.norm)
        .collect();
    let english = !marked_letters(&texts);
    of_words_unless(words.iter().map(String::as_str), english)
}

/// Slovenian by its letters: words written with č, š or ž (five at least) and no other letter
/// outside English's, which its neighbours write and it does not (Croatian's ć and đ, Czech's ř
/// and acute accents, Latvian's ā and ģ, Estonian's õ). Its small words are mostly theirs too
/// ("na", "za", "pri", "vaše" is also Czech), so they cannot tell it.
fn of_marks(texts: &[&str]) -> Option<&'static str> {
    let mut caron = HashSet::new();
    for t in texts {
        for w in t.split(|c: char| !c.is_alphanumeric()) {
            for c in w.chars().flat_map(char::to_lowercase) {
                match c {
                    'č' | 'š' | 'ž' => {
                        caron.insert(w);
                    }
                    _ if c.is_alphabetic() && !c.is_ascii() => return None,
                    _ => {}
                }
            }
        }
    }
    (caron.len() >= 5).then_some("sl")
}

/// Whether the screen writes many words with letters English has no use for (č, ä, é, ø, …): at
/// least five different words, and at least one in seven of its different words. A screen so
/// written is not English, whatever English small words its widgets bring ("Share to
/// Facebook" on a Slovenian shop); an English page's foreign names (a map's Schönhauser
/// Allee, a café) stay far below.
fn marked_letters(texts: &[&str]) -> bool {
    let mut words = HashSet::new();
    let mut marked = HashSet::new();
    for t in texts {
        for w in t.split(|c: char| !c.is_alphanumeric()) {
            if w.is_empty() || w.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let w = w.to_lowercase();
            if w.chars()
                .any(|c| c.is_alphabetic() && !c.is_ascii() && c < '\u{250}')
            {
                marked.insert(w.clone());
            }
            words.insert(w);
        }
    }
    marked.len() >= 5 && marked.len() * 7 >= words.len()
}

/// The language a writing system says: Japanese by its kana (with or without kanji), Korean by
/// Hangul, Chinese by ideographs with next to no kana (each counting as three letters, and only
/// when they outweigh the alphabetic letters: a Japanese page's English links do not make it
/// English; an English page's word in kanji does not make it Chinese), Russian, Ukrainian or
/// Bulgarian by Cyrillic and Greek by its letters (each at least half the letters). `None` for a
/// screen in Latin letters, whose small words tell its language.
pub fn of_script<'a>(texts: impl Iterator<Item = &'a str>) -> Option<&'static str> {
    let (mut kana, mut ideographs, mut hangul, mut letters) = (0usize, 0usize, 0usize, 0usize);
    let (mut cyrillic, mut ukrainian, mut russian, mut hard_sign) = (0usize, 0, 0, 0);
    let mut greek = 0usize;
    for c in texts.flat_map(str::chars) {
        if text::is_cyrillic(c) {
            cyrillic += 1;
            ukrainian += usize::from(text::is_ukrainian(c));
            russian += usize::from(matches!(c, 'ы' | 'э' | 'ё' | 'Ы' | 'Э' | 'Ё'));
            hard_sign += usize::from(matches!(c, 'ъ' | 'Ъ'));
            letters += 1;
        } else if text::is_greek(c) {
            greek += 1;
            letters += 1;
        } else if text::is_kana(c) {
            kana += 1;
        } else if text::is_ideograph(c) {
            ideographs += 1;
        } else if text::is_hangul(c) {
            hangul += 1;
        } else if c.is_alphabetic() {
            letters += 1;
        }
    }
    // One kana or ideograph says about as much as three letters.
    if kana >= 5 && 3 * (kana + ideographs) >= letters {
        Some("ja")
    } else if hangul >= 5 && 3 * hangul >= letters {
        Some("ko")
    } else if ideographs >= 10 && 3 * ideographs >= letters && kana * 20 < ideographs {
        Some("zh")
    } else if cyrillic >= 10 && 2 * cyrillic >= letters {
        // Cyrillic is Russian unless the letters only Ukrainian writes say otherwise (a
        // Ukrainian screen has no glossary: better none than Russian's), or it is Bulgarian:
        // none of Russian's ы, э, ё and its ъ written as a vowel (one letter in fifty at least;
        // Russian writes ъ a few times a page).
        Some(if ukrainian * 50 >= cyrillic {
            "uk"
        } else if russian == 0 && hard_sign * 50 >= cyrillic {
            "bg"
        } else {
            "ru"
        })
    } else if greek >= 10 && 2 * greek >= letters {
        Some("el")
    } else {
        None
    }
}

/// A small word of `language` ("oder", "und", "der"): no word of a label's meaning, whatever
/// a dictionary says of its homonyms (the river Oder).
pub fn is_function_word(language: &str, word: &str) -> bool {
    FUNCTION_WORDS
        .iter()
        .any(|(l, words)| *l == language && words.contains(&word))
}

/// A small word of any language Circe reads ("le" of "Tutte le notizie").
pub fn is_any_function_word(word: &str) -> bool {
    FUNCTION_WORDS
        .iter()
        .any(|(_, words)| words.contains(&word))
}

/// The same over any words (already lower-case and folded).
pub fn of_words<'a>(words: impl Iterator<Item = &'a str>) -> Option<&'static str> {
    of_words_unless(words, true)
}

/// The same, English left out when `english` is false (the screen's letters say it is not).
fn of_words_unless<'a>(
    words: impl Iterator<Item = &'a str>,
    english_possible: bool,
) -> Option<&'static str> {
    let mut counts = [0usize; FUNCTION_WORDS.len()];
    let mut distinct: Vec<HashSet<&str>> = vec![HashSet::new(); FUNCTION_WORDS.len()];
    for w in words {
        for (k, (_, list)) in FUNCTION_WORDS.iter().enumerate() {
            if list.contains(&w) {
                counts[k] += 1;
                distinct[k].insert(w);
            }
        }
    }
    let english = if english_possible { counts[0] } else { 0 };
    let (best, n) = counts
        .iter()
        .enumerate()
        .skip(1)
        .max_by_key(|(_, n)| **n)
        .map(|(k, n)| (k, *n))?;
    // One small word said often ("com" of example.com, "os" of Mac OS) is no language.
    if n >= 3 && n > english && distinct[best].len() >= 2 {
        Some(FUNCTION_WORDS[best].0)
    } else if english >= 3 {
        Some("en")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writing_system_tells_its_language() {
        let table = [
            ("福娘童話集 > きょうのイソップ童話 > １月のイソップ童話", Some("ja")),
            // English links on a Japanese page.
            ("ホーム English 日本語・英語 ひらがな Home About", Some("ja")),
            ("로그인 회원가입 고객센터", Some("ko")),
            ("登录 注册 首页 新闻 体育 财经 科技", Some("zh")),
            ("Sign in to see more of your feed", None),
            ("Главная Новости Матчи и турниры Видео Фотогалереи", Some("ru")),
            // Ukrainian's own letters (і, ї, є): no Russian glossary for it.
            ("Головна Новини Матчі і турніри Відео Фотогалереї", Some("uk")),
            // A Russian name on an English page.
            ("Interview with Андрей Шевченко, the former striker", None),
            // A few Japanese words on an English page.
            ("Sushi (寿司) is a dish of vinegared rice with seafood, served across Japan", None),
            ("Tokyo Tower (東京タワー, Tōkyō tawā) is a communications and observation tower in Minato, Tokyo", None),
            ("Αρχική Επικοινωνία Αναζήτηση Καλάθι αγορών Ο λογαριασμός μου", Some("el")),
            // Bulgarian: its ъ is a vowel, and none of Russian's ы, э, ё.
            ("Начало Търсене Количка Вход Регистрация Всички продукти Към магазина", Some("bg")),
            ("Главная Поиск Корзина Вход Регистрация Объявления Вы смотрели", Some("ru")),
            // A Greek letter or two on an English page (a formula, a unit).
            ("The α and β versions of the ΔT sensor are sold out", None),
        ];
        for (words, want) in table {
            assert_eq!(of_script(std::iter::once(words)), want, "{words}");
        }
    }

    /// Slovenian by its letters: č, š, ž and none its neighbours write besides (Croatian's ć,
    /// Czech's ř and acute accents); its small words are mostly theirs too.
    #[test]
    fn slovenian_is_told_by_its_letters() {
        let table: [(&[&str], Option<&str>); 5] = [
            (
                &[
                    "Bralne leče za različna očala",
                    "Brezplačna poštnina",
                    "Vprašajte nas",
                    "Pomoč pri nakupu",
                    "Naroči",
                ],
                Some("sl"),
            ),
            // Croatian writes ć; Czech ř and á.
            (
                &[
                    "Košarica",
                    "Pitaj liječnika",
                    "Pretraži",
                    "Varaždin",
                    "Ponuda za vas",
                    "Kuća i vrt",
                ],
                None,
            ),
            (
                &[
                    "Přihlásit se",
                    "Košík",
                    "Účet",
                    "Vyhledávání",
                    "Hledat",
                    "Nákupní košík je prázdný",
                ],
                None,
            ),
            // Too few words so written.
            (&["Share to Facebook", "Naroči", "Print"], None),
            // Latvian writes č, š, ž and its long vowels.
            (
                &[
                    "Meklēt",
                    "Čeki",
                    "Šodien",
                    "Žurnāls",
                    "Atlaižu kodi",
                    "Iepirkšanās",
                    "Kāpēc",
                    "Ziņas",
                ],
                None,
            ),
        ];
        for (texts, want) in table {
            assert_eq!(of_marks(texts), want, "{texts:?}");
        }
    }

    /// A screen written with many letters English has no use for is not English, whatever
    /// English its widgets say; an English page's foreign names are far too few.
    #[test]
    fn marked_letters_say_a_screen_is_not_english() {
        let slovenian = [
            "Share to Facebook Facebook",
            "Share to E-naslov Email",
            "Share to Natisni Print",
            "Bralne leče STICK-ON za različna očala",
            "Brezplačna poštnina",
            "Vprašajte nas",
            "Pogosta vprašanja in odgovori",
            "Pomoč pri nakupu",
            "Pripomočki",
            "Količina",
        ];
        assert!(marked_letters(&slovenian));
        let english = [
            "Directions to Café Einstein on Kurfürstenstraße",
            "Schönhauser Allee",
            "Search nearby restaurants and hotels",
            "Save this place to your list",
            "Share the location with a friend",
            "Send to your phone",
        ];
        assert!(!marked_letters(&english));
    }

    /// The labels of a German child-seat test (ADAC): product names spell "i" and "U", the
    /// commonest small words of Croatian, and say hardly any German ones.
    #[test]
    fn product_names_are_no_small_words() {
        let words = "ADAC Kindersitz-Test 2018 Test: Günstige Alkoven-Wohnmobile Barrierefrei im \
                     Alltag unterwegs Britax Römer Baby-Safe 2 i-Size Flex Base Joie i-Level \
                     Jané Koos i-Size iPlatform Chicco Around U i-Size Maxi-Cosi Cabriofix";
        let tokens = text::tokens(words);
        assert_eq!(of_words(tokens.iter().map(|t| t.norm.as_str())), None);
    }

    #[test]
    fn one_small_word_said_often_is_no_language() {
        // "com" of the domains an English admin page lists, "os" of "Mac OS".
        let words = "example com shop com mail com status page the";
        assert_ne!(of_words(words.split(' ')), Some("pt"));
        let words = "mac os x os os firefox";
        assert_ne!(of_words(words.split(' ')), Some("pt"));
        let words = "os dados do cliente para a loja com entrega";
        assert_eq!(of_words(words.split(' ')), Some("pt"));
    }

    #[test]
    fn small_words_tell_the_language() {
        let table = [
            (
                "Jetzt vergleichen und sparen mit der Hotline für alle Kunden",
                Some("de"),
            ),
            (
                "Abonnez-vous pour lire la suite de nos articles et des dossiers",
                Some("fr"),
            ),
            (
                "Inicia sesión para ver los precios de las ofertas del día",
                Some("es"),
            ),
            (
                "Sign in to see more of your feed and all the new posts",
                Some("en"),
            ),
            // Mixed: English wins ties.
            ("the and for der die das", Some("en")),
            ("Login", None),
        ];
        for (words, want) in table {
            let tokens = text::tokens(words);
            let got = of_words(tokens.iter().map(|t| t.norm.as_str()));
            assert_eq!(got, want, "{words}");
        }
    }

    /// A realistic screen's words in each language read since the glossary reads Polish, Czech,
    /// Swedish and Danish, and the languages read before are still told from them (and from
    /// English) on their own screens, however many small words they share ("na", "do", "i",
    /// "en", "den", "se", "je").
    #[test]
    fn every_language_on_its_own_screen() {
        let table = [
            (
                "Relacja na żywo z meczu. Komentarze i składy – zaloguj się, aby dodać komentarz do artykułu. Wyniki są odświeżane przed rozpoczęciem.",
                Some("pl"),
            ),
            (
                "Strona główna | Wiadomości z kraju i ze świata, sport oraz pogoda. Nie masz jeszcze konta? Zarejestruj się za darmo",
                Some("pl"),
            ),
            (
                "Přihlásit se | Zprávy z domova a ze světa. Výsledky zápasů jsou k dispozici v sekci Sport, komentáře pro předplatitele.",
                Some("cs"),
            ),
            (
                "Košík je prázdný. Vyhledávání podle ceny, doprava zdarma na objednávky nad 1000 Kč a vrácení do 30 dnů",
                Some("cs"),
            ),
            (
                "Logga in för att se dina beställningar och det som finns i varukorgen. Fri frakt på alla order över 500 kr",
                Some("sv"),
            ),
            (
                "Nyheter från Sverige och världen – läs mer om hur det går till när du röstar i valet",
                Some("sv"),
            ),
            (
                "Log ind for at se dine ordrer og hvad der er i kurven. Gratis fragt på alle ordrer over 500 kr. og det er ikke alt",
                Some("da"),
            ),
            (
                "Nyheder fra Danmark og udlandet – læs mere om hvordan valget foregår, og hvad du kan gøre",
                Some("da"),
            ),
            (
                "Logg inn for å se ordrene dine og hva som er i handlekurven. Fri frakt på alle ordrer, og det er ikke alt som blir sendt av oss",
                Some("nb"),
            ),
            (
                "Jobb i TINE Helse Bærekraft Om TINE tilbake til forsiden. Les mer om hvordan melka blir levert av bonden",
                Some("nb"),
            ),
            (
                "Kirjaudu sisään nähdäksesi tilauksesi. Ilmainen toimitus kaikkiin tilauksiin, ja lisää tarjouksia on tulossa myös sinun alueellesi",
                Some("fi"),
            ),
            (
                "Jelentkezzen be, hogy lássa a rendeléseit. Ingyenes szállítás minden rendelésre, és ez még nem minden: több ajánlat is van",
                Some("hu"),
            ),
            (
                "Siparişlerinizi görmek için giriş yapın. Tüm siparişlerde ücretsiz kargo ve daha fazlası için bu sayfaya bir göz atın",
                Some("tr"),
            ),
            // The languages read before, on screens with the small words the new ones share.
            (
                "Sign in to see your orders. I agree to the terms, and I want to do more with my account",
                Some("en"),
            ),
            (
                "Melden Sie sich an, um den Warenkorb zu sehen und mit den Angeboten der Woche zu sparen",
                Some("de"),
            ),
            (
                "Les commentaires du match et la composition des équipes sont disponibles pour les abonnés",
                Some("fr"),
            ),
            (
                "Se muestran los resultados del partido y los comentarios de los lectores para el día de hoy",
                Some("es"),
            ),
            (
                "I commenti dei lettori e i risultati della partita sono disponibili per gli abbonati",
                Some("it"),
            ),
            // Italian's articles shared with French ("la", "le"): its own words outweigh them.
            (
                "Quando la stampante rende più smart il lavoro del progettista. Pubblica i tuoi prodotti. Tutte le notizie",
                Some("it"),
            ),
            (
                "La fin des trottinettes en libre-service à Paris: le vote et la réaction de la mairie",
                Some("fr"),
            ),
            (
                "Log in om je bestellingen te zien en de inhoud van je winkelwagen, met gratis verzending voor leden",
                Some("nl"),
            ),
            (
                "O resultado do jogo e a escalação das equipes estão disponíveis na página para os assinantes",
                Some("pt"),
            ),
            (
                "Pitaj liječnika kako odabrati pregled. Sve o zdravlju i ponude koje su samo za vas, još više popusta",
                Some("hr"),
            ),
            (
                "Masuk untuk melihat pesanan anda dan semua promo yang baru. Gratis ongkir untuk pembelian dengan kartu ini",
                Some("id"),
            ),
        ];
        for (words, want) in table {
            let tokens = text::tokens(words);
            let got = of_words(tokens.iter().map(|t| t.norm.as_str()));
            assert_eq!(got, want, "{words}");
        }
    }
}

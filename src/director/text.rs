//! Words: tokens with their source spans, normal forms, stems, numbers,
//! edit-distance similarity and a coarse pronunciation key.
//!
//! Invariant: every token that comes from a source string keeps its byte span,
//! so any text the Director hands on (text to type, an objective) is a slice of
//! what the user said, never a rebuilt string.

/// One word of a source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// Byte span in the source; `start == end` for synthetic tokens.
    pub start: usize,
    pub end: usize,
    /// Lowercased form.
    pub norm: String,
    /// Stem used for matching: plural and superlative endings removed, number
    /// words turned into digits.
    pub stem: String,
}

impl Token {
    /// A word made of the source's `start..end` (several tokens read as one: "5,000", "forty
    /// seven"), written `norm`.
    pub fn spanning(start: usize, end: usize, norm: String) -> Token {
        Token {
            start,
            end,
            stem: stem(&norm),
            norm,
        }
    }

    pub fn synthetic(word: &str) -> Token {
        let norm = fold(&word.to_lowercase());
        Token {
            start: 0,
            end: 0,
            stem: stem(&norm),
            norm,
        }
    }

    /// The same word said twice: one stem or one normal form ("comments" / "comment").
    pub fn same_word(&self, other: &Token) -> bool {
        self.stem == other.stem || self.norm == other.norm
    }

    pub fn is_number(&self) -> bool {
        !self.stem.is_empty() && self.stem.chars().all(|c| c.is_ascii_digit())
    }
}

/// Folds accented Latin letters to their base letter ("Économie" ->
/// "economie", Polish "Składy" -> "sklady", Czech "řeč" -> "rec", Danish
/// "kø" -> "ko", Hungarian "több" -> "tobb", Turkish "şimdi" -> "simdi", "ı" -> "i"), so
/// speech, typing and labels meet; "ß" becomes "ss", "æ" "ae", Azerbaijani "ə" "e". A
/// combining accent is dropped: a decomposed "é" (e and U+0301) is "e", and Turkish and
/// Azerbaijani "İ", which lowercases to "i" and a combining dot, is "i".
pub fn fold(word: &str) -> String {
    if word.is_ascii() {
        return word.to_string();
    }
    let combining = |c: char| ('\u{300}'..='\u{36f}').contains(&c);
    let mut out = String::with_capacity(word.len());
    for c in word.chars().filter(|&c| !is_invisible(c) && !combining(c)) {
        match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ą' => out.push('a'),
            'ă' | 'ā' => out.push('a'),
            'ç' | 'ć' | 'č' => out.push('c'),
            'đ' => out.push('d'),
            'ș' => out.push('s'),
            'ț' | 'ţ' => out.push('t'),
            // Greek's accents and diaeresis, and its final sigma: "Επικοινωνία" is
            // "επικοινωνια" wherever it stands.
            'ά' => out.push('α'),
            'έ' => out.push('ε'),
            'ή' => out.push('η'),
            'ί' | 'ϊ' | 'ΐ' => out.push('ι'),
            'ό' => out.push('ο'),
            'ύ' | 'ϋ' | 'ΰ' => out.push('υ'),
            'ώ' => out.push('ω'),
            'ς' => out.push('σ'),
            'ğ' => out.push('g'),
            'ď' => out.push('d'),
            'è' | 'é' | 'ê' | 'ë' | 'ę' | 'ě' | 'ə' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' | 'ı' => out.push('i'),
            'ł' => out.push('l'),
            'ñ' | 'ń' | 'ň' => out.push('n'),
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ő' => out.push('o'),
            'ř' => out.push('r'),
            'ś' | 'š' | 'ş' => out.push('s'),
            'ť' => out.push('t'),
            'ù' | 'ú' | 'û' | 'ü' | 'ů' | 'ű' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'ź' | 'ż' | 'ž' => out.push('z'),
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            // Russian writes "е" for "ё" more often than not.
            'ё' => out.push('е'),
            'Ё' => out.push('Е'),
            other => out.push(other),
        }
    }
    out
}

/// A stem whose last consonant an ending doubled ("drumm" of "drummer", "shopp" of "shopping"),
/// without the double; `None` when it ends in no double letter or is shorter than `min` bytes.
pub fn undoubled(stem: &str, min: usize) -> Option<&str> {
    let b = stem.as_bytes();
    (b.len() >= min && b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2])
        .then(|| &stem[..stem.len() - 1])
}

/// A Russian word in Latin letters, as names and loanwords are written both ways ("ВКонтакте"
/// / VKontakte, "Телеграм" / Telegram, "видео" / video, "блог" / blog); `None` unless every
/// letter is Russian. One simple scheme: it meets a name spelt letter for letter, not one
/// respelt by sound ("фейсбук" is no "facebook").
pub fn transliterated(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        let latin = match c {
            'а' => "a",
            'б' => "b",
            'в' => "v",
            'г' => "g",
            'д' => "d",
            'е' | 'ё' | 'э' => "e",
            'ж' => "zh",
            'з' => "z",
            'и' | 'й' => "i",
            'к' => "k",
            'л' => "l",
            'м' => "m",
            'н' => "n",
            'о' => "o",
            'п' => "p",
            'р' => "r",
            'с' => "s",
            'т' => "t",
            'у' => "u",
            'ф' => "f",
            'х' => "kh",
            'ц' => "ts",
            'ч' => "ch",
            'ш' => "sh",
            'щ' => "shch",
            'ъ' | 'ь' => "",
            'ы' => "y",
            'ю' => "yu",
            'я' => "ya",
            _ => return None,
        };
        out.push_str(latin);
    }
    Some(out)
}

/// Japanese kana: hiragana, katakana with its long-vowel mark, half-width katakana.
pub fn is_kana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}')
}

/// Hiragana alone: the script of Japanese particles and endings (の, を, から).
pub fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}')
}

/// A CJK ideograph (Japanese kanji, Chinese hanzi) or the iteration mark 々.
pub fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}' | '\u{3005}')
}

/// Korean Hangul syllables and letters.
pub fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}')
}

/// A Cyrillic letter, of any language written in it.
pub fn is_cyrillic(c: char) -> bool {
    matches!(c, '\u{0400}'..='\u{04FF}') && c.is_alphabetic()
}

/// A Greek letter.
pub fn is_greek(c: char) -> bool {
    matches!(c, '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}') && c.is_alphabetic()
}

/// A letter of the Russian alphabet (what `transliterated` reads).
pub fn is_russian(c: char) -> bool {
    matches!(c, 'а'..='я' | 'А'..='Я' | 'ё' | 'Ё')
}

/// A letter only Ukrainian writes (і, ї, є, ґ).
pub fn is_ukrainian(c: char) -> bool {
    matches!(c, 'і' | 'ї' | 'є' | 'ґ' | 'І' | 'Ї' | 'Є' | 'Ґ')
}

/// A character a page writes inside a word that nobody sees or says: the soft hyphen (where the
/// word may break: "Pu\u{ad}bli\u{ad}ka\u{ad}tio\u{ad}nen"), the zero-width joiners and the
/// byte-order mark. The zero-width space is not one: pages put it between words, and the scan
/// reads it as a space.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}'
    )
}

/// Splits on everything that is not a letter or digit; an invisible character inside a word
/// ([`is_invisible`]) belongs to it and is left out of its forms.
pub fn tokens(source: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in source.char_indices() {
        if c.is_alphanumeric() || start.is_some() && is_invisible(c) {
            if start.is_none() {
                start = Some(i);
            }
            continue;
        }
        if let Some(s) = start.take() {
            out.push(make(source, s, i));
        }
        // A sign said as a word after another ("MOTOMAMI +" is "motomami plus", "Google+");
        // one that leads is a bullet ("+ git lfs", a commit's "added").
        if let Some(word) = said_as(c).filter(|_| !out.is_empty()) {
            out.push(Token {
                start: i,
                end: i + c.len_utf8(),
                stem: stem(word),
                norm: word.to_string(),
            });
        }
    }
    if let Some(s) = start {
        out.push(make(source, s, source.len()));
    }
    written_numbers(source, join_initials(source, out))
}

/// Numbers as a label writes them, read as one says them: digits grouped by thousands are one
/// number ("₹5,000", "10.000 €", "1,000,000" are 5000, 10000, 1000000), and a fraction of
/// zeros says nothing ("+2,00" is 2, "12.00 €" is 12; "+2,50" stays 2 and 50). A group is
/// thousands only as exactly three digits after one to three that do not start with 0, the same
/// separator throughout and no digit right after ("1.2.3", "4.47.4", "0,500" stay apart).
fn written_numbers(source: &str, tokens: Vec<Token>) -> Vec<Token> {
    let digits = |t: &Token| !t.norm.is_empty() && t.norm.bytes().all(|b| b.is_ascii_digit());
    // The separator between two tokens, when it is one comma or dot and nothing else.
    let separator = |a: &Token, b: &Token| match &source[a.end..b.start] {
        "," => Some(','),
        "." => Some('.'),
        _ => None,
    };
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let first = &tokens[i];
        let leads =
            digits(first) && (1..=3).contains(&first.norm.len()) && !first.norm.starts_with('0');
        let mut j = i;
        let mut sep = None;
        while leads && j + 1 < tokens.len() {
            let next = &tokens[j + 1];
            let this = separator(&tokens[j], next);
            if this.is_none()
                || sep.is_some_and(|s| Some(s) != this)
                || !digits(next)
                || next.norm.len() != 3
            {
                break;
            }
            sep = this;
            j += 1;
        }
        // "1.2.3.4" is no number; "1,000.50" is one with its fraction after.
        let followed = tokens
            .get(j + 1)
            .is_some_and(|n| digits(n) && separator(&tokens[j], n) == sep);
        if j > i && !followed {
            let norm: String = tokens[i..=j].iter().map(|t| t.norm.as_str()).collect();
            out.push(Token::spanning(first.start, tokens[j].end, norm));
            i = j + 1;
            continue;
        }
        // "2,00": the whole number alone, its zeros gone.
        let zeros = tokens.get(i + 1).filter(|n| {
            digits(first)
                && separator(first, n).is_some()
                && (1..=2).contains(&n.norm.len())
                && n.norm.bytes().all(|b| b == b'0')
                && !tokens
                    .get(i + 2)
                    .is_some_and(|m| digits(m) && separator(n, m).is_some())
        });
        if let Some(zeros) = zeros {
            out.push(Token::spanning(first.start, zeros.end, first.norm.clone()));
            i += 2;
            continue;
        }
        out.push(first.clone());
        i += 1;
    }
    out
}

/// Letters written with a dot after each ("J.J.B.", "U.K.") are one word, the initials said
/// together ("jjb"); digits are not ("1.2.3" is a version). A run is single letters each
/// dotted and touching the next; three make a word ("J.J.B", its last dot left out), two only
/// when both are dotted ("U.K." but not "a.b"). A name glued on after is a word of its own
/// ("J.J.B.Smith" is "jjb smith").
fn join_initials(source: &str, tokens: Vec<Token>) -> Vec<Token> {
    let single = |t: &Token| {
        let mut chars = source[t.start..t.end].chars();
        matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic())
    };
    let dotted = |t: &Token| single(t) && source[t.end..].starts_with('.');
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let mut j = i;
        while j + 1 < tokens.len()
            && dotted(&tokens[j])
            && tokens[j + 1].start == tokens[j].end + 1
            && single(&tokens[j + 1])
        {
            j += 1;
        }
        let run = j - i + 1;
        if run >= 3 || run == 2 && dotted(&tokens[j]) {
            let norm: String = tokens[i..=j].iter().map(|t| t.norm.as_str()).collect();
            out.push(Token::spanning(tokens[i].start, tokens[j].end, norm));
            i = j + 1;
        } else {
            out.push(tokens[i].clone());
            i += 1;
        }
    }
    out
}

/// The word a sign is read aloud as, for the signs a label uses as a word ("&" is not one: read
/// as "and" it would count as an English small word on any page, "V&H Support").
fn said_as(c: char) -> Option<&'static str> {
    match c {
        '+' => Some("plus"),
        _ => None,
    }
}

fn make(source: &str, start: usize, end: usize) -> Token {
    let norm = fold(&source[start..end].to_lowercase());
    Token {
        start,
        end,
        stem: stem(&norm),
        norm,
    }
}

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// Two to ten in the languages of the pages people speak to in their own (folded: "fünf" is
/// "funf", "pięć" "piec"): "Seite fünf", "página cinco". Left out: words that are also an
/// article or another common word (German "ein", French "un", "neuf" new, "sept" the month,
/// Spanish "dos" beside Portuguese "dos" of the, Italian "due" and "sei", the name "Otto").
const FOREIGN_UNITS: &[(&str, u32)] = &[
    // German
    ("zwei", 2),
    ("drei", 3),
    ("vier", 4),
    ("funf", 5),
    ("sechs", 6),
    ("sieben", 7),
    ("acht", 8),
    ("neun", 9),
    ("zehn", 10),
    // French
    ("deux", 2),
    ("trois", 3),
    ("quatre", 4),
    ("cinq", 5),
    ("huit", 8),
    ("dix", 10),
    // Spanish and Portuguese
    ("dois", 2),
    ("duas", 2),
    ("tres", 3),
    ("cuatro", 4),
    ("quatro", 4),
    ("cinco", 5),
    ("seis", 6),
    ("siete", 7),
    ("sete", 7),
    ("ocho", 8),
    ("oito", 8),
    ("nueve", 9),
    ("nove", 9),
    ("diez", 10),
    ("dez", 10),
    // Italian
    ("tre", 3),
    ("quattro", 4),
    ("cinque", 5),
    ("sette", 7),
    ("dieci", 10),
    // Dutch
    ("twee", 2),
    ("drie", 3),
    ("vijf", 5),
    ("zes", 6),
    ("zeven", 7),
    ("negen", 9),
    ("tien", 10),
    // Polish
    ("dwa", 2),
    ("trzy", 3),
    ("cztery", 4),
    ("piec", 5),
    ("szesc", 6),
    ("siedem", 7),
    ("osiem", 8),
    ("dziewiec", 9),
    ("dziesiec", 10),
];

/// "seventeen" -> 17, "42" -> 42, "fünf" -> 5. "one" is a number only where a number is
/// expected, so callers decide; this function just reads it.
pub fn number_word(norm: &str) -> Option<u32> {
    if let Some(i) = UNITS.iter().position(|w| *w == norm) {
        return Some(i as u32);
    }
    if let Some((_, n)) = FOREIGN_UNITS.iter().find(|(w, _)| *w == norm) {
        return Some(*n);
    }
    if let Some(i) = TENS.iter().position(|w| *w == norm) {
        return Some(20 + 10 * i as u32);
    }
    if !norm.is_empty() && norm.len() <= 6 && norm.chars().all(|c| c.is_ascii_digit()) {
        return norm.parse().ok();
    }
    None
}

const ORDINALS: [&str; 20] = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
];

/// "third" -> 3, "3rd" -> 3.
pub fn ordinal_word(norm: &str) -> Option<u32> {
    if let Some(i) = ORDINALS.iter().position(|w| *w == norm) {
        return Some(i as u32 + 1);
    }
    for suffix in ["st", "nd", "rd", "th"] {
        if let Some(digits) = norm.strip_suffix(suffix) {
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                return digits.parse().ok();
            }
        }
    }
    None
}

/// Words that end in "s" without being plurals.
const NOT_PLURAL: [&str; 12] = [
    "news", "series", "species", "always", "perhaps", "this", "yes", "has", "was", "does", "alias",
    "canvas",
];

/// English past forms that no suffix rule reaches, as their base ("the animals that were
/// found" meets "Fundtiere", glossed "find"). Not forms that are other words too ("left",
/// "done", "read", "set").
const IRREGULAR: &[(&str, &str)] = &[
    ("found", "find"),
    ("bought", "buy"),
    ("sold", "sell"),
    ("sent", "send"),
    ("paid", "pay"),
    ("made", "make"),
    ("written", "write"),
    ("wrote", "write"),
    ("chosen", "choose"),
    ("chose", "choose"),
    ("given", "give"),
    ("gave", "give"),
    ("taken", "take"),
    ("took", "take"),
    ("kept", "keep"),
    ("lost", "lose"),
    ("told", "tell"),
    ("brought", "bring"),
    ("held", "hold"),
    ("spent", "spend"),
    ("built", "build"),
];

/// A light English stemmer: enough to equate "comments"/"comment",
/// "stories"/"story", "newest"/"new", "found"/"find". Number words become digits, except
/// "one", which is far more often a pronoun ("the Feynman one").
pub fn stem(norm: &str) -> String {
    if norm != "one" {
        if let Some(n) = number_word(norm) {
            return n.to_string();
        }
    }
    if let Some((_, base)) = IRREGULAR.iter().find(|(form, _)| *form == norm) {
        return base.to_string();
    }
    let n = norm.chars().count();
    if !norm.chars().all(|c| c.is_alphabetic()) || n <= 3 {
        return norm.to_string();
    }
    let cut = |suffix: &str, keep: usize| -> Option<String> {
        norm.strip_suffix(suffix)
            .filter(|rest| rest.chars().count() >= keep)
            .map(str::to_string)
    };
    if let Some(s) = cut("ies", 3) {
        return s + "y";
    }
    if let Some(s) = cut("est", 3) {
        return s;
    }
    // "starred" -> "star", "checked" -> "check"; short words keep "ed".
    if let Some(s) = cut("ed", 4) {
        let b = s.as_bytes();
        let doubled = b.len() >= 2
            && b[b.len() - 1] == b[b.len() - 2]
            && !b"aeiouls".contains(&b[b.len() - 1]);
        return if doubled {
            s[..s.len() - 1].to_string()
        } else {
            s
        };
    }
    for es in ["ches", "shes", "sses", "xes"] {
        if norm.ends_with(es) {
            return norm[..norm.len() - 2].to_string();
        }
    }
    if norm.ends_with('s')
        && !norm.ends_with("ss")
        && !norm.ends_with("us")
        && !NOT_PLURAL.contains(&norm)
    {
        return norm[..norm.len() - 1].to_string();
    }
    norm.to_string()
}

/// Normalised Levenshtein similarity in [0, 1] over characters.
pub fn similarity(a: &str, b: &str) -> f32 {
    if a == b {
        return 1.0;
    }
    if a.is_ascii() && b.is_ascii() && a.len() <= 32 && b.len() <= 32 {
        return 1.0
            - edit_distance(a.as_bytes(), b.as_bytes()) as f32 / a.len().max(b.len()) as f32;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    1.0 - edit_distance(&a, &b) as f32 / longest as f32
}

/// Levenshtein distance with one row on the stack for short inputs.
fn edit_distance<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut stack = [0usize; 33];
    let mut heap = Vec::new();
    let row: &mut [usize] = if b.len() < stack.len() {
        &mut stack[..=b.len()]
    } else {
        heap.resize(b.len() + 1, 0);
        &mut heap
    };
    for (j, r) in row.iter_mut().enumerate() {
        *r = j;
    }
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(row[j]).min(row[j + 1])
            };
            prev = here;
        }
    }
    row[b.len()]
}

/// The first letter of [`sound_key`], cheap: equal keys need equal firsts.
pub fn sound_first(norm: &str) -> char {
    match norm.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'h' | 'w' | 'ä' | 'ö' | 'ü') => 'a',
        Some('c') if matches!(norm.chars().nth(1), Some('e' | 'i' | 'y')) => 's',
        Some('p') if norm.chars().nth(1) == Some('h') => 'f',
        Some('c' | 'k' | 'q' | 'g' | 'x') => 'k',
        Some('b' | 'p') => 'p',
        Some('d' | 't') => 't',
        Some('f' | 'v') => 'f',
        Some('s' | 'z' | 'ß') => 's',
        Some('m' | 'n') => 'n',
        Some(c) => c,
        None => ' ',
    }
}

/// A coarse pronunciation key: letters grouped by how they sound, vowels
/// dropped after the first letter, repeats collapsed ("floats" and "flotes"
/// share one, so do "Rivvl" and "rival"). Equal keys make a candidate, never
/// a verdict.
pub fn sound_key(norm: &str) -> String {
    let mut buf = ['\0'; 48];
    let n = sound_key_into(norm, &mut buf);
    buf[..n].iter().collect()
}

/// Whether two words share a pronunciation key of at least `min` codes,
/// without allocating.
pub fn sound_alike(a: &str, b: &str, min: usize) -> bool {
    let (mut x, mut y) = (['\0'; 48], ['\0'; 48]);
    let (n, m) = (sound_key_into(a, &mut x), sound_key_into(b, &mut y));
    n >= min && x[..n] == y[..m]
}

/// Writes the key of `norm` into `out`; returns its length (capped).
fn sound_key_into(norm: &str, out: &mut [char; 48]) -> usize {
    let mut len = 0;
    let mut last = ' ';
    let mut chars = norm.chars().filter(|c| c.is_alphanumeric()).peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied().unwrap_or(' ');
        let mut skip = false;
        let code = match c {
            'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'h' | 'w' | 'ä' | 'ö' | 'ü' if first => 'a',
            'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'h' | 'w' | 'ä' | 'ö' | 'ü' => '_',
            'p' if next == 'h' => {
                skip = true;
                'f'
            }
            'c' if matches!(next, 'e' | 'i' | 'y') => 's',
            'c' if next == 'h' => {
                skip = true;
                'k'
            }
            'c' | 'k' | 'q' | 'g' | 'x' => 'k',
            'b' | 'p' => 'p',
            'd' | 't' => 't',
            'f' | 'v' => 'f',
            's' | 'z' | 'ß' => 's',
            'j' => 'j',
            'l' => 'l',
            'm' | 'n' => 'n',
            'r' => 'r',
            d if d.is_ascii_digit() => d,
            _ => '_',
        };
        first = false;
        if skip {
            chars.next();
        }
        if code == '_' {
            last = '_';
        } else if code != last {
            if len < out.len() {
                out[len] = code;
                len += 1;
            }
            last = code;
        }
    }
    len
}

/// `%XX` decoded; `None` when the result is not UTF-8 or an escape is malformed.
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Digits grouped by thousands are one number and a fraction of zeros says nothing, as one
    /// says them; versions, dates and real fractions stay apart.
    #[test]
    fn written_numbers_are_read_as_said() {
        let table: &[(&str, &[&str])] = &[
            ("Under ₹5,000", &["under", "5000"]),
            ("₹10,000 to ₹15,000", &["10000", "to", "15000"]),
            ("10.000 € im Monat", &["10000", "im", "monat"]),
            ("1,000,000 views", &["1000000", "view"]),
            ("+2,00", &["2"]),
            ("12.00 €", &["12"]),
            ("+2,50", &["2", "50"]),
            ("+1,75", &["1", "75"]),
            ("4.47.4", &["4", "47", "4"]),
            ("1.2.3", &["1", "2", "3"]),
            ("0,500 kg", &["0", "500", "kg"]),
            ("1,5000", &["1", "5000"]),
            ("12.06.2020", &["12", "6", "2020"]),
            ("1,000.5", &["1000", "5"]),
        ];
        for (label, want) in table {
            let got: Vec<String> = tokens(label).into_iter().map(|t| t.stem).collect();
            assert_eq!(got, *want, "{label}");
        }
        let t = tokens("cost ₹5,000 now");
        assert_eq!(&"cost ₹5,000 now"[t[1].start..t[1].end], "5,000");
    }

    #[test]
    fn tokens_keep_their_source_spans() {
        let source = "type pyproject.toml in the box";
        let t = tokens(source);
        let words: Vec<&str> = t.iter().map(|t| &source[t.start..t.end]).collect();
        assert_eq!(words, ["type", "pyproject", "toml", "in", "the", "box"]);
    }

    /// A "+" is the word "plus" ("MOTOMAMI +" is said "motomami plus"), spanning the sign.
    #[test]
    fn a_soft_hyphen_is_inside_its_word() {
        let t = tokens(
            "Pu\u{ad}bli\u{ad}ka\u{ad}tio\u{ad}nen Wei\u{ad}te\u{ad}re Kon\u{ad}tak\u{ad}te",
        );
        let norms: Vec<&str> = t.iter().map(|t| t.norm.as_str()).collect();
        assert_eq!(norms, ["publikationen", "weitere", "kontakte"]);
        assert_eq!((t[1].start, t[1].end), (22, 33));
        // One that leads is no word; a zero-width space still parts two words.
        let t = tokens("\u{ad}Kontakt Ser\u{200b}vice");
        let norms: Vec<&str> = t.iter().map(|t| t.norm.as_str()).collect();
        assert_eq!(norms, ["kontakt", "ser", "vice"]);
    }

    /// Letters written with a mark fold to the letter said: Croatian "đ", Romanian "ș", "ț" and
    /// "ă" (with comma or cedilla), Greek accents and its final sigma.
    #[test]
    fn marked_letters_fold_to_their_letter() {
        let norms = |s: &str| tokens(s).into_iter().map(|t| t.norm).collect::<Vec<_>>();
        assert_eq!(norms("Građevina"), ["gradevina"]);
        assert_eq!(norms("Adaugă în coș"), ["adauga", "in", "cos"]);
        assert_eq!(norms("Țară Ţară"), ["tara", "tara"]);
        assert_eq!(
            norms("Επικοινωνία λογαριασμός"),
            ["επικοινωνια", "λογαριασμοσ"]
        );
        assert_eq!(norms("Ϊ ΐ"), ["ι", "ι"]);
    }

    #[test]
    fn a_plus_sign_is_the_word_plus() {
        let norms = |s: &str| tokens(s).into_iter().map(|t| t.norm).collect::<Vec<_>>();
        assert_eq!(norms("MOTOMAMI +"), ["motomami", "plus"]);
        assert_eq!(norms("Google+"), ["google", "plus"]);
        assert_eq!(norms("V&H Support"), ["v", "h", "support"]);
        assert_eq!(norms("+ git lfs"), ["git", "lfs"]);
        let t = tokens("Disney+ app");
        assert_eq!((t[1].start, t[1].end), (6, 7));
    }

    #[test]
    fn irregular_past_forms_stem_to_their_base() {
        for (form, base) in [("found", "find"), ("bought", "buy"), ("sent", "send")] {
            assert_eq!(stem(form), stem(base), "{form}");
        }
        // A form that is another word too keeps its own stem.
        assert_eq!(stem("left"), "left");
    }

    #[test]
    fn initials_with_dots_are_one_word() {
        let norms = |s: &str| tokens(s).into_iter().map(|t| t.norm).collect::<Vec<_>>();
        assert_eq!(
            norms("like J.J.B.'s comment"),
            ["like", "jjb", "s", "comment"]
        );
        assert_eq!(norms("J.J.B Jul 1"), ["jjb", "jul", "1"]);
        assert_eq!(norms("the U.K. site"), ["the", "uk", "site"]);
        assert_eq!(norms("version 1.2.3"), ["version", "1", "2", "3"]);
        assert_eq!(norms("J. Smith. A. B"), ["j", "smith", "a", "b"]);
        assert_eq!(norms("a.b"), ["a", "b"]);
        assert_eq!(norms("pyproject.toml"), ["pyproject", "toml"]);
        assert_eq!(norms("J.J.B.Smith"), ["jjb", "smith"]);
        assert_eq!(norms("A.B test"), ["a", "b", "test"]);
        let source = "by J.J.B. today";
        let t = tokens(source);
        assert_eq!(&source[t[1].start..t[1].end], "J.J.B");
    }

    #[test]
    fn accents_fold_to_their_base_letters() {
        let table = [
            ("Économie", "economie"),
            ("Straße", "strasse"),
            ("SKŁADY", "sklady"),
            ("Odświeżone", "odswiezone"),
            ("chwilą", "chwila"),
            ("přihlášení", "prihlaseni"),
            ("účet", "ucet"),
            ("Köp", "kop"),
            ("søg", "sog"),
            ("Æble", "aeble"),
            // Turkish and Azerbaijani capital dotted I lowercases with a combining dot.
            ("İmza", "imza"),
            ("DAXİL", "daxil"),
            ("xəritəsi", "xeritesi"),
            // A decomposed accent (e and U+0301), as some keyboards and files write it.
            ("Cafe\u{301}", "cafe"),
        ];
        for (word, want) in table {
            let t = tokens(word);
            assert_eq!(t.len(), 1, "{word}");
            assert_eq!(t[0].norm, want, "{word}");
        }
    }

    #[test]
    fn stems_equate_word_forms() {
        let table = [
            ("comments", "comment"),
            ("stories", "story"),
            ("newest", "new"),
            ("seventeen", "17"),
            ("boxes", "box"),
            ("news", "news"),
            ("one", "one"),
            ("starred", "star"),
            ("checked", "check"),
            ("used", "used"),
            ("bus", "bus"),
        ];
        for (word, want) in table {
            assert_eq!(stem(word), want, "{word}");
        }
    }

    #[test]
    fn ordinals_and_numbers_read_both_spellings() {
        assert_eq!(ordinal_word("third"), Some(3));
        assert_eq!(ordinal_word("21st"), Some(21));
        assert_eq!(ordinal_word("three"), None);
        assert_eq!(number_word("ten"), Some(10));
        assert_eq!(number_word("forty"), Some(40));
    }

    #[test]
    fn similarity_is_one_minus_relative_edit_distance() {
        assert_eq!(similarity("awk", "awk"), 1.0);
        assert!((similarity("kitten", "sitting") - (1.0 - 3.0 / 7.0)).abs() < 1e-6);
        assert!(similarity("zivil", "rivvl") < 0.7);
    }

    #[test]
    fn sound_first_agrees_with_sound_key() {
        for w in [
            "floats",
            "cereal",
            "phone",
            "kasse",
            "awk",
            "zivil",
            "rivvl",
            "demoscene",
        ] {
            assert_eq!(sound_key(w).chars().next(), Some(sound_first(w)), "{w}");
        }
    }

    #[test]
    fn sound_keys_group_similar_pronunciations() {
        assert_eq!(sound_key("floats"), sound_key("flotes"));
        assert_eq!(sound_key("demoscene"), sound_key("demoseen"));
        assert_ne!(sound_key("awk"), sound_key("orc"));
    }
}

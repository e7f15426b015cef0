//! Commands said in another language, read as the English the reader knows: "baixa a versão
//! assinada da 1970" as "download the versão assinada of 1970", "klik op Aanmelden" as "click
//! on Aanmelden", "Anglertalk öffnen" as "open Anglertalk", "sobe um pouco" as "scroll up a
//! bit". Only the command's own words are read: its verb at the start (in German and Dutch also
//! an infinitive at the end, "Kommentare anzeigen"), the small words of the verb's language after
//! it (articles, prepositions, "all", "me", "a little"), the kind of control it names ("het
//! vakje", the box) and a courtesy before it ("por favor"). Every
//! other word stays as said, to meet the screen's words in that language. A request with no
//! command verb of another language is returned as it came.
//!
//! Pure: tokens in, tokens out. A translated word keeps the span of the words it stands for, so
//! the source still reads right; the English words a phrase adds after its first stand at the
//! phrase's end with no width.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::text::{self, Token};

/// The verbs of commands, by the English they are read as, in the languages the glossary reads
/// (imperatives and infinitives, as said; compared folded). "…" stands where a separable verb
/// puts its object ("vink … aan", "lade … herunter"). No form that is also an English word
/// people say to a screen ("open", "download", "tape", "visa", "such"), nor one that folds into
/// another verb's ("drücken", press, is "drucken", print).
const VERBS: &[(&str, &str, &[&str])] = &[
    (
        "open",
        "de",
        &[
            "öffne",
            "öffnen",
            "öffnet",
            "mach … auf",
            "aufrufen",
            "rufe … auf",
        ],
    ),
    ("open", "fr", &["ouvre", "ouvrez", "ouvrir"]),
    ("open", "es", &["abre", "abra", "abrir", "ábreme"]),
    ("open", "pt", &["abre", "abra", "abrir"]),
    ("open", "it", &["apri", "apra", "aprire", "aprimi"]),
    ("open", "nl", &["openen"]),
    ("open", "pl", &["otwórz", "otwórzcie", "otworzyć"]),
    ("open", "cs", &["otevři", "otevřete", "otevřít"]),
    ("open", "sv", &["öppna"]),
    ("open", "da", &["åbn", "åbne"]),
    ("open", "fi", &["avaa"]),
    ("open", "ru", &["открой", "откройте", "открыть"]),
    (
        "click",
        "de",
        &[
            "klicke",
            "klick",
            "klicken",
            "anklicken",
            "klicke … an",
            "tippe auf",
        ],
    ),
    ("click", "fr", &["clique", "cliquez", "cliquer"]),
    (
        "click",
        "es",
        &[
            "haz clic",
            "haga clic",
            "hacer clic",
            "pincha",
            "pinche",
            "cliquea",
        ],
    ),
    ("click", "pt", &["clica", "clique", "clicar"]),
    ("click", "it", &["clicca", "clicchi", "cliccare"]),
    (
        "click",
        "nl",
        &["klik", "klikken", "aanklikken", "klik … aan"],
    ),
    ("click", "pl", &["kliknij", "kliknąć"]),
    ("click", "cs", &["klikni", "klikněte"]),
    ("click", "sv", &["klicka"]),
    ("click", "da", &["klik"]),
    ("click", "fi", &["klikkaa"]),
    ("click", "ru", &["кликни", "кликните"]),
    ("click", "hu", &["kattints"]),
    ("press", "de", &["drücke auf", "drück auf"]),
    ("press", "fr", &["appuie", "appuyez", "appuyer"]),
    ("press", "es", &["pulsa", "presiona", "presione", "aprieta"]),
    (
        "press",
        "pt",
        &["aperta", "aperte", "apertar", "pressiona", "pressione"],
    ),
    ("press", "it", &["premi", "prema", "premere"]),
    ("press", "nl", &["druk", "drukken"]),
    ("press", "pl", &["naciśnij", "wciśnij"]),
    ("press", "cs", &["stiskni"]),
    ("press", "sv", &["tryck"]),
    ("press", "fi", &["paina"]),
    ("press", "ru", &["нажми", "нажмите"]),
    ("go", "de", &["geh", "gehe", "gehen", "wechsle"]),
    ("go", "fr", &["va", "allez", "aller", "vas"]),
    ("go", "es", &["ve", "vaya", "ir", "vete"]),
    ("go", "pt", &["vai", "vá", "ir", "vamos"]),
    ("go", "it", &["vai", "vada", "andare", "andiamo"]),
    ("go", "nl", &["ga", "gaan"]),
    ("go", "pl", &["idź", "przejdź"]),
    ("go", "cs", &["jdi", "přejdi"]),
    ("go", "sv", &["gå"]),
    ("go", "ru", &["перейди", "перейдите", "иди"]),
    ("go", "hu", &["menj", "ugorj"]),
    (
        "show",
        "de",
        &["zeig", "zeige", "zeigen", "anzeigen", "zeig … an"],
    ),
    (
        "show",
        "fr",
        &[
            "montre", "montrez", "montrer", "affiche", "affichez", "afficher",
        ],
    ),
    (
        "show",
        "es",
        &["muestra", "muestre", "muéstrame", "enséñame", "mostrar"],
    ),
    (
        "show",
        "pt",
        &["mostra", "mostre", "mostrar", "exibe", "exiba"],
    ),
    (
        "show",
        "it",
        &[
            "mostra",
            "mostrami",
            "mostrare",
            "fammi vedere",
            "visualizza",
        ],
    ),
    ("show", "nl", &["toon", "tonen", "laat … zien"]),
    ("show", "pl", &["pokaż", "pokazać", "wyświetl"]),
    ("show", "cs", &["ukaž", "zobraz"]),
    ("show", "sv", &["visa mig"]),
    ("show", "fi", &["näytä"]),
    ("show", "ru", &["покажи", "покажите", "показать"]),
    ("show", "hu", &["mutasd"]),
    (
        "download",
        "de",
        &["herunterladen", "lade … herunter", "lade … runter"],
    ),
    (
        "download",
        "fr",
        &["télécharge", "téléchargez", "télécharger"],
    ),
    (
        "download",
        "es",
        &["descarga", "descargue", "descargar", "descárgame"],
    ),
    (
        "download",
        "pt",
        &["baixa", "baixe", "baixar", "descarrega", "descarregue"],
    ),
    ("download", "it", &["scarica", "scaricare"]),
    ("download", "nl", &["downloaden"]),
    ("download", "pl", &["pobierz", "pobrać", "ściągnij"]),
    ("download", "cs", &["stáhni", "stáhněte"]),
    ("download", "sv", &["ladda ner", "ladda ned"]),
    ("download", "ru", &["скачай", "скачайте", "скачать"]),
    (
        "close",
        "de",
        &["schließe", "schließ", "schließen", "mach … zu"],
    ),
    ("close", "fr", &["ferme", "fermez", "fermer"]),
    ("close", "es", &["cierra", "cierre", "cerrar"]),
    ("close", "pt", &["feche", "fechar"]),
    ("close", "it", &["chiudi", "chiuda", "chiudere"]),
    ("close", "nl", &["sluit", "sluiten"]),
    ("close", "pl", &["zamknij", "zamknąć"]),
    ("close", "cs", &["zavři"]),
    ("close", "sv", &["stäng"]),
    ("close", "ru", &["закрой", "закройте"]),
    ("search", "de", &["suche", "suchen", "durchsuche"]),
    (
        "search",
        "fr",
        &["cherche", "cherchez", "recherche", "recherchez", "chercher"],
    ),
    ("search", "es", &["busca", "busque", "buscar"]),
    (
        "search",
        "pt",
        &[
            "procura", "procure", "pesquisa", "pesquise", "busca", "busque",
        ],
    ),
    ("search", "it", &["cerca", "cercare"]),
    ("search", "nl", &["zoek", "zoeken"]),
    ("search", "pl", &["szukaj", "wyszukaj", "znajdź"]),
    ("search", "cs", &["hledej", "vyhledej", "najdi"]),
    ("search", "sv", &["sök"]),
    ("search", "fi", &["etsi", "hae"]),
    ("search", "ru", &["найди", "найдите", "ищи", "поиск"]),
    ("search", "hu", &["keress", "keresd"]),
    (
        "type",
        "de",
        &["schreibe", "schreib", "tippe", "gib … ein", "trage … ein"],
    ),
    (
        "type",
        "fr",
        &["écris", "écrivez", "tapez", "saisis", "saisissez"],
    ),
    ("type", "es", &["escribe", "escriba", "teclea"]),
    ("type", "pt", &["escreve", "escreva", "digita", "digite"]),
    ("type", "it", &["scrivi", "scriva", "digita"]),
    ("type", "nl", &["schrijf", "vul … in"]),
    ("type", "pl", &["napisz", "wpisz"]),
    ("type", "cs", &["napiš", "zadej"]),
    ("type", "sv", &["skriv"]),
    ("type", "ru", &["напиши", "введи", "введите"]),
    (
        "select",
        "de",
        &["wähle", "wähl", "auswählen", "wähle … aus"],
    ),
    (
        "select",
        "fr",
        &["choisis", "choisissez", "sélectionne", "sélectionnez"],
    ),
    (
        "select",
        "es",
        &["elige", "elija", "selecciona", "seleccione", "escoge"],
    ),
    (
        "select",
        "pt",
        &["escolhe", "escolha", "seleciona", "selecione"],
    ),
    ("select", "it", &["scegli", "scelga", "seleziona"]),
    ("select", "nl", &["kies", "selecteer", "kiezen"]),
    ("select", "pl", &["wybierz"]),
    ("select", "cs", &["vyber"]),
    ("select", "sv", &["välj"]),
    ("select", "ru", &["выбери", "выберите"]),
    ("share", "de", &["teile", "teilen"]),
    ("share", "fr", &["partage", "partagez", "partager"]),
    ("share", "es", &["comparte", "compartir"]),
    ("share", "pt", &["compartilha", "compartilhe", "partilha"]),
    ("share", "it", &["condividi"]),
    ("share", "nl", &["deel", "delen"]),
    ("share", "pl", &["udostępnij"]),
    ("share", "ru", &["поделись", "поделиться", "поделитесь"]),
    ("save", "de", &["speichere", "speichern", "merke … vor"]),
    ("save", "fr", &["enregistre", "enregistrez", "sauvegarde"]),
    ("save", "es", &["guarda", "guarde", "guardar"]),
    ("save", "pt", &["salva", "salve", "guarda", "guarde"]),
    ("save", "it", &["salva", "salvare"]),
    ("save", "nl", &["bewaar", "opslaan", "sla … op"]),
    ("save", "pl", &["zapisz"]),
    ("save", "ru", &["сохрани", "сохраните"]),
    ("add", "de", &["füge … hinzu", "hinzufügen"]),
    ("add", "fr", &["ajoute", "ajoutez"]),
    ("add", "es", &["añade", "agrega", "añadir"]),
    ("add", "pt", &["adiciona", "adicione", "acrescenta"]),
    ("add", "it", &["aggiungi"]),
    ("add", "nl", &["voeg … toe", "toevoegen"]),
    ("add", "pl", &["dodaj"]),
    ("add", "ru", &["добавь", "добавьте"]),
    ("expand", "de", &["klappe … auf", "aufklappen", "erweitere"]),
    ("expand", "fr", &["développe", "déplie"]),
    ("expand", "es", &["despliega", "expande"]),
    ("expand", "pt", &["expande", "expanda"]),
    ("expand", "it", &["espandi"]),
    ("expand", "nl", &["klap … uit", "uitklappen"]),
    ("expand", "pl", &["rozwiń"]),
    (
        "expand",
        "ru",
        &["раскрой", "разверни", "раскрыть", "развернуть"],
    ),
    ("tick", "de", &["kreuze … an", "hake … an", "ankreuzen"]),
    ("tick", "fr", &["coche", "cochez"]),
    ("tick", "es", &["marca"]),
    ("tick", "pt", &["marca", "assinala"]),
    ("tick", "it", &["spunta"]),
    ("tick", "nl", &["vink … aan", "aanvinken"]),
    ("tick", "pl", &["zaznacz"]),
    ("tick", "ru", &["отметь"]),
    ("play", "de", &["spiele", "spiel … ab", "abspielen"]),
    ("play", "fr", &["joue"]),
    ("play", "es", &["reproduce"]),
    ("play", "pt", &["reproduz", "toca"]),
    ("play", "it", &["riproduci"]),
    ("play", "nl", &["speel … af", "afspelen"]),
    ("play", "pl", &["odtwórz"]),
    ("play", "ru", &["включи", "воспроизведи"]),
    (
        "sign in",
        "de",
        &["melde dich an", "anmelden", "einloggen", "logge dich ein"],
    ),
    (
        "sign in",
        "fr",
        &["connecte toi", "connectez vous", "se connecter"],
    ),
    ("sign in", "es", &["inicia sesión", "iniciar sesión"]),
    ("sign in", "pt", &["faz login", "faça login"]),
    ("sign in", "it", &["accedi", "accedere"]),
    (
        "sign in",
        "nl",
        &["inloggen", "log … in", "meld je aan", "aanmelden"],
    ),
    ("sign in", "pl", &["zaloguj się", "zaloguj"]),
    ("sign in", "ru", &["войди", "войдите"]),
    ("back", "de", &["zurück", "geh zurück", "gehe zurück"]),
    ("back", "fr", &["retour", "reviens", "revenir"]),
    ("back", "es", &["vuelve", "volver", "atrás"]),
    ("back", "pt", &["volta", "volte", "voltar"]),
    ("back", "it", &["torna", "tornare", "indietro"]),
    ("back", "nl", &["terug", "ga terug"]),
    ("back", "pl", &["wróć", "wstecz"]),
    ("back", "sv", &["tillbaka"]),
    ("back", "ru", &["назад", "вернись"]),
    ("back", "hu", &["vissza"]),
    ("scroll", "de", &["scrolle", "scrollen", "blättere"]),
    (
        "scroll",
        "fr",
        &["défile", "fais défiler", "faites défiler"],
    ),
    (
        "scroll",
        "es",
        &["desplázate", "desplaza", "baja la página"],
    ),
    ("scroll", "pt", &["rola", "rolar"]),
    ("scroll", "it", &["scorri", "scorrere"]),
    ("scroll", "pl", &["przewiń"]),
    ("scroll", "sv", &["rulla", "scrolla"]),
    ("scroll", "ru", &["прокрути", "пролистай", "листай"]),
];

/// Verbs of moving up or down the page, a scroll when nothing but "a little" or "more" follows
/// ("sobe um pouco"; "baja el PDF" is no scroll).
const MOVES: &[(&str, &str, &[&str])] = &[
    ("up", "fr", &["monte", "remonte"]),
    ("down", "fr", &["descends"]),
    ("up", "es", &["sube"]),
    ("down", "es", &["baja"]),
    ("up", "pt", &["sobe", "suba"]),
    ("down", "pt", &["desce", "desça"]),
    ("up", "it", &["sali"]),
    ("down", "it", &["scendi"]),
];

/// The directions of a scroll ("nach unten", "para baixo", "вниз").
const DIRECTIONS: &[(&str, &str, &[&str])] = &[
    ("down", "de", &["nach unten", "runter", "herunter"]),
    ("up", "de", &["nach oben", "hoch", "rauf"]),
    ("down", "fr", &["vers le bas", "en bas"]),
    ("up", "fr", &["vers le haut", "en haut"]),
    ("down", "es", &["hacia abajo", "abajo"]),
    ("up", "es", &["hacia arriba", "arriba"]),
    ("down", "pt", &["para baixo", "pra baixo"]),
    ("up", "pt", &["para cima", "pra cima"]),
    ("down", "it", &["in basso", "giù"]),
    ("up", "it", &["in alto", "su"]),
    ("down", "nl", &["naar beneden", "omlaag"]),
    ("up", "nl", &["naar boven", "omhoog"]),
    ("down", "pl", &["w dół", "na dół"]),
    ("up", "pl", &["w górę", "do góry"]),
    ("down", "sv", &["ner", "nedåt"]),
    ("up", "sv", &["upp", "uppåt"]),
    ("down", "ru", &["вниз"]),
    ("up", "ru", &["вверх", "наверх"]),
];

/// Words of one language by the English they are read as.
type Words = &'static [(&'static str, &'static [&'static str])];

/// The small words of each language after a command verb, read as English ("the" for the
/// articles, which say nothing of the target); "" drops a courtesy.
const SMALL_WORDS: &[(&str, Words)] = &[
    (
        "de",
        &[
            ("all", &["alle", "alles"]),
            (
                "the",
                &[
                    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem",
                ],
            ),
            ("of", &["von", "vom"]),
            ("to", &["zu", "zum", "zur", "nach"]),
            ("in", &["im"]),
            ("on", &["auf"]),
            ("for", &["für"]),
            ("with", &["mit"]),
            ("about", &["über"]),
            ("and", &["und"]),
            ("me", &["mir", "mich"]),
            ("a bit", &["ein bisschen", "ein wenig", "etwas"]),
            ("more", &["weiter", "mehr"]),
            ("", &["bitte", "mal"]),
        ],
    ),
    (
        "fr",
        &[
            ("all", &["tous", "toutes", "tout"]),
            ("the", &["le", "la", "les", "l", "un", "une"]),
            ("of", &["de", "du", "des", "d"]),
            ("to", &["à", "au", "aux", "vers"]),
            ("in", &["dans", "en"]),
            ("on", &["sur"]),
            ("for", &["pour"]),
            ("with", &["avec"]),
            ("and", &["et"]),
            ("me", &["moi"]),
            ("a bit", &["un peu"]),
            ("more", &["plus"]),
            ("", &["s il vous plaît", "s il te plaît", "svp", "stp"]),
        ],
    ),
    (
        "es",
        &[
            ("all", &["todos", "todas", "todo"]),
            (
                "the",
                &["el", "la", "los", "las", "lo", "un", "una", "unos", "unas"],
            ),
            ("of", &["de", "del"]),
            ("to", &["a", "al", "hacia"]),
            ("in", &["en"]),
            ("on", &["sobre"]),
            ("for", &["para", "por"]),
            ("with", &["con"]),
            ("and", &["y"]),
            ("me", &["me"]),
            ("a bit", &["un poco", "un poquito"]),
            ("more", &["más"]),
            ("", &["por favor"]),
        ],
    ),
    (
        "pt",
        &[
            ("all", &["todos", "todas", "tudo"]),
            ("the", &["o", "a", "os", "as", "um", "uma"]),
            ("of", &["de", "do", "da", "dos", "das"]),
            ("to", &["para", "pra", "pro", "ao", "aos"]),
            ("in", &["em", "no", "na", "nos", "nas"]),
            ("on", &["sobre"]),
            ("for", &["por"]),
            ("with", &["com"]),
            ("and", &["e"]),
            ("me", &["me"]),
            ("a bit", &["um pouco", "um pouquinho"]),
            ("more", &["mais"]),
            ("", &["por favor"]),
        ],
    ),
    (
        "it",
        &[
            ("all", &["tutti", "tutte", "tutto"]),
            (
                "the",
                &["il", "lo", "la", "i", "gli", "le", "l", "un", "una", "uno"],
            ),
            (
                "of",
                &["di", "del", "della", "dei", "delle", "degli", "dello"],
            ),
            ("to", &["a", "al", "alla", "ai", "alle"]),
            ("in", &["nel", "nella"]),
            ("on", &["su", "sul", "sulla"]),
            ("for", &["per"]),
            ("with", &["con"]),
            ("from", &["da", "dal", "dalla"]),
            ("and", &["e", "ed"]),
            ("me", &["mi"]),
            ("a bit", &["un po"]),
            ("more", &["più"]),
            ("", &["per favore"]),
        ],
    ),
    (
        "nl",
        &[
            ("all", &["alle", "alles"]),
            ("the", &["de", "het", "een"]),
            ("of", &["van"]),
            ("to", &["naar", "tot"]),
            ("on", &["op"]),
            ("for", &["voor"]),
            ("with", &["met"]),
            ("and", &["en"]),
            ("me", &["mij"]),
            ("a bit", &["een beetje", "een stukje"]),
            ("more", &["meer", "verder"]),
            ("", &["alsjeblieft", "alstublieft", "even"]),
        ],
    ),
    (
        "pl",
        &[
            ("all", &["wszystkie", "wszystko"]),
            ("in", &["w", "we"]),
            ("on", &["na"]),
            ("to", &["do"]),
            ("from", &["z", "ze"]),
            ("for", &["dla"]),
            ("about", &["o"]),
            ("and", &["i"]),
            ("me", &["mi", "mnie"]),
            ("a bit", &["trochę"]),
            ("", &["proszę"]),
        ],
    ),
    (
        "cs",
        &[
            ("in", &["v", "ve"]),
            ("on", &["na"]),
            ("to", &["do"]),
            ("from", &["z", "ze"]),
            ("for", &["pro"]),
            ("me", &["mi", "mně"]),
            ("", &["prosím"]),
        ],
    ),
    (
        "sv",
        &[
            ("all", &["alla", "allt"]),
            ("the", &["en", "ett"]),
            ("of", &["av"]),
            ("to", &["till"]),
            ("on", &["på"]),
            ("for", &["för"]),
            ("with", &["med"]),
            ("and", &["och"]),
            ("me", &["mig"]),
            ("", &["tack"]),
        ],
    ),
    (
        "ru",
        &[
            ("all", &["все", "всё"]),
            ("to", &["в", "во", "к"]),
            ("on", &["на"]),
            ("about", &["о", "об", "про"]),
            ("with", &["с"]),
            ("for", &["для"]),
            ("and", &["и"]),
            ("me", &["мне"]),
            ("a bit", &["немного", "чуть"]),
            ("", &["пожалуйста"]),
        ],
    ),
    (
        "hu",
        &[("for", &["rá"]), ("the", &["a", "az"]), ("", &["kérlek"])],
    ),
];

/// The kinds of control a command names, in its language ("vink het vakje aan": the box;
/// "aperta o botão de fechar": the button).
const KIND_NOUNS: &[(&str, Words)] = &[
    (
        "de",
        &[
            ("button", &["knopf", "schaltfläche", "taste"]),
            ("field", &["feld", "eingabefeld", "suchfeld"]),
            ("box", &["kästchen", "häkchen", "kontrollkästchen"]),
        ],
    ),
    (
        "fr",
        &[
            ("button", &["bouton"]),
            ("link", &["lien"]),
            ("field", &["champ"]),
            ("box", &["case"]),
        ],
    ),
    (
        "es",
        &[
            ("button", &["botón"]),
            ("link", &["enlace", "vínculo"]),
            ("field", &["campo"]),
            ("box", &["casilla"]),
        ],
    ),
    (
        "pt",
        &[
            ("button", &["botão"]),
            ("field", &["campo"]),
            ("box", &["caixa", "caixinha"]),
        ],
    ),
    (
        "it",
        &[
            ("button", &["pulsante", "bottone", "tasto"]),
            ("link", &["collegamento"]),
            ("field", &["campo"]),
            ("box", &["casella"]),
        ],
    ),
    (
        "nl",
        &[
            ("button", &["knop"]),
            ("field", &["veld"]),
            ("box", &["vakje", "hokje"]),
        ],
    ),
    ("pl", &[("button", &["przycisk"]), ("field", &["pole"])]),
    (
        "ru",
        &[
            ("button", &["кнопку", "кнопка"]),
            ("link", &["ссылку", "ссылка"]),
            ("field", &["поле"]),
            ("box", &["флажок", "галочку"]),
        ],
    ),
];

/// Courtesies that may come before a command in its language ("bitte öffne …", "por favor
/// abre …").
const COURTESIES: &[&str] = &[
    "bitte",
    "por favor",
    "s il vous plaît",
    "per favore",
    "alsjeblieft",
    "proszę",
    "prosím",
    "пожалуйста",
];

/// The request with the command's verb and its language's small words in English, when its
/// verb (at `begin`, or an infinitive ending a German or Dutch request) is another language's.
pub fn in_english(tokens: Vec<Token>, begin: usize) -> Vec<Token> {
    let mut at = begin;
    while let Some(n) = COURTESIES.iter().find_map(|c| said(&tokens, at, c)) {
        at += n;
    }
    if at >= tokens.len() {
        return tokens;
    }
    let rest_is_little = |from: usize, language: &str| {
        let mut k = from;
        while k < tokens.len() {
            match small_word(&tokens, k, language) {
                Some(("a bit" | "more" | "", n)) => k += n,
                _ => return false,
            }
        }
        true
    };
    // "sobe um pouco", "nach unten": up or down the page, and nothing to find there.
    for (direction, language, forms) in MOVES.iter().chain(DIRECTIONS) {
        for form in forms.iter() {
            if let Some(n) = said(&tokens, at, form).filter(|&n| rest_is_little(at + n, language)) {
                return rebuild(&tokens, begin, at, n, &["scroll", direction], language);
            }
        }
    }
    // "Anglertalk öffnen", "Suche öffnen": a German or Dutch infinitive that ends the request is
    // its verb, though the first word may be a verb's form too (*Suche*, search).
    let mut last = tokens.len() - 1;
    if last > at && COURTESIES.iter().any(|c| said(&tokens, last, c).is_some()) {
        last -= 1;
    }
    // Not when the first word is a verb followed by its language's small word: "klik op
    // Aanmelden" clicks *Aanmelden*.
    let leads = verb_at(&tokens, at)
        .is_some_and(|(_, language, n, _)| small_word(&tokens, at + n, language).is_some());
    if last > at && !leads {
        if let Some((english, language, 1, None)) = verb_at(&tokens, last)
            .filter(|(_, language, _, _)| matches!(*language, "de" | "nl"))
            .filter(|_| tokens[last].norm.ends_with("en"))
        {
            let mut moved: Vec<Token> = tokens[..begin].to_vec();
            let start = tokens[at].start;
            moved.extend(english.split(' ').map(|w| Token {
                start,
                end: start,
                ..Token::synthetic(w)
            }));
            moved.extend(tokens[at..last].iter().cloned());
            return small_words(moved, begin + english.split(' ').count(), language);
        }
    }
    // "zurück" alone goes back; "zurück zur Forenübersicht" names a page whose words may be
    // no word on screen, and is left for the screen to read.
    let verb = verb_at(&tokens, at)
        .filter(|(english, language, n, _)| *english != "back" || rest_is_little(at + n, language));
    if let Some((english, language, n, particle)) = verb {
        let mut tokens = tokens;
        if let Some(p) = particle {
            tokens.remove(p);
        }
        let mut words: Vec<&str> = english.split(' ').collect();
        // "scrolle nach unten": the direction is the scroll's.
        if english == "scroll" {
            if let Some((direction, m)) = direction_at(&tokens, at + n, language) {
                words.push(direction);
                return rebuild(&tokens, begin, at, n + m, &words, language);
            }
        }
        let mut out = rebuild(&tokens, begin, at, n, &words, language);
        // "suche nach Zecken", "zoek naar …": what is searched for.
        let next = begin + words.len();
        if english == "search" && out.get(next).is_some_and(|t| t.norm == "to") {
            let (start, end) = (out[next].start, out[next].end);
            out[next] = Token {
                start,
                end,
                ..Token::synthetic("for")
            };
        }
        return out;
    }
    tokens
}

/// The command verb said at `at`: its English, its language, how many tokens it takes, and
/// where a separable verb's particle stands ("vink het vakje aan"). The longest form wins; a
/// form of several languages is read in the one whose small words the rest of the request
/// says most.
fn verb_at(
    tokens: &[Token],
    at: usize,
) -> Option<(&'static str, &'static str, usize, Option<usize>)> {
    let mut found: Vec<(&'static str, &'static str, usize, Option<usize>)> = Vec::new();
    for (english, language, forms) in VERBS {
        for form in forms.iter() {
            let hit = match form.split_once(" … ") {
                Some((verb, particle)) => {
                    let n = said(tokens, at, verb);
                    let p = n.and_then(|n| {
                        (at + n + 1..tokens.len())
                            .rev()
                            .find(|&k| said(tokens, k, particle) == Some(1))
                    });
                    n.zip(p).map(|(n, p)| (n, Some(p)))
                }
                None => said(tokens, at, form).map(|n| (n, None)),
            };
            if let Some((n, particle)) = hit {
                found.push((english, language, n, particle));
            }
        }
    }
    let longest = found.iter().map(|f| f.2).max()?;
    found.retain(|f| f.2 == longest);
    let says = |language: &str| {
        (at + longest..tokens.len())
            .filter(|&k| small_word(tokens, k, language).is_some_and(|(w, _)| !w.is_empty()))
            .count()
    };
    found
        .iter()
        .enumerate()
        .max_by_key(|(i, f)| (says(f.1), std::cmp::Reverse(*i)))
        .map(|(_, f)| *f)
}

/// The direction said at `at` in `language` ("nach unten"), and how many tokens it takes.
fn direction_at(tokens: &[Token], at: usize, language: &str) -> Option<(&'static str, usize)> {
    DIRECTIONS
        .iter()
        .filter(|(_, l, _)| *l == language)
        .find_map(|(direction, _, forms)| {
            forms
                .iter()
                .find_map(|form| said(tokens, at, form))
                .map(|n| (*direction, n))
        })
}

/// The small word of `language` said at `at`, in English, and how many tokens it takes.
fn small_word(tokens: &[Token], at: usize, language: &str) -> Option<(&'static str, usize)> {
    word_of(SMALL_WORDS, tokens, at, language)
}

/// The word of `table` in `language` said at `at`, in English, and how many tokens it takes.
fn word_of(
    table: &[(&str, Words)],
    tokens: &[Token],
    at: usize,
    language: &str,
) -> Option<(&'static str, usize)> {
    let (_, words) = table.iter().find(|(l, _)| *l == language)?;
    words
        .iter()
        .filter_map(|(english, forms)| {
            forms
                .iter()
                .filter_map(|form| said(tokens, at, form))
                .max()
                .map(|n| (*english, n))
        })
        .max_by_key(|(_, n)| *n)
}

/// How many tokens from `at` say `phrase`, one of the tables' phrases (its words folded as the
/// tokens are), if they do.
fn said(tokens: &[Token], at: usize, phrase: &str) -> Option<usize> {
    let first = &tokens.get(at)?.norm;
    let fits = |words: &[String]| {
        !words.is_empty()
            && words[0] == *first
            && tokens.len() >= at + words.len()
            && words.iter().zip(&tokens[at..]).all(|(w, t)| *w == t.norm)
    };
    let words = PHRASES.get(phrase)?;
    fits(words).then_some(words.len())
}

/// Every phrase of the tables as the tokenizer reads it, read once: a request is compared with
/// a few thousand of them.
static PHRASES: LazyLock<HashMap<&'static str, Vec<String>>> = LazyLock::new(|| {
    let verbs = VERBS
        .iter()
        .flat_map(|(_, _, forms)| forms.iter())
        .flat_map(|form| match form.split_once(" … ") {
            Some((verb, particle)) => vec![verb, particle],
            None => vec![*form],
        });
    let moves = MOVES
        .iter()
        .chain(DIRECTIONS)
        .flat_map(|(_, _, forms)| forms.iter().copied());
    let words = SMALL_WORDS
        .iter()
        .chain(KIND_NOUNS)
        .flat_map(|(_, words)| words.iter())
        .flat_map(|(_, forms)| forms.iter().copied());
    verbs
        .chain(moves)
        .chain(words)
        .chain(COURTESIES.iter().copied())
        .map(|phrase| {
            let words = text::tokens(phrase).into_iter().map(|t| t.norm).collect();
            (phrase, words)
        })
        .collect()
});

/// The tokens with `n` tokens at `at` (after a courtesy from `begin`) said as `english`, and the
/// small words of `language` after them in English.
fn rebuild(
    tokens: &[Token],
    begin: usize,
    at: usize,
    n: usize,
    english: &[&str],
    language: &str,
) -> Vec<Token> {
    let mut out: Vec<Token> = tokens[..begin].to_vec();
    out.extend(said_as(&tokens[at..at + n], english));
    out.extend(tokens[at + n..].iter().cloned());
    small_words(out, begin + english.len(), language)
}

/// The small words and kind nouns of `language` from `from` on in English ("a versão … da
/// 1970": "the versão … of 1970"; "het vakje": "the box"); a courtesy goes.
fn small_words(tokens: Vec<Token>, from: usize, language: &str) -> Vec<Token> {
    let mut out: Vec<Token> = tokens[..from.min(tokens.len())].to_vec();
    let mut k = from;
    while k < tokens.len() {
        let word =
            small_word(&tokens, k, language).or_else(|| word_of(KIND_NOUNS, &tokens, k, language));
        match word {
            // Not a word some English makes of its own ("a", "in", "on" stay as said).
            Some((english, n)) if !(n == 1 && tokens[k].norm == english) => {
                let words: Vec<&str> = english.split(' ').filter(|w| !w.is_empty()).collect();
                out.extend(said_as(&tokens[k..k + n], &words));
                k += n;
            }
            _ => {
                out.push(tokens[k].clone());
                k += 1;
            }
        }
    }
    out
}

/// English words standing for `said`: the first spans all of it, the rest stand at its end
/// with no width, so spans stay in order.
fn said_as(said: &[Token], english: &[&str]) -> Vec<Token> {
    let (start, end) = (said[0].start, said[said.len() - 1].end);
    english
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let (s, e) = if i == 0 { (start, end) } else { (end, end) };
            Token {
                start: s,
                end: e,
                ..Token::synthetic(w)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(source: &str) -> String {
        let tokens = text::tokens(source);
        let out = in_english(tokens, 0);
        out.iter()
            .map(|t| t.norm.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn reads_a_command_in_another_language_as_english() {
        for (said, read_as) in [
            (
                "baixa a versão assinada da 1970",
                "download the versao assinada of 1970",
            ),
            ("klik op Aanmelden", "click on aanmelden"),
            ("zeig mir die Neuigkeiten", "show me the neuigkeiten"),
            ("sobe um pouco", "scroll up a bit"),
            ("scrolle nach unten", "scroll down"),
            ("Anglertalk öffnen", "open anglertalk"),
            ("Suche öffnen", "open suche"),
            ("bitte Kommentare anzeigen", "show kommentare"),
            ("vink het vakje aan", "tick the box"),
            ("por favor abre o menu", "open the menu"),
            ("vai para Licitações", "go to licitacoes"),
            ("открой ссылку про девочку", "open link about девочку"),
            ("haz clic en Noticias del día", "click in noticias of dia"),
            ("suche nach Zecken", "search for zecken"),
            ("aperta o botão de fechar", "press the button of fechar"),
            ("zurück bitte", "back"),
        ] {
            assert_eq!(read(said), read_as, "{said}");
        }
    }

    /// The reader reads what the translation gives it: the scroll, the verb, the text to type
    /// (from the source, never the translation).
    #[test]
    fn the_reader_reads_the_command() {
        use super::super::types::Direction;
        use super::super::utterance::{read, Cue};
        assert_eq!(read("sobe um pouco").cue, Cue::Scroll(Direction::Up));
        assert_eq!(read("por favor, volta").cue, Cue::Back);
        let r = read("klik op Aanmelden");
        let words: Vec<&str> = r.content().map(|t| t.norm.as_str()).collect();
        assert_eq!(words, ["aanmelden"]);
        let r = read("escreva sal grosso no campo de busca");
        assert_eq!(r.cue, Cue::Type);
        let typing = r.typing.expect("typing");
        let text = typing.text.map(|s| &r.source[s]);
        assert_eq!(text, Some("sal grosso"));
    }

    #[test]
    fn a_form_is_one_verb() {
        let mut seen: Vec<(String, &str)> = Vec::new();
        for (english, _, forms) in VERBS {
            for form in forms.iter() {
                let folded = text::fold(&form.to_lowercase());
                if let Some((_, other)) = seen.iter().find(|(f, e)| *f == folded && e != english) {
                    panic!("{form} is both {english} and {other}");
                }
                seen.push((folded, english));
            }
        }
    }

    #[test]
    fn leaves_english_and_what_is_no_command_as_said() {
        for said in [
            "open the menu",
            "download the report",
            "baja el PDF no",
            "Noticias del día",
            "the third one",
            "Mehr Infos bitte",
            "zurück zur Forenübersicht",
        ] {
            let tokens = text::tokens(said);
            let norms: Vec<String> = tokens.iter().map(|t| t.norm.clone()).collect();
            let out: Vec<String> = in_english(tokens, 0).into_iter().map(|t| t.norm).collect();
            assert_eq!(out, norms, "{said}");
        }
    }
}

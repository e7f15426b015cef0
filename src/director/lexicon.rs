//! Meaning, not word lists keyed to sentences: small tables of what common
//! interface words mean across languages, and how English commands are built.
//!
//! A concept groups words and phrases that name the same interface thing
//! ("accept" = "allow" = "akzeptieren"). Matching a concept is evidence of the
//! same kind as matching a word; it never decides on its own. The tables are
//! general vocabulary for web and desktop interfaces and must stay so: adding
//! an entry for one page's phrasing is a fit, not a fix.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use super::text::{stem, Token};

/// Interface concepts: id, then words and phrases (normalised, stemmed by the
/// caller), in English, German, French and Spanish.
pub const CONCEPTS: &[(&str, &[&str])] = &[
    (
        "accept",
        &[
            "accept",
            "allow",
            "agree",
            "consent",
            "approve",
            "akzeptieren",
            "zustimmen",
            "erlauben",
            "annehmen",
            "einverstanden",
            "accepter",
            "autoriser",
            "aceptar",
            "permitir",
            "принять",
            "принимаю",
            "согласен",
            "согласна",
            "разрешить",
        ],
    ),
    (
        "all",
        &[
            "all",
            "everything",
            "every",
            "alle",
            "alles",
            "tout",
            "tous",
            "todo",
            "todos",
            "все",
            "tutti",
            "tutte",
            "tutto",
            "wszystkie",
            "wszystko",
            "todas",
            "tüm",
            "hepsi",
        ],
    ),
    (
        "reject",
        &[
            "reject",
            "decline",
            "deny",
            "refuse",
            "ablehnen",
            "verweigern",
            "refuser",
            "rechazar",
            "отклонить",
            "отказаться",
        ],
    ),
    (
        "save",
        &[
            "remember",
            "save",
            "store",
            "bookmark",
            "favourite",
            "favourites",
            "favorite",
            "favorites",
            "merken",
            "lesezeichen",
            "favoris",
            "signet",
            "marcador",
            "speichern",
            "sichern",
            "enregistrer",
            "guardar",
            "ulozit",
            "zapisz",
            "spara",
            "salva",
            "opslaan",
            "salvar",
            "сохранить",
            "избранное",
            "в избранное",
        ],
    ),
    (
        "cancel",
        &[
            "cancel",
            "abort",
            "abbrechen",
            "annuler",
            "cancelar",
            "zrusit",
            "anuluj",
            "avbryt",
            "annuller",
            "annulla",
            "annuleren",
            "отмена",
            "отменить",
        ],
    ),
    (
        "close",
        &[
            "close",
            "dismiss",
            "schliessen",
            "schließen",
            "fermer",
            "cerrar",
            "zavrit",
            "zamknij",
            "stang",
            "luk",
            "chiudi",
            "sluiten",
            "fechar",
            "закрыть",
            "kapat",
        ],
    ),
    (
        "privacy",
        &[
            "privacy",
            "privacy policy",
            "data protection",
            "datenschutz",
            "datenschutzerklärung",
            "datenschutzhinweise",
            "confidentialité",
            "privacidad",
            "ochrana osobnich udaju",
            "ochrany osobnich",
            "prywatnosci",
            "polityka prywatnosci",
            "integritetspolicy",
            "privatlivspolitik",
            "informativa privacy",
            "privacybeleid",
            "privacidade",
            "politica de privacidade",
            "конфиденциальность",
            "политика конфиденциальности",
        ],
    ),
    (
        "price",
        &[
            "price", "pricing", "cost", "preis", "preise", "tarif", "tarife", "prix", "precio",
            "цена", "цены", "prezzo", "preço", "prijs", "fiyat", "cena",
        ],
    ),
    (
        "download",
        &[
            "download",
            "install",
            "herunterladen",
            "télécharger",
            "descargar",
            "stahnout",
            "pobierz",
            "ladda ner",
            "scarica",
            "downloaden",
            "baixar",
            "transferir",
            "скачать",
            "загрузить",
            "indir",
        ],
    ),
    (
        "home",
        &[
            "strona glowna",
            "hlavni strana",
            "startsida",
            "forside",
            "home",
            "homepage",
            "home page",
            "front page",
            "main page",
            "hauptseite",
            "start page",
            "startseite",
            "accueil",
            "inicio",
            "logo",
            "pagina iniziale",
            "startpagina",
            "pagina inicial",
            "главная",
            "главная страница",
            "на главную",
            "домой",
        ],
    ),
    (
        "login",
        &[
            "log in",
            "login",
            "sign in",
            "signin",
            "log on",
            "anmelden",
            "einloggen",
            "connexion",
            "se connecter",
            "connecter",
            "iniciar sesion",
            "prihlasit",
            "prihlasit se",
            "zaloguj",
            "zaloguj sie",
            "logga in",
            "log ind",
            "accedi",
            "inloggen",
            "aanmelden",
            "entrar",
            "iniciar sessao",
            "войти",
            "вход",
            "авторизация",
            "accedere",
            "logowanie",
            "iniciar sessão",
            "giriş yap",
            "oturum aç",
        ],
    ),
    (
        "logout",
        &[
            "log out",
            "logout",
            "sign out",
            "abmelden",
            "déconnexion",
            "выйти",
            "выход",
            "esci",
            "wyloguj",
            "wyloguj się",
            "sair",
            "uitloggen",
            "afmelden",
            "çıkış yap",
            "cerrar sesión",
        ],
    ),
    (
        "signup",
        &[
            "sign up",
            "signup",
            "register",
            "registration",
            "enrol",
            "enroll",
            "enrolment",
            "enrollment",
            "create account",
            "registrieren",
            "konto erstellen",
            "inscription",
            "make account",
            "new account",
            "open account",
            "s inscrire",
            "registrati",
            "registreren",
            "cadastre se",
            "cadastrar",
            "registar",
            "регистрация",
            "зарегистрироваться",
            "создать аккаунт",
            "zarejestruj",
            "zarejestruj się",
            "rejestracja",
            "załóż konto",
            "cadastre-se",
            "criar conta",
            "kayıt ol",
            "üye ol",
            "regístrate",
            "crear cuenta",
        ],
    ),
    // Joining a group, a party or an association: becoming its member.
    (
        "join",
        &[
            "join",
            "become member",
            "beitreten",
            "mitglied werden",
            "rejoindre",
            "adherer",
            "devenir membre",
            "unirse",
            "hazte socio",
        ],
    ),
    (
        "search",
        &[
            "search",
            "find",
            "look up",
            "look for",
            "suche",
            "suchen",
            "recherche",
            "rechercher",
            "chercher",
            "buscar",
            "filter",
            "hledat",
            "vyhledat",
            "hledani",
            "szukaj",
            "wyszukaj",
            "sok",
            "sog",
            "ricerca",
            "cercare",
            "zoeken",
            "pesquisar",
            "procurar",
            "поиск",
            "найти",
            "искать",
            "cerca",
            "pesquisa",
            "zoek",
        ],
    ),
    (
        "cart",
        &[
            "cart",
            "basket",
            "shopping cart",
            "shopping bag",
            "warenkorb",
            "panier",
            "carrito",
            "корзина",
            "carrello",
            "koszyk",
            "carrinho",
            "winkelwagen",
            "winkelmandje",
            "sepet",
            "sepetim",
            "cesta",
        ],
    ),
    (
        "buy",
        &[
            "buy",
            "purchase",
            "order",
            "kaufen",
            "add to cart",
            "add to basket",
            "add to bag",
            "in den warenkorb",
            "in den einkaufswagen",
            "ajouter au panier",
            "añadir al carrito",
            "bestellen",
            "acheter",
            "comprar",
            "купить",
            "заказать",
        ],
    ),
    (
        "add",
        &[
            "add",
            "put",
            "hinzufügen",
            "add to cart",
            "add to basket",
            "add to bag",
            "in den warenkorb",
            "in den einkaufswagen",
            "ajouter au panier",
            "añadir al carrito",
            "ajouter",
            "añadir",
            "добавить",
            "в корзину",
        ],
    ),
    (
        "settings",
        &[
            "settings",
            "preferences",
            "options",
            "configuration",
            "einstellungen",
            "paramètres",
            "ajustes",
            "parametrer",
            "reglages",
            "nastaveni",
            "ustawienia",
            "installningar",
            "indstillinger",
            "impostazioni",
            "instellingen",
            "configuracoes",
            "настройки",
            "параметры",
            "configurações",
            "ayarlar",
        ],
    ),
    (
        "next",
        &[
            "next",
            "next page",
            "continue",
            "more",
            "older",
            "weiter",
            "nächste",
            "suivant",
            "siguiente",
            "dalsi",
            "nastepny",
            "nastepna",
            "nasta",
            "naeste",
            "successivo",
            "avanti",
            "volgende",
            "proximo",
            "proxima",
            "seguinte",
            "далее",
            "следующая",
            "вперед",
            "sonraki",
        ],
    ),
    (
        "more",
        &[
            "show more",
            "load more",
            "see more",
            "view more",
            "more results",
            "more",
            "expand",
            "rest",
            "mehr anzeigen",
            "mehr laden",
            "mehr",
            "weitere anzeigen",
            "afficher plus",
            "voir plus",
            "charger plus",
            "ver más",
            "mostrar más",
            "cargar más",
            "еще",
            "показать еще",
            "подробнее",
            "больше",
        ],
    ),
    (
        "book",
        &[
            "book",
            "book now",
            "booking",
            "reserve",
            "reservation",
            "buchen",
            "buchung",
            "reservieren",
            "reservierung",
            "réserver",
            "réservation",
            "reservar",
            "reserva",
            "забронировать",
            "бронирование",
            "prenota",
            "prenotazione",
            "zarezerwuj",
            "rezerwacja",
            "boeken",
            "reserveren",
            "rezervasyon",
        ],
    ),
    (
        "donate",
        &[
            "donate",
            "donation",
            "fund",
            "contribute",
            "chip in",
            "spenden",
            "spende",
            "donner",
            "faire un don",
            "donar",
            "donación",
            "пожертвовать",
        ],
    ),
    (
        "arrival",
        &[
            "arrival", "arrive", "check in", "anreise", "ankunft", "arrivée", "llegada",
        ],
    ),
    (
        "departure",
        &[
            "departure",
            "depart",
            "check out",
            "abreise",
            "abfahrt",
            "départ",
            "salida",
        ],
    ),
    (
        "guests",
        &[
            "guests",
            "guest",
            "people",
            "persons",
            "travellers",
            "travelers",
            "gäste",
            "personen",
            "reisende",
            "voyageurs",
            "personnes",
            "huéspedes",
            "personas",
        ],
    ),
    ("email", &["email", "e mail", "mail", "courriel", "correo"]),
    // What a list is sorted or filtered by ("browse by topic" / *By subject*).
    (
        "subject",
        &["subject", "subjects", "topic", "topics", "theme", "themes"],
    ),
    // What a shop or bank advertises as cheaper for now ("current promotions" / *Special
    // Offers*).
    (
        "offers",
        &[
            "offer",
            "offers",
            "special offers",
            "deal",
            "deals",
            "promotion",
            "promotions",
            "promo",
            "promos",
            "angebote",
            "aktionen",
            "offres",
            "ofertas",
            "promociones",
            "offerte",
            "promozioni",
            "aanbiedingen",
            "promocje",
            "акции",
        ],
    ),
    // Working for the site's owner ("are they hiring", "jobs" / *Careers*).
    (
        "jobs",
        &[
            "job",
            "jobs",
            "career",
            "careers",
            "vacancy",
            "vacancies",
            "hiring",
            "work with us",
            "work for us",
            "karriere",
            "stellenangebote",
            "emplois",
            "carrières",
            "empleo",
            "empleos",
            "lavora con noi",
            "vacatures",
            "kariera",
        ],
    ),
    (
        "phone",
        &[
            "call",
            "phone",
            "telephone",
            "hotline",
            "anrufen",
            "telefon",
            "appeler",
            "téléphone",
            "llamar",
            "teléfono",
            "телефон",
            "позвонить",
        ],
    ),
    (
        "article",
        &[
            "article",
            "articles",
            "story",
            "stories",
            "artikel",
            "artículo",
            "статья",
            "статьи",
        ],
    ),
    (
        "schedule",
        &[
            "schedule",
            "timetable",
            "calendar",
            "zeitplan",
            "spielplan",
            "fahrplan",
            "kalender",
            "calendrier",
            "horaire",
            "horario",
            "calendario",
            "расписание",
            "календарь",
        ],
    ),
    (
        "results",
        &[
            "results",
            "ergebnisse",
            "résultats",
            "resultados",
            "результаты",
        ],
    ),
    (
        "game",
        &[
            "game", "games", "spiel", "spiele", "jeu", "jeux", "juego", "juegos",
        ],
    ),
    (
        "enlarge",
        &[
            "enlarge",
            "zoom in",
            "magnify",
            "vergrößern",
            "agrandir",
            "ampliar",
            "увеличить",
        ],
    ),
    (
        "category",
        &[
            "category",
            "categories",
            "tag",
            "tags",
            "hashtag",
            "hashtags",
            "section",
            "sections",
            "kategorie",
            "kategorien",
            "rubrik",
            "rubriken",
            "rubrique",
            "rubriques",
            "catégorie",
            "categoría",
            "sección",
            "категория",
            "категории",
            "рубрика",
            "рубрики",
            "раздел",
            "разделы",
        ],
    ),
    (
        "later",
        &[
            "later",
            "not now",
            "remind me later",
            "maybe later",
            "spater",
            "plus tard",
            "позже",
        ],
    ),
    (
        "decrease",
        &[
            "decrease",
            "fewer",
            "less",
            "reduce",
            "lower",
            "smaller",
            "minus",
            "verringern",
            "reduire",
        ],
    ),
    (
        "increase",
        &[
            "increase",
            "more",
            "raise",
            "higher",
            "bigger",
            "larger",
            "plus",
            "erhohen",
            "augmenter",
        ],
    ),
    (
        "previous",
        &[
            "previous",
            "prev",
            "prior",
            "earlier",
            "before",
            "newer",
            "vorherige",
            "précédent",
            "anterior",
            "predchozi",
            "poprzedni",
            "poprzednia",
            "foregaende",
            "forrige",
            "precedente",
            "indietro",
            "vorige",
            "назад",
            "предыдущая",
            "önceki",
        ],
    ),
    (
        "subscribe",
        &[
            "subscribe",
            "abonnieren",
            "abonner",
            "suscribirse",
            "odebirat",
            "prihlasit k odberu",
            "subskrybuj",
            "zapisz sie",
            "prenumerera",
            "iscriviti",
            "abbonati",
            "abonneren",
            "assinar",
            "inscrever se",
            "подписаться",
            "подписка",
            "abone ol",
        ],
    ),
    // Leaving a course or a class: "drop the Spanish class" is its Unenroll.
    (
        "unenroll",
        &["unenroll", "drop", "desinscribir", "desinscribirse"],
    ),
    // Ending a subscription: never the subscribe concept's words with a prefix.
    (
        "unsubscribe",
        &[
            "unsubscribe",
            "abbestellen",
            "desabonner",
            "se desabonner",
            "darse de baja",
            "disiscriviti",
            "uitschrijven",
            "wypisz sie",
            "odhlasit odber",
            "отписаться",
        ],
    ),
    (
        "share",
        &[
            "share",
            "teilen",
            "partager",
            "compartir",
            "udostepnij",
            "sdilet",
            "dela",
            "condividi",
            "condividere",
            "delen",
            "partilhar",
            "compartilhar",
            "поделиться",
            "paylaş",
        ],
    ),
    (
        "comment",
        &[
            "comment",
            "discussion",
            "discuss",
            "kommentar",
            "kommentare",
            "commentaire",
            "comentario",
            "komentare",
            "komentar",
            "komentarze",
            "komentarz",
            "kommentarer",
            "commenti",
            "commento",
            "reacties",
            "reactie",
            "comentarios",
            "комментарий",
            "комментарии",
            "комментировать",
        ],
    ),
    (
        "reply",
        &[
            "reply",
            "respond",
            "answer",
            "antworten",
            "répondre",
            "responder",
            "ответить",
        ],
    ),
    (
        "edit",
        &[
            "edit",
            "modify",
            "improve",
            "bearbeiten",
            "modifier",
            "editar",
            "редактировать",
            "изменить",
        ],
    ),
    (
        "delete",
        &[
            "delete",
            "remove",
            "erase",
            "löschen",
            "entfernen",
            "supprimer",
            "eliminar",
            "smazat",
            "odstranit",
            "usun",
            "ta bort",
            "elimina",
            "verwijderen",
            "excluir",
            "apagar",
            "удалить",
            "sil",
        ],
    ),
    // Emptying a field or a list: "clear the search field" / "Sucheingabe löschen".
    (
        "clear",
        &[
            "clear",
            "reset",
            "löschen",
            "leeren",
            "zurücksetzen",
            "effacer",
            "réinitialiser",
            "borrar",
            "vaciar",
            "restablecer",
        ],
    ),
    ("play", &["play", "abspielen", "wiedergeben", "reproducir"]),
    ("pause", &["pause", "pausieren"]),
    ("mute", &["mute", "stummschalten", "silence"]),
    (
        "help",
        &[
            "help",
            "support",
            "faq",
            "hilfe",
            "aide",
            "ayuda",
            "napoveda",
            "pomoc",
            "hjalp",
            "hjaelp",
            "aiuto",
            "hulp",
            "ajuda",
            "помощь",
            "справка",
            "yardım",
        ],
    ),
    // The questions a site answers: a page of its own, not any help ("open the FAQ" beside
    // "Help with buying" and "Frequently asked questions" is the second).
    (
        "faq",
        &[
            "faq",
            "faqs",
            "frequently asked questions",
            "häufige fragen",
            "haufig gestellte fragen",
            "questions fréquentes",
            "foire aux questions",
            "preguntas frecuentes",
            "domande frequenti",
            "veelgestelde vragen",
            "perguntas frequentes",
        ],
    ),
    (
        "contact",
        &[
            "contact",
            "kontakt",
            "contacto",
            "contatti",
            "contattaci",
            "contato",
            "контакты",
            "связаться",
            "contatto",
            "contacte",
            "contacten",
            "iletişim",
            "contact us",
            "in touch",
            "reach out",
        ],
    ),
    ("account", &["account", "konto", "compte", "cuenta", "ucet"]),
    ("menu", &["menu", "menü", "meny", "меню"]),
    (
        "return",
        &["return", "back", "zurück", "retour", "volver", "previous"],
    ),
    (
        "new",
        &[
            "new",
            "latest",
            "recent",
            "neu",
            "neueste",
            "neue",
            "neuen",
            "neues",
            "nouvelle",
            "nouvelles",
            "nouveaux",
            "nueva",
            "nuevos",
            "letzte",
            "letzten",
            "dernier",
            "derniers",
            "dernières",
            "nouveau",
            "nuevo",
            "новое",
            "новые",
            "новинки",
            "последние",
            "свежие",
        ],
    ),
    (
        "create",
        &[
            "create",
            "new",
            "make",
            "compose",
            "write",
            "erstellen",
            "neu",
            "créer",
            "crear",
            "создать",
        ],
    ),
    (
        "like",
        &["like", "favorite", "favourite", "gefällt", "thumbs up"],
    ),
    ("follow", &["follow", "folgen", "suivre", "seguir"]),
    (
        "send",
        &[
            "send",
            "submit",
            "senden",
            "absenden",
            "envoyer",
            "enviar",
            "odeslat",
            "wyslij",
            "skicka",
            "invia",
            "verzenden",
            "verstuur",
            "отправить",
            "gönder",
        ],
    ),
    ("open", &["open", "öffnen", "ouvrir", "abrir"]),
    ("upload", &["upload", "hochladen"]),
    ("print", &["print", "drucken", "imprimer"]),
    (
        "fullscreen",
        &["full screen", "fullscreen", "vollbild", "plein écran"],
    ),
    ("video", &["video", "videos", "clip"]),
    ("file", &["file", "datei", "fichier", "archivo"]),
    (
        "folder",
        &["folder", "directory", "ordner", "dossier", "carpeta"],
    ),
    (
        "image",
        &[
            "image", "picture", "photo", "jpg", "jpeg", "png", "gif", "bild", "foto",
            // A carousel's pictures: "Go to Slide 3" is the third picture.
            "slide",
        ],
    ),
    ("rename", &["rename", "umbenennen", "renommer"]),
    ("undo", &["undo", "rückgängig", "annuler"]),
    ("copy", &["copy", "kopieren", "copier", "copiar"]),
    ("paste", &["paste", "einfügen", "coller", "pegar"]),
    (
        "quantity",
        &[
            "quantity",
            "qty",
            "amount",
            "menge",
            "anzahl",
            "quantité",
            "cantidad",
        ],
    ),
    ("volume", &["volume", "lautstärke", "sound"]),
    (
        "language",
        &[
            "language", "sprache", "langue", "idioma", "lingua", "język", "taal", "dil", "язык",
        ],
    ),
    (
        "notification",
        &[
            "notification",
            "notifications",
            "notify",
            "alert",
            "alerts",
            // "let me know when the price changes" is an alert ("crear alerta").
            "let me know",
            "benachrichtigung",
            "benachrichtigungen",
            "benachrichtigen",
            "alerte",
            "alertes",
            "alerta",
            "alertas",
            "notificación",
            "notificaciones",
        ],
    ),
    (
        "rate",
        &[
            "rate", "rating", "ratings", "bewerten", "évaluer", "noter", "valorar",
        ],
    ),
    (
        "review",
        &[
            "review",
            "reviews",
            "rating",
            "ratings",
            "bewertung",
            "bewertungen",
            "rezension",
            "rezensionen",
            "avis",
            "évaluation",
            "reseña",
            "valoración",
            "отзыв",
            "отзывы",
        ],
    ),
    (
        "description",
        &[
            "description",
            "details",
            "product details",
            "beschreibung",
            "produktbeschreibung",
            "einzelheiten",
            "détails",
            "descripción",
            "описание",
        ],
    ),
    (
        "shipping",
        &[
            "shipping",
            "shipping costs",
            "delivery",
            "postage",
            "versand",
            "versandkosten",
            "lieferung",
            "livraison",
            "frais de port",
            "envío",
            "доставка",
        ],
    ),
    (
        "company",
        &[
            "company",
            "about us",
            "about the company",
            "unternehmen",
            "über uns",
            "firma",
            "entreprise",
            "société",
            "qui sommes nous",
            "empresa",
            "о нас",
            "о компании",
            "компания",
            "chi siamo",
            "o nas",
            "sobre nós",
            "over ons",
            "hakkımızda",
        ],
    ),
    ("catalog", &["catalog", "catalogue", "katalog", "catálogo"]),
    (
        "report",
        &[
            "report",
            "flag",
            "report abuse",
            "melden",
            "signaler",
            "denunciar",
            "reportar",
            "zglos",
            "пожаловаться",
        ],
    ),
    (
        "clone",
        &["clone", "fork", "duplicate", "klonen", "cloner", "clonar"],
    ),
    (
        "refresh",
        &[
            "refresh",
            "reload",
            "aktualisieren",
            "neu laden",
            "actualiser",
            "actualizar",
            "odswiez",
            "обновить",
        ],
    ),
    (
        "useful",
        &[
            "useful",
            "helpful",
            "nützlich",
            "hilfreich",
            "utile",
            "util",
        ],
    ),
    (
        "publish",
        &[
            "publish",
            "post",
            "veröffentlichen",
            "publier",
            "publicar",
            "pubblicare",
            "опубликовать",
        ],
    ),
    (
        "post",
        &[
            "post",
            "posts",
            "thread",
            "threads",
            "topic",
            "topics",
            "beitrag",
            "beiträge",
            "thema",
            "themen",
            "sujet",
            "sujets",
            "publication",
            "tema",
            "пост",
            "посты",
            "публикация",
            "публикации",
        ],
    ),
    (
        "activity",
        &[
            "activity",
            "aktivität",
            "aktivitäten",
            "activité",
            "actividad",
        ],
    ),
    (
        "member",
        &[
            "member",
            "members",
            "user",
            "users",
            "mitglied",
            "mitglieder",
            "benutzer",
            "membre",
            "membres",
            "utilisateur",
            "miembro",
            "usuario",
            "пользователь",
            "пользователи",
            "участник",
            "участники",
        ],
    ),
    (
        "title",
        &["title", "titles", "titel", "titre", "titres", "título"],
    ),
    ("only", &["only", "nur", "seulement", "uniquement", "solo"]),
    (
        "general",
        &[
            "general",
            "allgemein",
            "allgemeine",
            "allgemeines",
            "général",
            "générale",
            "generales",
        ],
    ),
    ("dark", &["dark", "dunkel", "sombre", "oscuro", "night"]),
    (
        "shop",
        &[
            "shop",
            "store",
            "boutique",
            "laden",
            "magasin",
            "tienda",
            "merchandise",
            "merch",
            "магазин",
            "negozio",
            "sklep",
            "loja",
            "winkel",
            "mağaza",
        ],
    ),
    (
        "news",
        &[
            "news",
            "current events",
            "headlines",
            "nachrichten",
            "aktuelles",
            "actualités",
            "noticias",
            "actualidad",
            "новости",
            "новость",
            "notizie",
            "wiadomości",
            "aktualności",
            "notícias",
            "nieuws",
            "haberler",
        ],
    ),
    (
        "history",
        &[
            "history",
            "revisions",
            "revision history",
            "versions",
            "version history",
            "versionsgeschichte",
            "historique",
            "historial",
            "история",
        ],
    ),
    (
        "table",
        &[
            "table",
            "tabular",
            "tabelle",
            "tabellarisch",
            "tableau",
            "tabla",
            "таблица",
            "турнирная таблица",
        ],
    ),
    (
        "twofactor",
        &[
            "2fa",
            "two factor",
            "two factor authentication",
            "two step verification",
            "mfa",
            "multi factor authentication",
        ],
    ),
    (
        "sort",
        &[
            "sort",
            "sort by",
            "sortieren",
            "sortierung",
            "trier",
            "ordenar",
            "ordina",
            "ordinamento",
            "sortuj",
            "sortowanie",
            "sorteren",
            "sırala",
            "сортировать",
            "сортировка",
        ],
    ),
];

/// Prepositions that filter a search by a person or source ("posts by the member X").
pub const FILTER_PREPOSITIONS: &[&str] = &["by", "from", "von", "par", "de", "por"];

/// Verbs that only say "activate it": they name no particular target.
pub const ACTIVATE_VERBS: &[&str] = &[
    "list", "browse", "open", "click", "press", "tap", "hit", "choose", "pick", "go", "goto",
    "navigate", "visit", "take", "bring", "jump", "skip", "show", "view", "see", "display", "read",
    "launch", "load", "expand", "collapse", "activate", "focus", "get", "limit", "restrict",
    "narrow",
];

/// Verbs that ask to see something: "show me the changes", "view the log".
pub const VIEW_VERBS: &[&str] = &["show", "view", "see", "display", "read", "list", "browse"];

/// A label's first word that changes something without being past undoing ("Save Changes",
/// "Remove filter", "Speichern"; English, German, French, Spanish; folded). With
/// [`CANNOT_BE_UNDONE`]'s words these are the controls [`changes_something`] names.
const CHANGE_VERBS: &[&str] = &[
    "save",
    "submit",
    "post",
    "publish",
    "remove",
    "confirm",
    "apply",
    "discard",
    "reset",
    "speichern",
    "absenden",
    "entfernen",
    "bestatigen",
    "enregistrer",
    "confirmer",
    "guardar",
    "confirmar",
];

/// A label that begins with `first` changes, sends or removes something ("Save Changes",
/// "Delete comment", "Absenden"): such a control shows nothing.
pub fn changes_something(first: &str) -> bool {
    is_in(CHANGE_VERBS, first) || is_in(CANNOT_BE_UNDONE, first)
}

/// Verbs that set an on/off state: they prefer checkboxes, switches, radios.
pub const TOGGLE_VERBS: &[&str] = &[
    "tick", "untick", "check", "uncheck", "toggle", "turn", "switch", "enable", "disable", "mark",
    "unmark", "flip", "select",
];

/// Verbs only a checkbox takes: on anything else they are at most asked about.
pub const CHECKBOX_VERBS: &[&str] = &["tick", "untick"];

/// Words that open a remark after a comma ("…, I've got it", "…, thanks"): the speaker's
/// subject or a thanks, never part of what is referred to.
pub const REMARK_OPENERS: &[&str] = &["i", "we", "thanks", "thank", "cheers"];

/// Verbs that name a control when there is one ("play" -> the Play button)
/// and otherwise just mean "open" ("play the piano radio" -> its link;
/// "change the departure date" -> its picker).
pub const MEDIA_VERBS: &[&str] = &["play", "watch", "listen", "stop", "start", "change", "set"];

/// What a link to a file of each kind offers: its address's extension, and the verbs said of
/// such a file ("play this episode" on an .mp3, "download the poster" on a .pdf).
pub const FILE_VERBS: &[(&[&str], &[&str])] = &[
    (
        &["mp3", "m4a", "ogg", "opus", "wav", "aac", "flac"],
        &["play", "listen", "hear", "download", "save", "get"],
    ),
    (
        &["mp4", "webm", "mov", "m4v", "mkv"],
        &["play", "watch", "view", "download", "save", "get"],
    ),
    (
        &[
            "pdf", "epub", "doc", "docx", "odt", "rtf", "xls", "xlsx", "ods", "csv", "ppt", "pptx",
        ],
        &["download", "save", "get", "read", "view"],
    ),
    (
        &[
            "zip", "tar", "gz", "tgz", "xz", "7z", "rar", "dmg", "exe", "msi", "deb", "rpm", "apk",
            "iso",
        ],
        &["download", "save", "get", "install"],
    ),
    (
        &["jpg", "jpeg", "png", "gif", "svg", "webp"],
        &["download", "save", "get", "view", "see"],
    ),
];

/// Whether a link to `destination` offers `verb` through the kind of file it is.
pub fn file_offers(destination: &str, verb: &str) -> bool {
    // The scan's destination: "host/path", then a space and a hash when it was shortened.
    let path = destination.split_whitespace().next().unwrap_or("");
    let path = path.split(['?', '#']).next().unwrap_or("");
    let Some((_, last)) = path.rsplit_once('/') else {
        return false;
    };
    let Some((_, ext)) = last.rsplit_once('.') else {
        return false;
    };
    let ext = ext.to_ascii_lowercase();
    FILE_VERBS
        .iter()
        .any(|(exts, verbs)| exts.contains(&ext.as_str()) && verbs.contains(&verb))
}

/// Verbs that put a list in an order.
pub const SORT_VERBS: &[&str] = &["sort", "order", "rank", "arrange"];

/// Words of a label that names an order of a list ("Popular Shots", "Newest", "Top rated",
/// "Price"): such a control sorts, whatever else it says.
pub const ORDER_WORDS: &[&str] = &[
    "popular",
    "popularity",
    "recent",
    "newest",
    "oldest",
    "latest",
    "trending",
    "featured",
    "top",
    "best",
    "rated",
    "rating",
    "ratings",
    "price",
    "cheapest",
    "date",
    "relevance",
    "relevant",
    "alphabetical",
    "alphabetically",
    "viewed",
    "views",
    "votes",
    "hot",
    "beliebt",
    "beliebteste",
    "neueste",
    "aktuellste",
    "relevanz",
    "preis",
    "populaires",
    "récents",
    "populares",
    "recientes",
];

/// Whether `verb` puts a list in order and the label names one ("sort by popular" on a link
/// "Popular Shots").
pub fn order_offers(label: &[Token], verb: &str) -> bool {
    is_in(SORT_VERBS, verb) && label.iter().any(|t| is_in(ORDER_WORDS, &t.norm))
}

/// Words that introduce the text to type ("write a comment saying hi").
pub const TEXT_MARKERS: &[&str] = &["saying", "says", "reading"];

/// Verbs that put text into a field.
pub const TYPE_VERBS: &[&str] = &["type", "enter", "write", "fill", "input", "insert", "key"];

/// Verbs that search for text.
pub const SEARCH_VERBS: &[&str] = &[
    "filter",
    "search",
    "find",
    "look",
    "google",
    "query",
    "lookup",
    "suche",
    "suchen",
    "cherche",
    "chercher",
    "rechercher",
    "busca",
    "buscar",
];

/// Verbs that ask for thought rather than a single grounded action.
pub const REASON_VERBS: &[&str] = &[
    "summarize",
    "summarise",
    "explain",
    "describe",
    "tell",
    "compare",
    "translate",
    "count",
    "analyze",
    "analyse",
    "recommend",
    "suggest",
    "answer",
    "calculate",
    "figure",
    "decide",
];

/// Words that open a question.
pub const QUESTION_WORDS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
];

/// Auxiliaries that open a yes/no question when the sentence ends in "?".
pub const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
    "has", "have", "am",
];

/// Verbs of having or being: after a relative word ("stuff that has subtitles", "the ones
/// which are free") they say nothing of the thing; what follows them does.
pub const LINKING_VERBS: &[&str] = &[
    "has", "have", "had", "is", "are", "contain", "contains", "include", "includes",
];

/// Words that carry politeness or hesitation, not meaning, at the start.
pub const FILLERS: &[&str] = &[
    "okay", "ok", "please", "just", "hey", "um", "uh", "so", "now", "well", "alright", "kindly",
    "yeah", "oh", "then", "and", "also", "quickly", "only", "fine", "sure",
];

/// Words that point at what is shown rather than name a thing ("what is this about", "more of
/// these").
pub const POINTING: &[&str] = &["this", "that", "these", "those", "it", "here"];

/// Openers that wrap a command ("can you", "I want to", "let's").
pub const WRAPPERS: &[&[&str]] = &[
    &["i", "m"],
    &["i", "am"],
    &["can", "you"],
    &["could", "you"],
    &["would", "you"],
    &["will", "you"],
    &["i", "want", "to"],
    &["i", "would", "like", "to"],
    &["i", "d", "like", "to"],
    &["i", "need", "you", "to"],
    &["i", "need", "to"],
    &["i", "want", "you", "to"],
    &["let", "s"],
    &["go", "ahead", "and"],
    &["help", "me"],
];

/// Nouns for one item of a repeated list.
pub const ITEM_NOUNS: &[&str] = &[
    "story",
    "post",
    "article",
    "item",
    "entry",
    "result",
    "thread",
    "submission",
    "headline",
    "product",
    "listing",
    "video",
    "row",
    "card",
    "message",
    "email",
    "mail",
    "track",
    "song",
    "episode",
];

/// Nouns for parts of a document (numbered headings, table of contents).
pub const SECTION_NOUNS: &[&str] = &[
    "contents",
    "toc",
    "outline",
    "section",
    "part",
    "chapter",
    "heading",
    "paragraph",
];

/// Nouns for a part of a page that holds controls ("the last option in the poll"), as stems.
pub const CONTAINER_NOUNS: &[&str] = &[
    "poll",
    "survey",
    "questionnaire",
    "quiz",
    "form",
    "sidebar",
    "toolbar",
    "header",
    "footer",
    "dialog",
    "popup",
    "panel",
    "banner",
    "list",
    "table",
];

/// Nouns for footnote markers.
pub const FOOTNOTE_NOUNS: &[&str] = &["footnote", "citation"];

/// Nouns for the person who wrote or posted something.
pub const AUTHOR_NOUNS: &[&str] = &[
    "profile",
    "author",
    "poster",
    "submitter",
    "writer",
    "byline",
];

/// Nouns for a kind of control, and the role class they name.
pub const ROLE_NOUNS: &[(&str, RoleNoun)] = &[
    ("box", RoleNoun::Field),
    ("field", RoleNoun::Field),
    ("textbox", RoleNoun::Editable),
    ("input", RoleNoun::Editable),
    ("searchbox", RoleNoun::Editable),
    ("checkbox", RoleNoun::Toggle),
    ("toggle", RoleNoun::Toggle),
    ("switch", RoleNoun::Toggle),
    ("button", RoleNoun::Button),
    ("link", RoleNoun::Link),
    ("tab", RoleNoun::Tab),
    ("menu", RoleNoun::Menu),
    ("dropdown", RoleNoun::Editable),
    ("radio", RoleNoun::Choice),
    ("option", RoleNoun::Choice),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleNoun {
    /// "box", "field": an editable or a toggle.
    Field,
    Editable,
    Toggle,
    Button,
    Link,
    Tab,
    Menu,
    /// "radio", "option": one choice of several (a radio button, a list's option).
    Choice,
}

/// Words of a control's label that say its effect cannot be undone or costs money: buying,
/// paying, sending, deleting (English, German, French, Spanish; folded).
pub const CANNOT_BE_UNDONE: &[&str] = &[
    "buy",
    "purchase",
    "pay",
    "send",
    "delete",
    "erase",
    "destroy",
    "donate",
    "kaufen",
    "bestellen",
    "zahlungspflichtig",
    "bezahlen",
    "senden",
    "loschen",
    "acheter",
    "commander",
    "payer",
    "envoyer",
    "supprimer",
    "comprar",
    "pagar",
    "enviar",
    "eliminar",
    "borrar",
];

/// "Order" is a commitment only with a word that commits ("Place order", "Order now"): an
/// "Order form" or "Orders" link is not.
const COMMITS: &[&str] = &["place", "submit", "confirm", "complete", "now"];

/// A control labelled `label` does something that cannot be undone ("Place order", "Buy now",
/// "Send", "Delete", "Jetzt kaufen"); its words or their stems say so.
pub fn cannot_be_undone(label: &str) -> bool {
    let tokens = super::text::tokens(label);
    let has = |list: &[&str]| {
        tokens
            .iter()
            .any(|t| is_in(list, &t.norm) || is_in(list, &t.stem))
    };
    has(CANNOT_BE_UNDONE) || (has(&["order", "checkout"]) && has(COMMITS))
}

/// Words that never carry the content of a reference.
pub const STOPWORDS: &[&str] = &[
    "what", "whatever", "the", "a", "an", "this", "that", "these", "those", "my", "your", "our",
    "its", "it", "me", "i", "you", "to", "of", "on", "in", "at", "for", "with", "about", "from",
    "by", "and", "or", "is", "are", "be", "here", "there", "some", "any", "one", "ones", "thing",
    "page", "pagina", "seite", "strona", "site", "screen", "please", "other", "whoever", "someone",
    "posted", "called", "named", "titled", "labelled", "labeled", "into", "onto", "us", "we",
    "them", "him", "her", "his", "their", "which", "who", "that", "can", "get", "want", "now",
    "just", "again", "thingy", "bit",
    // The clitic of "author's", "what's", "it's" (the tokenizer splits it off as a word), and
    // the "as" of a manner ("show it as a table").
    "s", "as", // The mark of a superlative ("the most recent shots": "Recent Shots").
    "most", "least", // Placeholders ("show stuff that has subtitles").
    "stuff", "things", "anything",
];

/// File formats: a link named by one offers that file (it downloads).
pub const FILE_FORMATS: &[&str] = &[
    "mp3", "m4a", "opus", "ogg", "oga", "wav", "flac", "aac", "mp4", "m4v", "webm", "mkv", "avi",
    "mov", "pdf", "epub", "mobi", "zip", "tar", "gz", "tgz", "7z", "rar", "csv", "xls", "xlsx",
    "doc", "docx", "odt", "ods", "rtf", "txt", "json", "xml", "ics", "vcf", "iso", "dmg", "exe",
    "msi", "apk", "deb", "rpm", "jpg", "jpeg", "png", "gif", "svg", "tiff",
];

/// Nouns that name how something is shown rather than what it is: a label often keeps only
/// their modifier ("raw" for the raw text, "Mobile" for the mobile version).
pub const PRESENTATION_NOUNS: &[&str] = &[
    "text", "version", "view", "mode", "format", "edition", "layout",
];

/// Words that introduce a qualifier after the head of a reference.
pub const PREPOSITIONS: &[&str] = &[
    "to",
    "on",
    "of",
    "for",
    "about",
    "from",
    "in",
    "at",
    "with",
    "by",
    "under",
    "posted",
    "called",
    "named",
    "titled",
    "labelled",
    "labeled",
    "that",
    "which",
    "where",
    "whose",
    "regarding",
];

/// Languages by their English names and the names they give themselves, as a language menu
/// lists them (folded: "Français" is "francais"): "switch the page to French" picks *Français*.
pub const LANGUAGE_NAMES: &[(&str, &[&str])] = &[
    ("french", &["francais"]),
    ("german", &["deutsch"]),
    ("spanish", &["espanol", "castellano"]),
    ("italian", &["italiano"]),
    ("portuguese", &["portugues"]),
    ("dutch", &["nederlands"]),
    ("polish", &["polski"]),
    ("czech", &["cestina"]),
    ("swedish", &["svenska"]),
    ("danish", &["dansk"]),
    ("norwegian", &["norsk", "bokmal", "nynorsk"]),
    ("finnish", &["suomi"]),
    ("hungarian", &["magyar"]),
    ("turkish", &["turkce"]),
    ("romanian", &["romana"]),
    ("catalan", &["catala"]),
    // "На русском" (in Russian), as a Russian site's switch says it.
    ("russian", &["русский", "русском"]),
    ("ukrainian", &["українська"]),
    ("greek", &["ελληνικα", "ελληνικά"]),
    ("japanese", &["日本語"]),
    ("chinese", &["中文"]),
    ("korean", &["한국어"]),
];

/// Whether `said` (an English language name, folded) is the language a label names itself as.
pub fn names_language(said: &str, written: &str) -> bool {
    LANGUAGE_NAMES
        .iter()
        .any(|(name, own)| *name == said && own.contains(&written))
}

/// The words of a link that offers more about a thing: "Learn more about …", "Read more",
/// "Find out more", "More details", "More info".
pub const MORE_ABOUT: &[&str] = &[
    "learn",
    "read",
    "find",
    "out",
    "more",
    "about",
    "details",
    "info",
    "information",
];

/// The words of `tokens` that carry content: no stopwords.
pub fn content_words(tokens: &[Token]) -> Vec<&Token> {
    tokens
        .iter()
        .filter(|t| !is_in(STOPWORDS, &t.norm))
        .collect()
}

/// Social networks, as their links are labelled.
pub const SOCIAL_NETWORKS: &[&str] = &[
    "facebook",
    "twitter",
    "instagram",
    "youtube",
    "linkedin",
    "pinterest",
    "tiktok",
    "whatsapp",
    "reddit",
    "mastodon",
    "telegram",
    "threads",
    "bluesky",
    "xing",
    "vk",
    "tumblr",
    "flickr",
    "snapchat",
];

/// The word that names the kind of all of them: "social" ("the social links", "social media").
pub fn names_social_kind(t: &Token) -> bool {
    matches!(t.norm.as_str(), "social" | "socials")
}

pub fn is_in(list: &[&str], word: &str) -> bool {
    list.contains(&word)
}

type PhraseIndex = HashMap<String, Vec<(usize, Vec<String>)>>;

/// Concept phrases indexed by the stem of their first word, built once.
fn phrase_index() -> &'static PhraseIndex {
    static INDEX: OnceLock<PhraseIndex> = OnceLock::new();
    INDEX.get_or_init(|| index_by(|w| stem(&super::text::fold(w))))
}

/// Concept phrases indexed by the inflection root of their first word, built once.
fn root_index() -> &'static PhraseIndex {
    static INDEX: OnceLock<PhraseIndex> = OnceLock::new();
    INDEX.get_or_init(|| index_by(|w| inflection_root(&super::text::fold(w))))
}

fn index_by(key: impl Fn(&str) -> String) -> PhraseIndex {
    let mut index: PhraseIndex = HashMap::new();
    for (c, (_, phrases)) in CONCEPTS.iter().enumerate() {
        for phrase in phrases.iter() {
            let words: Vec<String> = phrase.split(' ').map(&key).collect();
            index.entry(words[0].clone()).or_default().push((c, words));
        }
    }
    index
}

/// Endings German, French and Spanish words take on an interface ("nächste"/"nächster",
/// "abonner"/"abonne"/"abonnez", "vorherige"/"vorherigen"), longest first.
const INFLECTION_ENDINGS: &[&str] = &[
    "ern",
    "ez",
    "er",
    "es",
    "en",
    "em",
    "e",
    "s",
    // Russian: the reflexive verb's infinitive and imperative ("поделиться" / "поделись"),
    // nouns' and adjectives' case and number endings ("комментарии" / "комментарий",
    // "новости" / "новость").
    "иться",
    "ться",
    "ись",
    // Not "ть": "новость" is a noun whose "ь" alone is its ending.
    "ии",
    "ий",
    "ия",
    "ев",
    "ов",
    "ей",
    "ам",
    "ах",
    "ой",
    "ый",
    "ая",
    "ое",
    "ые",
    "и",
    "ы",
    "а",
    "я",
    "ь",
    "е",
    "у",
    "ю",
];

/// A word without one inflection ending, so that two forms of one word meet: words of five
/// letters or more keep a root of at least four. Other words are their own root.
pub fn inflection_root(norm: &str) -> String {
    if norm.chars().count() >= 5 && norm.chars().all(char::is_alphabetic) {
        for ending in INFLECTION_ENDINGS {
            if let Some(root) = norm.strip_suffix(ending) {
                if root.chars().count() >= 4 {
                    // "commenter", "follower": "-er" on a word the tables have whole makes an
                    // English agent noun (the person, not the action); German "nächster" has
                    // no such root.
                    if *ending == "er" && phrase_index().contains_key(root) {
                        return norm.to_string();
                    }
                    return root.to_string();
                }
            }
        }
    }
    norm.to_string()
}

/// A request's past participle read as its verb ("saved" → save, "liked" → like): a verb
/// ending in "e" takes only "d", and the stem keeps a short word's "-ed". Only for what is said:
/// a label that says "Liked" shows a state, not the action.
pub fn said_as_verb(t: &Token) -> Token {
    match t.norm.strip_suffix('d').filter(|b| b.ends_with('e')) {
        Some(base) if base.chars().count() >= 4 && phrase_index().contains_key(base) => Token {
            stem: base.to_string(),
            ..t.clone()
        },
        _ => t.clone(),
    }
}

/// The concepts a token sequence names, with the token range of each phrase.
/// At each position the longest phrase of each concept wins. Where no phrase
/// starts at a position in the form the table has, another inflection of its
/// words counts ("Je m'abonne" names subscribe, "NÄCHSTER" next).
pub fn concepts_in(tokens: &[Token]) -> Vec<(usize, Range<usize>)> {
    let mut found: Vec<(usize, Range<usize>)> = Vec::new();
    let stems: Vec<&str> = tokens.iter().map(|t| t.stem.as_str()).collect();
    let mut roots: Option<Vec<String>> = None;
    for i in 0..tokens.len() {
        let before = found.len();
        add_phrases(phrase_index(), &stems, i, &mut found);
        if found.len() == before && !found.iter().any(|(_, r)| r.start == i) {
            let roots = roots
                .get_or_insert_with(|| tokens.iter().map(|t| inflection_root(&t.norm)).collect());
            let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
            add_phrases(root_index(), &roots, i, &mut found);
        }
    }
    found
}

fn add_phrases(
    index: &PhraseIndex,
    keys: &[&str],
    i: usize,
    found: &mut Vec<(usize, Range<usize>)>,
) {
    let Some(entries) = index.get(keys[i]) else {
        return;
    };
    for (c, words) in entries {
        let fits = i + words.len() <= keys.len()
            && words.iter().enumerate().all(|(k, w)| keys[i + k] == w);
        if !fits {
            continue;
        }
        let range = i..i + words.len();
        match found.iter_mut().find(|(fc, r)| fc == c && r.end > i) {
            Some(existing) if existing.1.len() < range.len() => existing.1 = range,
            Some(_) => {}
            None => found.push((*c, range)),
        }
    }
}

/// Concept ids present in a token list (for element labels).
pub fn concept_ids(tokens: &[Token]) -> Vec<usize> {
    let mut ids: Vec<usize> = concepts_in(tokens).into_iter().map(|(c, _)| c).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

pub fn concept_name(id: usize) -> &'static str {
    CONCEPTS[id].0
}

/// The id of the concept called `name`.
pub fn concept_named(name: &str) -> Option<usize> {
    CONCEPTS.iter().position(|(n, _)| *n == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The controls every site has, in the languages the glossary reads ("Accedi", "Sortuj",
    /// "Carrello", "Tutte le notizie"), name their concepts.
    #[test]
    fn common_controls_name_their_concepts_in_more_languages() {
        let table = [
            ("Accedi", "login"),
            ("Logowanie", "login"),
            ("Inloggen", "login"),
            ("Sortuj", "sort"),
            ("Ordina per", "sort"),
            ("Carrello", "cart"),
            ("Koszyk", "cart"),
            ("Carrinho", "cart"),
            ("Tutte le notizie", "all"),
            ("Tutte le notizie", "news"),
            ("Zarejestruj się", "signup"),
            ("Cerca", "search"),
            ("Prezzo", "price"),
            ("By subject", "subject"),
            ("Browse topics", "subject"),
            ("Special Offers", "offers"),
            ("current promotions", "offers"),
            ("Angebote", "offers"),
            ("Careers", "jobs"),
            ("are they hiring", "jobs"),
            ("Work with us", "jobs"),
            ("Stellenangebote", "jobs"),
        ];
        for (label, concept) in table {
            let id = concept_named(concept).expect(concept);
            assert!(
                concept_ids(&crate::director::text::tokens(label)).contains(&id),
                "{label} / {concept}"
            );
        }
    }

    /// A site's FAQ is some of its help ("open the help pages" meets a "faq" link), but the
    /// questions said in full name that page, not any help ("Help with buying").
    #[test]
    fn the_questions_said_in_full_name_the_faq_not_any_help() {
        let ids = |s: &str| concept_ids(&crate::director::text::tokens(s));
        let (help, faq) = (
            concept_named("help").unwrap(),
            concept_named("faq").unwrap(),
        );
        assert!(ids("faq").contains(&help) && ids("faq").contains(&faq));
        let said = ids("open the frequently asked questions");
        assert!(said.contains(&faq) && !said.contains(&help), "{said:?}");
        assert!(ids("Preguntas frecuentes").contains(&faq));
    }

    #[test]
    fn a_link_to_a_file_offers_what_is_done_with_it() {
        let table = [
            ("podcast.umputun.com/media/ump_podcast369.mp3", "play", true),
            ("127.0.0.1:36051/words/maudlin.mp3", "listen", true),
            (
                "www.example.org/uploads/Affiche2_BD.pdf 1a2b3c4d",
                "download",
                true,
            ),
            ("example.org/a/report.PDF?x=1", "save", true),
            ("example.org/release.tar.gz", "install", true),
            // What a kind of file is not for, and addresses that are pages.
            ("example.org/a/report.pdf", "play", false),
            ("example.org/song.mp3", "read", false),
            ("example.org/downloads/", "download", false),
            ("example.org/page.html", "download", false),
            ("example.org", "download", false),
        ];
        for (destination, verb, want) in table {
            assert_eq!(file_offers(destination, verb), want, "{verb} {destination}");
        }
    }

    #[test]
    fn labels_that_cannot_be_undone() {
        for label in [
            "Place order",
            "Order now",
            "Buy now",
            "Send",
            "Delete message",
            "Jetzt kaufen",
            "Pay $12.00",
            "Envoyer",
        ] {
            assert!(cannot_be_undone(label), "{label}");
        }
        for label in [
            "Add to cart",
            "Save",
            "Sort by",
            "Reject all",
            "Next page",
            "Order form",
            "Orders",
        ] {
            assert!(!cannot_be_undone(label), "{label}");
        }
    }
    use crate::director::text::tokens;

    /// "show my saved listings" says save; a label "Liked" still names no action.
    #[test]
    fn a_said_participle_is_its_verb() {
        let said = |s: &str| -> Vec<&str> {
            let words: Vec<Token> = tokens(s).iter().map(said_as_verb).collect();
            concept_ids(&words).into_iter().map(concept_name).collect()
        };
        assert_eq!(said("saved"), ["save"]);
        assert_eq!(said("shared"), ["share"]);
        assert!(said("seed").is_empty());
        assert!(concept_ids(&tokens("Liked")).is_empty());
    }

    #[test]
    fn concepts_span_phrases_and_languages() {
        let names = |s: &str| -> Vec<&str> {
            concept_ids(&tokens(s))
                .into_iter()
                .map(concept_name)
                .collect()
        };
        assert_eq!(names("ALLE AKZEPTIEREN"), ["accept", "all"]);
        assert_eq!(names("accept all cookies"), ["accept", "all"]);
        assert_eq!(names("LOG IN"), ["login"]);
        assert_eq!(names("sign in"), ["login"]);
        assert_eq!(names("Datenschutzerklärung"), ["privacy"]);
        assert!(names("upvote").is_empty());
        // Other inflections of a table word.
        assert_eq!(names("NÄCHSTER ARTIKEL"), ["next", "article"]);
        // The languages the glossary learned: their interface words.
        assert_eq!(names("Odebírat"), ["subscribe"]);
        assert_eq!(names("Zaloguj się"), ["login"]);
        assert_eq!(names("Zásad ochrany osobních údajů"), ["privacy"]);
        assert_eq!(names("Udostępnij"), ["share"]);
        assert_eq!(names("Inställningar"), ["settings"]);
        assert_eq!(names("Condividi su Facebook"), ["share"]);
        assert_eq!(names("Inloggen"), ["login"]);
        assert_eq!(names("VORHERIGER ARTIKEL"), ["article", "previous"]);
        assert_eq!(names("Je m'abonne"), ["subscribe"]);
        assert_eq!(names("Abonnez-vous"), ["subscribe"]);
        // Ending it is its own concept, not the subscribe concept's word with a prefix.
        assert_eq!(names("Me désabonner"), ["unsubscribe"]);
        assert_eq!(names("Newsletter abbestellen"), ["unsubscribe"]);
        // Leaving a course: "drop the class" is its Unenroll.
        assert_eq!(names("Unenroll"), ["unenroll"]);
        assert_eq!(names("Drop"), ["unenroll"]);
        // "löschen" deletes and clears ("Sucheingabe löschen"); deleting an account stays
        // a step that cannot be undone (CANNOT_BE_UNDONE), confirmed whichever word led to it.
        assert_eq!(names("Konto löschen"), ["delete", "clear", "account"]);
        // Interface words met on a wiki and a registry record.
        assert_eq!(names("Main page"), ["home"]);
        assert_eq!(names("Wikipedia store"), ["save", "shop"]);
        assert_eq!(names("Current events"), ["news"]);
        assert_eq!(names("View history"), ["history"]);
        assert_eq!(names("Tabular View"), ["table"]);
        assert_eq!(names("continue"), ["next"]);
        assert_eq!(names("the chapter before"), ["previous"]);
        // Going back is going to the previous one ("go back a chapter" -> "Previous Chapter").
        assert!(names("Previous Chapter").contains(&"return"));
        // Short words and unrelated words do not meet by a cut ending.
        assert!(names("Teig").is_empty());
        assert!(names("comme").is_empty());
    }

    #[test]
    fn an_inflection_root_cuts_one_ending_and_keeps_four_letters() {
        for (word, root) in [
            ("nachster", "nachst"),
            ("nachste", "nachst"),
            ("abonnez", "abonn"),
            ("abonner", "abonn"),
            ("abonne", "abonn"),
            ("later", "later"),
            ("save", "save"),
            ("weitern", "weit"),
            ("2022er", "2022er"),
            // Russian: a reflexive verb's infinitive and imperative, a noun's two forms.
            ("поделиться", "подел"),
            ("поделись", "подел"),
            ("комментарии", "комментар"),
            ("комментарий", "комментар"),
            ("новости", "новост"),
            ("новость", "новост"),
        ] {
            assert_eq!(inflection_root(word), root, "{word}");
        }
        // Through the concept table: "поделись" names share, as "Поделиться" does.
        let said = crate::director::text::tokens("поделись этим постом");
        let share = CONCEPTS.iter().position(|(n, _)| *n == "share").unwrap();
        assert!(concepts_in(&said).iter().any(|(c, _)| *c == share));
    }
}

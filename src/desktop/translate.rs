//! Platform vocabulary → Circe's: AT-SPI role names, states and interfaces to the eval element
//! format (ARIA-like roles, the eval states). Pure, and tested on every OS.
//!
//! Invariant: a role this table does not know maps to `None` and the node is structure only
//! (its text still reaches the elements below it as context); nothing is guessed from a name.

/// The eval role for an AT-SPI role name (`Role::name()`, e.g. "push button"), or `None` when
/// the node is layout (panel, filler, split pane…).
pub fn role(atspi_role: &str) -> Option<&'static str> {
    Some(match atspi_role {
        "push button" | "push button menu" | "toggle button" | "button" => "button",
        "check box" | "check menu item" => "checkbox",
        "radio button" | "radio menu item" => "radio",
        "combo box" => "combobox",
        "menu item" | "menu" | "tearoff menu item" => "menuitem",
        "menu bar" => "menubar",
        "page tab" => "tab",
        "page tab list" => "tablist",
        "list item" => "listitem",
        "list" | "list box" => "list",
        "tree item" => "treeitem",
        "table cell" => "cell",
        "table row" => "row",
        "table" | "tree table" | "tree" => "grid",
        "column header" | "table column header" => "columnheader",
        "heading" => "heading",
        "slider" => "slider",
        "spin button" => "spinbutton",
        "scroll bar" => "scrollbar",
        "image" | "icon" => "image",
        "link" => "link",
        "text" | "entry" | "password text" | "paragraph" | "editbar" | "terminal" => "textbox",
        "label" | "static" | "caption" => "text",
        "status bar" => "status",
        "tool bar" => "toolbar",
        "alert" => "alertdialog",
        "dialog" | "file chooser" | "color chooser" | "font chooser" => "dialog",
        "progress bar" => "progressbar",
        "document text" | "document frame" | "document web" => "document",
        _ => return None,
    })
}

/// The eval states for AT-SPI state names (`State::to_static_str()`), in a stable order.
/// `enabled`/`sensitive` absent on an actionable node means `disabled`.
pub fn states<'a>(
    atspi_states: impl IntoIterator<Item = &'a str>,
    actionable: bool,
) -> Vec<String> {
    let have: Vec<&str> = atspi_states.into_iter().collect();
    let has = |s: &str| have.contains(&s);
    let mut out = Vec::new();
    for (from, to) in [
        ("focused", "focused"),
        ("checked", "checked"),
        ("pressed", "checked"),
        ("selected", "selected"),
        ("expanded", "expanded"),
        ("editable", "editable"),
        ("modal", "modal"),
    ] {
        if has(from) && !out.iter().any(|s| s == to) {
            out.push(to.to_string());
        }
    }
    if actionable && !has("sensitive") && !has("enabled") {
        out.push("disabled".into());
    }
    if has("focusable") && !out.iter().any(|s| s == "focused") {
        out.push("focusable".into());
    }
    // In the tree but not on screen now: a background tab's page, a row scrolled away, a closed
    // menu's item.
    if has("visible") && !has("showing") {
        out.push("offscreen".into());
    }
    out
}

/// What a node supports, from its AT-SPI interface names (`org.a11y.atspi.Action` …).
pub fn supports<'a>(interfaces: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    for i in interfaces {
        let s = match i.trim_start_matches("org.a11y.atspi.") {
            "Action" => "activate",
            "EditableText" => "edit",
            "Text" => "text",
            "Selection" => "select",
            "Value" => "value",
            "Component" => "focus",
            _ => continue,
        };
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out.sort();
    out
}

/// Is this AT-SPI role a top-level window kind, and which.
pub fn window_kind(atspi_role: &str) -> Option<&'static str> {
    Some(match atspi_role {
        "frame" | "window" => "window",
        "dialog" | "color chooser" | "font chooser" => "dialog",
        "file chooser" => "file chooser",
        "alert" => "alert",
        _ => return None,
    })
}

/// Menu items keep padding in some toolkits (mousepad: "  Save"); labels are trimmed.
pub fn label(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The shortcut in an AT-SPI key binding (`"R;<Alt>e:r;F2"`, `";;<Control><Shift>s"`: mnemonic,
/// mnemonic path, shortcut) as key names pressed together; empty when there is none.
pub fn shortcut(binding: &str) -> Vec<String> {
    let Some(accel) = binding.split(';').nth(2).map(str::trim) else {
        return Vec::new();
    };
    let mut keys = Vec::new();
    let mut rest = accel;
    while let Some(after) = rest.strip_prefix('<') {
        let Some((modifier, tail)) = after.split_once('>') else {
            return Vec::new();
        };
        let key = match modifier.to_ascii_lowercase().as_str() {
            "control" | "primary" | "ctrl" => "Control_L",
            "shift" => "Shift_L",
            "alt" | "mod1" => "Alt_L",
            "super" => "Super_L",
            _ => return Vec::new(),
        };
        keys.push(key.to_string());
        rest = tail;
    }
    if rest.is_empty() || rest.contains(['<', '>', ' ']) {
        return Vec::new();
    }
    keys.push(rest.to_string());
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_map_to_eval_roles_and_layout_to_nothing() {
        let table = [
            ("push button", Some("button")),
            ("toggle button", Some("button")),
            ("menu item", Some("menuitem")),
            ("table cell", Some("cell")),
            ("text", Some("textbox")),
            ("check box", Some("checkbox")),
            ("page tab", Some("tab")),
            ("label", Some("text")),
            ("alert", Some("alertdialog")),
            ("file chooser", Some("dialog")),
            ("panel", None),
            ("filler", None),
            ("split pane", None),
            ("scroll pane", None),
        ];
        for (from, to) in table {
            assert_eq!(role(from), to, "{from}");
        }
    }

    #[test]
    fn states_keep_what_the_director_reads() {
        let table: [(&[&str], bool, &[&str]); 5] = [
            (
                &["focused", "focusable", "editable", "sensitive"],
                false,
                &["focused", "editable"],
            ),
            (
                &["selected", "selectable", "sensitive"],
                true,
                &["selected"],
            ),
            (&["focusable", "showing"], true, &["disabled", "focusable"]),
            (&["pressed", "sensitive", "enabled"], true, &["checked"]),
            (&["modal", "active"], false, &["modal"]),
        ];
        for (from, actionable, want) in table {
            assert_eq!(states(from.iter().copied(), actionable), want, "{from:?}");
        }
    }

    #[test]
    fn interfaces_become_supported_actions() {
        let got = supports([
            "org.a11y.atspi.Accessible",
            "org.a11y.atspi.Text",
            "org.a11y.atspi.EditableText",
            "org.a11y.atspi.Component",
            "org.a11y.atspi.Action",
        ]);
        assert_eq!(got, ["activate", "edit", "focus", "text"]);
        assert!(supports(["org.a11y.atspi.Accessible"]).is_empty());
    }

    #[test]
    fn windows_are_recognised_by_kind_and_labels_are_trimmed() {
        assert_eq!(window_kind("frame"), Some("window"));
        assert_eq!(window_kind("alert"), Some("alert"));
        assert_eq!(window_kind("file chooser"), Some("file chooser"));
        assert_eq!(window_kind("panel"), None);
        assert_eq!(label("  Save\t"), "Save");
        assert_eq!(label("Save  As…"), "Save As…");
    }

    #[test]
    fn shortcuts_are_read_from_key_bindings() {
        let table: &[(&str, &[&str])] = &[
            ("R;<Alt>e:r;F2", &["F2"]),
            (";;<Control><Shift>s", &["Control_L", "Shift_L", "s"]),
            ("s;<Alt>f:s;<Primary>s", &["Control_L", "s"]),
            ("C;<Alt>f:c;", &[]),
            ("", &[]),
            (";;<Hyper>x", &[]),
        ];
        for (binding, want) in table {
            assert_eq!(shortcut(binding), *want, "{binding}");
        }
    }
}

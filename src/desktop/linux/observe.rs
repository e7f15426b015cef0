//! Reading the AT-SPI tree: the windows of every app, and one window (with its app's modal
//! dialog) as eval elements. One `Cache.GetItems` per app; containers that manage their
//! descendants (tables, tree views) are not in the cache and are walked child by child.

use super::{timed, Conn};
use crate::desktop::{
    translate, DesktopError, DesktopObservation, DesktopResult, Dialog, Handle, Page, WindowRef,
};
use crate::model::{Element, Observation, Surface};
use atspi::proxy::accessible::{AccessibleProxy, ObjectRefExt};
use atspi::proxy::cache::CacheProxy;
use atspi::proxy::proxy_ext::ProxyExt;
use atspi::{Interface, ObjectRefOwned, State};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

/// One node as read, platform vocabulary still.
#[derive(Clone, Debug)]
struct Node {
    path: String,
    role: String,
    name: String,
    states: Vec<&'static str>,
    ifaces: Vec<String>,
    children: Vec<String>,
}

pub(crate) fn object(instance: &str, path: &str) -> DesktopResult<ObjectRefOwned> {
    let name = zbus::names::UniqueName::try_from(instance.to_string())
        .map_err(|e| DesktopError::Refused(format!("bad bus name {instance}: {e}")))?;
    let path = zbus::zvariant::ObjectPath::try_from(path.to_string())
        .map_err(|e| DesktopError::Refused(format!("bad object path {path}: {e}")))?;
    Ok(atspi::ObjectRef::new_owned(name, path))
}

fn refused(e: impl std::fmt::Display) -> DesktopError {
    DesktopError::Refused(e.to_string())
}

fn lost(e: impl std::fmt::Display) -> DesktopError {
    DesktopError::NotConnected(e.to_string())
}

async fn proxy<'c>(conn: &'c Conn, o: &'c ObjectRefOwned) -> DesktopResult<AccessibleProxy<'c>> {
    o.as_accessible_proxy(conn.a11y.connection())
        .await
        .map_err(refused)
}

/// Every top-level window of every app on the bus.
pub(crate) async fn windows(conn: &Conn, calls: &AtomicU64) -> DesktopResult<Vec<WindowRef>> {
    let root = tokio::time::timeout(super::CALL_TIMEOUT, conn.a11y.root_accessible_on_registry())
        .await
        .map_err(|_| lost("the accessibility registry did not answer"))?
        .map_err(lost)?;
    let apps = timed(root.get_children()).await.map_err(lost)?;
    calls.fetch_add(2, Ordering::Relaxed);
    let mut out = Vec::new();
    for app in apps {
        let Ok(acc) = proxy(conn, &app).await else {
            continue;
        };
        let Ok(app_name) = timed(acc.name()).await else {
            continue;
        };
        let Ok(kids) = timed(acc.get_children()).await else {
            continue;
        };
        calls.fetch_add(2, Ordering::Relaxed);
        for w in kids {
            let Ok(wacc) = proxy(conn, &w).await else {
                continue;
            };
            let (Ok(role), Ok(title)) = (timed(wacc.get_role()).await, timed(wacc.name()).await)
            else {
                continue;
            };
            calls.fetch_add(2, Ordering::Relaxed);
            let Some(kind) = translate::window_kind(role.name()) else {
                continue;
            };
            out.push(WindowRef {
                session: conn.id.clone(),
                app: app_name.clone(),
                instance: w.name_as_str().unwrap_or_default().to_string(),
                window: w.path_as_str().to_string(),
                title,
                kind: kind.to_string(),
            });
        }
    }
    Ok(out)
}

fn state_names(states: atspi::StateSet) -> Vec<&'static str> {
    states.iter().map(|s: State| s.to_static_str()).collect()
}

fn iface_names(ifaces: atspi::InterfaceSet) -> Vec<String> {
    ifaces
        .iter()
        .map(|i: Interface| serde_plain(&i).unwrap_or_default())
        .collect()
}

fn serde_plain(i: &Interface) -> Option<String> {
    match serde_json::to_value(i).ok()? {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    }
}

/// The app's nodes: the cache, plus walks of containers the cache leaves out.
async fn read_app(
    conn: &Conn,
    instance: &str,
    calls: &mut u32,
) -> DesktopResult<HashMap<String, Node>> {
    let cache = CacheProxy::builder(conn.a11y.connection())
        .destination(instance.to_string())
        .map_err(refused)?
        .build()
        .await
        .map_err(refused)?;
    let items = timed(cache.get_items()).await.map_err(lost)?;
    *calls += 1;
    let mut nodes: HashMap<String, Node> = HashMap::new();
    let mut order: Vec<(String, i32, String, i32)> = Vec::new();
    for it in &items {
        let path = it.object.path_as_str().to_string();
        order.push((
            it.parent.path_as_str().to_string(),
            it.index,
            path.clone(),
            it.children,
        ));
        nodes.insert(
            path.clone(),
            Node {
                path,
                role: it.role.name().to_string(),
                name: it.short_name.clone(),
                states: state_names(it.states),
                ifaces: iface_names(it.ifaces),
                children: Vec::new(),
            },
        );
    }
    order.sort_by(|a, b| (a.0.as_str(), a.1).cmp(&(b.0.as_str(), b.1)));
    let mut missing = Vec::new();
    for (parent, _, path, _) in &order {
        if let Some(p) = nodes.get_mut(parent) {
            p.children.push(path.clone());
        }
    }
    for (_, _, path, n) in &order {
        // The cache leaves out what tables and tree views manage; their count may read 0.
        let manages = nodes.get(path).is_some_and(|x| {
            x.states.contains(&"manages-descendants")
                || matches!(x.role.as_str(), "table" | "tree table" | "tree" | "list")
        });
        if (*n > 0 || manages) && nodes.get(path).is_some_and(|x| x.children.is_empty()) {
            missing.push(path.clone());
        }
    }
    // Tables and tree views manage their descendants: walk them (bounded), a level at a time.
    // The children lists of a level's containers, and then the four reads of every child, go
    // out together: the bus pipelines them, so a level costs a few round trips, not five a child.
    let mut budget = 2000usize;
    while !missing.is_empty() && budget > 0 {
        let level = std::mem::take(&mut missing);
        let lists = futures_util::future::join_all(level.iter().map(|path| async move {
            let o = object(instance, path)?;
            let acc = proxy(conn, &o).await?;
            Ok::<_, DesktopError>(timed(acc.get_children()).await.ok())
        }))
        .await;
        let mut children: Vec<(&String, ObjectRefOwned)> = Vec::new();
        for (path, kids) in level.iter().zip(lists) {
            let Some(kids) = kids? else { continue };
            *calls += 1;
            let kids: Vec<ObjectRefOwned> = kids.into_iter().take(budget).collect();
            budget = budget.saturating_sub(kids.len());
            // A container that turns out empty still gets its (empty) list.
            if let Some(p) = nodes.get_mut(path.as_str()) {
                p.children.clear();
            }
            children.extend(kids.into_iter().map(|k| (path, k)));
        }
        for batch in children.chunks(READ_BATCH) {
            let read = batch.iter().map(|(_, k)| read_node(conn, k));
            let read = futures_util::future::join_all(read).await;
            for ((parent, _), node) in batch.iter().zip(read) {
                let Some((node, count)) = node? else {
                    continue;
                };
                *calls += 4;
                if count > 0 && !nodes.contains_key(&node.path) {
                    missing.push(node.path.clone());
                }
                let path = node.path.clone();
                nodes.entry(path.clone()).or_insert(node);
                if let Some(p) = nodes.get_mut(parent.as_str()) {
                    p.children.push(path);
                }
            }
        }
    }
    Ok(nodes)
}

/// How many children are read at once.
const READ_BATCH: usize = 256;

/// One child's role, states, interfaces, and (in one `Properties.GetAll`) its name and child
/// count, read at once: four calls; `None` when any failed (the child went away meanwhile).
async fn read_node(conn: &Conn, k: &ObjectRefOwned) -> DesktopResult<Option<(Node, i32)>> {
    let acc = proxy(conn, k).await?;
    let props = zbus::fdo::PropertiesProxy::builder(conn.a11y.connection())
        .destination(k.name_as_str().unwrap_or_default().to_string())
        .and_then(|b| b.path(k.path_as_str().to_string()))
        .map_err(refused)?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(refused)?;
    let accessible = zbus::names::InterfaceName::from_static_str_unchecked(ACCESSIBLE);
    let (role, all, states, ifaces) = tokio::join!(
        timed(acc.get_role()),
        timed(async { props.get_all(accessible).await.map_err(zbus::Error::from) }),
        timed(acc.get_state()),
        timed(acc.get_interfaces()),
    );
    let (Ok(role), Ok(all), Ok(states), Ok(ifaces)) = (role, all, states, ifaces) else {
        return Ok(None);
    };
    let name = all
        .get("Name")
        .and_then(|v| <&str>::try_from(&**v).ok())
        .unwrap_or_default()
        .to_string();
    let count = all
        .get("ChildCount")
        .and_then(|v| i32::try_from(&**v).ok())
        .unwrap_or(0);
    let node = Node {
        path: k.path_as_str().to_string(),
        role: role.name().to_string(),
        name,
        states: state_names(states),
        ifaces: iface_names(ifaces),
        children: Vec::new(),
    };
    Ok(Some((node, count)))
}

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";

/// Observe one window (and its app's modal dialog) as one page of eval elements.
pub(crate) async fn observe(
    conn: &Conn,
    window: &WindowRef,
    page: Page,
    revision: u64,
) -> DesktopResult<DesktopObservation> {
    let mut calls = 0u32;
    let nodes = read_app(conn, &window.instance, &mut calls).await?;
    let Some(win) = nodes.get(&window.window) else {
        return Err(DesktopError::Stale(format!(
            "the window \"{}\" is gone",
            window.title
        )));
    };
    // The app's modal dialog: a top-level sibling of the window that is modal and showing.
    let root = "/org/a11y/atspi/accessible/root";
    let dialog_node = nodes.get(root).and_then(|r| {
        r.children.iter().filter_map(|c| nodes.get(c)).find(|n| {
            n.path != win.path
                && translate::window_kind(&n.role).is_some_and(|k| k != "window")
                && n.states.contains(&"showing")
        })
    });
    let mut flat: Vec<(&Node, String)> = Vec::new();
    if let Some(d) = dialog_node {
        walk(&nodes, d, &d.name, &mut flat);
    }
    walk(&nodes, win, &win.name, &mut flat);
    let dialog = dialog_node.map(|d| Dialog {
        title: d.name.clone(),
        kind: translate::window_kind(&d.role)
            .unwrap_or("dialog")
            .to_string(),
        text: flat
            .iter()
            .filter(|(n, ctx)| ctx == &d.name && !n.name.trim().is_empty())
            .map(|(n, _)| translate::label(&n.name))
            .collect::<Vec<_>>()
            .join(" | "),
    });

    // Elements with labels counted for ordinals.
    let mut elements = Vec::new();
    let mut handles = BTreeMap::new();
    let mut seen: HashMap<(String, String), u32> = HashMap::new();
    let mut all: Vec<(Element, Handle)> = Vec::new();
    for (n, context) in &flat {
        let Some(role) = translate::role(&n.role) else {
            continue;
        };
        let supports = translate::supports(n.ifaces.iter().map(String::as_str));
        let actionable = supports.iter().any(|s| s == "activate" || s == "edit");
        let label = translate::label(&n.name);
        let key = (role.to_string(), label.clone());
        let ordinal = {
            let c = seen.entry(key).or_insert(0);
            *c += 1;
            *c
        };
        let id = format!("d{}", all.len() + 1);
        let element = Element {
            id: id.clone(),
            role: role.to_string(),
            label: label.clone(),
            context: translate::label(context),
            states: translate::states(n.states.iter().copied(), actionable),
            ordinal: Some(ordinal),
            ..Element::default()
        };
        let handle = Handle {
            generation: conn.id.generation,
            revision,
            instance: window.instance.clone(),
            object: n.path.clone(),
            role: role.to_string(),
            label,
            ordinal,
            supports,
        };
        all.push((element, handle));
    }
    let totals: HashMap<(String, String), u32> = seen;
    let pages = all.len().div_ceil(page.size.max(1)).max(1);
    let start = page.index.saturating_mul(page.size);
    for (mut e, h) in all.into_iter().skip(start).take(page.size) {
        let of = totals
            .get(&(e.role.clone(), e.label.clone()))
            .copied()
            .unwrap_or(1);
        if of > 1 {
            e.of = Some(of);
        } else {
            e.ordinal = None;
        }
        if e.role == "textbox" && h.supports.iter().any(|s| s == "text") {
            e.value = text_of(conn, &h.instance, &h.object).await.ok();
            calls += 3;
        }
        handles.insert(e.id.clone(), h);
        elements.push(e);
    }
    let focused = elements
        .iter()
        .find(|e| e.has_state("focused"))
        .map(|e| e.id.clone());
    Ok(DesktopObservation {
        window: window.clone(),
        revision,
        focused,
        dialog,
        observation: Observation {
            surface: Surface::Desktop,
            app: window.app.clone(),
            title: window.title.clone(),
            url: String::new(),
            elements,
            ..Observation::default()
        },
        handles,
        page,
        pages,
        calls,
    })
}

/// Depth-first, in child order; hidden subtrees are skipped except menus (reachable by action).
fn walk<'n>(
    nodes: &'n HashMap<String, Node>,
    n: &'n Node,
    context: &str,
    out: &mut Vec<(&'n Node, String)>,
) {
    let showing = n.states.contains(&"showing") || n.states.contains(&"visible");
    let menu = n.role.starts_with("menu");
    if !showing && !menu {
        return;
    }
    if n.states.contains(&"defunct") {
        return;
    }
    out.push((n, context.to_string()));
    // Context for what is inside: the nearest named container (a menu, a row, a dialog).
    let inner = if !n.name.trim().is_empty()
        && matches!(
            n.role.as_str(),
            "menu"
                | "table cell"
                | "list item"
                | "tree item"
                | "alert"
                | "dialog"
                | "file chooser"
                | "frame"
                | "page tab"
        ) {
        n.name.as_str()
    } else {
        context
    };
    for c in &n.children {
        if let Some(child) = nodes.get(c) {
            walk(nodes, child, inner, out);
        }
    }
}

/// The whole text of a Text element.
pub(crate) async fn text_of(conn: &Conn, instance: &str, path: &str) -> DesktopResult<String> {
    let o = object(instance, path)?;
    let acc = proxy(conn, &o).await?;
    let text = acc
        .proxies()
        .await
        .map_err(refused)?
        .text()
        .await
        .map_err(refused)?;
    timed(text.get_text(0, -1)).await.map_err(lost)
}

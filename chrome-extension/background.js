// Circe service worker: holds the one native-messaging port to the `circe` host, answers the
// daemon's commands (ping, tabs, observe, act) and reports tab/debugger events.
// Protocol: docs/protocol.md, section "Browser connector".
'use strict';
importScripts('lib/core.js');
const C = self.CirceCore;

const HOST = 'com.circe.connector';
const PROTOCOL = 1;
const MAX_ELEMENTS = 200;
const TEXT_MAX = 5000;
const DEFAULT_TIMEOUT_MS = 2000;
const POLL_MS = 25;
const DETACH_IDLE_MS = 60000;
const SETTLE_MAX_MS = 250;
const ACTIONS = ['click', 'type', 'select', 'check', 'uncheck', 'press', 'upload', 'scroll', 'back', 'open', 'switchTab', 'close', 'reload'];
/** How long a navigation (open, reload) waits for its page to load, unless `loadMs` says. */
const LOAD_MS = 3000;

class CirceError extends Error {
  constructor(code, message, extra) {
    super(message);
    this.code = code;
    this.extra = extra || {};
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Date.now();

// ---------------------------------------------------------------------------------------------
// Profile (id created once, label user-editable) and connection state for the popup.
// ---------------------------------------------------------------------------------------------
let profilePromise = null;
function getProfile() {
  if (!profilePromise) {
    profilePromise = (async () => {
      const s = await chrome.storage.local.get(['profileId', 'profileLabel']);
      let id = s.profileId;
      if (!id) {
        id = crypto.randomUUID();
        await chrome.storage.local.set({ profileId: id });
      }
      const label = (typeof s.profileLabel === 'string' && s.profileLabel.trim()) || 'Chrome';
      return { id, label };
    })().catch((e) => { profilePromise = null; throw e; });
  }
  return profilePromise;
}

let connState = { port: 'disconnected', daemon: 'unknown', lastError: null, since: now(), attempt: 0 };
function setConn(patch) {
  connState = { ...connState, ...patch };
  chrome.storage.session.set({ conn: connState }).catch(() => {});
}

function appName() {
  const brands = (navigator.userAgentData && navigator.userAgentData.brands) || [];
  if (brands.some((b) => /Google Chrome/.test(b.brand))) return 'Chrome';
  if (brands.some((b) => /Microsoft Edge/.test(b.brand))) return 'Edge';
  return 'Chromium';
}

async function helloFrame() {
  const profile = await getProfile();
  return {
    type: 'hello', protocol: PROTOCOL, extensionId: chrome.runtime.id,
    extensionVersion: chrome.runtime.getManifest().version, profile, userAgent: navigator.userAgent,
  };
}

// ---------------------------------------------------------------------------------------------
// The native port: one, long-lived, reconnected with exponential backoff.
// ---------------------------------------------------------------------------------------------
let port = null;
let connecting = false;
let reconnectTimer = null;
let stableTimer = null;
const RECONNECT_ALARM = 'circe-reconnect';

async function readBackoff() {
  const s = await chrome.storage.session.get('backoff').catch(() => ({}));
  return s.backoff || { attempt: 0, nextAt: 0 };
}
function writeBackoff(b) {
  return chrome.storage.session.set({ backoff: b }).catch(() => {});
}

async function connect(reason) {
  if (port || connecting) return;
  connecting = true;
  try {
    const b = await readBackoff();
    if (reason !== 'scheduled' && now() < b.nextAt) {
      scheduleReconnect(b.nextAt - now(), b.attempt, false);
      return;
    }
    const hello = await helloFrame();
    let p;
    try {
      p = chrome.runtime.connectNative(HOST);
    } catch (e) {
      setConn({ port: 'disconnected', lastError: String(e.message || e) });
      await backoffAfterFailure();
      return;
    }
    port = p;
    // "connected" once the host has spoken or survived a second (a missing or crashing host
    // disconnects within milliseconds).
    setConn({ port: 'connecting', daemon: 'unknown', lastError: null, since: now() });
    const upTimer = setTimeout(() => { if (port === p && connState.port === 'connecting') setConn({ port: 'connected' }); }, 1000);
    p.onMessage.addListener(() => { clearTimeout(upTimer); if (port === p && connState.port !== 'connected') setConn({ port: 'connected' }); });
    p.onMessage.addListener((msg) => onPortMessage(p, msg));
    p.onDisconnect.addListener(() => onPortDisconnect(p));
    post(hello);
    clearTimeout(stableTimer);
    // A port that stays up for 5 s is a working host: reset the backoff.
    stableTimer = setTimeout(() => { if (port === p) writeBackoff({ attempt: 0, nextAt: 0 }); }, 5000);
    console.log('[circe] native port opened (' + reason + ')');
  } finally {
    connecting = false;
  }
}

async function backoffAfterFailure() {
  const b = await readBackoff();
  const delay = C.backoffDelay(b.attempt);
  scheduleReconnect(delay, b.attempt + 1, true);
}

function scheduleReconnect(delay, attempt, persist) {
  clearTimeout(reconnectTimer);
  if (persist) writeBackoff({ attempt, nextAt: now() + delay });
  setConn({ attempt });
  // setTimeout only while the worker is sure to live (it stops ~30 s after the port is gone);
  // an alarm backs it up and covers the longer delays.
  if (delay <= 25000) reconnectTimer = setTimeout(() => connect('scheduled'), delay);
  chrome.alarms.create(RECONNECT_ALARM, { when: now() + Math.max(delay, 30000) });
}

function onPortDisconnect(p) {
  const err = chrome.runtime.lastError ? chrome.runtime.lastError.message : null;
  if (port !== p) return;
  port = null;
  clearTimeout(stableTimer);
  console.log('[circe] native port closed:', err);
  setConn({ port: 'disconnected', daemon: 'unknown', lastError: err, since: now() });
  resetConnectionState();
  backoffAfterFailure();
}

function post(msg) {
  if (!port) return false;
  try {
    port.postMessage(msg);
    return true;
  } catch (e) {
    console.log('[circe] post failed', String(e));
    return false;
  }
}

function sendEvent(event, fields) {
  post({ type: 'event', event, ...fields });
}

async function onPortMessage(p, msg) {
  if (port !== p || !msg || typeof msg !== 'object') return;
  if (msg.type === 'status') {
    const was = connState.daemon;
    setConn({ daemon: msg.daemon === 'connected' ? 'connected' : 'disconnected' });
    if (msg.daemon === 'connected' && was !== 'connected') {
      // A (re)connected daemon is a new peer: it gets a hello, and old refs are void.
      if (was === 'disconnected') resetConnectionState();
      post(await helloFrame());
    }
    return;
  }
  if (msg.type !== 'command') return;
  const id = msg.id;
  try {
    const result = await runCommand(msg.cmd, msg.args || {});
    if (port === p) post({ type: 'reply', id, ok: true, result });
  } catch (e) {
    const error = toWireError(e);
    if (port === p) post({ type: 'reply', id, ok: false, error });
  }
}

function toWireError(e) {
  if (e instanceof CirceError) {
    const out = { code: e.code, message: e.message };
    if (e.extra.observation) out.observation = e.extra.observation;
    return out;
  }
  console.log('[circe] internal error', e && e.stack);
  return { code: 'internal', message: String((e && e.message) || e) };
}

chrome.alarms.onAlarm.addListener((a) => { if (a.name === RECONNECT_ALARM && !port) connect('scheduled'); });
chrome.runtime.onStartup.addListener(() => connect('startup'));
chrome.runtime.onInstalled.addListener(() => connect('installed'));
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes.profileLabel) {
    profilePromise = null;
    helloFrame().then((h) => post(h));
  }
});
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  // Content scripts and the popup wake the worker; a worker without a port reconnects.
  if (msg && msg.popup === 'reconnect') {
    writeBackoff({ attempt: 0, nextAt: 0 }).then(() => connect('popup'));
    sendResponse({ ok: true });
    return false;
  }
  if (!port) connect('wake');
  return false;
});

// ---------------------------------------------------------------------------------------------
// Refs: "r41", unique for the connection, bound to tab, frame, document, role and label.
// ---------------------------------------------------------------------------------------------
let refCounter = 0;
let generation = 0;
let refs = new Map();      // ref -> record
let refIndex = new Map();  // tab|doc|key|role|label -> ref
const frameParents = new Map(); // tabId -> Map(frameId -> parentFrameId)

function resetConnectionState() {
  refs = new Map();
  refIndex = new Map();
}

function refFor(rec) {
  const k = [rec.tabId, rec.documentId, rec.key, rec.role, rec.label].join('|');
  let ref = refIndex.get(k);
  if (!ref) {
    ref = 'r' + (++refCounter);
    refIndex.set(k, ref);
    if (refIndex.size > 50000) { // bound memory on very long sessions
      const [oldK, oldRef] = refIndex.entries().next().value;
      refIndex.delete(oldK);
      refs.delete(oldRef);
    }
  }
  refs.set(ref, rec);
  return ref;
}

function dropTabRefs(tabId) {
  for (const [k, ref] of refIndex) {
    if (k.startsWith(tabId + '|')) { refIndex.delete(k); refs.delete(ref); }
  }
}

// ---------------------------------------------------------------------------------------------
// Per-tab page history (for "back"), kept in chrome.storage.session across worker restarts.
// ---------------------------------------------------------------------------------------------
const histories = new Map();
const pendingBack = new Map();
let historyLoaded = chrome.storage.session.get('histories').then((s) => {
  for (const [k, v] of Object.entries(s.histories || {})) histories.set(Number(k), v);
}).catch(() => {});

function saveHistories() {
  const o = {};
  for (const [k, v] of histories) o[k] = v;
  chrome.storage.session.set({ histories: o }).catch(() => {});
}

async function recordNavigation(tabId, url) {
  await historyLoaded;
  const pend = pendingBack.get(tabId);
  if (pend && C.urlMatches(url, pend)) {
    pendingBack.delete(tabId); // our own "back": the stack already ends with it
    return;
  }
  if (!/^(https?|file):/i.test(url)) return; // blank and internal pages are not places to go back to
  histories.set(tabId, C.historyPush(histories.get(tabId), url));
  saveHistories();
}

// ---------------------------------------------------------------------------------------------
// Tab, navigation and debugger events.
// ---------------------------------------------------------------------------------------------
const guards = new Map(); // tabId -> Set(guard)

function abortTab(tabId, code, message) {
  const set = guards.get(tabId);
  if (!set) return;
  for (const g of set) g.abort(new CirceError(code, message));
}

chrome.tabs.onRemoved.addListener((tabId) => {
  sendEvent('tabRemoved', { tabId });
  abortTab(tabId, 'target_closed', 'the tab was closed');
  attached.delete(tabId);
  axTabs.delete(tabId);
  axRefused.delete(tabId);
  histories.delete(tabId);
  pendingBack.delete(tabId);
  frameParents.delete(tabId);
  dropTabRefs(tabId);
  saveHistories();
});
chrome.tabs.onUpdated.addListener((tabId, info, tab) => {
  if (info.url) {
    recordNavigation(tabId, info.url);
    sendEvent('navigated', { tabId, url: info.url });
  }
});
chrome.tabs.onActivated.addListener((info) => sendEvent('tabActivated', { tabId: info.tabId }));
// Tabs opened by a page (target=_blank links, window.open): an act's effect can be a new tab.
const openedBy = new Map(); // openerTabId -> [{tabId, at}]
chrome.tabs.onCreated.addListener((t) => {
  if (t.openerTabId == null) return;
  const list = (openedBy.get(t.openerTabId) || []).filter((x) => now() - x.at < 60000);
  list.push({ tabId: t.id, at: now() });
  openedBy.set(t.openerTabId, list);
});
function tabOpenedSince(tabId, since) {
  const hit = (openedBy.get(tabId) || []).find((x) => x.at >= since);
  return hit ? hit.tabId : null;
}
chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId == null) return;
  const a = attached.get(source.tabId);
  if (a) clearTimeout(a.idleTimer);
  attached.delete(source.tabId);
  axTabs.delete(source.tabId);
  // The user's "no": observations of this tab read names from the DOM until an act attaches again.
  if (reason === 'canceled_by_user') axRefused.set(source.tabId, 'the user cancelled debugging of this tab');
  sendEvent('debuggerDetached', { tabId: source.tabId, reason });
  if (reason === 'canceled_by_user') abortTab(source.tabId, 'debugger_detached', 'the user cancelled debugging of this tab');
  else if (reason === 'target_closed') abortTab(source.tabId, 'target_closed', 'the tab went away');
  else abortTab(source.tabId, 'debugger_detached', 'the debugger was detached: ' + reason);
});

// Seed histories with the tabs that are open when the worker starts.
chrome.tabs.query({}).then(async (tabs) => {
  await historyLoaded;
  for (const t of tabs) if (t.url && /^(https?|file):/i.test(t.url) && !histories.get(t.id)) histories.set(t.id, [t.url]);
  saveHistories();
}).catch(() => {});

// ---------------------------------------------------------------------------------------------
// chrome.debugger: attach while acting, detach after a quiet period (the infobar goes away).
// ---------------------------------------------------------------------------------------------
const attached = new Map(); // tabId -> {idleTimer}

async function ensureAttached(tabId, preHeight) {
  const a = attached.get(tabId);
  if (a) { clearTimeout(a.idleTimer); return false; }
  if (attaching.has(tabId)) { await attaching.get(tabId); return false; }
  const p = attachNow(tabId, preHeight);
  attaching.set(tabId, p);
  try { await p; } finally { attaching.delete(tabId); }
  return true;
}
const attaching = new Map();

async function attachNow(tabId, preHeight) {
  const otherAttached = attached.size > 0;
  try {
    await chrome.debugger.attach({ tabId }, '1.3');
  } catch (e) {
    const m = String(e.message || e);
    if (/already attached/i.test(m)) {
      // Ours from a previous worker life, or another client (DevTools).
      try { await chrome.debugger.detach({ tabId }); await chrome.debugger.attach({ tabId }, '1.3'); } catch (e2) {
        throw new CirceError('debugger_unavailable', String(e2.message || e2));
      }
    } else if (/No tab with given id/i.test(m)) {
      throw new CirceError('target_closed', 'the tab was closed');
    } else {
      throw new CirceError('debugger_unavailable', m);
    }
  }
  attached.set(tabId, { idleTimer: null, at: now(), preHeight, otherAttached, settled: false });
  axRefused.delete(tabId);
}

function scheduleDetach(tabId) {
  const a = attached.get(tabId);
  if (!a) return;
  clearTimeout(a.idleTimer);
  a.idleTimer = setTimeout(() => {
    if (attached.get(tabId) !== a) return;
    attached.delete(tabId);
    axTabs.delete(tabId);
    chrome.debugger.detach({ tabId }).catch(() => {});
  }, DETACH_IDLE_MS);
}

const cdp = (tabId, method, params) => chrome.debugger.sendCommand({ tabId }, method, params || {});

// ---------------------------------------------------------------------------------------------
// Names from Chrome's accessibility tree. While the debugger is attached to a tab, every frame's
// Circe content script (the extension's isolated world, one execution context per document) is
// reachable through the DevTools protocol; out-of-process frames are their own targets, attached
// with Target.setAutoAttach (flatten) and addressed by sessionId.
// ---------------------------------------------------------------------------------------------
const AX_LISTENER_MAX = 60; // new click-listener nodes resolved per document and observation
// No step of the names may hold the observation up: a page whose renderer hangs or crashes never
// answers a CDP call. After this, what is not there yet keeps the DOM's reading.
const AX_STEP_MS = 1500;
const axTabs = new Map();    // tabId -> {sessions: Map(sessionId|'' -> session)}
const axRefused = new Map(); // tabId -> why the debugger is not used for names there
const OWN_ORIGIN = 'chrome-extension://' + chrome.runtime.id;

function axTarget(tabId, s) {
  return s.sessionId ? { tabId, sessionId: s.sessionId } : { tabId };
}

function axSession(tabId, t, sessionId) {
  // contexts: our isolated worlds in this target (contextId -> cdp frame id);
  // docs: per context, the document's object and the listener nodes already resolved.
  // mains: the page's own (main world) context per cdp frame id.
  const s = { sessionId, contexts: new Map(), mains: new Map(), docs: new Map() };
  t.sessions.set(sessionId || '', s);
  const send = (m, p) => chrome.debugger.sendCommand(axTarget(tabId, s), m, p || {});
  s.ready = (async () => {
    await send('Runtime.enable');
    await send('Accessibility.enable');
    await send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }).catch(() => {});
  })();
  s.ready.catch(() => {});
  return s;
}

chrome.debugger.onEvent.addListener((source, method, params) => {
  const t = source.tabId != null ? axTabs.get(source.tabId) : null;
  if (!t) return;
  const s = t.sessions.get(source.sessionId || '');
  switch (method) {
    case 'Runtime.executionContextCreated': {
      const c = params.context;
      if (s && c.origin === OWN_ORIGIN && c.auxData && c.auxData.type === 'isolated') s.contexts.set(c.id, c.auxData.frameId);
      if (s && c.auxData && c.auxData.isDefault) s.mains.set(c.auxData.frameId, c.id);
      break;
    }
    case 'Runtime.executionContextDestroyed':
      if (s) {
        s.contexts.delete(params.executionContextId);
        s.docs.delete(params.executionContextId);
        for (const [f, id] of s.mains) if (id === params.executionContextId) s.mains.delete(f);
      }
      break;
    case 'Runtime.executionContextsCleared':
      if (s) { s.contexts.clear(); s.mains.clear(); s.docs.clear(); }
      break;
    case 'Target.attachedToTarget':
      if (params.targetInfo && params.targetInfo.type === 'iframe') axSession(source.tabId, t, params.sessionId);
      else chrome.debugger.sendCommand(source, 'Target.detachFromTarget', { sessionId: params.sessionId }).catch(() => {});
      break;
    case 'Target.detachedFromTarget':
      t.sessions.delete(params.sessionId);
      break;
    default:
  }
});

/**
 * Attach the debugger for names (or reuse the attachment), once per tab. Returns the tab's
 * sessions, or {reason} when names must come from the DOM. Never throws.
 */
async function axReady(tabId) {
  if (axRefused.has(tabId)) return { reason: axRefused.get(tabId) };
  let preHeight = null;
  if (!attached.has(tabId)) {
    const alive = await toFrame(tabId, 0, { cmd: 'alive' }, 500).catch(() => null);
    preHeight = alive && alive.height ? alive.height : null;
  }
  let fresh;
  try {
    fresh = await ensureAttached(tabId, preHeight);
  } catch (e) {
    return { reason: 'the debugger could not attach: ' + String((e && e.message) || e) };
  }
  let t = axTabs.get(tabId);
  if (!t) {
    t = { sessions: new Map() };
    axTabs.set(tabId, t);
    axSession(tabId, t, '');
  }
  try {
    // Child sessions may attach while the first ones get ready.
    for (let i = 0; i < 3; i++) {
      const all = [...t.sessions.values()];
      const r = await withTimeout(Promise.all(all.map((s) => s.ready)), AX_STEP_MS);
      if (r && r.timeout) return { reason: 'the accessibility tree did not answer in time' };
      if (t.sessions.size === all.length) break;
    }
  } catch (e) {
    return { reason: 'the accessibility tree is not available: ' + String((e && e.message) || e) };
  }
  if (fresh) await settleInfobar(tabId, preHeight);
  return { t };
}

/** After a fresh attach, wait (once, at most SETTLE_MAX_MS) for the infobar's viewport shrink. */
async function settleInfobar(tabId, preHeight) {
  const info = attached.get(tabId);
  if (!info || info.settled) return;
  if (info.otherAttached || infobarShrinks === false || preHeight == null) { info.settled = true; return; }
  let h = preHeight;
  while (now() - info.at < SETTLE_MAX_MS) {
    const r = await toFrame(tabId, 0, { cmd: 'alive' }, 300).catch(() => null);
    if (r && r.height) h = r.height;
    if (h !== preHeight) break;
    await sleep(10);
  }
  info.settled = true;
  infobarShrinks = h !== preHeight;
}

/** Every (session, context) pair of our content scripts in the tab. */
function axContexts(tabId, t) {
  const out = [];
  for (const s of t.sessions.values()) {
    for (const [contextId, frameId] of s.contexts) {
      out.push({ s, contextId, frameId, send: (m, p) => chrome.debugger.sendCommand(axTarget(tabId, s), m, p || {}) });
    }
  }
  return out;
}

/** Has every document in the tab had its click listeners read at least once? */
function axDocsKnown(tabId, t) {
  return axContexts(tabId, t).every(({ s, contextId }) => s.docs.has(contextId));
}

/**
 * Click listeners (DOMDebugger.getEventListeners over the whole document, shadow roots
 * included): mark the nodes that have one, so the scan takes script-made buttons and links.
 * New nodes only, at most AX_LISTENER_MAX per document and observation.
 */
async function axMarkListeners(tabId, t) {
  await Promise.all(axContexts(tabId, t).map(async ({ s, contextId, frameId, send }) => {
    try {
      let doc = s.docs.get(contextId);
      if (!doc) {
        // The document as the page's own world sees it: asking for the listeners through the
        // isolated world's document object crashed the renderer on the second call (Chromium 156).
        const main = s.mains.get(frameId);
        if (main == null) return;
        const r = await send('Runtime.evaluate', { expression: 'document', contextId: main, objectGroup: 'circe-doc' });
        if (!r.result || !r.result.objectId) return;
        doc = { objectId: r.result.objectId, seen: new Set() };
        s.docs.set(contextId, doc);
      }
      const li = await send('DOMDebugger.getEventListeners', { objectId: doc.objectId, depth: -1, pierce: true });
      const nodes = C.clickListenerNodes(li.listeners, doc.seen, AX_LISTENER_MAX);
      if (!nodes.length) return;
      for (const n of nodes) doc.seen.add(n.backendNodeId);
      const objs = await Promise.all(nodes.map((n) => send('DOM.resolveNode', { backendNodeId: n.backendNodeId, executionContextId: contextId, objectGroup: 'circe-mark-' + contextId })
        .then((r) => r.object, () => null)));
      const args = [], nav = [];
      objs.forEach((o, i) => { if (o && o.objectId && o.subtype === 'node') { args.push({ objectId: o.objectId }); nav.push(nodes[i].navigates); } });
      if (args.length) {
        await send('Runtime.callFunctionOn', { executionContextId: contextId, arguments: [{ value: nav }, ...args],
          functionDeclaration: 'function (nav, ...els) { return self.__circe ? self.__circe.markClickable(nav, els) : 0; }' }).catch(() => {});
      }
      send('Runtime.releaseObjectGroup', { objectGroup: 'circe-mark-' + contextId }).catch(() => {});
    } catch (_) {
      // A document going away mid-way: its elements keep the DOM's reading.
    }
  }));
}

/**
 * The accessibility-tree entries of the elements each frame's scan still lacks
 * (Accessibility.getPartialAXTree per element, all in flight at once). Fills `f.ax`
 * (key -> axSummary) on the scanned frames and hands the entries to the content script's cache.
 */
async function axLookup(tabId, t, frames) {
  const want = new Map();
  for (const f of frames) if (f.result.axPending && f.result.axPending.length) want.set(f.result.nonce, f);
  if (!want.size) return;
  await Promise.all(axContexts(tabId, t).map(async ({ contextId, send }) => {
    let arr = null;
    try {
      const r = await send('Runtime.evaluate', { expression: 'self.__circe ? self.__circe.axPending() : null', contextId, objectGroup: 'circe-ax-' + contextId });
      if (!r.result || !r.result.objectId) return;
      arr = r.result.objectId;
      const props = await send('Runtime.getProperties', { objectId: arr, ownProperties: true });
      const prop = (name) => { const p = props.result.find((x) => x.name === name); return p && p.value ? p.value.value : undefined; };
      const f = want.get(prop('nonce'));
      if (!f || prop('seq') !== f.result.seq) return; // another scan ran in between: keep the DOM's names
      const els = props.result.filter((p) => /^\d+$/.test(p.name)).sort((a, b) => a.name - b.name).map((p) => p.value.objectId);
      if (els.length !== f.result.axPending.length) return;
      const nodes = await Promise.all(els.map((objectId) => send('Accessibility.getPartialAXTree', { objectId, fetchRelatives: false })
        .then((x) => (x.nodes && x.nodes[0]) || null, () => null)));
      const summaries = nodes.map((n) => C.axSummary(n));
      f.ax = new Map(f.result.axPending.map((k, i) => [k, summaries[i]]));
      await send('Runtime.callFunctionOn', { objectId: arr, arguments: [{ value: summaries }],
        functionDeclaration: 'function (s) { return self.__circe.axStore(this, s); }' }).catch(() => {});
    } catch (_) {
      // The frame went away or navigated: its elements keep the DOM's names.
    } finally {
      if (arr) send('Runtime.releaseObjectGroup', { objectGroup: 'circe-ax-' + contextId }).catch(() => {});
    }
  }));
}

/** Apply the looked-up entries to a frame's scanned elements, noting where each name came from. */
function axMerge(f) {
  for (const e of f.result.elements) {
    const ax = f.ax ? f.ax.get(e.key) : undefined;
    if (!ax) {
      e.nameSource = e.ax ? 'ax' : 'dom'; // e.ax: the content script's cached entry
      continue;
    }
    const m = C.fromAX(ax, { role: e.role, label: e.label, description: e.description || '', states: e.states,
      focused: e.states.includes('focused'), handler: !!e.handler });
    e.role = m.role;
    e.label = m.label;
    if (m.description) e.description = m.description; else delete e.description;
    e.states = e.file && !m.states.includes('file') ? m.states.concat('file') : m.states;
    e.nameSource = 'ax';
  }
}

// ---------------------------------------------------------------------------------------------
// Talking to content scripts.
// ---------------------------------------------------------------------------------------------
function scriptable(url) {
  return /^(https?|file):/i.test(url || '') || /^about:blank/.test(url || '');
}

const NO_RECEIVER = /Receiving end does not exist|back\/forward cache|No frame with id|No document with id|message port closed|Frame with ID|Could not establish connection|document.*not found|Invalid document/i;

const MSG_TIMEOUT_MS = 1500;
function withTimeout(p, ms) {
  let t;
  return Promise.race([p, new Promise((resolve) => { t = setTimeout(() => resolve({ timeout: true }), ms); })])
    .finally(() => clearTimeout(t));
}

// A message to a document that went into the back/forward cache may never be answered: every
// content-script call has a deadline and then reports {timeout: true}.
function toDoc(tabId, documentId, msg, ms = MSG_TIMEOUT_MS) {
  return withTimeout(toDocRaw(tabId, documentId, msg), ms);
}
function toFrame(tabId, frameId, msg, ms = MSG_TIMEOUT_MS) {
  return withTimeout(toFrameRaw(tabId, frameId, msg), ms);
}

async function toDocRaw(tabId, documentId, msg) {
  let r;
  try {
    r = await chrome.tabs.sendMessage(tabId, { circe: 1, ...msg }, { documentId });
  } catch (e) {
    const m = String(e.message || e);
    if (/No tab with id/i.test(m)) throw new CirceError('target_closed', 'the tab was closed');
    if (NO_RECEIVER.test(m)) return { gone: true, error: m };
    throw e;
  }
  if (!r) return { gone: true, error: 'no reply' };
  if (!r.ok) throw new Error('content script: ' + r.error);
  return r.result;
}

async function toFrameRaw(tabId, frameId, msg) {
  let r;
  try {
    r = await chrome.tabs.sendMessage(tabId, { circe: 1, ...msg }, { frameId });
  } catch (e) {
    const m = String(e.message || e);
    if (/No tab with id/i.test(m)) throw new CirceError('target_closed', 'the tab was closed');
    if (NO_RECEIVER.test(m)) return { gone: true, error: m };
    throw e;
  }
  if (!r) return { gone: true, error: 'no reply' };
  if (!r.ok) throw new Error('content script: ' + r.error);
  return r.result;
}

async function getTab(tabId) {
  try {
    return await chrome.tabs.get(tabId);
  } catch (_) {
    throw new CirceError('no_tab', `no tab ${tabId}`);
  }
}

/** The token of the top document's content script now (null: none answering). */
async function mainDocumentId(tabId) {
  const r = await toFrame(tabId, 0, { cmd: 'alive' }, 800);
  return r && r.docToken ? r.docToken : null;
}

async function injectAll(tabId) {
  try {
    await chrome.scripting.executeScript({ target: { tabId, allFrames: true }, files: ['lib/core.js', 'content.js'] });
  } catch (e) {
    console.log('[circe] inject failed', String(e.message || e));
  }
}

const injectedDocs = new Set();

async function scanFrames(tabId, ax) {
  const run = () => chrome.scripting.executeScript({
    target: { tabId, allFrames: true },
    func: (opts) => (self.__circe ? self.__circe.scan(opts) : null),
    args: [{ text: true, textMax: TEXT_MAX, ax }],
  });
  let rs;
  try {
    rs = await run();
  } catch (e) {
    const m = String(e.message || e);
    if (/No tab with id/i.test(m)) throw new CirceError('target_closed', 'the tab was closed');
    return { restricted: m };
  }
  const main = rs.find((r) => r.frameId === 0);
  const mainDoc = main ? main.documentId : null;
  if (rs.some((r) => r.result == null) && (!main || main.result == null || !injectedDocs.has(mainDoc))) {
    // Tabs that were open before the extension was (re)loaded have no content script yet
    // (nor do frames that loaded before document_idle). Once per top document.
    if (mainDoc) injectedDocs.add(mainDoc);
    if (injectedDocs.size > 500) injectedDocs.clear();
    await injectAll(tabId);
    try { rs = await run(); } catch (e) { return { restricted: String(e.message || e) }; }
  }
  return { frames: rs.filter((r) => r.result) };
}

// ---------------------------------------------------------------------------------------------
// observe
// ---------------------------------------------------------------------------------------------
async function defaultTabId() {
  let [t] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (!t) [t] = await chrome.tabs.query({ active: true });
  if (!t) throw new CirceError('no_tab', 'no active tab');
  return t.id;
}

function unmatchedFrames(frames) {
  const known = new Set();
  for (const f of frames) for (const k of f.result.frames) known.add(k.nonce);
  return frames.some((f) => f.frameId !== 0 && f.result.top === false && !known.has(f.result.nonce) && f.result.elements.length);
}

async function observeTab(tabId) {
  const t0 = performance.now();
  let tab = await getTab(tabId);
  if (tab.status === 'loading') {
    // Mid-navigation: give the page a moment to finish so the scan is not of a half-built DOM.
    await waitComplete(tabId, 1000);
    tab = await getTab(tabId);
  }
  const base = { surface: 'browser', app: appName(), title: tab.title || '', url: tab.url || tab.pendingUrl || '',
    tabId: tab.id, windowId: tab.windowId };
  if (!scriptable(tab.url)) {
    return { ...base, documentId: null, generation: ++generation, viewport: null, elements: [], covered: [],
      text: '', truncated: false, dropped: 0, restricted: true };
  }
  // Names from Chrome's accessibility tree when the debugger can be used; the DOM's otherwise.
  const tAx = performance.now();
  const ax = await axReady(tabId);
  // Attached for this observation (or already): detached after the quiet period, whatever follows.
  if (attached.has(tabId)) scheduleDetach(tabId);
  // Click listeners: before the first scan of a document (so its script-made controls are in
  // it); after that alongside the scan (new listener nodes join from the next observation).
  let marking = null;
  if (ax.t) {
    marking = withTimeout(axMarkListeners(tabId, ax.t), AX_STEP_MS);
    if (!axDocsKnown(tabId, ax.t)) { await marking; marking = null; }
  }
  const tScan = performance.now();
  let scanned = await scanFrames(tabId, !!ax.t);
  if (!scanned.restricted && scanned.frames.length > 1 && unmatchedFrames(scanned.frames)) {
    // A subframe's announcement had not reached its parent yet (first scan of a new frame).
    await sleep(30);
    scanned = await scanFrames(tabId, !!ax.t);
  }
  if (marking) await marking;
  const tLookup = performance.now();
  if (!scanned.restricted) {
    if (ax.t) await withTimeout(axLookup(tabId, ax.t, scanned.frames), AX_STEP_MS);
    for (const f of scanned.frames) axMerge(f);
  }
  const tMerged = performance.now();
  const axPendingCount = scanned.restricted ? 0 : scanned.frames.reduce((a, f) => a + ((f.result.axPending || []).length), 0);
  if (scanned.restricted) {
    return { ...base, documentId: null, generation: ++generation, viewport: null, elements: [], covered: [],
      text: '', truncated: false, dropped: 0, restricted: true, reason: scanned.restricted };
  }
  const byFrame = new Map(scanned.frames.map((f) => [f.frameId, f]));
  const byNonce = new Map(scanned.frames.map((f) => [f.result.nonce, f]));
  const main = byFrame.get(0);
  if (!main) throw new CirceError('no_tab', 'the tab has no scriptable main frame yet');
  const parents = new Map();
  const all = [];
  const covered = main.result.covered.map((c) => ({ ...c, frameId: 0, documentId: main.documentId }));
  const probes = []; // subframe elements to hit-test in the parent frame

  const emit = (f, offX, offY, clipRect) => {
    const r = f.result;
    const kids = [...r.frames].sort((a, b) => a.index - b.index);
    let ki = 0;
    const emitKid = (k) => {
      const child = byNonce.get(k.nonce);
      if (!child || child === f) return;
      parents.set(child.frameId, { parent: f.frameId, nonce: k.nonce });
      if (k.state === 'offscreen' || !k.clip) return;
      const kc = { left: k.clip.left + offX, top: k.clip.top + offY, right: k.clip.right + offX, bottom: k.clip.bottom + offY };
      const c = clipRect ? { left: Math.max(kc.left, clipRect.left), top: Math.max(kc.top, clipRect.top),
        right: Math.min(kc.right, clipRect.right), bottom: Math.min(kc.bottom, clipRect.bottom) } : kc;
      if (c.right <= c.left || c.bottom <= c.top) return;
      const start = all.length;
      emit(child, offX + k.offsetX, offY + k.offsetY, c);
      if (all.length > start) probes.push({ parentFrame: f, childFrameId: child.frameId, nonce: k.nonce, from: start, to: all.length, offX, offY });
      for (const cv of child.result.covered) covered.push({ ...cv, frameId: child.frameId, documentId: child.documentId });
    };
    r.elements.forEach((e, i) => {
      while (ki < kids.length && kids[ki].index <= i) emitKid(kids[ki++]);
      const x = e.x + offX, y = e.y + offY;
      if (clipRect && (x < clipRect.left || x >= clipRect.right || y < clipRect.top || y >= clipRect.bottom)) return;
      all.push({ e, frameId: f.frameId, documentId: f.documentId, x, y, localX: e.x, localY: e.y });
    });
    while (ki < kids.length) emitKid(kids[ki++]);
  };
  emit(main, 0, 0, null);
  frameParents.set(tabId, parents);

  // Subframe elements: the frame itself may sit under an overlay of its parent.
  const hidden = new Set();
  for (const p of probes) {
    const items = all.slice(p.from, p.to).filter((a) => a.frameId === p.childFrameId);
    if (!items.length) continue;
    const res = await toFrame(tabId, p.parentFrame.frameId, { cmd: 'frameOffset', nonce: p.nonce,
      points: items.map((a) => [a.localX, a.localY]) }).catch(() => null);
    if (!res || !res.points) continue;
    res.points.forEach((pt, i) => {
      if (pt.state === 'ok') return;
      hidden.add(items[i]);
      if (pt.state === 'covered' && covered.length < 50) covered.push({ ...items[i].e, by: pt.by.label, byRole: pt.by.role, frameId: items[i].frameId, documentId: items[i].documentId });
    });
  }
  const visible = all.filter((a) => !hidden.has(a));

  const elements = visible.map((a) => {
    const e = a.e;
    const rec = { tabId, frameId: a.frameId, documentId: a.documentId, key: e.key, role: e.role, label: e.label, bounds: e.bounds };
    const out = { id: refFor(rec), role: e.role, label: e.label, context: e.context };
    if (e.description) out.description = e.description;
    else if (e.hint && C.namesNothing(e.label)) out.description = e.hint; // an unnamed control's own words
    if (e.value !== undefined) out.value = e.value;
    if (e.options) out.options = e.options;
    if (e.destination) out.destination = e.destination;
    out.states = e.states;
    out.frameId = a.frameId;
    out.nameSource = e.nameSource;
    return out;
  });
  C.assignOrdinals(elements);
  // Field order as in the eval format: id, role, label, context, ordinal, of, value, states, frameId.
  const ordered = elements.map((e) => {
    const o = { id: e.id, role: e.role, label: e.label, context: e.context };
    if (e.ordinal) { o.ordinal = e.ordinal; o.of = e.of; }
    if (e.value !== undefined) o.value = e.value;
    o.states = e.states;
    if (e.description) o.description = e.description;
    if (e.options) o.options = e.options;
    if (e.destination) o.destination = e.destination;
    o.frameId = e.frameId;
    return o;
  });
  const kept = ordered.slice(0, MAX_ELEMENTS);
  const dropped = ordered.length - kept.length;
  // Where the kept elements' names came from.
  const fromAx = elements.slice(0, MAX_ELEMENTS).filter((e) => e.nameSource === 'ax').length;
  const fromDom = kept.length - fromAx;
  const names = !ax.t ? { source: 'dom', reason: ax.reason }
    : { source: fromDom === 0 ? 'accessibility' : (fromAx === 0 ? 'dom' : 'mixed'), fromAccessibility: fromAx, fromDom };
  if (ax.t && fromDom > 0) names.reason = 'some elements could not be looked up in the accessibility tree (a frame or element went away, or more than 200 in a frame)';
  return {
    ...base, title: main.result.title || base.title, url: main.result.url || base.url,
    documentId: main.documentId, generation: ++generation, viewport: main.result.viewport,
    elements: kept,
    // Covered elements get refs too: acting on one gives "blocked" naming what covers it.
    covered: covered.slice(0, 50).map((c) => ({
      id: refFor({ tabId, frameId: c.frameId, documentId: c.documentId, key: c.key, role: c.role, label: c.label }),
      label: c.label, role: c.role, by: c.by, context: c.context })),
    text: main.result.text || '', truncated: dropped > 0, dropped,
    textTruncated: !!main.result.textTruncated,
    scroll: main.result.scroll,
    names,
    unobserved: unobservedFrames(scanned.frames),
    timing: { scanMs: round1(main.result.scanMs), totalMs: round1(performance.now() - t0),
      axPending: axPendingCount, axPrepareMs: round1(tScan - tAx), framesMs: round1(tLookup - tScan), axLookupMs: round1(tMerged - tLookup),
      namesMs: round1((tScan - tAx) + (tMerged - tLookup) + sumScanMs(scanned.frames)),
      collectMs: round1(main.result.breakdown.collectMs), loopMs: round1(main.result.breakdown.loopMs),
      contextMs: round1(main.result.breakdown.contextMs), textMs: round1(main.result.breakdown.textMs) },
  };
}

const round1 = (x) => Math.round(x * 10) / 10;
const sumScanMs = (frames) => frames.reduce((a, f) => a + (f.result.scanMs || 0), 0);

/** Visible frames no Circe content script answered from: never silently missing. */
function unobservedFrames(frames) {
  const out = [];
  for (const f of frames) {
    for (const u of f.result.unannounced || []) {
      if (out.length >= 20) break;
      out.push({ url: u.url, title: u.title || undefined, frameOf: f.result.url,
        reason: u.state === 'covered' ? 'covered by another element, and its content could not be read'
          : 'no Circe content script answered in this frame (a page extensions may not script, or it was still loading)' });
    }
  }
  return out;
}

async function freshObservation(tabId) {
  try {
    return await observeTab(tabId);
  } catch (_) {
    return undefined;
  }
}

async function staleRef(tabId, message) {
  throw new CirceError('stale_ref', message, { observation: await freshObservation(tabId) });
}

// ---------------------------------------------------------------------------------------------
// act
// ---------------------------------------------------------------------------------------------
function makeGuard(tabId) {
  let rejectFn;
  const aborted = new Promise((_, rej) => { rejectFn = rej; });
  aborted.catch(() => {});
  const g = {
    error: null,
    abort(err) { if (!g.error) { g.error = err; rejectFn(err); } },
    run(p) { if (g.error) return Promise.reject(g.error); return Promise.race([p, aborted]); },
    release() { const s = guards.get(tabId); if (s) { s.delete(g); if (!s.size) guards.delete(tabId); } },
  };
  if (!guards.has(tabId)) guards.set(tabId, new Set());
  guards.get(tabId).add(g);
  return g;
}

function waitComplete(tabId, ms) {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); chrome.tabs.onUpdated.removeListener(l); resolve(); };
    const timer = setTimeout(done, ms);
    const l = (id, info) => { if (id === tabId && info.status === 'complete') done(); };
    chrome.tabs.onUpdated.addListener(l);
    chrome.tabs.get(tabId).then((t) => { if (t.status === 'complete') done(); }, done);
  });
}

/** Frame offset chain up to the top frame, plus a hit test of the point in every parent. */
async function toTopLevel(tabId, frameId, x, y) {
  let fx = x, fy = y, fid = frameId;
  const parents = frameParents.get(tabId) || new Map();
  while (fid !== 0) {
    const link = parents.get(fid);
    if (!link) return { state: 'offscreen' }; // frame not seen in the last observation
    const parent = link.parent;
    const r = await toFrame(tabId, parent, { cmd: 'frameOffset', nonce: link.nonce, points: [[fx, fy]] });
    if (!r || r.gone || r.missing || r.timeout) return { state: 'offscreen' };
    const pt = r.points[0];
    if (pt.state !== 'ok') return { state: pt.state, by: pt.by };
    fx += r.offsetX; fy += r.offsetY; fid = parent;
  }
  return { state: 'ok', x: fx, y: fy };
}

/** Chrome's documentId of the document now active in a frame (null: no such frame). */
async function currentDocumentId(tabId, frameId) {
  try {
    const rs = await withTimeout(chrome.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, func: () => 0 }), MSG_TIMEOUT_MS);
    if (rs && rs.timeout) return undefined;
    return rs && rs[0] ? rs[0].documentId : null;
  } catch (e) {
    if (/No tab with id/i.test(String(e.message || e))) throw new CirceError('target_closed', 'the tab was closed');
    return null;
  }
}

async function resolveRef(rec) {
  // A ref into a document that is no longer the frame's active one (navigated away, reloaded,
  // parked in the back/forward cache) is stale; never re-targeted.
  const cur = await currentDocumentId(rec.tabId, rec.frameId);
  if (cur === null) return { stale: 'the frame that element was in is gone' };
  if (cur !== undefined && cur !== rec.documentId) return { stale: 'the page that element was on has been replaced (navigation or reload)' };
  const r = await toDoc(rec.tabId, rec.documentId, { cmd: 'resolve', key: rec.key, role: rec.role, label: rec.label });
  if (r.gone) return { stale: 'the page that element was on is gone (navigation or reload)' };
  if (r.timeout) return { state: 'unresponsive' };
  return r;
}

/** Resolve, hit-test, and compute top-level viewport coordinates. */
async function locate(rec) {
  const r = await resolveRef(rec);
  if (r.stale) return r;
  if (r.state === 'ok' && rec.frameId !== 0) {
    const t = await toTopLevel(rec.tabId, rec.frameId, r.x, r.y);
    if (t.state !== 'ok') return { ...r, state: t.state, by: t.by };
    return { ...r, x: t.x, y: t.y };
  }
  return r;
}

// What we learned about the "… started debugging this browser" infobar in this browser session:
// null = not yet known, true = attaching shrinks the viewport, false = it does not (the
// --silent-debugger-extension-api switch or a policy).
let infobarShrinks = null;

async function settleAfterAttach(rec, info) {
  // The infobar shrinks the viewport (56 px) some 100-150 ms after attach: wait for that resize
  // and read the coordinates again. The bar is browser-wide, so with another tab already
  // attached there is nothing to wait for; once we know it never appears, neither.
  let r = await locate(rec);
  if (!info || info.settled) return r;
  if (info.otherAttached || infobarShrinks === false || info.preHeight == null) { info.settled = true; return r; }
  while (!r.stale && r.viewport && r.viewport.height === info.preHeight && now() - info.at < SETTLE_MAX_MS) {
    await sleep(10);
    r = await locate(rec);
  }
  if (!r.stale && r.viewport) {
    info.settled = true;
    infobarShrinks = r.viewport.height !== info.preHeight;
  }
  return r;
}

async function probeState(tabId, rec, token, mainDoc, since) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) throw new CirceError('target_closed', 'the tab was closed');
  const s = { url: tab.url, active: tab.active };
  if (since) {
    const opened = tabOpenedSince(tabId, since);
    if (opened != null) s.openedTab = opened;
  }
  if (mainDoc) {
    const alive = await toFrame(tabId, 0, { cmd: 'alive' }, 400);
    if (alive.gone || (alive.docToken && alive.docToken !== mainDoc)) s.mainDocumentGone = true;
  }
  if (rec && rec.frameId === 0 && s.mainDocumentGone) {
    s.documentGone = true; s.exists = false; s.visible = false;
  } else if (rec) {
    const p = await toDoc(tabId, rec.documentId, { cmd: 'probe', token }, 400);
    if (p.gone) { s.documentGone = true; s.exists = false; s.visible = false; }
    else if (p.timeout) s.unanswered = true;
    else Object.assign(s, p, { url: tab.url });
  } else if (token === 'scroll') {
    const p = await toFrame(tabId, 0, { cmd: 'scrollState' });
    if (!p.gone) { s.scrollX = p.scrollX; s.scrollY = p.scrollY; } else s.documentGone = true;
  }
  return s;
}

async function pollExpect(guard, tabId, rec, token, mainDoc, expect, before, deadline, extraCheck) {
  let last = null;
  const since = now();
  for (;;) {
    const after = await guard.run(probeState(tabId, rec, token, mainDoc, since - 100));
    const ev = C.evaluateExpect(expect, before, after);
    if (extraCheck) {
      const ok = extraCheck(after);
      ev.checks.url = ok;
      ev.met = ev.met && ok;
    }
    last = { after, ev };
    if (ev.met || now() >= deadline) return last;
    await guard.run(sleep(POLL_MS));
  }
}

async function dispatchClick(tabId, x, y) {
  await cdp(tabId, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none', buttons: 0 });
  await cdp(tabId, 'Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: 1 });
  await cdp(tabId, 'Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: 1 });
}

async function dispatchKey(tabId, k) {
  const base = { key: k.key, code: k.code, windowsVirtualKeyCode: k.windowsVirtualKeyCode,
    nativeVirtualKeyCode: k.nativeVirtualKeyCode, modifiers: k.modifiers };
  if (k.text) await cdp(tabId, 'Input.dispatchKeyEvent', { ...base, type: 'keyDown', text: k.text, unmodifiedText: k.text });
  else await cdp(tabId, 'Input.dispatchKeyEvent', { ...base, type: 'rawKeyDown' });
  await cdp(tabId, 'Input.dispatchKeyEvent', { ...base, type: 'keyUp' });
}

let tokenCounter = 0;

async function act(args) {
  const action = args.action;
  if (typeof action !== 'string') throw new CirceError('bad_args', 'act needs an action');
  if (!ACTIONS.includes(action)) throw new CirceError('unsupported', `unknown action "${action}"`);
  if (!Number.isInteger(args.tabId)) throw new CirceError('bad_args', 'act needs an integer tabId');
  const err = C.validateExpect(args.expect);
  if (err) throw new CirceError('bad_args', err);
  const expect = args.expect && Object.keys(args.expect).length ? args.expect : C.defaultExpect(action, args);
  let timeoutMs = args.timeoutMs == null ? DEFAULT_TIMEOUT_MS : Number(args.timeoutMs);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new CirceError('bad_args', 'timeoutMs must be a non-negative number');
  timeoutMs = Math.min(timeoutMs, 60000);
  const tabId = args.tabId;
  const tab = await getTab(tabId);
  if (action === 'close') {
    const t0c = now();
    const out = await actClose(tab, timeoutMs);
    out.evidence = { action, expect, ...out.evidence, elapsedMs: now() - t0c };
    return out;
  }
  const guard = makeGuard(tabId);
  const t0 = now();
  try {
    const out = await guard.run(doAct(guard, tab, action, args, expect, timeoutMs));
    out.evidence = { action, expect, ...out.evidence, elapsedMs: now() - t0 };
    return out;
  } catch (e) {
    if (!(e instanceof CirceError)) {
      const still = await chrome.tabs.get(tabId).catch(() => null);
      if (!still) throw new CirceError('target_closed', 'the tab was closed');
    }
    throw e;
  } finally {
    guard.release();
    scheduleDetach(tabId);
  }
}

function resultOf(kind, evidence, observation) {
  const r = { result: kind, evidence: evidence || {} };
  if (observation) r.observation = observation;
  return r;
}

async function finish(guard, tabId, kind, evidence, navigated, args) {
  if (args && args.observe === false) {
    // What Chrome shows in the tab (URL, loaded, error page), without reading the page's elements.
    const page = navigated ? await guard.run(waitLoaded(tabId, loadMsOf(args))) : await guard.run(pageState(tabId));
    if (evidence) { evidence.page = page; if (page.url) evidence.url = page.url; }
    return resultOf(kind, evidence);
  }
  if (navigated) await guard.run(waitComplete(tabId, 3000));
  const observation = await guard.run(freshObservation(tabId));
  if (navigated && observation && evidence) evidence.url = observation.url;
  return resultOf(kind, evidence, observation);
}

function loadMsOf(args) {
  const ms = Number(args && args.loadMs);
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, 60000) : LOAD_MS;
}

/**
 * What a tab shows now: {exists, tabId, url, title, status, active, loaded, errorPage?,
 * httpStatus?, documentId?}. `loaded`: the top document is parsed (not loading) and no other
 * navigation is pending; `errorPage`: Chrome shows its own error page (the site could not be
 * reached); `httpStatus`: the document's HTTP status when the page can tell.
 */
async function pageState(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) return { exists: false, tabId };
  const s = { exists: true, tabId, url: tab.url || tab.pendingUrl || '', title: tab.title || '', status: tab.status || '', active: !!tab.active, windowId: tab.windowId };
  if (!/^(https?|file):/i.test(s.url)) {
    s.loaded = !tab.pendingUrl && tab.status === 'complete';
    return s;
  }
  const r = await withTimeout(chrome.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    func: () => {
      const n = performance.getEntriesByType('navigation')[0];
      return { href: location.href, readyState: document.readyState, httpStatus: (n && n.responseStatus) || null, title: document.title };
    },
  }).then((rs) => ({ rs }), (e) => ({ error: String((e && e.message) || e) })), 800);
  if (r.timeout) { s.loaded = false; s.unanswered = true; return s; }
  if (r.error) {
    if (C.isErrorPage(r.error)) s.errorPage = true;
    else s.unreadable = r.error;
    s.loaded = false;
    return s;
  }
  const d = r.rs && r.rs[0] ? r.rs[0].result : null;
  if (r.rs && r.rs[0]) s.documentId = r.rs[0].documentId;
  Object.assign(s, C.loadedState(tab, d));
  // The document's own title: the tab's catches up a moment later.
  if (d && d.title && C.urlMatches(d.href, s.url)) s.title = d.title;
  return s;
}

/** Poll `pageState` until the page has loaded, shows an error, is gone, or `ms` passed. */
async function waitLoaded(tabId, ms) {
  const deadline = now() + ms;
  for (;;) {
    const s = await pageState(tabId);
    if (!s.exists || s.errorPage || s.loaded || now() >= deadline) return s;
    await sleep(POLL_MS);
  }
}

async function doAct(guard, tab, action, args, expect, timeoutMs) {
  const tabId = tab.id;
  switch (action) {
    case 'click': case 'type': case 'select': case 'check': case 'uncheck': case 'press': case 'upload':
      return actOnElement(guard, tab, action, args, expect, timeoutMs);
    case 'scroll': return actScroll(guard, tab, args, expect, timeoutMs);
    case 'back': return actBack(guard, tab, expect, timeoutMs);
    case 'open': return actOpen(guard, tab, args, expect, timeoutMs);
    case 'switchTab': {
      await chrome.tabs.update(tabId, { active: true });
      await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
      const deadline = now() + timeoutMs;
      const before = { url: tab.url, active: tab.active };
      const { after, ev } = await pollExpect(guard, tabId, null, null, null, expect, before, deadline);
      return finish(guard, tabId, ev.met ? 'applied' : 'unknown', { delivered: true, checks: ev.checks, url: after.url }, false, args);
    }
    case 'reload': return actReload(guard, tab, args, timeoutMs);
    default: throw new CirceError('unsupported', action);
  }
}

async function actOnElement(guard, tab, action, args, expect, timeoutMs) {
  const tabId = tab.id;
  if (action === 'press') {
    const k = C.keyEvent(args.key);
    if (!k) throw new CirceError('bad_args', `unknown key "${args.key}"`);
    if (args.ref == null) return pressUnfocused(guard, tab, k, expect, timeoutMs);
  }
  if (typeof args.ref !== 'string') throw new CirceError('bad_args', `${action} needs a ref`);
  if (action === 'type' && typeof args.text !== 'string') throw new CirceError('bad_args', 'type needs text');
  if (action === 'select' && typeof args.option !== 'string') throw new CirceError('bad_args', 'select needs option');
  if (action === 'upload' && !C.isAbsolutePath(args.path)) throw new CirceError('bad_args', 'upload needs the absolute path of a file');
  const rec = refs.get(args.ref);
  if (!rec) return staleRef(tabId, `unknown ref ${args.ref} (from an older connection or observation)`);
  if (rec.tabId !== tabId) throw new CirceError('bad_args', `ref ${args.ref} belongs to tab ${rec.tabId}, not ${tabId}`);

  let loc = await guard.run(locate(rec));
  if (loc.stale) return staleRef(tabId, `${args.ref}: ${loc.stale}`);
  const ev0 = { ref: args.ref, label: rec.label, role: rec.role };
  if (loc.state === 'covered') return finish(guard, tabId, 'blocked', { ...ev0, coveredBy: loc.by, delivered: false });
  if (loc.state !== 'ok') return finish(guard, tabId, 'notApplied', { ...ev0, reason: 'not_visible', state: loc.state, delivered: false });
  if (loc.disabled) return finish(guard, tabId, 'notApplied', { ...ev0, reason: 'disabled', delivered: false });
  if (action === 'type' && (!loc.editable || loc.readOnly)) {
    return finish(guard, tabId, 'notApplied', { ...ev0, reason: loc.readOnly ? 'read_only' : 'not_editable', delivered: false });
  }
  if ((action === 'check' || action === 'uncheck') && loc.checked == null) {
    return finish(guard, tabId, 'notApplied', { ...ev0, reason: 'not_checkable', delivered: false });
  }
  if ((action === 'check' || action === 'uncheck') && loc.checked === (action === 'check')) {
    return finish(guard, tabId, 'applied', { ...ev0, alreadyInState: true, delivered: false, checks: { checked: true } });
  }

  const needsDebugger = action !== 'select';
  let settleMs = 0;
  if (needsDebugger) {
    try {
      await guard.run(ensureAttached(tabId, loc.viewport ? loc.viewport.height : null));
    } catch (e) {
      if (e instanceof CirceError && e.code === 'debugger_unavailable') {
        return finish(guard, tabId, 'notApplied', { ...ev0, reason: 'debugger_unavailable', message: e.message, delivered: false });
      }
      throw e;
    }
    const info = attached.get(tabId);
    if (info && !info.settled) {
      const ts = now();
      loc = await guard.run(settleAfterAttach(rec, info));
      settleMs = now() - ts;
      if (loc.stale) return staleRef(tabId, `${args.ref}: ${loc.stale}`);
      if (loc.state === 'covered') return finish(guard, tabId, 'blocked', { ...ev0, coveredBy: loc.by, delivered: false });
      if (loc.state !== 'ok') return finish(guard, tabId, 'notApplied', { ...ev0, reason: 'not_visible', state: loc.state, delivered: false });
    }
  }

  if (action === 'upload') return actUpload(guard, tabId, rec, loc, ev0, args, timeoutMs);

  const token = 't' + (++tokenCounter);
  const before = await guard.run(toDoc(tabId, rec.documentId, { cmd: 'watch', key: rec.key, token }));
  if (before.gone) return staleRef(tabId, `${args.ref}: the page that element was on is gone`);
  if (before.timeout) return finish(guard, tabId, 'notApplied', { ...ev0, reason: 'page_unresponsive', delivered: false });
  const mainDoc = await guard.run(mainDocumentId(tabId));
  before.url = (await getTab(tabId)).url;
  before.documentId = rec.documentId;

  const evidence = { ...ev0, x: Math.round(loc.x), y: Math.round(loc.y), delivered: false };
  if (settleMs) evidence.attachSettleMs = settleMs;
  if (loc.scrolledIntoView) evidence.scrolledIntoView = true;
  try {
    if (action === 'click' || action === 'check' || action === 'uncheck') {
      await guard.run(dispatchClick(tabId, loc.x, loc.y));
      evidence.delivered = true;
    } else if (action === 'type') {
      const f = await guard.run(toDoc(tabId, rec.documentId, { cmd: 'focus', key: rec.key }));
      if (f.gone || f.stale) return staleRef(tabId, `${args.ref}: the element went away`);
      if (args.text === '') await guard.run(dispatchKey(tabId, C.keyEvent('Delete')));
      else await guard.run(cdp(tabId, 'Input.insertText', { text: args.text }));
      evidence.delivered = true;
    } else if (action === 'press') {
      const f = await guard.run(toDoc(tabId, rec.documentId, { cmd: 'focus', key: rec.key, noSelect: true }));
      if (f.gone || f.stale) return staleRef(tabId, `${args.ref}: the element went away`);
      await guard.run(dispatchKey(tabId, C.keyEvent(args.key)));
      evidence.delivered = true;
      evidence.key = args.key;
    } else if (action === 'select') {
      const s = await guard.run(toDoc(tabId, rec.documentId, { cmd: 'select', key: rec.key, option: args.option }));
      if (s.gone || s.stale) return staleRef(tabId, `${args.ref}: the element went away`);
      if (s.unsupported) throw new CirceError('unsupported', s.unsupported);
      if (s.noOption) return finish(guard, tabId, 'notApplied', { ...evidence, reason: 'no_such_option', options: s.options });
      if (s.disabledOption) return finish(guard, tabId, 'notApplied', { ...evidence, reason: 'option_disabled' });
      evidence.delivered = true;
      evidence.selected = s.selected;
    }
  } catch (e) {
    toDoc(tabId, rec.documentId, { cmd: 'unwatch', token }).catch(() => {});
    if (e instanceof CirceError) throw e;
    // The input call failed: nothing (or not all of it) was delivered.
    return finish(guard, tabId, evidence.delivered ? 'unknown' : 'notApplied', { ...evidence, reason: 'input_failed', message: String(e.message || e) });
  }

  const { after, ev } = await pollExpect(guard, tabId, rec, token, mainDoc, expect, before, now() + timeoutMs);
  toDoc(tabId, rec.documentId, { cmd: 'unwatch', token }).catch(() => {});
  evidence.checks = ev.checks;
  evidence.url = after.url;
  const navigated = after.url !== before.url || !!after.mainDocumentGone;
  if (navigated) evidence.navigated = true;
  if (after.openedTab != null) evidence.openedTab = after.openedTab;
  if (after.value != null && (action === 'type' || action === 'select')) evidence.value = after.value;
  return finish(guard, tabId, ev.met ? 'applied' : 'unknown', evidence, navigated);
}

// ---------------------------------------------------------------------------------------------
// Choosing a file for a page's file input. Under chrome.debugger, DOM.setFileInputFiles on an
// input found by Circe is refused ("Not allowed", crbug 928255); what is allowed is to answer the
// file chooser the page itself opens: intercept choosers (Page.setInterceptFileChooserDialog),
// click the control (a trusted click, so the page's own `input.click()` has its user
// activation), wait for Page.fileChooserOpened, and answer it with DOM.setFileInputFiles on the
// input the chooser belongs to. No native dialog appears: Chrome hands the chooser to Circe.
// ---------------------------------------------------------------------------------------------
const CHOOSER_MS = 2000;     // how long a click may take to open the page's file chooser
const choosers = new Map();  // tabId -> resolve(Page.fileChooserOpened params), while waiting

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (method !== 'Page.fileChooserOpened' || source.sessionId) return;
  const resolve = choosers.get(source.tabId);
  if (resolve) { choosers.delete(source.tabId); resolve(params); }
});

/** The files a file input holds now: [{name, size}] (null when the input cannot be read). */
async function inputFiles(tabId, backendNodeId) {
  try {
    const { object } = await cdp(tabId, 'DOM.resolveNode', { backendNodeId });
    const r = await cdp(tabId, 'Runtime.callFunctionOn', { objectId: object.objectId, returnByValue: true,
      functionDeclaration: 'function () { return Array.from(this.files || []).map((f) => ({ name: f.name, size: f.size })); }' });
    cdp(tabId, 'Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
    return r.result ? r.result.value : null;
  } catch (e) {
    return null;
  }
}

/**
 * `upload`: click the control that opens the page's file chooser and answer the chooser with
 * `path`. applied: the input then holds exactly that file (its name, and `size` when given);
 * `evidence.shown`: the page's text after it names the file; notApplied: no chooser opened within CHOOSER_MS, or Chrome refused the file (nothing
 * was set); unknown: the chooser was answered but the input was not seen holding the file.
 */
async function actUpload(guard, tabId, rec, loc, ev0, args, timeoutMs) {
  const path = args.path;
  const size = Number.isInteger(args.size) ? args.size : null; // the daemon read it on disk
  const evidence = { ...ev0, x: Math.round(loc.x), y: Math.round(loc.y), path, delivered: false };
  const opened = new Promise((resolve) => { choosers.set(tabId, resolve); });
  try {
    await guard.run(cdp(tabId, 'Page.enable'));
    await guard.run(cdp(tabId, 'Page.setInterceptFileChooserDialog', { enabled: true }));
    await guard.run(dispatchClick(tabId, loc.x, loc.y));
    const chooser = await guard.run(withTimeout(opened, CHOOSER_MS));
    if (chooser.timeout) {
      return finish(guard, tabId, 'notApplied', { ...evidence, reason: 'no_chooser',
        message: `clicking "${rec.label}" opened no file chooser within ${CHOOSER_MS} ms; no file was set` });
    }
    evidence.mode = chooser.mode; // selectSingle | selectMultiple
    try {
      await guard.run(cdp(tabId, 'DOM.setFileInputFiles', { files: [path], backendNodeId: chooser.backendNodeId }));
    } catch (e) {
      const m = String((e && e.message) || e);
      return finish(guard, tabId, 'notApplied', { ...evidence, reason: 'file_refused', message: /not allowed/i.test(m)
        ? `Chrome refused to give the page a local file (${m}): turn on "Allow access to file URLs" for the Circe extension in chrome://extensions`
        : `Chrome refused the file: ${m}` });
    }
    evidence.delivered = true;
    const name = C.baseName(path);
    const deadline = now() + timeoutMs;
    let files = null;
    for (;;) {
      files = await guard.run(inputFiles(tabId, chooser.backendNodeId));
      if ((files && files.some((f) => f.name === name)) || now() >= deadline) break;
      await guard.run(sleep(POLL_MS));
    }
    evidence.files = files;
    const held = !!files && files.length === 1 && files[0].name === name && (size == null || files[0].size === size);
    const out = await finish(guard, tabId, held ? 'applied' : 'unknown', held ? evidence : { ...evidence, reason: 'not_held',
      message: `the page's file input holds ${JSON.stringify(files)}, not ${name}${size == null ? '' : ` (${size} bytes)`}` });
    // The page's own words after the choice: does what it shows name the file?
    out.evidence.shown = !!(out.observation && typeof out.observation.text === 'string' && out.observation.text.includes(name));
    return out;
  } finally {
    choosers.delete(tabId);
    cdp(tabId, 'Page.setInterceptFileChooserDialog', { enabled: false }).catch(() => {});
  }
}

async function pressUnfocused(guard, tab, k, expect, timeoutMs) {
  const tabId = tab.id;
  try {
    await guard.run(ensureAttached(tabId));
  } catch (e) {
    if (e instanceof CirceError && e.code === 'debugger_unavailable') return finish(guard, tabId, 'notApplied', { reason: 'debugger_unavailable', message: e.message, delivered: false });
    throw e;
  }
  const mainDoc = await mainDocumentId(tabId);
  const before = { url: tab.url };
  await guard.run(dispatchKey(tabId, k));
  const exp = expect.change ? { navigation: true } : expect; // no element item to watch
  const { after, ev } = await pollExpect(guard, tabId, null, null, mainDoc, exp, before, now() + timeoutMs);
  const navigated = after.url !== before.url || !!after.mainDocumentGone;
  return finish(guard, tabId, ev.met ? 'applied' : 'unknown', { delivered: true, key: k.key, checks: ev.checks, url: after.url }, navigated);
}

async function actScroll(guard, tab, args, expect, timeoutMs) {
  const tabId = tab.id;
  if (args.direction !== 'up' && args.direction !== 'down') throw new CirceError('bad_args', 'scroll needs direction "up" or "down"');
  const r = await guard.run(toFrame(tabId, 0, { cmd: 'scroll', direction: args.direction }));
  if (r.gone) throw new CirceError('no_tab', 'the page has no content script (restricted page?)');
  if (r.atEnd) return finish(guard, tabId, 'notApplied', { delivered: false, reason: args.direction === 'down' ? 'at_bottom' : 'at_top', scrollY: r.scrollY });
  const before = { url: tab.url, scrollX: 0, scrollY: r.from };
  const cur = await toFrame(tabId, 0, { cmd: 'scrollState' });
  before.scrollX = cur.scrollX;
  const { after, ev } = await pollExpect(guard, tabId, null, 'scroll', null, expect, before, now() + timeoutMs);
  return finish(guard, tabId, ev.met ? 'applied' : 'unknown', { delivered: true, direction: args.direction, from: r.from, to: after.scrollY, checks: ev.checks });
}

async function actBack(guard, tab, expect, timeoutMs) {
  const tabId = tab.id;
  await historyLoaded;
  const b = C.historyBack(histories.get(tabId), tab.url);
  if (!b) return finish(guard, tabId, 'notApplied', { delivered: false, reason: 'no_history' });
  histories.set(tabId, b.stack);
  saveHistories();
  pendingBack.set(tabId, b.target);
  const mainDoc = await mainDocumentId(tabId);
  const before = { url: tab.url, documentId: mainDoc };
  await guard.run(chrome.tabs.update(tabId, { url: b.target }));
  const { after, ev } = await pollExpect(guard, tabId, null, null, mainDoc, expect, before, now() + timeoutMs,
    (a) => C.urlMatches(a.url, b.target));
  return finish(guard, tabId, ev.met ? 'applied' : 'unknown', { delivered: true, target: b.target, url: after.url, checks: ev.checks }, true);
}

async function actOpen(guard, tab, args, expect, timeoutMs) {
  const tabId = tab.id;
  if (args.url == null && args.newTab === true) return actNewTab(tab, timeoutMs);
  let u;
  try { u = new URL(String(args.url)); } catch (_) { throw new CirceError('bad_args', `not a URL: ${args.url}`); }
  if (!/^https?:$/.test(u.protocol) && u.href !== 'about:blank') throw new CirceError('bad_args', `only http(s) URLs can be opened (${u.protocol})`);
  if (args.newTab === true) {
    // A new tab next to this one: the result's observation (and evidence.tabId) name it.
    const created = await chrome.tabs.create({ url: u.href, windowId: tab.windowId, index: tab.index + 1, active: true });
    const g2 = makeGuard(created.id);
    try {
      const before = { url: '' };
      const { after, ev } = await pollExpect(g2, created.id, null, null, null, expect, before, now() + timeoutMs);
      return await finish(g2, created.id, ev.met ? 'applied' : 'unknown', { delivered: true, target: u.href, url: after.url, tabId: created.id, newTab: true, checks: ev.checks }, true, args);
    } finally {
      g2.release();
    }
  }
  const mainDoc = await mainDocumentId(tabId);
  const before = { url: tab.url, documentId: mainDoc };
  await guard.run(chrome.tabs.update(tabId, { url: u.href }));
  const { after, ev } = await pollExpect(guard, tabId, null, null, mainDoc, expect, before, now() + timeoutMs);
  return finish(guard, tabId, ev.met ? 'applied' : 'unknown', { delivered: true, target: u.href, url: after.url, checks: ev.checks }, true, args);
}

/** A blank new tab next to `tab` (Chrome's new tab page), in front. */
async function actNewTab(tab, timeoutMs) {
  const created = await chrome.tabs.create({ windowId: tab.windowId, index: tab.index + 1, active: true });
  const deadline = now() + timeoutMs;
  let page = await pageState(created.id);
  while (page.exists && !page.active && now() < deadline) {
    await sleep(POLL_MS);
    page = await pageState(created.id);
  }
  const seen = page.exists && page.active;
  return resultOf(seen ? 'applied' : 'unknown', { delivered: true, tabId: created.id, newTab: true, url: page.url, page });
}

/**
 * Close `tab`. Its removal is the effect: seen gone in time → applied. The last open tab is not
 * closed (that would close Chrome, and Circe with it): notApplied, reason `last_tab`.
 */
async function actClose(tab, timeoutMs) {
  const all = await chrome.tabs.query({});
  if (all.length <= 1) return resultOf('notApplied', { delivered: false, reason: 'last_tab', tabId: tab.id, url: tab.url });
  await chrome.tabs.remove(tab.id).catch((e) => {
    if (!/No tab with id/i.test(String(e.message || e))) throw e;
  });
  const deadline = now() + timeoutMs;
  let gone = false;
  for (;;) {
    gone = !(await chrome.tabs.get(tab.id).catch(() => null));
    if (gone || now() >= deadline) break;
    await sleep(POLL_MS);
  }
  const front = await chrome.tabs.get(await defaultTabId()).catch(() => null);
  return resultOf(gone ? 'applied' : 'unknown', { delivered: true, closed: gone, tabId: tab.id, url: tab.url, title: tab.title || '',
    front: front ? { tabId: front.id, url: front.url || '', title: front.title || '' } : null });
}

/** Reload `tab`: seen when the top frame holds a new document; then wait for it to load. */
async function actReload(guard, tab, args, timeoutMs) {
  const tabId = tab.id;
  const before = await currentDocumentId(tabId, 0);
  await guard.run(chrome.tabs.reload(tabId));
  const deadline = now() + timeoutMs;
  let fresh = false;
  for (;;) {
    const cur = await guard.run(currentDocumentId(tabId, 0));
    fresh = !!cur && cur !== before;
    if (fresh || now() >= deadline) break;
    await guard.run(sleep(POLL_MS));
  }
  const evidence = { delivered: true, newDocument: fresh, url: tab.url };
  if (args.observe === false) {
    const page = await guard.run(waitLoaded(tabId, loadMsOf(args)));
    evidence.page = page;
    return resultOf(fresh ? 'applied' : 'unknown', evidence);
  }
  return finish(guard, tabId, fresh ? 'applied' : 'unknown', evidence, true, args);
}

// ---------------------------------------------------------------------------------------------
// Commands.
// ---------------------------------------------------------------------------------------------
async function runCommand(cmd, args) {
  switch (cmd) {
    case 'ping': return { pong: true };
    case 'tabs': {
      const tabs = await chrome.tabs.query({});
      const current = await defaultTabId().catch(() => null);
      return { tabs: C.listTabs(tabs, current) };
    }
    case 'observe': {
      const tabId = args.tabId == null ? await defaultTabId() : args.tabId;
      if (!Number.isInteger(tabId)) throw new CirceError('bad_args', 'tabId must be an integer');
      const ob = await observeTab(tabId);
      if (args.prepare === true && !ob.restricted && !attached.has(tabId)) {
        // Optional: attach the debugger now, so the infobar's viewport shrink is over by the
        // time the act that usually follows arrives.
        ensureAttached(tabId, ob.viewport ? ob.viewport.height : null).then(() => scheduleDetach(tabId), () => {});
      }
      return ob;
    }
    case 'act': return act(args);
    default: throw new CirceError('unsupported', `unknown command "${cmd}"`);
  }
}

setConn({ port: 'disconnected', daemon: 'unknown' });
connect('boot');

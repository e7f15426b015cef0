// Circe content script: runs in every frame. It scans what is on screen, resolves element keys
// for actions, hit-tests right before acting, and watches the effect of an action.
// It never acts by itself: trusted input comes from the service worker through chrome.debugger.
(() => {
  'use strict';
  if (self.__circe) return; // injected twice (manifest + scripting.executeScript after install)
  const C = self.CirceCore;

  // element <-> key for this document. Keys are local to the document; the service worker maps
  // (tab, document, key) to the connection-wide ref ids ("r41").
  const keyOf = new WeakMap();
  const byKey = new Map();
  let nextKey = 1;
  const watches = new Map();
  // Identifies this document instance (a navigation, reload or bfcache restore of the same URL
  // gives a different content-script instance and token).
  const DOC_TOKEN = Math.random().toString(36).slice(2) + Date.now().toString(36);

  // Frame geometry: Chrome gives a content script no frameId for an <iframe> element, so each
  // subframe announces a nonce to its parent with postMessage; the parent maps the message's
  // source window to the <iframe> element. The worker joins nonces to frameIds (scan results).
  const FRAME_NONCE = 'f' + Math.random().toString(36).slice(2) + Date.now().toString(36);
  const frameNonce = new WeakMap(); // <iframe> -> nonce of the document inside it
  function announce() {
    if (self !== top) {
      try { parent.postMessage({ __circeFrame: FRAME_NONCE }, '*'); } catch (_) { /* detached */ }
    }
  }
  addEventListener('message', (e) => {
    const n = e.data && e.data.__circeFrame;
    if (typeof n !== 'string' || !e.source) return;
    const all = [];
    collectFrames(document, all);
    for (const f of all) if (f.contentWindow === e.source) { frameNonce.set(f, n); break; }
  }, true);

  const CANDIDATES = [
    'a[href]', 'area[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea', 'summary',
    '[role]', '[onclick]', '[contenteditable]:not([contenteditable=false])', '[tabindex]', 'iframe', 'frame',
  ].join(',');

  // Elements the service worker found click listeners on (DOMDebugger.getEventListeners):
  // element -> {navigates}. Kept for the document's life; a scan includes them as targets.
  const clickMarks = new WeakMap();
  // What Chrome's accessibility tree said about an element, with the element's signature then:
  // element -> {sig, ax}. Reused while the signature is the same (see sigOf).
  const axCache = new WeakMap();
  // The elements of the last scan that had no (valid) accessibility-tree entry, for the worker
  // to look up through chrome.debugger: [{el, key, sig}].
  let pendingAx = [];
  let scanSeq = 0;

  // Elements that are links or controls by themselves (a pointer cursor on them or a listener
  // on their container does not make a second target).
  const NATIVE = 'a[href], area[href], button, input:not([type=hidden]), select, textarea, summary, [contenteditable]:not([contenteditable=false]), [role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=option], [role=textbox], [role=combobox], [role=searchbox]';
  // Tags whose computed cursor is checked: the usual building blocks of script-made controls.
  const POINTER_TAGS = new Set(['DIV', 'SPAN', 'LI', 'IMG', 'I', 'P', 'TD', 'TH', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'DT', 'DD', 'FIGURE', 'STRONG', 'B', 'EM', 'SMALL', 'svg']);
  const POINTER_MAX = 4000; // computed-style reads per scan, at most
  const HANDLER_TEXT_MAX = 300; // a "clickable" with more text than this is a container
  const AX_LOOKUP_MAX = 200; // accessibility-tree lookups per frame and scan (the observation keeps 200)

  const openOrClosed = (el) => {
    try {
      return (chrome.dom && chrome.dom.openOrClosedShadowRoot) ? chrome.dom.openOrClosedShadowRoot(el) : el.shadowRoot;
    } catch (_) {
      return el.shadowRoot;
    }
  };

  function isCandidate(el) {
    const marked = clickMarks.has(el); // a click listener the worker found
    if (!marked && !el.matches(CANDIDATES)) return false;
    const tag = el.tagName;
    if (tag === 'IFRAME' || tag === 'FRAME') return true;
    const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    const nativeInteractive = (tag === 'A' || tag === 'AREA') ? el.hasAttribute('href') :
      ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY'].includes(tag);
    // Mouse-only duplicates hidden from assistive technology (YouTube's thumbnail links:
    // aria-hidden, tabindex -1, next to the title link to the same place) are left out.
    if (el.tabIndex < 0 && el.closest('[aria-hidden="true"]')) return false;
    if (nativeInteractive) return true;
    if (role === 'gridcell' || role === 'cell') return cellIsTarget(el, marked);
    if (role && C.WIDGET_ROLES.has(role)) return true;
    if (el.hasAttribute('onclick')) return true;
    if (marked && handlerSized(el)) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    const ti = el.getAttribute('tabindex');
    if (ti !== null && Number(ti) >= 0 && !['BODY', 'HTML'].includes(tag)) return true;
    return false;
  }

  /**
   * A grid cell is a target of its own only when it can be one: no link or control inside (that
   * is the target, and the cell around it is not a second one), and it takes focus, is
   * selectable or has a click listener. A file list's icon, name and date cells (GitHub's) are
   * none of these: the name link is what a person opens.
   */
  function cellIsTarget(el, marked) {
    if (el.querySelector(NATIVE)) return false;
    return marked || el.hasAttribute('onclick') || el.hasAttribute('tabindex') ||
      el.hasAttribute('aria-selected');
  }

  /** A script-made control is small: not the page, and no real controls inside. */
  function handlerSized(el) {
    if (el.tagName === 'BODY' || el.tagName === 'HTML') return false;
    if (el.querySelector(NATIVE)) return false;
    return (el.textContent || '').length <= HANDLER_TEXT_MAX;
  }

  /**
   * cursor: pointer on an element whose parent is not pointer (cursor is inherited: only the
   * element that set it counts), outside any link or control. `ctx` caches computed cursors
   * for the scan and bounds how many are read.
   */
  function pointerTarget(el, ctx) {
    const cursorOf = (n) => {
      let c = ctx.cursor.get(n);
      if (c === undefined) { ctx.reads++; c = getComputedStyle(n).cursor; ctx.cursor.set(n, c); }
      return c;
    };
    if (cursorOf(el) !== 'pointer') return false;
    const p = parentOf(el);
    if (p && p.nodeType === 1 && cursorOf(p) === 'pointer') return false;
    if (el.closest(NATIVE)) return false;
    return handlerSized(el);
  }

  /** Candidates in tree order, descending into open and closed shadow roots. */
  function collect(root, out, ctx) {
    for (const el of root.querySelectorAll('*')) {
      if (isCandidate(el)) out.push(el);
      else if (ctx && ctx.reads < POINTER_MAX && POINTER_TAGS.has(el.tagName) && pointerTarget(el, ctx)) out.push(el);
      const sr = openOrClosed(el);
      if (sr) collect(sr, out, ctx);
    }
    return out;
  }

  /**
   * For an element that is a target only by a handler (no native control, no widget role):
   * {navigates, hrefLike}; null otherwise.
   */
  function handlerOf(el) {
    const tag = el.tagName;
    if (['A', 'AREA'].includes(tag) && el.hasAttribute('href')) return null;
    if (['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'IFRAME', 'FRAME'].includes(tag)) return null;
    const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (role && C.WIDGET_ROLES.has(role)) return null;
    if (el.isContentEditable) return null;
    const mark = clickMarks.get(el);
    return {
      navigates: !!(mark && mark.navigates) || C.navigatesBySource(el.getAttribute('onclick')),
      hrefLike: el.hasAttribute('data-href') || el.hasAttribute('data-url'),
    };
  }

  function parentOf(node) {
    if (node.parentElement) return node.parentElement;
    const r = node.parentNode;
    return r && r.host ? r.host : null;
  }

  function composedContains(a, b) {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  }

  /** elementFromPoint, descending into shadow roots (open and closed). */
  function deepHit(x, y) {
    let el = document.elementFromPoint(x, y);
    for (let i = 0; el && i < 32; i++) {
      const sr = openOrClosed(el);
      if (!sr) break;
      const inner = sr.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  }

  // Elements whose text is never shown: a <style> sheet beside a row's cells is no context.
  const NO_TEXT_TAGS = new Set(['STYLE', 'SCRIPT', 'NOSCRIPT', 'TEMPLATE']);

  function textOf(el) {
    if (NO_TEXT_TAGS.has(el.tagName)) return '';
    // innerText respects CSS (hidden text is left out); alt text of images counts as text.
    // An element with only text inside (most links and buttons) gives the same with the much
    // cheaper textContent.
    let t = el.childElementCount === 0 ? el.textContent : el.innerText;
    if (t == null) t = el.textContent;
    // A sheet or script an author rule displays is in the container's innerText: take it out.
    if (el.childElementCount > 0 && t && el.querySelector('style, script')) {
      let n = C.normText(t);
      for (const s of el.querySelectorAll('style, script')) {
        const x = C.normText(s.textContent);
        if (x) n = n.split(x).join(' ');
      }
      t = n;
    }
    if (!C.normText(t)) {
      const img = el.querySelector && el.querySelector('img[alt], [aria-label], svg title, [title]');
      if (img) t = img.getAttribute('alt') || img.getAttribute('aria-label') || img.getAttribute('title') || img.textContent || '';
    }
    return t || '';
  }

  function byIdRefs(el, attr) {
    const ids = (el.getAttribute(attr) || '').trim();
    if (!ids) return '';
    const root = el.getRootNode();
    return ids.split(/\s+/).map((id) => {
      const n = (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
      return n ? textOf(n) : '';
    }).join(' ');
  }

  function descriptor(el) {
    return {
      tag: el.tagName, type: el.getAttribute('type') || (el.tagName === 'INPUT' ? 'text' : ''),
      role: el.getAttribute('role') || '', hasHref: el.hasAttribute('href'), multiple: el.multiple,
      size: el.size, editable: el.isContentEditable, list: !!el.getAttribute('list'),
    };
  }

  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    const h = (!explicit || ['none', 'presentation', 'generic'].includes(explicit)) ? handlerOf(el) : null;
    if (h) return C.clickRole(h);
    return C.roleOf(descriptor(el));
  }

  /** The DOM's own description: aria-describedby, aria-description, or a title not used as the name. */
  function descriptionOf(el, label) {
    const by = C.normText(byIdRefs(el, 'aria-describedby'));
    if (by) return C.truncate(by, C.LABEL_MAX);
    const ad = C.normText(el.getAttribute('aria-description'));
    if (ad) return C.truncate(ad, C.LABEL_MAX);
    const title = C.normText(el.getAttribute('title'));
    if (title && title !== C.normText(label)) return C.truncate(title, C.LABEL_MAX);
    return '';
  }

  /**
   * What can change an element's accessible name, description, role or states: its attributes,
   * its text, live properties (checked, disabled, value) and the text it is labelled by. A cached
   * accessibility-tree entry is used while this is unchanged.
   */
  function sigOf(el) {
    let s = el.tagName;
    for (const a of el.attributes) s += '\u0001' + a.name + '=' + a.value;
    s += '\u0002' + String(el.textContent || '').slice(0, 400);
    if (typeof el.checked === 'boolean') s += '\u0003' + el.checked;
    if (typeof el.disabled === 'boolean') s += '\u0003' + el.disabled;
    if (el.tagName === 'INPUT' || el.tagName === 'SELECT') s += '\u0003' + el.value;
    if (el.labels && el.labels.length) s += '\u0004' + [...el.labels].map((l) => l.textContent).join(' ');
    if (el.hasAttribute('aria-labelledby')) s += '\u0004' + byIdRefs(el, 'aria-labelledby');
    if (el.hasAttribute('aria-describedby')) s += '\u0004' + byIdRefs(el, 'aria-describedby');
    return s;
  }

  /**
   * Role, label, description and states of an element: from Chrome's accessibility tree when
   * this scan (or an earlier one, for the unchanged element) got its entry, else from the DOM.
   * `sig` is given when the caller computed it already.
   */
  function describe(el, active, sig) {
    const cached = axCache.get(el);
    const valid = cached && cached.sig === (sig || sigOf(el));
    if (valid) {
      // A control the tree names with a widget role needs nothing from the DOM but focus.
      const ax = cached.ax;
      if (ax && !ax.ignored && ax.name && C.WIDGET_ROLES.has(ax.role) && !handlerOf(el)) {
        const r = C.fromAX(ax, { role: ax.role, label: '', description: '', states: [], focused: el === active, handler: false });
        r.handler = false;
        r.looked = true;
        return r;
      }
    }
    const role = roleOf(el);
    const domLabel = labelOf(el, role);
    const description = descriptionOf(el, domLabel);
    const dom = { role, label: C.wordLabel(domLabel, description, ''), description, states: statesOf(el, role, active),
      focused: el === active, handler: !!handlerOf(el) };
    if (valid) {
      const r = C.fromAX(cached.ax, dom);
      r.handler = dom.handler;
      r.looked = true; // the tree was asked (an ignored node keeps the DOM's reading)
      return r;
    }
    dom.source = 'dom';
    return dom;
  }

  const CONTROLS = 'a[href],button,input,select,textarea,[role="button"],[role="link"],[onclick]';

  /**
   * An unnamed control's developer words (core's unnamedHint): its link target, and the class
   * names of itself, of a few elements inside it (its icon, an SVG `<use>` reference) and of up to
   * two wrappers that hold no other control.
   */
  function hintOf(el, label) {
    // A control named only by a role word ("Link") still shows what it is: its image's alt text.
    const inner = ['SELECT', 'TEXTAREA', 'INPUT'].includes(el.tagName) ? '' : C.normText(textOf(el));
    const shown = C.hasWord(inner) && inner.toLowerCase() !== C.normText(label).toLowerCase() ? inner : '';
    const classes = [el.getAttribute('class') || ''];
    let inside = 0;
    for (const c of el.querySelectorAll('*')) {
      if (inside++ >= 8) break;
      classes.push(c.getAttribute('class') || '');
      if (c.tagName.toLowerCase() === 'use') classes.push((c.getAttribute('href') || c.getAttribute('xlink:href') || '').replace(/^.*#/, ''));
    }
    let up = el.parentElement;
    for (let k = 0; k < 2 && up && up !== document.body; k++, up = up.parentElement) {
      if (up.querySelectorAll(CONTROLS).length > 1) break;
      classes.push(up.getAttribute('class') || '');
    }
    const href = el.tagName === 'A' ? (el.getAttribute('href') || '') : '';
    const absolute = href && !href.startsWith('#') && !/^(mailto|tel|javascript):/i.test(href) ? el.href : href;
    const words = C.unnamedHint({ href: absolute, pageHost: location.hostname, classes });
    return C.truncate([shown, words].filter(Boolean).join(' '), C.LABEL_MAX);
  }

  function labelOf(el, role) {
    const tag = el.tagName;
    const type = (el.getAttribute('type') || '').toLowerCase();
    let labelFor = '';
    if (el.labels && el.labels.length) labelFor = [...el.labels].map(textOf).join(' ');
    const isButtonInput = tag === 'INPUT' && ['button', 'submit', 'reset'].includes(type);
    let text = '';
    const fromContent = C.NAME_FROM_CONTENT.has(role) && !['INPUT', 'SELECT', 'TEXTAREA'].includes(tag);
    if (fromContent || !['INPUT', 'SELECT', 'TEXTAREA'].includes(tag)) text = textOf(el);
    if (tag === 'INPUT' && type === 'submit' && !el.value) text = 'Submit';
    return C.chooseLabel({
      labelledby: byIdRefs(el, 'aria-labelledby'),
      ariaLabel: el.getAttribute('aria-label'),
      labelFor,
      alt: (tag === 'IMG' || (tag === 'INPUT' && type === 'image') || tag === 'AREA') ? el.getAttribute('alt') : '',
      buttonValue: isButtonInput ? el.value : '',
      nameFromContent: fromContent,
      text: (tag === 'IFRAME' || tag === 'FRAME') ? '' : text,
      placeholder: el.getAttribute('placeholder'),
      title: el.getAttribute('title'),
      beside: besideLabel(el, tag, type),
    });
  }

  const FIELD_TAGS = ['INPUT', 'SELECT', 'TEXTAREA'];

  /**
   * The words a person reads as a form field's label when the page's own label points nowhere
   * (a `<label for>` naming an id no element has, so `label.control` is null and the field has no
   * accessible name): the broken label right after a radio button or checkbox, or the nearest
   * broken label before any other field with only fields between ("Date of Birth" before the
   * month, day and year). A label that labels another control is never taken.
   */
  function besideLabel(el, tag, type) {
    if (!FIELD_TAGS.includes(tag)) return '';
    const broken = (n) => n && n.tagName === 'LABEL' && !n.control;
    if (tag === 'INPUT' && (type === 'checkbox' || type === 'radio')) {
      const next = el.nextElementSibling;
      return broken(next) ? textOf(next) : '';
    }
    for (let n = el.previousElementSibling; n; n = n.previousElementSibling) {
      if (broken(n)) return textOf(n);
      if (!FIELD_TAGS.includes(n.tagName)) return '';
    }
    return '';
  }

  const TEXTLIKE = new Set(['', 'text', 'email', 'url', 'tel', 'search', 'number', 'date', 'datetime-local', 'month', 'week', 'time', 'password']);

  function isEditable(el) {
    if (el.isContentEditable) return true;
    if (el.tagName === 'TEXTAREA') return true;
    if (el.tagName === 'INPUT') return TEXTLIKE.has((el.getAttribute('type') || '').toLowerCase());
    return false;
  }

  function valueOf(el) {
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const type = (el.type || '').toLowerCase();
      if (type === 'password') return el.value ? '••••' : '';
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file'].includes(type)) return undefined;
      return el.value;
    }
    if (tag === 'TEXTAREA') return el.value;
    if (tag === 'SELECT') {
      const o = el.selectedOptions && el.selectedOptions[0];
      return o ? C.normText(o.label || o.text) : '';
    }
    if (el.isContentEditable) return C.truncate(C.normText(el.innerText), 500);
    const vn = el.getAttribute('aria-valuenow');
    if (vn != null) return el.getAttribute('aria-valuetext') || vn;
    return undefined;
  }

  function checkedOf(el) {
    if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
    const a = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
    if (a === 'true') return true;
    if (a === 'false') return false;
    return undefined;
  }

  function deepActive() {
    let a = document.activeElement;
    for (let i = 0; a && i < 32; i++) {
      const sr = openOrClosed(a);
      if (!sr || !sr.activeElement) break;
      a = sr.activeElement;
    }
    return a;
  }

  /** What `opensFileChooser` reads of an element: its tag and type, its label's control, the elements it controls. */
  function fileDescriptor(el) {
    const d = (n) => (n ? { tag: n.tagName, type: n.getAttribute('type') } : null);
    const ids = (el.getAttribute('aria-controls') || '').split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    return { tag: el.tagName, type: el.getAttribute('type'), control: el.tagName === 'LABEL' ? d(el.control) : null,
      controls: ids.map((id) => d(root.getElementById ? root.getElementById(id) : null)) };
  }

  function statesOf(el, role, active) {
    const s = [];
    if (el.tabIndex >= 0 || ['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY'].includes(el.tagName)) s.push('focusable');
    if (el === active) s.push('focused');
    const ch = checkedOf(el);
    if (ch === true) s.push('checked');
    if (el.getAttribute('aria-selected') === 'true' || (el.tagName === 'OPTION' && el.selected)) s.push('selected');
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') s.push('disabled');
    const ex = el.getAttribute('aria-expanded');
    if (ex === 'true' || (el.tagName === 'SUMMARY' && el.parentElement && el.parentElement.open)) s.push('expanded');
    if (isEditable(el) && !el.readOnly && !el.disabled) s.push('editable');
    return s;
  }

  // ---- context: the text of the repeated item the element belongs to ----
  const ITEM_TAGS = new Set(['LI', 'TR', 'ARTICLE']);
  const ITEM_ROLES = new Set(['listitem', 'row', 'article', 'option', 'treeitem']);

  function signature(el) {
    return el.tagName + (el.getAttribute('class') ? '.' + el.getAttribute('class').trim().split(/\s+/).sort().join('.') : '') +
      (el.getAttribute('role') ? '[' + el.getAttribute('role') + ']' : '');
  }

  function makeContextFinder() {
    const sibCache = new WeakMap();
    const textCache = new WeakMap();
    const nodeText = new WeakMap();
    const siblings = (parent) => {
      let c = sibCache.get(parent);
      if (!c) {
        const kids = [...(parent.children || [])];
        const sigs = kids.map(signature);
        c = { kids, sigs, profile: C.siblingProfile(sigs), index: new Map(kids.map((k, i) => [k, i])), groups: new Map() };
        sibCache.set(parent, c);
      }
      return c;
    };
    const groupText = (nodes) => {
      const key = nodes[0];
      let t = textCache.get(key);
      if (t === undefined) {
        t = C.normText(nodes.map(textOf).join(' '));
        textCache.set(key, t);
      }
      return t;
    };
    return (el, label) => {
      const minLen = C.normText(label).length + 3;
      let fallback = '';
      for (let node = el, depth = 0; node && depth < 12; depth++) {
        const parent = parentOf(node);
        if (!parent || node === document.body || node === document.documentElement) break;
        if (node !== el || true) {
          const sib = siblings(parent);
          const idx = sib.index.has(node) ? sib.index.get(node) : -1;
          let nodes = null;
          if (idx >= 0) {
            let g = sib.groups.get(idx);
            if (g === undefined) { g = sib.kids.length >= 3 ? C.itemGroupIn(sib.profile, idx, 3) : null; sib.groups.set(idx, g); }
            if (g) nodes = sib.kids.slice(g[0], g[1]);
          }
          const role = (node.getAttribute('role') || '').toLowerCase();
          if (!nodes && (ITEM_TAGS.has(node.tagName) || ITEM_ROLES.has(role))) nodes = [node];
          if (nodes) {
            const t = groupText(nodes);
            if (t.length >= minLen) return C.contextText(t);
          } else if (!fallback && node !== el) {
            // Cached per node: on flat pages every element walks up to the same big containers,
            // so their text is read, normalized and cut to a context once per scan.
            let t = nodeText.get(node);
            if (t === undefined) {
              const text = C.normText(textOf(node));
              t = { length: text.length, context: C.contextText(text) };
              nodeText.set(node, t);
            }
            if (t.length >= minLen + 8) fallback = t.context;
          }
        }
        node = parent;
      }
      return fallback;
    };
  }

  // ---- coverage ----
  function overlayOf(hit) {
    // The covering thing as the user sees it: the outermost fixed/sticky/dialog ancestor of the hit.
    let best = hit;
    for (let n = hit, i = 0; n && n !== document.body && n !== document.documentElement && i < 40; n = parentOf(n), i++) {
      const role = (n.getAttribute && n.getAttribute('role')) || '';
      if (n.tagName === 'DIALOG' || role === 'dialog' || role === 'alertdialog' || n.getAttribute('aria-modal') === 'true') { best = n; continue; }
      const pos = getComputedStyle(n).position;
      if (pos === 'fixed' || pos === 'sticky') best = n;
    }
    return best;
  }

  function describeCover(hit) {
    const o = overlayOf(hit);
    let role = (o.getAttribute('role') || '').split(' ')[0];
    if (!role) role = o.tagName === 'DIALOG' ? 'dialog' : (['BUTTON', 'A', 'INPUT'].includes(o.tagName) ? roleOf(o) : 'generic');
    const label = C.truncate(C.normText(o.getAttribute('aria-label') || byIdRefs(o, 'aria-labelledby') || textOf(o)), 80);
    return { label, role };
  }

  function keyFor(el) {
    let k = keyOf.get(el);
    if (!k) {
      k = nextKey++;
      keyOf.set(el, k);
      byKey.set(k, new WeakRef(el));
    }
    return k;
  }

  /** Visible part of a rect inside the viewport, or null. */
  function clip(r) {
    const left = Math.max(r.left, 0), top = Math.max(r.top, 0);
    const right = Math.min(r.right, innerWidth), bottom = Math.min(r.bottom, innerHeight);
    if (right - left < 1 || bottom - top < 1) return null;
    return { left, top, right, bottom };
  }

  /**
   * Hit-test an element: {state: 'ok'|'covered'|'offscreen'|'hidden'|'clipped', x, y, by?}.
   * x/y are frame-viewport coordinates of the probe point (the centre of the visible part).
   */
  /**
   * Custom checkboxes and radios: the native input is invisible (opacity 0, 1 px, clipped) and
   * its <label> is what the user sees and clicks. Returns that label, or null.
   */
  function proxyLabel(el) {
    if (el.tagName !== 'INPUT' || (el.type !== 'checkbox' && el.type !== 'radio') || !el.labels || !el.labels.length) return null;
    const r = el.getBoundingClientRect();
    const invisible = r.width < 4 || r.height < 4 ||
      (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }));
    if (!invisible) return null;
    for (const l of el.labels) {
      const lr = l.getBoundingClientRect();
      if (lr.width >= 4 && lr.height >= 4 && (!l.checkVisibility || l.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }))) return l;
    }
    return null;
  }

  function hitTest(el) {
    const proxy = proxyLabel(el);
    if (proxy) {
      const h = hitTestBox(proxy);
      if (h.state !== 'hidden') return { ...h, via: 'label' };
    }
    return hitTestBox(el);
  }

  function hitTestBox(el) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return { state: 'hidden' };
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return { state: 'hidden' };
    const v = clip(r);
    if (!v) return { state: 'offscreen', rect: r };
    const first = hitAt(el, r, (v.left + v.right) / 2, (v.top + v.bottom) / 2);
    if (first.state === 'ok' || first.state === 'offscreen' || el.tagName === 'IFRAME' || el.tagName === 'FRAME') return first;
    // The centre of the box is not the element's: a link wrapped over two lines (the centre
    // falls on the text between), or one whose neighbour's padding lies over its middle. A
    // person clicks where it shows: each line box's centre, then points inside each box.
    for (const [x, y] of otherPoints(el)) {
      const h = hitAt(el, r, x, y);
      if (h.state === 'ok') return h;
    }
    return first;
  }

  /** Points to try after a box's centre, at most HIT_POINTS_MAX, each inside the viewport. */
  const HIT_POINTS_MAX = 12;
  function otherPoints(el) {
    const boxes = [...el.getClientRects()].map(clip).filter(Boolean).slice(0, 4);
    const points = boxes.map((b) => [(b.left + b.right) / 2, (b.top + b.bottom) / 2]);
    for (const b of boxes) {
      const w = b.right - b.left, h = b.bottom - b.top;
      for (const [fx, fy] of [[0.5, 0.25], [0.5, 0.75], [0.25, 0.5], [0.75, 0.5]]) points.push([b.left + w * fx, b.top + h * fy]);
    }
    return points.slice(0, HIT_POINTS_MAX);
  }

  /** What a pointer at (x, y) reaches, for `el` whose box is `r`. */
  function hitAt(el, r, x, y) {
    const hit = deepHit(x, y);
    if (!hit) return { state: 'offscreen', x, y };
    if (hit === el || composedContains(el, hit)) return { state: 'ok', x, y, rect: r };
    if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') return { state: 'covered', x, y, by: describeCover(hit), rect: r };
    // The element's own label (or an ancestor label) receiving the hit still activates it.
    if (hit.tagName === 'LABEL' && hit.control === el) return { state: 'ok', x, y, rect: r };
    if (composedContains(hit, el)) return { state: 'clipped', x, y }; // clipped by a scroll container, or pointer-events: none
    return { state: 'covered', x, y, by: describeCover(hit), rect: r };
  }

  function scan(opts = {}) {
    const t0 = performance.now();
    const pctx = { cursor: new Map(), reads: 0 };
    const cands = collect(document, [], pctx);
    const tCollect = performance.now();
    let tContext = 0;
    const contextFinder = makeContextFinder();
    const context = (el, label) => { const a = performance.now(); const c = contextFinder(el, label); tContext += performance.now() - a; return c; };
    const active = deepActive();
    const elements = [];
    const covered = [];
    const frames = [];
    const unannounced = []; // visible frames whose document has no Circe content script (yet)
    const pending = [];
    let hidden = 0, offscreen = 0, clipped = 0, handlers = 0, fromAx = 0;
    for (const el of cands) {
      const h = hitTest(el);
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        const nonce = frameNonce.get(el);
        if (!nonce && (h.state === 'ok' || h.state === 'covered') && unannounced.length < 20) {
          unannounced.push({ url: el.src || el.getAttribute('src') || 'about:blank', title: C.normText(el.getAttribute('title')), state: h.state });
        }
        if (nonce && h.state !== 'hidden') {
          const r = el.getBoundingClientRect();
          const cs = getComputedStyle(el);
          const ox = r.left + el.clientLeft + parseFloat(cs.paddingLeft || 0);
          const oy = r.top + el.clientTop + parseFloat(cs.paddingTop || 0);
          const vis = clip(r);
          frames.push({ nonce, index: elements.length, offsetX: ox, offsetY: oy,
            clip: vis, state: h.state, by: h.by });
        }
        continue;
      }
      if (h.state === 'hidden') { hidden++; continue; }
      if (h.state === 'offscreen') { offscreen++; continue; }
      if (h.state === 'clipped') { clipped++; continue; }
      const sig = opts.ax ? sigOf(el) : undefined;
      const d = describe(el, active, sig);
      const { role, label } = d;
      if (h.state === 'covered') {
        if (covered.length < 50) covered.push({ key: keyFor(el), label, role, by: h.by.label, byRole: h.by.role, context: context(el, label) });
        continue;
      }
      const item = { key: keyFor(el), role, label, context: context(el, label) };
      if (d.description) item.description = d.description;
      // Kept apart: the accessibility tree may still name it; used only if nothing else does.
      else if (C.namesNothing(label)) { const hint = hintOf(el, label); if (hint) item.hint = hint; }
      const value = valueOf(el);
      if (value !== undefined) item.value = value;
      // Where a link goes (host and path, no query): two links of one name may go apart.
      if ((el.tagName === 'A' || el.tagName === 'AREA') && el.hasAttribute('href')) {
        const destination = C.destinationOf(el.href);
        if (destination) item.destination = destination;
      }
      if (el.tagName === 'SELECT') {
        const options = [...el.options].map((o) => C.truncate(C.normText(o.label || o.text), C.LABEL_MAX)).filter(C.hasWord);
        if (options.length) item.options = options.slice(0, C.OPTIONS_MAX);
      }
      item.states = d.states;
      // Kept apart too: the accessibility tree's states replace these later (axMerge).
      if (C.opensFileChooser(fileDescriptor(el))) { item.file = true; item.states = item.states.concat('file'); }
      if (d.handler) { item.handler = true; handlers++; }
      if (d.looked) { fromAx++; item.ax = true; }
      else if (opts.ax && pending.length < AX_LOOKUP_MAX) pending.push({ el, key: item.key, sig });
      item.x = Math.round(h.x); item.y = Math.round(h.y);
      const r = h.rect;
      item.bounds = [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
      elements.push(item);
    }
    announce();
    pendingAx = pending;
    scanSeq++;
    const result = {
      seq: scanSeq,
      url: location.href, title: document.title, top: self === top, nonce: FRAME_NONCE,
      viewport: { width: innerWidth, height: innerHeight },
      scroll: { x: scrollX, y: scrollY },
      elements, covered, frames, unannounced,
      axPending: pending.map((p) => p.key),
      counts: { candidates: cands.length, hidden, offscreen, clipped, handlers, fromAx, pointerReads: pctx.reads },
    };
    const tLoop = performance.now();
    if (opts.text) {
      const pt = C.pageText(document.body ? document.body.innerText : '', opts.textMax || 5000);
      result.text = pt.text;
      result.textTruncated = pt.truncated;
    }
    result.scanMs = performance.now() - t0;
    result.breakdown = { collectMs: tCollect - t0, loopMs: tLoop - tCollect, contextMs: tContext, textMs: performance.now() - tLoop };
    return result;
  }

  function elementFor(key) {
    const ref = byKey.get(key);
    const el = ref && ref.deref();
    if (!el || !el.isConnected) return null;
    return el;
  }

  /** Check identity and geometry of a key right before acting. */
  function resolve(msg) {
    const el = elementFor(msg.key);
    if (!el) return { stale: 'the element is no longer in the page' };
    const { role, label } = describe(el, deepActive());
    if (msg.role && role !== msg.role) return { stale: `the element changed role (${msg.role} -> ${role})` };
    if (msg.label != null && C.labelKey(label) !== C.labelKey(msg.label)) return { stale: `the element changed label ("${msg.label}" -> "${label}")` };
    let h = hitTest(el);
    let scrolledIntoView = false;
    if ((h.state === 'offscreen' || h.state === 'clipped') && msg.scrollIntoView !== false) {
      el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
      scrolledIntoView = true;
      h = hitTest(el);
    }
    const out = { state: h.state, x: h.x, y: h.y, by: h.by, role, label, scrolledIntoView,
      disabled: !!(el.disabled || el.getAttribute('aria-disabled') === 'true'),
      readOnly: !!el.readOnly, editable: isEditable(el), checked: checkedOf(el), value: valueOf(el),
      tag: el.tagName.toLowerCase(), type: (el.getAttribute('type') || '').toLowerCase(),
      viewport: { width: innerWidth, height: innerHeight } };
    if (h.rect) out.bounds = [Math.round(h.rect.left), Math.round(h.rect.top), Math.round(h.rect.width), Math.round(h.rect.height)];
    return out;
  }

  /** The nodes of the item the element belongs to (what "change" watches). */
  function itemNodes(el) {
    for (let node = el, depth = 0; node && depth < 12; depth++) {
      const parent = parentOf(node);
      if (!parent || node === document.body) break;
      const kids = [...parent.children];
      const idx = kids.indexOf(node);
      const g = idx >= 0 ? C.itemGroup(kids.map(signature), idx, 3) : null;
      if (g) return kids.slice(g[0], g[1]);
      if (ITEM_TAGS.has(node.tagName) || ITEM_ROLES.has((node.getAttribute('role') || '').toLowerCase())) return [node];
      node = parent;
    }
    const p = parentOf(el);
    return [p && p !== document.body ? p : el];
  }

  function visibleNow(el) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    return !el.checkVisibility || el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  }

  function snapshot(w) {
    const el = w ? (w.el.deref ? w.el.deref() : null) : null;
    const exists = !!(el && el.isConnected);
    const s = { url: location.href, exists, scrollX: Math.round(scrollerX()), scrollY: Math.round(scrollerY()), mutations: w ? w.count : 0 };
    if (exists) {
      s.visible = visibleNow(el);
      const v = valueOf(el);
      s.value = v === undefined ? null : v;
      const c = checkedOf(el);
      s.checked = c === undefined ? null : c;
    } else {
      s.visible = false;
    }
    return s;
  }

  let mainScroller = null;
  function scroller() {
    if (mainScroller && mainScroller.isConnected) return mainScroller;
    const se = document.scrollingElement || document.documentElement;
    if (se.scrollHeight > se.clientHeight + 1) return (mainScroller = se);
    // A page whose body does not scroll: the largest scrollable element in the viewport.
    let best = se, bestArea = 0;
    for (const el of document.querySelectorAll('body *')) {
      if (el.scrollHeight <= el.clientHeight + 1) continue;
      const oy = getComputedStyle(el).overflowY;
      if (oy !== 'auto' && oy !== 'scroll') continue;
      const r = el.getBoundingClientRect();
      const area = r.width * r.height;
      if (area > bestArea) { best = el; bestArea = area; }
    }
    return (mainScroller = best);
  }
  const scrollerX = () => { const s = document.scrollingElement; return s ? s.scrollLeft : scrollX; };
  const scrollerY = () => { const s = scroller(); return s.scrollTop; };

  function watch(msg) {
    const el = msg.key != null ? elementFor(msg.key) : null;
    const w = { el: el ? new WeakRef(el) : { deref: () => null }, count: 0, observers: [] };
    if (el) {
      const nodes = itemNodes(el);
      const mo = new MutationObserver((recs) => { w.count += recs.length; });
      for (const n of nodes) mo.observe(n, { subtree: true, childList: true, attributes: true, characterData: true });
      const parent = parentOf(nodes[0]);
      if (parent) mo.observe(parent, { childList: true });
      w.observers.push(mo);
      const onInput = () => { w.count++; };
      el.addEventListener('input', onInput, true);
      el.addEventListener('change', onInput, true);
      w.cleanup = () => { el.removeEventListener('input', onInput, true); el.removeEventListener('change', onInput, true); };
    }
    watches.set(msg.token, w);
    return snapshot(w);
  }

  function unwatch(token) {
    const w = watches.get(token);
    if (!w) return;
    for (const o of w.observers) o.disconnect();
    if (w.cleanup) w.cleanup();
    watches.delete(token);
  }

  function focusAndSelect(msg) {
    const el = elementFor(msg.key);
    if (!el) return { stale: 'the element is no longer in the page' };
    el.focus({ preventScroll: true });
    if (msg.noSelect) return { focused: deepActive() === el, value: valueOf(el) };
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
      try { el.select(); } catch (_) { /* some input types have no selection */ }
      try { el.setSelectionRange(0, el.value.length); } catch (_) { /* email/number inputs */ }
    } else if (el.isContentEditable) {
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    }
    return { focused: deepActive() === el, value: valueOf(el) };
  }

  function selectOption(msg) {
    const el = elementFor(msg.key);
    if (!el) return { stale: 'the element is no longer in the page' };
    if (el.tagName !== 'SELECT') return { unsupported: 'select works on <select> elements only' };
    const want = C.labelKey(msg.option);
    const opts = [...el.options];
    let o = opts.find((x) => C.labelKey(x.label || x.text) === want) || opts.find((x) => C.labelKey(x.value) === want);
    if (!o) {
      const partial = opts.filter((x) => C.labelKey(x.label || x.text).includes(want));
      if (partial.length === 1) o = partial[0];
    }
    if (!o) return { noOption: true, options: opts.slice(0, 50).map((x) => C.normText(x.label || x.text)) };
    if (o.disabled) return { disabledOption: true };
    el.focus({ preventScroll: true });
    el.value = o.value;
    o.selected = true;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { selected: C.normText(o.label || o.text) };
  }

  function scrollPage(msg) {
    const s = scroller();
    const before = s.scrollTop;
    const max = s.scrollHeight - s.clientHeight;
    const page = Math.max(40, Math.round((s === document.scrollingElement ? innerHeight : s.clientHeight) * 0.8));
    const dy = msg.direction === 'up' ? -page : page;
    if ((dy > 0 && before >= max - 1) || (dy < 0 && before <= 0)) return { atEnd: true, scrollY: before, max };
    s.scrollBy({ top: dy, behavior: 'instant' });
    return { from: before, to: s.scrollTop, max };
  }

  /** Where child frame `frameId` sits in this frame, and whether a point inside it is hit. */
  function frameOffset(msg) {
    const all = [];
    collectFrames(document, all);
    for (const f of all) {
      if (frameNonce.get(f) !== msg.nonce) continue;
      const r = f.getBoundingClientRect();
      const cs = getComputedStyle(f);
      const ox = r.left + f.clientLeft + parseFloat(cs.paddingLeft || 0);
      const oy = r.top + f.clientTop + parseFloat(cs.paddingTop || 0);
      const out = { offsetX: ox, offsetY: oy };
      if (msg.points) {
        out.points = msg.points.map(([x, y]) => {
          const px = ox + x, py = oy + y;
          if (px < 0 || py < 0 || px >= innerWidth || py >= innerHeight) return { state: 'offscreen' };
          const hit = deepHit(px, py);
          if (hit === f) return { state: 'ok' };
          if (!hit) return { state: 'offscreen' };
          if (composedContains(hit, f)) return { state: 'clipped' };
          const by = describeCover(hit);
          return { state: 'covered', by };
        });
      }
      return out;
    }
    return { missing: true };
  }

  function collectFrames(root, out) {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') out.push(el);
      const sr = openOrClosed(el);
      if (sr) collectFrames(sr, out);
    }
  }

  function handle(msg) {
    switch (msg.cmd) {
      case 'scan': return scan(msg);
      case 'resolve': return resolve(msg);
      case 'watch': return watch(msg);
      case 'probe': { const w = watches.get(msg.token); return w ? snapshot(w) : { ...snapshot(null), noWatch: true }; }
      case 'unwatch': unwatch(msg.token); return {};
      case 'focus': return focusAndSelect(msg);
      case 'select': return selectOption(msg);
      case 'scroll': return scrollPage(msg);
      case 'scrollState': return { scrollY: scrollerY(), scrollX: scrollerX() };
      case 'frameOffset': return frameOffset(msg);
      case 'alive': return { url: location.href, readyState: document.readyState, docToken: DOC_TOKEN, height: innerHeight };
      default: return { error: 'unknown content command ' + msg.cmd };
    }
  }

  /** The elements of the last scan still without an accessibility-tree entry (for chrome.debugger). */
  function axPendingElements() {
    const a = pendingAx.map((p) => p.el);
    a.nonce = FRAME_NONCE;
    a.seq = scanSeq;
    return a;
  }

  /** Keep what the accessibility tree said about `els` (axSummary objects, aligned). */
  function axStore(els, summaries) {
    const sigs = new Map(pendingAx.map((p) => [p.el, p.sig]));
    let n = 0;
    for (let i = 0; i < els.length; i++) {
      if (!sigs.has(els[i]) || !summaries[i]) continue;
      axCache.set(els[i], { sig: sigs.get(els[i]), ax: summaries[i] });
      n++;
    }
    return n;
  }

  /** Mark elements the worker found click listeners on (`navigates`: aligned booleans). */
  function markClickable(navigates, els) {
    let n = 0;
    els.forEach((el, i) => {
      if (!el || el.nodeType !== 1 || el.ownerDocument !== document) return;
      clickMarks.set(el, { navigates: !!navigates[i] });
      n++;
    });
    return n;
  }

  self.__circe = { handle, scan, nonce: FRAME_NONCE, axPending: axPendingElements, axStore, markClickable };
  announce();

  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    if (!msg || msg.circe !== 1) return false;
    try {
      sendResponse({ ok: true, result: handle(msg) });
    } catch (e) {
      sendResponse({ ok: false, error: String((e && e.stack) || e) });
    }
    return false;
  });
})();

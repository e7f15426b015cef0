// Pure helpers shared by the content script, the service worker and the unit tests.
// No DOM and no chrome.* here: everything takes plain data, so `node --test` can exercise it.
// Loaded as a classic script (content script list, importScripts in the worker) and by
// require() in Node.
(function (root) {
  'use strict';

  const CONTEXT_MAX = 200;
  const LABEL_MAX = 120;
  /** Choices kept per closed list (a `<select>`'s options); the daemon's MAX_OPTIONS. */
  const OPTIONS_MAX = 50;

  /** The longest destination sent; the daemon's MAX_DESTINATION. */
  const DESTINATION_MAX = 200;

  /** FNV-1a, 32 bits, as 8 hex digits: a query's fingerprint, not the query. */
  function fingerprint(s) {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, '0');
  }

  /**
   * Where a link goes, as the daemon compares it: the host and path of an http(s) address,
   * and a fingerprint of its query and fragment when it has them ("?page=2" and "?page=3" go to
   * two places), never the query itself (it may carry a session or an access token). `href` is
   * the link's resolved address (`a.href`); null for script links, mail and other schemes.
   */
  function destinationOf(href) {
    let u;
    try { u = new URL(String(href || '')); } catch (e) { return null; }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    const rest = u.search + (u.hash === '#' ? '' : u.hash);
    const d = u.host + u.pathname + (rest ? ' ' + fingerprint(rest) : '');
    return d.length > DESTINATION_MAX ? d.slice(0, DESTINATION_MAX) : d;
  }

  /** Collapse whitespace and trim. */
  function normText(s) {
    // Icon-font glyphs (Unicode private use areas, e.g. Font Awesome's U+F015) are pictures, not words.
    // Soft hyphens, zero-width joiners and the byte-order mark sit inside words unseen
    // ("Pu\u00adbli\u00adka\u00adtio\u00adnen"): dropped, so the word stays whole.
    return String(s == null ? '' : s)
      .replace(/[\u00ad\u200c\u200d\u2060\ufeff]/g, '')
      .replace(/[\ue000-\uf8ff]|[\udb80-\udbbf][\udc00-\udfff]/g, ' ')
      .replace(/[\s\u00a0\u200b]+/g, ' ').trim();
  }

  /** Cut at `max` characters on a word boundary when one is close, adding an ellipsis. */
  function truncate(s, max) {
    s = String(s);
    if (s.length <= max) return s;
    let cut = s.slice(0, max - 1);
    const sp = cut.lastIndexOf(' ');
    if (sp > max * 0.7) cut = cut.slice(0, sp);
    return cut.replace(/[\s,;:.-]+$/, '') + '…';
  }

  /** Key used to compare labels for ordinals: case and whitespace insensitive. */
  function labelKey(label) {
    return normText(label).toLowerCase();
  }

  /**
   * Set `ordinal` and `of` (1-based, reading order) on elements that share a label with at
   * least one other element. Elements with an empty label get neither.
   */
  function assignOrdinals(elements) {
    const counts = new Map();
    for (const e of elements) {
      const k = labelKey(e.label);
      if (!k) continue;
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    const seen = new Map();
    for (const e of elements) {
      const k = labelKey(e.label);
      if (!k) continue;
      const n = counts.get(k);
      if (n < 2) continue;
      const i = (seen.get(k) || 0) + 1;
      seen.set(k, i);
      e.ordinal = i;
      e.of = n;
    }
    return elements;
  }

  /**
   * Accessible-name choice, in the order of the accessible name computation (simplified):
   * aria-labelledby, aria-label, an associated <label>, alt (images), the value of button-like
   * inputs, the text content (for roles that take their name from content), placeholder, title.
   */
  function chooseLabel(src) {
    const pick = (v) => normText(v);
    const order = [src.labelledby, src.ariaLabel, src.labelFor, src.alt, src.buttonValue];
    if (src.nameFromContent) order.push(src.text);
    order.push(src.placeholder, src.title);
    if (!src.nameFromContent) order.push(src.text);
    // Last: the text of a broken label beside the field (content's besideLabel).
    order.push(src.beside);
    for (const v of order) {
      const t = pick(v);
      if (t) return truncate(t, LABEL_MAX);
    }
    return '';
  }

  /** Does the text carry a word (a letter or a digit), or only symbols ("▲", "✕", "☰", "⋮", "★")? */
  function hasWord(s) {
    return /[\p{L}\p{N}]/u.test(String(s == null ? '' : s));
  }

  /**
   * Names that say only what kind of thing a control is ("Link", "Button", "Icon", "Image"):
   * authors write them as `aria-label`s, and a person never says them to mean this control.
   */
  const ROLE_ONLY_NAMES = new Set(['link', 'links', 'button', 'icon', 'image', 'img', 'picture', 'graphic', 'svg', 'click', 'click here']);

  /** Does a label leave a control unnamed: no word at all, or only a role word ("Link")? */
  function namesNothing(s) {
    return !hasWord(s) || ROLE_ONLY_NAMES.has(normText(s).toLowerCase());
  }

  /**
   * The label a person says: the accessible name, unless that is only a symbol and the
   * description (title, aria-describedby) has the word ("▲" titled "upvote" is "upvote").
   * `fallback` (the DOM's own label) is used when both are empty.
   */
  function wordLabel(name, description, fallback) {
    const n = normText(name);
    const d = normText(description);
    if (!hasWord(n) && hasWord(d)) return truncate(d, LABEL_MAX);
    if (n) return truncate(n, LABEL_MAX);
    const f = normText(fallback);
    if (!hasWord(f) && hasWord(d)) return truncate(d, LABEL_MAX);
    return truncate(f, LABEL_MAX);
  }

  /** Words in class names and link paths that say nothing about what a control does. */
  const GENERIC_WORDS = new Set(['btn', 'button', 'buttons', 'icon', 'icons', 'ico', 'fa', 'fas', 'far', 'fab', 'fal',
    'glyphicon', 'material', 'symbols', 'outlined', 'svg', 'img', 'image', 'hidden', 'visible', 'show', 'hide', 'xs', 'sm', 'md',
    'lg', 'xl', 'xxl', 'default', 'primary', 'secondary', 'tertiary', 'js', 'is', 'has', 'active', 'inactive', 'col', 'row',
    'pull', 'left', 'right', 'top', 'bottom', 'center', 'bg', 'text', 'color', 'blue', 'red', 'green', 'white', 'black',
    'dark', 'light', 'small', 'large', 'big', 'mini', 'link', 'links', 'item', 'items', 'list', 'wrapper', 'wrap', 'container',
    'inner', 'outer', 'block', 'inline', 'flex', 'grid', 'normal', 'hover', 'focus', 'selected', 'disabled', 'round', 'rounded',
    'circle', 'square', 'outline', 'ghost', 'clear', 'fix', 'clearfix', 'sr', 'only', 'nav', 'navbar', 'menu', 'bar', 'social',
    'unstyled', 'style', 'styled', 'main', 'header', 'footer', 'sidebar', 'panel', 'box', 'card', 'section', 'part', 'element',
    'widget', 'component', 'module', 'control', 'action', 'actions', 'tool', 'tools', 'toolbar', 'group', 'www', 'com', 'org',
    'net', 'html', 'htm', 'shtml', 'php', 'asp', 'aspx', 'jsp', 'none', 'null', 'true', 'false', 'index', 'http', 'https', 'the', 'and', 'for', 'with']);

  /** Lower-case words of an identifier-like string ("btn-close-search", "shareButton", "share.php"). */
  function identifierWords(s) {
    return String(s || '')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z\u00e0-\u00ff]+/)
      .filter((w) => w.length >= 3 && !GENERIC_WORDS.has(w));
  }

  /**
   * What an unnamed control says without a name (an icon link or button), for its description:
   * where a link goes (`mailto:` is email, `tel:` a call, another site by its name and path, this
   * site's root is home) and the words of its own, its icon's and its wrapper's class names
   * ("btn-close-search" is "close search", `<li class="print">` print). Developers' words, kept
   * apart from the label; '' when nothing says anything.
   */
  function unnamedHint(src) {
    const words = [];
    const href = String(src.href || '').trim();
    if (/^mailto:/i.test(href)) words.push('email');
    else if (/^tel:/i.test(href)) words.push('call', 'phone');
    else if (/^javascript:/i.test(href)) { if (/print/i.test(href)) words.push('print'); }
    else if (/^https?:/i.test(href)) {
      let url = null;
      try { url = new URL(href); } catch (e) { url = null; }
      if (url) {
        const host = url.hostname.replace(/^(www|m|mobile)\./, '');
        const own = String(src.pageHost || '').replace(/^(www|m|mobile)\./, '');
        const segments = url.pathname.split('/').filter(Boolean).slice(0, 2);
        if (host !== own) words.push(...identifierWords(host.split('.')[0]));
        if (host === own && segments.length === 0 && !url.search) words.push('home');
        for (const seg of segments) {
          if (/\d{3,}/.test(seg) || seg.length > 30) continue; // ids and slugs of one item
          words.push(...identifierWords(seg));
        }
      }
    }
    for (const c of src.classes || []) words.push(...identifierWords(c));
    const seen = new Set();
    const out = [];
    for (const w of words) {
      if (seen.has(w)) continue;
      seen.add(w);
      out.push(w);
      if (out.length === 6) break;
    }
    return out.join(' ');
  }

  /** Does a click handler's source (an onclick attribute, a listener) navigate? */
  function navigatesBySource(src) {
    return /\blocation(\.href)?\s*=[^=]|\blocation\.(assign|replace)\s*\(|\bwindow\.open\s*\(|\.href\s*=[^=]|\bnavigate\s*\(/.test(String(src || ''));
  }

  /**
   * Role of an element that is clickable only by a handler (a click listener, an onclick
   * attribute, cursor: pointer) and has no widget role of its own: a link when it navigates,
   * a button otherwise.
   */
  function clickRole(h) {
    if (h.navigates || h.hrefLike) return 'link';
    return 'button';
  }

  /** Click-like listener types that make an element a click target. */
  const CLICK_EVENTS = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend', 'auxclick', 'dblclick']);

  /**
   * Group DOMDebugger.getEventListeners results by node: [{backendNodeId, navigates}] for nodes
   * with a click-like listener, at most `max`, leaving out the `skip` ids (document, html, body,
   * nodes already known).
   */
  function clickListenerNodes(listeners, skip, max) {
    const byNode = new Map();
    for (const l of listeners || []) {
      if (!l || !CLICK_EVENTS.has(l.type) || !l.backendNodeId) continue;
      if (skip && skip.has(l.backendNodeId)) continue;
      const src = l.handler && l.handler.description;
      const prev = byNode.get(l.backendNodeId);
      const navigates = navigatesBySource(src);
      if (prev) prev.navigates = prev.navigates || navigates;
      else byNode.set(l.backendNodeId, { backendNodeId: l.backendNodeId, navigates });
    }
    return [...byNode.values()].slice(0, max == null ? 100 : max);
  }

  /** Properties of a CDP AXNode as {name: value}. */
  function axProps(node) {
    const out = {};
    for (const p of (node && node.properties) || []) out[p.name] = p.value ? p.value.value : undefined;
    return out;
  }

  /** The part of a CDP AXNode Circe keeps (and caches per element): role, name, description, states. */
  function axSummary(node) {
    if (!node) return null;
    const props = axProps(node);
    return {
      ignored: !!node.ignored,
      role: node.role ? String(node.role.value || '') : '',
      name: node.name ? normText(node.name.value) : '',
      description: node.description ? normText(node.description.value) : '',
      props,
    };
  }

  /** Circe's states from the accessibility tree's properties (focus is read live from the DOM). */
  function axStates(props, focused) {
    const s = [];
    if (props.focusable) s.push('focusable');
    if (focused) s.push('focused');
    if (props.checked === 'true' || props.checked === true || props.pressed === 'true' || props.pressed === true) s.push('checked');
    if (props.selected === true || props.selected === 'true') s.push('selected');
    if (props.disabled === true || props.disabled === 'true') s.push('disabled');
    if (props.expanded === true || props.expanded === 'true') s.push('expanded');
    if ((props.editable === 'plaintext' || props.editable === 'richtext') && !props.readonly && !props.disabled) s.push('editable');
    return s;
  }

  /**
   * Merge what the accessibility tree says about an element (`ax`: an axSummary) with the DOM's
   * own reading (`dom`: {role, label, description, states, focused, handler}). The tree's role
   * wins when it is a widget role; its name and description win when it has them; a handler-only
   * element (a generic div with a click listener) keeps the DOM's role and text.
   */
  function fromAX(ax, dom) {
    if (!ax || ax.ignored) return { role: dom.role, label: wordLabel(dom.label, dom.description, ''), description: dom.description || '', states: dom.states, source: 'dom' };
    const role = WIDGET_ROLES.has(ax.role) ? ax.role : dom.role;
    const description = ax.description || (dom.handler ? dom.description || '' : '');
    const label = wordLabel(ax.name, description, dom.label);
    const states = WIDGET_ROLES.has(ax.role) ? axStates(ax.props || {}, dom.focused) : dom.states;
    return { role, label, description, states, source: 'ax' };
  }

  const WIDGET_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton',
    'treeitem', 'gridcell', 'listbox', 'scrollbar',
  ]);

  /** Roles whose accessible name comes from their content. */
  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'treeitem', 'gridcell', 'heading', 'listitem', 'cell',
  ]);

  const TEXT_INPUT_TYPES = new Set(['', 'text', 'email', 'url', 'tel', 'password', 'search', 'number',
    'date', 'datetime-local', 'month', 'week', 'time']);

  /**
   * ARIA role of an element from a plain descriptor:
   * {tag, type, role, hasHref, multiple, size, editable, list}.
   */
  function roleOf(d) {
    const explicit = normText(d.role).split(' ')[0].toLowerCase();
    if (explicit && explicit !== 'none' && explicit !== 'presentation' && explicit !== 'generic') return explicit;
    const tag = String(d.tag || '').toLowerCase();
    const type = String(d.type || '').toLowerCase();
    switch (tag) {
      case 'a': case 'area': return d.hasHref ? 'link' : (d.editable ? 'textbox' : 'button');
      case 'button': case 'summary': return 'button';
      case 'select': return d.multiple || (d.size && d.size > 1) ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'option': return 'option';
      case 'img': return 'image';
      case 'iframe': case 'frame': return 'iframe';
      case 'input':
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (type === 'search') return d.list ? 'combobox' : 'searchbox';
        if (['button', 'submit', 'reset', 'image', 'file', 'color'].includes(type)) return 'button';
        if (TEXT_INPUT_TYPES.has(type)) return d.list ? 'combobox' : 'textbox';
        return 'textbox';
      default:
        if (d.editable) return 'textbox';
        return 'button'; // [onclick] / [tabindex] on a generic element: it behaves as a button
    }
  }

  /**
   * Given the signatures of a parent's children (e.g. "TR.athing", "TR", "TR.spacer" repeated),
   * find the item group that child `idx` belongs to, as [start, end). Children repeated fewer
   * than `minRepeat` times are not items. A repeating sequence of several signatures (Hacker
   * News' title row + subline row + spacer row) forms one group that starts at the signature of
   * that sequence that occurs first. Returns null when `idx` is not part of a repeated item.
   */
  function itemGroup(sigs, idx, minRepeat = 3) {
    return itemGroupIn(siblingProfile(sigs), idx, minRepeat);
  }

  /**
   * What `itemGroup` needs to know about all of a parent's children, computed once per parent:
   * how often each signature occurs and where it first does. A flat page (hundreds of buttons in
   * one container) would otherwise recount every sibling for every child.
   */
  function siblingProfile(sigs) {
    const counts = new Map();
    const first = new Map();
    sigs.forEach((s, i) => { counts.set(s, (counts.get(s) || 0) + 1); if (!first.has(s)) first.set(s, i); });
    return { sigs, counts, first, periodic: new Map() };
  }

  function itemGroupIn(profile, idx, minRepeat = 3) {
    const { sigs, counts, first } = profile;
    const own = sigs[idx];
    const n = counts.get(own) || 0;
    if (n < minRepeat) return null;
    // The signatures that repeat about as often as this one (cached per count).
    const key = n + '/' + minRepeat;
    let periodic = profile.periodic.get(key);
    if (!periodic) {
      const similar = (m) => m >= minRepeat && Math.abs(m - n) <= Math.max(2, Math.round(n * 0.2));
      periodic = new Set();
      for (const [s, m] of counts) if (similar(m)) periodic.add(s);
      profile.periodic.set(key, periodic);
    }
    // The group starts at the periodic signature that appears first among the children.
    let startSig = own;
    let best = first.get(own);
    for (const s of periodic) if (first.get(s) < best) { best = first.get(s); startSig = s; }
    const maxLen = periodic.size;
    let start = idx;
    while (start > 0 && sigs[start] !== startSig && idx - start < maxLen - 1 && periodic.has(sigs[start - 1])) start--;
    if (sigs[start] !== startSig) start = idx; // not in a clean sequence: the child alone
    let end = start + 1;
    while (end < sigs.length && end - start < maxLen && sigs[end] !== startSig && periodic.has(sigs[end])) end++;
    if (end <= idx) end = idx + 1;
    if (end - start > 1 && !repeatedSequence(profile, start, end, minRepeat)) return [idx, idx + 1];
    return [start, end];
  }

  /**
   * Several siblings are one item only if they differ from each other and their sequence of
   * signatures recurs at least `minRepeat` times: read and unread rows of a mail list (two
   * signatures, similar counts) are items of one sibling each, not pairs. Cached per sequence.
   */
  function repeatedSequence(profile, start, end, minRepeat) {
    const seq = profile.sigs.slice(start, end);
    if (new Set(seq).size !== seq.length) return false;
    const key = seq.join('\u0000');
    profile.sequences = profile.sequences || new Map();
    let n = profile.sequences.get(key);
    if (n === undefined) {
      n = 0;
      for (let i = 0; i + seq.length <= profile.sigs.length; i++) {
        if (seq.every((s, k) => profile.sigs[i + k] === s)) { n++; i += seq.length - 1; }
      }
      profile.sequences.set(key, n);
    }
    return n >= minRepeat;
  }

  /** Context string from an item's text: whitespace-collapsed, at most 200 characters. */
  function contextText(text) {
    return truncate(normText(text), CONTEXT_MAX);
  }

  /** Visible page text: trimmed lines, no blank runs, at most `max` characters. */
  function pageText(raw, max = 5000) {
    const lines = String(raw || '').split(/\n/).map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim()).filter(Boolean);
    const text = lines.join('\n');
    if (text.length <= max) return { text, truncated: false };
    return { text: text.slice(0, max), truncated: true };
  }

  /** The expectation used when the command gives none. */
  function defaultExpect(action, args) {
    switch (action) {
      case 'click': return { change: true };
      case 'type': return { value: String(args.text == null ? '' : args.text) };
      case 'select': return { value: String(args.option == null ? '' : args.option) };
      case 'check': return { checked: true };
      case 'uncheck': return { checked: false };
      case 'press': return { change: true };
      case 'scroll': return { scrolled: true };
      case 'back': case 'open': return { navigation: true };
      case 'switchTab': return { active: true };
      case 'reload': return { navigation: true };
      default: return {};
    }
  }

  /** An absolute POSIX path (what `upload` takes): a string that begins with "/", no NUL. */
  function isAbsolutePath(p) {
    return typeof p === 'string' && p.startsWith('/') && p.length <= 4096 && !p.includes('\0');
  }

  /** The last component of a path: the name a file input shows for it. */
  function baseName(p) {
    const parts = String(p).split('/');
    return parts[parts.length - 1];
  }

  /**
   * Does a control open a file chooser? From a plain descriptor {tag, type, control, controls}:
   * an `<input type=file>`, a `<label>` whose control (`control`: {tag, type}) is one, or an
   * element whose `aria-controls` names one (`controls`: [{tag, type}]). The scan marks it with
   * the state `file`; a button whose script opens a hidden input is known only by its words.
   */
  function opensFileChooser(d) {
    const isFile = (n) => !!n && String(n.tag).toUpperCase() === 'INPUT' && String(n.type || '').toLowerCase() === 'file';
    if (isFile(d)) return true;
    if (String(d.tag).toUpperCase() === 'LABEL' && isFile(d.control)) return true;
    return (d.controls || []).some(isFile);
  }

  const EXPECT_KEYS = ['navigation', 'gone', 'value', 'checked', 'change', 'scrolled', 'active', 'url'];

  /** Is `expect` a well-formed expectation? Returns an error message or null. */
  function validateExpect(expect) {
    if (expect == null) return null;
    if (typeof expect !== 'object' || Array.isArray(expect)) return 'expect must be an object';
    for (const k of Object.keys(expect)) {
      if (!EXPECT_KEYS.includes(k)) return `unknown expect key "${k}"`;
    }
    for (const k of ['navigation', 'gone', 'checked', 'change', 'scrolled', 'active']) {
      if (k in expect && typeof expect[k] !== 'boolean') return `expect.${k} must be a boolean`;
    }
    if ('value' in expect && typeof expect.value !== 'string') return 'expect.value must be a string';
    if ('url' in expect && typeof expect.url !== 'string') return 'expect.url must be a string';
    return null;
  }

  function sameValue(a, b) {
    return normText(a) === normText(b);
  }

  /**
   * Decide whether `expect` holds, given a snapshot taken before the input and one taken now.
   * Snapshots: {url, documentId, exists, visible, value, checked, mutations, scrollX, scrollY, active}.
   * `after.documentGone` means the element's document no longer exists (navigation or frame
   * removal). Returns {met, checks: {key: bool}}.
   */
  function evaluateExpect(expect, before, after) {
    const checks = {};
    const navigated = after.url !== before.url || (after.documentId && before.documentId && after.documentId !== before.documentId) ||
      !!after.mainDocumentGone || !!after.openedTab;
    const gone = !!after.documentGone || after.exists === false || after.visible === false;
    for (const [k, want] of Object.entries(expect || {})) {
      switch (k) {
        case 'navigation': checks[k] = want ? !!navigated : !navigated; break;
        case 'url': checks[k] = urlMatches(after.url, want); break;
        case 'gone': checks[k] = want ? gone : !gone; break;
        case 'value': checks[k] = !after.documentGone && after.value != null && sameValue(after.value, want); break;
        case 'checked': checks[k] = !after.documentGone && after.checked === want; break;
        case 'change': {
          const changed = !!navigated || gone || (after.mutations || 0) > (before.mutations || 0) ||
            (after.value != null && before.value != null && after.value !== before.value) ||
            (after.checked != null && before.checked != null && after.checked !== before.checked);
          checks[k] = want ? changed : !changed;
          break;
        }
        case 'scrolled': {
          const moved = !after.documentGone && (after.scrollX !== before.scrollX || after.scrollY !== before.scrollY);
          checks[k] = want ? moved : !moved;
          break;
        }
        case 'active': checks[k] = after.active === want; break;
        default: checks[k] = false;
      }
    }
    const keys = Object.keys(checks);
    return { met: keys.length > 0 && keys.every((k) => checks[k]), checks };
  }

  /** Compare URLs ignoring a trailing slash on the path and a bare "#" fragment. */
  function urlMatches(actual, wanted) {
    const norm = (u) => {
      try {
        const x = new URL(u);
        let s = x.href.replace(/#$/, '');
        if (x.pathname !== '/' && s.endsWith('/') && !x.search && !x.hash) s = s.slice(0, -1);
        return s;
      } catch (_) {
        return String(u);
      }
    };
    return norm(actual) === norm(wanted);
  }

  /**
   * The `tabs` command's list: every tab with its id, window, URL (the pending one while the
   * first load has not committed), title, `active` in its window, `status`, and `current` for the
   * tab in front (the one `observe` and "this tab" mean).
   */
  function listTabs(tabs, currentId) {
    return (tabs || []).map((t) => ({
      tabId: t.id, windowId: t.windowId, url: t.url || t.pendingUrl || '', title: t.title || '',
      active: !!t.active, current: t.id === currentId, status: t.status || '',
    }));
  }

  /** Does a failed script injection say the frame shows Chrome's error page? */
  function isErrorPage(message) {
    return /showing error page|chrome-error:\/\//i.test(String(message || ''));
  }

  /**
   * Whether a tab's top document has loaded, from the tab and what a script read in the
   * document ({href, readyState, httpStatus}). Loaded: parsed (readyState not "loading"), no
   * other navigation pending, and the document is the tab's URL.
   */
  function loadedState(tab, doc) {
    if (!doc) return { loaded: false };
    const out = { readyState: doc.readyState, loaded: false };
    if (doc.httpStatus != null) out.httpStatus = doc.httpStatus;
    out.loaded = doc.readyState !== 'loading' && !tab.pendingUrl && urlMatches(doc.href, tab.url || '');
    return out;
  }

  /** Reconnect delay in ms after `attempt` consecutive failures: 0.5 s doubling up to 30 s. */
  function backoffDelay(attempt) {
    return Math.min(500 * Math.pow(2, Math.max(0, attempt)), 30000);
  }

  // ---- per-tab page history (for "back") ----
  const HISTORY_MAX = 50;

  /** Record a committed navigation. Returns the new stack (does not mutate). */
  function historyPush(stack, url, max = HISTORY_MAX) {
    const s = (stack || []).slice();
    if (!url) return s;
    if (s.length && s[s.length - 1] === url) return s;
    s.push(url);
    while (s.length > max) s.shift();
    return s;
  }

  /**
   * Where "back" goes: {target, stack} with the current entry removed, or null when there is no
   * previous page. Entries equal to the current URL (fragment-only repeats) are skipped.
   */
  function historyBack(stack, currentUrl) {
    const s = (stack || []).slice();
    if (currentUrl && s.length && s[s.length - 1] !== currentUrl) s.push(currentUrl);
    while (s.length && s[s.length - 1] === currentUrl) s.pop();
    if (!s.length) return null;
    return { target: s[s.length - 1], stack: s };
  }

  // ---- keys for Input.dispatchKeyEvent ----
  const NAMED_KEYS = {
    enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
    return: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
    tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
    escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
    esc: { key: 'Escape', code: 'Escape', keyCode: 27 },
    backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
    delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
    space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
    ' ': { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
    arrowup: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
    arrowdown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
    arrowleft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
    arrowright: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
    up: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
    down: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
    left: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
    right: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
    home: { key: 'Home', code: 'Home', keyCode: 36 },
    end: { key: 'End', code: 'End', keyCode: 35 },
    pageup: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
    pagedown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  };
  const MODIFIERS = { alt: 1, control: 2, ctrl: 2, meta: 4, cmd: 4, command: 4, shift: 8 };

  /**
   * Parse "Enter", "a", "Shift+Tab", "Ctrl+A" into the fields of Input.dispatchKeyEvent:
   * {key, code, windowsVirtualKeyCode, text?, modifiers}. Returns null for an unknown key.
   */
  function keyEvent(spec) {
    if (typeof spec !== 'string' || !spec) return null;
    const parts = spec.length > 1 ? spec.split('+') : [spec];
    let modifiers = 0;
    let main = parts.pop();
    if (main === '' && parts.length) main = '+'; // "Ctrl++"
    for (const p of parts) {
      const m = MODIFIERS[p.trim().toLowerCase()];
      if (!m) return null;
      modifiers |= m;
    }
    const named = NAMED_KEYS[main.toLowerCase()];
    let d;
    if (named) {
      d = { ...named };
    } else if ([...main].length === 1) {
      const ch = main;
      const up = ch.toUpperCase();
      let code = '';
      if (/[a-z]/i.test(ch)) code = 'Key' + up;
      else if (/[0-9]/.test(ch)) code = 'Digit' + ch;
      const keyCode = /[a-z0-9]/i.test(ch) ? up.charCodeAt(0) : 0;
      d = { key: ch, code, keyCode, text: ch };
    } else {
      return null;
    }
    // With Ctrl/Alt/Meta a character key is a shortcut, not text.
    if (modifiers & (1 | 2 | 4)) delete d.text;
    return { key: d.key, code: d.code, windowsVirtualKeyCode: d.keyCode, nativeVirtualKeyCode: d.keyCode, text: d.text, modifiers };
  }

  const api = {
    CONTEXT_MAX, LABEL_MAX, OPTIONS_MAX, DESTINATION_MAX, destinationOf, WIDGET_ROLES, NAME_FROM_CONTENT, EXPECT_KEYS,
    normText, truncate, labelKey, assignOrdinals, chooseLabel, roleOf, itemGroup, siblingProfile, itemGroupIn, contextText, pageText,
    defaultExpect, validateExpect, isAbsolutePath, baseName, opensFileChooser, evaluateExpect, urlMatches, backoffDelay, listTabs, isErrorPage, loadedState,
    historyPush, historyBack, keyEvent,
    hasWord, namesNothing, wordLabel, unnamedHint, identifierWords, navigatesBySource, clickRole, CLICK_EVENTS, clickListenerNodes, axProps, axSummary, axStates, fromAX,
  };
  if (typeof module === 'object' && module && module.exports) module.exports = api;
  else root.CirceCore = api;
})(typeof globalThis !== 'undefined' ? globalThis : self);

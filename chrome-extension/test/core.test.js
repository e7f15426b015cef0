'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const C = require('../lib/core.js');

test('ordinals number repeated labels in reading order, case-insensitively', () => {
  const els = [{ label: 'upvote' }, { label: 'Story A' }, { label: 'Upvote' }, { label: 'hide' }, { label: 'upvote ' }, { label: '' }];
  C.assignOrdinals(els);
  assert.deepEqual(els.map((e) => [e.ordinal, e.of]), [[1, 3], [undefined, undefined], [2, 3], [undefined, undefined], [3, 3], [undefined, undefined]]);
});

test('label follows the accessible-name order', () => {
  assert.equal(C.chooseLabel({ ariaLabel: 'upvote', text: '▲', nameFromContent: true }), 'upvote');
  assert.equal(C.chooseLabel({ labelledby: 'Search videos', ariaLabel: 'x' }), 'Search videos');
  assert.equal(C.chooseLabel({ text: '  Add  to\ncart ', nameFromContent: true, title: 't' }), 'Add to cart');
  assert.equal(C.chooseLabel({ placeholder: 'Search', text: '' }), 'Search');
  assert.equal(C.chooseLabel({ labelFor: 'Email', placeholder: 'you@example.com' }), 'Email');
  // A broken label beside the field names it only when nothing else does.
  assert.equal(C.chooseLabel({ beside: ' Date of  Birth ' }), 'Date of Birth');
  assert.equal(C.chooseLabel({ placeholder: 'Year', beside: 'Date of Birth' }), 'Year');
  assert.equal(C.chooseLabel({ labelFor: 'Country', beside: 'Region' }), 'Country');
  assert.equal(C.chooseLabel({ title: 'Close', text: '' , nameFromContent: true}), 'Close');
  assert.equal(C.chooseLabel({}), '');
  assert.ok(C.chooseLabel({ text: 'x'.repeat(500), nameFromContent: true }).length <= C.LABEL_MAX);
});

test('roles use ARIA names', () => {
  assert.equal(C.roleOf({ tag: 'A', hasHref: true }), 'link');
  assert.equal(C.roleOf({ tag: 'A', hasHref: false }), 'button');
  assert.equal(C.roleOf({ tag: 'INPUT', type: 'text' }), 'textbox');
  assert.equal(C.roleOf({ tag: 'INPUT', type: 'search' }), 'searchbox');
  assert.equal(C.roleOf({ tag: 'INPUT', type: 'checkbox' }), 'checkbox');
  assert.equal(C.roleOf({ tag: 'INPUT', type: 'submit' }), 'button');
  assert.equal(C.roleOf({ tag: 'SELECT' }), 'combobox');
  assert.equal(C.roleOf({ tag: 'SELECT', multiple: true }), 'listbox');
  assert.equal(C.roleOf({ tag: 'DIV', role: 'tab' }), 'tab');
  assert.equal(C.roleOf({ tag: 'DIV', role: 'presentation' }), 'button');
  assert.equal(C.roleOf({ tag: 'DIV', editable: true }), 'textbox');
});

test('item groups: single repeated cards', () => {
  const sigs = ['H2', 'DIV.card', 'DIV.card', 'DIV.card', 'DIV.card', 'P.footer'];
  assert.deepEqual(C.itemGroup(sigs, 3), [3, 4]);
  assert.equal(C.itemGroup(sigs, 0), null);
  assert.equal(C.itemGroup(sigs, 5), null);
});

test('item groups: Hacker News title row + subline + spacer form one story', () => {
  const sigs = [];
  for (let i = 0; i < 30; i++) sigs.push('TR.athing', 'TR', 'TR.spacer');
  sigs.push('TR.morespace', 'TR');
  // the subline of story 3 (index 7) belongs with its title row (index 6)
  assert.deepEqual(C.itemGroup(sigs, 7), [6, 9]);
  assert.deepEqual(C.itemGroup(sigs, 6), [6, 9]);
  assert.deepEqual(C.itemGroup(sigs, 0), [0, 3]);
  // after a hidden story the pattern still holds
  const hid = sigs.slice(0, 3).concat(sigs.slice(6));
  assert.deepEqual(C.itemGroup(hid, 4), [3, 6]);
});

test('item groups: read and unread rows of a mail list are one row each', () => {
  const unread = 'LI.list-group-item.fw-semibold', read = 'LI.list-group-item';
  const sigs = [unread, unread, unread, read, read, read, read, read, read, read];
  for (let i = 0; i < sigs.length; i++) assert.deepEqual(C.itemGroup(sigs, i), [i, i + 1], `row ${i}`);
});

test('icon-font glyphs are not words', () => {
  assert.equal(C.normText('\uf015 Certbot'), 'Certbot');
  assert.equal(C.normText('\uf015'), '');
  assert.equal(C.normText('Pu\u00adbli\u00adka\u00adtio\u00adnen\u200b Kon\ufefftakt'), 'Publikationen Kontakt');
  assert.equal(C.normText('Caf\u00e9 \u2605 5'), 'Caf\u00e9 \u2605 5');
});

test('context is whitespace-collapsed and capped at 200 characters', () => {
  assert.equal(C.contextText('  3.\n  Show HN:   thing '), '3. Show HN: thing');
  const long = C.contextText('word '.repeat(100));
  assert.ok(long.length <= 200 && long.endsWith('…'));
});

test('page text keeps lines and caps at 5000', () => {
  assert.deepEqual(C.pageText('a  b\n\n  c \n'), { text: 'a b\nc', truncated: false });
  const t = C.pageText('x'.repeat(6000));
  assert.equal(t.text.length, 5000);
  assert.equal(t.truncated, true);
});

test('expect evaluation', () => {
  const b = { url: 'http://h/a', documentId: 'D1', exists: true, visible: true, value: '', checked: false, mutations: 0, scrollX: 0, scrollY: 0 };
  assert.equal(C.evaluateExpect({ navigation: true }, b, { ...b }).met, false);
  assert.equal(C.evaluateExpect({ navigation: true }, b, { ...b, url: 'http://h/b' }).met, true);
  assert.equal(C.evaluateExpect({ navigation: true }, b, { ...b, mainDocumentGone: true }).met, true);
  assert.equal(C.evaluateExpect({ gone: true }, b, { ...b, visible: false }).met, true);
  assert.equal(C.evaluateExpect({ gone: true }, b, { ...b, documentGone: true }).met, true);
  assert.equal(C.evaluateExpect({ value: 'lo-fi beats' }, b, { ...b, value: 'lo-fi beats' }).met, true);
  assert.equal(C.evaluateExpect({ value: 'lo-fi beats' }, b, { ...b, value: 'lo-fi' }).met, false);
  assert.equal(C.evaluateExpect({ checked: true }, b, { ...b, checked: true }).met, true);
  assert.equal(C.evaluateExpect({ change: true }, b, { ...b, mutations: 2 }).met, true);
  assert.equal(C.evaluateExpect({ change: true }, b, { ...b }).met, false);
  assert.equal(C.evaluateExpect({ scrolled: true }, b, { ...b, scrollY: 700 }).met, true);
  assert.equal(C.evaluateExpect({ navigation: true, value: 'x' }, b, { ...b, url: 'http://h/b', value: 'y' }).met, false);
  assert.equal(C.evaluateExpect({}, b, b).met, false, 'an empty expectation is never "seen"');
});

test('expect validation', () => {
  assert.equal(C.validateExpect({ navigation: true }), null);
  assert.equal(C.validateExpect(undefined), null);
  assert.match(C.validateExpect({ bogus: 1 }), /unknown/);
  assert.match(C.validateExpect({ gone: 'yes' }), /boolean/);
  assert.match(C.validateExpect([]), /object/);
});

test('default expectations per action', () => {
  assert.deepEqual(C.defaultExpect('type', { text: 'hi' }), { value: 'hi' });
  assert.deepEqual(C.defaultExpect('back', {}), { navigation: true });
  assert.deepEqual(C.defaultExpect('uncheck', {}), { checked: false });
});

test('backoff doubles from 0.5 s to 30 s', () => {
  assert.deepEqual([0, 1, 2, 3, 6, 7, 20].map(C.backoffDelay), [500, 1000, 2000, 4000, 30000, 30000, 30000]);
});

test('page history: push dedupes, back pops to the previous page', () => {
  let s = C.historyPush([], 'http://h/news');
  s = C.historyPush(s, 'http://h/news');
  s = C.historyPush(s, 'http://h/item?id=3');
  assert.deepEqual(s, ['http://h/news', 'http://h/item?id=3']);
  const b = C.historyBack(s, 'http://h/item?id=3');
  assert.deepEqual(b, { target: 'http://h/news', stack: ['http://h/news'] });
  assert.equal(C.historyBack(['http://h/news'], 'http://h/news'), null);
  // current page not recorded yet (e.g. the worker missed it): back still goes to the last entry
  assert.deepEqual(C.historyBack(['http://h/a'], 'http://h/b'), { target: 'http://h/a', stack: ['http://h/a'] });
  let big = [];
  for (let i = 0; i < 80; i++) big = C.historyPush(big, 'u' + i);
  assert.equal(big.length, 50);
});

test('URL comparison ignores a trailing slash and an empty fragment', () => {
  assert.ok(C.urlMatches('http://h/news/', 'http://h/news'));
  assert.ok(C.urlMatches('http://h/news#', 'http://h/news'));
  assert.ok(!C.urlMatches('http://h/news?p=2', 'http://h/news'));
});

test('keys for Input.dispatchKeyEvent', () => {
  assert.deepEqual(C.keyEvent('Enter'), { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13, text: '\r', modifiers: 0 });
  assert.equal(C.keyEvent('a').code, 'KeyA');
  assert.equal(C.keyEvent('a').windowsVirtualKeyCode, 65);
  const ca = C.keyEvent('Ctrl+A');
  assert.equal(ca.modifiers, 2);
  assert.equal(ca.text, undefined);
  assert.equal(C.keyEvent('Shift+Tab').modifiers, 8);
  assert.equal(C.keyEvent('Hyper+Q'), null);
  assert.equal(C.keyEvent('NotAKey'), null);
  assert.equal(C.keyEvent(''), null);
});

test('itemGroupIn over one profile gives what itemGroup gives, child by child', () => {
  const sigs = ['H1', 'TR.athing', 'TR', 'TR.spacer', 'TR.athing', 'TR', 'TR.spacer', 'TR.athing', 'TR', 'TR.spacer', 'DIV', 'TR.more'];
  const profile = C.siblingProfile(sigs);
  for (let i = 0; i < sigs.length; i++) {
    assert.deepEqual(C.itemGroupIn(profile, i, 3), C.itemGroup(sigs, i, 3), `child ${i}`);
  }
  const flat = Array.from({ length: 240 }, () => 'BUTTON');
  const p = C.siblingProfile(flat);
  assert.deepEqual(C.itemGroupIn(p, 0, 3), [0, 1]);
  assert.deepEqual(C.itemGroupIn(p, 239, 3), [239, 240]);
});

test('a symbol-only name takes the word from the description', () => {
  assert.equal(C.wordLabel('▲', 'upvote', ''), 'upvote');
  assert.equal(C.wordLabel('✕', 'Close', '✕'), 'Close');
  assert.equal(C.wordLabel('☰', '', '☰'), '☰');
  assert.equal(C.wordLabel('Star', 'Add to favourites', ''), 'Star');
  assert.equal(C.wordLabel('', '', 'Load more'), 'Load more');
  assert.equal(C.wordLabel('', 'More options', '⋮'), 'More options');
  assert.equal(C.wordLabel(' ★ ', '  ', ''), '★');
  assert.ok(C.hasWord('Ablehnen') && C.hasWord('3') && !C.hasWord('▲ ✕ ☰ ⋮ ★ …'));
});

test('handlers that navigate make links, others buttons', () => {
  assert.equal(C.navigatesBySource("function onclick(event) {\nlocation.href = 'help.html'\n}"), true);
  assert.equal(C.navigatesBySource("() => location.assign('/docs')"), true);
  assert.equal(C.navigatesBySource("function () { window.open(url) }"), true);
  assert.equal(C.navigatesBySource("function () { if (location.href == x) done() }"), false);
  assert.equal(C.navigatesBySource("function () { done('menu'); }"), false);
  assert.equal(C.clickRole({ navigates: true }), 'link');
  assert.equal(C.clickRole({ hrefLike: true }), 'link');
  assert.equal(C.clickRole({}), 'button');
});

test('click listeners are grouped by node, bounded, and known nodes skipped', () => {
  const ls = [
    { type: 'click', backendNodeId: 1, handler: { description: 'function (e) { e.target.closest(".chip") }' } },
    { type: 'click', backendNodeId: 25, handler: { description: 'function () { more() }' } },
    { type: 'mousedown', backendNodeId: 25, handler: { description: "function () { location.assign('x') }" } },
    { type: 'scroll', backendNodeId: 30 },
    { type: 'pointerdown', backendNodeId: 31 },
    { type: 'click' },
  ];
  assert.deepEqual(C.clickListenerNodes(ls, new Set([1]), 10), [{ backendNodeId: 25, navigates: true }, { backendNodeId: 31, navigates: false }]);
  assert.equal(C.clickListenerNodes(ls, null, 1).length, 1);
});

test('the accessibility tree names and describes; the DOM fills in for generic click targets', () => {
  const ax = C.axSummary({ ignored: false, role: { value: 'link' }, name: { value: '▲' }, description: { value: 'upvote' },
    properties: [{ name: 'focusable', value: { value: true } }] });
  const dom = { role: 'link', label: '▲', description: 'upvote', states: ['focusable'], focused: false };
  assert.deepEqual(C.fromAX(ax, dom), { role: 'link', label: 'upvote', description: 'upvote', states: ['focusable'], source: 'ax' });
  const star = C.axSummary({ role: { value: 'button' }, name: { value: 'Star' }, properties: [
    { name: 'focusable', value: { value: true } }, { name: 'pressed', value: { value: 'true' } }, { name: 'expanded', value: { value: false } }] });
  assert.deepEqual(C.fromAX(star, { role: 'button', label: '', states: [], focused: true }),
    { role: 'button', label: 'Star', description: '', states: ['focusable', 'focused', 'checked'], source: 'ax' });
  const generic = C.axSummary({ role: { value: 'generic' }, name: { value: '' }, properties: [] });
  assert.deepEqual(C.fromAX(generic, { role: 'button', label: 'Load more', description: '', states: [], handler: true }),
    { role: 'button', label: 'Load more', description: '', states: [], source: 'ax' });
  const ignored = C.axSummary({ ignored: true, role: { value: 'none' } });
  assert.equal(C.fromAX(ignored, { role: 'button', label: '✕', description: 'Close', states: [] }).label, 'Close');
  assert.equal(C.fromAX(null, { role: 'button', label: 'Go', description: '', states: [] }).source, 'dom');
  const field = C.axSummary({ role: { value: 'textbox' }, name: { value: 'Email' }, properties: [
    { name: 'editable', value: { value: 'plaintext' } }, { name: 'focusable', value: { value: true } }, { name: 'disabled', value: { value: true } }] });
  assert.deepEqual(C.fromAX(field, { role: 'textbox', label: 'you@example.com', states: [] }).states, ['focusable', 'disabled']);
});

test('an unnamed control is described by where it goes and its class names', () => {
  const page = 'www.ledevoir.com';
  assert.equal(C.unnamedHint({ href: 'https://www.facebook.com/share.php?u=x', pageHost: page }), 'facebook share');
  assert.equal(C.unnamedHint({ href: 'https://twitter.com/intent/tweet?text=x', pageHost: page }), 'twitter intent tweet');
  assert.equal(C.unnamedHint({ href: 'mailto:?subject=x', pageHost: page }), 'email');
  assert.equal(C.unnamedHint({ href: 'tel:+4940244249230', pageHost: page }), 'call phone');
  assert.equal(C.unnamedHint({ href: 'https://www.ledevoir.com/', pageHost: page }), 'home');
  assert.equal(C.unnamedHint({ href: 'https://www.ledevoir.com/politique/montreal/573258/la-fin', pageHost: page }), 'politique montreal');
  assert.equal(C.unnamedHint({ href: '#', classes: ['print'], pageHost: page }), 'print');
  assert.equal(C.unnamedHint({ href: '#', classes: ['btn_favoris', 'bookmark'] }), 'favoris bookmark');
  assert.equal(C.unnamedHint({ classes: ['btn btn-close-search'] }), 'close search');
  assert.equal(C.unnamedHint({ classes: ['fa fa-heart-o', 'likeButton'] }), 'heart like');
  // Nothing but layout words says nothing.
  assert.equal(C.unnamedHint({ href: '#', classes: ['btn btn-default hidden-xs col-md-2'] }), '');
  assert.equal(C.unnamedHint({}), '');
});

test('a label of no word or only a role word leaves a control unnamed', () => {
  for (const s of ['', '▲', '  ', 'Link', 'link', ' Button ', 'Icon', 'Image']) assert.ok(C.namesNothing(s), JSON.stringify(s));
  for (const s of ['Twitter', 'Links and resources', 'Link account', 'Home', '2']) assert.ok(!C.namesNothing(s), JSON.stringify(s));
});

test('tabs are listed with the tab in front marked current', () => {
  const tabs = [
    { id: 4, windowId: 1, url: 'https://a.example/', title: 'A', active: true, status: 'complete' },
    { id: 7, windowId: 1, url: '', pendingUrl: 'https://b.example/', title: '', active: false, status: 'loading' },
  ];
  assert.deepEqual(C.listTabs(tabs, 4), [
    { tabId: 4, windowId: 1, url: 'https://a.example/', title: 'A', active: true, current: true, status: 'complete' },
    { tabId: 7, windowId: 1, url: 'https://b.example/', title: '', active: false, current: false, status: 'loading' },
  ]);
  assert.deepEqual(C.listTabs(undefined, null), []);
});

test('an error page is told by the injection error', () => {
  assert.equal(C.isErrorPage('Frame with ID 0 is showing error page'), true);
  assert.equal(C.isErrorPage('Cannot access contents of url "chrome-error://chromewebdata/".'), true);
  assert.equal(C.isErrorPage('No tab with id: 3'), false);
  assert.equal(C.isErrorPage(undefined), false);
});

test('a page has loaded when its document is parsed and no other navigation is pending', () => {
  const tab = { url: 'https://www.youtube.com/results?search_query=x' };
  const doc = { href: tab.url, readyState: 'interactive', httpStatus: 200 };
  assert.deepEqual(C.loadedState(tab, doc), { readyState: 'interactive', loaded: true, httpStatus: 200 });
  assert.equal(C.loadedState(tab, { ...doc, readyState: 'loading' }).loaded, false);
  assert.equal(C.loadedState({ ...tab, pendingUrl: 'https://other.example/' }, doc).loaded, false);
  assert.equal(C.loadedState(tab, { ...doc, href: 'https://www.youtube.com/' }).loaded, false);
  assert.deepEqual(C.loadedState(tab, null), { loaded: false });
  assert.equal(C.loadedState(tab, { ...doc, httpStatus: null }).httpStatus, undefined);
});

test('reload expects a navigation by default', () => {
  assert.deepEqual(C.defaultExpect('reload', {}), { navigation: true });
  assert.deepEqual(C.defaultExpect('close', {}), {});
});

test('a file input, its label and what names it in aria-controls open a file chooser', () => {
  assert.equal(C.opensFileChooser({ tag: 'INPUT', type: 'file' }), true);
  assert.equal(C.opensFileChooser({ tag: 'input', type: 'FILE' }), true);
  assert.equal(C.opensFileChooser({ tag: 'LABEL', control: { tag: 'INPUT', type: 'file' } }), true);
  assert.equal(C.opensFileChooser({ tag: 'BUTTON', controls: [null, { tag: 'INPUT', type: 'file' }] }), true);
  assert.equal(C.opensFileChooser({ tag: 'INPUT', type: 'text' }), false);
  assert.equal(C.opensFileChooser({ tag: 'LABEL', control: { tag: 'INPUT', type: 'checkbox' } }), false);
  assert.equal(C.opensFileChooser({ tag: 'BUTTON', controls: [] }), false);
});

test('upload takes an absolute path and names the file by its last component', () => {
  assert.equal(C.isAbsolutePath('/home/me/cv.pdf'), true);
  assert.equal(C.isAbsolutePath('cv.pdf'), false);
  assert.equal(C.isAbsolutePath('~/cv.pdf'), false);
  assert.equal(C.isAbsolutePath(42), false);
  assert.equal(C.isAbsolutePath('/a\0b'), false);
  assert.equal(C.baseName('/home/me/docs/cv.pdf'), 'cv.pdf');
});

test('a link\'s destination is its host and path, and its query only as a fingerprint', () => {
  const a = C.destinationOf('https://www.instagram.com/goodnight.at/?hl=de');
  assert.match(a, /^www\.instagram\.com\/goodnight\.at\/ [0-9a-f]{8}$/);
  assert.ok(!a.includes('hl=de'));
  assert.equal(C.destinationOf('https://www.instagram.com/goodnight.at/'), 'www.instagram.com/goodnight.at/');
  // Two queries, two places; one query, one place; the secret never shows.
  assert.notEqual(C.destinationOf('http://127.0.0.1:8080/list?page=2'), C.destinationOf('http://127.0.0.1:8080/list?page=3'));
  assert.equal(C.destinationOf('http://127.0.0.1:8080/list?page=2'), C.destinationOf('http://127.0.0.1:8080/list?page=2'));
  assert.ok(!C.destinationOf('https://example.org/a#access_token=secret').includes('secret'));
  assert.equal(C.destinationOf('https://example.org/a#'), 'example.org/a');
  assert.equal(C.destinationOf('javascript:void(0)'), null);
  assert.equal(C.destinationOf('mailto:a@example.org'), null);
  assert.equal(C.destinationOf(''), null);
  assert.equal(C.destinationOf('https://example.org/' + 'x'.repeat(500)).length, C.DESTINATION_MAX);
});

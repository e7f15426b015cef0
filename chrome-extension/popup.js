// Popup: connection state (from the worker's chrome.storage.session record) and the
// user-visible label of this profile (chrome.storage.local; the worker sends a fresh hello).
'use strict';
const $ = (id) => document.getElementById(id);

function show(conn) {
  conn = conn || { port: 'disconnected', daemon: 'unknown' };
  const portEl = $('port');
  portEl.textContent = conn.port === 'connected' ? 'connected' : conn.port === 'connecting' ? 'connecting…' : 'not connected';
  portEl.className = conn.port === 'connected' ? 'ok' : 'bad';
  const d = $('daemon');
  if (conn.port !== 'connected') { d.textContent = '—'; d.className = 'unknown'; }
  else if (conn.daemon === 'connected') { d.textContent = 'connected'; d.className = 'ok'; }
  else if (conn.daemon === 'disconnected') { d.textContent = 'not running'; d.className = 'bad'; }
  else { d.textContent = 'waiting for the host'; d.className = 'unknown'; }
  $('err').textContent = conn.port !== 'connected' && conn.lastError ? conn.lastError : '';
  $('reconnect').hidden = conn.port === 'connected';
}

async function load() {
  const [{ conn }, local] = await Promise.all([
    chrome.storage.session.get('conn'),
    chrome.storage.local.get(['profileLabel', 'profileId']),
  ]);
  show(conn);
  $('label').value = (local.profileLabel && local.profileLabel.trim()) || 'Chrome';
  $('pid').textContent = local.profileId ? 'Profile id ' + local.profileId : '';
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'session' && changes.conn) show(changes.conn.newValue);
});

$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const v = $('label').value.trim() || 'Chrome';
  $('label').value = v;
  await chrome.storage.local.set({ profileLabel: v });
  $('saved').textContent = 'Saved';
  setTimeout(() => { $('saved').textContent = ''; }, 1500);
});

$('reconnect').addEventListener('click', () => chrome.runtime.sendMessage({ popup: 'reconnect' }).catch(() => {}));

load();

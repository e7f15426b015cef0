// Circe's phone client. It keeps no state of its own beyond the device token: everything it
// shows comes from the node that owns the interaction, and every input carries the revision it
// was made against. Stop goes straight to the node, never behind anything else.
"use strict";

const TOKEN_KEY = "circe.token";
// The id of the node this phone paired with: a hello from any other node gets no token.
const NODE_KEY = "circe.node";
const $ = (id) => document.getElementById(id);
let ws = null;
let authed = false;
let nextId = 1;
let state = null; // the owner's StateView, kept current by notifications
let heard = "";
let backoff = 500;
const pendingReplies = new Map();
// A pairing's key exchange under way (see exchange.rs): both ends compute the code shown.
let exchange = null;
let helloNode = null;

function hex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function unhex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(2 * i, 2), 16);
  return out;
}

async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

async function startPairing(code, name) {
  const keys = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
  const phoneKey = hex(await crypto.subtle.exportKey("raw", keys.publicKey));
  exchange = { keys, phoneKey };
  connect(() => ({ type: "pair", code, name, key: phoneKey }));
}

// The node's key and its commitment to a nonce: answer with ours.
function onPairKey(socket, m) {
  exchange.nodeKey = m.key;
  exchange.commit = m.commit;
  exchange.phoneNonce = hex(crypto.getRandomValues(new Uint8Array(16)));
  socket.send(JSON.stringify({ type: "pairNonce", nonce: exchange.phoneNonce }));
}

// The node's nonce: check it against the commitment, then compute the code and the sealing key.
async function onPairPending(socket, m) {
  const x = exchange;
  const promised = hex(await sha256(`circe-pair-commit-v2\n${x.nodeKey}\n${x.phoneKey}\n${m.nonce}`));
  if (!x.commit || promised !== x.commit) {
    $("pair-error").textContent = "The desktop's answer does not match what it promised: something is in between. Do not approve this pairing.";
    socket.close();
    return;
  }
  const transcript = `${x.phoneKey}\n${x.nodeKey}\n${x.phoneNonce}\n${m.nonce}`;
  const h = await sha256(`circe-pair-code-v2\n${transcript}`);
  const code = ((h[0] * 16777216) + (h[1] << 16) + (h[2] << 8) + h[3]) % 1000000;
  const nodeKey = await crypto.subtle.importKey("raw", unhex(x.nodeKey), { name: "ECDH", namedCurve: "P-256" }, false, []);
  const secret = await crypto.subtle.deriveBits({ name: "ECDH", public: nodeKey }, x.keys.privateKey, 256);
  const hkdf = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
  x.sealing = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: await sha256(`circe-pair-seal-v2\n${transcript}`), info: new TextEncoder().encode("circe device token") },
    hkdf, { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
  $("verification").textContent = String(code).padStart(6, "0");
  $("verification-box").hidden = false;
}

async function openToken(sealed) {
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unhex(sealed.iv) }, exchange.sealing, unhex(sealed.data));
  return new TextDecoder().decode(plain);
}

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function setOnline(online, why) {
  const s = $("status");
  s.textContent = online ? "online" : (why || "offline");
  s.className = online ? "online" : "offline";
}

// The socket follows the page: wss:// when the page came over https (the mesh behind TLS).
function wsUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

function connect(first) {
  const socket = new WebSocket(wsUrl());
  ws = socket;
  // One message at a time, in order, even when one takes a moment (the key exchange).
  let inbox = Promise.resolve();
  socket.onmessage = (ev) => {
    inbox = inbox.then(() => onMessage(socket, ev.data, first)).catch((e) => {
      $("pair-error").textContent = `Pairing failed: ${e}`;
      socket.close();
    });
  };
  socket.onclose = (ev) => {
    if (ws !== socket) return;
    const wasAuthed = authed;
    authed = false;
    if (ev.code === 4403) {
      localStorage.removeItem(TOKEN_KEY);
      setOnline(false, "revoked");
      showBanner("This device was revoked on the desktop. Pair it again to use it.");
      showPairing();
      return;
    }
    if (!localStorage.getItem(TOKEN_KEY)) return; // pairing ended; the form says why
    setOnline(false, wasAuthed ? "offline, reconnecting" : "offline");
    setTimeout(() => connect(authMessage), backoff);
    backoff = Math.min(backoff * 2, 10000);
  };
}

async function onMessage(socket, data, first) {
  let m;
  try { m = JSON.parse(data); } catch { return; }
  if (m.type === "hello") {
    $("node").textContent = m.node.name;
    helloNode = m.node.id;
    const paired = localStorage.getItem(NODE_KEY);
    if (localStorage.getItem(TOKEN_KEY) && paired && paired !== m.node.id) {
      // Another node answers at this address: it gets no token.
      ws = null;
      socket.close();
      setOnline(false, "wrong desktop");
      showBanner("This is not the desktop this phone was paired with; nothing was sent. Pair again if it should be.");
      return;
    }
    socket.send(JSON.stringify(first()));
  } else if (m.type === "pairKey") {
    onPairKey(socket, m);
  } else if (m.type === "pairPending") {
    await onPairPending(socket, m);
  } else if (m.type === "authOk" || m.type === "paired") {
    if (m.sealedToken) {
      localStorage.setItem(TOKEN_KEY, await openToken(m.sealedToken));
      localStorage.setItem(NODE_KEY, helloNode);
      exchange = null;
    }
    authed = true;
    backoff = 500;
    setOnline(true);
    showControl(m.device);
    request({ verb: "subscribe" });
  } else if (m.type === "authFailed") {
    onAuthFailed(m);
  } else if (m.event === "heard" || m.event === "microphone") {
    onHeard(m);
  } else if (m.event) {
    onNotification(m);
  } else if (m.id !== undefined) {
    const done = pendingReplies.get(m.id);
    pendingReplies.delete(m.id);
    if (m.error) onError(m.error);
    if (done) done(m);
  }
}

function authMessage() {
  return { type: "auth", token: localStorage.getItem(TOKEN_KEY) || "" };
}

function onAuthFailed(m) {
  if (m.code === "unknown_device") {
    localStorage.removeItem(TOKEN_KEY);
    showPairing();
  }
  $("pair-error").textContent = m.message;
  $("verification-box").hidden = true;
}

function request(body, done) {
  if (!ws || ws.readyState !== WebSocket.OPEN || !authed) {
    showBanner("Not connected to the desktop; nothing was sent.");
    return;
  }
  const id = nextId++;
  if (done) pendingReplies.set(id, done);
  ws.send(JSON.stringify({ id, ...body }));
}

function onError(e) {
  if (e.code === "revision_conflict" || e.code === "superseded") {
    showBanner(e.code === "superseded"
      ? "A newer request is current; nothing was changed. Here it is; say it again if you meant it."
      : "Another device answered first; this is the current state.");
    request({ verb: "state", operations: 0 }, (r) => { if (r.ok) { state = r.ok; render(); } });
  } else {
    showBanner(e.message);
  }
}

function showBanner(text) {
  const b = $("banner");
  b.textContent = text;
  b.hidden = !text;
}

function onNotification(n) {
  if (n.event === "snapshot") {
    state = n.state;
  } else if (!state) {
    return;
  } else if (n.event === "interaction") {
    const cur = state.interaction;
    if (!cur || cur.id !== n.interaction.id || n.interaction.revision >= cur.revision) {
      if (!cur || cur.id !== n.interaction.id) state.operation = null;
      state.interaction = n.interaction;
    }
  } else if (n.event === "operation") {
    // Accepted: the whole operation (no steps yet).
    const op = n.operation;
    if (state.interaction && state.interaction.operation === op.id) state.operation = op;
    else if (!state.operation || state.operation.id === op.id) state.operation = op;
  } else if (n.event === "stepStarted" || n.event === "stepEnded" || n.event === "operationStatus") {
    if (!onOperationEvent(n)) return;
  }
  if (state.interaction && state.operation && state.interaction.operation !== state.operation.id) {
    // The interaction moved on to another operation: wait for that one.
    if (state.interaction.operation === null) state.operation = null;
  }
  render();
}

// A small event about an operation: applied when it is the next revision of the one shown,
// ignored when already in it, and after a gap the state is read again. True when applied.
function onOperationEvent(n) {
  const op = state.operation;
  if (!op || op.id !== n.operation || n.revision <= (op.revision || 0)) return false;
  if (n.revision > (op.revision || 0) + 1) {
    request({ verb: "state", operations: 0 }, (r) => { if (r.ok) { state = r.ok; render(); } });
    return false;
  }
  op.revision = n.revision;
  if (n.event === "operationStatus") {
    for (const k of ["status", "stop", "outcome", "target", "arguments", "updatedAt"]) op[k] = n[k];
  } else {
    const at = op.steps.findIndex((s) => s.index === n.step.index);
    if (at >= 0) op.steps[at] = n.step;
    else op.steps.push(n.step);
  }
  return true;
}

// What Circe saw at a step: its observation, fetched on demand (never inside the operation).
function observationOf(s) {
  if (s.observation) return s.observation;
  return s.evidence && typeof s.evidence.observation === "string" ? s.evidence.observation : null;
}

function showSeen(id) {
  const box = $("seen-box");
  $("seen-title").textContent = "…";
  $("seen-elements").replaceChildren();
  box.hidden = false;
  request({ verb: "observation", observation: id }, (r) => {
    if (r.error) {
      $("seen-title").textContent = r.error.code === "observation_pruned"
        ? "No longer kept (only the newest observations are)."
        : r.error.message;
      return;
    }
    const o = r.ok.observation || {};
    $("seen-title").textContent = `${o.title || ""} — ${o.url || ""}`;
    const list = $("seen-elements");
    for (const e of o.elements || []) {
      const li = document.createElement("li");
      li.textContent = `${e.role}: ${e.label}${e.context ? ` (${e.context.slice(0, 60)})` : ""}`;
      list.append(li);
    }
  });
}

const CLASSES = {
  completed: ["done", "done"],
  stopped: ["not done (stopped)", "not-done"],
  blocked: ["blocked", "blocked"],
  outcomeUnknown: ["unknown", "unknown"],
};

function render() {
  if (!state) return;
  const i = state.interaction;
  const op = state.operation;
  $("heard").textContent = heard || (i ? i.request : "—");
  const q = i && !i.closed && i.pending && i.pending.type === "question" ? i.pending : null;
  // A step that cannot be undone waits for an explicit yes, on this very revision.
  const a = i && !i.closed && i.pending && i.pending.type === "approval" ? i.pending : null;
  $("question-box").hidden = !q && !a;
  const list = $("choices");
  list.replaceChildren();
  if (a) {
    $("question").textContent = a.prompt;
    for (const [word, label] of [["yes", "Yes, go ahead"], ["no", "No"]]) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.approval = word;
      b.textContent = label;
      b.onclick = () => answerApproval(word);
      li.append(b);
      list.append(li);
    }
  }
  if (q) {
    $("question").textContent = q.prompt;
    (q.choices || []).forEach((c, n) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.choice = String(n + 1);
      b.textContent = c.label;
      b.onclick = () => answerChoice(n + 1);
      li.append(b);
      list.append(li);
    });
  }
  $("operation-box").hidden = !op;
  const steps = $("steps");
  steps.replaceChildren();
  if (op) {
    $("op-status").textContent = `(${op.status}${op.stop && !CLASSES[op.status] ? ", stopping" : ""})`;
    for (const s of op.steps) {
      const li = document.createElement("li");
      li.textContent = `${s.action} — ${s.result || "in progress"}`;
      const seen = observationOf(s);
      if (seen) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "seen";
        b.dataset.observation = seen;
        b.textContent = "what Circe saw";
        b.onclick = () => showSeen(seen);
        li.append(" ", b);
      }
      steps.append(li);
    }
  }
  const outcome = (op && CLASSES[op.status] && op.outcome) || (i && i.outcome && CLASSES[i.outcome.status] && i.outcome);
  $("outcome-box").hidden = !outcome;
  if (outcome) {
    const [words, cls] = CLASSES[outcome.status];
    $("outcome-class").textContent = words;
    $("outcome-class").className = cls;
    $("outcome").textContent = outcome.summary;
  }
  // Spoken replies, after a spoken request: only what the state says, each once.
  if (q) speakOnce(`q:${i.id}:${i.revision}`, q.prompt);
  if (outcome) speakOnce(`o:${(op && op.id) || i.id}:${outcome.status}`, `${CLASSES[outcome.status][0]}: ${outcome.summary}`);
}

// Whether replies are spoken: on once the person speaks (Talk or the browser's recognition).
let speakReplies = false;
const spoken = new Set();

function speakOnce(key, text) {
  if (!speakReplies || spoken.has(key) || !window.speechSynthesis) return;
  spoken.add(key);
  speechSynthesis.speak(new SpeechSynthesisUtterance(text));
}

// The person speaking stops Circe's speech at once.
function bargeIn() {
  speakReplies = true;
  if (window.speechSynthesis) speechSynthesis.cancel();
}

function submit(text, mode) {
  const i = state && state.interaction;
  const input = { id: uuid(), device: "phone", text, mode };
  if (i && !i.closed) { input.interaction = i.id; input.expectedRevision = i.revision; }
  heard = text;
  showBanner("");
  render();
  request({ verb: "submit", input });
}

function answerChoice(n) {
  const i = state.interaction;
  showBanner("");
  request({ verb: "submit", input: { id: uuid(), device: "phone", text: "", choice: n, mode: "typed", interaction: i.id, expectedRevision: i.revision } });
}

function answerApproval(word) {
  const i = state.interaction;
  showBanner("");
  request({ verb: "submit", input: { id: uuid(), device: "phone", text: word, mode: "typed", interaction: i.id, expectedRevision: i.revision } });
}

function stop() {
  // Straight to the node: no confirmation, no queue, no rate limit.
  request({ verb: "interrupt" });
}

function showControl() {
  $("pairing").hidden = true;
  $("control").hidden = false;
  $("stop").hidden = false;
}

function showPairing() {
  $("control").hidden = true;
  $("stop").hidden = true;
  $("pairing").hidden = false;
}

// Talk: the microphone streamed to the desktop, which hears it with its own recogniser (biased
// by what is on its screen) and acts on it as this phone's request. 16 kHz mono 16-bit PCM in
// binary messages of 0.1 s; an empty one ends the stream. Off means no microphone open.
let talking = null;

async function startTalking() {
  bargeIn();
  if (!ws || ws.readyState !== WebSocket.OPEN || !authed) {
    showBanner("Not connected to the desktop; nothing was sent.");
    return;
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: false, autoGainControl: false } });
  } catch (e) {
    showBanner(`The microphone is not available: ${e.message || e}`);
    return;
  }
  const ctx = new AudioContext({ sampleRate: 16000 });
  const source = ctx.createMediaStreamSource(stream);
  const node = ctx.createScriptProcessor(2048, 1, 1);
  const socket = ws;
  node.onaudioprocess = (ev) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    const f = ev.inputBuffer.getChannelData(0);
    const pcm = new Int16Array(f.length);
    for (let i = 0; i < f.length; i++) {
      const v = Math.max(-1, Math.min(1, f[i]));
      pcm[i] = v < 0 ? v * 0x8000 : v * 0x7fff;
    }
    socket.send(pcm.buffer);
  };
  source.connect(node);
  node.connect(ctx.destination);
  talking = { stream, ctx, node, socket };
  $("talk").classList.add("on");
  $("talk").textContent = "⏹ Stop talking";
  showBanner("The desktop is listening.");
}

function stopTalking() {
  if (!talking) return;
  const { stream, ctx, node, socket } = talking;
  talking = null;
  node.onaudioprocess = null;
  stream.getTracks().forEach((t) => t.stop());
  ctx.close();
  if (socket.readyState === WebSocket.OPEN) socket.send(new ArrayBuffer(0));
  $("talk").classList.remove("on");
  $("talk").textContent = "🎙️ Talk";
}

function onHeard(m) {
  if (m.event === "microphone") {
    stopTalking();
    showBanner(`Talk: ${m.error}`);
    return;
  }
  const h = m.hearing || {};
  const o = h.outcome || {};
  if (o.kind === "admitted") showBanner(`Heard: "${o.text}"`);
  else if (o.kind === "notUnderstood") showBanner(`Not understood${h.recognized ? `: "${h.recognized}"` : ""}.`);
  else if (o.kind) showBanner(`Heard: ${o.kind}`);
}

function setUpSpeech() {
  const SR = window.SpeechRecognition || window.webkitSpeechRecognition;
  if (!SR) return;
  const mic = $("mic");
  mic.hidden = false;
  mic.onclick = () => {
    bargeIn();
    const r = new SR();
    r.lang = navigator.language || "en-US";
    r.interimResults = false;
    r.maxAlternatives = 1;
    r.onresult = (ev) => {
      const said = ev.results[0][0].transcript;
      if (said.trim()) submit(said, "voice");
    };
    r.onerror = (ev) => showBanner(`Speech recognition: ${ev.error}`);
    r.start();
  };
}

document.addEventListener("DOMContentLoaded", () => {
  $("say").onsubmit = (ev) => {
    ev.preventDefault();
    const text = $("text").value.trim();
    if (!text) return;
    $("text").value = "";
    submit(text, "typed");
  };
  $("stop").onclick = stop;
  $("talk").onclick = () => (talking ? stopTalking() : startTalking());
  $("seen-close").onclick = () => { $("seen-box").hidden = true; };
  $("correct").onclick = () => { $("text").value = "No, I meant "; $("text").focus(); };
  $("pair-go").onclick = () => {
    $("pair-error").textContent = "";
    const code = $("pair-code").value.trim();
    const name = $("pair-name").value.trim();
    startPairing(code, name).catch((e) => { $("pair-error").textContent = `This browser cannot pair: ${e}`; });
  };
  setUpSpeech();
  if (localStorage.getItem(TOKEN_KEY)) {
    showControl();
    connect(authMessage);
  } else {
    showPairing();
    // Learn which desktop this is without authenticating: the hello names it.
    const peek = new WebSocket(wsUrl());
    peek.onmessage = (ev) => {
      try { $("node").textContent = JSON.parse(ev.data).node.name; } catch { /* not a hello */ }
      peek.close();
    };
  }
});

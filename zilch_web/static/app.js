// Zilch in the browser: the server owns the game; this page shows it and sends the moves.
// Screens: new game, join (an invite link), play, pass the phone (hot seat), final standings.
// Every device showing a game follows it live (Server-Sent Events). No libraries, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);
const store = {
  get(key, fallback) {
    try { const v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); } catch (e) { return fallback; }
  },
  set(key, value) { try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ } },
};
const session = {
  get(key) { try { return JSON.parse(sessionStorage.getItem(key)); } catch (e) { return null; } },
  set(key, value) { try { sessionStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ } },
};

const S = {
  setup: null,      // GET /api/setup
  cpus: null,       // the computer levels offered for the rules on the form
  gid: null,        // game id
  game: null,       // the last game view from the server
  log: [],          // every event of the game known here, in order
  selected: new Set(), // sorted-roll positions the player tapped
  shownSeat: null,  // hot seat: the human whose dice are shown on this phone
  animating: false,
  skip: false,
  hint: null,
  sending: false,
  watching: false,  // this device holds no seat: it follows the game
  es: null,         // the EventSource of the game shown
  queue: Promise.resolve(), // game updates are shown one after the other
  touched: new Set(), // the variants the player set by hand on the form
};

const delay = () => Number(localStorage.getItem("zilchDelay") ?? 700); // ms per computer step

// ---------------------------------------------------------------- seats held by this device

function seatsEntry(gid) { return (store.get("zilchSeats", {}) || {})[gid] || null; }
function saveSeats(gid, token, seats) {
  const all = store.get("zilchSeats", {}) || {};
  all[gid] = { token, seats };
  const ids = Object.keys(all);
  while (ids.length > 200) delete all[ids.shift()]; // a phone keeps its last 200 games
  store.set("zilchSeats", all);
}
const mySeats = () => (S.game && S.game.seat_tokens === false ? S.game.humans : (seatsEntry(S.gid) || { seats: [] }).seats);
const myToken = () => (seatsEntry(S.gid) || {}).token || null;
const isMine = (seat) => mySeats().includes(seat);

// ---------------------------------------------------------------- talking to the server

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, opts);
  } catch (e) {
    return { ok: false, status: 0, data: { detail: "The server cannot be reached. Check the connection and try again." } };
  }
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    // A reply cut off on the way (or not JSON): never trust it, whatever its status.
    return { ok: false, status: res.status, unreadable: true,
      data: { detail: `The server's answer (${res.status}) could not be read; the game was reloaded.` } };
  }
  if (!data || typeof data !== "object") {
    return { ok: false, status: res.status, unreadable: true, data: { detail: "The server's answer was not understood." } };
  }
  return { ok: res.ok, status: res.status, data };
}

function show(id) {
  for (const s of document.querySelectorAll("main > section")) {
    const was = !s.hidden;
    s.hidden = s.id !== id;
    if (s.id === id && !was) window.scrollTo(0, 0); // every screen opens at its top
  }
  $("#loading").hidden = true;
}

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

function dieEl(face, opts = {}) {
  const b = el("button", { type: "button", class: "die" + (opts.cls ? " " + opts.cls : ""), "data-face": face,
    "aria-label": `die showing ${face}`, "aria-pressed": opts.onclick ? (opts.pressed ? "true" : "false") : null,
    disabled: !opts.onclick, "data-pos": opts.pos ?? null });
  for (let i = 1; i <= 9; i++) b.append(el("span", { class: "pip p" + i }));
  if (opts.onclick) b.addEventListener("click", opts.onclick);
  return b;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------- new game

async function showNew() {
  document.title = "Zilch: new game";
  closeStream();
  S.gid = null;
  S.game = null;
  if (!S.setup) {
    const r = await api("GET", "/api/setup");
    if (!r.ok) { $("#loading").textContent = r.data.detail; return; }
    S.setup = r.data;
  }
  const st = S.setup;
  const sel = $("#preset");
  sel.replaceChildren(...st.presets.map((p) => el("option", { value: p.name }, `${p.name} (to ${p.target})`)));
  const tg = $("#toggles");
  tg.querySelectorAll(".toggle").forEach((x) => x.remove());
  for (const t of st.toggles) {
    const box = el("input", { type: "checkbox", "data-key": t.key });
    const kids = [box, el("span", {}, t.label, el("small", {}, t.help))];
    if (t.choices && t.choices.length) {
      const how = el("select", { "data-key": t.key, class: "toggle-choice", "aria-label": `${t.label}: what it does` },
        ...t.choices.map((c, i) => el("option", { value: String(i) }, c.label)));
      how.addEventListener("change", () => { box.checked = true; touched(t.key); rulesChanged(); });
      kids[1].append(how);
    }
    box.addEventListener("change", () => { touched(t.key); rulesChanged(); });
    tg.append(el("label", { class: "toggle" }, ...kids));
  }
  $("#players").replaceChildren();
  const saved = session.get("zilchForm");
  S.cpus = null;
  if (saved && st.presets.some((p) => p.name === saved.preset)) {
    sel.value = saved.preset;
    S.touched = new Set(saved.touched || []);
    presetChanged(false);
    $("#target").value = saved.target;
    for (const box of document.querySelectorAll("#toggles input")) {
      if (saved.toggles && box.dataset.key in saved.toggles) box.checked = saved.toggles[box.dataset.key];
    }
    for (const how of document.querySelectorAll("#toggles select")) {
      if (saved.choices && how.dataset.key in saved.choices) how.value = saved.choices[how.dataset.key];
    }
    for (const p of saved.players || []) addPlayer(p.name, p.cpu, p.level);
  } else {
    sel.value = st.default_preset;
    S.touched = new Set();
    presetChanged(false);
    addPlayer("You", null);
    if (st.cpus.length) addPlayer("", st.default_cpu);
  }
  if (!$("#players").children.length) addPlayer("You", null);
  $("#add-cpu").hidden = !st.cpus.length;
  await rulesChanged();
  show("screen-new");
}

function touched(key) { S.touched.add(key); }

function currentPreset() { return S.setup.presets.find((x) => x.name === $("#preset").value); }

// The preset's own target and variants, except the variants the player set by hand.
function presetChanged(refresh = true) {
  const p = currentPreset();
  $("#preset-summary").textContent = p.summary + (p.keep === "all_scoring" ? " Every scoring die is kept for you." : "");
  $("#target").value = p.target;
  for (const box of document.querySelectorAll("#toggles input")) {
    if (!S.touched.has(box.dataset.key)) box.checked = !!p.variants[box.dataset.key];
  }
  for (const how of document.querySelectorAll("#toggles select")) {
    if (S.touched.has(how.dataset.key)) continue;
    const t = S.setup.toggles.find((x) => x.key === how.dataset.key);
    const i = t.choices.findIndex((c) => JSON.stringify(c.value) === JSON.stringify(p.values[t.key]));
    how.value = String(Math.max(0, i));
  }
  $("#rules-link").href = "/rules/" + p.name;
  if (refresh) rulesChanged();
}

function formRules() {
  const preset = currentPreset();
  const set = {};
  const target = Number($("#target").value);
  if (target && target !== preset.target) set.target = target;
  for (const box of document.querySelectorAll("#toggles input")) {
    const t = S.setup.toggles.find((x) => x.key === box.dataset.key);
    let on = t.on;
    const how = document.querySelector(`#toggles select[data-key="${t.key}"]`);
    if (how) on = t.choices[Number(how.value)].value;
    const presetValue = preset.values ? preset.values[t.key] : (preset.variants[t.key] ? t.on : t.off);
    const want = box.checked ? on : t.off;
    if (JSON.stringify(want) !== JSON.stringify(presetValue) && (box.checked || preset.variants[t.key])) set[t.key] = want;
  }
  return { ruleset: preset.name, set };
}

// A value as TOML, as the rules page reads ?set.KEY=VALUE (the command line's --set).
function toToml(v) {
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(toToml).join(", ") + "]";
  return "{" + Object.entries(v).map(([k, x]) => `${k} = ${toToml(x)}`).join(", ") + "}";
}

function rulesUrl(rules) {
  const q = Object.entries(rules.set).map(([k, v]) => `set.${encodeURIComponent(k)}=${encodeURIComponent(toToml(v))}`);
  return `/rules/${rules.ruleset}` + (q.length ? "?" + q.join("&") : "");
}

function formPlayers() {
  return [...$("#players").children].map((li) => {
    const input = li.querySelector("input");
    const type = li.querySelector("select");
    return { name: input.value.trim(), cpu: type.value || null };
  });
}

function saveForm() {
  const toggles = {}, choices = {};
  for (const box of document.querySelectorAll("#toggles input")) toggles[box.dataset.key] = box.checked;
  for (const how of document.querySelectorAll("#toggles select")) choices[how.dataset.key] = how.value;
  session.set("zilchForm", {
    preset: $("#preset").value, target: $("#target").value, toggles, choices, touched: [...(S.touched || [])],
    players: [...$("#players").children].map((li) => {
      const type = li.querySelector("select");
      const cpu = type.value || null;
      return { name: li.querySelector("input").value, cpu, level: cpu ? type.selectedOptions[0].dataset.label : null };
    }),
  });
}

let rulesSeq = 0;
// Ask which computer levels can play the rules on the form, and offer those (Start waits for it).
function rulesChanged() {
  S.rulesPending = offerLevels();
  return S.rulesPending;
}

async function offerLevels() {
  const seq = ++rulesSeq;
  const rules = formRules();
  const n = $("#players").children.length;
  let offer = null;
  if (!Object.keys(rules.set).length) {
    const p = currentPreset();
    offer = { cpus: p.cpus, default_cpu: p.default_cpu };
    if (n > 2) offer = null; // the preset's levels are for two players: ask the server
  }
  if (!offer) {
    const r = await api("POST", "/api/cpus", { ...rules, players: Math.max(1, Math.min(6, n)) });
    if (seq !== rulesSeq) return;
    if (!r.ok) { showError("#new-error", r.data.detail); return; }
    offer = r.data;
  }
  $("#new-error").hidden = true;
  $("#rules-link").href = rulesUrl(rules);
  S.cpus = offer;
  for (const li of $("#players").children) fillType(li);
  saveForm();
}

function typeOptions() {
  const cpus = (S.cpus || S.setup).cpus;
  return [el("option", { value: "" }, "Person"),
    ...cpus.map((c) => el("option", { value: c.spec, "data-label": c.label }, `CPU ${c.label}`))];
}

// A player's type select, kept at the same level when the rules change (else the default).
function fillType(li, wantSpec, wantLevel) {
  const type = li.querySelector("select");
  const offer = S.cpus || S.setup;
  const was = wantSpec !== undefined ? wantSpec : type.value;
  const wasLevel = wantLevel !== undefined ? wantLevel : (type.selectedOptions[0] && type.selectedOptions[0].dataset.label);
  type.replaceChildren(...typeOptions());
  if (!was) type.value = "";
  else {
    const same = offer.cpus.find((c) => c.spec === was) || offer.cpus.find((c) => c.label === wasLevel);
    type.value = same ? same.spec : (offer.default_cpu || "");
  }
  describe(li);
}

function describe(li) {
  const type = li.querySelector("select");
  const input = li.querySelector("input");
  const offer = S.cpus || S.setup;
  const c = offer.cpus.find((x) => x.spec === type.value);
  input.placeholder = type.value ? "CPU" : "Name";
  li.querySelector(".level-line").textContent = c ? `${c.label}: ${c.description}` : "";
}

function addPlayer(name, cpu, level) {
  const list = $("#players");
  if (list.children.length >= 6) { playersNote(); return; }
  const type = el("select", { "aria-label": "player type" });
  const input = el("input", { type: "text", maxlength: "24", placeholder: cpu ? "CPU" : "Name", value: name,
    "aria-label": "player name" });
  const remove = el("button", { type: "button", class: "btn ghost remove", "aria-label": "remove player" }, "×");
  const li = el("li", {}, el("div", { class: "player-row" }, input, type, remove), el("p", { class: "level-line muted small" }));
  remove.addEventListener("click", () => {
    if (list.children.length > 1) { li.remove(); rulesChanged(); }
    playersNote();
  });
  type.addEventListener("change", () => { describe(li); saveForm(); });
  input.addEventListener("input", saveForm);
  list.append(li);
  fillType(li, cpu || "", level);
  playersNote();
}

// Say why + and × do nothing at the limits, and show them disabled.
function playersNote() {
  const n = $("#players").children.length;
  $("#add-human").disabled = n >= 6;
  $("#add-cpu").disabled = n >= 6;
  for (const b of document.querySelectorAll("#players .remove")) b.disabled = n <= 1;
  $("#players-note").textContent = n >= 6 ? "A game has at most 6 players." : n <= 1 ? "A game needs at least one player." : "";
}

async function startGame(ev) {
  ev.preventDefault();
  $("#start").disabled = true;
  await S.rulesPending; // the computer levels offered are those of the rules on the form
  $("#start").disabled = false;
  saveForm();
  const rules = formRules();
  const players = formPlayers();
  $("#start").disabled = true;
  const r = await api("POST", "/api/games", { ...rules, players });
  $("#start").disabled = false;
  if (!r.ok) { showError("#new-error", r.data.detail); return; }
  $("#new-error").hidden = true;
  saveSeats(r.data.id, r.data.token, r.data.seats);
  openGame(r.data, true);
}

function showError(sel, text) {
  const e = $(sel);
  e.textContent = text;
  e.hidden = false;
}

// ---------------------------------------------------------------- opening a game

async function openGame(created, push) {
  S.gid = created.id;
  if (push) history.pushState({}, "", created.url);
  S.shownSeat = null;
  S.watching = false;
  S.game = null;
  S.log = created.game.log.slice(0, Math.max(0, created.game.log.length - created.events.length));
  $("#rules-link").href = `/g/${S.gid}/rules`;
  fillLog();
  openStream(created.game.version);
  update(created.game, created.events);
}

async function loadGame(gid) {
  closeStream();
  const r = await api("GET", `/api/games/${encodeURIComponent(gid)}?log=all`);
  if (!r.ok) {
    $("#loading").hidden = false;
    $("#loading").replaceChildren(r.data.detail + " ", el("a", { href: "/" }, "Start a new game"));
    return;
  }
  S.gid = gid;
  S.game = null;
  S.shownSeat = null;
  $("#rules-link").href = `/g/${gid}/rules`;
  S.log = r.data.log.slice();
  fillLog();
  const mine = seatsEntry(gid) || (r.data.seat_tokens === false ? {} : null);
  if (!mine && r.data.free_seats.length && r.data.status === "playing") return showJoin(r.data);
  S.watching = !mine;
  openStream(r.data.version);
  update(r.data, []);
}

function showJoin(game) {
  show("screen-join");
  document.title = "Zilch: join the game";
  $("#join-seats").replaceChildren(...game.free_seats.map((q) => el("button", { type: "button", class: "btn primary wide",
    onclick: () => claim(game, q) }, `Play as ${game.players[q].name}`)));
  $("#join-watch").onclick = () => { S.watching = true; openStream(game.version); update(game, []); };
}

async function claim(game, seat) {
  const r = await api("POST", `/api/games/${S.gid}/claim`, { seat });
  if (!r.ok) { showError("#loading", r.data.detail); $("#loading").hidden = false; return loadGame(S.gid); }
  saveSeats(S.gid, r.data.token, r.data.seats);
  S.watching = false;
  openStream(r.data.game.version);
  update(r.data.game, []);
}

// ---------------------------------------------------------------- live updates

function closeStream() {
  if (S.es) { S.es.close(); S.es = null; }
}

function openStream(version) {
  closeStream();
  if (typeof EventSource === "undefined") return;
  const gid = S.gid;
  const es = new EventSource(`/api/games/${encodeURIComponent(gid)}/events?since=${version}`);
  es.addEventListener("game", (msg) => {
    if (S.gid !== gid) return;
    let data;
    try { data = JSON.parse(msg.data); } catch (e) { return; }
    const g = S.game;
    if (g && data.game.version < g.version) return;
    if (g && data.game.version === g.version) {
      // seats or the rematch changed, not the game: show that
      if (JSON.stringify([g.free_seats, g.rematch]) !== JSON.stringify([data.game.free_seats, data.game.rematch])) {
        update(data.game, []);
      }
      return;
    }
    update(data.game, data.events);
  });
  S.es = es;
}

// Game updates (a move's answer, the stream) are shown in order, each once.
function update(game, events) {
  S.queue = S.queue.then(() => {
    if (S.gid !== game.id) return;
    if (S.game && game.version < S.game.version) return;
    const fresh = S.game ? events.filter((e) => e.v > S.game.version) : events;
    if (S.game && game.version === S.game.version && fresh.length === 0) {
      S.game = Object.assign({}, S.game, { free_seats: game.free_seats, rematch: game.rematch });
      return render();
    }
    return present(game, fresh);
  }).catch((e) => { console.warn(e); });
  return S.queue;
}

const name = (seat) => S.game.players[seat].name;
const isCpu = (seat) => seat !== null && seat !== undefined && S.game.players[seat].cpu !== null;
const canPlay = () => {
  const g = S.game;
  return g && g.status === "playing" && g.human_to_move && isMine(g.current) && !S.animating;
};

// Show the events one by one (the computer's turns step by step), then the position they lead to.
async function present(game, events) {
  const prev = S.game;
  S.game = game;
  S.selected = new Set();
  S.hint = null;
  $("#hint").hidden = true;
  $("#play-error").hidden = true;
  const animated = events.some((e) => isCpu(e.seat) || !isMine(e.seat) || e.kind === "zilch");
  if (events.length && animated && delay() > 0 && prev) {
    await animate(events, prev);
  } else {
    for (const e of events) logEvent(e, false);
  }
  render(events.some((e) => e.kind === "roll" || e.kind === "bonus"));
}

function fillLog() {
  $("#log").replaceChildren(...[...S.log].reverse().map((e) => el("li", { class: e.kind }, e.text)));
}

function logEvent(e, fresh) {
  S.log.push(e);
  const li = el("li", { class: e.kind + (fresh ? " fresh-event" : "") }, e.text);
  $("#log").prepend(li);
  if (fresh) setTimeout(() => li.classList.remove("fresh-event"), 1500);
}

function renderScores(players, cur) {
  $("#scores").replaceChildren(...players.map((p) => el("li", { class: p.seat === cur ? "current" : "" },
    el("span", { class: "who" }, (p.seat === cur ? "▶ " : "") + p.name, " ",
      el("small", {}, [p.cpu ? `${p.level || p.cpu} computer` : (S.game && S.game.humans.length > 1 && !isMine(p.seat) ? "other device" : ""),
        p.on_board ? "" : "not on board"].filter(Boolean).join(" · "))),
    el("span", { class: "pts" }, String(p.score)))));
}

async function animate(events, prev) {
  S.animating = true;
  S.skip = false;
  show("screen-play");
  $("#skip-btn").hidden = false;
  $("#hint-btn").disabled = true;
  $("#tip").hidden = true;
  setButtons(false, false);
  $("#choices").replaceChildren();
  $("#notes").replaceChildren();
  // The board as it stood before these events, changed by each one as it is shown.
  const board = prev.players.map((p) => Object.assign({}, p));
  let cur = prev.current;
  for (const e of events) {
    logEvent(e, true);
    if (e.seat !== null && e.seat !== undefined && e.kind !== "challenge_result") cur = e.seat;
    if (e.kind === "bank") { board[e.seat].score = e.score; if (e.points > 0) board[e.seat].on_board = true; }
    if (e.kind === "zilch" || e.kind === "penalty") board[e.seat].score = e.score;
    if (e.kind === "challenge_result") board[e.seat].score = Math.max(S.game.ruleset.score_floor ?? 0, board[e.seat].score + e.points);
    if (e.kind === "game_over" && e.scores) e.scores.forEach((s, q) => { board[q].score = s; });
    if (S.skip) continue;
    renderScores(board, cur);
    if (e.seat !== null && e.seat !== undefined) $("#turn-who").textContent = `${board[e.seat].name} is playing`;
    $("#selection").className = "selection" + (e.kind === "zilch" ? " bad" : "");
    $("#selection").textContent = e.text;
    if (e.turn_total !== undefined) $("#turn-total").textContent = `Turn: ${e.turn_total}`;
    if (e.kind === "bank" || e.kind === "zilch") $("#turn-total").textContent = "";
    if (e.kind === "roll" || e.kind === "bonus" || e.kind === "zilch") {
      $("#dice").replaceChildren(el("div", { class: "roll" },
        ...e.dice.map((f) => dieEl(f, { cls: "rolled" + (e.kind === "zilch" ? " lost" : "") }))));
    } else if (e.kind === "keep") {
      const left = e.dice.slice();
      for (const d of $("#dice").querySelectorAll(".roll .die")) {
        const i = left.indexOf(Number(d.dataset.face));
        if (i >= 0) { d.classList.add("kept"); left.splice(i, 1); }
      }
    }
    const quick = isMine(e.seat) && !isCpu(e.seat) && e.kind !== "zilch" && e.kind !== "bonus";
    await sleep(quick ? delay() / 3 : delay());
  }
  $("#skip-btn").hidden = true;
  S.animating = false;
}

function render(rolled = false) {
  const g = S.game;
  if (!g) return;
  if (g.status === "over") return renderOver();
  const cur = g.current;
  const mine = mySeats();
  if (g.human_to_move && isMine(cur) && mine.length > 1 && S.shownSeat !== cur && !S.watching) return renderPass();
  const focus = focusKey();
  show("screen-play");
  document.title = `Zilch: ${name(cur)} to play`;
  renderScores(g.players, cur);
  $("#notes").replaceChildren(...g.notes.map((n) => el("li", { class: /last turn|Tie-break/.test(n) ? "hot" : "" }, n)));
  let who;
  if (!g.human_to_move) who = `${name(cur)} is playing`;
  else if (!isMine(cur)) {
    who = g.free_seats.includes(cur) ? `Waiting for ${name(cur)} to join` : `${name(cur)} is playing (on another device)`;
  } else who = name(cur).toLowerCase() === "you" ? "Your move" : `${name(cur)}, your move`;
  $("#turn-who").textContent = who;
  $("#turn-total").textContent = g.phase === "keep" ? `Turn: ${g.turn_total}` : "";
  $("#skip-btn").hidden = true;
  $("#hint-btn").disabled = !canPlay();
  renderInvite();
  renderSheet($("#sheet"));
  if (g.phase === "keep") renderKeep(rolled); else renderChoices();
  restoreFocus(focus);
  showTip();
}

function renderKeep(rolled = false) {
  const g = S.game;
  $("#choices").replaceChildren();
  $("#actions").hidden = false;
  const bonus = bonusKeep();
  const fixed = bonus || (g.keeps.length === 1 && g.ruleset.keep === "all_scoring");
  if (bonus) S.selected = new Set();
  else if (fixed && canPlay()) S.selected = new Set(positionsOf(g.keeps[0].dice));
  const hinted = S.hint && S.hint.best_keep ? positionsOf(S.hint.best_keep) : [];
  const dice = g.roll.map((f, i) => dieEl(f, {
    pressed: S.selected.has(i), pos: i,
    cls: (S.selected.has(i) ? "kept" : "") + (hinted.includes(i) ? " hinted" : "") + (rolled ? " rolled" : ""),
    onclick: fixed || !canPlay() ? null : () => { toggle(i); },
  }));
  const aside = setAside();
  const kids = [el("div", { class: "roll" }, ...dice)];
  if (aside.count) {
    kids.push(el("div", { class: "aside" }, aside.faces ? "Set aside:" : `${plural(aside.count, "die", "dice")} set aside`,
      ...(aside.faces || []).map((f) => dieEl(f, { cls: "small" }))));
  }
  $("#dice").replaceChildren(...kids);
  updateSelection();
}

// Dice set aside since the last fresh pass of this turn, told by the log's keep events.
function setAside() {
  const g = S.game;
  const count = g.ruleset.dice - g.dice_left;
  if (!count) return { count: 0 };
  const faces = [];
  const log = S.log;
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if (e.kind === "roll" && e.seat === g.current) continue;
    if (e.kind === "keep" && e.seat === g.current) {
      if (e.hot_dice) break;
      faces.unshift(...e.dice);
      continue;
    }
    if (e.kind === "piggyback" || e.kind === "bonus") break;
    if (e.seat !== g.current || ["bank", "zilch", "turn_start", "fresh", "challenge"].includes(e.kind)) break;
  }
  return faces.length === count ? { count, faces } : { count };
}

function positionsOf(faces) {
  const roll = S.game.roll, used = new Set(), out = [];
  for (const f of faces) {
    for (let i = 0; i < roll.length; i++) {
      if (roll[i] === f && !used.has(i)) { used.add(i); out.push(i); break; }
    }
  }
  return out;
}

function toggle(i) {
  if (!canPlay()) return;
  if (S.selected.has(i)) S.selected.delete(i); else S.selected.add(i);
  const focus = focusKey();
  renderKeep();
  restoreFocus(focus);
  showTip();
}

function selectedFaces() {
  return [...S.selected].map((i) => S.game.roll[i]).sort((a, b) => a - b);
}

function currentKeep() {
  const faces = selectedFaces().join(",");
  return S.game.keeps.find((k) => k.dice.join(",") === faces) || null;
}

// Of a selection that does not score: the dice that do not fit (beside the biggest keep inside it).
function misfit() {
  const sel = selectedFaces();
  const inside = (k) => {
    const left = sel.slice();
    for (const f of k.dice) { const i = left.indexOf(f); if (i < 0) return null; left.splice(i, 1); }
    return left;
  };
  let best = null, extra = sel;
  for (const k of S.game.keeps) {
    const left = inside(k);
    if (left && (!best || k.n > best.n)) { best = k; extra = left; }
  }
  const scoring = new Set(S.game.keeps.flatMap((k) => k.dice));
  const dead = extra.filter((f) => !scoring.has(f));
  const names = (fs) => fs.join(" ");
  if (dead.length) return `${dead.length === 1 ? "The " + dead[0] : "These " + names(dead)} ${dead.length === 1 ? "scores" : "score"} nothing in this roll: tap ${dead.length === 1 ? "it" : "them"} again to put ${dead.length === 1 ? "it" : "them"} back`;
  if (best) return `The ${names(extra)} ${extra.length === 1 ? "does" : "do"} not fit: ${names(best.dice)} alone scores ${best.points}`;
  return `${names(extra)} score only with more dice of a kind (or another combination)`;
}

// After a six-dice zilch bonus the roll's one keep is the keep of nothing (docs/rules.md): no dice
// to select, only bank (where the bar allows) or roll all the dice again.
function bonusKeep() {
  const g = S.game;
  return g.phase === "keep" && g.keeps.length === 1 && g.keeps[0].n === 0 ? g.keeps[0] : null;
}

function updateSelection() {
  const g = S.game;
  const bonus = bonusKeep();
  const k = bonus || currentKeep();
  const sel = $("#selection");
  sel.className = "selection";
  if (!canPlay()) { sel.textContent = ""; setButtons(false, false); return; }
  if (bonus) {
    const fresh = `roll ${g.ruleset.dice} fresh dice`;
    sel.textContent = `No score: six-dice bonus +${g.ruleset.variants.six_dice_zilch_bonus} (turn ${g.turn_total}). `
      + (k.bank !== null ? `Bank ${k.total} or ${fresh}` : fresh[0].toUpperCase() + fresh.slice(1));
    setButtons(true, k.bank !== null, k);
  } else if (!S.selected.size) {
    sel.textContent = "Tap the dice you keep";
    setButtons(false, false);
  } else if (!k) {
    sel.className = "selection bad";
    sel.textContent = misfit();
    setButtons(false, false);
  } else {
    sel.textContent = `Keep ${k.dice.join(" ")} for ${k.points} → turn ${k.total}` + (k.hot_dice ? " · hot dice!" : "");
    setButtons(true, k.bank !== null, k);
  }
}

function setButtons(canRoll, canBank, k) {
  const rb = $("#roll-btn"), bb = $("#bank-btn");
  rb.disabled = !canRoll;
  bb.disabled = !canBank;
  if (k) {
    rb.textContent = k.n === 0 ? `Roll ${k.next_roll} fresh dice`
      : k.hot_dice ? `Roll all ${k.next_roll} again` : `Roll ${plural(k.next_roll, "die", "dice")}`;
    bb.textContent = `Bank ${k.total}`;
    if (!canBank) bb.title = bankWhyNot(k);
    else bb.removeAttribute("title");
  } else {
    rb.textContent = "Roll";
    bb.textContent = "Bank";
  }
  if (k && !canBank) $("#selection").textContent += ` (${bankWhyNot(k)})`;
  rb.onclick = canRoll ? () => send(k.roll) : null;
  bb.onclick = canBank ? () => send(k.bank) : null;
}

function bankWhyNot(k) {
  const g = S.game, rs = g.ruleset;
  if (k.hot_dice && rs.hot_dice === "forced") return "hot dice must be rolled";
  if (k.total < g.bank_threshold) {
    return g.players[g.current].on_board ? `banking needs ${g.bank_threshold}` : `${g.bank_threshold} to get on the board`;
  }
  return "too few points to bank";
}

function renderChoices() {
  const g = S.game;
  $("#actions").hidden = true;
  $("#dice").replaceChildren();
  $("#selection").className = "selection";
  $("#selection").textContent = !canPlay() ? "" : g.phase === "challenge" ? "Before rolling: challenge someone?" : "Before rolling:";
  $("#choices").replaceChildren(...(canPlay() ? g.choices : []).map((c) =>
    el("button", { type: "button", class: "btn " + (c.action === S.hint?.best ? "primary" : "ghost"),
      onclick: () => send(c.action) }, c.label)));
}

async function send(action) {
  if (S.animating || S.sending || !canPlay()) return;
  const g = S.game;
  S.sending = true;
  setButtons(false, false);
  $("#hint-btn").disabled = true;
  for (const b of document.querySelectorAll("#choices button, #dice button")) b.disabled = true;
  const r = await api("POST", `/api/games/${S.gid}/moves`, { version: g.version, seat: g.current, action, token: myToken() });
  S.sending = false;
  if (r.ok && g.phase === "keep") markTip("keep"); // the first keep is made: its tip has done its work
  if (!r.ok) {
    if (r.status === 422 && !r.unreadable) {
      showError("#play-error", r.data.detail);
      render();
      focusFirst();
      return;
    }
    // The game moved on, the answer was cut off, or the server is away: show the game as it is now.
    const fresh = await api("GET", `/api/games/${S.gid}?log=all`);
    if (fresh.ok) {
      S.game = null;
      S.log = fresh.data.log.slice();
      fillLog();
      await update(fresh.data, []);
    } else {
      render();
    }
    showError("#play-error", r.data.detail);
    focusFirst();
    return;
  }
  await update(r.data.game, r.data.events);
  focusFirst();
}

// ---------------------------------------------------------------- focus and keys

function focusKey() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  if (a.classList.contains("die") && a.dataset.pos !== undefined) return { die: a.dataset.pos };
  return a.id ? { id: a.id } : null;
}

function restoreFocus(key) {
  if (!key) return;
  const target = key.die !== undefined ? document.querySelector(`#dice .roll .die[data-pos="${key.die}"]`)
    : document.getElementById(key.id);
  if (target && !target.disabled && target.offsetParent !== null) target.focus({ preventScroll: true });
  else focusFirst();
}

// After an action, keep the keyboard in the game: the first control there is to use.
function focusFirst() {
  const a = document.activeElement;
  if (a && a !== document.body && !a.disabled && a.offsetParent !== null) return;
  const target = [...document.querySelectorAll("#dice .roll .die, #choices button, #roll-btn, #pass-go, #rematch")]
    .find((b) => !b.disabled && b.offsetParent !== null);
  if (target) target.focus({ preventScroll: true });
}

document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if ($("#screen-play").hidden) return;
  const k = ev.key.toLowerCase();
  if (/^[1-6]$/.test(k)) {
    const die = document.querySelector(`#dice .roll .die[data-pos="${Number(k) - 1}"]`);
    if (die && !die.disabled) { die.click(); document.querySelector(`#dice .roll .die[data-pos="${Number(k) - 1}"]`).focus(); ev.preventDefault(); }
  } else if (k === "r" && !$("#roll-btn").disabled && !$("#actions").hidden) { $("#roll-btn").click(); ev.preventDefault(); }
  else if (k === "b" && !$("#bank-btn").disabled && !$("#actions").hidden) { $("#bank-btn").click(); ev.preventDefault(); }
  else if (k === "h" && !$("#hint-btn").disabled) { $("#hint-btn").click(); ev.preventDefault(); }
});

// ---------------------------------------------------------------- hints and tips

async function getHint() {
  if (!canPlay()) return;
  const g = S.game;
  const box = $("#hint");
  box.hidden = false;
  box.textContent = "Thinking…";
  const r = await api("GET", `/api/games/${S.gid}/hint`);
  if (!r.ok) { box.textContent = r.data.detail; return; }
  if (!S.game || r.data.version !== S.game.version || !canPlay()) { box.hidden = true; return; }
  S.hint = r.data;
  const opts = r.data.options.slice(0, 4).map((o) => el("li", {}, `${o.label}: ${o.value_text}` +
    (o.win_chance !== undefined && o.win_chance !== null ? ` · win ${(o.win_chance * 100).toFixed(1)}%` : "")));
  const kids = [el("strong", {}, "Best: " + r.data.best_label)];
  if (r.data.win_chance !== undefined && r.data.win_chance !== null) {
    kids.push(el("div", { class: "win" }, `Your chance of winning with perfect play from here: ${(r.data.win_chance * 100).toFixed(1)}%`));
  }
  kids.push(el("div", { class: "small" }, r.data.explain), el("ol", {}, ...opts));
  box.replaceChildren(...kids);
  if (g.phase === "keep") {
    if (r.data.best_keep) S.selected = new Set(positionsOf(r.data.best_keep));
    renderKeep();
  } else {
    renderChoices();
  }
}

const TIPS = {
  keep: "Tap the dice that score to keep them, then Roll the rest to score more, or Bank to add the turn to your score. Rules (top right) has the scoring table.",
  entry: (n) => `To get on the board your first bank needs ${n} points in one turn: until then, keep rolling.`,
  bonus: "Six dice and no score: the six-dice bonus joins your turn total instead of a zilch. Bank it, or roll all six fresh dice and play on.",
  hot: "Hot dice! Every die has scored: roll all of them again and keep adding to this turn.",
  zilch: "Zilch: a roll with nothing that scores ends the turn, and its points are lost. With few dice left, banking is often wiser.",
};

function showTip() {
  const box = $("#tip");
  const cfg = store.get("zilchTips", { seen: [], off: false }) || { seen: [], off: false };
  const g = S.game;
  let id = null, text = null;
  if (!cfg.off && g && g.status === "playing" && canPlay()) {
    const me = g.current;
    const zilched = S.log.some((e) => e.kind === "zilch" && isMine(e.seat) && !isCpu(e.seat));
    const hot = currentKeep() && currentKeep().hot_dice;
    if (bonusKeep() && !cfg.seen.includes("bonus")) { id = "bonus"; text = TIPS.bonus; }
    else if (g.phase === "keep" && !bonusKeep() && !cfg.seen.includes("keep")) { id = "keep"; text = TIPS.keep; }
    else if (hot && !cfg.seen.includes("hot")) { id = "hot"; text = TIPS.hot; }
    else if (zilched && !cfg.seen.includes("zilch")) { id = "zilch"; text = TIPS.zilch; }
    else if (!g.players[me].on_board && g.ruleset.entry_threshold && !cfg.seen.includes("entry")) {
      id = "entry"; text = TIPS.entry(g.ruleset.entry_threshold);
    }
  }
  box.hidden = !id;
  if (!id) return;
  box.dataset.tip = id;
  $("#tip-text").textContent = text;
}

function markTip(id) {
  const cfg = store.get("zilchTips", { seen: [], off: false }) || { seen: [], off: false };
  if (!cfg.seen.includes(id)) { cfg.seen.push(id); store.set("zilchTips", cfg); }
}

function dismissTip(all) {
  const cfg = store.get("zilchTips", { seen: [], off: false }) || { seen: [], off: false };
  cfg.seen.push($("#tip").dataset.tip);
  if (all) cfg.off = true;
  store.set("zilchTips", cfg);
  $("#tip").hidden = true;
  showTip();
  focusFirst();
}

// ---------------------------------------------------------------- invite

function renderInvite() {
  const g = S.game;
  const mine = mySeats();
  const humansHere = mine.length;
  $("#invite-btn").hidden = !(humansHere > 1 && g.status === "playing");
  const free = g.free_seats.map((q) => g.players[q].name);
  const info = $("#invite-info");
  if (free.length && mine.length) {
    info.hidden = false;
    info.replaceChildren(`Waiting for ${free.join(", ")} to join: share `, el("a", { href: `/g/${g.id}` }, "this game's link"), ".");
  } else if (S.watching) {
    info.hidden = false;
    info.textContent = "You are watching this game.";
  } else {
    info.hidden = true;
  }
}

async function invite() {
  const r = await api("POST", `/api/games/${S.gid}/invite`, { token: myToken() });
  if (!r.ok) { showError("#play-error", r.data.detail); return; }
  const entry = seatsEntry(S.gid);
  saveSeats(S.gid, entry.token, entry.seats.filter((q) => q !== r.data.seat));
  const url = location.origin + r.data.url;
  let shared = false;
  if (navigator.share) {
    try { await navigator.share({ title: "Zilch", text: r.data.text, url }); shared = true; } catch (e) { /* cancelled */ }
  }
  if (!shared && navigator.clipboard) {
    try { await navigator.clipboard.writeText(url); } catch (e) { /* not allowed */ }
  }
  S.game = Object.assign({}, S.game, { free_seats: [...S.game.free_seats, r.data.seat].sort() });
  render();
  $("#invite-info").replaceChildren(`${r.data.name}'s seat is free: send them `, el("a", { href: r.data.url }, url),
    shared ? "" : " (copied)");
  $("#invite-info").hidden = false;
}

// ---------------------------------------------------------------- hot seat and the end

// What happened since this player's last turn: every bank, zilch and penalty of the others.
function sinceLastTurn(seat) {
  const out = [];
  let i = S.log.length - 1;
  while (i >= 0 && S.log[i].seat === seat && ["roll", "turn_start", "bonus"].includes(S.log[i].kind)) i--;
  for (; i >= 0; i--) {
    const e = S.log[i];
    if (e.seat === seat && ["keep", "bank", "zilch", "fresh", "piggyback", "challenge"].includes(e.kind)) break;
    if (["bank", "zilch", "penalty", "challenge", "challenge_result", "final_round", "piggyback", "tiebreak"].includes(e.kind)) out.unshift(e);
  }
  return out;
}

function renderPass() {
  const g = S.game;
  const cur = g.current;
  show("screen-pass");
  document.title = `Zilch: pass to ${name(cur)}`;
  $("#pass-name").textContent = name(cur);
  $("#pass-go").textContent = `I'm ${name(cur)}: show my dice`;
  const me = g.players[cur];
  const since = sinceLastTurn(cur);
  $("#pass-info").textContent = (since.length ? "Since your last turn:" : "") + "";
  $("#pass-events").replaceChildren(...since.map((e) => el("li", { class: e.kind }, e.text)),
    el("li", { class: "me" }, `${me.name} has ${me.score}.`));
}

function renderSheet(box) {
  const g = S.game;
  const rows = [];
  const count = g.players.map(() => 0);
  const col = Object.fromEntries(g.sheet_columns.map((c, i) => [c, i]));
  for (const raw of g.sheet) {
    const t = Object.fromEntries(Object.entries(col).map(([c, i]) => [c, raw[i]]));
    const r = count[t.seat]++;
    if (!rows[r]) rows[r] = g.players.map(() => null);
    rows[r][t.seat] = t;
  }
  const cell = (t) => !t ? el("td", {}, "") : el("td", { class: t.banked && t.points ? "" : "z" },
    t.banked ? (t.points ? `+${t.points}` : `${t.turn_total} (not on board)`) : (t.points ? `zilch, +${t.points}` : "zilch"),
    t.penalty ? " −penalty" : "", el("small", {}, String(t.score)));
  box.replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, "#"), ...g.players.map((p) => el("th", { scope: "col" }, p.name)))),
    el("tbody", {}, ...rows.map((row, i) => el("tr", {}, el("th", { scope: "row" }, String(i + 1)), ...row.map(cell))))));
}

function renderOver() {
  const g = S.game;
  show("screen-over");
  const w = g.winners || [];
  $("#over-title").textContent = w.length > 1 ? `Draw: ${w.map(name).join(" and ")}`
    : name(w[0]).toLowerCase() === "you" ? "You win!" : `${name(w[0])} wins!`;
  document.title = "Zilch: " + $("#over-title").textContent;
  $("#standings").replaceChildren(...g.standings.map((s) => el("li", { class: s.winner ? "winner" : "" },
    el("span", {}, `${s.place}. ${s.name}`), el("span", { class: "pts" }, String(s.score)))));
  $("#over-info").replaceChildren(`${g.turns} turns · ${g.ruleset.name} to ${g.ruleset.target} · seed ${g.seed} · `,
    el("a", { href: `/api/games/${g.id}/record` }, "game record"));
  $("#rematch").textContent = g.rematch ? "Join the rematch" : "Play again";
  $("#rematch").hidden = !mySeats().length;
  renderSheet($("#over-sheet"));
  $("#over-log").replaceChildren(...[...S.log].reverse().map((e) => el("li", { class: e.kind }, e.text)));
  if (S.log.length < g.log_total) {  // the whole game's story, not only its end
    api("GET", `/api/games/${g.id}?log=all`).then((r) => {
      if (r.ok && S.game && S.game.id === g.id) { S.log = r.data.log.slice(); fillLog(); renderOver(); }
    });
  }
  focusFirst();
}

async function rematch() {
  $("#rematch").disabled = true;
  const r = await api("POST", `/api/games/${S.gid}/rematch`);
  $("#rematch").disabled = false;
  if (!r.ok) { showError("#over-info", r.data.detail); return; }
  const entry = seatsEntry(S.gid);
  if (entry) saveSeats(r.data.id, entry.token, entry.seats);
  openGame(r.data, true);
}

// ---------------------------------------------------------------- start

function route() {
  const m = location.pathname.match(/^\/g\/([A-Za-z0-9_-]+)$/);
  if (m) loadGame(m[1]); else showNew();
}

function speedSetup() {
  const sel = $("#speed");
  const now = String(delay());
  if (![...sel.options].some((o) => o.value === now)) sel.append(el("option", { value: now }, `${now} ms`));
  sel.value = now;
  sel.addEventListener("change", () => localStorage.setItem("zilchDelay", sel.value));
}

$("#new-form").addEventListener("submit", startGame);
$("#preset").addEventListener("change", () => presetChanged(true));
$("#target").addEventListener("change", () => rulesChanged());
$("#add-human").addEventListener("click", () => { addPlayer("", null); rulesChanged(); });
$("#add-cpu").addEventListener("click", () => { addPlayer("", (S.cpus || S.setup).default_cpu); rulesChanged(); });
$("#hint-btn").addEventListener("click", getHint);
$("#skip-btn").addEventListener("click", () => { S.skip = true; });
$("#invite-btn").addEventListener("click", invite);
$("#tip-ok").addEventListener("click", () => dismissTip(false));
$("#tip-off").addEventListener("click", () => dismissTip(true));
$("#pass-go").addEventListener("click", () => { S.shownSeat = S.game.current; render(); focusFirst(); });
$("#rematch").addEventListener("click", rematch);
window.addEventListener("popstate", route);
speedSetup();
window.zilch = S; // for tests and the curious
route();

// Zilch in the browser: the server owns the game; this page shows it and sends the moves.
// Screens: new game, join (an invite link), play, pass the phone (hot seat), final standings.
// Every device showing a game follows it live (Server-Sent Events). No libraries, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);

// Every text this page adds goes through t(key, values): the catalogue of the page's language
// (static/text-en.js, text-pt-BR.js, text-sv.js), English where a key is missing there. The
// language is the one chosen on the page (localStorage zilchLang), else the browser's first
// language offered, else English.
const LANGS = ["en", "pt-BR", "sv"];
function pickLang() {
  let chosen = null;
  try { chosen = JSON.parse(localStorage.getItem("zilchLang")); } catch (e) { /* private mode */ }
  if (LANGS.includes(chosen)) return chosen;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    const hit = LANGS.find((x) => x.toLowerCase() === String(l).toLowerCase()) || LANGS.find((x) => x.toLowerCase().split("-")[0] === base);
    if (hit) return hit;
  }
  return "en";
}
const LANG = pickLang();
const tx = (...a) => t(...a); // for code where `t` names something else
function t(key, vals = {}) {
  const all = window.ZILCH_TEXT || {};
  const s = (all[LANG] || {})[key] ?? (all.en || {})[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in vals ? String(vals[k]) : m));
}
function applyTexts() {
  document.documentElement.lang = LANG;
  // the pages the server writes (the rules) follow the page's language by this cookie
  document.cookie = `zilchLang=${encodeURIComponent(LANG)}; path=/; max-age=31536000; SameSite=Lax`;
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = t(e.dataset.t);
  for (const e of document.querySelectorAll("[data-t-label]")) e.setAttribute("aria-label", t(e.dataset.tLabel));
  const pick = $("#lang");
  if (pick) {
    pick.value = LANG;
    pick.addEventListener("change", () => {
      try { localStorage.setItem("zilchLang", JSON.stringify(pick.value)); } catch (e) { /* private mode */ }
      location.reload();
    });
  }
}
// A refusal of the server in the page's language, by its code ({"error": CODE, "detail": ...}):
// the server's English sentence where the catalogue has no text for the code.
function refusal(data) {
  const key = "error.code." + (data && data.error);
  const s = t(key);
  return s === key ? data.detail : s;
}
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

async function api(method, url, body, headers = {}) {
  const opts = { method, headers: { ...headers } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, opts);
  } catch (e) {
    return { ok: false, status: 0, data: { detail: t("error.offline") } };
  }
  if (res.ok) clearTrouble();
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    // A reply cut off on the way (or not JSON): never trust it, whatever its status.
    return { ok: false, status: res.status, unreadable: true,
      data: { detail: t("error.unreadable", { status: res.status }) } };
  }
  if (!data || typeof data !== "object") {
    return { ok: false, status: res.status, unreadable: true, data: { detail: t("error.notUnderstood") } };
  }
  if (!res.ok && data.error && LANG !== "en") data = { ...data, detail: refusal(data), english: data.detail };
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
    "aria-label": t(opts.label || "die.rolled", { face }), "aria-pressed": opts.onclick ? (opts.pressed ? "true" : "false") : null,
    disabled: !opts.onclick, "data-pos": opts.pos ?? null });
  for (let i = 1; i <= 9; i++) b.append(el("span", { class: "pip p" + i }));
  if (opts.onclick) b.addEventListener("click", opts.onclick);
  return b;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- new game

async function showNew() {
  document.title = t("doc.new");
  closeStream();
  S.gid = null;
  S.game = null;
  if (!S.setup) {
    const r = await api("GET", `/api/setup?lang=${encodeURIComponent(LANG)}`);
    if (!r.ok) { $("#loading").textContent = r.data.detail; return; }
    S.setup = r.data;
  }
  const st = S.setup;
  renderContinue();
  const sel = $("#preset");
  sel.replaceChildren(...st.presets.map((p) => el("option", { value: p.name }, `${presetName(p.name, p.target)} · ${p.name}`)));
  const tg = $("#toggles");
  tg.querySelectorAll(".toggle").forEach((x) => x.remove());
  for (const t of st.toggles) {
    const box = el("input", { type: "checkbox", "data-key": t.key });
    const kids = [box, el("span", {}, t.label, el("small", {}, t.help))];
    if (t.choices && t.choices.length) {
      const how = el("select", { "data-key": t.key, class: "toggle-choice", "aria-label": tx("form.whatItDoes", { label: t.label }) },
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
    setMode(saved.mode || "cpu", false);
    S.touched = new Set(saved.touched || []);
    presetChanged(false);
    $("#target").value = saved.target;
    for (const box of document.querySelectorAll("#toggles input")) {
      if (saved.toggles && box.dataset.key in saved.toggles) box.checked = saved.toggles[box.dataset.key];
    }
    for (const how of document.querySelectorAll("#toggles select")) {
      if (saved.choices && how.dataset.key in saved.choices) how.value = saved.choices[how.dataset.key];
    }
    for (const p of saved.players || []) addPlayer(p.name, p.cpu, p.level, p.want);
    if (saved.more) $("#more-rules").open = true;
  } else {
    sel.value = st.default_preset;
    S.touched = new Set();
    presetChanged(false);
    setMode(st.cpus.length ? "cpu" : "pass", true, false);
  }
  if (!$("#players").children.length) addPlayer(t("form.you"), null);
  $("#add-cpu").hidden = !st.cpus.length;
  await rulesChanged();
  show("screen-new");
}

// A preset's plain name ("Zonk, the classic (to 10,000)"); its identifier is shown beside it.
function presetName(name, target) {
  const key = "preset." + name;
  const s = t(key);
  return s === key ? t("preset.other", { name, target: Number(target).toLocaleString("en") }) : s;
}

// The three ways to play: the computer, pass the phone, a friend online. Choosing one sets the
// players to its usual table (fresh), which the person may then change.
function setMode(mode, fresh, refresh = true) {
  S.mode = mode;
  for (const r of document.querySelectorAll('#modes input[name="mode"]')) r.checked = r.value === mode;
  $("#mode-help").textContent = t("mode.help." + mode);
  if (fresh) {
    $("#players").replaceChildren();
    const offer = S.cpus || S.setup;
    if (mode === "cpu") {
      addPlayer(t("form.you"), null);
      if (offer.cpus.length) addPlayer("", offer.default_cpu);
    } else if (mode === "pass") {
      addPlayer("", null);
      addPlayer("", null);
    } else {
      addPlayer("", null); // a name the friends know, not "You" (placeholder: "Your name")
      addPlayer("", null);
    }
  }
  namePlaceholders();
  if (refresh) rulesChanged();
}

// The name a player gets when theirs is left blank, shown as the field's placeholder.
function defaultName(li) {
  const rows = [...$("#players").children];
  const type = li.querySelector("select");
  if (type.value) {
    const label = (type.selectedOptions[0] && type.selectedOptions[0].dataset.label) || "";
    const same = rows.filter((x) => x.querySelector("select").value === type.value);
    const base = t("form.cpuName", { level: levelName(label) });
    return same.length > 1 ? `${base} ${same.indexOf(li) + 1}` : base;
  }
  const humans = rows.filter((x) => !x.querySelector("select").value);
  const i = humans.indexOf(li);
  if (S.mode === "online" && i > 0) return humans.length > 2 ? t("form.friend2", { n: i }) : t("form.friend");
  return t("form.player", { n: i + 1 });
}

// What a blank name field shows: the name the player gets, or (online, the first person) a request.
function placeholderOf(li) {
  const humans = [...$("#players").children].filter((x) => !x.querySelector("select").value);
  return S.mode === "online" && humans[0] === li ? t("form.yourName") : defaultName(li);
}

function namePlaceholders() {
  for (const li of $("#players").children) li.querySelector("input").placeholder = placeholderOf(li);
}

// ---------------------------------------------------------------- games this browser knows

function knownGames() { return store.get("zilchGames", {}) || {}; }

function rememberGame(g) {
  if (!g || !mySeats().length) return;
  const all = knownGames();
  all[g.id] = { t: Date.now(), over: g.status === "over", rules: g.ruleset.name, target: g.ruleset.target,
    turns: g.turns, players: g.players.map((p) => [p.name, p.score]) };
  const ids = Object.keys(all).sort((a, b) => all[a].t - all[b].t);
  while (ids.length > 50) delete all[ids.shift()];
  store.set("zilchGames", all);
}

function forgetGame(gid) {
  const all = knownGames();
  delete all[gid];
  store.set("zilchGames", all);
}

function ago(ms) {
  const min = Math.floor((Date.now() - ms) / 60000);
  if (min < 1) return t("continue.ago.now");
  if (min < 60) return t("continue.ago.min", { n: min });
  if (min < 60 * 24) return t("continue.ago.hour", { n: Math.floor(min / 60) });
  return t("continue.ago.day", { n: Math.floor(min / 1440) });
}

// "Continue your game": every unfinished game this browser holds a seat of, the latest first.
function renderContinue() {
  const all = knownGames();
  const ids = Object.keys(all).filter((id) => !all[id].over).sort((a, b) => all[b].t - all[a].t);
  $("#continue").hidden = !ids.length;
  $("#continue-list").replaceChildren(...ids.map((id) => {
    const k = all[id];
    const who = k.players.map(([n, s]) => `${n} ${s}`).join(" · ");
    const forget = el("button", { type: "button", class: "btn ghost forget", "aria-label": t("continue.forget"),
      title: t("continue.forget") }, "×");
    const li = el("li", {}, el("a", { class: "btn ghost continue-game", href: `/g/${id}` },
      el("span", { class: "continue-who" }, who),
      el("small", {}, [presetName(k.rules, k.target), t("continue.turn", { n: k.turns + 1 }), ago(k.t)].join(" · "))),
    forget);
    forget.addEventListener("click", () => { forgetGame(id); renderContinue(); });
    return li;
  }));
}

function touched(key) { S.touched.add(key); }

function currentPreset() { return S.setup.presets.find((x) => x.name === $("#preset").value); }

// The preset's own target and variants, except the variants the player set by hand.
function presetChanged(refresh = true) {
  const p = currentPreset();
  $("#preset-summary").textContent = p.summary + (p.keep === "all_scoring" ? " " + t("form.keptForYou") : "");
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
    return { name: input.value.trim() || defaultName(li), cpu: type.value || null };
  });
}

function saveForm() {
  const toggles = {}, choices = {};
  for (const box of document.querySelectorAll("#toggles input")) toggles[box.dataset.key] = box.checked;
  for (const how of document.querySelectorAll("#toggles select")) choices[how.dataset.key] = how.value;
  session.set("zilchForm", {
    preset: $("#preset").value, target: $("#target").value, toggles, choices, touched: [...(S.touched || [])],
    mode: S.mode, more: $("#more-rules").open,
    players: [...$("#players").children].map((li) => {
      const type = li.querySelector("select");
      const cpu = type.value || null;
      return { name: li.querySelector("input").value, cpu, level: cpu ? type.selectedOptions[0].dataset.label : null,
        want: li.dataset.want ? { spec: li.dataset.want, label: li.dataset.wantLabel } : null };
    }),
  });
}

let rulesSeq = 0;
// Ask which computer levels can play the rules on the form, and offer those (Start waits for it).
function rulesChanged() {
  S.rulesPending = offerLevels();
  return S.rulesPending;
}

// "Play to" takes any whole number of points (the server's rule), told in the page's words.
function targetBad() {
  const target = $("#target").value.trim();
  if (target === "" || /^[0-9]+$/.test(target) && Number(target) >= 1) return false;
  $("#more-rules").open = true;
  showError("#new-error", t("form.target.bad"));
  return true;
}

async function offerLevels() {
  if (targetBad()) return;
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

// A rules note of the game view in the page's language: its key and values ({key, values}), else
// the server's English sentence.
function noteText(text, note) {
  if (!note) return text;
  const key = "note." + note.key, s = t(key, note.values || {});
  return s === key ? text : s;
}

// A computer level's name in the page's language (Easy, Medium, Hard, Perfect).
function levelName(label) { const k = "level." + label, s = t(k); return s === k ? label : s; }

function typeOptions() {
  const cpus = (S.cpus || S.setup).cpus;
  return [el("option", { value: "" }, t("form.person")),
    ...cpus.map((c) => el("option", { value: c.spec, "data-label": c.label }, t("form.cpuName", { level: levelName(c.label) })))];
}

// A player's type select, kept at the same level when the rules change (else the default).
// The level the person chose is remembered (li.dataset.want): when the rules or the number of
// players do not offer it, the line under the player says why and which level plays instead, and
// the chosen level comes back as soon as it is offered again.
function fillType(li, wantSpec, wantLevel) {
  const type = li.querySelector("select");
  const offer = S.cpus || S.setup;
  let was = wantSpec !== undefined ? wantSpec : type.value;
  let wasLevel = wantLevel !== undefined ? wantLevel : (type.selectedOptions[0] && type.selectedOptions[0].dataset.label);
  if (was && li.dataset.want) { was = li.dataset.want; wasLevel = li.dataset.wantLabel; }
  type.replaceChildren(...typeOptions());
  li.changed = null;
  if (!was) type.value = "";
  else {
    const same = offer.cpus.find((c) => c.spec === was) || offer.cpus.find((c) => c.label === wasLevel);
    type.value = same ? same.spec : (offer.default_cpu || "");
    if (!same && wasLevel) {
      li.dataset.want = was;
      li.dataset.wantLabel = wasLevel;
      const now = type.selectedOptions[0] ? type.selectedOptions[0].dataset.label : "";
      const whyKey = "form.level.why." + wasLevel;
      li.changed = t("form.level.changed", { name: li.querySelector("input").value.trim() || t("form.cpuName", { level: wasLevel }),
        wanted: wasLevel, level: now, n: $("#players").children.length,
        why: t(whyKey) === whyKey ? t("form.level.why.other") : t(whyKey) });
    }
  }
  describe(li);
}

function describe(li) {
  const type = li.querySelector("select");
  const offer = S.cpus || S.setup;
  const c = offer.cpus.find((x) => x.spec === type.value);
  const line = li.querySelector(".level-line");
  const key = c ? "level.desc." + (c.spec === "ppo:checkpoints/any" ? "HardAny" : c.label) : "";
  const desc = c ? t(key) : "";
  line.textContent = li.changed || (c ? `${levelName(c.label)}: ${desc === key ? c.description : desc}` : "");
  line.classList.toggle("changed", !!li.changed);
  namePlaceholders();
}

function addPlayer(name, cpu, level, want) {
  const list = $("#players");
  if (list.children.length >= 6) { playersNote(); return; }
  const type = el("select", { "aria-label": t("form.playerType") });
  const input = el("input", { type: "text", maxlength: "24", value: name, "aria-label": t("form.playerName") });
  const remove = el("button", { type: "button", class: "btn ghost remove", "aria-label": t("form.remove") }, "×");
  const li = el("li", {}, el("div", { class: "player-row" }, input, type, remove),
    el("p", { class: "level-line muted small", "aria-live": "polite" }));
  if (want && want.spec) { li.dataset.want = want.spec; li.dataset.wantLabel = want.label; }
  remove.addEventListener("click", () => {
    if (list.children.length > 1) { li.remove(); rulesChanged(); }
    playersNote();
  });
  type.addEventListener("change", () => {
    // the person's own choice: remembered until they choose again
    delete li.dataset.want;
    li.changed = null;
    describe(li);
    saveForm();
  });
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
  namePlaceholders();
  $("#players-note").textContent = n >= 6 ? t("form.maxPlayers") : n <= 1 ? t("form.minPlayers") : "";
}

async function startGame(ev) {
  ev.preventDefault();
  if (targetBad()) return;
  $("#start").disabled = true;
  await S.rulesPending; // the computer levels offered are those of the rules on the form
  $("#start").disabled = false;
  saveForm();
  const rules = formRules();
  const players = formPlayers();
  $("#start").disabled = true;
  const r = await api("POST", "/api/games", { ...rules, players, live: S.mode === "online" });
  $("#start").disabled = false;
  if (!r.ok) { showError("#new-error", r.data.detail); return; }
  $("#new-error").hidden = true;
  saveSeats(r.data.id, r.data.token, r.data.seats);
  if (S.mode === "online") {
    // every person but the first plays from their own phone: their seats are given up to the link
    for (const q of r.data.seats.slice(1).reverse()) {
      const inv = await api("POST", `/api/games/${r.data.id}/invite`, { token: r.data.token, seat: q });
      if (!inv.ok) { showError("#new-error", inv.data.detail); break; }
      const entry = seatsEntry(r.data.id);
      saveSeats(r.data.id, entry.token, entry.seats.filter((x) => x !== q));
      r.data.game = Object.assign({}, r.data.game, { free_seats: [...r.data.game.free_seats, q].sort() });
    }
  }
  openGame(r.data, true);
}

// An error is shown where the eye is: scrolled into view, and gone once things work again.
function showError(sel, text, kind = "") {
  const e = $(sel);
  e.textContent = text;
  e.dataset.kind = kind;
  e.hidden = false;
  if (e.offsetParent !== null) e.scrollIntoView({ block: "nearest" });
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
  await update(created.game, created.events);
  focusFirst(true); // the keyboard starts in the game, not at the top of the page
}

async function loadGame(gid) {
  closeStream();
  const r = await api("GET", `/api/games/${encodeURIComponent(gid)}?log=all`);
  if (!r.ok) {
    if (r.status === 404) forgetGame(gid);
    $("#loading").hidden = false;
    $("#loading").replaceChildren(r.data.detail + " ", el("a", { href: "/" }, t("load.startNew")));
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
  await update(r.data, []);
  focusFirst(true);
}

// The invitation: who invited, which rules, the seats (who plays each) and the score so far.
function showJoin(game) {
  show("screen-join");
  document.title = t("doc.join");
  const taken = game.humans.filter((q) => !game.free_seats.includes(q));
  const host = taken.length ? game.players[taken[0]].name : null;
  $("#join-title").textContent = !host ? t("join.titleNoOne")
    : host.toLowerCase() === "you" ? t("join.titleFriend") : t("join.title", { name: host });
  $("#join-rules").replaceChildren(t("join.rules", { rules: presetName(game.ruleset.name, game.ruleset.target) }), " (",
    el("a", { href: `/g/${game.id}/rules` }, t("join.rulesLink")), ")");
  $("#join-table").replaceChildren(...game.players.map((p) => el("li", { class: game.free_seats.includes(p.seat) ? "free" : "" },
    el("span", { class: "who" }, p.name, " ", el("small", {},
      p.cpu ? t("join.seat.cpu", { level: p.level ? levelName(p.level) : p.cpu })
        : game.free_seats.includes(p.seat) ? t("join.seat.free") : t("join.seat.taken"))),
    el("span", { class: "pts" }, String(p.score)))));
  const moved = game.log_total > 0 && game.log.some((e) => e.kind !== "turn_start" && e.kind !== "roll") || game.turns > 0;
  $("#join-state").textContent = moved ? t("join.started", { n: game.turns + 1, name: game.players[game.current].name })
    : t("join.notStarted");
  $("#join-seats").replaceChildren(...game.free_seats.map((q) => el("button", { type: "button", class: "btn primary wide",
    onclick: () => claim(game, q) }, t("join.play", { name: game.players[q].name }))));
  $("#join-watch").onclick = () => { S.watching = true; openStream(game.version); update(game, []); };
  focusFirst(true);
}

async function claim(game, seat) {
  const r = await api("POST", `/api/games/${S.gid}/claim`, { seat });
  if (!r.ok) { showError("#loading", r.data.detail); $("#loading").hidden = false; return loadGame(S.gid); }
  saveSeats(S.gid, r.data.token, r.data.seats);
  S.watching = false;
  openStream(r.data.game.version);
  await update(r.data.game, []);
  focusFirst(true);
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
    clearTrouble(); // the server is there again
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

// A "cannot be reached" error goes once the server answers again: the page asks every few
// seconds, and shows the game as the server has it when it is back.
function clearTrouble() {
  const e = $("#play-error");
  if (!e.hidden && e.dataset.kind === "offline") e.hidden = true;
}

function retryWhenBack(gid) {
  clearTimeout(S.retry);
  S.retry = setTimeout(async () => {
    const e = $("#play-error");
    if (e.hidden || e.dataset.kind !== "offline" || S.gid !== gid) return;
    const r = await api("GET", `/api/games/${encodeURIComponent(gid)}?log=all`);
    if (!r.ok || S.gid !== gid) { retryWhenBack(gid); return; }
    clearTrouble();
    if (!S.game || r.data.version > S.game.version) {
      S.game = null;
      S.log = r.data.log.slice();
      fillLog();
      await update(r.data, []);
      focusFirst();
    }
  }, 2000);
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
  let buzzed = false;
  if (events.length && animated && delay() > 0 && prev) {
    await animate(events, prev);
  } else {
    for (const e of events) logEvent(e, false);
    buzzed = feel(events); // shown at once: the sound of the one that matters most
  }
  render(events.some((e) => e.kind === "roll" || e.kind === "bonus"));
  // The turn comes to a player on this phone after someone else played: a short vibration (not
  // when a zilch's has just been asked for: a new one would cut it short).
  const myTurn = (x) => x && x.status === "playing" && x.human_to_move && isMine(x.current) && !S.watching;
  const others = events.some((e) => e.seat !== null && e.seat !== undefined && e.seat !== game.current);
  if (prev && myTurn(game) && (others || !myTurn(prev)) && !buzzed) window.zilchFeel.buzz("turn");
}

// Sound and vibration (static/feel.js) for events shown: a roll, a bank, a zilch (also a vibration),
// the end of a game won on this phone; of several, only the one that matters most.
const FEEL_ORDER = ["win", "zilch", "bank", "roll"];
function feelOf(e) {
  if (e.kind === "roll" || e.kind === "bonus") return "roll";
  if (e.kind === "bank" || e.kind === "zilch") return e.kind;
  if (e.kind === "game_over" && (e.winners || []).some((q) => isMine(q) && !isCpu(q))) return "win";
  return null;
}
// True if a vibration was asked for.
function feel(events) {
  const kinds = events.map(feelOf);
  const kind = FEEL_ORDER.find((k) => kinds.includes(k));
  if (kind) window.zilchFeel.play(kind);
  return kinds.includes("zilch") && window.zilchFeel.buzz("zilch");
}

// The switches of sound and vibration, each shown where the browser can do it.
function feelSetup() {
  const f = window.zilchFeel, now = f.settings();
  for (const [what, can] of [["sound", f.canSound], ["vibrate", f.canVibrate]]) {
    const box = $(`#${what}-on`);
    box.closest("label").hidden = !can;
    box.checked = now[what];
    box.addEventListener("change", () => f.choose(what, box.checked));
  }
  $("#feel-box").hidden = !f.canSound && !f.canVibrate;
}

function fillLog() {
  $("#log").replaceChildren(...[...S.log].reverse().map((e) => el("li", { class: e.kind }, evText(e))));
}

function logEvent(e, fresh) {
  S.log.push(e);
  const li = el("li", { class: e.kind + (fresh ? " fresh-event" : "") }, evText(e));
  $("#log").prepend(li);
  if (fresh) setTimeout(() => li.classList.remove("fresh-event"), 1500);
}

// The scores, the player to move marked for the eye (▶) and for screen readers (aria-current);
// a player's level and board status on a line of their own under the name.
function renderScores(players, cur) {
  $("#scores").replaceChildren(...players.map((p) => {
    const level = p.cpu ? (p.level ? levelName(p.level) : p.cpu) : null;
    const about = [level && !p.name.includes(level) && !(p.level && p.name.includes(p.level)) ? t("cpu.level", { level }) : "",
      !p.cpu && S.game && S.game.humans.length > 1 && !isMine(p.seat) ? t("other.device") : "",
      p.on_board ? "" : t("not.board")].filter(Boolean).join(" · ");
    return el("li", { class: p.seat === cur ? "current" : "", "aria-current": p.seat === cur ? "true" : null },
      el("span", { class: "who" }, el("span", { "aria-hidden": "true" }, p.seat === cur ? "▶ " : ""), p.name,
        about ? " " : null, about ? el("small", {}, about) : null),
      el("span", { class: "pts" }, String(p.score)));
  }));
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
    feel([e]);
    renderScores(board, cur);
    if (e.seat !== null && e.seat !== undefined) $("#turn-who").textContent = t("turn.playing", { name: board[e.seat].name });
    $("#selection").className = "selection" + (e.kind === "zilch" ? " bad" : "");
    $("#selection").textContent = evText(e);
    if (e.turn_total !== undefined) $("#turn-total").textContent = t("turn.total", { n: e.turn_total });
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
  document.title = t("doc.play", { name: name(cur) });
  renderScores(g.players, cur);
  rememberGame(g);
  // The notes speak to the player to move ("your first bank needs 500"): on a phone where someone
  // else is to move, only those that speak to everyone are shown.
  const toMe = g.human_to_move && isMine(cur) && !S.watching;
  // (the server's English sentence decides; the page shows it in its language by the note's key)
  const keyed = g.notes.map((n, i) => [n, noteText(n, (g.note_keys || [])[i])]);
  const notes = toMe ? keyed : keyed.filter(([n]) => !/\byour?\b/i.test(n));
  $("#notes").replaceChildren(...notes.map(([n, text]) => el("li", { class: /last turn|Tie-break/.test(n) ? "hot" : "" }, text)));
  let who;
  if (!g.human_to_move) who = t("turn.playing", { name: name(cur) });
  else if (!isMine(cur)) {
    who = g.free_seats.includes(cur) ? t("turn.waiting", { name: name(cur) }) : t("turn.otherDevice", { name: name(cur) });
  } else who = name(cur).toLowerCase() === "you" ? t("turn.yours") : t("turn.yoursNamed", { name: name(cur) });
  $("#turn-who").textContent = who;
  $("#turn-total").textContent = g.phase === "keep" ? t("turn.total", { n: g.turn_total }) : "";
  $("#speed-box").hidden = !g.players.some((p) => p.cpu); // the computer's speed: only with a computer
  $("#skip-btn").hidden = true;
  $("#hint-btn").disabled = !canPlay();
  renderInvite();
  renderSheet($("#sheet"));
  zilchFair.show(g);
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
    pressed: S.selected.has(i), pos: i, label: hinted.includes(i) ? "die.hinted" : "die.rolled",
    cls: (S.selected.has(i) ? "kept" : "") + (hinted.includes(i) ? " hinted" : "") + (rolled ? " rolled" : ""),
    onclick: fixed || !canPlay() ? null : () => { toggle(i); },
  }));
  const aside = setAside();
  const kids = [el("div", { class: "roll" }, ...dice)];
  if (aside.count) {
    kids.push(el("div", { class: "aside", role: "group", "aria-label": t("aside.label") },
      aside.faces ? t("aside.faces") : t(aside.count === 1 ? "aside.one" : "aside.many", { n: aside.count }),
      ...(aside.faces || []).map((f) => dieEl(f, { cls: "small", label: "die.aside" }))));
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
  if (dead.length) return t(dead.length === 1 ? "misfit.dead.one" : "misfit.dead.many", { dice: names(dead) });
  if (best) return t(extra.length === 1 ? "misfit.extra.one" : "misfit.extra.many", { dice: names(extra), keep: names(best.dice), points: best.points });
  return t("misfit.kind", { dice: names(extra) });
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
    sel.textContent = t("bonus.text", { bonus: g.ruleset.variants.six_dice_zilch_bonus, turn: g.turn_total }) + " "
      + (k.bank !== null ? t("bonus.bankOr", { total: k.total, n: g.ruleset.dice }) : t("bonus.fresh", { n: g.ruleset.dice }));
    setButtons(true, k.bank !== null, k);
  } else if (!S.selected.size) {
    sel.textContent = t("sel.tap");
    setButtons(false, false);
  } else if (!k) {
    sel.className = "selection bad";
    sel.textContent = misfit();
    setButtons(false, false);
  } else {
    sel.textContent = t("sel.keep", { dice: k.dice.join(" "), points: k.points, total: k.total }) + (k.hot_dice ? " · " + t("sel.hot") : "");
    setButtons(true, k.bank !== null, k);
  }
}

function setButtons(canRoll, canBank, k) {
  const rb = $("#roll-btn"), bb = $("#bank-btn");
  rb.disabled = !canRoll;
  bb.disabled = !canBank;
  if (k) {
    rb.textContent = t(k.n === 0 ? "btn.rollFresh" : k.hot_dice ? "btn.rollAll" : k.next_roll === 1 ? "btn.rollOne" : "btn.rollMany",
      { n: k.next_roll });
    bb.textContent = t("btn.bankN", { n: k.total });
    if (!canBank) bb.title = bankWhyNot(k);
    else bb.removeAttribute("title");
  } else {
    rb.textContent = t("play.roll");
    bb.textContent = t("play.bank");
  }
  if (k && !canBank) $("#selection").textContent += ` (${bankWhyNot(k)})`;
  rb.onclick = canRoll ? () => send(k.roll) : null;
  bb.onclick = canBank ? () => send(k.bank) : null;
}

function bankWhyNot(k) {
  const g = S.game, rs = g.ruleset;
  if (k.hot_dice && rs.hot_dice === "forced") return t("bank.hotForced");
  if (k.total < g.bank_threshold) {
    return t(g.players[g.current].on_board ? "bank.needs" : "bank.entry", { n: g.bank_threshold });
  }
  return t("bank.few");
}

function renderChoices() {
  const g = S.game;
  $("#actions").hidden = true;
  $("#dice").replaceChildren();
  $("#selection").className = "selection";
  $("#selection").textContent = !canPlay() ? "" : g.phase === "challenge" ? t("choice.beforeChallenge") : t("choice.before");
  const help = !canPlay() ? null : g.phase === "challenge" ? t("choice.challenge.help")
    : g.phase === "piggyback" ? t("choice.piggyback.help") : null;
  $("#choices").replaceChildren(...(canPlay() ? g.choices : []).map((c) =>
    el("button", { type: "button", class: "btn " + (c.action === S.hint?.best ? "primary" : "ghost"),
      onclick: () => send(c.action) }, choiceLabel(c))),
    ...(help ? [el("p", { class: "muted small choice-help" }, help)] : []));
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
  if (r.ok && g.phase === "keep") markTip("keep", g.current); // the first keep is made: its tip has done its work
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
    showError("#play-error", r.data.detail, r.status === 0 ? "offline" : "");
    if (r.status === 0) retryWhenBack(S.gid);
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
function focusFirst(force = false) {
  const a = document.activeElement;
  if (!force && a && a !== document.body && !a.disabled && a.offsetParent !== null) return;
  const target = [...document.querySelectorAll("#dice .roll .die, #choices button, #roll-btn, #pass-go, #rematch, #join-seats button, #join-watch")]
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
  box.textContent = t("hint.thinking");
  const r = await api("GET", `/api/games/${S.gid}/hint`);
  if (!r.ok) { box.textContent = r.data.detail; return; }
  if (!S.game || r.data.version !== S.game.version || !canPlay()) { box.hidden = true; return; }
  S.hint = r.data;
  const opts = r.data.options.slice(0, 4).map((o) => el("li", {}, `${hintLabel(o)}: ${hintValue(o)}` +
    (o.win_chance !== undefined && o.win_chance !== null ? " · " + t("hint.winShort", { pct: pct(o.win_chance) }) : "")));
  const kids = [el("strong", {}, t("hint.best", { best: hintLabel(r.data.options[0]) }))];
  if (r.data.win_chance !== undefined && r.data.win_chance !== null) {
    // the solved game's chance: every player playing perfectly, whatever level the computer plays at
    const weaker = g.players.some((p) => p.cpu && p.level !== "Perfect");
    kids.push(el("div", { class: "win" }, t(weaker ? "hint.winOther" : "hint.win", { pct: pct(r.data.win_chance) })));
  }
  const explain = (r.data.explain_keys || []).map(([k, v]) => t("hint.explain." + k, v)).join(" ");
  kids.push(el("div", { class: "small" }, explain || r.data.explain), el("ol", {}, ...opts));
  box.replaceChildren(...kids);
  if (g.phase === "keep") {
    if (r.data.best_keep) S.selected = new Set(positionsOf(r.data.best_keep));
    renderKeep();
  } else {
    renderChoices();
  }
  intoView(box);
}

// Scroll an element that opened below the fold up into view, as much of it as fits, its top first.
function intoView(box) {
  const r = box.getBoundingClientRect(), vh = window.innerHeight;
  const by = Math.min(r.bottom - vh + 8, r.top - 8);
  if (r.bottom > vh && by > 0) window.scrollBy(0, by);
}

const TIPS = {
  get keep() { return t("tip.keep"); },
  entry: (n) => t("tip.entry", { n }),
  get bonus() { return t("tip.bonus"); },
  get hot() { return t("tip.hot"); },
  get zilch() { return t("tip.zilch"); },
};

// Tips are per player, not per phone: in hot seat each person gets their own first tips. A tip
// seen is stored as "id@name" (the player's name, in lower case); "No more tips" is the phone's.
const tipOf = (id, seat) => `${id}@${S.game.players[seat].name.toLowerCase()}`;

function showTip() {
  const box = $("#tip");
  const cfg = store.get("zilchTips", { seen: [], off: false }) || { seen: [], off: false };
  const g = S.game;
  let id = null, text = null;
  if (!cfg.off && g && g.status === "playing" && canPlay()) {
    const me = g.current;
    const seen = (x) => cfg.seen.includes(tipOf(x, me));
    const zilched = S.log.some((e) => e.kind === "zilch" && e.seat === me);
    const hot = currentKeep() && currentKeep().hot_dice;
    if (bonusKeep() && !seen("bonus")) { id = "bonus"; text = TIPS.bonus; }
    else if (g.phase === "keep" && !bonusKeep() && !seen("keep")) { id = "keep"; text = TIPS.keep; }
    else if (hot && !seen("hot")) { id = "hot"; text = TIPS.hot; }
    else if (zilched && !seen("zilch")) { id = "zilch"; text = TIPS.zilch; }
    else if (!g.players[me].on_board && g.ruleset.entry_threshold && !seen("entry")) {
      id = "entry"; text = TIPS.entry(g.ruleset.entry_threshold);
    }
  }
  box.hidden = !id;
  if (!id) return;
  box.dataset.tip = tipOf(id, g.current);
  $("#tip-text").textContent = text;
}

function markTip(id, seat) {
  const cfg = store.get("zilchTips", { seen: [], off: false }) || { seen: [], off: false };
  const key = tipOf(id, seat);
  if (!cfg.seen.includes(key)) { cfg.seen.push(key); store.set("zilchTips", cfg); }
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
    if (info.dataset.gid === g.id && info.dataset.free === free.join(",")) return;
    info.dataset.gid = g.id;
    info.dataset.free = free.join(",");
    const url = location.origin + `/g/${g.id}`;
    const names = free.join(", ");
    const status = el("p", { class: "share-status", "aria-live": "polite" });
    const btn = el("button", { type: "button", class: "btn primary", id: "share-btn" },
      navigator.share ? t("share.btn") : t("share.copy"));
    btn.addEventListener("click", async () => {
      if (navigator.share) {
        try { await navigator.share({ title: "Zilch", text: t("share.text", { name: free[0] }), url }); return; } catch (e) { /* cancelled */ }
      }
      try { await navigator.clipboard.writeText(url); status.textContent = t("share.copied", { names }); } catch (e) { /* not allowed */ }
    });
    info.replaceChildren(el("p", { class: "share-title" }, t("share.title", { names })),
      el("p", {}, el("a", { href: `/g/${g.id}`, class: "share-url" }, url)), el("div", { class: "row" }, btn), status);
  } else if (S.watching) {
    info.hidden = false;
    info.dataset.gid = "";
    info.textContent = t("watch.info");
  } else {
    info.hidden = true;
    info.dataset.gid = "";
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
  if (!shared) $("#invite-info .share-status").textContent = t("share.freed", { name: r.data.name });
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
  document.title = t("doc.pass", { name: name(cur) });
  $("#pass-name").textContent = name(cur);
  $("#pass-go").textContent = t("pass.go.named", { name: name(cur) });
  const me = g.players[cur];
  const since = sinceLastTurn(cur);
  $("#pass-info").textContent = since.length ? t("pass.since") : "";
  $("#pass-events").replaceChildren(...since.map((e) => el("li", { class: e.kind }, evText(e))),
    el("li", { class: "me" }, t("pass.me", { name: me.name, score: me.score })));
  zilchFair.show(g);
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
    t.banked ? (t.points ? `+${t.points}` : tx("sheet.notOnBoard", { n: t.turn_total }))
      : (t.points ? tx("sheet.zilchPlus", { n: t.points }) : tx("sheet.zilch")),
    t.penalty ? " −" + tx("sheet.penalty") : "", el("small", {}, String(t.score)));
  box.replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, "#"), ...g.players.map((p) => el("th", { scope: "col" }, p.name)))),
    el("tbody", {}, ...rows.map((row, i) => el("tr", {}, el("th", { scope: "row" }, String(i + 1)), ...row.map(cell))))));
}

function renderOver() {
  const g = S.game;
  show("screen-over");
  const w = g.winners || [];
  $("#over-title").textContent = w.length > 1 ? t("over.draw", { names: w.map(name).join(t("over.and")) })
    : name(w[0]).toLowerCase() === "you" ? t("over.youWin") : t("over.wins", { name: name(w[0]) });
  document.title = t("doc.over", { title: $("#over-title").textContent });
  $("#standings").replaceChildren(...g.standings.map((s) => el("li", { class: s.winner ? "winner" : "" },
    el("span", {}, `${s.place}. ${s.name}`), el("span", { class: "pts" }, String(s.score)))));
  $("#over-info").replaceChildren(t("over.info", { turns: g.turns, rules: g.ruleset.name, target: g.ruleset.target, seed: g.seed }) + " · ",
    el("a", { href: `/api/games/${g.id}/record`, download: `zilch-${g.id}.json` }, t("record.link")));
  rememberGame(g);
  if (mySeats().length) zilchHistory.remember(g.id, myToken()); // this device's history (static/history.js)
  $("#review-link").href = `/g/${g.id}/review`;
  zilchFair.show(g);
  $("#rematch").textContent = t(g.rematch ? "over.rematch" : "over.again");
  $("#rematch").hidden = !mySeats().length;
  renderSheet($("#over-sheet"));
  $("#over-log").replaceChildren(...[...S.log].reverse().map((e) => el("li", { class: e.kind }, evText(e))));
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
  const p = location.pathname, review = p.match(/^\/g\/([A-Za-z0-9_-]+)\/review$/);
  if (review) return zilchReview.open(review[1]);
  if (p === "/history") return zilchHistory.open();
  const m = p.match(/^\/g\/([A-Za-z0-9_-]+)$/);
  if (m) loadGame(m[1]); else showNew();
}
// Links marked data-spa open their screen in this page (the review, the history, back to a game).
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-spa]");
  if (!a || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
  ev.preventDefault();
  if (a.pathname !== location.pathname) history.pushState({}, "", a.pathname);
  route();
});

function speedSetup() {
  const sel = $("#speed");
  const now = String(delay());
  if (![...sel.options].some((o) => o.value === now)) sel.append(el("option", { value: now }, `${now} ms`));
  sel.value = now;
  sel.addEventListener("change", () => localStorage.setItem("zilchDelay", sel.value));
}

applyTexts();
$("#new-form").noValidate = true; // the page says what is wrong with the form, in its own words
$("#new-form").addEventListener("submit", startGame);
for (const r of document.querySelectorAll('#modes input[name="mode"]')) {
  r.addEventListener("change", () => { if (r.checked) setMode(r.value, true); });
}
$("#more-rules").addEventListener("toggle", () => { if (S.setup) saveForm(); });
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
feelSetup();
zilchHistory.setup();
// Offline: the pages and the rules are kept by the service worker (static/sw.js); play needs the
// server, and the page says so.
function onlineChanged() { $("#offline").hidden = navigator.onLine !== false; }
window.addEventListener("online", onlineChanged);
window.addEventListener("offline", onlineChanged);
onlineChanged();
if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => { navigator.serviceWorker.register("/sw.js").catch(() => { /* not offered */ }); });
}
window.zilch = S; // for tests and the curious
route();

// Zilch in the browser: the server owns the game; this page shows it and sends the moves.
// Screens: new game, play, pass the phone (hot seat), final standings. No libraries, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);
const DELAY = Number(localStorage.getItem("zilchDelay") ?? 700); // ms per computer step

const S = {
  setup: null,      // GET /api/setup
  gid: null,        // game id
  game: null,       // the last game view from the server
  selected: new Set(), // sorted-roll positions the player tapped
  shownSeat: null,  // hot seat: the human whose dice are shown on this phone
  animating: false,
  skip: false,
  hint: null,
};

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
  try { data = await res.json(); } catch (e) { data = { detail: `The server answered ${res.status}.` }; }
  return { ok: res.ok, status: res.status, data };
}

function show(id) {
  for (const s of document.querySelectorAll("main > section")) s.hidden = s.id !== id;
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
    "aria-label": `die showing ${face}`, "aria-pressed": opts.pressed ? "true" : null, disabled: !opts.onclick });
  for (let i = 1; i <= 9; i++) b.append(el("span", { class: "pip p" + i }));
  if (opts.onclick) b.addEventListener("click", opts.onclick);
  return b;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- new game

async function showNew() {
  document.title = "Zilch: new game";
  $("#rules-link").href = "/rules/zonk";
  if (!S.setup) {
    const r = await api("GET", "/api/setup");
    if (!r.ok) { $("#loading").textContent = r.data.detail; return; }
    S.setup = r.data;
  }
  const st = S.setup;
  const sel = $("#preset");
  sel.replaceChildren(...st.presets.map((p) => el("option", { value: p.name }, `${p.name} (to ${p.target})`)));
  sel.value = st.default_preset;
  sel.onchange = presetChanged;
  const tg = $("#toggles");
  tg.querySelectorAll("label").forEach((x) => x.remove());
  for (const t of st.toggles) {
    tg.append(el("label", { class: "toggle" }, el("input", { type: "checkbox", "data-key": t.key }),
      el("span", {}, t.label, el("small", {}, t.help))));
  }
  $("#players").replaceChildren();
  addPlayer("You", null);
  if (st.cpus.length) addPlayer("", st.default_cpu);
  $("#add-cpu").hidden = !st.cpus.length;
  presetChanged();
  show("screen-new");
}

function presetChanged() {
  const p = S.setup.presets.find((x) => x.name === $("#preset").value);
  $("#preset-summary").textContent = p.summary + (p.keep === "all_scoring" ? " Every scoring die is kept for you." : "");
  $("#target").value = p.target;
  for (const box of document.querySelectorAll("#toggles input")) box.checked = !!p.variants[box.dataset.key];
  $("#rules-link").href = "/rules/" + p.name;
}

function addPlayer(name, cpu) {
  const list = $("#players");
  if (list.children.length >= 6) return;
  const type = el("select", { "aria-label": "player type" },
    el("option", { value: "" }, "Person"),
    ...S.setup.cpus.map((c) => el("option", { value: c.spec, title: c.help }, `Computer: ${c.spec}`)));
  type.value = cpu || "";
  const input = el("input", { type: "text", maxlength: "24", placeholder: cpu ? "CPU" : "Name", value: name,
    "aria-label": "player name" });
  type.onchange = () => { input.placeholder = type.value ? "CPU" : "Name"; };
  const li = el("li", {}, input, type,
    el("button", { type: "button", class: "btn ghost remove", "aria-label": "remove player",
      onclick: () => { if (list.children.length > 1) li.remove(); } }, "×"));
  list.append(li);
}

async function startGame(ev) {
  ev.preventDefault();
  const preset = S.setup.presets.find((x) => x.name === $("#preset").value);
  const set = {};
  const target = Number($("#target").value);
  if (target && target !== preset.target) set.target = target;
  for (const box of document.querySelectorAll("#toggles input")) {
    const t = S.setup.toggles.find((x) => x.key === box.dataset.key);
    if (box.checked !== !!preset.variants[t.key]) set[t.key] = box.checked ? t.on : t.off;
  }
  const players = [...$("#players").children].map((li) => {
    const [input, type] = li.querySelectorAll("input, select");
    return { name: input.value.trim(), cpu: type.value || null };
  });
  $("#start").disabled = true;
  const r = await api("POST", "/api/games", { ruleset: preset.name, set, players });
  $("#start").disabled = false;
  if (!r.ok) { showError("#new-error", r.data.detail); return; }
  $("#new-error").hidden = true;
  openGame(r.data, true);
}

function showError(sel, text) {
  const e = $(sel);
  e.textContent = text;
  e.hidden = false;
}

// ---------------------------------------------------------------- playing

async function openGame(created, push) {
  S.gid = created.id;
  if (push) history.pushState({}, "", created.url);
  S.shownSeat = null;
  $("#rules-link").href = `/g/${S.gid}/rules`;
  $("#log").replaceChildren();
  await present(created.game, created.events);
}

async function loadGame(gid) {
  const r = await api("GET", `/api/games/${encodeURIComponent(gid)}`);
  if (!r.ok) {
    $("#loading").replaceChildren(r.data.detail + " ", el("a", { href: "/" }, "Start a new game"));
    return;
  }
  S.gid = gid;
  $("#rules-link").href = `/g/${gid}/rules`;
  $("#log").replaceChildren();
  await present(r.data, []);
}

const name = (seat) => S.game.players[seat].name;
const isCpu = (seat) => seat !== null && seat !== undefined && S.game.players[seat].cpu !== null;

// Show the events one by one (the computer's turns step by step), then the position they lead to.
async function present(game, events) {
  const prev = S.game;
  S.game = game;
  S.selected = new Set();
  S.hint = null;
  $("#hint").hidden = true;
  $("#play-error").hidden = true;
  // The log shows what happened before; the new events are added as they are played.
  if (!prev || prev.id !== game.id) fillLog(game.log.slice(0, Math.max(0, game.log.length - events.length)));
  const slow = events.some((e) => isCpu(e.seat));
  if (events.length && (slow || events.some((e) => e.kind === "zilch")) && DELAY > 0) {
    await animate(events);
  } else {
    for (const e of events) logEvent(e, false);
  }
  render();
}

function fillLog(log) {
  $("#log").replaceChildren();
  for (const e of log) logEvent(e, false);
}

function logEvent(e, fresh) {
  const li = el("li", { class: e.kind + (fresh ? " fresh-event" : "") }, e.text);
  $("#log").prepend(li);
  if (fresh) setTimeout(() => li.classList.remove("fresh-event"), 1500);
}

async function animate(events) {
  S.animating = true;
  S.skip = false;
  show("screen-play");
  $("#skip-btn").hidden = false;
  setButtons(false, false);
  $("#choices").replaceChildren();
  for (const e of events) {
    logEvent(e, true);
    if (S.skip) continue;
    const who = e.seat !== null && e.seat !== undefined ? name(e.seat) : "";
    if (who) $("#turn-who").textContent = who;
    $("#selection").className = "selection" + (e.kind === "zilch" ? " bad" : "");
    $("#selection").textContent = e.text;
    if (e.turn_total !== undefined) $("#turn-total").textContent = `Turn: ${e.turn_total}`;
    if (e.kind === "roll" || e.kind === "bonus" || e.kind === "zilch") {
      $("#dice").replaceChildren(el("div", { class: "roll" },
        ...e.dice.map((f) => dieEl(f, { cls: e.kind === "zilch" ? "lost" : "" }))));
    } else if (e.kind === "keep") {
      const left = e.dice.slice();
      for (const d of $("#dice").querySelectorAll(".roll .die")) {
        const i = left.indexOf(Number(d.dataset.face));
        if (i >= 0) { d.classList.add("kept"); left.splice(i, 1); }
      }
    }
    const quick = !isCpu(e.seat) && e.kind !== "zilch" && e.kind !== "bonus";
    await sleep(quick ? DELAY / 3 : DELAY);
  }
  $("#skip-btn").hidden = true;
  S.animating = false;
}

function render() {
  const g = S.game;
  if (g.status === "over") return renderOver();
  const cur = g.current;
  if (g.humans.length > 1 && g.human_to_move && S.shownSeat !== cur) return renderPass();
  show("screen-play");
  document.title = `Zilch: ${name(cur)} to play`;
  $("#scores").replaceChildren(...g.players.map((p) => el("li", { class: p.seat === cur ? "current" : "" },
    el("span", { class: "who" }, (p.seat === cur ? "▶ " : "") + p.name, " ",
      el("small", {}, [p.cpu ? "computer" : "", p.on_board ? "" : "not on board"].filter(Boolean).join(" · "))),
    el("span", { class: "pts" }, String(p.score)))));
  $("#notes").replaceChildren(...g.notes.map((n) => el("li", { class: /last turn|Tie-break/.test(n) ? "hot" : "" }, n)));
  $("#turn-who").textContent = !g.human_to_move ? `${name(cur)} is playing`
    : name(cur).toLowerCase() === "you" ? "Your move" : `${name(cur)}, your move`;
  $("#turn-total").textContent = g.phase === "keep" ? `Turn: ${g.turn_total}` : "";
  $("#skip-btn").hidden = true;
  if (g.phase === "keep") renderKeep(); else renderChoices();
}

function renderKeep() {
  const g = S.game;
  $("#choices").replaceChildren();
  $("#actions").hidden = false;
  const fixed = g.keeps.length === 1 && g.ruleset.keep === "all_scoring";
  if (fixed) S.selected = new Set(positionsOf(g.keeps[0].dice));
  const hinted = S.hint && S.hint.best_keep ? positionsOf(S.hint.best_keep) : [];
  const dice = g.roll.map((f, i) => dieEl(f, {
    pressed: S.selected.has(i),
    cls: (S.selected.has(i) ? "kept" : "") + (hinted.includes(i) ? " hinted" : ""),
    onclick: fixed || !g.human_to_move ? null : () => { toggle(i); },
  }));
  const aside = setAside();
  const kids = [el("div", { class: "roll" }, ...dice)];
  if (aside.count) {
    kids.push(el("div", { class: "aside" }, aside.faces ? "Set aside:" : `${aside.count} dice set aside`,
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
  const log = g.log;
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
  if (S.selected.has(i)) S.selected.delete(i); else S.selected.add(i);
  renderKeep();
}

function currentKeep() {
  const g = S.game;
  const faces = [...S.selected].map((i) => g.roll[i]).sort((a, b) => a - b).join(",");
  return g.keeps.find((k) => k.dice.join(",") === faces) || null;
}

function updateSelection() {
  const g = S.game;
  const k = currentKeep();
  const sel = $("#selection");
  sel.className = "selection";
  if (!g.human_to_move) { setButtons(false, false); return; }
  if (!S.selected.size) {
    sel.textContent = "Tap the dice you keep";
    setButtons(false, false);
  } else if (!k) {
    sel.className = "selection bad";
    sel.textContent = "These dice do not score together";
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
  const g = S.game;
  if (k) {
    rb.textContent = k.hot_dice ? `Roll all ${k.next_roll} again` : `Roll ${k.next_roll} ${k.next_roll === 1 ? "die" : "dice"}`;
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
  void g;
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
  $("#selection").textContent = g.phase === "challenge" ? "Before rolling: challenge someone?" : "Before rolling:";
  $("#choices").replaceChildren(...g.choices.map((c) =>
    el("button", { type: "button", class: "btn " + (c.action === S.hint?.best ? "primary" : "ghost"),
      onclick: () => send(c.action), disabled: !g.human_to_move }, c.label)));
}

async function send(action) {
  if (S.animating) return;
  const g = S.game;
  setButtons(false, false);
  for (const b of document.querySelectorAll("#choices button, #dice button")) b.disabled = true;
  const r = await api("POST", `/api/games/${S.gid}/moves`, { version: g.version, seat: g.current, action });
  if (!r.ok) {
    showError("#play-error", r.data.detail);
    if (r.status === 409 || r.status === 404) {
      const fresh = await api("GET", `/api/games/${S.gid}`);
      if (fresh.ok) { S.game = null; await present(fresh.data, []); showError("#play-error", r.data.detail); }
    } else {
      render();
    }
    return;
  }
  await present(r.data.game, r.data.events);
}

async function getHint() {
  const g = S.game;
  const box = $("#hint");
  box.hidden = false;
  box.textContent = "Thinking…";
  const r = await api("GET", `/api/games/${S.gid}/hint`);
  if (!r.ok) { box.textContent = r.data.detail; return; }
  if (r.data.version !== g.version) { box.hidden = true; return; }
  S.hint = r.data;
  const opts = r.data.options.slice(0, 4).map((o) => el("li", {}, `${o.label}: ${o.value_text}`));
  box.replaceChildren(el("strong", {}, "Best: " + r.data.best_label), el("div", { class: "small" }, r.data.explain),
    el("ol", {}, ...opts));
  if (g.phase === "keep") {
    if (r.data.best_keep) S.selected = new Set(positionsOf(r.data.best_keep));
    renderKeep();
  } else {
    renderChoices();
  }
}

// ---------------------------------------------------------------- hot seat and the end

function renderPass() {
  const g = S.game;
  const cur = g.current;
  show("screen-pass");
  document.title = `Zilch: pass to ${name(cur)}`;
  $("#pass-name").textContent = name(cur);
  $("#pass-go").textContent = `I'm ${name(cur)}: show my dice`;
  const last = [...g.log].reverse().find((e) => ["bank", "zilch", "penalty", "final_round"].includes(e.kind));
  const me = g.players[cur];
  $("#pass-info").textContent = (last ? last.text + ". " : "") + `${me.name} has ${me.score}.`;
}

function renderOver() {
  const g = S.game;
  show("screen-over");
  const w = g.winners || [];
  $("#over-title").textContent = w.length > 1 ? `Draw: ${w.map(name).join(" and ")}` : `${name(w[0])} wins!`;
  document.title = "Zilch: " + $("#over-title").textContent;
  $("#standings").replaceChildren(...g.standings.map((s) => el("li", { class: s.winner ? "winner" : "" },
    el("span", {}, `${s.place}. ${s.name}`), el("span", { class: "pts" }, String(s.score)))));
  $("#over-info").replaceChildren(`${g.turns} turns · ${g.ruleset.name} to ${g.ruleset.target} · seed ${g.seed} · `,
    el("a", { href: `/api/games/${g.id}/record` }, "game record"));
  const fill = (events) => $("#over-log").replaceChildren(...[...events].reverse().map((e) => el("li", { class: e.kind }, e.text)));
  fill(g.log);
  if (g.log_total > g.log.length) {  // the whole game's story, not only its end
    api("GET", `/api/games/${g.id}?log=all`).then((r) => { if (r.ok && S.game.id === g.id) fill(r.data.log); });
  }
}

async function rematch() {
  $("#rematch").disabled = true;
  const r = await api("POST", `/api/games/${S.gid}/rematch`);
  $("#rematch").disabled = false;
  if (!r.ok) { showError("#over-info", r.data.detail); return; }
  S.game = null;
  openGame(r.data, true);
}

// ---------------------------------------------------------------- start

function route() {
  const m = location.pathname.match(/^\/g\/([A-Za-z0-9_-]+)$/);
  if (m) loadGame(m[1]); else showNew();
}

$("#new-form").addEventListener("submit", startGame);
$("#add-human").addEventListener("click", () => addPlayer("", null));
$("#add-cpu").addEventListener("click", () => addPlayer("", S.setup.default_cpu));
$("#hint-btn").addEventListener("click", getHint);
$("#skip-btn").addEventListener("click", () => { S.skip = true; });
$("#pass-go").addEventListener("click", () => { S.shownSeat = S.game.current; render(); });
$("#rematch").addEventListener("click", rematch);
window.addEventListener("popstate", route);
window.zilch = S; // for tests and the curious
route();

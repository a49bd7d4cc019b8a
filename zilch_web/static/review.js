// The review of a game (zilch_web/review.py, docs/review.md): every decision of every player against
// the best move, the luck of every roll, each player's accuracy, score, luck against play and
// costliest mistakes, and the win chance across the game as a small inline SVG line. A decision
// opens (tap, click, Enter or Space: it is a button) to show its position and every choice with
// its values. The server works the review out off the request path: while it does, the page shows
// how far it got. Loaded before app.js, which defines t, el, api and show: they are read when the
// functions are called.
"use strict";
window.zilchReview = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  let shown = 0; // the review being opened (a newer one wins)
  let current = null; // the review shown

  const num = (x, d = 0) => Number(x).toLocaleString(LANG, { minimumFractionDigits: d, maximumFractionDigits: d });
  const sign = (x) => (x < 0 ? "\u2212" : "+");
  // A value of the review's measure: a win chance in %, or expected points.
  const value = (v, m) => (v === null || v === undefined ? "\u2013" : m === "win" ? t("review.pct", { n: num(v * 100, 1) }) : num(v, 0));
  // A change of the measure (a loss, the luck of a roll): percentage points of win chance, or points.
  const delta = (v, m) => sign(v) + (m === "win" ? t("review.pct", { n: num(Math.abs(v) * 100, 1) })
    : t("review.points", { n: num(Math.abs(v), 0) }));

  function svg(tag, attrs = {}) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  }

  // A light line chart: values 0..max at x 0..1, a dashed middle line, optional dots.
  function lineSvg(points, opts = {}) {
    const W = 320, H = opts.height || 110, P = 6, max = opts.max || 1;
    const xy = ([x, v]) => [P + x * (W - 2 * P), P + (1 - v / max) * (H - 2 * P)];
    const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", preserveAspectRatio: "none" });
    if (opts.label) s.setAttribute("aria-label", opts.label);
    s.append(svg("line", { x1: P, x2: W - P, y1: H / 2, y2: H / 2, class: "chart-mid" }));
    s.append(svg("polyline", { points: points.map((p) => xy(p).join(",")).join(" "), class: "chart-line" }));
    for (const d of opts.dots || []) {
      const [x, y] = xy(d);
      // a dot that stays round when the chart is stretched: a line of no length with round ends
      s.append(svg("line", { x1: x, y1: y, x2: x, y2: y, class: "chart-dot" }));
    }
    return s;
  }

  // A move of the review (its `say`) in the page's words, as the hint says its options.
  function moveLabel(s) {
    if (!s) return "?";
    if (s.kind === "choice") return choiceLabel(s);
    if (s.n === 0) return s.bank ? t("btn.bankN", { n: s.total }) : t("btn.rollFresh", { n: s.next_roll });
    return t(s.bank ? "hint.opt.bank" : s.hot_dice ? "hint.opt.rollHot" : s.next_roll === 1 ? "hint.opt.rollOne" : "hint.opt.roll",
      { dice: s.dice.join(" "), points: s.points, total: s.total, n: s.next_roll });
  }
  const sayOf = (d, action) => ((d.choices || []).find((c) => c.action === action) || {}).say;
  // A player's name with the computer's level, unless the name says it already ("CPU (Easy)").
  function withLevel(name, level) {
    if (!level) return name;
    const said = levelName(level);
    return name.includes(said) || name.includes(level) ? name : name + " " + t("review.level", { level: said });
  }
  // The rules of a game: its preset's identifier and its target.
  const rulesLine = (name, target) => `${name} \u00b7 ${t("blurb.first", { n: num(target) })}`;
  // Who won, as the last screen says it.
  function winnerText(winners, names) {
    if (winners.length > 1) return t("over.draw", { names: winners.map((q) => names[q]).join(t("over.and")) });
    return names[winners[0]].toLowerCase() === "you" ? t("over.youWin") : t("over.wins", { name: names[winners[0]] });
  }
  // A result of the review's measure: won, lost or a draw (win chance), or the points recorded.
  const resultText = (v, m) => (m !== "win" ? num(v, 0) : t(v >= 1 ? "review.result.won" : v <= 0 ? "review.result.lost" : "review.result.draw"));

  // The dice of a position, drawn as the rules page draws them (pips), named for screen readers.
  // The dice the move played kept are marked (yellow, as on the game's screen).
  function dicePic(faces, kept = []) {
    const left = [...kept];
    const label = t("review.dice", { dice: faces.join(" ") }) + (kept.length ? " " + t("review.diceKept", { dice: kept.join(" ") }) : "");
    const box = el("span", { class: "dice-pic", role: "img", "aria-label": label });
    for (const f of faces) {
      const i = left.indexOf(f);
      if (i >= 0) left.splice(i, 1);
      const d = el("span", { class: "die pic" + (i >= 0 ? " kept" : ""), "data-face": f, "aria-hidden": "true" });
      for (let i = 1; i <= 9; i++) d.append(el("span", { class: "pip p" + i }));
      box.append(d);
    }
    return box;
  }

  // ------------------------------------------------------------------ asking for it

  function wait(on, data) {
    const box = $("#review-wait"), bar = $("#review-progress");
    box.hidden = !on;
    if (!on) return;
    if (data && data.total) {
      bar.max = data.total;
      bar.value = data.done;
      $("#review-wait-text").textContent = t("review.progress", { done: data.done, total: data.total });
    } else {
      bar.removeAttribute("value");
      $("#review-wait-text").textContent = t("review.working");
    }
  }

  // Ask until the review is ready: 202 answers tell how far it got.
  async function fetchReview(ask, me) {
    const slow = setTimeout(() => { if (me === shown) wait(true); }, 300);
    let r = await ask(1.5);
    clearTimeout(slow);  // an answer came: its progress (if any) must not be overwritten by "working"
    while (me === shown && r.ok && r.status === 202) {
      wait(true, r.data);
      await sleep(200);
      r = await ask(1);
    }
    if (me === shown) wait(false);
    return r;
  }

  function refused(r) {
    const box = $("#review-error");
    box.replaceChildren(r.data.detail || t("error.notUnderstood"));
    if (r.data.english && r.data.english !== r.data.detail) {
      box.append(el("details", { class: "small" }, el("summary", {}, t("review.why.detail")),
        el("code", { lang: "en" }, r.data.english)));
    }
    box.hidden = false;
  }

  function start(backHref) {
    const me = ++shown;
    closeStream();
    S.gid = null;
    S.game = null;
    show("screen-review");
    document.title = t("doc.review");
    $("#review-title").textContent = t("review.title");
    for (const id of ["#review-error", "#review-body"]) $(id).hidden = true;
    $("#review-sub").textContent = "";
    $("#review-back").hidden = !backHref;
    if (backHref) $("#review-back").href = backHref;
    return me;
  }

  // The review of a stored game (/g/ID/review), else of the game in this device's history.
  async function open(gid) {
    const me = start(`/g/${gid}`);
    const url = (w) => `/api/games/${encodeURIComponent(gid)}/review?wait=${w}`;
    let r = await fetchReview((w) => api("GET", url(w)), me);
    if (me !== shown) return;
    if (!r.ok && r.status === 404 && window.zilchHistory) {
      $("#review-back").hidden = true;
      const h = (w) => api("GET", `/api/history/${encodeURIComponent(gid)}/review?wait=${w}`, undefined, zilchHistory.headers());
      r = await fetchReview(h, me);
      if (me !== shown) return;
    }
    if (!r.ok) return refused(r);
    render(r.data);
  }

  // The review of a game record the person chose (a file): POST /api/review.
  async function openRecord(record) {
    const me = start(null);
    history.pushState({ record: true }, "", "/history#review");
    const r = await fetchReview((w) => api("POST", `/api/review?wait=${w}`, record), me);
    if (me !== shown) return;
    if (!r.ok) return refused(r);
    render(r.data);
  }

  // ------------------------------------------------------------------ showing it

  function render(R) {
    current = R;
    const names = R.players;
    const m = R.measure;
    const mine = R.game ? ((seatsEntry(R.game) || {}).seats || []) : [];
    const me = mine.length === 1 ? mine[0] : 0; // the win line is this device's player's, else the first's
    const who = (q) => withLevel(names[q], R.seats[q].level);
    document.title = t("doc.review");
    $("#review-title").textContent = t("review.titleOf", { names: names.join(t("over.and")) });
    $("#review-sub").replaceChildren(...[rulesLine(R.ruleset, R.target),
      names.map((n, q) => `${n} ${num(R.scores[q])}`).join(" · ") + " \u2014 " + (R.winners ? winnerText(R.winners, names) : t("review.unfinished")),
      t(R.dice === "verified" ? "review.diceVerified" : "review.diceUnverified")].map((x) => el("span", { class: "line" }, x)));
    const why = $("#review-why");
    why.hidden = m === "win";
    why.textContent = m === "win" ? "" : t("review.why." + (R.why_points_code || "no_table"));
    $("#review-measure").textContent = t(m === "win" ? "review.measure.win" : "review.measure.points");
    // the win chance across the game, from this device's player's side
    const fig = $("#review-line");
    fig.hidden = m !== "win" || R.win_line.length < 2;
    if (!fig.hidden) {
      const n = Math.max(1, R.decisions.length);
      const side = (v) => (me === 0 ? v : 1 - v);
      const at = new Map(R.win_line.map(([i, v]) => [i, side(v)]));
      const dots = R.seats.flatMap((s) => s.mistakes).filter((x) => at.has(x.index)).map((x) => [x.index / n, at.get(x.index)]);
      const first = side(R.win_line[0][1]), last = side(R.win_line[R.win_line.length - 1][1]);
      const label = t("review.line.label", { name: names[me], start: num(first * 100, 0), end: num(last * 100, 0) });
      fig.replaceChildren(lineSvg(R.win_line.map(([i, v]) => [i / n, side(v)]), { dots, label }),
        el("figcaption", { class: "small muted" }, label + " " + t("review.line.dots")));
    }
    $("#review-players").replaceChildren(...R.seats.map((s) => seatCard(R, s, who)));
    renderMoves(R, who);
    $("#review-body").hidden = false;
    const h = $("#review-title");
    h.tabIndex = -1;
    h.focus({ preventScroll: true });
  }

  function seatCard(R, s, who) {
    const m = R.measure;
    const kids = [el("h3", {}, who(s.seat))];
    if (s.score === null) {
      kids.push(el("p", { class: "muted" }, t("review.noneValued")));
    } else {
      kids.push(el("p", { class: "rv-score" }, el("strong", {}, num(s.score)), " ", t("review.scoreOf")),
        el("p", { class: "small" }, t(m === "win" ? "review.accuracy.win" : "review.accuracy.points",
          { loss: m === "win" ? num(s.accuracy * 100, 2) : num(s.accuracy, 1), n: s.valued })));
    }
    if (s.start !== null && s.result !== null) {
      const vals = { start: value(s.start, m), luck: delta(s.luck, m), play: delta(s.play, m), result: resultText(s.result, m) };
      kids.push(el("p", { class: "small" }, t(m === "win" ? "review.luckPlay.win" : "review.luckPlay.points", vals)),
        el("p", { class: "small rv-decided" }, t(Math.abs(s.luck) >= Math.abs(s.play) ? "review.decided.luck" : "review.decided.play")));
    }
    if (s.mistakes.length) {
      kids.push(el("h4", {}, t("review.mistakes")), el("ol", { class: "rv-mistakes" }, ...s.mistakes.map((x) => {
        const d = R.decisions[x.index];
        const v = d[m] || {};
        return el("li", {}, el("button", { type: "button", class: "linkish", onclick: () => openDecision(x.index, true) },
          t("review.mistake", { n: x.index + 1, move: moveLabel(sayOf(d, d.action)), best: moveLabel(sayOf(d, v.best_action)),
            value: value(x.value, m), better: value(x.best, m), loss: delta(-x.loss, m) })));
      })));
    } else if (s.valued) {
      kids.push(el("p", { class: "small" }, t("review.noMistake")));
    }
    return el("section", { class: "rv-seat", "aria-label": who(s.seat) }, ...kids);
  }

  // Every turn: its rolls with their luck, each decision a button that opens its position.
  function renderMoves(R, who) {
    const m = R.measure;
    const turns = new Map();
    const put = (turn, seat, item) => {
      if (!turns.has(turn)) turns.set(turn, { seat, items: [] });
      turns.get(turn).items.push(item);
    };
    const byRoll = new Map(R.decisions.filter((d) => d.roll_index !== null).map((d) => [d.roll_index, d]));
    for (const d of R.decisions) if (d.kind === "turn_start") put(d.turn, d.seat, { order: -1, d });
    for (const r of R.rolls) {
      put(r.turn, r.seat, { order: r.index, roll: r });
      const d = byRoll.get(r.index);
      if (d) put(r.turn, r.seat, { order: r.index + 0.5, d });
    }
    const list = [...turns.entries()].sort((a, b) => a[0] - b[0]).map(([turn, x]) => {
      const items = x.items.sort((a, b) => a.order - b.order).map((it) => (it.roll ? rollRow(it.roll, m) : decisionRow(R, it.d)));
      return el("li", { class: "rv-turn" }, el("h3", { class: "rv-turn-title" }, t("review.turn", { n: turn + 1, name: who(x.seat) })),
        el("ul", { class: "rv-items" }, ...items));
    });
    $("#review-turns").replaceChildren(...list);
  }

  function rollRow(r, m) {
    const luck = m === "win" ? r.win_luck : r.points_luck;
    return el("li", { class: "rv-roll" + (r.zilch ? " zilch" : "") },
      el("span", {}, t(r.zilch ? "review.rollZilch" : "review.roll", { dice: r.dice.join(" ") })),
      luck === null || luck === undefined ? null
        : el("span", { class: "rv-luck " + (luck >= 0 ? "good" : "bad") }, t("review.luck", { v: delta(luck, m) })));
  }

  function decisionRow(R, d) {
    const m = R.measure;
    const v = d[m];
    const id = `rv-d-${d.index}`;
    const slip = v && v.loss > 0;
    const verdict = !v ? t("review.notValued") : slip ? delta(-v.loss, m) : t("review.best");
    const btn = el("button", { type: "button", class: "rv-move", "aria-expanded": "false", "aria-controls": id, id: id + "-btn" },
      el("span", { class: "rv-what" }, t("review.move", { n: d.index + 1, move: moveLabel(sayOf(d, d.action)) })),
      el("span", { class: "rv-verdict" + (slip ? " bad" : v ? " good" : "") }, verdict));
    btn.addEventListener("click", () => openDecision(d.index));
    const kids = [btn];
    if (slip) kids.push(el("p", { class: "rv-better small" }, t("review.better", { best: moveLabel(sayOf(d, v.best_action)), value: value(v.best, m) })));
    if (!v) kids.push(el("p", { class: "small muted" }, t("review.notValued." + (d.not_valued_codes[m] || "other"))));
    kids.push(el("div", { class: "rv-detail", id, hidden: true, "data-index": d.index }));
    return el("li", { class: "rv-dec" + (slip ? " slip" : "") }, ...kids);
  }

  // Open (or close) a decision's position; `go`: scroll to it and keep the keyboard there.
  function openDecision(index, go = false) {
    const btn = document.getElementById(`rv-d-${index}-btn`), box = document.getElementById(`rv-d-${index}`);
    if (!btn || !box) return;
    const open = btn.getAttribute("aria-expanded") !== "true" || go;
    btn.setAttribute("aria-expanded", open ? "true" : "false");
    box.hidden = !open;
    if (open && !box.childElementCount) box.append(...position(index));
    if (go) { btn.scrollIntoView({ block: "start" }); btn.focus({ preventScroll: true }); }
  }

  function position(index) {
    const R = current;
    const d = R.decisions[index];
    const names = R.players;
    const out = [];
    if (d.scores) {
      out.push(el("p", { class: "small" }, t("review.scores", { scores: names.map((n, q) => `${n} ${num(d.scores[q])}`).join(" · ") })));
    }
    if (d.kind === "keep") {
      const kept = (sayOf(d, d.action) || {}).dice || [];
      out.push(el("p", { class: "rv-pos" }, dicePic(d.roll, kept), " ", t("review.turnTotal", { n: num(d.turn_total) })));
    }
    const hasWin = (d.choices || []).some((c) => c.win !== null), hasPts = (d.choices || []).some((c) => c.points !== null);
    const best = d[R.measure] ? d[R.measure].best_action : null;
    const rows = (d.choices || []).map((c) => el("tr", { class: c.action === d.action ? "played" : "" },
      el("th", { scope: "row" }, moveLabel(c.say),
        c.action === d.action ? el("small", {}, t("review.played")) : null,
        c.action === best ? el("small", {}, t("review.bestMark")) : null),
      hasWin ? el("td", {}, value(c.win, "win")) : null,
      hasPts ? el("td", {}, value(c.points, "points")) : null));
    out.push(el("table", { class: "rv-choices" }, el("caption", { class: "small" }, t("review.choices")),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("review.col.move")),
        hasWin ? el("th", { scope: "col" }, t("review.col.win")) : null,
        hasPts ? el("th", { scope: "col" }, t("review.col.points")) : null)),
      el("tbody", {}, ...rows)));
    return out;
  }

  return { open, openRecord, lineSvg, moveLabel, withLevel, rulesLine, get current() { return current; } };
})();

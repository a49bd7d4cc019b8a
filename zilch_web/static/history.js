// This device's games and statistics (zilch_web/history.py): no account, nothing personal. The
// browser keeps a random device id (localStorage zilchDevice, 128 random bits) and sends it in the
// X-Zilch-Device header; every finished game this device played a seat of is added at its end.
// The screen: games played, wins per computer level, the longest winning streak, the best turn,
// the review score over time (a small inline SVG line), and the past games, each opening its
// review. Loaded before app.js, which defines t, el, api and show: they are read when called.
"use strict";
window.zilchHistory = (() => {
  const num = (x) => Number(x).toLocaleString(LANG);

  // The random id of this browser, made once (never anything about the person).
  function device() {
    let id = store.get("zilchDevice", null);
    if (typeof id !== "string" || !/^[0-9a-f]{32}$/.test(id)) {
      const bytes = new Uint8Array(16);
      crypto.getRandomValues(bytes);
      id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      store.set("zilchDevice", id);
    }
    return id;
  }
  const headers = () => ({ "X-Zilch-Device": device() });

  // A finished game joins this device's history (once; the server knows it from the seat token).
  const told = new Set();
  function remember(gid, token) {
    if (told.has(gid)) return;
    told.add(gid);
    api("POST", "/api/history", { game: gid, token }, headers()).then((r) => { if (!r.ok && r.status !== 403) told.delete(gid); });
  }

  const when = (s) => new Date(s * 1000).toLocaleDateString(LANG, { day: "numeric", month: "short", year: "numeric" });
  const who = (p) => zilchReview.withLevel(p.name, p.level);

  async function open() {
    closeStream();
    S.gid = null;
    S.game = null;
    show("screen-history");
    document.title = t("doc.history");
    $("#history-state").hidden = false;
    $("#history-state").textContent = t("loading");
    $("#history-body").hidden = true;
    const r = await api("GET", "/api/history", undefined, headers());
    if (!r.ok) { $("#history-state").textContent = r.data.detail; return; }
    render(r.data);
  }

  function render(H) {
    const s = H.stats;
    $("#history-state").hidden = H.games.length > 0;
    $("#history-state").textContent = H.games.length ? "" : t("history.empty");
    $("#history-body").hidden = !H.games.length;
    const counted = s.won + s.lost + s.draw;
    const facts = [["history.played", num(s.played)],
      ["history.won", counted ? t("history.wonOf", { won: num(s.won), n: num(counted), pct: Math.round(100 * s.won / counted) }) : "\u2013"],
      ["history.streak", num(s.streak)],
      ["history.bestTurn", s.best_turn ? t("history.bestTurnOf", { points: num(s.best_turn.points), date: when(s.best_turn.ended) }) : "\u2013"]];
    if (s.hot_seat) facts.push(["history.hotSeat", num(s.hot_seat)]);
    $("#history-stats").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, t(k)), el("dd", {}, v)]));
    const rows = Object.entries(s.levels).map(([level, x]) => [levelName(level), x]);
    if (s.people.played) rows.push([t("history.people"), s.people]);
    $("#history-levels").hidden = !rows.length;
    $("#history-levels tbody").replaceChildren(...rows.map(([label, x]) => el("tr", {},
      el("th", { scope: "row" }, label), el("td", {}, num(x.played)), el("td", {}, num(x.won)),
      el("td", {}, x.played ? t("review.pct", { n: Math.round(100 * x.won / x.played) }) : "\u2013"))));
    // the review score of this device's player, game by game, oldest first: the games reviewed by
    // chance of winning, or those reviewed in points where they are more (the two scales differ)
    const by = (m) => s.accuracy.filter((a) => a.measure === m);
    const measure = by("points").length > by("win").length ? "points" : "win";
    const acc = by(measure);
    const fig = $("#history-line");
    fig.hidden = acc.length < 2;
    $("#history-accuracy").hidden = fig.hidden;
    if (acc.length >= 2) {
      const n = acc.length - 1;
      const label = t("history.line.label", { n: acc.length, first: Math.round(acc[0].score), last: Math.round(acc[n].score) });
      fig.replaceChildren(zilchReview.lineSvg(acc.map((a, i) => [i / n, a.score]), { max: 100, label, height: 90 }),
        el("figcaption", { class: "small muted" }, label + " " + t("history.line." + measure)));
    }
    $("#history-list").replaceChildren(...H.games.map(gameItem));
  }

  function gameItem(g) {
    const score = g.mine.length === 1 && g.mine[0].score !== null ? t("history.score", { n: Math.round(g.mine[0].score) })
      : g.review_error ? t("history.noReview") : g.reviewed ? "" : t("history.pending");
    const players = g.players.map((p, q) => `${who(p)} ${num(g.scores[q])}`).join(" · ");
    const line = [zilchReview.rulesLine(g.rules, g.target), when(g.ended), score].filter(Boolean).join(" · ");
    return el("li", {}, el("a", { class: "btn ghost hist-game", href: `/g/${g.game}/review`, "data-spa": "" },
      el("span", { class: "hist-result " + g.result }, t("history.result." + g.result)),
      el("span", { class: "hist-who" }, players), el("small", {}, line)));
  }

  // A record file chosen on this screen: its review (POST /api/review).
  function fileChosen(ev) {
    const file = ev.target.files && ev.target.files[0];
    const err = $("#history-file-error");
    err.hidden = true;
    if (!file) return;
    file.text().then((text) => {
      let rec;
      try { rec = JSON.parse(text); } catch (e) { err.textContent = t("history.fileBad"); err.hidden = false; return; }
      ev.target.value = "";
      zilchReview.openRecord(rec);
    });
  }

  async function forget() {
    if (!window.confirm(t("history.forgetSure"))) return;
    const r = await api("DELETE", "/api/history", undefined, headers());
    if (!r.ok) { $("#history-state").hidden = false; $("#history-state").textContent = r.data.detail; return; }
    open();
  }

  function setup() {
    $("#history-file").addEventListener("change", fileChosen);
    $("#history-forget").addEventListener("click", forget);
  }

  return { open, remember, headers, device, setup };
})();

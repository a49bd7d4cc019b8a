// Dice nobody can know in advance (zilch_web/fair.py): every screen of a game shows the commitment
// to its dice (the SHA-256 of "zilch-rl/dice/1:KIND:SEED"), short, in full when tapped. Once the game
// is over the seed is revealed, and this page checks it: the SHA-256 of the same text (SubtleCrypto)
// must be the commitment this phone saw first, and, for the keyed SplitMix64 dice, every roll of the
// game record must be the roll the seed gives (zilch_web/dice.py, here in BigInt). A practice game
// (its seed chosen by its creator) says so, with its seed, on every screen.
// Loaded before app.js, which defines t, el and store: they are read when the functions are called.
"use strict";
window.zilchFair = (() => {
  const PREFIX = "zilch-rl/dice/1:";
  const M64 = (1n << 64n) - 1n;
  const GOLDEN = 0x9E3779B97F4A7C15n;
  const checks = new Map(); // game id -> the check's outcome (a promise), computed once

  function mix64(z) {
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
    return z ^ (z >> 31n);
  }

  // Roll number k (0, 1, ...) of n dice of the game with this seed: sorted faces.
  function keyedRoll(seed, k, n) {
    let code = mix64((seed + BigInt(k + 1) * GOLDEN) & M64) % 46656n % (6n ** BigInt(n));
    const faces = [];
    for (let i = 0; i < n; i++) { faces.push(Number(code % 6n) + 1); code /= 6n; }
    return faces.sort((a, b) => a - b);
  }

  // The commitment this phone saw first for a game (kept for its last 200 games).
  function firstSeen(g) {
    const all = store.get("zilchCommit", {}) || {};
    if (!all[g.id]) {
      all[g.id] = g.commitment;
      const ids = Object.keys(all);
      while (ids.length > 200) delete all[ids.shift()];
      store.set("zilchCommit", all);
    }
    return all[g.id];
  }

  async function sha256(text) {
    const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // The check of a finished game: {key, vals} of the words to show.
  async function check(g, promised) {
    if (!window.crypto || !crypto.subtle) return { key: "fair.noCheck" };
    if (await sha256(`${PREFIX}${g.dice_kind}:${g.seed}`) !== promised) return { key: "fair.badCommit" };
    if (g.dice_kind !== "splitmix64") return { key: "fair.verifiedSeed" };
    let rec;
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(g.id)}/record`);
      rec = res.ok ? await res.json() : null;
    } catch (e) { rec = null; }
    if (!rec || !Array.isArray(rec.rolls) || !rec.dice || rec.dice.seed !== g.seed) return { key: "fair.noRecord" };
    const seed = BigInt(g.seed);
    for (let k = 0; k < rec.rolls.length; k++) {
      const stated = [...rec.rolls[k]].sort((a, b) => a - b);
      if (keyedRoll(seed, k, stated.length).join(" ") !== stated.join(" ")) return { key: "fair.badRoll", vals: { k: k + 1 } };
    }
    return { key: "fair.verified", vals: { n: rec.rolls.length } };
  }

  // The dice line of every game screen (each screen has a .fair slot).
  function show(g) {
    if (!g || !g.commitment) return;
    const promised = firstSeen(g);
    const short = promised.slice(0, 12);
    for (const slot of document.querySelectorAll(".fair")) {
      if (slot.dataset.shown === `${g.id}/${g.status}`) continue;
      slot.dataset.shown = `${g.id}/${g.status}`;
      const kids = [];
      if (g.practice_seed) kids.push(el("p", { class: "practice" }, t("fair.practice", { seed: g.seed })));
      const full = el("details", { class: "commit" },
        el("summary", {}, t("fair.commit", { short })),
        el("code", { class: "full" }, promised),
        el("p", {}, t(g.practice_seed ? "fair.practiceHelp" : "fair.commitHelp")));
      full.title = promised;
      kids.push(full);
      if (g.status === "over" && g.seed !== null) {
        const mark = el("p", { class: "mark", role: "status" }, t("fair.checking"));
        kids.push(mark);
        if (!checks.has(g.id)) checks.set(g.id, check(g, promised).catch(() => ({ key: "fair.noRecord" })));
        checks.get(g.id).then((r) => {
          mark.textContent = t(r.key, r.vals || {});
          mark.dataset.result = r.key.slice(5); // verified, verifiedSeed, badCommit, badRoll, noCheck, noRecord
        });
      }
      slot.replaceChildren(...kids);
    }
  }

  return { show, keyedRoll };
})();

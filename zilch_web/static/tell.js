// The game told in the page's language, from the fields the server sends: the log's events (the
// server's English sentence, e.text, for English), the turn-start choices and the hint's options.
// Loaded before app.js, which defines S, t and LANG: these are read when the functions are called.
"use strict";

// A turn-start choice in the page's language by its kind (piggyback, fresh, challenge N, none).
function choiceLabel(c) {
  const m = /^challenge (.+)$/i.exec(c.label), pig = /^piggyback on (\d+) with (\d+) dic?e$/i.exec(c.label);
  const key = m ? "choice.challenge" : pig ? (pig[2] === "1" ? "choice.piggybackOne" : "choice.piggyback")
    : "choice." + c.label.toLowerCase().replace(/[^a-z]+/g, "_");
  const s = t(key, { name: m ? m[1] : "", points: pig ? pig[1] : "", n: pig ? pig[2] : "" });
  return s === key ? c.label.charAt(0).toUpperCase() + c.label.slice(1) : s;
}

// An event of the game log in the page's language from its fields (the server's English
// sentence, e.text, for English and for the kinds not written here).
function evText(e) {
  if (LANG === "en" || !S.game) return e.text;
  const who = e.seat !== null && e.seat !== undefined && S.game.players[e.seat] ? S.game.players[e.seat].name : "";
  const dice = (e.dice || []).join(" ");
  if (e.kind === "roll") return t("ev.roll", { name: who, dice });
  if (e.kind === "bank") return e.points ? t("ev.bank", { name: who, points: e.points, score: e.score })
    : t("ev.bankLow", { name: who, turn: e.turn_total });
  if (e.kind === "zilch") return t(e.points ? "ev.zilchKept" : "ev.zilch", { name: who, dice, lost: e.lost, points: e.points, score: e.score });
  if (e.kind === "keep") return t(e.hot_dice ? "ev.keepHot" : "ev.keep", { name: who, dice, points: e.points, total: e.turn_total });
  if (e.kind === "fresh") return e.turn_total !== undefined ? t("ev.freshTurn", { name: who, n: S.game.ruleset.dice, total: e.turn_total })
    : t("ev.fresh", { name: who });
  if (e.kind === "bonus") return t("ev.bonus", { name: who, dice, bonus: e.points, total: e.turn_total });
  if (e.kind === "challenge") return t("ev.challenge", { name: who, target: S.game.players[e.target].name });
  if (e.kind === "challenge_result") return t("ev.challengeResult", { name: who, points: -e.points });
  if (e.kind === "piggyback") return t(e.dice_left === 1 ? "ev.piggybackOne" : "ev.piggyback", { name: who, points: e.turn_total, n: e.dice_left });
  if (e.kind === "penalty") return t("ev.penalty", { name: who, score: e.score });
  if (e.kind === "final_round") return t(S.game.ruleset.end === "others_one_turn" ? "ev.finalRound.others" : "ev.finalRound.round",
    { name: who, target: S.game.ruleset.target });
  if (e.kind === "tiebreak") return t("ev.tiebreak", { names: (e.players || []).map((q) => S.game.players[q].name).join(", ") });
  if (e.kind === "turn_start") return t(e.decide === "piggyback" ? "ev.turnStart.piggyback" : "ev.turnStart.challenge", { name: who });
  if (e.kind === "game_over" && e.winners && e.scores) {
    const names = e.winners.map((q) => S.game.players[q].name);
    return e.winners.length > 1 ? t("ev.draw", { names: names.join(t("over.and")), score: e.scores[e.winners[0]] })
      : t("ev.wins", { name: names[0], score: e.scores[e.winners[0]] });
  }
  return e.text;
}

// A hint's option in the page's language: a keep by the roll's keep it plays (its action), a
// turn-start choice by its label (choiceLabel).
function hintLabel(o) {
  const k = (S.game.keeps || []).find((x) => x.roll === o.action || x.bank === o.action);
  if (!k) return choiceLabel(o);
  const bank = k.bank === o.action;
  if (k.n === 0) return bank ? t("btn.bankN", { n: k.total }) : t("btn.rollFresh", { n: k.next_roll });
  return t(bank ? "hint.opt.bank" : k.hot_dice ? "hint.opt.rollHot" : k.next_roll === 1 ? "hint.opt.rollOne" : "hint.opt.roll",
    { dice: k.dice.join(" "), points: k.points, total: k.total, n: k.next_roll });
}

// A chance as a percentage with one decimal, as the page's language writes it (50.9; 50,9).
const pct = (p) => (p * 100).toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

// What a hint's option is worth: the points the turn is expected to record, or (a challenge) why not.
function hintValue(o) {
  if (o.value === null || o.value === undefined) return t("hint.explain.challengeValue");
  return t("hint.explain.expect", { value: Number(o.value).toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
}

"""The rules pages of the web game (``/rules/{preset}``, ``/g/{id}/rules``): the scoring table with
dice pictures, how a turn goes and the ruleset file, every figure written from the ruleset by the
engine's own scoring, so custom rules get theirs."""

from __future__ import annotations

import html
from typing import Any

from zilch_env import Ruleset
from zilch_env.rules.load import ruleset_to_toml
from zilch_env.engine.text import rules_summary


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><link rel='icon' href='/static/favicon.svg' type='image/svg+xml'>"
            f"<link rel='stylesheet' href='/static/style.css'></head>"
            f"<body><header class='bar'><a href='/' class='brand'>Zilch</a>"
            f"<a class='bar-link' href='/'>New game</a></header><main class='page'>{body}</main></body></html>")


def _rules_html(rs: Ruleset, back: str) -> str:
    """The rules page: the scoring table (:func:`scoring_html`), :func:`~zilch_env.engine.text.rules_summary`
    as a list, and the full ruleset file."""
    lines = rules_summary(rs).split("\n")
    items = "".join(f"<li>{html.escape(x)}</li>" for x in lines[1:])
    return _page(f"Rules: {rs.name}", (
        f"<p><a class='back' href='{html.escape(back)}'>← Back</a></p>"
        f"<h1>Rules: {html.escape(rs.name)}</h1><p class='lead'>{html.escape(preset_blurb(rs))}</p>"
        f"{scoring_html(rs)}"
        f"<h2>How a turn goes</h2><ul class='rules'>{items}</ul>"
        f"<details><summary>The ruleset file</summary><pre>{html.escape(ruleset_to_toml(rs))}</pre></details>"))


def _dice_html(faces: list[int]) -> str:
    pips = "".join(f"<span class='pip p{i}'></span>" for i in range(1, 10))
    return ("<span class='dice-pic' role='img' aria-label='" + " ".join(map(str, faces)) + "'>"
            + "".join(f"<span class='die pic' data-face='{f}'>{pips}</span>" for f in faces) + "</span>")


def scoring_table_rows(rs: Ruleset) -> dict[str, Any]:
    """What each combination scores under ``rs``, every figure from the engine's own scoring
    (:func:`zilch_env.score_dice`): ``{"kinds": [(n, [points or None per face 1-6])], "specials":
    [(name, dice, points)], "nothing": [faces that score nothing alone]}``."""
    from zilch_env import score_dice

    kinds = []
    for n in range(1, min(rs.dice, 6) + 1):
        if n == 2 or (n > 3 and rs.scoring.kinds == "none"):
            continue  # a pair scores only as two singles; without a bonus, four or more is a triple and singles
        kinds.append((n, [score_dice(rs, [f] * n) for f in range(1, 7)]))
    specials = []
    sc = rs.scoring
    candidates = [("Straight 1-6" + (" (permanent: survives a zilch)" if sc.permanent_straight else ""),
                   [1, 2, 3, 4, 5, 6], sc.straight),
                  ("Three pairs", [2, 2, 3, 3, 4, 4], sc.three_pairs),
                  ("Four of a kind and a pair (as three pairs)", [2, 2, 2, 2, 3, 3],
                   sc.three_pairs if sc.four_and_pair_is_three_pairs else 0),
                  ("Two triplets", [2, 2, 2, 3, 3, 3], sc.two_triplets)]
    candidates += [(f"Partial straight {'-'.join(str(run))}", [int(d) for d in str(run)], pts)
                   for run, pts in sc.partial_straights.items()]
    for label, dice, on in candidates:
        if on and len(dice) <= rs.dice:
            specials.append((label, dice, score_dice(rs, dice)))
    nothing = [f for f in range(1, 7) if not score_dice(rs, [f])]
    return {"kinds": kinds, "specials": specials, "nothing": nothing}


def scoring_html(rs: Ruleset) -> str:
    """The scoring table of a ruleset with dice pictures: one row per count of a kind (one, three,
    four ... of a face), one column per face, then the special combinations, then what scores
    nothing. Written from the ruleset, so custom rules get theirs."""
    t = scoring_table_rows(rs)
    word = {1: "One", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}
    head = "".join(f"<th scope='col'>{_dice_html([f])}</th>" for f in range(1, 7))
    body = ""
    for n, pts in t["kinds"]:
        cells = "".join(f"<td>{p:,}</td>" if p else "<td class='none' aria-label='nothing'>–</td>" for p in pts)
        body += f"<tr><th scope='row'>{word[n]}</th>{cells}</tr>"
    specials = "".join(f"<li>{_dice_html(d)}<span class='what'>{html.escape(label)}</span>"
                       f"<span class='pts'>{p:,}</span></li>" for label, d, p in t["specials"])
    none = t["nothing"]
    faces = ", ".join(str(f) for f in none[:-1]) + (f" or {none[-1]}" if len(none) > 1 else str(none[-1])) if none else ""
    notes = []
    if none:
        notes.append(f"A single {faces} scores nothing: only as part of three or more of a kind"
                     + (" or a combination." if t["specials"] else "."))
    kv = rs.scoring.kinds
    if kv == "none" and rs.dice >= 4:
        notes.append("Four or more of a kind score no bonus: the three of a kind plus the rest as singles.")
    if not rs.scoring.straight and rs.dice >= 6:
        notes.append("A straight 1-6 scores nothing special here (only its 1 and 5 as singles).")
    if rs.scoring.three_pairs == 0 and rs.dice >= 6:
        notes.append("Three pairs score nothing special here.")
    notes.append("Combinations count only within one roll: dice of different rolls never add up.")
    if rs.keep == "all_scoring":
        notes.append("Every scoring die of a roll is kept for you, for the most points.")
    return ("<h2>Scoring</h2><div class='score-wrap'><table class='scoring'><thead><tr><th></th>" + head
            + f"</tr></thead><tbody>{body}</tbody></table></div>"
            + (f"<ul class='specials'>{specials}</ul>" if specials else "")
            + "<ul class='score-notes'>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")


def preset_blurb(rs: Ruleset) -> str:
    """One line that tells rulesets apart: the target, getting on the board, the minimum bank,
    which singles score, big kinds, the straight and three pairs, a zilch penalty, the keep rule."""
    from zilch_env import score_dice

    parts = [f"First to {rs.target:,}"]
    if rs.entry_threshold:
        parts.append(f"{rs.entry_threshold} to get on the board")
    if rs.min_bank:
        parts.append(f"banks from {rs.min_bank}")
    singles = [f for f in range(1, 7) if score_dice(rs, [f])]
    if singles:
        parts.append(" and ".join(f"{f}s" for f in singles) + " score alone")
    kinds = {"none": "no bonus for four of a kind", "double": "four of a kind doubles",
             "flat": "four of a kind a fixed bonus", "multiple": "four of a kind a multiple"}.get(rs.scoring.kinds)
    if kinds and rs.dice >= 4:
        parts.append(kinds)
    if rs.scoring.straight and rs.dice >= 6:
        parts.append(f"straight {rs.scoring.straight:,}")
    if rs.scoring.three_pairs and rs.dice >= 6:
        parts.append(f"three pairs {rs.scoring.three_pairs:,}")
    zp = rs.variants.zilch_penalty
    if zp.count:
        parts.append(f"{zp.count} zilches in a row " + {"subtract": f"cost {zp.points}", "halve": "halve the score",
                                                         "reset": "reset the score"}[zp.mode])
    if rs.keep == "all_scoring":
        parts.append("scoring dice kept for you")
    if rs.hot_dice == "forced":
        parts.append("hot dice must be rolled")
    return f"{rs.dice} dice. " + "; ".join(parts) + "."

"""The rules pages of the web game (``/rules/{preset}``, ``/g/{id}/rules``): the scoring table with
dice pictures, how a turn goes and the ruleset file, every figure written from the ruleset by the
engine's own scoring, so custom rules get theirs; every word from the page's catalogue of the
player's language (:class:`zilch_web.words.Words`)."""

from __future__ import annotations

import html
from typing import Any

from zilch_env import Ruleset
from zilch_env.engine.text import rules_lines, say_line
from zilch_env.rules.load import ruleset_to_toml
from zilch_web.strategy_page import strategy_html
from zilch_web.words import Words

ENGLISH = Words("en")


def _page(title: str, body: str, w: Words = ENGLISH) -> str:
    return (f"<!doctype html><html lang='{w.lang}'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<meta name='color-scheme' content='light dark'><meta name='theme-color' content='#1f6f5c'>"
            f"<title>{html.escape(title)}</title><link rel='icon' href='/static/favicon.svg' type='image/svg+xml'>"
            f"<link rel='manifest' href='/static/manifest.webmanifest'>"
            f"<link rel='stylesheet' href='/static/style.css'></head>"
            f"<body><header class='bar'><a href='/' class='brand'>Zilch</a>"
            f"<a class='bar-link' href='/'>{html.escape(w.t('over.new'))}</a></header>"
            f"<main class='page'>{body}</main></body></html>")


def _rules_html(rs: Ruleset, back: str, w: Words = ENGLISH) -> str:
    """The rules page in the language of ``w``: the scoring table (:func:`scoring_html`), the rules'
    lines (:func:`~zilch_env.engine.text.rules_lines`, said from the catalogue, their figures written
    plain as ``zilch rules --summary`` writes them) as a list, the strategy card
    (:func:`zilch_web.strategy_page.strategy_html`) and the full ruleset file."""
    text = w.prefixed("rules.line.")
    items = "".join(f"<li>{html.escape(say_line(x, text))}</li>" for x in rules_lines(rs)[1:])
    title = w.t("rules.title", name=rs.name)
    return _page(title, (
        f"<p><a class='back' href='{html.escape(back)}'>{html.escape(w.t('rules.back'))}</a></p>"
        f"<h1>{html.escape(title)}</h1><p class='lead'>{html.escape(preset_blurb(rs, w))}</p>"
        f"{scoring_html(rs, w)}"
        f"<h2>{html.escape(w.t('rules.how'))}</h2><ul class='rules'>{items}</ul>"
        f"{strategy_html(rs, w)}"
        f"<details><summary>{html.escape(w.t('rules.file'))}</summary>"
        f"<pre>{html.escape(ruleset_to_toml(rs))}</pre></details>"), w)


def _dice_html(faces: list[int]) -> str:
    pips = "".join(f"<span class='pip p{i}'></span>" for i in range(1, 10))
    return ("<span class='dice-pic' role='img' aria-label='" + " ".join(map(str, faces)) + "'>"
            + "".join(f"<span class='die pic' data-face='{f}'>{pips}</span>" for f in faces) + "</span>")


def scoring_table_rows(rs: Ruleset, w: Words = ENGLISH) -> dict[str, Any]:
    """What each combination scores under ``rs``, every figure from the engine's own scoring
    (:func:`zilch_env.score_dice`): ``{"kinds": [(n, [points or None per face 1-6])], "specials":
    [(name, dice, points)], "nothing": [faces that score nothing alone]}``; the names in the
    language of ``w``."""
    from zilch_env import score_dice

    kinds = []
    for n in range(1, min(rs.dice, 6) + 1):
        if n == 2 or (n > 3 and rs.scoring.kinds == "none"):
            continue  # a pair scores only as two singles; without a bonus, four or more is a triple and singles
        kinds.append((n, [score_dice(rs, [f] * n) for f in range(1, 7)]))
    specials = []
    sc = rs.scoring
    candidates = [(w.t("rules.special.straightPermanent" if sc.permanent_straight else "rules.special.straight"),
                   [1, 2, 3, 4, 5, 6], sc.straight),
                  (w.t("rules.special.threePairs"), [2, 2, 3, 3, 4, 4], sc.three_pairs),
                  (w.t("rules.special.fourAndPair"), [2, 2, 2, 2, 3, 3],
                   sc.three_pairs if sc.four_and_pair_is_three_pairs else 0),
                  (w.t("rules.special.twoTriplets"), [2, 2, 2, 3, 3, 3], sc.two_triplets)]
    candidates += [(w.t("rules.special.partial", run="-".join(str(run))), [int(d) for d in str(run)], pts)
                   for run, pts in sc.partial_straights.items()]
    for label, dice, on in candidates:
        if on and len(dice) <= rs.dice:
            specials.append((label, dice, score_dice(rs, dice)))
    nothing = [f for f in range(1, 7) if not score_dice(rs, [f])]
    return {"kinds": kinds, "specials": specials, "nothing": nothing}


def scoring_html(rs: Ruleset, w: Words = ENGLISH) -> str:
    """The scoring table of a ruleset with dice pictures: one row per count of a kind (one, three,
    four ... of a face), one column per face, then the special combinations, then what scores
    nothing. Written from the ruleset, so custom rules get theirs; in the language of ``w``."""
    t = scoring_table_rows(rs, w)
    head = "".join(f"<th scope='col'>{_dice_html([f])}</th>" for f in range(1, 7))
    body = ""
    nothing = html.escape(w.t("rules.nothing"), quote=True)
    for n, pts in t["kinds"]:
        cells = "".join(f"<td>{w.number(p)}</td>" if p else f"<td class='none' aria-label='{nothing}'>–</td>"
                        for p in pts)
        body += f"<tr><th scope='row'>{html.escape(w.t(f'rules.kind.{n}'))}</th>{cells}</tr>"
    specials = "".join(f"<li>{_dice_html(d)}<span class='what'>{html.escape(label)}</span>"
                       f"<span class='pts'>{w.number(p)}</span></li>" for label, d, p in t["specials"])
    none = t["nothing"]
    notes = []
    if none:
        faces = ", ".join(str(f) for f in none[:-1]) + w.t("rules.or") + str(none[-1]) if len(none) > 1 else str(none[0])
        notes.append(w.t("rules.note.singleCombo" if t["specials"] else "rules.note.single", faces=faces))
    if rs.scoring.kinds == "none" and rs.dice >= 4:
        notes.append(w.t("rules.note.noKindBonus"))
    if not rs.scoring.straight and rs.dice >= 6:
        notes.append(w.t("rules.note.noStraight"))
    if rs.scoring.three_pairs == 0 and rs.dice >= 6:
        notes.append(w.t("rules.note.noThreePairs"))
    notes.append(w.t("rules.note.oneRoll"))
    if rs.keep == "all_scoring":
        notes.append(w.t("rules.note.keptForYou"))
    return (f"<h2>{html.escape(w.t('rules.scoring'))}</h2><div class='score-wrap'><table class='scoring'>"
            "<thead><tr><th></th>" + head
            + f"</tr></thead><tbody>{body}</tbody></table></div>"
            + (f"<ul class='specials'>{specials}</ul>" if specials else "")
            + "<ul class='score-notes'>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")


def preset_blurb(rs: Ruleset, w: Words = ENGLISH) -> str:
    """One line that tells rulesets apart, in the language of ``w``: the target, getting on the
    board, the minimum bank, which singles score, big kinds, the straight and three pairs, a zilch
    penalty, the keep rule."""
    from zilch_env import score_dice

    parts = [w.t("blurb.first", n=w.number(rs.target))]
    if rs.entry_threshold:
        parts.append(w.t("blurb.entry", n=w.number(rs.entry_threshold)))
    if rs.min_bank:
        parts.append(w.t("blurb.minBank", n=w.number(rs.min_bank)))
    singles = [f for f in range(1, 7) if score_dice(rs, [f])]
    if singles:
        parts.append(w.t("blurb.singles", faces=w.t("rules.and").join(w.t("blurb.face", f=f) for f in singles)))
    if rs.scoring.kinds in ("none", "double", "flat", "multiple") and rs.dice >= 4:
        parts.append(w.t("blurb.kinds." + rs.scoring.kinds))
    if rs.scoring.straight and rs.dice >= 6:
        parts.append(w.t("blurb.straight", n=w.number(rs.scoring.straight)))
    if rs.scoring.three_pairs and rs.dice >= 6:
        parts.append(w.t("blurb.threePairs", n=w.number(rs.scoring.three_pairs)))
    zp = rs.variants.zilch_penalty
    if zp.count:
        parts.append(w.t("blurb.penalty." + zp.mode, count=zp.count, points=w.number(zp.points)))
    if rs.keep == "all_scoring":
        parts.append(w.t("blurb.keptForYou"))
    if rs.hot_dice == "forced":
        parts.append(w.t("blurb.hotForced"))
    return w.t("blurb.dice", n=rs.dice) + " " + "; ".join(parts) + "."

"""The strategy card, a section of the rules page (:mod:`zilch_web.rules_page`): when to bank by turn
total and dice left, on the board and before it; the rule of thumb and what it costs; the first
player's edge and the compensation. The page shows what is ready at once
(:func:`agents.evaluate.strategy.page_card`: the shipped card of the rules, or the turn part of a
shipped card with the same turn); nothing is solved or played while the page waits, and the card's
modules load with the server, not at a first request. Every word from the catalogues (keys
``strategy.*``), every number written the language's way."""

from __future__ import annotations

import html
from typing import Any

from agents.evaluate.strategy import RULE_TEXT, page_card, say_rule
from zilch_env import Ruleset, RulesetError, UnsupportedRulesError
from zilch_web.words import Words

#: How each language writes a decimal fraction and a percentage.
DECIMAL = {"en": ".", "pt-BR": ",", "sv": ","}
PERCENT = {"en": "{x}%", "pt-BR": "{x}%", "sv": "{x}\u00a0%"}


def decimal(x: float, w: Words, digits: int = 1) -> str:
    """``x`` with ``digits`` decimals the language's way (1,234.5 / 1.234,5 / 1 234,5)."""
    text = f"{abs(x):.{digits}f}"
    whole, _, frac = text.partition(".")
    sign = "-" if x < 0 and float(text) != 0 else ""
    return sign + w.number(int(whole)) + (DECIMAL[w.lang] + frac if frac else "")


def percent(p: float, w: Words, digits: int = 1) -> str:
    """A chance (0-1) as a percentage the language's way (53.7% / 53,7% / 53,7 %)."""
    return PERCENT[w.lang].format(x=decimal(100 * p, w, digits))


def _rule_html(card: dict[str, Any], w: Words) -> str:
    rule = card["rule"]
    texts = {k: w.t("strategy.rule." + k) for k in RULE_TEXT}
    lines = [(k, v) for k, v in rule["lines"]]
    said = say_rule(lines, texts, number=w.number)
    out = f"<h3>{html.escape(w.t('strategy.thumb'))}</h3><p class='thumb'>{html.escape(said)}</p><ul class='costs'>"
    share = rule["points_per_turn"] / rule["optimum"] if rule["optimum"] else 0.0
    out += "<li>" + html.escape(w.t("strategy.cost", points=decimal(rule["cost"], w),
                                     share=percent(share, w), optimum=decimal(rule["optimum"], w))) + "</li>"
    if rule["entry_cost"] is not None:
        out += "<li>" + html.escape(w.t("strategy.entryCost", points=decimal(rule["entry_cost"], w))) + "</li>"
    win = card.get("win")
    if win:
        out += "<li>" + html.escape(w.t("strategy.win", share=percent(win["share"], w), games=w.number(win["games"]),
                                         low=percent(win["low"], w), high=percent(win["high"], w))) + "</li>"
        if win.get("luck_adjusted") is not None:
            out += "<li>" + html.escape(w.t("strategy.winAdjusted", share=percent(win["luck_adjusted"], w),
                                             low=percent(win["luck_low"], w),
                                             high=percent(win["luck_high"], w))) + "</li>"
    return out + "</ul>"


def _bank_html(card: dict[str, Any], w: Words) -> str:
    turn = card["turn"]
    D = turn["dice"]
    head = "".join(f"<th scope='col'>{n}</th>" for n in range(1, D + 1))
    never = html.escape(w.t("strategy.never"))

    def row(label: str, totals: dict[str, int | None]) -> str:
        cells = "".join("<td>–</td>" if str(n) not in totals else
                        f"<td>{never if totals[str(n)] is None else w.number(totals[str(n)])}</td>"
                        for n in range(1, D + 1))
        return f"<tr><th scope='row'>{html.escape(label)}</th>{cells}</tr>"

    rows = row(w.t("strategy.onBoard"), turn["on_board"])
    if turn.get("entry"):
        rows += row(w.t("strategy.entry"), turn["entry"])
    return (f"<p>{html.escape(w.t('strategy.bankIntro', dice=D))}</p><div class='bank-wrap'>"
            f"<table class='bank-table'><thead><tr><th scope='col'>{html.escape(w.t('strategy.diceLeft'))}</th>"
            f"{head}</tr></thead><tbody>{rows}</tbody></table></div>")


def _game_html(card: dict[str, Any], w: Words) -> str:
    out = f"<h3>{html.escape(w.t('strategy.first'))}</h3>"
    game = card.get("game")
    if game is None:
        return out + f"<p>{html.escape(w.t('strategy.noGame'))}</p>"
    out += f"<p>{html.escape(w.t('strategy.edge', share=percent(game['first_player_win'], w)))}"
    if game["points"] is None:
        out += " " + html.escape(w.t("strategy.comp.none"))
    else:
        board = ("Entry" if game["points"] == 0 else "Board") if game["on_board"] else ""
        key = f"strategy.comp.{game['to']}{board}"
        out += " " + html.escape(w.t(key, points=w.number(game["points"]),
                                     share=percent(game["first_player_win_with"], w)))
    return out + "</p>"


def strategy_html(rs: Ruleset, w: Words) -> str:
    """The strategy card of ``rs`` as a section of the rules page, in the language of ``w``."""
    title = f"<h2 id='strategy'>{html.escape(w.t('strategy.title'))}</h2>"
    try:
        card = page_card(rs)
    except (RulesetError, UnsupportedRulesError, ValueError):
        card = None
    if card is None:
        return (f"<section class='strategy' aria-labelledby='strategy'>{title}"
                f"<p>{html.escape(w.t('strategy.none'))}</p></section>")
    body = _bank_html(card, w)
    if card.get("rule"):
        body += _rule_html(card, w)
    body += _game_html(card, w)
    return f"<section class='strategy' aria-labelledby='strategy'>{title}{body}</section>"

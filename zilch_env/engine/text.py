"""Words for people: a ruleset's summary and a game told turn by turn (``zilch simulate``, rules pages)."""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from zilch_env.engine.game import GameState
from zilch_env.rules.schema import Ruleset


def _faces(m) -> str:
    return ", ".join(f"{k} = {v}" for k, v in m.items() if v) or "none"


def rules_summary(rs: Ruleset) -> str:
    """The rules of ``rs`` in plain sentences (the web game's rules page is built from this)."""
    s, v = rs.scoring, rs.variants
    lines = [
        f"{rs.name}: {rs.dice} dice, first to {rs.target} points.",
        "Each turn starts by rolling all dice. After every roll keep at least one scoring die, then bank "
        "the turn total or roll the rest. A roll with no scoring die is a zilch: the turn's points are lost.",
        ("Keep: every scoring die is set aside automatically, for the most points."
         if rs.keep == "all_scoring" else "Keep: choose any dice that score together."),
        ("Hot dice: when every die has scored, all of them must be rolled again."
         if rs.hot_dice == "forced" else "Hot dice: when every die has scored, you may roll all of them again or bank."),
        (f"Getting on the board: the first banked turn needs at least {rs.entry_threshold} points."
         if rs.entry_threshold else "No entry threshold: any turn may be banked."),
    ]
    if rs.min_bank:
        lines.append(f"Once on the board, a turn needs at least {rs.min_bank} points to bank.")
    lines.append(f"Singles: {_faces(s.singles)}. Three of a kind: {_faces(s.triples)}.")
    kinds = {
        "none": "Four or more of a kind score no bonus (a triple plus the rest).",
        "double": "Each die beyond three of a kind doubles the triple.",
        "flat": f"Four/five/six of a kind: {_faces(s.kind_values)} points.",
        "multiple": f"Four/five/six of a kind: the triple times {_faces(s.kind_values)}.",
    }[s.kinds]
    lines.append(kinds)
    specials = []
    if s.straight:
        specials.append(f"straight 1-6 = {s.straight}" + (" (permanent: survives a zilch)" if s.permanent_straight else ""))
    if s.three_pairs:
        specials.append(f"three pairs = {s.three_pairs}" + (" (four of a kind and a pair count)" if s.four_and_pair_is_three_pairs else ""))
    if s.two_triplets:
        specials.append(f"two triplets = {s.two_triplets}")
    if specials:
        lines.append("In one roll of all six dice: " + "; ".join(specials) + ".")
    partial = [(run, pts) for run, pts in s.partial_straights.items() if pts]
    if partial and rs.dice >= 5:
        lines.append("Partial straights in one roll of five or six dice: "
                     + "; ".join(f"{'-'.join(str(run))} = {pts}" for run, pts in partial)
                     + (" (a sixth die may score beside it as a single)." if rs.dice == 6 else "."))
    if rs.score_floor < 0:
        lines.append(f"Penalties may take a score below zero, down to {rs.score_floor}.")
    lines.append("Combinations never span rolls." if not v.pyramiding else
                 "Pyramiding: new dice may join dice of the same face kept earlier in this pass.")
    lines.append({
        "others_one_turn": "Ending: once a player ends a turn at or above the target, every other player "
                           "gets one more turn.",
        "finish_round": "Ending: once a player ends a turn at or above the target, the round is finished.",
        "instant": "Ending: the first player to end a turn at or above the target wins at once; the others "
                   "get no last turn.",
    }[rs.end])
    if rs.end != "instant":  # the instant ending has no ties: every other score is below the target
        lines.append("Ties are broken by extra turns." if rs.tie == "tiebreak" else "A tie is a draw.")
    zp = v.zilch_penalty
    if zp.count:
        what = {"subtract": f"lose {zp.points} points", "halve": "lose half their score", "reset": "lose their whole score"}[zp.mode]
        lines.append(f"{zp.count} zilches in a row (once on the board): {what}.")
    if v.six_dice_zilch_bonus:
        lines.append(f"Six dice and no score: {v.six_dice_zilch_bonus} points instead of a zilch, then bank "
                     f"or roll six fresh dice.")
    if v.piggyback:
        lines.append("Piggyback: after a bank, the next player may play on from that turn total and dice.")
    if v.overcoming:
        lines.append("Overcoming: to bank, beat the previous player's last turn.")
    if v.challenge:
        lines.append("Challenge: twice a game (once below 5000, once above) a player on the board may "
                     "challenge another: banked points are also taken from them; a zilch costs 600, then 2000.")
    return "\n".join(lines)


def narrate(game: GameState, policies: Sequence, rng: np.random.Generator,
            names: Sequence[str] | None = None, verbose: bool = True,
            max_turns: int | None = None) -> Iterator[str]:
    """Play ``game`` to the end with ``policies``, yielding a line per roll decision and per turn;
    with ``max_turns``, stop once that many turns are played without a winner (movers that never bank
    under some rules would otherwise play for ever)."""
    names = names or [f"P{q + 1}" for q in range(game.num_players)]
    turn_no = 0
    while not game.done:
        if max_turns is not None and len(game.turns) >= max_turns:
            yield (f"No winner after {len(game.turns)} turns (the turn limit); scores: "
                   + " ".join(str(s) for s in game.scores))
            return
        p = game.current
        n_turns = len(game.turns)
        legal = game.legal_actions()
        action = policies[p].act(game, legal, rng)
        if verbose:
            head = f"  {names[p]} rolls {' '.join(map(str, game.roll))}: " if game.roll else f"  {names[p]}: "
            yield head + game.describe(action)
        game.apply(action)
        for t in game.turns[n_turns:]:
            turn_no += 1
            q = t["player"]
            if t["banked"]:
                what = f"banks {t['turn_total']}"
            else:
                what = f"zilch ({' '.join(map(str, t['zilch_roll']))})"
                if t["recorded"]:
                    what += f", keeps {t['recorded']} permanent"
            if t["banked"] and not t["recorded"]:
                what += " (not on the board)"
            extra = f" [{t['penalty']}]" if t["penalty"] else ""
            yield f"Turn {turn_no:>3} {names[q]:<4} {what}{extra} -> {t['score']}   scores: " + " ".join(
                str(s) for s in game.scores)
    w = game.winners or ()
    yield ("Draw between " if len(w) > 1 else "Winner: ") + ", ".join(names[q] for q in w) + \
        f" with {game.scores[w[0]]} after {len(game.turns)} turns"

"""``zilch strategy --ruleset R [--games N] [--json]``: the card of a preset (shipped, with its 10,000
games), of other rules (computed; the games only when asked), and what it refuses."""

from __future__ import annotations

import json

import pytest

from agents.evaluate.strategy import CARD_FORMAT, CARDS_FILE, shipped_card, strategy_card, turn_key
from zilch_cli import main
from zilch_env import PRESETS, load_ruleset


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_preset_has_a_shipped_card_with_its_games():
    cards = json.loads(CARDS_FILE.read_text())["cards"]
    assert sorted(cards) == sorted(PRESETS)
    for name, card in cards.items():
        assert card["format"] == CARD_FORMAT and card["ruleset"] == name
        assert shipped_card(load_ruleset(name))["key"] == card["key"]
        win = card["win"]
        assert win["games"] >= 10_000 and win["opponent"] == "optimal-win"
        assert win["low"] < win["share"] < win["high"] and win["luck_low"] < win["luck_adjusted"] < win["luck_high"]
        assert 0 <= card["rule"]["cost"] < 0.05 * card["rule"]["optimum"]
        assert card["game"]["points"] is not None or card["game"]["to"] == "first"


def test_the_shipped_cards_exact_parts_are_what_the_code_computes():
    """A change of the search or the solvers shows here: the cards must be made again
    (python docs/results/make_results.py strategy-cards keeps the games while the rule is the same)."""
    for name in ("zilch5k", "zonk"):
        fresh, stored = strategy_card(name, stored=False), shipped_card(name)
        for part in ("turn", "rule", "game"):
            assert _close(json.loads(json.dumps(fresh[part])), stored[part]), (name, part)


def _close(a, b) -> bool:
    """Equal data, numbers to 1e-9 relative (the exact parts: float sums in another order)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a))
    return a == b


def test_a_presets_card(capsys):
    code, out, err = run(capsys, "strategy", "--ruleset", "zonk")
    assert code == 0, err
    assert "When to bank" in out and "on the board" in out and "before the board" in out
    assert "Rule of thumb" in out and "points per turn against the optimum" in out
    assert "Against optimal-win over 10,000 seat-balanced games" in out and "luck-adjusted" in out
    assert "The first player wins 53.10%" in out and "for the second player" in out
    assert "zilch eval --ruleset zonk --agents thumb:" in out


def test_json_has_the_documented_keys(capsys):
    code, out, _ = run(capsys, "strategy", "--ruleset", "farkle", "--json")
    assert code == 0
    card = json.loads(out)
    assert card["format"] == CARD_FORMAT and card["source"] == "stored"
    assert set(card["turn"]["on_board"]) == {"1", "2", "3", "4", "5", "6"} and card["turn"]["entry"]["1"] == 1000
    for key in ("bank_at", "dice", "above", "entry_dice", "keep", "spec", "words", "lines", "cost", "points_per_turn",
                "optimum", "entry_cost", "best", "by_size", "tolerance"):
        assert key in card["rule"], key
    assert card["game"]["to"] == "first"  # farkle's second player has the edge (they finish the round)
    assert card["game"]["first_player_win"] < 0.5


def test_other_rules_are_computed_and_say_what_is_missing(capsys):
    code, out, err = run(capsys, "strategy", "--ruleset", "zonk", "--set", "scoring.straight=1000")
    assert code == 0, err
    assert "Costs " in out and "Win chance: the games against optimal-win need the solved game" in out
    assert "no solved game is stored for these rules; `zilch solve --ruleset zonk --set scoring.straight=1000" in out
    code, out, _ = run(capsys, "strategy", "--ruleset", "zonk", "--set", "variants.pyramiding=true", "--json")
    card = json.loads(out)
    assert code == 0 and card["rule"] is None and "pyramiding" in card["why"]["rule"]
    assert card["turn"]["on_board"]["6"] is not None  # a fresh roll of all the dice: exact under pyramiding too
    code, out, _ = run(capsys, "strategy", "--ruleset", "zonk", "--set", "variants.pyramiding=true")
    assert code == 0 and "Under pyramiding only a fresh roll of all the dice is listed" in out


def test_games_against_optimal_win_when_asked(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    args = ["--ruleset", "zonk", "--set", "target=500", "--set", "dice=3"]
    assert main(["solve", *args, "--objective", "win", "--json"]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "strategy", *args, "--games", "40", "--json")
    assert code == 0, err
    card = json.loads(out)
    assert card["win"]["games"] == 40 and card["win"]["luck_adjusted"] is not None
    assert card["game"]["first_player_win"] > 0.5 and card["source"] == "computed"
    assert turn_key(load_ruleset("zonk", {"target": 500, "dice": 3})) == card["turn_key"]


def test_refusals_name_the_problem(capsys):
    code, _, err = run(capsys, "strategy", "--ruleset", "nope")
    assert code == 2 and "zilch strategy: error:" in err and "a preset name (zilch, zilch15k, zilch10k" in err
    with pytest.raises(SystemExit):
        main(["strategy", "--ruleset", "zonk", "--games", "-3"])
    assert "a number of games from 0 to 10,000,000" in capsys.readouterr().err
    code, _, err = run(capsys, "strategy", "--ruleset", "zonk", "--seed", "-1")
    assert code == 2 and "--seed -1" in err
    # rules the game solver does not play: the card says so instead of the edge and the games
    code, out, err = run(capsys, "strategy", "--ruleset", "zonk", "--set", "variants.piggyback=true", "--games", "10")
    assert code == 0, err
    assert "the game solver does not handle these rules" in out and "Rule of thumb" in out


def test_help_explains(capsys):
    with pytest.raises(SystemExit):
        main(["strategy", "--help"])
    out = capsys.readouterr().out
    assert "rule of thumb" in out and "compensation" in out and "--games" in out and "head start" in out

"""``zilch review RECORD.json [--json]``: the report, its JSON, and the records it refuses."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from zilch_cli import main
from zilch_env import GameState, load_ruleset


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _record(tmp_path, dice=None, seed=7, name="game.json"):
    """A seeded zonk game, greedy against optimal-turn, written as a record file."""
    rs = load_ruleset("zonk")
    agents = [make_agent("greedy", rs), make_agent("optimal-turn", rs)]
    g = GameState(rs, 2, seed=seed) if dice is None else GameState(rs, 2, dice=dice)
    rng = np.random.default_rng(seed)
    while not g.done:
        g.apply(agents[g.current].act(g, g.legal_actions(), rng))
    path = tmp_path / name
    path.write_text(json.dumps(g.to_record()))
    return path, g.to_record()


def test_the_report_names_the_measure_each_move_and_each_player(capsys, tmp_path):
    path, _ = _record(tmp_path)
    code, out, err = run(capsys, "review", str(path))
    assert code == 0, err
    assert "Measure: win chance" in out and "rolled" in out and "gave up" in out and "best: " in out
    assert "P1: score" in out and "P2: score 90" in out and "at the start, luck" in out


def test_json_parses_with_the_documented_keys(capsys, tmp_path):
    path, record = _record(tmp_path)
    code, out, _ = run(capsys, "review", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["format"] == "zilch-rl/review/1" and data["measure"] == "win"
    assert len(data["decisions"]) == len(record["actions"]) and len(data["rolls"]) == len(record["rolls"])
    d = data["decisions"][0]
    for key in ("index", "seat", "turn", "roll", "move", "kind", "win", "points", "not_valued", "roll_index"):
        assert key in d
    for key in ("value", "best", "loss", "best_action", "best_move"):
        assert key in d["win"]
    assert data["win_line"][0][0] == 0 and 0.0 <= data["win_line"][0][1] <= 1.0
    assert [s["name"] for s in data["seats"]] == ["P1", "P2"]


def test_a_tampered_record_is_refused_with_the_reason(capsys, tmp_path):
    path, record = _record(tmp_path)
    record["final"]["scores"][1] += 100
    path.write_text(json.dumps(record))
    code, out, err = run(capsys, "review", str(path))
    assert code == 2 and out == ""
    assert "does not replay" in err and "the replay ends at scores" in err
    (tmp_path / "x.json").write_text("[1, 2")
    code, _, err = run(capsys, "review", str(tmp_path / "x.json"))
    assert code == 2 and "not a JSON game record" in err


def test_a_web_record_whose_seed_does_not_give_its_dice_is_refused(capsys, tmp_path):
    from zilch_web.dice import KEYED, dice_for
    from zilch_web.fair import commitment

    path, record = _record(tmp_path, dice=dice_for(KEYED, 42))
    record["dice"] = {"kind": KEYED, "commitment": commitment(KEYED, 42), "seed": "42", "practice": False}
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "review", str(path))
    assert code == 0, err
    record["dice"]["seed"] = "43"
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "review", str(path))
    assert code == 2 and "do not follow from its revealed seed" in err and "commitment mismatch" in err


def test_help_explains_the_figures(capsys):
    with pytest.raises(SystemExit):
        main(["review", "--help"])
    out = capsys.readouterr().out
    for word in ("accuracy", "score", "luck", "loss", "100 * 2 ** (-accuracy / H)", "--json"):
        assert word in out


@pytest.mark.parametrize("change", [
    {"actions": ["x"]}, {"actions": [True]}, {"rolls": [[7, 7, 7, 7, 7, 7]]}, {"rolls": "abc"}, {"first": 9},
    {"num_players": 99}, {"ruleset": {"target": "x"}}, {"format": "zz"}, {"final": "x"},
])
def test_malformed_records_are_refused_not_crashed_on(capsys, tmp_path, change):
    path, record = _record(tmp_path)
    path.write_text(json.dumps({**record, **change}))
    code, out, err = run(capsys, "review", str(path))
    assert code == 2 and out == "" and "zilch review: error:" in err and "Traceback" not in err
    path.write_text(json.dumps([record]))
    code, _, err = run(capsys, "review", str(path))
    assert code == 2 and "a JSON object, not list" in err

"""The review of a game (agents.evaluate.review): a decision the solvers know to be wrong is flagged
with its loss, best play scores 100, every step of the win chance and of a turn's points is accounted
for, and a record that does not replay is refused naming the fault."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from agents.evaluate.review import REVIEW_FORMAT, review_record, score_of
from zilch_env import GameState, RecordError, ScriptedDice, keep_action, load_ruleset


def _played(rs, specs, seed, decisions=10_000):
    """A seeded game of ``specs`` (agent specs, one per seat) played to its end (or its first
    ``decisions`` decisions), as a record."""
    agents = [make_agent(s, rs) for s in specs]
    g = GameState(rs, len(specs), seed=seed)
    rng = np.random.default_rng(seed)
    while not g.done and g.decisions < decisions:
        g.apply(agents[g.current].act(g, g.legal_actions(), rng))
    return g.to_record()


def _rolled_on_1000():
    """P1 rolls 1 1 1 2 3 4, keeps 1 1 1 (1000) and rolls the 3 dice left (the turn optimum banks),
    zilches with 2 3 4; P2 zilches 2 2 3 4 6 6; P1 rolls 1 2 3 4 6 6 and the record ends there."""
    rs = load_ruleset("zonk")
    g = GameState(rs, 2, dice=ScriptedDice([[1, 1, 1, 2, 3, 4], [2, 3, 4], [2, 2, 3, 4, 6, 6], [1, 2, 3, 4, 6, 6]]))
    before = g.clone()
    k = next(k for k in g.keeps() if k.dice == (1, 1, 1))
    g.apply(keep_action(k.mask, False))
    return rs, before, keep_action(k.mask, False), keep_action(k.mask, True), g.to_record()


def test_rolling_on_where_banking_is_best_is_flagged_with_its_loss():
    from agents.solver import solve_turn
    from agents.solver.game import load_game_table

    rs, before, roll_a, bank_a, record = _rolled_on_1000()
    review = review_record(record)
    d = review.decisions[0]
    assert review.measure == "win" and d.action == roll_a
    # the turn optimum: bank 1000 against rolling 3 dice from 1000
    sol = solve_turn(rs, before.on_board[0], reach=4000)
    expected = 1000.0 - sol.roll_value(1000, 3)
    assert expected > 100
    assert d.points.best_action == bank_a and d.points.loss == pytest.approx(expected, abs=1e-6)
    assert "bank 1000" in d.points.best_move
    # the solved game: the same comparison by win chance
    table = load_game_table(rs)
    values = table.action_values(before, False)
    assert d.win.best_action == bank_a and d.win.loss == pytest.approx(values[bank_a] - values[roll_a], abs=1e-6)
    assert d.win.loss > 0.01
    assert review.seats[0].mistakes[0].index == 0 and review.seats[0].score < 100
    # the record ends before P1's second decision: not over, no result, the zilches counted as rolls
    assert review.winners is None and review.seats[0].result is None
    assert [r.zilch for r in review.rolls] == [False, True, True, False]


def test_best_play_scores_100_and_the_win_chance_is_accounted_for():
    rs = load_ruleset("zonk")
    best = review_record(_played(rs, ["optimal-win", "optimal-win"], seed=4))
    for s in best.seats:
        assert s.score == 100.0 and s.lost == 0.0 and s.mistakes == []
    assert all(d.win.loss == 0.0 for d in best.decisions)
    mixed = review_record(_played(rs, ["greedy", "optimal-turn"], seed=7))
    assert mixed.seats[0].score < 100 and mixed.seats[0].lost > 0
    for review in (best, mixed):
        for s in review.seats:  # start + every roll's luck + every decision's play = the result
            assert s.start + s.luck + s.play == pytest.approx(s.result, abs=1e-5)
        assert review.seats[0].luck == pytest.approx(-review.seats[1].luck)
        assert review.win_line[0][1] == pytest.approx(review.decisions[0].win.best)
        assert review.win_line[-1] == (len(review.decisions), review.seats[0].result)


def test_rules_without_a_stored_table_are_reviewed_in_points_and_say_why(tmp_path, monkeypatch):
    from zilch_env import replay

    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    rs = load_ruleset("zonk", {"target": 5000})
    record = _played(rs, ["greedy", "optimal-turn"], seed=3)
    review = review_record(record)
    assert review.measure == "points" and review.win_line == []
    assert "no game table is stored" in review.why_points and "zilch solve" in review.why_points
    assert all(d.win is None and "win" in d.not_valued for d in review.decisions)
    assert review.seats[1].score == 100.0 and review.seats[0].score < 100
    turns = replay(record).turns
    for s in review.seats:  # per turn: expected points at its first roll + luck + play = points recorded
        assert s.start + s.luck + s.play == pytest.approx(s.result, abs=1e-6)
        assert s.result == sum(t["recorded"] for t in turns if t["player"] == s.seat)


def test_an_unfinished_game_of_three_is_reviewed_in_points_up_to_its_last_action():
    review = review_record(_played(load_ruleset("zonk"), ["greedy", "random", "optimal-turn"], seed=1, decisions=9))
    assert review.measure == "points" and "two-player" in review.why_points and review.winners is None
    assert len(review.decisions) == 9 and review.rolls[-1].points_after is not None
    assert all(s.result is not None for s in review.seats)  # the points of the finished turns


def test_turn_start_decisions_are_not_valued():
    rs = load_ruleset("farkle", {"variants.piggyback": True})
    for seed in range(20):
        review = review_record(_played(rs, ["greedy", "greedy"], seed=seed))
        starts = [d for d in review.decisions if d.kind == "turn_start"]
        if starts:
            break
    assert starts, "no piggyback offer in 20 games"
    assert review.measure == "points" and "piggyback" in review.why_points
    for d in starts:
        assert d.points is None and d.win is None and "turn-start decision" in d.not_valued["points"]


def test_a_challenge_decision_is_valued_by_the_solved_game(tmp_path, monkeypatch):
    """Where the two-player game with challenges is solved, whether to challenge is valued by chance
    of winning (the better of the plain turn and the challenge turn), not in points; a declared
    challenge's turn starts from the challenge's value."""
    from agents.solver.game import solve_game

    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    rs = load_ruleset("zilch", {"target": 1000, "variants.challenge": True})
    table = solve_game(rs, progress=False)
    for seed in range(30):
        review = review_record(_played(rs, ["optimal-win", "greedy"], seed=seed))
        starts = [d for d in review.decisions if d.kind == "turn_start"]
        if any(d.action != 130 for d in starts):
            break
    assert review.measure == "win" and starts
    assert any(d.action != 130 for d in starts), "no challenge declared in 30 games"
    for d in starts:
        assert d.win is not None and d.points is None and "chance of winning" in d.not_valued["points"]
        if d.seat == 0:  # optimal-win's own choices lose nothing
            assert d.win.loss == 0.0
    assert table.meta["blocks"] == 3
    # every step is accounted for: a declined challenge's turn starts from the plain turn's value (not
    # the better of the two), and a zilch before a challenge decision is closed at that decision
    for seed in (1, 2, 3):
        for review in (review_record(_played(rs, ["optimal-win", "greedy"], seed=seed)),
                       review_record(_played(rs, ["optimal-win", "optimal-win"], seed=seed))):
            for s in review.seats:
                assert s.start + s.luck + s.play == pytest.approx(s.result, abs=1e-5)
            assert all(r.win_luck is not None for r in review.rolls if r.win_before is not None)


def test_a_record_that_does_not_replay_is_refused_naming_the_fault():
    record = _played(load_ruleset("zonk"), ["greedy", "greedy"], seed=2)
    wrong = dict(record, final={"scores": [s + 50 for s in record["final"]["scores"]], "winners": [0]})
    with pytest.raises(RecordError, match="the replay ends at scores"):
        review_record(wrong)
    with pytest.raises(RecordError, match="rolls but the replay used"):
        review_record(dict(record, rolls=record["rolls"] + [[1, 2, 3, 4, 5, 6]]))
    with pytest.raises(RecordError, match="not JSON"):
        review_record("{")


def test_the_json_form_and_the_score_scale():
    data = review_record(_played(load_ruleset("zonk"), ["greedy", "optimal-turn"], seed=7)).to_dict()
    data = json.loads(json.dumps(data))
    assert data["format"] == REVIEW_FORMAT
    for key in ("ruleset", "players", "measure", "why_points", "decisions", "rolls", "seats", "win_line",
                "scores", "winners", "half_loss", "score_definition"):
        assert key in data
    for key in ("accuracy", "score", "lost", "start", "luck", "play", "result", "mistakes"):
        assert key in data["seats"][0]
    assert len(data["seats"][0]["mistakes"]) <= 3
    assert score_of(0.0, "win") == 100.0 and score_of(0.01, "win") == pytest.approx(50.0)
    assert score_of(0.02, "win") < score_of(0.01, "win") and score_of(None, "points") is None


def test_choices_give_every_legal_move_its_values_and_the_scores():
    """``choices=True`` (the web page's review): each decision carries the scores and board status and
    every legal move with its values, the best first; the move made and the best move among them with
    the values the decision states. Without it the JSON is as before."""
    rs = load_ruleset("zonk")
    record = _played(rs, ["greedy", "optimal-turn"], seed=7, decisions=30)
    review = review_record(record, choices=True)
    g = GameState(rs, 2, dice=ScriptedDice(record["rolls"]))
    for d, a in zip(review.decisions, record["actions"]):
        assert d.scores == list(g.scores) and d.on_board == [bool(x) for x in g.on_board]
        assert sorted(c.action for c in d.choices) == sorted(g.legal_actions())
        by = {c.action: c for c in d.choices}
        wins = [c.win for c in d.choices]
        assert wins == sorted(wins, reverse=True)
        assert by[d.action].win == pytest.approx(d.win.value, abs=1e-9)
        assert by[d.win.best_action].win == pytest.approx(d.win.best, abs=1e-9)
        assert by[d.action].points == pytest.approx(d.points.value, abs=1e-9)
        assert by[d.action].move == g.describe(a)
        g.apply(a)
    data = json.loads(json.dumps(review.to_dict()))
    assert {"scores", "on_board", "choices"} <= set(data["decisions"][0])
    plain = review_record(record).to_dict()
    assert not {"scores", "on_board", "choices"} & set(plain["decisions"][0])

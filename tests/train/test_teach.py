"""train/teach.py with tiny budgets: the teacher's labels are the solved game's, the same command gives
the same weights, the export plays as a ``ppo:`` agent, and bad arguments are named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from train import teach, teacher  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "checkpoints" / "zonk"


def tiny(out: Path, *extra: str) -> list[str]:
    """One round of 256 decisions on 16 games, a fit of one epoch, then the measuring round."""
    return ["--ruleset", "zonk", "--init", str(SHIPPED), "--out", str(out), "--rounds", "1", "--decisions", "256",
            "--n-envs", "16", "--epochs", "1", "--batch-size", "64", "--no-progress", *extra]


def paired_games(rs, n: int, seed: int):
    """``n`` games of the batched engine and the same ``n`` single-engine games: the same dice."""
    from zilch_env import GameState
    from zilch_env.engine.batched import BatchedGames, KeyedDice, stream_keys

    keys = stream_keys(seed, n)
    return BatchedGames(rs, n, 2, dice_keys=keys), [GameState(rs, 2, dice=KeyedDice(k)) for k in keys]


def live_rows(bg, rounds: int):
    """The rows of ``bg`` still playing, each of ``rounds`` times (the caller steps them), until none."""
    for _ in range(rounds):
        live = np.flatnonzero(~bg.done)
        if not live.size:
            return
        yield live


@pytest.fixture(scope="module")
def zonk_teacher():
    return teacher.teacher_for("zonk")


@pytest.fixture(scope="module")
def zonk2000(tmp_path_factory):
    """zonk to 2,000's solved game (seconds), solved once for the module into a solver cache of its own
    (``.table``, ``.cache``): the overcoming teacher's table, and the multiplayer bench's (it finds it
    there, as it would find one it had solved itself)."""
    from types import SimpleNamespace

    from agents.solver.game import solve_game
    from zilch_env import load_ruleset

    cache = tmp_path_factory.mktemp("zonk2000-cache")
    table = solve_game(load_ruleset("zonk", {"target": 2000}), directory=cache, progress=False)
    return SimpleNamespace(table=table, cache=cache)


@pytest.mark.parametrize("ruleset", ["zonk", "zilch"])
def test_labels_are_the_solved_games_values_and_choice(ruleset, request):
    """On the decisions of random games (the same dice in both engines), every legal action's label is
    GameTable.action_values of the same position, and the teacher's best is optimal-win's move."""
    from zilch_env import load_ruleset

    # zonk: the module's teacher_for("zonk") (the same call; its table's solved turns are kept for the
    # other tests, and every value is solved at its stable cap, so none depends on what came first)
    t = request.getfixturevalue("zonk_teacher") if ruleset == "zonk" else teacher.teacher_for(ruleset)
    bg, singles = paired_games(load_ruleset(ruleset), 12, 7)
    rng = np.random.default_rng(3)
    checked = 0
    for live in live_rows(bg, 60):
        q = t.action_values(bg, live)
        best = t.best(q)
        actions = np.zeros(bg.num_games, np.int64)
        for i, g in enumerate(live):
            s = singles[g]
            want = t.table.action_values(s, cut=False, tmin=t.table.stable_cap(t.table.situation(s)))
            assert sorted(want) == np.flatnonzero(np.isfinite(q[i])).tolist()
            for a, v in want.items():
                assert q[i, a] == pytest.approx(v, abs=1e-6)
            assert best[i] == t.table.best_action(s, s.legal_actions()) or \
                want[int(best[i])] >= max(want.values()) - 1e-6  # a tie of the rounding only
            actions[g] = rng.choice(s.legal_actions())
            checked += 1
        bg.step_rows(live, actions[live])
        for g in live:
            singles[g].apply(int(actions[g]))
    assert checked > 200


def test_teacher_plays_its_best_action_as_a_batch_opponent(zonk_teacher):
    """As a batch opponent of the batched VecEnv the teacher moves (legally: the VecEnv raises on an
    illegal opponent move), and act_batch is the best of its own labels."""
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    venv = BatchedZilchVecEnv("zonk", num_envs=4, seed=5, opponent=zonk_teacher)
    venv.reset()
    rows = np.arange(4)
    for _ in range(30):
        q = zonk_teacher.action_values(venv.games, rows)
        a = zonk_teacher.act_batch(venv.games, rows)
        assert (q[rows, a] >= q.max(axis=1) - 1e-12).all()
        venv.step(venv.games.greedy_actions(300))
    assert venv.games.turns.sum() > 8  # the teacher took turns


def test_loss_prefers_the_teachers_choice():
    import torch

    regret = torch.tensor([[0.0, 0.2, float("inf")], [0.05, 0.0, 0.0]])
    good = torch.tensor([[5.0, 0.0, 0.0], [0.0, 5.0, 5.0]])
    bad = torch.tensor([[0.0, 5.0, 0.0], [5.0, 0.0, 0.0]])
    lg, ig = teach.teach_loss(good, regret, 1e-2, 1.0)
    lb, ib = teach.teach_loss(bad, regret, 1e-2, 1.0)
    assert float(lg) < float(lb)
    assert ig["agree"] == 1.0 and ib["agree"] == 0.0
    assert ib["argmax_regret"] == pytest.approx(0.125)


def test_same_seed_same_weights_and_the_export_plays(tmp_path):
    """Two runs of the same command give the same weights; a different seed others; the taught
    checkpoint exports as a ppo: agent that plays a game (and keeps the layout and train.json)."""
    import torch
    from sb3_contrib import MaskablePPO

    def weights(out: Path) -> dict:
        m = MaskablePPO.load(out / "best" / "model.zip", device="cpu")
        return {k: v.clone() for k, v in m.policy.state_dict().items()}

    assert teach.main(tiny(tmp_path / "a", "--no-export")) == 0
    assert teach.main(tiny(tmp_path / "b", "--final-games", "4", "--final-opponents", "greedy",
                           "--final-solo-turns", "0", "--eval-workers", "1")) == 0
    assert teach.main(tiny(tmp_path / "c", "--no-export", "--seed", "2")) == 0
    wa, wb, wc = weights(tmp_path / "a"), weights(tmp_path / "b"), weights(tmp_path / "c")
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert any(not torch.equal(wa[k], wc[k]) for k in wa)
    shipped = weights(SHIPPED)
    assert any(not torch.equal(wa[k], shipped[k]) for k in wa if "policy_net" in k or "action_net" in k)
    assert all(torch.equal(wa[k], shipped[k]) for k in wa if "value_net" in k)  # the critic is left alone

    from agents.base import make_agent
    from zilch_env import GameState, load_ruleset

    out = tmp_path / "b"
    meta = json.loads((out / "policy.json").read_text())
    assert meta["obs_version"] == 3 and meta["training"]["commands"][-1].startswith("python train/teach.py")
    assert "teach" in json.loads((out / "best" / "train.json").read_text())
    assert json.loads((out / "teach.json").read_text())["chosen"]["round"] in (0, 1)
    assert "taught by the solved game" in (out / "README.md").read_text()
    assert "greedy" in json.loads((out / "eval.json").read_text())["vs"]
    agent = make_agent(f"ppo:{out}", "zonk")
    g = GameState(load_ruleset("zonk"), 2, seed=1)
    rng = np.random.default_rng(0)
    while not g.done:
        legal = g.legal_actions()
        a = agent.act(g, legal, rng)
        assert a in legal
        g.apply(a)


@pytest.mark.parametrize("argv, says", [
    (["--rounds", "0", "--init", "x"], "--rounds 0"),
    (["--tau", "0", "--init", "x"], "--tau 0.0"),
    (["--ruleset", "zonk"], "--init"),
    (["--opponents", ",", "--init", "x"], "--opponents"),
])
def test_bad_arguments_are_named(argv, says, capsys):
    with pytest.raises(SystemExit):
        teach.parse_args(argv)
    assert says in capsys.readouterr().err


def test_bad_setups_say_why(tmp_path, monkeypatch):
    from zilch_env import load_ruleset

    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path / "cache"))
    with pytest.raises(teacher.TeachError, match="zilch solve --ruleset"):
        teacher.teacher_for(load_ruleset("zonk", {"target": 7000}))  # rules without a stored table

    with pytest.raises(teacher.TeachError, match="pyramiding"):
        teacher.teacher_for(load_ruleset("zonk", {"variants.pyramiding": True}))
    with pytest.raises(SystemExit, match="no-such-dir"):
        teach.main(["--init", str(tmp_path / "no-such-dir"), "--out", str(tmp_path / "o"), "--no-progress"])
    with pytest.raises(SystemExit, match="other rules"):
        teach.main(["--ruleset", "farkle", "--init", str(SHIPPED), "--out", str(tmp_path / "o"), "--no-progress"])
    with pytest.raises(SystemExit, match="'nobody'"):
        teach.main(tiny(tmp_path / "o", "--opponents", "nobody"))


def test_ppo_teacher_option_teaches_before_the_export(tmp_path):
    """train/ppo.py --teacher optimal-win: a tiny PPO run, then train/teach.py's rounds on its best/,
    then the export; the command list holds the one ppo.py command that made it."""
    from train import ppo

    out = tmp_path / "ck"
    argv = ["--ruleset", "zonk", "--timesteps", "128", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64",
            "--n-epochs", "1", "--eval-every", "128", "--eval-games", "2", "--final-games", "0",
            "--final-solo-turns", "0", "--no-progress", "--opponents", "greedy,self", "--out", str(out),
            "--runs", str(tmp_path / "runs"), "--run-name", "t", "--shaping", "none", "--eval-opponent", "greedy",
            "--teacher", "optimal-win",
            "--teach-args", "--rounds 1 --decisions 128 --n-envs 8 --epochs 1 --batch-size 64"]
    assert ppo.main(argv) == 0
    meta = json.loads((out / "policy.json").read_text())
    assert len(meta["training"]["commands"]) == 1 and "--teacher optimal-win" in meta["training"]["commands"][0]
    assert "teach" in json.loads((out / "best" / "train.json").read_text())
    assert (out / "teach.json").is_file()


def test_help_lists_every_option_with_its_default():
    from train.teaching import script_fields

    text = teach.build_parser().format_help()
    for f in script_fields("teach"):
        assert "--" + f.name.replace("_", "-") in text, f.name
    assert "(default: 200000)" in text and "(default: optimal-win,optimal-turn,self)" in text


def test_both_teaching_scripts_parse_the_one_args():
    """train/teach.py and train/teach_any.py build their parsers from the one train.teaching.Args: every
    option of either is a field of it, a field of both scripts is an option of both, a field added to
    Args once appears in both --help, and each script's defaults are its own where Args gives it one."""
    import dataclasses

    from train import teach_any, teaching
    from train.args import arg

    parsers = {"teach": teach.build_parser(), "teach_any": teach_any.build_parser()}
    for script, parser in parsers.items():
        options = {a.dest for a in parser._actions if a.dest != "help"}
        assert options == {f.name for f in teaching.script_fields(script)}
        text = parser.format_help()
        for f in dataclasses.fields(teaching.Args):
            if "scripts" not in f.metadata:
                assert "--" + f.name.replace("_", "-") in text, (script, f.name)
    wider = dataclasses.make_dataclass("Wider", [("new_option", "int", arg(7, "an option added once"))],
                                       bases=(teaching.Args,))
    for script in teaching.SCRIPTS:
        text = teaching.build_parser(script, cls=wider).format_help()
        assert "--new-option NEW_OPTION" in text and "an option added once (default: 7)" in text
    a, b = teach.parse_args(["--init", "x"]), teach_any.parse_args(["--players", "4", "3", "4"])
    assert (a.rounds, a.decisions, a.learning_rate, a.init) == (6, 200_000, 1e-3, "x")
    assert (b.rounds, b.decisions, b.learning_rate, b.init) == (4, 40_000, 5e-4, "checkpoints/any")
    assert b.players == (3, 4) and "players" not in a.recorded("teach") and "ruleset" not in b.recorded("teach_any")
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--players", "5", "--presets", "nope", "--rounds", "0"])


def test_leader_seats_pick_the_highest_other_score_in_the_rounds_order():
    # seat 2 moves; seat 1 leads: the two seats in the round's order from seat 0 are 1 then 2
    assert teacher.leader_seats(2, 0, 3, [1000, 3000, 2000], None, None) == ([1, 2], 1, None, None)
    # seat 0 moves first in the round from seat 0; of two equal leaders the next to play after it (seat 1)
    assert teacher.leader_seats(0, 0, 4, [500, 2000, 2000, 100], None, None) == ([0, 1], 0, None, None)
    # the round starts at seat 2: seat 3 plays before seat 0; the final queue and tie-break kept among the two
    assert teacher.leader_seats(0, 2, 4, [9000, 8000, 7000, 10400], [1, 0], [0, 3]) == ([3, 0], 1, [1], [1, 0])
    # in a tie-break the leader is a tied player, even below another's score (a penalty took points)
    assert teacher.leader_seats(1, 0, 3, [10000, 10200, 10300], [1, 0], [0, 1]) == ([0, 1], 1, [1, 0], [0, 1])


def test_leader_teacher_labels_games_of_three_and_four_players(zonk_teacher):
    """With leader=True a game of more players is labelled as the mover's two-player game against the
    leader: the situation of those two seats, values of the legal actions only, win chances."""
    from zilch_env.engine.batched import BatchedGames

    t = teacher.WinTeacher("zonk", table=zonk_teacher.table, leader=True)
    for n in (3, 4):
        # 8 games: 1,455 positions (3 players) and 1,969 (4), 13 and 31 of them in a final round
        bg = BatchedGames("zonk", 8, n, seed=4)
        with pytest.raises(teacher.TeachError, match="leader=True"):
            zonk_teacher.action_values(bg, np.arange(8))
        rng = np.random.default_rng(n)
        checked = finals = 0
        for _ in range(400):
            live = np.flatnonzero(~bg.done)
            if not live.size:
                break
            masks = bg.legal_masks(rows=live)
            q = t.action_values(bg, live, masks)
            assert (np.isfinite(q) == masks).all() and (q[masks] >= 0).all() and (q[masks] <= 1).all()
            for i, b in enumerate(live.tolist()):
                cur, first = int(bg.current[b]), int(bg.first[b])
                sc = bg.scores[b, :n].tolist()
                queue, tied = bg.final_queue(b), bg.tiebreak_players(b)
                if queue is not None and tied is None:  # a last turn: the leader and the seats after
                    want = t.table.final_situation_of(cur, first, sc, bg.on_board[b, :n].tolist(),
                                                      bg.zilch_streak[b, :n].tolist(), queue)
                    finals += len(queue) > 1
                else:
                    seats, me, queue, tied = teacher.leader_seats(cur, first, n, sc, queue, tied)
                    want = t.table.situation_of(me, 0, [sc[q] for q in seats], bg.on_board[b, seats].tolist(),
                                                bg.zilch_streak[b, seats].tolist(), queue, tied,
                                                int(bg.tiebreak_round[b]))
                assert t.situations(bg, np.array([b]))[0] == want
                checked += 1
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            bg.step_rows(live, acts)
        assert checked > 300 and finals > 0


def test_overcoming_teacher_labels_last_turns_above_the_previous_result(zonk2000):
    """With overcoming=True the teacher labels games of zonk with overcoming on: before the end a
    keep as zonk's solved game values it, among the legal actions; a last turn as
    ``final_situation_of`` with the bar of the previous turn's result. Without it those games are
    refused, naming the variant."""
    from zilch_env import GameState, load_ruleset
    from zilch_env.engine.batched import BatchedGames, KeyedDice, stream_keys

    plain, over = load_ruleset("zonk", {"target": 2000}), load_ruleset("zonk", {"target": 2000, "variants.overcoming": True})
    tab = zonk2000.table  # = solve_game(plain, cache=False, progress=False)
    assert tab.ruleset == plain
    with pytest.raises(teacher.TeachError, match=r"variants\.overcoming: table False, games True"):
        teacher.WinTeacher(plain, table=tab, leader=True).action_values(BatchedGames(over, 4, 3, seed=1), np.arange(4))
    t = teacher.WinTeacher(plain, table=tab, leader=True, overcoming=True)
    for n in (2, 3):
        keys = stream_keys(3 + n, 24)
        bg = BatchedGames(over, 24, n, dice_keys=keys)
        singles = [GameState(over, n, dice=KeyedDice(k)) for k in keys]
        rng = np.random.default_rng(n)
        barred = 0
        for live in live_rows(bg, 600):
            masks = bg.legal_masks(rows=live)
            q = t.action_values(bg, live, masks)
            assert (np.isfinite(q) == masks).all() and (q[masks] >= 0).all() and (q[masks] <= 1).all()
            for i, b in enumerate(live.tolist()):
                s = singles[b]
                assert int(bg.last_result[b]) == s.last_result
                sit = t.situations(bg, np.array([b]))[0]
                if s.final_queue is not None and s.tiebreak_players is None:
                    assert sit == tab.final_situation_of(s.current, s.first, s.scores, s.on_board, s.zilch_streak,
                                                         s.final_queue, s.last_result, True)
                    c = s.clone()
                    c.ruleset = plain  # the same position: the table's keeps, valued in that situation
                    want = tab.action_values(c, cut=False, tmin=tab.stable_cap(sit), situation=sit)
                    assert {a: pytest.approx(want[a], abs=1e-6) for a in np.flatnonzero(masks[i]).tolist()} == \
                        {a: q[i, a] for a in np.flatnonzero(masks[i]).tolist()}
                    barred += sit[0] == "chase"
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            bg.step_rows(live, acts)
            for b, a in zip(live.tolist(), acts.tolist()):
                singles[b].apply(int(a))
        assert barred > 0


def test_piggyback_teacher_values_offers_and_keeps_by_the_presets_game(zonk_teacher):
    """With piggyback=True the teacher labels games of zonk with piggyback on: a keep as the same
    position of zonk's solved game, a fresh turn as the turn's start value, and an offer as rolling on
    from it, i.e. the mean over the rolls of its dice of the best the solved game does after each
    (a zilch: the opponent's turn from its start). Both engines play the same dice."""
    import dataclasses
    import itertools
    import math
    from collections import Counter

    from zilch_env import FRESH, PIGGYBACK, GameState, load_ruleset
    from zilch_env.engine.batched import BatchedGames
    from zilch_env.engine.dice import RandomDice, ScriptedDice
    from zilch_env.engine.game import Phase

    plain, pig = load_ruleset("zonk"), load_ruleset("zonk", {"variants.piggyback": True})
    tab = zonk_teacher.table
    t = teacher.WinTeacher(plain, table=tab, piggyback=True)
    bg, singles = paired_games(pig, 16, 11)
    with pytest.raises(teacher.TeachError, match="piggyback on.*entry_threshold: table 500, games 1000"):
        teacher.WinTeacher(plain, table=tab, piggyback=True).action_values(BatchedGames("farkle", 2, 2, seed=1),
                                                                         np.arange(2))
    with pytest.raises(teacher.TeachError, match=r"other rules.*variants\.piggyback: table False, games True"):
        zonk_teacher.action_values(bg, np.arange(16))

    def as_plain(s: GameState) -> GameState:
        c = s.clone()
        c.ruleset = plain  # the same position under zonk's rules (a keep does not see the variant)
        return c

    def roll_on(s: GameState, sit: tuple, n: int) -> float:
        cap = tab.stable_cap(sit)
        total = 0.0
        for roll in itertools.combinations_with_replacement(range(1, 7), n):
            p = math.factorial(n) / math.prod(math.factorial(c) for c in Counter(roll).values()) / 6 ** n
            c = s.clone()
            c.dice_source = ScriptedDice([roll], then=RandomDice(0))
            c.apply(PIGGYBACK)
            if c.current == s.current and c.phase == Phase.KEEP:
                total += p * max(tab.action_values(as_plain(c), cut=False, tmin=cap).values())
            else:  # a zilch: the opponent's turn from its start (its first roll is not the mover's)
                other = tab.situation_of(c.current, c.first, c.scores, c.on_board, c.zilch_streak, c.final_queue,
                                         c.tiebreak_players, c.tiebreak_round)
                total += p * (1.0 - tab.start_value(other))
        return total

    rng = np.random.default_rng(5)
    offers = keeps = 0
    for live in live_rows(bg, 300):
        masks = bg.legal_masks(rows=live)
        q = t.action_values(bg, live, masks)
        assert (np.isfinite(q) == masks).all()
        for i, b in enumerate(live.tolist()):
            s = singles[b]
            sit = t.situations(bg, np.array([b]))[0]
            if s.phase == Phase.PIGGYBACK:
                assert tuple(bg.offers[b]) == s.offer
                assert q[i, FRESH] == pytest.approx(tab.start_value(sit), abs=1e-6)
                if sit[0] == "race" and s.offer[1] <= 3 and offers < 6:
                    assert q[i, PIGGYBACK] == pytest.approx(roll_on(s, sit, s.offer[1]), abs=1e-6)
                    offers += 1
            else:
                assert tuple(bg.offers[b]) == (s.offer or (0, 0))
                want = tab.action_values(as_plain(s), cut=False, tmin=tab.stable_cap(sit))
                assert {a: pytest.approx(v, abs=1e-6) for a, v in want.items()} == \
                    {a: q[i, a] for a in np.flatnonzero(masks[i]).tolist()}
                keeps += 1
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        bg.step_rows(live, acts)
        for b, a in zip(live.tolist(), acts.tolist()):
            singles[b].apply(int(a))
    assert offers == 6 and keeps > 500


def _multiplayer_bench():
    """bench/multiplayer_teacher.py as a module (bench/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("multiplayer_teacher", ROOT / "bench" / "multiplayer_teacher.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_multiplayer_teacher_bench_plays_the_table(zonk_teacher, zonk2000, capsys, monkeypatch):
    """bench/multiplayer_teacher.py: in a two-player game both of its players are optimal-win (the
    leader is the opponent; the product has one factor), and under piggyback they play as the
    piggyback teacher chooses; a tiny run of 3 players prints every agent."""
    from zilch_env import GameState, Phase, load_ruleset

    # The runs' two-player table of zonk to 2,000 is in this cache (the module's; else they solve it)
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(zonk2000.cache))

    bench = _multiplayer_bench()
    tab = zonk_teacher.table
    players = [bench.TwoPlayerTablePlayer(tab, m) for m in ("leader", "product")]
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(6):
        s = GameState(load_ruleset("zonk"), 2, seed=seed)
        while not s.done:
            legal = s.legal_actions()
            want = tab.action_values(s)
            for p in players:
                assert want[p.act(s, legal, rng)] >= max(want.values()) - 1e-6
            checked += 1
            s.apply(int(rng.choice(legal)))
    assert checked > 100
    win_teacher = teacher.WinTeacher("zonk", table=tab, piggyback=True)
    bg, singles = paired_games(load_ruleset("zonk", {"variants.piggyback": True}), 8, 3)
    offers = 0
    for live in live_rows(bg, 400):
        q = win_teacher.action_values(bg, live)
        acts = win_teacher.best(q)
        for i, b in enumerate(live.tolist()):
            for p in players:
                assert q[i, p.act(singles[b], singles[b].legal_actions(), rng)] >= q[i].max() - 1e-6
            offers += singles[b].phase == Phase.PIGGYBACK
        bg.step_rows(live, acts)
        for b, a in zip(live.tolist(), acts.tolist()):
            singles[b].apply(int(a))
    assert offers > 20
    assert bench.main(["--ruleset", "zonk", "--set", "target=2000", "--players", "3", "--games", "6",
                       "--agents", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "fair share 33.3%" in out and all(f"  {a}" in out for a in ("table-leader", "table-product", "greedy"))
    with pytest.raises(SystemExit):
        bench.main(["--players", "5"])
    assert bench.main(["--ruleset", "zonk", "--set", "target=2000", "--players", "3", "--games", "6",
                       "--agents", "greedy", "--split"]) == 0
    out = capsys.readouterr().out
    assert "  greedy / heuristic's end" in out and "  heuristic / greedy's end" in out


def test_the_endgame_split_hands_over_when_the_end_is_reached():
    """bench/multiplayer_teacher.py --split: the first agent moves until a player reaches the target,
    the second in the final round and any tie-break, never the other way round."""
    from zilch_env import GameState, load_ruleset

    bench = _multiplayer_bench()

    class Recorder:
        def __init__(self, name):
            self.name, self.endgame = name, []

        def act(self, st, legal, rng):
            self.endgame.append(st.final_queue is not None or st.tiebreak_players is not None)
            return legal[-1] if st.turn_total >= 350 else legal[0]

    before, after = Recorder("a"), Recorder("b")
    split = bench.EndgameSplit(before, after)
    assert split.name == "a / b"
    rng = np.random.default_rng(0)
    for seed in range(8):
        s = GameState(load_ruleset("zonk", {"target": 2000}), 3, seed=seed)
        while not s.done:
            s.apply(split.act(s, s.legal_actions(), rng))
    assert before.endgame and not any(before.endgame)
    assert after.endgame and all(after.endgame)


def test_decisions_concat_keeps_the_newest_in_order():
    def rows(*ids):
        obs = np.array(ids, np.float32).reshape(-1, 1)
        return teach.Decisions(obs, np.zeros((len(ids), 2), np.float16))

    parts = [rows(1, 2, 3), rows(), rows(4, 5), rows(6)]
    assert teach.Decisions.concat(parts, 10).obs[:, 0].tolist() == [1, 2, 3, 4, 5, 6]
    assert teach.Decisions.concat(parts, 4).obs[:, 0].tolist() == [3, 4, 5, 6]
    assert teach.Decisions.concat(parts, 1).obs[:, 0].tolist() == [6]
    assert rows(1, 2).joined(rows(3), 2).obs[:, 0].tolist() == [2, 3]


def test_a_solved_game_of_three_labels_its_own_games(shared_solves):
    """Given a multi-player solved game (agents.solver.multi), the teacher labels games of exactly its rules
    and players by it: every legal action's label is the table's value of the same position (the race
    under overcoming's bar, the next player's last turn knowing who follows, the last turn); other player
    counts are refused, and so are the two-player table's flags."""
    from agents.solver.multi import solve_multi
    from zilch_env import GameState, load_ruleset
    from zilch_env.engine.batched import BatchedGames, KeyedDice, stream_keys

    rs = load_ruleset("zilch", {"target": 1000, "variants.overcoming": True})
    # a loose tail: seconds (tests/agents/solver/test_multi_solver.py's table, solved once per run)
    tab = solve_multi(rs, 3, directory=shared_solves, progress=False, tail_eps=5e-2)
    t = teacher.WinTeacher(rs, table=tab)
    with pytest.raises(teacher.TeachError, match="this solved game is of 3"):
        t.action_values(BatchedGames(rs, 2, 2, seed=1), np.arange(2))
    with pytest.raises(teacher.TeachError, match="labels its own rules only"):
        teacher.WinTeacher(rs, table=tab, leader=True)
    keys = stream_keys(11, 16)
    bg = BatchedGames(rs, 16, 3, dice_keys=keys)
    singles = [GameState(rs, 3, dice=KeyedDice(k)) for k in keys]
    rng = np.random.default_rng(2)
    kinds = set()
    for live in live_rows(bg, 800):
        masks = bg.legal_masks(rows=live)
        q = t.action_values(bg, live, masks)
        for i, b in enumerate(live.tolist()):
            s = singles[b]
            sit = t.situations(bg, np.array([b]))[0]
            assert sit == tab.situation(s)
            kinds.add(sit[0])
            want = tab.action_values(s, cut=False)
            assert sorted(want) == np.flatnonzero(masks[i]).tolist()
            assert {a: q[i, a] for a in want} == {a: pytest.approx(v, abs=1e-6) for a, v in want.items()}
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        bg.step_rows(live, acts)
        for b, a in zip(live.tolist(), acts.tolist()):
            singles[b].apply(int(a))
    assert kinds == {"race", "second", "last"}


def test_challenge_tables_are_played_but_not_taught_or_shaped():
    """The solved game with challenges plays (optimal-win), but the teacher and the win shaping read
    race values without the challenges each player has used: they refuse such a table, and training's
    automatic shaping leaves those rules unshaped (as before their game was solved)."""
    from agents.solver.win_shaping import WinPotential
    from train.report import shapeable_game_table, stored_game_table
    from zilch_env import UnsupportedRulesError, load_ruleset

    rs = load_ruleset("zilch", {"variants.challenge": True})
    assert stored_game_table(rs) and not shapeable_game_table(rs)
    assert shapeable_game_table(load_ruleset("zilch"))
    with pytest.raises(UnsupportedRulesError, match="challenge"):
        WinPotential(rs)
    with pytest.raises(teacher.TeachError, match="challenge"):
        teacher.teacher_for(rs)

"""train/ppo.py --ruleset any with a tiny budget: it trains on many rulesets at once, its checkpoint
and export say they play any ruleset, the exported agent plays rules it never saw (3 players, other
scoring), refuses to if its layout cannot read the rules, and train/generalist_eval.py reports it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from train import ppo  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def tiny_any(tmp: Path) -> list[str]:
    return ["--ruleset", "any", "--rules-pool", "6", "--timesteps", "512", "--n-envs", "8", "--n-steps", "64",
            "--batch-size", "128", "--n-epochs", "1", "--net-arch", "16,16", "--eval-every", "512",
            "--eval-games", "4", "--final-games", "0", "--final-solo-turns", "0", "--no-progress",
            "--opponents", "optimal-turn,self", "--selfplay-every", "256", "--seed", "15",
            "--out", str(tmp / "any"), "--runs", str(tmp / "runs"), "--run-name", "t"]


@pytest.fixture(scope="module")
def any_run(tmp_path_factory) -> Path:
    """``ppo.main(tiny_any(DIR))`` run once for the module (the tests below read different things from
    the same seeded run, or teach it); each test copies its output ``any/`` into its own ``tmp_path``."""
    base = tmp_path_factory.mktemp("any-run")
    assert ppo.main(tiny_any(base)) == 0
    return base


def copy_any(run: Path, tmp_path: Path) -> None:
    shutil.copytree(run / "any", tmp_path / "any")


def test_any_ruleset_trains_exports_and_plays_every_ruleset(tmp_path, any_run):
    from agents.base import make_agent
    from agents.evaluate import evaluate
    from agents.learned import PolicyMismatchError
    from zilch_env import load_ruleset

    copy_any(any_run, tmp_path)  # = ppo.main(tiny_any(tmp_path)) == 0
    out = tmp_path / "any"
    state = json.loads((out / "best" / "train.json").read_text())
    assert state["ruleset"] == {"name": "any", "distribution": "any", "pool": 6, "seed": 15}
    assert state["args"]["shaping"] == "regret"  # the pool's exact presets are shaped
    meta = json.loads((out / "policy.json").read_text())
    assert meta["ruleset"]["distribution"] == "any" and meta["obs_version"] == 4
    assert "any ruleset" in (out / "README.md").read_text().splitlines()[0]
    odd = load_ruleset("farkle", {"scoring.triples.2": 350, "target": 4500, "variants.piggyback": True})
    rep = evaluate(agents=[f"ppo:{out}", "greedy", "greedy"], ruleset=odd, players=3, games=6, seed=1,
                   workers=1, solo_turns=0)
    assert rep.data["tables"][0]["results"][0]["games"] == 6
    # a policy for any ruleset must read the rules: layout 4 or later (a layout 3 policy relabelled)
    bad = tmp_path / "old"
    bad.mkdir()
    for f in ("policy.onnx", "policy.json"):
        shutil.copy(ROOT / "checkpoints" / "zonk" / f, bad / f)
    doc = json.loads((bad / "policy.json").read_text())
    assert doc["obs_version"] == 3
    (bad / "policy.json").write_text(json.dumps({**doc, "ruleset": meta["ruleset"]}))
    with pytest.raises(PolicyMismatchError, match="must read the rules"):
        make_agent(f"ppo:{bad}", odd)


def test_any_ruleset_refuses_what_it_cannot_train(capsys):
    for extra in (["--players", "3"], ["--objective", "score"], ["--set", "target=5000"]):
        with pytest.raises(SystemExit):
            ppo.parse_args(["--ruleset", "any", *extra])
        assert "--ruleset any" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ppo.parse_args(["--ruleset", "any", "--rules-pool", "0"])
    assert "--rules-pool 0" in capsys.readouterr().err


def test_generalist_eval_reports_on_a_tiny_budget(tmp_path, any_run):
    from train import generalist_eval

    copy_any(any_run, tmp_path)  # = ppo.main(tiny_any(tmp_path)) == 0
    md = tmp_path / "table.md"
    md.write_text("# agents\n")
    assert generalist_eval.main(["--agent", f"ppo:{tmp_path / 'any'}", "--parts", "held-out", "--other-games", "24",
                                 "--workers", "1", "--no-progress", "--write", str(md)]) == 0
    text = md.read_text()
    assert generalist_eval.MARK_START in text and "| zonk 4p target=6500, triples x1.25 | 4 | 24 |" in text
    res = json.loads((tmp_path / "any" / "eval.json").read_text())
    assert len(res["held-out"]) == 10 and all(0 <= r["share"]["mean"] <= 1 for r in res["held-out"])
    with pytest.raises(SystemExit):
        generalist_eval.main(["--agent", "ppo:checkpoints/zonk"])  # a policy of one ruleset


def test_generalist_eval_solved_reference_rows_and_column():
    """--solved plays optimal-win where agents.solver.multi solves the row's game (three players, or two under
    overcoming), and the table then carries that column, '-' elsewhere."""
    from train import generalist_eval
    from zilch_env.rules.distribution import held_out_rules, variant_rules

    rows = [d.label for d in held_out_rules() + variant_rules() if generalist_eval.solvable(d)]
    # zonk at three players to 7,000 is beyond the solver's budget (agents.solver.multi.MAX_ROWS)
    assert rows == ["zilch 3p target=3500 variants.overcoming=True", "zonk 2p overcoming"]
    s = {"mean": 0.34, "low": 0.33, "high": 0.35}
    res = {"agent": "a", "command": "c", "seconds": 60.0,
           "held-out": [{"rules": "r3", "players": 3, "games": 6, "share": s, "fair": 1 / 3, "solved": s},
                        {"rules": "r4", "players": 4, "games": 24, "share": s, "fair": 0.25}]}
    md = generalist_eval.markdown(res)
    assert "the solved game % [95% CI] |" in md and "| r3 | 3 | 6 | 34.0 [33.0, 35.0] | 33.3 | within the interval | " \
        "34.0 [33.0, 35.0] |" in md and md.splitlines()[-3].endswith("| yes | - |")


def test_teach_any_teaches_on_the_presets_and_keeps_the_rest(tmp_path, any_run):
    from train import teach_any

    # = ppo.main(tiny_any(tmp_path)) == 0: seed 15, a pool of six with a piggyback ruleset
    copy_any(any_run, tmp_path)
    out = tmp_path / "any"
    assert teach_any.main(["--init", str(out), "--presets", "zonk", "--rounds", "1", "--decisions", "300",
                           "--keep-decisions", "300", "--players", "3", "3", "--multi-decisions", "200",
                           "--offer-decisions", "50", "--piggyback-decisions", "120", "--n-envs", "8",
                           "--overcoming-decisions", "100", "--overcoming-targets", "3000", "--solved-players",
                           "--solved-rules", "1", "--solved-decisions", "80", "--solved-max-rows", "2e6",
                           "--no-progress"]) == 0
    teach = json.loads((out / "teach.json").read_text())
    # 300 on the preset, 200 at three players (asked twice, taught once), 120 under piggyback,
    # 100 under overcoming at each of 2 and 3 players, 300 kept, 50 offers, 80 on a solved ruleset
    assert len(teach["rounds"]) == 2 and teach["rounds"][0]["fit"]["decisions"] == 1250
    solved = teach["rounds"][0]["solved"]
    assert len(solved) == 1 and list(solved) == list(teach["rounds"][1]["solved"])  # measured in the last round
    lost = [*teach["rounds"][0]["measured"].values(), *teach["rounds"][0]["solved"].values()]
    assert teach["rounds"][0]["mean_regret_per_game"] == pytest.approx(
        sum(m["regret_per_game"] for m in lost) / len(lost))
    assert list(teach["rounds"][0]["multi_player"]) == ["zonk 3p"] and not teach["rounds"][1]["multi_player"]
    assert list(teach["rounds"][0]["piggyback"]) == ["zonk piggyback"] and not teach["rounds"][1]["piggyback"]
    assert list(teach["rounds"][0]["overcoming"]) == ["zonk target 3000 overcoming 2p", "zonk target 3000 overcoming 3p"]
    assert teach["chosen"]["round"] == 1  # the fitted network (of the one round), not the --init one
    assert json.loads((out / "policy.json").read_text())["obs_version"] == 4
    state = json.loads((out / "best" / "train.json").read_text())
    assert state["commands"][-1].startswith("python train/teach_any.py") and state["ruleset"]["distribution"] == "any"
    assert "Then taught (`train/teach_any.py`" in (out / "README.md").read_text()
    with pytest.raises(SystemExit, match="not an agent for any ruleset"):
        teach_any.main(["--init", str(ROOT / "checkpoints" / "zonk"), "--no-progress"])
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--presets", "nosuch"])
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--players", "2"])
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--piggyback-decisions", "-1"])


def test_the_overcoming_lesson_is_taught_by_the_solved_game_where_there_is_one(monkeypatch):
    """An overcoming lesson of 2 or 3 players (--solved-players) under rules agents.solver.multi solves is
    taught by that solved game, one table per rules (zonk20k at a lesson's target is zonk); other
    player counts and rules keep the two-player game's approximation."""
    from agents.solver import multi as multi_solver
    from train import teach_any
    from zilch_env import load_ruleset

    solved = []

    class Table:  # stands for a solved game: the teacher only keeps it
        def __init__(self, rs, players):
            self.ruleset, self.players = rs, players

    def solve(rs, players, progress=True):
        solved.append((rs.name, players))
        return Table(rs, players)

    monkeypatch.setattr(multi_solver, "solve_multi", solve)
    monkeypatch.setattr(multi_solver, "MultiTable", Table)
    approx, tables = object(), {}
    for name, n, want in [("zonk", 3, True), ("zonk20k", 3, True), ("zonk", 2, True), ("zonk", 4, False),
                          ("farkle", 3, False), ("zilch", 3, False)]:
        rs = load_ruleset(name, {"target": 3000, "variants.overcoming": True})
        teacher, is_solved = teach_any.overcoming_teacher(rs, n, [2, 3] if name != "zilch" else [2], approx, 64.0,
                                                          tables, False)
        assert is_solved == want and (teacher is approx) != want
        if want:
            assert teacher.table.players == n and multi_solver.multi_key(teacher.ruleset, n) == multi_solver.multi_key(rs, n)
    assert solved == [("zonk", 3), ("zonk", 2)]  # zonk20k's rules at 3,000 are zonk's: solved once
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--solved-players", "4"])


def test_teach_any_names_a_held_out_overcoming_target(capsys):
    from train import teach_any

    with pytest.raises(SystemExit):
        teach_any.parse_args(["--overcoming-targets", "3000", "3500"])
    err = capsys.readouterr().err
    assert "--overcoming-targets 3500: targets of the distribution, 2000, 3000" in err and "held out" in err
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--overcoming-decisions", "-1"])


def test_turn_returns_cut_only_the_shaped_games():
    """Games whose rules have no potential are paid their result at the end alone: their returns are
    not cut at each turn (the earlier turns would never see the result)."""
    import numpy as np

    from agents.solver.win_shaping import RulesPotential
    from train.wrappers import turn_returns
    from zilch_env import load_ruleset
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    class Half:
        def __call__(self, games, rows, seats):
            return np.full(len(rows), 0.5)

    rules = [load_ruleset("zonk"), load_ruleset("zonk", {"target": 3000})]
    venv = BatchedZilchVecEnv(rules, num_envs=16, num_players=2, seed=2, opponent="greedy",
                              potential=RulesPotential([Half(), None]), luck=False)
    env = turn_returns(venv)
    env.reset()
    cuts = {0: 0, 1: 0}
    for _ in range(300):
        rid = venv.games.rule_ids.copy()
        _, _, _, infos = env.step(venv.action_masks().argmax(axis=1))
        for i, info in enumerate(infos):
            if info.get("turn_cut"):
                cuts[int(rid[i])] += 1
        assert (venv.shaped == (venv.games.rule_ids == 0)).all()
    assert cuts[0] > 20 and cuts[1] == 0


def test_teach_any_labels_piggyback_offers_by_the_turn_values():
    """On the pool's other rulesets a piggyback offer is labelled by the rules' turn values (regret 0
    for their choice, --offer-regret for the other); elsewhere, and where no table is solved, by the
    network before teaching."""
    import numpy as np

    from agents.base import kernel_agent
    from train.teach_any import distill
    from zilch_env import NUM_ACTIONS, load_ruleset
    from zilch_env.engine import kernels as K
    from zilch_env.engine import layout as L
    from zilch_env.players.kernel_agents import TableSet
    from zilch_env.engine.observation import _AT
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    class Flat:  # the network before teaching: every legal action alike
        def logits(self, obs):
            return np.zeros((len(obs), NUM_ACTIONS), np.float32)

    rng = np.random.default_rng(0)

    def policy(obs, masks):
        return np.array([rng.choice(np.flatnonzero(m)) for m in masks])

    offer_at = _AT["phase"] + 1
    zonk = load_ruleset("zonk", {"variants.piggyback": True})
    pyramid = load_ruleset("zonk", {"variants.piggyback": True, "variants.pyramiding": True})
    for rs, table in ((zonk, kernel_agent("optimal-turn", zonk).table), (pyramid, None)):
        offers = TableSet([table])
        venv = BatchedZilchVecEnv([rs], num_envs=16, num_players=[2], seed=1, opponent=[offers])
        venv.seed(1)
        d = distill(venv, policy, Flat(), 3000, 1e-3, venv.observation_space.shape[0], offers, 0.01)
        at = d.obs[:, offer_at] == 1
        assert at.sum() > 20
        pair = d.regret[at][:, [L.A_FRESH, L.A_PIGGYBACK]].astype(float)
        if table is None:  # pyramiding: the turn solver does not solve it, the network labels
            assert (pair == 0).all()
        else:
            assert np.allclose(np.sort(pair, axis=1), [0, 0.01], atol=1e-4)
            assert 0 < np.argmin(pair, axis=1).mean() < 1  # offers taken and offers left
        assert (d.regret[~at][:, L.A_PIGGYBACK] == np.inf).all()
        if table is not None:  # the offers alone
            only = distill(venv, policy, Flat(), 200, 1e-3, venv.observation_space.shape[0], offers, 0.01,
                           offers_only=True)
            assert len(only) == 200 and (only.obs[:, offer_at] == 1).all()
            assert np.allclose(np.sort(only.regret[:, [L.A_FRESH, L.A_PIGGYBACK]].astype(float), axis=1), [0, 0.01],
                               atol=1e-4)
    with pytest.raises(ValueError, match="offers_only needs"):
        distill(venv, policy, Flat(), 10, 1e-3, venv.observation_space.shape[0], offers_only=True)
    plain = load_ruleset("zonk")
    venv = BatchedZilchVecEnv([plain], num_envs=4, num_players=[2], seed=1)
    with pytest.raises(ValueError, match="no ruleset of the env has piggyback"):
        distill(venv, policy, Flat(), 10, 1e-3, venv.observation_space.shape[0],
                TableSet([kernel_agent("optimal-turn", plain).table]), 0.01, offers_only=True)


def test_solved_draws_are_two_player_draws_of_the_distribution_the_solver_solves_in_budget():
    from agents.solver.game import solve_size
    from train import teach_any
    from train.held_out import held_out_name
    from zilch_env.rules.distribution import outside_distribution

    draws = teach_any.solved_draws(2, 5e6, seed=2, batch=24)
    assert len({d.ruleset for d in draws}) == 2
    for d in draws:
        assert d.players == 2 and d.overrides and solve_size(d.ruleset)[0] <= 5e6
        assert not outside_distribution(d.ruleset) and held_out_name(d.ruleset) is None
    assert teach_any.solved_draws(2, 5e6, seed=2, batch=24) == draws  # seeded
    with pytest.raises(SystemExit, match="--solved-max-rows"):
        teach_any.solved_draws(3, 1.0, seed=2, batch=8, batches=2)
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--solved-max-rows", "0"])
    with pytest.raises(SystemExit):
        teach_any.parse_args(["--solved-decisions", "0"])

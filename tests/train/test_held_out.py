"""The held-out suite (train/suite/, train.held_out) stays out of training: every ruleset has a rule
value the distribution's sampler never draws (checked from the sampler's own grids, which the sampler
is shown to read), the training scripts refuse its rules, and ``train/generalist_eval.py --suite``
writes its rows as they finish and resumes from them."""

from __future__ import annotations

import csv
import json

import pytest

from zilch_env import PRESETS, load_ruleset
from zilch_env.rules import distribution as dist

from train.held_out import SUITE_DIR, held_out_name, refuse_held_out, suite


def test_the_suite_is_at_least_eight_two_player_rulesets_the_game_solver_solves():
    from agents.solver.game import check_solve_size
    from agents.solver.game_table import check_supported

    rulesets = suite()
    assert len(rulesets) >= 8
    assert len({s.ruleset for s in rulesets}) == len(rulesets)
    readme = (SUITE_DIR / "README.md").read_text()
    for s in rulesets:
        check_supported(s.ruleset)  # two players: no variant the game solver leaves out
        check_solve_size(s.ruleset)
        assert f"`{s.path.name}`" in readme, f"{s.path.name} is not in the suite's README"
    kinds = {s.ruleset.scoring.kinds for s in rulesets}
    assert {"flat", "multiple", "double"} <= kinds


def test_reachable_is_built_from_the_samplers_grids():
    can = dist.reachable()
    bases = [load_ruleset(p) for p in PRESETS]
    assert can["target"] == set(dist.TARGETS) | {b.target for b in bases}
    assert can["min_bank"] == set(dist.MIN_BANKS) | {b.min_bank for b in bases}
    assert set(dist.ENTRY_THRESHOLDS) <= can["entry_threshold"]
    assert max(can["entry_threshold"]) == max([*dist.ENTRY_THRESHOLDS, *(b.entry_threshold for b in bases)])
    assert can["scoring.singles.1"] == set(dist.SINGLE_ONES) | {100}
    assert can["scoring.singles.5"] == set(dist.SINGLE_FIVES) | {50}
    assert can["scoring.straight"] == set(dist.STRAIGHTS) | {b.scoring.straight for b in bases}
    assert can["scoring.three_pairs"] == set(dist.THREE_PAIRS) | {b.scoring.three_pairs for b in bases}
    assert can["scoring.two_triplets"] == set(dist.TWO_TRIPLETS) | {b.scoring.two_triplets for b in bases}
    assert can["scoring.triples.1"] == {1000} | {dist.scaled_triple(1000, f) for f in dist.TRIPLE_FACTORS}
    # the kinds rule is never drawn: only the presets' own kinds and values
    assert can["scoring.kinds"] == {(b.scoring.kinds, tuple(sorted(b.scoring.kind_values.items()))) for b in bases}


def test_the_sampler_draws_from_those_grids(monkeypatch):
    """The sampler reads the module's grids when it draws (so :func:`reachable`, built from them, follows
    any change of them): grids replaced by odd values give draws with exactly those values."""
    monkeypatch.setattr(dist, "TARGETS", (7770,))
    monkeypatch.setattr(dist, "SINGLE_ONES", (330,))
    monkeypatch.setattr(dist, "STRAIGHTS", (3330,))
    draws = dist.sample_rules(40, seed=2)
    preset_targets = {load_ruleset(p).target for p in PRESETS}
    assert {d.ruleset.target for d in draws} <= preset_targets | {7770}
    assert any(d.ruleset.target == 7770 for d in draws)
    assert any(d.ruleset.scoring.singles.get(1) == 330 for d in draws)
    assert any(d.ruleset.scoring.straight == 3330 for d in draws)
    assert not dist.outside_distribution(next(d.ruleset for d in draws if d.ruleset.target == 7770))


def test_every_draw_is_inside_and_every_suite_ruleset_outside():
    for d in dist.sample_rules(40, seed=11):
        assert dist.outside_distribution(d.ruleset) == [], d.label
    for s in suite():
        why = dist.outside_distribution(s.ruleset)
        assert why, f"{s.name}: every value of it is one the distribution draws"
    cheap = next(s for s in suite() if s.name == "cheap-ones")
    assert dist.outside_distribution(cheap.ruleset) == [
        "scoring.singles.1 = 50 (the distribution draws 100, 150, 200)"]


def test_the_training_scripts_refuse_the_suite(tmp_path, monkeypatch):
    s = next(x for x in suite() if x.name == "zonk-7500")
    same = load_ruleset("zonk", {"target": 7500})  # the same rules under another name
    assert held_out_name(same) == "zonk-7500" and held_out_name(load_ruleset("zonk")) is None
    with pytest.raises(SystemExit, match="held-out suite's 'zonk-7500'"):
        refuse_held_out(same, "--ruleset")
    refuse_held_out(load_ruleset("zonk", {"target": 8000}))  # a target of the distribution: allowed

    from train import generalist, ppo, teach

    with pytest.raises(SystemExit, match="held out of training"):
        ppo.main(["--ruleset", str(s.path), "--timesteps", "64", "--out", str(tmp_path / "o"),
                  "--runs", str(tmp_path / "r"), "--no-progress"])
    with pytest.raises(SystemExit, match="held out of training"):
        ppo.main(["--ruleset", "zonk", "--set", "target=7500", "--timesteps", "64", "--out", str(tmp_path / "o"),
                  "--runs", str(tmp_path / "r"), "--no-progress"])
    with pytest.raises(SystemExit, match="--eval-ruleset .* held out of training"):
        ppo.main(["--ruleset", "any", "--eval-ruleset", str(s.path), "--timesteps", "64", "--out",
                  str(tmp_path / "o"), "--runs", str(tmp_path / "r"), "--no-progress"])
    with pytest.raises(SystemExit, match="held out of training"):
        teach.TeachCourse(teach.parse_args(["--init", str(tmp_path), "--ruleset", str(s.path)]))
    # the pool of --ruleset any: never a suite ruleset (the tests above); were it one, refused
    monkeypatch.setattr(generalist, "sample_rules",
                        lambda n, seed=None: [dist.RulesDraw(s.ruleset, 2, "zonk", {"target": 7500})])
    monkeypatch.setattr(generalist, "_DRAWS", {})
    args = ppo.parse_args(["--ruleset", "any", "--rules-pool", "1", "--no-progress"])
    with pytest.raises(SystemExit, match="held out of training"):
        generalist.pool_draws(args)


def test_the_suite_evaluation_writes_each_row_and_resumes(tmp_path, monkeypatch):
    from train import generalist_eval, suite_eval

    played = []

    def fake_row(agent, row, games, seed, solo_turns, workers, progress):
        played.append(row.name)
        if row.name == "flat-kinds" and len(played) == 2:
            raise KeyboardInterrupt  # stopped during the second ruleset
        share = {"mean": 0.49, "low": 0.48, "high": 0.5}
        return {"name": row.name, "kind": row.kind, "what": row.what, "agent": agent, "games": games,
                "seed": seed, "solo_turns": solo_turns, "games_played": games, "deals": games // 2,
                "first_player_win": 0.53, "share": share, "raw_share": share, "luck_sd_reduction": 9.0,
                "regret_per_game": {"mean": 0.01, "low": 0.0, "high": 0.02},
                "points_per_turn": {"mean": 500.0, "low": 490.0, "high": 510.0}, "turn_optimum": 510.0,
                "of_optimum": {"mean": 0.98, "low": 0.96, "high": 1.0}, "seconds": 1.0}

    folder = tmp_path / "suite"
    folder.mkdir()
    for name in ("cheap-ones", "flat-kinds"):
        (folder / f"{name}.toml").write_text((SUITE_DIR / f"{name}.toml").read_text())
    monkeypatch.setattr(suite_eval, "eval_row", fake_row)
    results, doc = tmp_path / "suite.json", tmp_path / "bench.md"
    doc.write_text("# Benchmarks\n")
    argv = ["--suite", "--suite-dir", str(folder), "--games", "10", "--solo-turns", "50", "--results",
            str(results), "--write", str(doc), "--no-progress"]
    with pytest.raises(KeyboardInterrupt):
        generalist_eval.main(argv)
    assert [r["name"] for r in json.loads(results.read_text())["rows"]] == ["cheap-ones"]
    assert generalist_eval.main(argv) == 0
    assert played == ["cheap-ones", "flat-kinds", "flat-kinds"]  # the first row kept, not played again
    rows = json.loads(results.read_text())["rows"]
    assert [r["name"] for r in rows] == ["cheap-ones", "flat-kinds"]
    table = list(csv.DictReader(results.with_suffix(".csv").read_text().splitlines()))
    assert [(r["name"], r["what"], r["share"]) for r in table] == [
        ("cheap-ones", "the singles cheaper, a one worth 50 like a five", "0.49000"),
        ("flat-kinds", "flat four, five and six of a kind at 1500, 2500 and 4000 whatever the face, on zonk", "0.49000")]
    text = doc.read_text()
    assert suite_eval.SUITE_START in text and "| `flat-kinds` | flat four" in text and "49.00 [48.00, 50.00]" in text
    assert generalist_eval.main([*argv[:4], "12", *argv[5:]]) == 0  # other games: played again
    assert played[3:] == ["cheap-ones", "flat-kinds"]
    assert text.count(suite_eval.SUITE_START) == doc.read_text().count(suite_eval.SUITE_START) == 1
    with pytest.raises(SystemExit):
        generalist_eval.main(["--suite-presets"])


def test_suite_regret_splits_the_regret_and_perfect_play_has_none(capsys):
    """bench/suite_regret.py: optimal-win against itself gives up nothing; an agent's split adds up."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "suite_regret.py"
    spec = importlib.util.spec_from_file_location("suite_regret", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--ruleset", "zilch5k", "--agent", "optimal-win", "--games", "2"]) == 0
    assert "regret per game 0.000 points" in capsys.readouterr().out
    assert mod.main(["--ruleset", "zilch5k", "--agent", "greedy", "--games", "2", "--top", "2"]) == 0
    out = capsys.readouterr().out
    total = float(out.split("regret per game ")[1].split()[0])
    rows = [line.split("|") for line in out.splitlines() if line.startswith("| ") and "%" in line]
    assert total > 0 and rows
    assert sum(float(r[4]) for r in rows) == pytest.approx(total, abs=0.002 * len(rows))

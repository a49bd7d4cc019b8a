"""The evaluation module: its statistics on synthetic data with known answers, common random
numbers, worker-independent results, and the command line end to end."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.evaluate import stats
from agents.evaluate.config import CHUNK_DEALS
from agents.evaluate import (DealCodes, DealDice, _merge_solo, deal_game, deal_key, evaluate, main,
                             seat_orders, seat_rng)
from zilch_env import GreedyMover, RandomDice, RandomMover


# --------------------------------------------------------------------------------------------
# Statistics with known answers


@pytest.mark.parametrize("k, n, low, high", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3
    # (the Wilson score interval without continuity correction), to the 4 decimals printed there.
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_known_values(k, n, low, high):
    lo, hi = stats.wilson(k, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_wilson_closed_forms():
    """0 of n: the upper end is z^2 / (n + z^2); half of n: symmetric about 1/2."""
    z2 = stats.Z95 ** 2
    assert stats.wilson(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    lo, hi = stats.wilson(5, 10)
    assert lo + hi == pytest.approx(1.0)
    assert hi - lo == pytest.approx(2 * stats.Z95 / (1 + z2 / 10) * math.sqrt(0.25 / 10 + z2 / 400))


def test_wilson_edges_and_errors():
    assert stats.wilson(0, 0) == (0.0, 1.0)
    assert stats.wilson(0, 5)[0] == 0.0 and stats.wilson(5, 5)[1] == 1.0
    with pytest.raises(ValueError):
        stats.wilson(6, 5)


def test_wilson_covers_at_nominal_rate():
    """Over many binomial samples the 95% interval holds the true p about 95% of the time."""
    rng = np.random.default_rng(0)
    p, n = 0.3, 200
    hits = sum(lo <= p <= hi for lo, hi in (stats.wilson(int(k), n) for k in rng.binomial(n, p, 4000)))
    assert 0.93 < hits / 4000 < 0.97


def test_bradley_terry_recovers_exact_odds():
    """Results that fit Bradley-Terry exactly: A beats B 3:1, B beats C 3:1, so A beats C 9:1.
    The MLE gives 400*log10(3) = 190.85 Elo per step."""
    w = np.array([[0, 750, 900], [250, 0, 750], [100, 250, 0]], float)
    r = stats.bradley_terry(w, prior_draws=0)
    step = 400 * math.log10(3)
    assert r.rating == pytest.approx([1500 + step, 1500, 1500 - step], abs=1e-6)
    anchored = stats.bradley_terry(w, prior_draws=0, anchor=2)
    assert anchored.rating == pytest.approx([2 * step, step, 0], abs=1e-6)
    assert anchored.stderr[2] == 0 and (anchored.stderr[:2] > 0).all()


def test_bradley_terry_two_players_and_draws():
    """Two players: the rating gap is the logit of the score rate; a draw is half a win each."""
    # 60 wins, 20 draws, 20 losses for the first player: it scores 60 + 20/2 = 70 of 100.
    w = np.array([[0.0, 60 + 20 / 2], [20 + 20 / 2, 0.0]])
    r = stats.bradley_terry(w, prior_draws=0)
    assert r.rating[0] - r.rating[1] == pytest.approx(400 * math.log10(70 / 30), abs=1e-6)
    # Standard error of a logit from n = 100 games at p = 0.7: 1/sqrt(n p (1-p)) natural units.
    se_gap = stats.ELO / math.sqrt(100 * 0.7 * 0.3)
    assert r.stderr[0] == pytest.approx(se_gap / 2, rel=1e-6)  # each rating carries half the gap (mean anchor)
    assert stats.expected_score(r.rating[0], r.rating[1]) == pytest.approx(0.7)


def test_bradley_terry_undefeated_stays_finite():
    w = np.array([[0, 1000], [0, 0]], float)
    r = stats.bradley_terry(w)  # one virtual draw
    assert np.isfinite(r.rating).all()
    assert r.rating[0] - r.rating[1] == pytest.approx(400 * math.log10(1000.5 / 0.5), abs=1e-6)


def test_design_effect_and_clustered_wilson():
    rng = np.random.default_rng(1)
    independent = rng.integers(0, 2, size=(4000, 2))
    assert stats.design_effect(independent) == pytest.approx(1.0, abs=0.08)
    repeated = np.repeat(rng.integers(0, 2, size=(500, 1)), 2, axis=1)  # each deal the same twice
    assert stats.design_effect(repeated) == pytest.approx(2.0, rel=0.01)
    opposed = np.column_stack([a := rng.integers(0, 2, 500), 1 - a])  # copies of one agent: exactly 1/2
    assert stats.design_effect(opposed) == pytest.approx(0.0, abs=1e-12)
    # Clustered Wilson: Wilson's interval when deff <= 1, Wilson's on n / deff trials above.
    rate, lo, hi, deff = stats.clustered_wilson(opposed)
    assert rate == 0.5 and (lo, hi) == stats.wilson(500, 1000)
    # With a lower floor the interval narrows as far as the clusters cancel (here: all the way).
    assert stats.clustered_wilson(opposed, min_deff=1e-6)[2] - 0.5 < 1e-3
    k = int(repeated.sum())
    rate, lo, hi, deff = stats.clustered_wilson(repeated)
    assert (lo, hi) == pytest.approx(stats.wilson(k / deff, 1000 / deff))
    assert hi - lo > np.subtract(*stats.wilson(k, 1000)[::-1])


def test_ratio_mean_plain_clt_and_clusters():
    x = np.array([0, 300, 600, 0, 450, 250], float)
    rm = stats.ratio_mean(x, np.ones_like(x))  # one turn per game: the plain CLT interval
    assert rm.mean == pytest.approx(x.mean())
    assert rm.stderr == pytest.approx(x.std(ddof=1) / math.sqrt(len(x)))
    assert rm.low == pytest.approx(x.mean() - stats.Z95 * rm.stderr)
    # Two games of 3 turns with sums 900 and 700: mean 1600/6; residuals 900-800 and 700-800.
    rm2 = stats.ratio_mean([900, 700], [3, 3])
    assert rm2.mean == pytest.approx(1600 / 6)
    assert rm2.stderr == pytest.approx(math.sqrt(2 * (100 ** 2 + 100 ** 2)) / 6)
    assert rm2.scaled(2.0).mean == pytest.approx(800 / 6)


def test_merge_solo_keeps_exactly_the_first_turns():
    parts = [{"points": np.array([1, 2, 3, 4, 5]), "turns": np.array([2, 0, 3]), "zilches": np.array([1, 0, 2])},
             {"points": np.array([6, 7]), "turns": np.array([2]), "zilches": np.array([0])}]
    m = _merge_solo(parts, 4)
    assert m["turns"].tolist() == [2, 0, 2]
    assert m["points"].tolist() == [3, 0, 7]
    assert m["turn_points"].tolist() == [1, 2, 3, 4]


# --------------------------------------------------------------------------------------------
# Seating and common random numbers


def test_seat_orders():
    assert seat_orders(2) == [(0, 1), (1, 0)] == seat_orders(2, "permutations")
    assert seat_orders(3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert len(seat_orders(4, "permutations")) == 24
    with pytest.raises(ValueError, match="rotations"):
        seat_orders(3, "shuffled")


@pytest.mark.parametrize("ruleset, players", [("zonk", 2), ("farkle", 3), ("zilch", 2),
                                              ("zonk", 4)])
def test_deal_dice_are_the_batched_engines_slot_dice(ruleset, players):
    """DealDice deals, roll for roll, what zilch_env.engine.batched.KeyedSlotDice deals with the same key
    (so a table plays the same deals in either engine), including games whose first rolls zilch
    while the game is being built, and turns longer than a page holds."""
    from zilch_env import load_ruleset
    from zilch_env.engine.batched import slot_game

    rs = load_ruleset(ruleset)
    agents = [RandomMover(), GreedyMover(1000)]
    built_zilch = 0
    for k in range(150):
        key = deal_key(5, k)
        g = deal_game(rs, players, DealCodes(key, players))
        rng = np.random.default_rng(k)
        while g.winners is None:
            g.apply(agents[g.current % 2].act(g, g.legal_actions(), rng))
        ref = slot_game(rs, players, key)
        for a in g.actions:
            ref.apply(a)
        assert ref.rolls == g.rolls and ref.scores == g.scores
        built_zilch += g.turns[0]["turn_total"] == 0 and not g.turns[0]["banked"]
    assert built_zilch > 0  # the zilch rule while the game is built was exercised


def test_deal_dice_long_turns_match_the_batched_engine():
    """Turns of up to 30 rolls (past the rolls a page holds) of several seats, slot by slot."""
    from zilch_env.engine.batched import KeyedSlotDice

    key = deal_key(3, 9)
    ours, theirs = DealDice(DealCodes(key, 3)), KeyedSlotDice(key)
    turns = [0, 0, 0]
    for seat, rolls in [(0, 30), (1, 2), (2, 9), (0, 1), (1, 12)]:
        got = [ours.roll_slot(6 - i % 6, seat, turns[seat], i) for i in range(rolls)]
        assert got == [theirs.roll_slot(6 - i % 6, seat, turns[seat], i) for i in range(rolls)]
        turns[seat] += 1


def test_deal_codes_pages_match_single_slots():
    c = DealCodes(deal_key(1, 2), 3)
    P, R = DealCodes.PAGE_TURNS, DealCodes.SLOT_ROLLS
    for s, t, r in [(0, 0, 0), (2, 5, 7), (1, 17, 3), (2, 40, 0)]:
        assert c.page(t // P)[(s * P + t % P) * R + r] == c.code(s, t, r)
    import copy

    dice = DealDice(c)
    assert type(copy.deepcopy(dice)) is RandomDice  # a clone gets fresh dice, not the deal's


def test_seat_rngs():
    assert seat_rng(7, 3, 0).integers(1 << 30) == seat_rng(7, 3, 0).integers(1 << 30)
    assert seat_rng(7, 3, 0).integers(1 << 30) != seat_rng(7, 3, 1).integers(1 << 30)


def test_common_dice_cancel_luck():
    """Measured, not assumed: an agent's results in the two seat orders of a deal pull against each
    other (design effect below 1), and the reported intervals are never narrower than Wilson's."""
    # luck="off": these are the raw results, the same game for game with the adjustment on (zonk's table
    # is shipped; the adjustment only adds its own columns) and over ten times quicker without it.
    r = evaluate(agents=["heuristic", "greedy"], ruleset="zonk", games=600, seed=2, workers=1, solo_turns=0,
                 luck="off")
    row = r.data["tables"][0]["results"][0]
    assert r.data["tables"][0]["engine"] == "single"  # the single-game engine's deals, as with the adjustment
    assert row["win"]["design_effect"] < 0.9
    assert (row["win"]["low"], row["win"]["high"]) == pytest.approx(stats.wilson(row["wins"], 600))
    # The share's interval over the deals keeps the cancelled luck: narrower than Wilson's.
    share = row["score_share"]
    assert share["design_effect"] < 0.9
    assert share["high"] - share["low"] < 0.95 * (row["win"]["high"] - row["win"]["low"])


@pytest.mark.parametrize("agent", ["greedy", "random", "heuristic", GreedyMover(350)])
def test_two_copies_of_one_agent_tie_exactly(agent):
    """The same dice and the same decision stream per seat: copies win exactly as often as each other,
    score the same, and every statistic matches."""
    r = evaluate(agents=[agent, agent], ruleset="zonk", games=60, seed=3, workers=1, solo_turns=0)
    a, b = r.data["tables"][0]["results"]
    assert a["agent"] != b["agent"]  # labelled apart: "random" and "random#2"
    for key in ("wins", "draws", "losses", "mean_score", "points_per_turn", "zilch_rate"):
        assert a[key] == b[key], key
    assert a["score_share"]["rate"] == b["score_share"]["rate"] == 0.5
    assert a["score_share"]["design_effect"] == 0.0  # every deal splits exactly: no luck left at all
    assert a["wins"] + a["draws"] > 0
    rating = [x["rating"] for x in r.data["ratings"]["agents"]]
    assert rating[0] == pytest.approx(rating[1])


def test_two_copies_tie_at_three_player_tables():
    """With rotations each copy sits in every seat but always in the same cyclic order relative to
    the third agent; with all permutations of the seats the copies mirror each other exactly."""
    r = evaluate(agents=["random", "greedy", "random"], ruleset="zonk", games=30, seed=5,
                 workers=1, players=3, orders="permutations", solo_turns=0)
    res = {x["agent"]: x for x in r.data["tables"][0]["results"]}
    assert r.data["tables"][0]["games"] == 30
    assert res["random"]["wins"] == res["random#2"]["wins"]
    assert res["random"]["mean_score"] == res["random#2"]["mean_score"]


@pytest.mark.parametrize("ruleset", ["zonk", "farkle"])
def test_solo_measure_of_the_turn_optimum_is_one(ruleset):
    """The exact turn optimum played from the board scores its own expected points per turn: the
    interval of the ratio holds 1 (farkle: with the zilch-streak penalty counted), while greedy's
    lies below it."""
    r = evaluate(agents=["optimal-turn", "greedy"], ruleset=ruleset, games=2, seed=4, workers=1, solo_turns=6000)
    opt, greedy = r.data["solo"]["agents"]
    assert r.data["solo"]["optimum"] > 500
    assert opt["ratio"]["low"] < 1.0 < opt["ratio"]["high"]
    assert greedy["ratio"]["high"] < 0.95
    assert opt["points_per_turn"]["turns"] == 6000


def test_solo_ruleset_turns_off_interaction_variants():
    from agents.evaluate import solo_ruleset
    from zilch_env import load_ruleset

    rs = load_ruleset("zonk", {"variants.piggyback": True, "variants.overcoming": True, "target": 5000})
    solo = solo_ruleset(rs)
    assert not solo.variants.piggyback and not solo.variants.overcoming and solo.target == 5000
    plain = load_ruleset("zonk")
    assert solo_ruleset(plain) is plain


class NeedsOpponents(GreedyMover):
    """Plays like greedy but refuses one-player games (as an agent built for opponents might)."""

    def act(self, state, legal, rng):
        if state.num_players == 1:
            raise ValueError("this agent needs an opponent")
        return super().act(state, legal, rng)


def test_solo_measure_failure_is_reported_not_fatal():
    r = evaluate(agents=[NeedsOpponents(), RandomMover()], ruleset="zonk", games=4, seed=0, workers=1,
                 solo_turns=100)
    assert r.data["tables"][0]["games"] == 4
    bad, good = r.data["solo"]["agents"]
    assert "needs an opponent" in bad["error"] and "points_per_turn" not in bad
    assert good["points_per_turn"]["turns"] == 100
    assert "no solo measure" in r.markdown()


# --------------------------------------------------------------------------------------------
# The two engines


@pytest.mark.parametrize("players, orders", [(2, "rotations"), (3, "permutations")])
def test_greedy_tables_are_the_same_on_both_engines(players, orders):
    """Same deals, same seat orders, same moves: the batched engine's tables equal the single-game
    engine's, number for number, for agents it plays exactly (agents.baselines greedy players and
    zilch_env's GreedyMover, which also banks for lack of dice). (The luck adjustment, which would
    send farkle's two-player tables to the single-game engine, is off.)"""
    kw = dict(agents=["greedy", "greedy:500", GreedyMover(400)], ruleset="farkle", games=120, seed=7,
              workers=1, solo_turns=0, players=players, orders=orders, luck="off")
    auto, single = evaluate(engine="auto", **kw), evaluate(engine="single", **kw)
    assert {t["engine"] for t in auto.data["tables"]} == {"batched"}
    assert {t["engine"] for t in single.data["tables"]} == {"single"}
    strip = lambda r: [{k: v for k, v in t.items() if k != "engine"} for t in r.data["tables"]]  # noqa: E731
    assert strip(auto) == strip(single)


def test_kernel_agents_and_random_copies_on_the_batched_engine():
    from agents.base import make_agent
    from agents.evaluate import _kernel_or_none as kernel_agent
    from zilch_env import load_ruleset

    rs = load_ruleset("zonk")
    assert kernel_agent(make_agent("random", rs)).kind == "random"
    assert (kernel_agent(make_agent("greedy:450", rs)).threshold, kernel_agent(make_agent("greedy", rs)).min_dice) == (450, 0)
    assert kernel_agent(make_agent("greedy-table", rs)) is None  # thresholds by dice: not in the kernels
    assert kernel_agent(make_agent("heuristic", rs)) is None
    assert kernel_agent(NeedsOpponents()) is None  # a GreedyMover with its own act
    r = evaluate(agents=["random", "random"], ruleset="zonk", games=200, seed=1, workers=1, solo_turns=0,
                 luck="off")
    a, b = r.data["tables"][0]["results"]
    assert r.data["tables"][0]["engine"] == "batched"
    assert (a["wins"], a["mean_score"]) == (b["wins"], b["mean_score"])
    # Every variant plays on the batched engine, with the same results as on the single-game engine.
    pig = load_ruleset("zonk", {"variants.piggyback": True, "variants.challenge": True, "variants.pyramiding": True})
    r = evaluate(agents=["greedy", "greedy:500"], ruleset=pig, games=40, seed=1, workers=1, solo_turns=0)
    s = evaluate(agents=["greedy", "greedy:500"], ruleset=pig, games=40, seed=1, workers=1, solo_turns=0,
                 engine="single")
    assert r.data["tables"][0]["engine"] == "batched" and s.data["tables"][0]["engine"] == "single"
    assert r.data["tables"][0]["results"] == s.data["tables"][0]["results"]


# --------------------------------------------------------------------------------------------
# Workers


#: Games of two seat orders that make two chunks of deals of each single-engine table (CHUNK_DEALS deals
#: and 1), which either worker may play and which are reduced in deal order.
TWO_CHUNKS = 2 * (CHUNK_DEALS + 1)


def test_results_identical_with_one_and_two_workers():
    # the heuristic's tables luck-adjusted (zonk's game table is shipped), greedy:600 against random batched
    kw = dict(agents=["heuristic", "greedy:600", "random"], ruleset="zonk", games=TWO_CHUNKS, seed=11,
              solo_turns=300)
    one = evaluate(workers=1, **kw)
    two = evaluate(workers=2, **kw)
    assert json.dumps(one.results(), sort_keys=True) == json.dumps(two.results(), sort_keys=True)
    assert one.data["timing"]["workers"] == 1 and two.data["timing"]["workers"] == 2
    other = evaluate(workers=1, **{**kw, "seed": 12})
    assert json.dumps(other.results(), sort_keys=True) != json.dumps(one.results(), sort_keys=True)


def test_games_round_up_to_whole_deals_and_counts_add_up():
    r = evaluate(agents=["greedy", "random"], ruleset="zonk", games=7, seed=0, workers=1, solo_turns=0)
    t = r.data["tables"][0]
    assert t["deals"] == 4 and t["games"] == 8
    for x in t["results"]:
        assert x["wins"] + x["draws"] + x["losses"] == 8
    assert sum(t["seat_score_share"]) == pytest.approx(1.0)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="players"):
        evaluate(agents=[GreedyMover(), RandomMover()], players=1, workers=1)
    with pytest.raises(ValueError, match="at least 3 agents"):
        evaluate(agents=[GreedyMover(), RandomMover()], players=3, workers=1)
    with pytest.raises(ValueError, match="games"):
        evaluate(agents=[GreedyMover(), RandomMover()], games=0, workers=1)
    from agents.base import AgentSpecError

    with pytest.raises(AgentSpecError, match="no-such-agent"):
        evaluate(agents=["no-such-agent", RandomMover()], games=2, workers=1)


# --------------------------------------------------------------------------------------------
# The command line


def test_cli_end_to_end(tmp_path, capsys):
    out = tmp_path / "rep"
    specs = _baseline_specs()
    rc = main(["--ruleset", "zonk", "--set", "target=3000", "--agents", *specs, "--games", "20",
               "--seed", "2", "--workers", "1", "--solo-turns", "200", "--quiet", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "win %" in text and "ratings" in text
    for name in ("report.md", "report.json", "winrate_matrix.png", "score_distributions.png",
                 "points_per_turn.png"):
        assert (out / name).stat().st_size > 0, name
    data = json.loads((out / "report.json").read_text())
    assert data["ruleset"]["target"] == 3000
    assert data["tables"][0]["games"] == 20
    assert (out / "report.md").read_text().count("![") == 3


def test_cli_errors(capsys):
    assert main(["--agents", "nobody", "random", "--quiet", "--workers", "1"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert main(["--ruleset", "zonk", "--set", "nokey=1", "--agents", "random", "random"]) == 2
    assert "nokey" in capsys.readouterr().err


def test_zilch_eval_subcommand(tmp_path, capsys):
    from zilch_cli import main as zilch_main

    rc = zilch_main(["eval", "--ruleset", "zonk", "--agents", *_baseline_specs(), "--games", "10",
                     "--workers", "1", "--solo-turns", "0", "--quiet", "--out", str(tmp_path), "--no-plots"])
    assert rc == 0
    assert json.loads((tmp_path / "report.json").read_text())["config"]["solo_turns"] == 0


def _baseline_specs() -> list[str]:
    return ["greedy", "random"]


# --------------------------------------------------------------------------------------------
# Luck-adjusted results


@pytest.fixture
def shipped_tables_only(tmp_path, monkeypatch):
    """Game tables from the package only (agents/solver/game_tables), never this machine's cache: the
    tests see the tables CI sees. Worker processes inherit the variable."""
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path / "empty-cache"))


def test_t95_and_cluster_mean():
    # Student's t 0.975 quantiles (tables) and the normal limit.
    for df, t in [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (10, 2.2281), (20, 2.0860),
                  (60, 2.0003), (1000, 1.9623)]:
        assert stats.t95(df) == pytest.approx(t, abs=1e-4), df
    x = np.array([[0.2, 0.4], [0.9, 1.1], [-0.1, 0.5]])  # deal means 0.3, 1.0, 0.2
    cm = stats.cluster_mean(x)
    se = np.std([0.3, 1.0, 0.2], ddof=1) / math.sqrt(3)
    assert (cm.mean, cm.stderr, cm.clusters) == (pytest.approx(0.5), pytest.approx(se), 3)
    assert cm.high - cm.mean == pytest.approx(stats.t95(2) * se)
    assert math.isnan(stats.cluster_mean(x[:1]).low)


def test_luck_adjustment_is_unbiased_and_narrows_the_interval(shipped_tables_only):
    """Two different agents over 400 games: the adjusted share agrees with the raw one (the luck
    has mean 0 whatever the agents do), with a much narrower interval; the seats' adjusted shares
    add up to one."""
    r = evaluate(agents=["heuristic", "greedy"], ruleset="zilch5k", games=400, seed=1, workers=1, solo_turns=0)
    assert r.data["config"]["luck"] == {"mode": "auto", "on": True, "why_off": None}
    assert r.data["tables"][0]["engine"] == "single"
    a, b = r.data["tables"][0]["results"]
    raw, adj = a["score_share"], a["luck_adjusted"]
    assert raw["low"] <= adj["mean"] <= raw["high"]
    assert adj["high"] - adj["low"] < 0.5 * (raw["high"] - raw["low"])
    assert a["luck_sd_reduction"] > 2 and a["luck_sd_reduction"] == pytest.approx(b["luck_sd_reduction"])
    assert a["luck_adjusted"]["mean"] + b["luck_adjusted"]["mean"] == pytest.approx(1.0)
    assert adj["deals"] == 200
    md = r.markdown()
    assert "luck-adjusted share [95% CI]" in md and f"{100 * adj['mean']:.1f} [" in md
    assert json.loads(r.to_json())["tables"][0]["results"][0]["luck_adjusted"] == adj


def test_optimal_play_against_itself_has_no_regret(shipped_tables_only):
    """optimal-win against itself: every move's value is the best there, so each game's adjusted
    result is exactly the start value (the first player's chance for seat 0), whatever the dice
    did, and every deal's adjusted share exactly 1/2."""
    from agents.evaluate import _Context, _play_table_chunk
    from agents.solver.game import load_game_table
    from zilch_env import load_ruleset

    rs = load_ruleset("zilch")
    fpw = load_game_table(rs).first_player_win
    ctx = _Context(rs, ["optimal-win", "optimal-win"], seed=3)
    out = _play_table_chunk(ctx, (0, 1), seat_orders(2), 0, 12, luck=True)
    adjusted = out["result"] - out["luck"]
    seat0 = np.where(out["seat"] == 0, adjusted, 1.0 - adjusted)  # seat 0's adjusted result
    assert np.abs(seat0 - fpw).max() < 1e-6
    assert np.abs(out["luck"]).max() > 0.1  # the dice did matter
    assert set(out["result"].ravel()) <= {0.0, 0.5, 1.0}
    r = evaluate(agents=["optimal-win", "optimal-win"], ruleset="zilch", games=16, seed=3, workers=1,
                 solo_turns=0, luck="on")
    for row in r.data["tables"][0]["results"]:
        assert row["luck_adjusted"]["mean"] == pytest.approx(0.5, abs=1e-6)
        assert row["luck_adjusted"]["high"] - row["luck_adjusted"]["low"] < 1e-5


def test_luck_on_refuses_clearly_and_auto_steps_aside(shipped_tables_only, capsys):
    from zilch_env import load_ruleset

    kw = dict(games=4, seed=0, workers=1, solo_turns=0, luck="on")
    with pytest.raises(ValueError, match="two-player games.*not 3 players"):
        evaluate(agents=["greedy", "random", "heuristic"], players=3, ruleset="zilch5k", **kw)
    no_table = load_ruleset("zilch5k", {"target": 3000})
    with pytest.raises(ValueError, match=r"`zilch solve --ruleset zilch5k --objective win`"):
        evaluate(agents=["greedy", "random"], ruleset=no_table, **kw)
    with pytest.raises(ValueError, match="piggyback"):
        evaluate(agents=["greedy", "random"], ruleset=load_ruleset("zilch5k", {"variants.piggyback": True}), **kw)
    with pytest.raises(ValueError, match="luck = 'sometimes'"):
        evaluate(agents=["greedy", "random"], ruleset="zilch5k", **{**kw, "luck": "sometimes"})
    # auto: off where it cannot be on, and the report says why; off: off (and the batched engine).
    r = evaluate(agents=["greedy", "random"], ruleset=no_table, **{**kw, "luck": "auto"})
    assert not r.data["config"]["luck"]["on"] and "zilch solve" in r.data["config"]["luck"]["why_off"]
    assert r.data["tables"][0]["results"][0]["luck_adjusted"] is None
    assert "No luck-adjusted results: no game table is stored" in r.markdown()
    r = evaluate(agents=["greedy", "random"], ruleset="zilch5k", **{**kw, "luck": "off"})
    assert r.data["tables"][0]["engine"] == "batched" and r.data["tables"][0]["results"][0]["luck_sd_reduction"] is None
    # auto with a table: the tables the batched engine plays stay there, unadjusted; the others are adjusted.
    r = evaluate(agents=["greedy", "random", "heuristic"], ruleset="zilch5k", **{**kw, "luck": "auto"})
    by = {tuple(t["agents"]): t for t in r.data["tables"]}
    assert by[("greedy", "random")]["engine"] == "batched"
    assert by[("greedy", "random")]["results"][0]["luck_adjusted"] is None
    for pair in (("greedy", "heuristic"), ("random", "heuristic")):
        assert by[pair]["engine"] == "single" and by[pair]["results"][0]["luck_adjusted"] is not None
    assert r.data["config"]["luck"]["on"]
    # on: every table adjusted, on the single-game engine
    r = evaluate(agents=["greedy", "random"], ruleset="zilch5k", **kw)
    assert r.data["tables"][0]["engine"] == "single" and r.data["tables"][0]["results"][0]["luck_adjusted"] is not None
    # The command line names the problem.
    assert main(["--ruleset", "zilch5k", "--agents", "greedy", "random", "heuristic", "--players", "3",
                 "--luck", "on", "--games", "3", "--workers", "1", "--solo-turns", "0", "--quiet"]) == 2
    assert "luck = 'on' is impossible here: luck adjustment needs two-player games" in capsys.readouterr().err


def test_luck_adjusted_results_identical_with_one_and_two_workers(shipped_tables_only):
    kw = dict(agents=["heuristic", "greedy", "random"], ruleset="zilch5k", games=TWO_CHUNKS, seed=4, solo_turns=0,
              luck="on")
    one, two = evaluate(workers=1, **kw), evaluate(workers=2, **kw)
    assert one.data["tables"][0]["results"][0]["luck_adjusted"] is not None
    assert json.dumps(one.results(), sort_keys=True) == json.dumps(two.results(), sort_keys=True)


def test_luck_table_kept_between_evaluations_changes_nothing(shipped_tables_only):
    """The luck table stays loaded between in-process evaluations (train/ppo.py's periodic ones),
    its solved turns cached: a second evaluation over other deals first, then the first again, gives
    the first's numbers exactly."""
    import agents.evaluate as ev

    ev._LUCK_TABLES.clear()
    kw = dict(agents=["heuristic", "greedy"], ruleset="zilch5k", games=40, solo_turns=0, luck="on", workers=1)
    first = evaluate(seed=4, **kw)
    (table,) = ev._LUCK_TABLES.values()
    solved = len(table._cache)
    assert solved > 0
    evaluate(seed=5, **kw)
    assert ev._LUCK_TABLES[next(iter(ev._LUCK_TABLES))] is table and len(table._cache) > solved
    again = evaluate(seed=4, **kw)
    assert json.dumps(first.results(), sort_keys=True) == json.dumps(again.results(), sort_keys=True)


@pytest.mark.parametrize("preset, overrides", [
    # tie-break turns and forced hot dice
    ("zilch15k", {"target": 500}),
    # finish_round, the entry threshold, a subtracted zilch penalty and the six-dice bonus
    ("farkle", {"target": 700, "entry_threshold": 300, "variants.six_dice_zilch_bonus": 500}),
])
def test_luck_has_mean_zero_under_every_game_flow(preset, overrides, tmp_path, monkeypatch):
    """The luck terms have mean 0 only if every step of the game is valued as the table expects
    (Q(s, a) = E[V(next decision)]): the last turns after the target, the second player's turn of
    finish_round, tie-break rounds, zilch streaks and penalties, bonus rolls, forced hot dice. On
    small rules with all of these (tables solved here in seconds), the mean luck of 500 deals is
    within 4 standard errors of 0 for agents far from optimal play and for optimal-win itself."""
    from agents.base import make_agent
    from agents.evaluate import _Context, _play_table_chunk, luck_table
    from agents.solver.game import OptimalWinAgent, solve_game
    from zilch_env import load_ruleset

    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    rs = load_ruleset(preset, overrides)
    solve_game(rs, progress=False, threads=1)  # stored in tmp_path, where the evaluation finds it
    # The evaluation's table, loaded from there; optimal-win plays from the same object, so a turn both
    # the adjustment and the agent need is solved once (each value is solved at its stable cap and does
    # not depend on which turns were solved before: the games and their luck are those separate copies
    # of the table give).
    table, why = luck_table(rs, 2)
    assert table is not None, why
    for pair in (["greedy", "random"], ["heuristic", "optimal-win"]):
        agents = [OptimalWinAgent(rs, table) if s == "optimal-win" else make_agent(s, rs) for s in pair]
        out = _play_table_chunk(_Context(rs, pair, seed=2, agents=agents, luck=table), (0, 1), seat_orders(2), 0,
                                500, luck=True)
        per_deal = out["luck"][:, 0].reshape(-1, 2).mean(axis=1)
        se = per_deal.std(ddof=1) / math.sqrt(len(per_deal))
        assert abs(per_deal.mean()) < 4 * se, (pair, per_deal.mean(), se)
        assert se > 0

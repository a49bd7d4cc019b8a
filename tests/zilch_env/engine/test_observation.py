"""The observation layout (``zilch_env.engine.observation``): layout 1's 151 values, then per keep mask
layout 2's ``keep_points`` and ``keep_dice`` and layout 3's ``keep_lead``, ``keep_ahead`` and
``keep_target``.

The keep fields must equal a direct computation from ``state.keeps()`` and the scores (every variant,
pyramiding included), stay in bounds, be zero outside the keep phase, describe the player to move
whatever the observing seat, and leave each earlier layout's values meaning what they meant; policies
of layout 1 (tests/data/layout1-zonk) must keep playing from that prefix. The batched engine's encoder
is checked against ``observe`` in tests/zilch_env/engine/test_batched.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from zilch_env import GameState, Phase, load_ruleset, observe
from zilch_env.engine.observation import (LAYOUT, OBS_HIGH, OBS_LOW, OBS_SIZE, OBS_SIZES, OBS_V1_SIZE, OBS_VERSION, POINTS_HIGH, field_values)

ROOT = Path(__file__).resolve().parents[3]
#: The zonk win agent shipped before layout 2 (commit 47ce842): a layout 1 policy, kept to test that such
#: policies still play.
LAYOUT1 = ROOT / "tests" / "data" / "layout1-zonk"

#: Layout 1, field by field (name, size): frozen here, since layout 2 must keep it as its prefix.
V1_FIELDS = [("phase", 4), ("to_move", 1), ("roll_counts", 6), ("roll_dice", 36), ("dice_left", 1),
             ("turn_total", 1), ("permanent", 1), ("bank_threshold", 1), ("to_bank", 1), ("bank_allowed", 1),
             ("last_result", 1), ("to_overcome", 1), ("offer", 3), ("frozen", 6), ("final_round", 1),
             ("final_turns_left", 1), ("tiebreak", 1), ("tiebreak_round", 1), ("lead", 1), ("deficit", 1),
             ("challenge_options", 3), ("players", 60), ("rules", 18)]

RULESETS = [
    ("zonk", {}),
    ("zilch", {}),  # all_scoring: one legal keep per roll
    ("zilch15k", {}),  # forced hot dice
    ("farkle", {}),
    ("farkle-basic", {}),
    ("zonk", {"variants.pyramiding": True}),  # keeps depend on the dice frozen earlier in the pass
    ("zilch", {"variants.pyramiding": True}),
    ("farkle", {"variants.piggyback": True, "variants.challenge": True, "variants.overcoming": True}),
]


def expected_keep_fields(state: GameState) -> tuple[np.ndarray, np.ndarray]:
    """keep_points and keep_dice as the layout defines them, straight from the engine's keeps."""
    points = np.zeros(64, dtype=np.float32)
    dice = np.zeros(64, dtype=np.float32)
    if state.phase == Phase.KEEP:
        rs = state.ruleset
        for k in state.keeps():
            points[k.mask] = min(k.points / rs.target, POINTS_HIGH)
            left = state.dice_left - k.n
            dice[k.mask] = (left if left else rs.dice) / 6
    return points, dice


def expected_lead_fields(state: GameState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """keep_lead, keep_ahead and keep_target as the layout defines them, straight from the engine's keeps."""
    lead = np.zeros(64, dtype=np.float32)
    ahead = np.zeros(64, dtype=np.float32)
    target = np.zeros(64, dtype=np.float32)
    if state.phase == Phase.KEEP:
        rs, cur = state.ruleset, state.current
        best = max([s for q, s in enumerate(state.scores) if q != cur], default=0)
        for k in state.keeps():
            banked = state.scores[cur] + state.turn_total + k.points
            lead[k.mask] = min(max((banked - best) / rs.target, -POINTS_HIGH), POINTS_HIGH)
            ahead[k.mask] = banked > best
            target[k.mask] = banked >= rs.target
    return lead, ahead, target


def random_states(name: str, overrides: dict, games: int, players: int = 3, seed: int = 0):
    """Every state of ``games`` games of uniformly random play."""
    rs = load_ruleset(name, overrides)
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = GameState(rs, players, seed=seed * 1000 + g)
        while True:
            yield state
            if state.done:
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])


def test_sizes_and_version():
    assert OBS_VERSION == 4 and OBS_SIZES == {1: 151, 2: 279, 3: 471, 4: 516} and OBS_SIZE == 516
    assert OBS_V1_SIZE == 151
    at = {f.name: f.index for f in LAYOUT}
    assert at["keep_points"] == slice(151, 215) and at["keep_dice"] == slice(215, 279)
    assert at["keep_lead"] == slice(279, 343) and at["keep_ahead"] == slice(343, 407)
    assert at["keep_target"] == slice(407, 471)
    assert OBS_LOW[151:279].min() == 0 and OBS_HIGH[151:215].max() == POINTS_HIGH and OBS_HIGH[215:279].max() == 1
    assert OBS_LOW[279:343].min() == -POINTS_HIGH and OBS_HIGH[279:343].max() == POINTS_HIGH
    assert OBS_LOW[343:471].min() == 0 and OBS_HIGH[343:471].max() == 1
    assert at["rules_table"] == slice(471, 516) and OBS_LOW[471:].min() == 0 and OBS_HIGH[471:].max() == POINTS_HIGH
    assert [f.name for f in LAYOUT[-6:]] == ["keep_points", "keep_dice", "keep_lead", "keep_ahead", "keep_target",
                                          "rules_table"]


def test_layout_1_is_the_prefix():
    """The first 151 values are layout 1's fields, in layout 1's order and sizes, with the same bounds."""
    pos = 0
    for (name, size), f in zip(V1_FIELDS, LAYOUT):
        assert f.name == name and f.index == slice(pos, pos + size), name
        pos += size
    assert pos == OBS_V1_SIZE
    assert [f.name for f in LAYOUT[len(V1_FIELDS):]][:2] == ["keep_points", "keep_dice"]


@pytest.mark.parametrize("name,overrides", RULESETS,
                         ids=["+".join([n] + [k.split(".")[-1] for k in o]) for n, o in RULESETS])
def test_keep_fields_equal_the_direct_computation(name, overrides):
    """Over every state of random 3-player games, from every seat: the five keep fields equal the
    direct computation (the same for every observing seat), stay in bounds, and are zero outside the
    keep phase; the legal keep actions are exactly the masks with points; hot-dice keeps are seen and
    both flags take both values."""
    states = keep_states = hot = 0
    seen = {"ahead": set(), "target": set()}
    for seed in (0, 1):
        for state in random_states(name, overrides, games=6, seed=seed):
            want_points, want_dice = expected_keep_fields(state)
            want = expected_lead_fields(state)
            for seat in range(state.num_players):
                obs = observe(state, seat)
                v = field_values(obs)
                assert np.array_equal(v["keep_points"], want_points)
                assert np.array_equal(v["keep_dice"], want_dice)
                for got, w in zip((v["keep_lead"], v["keep_ahead"], v["keep_target"]), want):
                    assert np.array_equal(got, w)
                assert np.all(obs >= OBS_LOW) and np.all(obs <= OBS_HIGH)
            states += 1
            if state.phase != Phase.KEEP:
                assert not want_points.any() and not want_dice.any() and not any(w.any() for w in want)
                continue
            keep_states += 1
            masks = {a >> 1 for a in state.legal_actions() if a < 128}
            assert masks == set(np.flatnonzero(want_points).tolist()) == set(np.flatnonzero(want_dice).tolist())
            hot += int(np.count_nonzero(want_dice == 1.0))
            legal = np.flatnonzero(want_dice)
            seen["ahead"].update(want[1][legal].tolist())
            seen["target"].update(want[2][legal].tolist())
    assert keep_states > 50 and states > keep_states  # keep phases and others were both seen
    assert hot > 0  # hot dice keeps were seen (keep_dice 1: all the dice again)
    assert seen["ahead"] == {0.0, 1.0}
    assert seen["target"] == {0.0, 1.0} or name.startswith("zilch")  # random zilch games rarely get there


def test_pyramiding_points_follow_the_frozen_dice():
    """Under pyramiding a die can score by joining dice of its face set aside earlier in the pass:
    the fields follow the state's keeps, not the roll alone (no per-roll cache)."""
    rs = load_ruleset("zonk", {"variants.pyramiding": True})
    # roll 2 2 2 3 4 6: keep the three 2s (mask 7, 200), roll 3 dice: 2 3 4, where the 2 joins them
    g = GameState(rs, 2, dice=[[2, 2, 2, 3, 4, 6], [2, 3, 4]])
    assert field_values(observe(g, 0))["keep_points"][7] == np.float32(200 / rs.target)
    g.apply(7 * 2)  # keep mask 7, roll on
    assert g.roll == (2, 3, 4) and g.frozen[1] == 3
    v = field_values(observe(g, 1))
    assert v["keep_points"][1] == np.float32(200 / rs.target) and v["keep_dice"][1] == np.float32(2 / 6)
    assert np.count_nonzero(v["keep_points"]) == 1
    # the roll alone (without the frozen 2s) scores nothing: the keep comes from the state
    assert not g.roll_info.keeps
    assert np.array_equal(v["keep_points"], expected_keep_fields(g)[0])


def test_cache_is_per_ruleset():
    """The same roll under two targets (two rulesets) gives each its own points."""
    dice = [[1, 1, 1, 5, 2, 3]]
    a = observe(GameState(load_ruleset("zonk"), 2, dice=dice), 0)
    b = observe(GameState(load_ruleset("zonk", {"target": 20000}), 2, dice=dice), 0)
    pa, pb = field_values(a)["keep_points"], field_values(b)["keep_points"]
    assert pa.any() and np.allclose(pa, 2 * pb)
    assert np.array_equal(field_values(a)["keep_dice"], field_values(b)["keep_dice"])


def test_clones_share_the_cache():
    """GameState.clone copies the ruleset object but shares its scoring and variants: the encoder's
    per-ruleset constants are keyed by those, so observing many clones adds no cache entries (and
    gives the same vector)."""
    from zilch_env.engine import observation as obsmod

    g = GameState("farkle", 2, seed=9)
    want = observe(g, 0)
    before = len(obsmod._constants)
    for _ in range(20):
        assert np.array_equal(observe(g.clone(), 0), want)
    assert len(obsmod._constants) == before


def test_all_scoring_shows_only_the_one_keep():
    # zilch scores single 1s and 6s: sorted 1 1 1 2 3 6, every scoring die set aside (mask 0b100111)
    g = GameState("zilch", 2, dice=[[1, 1, 1, 6, 2, 3]])
    v = field_values(observe(g, 0))
    (mask,) = np.flatnonzero(v["keep_points"])
    assert mask == 0b100111 == g.keeps()[0].mask and v["keep_points"][mask] == np.float32(1050 / 5000)
    assert v["keep_dice"][mask] == np.float32(2 / 6)


# ------------------------------------------------------------------ layout 1 policies




def test_shipped_v1_checkpoint_plays():
    """A layout 1 policy (tests/data/layout1-zonk, policy.onnx, obs_version 1) plays moves of a layout 2 game: it is fed the
    first 151 values of each observation, and answers as it does from layout 1's vector."""
    pytest.importorskip("onnxruntime")
    from agents.base import make_agent
    from agents.baselines import GreedyAgent

    meta = json.loads((LAYOUT1 / "policy.json").read_text())
    assert meta["obs_version"] == 1 and meta["obs_size"] == 151
    agent = make_agent(f"ppo:{LAYOUT1}", "zonk")
    assert agent.policy.obs_size == 151
    game = GameState("zonk", 2, seed=5)
    rng = np.random.default_rng(0)
    greedy = GreedyAgent()
    moves = 0
    while not game.done and moves < 40:
        legal = game.legal_actions()
        if game.current == 0:
            a = agent.act(game, legal, rng)
            assert a in legal
            obs = observe(game, 0)[None]
            mask = game.legal_mask()[None]
            assert agent.policy.actions(obs, mask)[0] == agent.policy.actions(obs[:, :151], mask)[0] == a
            moves += 1
        else:
            a = greedy.act(game, legal, rng)
        game.apply(a)
    assert moves >= 10


def test_unknown_layouts_are_refused(tmp_path):
    pytest.importorskip("onnxruntime")
    from agents.base import make_agent
    from agents.learned import PolicyMismatchError

    src = LAYOUT1 / "policy.onnx"
    meta = json.loads(src.with_suffix(".json").read_text())
    for version, match in ((5, "observation layout 5.*layouts 1, 2, 3, 4"), (None, "observation layout None"),
                           (0, "observation layout 0")):
        d = tmp_path / f"v{version}"
        d.mkdir()
        shutil.copy(src, d / "policy.onnx")
        (d / "policy.json").write_text(json.dumps({**meta, "obs_version": version}))
        with pytest.raises(PolicyMismatchError, match=match):
            make_agent(f"ppo:{d}", "zonk")
    # metadata that says layout 2 for a graph that reads 151 values
    d = tmp_path / "lying"
    d.mkdir()
    shutil.copy(src, d / "policy.onnx")
    (d / "policy.json").write_text(json.dumps({**meta, "obs_version": 2, "obs_size": 279}))
    with pytest.raises(PolicyMismatchError, match="graph takes 151"):
        make_agent(f"ppo:{d}", "zonk")
    (d / "policy.json").write_text(json.dumps({**meta, "obs_version": 1, "obs_size": 279}))
    with pytest.raises(PolicyMismatchError, match="obs_size 279"):
        make_agent(f"ppo:{d}", "zonk")


def test_export_of_a_layout_1_zip_says_layout_1(tmp_path):
    """agents.export reads the layout from the model's observation space: the layout 1 zonk zip
    (tests/data/layout1-zonk) exports as layout 1, and the export plays a layout 2 game."""
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from agents.base import make_agent
    from agents.export import check_export, export, sample_states

    out = export(LAYOUT1 / "best" / "model.zip", tmp_path / "policy.onnx")
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["obs_version"] == 1 and meta["obs_size"] == 151
    assert meta["inputs"]["obs"]["shape"] == ["batch", 151]
    obs, masks = sample_states(["zonk"], 300, seed=2)
    assert obs.shape == (300, OBS_SIZE)
    assert check_export(LAYOUT1 / "best" / "model.zip", out, obs, masks) == 0
    agent = make_agent(f"ppo:{out}", "zonk")
    game = GameState("zonk", 2, seed=1)
    assert agent.act(game, game.legal_actions(), np.random.default_rng(0)) in game.legal_actions()


def test_training_starts_from_a_layout_1_checkpoint(tmp_path):
    """train/ppo.py --init with a layout 1 zip widens its first layer with zero weights for the values
    later layouts appended: the new actor answers every observation as the old one answers its
    prefix."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from agents.export import sample_states
    from train import ppo

    argv = ["--ruleset", "zonk", "--init", str(LAYOUT1), "--timesteps", "64", "--critic-warmup", "1000",
            "--n-envs", "1", "--n-steps", "64", "--batch-size", "64", "--opponents", "greedy", "--no-export",
            "--no-progress", "--final-games", "0", "--final-solo-turns", "0", "--eval-every", "100000",
            "--out", str(tmp_path / "ck"), "--runs", str(tmp_path / "runs"),
            # what is checked is the actor: no shaping by the solved game, a two-game evaluation
            "--shaping", "none", "--eval-games", "2", "--eval-opponent", "greedy"]
    assert ppo.main(argv) == 0
    old = MaskablePPO.load(LAYOUT1 / "best" / "model.zip", device="cpu")
    new = MaskablePPO.load(tmp_path / "ck" / "latest" / "model.zip", device="cpu")
    obs, masks = sample_states(["zonk"], 200, seed=3)
    with torch.no_grad():
        a = old.policy.get_distribution(torch.as_tensor(obs[:, :OBS_V1_SIZE]), action_masks=masks)
        b = new.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
    # the critic warm-up froze the actor: the same logits to float precision
    assert torch.allclose(a.distribution.logits, b.distribution.logits, atol=1e-5)


def test_a_last_turn_reads_win_or_lose_per_keep():
    """The decision that motivated the layout: in a last turn at 9,500 against 10,000, a roll of
    1 3 4 4 4 after 50 points. Keeping 1 + 444 (550 in all) and banking wins (lead +50); keeping the 1
    alone (150) does not (lead -350)."""
    from zilch_env import ScriptedDice, keep_action, load_ruleset

    rs = load_ruleset("farkle")  # target 10,000, free keeps
    game = GameState(rs, 2, dice=ScriptedDice([[5, 2, 3, 6, 6, 2], [1, 3, 4, 4, 4]]), first=1)
    game.on_board = [True, True]
    game.apply(keep_action(next(k.mask for k in game.keeps() if k.dice == (5,)), bank=False))
    game.scores = [10000, 9500]
    game.final_queue = [1]
    assert game.current == 1 and game.phase == Phase.KEEP and game.turn_total == 50
    assert game.roll == (1, 3, 4, 4, 4)
    v = field_values(observe(game, 1))
    keeps = {tuple(sorted(k.dice)): k.mask for k in game.keeps()}
    win, lose = keeps[(1, 4, 4, 4)], keeps[(1,)]
    assert v["keep_lead"][win] == pytest.approx(50 / 10000) and v["keep_ahead"][win] == 1.0
    assert v["keep_lead"][lose] == pytest.approx(-350 / 10000) and v["keep_ahead"][lose] == 0.0
    assert v["keep_target"][win] == 1.0 and v["keep_target"][lose] == 0.0
    # the other seat's view describes the same mover
    assert np.array_equal(field_values(observe(game, 0))["keep_lead"], v["keep_lead"])


def test_rules_table_writes_out_the_scoring_and_the_new_rules():
    from zilch_env.engine.observation import RULE_TABLE_FIELDS

    rs = load_ruleset("farkle", {"scoring.partial_straights": {"12345": 500, "23456": 750}, "end": "instant",
                                 "score_floor": -2500, "target": 5000})
    f = dict(zip(RULE_TABLE_FIELDS, field_values(observe(GameState(rs, 2, seed=1), 0))["rules_table"]))
    T = 5000
    assert f["points_f1_1"] == np.float32(100 / T) and f["points_f5_2"] == np.float32(100 / T)
    assert f["points_f1_3"] == np.float32(rs.scoring.triples[1] / T) and f["points_f2_1"] == 0  # a lone 2 scores nothing
    assert f["points_f2_3"] == np.float32(rs.scoring.triples[2] / T)
    assert f["straight"] == np.float32(rs.scoring.straight / T) and f["three_pairs"] == np.float32(rs.scoring.three_pairs / T)
    assert f["partial_12345"] == np.float32(500 / T) and f["partial_23456"] == np.float32(750 / T)
    assert f["end_instant"] == 1 and f["below_zero"] == np.float32(2500 / T)
    plain = dict(zip(RULE_TABLE_FIELDS, field_values(observe(GameState(load_ruleset("zonk"), 2, seed=1), 0))["rules_table"]))
    assert plain["end_instant"] == 0 and plain["below_zero"] == 0 and plain["partial_12345"] == 0
    # the field tells apart rulesets the layout-3 prefix cannot: scoring values alone
    other = load_ruleset("farkle", {"scoring.triples.2": 400})
    a = observe(GameState(load_ruleset("farkle"), 2, seed=1), 0)
    b = observe(GameState(other, 2, seed=1), 0)
    assert np.array_equal(a[:OBS_SIZES[3]], b[:OBS_SIZES[3]]) and not np.array_equal(a, b)

"""The hot-dice bonus (``scoring.hot_dice_bonus``): a keep that sets aside every die rolled adds the
bonus to its points. The rule lives in the keeps of a roll (zilch_env.rules.scoring, and the kernels'
pyramiding keeps); everything else plays it from there. Checked here against the rule written out
independently: the same keeps as without the bonus, the bonus added exactly where a keep takes every
die of the roll."""

from __future__ import annotations

import numpy as np
import pytest

from zilch_env import (NUM_ACTIONS, GameState, Phase, RulesetError, ScriptedDice, RandomDice, keep_action,
                       load_ruleset, loads_ruleset, mask_of, ruleset_to_toml, scoring_table)
from zilch_env.engine.batched import BatchedGames
from zilch_env.rules import compile as compile_rules
from zilch_env.rules.schema import MAX_POINTS
from zilch_env.rules.scoring import pass_keeps, pyramid_freeze

BONUS = 500


def test_loads_validates_and_writes_only_when_set():
    rs = load_ruleset("zonk", {"scoring.hot_dice_bonus": BONUS})
    assert rs.scoring.hot_dice_bonus == BONUS
    assert rs.to_dict()["scoring"]["hot_dice_bonus"] == BONUS
    assert loads_ruleset(ruleset_to_toml(rs)) == rs
    plain = load_ruleset("zonk")
    assert "hot_dice_bonus" not in plain.to_dict()["scoring"]  # the data of every ruleset without it is unchanged
    assert loads_ruleset('extends = "zonk"\n[scoring]\nhot_dice_bonus = 300\n').scoring.hot_dice_bonus == 300
    for bad in (-1, MAX_POINTS + 1):
        with pytest.raises(RulesetError, match=r"scoring\.hot_dice_bonus = .*whole numbers from 0"):
            load_ruleset("zonk", {"scoring.hot_dice_bonus": bad})
    with pytest.raises(RulesetError, match=r"scoring\.hot_dice_bonus = true: expected an integer"):
        load_ruleset("zonk", {"scoring.hot_dice_bonus": True})


@pytest.mark.parametrize("preset", ["zonk", "zilch", "farkle-basic"])
def test_keeps_add_the_bonus_exactly_when_every_die_rolled_is_kept(preset):
    plain = scoring_table(load_ruleset(preset))
    rs = load_ruleset(preset, {"scoring.hot_dice_bonus": BONUS})
    table = scoring_table(rs)
    hot = 0
    for roll, info in plain.rolls.items():
        got = table.rolls[roll].keeps
        assert [k.mask for k in got] == [k.mask for k in info.keeps]
        for k, k0 in zip(got, info.keeps):
            assert k.points == k0.points + (BONUS if k0.n == len(roll) else 0), (roll, k0)
            hot += k0.n == len(roll)
        best = table.rolls[roll].best
        if got:
            assert best == max(got, key=lambda k: (k.points, k.n, -k.mask))
    assert hot > 50
    # the compiled keep table, which the kernels, the observation and the solvers read, holds them too
    cr = compile_rules(rs)
    for r in range(len(cr.rolls)):
        assert [k.points for k in cr.keeps[r]] == [k.points for k in table.rolls[cr.rolls[r]].keeps] or \
            rs.keep == "all_scoring"


def _scripted(rs, rolls, players=1):
    return GameState(rs, players, dice=ScriptedDice(rolls, then=RandomDice(0)))


def test_game_adds_the_bonus_to_the_turn_total():
    rs = load_ruleset("zonk", {"scoring.hot_dice_bonus": BONUS, "entry_threshold": 0})
    g = _scripted(rs, [[1, 2, 3, 4, 6, 6], [5, 5, 5, 1, 1], [2, 2, 2, 3, 4, 6]])
    g.apply(keep_action(mask_of(g.roll, [1]), False))
    assert g.turn_total == 100
    g.apply(keep_action(mask_of(g.roll, [5, 5, 5, 1, 1]), False))  # every die rolled: hot dice
    assert g.turn_total == 100 + 700 + BONUS and g.dice_left == 6 and g.roll == (2, 2, 2, 3, 4, 6)
    assert [k.points for k in g.keeps() if k.n == 3] == [200]  # not every die: no bonus
    g.apply(keep_action(mask_of(g.roll, [2, 2, 2]), True))
    assert g.scores[0] == 1500 and g.turns[-1]["turn_total"] == 1500
    g2 = _scripted(rs, [[1, 5, 2, 3, 4, 6], [1, 1, 1, 5]])
    g2.apply(keep_action(mask_of(g2.roll, [1, 5]), False))
    g2.apply(keep_action(mask_of(g2.roll, [1, 1, 1, 5]), True))  # banked right after hot dice: the bonus counts
    assert g2.scores[0] == 150 + 1050 + BONUS


def test_pyramiding_keeps_of_the_kernels_add_the_bonus_as_the_rules_do():
    """Under pyramiding with dice frozen the kernels compute a roll's keeps themselves: they equal
    zilch_env.rules.scoring.pass_keeps (which builds every table) in every position of seeded games."""
    rs = load_ruleset("zonk", {"scoring.hot_dice_bonus": BONUS, "variants.pyramiding": True, "entry_threshold": 0})
    rng = np.random.default_rng(3)
    table = scoring_table(rs)
    checked = hot = 0
    for seed in range(30):
        g = GameState(rs, 2, seed=seed)
        fz, fp = [0] * 6, [0] * 6
        while not g.done and checked < 2000:
            if g.phase == Phase.KEEP:
                if g.dice_left == rs.dice:
                    fz, fp = [0] * 6, [0] * 6
                want = pass_keeps(rs.scoring, table.info(g.roll), fz, fp, True, False)
                got = g.keeps()
                assert [(k.mask, k.points) for k in got] == [(k.mask, k.points) for k in want], (g.roll, fz)
                checked += 1
                k = got[rng.integers(len(got))]
                hot += k.n == len(g.roll) and any(fz)
                if k.n < len(g.roll):
                    fz, fp = pyramid_freeze(rs.scoring, k, fz, fp)
                bank = bool(rng.random() < 0.3) and g.can_bank(g.turn_total + k.points, len(g.roll) - k.n)
                g.apply(keep_action(k.mask, bank))
            else:
                g.apply(g.legal_actions()[0])
    assert checked > 500 and hot > 10


def _highest(masks):
    """The highest legal action of every game (0 where none)."""
    top = masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)
    return np.where(masks.any(axis=1), top, 0)


def test_batched_games_play_the_bonus_as_the_single_game_does():
    """Many games and one game move with the same kernels: the same seeded games, the same scores."""
    rs = load_ruleset("zonk", {"scoring.hot_dice_bonus": BONUS, "target": 3000})
    n = 64
    bg = BatchedGames(rs, n, 2, dice=[[11, g] for g in range(n)])
    singles = [GameState(rs, 2, seed=np.random.default_rng([11, g])) for g in range(n)]
    masks = np.zeros((n, NUM_ACTIONS), bool)
    while not bg.done.all():
        bg.legal_masks(masks)
        actions = _highest(masks)  # keep every scoring die, and bank when allowed
        for b in np.flatnonzero(~bg.done):
            assert singles[b].legal_actions()[-1] == actions[b]
            singles[b].apply(int(actions[b]))
        bg.step(actions)
    assert [list(s.scores) for s in singles] == [list(bg.scores[b]) for b in range(n)]
    plain = BatchedGames(load_ruleset("zonk", {"target": 3000}), n, 2, dice=[[11, g] for g in range(n)])
    while not plain.done.all():
        plain.legal_masks(masks)
        plain.step(_highest(masks))
    assert not np.array_equal(plain.scores, bg.scores)  # the bonus changed some games


def test_observation_shows_the_bonus_in_the_keep_points():
    from zilch_env.engine.observation import field_values, observe

    rs = load_ruleset("zonk", {"scoring.hot_dice_bonus": BONUS})
    g = _scripted(rs, [[1, 1, 1, 5, 2, 3], [1, 5]], players=2)
    g.apply(keep_action(mask_of(g.roll, [1, 1, 1, 5]), False))
    assert g.roll == (1, 5)
    pts = field_values(observe(g, 0))["keep_points"]
    both = mask_of(g.roll, [1, 5])
    one = mask_of(g.roll, [1])
    assert pts[both] == pytest.approx((150 + BONUS) / rs.target)
    assert pts[one] == pytest.approx(100 / rs.target)


def test_the_environments_play_the_bonus():
    """The Gymnasium environment and its native vector form (the engine underneath both) play whole
    games under the bonus with masked random actions, the same seed giving the same games."""
    import gymnasium as gym

    import zilch_env  # noqa: F401 - registers the environment ids

    rs = load_ruleset("zonk", {"scoring.hot_dice_bonus": BONUS, "target": 2000})
    env = gym.make("Zilch-v2", ruleset=rs)
    returns = []
    for episode in range(2):
        obs, info = env.reset(seed=5)
        rng = np.random.default_rng(0)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            total += reward
            done = terminated or truncated
        returns.append(total)
    assert returns[0] == returns[1]
    venv = gym.make_vec("Zilch-v2", num_envs=4, vectorization_mode="vector_entry_point", ruleset=rs)
    obs, info = venv.reset(seed=1)
    for _ in range(200):
        masks = info["action_mask"]
        obs, reward, terminated, truncated, info = venv.step(_highest(masks))
    venv.close()

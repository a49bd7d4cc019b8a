"""The batched engine against the single-game engine: the same seeded games played in both must
give identical states and legal actions after every step (the differential test), plus the batched
baseline agents, tournaments play and the rules the batched engine refuses."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import FirstLegal, first_legal_batch
from zilch_env import PRESETS, GameState, GreedyMover, load_ruleset
from zilch_env.engine.batched import (BatchedGames, KernelAgent, KeyedDice, builtin_kernel_agent, batch_tables, slot_game, stream_keys)
from zilch_env.engine.game import NUM_ACTIONS, RandomDice
from zilch_env.rules.scoring import scoring_table

_FIELDS = ("scores", "on_board", "zilch_streak", "current", "phase", "dice_left", "turn_total", "permanent",
           "last_result", "turns", "decisions", "roll", "final_queue", "tiebreak", "winners", "frozen",
           "frozen_points", "offer", "challenge", "challenges_used", "challenge_brackets")


def _single_rows(games: list[GameState], rows: np.ndarray, n: int) -> np.ndarray:
    """The state fields of single-engine games as one int row per game (layout: :func:`_columns`)."""
    out = []
    for g in rows:
        s = games[g]
        q = s.final_queue
        tb = s.tiebreak_players
        out.append((
            *s.scores, *s.on_board, *s.zilch_streak, s.current, s.phase, s.dice_left, s.turn_total,
            s.permanent, s.last_result, len(s.turns), s.decisions, *s.roll, *[0] * (6 - len(s.roll)),
            *([-1] * 7 if q is None else [len(q), *q, *[-1] * (6 - len(q))]),
            sum(1 << p for p in tb) if tb is not None else 0, s.tiebreak_round,
            sum(1 << p for p in s.winners) if s.winners is not None else 0,
            *s.frozen, *s.frozen_points,
            *((1, *s.offer) if s.offer is not None else (0, 0, 0)),
            -1 if s.challenged is None else s.challenged, int(s.piggybacked),
            *s.challenges_used, *[int(lo) | int(hi) << 1 for lo, hi in s.challenge_brackets],
        ))
    return np.array(out, dtype=np.int64).reshape(len(rows), -1)


def _columns(n: int) -> list[tuple[str, int]]:
    sizes = {"scores": n, "on_board": n, "zilch_streak": n, "roll": 6, "final_queue": 7, "tiebreak": 2,
             "frozen": 6, "frozen_points": 6, "offer": 3, "challenge": 2, "challenges_used": n,
             "challenge_brackets": n}
    return [(f, sizes.get(f, 1)) for f in _FIELDS]


def _batched_rows(bg: BatchedGames, rows: np.ndarray) -> np.ndarray:
    """The same row layout from the batched engine's arrays."""
    from zilch_env.engine import kernels as K
    from zilch_env.engine import layout as L

    n = bg.num_players
    st = bg._st[rows]
    qpos, qlen = st[:, L.FINAL_QUEUE_POS], st[:, L.FINAL_QUEUE_END] - st[:, L.FINAL_QUEUE_POS]
    i = np.arange(6)
    queue = np.take_along_axis(st[:, L.FINAL_QUEUE: L.FINAL_QUEUE + 6], np.minimum(qpos[:, None] + i, 5), axis=1)
    queue = np.where(i < qlen[:, None], queue, -1)
    fq = np.where(st[:, L.FINAL_QUEUE_ON, None] != 0, np.concatenate([qlen[:, None], queue], axis=1), -1)
    faces = bg.tables.faces[np.maximum(st[:, L.ROLL], 0)] * (st[:, L.ROLL, None] >= 0)
    cols = [st[:, L.SCORE: L.SCORE + n], st[:, L.ON_BOARD: L.ON_BOARD + n], st[:, L.ZILCH_STREAK: L.ZILCH_STREAK + n]]
    cols += [st[:, [L.CURRENT, L.PHASE, L.DICE_LEFT, L.TURN_TOTAL, L.PERMANENT, L.LAST_RESULT, L.TURNS, L.DECISIONS]], faces, fq,
             st[:, [L.TIEBREAK_SEATS, L.TIEBREAK_ROUND]], np.where(st[:, L.PHASE] == L.OVER, st[:, L.WINNER_SEATS], 0)[:, None]]
    offer = np.where(st[:, L.OFFER_ON, None] != 0, st[:, [L.OFFER_ON, L.OFFER_TOTAL, L.OFFER_DICE]], 0)
    cols += [st[:, L.FROZEN: L.FROZEN + 6], st[:, L.FROZEN_POINTS: L.FROZEN_POINTS + 6], offer, st[:, [L.CHALLENGED, L.PIGGYBACKED]],
             st[:, L.CHALLENGES_USED: L.CHALLENGES_USED + n], st[:, L.CHALLENGE_BRACKETS: L.CHALLENGE_BRACKETS + n]]
    return np.concatenate(cols, axis=1)


def _same_rows(singles: list[GameState], bg: BatchedGames, rows: np.ndarray, where: str) -> None:
    """Every column of the games' typed state rows equal in both views, but the batched engine's
    dice ring-buffer counters (a single game's dice stream is its own object): the cheap check of
    every step; :func:`_compare` reads the same states through each view's fields."""
    from zilch_env.engine import layout as L

    a, b = np.stack([singles[g]._st[0] for g in rows]), bg._st[rows]
    differ = a != b
    differ[:, [L.DICE_READ, L.DICE_WRITTEN]] = False
    if differ.any():
        i, col = (int(x[0]) for x in np.nonzero(differ))
        name = next((k for k, v in vars(L).items() if k.isupper() and v == col), str(col))
        pytest.fail(f"{where}: game {int(rows[i])} differs in column {name}: single engine {int(a[i, col])}, "
                    f"batched {int(b[i, col])}\nsingle: {singles[int(rows[i])].snapshot()}\n"
                    f"batched: {bg.snapshot(int(rows[i]))}")


def _compare(singles: list[GameState], bg: BatchedGames, rows: np.ndarray, where: str) -> None:
    _same_rows(singles, bg, rows, where)
    a, b = _single_rows(singles, rows, bg.num_players), _batched_rows(bg, rows)
    if np.array_equal(a, b):
        return
    i = int(np.flatnonzero((a != b).any(axis=1))[0])
    g = int(rows[i])
    at = 0
    for f, size in _columns(bg.num_players):
        if not np.array_equal(a[i, at: at + size], b[i, at: at + size]):
            pytest.fail(f"{where}: game {g} differs in {f}: single engine {a[i, at: at + size].tolist()}, "
                        f"batched {b[i, at: at + size].tolist()}\nsingle: {singles[g].snapshot()}\n"
                        f"batched: {bg.snapshot(g)}")
        at += size
    raise AssertionError("unreachable")  # pragma: no cover


def differential(ruleset, players: int, games: int, seed: int, keyed: bool = False, dice_block: int | None = None,
                 first: int = 0, slots: bool = False) -> dict[str, int]:
    """Play ``games`` seeded games in both engines with the same random legal actions; compare every
    state field and the legal actions after every step. The dice: numpy streams (``GameState(seed=...)``)
    or, with ``keyed``, the batched engine's keyed streams (``GameState(dice=KeyedDice(key))``).
    Returns counts of what the games went through."""
    rs = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if slots:
        keys = stream_keys(seed, games)
        bg = BatchedGames(rs, games, players, dice_keys=keys, dice_slots=True, first=first)
        singles = [slot_game(rs, players, k, first=first) for k in keys]
    elif keyed:
        keys = stream_keys(seed, games)
        bg = BatchedGames(rs, games, players, dice_keys=keys, first=first)
        singles = [GameState(rs, players, dice=KeyedDice(k), first=first) for k in keys]
    else:
        seeds = [[seed, g] for g in range(games)]
        kw = {} if dice_block is None else {"dice_block": dice_block}
        bg = BatchedGames(rs, games, players, dice=seeds, first=first, **kw)
        singles = [GameState(rs, players, seed=np.random.default_rng(s), first=first) for s in seeds]
    choices = np.random.default_rng([seed, 99])
    where = f"{rs.name} with {players} players (seed {seed})"
    every = np.arange(games)
    _compare(singles, bg, every, where + ", start")
    steps = rounds = 0
    masks = np.zeros((games, NUM_ACTIONS), bool)
    actions = np.zeros(games, np.int64)
    live = np.flatnonzero(~bg.done)
    while live.size:
        bg.legal_masks(masks)
        u = choices.random(games)
        rows: list[int] = []
        cols: list[int] = []
        for g in live:
            s = singles[g]
            legal = s.legal_actions()
            rows += [g] * len(legal)
            cols += legal
            actions[g] = legal[int(u[g] * len(legal))]
        want = np.zeros((games, NUM_ACTIONS), bool)
        want[rows, cols] = True
        if not np.array_equal(want[live], masks[live]):
            g = int(live[np.flatnonzero((want[live] != masks[live]).any(axis=1))[0]])
            pytest.fail(f"{where}: game {g} legal actions differ: single {singles[g].legal_actions()}, "
                        f"batched {np.flatnonzero(masks[g]).tolist()}\nsingle: {singles[g].snapshot()}")
        for g in live:
            singles[g].apply(int(actions[g]))
        steps += len(live)
        illegal = bg.step(actions)
        assert not illegal.any(), f"{where}: a legal action was refused"
        # the whole state row at every step; each view's fields at every fourth (and at the end)
        (_compare if rounds % 4 == 0 else _same_rows)(singles, bg, live, f"{where}, step {steps}")
        rounds += 1
        live = live[~bg.done[live]]
    _compare(singles, bg, every, where + ", end")  # games over stayed as they ended
    assert not bg.legal_masks().any()
    stats = bg.turn_stats
    for g, s in enumerate(singles):
        for q in range(players):
            mine = [t for t in s.turns if t["player"] == q]
            assert stats["turns"][g, q] == len(mine)
            assert stats["points"][g, q] == sum(t["recorded"] for t in mine)
            assert stats["zilches"][g, q] == sum(not t["banked"] for t in mine)
    return {
        "games": games, "steps": steps,
        "draws": sum(len(s.winners) > 1 for s in singles),
        "tiebreaks": sum(s.tiebreak_round > 0 for s in singles),
        "penalties": sum(t["penalty"] is not None for s in singles for t in s.turns),
        "permanent": sum(t["recorded"] > 0 and not t["banked"] for s in singles for t in s.turns),
        "below_zero": sum(t["score"] < 0 for s in singles for t in s.turns),
    }


# --------------------------------------------------------------------------------------------
# The differential test: every preset, 2 and 3 players, a hundred and more games per preset. The two
# views step with the same kernels, so this checks what each view adds (dice, records, masks, fields);
# the golden records of tests/test_golden_games.py pin the play itself over thousands more games.


@pytest.mark.parametrize("preset", PRESETS)
def test_differential_presets(preset):
    # two players with numpy dice streams, three with keyed dice
    counts = [differential(preset, players, 80, seed=players, keyed=players == 3) for players in (2, 3)]
    assert sum(c["games"] for c in counts) == 160
    rs = load_ruleset(preset)
    if rs.variants.zilch_penalty.count:
        assert sum(c["penalties"] for c in counts) > 0  # the zilch penalty was applied in these games
    if rs.scoring.permanent_straight:
        assert sum(c["permanent"] for c in counts) > 0  # a permanent straight survived a zilch


@pytest.mark.parametrize("players", [1, 4, 6])
def test_differential_player_counts(players):
    for preset in ("zonk", "zilch15k", "farkle"):
        differential(preset, players, 60 if players > 1 else 100, seed=10 + players, first=players - 1,
                     keyed=preset == "farkle")


@pytest.mark.parametrize("overrides", [
    {"variants.zilch_penalty": {"count": 2, "points": 0, "mode": "halve"}},
    {"variants.zilch_penalty": {"count": 2, "points": 0, "mode": "reset"}},
    {"variants.zilch_penalty": {"count": 1, "points": 300, "mode": "subtract"}},
    {"variants.six_dice_zilch_bonus": 500},
    {"variants.overcoming": True},
    {"entry_threshold": 0, "min_bank": 200},
    {"dice": 5, "hot_dice": "forced"},
    {"dice": 3},
    {"keep": "all_scoring", "end": "finish_round", "scoring.permanent_straight": True},
    {"end": "instant"},
    {"score_floor": -2000, "variants.zilch_penalty": {"count": 1, "points": 300, "mode": "subtract"}},
    {"score_floor": -1000, "variants.challenge": True,
     "variants.zilch_penalty": {"count": 2, "points": 0, "mode": "reset"}},
    {"scoring.partial_straights": {"12345": 500, "23456": 750}, "keep": "all_scoring",
     "variants.six_dice_zilch_bonus": 300},
    {"scoring.partial_straights": {"12345": 500, "23456": 750}, "dice": 5},
    {"end": "instant", "variants.challenge": True, "variants.piggyback": True, "tie": "tiebreak"},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_differential_variants(overrides):
    rs = load_ruleset("zonk", {"target": 3000, **overrides})
    c = differential(rs, 3, 150, seed=7, keyed=True)
    if "variants.zilch_penalty" in overrides:
        assert c["penalties"] > 0
    if overrides.get("score_floor"):
        assert c["below_zero"] > 0  # some score went below zero in these games


def test_differential_ties_and_tiebreaks():
    # Targets low enough that games often end level: draws, and tie-break turns under "tiebreak".
    draw = differential(load_ruleset("zilch5k", {"target": 500, "tie": "draw", "entry_threshold": 300}),
                        4, 400, seed=3)
    assert draw["draws"] > 0 and draw["tiebreaks"] == 0
    tb = differential(load_ruleset("zilch5k", {"target": 500, "entry_threshold": 300}), 4, 400, seed=3)
    assert tb["tiebreaks"] > 0


def test_differential_dice_refills_mid_step():
    # Two dice codes per block: games run out of codes within a step (a zilch chain, a bank and the
    # next player's roll), wait for dice and resume after the refill, and must not notice.
    differential("zonk", 3, 60, seed=5, dice_block=2)
    differential("zilch15k", 2, 60, seed=6, dice_block=1)


@pytest.mark.parametrize("preset", ["zonk", "zilch", "farkle"])
def test_differential_slot_dice(preset):
    differential(load_ruleset(preset, {"variants.six_dice_zilch_bonus": 300} if preset == "zonk" else {}),
                 3, 150, seed=8, slots=True, first=1)


def test_slot_dice_give_each_turn_slot_the_same_dice():
    """With slot dice, seat s's t-th turn starts with the same roll in every game of the same key,
    whatever the players did before (here: greedy with different thresholds)."""
    from zilch_env.engine import kernels as K
    from zilch_env.engine import layout as L

    keys = np.repeat(stream_keys(3, 50), 2)
    res = {}
    for thr in (300, 1000):
        bg = BatchedGames("zonk", 100, 2, dice_keys=keys, dice_slots=True)
        first_rolls: dict[tuple[int, int, int], tuple] = {}
        while not bg.done.all():
            st = bg._st
            for g in np.flatnonzero((st[:, L.PHASE] == L.KEEP) & (st[:, L.TURN_ROLLS] == 1)):
                q = int(st[g, L.CURRENT])
                first_rolls.setdefault((int(g), q, int(st[g, L.SEAT_TURNS + q])), tuple(bg.rolls[g]))
            bg.step(bg.greedy_actions(thr))
        res[thr] = first_rolls
    common = set(res[300]) & set(res[1000])
    assert len(common) > 500
    assert all(res[300][k] == res[1000][k] for k in common)


def test_dice_streams_continue_across_resets():
    """A row's dice go on from game to game, like a Match sharing one RandomDice; the refills of a
    stream of many blocks keep it equal to RandomDice's."""
    rs = load_ruleset("zonk")
    bg = BatchedGames(rs, 1, 2, dice=[42], dice_block=64)
    dice = RandomDice(42)
    choices = np.random.default_rng(0)
    for _ in range(20):
        g = GameState(rs, 2, dice=dice)
        while not g.done:
            legal = g.legal_actions()
            assert bg.legal_actions(0) == legal
            a = legal[int(choices.random() * len(legal))]
            g.apply(a)
            bg.step([a])
            assert bg.snapshot(0) == {k: v for k, v in _snap(g).items()}
        bg.reset()


def _snap(g: GameState) -> dict:
    return g.snapshot()  # the batched snapshot has every field of the single engine's


# --------------------------------------------------------------------------------------------
# Tables, agents, errors


def test_tables_come_from_the_scoring_table():
    for preset in PRESETS:
        rs = load_ruleset(preset)
        tb, table = batch_tables(rs), scoring_table(rs)
        assert len(tb.rolls) == len(table.rolls) == 923
        for r, roll in enumerate(tb.rolls):
            info = table.rolls[roll]
            keeps = ((info.best,) if info.best else ()) if rs.keep == "all_scoring" else info.keeps
            assert tb.nk[r] == len(keeps)
            got = [(int(tb.kmask[r, k]), int(tb.kpts[r, k]), int(tb.kn[r, k]), bool(tb.kstr[r, k]))
                   for k in range(tb.nk[r])]
            assert got == [(k.mask, k.points, k.n, k.straight) for k in keeps]
            if info.best is not None:
                assert tb.kmask[r, tb.best[r]] == info.best.mask
            else:
                assert tb.best[r] == -1


def test_greedy_actions_match_greedy_mover():
    for preset in ("zonk", "zilch", "zilch15k", "farkle"):
        rs = load_ruleset(preset)
        bg = BatchedGames(rs, 200, 2, dice=[[1, g] for g in range(200)])
        singles = [GameState(rs, 2, seed=np.random.default_rng([1, g])) for g in range(200)]
        movers = {0: GreedyMover(), 1: GreedyMover(700, 3)}
        thr = np.array([300, 700])
        md = np.array([2, 3])
        rng = np.random.default_rng(0)
        while not bg.done.all():
            seat = bg.current.copy()
            acts = bg.greedy_actions(thr[seat], md[seat])
            for g, s in enumerate(singles):
                if s.done:
                    assert acts[g] == -1
                else:
                    assert acts[g] == movers[s.current].act(s, s.legal_actions(), rng)
                    s.apply(int(acts[g]))
            bg.step(acts)
        assert [list(s.winners) for s in singles] == [np.flatnonzero(w).tolist() for w in bg.winners]


def test_random_actions_are_legal_and_cover_the_legal_set():
    bg = BatchedGames("zonk", 64, 2, seed=3)
    seen = np.zeros((64, NUM_ACTIONS), int)
    m = bg.legal_masks()
    for _ in range(200):
        a = bg.random_actions()
        assert m[np.arange(64), a].all()
        seen[np.arange(64), a] += 1
    # the same state every time (no step): every legal action is drawn, with roughly equal counts
    assert ((seen > 0) == m).all()
    counts = seen[m]
    assert counts.min() > 200 / m.sum(axis=1).max() / 3


@pytest.mark.parametrize("players", [2, 4])
def test_random_actions_from_masks_draw_the_same(players):
    """Drawn from the legal masks, the random picks are the same actions from the same draws as when
    the kernels decide each roll's keeps again (every variant on: piggyback and challenge decisions,
    pyramiding's keeps)."""
    from zilch_env.engine import layout as L

    rs = load_ruleset("zonk", {"target": 3000, **_EVERY_VARIANT})
    a, b = BatchedGames(rs, 32, players, seed=5), BatchedGames(rs, 32, players, seed=5)
    masks = np.zeros((32, NUM_ACTIONS), dtype=bool)
    phases = set()
    for _ in range(400):
        acts = a.random_actions()
        b.legal_masks(masks)
        assert (b.random_actions(masks) == acts).all()
        phases.update(a._st[:, L.PHASE].tolist())
        a.step(acts)
        b.step(acts)
        a.reset(np.flatnonzero(a.done))
        b.reset(np.flatnonzero(b.done))
    assert {L.PIGGYBACK, L.CHALLENGE, L.KEEP} <= phases
    assert (a.random_actions() == b.random_actions()).all()  # the streams are where they were
    with pytest.raises(ValueError, match=r"masks: expected .*shape \(32, 136\); got int64 array"):
        b.random_actions(masks.astype(np.int64))
    with pytest.raises(ValueError, match=r"got list"):
        b.random_actions(masks.tolist())


def test_batch_agent_specs():
    assert builtin_kernel_agent("greedy") == KernelAgent("greedy", 300, 2)
    assert builtin_kernel_agent("greedy:500").threshold == 500
    assert builtin_kernel_agent(GreedyMover(450, 3)) == KernelAgent("greedy", 450, 3)
    assert builtin_kernel_agent("random").kind == "random"
    with pytest.raises(ValueError, match="batched engine plays"):
        builtin_kernel_agent("heuristic")


_EVERY_VARIANT = {"variants.pyramiding": True, "variants.challenge": True, "variants.piggyback": True,
                  "variants.overcoming": True, "variants.six_dice_zilch_bonus": 500,
                  "variants.zilch_penalty": {"count": 2, "points": 300, "mode": "subtract"}}


@pytest.mark.parametrize("preset", ["zonk", "zilch", "zilch15k", "farkle"])
@pytest.mark.parametrize("variant", ["pyramiding", "challenge", "piggyback", "every"])
def test_differential_turn_start_variants(preset, variant):
    """The variants that add a decision before the first roll (challenge, piggyback) or keeps that
    join dice frozen earlier in the pass (pyramiding), alone and all together, in both engines."""
    overrides = _EVERY_VARIANT if variant == "every" else {f"variants.{variant}": True}
    rs = load_ruleset(preset, {"target": 6000, **overrides})
    for players, keyed in ((2, True), (3, False)):
        differential(rs, players, 60, seed=players + len(variant), keyed=keyed)


@pytest.mark.parametrize("players", [1, 4, 6])
def test_differential_every_variant_player_counts(players):
    differential(load_ruleset("zonk", {"target": 4000, **_EVERY_VARIANT}), players, 40, seed=players,
                 keyed=True, first=players - 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_players = 7"):
        BatchedGames("zonk", 2, 7)
    with pytest.raises(ValueError, match="num_games = 0"):
        BatchedGames("zonk", 0, 2)
    with pytest.raises(ValueError, match="first"):
        BatchedGames("zonk", 2, 2, first=2)
    bg = BatchedGames("zonk", 2, 2, seed=0)
    with pytest.raises(ValueError, match="shape"):
        bg.step([0])
    assert bg.step([1, 1]).all()  # mask 0 keeps nothing: illegal, games unchanged
    assert bg.decisions.tolist() == [0, 0]


def test_seeded_batches_are_reproducible():
    a, b = BatchedGames("zonk", 8, 3, seed=11), BatchedGames("zonk", 8, 3, seed=11)
    for _ in range(300):
        acts = a.random_actions()
        assert (acts == b.random_actions()).all()
        a.step(acts)
        b.step(acts)
        a.reset(np.flatnonzero(a.done))
        b.reset(np.flatnonzero(b.done))
    assert (a.scores == b.scores).all()
    assert a.play_random(500) == b.play_random(500)
    # game b of a batch seeded s rolls the keyed dice stream_keys(s, G)[b]
    c = BatchedGames("zonk", 3, 2, seed=11)
    first = GameState("zonk", 2, dice=KeyedDice(stream_keys(11, 3)[2])).roll
    assert c.rolls[2].tolist() == list(first)


def test_dice_kinds_cannot_be_mixed():
    with pytest.raises(ValueError, match="not both"):
        BatchedGames("zonk", 2, 2, dice=[1, 2], dice_keys=[1, 2])
    bg = BatchedGames("zonk", 2, 2, seed=1)
    with pytest.raises(ValueError, match="keyed dice"):
        bg.reset(dice=[1, 2])
    with pytest.raises(ValueError, match="one per game"):
        BatchedGames("zonk", 2, 2, dice_keys=[1])


def test_keyed_dice_copies_roll_the_same():
    g = GameState("zonk", 2, dice=KeyedDice(123))
    c = g.clone()
    for _ in range(5):
        a = g.legal_actions()[0]
        g.apply(a)
        c.apply(a)
        assert g.roll == c.roll


# --------------------------------------------------------------------------------------------
# Observations and the VecEnv


@pytest.mark.parametrize("preset", PRESETS)
def test_observations_equal_observe(preset):
    """The batched observation of every seat equals zilch_env.observe of the same single-engine
    state, bit for bit, after every step of random games; the per-keep fields (layout 2) included,
    and not trivially: legal keeps show their points, and hot dice keeps all the dice to roll."""
    from zilch_env import observe
    from zilch_env.engine.observation import LAYOUT

    at = {f.name: f.index for f in LAYOUT}
    keep_points = keep_hot = 0
    from zilch_env.engine.observation import OBS_HIGH, OBS_LOW

    below = 0
    for players, overrides in ((2, {}), (3, {"variants.overcoming": True, "tie": "tiebreak"}),
                               (3, {"target": 4000, **_EVERY_VARIANT}),
                               # scores below zero (clipped to 0 in the score field), partial straights
                               (2, {"target": 3000, "score_floor": -3000, "entry_threshold": 0,
                                    "variants.zilch_penalty": {"count": 1, "points": 400, "mode": "subtract"},
                                    "scoring.partial_straights": {"12345": 500}})):
        rs = load_ruleset(preset, overrides)
        keys = stream_keys(players, 16)
        bg = BatchedGames(rs, 16, players, dice_keys=keys)
        singles = [GameState(rs, players, dice=KeyedDice(k)) for k in keys]
        rng = np.random.default_rng(0)
        while True:
            for seat in range(players):
                got = bg.observe(seat)
                for g, s in enumerate(singles):
                    want = observe(s, seat)
                    if not np.array_equal(got[g], want):
                        bad = np.flatnonzero(got[g] != want)
                        pytest.fail(f"{preset}: game {g} seat {seat}: observation differs at {bad.tolist()}: "
                                    f"batched {got[g][bad].tolist()}, observe {want[bad].tolist()}")
            keep_points += int(np.count_nonzero(got[:, at["keep_points"]]))
            keep_hot += int(np.count_nonzero(got[:, at["keep_dice"]] == 1.0))
            assert np.all(got >= OBS_LOW) and np.all(got <= OBS_HIGH), f"{preset}: {overrides}"
            below += sum(min(s.scores) < 0 for s in singles)
            if bg.done.all():
                break
            actions = np.zeros(16, np.int64)
            for g, s in enumerate(singles):
                if not s.done:
                    legal = s.legal_actions()
                    actions[g] = legal[int(rng.integers(len(legal)))]
                    s.apply(int(actions[g]))
            bg.step(actions)
    assert keep_points > 0 and keep_hot > 0 and below > 0


def _mirror_run(rs, players, n_envs, steps, seed, reward="win", turns=None, opponent="greedy", illegal_every=0):
    """Run BatchedZilchVecEnv beside one real Zilch-v0 per env that rolls the same keyed dice, sits in
    the same seat and meets the same opponents; compare every observation, mask, reward, done and info."""
    from zilch_env.envs.gym_env import ZilchEnv
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    batched_opponent = first_legal_batch if opponent == "first" else opponent
    venv = BatchedZilchVecEnv(rs, n_envs, players, seed=seed, opponent=batched_opponent, reward=reward,
                              turns=turns)
    opp = {"greedy": GreedyMover(), "greedy:500": GreedyMover(500), "first": FirstLegal()}
    envs = [ZilchEnv(rs, players, opponents=opp[opponent], reward=reward, turns=turns) for _ in range(n_envs)]
    for env, key in zip(envs, stream_keys(seed, n_envs)):
        env._dice = KeyedDice(key)  # the VecEnv's dice of this env, going on across episodes
    obs = venv.reset()

    def start(i):
        envs[i].fixed_seat = int(venv.seats[i])
        o, _ = envs[i].reset()
        return o

    for i in range(n_envs):
        assert np.array_equal(start(i), obs[i]), f"env {i}: first observation"
    rng = np.random.default_rng(seed)
    episodes = 0
    for t in range(steps):
        masks = venv.action_masks()
        actions = np.zeros(n_envs, np.int64)
        for i in range(n_envs):
            assert np.array_equal(masks[i], envs[i].action_masks()), f"step {t} env {i}: mask"
            legal = np.flatnonzero(masks[i])
            actions[i] = legal[int(rng.integers(len(legal)))]
        if illegal_every and t % illegal_every == 0:
            actions[t % n_envs] = 0  # keeps nothing: always illegal
        obs, rewards, dones, infos = venv.step(actions)
        for i in range(n_envs):
            o, r, term, trunc, info = envs[i].step(actions[i])
            where = f"step {t} env {i}"
            assert np.isclose(rewards[i], r), f"{where}: reward {rewards[i]} vs {r}"
            assert dones[i] == (term or trunc), where
            assert infos[i].get("turn_points", 0) == info["turn_points"], where
            if dones[i]:
                episodes += 1
                got = infos[i]
                assert np.array_equal(got["terminal_observation"], o), f"{where}: terminal observation"
                assert got["TimeLimit.truncated"] == (trunc and not term), where
                assert got["seat"] == info["seat"] and got["agent_turns"] == info["agent_turns"], where
                assert got["illegal_action"] == info["illegal_action"], where
                for k in ("game_over", "winners", "final_scores", "is_success", "game_turns"):
                    assert np.array_equal(got[k], info[k]), f"{where}: {k}"
                assert np.array_equal(start(i), obs[i]), f"{where}: observation after the reset"
            else:
                assert np.array_equal(obs[i], o), f"{where}: observation"
    return episodes


@pytest.mark.parametrize("preset,players", [("zonk", 2), ("zilch", 3), ("zilch15k", 2), ("farkle", 4)])
def test_vec_env_equals_zilch_v0(preset, players):
    assert _mirror_run(load_ruleset(preset), players, 8, 600, seed=players) > 10


def test_vec_env_equals_zilch_v0_with_every_variant():
    rs = load_ruleset("zonk", {"target": 3000, **_EVERY_VARIANT})
    assert _mirror_run(rs, 3, 8, 600, seed=5) > 5


def test_vec_env_score_reward_truncation_and_illegal_actions():
    rs = load_ruleset("farkle")
    assert _mirror_run(rs, 1, 6, 400, seed=2, reward="score", turns=5, illegal_every=37) > 20
    assert _mirror_run(rs, 2, 6, 300, seed=3, reward="score", turns=4, opponent="greedy:500") > 10


def test_vec_env_batch_policy_opponent():
    assert _mirror_run(load_ruleset("zonk"), 3, 6, 300, seed=4, opponent="first") > 5


def test_vec_env_random_opponents_and_sb3_api():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    venv = BatchedZilchVecEnv("zonk", 16, 3, seed=5, opponent=["random", "greedy"])
    assert is_masking_supported(venv)
    mon = VecMonitor(venv)
    obs = mon.reset()
    assert obs.shape == (16, venv.observation_space.shape[0]) and venv.observation_space.contains(obs[0])
    rng = np.random.default_rng(0)
    results = {"random": [], "greedy": []}
    for _ in range(3000):
        masks = get_action_masks(mon)
        assert masks.shape == (16, NUM_ACTIONS) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = mon.step(actions)
        for i in np.flatnonzero(dones):
            assert "episode" in infos[i] and rewards[i] in (-1.0, 0.0, 1.0)
            results["random" if i % 2 == 0 else "greedy"].append(rewards[i])
    # a random agent beats random opponents far more often than greedy ones
    assert np.mean(np.array(results["random"]) == 1) > np.mean(np.array(results["greedy"]) == 1) + 0.1
    # seeding: the same seed gives the same episodes
    a, b = BatchedZilchVecEnv("zonk", 4, 2, seed=9), BatchedZilchVecEnv("zonk", 4, 2, seed=1)
    b.seed(9)
    oa, ob = a.reset(), b.reset()
    assert np.array_equal(oa, ob)
    for _ in range(50):
        acts = a.action_masks().argmax(axis=1)
        ra, rb = a.step(acts), b.step(acts)
        assert np.array_equal(ra[0], rb[0]) and np.array_equal(ra[1], rb[1])
    assert venv.get_attr("seat") == venv.seats.tolist()
    assert len(venv.env_method("action_masks", indices=[0, 2])) == 2
    with pytest.raises(AttributeError, match="action_masks"):
        venv.env_method("render")


def test_vec_env_bad_arguments():
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    with pytest.raises(ValueError, match="opponent 'heuristic'"):
        BatchedZilchVecEnv("zonk", 2, 2, opponent="heuristic")
    with pytest.raises(ValueError, match="reward = 'points'"):
        BatchedZilchVecEnv("zonk", 2, 2, reward="points")
    venv = BatchedZilchVecEnv("zonk", 2, 2, seed=0, illegal_action="raise")
    venv.reset()
    with pytest.raises(Exception, match="env 0: action 0 is not legal"):
        venv.step(np.array([0, int(venv.action_masks()[1].argmax())]))


def test_maskable_ppo_learns_on_the_batched_vec_env():
    from sb3_contrib import MaskablePPO

    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    venv = BatchedZilchVecEnv("zilch5k", 16, 2, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, n_epochs=1, seed=0, device="cpu")
    model.learn(1024)
    assert model.num_timesteps >= 1024


def test_bench_script_runs(capsys):
    """bench/batched.py end to end on tiny budgets (engine, VecEnv and PPO tables)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "bench" / "batched.py"
    spec = importlib.util.spec_from_file_location("bench_batched", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--seconds", "0.05", "--rounds", "1", "--sizes", "1", "8", "--vec-sizes", "4",
              "--ppo-envs", "4", "--ppo-steps", "64"])
    out = capsys.readouterr().out
    assert "| fused | 8 |" in out and "| BatchedZilchVecEnv | 4 |" in out and "MaskablePPO" in out


def test_engine_proof_script_runs(capsys):
    """bench/engine_proof.py (the two engines move for move on many games) on a tiny budget."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "bench" / "engine_proof.py"
    spec = importlib.util.spec_from_file_location("engine_proof", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--games", "12", "--chunk", "6", "--only", "zonk/every", "cardgames/plain"]) == 0
    out = capsys.readouterr().out
    assert "all equal: 24 games in 2 configurations" in out
    with pytest.raises(SystemExit):
        mod.main(["--only", "nope"])

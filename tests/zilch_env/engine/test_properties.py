"""Property tests: random legal play under any preset and any mix of variants never reaches an
inconsistent state, and every refused action leaves the game exactly as it was."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zilch_env import NUM_ACTIONS, PRESETS, GameState, IllegalActionError, Phase, load_ruleset
from zilch_env.rules.scoring import BONUS_KEEPS

variants = st.fixed_dictionaries(
    {
        "variants.pyramiding": st.booleans(),
        "variants.challenge": st.booleans(),
        "variants.overcoming": st.booleans(),
        "variants.piggyback": st.booleans(),
        "variants.six_dice_zilch_bonus": st.sampled_from([0, 500]),
        "variants.zilch_penalty.count": st.sampled_from([0, 2, 3]),
        "variants.zilch_penalty.points": st.sampled_from([0, 500]),
        "variants.zilch_penalty.mode": st.sampled_from(["subtract", "halve", "reset"]),
        "target": st.sampled_from([1000, 3000, 6000]),
        "entry_threshold": st.sampled_from([0, 300, 500, 1000]),
        "min_bank": st.sampled_from([0, 300]),
    }
)


def check_invariants(g: GameState) -> None:
    rs = g.ruleset
    assert all(s >= 0 for s in g.scores)
    assert 0 <= g.permanent <= g.turn_total or g.turn_total == 0
    if g.done:
        assert g.winners and set(g.winners) <= set(range(g.num_players))
        best = max(g.scores)
        assert all(g.scores[w] == best for w in g.winners)
        assert g.legal_actions() == []
        return
    legal = g.legal_actions()
    assert legal, "a player to move always has a legal action"
    assert all(0 <= a < NUM_ACTIONS for a in legal) and legal == sorted(set(legal))
    if g.phase == Phase.KEEP:
        assert len(g.roll) == g.dice_left and 1 <= g.dice_left <= rs.dice
        assert list(g.roll) == sorted(g.roll)
        if rs.variants.pyramiding:
            assert sum(g.frozen) == rs.dice - g.dice_left  # kept and remaining dice add up
        if g.keeps() == BONUS_KEEPS:  # after a six-dice zilch bonus: keep nothing, bank or roll
            assert rs.variants.six_dice_zilch_bonus and g.dice_left == rs.dice and not g.roll_info.keeps
            assert legal[0] == 0 and set(legal) <= {0, 1}
        else:
            for k in g.keeps():
                assert k.n <= g.dice_left and k.points > 0
    for q in range(g.num_players):
        assert g.on_board[q] or g.scores[q] == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), overrides=variants, players=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_stays_consistent(preset, overrides, players, seed):
    g = GameState(load_ruleset(preset, overrides), players, seed=seed)
    r = random.Random(seed)
    for _ in range(20000):
        check_invariants(g)
        if g.done:
            break
        legal = g.legal_actions()
        # now and then try an illegal action: refused, and nothing changes
        if r.random() < 0.05:
            bad = r.randrange(NUM_ACTIONS)
            if bad not in legal:
                before = g.snapshot()
                try:
                    g.apply(bad)
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(f"illegal action {bad} was accepted")
                assert g.snapshot() == before
        g.apply(legal[r.randrange(len(legal))])
    assert g.done, "a game of random legal moves ends"
    check_invariants(g)
    try:
        g.apply(0)
    except IllegalActionError as e:
        assert "over" in str(e)
    else:
        raise AssertionError("a finished game accepted a move")

"""The Gymnasium environment Zilch-v0 and the observation encoder."""

from __future__ import annotations

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest

import zilch_env
from zilch_env import (
    NUM_ACTIONS,
    OBS_SIZE,
    GameState,
    GreedyMover,
    IllegalActionError,
    Phase,
    RandomMover,
    RulesetError,
    ZilchEnv,
    legal_keeps,
    load_ruleset,
    observe,
)
from zilch_env.engine import observation as obsmod
from zilch_env.engine.observation import LAYOUT, OBS_HIGH, OBS_LOW, PLAYER_FIELDS, field_values

from tests.conftest import CONFIGS, VARIANTS


def test_configs_are_what_they_say():
    assert set(zilch_env.PRESETS) <= set(CONFIGS)
    for name, (preset, overrides) in VARIANTS.items():
        rs = load_ruleset(preset, overrides)
        v = rs.variants
        on = {"pyramiding": v.pyramiding, "challenge": v.challenge, "overcoming": v.overcoming,
              "piggyback": v.piggyback, "six_dice_zilch_bonus": v.six_dice_zilch_bonus == 500,
              "penalty_halve": v.zilch_penalty.mode == "halve", "penalty_reset": v.zilch_penalty.mode == "reset"}
        assert on.get(name, all(on[k] for k in ("pyramiding", "challenge", "overcoming", "piggyback")))


def make(config: str, **kw) -> ZilchEnv:
    preset, overrides = CONFIGS[config]
    return ZilchEnv(preset, overrides=overrides, **kw)


def masked_random_episode(env: gym.Env, seed: int, rng: np.random.Generator, check=None):
    """Play one episode choosing uniformly among the legal actions; returns (steps, rewards, info)."""
    obs, info = env.reset(seed=seed)
    rewards = []
    for steps in range(1, 100_000):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.any(), "the mask is all zero while the agent is to move"
        if check:
            check(env, obs, info)
        action = rng.choice(np.flatnonzero(mask))
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        rewards.append(reward)
        if terminated or truncated:
            return steps, rewards, info, terminated, truncated
    raise AssertionError("the episode did not end")


# ------------------------------------------------------------------ API checkers


@pytest.mark.parametrize("config", list(CONFIGS))
def test_gymnasium_check_env(config):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(make(config), skip_render_check=True)
        check_env(make(config, num_players=3, reward="score"), skip_render_check=True)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_sb3_check_env(config):
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(make(config), warn=True)
        check_env(make(config, num_players=3, reward="score"), warn=True)


def test_registered_and_render_modes_checked(capsys):
    from gymnasium.utils.env_checker import check_env

    env = gym.make("Zilch-v0", ruleset="farkle", num_players=3)
    assert env.spec.id == "Zilch-v0"
    assert env.unwrapped.ruleset.name == "farkle" and env.unwrapped.num_players == 3
    check_env(env.unwrapped)  # with a spec: also makes the env in each render mode and renders it
    assert "P1" in capsys.readouterr().out  # the "human" mode printed the game


# ------------------------------------------------------------------ play, masks, determinism


@pytest.mark.parametrize("config", list(CONFIGS))
def test_masked_random_play_reaches_the_end(config):
    rng = np.random.default_rng(1)
    # against the default greedy opponents, and with every seat random (several players)
    for env in (make(config), make(config, num_players=3, opponents=RandomMover())):
        for seed in range(3):
            steps, rewards, info, terminated, truncated = masked_random_episode(env, seed, rng)
            assert terminated and not truncated
            state = env.unwrapped.state
            assert state.done and info["game_over"]
            assert np.flatnonzero(info["winners"]).tolist() == list(state.winners)
            assert info["final_scores"].tolist() == state.scores
            assert not info["action_mask"].any() and not env.unwrapped.action_masks().any()
            winners = state.winners
            expected = 0.0 if (env.unwrapped.seat in winners and len(winners) > 1) else (
                1.0 if env.unwrapped.seat in winners else -1.0)
            assert rewards[-1] == expected and not any(rewards[:-1])
            assert info["is_success"] == (winners == (env.unwrapped.seat,))
            with pytest.raises(RuntimeError, match="reset"):
                env.step(0)


def test_mask_equals_engine_legal_actions_on_thousands_of_states():
    rng = np.random.default_rng(7)
    seen = {"states": 0, "keep": 0, "turn_start": 0}

    def check(env, obs, info):
        state = env.unwrapped.state
        legal = state.legal_actions()
        assert state.current == env.unwrapped.seat and not state.done
        assert np.flatnonzero(info["action_mask"]).tolist() == sorted(legal)
        assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
        assert np.array_equal(env.unwrapped.action_masks(), state.legal_mask())
        rs = state.ruleset
        if state.phase == Phase.KEEP:
            seen["keep"] += 1
            keep_masks = {a >> 1 for a in legal}
            if not rs.variants.pyramiding or not any(state.frozen):
                # cross-check with the scoring table: every canonical scoring keep, or the best one
                table = {k.mask for k in legal_keeps(rs, state.roll)}
                if not table and rs.variants.six_dice_zilch_bonus:  # after the bonus: keep nothing
                    assert keep_masks == {0} and len(state.roll) == rs.dice
                elif rs.keep == "free":
                    assert keep_masks == table
                else:
                    assert len(keep_masks) == 1 and keep_masks <= table
            assert all(a < 128 for a in legal)
        else:
            seen["turn_start"] += 1
            assert all(a >= 128 for a in legal)
        seen["states"] += 1

    for config in CONFIGS:
        env = make(config, num_players=3, opponents=RandomMover())
        for seed in range(4):
            masked_random_episode(env, seed, rng, check)
    assert seen["states"] >= 3000 and seen["turn_start"] >= 50, seen


def test_same_seed_same_episode():
    def run(seed, config):
        env = make(config, num_players=3, opponents=[RandomMover(), GreedyMover(400)])
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        trace = [(obs.copy(), info["scores"], env.seat)]
        while True:
            obs, r, term, trunc, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
            trace.append((obs.copy(), r, info["scores"], info["turn_total"]))
            if term or trunc:
                return trace, env.unwrapped.state.to_record()

    def two_episodes(seed):
        env = ZilchEnv("farkle", num_players=2)
        rng = np.random.default_rng(0)
        records = []
        for s in (seed, None):  # a seeded reset, then an unseeded one that carries on from it
            _, info = env.reset(seed=s)
            while True:
                *_, term, trunc, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
                if term or trunc:
                    break
            records.append((env.seat, env.state.to_record()))
        return records

    assert two_episodes(9) == two_episodes(9)
    first, second = two_episodes(9)
    assert first[1]["rolls"] != second[1]["rolls"]
    for config in ("zonk", "all_variants"):
        a, rec_a = run(3, config)
        b, rec_b = run(3, config)
        assert rec_a == rec_b and len(a) == len(b)
        for x, y in zip(a, b):
            assert all(np.array_equal(p, q) for p, q in zip(x, y))
        c, rec_c = run(4, config)
        assert rec_c["rolls"] != rec_a["rolls"]


def test_seat_drawn_per_reset_or_fixed():
    env = ZilchEnv(num_players=3)
    seats = set()
    for seed in range(40):
        _, info = env.reset(seed=seed)
        seats.add(info["seat"])
        assert env.unwrapped.state.current == info["seat"]
        # the agent's own block comes first: its to_move flag is set
        assert field_values(observe(env.state, env.seat))["players"][0, 4] == 1
    assert seats == {0, 1, 2}
    env = ZilchEnv(num_players=3, seat=2)
    for seed in range(5):
        assert env.reset(seed=seed)[1]["seat"] == 2


def test_score_reward_counts_the_agents_turns_and_truncates():
    rng = np.random.default_rng(0)
    for config in ("zonk", "farkle", "zilch", "penalty_reset"):
        env = make(config, reward="score", turns=6)
        for seed in range(4):
            steps, rewards, info, terminated, truncated = masked_random_episode(env, seed, rng)
            # without challenges the agent's score only moves in its own turns
            assert sum(rewards) == info["scores"][env.seat]
            assert truncated != terminated
            if truncated:
                # the 6th turn ended in this step; a 7th can only have ended too if it needed no
                # decision (a zilch on its first roll)
                state = env.unwrapped.state
                mine = [t for t in state.turns if t["player"] == env.seat]
                assert info["agent_turns"] == len(mine) >= 6
                assert all(not t["banked"] for t in mine[6:])
                assert state.current == env.seat  # the next decision, to bootstrap from
    assert ZilchEnv(reward="score").turns == zilch_env.envs.gym_env.DEFAULT_SCORE_TURNS
    assert ZilchEnv().turns is None
    # "win" with a turn limit: truncated with no reward
    env = ZilchEnv(turns=2)
    steps, rewards, info, terminated, truncated = masked_random_episode(env, 0, rng)
    assert truncated and not terminated and rewards == [0.0] * steps and info["agent_turns"] == 2


def test_score_reward_under_challenge_counts_only_own_turns():
    """Being challenged costs the agent points in an opponent's turn: not part of its reward."""
    rng = np.random.default_rng(5)
    lost_to_challenges = 0
    for seed in range(30):
        env = make("challenge", reward="score", turns=40, opponents=RandomMover())
        _, rewards, info, _, _ = masked_random_episode(env, seed, rng)
        state = env.unwrapped.state
        taken = sum(t["turn_total"] for t in state.turns
                    if t["banked"] and t["challenged"] == env.seat and t["player"] != env.seat)
        lost_to_challenges += taken
        assert sum(rewards) >= info["scores"][env.seat]
    assert lost_to_challenges > 0  # the situation was exercised


def test_turn_points_in_info_match_turn_results():
    env = ZilchEnv("zonk", seat=0)
    rng = np.random.default_rng(2)
    obs, info = env.reset(seed=11)
    total = 0
    while True:
        n_turns = len(env.state.turns)
        obs, r, term, trunc, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
        mine = [t for t in env.state.turns[n_turns:] if t["player"] == 0]
        assert info["turn_points"] == sum(t["recorded"] for t in mine)  # zonk has no penalties
        total += info["turn_points"]
        if term:
            break
    assert total == env.state.scores[0]


# ------------------------------------------------------------------ illegal actions


def test_illegal_action_penalty():
    env = ZilchEnv("zonk", reward="win")
    obs, info = env.reset(seed=0)
    before = env.state.snapshot()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert terminated and not truncated and reward == -1.0
    assert info2["illegal_action"] is True and "illegal_reason" in info2
    assert np.array_equal(obs, obs2) and env.state.snapshot() == before
    with pytest.raises(RuntimeError):
        env.step(illegal)
    # out of range, not a whole number, a wrong-sized array: all illegal, never a crash
    for bad in (NUM_ACTIONS, -1, 2.5, "3", np.array([1, 2]), True):
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step(bad)
        assert terminated and reward == -1.0 and info["illegal_action"]
    score_env = ZilchEnv("farkle", reward="score")
    _, info = score_env.reset(seed=0)
    _, reward, *_ = score_env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert reward == -10000.0


def test_illegal_action_raise():
    env = ZilchEnv("zonk", illegal_action="raise")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.state.snapshot()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.state.snapshot() == before
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # the game goes on


def test_legal_actions_as_numpy_types_and_arrays():
    env = ZilchEnv("zonk")
    for convert in (int, np.int64, np.int32, lambda a: np.array(a), lambda a: np.array([a])):
        _, info = env.reset(seed=0)
        _, _, _, _, info = env.step(convert(int(np.flatnonzero(info["action_mask"])[0])))
        assert not info["illegal_action"]


def test_opponent_making_an_illegal_move_is_an_error():
    class Cheater:
        name = "cheater"

        def act(self, state, legal, rng):
            return 127

    env = ZilchEnv("zonk", opponents=Cheater(), seat=1)
    with pytest.raises(IllegalActionError, match="cheater"):
        env.reset(seed=0)


def test_opponents_listed_in_the_order_they_play_after_the_agent():
    class Recorder(GreedyMover):
        def __init__(self, tag):
            super().__init__()
            self.tag, self.seats = tag, set()

        def act(self, state, legal, rng):
            self.seats.add(state.current)
            return super().act(state, legal, rng)

    rng = np.random.default_rng(0)
    for seat in range(3):
        a, b = Recorder("a"), Recorder("b")
        env = ZilchEnv("zilch", num_players=3, opponents=[a, b], seat=seat)
        masked_random_episode(env, 0, rng)
        assert a.seats == {(seat + 1) % 3} and b.seats == {(seat + 2) % 3}


def test_env_pickles_mid_game():
    import pickle

    env = ZilchEnv("farkle")
    _, info = env.reset(seed=0)
    clone = pickle.loads(pickle.dumps(env))
    a = int(np.flatnonzero(info["action_mask"])[0])
    assert np.array_equal(env.step(a)[0], clone.step(a)[0])


def test_bad_arguments_name_the_value():
    with pytest.raises(RulesetError, match="nosuch"):
        ZilchEnv("nosuch")
    with pytest.raises(ValueError, match="num_players = 7"):
        ZilchEnv(num_players=7)
    with pytest.raises(ValueError, match="seat = 2"):
        ZilchEnv(num_players=2, seat=2)
    with pytest.raises(ValueError, match="reward = 'points'"):
        ZilchEnv(reward="points")
    with pytest.raises(ValueError, match="turns = 0"):
        ZilchEnv(turns=0)
    with pytest.raises(ValueError, match="illegal_action = 'ignore'"):
        ZilchEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode = 'rgb'"):
        ZilchEnv(render_mode="rgb")
    with pytest.raises(ValueError, match="3 given"):
        ZilchEnv(num_players=3, opponents=[GreedyMover()] * 3)
    with pytest.raises(TypeError, match="opponent 3 is not a policy"):
        ZilchEnv(opponents=3)
    with pytest.raises(ValueError, match="greedy:fast: expected a turn total"):
        ZilchEnv(opponents="greedy:fast")  # a greedy spec whose threshold does not read
    with pytest.raises(ValueError, match="unknown opponent 'fastest'"):
        ZilchEnv(opponents="fastest")
    with pytest.raises(RuntimeError, match="reset"):
        ZilchEnv().step(0)


def test_ruleset_object_path_and_overrides(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('extends = "zonk"\nname = "mine"\ntarget = 3000\n')
    assert ZilchEnv(str(path)).ruleset.target == 3000
    assert ZilchEnv(path).ruleset.name == "mine"
    rs = load_ruleset("farkle")
    assert ZilchEnv(rs).ruleset is rs
    assert ZilchEnv(rs, overrides={"target": 2000}).ruleset.target == 2000
    assert gym.make("Zilch-v0", ruleset="zonk", overrides={"variants.piggyback": True}).unwrapped.ruleset.variants.piggyback


def test_one_and_six_players():
    rng = np.random.default_rng(0)
    env = ZilchEnv("zilch", num_players=1)
    _, rewards, info, terminated, _ = masked_random_episode(env, 0, rng)
    assert terminated and info["winners"].tolist() == [True] and rewards[-1] == 1.0
    env = ZilchEnv("zilch", num_players=6, opponents=[GreedyMover(t) for t in (300, 350, 400, 500, 1000)])
    for seed in range(3):
        _, _, info, terminated, _ = masked_random_episode(env, seed, rng)
        assert terminated and len(info["final_scores"]) == 6


# ------------------------------------------------------------------ vector envs and training


def test_sync_vector_env():
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("Zilch-v0", ruleset="farkle") for _ in range(3)])
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (3, OBS_SIZE)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(400):
        masks = infos["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, rewards, term, trunc, infos = envs.step(actions)
        episodes += int(term.sum())
        assert not infos["illegal_action"].any()
    assert episodes > 0
    envs.close()


def test_dummy_vec_env():
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: ZilchEnv("zonk") for _ in range(2)])
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape == (2, OBS_SIZE)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(400):
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.any(axis=1).all()  # a finished env has already been reset
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        episodes += int(dones.sum())
        for d, info in zip(dones, infos):
            if d:
                assert "terminal_observation" in info and "winners" in info
    assert episodes > 0


@pytest.fixture
def one_torch_thread():
    """Tiny networks train fastest on one thread; more only contend with other work on the machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_maskable_ppo_smoke(one_torch_thread):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    # SB3 asks for render_mode="rgb_array" by default, which Zilch-v0 has
    venv = make_vec_env("Zilch-v0", n_envs=2, seed=0, env_kwargs={"ruleset": "zonk"})
    assert venv.render_mode == "rgb_array"
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=128, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [32, 32]}, device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs = venv.reset()
    for _ in range(50):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert all(m[a] for m, a in zip(masks, actions))
        obs, _, _, _ = venv.step(actions)


# ------------------------------------------------------------------ render


def test_render_ansi_and_human(capsys):
    env = ZilchEnv("zonk", render_mode="ansi", seat=1)
    _, info = env.reset(seed=0)
    text = env.render()
    assert "P2 (you)" in text and "P1 rolls" in text and "Legal:" in text
    a = int(np.flatnonzero(info["action_mask"])[0])
    desc = env.state.describe(a)
    env.step(a)
    text = env.render()
    assert desc in text and "to move" in text
    human = ZilchEnv("zonk", render_mode="human")
    human.reset(seed=0)
    assert "(you)" in capsys.readouterr().out
    with pytest.warns(UserWarning):
        assert ZilchEnv().render() is None


# ------------------------------------------------------------------ the observation


def test_layout_is_contiguous_and_documented():
    pos = 0
    for f in LAYOUT:
        assert f.index.start == pos and f.index.stop > pos
        pos = f.index.stop
    assert pos == OBS_SIZE == zilch_env.OBS_SIZE
    assert np.all(OBS_LOW <= OBS_HIGH) and np.all(OBS_HIGH > OBS_LOW)
    # the module docstring's table and the env's table list every field with its size, in order
    doc_rows = re.findall(r"^(\w+)\s+(\d+|6x10)\s", obsmod.__doc__, re.M)
    assert [name for name, _ in doc_rows] == [f.name for f in LAYOUT]
    for (name, size), f in zip(doc_rows, LAYOUT):
        assert eval(size.replace("x", "*")) == f.index.stop - f.index.start, name
    env_rows = re.findall(r"^\s+\| (\w+)\s+\| (\d+)\s+\|", ZilchEnv.__doc__, re.M)
    env_rows = [(n, s) for n, s in env_rows if n != "action"]
    assert [n for n, _ in env_rows] == [f.name for f in LAYOUT]
    assert all(int(s) == f.index.stop - f.index.start for (_, s), f in zip(env_rows, LAYOUT))
    assert f"({OBS_SIZE},)" in ZilchEnv.__doc__


def test_observation_fields_from_a_scripted_game():
    rs = load_ruleset("zonk", {"variants.overcoming": True})
    # seat 0 rolls 1 1 5 2 3 4 -> sorted 1 1 2 3 4 5
    g = GameState(rs, 3, dice=[[1, 1, 5, 2, 3, 4], [1, 6, 2]])
    v = field_values(observe(g, 0))
    assert v["phase"].tolist() == [0, 0, 1, 0] and v["to_move"][0] == 1
    assert v["roll_counts"].tolist() == pytest.approx([2 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 0])
    rows = v["roll_dice"].reshape(6, 6)
    assert [int(np.argmax(r)) + 1 for r in rows] == [1, 1, 2, 3, 4, 5]
    assert v["dice_left"][0] == 1.0 and v["turn_total"][0] == 0
    assert v["bank_threshold"][0] == pytest.approx(500 / 10000) == v["to_bank"][0]
    assert v["bank_allowed"][0] == 0  # nothing reaches 500 (1 1 5 = 250)
    assert v["players"][:3, 0].tolist() == [1, 1, 1] and v["players"][3:, 0].tolist() == [0, 0, 0]
    assert v["players"][0, 9] == 1  # seat 0 started
    assert v["rules"][0] == 1.0 and v["rules"][1] == pytest.approx(0.5) and v["rules"][10] == 1.0
    # seat 2 sees itself first, then seat 0 (the player to move) second
    w = field_values(observe(g, 2))
    assert w["to_move"][0] == 0 and w["players"][1, 4] == 1 and w["players"][0, 4] == 0
    assert w["bank_allowed"][0] == 0
    g.apply(zilch_env.keep_action(0b100011, False))  # keep 1 1 5 (250), roll the 3 others: 1 2 6
    v = field_values(observe(g, 0))
    assert v["turn_total"][0] == pytest.approx(0.025) and v["dice_left"][0] == pytest.approx(3 / 6)
    assert v["roll_counts"].tolist() == pytest.approx([1 / 6, 1 / 6, 0, 0, 0, 1 / 6])
    assert v["roll_dice"].reshape(6, 6)[3:].sum() == 0  # positions beyond the 3 dice are empty
    assert v["to_bank"][0] == pytest.approx(250 / 10000)
    assert v["to_overcome"][0] == 0  # last_result is 0, 250 beats it


def test_observation_scores_streaks_final_round_and_clipping():
    rs = load_ruleset("farkle")
    g = GameState(rs, 2, seed=0)
    g.scores = [60000, 9000]  # beyond the clip
    g.zilch_streak = [0, 2]
    g.on_board = [True, True]
    g.final_queue = [1]
    for seat in (0, 1):
        o = observe(g, seat)
        assert np.all(o >= OBS_LOW) and np.all(o <= OBS_HIGH)
    v = field_values(observe(g, 1))
    assert v["players"][0, 1] == pytest.approx(0.9) and v["players"][1, 1] == 4.0
    assert v["players"][0, 3] == pytest.approx(2 / 3)
    assert v["lead"][0] == -4.0 and v["deficit"][0] == 4.0
    assert v["final_round"][0] == 1 and v["final_turns_left"][0] == pytest.approx(1 / 6)
    assert v["players"][0, 5] == 1 and v["players"][1, 5] == 0
    with pytest.raises(ValueError, match="seat 2"):
        observe(g, 2)


def test_observation_variant_state():
    rs = load_ruleset("zonk", {"variants.piggyback": True, "variants.challenge": True,
                               "variants.pyramiding": True})
    rng = np.random.default_rng(0)
    seen = set()
    for seed in range(40):
        g = GameState(rs, 2, seed=seed)
        while not g.done:
            v = field_values(observe(g, g.current))
            assert np.all(observe(g, g.current) <= OBS_HIGH)
            if g.phase == Phase.PIGGYBACK:
                seen.add("offer")
                assert v["offer"][0] == 1 and v["offer"][1] == pytest.approx(g.offer[0] / rs.target)
            if g.phase == Phase.CHALLENGE:
                seen.add("challenge")
                assert v["challenge_options"][:2].max() == 1
            if g.phase == Phase.KEEP and any(g.frozen):
                seen.add("frozen")
                assert v["frozen"].tolist() == pytest.approx([c / 6 for c in g.frozen])
            if g.challenged is not None:
                seen.add("challenged")
                assert v["players"][(g.challenged - g.current) % 2, 6] == 1
            legal = g.legal_actions()
            g.apply(legal[int(rng.integers(len(legal)))])
    assert seen == {"offer", "challenge", "frozen", "challenged"}


def test_observation_is_pure():
    g = GameState("zonk", 2, seed=3)
    snap = g.snapshot()
    a, b = observe(g, 0), observe(g, 0)
    assert np.array_equal(a, b) and a is not b and a.dtype == np.float32 and a.shape == (OBS_SIZE,)
    assert g.snapshot() == snap
    assert len(PLAYER_FIELDS) * 6 == LAYOUT[[f.name for f in LAYOUT].index("players")].index.stop - \
        LAYOUT[[f.name for f in LAYOUT].index("players")].index.start


def test_bench_script_runs():
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[3] / "bench" / "env.py"
    out = subprocess.run([sys.executable, str(script), "--steps", "300", "--rounds", "2", "--ruleset", "farkle",
                          "--set", "variants.piggyback=true", "--profile", "3"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert re.search(r"ratio: Zilch-v0 runs at [\d.]+ of the trivial env's speed", out)
    assert "ruleset farkle" in out and "profile of the Zilch loop" in out

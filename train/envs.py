"""The environments a ``train/ppo.py`` run learns in: its opponents (``--opponents``, what ``auto``
means for a ruleset), the DummyVecEnv of ``Zilch-v0`` envs or the batched engine's VecEnv, and the
shaping potential (``--shaping``) they pay."""

from __future__ import annotations

import dataclasses
from typing import Any
import gymnasium as gym
import numpy as np
from zilch_env import Ruleset
from train.args import Args, shaping_cache_mb
from train.report import shapeable_game_table, stored_game_table
from train.wrappers import ScaledReward, turn_returns


# --------------------------------------------------------------------------------------------
# Environments (the wrappers they are seen through: train/wrappers.py)


def batched_opponent(spec: str, rs: Ruleset) -> bool:
    """Whether opponent ``spec`` plays on the batched engine (``self``, or any agent with a kernel
    form: :func:`agents.base.kernel_agent`, the one answer)."""
    from zilch_env import UnsupportedRulesError

    from agents.base import kernel_agent

    if spec == "self":
        return True
    try:
        kernel_agent(spec, rs)
    except (UnsupportedRulesError, ValueError):
        return False
    return True


def resolve_auto(args: Args, rs: Ruleset, specs: list[str]) -> Args:
    """Fill in the ``auto`` choices: the vectorized env, the number of envs, the evaluation opponent."""
    vec = args.vec
    if args.ruleset == "any":  # one batched engine plays all the rulesets
        if vec == "dummy":
            raise SystemExit("--ruleset any: needs --vec batched (each game its own rules)")
        vec = "batched"
    elif vec == "auto":  # the batched engine plays every ruleset; the opponents decide
        vec = "batched" if all(batched_opponent(s, rs) for s in specs) else "dummy"
    n_envs = args.n_envs or (64 if vec == "batched" else 8)
    eval_opponent = args.eval_opponent
    if eval_opponent == "auto":
        eval_opponent = "optimal-win" if stored_game_table(rs) else "heuristic"
    shaping = args.shaping
    two_player_win = args.objective == "win" and (args.players or 2) == 2
    if shaping == "auto" and args.ruleset == "any":
        from train.generalist import has_shaping

        shaping = "regret" if has_shaping(args) else "none"
    elif shaping == "auto":
        shaping = "regret" if (two_player_win and vec == "batched" and shapeable_game_table(rs)) else "none"
    elif shaping != "none":
        if not two_player_win:
            raise SystemExit(f"--shaping {shaping}: the win objective with 2 players only (the solved game "
                             f"is a two-player game; got --objective {args.objective}, --players {args.players})")
        if vec != "batched":
            raise SystemExit(f"--shaping {shaping}: needs --vec batched (the potential reads the batched "
                             "engine's games); every opponent must then have a batched version")
    return dataclasses.replace(args, vec=vec, n_envs=n_envs, eval_opponent=eval_opponent, shaping=shaping)


def opponent_specs(args: Args) -> list[str]:
    """The agent specs of ``--opponents``, one per env in turn (at most one per env)."""
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    if not specs:
        raise SystemExit("--opponents: name at least one agent spec (or 'self')")
    if args.n_envs and len(specs) > args.n_envs:
        raise SystemExit(f"--opponents lists {len(specs)} specs but there are only {args.n_envs} envs "
                         "(each env plays one spec): raise --n-envs or list fewer")
    return specs


def make_training_envs(args: Args, rs: Ruleset, players: int, specs: list[str], pool: Any) -> Any:
    """The VecEnv PPO trains on: :func:`make_envs`, seen one turn at a time (:func:`turn_returns`)
    under the score objective and under shaping when ``--turn-returns``."""
    venv = make_envs(args, rs, players, specs, pool)
    if args.turn_returns and (args.objective == "score" or args.shaping != "none"):
        venv = turn_returns(venv)
    return venv


def make_envs(args: Args, rs: Ruleset, players: int, specs: list[str], pool: Any) -> Any:
    """``n_envs`` Zilch-v0 envs in a DummyVecEnv, env ``i`` against ``specs[i % len(specs)]``; or the
    batched engine's VecEnv with the same assignment (``--vec batched``)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    if args.ruleset == "any":
        from train.generalist import make_env

        return make_env(args, specs, pool)
    if args.vec == "batched":
        return make_batched_envs(args, rs, players, specs, pool)

    from agents.base import make_agent
    from train.selfplay import SelfPlayOpponent

    def one(i: int):
        def thunk():
            opponents = None
            if players > 1:
                spec = specs[i % len(specs)]
                opponents = SelfPlayOpponent(pool) if spec == "self" else make_agent(spec, rs)
            reward = "win" if args.objective == "win" else "score"
            env = gym.make("Zilch-v0", ruleset=rs, num_players=players, opponents=opponents,
                           reward=reward, turns=args.turns if args.objective == "score" else None,
                           disable_env_checker=True)
            scale = args.reward_scale if args.objective == "score" else 1.0
            return ScaledReward(env, scale, end_is_terminal=args.objective == "score")
        return thunk

    return DummyVecEnv([one(i) for i in range(args.n_envs)])


def make_batched_envs(args: Args, rs: Ruleset, players: int, specs: list[str], pool: Any) -> Any:
    """``BatchedZilchVecEnv``: the same games, rewards and episode ends as the DummyVecEnv above,
    stepped by the batched engine. Its opponents are the agents with a kernel form
    (:func:`agents.base.kernel_agent`: random, the greedy players, ``optimal-turn`` /
    ``optimal-turn:plain`` as the solver's turn values, the same moves as the agent), and ``self`` as
    a batch policy (:class:`train.selfplay.SelfPlayBatch`, which draws its snapshot per decision, not
    per game)."""
    from zilch_env import UnsupportedRulesError
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    from agents.base import kernel_agent
    from train.selfplay import SelfPlayBatch

    opponents: list[Any] = []
    for spec in specs or ["greedy"]:
        if spec == "self":
            opponents.append(SelfPlayBatch(pool, np.random.default_rng([args.seed, 7])))
            continue
        try:
            opponents.append(kernel_agent(spec, rs))
        except (UnsupportedRulesError, ValueError) as e:
            raise SystemExit(f"--vec batched: opponent {spec!r}: {e}; use --vec dummy for it") from None
    score = args.objective == "score"
    potential = make_potential(args, rs) if args.shaping != "none" else None
    return BatchedZilchVecEnv(rs, num_envs=args.n_envs, num_players=players, seed=args.seed,
                              opponent=opponents, reward="score" if score else "win",
                              turns=args.turns if score else None,
                              reward_scale=args.reward_scale if score else 1.0, end_is_terminal=score,
                              potential=potential, luck=args.shaping != "regret")


def make_potential(args: Args, rs: Ruleset) -> Any:
    """The shaping potential of ``--shaping`` (``agents.solver.win_shaping.WinPotential``): the stored game
    table, or the game solved now (with a progress bar), with the turn cache of
    ``--shaping-cache-mb``."""
    from agents.solver.win_shaping import WinPotential
    from zilch_env import UnsupportedRulesError

    try:
        potential = WinPotential(rs, per="turn" if args.shaping == "turns" else "decision")
    except UnsupportedRulesError as e:
        raise SystemExit(f"--shaping {args.shaping}: {e}") from None
    potential.table.cache_mb = shaping_cache_mb(args.shaping_cache_mb)
    return potential





"""``train/ppo.py --ruleset any``: one agent for every ruleset and player count.

The run trains on the distribution of :mod:`zilch_env.rules.distribution`: ``--rules-pool`` draws of it
(seeded by ``--seed``), every episode one of them, uniformly, on one batched engine where each game
plays its own rules (:class:`zilch_env.envs.vec_env.BatchedZilchVecEnv` given the list). The agent reads
the rules in its observation (layout 4's ``rules`` and ``rules_table`` fields), so the one network
plays any ruleset; its exported policy says ``ruleset = {"name": "any", "distribution": "any"}`` and
``agents.learned`` lets it play every game.

Opponents: ``self`` (the self-play pool, any rules), the kernels' ``greedy`` / ``greedy:T`` /
``random``, and ``optimal-turn`` as a :class:`zilch_env.players.kernel_agents.TableSet`: the exact turn
policy solved for each ruleset of the pool (the greedy mover where the turn solver does not solve
the rules, pyramiding). Shaping (``--shaping regret``, the default): the games of a two-player
ruleset whose game table is stored (the presets as they are) are paid the change of their win
chance under the solved game (:class:`agents.solver.win_shaping.RulesPotential`); every other game is paid
its result. The periodic and final evaluations play ``--eval-ruleset`` (zonk by default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from zilch_env import Ruleset
from zilch_env.rules.distribution import RulesDraw, sample_rules

if TYPE_CHECKING:  # the Args dataclass of train/args.py
    from train.args import Args

__all__ = ["ANY", "is_any", "pool_draws", "rules_record", "make_env", "has_shaping"]

#: The ``--ruleset`` of the generalist.
ANY = "any"
_DRAWS: dict[tuple[int, int], list[RulesDraw]] = {}


def is_any(args: Args) -> bool:
    return args.ruleset == ANY


def pool_draws(args: Args) -> list[RulesDraw]:
    """The run's rulesets: ``--rules-pool`` draws of the distribution, seeded by ``--seed``."""
    key = (args.rules_pool, args.seed)
    if key not in _DRAWS:
        from agents.progress import track

        draws = sample_rules(args.rules_pool, seed=args.seed)
        from train.held_out import refuse_held_out

        for d in draws:  # never, by construction (tests/train/test_held_out.py); checked all the same
            refuse_held_out(d.ruleset, f"the pool's draw {d.label!r}")
        from zilch_env.rules.compiled import compile as compile_rules

        for d in track(draws, "compiling the rulesets", enabled=args.progress):
            compile_rules(d.ruleset)
        _DRAWS[key] = draws
    return _DRAWS[key]


def rules_record(args: Args) -> dict[str, Any]:
    """What the checkpoint and the exported policy say of their rules: the distribution."""
    return {"name": ANY, "distribution": ANY, "pool": args.rules_pool, "seed": args.seed}


def _stored(rs: Ruleset) -> bool:
    from train.report import shapeable_game_table

    return shapeable_game_table(rs)


def has_shaping(args: Args) -> bool:
    """Whether some ruleset of the pool can be shaped (two players, its game table stored)."""
    return any(d.players == 2 and _stored(d.ruleset) for d in pool_draws(args))


def _potential(args: Args, draws: list[RulesDraw]) -> Any:
    from agents.solver.win_shaping import WinPotential
    from agents.solver.win_shaping import RulesPotential
    from train.args import shaping_cache_mb

    made: dict[Ruleset, WinPotential] = {}
    out: list[WinPotential | None] = []
    for d in draws:
        if d.players != 2 or not _stored(d.ruleset):
            out.append(None)
            continue
        if d.ruleset not in made:
            made[d.ruleset] = WinPotential(d.ruleset, per="turn" if args.shaping == "turns" else "decision")
        out.append(made[d.ruleset])
    for p in made.values():  # the turn cache shared out among the tables
        p.table.cache_mb = shaping_cache_mb(args.shaping_cache_mb) / len(made)
    return RulesPotential(out)


def _opponent(spec: str, draws: list[RulesDraw], args: Args, pool: Any) -> Any:
    from zilch_env import UnsupportedRulesError
    from zilch_env.players.kernel_agents import TableSet

    from agents.base import kernel_agent
    from train.selfplay import SelfPlayBatch

    if spec == "self":
        return SelfPlayBatch(pool, np.random.default_rng([args.seed, 7]))
    if spec.partition(":")[0] == "optimal-turn":
        from agents.progress import track

        tables: dict[Ruleset, Any] = {}
        for d in track(draws, f"solving the turns ({spec})", enabled=args.progress):
            if d.ruleset not in tables:
                try:
                    tables[d.ruleset] = kernel_agent(spec, d.ruleset).table
                except (UnsupportedRulesError, ValueError):
                    tables[d.ruleset] = None  # the greedy mover plays these rules
        return TableSet([tables[d.ruleset] for d in draws], name=spec)
    try:
        agent = kernel_agent(spec, draws[0].ruleset)
    except (UnsupportedRulesError, ValueError) as e:
        raise SystemExit(f"--ruleset any: opponent {spec!r}: {e}") from None
    if agent.table is not None:  # pragma: no cover - optimal-turn is handled above
        raise SystemExit(f"--ruleset any: opponent {spec!r} plays one ruleset's table")
    return agent


def make_env(args: Args, specs: list[str], pool: Any) -> Any:
    """The batched VecEnv of the pool's rulesets (each episode one of them), with the opponents of
    ``specs`` and the shaping of ``--shaping``."""
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    draws = pool_draws(args)
    opponents = [_opponent(s, draws, args, pool) for s in specs or ["greedy"]]
    potential = _potential(args, draws) if args.shaping != "none" else None
    return BatchedZilchVecEnv([d.ruleset for d in draws], num_envs=args.n_envs,
                              num_players=[d.players for d in draws], seed=args.seed, opponent=opponents,
                              reward="win", potential=potential, luck=args.shaping != "regret")

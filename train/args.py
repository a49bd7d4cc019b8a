"""The options of a training run: :class:`Args` (every field a command-line flag with its one-line
help, as CleanRL's ``Args``), the helpers that build an ``argparse`` parser from such a dataclass, and
the run settings every training script shares (torch's threads, the shaping potential's cache).
``train/ppo.py`` parses them; the teaching scripts' options (``train.teaching.Args``) are built with
the same helpers."""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any


def arg(default: Any, help: str, **kw: Any) -> Any:
    """A dataclass field with its one-line help (the argparse below is built from these)."""
    return field(default=default, metadata={"help": help, **kw})


@dataclass
class Args:
    # the game
    ruleset: str = arg("zonk", "preset name (zilch, zilch15k, zilch10k, zilch5k, farkle, farkle-basic, "
                               "zonk, zonk20k, cardgames), a TOML ruleset file, or 'any': every ruleset, "
                               "drawn per episode from zilch_env.rules.distribution (train/generalist.py)")
    rules_pool: int = arg(256, "with --ruleset any: rulesets drawn from the distribution at the start (seeded "
                               "by --seed, 2 to 4 players); each episode plays one of them")
    eval_ruleset: str = arg("zonk", "with --ruleset any: the ruleset of the periodic and final evaluations "
                                    "(two players)")
    set: tuple[str, ...] = arg((), "rule override KEY=VALUE in dotted keys, e.g. variants.piggyback=true "
                                   "(repeatable)", metavar="KEY=VALUE", action="append")
    objective: str = arg("win", "win: +1/-1 at the end of the game (or turn by turn, see --shaping); score: the "
                                "points of each turn",
                         choices=("win", "score"))
    players: int = arg(0, "players per game; 0 = 2 for the win objective, 1 for the score objective")
    turns: int = arg(20, "score objective: agent turns per episode")
    turn_returns: bool = arg(True, "score objective, and win objective with --shaping: each agent turn's "
                                   "reward is its own return (the advantage is cut at the end of every "
                                   "turn; the game goes on)")
    shaping: str = arg("auto", "win objective, 2 players, from the solved game (agents.solver.win_shaping.WinPotential): "
                               "regret = pay each move the expected change of the agent's win chance it makes "
                               "(minus its regret against optimal-win; no dice luck); decisions = the change "
                               "from decision to decision, luck included; turns = over each turn; none = "
                               "+1/-1 at the end only. Needs --vec batched; auto = regret when the ruleset's "
                               "game table is stored and the env is batched, else none",
                       choices=("auto", "regret", "decisions", "turns", "none"))
    shaping_cache_mb: int = arg(0, "megabytes of solved turns the shaping keeps in memory (a turn is solved once "
                                   "and read at every later visit; the values do not depend on it); 0 = "
                                   "$ZILCH_WIN_CACHE_MB if set, else a quarter of the memory available, from "
                                   "512 up to 4000")
    opponents: str = arg("optimal-turn,self", "comma-separated agent specs for the other seats, assigned "
                                              "to the envs round-robin; 'self' = self-play pool")
    selfplay_every: int = arg(50_000, "timesteps between snapshots added to the self-play pool")
    selfplay_pool: int = arg(8, "snapshots kept in the self-play pool (the most recent)")
    # the budget and the machine
    timesteps: int = arg(2_000_000, "total environment steps of the run (a resumed run counts from 0)")
    stop_at: int = arg(0, "stop (and save latest/, as Ctrl-C does) at the first step with this many timesteps "
                          "done, the learning-rate schedule still that of --timesteps (0: run to --timesteps); "
                          "a run stopped by a signal at N steps is reproduced by the same command with "
                          "--stop-at N")
    n_envs: int = arg(0, "environments stepped together; 0 = 64 on the batched engine, 8 on the DummyVecEnv")
    vec: str = arg("auto", "vectorized env: batched = zilch_env.envs.vec_env.BatchedZilchVecEnv (opponents "
                           "greedy, greedy:T, random, optimal-turn, self; ~2x the steps/s); dummy = SB3 "
                           "DummyVecEnv of Zilch-v0 (any opponent); auto = batched when the rules and "
                           "every opponent allow it", choices=("auto", "batched", "dummy"))
    threads: int = arg(1, "torch threads (1 is fastest for a small MLP on this machine)")
    seed: int = arg(1, "seed of torch, numpy, the envs (dice, seats, opponents) and the evaluations")
    # PPO
    learning_rate: float = arg(1e-3, "Adam learning rate")
    anneal_lr: bool = arg(False, "decay the learning rate linearly to 0 over the run (as CleanRL's anneal_lr); "
                                 "best/ and the export are then the final model")
    n_steps: int = arg(256, "steps per env per rollout (rollout = n_steps x n_envs)")
    batch_size: int = arg(512, "minibatch size of the PPO update")
    n_epochs: int = arg(4, "passes over each rollout in the PPO update")
    gamma: float = arg(1.0, "discount per step (1: an episode is finite and its sum is what counts)")
    gae_lambda: float = arg(0.95, "GAE lambda")
    clip_range: float = arg(0.2, "PPO clip range")
    ent_coef: float = arg(0.01, "entropy bonus coefficient")
    vf_coef: float = arg(0.5, "value loss coefficient")
    max_grad_norm: float = arg(0.5, "gradient clipping norm")
    net_arch: str = arg("128,128", "hidden layers of the policy and of the value network")
    reward_scale: float = arg(10000.0, "score objective: points per unit of reward (an episode's return "
                                       "near 1: large returns would make the value loss swamp the policy's "
                                       "gradient under the shared clipping)")
    # evaluation, checkpoints, logs
    eval_every: int = arg(100_000, "timesteps between evaluations (and checkpoints of latest/best)")
    eval_opponent: str = arg("auto", "win objective: the periodic evaluation's opponent (the best checkpoint is "
                                     "the one that does best against it); auto = optimal-win when the "
                                     "ruleset's game table is stored, else heuristic")
    eval_games: int = arg(400, "win objective: seat-balanced games per periodic evaluation")
    eval_solo_turns: int = arg(4000, "score objective: on-board turns per periodic evaluation")
    final_games: int = arg(2000, "games per opponent in the final evaluation; 0 = no games")
    final_solo_turns: int = arg(20000, "on-board turns of the final solo measure (points per turn); 0 = none")
    final_opponents: str = arg("random,greedy,greedy-cautious,greedy-bold,greedy-table,heuristic,"
                               "optimal-turn,optimal-win",
                               "final evaluation opponents (those the ruleset or install lacks are "
                               "skipped with the reason)")
    eval_workers: int = arg(2, "processes of the final evaluation")
    export: bool = arg(True, "export the CPU opponent (policy.onnx + policy.json) at the end")
    out: str = arg("", "checkpoint directory; default checkpoints/<ruleset>[-score]")
    runs: str = arg("runs", "TensorBoard root: logs go to <runs>/<ruleset>/<run>")
    run_name: str = arg("", "TensorBoard run name; default <objective>-s<seed>-<date-time>")
    init: str = arg("", "start the actor from another checkpoint's (a .zip or a checkpoint directory, e.g. "
                        "the score agent's); the value network starts fresh")
    critic_warmup: int = arg(100_000, "with --init: timesteps at the start during which only the value network "
                                      "learns (the actor stays as --init left it until the critic's "
                                      "advantages mean something)")
    resume: bool = arg(False, "continue from <out>/latest: model, optimizer, timesteps, pool, run (a "
                              "--learning-rate or --anneal-lr other than the saved run's applies to the "
                              "continuation: annealed, it decays to 0 over the steps left to --timesteps)")
    progress: bool = arg(True, "show the progress bar")
    teacher: str = arg("none", "after training, before the export: optimal-win = teach the network by the solved "
                               "game (train/teach.py's rounds with its defaults, from <out>/best; the network "
                               "still plays alone)", choices=("none", "optimal-win"))
    teach_args: str = arg("", "--teacher: more train/teach.py arguments, e.g. '--rounds 4 --decisions 100000'")


def add_fields(p: argparse.ArgumentParser, cls: type, script: str | None = None) -> argparse.ArgumentParser:
    """One ``--flag`` per field of the dataclass ``cls`` (fields made with :func:`arg`): booleans as
    ``--x / --no-x``, ``action="append"`` fields repeatable, ``nargs`` fields lists of their element
    type, the others typed by their annotation. With ``script``, a dataclass shared by several
    scripts: the fields whose ``scripts`` (metadata) leave it out are skipped, and its entry in a
    field's ``per`` (metadata, ``{script: {"default": ..., "help": ...}}``) replaces the default or
    the help."""
    for f in dataclasses.fields(cls):
        meta = dict(f.metadata)
        scripts, per = meta.pop("scripts", None), meta.pop("per", {}).get(script, {})
        if script is not None and scripts is not None and script not in scripts:
            continue
        help_, default = per.get("help", meta.pop("help")), per.get("default", f.default)
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            p.add_argument(flag, default=default, help=help_, action=argparse.BooleanOptionalAction)
        elif meta.get("action") == "append":
            p.add_argument(flag, dest=f.name, default=[], help=help_, **meta)
        elif "nargs" in meta:
            typ = {"tuple[int, ...]": int, "tuple[str, ...]": str}[str(f.type)]
            p.add_argument(flag, default=list(default), type=typ, help=help_, **meta)
        else:
            typ = {"int": int, "float": float, "str": str}[str(f.type)]
            p.add_argument(flag, default=default, type=typ, help=help_, **meta)
    return p


def fields_of(cls: type, ns: argparse.Namespace) -> Any:
    """The dataclass ``cls`` of a namespace parsed by :func:`add_fields`' flags (lists as tuples)."""
    return cls(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in vars(ns).items()})


def shaping_cache_mb(asked: int) -> float:
    """The turn cache of the shaping potential (``--shaping-cache-mb``): as asked, else
    ``$ZILCH_WIN_CACHE_MB``, else a quarter of the available memory within [512, 4000] MB. A large
    game (farkle has 722,402 situations) does not fit in the 512 MB that suits play, and a run that
    drops solved turns solves them again when it meets them next."""
    if asked > 0:
        return float(asked)
    if os.environ.get("ZILCH_WIN_CACHE_MB", "").strip():
        from agents.solver.game_table import default_cache_mb

        return default_cache_mb()
    try:
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (ValueError, OSError, AttributeError):  # not a POSIX system that says
        return 512.0
    return float(min(4000.0, max(512.0, avail / 4)))


def torch_settings(threads: int) -> None:
    """torch's threads (``--threads``), and no argument checks in its distributions: the masked
    categorical distributions are built from the policy's own logits at every step and several
    times per minibatch, and checking them changes no value (the same run, a few percent faster)."""
    import torch

    torch.set_num_threads(threads)
    torch.distributions.Distribution.set_default_validate_args(False)

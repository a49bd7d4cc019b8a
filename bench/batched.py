"""Batched engine throughput: masked random game steps per second for 1, 64 and 1024 games at once,
against the single-game engine measured in the same run; then the SB3 VecEnv and PPO training.

    python bench/batched.py [--ruleset zonk] [--players 2] [--seconds 1] [--rounds 3]
                            [--sizes 1 64 1024] [--vec-sizes 8 64 1024] [--vec-opponents greedy optimal-turn]
                            [--ppo-steps 16384] [--ppo-envs 8 64] [--no-ppo]

A *game step* is one decision applied to one game: a uniformly random legal action. Rolls that need
no decision (zilches) happen inside the step, as in the engine. Finished games start again at once.

Engine rows (one core; no numba threads)
    ``single``      ``GameState``: ``legal_actions()``, a random pick, ``apply`` (one Python call per step)
    ``batched``     ``BatchedGames`` driven from Python as a training loop drives it: per batch step
                    ``legal_masks()`` (the (games, 136) bool masks), ``random_actions(masks)`` (a random
                    legal action per game drawn from those masks in the kernels, where a training loop's
                    policy samples from them), ``step(actions)``, ``reset`` of the games that ended
    ``fused``       ``BatchedGames.play_random``: the same decisions in one kernel call (the engine's
                    ceiling, without Python between steps)
    ``fused, mixed`` (``--mixed N``) the same, one batch of the games of N rulesets drawn from the
                    distribution ``any`` (``zilch_env.rules.distribution``, 2 to 4 players), each game its own

Every row is timed in ``--rounds`` alternating slices of ``--seconds`` each, so the ratios hold on a
shared machine whose load changes. Rates are per second of wall time and per second of this
process's CPU time (which the load of other processes disturbs less). Compilation is done before.

VecEnv rows (``--vec-sizes``, ``--vec-opponents``)
    agent steps per second (one step = the agent's decision plus the opponents' moves up to its next
    decision, and the automatic reset at an episode's end) of ``BatchedZilchVecEnv`` with each of
    ``--vec-opponents`` (default ``greedy`` and ``optimal-turn``, the solver's turn values played in
    the kernels) against SB3's ``DummyVecEnv`` of ``Zilch-v0`` (greedy opponents) with the same
    number of envs and rules, and against the batched env with greedy opponents. The agent
    picks uniformly among the legal actions; only the env's time is counted (``step`` and the mask
    query ``env_method("action_masks")``, what MaskablePPO calls), not the pick.

PPO rows (``--ppo-envs``, needs sb3-contrib)
    ``MaskablePPO("MlpPolicy")`` with ``train/ppo.py``'s default settings (its ``Args``; when written:
    net 128,128, batch 512, 4 epochs), one torch thread, learning ``--ppo-steps`` steps, rollouts of about 2048 steps (``n_steps`` =
    2048 / n_envs), on the batched VecEnv and on a ``DummyVecEnv`` of ``Zilch-v0``: steps per second
    of the whole ``learn`` and its time split into env (``step`` and the mask query), update
    (``model.train``) and policy (the rest of the rollout: the forward pass, SB3's buffer).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from zilch_env import GameState, load_ruleset  # noqa: E402
from zilch_env.engine.batched import BatchedGames  # noqa: E402
from zilch_env.rules.load import parse_overrides  # noqa: E402

TARGET = 1_000_000  # game steps per second at 1024 games


class Clock:
    """Wall and CPU seconds of a slice."""

    def __init__(self):
        self.wall = self.cpu = 0.0

    def __enter__(self):
        self._w, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall += time.perf_counter() - self._w
        self.cpu += time.process_time() - self._c


class Single:
    """One GameState at a time, random legal decisions."""

    def __init__(self, rs, players: int):
        self.rs, self.players = rs, players
        self.r = random.Random(0)
        self.seed = 0
        self.g = GameState(rs, players, seed=0)

    def run(self, seconds: float) -> int:
        steps, r, g = 0, self.r, self.g
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(200):
                if g.winners is not None:
                    self.seed += 1
                    g = GameState(self.rs, self.players, seed=self.seed)
                legal = g.legal_actions()
                g.apply(legal[int(r.random() * len(legal))])
                steps += 1
        self.g = g
        return steps


class BatchedLoop:
    """A training loop's use of the batched engine: masks, actions, step, resets."""

    def __init__(self, rs, players: int, games: int):
        self.bg = BatchedGames(rs, games, players, seed=0)
        self.masks = np.zeros((games, 136), dtype=bool)

    def run(self, seconds: float) -> int:
        bg, masks, steps = self.bg, self.masks, 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(20):
                bg.legal_masks(masks)
                actions = bg.random_actions(masks)
                bg.step(actions)
                steps += int(np.count_nonzero(actions >= 0))
                done = bg.done
                if done.any():
                    bg.reset(np.flatnonzero(done))
        return steps


class Fused:
    """The same decisions inside one kernel call per slice of sweeps (``rs`` a list of rulesets and
    ``players`` one count each: a batch of many rules)."""

    def __init__(self, rs, players, games: int):
        self.bg = BatchedGames(rs, games, players, seed=0)
        self.sweeps = max(1, 20000 // games)

    def run(self, seconds: float) -> int:
        steps = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            steps += self.bg.play_random(self.sweeps)[0]
        return steps


def time_runners(runners: list, seconds: float, rounds: int) -> tuple[list[int], list[Clock]]:
    """Each runner's steps and :class:`Clock` over ``rounds`` alternating slices of ``seconds``,
    after a short warm-up (kernels compiled, caches filled)."""
    for runner in runners:
        runner.run(0.05)
    clocks = [Clock() for _ in runners]
    steps = [0] * len(runners)
    for _ in range(rounds):
        for i, runner in enumerate(runners):
            with clocks[i]:
                steps[i] += runner.run(seconds)
    return steps, clocks


def engine_table(rs, players: int, sizes: list[int], seconds: float, rounds: int, mixed: int = 0) -> None:
    rows: list[tuple[str, int, object]] = [("single", 1, Single(rs, players))]
    for n in sizes:
        rows.append(("batched", n, BatchedLoop(rs, players, n)))
    for n in sizes:
        rows.append(("fused", n, Fused(rs, players, n)))
    if mixed:
        from zilch_env.rules.distribution import sample_rules

        draws = sample_rules(mixed, seed=0)
        for n in sizes:
            rows.append((f"fused, {mixed} rulesets", n, Fused([d.ruleset for d in draws], [d.players for d in draws], n)))
    steps, clocks = time_runners([runner for _, _, runner in rows], seconds, rounds)
    base_wall = steps[0] / clocks[0].wall
    base_cpu = steps[0] / clocks[0].cpu
    print(f"\nEngine: masked random game steps, {rs.name}, {players} players, one core, "
          f"{rounds} x {seconds:g} s per row\n")
    print("| engine | games at once | game steps | steps/s (wall) | steps/s (CPU) | vs single (CPU) | ns/step (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (name, n, _), c, s in zip(rows, clocks, steps):
        print(f"| {name} | {n} | {s:,} | {s / c.wall:,.0f} | {s / c.cpu:,.0f} | "
              f"{(s / c.cpu) / base_cpu:,.1f}x | {1e9 * c.cpu / s:,.0f} |")
    for name in ("batched", "fused"):
        i = next((k for k, (nm, n, _) in enumerate(rows) if nm == name and n == max(sizes)), None)
        if i is not None:
            rate = steps[i] / clocks[i].wall
            verdict = "meets" if rate >= TARGET else "is below"
            print(f"\n{name} at {max(sizes)} games: {rate:,.0f} game steps per wall second {verdict} the "
                  f"target of {TARGET:,} (single engine: {base_wall:,.0f}).")


# --------------------------------------------------------------------------------------------
# VecEnv and PPO


def _zilch_v0_dummy(rs, players: int, n: int):
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    import zilch_env  # noqa: F401  (registers Zilch-v0)

    def make():
        return gym.make("Zilch-v0", ruleset=rs, num_players=players, disable_env_checker=True)

    venv = DummyVecEnv([make] * n)
    venv.seed(0)
    return venv


def _batched_vec(rs, players: int, n: int, opponent: str = "greedy"):
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    if opponent.partition(":")[0] == "optimal-turn":  # the solver's values, played in the kernels
        from agents.solver import turn_value_table

        return BatchedZilchVecEnv(rs, n, players, seed=0,
                                  opponent=turn_value_table(rs, streak=opponent != "optimal-turn:plain"))
    return BatchedZilchVecEnv(rs, n, players, seed=0, opponent=opponent)


class VecRunner:
    """A random masked agent on a VecEnv; counts agent steps and the seconds inside the env."""

    def __init__(self, venv):
        self.venv = venv
        self.rng = np.random.default_rng(0)
        self.venv.reset()
        self.env_clock = Clock()

    def run(self, seconds: float) -> int:
        venv, rng, clock = self.venv, self.rng, self.env_clock
        steps = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            with clock:
                masks = np.stack(venv.env_method("action_masks"))
            actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
            with clock:
                venv.step(actions)
            steps += len(actions)
        return steps


def vec_table(rs, players: int, sizes: list[int], seconds: float, rounds: int,
              opponents: list[str] = ("greedy",)) -> None:
    rows = []
    for n in sizes:
        for opp in opponents:
            rows.append(("BatchedZilchVecEnv", n, opp, VecRunner(_batched_vec(rs, players, n, opp))))
        rows.append(("DummyVecEnv(Zilch-v0)", n, "greedy", VecRunner(_zilch_v0_dummy(rs, players, n))))
    for *_, r in rows:
        r.run(0.05)
        r.env_clock = Clock()
    steps = [0] * len(rows)
    for _ in range(rounds):
        for i, (*_, r) in enumerate(rows):
            steps[i] += r.run(seconds)
    print(f"\nVecEnv: agent steps (the agent's decision and the opponents' moves), {rs.name}, "
          f"{players} players, env time only; ratios of env CPU rates against the DummyVecEnv and "
          f"against the batched env with greedy opponents, same size\n")
    print("| VecEnv | envs | opponent | agent steps | steps/s (env wall) | steps/s (env CPU) | µs/step (env CPU) "
          "| vs Dummy | vs greedy |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    rate = [s / r.env_clock.cpu for s, (*_, r) in zip(steps, rows)]
    for i, ((name, n, opp, r), s) in enumerate(zip(rows, steps)):
        c = r.env_clock
        dummy = next(j for j in range(i, len(rows)) if rows[j][0].startswith("Dummy"))
        greedy = next((j for j in range(len(rows)) if rows[j][:3] == ("BatchedZilchVecEnv", n, "greedy")), None)
        vs_dummy = f"{rate[i] / rate[dummy]:,.1f}x" if name.startswith("Batched") else ""
        vs_greedy = f"{rate[i] / rate[greedy]:,.2f}x" if name.startswith("Batched") and greedy is not None else ""
        print(f"| {name} | {n} | {opp} | {s:,} | {s / c.wall:,.0f} | {s / c.cpu:,.0f} | {1e6 * c.cpu / s:,.2f} "
              f"| {vs_dummy} | {vs_greedy} |")


def ppo_run(venv, steps: int, n_envs: int) -> dict[str, float]:
    import torch
    from sb3_contrib import MaskablePPO

    try:
        from train.args import Args

        a = Args()
        lr, batch, epochs, net = a.learning_rate, a.batch_size, a.n_epochs, a.net_arch
        gamma, lam, ent = a.gamma, a.gae_lambda, a.ent_coef
    except Exception:  # train/ppo.py absent: its defaults as of this writing
        lr, batch, epochs, net, gamma, lam, ent = 3e-4, 512, 4, "128,128", 1.0, 0.95, 0.01
    torch.set_num_threads(1)
    hidden = [int(h) for h in net.split(",")]
    n_steps = max(16, 2048 // n_envs)
    model = MaskablePPO("MlpPolicy", venv, learning_rate=lr, n_steps=n_steps, batch_size=batch, n_epochs=epochs,
                        gamma=gamma, gae_lambda=lam, ent_coef=ent,
                        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}}, seed=0, device="cpu")
    model.learn(n_steps * n_envs)  # warm-up
    spent = {"env": 0.0, "update": 0.0}

    def timed(obj, method: str, key: str) -> None:
        fn = getattr(obj, method)

        def wrapper(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                spent[key] += time.perf_counter() - t

        setattr(obj, method, wrapper)

    timed(venv, "step", "env")
    timed(venv, "env_method", "env")
    timed(model, "train", "update")
    n0 = model.num_timesteps
    t = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    total = time.perf_counter() - t
    done = model.num_timesteps - n0
    return {"steps": done, "seconds": total, "env": spent["env"], "update": spent["update"],
            "policy": total - spent["env"] - spent["update"], "n_steps": n_steps}


def ppo_table(rs, players: int, envs: list[int], steps: int) -> None:
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        print("\n(sb3-contrib is not installed: no PPO measurements)")
        return
    print(f"\nMaskablePPO training, {rs.name}, {players} players, greedy opponents, {steps:,} steps per row, "
          f"one torch thread\n")
    print("| VecEnv | envs | n_steps | steps/s | env % | policy % | update % | env µs/step |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in envs:
        for name, make in (("BatchedZilchVecEnv", _batched_vec), ("DummyVecEnv(Zilch-v0)", _zilch_v0_dummy)):
            r = ppo_run(make(rs, players, n), steps, n)
            s = r["seconds"]
            print(f"| {name} | {n} | {r['n_steps']} | {r['steps'] / s:,.0f} | {100 * r['env'] / s:.1f} | "
                  f"{100 * r['policy'] / s:.1f} | {100 * r['update'] / s:.1f} | {1e6 * r['env'] / r['steps']:.1f} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ruleset", default="zonk", help="preset name or TOML path (default zonk)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="rule override")
    ap.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds per timed slice (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating slices per row (default 3)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024], help="games at once (default 1 64 1024)")
    ap.add_argument("--vec-sizes", type=int, nargs="*", default=[8, 64, 1024],
                    help="VecEnv sizes (default 8 64 1024; none to skip)")
    ap.add_argument("--vec-opponents", nargs="+", default=["greedy", "optimal-turn"],
                    help="opponents of the batched VecEnv rows: greedy, greedy:T, random, optimal-turn, "
                    "optimal-turn:plain (default: greedy optimal-turn; the DummyVecEnv row plays greedy)")
    ap.add_argument("--ppo-steps", type=int, default=16384, help="PPO steps per measurement (default 16384)")
    ap.add_argument("--ppo-envs", type=int, nargs="*", default=[8, 64], help="PPO n_envs (default 8 64; none to skip)")
    ap.add_argument("--no-ppo", action="store_true", help="skip the VecEnv and PPO measurements")
    ap.add_argument("--mixed", type=int, default=0, metavar="N",
                    help="also the fused kernel on one batch of N rulesets of the distribution 'any', each game "
                         "its own (default 0: none)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or min(args.sizes) < 1:
        ap.error("--seconds must be positive, --rounds and --sizes at least 1")
    rs = load_ruleset(args.ruleset, parse_overrides(args.set) if args.set else None)
    if args.mixed < 0:
        ap.error(f"--mixed {args.mixed}: a number of rulesets, 0 or more")
    engine_table(rs, args.players, args.sizes, args.seconds, args.rounds, args.mixed)
    if args.no_ppo:
        return
    if args.vec_sizes:
        vec_table(rs, args.players, args.vec_sizes, args.seconds, args.rounds, args.vec_opponents)
    if args.ppo_envs:
        ppo_table(rs, args.players, args.ppo_envs, args.ppo_steps)


if __name__ == "__main__":
    main()

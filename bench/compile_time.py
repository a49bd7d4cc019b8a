"""What numba's inlining of the engine's helpers costs and buys: the cold compile time of the
batched engine and its fused speed, with ``ZILCH_NUMBA_INLINE=always`` and ``never`` (the default,
:mod:`zilch_env.jit`).

    python bench/compile_time.py [--ruleset zonk] [--players 2] [--seconds 1] [--rounds 3] [--modes always never]

Each mode runs in a fresh subprocess with an empty numba cache of its own (a temporary directory),
so every kernel is compiled there: the first call of each entry point below is timed (compile plus
one small call), then masked random game steps are timed as ``bench/batched.py`` times them
(``fused``: ``BatchedGames.play_random`` at 1,024 games; ``single``: the single-game view, one
``GameState`` stepped from Python, the baseline of the same process), in ``--rounds`` alternating slices of
``--seconds``. Printed: a table per mode and the ratios of the two modes (compile time, and fused
speed as a multiple of the single engine in its own process).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODES = ("always", "never")
#: The entry points compiled, in order: what a training run calls first.
ENTRIES = ("BatchedGames", "legal_masks", "random_actions", "step", "observe", "play_random", "make_vec reset",
           "make_vec step", "GameState")


def child(ruleset: str, players: int, seconds: float, rounds: int) -> dict:
    """Compile and time in this process (started with the mode and an empty cache)."""
    import numpy as np

    t = time.perf_counter()
    from zilch_env.engine.batched import BatchedGames

    out: dict = {"import": time.perf_counter() - t, "compile": {}, "cpu": {}}

    def timed(name, fn):
        t0, c0 = time.perf_counter(), time.process_time()
        r = fn()
        out["compile"][name] = time.perf_counter() - t0
        out["cpu"][name] = time.process_time() - c0
        return r

    bg = timed("BatchedGames", lambda: BatchedGames(ruleset, 8, players, seed=0))
    timed("legal_masks", bg.legal_masks)
    acts = timed("random_actions", bg.random_actions)
    timed("step", lambda: bg.step(acts))
    timed("observe", lambda: bg.observe(np.zeros(8, dtype=np.int64)))
    timed("play_random", lambda: bg.play_random(1))
    import gymnasium as gym

    import zilch_env  # noqa: F401  (registers the ids)

    envs = gym.make_vec("Zilch-v2", num_envs=8, vectorization_mode="vector_entry_point", ruleset=ruleset,
                        num_players=players)
    timed("make_vec reset", lambda: envs.reset(seed=0))
    timed("make_vec step", lambda: envs.step(np.array([int(np.flatnonzero(m)[0]) for m in envs.action_masks()])))

    def first_moves():  # the single-game view: its own entry kernels over the same turn flow
        g = zilch_env.GameState(ruleset, players, seed=0)
        g.apply(g.legal_actions()[0])
        return g

    timed("GameState", first_moves)

    sys.path.insert(0, str(ROOT / "bench"))
    from batched import Fused, Single, time_runners  # bench/batched.py's timed loops
    from zilch_env import load_ruleset

    rs = load_ruleset(ruleset)
    steps, clocks = time_runners([Single(rs, players), Fused(rs, players, 1024)], seconds, rounds)
    out["rate"] = {k: n / c.cpu for k, n, c in zip(("single", "fused"), steps, clocks)}
    return out


def run_mode(mode: str, args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"zilch-numba-{mode}-") as cache:
        env = dict(os.environ, ZILCH_NUMBA_INLINE=mode, NUMBA_CACHE_DIR=cache)
        cmd = [sys.executable, __file__, "--child", "--ruleset", args.ruleset, "--players", str(args.players),
               "--seconds", str(args.seconds), "--rounds", str(args.rounds)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"bench/compile_time.py: the {mode} run failed:\n{p.stderr[-3000:]}")
        return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/compile_time.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--ruleset", default="zonk", help="preset name or TOML file")
    p.add_argument("--players", type=int, default=2, help="players per game")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per timed slice")
    p.add_argument("--rounds", type=int, default=3, help="alternating slices per row")
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES),
                   help="the settings to compile with (the ratios need both)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        p.error(f"--seconds {args.seconds} / --rounds {args.rounds}: a positive time and at least one round")
    if args.child:
        print(json.dumps(child(args.ruleset, args.players, args.seconds, args.rounds)))
        return 0
    res = {}
    for mode in args.modes:
        print(f"ZILCH_NUMBA_INLINE={mode}: compiling into an empty cache ...", flush=True)
        res[mode] = run_mode(mode, args)
    print(f"\nCold compile and fused speed, {args.ruleset}, {args.players} players "
          f"({args.rounds} x {args.seconds:g} s per row, steps per CPU second)\n")
    print("| ZILCH_NUMBA_INLINE | " + " | ".join(ENTRIES) + " | compile, total | CPU, total | CPU, batch + make_vec | fused steps/s "
          "| vs single |")
    print("|---|" + "---:|" * (len(ENTRIES) + 5))
    for mode in args.modes:
        c, cpu, rate = res[mode]["compile"], res[mode]["cpu"], res[mode]["rate"]
        print(f"| {mode} | " + " | ".join(f"{c[e]:.1f} s" for e in ENTRIES)
              + f" | {sum(c.values()):.1f} s | {sum(cpu.values()):.1f} s "
              f"| {sum(v for k, v in cpu.items() if k != 'GameState'):.1f} s | {rate['fused']:,.0f} "
              f"| {rate['fused'] / rate['single']:.1f}x |")
    if len(res) < 2:
        return 0
    a, n = res["always"], res["never"]
    compile_ratio = sum(a["compile"].values()) / sum(n["compile"].values())
    speed_ratio = (a["rate"]["fused"] / a["rate"]["single"]) / (n["rate"]["fused"] / n["rate"]["single"])
    print(f"\nalways / never: {compile_ratio:.1f}x the compile time, {speed_ratio:.2f}x the fused speed "
          f"(each as a multiple of the single engine in its own process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

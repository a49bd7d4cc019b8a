"""Latency of one decision of the exported CPU opponent (``ppo:PATH``, onnxruntime, batch 1).

    python bench/export_latency.py [checkpoints/zonk] [--decisions 20000]

One decision is what the game server pays when the computer moves: ``LearnedAgent.act(state, legal,
rng)``, i.e. the observation encoder (``zilch_env.observe``), the legal mask, and one onnxruntime run
of the masked policy graph on one thread. The states are reachable ones (random and greedy play of the
policy's ruleset, the first 300 decisions of each game). Reported: median, p90, p99 and mean microseconds per decision, and the same for the
onnxruntime call alone, the encoder alone, and the greedy baseline's ``act`` on the same states (a
reference measured in the same run: the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from zilch_env import GameState  # noqa: E402
from zilch_env.observation import observe  # noqa: E402
from zilch_env.ruleset import ruleset_from_dict  # noqa: E402


def reachable_states(ruleset, n: int, seed: int = 0) -> list[GameState]:
    from agents.baselines import GreedyAgent, RandomAgent

    rng = np.random.default_rng(seed)
    movers = [RandomAgent(), GreedyAgent()]
    out: list[GameState] = []
    g = 0
    while len(out) < n:
        game = GameState(ruleset, 2, seed=int(rng.integers(2**31)))
        mover = movers[g % 2]
        g += 1
        # at most 300 decisions per game: random play makes long games, and a clone copies the history
        for _ in range(300):
            if game.done or len(out) >= n:
                break
            out.append(game.clone())
            game.apply(mover.act(game, game.legal_actions(), rng))
    return out


def timed(fn, items) -> np.ndarray:
    out = np.empty(len(items))
    clock = time.perf_counter_ns
    for i, it in enumerate(items):
        t = clock()
        fn(it)
        out[i] = clock() - t
    return out / 1000.0


def row(name: str, us: np.ndarray) -> str:
    p50, p90, p99 = np.percentile(us, [50, 90, 99])
    return f"{name:<34}{p50:>9.1f}{p90:>9.1f}{p99:>9.1f}{us.mean():>9.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("policy", nargs="?", default="checkpoints/zonk",
                    help="ppo:PATH's PATH: a checkpoint directory with policy.onnx, or the .onnx (default "
                         "checkpoints/zonk)")
    ap.add_argument("--decisions", type=int, default=20000, help="decisions timed (default 20000)")
    args = ap.parse_args()

    from agents.baselines import GreedyAgent
    from agents.learned import LearnedAgent, resolve_policy_path

    path = resolve_policy_path(args.policy)
    if path.suffix != ".onnx":
        ap.error(f"{args.policy}: no exported policy.onnx there (python -m agents.export ... first)")
    meta = json.loads(path.with_suffix(".json").read_text())
    rs = ruleset_from_dict(meta["ruleset"])
    agent = LearnedAgent(path, rs)
    states = reachable_states(rs, args.decisions)
    rng = np.random.default_rng(0)
    legal = [s.legal_actions() for s in states]
    items = list(zip(states, legal))
    obs = [observe(s, s.current).reshape(1, -1) for s in states]
    masks = [s.legal_mask().reshape(1, -1) for s in states]
    greedy = GreedyAgent()

    # warm-up, then the measures
    for s, lg in items[:500]:
        agent.act(s, lg, rng)
    act_us = timed(lambda it: agent.act(it[0], it[1], rng), items)
    run_us = timed(lambda i: agent.policy.actions(obs[i], masks[i]), range(len(states)))
    enc_us = timed(lambda s: observe(s, s.current), states)
    greedy_us = timed(lambda it: greedy.act(it[0], it[1], rng), items)

    import onnxruntime

    print(f"{path} ({rs.name}), onnxruntime {onnxruntime.__version__}, 1 thread, batch 1, "
          f"{len(states)} reachable states\n")
    print(f"{'microseconds per decision':<34}{'median':>9}{'p90':>9}{'p99':>9}{'mean':>9}")
    print(row("ppo agent act (encode+mask+run)", act_us))
    print(row("  onnxruntime run only", run_us))
    print(row("  observe() only", enc_us))
    print(row("greedy baseline act (reference)", greedy_us))
    print(f"\none decision of the CPU opponent: median {np.median(act_us):.0f} us, p99 "
          f"{np.percentile(act_us, 99):.0f} us ({np.median(act_us) / np.median(greedy_us):.1f}x the greedy "
          "baseline's median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

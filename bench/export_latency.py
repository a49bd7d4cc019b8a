"""Latency of one decision of the exported CPU opponent (``ppo:PATH``, batch 1, one thread).

    python bench/export_latency.py [checkpoints/zonk] [--decisions 20000] [--check 20000]

One decision is what the game server pays when the computer moves: ``LearnedAgent.act(state, legal,
rng)``, i.e. the observation encoder (``zilch_env.observe``), the legal mask, and the policy's
decision: the compiled MLP over the graph's weights (``agents.learned.DenseMLP``), onnxruntime on a
near tie. The states are reachable ones (random and greedy play of the policy's ruleset, the first
300 decisions of each game). Reported: median, p90, p99 and mean microseconds per decision, and the
same for the policy's decision alone, one onnxruntime run of the graph alone, the encoder alone,
and the greedy baseline's ``act`` on the same states (a reference measured in the same run: the
machine is shared and noisy), with the ratio of each median to the reference's.

``--check N`` then compares the compiled MLP with onnxruntime on N states: the actions (they must
agree everywhere), the largest difference between their logits (against ``TIE_MARGIN``), and how
many decisions fell back to onnxruntime.
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
from zilch_env.engine.observation import observe  # noqa: E402
from zilch_env.rules.load import load_ruleset, ruleset_from_dict  # noqa: E402


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


def row(name: str, us: np.ndarray, ref: float) -> str:
    p50, p90, p99 = np.percentile(us, [50, 90, 99])
    return f"{name:<36}{p50:>9.1f}{p90:>9.1f}{p99:>9.1f}{us.mean():>9.1f}{p50 / ref:>12.1f}"


def check(agent, states, seats_obs) -> str:
    """The compiled MLP against onnxruntime on ``states``: action disagreements, the largest logit
    difference, the fallbacks."""
    import onnx
    from onnx import helper

    from agents.learned import TIE_MARGIN

    pol = agent.policy
    if pol.mlp is None:
        return "check: no compiled MLP for this graph (onnxruntime plays every decision)"
    model = onnx.load(str(pol.path))
    gemm = [n for n in model.graph.node if n.op_type == "Gemm"][-1]
    model.graph.output.append(helper.make_tensor_value_info(gemm.output[0], onnx.TensorProto.FLOAT, None))
    import onnxruntime as ort

    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    obs = np.stack([o[0, : pol.obs_size] for o in seats_obs])
    masks = np.stack([s.legal_mask() for s in states])
    want, logits = sess.run(None, {"obs": obs, "mask": masks})
    from agents.learned import _mlp_action

    got = np.array([pol.action(o, m) for o, m in zip(obs, masks)])
    raw = np.array([_mlp_action(o, m, pol.mlp.weights, pol.mlp.biases, pol.mlp.dims, pol.mlp.relu, 0.0)
                    for o, m in zip(obs, masks)])
    falls = sum(pol.mlp.action(o, m) < 0 for o, m in zip(obs, masks))
    # the compiled logits, for the largest difference
    dev = 0.0
    w, b, dims = pol.mlp.weights, pol.mlp.biases, pol.mlp.dims
    for o, lg in zip(obs[:2000], logits[:2000]):
        h = o.astype(np.float32)
        for i in range(len(dims) - 1):
            h = h @ w[i, : dims[i], : dims[i + 1]] + b[i, : dims[i + 1]]
            if i < len(dims) - 2:
                h = np.maximum(h, 0) if pol.mlp.relu else np.tanh(h)
        dev = max(dev, float(np.abs(h - lg).max()))
    return (f"check on {len(obs)} states: {int((got != want).sum())} actions differ from onnxruntime's "
            f"({int((raw != want).sum())} without the near-tie fallback); {falls} decisions fell back "
            f"(best two logits closer than TIE_MARGIN {TIE_MARGIN:g}); largest logit difference "
            f"{dev:.2e} (numpy float32 against onnxruntime, first 2000 states)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("policy", nargs="?", default="checkpoints/zonk",
                    help="ppo:PATH's PATH: a checkpoint directory with policy.onnx, or the .onnx (default "
                         "checkpoints/zonk)")
    ap.add_argument("--decisions", type=int, default=20000, help="decisions timed (default 20000)")
    ap.add_argument("--ruleset", default="zonk",
                    help="the rules of the games timed, for a policy of any ruleset (default zonk; a policy of "
                         "one ruleset is timed on its own)")
    ap.add_argument("--check", type=int, default=0, metavar="N",
                    help="then compare the compiled MLP with onnxruntime on N states (needs onnx; default 0)")
    args = ap.parse_args()

    from agents.baselines import GreedyAgent
    from agents.learned import LearnedAgent, resolve_policy_path

    path = resolve_policy_path(args.policy)
    if path.suffix != ".onnx":
        ap.error(f"{args.policy}: no exported policy.onnx there (python -m agents.export ... first)")
    meta = json.loads(path.with_suffix(".json").read_text())
    # a policy for any ruleset (train/ppo.py --ruleset any) is timed on --ruleset
    rs = load_ruleset(args.ruleset) if meta["ruleset"].get("distribution") == "any" else ruleset_from_dict(meta["ruleset"])
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
    pol = agent.policy
    flat_masks = [m[0] for m in masks]
    greedy_us = timed(lambda it: greedy.act(it[0], it[1], rng), items)
    act_us = timed(lambda it: agent.act(it[0], it[1], rng), items)
    dec_us = timed(lambda i: pol.action(obs[i][0], flat_masks[i]), range(len(states)))
    run_us = timed(lambda i: pol.actions(obs[i], masks[i]), range(len(states)))
    enc_us = timed(lambda s: observe(s, s.current), states)
    ref = float(np.median(greedy_us))

    import onnxruntime

    how = "compiled MLP, onnxruntime on near ties" if pol.mlp is not None else "onnxruntime (no compiled MLP)"
    print(f"{path} ({rs.name}), onnxruntime {onnxruntime.__version__}, 1 thread, batch 1, "
          f"{len(states)} reachable states; the decision: {how}\n")
    print(f"{'microseconds per decision':<36}{'median':>9}{'p90':>9}{'p99':>9}{'mean':>9}{'x greedy':>12}")
    print(row("ppo agent act (encode+mask+decide)", act_us, ref))
    print(row("  policy decision only", dec_us, ref))
    print(row("  (one onnxruntime run)", run_us, ref))
    print(row("  observe() only", enc_us, ref))
    print(row("greedy baseline act (reference)", greedy_us, ref))
    print(f"\none decision of the CPU opponent: median {np.median(act_us):.1f} us, p90 "
          f"{np.percentile(act_us, 90):.1f} us, p99 {np.percentile(act_us, 99):.0f} us "
          f"({np.median(act_us) / ref:.1f}x the greedy baseline's median)")
    if args.check:
        cs = reachable_states(rs, args.check, seed=1)
        print(check(agent, cs, [observe(s, s.current).reshape(1, -1) for s in cs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

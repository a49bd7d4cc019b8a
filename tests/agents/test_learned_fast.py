"""The CPU opponent's one-decision path (agents.learned.DenseMLP): the compiled MLP over the exported
graph's weights plays onnxruntime's move on every state, defers to onnxruntime on a near tie, and
is not used for a graph of another shape (nor without the onnx package)."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from agents.export import sample_states  # noqa: E402
from agents.learned import TIE_MARGIN, DenseMLP, LearnedAgent, OnnxPolicy, _mlp_action  # noqa: E402
from zilch_env import GameState, load_ruleset  # noqa: E402
from zilch_env.engine.observation import OBS_SIZES  # noqa: E402

#: a win agent (layout 3), a score agent (layout 2: it reads a prefix), another scoring table
POLICIES = [("checkpoints/zonk", "zonk"), ("checkpoints/zilch-score", "zilch"), ("checkpoints/farkle", "farkle")]


@pytest.mark.parametrize("path, preset", POLICIES)
def test_compiled_mlp_plays_onnxruntimes_move_on_20000_states(path, preset):
    pol = OnnxPolicy(path + "/policy.onnx")
    assert pol.mlp is not None
    obs, masks = sample_states([preset], 20_000, seed=5)
    want = pol.actions(obs, masks)
    got = np.array([pol.action(o, m) for o, m in zip(obs, masks)])
    assert np.array_equal(got, want)
    # and the compiled answer alone (no fallback) already agrees almost everywhere
    raw = np.array([pol.mlp.action(o, m) for o, m in zip(obs, masks)])
    assert (raw >= 0).mean() > 0.99
    assert np.array_equal(raw[raw >= 0], want[raw >= 0])


def test_logits_differ_from_onnxruntimes_far_below_the_margin():
    import onnx
    import onnxruntime as ort
    from onnx import helper

    model = onnx.load("checkpoints/zonk/policy.onnx")
    gemm = [n for n in model.graph.node if n.op_type == "Gemm"][-1]
    model.graph.output.append(helper.make_tensor_value_info(gemm.output[0], onnx.TensorProto.FLOAT, None))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    obs, masks = sample_states(["zonk"], 2_000, seed=6)
    obs = np.ascontiguousarray(obs[:, : OBS_SIZES[3]])  # the zonk agent reads layout 3
    _, logits = sess.run(None, {"obs": obs, "mask": masks})
    mlp = DenseMLP.read("checkpoints/zonk/policy.onnx")
    h = obs.astype(np.float32)
    for i in range(len(mlp.dims) - 1):
        h = h @ mlp.weights[i, : mlp.dims[i], : mlp.dims[i + 1]] + mlp.biases[i, : mlp.dims[i + 1]]
        if i < len(mlp.dims) - 2:
            h = np.tanh(h)
    assert np.abs(h - logits).max() < TIE_MARGIN / 20


def test_a_near_tie_goes_to_onnxruntime():
    # one layer, two equal logits for actions 3 and 7: no compiled answer
    w = np.zeros((136, 4), dtype=np.float32)
    b = np.zeros(136, dtype=np.float32)
    b[3] = b[7] = 1.0
    b[9] = 1.0 - TIE_MARGIN / 2
    mlp = DenseMLP([(w, b)], relu=False)
    x = np.ones(4, dtype=np.float32)
    mask = np.zeros(136, dtype=bool)
    mask[[3, 7]] = True
    assert mlp.action(x, mask) == -1
    mask[:] = False
    mask[[3, 9]] = True
    assert mlp.action(x, mask) == -1  # closer than the margin
    mask[9] = False
    mask[1] = True
    assert mlp.action(x, mask) == 3  # 1.0 against 0.0
    assert _mlp_action(x, np.zeros(136, dtype=bool), mlp.weights, mlp.biases, mlp.dims, False, 0.0) == -1


def test_other_graphs_and_no_onnx_package_use_onnxruntime(tmp_path, monkeypatch):
    import onnx

    model = onnx.load("checkpoints/zonk/policy.onnx")
    for n in model.graph.node:
        if n.op_type == "Tanh":
            n.op_type = "Sigmoid"  # not a graph the compiled MLP runs
    onnx.save(model, tmp_path / "policy.onnx")
    import hashlib
    import json

    meta = json.loads(open("checkpoints/zonk/policy.json").read())  # the changed graph's own sha256
    meta["sha256"] = hashlib.sha256((tmp_path / "policy.onnx").read_bytes()).hexdigest()
    (tmp_path / "policy.json").write_text(json.dumps(meta))
    other = OnnxPolicy(tmp_path / "policy.onnx")
    assert other.mlp is None
    obs, masks = sample_states(["zonk"], 300, seed=7)
    assert np.array_equal([other.action(o, m) for o, m in zip(obs, masks)], other.actions(obs, masks))

    real_import = builtins.__import__

    def no_onnx(name, *a, **kw):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError(name)
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    plain = LearnedAgent("checkpoints/zonk", load_ruleset("zonk"))
    monkeypatch.undo()
    fast = LearnedAgent("checkpoints/zonk", load_ruleset("zonk"))
    assert plain.policy.mlp is None and fast.policy.mlp is not None
    rng = np.random.default_rng(0)
    for seed in range(20):  # whole games: the two agents make the same moves
        g = GameState("zonk", 2, seed=seed)
        while not g.done:
            legal = g.legal_actions()
            a = fast.act(g, legal, rng)
            assert a == plain.act(g, legal, rng)
            g.apply(a)

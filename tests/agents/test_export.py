"""agents.export and the ppo:PATH agent: the ONNX policy plays the SB3 model's deterministic masked
action, runs without torch, and refuses other rules or another observation layout."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from agents.base import make_agent  # noqa: E402
from agents.export import check_export, export, main as export_main, sample_states  # noqa: E402
from agents.learned import LearnedAgent, PolicyMismatchError  # noqa: E402
from zilch_env import GameState, load_ruleset  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PRESETS = ["zonk", "zilch", "farkle", "zilch15k", "farkle-basic"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A checkpoint of a few PPO updates on zonk (weights moved away from their initial values)."""
    from train import ppo

    tmp = tmp_path_factory.mktemp("export")
    argv = ["--ruleset", "zonk", "--timesteps", "1024", "--n-envs", "2", "--n-steps", "128",
            "--batch-size", "64", "--n-epochs", "2", "--net-arch", "32,32", "--eval-every", "1024",
            "--eval-games", "2", "--final-games", "0", "--final-solo-turns", "0", "--no-export", "--no-progress", "--opponents", "greedy",
            "--out", str(tmp / "ck"), "--runs", str(tmp / "runs"), "--seed", "3"]
    assert ppo.main(argv) == 0
    return tmp / "ck"


@pytest.fixture(scope="module")
def exported(trained) -> Path:
    return export(trained, trained / "policy.onnx")


def test_json_beside_the_onnx(exported, trained):
    meta = json.loads(exported.with_suffix(".json").read_text())
    from zilch_env.engine.observation import OBS_SIZE, OBS_VERSION

    assert meta["ruleset"] == json.loads(json.dumps(load_ruleset("zonk").to_dict()))
    assert meta["obs_version"] == OBS_VERSION and meta["obs_size"] == OBS_SIZE
    assert meta["action_layout"]["num_actions"] == 136
    assert {m["name"] for m in meta["action_layout"]["meaning"]} >= {"keep", "FRESH", "CHALLENGE"}
    assert meta["training"]["commands"][0].startswith("python train/ppo.py --ruleset zonk")
    assert meta["training"]["timesteps"] == 1024
    import hashlib

    assert meta["sha256"] == hashlib.sha256(exported.read_bytes()).hexdigest()


def test_onnx_action_equals_sb3_on_10000_reachable_states(trained, exported):
    obs, masks = sample_states(PRESETS, 10_000, seed=1)
    assert len(obs) == 10_000 and masks.any(axis=1).all()
    # several presets and phases: the states differ (not one state repeated)
    assert len({o.tobytes() for o in obs}) > 5_000
    assert check_export(trained, exported, obs, masks) == 0
    # and the agent, one decision at a time, plays the same as the batch
    agent = LearnedAgent(exported, load_ruleset("zonk"))
    sess_actions = agent.policy.actions(obs[:200], masks[:200])
    for o, m, a in zip(obs[:200], masks[:200], sess_actions):
        assert m[a]


def test_the_agent_plays_without_torch(exported):
    code = f"""
import sys
from agents.base import make_agent
from zilch_env import GameState, play_game
rs = "zonk"
agent = make_agent("ppo:{exported.parent}", rs)
from agents.baselines import GreedyAgent
game = GameState(rs, 2, seed=4)
play_game(game, [agent, GreedyAgent()])
assert game.done, "game not finished"
bad = [m for m in ("torch", "stable_baselines3", "sb3_contrib") if m in sys.modules]
assert not bad, bad
print("ok", game.scores)
"""
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok")


def test_refuses_other_rules_and_layouts(exported, tmp_path):
    with pytest.raises(PolicyMismatchError, match="target: policy 10000, game 20000"):
        make_agent(f"ppo:{exported}", "zonk20k")
    with pytest.raises(PolicyMismatchError, match="farkle"):
        make_agent(f"ppo:{exported}", "farkle")
    # a renamed copy of the same rules is the same game
    make_agent(f"ppo:{exported}", load_ruleset(load_ruleset("zonk"), {"name": "my-zonk"}))
    other = tmp_path / "policy.onnx"
    shutil.copy(exported, other)
    meta = json.loads(exported.with_suffix(".json").read_text())
    meta["obs_version"] = 0
    other.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(PolicyMismatchError, match="observation layout 0"):
        make_agent(f"ppo:{other}", "zonk")


def test_path_forms(trained, exported):
    rs = load_ruleset("zonk")
    for path, kind in ((trained, "OnnxPolicy"), (exported, "OnnxPolicy"),
                       (trained / "best" / "model.zip", "SB3Policy")):
        agent = make_agent(f"ppo:{path}", rs)
        assert type(agent.policy).__name__ == kind
        game = GameState(rs, 2, seed=1)
        a = agent.act(game, game.legal_actions(), np.random.default_rng(0))
        assert a in game.legal_actions()
    with pytest.raises(ValueError, match="no such file"):
        make_agent("ppo:/nonexistent/dir", rs)
    with pytest.raises(ValueError, match="needs a shipped policy's name or a path"):
        make_agent("ppo", rs)


def test_agent_pickles_for_evaluation_workers(exported):
    import pickle

    agent = LearnedAgent(exported, load_ruleset("zonk"))
    clone = pickle.loads(pickle.dumps(agent))
    game = GameState("zonk", 2, seed=2)
    rng = np.random.default_rng(0)
    assert clone.act(game, game.legal_actions(), rng) == agent.act(game, game.legal_actions(), rng)


def test_cli(trained, tmp_path, capsys):
    out = tmp_path / "p.onnx"
    assert export_main([str(trained), "--out", str(out), "--check", "300"]) == 0
    text = capsys.readouterr().out
    assert "300/300 states" in text and out.is_file() and out.with_suffix(".json").is_file()
    with pytest.raises(SystemExit):
        export_main([str(tmp_path / "missing"), "--out", str(out)])

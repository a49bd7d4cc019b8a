"""Issue 36: ``ppo:NAME`` plays the policy of that name shipped with the package (the repository's
checkpoints/NAME/ in a source checkout, agents/policies/NAME/ in an installed wheel), ``ppo:PATH`` still
names a path, and a policy without its runtime says which extra to install."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from agents import learned
from agents.base import AgentSpecError, make_agent
from zilch_env.extras import MissingExtraError

ROOT = Path(__file__).resolve().parents[2]


def test_every_checkpoint_with_an_onnx_policy_is_shipped_by_its_name():
    names = {d.name for d in (ROOT / "checkpoints").iterdir() if (d / "policy.onnx").is_file()}
    assert {"zonk", "any", "zonk-score"} <= names
    assert set(learned.shipped_policies()) == names


def test_a_shipped_name_plays_its_policy_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "zonk").mkdir()  # a folder of that name here: the bare name still means the shipped one
    agent = make_agent("ppo:zonk", "zonk")
    assert agent.name == "ppo:zonk" and agent.policy.path == ROOT / "checkpoints" / "zonk" / "policy.onnx"
    with pytest.raises(AgentSpecError, match=r"ppo:\./zonk: no policy\.onnx"):
        make_agent("ppo:./zonk", "zonk")  # the folder, named as a path
    assert make_agent("ppo:checkpoints/zonk", "zonk").policy.path.samefile(ROOT / "checkpoints/zonk/policy.onnx")


def test_an_installed_package_reads_its_own_copy(tmp_path, monkeypatch):
    """The wheel's layout: agents/policies/NAME/ and no checkpoints/ (ppo:checkpoints/NAME finds it too)."""
    packaged = tmp_path / "policies"
    for name in ("zonk", "any"):
        (packaged / name).mkdir(parents=True)
        for f in learned.POLICY_FILES:
            shutil.copy(ROOT / "checkpoints" / name / f, packaged / name / f)
    monkeypatch.setattr(learned, "_PACKAGED", packaged)
    monkeypatch.setattr(learned, "_ROOT", tmp_path / "no-repository")
    monkeypatch.chdir(tmp_path)
    assert learned.shipped_policies() == {"any": packaged / "any", "zonk": packaged / "zonk"}
    assert make_agent("ppo:zonk", "zonk").policy.path == packaged / "zonk" / "policy.onnx"
    assert make_agent("ppo:checkpoints/any", "farkle").policy.path == packaged / "any" / "policy.onnx"
    with pytest.raises(AgentSpecError, match=r"ppo:farkle: no such file or directory, nor a shipped policy's "
                                             r"name \(any, zonk\)"):
        make_agent("ppo:farkle", "farkle")


def test_without_onnxruntime_a_policy_names_the_agents_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(learned.MissingAgentExtraError) as e:
        make_agent("ppo:zonk", "zonk")
    assert isinstance(e.value, AgentSpecError) and isinstance(e.value, MissingExtraError)
    assert "needs the agents extra: pip install 'zilch-rl[agents]'" in str(e.value)


def test_without_onnxruntime_the_default_computer_player_is_the_heuristic(monkeypatch):
    from zilch_env import load_ruleset
    from zilch_web import levels

    zonk = load_ruleset("zonk")
    assert levels.default_cpu(zonk) == "ppo:checkpoints/zonk"
    monkeypatch.setattr(levels, "_onnxruntime_installed", lambda: False)  # (asked once per process)
    assert levels.default_cpu(zonk) == "heuristic"
    assert "Hard" not in [c["label"] for c in levels.cpu_levels(zonk, 2)]

"""Issue 41: a damaged policy given as ppo:DIR (a corrupt ONNX file, an unreadable or truncated
policy.json, a file that does not match the sha256 policy.json records, a damaged SB3 zip) is a clear
AgentSpecError naming the file, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents.base import AgentSpecError, make_agent

ROOT = Path(__file__).resolve().parents[2]
ZONK = ROOT / "checkpoints" / "zonk"


@pytest.fixture
def copy(tmp_path):
    d = tmp_path / "zonk"
    d.mkdir()
    shutil.copy(ZONK / "policy.onnx", d / "policy.onnx")
    shutil.copy(ZONK / "policy.json", d / "policy.json")
    return d


def test_the_shipped_policy_still_loads(copy):
    assert make_agent(f"ppo:{copy}", "zonk").name == f"ppo:{copy}"


def test_a_corrupt_onnx_file_is_refused_by_its_sha256(copy):
    data = bytearray((copy / "policy.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (copy / "policy.onnx").write_bytes(bytes(data))
    with pytest.raises(AgentSpecError, match=r"policy\.onnx: its sha256 is .* not the .* that policy\.json records"):
        make_agent(f"ppo:{copy}", "zonk")


def test_a_corrupt_onnx_file_without_a_recorded_sha256_is_refused_as_not_a_model(copy):
    meta = json.loads((copy / "policy.json").read_text())
    meta.pop("sha256")
    (copy / "policy.json").write_text(json.dumps(meta))
    (copy / "policy.onnx").write_bytes(b"not an onnx graph at all")
    with pytest.raises(AgentSpecError, match=r"policy\.onnx: not a valid ONNX model"):
        make_agent(f"ppo:{copy}", "zonk")


@pytest.mark.parametrize("text", ['{"obs_version": ', "\xff\xfe", "[1, 2]"])
def test_an_unreadable_policy_json_is_refused_naming_it(copy, text):
    (copy / "policy.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(AgentSpecError, match=r"its metadata .*policy\.json is not (valid JSON|a JSON object)"):
        make_agent(f"ppo:{copy}", "zonk")


def test_a_policy_json_that_is_a_folder_is_refused(copy):
    (copy / "policy.json").unlink()
    (copy / "policy.json").mkdir()
    with pytest.raises(AgentSpecError, match=r"policy\.json"):
        make_agent(f"ppo:{copy}", "zonk")

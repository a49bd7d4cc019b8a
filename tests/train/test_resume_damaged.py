"""Issue 41: ``train/ppo.py --resume`` with a damaged ``latest/model.zip`` or a truncated
``train.json`` stops with a message naming the file (SystemExit), not a traceback; checked before torch
is loaded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from train.checkpoints import _check_model_zip, _read_state

ROOT = Path(__file__).resolve().parents[2]
BEST = ROOT / "checkpoints" / "zonk" / "best"


def test_the_shipped_checkpoint_reads(tmp_path):
    _check_model_zip(BEST / "model.zip")
    assert _read_state(BEST / "train.json")["ruleset"]["name"]


def test_a_truncated_model_zip_is_refused_naming_it(tmp_path):
    data = (BEST / "model.zip").read_bytes()
    (tmp_path / "model.zip").write_bytes(data[: len(data) // 2])
    with pytest.raises(SystemExit, match=r"model\.zip is not a readable zip archive"):
        _check_model_zip(tmp_path / "model.zip")


def test_a_zip_with_a_damaged_member_is_refused(tmp_path):
    data = bytearray((BEST / "model.zip").read_bytes())
    # flip bytes inside the first member's compressed data (after its local header)
    for i in range(200, 260):
        data[i] ^= 0x55
    (tmp_path / "model.zip").write_bytes(bytes(data))
    with pytest.raises(SystemExit, match=r"model\.zip"):
        _check_model_zip(tmp_path / "model.zip")


def test_a_zip_without_a_policy_is_refused(tmp_path):
    import zipfile

    with zipfile.ZipFile(tmp_path / "model.zip", "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(SystemExit, match="holds no policy.pth"):
        _check_model_zip(tmp_path / "model.zip")


@pytest.mark.parametrize("cut", [0, 1, 100])
def test_a_truncated_train_json_is_refused_naming_it(tmp_path, cut):
    text = (BEST / "train.json").read_text()
    (tmp_path / "train.json").write_text(text[:cut])
    with pytest.raises(SystemExit, match=r"train\.json is not valid JSON .*damaged or truncated"):
        _read_state(tmp_path / "train.json")


def test_a_train_json_of_something_else_is_refused(tmp_path):
    (tmp_path / "train.json").write_text(json.dumps({"hello": 1}))
    with pytest.raises(SystemExit, match="lacks ruleset, obs_version, commands, timesteps"):
        _read_state(tmp_path / "train.json")
    with pytest.raises(SystemExit, match="is missing"):
        _read_state(tmp_path / "nothing.json")


def test_resumed_state_checks_the_zip_first(tmp_path):
    from train.checkpoints import resumed_state

    latest = tmp_path / "latest"
    latest.mkdir()
    (latest / "model.zip").write_bytes(b"PK\x03\x04 truncated")
    shutil.copy(BEST / "train.json", latest / "train.json")
    with pytest.raises(SystemExit, match="not a readable zip archive"):
        resumed_state(None, None, latest, "cmd", None)

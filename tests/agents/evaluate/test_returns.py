"""agents.evaluate.returns and the baseline table of the pinned environment (docs/environment.md,
"Baselines of the pinned environment"): the protocol on a tiny budget, and the shipped table is the
shipped CSV's."""

from __future__ import annotations

import csv
import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from agents.evaluate.returns import env_returns, mean_return, shipped_spec

ROOT = Path(__file__).resolve().parents[3]


def make_results():
    spec = importlib.util.spec_from_file_location("make_results", ROOT / "docs" / "results" / "make_results.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_returns_follow_the_protocol():
    a = env_returns("greedy", "zonk", 12, seed=5)
    assert a.shape == (12,) and set(np.unique(a)) <= {-1.0, 0.0, 1.0}
    assert np.array_equal(a, env_returns("greedy", "zonk", 12, seed=5))  # seeded episode by episode
    # episode i is reset(seed=seed + i): the last 4 of seed 5 are the first 4 of seed 13
    assert np.array_equal(a[8:], env_returns("greedy", "zonk", 4, seed=13))
    m = mean_return(a)
    assert m.low <= m.mean <= m.high and m.mean == pytest.approx(a.mean()) and m.clusters == 12
    with pytest.raises(ValueError, match="episodes"):
        env_returns("greedy", "zonk", 0)


def test_the_shipped_agent_of_a_preset():
    assert shipped_spec("zonk") == "ppo:zonk" and shipped_spec("cardgames") == "ppo:any"


def test_the_table_command_on_a_tiny_budget(tmp_path):
    mr = make_results()
    doc = tmp_path / "card.md"
    doc.write_text(f"before\n{mr.MARK_START}\nold\n{mr.MARK_END}\nafter\n")
    env = dict(os.environ)
    path = mr.zilch_v2(["cardgames"], episodes=3, seed=0, workers=1, out=tmp_path, doc=doc)
    rows = list(csv.DictReader(path.open()))
    assert [r["agent"] for r in rows] == list(mr.PINNED_AGENTS) and rows[-1]["spec"] == "ppo:any"
    assert all(r["episodes"] == "3" and int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == 3 for r in rows)
    text = doc.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "old" not in text
    assert "| cardgames |" in text and "(`ppo:any`)" in text
    # kept rows are not played again
    again = mr.zilch_v2(["cardgames"], episodes=3, seed=0, workers=1, out=tmp_path, doc=doc)
    assert list(csv.DictReader(again.open())) == rows
    # in this process: the one-thread settings are for spawned workers (numba refuses a new thread
    # count once its threads have started, at the next compilation in this process)
    assert dict(os.environ) == env


def test_the_environment_card_shows_the_shipped_csv():
    mr = make_results()
    rows = list(csv.DictReader((ROOT / "docs" / "results" / mr.PINNED_CSV).open()))
    assert {(r["preset"], r["agent"]) for r in rows} == {(p, a) for p in mr.PRESETS for a in mr.PINNED_AGENTS}
    assert {r["episodes"] for r in rows} == {"10000"} and {r["env_id"] for r in rows} == {"Zilch-v2"}
    card = (ROOT / "docs" / "environment.md").read_text()
    table = card.split(mr.MARK_START + "\n")[1].split("\n" + mr.MARK_END)[0]
    assert table == mr.pinned_table(rows)

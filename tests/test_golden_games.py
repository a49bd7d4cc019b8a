"""The rules' behaviour pinned: the seeded games of ``tests/data/make_golden.py`` (every preset, each
variant alone and all together, 1 to 6 players) replay to the recorded hash of every step."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))

import make_golden  # noqa: E402

GOLDEN = json.loads(gzip.decompress((DATA / "golden_games.json.gz").read_bytes()))
CONFIGS = list(make_golden.configs())


def test_every_configuration_is_recorded():
    assert sorted(GOLDEN) == sorted(name for name, *_ in CONFIGS)
    assert {name.split("/")[1] for name in GOLDEN} == set(make_golden.VARIANTS)
    assert {int(name.split("/")[2]) for name in GOLDEN} == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("preset", sorted({name.split("/")[0] for name, *_ in CONFIGS}))
def test_games_replay_to_the_golden_hashes(preset):
    for name, rs, n, seed in CONFIGS:
        if name.split("/")[0] != preset:
            continue
        for k, (want, decisions) in enumerate(GOLDEN[name]):
            got = make_golden.play(rs, n, seed, k)
            assert got == (want, decisions), f"{name} game {k}: the rules now play it differently"

"""Every shipped agent's play pinned: the seeded games of ``tests/data/make_golden_agents.py`` (each
trained checkpoint on its rules, ``heuristic``, ``greedy``, ``optimal-turn``, ``optimal-win``) replay to
the recorded actions and to the recorded hash of every decision's observation, legal actions and
action; the batched engine's kernel agents replay the recorded scores and winners of their games.

The entry points the records are made with are imported in one block at the top of
``make_golden_agents.py`` (and only there): update that block when a module moves."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))

import make_golden_agents as G  # noqa: E402

GOLDEN = json.loads(gzip.decompress((DATA / "golden_agents.json.gz").read_bytes()))
CONFIGS = {name: rest for name, *rest in G.configs()}
BATCHES = {name: rest for name, *rest in G.batch_configs()}


def test_every_agent_and_configuration_is_recorded():
    assert sorted(GOLDEN["games"]) == sorted(CONFIGS), "the recorded configurations differ from configs()"
    assert sorted(GOLDEN["batched"]) == sorted(BATCHES), "the recorded batches differ from batch_configs()"
    specs = {spec for spec, *_ in CONFIGS.values()}
    shipped = {f"ppo:checkpoints/{d}" for d in G.shipped_policies()}
    assert shipped and shipped <= specs, f"shipped agents without a record: {sorted(shipped - specs)}"
    assert {"heuristic", "greedy", "optimal-turn", "optimal-win"} <= specs


def _first_difference(want: list[int], got: list[int]) -> str:
    for i, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return f"decision {i}: recorded action {a}, now {b}"
    return f"recorded {len(want)} decisions, now {len(got)}"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_agent_replays_its_golden_games(name):
    spec, rs, n, count, seed = CONFIGS[name]
    want_games = GOLDEN["games"][name]
    assert len(want_games) == count, f"{name}: {len(want_games)} games recorded, configs() plays {count}"
    for k, want in enumerate(want_games):
        got = G.play(spec, rs, n, seed, k)
        where = f"agent {spec!r}, ruleset {rs.name!r} ({name}), {n} players, game {k}"
        assert got["actions"] == want["actions"], f"{where}: the agent plays differently ({_first_difference(want['actions'], got['actions'])})"
        assert got["sha256"] == want["sha256"], (f"{where}: same actions, but the observations or legal actions "
                                                 f"the agent saw differ (hash of the decisions)")
        assert got["scores"] == want["scores"] and got["winners"] == want["winners"], (
            f"{where}: the game ends differently: scores {got['scores']} (recorded {want['scores']}), "
            f"winners {got['winners']} (recorded {want['winners']})")


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_kernel_agents_replay_their_golden_batches(name):
    agents, rs, n, seats, seed = BATCHES[name]
    want = GOLDEN["batched"][name]
    got = G.play_batch(agents, rs, n, seats, seed)
    for key in ("scores", "winners", "decisions", "turns"):
        if got[key] != want[key]:
            width = n if key == "scores" else 1
            i = next(i for i, (a, b) in enumerate(zip(want[key], got[key])) if a != b) if len(want[key]) == len(got[key]) else 0
            pytest.fail(f"batched {agents} on {rs.name!r} ({name}), {n} players: the {key} differ, first at game "
                        f"{i // width}: recorded {want[key][i] if i < len(want[key]) else None}, "
                        f"now {got[key][i] if i < len(got[key]) else None}")


def test_which_agents_have_a_kernel_form():
    got = G.kernel_forms()
    changed = {k: (GOLDEN["kernel_forms"].get(k), v) for k, v in got.items() if GOLDEN["kernel_forms"].get(k) != v}
    assert sorted(got) == sorted(GOLDEN["kernel_forms"]) and not changed, \
        f"kernel_agent's answer changed (spec/ruleset: (recorded, now)): {changed}"

"""The rules' fingerprint (zilch_env.ruleset_fingerprint): the SHA-256 of the canonical TOML without its
name, pinned per preset, the same whatever made the rules, changed by any rule, and carried by every
environment's info."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import zilch_env
from zilch_env import load_ruleset, loads_ruleset, ruleset_fingerprint, ruleset_to_toml

# The presets' fingerprints as released in 0.3.0 (docs/environment.md, "Pinning the rules"): a change
# here changes what a paper's fingerprint names, so it must be a deliberate one (a rule of a preset
# changed, which is a new preset or ruleset, never a silent edit).
PINNED = {
    "zilch": "35e1ad0c66c6bbf65b042d7c9a4e775a5ef979d67380d166b08a46f4d720ec03",
    "zilch15k": "b5058f88945e66943ca78eccbf28dd33aedc260c06b574992628bfc512beee28",
    "zilch10k": "a3d93618bcddf3bd7ffcf003e31ecceceee68f318d9c64dcafb752a575e4c9e2",
    "zilch5k": "dfdb2e0a24f514e3d8ba4a2494ecb61e0fbd8baaf10cf8adcd570a855d2ec584",
    "farkle": "2fcca7aa523e97ca466e3d9c19e1e5536626ff34b3330034775b4eb38cb2a42c",
    "farkle-basic": "fdc3da0ce5395d890d6a3c85e1d3f3f5db3dd752b9542b3649ead5aff1accbf9",
    "zonk": "c06ef3a6f9d1ab4856fc4edc8847076d61178be8ec27314a196c32e256e4dc62",
    "zonk20k": "ae56e361e3784db9642f857e38b5d92fdb906c2579f07aed8af129e04ec16d86",
    "cardgames": "4b4da3330622b9c36ccea47f3ae8022a80277736aa93b513b2bf4db966828535",
}


def test_every_preset_is_pinned():
    assert set(PINNED) == set(zilch_env.PRESETS)
    assert {p: ruleset_fingerprint(load_ruleset(p)) for p in zilch_env.PRESETS} == PINNED


@pytest.mark.parametrize("preset", ["zonk", "farkle"])
def test_it_is_the_sha256_of_the_canonical_toml_without_the_name_line(preset):
    text = ruleset_to_toml(load_ruleset(preset))
    first, rest = text.split("\n", 1)
    assert first == f'name = "{preset}"'
    assert ruleset_fingerprint(load_ruleset(preset)) == hashlib.sha256(rest.encode()).hexdigest()


def test_equal_rules_share_it_whatever_made_them_and_any_rule_changes_it():
    zonk = ruleset_fingerprint(load_ruleset("zonk"))
    assert ruleset_fingerprint(loads_ruleset('extends = "zonk"\nname = "my-zonk"\n')) == zonk
    assert ruleset_fingerprint(load_ruleset("zonk", {"target": 10000})) == zonk  # zonk's own target
    changed = [load_ruleset("zonk", {"target": 10050}), load_ruleset("zonk", {"variants.piggyback": True}),
               load_ruleset("zonk", {"scoring.singles.5": 60}), load_ruleset("zonk", {"score_floor": -500})]
    prints = {ruleset_fingerprint(rs) for rs in changed}
    assert zonk not in prints and len(prints) == len(changed)


def test_zilch_rules_fingerprint_prints_it():
    out = subprocess.run([sys.executable, "-m", "zilch_cli", "rules", "zonk", "--set", "target=5000",
                          "--fingerprint"], capture_output=True, text=True, check=True).stdout
    assert out == ruleset_fingerprint(load_ruleset("zonk", {"target": 5000})) + "\n"


def test_every_env_carries_it_in_every_info():
    want = PINNED["farkle"]
    env = gym.make("Zilch-v2", ruleset="farkle")
    assert env.unwrapped.rules_fingerprint == want
    obs, info = env.reset(seed=0)
    assert info["rules_fingerprint"] == want
    done = False
    while not done:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        assert info["rules_fingerprint"] == want
        done = term or trunc
    # gymnasium.make(env.spec) makes the same rules (the spec's kwargs name them, the info pins them)
    _, info2 = gym.make(env.spec).reset(seed=1)
    assert info2["rules_fingerprint"] == want
    json.dumps(env.spec.kwargs)

    vec = gym.make_vec("Zilch-v2", num_envs=3, vectorization_mode="vector_entry_point", ruleset="farkle")
    _, infos = vec.reset(seed=0)
    assert list(infos["rules_fingerprint"]) == [want] * 3 and infos["_rules_fingerprint"].all()
    _, _, _, _, infos = vec.step(vec.unwrapped.action_masks().argmax(axis=1))
    assert list(infos["rules_fingerprint"]) == [want] * 3

    aec = zilch_env.zilch_v2.env(ruleset="farkle")
    aec.reset(seed=0)
    assert {aec.infos[a]["rules_fingerprint"] for a in aec.agents} == {want}

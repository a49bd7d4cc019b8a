"""Rulesets: presets as docs/rules.md ("Presets") tabulates them, TOML round trips, extends, overrides, errors."""

from __future__ import annotations

import pytest

from zilch_env import PRESETS, Ruleset, RulesetError, load_ruleset, loads_ruleset, ruleset_to_toml
from zilch_env.rules.load import parse_overrides


# preset: target, end, tie, entry, min bank, keep, hot dice (docs/rules.md, "Presets")
TABLE = {
    "zilch": (5000, "others_one_turn", "draw", 500, 0, "all_scoring", "optional"),
    "zilch15k": (15000, "others_one_turn", "tiebreak", 500, 350, "all_scoring", "forced"),
    "zilch10k": (10000, "others_one_turn", "tiebreak", 500, 350, "all_scoring", "forced"),
    "zilch5k": (5000, "others_one_turn", "tiebreak", 500, 350, "all_scoring", "forced"),
    "farkle": (10000, "finish_round", "draw", 1000, 300, "free", "optional"),
    "farkle-basic": (10000, "finish_round", "draw", 1000, 300, "free", "optional"),
    "zonk": (10000, "others_one_turn", "draw", 500, 0, "free", "optional"),
    "zonk20k": (20000, "others_one_turn", "draw", 500, 0, "free", "optional"),
    "cardgames": (10000, "instant", "draw", 0, 0, "free", "optional"),
}


@pytest.mark.parametrize("name", PRESETS)
def test_preset_table(name):
    rs = load_ruleset(name)
    assert rs.name == name
    assert (rs.target, rs.end, rs.tie, rs.entry_threshold, rs.min_bank, rs.keep, rs.hot_dice) == TABLE[name]
    assert rs.dice == 6


def test_preset_scoring():
    z = load_ruleset("zilch").scoring
    assert dict(z.singles) == {1: 100, 6: 50} and z.straight == 1500 and z.permanent_straight
    assert z.kinds == "none" and z.three_pairs == 0 and z.two_triplets == 0
    k15 = load_ruleset("zilch15k").scoring
    assert k15.kinds == "flat" and dict(k15.kind_values) == {4: 4000, 5: 5000, 6: 6000}
    assert (k15.two_triplets, k15.three_pairs, k15.straight, k15.four_and_pair_is_three_pairs) == (3000, 2000, 1500, False)
    k10 = load_ruleset("zilch10k").scoring
    assert k10.kinds == "none" and k10.two_triplets == 3000 and k10.three_pairs == 2000
    k5 = load_ruleset("zilch5k").scoring
    assert k5.kinds == "none" and k5.two_triplets == 0 and k5.three_pairs == 0 and k5.straight == 1500
    f = load_ruleset("farkle")
    assert f.scoring.kinds == "double" and f.scoring.straight == 1500 and f.scoring.three_pairs == 1000
    assert (f.variants.zilch_penalty.count, f.variants.zilch_penalty.points) == (3, 500)
    fb = load_ruleset("farkle-basic")
    assert fb.scoring.kinds == "none" and fb.scoring.straight == 0 and fb.scoring.three_pairs == 0
    assert fb.variants.zilch_penalty == f.variants.zilch_penalty
    zk = load_ruleset("zonk").scoring
    assert (zk.straight, zk.three_pairs, zk.two_triplets, zk.four_and_pair_is_three_pairs) == (2000, 1500, 1000, True)
    assert load_ruleset("zonk20k").scoring == zk


@pytest.mark.parametrize("name", PRESETS)
def test_toml_round_trip(name, tmp_path):
    rs = load_ruleset(name, {"variants.pyramiding": True, "variants.zilch_penalty.mode": "halve"})
    text = ruleset_to_toml(rs)
    assert loads_ruleset(text) == rs
    path = tmp_path / "r.toml"
    path.write_text(text)
    assert load_ruleset(path) == rs
    assert hash(load_ruleset(path)) == hash(rs)


def test_extends_and_overrides(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('extends = "zonk"\ntarget = 3000\n[variants]\npiggyback = true\n[scoring]\nsingles = { 1 = 100 }\n')
    rs = load_ruleset(f)
    assert rs.name == "mine" and rs.target == 3000 and rs.variants.piggyback
    assert dict(rs.scoring.singles) == {1: 100}  # maps are replaced whole
    assert rs.scoring.straight == 2000  # the rest comes from zonk
    g = tmp_path / "g.toml"
    g.write_text(f'extends = "{f.name}"\nname = "g"\n')  # relative to the extending file
    assert load_ruleset(g).target == 3000
    rs2 = load_ruleset("zonk", {"target": 20000, "variants.pyramiding": True, "scoring.singles.6": 50})
    assert rs2.target == 20000 and rs2.variants.pyramiding and rs2.scoring.singles[6] == 50
    assert parse_overrides(["target=20000", "variants.pyramiding=true", "keep=all_scoring"]) == {
        "target": 20000, "variants.pyramiding": True, "keep": "all_scoring"}


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"target": -5}, ["target", "-5", "from 1 to 1000000000"]),
        ({"dice": 7}, ["dice", "7", "from 1 to 6"]),
        ({"end": "sudden"}, ["end", "sudden", "others_one_turn", "finish_round", "instant"]),
        ({"keep": 3}, ["keep", "3", "string"]),
        ({"variants.pyramiding": "yes"}, ["variants.pyramiding", "yes", "true or false"]),
        ({"min_bank": True}, ["min_bank", "true", "an integer"]),
        ({"scoring.singles.7": 10}, ["scoring.singles", "7", "face"]),
        ({"scoring.kinds": "triple"}, ["scoring.kinds", "triple", "double"]),
        ({"variants.zilch_penalty.mode": "double"}, ["zilch_penalty.mode", "double", "halve"]),
        ({"colour": "red"}, ["colour", "allowed keys"]),
        ({"variants.teleport": True}, ["variants.teleport", "allowed keys"]),
        ({"scoring.partial_straights": {"12346": 500}}, ["partial_straights.12346", "12345, 23456"]),
        ({"scoring.partial_straights": {"abc": 500}}, ["partial_straights.abc", "five distinct faces"]),
        ({"scoring.partial_straights.12345": 2_000_000}, ["partial_straights.12345", "0 to 1000000"]),
        ({"scoring.partial_straights.12345": "many"}, ["partial_straights.12345", "an integer"]),
        ({"scoring.partial_straights": {"12345": 500}, "variants.pyramiding": True},
         ["partial_straights", "pyramiding", "not supported"]),
        ({"score_floor": 100}, ["score_floor", "100", "-1000000 to 0"]),
        ({"score_floor": "low"}, ["score_floor", "an integer"]),
    ],
)
def test_bad_values_are_named(overrides, words):
    with pytest.raises(RulesetError) as e:
        load_ruleset("zonk", overrides)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_unknown_preset_and_malformed_file(tmp_path):
    with pytest.raises(RulesetError, match="unknown ruleset 'zonkers'.*zilch15k"):
        load_ruleset("zonkers")
    bad = tmp_path / "bad.toml"
    bad.write_text("target = = 3\n")
    with pytest.raises(RulesetError, match="not valid TOML"):
        load_ruleset(bad)
    unknown = tmp_path / "u.toml"
    unknown.write_text('extends = "zonk"\n[scoring]\nfives = 3\n')
    with pytest.raises(RulesetError, match="scoring.fives"):
        load_ruleset(unknown)
    partial = tmp_path / "p.toml"
    partial.write_text("target = 3000\n")
    with pytest.raises(RulesetError, match="missing keys"):
        load_ruleset(partial)
    loop = tmp_path / "loop.toml"
    loop.write_text('extends = "loop.toml"\n')
    with pytest.raises(RulesetError, match="circular"):
        load_ruleset(loop)


def test_ruleset_is_frozen():
    rs = load_ruleset("zonk")
    with pytest.raises(Exception):
        rs.target = 5  # type: ignore[misc]
    assert isinstance(rs, Ruleset) and load_ruleset(rs) is rs


def test_optional_keys_default_and_round_trip(tmp_path):
    """score_floor and scoring.partial_straights (added after the first layout) may be left out of
    a ruleset; to_dict leaves them out at their defaults, so older data is unchanged."""
    from zilch_env.rules.schema import OPTIONAL_KEYS

    zonk = load_ruleset("zonk")
    assert zonk.score_floor == 0 and dict(zonk.scoring.partial_straights) == {}
    assert "score_floor" not in zonk.to_dict() and "partial_straights" not in zonk.to_dict()["scoring"]
    assert set(OPTIONAL_KEYS) == {"score_floor", "scoring.partial_straights", "scoring.hot_dice_bonus"}
    rs = load_ruleset("zonk", parse_overrides(["score_floor=-2500", "scoring.partial_straights={12345 = 500}",
                                               "scoring.partial_straights.23456=750"]))
    assert rs.score_floor == -2500 and dict(rs.scoring.partial_straights) == {12345: 500, 23456: 750}
    assert loads_ruleset(ruleset_to_toml(rs)) == rs
    path = tmp_path / "kcd.toml"
    path.write_text('extends = "zonk"\nscore_floor = -500\n[scoring]\npartial_straights = { 12345 = 500, 23456 = 750 }\n')
    assert load_ruleset(path).scoring.partial_straights == rs.scoring.partial_straights
    assert load_ruleset(path).score_floor == -500


def test_a_preset_is_read_once_and_its_plain_data_is_the_callers_own():
    from zilch_env.rules.load import _resolve, ruleset_from_dict

    zonk = load_ruleset("zonk")
    assert load_ruleset("zonk") is zonk  # read and checked once
    assert load_ruleset("zonk", {"target": 20000}).target == 20000 and load_ruleset("zonk").target == zonk.target
    fresh = ruleset_from_dict(_resolve("zonk")).to_dict()
    mine = zonk.to_dict()
    assert mine == fresh
    # a caller changing its copy, down to the nested sections, changes nobody else's
    mine["target"] = 1
    for section in ("scoring", "variants"):
        mine[section]["added by the caller"] = True
        for value in mine[section].values():
            if isinstance(value, dict):
                value["added by the caller"] = True
    assert zonk.to_dict() == fresh and zonk.to_dict() is not zonk.to_dict()


def test_a_scoring_hashes_once_and_travels_without_its_hash():
    """A scoring keeps its hash after the first (the scoring caches hash it at every lookup); a pickle
    leaves it out, since a string's hash differs between processes: a scoring sent to a process
    started with another hash seed hashes as that process's own equal scoring does."""
    import pickle
    import subprocess
    import sys

    s = load_ruleset("zonk").scoring
    h = hash(s)
    assert s.__dict__["_hash"] == h == hash(s)
    data = pickle.dumps(load_ruleset("zilch"))
    assert b"_hash" not in pickle.dumps(s) and b"_hash" not in data
    back = pickle.loads(data)
    assert back == load_ruleset("zilch") and hash(back) == hash(load_ruleset("zilch"))
    code = ("import pickle, sys; from zilch_env import load_ruleset; "
            "r = pickle.loads(sys.stdin.buffer.read()); print(hash(r.scoring) == hash(load_ruleset('zilch').scoring))")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True,
                             env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout
        assert out.strip() == b"True"

"""Issue 41: files and values the ruleset loader refuses with a clear error (never a traceback, a hang
or a MemoryError): file kinds, sizes, encodings, extends depth, huge integers, face keys written two ways,
and rules under which every turn on the board ends in a zilch that resets the score."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings, strategies as st

from zilch_env import RulesetError, load_ruleset, loads_ruleset
from zilch_env.rules.load import MAX_EXTENDS_DEPTH, MAX_RULESET_BYTES, parse_overrides


def test_a_latin1_file_is_refused_naming_the_path_and_the_encoding(tmp_path):
    f = tmp_path / "latin.toml"
    f.write_bytes('extends = "zonk"\nname = "Zönk"\n'.encode("latin-1"))
    with pytest.raises(RulesetError, match=r"latin\.toml: not UTF-8 text \(byte 0xf6"):
        load_ruleset(f)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_extends_of_a_fifo_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "fifo.toml")
    (tmp_path / "top.toml").write_text('extends = "fifo.toml"\n')
    with pytest.raises(RulesetError, match=r"fifo\.toml: a FIFO, not a ruleset file"):
        load_ruleset(tmp_path / "top.toml")


def test_extends_of_dev_zero_and_of_a_folder_are_refused(tmp_path):
    (tmp_path / "top.toml").write_text('extends = "/dev/zero"\n')
    with pytest.raises(RulesetError, match=r"/dev/zero: a device, not a ruleset file"):
        load_ruleset(tmp_path / "top.toml")
    (tmp_path / "sub.toml").mkdir()
    with pytest.raises(RulesetError, match=r"sub\.toml: a folder"):
        load_ruleset(tmp_path / "sub.toml")


def test_a_file_beyond_the_size_bound_is_refused_unread(tmp_path):
    f = tmp_path / "big.toml"
    f.write_text('extends = "zonk"\n' + "# padding\n" * (MAX_RULESET_BYTES // 10 + 1))
    with pytest.raises(RulesetError, match=r"big\.toml: [\d,]+ bytes; a ruleset file is at most"):
        load_ruleset(f)


def test_an_extends_chain_thousands_deep_is_refused_at_the_bound(tmp_path):
    n = 3000
    for i in range(n):
        parent = f"c{i + 1}.toml" if i < n - 1 else "zonk"
        (tmp_path / f"c{i}.toml").write_text(f'extends = "{parent}"\n')
    with pytest.raises(RulesetError, match=f"deeper than {MAX_EXTENDS_DEPTH} files"):
        load_ruleset(tmp_path / "c0.toml")
    # a chain within the bound still loads
    assert load_ruleset(tmp_path / f"c{n - MAX_EXTENDS_DEPTH + 4}.toml").target == load_ruleset("zonk").target


def test_integers_of_thousands_of_digits_are_refused():
    with pytest.raises(RulesetError, match="a number too long to read"):
        loads_ruleset('extends = "zonk"\ntarget = ' + "9" * 5000)
    with pytest.raises(RulesetError, match="a number too long to read"):
        parse_overrides(["target=" + "9" * 5000])
    with pytest.raises(RulesetError, match=r"target = a number of about 5001 digits: allowed values"):
        load_ruleset("zonk", {"target": 10**5000})
    with pytest.raises(RulesetError, match=r"target = a number of about 4000 digits"):
        loads_ruleset('extends = "zonk"\ntarget = ' + "9" * 3999)


def test_face_keys_must_be_ascii_digits_and_given_once():
    with pytest.raises(RulesetError, match=r"scoring\.singles\.² = 0: ² is not a face"):
        loads_ruleset('extends = "zonk"\n[scoring]\nsingles = {"1" = 100, "²" = 0}')
    with pytest.raises(RulesetError, match=r'face 1 is given twice \(as "1" and " 1"\)'):
        loads_ruleset('extends = "zonk"\n[scoring]\nsingles = {"1" = 100, " 1" = 50, "5" = 50}')
    with pytest.raises(RulesetError, match="face 5 is given twice"):
        load_ruleset("zonk", {"scoring.triples": {5: 500, "5": 400, 1: 1000}})


def test_every_turn_a_zilch_that_resets_the_score_is_refused():
    base = {"scoring.singles": {}, "scoring.triples": {}, "hot_dice": "forced",
            "variants.zilch_penalty.count": 1, "variants.zilch_penalty.points": 0}
    with pytest.raises(RulesetError, match="every turn ends in a zilch.*returns the score to 0"):
        load_ruleset("zilch", {**base, "variants.zilch_penalty.mode": "reset"})
    # a penalty every second zilch, or one that halves, lets a score grow: accepted as before
    load_ruleset("zilch", {**base, "variants.zilch_penalty.mode": "reset", "variants.zilch_penalty.count": 2})
    load_ruleset("zilch", {**base, "variants.zilch_penalty.mode": "halve"})


_keys = st.one_of(st.integers(-3, 9), st.text(alphabet="0123456789 ²³¹١٢६x-", min_size=0, max_size=4))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_keys, st.one_of(st.integers(-10, 2000), st.integers(), st.booleans(), st.text(max_size=3)),
                       max_size=6))
def test_any_point_map_loads_or_is_refused_cleanly(singles):
    try:
        rs = load_ruleset("zonk", {"scoring.singles": singles})
    except RulesetError as e:
        assert "scoring" in str(e) or "cannot be played" in str(e)
    else:  # accepted: every face written once, in digits
        assert set(rs.scoring.singles) <= set(range(1, 7)) and len(rs.scoring.singles) == len(singles)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_any_text_loads_or_is_refused_cleanly(text):
    try:
        loads_ruleset('extends = "zonk"\n' + text)
    except RulesetError:
        pass


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_in_a_file_load_or_are_refused_cleanly(tmp_path_factory, data):
    f = tmp_path_factory.mktemp("r") / "r.toml"
    f.write_bytes(b'extends = "zonk"\n' + data)
    try:
        load_ruleset(f)
    except RulesetError as e:
        assert str(f) in str(e) or "cannot be played" in str(e) or "=" in str(e)

"""Property-based fuzzing of every input a user gives: ruleset data and TOML text into the loader,
argument lists into each ``zilch`` subcommand (in-process, through the CLI's entry point), and
arbitrary objects into ``GameState.apply``.

The property everywhere: success, or an error of the project's own kinds (:class:`RulesetError`,
:class:`IllegalActionError`, argparse's exit 2 with a message) — never another exception, and never
more than a few seconds for one example (an alarm turns a hang into a failure). The web API has its
own fuzz suite, ``test_fuzz_web.py``. Examples per part are set in :data:`EXAMPLES`; the whole file
runs in well under a minute.
"""

from __future__ import annotations

import contextlib
import io
import signal
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zilch_cli import main
from zilch_env import (PRESETS, GameState, IllegalActionError, Ruleset, RulesetError, load_ruleset,
                       loads_ruleset)
from zilch_env.rules.schema import _PENALTY, _SCORING, _TOP, _VARIANTS
from zilch_env.rules.load import ruleset_from_dict

#: Examples per fuzzed part (hypothesis ``max_examples``).
EXAMPLES = {"dicts": 150, "overrides": 150, "toml": 150, "cli": 60, "apply": 80}
#: Seconds one example may take before it counts as a hang.
EXAMPLE_SECONDS = 10

FUZZ = settings(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


@contextlib.contextmanager
def time_limit(seconds: int = EXAMPLE_SECONDS):
    def hang(signum, frame):
        raise TimeoutError(f"one example ran longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# ---------------------------------------------------------------- values a user might write

_KEYS = ([*_TOP] + [f"scoring.{k}" for k in _SCORING] + [f"variants.{k}" for k in _VARIANTS]
         + [f"variants.zilch_penalty.{k}" for k in _PENALTY]
         + ["scoring.singles.1", "scoring.singles.9", "scoring.triples.6", "scoring.kind_values.4",
            "scoring.singles.1.x", "bogus", "scoring.bogus", "variants", "scoring", ".", "", "target.x"])

values = st.one_of(
    st.integers(-5, 7), st.integers(-10**25, 10**25), st.sampled_from([0, 1, 50, 500, 10**6, 10**6 + 1]),
    st.integers(0, 60).map(lambda x: 50 * x),  # plausible points: the loader's deeper checks run
    st.booleans(), st.none(), st.floats(allow_nan=True), st.text(max_size=8),
    st.sampled_from(["free", "all_scoring", "forced", "optional", "flat", "multiple", "double", "none",
                     "halve", "reset", "subtract", "tiebreak", "draw", "finish_round", "zonk", "farkle"]),
    st.dictionaries(st.one_of(st.integers(-2, 8), st.sampled_from(["1", "5", "x", "4", "6", "true"])),
                    st.one_of(st.integers(-10, 2 * 10**6), st.booleans(), st.text(max_size=3)), max_size=4),
    st.lists(st.integers(-3, 9), max_size=3),
)


@given(preset=st.sampled_from(PRESETS),
       edits=st.lists(st.tuples(st.sampled_from(_KEYS), st.one_of(values, st.just("<delete>"))), max_size=4))
@settings(FUZZ, max_examples=EXAMPLES["dicts"])
def test_fuzz_ruleset_dicts(preset, edits):
    data = load_ruleset(preset).to_dict()
    for key, value in edits:
        node, parts = data, key.split(".")
        for part in parts[:-1]:
            nxt = node.get(part) if isinstance(node, dict) else None
            if not isinstance(nxt, dict):
                nxt = {}
                if isinstance(node, dict):
                    node[part] = nxt
            node = nxt
        if value == "<delete>":
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value
    with time_limit():
        try:
            assert isinstance(ruleset_from_dict(data), Ruleset)
        except RulesetError as e:
            assert str(e)


@given(preset=st.sampled_from(PRESETS), overrides=st.dictionaries(st.sampled_from(_KEYS), values, max_size=4))
@settings(FUZZ, max_examples=EXAMPLES["overrides"])
def test_fuzz_overrides(preset, overrides):
    with time_limit():
        try:
            rs = load_ruleset(preset, overrides)
        except RulesetError as e:
            assert str(e)
        else:
            GameState(rs, 2, seed=0)  # a ruleset the loader accepts starts a game


_LINES = st.one_of(
    st.builds(lambda k, v: f"{k} = {v}", st.sampled_from(_KEYS), st.sampled_from(
        ["1", "-1", "6", "true", "0", '"free"', '"zonk"', "{}", "{ 1 = 100 }", "{ 9 = 1 }", "[1, 2]", "1.5",
         '"x"', "99999999999999999999999999", "{ 4 = 0 }", '"forced"', '"flat"', "'", "{", "= 3"])),
    st.sampled_from(["[scoring]", "[variants]", "[variants.zilch_penalty]", "[bogus]", 'extends = "zonk"',
                     'extends = "farkle"', 'extends = "nope"', 'extends = 3', 'extends = "/"', "", "# c"]),
    st.text(max_size=20),
)


@given(lines=st.lists(_LINES, max_size=8))
@settings(FUZZ, max_examples=EXAMPLES["toml"])
def test_fuzz_toml_texts(lines):
    with time_limit():
        try:
            assert isinstance(loads_ruleset("\n".join(lines)), Ruleset)
        except RulesetError as e:
            assert str(e)


# ---------------------------------------------------------------- the command line

_RULE_ARGS = st.lists(st.one_of(
    st.tuples(st.just("--ruleset"), st.sampled_from([*PRESETS, "nope", "/nonexistent.toml", "", "zonk "])),
    st.tuples(st.just("--set"), st.builds(lambda k, v: f"{k}={v}", st.sampled_from(_KEYS), st.sampled_from(
        ["1", "-1", "3", "true", "free", "{}", "{1=100}", "{9=1}", "x", "1e3", "99999999999999999999", "",
         "{4 = 0}", "halve", "2000"]))),
    st.tuples(st.just("--set"), st.sampled_from(["target", "=", "==", "target=", "dice=2=3"])),
), max_size=3).map(lambda pairs: [a for p in pairs for a in p])

_NUM = st.sampled_from(["-1", "0", "1", "2", "3", "6", "7", "x", "1.5", "99999999999999999999", "", "--"])

_COMMANDS = {
    "rules": st.tuples(st.sampled_from([*PRESETS, "nope", ""]), st.lists(st.sampled_from(["--summary", "-h"]),
                                                                          max_size=1)),
    "score": st.tuples(st.lists(_NUM, min_size=0, max_size=8)),
    "simulate": st.tuples(st.lists(st.one_of(
        st.tuples(st.sampled_from(["--players", "-n", "--seed", "--threshold"]), _NUM),
        st.tuples(st.just("--max-turns"), st.sampled_from(["0", "1", "40", "x"])),
        st.tuples(st.sampled_from(["-q", "--quiet", "--bogus"])),
    ), max_size=4).map(lambda xs: [a for x in xs for a in x])),
    "advise": st.tuples(st.lists(st.one_of(
        st.tuples(st.just("--dice"), _NUM, _NUM), st.tuples(st.just("--turn-total"), _NUM),
        st.tuples(st.sampled_from(["--permanent", "--streak"]), _NUM),
        st.tuples(st.sampled_from(["--on-board", "--json"])), st.tuples(st.just("--objective"), st.just("turn")),
    ), max_size=4).map(lambda xs: [a for x in xs for a in x])),
    "solve": st.tuples(st.lists(st.sampled_from(["--json", "--bogus", "--objective", "turn"]), max_size=3)),
    "eval": st.tuples(st.lists(st.one_of(
        st.tuples(st.just("--agents"), st.sampled_from(["random", "greedy", "heuristic", "nope", "greedy:x",
                                                        "ppo:/nonexistent", ""]),
                  st.sampled_from(["random", "greedy", "greedy:300"])),
        st.tuples(st.sampled_from(["--players", "--seed", "--games"]), _NUM),
        st.tuples(st.just("--orders"), st.sampled_from(["rotations", "permutations", "x"])),
    ), max_size=3).map(lambda xs: [a for x in xs for a in x])),
    "play": st.tuples(st.lists(st.one_of(
        st.tuples(st.sampled_from(["--players", "-p"]), st.sampled_from(["you,cpu", "cpu,cpu", "you", "", ",",
                                                                         "a,b,c,d,e,f,g", "cpu:nope"])),
        st.tuples(st.just("--seed"), _NUM), st.tuples(st.just("--delay"), st.sampled_from(["0", "-1", "x"])),
    ), max_size=3).map(lambda xs: [a for x in xs for a in x])),
    "serve": st.tuples(st.lists(st.one_of(
        st.tuples(st.just("--port"), _NUM), st.tuples(st.just("--cpu"), st.sampled_from(["greedy", "nope", ""])),
        st.tuples(st.just("--log-level"), st.sampled_from(["info", "loud"])),
    ), max_size=3).map(lambda xs: [a for x in xs for a in x])),
}

#: Rules the long-running commands are fuzzed under: every game under them ends quickly.
_QUICK_RULES = ["--set", "target=1000"]
#: Arguments that keep an evaluation example small whatever else is drawn.
_SMALL_EVAL = ["--games", "2", "--solo-turns", "0", "--workers", "1", "--luck", "off", "--engine", "single"]


def _pairs(rules: list[str], flag: str) -> list[str]:
    return [a for i in range(0, len(rules), 2) if rules[i] == flag for a in rules[i:i + 2]]


def _argv(command: str, drawn: tuple, rules: list[str]) -> list[str]:
    if command == "rules":
        name, rest = drawn
        return ["rules", name, *rest, *_pairs(rules, "--set")]
    if command == "score":
        return ["score", *rules, *drawn[0]]
    if command == "eval":
        return ["eval", *rules, *_QUICK_RULES, *drawn[0], *_SMALL_EVAL]
    if command in ("simulate", "play"):
        return [command, *rules, *_QUICK_RULES, *drawn[0]]
    if command in ("solve", "advise"):  # the turn solver on presets: custom rules may take minutes
        return [command, *_pairs(rules, "--ruleset"), *drawn[0]]
    return [command, *drawn[0]]


@pytest.mark.parametrize("command", list(_COMMANDS))
def test_fuzz_cli(command, tmp_path, monkeypatch, capsys):
    import uvicorn

    served = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw))
    monkeypatch.chdir(tmp_path)

    @given(drawn=_COMMANDS[command], rules=_RULE_ARGS if command not in ("serve",) else st.just([]),
           lines=st.lists(st.sampled_from(["1", "2b", "r", "b", "?", "rules", "x", "", "9"]), max_size=6))
    @settings(FUZZ, max_examples=EXAMPLES["cli"])
    def check(drawn, rules, lines):
        argv = _argv(command, drawn, rules)
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines)))
        with time_limit():
            try:
                code = main(argv)
            except SystemExit as e:  # argparse: --help (0) or a usage error (2) with its message
                code = e.code
        out = capsys.readouterr()
        assert code in (0, 2), (argv, code, out.err[-500:])
        if code == 2:
            assert "error" in out.err, (argv, out.err[-500:])

    check()


# ---------------------------------------------------------------- GameState.apply

junk = st.one_of(
    st.integers(-10**20, 10**20), st.integers(-3, 140), st.floats(allow_nan=True), st.booleans(), st.none(),
    st.text(max_size=4), st.lists(st.integers(0, 140), max_size=2), st.just(np.array([2])),
    st.integers(0, 135).map(np.int64), st.integers(0, 3).map(float), st.just(object()),
)


@given(preset=st.sampled_from(PRESETS), variant=st.sampled_from(
           [None, "pyramiding", "challenge", "overcoming", "piggyback"]),
       players=st.integers(1, 4), seed=st.integers(0, 2**32),
       moves=st.lists(st.one_of(st.integers(0, 10**6).map(lambda i: ("legal", i)), junk.map(lambda j: ("junk", j))),
                      max_size=60))
@settings(FUZZ, max_examples=EXAMPLES["apply"])
def test_fuzz_apply(preset, variant, players, seed, moves):
    rs = load_ruleset(preset, {f"variants.{variant}": True} if variant else None)
    g = GameState(rs, players, seed=seed)
    with time_limit():
        for kind, x in moves:
            if g.done:
                break
            legal = g.legal_actions()
            if kind == "legal":
                a = legal[x % len(legal)]
                assert isinstance(g.describe(a), str)
                g.apply(a)
                continue
            before = g.snapshot()
            is_legal = (not isinstance(x, (bool, np.bool_)) and isinstance(x, (int, np.integer))
                        and int(x) in legal)
            if is_legal:
                g.apply(x)
                continue
            with pytest.raises(IllegalActionError):
                g.apply(x)
            assert g.snapshot() == before
            assert isinstance(g.why_illegal(x), str)

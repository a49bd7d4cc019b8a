"""Property-based fuzzing of the web API: random JSON bodies, raw bodies and query
strings into every endpoint of ``zilch serve`` through FastAPI's TestClient.

The property, for every request: the answer is a success, or a 4xx whose body says why (JSON
``{"error", "detail"}`` from the API; a page naming the problem from the HTML pages) — never a
5xx, never a traceback, and never more than a few seconds (hypothesis' ``deadline`` per example).

The examples are derandomized (the same examples every run, as every test here is seeded) and
the example database is off, so a run depends on nothing but the code. Budgets (examples per part)
keep the whole file near 10-20 s on the shared 2-core machine; each part's count is in its
``settings``. Rules are drawn near the real ones (every key of a ruleset, values of the right kind
mixed with wrong kinds, huge numbers, long strings), so many games are created and then played:
a hint, a move, the record and the rules page of each.

A run (about 10 s on the shared machine) makes 120 new-game bodies, 100 games of rules near the
real ones played for up to 8 random legal moves each (about 540 requests of play), 150 move bodies,
80 raw bodies (every POST endpoint, the review's and the history's too), 120 GETs with random query strings, and 60 rounds of invite,
claim, levels-for-rules bodies and event streams with a random ``since``. Among the cases it keeps
answering 422: an override inside a number (``{"scoring.triples.1.": 0}``), which the loader refuses
with a ``TypeError`` (a 422 naming the overrides), and a rules page whose override cannot be parsed.
"""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from zilch_env import PRESETS, load_ruleset
from zilch_web.requests_in import MAX_STRING
from zilch_web.app import create_app

from .conftest import one_loop



CPUS = ["heuristic", "greedy", "random"]

#: Every dotted key of a ruleset (``scoring.singles.1``, ``variants.zilch_penalty.mode``, ...).


def _keys(d, prefix=""):
    for k, v in d.items():
        yield prefix + k
        if isinstance(v, dict):
            yield from _keys(v, prefix + k + ".")


RULE_KEYS = sorted({k for p in PRESETS for k in _keys(load_ruleset(p).to_dict())})
WORDS = ["others_one_turn", "finish_round", "draw", "tiebreak", "free", "all_scoring", "optional", "forced",
         "double", "flat", "multiple", "subtract", "halve", "reset", "zonk", "farkle", "", "true", "1e3"]
HUGE = [2**31, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64, 10**19, 10**30, -1, -(2**63), 10**300]


def fuzz(n: int, deadline_ms: int = 5000):
    """Settings of one part: ``n`` examples, each under ``deadline_ms``, the same examples each run."""
    return settings(max_examples=n, deadline=deadline_ms, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large, HealthCheck.filter_too_much])


json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.sampled_from(HUGE),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
                        st.sampled_from(WORDS), st.text(min_size=MAX_STRING - 1, max_size=MAX_STRING + 2))
json_value = st.recursive(json_scalar, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                              st.dictionaries(st.text(max_size=8), kids, max_size=4)),
                          max_leaves=12)
rule_value = st.one_of(st.integers(0, 40).map(lambda x: x * 50), st.integers(0, 7), st.booleans(),
                       st.sampled_from(WORDS), st.sampled_from(HUGE),
                       st.dictionaries(st.sampled_from(["1", "2", "3", "4", "5", "6", "7", "count", "points", "mode"]),
                                       st.one_of(st.integers(0, 3000), st.sampled_from(WORDS)), max_size=4),
                       json_value)
rule_key = st.one_of(st.sampled_from(RULE_KEYS), st.text(max_size=20),
                     st.sampled_from(RULE_KEYS).map(lambda k: k + ".x"))
overrides = st.dictionaries(rule_key, rule_value, max_size=4)
player = st.one_of(st.fixed_dictionaries({"name": st.one_of(st.text(max_size=30), st.sampled_from(["Ann", "Bob"]))}),
                   st.fixed_dictionaries({"cpu": st.one_of(st.sampled_from(CPUS), st.text(max_size=20))}),
                   st.fixed_dictionaries({"name": st.text(max_size=5), "cpu": st.one_of(st.none(), st.sampled_from(CPUS))}),
                   json_value)
new_game_body = st.one_of(
    st.fixed_dictionaries({"ruleset": st.sampled_from(list(PRESETS)),
                           "set": overrides,
                           "players": st.lists(player, min_size=1, max_size=3).map(lambda ps: [{"name": "You"}, *ps]
                                                                                 if ps else ps)},
                          optional={"seed": st.one_of(st.integers(0, 2**63 - 1), st.sampled_from(HUGE))}),
    st.dictionaries(st.sampled_from(["ruleset", "set", "players", "seed", "extra"]), json_value, max_size=5),
    json_value,
)

COUNTS: dict[str, int] = {}
FOUND: dict[str, set] = {}


def check(r, part: str, page: bool = False) -> None:
    """The property: a success, or a 4xx that says why; never a 5xx."""
    COUNTS[part] = COUNTS.get(part, 0) + 1
    FOUND.setdefault(part, set()).add(r.status_code)
    assert r.status_code < 500, (part, r.status_code, r.text[:500])
    if r.status_code >= 400:
        if page and "text/html" in r.headers.get("content-type", ""):
            assert len(r.text) > 50, r.text
            return
        body = r.json()
        assert isinstance(body.get("error"), str) and isinstance(body.get("detail"), str) and body["detail"], body


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(str(tmp_path_factory.mktemp("fuzz") / "g.sqlite3"), cpu_specs=CPUS)
    c = TestClient(app, raise_server_exceptions=False)
    app.state.hints.pool.warm()  # the hint worker process starts before the deadlines, as a server's does at start
    with one_loop(c):
        yield c
    summary = ", ".join(f"{k}: {n} requests, statuses {sorted(FOUND[k])}" for k, n in sorted(COUNTS.items()))
    print(f"\nweb fuzz: {summary}")


@pytest.fixture(scope="module")
def game(client):
    r = client.post("/api/games", json={"ruleset": "zonk", "seed": 7, "set": {"entry_threshold": 0},
                                        "players": [{"name": "Ann"}, {"name": "Bob"}, {"cpu": "greedy"}]})
    assert r.status_code == 201
    return r.json()["id"], r.json()["token"]


def play_a_little(client, gid: str, token: str, part: str) -> None:
    """A created game of random rules is played: hint, a move, the record, its rules page."""
    g = client.get(f"/api/games/{gid}")
    check(g, part)
    game = g.json()
    check(client.get(f"/api/games/{gid}/hint"), part)
    if game["status"] == "playing":
        action = game["keeps"][0]["roll"] if game["phase"] == "keep" else game["choices"][0]["action"]
        check(client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": game["current"],
                                                           "action": action, "token": token}), part)
    check(client.get(f"/api/games/{gid}/record"), part)
    check(client.get(f"/g/{gid}/rules"), part, page=True)


@fuzz(120)
@given(body=new_game_body)
def test_fuzz_new_game(client, body):
    r = client.post("/api/games", json=body)
    check(r, "POST /api/games")
    if r.status_code == 201:
        play_a_little(client, r.json()["id"], r.json()["token"], "play of a created game")


def _plausible(key: str):
    """Values of the kind a key of the zonk ruleset holds, near the real ones (and a few huge)."""
    v = load_ruleset("zonk").to_dict()
    for part in key.split("."):
        v = v[part] if isinstance(v, dict) and part in v else None
    if isinstance(v, bool):
        return st.booleans()
    if isinstance(v, int):
        return st.one_of(st.integers(0, 60).map(lambda x: x * 50), st.integers(1, 6), st.sampled_from(HUGE[:6]))
    if isinstance(v, str):
        return st.sampled_from(WORDS)
    return rule_value


PLAIN_KEYS = [k for k in RULE_KEYS if k not in ("name", "scoring", "variants", "scoring.singles", "scoring.triples",
                                                "scoring.kind_values", "variants.zilch_penalty")]
plausible_overrides = st.lists(st.sampled_from(PLAIN_KEYS), max_size=3, unique=True).flatmap(
    lambda keys: st.fixed_dictionaries({k: _plausible(k) for k in keys}))


@fuzz(100)
@given(preset=st.sampled_from(list(PRESETS)), overrides=plausible_overrides,
       cpu=st.sampled_from(CPUS), seed=st.integers(0, 2**63 - 1),
       picks=st.lists(st.integers(0, 200), min_size=8, max_size=8))
def test_fuzz_play_rules_near_the_real_ones(client, preset, overrides, cpu, seed, picks):
    """Rules of the right kinds: most games are created, then a hint and a few random legal moves."""
    r = client.post("/api/games", json={"ruleset": preset, "set": overrides, "seed": seed,
                                        "players": [{"name": "Ann"}, {"cpu": cpu}]})
    check(r, "POST /api/games, rules near the real ones")
    if r.status_code != 201:
        return
    gid, game, token = r.json()["id"], r.json()["game"], r.json()["token"]
    check(client.get(f"/api/games/{gid}/hint"), "play of a created game")
    for p in picks:
        if game["status"] != "playing":
            break
        legal = ([a for k in game["keeps"] for a in (k["roll"], k["bank"]) if a is not None]
                 or [c["action"] for c in game["choices"]])
        m = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": game["current"],
                                                         "action": legal[p % len(legal)], "token": token})
        check(m, "play of a created game")
        if m.status_code != 200:
            break
        game = m.json()["game"]
    check(client.get(f"/g/{gid}/rules"), "play of a created game", page=True)


move_body = st.one_of(
    st.fixed_dictionaries({"version": st.one_of(st.integers(-2, 60), st.sampled_from(HUGE)),
                           "seat": st.one_of(st.integers(-1, 3), st.sampled_from(HUGE))},
                          optional={"action": st.one_of(st.integers(-1, 140), st.sampled_from(HUGE), json_scalar),
                                    "keep": st.one_of(st.lists(st.integers(0, 7), max_size=7), json_value),
                                    "bank": st.one_of(st.booleans(), json_scalar)}),
    st.dictionaries(st.sampled_from(["version", "seat", "action", "keep", "bank", "x"]), json_value, max_size=6),
    json_value,
)


@fuzz(150)
@given(body=move_body, current=st.booleans())
def test_fuzz_moves(client, game, body, current):
    gid, token = game
    if current and isinstance(body, dict):  # half the moves at the game's own version, seat and token
        g = client.get(f"/api/games/{gid}").json()
        body = {**body, "version": g["version"], "seat": g["current"] if g["current"] is not None else 0,
                "token": token}
    check(client.post(f"/api/games/{gid}/moves", json=body), "POST /api/games/{id}/moves")


raw_body = st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode),
                     json_value.map(lambda v: json.dumps(v).encode()[:-1]))  # truncated JSON


@fuzz(80)
@given(path=st.sampled_from(["/api/games", "/api/games/{id}/moves", "/api/games/{id}/rematch", "/api/cpus",
                             "/api/games/{id}/invite", "/api/games/{id}/claim", "/api/review", "/api/history"]),
       body=raw_body, ctype=st.sampled_from(["application/json", "text/plain", "", "application/x-www-form-urlencoded"]))
def test_fuzz_raw_bodies(client, game, path, body, ctype):
    headers = {"Content-Type": ctype} if ctype else {}
    check(client.post(path.replace("{id}", game[0]), content=body, headers=headers), "raw bodies")


query = st.dictionaries(st.one_of(st.sampled_from(["log", "set.target", "set.dice", "set.keep", "set.scoring.singles.1",
                                                   "set.variants.zilch_penalty.mode", "set.name"]),
                                  st.sampled_from(RULE_KEYS).map(lambda k: "set." + k), st.text(max_size=10)),
                        st.one_of(st.sampled_from(["all", "tail", "true", "{1 = 100}", "[1, 2]", "9" * 4301, "1e999",
                                                   "inf", "nan", "-1", "0", "20000", "forced", '"x"', "{", "x" * 300]),
                                  st.text(max_size=30)), max_size=4)


@fuzz(120)
@given(path=st.sampled_from(["/api/setup", "/api/games/{id}", "/api/games/{id}/hint", "/api/games/{id}/record",
                             "/rules/{preset}", "/g/{id}/rules", "/api/games/{junk}", "/rules/{junk}", "/",
                             "/g/{id}", "/api/games/{id}/review", "/g/{id}/review", "/history", "/api/history"]),
       params=query, preset=st.sampled_from(list(PRESETS)), junk=st.text(min_size=1, max_size=40))
def test_fuzz_query_strings(client, game, path, params, preset, junk):
    url = path.replace("{id}", game[0]).replace("{preset}", preset)
    if "{junk}" in url:
        from urllib.parse import quote

        url = url.replace("{junk}", quote(junk, safe=""))
    check(client.get(url, params=params), "GET with query strings", page=True)


seat_body = st.one_of(st.fixed_dictionaries({}, optional={"token": st.one_of(st.text(max_size=70), json_scalar),
                                                          "seat": st.one_of(st.integers(-2, 8), json_scalar)}),
                      json_value)
cpus_body = st.one_of(st.fixed_dictionaries({"ruleset": st.sampled_from(list(PRESETS)), "set": overrides},
                                            optional={"players": st.one_of(st.integers(-1, 8), json_scalar)}),
                      json_value)


@fuzz(60)
@given(invite=seat_body, claim=seat_body, cpus=cpus_body, since=st.one_of(st.integers(-5, 10**12), st.text(max_size=8)))
def test_fuzz_seats_levels_and_streams(client, invite, claim, cpus, since):
    """Invites, claims (on a fresh hot-seat game), the levels for random rules, and the event stream's
    ``since``: its first event, or a 4xx."""
    r = client.post("/api/games", json={"ruleset": "zonk", "seed": 1, "players": [{"name": "A"}, {"name": "B"}]})
    gid = r.json()["id"]
    check(client.post(f"/api/games/{gid}/invite", json=invite), "POST invite, claim, cpus")
    check(client.post(f"/api/games/{gid}/claim", json=claim), "POST invite, claim, cpus")
    check(client.post("/api/cpus", json=cpus), "POST invite, claim, cpus")
    with client.stream("GET", f"/api/games/{gid}/events", params={"since": since}) as s:
        COUNTS["GET events"] = COUNTS.get("GET events", 0) + 1
        FOUND.setdefault("GET events", set()).add(s.status_code)
        if s.status_code == 200:
            first = next(line for line in s.iter_lines() if line.startswith("data:"))
            assert json.loads(first[5:])["game"]["id"] == gid
        else:
            s.read()
            assert 400 <= s.status_code < 500 and s.json()["detail"], (since, s.status_code)


def test_fuzz_counts_were_run():
    """The parts above ran (the module's summary line prints the counts with ``-s``)."""
    assert COUNTS.get("POST /api/games", 0) >= 100 and COUNTS.get("POST /api/games/{id}/moves", 0) >= 100
    assert COUNTS.get("play of a created game", 0) >= 100, COUNTS  # random rules were played, not only refused

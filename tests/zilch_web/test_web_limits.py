"""No input to the web API gets a 5xx, a traceback or an unbounded answer.

* 16: a rules page asked for with an override the number parser refuses (4,301 digits) is a 4xx
  page naming the problem, not a 500.
* 17: ``set`` values beyond 64 bits: the game is refused (422), or, if the rules loader accepts them,
  every request about that game (hint, moves, a computer player that cannot value the rules)
  is answered with a 4xx and a JSON reason.
* 18: the request body is bounded (413) and so is every string in it (422), and the query string
  of a page (414).
"""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from zilch_web.requests_in import MAX_BODY, MAX_QUERY, MAX_STRING
from zilch_web.app import create_app

from .conftest import one_loop



@pytest.fixture
def client(tmp_path):
    # raise_server_exceptions=False: a crash is seen as the 500 a browser would get
    with one_loop(TestClient(create_app(str(tmp_path / "g.sqlite3"), cpu_specs=["heuristic", "optimal-turn"]),
                             raise_server_exceptions=False)) as c:
        yield c


def reason(r, *statuses):
    assert r.status_code in statuses, (r.status_code, r.text[:300])
    body = r.json()
    assert isinstance(body["error"], str) and isinstance(body["detail"], str) and len(body["detail"]) > 10, body
    return body["detail"]


# ------------------------------------------------------------------------------------ item 16


def test_rules_page_with_a_number_too_long_to_parse_is_422_not_500(client):
    r = client.get("/rules/zonk?set.target=" + "9" * 4301)
    assert r.status_code == 422, r.status_code
    assert "target" in r.text and "digits" in r.text
    # the same through the JSON API
    r = client.post("/api/games", json={"ruleset": "zonk", "set": {"target": "9" * 4301},
                                        "players": [{"name": "A"}]})
    reason(r, 422)


def test_rules_page_refuses_a_query_string_beyond_the_bound(client):
    r = client.get("/rules/zonk?set.target=" + "1" * (MAX_QUERY + 1))
    assert r.status_code == 414 and "query string" in r.text


# ------------------------------------------------------------------------------------ item 17


@pytest.mark.parametrize("key, value", [("scoring.singles.1", 2**62), ("entry_threshold", 10**30),
                                        ("scoring.straight", 10**19)])
@pytest.mark.parametrize("cpu", ["heuristic", "optimal-turn"])
def test_values_beyond_64_bits_never_give_a_500(client, key, value, cpu):
    r = client.post("/api/games", json={"ruleset": "zonk", "set": {key: value}, "seed": 1,
                                        "players": [{"name": "A"}, {"cpu": cpu}]})
    if r.status_code != 201:  # refused by the loader (naming the key) or by the computer player
        detail = reason(r, 422)
        assert key.split(".")[-1] in detail or "too large" in detail, detail
        return
    gid, game, token = r.json()["id"], r.json()["game"], r.json()["token"]
    h = client.get(f"/api/games/{gid}/hint")
    assert h.status_code == 200 or h.status_code == 409, (h.status_code, h.text[:300])
    if h.status_code == 409:
        reason(h, 409)
    # a few moves: each a 200 or a 4xx with a reason, never a 500
    for _ in range(6):
        if game["status"] == "over":
            break
        action = game["keeps"][0]["roll"] if game["phase"] == "keep" else game["choices"][0]["action"]
        m = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": game["current"],
                                                          "action": action, "token": token})
        if m.status_code != 200:
            reason(m, 409, 422)
            break
        game = m.json()["game"]
    assert client.get(f"/api/games/{gid}").status_code == 200


def test_a_computer_player_that_fails_mid_game_leaves_the_game_unchanged(tmp_path):
    """An agent error while the server plays the computer's moves: 422 with its reason, and the game
    stays where it was (the human's move is not half applied)."""
    from agents.base import register_agent
    from zilch_env import GreedyMover

    class Breaks:
        def act(self, state, legal, rng):
            raise OverflowError("Python int too large to convert to C long")

    register_agent("test-breaks", lambda rs, arg: Breaks(), "raises OverflowError, for the web tests")
    register_agent("test-greedy-l", lambda rs, arg: GreedyMover(), "GreedyMover, for the web tests")
    c = TestClient(create_app(str(tmp_path / "g.sqlite3"), cpu_specs=["test-breaks"]),
                   raise_server_exceptions=False)
    r = c.post("/api/games", json={"ruleset": "zonk", "set": {"entry_threshold": 0}, "seed": 3,
                                   "players": [{"name": "A"}, {"cpu": "test-breaks"}]})
    assert r.status_code == 201, r.text
    gid, game, token = r.json()["id"], r.json()["game"], r.json()["token"]
    k = game["keeps"][0]
    m = c.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "action": k["bank"],
                                                "token": token})
    assert "test-breaks" in reason(m, 422)
    after = c.get(f"/api/games/{gid}").json()
    assert after["version"] == game["version"] and after["roll"] == game["roll"]


# ------------------------------------------------------------------------------------ item 18


def test_a_body_beyond_the_bound_is_413(client):
    body = '{"ruleset": "zonk", "players": [{"name": "A"}], "set": {"name": "' + "x" * MAX_BODY + '"}}'
    r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert "bytes" in reason(r, 413)

    def chunks():  # no Content-Length: the bound is counted as the body arrives
        yield b'{"ruleset": "zonk", "set": {"name": "'
        for _ in range(MAX_BODY // 1000 + 2):
            yield b"x" * 1000
        yield b'"}, "players": [{"name": "A"}]}'

    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    reason(r, 413)


@pytest.mark.parametrize("where", ["name", "key", "nested", "ruleset", "cpu"])
def test_a_string_beyond_the_bound_is_422(client, where):
    long = "x" * (MAX_STRING + 1)
    body = {"ruleset": "zonk", "players": [{"name": "A"}], "set": {}}
    if where == "name":
        body["set"] = {"name": long}
    elif where == "key":
        body["set"] = {long: 1}
    elif where == "nested":
        body["set"] = {"scoring.kinds": {"multiple": [long]}}
    elif where == "ruleset":
        body["ruleset"] = long
    else:
        body["players"].append({"cpu": long})
    r = client.post("/api/games", json=body)
    detail = reason(r, 422)
    assert str(MAX_STRING) in detail
    assert client.app.state.store.count() == 0, "nothing is stored"


def test_a_long_but_allowed_name_is_stored_and_the_rules_page_stays_small(client):
    r = client.post("/api/games", json={"ruleset": "zonk", "set": {"name": "n" * 100},  # the loader allows 100
                                        "players": [{"name": "A"}]})
    assert r.status_code == 201, r.text
    page = client.get(f"/g/{r.json()['id']}/rules")
    assert page.status_code == 200 and len(page.content) < 100_000

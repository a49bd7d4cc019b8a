"""The review of a game through the API (issue 37; zilch_web.review): ``GET /api/games/{id}/review`` of a
finished game and ``POST /api/review`` of a record, what the page needs from them (every decision's
choices as data, the seats' levels, the codes it translates), the refusals (a game in play, an unknown
game, a record that was changed or does not replay, one too long, rules too big to solve), and the
work off the request path (202 with the progress while it runs, 503 when too many wait, 500 named
when the review itself fails)."""

from __future__ import annotations

import copy
import random
import threading

import pytest

from agents.evaluate.review_walk import TURN_START
from zilch_env import load_ruleset
from zilch_web.review import ReviewService, build_review, not_valued_code, why_points_code

from .test_web_api import TOKENS, client, db, error, move, new, play_out  # noqa: F401


@pytest.fixture
def finished(client):  # noqa: F811
    """A zonk game of Ann against the greedy computer, played to its end."""
    created = new(client, seed=21)
    game, _ = play_out(client, created["id"], created["game"])
    return created["id"], game


def test_the_review_of_a_finished_game(client, finished):  # noqa: F811
    gid, game = finished
    r = client.get(f"/api/games/{gid}/review")
    assert r.status_code == 200, r.text
    R = r.json()
    assert R["format"] == "zilch-rl/review/1" and R["game"] == gid and R["measure"] == "win"
    assert R["dice"] == "verified" and R["why_points_code"] is None and R["target"] == 10000
    assert R["players"] == [p["name"] for p in game["players"]] and R["winners"] == game["winners"]
    assert [(s["cpu"], s["level"]) for s in R["seats"]] == [(None, None), ("test-greedy", None)]
    assert len(R["decisions"]) == game["version"] and {d["seat"] for d in R["decisions"]} == {0, 1}
    for d in R["decisions"]:
        # the position: the scores, and every legal move with its values and its words as data
        assert len(d["scores"]) == 2 and d["choices"]
        assert d["action"] in [c["action"] for c in d["choices"]]
        if d["kind"] == "keep":
            best = max(c["win"] for c in d["choices"])
            assert d["win"]["best"] == pytest.approx(best, abs=1e-6)
            played = next(c for c in d["choices"] if c["action"] == d["action"])
            assert played["win"] == pytest.approx(d["win"]["value"], abs=1e-6)
            say = played["say"]
            assert say["kind"] == "keep" and say["total"] == d["turn_total"] + say["points"]
            assert sorted(say["dice"]) == say["dice"] and set(say["dice"]) <= set(d["roll"])
    # the luck of the rolls, the line, the mistakes
    assert all(r["win_luck"] is not None for r in R["rolls"])
    assert R["win_line"][0][0] == 0 and R["win_line"][-1] == [len(R["decisions"]), 1.0 if game["winners"] == [0] else 0.0]
    for s in R["seats"]:
        assert 0 <= s["score"] <= 100 and len(s["mistakes"]) <= 3
        assert s["start"] + s["luck"] + s["play"] == pytest.approx(s["result"], abs=1e-4)
    # asked again (the page polls; the history asks too): the same review, computed once
    reviews = client.app.state.reviews
    done = reviews.computed
    assert client.get(f"/api/games/{gid}/review").json() == R
    assert reviews.computed == done


def test_a_posted_record_is_reviewed_as_its_game(client, finished):  # noqa: F811
    gid, _ = finished
    record = client.get(f"/api/games/{gid}/record").json()
    R = client.post("/api/review", json=record).json()
    assert R["game"] is None and R["dice"] == "verified"
    assert R["decisions"] == client.get(f"/api/games/{gid}/review").json()["decisions"]
    # an engine record without dice (zilch play --record): reviewed, the dice unchecked
    plain = {k: v for k, v in record.items() if k not in ("dice", "players")}
    R = client.post("/api/review", json=plain).json()
    assert R["dice"] == "unverified" and R["players"] == ["P1", "P2"]


def test_a_game_in_play_and_an_unknown_game_are_refused(client):  # noqa: F811
    created = new(client, seed=2)
    error(client.get(f"/api/games/{created['id']}/review"), 409, "game_not_over")
    error(client.get("/api/games/nope/review"), 404, "unknown_game")
    error(client.get(f"/api/games/{created['id']}/review?wait=99"), 422, "malformed_request")


def test_a_changed_record_is_refused_with_the_reason(client, finished):  # noqa: F811
    gid, _ = finished
    record = client.get(f"/api/games/{gid}/record").json()
    changed = copy.deepcopy(record)
    changed["rolls"][4] = [6] * len(changed["rolls"][4])
    detail = error(client.post("/api/review", json=changed), 422, "record_tampered")
    assert "roll #5" in detail
    other_seed = copy.deepcopy(record)
    other_seed["dice"]["seed"] = str(int(record["dice"]["seed"]) + 1)
    assert "commitment mismatch" in error(client.post("/api/review", json=other_seed), 422, "record_tampered")
    # without its seed the dice cannot be checked, but the moves still must replay
    unseeded = copy.deepcopy(record)
    unseeded["dice"]["seed"] = None
    unseeded["actions"][3] = 4095
    assert "action #4" in error(client.post("/api/review", json=unseeded), 422, "record_invalid")
    short = copy.deepcopy(unseeded)
    short["actions"], short["rolls"] = record["actions"][:10], record["rolls"]
    assert "roll" in error(client.post("/api/review", json=short), 422, "record_invalid")


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"x": 1}', b'"text"', b"null",
                                  b'{"ruleset": {}, "num_players": 2, "rolls": [], "actions": []}'])
def test_what_is_not_a_record_is_refused(client, body):  # noqa: F811
    error(client.post("/api/review", content=body), 422, "record_invalid")


def test_a_record_too_long_or_rules_too_big_are_refused(client, finished):  # noqa: F811
    gid, _ = finished
    record = client.get(f"/api/games/{gid}/record").json()
    long = dict(record, actions=[0] * 2001)
    error(client.post("/api/review", json=long), 422, "record_too_long")
    big = copy.deepcopy(record)
    big["dice"]["seed"] = None
    big["ruleset"]["entry_threshold"] = 1_000_000  # in steps of 1 point (the 501 below): 8 million turn totals
    big["ruleset"]["scoring"]["partial_straights"] = {"12345": 501}
    assert "no review under these rules" in error(client.post("/api/review", json=big), 409, "no_review")


def test_rules_without_a_solved_game_are_reviewed_in_points_with_the_reason(client):  # noqa: F811
    three = new(client, players=("Ann", None, None), seed=4, target=1000)
    game, _ = play_out(client, three["id"], three["game"])
    R = client.get(f"/api/games/{three['id']}/review").json()
    assert R["measure"] == "points" and R["why_points_code"] == "players" and R["win_line"] == []
    assert "two" in R["why_points"]
    assert why_points_code(load_ruleset("zonk", {"target": 1000}), 2) == "no_table"
    assert why_points_code(load_ruleset("zonk", {"variants.piggyback": True}), 2) == "unsupported"


def test_turn_start_decisions_say_their_choices(client):  # noqa: F811
    created = new(client, players=("Ann", "Bob"), seed=3, **{"variants.challenge": True, "entry_threshold": 0,
                                                              "target": 1500})
    game, _ = play_out(client, created["id"], created["game"])
    R = client.get(f"/api/games/{created['id']}/review").json()
    starts = [d for d in R["decisions"] if d["kind"] == "turn_start"]
    assert starts
    for d in starts:
        assert d["not_valued_codes"] == {"win": "turn_start", "points": "turn_start"}
        labels = [c["say"]["label"] for c in d["choices"]]
        assert "no challenge" in labels and any(x.startswith("challenge ") for x in labels)


def test_the_reasons_a_decision_is_not_valued_have_codes():
    assert not_valued_code(TURN_START.format(what="challenge")) == "turn_start"
    assert not_valued_code("a challenged turn: a bank takes points") == "challenged"
    assert not_valued_code("the turn solver does not value these rules: pyramiding") == "solver"
    assert not_valued_code("something new") == "other"


def _slow_service(client):
    """The app's review service, its reviews held until ``release`` is set."""
    release = threading.Event()
    service = client.app.state.reviews

    def slow(record, game_id, progress):
        progress(3, 40)
        assert release.wait(10)
        return build_review(record, game_id, progress)

    service.build = slow
    return service, release


def test_a_long_review_answers_202_with_its_progress_then_the_review(client, finished):  # noqa: F811
    gid, _ = finished
    service, release = _slow_service(client)
    r = client.get(f"/api/games/{gid}/review?wait=0.2")
    assert r.status_code == 202 and r.headers["retry-after"] == "1"
    assert r.json() == {"status": "reviewing", "done": 3, "total": 40}
    release.set()
    r = client.get(f"/api/games/{gid}/review?wait=5")
    assert r.status_code == 200 and r.json()["game"] == gid


def test_too_many_reviews_waiting_is_503_and_a_failed_review_is_named(client, finished, monkeypatch):  # noqa: F811
    gid, _ = finished
    service, release = _slow_service(client)
    monkeypatch.setattr(ReviewService, "MAX_WAITING", 1)
    assert client.get(f"/api/games/{gid}/review?wait=0").status_code == 202
    record = client.get(f"/api/games/{gid}/record").json()
    r = client.post("/api/review?wait=0", json=record)
    error(r, 503, "review_busy")
    assert r.headers["retry-after"] == "5"
    release.set()
    assert client.get(f"/api/games/{gid}/review?wait=5").status_code == 200

    def broken(record, game_id, progress):
        raise RuntimeError("out of cheese")

    service.build = broken
    assert "out of cheese" in error(client.post("/api/review?wait=5", json=record), 500, "review_failed")


def test_records_changed_at_random_are_refused_never_a_500(client, finished):  # noqa: F811
    """Seeded junk in every field of a real record (its seed hidden, so that each change reaches the
    replay): a review or a 4xx naming the fault, never a 500."""
    gid, _ = finished
    record = client.get(f"/api/games/{gid}/record").json()
    record["dice"]["seed"] = None
    rng = random.Random(0)
    junk = [None, -1, 0, 7, 2**70, "x", [], {}, [1], [[1, 2]], True, 1.5, "", {"a": 1}, [None], [[7, 7, 7]], [[0]]]
    for _ in range(120):
        changed = copy.deepcopy(record)
        key = rng.choice(["ruleset", "num_players", "first", "rolls", "actions", "final", "players", "format"])
        if rng.random() < 0.4 or not isinstance(changed[key], (list, dict)) or not changed[key]:
            changed[key] = rng.choice(junk)
        elif isinstance(changed[key], list):
            changed[key][rng.randrange(len(changed[key]))] = rng.choice(junk)
        else:
            changed[key][rng.choice(list(changed[key]))] = rng.choice(junk)
        r = client.post("/api/review?wait=10", json=changed)
        assert r.status_code < 500, (key, r.text)

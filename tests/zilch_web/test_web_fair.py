"""Dice nobody can know in advance (issue 37, item 4; zilch_web/fair.py): the commitment shown from
the start, the seed revealed at the end, a client's seed only for practice games, and ``zilch verify``
on the game record (a good record, a tampered roll, a wrong seed, a changed commitment, an unfinished
game, a malformed file)."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from zilch_cli import main
from zilch_env import replay
from zilch_web.fair import commitment, commitment_text, verify_record, VerifyError

from zilch_web.app import create_app

from .conftest import one_loop
from .test_web_live import TestClient, client  # noqa: F401  (the app with the test-greedy computer)


def new(client, players=({"name": "Ann"}, {"cpu": "test-greedy"}), **body):
    r = client.post("/api/games", json={"ruleset": "zonk", "set": {"target": 600, "entry_threshold": 0},
                                        "players": list(players), **body})
    assert r.status_code == 201, r.text
    return r.json()


def play_out(client, created):
    """Play the game to its end (the keep worth most; bank at 300 or more)."""
    gid, token, g = created["id"], created["token"], created["game"]
    for _ in range(500):
        if g["status"] == "over":
            return g
        if g["phase"] != "keep":
            a = g["choices"][0]["action"]
        else:
            k = max(g["keeps"], key=lambda k: (k["points"], k["n"]))
            a = k["bank"] if k["bank"] is not None and k["total"] >= 300 else k["roll"]
        r = client.post(f"/api/games/{gid}/moves", json={"version": g["version"], "seat": g["current"],
                                                          "token": token, "action": a})
        assert r.status_code == 200, r.text
        g = r.json()["game"]
    raise AssertionError("the game did not end")


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished game against the computer and its record."""
    c = TestClient(create_app(str(tmp_path_factory.mktemp("fair") / "g.sqlite3"), cpu_specs=["test-greedy"]))
    with one_loop(c):
        created = new(c)
        g = play_out(c, created)
    return created, g, c.get(f"/api/games/{created['id']}/record").json()


# ------------------------------------------------------------------------------------ the API


def test_the_commitment_is_shown_and_the_seed_kept_until_the_end(finished):
    created, end, rec = finished
    start = created["game"]
    assert start["status"] == "playing"
    assert start["seed"] is None and not start["practice_seed"] and start["dice_kind"] == "splitmix64"
    assert len(start["commitment"]) == 64 and int(start["commitment"], 16) >= 0
    # the seed is nowhere in the game's first view, not even inside another field
    assert end["seed"] not in json.dumps(start)
    # at the end: the seed, whose SHA-256 is the commitment shown from the start
    assert end["status"] == "over" and end["seed"].isdigit() and end["commitment"] == start["commitment"]
    text = f"zilch-rl/dice/1:splitmix64:{end['seed']}"
    assert commitment_text("splitmix64", int(end["seed"])) == text
    assert hashlib.sha256(text.encode()).hexdigest() == start["commitment"]
    # the record carries what a verifier needs, and the engine's replay still reads it
    assert rec["dice"] == {"kind": "splitmix64", "commitment": start["commitment"], "seed": end["seed"],
                           "practice": False}
    assert [p["name"] for p in rec["players"]] == [p["name"] for p in end["players"]]
    assert replay(rec).scores == [p["score"] for p in end["players"]]


def test_the_record_of_a_game_in_play_holds_no_seed(client):
    created = new(client)
    rec = client.get(f"/api/games/{created['id']}/record").json()
    assert rec["dice"]["seed"] is None and rec["dice"]["commitment"] == created["game"]["commitment"]
    with pytest.raises(VerifyError, match="not over"):
        verify_record(rec)


def test_a_client_seed_makes_a_practice_game_shown_from_the_start(client):
    two = ({"name": "Ann"}, {"name": "Bob"})
    created = new(client, players=two, seed=77)
    g = created["game"]
    assert g["practice_seed"] is True and g["seed"] == "77" and g["commitment"] == commitment("splitmix64", 77)
    # the same seed, the same dice: a practice game repeats
    assert new(client, players=two, seed=77)["game"]["roll"] == g["roll"]
    # a practice game cannot become a live one: nobody may be invited to it
    r = client.post(f"/api/games/{created['id']}/invite", json={"token": created["token"]})
    assert r.status_code == 409 and r.json()["error"] == "practice_seed" and "seed 77" in r.json()["detail"]
    # the seed stays through a restart of the server (it is stored with the game)
    again = TestClient(create_app(client.app.state.store.path, cpu_specs=["test-greedy"]))
    assert again.get(f"/api/games/{created['id']}").json()["practice_seed"] is True
    # a rematch draws a secret seed again
    end = play_out(client, created)
    r = client.post(f"/api/games/{created['id']}/rematch")
    assert r.status_code == 201 and r.json()["game"]["seed"] is None and not r.json()["game"]["practice_seed"]
    assert end["seed"] == "77"


def test_a_client_seed_is_refused_for_a_live_game(client):
    r = client.post("/api/games", json={"ruleset": "zonk", "seed": 5, "live": True,
                                        "players": [{"name": "Ann"}, {"name": "Bob"}]})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "seed_not_allowed" and "practice games only" in body["detail"]
    # without a seed, a live game is made, with secret dice
    created = new(client, players=({"name": "Ann"}, {"name": "Bob"}), live=True)
    assert created["game"]["seed"] is None and not created["game"]["practice_seed"]
    r = client.post(f"/api/games/{created['id']}/invite", json={"token": created["token"]})
    assert r.status_code == 200


# ------------------------------------------------------------------------------------ zilch verify


def verify(capsys, tmp_path, record, *extra):
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    code = main(["verify", str(path), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_verify_a_good_record(finished, capsys, tmp_path):
    _, end, rec = finished
    code, out, err = verify(capsys, tmp_path, rec)
    assert code == 0, err
    assert out.startswith("OK: ") and f"all {len(rec['rolls'])} rolls follow from seed {end['seed']}" in out
    assert rec["dice"]["commitment"] in out and "Ann" in out
    code, out, _ = verify(capsys, tmp_path, rec, "--json")
    got = json.loads(out)
    assert code == 0 and got["ok"] is True and got["rolls"] == len(rec["rolls"]) and got["seed"] == end["seed"]
    assert got["scores"] == [p["score"] for p in end["players"]]


def test_verify_names_a_tampered_roll(finished, capsys, tmp_path):
    _, _, rec = finished
    bad = copy.deepcopy(rec)
    k = len(bad["rolls"]) // 2
    roll = bad["rolls"][k]
    roll[0] = roll[0] % 6 + 1  # one die changed
    code, out, err = verify(capsys, tmp_path, bad)
    assert code == 1 and f"roll #{k + 1}: the record says" in err and "the seed gives" in err, err
    code, out, _ = verify(capsys, tmp_path, bad, "--json")
    got = json.loads(out)
    assert code == 1 and got["ok"] is False and f"roll #{k + 1}" in got["error"]


def test_verify_refuses_a_wrong_seed_and_a_changed_commitment(finished, capsys, tmp_path):
    _, _, rec = finished
    wrong = copy.deepcopy(rec)
    wrong["dice"]["seed"] = str(int(rec["dice"]["seed"]) + 1)
    code, _, err = verify(capsys, tmp_path, wrong)
    assert code == 1 and "commitment mismatch" in err, err
    # a seed that matches a forged commitment still fails on the rolls
    forged = copy.deepcopy(wrong)
    forged["dice"]["commitment"] = commitment("splitmix64", int(wrong["dice"]["seed"]))
    code, _, err = verify(capsys, tmp_path, forged)
    assert code == 1 and "roll #1: the record says" in err, err
    changed = copy.deepcopy(rec)
    changed["dice"]["commitment"] = "0" * 64
    code, _, err = verify(capsys, tmp_path, changed)
    assert code == 1 and "commitment mismatch" in err and "0" * 64 in err, err


def test_verify_refuses_an_unfinished_game_and_a_malformed_file(finished, capsys, tmp_path):
    _, _, rec = finished
    hidden = copy.deepcopy(rec)
    hidden["dice"]["seed"] = None
    code, _, err = verify(capsys, tmp_path, hidden)
    assert code == 1 and "not revealed yet" in err, err
    cut = copy.deepcopy(rec)  # the seed shown, but the game cut short
    cut["actions"] = cut["actions"][:1]
    code, _, err = verify(capsys, tmp_path, cut)
    assert code == 1 and ("but its actions roll" in err or "not over" in err), err
    code, _, err = verify(capsys, tmp_path, "{not json")
    assert code == 2 and "not a JSON game record" in err
    code, _, err = verify(capsys, tmp_path, {k: v for k, v in rec.items() if k != "dice"})
    assert code == 1 and "no 'dice' entry" in err
    code, _, err = verify(capsys, tmp_path, {**rec, "dice": {**rec["dice"], "seed": "-3"}})
    assert code == 1 and "dice.seed = '-3'" in err
    code = main(["verify", str(tmp_path / "missing.json")])
    assert code == 2 and "cannot read it" in capsys.readouterr().err


def test_verify_help(capsys):
    with pytest.raises(SystemExit) as e:
        main(["verify", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "RECORD.json" in out and "--json" in out and "zilch-rl/dice/1:KIND:SEED" in out

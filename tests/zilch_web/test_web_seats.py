"""Issue 41, class 2: seat tokens are the server's, and names cannot hide who is who.

* A claim never takes a token the client chose: without ``token`` it gets a fresh one (128 bits,
  URL-safe); with a token it is refused (422 ``client_token``) unless the device already holds a seat
  of the game with that token.
* Names are NFC, with control, format and invisible characters refused (422 naming the character),
  and two names that read the same (case, compatibility forms) are refused.
"""

from __future__ import annotations

import unicodedata
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from zilch_web.app import create_app
from zilch_web.limits import Limits
from zilch_web.seats import MAX_NAME
from zilch_web.table import Seat, Table, TableError, clean_name, name_key

from .conftest import one_loop


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    path = tmp_path_factory.mktemp("seats") / "g.sqlite3"
    with one_loop(TestClient(create_app(str(path), cpu_specs=["heuristic"], limits=Limits(new_games=0)),
                             raise_server_exceptions=False)) as c:
        yield c


def game(client, *names):
    r = client.post("/api/games", json={"ruleset": "zonk", "players": [{"name": n} for n in names]})
    return r


def invited(client):
    created = game(client, "Ann", "Bob", "Cy").json()
    gid, token = created["id"], created["token"]
    for _ in range(2):
        assert client.post(f"/api/games/{gid}/invite", json={"token": token}).status_code == 200
    return gid, token


# ------------------------------------------------------------------------------ tokens


def test_claim_with_a_client_chosen_token_is_refused(client):
    gid, _ = invited(client)
    for chosen in ("x", "a" * 22, "AAAAAAAAAAAAAAAAAAAAAA"):
        r = client.post(f"/api/games/{gid}/claim", json={"token": chosen})
        assert r.status_code == 422 and r.json()["error"] == "client_token", r.text
        assert "made by the server" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json()["free_seats"] == [1, 2]  # nothing was taken


def test_claims_get_fresh_server_tokens_of_128_bits(client):
    gid, creator = invited(client)
    r1 = client.post(f"/api/games/{gid}/claim", json={}).json()
    assert len(r1["token"]) >= 22 and r1["token"] != creator  # token_urlsafe(16): 128 bits
    # the same device may take the other free seat with the token it got from the server
    r2 = client.post(f"/api/games/{gid}/claim", json={"token": r1["token"]})
    assert r2.status_code == 200 and r2.json()["token"] == r1["token"] and r2.json()["seats"] == [1, 2]


def test_a_token_of_another_game_is_refused(client):
    gid, _ = invited(client)
    _, other_token = invited(client)
    r = client.post(f"/api/games/{gid}/claim", json={"token": other_token})
    assert r.status_code == 422 and r.json()["error"] == "client_token"


# ------------------------------------------------------------------------------ names

HIDDEN = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\u202d", "\u2066", "\u00ad", "\x00",
          "\x1b", "\n", "\t", "\u2028", "\u3164", "\u115f", "\u2800", "\ue000", "\U000e0041"]


@pytest.mark.parametrize("ch", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_hidden_characters_in_a_name_are_refused_by_name(client, ch):
    r = game(client, f"An{ch}n", "Ann")
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert f"U+{ord(ch):04X}" in detail and "character 3" in detail


@pytest.mark.parametrize("a, b", [("Ann", "ann"), ("Ann", " Ann "), ("Ann", "Ａｎｎ"), ("Ann", "A\u00a0nn".replace("\u00a0", "")),
                                  ("Zoë", "Zoe\u0308"), ("ﬁona", "fiona"), ("Ann  Lee", "Ann Lee")])
def test_names_that_read_the_same_are_refused(client, a, b):
    r = game(client, a, b)
    assert r.status_code == 422 and "two players are called" in r.json()["detail"], r.text


def test_names_are_stored_as_nfc_with_single_spaces(client):
    r = game(client, "Zoe\u0308", "Ann\u00a0\u00a0Lee")
    assert r.status_code == 201, r.text
    names = [p["name"] for p in r.json()["game"]["players"]]
    assert names == ["Zoë", "Ann Lee"] and unicodedata.is_normalized("NFC", names[0])


def test_stored_games_with_old_names_still_load():
    """Names are checked when a game is made; a stored game is read back as it was."""
    t = Table("zonk", [Seat("Ann"), Seat("Bob")], seed=1)
    saved = t.to_saved()
    saved["seats"][1]["name"] = "A\u200bnn"
    assert Table.from_saved(saved).names == ["Ann", "A\u200bnn"]


_ALPHABET = st.characters(codec="utf-8", exclude_categories=("Cs",))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(_ALPHABET, min_size=0, max_size=30), st.text(_ALPHABET, min_size=0, max_size=30))
def test_any_two_names_are_accepted_only_if_clean_visible_and_different(a, b):
    try:
        seats = Table("zonk", [Seat(a), Seat(b)], seed=0).seats
    except TableError as e:
        assert str(e)  # a reason, never another exception
        return
    for s in seats:
        assert s.name == clean_name(s.name) and s.name.strip() == s.name and 1 <= len(s.name) <= MAX_NAME
        assert unicodedata.is_normalized("NFC", s.name)
        assert not any(unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Zl", "Zp") for c in s.name)
    assert name_key(seats[0].name) != name_key(seats[1].name)


def test_rematch_of_a_stored_game_with_a_name_now_refused_still_works(client):
    """A game stored before names were checked keeps its names, in its rematch too."""
    from zilch_env import load_ruleset
    from zilch_web.live import initial_meta, new_token

    t = Table(load_ruleset("zonk", {"target": 300, "entry_threshold": 0}), [Seat("A\u200bnn")], seed=1,
              check_names=False)
    while not t.done:
        g = t.state
        k = max(g.keeps(), key=lambda k: k.points)
        bank = k.mask * 2 + 1
        t.apply(bank if bank in g.legal_actions() else k.mask * 2)
    gid = client.app.state.store.create(t, initial_meta(t.humans, new_token()))
    r = client.post(f"/api/games/{gid}/rematch")
    assert r.status_code == 201, r.text
    assert r.json()["game"]["players"][0]["name"] == "A\u200bnn"


def test_look_alike_letters_of_other_scripts_are_one_name():
    """A Cyrillic А or Greek Α for a Latin A, a Cyrillic о for an o: the same name on a phone."""
    assert name_key("\u0410nn") == name_key("Ann") == name_key("\u0391NN")
    assert name_key("B\u043eb") == name_key("Bob")
    assert name_key("\u0415\u0432\u0430") != name_key("Eba")  # a Russian name stays its own

"""Golden agent records: every shipped agent plays seeded games, and each decision is pinned.

Single-game engine (``zilch_env.GameState``): every trained agent of ``checkpoints/`` with a
``policy.json`` (the spec ``ppo:checkpoints/<dir>``, on its own ruleset as its ``policy.json`` records
it, at the player count it was trained for and at three players; ``checkpoints/any`` on a few presets
and variants), and the built-in specs ``heuristic``, ``greedy``, ``optimal-turn`` (every preset, a few
variants, a three-player game) and ``optimal-win`` (two players, on every preset whose game table is
shipped in ``agents/game_tables``). Every seat of a game is played by the agent under test. Per game the
record holds the chosen actions in order, a sha256 over every decision's (observation bytes, legal
actions, action) and the final scores and winners. The observation is ``zilch_env.observe(state,
state.current)``, the agent's own point of view, cut to the layout the agent reads (a policy's
``obs_size``; the whole current layout for the built-in agents, which read the state itself).

Batched engine (``zilch_env.engine.batched.BatchedGames.play_to_end``): each agent with a kernel form
(``agents.kernel_agent``: ``random``, ``greedy``, ``greedy:500``, ``optimal-turn``) plays a few hundred
seeded games per ruleset (self-play, and greedy against optimal-turn in alternating seats); the record
holds every game's scores, winners (as a seat bit mask), decisions and turns. Which specs have a kernel
form at all is recorded too.

    python tests/data/make_golden_agents.py     # rewrites tests/data/golden_agents.json.gz

``tests/test_golden_agents.py`` replays the same games and requires the same records. Regenerate only
for a deliberate change of an agent's play (a retrained checkpoint, a fixed solver; say which in the
commit), never to make a refactor pass.

Every entry point used is imported in the block below (and nowhere else, the test included): when a
module moves, update that block only.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

# ---- the public entry points (update here when they move) -----------------------------------
from zilch_env import GameState, load_ruleset, observe  # noqa: E402
from zilch_env.engine.batched import BatchedGames  # noqa: E402
from agents import kernel_agent, make_agent  # noqa: E402
# ----------------------------------------------------------------------------------------------

OUT = Path(__file__).with_name("golden_agents.json.gz")
CHECKPOINTS = ROOT / "checkpoints"
#: The built-in agents read the game state, not an observation: their hash covers the whole layout.
FULL_OBS = None
GAMES = 3  # per configuration at the agent's own player count
MAX_DECISIONS = 20_000
BATCH_GAMES = 256

PRESETS = ("zilch", "zilch15k", "zilch10k", "zilch5k", "farkle", "farkle-basic", "zonk", "zonk20k", "cardgames")
#: Variant configurations for the agents that play every ruleset: (name, preset, overrides).
VARIANTS = (
    ("pyramiding", "zonk", {"target": 3000, "variants.pyramiding": True}),
    ("challenge+piggyback", "zilch15k", {"target": 3000, "variants.challenge": True, "variants.piggyback": True}),
    ("overcoming", "farkle", {"target": 3000, "variants.overcoming": True}),
    ("bonus+penalty", "zilch", {"target": 3000, "variants.six_dice_zilch_bonus": 500,
                                "variants.zilch_penalty": {"count": 3, "points": 500, "mode": "subtract"}}),
)
#: checkpoints/any (a policy for every ruleset): a few presets and variants.
ANY_RULESETS = (
    ("zilch", "zilch", {}), ("farkle-basic", "farkle-basic", {}), ("zonk", "zonk", {}),
    ("cardgames", "cardgames", {}),
    ("piggyback", "zilch15k", {"target": 3000, "variants.piggyback": True}),
    ("bonus+penalty", "farkle", {"target": 3000, "variants.six_dice_zilch_bonus": 500,
                                 "variants.zilch_penalty": {"count": 3, "points": 500, "mode": "subtract"}}),
)
KERNEL_SPECS = ("random", "greedy", "greedy:500", "optimal-turn")
#: Specs whose kernel form (or its absence) is recorded on every batched ruleset.
FORM_SPECS = ("random", "greedy", "greedy:500", "greedy-bold", "greedy-table", "heuristic", "optimal-turn",
              "optimal-turn:plain", "optimal-win", "ppo:checkpoints/zonk")
BATCH_RULESETS = (
    ("zilch", "zilch", {}, 2), ("zilch15k", "zilch15k", {}, 2), ("farkle", "farkle", {}, 2),
    ("zonk", "zonk", {}, 2), ("cardgames", "cardgames", {}, 2), ("zonk/3p", "zonk", {}, 3),
    ("bonus+penalty", "zilch", {"target": 3000, "variants.six_dice_zilch_bonus": 500,
                                "variants.zilch_penalty": {"count": 3, "points": 500, "mode": "subtract"}}, 2),
    ("piggyback+challenge", "zilch15k", {"target": 3000, "variants.piggyback": True,
                                         "variants.challenge": True}, 2),
)


def shipped_policies() -> list[str]:
    """The checkpoint directories that ship a policy.json, sorted."""
    return sorted(p.parent.name for p in CHECKPOINTS.glob("*/policy.json"))


def configs():
    """(name, spec, ruleset, players, games, seed) of every single-game configuration, in order."""
    for i, d in enumerate(shipped_policies()):
        meta = json.loads((CHECKPOINTS / d / "policy.json").read_text())
        spec = f"ppo:checkpoints/{d}"
        if meta["ruleset"].get("distribution") == "any":
            for j, (label, preset, over) in enumerate(ANY_RULESETS):
                yield f"{spec}/{label}/2", spec, load_ruleset(preset, over), 2, GAMES, [1, i, j, 2]
            yield f"{spec}/zonk/3", spec, load_ruleset("zonk"), 3, 1, [1, i, 99, 3]
            continue
        rs = load_ruleset(meta["ruleset"]["name"])  # the policy's own rules (make_agent checks every rule)
        n = int(meta.get("training", {}).get("players", 2))
        yield f"{spec}/{rs.name}/{n}", spec, rs, n, GAMES, [1, i, 0, n]
        yield f"{spec}/{rs.name}/3", spec, rs, 3, 1, [1, i, 0, 3]
    for i, spec in enumerate(("heuristic", "greedy", "optimal-turn")):
        for j, preset in enumerate(PRESETS):
            yield f"{spec}/{preset}/2", spec, load_ruleset(preset), 2, 2, [2, i, j, 2]
        for j, (label, preset, over) in enumerate(VARIANTS):
            yield f"{spec}/{preset}+{label}/2", spec, load_ruleset(preset, over), 2, 2, [3, i, j, 2]
        yield f"{spec}/zilch/3", spec, load_ruleset("zilch"), 3, 1, [2, i, 0, 3]
    for j, preset in enumerate(PRESETS):
        yield f"optimal-win/{preset}/2", "optimal-win", load_ruleset(preset), 2, 2, [4, 0, j, 2]


def batch_configs():
    """(name, agents, ruleset, players, seat_agents, seed) of every batched configuration."""
    for j, (label, preset, over, n) in enumerate(BATCH_RULESETS):
        rs = load_ruleset(preset, over)
        for i, spec in enumerate(KERNEL_SPECS):
            yield f"{spec}/{label}", [spec], rs, n, np.zeros((BATCH_GAMES, n), dtype=np.int64), 1000 * j + i
        seats = (np.arange(BATCH_GAMES)[:, None] + np.arange(n)[None, :]) % 2  # greedy and optimal-turn alternate
        yield f"greedy-vs-optimal-turn/{label}", ["greedy", "optimal-turn"], rs, n, seats, 1000 * j + 99


_AGENTS: dict[tuple[str, str], object] = {}


def agent_for(spec: str, rs) -> object:
    """The agent a spec names for ``rs`` (built once per spec and rules)."""
    key = (spec, json.dumps(rs.to_dict(), sort_keys=True, default=str))
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(spec, rs)
    return _AGENTS[key]


def obs_size_of(agent) -> int | None:
    """How many leading observation values the agent reads (None: the whole observation)."""
    policy = getattr(agent, "policy", None)
    return int(policy.obs_size) if policy is not None and hasattr(policy, "obs_size") else FULL_OBS


def play(spec: str, rs, n: int, seed: list[int], game: int) -> dict:
    """One seeded game with ``spec`` in every seat: its actions, the hash of every decision, the end."""
    agent = agent_for(spec, rs)
    size = obs_size_of(agent)
    g = GameState(rs, n, seed=np.random.default_rng([*seed, game]))
    rng = np.random.default_rng([*seed, game, 1])
    h = hashlib.sha256()
    actions: list[int] = []
    while not g.done and len(actions) < MAX_DECISIONS:
        legal = list(g.legal_actions())
        obs = observe(g, g.current)
        if size is not None:
            obs = obs[:size]
        a = int(agent.act(g, legal, rng))
        h.update(np.ascontiguousarray(obs, dtype=np.float32).tobytes())
        h.update(np.array([len(legal), *legal, a], dtype=np.int64).tobytes())
        actions.append(a)
        g.apply(a)
    return {"actions": actions, "sha256": h.hexdigest(), "scores": list(map(int, g.scores)),
            "winners": list(g.winners) if g.winners is not None else None}


def play_batch(agents: list[str], rs, n: int, seats: np.ndarray, seed: int) -> dict:
    """A batch of seeded games played to the end by kernel agents: each game's outcome."""
    games = BatchedGames(rs, num_games=len(seats), num_players=n, seed=seed)
    games.play_to_end([kernel_agent(a, rs) for a in agents], seats)
    masks = (games.winners.astype(np.int64) << np.arange(n)).sum(axis=1)
    return {"scores": games.scores.astype(np.int64).reshape(-1).tolist(), "winners": masks.tolist(),
            "decisions": games.decisions.astype(np.int64).tolist(), "turns": games.turns.astype(np.int64).tolist()}


def kernel_forms() -> dict[str, bool]:
    """Whether each of :data:`FORM_SPECS` has a kernel form, on every batched ruleset."""
    out = {}
    for label, preset, over, _ in BATCH_RULESETS:
        rs = load_ruleset(preset, over)
        for spec in FORM_SPECS:
            try:
                kernel_agent(spec, rs)
                out[f"{spec}/{label}"] = True
            except ValueError:  # UnsupportedRulesError, AgentSpecError (a policy for other rules)
                out[f"{spec}/{label}"] = False
    return out


def main() -> int:
    games = {}
    for name, spec, rs, n, count, seed in configs():
        games[name] = [play(spec, rs, n, seed, k) for k in range(count)]
        # an agent that is not deterministic would make a useless record: play each game again
        again = [play(spec, rs, n, seed, k) for k in range(count)]
        if again != games[name]:
            raise SystemExit(f"{name}: the same seeded game played twice differs (a non-deterministic agent)")
    batched = {name: play_batch(agents, rs, n, seats, seed) for name, agents, rs, n, seats, seed in batch_configs()}
    data = {"games": games, "batched": batched, "kernel_forms": kernel_forms()}
    OUT.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
    decisions = sum(len(r["actions"]) for v in games.values() for r in v)
    print(f"{OUT}: {len(games)} configurations, {sum(len(v) for v in games.values())} games, {decisions} "
          f"decisions; {len(batched)} batched configurations of {BATCH_GAMES} games; "
          f"{OUT.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

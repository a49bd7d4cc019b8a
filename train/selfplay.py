"""Self-play for ``train/ppo.py``: frozen snapshots of the learning policy, a pool of them, and an
opponent that plays a snapshot drawn from the pool.

A snapshot is the policy network of a ``MaskablePPO`` model (``policy_net`` of the MLP extractor and
``action_net``) copied into NumPy arrays. The opponent runs it in NumPy inside ``ZilchEnv.step``:
for one observation a 471-128-128-136 forward pass costs a few microseconds in NumPy, far less than a
torch call, and a snapshot pickles (evaluation workers) without torch.

Rules of the pool (``--opponents self``):

* The pool starts with the initial (untrained) policy and gets a new snapshot every
  ``--selfplay-every`` timesteps; it keeps the ``--selfplay-pool`` most recent ones (oldest dropped).
* Each environment whose opponents are ``self`` draws one snapshot per game, uniformly from the pool,
  with the environment's own generator (so a seeded run replays), and that snapshot plays every
  ``self`` seat of that game. The snapshot samples its moves from its masked policy (not argmax), so
  opponents stay varied.
* The pool is saved with every checkpoint and restored by ``--resume``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from zilch_env import NUM_ACTIONS, GameState
from zilch_env.engine.observation import observe

__all__ = ["PolicySnapshot", "SelfPlayPool", "SelfPlayOpponent"]

_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
}


class PolicySnapshot:
    """A frozen copy of a masked MLP policy, played in NumPy.

    ``layers`` are ``(weight, bias)`` pairs (weight of shape ``(out, in)``, as torch stores it); the
    activation runs after every layer but the last, whose outputs are the action logits. Illegal
    actions get the logit -1e8 (what sb3-contrib's masked distribution uses), so the choice is always
    legal. ``deterministic=True`` takes the argmax (the policy as evaluated and exported); otherwise
    it samples from the masked softmax with the ``rng`` it is given.
    """

    def __init__(self, layers: Sequence[tuple[np.ndarray, np.ndarray]], activation: str = "Tanh",
                 deterministic: bool = False, name: str = "snapshot"):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation {activation!r}: supported are {', '.join(_ACTIVATIONS)}")
        self.layers = [(np.ascontiguousarray(w, dtype=np.float32).T.copy(),
                        np.asarray(b, dtype=np.float32).copy()) for w, b in layers]
        self.activation = activation
        self.deterministic = deterministic
        self.name = name

    @classmethod
    def from_policy(cls, policy: Any, **kw: Any) -> "PolicySnapshot":
        """Copy the actor of an SB3 ``MaskableActorCriticPolicy`` (an MLP of ``nn.Linear`` layers)."""
        import torch.nn as nn

        linears, act = [], None
        for m in policy.mlp_extractor.policy_net:
            if isinstance(m, nn.Linear):
                linears.append(m)
            elif act is None:
                act = type(m).__name__
        linears.append(policy.action_net)
        layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
        return cls(layers, activation=act or "Tanh", **kw)

    def state(self) -> dict[str, Any]:
        """Plain arrays and strings (for ``np.savez`` / pickling)."""
        return {"layers": [(w.T.copy(), b) for w, b in self.layers], "activation": self.activation}

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = obs
        f = _ACTIVATIONS[self.activation]
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                x = f(x)
        return x

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        z = self.logits(observe(state, state.current)).astype(np.float64)
        masked = np.full(NUM_ACTIONS, -1e8)
        idx = np.asarray(legal, dtype=np.int64)
        masked[idx] = z[idx]
        if self.deterministic:
            return int(np.argmax(masked))
        zl = masked[idx]
        p = np.exp(zl - zl.max())
        p /= p.sum()
        return int(idx[min(int(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right")),
                           len(idx) - 1)])


class SelfPlayPool:
    """The agent's own earlier snapshots: the most recent ``size`` of them."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f"self-play pool size {size!r}: at least 1")
        self.size = size
        self.snapshots: list[PolicySnapshot] = []
        self.timesteps: list[int] = []  # when each snapshot was taken

    def add(self, snap: PolicySnapshot, timestep: int) -> None:
        self.snapshots.append(snap)
        self.timesteps.append(int(timestep))
        del self.snapshots[:-self.size], self.timesteps[:-self.size]

    def sample(self, rng: np.random.Generator) -> PolicySnapshot:
        if not self.snapshots:
            raise RuntimeError("the self-play pool is empty: add the initial policy before playing")
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    def save(self, path: str) -> None:
        arrays: dict[str, np.ndarray] = {"timesteps": np.asarray(self.timesteps, dtype=np.int64),
                                         "size": np.asarray(self.size)}
        for k, s in enumerate(self.snapshots):
            st = s.state()
            arrays[f"s{k}_activation"] = np.asarray(st["activation"])
            for j, (w, b) in enumerate(st["layers"]):
                arrays[f"s{k}_w{j}"], arrays[f"s{k}_b{j}"] = w, b
        np.savez(path, **arrays)

    def load(self, path: str) -> None:
        with np.load(path) as z:
            ts = [int(t) for t in z["timesteps"]]
            snaps = []
            for k in range(len(ts)):
                layers, j = [], 0
                while f"s{k}_w{j}" in z:
                    layers.append((z[f"s{k}_w{j}"], z[f"s{k}_b{j}"]))
                    j += 1
                snaps.append(PolicySnapshot(layers, str(z[f"s{k}_activation"])))
        self.snapshots, self.timesteps = snaps[-self.size:], ts[-self.size:]


class SelfPlayOpponent:
    """The ``self`` opponent of one environment: a snapshot from the pool, drawn anew for each game.

    A new game is recognised by a new :class:`~zilch_env.GameState` object (``ZilchEnv.reset`` makes
    one per game); the draw uses the ``rng`` the environment passes, its ``np_random``.
    """

    name = "self"

    def __init__(self, pool: SelfPlayPool):
        self.pool = pool
        self._game: GameState | None = None
        self._snap: PolicySnapshot | None = None

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        if state is not self._game or self._snap is None:
            self._game = state
            self._snap = self.pool.sample(rng)
        return self._snap.act(state, legal, rng)


class SelfPlayBatch:
    """The ``self`` opponent as a batch policy ``(obs, masks) -> actions`` for
    :class:`zilch_env.envs.vec_env.BatchedZilchVecEnv` (``--vec batched``).

    A batch policy sees the observations of the games where it is to move, not which games they are,
    so it cannot keep one snapshot per game: each decision draws its snapshot from the pool anew
    (``rng``, seeded by the run), and samples its move from that snapshot's masked policy
    (Gumbel-max over the legal actions).
    """

    name = "self"

    def __init__(self, pool: SelfPlayPool, rng: np.random.Generator):
        self.pool = pool
        self.rng = rng

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        snaps = self.pool.snapshots
        if not snaps:
            raise RuntimeError("the self-play pool is empty: add the initial policy before playing")
        which = self.rng.integers(len(snaps), size=len(obs))
        out = np.empty(len(obs), dtype=np.int64)
        gumbel = -np.log(-np.log(self.rng.random(masks.shape)))
        for k in np.unique(which):
            rows = np.flatnonzero(which == k)
            z = snaps[k].logits(obs[rows]) + gumbel[rows]
            out[rows] = np.argmax(np.where(masks[rows], z, -np.inf), axis=1)
        return out

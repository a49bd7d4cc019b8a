"""DAgger's pieces (Ross, Gordon and Bagnell 2011), for ``train/teach.py`` and ``train/teach_any.py``:
:func:`collect` plays the network on a batched VecEnv and labels every decision it makes by a teacher
(``train.teacher.WinTeacher``), :func:`distill` labels them by a frozen network instead,
:class:`Decisions` holds the labelled decisions, and :func:`fit` trains an SB3 masked actor on them by
:func:`teach_loss`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from zilch_env import NUM_ACTIONS

from train.teacher import TeachError, WinTeacher

__all__ = ["Decisions", "argmax_policy", "collect", "distill", "teach_loss", "actor_parameters", "actor_logits",
           "fit"]

# --------------------------------------------------------------------------------------------
# Playing and labelling


@dataclass
class Decisions:
    """Labelled decisions: the observations the network read (``obs_size`` values each), and the
    regret of every action (win chance lost against the best, float16, ``inf`` where illegal)."""

    obs: np.ndarray
    regret: np.ndarray

    def __len__(self) -> int:
        return len(self.obs)

    @classmethod
    def empty(cls, obs_size: int) -> "Decisions":
        return cls(np.zeros((0, obs_size), np.float32), np.zeros((0, NUM_ACTIONS), np.float16))

    def joined(self, other: "Decisions", limit: int) -> "Decisions":
        """These and ``other``'s decisions, the oldest dropped beyond ``limit``."""
        return Decisions.concat([self, other], limit)

    @staticmethod
    def concat(parts: Sequence["Decisions"], limit: int) -> "Decisions":
        """The decisions of ``parts`` in order, the oldest dropped beyond ``limit``, copied once."""
        keep, rows = [], 0
        for d in reversed(parts):  # the newest first, until the limit is reached
            if rows >= limit:
                break
            take = min(len(d), limit - rows)
            keep.append(Decisions(d.obs[len(d) - take:], d.regret[len(d) - take:]))
            rows += take
        keep.reverse()
        if not keep:
            return Decisions(parts[0].obs[:0], parts[0].regret[:0])
        return Decisions(np.concatenate([d.obs for d in keep]), np.concatenate([d.regret for d in keep]))


def argmax_policy(snapshot: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A batch policy ``(obs, masks) -> actions``: the masked argmax of a ``train.selfplay.PolicySnapshot``
    (the network as the exported agent plays it), reading the first ``obs_size`` values."""
    width = snapshot.layers[0][0].shape[0]

    def policy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        z = snapshot.logits(np.ascontiguousarray(obs[:, :width], dtype=np.float32))
        return np.argmax(np.where(masks, z, -np.inf), axis=1)

    policy.snapshot = snapshot  # type: ignore[attr-defined]
    return policy


def collect(venv: Any, policy: Callable[[np.ndarray, np.ndarray], np.ndarray], teacher: WinTeacher,
            decisions: int, obs_size: int, opponents: Sequence[str] = (),
            progress: Any = None) -> tuple[Decisions, dict]:
    """Play ``decisions`` agent decisions on ``venv`` (a ``BatchedZilchVecEnv`` of the teacher's rules,
    reset first) with ``policy`` choosing every move, and
    label each with the teacher's regrets. Returns the decisions and what they measured: per
    opponent (``opponents[i % len(opponents)]`` plays env ``i``, as the VecEnv assigns them), the
    games finished and the policy's mean regret per game over them (the games start afresh, so
    every game counted was played by ``policy`` from its start; those still going at the end are
    not counted); ``progress`` (optional) is
    called with the number of decisions done."""
    n = venv.num_envs
    rows = np.arange(n)
    obs_buf = np.empty((decisions, obs_size), np.float32)
    reg_buf = np.empty((decisions, NUM_ACTIONS), np.float16)
    names = list(opponents) or ["opponent"]
    game_regret = np.zeros(n)
    game_moves = np.zeros(n, np.int64)
    per = {s: {"games": 0, "regret": 0.0, "moves": 0} for s in names}
    got = 0
    obs = venv.reset()  # fresh games: every game counted was played by this policy from its start
    while got < decisions:
        masks = venv.action_masks()
        q = teacher.action_values(venv.games, rows, masks)
        actions = policy(obs, masks)
        v = q.max(axis=1)
        with np.errstate(invalid="ignore"):
            r = v[:, None] - q
        chosen = r[rows, actions]
        if not np.isfinite(chosen).all():
            raise TeachError("collect: the policy chose an illegal action")
        take = min(n, decisions - got)
        obs_buf[got:got + take] = obs[:take, :obs_size]
        reg_buf[got:got + take] = np.maximum(r[:take], 0.0)
        got += take
        game_regret += chosen
        game_moves += 1
        obs, _, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            if infos[i].get("game_over"):
                s = per[names[i % len(names)]]
                s["games"] += 1
                s["regret"] += float(game_regret[i])
                s["moves"] += int(game_moves[i])
            game_regret[i] = 0.0
            game_moves[i] = 0
        if progress is not None:
            progress(got)
    stats = {s: {"games": d["games"], "regret_per_game": d["regret"] / d["games"] if d["games"] else None,
                 "moves_per_game": d["moves"] / d["games"] if d["games"] else None} for s, d in per.items()}
    return Decisions(obs_buf, reg_buf), stats


# --------------------------------------------------------------------------------------------
# Fitting the network


def teach_loss(logits: Any, regret: Any, tau: float, regret_coef: float) -> tuple[Any, dict[str, Any]]:
    """The loss of a minibatch (torch tensors: ``logits`` and ``regret`` of shape ``(batch,
    NUM_ACTIONS)``, ``inf`` regret where illegal): the mean over decisions of the cross-entropy to
    ``softmax(-regret / tau)`` plus ``regret_coef`` times the policy's expected regret over ``tau``.
    Also returns the batch's agreement with the teacher's best action and the argmax's mean regret."""
    import torch

    legal = torch.isfinite(regret)
    r = torch.where(legal, regret, torch.zeros_like(regret))
    logp = torch.log_softmax(logits.masked_fill(~legal, -1e8), dim=1)
    target = torch.softmax((-r / tau).masked_fill(~legal, -1e8), dim=1)
    ce = -(target * logp.masked_fill(~legal, 0.0)).sum(dim=1)
    exp_regret = (logp.exp() * r).sum(dim=1)
    loss = ce.mean() + regret_coef * exp_regret.mean() / tau
    with torch.no_grad():
        pick = logp.argmax(dim=1)
        chosen = r.gather(1, pick[:, None])[:, 0]
        info = {"agree": float((chosen <= 1e-9).float().mean()), "argmax_regret": float(chosen.mean())}
    return loss, info


def actor_parameters(policy: Any) -> list[Any]:
    """The actor of an SB3 ``MaskableActorCriticPolicy``: ``mlp_extractor.policy_net`` and ``action_net``."""
    return [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]


def actor_logits(policy: Any, obs: Any) -> Any:
    """The actor's logits of a batch of observations (what the exported graph takes the argmax of)."""
    features = policy.extract_features(obs, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def fit(policy: Any, data: Decisions, epochs: int, batch_size: int, lr: float, tau: float, regret_coef: float,
        seed: int, max_grad_norm: float = 1.0, optimizer: Any = None, progress: Any = None) -> dict[str, float]:
    """Fit the actor of ``policy`` (an SB3 masked actor-critic policy) to ``data`` by
    :func:`teach_loss`: ``epochs`` passes in minibatches of ``batch_size``, in an order drawn from
    ``seed``, with Adam (``optimizer`` if given, to keep its moments across rounds) and gradient
    clipping. Returns the last epoch's mean loss, agreement and argmax regret per decision."""
    import torch

    params = actor_parameters(policy)
    if optimizer is None:
        optimizer = torch.optim.Adam(params, lr=lr)
    for g in optimizer.param_groups:
        g["lr"] = lr
    gen = torch.Generator().manual_seed(int(seed))
    obs = torch.from_numpy(data.obs)
    reg = torch.from_numpy(data.regret.astype(np.float32))
    n = len(data)
    policy.train()
    stats: dict[str, float] = {}
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        tot = {"loss": 0.0, "agree": 0.0, "argmax_regret": 0.0}
        for s in range(0, n, batch_size):
            idx = order[s:s + batch_size]
            loss, info = teach_loss(actor_logits(policy, obs[idx]), reg[idx], tau, regret_coef)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
            optimizer.step()
            w = len(idx)
            tot["loss"] += loss.item() * w
            tot["agree"] += info["agree"] * w
            tot["argmax_regret"] += info["argmax_regret"] * w
            if progress is not None:
                progress(w)
        stats = {k: v / n for k, v in tot.items()}
    policy.eval()
    return stats


def distill(venv: Any, policy: Callable, frozen: Any, decisions: int, tau: float, obs_size: int,
            offers: Any = None, offer_regret: float = 0.0, offers_only: bool = False) -> Any:
    """``decisions`` of ``policy`` on ``venv`` labelled by the network ``frozen`` (a
    ``train.selfplay.PolicySnapshot``): pseudo-regrets ``tau * (max legal logit - logit)``. With
    ``offers`` (a :class:`zilch_env.players.kernel_agents.TableSet` of the venv's rulesets) and
    ``offer_regret`` > 0, a piggyback offer in a game whose rules have a table in the set is
    labelled by that table's choice instead: regret 0 for it, ``offer_regret`` for the other.
    ``offers_only`` keeps those offers alone (the other decisions are played, not kept)."""
    if offers_only and (offers is None or offer_regret <= 0):
        raise ValueError("distill: offers_only needs the offers' TableSet and an offer_regret above 0")
    if offers_only and not any(t is not None and rs.variants.piggyback for t, rs in zip(offers.tables, venv.rulesets)):
        raise ValueError("distill: offers_only, but no ruleset of the env has piggyback and a solved turn table")
    idle = 0  # steps without an offer kept (offers_only): a bound, not an endless loop
    from zilch_env.engine import layout as L

    obs_buf = np.empty((decisions, obs_size), np.float32)
    reg_buf = np.empty((decisions, NUM_ACTIONS), np.float16)
    got = 0
    solved = np.array([t is not None for t in offers.tables]) if offers is not None else None
    obs = venv.reset()
    while got < decisions:
        masks = venv.action_masks()
        z = np.where(masks, frozen.logits(np.ascontiguousarray(obs[:, :obs_size])), -np.inf)
        r = tau * (z.max(axis=1, keepdims=True) - z)  # inf where illegal
        keep = np.arange(len(obs))
        if offers is not None and offer_regret > 0:
            rows = np.flatnonzero((venv.games.phase == L.PIGGYBACK) & solved[venv.games.rule_ids])
            if rows.size:
                choice = venv.games.value_actions(offers)[rows]
                r[rows[:, None], [L.A_FRESH, L.A_PIGGYBACK]] = offer_regret
                r[rows, choice] = 0.0
            if offers_only:
                keep = rows
                idle = 0 if rows.size else idle + 1
                if idle > 10_000:
                    raise RuntimeError("distill: 10,000 steps without a piggyback offer to the agent")
        keep = keep[: decisions - got]
        take = keep.size
        obs_buf[got:got + take] = obs[keep, :obs_size]
        reg_buf[got:got + take] = np.minimum(r[keep], 60000.0)  # float16's range; inf stays inf
        reg_buf[got:got + take][~masks[keep]] = np.inf
        got += take
        obs, _, _, _ = venv.step(policy(obs, masks))
    return Decisions(obs_buf, reg_buf)

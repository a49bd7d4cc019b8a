"""The model of a ``train/ppo.py`` run: a fresh ``MaskablePPO`` with the run's hyperparameters, a
resumed one, and the actor copied from another checkpoint (``--init``, widened from an earlier
observation layout). Imported by ``train/ppo.py``, which re-exports these names."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from zilch_env.engine.observation import OBS_SIZE, OBS_SIZES, OBS_VERSION

if TYPE_CHECKING:  # the Args dataclass of train/args.py
    from train.args import Args

__all__ = ["linear_schedule", "new_model", "resumed_model", "init_actor"]


def linear_schedule(lr: float, start: float = 1.0) -> Any:
    """SB3's learning-rate schedule decaying from ``lr`` to 0 over the run (its argument is the
    fraction of SB3's count still to go). A resumed run's count goes on from the steps done before
    it: ``start`` is that fraction when this run starts (its steps over the new total), so the decay
    spans this run's own steps."""
    def schedule(progress_remaining: float) -> float:
        return lr * min(1.0, progress_remaining / start)
    return schedule


def new_model(args: Args, venv: Any) -> Any:
    """A fresh ``MaskablePPO`` with the run's hyperparameters (seeded by ``--seed``), its actor
    copied from ``--init`` if given."""
    from sb3_contrib import MaskablePPO

    hidden = [int(h) for h in args.net_arch.split(",") if h.strip()]
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=args.n_steps,
        learning_rate=(linear_schedule(args.learning_rate) if args.anneal_lr else args.learning_rate),
        batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
        gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
        vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}}, seed=args.seed, device="cpu")
    if args.init:
        init_actor(model, args.init)
    return model


def resumed_model(args: Args, latest: Path, venv: Any, state: dict[str, Any]) -> Any:
    """The model of ``latest/`` (weights, optimizer, timestep count) on ``venv``. A
    ``--learning-rate`` or ``--anneal-lr`` other than the saved run's applies to the continuation
    (annealed, it decays from the new rate to 0 over the steps left to ``--timesteps``, the run's
    total); otherwise the saved schedule goes on."""
    from sb3_contrib import MaskablePPO

    saved = state.get("args") or {}
    changes: dict[str, Any] = {}
    if (args.learning_rate, args.anneal_lr) != (saved.get("learning_rate"), saved.get("anneal_lr")):
        done = int(state["timesteps"])
        left = max(args.timesteps - done, 1)
        # MaskablePPO.load sets what it is given before it builds the schedule from learning_rate
        changes["learning_rate"] = (linear_schedule(args.learning_rate, left / (done + left))
                                    if args.anneal_lr else args.learning_rate)
        state.setdefault("args", {}).update(learning_rate=args.learning_rate, anneal_lr=args.anneal_lr)
    return MaskablePPO.load(latest / "model.zip", env=venv, device="cpu", **changes)


def _layout_of(size: int) -> str:
    """The observation layout version whose size is ``size`` (for messages)."""
    return next((str(v) for v, n in OBS_SIZES.items() if n == size), "unknown")


def init_actor(model: Any, checkpoint: str) -> None:
    """Copy the actor (``mlp_extractor.policy_net`` and ``action_net``) of another checkpoint into
    ``model``. The value network is not copied: another objective's values are on another scale (the
    points of many turns against a win of +-1), and their large errors would dominate the shared
    gradient clipping. Same ``--net-arch`` required. A checkpoint of an earlier observation layout
    is widened (zero weights for the values appended since), so it plays exactly as before."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.export import resolve_checkpoint

    src_model = MaskablePPO.load(resolve_checkpoint(checkpoint), device="cpu")
    src_size = src_model.observation_space.shape[0]
    src = src_model.policy.state_dict()
    first = "mlp_extractor.policy_net.0.weight"
    if src_size != OBS_SIZE:
        if src_size not in OBS_SIZES.values() or src_size > OBS_SIZE or first not in src:
            raise SystemExit(f"--init {checkpoint}: its network reads {src_size} observation values (layout "
                             f"{_layout_of(src_size)}), this code writes {OBS_SIZE} (layout {OBS_VERSION}); only "
                             "an earlier layout's network can be widened: train from scratch")
        # Every layout extends the one before it at the end: the old network, with zero weights for
        # the values appended since, answers a current observation as it answered its prefix.
        w = src[first]
        src[first] = torch.cat([w, w.new_zeros((w.shape[0], OBS_SIZE - src_size))], dim=1)
    keys = [k for k in src if k.startswith(("mlp_extractor.policy_net.", "action_net."))]
    dst = model.policy.state_dict()
    bad = [k for k in keys if k not in dst or dst[k].shape != src[k].shape]
    if bad:
        raise SystemExit(f"--init {checkpoint}: its actor does not fit this network ({bad[0]}); give the same "
                         "--net-arch as the run that made it")
    model.policy.load_state_dict({k: src[k] for k in keys}, strict=False)

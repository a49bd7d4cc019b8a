"""The package's optional features and the extras that install them.

``pip install zilch-rl`` gives the rules, the engine, the environments, the solvers and the ``zilch``
command; each feature that needs a larger library names its extra (pyproject.toml's
``[project.optional-dependencies]``). :func:`require` imports such a library, or raises
:class:`MissingExtraError` saying which feature needs which extra and the command that installs it:

>>> require("json", "eval", "writing the plots").__name__
'json'
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "MissingExtraError", "install_command", "require"]

#: Each extra and what it adds.
EXTRAS = {
    "agents": "the trained agents (ppo:zonk, ppo:any, ...): onnxruntime",
    "eval": "the evaluation's plots (zilch eval --out) and the rgb_array frames: matplotlib, pillow",
    "web": "the web game (zilch serve): fastapi, uvicorn, and the agents extra",
    "openspiel": "the OpenSpiel game python_zilch: open-spiel, dm-tree",
    "train": "training and SB3 checkpoints: torch, stable-baselines3, sb3-contrib, tensorboard, onnx, agents",
    "ray": "Ray Tune sweeps and zilch eval --ray: ray[tune]",
    "all": "every extra above",
}


class MissingExtraError(ImportError):
    """A feature's library is not installed; the message names the extra and the install command."""


def install_command(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'zilch-rl[EXTRA]'``."""
    return f"pip install 'zilch-rl[{extra}]'"


def require(module: str, extra: str, feature: str, *, otherwise: str | None = None,
            error: type[MissingExtraError] = MissingExtraError) -> ModuleType:
    """``module`` imported; if it (or its package) is not installed, ``error`` (a
    :class:`MissingExtraError`) saying "FEATURE needs the EXTRA extra: pip install 'zilch-rl[EXTRA]'",
    followed by ``otherwise`` (another way out) when given. A module that is installed but fails on
    import raises its own error: only a missing module is a missing extra."""
    if extra not in EXTRAS:
        raise ValueError(f"{extra!r} is not an extra of zilch-rl (one of {', '.join(EXTRAS)})")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is None or not (module == e.name or module.startswith(e.name + ".")):
            raise
    message = f"{feature} needs the {extra} extra: {install_command(extra)}"
    if otherwise:
        message += f" ({otherwise})"
    err = error(message)
    err.name, err.extra, err.feature = module, extra, feature
    raise err

"""Export a trained policy as the CPU opponent: an ONNX graph and a JSON file beside it.

    python -m agents.export checkpoints/zonk --out checkpoints/zonk/policy.onnx

``CHECKPOINT`` is a ``MaskablePPO`` zip written by ``train/ppo.py`` (``.../best/model.zip``) or a
checkpoint directory (its ``best/model.zip``, else ``latest/model.zip``). The training metadata is read
from ``train.json`` beside the zip.

The graph
    Inputs ``obs`` (float32, ``[batch, obs_size]``: the first ``obs_size`` values of
    :func:`zilch_env.observe` of the seat to move, the layout the model was trained on) and
    ``mask`` (bool, ``[batch, NUM_ACTIONS]``, True = legal); output ``action`` (int64, ``[batch]``).
    Inside: the actor MLP gives the logits, illegal actions get -1e8 (what sb3-contrib's masked
    distribution uses), and the argmax is the action: the deterministic masked action of the SB3
    model, so the graph never returns an illegal action while one is legal. Exported with the
    TorchScript-based ``torch.onnx.export`` (opset 17): the graph is a few matrix products, and the
    dynamo exporter takes ~15 s for the same graph.

The JSON file (``policy.json`` beside ``policy.onnx``)
    ``ruleset`` (the full rules, :meth:`Ruleset.to_dict`), ``obs_version`` / ``obs_size`` (the
    observation layout the model was trained on, ``zilch_env.engine.observation``: read from the model's
    observation space, so a layout 1 zip exports as layout 1; layouts extend each other at the end, so
    :mod:`agents.learned` feeds it the first ``obs_size`` values), ``action_layout``
    (``num_actions`` and what each number means), ``training`` (the commands that trained it, timesteps, players, objective,
    opponents, the best periodic evaluation), ``evaluation`` (the final evaluation's summary, filled in
    by ``train/ppo.py`` after it plays the exported agent), ``sha256`` of the ONNX file.
    :mod:`agents.learned` refuses a policy whose ruleset differs from the game's, or whose
    ``obs_version`` this code does not know.

This module needs torch and stable-baselines3 (the ``train`` extra) and ``onnx``; playing the exported
policy (:mod:`agents.learned`) needs only onnxruntime.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from zilch_env import NUM_ACTIONS, GameState, load_ruleset
from zilch_env.engine.game import CHALLENGE_BASE, FRESH, NO_CHALLENGE, PIGGYBACK
from zilch_env.engine.observation import OBS_SIZES, observe

__all__ = ["export", "resolve_checkpoint", "train_metadata", "update_metadata", "action_layout",
           "sample_states", "check_export", "main", "POLICY_FORMAT", "MASKED_LOGIT"]

POLICY_FORMAT = "zilch-rl/policy/1"
#: The logit given to illegal actions (as sb3-contrib's MaskableCategorical does).
MASKED_LOGIT = -1e8
OPSET = 17


def action_layout() -> dict[str, Any]:
    """``NUM_ACTIONS`` and the meaning of each action number (the engine's flat layout)."""
    return {
        "num_actions": NUM_ACTIONS,
        "meaning": [
            {"actions": [0, 127], "name": "keep", "rule": "after a roll: mask * 2 + bank; bit i of mask "
             "keeps the die at position i of the sorted roll; bank 1 banks after keeping, 0 rolls on"},
            {"actions": [FRESH, FRESH], "name": "FRESH", "rule": "turn start under piggyback: roll fresh dice"},
            {"actions": [PIGGYBACK, PIGGYBACK], "name": "PIGGYBACK",
             "rule": "turn start under piggyback: take over the previous player's turn total and dice"},
            {"actions": [NO_CHALLENGE, NO_CHALLENGE], "name": "NO_CHALLENGE",
             "rule": "turn start under challenge: no challenge"},
            {"actions": [CHALLENGE_BASE, NUM_ACTIONS - 1], "name": "CHALLENGE",
             "rule": "turn start under challenge: CHALLENGE_BASE + k - 1 challenges the player k seats after"},
        ],
    }


def resolve_checkpoint(path: str | Path) -> Path:
    """The model zip a checkpoint path names: a ``.zip`` itself, or a directory's ``best/model.zip``,
    ``latest/model.zip`` or ``model.zip`` (the first that exists)."""
    p = Path(path)
    if p.is_file() and p.suffix == ".zip":
        return p
    if p.is_dir():
        for cand in (p / "best" / "model.zip", p / "latest" / "model.zip", p / "model.zip"):
            if cand.is_file():
                return cand
        raise FileNotFoundError(f"{p}: no best/model.zip, latest/model.zip or model.zip in this directory "
                                "(train one with train/ppo.py)")
    raise FileNotFoundError(f"{p}: not a MaskablePPO .zip nor a checkpoint directory")


def train_metadata(zip_path: str | Path) -> dict[str, Any]:
    """``train.json`` beside a model zip (written by ``train/ppo.py``): rules, layout, commands."""
    meta = Path(zip_path).parent / "train.json"
    if not meta.is_file():
        raise FileNotFoundError(f"{meta}: missing; a checkpoint needs the train.json that train/ppo.py "
                                "writes beside model.zip (it holds the ruleset and the observation version)")
    return json.loads(meta.read_text())


def _masked_module(policy: Any):
    """A torch module ``(obs, mask) -> action`` of an SB3 ``MaskableActorCriticPolicy``."""
    import torch

    class MaskedPolicy(torch.nn.Module):
        def __init__(self, policy: Any):
            super().__init__()
            self.policy = policy

        def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            pol = self.policy
            features = pol.extract_features(obs, pol.pi_features_extractor)
            logits = pol.action_net(pol.mlp_extractor.forward_actor(features))
            return torch.argmax(logits.masked_fill(~mask, MASKED_LOGIT), dim=-1)

    return MaskedPolicy(policy).eval()


def load_model(checkpoint: str | Path):
    """The ``MaskablePPO`` of a checkpoint (on the CPU)."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(resolve_checkpoint(checkpoint), device="cpu")


def export(checkpoint: str | Path, out: str | Path, evaluation: dict[str, Any] | None = None) -> Path:
    """Write ``out`` (ONNX) and the JSON beside it (``out`` with ``.json``); returns ``out``."""
    import torch

    zip_path = resolve_checkpoint(checkpoint)
    meta = train_metadata(zip_path)
    model = load_model(zip_path)
    obs_size = int(model.observation_space.shape[-1])
    obs_version = _layout_of(obs_size, zip_path)
    if meta.get("obs_version") not in (None, obs_version):
        raise ValueError(f"{zip_path}: its network reads {obs_size} observation values (layout "
                         f"{obs_version}), but train.json says layout {meta.get('obs_version')}")
    module = _masked_module(model.policy)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    obs = torch.zeros(1, obs_size, dtype=torch.float32)
    mask = torch.ones(1, NUM_ACTIONS, dtype=torch.bool)
    tmp = out.with_name(out.name + ".tmp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(module, (obs, mask), str(tmp), input_names=["obs", "mask"],
                          output_names=["action"], opset_version=OPSET, dynamo=False,
                          dynamic_axes={"obs": {0: "batch"}, "mask": {0: "batch"}, "action": {0: "batch"}})
    tmp.replace(out)
    doc = {
        "format": POLICY_FORMAT,
        "onnx": out.name,
        "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
        "inputs": {"obs": {"dtype": "float32", "shape": ["batch", obs_size]},
                   "mask": {"dtype": "bool", "shape": ["batch", NUM_ACTIONS], "meaning": "True = legal"}},
        "outputs": {"action": {"dtype": "int64", "shape": ["batch"]}},
        "ruleset": meta["ruleset"],
        "obs_version": obs_version,
        "obs_size": obs_size,
        "action_layout": action_layout(),
        "training": {
            "commands": meta.get("commands", []),
            "checkpoint": _shown(zip_path),
            "timesteps": int(model.num_timesteps),
            "objective": meta.get("objective"),
            "players": meta.get("players"),
            "opponents": meta.get("opponents"),
            "best_evaluation": meta.get("best"),
        },
        "evaluation": evaluation,
        "exported": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    out.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n")
    return out


def _layout_of(obs_size: int, zip_path: Path) -> int:
    """The observation layout version of a network that reads ``obs_size`` values."""
    for version, size in OBS_SIZES.items():
        if size == obs_size:
            return version
    known = ", ".join(f"layout {v}: {n}" for v, n in sorted(OBS_SIZES.items()))
    raise ValueError(f"{zip_path}: its network reads {obs_size} observation values, which is no "
                     f"observation layout this code knows ({known})")


def _shown(path: Path) -> str:
    """A path relative to the current directory when inside it (committed files name no machine)."""
    rel = os.path.relpath(path)
    return Path(path).as_posix() if rel.startswith("..") else Path(rel).as_posix()


def update_metadata(json_path: str | Path, **fields: Any) -> None:
    """Set top-level fields of a policy's JSON file (``train/ppo.py`` adds ``evaluation``)."""
    p = Path(json_path)
    doc = json.loads(p.read_text())
    doc.update(fields)
    p.write_text(json.dumps(doc, indent=2) + "\n")


# --------------------------------------------------------------------------------------------
# Checking an export against the SB3 model


def sample_states(rulesets: list[str], n: int, seed: int = 0, players: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``n`` decision points reached in games of random and greedy play, spread over ``rulesets``:
    (observations of the player to move, legal masks). Every decision of a game is taken, games
    alternate random and greedy movers."""
    from agents.baselines import GreedyAgent, RandomAgent

    rng = np.random.default_rng(seed)
    obs, masks = [], []
    per = -(-n // len(rulesets))
    for name in rulesets:
        rs = load_ruleset(name)
        movers = [RandomAgent(), GreedyAgent()]
        got, g = 0, 0
        while got < per:
            game = GameState(rs, players, seed=int(rng.integers(2**31)))
            mover = movers[g % 2]
            g += 1
            while not game.done and got < per:
                legal = game.legal_actions()
                obs.append(observe(game, game.current))
                masks.append(game.legal_mask())
                got += 1
                game.apply(mover.act(game, legal, rng))
    return np.stack(obs)[:n], np.stack(masks)[:n]


def check_export(checkpoint: str | Path, onnx_path: str | Path, obs: np.ndarray, masks: np.ndarray) -> int:
    """How many of the states the ONNX policy answers differently from the SB3 model's deterministic
    masked action (0 = the export is faithful). ``obs`` are current observations; both read the
    first ``obs_size`` values of the model's layout."""
    import onnxruntime as ort

    model = load_model(checkpoint)
    obs = np.ascontiguousarray(obs[:, : model.observation_space.shape[-1]], dtype=np.float32)
    want, _ = model.predict(obs, action_masks=masks, deterministic=True)
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    got = sess.run(["action"], {"obs": obs, "mask": masks.astype(bool)})[0]
    return int((np.asarray(want) != got).sum())


# --------------------------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.export", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="The JSON file is written beside --out, with the suffix .json.")
    p.add_argument("checkpoint", help="a MaskablePPO zip from train/ppo.py, or its checkpoint directory")
    p.add_argument("--out", required=True, help="the ONNX file to write, e.g. checkpoints/zonk/policy.onnx")
    p.add_argument("--check", type=int, default=2000, metavar="N",
                   help="then compare with the SB3 model on N reachable states (0 = skip; default 2000)")
    args = p.parse_args(argv)
    try:
        out = export(args.checkpoint, args.out)
    except (FileNotFoundError, ValueError) as e:
        p.error(str(e))
    print(f"wrote {out} and {out.with_suffix('.json')}")
    if args.check:
        meta = json.loads(out.with_suffix(".json").read_text())
        obs, masks = sample_states([meta["ruleset"]["name"]] if meta["ruleset"]["name"] in _presets()
                                   else ["zonk"], args.check, seed=0)
        bad = check_export(args.checkpoint, out, obs, masks)
        print(f"check: {len(obs) - bad}/{len(obs)} states give the SB3 model's deterministic masked action")
        if bad:
            return 1
    return 0


def _presets() -> tuple[str, ...]:
    from zilch_env import PRESETS

    return tuple(PRESETS)


if __name__ == "__main__":
    sys.exit(main())

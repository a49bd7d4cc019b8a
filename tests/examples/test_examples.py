"""Every example in ``examples/`` runs, with a tiny budget (in-process through its
``main(argv)``).

RLlib pins another Gymnasium (``gymnasium==1.2.2`` for ray 2.60) and so has a venv of its own (the
install command is in ``examples/rllib_ppo.py``); here its environment factory and the module's
documentation are checked, and docs/environment.md reports the real run."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def torch_threads():
    import torch

    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_ppo_masked(torch_threads, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = load("ppo_masked").main(["--total-timesteps", "2048", "--num-envs", "16", "--num-steps", "64",
                                       "--eval-games", "20"])
    assert not [w for w in caught if "out of date" in str(w.message)]  # the current id
    assert out["steps"] == 2048 and 0.0 <= out["before"] <= 1.0 and 0.0 <= out["after"] <= 1.0
    assert "win rate before training" in capsys.readouterr().out


def test_openspiel_mcts(capsys):
    out = load("openspiel_mcts").main(["--games", "2", "--simulations", "5", "--target", "1000"])
    assert out["games"] == 2 and 0.0 <= out["win_rate"] <= 1.0
    out = load("openspiel_mcts").main(["--games", "2", "--simulations", "4", "--target", "500", "--rollout", "random",
                                       "--opponent", "random"])
    assert 0.0 <= out["win_rate"] <= 1.0
    assert "OpenSpiel MCTS" in capsys.readouterr().out


def tianshou_kernels_in_python(monkeypatch) -> None:
    """Tianshou's numba kernels as the Python functions they are, in every Tianshou module that holds
    one, until the test ends: its buffers and algorithms call them at set-up, compiling them first
    (20 s and more), which a 100-step run does not need. (``NUMBA_DISABLE_JIT=1`` would do it in a new
    process, where importing torch and Tianshou took most of 7-11 s.)"""
    import sys

    from numba.core.dispatcher import Dispatcher

    for name, mod in list(sys.modules.items()):
        if mod is not None and (name == "tianshou" or name.startswith("tianshou.")):
            for attr, value in list(vars(mod).items()):
                if isinstance(value, Dispatcher):
                    monkeypatch.setattr(mod, attr, value.py_func)


def test_tianshou_dqn(torch_threads, monkeypatch, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        example = load("tianshou_dqn")  # imports Tianshou
        tianshou_kernels_in_python(monkeypatch)
        out = example.main(["--epochs", "1", "--steps-per-epoch", "100", "--eval-games", "2", "--target", "1000",
                            "--envs", "1", "--batch-size", "16", "--buffer", "1000"])
    assert out["steps"] == 100 and 0.0 <= out["before"] <= 1.0 and 0.0 <= out["after"] <= 1.0
    text = capsys.readouterr().out
    assert "Tianshou DQN on zilch_v2" in text and "win rate before training" in text
    # What ``python examples/tianshou_dqn.py`` shows on stderr: the deprecation warnings of the script
    # itself and of gymnasium (its logger shows them), and no id "out of date"
    assert not [w for w in caught if "out of date" in str(w.message)]
    shown = [w for w in caught if issubclass(w.category, DeprecationWarning)
             and (Path(w.filename) == ROOT / "examples" / "tianshou_dqn.py" or "gymnasium" in Path(w.filename).parts)]
    assert not shown, [str(w.message) for w in shown]


def test_rllib_example_env_and_install_command():
    mod = load("rllib_ppo")
    assert 'pip install torch==2.13.0 "ray[rllib]"' in mod.__doc__ and "--no-deps -e ." in mod.__doc__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = mod.make_env({"ruleset": "farkle"})
    assert not [w for w in caught if "out of date" in str(w.message)]  # the current id
    obs, info = env.reset(seed=0)
    assert set(obs) == {"action_mask", "observations"} and env.observation_space.contains(obs)
    assert env.unwrapped.spec.id == "Zilch-v2" and obs["observations"].shape == (516,)
    assert np.array_equal(obs["action_mask"], info["action_mask"])


def test_the_examples_use_the_current_ids():
    """Zilch-v2 and zilch_v2: making an older id warns that it is out of date."""
    for path in sorted((ROOT / "examples").glob("*.py")):
        text = path.read_text()
        assert "Zilch-v1" not in text and "Zilch-v0" not in text and "zilch_v1" not in text, path.name

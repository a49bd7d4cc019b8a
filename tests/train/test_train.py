"""train/ppo.py with tiny budgets: it starts, logs, checkpoints, resumes where it stopped, the same
seed gives the same first update, and Ctrl-C saves."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from train import ppo  # noqa: E402
from train.wrappers import turn_returns  # noqa: E402


def tiny(tmp: Path, *extra: str, timesteps: int = 256, seed: int = 0) -> list[str]:
    """A run of a few hundred steps: 2 envs x 64 steps per rollout, evaluations of 4 games."""
    return ["--ruleset", "zonk", "--timesteps", str(timesteps), "--n-envs", "2", "--n-steps", "64",
            "--batch-size", "64", "--n-epochs", "2", "--net-arch", "16,16", "--eval-every", "128",
            "--eval-games", "4", "--final-games", "0", "--final-solo-turns", "0", "--no-export", "--no-progress",
            "--opponents", "greedy,self", "--selfplay-every", "128", "--seed", str(seed),
            "--out", str(tmp / "ck"), "--runs", str(tmp / "runs"), "--run-name", "t", *extra]


@pytest.fixture(scope="module")
def run_128(tmp_path_factory) -> Path:
    """``tiny(DIR, timesteps=128)`` (seed 0: one rollout, one update, one evaluation) run once for the
    module; :func:`copy_run` gives a test its own copy, as if the test had run the command itself."""
    base = tmp_path_factory.mktemp("run-128")
    assert ppo.main(tiny(base, timesteps=128)) == 0
    return base


def copy_run(src: Path, dst: Path) -> None:
    """The checkpoints of a finished tiny run (``ck/``) into ``dst`` (``dst / "ck"``)."""
    shutil.copytree(src / "ck", dst / "ck")


def params(zip_path: Path) -> dict[str, np.ndarray]:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(zip_path, device="cpu")
    return {k: v.detach().numpy().copy() for k, v in model.policy.state_dict().items()}


def test_help_shows_every_field_with_its_default():
    text = ppo.build_parser().format_help()
    for f in dataclasses.fields(ppo.Args):
        assert "--" + f.name.replace("_", "-") in text, f.name
        assert f.metadata["help"].split()[0] in text
    assert "(default: zonk)" in text and "(default: optimal-turn,self)" in text


def test_bad_arguments_are_named(capsys):
    with pytest.raises(SystemExit):
        ppo.parse_args(["--players", "9"])
    assert "--players 9" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ppo.parse_args(["--timesteps", "0"])
    assert "--timesteps 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ppo.parse_args(["--objective", "points"])


def test_run_logs_checkpoints_and_resumes(tmp_path):
    assert ppo.main(tiny(tmp_path)) == 0
    ck, run = tmp_path / "ck", tmp_path / "runs" / "zonk" / "t"
    events = list(run.glob("events.out.tfevents.*"))
    assert events, "no TensorBoard event file"
    for d in ("latest", "best"):
        assert (ck / d / "model.zip").is_file() and (ck / d / "train.json").is_file()
    st = json.loads((ck / "latest" / "train.json").read_text())
    assert st["timesteps"] == 256 and [e["timesteps"] for e in st["evaluations"]] == [128, 256]
    # zonk's game table is shipped: the periodic evaluation against optimal-win ranks by the
    # luck-adjusted share
    assert st["evaluations"][0]["opponent"] == "optimal-win"
    assert st["evaluations"][0]["metric_kind"] == "luck-adjusted score share"
    assert st["run_dir"] == str(run) and len(st["commands"]) == 1
    assert (ck / "latest" / "pool.npz").is_file()
    pool_before = int(np.load(ck / "latest" / "pool.npz")["timesteps"].size)
    assert (ck / "train_command.txt").read_text().startswith("python train/ppo.py --ruleset zonk")

    # The tags SB3 and the callback write: losses, explained variance, game statistics, evaluations.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run)).Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ("train/value_loss", "train/policy_gradient_loss", "train/explained_variance",
                "games/points_per_turn", "eval/metric"):
        assert tag in tags, (tag, sorted(tags))

    # Resume to 512: the count continues from 256 (not from 0), in the same TensorBoard run.
    assert ppo.main(tiny(tmp_path, "--resume", timesteps=512)) == 0
    st2 = json.loads((ck / "latest" / "train.json").read_text())
    assert st2["timesteps"] == 512
    assert [e["timesteps"] for e in st2["evaluations"]] == [128, 256, 384, 512]
    assert st2["run_dir"] == str(run) and len(st2["commands"]) == 2
    assert int(np.load(ck / "latest" / "pool.npz")["timesteps"].size) > pool_before
    acc = EventAccumulator(str(run)).Reload()
    steps = [e.step for e in acc.Scalars("eval/metric")]
    assert steps == [128, 256, 384, 512]
    assert len(list(run.glob("events.out.tfevents.*"))) >= 1 and not (tmp_path / "runs" / "zonk" / "t_1").exists()


def test_resume_refuses_other_rules(tmp_path, run_128):
    copy_run(run_128, tmp_path)  # = ppo.main(tiny(tmp_path, timesteps=128))
    assert json.loads((tmp_path / "ck" / "latest" / "train.json").read_text())["timesteps"] == 128
    with pytest.raises(SystemExit, match="other rules"):
        ppo.main(tiny(tmp_path, "--resume", "--set", "target=5000", timesteps=256))


def test_same_seed_same_first_update(tmp_path, run_128):
    one = 2 * 64  # one rollout, then one PPO update
    for name, seed in (("a", 5), ("b", 5)):
        assert ppo.main(tiny(tmp_path / name, timesteps=one, seed=seed)) == 0
    copy_run(run_128, tmp_path / "c")  # = ppo.main(tiny(tmp_path / "c", timesteps=one, seed=0))
    a, b, c = (params(tmp_path / n / "ck" / "latest" / "model.zip") for n in "abc")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not all(np.array_equal(a[k], c[k]) for k in a)  # another seed: another first update


def test_score_objective_runs(tmp_path):
    assert ppo.main(tiny(tmp_path, "--objective", "score", "--turns", "5", "--eval-solo-turns", "50",
                         timesteps=128)) == 0
    st = json.loads((tmp_path / "ck" / "latest" / "train.json").read_text())
    assert st["players"] == 1 and st["objective"] == "score"
    assert st["evaluations"][-1]["points_per_turn"] > 0


def test_ctrl_c_saves(tmp_path, capsys):
    """A real SIGINT to this process while ``ppo.main`` trains in its main thread, as Ctrl-C would send
    it to ``python train/ppo.py`` (whose exit status is what main returns: ``sys.exit(main())``). In
    this process, not a new one: a new one imported torch and loaded the tables first (7 s of 9)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    argv = tiny(tmp_path, timesteps=10_000_000)
    argv[argv.index("--eval-every") + 1] = "100000000"  # no evaluation: the save at Ctrl-C is the only one
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)  # an earlier run's handler is not this run's
    sent, returned = threading.Event(), threading.Event()

    def ctrl_c() -> None:
        """Once the run has set its stop handlers (catch_stop_signals, just after its first line, before
        training), a moment more so that the signal lands in training, then SIGINT. Never to Python's
        own handler: its KeyboardInterrupt would stop the whole test run."""
        t0 = time.time()
        while time.time() - t0 < 120 and not returned.is_set():
            if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
                time.sleep(0.5)
                sent.set()
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=ctrl_c, daemon=True)
    watcher.start()
    try:
        status = ppo.main(argv)
    finally:
        returned.set()
        watcher.join()
        for s, h in handlers.items():
            signal.signal(s, h)
    out = capsys.readouterr().out
    assert sent.is_set() and status == 130, out
    assert "objective win" in out.splitlines()[0]  # the run's first line, printed just before training
    assert "interrupted at" in out and "--resume" in out
    st = json.loads((tmp_path / "ck" / "latest" / "train.json").read_text())
    assert st["timesteps"] > 0 and not st["evaluations"]
    assert (tmp_path / "ck" / "latest" / "model.zip").is_file()


def test_batched_vec_env_runs(tmp_path):
    pytest.importorskip("zilch_env.envs.vec_env")
    assert ppo.main(tiny(tmp_path, "--vec", "batched", timesteps=128)) == 0
    st = json.loads((tmp_path / "ck" / "latest" / "train.json").read_text())
    assert st["timesteps"] == 128 and st["evaluations"]
    with pytest.raises(SystemExit, match="no form in the fast engine's kernels"):
        ppo.main(tiny(tmp_path / "h", "--vec", "batched", "--opponents", "heuristic", timesteps=128))


def test_selfplay_batch_plays_legal_moves():
    from train.selfplay import PolicySnapshot, SelfPlayBatch, SelfPlayPool

    rng = np.random.default_rng(0)
    pool = SelfPlayPool(2)
    for _ in range(3):
        pool.add(PolicySnapshot([(rng.normal(size=(8, 151)), rng.normal(size=8)),
                                 (rng.normal(size=(136, 8)), rng.normal(size=136))]), 0)
    assert len(pool.snapshots) == 2
    masks = rng.random((50, 136)) < 0.05
    masks[:, 3] = True
    actions = SelfPlayBatch(pool, np.random.default_rng(1))(rng.random((50, 151)).astype(np.float32), masks)
    assert masks[np.arange(50), actions].all() and len(set(actions.tolist())) > 1


def test_turn_returns_cut_every_turn_and_the_game_goes_on():
    """The score objective's wrapper: a cut exactly when the agent's turn ended (the reward of that
    step is the turn's points), and the underlying game is not reset."""
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = DummyVecEnv([lambda: gym.make("Zilch-v0", ruleset="farkle", num_players=1, reward="score", turns=30,
                                        disable_env_checker=True)])
    venv = turn_returns(env)
    venv.seed(3)
    venv.reset()
    game = env.envs[0].unwrapped
    rng = np.random.default_rng(0)
    cuts = real = 0
    for _ in range(400):
        turns_before, score_before = len(game.state.turns), game.state.scores[0]
        mask = np.stack(venv.env_method("action_masks"))[0]
        obs, rew, done, info = venv.step(np.array([rng.choice(np.flatnonzero(mask))]))
        if info[0].get("turn_cut"):
            cuts += 1
            assert done[0] and len(game.state.turns) > turns_before  # a turn ended ...
            assert game.state.turn_total == 0 and len(game.state.turns) >= 1  # ... and the same game goes on
            assert rew[0] == game.state.scores[0] - score_before  # the turn's points are the step's reward
        elif done[0]:
            real += 1
        else:
            assert len(game.state.turns) == turns_before and rew[0] == 0  # no turn ended without a cut
    assert cuts > 50 and real >= 1


def test_auto_choices():
    from zilch_env import load_ruleset

    args = ppo.parse_args([])
    assert (args.vec, args.n_envs, args.eval_opponent) == ("auto", 0, "auto")
    zonk = load_ruleset("zonk")
    a = ppo.resolve_auto(args, zonk, ["greedy:400", "self"])
    assert (a.vec, a.n_envs, a.eval_opponent) == ("batched", 64, "optimal-win")  # zonk's table is shipped
    a = ppo.resolve_auto(args, zonk, ["heuristic", "self"])
    assert (a.vec, a.n_envs) == ("dummy", 8)
    a = ppo.resolve_auto(args, load_ruleset("zonk", {"variants.piggyback": True}), ["self", "optimal-turn:plain"])
    assert (a.vec, a.n_envs, a.eval_opponent) == ("batched", 64, "heuristic")  # every variant batches; no game table
    a = ppo.resolve_auto(ppo.parse_args(["--n-envs", "16", "--vec", "dummy", "--eval-opponent", "greedy"]),
                         zonk, ["self"])
    assert (a.vec, a.n_envs, a.eval_opponent) == ("dummy", 16, "greedy")


def test_init_copies_the_actor_and_critic_warmup_keeps_it(tmp_path, run_128):
    """--init copies the actor (not the critic); during --critic-warmup only the critic learns."""
    copy_run(run_128, tmp_path / "a")  # = ppo.main(tiny(tmp_path / "a", timesteps=128))
    src = params(tmp_path / "a" / "ck" / "best" / "model.zip")  # what --init DIR takes
    actor = [k for k in src if k.startswith(("mlp_extractor.policy_net.", "action_net."))]
    critic = [k for k in src if k.startswith(("mlp_extractor.value_net.", "value_net."))]
    assert actor and critic
    init = ["--init", str(tmp_path / "a" / "ck")]
    # 128 timesteps: one rollout, then one PPO update (the actor frozen or not)
    assert ppo.main(tiny(tmp_path / "b", *init, "--critic-warmup", "100000", timesteps=128, seed=5)) == 0
    warm = params(tmp_path / "b" / "ck" / "latest" / "model.zip")
    assert all(np.array_equal(src[k], warm[k]) for k in actor)  # the actor waited for the critic
    assert not all(np.array_equal(src[k], warm[k]) for k in critic)  # fresh, then trained
    assert ppo.main(tiny(tmp_path / "c", *init, "--critic-warmup", "0", timesteps=128, seed=5)) == 0
    free = params(tmp_path / "c" / "ck" / "latest" / "model.zip")
    assert not all(np.array_equal(src[k], free[k]) for k in actor)


def test_final_evaluation_skips_optimal_win_without_a_stored_table(tmp_path, monkeypatch):
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path / "cache"))  # nothing cached; nothing shipped for these rules
    # --eval-workers 1: the final evaluation in this process (its default, a pool of 2 spawned processes
    # that each import torch and load the agent, took 20-30 s of this test; the results do not depend on
    # the workers: tests/agents/evaluate/test_evaluate.py)
    argv = tiny(tmp_path, "--set", "target=1000", "--final-games", "4", "--final-opponents", "optimal-win,greedy",
                "--eval-workers", "1", timesteps=128)
    assert ppo.main(argv) == 0
    ev = json.loads((tmp_path / "ck" / "eval.json").read_text())
    assert "zilch solve --ruleset zonk --set target=1000 --objective win" in ev["skipped"]["optimal-win"]
    assert set(ev["vs"]) == {"greedy"}
    assert not list((tmp_path / "cache").glob("*.npz"))  # nothing was solved


def test_anneal_lr_decays_and_exports_the_final_model(tmp_path):
    assert ppo.main(tiny(tmp_path, "--anneal-lr", timesteps=256)) == 0
    st = json.loads((tmp_path / "ck" / "best" / "train.json").read_text())
    assert st["best"]["selected"].startswith("final") and st["best"]["timesteps"] == 256
    best, latest = params(tmp_path / "ck" / "best" / "model.zip"), params(tmp_path / "ck" / "latest" / "model.zip")
    assert all(np.array_equal(best[k], latest[k]) for k in best)
    assert ppo.linear_schedule(1e-3)(0.25) == pytest.approx(2.5e-4)
    assert "final (--anneal-lr) model" in (tmp_path / "ck" / "README.md").read_text()


def test_final_evaluation_reports_the_luck_adjusted_share(tmp_path):
    """With the game table stored (zonk's is shipped), the final evaluation carries each opponent's
    luck-adjusted share with its interval into eval.json and the checkpoint's README."""
    # --eval-workers 1: in this process (see test_final_evaluation_skips_optimal_win_without_a_stored_table)
    argv = tiny(tmp_path, "--final-games", "4", "--final-opponents", "heuristic", "--eval-workers", "1",
                timesteps=128)
    assert ppo.main(argv) == 0
    ev = json.loads((tmp_path / "ck" / "eval.json").read_text())
    la = ev["vs"]["heuristic"]["luck_adjusted"]
    assert la["low"] <= la["mean"] <= la["high"] and ev["vs"]["heuristic"]["luck_sd_reduction"] is not None
    assert "Luck-adjusted share" in (tmp_path / "ck" / "README.md").read_text()


def test_resume_with_a_new_learning_rate_anneals_over_the_steps_left(tmp_path):
    """--resume --learning-rate X --anneal-lr: the continuation decays from X to 0 over the steps left
    to --timesteps (SB3's count goes on from the steps done, so the schedule is rescaled)."""
    assert ppo.linear_schedule(1e-3, 0.25)(0.25) == pytest.approx(1e-3)
    assert ppo.linear_schedule(1e-3, 0.25)(0.125) == pytest.approx(5e-4)
    assert ppo.linear_schedule(1e-3, 0.25)(0.0) == 0.0
    assert ppo.main(tiny(tmp_path, "--anneal-lr", timesteps=128)) == 0
    assert ppo.main(tiny(tmp_path, "--resume", "--anneal-lr", "--learning-rate", "5e-4", timesteps=256)) == 0
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(tmp_path / "ck" / "latest" / "model.zip", device="cpu")
    assert model.lr_schedule(0.5) == pytest.approx(5e-4)  # 128 of 256 steps left when it resumed
    assert model.lr_schedule(0.25) == pytest.approx(2.5e-4)
    st = json.loads((tmp_path / "ck" / "latest" / "train.json").read_text())
    assert st["args"]["learning_rate"] == 5e-4 and st["timesteps"] == 256


def test_stop_at_stops_where_it_says_with_the_schedule_of_timesteps(tmp_path):
    """--stop-at N stops at the first step with N timesteps done (as a signal there would), the
    weights those of the same run stopped there: the same as a signal's, by a command."""
    one = 2 * 64
    assert ppo.main(tiny(tmp_path / "a", "--stop-at", str(2 * one), "--anneal-lr", timesteps=10 * one)) == 0
    st = json.loads((tmp_path / "a" / "ck" / "latest" / "train.json").read_text())
    assert st["timesteps"] == 2 * one
    assert ppo.main(tiny(tmp_path / "b", "--stop-at", str(2 * one), "--anneal-lr", timesteps=10 * one)) == 0
    a, b = (params(tmp_path / n / "ck" / "latest" / "model.zip") for n in "ab")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    with pytest.raises(SystemExit):
        ppo.parse_args(["--stop-at", "-1"])

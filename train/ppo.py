"""PPO with action masking on Zilch-v0, one ruleset at a time, or every ruleset at once.

    python train/ppo.py --ruleset zonk                          # win 2-player games (the CPU opponent)
    python train/ppo.py --ruleset any                           # one agent for every ruleset (train/generalist.py)
    python train/ppo.py --ruleset zonk --objective score        # most points per turn, alone
    python train/ppo.py --ruleset zonk --resume                 # continue checkpoints/zonk/latest
    python train/ppo.py --help                                  # every option with its default

Read top to bottom, as CleanRL's ``ppo.py``: the arguments (one dataclass, every field with its
help), the environments, the model, the periodic evaluation, the callback that logs, evaluates,
checkpoints and refreshes the self-play pool, the checkpoint files, and the run itself (seeding,
training, the export of the CPU opponent and its final evaluation, whose tables and the checkpoint's
README are written by ``train/report.py``).

What the objectives train
    ``--objective win`` (default): ``reward="win"``, +1 for a win, -1 for a loss, 0 for a shared
    draw, at the end of the game; ``--players`` 2 by default; episodes are whole games (gamma 1: a
    game is finite and only its result counts).
    ``--objective score``: ``reward="score"``, the points each of the agent's turns adds to its score
    (divided by ``--reward-scale``); one player by default; an episode is ``--turns`` agent turns, and
    its end is treated as terminal, not bootstrapped (with gamma 1 an unending sum of turns has no
    value). The turns are independent once on the board, so with ``--turn-returns`` (default) PPO
    sees each turn as its own return (:func:`turn_returns`: the advantage is cut at every turn's end,
    the game goes on), and no decision's advantage carries the noise of later turns' dice.
    The scale keeps an episode's return near 1: SB3 clips the gradient of the policy and the value
    losses together, and returns in the tens (points / 1000 over 50 turns) would let the value
    loss take the whole norm and starve the policy's gradient.
    ``--init PATH`` starts the actor from another checkpoint (e.g. the score agent, for the win
    objective), with a fresh value network (a PATH that holds no checkpoint stops the run at once).

Shaping (``--shaping``, the win objective with two players, from the solved game)
    Let ``P`` be the agent's chance of winning under optimal play by both from where it stands,
    read from the solved game (``agents.solver.win_shaping.WinPotential``). ``regret`` (the default wherever
    the ruleset's game table is stored and the env is batched) pays each move ``2 * (P right after
    it, before any dice - P at the decision)``: in expectation minus the move's regret against
    ``optimal-win``, with no dice luck in it. ``decisions`` pays the change of ``P`` from decision
    to decision (at a decision, the value of its best choice; at the end of its turn, the value of
    the next turn's start; the result once the game is over), the next roll's luck included.
    ``turns`` pays only at the end of each turn (``P`` from the start of the turn), so the turn's
    dice luck stays in every move's return. ``none``: the +-1 result alone. All are
    potential-based (the sum over a game is the result minus a constant), so the optimal policy is
    ``optimal-win``'s whatever the shaping; with ``--turn-returns`` each turn is its own return.
    The solved game serves as a value function, not as a policy: the agent learns every move from
    its own play.

Teaching (``--teacher optimal-win``)
    After training, ``train/teach.py`` fits the network to the solved game's value of every legal
    action on the states it reaches (DAgger rounds; see there), before the export. The exported
    network still decides alone.

Budget and speed
    ``--vec auto`` trains on the batched engine (``zilch_env.envs.vec_env.BatchedZilchVecEnv``, 64 envs)
    whenever the rules and every opponent allow it (the defaults do), else on a DummyVecEnv of
    Zilch-v0 (8 envs). The PPO update, not the environment, takes most of a run's time;
    ``docs/benchmarks.md`` gives the measured steps/s (``bench/train_throughput.py``).

Opponents (``--opponents``, comma-separated agent specs, see ``agents.base.make_agent``)
    Assigned to the environments round-robin: env ``i`` plays against spec ``i mod k`` in every other
    seat, for the whole run (so 64 envs and ``optimal-turn,self`` give 32 of each, and the mix of
    opponents is fixed, not left to chance). ``optimal-turn`` (the exact turn-points maximiser, in the
    batched engine's kernels) is the strongest fixed opponent; a win agent must learn what it ignores,
    the scores. ``self`` is self-play: a snapshot of the agent itself,
    drawn per game from a pool of its earlier versions (``train/selfplay.py``; a new snapshot every
    ``--selfplay-every`` timesteps, the latest ``--selfplay-pool`` kept).

Outputs
    ``runs/<ruleset>/<run>/``: TensorBoard (SB3's losses, entropy, KL, explained variance, fps;
    ``games/*``: win, draw and points per turn of the training games, overall and per opponent;
    ``eval/*``: the periodic masked evaluation by ``agents.evaluate``, of the deterministic policy:
    against ``--eval-opponent`` (``optimal-win`` where its table is stored, else ``heuristic``) on
    seat-balanced games with common random numbers, or under the score objective its points per
    turn alone against the exact turn optimum).
    ``<out>/`` (default ``checkpoints/<ruleset>``, ``checkpoints/<ruleset>-score`` for the score
    objective): ``latest/`` (model with optimizer state, self-play pool, ``train.json``: timesteps,
    run, evaluations) every evaluation and at Ctrl-C; ``best/`` (the best evaluation so far);
    ``train_command.txt``; at the end ``policy.onnx`` + ``policy.json`` (the exported CPU opponent,
    ``agents.export``), ``eval.md`` / ``eval.json`` (the final evaluation: every
    ``--final-opponents`` agent in its own seat-balanced table, and the solo points per turn) and
    ``README.md`` (the commands that reproduce the checkpoint, and those results).

Ctrl-C (or SIGTERM) saves ``latest/`` and exits (status 130); ``--resume`` continues from it: the
model, the optimizer, the timestep count, the self-play pool, the best evaluation and the TensorBoard
run.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shlex
import signal
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

# One BLAS thread per process: a small MLP gains nothing from threads, and the machine is shared.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import zilch_env  # noqa: E402,F401  (registers Zilch-v0)
from zilch_env import Ruleset, load_ruleset  # noqa: E402
from train.held_out import refuse_held_out  # noqa: E402
from zilch_env.rules.load import parse_overrides  # noqa: E402

from train.args import Args, add_fields, arg, fields_of, shaping_cache_mb, torch_settings  # noqa: E402,F401
from train.report import final_evaluation, rate, shown, stored_game_table, write_readme  # noqa: E402,F401
from train.envs import make_training_envs, opponent_specs, resolve_auto  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------------------
# Arguments


def build_parser() -> argparse.ArgumentParser:
    return add_fields(argparse.ArgumentParser(prog="train/ppo.py", description=__doc__.split("\n\n")[0],
                                              formatter_class=argparse.ArgumentDefaultsHelpFormatter), Args)


def parse_args(argv: list[str] | None = None) -> Args:
    p = build_parser()
    args = fields_of(Args, p.parse_args(argv))
    problems = [(n, v) for n, v in (("timesteps", args.timesteps),
                                    ("n_steps", args.n_steps), ("batch_size", args.batch_size),
                                    ("n_epochs", args.n_epochs), ("eval_every", args.eval_every),
                                    ("selfplay_every", args.selfplay_every), ("turns", args.turns),
                                    ("threads", args.threads)) if v < 1]
    if problems:
        p.error("; ".join(f"--{n.replace('_', '-')} {v}: must be at least 1" for n, v in problems))
    if args.stop_at < 0:
        p.error(f"--stop-at {args.stop_at}: timesteps, 1 or more (or 0 to run to --timesteps)")
    if args.n_envs < 0:
        p.error(f"--n-envs {args.n_envs}: 1 or more (or 0 for 64 on the batched engine, 8 on the DummyVecEnv)")
    if not 0 <= args.players <= 6:
        p.error(f"--players {args.players}: 1 to 6 (or 0 for the objective's default)")
    if args.ruleset == "any" and (args.players not in (0, 2) or args.objective != "win" or args.set):
        p.error("--ruleset any: the win objective, with the players each drawn ruleset says (no --players, "
                "--objective score or --set)")
    if args.ruleset == "any" and args.teacher != "none":
        p.error("--ruleset any --teacher: teach the agent for any ruleset with train/teach_any.py after the run")
    if args.rules_pool < 1:
        p.error(f"--rules-pool {args.rules_pool}: rulesets to draw, 1 or more")
    if args.shaping_cache_mb < 0:
        p.error(f"--shaping-cache-mb {args.shaping_cache_mb}: megabytes, 1 or more (or 0 for the default: "
                "$ZILCH_WIN_CACHE_MB, else a quarter of the available memory from 512 to 4000)")
    return args


# --------------------------------------------------------------------------------------------
# The model (train/model.py)

from train.model import _layout_of, init_actor, linear_schedule, new_model, resumed_model  # noqa: E402,F401


# --------------------------------------------------------------------------------------------
# Evaluation: train/report.py's evaluate_now (the evaluation module's seat-balanced games, the
# deterministic masked policy)

from train.report import evaluate_now  # noqa: E402


# --------------------------------------------------------------------------------------------
# The callback: game statistics, progress bar, evaluations, checkpoints, self-play snapshots


def make_callback(args: Args, rs: Ruleset, players: int, specs: list[str], pool: Any, out: Path,
                  state: dict[str, Any], on_evaluation: Callable[[dict[str, Any]], None] | None = None):
    """The SB3 callback of the run (built here so that ``--help`` imports no torch). ``on_evaluation``
    is given each periodic evaluation once its checkpoints are saved (``train/sweep.py`` reports it
    to Ray Tune)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from train.selfplay import PolicySnapshot

    class TrainingCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.results: deque[float] = deque(maxlen=200)  # 1 win, 0.5 draw, 0 loss
            self.by_opp: dict[str, deque[float]] = {s: deque(maxlen=200) for s in specs}
            self.points = np.zeros(args.n_envs)
            self.window: deque[tuple[float, int]] = deque(maxlen=200)  # (points, turns) per episode
            self.progress = None
            self.task = None
            self.t0 = time.perf_counter()
            self.steps0 = 0

        # -- the progress bar
        def _actor_frozen(self, frozen: bool) -> None:
            """Freeze or release the actor (``--critic-warmup``): frozen parameters get no gradient,
            so Adam leaves them as they are while the value network learns."""
            pol = self.model.policy
            for net in (pol.mlp_extractor.policy_net, pol.action_net):
                for prm in net.parameters():
                    prm.requires_grad_(not frozen)
            self.frozen = frozen
            self.logger.record("train/actor_frozen", float(frozen))

        def _on_training_start(self) -> None:
            self.steps0 = self.num_timesteps
            self.t0 = time.perf_counter()
            self.frozen = False
            if args.init and self.num_timesteps < args.critic_warmup:
                self._actor_frozen(True)
            if args.progress:
                from agents.progress import Progress

                self.progress = Progress()
                self.task = self.progress.add(f"{rs.name} {args.objective}", total=args.timesteps,
                                              completed=self.num_timesteps)

        def _on_training_end(self) -> None:
            self.stop_progress()

        def stop_progress(self) -> None:
            """Close the progress bar (at the end, or when a signal stops the run)."""
            if self.progress is not None:
                self.progress.close()
                self.progress = None

        def _stats_text(self) -> str:
            parts = []
            if self.results:
                parts.append(f"win {np.mean(self.results):.1%}")
            if self.window:
                pts, turns = np.sum([w[0] for w in self.window]), np.sum([w[1] for w in self.window])
                parts.append(f"pts/turn {pts / max(turns, 1):.0f}")
            best = state.get("best")
            if best is not None:
                parts.append(f"best eval {best['metric']:.3f}")
            return "  ".join(parts)

        # -- every step: episode ends
        def _on_step(self) -> bool:
            infos, dones = self.locals["infos"], self.locals["dones"]
            for i, info in enumerate(infos):
                self.points[i] += info.get("turn_points", 0)
                if not dones[i] or info.get("turn_cut"):
                    continue
                self.window.append((self.points[i], info.get("agent_turns", 0)))
                self.points[i] = 0
                if info.get("game_over") and players > 1:
                    w = info["winners"]  # a bool per seat
                    seat = info["seat"]
                    r = (1.0 if w.sum() == 1 else 0.5) if w[seat] else 0.0
                    self.results.append(r)
                    self.by_opp[specs[i % len(specs)]].append(r)
            if self.progress is not None and self.n_calls % 50 == 0:
                sps = (self.num_timesteps - self.steps0) / max(time.perf_counter() - self.t0, 1e-9)
                self.progress.update(self.task, completed=self.num_timesteps,
                                     info=f"{sps:,.0f} steps/s  {self._stats_text()}".rstrip())
            if args.stop_at and self.num_timesteps >= args.stop_at and _STOP["signal"] is None:
                _STOP["signal"] = f"--stop-at {args.stop_at}"
            return _STOP["signal"] is None  # Ctrl-C / SIGTERM / --stop-at: stop after this step (main saves)

        # -- every rollout: logs, self-play snapshots, evaluations and checkpoints
        def _on_rollout_end(self) -> None:
            n = self.num_timesteps
            if self.frozen and n >= args.critic_warmup:
                self._actor_frozen(False)
            if self.results:
                self.logger.record("games/win_rate", float(np.mean([r == 1.0 for r in self.results])))
                self.logger.record("games/score_share", float(np.mean(self.results)))
                self.logger.record("games/draw_rate", float(np.mean([r == 0.5 for r in self.results])))
                for s, d in self.by_opp.items():
                    if d:
                        self.logger.record(f"games/score_share_vs_{s}", float(np.mean(d)))
            if self.window:
                pts, turns = sum(w[0] for w in self.window), sum(w[1] for w in self.window)
                self.logger.record("games/points_per_turn", pts / max(turns, 1))
            if pool is not None and n - state["last_snapshot"] >= args.selfplay_every:
                pool.add(PolicySnapshot.from_policy(self.model.policy), n)
                state["last_snapshot"] = n
                self.logger.record("selfplay/pool_size", len(pool.snapshots))
            if n - state["last_eval"] >= args.eval_every or n >= args.timesteps:
                self.evaluate_and_save()

        def evaluate_and_save(self) -> None:
            n = self.num_timesteps
            t = time.perf_counter()
            res = evaluate_now(self.model, rs, args, players)
            res["timesteps"] = n
            state["last_eval"] = n
            state["evaluations"].append(res)
            for k, v in res.items():
                if isinstance(v, (int, float)) and k != "timesteps":
                    self.logger.record(f"eval/{k}", v)
            self.logger.record("eval/seconds", time.perf_counter() - t)
            save_checkpoint(self.model, out / "latest", pool, state)
            if state.get("best") is None or res["metric"] > state["best"]["metric"]:
                state["best"] = res
                save_checkpoint(self.model, out / "best", None, state)
                save_checkpoint(self.model, out / "latest", pool, state)  # latest knows the new best
            if on_evaluation is not None:
                on_evaluation(dict(res))

    return TrainingCallback()


# --------------------------------------------------------------------------------------------
# Checkpoints: where they go, the run's state, the files (train/checkpoints.py)

from train.checkpoints import checkpoint_dir, new_state, resumed_state, save_checkpoint, save_final  # noqa: E402,F401


# --------------------------------------------------------------------------------------------
# The run




def seed_everything(seed: int, threads: int) -> None:
    """Seed torch, numpy and Python once (the envs are seeded with ``--seed`` below, and
    ``MaskablePPO(seed=...)`` seeds the same three again and the action space); :func:`torch_settings`."""
    import torch

    torch_settings(threads)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


#: The signal that asked the run to stop (SIGINT or SIGTERM), or None.
_STOP: dict[str, str | None] = {"signal": None}


def catch_stop_signals() -> None:
    """Ctrl-C (SIGINT) and kill (SIGTERM) both stop training at the end of the current step (the
    callback returns False), so both save first; an exception raised at any moment could land
    inside a compiled (numba) call and come out as another error. A second signal interrupts at
    once. The handler is set explicitly because a shell starts background jobs with SIGINT
    ignored; a Ray Tune trial runs in a thread, where no handler can be set."""
    _STOP["signal"] = None

    def interrupt(signum: int, frame: Any) -> None:
        if _STOP["signal"] is not None:
            raise KeyboardInterrupt(signal.Signals(signum).name)
        _STOP["signal"] = signal.Signals(signum).name

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, interrupt)
        signal.signal(signal.SIGTERM, interrupt)


def learn(model: Any, callback: Any, args: Args, done: int) -> None:
    """``model.learn`` up to ``--timesteps``; raises KeyboardInterrupt when a signal stopped it.
    Everything built before (torch, SB3, the envs, the solved tables: hundreds of thousands of
    objects) lives as long as the run: frozen, the garbage collector's full passes no longer walk
    it."""
    gc.collect()
    gc.freeze()
    try:
        if done < args.timesteps:
            model.learn(total_timesteps=args.timesteps - done, callback=callback,
                        reset_num_timesteps=not args.resume)
    finally:
        gc.unfreeze()
    if _STOP["signal"] is not None:
        raise KeyboardInterrupt(_STOP["signal"])


def main(argv: list[str] | None = None,
         on_evaluation: Callable[[dict[str, Any]], None] | None = None) -> int:
    """The whole run of ``python train/ppo.py ARGV``; returns the exit status. ``on_evaluation``
    (optional) is called with every periodic evaluation (``train/sweep.py`` runs each Ray Tune trial
    through this function and reports them)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    command = shlex.join(["python", "train/ppo.py", *argv])
    if args.init and not args.resume:
        # An --init that names no checkpoint fails now (FileNotFoundError), not after torch, the
        # tables and the envs have loaded (seconds; a Ray Tune trial's whole start-up).
        from agents.export import resolve_checkpoint

        resolve_checkpoint(args.init)
    seed_everything(args.seed, args.threads)

    from stable_baselines3.common.logger import configure

    from train.selfplay import PolicySnapshot, SelfPlayPool

    # The game (under --ruleset any: the evaluations' game), the opponents and where the run writes.
    rs = load_ruleset(args.eval_ruleset if args.ruleset == "any" else args.ruleset, parse_overrides(list(args.set)))
    # The held-out suite is never trained on, nor chooses the best checkpoint (--eval-ruleset); the pool
    # of --ruleset any is checked in train.generalist.
    refuse_held_out(rs, "--eval-ruleset" if args.ruleset == "any" else "--ruleset")
    players = args.players or (2 if args.objective == "win" else 1)
    specs = opponent_specs(args) if players > 1 else []
    args = resolve_auto(args, rs, specs)
    out = checkpoint_dir(args)
    latest = out / "latest"
    pool = SelfPlayPool(args.selfplay_pool) if "self" in specs else None
    if args.resume:
        state = resumed_state(args, rs, latest, command, pool)
    else:
        state = new_state(args, rs, players, specs, command)
    out.mkdir(parents=True, exist_ok=True)
    (out / "train_command.txt").write_text("\n".join(state["commands"]) + "\n")

    # The environments and the model.
    venv = make_training_envs(args, rs, players, specs, pool)
    if args.resume:
        model = resumed_model(args, latest, venv, state)
        env_seed = args.seed + model.num_timesteps  # fresh dice, not a replay of the first games
    else:
        env_seed = args.seed  # env i: seed + i
        venv.seed(env_seed)
        model = new_model(args, venv)
        if pool is not None:
            pool.add(PolicySnapshot.from_policy(model.policy), 0)
    if args.shaping != "none":
        venv.unwrapped.warm_up()  # compile the shaped step now, not in the first step of training
    venv.seed(env_seed)  # the run's first reset starts from the seed
    done = model.num_timesteps
    model.set_logger(configure(state["run_dir"], ["tensorboard"]))
    callback = make_callback(args, rs, players, specs, pool, out, state, on_evaluation)

    print(f"{'any ruleset' if args.ruleset == 'any' else rs.name}: objective {args.objective}, {players} player{'s' * (players > 1)}"
          + (f", opponents {', '.join(specs)}" if specs else "")
          + f"; {args.timesteps:,} timesteps ({done:,} done); TensorBoard {state['run_dir']}; "
            f"checkpoints {out}", flush=True)
    catch_stop_signals()
    t_learn = time.perf_counter()
    seconds0 = state.get("seconds", 0.0)
    try:
        learn(model, callback, args, done)
    except KeyboardInterrupt:
        callback.stop_progress()
        state["seconds"] = seconds0 + time.perf_counter() - t_learn
        save_checkpoint(model, latest, pool, state)
        again = command if args.resume else f"{command} --resume"
        planned = str(_STOP["signal"]).startswith("--stop-at")
        print(f"\n{'stopped (--stop-at)' if planned else 'interrupted'} at {model.num_timesteps:,} timesteps: "
              f"saved {latest}; continue with\n  {again}", flush=True)
        return 0 if planned else 130
    state["seconds"] = seconds0 + time.perf_counter() - t_learn
    state["timesteps"] = int(model.num_timesteps)
    save_final(model, out, pool, state, args)
    print(f"trained {model.num_timesteps:,} timesteps; best evaluation: {state.get('best')}", flush=True)

    if args.teacher != "none":  # train/teach.py on the checkpoint just written (its best/ is replaced)
        from train.teach import main as teach_main

        teach_main(["--ruleset", args.ruleset, *[f"--set={kv}" for kv in args.set], "--init", str(out),
                    "--out", str(out), "--seed", str(args.seed), "--threads", str(args.threads), "--no-export",
                    *([] if args.progress else ["--no-progress"]), *shlex.split(args.teach_args)])
        state = json.loads((out / "best" / "train.json").read_text())
        state["commands"] = state["commands"][:-1]  # this command taught it: train/teach.py's is not a step more
        (out / "best" / "train.json").write_text(json.dumps(state, indent=2))

    # The CPU opponent and the final evaluation.
    if args.export:
        from agents.export import export

        onnx_path = export(out / "best" / "model.zip", out / "policy.onnx")
        print(f"exported {onnx_path} (+ {onnx_path.with_suffix('.json').name})", flush=True)
    summary = (final_evaluation(args, rs, players, out)
               if args.final_games > 0 or args.final_solo_turns > 0 else None)
    write_readme(out, rs, state, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())

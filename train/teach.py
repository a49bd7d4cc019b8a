"""The solved game as a teacher: DAgger-style imitation of ``optimal-win`` for a MaskablePPO win agent.

    python train/teach.py --ruleset zonk --init checkpoints/zonk          # teach the shipped agent
    python train/teach.py --ruleset zonk --init checkpoints/zonk --rounds 2 --decisions 20000
    python train/teach.py --help                                          # every option with its default

What it does
    The agent plays games with its own network (the deterministic masked argmax, as it plays when
    exported) against the opponents of ``--opponents`` on the batched engine
    (``zilch_env.envs.vec_env.BatchedZilchVecEnv``). At every one of its decisions the teacher, the
    ruleset's solved game (:class:`WinTeacher`, ``agents.solver.game_table.GameTable``), labels each legal
    action with its *regret*: the win chance under optimal play by both that the action gives up
    against the best one (0 for the best). The network's actor is then fitted by a supervised loss
    on every decision collected so far (:func:`fit`); the next round plays with the fitted network,
    so the states it learns from are the states it reaches (DAgger, Ross, Gordon and Bagnell 2011).

    The loss of a decision with legal actions ``a`` and regrets ``r(a)`` is
    ``CE(softmax(-r / tau), pi) + regret_coef * sum_a pi(a) r(a) / tau``: cross-entropy to the
    teacher's Boltzmann choice at temperature ``--tau`` (win chance; choices closer than about
    ``tau`` count as equally good), plus the policy's expected regret, which weighs each decision by
    what a mistake there costs. Only the actor (``mlp_extractor.policy_net`` and ``action_net``)
    learns; the value network is left as it is (``train/ppo.py --init`` gives a fresh one anyway).

    Each round's games also *measure* the network that played them: its mean regret per game, the
    win chance it loses to its own mistakes (round 0 measures the ``--init`` network, round ``k``
    the network after ``k`` fits; every round starts fresh games and counts those it finishes).
    Against ``optimal-win`` (which makes none) the expected score share is ``0.5 - regret per game``
    averaged over the seats (the luck-adjusted share of ``agents.evaluate --luck`` estimates the
    same number), so the network exported is the one with the least regret per game against
    ``optimal-win`` over the rounds. The solved game never moves for the agent: at play time the
    exported network decides alone.

Outputs (``--out``, default ``checkpoints/<ruleset>``), as ``train/ppo.py`` writes them
    ``best/model.zip`` + ``best/train.json`` (the chosen network in the SB3 checkpoint of ``--init``,
    the commands that made it appended), ``teach.json`` (every round: decisions, regret per game per
    opponent, the fit's loss and agreement), ``policy.onnx`` + ``policy.json`` (``agents.export``,
    the same graph and observation layout, so ``ppo:<out>`` plays it), ``eval.md`` / ``eval.json``
    (the final evaluation of ``train/ppo.py``: ``train.report.final_evaluation``) and ``README.md``.

Reuse
    :class:`WinTeacher` labels the rows of any ``zilch_env.engine.batched.BatchedGames`` of its ruleset,
    :func:`collect` plays and labels on any ``BatchedZilchVecEnv`` with any policy, :func:`fit`
    trains any SB3 masked actor policy on the decisions: a teacher per ruleset with a stored game
    table (:func:`teacher_for`) serves a generalist trained over many rulesets too: one VecEnv and
    one teacher per ruleset, their :class:`Decisions` joined before each fit.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from zilch_env import NUM_ACTIONS, Ruleset, UnsupportedRulesError, load_ruleset  # noqa: E402
from zilch_env.rules.load import parse_overrides  # noqa: E402

from train.teacher import TeachError, WinTeacher, teacher_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["Decisions", "collect", "fit", "teach_loss", "Args", "build_parser", "parse_args", "main"]


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


# --------------------------------------------------------------------------------------------
# The command line


from train.args import add_fields, arg, fields_of  # noqa: E402


@dataclass
class Args:
    ruleset: str = arg("zonk", "preset name or TOML ruleset file (its game table must be stored: zilch solve "
                               "--ruleset R --objective win)")
    set: tuple[str, ...] = arg((), "rule override KEY=VALUE in dotted keys (repeatable)", metavar="KEY=VALUE",
                               action="append")
    init: str = arg("", "the MaskablePPO checkpoint to teach (a .zip or a checkpoint directory, its "
                        "best/model.zip): required; its network, layout and train.json are kept")
    out: str = arg("", "checkpoint directory written; default checkpoints/<ruleset>")
    opponents: str = arg("optimal-win,optimal-turn,self", "comma-separated opponents of the agent's games, "
                                                          "assigned to the envs round-robin: optimal-win (the "
                                                          "teacher itself), self (the network being taught), or "
                                                          "any agent with a batched form (optimal-turn, greedy, "
                                                          "random, ...)")
    rounds: int = arg(6, "rounds of play, label and fit (one more round of play measures the last fit)")
    decisions: int = arg(200_000, "agent decisions played and labelled per round")
    max_decisions: int = arg(1_000_000, "decisions kept for fitting (the oldest rounds' dropped beyond it)")
    epochs: int = arg(4, "passes over the kept decisions per round")
    batch_size: int = arg(1024, "minibatch size of the fit")
    learning_rate: float = arg(1e-3, "Adam learning rate of the fit")
    anneal_lr: bool = arg(True, "decay the learning rate linearly over the rounds (to a tenth in the last)")
    tau: float = arg(1e-3, "temperature of the teacher's choice, in win chance: actions within about tau of "
                           "the best count as about as good")
    regret_coef: float = arg(1.0, "weight of the policy's expected regret (over tau) in the loss, beside the "
                                  "cross-entropy")
    n_envs: int = arg(256, "games played together")
    seed: int = arg(1, "seed of torch, the games and the fit's order")
    threads: int = arg(1, "torch threads, and threads solving new turns of the game table")
    cache_mb: int = arg(0, "megabytes of solved turns kept in memory; 0 = as train/ppo.py --shaping-cache-mb 0")
    final_games: int = arg(2000, "games per opponent of the final evaluation (train/ppo.py's); 0 = none")
    final_solo_turns: int = arg(20000, "on-board turns of the final solo measure; 0 = none")
    final_opponents: str = arg("random,greedy,greedy-cautious,greedy-bold,greedy-table,heuristic,optimal-turn,"
                               "optimal-win", "final evaluation opponents")
    eval_workers: int = arg(2, "processes of the final evaluation")
    eval_seed: int = arg(1, "the final evaluation plays seed eval_seed + 20000 (train/ppo.py's, for --seed 1)")
    export: bool = arg(True, "export policy.onnx + policy.json and run the final evaluation")
    finish_only: bool = arg(False, "teach nothing: export and evaluate the taught network saved in <out>/best "
                                   "(after a run with --no-export)")
    progress: bool = arg(True, "show progress bars")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="train/teach.py", description=__doc__.split("\n\n")[0],
                                epilog="Details: the module docstring (python -c 'import train.teach; "
                                       "help(train.teach)').",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    return add_fields(p, Args)


def parse_args(argv: list[str] | None = None) -> Args:
    p = build_parser()
    a = fields_of(Args, p.parse_args(argv))
    bad = [f"--{n.replace('_', '-')} {v}: must be at least 1"
           for n, v in (("rounds", a.rounds), ("decisions", a.decisions), ("max_decisions", a.max_decisions),
                        ("epochs", a.epochs), ("batch_size", a.batch_size), ("n_envs", a.n_envs),
                        ("threads", a.threads), ("eval_workers", a.eval_workers)) if v < 1]
    bad += [f"--{n.replace('_', '-')} {v}: must be above 0" for n, v in
            (("learning_rate", a.learning_rate), ("tau", a.tau)) if not v > 0]
    if a.regret_coef < 0:
        bad.append(f"--regret-coef {a.regret_coef}: must be 0 or more")
    if a.cache_mb < 0 or a.final_games < 0 or a.final_solo_turns < 0:
        bad.append("--cache-mb, --final-games and --final-solo-turns: 0 or more")
    if not a.init:
        bad.append("--init: give the checkpoint to teach (e.g. --init checkpoints/zonk, the output of train/ppo.py)")
    if not [s for s in a.opponents.split(",") if s.strip()]:
        bad.append("--opponents: name at least one opponent")
    if bad:
        p.error("; ".join(bad))
    return a


def make_opponents(specs: list[str], rs: Ruleset, teacher: WinTeacher, learner: Callable) -> list[Any]:
    """The VecEnv's opponents of ``--opponents``: the teacher, the learner, or a kernel agent."""
    from agents.base import kernel_agent

    out: list[Any] = []
    for spec in specs:
        if spec == "optimal-win":
            out.append(teacher)
        elif spec == "self":
            out.append(learner)
        else:
            try:
                out.append(kernel_agent(spec, rs))
            except (UnsupportedRulesError, ValueError) as e:
                raise TeachError(f"--opponents {spec!r}: {e}; allowed are optimal-win, self and the agents "
                                 "with a batched form (optimal-turn, greedy, greedy:T, random, ...)") from None
    return out


def _bar(progress: bool):
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                    disable=not progress)


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    command = shlex.join(["python", "train/teach.py", *argv])
    import torch
    from sb3_contrib import MaskablePPO

    from agents.export import resolve_checkpoint, train_metadata
    from train.checkpoints import save_checkpoint
    from train.args import shaping_cache_mb, torch_settings
    from train.selfplay import PolicySnapshot
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    torch_settings(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    rs = load_ruleset(args.ruleset, parse_overrides(list(args.set)))
    name = Path(args.ruleset).stem if args.ruleset.endswith(".toml") else args.ruleset
    out = Path(args.out) if args.out else ROOT / "checkpoints" / name
    if args.finish_only:
        meta = out / "best" / "train.json"
        saved = json.loads(meta.read_text()) if meta.is_file() else {}
        if "teach" not in saved:
            raise SystemExit(f"--finish-only: {meta} is not a taught checkpoint (run train/teach.py without "
                             "--finish-only first)")
        finish(args, rs, out, saved, saved["teach"]["seconds"])
        return 0
    try:
        zip_path = resolve_checkpoint(args.init)
        state = train_metadata(zip_path)
    except FileNotFoundError as e:
        raise SystemExit(f"--init {args.init}: {e}") from None
    if state["ruleset"] != json.loads(json.dumps(rs.to_dict())):
        raise SystemExit(f"--init {args.init}: trained for other rules ({state['ruleset'].get('name')}); give "
                         "the same --ruleset and --set")
    if state.get("players", 2) != 2 or state.get("objective", "win") != "win":
        raise SystemExit(f"--init {args.init}: a {state.get('players')}-player {state.get('objective')} agent; the "
                         "teacher teaches two-player win agents")
    try:
        teacher = teacher_for(rs, threads=args.threads, cache_mb=shaping_cache_mb(args.cache_mb))
    except TeachError as e:
        raise SystemExit(str(e)) from None
    model = MaskablePPO.load(zip_path, device="cpu")
    obs_size = int(model.observation_space.shape[-1])
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]

    def learner_now() -> Callable:
        return argmax_policy(PolicySnapshot.from_policy(model.policy, deterministic=True))

    current = {"policy": learner_now()}

    def self_opponent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return current["policy"](obs, masks)

    try:
        opponents = make_opponents(specs, rs, teacher, self_opponent)
    except TeachError as e:
        raise SystemExit(str(e)) from None
    venv = BatchedZilchVecEnv(rs, num_envs=args.n_envs, num_players=2, seed=args.seed, opponent=opponents,
                              reward="win")
    venv.seed(args.seed)
    optimizer = torch.optim.Adam(actor_parameters(model.policy), lr=args.learning_rate)
    data = Decisions.empty(obs_size)
    history: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    best_weights = None
    t0 = time.perf_counter()
    print(f"{rs.name}: teaching {zip_path} by the solved game; {args.rounds} rounds of {args.decisions:,} decisions "
          f"against {', '.join(specs)}; out {out}", flush=True)
    with _bar(args.progress) as bar:
        for rnd in range(args.rounds + 1):
            task = bar.add_task(f"round {rnd} play", total=args.decisions, stats="")
            new, stats = collect(venv, current["policy"], teacher, args.decisions, obs_size, specs,
                                 progress=lambda k: bar.update(task, completed=k))
            bar.remove_task(task)
            ref = "optimal-win" if "optimal-win" in stats else specs[0]
            rpg = stats[ref]["regret_per_game"]
            entry: dict[str, Any] = {"round": rnd, "decisions": args.decisions, "measured": stats,
                                     "seconds": round(time.perf_counter() - t0, 1)}
            if rpg is not None and (best is None or rpg < best["regret_per_game"]):
                best = {"round": rnd, "regret_per_game": rpg, "opponent": ref, "games": stats[ref]["games"]}
                best_weights = {k: v.clone() for k, v in model.policy.state_dict().items()}
            shown_stats = "  ".join(f"{s}: {d['regret_per_game']:.4f}/game ({d['games']})" for s, d in stats.items()
                                    if d["regret_per_game"] is not None)
            print(f"round {rnd} ({entry['seconds']:.0f} s): the network of round {rnd - 1 if rnd else 'init'} "
                  f"loses {shown_stats}", flush=True)
            if rnd == args.rounds:
                history.append(entry)
                break
            data = data.joined(new, args.max_decisions)
            lr = args.learning_rate * (1.0 - 0.9 * rnd / max(args.rounds - 1, 1) if args.anneal_lr else 1.0)
            task = bar.add_task(f"round {rnd} fit", total=args.epochs * len(data), stats=f"{len(data):,} decisions")
            fitted = fit(model.policy, data, args.epochs, args.batch_size, lr, args.tau, args.regret_coef,
                         seed=args.seed * 1000 + rnd, optimizer=optimizer, progress=lambda w: bar.advance(task, w))
            bar.remove_task(task)
            entry["fit"] = {"decisions": len(data), "learning_rate": lr, **{k: round(v, 6) for k, v in fitted.items()}}
            print(f"round {rnd} fit on {len(data):,} decisions: loss {fitted['loss']:.4f}, agrees with the teacher "
                  f"{fitted['agree']:.2%}, argmax regret {fitted['argmax_regret']:.2e}/decision", flush=True)
            history.append(entry)
            current["policy"] = learner_now()
    seconds = time.perf_counter() - t0
    if best is None:  # no game finished in any round (a tiny budget): the last fit, unmeasured
        best = {"round": args.rounds, "regret_per_game": None, "opponent": specs[0], "games": 0}
    else:
        model.policy.load_state_dict(best_weights)
    state = dict(state)
    state["commands"] = [*state.get("commands", []), command]
    state["teach"] = {"args": dataclasses.asdict(args), "rounds": history, "chosen": best, "seconds": round(seconds, 1)}
    chosen = {"selected": f"taught (after {best['round']} fits of train/teach.py)",
              "timesteps": int(model.num_timesteps)}
    if best["regret_per_game"] is not None:  # else the measure of --init stays, with what was exported
        chosen.update(metric=0.5 - best["regret_per_game"], metric_kind="0.5 - regret per game (solved game)",
                      opponent=best["opponent"], games=best["games"])
    state["best"] = {**(state.get("best") or {"metric": 0.0, "opponent": "-", "games": 0}), **chosen}
    save_checkpoint(model, out / "best", None, state)
    (out / "teach.json").write_text(json.dumps(state["teach"], indent=2) + "\n")
    print(f"taught in {seconds / 60:.1f} minutes: the network after {best['round']} fits, {_lost(best)}; saved "
          f"{out / 'best'}", flush=True)
    if args.export:
        finish(args, rs, out, state, seconds, started)
    return 0


def _lost(best: dict[str, Any], q: str = "") -> str:
    """What the chosen network lost per game, in words."""
    if best["regret_per_game"] is None:
        return "not measured (no game finished in a round)"
    return (f"which lost {best['regret_per_game']:.4f} win chance per game against {q}{best['opponent']}{q} over "
            f"{best['games']:,} games")


def finish(args: Args, rs: Ruleset, out: Path, state: dict[str, Any], seconds: float,
           started: float | None = None) -> None:
    """The export and the final evaluation of ``train/ppo.py``, and the checkpoint's README (with the
    whole command's wall time when ``started``, its ``time.perf_counter()`` at the start, is given)."""
    from agents.export import export
    from train.report import final_evaluation, write_readme

    onnx_path = export(out / "best" / "model.zip", out / "policy.onnx")
    print(f"exported {onnx_path} (+ {onnx_path.with_suffix('.json').name})", flush=True)
    ev = argparse.Namespace(seed=args.eval_seed, final_games=args.final_games, final_opponents=args.final_opponents,
                            eval_workers=args.eval_workers, progress=args.progress, ruleset=args.ruleset,
                            set=args.set, final_solo_turns=args.final_solo_turns)
    summary = (final_evaluation(ev, rs, 2, out) if args.final_games > 0 or args.final_solo_turns > 0 else None)
    write_readme(out, rs, state, summary)
    text = (out / "README.md").read_text()
    best = state["teach"]["chosen"]
    note = (f"Then taught by the solved game (`train/teach.py`: DAgger rounds of play, labels of every legal action by "
            f"`optimal-win`'s game table, supervised fit of the actor) in {seconds / 60:.1f} minutes; exported the "
            f"network after {best['round']} of {state['teach']['args']['rounds']} fits, {_lost(best, '`')} "
            "(`teach.json`: every round). The network "
            "plays alone: the table never moves for it.")
    if started is not None:
        note += (f" The whole `train/teach.py` command (teaching, export, final evaluation) took "
                 f"{(time.perf_counter() - started) / 60:.1f} minutes.")
    text = text.replace("a list means a run resumed with the later commands",
                        "run in order: `train/ppo.py` trains, `train/teach.py` teaches its checkpoint")
    lines = text.split("\n")
    at = next((i for i, ln in enumerate(lines) if ln.startswith("Trained ")), len(lines) - 1)
    lines[at + 1:at + 1] = ["", note]
    (out / "README.md").write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())

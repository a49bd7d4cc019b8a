"""The solved games teach the agent for any ruleset (``checkpoints/any``) where they exist, and the
agent keeps what it learnt everywhere else.

    python train/teach_any.py --init checkpoints/any            # after train/ppo.py --ruleset any
    python train/teach_any.py --help                             # every option with its default

What it does
    DAgger rounds as ``train/teach.py``'s, over many rulesets at once. Each round the network plays:

    * on every preset (two players; the presets' game tables ship), games against the preset's
      ``optimal-win`` (the teacher itself), ``optimal-turn`` and itself, every decision labelled with
      the regret of each legal action under the solved game (:class:`train.teach.WinTeacher`);
    * on every preset at each player count of ``--players`` (3 and 4 by default), games against
      ``optimal-turn`` and itself, every decision labelled as in the two-player game of the mover
      against the leader, the highest score among the others (``train.teach.WinTeacher(leader=True)``):
      not the solved game of those players, but the way of play that gives the presets' two-player
      win agents more than a fair share at 3 and 4 players;
    * on every preset with ``variants.piggyback`` on (two players), ``--piggyback-decisions`` a
      round, in games against the preset's ``optimal-win`` played so, ``optimal-turn`` and itself,
      every decision labelled by the preset's solved game as ``WinTeacher(piggyback=True)`` does: a
      keep as in the preset's game, an offer by the win chance of rolling on from it against a
      fresh turn. The game solver does not model piggyback; played this way the presets' solved
      games still beat the ``heuristic`` under piggyback;
    * on every preset with ``variants.overcoming`` on at each target of ``--overcoming-targets``
      (3,000 and 4,000 by default, targets of the distribution), two players and each player count
      of ``--players``, ``--overcoming-decisions`` a round, in games against the teacher, ``greedy``
      and itself. At the player counts of ``--solved-players`` (2 and 3), where
      :mod:`agents.solver.multi` solves the rules (``zilch``, ``zonk``), the teacher is the solved game
      of those players under overcoming itself (solved and cached on first use: minutes each); else
      the solved two-player game of those rules without overcoming
      (``WinTeacher(leader=True, overcoming=True)``): before the end a keep as in that game among the
      legal actions, a last turn above both the leader and the previous turn's result, leaving the
      seats still to play as little as it can (``GameTable.final_situation_of``);
    * on the rulesets of the run's pool that are not presets (``train/ppo.py --ruleset any``'s
      ``--rules-pool`` draws, 2 to 4 players), games against ``optimal-turn`` (each ruleset's own
      table) and itself, every decision labelled by the network as it was before teaching:
      pseudo-regrets ``tau * (max logit - logit)``, whose Boltzmann choice at ``tau`` is exactly that
      network's policy, so the loss there is the cross-entropy to it (distillation). Piggyback
      offers there are the exception: the ruleset's exact turn values label them (take the offer
      when rolling on from it is worth more points than a fresh turn, as ``optimal-turn`` does),
      the other choice given up ``--offer-regret`` win chance (where the turn solver does not solve
      the rules, pyramiding, the network before teaching labels them);
    * on the pool's piggyback rulesets (those the turn solver solves), ``--offer-decisions`` offers
      a round, each labelled by those turn values alone: offers are a small part of the decisions
      above, and without these the network keeps the choices it had.

    The actor is fitted on all of it (:func:`train.teach.fit`), so it learns the solved games'
    moves on the presets without forgetting the rest. Each round's preset games measure the network
    that played them (its regret per game against ``optimal-win``, on each preset); the
    one exported is the fitted network (round 1 on: the ``--init`` network has none of the lessons
    above) with the least mean over the presets. The network decides alone at play time.

Outputs (``--out``, default the ``--init`` directory): ``best/model.zip`` + ``best/train.json`` (the
commands appended), ``teach.json`` (every round), ``policy.onnx`` + ``policy.json``; then
``train/generalist_eval.py`` measures it.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from zilch_env import NUM_ACTIONS, PRESETS, load_ruleset  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="train/teach_any.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--init", default="checkpoints/any", help="the checkpoint of train/ppo.py --ruleset any to teach")
    p.add_argument("--out", default="", help="checkpoint directory written (default: the --init directory)")
    p.add_argument("--presets", nargs="+", default=list(PRESETS), help="the rulesets taught by their solved game")
    p.add_argument("--rounds", type=int, default=4, help="rounds of play, label and fit (one more measures the last)")
    p.add_argument("--decisions", type=int, default=40_000, help="decisions per preset per round")
    p.add_argument("--players", type=int, nargs="*", default=[3, 4],
                   help="player counts at which the presets are also taught, by the two-player game of the mover "
                        "against the leader (none: two players only)")
    p.add_argument("--multi-decisions", type=int, default=20_000,
                   help="decisions per preset per player count of --players per round")
    p.add_argument("--piggyback-decisions", type=int, default=20_000,
                   help="decisions per preset per round on the preset with piggyback on (two players), labelled by "
                        "the preset's solved game as train.teach.WinTeacher(piggyback=True) does (0: none)")
    p.add_argument("--overcoming-decisions", type=int, default=5_000,
                   help="decisions per preset, target of --overcoming-targets and player count (2 and --players) per "
                        "round on the preset with overcoming on, labelled by the solved game of those players "
                        "(--solved-players) or else as train.teach.WinTeacher(leader=True, overcoming=True) does "
                        "(0: none)")
    p.add_argument("--overcoming-targets", type=int, nargs="+", default=[3000, 4000],
                   help="the targets of the overcoming lessons (each preset's game is solved there, cached)")
    p.add_argument("--solved-players", type=int, nargs="*", default=[2, 3],
                   help="player counts (2, 3) of the overcoming lessons taught by the solved game of those players "
                        "under overcoming where agents.solver.multi solves the rules (solved and cached on first use, "
                        "minutes each); the others by the two-player game without overcoming (none: all of them)")
    p.add_argument("--keep-decisions", type=int, default=120_000,
                   help="decisions per round on the pool's other rulesets (labelled by the network before teaching)")
    p.add_argument("--offer-regret", type=float, default=0.01,
                   help="on the pool's other rulesets, the win chance a piggyback offer's label says the turn "
                        "values' other choice gives up (0: the network before teaching labels offers too)")
    p.add_argument("--offer-decisions", type=int, default=20_000,
                   help="piggyback offers per round on the pool's piggyback rulesets, labelled by the turn values "
                        "alone (0: none)")
    p.add_argument("--max-decisions", type=int, default=1_500_000, help="decisions kept for fitting (oldest dropped)")
    p.add_argument("--epochs", type=int, default=3, help="passes over the kept decisions per round")
    p.add_argument("--batch-size", type=int, default=1024, help="minibatch size of the fit")
    p.add_argument("--learning-rate", type=float, default=5e-4, help="Adam learning rate (decays to a tenth)")
    p.add_argument("--tau", type=float, default=1e-3, help="temperature of the teacher's choice, in win chance")
    p.add_argument("--regret-coef", type=float, default=1.0, help="weight of the expected regret in the loss")
    p.add_argument("--n-envs", type=int, default=64, help="games played together per ruleset")
    p.add_argument("--seed", type=int, default=1, help="seed of torch, the games and the fit's order")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    args.players = sorted(set(args.players))
    bad = [n for n in args.players if not 3 <= n <= 4]
    if bad:
        p.error(f"--players {' '.join(map(str, bad))}: 3 or 4 (two players are always taught, by the solved game)")
    for name in ("rounds", "decisions", "multi_decisions", "max_decisions", "epochs", "batch_size", "n_envs"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} {getattr(args, name)}: 1 or more")
    from zilch_env.rules.distribution import TARGETS

    bad = [t for t in args.overcoming_targets if t not in TARGETS]
    if bad:
        p.error(f"--overcoming-targets {' '.join(map(str, bad))}: targets of the distribution, "
                f"{', '.join(map(str, TARGETS))} (the rest are held out for evaluation)")
    for name in ("keep_decisions", "offer_decisions", "piggyback_decisions", "overcoming_decisions"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} {getattr(args, name)}: 0 or more")
    if not 0 <= args.offer_regret <= 1:
        p.error(f"--offer-regret {args.offer_regret}: a win chance from 0 to 1")
    args.solved_players = sorted(set(args.solved_players))
    bad = [n for n in args.solved_players if n not in (2, 3)]
    if bad:
        p.error(f"--solved-players {' '.join(map(str, bad))}: 2 or 3 (agents.solver.multi solves those)")
    bad = [x for x in args.presets if x not in PRESETS]
    if bad:
        p.error(f"--presets {' '.join(bad)}: not presets; allowed are {', '.join(PRESETS)}")
    return args


def overcoming_teacher(rs: Any, players: int, solved_players: list[int], approximation: Any, cache_mb: float,
                       tables: dict[str, Any], progress: bool) -> tuple[Any, bool]:
    """The teacher of an overcoming lesson (``rs`` with overcoming on, ``players`` players): the solved
    game of those players (``agents.solver.multi``, one table per rules in ``tables``) when ``players``
    is in ``solved_players`` and the solver solves the rules, else ``approximation`` (the two-player
    game's, ``WinTeacher(leader=True, overcoming=True)``); and whether it is the solved game."""
    from agents.solver.multi import check_multi_supported, multi_key, solve_multi
    from train.teacher import WinTeacher
    from zilch_env import UnsupportedRulesError

    if players not in solved_players:
        return approximation, False
    try:
        check_multi_supported(rs, players)
    except UnsupportedRulesError:
        return approximation, False
    key = multi_key(rs, players)
    if key not in tables:
        tables[key] = solve_multi(rs, players, progress=progress)
    return WinTeacher(rs, table=tables[key], cache_mb=cache_mb), True


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
    from train.teach import Decisions

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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    command = shlex.join(["python", "train/teach_any.py", *argv])
    import torch
    from rich.progress import track
    from sb3_contrib import MaskablePPO

    from agents.base import kernel_agent
    from agents.export import export, resolve_checkpoint, train_metadata
    from train.checkpoints import save_checkpoint
    from train.generalist import _opponent
    from train.args import shaping_cache_mb, torch_settings
    from train.report import write_readme
    from train.selfplay import PolicySnapshot
    from train.teach import Decisions, actor_parameters, argmax_policy, collect, fit
    from train.teacher import WinTeacher, teacher_for
    from zilch_env.rules.distribution import sample_rules
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    torch_settings(1)
    torch.manual_seed(args.seed)
    try:
        zip_path = resolve_checkpoint(args.init)
        state = train_metadata(zip_path)
    except FileNotFoundError as e:
        raise SystemExit(f"--init {args.init}: {e}") from None
    rules = state.get("ruleset", {})
    if rules.get("distribution") != "any":
        raise SystemExit(f"--init {args.init}: not an agent for any ruleset (its rules are {rules.get('name')!r}); "
                         "teach a preset's agent with train/teach.py")
    out = Path(args.out) if args.out else Path(args.init if Path(args.init).is_dir() else zip_path.parent.parent)
    model = MaskablePPO.load(zip_path, device="cpu")
    obs_size = int(model.observation_space.shape[-1])
    frozen = PolicySnapshot.from_policy(model.policy, deterministic=True)
    current = {"policy": argmax_policy(PolicySnapshot.from_policy(model.policy, deterministic=True))}

    def learner(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return current["policy"](obs, masks)

    progress = not args.no_progress
    presets, multi, piggy = [], [], []
    for name in track(args.presets, description="the presets' teachers", disable=not progress):
        rs = load_ruleset(name)
        teacher = teacher_for(rs, cache_mb=shaping_cache_mb(0) / len(args.presets))
        venv = BatchedZilchVecEnv(rs, num_envs=args.n_envs, num_players=2, seed=args.seed,
                                  opponent=[teacher, kernel_agent("optimal-turn", rs), learner], reward="win")
        venv.seed(args.seed)
        presets.append((name, teacher, venv))
        leader = WinTeacher(rs, table=teacher.table, leader=True)
        for n in args.players:
            venv = BatchedZilchVecEnv(rs, num_envs=args.n_envs, num_players=n, seed=args.seed,
                                      opponent=[kernel_agent("optimal-turn", rs), learner], reward="win")
            venv.seed(args.seed)
            multi.append((f"{name} {n}p", leader, venv))
        if args.piggyback_decisions:
            pig_rs = load_ruleset(name, {"variants.piggyback": True})
            pig_teacher = WinTeacher(rs, table=teacher.table, piggyback=True)
            venv = BatchedZilchVecEnv(pig_rs, num_envs=args.n_envs, num_players=2, seed=args.seed,
                                      opponent=[pig_teacher, kernel_agent("optimal-turn", pig_rs), learner],
                                      reward="win")
            venv.seed(args.seed)
            piggy.append((f"{name} piggyback", pig_teacher, venv))
    over = []
    if args.overcoming_decisions:
        from agents.solver.game import solve_game

        jobs = [(name, t) for name in args.presets for t in args.overcoming_targets]
        solved_tables: dict[str, Any] = {}
        for name, t in track(jobs, description="the overcoming lessons' games", disable=not progress):
            base = load_ruleset(name, {"target": t})
            cache_mb = shaping_cache_mb(0) / len(jobs)
            approx = WinTeacher(base, table=solve_game(base, progress=False), leader=True, overcoming=True,
                                cache_mb=cache_mb)
            rs = load_ruleset(name, {"target": t, "variants.overcoming": True})
            for n in [2, *args.players]:
                teacher, solved = overcoming_teacher(rs, n, args.solved_players, approx, cache_mb, solved_tables,
                                                     progress)
                venv = BatchedZilchVecEnv(rs, num_envs=args.n_envs, num_players=n, seed=args.seed,
                                          opponent=[teacher, kernel_agent("greedy", rs), learner], reward="win")
                venv.seed(args.seed)
                over.append((f"{name} target {t} overcoming {n}p{' (solved game)' if solved else ''}", teacher, venv))
    keep_env = offers = offer_env = offer_set = None
    teach_offers = args.offer_decisions and args.offer_regret > 0
    if args.keep_decisions or teach_offers:  # the pool's other rulesets, and their turn tables (solved once)
        draws = [d for d in sample_rules(rules["pool"], seed=rules["seed"]) if d.overrides or d.players != 2]
        pool_args = argparse.Namespace(seed=args.seed, progress=progress)
        offers = _opponent("optimal-turn", draws, pool_args, None)
    if args.keep_decisions:
        keep_env = BatchedZilchVecEnv([d.ruleset for d in draws], num_envs=4 * args.n_envs,
                                      num_players=[d.players for d in draws], seed=args.seed,
                                      opponent=[offers, learner])
        keep_env.seed(args.seed)
    if teach_offers:  # of those, the piggyback rulesets the turn solver solves (every one has overrides)
        pig = [(d, t) for d, t in zip(draws, offers.tables) if d.ruleset.variants.piggyback and t is not None]
        if pig:
            from zilch_env.players.kernel_agents import TableSet

            offer_set = TableSet([t for _, t in pig])
            offer_env = BatchedZilchVecEnv([d.ruleset for d, _ in pig], num_envs=4 * args.n_envs,
                                           num_players=[d.players for d, _ in pig], seed=args.seed,
                                           opponent=[offer_set, learner])
            offer_env.seed(args.seed)
    optimizer = torch.optim.Adam(actor_parameters(model.policy), lr=args.learning_rate)
    data = Decisions.empty(obs_size)
    history: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    best_weights = None
    t0 = time.perf_counter()
    print(f"any ruleset: teaching {zip_path} on {len(presets)} presets by their solved games, keeping it on "
          f"the pool's other rulesets; {args.rounds} rounds", flush=True)
    for rnd in range(args.rounds + 1):
        parts: list[Decisions] = []  # joined once: joining each lesson's as it comes copies the round over and over
        measured: dict[str, Any] = {}
        for name, teacher, venv in presets:
            d, stats = collect(venv, learner, teacher, args.decisions, obs_size, ["optimal-win", "optimal-turn", "self"])
            parts.append(d)
            measured[name] = stats["optimal-win"]
        led: dict[str, Any] = {}
        pig_led: dict[str, Any] = {}
        over_led: dict[str, Any] = {}
        if rnd < args.rounds:  # the multi-player lessons (the last round only measures the presets)
            for name, teacher, venv in multi:
                d, stats = collect(venv, learner, teacher, args.multi_decisions, obs_size, ["optimal-turn", "self"])
                parts.append(d)
                led[name] = stats["optimal-turn"]
            for name, teacher, venv in piggy:
                d, stats = collect(venv, learner, teacher, args.piggyback_decisions, obs_size,
                                   ["optimal-win", "optimal-turn", "self"])
                parts.append(d)
                pig_led[name] = stats["optimal-win"]
            for name, teacher, venv in over:
                d, stats = collect(venv, learner, teacher, args.overcoming_decisions, obs_size,
                                   ["optimal-win", "greedy", "self"])
                parts.append(d)
                over_led[name] = stats["optimal-win"]
        lost = [m["regret_per_game"] for m in measured.values() if m["regret_per_game"] is not None]
        total = float(np.mean(lost)) if len(lost) == len(measured) else None
        entry: dict[str, Any] = {"round": rnd, "measured": measured, "multi_player": led, "piggyback": pig_led,
                                 "overcoming": over_led, "mean_regret_per_game": total,
                                 "seconds": round(time.perf_counter() - t0, 1)}
        # a fitted network (round 1 on): the lessons the presets' regret does not measure (3 and 4
        # players, piggyback, the offers) are what teaching adds to the --init network, which round 0 measures
        if rnd > 0 and total is not None and (best is None or total < best["mean_regret_per_game"]):
            best = {"round": rnd, "mean_regret_per_game": total}
            best_weights = {k: v.clone() for k, v in model.policy.state_dict().items()}
        shown = "  ".join(f"{n}: {m['regret_per_game']:.4f}" for n, m in measured.items()
                          if m["regret_per_game"] is not None)
        print(f"round {rnd} ({entry['seconds']:.0f} s): the network of round {rnd - 1 if rnd else 'init'} loses, "
              f"per game against optimal-win, {shown} (mean {total if total is None else round(total, 4)})", flush=True)
        if rnd == args.rounds:
            history.append(entry)
            break
        if keep_env is not None:
            parts.append(distill(keep_env, learner, frozen, args.keep_decisions, args.tau, obs_size,
                                 offers, args.offer_regret))
        if offer_env is not None:
            parts.append(distill(offer_env, learner, frozen, args.offer_decisions, args.tau, obs_size,
                                 offer_set, args.offer_regret, offers_only=True))
        data = Decisions.concat([data, *parts], args.max_decisions)
        lr = args.learning_rate * (1.0 - 0.9 * rnd / max(args.rounds - 1, 1))
        fitted = fit(model.policy, data, args.epochs, args.batch_size, lr, args.tau, args.regret_coef,
                     seed=args.seed * 1000 + rnd, optimizer=optimizer)
        entry["fit"] = {"decisions": len(data), "learning_rate": lr, **{k: round(v, 6) for k, v in fitted.items()}}
        print(f"round {rnd} fit on {len(data):,} decisions: loss {fitted['loss']:.4f}, agrees with its labels "
              f"{fitted['agree']:.2%}", flush=True)
        history.append(entry)
        current["policy"] = argmax_policy(PolicySnapshot.from_policy(model.policy, deterministic=True))
    seconds = time.perf_counter() - t0
    if best is not None:
        model.policy.load_state_dict(best_weights)
    else:  # pragma: no cover - a tiny budget where no preset game finished: the last fit
        best = {"round": args.rounds, "mean_regret_per_game": None}
    state = dict(state)
    state["commands"] = [*state.get("commands", []), command]
    state["teach"] = {"args": vars(args), "rounds": history, "chosen": best, "seconds": round(seconds, 1)}
    chosen: dict[str, Any] = {"selected": f"taught (after {best['round']} fits of train/teach_any.py)",
                              "timesteps": int(model.num_timesteps)}
    if best["mean_regret_per_game"] is not None:  # what the chosen network was measured at
        games = sum(m["games"] for m in history[best["round"]]["measured"].values())
        chosen.update(metric=0.5 - best["mean_regret_per_game"], opponent="optimal-win", games=games,
                      metric_kind="0.5 - regret per game (solved games), the mean over the presets")
    state["best"] = {**(state.get("best") or {}), **chosen}
    save_checkpoint(model, out / "best", None, state)
    (out / "teach.json").write_text(json.dumps(state["teach"], indent=2) + "\n")
    onnx_path = export(out / "best" / "model.zip", out / "policy.onnx")
    write_readme(out, load_ruleset(state["args"].get("eval_ruleset", "zonk")), state, None)
    m = best["mean_regret_per_game"]
    lost = "an unmeasured" if m is None else f"{m:.4f}"
    with open(out / "README.md", "a") as f:
        f.write(f"\nThen taught (`train/teach_any.py`, {seconds / 60:.1f} minutes): DAgger rounds in which each "
                f"preset's solved game labels the agent's decisions there and the agent before teaching labels "
                f"its decisions on the pool's other rulesets; exported the network after {best['round']} fits, "
                f"which lost {lost} win chance per game against `optimal-win` on average over the presets "
                f"(`teach.json`: every round). The network plays alone.\n\n"
                f"Its evaluation (`train/generalist_eval.py`) is `eval.md` / `eval.json`.\n")
    print(f"taught in {seconds / 60:.1f} minutes: the network after {best['round']} fits; exported {onnx_path}",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

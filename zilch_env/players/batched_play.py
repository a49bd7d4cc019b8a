"""How the players decide in a batch of games: the methods of
:class:`~zilch_env.engine.batched.BatchedGames` that choose actions (the built-in agents' moves, games
played to their end between agents, batch policies' moves), apart from the engine's stepping. The
engine steps; these decide, with the agent kernels of :mod:`zilch_env.players.agent_kernels` and the
agents of :mod:`zilch_env.players.kernel_agents`."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from zilch_env.engine import layout as L
from zilch_env.engine.actions import NUM_ACTIONS
from zilch_env.players import agent_kernels as AK
from zilch_env.players.kernel_agents import (_NO_VALUES, KernelAgent, TableSet, TurnValueTable, _kernel_agents,
                                             _pack_value_tables, batch_policy_actions, is_batch_policy,
                                             builtin_kernel_agent)

__all__ = ["AgentPlay"]


class AgentPlay:
    """The deciding half of :class:`~zilch_env.engine.batched.BatchedGames` (a mixin: it reads the batch's
    state ``_st``, rules ``_rp`` / ``_tabs`` / ``_kargs`` and decision streams ``_rng``, and steps it)."""

    def greedy_actions(self, threshold: int | np.ndarray = 300, min_dice: int | np.ndarray = 2) -> np.ndarray:
        """What :class:`zilch_env.GreedyMover` (``threshold``, ``min_dice``, scalars or one per game)
        plays in every game; -1 where no decision is due."""
        G = self.num_games
        kinds = np.ones(G, dtype=np.int64)
        thr = np.broadcast_to(np.asarray(threshold, dtype=np.int64), (G,)).copy()
        md = np.broadcast_to(np.asarray(min_dice, dtype=np.int64), (G,)).copy()
        return self._agent_actions(kinds, thr, md)

    def random_actions(self, masks: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action in every game (from each game's first-seat decision
        stream); -1 where no decision is due.

        ``masks``: this state's :meth:`legal_masks` (a ``(games, 136)`` bool array), as a training
        loop holds them: the actions are then drawn from them instead of deciding each roll's keeps
        again: the same actions and the same draws as without them."""
        G = self.num_games
        if masks is not None:
            if not isinstance(masks, np.ndarray) or masks.dtype != np.bool_ or masks.shape != (G, NUM_ACTIONS):
                got = (f"{masks.dtype} array of shape {masks.shape}" if isinstance(masks, np.ndarray)
                       else type(masks).__name__)
                raise ValueError(f"masks: expected this batch's legal_masks(), a bool array of shape "
                                 f"({G}, {NUM_ACTIONS}); got {got}")
            out = np.empty(G, dtype=np.int64)
            AK.random_actions_from_masks(self._st, np.ascontiguousarray(masks).view(np.uint64), out, self._rng)
            return out
        z = np.zeros(G, dtype=np.int64)
        return self._agent_actions(z, z, z)

    def value_actions(self, table: "TurnValueTable | TableSet") -> np.ndarray:
        """What the policy of ``table`` plays in every game; -1 where no decision is due.

        ``table`` is a :class:`TurnValueTable` for this batch's one ruleset (e.g. the ``optimal-turn``
        agent's), or a :class:`~zilch_env.players.kernel_agents.TableSet` with one entry per ruleset of the
        batch: each game plays its own rules' table, and the greedy mover (the set's
        ``fallback_threshold``) the games whose entry is None."""
        G = self.num_games
        z = np.zeros(G, dtype=np.int64)
        if not isinstance(table, TableSet):
            self._one_ruleset_tables([table])
            return self._agent_actions(np.full(G, 3, dtype=np.int64), z, z,
                                       _pack_value_tables([table], self.rulesets))
        if len(table.tables) != len(self.rulesets):
            raise ValueError(f"{table!r} has {len(table.tables)} entries; this batch plays {len(self.rulesets)} "
                             "rulesets: one entry (a table or None) per ruleset")
        for i, (t, rs) in enumerate(zip(table.tables, self.rulesets)):
            if t is not None and t.ruleset != rs:
                raise ValueError(f"{table!r}: entry {i}'s table was solved for {t.ruleset.name!r}, not for "
                                 f"the batch's ruleset {i} ({rs.name!r})")
        solved = [t for t in table.tables if t is not None]
        kind_of = np.array([1 if t is None else 3 for t in table.tables], dtype=np.int64)
        thr_of = np.full(len(table.tables), table.fallback_threshold, dtype=np.int64)
        thr_of[kind_of == 3] = np.arange(len(solved))
        rid = self._st[:, L.RULES_ROW]
        return self._agent_actions(kind_of[rid], thr_of[rid], np.full(G, KernelAgent.min_dice, dtype=np.int64),
                                   _pack_value_tables(solved, self.rulesets) if solved else None)

    def _one_ruleset_tables(self, tables: Sequence[Any]) -> None:
        """A turn-value table plays the games of its own rules only: in a batch of several rulesets
        the kernels would apply it to every game seated with it, so it is refused there (the VecEnv
        seats each game's own table, :class:`~zilch_env.players.kernel_agents.TableSet`)."""
        if self.mixed and any(t is not None for t in tables):
            raise ValueError("a turn-value table plays one ruleset; this batch plays "
                             f"{len(self.rulesets)}: play it in a batch of its rules")

    def _agent_actions(self, kinds: np.ndarray, thr: np.ndarray, md: np.ndarray,
                       values: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
        out = np.empty(self.num_games, dtype=np.int64)
        values = _NO_VALUES if values is None else values
        AK.agent_actions(self._st, out, kinds, thr, md, self._rng, *values, self._rp, self._tabs)
        return out

    def play_random(self, sweeps: int, first: int | Sequence[int] = 0) -> tuple[int, int]:
        """Benchmark loop: ``sweeps`` times, one uniformly random legal decision in every game, games
        that end starting again at once. Returns (decisions, games finished)."""
        firsts = np.broadcast_to(np.asarray(first, dtype=np.int64), (self.num_games,)).copy()
        decisions = finished = 0
        while sweeps > 0:
            done, d, f = AK.play_random(self._st, sweeps, self._rng, self._rp, *self._kargs, firsts)
            sweeps -= done
            decisions += d
            finished += f
            self._service()
        return decisions, finished

    def play_to_end(self, agents: Sequence["str | KernelAgent | Any"], seat_agents: np.ndarray | Sequence[Sequence[int]],
                    max_decisions: int = 1_000_000) -> None:
        """Play every game to its end between ``agents`` seated by ``seat_agents``.

        ``agents`` are kernel agents (anything :func:`builtin_kernel_agent` accepts, played in the kernels)
        or batch policies (played from Python between kernel calls, see :func:`batch_policy_actions`);
        ``seat_agents[g][q]`` is the index of the agent at seat ``q`` of game ``g``. The random agents
        draw from the games' decision streams (``decision_keys``). A game still going after
        ``max_decisions`` decisions raises RuntimeError naming it and its agents (an agent that never
        banks); a batch policy's illegal action raises RuntimeError naming the agent, the action and
        the game.
        """
        outside = [a if is_batch_policy(a) else None for a in agents]
        ags = [KernelAgent("outside") if o is not None else builtin_kernel_agent(a) for a, o in zip(agents, outside)]
        seats = np.ascontiguousarray(seat_agents, dtype=np.int64)
        if seats.shape != (self.num_games, self.num_players):
            raise ValueError(f"seat_agents: expected shape ({self.num_games}, {self.num_players}), got {seats.shape}")
        if seats.size and (seats.min() < 0 or seats.max() >= len(ags)):
            raise ValueError(f"seat_agents: entries are indices into the {len(ags)} agents")
        self._one_ruleset_tables([a.table for a in ags])
        kinds, thr, md, *values = _kernel_agents(ags, self.rulesets)
        st = self._st
        while True:
            stuck, waiting = AK.play_agents(st, seats, kinds, thr, md, self._rng, *values, max_decisions, self._rp,
                                           *self._kargs)
            if stuck >= 0:
                raise RuntimeError(f"game {stuck} did not end within {max_decisions} decisions "
                                   f"(agents {[ags[a].name for a in seats[stuck]]})")
            self._service()
            if waiting:
                to_move = np.flatnonzero(st[:, L.PHASE] <= L.KEEP)
                bad = self.step_batch_policies(outside, to_move, seats[to_move, st[to_move, L.CURRENT]])
                if bad is not None:
                    j, game, action = bad
                    raise RuntimeError(f"agent {agents[j]!r} chose the illegal action {action} in game {game}")
            elif self.done.all():
                return

    def step_batch_policies(self, policies: Sequence[Any], rows: np.ndarray,
                            who: np.ndarray, obs_size: int | None = None) -> tuple[int, int, int] | None:
        """Apply the moves of batch policies: ``policies[j]`` (None where the entrant is not a batch
        policy) moves in the games ``rows[who == j]`` (:func:`batch_policy_actions`; a callable reads
        the first ``obs_size`` observation values, default all). Returns ``(j, game, action)`` for
        the first illegal action (that game unchanged), else None."""
        for j, policy in enumerate(policies):
            if policy is None:
                continue
            mine = rows[who == j]
            if not mine.size:
                continue
            actions = batch_policy_actions(policy, self, mine, obs_size)
            illegal = self.step_rows(mine, actions)
            if illegal.any():
                i = int(np.flatnonzero(illegal)[0])
                return j, int(mine[i]), int(actions[i])
        return None

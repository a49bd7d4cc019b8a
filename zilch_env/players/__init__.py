"""The players the environments seat when no agent is given: the one player protocol
(:class:`~zilch_env.players.policy.Policy`), the random and greedy movers, and their forms in compiled code
(:mod:`~zilch_env.players.kernel_agents`, deciding with :mod:`~zilch_env.players.agent_kernels`). The agents of ``agents/`` implement the same
protocol."""

from zilch_env.players.policy import GreedyMover, Policy, RandomMover, play_game

__all__ = ["GreedyMover", "Policy", "RandomMover", "play_game"]

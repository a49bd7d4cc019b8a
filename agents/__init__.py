"""Agents for zilch-rl: heuristic baselines, exact solvers and learned policies behind one interface
(:mod:`agents.base`), and the evaluation module that pits them against each other."""

from agents.base import Agent, AgentSpecError, agent_names, kernel_agent, make_agent, register_agent

__all__ = ["Agent", "AgentSpecError", "agent_names", "kernel_agent", "make_agent", "register_agent"]

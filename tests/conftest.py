"""Shared helpers for the tests: play scripted turns by naming the dice to keep."""

from __future__ import annotations

from typing import Sequence

import pytest

from zilch_env import GameState, keep_action, mask_of


def keep(game: GameState, dice: Sequence[int], bank: bool = False) -> None:
    """Keep these faces from the current roll, then bank or roll."""
    game.apply(keep_action(mask_of(game.roll, dice), bank))


@pytest.fixture
def kp():
    return keep

"""``render_mode="rgb_array"``: a picture of a game as an RGB array, drawn with Pillow.

:func:`draw` shows the roll of the player to move as dice (the dice of the last keep, if it was made
from this roll, outlined), the last move in words, the turn total, and every seat's score with the
player to move marked, in a frame of :data:`WIDTH` x :data:`HEIGHT` pixels (both even, as video
encoders want), so that ``gymnasium.wrappers.RecordVideo`` (with moviepy) and ``HumanRendering`` (with
pygame) work.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from zilch_env.extras import require

WIDTH, HEIGHT = 640, 400
_BG = (24, 92, 52)  # felt green
_DIE = (250, 248, 240)
_PIP = (20, 20, 20)
_KEPT = (240, 190, 40)
_TEXT = (245, 245, 235)
_DIM = (170, 200, 180)
# pip positions on a unit die, per face
_PIPS = {1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
         4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
         5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
         6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)]}


@functools.lru_cache(maxsize=4)
def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # a Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def _die(draw, x: int, y: int, s: int, face: int, kept: bool) -> None:
    draw.rounded_rectangle([x, y, x + s, y + s], radius=s // 6, fill=_DIE,
                           outline=_KEPT if kept else (90, 90, 90), width=5 if kept else 2)
    r = max(3, s // 11)
    for px, py in _PIPS[face]:
        cx, cy = x + px * s, y + py * s
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=_PIP)


def draw(state, names: Sequence[str], last_move: str = "", kept: int = 0, kept_roll: tuple = ()) -> np.ndarray:
    """The frame of ``state`` (a :class:`~zilch_env.GameState`): ``(HEIGHT, WIDTH, 3)`` uint8.

    ``last_move`` is the last move in words; ``kept`` the keep mask of the last keep and
    ``kept_roll`` the roll it was made from (its dice are outlined when that roll is shown).
    Pillow draws it: without it, :class:`zilch_env.extras.MissingExtraError` names the eval extra."""
    require("PIL", "eval", "render_mode='rgb_array' (the frames are drawn with Pillow)")
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (WIDTH, HEIGHT), _BG)
    d = ImageDraw.Draw(img)
    big, mid, small = _font(26), _font(20), _font(16)
    title = f"{state.ruleset.name}  -  target {state.ruleset.target}"
    d.text((20, 12), title, fill=_DIM, font=small)
    roll = tuple(state.roll) if state.roll else tuple(kept_roll)
    show_kept = bool(kept_roll) and tuple(kept_roll) == roll
    s, gap = 70, 18
    x0 = 20
    for i, face in enumerate(roll):
        _die(d, x0 + i * (s + gap), 44, s, int(face), show_kept and bool(kept >> i & 1))
    if not roll:
        d.text((x0, 66), "(no roll: turn start)" if not state.done else "", fill=_DIM, font=mid)
    if state.done:
        w = state.winners or ()
        head = ("Draw: " if len(w) > 1 else "Winner: ") + ", ".join(names[q] for q in w)
    else:
        head = f"{names[state.current]} to move  -  turn total {state.turn_total}"
        if state.permanent:
            head += f" (permanent {state.permanent})"
    d.text((20, 134), head, fill=_TEXT, font=big)
    if last_move:
        d.text((20, 172), last_move[:70], fill=_KEPT, font=mid)
    y = 212
    for q in range(state.num_players):
        mark = ">" if q == state.current and not state.done else " "
        board = "" if state.on_board[q] else "  (not on the board)"
        d.text((20, y), f"{mark} {names[q]}", fill=_TEXT, font=mid)
        d.text((250, y), f"{state.scores[q]:>6}{board}", fill=_TEXT, font=mid)
        frac = min(1.0, state.scores[q] / max(1, state.ruleset.target))
        d.rectangle([470, y + 4, 470 + int(150 * frac), y + 18], fill=_KEPT)
        d.rectangle([470, y + 4, 620, y + 18], outline=_DIM)
        y += 30
    return np.asarray(img, dtype=np.uint8)

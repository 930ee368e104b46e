"""View builders for the device tests: RiiingView / RightOnTimeView values with test
defaults, so hand-screen and handheld tests build the same views."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.right_on_time.view import RightOnTimeView
from engine.riiing.view import RiiingView


def rview(hand: Sequence[str], legal: Iterable[str], **kw: Any) -> RiiingView:
    """A Riiing! view of seat 2 of 4, seat 2 to move, condition ``>`` on a 6."""
    fields: dict[str, Any] = dict(
        seats=4,
        seat=2,
        hand=tuple(hand),
        hand_counts=(5, 6, len(hand), 4),
        draw_count=30,
        discard_count=5,
        condition=">",
        last_card="6T/<",
        to_move=2,
        demand=None,
        phones=0,
        window=None,
        winner=None,
        legal=tuple(sorted(legal)),
    )
    fields.update(kw)
    return RiiingView(**fields)


def tview(
    hand: Sequence[str],
    legal: Iterable[str],
    top_value: int | None = 4,
    seats: int = 3,
    seat: int = 0,
    bonus: Sequence[str] = (),
    **kw: Any,
) -> RightOnTimeView:
    """A Right on Time view of ``seat``, that seat to move, top value ``top_value``."""
    fields: dict[str, Any] = dict(
        seats=seats,
        seat=seat,
        hand=tuple(hand),
        bonus=tuple(bonus),
        hand_counts=tuple(len(hand) if s == seat else 3 for s in range(seats)),
        bonus_counts=tuple(len(bonus) if s == seat else 0 for s in range(seats)),
        shown=tuple(() for _ in range(seats)),
        draw_count=10,
        discard_count=3,
        top=None if top_value is None else str(top_value),
        top_value=top_value,
        round=1,
        scores=tuple(0 for _ in range(seats)),
        target_points=3,
        out=(),
        to_move=seat,
        winner=None,
        legal=tuple(sorted(set(legal))),
    )
    fields.update(kw)
    return RightOnTimeView(**fields)

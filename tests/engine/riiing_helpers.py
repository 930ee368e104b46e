"""Helpers for the Riiing! engine tests: positions from JSON fields, actions from text."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine.core import IllegalActionError
from engine.riiing import RiiingGame, RiiingPosition

GAME = RiiingGame()


def make(
    hands: list[list[str]],
    draw: list[str],
    discard: list[str],
    to_move: int | None = 0,
    **fields: Any,
) -> RiiingPosition:
    """A position from notation fields (``seats`` = number of hands, ``seed`` 1 unless
    given); goes through ``parse_position``, so it is validated (RI-9)."""
    obj: dict[str, Any] = {
        "game": "riiing",
        "seats": len(hands),
        "hands": hands,
        "draw": draw,
        "discard": discard,
        "to_move": to_move,
        "seed": 1,
    }
    obj.update(fields)
    return GAME.parse_position(obj)


def legal(pos: RiiingPosition) -> list[str]:
    """``legal`` as the text the CLI prints."""
    return [str(action) for action in GAME.legal(pos)]


def run(pos: RiiingPosition, *actions: str) -> tuple[RiiingPosition, list[str]]:
    """Apply ``actions`` (text) in order; returns the last position and every event's text."""
    events: list[str] = []
    for text in actions:
        pos, happened = GAME.apply(pos, GAME.parse_action(text))
        events.extend(str(event) for event in happened)
    return pos, events


def js(pos: RiiingPosition) -> dict[str, Any]:
    """The position's JSON object."""
    return GAME.position_json(pos)


def refused(pos: RiiingPosition, action: str, rule: str) -> str:
    """Assert ``action`` is refused citing ``rule``; returns the one-line message."""
    with pytest.raises(IllegalActionError) as info:
        GAME.apply(pos, GAME.parse_action(action))
    assert info.value.rule == rule, str(info.value)
    assert info.value.position == pos
    assert str(info.value).endswith(f"({rule})")
    return str(info.value)


def card_counts(pos: RiiingPosition) -> Counter[str]:
    """Every card the position holds, as a multiset of codes (RI-8.3)."""
    return Counter(str(card) for card in pos.cards())

"""Riiing! actions as frozen values with the exact spellings of ``docs/notation.md``.

========================  ==============  ==================================================
text                      who             meaning
========================  ==============  ==================================================
``play <card>``           seat to move    lay that card from the hand (RI-4.1, RI-5)
``draw``                  seat to move    no playable card: draw (RI-4.2; under a demand RI-5.3)
``take``                  seat to move    answer a phone chain (RI-5.4)
``slap <s>``              any seat        seat s won the open RIIING! window (RI-6.3)
``timeout``               device          nobody slapped in time (RI-6.4)
``falseslap <s>``         any seat        seat s slapped with no window open (RI-6.5)
========================  ==============  ==================================================

>>> RiiingAction.parse("play 7C/>")
RiiingAction(kind='play', card=RiiingCard(front='7C', back='>'), seat=None)
>>> str(RiiingAction.slap(2)), str(DRAW)
('slap 2', 'draw')
>>> RiiingAction.parse("slap 02")
Traceback (most recent call last):
...
engine.core.NotationError: bad action 'slap 02': expected play <card>, draw, take,
    slap <s>, timeout or falseslap <s>
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from engine.core import NotationError, Seat, short_repr
from engine.riiing.cards import RiiingCard

ActionKind = Literal["play", "draw", "take", "slap", "timeout", "falseslap"]

_SEAT = "(0|[1-9][0-9]{0,5})"
"""A seat number in an action: no leading zeros, at most 6 digits (never out of ``int``)."""
_ACTION_RE = re.compile(rf"(play) (\S+)|(draw|take|timeout)|(slap|falseslap) {_SEAT}")


@dataclass(frozen=True, slots=True)
class RiiingAction:
    """One action: ``kind`` plus ``card`` (``play`` only) or ``seat`` (``slap``,
    ``falseslap`` only).  ``str(a)`` is its text; ``RiiingAction.parse(str(a)) == a``.

    Raises :class:`NotationError` when the fields do not fit the kind.
    """

    kind: ActionKind
    card: RiiingCard | None = None
    seat: Seat | None = None

    def __post_init__(self) -> None:
        needs_card = self.kind == "play"
        needs_seat = self.kind in ("slap", "falseslap")
        if self.kind not in ("play", "draw", "take", "slap", "timeout", "falseslap"):
            raise NotationError(f"bad action kind {self.kind!r}")
        if needs_card != (self.card is not None):
            raise NotationError(f"action {self.kind}: card {'missing' if needs_card else 'given'}")
        if needs_seat != (self.seat is not None):
            raise NotationError(f"action {self.kind}: seat {'missing' if needs_seat else 'given'}")
        if self.seat is not None and (
            isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < 0
        ):
            raise NotationError(f"action {self.kind}: bad seat {self.seat!r}")

    def __str__(self) -> str:
        if self.card is not None:
            return f"play {self.card}"
        if self.seat is not None:
            return f"{self.kind} {self.seat}"
        return self.kind

    @staticmethod
    def play(card: RiiingCard | str) -> RiiingAction:
        """``play <card>``; a string is read as a card code (NotationError if invalid)."""
        return RiiingAction("play", card=RiiingCard.parse(card) if isinstance(card, str) else card)

    @staticmethod
    def slap(seat: Seat) -> RiiingAction:
        """``slap <seat>``: ``seat`` won the open window (RI-6.3)."""
        return RiiingAction("slap", seat=seat)

    @staticmethod
    def falseslap(seat: Seat) -> RiiingAction:
        """``falseslap <seat>``: ``seat`` slapped while no window was open (RI-6.5)."""
        return RiiingAction("falseslap", seat=seat)

    @staticmethod
    def parse(text: str) -> RiiingAction:
        """Read an action in the exact spelling ``legal`` prints (single spaces, no
        leading zeros, nothing around it); raises :class:`NotationError` otherwise."""
        match = _ACTION_RE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise NotationError(
                f"bad action {short_repr(text)}: expected play <card>, draw, take, slap <s>, "
                "timeout or falseslap <s>"
            )
        play, code, word, seat_kind, seat = match.groups()
        if play:
            try:
                return RiiingAction("play", card=RiiingCard.parse(code))
            except NotationError as err:
                raise NotationError(
                    f"bad action {short_repr(text)}: {err.message}", err.rule
                ) from None
        if word == "draw":
            return DRAW
        if word == "take":
            return TAKE
        if word == "timeout":
            return TIMEOUT
        return RiiingAction("slap" if seat_kind == "slap" else "falseslap", seat=int(seat))


DRAW = RiiingAction("draw")
"""``draw`` (RI-4.2, RI-5.3)."""
TAKE = RiiingAction("take")
"""``take`` (RI-5.4)."""
TIMEOUT = RiiingAction("timeout")
"""``timeout`` (RI-6.4)."""

"""What one seat (or the table) may know of a Right on Time position (docs/architecture.md
"Hidden information").  Built by :meth:`engine.right_on_time.RightOnTimeGame.view`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Card, Seat


@dataclass(frozen=True, slots=True)
class RightOnTimeView:
    """A Right on Time view.  Public except ``hand``, ``bonus`` and ``legal``.

    - ``seats``; ``seat``: whose view (``None`` = the table's public view)
    - ``hand``: that seat's cards (``()`` for the table view); ``bonus``: that seat's
      bonus cards, private (RT-6.3)
    - ``hand_counts``, ``bonus_counts``: per seat
    - ``shown``: per seat, the cards it showed under RT-5.1 and still holds (public)
    - ``draw_count``, ``discard_count``: pile sizes
    - ``top``: the discard pile's top code (``"5"``, ``"J4"``, ``"N"``, ``"D3"``) or ``None``
      while the round's opening lay is still to come (RT-2.2)
    - ``top_value``: its value (RT-1.3: ``J4`` is 4, ``N`` is 0) or ``None``
    - ``round``: round number from 1; ``scores``: victory points per seat;
      ``target_points``: points that win the match (RT-7.1)
    - ``out``: seats out this round, in order (RT-6.1); ``to_move``; ``winner`` (match)
    - ``legal``: this seat's legal actions as text, sorted; ``()`` when it may not act
    - ``options``: the position's rule options as ``(name, value)`` pairs, as its JSON
      writes them (``RotOptions.items``: ``deck`` only when not the bundled deck)
    - ``discard``: the discard pile, bottom first (its last card is ``top``): public, every
      card on it was laid face up this round (RT-2.2, RT-3); ``()`` where a view is built
      without it
    """

    seats: int
    seat: Seat | None
    hand: tuple[Card, ...]
    bonus: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    bonus_counts: tuple[int, ...]
    shown: tuple[tuple[Card, ...], ...]
    draw_count: int
    discard_count: int
    top: Card | None
    top_value: int | None
    round: int
    scores: tuple[int, ...]
    target_points: int
    out: tuple[Seat, ...]
    to_move: Seat | None
    winner: Seat | None
    legal: tuple[str, ...]
    options: tuple[tuple[str, int | bool | str], ...] = ()
    discard: tuple[Card, ...] = ()

"""What one seat (or the table) may know of a Riiing! position (docs/architecture.md
"Hidden information").  Built by :meth:`engine.riiing.RiiingGame.view`; renderers and bots read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine._common import STANDARD_DECK
from engine.core import Card, Seat


@dataclass(frozen=True, slots=True)
class RiiingView:
    """A Riiing! view.  All fields are public except ``hand`` and ``legal``.

    - ``seats``: number of seats; ``seat``: whose view (``None`` = the table's public view)
    - ``hand``: that seat's cards in hand order (``()`` for the table view)
    - ``hand_counts``: cards in each seat's hand, seat 0 first
    - ``draw_count`` / ``discard_count``: pile sizes
    - ``condition``: the back of the draw pile's top card (``">"``, ``"{2,5,8}"``, ``"*C"``),
      or ``None`` when the draw pile is empty and every condition is open (RI-3.1, RI-3.5)
    - ``last_card``: the top of the discard pile, full code (``"7C/>"``), RI-3.2
    - ``to_move``: the seat to move, ``None`` when the game is over
    - ``demand``: the pending demand's symbol (``"T"``) or ``None`` (RI-5.3)
    - ``phones``: the pending phone chain's length k, 0 if none (RI-5.4)
    - ``window``: the symbol of the open RIIING! window, or ``None`` (RI-6.2)
    - ``winner``: the winning seat or ``None`` (RI-7.1)
    - ``legal``: this seat's legal actions now as text, sorted (``"play 7C/>"``, ``"draw"``,
      ``"take"``, ``"slap 2"``); ``()`` for the table view and for a seat that may not act
    - ``false_slap_penalty``: the RI-6.5 option (cards a false slap costs; 0 = off)
    - ``deck``: the RI-1.5 option (``"standard"`` or the cards inline): public, the cards
      a seat cannot see are the deck's cards less those it sees
    - ``discard``: the discard pile, bottom first (its last card is ``last_card``): public,
      every card on it was laid or turned face up in front of the table (RI-2.2, RI-4.1,
      RI-5.4, RI-6.3); ``()`` where a view is built without it
    """

    seats: int
    seat: Seat | None
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    draw_count: int
    discard_count: int
    condition: str | None
    last_card: Card
    to_move: Seat | None
    demand: str | None
    phones: int
    window: str | None
    winner: Seat | None
    legal: tuple[str, ...]
    false_slap_penalty: int = 1
    deck: str = STANDARD_DECK
    discard: tuple[Card, ...] = ()

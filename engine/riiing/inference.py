"""What one seat can infer about the other hands from the table's public history: the
hand slots of :class:`HandTracker`, which the ``"hard"`` player's determinizations honour
(:mod:`engine.riiing.hard`), so a sampled hand is one the table has not ruled out.

Only public facts are used (the table's view before and after each action, and the
action): card counts, the condition, the last card, a pending demand or phone chain, the
window, the laid cards.  The rules make some of them telling:

- a seat that draws with no demand or phone chain pending had no playable card: no
  demand card, no Phone, no number card meeting the condition on the last card
  (RI-4.2, RI-5.1); every card it held then was one of the others;
- a seat under demand X that draws held no card of symbol X, and every card it drew
  before the X arrived (or the drawing stopped) is not of symbol X either (RI-5.3);
- a seat that wins a RIIING! window of symbol X discards all its cards of symbol X
  (RI-6.3): what it keeps is not of symbol X.

A hand is a list of slots, one per card, each the frozenset of card codes that card is
known not to be.  A card drawn later starts a free slot.  Which slot a laid card came
from is not public: the most constrained slot that allows it is taken (so older facts
fade as the hand turns over, and no fact is kept that the laid card contradicts).  A
seat's slots are brought back to its public card count after every action, so a history
the tracker cannot follow (a view without the pile, a hand-made position) only loses
facts, never cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from engine.core import Card, Seat
from engine.riiing.actions import RiiingAction
from engine.riiing.cards import RiiingCard, satisfies
from engine.riiing.deck import load_deck
from engine.riiing.view import RiiingView

Slot = frozenset[Card]
"""The card codes one card of a hand is known not to be (empty: nothing known)."""

FREE: Slot = frozenset()
"""A slot about which nothing is known (a card drawn since the last fact)."""


@lru_cache(maxsize=16)
def _cards(deck: str) -> tuple[RiiingCard, ...]:
    """The distinct cards of deck option ``deck`` (RI-1.5), in code order (cached)."""
    codes = sorted({card.code for card in load_deck(deck)})
    return tuple(RiiingCard.parse(code) for code in codes)


@lru_cache(maxsize=4096)
def playable(deck: str, condition: str | None, last: Card) -> Slot:
    """The codes of deck ``deck`` a seat could lay on ``last`` under ``condition`` with no
    demand or phone chain pending: demand cards and Phones always (RI-5.1), number cards
    that meet the condition (RI-3)."""
    top = RiiingCard.parse(last)
    return frozenset(
        card.code
        for card in _cards(deck)
        if card.kind != "number" or satisfies(card, top, condition)
    )


@lru_cache(maxsize=64)
def of_symbol(deck: str, symbol: str) -> Slot:
    """The codes of deck ``deck`` whose symbol is ``symbol`` (demand cards included, RI-1.4)."""
    return frozenset(card.code for card in _cards(deck) if card.symbol == symbol)


class HandTracker:
    """The hand slots of every seat but ``seat`` (module docstring), kept up to date by
    :meth:`update` with each public action.  ``slots[s]`` is seat ``s``'s list of slots,
    oldest first (empty for ``seat`` itself, whose hand it knows)."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.slots: dict[Seat, list[Slot]] = {}

    def update(self, before: RiiingView, action: RiiingAction, after: RiiingView) -> None:
        """Take in one applied ``action`` between the table's public views ``before`` and
        ``after`` (``seat=None`` views; a seat's own view works too, its hand unused).
        Never raises for a history it cannot follow: it drops facts instead."""
        counts = before.hand_counts
        if not self.slots:
            self.slots = {s: [FREE] * n for s, n in enumerate(counts) if s != self.seat}
        deck = before.deck
        kind = action.kind
        actor = action.seat if kind in ("slap", "falseslap") else before.to_move
        if kind == "play" and action.card is not None and actor in self.slots:
            self._lay(actor, frozenset((action.card.code,)))
        elif kind == "draw" and actor in self.slots:
            if before.demand is not None:
                exclude = of_symbol(deck, before.demand)
                self._learn(actor, exclude)  # RI-5.3: no card of the demanded symbol
                self._fit(actor, after.hand_counts[actor], new=exclude)
            elif not before.phones:
                cannot = playable(deck, before.condition, before.last_card)
                self._learn(actor, cannot)  # RI-4.2: nothing it held was playable
        elif kind == "slap" and actor in self.slots and before.window is not None:
            symbol = of_symbol(deck, before.window)
            laid = len(self.slots[actor]) - after.hand_counts[actor]
            for _ in range(max(0, laid)):
                self._lay(actor, symbol)
            self._learn(actor, symbol)  # RI-6.3: every card of the symbol was discarded
        for s, slots in self.slots.items():
            if s < len(after.hand_counts):
                self._fit(s, after.hand_counts[s])
            else:
                slots.clear()

    def hand(self, s: Seat) -> Sequence[Slot]:
        """Seat ``s``'s slots, oldest first (``()`` when nothing is tracked for it)."""
        return self.slots.get(s, ())

    # ------------------------------------------------------------------ slots
    def _learn(self, s: Seat, exclude: Slot) -> None:
        """Every card seat ``s`` holds now is none of ``exclude``."""
        self.slots[s] = [slot | exclude for slot in self.slots[s]]

    def _lay(self, s: Seat, card: Slot) -> None:
        """Seat ``s`` laid one card, one of the codes ``card``: remove the most constrained
        slot that allows one of them, else (a fact was wrong) the least constrained one."""
        slots = self.slots[s]
        if not slots:
            return
        best = -1
        for i, slot in enumerate(slots):
            if not card <= slot and (best < 0 or len(slot) > len(slots[best])):
                best = i
        if best < 0:
            best = min(range(len(slots)), key=lambda i: len(slots[i]))
        del slots[best]

    def _fit(self, s: Seat, count: int, new: Slot = FREE) -> None:
        """Bring seat ``s``'s slots to its public card ``count``: new cards are ``new``
        slots; cards gone without a tracked lay take the most constrained slots with them."""
        slots = self.slots[s]
        while len(slots) < count:
            slots.append(new)
        while len(slots) > count:
            del slots[max(range(len(slots)), key=lambda i: len(slots[i]))]

"""Riiing! computer players.  Each decides from its own seat's :class:`RiiingView` only
(architecture: hidden information) and the legal actions it is offered; slap windows are
decided by the device from each bot's sampled ``reaction_ns()`` (``RiiingGame.autoplay``).

- :class:`RandomBot`: a uniformly random legal action (the device RNG).
- :class:`HeuristicBot`: plays so that the condition it leaves is hard to meet.  The
  condition stays the same for the next seat (a play does not touch the draw pile, RI-3.1),
  so under ``>`` it lays its highest playable number, under ``<`` its lowest; under ``~``
  and ``=`` it gets rid of the symbol or number it holds least of; it keeps demand cards
  and Phones (always playable, RI-5.1) for a turn with no other play, answers a phone chain
  with a Phone (RI-5.4) and a demand with a demand card, passing it on (RI-5.3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.core import Bot
from engine.riiing.actions import RiiingAction
from engine.riiing.cards import RiiingCard
from engine.riiing.view import RiiingView


class RandomBot(Bot[RiiingView, RiiingAction]):
    """Chooses uniformly among ``legal`` with the device RNG ``self.rng``."""

    kind = "random"

    def choose(self, view: RiiingView, legal: Sequence[RiiingAction]) -> RiiingAction:
        """One of ``legal`` (non-empty), uniformly at random."""
        return self.rng.choice(list(legal))


class HeuristicBot(Bot[RiiingView, RiiingAction]):
    """Chooses by the scores of the module docstring; ties go to the first in ``legal``
    (sorted), so the choice is deterministic given the view."""

    kind = "heuristic"

    def choose(self, view: RiiingView, legal: Sequence[RiiingAction]) -> RiiingAction:
        """The best-scored action of ``legal`` (non-empty) for this view."""
        if len(legal) == 1:
            return legal[0]
        hand = [RiiingCard.parse(code) for code in view.hand]
        symbols = Counter(card.symbol for card in hand)
        numbers = Counter(card.number for card in hand)

        def score(action: RiiingAction) -> float:
            card = action.card
            if card is None:
                return -100.0  # take, draw, slap: only when nothing else is offered
            if view.phones:
                return 50.0 if card.kind == "phone" else 0.0
            if view.demand is not None:
                return 40.0 if card.kind == "demand" else 30.0 - (card.number or 0) / 10
            if card.kind == "demand":
                return -10.0
            if card.kind == "phone":
                return -20.0
            number = card.number or 0
            cond = view.condition
            if cond == ">":
                return float(number)
            if cond == "<":
                return float(10 - number)
            if cond == "~":
                return 10.0 - symbols[card.symbol]
            if cond == "=":
                return 10.0 - numbers[card.number]
            return 5.0 - symbols[card.symbol] / 10

        return max(legal, key=score)

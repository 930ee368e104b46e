"""Riiing! computer players.  Each decides from its own seat's :class:`RiiingView` only
(docs/architecture.md "Hidden information") and the legal actions it is offered; slap windows are
decided by the device from each bot's sampled ``reaction_ns()`` (``RiiingGame.autoplay``).

- :class:`RandomBot`: a uniformly random legal action (the device RNG).
- :class:`HeuristicBot`: keeps its demand cards and Phones for a turn with no other play.
  They are playable whatever the condition (RI-5.1) and a seat holding one may not draw
  (RI-4.2), so each one kept saves a draw later.  That is the one choice that matters
  much in this luck-heavy game: the bot wins 60.5% of 10,000 seeded 2-seat games against
  :class:`RandomBot` (60.7% before reverses stopped a demand's drawing and a take's flip,
  RI-5.3/RI-5.4), and would win about 44% if it played them first; which number card
  it lays moves the rate by less than one point (``bench/bench_engine.py`` prints it).  Among
  number cards it lays one of the symbol it holds most of, so that it keeps a card of
  every symbol for a demand (RI-5.3), and between those the hardest for the next seat to
  follow under the same condition (RI-3.1): the highest under ``>``, the lowest under
  ``<``.  Under a demand it plays a number card and keeps its demand card; in a phone
  chain it passes the chain on with a Phone rather than take (RI-5.4).
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
    """Chooses the best-scored action by the rules of the module docstring; equal scores
    go to the first in ``legal`` (sorted), so the choice depends on the view alone."""

    kind = "heuristic"

    def choose(self, view: RiiingView, legal: Sequence[RiiingAction]) -> RiiingAction:
        """The best-scored action of ``legal`` (non-empty) for this view."""
        if len(legal) == 1:
            return legal[0]
        symbols = Counter(RiiingCard.parse(code).symbol for code in view.hand)
        follow = view.condition if view.demand is None else None

        def score(action: RiiingAction) -> float:
            card = action.card
            if card is None:
                return -100.0  # take (RI-5.4): only without a Phone to pass the chain on
            if card.kind != "number":
                return 50.0 if view.phones else -10.0
            number = card.number or 0
            hard = number if follow == ">" else 10 - number if follow == "<" else 0
            return symbols[card.symbol] + hard / 100

        return max(legal, key=score)

"""A Riiing! player that sees the other hands: the bench's ceiling for what any decision
rule could win in 2-seat Riiing! against the heuristic (``bench/bench_strength.py``).

It is told the true position (never a device player: it cheats on purpose).  It knows
every hand and the draw pile's top card; the order below the top and the shuffle seed
stay unknown and are sampled.  For each legal action it plays
:data:`SAMPLES` sampled continuations to the end with the heuristic's rule for every seat
(:func:`heuristic_action`, the fast path's mirror of ``engine.riiing.bots.HeuristicBot``;
windows go to a uniformly random slapper) and takes the action that won most often, the
same samples for every action (perfect-information Monte Carlo, Ginsberg's GIB, 2001).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.core import Bot
from engine.riiing import RiiingAction, RiiingPosition
from engine.riiing._fast import DRAW, SLAP, TAKE, FastState

SAMPLES = 40
"""Sampled draw piles per decision."""

LIMIT = 400
"""Actions after which a continuation counts as lost (games last about 30)."""


def heuristic_action(state: FastState) -> int:
    """The action ``engine.riiing.bots.HeuristicBot`` takes in ``state`` (no window open):
    keep demand cards and Phones for a turn without a number card (pass a phone chain on),
    lay a number card of the symbol held most, the highest under ``>`` and the lowest
    under ``<`` (the first best in id order, as the bot's sorted legal actions)."""
    legal = state.legal()
    if len(legal) == 1:
        return legal[0]
    table = state.table
    symbols = Counter(table.symbol[c] for c in state.hands[state.to_move])
    back = table.cards[state.draw[-1]].back if state.draw else None
    follow = back if state.demand < 0 else None

    def score(action: int) -> float:
        if action < 0:
            return -100.0
        if table.kind[action] != 0:
            return 50.0 if state.phones else -10.0
        number = table.cards[action].number or 0
        hard = number if follow == ">" else 10 - number if follow == "<" else 0
        return symbols[table.symbol[action]] + hard / 100

    return max(legal, key=score)


def _copy(state: FastState) -> FastState:
    twin = FastState.__new__(FastState)
    for name in FastState.__slots__:
        setattr(twin, name, getattr(state, name))
    twin.hands = [list(hand) for hand in state.hands]
    twin.draw = list(state.draw)
    twin.discard = list(state.discard)
    return twin


def _finish(state: FastState, rng: random.Random) -> int:
    """Play ``state`` to its end by :func:`heuristic_action`; the winner (-1: too long)."""
    for _ in range(LIMIT):
        if state.winner >= 0:
            break
        if state.window >= 0:
            state.step(SLAP - int(rng.random() * state.seats))
        else:
            state.step(heuristic_action(state))
    return state.winner


class SeeingBot(Bot[Any, RiiingAction]):
    """The ceiling player (module docstring).  Before each ``choose`` the bench sets
    :attr:`position` to the true position."""

    kind = "seeing"
    position: RiiingPosition | None = None

    def choose(self, view: Any, legal: Sequence[RiiingAction]) -> RiiingAction:
        """The action whose sampled continuations won most often (ties: the first)."""
        if len(legal) == 1 or self.position is None:
            return legal[0]
        true = FastState.from_position(self.position)
        table = true.table
        ids = [
            table.ids[a.card.code] if a.card is not None else DRAW if a.kind == "draw" else TAKE
            for a in legal
        ]
        wins = [0] * len(ids)
        for _ in range(SAMPLES):
            sample = _copy(true)
            if sample.draw:
                top, rest = sample.draw[-1], sample.draw[:-1]
                self.rng.shuffle(rest)
                sample.draw = [*rest, top]
            sample.seed = self.rng.getrandbits(32)
            luck = self.rng.getrandbits(32)
            for i, action in enumerate(ids):
                state = _copy(sample)
                state.step(action)
                wins[i] += _finish(state, random.Random(luck)) == self.seat
        return legal[wins.index(max(wins))]

"""The ``"hard"`` Right on Time computer player: SO-ISMCTS (:mod:`engine.ismcts`) over its
own :class:`~engine.right_on_time.view.RightOnTimeView` only, on the private fast path
(:func:`engine.right_on_time.rules.random_playout` on a mutable
:class:`~engine.right_on_time.rules.Table`).

What the view shows and a determinization keeps: the seat's own hand and bonus cards,
every seat's card and bonus-card counts, the cards each seat showed under RT-5.1 and still
holds (public), the pile sizes, the top of the discard pile (RT-1.3), round, scores, who
is out (RT-6.1), the options (the deck among them), the discard pile (laid face up).  The
other hands beyond their shown cards, the other seats' bonus cards (RT-6.3: face down) and
the draw pile's order are sampled from the deck's cards the seat cannot see.

The search's horizon is the end of the round in play (RT-2.4, RT-6.2); its reward is each
seat's chance to win the match from the scores then (:func:`match_odds`, RT-7.1).  The
playouts' default policy is in :meth:`RightOnTimeSearch.playout`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from engine.core import Bot, Card
from engine.ismcts import Search, search
from engine.right_on_time.actions import DRAW_MOVE, Move, RotAction, to_move_tuple
from engine.right_on_time.bots import HeuristicBot
from engine.right_on_time.cards import load_deck, unjoker
from engine.right_on_time.options import RotOptions
from engine.right_on_time.rules import Table, apply_move, gen_moves, random_move
from engine.right_on_time.view import RightOnTimeView

ITERATIONS = 300
"""Iterations per decision (fixed, so a match replays from its seed); about 25 ms of CPU
a decision on the bench machine (median; ``bench/bench_strength.py`` prints the spread),
well inside the 80 ms that stand for 250 ms on a Raspberry Pi."""


CONFIDENCE = 2.5
"""Standard errors by which the search must beat the heuristic's choice to override it
(:func:`engine.ismcts.search`)."""

TRIES = 3
"""Uniform picks a playout move is chosen from (:meth:`RightOnTimeSearch.playout`)."""

PLAYOUT_LIMIT = 500
"""Moves after which a playout stops and the round counts as stalled."""


class RightOnTimeSearch(Search[Table, Move]):
    """One decision of the seat whose ``view`` this is (the seat to move)."""

    def __init__(self, view: RightOnTimeView) -> None:
        seat = view.seat
        if seat is None or view.to_move != seat or view.winner is not None:
            raise ValueError(f"hard bot: the view of seat {seat!r} is not the seat to move")
        self.view = view
        self.seat = seat
        self.options = RotOptions.from_items(view.options)
        pool = Counter(load_deck(self.options.deck))
        known: list[Card] = [*view.hand, *view.bonus]
        below = list(view.discard[:-1])
        if len(view.discard) != view.discard_count or view.discard[-1:] != (
            () if view.top is None else (view.top,)
        ):
            below = []  # a view without the pile: its lower cards are sampled too
        self.below = below
        known += [unjoker(c) for c in below]
        if view.top is not None:
            known.append(unjoker(view.top))
        for s, shown in enumerate(view.shown):
            if s != seat:
                known.extend(shown)
        for card in known:
            if pool[card] > 0:
                pool[card] -= 1
        self.pool = sorted(pool.elements())
        self.round = view.round

    def determinize(self, rng: random.Random) -> Table:
        """The other hands (their shown cards kept), the other bonus cards, the draw pile
        and the discard pile below its top, sampled from the unseen cards; a new seed."""
        view = self.view
        unseen = list(self.pool)
        rng.shuffle(unseen)
        hands: list[list[Card]] = []
        bonus: list[list[Card]] = []
        for s in range(view.seats):
            if s == self.seat:
                hands.append(list(view.hand))
                bonus.append(list(view.bonus))
                continue
            shown = list(view.shown[s]) if s < len(view.shown) else []
            hidden = max(0, view.hand_counts[s] - len(shown))
            hands.append(shown + unseen[:hidden])
            del unseen[:hidden]
            count = view.bonus_counts[s]
            bonus.append(unseen[:count])
            del unseen[:count]
        discard: list[Card] = []
        if self.below:
            discard = [*self.below, view.top] if view.top is not None else []
        elif view.top is not None:
            below = max(0, view.discard_count - 1)
            discard = ["J1" if c == "J" else c for c in unseen[:below]]  # RT-1.4 on the pile
            del unseen[:below]
            discard.append(view.top)
        table = Table.__new__(Table)
        table.seats = view.seats
        table.options = self.options
        table.hands = hands
        table.draw = unseen[: view.draw_count]
        table.discard = discard
        table.to_move = self.seat
        table.seed = rng.getrandbits(32)
        table.round = view.round
        table.scores = list(view.scores)
        table.out = list(view.out)
        table.bonus = bonus
        table.winner = None
        table.shown = [list(s) for s in view.shown] or [[] for _ in range(view.seats)]
        return table

    def legal(self, state: Table) -> Sequence[Move]:
        """The legal moves of the seat to move (:func:`gen_moves`)."""
        return gen_moves(state)

    def to_move(self, state: Table) -> int | None:
        """The seat to move, ``None`` once the round in play is over (or the match)."""
        if state.round != self.round or state.winner is not None:
            return None
        return state.to_move

    def step(self, state: Table, action: Move, rng: random.Random) -> None:
        """Apply ``action`` (no chance between moves in Right on Time)."""
        apply_move(state, action, None)

    def playout(self, state: Table, rng: random.Random) -> list[float]:
        """The default policy to the end of the round in play (at most
        :data:`PLAYOUT_LIMIT` moves); its rewards.

        Each move is the best of :data:`TRIES` uniform picks of the fast path
        (:func:`random_move`) by the heuristic's first rule: with 3+ seats and nobody out,
        a move that empties the hand counts against it (the first seat out gets no point,
        RT-6.2); once a seat is out, or with 2 seats (RT-9.2), a move that empties the hand
        wins; among the rest, laying more cards is better."""
        uniform = rng.random
        start = state.round
        many = state.seats > 2
        for _ in range(PLAYOUT_LIMIT):
            if state.winner is not None or state.round != start:
                break
            seat = state.to_move
            assert seat is not None
            size = len(state.hands[seat])
            race = not many or bool(state.out)
            best: Move = DRAW_MOVE
            best_score = -100
            for _try in range(TRIES):
                move = random_move(state, uniform)
                if move[0] != "p":
                    score = -1
                else:
                    laid = len(move[1])  # type: ignore[arg-type]
                    empties = laid == size and not (move[3] == "@" and move[4] == seat)
                    score = laid + (10 if empties == race else -10 if empties else 0)
                if score > best_score:
                    best, best_score = move, score
            apply_move(state, best, None)
        return self.rewards(state)

    def rewards(self, state: Table) -> list[float]:
        """Each seat's chance to win the match from the scores after the round
        (:func:`match_odds`; RT-6.2, RT-7.1, RT-9.2): winning a round is worth the most
        when it decides the match, and denying a leader counts too."""
        return list(match_odds(tuple(state.scores), self.options.target_points))


MAX_ODDS_STATES = 50_000
"""Score tables larger than this (``target_points ** seats``) value a round simply."""


@lru_cache(maxsize=4096)
def match_odds(scores: tuple[int, ...], target: int) -> tuple[float, ...]:
    """Each seat's chance to win the match (first to ``target`` points, RT-7.1) from
    ``scores`` if every later round went to a seat chosen uniformly at random; a seat at
    ``target`` has 1.  Tables larger than :data:`MAX_ODDS_STATES` fall back to the points
    themselves (the leader's share).

    >>> match_odds((2, 0, 0), 3)[0] > match_odds((1, 0, 0), 3)[0] > 1 / 3
    True
    >>> match_odds((3, 1, 0), 3)
    (1.0, 0.0, 0.0)
    """
    seats = len(scores)
    for seat, points in enumerate(scores):
        if points >= target:
            return tuple(1.0 if s == seat else 0.0 for s in range(seats))
    if target**seats > MAX_ODDS_STATES:
        total = sum(scores) + seats
        return tuple((points + 1) / total for points in scores)
    odds = [0.0] * seats
    for winner in range(seats):
        after = list(scores)
        after[winner] += 1
        for s, p in enumerate(match_odds(tuple(after), target)):
            odds[s] += p / seats
    return tuple(odds)


class HardBot(Bot[RightOnTimeView, RotAction]):
    """SO-ISMCTS over the seat's own view (module docstring), :data:`ITERATIONS`
    iterations a decision, every random draw from ``self.rng``.  The heuristic's choice
    (:class:`~engine.right_on_time.bots.HeuristicBot`, its ties broken by ``self.rng``)
    stands unless the search beats it by :data:`CONFIDENCE` standard errors.  A single
    legal action is taken without searching; a view that is not this seat's turn gets
    the first legal action."""

    kind: ClassVar[str] = "hard"
    iterations: int = ITERATIONS

    def choose(self, view: RightOnTimeView, legal: Sequence[RotAction]) -> RotAction:
        """The search's choice among ``legal`` (non-empty)."""
        if len(legal) == 1:
            return legal[0]
        if view.seat != self.seat or view.to_move != self.seat or view.winner is not None:
            return legal[0]  # not a turn of this seat: nothing to search
        fallback = HeuristicBot(self.seat, self.rng).choose(view, legal)
        moves = [to_move_tuple(action) for action in legal]
        default = to_move_tuple(fallback)
        best = search(
            RightOnTimeSearch(view), moves, self.iterations, self.rng,
            default=default, confidence=CONFIDENCE,
        )  # fmt: skip
        return legal[moves.index(best)]

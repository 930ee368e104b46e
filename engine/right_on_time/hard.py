"""The ``"hard"`` Right on Time computer player: SO-ISMCTS (:mod:`engine.ismcts`) over its
own :class:`~engine.right_on_time.view.RightOnTimeView` only, on the private fast path
(:func:`engine.right_on_time.rules.gen_moves` and ``apply_move`` on a mutable
:class:`~engine.right_on_time.rules.Table`).

What the view shows and a determinization keeps: the seat's own hand and bonus cards,
every seat's card and bonus-card counts, the cards each seat showed under RT-5.1 and still
holds (public), the pile sizes, the top of the discard pile (RT-1.3), round, scores, who
is out (RT-6.1), the options (the deck among them), the discard pile (laid face up).  The
other hands beyond their shown cards, the other seats' bonus cards (RT-6.3: face down) and
the draw pile's order are sampled from the deck's cards the seat cannot see.

The search's horizon is the end of the round in play (RT-2.4, RT-6.2); its reward is each
seat's chance to win the match from the scores then (:func:`match_odds`, RT-7.1).  The
playouts' default policy is the heuristic's rules in a cheap form
(:meth:`RightOnTimeSearch.policy_move`): played against two heuristic players it wins
about a fifth of 3-seat matches, where the best of three uniform picks won 9%, so the
playouts model the table far better.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from engine._common import STANDARD_DECK
from engine.core import Bot, Card
from engine.ismcts import Search, search
from engine.right_on_time.actions import Move, RotAction, to_move_tuple
from engine.right_on_time.bots import (
    WIN,
    HeuristicBot,
    empty_chance,
    next_seat,
    ready_chance,
    risk_chance,
)
from engine.right_on_time.cards import VALUE, load_deck, unjoker
from engine.right_on_time.options import RotOptions
from engine.right_on_time.rules import Table, apply_move, gen_moves
from engine.right_on_time.view import RightOnTimeView

ITERATIONS = 400
"""Iterations per decision at most (fixed, so a match replays from its seed); most
decisions end at :data:`MOVES` first."""

MOVES = 20_000
"""The decision's budget in work (:func:`engine.ismcts.search`'s ``moves``): every move
the playouts generate and score counts one, every tree step one.  About 35 ms of CPU on
the bench machine, at most about 60 (``bench/bench_strength.py`` prints the spread),
inside the 80 ms that stand for 250 ms on a Raspberry Pi, however many cards are in the
hands (a 7-card hand has many more lays to score than a 2-card one).  Counted, not timed:
reproducible."""

CONFIDENCE = 1.5
"""Standard errors by which the search must beat the heuristic's choice to override it
(:func:`engine.ismcts.search`).  Chosen on 600 seeded 3-seat matches against two
heuristic players: 38.7% won with 1.5, 36.8% with 0 (the search alone); with 2.5 it
hardly ever overrode the heuristic (34.4% over the bench's 2000 matches)."""

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
        self.deck = str(dict(view.options).get("deck", STANDARD_DECK))

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
        """Apply ``action`` (no chance between moves in Right on Time); one unit of work."""
        apply_move(state, action, None)
        self.spent += 1

    def playout(self, state: Table, rng: random.Random) -> list[float]:
        """The default policy (:meth:`policy_move` for every seat) to the end of the round
        in play (at most :data:`PLAYOUT_LIMIT` moves); its rewards."""
        start = state.round
        played = 0
        while played < PLAYOUT_LIMIT and state.winner is None and state.round == start:
            apply_move(state, self.policy_move(state, rng), None)
            played += 1
        return self.rewards(state)

    def policy_move(self, state: Table, rng: random.Random) -> Move:
        """The playouts' move for the seat to move: the best of all its legal moves by the
        heuristic's rules in their cheap form (``engine.right_on_time.bots``, its chance
        tables), ties broken by ``rng``:

        - nobody out, 3+ seats: never empty the hand (the first seat out gets no point,
          RT-6.2); keep a hand that will not be forced out next turn and can empty once
          another seat is out; shed steadily; give the turn (Du bist!) to seats with few
          cards, make seats with many cards draw (Ziehen!, RT-4);
        - a seat out, or 2 seats (RT-9.2): empty the hand if possible; else keep a hand
          that can empty next turn and leave the next seat a top it is unlikely to empty
          on; fewer cards are better;
        - a draw or a bonus swap only when nothing else is legal (RT-5.1, RT-6.4)."""
        moves = gen_moves(state)
        self.spent += len(moves)  # the work: every move generated and scored
        if len(moves) == 1:
            return moves[0]
        seat = state.to_move
        assert seat is not None
        hands = state.hands
        hand = hands[seat]
        race = state.seats <= 2 or bool(state.out)
        uniform = rng.random
        best = moves[0]
        best_value = -1e18
        for move in moves:
            if move[0] != "p":
                value = -1e6 if move[0] == "d" else -2e6  # a bonus card is kept for a race
            else:
                laid: tuple[Card, ...] = move[1]  # type: ignore[assignment]
                kind = move[3]
                target: int = move[4]  # type: ignore[assignment]
                kept = list(hand)
                for card in laid:
                    kept.remove(card)
                if kind == "@" and target == seat:
                    kept.append("?")
                if not kept:
                    value = WIN if race else -WIN
                elif race:
                    pile: tuple[Card, ...] = move[2]  # type: ignore[assignment]
                    top = VALUE[pile[-1]]
                    nxt = target if kind == ">" else next_seat(state.seats, state.out, seat)
                    count = len(hands[nxt]) + (kind == "@" and target == nxt)
                    danger = empty_chance(self.deck, count, top) if nxt != seat else 0.0
                    ready = ready_chance(kept) if len(kept) < 3 else 0.0
                    value = 1000.0 * (1.0 - danger) * (0.3 + ready) - 10.0 * len(kept)
                else:
                    value = -200.0 * risk_chance(kept) + 20.0 * ready_chance(kept) - 5.0 * len(kept)
                    if kind == "@" and target != seat:
                        value -= 15.0 / max(1, len(hands[target]))
                    elif kind == ">":
                        value += 10.0 / max(1, len(hands[target]))
            value += 1e-6 * uniform()
            if value > best_value:
                best, best_value = move, value
        return best

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
    moves: int | None = MOVES

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
            default=default, confidence=CONFIDENCE, moves=self.moves,
        )  # fmt: skip
        return legal[moves.index(best)]

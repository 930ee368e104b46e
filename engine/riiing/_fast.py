"""PRIVATE, UNCHECKED fast path for Riiing! playouts (bots' search, benchmarks, tests).

Not part of the engine's API: nothing here validates input, and the device never applies
actions through it.  :class:`FastState` is a mutable copy of a position with integer card
ids; ``legal()`` and ``step()`` follow ``engine.riiing.rules`` exactly (RI-3 .. RI-8, the
same RNG protocol), which ``tests/engine/test_riiing_fast.py`` proves by playing seeded
random games through both paths and comparing the positions after every action.

Card ids are assigned in code order, so a play list sorted by id is sorted by its text,
and ``legal()`` returns actions in the same order as ``rules.legal`` does.  Actions are
ints: a card id ``c >= 0`` is ``play <card c>``; :data:`DRAW`, :data:`TAKE`,
:data:`TIMEOUT`; ``SLAP - s`` is ``slap s`` and ``FALSESLAP - s`` is ``falseslap s``.
The draw pile is kept reversed (its top is the last element).

:func:`census_playout` plays random games while a :class:`ReverseCensus` counts where the
special reverses went (windows, or passed through the top unseen, RI-6.1): the bench's
"windows per reverse" figure and the test of its 100% property.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

from engine.core import FastPath, shuffle
from engine.riiing.cards import SYMBOLS, RiiingCard, satisfies
from engine.riiing.deck import load_deck
from engine.riiing.position import Demand, RiiingOptions, RiiingPosition

DRAW = -1
"""Action id of ``draw``."""
TAKE = -2
"""Action id of ``take``."""
TIMEOUT = -3
"""Action id of ``timeout``."""
SLAP = -10
"""``SLAP - s`` is the action id of ``slap s`` (s = 0..5)."""
FALSESLAP = -20
"""``FALSESLAP - s`` is the action id of ``falseslap s`` (s = 0..5)."""

_NONE = -1
_PHONE_SYMBOL = 4
_KIND_NUMBER, _KIND_DEMAND, _KIND_PHONE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class CardTable:
    """The integer encoding of a set of card codes (ids in code order) and the lookup
    tables the fast path plays from.

    - ``cards``/``codes``: id -> card / code; ``ids``: code -> id
    - ``symbol``: id -> 0..3 (``SYMBOLS`` order) or 4 for the Phone
    - ``kind``: id -> 0 number, 1 demand card, 2 Phone
    - ``reverse``: id -> the reverse's symbol index, or -1
    - ``back``: id -> index of its back in ``ok``; ``open_back``: index of the open
      condition (an empty draw pile, RI-3.5)
    - ``ok[back][last]``: the ids that may be played on ``last`` under that back with no
      demand pending (RI-3, RI-5.1)
    - ``of_symbol[s]``: the ids of symbol s (RI-5.3, RI-6.3); ``phones``: the Phones (RI-5.4)
    """

    cards: tuple[RiiingCard, ...]
    codes: tuple[str, ...]
    ids: dict[str, int]
    symbol: tuple[int, ...]
    kind: tuple[int, ...]
    reverse: tuple[int, ...]
    back: tuple[int, ...]
    open_back: int
    ok: tuple[tuple[frozenset[int], ...], ...]
    of_symbol: tuple[frozenset[int], ...]
    phones: frozenset[int]


@lru_cache(maxsize=64)
def card_table(codes: frozenset[str]) -> CardTable:
    """The :class:`CardTable` of a set of card ``codes`` (cached)."""
    cards = tuple(RiiingCard.parse(code) for code in sorted(codes))
    backs = sorted({card.back for card in cards})
    conditions: list[str | None] = [*backs, None]
    kinds = {"number": _KIND_NUMBER, "demand": _KIND_DEMAND, "phone": _KIND_PHONE}

    def playable(last: RiiingCard, cond: str | None) -> frozenset[int]:
        return frozenset(
            index
            for index, card in enumerate(cards)
            if card.kind != "number" or satisfies(card, last, cond)
        )

    return CardTable(
        cards=cards,
        codes=tuple(card.code for card in cards),
        ids={card.code: index for index, card in enumerate(cards)},
        symbol=tuple(
            _PHONE_SYMBOL if card.symbol is None else SYMBOLS.index(card.symbol) for card in cards
        ),
        kind=tuple(kinds[card.kind] for card in cards),
        reverse=tuple(
            _NONE if card.reverse is None else SYMBOLS.index(card.reverse) for card in cards
        ),
        back=tuple(backs.index(card.back) for card in cards),
        open_back=len(backs),
        ok=tuple(tuple(playable(last, cond) for last in cards) for cond in conditions),
        of_symbol=tuple(
            frozenset(i for i, card in enumerate(cards) if card.symbol == symbol)
            for symbol in SYMBOLS
        ),
        phones=frozenset(i for i, card in enumerate(cards) if card.kind == "phone"),
    )


class FastState:
    """A mutable position with integer card ids (see the module docstring).

    Fields mirror :class:`RiiingPosition`: ``hands`` (lists of ids in hand order),
    ``draw`` (ids, REVERSED: top last), ``discard`` (ids, bottom first), ``to_move``,
    ``seed``, ``demand`` (symbol index or -1), ``phones`` (chain length, 0 if none),
    ``window`` (symbol index or -1), ``winner`` (seat or -1; ``to_move`` is -1 then),
    ``opening`` (True until the first turn action, RI-6.3).  Build one with
    :meth:`from_position` or :meth:`new`.
    """

    __slots__ = (
        "demand", "discard", "draw", "hands", "opening", "options", "phones", "seats", "seed",
        "table", "to_move", "window", "winner",
    )  # fmt: skip

    def __init__(
        self,
        table: CardTable,
        options: RiiingOptions,
        hands: list[list[int]],
        draw: list[int],
        discard: list[int],
        to_move: int,
        seed: int,
    ) -> None:
        self.table = table
        self.options = options
        self.seats = len(hands)
        self.hands = hands
        self.draw = draw
        self.discard = discard
        self.to_move = to_move
        self.seed = seed
        self.demand = _NONE
        self.phones = 0
        self.window = table.reverse[draw[-1]] if draw else _NONE
        self.winner = _NONE
        self.opening = False

    @staticmethod
    def from_position(pos: RiiingPosition) -> FastState:
        """A fast copy of ``pos`` (any valid position)."""
        table = card_table(frozenset(card.code for card in pos.cards()))
        ids = table.ids
        state = FastState(
            table,
            pos.options,
            [[ids[card.code] for card in hand] for hand in pos.hands],
            [ids[card.code] for card in reversed(pos.draw)],
            [ids[card.code] for card in pos.discard],
            _NONE if pos.to_move is None else pos.to_move,
            pos.seed,
        )
        demand = pos.demand
        if demand is not None:
            state.demand = _NONE if demand.symbol is None else SYMBOLS.index(demand.symbol)
            state.phones = demand.phones
        state.window = _NONE if pos.window is None else SYMBOLS.index(pos.window)
        state.winner = _NONE if pos.winner is None else pos.winner
        state.opening = pos.opening
        return state

    @staticmethod
    def new(
        seats: int, seed: int, options: RiiingOptions | None = None, first: int = 0
    ) -> FastState:
        """What ``RiiingGame.new`` deals (RI-2), built straight into ids.  Unchecked:
        the arguments must be valid for ``RiiingGame.new``."""
        options = options or RiiingOptions()
        codes = _deck_codes(options.deck)
        table = card_table(frozenset(codes))
        shuffled, seed = shuffle(codes, seed)
        ids = table.ids
        deck = [ids[code] for code in shuffled]
        dealt = seats * options.hand_size
        hands = [deck[seat:dealt:seats] for seat in range(seats)]
        draw = deck[dealt + 1 :]
        draw.reverse()
        state = FastState(table, options, hands, draw, [deck[dealt]], first, seed)
        state.opening = True
        return state

    def position(self) -> RiiingPosition:
        """The immutable :class:`RiiingPosition` of this state."""
        cards = self.table.cards
        demand = None
        if self.demand != _NONE:
            demand = Demand(SYMBOLS[self.demand])
        elif self.phones:
            demand = Demand(phones=self.phones)
        return RiiingPosition(
            seats=self.seats,
            options=self.options,
            hands=tuple(tuple(cards[c] for c in hand) for hand in self.hands),
            draw=tuple(cards[c] for c in reversed(self.draw)),
            discard=tuple(cards[c] for c in self.discard),
            to_move=None if self.to_move == _NONE else self.to_move,
            seed=self.seed,
            demand=demand,
            window=None if self.window == _NONE else SYMBOLS[self.window],
            winner=None if self.winner == _NONE else self.winner,
            opening=self.opening,
        )

    def action_text(self, action: int) -> str:
        """The notation text of an action id (``"play 7C/>"``, ``"slap 2"``)."""
        if action >= 0:
            return f"play {self.table.codes[action]}"
        if action <= FALSESLAP:
            return f"falseslap {FALSESLAP - action}"
        if action <= SLAP:
            return f"slap {SLAP - action}"
        return {DRAW: "draw", TAKE: "take", TIMEOUT: "timeout"}[action]

    def legal(self) -> list[int]:
        """Legal action ids in the order of ``rules.legal`` (empty once won)."""
        if self.window != _NONE:
            return [*range(SLAP, SLAP - self.seats, -1), TIMEOUT]
        if self.winner != _NONE:
            return []
        table = self.table
        hand = self.hands[self.to_move]
        if self.demand != _NONE:
            playable = table.of_symbol[self.demand]
        elif self.phones:
            plays = sorted(table.phones.intersection(hand))
            plays.append(TAKE)
            return plays
        else:
            draw = self.draw
            playable = table.ok[table.back[draw[-1]] if draw else table.open_back][
                self.discard[-1]
            ]
        return sorted(playable.intersection(hand)) or [DRAW]

    def _refill(self) -> None:
        discard = self.discard
        if not self.draw and len(discard) > 1:
            table = self.table
            codes, self.seed = shuffle([table.codes[c] for c in discard[:-1]], self.seed)
            ids = table.ids
            self.draw = [ids[code] for code in reversed(codes)]
            del discard[:-1]

    def _pop(self) -> int:
        """The top card of the draw pile (refilling first), or -1 if there is none."""
        if not self.draw:
            self._refill()
            if not self.draw:
                return _NONE
        return self.draw.pop()

    def _draw_into(self, seat: int, count: int) -> None:
        hand = self.hands[seat]
        for _ in range(count):
            card = self._pop()
            if card == _NONE:
                return
            hand.append(card)

    def step(self, action: int) -> None:
        """Apply ``action`` WITHOUT any check (it must be legal here)."""
        table = self.table
        seat = self.to_move
        left = seat + 1
        if left == self.seats:
            left = 0
        if action >= 0:
            self.opening = False
            hand = self.hands[seat]
            hand.remove(action)
            self.discard.append(action)
            if not hand:
                self._win(seat)
                return
            kind = table.kind[action]
            if kind == _KIND_NUMBER:
                self.demand = _NONE
                self.phones = 0
            elif kind == _KIND_DEMAND:
                self.demand = table.symbol[action]
            else:
                self.phones += 1
            self.to_move = left
        elif action == DRAW:
            self.opening = False
            symbol = self.demand
            if symbol == _NONE:
                self._draw_into(seat, 1)
            else:
                self.demand = _NONE
                of_symbol = table.of_symbol[symbol]
                hand = self.hands[seat]
                reverse = table.reverse
                while True:
                    card = self._pop()
                    if card == _NONE:
                        break
                    if card in of_symbol:
                        self.discard.append(card)
                        if table.kind[card] == _KIND_DEMAND:
                            self.demand = symbol
                        break
                    hand.append(card)
                    if not self.draw:
                        self._refill()
                    if self.draw and reverse[self.draw[-1]] != _NONE:
                        break  # RI-5.3: the reverse shows, the drawing stops (RI-6.1)
            self.to_move = left
        elif action == TAKE:
            self.opening = False
            self._draw_into(seat, self.phones)
            self.phones = 0
            if not self.draw:
                self._refill()
            draw = self.draw
            if draw and table.reverse[draw[-1]] == _NONE:  # RI-5.4: a reverse is not turned
                self.discard.append(self._pop())
            self.to_move = left
        elif action <= FALSESLAP:
            self._draw_into(FALSESLAP - action, self.options.false_slap_penalty)
        else:
            if action != TIMEOUT:
                slapper = SLAP - action
                hand = self.hands[slapper]
                of_symbol = table.of_symbol[self.window]
                kept = [card for card in hand if card not in of_symbol]
                self.discard.extend(card for card in hand if card in of_symbol)
                self.hands[slapper] = kept
                if not kept:
                    self._win(slapper)
                    return
                if not self.opening:
                    self.to_move = slapper + 1 if slapper + 1 < self.seats else 0
            self.discard.append(self.draw.pop())
            self.demand = _NONE
            self.phones = 0
        if not self.draw:
            self._refill()
        draw = self.draw
        self.window = table.reverse[draw[-1]] if draw else _NONE

    def _win(self, seat: int) -> None:
        self.winner = seat
        self.opening = False
        self.to_move = _NONE
        self.window = _NONE
        self.demand = _NONE
        self.phones = 0


class RiiingFastPath(FastPath[RiiingPosition, FastState]):
    """:class:`FastState` as :class:`engine.core.FastPath` sees it (``RiiingGame.fast_path``)."""

    def state(self, pos: RiiingPosition) -> FastState:
        """:meth:`FastState.from_position`."""
        return FastState.from_position(pos)

    def legal(self, state: FastState) -> list[str]:
        """The texts of :meth:`FastState.legal`, in its order."""
        return [state.action_text(action) for action in state.legal()]

    def step(self, state: FastState, text: str) -> None:
        """:meth:`FastState.step` of the legal action spelled ``text``; ``ValueError`` if
        none is."""
        for action in state.legal():
            if state.action_text(action) == text:
                state.step(action)
                return
        raise ValueError(f"not a legal action here: {text!r}")

    def position(self, state: FastState) -> RiiingPosition:
        """:meth:`FastState.position`."""
        return state.position()


def _deck_codes(deck: str) -> tuple[str, ...]:
    return tuple(card.code for card in load_deck(deck))


def random_playout(state: FastState, rng: random.Random, limit: int = 100_000) -> int:
    """Play ``state`` on with uniformly random legal actions (``rng.choice``) until a seat
    wins or ``limit`` actions were applied; returns the number of actions applied."""
    applied = 0
    legal = state.legal
    step = state.step
    choice = rng.choice
    while state.winner == _NONE and applied < limit:
        step(choice(legal()))
        applied += 1
    return applied



@dataclass(slots=True)
class ReverseCensus:
    """Where the special reverses went in census playouts (:func:`census_playout`), counted
    as the table sees the draw pile (RI-6.1).  All fields are counts of reverse cards:

    - ``windows``: reverses that appeared (a window opened, RI-6.1; setup included);
    - ``missed``: reverses that left the draw pile without a window from a point where play
      pauses (the top at the end of an action, after a demand draw's card, after a take
      before its flip); the rules leave none;
    - ``inside``: reverses that passed through the top inside one step, as the second or a
      later card of a take (RI-5.4) or a false-slap penalty (RI-6.5);
    - ``reshuffled``: reverses drawn as the first card of a step right after a reshuffle
      (RI-8.1);
    - ``stop_windows``: windows opened where a step stops at a reverse, which the step
      would otherwise pass by unseen: a demand's draw-until that stopped at it (RI-5.3), a
      take that left it unturned (RI-5.4);
    - ``by_step``: ``windows`` split by the action that opened them (``"setup"``,
      ``"draw-until"``, ``"take"``, ``"other"``).
    """

    windows: int = 0
    missed: int = 0
    inside: int = 0
    reshuffled: int = 0
    stop_windows: int = 0
    by_step: dict[str, int] = field(default_factory=dict)

    @property
    def reached(self) -> int:
        """Reverses that reached the top of the draw pile where play pauses."""
        return self.windows + self.missed

    @property
    def percent(self) -> float:
        """Windows per reverse that reached the top where play pauses, in % (100 if none)."""
        return 100.0 * self.windows / self.reached if self.reached else 100.0


class _CensusState(FastState):
    """A :class:`FastState` that reports every reverse leaving the draw pile to a census."""

    __slots__ = ("_pops", "_refilled", "_takes", "_taking", "census")

    def __init__(self, state: FastState, census: ReverseCensus) -> None:
        super().__init__(
            state.table, state.options, state.hands, state.draw, state.discard, state.to_move,
            state.seed,
        )
        self.window, self.winner = state.window, state.winner
        self.demand, self.phones = state.demand, state.phones
        self.opening = state.opening
        self.census = census
        self._pops = self._takes = 0
        self._refilled = self._taking = False

    def _refill(self) -> None:
        super()._refill()
        self._refilled = bool(self.draw)

    def _pop(self) -> int:
        card = super()._pop()
        if card != _NONE:
            if self.table.reverse[card] != _NONE:
                census = self.census
                if self._taking and 0 < self._pops < self._takes:
                    census.inside += 1
                elif self._pops == 0 and self._refilled:
                    census.reshuffled += 1
                else:
                    census.missed += 1
            self._pops += 1
        self._refilled = False
        return card

    def step(self, action: int) -> None:
        """``FastState.step``, counting where reverses go (see :class:`ReverseCensus`)."""
        until = action == DRAW and self.demand != _NONE
        self._taking = action == TAKE or FALSESLAP - 5 <= action <= FALSESLAP
        self._takes = self.phones if action == TAKE else self.options.false_slap_penalty
        self._pops, self._refilled = 0, False
        seat = self.to_move
        before = len(self.hands[seat]) if seat != _NONE else 0
        super().step(action)
        if self.window == _NONE:
            return
        census = self.census
        census.windows += 1
        kind = "other"
        if until:
            kind = "draw-until"
            if self._pops == len(self.hands[seat]) - before:  # every drawn card kept
                census.stop_windows += 1
        elif action == TAKE:
            kind = "take"
            if self._pops == len(self.hands[seat]) - before:  # nothing turned
                census.stop_windows += 1
        census.by_step[kind] = census.by_step.get(kind, 0) + 1


def census_playout(
    state: FastState, rng: random.Random, census: ReverseCensus, false_slaps: float = 0.0
) -> int:
    """Play ``state`` (unchanged: a copy plays) to its end with uniformly random legal
    actions (``rng.choice``), and with probability ``false_slaps`` per action outside a
    window (penalty option on) a false slap by a random seat; ``census`` counts where the
    reverses went (:class:`ReverseCensus`).  Returns the number of actions applied."""
    copy = FastState.from_position(state.position())
    playing = _CensusState(copy, census)
    if playing.window != _NONE:
        census.windows += 1
        census.by_step["setup"] = census.by_step.get("setup", 0) + 1
    applied = 0
    penalty = playing.options.false_slap_penalty > 0
    while playing.winner == _NONE:
        if false_slaps and penalty and playing.window == _NONE and rng.random() < false_slaps:
            playing.step(FALSESLAP - rng.randrange(playing.seats))
        else:
            playing.step(rng.choice(playing.legal()))
        applied += 1
    return applied

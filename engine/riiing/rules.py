"""Riiing! rules as pure functions on :class:`RiiingPosition`: setup (RI-2), legal actions
(RI-3 .. RI-6), the checked ``apply`` (RI-3 .. RI-8), views and the outcome (RI-7).

Every ``apply`` returns the new position and the :class:`engine.core.Event` values of what
happened, in order.  Event kinds:

=============  ===========================================================================
kind           fields
=============  ===========================================================================
``play``       ``seat`` laid ``cards=(card,)`` (RI-4.1, RI-5; also the demanded card a
               ``draw`` under a demand plays at once, RI-5.3)
``draw``       ``seat`` drew ``cards`` into its hand (private to that seat: the table shows
               only how many); ``cards=()`` when the piles were dry (RI-8.2).  A ``draw``
               under a demand lists the cards kept, not the one it played; like ``take``
               and ``falseslap`` it is split in two at a mid-action ``shuffle``
``take``       ``seat`` took ``cards`` (private) answering a chain of ``value`` Phones (RI-5.4)
``flip``       ``cards=(card,)`` turned from the draw pile face up onto the discard pile:
               after ``take`` (RI-5.4; none when the next card is a reverse: it appears
               instead, a ``window`` follows, and its resolution's ``flip`` turns it), a
               slap or a timeout (the reverse, RI-6.3/6.4)
``shuffle``    the discard pile minus its top became the draw pile; ``value`` = new seed,
               ``cards=()`` (the order is hidden) (RI-8.1)
``demand``     ``seat`` is now under a demand of symbol ``value`` (RI-5.2)
``chain``      ``seat`` is now in a phone chain of length ``value`` (RI-5.4)
``lapse``      the demand ``value`` on ``seat`` lapsed (RI-5.3): the draw pile ran dry, or
               a reverse showed on its top after a drawn card (the drawing stopped there;
               a ``window`` of that reverse follows, RI-6.1)
``cancel``     a window's resolution cancelled the pending demand (``value`` = symbol) or
               phone chain (``value`` = its length) (RI-6.2)
``window``     a reverse appeared on top of the draw pile: window of symbol ``value``
               (RI-6.1); its front stays hidden
``slap``       ``seat`` won the window of symbol ``value`` and discarded ``cards`` (RI-6.3)
``timeout``    nobody slapped the window of symbol ``value`` in time (RI-6.4)
``falseslap``  ``seat`` slapped with no window open and drew ``cards`` (private) (RI-6.5)
``win``        ``seat`` emptied its hand and won (RI-7.1)
=============  ===========================================================================

The functions assume a position validated by ``position_from_json`` or made by
:func:`new_position` / :func:`apply` (RI-9).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event, IllegalActionError, NotationError, Outcome, Seat, shuffle
from engine.riiing.actions import DRAW, TAKE, TIMEOUT, RiiingAction
from engine.riiing.cards import SYMBOL_NAMES, RiiingCard, condition_words, satisfies
from engine.riiing.deck import load_deck
from engine.riiing.position import MAX_SEATS, MIN_SEATS, Demand, RiiingOptions, RiiingPosition
from engine.riiing.view import RiiingView


def new_position(
    seats: int, seed: int, options: RiiingOptions, first: Seat = 0
) -> RiiingPosition:
    """A fresh game (RI-2): the deck of option ``deck`` shuffled from ``seed``
    (``engine.core.shuffle``), ``hand_size`` cards dealt one at a time clockwise from seat
    0 (RI-2.1), the next card turned face up as the first discard (RI-2.2), ``first`` to
    move (RI-2.3), ``opening`` set until the first turn action (RI-6.3).  A reverse on top
    of the draw pile opens a window at once (RI-6.1).

    Raises :class:`NotationError` for seats outside 2-6 (RI-2.4), ``first`` out of range
    (RI-2.3), options needing more cards than the deck holds (RI-2.1) or a bad deck file
    (RI-1.5); each is one line naming the field or option.
    """
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise NotationError(f"seats: expected {MIN_SEATS}..{MAX_SEATS}, got {seats!r}", "RI-2.4")
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < seats:
        raise NotationError(f"first: seat {first!r} out of range 0..{seats - 1}", "RI-2.3")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise NotationError(f"seed: expected an integer, got {seed!r}")
    deck = load_deck(options.deck)
    needed = seats * options.hand_size + 2
    if needed > len(deck):
        raise NotationError(
            f"option hand_size: {seats} seats x {options.hand_size} cards + 2 needs {needed} "
            f"cards, the deck holds {len(deck)}",
            "RI-2.1",
        )
    cards, seed = _shuffle(deck, seed)
    dealt = seats * options.hand_size
    hands = tuple(tuple(cards[seat:dealt:seats]) for seat in range(seats))
    draw = tuple(cards[dealt + 1 :])
    reverse = draw[0].reverse
    return RiiingPosition(
        seats=seats,
        options=options,
        hands=hands,
        draw=draw,
        discard=(cards[dealt],),
        to_move=first,
        seed=seed,
        window=reverse,
        opening=True,
    )


def _shuffle(cards: Sequence[RiiingCard], seed: int) -> tuple[list[RiiingCard], int]:
    """``engine.core.shuffle`` (the position's RNG protocol) on cards instead of codes."""
    codes, seed = shuffle([str(card) for card in cards], seed)
    return [RiiingCard.parse(code) for code in codes], seed


def condition(pos: RiiingPosition) -> str | None:
    """The condition in force: the back of the draw pile's top card (RI-3.1), or ``None``
    when the draw pile is empty and every condition is open (RI-3.5)."""
    return pos.draw[0].back if pos.draw else None


def _playable(pos: RiiingPosition, seat: Seat) -> list[RiiingCard]:
    """Cards of ``seat``'s hand it may play now, in hand order (with repeats)."""
    hand = pos.hands[seat]
    demand = pos.demand
    if demand is not None:
        if demand.symbol is not None:
            return [card for card in hand if card.symbol == demand.symbol]
        return [card for card in hand if card.kind == "phone"]
    cond = condition(pos)
    last = pos.discard[-1]
    return [card for card in hand if card.kind != "number" or satisfies(card, last, cond)]


def legal(pos: RiiingPosition) -> tuple[RiiingAction, ...]:
    """Every legal action now, sorted by text (code-point order); ``()`` once won.

    During a window: ``slap s`` for every seat and ``timeout`` (RI-6.2).  Otherwise the seat
    to move's: its playable cards (RI-4.1, RI-5.1), or ``draw`` when it has none (RI-4.2,
    RI-5.3); in a phone chain its Phones and ``take`` (RI-5.4).  ``falseslap`` is never
    listed (RI-6.5).
    """
    if pos.winner is not None or pos.to_move is None:
        return ()
    if pos.window is not None:
        return (*(RiiingAction.slap(seat) for seat in range(pos.seats)), TIMEOUT)
    actions = [RiiingAction.play(card) for card in _playable(pos, pos.to_move)]
    if pos.demand is not None and pos.demand.phones:
        actions.append(TAKE)
    elif not actions:
        actions.append(DRAW)
    return tuple(sorted(dict.fromkeys(actions), key=str))


def check(pos: RiiingPosition, action: RiiingAction) -> Seat:
    """Raise :class:`IllegalActionError` (with the rule id and ``pos``) unless ``action`` is
    legal in ``pos``; ``falseslap`` is legal outside a window while the penalty option is
    on (RI-6.5).  Agrees with :func:`legal` on every other action.  Returns the seat to
    move (during a window: the seat that was to move)."""

    def refuse(message: str, rule: str) -> IllegalActionError:
        return IllegalActionError(message, rule, pos)

    seat = pos.to_move
    if pos.winner is not None or seat is None:
        raise refuse(f"{action}: the game is over, seat {pos.winner} won", "RI-7.1")
    kind = action.kind
    if action.seat is not None and action.seat >= pos.seats:
        raise refuse(f"{action}: there is no seat {action.seat} at {pos.seats} seats", "RI-2.4")
    if pos.window is not None:
        if kind in ("slap", "timeout"):
            return seat
        if kind == "falseslap":
            raise refuse(f"{action}: a RIIING! window is open, so this slap is not false", "RI-6.2")
        raise refuse(
            f"seat {pos.to_move} cannot {action}: a RIIING! window is open, only slap <s> "
            "and timeout are legal",
            "RI-6.2",
        )
    if kind == "slap":
        raise refuse(f"{action}: no RIIING! window is open", "RI-6.2")
    if kind == "timeout":
        raise refuse(f"{action}: no RIIING! window is open", "RI-6.4")
    if kind == "falseslap":
        if pos.options.false_slap_penalty == 0:
            raise refuse(f"{action}: option false_slap_penalty is 0 (off)", "RI-6.5")
        return seat
    demand = pos.demand
    playable = _playable(pos, seat)
    if kind == "play":
        card = action.card
        if card not in pos.hands[seat]:
            raise refuse(f"seat {seat} cannot play {card}: it is not in its hand", "RI-4.1")
        if card in playable:
            return seat
        if demand is not None and demand.symbol is not None:
            name = SYMBOL_NAMES[demand.symbol]
            raise refuse(
                f"seat {seat} cannot play {card}: under demand {demand.symbol} it must play a "
                f"{name} card",
                "RI-5.3",
            )
        if demand is not None:
            raise refuse(
                f"seat {seat} cannot play {card}: in a phone chain of {demand.phones} it must "
                "play a Phone or take",
                "RI-5.4",
            )
        words = condition_words(str(condition(pos)), pos.discard[-1])
        raise refuse(f"seat {seat} cannot play {card}: needs {words}", "RI-3.2")
    if kind == "draw":
        if demand is not None and demand.phones:
            raise refuse(
                f"seat {seat} cannot draw: in a phone chain it must play a Phone or take", "RI-5.4"
            )
        if playable:
            if demand is not None:
                raise refuse(
                    f"seat {seat} cannot draw: it holds {playable[0]} for demand {demand.symbol}",
                    "RI-5.3",
                )
            raise refuse(f"seat {seat} cannot draw: it can play {playable[0]}", "RI-4.2")
        return seat
    if demand is None or not demand.phones:
        raise refuse(f"seat {seat} cannot take: no phone chain is pending", "RI-5.4")
    return seat


class _Table:
    """A mutable working copy of a position inside one ``apply``, collecting events."""

    def __init__(self, pos: RiiingPosition) -> None:
        self.pos = pos
        self.hands = [list(hand) for hand in pos.hands]
        self.draw = list(pos.draw)
        self.discard = list(pos.discard)
        self.seed = pos.seed
        self.events: list[Event] = []

    def emit(
        self,
        kind: str,
        seat: Seat | None = None,
        cards: list[RiiingCard] | tuple[RiiingCard, ...] = (),
        value: int | str | None = None,
    ) -> None:
        self.events.append(Event(kind, seat, tuple(str(card) for card in cards), value))

    def refill(self) -> None:
        """RI-8.1: an empty draw pile takes the discard pile minus its top, shuffled."""
        if not self.draw and len(self.discard) > 1:
            self.draw, self.seed = _shuffle(self.discard[:-1], self.seed)
            del self.discard[:-1]
            self.emit("shuffle", value=self.seed)

    def draw_into(self, seat: Seat, count: int, kind: str, value: int | None = None) -> None:
        """Move up to ``count`` cards from the draw pile to the end of ``seat``'s hand
        (refilling as needed, RI-8.1, RI-8.4), as ``kind`` events (split at shuffles)."""
        got: list[RiiingCard] = []
        emitted = False
        for _ in range(count):
            if not self.draw and len(self.discard) > 1:
                if got:
                    self.emit(kind, seat, got, value)
                    got, emitted = [], True
                self.refill()
            if not self.draw:
                break
            card = self.draw.pop(0)
            self.hands[seat].append(card)
            got.append(card)
        if got or not emitted:
            self.emit(kind, seat, got, value)

    def draw_until(self, seat: Seat, symbol: str) -> RiiingCard | None:
        """RI-5.3: draw one card at a time until one of ``symbol`` arrives; it goes onto the
        discard pile (returned), the others into the hand.  ``None`` if the piles run dry,
        or if after a card not of ``symbol`` the draw pile's top (refilled first if empty,
        RI-8.1) shows a reverse: the drawing stops there and the reverse appears (RI-6.1)."""
        kept: list[RiiingCard] = []
        emitted = drawn = False
        while True:
            if not self.draw and len(self.discard) > 1:
                if kept:
                    self.emit("draw", seat, kept)
                    kept, emitted = [], True
                self.refill()
            if not self.draw or (drawn and self.draw[0].reverse is not None):
                if kept or not emitted:
                    self.emit("draw", seat, kept)
                return None
            card = self.draw.pop(0)
            if card.symbol == symbol:
                if kept or not emitted:
                    self.emit("draw", seat, kept)
                self.discard.append(card)
                self.emit("play", seat, (card,))
                return card
            self.hands[seat].append(card)
            kept.append(card)
            drawn = True

    def turn_up(self, but_not_a_reverse: bool = False) -> None:
        """Turn the next draw-pile card face up onto the discard pile (refill first).  With
        ``but_not_a_reverse`` (after a take, RI-5.4) a reverse there stays on the draw pile:
        it appears (RI-6.1) and the window's resolution turns it."""
        if not self.draw:
            self.refill()
        if self.draw and not (but_not_a_reverse and self.draw[0].reverse is not None):
            card = self.draw.pop(0)
            self.discard.append(card)
            self.emit("flip", cards=(card,))

    def finish(
        self,
        to_move: Seat | None,
        demand: Demand | None,
        winner: Seat | None = None,
        opening: bool = False,
    ) -> tuple[RiiingPosition, tuple[Event, ...]]:
        """The position after the action.  Unless it was won (RI-7.1): the end-of-action
        refill (RI-8.1) and a window if a reverse is on top (RI-6.1, RI-6.6).  ``opening``
        is kept only by the actions that are not turn actions (RI-6.3) and ends with a win."""
        window = None
        if winner is None:
            self.refill()
            if self.draw and self.draw[0].reverse is not None:
                window = self.draw[0].reverse
                self.emit("window", value=window)
        else:
            self.emit("win", winner)
            to_move = demand = None
        pos = RiiingPosition(
            seats=self.pos.seats,
            options=self.pos.options,
            hands=tuple(tuple(hand) for hand in self.hands),
            draw=tuple(self.draw),
            discard=tuple(self.discard),
            to_move=to_move,
            seed=self.seed,
            demand=demand,
            window=window,
            winner=winner,
            opening=opening and winner is None,
        )
        return pos, tuple(self.events)


def apply(pos: RiiingPosition, action: RiiingAction) -> tuple[RiiingPosition, tuple[Event, ...]]:
    """The position after ``action`` and its events (module docstring); checks legality
    first (:func:`check`, raises :class:`IllegalActionError` naming the rule id)."""
    seat = check(pos, action)
    table = _Table(pos)
    seats = pos.seats
    left = (seat + 1) % seats
    demand = pos.demand
    kind = action.kind
    card = action.card
    if card is not None:  # play
        hand = table.hands[seat]
        hand.remove(card)
        table.discard.append(card)
        table.emit("play", seat, (card,))
        if not hand:
            return table.finish(None, None, winner=seat)
        return table.finish(left, _demand_after(table, card, demand, left))
    if kind == "draw":
        if demand is not None and demand.symbol is not None:
            played = table.draw_until(seat, demand.symbol)
            if played is None:
                table.emit("lapse", seat, value=demand.symbol)
                return table.finish(left, None)
            return table.finish(left, _demand_after(table, played, demand, left))
        table.draw_into(seat, 1, "draw")
        return table.finish(left, None)
    if kind == "take":
        phones = 0 if demand is None else demand.phones  # check(): a chain is pending
        table.draw_into(seat, phones, "take", phones)
        table.turn_up(but_not_a_reverse=True)
        return table.finish(left, None)
    slapper = action.seat
    if kind == "falseslap" and slapper is not None:
        table.draw_into(slapper, pos.options.false_slap_penalty, "falseslap")
        return table.finish(seat, demand, opening=pos.opening)
    symbol = pos.window
    if kind == "slap" and slapper is not None:
        hand = table.hands[slapper]
        discarded = [card for card in hand if card.symbol == symbol]
        hand[:] = [card for card in hand if card.symbol != symbol]
        table.discard.extend(discarded)
        table.emit("slap", slapper, discarded, symbol)
        if not hand:
            return table.finish(None, None, winner=slapper)
        if not pos.opening:
            seat = (slapper + 1) % seats
    else:
        table.emit("timeout", value=symbol)
    table.turn_up()
    if demand is not None:
        table.emit("cancel", value=demand.symbol or demand.phones)
    return table.finish(seat, None, opening=pos.opening)


def _demand_after(
    table: _Table, card: RiiingCard, demand: Demand | None, left: Seat
) -> Demand | None:
    """The demand the next seat is under after ``card`` was played (RI-5.2, RI-5.4)."""
    if card.kind == "demand":
        table.emit("demand", left, value=card.symbol)
        return Demand(card.symbol)
    if card.kind == "phone":
        phones = (demand.phones if demand is not None else 0) + 1
        table.emit("chain", left, value=phones)
        return Demand(phones=phones)
    return None


def view(pos: RiiingPosition, seat: Seat | None) -> RiiingView:
    """What ``seat`` may know (``None``: the public table view); see :class:`RiiingView`.

    ``legal`` holds the seat's own legal actions as text: the seat to move's actions;
    during a window ``("slap <seat>",)`` for every seat; ``()`` otherwise and for the
    table.  Raises :class:`NotationError` for a seat out of range.
    """
    if seat is not None and (isinstance(seat, bool) or not 0 <= seat < pos.seats):
        raise NotationError(f"view: seat {seat!r} out of range 0..{pos.seats - 1}")
    actions: tuple[str, ...] = ()
    if seat is not None and pos.winner is None:
        if pos.window is not None:
            actions = (f"slap {seat}",)
        elif seat == pos.to_move:
            actions = tuple(str(action) for action in legal(pos))
    demand = pos.demand
    return RiiingView(
        seats=pos.seats,
        seat=seat,
        hand=() if seat is None else tuple(str(card) for card in pos.hands[seat]),
        hand_counts=tuple(len(hand) for hand in pos.hands),
        draw_count=len(pos.draw),
        discard_count=len(pos.discard),
        condition=condition(pos),
        last_card=str(pos.discard[-1]),
        to_move=pos.to_move,
        demand=None if demand is None else demand.symbol,
        phones=0 if demand is None else demand.phones,
        window=pos.window,
        winner=pos.winner,
        legal=actions,
        false_slap_penalty=pos.options.false_slap_penalty,
        deck=pos.options.deck,
        discard=tuple(str(card) for card in pos.discard),
    )


def outcome(pos: RiiingPosition) -> Outcome | None:
    """``Outcome("empty hand", seat)`` once a seat has won (RI-7.1), else ``None``."""
    return None if pos.winner is None else Outcome("empty hand", pos.winner)

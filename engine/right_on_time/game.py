"""``RightOnTimeGame``: the Right on Time rules object (``docs/rules/right-on-time.md``).

Events (:class:`engine.core.Event`) that ``apply`` reports, in the order they happen
(``seat``, ``cards``, ``value`` as named):

- ``play``: ``seat`` laid ``cards`` (codes as they now lie on the discard pile, bottom
  first: a Joker as ``J<n>``); ``value``: the declared Joker value (the upper Joker's if
  two), else ``None`` (RT-3).
- ``effect_up``: Du bist!: ``seat`` makes the next turn (RT-4.1, RT-9.5).
- ``effect_draw``: Ziehen!: ``seat`` must draw a card (RT-4.2); a ``draw`` event follows.
- ``show``: ``seat`` shows its hand ``cards`` before an RT-5.1 draw (public).
- ``draw``: ``seat`` drew ``cards`` (one card, or none when nothing could be drawn; the
  card is private to that seat; RT-4.2, RT-5.1).
- ``shuffle``: a shuffle (refill RT-6.5, round change RT-2.4); ``value``: the new seed.
- ``out``: ``seat`` laid its last card and is out; ``value``: 1 first, 2 second (RT-6.1).
- ``back``: ``seat`` was out and is back in the round after a Ziehen! (RT-9.4).
- ``bonus``: ``seat`` drew bonus card ``cards`` face down (private, RT-6.3).
- ``swap``: ``seat`` swapped bonus card ``cards[0]`` for hand card ``cards[1]`` (both
  private, RT-6.4).
- ``round``: ``seat`` won round ``value`` (+1 victory point, RT-6.2, RT-9.2).
- ``match``: ``seat`` won the match with ``value`` victory points (RT-7.1).
- ``deal``: round ``value`` was dealt; ``seat`` opens it (RT-2.1, RT-2.4).

Hidden information: ``draw``, ``bonus`` and ``swap`` carry private cards; a renderer shows
them only to their seat.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import Any

from engine.core import (
    Bot,
    Event,
    Game,
    IllegalActionError,
    LogLine,
    NotationError,
    Observers,
    Outcome,
    Seat,
    bots_by_kind,
)
from engine.right_on_time import actions as _actions
from engine.right_on_time.actions import Draw, RotAction, to_action, to_move_tuple
from engine.right_on_time.bots import HeuristicBot, RandomBot
from engine.right_on_time.cards import VALUE, load_deck, parse_deck
from engine.right_on_time.hard import HardBot
from engine.right_on_time.options import OPTION_SPECS, RotOptions, resolve_options
from engine.right_on_time.position import (
    GAME_NAME,
    RotPosition,
    seats_list,
)
from engine.right_on_time.position import parse_position as _parse_position
from engine.right_on_time.position import position_json as _position_json
from engine.right_on_time.rules import (
    STALL_CYCLES,
    RotFastPath,
    Table,
    apply_move,
    dead_draw,
    explain,
    forced_draw,
    gen_moves,
    move_text,
    random_playout,
)
from engine.right_on_time.view import RightOnTimeView


@cache
def _default_options() -> RotOptions:
    """Every option at its default (cached: ``new`` without options is the common case)."""
    return resolve_options(None)


class RightOnTimeGame(Game[RotPosition, RotAction, RightOnTimeView]):
    """Right on Time for 2 to 6 seats (RT-2.5); positions are :class:`RotPosition`,
    actions :data:`~engine.right_on_time.actions.RotAction`, views
    :class:`~engine.right_on_time.view.RightOnTimeView`.  Options: see
    :mod:`engine.right_on_time.options`.  Every method is pure."""

    name = GAME_NAME
    min_seats = 2
    max_seats = 6
    options = OPTION_SPECS
    bots = bots_by_kind(RandomBot, HeuristicBot, HardBot)

    # ------------------------------------------------------------------ positions

    def new(
        self, seats: int, seed: int, options: Mapping[str, object] | None = None, first: Seat = 0
    ) -> RotPosition:
        """Round 1 of a match: the deck of option ``deck`` (the bundled deck, or the
        cards inline: a list or one space-separated string of codes) shuffled from
        ``seed`` (``docs/notation.md``), dealt one card at a time clockwise from
        ``first`` (RT-2.1: 7 cards, 8 with 2 seats, RT-9.1), ``first`` to open (RT-2.2,
        RT-2.3).  Reads no file.

        Raises NotationError: ``seats`` outside 2..6 (RT-2.5), ``first`` out of range, a bad
        or unknown option (named; ``hand_size`` is none), a deck with fewer cards than
        seats.
        """
        if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 6:
            raise NotationError(f"seats: 2 to 6 seats, got {seats!r}", "RT-2.5")
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < seats:
            raise NotationError(f"first: seat {first!r} out of range 0..{seats - 1}", "RT-2.3")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise NotationError(f"seed: expected an integer, got {seed!r}")
        opts = _default_options() if not options else resolve_options(options)
        deck = load_deck(opts.deck)
        if len(deck) < seats:
            raise NotationError(
                f"option deck: {len(deck)} cards cannot deal {seats} seats", "RT-2.1"
            )
        return Table.deal(seats, seed, opts, first).freeze()

    def parse_position(self, obj: Mapping[str, Any]) -> RotPosition:
        """Read and validate a JSON position (``engine.right_on_time.position``, RT-10.2);
        raises NotationError naming the field."""
        return _parse_position(obj)

    def position_json(self, pos: RotPosition) -> dict[str, Any]:
        """The JSON object of ``pos``; ``parse_position(position_json(p)) == p``."""
        return _position_json(pos)

    def parse_deck(self, text: str, source: str) -> tuple[str, ...]:
        """The codes of a deck file's ``text`` (``CODE COUNT`` lines, RT-1.2:
        :func:`engine.right_on_time.cards.parse_deck`); raises NotationError naming the
        line."""
        return parse_deck(text, source)

    def parse_action(self, text: str) -> RotAction:
        """Read an action in the exact spelling ``legal`` prints; raises NotationError."""
        return _actions.parse_action(text)

    # ------------------------------------------------------------------ rules

    def legal(self, pos: RotPosition) -> tuple[RotAction, ...]:
        """Every legal action of the seat to move, sorted by ``str`` (code-point order);
        ``()`` once the match is won.  ``draw`` appears only without a legal lay (RT-5.1);
        bonus swaps appear beside lays or ``draw`` (RT-6.4)."""
        moves = gen_moves(pos)
        return tuple(to_action(m) for m in sorted(moves, key=move_text))

    def apply(self, pos: RotPosition, action: RotAction) -> tuple[RotPosition, tuple[Event, ...]]:
        """The position after the seat to move takes ``action``, and its events (module
        docstring).  Raises IllegalActionError (rule id, position) for an action ``legal``
        leaves out, NotationError for something that is not a Right on Time action."""
        move = to_move_tuple(action)
        if move not in gen_moves(pos):
            message, rule = explain(pos, move)
            who = "" if pos.to_move is None else f"seat {pos.to_move} cannot "
            raise IllegalActionError(f"{who}{action}: {message}", rule, pos)
        table = Table(pos)
        events: list[Event] = []
        apply_move(table, move, events)
        return table.freeze(), tuple(events)

    def view(self, pos: RotPosition, seat: Seat | None) -> RightOnTimeView:
        """What ``seat`` may know (``None``: the table's public view).  Hands and bonus
        cards are private; shown cards (RT-5.1) are public.  Raises NotationError for a
        seat out of range."""
        if seat is not None and (isinstance(seat, bool) or not 0 <= seat < pos.seats):
            raise NotationError(f"view: seat {seat!r} out of range 0..{pos.seats - 1}")
        legal = self.legal(pos) if seat is not None and seat == pos.to_move else ()
        return self._view(pos, seat, legal)

    def _view(
        self, pos: RotPosition, seat: Seat | None, legal: Sequence[RotAction]
    ) -> RightOnTimeView:
        top = pos.discard[-1] if pos.discard else None
        return RightOnTimeView(
            seats=pos.seats,
            seat=seat,
            hand=() if seat is None else pos.hands[seat],
            bonus=() if seat is None else pos.bonus[seat],
            hand_counts=tuple(len(h) for h in pos.hands),
            bonus_counts=tuple(len(b) for b in pos.bonus),
            shown=pos.shown,
            draw_count=len(pos.draw),
            discard_count=len(pos.discard),
            top=top,
            top_value=None if top is None else VALUE[top],
            round=pos.round,
            scores=pos.scores,
            target_points=pos.options.target_points,
            out=pos.out,
            to_move=pos.to_move,
            winner=pos.winner,
            legal=tuple(str(a) for a in legal),
            options=pos.options.items(),
            discard=pos.discard,
        )

    def outcome(self, pos: RotPosition) -> Outcome | None:
        """``Outcome("<k> victory points", winner)`` once the match is won (RT-7.1), else
        ``None``."""
        if pos.winner is None:
            return None
        return Outcome(f"{pos.scores[pos.winner]} victory points", pos.winner)

    # ------------------------------------------------------------------ playing

    def fast_path(self) -> RotFastPath:
        """The private fast path for the computer players' searches (``RotFastPath``)."""
        return RotFastPath()

    def autoplay(
        self, pos: RotPosition, bots: Sequence[Bot[Any, Any]], rng: random.Random
    ) -> Iterator[tuple[LogLine, RotPosition, tuple[Event, ...]]]:
        """Play ``pos`` to the match's end with ``bots[seat]`` deciding for each seat from
        its own view.  Yields ``(LogLine, position after, events)`` per action; the log
        line is ``seat 2: play 3 J=2``, with a note when a round ends
        (``seat 1: play 4 (round 1 won by seat 1; points 0 1 0)``, ``...; match won``: with
        2 seats the winner may be the other seat, RT-9.2).  ``rng`` is
        unused (Right on Time has no device decisions).  Stops early, without a winner,
        if no card can move any more (:data:`STALL_CYCLES`).  A bot that observes
        (:func:`engine.core.observes`) is sent every action with the table's views before
        and after it.  Raises NotationError when ``bots`` has not one bot per seat."""
        del rng
        observers = Observers(bots, pos.seats)
        stuck = 0
        while pos.winner is None:
            seat = pos.to_move
            assert seat is not None  # parse_position: to_move is null only with a winner
            legal = self.legal(pos)
            action = bots[seat].choose(self._view(pos, seat, legal), legal)
            forced = isinstance(action, Draw) and forced_draw(pos, seat)
            before = pos
            pos, events = self.apply(pos, action)
            observers.tell(self.view, before, action, pos)
            note = ""
            for event in events:
                if event.kind == "round":
                    note = (
                        f"round {event.value} won by seat {event.seat}; "
                        f"points {seats_list(pos.scores)}"
                    )
                elif event.kind == "match":
                    note += "; match won"
            yield LogLine(seat, str(action), note), pos, events
            stuck = stuck + 1 if dead_draw(pos, forced) else 0
            if stuck > STALL_CYCLES * pos.seats:
                return

    def _fast_random_playout(
        self, pos: RotPosition, rng: random.Random, record: list[str] | None = None
    ) -> tuple[RotPosition, int]:
        """Private, unchecked fast path: play ``pos`` to the match's end choosing uniformly
        among the legal moves with ``rng``; returns the final position and the number of
        actions applied.  No events, no legality checks, one mutable table for the whole
        playout.  ``record`` (optional) receives each action's text, for tests that replay
        it through the public :meth:`apply`.  Stops early like :meth:`autoplay`."""
        table = Table(pos)
        steps = random_playout(table, rng.random, record)
        return table.freeze(), steps

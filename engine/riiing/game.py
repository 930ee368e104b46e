""":class:`RiiingGame`: the Riiing! rules object of the ``engine.core.Game`` protocol.

>>> game = RiiingGame()
>>> pos = game.new(3, seed=7)
>>> [len(hand) for hand in pos.hands], len(pos.draw), len(pos.discard)
([7, 7, 7], 74, 1)
>>> game.position_json(pos)["options"]
{'hand_size': 7, 'slap_timeout_s': 8, 'false_slap_penalty': 1, 'deck': 'standard'}
>>> sorted({card.code for card in game.new(2, 1, {"deck": "7C/> P/E " * 9}).cards()})
['7C/>', 'P/E']
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.core import (
    Bot,
    Event,
    Game,
    LogLine,
    Observers,
    Outcome,
    Seat,
    bots_by_kind,
)
from engine.riiing import rules
from engine.riiing._fast import RiiingFastPath
from engine.riiing.actions import TIMEOUT, RiiingAction
from engine.riiing.bots import HeuristicBot, RandomBot
from engine.riiing.deck import parse_deck
from engine.riiing.hard import HardBot
from engine.riiing.position import (
    GAME_NAME,
    MAX_SEATS,
    MIN_SEATS,
    OPTION_SPECS,
    RiiingOptions,
    RiiingPosition,
    position_from_json,
    position_json,
)
from engine.riiing.view import RiiingView


class RiiingGame(Game[RiiingPosition, RiiingAction, RiiingView]):
    """Riiing! (``docs/rules/riiing.md``): 2-6 seats, options ``hand_size`` (7, RI-2.1),
    ``slap_timeout_s`` (8, RI-6.4), ``false_slap_penalty`` (1, RI-6.5), ``deck``
    (``"standard"`` or the cards inline, RI-1.5: ``engine.riiing.deck``); bots ``"random"``,
    ``"heuristic"`` and ``"hard"`` (SO-ISMCTS, ``engine.riiing.hard``).  Stateless: every
    method is pure, none reads a file."""

    name = GAME_NAME
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options = OPTION_SPECS
    bots = bots_by_kind(RandomBot, HeuristicBot, HardBot)

    def new(
        self, seats: int, seed: int, options: Mapping[str, object] | None = None, first: Seat = 0
    ) -> RiiingPosition:
        """A fresh position (RI-2, :func:`engine.riiing.rules.new_position`).  ``options``
        are CLI/lobby strings or values (``deck``: ``"standard"``, or card codes as a list
        or one space-separated string); raises :class:`NotationError` naming a bad seat
        count, seat, option or deck card."""
        return rules.new_position(seats, seed, RiiingOptions.from_mapping(options), first)

    def parse_position(self, obj: Mapping[str, Any]) -> RiiingPosition:
        """Read and validate a JSON position object (RI-9); raises NotationError."""
        return position_from_json(obj)

    def position_json(self, pos: RiiingPosition) -> dict[str, Any]:
        """The JSON object of ``pos``, fields in notation order, every option written."""
        return position_json(pos)

    def parse_deck(self, text: str, source: str) -> tuple[str, ...]:
        """The codes of a deck file's ``text`` (one ``FRONT/BACK`` per line, RI-1.5:
        :func:`engine.riiing.deck.parse_deck`); raises NotationError naming the line."""
        return tuple(card.code for card in parse_deck(text, source))

    def parse_action(self, text: str) -> RiiingAction:
        """Read an action in its exact spelling; raises NotationError."""
        return RiiingAction.parse(text)

    def legal(self, pos: RiiingPosition) -> tuple[RiiingAction, ...]:
        """Every legal action, sorted by text; never ``falseslap`` (RI-6.5)."""
        return rules.legal(pos)

    def apply(
        self, pos: RiiingPosition, action: RiiingAction
    ) -> tuple[RiiingPosition, tuple[Event, ...]]:
        """Checked apply (``engine.riiing.rules``); raises IllegalActionError with the rule."""
        return rules.apply(pos, action)

    def view(self, pos: RiiingPosition, seat: Seat | None) -> RiiingView:
        """What ``seat`` may know (``None``: the table); raises NotationError for a bad seat."""
        return rules.view(pos, seat)

    def outcome(self, pos: RiiingPosition) -> Outcome | None:
        """``Outcome("empty hand", winner)`` once won (RI-7.1), else ``None``."""
        return rules.outcome(pos)

    def fast_path(self) -> RiiingFastPath:
        """The private fast path for the computer players' searches (``RiiingFastPath``)."""
        return RiiingFastPath()

    def autoplay(
        self, pos: RiiingPosition, bots: Sequence[Bot[Any, Any]], rng: random.Random
    ) -> Iterator[tuple[LogLine, RiiingPosition, tuple[Event, ...]]]:
        """Play ``pos`` to its end with ``bots[s]`` at seat ``s``.

        Outside a window the seat to move's bot chooses from its view and the legal
        actions.  In a window (RI-6.2) every bot samples ``reaction_ns()`` (seat 0 first);
        the lowest slaps (log note ``"231 ms"``), equal lowest times are broken by
        ``rng``, and if every time is above ``slap_timeout_s`` the device sends
        ``timeout``.  A bot that observes (:func:`engine.core.observes`) is sent every
        action with the table's views before and after it.  Raises
        :class:`NotationError` if ``len(bots) != pos.seats``.
        """
        observers = Observers(bots, pos.seats)
        limit_ns = pos.options.slap_timeout_s * 1_000_000_000
        while pos.winner is None and pos.to_move is not None:  # RI-9: both or neither
            action: RiiingAction
            if pos.window is not None:
                times = [bot.reaction_ns() for bot in bots]
                best = min(times)
                if best > limit_ns:
                    action, line = TIMEOUT, LogLine(None, str(TIMEOUT))
                else:
                    fastest = [seat for seat, t in enumerate(times) if t == best]
                    seat = fastest[0] if len(fastest) == 1 else rng.choice(fastest)
                    action = RiiingAction.slap(seat)
                    line = LogLine(seat, str(action), f"{best // 1_000_000} ms")
            else:
                mover = pos.to_move
                action = bots[mover].choose(rules.view(pos, mover), rules.legal(pos))
                line = LogLine(mover, str(action))
            before = pos
            pos, events = rules.apply(pos, action)
            observers.tell(rules.view, before, action, pos)
            yield line, pos, events

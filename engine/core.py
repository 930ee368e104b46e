"""The game protocol shared by both games: errors, events, outcomes, the seeded shuffle.

Every game (``engine.riiing``, ``engine.right_on_time``) is a :class:`Game` subclass: a
static rules object whose methods take and return immutable positions.  Positions,
actions and views are frozen values of the game's own types; their text/JSON forms follow
``docs/notation.md``.

The protocol (all methods pure, no I/O, no clock, no module-level randomness):

- ``new(seats, seed, options, first) -> position``
- ``parse_position(obj) -> position`` (``obj``: the JSON object, a ``Mapping``);
  ``position_json(position) -> dict``; every position type also has ``str(pos)`` (its
  canonical one-line JSON text), ``Type.parse(text)`` and ``Type.from_json(obj)``, with
  ``Type.parse(str(pos)) == pos``
- ``parse_deck(text, source) -> card codes`` (a deck file's text; positions never name
  files: a ``deck`` option is a bundled deck's name or the cards inline)
- ``parse_action(text) -> action``
- ``legal(position) -> tuple[action, ...]`` sorted by ``str`` (code-point order)
- ``apply(position, action) -> (position, events)``; always checks legality
- ``view(position, seat) -> view``; ``seat=None`` is the public (table) view
- ``outcome(position) -> Outcome | None``
- ``fast_path() -> FastPath | None``: the game's private fast path (mutable states stepped
  without checks, for the computer players' searches), as the checked API's notation sees
  it, so one random-play test keeps every game's fast path in lockstep with ``apply``

A game class builds its ``bots`` table with :func:`bots_by_kind`, and its ``autoplay``
tells the bots that learn from the table what happened through :class:`Observers`.

Errors are ``ValueError`` subclasses split by kind: :class:`NotationError` for text or
JSON that cannot be read (a malformed position included), :class:`IllegalActionError` for
a well-formed action the rules do not allow here.  Both carry the rule id where one
applies; the CLI turns them into exit status 2 and one stderr line.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, ClassVar, Generic, TypeVar

Seat = int
"""A seat number, 0..seats-1 clockwise; seat s's left neighbour is (s + 1) % seats."""

Card = str
"""A card code in the notation of its game, e.g. ``"7C/>"`` or ``"J4"``."""


class EngineError(ValueError):
    """Root of the engine's errors.

    ``rule`` is the rule id from ``rules/`` the error cites (``"RI-4.2"``) or ``None``.
    ``str(err)`` is the one line the CLI prints; it already names the rule id.
    """

    def __init__(self, message: str, rule: str | None = None) -> None:
        self.message = message
        self.rule = rule
        super().__init__(f"{message} ({rule})" if rule else message)


class NotationError(EngineError):
    """Text or JSON that cannot be read: a bad card/action code, a malformed position.

    Raised by ``parse_*``, by ``new`` for impossible options, and by the deck loader.
    """


class IllegalActionError(EngineError):
    """A well-formed action that the rules do not allow in this position.

    Carries ``rule`` (the rule id that forbids it) and ``position`` (where it was tried).
    """

    def __init__(self, message: str, rule: str | None = None, position: object = None) -> None:
        super().__init__(message, rule)
        self.position = position


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened inside one ``apply``, for animation, the log and replays.

    ``kind``: a short word, e.g. ``"play"``, ``"draw"``, ``"shuffle"``, ``"flip"``,
    ``"window"``, ``"slap"``, ``"win"``; the game module documents its kinds.
    ``seat``: the seat concerned or ``None``; ``cards``: card codes moved or shown, in
    order; ``value``: a number or word the kind needs (chain length, new seed, symbol).
    """

    kind: str
    seat: Seat | None = None
    cards: tuple[Card, ...] = ()
    value: int | str | None = None

    def __str__(self) -> str:
        parts = [self.kind]
        if self.seat is not None:
            parts.append(f"seat {self.seat}")
        parts.extend(self.cards)
        if self.value is not None:
            parts.append(f"= {self.value}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game as data: ``reason`` (e.g. ``"empty hand"``, ``"3 points"``) and
    ``winner`` (a seat, or ``None`` if the game ended without one)."""

    reason: str
    winner: Seat | None


def shuffle(cards: Sequence[Card], seed: int) -> tuple[list[Card], int]:
    """Shuffle ``cards`` with the position's RNG protocol (``docs/notation.md``).

    Returns ``(shuffled, next_seed)`` where ``shuffled`` is read top first and
    ``next_seed`` is ``rng.getrandbits(32)`` after ``rng = random.Random(seed)``
    shuffled the list.  An empty list leaves the seed unchanged; every non-empty list,
    even of one card, advances it.

    >>> shuffle(["8S/E", "5A/>", "!T/{1,4,7}"], 42)
    (['5A/>', '8S/E', '!T/{1,4,7}'], 107420369)
    >>> shuffle([], 42)
    ([], 42)
    """
    out = list(cards)
    if not out:
        return out, seed
    rng = random.Random(seed)
    if _lean_shuffle_matches():
        bits = rng.getrandbits
        for i, k in _swaps(len(out)):
            j = bits(k)
            while j > i:
                j = bits(k)
            out[i], out[j] = out[j], out[i]
    else:
        rng.shuffle(out)
    return out, rng.getrandbits(32)


@lru_cache(maxsize=64)
def _swaps(size: int) -> tuple[tuple[int, int], ...]:
    """The Fisher-Yates steps of a list of ``size``: ``(i, bits)`` for ``i = size-1 .. 1``,
    ``bits`` the bit length of ``i + 1`` (what ``Random._randbelow(i + 1)`` draws)."""
    return tuple((i, (i + 1).bit_length()) for i in range(size - 1, 0, -1))


@cache
def _lean_shuffle_matches() -> bool:
    """True when this Python's ``random.Random.shuffle`` is the Fisher-Yates loop over
    ``_randbelow_with_getrandbits`` (``k = n.bit_length()``, rejection) that
    :func:`shuffle` inlines (CPython 3.11's ``Lib/random.py``); checked once (cached) on
    probe lists, so a Python whose shuffle differs keeps calling ``rng.shuffle``."""
    for seed, size in ((0, 50), (7, 96), (123456789, 13), (2**32 - 1, 2)):
        want = list(range(size))
        random.Random(seed).shuffle(want)
        got = list(range(size))
        bits = random.Random(seed).getrandbits
        for i in range(size - 1, 0, -1):
            k = (i + 1).bit_length()
            j = bits(k)
            while j > i:
                j = bits(k)
            got[i], got[j] = got[j], got[i]
        if got != want:
            return False
    return True



MAX_NUMBER_DIGITS = 100
"""Digits a JSON or command-line number may have (seeds are 32-bit; far below Python's
4,300-digit ``int()`` limit, so no number read by the engine ever reaches it)."""

_WHOLE_RE = re.compile(rf"[+-]?[0-9]{{1,{MAX_NUMBER_DIGITS}}}")


def short_repr(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters (``'1111...' (5000 chars)``), so a
    message about a huge value stays one short line.

    >>> short_repr("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (102 chars)"
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 2]}... ({len(text)} chars)"


def parse_whole(text: str, what: str, rule: str | None = None) -> int:
    """A whole number written in ASCII digits (optional sign), at most
    :data:`MAX_NUMBER_DIGITS` digits; raises NotationError naming ``what``.

    >>> parse_whole(" 42 ", "--seed")
    42
    >>> parse_whole("²", "--seed")
    Traceback (most recent call last):
    ...
    engine.core.NotationError: --seed: expected a whole number, got '²'
    """
    stripped = text.strip() if isinstance(text, str) else text
    if not isinstance(stripped, str) or not _WHOLE_RE.fullmatch(stripped):
        raise NotationError(f"{what}: expected a whole number, got {short_repr(text)}", rule)
    return int(stripped)



OptionValue = int | bool | str


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rule option: its ``name``, ``default`` and the rule id that defines it.

    ``parse(text)`` turns a CLI/lobby string into the option's type; raises
    :class:`NotationError` naming the option.
    """

    name: str
    default: OptionValue
    rule: str
    help: str = ""

    def parse(self, raw: object) -> OptionValue:
        """Coerce ``raw`` (a JSON value or a CLI string) to the type of ``default``."""
        if isinstance(self.default, bool):
            if isinstance(raw, bool):
                return raw
            text = raw.strip().lower() if isinstance(raw, str) else repr(raw)
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise NotationError(
                f"option {self.name}: expected true/false, got {short_repr(raw)}", self.rule
            )
        if isinstance(self.default, int):
            if isinstance(raw, bool):
                raise NotationError(
                    f"option {self.name}: expected a number, got {raw!r}", self.rule
                )
            if isinstance(raw, int):
                return raw
            if not isinstance(raw, str):
                raise NotationError(
                    f"option {self.name}: expected a number, got {short_repr(raw)}", self.rule
                )
            return parse_whole(raw, f"option {self.name}", self.rule)
        if not isinstance(raw, str):
            raise NotationError(
                f"option {self.name}: expected text, got {short_repr(raw)}", self.rule
            )
        return raw


def parse_options(
    specs: Sequence[OptionSpec], raw: Mapping[str, object] | None
) -> dict[str, OptionValue]:
    """Validate ``raw`` against ``specs``; returns every option, defaults filled in.

    Raises :class:`NotationError` naming the first unknown key or badly typed value.

    >>> specs = [OptionSpec("hand_size", 7, "RI-2.1")]
    >>> parse_options(specs, {"hand_size": "5"})
    {'hand_size': 5}
    >>> parse_options(specs, {"colour": 1})
    Traceback (most recent call last):
    ...
    engine.core.NotationError: unknown option 'colour' (known: hand_size)
    """
    by_name = {s.name: s for s in specs}
    out: dict[str, OptionValue] = {s.name: s.default for s in specs}
    for key, value in (raw or {}).items():
        spec = by_name.get(key)
        if spec is None:
            raise NotationError(
                f"unknown option {short_repr(key)} (known: {', '.join(sorted(by_name))})"
            )
        out[key] = spec.parse(value)
    return out


P = TypeVar("P")
A = TypeVar("A")
V = TypeVar("V")


class Bot(ABC, Generic[V, A]):
    """A computer player.  Decides from its own seat's view only (``view(pos, seat)``).

    ``rng`` is the device's own seeded ``random.Random`` (docs/architecture.md "Slap arbitration"
    7), never the position's shuffle seed.
    """

    kind: ClassVar[str] = "bot"

    def __init__(self, seat: Seat, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    @abstractmethod
    def choose(self, view: V, legal: Sequence[A]) -> A:
        """Pick one of ``legal`` (non-empty: the actions this seat may take now)."""

    def observe(self, before: V, action: A, after: V) -> None:
        """Take in one applied ``action`` of any seat (or the device) between the table's
        public views (``view(pos, None)``) ``before`` and ``after``: what every seat saw
        happen.  The default ignores it; a bot that learns from the history overrides it
        (and :func:`observes` then tells callers to send every action, also when a game
        is replayed from its journal)."""

    def reaction_ns(self, mean_ms: float = 300.0, sd_ms: float = 60.0) -> int:
        """Sample a slap reaction time in nanoseconds: a normal around ``mean_ms``
        (default 300 ms, human-like) with spread ``sd_ms``, floored at 120 ms."""
        ms = max(120.0, self.rng.gauss(mean_ms, sd_ms))
        return int(ms * 1_000_000)


def observes(bot: object) -> bool:
    """Whether ``bot`` overrides :meth:`Bot.observe` (so building public views for it is
    worth the time); ``False`` for an object without ``observe`` (a duck-typed bot)."""
    method = getattr(type(bot), "observe", None)
    return method is not None and method is not Bot.observe


class Observers:
    """The bots of an ``autoplay`` (one per seat, seat 0 first) that :func:`observes`, and
    :meth:`tell` to send each of them one applied action (:func:`tell_observers`).

    Raises :class:`NotationError` ``autoplay: <n> bots for <seats> seats`` when ``bots``
    has not one bot per seat."""

    __slots__ = ("watchers",)

    def __init__(self, bots: Sequence[Any], seats: int) -> None:
        if len(bots) != seats:
            raise NotationError(f"autoplay: {len(bots)} bots for {seats} seats")
        self.watchers = [bot for bot in bots if observes(bot)]

    def tell(
        self, view: Callable[[Any, Seat | None], Any], before: Any, action: Any, after: Any
    ) -> None:
        """Send ``action`` with the table's views of ``before`` and ``after`` (``view(pos,
        None)``, built only when a bot observes)."""
        tell_observers(self.watchers, view, before, action, after)


def bots_by_kind(*classes: type[Bot[Any, Any]]) -> dict[str, type[Bot[Any, Any]]]:
    """A game's ``bots`` table: each class by its :attr:`Bot.kind` (``"random"``,
    ``"heuristic"``, ``"hard"``), in the order given."""
    return {cls.kind: cls for cls in classes}


def tell_observers(
    watchers: Sequence[Any], view: Callable[[Any, Seat | None], Any],
    before: Any, action: Any, after: Any,
) -> None:
    """Send one applied ``action`` to every bot in ``watchers`` (those that
    :func:`observes`) with the table's public views of ``before`` and ``after``
    (``view(pos, None)``, built once for all of them); nothing to do without watchers."""
    if watchers:
        seen, now = view(before, None), view(after, None)
        for bot in watchers:
            bot.observe(seen, action, now)


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of ``python -m engine play``: who acted, the action text, an optional note
    (``"231 ms"``).  ``str()`` gives ``seat 2: play 5C/>`` / ``seat 0: slap 0 (231 ms)``;
    a device action (``timeout``) prints as ``device: timeout``."""

    seat: Seat | None
    action: str
    note: str = ""

    def __str__(self) -> str:
        who = "device" if self.seat is None else f"seat {self.seat}"
        return f"{who}: {self.action}" + (f" ({self.note})" if self.note else "")


S = TypeVar("S")
"""A fast path's mutable state type."""


class FastPath(ABC, Generic[P, S]):
    """A game's fast path seen through the notation: a mutable ``S`` built from a position,
    its legal actions as the texts ``legal`` prints, an unchecked step by such a text, and
    the immutable position it stands for.  It must agree with the checked API action for
    action (``tests/engine/test_random_play.py`` plays every registered game through both)."""

    @abstractmethod
    def state(self, pos: P) -> S:
        """A fresh mutable state equal to ``pos``."""

    @abstractmethod
    def legal(self, state: S) -> list[str]:
        """The legal actions in ``state`` as notation texts (any order)."""

    @abstractmethod
    def step(self, state: S, text: str) -> None:
        """Apply the legal action ``text`` in place, without checks; raises ``ValueError``
        for a text that is not legal in ``state``."""

    @abstractmethod
    def position(self, state: S) -> P:
        """The immutable position ``state`` stands for."""


class Game(ABC, Generic[P, A, V]):
    """A game's static rules.  Subclasses implement the protocol of this module's docstring.

    ``name`` is the registry key (``"riiing"``, ``"right-on-time"``); ``options`` the
    rule options (:class:`OptionSpec`); ``bots`` maps a bot kind (``"random"``,
    ``"heuristic"``) to its :class:`Bot` class.
    """

    name: ClassVar[str]
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 6
    options: ClassVar[tuple[OptionSpec, ...]] = ()
    bots: ClassVar[Mapping[str, type[Bot[Any, Any]]]] = {}

    @abstractmethod
    def new(
        self, seats: int, seed: int, options: Mapping[str, object] | None = None, first: Seat = 0
    ) -> P:
        """A fresh position: ``seats`` seats, shuffled from ``seed``, ``first`` to open.

        Raises :class:`NotationError` for a bad seat count or option (one line naming it).
        """

    @abstractmethod
    def parse_position(self, obj: Mapping[str, Any]) -> P:
        """Read and validate a JSON position object; raises :class:`NotationError`."""

    @abstractmethod
    def position_json(self, pos: P) -> dict[str, Any]:
        """The JSON object of ``pos`` (``parse_position(position_json(p)) == p``)."""

    @abstractmethod
    def parse_deck(self, text: str, source: str) -> tuple[Card, ...]:
        """The card codes of a deck file's ``text`` (the format of the game's bundled
        ``deck.txt``), in file order; ``source`` names the file in messages.  The command
        line's ``--deck-file`` puts them inline into option ``deck``.  Raises
        NotationError naming the line of a bad entry (RI-1.5, RT-1.2)."""

    @abstractmethod
    def parse_action(self, text: str) -> A:
        """Read an action in the exact spelling ``legal`` prints; raises NotationError."""

    @abstractmethod
    def legal(self, pos: P) -> tuple[A, ...]:
        """Every legal action now, sorted by ``str`` (code-point order)."""

    @abstractmethod
    def apply(self, pos: P, action: A) -> tuple[P, tuple[Event, ...]]:
        """The position after ``action`` and what happened; raises IllegalActionError."""

    @abstractmethod
    def view(self, pos: P, seat: Seat | None) -> V:
        """What ``seat`` may know (``None``: the public table view)."""

    @abstractmethod
    def outcome(self, pos: P) -> Outcome | None:
        """``None`` while the game goes on."""

    def fast_path(self) -> FastPath[P, Any] | None:
        """The game's fast path (:class:`FastPath`), ``None`` for a game without one."""
        return None

    @abstractmethod
    def autoplay(
        self, pos: P, bots: Sequence[Bot[Any, Any]], rng: random.Random
    ) -> Iterator[tuple[LogLine, P, tuple[Event, ...]]]:
        """Play ``pos`` to its end with one bot per seat; yields each applied action's log
        line, the position after it and its events.  ``rng`` decides device choices
        (e.g. ties between equal slap times)."""

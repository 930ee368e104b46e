"""Helpers both games' position, option and deck modules share (one copy for both games).

- Strict JSON text (``docs/notation.md`` positions): :func:`loads_object` reads one JSON
  object and refuses what a position never holds (NaN/Infinity, numbers over
  :data:`MAX_NUMBER_DIGITS` digits, nesting deeper than :data:`MAX_JSON_DEPTH`, duplicate
  keys, more than :data:`MAX_JSON_CHARS` characters); :func:`dumps` writes the one-line
  canonical text.
- Field checks that name the field: :func:`field_error`, :func:`is_int`, :func:`seat`,
  :func:`seat_or_none`, :func:`per_seat`, :func:`card_list` (``engine.core.short_repr``
  keeps a bad value short in a one-line message); a whole position object's keys and game
  (:func:`check_position_fields`) and its ``options`` object's JSON types
  (:func:`check_options_json`).
- Decks as data (RI-1.5, RT-1.1, RT-1.2): a deck option holds the name of a bundled deck
  (:data:`STANDARD_DECK`) or the cards themselves, never a file name
  (:func:`deck_option`, :func:`deck_json`, :func:`inline_codes`, :func:`deck_cards`); a
  deck file's text is read line by line (:func:`deck_text_cards`); only the command line
  reads a deck file, through :func:`deck_file_cards` and :func:`read_text_file` (a regular
  file, at most :data:`DECK_FILE_LIMIT` bytes, strict UTF-8).

Every function raises :class:`engine.core.NotationError` with one line naming what is
wrong; none does I/O except :func:`read_text_file` (and :func:`deck_file_cards` through it).

>>> loads_object('{"seats": 3}', "stdin")
{'seats': 3}
>>> loads_object('[1, 2]', "stdin")
Traceback (most recent call last):
...
engine.core.NotationError: position from stdin: expected a JSON object, got a list
>>> deck_option(["7", "J"], lambda code: code, "RT-1.2"), deck_json("7 J")
('7 J', ['7', 'J'])
"""

from __future__ import annotations

import json
import math
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Self, TypeGuard, TypeVar

from engine.core import MAX_NUMBER_DIGITS, NotationError, OptionSpec, Seat, short_repr

T = TypeVar("T")

MAX_JSON_CHARS = 1 << 20
"""Characters a position text may have (1 MiB; a whole-deck position is about 2 KiB)."""

MAX_JSON_DEPTH = 8
"""Nesting a position may have (object > list > list > code is 3; options one more)."""

MAX_CARDS = 1000
"""Cards a deck, a hand or a pile may hold (the bundled decks hold 96 and 50)."""

DECK_FILE_LIMIT = 64 * 1024
"""Bytes a deck file named by ``--deck-file`` may have (64 KiB)."""

STANDARD_DECK = "standard"
"""The name of each game's bundled deck (its ``deck.txt``): the only deck name there is."""

BUNDLED_DECKS: tuple[str, ...] = (STANDARD_DECK,)
"""Every deck name a position may give in its ``deck`` option."""

# ------------------------------------------------------------------ JSON


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise NotationError(f"a JSON number has {len(text)} digits (at most {MAX_NUMBER_DIGITS})")
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if len(text) > MAX_NUMBER_DIGITS or not math.isfinite(value):
        raise NotationError(f"JSON number {short_repr(text)} is out of range")
    return value


def _json_constant(name: str) -> object:
    raise NotationError(f"{name} is not JSON (positions hold whole numbers)")


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise NotationError(f"duplicate key {short_repr(key)} in a JSON object")
        out[key] = value
    return out


def _depth(value: object) -> int:
    """Nesting depth of a decoded JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Sequence[object] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


_KIND = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "true/false"}


def loads_object(text: str, where: str) -> dict[str, Any]:
    """The JSON object of ``text`` (a position's text; ``where`` names its source in
    messages: ``"stdin"``, a file name).

    Raises NotationError ``position from <where>: ...`` for text over
    :data:`MAX_JSON_CHARS`, text that is not JSON, NaN/Infinity, a number over
    :data:`MAX_NUMBER_DIGITS` digits or out of float range, a duplicate key, nesting deeper
    than :data:`MAX_JSON_DEPTH`, or a top level that is not an object.
    """
    if not isinstance(text, str):
        raise NotationError(f"position from {where}: expected JSON text, got {short_repr(text)}")
    if len(text) > MAX_JSON_CHARS:
        raise NotationError(f"position from {where}: longer than {MAX_JSON_CHARS} characters")
    try:
        obj = json.loads(
            text,
            parse_int=_json_int,
            parse_float=_json_float,
            parse_constant=_json_constant,
            object_pairs_hook=_json_object,
        )
    except NotationError as err:
        raise NotationError(f"position from {where}: {err.message}") from None
    except json.JSONDecodeError as err:
        # the decoder's message may end in "starting at", meant to be followed by the place
        what = err.msg.removesuffix(" starting at")
        raise NotationError(
            f"position from {where}: not JSON (line {err.lineno} column {err.colno}: {what})"
        ) from None
    except RecursionError:
        raise NotationError(f"position from {where}: JSON nested too deeply") from None
    except ValueError as err:  # any other number the decoder cannot convert
        raise NotationError(f"position from {where}: not JSON ({short_repr(str(err))})") from None
    if not isinstance(obj, dict):
        kind = "null" if obj is None else _KIND.get(type(obj), type(obj).__name__)
        raise NotationError(f"position from {where}: expected a JSON object, got {kind}")
    if _depth(obj) > MAX_JSON_DEPTH:
        raise NotationError(
            f"position from {where}: JSON nested deeper than {MAX_JSON_DEPTH} levels"
        )
    return obj


def dumps(obj: Mapping[str, Any]) -> str:
    """The canonical one-line JSON text of a position object (``json.dumps`` defaults:
    ``", "`` and ``": "`` separators, fields in the order given, ASCII only)."""
    return json.dumps(obj, allow_nan=False)


# ------------------------------------------------------------------ fields


def field_error(field: str, what: str, rule: str | None) -> NotationError:
    """``NotationError("position field '<field>': <what>", rule)``: the one message form
    both games use for a malformed position (RI-9, RT-10.2)."""
    return NotationError(f"position field {field!r}: {what}", rule)


def is_int(value: object) -> TypeGuard[int]:
    """True for a JSON whole number (``True``/``False`` are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def seat(value: object, field: str, seats: int, rule: str | None) -> Seat:
    """``value`` as a seat 0..seats-1; raises NotationError naming ``field``."""
    if not is_int(value):
        raise field_error(field, f"expected a seat number, got {short_repr(value)}", rule)
    if not 0 <= value < seats:
        raise field_error(field, f"seat {short_repr(value)} out of range 0..{seats - 1}", rule)
    return value


def seat_or_none(value: object, field: str, seats: int, rule: str | None) -> Seat | None:
    """``None`` for JSON null, else :func:`seat`; the message says null is allowed."""
    if value is None:
        return None
    if not is_int(value):
        raise field_error(field, f"expected a seat number or null, got {short_repr(value)}", rule)
    return seat(value, field, seats, rule)


def per_seat(value: object, field: str, seats: int, what: str, rule: str | None) -> list[Any]:
    """``value`` as a list of exactly ``seats`` entries (``what``: ``"hands"``); raises
    NotationError naming ``field``."""
    if not isinstance(value, list) or len(value) != seats:
        raise field_error(field, f"expected a list of {seats} {what}", rule)
    return value


def card_list(
    value: object, field: str, read: Callable[[str], T], rule: str | None
) -> tuple[T, ...]:
    """``value`` as a list of card codes, each read by ``read`` (which raises
    NotationError for a bad code), at most :data:`MAX_CARDS`.  Errors name the element:
    ``position field 'hands[1][0]': bad card code ...``."""
    if not isinstance(value, list):
        raise field_error(field, f"expected a list of card codes, got {short_repr(value)}", rule)
    if len(value) > MAX_CARDS:
        raise field_error(field, f"{len(value)} cards (at most {MAX_CARDS})", rule)
    out: list[T] = []
    for index, code in enumerate(value):
        if not isinstance(code, str):
            raise field_error(
                f"{field}[{index}]", f"expected a card code, got {short_repr(code)}", rule
            )
        try:
            out.append(read(code))
        except NotationError as err:
            raise field_error(f"{field}[{index}]", err.message, err.rule or rule) from None
    return tuple(out)


def check_position_fields(
    obj: object, game: str, fields: Sequence[str], optional: Collection[str], rule: str
) -> Mapping[str, Any]:
    """``obj`` as a position object of ``game`` (RI-9, RT-10.2): a mapping whose keys are
    among ``fields`` (notation order), holding every field not in ``optional``, with
    ``"game": game``.  Raises NotationError (``rule``): ``position: expected a JSON
    object``, else naming the first unknown field, the first missing field (in ``fields``
    order) or the wrong game."""
    if not isinstance(obj, Mapping):
        raise NotationError(f"position: expected a JSON object, got {short_repr(obj)}", rule)
    for name in obj:
        if name not in fields:
            raise field_error(str(name)[:40], f"unknown field (known: {', '.join(fields)})", rule)
    for name in fields:
        if name not in obj and name not in optional:
            raise field_error(name, "missing", rule)
    if obj["game"] != game:
        raise field_error("game", f"expected {game!r}, got {short_repr(obj['game'])}", rule)
    return obj


def check_options_json(
    raw: Mapping[Any, object], specs: Sequence[OptionSpec], rule: str, type_rule: str | None
) -> None:
    """Check the JSON types of a position's ``options`` object against ``specs``: every key
    an option's name, ``deck`` a bundled deck's name or a list (:func:`check_deck_json`),
    every other value of its default's JSON type (``true``/``false`` is no number).

    Raises NotationError: ``position field 'options': unknown option ...`` (``rule``), or
    ``position field 'options.<name>': expected true/false|a string|a whole number, got
    ...`` citing ``type_rule`` (``None``: the option's own rule)."""
    by_name = {spec.name: spec for spec in specs}
    for key, value in raw.items():
        spec = by_name.get(key)
        if spec is None:
            known = ", ".join(sorted(by_name))
            raise field_error("options", f"unknown option {short_repr(key)} (known: {known})", rule)
        if key == "deck":
            check_deck_json(value, spec.rule)
        elif type(value) is not type(spec.default):
            kind = _OPTION_KIND.get(type(spec.default), "a whole number")
            raise field_error(
                f"options.{key}", f"expected {kind}, got {short_repr(value)}",
                spec.rule if type_rule is None else type_rule,
            )


_OPTION_KIND: dict[type, str] = {bool: "true/false", str: "a string"}


# ------------------------------------------------------------------ decks


def deck_option(
    raw: object, read: Callable[[str], object], rule: str, text_codes: bool = True
) -> str:
    """The value of a ``deck`` option (RI-1.5, RT-1.1): a bundled deck's name
    (:data:`BUNDLED_DECKS`) or inline cards, given as a JSON list of card codes or (from
    the command line / a lobby, when ``text_codes``) one string of codes separated by
    white space.  Returns the canonical string form: the name, or the codes joined by
    single spaces.  A position's JSON gives inline cards as a list (``text_codes=False``).

    Every code is checked with ``read`` (raises NotationError for a bad code).  Raises
    NotationError ``option deck: ...`` (``rule``) for another type, an unknown name, no
    card, more than :data:`MAX_CARDS` cards or a bad code (named by its place).  A file
    name is never a deck: only ``--deck-file`` on the command line reads a file.
    """
    if isinstance(raw, str):
        if raw.strip() in BUNDLED_DECKS:
            return raw.strip()
        codes = raw.split()
        if not text_codes or (len(codes) == 1 and not _reads(read, codes[0])):
            inline = "card codes" if text_codes else "a list of card codes"
            raise NotationError(
                f"option deck: {short_repr(raw)} is no bundled deck (known: "
                f"{', '.join(BUNDLED_DECKS)}); inline cards are {inline}, and only "
                "--deck-file reads a deck file",
                rule,
            )
    elif isinstance(raw, list | tuple):
        codes = list(raw)
    else:
        raise NotationError(
            f"option deck: expected a bundled deck name ({', '.join(BUNDLED_DECKS)}) or a "
            f"list of card codes, got {short_repr(raw)}",
            rule,
        )
    if not codes:
        raise NotationError("option deck: holds no card", rule)
    if len(codes) > MAX_CARDS:
        raise NotationError(f"option deck: {len(codes)} cards (at most {MAX_CARDS})", rule)
    for index, code in enumerate(codes):
        if not isinstance(code, str) or not code or code != code.strip() or " " in code:
            raise NotationError(
                f"option deck: card {index}: expected a card code, got {short_repr(code)}", rule
            )
        try:
            read(code)
        except NotationError as err:
            raise NotationError(f"option deck: card {index}: {err.message}", rule) from None
    return " ".join(codes)


def check_deck_json(value: object, rule: str) -> None:
    """Check the JSON type of a position's ``options.deck``: a bundled deck's name or a
    list (whose codes :func:`deck_option` checks).  Raises NotationError ``position field
    'options.deck': ...`` for any other string (a file name included) or type."""
    if isinstance(value, list) or value in BUNDLED_DECKS:
        return
    names = ", ".join(BUNDLED_DECKS)
    if not isinstance(value, str):
        raise field_error(
            "options.deck",
            f"expected a string, got {short_repr(value)}; a deck is a bundled deck's name "
            f"({names}) or a list of card codes",
            rule,
        )
    raise field_error(
        "options.deck",
        f"{short_repr(value)} is no bundled deck (known: {names}); inline cards are a list "
        "of card codes, and a position never names a file",
        rule,
    )


def _reads(read: Callable[[str], object], code: str) -> bool:
    try:
        read(code)
    except NotationError:
        return False
    return True


def inline_codes(deck: str) -> list[str] | None:
    """The card codes of an inline deck value, ``None`` for a bundled deck's name."""
    return None if deck in BUNDLED_DECKS else deck.split()


def deck_json(deck: str) -> str | list[str]:
    """A deck option value as JSON: the bundled deck's name, or the list of card codes."""
    codes = inline_codes(deck)
    return deck if codes is None else codes


def read_text_file(path: str, limit: int, what: str, rule: str | None = None) -> str:
    """The text of the regular file ``path`` (``what`` names it in messages:
    ``"--deck-file"``): at most ``limit`` bytes, strict UTF-8.

    FIFOs, devices, folders and sockets are refused before they are opened (``os.stat``
    and ``S_ISREG``); the file is opened with ``O_NONBLOCK`` and checked again, so nothing
    blocks or reads without end.  Raises NotationError ``<what> <path>: ...`` for a
    missing or unreadable file, another kind of file, more than ``limit`` bytes or bytes
    that are not UTF-8.
    """
    where = f"{what} {short_repr(path, 80)}"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise NotationError(f"{where}: not a regular file", rule)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise NotationError(f"{where}: not a regular file", rule)
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(limit + 1)
        finally:
            os.close(fd)
    except NotationError:
        raise
    except OSError as err:
        raise NotationError(f"{where}: cannot read ({err.strerror or err})", rule) from None
    except ValueError as err:  # e.g. a NUL byte in the path
        raise NotationError(f"{where}: cannot read ({err})", rule) from None
    if len(data) > limit:
        raise NotationError(f"{where}: larger than {limit} bytes", rule)
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as err:
        raise NotationError(
            f"{where}: not UTF-8 text (byte {err.start}: {err.reason})", rule
        ) from None


def deck_text_cards(
    text: str, source: str, read_entry: Callable[[str], Sequence[T]], rule: str
) -> tuple[T, ...]:
    """The cards of a deck file's ``text``, in file order (``source`` names the file in
    messages): each line's entry (``#`` starts a comment; white space around an entry and
    blank lines are dropped) read by the game's ``read_entry`` into its cards.  An empty
    tuple for a file without entries (each game words that error itself).

    Raises NotationError (``rule``): ``deck <source> line <n>: <what read_entry says>``,
    or ``deck <source>: more than <MAX_CARDS> cards``.

    >>> deck_text_cards("7C/>  # a comment\\n\\nP/E\\n", "example", lambda e: [e], "RI-1.5")
    ('7C/>', 'P/E')
    """
    cards: list[T] = []
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        try:
            cards.extend(read_entry(entry))
        except NotationError as err:
            raise NotationError(f"deck {source} line {number}: {err.message}", rule) from None
        if len(cards) > MAX_CARDS:
            raise NotationError(f"deck {source}: more than {MAX_CARDS} cards", rule)
    return tuple(cards)


def deck_cards(
    deck: str, read: Callable[[str], T], bundled: Callable[[], tuple[T, ...]], rule: str
) -> tuple[T, ...]:
    """The cards of option ``deck`` (:func:`deck_option`'s form), in order: ``bundled()``
    for the bundled deck's name, else the inline codes, each read by ``read``.  Reads no
    file.  Raises NotationError ``option deck: ...`` (``rule``) for any other value."""
    codes = inline_codes(deck_option(deck, read, rule))
    return bundled() if codes is None else tuple(read(code) for code in codes)


def deck_file_cards(path: str, parse: Callable[[str, str], T], rule: str) -> T:
    """The cards of the deck file ``path`` (the command line's ``--deck-file``): its text
    (:func:`read_text_file`, at most :data:`DECK_FILE_LIMIT` bytes) read by the game's
    ``parse(text, source)``, the source named by the path.  Raises NotationError
    (``rule``) naming the file: missing, a FIFO or device, too large, not UTF-8; ``parse``
    names a bad line."""
    text = read_text_file(path, DECK_FILE_LIMIT, "--deck-file", rule)
    return parse(text, short_repr(path, 80))


class JsonForms(ABC):
    """The text forms both games' positions share (docs/notation.md "Positions"): ``str(p)`` is
    the canonical JSON text and ``parse(text)`` reads it back (``parse(str(p)) == p``).  A
    position class supplies ``from_json(obj)`` (validating; raises ``NotationError``) and
    ``to_json()``."""

    __slots__ = ()

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The JSON object of the position."""

    @classmethod
    @abstractmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        """Read and validate a JSON object; raises ``NotationError``."""

    def __str__(self) -> str:
        return dumps(self.to_json())

    @classmethod
    def parse(cls, text: str, where: str = "text") -> Self:
        """Read a position from its JSON text (``where`` names the source in messages);
        raises :class:`~engine.core.NotationError` for text that is not a strict JSON
        object (:func:`loads_object`) or a malformed position."""
        return cls.from_json(loads_object(text, where))

"""Right on Time cards: codes, values and the deck file (RT-1, ``docs/notation.md``).

A card is identified by its code (a ``str``, :data:`engine.core.Card`); :class:`RotCard`
is the frozen value behind a code.  Codes:

- ``1`` .. ``7``: number cards;
- ``J``: a Joker in a hand, the draw pile or a bonus list; ``J<n>`` (n 1..7): a Joker lying
  on the discard pile, declared as n (RT-1.4);
- ``N``: Zurück auf Null, worth 0 on top of the discard pile (RT-1.3, RT-3.3);
- ``D<n>``: Du bist! of value n; ``Z<n>``: Ziehen! of value n (n 1..7, RT-1.2), laid by that
  value like a number card, alone or in a pair (RT-3.5);

The default deck is data (``deck.txt`` beside this module, RT-1.1/RT-1.2), read and checked
by :func:`default_deck`.  A position's option ``deck`` names it (``"standard"``) or holds
the cards inline (:func:`deck_value`, :func:`load_deck`); it never names a file: only the
command line's ``--deck-file`` reads one (:func:`read_deck_file`).  :func:`is_submultiset`
is a small generic card-list helper (multiset containment) the rest of the package shares.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from engine._common import (
    STANDARD_DECK,
    deck_cards,
    deck_file_cards,
    deck_option,
    deck_text_cards,
)
from engine.core import Card, NotationError, short_repr

NUMBER = "number"
JOKER = "joker"
NULL = "null"
DU_BIST = "du_bist"
ZIEHEN = "ziehen"

_VALUES = range(1, 8)

HAND_CODES: frozenset[Card] = frozenset(
    [str(n) for n in _VALUES] + ["J", "N"] + [f"D{n}" for n in _VALUES] + [f"Z{n}" for n in _VALUES]
)
"""Codes valid in a hand, the draw pile, a bonus list, a deck and an action."""

PILE_CODES: frozenset[Card] = (HAND_CODES - {"J"}) | frozenset(f"J{n}" for n in _VALUES)
"""Codes valid on the discard pile (a Joker there is always declared, RT-1.4)."""

VALUE: dict[Card, int] = {}
"""RT-1.3: the value of every code that has one (``J`` has none until declared; ``N`` is 0)."""
for _code in PILE_CODES | HAND_CODES:
    if _code == "N":
        VALUE[_code] = 0
    elif _code != "J":
        VALUE[_code] = int(_code[-1])

EFFECT: dict[Card, str] = {}
"""Effect kind of a code: ``">"`` for Du bist!, ``"@"`` for Ziehen!; absent otherwise."""
for _n in _VALUES:
    EFFECT[f"D{_n}"] = ">"
    EFFECT[f"Z{_n}"] = "@"


@dataclass(frozen=True, slots=True)
class RotCard:
    """The value behind a card code: ``kind`` (``"number"``, ``"joker"``, ``"null"``,
    ``"du_bist"``, ``"ziehen"``) and ``value`` (RT-1.3; ``None`` for an undeclared ``J``).

    ``str(card)`` is the code; ``RotCard.parse(str(card)) == card``.

    >>> RotCard.parse("J4")
    RotCard(kind='joker', value=4)
    >>> str(RotCard.parse("D5")), RotCard.parse("N").value
    ('D5', 0)
    """

    kind: str
    value: int | None

    @classmethod
    def parse(cls, code: str) -> RotCard:
        """The card of ``code`` (a hand or discard-pile code); raises NotationError."""
        if not isinstance(code, str) or (code not in HAND_CODES and code not in PILE_CODES):
            raise NotationError(f"{short_repr(code)} is not a Right on Time card code", "RT-1.1")
        if code == "J":
            return cls(JOKER, None)
        if code == "N":
            return cls(NULL, 0)
        value = int(code[-1])
        kind = {"J": JOKER, "D": DU_BIST, "Z": ZIEHEN}.get(code[0], NUMBER)
        return cls(kind, value)

    def __str__(self) -> str:
        if self.kind == NULL:
            return "N"
        prefix = {JOKER: "J", DU_BIST: "D", ZIEHEN: "Z"}.get(self.kind, "")
        return prefix + ("" if self.value is None else str(self.value))


def unjoker(code: Card) -> Card:
    """``J<n>`` becomes ``J`` (RT-1.4: a collected or reshuffled Joker); other codes stay.

    >>> unjoker("J3"), unjoker("5")
    ('J', '5')
    """
    return "J" if code[0] == "J" else code


def is_submultiset(part: Iterable[Card], whole: Iterable[Card]) -> bool:
    """True when every card of ``part`` is in ``whole`` at least as often.

    >>> is_submultiset(["3"], ["3", "5"]), is_submultiset(["3", "3"], ["3", "5"])
    (True, False)
    """
    need = Counter(part)
    have = Counter(whole)
    return all(have[c] >= k for c, k in need.items())


DECK_SIZE = 50
"""Cards in the bundled deck (RT-1.1)."""

_DEFAULT_COUNTS = {"1": 4, **{str(n): 5 for n in range(2, 8)}, "J": 4, "N": 4}

_COUNT_RE = re.compile(r"[0-9]{1,4}")


def read_hand_code(code: str) -> Card:
    """``code`` if it is valid in a hand, the draw pile, a bonus list or a deck; raises
    NotationError: ``J<n>`` lies only on the discard pile (RT-1.4), anything else that is
    no code (RT-1.1)."""
    if code in HAND_CODES:
        return code
    if code in PILE_CODES:
        raise NotationError(f"{code!r}: J<n> lies only on the discard pile", "RT-1.4")
    raise NotationError(f"{short_repr(code)} is not a card code", "RT-1.1")


def read_pile_code(code: str) -> Card:
    """``code`` if it is valid on the discard pile; raises NotationError: a Joker there is
    ``J<n>`` (RT-1.4), anything else that is no code (RT-1.1)."""
    if code in PILE_CODES:
        return code
    if code == "J":
        raise NotationError("a Joker on the discard pile is J<n>", "RT-1.4")
    raise NotationError(f"{short_repr(code)} is not a card code", "RT-1.1")


def parse_deck(text: str, source: str) -> tuple[Card, ...]:
    """The cards of a deck file's ``text``, in file order (``source`` names it in
    messages).

    File format: one ``CODE COUNT`` pair per line (``7 5``: five 7s; COUNT 1..9999 in
    ASCII digits), ``#`` starts a comment, blank lines are ignored.  Codes are hand codes
    (no ``J<n>``, RT-1.2).  Raises NotationError naming the line of a bad entry, or when
    the file holds no card or more than ``engine._common.MAX_CARDS``.

    >>> parse_deck("7 2  # two sevens\\nJ 1\\n", "mine.txt")
    ('7', '7', 'J')
    >>> parse_deck("7 \\u00b2\\n", "mine.txt")
    Traceback (most recent call last):
    ...
    engine.core.NotationError: deck mine.txt line 1: expected 'CODE COUNT', got '7 ²' (RT-1.2)
    """
    cards = deck_text_cards(text, source, _deck_entry, "RT-1.2")
    if not cards:
        raise NotationError(f"deck {source}: holds no cards", "RT-1.1")
    return cards


def _deck_entry(line: str) -> list[Card]:
    """The cards of one ``CODE COUNT`` entry; raises NotationError (RT-1.1, RT-1.2)."""
    parts = line.split()
    if len(parts) != 2 or not _COUNT_RE.fullmatch(parts[1]) or int(parts[1]) < 1:
        raise NotationError(f"expected 'CODE COUNT', got {short_repr(line)}", "RT-1.2")
    return [read_hand_code(parts[0])] * int(parts[1])


@cache
def default_deck() -> tuple[Card, ...]:
    """The bundled deck (``engine/right_on_time/deck.txt``), read and checked once: it must
    match RT-1.1 exactly (50 cards: ``1`` x4, ``2``..``7`` x5, four each of ``J``, ``N``,
    Du bist! and Ziehen!, any values 1..7, RT-1.2).  Raises NotationError otherwise.

    >>> len(default_deck()), default_deck().count("J")
    (50, 4)
    """
    text = resources.files("engine.right_on_time").joinpath("deck.txt").read_text("utf-8")
    cards = parse_deck(text, "deck.txt")
    _check_default(cards, "deck deck.txt")
    return cards


def deck_value(raw: object, text_codes: bool = True) -> str:
    """The canonical value of option ``deck`` from ``raw``: ``"standard"`` (the bundled
    deck), or inline hand codes (a list, or with ``text_codes`` one string of codes
    separated by white space), returned joined by single spaces.  Never a file name.
    Raises NotationError ``option deck: ...`` (RT-1.2) for an unknown name, no card, too
    many cards or a bad code."""
    return deck_option(raw, read_hand_code, "RT-1.2", text_codes)


@lru_cache(maxsize=32)
def load_deck(deck: str = STANDARD_DECK) -> tuple[Card, ...]:
    """The cards of option ``deck`` (:func:`deck_value`'s form), in order: the bundled deck
    for ``"standard"``, else the inline codes.  Reads no file.  Raises NotationError naming
    the option for any other value.

    >>> len(load_deck()), load_deck("7 7 N")
    (50, ('7', '7', 'N'))
    """
    return deck_cards(deck, read_hand_code, default_deck, "RT-1.2")


def read_deck_file(path: str) -> tuple[Card, ...]:
    """The cards of the deck file ``path`` (the command line's ``--deck-file``): a regular
    file of at most 64 KiB of UTF-8 text in :func:`parse_deck`'s format.  Raises
    NotationError naming the file: missing, a FIFO or device, too large, not UTF-8, a bad
    line."""
    return deck_file_cards(path, parse_deck, "RT-1.2")


def _check_default(cards: Sequence[Card], where: str) -> None:
    counts = Counter(cards)
    for code, want in _DEFAULT_COUNTS.items():
        if counts[code] != want:
            raise NotationError(f"{where}: {counts[code]} x {code}, expected {want}", "RT-1.1")
    for letter, name in (("D", "Du bist!"), ("Z", "Ziehen!")):
        have = sum(k for c, k in counts.items() if c[0] == letter)
        if have != 4:
            raise NotationError(f"{where}: {have} {name} cards, expected 4", "RT-1.1")
    if len(cards) != DECK_SIZE:
        raise NotationError(f"{where}: {len(cards)} cards, expected {DECK_SIZE}", "RT-1.1")

"""Riiing! cards: the ``FRONT/BACK`` code of ``docs/notation.md`` as a frozen value (RI-1),
and the condition a back sets for the next card played (RI-3).

A card's code is its identity: two cards with the same code are interchangeable.

>>> card = RiiingCard.parse("7C/>")
>>> card.number, card.symbol, card.kind, card.back
(7, 'C', 'number', '>')
>>> str(RiiingCard.parse("P/{2,5,8}")), RiiingCard.parse("!T/E").symbol
('P/{2,5,8}', 'T')
>>> RiiingCard.parse("3S/*C").reverse
'C'
>>> RiiingCard.parse("0C/>")
Traceback (most recent call last):
...
engine.core.NotationError: bad card code '0C/>': front '0C' is not <1-9><A|S|C|T>,
    !<symbol> or P (RI-1.1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from engine.core import NotationError, short_repr

SYMBOLS: tuple[str, ...] = ("A", "S", "C", "T")
"""The four symbols: ``A`` alarm clock, ``S`` soap, ``C`` coffee, ``T`` toast (RI-1.1)."""

SYMBOL_NAMES: dict[str, str] = {"A": "alarm clock", "S": "soap", "C": "coffee", "T": "toast"}
"""Symbol code -> the word used in messages."""

CONDITIONS: tuple[str, ...] = (">", "<", "=", "~", "E", "O")
"""The condition backs other than one-of (``{a,b,c}``) backs (RI-1.3)."""

CardKind = Literal["number", "demand", "phone"]


@dataclass(frozen=True, slots=True)
class RiiingCard:
    """One double-sided card (RI-1.1): ``front`` (``"7C"``, ``"!T"``, ``"P"``) and ``back``
    (``">"``, ``"{1,4,7}"``, ``"*C"``).  ``str(card)`` is its code ``FRONT/BACK`` and
    ``RiiingCard.parse(str(card)) == card``.

    Derived, read-only fields (not part of equality): ``kind`` (``"number"``,
    ``"demand"``, ``"phone"``), ``number`` (1-9, ``None`` for demand cards and Phones:
    RI-1.4), ``symbol`` (``"A" "S" "C" "T"``; ``None`` for the Phone, whose symbol is
    "phone", which no other card has), ``one_of`` (the numbers of a one-of back, else
    empty), ``reverse`` (the symbol of a special reverse back ``*X``, else ``None``) and
    ``code`` (``str(card)``).

    Raises :class:`NotationError` (RI-1.1) for an invalid front or back.
    """

    front: str
    back: str
    kind: CardKind = field(init=False, compare=False, repr=False)
    number: int | None = field(init=False, compare=False, repr=False)
    symbol: str | None = field(init=False, compare=False, repr=False)
    one_of: frozenset[int] = field(init=False, compare=False, repr=False)
    reverse: str | None = field(init=False, compare=False, repr=False)
    code: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        kind, number, symbol = _read_front(self.front, self.back)
        one_of, reverse = _read_back(self.front, self.back)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "symbol", symbol)
        object.__setattr__(self, "one_of", one_of)
        object.__setattr__(self, "reverse", reverse)
        object.__setattr__(self, "code", f"{self.front}/{self.back}")

    def __str__(self) -> str:
        return self.code

    @staticmethod
    def parse(code: str) -> RiiingCard:
        """Read a card code ``FRONT/BACK``; raises :class:`NotationError` (RI-1.1).

        Equal codes give the same (interned) object.
        """
        if not isinstance(code, str):
            raise NotationError(f"bad card code {short_repr(code)}: expected a string", "RI-1.1")
        return _parse_cached(code)

    @property
    def is_special(self) -> bool:
        """True for demand cards and Phones: playable regardless of the condition (RI-5.1)."""
        return self.kind != "number"


@lru_cache(maxsize=4096)
def _parse_cached(code: str) -> RiiingCard:
    front, sep, back = code.partition("/")
    if not sep:
        raise NotationError(f"bad card code {short_repr(code)}: expected FRONT/BACK", "RI-1.1")
    return RiiingCard(front, back)


def _read_front(front: str, back: str) -> tuple[CardKind, int | None, str | None]:
    if front == "P":
        return "phone", None, None
    if len(front) == 2 and front[1] in SYMBOLS:
        if front[0] == "!":
            return "demand", None, front[1]
        if front[0] in "123456789":
            return "number", int(front[0]), front[1]
    raise NotationError(
        f"bad card code {short_repr(f'{front}/{back}')}: front {short_repr(front)} is not "
        "<1-9><A|S|C|T>, "
        "!<symbol> or P",
        "RI-1.1",
    )


@lru_cache(maxsize=256)
def _one_of(back: str) -> frozenset[int]:
    return _read_back("P", back)[0]


def _read_back(front: str, back: str) -> tuple[frozenset[int], str | None]:
    if back in CONDITIONS:
        return frozenset(), None
    if len(back) == 2 and back[0] == "*" and back[1] in SYMBOLS:
        return frozenset(), back[1]
    if len(back) >= 3 and back[0] == "{" and back[-1] == "}":
        items = back[1:-1].split(",")
        if all(len(i) == 1 and i in "123456789" for i in items):
            numbers = [int(i) for i in items]
            if numbers == sorted(set(numbers)):
                return frozenset(numbers), None
    raise NotationError(
        f"bad card code {short_repr(f'{front}/{back}')}: back {short_repr(back)} is not one of "
        "> < = ~ E O, "
        "{a,b,c} (ascending numbers 1-9, no spaces) or *<symbol>",
        "RI-1.1",
    )


def satisfies(card: RiiingCard, last: RiiingCard, condition: str | None) -> bool:
    """Whether ``card`` meets ``condition`` (a back code; ``None`` = open, RI-3.5) when
    ``last`` is the last card played (RI-3.2).

    A card with no number never meets a number condition and a Phone never meets ``~``
    (RI-3.3); a last card with no number opens ``> < =``, a Phone opens ``~`` (RI-3.4).
    This is the condition only: demand cards and Phones are playable anyway (RI-5.1).
    A reverse back (``*X``) sets no condition: it only shows during a window (RI-6.2).

    >>> c = RiiingCard.parse
    >>> satisfies(c("9C/<"), c("8S/E"), ">"), satisfies(c("7C/<"), c("8S/E"), ">")
    (True, False)
    >>> satisfies(c("2T/>"), c("!A/<"), ">"), satisfies(c("P/>"), c("!A/<"), ">")
    (True, False)
    >>> satisfies(c("2T/>"), c("P/<"), "~"), satisfies(c("2T/>"), c("5S/<"), "{1,2,3}")
    (True, True)
    """
    if condition is None or condition[0] == "*":
        return True
    number = card.number
    if condition == "~":
        if last.kind == "phone":
            return card.kind != "phone"
        return card.symbol is not None and card.symbol == last.symbol
    if number is None:
        return False
    if condition in "><=":
        if last.number is None:
            return True
        if condition == ">":
            return number > last.number
        if condition == "<":
            return number < last.number
        return number == last.number
    if condition == "E":
        return number % 2 == 0
    if condition == "O":
        return number % 2 == 1
    return number in _one_of(condition)


def condition_words(condition: str, last: RiiingCard) -> str:
    """What ``condition`` asks of the next card, for error messages (RI-3.2):
    ``"a card higher than 8"``, ``"the same symbol, coffee"``, ``"one of 1, 4, 7"``.

    >>> condition_words(">", RiiingCard.parse("8S/E"))
    'a card higher than 8'
    >>> condition_words("~", RiiingCard.parse("!C/E"))
    'the same symbol, coffee'
    """
    if condition == ">":
        return f"a card higher than {last.number}"
    if condition == "<":
        return f"a card lower than {last.number}"
    if condition == "=":
        return f"the same number, {last.number}"
    if condition == "~":
        return f"the same symbol, {SYMBOL_NAMES.get(last.symbol or '', 'phone')}"
    if condition == "E":
        return "an even number"
    if condition == "O":
        return "an odd number"
    numbers = sorted(_one_of(condition))
    return "one of " + ", ".join(str(n) for n in numbers)

"""Riiing!'s words on every screen (docs/screens.md: text in words, not only symbols): the
symbols as one word and as the TV's longer name, the card fronts in words, and the
condition in force read once from the engine's card values (RI-3) for the hand screen's
short form and the TV's condition zone.

Cards are read through the engine's :class:`engine.riiing.cards.RiiingCard` only; a code
the engine does not read is ``None`` here (the screens draw "?", they never judge codes).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import NotationError
from engine.riiing.cards import RiiingCard

PHONE = "P"
"""The Phone's symbol letter on the device's screens (docs/notation.md: ``P``; the engine's card
has no symbol letter for it, RI-1.4)."""

SYMBOL_WORDS: dict[str, str] = {
    "A": "ALARM",
    "S": "SOAP",
    "C": "COFFEE",
    "T": "TOAST",
    PHONE: "PHONE",
}
"""Symbol letter (notation: A S C T, P for the Phone, RI-1.1) -> one word people read, for
tight lines ("play ALARM or draw") and the hand screens."""

SYMBOL_NAMES: dict[str, str] = {
    "A": "ALARM CLOCK",
    "S": "SOAP",
    "C": "COFFEE",
    "T": "TOAST",
    PHONE: "PHONE",
}
"""Symbol letter -> the word shown beside a symbol on the TV."""


def card(code: str | None) -> RiiingCard | None:
    """The engine's card of ``code`` (``"7C/>"``), or ``None`` for no code or one the engine
    does not read (RI-1.1); never raises."""
    if code is None:
        return None
    try:
        return RiiingCard.parse(code)
    except NotationError:
        return None


def symbol_of(c: RiiingCard) -> str:
    """The symbol letter a card shows: ``"A" "S" "C" "T"``, or :data:`PHONE` (RI-1.4)."""
    return c.symbol or PHONE


def word(symbol: str | None) -> str:
    """One word for a symbol letter (``"T"`` -> ``"TOAST"``); an unknown letter as given."""
    return "" if symbol is None else SYMBOL_WORDS.get(symbol, symbol)


def card_words(code: str) -> str:
    """A card's front in words (RI-1.1): ``"7C/>"`` -> ``"7 COFFEE"``, ``"!T/E"`` ->
    ``"TOAST!"``, ``"P/{1,4,7}"`` -> ``"PHONE"``; an unreadable code as given."""
    c = card(code)
    if c is None:
        return code
    if c.symbol is None:
        return SYMBOL_WORDS[PHONE]
    if c.number is None:
        return SYMBOL_WORDS[c.symbol] + "!"
    return f"{c.number} {SYMBOL_WORDS[c.symbol]}"


@dataclass(frozen=True, slots=True)
class Condition:
    """The condition in force (RI-3.1), read against the last card (RI-3.2, RI-3.4).

    ``kind``: ``"none"`` (the draw pile is empty: all open, RI-3.5), ``">"``, ``"<"``,
    ``"="``, ``"~"``, ``"E"``, ``"O"``, ``"one_of"``, ``"reverse"`` (a ``*X`` back) or
    ``"unknown"`` (a back the engine does not read); ``number``: the last card's number
    for ``> < =`` (``None``: opened by a card with no number, RI-3.4); ``symbol``: the last
    card's symbol for ``~`` (``None``: opened by a Phone, RI-3.4), the reverse's symbol;
    ``numbers``: a one-of back's numbers, ascending; ``code``: the back as given.
    """

    kind: str
    code: str = ""
    number: int | None = None
    symbol: str | None = None
    numbers: tuple[int, ...] = ()

    @property
    def is_open(self) -> bool:
        """Any card meets it (RI-3.4, RI-3.5)."""
        if self.kind == "none":
            return True
        if self.kind in (">", "<", "="):
            return self.number is None
        return self.kind == "~" and self.symbol is None

    def short(self) -> str:
        """The hand screen's short form, in words (it must fit the 128 px header beside
        "YOUR TURN"): ``"OVER 6"``, ``"UNDER 6"``, ``"SAME 6"``, ``"COFFEES"`` (any coffee
        card), ``"EVEN"``, ``"ODD"``, ``"2 5 8"``, ``"ANY"`` when open; an unknown back as
        given."""
        if self.is_open:
            return "ANY"
        if self.kind in SHORT_WORDS:
            return f"{SHORT_WORDS[self.kind]} {self.number}"
        if self.kind == "~":
            return word(self.symbol) + "S"
        if self.kind == "E":
            return "EVEN"
        if self.kind == "O":
            return "ODD"
        if self.kind == "one_of":
            return " ".join(str(n) for n in self.numbers)
        return self.code


SHORT_WORDS = {">": "OVER", "<": "UNDER", "=": "SAME"}
"""The hand header's word for each number condition (RI-3.2)."""


def read_condition(back: str | None, last_card: str) -> Condition:
    """The condition back ``back`` (``None``: empty draw pile) sets for the next card, with
    ``last_card`` the discard pile's top code (RI-3); never raises."""
    if back is None:
        return Condition("none")
    last = card(last_card)
    if back in (">", "<", "="):
        return Condition(back, back, number=last.number if last is not None else None)
    if back == "~":
        return Condition(back, back, symbol=last.symbol if last is not None else None)
    if back in ("E", "O"):
        return Condition(back, back)
    probe = card(f"{PHONE}/{back}")  # the engine reads a back on any front
    if probe is not None and probe.reverse is not None:
        return Condition("reverse", back, symbol=probe.reverse)
    if probe is not None and probe.one_of:
        return Condition("one_of", back, numbers=tuple(sorted(probe.one_of)))
    return Condition("unknown", back)

"""The Riiing! deck as data (RI-1.5): the bundled ``deck.txt`` or cards held inline.

A position's option ``deck`` names the bundled deck (``"standard"``, the default) or holds
its cards inline (a JSON list of card codes; on the command line and in a lobby one string
of codes separated by spaces).  It never names a file: only ``python -m engine new riiing
--deck-file FILE`` reads a deck file (:func:`read_deck_file`), whose cards then go inline.

A deck file holds one card code ``FRONT/BACK`` per line (``docs/notation.md``); ``#``
starts a comment and blank lines are ignored.  The bundled deck is read once through
``importlib.resources`` and must hold exactly 96 cards; an inline deck may hold any number
of valid cards from 1 to ``engine._common.MAX_CARDS`` (``new`` checks that they are enough
to deal, RI-2.1).

>>> len(default_deck()), len(load_deck("standard"))
(96, 96)
>>> load_deck("7C/> P/E")
(RiiingCard(front='7C', back='>'), RiiingCard(front='P', back='E'))
>>> parse_deck("7C/>  # a comment\\n\\nP/E\\n", "example")
(RiiingCard(front='7C', back='>'), RiiingCard(front='P', back='E'))
>>> parse_deck("7C/>\\n7X/E\\n", "example")
Traceback (most recent call last):
...
engine.core.NotationError: deck example line 2: bad card code '7X/E':
    front '7X' is not <1-9><A|S|C|T>, !<symbol> or P (RI-1.5)
>>> load_deck("/etc/passwd")
Traceback (most recent call last):
...
engine.core.NotationError: option deck: '/etc/passwd' is no bundled deck (known: standard);
    inline cards are card codes, and only --deck-file reads a deck file (RI-1.5)
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources

from engine._common import (
    STANDARD_DECK,
    deck_cards,
    deck_file_cards,
    deck_option,
    deck_text_cards,
)
from engine.core import NotationError
from engine.riiing.cards import RiiingCard

DECK_SIZE = 96
"""Cards in the bundled deck (RI-1.1)."""

RULE = "RI-1.5"
"""The rule every deck error cites."""


def parse_deck(text: str, source: str) -> tuple[RiiingCard, ...]:
    """Read the cards of a deck file's ``text``, in file order.

    ``source`` names the file in messages.  Raises :class:`NotationError` (RI-1.5) naming
    the line of an invalid code, or when the file holds no card or more than
    ``engine._common.MAX_CARDS``.
    """
    cards = deck_text_cards(text, source, lambda code: (RiiingCard.parse(code),), RULE)
    if not cards:
        raise NotationError(f"deck {source}: holds no card", RULE)
    return cards


@cache
def default_deck() -> tuple[RiiingCard, ...]:
    """The bundled deck (``engine/riiing/deck.txt``), read and checked once (RI-1.5).

    Raises :class:`NotationError` if the file holds an invalid code or not 96 cards.
    """
    text = resources.files("engine.riiing").joinpath("deck.txt").read_text(encoding="utf-8")
    cards = parse_deck(text, "deck.txt")
    if len(cards) != DECK_SIZE:
        raise NotationError(
            f"deck deck.txt: holds {len(cards)} cards, the default deck has {DECK_SIZE}", RULE
        )
    return cards


def deck_value(raw: object, text_codes: bool = True) -> str:
    """The canonical value of option ``deck`` from ``raw``: ``"standard"``, or inline card
    codes (a list, or with ``text_codes`` one string of codes separated by white space),
    returned joined by single spaces.  Raises NotationError ``option deck: ...`` (RI-1.5)
    for an unknown name (a file name included), no card, too many cards or a bad code."""
    return deck_option(raw, RiiingCard.parse, RULE, text_codes)


@lru_cache(maxsize=32)
def load_deck(deck: str) -> tuple[RiiingCard, ...]:
    """The cards of option ``deck`` (:func:`deck_value`'s form): the bundled deck for
    ``"standard"``, else the inline codes in order.  Reads no file.  Raises
    :class:`NotationError` naming the option for any other value (RI-1.5)."""
    return deck_cards(deck, RiiingCard.parse, default_deck, RULE)


def read_deck_file(path: str) -> tuple[RiiingCard, ...]:
    """The cards of the deck file ``path`` (the ``--deck-file`` of the command line): a
    regular file of at most 64 KiB of UTF-8 text in :func:`parse_deck`'s format.  Raises
    NotationError naming the file (RI-1.5): missing, a FIFO or device, too large, not UTF-8,
    a bad line."""
    return deck_file_cards(path, parse_deck, RULE)


__all__ = [
    "DECK_SIZE",
    "STANDARD_DECK",
    "deck_value",
    "default_deck",
    "load_deck",
    "parse_deck",
    "read_deck_file",
]

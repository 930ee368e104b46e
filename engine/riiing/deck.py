"""The Riiing! deck as data (RI-1.5): the bundled ``deck.txt`` or a builder's own file.

A deck file holds one card code ``FRONT/BACK`` per line (``design/notation.md``); ``#``
starts a comment and blank lines are ignored.  The bundled deck is read once through
``importlib.resources`` and must hold exactly 96 cards; a file named by the option
``deck`` may hold any number of valid cards.

>>> len(default_deck())
96
>>> parse_deck("7C/>  # a comment\\n\\nP/E\\n", "example")
(RiiingCard(front='7C', back='>'), RiiingCard(front='P', back='E'))
>>> parse_deck("7C/>\\n7X/E\\n", "example")
Traceback (most recent call last):
...
engine.core.NotationError: deck example line 2: bad card code '7X/E':
    front '7X' is not <1-9><A|S|C|T>, !<symbol> or P (RI-1.5)
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from engine.core import NotationError
from engine.riiing.cards import RiiingCard

DECK_SIZE = 96
"""Cards in the bundled deck (RI-1.1)."""


def parse_deck(text: str, source: str) -> tuple[RiiingCard, ...]:
    """Read the cards of a deck file's ``text``, in file order.

    ``source`` names the file in messages.  Raises :class:`NotationError` (RI-1.5) naming
    the line of an invalid code, or when the file holds no card.
    """
    cards: list[RiiingCard] = []
    for number, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0].strip()
        if not code:
            continue
        try:
            cards.append(RiiingCard.parse(code))
        except NotationError as err:
            raise NotationError(f"deck {source} line {number}: {err.message}", "RI-1.5") from None
    if not cards:
        raise NotationError(f"deck {source}: holds no card", "RI-1.5")
    return tuple(cards)


@cache
def default_deck() -> tuple[RiiingCard, ...]:
    """The bundled deck (``engine/riiing/deck.txt``), read and checked once (RI-1.5).

    Raises :class:`NotationError` if the file holds an invalid code or not 96 cards.
    """
    text = resources.files("engine.riiing").joinpath("deck.txt").read_text(encoding="utf-8")
    cards = parse_deck(text, "deck.txt")
    if len(cards) != DECK_SIZE:
        raise NotationError(
            f"deck deck.txt: holds {len(cards)} cards, the default deck has {DECK_SIZE}", "RI-1.5"
        )
    return cards


def load_deck(path: str) -> tuple[RiiingCard, ...]:
    """The deck the option ``deck`` names: ``""`` is the bundled deck, anything else a
    file path (UTF-8 text).  Raises :class:`NotationError` naming the option when the file
    cannot be read or holds an invalid code (RI-1.5)."""
    if not path:
        return default_deck()
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise NotationError(f"option deck: cannot read {path!r}: {reason}", "RI-1.5") from None
    try:
        return parse_deck(text, path)
    except NotationError as err:
        raise NotationError(f"option deck: {err.message}", "RI-1.5") from None

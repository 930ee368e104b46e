"""Right on Time cards: codes, values and the deck file (RT-1, ``design/notation.md``).

A card is identified by its code (a ``str``, :data:`engine.core.Card`); :class:`RotCard`
is the frozen value behind a code.  Codes:

- ``1`` .. ``7``: number cards;
- ``J``: a Joker in a hand, the draw pile or a bonus list; ``J<n>`` (n 1..7): a Joker lying
  on the discard pile, declared as n (RT-1.4);
- ``N``: Zurück auf Null, worth 0 on top of the discard pile (RT-1.3, RT-3.3);
- ``D<n>``: Du bist! of value n; ``Z<n>``: Ziehen! of value n (n 1..7, RT-1.2).

The default deck is data (``deck.txt`` beside this module, RT-1.1/RT-1.2), read and checked
by :func:`load_deck`.  :func:`is_submultiset` is a small generic card-list helper
(multiset containment) the rest of the package shares.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.core import Card, NotationError

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
        if code not in HAND_CODES and code not in PILE_CODES:
            raise NotationError(f"{code!r} is not a Right on Time card code", "RT-1.1")
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


DEFAULT_DECK_PATH = Path(__file__).with_name("deck.txt")
"""The default deck file (RT-1.1, RT-1.2)."""

_DEFAULT_COUNTS = {"1": 4, **{str(n): 5 for n in range(2, 8)}, "J": 4, "N": 4}


@lru_cache(maxsize=8)
def load_deck(path: str = "") -> tuple[Card, ...]:
    """The cards of a deck file, in file order (``path`` ``""``: the default deck).

    File format: one ``CODE COUNT`` pair per line (``7 5``: five 7s), ``#`` starts a
    comment, blank lines are ignored.  Codes are hand codes (no ``J<n>``).  The default deck
    must match RT-1.1 exactly (50 cards: ``1`` x4, ``2``..``7`` x5, four each of ``J``,
    ``N``, Du bist! and Ziehen!, any values 1..7, RT-1.2); another file needs valid codes
    and at least one card.  Raises NotationError naming the file and line.

    >>> len(load_deck()), load_deck().count("J")
    (50, 4)
    """
    file = Path(path) if path else DEFAULT_DECK_PATH
    where = f"deck {str(file)!r}"
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as err:
        raise NotationError(f"option deck: cannot read {str(file)!r} ({err.strerror})") from None
    cards: list[Card] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) < 1:
            raise NotationError(f"{where} line {number}: expected 'CODE COUNT', got {line!r}")
        code = parts[0]
        if code not in HAND_CODES:
            raise NotationError(f"{where} line {number}: {code!r} is not a card code", "RT-1.2")
        cards.extend([code] * int(parts[1]))
    if not cards:
        raise NotationError(f"{where}: holds no cards", "RT-1.1")
    if not path:
        _check_default(cards, where)
    return tuple(cards)


def _check_default(cards: Sequence[Card], where: str) -> None:
    counts = Counter(cards)
    for code, want in _DEFAULT_COUNTS.items():
        if counts[code] != want:
            raise NotationError(f"{where}: {counts[code]} x {code}, expected {want}", "RT-1.1")
    for letter, name in (("D", "Du bist!"), ("Z", "Ziehen!")):
        have = sum(k for c, k in counts.items() if c[0] == letter)
        if have != 4:
            raise NotationError(f"{where}: {have} {name} cards, expected 4", "RT-1.1")
    if len(cards) != 50:
        raise NotationError(f"{where}: {len(cards)} cards, expected 50", "RT-1.1")

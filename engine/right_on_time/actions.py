"""Right on Time actions as frozen values with a text form (``docs/notation.md``).

=========================  ====================================================
text                       value
=========================  ====================================================
``play 6``                 ``Play((Lay("6"),))``
``play 3 J=2``             ``Play((Lay("3"), Lay("J", 2)))``: 3 first, the Joker
                           declared 2 ends on top (RT-3.2, RT-3.4)
``play Z3 2 @1``           ``Play((Lay("Z3"), Lay("2")), Effect("@", 1))``
``play D5 >2``             ``Play((Lay("D5"),), Effect(">", 2))``
``draw``                   ``Draw()`` (RT-5.1)
``bonus J 3``              ``BonusSwap("J", "3")`` (RT-6.4)
=========================  ====================================================

Only the exact spelling ``legal`` prints is accepted: single spaces, no other whitespace,
the effect suffix last, seats without leading zeros, a Joker written ``J=<n>`` (``J3`` or a
bare ``J`` in a play is a :class:`~engine.core.NotationError`).  ``parse_action(str(a)) == a``
for every action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from engine.core import Card, NotationError, Seat, short_repr
from engine.right_on_time.cards import HAND_CODES, VALUE

Move = tuple[object, ...]
"""The rules core's compact form of an action (``engine.right_on_time.rules``)."""

DRAW_MOVE: Move = ("d",)

_JOKER_VALUES = (1, 2, 3, 4, 5, 6, 7)


@dataclass(frozen=True, slots=True)
class Lay:
    """One card of a play: its hand code (``"3"``, ``"J"``, ``"N"``, ``"D5"``) and, for a
    Joker only, the declared value 1..7 (RT-3.4).  ``str``: ``"3"`` or ``"J=4"``.

    Raises NotationError for an invalid code, a Joker without a value 1..7 or a value on
    another card."""

    card: Card
    declared: int | None = None

    def __post_init__(self) -> None:
        if self.card not in HAND_CODES:
            raise NotationError(f"lay: {self.card!r} is not a card code", "RT-1.1")
        if self.card == "J":
            if self.declared not in _JOKER_VALUES:
                raise NotationError(f"lay: a Joker is declared 1..7, got {self.declared!r}")
        elif self.declared is not None:
            raise NotationError(f"lay: only a Joker is declared, not {self.card!r}")

    @property
    def pile_code(self) -> Card:
        """The code this card has once on the discard pile (``J=4`` lies as ``J4``)."""
        return self.card if self.declared is None else f"J{self.declared}"

    def __str__(self) -> str:
        return self.card if self.declared is None else f"J={self.declared}"


@dataclass(frozen=True, slots=True)
class Effect:
    """The effect suffix of a play: ``kind`` ``">"`` (Du bist!, RT-4.1: ``seat`` makes the
    next turn) or ``"@"`` (Ziehen!, RT-4.2: ``seat`` draws a card).  ``str``: ``">2"``."""

    kind: str
    seat: Seat

    def __post_init__(self) -> None:
        if self.kind not in (">", "@"):
            raise NotationError(f"effect: kind is '>' or '@', got {self.kind!r}")
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < 0:
            raise NotationError(f"effect: expected a seat number, got {self.seat!r}")

    def __str__(self) -> str:
        return f"{self.kind}{self.seat}"


@dataclass(frozen=True, slots=True)
class Play:
    """Lay one or two cards (``cards``: first goes down first, the last ends on top) with an
    optional effect (RT-3, RT-4).  ``str``: ``"play Z3 2 @1"``."""

    cards: tuple[Lay, ...]
    effect: Effect | None = None
    _text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= len(self.cards) <= 2 or not all(isinstance(c, Lay) for c in self.cards):
            raise NotationError(f"play: one or two cards (RT-3), got {self.cards!r}")
        text = "play " + " ".join(str(c) for c in self.cards)
        text = text if self.effect is None else f"{text} {self.effect}"
        object.__setattr__(self, "_text", text)

    def __str__(self) -> str:
        return self._text


@dataclass(frozen=True, slots=True)
class Draw:
    """No legal lay: show the hand, draw one card, end the turn (RT-5.1).  ``str``: ``draw``."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class BonusSwap:
    """Take bonus card ``bonus`` into the hand, put hand card ``hand`` face down under the
    draw pile (RT-6.4).  ``str``: ``"bonus J 3"``."""

    bonus: Card
    hand: Card

    def __post_init__(self) -> None:
        for code in (self.bonus, self.hand):
            if code not in HAND_CODES:
                raise NotationError(f"bonus swap: {short_repr(code)} is not a hand card code")

    def __str__(self) -> str:
        return f"bonus {self.bonus} {self.hand}"


RotAction = Play | Draw | BonusSwap
"""Any Right on Time action."""


_PLAY_JOKER = "an action is written J=<n>"


def _seat(token: str, text: str) -> Seat:
    digits = token[1:]
    if (
        not digits.isascii()
        or not digits.isdigit()
        or len(digits) > 6
        or (len(digits) > 1 and digits[0] == "0")
    ):
        raise NotationError(
            f"action {short_repr(text)}: bad effect seat {short_repr(token)} "
            "(expected e.g. >2 or @0)"
        )
    return int(digits)


def _hand_code(token: str, text: str, joker: str) -> Card:
    if token in HAND_CODES:
        return token
    if len(token) == 2 and token[0] == "J" and token[1] in "1234567":
        raise NotationError(
            f"action {short_repr(text)}: {short_repr(token)} is a discard-pile code; "
            f"a Joker in {joker}"
        )
    raise NotationError(f"action {short_repr(text)}: {short_repr(token)} is not a card code",
                        "RT-1.1")


def _lay(token: str, text: str) -> Lay:
    if token.startswith("J="):
        value = token[2:]
        if len(value) != 1 or value not in "1234567":
            raise NotationError(
                f"action {short_repr(text)}: a Joker is declared 1..7, got {short_repr(token)}"
            )
        return Lay("J", int(value))
    code = _hand_code(token, text, _PLAY_JOKER)
    if code == "J":
        raise NotationError(f"action {short_repr(text)}: a Joker in an action is written J=<n>")
    return Lay(code)


def parse_action(text: str) -> RotAction:
    """Read one action in the exact spelling ``legal`` prints; raises NotationError.

    >>> parse_action("play 3 J=2")
    Play(cards=(Lay(card='3', declared=None), Lay(card='J', declared=2)), effect=None)
    >>> str(parse_action("play Z3 2 @1"))
    'play Z3 2 @1'
    >>> parse_action("play J3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.core.NotationError: action 'play J3': 'J3' is a discard-pile code; a Joker in ...
    """
    if not isinstance(text, str):
        raise NotationError(f"action {short_repr(text)}: expected text")
    words = text.split(" ")
    if not text or any(not w for w in words) or any(not w.isprintable() for w in words):
        raise NotationError(f"action {short_repr(text)}: expected single spaces between words")
    head, args = words[0], words[1:]
    if head == "draw" and not args:
        return Draw()
    if head == "bonus" and len(args) == 2:
        joker = "a bonus swap is written J"
        return BonusSwap(_hand_code(args[0], text, joker), _hand_code(args[1], text, joker))
    if head == "play" and 1 <= len(args) <= 3:
        effect = None
        if args[-1][0] in "><@":
            if args[-1][0] == "<":
                raise NotationError(f"action {short_repr(text)}: effect suffixes are >s and @s")
            effect = Effect(args[-1][0], _seat(args[-1], text))
            args = args[:-1]
        if not 1 <= len(args) <= 2:
            raise NotationError(f"action {short_repr(text)}: a play lays one or two cards (RT-3)")
        return Play(tuple(_lay(a, text) for a in args), effect)
    raise NotationError(
        f"action {short_repr(text)}: expected 'play <c> [<c>] [>s|@s]', 'draw' or 'bonus <b> <h>'"
    )


def to_move_tuple(action: RotAction) -> Move:
    """The compact move of an action (``engine.right_on_time.rules``)."""
    if isinstance(action, Draw):
        return DRAW_MOVE
    if isinstance(action, BonusSwap):
        return ("b", action.bonus, action.hand)
    if isinstance(action, Play):
        hand_codes = tuple(lay.card for lay in action.cards)
        pile_codes = tuple(lay.pile_code for lay in action.cards)
        if action.effect is None:
            return ("p", hand_codes, pile_codes, "", -1)
        return ("p", hand_codes, pile_codes, action.effect.kind, action.effect.seat)
    raise NotationError(f"not a Right on Time action: {short_repr(action)}")


@lru_cache(maxsize=1 << 16)
def to_action(move: Move) -> RotAction:
    """The action of a compact move (cached: actions are immutable values)."""
    if move[0] == "d":
        return Draw()
    if move[0] == "b":
        bonus_code, hand_code = move[1], move[2]
        assert isinstance(bonus_code, str) and isinstance(hand_code, str)
        return BonusSwap(bonus_code, hand_code)
    _, hand_codes, pile_codes, kind, target = move
    assert isinstance(hand_codes, tuple) and isinstance(pile_codes, tuple)
    assert isinstance(kind, str) and isinstance(target, int)
    pairs = zip(hand_codes, pile_codes, strict=True)
    lays = tuple(Lay(h, VALUE[p]) if h == "J" else Lay(h) for h, p in pairs)
    return Play(lays, Effect(kind, target) if kind else None)

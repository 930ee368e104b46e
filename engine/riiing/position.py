"""Riiing! positions: the frozen value and its JSON notation (``docs/notation.md``).

Field order of the JSON object (kept by :func:`position_json`): ``game``, ``seats``,
``options``, ``hands``, ``draw`` (top first), ``discard`` (bottom first), ``to_move``,
``seed``, ``demand`` (``null``, ``{"symbol": "T"}`` or ``{"phones": 2}``), ``window``
(``null`` or a symbol), ``winner``, and ``opening`` (written only as ``true``, from a new
game until its first turn action, RI-6.3).  On input ``options`` may be omitted or partial
(defaults fill in), ``demand``, ``window``, ``winner`` may be omitted (``null``) and
``opening`` may be omitted (false); every other field is required, and an unknown field or
option is an error.  Malformed positions
(RI-9) raise :class:`NotationError` naming the field.

>>> text = ('{"game": "riiing", "seats": 2, "hands": [["7C/>"], ["P/E", "!T/~"]], '
...         '"draw": ["3S/<"], "discard": ["8A/E"], "to_move": 1, "seed": 5}')
>>> pos = RiiingPosition.parse(text)
>>> pos.hands[1], pos.options.hand_size, pos.demand
((RiiingCard(front='P', back='E'), RiiingCard(front='!T', back='~')), 7, None)
>>> RiiingPosition.parse(str(pos)) == pos
True
>>> RiiingPosition.parse(text.replace('"8A/E"', ''))
Traceback (most recent call last):
...
engine.core.NotationError: position field 'discard': empty (RI-9)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine._common import (
    STANDARD_DECK,
    JsonForms,
    card_list,
    check_options_json,
    check_position_fields,
    deck_json,
    field_error,
    is_int,
    per_seat,
    seat_or_none,
)
from engine.core import NotationError, OptionSpec, OptionValue, Seat, parse_options, short_repr
from engine.riiing.cards import SYMBOLS, RiiingCard
from engine.riiing.deck import deck_value

GAME_NAME = "riiing"
"""The registry name and the JSON ``game`` value."""

MIN_SEATS, MAX_SEATS = 2, 6
"""Seat counts (RI-2.4)."""

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("hand_size", 7, "RI-2.1", "cards dealt to each seat"),
    OptionSpec("slap_timeout_s", 8, "RI-6.4", "seconds a RIIING! window stays open"),
    OptionSpec("false_slap_penalty", 1, "RI-6.5", "cards a false slap draws; 0 = off"),
    OptionSpec(
        "deck", STANDARD_DECK, "RI-1.5",
        "the bundled 96-card deck 'standard', or the cards inline (never a file name)",
    ),
)
"""The rule options, in ``position_json`` order."""

_MINIMUM = {"hand_size": 1, "slap_timeout_s": 1, "false_slap_penalty": 0}
"""The smallest value of each whole-number option."""

FIELDS = (
    "game", "seats", "options", "hands", "draw", "discard", "to_move", "seed",
    "demand", "window", "winner", "opening",
)  # fmt: skip
"""The JSON fields in notation order."""

_OPTIONAL = frozenset({"options", "demand", "window", "winner", "opening"})
"""The fields a position may omit (every other one is required)."""


@dataclass(frozen=True, slots=True)
class RiiingOptions:
    """The rule options of a position (``OPTION_SPECS``): ``hand_size`` (cards, >= 1,
    RI-2.1), ``slap_timeout_s`` (seconds, >= 1, RI-6.4), ``false_slap_penalty`` (cards,
    >= 0, RI-6.5), ``deck`` (RI-1.5: ``"standard"``, the bundled deck, or inline card
    codes joined by single spaces, ``"7C/> P/E ..."``; JSON writes inline cards as a list;
    never a file name: ``engine.riiing.deck``).

    Raises :class:`NotationError` naming the option for an out-of-range value or a deck
    that is neither a bundled name nor valid card codes.
    """

    hand_size: int = 7
    slap_timeout_s: int = 8
    false_slap_penalty: int = 1
    deck: str = STANDARD_DECK

    def __post_init__(self) -> None:
        for spec in OPTION_SPECS:
            low = _MINIMUM.get(spec.name)
            value = getattr(self, spec.name)
            if low is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise NotationError(
                    f"option {spec.name}: expected a whole number >= {low}, got {value!r}",
                    spec.rule,
                )
        object.__setattr__(self, "deck", deck_value(self.deck))

    @staticmethod
    def from_mapping(raw: Mapping[str, object] | None) -> RiiingOptions:
        """Options from CLI/lobby strings or JSON values, defaults filled in; ``deck`` may
        also be a list of card codes.  Raises :class:`NotationError` naming an unknown
        option or a bad value."""
        given = dict(raw or {})
        deck = given.pop("deck", STANDARD_DECK)
        values: dict[str, OptionValue] = parse_options(OPTION_SPECS, given)
        return RiiingOptions(
            hand_size=int(values["hand_size"]),
            slap_timeout_s=int(values["slap_timeout_s"]),
            false_slap_penalty=int(values["false_slap_penalty"]),
            deck=deck_value(deck),
        )

    def as_dict(self) -> dict[str, OptionValue]:
        """Every option value by name, in ``OPTION_SPECS`` order (``deck`` in its string
        form: ``"standard"`` or the codes joined by spaces)."""
        return {spec.name: getattr(self, spec.name) for spec in OPTION_SPECS}

    def to_json(self) -> dict[str, Any]:
        """The JSON ``options`` object: every option; an inline ``deck`` as a list."""
        out: dict[str, Any] = dict(self.as_dict())
        out["deck"] = deck_json(self.deck)
        return out


@dataclass(frozen=True, slots=True)
class Demand:
    """A pending demand or phone chain, exactly one of: ``symbol`` (the seat to move must
    play that symbol, RI-5.3) or ``phones`` (a chain of that many Phones, >= 1, RI-5.4).

    >>> Demand("T"), Demand(phones=2).as_json()
    (Demand(symbol='T', phones=0), {'phones': 2})
    """

    symbol: str | None = None
    phones: int = 0

    def __post_init__(self) -> None:
        if (self.symbol is None) == (self.phones == 0) or (
            self.symbol is not None and self.symbol not in SYMBOLS
        ):
            raise NotationError(
                f"demand: expected a symbol (A S C T) or phones >= 1, got {self.as_json()}", "RI-9"
            )

    def as_json(self) -> dict[str, str | int]:
        """``{"symbol": "T"}`` or ``{"phones": k}``."""
        if self.symbol is not None:
            return {"symbol": self.symbol}
        return {"phones": self.phones}


@dataclass(frozen=True, slots=True)
class RiiingPosition(JsonForms):
    """Everything needed to continue a game (``docs/notation.md``).

    - ``seats``: 2-6; ``options``: :class:`RiiingOptions`
    - ``hands``: per seat, cards in hand order (RI-8.4)
    - ``draw``: draw pile, top first; its top card's back is the condition (RI-3.1)
    - ``discard``: discard pile, bottom first; the last card is the last card played
    - ``to_move``: the seat to move (kept while a window is open), ``None`` once won
    - ``seed``: the RNG state for the next shuffle (``engine.core.shuffle``)
    - ``demand``: pending :class:`Demand` or ``None`` (authoritative, RI-5.5)
    - ``window``: the symbol of the open RIIING! window or ``None`` (RI-6.2)
    - ``winner``: the winning seat or ``None`` (RI-7.1)
    - ``opening``: ``True`` from a new game until its first turn action (``play``,
      ``draw``, ``take``); while it holds, a slap leaves ``to_move`` with the seat that
      starts (RI-6.3)

    Construct through ``RiiingGame.new``, :meth:`parse` or :meth:`from_json`, which
    validate (RI-9); the constructor itself trusts its fields.  ``str(pos)`` is the
    position's canonical JSON text on one line; ``RiiingPosition.parse(str(pos)) == pos``;
    :meth:`to_json` is the JSON object.
    """

    seats: int
    options: RiiingOptions
    hands: tuple[tuple[RiiingCard, ...], ...]
    draw: tuple[RiiingCard, ...]
    discard: tuple[RiiingCard, ...]
    to_move: Seat | None
    seed: int
    demand: Demand | None = None
    window: str | None = None
    winner: Seat | None = None
    opening: bool = False

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> RiiingPosition:
        """Read and validate a JSON position object (:func:`position_from_json`, RI-9)."""
        return position_from_json(obj)

    def to_json(self) -> dict[str, Any]:
        """The JSON object (:func:`position_json`)."""
        return position_json(self)

    def cards(self) -> list[RiiingCard]:
        """Every card the position holds: hands (seat 0 first), draw, discard (RI-8.3)."""
        out = [card for hand in self.hands for card in hand]
        out.extend(self.draw)
        out.extend(self.discard)
        return out


def position_json(pos: RiiingPosition) -> dict[str, Any]:
    """The JSON object of ``pos``: every field in notation order, every option value;
    ``opening`` only while it is true (RI-6.3)."""
    obj: dict[str, Any] = {
        "game": GAME_NAME,
        "seats": pos.seats,
        "options": pos.options.to_json(),
        "hands": [[str(card) for card in hand] for hand in pos.hands],
        "draw": [str(card) for card in pos.draw],
        "discard": [str(card) for card in pos.discard],
        "to_move": pos.to_move,
        "seed": pos.seed,
        "demand": None if pos.demand is None else pos.demand.as_json(),
        "window": pos.window,
        "winner": pos.winner,
    }
    if pos.opening:
        obj["opening"] = True
    return obj


def _bad(field: str, what: str, rule: str = "RI-9") -> NotationError:
    return field_error(field, what, rule)


def _cards(value: object, field: str) -> tuple[RiiingCard, ...]:
    return card_list(value, field, RiiingCard.parse, "RI-9")


def _options(value: object) -> RiiingOptions:
    if value is None:
        return RiiingOptions()
    if not isinstance(value, dict):
        raise _bad("options", f"expected an object, got {short_repr(value)}")
    check_options_json(value, OPTION_SPECS, "RI-9", "RI-9")
    try:
        return RiiingOptions.from_mapping(value)
    except NotationError as err:
        raise _bad("options", err.message) from None


def _demand(value: object) -> Demand | None:
    if value is None:
        return None
    if isinstance(value, dict) and len(value) == 1:
        symbol = value.get("symbol")
        phones = value.get("phones")
        if isinstance(symbol, str) and symbol in SYMBOLS:
            return Demand(symbol)
        if is_int(phones) and phones >= 1:
            return Demand(phones=phones)
    raise _bad("demand", f'expected null, {{"symbol": "A|S|C|T"}} or {{"phones": k >= 1}}, '
               f"got {short_repr(value)}")


def position_from_json(obj: Mapping[str, Any]) -> RiiingPosition:
    """Read and validate a JSON position object (RI-9).

    Raises :class:`NotationError` naming the field for: a wrong ``game``, an unknown or
    missing field, a wrong type, an invalid card code, an unknown option, a seat count
    outside 2-6 (RI-2.4), a seat out of range, an empty discard pile, a reverse on top of
    the draw pile with ``window`` null (unless won), a ``window`` that is not the symbol
    of the reverse on top, ``to_move`` null with no ``winner``, and positions RI-7.1 rules
    out (a winner with cards, a non-null ``to_move``/``window``/``demand`` after a win, an
    empty hand with no winner), and an ``opening`` that is not ``true`` or comes with a
    winner (RI-6.3).
    """
    obj = check_position_fields(obj, GAME_NAME, FIELDS, _OPTIONAL, "RI-9")
    seats = obj["seats"]
    if not is_int(seats) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise _bad("seats", f"expected {MIN_SEATS}..{MAX_SEATS}, got {short_repr(seats)}", "RI-2.4")
    options = _options(obj.get("options"))
    hands_raw = per_seat(obj["hands"], "hands", seats, "hands", "RI-9")
    hands = tuple(_cards(hand, f"hands[{i}]") for i, hand in enumerate(hands_raw))
    draw = _cards(obj["draw"], "draw")
    discard = _cards(obj["discard"], "discard")
    if not discard:
        raise _bad("discard", "empty")
    seed = obj["seed"]
    if not is_int(seed):
        raise _bad("seed", f"expected an integer, got {short_repr(seed)}")
    to_move = seat_or_none(obj["to_move"], "to_move", seats, "RI-9")
    winner = seat_or_none(obj.get("winner"), "winner", seats, "RI-9")
    demand = _demand(obj.get("demand"))
    window = obj.get("window")
    if window is not None and window not in SYMBOLS:
        raise _bad("window", f"expected null or a symbol A S C T, got {short_repr(window)}")
    opening = "opening" in obj
    if opening and obj["opening"] is not True:
        got = short_repr(obj["opening"])
        raise _bad("opening", f"expected true or no field at all, got {got}", "RI-6.3")
    if opening and winner is not None:
        raise _bad("opening", "true once the game is won", "RI-7.1")
    reverse = draw[0].reverse if draw else None
    if winner is None:
        if to_move is None:
            raise _bad("to_move", "null while there is no winner")
        for seat, hand in enumerate(hands):
            if not hand:
                raise _bad(f"hands[{seat}]", "empty while there is no winner", "RI-7.1")
        if reverse is not None and window is None:
            raise _bad("window", f"null while the reverse {draw[0]} is on top of the draw pile")
    else:
        if hands[winner]:
            raise _bad("winner", f"seat {winner} still holds cards", "RI-7.1")
        for key, value in (("to_move", to_move), ("window", window), ("demand", demand)):
            if value is not None:
                raise _bad(key, "must be null once the game is won", "RI-7.1")
    if window is not None and window != reverse:
        on_top = f"the top card is {draw[0]}" if draw else "the draw pile is empty"
        raise _bad("window", f"{window!r} is not the symbol of a reverse on top ({on_top})")
    return RiiingPosition(
        seats=seats,
        options=options,
        hands=hands,
        draw=draw,
        discard=discard,
        to_move=to_move,
        seed=seed,
        demand=demand,
        window=window,
        winner=winner,
        opening=opening,
    )


"""Right on Time positions: the frozen value and its JSON form (``docs/notation.md``).

JSON fields (all required except ``options`` and ``shown``)::

    game      "right-on-time"
    seats     2..6 (RT-2.5)
    options   rule options; omitted keys are resolved (engine.right_on_time.options); only
              the options the rules name, plus ``deck`` when it is not the bundled deck
    hands     list per seat of hand codes, in hand order
    draw      draw pile, top first
    discard   discard pile, bottom first; a Joker there is J<n> (RT-1.4)
    to_move   seat to move; null only once the match is won
    seed      integer RNG state for the next shuffle
    round     round number from 1
    scores    victory points per seat
    out       seats out of this round, in the order they went out (RT-6.1)
    bonus     list per seat of bonus cards (RT-6.3)
    winner    match winner or null (RT-7.1)
    shown     optional: list per seat of the cards it showed under RT-5.1 and still holds
              (a sub-multiset of its hand; default all empty).  Written always.

Malformed positions raise :class:`~engine.core.NotationError` naming the field (RT-10.2).
``str(pos)`` is the canonical one-line JSON text and ``RotPosition.parse(str(pos)) == pos``,
as for Riiing! positions (the shared helpers are in ``engine._common``).

>>> text = ('{"game": "right-on-time", "seats": 2, "hands": [["3", "J"], ["N"]], "draw": [], '
...         '"discard": ["J5"], "to_move": 1, "seed": 7, "round": 1, "scores": [0, 1], '
...         '"out": [], "bonus": [[], []], "winner": null}')
>>> pos = RotPosition.parse(text)
>>> pos.hands, pos.options.target_points, RotPosition.parse(str(pos)) == pos
((('3', 'J'), ('N',)), 3, True)
>>> RotPosition.parse(text.replace('"J5"', '"J"'))
Traceback (most recent call last):
...
engine.core.NotationError: position field 'discard[0]': a Joker on the discard pile is J<n>
    (RT-1.4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine._common import (
    JsonForms,
    card_list,
    check_options_json,
    check_position_fields,
    deck_json,
    field_error,
    is_int,
    per_seat,
    seat,
    seat_or_none,
)
from engine.core import Card, NotationError, Seat, short_repr
from engine.right_on_time.cards import (
    is_submultiset,
    read_hand_code,
    read_pile_code,
    unjoker,
)
from engine.right_on_time.options import OPTION_SPECS, RotOptions, resolve_options

GAME_NAME = "right-on-time"
"""The registry name and the JSON ``game`` value."""

MIN_SEATS, MAX_SEATS = 2, 6
"""Seat counts (RT-2.5)."""

RULE = "RT-10.2"
"""The rule a malformed position cites."""

Hand = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RotPosition(JsonForms):
    """A Right on Time position: everything needed to continue the match.

    Fields mirror the JSON fields of the module docstring (lists become tuples);
    ``options`` is a :class:`RotOptions`.  Equality is exact (hand order included): the
    order conventions of ``docs/notation.md`` make every engine result deterministic.

    Construct through ``RightOnTimeGame.new``, :meth:`parse` or :meth:`from_json`, which
    validate (RT-10.2); the constructor itself trusts its fields.  ``str(pos)`` is the
    canonical JSON text on one line, :meth:`to_json` the JSON object.
    """

    seats: int
    options: RotOptions
    hands: tuple[Hand, ...]
    draw: tuple[Card, ...]
    discard: tuple[Card, ...]
    to_move: Seat | None
    seed: int
    round: int
    scores: tuple[int, ...]
    out: tuple[Seat, ...]
    bonus: tuple[Hand, ...]
    winner: Seat | None
    shown: tuple[Hand, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> RotPosition:
        """Read and validate a JSON position object (:func:`parse_position`, RT-10.2)."""
        return parse_position(obj)

    def to_json(self) -> dict[str, Any]:
        """The JSON object (:func:`position_json`)."""
        return position_json(self)

    def cards(self) -> list[Card]:
        """Every card the position holds, ``J<n>`` as ``J`` (RT-10.1): :func:`all_cards`."""
        return all_cards(self)


FIELDS = (
    "game", "seats", "options", "hands", "draw", "discard", "to_move", "seed",
    "round", "scores", "out", "bonus", "winner", "shown",
)  # fmt: skip
"""The JSON fields in notation order."""

_OPTIONAL = frozenset({"options", "shown"})


def position_json(pos: RotPosition) -> dict[str, Any]:
    """The JSON object of ``pos``: every field in :data:`FIELDS` order; the options a
    position writes (:meth:`RotOptions.items`), an inline ``deck`` as a list of codes."""
    options: dict[str, Any] = dict(pos.options.items())
    if "deck" in options:
        options["deck"] = deck_json(pos.options.deck)
    return {
        "game": GAME_NAME,
        "seats": pos.seats,
        "options": options,
        "hands": [list(h) for h in pos.hands],
        "draw": list(pos.draw),
        "discard": list(pos.discard),
        "to_move": pos.to_move,
        "seed": pos.seed,
        "round": pos.round,
        "scores": list(pos.scores),
        "out": list(pos.out),
        "bonus": [list(b) for b in pos.bonus],
        "winner": pos.winner,
        "shown": [list(s) for s in pos.shown],
    }


def _bad(field: str, what: str, rule: str | None = RULE) -> NotationError:
    return field_error(field, what, rule)


def _int(obj: Mapping[str, Any], field: str) -> int:
    value = obj[field]
    if not is_int(value):
        raise _bad(field, f"expected an integer, got {short_repr(value)}")
    return value


def _hand_cards(value: object, field: str) -> tuple[Card, ...]:
    return card_list(value, field, read_hand_code, RULE)


def _options(raw: object) -> RotOptions:
    """A position's ``options`` object, JSON types checked strictly (a number is not
    true/false; ``deck`` is a bundled deck's name or a list of codes)."""
    if raw is None:
        return resolve_options(None)
    if not isinstance(raw, Mapping):
        raise _bad("options", f"expected an object, got {short_repr(raw)}")
    check_options_json(raw, OPTION_SPECS, RULE, None)
    try:
        return resolve_options(raw, text_codes=False)
    except NotationError as err:
        raise _bad("options", err.message, err.rule) from None


def parse_position(obj: Mapping[str, Any]) -> RotPosition:
    """Read and validate a JSON position object (RT-10.2); raises NotationError naming
    the field: a missing or unknown field, ``J`` on the discard pile or ``J<n>`` elsewhere,
    an invalid code, a seat out of range, ``to_move`` null while ``winner`` is null (or set
    once the match is won), ``to_move`` out of the round, more than one seat ``out`` while
    the round goes on, ``shown`` cards not in the hand, an unknown or bad option (a JSON
    type other than the option's own included)."""
    obj = check_position_fields(obj, GAME_NAME, FIELDS, _OPTIONAL, RULE)
    seats = _int(obj, "seats")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise _bad("seats", f"{MIN_SEATS} to {MAX_SEATS} seats, got {seats}", "RT-2.5")
    options = _options(obj.get("options"))
    hands = tuple(
        _hand_cards(h, f"hands[{i}]")
        for i, h in enumerate(per_seat(obj["hands"], "hands", seats, "hands", RULE))
    )
    bonus = tuple(
        _hand_cards(b, f"bonus[{i}]")
        for i, b in enumerate(per_seat(obj["bonus"], "bonus", seats, "bonus lists", RULE))
    )
    raw_shown = obj.get("shown")
    shown: tuple[Hand, ...] = ((),) * seats
    if raw_shown is not None:
        shown = tuple(
            _hand_cards(s, f"shown[{i}]")
            for i, s in enumerate(per_seat(raw_shown, "shown", seats, "lists", RULE))
        )
        for i, cards in enumerate(shown):
            if not is_submultiset(cards, hands[i]):
                raise _bad(f"shown[{i}]", "shown cards must still be in the hand (RT-5.1)")
    draw = _hand_cards(obj["draw"], "draw")
    discard = card_list(obj["discard"], "discard", read_pile_code, RULE)
    seed = _int(obj, "seed")
    round_no = _int(obj, "round")
    if round_no < 1:
        raise _bad("round", f"rounds count from 1, got {round_no}")
    scores = []
    for i, value in enumerate(per_seat(obj["scores"], "scores", seats, "scores", RULE)):
        if not is_int(value) or value < 0:
            raise _bad(f"scores[{i}]", f"expected victory points >= 0, got {short_repr(value)}")
        scores.append(value)
    raw_out = obj["out"]
    if not isinstance(raw_out, list) or len(raw_out) > seats:
        raise _bad("out", f"expected a list of at most {seats} seats")
    out = tuple(seat(s, f"out[{i}]", seats, RULE) for i, s in enumerate(raw_out))
    if len(set(out)) != len(out):
        raise _bad("out", "a seat is listed twice")
    winner = seat_or_none(obj["winner"], "winner", seats, RULE)
    to_move = seat_or_none(obj["to_move"], "to_move", seats, RULE)
    if to_move is None and winner is None:
        raise _bad("to_move", "null while winner is null")
    if to_move is not None and winner is not None:
        raise _bad("to_move", "must be null once the match is won", "RT-7.1")
    if winner is None:
        if to_move in out:
            raise _bad("to_move", f"seat {to_move} is out of this round", "RT-6.1")
        if len(out) > 1:
            raise _bad("out", "a second seat out ends the round", "RT-6.2")
        for i, points in enumerate(scores):
            if points >= options.target_points:
                raise _bad(f"scores[{i}]", f"{points} points reach target_points "
                           f"{options.target_points} while winner is null", "RT-7.1")
    elif scores[winner] < options.target_points:
        raise _bad("winner", f"seat {winner} has {scores[winner]} points, fewer than "
                   f"target_points {options.target_points}", "RT-7.1")
    return RotPosition(
        seats=seats,
        options=options,
        hands=hands,
        draw=draw,
        discard=discard,
        to_move=to_move,
        seed=seed,
        round=round_no,
        scores=tuple(scores),
        out=out,
        bonus=bonus,
        winner=winner,
        shown=shown,
    )


def all_cards(pos: RotPosition) -> list[Card]:
    """Every card the position holds (hands, bonus cards, draw, discard; ``J<n>`` as
    ``J``), for the RT-10.1 conservation check.  Order: hands, bonus, draw, discard."""
    cards: list[Card] = [c for h in pos.hands for c in h]
    cards += [c for b in pos.bonus for c in b]
    cards += pos.draw
    cards += [unjoker(c) for c in pos.discard]
    return cards


def seats_list(values: Sequence[int]) -> str:
    """``"0 1 0"``: per-seat numbers as one line (log notes)."""
    return " ".join(str(v) for v in values)

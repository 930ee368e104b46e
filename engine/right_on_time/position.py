"""Right on Time positions: the frozen value and its JSON form (``design/notation.md``).

JSON fields (all required except ``options`` and ``shown``)::

    game      "right-on-time"
    seats     2..6 (RT-2.5)
    options   rule options; omitted keys are resolved (engine.right_on_time.options)
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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Card, NotationError, Seat
from engine.right_on_time.cards import HAND_CODES, PILE_CODES, is_submultiset, unjoker
from engine.right_on_time.options import RotOptions, resolve_options

GAME_NAME = "right-on-time"

Hand = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RotPosition:
    """A Right on Time position: everything needed to continue the match.

    Fields mirror the JSON fields of the module docstring (lists become tuples);
    ``options`` is a :class:`RotOptions`.  Equality is exact (hand order included): the
    order conventions of ``design/notation.md`` make every engine result deterministic.
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


_FIELDS = (
    "game", "seats", "options", "hands", "draw", "discard", "to_move", "seed",
    "round", "scores", "out", "bonus", "winner", "shown",
)  # fmt: skip
_OPTIONAL = frozenset({"options", "shown"})


def position_json(pos: RotPosition) -> dict[str, Any]:
    """The JSON object of ``pos`` (every field, every option resolved)."""
    return {
        "game": GAME_NAME,
        "seats": pos.seats,
        "options": dict(pos.options.items()),
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


def _bad(field: str, what: str, rule: str | None = "RT-10.2") -> NotationError:
    return NotationError(f"position field {field!r}: {what}", rule)


def _int(obj: Mapping[str, Any], field: str) -> int:
    value = obj[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(field, f"expected an integer, got {value!r}")
    return value


def _seat(value: object, field: str, seats: int) -> Seat:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(field, f"expected a seat number, got {value!r}")
    if not 0 <= value < seats:
        raise _bad(field, f"seat {value} out of range 0..{seats - 1}")
    return value


def _cards(value: object, field: str, valid: frozenset[Card]) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise _bad(field, f"expected a list of card codes, got {value!r}")
    for code in value:
        if not isinstance(code, str) or code not in valid:
            if code == "J":
                raise _bad(field, "a Joker on the discard pile is J<n> (RT-1.4)")
            if isinstance(code, str) and code in PILE_CODES:
                raise _bad(field, f"{code!r}: J<n> lies only on the discard pile (RT-1.4)")
            raise _bad(field, f"{code!r} is not a card code")
    return tuple(value)


def _per_seat(value: object, field: str, seats: int) -> list[object]:
    if not isinstance(value, list) or len(value) != seats:
        raise _bad(field, f"expected a list of {seats} entries (one per seat)")
    return value


def parse_position(obj: Mapping[str, Any]) -> RotPosition:
    """Read and validate a JSON position object (RT-10.2); raises NotationError naming
    the field: a missing or unknown field, ``J`` on the discard pile or ``J<n>`` elsewhere,
    an invalid code, a seat out of range, ``to_move`` null while ``winner`` is null (or set
    once the match is won), ``to_move`` out of the round, more than one seat ``out`` while
    the round goes on, ``shown`` cards not in the hand, an unknown or bad option."""
    if not isinstance(obj, Mapping):
        raise NotationError("position: expected a JSON object")
    for name in obj:
        if name not in _FIELDS:
            raise _bad(str(name), "unknown field")
    for name in _FIELDS:
        if name not in obj and name not in _OPTIONAL:
            raise _bad(name, "missing")
    if obj["game"] != GAME_NAME:
        raise _bad("game", f"expected {GAME_NAME!r}, got {obj['game']!r}")
    seats = _int(obj, "seats")
    if not 2 <= seats <= 6:
        raise _bad("seats", f"2 to 6 seats, got {seats}", "RT-2.5")
    raw_options = obj.get("options", {})
    if not isinstance(raw_options, Mapping):
        raise _bad("options", "expected an object")
    try:
        options = resolve_options(raw_options, seats)
    except NotationError as err:
        raise _bad("options", err.message, err.rule) from None
    hands = tuple(
        _cards(h, f"hands[{i}]", HAND_CODES)
        for i, h in enumerate(_per_seat(obj["hands"], "hands", seats))
    )
    bonus = tuple(
        _cards(b, f"bonus[{i}]", HAND_CODES)
        for i, b in enumerate(_per_seat(obj["bonus"], "bonus", seats))
    )
    raw_shown = obj.get("shown")
    shown: tuple[Hand, ...] = ((),) * seats
    if raw_shown is not None:
        shown = tuple(
            _cards(s, f"shown[{i}]", HAND_CODES)
            for i, s in enumerate(_per_seat(raw_shown, "shown", seats))
        )
        for i, cards in enumerate(shown):
            if not is_submultiset(cards, hands[i]):
                raise _bad(f"shown[{i}]", "shown cards must still be in the hand (RT-5.1)")
    draw = _cards(obj["draw"], "draw", HAND_CODES)
    discard = _cards(obj["discard"], "discard", PILE_CODES)
    seed = _int(obj, "seed")
    round_no = _int(obj, "round")
    if round_no < 1:
        raise _bad("round", f"rounds count from 1, got {round_no}")
    scores = []
    for value in _per_seat(obj["scores"], "scores", seats):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _bad("scores", f"expected victory points >= 0, got {value!r}")
        scores.append(value)
    raw_out = obj["out"]
    if not isinstance(raw_out, list):
        raise _bad("out", "expected a list of seats")
    out = tuple(_seat(s, "out", seats) for s in raw_out)
    if len(set(out)) != len(out):
        raise _bad("out", "a seat is listed twice")
    winner = None if obj["winner"] is None else _seat(obj["winner"], "winner", seats)
    to_move = None if obj["to_move"] is None else _seat(obj["to_move"], "to_move", seats)
    if to_move is None and winner is None:
        raise _bad("to_move", "null while winner is null")
    if to_move is not None and winner is not None:
        raise _bad("to_move", "must be null once the match is won", "RT-7.1")
    if winner is None:
        if to_move in out:
            raise _bad("to_move", f"seat {to_move} is out of this round", "RT-6.1")
        if len(out) > 1:
            raise _bad("out", "a second seat out ends the round", "RT-6.2")
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

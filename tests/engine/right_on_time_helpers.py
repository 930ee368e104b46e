"""Helpers for the Right on Time tests: positions written as JSON fields, actions as text,
and an independent, plain reading of the lay rules (RT-2.2, RT-3, RT-4, RT-8, RT-9) used as
an oracle for ``legal``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from engine.core import Event
from engine.right_on_time import RightOnTimeGame, RotPosition
from engine.right_on_time.position import all_cards

GAME = RightOnTimeGame()


def position(**fields: Any) -> RotPosition:
    """A position from JSON fields; defaults: 3 seats, empty hands and piles, seat 0 to move,
    seed 1, round 1, no points, nobody out, no bonus cards, no winner."""
    seats = fields.get("seats", 3)
    obj: dict[str, Any] = {
        "game": "right-on-time",
        "seats": seats,
        "hands": [[] for _ in range(seats)],
        "draw": [],
        "discard": [],
        "to_move": 0,
        "seed": 1,
        "round": 1,
        "scores": [0] * seats,
        "out": [],
        "bonus": [[] for _ in range(seats)],
        "winner": None,
    }
    obj.update(fields)
    return GAME.parse_position(obj)


def legal_texts(pos: RotPosition) -> list[str]:
    """``legal`` as the CLI prints it."""
    return [str(a) for a in GAME.legal(pos)]


def run(pos: RotPosition, *actions: str) -> tuple[RotPosition, list[Event]]:
    """Apply action texts in order; returns the last position and every event."""
    events: list[Event] = []
    for text in actions:
        pos, evs = GAME.apply(pos, GAME.parse_action(text))
        events.extend(evs)
    return pos, events


def kinds(events: Iterable[Event]) -> list[str]:
    """The events' kinds in order."""
    return [e.kind for e in events]


def card_count(pos: RotPosition) -> Counter[str]:
    """RT-10.1: the multiset of every card the position holds (``J<n>`` as ``J``)."""
    return Counter(all_cards(pos))


# ------------------------------------------------------------------ the oracle

_ALL_CODES = [str(n) for n in range(1, 8)] + ["J", "N"] + [f"D{n}" for n in range(1, 8)]
_ALL_CODES += [f"Z{n}" for n in range(1, 8)]


def _value(token: str) -> int:
    """Value of an action token: ``J=4`` -> 4, ``N`` -> 0, ``D3`` -> 3, ``5`` -> 5."""
    if token.startswith("J="):
        return int(token[2:])
    if token == "N":
        return 0
    return int(token[-1])


def _tokens(code: str) -> list[str]:
    return [f"J={v}" for v in range(1, 8)] if code == "J" else [code]


def candidate_plays(
    pos: RotPosition, extra_codes: Iterable[str] = (), all_suffixes: bool = False
) -> set[str]:
    """A superset of the plays: one or two tokens from the hand's codes (plus
    ``extra_codes``) with every Joker value, each without suffix and, when a Du bist! or
    Ziehen! is among them (or ``all_suffixes``), with every effect suffix for seats 0..n."""
    seat = pos.to_move
    assert seat is not None
    codes = sorted(set(pos.hands[seat]) | set(extra_codes))
    suffixes = [f" {k}{s}" for k in ">@" for s in range(pos.seats + 1)]
    out: set[str] = set()
    for a in codes:
        pairs = [[ta] for ta in _tokens(a)]
        pairs += [[ta, tb] for ta in _tokens(a) for b in codes for tb in _tokens(b)]
        for tokens in pairs:
            text = "play " + " ".join(tokens)
            out.add(text)
            if all_suffixes or any(t[0] in "DZ" for t in tokens):
                out.update(text + suffix for suffix in suffixes)
    return out


def oracle_allows(pos: RotPosition, text: str) -> bool:
    """The lay rules read plainly from ``docs/rules/right-on-time.md`` (independent of the
    engine's generator): is the play ``text`` legal in ``pos``?"""
    seat = pos.to_move
    assert seat is not None and pos.winner is None
    words = text.split(" ")[1:]
    suffix = words[-1] if words[-1][0] in "@>" else None
    tokens = words[:-1] if suffix else words
    codes = ["J" if t.startswith("J=") else t for t in tokens]
    hand = Counter(pos.hands[seat])
    if Counter(codes) - hand:
        return False  # not held
    values = [_value(t) for t in tokens]
    top = _value(pos.discard[-1].replace("J", "J=")) if pos.discard else None
    whole = len(codes) == sum(hand.values())
    opts = pos.options
    n = pos.seats
    if len(codes) == 1:
        if codes[0] != "N" and top is not None and not values[0] > top:
            return False  # RT-3.1, RT-3.4 (a Joker alone on 7 cannot be higher)
    else:
        if top is None or "N" in codes:
            return False  # RT-2.2, RT-3.3
        if any(v > top for v in values):
            return False  # RT-3.2 (on N: top 0, no pair)
        if whole and opts.li_higher_on_top and values[1] < values[0]:
            return False  # RT-8.3
    if (
        whole
        and opts.li_joker_seven
        and any(v != 7 for c, v in zip(codes, values, strict=True) if c == "J")
    ):
        return False  # RT-8.2
    # Effects: RT-4.1 .. RT-4.5, RT-8.1, RT-9.4, RT-9.5.
    has_du = any(c.startswith("D") for c in codes)
    has_zi = any(c.startswith("Z") for c in codes)
    allowed: set[str] = set()
    if has_du:
        if whole and opts.li_du_bist_left:
            left = [(seat + k) % n for k in range(1, n) if (seat + k) % n not in pos.out]
            allowed |= {f">{left[0]}"} if left else set()
        else:
            for s in range(n):
                if s in pos.out:
                    continue
                if s == seat and not (n == 2 and not whole):
                    continue
                allowed.add(f">{s}")
    if has_zi:
        for s in range(n):
            if s in pos.out and n != 2:
                continue
            allowed.add(f"@{s}")
    if not allowed:
        return suffix is None  # no effect card, or RT-4.5
    return suffix in allowed


def oracle_legal(pos: RotPosition) -> set[str]:
    """Every legal action by the oracle: the plays it allows, else ``draw`` (RT-5.1), plus
    one bonus swap per bonus code and hand code (RT-6.4)."""
    seat = pos.to_move
    assert seat is not None
    plays = {t for t in candidate_plays(pos) if oracle_allows(pos, t)}
    if not plays:
        plays = {"draw"}
    if pos.hands[seat]:
        plays |= {f"bonus {b} {h}" for b in pos.bonus[seat] for h in pos.hands[seat]}
    return plays


def other_codes() -> list[str]:
    """Every hand code (for candidates of cards a seat does not hold)."""
    return list(_ALL_CODES)

"""The words every screen of the device uses for the same things (docs/screens.md: text in words,
not only symbols): seat names counted from 1, and one line from one action's event lines.

A game's own words (its symbols, its cards) live in its plugin folder
(``device/games/<game>/``)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from itertools import pairwise

from engine.core import Event


def seat_name(seat: int) -> str:
    """``"Seat 3"`` for seat index 2: people count from 1, the notation from 0.

    >>> seat_name(0)
    'Seat 1'
    """
    return f"Seat {seat + 1}"


def count_words(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: ``count_words(2, "card")`` ->
    ``"2 cards"``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def merge_lines(texts: Sequence[str]) -> str:
    """Join lines with ", ", dropping a repeated leading seat name: ``["Seat 1 drew 7
    cards", "Seat 1 laid 4 ALARM"]`` -> ``"Seat 1 drew 7 cards, laid 4 ALARM"``.
    ``texts`` must not be empty (``IndexError``)."""
    out = texts[0]
    for prev, text in pairwise(texts):
        who = " ".join(prev.split(" ")[:2]) + " "
        out += ", " + (text[len(who):] if prev.startswith("Seat ") and text.startswith(who)
                       else text)
    return out


def narrate_events(
    events: Sequence[Event], line: Callable[[Event], str | None], acts: Collection[str]
) -> str | None:
    """One line for one action's events (the top strip): what the seat did (events whose
    kind is in ``acts``), then the last two things that followed from it, each group merged
    by :func:`merge_lines` (``"Seat 3 laid 7 + 2 · Seat 3 is out, gets a bonus card"``).
    ``line`` gives an event's words or ``None`` (not worth a line); ``None`` when nothing
    has words."""
    did: list[str] = []
    after: list[str] = []
    for ev in events:
        text = line(ev)
        if text:
            (did if ev.kind in acts else after).append(text)
    parts = [merge_lines(group) for group in (did, after[-2:]) if group]
    return " · ".join(parts) or None


def margin_words(ms: int) -> str:
    """A slap margin in whole milliseconds (``ms``: the runner-up's reaction minus the
    winner's, rounded, ``device.slaps.margin.MarginWatch.shown``) in words: ``"by 12 ms"``;
    ``"by less than 1 ms"`` for 0 (two presses within half a millisecond: the edges are
    stamped by the kernel in its IRQ handler, docs/hardware-facts.md "gpiozero and slap
    timestamps", so 0 means "under 1 ms", not "none"), and for a negative value (never made
    by the watch; said the same, no error).
    The one wording of the TV's top line (``device.flow.game_flow``) and the result box (RI-6.3).

    >>> margin_words(0)
    'by less than 1 ms'
    """
    return "by less than 1 ms" if ms <= 0 else f"by {ms} ms"


def a_number(n: int) -> str:
    """``n`` with its article as it is said in English: ``"an 8"``, ``"an 11"``, ``"an
    18"``, ``"an 80"``, ``"an 800"``, ``"an 11000"`` (eight, eleven, eighteen, eleven
    thousand: a vowel sound first), else ``"a 7"``.  The leading group of three digits
    decides (1,800 is "one thousand eight hundred": ``"a 1800"``).  A negative ``n`` is
    said "minus ...": ``"a -8"``.

    >>> a_number(8)
    'an 8'
    """
    lead = n
    while lead >= 1000:
        lead //= 1000
    vowel = n >= 0 and (str(lead).startswith("8") or lead in (11, 18))
    return f"{'an' if vowel else 'a'} {n}"


def or_list(items: Sequence[object]) -> str:
    """``items`` as a list said with "or": ``"2, 5 or 8"``; one item alone, ``""`` for none.

    >>> or_list([2, 5, 8])
    '2, 5 or 8'
    """
    words = [str(x) for x in items]
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)

"""The words of a Right on Time lay being composed on a hand screen
(``docs/rules/right-on-time.md``), for the lay composer
(:class:`device.games.right_on_time.rt_hand.LayComposer`): the lay as a sentence for people
(seats from 1, cards in words, never notation), the confirmation banner's lines and the
value/effect/target picker.  Pure functions of the choices made (``device.games.
right_on_time.lay_plan`` tokens) and the seat; lines are measured with the hand screen's
own font (``device.hands.screen.text_width``) so none is cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from device.common.words import seat_name
from device.games.right_on_time.lay_plan import Token
from device.games.right_on_time.rt_narrate import card_words
from device.hands.composer import Picker
from device.hands.screen import WIDTH, text_width

BANNER_BIG, BANNER_SMALL = 18, 10
"""Font sizes of the hand screen's banner lines (``device.hands.screen``: the first line
big, the others small)."""
BANNER_WIDTH = WIDTH - 4
"""Widest banner line, px (the renderer cuts lines wider than the screen less 2 px)."""
CONFIRM_LINES = 3
"""Most banner lines of a confirmation (the banner's 41 rows hold one big, two small)."""
PROMPT_WIDTH = WIDTH - 4
"""Widest prompt text, px (the renderer draws it at 11 px, or 10 px when that is too
wide)."""


def fit(*texts: str) -> str:
    """The first of ``texts`` whose ink fits the prompt line at 10 px (the renderer's
    smaller size), else the last one."""
    for text in texts:
        if text_width(text, 10) <= PROMPT_WIDTH:
            return text
    return texts[-1]


def chunks(prefix: Sequence[Token], seat: int) -> list[str]:
    """The composed (maybe partial) action ``prefix`` of ``seat`` as a sentence in
    unbreakable chunks, for people (seats from 1, cards in words, RT-3, RT-4, RT-5.1,
    RT-6.4): ``["Lay", "7,", "then", "Joker as 1 on top"]``, ``["Lay", "Du bist! 5:",
    "Seat 3 goes next"]``, ``["Draw a card"]``, ``["Swap", "Joker in,", "put", "3",
    "under the pile"]`` (a bonus card swapped in, RT-6.4)."""
    if prefix and prefix[0][0] == "draw":
        return ["Draw a card"]
    if prefix and prefix[0][0] == "bonus":
        out = ["Swap", f"{card_words(prefix[0][1])} in"]
        swap = next((t[1] for t in prefix if t[0] == "swap"), None)
        if swap is not None:
            out[-1] += ","
            out += ["put", card_words(swap), "under the pile"]
        return out
    cards = names(prefix)
    out = ["Lay"]
    if len(cards) == 2:
        out += [cards[0] + ",", "then", cards[1] + " on top"]
    else:
        out += cards
    effect = next((t[1] for t in prefix if t[0] == "effect"), None)
    target = next((t[1] for t in prefix if t[0] == "target"), None)
    if effect is not None and target is not None:
        me = int(target) == seat
        if effect == ">":  # RT-4.1 (RT-9.5: the layer itself)
            words = "you go again" if me else f"{seat_name(int(target))} goes next"
        else:  # RT-4.2
            words = "you draw a card" if me else f"{seat_name(int(target))} draws a card"
        out[-1] += ":"
        out.append(words)
    return out


def names(prefix: Sequence[Token]) -> list[str]:
    """The cards chosen in ``prefix`` in words, a Joker with its value once chosen
    (``["2", "Joker as 3"]``)."""
    values = [t[1] for t in prefix if t[0] == "value"]
    out: list[str] = []
    for code in (t[1] for t in prefix if t[0] == "card"):
        if code == "J" and values:
            out.append(f"Joker as {values.pop(0)}")
        else:
            out.append(card_words(code))
    return out


def picker_prompt(prefix: Sequence[Token], seat: int) -> str:
    """The prompt under a picker: the lay so far as a sentence (``"Lay Joker, then 2 on
    top"``), or its cards joined by ``+`` when the sentence is too wide (``"Du bist! 2
    + Joker as 3"``), or the keys when even that is."""
    return fit(" ".join(chunks(prefix, seat)), " + ".join(names(prefix)), "< > pick  BACK undo")


def banner_lines(words: Sequence[str]) -> tuple[str, ...]:
    """The chunks ``words`` as a question on the hand screen's banner: the first line in
    the banner's big font, the rest in its small one (``device.hands.screen``: 18 px, then
    10 px), at most :data:`CONFIRM_LINES` lines, each fitting the screen's width."""
    lines: list[str] = []
    current = ""
    size = BANNER_BIG
    chunked = list(words)
    if chunked:
        chunked[-1] += "?"
    for chunk in chunked:
        trial = f"{current} {chunk}".strip()
        if not current or text_width(trial, size) <= BANNER_WIDTH:
            current = trial
            continue
        lines.append(current)
        current, size = chunk, BANNER_SMALL
    if current:
        lines.append(current)
    if len(lines) > CONFIRM_LINES:
        lines[CONFIRM_LINES - 1 :] = [" ".join(lines[CONFIRM_LINES - 1 :])]
    return tuple(lines)


def picker(opts: Sequence[Token], prefix: Sequence[Token], seat: int, cursor: int) -> Picker:
    """The picker over the strip for the next choices ``opts`` (non-empty, all of one
    kind) after ``prefix``, with ``cursor`` highlighted (kept inside the options): a
    Joker's value (RT-3.4), the effect (RT-4) or its target (seats from 1, ``ME`` for
    ``seat``), ``OK`` for the end."""
    kind = opts[0][0]
    labels: list[str] = []
    for t in opts:
        if t[0] == "target":
            labels.append("ME" if int(t[1]) == seat else str(int(t[1]) + 1))
        elif t[0] == "effect":
            labels.append("DU BIST!" if t[1] == ">" else "ZIEHEN!")
        elif t[0] == "end":
            labels.append("OK")
        else:
            labels.append(t[1])
    if kind == "value":
        jokers = sum(1 for t in prefix if t == ("card", "J"))
        done = sum(1 for t in prefix if t[0] == "value")
        title = "JOKER COUNTS AS?" if jokers < 2 else (
            "1ST JOKER AS?" if done == 0 else "2ND JOKER AS?")
    elif kind == "effect":
        title = "WHICH EFFECT?"
    elif kind == "target":
        effect = next((t[1] for t in prefix if t[0] == "effect"), ">")
        title = "WHO GOES NEXT?" if effect == ">" else "WHO DRAWS A CARD?"
    else:
        title = "CHOOSE"
    return Picker(title, tuple(labels), min(cursor, len(labels) - 1))

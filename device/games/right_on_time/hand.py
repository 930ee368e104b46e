"""Right on Time's lay composer (``docs/rules/right-on-time.md``): one seat's handheld in play.

Every legal action is read as a sequence of choices (first card, second card or "alone",
each Joker's value, which effect, the effect's target, RT-3 and RT-4; or a bonus card and
the hand card it replaces, RT-6.4; or ``draw``, RT-5.1).  At every step only the choices
that lead to some action in ``view.legal`` are offered; a step with exactly one choice left
(alone, a value, an effect, a target) is taken automatically; BACK undoes the last choice
made by a key; the complete lay is asked in words on the screen's banner ("Lay 7, then
Joker as 1 on top?", "Lay Du bist! 5: Seat 3 goes next?") before SELECT returns it.  The
prompt line speaks words too ("SEL 2: alone or pair", "Lay 2, then which?"), never
notation.  The cursor and the pickers wrap around; a step with one playable tile starts
on it.  The shared parts (phases, cursor, scrolling, messages) are
:class:`device.hand_ui.HandComposer`'s.  Action texts are read by the engine's own
``parse_action`` and cards by its ``RotCard``; lines are measured with the hand screen's
own font (``device.render.hand.text_width``) so none is cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from device.games.right_on_time.narrate import card_words
from device.hand_ui import HandComposer, HandScreenModel, Key, Picker, SeatView, Tile
from device.render.hand import WIDTH, text_width
from device.words import seat_name
from engine.core import NotationError
from engine.right_on_time.actions import BonusSwap, Draw, Play, parse_action
from engine.right_on_time.cards import DU_BIST, JOKER, NULL, ZIEHEN, RotCard
from engine.right_on_time.view import RightOnTimeView

Token = tuple[str, str]
"""One choice of a Right on Time action: ``(kind, value)`` with kind ``card``, ``alone``,
``value``, ``effect``, ``target``, ``bonus``, ``swap``, ``draw`` or ``end``."""

_END: Token = ("end", "")
_AUTO_KINDS = frozenset({"alone", "value", "effect", "target", "swap"})

BANNER_BIG, BANNER_SMALL = 18, 10
"""Font sizes of the hand screen's banner lines (``device.render.hand``: the first line
big, the others small)."""
BANNER_WIDTH = WIDTH - 4
"""Widest banner line, px (the renderer cuts lines wider than the screen less 2 px)."""
CONFIRM_LINES = 3
"""Most banner lines of a confirmation (the banner's 41 rows hold one big, two small)."""
CONFIRM_PROMPT = "SEL: yes  BACK: no"
"""The prompt line under a confirmation."""
PROMPT_WIDTH = WIDTH - 4
"""Widest prompt text, px (the renderer draws it at 11 px, or 10 px when that is too
wide)."""


def rot_tokens(text: str) -> tuple[Token, ...] | None:
    """The choices that make up a Right on Time action text (docs/notation.md, read by the
    engine's ``parse_action``), ending with ``("end", "")``; ``None`` for a text that is
    not a hand action (RT-3, RT-4, RT-5.1, RT-6.4).

    >>> rot_tokens("play 3 J=2")
    (('card', '3'), ('card', 'J'), ('value', '2'), ('end', ''))
    >>> rot_tokens("play D4 >2")
    (('card', 'D4'), ('alone', ''), ('effect', '>'), ('target', '2'), ('end', ''))
    """
    try:
        action = parse_action(text)
    except NotationError:
        return None
    if isinstance(action, Draw):
        return (("draw", ""), _END)
    if isinstance(action, BonusSwap):
        return (("bonus", action.bonus), ("swap", action.hand), _END)
    if not isinstance(action, Play):
        return None
    out: list[Token] = [("card", lay.card) for lay in action.cards]
    if len(action.cards) == 1:
        out.append(("alone", ""))
    out.extend(("value", str(lay.declared)) for lay in action.cards if lay.declared is not None)
    if action.effect is not None:
        out += [("effect", action.effect.kind), ("target", str(action.effect.seat))]
    return (*out, _END)


def _fit(*texts: str) -> str:
    """The first of ``texts`` whose ink fits the prompt line at 10 px (the renderer's
    smaller size), else the last one."""
    for text in texts:
        if text_width(text, 10) <= PROMPT_WIDTH:
            return text
    return texts[-1]


def rot_value(code: str) -> int | None:
    """The value of a Right on Time hand card (RT-1.3, read by the engine's ``RotCard``):
    ``"5"`` -> 5, ``"D3"`` -> 3, ``"N"`` -> 0; ``None`` for a Joker (its value is declared
    when laid) or no card (``""``)."""
    return RotCard.parse(code).value if code else None


def _face(code: str) -> tuple[str, str | None, str]:
    """Big label, glyph and small tag of a card tile: a Du bist! shows an arrow at a person,
    a Ziehen! an arrow into a card (RT-4), a Joker ``1-7``, Null ``=0``."""
    card = RotCard.parse(code)
    if card.kind == JOKER:
        return "J", None, "1-7"
    if card.kind == NULL:
        return "N", None, "=0"
    if card.kind == DU_BIST:
        return str(card.value), "you", ""
    if card.kind == ZIEHEN:
        return str(card.value), "pull", ""
    return code, None, ""


@dataclass(frozen=True, slots=True)
class _Choice:
    """A choice made by a key press: the token and, for strip choices, the tile index."""

    token: Token
    tile: int | None = None


class LayComposer(HandComposer):
    """One seat's Right on Time handheld; see the module docstring.  ``seat``: 0-based;
    ``ValueError`` for a negative seat."""

    title = "RIGHT ON TIME"

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._choices: list[_Choice] = []
        self._picker_cursor = 0
        self._plans: dict[tuple[Token, ...], str] = {}
        self._next: dict[tuple[Token, ...], list[Token]] = {}

    def _check_view(self, view: object) -> SeatView:
        if not isinstance(view, RightOnTimeView):
            raise ValueError(
                f"seat {self.seat} handheld (right-on-time) got a {type(view).__name__}"
            )
        return view

    def _rot(self) -> RightOnTimeView | None:
        view = self._in_play()
        return view if isinstance(view, RightOnTimeView) else None

    def _reset(self) -> None:
        self._choices.clear()
        self._picker_cursor = 0

    def _prepare(self) -> None:
        self._plans = self._read_plans()
        self._next = self._build_next()

    def _tile_keys(self) -> list[tuple[str, str]]:
        view = self._rot()
        if view is None:
            return []
        keys = [("card", code) for code in view.hand]
        keys += [("bonus", code) for code in view.bonus]
        if "draw" in view.legal:
            keys.append(("action", "draw"))
        return keys

    def _tiles(self) -> list[Tile]:
        view = self._rot()
        return [] if view is None else self._rot_tiles(view)

    def _play_key(self, k: Key) -> str | None:
        view = self._rot()
        return None if view is None else self._rot_key(view, k)

    def _condition(self) -> str:
        view = self._rot()
        if view is None:
            return ""
        return "OPEN" if view.top_value is None else f"top {view.top_value}"

    def _prompt(self, tiles: Sequence[Tile]) -> str:
        view = self._rot()
        return "" if view is None else self._rot_prompt(view, tiles)

    def _picker(self) -> Picker | None:
        return self._rot_picker() if self._rot() is not None else None

    def _confirming(self) -> bool:
        return self._step()[0] == "confirm"

    def _read_plans(self) -> dict[tuple[Token, ...], str]:
        view = self._rot()
        if view is None:
            return {}
        plans: dict[tuple[Token, ...], str] = {}
        for text in view.legal:
            tokens = rot_tokens(text)
            if tokens is not None:
                plans[tokens] = text
        return plans

    def _prefix(self) -> tuple[Token, ...]:
        """The choices made by keys, each followed by the choices taken automatically after
        it (a step with one option left of the kinds in ``_AUTO_KINDS``)."""
        prefix: tuple[Token, ...] = ()
        for choice in self._choices:
            prefix = (*prefix, choice.token)
            while True:
                opts = self._options(prefix)
                if len(opts) != 1 or opts[0][0] not in _AUTO_KINDS:
                    break
                prefix = (*prefix, opts[0])
        return prefix

    def _options(self, prefix: tuple[Token, ...]) -> list[Token]:
        """The next choices that lead to a legal action, in a stable order."""
        return self._next.get(prefix, [])

    def _build_next(self) -> dict[tuple[Token, ...], list[Token]]:
        """The table prefix -> next choices of every legal action (a trie, built once per
        view; it is never changed afterwards, so copies may share it)."""
        table: dict[tuple[Token, ...], dict[Token, None]] = {}
        for tokens in self._plans:
            for n in range(len(tokens)):
                table.setdefault(tokens[:n], {}).setdefault(tokens[n])
        return {p: sorted(opts, key=self._order) for p, opts in table.items()}

    def _order(self, token: Token) -> tuple[int, int, str]:
        """Picker order: values ascending, Du bist! before Ziehen!, targets clockwise from
        the seat on the left (so the left neighbour is highlighted first), this seat last."""
        kind, value = token
        seats = max(1, len(self._view.hand_counts)) if self._view is not None else 1
        if kind == "target" and value.isdigit():
            return (0, (int(value) - self.seat - 1) % seats, value)
        if kind == "value" and value.isdigit():
            return (0, int(value), value)
        if kind == "effect":
            return (0, 0 if value == ">" else 1, value)
        return (1 if kind == "end" else 0, 0, "")

    def _rot_tiles(self, view: RightOnTimeView) -> list[Tile]:
        prefix = self._prefix()
        opts = self._options(prefix) if self._is_my_turn() else []
        raised = {c.tile for c in self._choices if c.tile is not None}
        cards = {t[1] for t in opts if t[0] in ("card", "swap")}
        first = self._choices[0].tile if self._choices else None
        second_step = len(prefix) == 1 and prefix[0][0] == "card"
        tiles: list[Tile] = []
        for i, code in enumerate(view.hand):
            label, glyph, tag = _face(code)
            playable = code in cards and i not in raised
            if second_step and i == first:
                playable = ("alone", "") in opts
            tiles.append(Tile("card", label, glyph, tag, playable, i in raised))
        base = len(view.hand)
        for j, code in enumerate(view.bonus):
            label, glyph, tag = _face(code)
            playable = ("bonus", code) in opts
            tiles.append(Tile("bonus", label, glyph, tag, playable, base + j in raised))
        if "draw" in view.legal:
            tiles.append(Tile("action", "+1", "deck", "draw", playable=("draw", "") in opts))
        return tiles

    def _step(self) -> tuple[str, list[Token]]:
        """The composer's step: ``("strip"|"picker"|"confirm"|"idle", options)``."""
        if not self._is_my_turn() or not self._plans:
            return "idle", []
        opts = self._options(self._prefix())
        if not opts:
            return "idle", []
        if opts == [_END]:
            return "confirm", opts
        if any(t[0] in ("value", "effect", "target", "end") for t in opts):
            return "picker", opts
        return "strip", opts

    def _rot_key(self, view: RightOnTimeView, k: Key) -> str | None:
        if not self._is_my_turn():
            if k in (Key.LEFT, Key.RIGHT):
                self._move(k, len(self._rot_tiles(view)))
            elif k is Key.SELECT:
                self._refuse("Not your turn" if view.winner is None else "Game over")
            return None
        if k is Key.BACK:
            self._back()
            return None
        step, opts = self._step()
        if step == "picker":
            if k in (Key.LEFT, Key.RIGHT):  # the picker wraps around like the strip
                step_by = -1 if k is Key.LEFT else 1
                self._picker_cursor = (self._picker_cursor + step_by) % len(opts)
            else:
                self._choose(_Choice(opts[min(self._picker_cursor, len(opts) - 1)]))
            return None
        if step == "confirm":
            if k is Key.SELECT:
                return self._plans.get((*self._prefix(), _END))
            return None
        tiles = self._rot_tiles(view)
        if k in (Key.LEFT, Key.RIGHT):
            self._move(k, len(tiles))
            return None
        if step != "strip" or not tiles:
            self._refuse("Not your turn")
            return None
        tile = tiles[self._cursor]
        if not tile.playable:
            self._refuse(self._rot_reason(view, tile))
            return None
        token = self._tile_token(view, tile)
        self._choose(_Choice(token, self._cursor))
        return None

    def _tile_token(self, view: RightOnTimeView, tile: Tile) -> Token:
        """The choice a playable tile under the cursor stands for at the current step."""
        prefix = self._prefix()
        if tile.kind == "action":
            return ("draw", "")
        if tile.kind == "bonus":
            return ("bonus", view.bonus[self._cursor - len(view.hand)])
        code = view.hand[self._cursor]
        if prefix and prefix[0][0] == "bonus":
            return ("swap", code)
        if self._choices and self._cursor == self._choices[0].tile:
            return ("alone", "")
        return ("card", code)

    def _choose(self, choice: _Choice) -> None:
        self._choices.append(choice)
        self._picker_cursor = 0
        if self._step()[0] == "strip":  # e.g. the one card that pairs with the first
            self._start_on_only_choice()
            self._scroll()

    def _back(self) -> None:
        """Undo the last choice made by a key; on a picker, re-highlight that choice."""
        if not self._choices:
            return
        popped = self._choices.pop()
        step, opts = self._step()
        if popped.tile is not None:
            self._cursor = popped.tile
            self._scroll()
        self._picker_cursor = opts.index(popped.token) if popped.token in opts else 0
        if step != "picker":
            self._picker_cursor = 0

    def _rot_reason(self, view: RightOnTimeView, tile: Tile) -> str:
        """Why the tile under the cursor is not a choice now, in words that fit the prompt
        line (about 21 characters; 10 px text for the longest)."""
        prefix = self._prefix()
        top = view.top_value
        if prefix:
            if tile.kind != "card":
                return "No: BACK to undo"
            if prefix[0][0] == "bonus":
                return "No: can't swap that"
            if self._choices and self._cursor == self._choices[0].tile:
                return "No: pick a 2nd card"
            value = rot_value(view.hand[self._cursor])
            if top is not None and value is not None and value > top:
                return f"No: each {top} or less"  # RT-3.2
            return "No: not with that"
        if not any(t[0][0] == "card" for t in self._plans):
            return "No lay: draw a card" if "draw" in view.legal else "No: can't lay"
        if tile.kind == "action":
            return "No: you can lay"
        code = view.hand[self._cursor] if tile.kind == "card" else ""
        value = rot_value(code)
        if code == "J" and top == 7:
            return "No: Joker can't beat 7"  # RT-3.4
        if top is not None and value is not None and value <= top:
            return f"No: above {top} or a pair"  # RT-3.1, RT-3.2
        return "No: can't lay that"

    def _chunks(self, prefix: Sequence[Token]) -> list[str]:
        """The composed (maybe partial) action as a sentence in unbreakable chunks, for
        people (seats from 1, cards in words, RT-3, RT-4, RT-5.1, RT-6.4): ``["Lay",
        "7,", "then", "Joker as 1 on top"]``, ``["Lay", "Du bist! 5:", "Seat 3 goes
        next"]``, ``["Draw a card"]``, ``["Swap", "Joker in,", "put", "3", "under the
        pile"]`` (a bonus card swapped in, RT-6.4)."""
        if prefix and prefix[0][0] == "draw":
            return ["Draw a card"]
        if prefix and prefix[0][0] == "bonus":
            out = ["Swap", f"{card_words(prefix[0][1])} in"]
            swap = next((t[1] for t in prefix if t[0] == "swap"), None)
            if swap is not None:
                out[-1] += ","
                out += ["put", card_words(swap), "under the pile"]
            return out
        names = self._names(prefix)
        out = ["Lay"]
        if len(names) == 2:
            out += [names[0] + ",", "then", names[1] + " on top"]
        else:
            out += names
        effect = next((t[1] for t in prefix if t[0] == "effect"), None)
        target = next((t[1] for t in prefix if t[0] == "target"), None)
        if effect is not None and target is not None:
            me = int(target) == self.seat
            if effect == ">":  # RT-4.1 (RT-9.5: the layer itself)
                words = "you go again" if me else f"{seat_name(int(target))} goes next"
            else:  # RT-4.2
                words = "you draw a card" if me else f"{seat_name(int(target))} draws a card"
            out[-1] += ":"
            out.append(words)
        return out

    @staticmethod
    def _names(prefix: Sequence[Token]) -> list[str]:
        """The cards chosen in ``prefix`` in words, a Joker with its value once chosen
        (``["2", "Joker as 3"]``)."""
        values = [t[1] for t in prefix if t[0] == "value"]
        names: list[str] = []
        for code in (t[1] for t in prefix if t[0] == "card"):
            if code == "J" and values:
                names.append(f"Joker as {values.pop(0)}")
            else:
                names.append(card_words(code))
        return names

    def _picker_prompt(self, prefix: Sequence[Token]) -> str:
        """The prompt under a picker: the lay so far as a sentence (``"Lay Joker, then 2 on
        top"``), or its cards joined by ``+`` when the sentence is too wide (``"Du bist! 2
        + Joker as 3"``), or the keys when even that is."""
        return _fit(
            " ".join(self._chunks(prefix)), " + ".join(self._names(prefix)),
            "< > pick  BACK undo",
        )

    def _banner_lines(self, chunks: Sequence[str]) -> tuple[str, ...]:
        """``chunks`` as a question on the hand screen's banner: the first line in the
        banner's big font, the rest in its small one (``device.render.hand``: 18 px, then
        10 px), at most :data:`CONFIRM_LINES` lines, each fitting the screen's width."""
        lines: list[str] = []
        current = ""
        size = BANNER_BIG
        words = list(chunks)
        if words:
            words[-1] += "?"
        for chunk in words:
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

    def screen(self) -> HandScreenModel:
        """See :meth:`HandComposer.screen`; a complete action waiting for SELECT is asked
        in words on the banner instead of the card strip ("Lay 7, then / Joker as 1 on
        top?"), with the keys' meaning on the prompt line."""
        model = super().screen()
        if self._rot() is None or not self._confirming() or self._message:
            return model
        banner = self._banner_lines(self._chunks(self._prefix()))
        return replace(
            model, banner=banner, tiles=(), cursor=None, scroll_left=False,
            scroll_right=False, prompt="Sent..." if self._pending else CONFIRM_PROMPT,
        )

    def _rot_prompt(self, view: RightOnTimeView, tiles: Sequence[Tile]) -> str:
        if view.winner is not None:
            return "You win!" if view.winner == self.seat else f"{seat_name(view.winner)} wins"
        if not self._is_my_turn():
            if self.seat in view.out:
                return "You are out: wait"
            return f"{seat_name(view.to_move)} to play" if view.to_move is not None else ""
        if self._pending:
            return "Sent..."
        prefix = self._prefix()
        step = self._step()[0]
        if step == "confirm":
            return CONFIRM_PROMPT
        if step == "picker":
            return self._picker_prompt(prefix)
        tile = tiles[self._cursor] if tiles else None
        if prefix and prefix[0][0] == "bonus":
            name = card_words(prefix[0][1])
            return _fit(f"Swap {name} in for which?", f"Swap in {name} for?",
                        "Put which card away?")
        if prefix:
            first = card_words(prefix[0][1])
            if tile is not None and tile.raised and tile.playable:
                return _fit(f"SEL: lay {first} alone", f"SEL: {first} alone")
            return _fit(f"Lay {first}, then which?", f"Lay {first}, then?", "Then which card?")
        if tile is None:
            return ""
        if tile.kind == "action":
            return "SEL: draw a card" if tile.playable else "You can lay: no draw"
        if tile.kind == "bonus":
            name = card_words(view.bonus[self._cursor - len(view.hand)])
            if not tile.playable:
                return "Bonus: not now"
            return _fit(f"SEL: swap bonus {name} in", f"SEL: swap {name} in", "SEL: swap it in")
        if not tile.playable:
            if not any(t[0][0] == "card" for t in self._plans):
                return "No lay: draw a card"
            top = view.top_value
            return f"Need above {top} or pair" if top is not None else "Can't lay that"
        code = view.hand[self._cursor]
        name = card_words(code)
        nxt = self._options((("card", code),))
        if all(t[0] != "card" for t in nxt):
            return f"SEL: lay {name}"
        if ("alone", "") in nxt:
            return _fit(f"SEL {name}: alone or pair", f"SEL {name}: alone/pair", f"SEL: {name}")
        return _fit(f"SEL: {name} and another", f"SEL: {name} + 2nd", f"SEL: {name}")

    def _rot_picker(self) -> Picker | None:
        step, opts = self._step()
        if step != "picker":
            return None
        kind = opts[0][0]
        labels: list[str] = []
        for t in opts:
            if t[0] == "target":
                labels.append("ME" if int(t[1]) == self.seat else str(int(t[1]) + 1))
            elif t[0] == "effect":
                labels.append("DU BIST!" if t[1] == ">" else "ZIEHEN!")
            elif t[0] == "end":
                labels.append("OK")
            else:
                labels.append(t[1])
        prefix = self._prefix()
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
        return Picker(title, tuple(labels), min(self._picker_cursor, len(labels) - 1))

"""Right on Time's lay composer (``rules/right-on-time.md``): one seat's handheld in play.

Every legal action is read as a sequence of choices (first card, second card or "alone",
each Joker's value, which effect, the effect's target, RT-3 and RT-4; or a bonus card and
the hand card it replaces, RT-6.4; or ``draw``, RT-5.1).  At every step only the choices
that lead to some action in ``view.legal`` are offered; a step with exactly one choice left
(alone, a value, an effect, a target) is taken automatically; BACK undoes the last choice
made by a key; the complete lay is shown for confirmation before SELECT returns it.  The
shared parts (phases, cursor, scrolling, messages) are
:class:`device.hand_ui.HandComposer`'s.  Action texts are read by the engine's own
``parse_action`` and cards by its ``RotCard``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from device.hand_ui import PROMPT_CHARS, HandComposer, Key, Picker, SeatView, Tile
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


def rot_tokens(text: str) -> tuple[Token, ...] | None:
    """The choices that make up a Right on Time action text (notation.md, read by the
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
            if k is Key.LEFT:
                self._picker_cursor = max(0, self._picker_cursor - 1)
            elif k is Key.RIGHT:
                self._picker_cursor = min(len(opts) - 1, self._picker_cursor + 1)
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
        """Why the tile under the cursor is not a choice now, in about 21 characters."""
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
                return f"No: pair needs <={top}"
            return "No: not with that"
        if not any(t[0][0] == "card" for t in self._plans):
            return "No: no lay, DRAW" if "draw" in view.legal else "No: can't lay"
        if tile.kind == "action":
            return "No: you can lay"
        code = view.hand[self._cursor] if tile.kind == "card" else ""
        value = rot_value(code)
        if code == "J" and top == 7:
            return "No: J can't beat 7"
        if top is not None and value is not None and value <= top:
            return f"No: need >{top} or pair"
        return "No: can't lay that"

    def _lay_text(self, prefix: Sequence[Token]) -> str:
        """A composed (maybe partial) action for people: ``"3 J=2 @2"`` (seats from 1)."""
        words: list[str] = []
        cards = [t[1] for t in prefix if t[0] == "card"]
        values = [t[1] for t in prefix if t[0] == "value"]
        for code in cards:
            if code == "J":
                words.append("J=" + (values.pop(0) if values else "?"))
            else:
                words.append(code)
        effect = next((t[1] for t in prefix if t[0] == "effect"), None)
        target = next((t[1] for t in prefix if t[0] == "target"), None)
        if effect is not None:
            words.append(effect + (str(int(target) + 1) if target is not None else "?"))
        return " ".join(words)

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
        lay = self._lay_text(prefix)
        if step == "confirm":
            if prefix[0][0] == "draw":
                return "DRAW a card? SEL"
            if prefix[0][0] == "bonus":
                return f"SWAP {prefix[0][1]} for {prefix[1][1]}? SEL"
            return f"LAY {lay}? SEL"
        if step == "picker":
            text = f"LAY {lay} BACK undo"
            return text if len(text) <= PROMPT_CHARS else f"LAY {lay} BACK"
        tile = tiles[self._cursor] if tiles else None
        if prefix and prefix[0][0] == "bonus":
            return f"Swap {prefix[0][1]} for? BACK"
        if prefix:
            first = prefix[0][1]
            if tile is not None and tile.raised and tile.playable:
                return f"SEL: {first} alone"
            return f"{first} + 2nd card? BACK"
        if tile is None:
            return ""
        if tile.kind == "action":
            return "SEL draw (no lay)" if tile.playable else "< > move"
        if tile.kind == "bonus":
            return f"SEL swap {tile.label} in" if tile.playable else "< > move"
        if not tile.playable:
            if not any(t[0][0] == "card" for t in self._plans):
                return "No lay: DRAW"
            return "< > move  SEL lay"
        code = view.hand[self._cursor]
        nxt = self._options((("card", code),))
        if all(t[0] != "card" for t in nxt):
            return f"SEL lay {tile.label}" if code != "J" else "SEL lay Joker"
        if ("alone", "") in nxt:
            return f"SEL {tile.label}: alone/pair"
        return f"SEL {tile.label} + 2nd card"

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
                labels.append("DU" if t[1] == ">" else "ZIE")
            elif t[0] == "end":
                labels.append("OK")
            else:
                labels.append(t[1])
        prefix = self._prefix()
        if kind == "value":
            jokers = sum(1 for t in prefix if t == ("card", "J"))
            done = sum(1 for t in prefix if t[0] == "value")
            title = "JOKER =" if jokers < 2 else ("1ST JOKER =" if done == 0 else "2ND JOKER =")
        elif kind == "effect":
            title = "WHICH EFFECT?"
        elif kind == "target":
            effect = next((t[1] for t in prefix if t[0] == "effect"), ">")
            title = "WHO GOES NEXT?" if effect == ">" else "WHO DRAWS?"
        else:
            title = "CHOOSE"
        return Picker(title, tuple(labels), min(self._picker_cursor, len(labels) - 1))


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
:class:`device.hands.composer.HandComposer`'s; the trie of choices is
:class:`device.games.right_on_time.lay_plan.LayPlan` (action texts read by the engine's own
``parse_action``, actions handed back as the engine's objects) and the sentences, the
banner and the pickers are :mod:`device.games.right_on_time.lay_words` (lines measured with
the hand screen's own font, ``device.hands.screen.text_width``, so none is cut).  Cards are
read by the engine's ``RotCard``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from typing import Self

from device.common.words import seat_name
from device.games.right_on_time import lay_words
from device.games.right_on_time.lay_plan import Choice, LayPlan, Token
from device.games.right_on_time.lay_words import fit
from device.games.right_on_time.rt_narrate import card_words
from device.hands.composer import HandComposer, HandKey, HandScreenModel, Picker, Tile
from engine.right_on_time.actions import RotAction
from engine.right_on_time.cards import DU_BIST, JOKER, NULL, ZIEHEN, RotCard
from engine.right_on_time.view import RightOnTimeView

CONFIRM_PROMPT = "SEL: yes  BACK: no"
"""The prompt line under a confirmation."""


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


class LayComposer(HandComposer[RightOnTimeView, RotAction]):
    """One seat's Right on Time handheld; see the module docstring.  ``seat``: 0-based;
    ``ValueError`` for a negative seat.  SELECT on a confirmed lay returns the engine's
    :data:`~engine.right_on_time.actions.RotAction` (a ``Play``, ``Draw`` or
    ``BonusSwap``) whose text is in ``view.legal``."""

    title = "RIGHT ON TIME"
    game = "right-on-time"
    view_type = RightOnTimeView

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._plan = LayPlan(seat)
        self._picker_cursor = 0

    def __copy__(self) -> Self:
        """See :meth:`HandComposer.__copy__`; the copy has its own choices."""
        clone = super().__copy__()
        clone._plan = copy.copy(self._plan)
        return clone

    def _reset(self) -> None:
        self._plan.reset()
        self._picker_cursor = 0

    def _prepare(self) -> None:
        self._plan.read(self._in_play())

    def _tile_keys(self) -> list[tuple[str, str]]:
        view = self._in_play()
        if view is None:
            return []
        keys = [("card", code) for code in view.hand]
        keys += [("bonus", code) for code in view.bonus]
        if "draw" in view.legal:
            keys.append(("action", "draw"))
        return keys

    def _tiles(self) -> list[Tile]:
        view = self._in_play()
        return [] if view is None else self._rot_tiles(view)

    def _play_key(self, k: HandKey) -> RotAction | None:
        view = self._in_play()
        return None if view is None else self._rot_key(view, k)

    def _condition(self) -> str:
        view = self._in_play()
        if view is None:
            return ""
        return "OPEN" if view.top_value is None else f"top {view.top_value}"

    def _prompt(self, tiles: Sequence[Tile]) -> str:
        view = self._in_play()
        return "" if view is None else self._rot_prompt(view, tiles)

    def _picker(self) -> Picker | None:
        if self._in_play() is None:
            return None
        step, opts = self._step()
        if step != "picker":
            return None
        return lay_words.picker(opts, self._plan.prefix(), self.seat, self._picker_cursor)

    def _confirming(self) -> bool:
        return self._step()[0] == "confirm"

    def _step(self) -> tuple[str, list[Token]]:
        """The composer's step: ``("strip"|"picker"|"confirm"|"idle", options)``."""
        return self._plan.step(self._is_my_turn())

    def _rot_tiles(self, view: RightOnTimeView) -> list[Tile]:
        choices = self._plan.choices
        prefix = self._plan.prefix()
        opts = self._plan.options(prefix) if self._is_my_turn() else []
        raised = {c.tile for c in choices if c.tile is not None}
        cards = {t[1] for t in opts if t[0] in ("card", "swap")}
        first = choices[0].tile if choices else None
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

    def _rot_key(self, view: RightOnTimeView, k: HandKey) -> RotAction | None:
        if not self._is_my_turn():
            if k in (HandKey.LEFT, HandKey.RIGHT):
                self._move(k, len(self._rot_tiles(view)))
            elif k is HandKey.SELECT:
                self._refuse("Not your turn" if view.winner is None else "Game over")
            return None
        if k is HandKey.BACK:
            self._back()
            return None
        step, opts = self._step()
        if step == "picker":
            if k in (HandKey.LEFT, HandKey.RIGHT):  # the picker wraps around like the strip
                step_by = -1 if k is HandKey.LEFT else 1
                self._picker_cursor = (self._picker_cursor + step_by) % len(opts)
            else:
                self._choose(Choice(opts[min(self._picker_cursor, len(opts) - 1)]))
            return None
        if step == "confirm":
            if k is HandKey.SELECT:
                return self._plan.action()
            return None
        tiles = self._rot_tiles(view)
        if k in (HandKey.LEFT, HandKey.RIGHT):
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
        self._choose(Choice(token, self._cursor))
        return None

    def _tile_token(self, view: RightOnTimeView, tile: Tile) -> Token:
        """The choice a playable tile under the cursor stands for at the current step."""
        prefix = self._plan.prefix()
        choices = self._plan.choices
        if tile.kind == "action":
            return ("draw", "")
        if tile.kind == "bonus":
            return ("bonus", view.bonus[self._cursor - len(view.hand)])
        code = view.hand[self._cursor]
        if prefix and prefix[0][0] == "bonus":
            return ("swap", code)
        if choices and self._cursor == choices[0].tile:
            return ("alone", "")
        return ("card", code)

    def _choose(self, choice: Choice) -> None:
        self._plan.choices.append(choice)
        self._picker_cursor = 0
        if self._step()[0] == "strip":  # e.g. the one card that pairs with the first
            self._start_on_only_choice()
            self._scroll()

    def _back(self) -> None:
        """Undo the last choice made by a key; on a picker, re-highlight that choice."""
        if not self._plan.choices:
            return
        popped = self._plan.choices.pop()
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
        prefix = self._plan.prefix()
        choices = self._plan.choices
        top = view.top_value
        if prefix:
            if tile.kind != "card":
                return "No: BACK to undo"
            if prefix[0][0] == "bonus":
                return "No: can't swap that"
            if choices and self._cursor == choices[0].tile:
                return "No: pick a 2nd card"
            value = rot_value(view.hand[self._cursor])
            if top is not None and value is not None and value > top:
                return f"No: each {top} or less"  # RT-3.2
            return "No: not with that"
        if not self._plan.can_lay():
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

    def screen(self) -> HandScreenModel:
        """See :meth:`HandComposer.screen`; a complete action waiting for SELECT is asked
        in words on the banner instead of the card strip ("Lay 7, then / Joker as 1 on
        top?"), with the keys' meaning on the prompt line."""
        model = super().screen()
        if self._in_play() is None or not self._confirming() or self._message:
            return model
        banner = lay_words.banner_lines(lay_words.chunks(self._plan.prefix(), self.seat))
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
        prefix = self._plan.prefix()
        step = self._step()[0]
        if step == "confirm":
            return CONFIRM_PROMPT
        if step == "picker":
            return lay_words.picker_prompt(prefix, self.seat)
        tile = tiles[self._cursor] if tiles else None
        if prefix and prefix[0][0] == "bonus":
            name = card_words(prefix[0][1])
            return fit(f"Swap {name} in for which?", f"Swap in {name} for?",
                       "Put which card away?")
        if prefix:
            first = card_words(prefix[0][1])
            if tile is not None and tile.raised and tile.playable:
                return fit(f"SEL: lay {first} alone", f"SEL: {first} alone")
            return fit(f"Lay {first}, then which?", f"Lay {first}, then?", "Then which card?")
        if tile is None:
            return ""
        if tile.kind == "action":
            return "SEL: draw a card" if tile.playable else "You can lay: no draw"
        if tile.kind == "bonus":
            name = card_words(view.bonus[self._cursor - len(view.hand)])
            if not tile.playable:
                return "Bonus: not now"
            return fit(f"SEL: swap bonus {name} in", f"SEL: swap {name} in", "SEL: swap it in")
        if not tile.playable:
            if not self._plan.can_lay():
                return "No lay: draw a card"
            top = view.top_value
            return f"Need above {top} or pair" if top is not None else "Can't lay that"
        code = view.hand[self._cursor]
        name = card_words(code)
        nxt = self._plan.options((("card", code),))
        if all(t[0] != "card" for t in nxt):
            return f"SEL: lay {name}"
        if ("alone", "") in nxt:
            return fit(f"SEL {name}: alone or pair", f"SEL {name}: alone/pair", f"SEL: {name}")
        return fit(f"SEL: {name} and another", f"SEL: {name} + 2nd", f"SEL: {name}")

"""Riiing!'s hand composer (``docs/rules/riiing.md``): one seat's handheld during play.

LEFT/RIGHT move the cursor over the hand plus a final tile ``DRAW`` (RI-4.2, RI-5.3) or
``TAKE k`` (RI-5.4) when that action is legal, wrapping around the ends; a new turn with a
single playable tile starts on it.  SELECT plays the card under the cursor / draws /
takes; BACK clears a message.  The prompt line says in words what SELECT does or what the
condition asks ("SEL: play 7 COFFEE", "Need higher than 6"), never in notation.  Slaps
come from the slap button, never from the handheld.  The shared parts (phases, cursor,
scrolling, messages) are :class:`device.hands.composer.HandComposer`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from device.common.words import a_number, count_words, or_list, seat_name
from device.games.riiing.ri_narrate import a_word
from device.games.riiing.ri_words import card_words, read_condition, symbol_of, word
from device.hands.composer import HandComposer, HandKey, Tile
from engine.riiing.actions import DRAW, TAKE, RiiingAction
from engine.riiing.cards import RiiingCard
from engine.riiing.view import RiiingView

_TILE_ACTIONS = {"draw": DRAW, "take": TAKE}
"""The action of each action tile, by its tag."""


def hand_condition(view: RiiingView) -> str:
    """The condition in force as a short header word (RI-3, RI-5.3, RI-5.4, RI-6.2):
    ``"OVER 6"``, ``"UNDER 6"``, ``"SAME 6"``, ``"COFFEES"``, ``"EVEN"``, ``"ODD"``, ``"2 5 8"``,
    ``"ANY"`` (open), ``"TOAST!"`` (demand), ``"PHONE x2"`` (chain), ``"RIIING!"``."""
    if view.winner is not None:
        return ""
    if view.window is not None:
        return "RIIING!"
    if view.demand is not None:
        return word(view.demand) + "!"
    if view.phones:
        return f"PHONE x{view.phones}"
    return read_condition(view.condition, view.last_card).short()


def need_words(view: RiiingView) -> str:
    """What the condition in force asks for, in words for the prompt line (RI-3.2 .. RI-3.5):
    ``"higher than 6"``, ``"lower than 6"``, ``"a 6"`` / ``"an 8"``, ``"a COFFEE"``, ``"an even
    number"``, ``"an odd number"``, ``"2, 5 or 8"``, ``"an ALARM"``; ``"any card"`` when it
    is open."""
    cond = read_condition(view.condition, view.last_card)
    if cond.is_open:
        return "any card"
    if cond.kind == ">":
        return f"higher than {cond.number}"
    if cond.kind == "<":
        return f"lower than {cond.number}"
    if cond.kind == "=" and cond.number is not None:  # None: open, answered above
        return a_number(cond.number)
    if cond.kind == "~":
        return a_word(cond.symbol)
    if cond.kind == "E":
        return "an even number"
    if cond.kind == "O":
        return "an odd number"
    if cond.kind == "one_of":
        return or_list(cond.numbers)
    return "another card"


def _reason(view: RiiingView, seat: int) -> str:
    """Why the card or tile under the cursor cannot be played now, in words that fit the
    prompt line (about 21 characters, 10 px text for the longest)."""
    if view.winner is not None:
        return "Game over"
    if view.window is not None:
        return "RIIING! Slap first!"
    if view.to_move != seat:
        return "Not your turn"
    if view.demand is not None:
        return f"No: must play {a_word(view.demand)}"
    if view.phones:
        return f"No: PHONE or take {view.phones}"
    cond = read_condition(view.condition, view.last_card)
    if cond.is_open or cond.kind in ("reverse", "unknown"):
        return "No: can't play that"
    return f"No: need {need_words(view)}"


class RiiingHand(HandComposer[RiiingView, RiiingAction]):
    """One seat's Riiing! handheld; see the module docstring.  ``seat``: 0-based;
    ``ValueError`` for a negative seat.  SELECT returns a :class:`RiiingAction` (``play
    <card>``, ``draw`` or ``take``) whose text is in ``view.legal``."""

    title = "RIIING!"
    game = "riiing"
    view_type = RiiingView

    def _tile_keys(self) -> list[tuple[str, str]]:
        view = self._in_play()
        if view is None:
            return []
        keys = [("card", code) for code in view.hand]
        keys += [("action", a) for a in ("draw", "take") if a in view.legal]
        return keys

    def _tiles(self) -> list[Tile]:
        view = self._in_play()
        if view is None:
            return []
        tiles: list[Tile] = []
        for code in view.hand:
            card = RiiingCard.parse(code)
            label = str(card.number) if card.number is not None else (
                "!" if card.kind == "demand" else "")
            playable = f"play {code}" in view.legal
            tiles.append(Tile("card", label, symbol_of(card), playable=playable))
        if "draw" in view.legal:
            # under a demand the seat draws until the demanded symbol comes (RI-5.3)
            label = "+?" if view.demand else "+1"
            tiles.append(Tile("action", label, "deck", tag="draw", playable=True))
        if "take" in view.legal:
            tiles.append(Tile("action", f"+{max(1, view.phones)}", "P", "take", playable=True))
        return tiles

    def _play_key(self, k: HandKey) -> RiiingAction | None:
        view = self._in_play()
        if view is None:
            return None
        tiles = self._tiles()
        if k in (HandKey.LEFT, HandKey.RIGHT):
            self._move(k, len(tiles))
            return None
        if k is HandKey.BACK or not tiles:
            return None
        if self._cursor < len(view.hand):
            action = RiiingAction.play(view.hand[self._cursor])
        else:
            action = _TILE_ACTIONS[tiles[self._cursor].tag]
        if str(action) in view.legal:
            return action
        self._refuse(_reason(view, self.seat))
        return None

    def _acting(self) -> bool:
        view = self._in_play()
        return self._is_my_turn() and (view is None or view.window is None)

    def _turn_word(self) -> str | None:
        view = self._in_play()
        return "SLAP!" if view is not None and view.window is not None else None

    def _condition(self) -> str:
        view = self._in_play()
        return "" if view is None else hand_condition(view)

    def _prompt(self, tiles: Sequence[Tile]) -> str:
        view = self._in_play()
        if view is None:
            return ""
        if view.winner is not None:
            return "You win!" if view.winner == self.seat else f"{seat_name(view.winner)} wins"
        if view.window is not None:
            return f"SLAP: drop all {word(view.window)}"
        if view.to_move != self.seat:
            return f"{seat_name(view.to_move)} to play" if view.to_move is not None else ""
        if self._pending:
            return "Sent..."
        tile = tiles[self._cursor] if tiles else None
        if tile is not None and tile.kind == "action":
            if tile.tag == "draw":
                if view.demand:  # RI-5.3: drawn until the demanded symbol comes
                    return f"SEL: draw till {a_word(view.demand)}"
                return "SEL: draw a card"
            return f"SEL: take {count_words(max(1, view.phones), 'card')}"
        if tile is not None and tile.playable:
            return f"SEL: play {card_words(view.hand[self._cursor])}"
        if view.demand is not None:
            return f"Must play {a_word(view.demand)}"
        if view.phones:
            return f"Play a PHONE or take {view.phones}"
        if not any(t.playable and t.kind == "card" for t in tiles):
            return "No card fits: draw"
        return f"Need {need_words(view)}"

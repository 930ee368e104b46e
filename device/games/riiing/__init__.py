"""Riiing! on the device (``docs/rules/riiing.md``): the wake-up race (RI-2.3), slap windows
(RI-6), false slaps (RI-6.5), narration, the hand strip and the table's condition zones."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from device.games.base import GamePlugin, OptionChoice, S, SlapWindows
from device.games.riiing import ri_howto, ri_narrate, ri_table
from device.games.riiing.ri_hand import RiiingHand
from device.games.riiing.ri_icons import SYMBOLS
from device.render.icons import Symbol
from device.render.palette import TEXT_DIM, YELLOW, Colour
from engine import get_game
from engine.core import EngineError, Event, Seat
from engine.riiing.actions import TIMEOUT, RiiingAction
from engine.riiing.position import RiiingPosition
from engine.riiing.view import RiiingView

if TYPE_CHECKING:
    from device.render.face import SceneTools


RIIING = get_game("riiing")
"""Riiing!'s rules (the engine's registry)."""


class RiiingWindows(SlapWindows[RiiingPosition, RiiingAction]):
    """Riiing!'s RIIING! windows (RI-6); see :class:`device.games.base.SlapWindows`."""

    def window_open(self, pos: RiiingPosition) -> bool:
        """RI-6.2: a reverse shows on top of the draw pile (the position's ``window``)."""
        return RIIING.view(pos, None).window is not None

    def window_ns(self, pos: RiiingPosition) -> int:
        """RI-6.4: the position's ``slap_timeout_s`` option, in ns."""
        return int(pos.options.slap_timeout_s) * S

    def slap_action(self, seat: Seat) -> RiiingAction:
        """``slap <seat>``: ``seat`` gets the open window (RI-6.3)."""
        return RiiingAction.slap(seat)

    def timeout_action(self) -> RiiingAction:
        """``timeout``: nobody slapped in time (RI-6.4)."""
        return TIMEOUT

    def false_slap_action(self, pos: RiiingPosition, seat: Seat) -> RiiingAction | None:
        """``falseslap <seat>`` when the engine's checked ``apply`` accepts it in ``pos``,
        else ``None`` (RI-6.5: option 0 makes a press outside a window no action)."""
        try:
            action = RiiingAction.falseslap(seat)
            RIIING.apply(pos, action)
        except EngineError:
            return None
        return action


class RiiingPlugin(GamePlugin[RiiingPosition, RiiingAction, RiiingView]):
    """Riiing! for the console; see :class:`device.games.base.GamePlugin`.  Its narration,
    table drawing and pages are :mod:`device.games.riiing.ri_narrate`,
    :mod:`device.games.riiing.ri_table` and :data:`device.games.riiing.ri_howto.PAGES`."""

    name = "riiing"
    title = "Riiing!"
    table_title = "RIIING!"
    view_type = RiiingView
    wake_symbol = "A"  # the ringing alarm clock (RI-2.3)
    wakeup_race = True
    windows = RiiingWindows()
    window_name = "RIIING!"
    narration = ri_narrate
    drawing = ri_table
    pages = ri_howto.PAGES
    lobby_options = (
        OptionChoice("hand_size", "Cards each", (7, 5, 6, 8, 9, 10), "RI-2.1"),
        OptionChoice("slap_timeout_s", "Slap time (s)", (8, 5, 10, 15), "RI-6.4"),
        OptionChoice("false_slap_penalty", "Early slap costs", (1, 2, 0), "RI-6.5"),
    )

    def cues(self, events: Sequence[Event]) -> tuple[str, ...]:
        """``"lay"`` for a card played (``play``: RI-4.1, RI-5, and the demanded card a draw
        turns up, RI-5.3), ``"draw"`` for cards that went into a hand (``draw``, ``take``,
        a false slap's ``falseslap``: RI-5.3, RI-5.4, RI-6.5; not when the piles were dry);
        each once, in the order they happened.  Riiing! has no rounds; the flow itself
        cues the window (``window``), the slap and the win.  A card turned over by the
        game (``flip``) makes no sound."""
        cues: list[str] = []
        for event in events:
            if event.kind == "play":
                name = "lay"
            elif event.kind in ("draw", "take", "falseslap") and event.cards:
                name = "draw"
            else:
                continue
            if name not in cues:
                cues.append(name)
        return tuple(cues)

    # ------------------------------------------------------------------ screens
    @property
    def symbols(self) -> Mapping[str, Symbol]:
        """The alarm clock, soap, coffee, toast and phone (:mod:`device.games.riiing.ri_icons`)."""
        return SYMBOLS

    def hand(self, seat: Seat) -> RiiingHand:
        """See :meth:`GamePlugin.hand` (:class:`device.games.riiing.ri_hand.RiiingHand`)."""
        return RiiingHand(seat)

    def top_card(self, view: RiiingView) -> str | None:
        """The last card played (RI-3.2)."""
        return view.last_card

    def window(self, view: RiiingView) -> str | None:
        """The symbol of the open RIIING! window (RI-6.2)."""
        return view.window

    def status(self, scene: SceneTools, view: RiiingView, playing: bool) -> tuple[str, Colour]:
        """In play: ``SLAP NOW!`` in yellow while a window is open (the turn waits,
        RI-6.2); else none (the table's turn plate says whose turn it is)."""
        if not playing:
            return "", TEXT_DIM
        if view.window is not None:
            return "SLAP NOW!", YELLOW
        return "", TEXT_DIM

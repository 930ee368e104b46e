"""The handheld menu: holding BACK for 2 s on a handheld (the driver posts the key
``"menu"``) opens it on that handheld, so a party can leave a game without a keyboard.

Three choices, picked with LEFT/RIGHT and SELECT (BACK closes the menu):

- ``GO ON``: close the menu, the game goes on;
- ``END``: end this game now — the results show, no winner, the journal marks it so it is
  not resumed;
- ``LOBBY``: end this game and go straight back to the lobby.

The menu is per seat and pure logic: :class:`SeatMenu` turns keys into a :class:`MenuChoice`
and draws itself as a picker on the seat's hand screen
(:class:`device.hands.composer.HandScreenModel`).
"""

from __future__ import annotations

from enum import StrEnum

from device.hands.composer import HandKey, HandScreenModel, Picker

MENU_KEY = "menu"
"""The key name a handheld driver posts after BACK was held down for 2 s."""


class MenuChoice(StrEnum):
    """What the menu can do; the values are the words on the hand screen."""

    CONTINUE = "GO ON"
    END = "END"
    LOBBY = "LOBBY"


PROMPTS = {
    MenuChoice.CONTINUE: "SEL: back to the game",
    MenuChoice.END: "SEL: end game, results",
    MenuChoice.LOBBY: "SEL: end game, lobby",
}
"""The prompt line under each highlighted choice (fits the 21-character line)."""


class SeatMenu:
    """The open menu of seat ``seat`` (0-based); the cursor starts on ``GO ON``."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.cursor = 0

    def key(self, k: HandKey) -> MenuChoice | None:
        """LEFT/RIGHT move (wrapping), SELECT returns the highlighted choice, BACK returns
        ``CONTINUE``; otherwise ``None`` (the menu stays open)."""
        choices = list(MenuChoice)
        if k is HandKey.LEFT:
            self.cursor = (self.cursor - 1) % len(choices)
        elif k is HandKey.RIGHT:
            self.cursor = (self.cursor + 1) % len(choices)
        elif k is HandKey.SELECT:
            return choices[self.cursor]
        elif k is HandKey.BACK:
            return MenuChoice.CONTINUE
        return None

    def screen(self) -> HandScreenModel:
        """The menu as a picker over the card strip."""
        choices = list(MenuChoice)
        return HandScreenModel(
            seat_label=str(self.seat + 1),
            turn="MENU",
            picker=Picker("MENU: this game", tuple(c.value for c in choices), self.cursor),
            prompt=PROMPTS[choices[self.cursor]],
        )

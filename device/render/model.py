"""What the device hands the renderers: plain frozen values, no pygame or PIL types.

The device loop builds a :class:`TableModel` for the table display (public information
only) and the renderers draw it; a renderer never reads engine positions directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from device.phase import Phase

if TYPE_CHECKING:
    from device.games.base import GamePlugin


@dataclass(frozen=True, slots=True)
class SeatBadge:
    """One seat on the table's edge ring.

    ``seat``: 0-based seat number (shown to people as ``seat + 1``); ``name``: e.g.
    ``"Seat 3"`` or a player's name; ``controller``: ``"human"``, ``"computer"`` or
    ``"empty"``; ``connected``: False while its handheld is unplugged.
    """

    seat: int
    name: str
    controller: str = "human"
    connected: bool = True


@dataclass(frozen=True, slots=True)
class LobbyModel:
    """The lobby menu on the TV: ``rows`` of ``(label, value)`` (e.g. ``("Game",
    "Riiing!")``, ``("Seat 2", "computer")``, ``("START", "")``), the highlighted row
    ``cursor`` and a ``hint`` line (which keys move and change)."""

    rows: tuple[tuple[str, str], ...]
    cursor: int
    hint: str = ""


@dataclass(frozen=True, slots=True)
class TableModel:
    """Everything the table display shows at one moment.

    - ``game``: the game's plugin (``device.games``; in the lobby, the game chosen there):
      the table asks it for the game's zones, titles and card faces
    - ``phase``: the game flow's phase (:class:`device.phase.Phase`; the wake-up race is
      RI-2.3's "who got up earliest? slap!")
    - ``view``: the engine's public view (seat ``None``) or ``None`` in the lobby/wake-up
    - ``seats``: one badge per seat
    - ``last_event``: one line for the top strip ("Seat 4 drew", "Seat 2 slapped in 231 ms")
    - ``deadline_ns``: CLOCK_MONOTONIC ns when the open RIIING! window (or wake-up race)
      times out, for the countdown; ``None`` when no countdown runs
    - ``slap``: ``(seat, reaction_ms)`` of the latest slap winner, shown large for a while
    - ``results``: game-over lines (winner first, then every slap's reaction time)
    - ``banner``: an error the party must see ("Seat 2 handheld unplugged — plug it back in")
    - ``lobby``: the lobby menu in phase ``"lobby"``
    - ``keymap``: simulator key help lines; drawn only by the simulator's frame, may be empty
    """

    game: GamePlugin
    phase: Phase
    view: object | None
    seats: tuple[SeatBadge, ...]
    last_event: str = ""
    deadline_ns: int | None = None
    slap: tuple[int, int] | None = None
    results: tuple[str, ...] = ()
    banner: str = ""
    lobby: LobbyModel | None = None
    keymap: tuple[str, ...] = ()

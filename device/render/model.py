"""What the device hands the renderers: plain frozen values, no pygame or PIL types.

The device loop builds a :class:`TableModel` for the table display (public information
only) and the renderers draw it; a renderer never reads engine positions directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from device.common.phase import Phase

if TYPE_CHECKING:
    from device.render.face import AnyFace, PublicView
    from device.render.howto_model import HowtoPage


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
class RoundEnd:
    """A round just ended (Right on Time, RT-2.4): shown over the table while the flow
    holds it (>= 4 s) before the next round's play.

    ``headline``: e.g. ``"Seat 1 wins round 1"``; ``score``: e.g. ``"Seat 1: 1  Seat 2:
    0"``; ``seat``: the round's winner (0-based; its colour frames the banner) or ``None``;
    ``card``: the code of the card whose lay ended the round, shown as the top card (the
    view is already the next round's, whose pile is empty), or ``None``.
    """

    headline: str
    score: str = ""
    seat: int | None = None
    card: str | None = None


@dataclass(frozen=True, slots=True)
class HowtoShown:
    """A "How to play" page on the TV instead of the table: ``page``, its ``number`` (from
    1) of ``count`` and the key ``hint``."""

    page: HowtoPage
    number: int = 1
    count: int = 1
    hint: str = ""


@dataclass(frozen=True, slots=True)
class TableModel:
    """Everything the table display shows at one moment.

    - ``game``: the game's plugin (``device.games``; in the lobby, the game chosen there):
      the table asks it for the game's zones, titles and card faces
    - ``phase``: the game flow's phase (:class:`device.common.phase.Phase`; the wake-up race is
      RI-2.3's "who got up earliest? slap!")
    - ``view``: the engine's public view (seat ``None``) or ``None`` in the lobby/wake-up;
      the table hands it to ``game`` only once ``game.public`` took it as that game's
    - ``seats``: one badge per seat
    - ``last_event``: one line for the top strip ("Seat 4 drew", "Seat 2 slapped in 231 ms")
    - ``deadline_ns``: CLOCK_MONOTONIC ns when the open RIIING! window (or wake-up race)
      times out, for the countdown; ``None`` when no countdown runs
    - ``slap``: ``(seat, reaction_ms)`` of the latest slap winner, shown large for a while
    - ``slap_margin``: ``(runner_up_seat, margin_ms)`` of that slap: the next slapper and
      how many ms later it came ("Seat 2 by 12 ms over Seat 4"), or ``None`` (nobody else
      slapped, or not known)
    - ``round_end``: the round that just ended (:class:`RoundEnd`), shown over the table;
      ``None`` otherwise (no turn is marked while it shows)
    - ``results``: game-over lines (winner first, then every slap's reaction time; when
      ``reactions`` are given the chart takes the place of these lines)
    - ``win_reason``: game over: how the game was won ("Seat 3 played their last card",
      the plugin's ``win_reason``), ``""`` for none
    - ``reactions``: game over: ``(seat, reaction_ms)`` of every press counted in every
      decided slap window (the winner's and the others'; not the wake-up race) in order,
      drawn as a chart of every seat's times; ``()`` for none
    - ``banner``: an error the party must see ("Seat 2 handheld unplugged — plug it back in")
    - ``lobby``: the lobby menu in phase ``"lobby"``
    - ``keymap``: simulator key help lines; drawn only by the simulator's frame, may be empty
    - ``howto``: in phase ``"howto"``, the "How to play" page drawn instead of the table
      (:class:`HowtoShown`)
    """

    game: AnyFace
    phase: Phase
    view: PublicView | None
    seats: tuple[SeatBadge, ...]
    last_event: str = ""
    deadline_ns: int | None = None
    slap: tuple[int, int] | None = None
    slap_margin: tuple[int, int] | None = None
    round_end: RoundEnd | None = None
    results: tuple[str, ...] = ()
    win_reason: str = ""
    reactions: tuple[tuple[int, int], ...] = ()
    banner: str = ""
    lobby: LobbyModel | None = None
    keymap: tuple[str, ...] = ()
    howto: HowtoShown | None = None

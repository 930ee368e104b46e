"""What the game flow shows, read in one piece: :class:`FlowSnapshot`.

``GameFlow.snapshot()`` (``device.flow.game_flow``) builds one; the console's TV model, the hand
screens' seats and the simulator's hot-seat read it instead of the flow's parts.  The
snapshot is a frozen value taken at one moment: it changes nothing and a later flow step
does not change it (the seats and the game record in it are the console's own objects,
which live on).
"""

from __future__ import annotations

from dataclasses import dataclass

from device.common.notices import Notice
from device.common.phase import Phase
from device.games import AnyPlugin
from device.hands.seats import Seat
from device.render.model import HowtoShown, LobbyModel, RoundEnd
from device.store.session import GameRecord


@dataclass(frozen=True, slots=True)
class FlowSnapshot:
    """The game flow at one moment (times are CLOCK_MONOTONIC ns).

    ``phase``: where the flow is; ``plugin``: the game played (or chosen in the lobby);
    ``playing``: the seats of that game; ``pos``: the engine position played, or ``None``;
    ``shown_pos``: the position the TV and the hands show (the one a held round ended
    from, RT-2.4, else ``pos``); ``record``: the record of the game played (or last
    played), or ``None``; ``last_event``: the TV's top line; ``headline`` and
    ``results``: the game-over screen's words; ``slap_shown``: the last won slap
    ``(seat, reaction ms)`` and ``slap_margin``: ``(runner-up seat, margin ms)`` or
    ``None`` (RI-6.3); ``round_end``: the round held on the TV, or ``None``;
    ``deadline_ns``: the open slap window's (or wake-up race's) end, or ``None``;
    ``awaiting_flip``: a window waits for the frame that shows it; ``stuck``: seats whose
    slap button is held down too long; ``notices``: the banner's notices in order
    (``device.common.notices``), ``banner``: all of them joined; ``lobby``: the lobby menu
    (phase ``LOBBY`` only); ``howto``: the "How to play" page shown (phase ``HOWTO``
    only); ``held``: a game restored after a power cut waits for the party; ``demo``: an
    attract-mode demo game plays."""

    phase: Phase
    plugin: AnyPlugin
    playing: tuple[Seat, ...]
    pos: object
    shown_pos: object
    record: GameRecord | None
    last_event: str
    headline: str
    results: tuple[str, ...]
    slap_shown: tuple[int, int] | None
    slap_margin: tuple[int, int] | None
    round_end: RoundEnd | None
    deadline_ns: int | None
    awaiting_flip: bool
    stuck: frozenset[int]
    notices: tuple[Notice, ...]
    banner: str
    lobby: LobbyModel | None
    howto: HowtoShown | None
    held: bool
    demo: bool

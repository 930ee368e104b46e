"""The seats at the table (docs/architecture.md "The hardware": a seat has a slap button and exactly
one handheld).

- :class:`Handheld`: one seat's handheld — its display (a luma device: a wired OLED, the
  simulator's dummy device, next a serial handheld's frame sender), its keys (which reach the
  loop as ``drivers.keys.KeyPress`` events on the device queue, whatever carries them) and its
  connection state (:class:`Link`: present, gone, back).  A handheld that is gone is a state,
  not an exception: the TV says so, the game waits for that seat on its turn, the screen is
  retried and sent whole when the handheld is back.
- :class:`Seat`: its index, its handheld, who plays it (:class:`SeatKind`), the BCM pin of
  its slap button (``None`` where it has none, e.g. the headless game) and the hand composer
  of the game being played (the plugin's, ``device.games.base.GamePlugin.hand``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from device.common.phase import Phase
from device.common.words import seat_name
from device.hands.composer import HandKey, HandScreenModel
from device.hands.menu import SeatMenu
from device.hands.screen import HandScreen
from drivers.errors import DriverError

log = logging.getLogger("partytable")

def screen_json(model: HandScreenModel) -> str:
    """``model`` as one line of JSON (its fields, tiles and picker as objects): the text of
    what a hand screen shows, for the log a tester reads instead of the OLED."""
    return json.dumps(asdict(model), separators=(",", ":"), ensure_ascii=False)


RETRY_NS = 1_000_000_000
"""How often a gone handheld's display is tried again: once a second (every re-open of a
luma device registers an ``atexit`` hook, docs/hardware-facts.md: rate-limit them)."""


class SeatKind(StrEnum):
    """Who plays a seat: a person with the seat's handheld, or a computer player.  The
    values are the words ``lobby.json`` and the journal store."""

    HUMAN = "human"
    COMPUTER = "computer"


class Link(StrEnum):
    """A handheld's connection: ``PRESENT`` (frames arrive), ``GONE`` (unplugged, a bus
    error: the TV says so), ``BACK`` (answering again; its next frame is sent whole, then it
    is ``PRESENT``)."""

    PRESENT = "present"
    GONE = "gone"
    BACK = "back"


class Handheld:
    """One seat's handheld display and connection state.

    ``seat``: 0-based seat; ``device``: a 128x64 mode ``"1"`` luma device (``ValueError``
    otherwise, from :class:`device.hands.screen.HandScreen`); ``kind``: a word for logs and
    the TV (``"wired"``, ``"sim"``, ``"serial"``, ``"dummy"``); ``reports_link``: see the
    attribute.  Keys do not pass through
    this object: they arrive on the device queue as ``KeyPress(seat, key, t_ns)``.
    """

    def __init__(self, seat: int, device: Any, kind: str = "wired", *,
                 reports_link: bool = False) -> None:
        self.seat = seat
        self.kind = kind
        self.reports_link = reports_link
        """True when the handheld's driver reports gone/back itself (a wired OLED's bus
        writer, a serial link: ``HandheldGone``/``HandheldBack`` events): its ``display()``
        only queues a frame, so a call that returns says nothing about the link."""
        self.screen = HandScreen(device)
        self.link = Link.PRESENT
        self.reason = ""
        """Why the handheld is gone (one line), empty otherwise."""
        self.noise = ""
        """Why the handheld's screen is noisy (its writer's one line: transfers fail often),
        empty otherwise (:meth:`noisy`, :meth:`quiet`)."""
        self._retry_ns: int | None = None
        self._logged: object = None
        """The last model logged (:meth:`show`)."""

    @property
    def device(self) -> Any:
        """The luma device the screen is drawn on."""
        return self.screen.device

    @property
    def connected(self) -> bool:
        """False while the handheld is :attr:`Link.GONE`."""
        return self.link is not Link.GONE

    def show(self, model: Any, now_ns: int) -> bool:
        """Send ``model`` (a ``HandScreenModel``) if it changed; returns True if a frame went
        out.  Each new model is logged at INFO (``-v``) as ``Seat 2 screen {json}``
        (:func:`screen_json`), what the seat's screen says, whether or not the handheld is
        there to show it.  A display that fails (``DriverError``/``OSError``: unplugged, bus
        error; any other exception is a driver bug, logged with its traceback) marks the
        handheld gone
        (one log line) and is tried again after :data:`RETRY_NS` (:attr:`retry_ns`); a
        success after that marks it back.  Never raises for a failing display."""
        if model != self._logged and log.isEnabledFor(logging.INFO):
            self._logged = model
            log.info("%s screen %s", seat_name(self.seat), screen_json(model))
        if self.link is Link.GONE and not self.reports_link and self._retry_ns is not None \
                and now_ns < self._retry_ns:
            return False
        try:
            sent = self.screen.render(model)
        except (DriverError, OSError) as err:
            self.gone(str(err), now_ns)
            return False
        except Exception as err:  # a driver bug must not stop the TV or the other seats
            log.exception("%s handheld display failed", seat_name(self.seat))
            self.gone(f"display error: {type(err).__name__}: {err}", now_ns)
            return False
        if self.reports_link:
            if self.link is Link.BACK:
                self.link = Link.PRESENT  # its whole screen is queued again
            return sent  # the driver says when a gone handheld is back
        if self.link is Link.GONE:
            log.warning("%s handheld is back", seat_name(self.seat))
        self.link = Link.PRESENT
        self.reason = ""
        return sent

    def show_image(self, image: Any, now_ns: int) -> bool:
        """Send a raw 128x64 mode ``"1"`` PIL ``image`` (the self-test's pattern), bypassing
        the hand screen; a failing display marks the handheld gone as :meth:`show` does.
        The next :meth:`show` sends its frame whole."""
        try:
            self.screen.device.display(image)
        except Exception as err:  # DriverError, OSError, or a driver bug: never the TV's
            self.gone(f"{type(err).__name__}: {err}" if not isinstance(
                err, DriverError | OSError) else str(err), now_ns)
            return False
        self.screen.invalidate()
        return True

    @property
    def retry_ns(self) -> int | None:
        """When a gone handheld's display is tried next (CLOCK_MONOTONIC ns), else
        ``None``: the loop wakes for it, so a screen comes back without a key press."""
        return self._retry_ns if self.link is Link.GONE else None

    def gone(self, reason: str, now_ns: int) -> None:
        """The handheld stopped answering (``reason``: one line; ``now_ns``: CLOCK_MONOTONIC
        ns).  Its screen is sent whole when it is back."""
        if self.link is not Link.GONE:
            log.warning("%s handheld gone: %s", seat_name(self.seat), reason)
        self.link = Link.GONE
        self.reason = reason
        self._retry_ns = None if self.reports_link else now_ns + RETRY_NS
        self.screen.invalidate()

    def noisy(self, reason: str) -> None:
        """The handheld's screen loses transfers often (``reason``: its writer's one line
        with the advice, logged once): the TV names it (:attr:`noise_note`) until
        :meth:`quiet`."""
        if not self.noise:
            log.warning("%s screen: %s", seat_name(self.seat), reason)
        self.noise = reason

    def quiet(self) -> None:
        """The handheld's screen has had no failed transfer for a while: the note goes."""
        if self.noise:
            log.warning("%s screen: no more bus errors", seat_name(self.seat))
        self.noise = ""

    @property
    def noise_note(self) -> str:
        """The TV's line while the screen is noisy, else ``""``: ``"Seat 2 I2C errors: check
        wiring, try 100 kHz"`` for a screen on an I2C bus (its device's ``bus`` is
        ``"i2c-N"``; hardware/README.md, "Long leads"), ``"Seat 2 screen errors: check
        wiring"`` for another.  Short: whole on the play banner at its smallest size, as
        the unplugged line is."""
        if not self.noise:
            return ""
        if str(getattr(self.device, "bus", "")).startswith("i2c"):
            return f"{seat_name(self.seat)} I2C errors: check wiring, try 100 kHz"
        return f"{seat_name(self.seat)} screen errors: check wiring"

    def back(self) -> None:
        """The handheld answers again (its link said so): the next frame is sent whole."""
        if self.link is Link.GONE:
            log.warning("%s handheld is back", seat_name(self.seat))
        self.link = Link.BACK
        self.reason = ""
        self._retry_ns = None
        self.screen.invalidate()


class SeatHand(Protocol):
    """What a seat's hand screen is driven by: a game's hand composer
    (:class:`device.hands.composer.HandComposer`), :class:`NoHand` before a game is chosen,
    or a mode's own stand-in (the self-test's questions)."""

    @property
    def refused(self) -> bool:
        """The last :meth:`key` was refused (its reason is on the prompt line)."""
        ...

    def show(self, phase: Phase | str, view: Any, message: str = "") -> None:
        """Show ``phase`` with this seat's engine ``view`` (or ``None``) and a ``message``."""
        ...

    def key(self, k: HandKey) -> object | None:
        """One key press; the engine action to submit, or ``None``."""
        ...

    def notice(self, text: str) -> None:
        """Show ``text`` on the prompt line as an alert."""
        ...

    def screen(self) -> HandScreenModel:
        """The frozen model of what the screen shows now."""
        ...


class NoHand:
    """A seat's hand before any game is chosen: the seat's number on a blank screen; keys do
    nothing (none is refused)."""

    def __init__(self, seat: int = 0) -> None:
        self.seat = seat

    @property
    def refused(self) -> bool:
        """Never: a key here is not a move."""
        return False

    def show(self, phase: Phase | str, view: Any, message: str = "") -> None:
        """Nothing to show without a game."""

    def key(self, k: HandKey) -> object | None:
        """No action without a game: ``None``."""
        return None

    def notice(self, text: str) -> None:
        """Nothing to note without a game."""

    def screen(self) -> HandScreenModel:
        """The seat's number and nothing else."""
        return HandScreenModel(str(self.seat + 1), "")


@dataclass
class Seat:
    """One seat: ``index`` (0-based; people read ``index + 1``), its ``handheld``, its
    ``kind`` (set from the lobby when a game starts), ``slap_pin`` (BCM pin of its slap
    button, or ``None``), ``hand`` (a :class:`SeatHand`: the hand composer of the game
    being played, :class:`NoHand` before one) and ``menu``
    (the handheld menu while it is open, :mod:`device.hands.menu`)."""

    index: int
    handheld: Handheld
    kind: SeatKind = SeatKind.HUMAN
    slap_pin: int | None = None
    hand: SeatHand = field(default_factory=NoHand, repr=False)
    menu: SeatMenu | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.hand, NoHand):
            self.hand.seat = self.index

    @property
    def name(self) -> str:
        """``"Seat 3"`` for index 2."""
        return seat_name(self.index)

    def screen(self) -> HandScreenModel:
        """What this seat's hand screen shows now: the open menu, else the hand composer's
        screen (a ``HandScreenModel``)."""
        return self.menu.screen() if self.menu is not None else self.hand.screen()

    @property
    def is_human(self) -> bool:
        """True when a person plays this seat."""
        return self.kind is SeatKind.HUMAN

"""The console: the object graph of one running device, and what the TV shows.

:class:`Console` ties the parts a reader looks for together:

- the loop (:class:`device.reactor.loop.Loop`): blocks on the device queue until the next deadline;
- the seats (:class:`device.hands.seats.Seat`): slap button, handheld, who plays;
- the game flow (:class:`device.flow.game_flow.GameFlow`), which holds the game session and the slap
  race;
- the presenter (where frames go: a TV, the simulator window, PNG files).

:meth:`Console.handle` routes each event from the queue (a slap ``Press``/``Release``, a
handheld ``KeyPress``, a handheld gone or back, quit, redraw, abandon) to the flow or the
seat; :meth:`Console.render` builds the :class:`device.render.model.TableModel` (public
information only) and presents it with every hand screen.  After the flip that shows a new
slap window, the window starts at that flip's time (docs/architecture.md "Slap arbitration" 1).

Times are CLOCK_MONOTONIC nanoseconds from the injected clock (``clock.now_ns()``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from device.common.notices import SEPARATOR
from device.common.phase import Phase
from device.flow.game_flow import GameFlow, Timing, VolumeKnob
from device.flow.lobby import LobbyChoices
from device.flow.snapshot import FlowSnapshot
from device.games import AnyPlugin
from device.hands.seats import Handheld, Seat, SeatKind
from device.reactor.events import (
    Abandon,
    EventQueue,
    HandheldBack,
    HandheldGone,
    HandheldNoisy,
    HandheldQuiet,
    Quit,
    Redraw,
    Wake,
)
from device.reactor.loop import Loop, Ticker
from device.render.model import RoundEnd, SeatBadge, TableModel
from device.store.session import WINDOW_RACE, GameRecord
from drivers.clock import Clock
from drivers.keys import KeyPress
from drivers.slap import Press, Release
from drivers.values import is_int, is_number

log = logging.getLogger("partytable")

class Presenter(Protocol):
    """Where frames go: the table scene and hand screens drawn, then one flip.

    ``present(model, seats, now_ns, force)`` draws what changed (the table from ``model``,
    each seat's hand screen through its handheld) and returns the CLOCK_MONOTONIC ns just
    after the flip, or ``None`` if nothing was drawn; ``next_frame_ns(now_ns)`` is the next
    animation deadline (``None`` when still)."""

    def present(
        self, model: TableModel, seats: Sequence[Seat], now_ns: int, force: bool
    ) -> int | None:
        """Draw and flip; see the class docstring."""

    def next_frame_ns(self, now_ns: int) -> int | None:
        """The next animation frame's deadline, or ``None``."""


def make_seats(
    devices: Sequence[Any], kind: str = "dummy", slap_pins: Sequence[int] = ()
) -> list[Seat]:
    """One :class:`Seat` per luma device in ``devices`` (seat i gets ``devices[i]`` and
    ``slap_pins[i]`` if given)."""
    return [
        Seat(i, Handheld(i, d, kind), slap_pin=slap_pins[i] if i < len(slap_pins) else None)
        for i, d in enumerate(devices)
    ]


class Console:
    """One device: seats, loop, flow and presenter (see the module docstring).

    ``seats``: every seat with its handheld (at least as many as ``choices.kinds``);
    ``tickers``: extra loop tickers (drivers' settle timers, the simulator's SDL pump);
    ``keyboard``: the simulator's keyboard adapter, called with every event the console
    does not know (``SimKey``); ``notice``: a line for the TV until a game starts (e.g. a
    damaged lobby.json); ``resume``: continue an unfinished journaled game;
    ``skip_lobby``: start the lobby's game at once (the headless game); ``cue``: plays a
    sound cue by name (``device.flow.game_flow.CUES``); ``volume``: the sound player, whose volume
    the lobby's Volume row sets.  The constructor does no I/O: :meth:`start`
    (or :meth:`run`) does.
    """

    def __init__(
        self,
        *,
        clock: Clock,
        queue: EventQueue,
        presenter: Presenter,
        seats: Sequence[Seat],
        choices: LobbyChoices,
        game_seed: int,
        timing: Timing | None = None,
        state_dir: Path | None = None,
        on_game_over: Callable[[GameRecord], None] | None = None,
        on_action: Callable[[int], None] | None = None,
        keymap: tuple[str, ...] = (),
        skip_lobby: bool = False,
        tickers: Sequence[Ticker] = (),
        keyboard: Callable[[object], None] | None = None,
        notice: str = "",
        resume: bool = False,
        cue: Callable[[str], None] | None = None,
        volume: VolumeKnob | None = None,
    ) -> None:
        if len(seats) < len(choices.kinds):
            raise ValueError(f"console: {len(choices.kinds)} seats chosen, "
                             f"{len(seats)} handhelds")
        self.clock = clock
        self.queue = queue
        self.presenter = presenter
        self.seats = list(seats)
        self.keymap = keymap
        self.keyboard = keyboard
        self.loop = Loop(clock=clock, queue=queue, handle=self.handle, frame=self._frame,
                         tickers=tickers)
        self.flow = GameFlow(seats=self.seats, timers=self.loop.timers, post=queue.post,
                             choices=choices, game_seed=game_seed, timing=timing or Timing(),
                             state_dir=state_dir, on_game_over=on_game_over,
                             on_action=on_action, cue=cue,
                             volume=volume, notice=notice)
        self._resume = resume
        self._skip_lobby = skip_lobby
        self._started = False
        self._force = True
        self._odd_logged: set[str] = set()
        self._slap_logged: tuple[int, int] | None = None
        """The won slap last logged as shown on the TV (:meth:`_frame`)."""

    # ---------------------------------------------------------------- life
    def start(self) -> None:
        """Open the flow (resume, lobby or the first game); idempotent."""
        if not self._started:
            self._started = True
            self.flow.open(self.clock.now_ns(), resume=self._resume,
                           skip_lobby=self._skip_lobby)

    def run(self) -> None:
        """Serve events until :class:`Quit` (or :meth:`stop`); then close the game
        database (everything in it is committed already)."""
        self.start()
        try:
            self.loop.run()
        finally:
            self.close()

    def close(self) -> None:
        """Close the game database (idempotent; a later step opens it again)."""
        self.flow.close()

    def step(self) -> None:
        """One turn of the loop (tests call it directly).  A window opened from outside
        the loop (:meth:`play_from`, :meth:`start`) gets its frame first."""
        self.start()
        if self.flow.snapshot().awaiting_flip:
            self.render(self.clock.now_ns())
        self.loop.step()

    def stop(self) -> None:
        """Leave :meth:`run` after the current step."""
        self.loop.stop()

    # ---------------------------------------------------------------- facade
    @property
    def phase(self) -> Phase:
        """The flow's phase."""
        return self.flow.snapshot().phase

    @property
    def plugin(self) -> AnyPlugin:
        """The plugin of the game being played (or chosen in the lobby)."""
        return self.flow.snapshot().plugin

    @property
    def pos(self) -> object:
        """The engine position being played, or ``None``."""
        return self.flow.snapshot().pos

    @property
    def record(self) -> GameRecord | None:
        """The record of the game being played (or last played), or ``None``."""
        return self.flow.snapshot().record

    def play_from(self, pos: object, now_ns: int) -> None:
        """See :meth:`GameFlow.play_from`."""
        self.start()
        self.flow.play_from(pos, now_ns)
        if self.flow.snapshot().awaiting_flip:
            self.render(self.clock.now_ns())  # a window shows: it starts at this flip

    # ---------------------------------------------------------------- input
    def handle(self, event: object) -> None:
        """React to one queued event; bad input is one log line, never an exception."""
        now = self.clock.now_ns()
        if isinstance(event, Press):
            self.flow.on_press(event, now)
        elif isinstance(event, Release):
            self.flow.on_release(event.seat, event.t_ns)
        elif isinstance(event, KeyPress):
            self.flow.on_key(event.seat, event.key, now)
        elif isinstance(event, HandheldGone | HandheldBack | HandheldNoisy | HandheldQuiet):
            self._handheld(event, now)
        elif isinstance(event, Quit):
            self.stop()
        elif isinstance(event, Redraw):
            self._force = True
        elif isinstance(event, Wake):
            pass  # a slap press waits for its check: the loop's tickers run after this
        elif isinstance(event, Abandon):
            self.flow.abandon(now)
        elif self.keyboard is not None:
            self.keyboard(event)
        else:
            log.warning("ignored event %r", event)

    def _handheld(self, event: HandheldGone | HandheldBack | HandheldNoisy | HandheldQuiet,
                  now_ns: int) -> None:
        if not 0 <= event.seat < len(self.seats):
            log.warning("handheld event for seat index %d ignored: this console has %d "
                        "seats", event.seat, len(self.seats))
            return
        handheld = self.seats[event.seat].handheld
        if isinstance(event, HandheldGone):
            handheld.gone(event.reason, now_ns)
        elif isinstance(event, HandheldNoisy):
            handheld.noisy(event.reason)
        elif isinstance(event, HandheldQuiet):
            handheld.quiet()
        else:
            handheld.back()

    # ---------------------------------------------------------------- output
    def model(self, now_ns: int) -> TableModel:
        """The table display's model at ``now_ns`` (public information only), from the
        flow's snapshot (:meth:`GameFlow.snapshot`); see :meth:`_model`."""
        return self._model(self.flow.snapshot(), now_ns)

    def _model(self, snap: FlowSnapshot, now_ns: int) -> TableModel:
        """The table display's model of ``snap`` at ``now_ns`` (public information only).

        From the snapshot: the seats, the banner (the flow's notices live at ``now_ns``,
        then stuck buttons, unplugged handhelds and screens whose transfers fail often, in
        one join), last event, countdown, the latest slap (``slap_shown``: ``(seat, ms)``)
        with its margin (``slap_margin``: ``(runner-up seat, ms)`` or ``None``), the round
        just ended (``round_end``, a :class:`~device.render.model.RoundEnd` or ``None``),
        the lobby menu and the "How to play" page; at game over the plugin's
        ``win_reason`` and every decided slap window's ``(seat, ms)`` from the game's
        record.  A value of the wrong shape is left out (one log line per kind), never an
        error."""
        playing = snap.playing
        seats = tuple(SeatBadge(s.index, s.name, str(s.kind), connected=s.handheld.connected)
                      for s in playing)
        notes = [n.text for n in snap.notices if n.live(now_ns)]
        stuck = sorted(snap.stuck)
        notes += [f"{self.seats[s].name} button stuck: check it." for s in stuck]
        notes += [f"{s.name} handheld unplugged: plug it back in."
                  for s in playing if not s.handheld.connected]
        notes += [s.handheld.noise_note for s in playing if s.handheld.noise_note]
        pos = snap.shown_pos
        view = snap.plugin.engine.view(pos, None) if pos is not None else None
        slap = self._pair("slap_shown", snap.slap_shown)
        margin = self._pair("slap_margin", snap.slap_margin)
        round_end: object = snap.round_end
        if round_end is not None and not isinstance(round_end, RoundEnd):
            self._odd("round_end", round_end)
            round_end = None
        over = snap.phase is Phase.GAMEOVER
        return TableModel(
            game=snap.plugin,
            phase=snap.phase,
            view=view,
            seats=seats,
            last_event=snap.last_event,
            deadline_ns=snap.deadline_ns,
            slap=slap,
            slap_margin=margin if slap is not None else None,
            round_end=round_end,
            results=snap.results,
            win_reason=snap.plugin.win_reason(pos) if over and pos is not None else "",
            reactions=self._reactions(snap.record) if over else (),
            banner=SEPARATOR.join(notes),
            lobby=snap.lobby,
            keymap=self.keymap,
            howto=snap.howto,
        )

    def _odd(self, what: str, value: object) -> None:
        """Log once per kind that a flow value for the TV has the wrong shape."""
        if what not in self._odd_logged:
            self._odd_logged.add(what)
            log.warning("table: %s %r has the wrong shape; not shown", what, value)

    def _pair(self, what: str, value: object) -> tuple[int, int] | None:
        """``value`` as ``(seat, ms)`` with whole ms, ``None`` for none or a wrong shape."""
        if value is None:
            return None
        if (isinstance(value, tuple) and len(value) == 2
                and is_int(value[0])
                and is_number(value[1])):
            return (value[0], round(value[1]))
        self._odd(what, value)
        return None

    @staticmethod
    def _reactions(record: GameRecord | None) -> tuple[tuple[int, int], ...]:
        """``(seat, ms)`` of every press counted in every decided slap window of the game
        (not the wake-up race): each window's winner, then the seats it beat, windows in
        order, from the game's ``record`` (``None``: none)."""
        if record is None:
            return ()
        return tuple((seat, round(ms)) for s in record.slaps if s.race == WINDOW_RACE
                     for seat, ms in ((s.seat, s.ms), *s.others))

    def render(self, now_ns: int) -> int | None:
        """Draw a frame now, through the loop (so it knows the next frame's deadline);
        returns that deadline.  See :meth:`_frame`."""
        return self.loop.draw(now_ns)

    def _frame(self, now_ns: int) -> int | None:
        """The loop's frame callback: draw the current model if anything changed or an
        animation runs; after the flip that shows a new slap window (or the wake-up screen),
        start the window at that flip.  With ``-v`` both flips are logged with their times
        (``TV: a slap window opens at flip <ns>``, ``TV: Seat 2's slap (412 ms) shown at flip
        <ns>``): where a slap meets the screen.  Returns the next frame's deadline (CLOCK_MONOTONIC
        ns: an animation, or a gone handheld's retry) or ``None``."""
        snap = self.flow.snapshot()
        t_flip = self.presenter.present(self._model(snap, now_ns), snap.playing, now_ns,
                                        self._force)
        self._force = False
        if snap.awaiting_flip:  # the ring comes with the flip that shows the window
            t0 = t_flip if t_flip is not None else self.clock.now_ns()
            self.flow.flipped(t0)
            log.info("TV: a slap window opens at flip %d", t0)
        if t_flip is not None and snap.slap_shown is not None \
                and snap.slap_shown != self._slap_logged:
            self._slap_logged = snap.slap_shown
            log.info("TV: Seat %d's slap (%d ms) shown at flip %d", snap.slap_shown[0] + 1,
                     snap.slap_shown[1], t_flip)
        # the next frame: an animation's, or a gone handheld's retry (it comes back alone)
        deadlines = [d for d in (self.presenter.next_frame_ns(self.clock.now_ns()),
                                 *(s.handheld.retry_ns for s in snap.playing))
                     if d is not None]
        return min(deadlines, default=None)


__all__ = ["Console", "GameRecord", "Presenter", "SeatKind", "Timing", "make_seats"]

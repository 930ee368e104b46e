"""Hardware mode: the console on a Raspberry Pi, built from its config (``device.config``).

:func:`open_rig` builds every driver the config names — the pin factory (explicitly the
kernel-timestamped lgpio one, ``drivers.pin_factory``), the slap buttons, each wired
handheld's keys and OLED (written off the loop thread, ``drivers.hand_display``) and the TV
(KMS/DRM with vsync, ``drivers.table_display``), and the serial handhelds on their USB link
(``drivers.serial_handheld``) — and the seats around them.
:func:`run_hardware` (``python -m device`` on a Pi) and :func:`run_hardware_selftest`
(``python -m device selftest``) run the console or the self-test on it.

Everything is injectable for tests, so hardware mode runs here without a Pi: a gpiozero
``MockFactory`` for the pin factory, luma's serial ``noop`` for the buses, SDL's ``dummy``
driver for the TV, a fake clock and queue.

A fault the party must see goes on the TV: a bad config or a pin factory that cannot be
built shows one line on the TV (and the log) and the device waits for SIGTERM, since there
is no keyboard to read a terminal with.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from device.config import (
    Config,
    ConfigError,
    NoHandheld,
    SerialHandheld,
    WiredHandheld,
    find_config,
    load_config,
)
from device.console import Console
from device.events import (
    DeviceQueue,
    EventQueue,
    HandheldBack,
    HandheldGone,
    Quit,
    quit_on_signals,
)
from device.flow import Timing
from device.lobby import LobbyChoices, load_choices
from device.loop import Ticker
from device.seats import Handheld, Seat, SeatKind
from drivers.clock import Clock, MonotonicClock
from drivers.errors import DriverError
from drivers.hand_display import HandDisplays, open_hand_display
from drivers.keys import HandKeys
from drivers.serial_handheld import SerialHandhelds
from drivers.slap import SlapButtons
from drivers.table_display import TableDisplay

log = logging.getLogger("partytable")

RUNTIME_DIR = Path("/run/partytable")
"""lgpio's working directory for its FIFO (the service's ``RuntimeDirectory=``): lgpio
``chdir()``s there, so every other path the device uses is absolute."""


@dataclass
class Rig:
    """The opened hardware: ``seats`` (one per config seat), ``tickers`` for the loop (the
    buttons' and keys' settle timers, the OLED writers' synchronous pass in tests),
    ``display`` (the TV) and what :meth:`close` closes."""

    seats: list[Seat]
    display: TableDisplay
    tickers: list[Ticker] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    writers: Callable[[], int | None] | None = None
    """With ``threads=False`` (tests): one pass of the OLED writers, run after each frame
    (:class:`SyncWriters`); returns their next retry time."""

    def close(self) -> None:
        """Close every driver, the last opened first; idempotent, never raises."""
        while self.closers:
            closer = self.closers.pop()
            try:
                closer()
            except Exception:  # closing one driver must not keep the others open
                log.exception("closing a driver failed")


def lgpio_dir(config: Config) -> Path:
    """Where lgpio makes its FIFO (it ``chdir()``s there): ``$LG_WD`` if set, else
    :data:`RUNTIME_DIR` (created if missing; the service's ``RuntimeDirectory=``), else a
    folder in the config's state directory, for a builder running from a checkout."""
    import os

    if os.environ.get("LG_WD"):
        return Path(os.environ["LG_WD"]).absolute()
    for candidate in (RUNTIME_DIR, config.paths.state_dir / "run"):
        try:
            candidate.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(candidate, os.W_OK):
            return candidate
    return RUNTIME_DIR  # open_pin_factory names the problem and the fix


def open_rig(
    config: Config,
    *,
    post: Callable[[object], None],
    clock: Clock,
    pin_factory: Any = None,
    open_serial: Any = None,
    display_mode: str | None = None,
    threads: bool = True,
    sys_i2c: Path | None = None,
    lg_wd: Path | None = None,
    serial_ports: Callable[[], Iterable[str]] | None = None,
) -> Rig:
    """Open every driver of ``config`` (see the module docstring).

    ``post``: the device queue's ``post`` (drivers post ``Press``/``Release``/``KeyPress``
    and handhelds gone/back); ``pin_factory``: a gpiozero factory to use instead of the
    Pi's lgpio one (tests: a ``MockFactory``); ``open_serial``: how an OLED's bus is opened
    (tests: luma's ``noop``); ``display_mode``: the TV's SDL mode instead of the config's;
    ``threads``: False runs the OLED writers and the serial link on the loop (tests on a
    fake clock); ``serial_ports``: lists the ports serial handhelds may be on (tests: ptys;
    default ``/dev/serial/by-id`` and ``/dev/ttyACM*``).  Raises
    ``DriverError`` (one line naming the part and the fix) when a driver cannot be opened;
    whatever was opened is closed first."""
    display = TableDisplay(display_mode or config.display.driver, None, clock=clock,
                           lag_ns=int(config.display.lag_ns))
    rig = Rig(seats=[], display=display, closers=[display.close])
    try:
        factory = pin_factory
        if factory is None:
            from drivers.pin_factory import open_pin_factory

            factory = open_pin_factory(config.gpio.chip, lg_wd=lg_wd or lgpio_dir(config))
        displays = HandDisplays(
            on_gone=lambda seat, reason: post(HandheldGone(seat, reason, clock.now_ns())),
            on_back=lambda seat: post(HandheldBack(seat, clock.now_ns())),
            clock=clock, thread=threads, **({"open_serial": open_serial} if open_serial else {}))
        rig.closers.append(displays.close)
        if not threads:
            rig.writers = displays.run_once
        buttons = SlapButtons(config.slap_pins(), post, pin_factory=factory)
        rig.closers.append(buttons.close)
        rig.tickers.append(buttons.settle)
        for seat_config in config.seats:
            i = seat_config.index
            handheld = seat_config.handheld
            if isinstance(handheld, WiredHandheld):
                keys = HandKeys(i, handheld.keys.pins(), post, pin_factory=factory)
                rig.closers.append(keys.close)
                rig.tickers.append(keys.settle)
                try:
                    kind, params = config.hand_display(
                        i, **({"sys_i2c": sys_i2c} if sys_i2c else {}))
                except ConfigError as err:
                    # e.g. the mux did not answer at boot, so the kernel made no bus for its
                    # channel: the seat plays on without its screen, the TV names it
                    seat = Seat(i, Handheld(i, open_hand_display(i, "dummy"), "wired"),
                                slap_pin=seat_config.slap_pin)
                    seat.handheld.gone(err.problems[0], clock.now_ns())
                    rig.seats.append(seat)
                    continue
                device = displays.open(i, kind, **params)
                rig.seats.append(Seat(i, Handheld(i, device, "wired", reports_link=True),
                                      slap_pin=seat_config.slap_pin))
            elif isinstance(handheld, NoHandheld):
                seat = Seat(i, Handheld(i, open_hand_display(i, "dummy"), "none"),
                            kind=SeatKind.COMPUTER, slap_pin=seat_config.slap_pin)
                rig.seats.append(seat)
            else:  # a serial handheld: opened below, all on one link
                rig.seats.append(Seat(i, Handheld(i, open_hand_display(i, "dummy"), "serial"),
                                      slap_pin=seat_config.slap_pin))
        serial = {c.index: c.handheld.id for c in config.seats
                  if isinstance(c.handheld, SerialHandheld)}
        if serial:
            link = SerialHandhelds(
                serial, post=post,
                on_gone=lambda seat, reason: post(HandheldGone(seat, reason, clock.now_ns())),
                on_back=lambda seat: post(HandheldBack(seat, clock.now_ns())),
                clock=clock, thread=threads, ports=serial_ports)
            rig.closers.append(link.close)
            if not threads:
                rig.tickers.append(link.run_once)
            for i in serial:
                position = next(k for k, s in enumerate(rig.seats) if s.index == i)
                rig.seats[position] = Seat(
                    i, Handheld(i, link.open(i), "serial", reports_link=True),
                    slap_pin=rig.seats[position].slap_pin)
    except BaseException:
        rig.close()
        raise
    return rig


def lobby_choices(config: Config, state_dir: Path) -> tuple[LobbyChoices, str | None]:
    """The lobby's starting choices: the remembered ``lobby.json``, else the config's rule
    defaults (those the lobby offers) with every seat a person; at most as many seats as
    the config has.  Plus a one-line warning for a damaged ``lobby.json``."""
    from device.games import PLUGINS

    path = state_dir / "lobby.json"
    choices, warning = load_choices(path)
    if not path.exists():
        chosen = choices.game
        choices = replace(choices, kinds=("human",) * max(2, min(len(config.seats), 4)))
        for name, plugin in PLUGINS.items():
            offered = {o.name: o.values for o in plugin.lobby_options}
            for option, value in config.rule_options(name).items():
                if value in offered.get(option, ()):
                    choices = replace(choices, game=name).with_option(option, value)
        choices = replace(choices, game=chosen)
    if len(choices.kinds) > len(config.seats):
        choices = replace(choices, kinds=choices.kinds[: len(config.seats)],
                          first=min(choices.first, len(config.seats) - 1))
    return choices, warning


def hardware_console(
    config: Config,
    rig: Rig,
    *,
    clock: Clock,
    queue: EventQueue,
    timing: Timing | None = None,
    game_seed: int = 1,
    state_dir: Path | None = None,
) -> Console:
    """The console on ``rig``: the journal and lobby choices in ``state_dir`` (default the
    config's, which is absolute), resuming an unfinished game after a power cut."""
    state = state_dir or config.paths.state_dir
    choices, warning = lobby_choices(config, state)
    return Console(clock=clock, queue=queue, presenter=_presenter(rig), seats=rig.seats,
                   choices=choices, game_seed=game_seed, timing=timing or Timing(),
                   state_dir=state, tickers=rig.tickers, notice=warning or "", resume=True)


def _presenter(rig: Rig) -> Any:
    from device.present import TablePresenter

    presenter = TablePresenter(rig.display)
    return presenter if rig.writers is None else SyncWriters(presenter, rig.writers)


class SyncWriters:
    """A presenter that runs the OLED writers on the loop right after each frame (a rig
    opened with ``threads=False``: tests on a fake clock), and wakes the loop for their
    retries.  ``inner``: the presenter; ``run_once()``: one pass of every writer."""

    def __init__(self, inner: Any, run_once: Callable[[], int | None]) -> None:
        self.inner = inner
        self.run_once = run_once
        self._retry_ns: int | None = None

    def present(self, model: Any, seats: Any, now_ns: int, force: bool) -> int | None:
        """Present through ``inner``, then send the queued hand frames."""
        t_flip: int | None = self.inner.present(model, seats, now_ns, force)
        self._retry_ns = self.run_once()
        return t_flip

    def next_frame_ns(self, now_ns: int) -> int | None:
        """The inner presenter's next frame or the writers' next retry."""
        times = [t for t in (self.inner.next_frame_ns(now_ns), self._retry_ns) if t is not None]
        return min(times, default=None)


def run_hardware(args: argparse.Namespace) -> int:
    """``python -m device`` on a Pi: the console from the config until SIGTERM; exit 0.
    Under systemd (``device.notify``) it sends ``READY=1`` after the first frame,
    ``WATCHDOG=1`` from the loop and ``STOPPING=1`` when the loop ends.
    A bad config is one line per problem and exit 2; a driver that cannot be opened is one
    line on the TV and in the log, and the device waits for SIGTERM (exit 1)."""
    from device.cli import timing_of

    def play(config: Config, rig: Rig, clock: Clock, queue: DeviceQueue) -> int:
        from device.notify import Notifier

        notifier = Notifier()  # systemd's Type=notify (systemd/partytable.service)
        console = hardware_console(config, rig, clock=clock, queue=queue,
                                   timing=timing_of(args), game_seed=args.seed)
        console.loop.tickers.append(notifier.watchdog_ticker)
        try:
            console.start()
            console.render(clock.now_ns())
            notifier.ready()  # the first frame is on the TV
            console.run()
        finally:
            notifier.stopping()
            notifier.close()
        return 0

    return _on_hardware(args, play, show_fault=True)


def run_hardware_selftest(args: argparse.Namespace) -> int:
    """``python -m device selftest`` on a Pi: every seat's screen, slap button and keys;
    prints one line per check, exit status 1 with faults (2 for a bad config)."""
    from device.games import PLUGINS
    from device.present import TablePresenter
    from device.selftest import SelfTest, run_selftest

    def check(config: Config, rig: Rig, clock: Clock, queue: DeviceQueue) -> int:
        test = SelfTest(rig.seats, next(iter(PLUGINS.values())))
        run_selftest(test, clock=clock, queue=queue, presenter=TablePresenter(rig.display),
                     tickers=rig.tickers)
        print("\n".join(test.report()))
        return 1 if test.faults else 0

    return _on_hardware(args, check, show_fault=False)


def _on_hardware(
    args: argparse.Namespace,
    run: Callable[[Config, Rig, Clock, DeviceQueue], int],
    *,
    show_fault: bool,
) -> int:
    """Load the config (exit 2 on problems), open the rig on a real clock and queue with
    SIGINT/SIGTERM posting ``Quit``, ``run`` it and close it.  A driver that cannot open
    is one line: on the TV until SIGTERM (``show_fault``), else printed as a fault (1)."""
    config = _config_or_none(args)
    if config is None:
        return 2
    clock = MonotonicClock()
    queue = DeviceQueue()
    quit_on_signals(queue.post)
    try:
        rig = open_rig(config, post=queue.post, clock=clock)
    except (DriverError, ConfigError) as err:
        if show_fault:
            return _show_fault(config, str(err), clock, queue)
        print(f"FAULT: {err}")
        return 1
    try:
        return run(config, rig, clock, queue)
    finally:
        rig.close()


def _config_or_none(args: argparse.Namespace) -> Config | None:
    path = find_config(getattr(args, "config", None))
    try:
        return load_config(path)
    except ConfigError as err:
        for problem in err.problems:
            print(f"{err.source}: {problem}")
        return None


def _show_fault(config: Config, line: str, clock: Clock, queue: DeviceQueue) -> int:
    """One line on the TV (if the TV opens) and in the log; wait for SIGTERM; exit 1."""
    print(f"error: {line}", flush=True)  # the log goes to the same terminal: one line
    try:
        display = TableDisplay(config.display.driver, None, clock=clock)
    except DriverError as err:
        if str(err) != line:
            print(f"error: the TV cannot show it either: {err}", flush=True)
        return 1
    try:
        from device.games import PLUGINS
        from device.phase import Phase
        from device.present import TablePresenter
        from device.render.model import TableModel

        model = TableModel(game=next(iter(PLUGINS.values())), phase=Phase.LOBBY, view=None,
                           seats=(), last_event="The console cannot start", banner=line)
        TablePresenter(display).present(model, [], clock.now_ns(), True)
        while not any(isinstance(e, Quit) for e in queue.wait(None)):
            pass
    finally:
        display.close()
    return 1

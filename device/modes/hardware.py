"""Hardware mode: the console on a Raspberry Pi, built from its config (``device.config.loader``).

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

A fault the party must see goes on the TV (:mod:`device.modes.fault_screen`), since there is no
keyboard to read a terminal with: a config that fails ``check-config`` shows its first
problem while the service waits for the file to be fixed; a driver that cannot be opened
(no pin factory, a TV or USB hub late at boot) shows its line while the rig is tried again
every 5 s.  Either way systemd gets ``READY=1`` with the line as ``STATUS=`` and the
watchdog keeps being fed, so it neither restarts the service in a loop nor leaves it dead
(:func:`serve`).  A config of computer players only (every seat ``kind = "none"``) needs no
GPIO at all and deals a game at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from device.config.loader import find_config, load_config
from device.config.schema import (
    ETC_CONFIG,
    Config,
    ConfigError,
    NoHandheld,
    SerialHandheld,
    WiredHandheld,
)
from device.console import Console
from device.flow.game_flow import Timing, VolumeKnob
from device.flow.lobby import LobbyChoices, load_choices
from device.hands.seats import Handheld, Seat, SeatKind
from device.modes.fault_screen import Fault, FaultScreen
from device.reactor.events import (
    DeviceQueue,
    EventQueue,
    HandheldReports,
    Quit,
    Wake,
    quit_on_signals,
)
from device.reactor.loop import Ticker
from drivers.clock import Clock, MonotonicClock
from drivers.errors import DeviceBusyError, DriverError
from drivers.hand_display import HandDisplays, open_hand_display
from drivers.keys import HandKeys
from drivers.slap import SlapButtons
from drivers.table_display import TableDisplay, resolve_mode

if TYPE_CHECKING:
    from device.modes.notify import Notifier

log = logging.getLogger("partytable")

S = 1_000_000_000

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
    display: TableDisplay | None = None,
) -> Rig:
    """Open every driver of ``config`` (see the module docstring).

    ``post``: the device queue's ``post`` (drivers post ``Press``/``Release``/``KeyPress``
    and handhelds gone/back); ``pin_factory``: a gpiozero factory to use instead of the
    Pi's lgpio one (tests: a ``MockFactory``); ``open_serial``: how an OLED's bus is opened
    (tests: luma's ``noop``); ``display_mode``: the TV's SDL mode instead of the config's;
    ``threads``: False runs the OLED writers and the serial link on the loop (tests on a
    fake clock); ``serial_ports``: lists the ports serial handhelds may be on (tests: ptys;
    default ``/dev/serial/by-id`` and ``/dev/ttyACM*``); ``display``: a TV already open
    (the fault screen's, so a retry sets no new video mode), which the rig owns once this
    returns and leaves open when it raises.

    The pin factory is opened only when the config names a GPIO pin (:func:`gpio_pins`): a
    computer-only config (every seat ``kind = "none"``, no ``slap_pin``) runs where no GPIO
    chip exists (a virtual machine, a demo box).  Raises ``DriverError`` (one line naming
    the part and the fix) when a driver cannot be opened; whatever was opened is closed
    first."""
    closers: list[Callable[[], None]] = []
    handed_in = display is not None
    if display is None:
        display = TableDisplay(display_mode or config.display.driver, None, clock=clock,
                               lag_ns=int(config.display.lag_ns))
        closers.append(display.close)
    else:
        display.lag_ns = int(config.display.lag_ns)
    rig = Rig(seats=[], display=display, closers=closers)
    try:
        factory = pin_factory
        if factory is None and gpio_pins(config):
            from drivers.pin_factory import open_pin_factory

            factory = open_pin_factory(config.gpio.chip, lg_wd=lg_wd or lgpio_dir(config))
        reports = HandheldReports(post, clock)
        displays = HandDisplays(
            on_gone=reports.gone, on_back=reports.back,
            on_noisy=reports.noisy, on_quiet=reports.quiet,
            clock=clock, thread=threads, **({"open_serial": open_serial} if open_serial else {}))
        rig.closers.append(displays.close)
        if not threads:
            rig.writers = displays.run_once
        if config.slap_pins():
            buttons = SlapButtons(config.slap_pins(), post, pin_factory=factory,
                                  wake=lambda: post(Wake()))
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
            # imported here: its codec and pyserial cost ~20 ms of start-up, needed only
            # for a build with serial handhelds
            from drivers.serial_handheld import SerialHandhelds

            link = SerialHandhelds(
                serial, post=post,
                on_gone=reports.gone, on_back=reports.back,
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
    if handed_in:
        rig.closers.insert(0, display.close)  # the rig owns it now and closes it last
    return rig


def gpio_pins(config: Config) -> tuple[int, ...]:
    """The BCM pins gpiozero must drive for ``config``: every slap button and every wired
    handheld's four keys, in seat order.  Empty for a computer-only config: then no pin
    factory is opened (there may be no GPIO chip at all)."""
    pins: list[int] = []
    for seat in config.seats:
        if seat.slap_pin is not None:
            pins.append(seat.slap_pin)
        if isinstance(seat.handheld, WiredHandheld):
            pins.extend(seat.handheld.keys.pins().values())
    return tuple(pins)


def computers_only(config: Config) -> bool:
    """True when no seat of ``config`` has a handheld (every ``kind = "none"``): nobody can
    use a lobby, so the console deals a computer game at once (a demo box, the VM test)."""
    return all(isinstance(seat.handheld, NoHandheld) for seat in config.seats)


def lobby_choices(config: Config, state_dir: Path) -> tuple[LobbyChoices, str | None]:
    """The lobby's starting choices: the remembered ``lobby.json``, else the config's rule
    options (each on its lobby row; a ``lobby_parts`` switch turns on the rows of its parts
    the config does not give; the config check, ``device.config.checks.read_rules``,
    refuses every other value) with every seat a person; at most as many seats as
    the config has.  Plus a one-line warning for a damaged ``lobby.json``.  A state
    directory this user may not enter (mode 000, another owner's 0700) gives the defaults
    and no warning: the game database names the directory and its permission on the TV
    (``device.store.game_db``)."""
    from device.games import PLUGINS

    path = state_dir / "lobby.json"
    try:
        saved = path.is_file()
    except OSError:  # PermissionError: the directory cannot be entered
        saved = False
    choices, warning = load_choices(path) if saved else (LobbyChoices(), None)
    if not saved:
        chosen = choices.game
        choices = replace(choices, kinds=("human",) * max(2, min(len(config.seats), 4)))
        for name, plugin in PLUGINS.items():
            rows = {o.name for o in plugin.lobby_options}
            parts = dict(plugin.lobby_parts)
            given = config.rule_options(name)
            for option, value in given.items():
                if option in rows and isinstance(value, (bool, int)):
                    choices = replace(choices, game=name).with_option(option, value)
                elif option in parts and value is True:  # RT-8: the parts not given
                    for part in parts[option]:
                        if part not in given:
                            choices = replace(choices, game=name).with_option(part, True)
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
    cue: Callable[[str], None] | None = None,
    volume: VolumeKnob | None = None,
    command_line: argparse.Namespace | None = None,
) -> Console:
    """The console on ``rig``: the journal and lobby choices in ``state_dir`` (default the
    config's, which is absolute), resuming an unfinished game after a power cut; ``cue``
    plays the flow's sound cues (``device.modes.sound.SoundPlayer.play``; ``None``: silent);
    ``volume``: the sound player, for the lobby's Volume row; ``command_line``: the parsed
    flags, whose ``--game``/``--seats``/``--humans``/``--volume`` win over ``lobby.json``
    for this run (``device.modes.cli.command_line_choices``; seats at most the config's).

    A computer-only config (:func:`computers_only`) skips the lobby: the game and options
    the lobby would offer (``lobby.json``, else the config's ``[rules]`` on the default
    game) start at once, with every one of the config's seats a computer player."""
    state = state_dir or config.paths.state_dir
    choices, warning = lobby_choices(config, state)
    if command_line is not None:
        from device.modes.cli import command_line_choices

        choices = command_line_choices(choices, command_line, max_seats=len(config.seats))
    skip_lobby = computers_only(config)
    if skip_lobby:
        seats = len(config.seats)
        choices = replace(choices, kinds=("computer",) * seats,
                          first=min(choices.first, seats - 1))
    return Console(clock=clock, queue=queue, presenter=_presenter(rig), seats=rig.seats,
                   choices=choices, game_seed=game_seed, timing=timing or Timing(),
                   state_dir=state, tickers=rig.tickers, notice=warning or "", resume=True,
                   skip_lobby=skip_lobby, cue=cue, volume=volume)


def _presenter(rig: Rig) -> Any:
    from device.modes.present import TablePresenter

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


CONFIG_POLL_NS = 2 * S
"""While a bad config waits to be fixed, its file's size and modification time are looked
at this often (on the loop's timer: the process sleeps in between)."""

RIG_RETRY_NS = 5 * S
"""While a driver cannot be opened, the rig is tried again this often: a TV or a USB hub
that comes up late at boot is found without a restart."""

FIX_HINT = "Fix the file: the console starts by itself once it is right"
RETRY_HINT = "Trying again every 5 seconds"


def run_hardware(args: argparse.Namespace) -> int:
    """``python -m device`` on a Pi: the console from the config until SIGTERM; exit 0.

    Under systemd (``device.modes.notify``, ``systemd/partytable.service``) it sends ``READY=1``
    (with ``STATUS=playing``) after the first frame, ``WATCHDOG=1`` from the loop and
    ``STOPPING=1`` when the process ends.  A bad config (:func:`serve`): each problem is one
    ``source: key: problem`` line on stderr, then :data:`FIX_HINT` once, and the first
    problem is shown on the TV; the process waits, looking at the file every
    :data:`CONFIG_POLL_NS`, and starts the console once it passes; SIGTERM meanwhile exits
    2.  With no TV it waits the same way, with one more stderr line (before the hint)
    saying the TV cannot show it.  A driver that cannot be opened: one ``error:`` line on
    stderr and on the TV, tried again every :data:`RIG_RETRY_NS`; SIGTERM exits 1; a TV
    that cannot open either exits 1 at once (systemd restarts the service).
    ``PARTYTABLE_DEBUG_HANG`` arms the watchdog test's hang (:func:`device.reactor.events
    .hang_on_signal`).  Sound plays at the config's ``[sound] volume`` (``--volume``
    overrides it) on SDL's default audio device; none is one log line and silence."""
    from device.modes.cli import timing_of
    from device.modes.notify import Notifier
    from device.reactor.events import hang_on_signal

    hang_on_signal()
    notifier = Notifier()  # systemd's Type=notify (systemd/partytable.service)
    clock = MonotonicClock()
    queue = DeviceQueue()
    quit_on_signals(queue.post)
    timing = timing_of(args)

    def play(config: Config, rig: Rig) -> int:
        from device.modes.sound import SoundPlayer

        # the config's [sound] volume unless --volume is given; no audio device: one line
        sound = SoundPlayer(config.sound.volume if args.volume is None else args.volume)
        sound.open()
        try:
            state = args.state_dir
            console = hardware_console(config, rig, clock=clock, queue=queue, timing=timing,
                                       state_dir=state.absolute() if state else None,
                                       game_seed=args.seed, cue=sound.play, volume=sound,
                                       command_line=args)
            console.loop.tickers.append(notifier.watchdog_ticker)
            console.start()
            console.render(clock.now_ns())
            notifier.ready("playing")  # the first frame is on the TV
            console.run()
        finally:
            sound.close()
        return 0

    try:
        return serve(find_config(args.config), clock=clock, queue=queue, notifier=notifier,
                     play=play)
    finally:
        notifier.stopping()
        notifier.close()


def serve(
    path: Path | None,
    *,
    clock: Clock,
    queue: EventQueue,
    notifier: Notifier,
    play: Callable[[Config, Rig], int],
    opener: Callable[[Config, TableDisplay | None], Rig] | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The service around the console: load the config at ``path`` (``None``: the bundled
    one), open the rig, ``play(config, rig)`` (its status is returned) and close the rig.

    ``notifier``: where READY/STATUS/WATCHDOG go; ``opener(config, display)``: opens the
    rig (default :func:`open_rig` on ``queue`` and ``clock``; ``display`` is the fault
    screen's TV to reuse, or ``None``); ``environ``: where ``SDL_VIDEODRIVER`` is read
    (default ``os.environ``).  Times are ``clock``'s CLOCK_MONOTONIC ns.

    - A config that fails ``check-config``: every problem is printed on stderr
      (``source: problem``), then :data:`FIX_HINT` once; the first is shown on the TV
      (:func:`config_fault`; the driver the broken file names, else
      :func:`fault_display_mode`; no TV: one more stderr line, and the same wait),
      ``READY=1`` goes with ``STATUS=<that line>`` (so ``TimeoutStartSec=`` does not
      restart it in a loop) and ``WATCHDOG=1`` keeps going while the file is looked at
      every :data:`CONFIG_POLL_NS`; once it changes and passes, the console starts;
      :class:`~device.reactor.events.Quit` (SIGTERM) meanwhile returns 2.
    - A driver that cannot be opened: ``error: <line>`` is printed on stderr and shown on
      the TV the same way, the rig is tried again every :data:`RIG_RETRY_NS`; Quit returns
      1; a TV that cannot open either returns 1 at once (systemd restarts the service after its
      ``RestartSec=``, right for a TV that is not plugged in yet).
    """
    env = os.environ if environ is None else environ

    def default_opener(config: Config, display: TableDisplay | None) -> Rig:
        return open_rig(config, post=queue.post, clock=clock, display=display)

    open_with = opener or default_opener
    waited = wait_for_config(path, clock=clock, queue=queue, notifier=notifier, environ=env)
    if waited is None:
        return 2
    config, display = waited
    rig = open_or_wait(config, display, open_with, clock=clock, queue=queue,
                       notifier=notifier)
    if rig is None:
        return 1
    try:
        return play(config, rig)
    finally:
        rig.close()


def wait_for_config(
    path: Path | None,
    *,
    clock: Clock,
    queue: EventQueue,
    notifier: Notifier,
    environ: Mapping[str, str],
) -> tuple[Config, TableDisplay | None] | None:
    """The config at ``path``, and the fault screen's TV if one was opened for it and its
    mode suits the config (else ``None``); ``None`` when Quit came while the config was bad
    (see :func:`serve`)."""
    try:
        return load_config(path), None
    except ConfigError as err:
        _print_problems(err)
        fault = config_fault(err, path)
    mode = fault_display_mode(path, environ)
    display = _open_fault_display(mode, clock)
    _problem(FIX_HINT)  # once: a terminal without the TV knows the console waits
    screen = _fault_screen(display)
    loaded: list[Config] = []
    last = _file_state(path)

    def retry() -> Fault | bool | None:
        nonlocal last
        state = _file_state(path)
        if state == last:
            return None
        last = state
        try:
            loaded.append(load_config(path))
        except ConfigError as err:
            _print_problems(err)
            return config_fault(err, path)
        log.warning("%s: the config passes now: starting the console", loaded[0].source)
        return True

    fixed = wait_with_fault(fault, screen, clock=clock, queue=queue, notifier=notifier,
                            every_ns=CONFIG_POLL_NS, retry=retry)
    if not fixed:
        if display is not None:
            display.close()
        return None
    config = loaded[0]
    if display is not None and resolve_mode(config.display.driver) != display.mode:
        display.close()
        display = None
    return config, display


def open_or_wait(
    config: Config,
    display: TableDisplay | None,
    opener: Callable[[Config, TableDisplay | None], Rig],
    *,
    clock: Clock,
    queue: EventQueue,
    notifier: Notifier,
) -> Rig | None:
    """``opener(config, display)``; when it raises ``DriverError``/``ConfigError``, the
    line is printed and shown on the TV (``display``, else the config's) and the rig is
    tried again every :data:`RIG_RETRY_NS` until it opens (returned) or Quit comes
    (``None``); ``None`` at once when the TV cannot open either."""
    try:
        return opener(config, display)
    except (DriverError, ConfigError) as err:
        line = _first_line(err)
    _problem(f"error: {line}")  # the log goes to the same terminal: one line
    if display is None:
        try:
            display = TableDisplay(config.display.driver, None, clock=clock)
        except DriverError as err:
            if str(err) != line:
                _problem(f"error: the TV cannot show it either: {err}")
            return None
    opened: list[Rig] = []
    shown = line

    def retry() -> Fault | bool | None:
        nonlocal shown
        try:
            opened.append(opener(config, display))
        except (DriverError, ConfigError) as err:
            again = _first_line(err)
            if again == shown:
                return None
            shown = again
            _problem(f"error: {again}")
            return driver_fault(again)
        log.warning("the drivers opened: starting the console")
        return True

    screen = _fault_screen(display)
    try:
        if wait_with_fault(driver_fault(line), screen, clock=clock, queue=queue,
                           notifier=notifier, every_ns=RIG_RETRY_NS, retry=retry):
            return opened[0]
    except BaseException:
        display.close()
        raise
    display.close()
    return None


def wait_with_fault(
    fault: Fault,
    screen: FaultScreen | None,
    *,
    clock: Clock,
    queue: EventQueue,
    notifier: Notifier,
    every_ns: int,
    retry: Callable[[], Fault | bool | None],
) -> bool:
    """Show ``fault`` (on ``screen`` if there is one; ``READY=1`` with ``STATUS=<its
    line>``) and wait on the device loop: ``WATCHDOG=1`` as systemd asks, ``retry()`` every
    ``every_ns`` ns (int, CLOCK_MONOTONIC); it returns True (done: return True), a new
    :class:`Fault` (shown, and sent as ``STATUS=``) or ``None`` (no change).  Returns False
    when :class:`~device.reactor.events.Quit` arrives (SIGTERM).  An exception from ``retry`` is
    logged with its traceback and the wait goes on."""
    from device.reactor.loop import Loop

    if screen is not None:
        screen.show(fault)
    notifier.ready(fault.line)
    done: list[bool] = []
    next_ns = clock.now_ns() + every_ns

    def handle(event: object) -> None:
        if isinstance(event, Quit):
            loop.stop()

    def poll(now_ns: int) -> int:
        nonlocal next_ns
        if now_ns < next_ns:
            return next_ns
        next_ns = now_ns + every_ns
        try:
            result = retry()
        except Exception:
            log.exception("retrying failed; waiting on")
            return next_ns
        if result is True:
            done.append(True)
            loop.stop()
        elif isinstance(result, Fault):
            if screen is not None:
                screen.show(result)
            notifier.status(result.line)
        return next_ns

    loop = Loop(clock=clock, queue=queue, handle=handle, frame=lambda now_ns: None,
                tickers=[notifier.watchdog_ticker, poll])
    loop.run()
    return bool(done)


SERVICE = "partytable"
"""The appliance's systemd unit (``systemd/partytable.service``), as ``systemctl`` names it."""

STOP_SERVICE = f"sudo systemctl stop {SERVICE}"
START_SERVICE = f"sudo systemctl start {SERVICE}"

RUNNING_STATES = ("active", "activating", "reloading", "refreshing", "deactivating")
"""``systemctl is-active`` words for a unit that holds (or is about to hold) the hardware:
``activating`` is also a unit between two restarts (``Restart=``), which takes it again
within ``RestartSec=``."""


def service_state(unit: str = f"{SERVICE}.service") -> str | None:
    """What ``systemctl is-active UNIT`` says (``"active"``, ``"inactive"``,
    ``"activating"``, ``"failed"`` ...), or ``None`` where there is no ``systemctl`` (not a
    systemd system) or it gives no answer within 5 s.  Never raises."""
    systemctl = shutil.which("systemctl")
    if systemctl is None:
        return None
    try:
        done = subprocess.run([systemctl, "is-active", unit], capture_output=True, text=True,
                              timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    words = done.stdout.split()
    return words[0] if words else None


def _busy_advice(state: str | None) -> str:
    """What to do about hardware another process holds, given the service's ``state``
    (:func:`service_state`)."""
    again = f"stop it ({STOP_SERVICE}), run the self-test, then start it again ({START_SERVICE})"
    if state in RUNNING_STATES:
        return f"the {SERVICE} service is running ({state}) and holds it: {again}"
    if state is None:
        return f"if the {SERVICE} service is running, {again}"
    return (f"the {SERVICE} service is not running ({state}): stop the program that holds it "
            "(a console started by hand, a desktop on the TV), then run the self-test again")


def run_hardware_selftest(args: argparse.Namespace) -> int:
    """``python -m device selftest`` on a Pi: every seat's screen, slap button and keys;
    prints one line per check, exit status 1 with faults (2 for a bad config).

    The service (:data:`SERVICE`) holds the TV, the GPIO lines and the handhelds while it
    runs: when ``systemctl is-active`` says it runs (:func:`service_state`), one ``FAULT:``
    line says to stop it and start it again after (:data:`STOP_SERVICE`,
    :data:`START_SERVICE`), and nothing is opened.  Hardware another program holds
    (:class:`~drivers.errors.DeviceBusyError`) is one line too, with what to stop."""
    from device.games import PLUGINS
    from device.modes.present import TablePresenter
    from device.modes.selftest import SelfTest, run_selftest

    def check(config: Config, rig: Rig, clock: Clock, queue: DeviceQueue) -> int:
        test = SelfTest(rig.seats, next(iter(PLUGINS.values())))
        run_selftest(test, clock=clock, queue=queue, presenter=TablePresenter(rig.display),
                     tickers=rig.tickers)
        print("\n".join(test.report()))
        return 1 if test.faults else 0

    return _on_hardware(args, check)


def _on_hardware(
    args: argparse.Namespace, run: Callable[[Config, Rig, Clock, DeviceQueue], int]
) -> int:
    """For the self-test at a terminal: load the config (one line per problem, exit 2),
    refuse while the service runs (one ``FAULT:`` line, exit 1), open the rig on a real
    clock and queue with SIGINT/SIGTERM posting ``Quit`` (a driver that cannot open is one
    ``FAULT:`` line, exit 1; hardware another process holds says what to stop), ``run`` it
    and close it."""
    path = find_config(args.config)
    try:
        config = load_config(path)
    except ConfigError as err:
        _print_problems(err)
        return 2
    state = service_state()
    if state in RUNNING_STATES:
        print(f"FAULT: the {SERVICE} service is running ({state}) and holds the TV, the GPIO "
              f"lines and the handhelds: stop it ({STOP_SERVICE}), run the self-test, then "
              f"start it again ({START_SERVICE})")
        return 1
    clock = MonotonicClock()
    queue = DeviceQueue()
    quit_on_signals(queue.post)
    try:
        rig = open_rig(config, post=queue.post, clock=clock)
    except DeviceBusyError as err:
        print(f"FAULT: {err}; {_busy_advice(state)}")
        return 1
    except (DriverError, ConfigError) as err:
        print(f"FAULT: {err}")
        return 1
    try:
        return run(config, rig, clock, queue)
    finally:
        rig.close()


def config_fault(err: ConfigError, path: Path | None) -> Fault:
    """The TV's picture of a config that fails ``check-config``: its first problem, the
    file, and how many more there are with the command that lists them all."""
    more = len(err.problems) - 1
    command = "python -m device check-config"
    if path is not None and path != ETC_CONFIG:
        command += f" {path}"
    note = f"{more} more problem{'' if more == 1 else 's'}: {command}" if more > 0 else ""
    return Fault("The config file has a problem", err.problems[0] if err.problems else "",
                 source=err.source, more=note, hint=FIX_HINT)


def driver_fault(line: str) -> Fault:
    """The TV's picture of a driver that cannot be opened (``line``: its one line)."""
    return Fault("The console cannot start", line, hint=RETRY_HINT)


def fault_display_mode(path: Path | None, environ: Mapping[str, str]) -> str:
    """The TV's mode for a config that fails: ``[display] driver`` of the file at ``path``
    when that key reads (the TOML parses and it is a known driver), else ``"auto"`` when
    ``SDL_VIDEODRIVER`` is set (it picks the driver), else the bundled config's driver.
    The file is read by ``device.config.loader.read_config_text`` (a regular file only, at most
    1 MiB); nothing in it raises."""
    import tomllib

    from device.config.loader import bundled_text, read_config_text
    from device.config.schema import BOM, DRIVERS

    if path is not None:
        # the same safe read as load_config: a FIFO is never opened, nothing past 1 MiB
        try:
            raw = tomllib.loads(read_config_text(path).removeprefix(BOM))
            display = raw.get("display")
            driver = display.get("driver") if isinstance(display, dict) else None
            if isinstance(driver, str) and driver in DRIVERS:
                return driver
        except (ValueError, RecursionError):  # ConfigError (unreadable), not TOML, too deep
            pass
    if environ.get("SDL_VIDEODRIVER", "").strip():
        return "auto"
    bundled = tomllib.loads(bundled_text())
    return str(bundled.get("display", {}).get("driver", "kmsdrm"))


def _open_fault_display(mode: str, clock: Clock) -> TableDisplay | None:
    """The TV for a config fault, or ``None`` with one line when it cannot open (the
    service waits anyway: the line is in the journal and ``systemctl status``)."""
    try:
        return TableDisplay(mode, None, clock=clock)
    except DriverError as err:
        _problem(f"error: the TV cannot show it: {err}")
        return None


def _fault_screen(display: TableDisplay | None) -> FaultScreen | None:
    return None if display is None else FaultScreen(display)


def _file_state(path: Path | None) -> tuple[int, int, int] | None:
    """``(mtime ns, size, inode)`` of the file at ``path``; ``None`` when there is none."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _first_line(err: Exception) -> str:
    lines = str(err).splitlines()
    return lines[0] if lines else type(err).__name__


def _print_problems(err: ConfigError) -> None:
    """Every problem of ``err`` on stderr, ``source: problem`` (as ``check-config``)."""
    for problem in err.problems:
        _problem(f"{err.source}: {problem}")


def _problem(line: str) -> None:
    """One problem line on stderr, flushed (the journal keeps the order of the lines)."""
    print(line, file=sys.stderr, flush=True)

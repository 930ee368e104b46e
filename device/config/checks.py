"""The config file's checks across keys, after each table is read by the generic reader
(``device.config.table_reader.read_table``): the seat count, every pin against the header's budget,
the enabled functions and every other use; each wired OLED's bus enabled and its slot free;
the serial ids; the rule options against the engine (``engine.get_game(name).options`` and
``new``) and the console's lobby (``device.games.base.GamePlugin.lobby_options``).

Each problem is one ``key: message`` line naming the key it is about and, where one exists,
the fix (docs/hardware-facts.md "Pin budget").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from device.config.schema import (
    KEY_NAMES,
    LINES_PER_WIRED_SEAT,
    MAX_SEATS,
    MIN_SEATS,
    SPI0_PINS,
    GpioConfig,
    I2cMux,
    SeatConfig,
    SerialHandheld,
    StoredOption,
    WiredHandheld,
    read_seat,
    seat_lines,
)
from device.config.table_reader import FIRST_PIN, LAST_PIN, PinUse, Problems, Reading, shown, table
from drivers.values import is_int

__all__ = [
    "SeatRead",
    "check_displays",
    "check_pins",
    "check_serial_ids",
    "read_rules",
    "read_seats",
]


class SeatRead(NamedTuple):
    """One ``[[seat]]`` as read: its ``position`` (``seat[position]``), the seat (``None``
    when it has a problem) and every pin it names that could be read (the cross-checks look
    at those too)."""

    position: int
    seat: SeatConfig | None
    uses: list[PinUse]


def read_seats(r: Reading, value: object) -> list[SeatRead] | None:
    """``[[seat]]``: each seat with the pins it names; ``None`` when the list itself is
    wrong (missing, not tables, a bad count: RI-2.4, RT-2.5)."""
    p = r.problems
    if value is None:
        p.add("seat", f"missing: give {MIN_SEATS} to {MAX_SEATS} [[seat]] tables")
        return None
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        p.add("seat", f"expected [[seat]] tables, got {shown(value)}")
        return None
    if not MIN_SEATS <= len(value) <= MAX_SEATS:
        tables = "table" if len(value) == 1 else "tables"
        p.add("seat", f"{len(value)} [[seat]] {tables}; a table seats {MIN_SEATS} to "
                      f"{MAX_SEATS}")
        return None
    reads: list[SeatRead] = []
    for index, seat in enumerate(value):
        r.uses = []
        reads.append(SeatRead(index, read_seat(r, index, seat), r.uses))
    r.uses = []
    return reads


def check_pins(p: Problems, gpio: GpioConfig, reads: Sequence[SeatRead],
                seats: Sequence[SeatConfig]) -> None:
    """The pin budget, then each pin against the enabled functions and every earlier use
    (``reads``: every seat's pins; ``seats``: the seats without problems of their own)."""
    hat = gpio.function_pins(i2c_gpio=False)  # I2C1, SPI0, UART: the header's own
    uses = [
        PinUse(f"gpio.i2c_gpio[{i}].{name}", pin, f"i2c-{extra.bus} {name.upper()}")
        for i, extra in enumerate(gpio.i2c_gpio)
        for name, pin in (("sda", extra.sda), ("scl", extra.scl))
    ]
    free = LAST_PIN - FIRST_PIN + 1 - len(hat) - len(uses)
    need = sum(len(r.uses) for r in reads)
    if need > free:
        p.add("seat", _budget_problem(gpio, seats, need, free))
        return
    uses.extend(u for r in reads for u in r.uses)
    seen: dict[int, str] = {}
    for use in uses:
        if use.pin in hat:
            function, by = hat[use.pin]
            p.add(use.key, f"GPIO {use.pin} is {function} (enabled by {by}); pick a free pin "
                           f"({_free_list(gpio, reads)})")
        elif use.pin in seen:
            p.add(use.key, f"GPIO {use.pin} is already {seen[use.pin]}")
        else:
            seen[use.pin] = use.key


def _budget_problem(gpio: GpioConfig, seats: Sequence[SeatConfig], need: int, free: int
                    ) -> str:
    """The one line for seats that need more GPIO lines than the header has free: which
    seats should take a serial handheld (1 line: the slap button) instead."""
    moved: list[int] = []
    short = need - free
    for seat in reversed(seats):
        if short <= 0:
            break
        h = seat.handheld
        if isinstance(h, WiredHandheld):
            short -= len(KEY_NAMES) + (2 if h.bus == "spi" else 0)
            moved.append(seat.index)
    taken = ", ".join(f for _, (f, _) in sorted(gpio.function_pins().items())) or "nothing"
    wired = sum(isinstance(s.handheld, WiredHandheld) for s in seats)
    names = " and ".join(f"seat[{i}]" for i in sorted(moved))
    handhelds = "serial handhelds" if len(moved) > 1 else "a serial handheld"
    return (f"{len(seats)} seats ({wired} wired) need {need} GPIO lines but the header has "
            f"{free} free (BCM {FIRST_PIN}-{LAST_PIN} minus {taken}); a wired seat takes "
            f"{LINES_PER_WIRED_SEAT} (slap + 4 keys), a serial seat 1 (slap): give {names} "
            f'{handhelds} (kind = "serial")')


def _free_list(gpio: GpioConfig, reads: Sequence[SeatRead]) -> str:
    """``free: 4, 14`` or ``none free``."""
    used = set(gpio.function_pins()) | {u.pin for r in reads for u in r.uses}
    free = [str(pin) for pin in range(FIRST_PIN, LAST_PIN + 1) if pin not in used]
    return f"free: {', '.join(free)}" if free else "none free"


def check_displays(p: Problems, gpio: GpioConfig, seats: Sequence[SeatConfig]) -> None:
    """Each wired OLED's bus is enabled, and no two share a bus and address (or SPI CE)."""
    enabled = gpio.i2c_buses()
    taken: dict[tuple[str, int, int | None, int], str] = {}
    for seat in seats:
        h = seat.handheld
        if not isinstance(h, WiredHandheld):
            continue
        key = f"seat[{seat.index}].handheld"
        if h.bus == "spi":
            if not gpio.spi:
                p.add(f"{key}.bus", _spi_advice(gpio, seats))
                continue
            slot: tuple[str, int, int | None, int] = ("spi", h.port, None, h.device)
            if slot in taken:
                p.add(f"{key}.device", f"SPI{h.port} device {h.device} (CE{h.device}) is "
                                       f"already {taken[slot]}'s display")
            taken[slot] = f"seat[{seat.index}]"
            continue
        if h.port not in enabled:
            buses = ", ".join(f"i2c-{b}" for b in enabled) or "none"
            p.add(f"{key}.port", f"i2c-{h.port} is not enabled in [gpio] (enabled: {buses}); "
                                 "add it to gpio.i2c or as a [[gpio.i2c_gpio]] bus")
            continue
        if h.mux_channel is not None:
            if gpio.i2c_mux is None:
                p.add(f"{key}.mux_channel", "no mux: add [gpio.i2c_mux] (a TCA9548A on I2C1)")
                continue
            if h.port != I2cMux.bus:
                p.add(f"{key}.mux_channel", f"the mux sits on I2C1: set port = {I2cMux.bus}")
                continue
        slot = ("i2c", h.port, h.mux_channel, h.address)
        where = _i2c_name(h.port, h.mux_channel, h.address)
        if slot in taken:
            p.add(f"{key}.address", f"{where} is already {taken[slot]}'s display: give each "
                                    "display its own mux channel, bus or address")
            taken[slot] = f"seat[{seat.index}]"
            continue
        # while a channel is selected it is joined to the mux's own bus: a display on
        # the bus itself and one behind the mux must not share an address
        if gpio.i2c_mux is not None and h.port == I2cMux.bus:
            for (bus, port, channel, address), who in taken.items():
                if (bus, port, address) == ("i2c", h.port, h.address) \
                        and (channel is None) != (h.mux_channel is None):
                    p.add(f"{key}.address", f"0x{h.address:02X} is {who}'s display address "
                          f"on i2c-{h.port}, which the selected mux channel is joined to: "
                          "use the other address or put both behind the mux")
                    break
        taken[slot] = f"seat[{seat.index}]"


def _spi_advice(gpio: GpioConfig, seats: Sequence[SeatConfig]) -> str:
    """The line for an SPI display while ``gpio.spi`` is off: set it, and move first every
    seat's pin that ``dtparam=spi=on`` would take (:data:`SPI0_PINS`), each named with its
    key, with the pins that stay free."""
    advice = "SPI is not enabled: set gpio.spi = true (dtparam=spi=on takes GPIO 7-11)"
    lines = [line for seat in seats for line in seat_lines(seat)]
    taken = [line for line in lines if line.gpio in SPI0_PINS]
    if not taken:
        return advice
    used = set(gpio.function_pins()) | set(SPI0_PINS) | {line.gpio for line in lines}
    free = [str(pin) for pin in range(FIRST_PIN, LAST_PIN + 1) if pin not in used]
    named = ", ".join(f"{line.key} (GPIO {line.gpio})" for line in taken)
    where = f"free: {', '.join(free)}" if free else "none free"
    if len(free) < len(taken):
        where += f'; {len(taken)} to move: give a seat a serial handheld (kind = "serial")'
    return f"{advice}, and first move {named} to other pins ({where})"


def _i2c_name(port: int, channel: int | None, address: int) -> str:
    """``i2c-1 mux channel 2, 0x3C`` / ``i2c-3 0x3D``."""
    via = f" mux channel {channel}" if channel is not None else ""
    return f"i2c-{port}{via} 0x{address:02X}"


def check_serial_ids(p: Problems, seats: Sequence[SeatConfig]) -> None:
    """No two serial handhelds with one id."""
    seen: dict[str, int] = {}
    for seat in seats:
        h = seat.handheld
        if isinstance(h, SerialHandheld):
            name = h.id.rsplit("/", 1)[-1]
            if name in seen:
                p.add(f"seat[{seat.index}].handheld.id", f"{h.id!r} is already "
                                                         f"seat[{seen[name]}]'s handheld")
            else:
                seen[name] = seat.index


def read_rules(r: Reading, value: object, seats: int
                ) -> tuple[tuple[str, tuple[tuple[str, StoredOption], ...]], ...] | None:
    """``[rules.<game>]``: each game one of ``device.games.PLUGINS``; each option one of
    ``engine.get_game(game).options``, of that option's exact type (``true``/``false`` for
    a switch, a whole number that is no bool for a number), accepted by the engine's own
    ``new`` for ``seats`` seats, and one the console's lobby starts from: a value of the
    option's lobby row (``GamePlugin.lobby_options``), any switch of ``lobby_parts``, else
    only the engine's default (the lobby has nothing to show it on).  One problem line per
    option, ``rules.<game>.<option>: ...``, naming the values the console offers."""
    p = r.problems
    rules = table(r, "rules", value)
    if rules is None:
        return None
    from device.games import PLUGINS

    out: list[tuple[str, tuple[tuple[str, StoredOption], ...]]] = []
    ok = True
    for game_name, options in rules.items():
        key = f"rules.{game_name}"
        if game_name not in PLUGINS:
            p.add(key, f"unknown game (known: {', '.join(PLUGINS)})")
            ok = False
            continue
        given = table(r, key, options)
        if given is None:
            ok = False
            continue
        problems = [(f"{key}.{name}", message) for name, option in given.items()
                    if (message := _option_problem(game_name, name, option, seats)) is not None]
        for problem in problems:
            p.add(*problem)
        if problems:
            ok = False
            continue
        out.append((game_name, tuple(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in given.items()
        )))
    return tuple(out) if ok else None


def _option_problem(game_name: str, name: str, value: object, seats: int) -> str | None:
    """What is wrong with option ``name`` = ``value`` of ``game_name`` in the config, or
    ``None``: unknown, of the wrong type, refused by the engine for ``seats`` seats, or not
    a value the console's lobby offers (see :func:`read_rules`)."""
    import engine
    from device.games import PLUGINS

    game = engine.get_game(game_name)
    specs = {spec.name: spec for spec in game.options}
    spec = specs.get(name)
    if spec is None:
        return f"unknown option (known: {', '.join(specs)})"
    plugin = PLUGINS[game_name]
    rows = {row.name: row for row in plugin.lobby_options}
    if name not in rows and name not in dict(plugin.lobby_parts):
        if value == spec.default and type(value) is type(spec.default):
            return None
        return (f"the console plays only {_toml_value(spec.default)}: its lobby has no "
                f"{name} row")
    if isinstance(spec.default, bool):
        if not isinstance(value, bool):
            return f"expected true or false, got {shown(value)}"
    elif not is_int(value):
        return f"expected a whole number, got {shown(value)}"
    try:
        game.new(seats, 0, {name: value})
    except (engine.EngineError, ValueError, TypeError) as exc:
        message = " ".join(str(exc).split())
        return message.removeprefix(f"option {name}: ")
    row = rows.get(name)
    if row is not None and value not in row.values:
        offered = ", ".join(_toml_value(v) for v in sorted(row.values))
        return (f"{_toml_value(value)} is not one the console's lobby offers "
                f"({row.label}: {offered})")
    return None


def _toml_value(value: object) -> str:
    """``value`` as the config writes it: ``true``, ``5``, ``"standard"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)

"""partytable's hardware drivers: one module per hardware kind, no game knowledge.

Each kind has a real backend and a test/simulator backend behind the same interface
(architecture.md, "Layers" and "Seams"); ``drivers`` imports nothing from ``engine`` or
``device``.  All times are ``int`` CLOCK_MONOTONIC nanoseconds.

=====================  ============================================  =========================
module                 real backend                                  test/simulator backend
=====================  ============================================  =========================
``clock``              ``MonotonicClock`` (``time.monotonic_ns``)    ``FakeClock``
``slap``               ``SlapButtons``: gpiozero + lgpio edges ->    ``mock_pin_factory()`` +
                       ``Press``/``Release`` with kernel timestamps  ``edge()`` (gpio module)
``keys``               ``HandKeys``: wired handheld keys on GPIO ->  the same mock pins
                       ``KeyPress``
``hand_display``       ``open_hand_display``: luma.oled ssd1306 /    kind ``"dummy"`` (luma
                       sh1106 on I2C or SPI; ``ChangedOnly``;        dummy device); writers
                       ``HandDisplays``: one writer thread per bus   with ``thread=False``
``i2c_writer``         ``BusWriter``: the newest frame per display,
                       gone/back reports, rebuilt panels
``pin_factory``        ``open_pin_factory``: gpiozero's lgpio        ``MockFactory`` (tests and
                       factory on the header chip, found by label;   the simulator only)
                       ``require_fair_factory``
``table_display``      ``TableDisplay``: pygame-ce on SDL kmsdrm     mode ``"dummy"`` (SDL
                       (Pi console) or a desktop window              dummy video driver)
``gpio``               shared: ``EdgeButton``, ``EdgeDebouncer``,
                       ``EdgeButtonGroup``, ``EdgeMockPin``, ``edge``
``closing``            shared: ``ClosesOnExit``, the context-manager
                       mixin of every driver with ``close()``
``errors``             ``DriverError`` and its leaves
=====================  ============================================  =========================

Importing ``drivers`` imports gpiozero, luma.core and Pillow (none touches hardware or
starts a thread) but not pygame or luma.oled: the table display imports pygame when one is
opened, an OLED kind imports luma.oled (whose import starts luma's 4-thread pool).
"""

from drivers.clock import Clock, FakeClock, MonotonicClock
from drivers.errors import (
    DeviceUnavailableError,
    DriverClosedError,
    DriverError,
    DriverValueError,
    NotWiredError,
)
from drivers.gpio import edge, mock_pin_factory
from drivers.hand_display import (
    HAND_DISPLAY_KINDS,
    ChangedOnly,
    HandDisplays,
    LumaDevice,
    check_hand_display,
    describe_hand_display,
    open_hand_display,
)
from drivers.keys import KEY_NAMES, HandKeys, KeyPress
from drivers.slap import DEFAULT_LOCKOUT_NS, Press, Release, SlapButtons
from drivers.table_display import MODES, TableDisplay, resolve_mode

__all__ = [
    "DEFAULT_LOCKOUT_NS",
    "HAND_DISPLAY_KINDS",
    "KEY_NAMES",
    "MODES",
    "ChangedOnly",
    "Clock",
    "DeviceUnavailableError",
    "DriverClosedError",
    "DriverError",
    "DriverValueError",
    "FakeClock",
    "HandDisplays",
    "HandKeys",
    "KeyPress",
    "LumaDevice",
    "MonotonicClock",
    "NotWiredError",
    "Press",
    "Release",
    "SlapButtons",
    "TableDisplay",
    "check_hand_display",
    "describe_hand_display",
    "edge",
    "mock_pin_factory",
    "open_hand_display",
    "resolve_mode",
]

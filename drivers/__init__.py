"""partytable's hardware drivers: one module per hardware kind, no game knowledge.

Each kind has a real backend and a test/simulator backend behind the same interface
(docs/architecture.md, "Layers" and "Seams"); ``drivers`` imports nothing from ``engine`` or
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

Importing ``drivers`` imports none of its modules: a name below is imported from its module
when first used (PEP 562), so ``import drivers.closing`` (the game database does) never
pulls in gpiozero, luma or pygame.
"""

import importlib
from typing import Any

_HOME = {
    "ChangedOnly": "hand_display",
    "Clock": "clock",
    "DEFAULT_LOCKOUT_NS": "slap",
    "DeviceUnavailableError": "errors",
    "DriverClosedError": "errors",
    "DriverError": "errors",
    "DriverValueError": "errors",
    "FakeClock": "clock",
    "HAND_DISPLAY_KINDS": "hand_display",
    "HandDisplays": "hand_display",
    "HandKeys": "keys",
    "KEY_NAMES": "keys",
    "KeyPress": "keys",
    "LumaDevice": "hand_display",
    "MODES": "table_display",
    "MonotonicClock": "clock",
    "NotWiredError": "errors",
    "Press": "slap",
    "Release": "slap",
    "SlapButtons": "slap",
    "TableDisplay": "table_display",
    "check_hand_display": "hand_display",
    "describe_hand_display": "hand_display",
    "edge": "gpio",
    "mock_pin_factory": "gpio",
    "open_hand_display": "hand_display",
    "resolve_mode": "table_display",
}
"""Where each public name lives: ``drivers.<module>``."""


def __getattr__(name: str) -> Any:
    """``drivers.<name>``: imported from its module on first use (PEP 562).  Raises
    ``AttributeError`` for a name the package does not have."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'drivers' has no attribute {name!r}")
    return getattr(importlib.import_module(f"drivers.{home}"), name)


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

"""The drivers' exceptions: one root, :class:`DriverError`, and a few leaves.

Every message is one line that names the seat (when there is one; counted from 1, as people
and the TV count: the driver's ``seat=2`` reads "seat 3"), the device and the problem, with
the fix when one is known, e.g.::

    seat 3 OLED ssd1306 at i2c-4 0x3C: /dev/i2c-4 not found; enable the bus (dtparam=i2c_arm=on)

As in gpiozero, the leaves also subclass a builtin so callers may catch either:

- :class:`DeviceUnavailableError` (``OSError``): hardware cannot be opened or reached:
  missing, busy, permission denied, no pin factory, no video driver, lost mid-use.
  :class:`PinFactoryError` is the one for "no fair GPIO pin factory" (lgpio unusable, or a
  factory whose ticks are not kernel edge times); :class:`DeviceBusyError` the one for
  hardware another process holds (a GPIO line, the TV's DRM master).
- :class:`DriverValueError` (``ValueError``): a bad argument: unknown kind, mode, key or
  parameter, a string that is not a pin name, a frame of the wrong size.
- :class:`NotWiredError` (``LookupError``): a seat or key the driver was not opened with.
- :class:`DriverClosedError` (``RuntimeError``): a driver used after ``close()``.
"""

from __future__ import annotations

__all__ = [
    "DeviceBusyError",
    "DeviceUnavailableError",
    "DriverClosedError",
    "DriverError",
    "DriverValueError",
    "NotWiredError",
    "PinFactoryError",
]


class DriverError(Exception):
    """Root of every error the drivers raise.

    ``seat``: the seat concerned or ``None`` (the table display has none); ``device``: what
    failed, e.g. ``"slap button at GPIO17"`` or ``"OLED ssd1306 at i2c-4 0x3C"``;
    ``problem``: what is wrong and, when known, the fix.  ``str(err)`` is the one line
    ``"seat 3 OLED ssd1306 at i2c-4 0x3C: not found"`` (without ``"seat N "`` when ``seat``
    is ``None``).
    """

    def __init__(self, device: str, problem: str, *, seat: int | None = None) -> None:
        self.seat = seat
        self.device = device
        self.problem = problem
        where = device if seat is None else f"seat {seat + 1} {device}"
        super().__init__(f"{where}: {problem}")

    def __str__(self) -> str:
        """The one-line message (the builtin leaves would otherwise format their args)."""
        where = self.device if self.seat is None else f"seat {self.seat + 1} {self.device}"
        return f"{where}: {self.problem}"


class DeviceUnavailableError(DriverError, OSError):
    """Hardware that cannot be opened or reached: missing, busy, permission, lost mid-use."""


class DeviceBusyError(DeviceUnavailableError):
    """Hardware another process holds right now: a GPIO line it has requested (the kernel's
    line request fails with EBUSY; lgpio says ``"GPIO busy"``, ``LG_GPIO_BUSY``), or the
    DRM master of the TV's card.  Usually a second console: the service while someone runs
    the self-test, or the other way round; the caller says what to stop."""


class PinFactoryError(DeviceUnavailableError):
    """No fair GPIO pin factory: lgpio missing or unusable, or a factory that is refused.

    Raised by :mod:`drivers.pin_factory` (and by the button drivers, which use it) when the
    only factory whose edge ticks are the kernel's edge times, gpiozero's ``LGPIOFactory``,
    cannot be built, or when a caller hands over a factory whose ticks are not edge times
    (docs/hardware-facts.md, "gpiozero falls back silently").  ``device`` is ``"GPIO"``; the
    message names the cause and the fix, e.g. ``"GPIO: lgpio is not installed: pip install
    lgpio"``.  A :class:`DeviceUnavailableError`, so callers catching that still catch it.
    """


class DriverValueError(DriverError, ValueError):
    """A bad argument: unknown kind/mode/key/parameter, not a pin name, a wrong-sized frame."""


class NotWiredError(DriverError, LookupError):
    """A seat or key the driver was not opened with."""


class DriverClosedError(DriverError, RuntimeError):
    """A driver used after its ``close()``."""

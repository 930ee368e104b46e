"""The one check every hand-screen driver makes of a frame it is given (a wired OLED's luma
device, its bus writer, a serial handheld's display): the picture must be of the screen's
size and mode, or the driver says so in one line naming the seat and the screen."""

from __future__ import annotations

from typing import Any

from drivers.errors import DriverValueError


def check_frame(image: Any, size: tuple[int, int], mode: str, *, name: str,
                seat: int | None) -> None:
    """Raise :class:`~drivers.errors.DriverValueError` unless PIL ``image`` has ``size``
    ``(width, height)`` in pixels and ``mode`` (``"1"`` for the OLEDs); ``name`` and
    ``seat`` name the screen in the message ("seat 3 OLED ...: frame is L 128x64, the
    screen takes 1 128x64").

    >>> from PIL import Image
    >>> check_frame(Image.new("1", (128, 64)), (128, 64), "1", name="OLED dummy", seat=0)
    >>> check_frame(Image.new("L", (128, 64)), (128, 64), "1", name="OLED dummy", seat=0)
    Traceback (most recent call last):
    ...
    drivers.errors.DriverValueError: seat 1 OLED dummy: frame is L 128x64, the screen takes 1 128x64
    """
    if tuple(image.size) != tuple(size) or image.mode != mode:
        raise DriverValueError(
            name,
            f"frame is {image.mode} {image.size[0]}x{image.size[1]}, "
            f"the screen takes {mode} {size[0]}x{size[1]}",
            seat=seat,
        )

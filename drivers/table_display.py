"""The table display: the TV's pygame surface, its video mode, and the time of each flip.

Modes (``TableDisplay(mode=...)``), each an SDL video driver picked by ``SDL_VIDEODRIVER``
before ``pygame.display.init()`` (hardware-facts.md, "pygame-ce"):

- ``"kmsdrm"``: a Pi console without a desktop; fullscreen at the screen's current mode.
  Needs pygame-ce (the PyPI ``pygame`` wheel's SDL has no KMSDRM), ``/dev/dri/card*``, no
  desktop holding DRM master, and the user in groups video, render and input.
- ``"window"``: a resizable desktop window (SDL's default driver: x11, wayland, ...);
  refused, not silently headless, when SDL finds no desktop and picks ``offscreen``.
- ``"dummy"``: SDL's dummy driver: no screen at all; tests and headless runs.
- ``"auto"``: :func:`resolve_mode`: an explicit ``SDL_VIDEODRIVER`` wins; else ``window``
  when ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set, else ``kmsdrm`` when ``/dev/dri/card*``
  exists, else ``dummy``.

:meth:`TableDisplay.flip` and :meth:`TableDisplay.update` return the clock's
CLOCK_MONOTONIC ns just after the frame went out: the slap window's ``t0``
(architecture.md, "Slap arbitration" item 1).

pygame is imported only when a :class:`TableDisplay` is opened, never when ``drivers`` is
imported: driver threads and the engine never touch it, and ``device/`` decides when.
One :class:`TableDisplay` per process (SDL has one video subsystem); it owns
``pygame.display``.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from drivers.clock import Clock, MonotonicClock
from drivers.closing import ClosesOnExit
from drivers.errors import DeviceUnavailableError, DriverClosedError, DriverValueError

if TYPE_CHECKING:
    import pygame

__all__ = ["DEFAULT_SIZES", "MODES", "TableDisplay", "resolve_mode"]

MODES: tuple[str, ...] = ("auto", "kmsdrm", "window", "dummy")
"""The accepted ``mode`` words."""

DEFAULT_SIZES: Mapping[str, tuple[int, int]] = {
    "kmsdrm": (0, 0),
    "window": (1280, 720),
    "dummy": (1920, 1080),
}
"""Size when none is given: kmsdrm takes the screen's own mode ((0, 0) asks SDL for it); a
window starts at 1280x720; dummy renders the 1920x1080 logical frame of screens.md."""

_WINDOW_DRIVERS = ("x11", "wayland", "cocoa", "windows")
"""``SDL_VIDEODRIVER`` values that mean a desktop window (kept as the user set them)."""

_HEADLESS_DRIVERS = ("offscreen", "dummy", "evdev")
"""SDL drivers that show nothing on a desktop: refused in window mode (no silent fallback)."""

_FIXES: Mapping[str, str] = {
    "kmsdrm": (
        "a Pi console needs /dev/dri/card* free of any desktop (DRM master), the user in"
        " groups video, render and input, and pygame-ce; on a desktop use mode window"
    ),
    "window": (
        "a window needs a desktop session (DISPLAY or WAYLAND_DISPLAY); on a Pi console use"
        " mode kmsdrm, without a screen use mode dummy"
    ),
    "dummy": "this SDL has no dummy video driver; reinstall pygame-ce",
}


def resolve_mode(
    mode: str, environ: Mapping[str, str] | None = None, has_drm: bool | None = None
) -> str:
    """Turn ``mode`` into the SDL video driver family to use: ``kmsdrm``, ``window``, ``dummy``.

    ``environ``: the environment to read (default ``os.environ``); ``has_drm``: whether a
    ``/dev/dri/card*`` exists (default: look).  Only ``"auto"`` consults them: an explicit
    ``SDL_VIDEODRIVER`` wins (``dummy``/``offscreen`` -> dummy, ``kmsdrm`` -> kmsdrm,
    anything else -> window), then ``DISPLAY``/``WAYLAND_DISPLAY`` -> window, then a DRM card
    -> kmsdrm, else dummy.  Raises :class:`~drivers.errors.DriverValueError` for an unknown
    mode.

    >>> resolve_mode("auto", {"DISPLAY": ":0"}, has_drm=True)
    'window'
    >>> resolve_mode("auto", {}, has_drm=True)
    'kmsdrm'
    >>> resolve_mode("auto", {}, has_drm=False)
    'dummy'
    """
    if mode not in MODES:
        raise DriverValueError(
            "table display", f"unknown mode {mode!r} (modes: {', '.join(MODES)})"
        )
    if mode != "auto":
        return mode
    env = os.environ if environ is None else environ
    explicit = env.get("SDL_VIDEODRIVER", "").strip().lower()
    if explicit:
        if explicit in ("dummy", "offscreen"):
            return "dummy"
        return "kmsdrm" if explicit == "kmsdrm" else "window"
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return "window"
    if has_drm is None:
        has_drm = bool(glob.glob("/dev/dri/card*"))
    return "kmsdrm" if has_drm else "dummy"


class TableDisplay(ClosesOnExit):
    """The table display: owns ``pygame.display`` and reports when each frame went out.

    ``mode``: one of :data:`MODES` (see the module docstring); ``size``: ``(width,
    height)`` pixels, default :data:`DEFAULT_SIZES` for the resolved mode (on kmsdrm a size
    asks for that fullscreen mode); ``clock``: the :class:`~drivers.clock.Clock` read just
    after each flip (default :class:`~drivers.clock.MonotonicClock`); ``title``: the
    window caption.

    Sets ``SDL_VIDEODRIVER`` for the resolved mode before ``pygame.display.init()``
    (re-initialising the display if something else initialised it with another driver)
    and restores the previous value on :meth:`close`.

    Raises :class:`~drivers.errors.DriverValueError` for an unknown mode or a bad size and
    :class:`~drivers.errors.DeviceUnavailableError` when SDL cannot open the display; the
    message names the mode and the fix.
    """

    def __init__(
        self,
        mode: str = "auto",
        size: tuple[int, int] | None = None,
        clock: Clock | None = None,
        title: str = "partytable",
    ) -> None:
        self.mode = resolve_mode(mode)
        self.requested_mode = mode
        if size is not None and not _valid_size(size):
            raise DriverValueError(
                f"table display ({self.mode})",
                f"size must be (width, height) positive ints, got {size!r}",
            )
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self.title = title
        self._closed = False
        self._saved_driver = os.environ.get("SDL_VIDEODRIVER")
        self._flags = 0
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        self._pygame = pygame
        try:
            self._open(size if size is not None else DEFAULT_SIZES[self.mode])
        except BaseException:
            self.close()
            raise

    @property
    def surface(self) -> pygame.Surface:
        """The display surface to draw on (replaced by :meth:`resized`)."""
        self._check_open()
        return self._surface

    @property
    def size(self) -> tuple[int, int]:
        """The display surface's ``(width, height)`` in pixels."""
        return self.surface.get_size()

    @property
    def driver(self) -> str:
        """SDL's name of the video driver in use, e.g. ``"KMSDRM"``, ``"x11"``, ``"dummy"``."""
        self._check_open()
        return str(self._pygame.display.get_driver())

    def flip(self) -> int:
        """Show the whole surface; return ``clock.now_ns()`` read just after (``int`` ns).

        Raises :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        self._check_open()
        self._pygame.display.flip()
        return self.clock.now_ns()

    def update(self, rects: Iterable[pygame.Rect | tuple[int, int, int, int]]) -> int:
        """Show only ``rects`` (pygame ``Rect`` or ``(x, y, w, h)``); return the time after.

        An empty ``rects`` sends nothing but still returns the time.  Returns
        ``clock.now_ns()`` (``int`` CLOCK_MONOTONIC ns).  Raises
        :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        self._check_open()
        boxes = [self._pygame.Rect(r) for r in rects]
        if boxes:
            self._pygame.display.update(boxes)
        return self.clock.now_ns()

    def resized(self, size: tuple[int, int] | None = None) -> pygame.Surface:
        """Follow a window resize; return the (possibly new) surface.

        Call on ``pygame.VIDEORESIZE`` / ``WINDOWSIZECHANGED`` with the event's size, or
        with ``None`` to adopt whatever SDL now has.  On kmsdrm the screen cannot be
        resized and the current surface is returned.  Raises
        :class:`~drivers.errors.DriverValueError` for a bad size.
        """
        self._check_open()
        if size is not None and not _valid_size(size):
            raise DriverValueError(
                f"table display ({self.mode})",
                f"size must be (width, height) positive ints, got {size!r}",
            )
        current = self._pygame.display.get_surface()
        if current is not None:
            self._surface = current
        if self.mode != "kmsdrm" and size is not None and self._surface.get_size() != size:
            self._surface = self._set_mode(size)
        return self._surface

    def close(self) -> None:
        """Shut ``pygame.display`` down and restore ``SDL_VIDEODRIVER``; idempotent."""
        if self._closed:
            return
        self._closed = True
        pygame = getattr(self, "_pygame", None)
        if pygame is not None:
            pygame.display.quit()
        if self._saved_driver is None:
            os.environ.pop("SDL_VIDEODRIVER", None)
        else:
            os.environ["SDL_VIDEODRIVER"] = self._saved_driver

    def __repr__(self) -> str:
        """``<TableDisplay dummy 1920x1080>`` style summary."""
        if self._closed:
            return f"<TableDisplay {self.mode} closed>"
        width, height = self.size
        return f"<TableDisplay {self.mode} {width}x{height}>"

    def _open(self, size: tuple[int, int]) -> None:
        """Pick the SDL driver, init the display, set the mode."""
        pygame = self._pygame
        wanted = self._sdl_driver()
        if pygame.display.get_init():
            current = str(pygame.display.get_driver()).lower()
            same = current == wanted if wanted is not None else current in _WINDOW_DRIVERS
            if not same:
                pygame.display.quit()
        if wanted is None:
            os.environ.pop("SDL_VIDEODRIVER", None)
        else:
            os.environ["SDL_VIDEODRIVER"] = wanted
        try:
            pygame.display.init()
        except pygame.error as exc:
            raise self._unavailable(exc) from exc
        if self.mode == "window":
            driver = str(pygame.display.get_driver()).lower()
            if driver in _HEADLESS_DRIVERS:
                raise self._unavailable(f"SDL found no desktop and chose {driver!r}")
        if self.mode == "kmsdrm":
            self._flags = pygame.FULLSCREEN
        elif self.mode == "window":
            self._flags = pygame.RESIZABLE
        self._surface = self._set_mode(size)
        pygame.display.set_caption(self.title)
        if self.mode == "kmsdrm":
            pygame.mouse.set_visible(False)

    def _set_mode(self, size: tuple[int, int]) -> pygame.Surface:
        """``pygame.display.set_mode`` with this mode's flags, errors made driver errors."""
        try:
            return self._pygame.display.set_mode(size, self._flags)
        except self._pygame.error as exc:
            raise self._unavailable(exc) from exc

    def _sdl_driver(self) -> str | None:
        """The ``SDL_VIDEODRIVER`` value for the resolved mode (None: SDL's default)."""
        if self.mode == "window":
            current = (self._saved_driver or "").strip().lower()
            return current if current in _WINDOW_DRIVERS else None
        return self.mode

    def _unavailable(self, exc: BaseException | str) -> DeviceUnavailableError:
        """A one-line error naming the mode, SDL's complaint and the fix."""
        fix = _FIXES[self.mode]
        if self.mode == "kmsdrm" and not getattr(self._pygame, "IS_CE", False):
            fix = "classic pygame's SDL has no KMSDRM driver: install pygame-ce instead"
        return DeviceUnavailableError(f"table display ({self.mode})", f"cannot open ({exc}); {fix}")

    def _check_open(self) -> None:
        """Raise :class:`~drivers.errors.DriverClosedError` after :meth:`close`."""
        if self._closed:
            raise DriverClosedError(f"table display ({self.mode})", "used after close()")


def _valid_size(size: object) -> bool:
    """True for a ``(width, height)`` pair of positive ints."""
    return (
        isinstance(size, tuple)
        and len(size) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
    )

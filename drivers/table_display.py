"""The table display: the TV's pygame surface, its video mode, and the time of each flip.

Modes (``TableDisplay(mode=...)``), each an SDL video driver picked by ``SDL_VIDEODRIVER``
before ``pygame.display.init()`` (docs/hardware-facts.md, "pygame-ce"):

- ``"kmsdrm"``: a Pi console without a desktop; fullscreen at the screen's native mode,
  cursor hidden, flips that wait for the vblank (below).  Needs pygame-ce (the PyPI
  ``pygame`` wheel's SDL has no KMSDRM), ``/dev/dri/card*``, no desktop holding DRM master,
  the user in groups video, render and input, and Mesa's libgbm1/libegl1/libgles2.  What
  is missing is checked before SDL is asked (:func:`check_kmsdrm`) or read from SDL's
  refusal, and said in one line with the fix.
- ``"window"``: a resizable desktop window (SDL's default driver: x11, wayland, ...);
  refused, not silently headless, when SDL finds no desktop and picks ``offscreen``.
- ``"dummy"``: SDL's dummy driver: no screen at all; tests and headless runs.
- ``"auto"``: :func:`resolve_mode`: an explicit ``SDL_VIDEODRIVER`` wins; else ``window``
  when ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set, else ``kmsdrm`` when ``/dev/dri/card*``
  exists, else ``dummy``.

:meth:`TableDisplay.flip` and :meth:`TableDisplay.update` return the clock's
CLOCK_MONOTONIC ns just after the frame went out, plus the TV's own ``lag_ns``: the slap
window's ``t0`` (docs/architecture.md, "Slap arbitration" item 1).  On kmsdrm "went out" is the
vblank: under KMSDRM pygame's window goes through a GLES2 renderer whose swap by default
only waits for the *previous* page flip and may flip asynchronously (tearing), so
``SDL_VIDEO_DOUBLE_BUFFER=1`` is set before ``pygame.display.init()`` and the mode is set
with ``vsync=1``: SDL's ``KMSDRM_GLES_SwapWindow`` then queues the flip for the next
vblank and waits for it before returning (docs/hardware-facts.md, "pygame-ce"; SDL 2.32
``SDL_kmsdrmopengles.c``).  ``SDL_RENDER_DRIVER=opengles2`` is set too (unless the
environment names a renderer): pygame's window with ``vsync=1`` is drawn through an
``SDL_Renderer``, and SDL tries its desktop-OpenGL renderer first; on a box without
``libGL.so.1``/``libOpenGL.so.0`` (Mesa's GLES and EGL libraries only, as ``make install``
and Pi OS Lite have) KMSDRM falls back to an OpenGL ES context under that renderer, whose
texture uploads all fail, and every frame is black (docs/hardware-facts.md, "A virtual
Raspberry Pi").  GLES2 is also the Pi's GPU's own API.  The TV adds its own processing
delay, a constant a builder measures once (e.g. a photodiode on a spare GPIO, stamped in
the buttons' clock) and passes as ``lag_ns``.

pygame is imported only when a :class:`TableDisplay` is opened, never when ``drivers`` is
imported: driver threads and the engine never touch it, and ``device/`` decides when.
One :class:`TableDisplay` per process (SDL has one video subsystem); it owns
``pygame.display``.
"""

from __future__ import annotations

import ctypes.util
import errno
import fcntl
import glob
import logging
import os
import pwd
import re
import struct
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, cast

from drivers.clock import Clock, MonotonicClock
from drivers.closing import ClosesOnExit
from drivers.errors import (
    DeviceBusyError,
    DeviceUnavailableError,
    DriverClosedError,
    DriverValueError,
)
from drivers.values import is_int

if TYPE_CHECKING:
    import pygame

__all__ = [
    "DEFAULT_SIZES",
    "KMSDRM_LIBRARIES",
    "MODES",
    "TableDisplay",
    "check_kmsdrm",
    "drm_master_elsewhere",
    "resolve_mode",
]

log = logging.getLogger(__name__)

MODES: tuple[str, ...] = ("auto", "kmsdrm", "window", "dummy")
"""The accepted ``mode`` words."""

DEFAULT_SIZES: Mapping[str, tuple[int, int]] = {
    "kmsdrm": (0, 0),
    "window": (1280, 720),
    "dummy": (1920, 1080),
}
"""Size when none is given: kmsdrm takes the screen's native mode (SDL's desktop size, read
after init; (0, 0) stands for it); a window starts at 1280x720; dummy renders the 1920x1080
logical frame of docs/screens.md."""

KMSDRM_LIBRARIES: Mapping[str, str] = {
    "drm": "libdrm2",
    "gbm": "libgbm1",
    "EGL": "libegl1",
    "GLESv2": "libgles2",
}
"""The system libraries SDL's KMSDRM driver dlopens (pygame-ce's wheel does not bundle
them; docs/hardware-facts.md, "pygame-ce"), by ``ctypes.util.find_library`` name -> Debian
package."""

DRM_IOCTL_AUTH_MAGIC = 0x40046411
"""``DRM_IOW(0x11, struct drm_auth)`` (``include/uapi/drm/drm.h``): authenticating a client's
magic token is allowed to the DRM master only (``DRM_MASTER`` in ``drm_ioctl.c``), so with
the invalid token 0 it answers "is this file the master?": EACCES no, EINVAL yes (what
libdrm's ``drmIsMaster`` asks)."""

_KMSDRM = "table display (kmsdrm)"
_CARD = re.compile(r"card[0-9]+")

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


def drm_master_elsewhere(
    card: str, *, ioctl: Callable[[int, int, bytes], object] = fcntl.ioctl
) -> bool | None:
    """Whether another process holds DRM master on ``card`` (``/dev/dri/cardN``).

    The kernel makes the first file opened on a card with no master its master
    (``drm_master_open``), so a file freshly opened here is master unless another program
    (a desktop, a second console) holds it; :data:`DRM_IOCTL_AUTH_MAGIC` tells which.
    ``ioctl``: ``fcntl.ioctl`` (tests pass a stand-in).  Returns True (held elsewhere),
    False (free; the file is closed at once, which drops the mastership again) or ``None``
    when it cannot be told (the card cannot be opened, the ioctl answers anything else).
    Never raises."""
    try:
        fd = os.open(card, os.O_RDWR | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        ioctl(fd, DRM_IOCTL_AUTH_MAGIC, struct.pack("I", 0))
    except OSError as exc:
        return {errno.EACCES: True, errno.EINVAL: False}.get(exc.errno or 0)
    finally:
        os.close(fd)
    return None


def check_kmsdrm(
    dri_dir: str | os.PathLike[str] = "/dev/dri",
    drm_sysfs: str | os.PathLike[str] = "/sys/class/drm",
    environ: Mapping[str, str] | None = None,
    *,
    master_elsewhere: Callable[[str], bool | None] = drm_master_elsewhere,
) -> tuple[str, ...]:
    """Check what SDL's KMSDRM driver needs before it is asked; return the usable cards.

    ``dri_dir``: where the DRM nodes are (``/dev/dri``); ``drm_sysfs``: where the kernel
    lists each card's connectors (``/sys/class/drm/card1-HDMI-A-1/status``); ``environ``:
    for ``SDL_KMSDRM_DEVICE_INDEX`` (default ``os.environ``).  SDL 2.32 answers
    ``"kmsdrm not available"`` alike for a missing card, one it may not open, one whose
    connectors are all disconnected and one whose DRM master another program holds
    (``SDL_kmsdrmvideo.c`` ``get_driindex``), so they are told apart here; DRM master is
    asked of the cards with a connected screen (every usable card when sysfs lists no
    connectors) through ``master_elsewhere`` (:func:`drm_master_elsewhere`; tests pass a
    stand-in).  Returns the ``card*`` paths the process may open read-write, in order.

    Raises :class:`~drivers.errors.DeviceUnavailableError` (one line, with the fix) when
    there is no ``card*`` (KMS is off), none may be opened (groups video and render), or
    every connector the kernel lists is disconnected (no screen);
    :class:`~drivers.errors.DeviceBusyError` when another program holds DRM master on
    every card with a screen; and :class:`~drivers.errors.DriverValueError` for an
    ``SDL_KMSDRM_DEVICE_INDEX`` that is not a card number.
    """
    env = os.environ if environ is None else environ
    root = os.fspath(dri_dir)
    names = sorted((n for n in _listdir(root) if _CARD.fullmatch(n)), key=lambda n: int(n[4:]))
    index = env.get("SDL_KMSDRM_DEVICE_INDEX", "").strip()
    if index:
        if not index.isdigit():
            raise DriverValueError(
                _KMSDRM, f"SDL_KMSDRM_DEVICE_INDEX must be a card number, got {index!r}"
            )
        if f"card{int(index)}" not in names:
            found = ", ".join(names) or "none"
            raise DeviceUnavailableError(
                _KMSDRM,
                f"SDL_KMSDRM_DEVICE_INDEX={index} but there is no {root}/card{int(index)}"
                f" (cards: {found}); unset it or pick a card that exists",
            )
        names = [f"card{int(index)}"]
    if not names:
        raise DeviceUnavailableError(
            _KMSDRM,
            f"no {root}/card* (KMS is off): add dtoverlay=vc4-kms-v3d to"
            " /boot/firmware/config.txt and reboot; without a screen use mode dummy",
        )
    cards = [os.path.join(root, n) for n in names]
    usable = [c for c in cards if os.access(c, os.R_OK | os.W_OK)]
    if not usable:
        user = _user()
        raise DeviceUnavailableError(
            _KMSDRM,
            f"permission denied on {', '.join(cards)}: add {user} to groups video and render"
            f" (sudo usermod -aG video,render {user}, or SupplementaryGroups=video render"
            " input in the service), then log in again",
        )
    usable_names = [os.path.basename(c) for c in usable]
    connectors = [
        (os.path.basename(os.path.dirname(path)), _read(path))
        for n in usable_names
        for path in sorted(glob.glob(os.path.join(os.fspath(drm_sysfs), f"{n}-*", "status")))
    ]
    if connectors and all(status != "connected" for _, status in connectors):
        listed = ", ".join(name for name, _ in connectors)
        raise DeviceUnavailableError(
            _KMSDRM,
            f"no screen connected ({listed}: not connected): check the HDMI cable and that"
            " the TV is on, then start again",
        )
    screens = {name.split("-", 1)[0] for name, status in connectors if status == "connected"}
    asked = [c for c in usable if os.path.basename(c) in screens] or usable
    held = [c for c in asked if master_elsewhere(c) is True]
    if held and len(held) == len(asked):
        raise DeviceBusyError(
            _KMSDRM,
            f"busy: another program holds DRM master on {', '.join(held)} (the TV): a second"
            " partytable (the service, or a console started by hand) or a desktop; only one"
            " program can drive the screen",
        )
    return tuple(usable)


class TableDisplay(ClosesOnExit):
    """The table display: owns ``pygame.display`` and reports when each frame went out.

    ``mode``: one of :data:`MODES` (see the module docstring); ``size``: ``(width,
    height)`` pixels, default :data:`DEFAULT_SIZES` for the resolved mode (on kmsdrm the
    screen's native mode; a size asks SDL for the closest fullscreen mode, which makes the
    TV switch modes); ``clock``: the :class:`~drivers.clock.Clock` read just after each
    flip (default :class:`~drivers.clock.MonotonicClock`); ``title``: the window caption;
    ``lag_ns``: ``int`` >= 0 ns the TV takes from the vblank to showing the frame, added to
    every time :meth:`flip` and :meth:`update` return (default 0); ``dri_dir`` /
    ``drm_sysfs``: where :func:`check_kmsdrm` looks (kmsdrm only; tests point them at a
    fake tree).

    Sets ``SDL_VIDEODRIVER`` for the resolved mode before ``pygame.display.init()``
    (re-initialising the display if something else initialised it with another driver),
    on kmsdrm also ``SDL_VIDEO_DOUBLE_BUFFER=1`` and ``SDL_RENDER_DRIVER=opengles2`` (unless
    set), and restores them on :meth:`close`.  On
    kmsdrm the mode is set fullscreen with ``vsync=1`` and the cursor hidden; :attr:`vsync`
    says whether SDL took vsync (if it refuses, frames still go out, without waiting for
    the vblank, and a warning is logged).

    Raises :class:`~drivers.errors.DriverValueError` for an unknown mode, a bad size or
    ``lag_ns``, and :class:`~drivers.errors.DeviceUnavailableError` when the display cannot
    be opened; the message names the mode and the fix (no ``/dev/dri/card*``, no
    permission, no screen connected, DRM master held by another program, Mesa libraries
    missing).
    """

    def __init__(
        self,
        mode: str = "auto",
        size: tuple[int, int] | None = None,
        clock: Clock | None = None,
        title: str = "partytable",
        *,
        lag_ns: int = 0,
        dri_dir: str | os.PathLike[str] = "/dev/dri",
        drm_sysfs: str | os.PathLike[str] = "/sys/class/drm",
    ) -> None:
        self.mode = resolve_mode(mode)
        self.requested_mode = mode
        if size is not None and not _valid_size(size):
            raise DriverValueError(
                f"table display ({self.mode})",
                f"size must be (width, height) positive ints, got {size!r}",
            )
        if not is_int(lag_ns) or lag_ns < 0:
            raise DriverValueError(
                f"table display ({self.mode})",
                f"lag_ns must be an int >= 0 nanoseconds, got {lag_ns!r}",
            )
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self.title = title
        self.lag_ns = lag_ns
        self.vsync = False
        """True when SDL accepted ``vsync=1`` (kmsdrm): each flip waits for its vblank."""
        self.cards: tuple[str, ...] = ()
        """The DRM cards :func:`check_kmsdrm` found usable (kmsdrm), else empty."""
        self._dri_dir = dri_dir
        self._drm_sysfs = drm_sysfs
        self._closed = False
        self._saved_driver = os.environ.get("SDL_VIDEODRIVER")
        self._saved_double_buffer = os.environ.get("SDL_VIDEO_DOUBLE_BUFFER")
        self._saved_renderer = os.environ.get("SDL_RENDER_DRIVER")
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
        """Show the whole surface; return when it is on the TV: ``int`` CLOCK_MONOTONIC ns.

        That is ``clock.now_ns()`` read just after the flip returned (on kmsdrm with
        :attr:`vsync`: the vblank the frame went out on) plus :attr:`lag_ns`.  Raises
        :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        self._check_open()
        self._pygame.display.flip()
        return self.clock.now_ns() + self.lag_ns

    def update(self, rects: Iterable[pygame.Rect | tuple[int, int, int, int]]) -> int:
        """Show only ``rects`` (pygame ``Rect`` or ``(x, y, w, h)``); return the time as flip.

        Returns ``clock.now_ns()`` after the update plus :attr:`lag_ns` (``int``
        CLOCK_MONOTONIC ns).  On kmsdrm pygame's renderer shows the whole surface whatever
        the rects (a full flip at the vblank).  An empty ``rects`` sends nothing and
        returns ``clock.now_ns()`` without the lag (no frame went out).  Raises
        :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        self._check_open()
        boxes = [self._pygame.Rect(r) for r in rects]
        if not boxes:
            return self.clock.now_ns()
        self._pygame.display.update(boxes)
        return self.clock.now_ns() + self.lag_ns

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
        """Shut ``pygame.display`` down, restore ``SDL_VIDEODRIVER``,
        ``SDL_VIDEO_DOUBLE_BUFFER`` and ``SDL_RENDER_DRIVER``; idempotent."""
        if self._closed:
            return
        self._closed = True
        pygame = getattr(self, "_pygame", None)
        if pygame is not None:
            pygame.display.quit()
        _restore_env("SDL_VIDEODRIVER", self._saved_driver)
        _restore_env("SDL_VIDEO_DOUBLE_BUFFER", self._saved_double_buffer)
        _restore_env("SDL_RENDER_DRIVER", self._saved_renderer)

    def __repr__(self) -> str:
        """``<TableDisplay dummy 1920x1080>`` style summary."""
        if self._closed:
            return f"<TableDisplay {self.mode} closed>"
        width, height = self.size
        return f"<TableDisplay {self.mode} {width}x{height}>"

    def _open(self, size: tuple[int, int]) -> None:
        """Check kmsdrm's needs, pick the SDL driver, init the display, set the mode."""
        pygame = self._pygame
        if self.mode == "kmsdrm":
            self.cards = check_kmsdrm(self._dri_dir, self._drm_sysfs)
            os.environ["SDL_VIDEO_DOUBLE_BUFFER"] = "1"
            os.environ.setdefault("SDL_RENDER_DRIVER", "opengles2")
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
            if size == (0, 0):
                size = self._native_size()
            self._surface = self._set_vsync_mode(size)
        else:
            if self.mode == "window":
                self._flags = pygame.RESIZABLE
            self._surface = self._set_mode(size)
        pygame.display.set_caption(self.title)
        if self.mode == "kmsdrm":
            pygame.mouse.set_visible(False)

    def _native_size(self) -> tuple[int, int]:
        """The screen's current (native) mode, from SDL after init; (0, 0) if SDL has none."""
        sizes = self._pygame.display.get_desktop_sizes()
        return tuple(sizes[0]) if sizes else (0, 0)  # type: ignore[return-value]

    def _set_vsync_mode(self, size: tuple[int, int]) -> pygame.Surface:
        """Set the kmsdrm mode with ``vsync=1``; without vsync (and a warning) if SDL refuses.

        pygame-ce 2.5.8 raises ``"could not enable vsync"`` when its renderer has no
        PRESENTVSYNC, and warns ``"no fast renderer available"`` on a software renderer
        (``src_c/display.c``); both become log lines naming the fix.
        """
        display = self._pygame.display
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                surface = cast("pygame.Surface", display.set_mode(size, self._flags, vsync=1))
                self.vsync = True
            except self._pygame.error as exc:
                if "vsync" not in str(exc).lower():
                    raise self._unavailable(exc) from exc
                log.warning(
                    "%s: SDL refused vsync (%s): flips will not wait for the vblank, so"
                    " slap windows open up to a frame early; check Mesa (libgles2) and"
                    " dtoverlay=vc4-kms-v3d",
                    _KMSDRM,
                    exc,
                )
                surface = self._set_mode(size)
        for warning in caught:
            log.warning(
                "%s: %s: SDL draws in software (slow frames); install Mesa (libegl1,"
                " libgles2) and enable dtoverlay=vc4-kms-v3d",
                _KMSDRM,
                warning.message,
            )
        return surface

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
        if self.mode == "kmsdrm":
            fix = self._kmsdrm_fix(str(exc))
        text = " ".join(str(exc).split())
        return DeviceUnavailableError(
            f"table display ({self.mode})", f"cannot open ({text}); {fix}"
        )

    def _kmsdrm_fix(self, sdl_error: str) -> str:
        """What to do when SDL refused kmsdrm although :func:`check_kmsdrm` passed."""
        if not getattr(self._pygame, "IS_CE", False):
            return "classic pygame's SDL has no KMSDRM driver: install pygame-ce instead"
        missing = [
            pkg for lib, pkg in KMSDRM_LIBRARIES.items() if not ctypes.util.find_library(lib)
        ]
        if missing:
            return (
                f"SDL's KMSDRM driver needs {', '.join(missing)}: sudo apt install"
                f" {' '.join(missing)}"
            )
        if "not available" in sdl_error:
            cards = ", ".join(self.cards) or "the DRM card"
            return (
                f"another program holds DRM master on {cards}: a desktop (boot to the console:"
                " sudo raspi-config nonint do_boot_behaviour B1, or stop its display manager)"
                " or a second partytable; only one program can drive the screen"
            )
        return _FIXES["kmsdrm"]

    def _check_open(self) -> None:
        """Raise :class:`~drivers.errors.DriverClosedError` after :meth:`close`."""
        if self._closed:
            raise DriverClosedError(f"table display ({self.mode})", "used after close()")


def _listdir(path: str) -> list[str]:
    """The names in directory ``path``; empty when it is missing or unreadable."""
    try:
        return os.listdir(path)
    except OSError:
        return []


def _read(path: str) -> str:
    """A sysfs attribute's text, stripped; ``""`` when it cannot be read."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return ""


def _user() -> str:
    """The name of the user this process runs as (for the group fix), or ``$USER``."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return os.environ.get("USER", "the service user")


def _restore_env(name: str, value: str | None) -> None:
    """Set environment variable ``name`` back to ``value`` (``None``: unset it)."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _valid_size(size: object) -> bool:
    """True for a ``(width, height)`` pair of positive ints."""
    return (
        isinstance(size, tuple)
        and len(size) == 2
        and all(is_int(v) and v > 0 for v in size)
    )

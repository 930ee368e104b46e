"""The table display on SDL's dummy video driver: modes, flip times, resize, errors."""

from __future__ import annotations

import ctypes.util
import errno
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygame
import pytest

from drivers.clock import FakeClock
from drivers.errors import (
    DeviceBusyError,
    DeviceUnavailableError,
    DriverClosedError,
    DriverValueError,
)
from drivers.table_display import (
    DEFAULT_SIZES,
    TableDisplay,
    check_kmsdrm,
    drm_master_elsewhere,
    resolve_mode,
)


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at 1 s."""
    return FakeClock(start_ns=1_000_000_000)


@dataclass
class DrmTree:
    """A fake ``/dev/dri`` and ``/sys/class/drm``: a Pi 4/5 with card0 (v3d, render only)
    and card1 (vc4: HDMI-A-1 connected, HDMI-A-2 not)."""

    root: Path
    dri: Path = field(init=False)
    sysfs: Path = field(init=False)

    def __post_init__(self) -> None:
        self.dri = self.root / "dev" / "dri"
        self.sysfs = self.root / "sys" / "class" / "drm"
        self.dri.mkdir(parents=True)
        for name in ("card0", "card1", "renderD128"):
            (self.dri / name).touch()
        self.connector("card1-HDMI-A-1", "connected")
        self.connector("card1-HDMI-A-2", "disconnected")

    def connector(self, name: str, status: str) -> None:
        """Add or change connector ``name``'s status file."""
        (self.sysfs / name).mkdir(parents=True, exist_ok=True)
        (self.sysfs / name / "status").write_text(status + "\n")

    def open(self, clock: FakeClock, **kwargs: Any) -> TableDisplay:
        """TableDisplay('kmsdrm') looking at this tree."""
        return TableDisplay("kmsdrm", clock=clock, dri_dir=self.dri, drm_sysfs=self.sysfs, **kwargs)


@pytest.fixture
def drm_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DrmTree:
    """A fake DRM tree (see :class:`DrmTree`); SDL_KMSDRM_DEVICE_INDEX unset."""
    monkeypatch.delenv("SDL_KMSDRM_DEVICE_INDEX", raising=False)
    return DrmTree(tmp_path)


@dataclass
class SdlSpy:
    """What the kmsdrm path asked of SDL: the environment at init and at set_mode, and
    every set_mode call as (size, flags, vsync)."""

    env_at_init: dict[str, str | None] = field(default_factory=dict)
    env_at_set_mode: dict[str, str | None] = field(default_factory=dict)
    set_mode: list[tuple[tuple[int, int], int, int]] = field(default_factory=list)
    refuse_vsync: bool = False


SDL_VARS = ("SDL_VIDEODRIVER", "SDL_VIDEO_DOUBLE_BUFFER", "SDL_RENDER_DRIVER")


@pytest.fixture
def kms_on_dummy(monkeypatch: pytest.MonkeyPatch, drm_tree: DrmTree) -> SdlSpy:
    """Run the kmsdrm path on SDL's dummy driver: init records the environment kmsdrm set
    up, then initialises SDL with the dummy driver; set_mode records its arguments."""
    spy = SdlSpy()
    real_init, real_set_mode = pygame.display.init, pygame.display.set_mode

    def init() -> None:
        spy.env_at_init = {k: os.environ.get(k) for k in SDL_VARS}
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        try:
            real_init()
        finally:
            os.environ["SDL_VIDEODRIVER"] = spy.env_at_init["SDL_VIDEODRIVER"] or ""

    def set_mode(
        size: Any = (0, 0), flags: int = 0, depth: int = 0, display: int = 0, vsync: int = 0
    ) -> pygame.Surface:
        spy.env_at_set_mode = {k: os.environ.get(k) for k in SDL_VARS}
        spy.set_mode.append((tuple(size), flags, vsync))
        if vsync and spy.refuse_vsync:
            raise pygame.error("could not enable vsync")
        return real_set_mode(size, flags, depth, display, vsync)

    monkeypatch.setattr(pygame.display, "init", init)
    monkeypatch.setattr(pygame.display, "set_mode", set_mode)
    monkeypatch.delenv("SDL_VIDEO_DOUBLE_BUFFER", raising=False)
    monkeypatch.delenv("SDL_RENDER_DRIVER", raising=False)
    return spy


@pytest.fixture
def display(clock: FakeClock) -> Iterator[TableDisplay]:
    """A dummy-driver table display at 640x360 on the fake clock, closed afterwards."""
    with TableDisplay("dummy", (640, 360), clock=clock) as table:
        yield table


def test_dummy_mode_opens_the_sdl_dummy_driver(display: TableDisplay) -> None:
    """mode dummy uses SDL's dummy driver and the asked size."""
    assert display.mode == "dummy"
    assert display.driver == "dummy"
    assert display.size == (640, 360)
    assert display.surface.get_size() == (640, 360)
    assert repr(display) == "<TableDisplay dummy 640x360>"


def test_dummy_default_size_is_the_logical_frame(clock: FakeClock) -> None:
    """Without a size, dummy renders the 1920x1080 logical frame."""
    with TableDisplay("dummy", clock=clock) as table:
        assert table.size == DEFAULT_SIZES["dummy"] == (1920, 1080)


def test_flip_and_update_return_the_clock_after_the_frame(
    display: TableDisplay, clock: FakeClock
) -> None:
    """flip() and update() return the clock's ns read after the frame went out."""
    display.surface.fill((200, 30, 30))
    assert display.flip() == 1_000_000_000
    clock.advance(16_000_000)
    assert display.update([pygame.Rect(0, 0, 10, 10), (20, 20, 5, 5)]) == 1_016_000_000
    clock.advance(1)
    assert display.update([]) == 1_016_000_001
    assert display.surface.get_at((0, 0))[:3] == (200, 30, 30)


def test_resized_follows_a_new_window_size(display: TableDisplay) -> None:
    """resized(size) gives a surface of the new size; resized() keeps the current one."""
    surface = display.resized((800, 450))
    assert surface.get_size() == (800, 450)
    assert display.surface is surface
    assert display.resized().get_size() == (800, 450)
    with pytest.raises(DriverValueError, match=r"size must be \(width, height\)"):
        display.resized((0, 450))


def test_close_is_idempotent_and_restores_sdl_videodriver(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """close() twice is fine, restores SDL_VIDEODRIVER, and a closed display refuses flips."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")
    table = TableDisplay("dummy", (320, 200), clock=clock)
    assert os.environ["SDL_VIDEODRIVER"] == "dummy"
    table.close()
    table.close()
    assert os.environ["SDL_VIDEODRIVER"] == "offscreen"
    assert not pygame.display.get_init()
    assert repr(table) == "<TableDisplay dummy closed>"
    with pytest.raises(DriverClosedError, match=r"^table display \(dummy\): used after close"):
        table.flip()


def test_reopens_when_pygame_was_initialised_with_another_driver(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A display someone initialised with another driver is re-initialised with ours."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")
    pygame.display.init()
    assert pygame.display.get_driver() == "offscreen"
    with TableDisplay("dummy", (100, 100), clock=clock) as table:
        assert table.driver == "dummy"


def test_open_failure_names_the_mode_and_the_fix(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch, drm_tree: DrmTree
) -> None:
    """SDL refusing kmsdrm for another reason is one line: mode, SDL's words, the fix."""

    def refuse() -> None:
        raise pygame.error("Could not create GBM surface")

    monkeypatch.setattr(pygame.display, "init", refuse)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: f"lib{name}.so")
    saved = os.environ.get("SDL_VIDEODRIVER")
    with pytest.raises(DeviceUnavailableError) as info:
        drm_tree.open(clock)
    text = str(info.value)
    assert text.startswith("table display (kmsdrm): cannot open (Could not create GBM surface); ")
    assert "groups video, render and input" in text
    assert "\n" not in text
    assert os.environ.get("SDL_VIDEODRIVER") == saved


def test_window_failure_says_a_desktop_is_needed(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window SDL cannot open points to a desktop session, kmsdrm and dummy."""

    def refuse(*args: Any) -> None:
        raise pygame.error("No available video device")

    monkeypatch.setattr(pygame.display, "get_driver", lambda: "x11")
    monkeypatch.setattr(pygame.display, "set_mode", refuse)
    with pytest.raises(DeviceUnavailableError) as info:
        TableDisplay("window", (320, 200), clock=clock)
    assert str(info.value) == (
        "table display (window): cannot open (No available video device); a window needs a"
        " desktop session (DISPLAY or WAYLAND_DISPLAY); on a Pi console use mode kmsdrm,"
        " without a screen use mode dummy"
    )
    assert not pygame.display.get_init()


def test_window_mode_refuses_a_headless_sdl_driver(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If SDL picks offscreen for a 'window' (no desktop), that is an error, not a fallback."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "offscreen")
    with pytest.raises(DeviceUnavailableError) as info:
        TableDisplay("window", (320, 200), clock=clock)
    assert str(info.value).startswith(
        "table display (window): cannot open (SDL found no desktop and chose 'offscreen'); "
        "a window needs a desktop session"
    )
    assert not pygame.display.get_init()
    assert os.environ["SDL_VIDEODRIVER"] == "dummy"


@pytest.mark.parametrize("mode", ["fullscreen", "KMSDRM", ""])
def test_unknown_mode_is_refused(mode: str) -> None:
    """An unknown mode word is a DriverValueError listing the modes."""
    with pytest.raises(DriverValueError) as info:
        TableDisplay(mode)
    assert str(info.value) == (
        f"table display: unknown mode {mode!r} (modes: auto, kmsdrm, window, dummy)"
    )


@pytest.mark.parametrize("size", [(0, 100), (100,), (1.5, 2), "1920x1080"])
def test_bad_size_is_refused(size: Any) -> None:
    """A size that is not two positive ints is refused before SDL is touched."""
    with pytest.raises(DriverValueError, match=r"^table display \(dummy\): size must be"):
        TableDisplay("dummy", size)


@pytest.mark.parametrize(
    ("environ", "has_drm", "expected"),
    [
        ({"DISPLAY": ":0"}, True, "window"),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False, "window"),
        ({}, True, "kmsdrm"),
        ({}, False, "dummy"),
        ({"SDL_VIDEODRIVER": "dummy", "DISPLAY": ":0"}, True, "dummy"),
        ({"SDL_VIDEODRIVER": "KMSDRM"}, False, "kmsdrm"),
        ({"SDL_VIDEODRIVER": "x11"}, False, "window"),
        ({"DISPLAY": ""}, False, "dummy"),
    ],
)
def test_auto_mode_choice(environ: dict[str, str], has_drm: bool, expected: str) -> None:
    """auto: SDL_VIDEODRIVER, then a desktop session, then a DRM card, else dummy."""
    assert resolve_mode("auto", environ, has_drm=has_drm) == expected


def test_explicit_modes_ignore_the_environment() -> None:
    """A named mode is used as is."""
    assert resolve_mode("kmsdrm", {"DISPLAY": ":0"}, has_drm=False) == "kmsdrm"
    assert resolve_mode("window", {}, has_drm=False) == "window"


def test_importing_drivers_does_not_import_pygame() -> None:
    """`import drivers` imports neither pygame nor luma.oled and starts no thread."""
    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys, threading, drivers; "
        "print('pygame' in sys.modules, 'luma.oled' in sys.modules, threading.active_count())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False", "1"]


# --- the TV's lag ----------------------------------------------------------------------


def test_lag_is_added_to_every_frame_time(clock: FakeClock) -> None:
    """flip() and update(rects) return the clock plus lag_ns; an empty update adds none."""
    with TableDisplay("dummy", (320, 200), clock=clock, lag_ns=23_000_000) as table:
        assert table.flip() == 1_023_000_000
        clock.advance(16_666_667)
        assert table.update([(0, 0, 5, 5)]) == 1_039_666_667
        assert table.update([]) == 1_016_666_667


@pytest.mark.parametrize("lag", [-1, 1.5, True, "5"])
def test_a_bad_lag_is_refused(clock: FakeClock, lag: Any) -> None:
    """lag_ns must be an int >= 0 ns; refused before SDL is touched."""
    with pytest.raises(DriverValueError) as info:
        TableDisplay("dummy", (320, 200), clock=clock, lag_ns=lag)
    assert str(info.value) == (
        f"table display (dummy): lag_ns must be an int >= 0 nanoseconds, got {lag!r}"
    )


# --- kmsdrm on SDL's dummy driver -------------------------------------------------------


def test_kmsdrm_double_buffers_waits_for_vsync_fullscreen_native_cursor_hidden(
    clock: FakeClock, kms_on_dummy: SdlSpy, drm_tree: DrmTree
) -> None:
    """Before init: SDL_VIDEODRIVER=kmsdrm, SDL_VIDEO_DOUBLE_BUFFER=1 and the GLES2 renderer
    (SDL's desktop-GL renderer on the GLES context KMSDRM falls back to without libGL draws
    nothing but black); then one fullscreen set_mode at the native size with vsync=1; the
    cursor is hidden."""
    pygame.display.init()
    native = tuple(pygame.display.get_desktop_sizes()[0])
    pygame.display.quit()
    with drm_tree.open(clock, lag_ns=5_000_000) as table:
        assert kms_on_dummy.env_at_init == {
            "SDL_VIDEODRIVER": "kmsdrm",
            "SDL_VIDEO_DOUBLE_BUFFER": "1",
            "SDL_RENDER_DRIVER": "opengles2",
        }
        assert kms_on_dummy.env_at_set_mode["SDL_VIDEO_DOUBLE_BUFFER"] == "1"
        ((size, flags, vsync),) = kms_on_dummy.set_mode
        assert (size, vsync) == (native, 1)
        assert flags & pygame.FULLSCREEN
        assert table.size == native
        assert table.vsync
        assert not pygame.mouse.get_visible()
        assert table.cards == (str(drm_tree.dri / "card0"), str(drm_tree.dri / "card1"))
        assert table.flip() == clock.now_ns() + 5_000_000
    assert "SDL_VIDEO_DOUBLE_BUFFER" not in os.environ
    assert "SDL_RENDER_DRIVER" not in os.environ


def test_other_modes_leave_double_buffer_vsync_and_cursor_alone(clock: FakeClock) -> None:
    """The dummy mode sets no SDL_VIDEO_DOUBLE_BUFFER or renderer and keeps the cursor
    visible."""
    with TableDisplay("dummy", (320, 200), clock=clock) as table:
        assert "SDL_VIDEO_DOUBLE_BUFFER" not in os.environ
        assert "SDL_RENDER_DRIVER" not in os.environ
        assert pygame.mouse.get_visible()
        assert not table.vsync


def test_kmsdrm_close_restores_the_double_buffer_setting(
    clock: FakeClock, kms_on_dummy: SdlSpy, drm_tree: DrmTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SDL_VIDEO_DOUBLE_BUFFER set before is put back by close()."""
    monkeypatch.setenv("SDL_VIDEO_DOUBLE_BUFFER", "0")
    table = drm_tree.open(clock)
    assert os.environ["SDL_VIDEO_DOUBLE_BUFFER"] == "1"
    table.close()
    assert os.environ["SDL_VIDEO_DOUBLE_BUFFER"] == "0"


def test_kmsdrm_without_vsync_still_opens_and_says_so(
    clock: FakeClock,
    kms_on_dummy: SdlSpy,
    drm_tree: DrmTree,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """SDL refusing vsync: the mode is set without it, vsync is False, one warning line."""
    kms_on_dummy.refuse_vsync = True
    with caplog.at_level(logging.WARNING, logger="drivers.table_display"):
        table = drm_tree.open(clock)
    with table:
        assert [call[2] for call in kms_on_dummy.set_mode] == [1, 0]
        assert not table.vsync
        assert table.flip() == clock.now_ns()
    (record,) = [r for r in caplog.records if "vsync" in r.getMessage()]
    assert "flips will not wait for the vblank" in record.getMessage()


def test_kmsdrm_without_a_dri_card_says_kms_is_off(
    clock: FakeClock, kms_on_dummy: SdlSpy, tmp_path: Path
) -> None:
    """No /dev/dri/card*: one line with the overlay to enable; SDL is never asked."""
    empty = tmp_path / "dri"
    empty.mkdir()
    (empty / "renderD128").touch()
    with pytest.raises(DeviceUnavailableError) as info:
        TableDisplay("kmsdrm", clock=clock, dri_dir=empty, drm_sysfs=tmp_path)
    assert str(info.value) == (
        f"table display (kmsdrm): no {empty}/card* (KMS is off): add dtoverlay=vc4-kms-v3d"
        " to /boot/firmware/config.txt and reboot; without a screen use mode dummy"
    )
    assert kms_on_dummy.env_at_init == {}
    with pytest.raises(DeviceUnavailableError, match=r"no /nonexistent/dri/card\*"):
        check_kmsdrm("/nonexistent/dri", tmp_path, {})


def test_kmsdrm_without_permission_names_the_groups(
    clock: FakeClock, kms_on_dummy: SdlSpy, drm_tree: DrmTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cards the user may not open: one line naming them, the groups and the command."""
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(DeviceUnavailableError) as info:
        drm_tree.open(clock)
    text = str(info.value)
    cards = f"{drm_tree.dri}/card0, {drm_tree.dri}/card1"
    assert text.startswith(f"table display (kmsdrm): permission denied on {cards}: add ")
    assert "to groups video and render (sudo usermod -aG video,render " in text
    assert kms_on_dummy.env_at_init == {}


def test_kmsdrm_with_no_screen_connected_says_check_the_cable(
    clock: FakeClock, kms_on_dummy: SdlSpy, drm_tree: DrmTree
) -> None:
    """Every connector of the usable cards disconnected: one line about the HDMI cable."""
    drm_tree.connector("card1-HDMI-A-1", "disconnected")
    with pytest.raises(DeviceUnavailableError) as info:
        drm_tree.open(clock)
    assert str(info.value) == (
        "table display (kmsdrm): no screen connected (card1-HDMI-A-1, card1-HDMI-A-2: not"
        " connected): check the HDMI cable and that the TV is on, then start again"
    )
    drm_tree.connector("card1-HDMI-A-2", "connected")
    assert check_kmsdrm(drm_tree.dri, drm_tree.sysfs, {}) == (
        str(drm_tree.dri / "card0"),
        str(drm_tree.dri / "card1"),
    )


@pytest.mark.parametrize(
    ("index", "outcome"),
    [
        ("1", "card1"),
        ("3", "SDL_KMSDRM_DEVICE_INDEX=3 but there is no {dri}/card3 (cards: card0, card1)"),
        ("one", "SDL_KMSDRM_DEVICE_INDEX must be a card number, got 'one'"),
    ],
)
def test_kmsdrm_device_index_picks_the_card(drm_tree: DrmTree, index: str, outcome: str) -> None:
    """SDL_KMSDRM_DEVICE_INDEX narrows the check to that card, which must exist."""
    environ = {"SDL_KMSDRM_DEVICE_INDEX": index}
    if outcome == "card1":
        assert check_kmsdrm(drm_tree.dri, drm_tree.sysfs, environ) == (str(drm_tree.dri / "card1"),)
        return
    with pytest.raises((DeviceUnavailableError, DriverValueError)) as info:
        check_kmsdrm(drm_tree.dri, drm_tree.sysfs, environ)
    assert str(info.value).startswith("table display (kmsdrm): " + outcome.format(dri=drm_tree.dri))


def test_kmsdrm_busy_drm_master_is_named(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch, drm_tree: DrmTree
) -> None:
    """SDL's "kmsdrm not available" with usable cards and libraries: DRM master is taken."""

    def refuse() -> None:
        raise pygame.error("kmsdrm not available")

    monkeypatch.setattr(pygame.display, "init", refuse)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: f"lib{name}.so")
    with pytest.raises(DeviceUnavailableError) as info:
        drm_tree.open(clock)
    assert str(info.value) == (
        "table display (kmsdrm): cannot open (kmsdrm not available); another program holds"
        f" DRM master on {drm_tree.dri}/card0, {drm_tree.dri}/card1: a desktop (boot to the"
        " console: sudo raspi-config nonint do_boot_behaviour B1, or stop its display"
        " manager) or a second partytable; only one program can drive the screen"
    )


def test_kmsdrm_without_mesa_names_the_packages(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch, drm_tree: DrmTree
) -> None:
    """SDL refusing kmsdrm while libgbm/libGLESv2 are missing: the apt line to install."""

    def refuse() -> None:
        raise pygame.error("kmsdrm not available")

    present = {"drm", "EGL"}
    monkeypatch.setattr(pygame.display, "init", refuse)
    monkeypatch.setattr(
        ctypes.util, "find_library", lambda name: f"lib{name}.so" if name in present else None
    )
    with pytest.raises(DeviceUnavailableError) as info:
        drm_tree.open(clock)
    assert str(info.value) == (
        "table display (kmsdrm): cannot open (kmsdrm not available); SDL's KMSDRM driver"
        " needs libgbm1, libgles2: sudo apt install libgbm1 libgles2"
    )


def test_kmsdrm_drm_master_held_elsewhere_is_busy(drm_tree: DrmTree) -> None:
    """Another program is DRM master of the card with the screen (card1): a busy error,
    before SDL is asked; the render-only card0 is not asked, and a free card1 passes."""
    asked: list[str] = []

    def held(card: str) -> bool:
        asked.append(os.path.basename(card))
        return True

    with pytest.raises(DeviceBusyError) as info:
        check_kmsdrm(drm_tree.dri, drm_tree.sysfs, {}, master_elsewhere=held)
    assert str(info.value) == (
        f"table display (kmsdrm): busy: another program holds DRM master on {drm_tree.dri}/"
        "card1 (the TV): a second partytable (the service, or a console started by hand) or"
        " a desktop; only one program can drive the screen"
    )
    assert asked == ["card1"]
    for answer in (False, None):  # free, or cannot be told: SDL is asked as before
        assert check_kmsdrm(drm_tree.dri, drm_tree.sysfs, {},
                            master_elsewhere=lambda card, a=answer: a) == (
            str(drm_tree.dri / "card0"), str(drm_tree.dri / "card1"))


@pytest.mark.parametrize(("error", "answer"), [
    (errno.EACCES, True), (errno.EINVAL, False), (errno.ENOTTY, None)])
def test_drm_master_is_asked_as_libdrm_asks_it(
    tmp_path: Path, error: int, answer: bool | None
) -> None:
    """DRM_IOCTL_AUTH_MAGIC with token 0: EACCES is "not master" (someone else is, since a
    fresh file would be), EINVAL "master" (free); anything else cannot be told.  The file
    is closed again."""
    card = tmp_path / "card1"
    card.write_text("")
    calls: list[tuple[int, bytes]] = []

    def ioctl(fd: int, request: int, arg: bytes) -> object:
        calls.append((request, arg))
        raise OSError(error, os.strerror(error))

    before = len(os.listdir("/proc/self/fd"))
    assert drm_master_elsewhere(str(card), ioctl=ioctl) is answer
    assert calls == [(0x40046411, b"\0\0\0\0")]
    assert len(os.listdir("/proc/self/fd")) == before
    assert drm_master_elsewhere(str(tmp_path / "card9"), ioctl=ioctl) is None

"""The table display on SDL's dummy video driver: modes, flip times, resize, errors."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from drivers.clock import FakeClock
from drivers.errors import DeviceUnavailableError, DriverClosedError, DriverValueError
from drivers.table_display import DEFAULT_SIZES, TableDisplay, resolve_mode


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at 1 s."""
    return FakeClock(start_ns=1_000_000_000)


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
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SDL refusing kmsdrm is one line naming the mode, SDL's words and the fix."""

    def refuse() -> None:
        raise pygame.error("kmsdrm not available")

    monkeypatch.setattr(pygame.display, "init", refuse)
    saved = os.environ.get("SDL_VIDEODRIVER")
    with pytest.raises(DeviceUnavailableError) as info:
        TableDisplay("kmsdrm", clock=clock)
    text = str(info.value)
    assert text.startswith("table display (kmsdrm): cannot open (kmsdrm not available); ")
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

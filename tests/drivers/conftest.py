"""Fixtures for the driver tests: a gpiozero MockFactory that is always restored.

SDL is pointed at its dummy drivers before anything here can initialise pygame's display.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device  # type: ignore[import-untyped]

from drivers.gpio import mock_pin_factory

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture
def pin_factory() -> Iterator[Any]:
    """A fresh MockFactory of EdgeMockPins set as gpiozero's default; the old one restored."""
    saved = Device.pin_factory
    factory = mock_pin_factory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def events() -> list[object]:
    """A list to use as the drivers' ``post`` callable (``events.append``)."""
    return []

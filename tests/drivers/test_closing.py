"""ClosesOnExit: the drivers' one context-manager mixin for close()."""

from __future__ import annotations

import doctest

import pytest

import drivers.closing
from drivers.closing import ClosesOnExit


class _Counted(ClosesOnExit):
    """A driver stand-in that counts its close() calls."""

    def __init__(self) -> None:
        self.closes = 0

    def close(self) -> None:
        """Count the call."""
        self.closes += 1


def test_docstring_example_holds() -> None:
    """The module's doctest example gives the output shown."""
    assert doctest.testmod(drivers.closing).failed == 0


def test_with_returns_the_driver_and_closes_it_once() -> None:
    """`with d as x` binds d itself and calls d.close() once on the way out."""
    driver = _Counted()
    with driver as bound:
        assert bound is driver
        assert driver.closes == 0
    assert driver.closes == 1


def test_an_error_in_the_block_still_closes_and_propagates() -> None:
    """An exception in the with block closes the driver and is not swallowed."""
    driver = _Counted()
    with pytest.raises(KeyError), driver:
        raise KeyError("boom")
    assert driver.closes == 1


def test_a_class_without_close_cannot_be_built() -> None:
    """A subclass that forgets close() is refused at construction (abstract method)."""

    class NoClose(ClosesOnExit):
        """No close()."""

    with pytest.raises(TypeError):
        NoClose()  # type: ignore[abstract]

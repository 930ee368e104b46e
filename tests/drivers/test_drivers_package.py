"""The drivers package: its public names, its docstring examples, its layer boundary."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

import drivers

MODULES = [
    "drivers",
    "drivers.clock",
    "drivers.errors",
    "drivers.gpio",
    "drivers.slap",
    "drivers.keys",
    "drivers.frames",
    "drivers.hand_display",
    "drivers.i2c_writer",
    "drivers.pin_factory",
    "drivers.table_display",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    """Every doctest example in the drivers' docstrings gives the output shown."""
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_public_names_resolve() -> None:
    """Every name in drivers.__all__ exists."""
    missing = [name for name in drivers.__all__ if not hasattr(drivers, name)]
    assert missing == []


def test_drivers_import_nothing_from_engine_or_device() -> None:
    """No module in drivers/ imports engine or device (docs/architecture.md, layers)."""
    root = Path(drivers.__file__).parent
    offenders = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] in ("engine", "device")
            ]
    assert offenders == []


def test_errors_share_one_root() -> None:
    """Every driver error class derives from DriverError and one builtin."""
    leaves = [
        drivers.DeviceUnavailableError,
        drivers.DriverValueError,
        drivers.NotWiredError,
        drivers.DriverClosedError,
    ]
    bases = [OSError, ValueError, LookupError, RuntimeError]
    assert all(issubclass(c, drivers.DriverError) for c in leaves)
    assert all(issubclass(c, b) for c, b in zip(leaves, bases, strict=True))
    err = drivers.DeviceUnavailableError("OLED ssd1306 at i2c-4 0x3C", "not found", seat=3)
    assert str(err) == "seat 4 OLED ssd1306 at i2c-4 0x3C: not found"

"""The config schema (``device/config/schema.py``): every key of every table is read by the
generic reader (``device/config/table_reader.py``) from one description, and the overview of
``device/config/loader.py`` names each of them."""

from __future__ import annotations

from dataclasses import MISSING, fields

import pytest

import device.config.loader
from device.config.schema import (
    DisplayConfig,
    GpioConfig,
    I2cGpioBus,
    I2cMux,
    Keys,
    PathsConfig,
    SeatConfig,
    SerialHandheld,
    SoundConfig,
    WiredHandheld,
)
from device.config.table_reader import KeySpec, Reading, read_table, toml_names

TABLES = (DisplayConfig, GpioConfig, I2cGpioBus, I2cMux, PathsConfig, SoundConfig, Keys,
          WiredHandheld, SerialHandheld, SeatConfig)
"""Every table class the generic reader reads."""


def specs(cls: type) -> list[tuple[str, KeySpec, object]]:
    """``(field, spec, default)`` of every described key of ``cls``, a variant's own."""
    out = []
    for f in fields(cls):
        spec = f.metadata.get("toml")
        if isinstance(spec, KeySpec):
            for one in (spec.variants or {None: spec}).values():
                default = one.default if one.default is not MISSING else f.default
                out.append((f.name, one, default))
    return out


@pytest.mark.parametrize("cls", TABLES, ids=lambda c: c.__name__)
def test_every_key_has_a_check_and_a_default_or_a_missing_line(cls: type) -> None:
    """Each described key has its check, and either a default or its ``missing`` line: a
    key left out is never a crash."""
    assert specs(cls)
    for name, spec, default in specs(cls):
        assert spec.read is not None, name
        assert default is not MISSING or spec.missing is not None, name
        if spec.missing is not None:
            assert spec.missing.startswith("missing"), name


@pytest.mark.parametrize("cls", TABLES, ids=lambda c: c.__name__)
def test_the_overview_names_every_key(cls: type) -> None:
    """``device.config.loader``'s schema overview names every TOML key."""
    doc = device.config.loader.__doc__ or ""
    names = {*toml_names(cls), *toml_names(cls, "i2c"), *toml_names(cls, "spi")}
    assert names
    for name in names:
        assert name in doc, name


def test_a_table_of_defaults_reads_as_the_dataclass_defaults() -> None:
    """An empty table is each default; a wrong type is one line naming the key."""
    r = Reading()
    assert read_table(r, GpioConfig, "gpio", {}) == GpioConfig()
    assert read_table(r, DisplayConfig, "display", {"lag_ms": 10**400}) is None
    assert r.problems == ["display.lag_ms: a 401-digit number of ms is absurd for a TV "
                          "(most lag 10-150 ms; at most 500)"]

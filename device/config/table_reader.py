"""The config file's generic reader: one walk over a dataclass's fields, each field's TOML
key described once in its metadata (a :class:`KeySpec`: how the value is checked, its
default, its unit and doc), and the leaf checks the specs are made of.

The types are ``device.config.schema``; the checks across keys are
``device.config.checks``; the reading API is ``device.config.loader`` (docs/architecture.md
"Configuration"; docs/style.md "Config").

Every problem is one line ``key: message`` (:class:`Problems`), the key the full path
(``seat[3].handheld.keys.back``), control characters escaped (:func:`printable`), a value
shown short (:func:`shown`): a huge int, a long text or a table never makes a long line,
a wrong type never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, fields
from typing import Any, NamedTuple, TypeVar

from drivers.values import is_int

__all__ = [
    "FIRST_PIN",
    "ID_EEPROM_PINS",
    "LAST_PIN",
    "KeySpec",
    "PinUse",
    "Problems",
    "Reader",
    "Reading",
    "bcm_pin",
    "check_pin",
    "choice",
    "flag",
    "number",
    "one_of",
    "printable",
    "read_field",
    "read_table",
    "short",
    "shown",
    "table",
    "table_of",
    "toml_names",
    "unknown",
    "variant_hints",
]

ID_EEPROM_PINS = (0, 1)
"""BCM 0/1: the HAT ID EEPROM's ID_SD/ID_SC, reserved (docs/hardware-facts.md "Pin budget")."""

FIRST_PIN, LAST_PIN = 2, 27
"""The BCM lines a seat may use: 2..27 on the header."""

T = TypeVar("T")


def printable(text: str) -> str:
    """``text`` with every control or other unprintable character written as Python
    escapes it (``\\n``, ``\\x1b``, ``\\ufeff``): a file name or key with a newline in it
    stays on its line.  Idempotent (a backslash is printable)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Problems(list[str]):
    """The problems found so far, one line each."""

    def add(self, key: str, message: str) -> None:
        """Record ``key: message``, control characters escaped (a key written with a
        newline in it must not look like a second problem)."""
        self.append(printable(f"{key}: {message}"))


class PinUse(NamedTuple):
    """A pin as the config names it (for the cross-checks): its ``key`` path, BCM ``pin``
    and ``function`` (``"slap button"``, ``"key left"``, ``"OLED DC"``)."""

    key: str
    pin: int
    function: str


class Reading:
    """One pass over a config file: the ``problems`` (stop the console), the ``warnings``
    (do not: ``Config.warnings``) and the pins named so far (``uses``, for the
    cross-checks; a seat's reader takes its own)."""

    __slots__ = ("problems", "uses", "warnings")

    def __init__(self) -> None:
        self.problems = Problems()
        self.warnings: list[str] = []
        self.uses: list[PinUse] = []


Reader = Callable[[Reading, str, Any, Mapping[str, Any]], Any]
"""A key's check: ``(reading, key path, raw TOML value, the values of the table read so
far) -> value``, or ``None`` after adding at least one problem to ``reading.problems``."""


class KeySpec:
    """How one TOML key is read, kept in its dataclass field's ``metadata["toml"]``.

    ``read``: the check (a :data:`Reader`); ``missing``: ``None`` when the key may be left
    out (the field's default is used), else the problem's text when it is (``"missing
    (...)"``); ``doc``/``unit``: what the value is and its unit (``"ms"``, ``"kHz"``, ``"BCM"``);
    ``name``: the TOML key (default: the field's name); ``variants``: for a key whose
    check or default depends on a discriminating key (a wired handheld's ``bus``), the
    spec per value; a variant it lacks does not know the key.  ``soft``: a bad value is a
    warning and the default (``using the default <key> <default>``), never a problem.
    ``default``: overrides the field's default (for a variant).
    """

    __slots__ = ("default", "doc", "missing", "name", "read", "soft", "unit", "variants")

    def __init__(self, read: Reader | None = None, *, missing: str | None = None,
                 doc: str = "", unit: str = "", name: str | None = None,
                 variants: Mapping[str, KeySpec] | None = None, soft: bool = False,
                 default: object = MISSING) -> None:
        self.read = read
        self.missing = missing
        self.doc = doc
        self.unit = unit
        self.name = name
        self.variants = variants
        self.soft = soft
        self.default = default

    def meta(self) -> dict[str, KeySpec]:
        """The field metadata that carries it: ``{"toml": self}``."""
        return {"toml": self}


class _Key(NamedTuple):
    """A field of a table class as the reader uses it for one variant: dataclass field
    ``attr``, TOML key ``name``, its spec and its default (``MISSING``: none)."""

    attr: str
    name: str
    spec: KeySpec
    default: object


_KEYS: dict[tuple[type, str | None], tuple[list[_Key], list[str]]] = {}
"""Per (class, variant): its keys in field order and the TOML names it knows."""


def _keys(cls: type, variant: str | None) -> tuple[list[_Key], list[str]]:
    """The keys of table class ``cls`` for ``variant`` (cached), and their names."""
    cached = _KEYS.get((cls, variant))
    if cached is not None:
        return cached
    keys: list[_Key] = []
    for f in fields(cls):
        spec = f.metadata.get("toml")
        if not isinstance(spec, KeySpec):
            continue
        name = spec.name or f.name
        if spec.variants is not None:
            if variant is None or variant not in spec.variants:
                continue
            spec = spec.variants[variant]
        default = spec.default if spec.default is not MISSING else f.default
        keys.append(_Key(f.name, spec.name or name, spec, default))
    names = [k.name for k in keys]
    _KEYS[(cls, variant)] = keys, names
    return keys, names


def toml_names(cls: type, variant: str | None = None) -> list[str]:
    """The TOML keys table class ``cls`` knows (for ``variant``), in field order."""
    return _keys(cls, variant)[1]


_HINTS: dict[tuple[type, str], dict[str, dict[str, str]]] = {}
""":func:`variant_hints` per (class, discriminating key)."""


def variant_hints(cls: type, by: str) -> dict[str, dict[str, str]]:
    """Per variant of ``cls`` (a value of its discriminating key ``by``), the hint for each
    key only another variant knows: ``{"spi": {"address": 'only for bus = "i2c"'}}``
    (cached)."""
    cached = _HINTS.get((cls, by))
    if cached is not None:
        return cached
    owners: dict[str, list[str]] = {}
    for f in fields(cls):
        spec = f.metadata.get("toml")
        if isinstance(spec, KeySpec) and spec.variants is not None:
            owners[spec.name or f.name] = list(spec.variants)
    every = {v for vs in owners.values() for v in vs}
    hints = _HINTS[(cls, by)] = {
        variant: {
            name: f"only for {by} = " + " or ".join(f'"{v}"' for v in vs)
            for name, vs in owners.items() if variant not in vs
        }
        for variant in sorted(every)
    }
    return hints


def read_table(r: Reading, cls: type[T], key: str, value: object, *,
               variant: str | None = None, known_first: Sequence[str] = (),
               elsewhere: Mapping[str, str] | None = None, strict: bool = True,
               given: Mapping[str, Any] | None = None,
               after: Callable[[Reading, dict[str, Any]], bool] | None = None) -> T | None:
    """Read TOML table ``value`` at path ``key`` into dataclass ``cls``.

    First (unless ``strict`` is false) every key the table gives that ``cls`` (for
    ``variant``) does not know is a problem: ``elsewhere`` gives a hint instead of the known
    list for a key another kind knows, ``known_first`` the keys the caller reads, listed
    first.  Then each field with a :class:`KeySpec`, in field order, from the table or its
    default (a missing required key is its ``missing`` problem); ``given``: fields the
    caller has read already (skipped here).  Then ``after(reading, values)``, a check
    across the keys read well (False: a problem).

    Returns the instance, or ``None`` when a value has a problem (an unknown key alone
    leaves the instance: the cross-checks still see it)."""
    raw = table(r, key, value)
    if raw is None:
        return None
    keys, names = _keys(cls, variant)
    if strict:
        unknown(r.problems, key, raw, [*known_first, *names], elsewhere)
    got: dict[str, Any] = dict(given or {})
    ok = True
    for k in keys:
        if k.attr in got:
            continue
        path = f"{key}.{k.name}"
        if k.name not in raw:
            if k.spec.missing is not None:
                r.problems.add(path, k.spec.missing)
                ok = False
            elif k.default is not MISSING:
                got[k.attr] = k.default
            continue
        if k.spec.read is None:
            got[k.attr] = raw[k.name]
            continue
        if k.spec.soft:
            got[k.attr] = _soft(r, k, path, raw[k.name], got)
            continue
        read = k.spec.read(r, path, raw[k.name], got)
        if read is None:
            ok = False
        else:
            got[k.attr] = read
    if after is not None and not after(r, got):
        return None
    if not ok:
        return None
    return cls(**got)


def read_field(r: Reading, cls: type, attr: str, key: str, raw: Mapping[str, Any]) -> Any:
    """Field ``attr`` of table class ``cls`` from TOML table ``raw`` at path ``key`` alone
    (a discriminating key read before the rest): its value, its default when ``raw`` lacks
    it, or ``None`` after a problem."""
    (k,) = (k for k in _keys(cls, None)[0] if k.attr == attr)
    if k.name not in raw:
        return k.default
    assert k.spec.read is not None
    return k.spec.read(r, f"{key}.{k.name}", raw[k.name], {})


def _soft(r: Reading, k: _Key, path: str, value: object, got: Mapping[str, Any]) -> object:
    """A soft key's value, or its default with each problem as a warning
    (``key: problem; using the default <key> <default>``)."""
    assert k.spec.read is not None
    trial = Reading()
    trial.uses = r.uses
    read = k.spec.read(trial, path, value, got)
    for line in trial.problems:
        r.warnings.append(f"{line}; using the default {k.name} {k.default}")
    return k.default if read is None else read


def table_of(cls: type, **options: Any) -> Reader:
    """The :data:`Reader` of a key whose value is a table of class ``cls``
    (:func:`read_table` with ``options``)."""
    def read(r: Reading, key: str, value: object, got: Mapping[str, Any]) -> Any:
        return read_table(r, cls, key, value, **options)
    return read


# --------------------------------------------------------------------------- shown values


def number(value: int | float, unit: str = "") -> str:
    """A number for a message, with its ``unit`` (``" ms"``): as written (``600 ms``), or
    ``a 310-digit number of ms`` for an int past 20 digits (a message stays one short
    line)."""
    if isinstance(value, float) or -10**20 < value < 10**20:
        return f"{value}{unit}"
    digits = len(str(abs(value)))
    sign = "negative " if value < 0 else ""
    return f"a {digits}-digit {sign}number" + (f" of{unit}" if unit else "")


def shown(value: object) -> str:
    """How a TOML value is named in a message: ``true (a bool)``, ``the text 'x'``."""
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a bool)"
    if isinstance(value, int):
        return number(value)
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        text = value if len(value) <= 30 else value[:27] + "..."
        return f"the text {text!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def short(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with ``...`` (a message stays one short line)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --------------------------------------------------------------------------- leaf checks


def unknown(p: Problems, key: str, table: Mapping[str, Any], known: Sequence[str],
            elsewhere: Mapping[str, str] | None = None) -> None:
    """Report every key of ``table`` not in ``known`` (``elsewhere``: keys that exist for
    another kind or bus, with the hint to give instead)."""
    for name in table:
        if name in known:
            continue
        hint = (elsewhere or {}).get(name)
        p.add(f"{key}.{name}", hint or f"unknown key (known: {', '.join(known)})")


def table(r: Reading, key: str, value: object) -> dict[str, Any] | None:
    """``value`` when it is a TOML table, else a problem."""
    if isinstance(value, dict):
        return value
    r.problems.add(key, f"expected a table, got {shown(value)}")
    return None


def one_of(allowed: Sequence[int], what: str, hex_: bool = False) -> Reader:
    """The check of a whole number in ``allowed`` (shown in hex when ``hex_``); ``what``
    names it in the problem (``expected <what>``, ``5 is not <what>``)."""
    def read(r: Reading, key: str, value: object, got: Mapping[str, Any]) -> int | None:
        if not is_int(value):
            r.problems.add(key, f"expected {what}, got {shown(value)}")
            return None
        if value not in allowed:
            text = f"0x{value:02X}" if hex_ and value >= 0 else str(value)
            r.problems.add(key, f"{text} is not {what}")
            return None
        return value
    return read


def choice(choices: Sequence[str], what: str) -> Reader:
    """The check of a text that is one of ``choices``; ``what`` names it (``unknown <what>
    'x' (known: "a" | "b")``)."""
    listed = " | ".join(f'"{c}"' for c in choices)

    def read(r: Reading, key: str, value: object, got: Mapping[str, Any]) -> str | None:
        if isinstance(value, str) and value in choices:
            return value
        if isinstance(value, str):
            r.problems.add(key, f"unknown {what} {value!r} (known: {listed})")
        else:
            r.problems.add(key, f"expected a {what} ({listed}), got {shown(value)}")
        return None
    return read


def flag(r: Reading, key: str, value: object, got: Mapping[str, Any]) -> bool | None:
    """The check of ``true``/``false``."""
    if isinstance(value, bool):
        return value
    r.problems.add(key, f"expected true or false, got {shown(value)}")
    return None


def check_pin(p: Problems, key: str, value: object) -> int | None:
    """A BCM GPIO number a seat may use (2..27, not the ID EEPROM pins), else a problem."""
    if not is_int(value):
        p.add(key, f"expected a BCM GPIO number, got {shown(value)}")
        return None
    if value in ID_EEPROM_PINS:
        p.add(key, f"GPIO {value} is reserved for the HAT ID EEPROM (ID_SD/ID_SC, header "
                   "pins 27/28); use another pin in 2-27")
        return None
    if not FIRST_PIN <= value <= LAST_PIN:
        p.add(key, f"GPIO {value} is outside the 40-pin header's BCM {FIRST_PIN}-{LAST_PIN}")
        return None
    return value


def bcm_pin(function: str | None = None) -> Reader:
    """The check of a BCM pin a seat may use (:func:`check_pin`); a good one is added to
    ``reading.uses`` as ``function`` (``None``: not added, the caller does)."""
    def read(r: Reading, key: str, value: object, got: Mapping[str, Any]) -> int | None:
        pin = check_pin(r.problems, key, value)
        if pin is not None and function is not None:
            r.uses.append(PinUse(key, pin, function))
        return pin
    return read

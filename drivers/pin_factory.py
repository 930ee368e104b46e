"""The GPIO pin factory, built explicitly: gpiozero's ``LGPIOFactory`` on the header's chip.

Slaps are decided by edge timestamps (docs/architecture.md, "Slap arbitration"), and only one
gpiozero pin factory hands a device the kernel's edge time: ``LGPIOFactory``, whose ticks
are the CLOCK_MONOTONIC time the GPIO character device stamped in its interrupt handler.
``rpigpio`` and ``native`` stamp ``time.monotonic()`` when the Python callback runs, and
``pigpio`` gives 32-bit microsecond ticks that wrap every 71.6 minutes.  With no factory,
gpiozero tries lgpio and, on *any* exception, silently falls back to those with only a
``PinFactoryFallback`` warning (docs/hardware-facts.md, "gpiozero falls back silently"), so a
missing module or a wrong chip number would quietly make every slap unfair.

This module therefore never lets gpiozero choose:

- :func:`open_pin_factory` builds ``LGPIOFactory(chip=N)`` with ``N`` found by the chip's
  label (``pinctrl-rp1`` on a Pi 5, ``pinctrl-bcm2711`` on a Pi 4, ``pinctrl-bcm2835``
  before; docs/hardware-facts.md, "Chip numbering moves"), and turns every way that fails into
  one :class:`~drivers.errors.PinFactoryError` line naming the cause and the fix.  The
  label is the one the GPIO character device reports (``GPIO_GET_CHIPINFO_IOCTL``,
  ``struct gpiochip_info.label`` in ``linux/gpio.h``), asked through lgpio's
  ``gpio_get_chip_info``: sysfs has no label beside ``/sys/bus/gpio/devices/gpiochipN``
  (gpiolib's legacy ``gpiochip<base>/label`` sits under the pinctrl device instead, and
  only with ``CONFIG_GPIO_SYSFS``), so only the chip itself is asked;
- :func:`require_fair_factory` refuses a factory whose ticks are not kernel edge times;
- :func:`resolve_pin_factory` is what the button drivers call on their ``pin_factory``
  argument: the factory given (checked), gpiozero's current default (checked), or, when
  gpiozero has none yet, :func:`open_pin_factory` -- never gpiozero's fallback chain.

Nothing here touches hardware at import; ``lgpio`` is imported only by
:func:`open_pin_factory`.  Chip numbers are ``int`` >= 0 (``/dev/gpiochipN``).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from drivers.errors import DriverValueError, PinFactoryError
from drivers.values import is_int

__all__ = [
    "HEADER_CHIP_LABELS",
    "MIN_GPIOZERO",
    "check_gpiozero_version",
    "chip_labels",
    "chip_numbers",
    "find_header_chip",
    "open_pin_factory",
    "require_fair_factory",
    "resolve_pin_factory",
]

HEADER_CHIP_LABELS: tuple[str, ...] = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
"""Labels of the gpiochip that drives the 40-pin header, preferred in this order.

``pinctrl-rp1``: Pi 5 (gpiochip0 from kernel 6.6.45, gpiochip4 before);
``pinctrl-bcm2711``: Pi 4 / 400 / CM4; ``pinctrl-bcm2835``: earlier Pis
(docs/hardware-facts.md, "Chip numbering moves").
"""

MIN_GPIOZERO = "2.0.1.post3"
"""The oldest gpiozero whose ``LGPIOFactory`` works: 2.0.1.post1/.post2 lack ``import os``
in ``gpiozero/pins/lgpio.py`` (docs/hardware-facts.md, "gpiozero falls back silently")."""

DEVICE = "GPIO"
"""How :class:`~drivers.errors.PinFactoryError` names the device in its one line."""

_FIX_INSTALL = f"pip install 'gpiozero>={MIN_GPIOZERO}'"
_UNFAIR_REASONS = {
    "RPiGPIOFactory": "stamps edges with time.monotonic() when its Python callback runs",
    "NativeFactory": "stamps edges with time.monotonic() when its Python callback runs",
    "PiGPIOFactory": "gives pigpio's 32-bit microsecond ticks, which wrap every 71.6 minutes",
}
_VERSION = re.compile(
    r"(?P<release>\d+(?:\.\d+)*)(?P<pre>(?:a|b|rc)\d+)?(?:\.post(?P<post>\d+))?"
    r"(?:\.dev\d+)?(?:\+[A-Za-z0-9.]+)?"
)
_CHIP_NODE = re.compile(r"gpiochip([0-9]+)")


def check_gpiozero_version(version: str) -> None:
    """Refuse a gpiozero older than :data:`MIN_GPIOZERO` (a PEP 440 version string).

    Returns ``None`` for ``"2.0.1.post3"``, ``"2.0.2"``, ``"2.1.0rc1"`` ...  Raises
    :class:`~drivers.errors.PinFactoryError` for an older version (2.0.1.post1/.post2 named
    with their missing ``import os``) and for a string that is not a version.

    >>> check_gpiozero_version("2.0.1.post3")
    >>> check_gpiozero_version("2.0.1.post2")
    Traceback (most recent call last):
    ...
    drivers.errors.PinFactoryError: GPIO: gpiozero 2.0.1.post2 is too old (its LGPIOFactory \
lacks 'import os', fixed in 2.0.1.post3): pip install 'gpiozero>=2.0.1.post3'
    """
    match = _VERSION.fullmatch(version.strip()) if isinstance(version, str) else None
    if match is None:
        raise PinFactoryError(DEVICE, f"cannot read gpiozero's version {version!r}: {_FIX_INSTALL}")
    release = tuple(int(part) for part in match["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    post = -1 if match["post"] is None else int(match["post"])
    if release > (2, 0, 1) or (release == (2, 0, 1) and match["pre"] is None and post >= 3):
        return
    reason = ""
    if release == (2, 0, 1) and post in (1, 2):
        reason = f" (its LGPIOFactory lacks 'import os', fixed in {MIN_GPIOZERO})"
    raise PinFactoryError(DEVICE, f"gpiozero {version} is too old{reason}: {_FIX_INSTALL}")


def chip_numbers(dev_root: Path = Path("/dev")) -> list[int]:
    """The numbers ``N`` of the GPIO character devices ``<dev_root>/gpiochipN``, ascending.

    ``dev_root``: where the device nodes are (tests pass a fake tree); lgpio's
    ``gpiochip_open(N)`` opens ``/dev/gpiochipN``.  An empty list when there are none or
    ``dev_root`` cannot be read (not Linux, no GPIO).  Never raises.
    """
    try:
        names = os.listdir(dev_root)
    except OSError:
        return []
    return sorted(int(m[1]) for m in map(_CHIP_NODE.fullmatch, names) if m is not None)


def chip_labels(lgpio: ModuleType, numbers: Iterable[int]) -> dict[int, str | None]:
    """Each chip's label, from the chip itself: ``{chip number: label or None}``.

    ``lgpio``: the lgpio module (tests pass a stand-in); for each of ``numbers`` the chip is
    opened (``gpiochip_open``), asked with ``gpio_get_chip_info`` (the kernel's
    ``GPIO_GET_CHIPINFO_IOCTL``; lgpio returns ``[status, lines, name, label]``) and closed
    again.  ``None`` for a chip that cannot be opened or asked (no permission: group gpio)
    or reports an empty label.  Never raises.
    """
    found: dict[int, str | None] = {}
    for number in numbers:
        found[number] = None
        try:
            handle = lgpio.gpiochip_open(number)
        except Exception:
            continue
        try:
            info = lgpio.gpio_get_chip_info(handle)
        except Exception:
            info = None
        finally:
            with contextlib.suppress(Exception):
                lgpio.gpiochip_close(handle)
        if isinstance(info, list | tuple) and len(info) >= 4 and isinstance(info[3], str):
            found[number] = info[3].strip() or None
    return found


def find_header_chip(labels: Mapping[int, str | None]) -> int | None:
    """The chip number whose label is a :data:`HEADER_CHIP_LABELS` entry, or ``None``.

    ``labels``: as :func:`chip_labels` returns.  The first label of that tuple wins, then
    the lowest chip number.

    >>> find_header_chip({0: "gpio-brcmstb@107d508500", 4: "pinctrl-rp1"})
    4
    >>> find_header_chip({0: "pinctrl-bcm2711", 1: "raspberrypi-exp-gpio"})
    0
    >>> find_header_chip({0: "gpio-mockup-A", 1: None}) is None
    True
    """
    for wanted in HEADER_CHIP_LABELS:
        for number in sorted(labels):
            if labels[number] == wanted:
                return number
    return None


def open_pin_factory(
    chip: int | Literal["auto"] = "auto",
    *,
    dev_root: Path = Path("/dev"),
    lg_wd: Path | None = None,
) -> Any:
    """Build ``gpiozero.pins.lgpio.LGPIOFactory(chip=N)`` for the 40-pin header, or fail loudly.

    ``chip``: ``"auto"`` finds ``N`` among the GPIO character devices
    ``<dev_root>/gpiochipN`` (:func:`chip_numbers`) by the label each chip reports
    (:func:`chip_labels`, :data:`HEADER_CHIP_LABELS`); an ``int`` >= 0 opens that chip,
    refused if it is not there or reports another label than the header's.  ``dev_root``:
    the device directory (tests pass a fake tree).  ``lg_wd``: an absolute directory for
    lgpio's notification FIFO, exported as ``LG_WD`` before ``lgpio`` is first imported
    (no effect once it is); lgpio then ``chdir()``s the whole process there, so every path
    the device uses must be absolute (docs/hardware-facts.md; give it systemd's
    ``RuntimeDirectory=``).

    Returns the factory (close it, or let gpiozero's exit handler close
    ``Device.pin_factory``).  Never returns any other factory: gpiozero's fallback is not
    used.  Raises :class:`~drivers.errors.DriverValueError` for a bad ``chip`` or
    ``lg_wd`` and :class:`~drivers.errors.PinFactoryError`, one line with the fix, for:
    gpiozero older than :data:`MIN_GPIOZERO`; no gpiochips or none labelled as the header;
    a ``chip`` that is missing or not the header's; lgpio not installed; a FIFO directory
    (``LG_WD`` or the working directory) that is missing or where no FIFO can be made; a
    chip lgpio cannot open; any other exception while importing lgpio or building the
    factory.
    """
    number = _chip_argument(chip)
    wd = _lg_wd_argument(lg_wd)
    check_gpiozero_version(_installed_gpiozero())
    numbers = chip_numbers(dev_root)
    if not numbers:
        raise PinFactoryError(
            DEVICE, f"no {dev_root}/gpiochip*: not a Raspberry Pi? use the simulator's mock pins"
        )
    if number is not None and number not in numbers:
        found = ", ".join(f"gpiochip{n}" for n in numbers)
        raise PinFactoryError(
            DEVICE, f"no {dev_root}/gpiochip{number} (found {found}): use chip='auto'"
        )
    module, lgpio = _import_lgpio(wd)
    labels = chip_labels(lgpio, numbers)
    if number is None:
        number = find_header_chip(labels)
        if number is None:
            raise _no_header_chip(labels)
    else:
        _check_chosen_chip(number, labels)
    return _build(module, lgpio, number)


def require_fair_factory(factory: Any, *, simulated: bool = False) -> None:
    """Refuse a pin factory whose edge ticks are not the kernel's edge times.

    Accepts gpiozero's ``LGPIOFactory`` (and subclasses) always, and a ``MockFactory`` only
    with ``simulated=True`` (the caller says it is a test or the simulator, whose edges are
    whatever it drives).  Raises :class:`~drivers.errors.PinFactoryError` naming the
    factory, why its ticks are unfair (``rpigpio``/``native``: ``time.monotonic()`` at
    callback time; ``pigpio``: wrapping 32-bit microseconds; docs/hardware-facts.md, "gpiozero
    falls back silently") and the fix, for anything else, ``None`` included.
    """
    lgpio_module = sys.modules.get("gpiozero.pins.lgpio")
    lgpio_factory = getattr(lgpio_module, "LGPIOFactory", None)
    if isinstance(lgpio_factory, type) and isinstance(factory, lgpio_factory):
        return
    if _is_mock_factory(factory):
        if simulated:
            return
        raise PinFactoryError(
            DEVICE,
            "a MockFactory outside a test or the simulator (its edges are whatever the caller "
            "drives): on a Pi use drivers.pin_factory.open_pin_factory()",
        )
    if factory is None:
        name = "no pin factory (None)"
        reason = "lets gpiozero pick one, falling back silently from lgpio"
    else:
        name = f"pin factory {type(factory).__name__}"
        known = [k.__name__ for k in type(factory).__mro__ if k.__name__ in _UNFAIR_REASONS]
        reason = _UNFAIR_REASONS[known[0]] if known else "does not give kernel edge timestamps"
    raise PinFactoryError(
        DEVICE,
        f"{name} {reason}, so slaps would be unfair: "
        "use drivers.pin_factory.open_pin_factory() (lgpio)",
    )


def resolve_pin_factory(pin_factory: Any = None) -> Any:
    """The pin factory a button driver should use for its ``pin_factory`` argument.

    ``pin_factory`` given: returned after :func:`require_fair_factory` (a ``MockFactory``
    passed explicitly counts as a test or the simulator).  ``None``: gpiozero's current
    ``Device.pin_factory`` if one is set (checked the same way), else
    :func:`open_pin_factory` ``()``, which is then set as ``Device.pin_factory`` so every
    driver shares it and gpiozero closes it at exit -- gpiozero's own fallback chain is
    never reached.  Raises :class:`~drivers.errors.PinFactoryError` as those do.
    """
    from gpiozero import Device  # type: ignore[import-untyped]

    if pin_factory is None:
        pin_factory = Device.pin_factory
        if pin_factory is None:
            pin_factory = open_pin_factory()
            Device.pin_factory = pin_factory
            return pin_factory
    require_fair_factory(pin_factory, simulated=_is_mock_factory(pin_factory))
    return pin_factory


def _is_mock_factory(factory: Any) -> bool:
    """Whether ``factory`` is a gpiozero ``MockFactory`` (imported only if already loaded)."""
    mock = sys.modules.get("gpiozero.pins.mock")
    mock_factory = getattr(mock, "MockFactory", None)
    return isinstance(mock_factory, type) and isinstance(factory, mock_factory)


def _chip_argument(chip: object) -> int | None:
    """``None`` for ``"auto"``, the ``int`` for a chip number; DriverValueError otherwise."""
    if chip == "auto":
        return None
    if is_int(chip) and chip >= 0:
        return chip
    raise DriverValueError(DEVICE, f"chip must be 'auto' or an int >= 0, got {chip!r}")


def _lg_wd_argument(lg_wd: object) -> Path | None:
    """``lg_wd`` as an absolute :class:`Path` or ``None``; DriverValueError otherwise."""
    if lg_wd is None:
        return None
    if isinstance(lg_wd, str | os.PathLike) and Path(lg_wd).is_absolute():
        return Path(lg_wd)
    raise DriverValueError(DEVICE, f"lg_wd must be an absolute directory path, got {lg_wd!r}")


def _installed_gpiozero() -> str:
    """The installed gpiozero's version string; PinFactoryError if it has no metadata."""
    try:
        return metadata.version("gpiozero")
    except metadata.PackageNotFoundError as exc:
        raise PinFactoryError(DEVICE, f"gpiozero is not installed: {_FIX_INSTALL}") from exc


def _describe(labels: Mapping[int, str | None]) -> str:
    """``gpiochip0 'pinctrl-rp1', gpiochip1 (cannot be asked)`` for messages."""
    return ", ".join(
        f"gpiochip{n} {labels[n]!r}" if labels[n] else f"gpiochip{n} (cannot be asked)"
        for n in sorted(labels)
    )


def _no_header_chip(labels: Mapping[int, str | None]) -> PinFactoryError:
    """The error for "no chip reports the header's label"."""
    wanted = ", ".join(HEADER_CHIP_LABELS)
    if None in labels.values():
        fix = "a chip that cannot be asked: may this user open /dev/gpiochip* (group gpio)?"
    else:
        fix = "not a Raspberry Pi? use the simulator's mock pins"
    return PinFactoryError(
        DEVICE, f"no gpiochip labelled {wanted} (found {_describe(labels)}): {fix}"
    )


def _check_chosen_chip(number: int, labels: Mapping[int, str | None]) -> None:
    """Refuse a chip number whose own label says it is not the header's chip (a chip that
    cannot be asked is left to :func:`_build`, whose error names why)."""
    if labels.get(number) is None:
        return
    header = find_header_chip(labels)
    if labels[number] in HEADER_CHIP_LABELS:
        return
    there = "" if header is None else f"; the header is gpiochip{header} {labels[header]!r}"
    raise PinFactoryError(
        DEVICE,
        f"gpiochip{number} is {labels[number]!r}, not the 40-pin header's chip{there}: "
        "use chip='auto'",
    )


def _fifo_dir_problem(directory: Path) -> str | None:
    """Why lgpio could not make its ``.lgd-nfy*`` FIFO in ``directory``, or ``None``.

    Tries what lgpio will do: make a FIFO there (and remove it).
    """
    if not directory.exists():
        return "it does not exist"
    if not directory.is_dir():
        return "it is not a directory"
    probe = directory / f".lgd-nfy-partytable-probe-{os.getpid()}"
    try:
        os.mkfifo(probe)
    except FileExistsError:
        pass
    except OSError as exc:
        return f"no FIFO can be made there ({exc.strerror or exc})"
    with contextlib.suppress(OSError):
        probe.unlink()
    return None


def _import_lgpio(lg_wd: Path | None) -> tuple[ModuleType, ModuleType]:
    """Import ``gpiozero.pins.lgpio`` (and so ``lgpio``); return both modules.

    Exports ``LG_WD`` and checks the FIFO directory first when lgpio is not imported yet.
    """
    if sys.modules.get("lgpio") is None:
        if lg_wd is not None:
            os.environ["LG_WD"] = str(lg_wd)
        try:
            fifo_dir = Path(os.environ.get("LG_WD") or os.getcwd())
        except OSError as exc:
            raise PinFactoryError(
                DEVICE,
                "lgpio makes its FIFO in the working directory, which is gone "
                f"({exc.strerror or exc}): set LG_WD to a writable directory",
            ) from exc
        problem = _fifo_dir_problem(fifo_dir)
        if problem is not None:
            raise PinFactoryError(DEVICE, _fifo_message(fifo_dir, problem))
    try:
        module = importlib.import_module("gpiozero.pins.lgpio")
    except ImportError as exc:
        if exc.name == "lgpio" or sys.modules.get("lgpio") is None:
            raise PinFactoryError(
                DEVICE,
                "lgpio is not installed: pip install lgpio (Raspberry Pi OS: apt install "
                "python3-lgpio)",
            ) from exc
        raise PinFactoryError(
            DEVICE, f"cannot import gpiozero's lgpio pin factory ({_oneline(exc)}): {_FIX_INSTALL}"
        ) from exc
    except OSError as exc:
        if ".lgd-nfy" in str(exc):
            fifo_dir = Path(os.environ.get("LG_WD") or ".").absolute()
            raise PinFactoryError(
                DEVICE, _fifo_message(fifo_dir, f"lgpio could not open it ({_oneline(exc)})")
            ) from exc
        raise PinFactoryError(
            DEVICE, f"cannot import lgpio ({_oneline(exc)}): pip install --force-reinstall lgpio"
        ) from exc
    except Exception as exc:
        raise PinFactoryError(
            DEVICE, f"cannot import lgpio ({_oneline(exc)}): pip install --force-reinstall lgpio"
        ) from exc
    return module, sys.modules["lgpio"]


def _fifo_message(directory: Path, problem: str) -> str:
    """The one line for "lgpio cannot make its notification FIFO in ``directory``"."""
    return (
        f"lgpio makes its notification FIFO in {directory} (LG_WD, else the working "
        f"directory) at import, but {problem}: set LG_WD to a writable directory "
        "(systemd RuntimeDirectory=)"
    )


def _build(module: ModuleType, lgpio: ModuleType, number: int) -> Any:
    """``module.LGPIOFactory(chip=number)``, every failure as one PinFactoryError line."""
    try:
        return module.LGPIOFactory(chip=number)
    except Exception as exc:
        lgpio_error = getattr(lgpio, "error", None)
        if isinstance(lgpio_error, type) and isinstance(exc, lgpio_error):
            value = getattr(exc, "value", None)  # lgpio.error keeps its text there
            said = " ".join(value.split()) if isinstance(value, str) else _oneline(exc)
            raise PinFactoryError(
                DEVICE,
                f"cannot open /dev/gpiochip{number} (lgpio: {said}): check the chip number "
                "(chip='auto' finds it by label) and that this user may open it (group gpio)",
            ) from exc
        if isinstance(exc, NameError) and exc.name == "os":
            raise PinFactoryError(
                DEVICE, f"gpiozero's LGPIOFactory lacks 'import os' ({_oneline(exc)}): "
                f"{_FIX_INSTALL}"
            ) from exc
        raise PinFactoryError(
            DEVICE,
            f"cannot build the lgpio pin factory on gpiochip{number} ({_oneline(exc)}): "
            f"{_FIX_INSTALL} lgpio",
        ) from exc


def _oneline(exc: BaseException) -> str:
    """``"Type: message"`` of ``exc`` on one line (newlines folded to spaces)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

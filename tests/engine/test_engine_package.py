"""The engine's import boundary (docs/architecture.md "Layers"): no module of engine/ imports
device/, drivers/ or a hardware/graphics library, neither in its source nor at run time."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import engine

ROOT = Path(engine.__file__).resolve().parent
FORBIDDEN = ("device", "drivers", "bench", "pygame", "PIL", "gpiozero", "luma", "serial")
"""Top-level packages the engine must never import."""


def imported_names(source: str) -> list[str]:
    """Every module name ``source`` imports: ``import x``, ``from x import y``, and
    ``import_module("x")`` / ``__import__("x")`` with a literal name."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if called in ("import_module", "__import__") and isinstance(first, ast.Constant):
                names.append(str(first.value))
    return names


def offenders(source: str, where: str) -> list[str]:
    """``where: name`` for each forbidden import of ``source``."""
    return [f"{where}: {n}" for n in imported_names(source) if n.split(".")[0] in FORBIDDEN]


def engine_modules() -> list[str]:
    """Dotted names of every module under engine/ (``engine.riiing.rules``, ...) except
    ``engine.__main__``, which runs the command line when imported."""
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "__main__.py":
            continue
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append(".".join(parts))
    return out


def test_the_checker_catches_each_kind_of_import() -> None:
    """The source check flags plain, from- and import_module imports of forbidden names."""
    source = (
        "import pygame\nfrom drivers.slap import SlapButton\nimport json\n"
        "from importlib import import_module\nimport_module('device.console')\n"
        "from PIL import Image\nimport luma.core\n"
    )
    assert offenders(source, "x.py") == [
        "x.py: pygame", "x.py: drivers.slap", "x.py: PIL", "x.py: luma.core",
        "x.py: device.console",
    ]  # fmt: skip


def test_engine_sources_import_nothing_from_device_drivers_or_hardware() -> None:
    """No module in engine/ (every subpackage) names device, drivers, pygame, PIL,
    gpiozero, luma or serial in an import."""
    found: list[str] = []
    paths = sorted(ROOT.rglob("*.py"))
    assert len(paths) >= 20  # both games' packages are walked
    for path in paths:
        found += offenders(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == []


def test_importing_every_engine_module_loads_no_forbidden_package() -> None:
    """In a fresh interpreter, importing every engine module leaves no forbidden package in
    sys.modules (catches imports hidden behind other modules)."""
    modules = engine_modules()
    assert "engine.riiing.rules" in modules and "engine.right_on_time.rules" in modules
    script = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(json.dumps(bad))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT.parent, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []

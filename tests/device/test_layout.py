"""The device's tree (device/__init__.py): every folder names a part and says in its package
docstring which other parts it may import; the imports keep to that, no two modules or
classes share a name, and no circle of imports exists, type-only imports included.

The imports are read from the source (AST): module-level, function-local and under
``TYPE_CHECKING`` alike, so a circle that only the type checker sees is a circle too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEVICE = ROOT / "device"


def module_name(path: Path) -> str:
    """``device/flow/lobby.py`` -> ``device.flow.lobby`` (a package's ``__init__.py`` is the
    package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(DEVICE.rglob("*.py"))}
"""Every module of ``device/`` by dotted name."""

PARTS = sorted(
    module_name(p) for p in DEVICE.glob("*/__init__.py")
)
"""The folders of ``device/`` (``device.flow``, ``device.render``, ...)."""


def _resolve(name: str) -> str | None:
    """The device module ``name`` (or ``name``'s module, for ``device.x.Thing``) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str) -> Iterator[tuple[int, str]]:
    """``(line, device module)`` for every import of a device module in ``module``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        for name in names:
            if name.split(".")[0] == "device":
                target = _resolve(name)
                if target is not None and target != module:
                    yield node.lineno, target


GRAPH = {m: {t for _, t in imports(m)} for m in MODULES}


def part_of(module: str) -> str:
    """The folder a module belongs to (``device.flow.lobby`` -> ``device.flow``), or the
    module itself at the top (``device.console``)."""
    return ".".join(module.split(".")[:2])


def allowed(part: str) -> set[str]:
    """The parts the package docstring of ``part`` lets it import ("May import: ...")."""
    doc = ast.get_docstring(ast.parse(MODULES[part].read_text(encoding="utf-8"))) or ""
    match = re.search(r"^May import:(.*?)(?:\n\n|\Z)", doc, re.M | re.S)
    assert match is not None, f"{part}'s docstring has no 'May import:' paragraph"
    return set(re.findall(r"device(?:\.\w+)?", match.group(1)))


@pytest.mark.parametrize("part", PARTS)
def test_each_folder_imports_only_what_its_docstring_allows(part: str) -> None:
    """A module of a folder imports its own folder and the folders its package docstring
    names, nothing else of the device."""
    ok = allowed(part) | {part}
    everything = "every part of device" in (MODULES[part].read_text(encoding="utf-8"))
    wrong = [
        f"{m}:{line} imports {t}"
        for m in MODULES if part_of(m) == part
        for line, t in imports(m)
        if part_of(t) not in ok and not (everything and t != "device.main")
    ]
    assert wrong == []


def test_the_allowances_form_layers() -> None:
    """No two folders may import each other, directly or around a circle of allowances."""
    edges = {p: {a for a in allowed(p) if a in PARTS and a != p} for p in PARTS
             if "every part of device" not in MODULES[p].read_text(encoding="utf-8")}
    assert _cycles(edges) == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_circle() -> None:
    """The check below sees a circle of three and a clean chain."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": {"c"}}) == []


def test_no_circle_of_imports_among_device_modules() -> None:
    """No module of ``device/`` reaches itself through imports, type-only ones included."""
    assert _cycles(GRAPH) == []


def _defined(paths: list[Path]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Module base names and public class names -> where they are defined."""
    modules: dict[str, list[str]] = {}
    classes: dict[str, list[str]] = {}
    for path in paths:
        rel = str(path.relative_to(ROOT))
        name = path.parent.name if path.name == "__init__.py" else path.stem
        if name != "__main__":
            modules.setdefault(name, []).append(rel)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                classes.setdefault(node.name, []).append(rel)
    return modules, classes


PATHS = sorted((ROOT / "device").rglob("*.py")) + sorted((ROOT / "drivers").rglob("*.py"))


def test_no_two_modules_share_a_name() -> None:
    """Across ``device/`` and ``drivers/`` every module (and package) has its own name."""
    modules, _ = _defined(PATHS)
    assert {n: w for n, w in modules.items() if len(w) > 1} == {}


def test_no_two_classes_share_a_name() -> None:
    """Across ``device/`` and ``drivers/`` every public class has its own name."""
    _, classes = _defined(PATHS)
    assert {n: w for n, w in classes.items() if len(w) > 1} == {}

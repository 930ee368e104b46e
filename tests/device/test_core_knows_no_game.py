"""The device core knows no game (docs/style.md, device: "The core asks the plugin; it never asks
'which game is this?'. A reader of the core sees no game's name").

Over every ``.py`` file of ``device/`` outside ``device/games/``, read as source (AST):
no import from a game's engine package (the core uses ``engine``'s registry and
``engine.core``), no ``isinstance`` against an engine game class (view, position, card,
action), no comparison with a game's registry name, and no read of a game's own option
names (options every game has, such as ``deck``, are not a game's own).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
from device.games import PLUGINS
from engine import get_game

DEVICE = Path(__file__).resolve().parents[2] / "device"

NOT_YET_CHECKED: dict[str, str] = {}
"""Core files (relative to ``device/``) left out of the check for now."""

GAME_NAMES = frozenset(PLUGINS) | frozenset(engine.GAME_MODULES)
"""Every game's registry name."""

GAME_PACKAGES = tuple(module for module, _cls in engine.GAME_MODULES.values())
"""The engine packages of the games (``engine.riiing``, ...)."""


def _game_classes() -> frozenset[str]:
    """Names of the classes defined in the engine's game packages (views, positions, cards,
    actions, options)."""
    import importlib
    import pkgutil

    names: set[str] = set()
    for package in GAME_PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__):
            mod = importlib.import_module(f"{package}.{info.name}")
            names |= {
                n for n, obj in vars(mod).items()
                if inspect.isclass(obj) and obj.__module__.startswith(package)
            }
    return frozenset(names)


def _own_options() -> frozenset[str]:
    """Option names some game has and another has not (a game's own options)."""
    per_game = [frozenset(o.name for o in get_game(name).options) for name in PLUGINS]
    every = frozenset.intersection(*per_game)
    return frozenset(n for names in per_game for n in names if n not in every)


GAME_CLASSES = _game_classes()
OWN_OPTIONS = _own_options()


def core_files() -> list[Path]:
    """The core's source files: ``device/**/*.py`` outside ``device/games/``."""
    return sorted(p for p in DEVICE.rglob("*.py") if "games" not in p.relative_to(DEVICE).parts)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (or bare string statements)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            out.add(id(node.value))
    return out


def _strings(node: ast.AST) -> Iterator[str]:
    """String constants of a comparison operand (a literal, or a tuple/list/set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for item in node.elts:
            yield from _strings(item)


def _names(node: ast.AST) -> Iterator[str]:
    """Class names in an ``isinstance`` second argument (names, attributes, tuples, ``|``)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.Tuple):
        for item in node.elts:
            yield from _names(item)
    elif isinstance(node, ast.BinOp):
        yield from _names(node.left)
        yield from _names(node.right)


def problems(source: str) -> list[str]:
    """What in ``source`` asks which game is played, one line each (``line N: ...``)."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module.startswith(GAME_PACKAGES):
                found.append(f"line {line}: imports from {node.module}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(GAME_PACKAGES):
                    found.append(f"line {line}: imports {alias.name}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
        ):
            for name in _names(node.args[1]):
                if name in GAME_CLASSES:
                    found.append(f"line {line}: isinstance against {name}")
        elif isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                for text in _strings(operand):
                    if text in GAME_NAMES:
                        found.append(f"line {line}: compares with the game name {text!r}")
        elif isinstance(node, ast.Attribute) and node.attr in OWN_OPTIONS:
            found.append(f"line {line}: reads the option .{node.attr}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in OWN_OPTIONS
            and id(node) not in docs
        ):
            found.append(f"line {line}: names the option {node.value!r}")
    return found


def test_the_checks_see_what_they_look_for() -> None:
    """Each check fires on a line that asks for a game, and not on game-free lines."""
    bad = (
        "from engine.riiing.view import RiiingView\n"
        "import engine.right_on_time.cards\n"
        "ok = isinstance(v, RiiingView)\n"
        "same = game == 'riiing'\n"
        "known = name in ('chess', 'right-on-time')\n"
        "t = pos.options.slap_timeout_s\n"
        "o = opts['target_points']\n"
    )
    found = problems(bad)
    assert [f.split(":")[0] for f in found] == [f"line {n}" for n in range(1, 8)], found
    good = (
        '"""Docstrings may name riiing and slap_timeout_s."""\n'
        "from engine.core import Event\n"
        "from engine import get_game\n"
        "ok = isinstance(e, Event)\n"
        "same = plugin.name == other.name\n"
        "d = pos.options.deck\n"
    )
    assert problems(good) == []


def test_the_exception_list_names_existing_failing_files() -> None:
    """Every file left out still exists and still fails (else it must leave the list)."""
    for name in NOT_YET_CHECKED:
        path = DEVICE / name
        assert path.is_file(), f"{name} is listed but gone"
        assert problems(path.read_text(encoding="utf-8")), f"{name} passes now: unlist it"


@pytest.mark.parametrize(
    "path", core_files(), ids=lambda p: str(p.relative_to(DEVICE))
)
def test_core_file_asks_no_game(path: Path) -> None:
    """The core file imports no game package, tests no game class, compares with no game
    name and reads no game's own option."""
    rel = str(path.relative_to(DEVICE))
    if rel in NOT_YET_CHECKED:
        pytest.skip(f"listed in NOT_YET_CHECKED: {NOT_YET_CHECKED[rel]}")
    assert problems(path.read_text(encoding="utf-8")) == []


CORE_PARTS = sorted(
    [p.parent.name for p in DEVICE.glob("*/__init__.py") if p.parent.name != "games"]
    + ["device"]
)
"""The core's folders under ``device/`` (every one but ``games``), and ``device`` for the
modules at the top."""

GAME_DEVICE_PACKAGES = tuple(f"device.games.{p.name}" for p in (DEVICE / "games").iterdir()
                             if (p / "__init__.py").is_file())
"""The games' own device packages (``device.games.riiing``, ...); the core knows only the
registry ``device.games`` and the plugin base ``device.games.base``."""


def _part_files(part: str) -> list[Path]:
    """The source files of a core folder (``device``: the modules at the top)."""
    if part == "device":
        return sorted(DEVICE.glob("*.py"))
    return sorted((DEVICE / part).rglob("*.py"))


def _imported(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, module)`` of every import in ``path``: module level, in functions and
    under ``TYPE_CHECKING`` alike; ``from a import b`` gives ``a.b``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def test_the_game_packages_are_known() -> None:
    """The folder check below knows a device package for every registered game."""
    assert len(GAME_DEVICE_PACKAGES) == len(PLUGINS) >= 2


@pytest.mark.parametrize("part", CORE_PARTS)
def test_core_folder_imports_no_game_package(part: str) -> None:
    """No module of a core folder imports a game's own device package or engine package,
    type-only imports included: the core reaches a game only through the registry."""
    wrong = [
        f"{path.relative_to(DEVICE)}:{line} imports {name}"
        for path in _part_files(part)
        for line, name in _imported(path)
        if name.startswith(GAME_DEVICE_PACKAGES) or name.startswith(GAME_PACKAGES)
    ]
    assert wrong == []

"""Golden Riiing! transcripts: seeded play logs and position walks, regenerated only by
``scripts/make_golden.py`` (never by hand), must match what the engine produces now."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_DIR = ROOT / "tests" / "engine" / "golden"


def load_script() -> ModuleType:
    """Import scripts/make_golden.py (scripts/ is not a package)."""
    path = ROOT / "scripts" / "make_golden.py"
    spec = importlib.util.spec_from_file_location("make_golden", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_golden_transcripts_match() -> None:
    """Every golden file equals the script's output today, and no other riiing file exists."""
    expected: dict[str, str] = load_script().golden("riiing")
    on_disk = {path.name for path in GOLDEN_DIR.glob("riiing-*.txt")}
    assert on_disk == set(expected)
    for name, text in expected.items():
        assert (GOLDEN_DIR / name).read_text(encoding="utf-8") == text, (
            f"{name} differs: rerun scripts/make_golden.py and review the diff"
        )


def test_golden_play_logs_end_with_the_winner() -> None:
    """Each play log ends with 'winner: seat N' after one line per action."""
    for path in GOLDEN_DIR.glob("riiing-play-*.txt"):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[-1].startswith("winner: seat ") and len(lines) > 2, path.name

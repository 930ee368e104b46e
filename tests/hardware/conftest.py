"""The handheld firmware's folder on ``sys.path``: its modules are top-level on the board.

``hardware/handheld/`` is copied flat onto the RP2040's file system, so its modules import
each other as ``handheld_core`` and ``ssd1306``; the tests import them the same way.
``main.py`` is loaded under another name by the tests themselves, with fake ``machine``,
``framebuf`` and ``micropython`` modules (it needs the board's modules to import).
"""

from __future__ import annotations

import sys
from pathlib import Path

HANDHELD = Path(__file__).resolve().parents[2] / "hardware" / "handheld"

if str(HANDHELD) not in sys.path:
    sys.path.insert(0, str(HANDHELD))

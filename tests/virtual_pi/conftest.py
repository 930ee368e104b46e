"""The repository root on ``sys.path``: the virtual Pi lives in ``scripts/virtual_pi``, which is
not an installed package."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

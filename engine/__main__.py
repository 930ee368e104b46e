"""``python -m engine``: the notation command line (``docs/notation.md``)."""

import sys

from engine.cli import main

sys.exit(main())

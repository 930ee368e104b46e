"""``python -m engine``: the notation command line (``design/notation.md``)."""

import sys

from engine.cli import main

sys.exit(main())

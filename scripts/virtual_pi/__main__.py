"""``python -m scripts.virtual_pi``: see :mod:`scripts.virtual_pi.harness`."""

import sys

from .harness import main

sys.exit(main())

"""``python -m scripts.appliance``: see :mod:`scripts.appliance.harness`."""

import sys

from .harness import main

sys.exit(main())

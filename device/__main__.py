"""``python -m device``: see :mod:`device.main`."""

import sys

from device.main import main

sys.exit(main())

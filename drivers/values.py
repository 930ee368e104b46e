"""Type checks for values that come from outside (a config file, a wire, a test seam).

``bool`` is a subclass of ``int`` in Python, so ``isinstance(True, int)`` holds; a config's
``true`` or a JSON ``false`` must never pass for a pin number, a seat or a time.  These
checks say what is meant once, for ``drivers/`` and ``device/`` alike.

>>> is_int(3), is_int(True), is_int(3.0)
(True, False, False)
>>> is_number(2.5), is_number(False)
(True, False)
"""

from __future__ import annotations

from typing import TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[int | float]:
    """True for an ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


__all__ = ["is_int", "is_number"]

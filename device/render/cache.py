"""A least-recently-used cache of pygame surfaces bounded by count and by bytes of pixels.

The table display renders large surfaces (a 56 px line of text is ~0.6 MB, a 520 px card
face ~0.75 MB at 32 bpp) and the party plays for hours: a cache bounded only by its number
of entries grew the process by hundreds of MB.  Architecture: the device runs unattended,
so every cache the renderers keep is bounded here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

import pygame


def surface_bytes(surface: pygame.Surface) -> int:
    """Bytes of pixel data ``surface`` holds (pitch x height)."""
    return int(surface.get_pitch()) * int(surface.get_height())


class SurfaceCache:
    """Surfaces by key, the least recently used dropped first once more than ``max_items``
    are held or their pixels take more than ``max_bytes`` bytes.

    A surface larger than ``max_bytes`` on its own is not kept (:meth:`put` returns it
    unchanged).  ``max_items`` < 1 counts as 1, ``max_bytes`` < 0 as 0.  Not thread-safe.
    """

    def __init__(self, max_items: int, max_bytes: int) -> None:
        self._items: OrderedDict[Hashable, pygame.Surface] = OrderedDict()
        self.max_items = max(1, max_items)
        self.max_bytes = max(0, max_bytes)
        self._bytes = 0

    def __len__(self) -> int:
        """How many surfaces are held now."""
        return len(self._items)

    @property
    def bytes(self) -> int:
        """Bytes of pixel data held now (never more than ``max_bytes``)."""
        return self._bytes

    def get(self, key: Hashable) -> pygame.Surface | None:
        """The surface cached under ``key`` (now the most recently used) or ``None``."""
        surface = self._items.get(key)
        if surface is not None:
            self._items.move_to_end(key)
        return surface

    def put(self, key: Hashable, surface: pygame.Surface) -> pygame.Surface:
        """Keep ``surface`` under ``key`` (replacing any held one), drop the least recently
        used ones until both bounds hold again, and return ``surface``."""
        size = surface_bytes(surface)
        old = self._items.pop(key, None)
        if old is not None:
            self._bytes -= surface_bytes(old)
        if size > self.max_bytes:
            return surface
        self._items[key] = surface
        self._bytes += size
        while len(self._items) > self.max_items or self._bytes > self.max_bytes:
            _key, dropped = self._items.popitem(last=False)
            self._bytes -= surface_bytes(dropped)
        return surface

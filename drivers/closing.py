"""One context-manager mixin for every driver with an explicit, idempotent ``close()``.

docs/style.md, "drivers/": explicit, idempotent ``close()`` and context managers; no ``__del__``,
no per-object ``atexit``.  A driver class subclasses :class:`ClosesOnExit` and defines
``close()``; ``with Driver(...) as d:`` then returns the driver itself and closes it on the
way out, whether the block ends or raises.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

__all__ = ["ClosesOnExit"]


class ClosesOnExit(ABC):
    """Mixin: ``__enter__`` returns ``self``, ``__exit__`` calls :meth:`close`.

    Subclasses define :meth:`close`; it must be idempotent (``__exit__`` may follow an
    explicit ``close()``).  Exceptions from the ``with`` block are never swallowed.

    >>> class Door(ClosesOnExit):
    ...     shut = 0
    ...     def close(self) -> None:
    ...         self.shut += 1
    >>> with Door() as door:
    ...     door.shut
    0
    >>> door.shut
    1
    """

    @abstractmethod
    def close(self) -> None:
        """Release what the driver holds; idempotent."""

    def __enter__(self) -> Self:
        """Return self; :meth:`close` on exit."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Call :meth:`close`; an exception from the block propagates."""
        self.close()

"""Small files replaced whole, safe against power cuts: the lobby's remembered choices
(``lobby.json``), and the directory fsync the game database's renames need.
"""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile
from pathlib import Path

StrPath = str | os.PathLike[str]
"""A file path as ``open`` takes it."""


def write_atomic(path: StrPath, text: str) -> None:
    """Replace the file at ``path`` with ``text`` (UTF-8) so that after a power cut it holds
    either the old content or the new, never a mix: write a temporary file in the same
    directory, fsync it, ``os.replace`` it over ``path``, fsync the directory.  The
    temporary file is removed if anything fails, and one a power cut left is removed at the
    next call.  Raises ``OSError``."""
    _replace_bytes(Path(path), text.encode("utf-8"))


def _replace_bytes(path: Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data`` (see :func:`write_atomic`); temporary
    files a power cut left behind by earlier calls are removed first, so they never pile
    up (there is one writer: the console)."""
    directory = path.parent
    for stale in directory.glob(f".{glob.escape(path.name)}.*.tmp"):
        with contextlib.suppress(OSError):
            stale.unlink()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(directory)


def fsync_dir(directory: Path) -> None:
    """fsync a directory so a new or renamed entry in it survives a power cut."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["fsync_dir", "write_atomic"]

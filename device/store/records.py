"""A game's header and records as the game database keeps them: :class:`JournalHeader` (the
game name, seats, seeds, options, seat kinds), :class:`ActionRecord` (an applied engine
action, notation text, ``docs/notation.md``) and :class:`DecisionRecord` (a device
decision: a slap decision with its tie draw, a stuck button, a late arrival), with their
JSON forms.  Shared by the database (``device.store.game_db``) and the reader of the old
JSON-lines journal (``device.store.legacy_journal``), below both; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from drivers.values import is_int
from engine.core import OptionValue, Seat

FORMAT_NAME = "partytable"
"""The header's ``"journal"`` field (the old journal's line 1, a game's JSON form)."""

FORMAT_VERSION = 1
"""The header's ``"version"`` field."""

START_RECORD = "start"
"""The kind of the decision record of the deal, ``{"first": seat}``: the seat that opens
(a wake-up race, journaled before it, may have decided it; RI-2.3)."""


class JournalError(ValueError):
    """A journal that cannot be read (a missing, torn or corrupt header: the message names
    the file and line 1) or a record that cannot be written (not JSON, a closed journal).
    ``str(err)`` is one line."""


@dataclass(frozen=True)
class JournalHeader:
    """What starts a game: ``game`` (registry name, e.g. ``"riiing"``), ``seats`` (>= 1),
    ``seed`` (the position's shuffle seed), ``options`` (rule options, name -> int, bool or
    str), ``first`` (the seat that opens, 0..seats-1), ``device_seed`` (seed of the device
    RNG: ties, computer players), ``seat_kinds`` (one word per seat, e.g. ``"human"``,
    ``"computer"``) and ``strengths`` (one word per seat for its computer player, e.g.
    ``"hard"``; ``()``: every one the default).  Raises :class:`JournalError` naming the first
    bad field."""

    game: str
    seats: int
    seed: int
    options: Mapping[str, OptionValue]
    first: Seat
    device_seed: int
    seat_kinds: tuple[str, ...]
    strengths: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        def whole(name: str, value: object) -> int:
            if not is_int(value):
                raise JournalError(f"journal header: {name} must be an integer, got {value!r}")
            return value

        if not isinstance(self.game, str) or not self.game:
            raise JournalError(f"journal header: game must be a name, got {self.game!r}")
        if whole("seats", self.seats) < 1:
            raise JournalError(f"journal header: seats must be at least 1, got {self.seats}")
        whole("seed", self.seed)
        whole("device_seed", self.device_seed)
        if not 0 <= whole("first", self.first) < self.seats:
            raise JournalError(
                f"journal header: first must be a seat 0..{self.seats - 1}, got {self.first}"
            )
        if not isinstance(self.options, Mapping):
            raise JournalError(f"journal header: options must be an object, got {self.options!r}")
        for key, value in self.options.items():
            if not isinstance(key, str) or not isinstance(value, int | str):
                raise JournalError(
                    f"journal header: option {key!r} must be a number, true/false or text, "
                    f"got {value!r}"
                )
        kinds = self.seat_kinds
        if (
            not isinstance(kinds, tuple)
            or len(kinds) != self.seats
            or not all(isinstance(k, str) and k for k in kinds)
        ):
            raise JournalError(
                f"journal header: seat_kinds must be {self.seats} words, one per seat, "
                f"got {kinds!r}"
            )
        strengths = self.strengths
        if not isinstance(strengths, tuple) or (
                strengths and (len(strengths) != self.seats
                               or not all(isinstance(k, str) for k in strengths))):
            raise JournalError(
                f"journal header: strengths must be {self.seats} words or none, got "
                f"{strengths!r}")
        object.__setattr__(self, "options", dict(self.options))

    def to_json(self) -> dict[str, Any]:
        """The header line's JSON object, ``"journal"`` and ``"version"`` included."""
        return {
            "journal": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "game": self.game,
            "seats": self.seats,
            "seed": self.seed,
            "options": dict(self.options),
            "first": self.first,
            "device_seed": self.device_seed,
            "seat_kinds": list(self.seat_kinds),
        }

    @classmethod
    def from_json(cls, obj: object) -> JournalHeader:
        """Read :meth:`to_json`'s object; raises :class:`JournalError` naming what is wrong
        (not a partytable journal, another version, a missing or bad field)."""
        if not isinstance(obj, dict) or obj.get("journal") != FORMAT_NAME:
            raise JournalError("not a partytable journal header")
        if obj.get("version") != FORMAT_VERSION:
            raise JournalError(
                f"journal version {obj.get('version')!r} is not supported "
                f"(this device reads {FORMAT_VERSION})"
            )
        names = ("game", "seats", "seed", "options", "first", "device_seed", "seat_kinds")
        missing = [n for n in names if n not in obj]
        if missing:
            raise JournalError(f"journal header: {missing[0]} is missing")
        kinds = obj["seat_kinds"]
        fields: dict[str, Any] = {n: obj[n] for n in names}
        fields["seat_kinds"] = tuple(kinds) if isinstance(kinds, list) else kinds
        return cls(**fields)


@dataclass(frozen=True)
class ActionRecord:
    """An engine action the device applied, in notation (``"play 5C/>"``, ``"slap 3"``,
    ``"timeout"``, ``"falseslap 1"``)."""

    action: str

    def to_json(self) -> dict[str, Any]:
        """``{"action": <text>}``."""
        return {"action": self.action}


@dataclass(frozen=True)
class DecisionRecord:
    """A device decision: ``kind`` (e.g. ``"slap"`` with ``SlapDecision.to_json()`` as
    ``data``, ``"stuck"``, ``"race"``) and ``data``, a JSON object (tuples read back as
    lists)."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"decision": <kind>, "data": {...}}``."""
        return {"decision": self.kind, "data": dict(self.data)}


Record = ActionRecord | DecisionRecord
"""One line after the header."""


__all__ = ["ActionRecord", "DecisionRecord", "JournalError", "JournalHeader", "Record"]

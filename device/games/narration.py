"""The event words both games' ``narrate`` modules share: a game gives a line template per
event kind and the words its templates name, and :class:`EventWords` makes the top strip's
line for one event and for one action's events (:func:`device.common.words.narrate_events`).

A template is a ``str.format`` text naming fields: ``{who}`` (the event's seat as people
count it, :func:`device.common.words.seat_name`; ``""`` without a seat), ``{value}`` (the event's
value as it is) and any field of the game's own (``{laid}``: a function of the event).  A
field is worked out only when the event's template names it.

>>> words = EventWords({"out": "{who} is out", "round": "{who} wins round {value}"}, {"out"})
>>> words.line(Event("round", seat=1, value=2)), words.line(Event("deal", value=1))
('Seat 2 wins round 2', None)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from device.common.words import narrate_events, seat_name
from engine.core import Event


class _Fields(Mapping[str, object]):
    """The fields of one event's template, each worked out when the template asks for it."""

    def __init__(self, ev: Event, own: Mapping[str, Callable[[Event], object]]) -> None:
        self.ev = ev
        self.own = own

    def __getitem__(self, name: str) -> object:
        if name == "who":
            return seat_name(self.ev.seat) if self.ev.seat is not None else ""
        if name == "value":
            return self.ev.value
        return self.own[name](self.ev)

    def __iter__(self) -> Iterator[str]:
        return iter(("who", "value", *self.own))

    def __len__(self) -> int:
        return 2 + len(self.own)


@dataclass(frozen=True)
class EventWords:
    """One game's event words for the top strip.

    - ``lines``: event kind -> template (module docstring); a kind not in it has no line
    - ``acts``: the kinds that tell what the seat did (the others tell what followed)
    - ``fields``: the game's own template fields, name -> the event's words

    Raises ``KeyError`` from :meth:`line` for a template naming a field nobody gives.
    """

    lines: Mapping[str, str]
    acts: Collection[str]
    fields: Mapping[str, Callable[[Event], object]] = field(default_factory=dict)

    def line(self, ev: Event) -> str | None:
        """One line for one event, or ``None`` (its kind is not worth a line)."""
        template = self.lines.get(ev.kind)
        if template is None:
            return None
        return template.format_map(_Fields(ev, self.fields))

    def narrate(self, events: Sequence[Event]) -> str | None:
        """One line for one action's events (:func:`device.common.words.narrate_events`)."""
        return narrate_events(events, self.line, self.acts)

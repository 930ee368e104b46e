"""The TV's notices: the lines a party must see on the banner strip (docs/screens.md: errors in
words on the TV, docs/style.md "Errors a party must see go on the TV"), one list of values drawn
with one join.

A :class:`Notice` is a line of text and how long it lives: until a moment (``until_ns``,
e.g. "Seat 4's button is not in this game" for 10 s), until it is taken back (a state
directory that cannot hold the games, the restore offer), and, for a lobby line (a damaged
``lobby.json``, "Cannot start: ...", the demo's hint), at the latest until a game starts.
:class:`Notices` keeps them in the order they came (or one put first) and gives the
banner's text; it does no I/O and reads no clock: the flow passes the loop's time and runs
a loop timer at each notice's end so the TV is redrawn then.

Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

SEPARATOR = "  ·  "
"""Between two notices in the banner's text (the table model's ``banner``, the log)."""

TURN_NS = 4_000_000_000
"""With several notices to show, the TV's banner strip shows them one at a time, each for
this long in turn (4 s: time to read a line from across the room), so none is cut off."""


def banner_turn(text: str, now_ns: int) -> tuple[str, int | None]:
    """What the banner strip shows at ``now_ns`` (``int`` CLOCK_MONOTONIC ns) of ``text``
    (notices joined by :data:`SEPARATOR`, most urgent first) and when that next changes:
    the text and ``None`` for one notice (or none), else notice ``i`` of ``n`` followed by
    ``" (i/n)"``, in turn every :data:`TURN_NS` on the clock, and the next turn's start.

    >>> banner_turn("a", 0), banner_turn("a  ·  b", 0), banner_turn("a  ·  b", TURN_NS)[0]
    (('a', None), ('a (1/2)', 4000000000), 'b (2/2)')
    """
    lines = [line for line in text.split(SEPARATOR) if line]
    if len(lines) <= 1:
        return text, None
    turn = now_ns // TURN_NS
    i = turn % len(lines)
    return f"{lines[i]} ({i + 1}/{len(lines)})", (turn + 1) * TURN_NS


@dataclass(frozen=True, slots=True)
class Notice:
    """One line on the TV's banner: ``text``; ``until_ns``: when it goes by itself
    (CLOCK_MONOTONIC ns; ``None``: when taken back); ``lobby``: it also goes when a game
    starts (a line about the lobby's choices)."""

    text: str
    until_ns: int | None = None
    lobby: bool = False

    def live(self, now_ns: int | None) -> bool:
        """Still shown at ``now_ns`` (``None``: at any time, only taking back ends it)."""
        return self.until_ns is None or now_ns is None or now_ns < self.until_ns


class Notices:
    """The banner's notices in order (see the module docstring).  One text is one notice:
    showing a text already shown refreshes it in place (the later end wins)."""

    def __init__(self) -> None:
        self.items: list[Notice] = []
        """The notices shown now, in banner order."""

    def show(self, text: str, *, until_ns: int | None = None, lobby: bool = False,
             first: bool = False) -> None:
        """Show ``text`` until ``until_ns`` (``None``: until :meth:`drop`), and when
        ``lobby`` not past a game's start; ``first`` puts a new notice before the others.
        An empty text is not shown.  A text already shown keeps its place and lives until
        the later of both ends (a lobby line stops being one if either is not)."""
        if not text:
            return
        for i, old in enumerate(self.items):
            if old.text == text:
                until = None if old.until_ns is None or until_ns is None else max(
                    old.until_ns, until_ns)
                self.items[i] = replace(old, until_ns=until, lobby=old.lobby and lobby)
                return
        notice = Notice(text, until_ns, lobby)
        if first:
            self.items.insert(0, notice)
        else:
            self.items.append(notice)

    def drop(self, text: str) -> None:
        """Take ``text`` back (nothing happens when it is not shown)."""
        self.items = [n for n in self.items if n.text != text]

    def expire(self, now_ns: int) -> None:
        """Drop every notice whose time is up at ``now_ns``."""
        self.items = [n for n in self.items if n.live(now_ns)]

    def game_starts(self) -> None:
        """A game starts: the lobby's lines go, every other notice stays."""
        self.items = [n for n in self.items if not n.lobby]

    def text(self, now_ns: int | None = None) -> str:
        """The banner: every notice live at ``now_ns`` (``None``: every one), joined by
        :data:`SEPARATOR`; ``""`` when there is none."""
        return SEPARATOR.join(n.text for n in self.items if n.live(now_ns))

    def __contains__(self, text: object) -> bool:
        """Whether a notice with this text is shown."""
        return any(n.text == text for n in self.items)

"""What the TV shows when the console cannot start: a config that fails ``check-config``, or
a driver that cannot be opened (the one line goes on the TV, not only into the journal,
since a party has no terminal to read).

The picture is drawn for a room, not a terminal (docs/screens.md: the TV is read from 1-3 m,
often at an angle; text in words; pygame's default font only): on the 1920x1080 logical frame
an orange band with the title in 110 px lines, the file or part it is about (60 px), the
problem itself wrapped in 84 px lines (up to 5), how many more problems there are and the
command that lists them, and at the bottom what happens next (60 px).  A smaller or larger
TV gets the same picture scaled, centred.

:class:`Fault` is the text; :class:`FaultScreen` draws it on a
:class:`drivers.table_display.TableDisplay` (only when it changes: the service then waits
without drawing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from device.render.palette import BACKGROUND, INK, ORANGE, TEXT, TEXT_DIM, YELLOW

if TYPE_CHECKING:
    import pygame

    from device.render.text import Typesetter
    from drivers.table_display import TableDisplay

LOGICAL = (1920, 1080)
"""The frame the layout is made for (docs/screens.md, "Table display"), px."""

MARGIN = 110
"""Left and right margin, logical px."""

TITLE_PX, SOURCE_PX, PROBLEM_PX, NOTE_PX = 110, 60, 84, 60
"""Line heights in logical px: the band's title, the file, the problem, the notes."""

PROBLEM_LINES = 5
"""The most lines the problem is wrapped onto; the rest ends in an ellipsis."""


@dataclass(frozen=True, slots=True)
class Fault:
    """A reason the console cannot start, for the TV and ``systemctl status``.

    ``title``: the band's words (``"The console cannot start"``); ``problem``: the one line
    (a config problem starts with its key: ``seat[1].slap_pin: GPIO 17 is already ...``);
    ``source``: the file or part it is about (``/etc/partytable/config.toml``), or ``""``;
    ``more``: ``"2 more problems: python -m device check-config"`` or ``""``; ``hint``:
    what happens next (``"Fix the file: the console starts by itself"``)."""

    title: str
    problem: str
    source: str = ""
    more: str = ""
    hint: str = ""

    @property
    def line(self) -> str:
        """One line: ``source: problem`` (as the log prints it), then ``more``."""
        text = f"{self.source}: {self.problem}" if self.source else self.problem
        return f"{text} ({self.more})" if self.more else text


class FaultScreen:
    """Draws a :class:`Fault` on ``display`` (its surface, then one flip).

    :meth:`show` draws only when the fault differs from the one on the TV (a waiting
    service must not redraw every poll).  Needs pygame's display open (``display``);
    raises ``pygame.error`` only if pygame's font module cannot start."""

    def __init__(self, display: TableDisplay) -> None:
        from device.render.text import Typesetter

        self.display = display
        self.shown: Fault | None = None
        """The fault on the TV now, or ``None`` before the first :meth:`show`."""
        self._type: Typesetter = Typesetter()

    def show(self, fault: Fault) -> bool:
        """Draw ``fault`` and flip, unless it is already shown; True when it drew."""
        if fault == self.shown:
            return False
        draw_fault(self.display.surface, fault, self._type)
        self.display.flip()
        self.shown = fault
        return True


def draw_fault(surface: pygame.Surface, fault: Fault, typesetter: Typesetter) -> None:
    """Draw ``fault`` onto ``surface`` (any size: the 1920x1080 layout scaled to fit,
    centred, the rest :data:`BACKGROUND`)."""
    width, height = surface.get_size()
    scale = min(width / LOGICAL[0], height / LOGICAL[1])
    left = (width - LOGICAL[0] * scale) / 2
    top = (height - LOGICAL[1] * scale) / 2

    def px(v: float) -> int:
        return max(1, round(v * scale))

    def text(line: str, size: int, colour: tuple[int, int, int], x: float, y: float) -> None:
        font = typesetter.font(px(size))
        surface.blit(font.render(line, True, colour), (round(left + px(x)), round(top + px(y))))

    surface.fill(BACKGROUND)
    surface.fill(ORANGE, (0, round(top), width, px(190)))  # the band spans any TV's width
    text(fault.title, TITLE_PX, INK, MARGIN, 40)
    y = 250.0
    if fault.source:
        for line in wrap(fault.source, typesetter.font(px(SOURCE_PX)), px(LOGICAL[0] - 2 * MARGIN),
                         2):
            text(line, SOURCE_PX, TEXT_DIM, MARGIN, y)
            y += SOURCE_PX
        y += 30
    font = typesetter.font(px(PROBLEM_PX))
    for line in wrap(fault.problem, font, px(LOGICAL[0] - 2 * MARGIN), PROBLEM_LINES):
        text(line, PROBLEM_PX, TEXT, MARGIN, y)
        y += PROBLEM_PX
    if fault.more:
        text(fault.more, NOTE_PX, YELLOW, MARGIN, y + 40)
    if fault.hint:
        text(fault.hint, NOTE_PX, TEXT_DIM, MARGIN, LOGICAL[1] - 60 - NOTE_PX)


def wrap(line: str, font: pygame.font.Font, width: int, max_lines: int) -> list[str]:
    """``line`` broken at spaces into lines no wider than ``width`` px in ``font`` (a word
    wider than a line is broken between characters), at most ``max_lines`` (>= 1) of them:
    the last of a longer text ends in ``...``."""
    words = line.split()
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if font.size(candidate)[0] <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
        while font.size(current)[0] > width and len(current) > 1:
            cut = _fit(current, font, width)
            lines.append(current[:cut])
            current = current[cut:]
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and font.size(last + "...")[0] > width:
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last.rstrip() + "..."]
    return lines


def _fit(word: str, font: pygame.font.Font, width: int) -> int:
    """How many leading characters of ``word`` fit in ``width`` px (at least 1)."""
    cut = len(word)
    while cut > 1 and font.size(word[:cut])[0] > width:
        cut -= 1
    return cut

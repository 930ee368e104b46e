"""The "How to play" pages: what a game's rules look like on the TV, as plain values.

A TV that teaches: every game's plugin gives a few pages
(:meth:`device.games.base.GamePlugin.howto_pages`), each a :class:`HowtoPage` with a title,
a few short lines of rules and :class:`Picture` values (a real card face drawn by the
plugin's ``card_face``, or a sign: a condition glyph or one of the game's symbols) with a
caption under each (:func:`card_pictures`, :func:`sign_pictures` make a row of them).
``device.render.howto.draw_howto`` draws one page on the table display; :class:`HowtoBook`
steps through one game's pages, and :class:`HowtoScreen` is the part the game flow holds:
the book open now (phase ``HOWTO``) and what the handheld keys do there
(:data:`HOWTO_HINT`).

The core knows no game: the words and the rule ids (``rules`` on each page, from
``rules/<game>.md``) are the plugin's.  :func:`pages` asks the plugin and checks what it
got, so a damaged page is left out with one log line and never reaches the renderer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from device.hand_ui import Key

if TYPE_CHECKING:
    from device.games.base import GamePlugin

log = logging.getLogger("partytable")

HOWTO_HINT = "< > turn the page   BACK: lobby"
"""The key help on a "How to play" page."""
MAX_LINES = 5
"""Most rule lines a page shows (the page is read from two metres: few, short lines)."""
MAX_PICTURES = 7
"""Most pictures a page shows in its row."""
MAX_LINE_CHARS = 52
"""Most characters in one rule line (70 px text across 1,760 px of the 1920x1080 page)."""
MAX_CAPTION_CHARS = 16
"""Most characters in a picture's caption (it sits under a card about 250 px wide)."""


@dataclass(frozen=True, slots=True)
class Picture:
    """One picture on a page: a card face or a sign, with a ``caption`` under it.

    - ``card``: a card code of the game (``"7C/>"``, ``"J"``), drawn with the plugin's
      ``card_face`` (an unreadable code is drawn as a ``"?"`` card)
    - ``sign``: when ``card`` is empty, a sign drawn on a paper tile: a glyph name of
      ``device.render.icons.GLYPHS`` (``"up"``, ``"even"``, ...), a symbol name of the
      plugin's ``symbols`` (``"T"``), ``"back"`` (a card back) or ``"digits:2 5 8"``
      (the numbers written large)
    - ``caption``: at most :data:`MAX_CAPTION_CHARS` characters (``"HIGHER"``)
    """

    card: str = ""
    sign: str = ""
    caption: str = ""


@dataclass(frozen=True, slots=True)
class HowtoPage:
    """One "How to play" page: ``title`` (``"Lay a card"``), ``lines`` (at most
    :data:`MAX_LINES`, each at most :data:`MAX_LINE_CHARS` characters), ``pictures`` (at
    most :data:`MAX_PICTURES`) and ``rules``, the rule ids the page explains (``"RI-4.2"``,
    for the reader of the code and the tests; not drawn)."""

    title: str
    lines: tuple[str, ...]
    pictures: tuple[Picture, ...] = ()
    rules: tuple[str, ...] = ()

    @property
    def cards(self) -> tuple[str, ...]:
        """The card codes the page shows, in order (pictures that are cards)."""
        return tuple(p.card for p in self.pictures if p.card)


def card_pictures(*pictures: tuple[str, str]) -> tuple[Picture, ...]:
    """Card pictures from ``(card code, caption)`` pairs, in order:
    ``card_pictures(("4", "top card"))`` is ``(Picture(card="4", caption="top card"),)``."""
    return tuple(Picture(card=code, caption=caption) for code, caption in pictures)


def sign_pictures(*pictures: tuple[str, str]) -> tuple[Picture, ...]:
    """Sign pictures (:class:`Picture` ``sign``) from ``(sign, caption)`` pairs, in order:
    ``sign_pictures(("up", "HIGHER"))`` is ``(Picture(sign="up", caption="HIGHER"),)``."""
    return tuple(Picture(sign=sign, caption=caption) for sign, caption in pictures)


def page_problem(page: object) -> str | None:
    """What is wrong with ``page`` in one line (``"line 2 has 61 characters (at most
    52)"``), or ``None`` when it can be drawn as the page limits above say."""
    if not isinstance(page, HowtoPage):
        return f"a {type(page).__name__}, not a HowtoPage"
    if not isinstance(page.title, str) or not page.title.strip():
        return "no title"
    if not isinstance(page.lines, tuple) or not all(isinstance(x, str) for x in page.lines):
        return "lines are not a tuple of strings"
    if len(page.lines) > MAX_LINES:
        return f"{len(page.lines)} lines (at most {MAX_LINES})"
    for i, line in enumerate(page.lines, 1):
        if len(line) > MAX_LINE_CHARS:
            return f"line {i} has {len(line)} characters (at most {MAX_LINE_CHARS})"
    if not isinstance(page.pictures, tuple) or not all(
        isinstance(p, Picture) for p in page.pictures
    ):
        return "pictures are not a tuple of Picture"
    if len(page.pictures) > MAX_PICTURES:
        return f"{len(page.pictures)} pictures (at most {MAX_PICTURES})"
    for i, pic in enumerate(page.pictures, 1):
        if not (pic.card or pic.sign):
            return f"picture {i} has neither a card nor a sign"
        if len(pic.caption) > MAX_CAPTION_CHARS:
            return (
                f"picture {i} caption has {len(pic.caption)} characters "
                f"(at most {MAX_CAPTION_CHARS})"
            )
    return None


def pages(plugin: GamePlugin) -> tuple[HowtoPage, ...]:
    """The pages of ``plugin``'s game that can be drawn (:func:`page_problem`), in order.

    A page that breaks the limits, or a plugin whose ``howto_pages`` raises, is left out
    with one log line naming the game, the page and what is wrong; a game with no good
    page gets one page saying so, so the TV always has something to show.  Never raises.
    """
    try:
        got = tuple(plugin.howto_pages())
    except Exception as exc:  # a plugin's bug must not take the lobby down
        log.warning("how to play %s: the pages could not be made: %s", plugin.title, exc)
        got = ()
    good: list[HowtoPage] = []
    for i, page in enumerate(got, 1):
        problem = page_problem(page)
        if isinstance(page, HowtoPage) and problem is None:
            good.append(page)
        else:
            log.warning("how to play %s: page %d left out: %s", plugin.title, i, problem)
    if not good:
        good.append(HowtoPage(plugin.title, ("No rules to show for this game yet.",)))
    return tuple(good)


class HowtoBook:
    """The pages of one game and the one shown now, stepped with the handheld keys.

    ``plugin``: the game (its pages are read once, through :func:`pages`).  LEFT/RIGHT
    (:meth:`step` with -1/+1) turn the page and wrap around from the last to the first.
    """

    def __init__(self, plugin: GamePlugin) -> None:
        self.plugin = plugin
        self.pages = pages(plugin)
        self.index = 0

    @property
    def page(self) -> HowtoPage:
        """The page shown now."""
        return self.pages[self.index]

    @property
    def label(self) -> str:
        """Where the reader is: ``"2/3"``."""
        return f"{self.index + 1}/{len(self.pages)}"

    def step(self, delta: int) -> HowtoPage:
        """Turn ``delta`` pages (negative: back), wrapping around; returns the new page."""
        self.index = (self.index + delta) % len(self.pages)
        return self.page


class HowtoScreen:
    """The lobby's "How to play" screen: the book open now, and what a handheld key does.

    :meth:`open` opens ``plugin``'s book at its first page; LEFT/RIGHT turn the page
    (wrapping around, :meth:`HowtoBook.step`); BACK closes it (:meth:`key` returns
    False: the flow shows the lobby again).  Holds no clock and does no I/O."""

    def __init__(self) -> None:
        self.book: HowtoBook | None = None
        """The book shown now, or ``None`` when the screen is closed."""

    def open(self, plugin: GamePlugin) -> HowtoBook:
        """Open ``plugin``'s pages at the first one (read through :func:`pages`)."""
        self.book = HowtoBook(plugin)
        return self.book

    def close(self) -> None:
        """Close the book (idempotent)."""
        self.book = None

    def key(self, key: Key) -> bool:
        """One handheld key: LEFT a page back, RIGHT or SELECT a page on, BACK closes.
        Returns whether the screen is still open (False: BACK, or no book was open)."""
        if self.book is None or key is Key.BACK:
            self.close()
            return False
        self.book.step(-1 if key is Key.LEFT else 1)
        return True

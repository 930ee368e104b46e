"""The "How to play" pages: what a game's rules look like on the TV, as plain values.

A TV that teaches: every game's plugin gives a few pages
(:meth:`device.games.base.GamePlugin.howto_pages`), each a :class:`HowtoPage` with a title,
a few short lines of rules and :class:`Picture` values (a real card face drawn by the
plugin's ``card_face``, or a sign: a condition glyph or one of the game's symbols) with a
caption under each (:func:`card_pictures`, :func:`sign_pictures` make a row of them).
``device.render.howto_page.draw_howto`` draws one page on the table display; :class:`HowtoBook`
steps through one game's pages, and :class:`HowtoScreen` is the part the game flow holds:
the book open now (phase ``HOWTO``) and what the handheld keys do there
(:data:`HOWTO_HINT`).

The core knows no game: the words and the rule ids (``rules`` on each page, from
``rules/<game>.md``) are the plugin's.  :func:`pages` asks the plugin and checks what it
got, so a damaged page is left out with one log line and never reaches the renderer.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from device.hands.composer import HandKey
from device.render.howto_model import HowtoPage, page_problem

if TYPE_CHECKING:
    from device.games import AnyPlugin

log = logging.getLogger("partytable")

HOWTO_HINT = "< > turn the page   BACK: lobby"
"""The key help on a "How to play" page."""
def pages(plugin: AnyPlugin) -> tuple[HowtoPage, ...]:
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

    def __init__(self, plugin: AnyPlugin) -> None:
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

    def open(self, plugin: AnyPlugin) -> HowtoBook:
        """Open ``plugin``'s pages at the first one (read through :func:`pages`)."""
        self.book = HowtoBook(plugin)
        return self.book

    def close(self) -> None:
        """Close the book (idempotent)."""
        self.book = None

    def key(self, key: HandKey) -> bool:
        """One handheld key: LEFT a page back, RIGHT or SELECT a page on, BACK closes.
        Returns whether the screen is still open (False: BACK, or no book was open)."""
        if self.book is None or key is HandKey.BACK:
            self.close()
            return False
        self.book.step(-1 if key is HandKey.LEFT else 1)
        return True

"""A "How to play" page as plain values: what a game's rules look like on the TV.

Every game's plugin gives a few pages (``device.games.base.GamePlugin.howto_pages``), each
a :class:`HowtoPage` with a title, a few short lines of rules and :class:`Picture` values (a
real card face drawn by the plugin's ``card_face``, or a sign: a condition glyph or one of
the game's symbols) with a caption under each; :func:`page_problem` says in one line what
keeps a page from being drawn.  ``device.render.howto_page.draw_howto`` draws one page on the
table display.  Lengths are characters; the limits follow from a page read from two metres
on the 1920x1080 logical frame.
"""

from __future__ import annotations

from dataclasses import dataclass

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

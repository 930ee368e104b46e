"""The "How to play" pages (device/flow/howto.py, the plugins' howto.py) and their drawing on the
TV (device/render/howto_page.py): content within the page limits, real cards, rule ids that
exist, bad pages left out, and a page readable at 1920x1080 and scaled to 480x270."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pygame
import pytest

from device.flow.howto import HowtoBook, HowtoScreen, pages
from device.games import PLUGINS, get_plugin
from device.games.base import GamePlugin
from device.games.riiing import RiiingPlugin
from device.hands.composer import HandKey
from device.render import howto_page as render_howto
from device.render.cards import CardPainter
from device.render.howto_model import MAX_LINES, HowtoPage, Picture, page_problem
from device.render.icons import GLYPHS
from device.render.palette import BACKGROUND, BLACK, PAPER, YELLOW
from device.render.text import Typesetter
from engine.core import NotationError
from engine.right_on_time.cards import RotCard
from engine.riiing.cards import RiiingCard

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
"""The device's rules files (``docs/rules``)."""
RULE_FILES = {"riiing": "riiing.md", "right-on-time": "right-on-time.md"}
CARD_PARSERS = {"riiing": RiiingCard.parse, "right-on-time": RotCard.parse}
"""Each game's card reader (raises ``NotationError`` for a code the engine does not read)."""


@pytest.fixture(autouse=True, scope="module")
def _fonts() -> None:
    pygame.font.init()


def _plugins() -> list[GamePlugin]:
    return list(PLUGINS.values())


@pytest.mark.parametrize("plugin", _plugins(), ids=lambda p: p.name)
def test_every_game_has_two_to_four_good_pages(plugin: GamePlugin) -> None:
    """Each game gives 2-4 pages, all within the limits (page_problem is None), each with
    rule lines and pictures, and pages() keeps them all in order."""
    got = plugin.howto_pages()
    assert 2 <= len(got) <= 4
    for page in got:
        assert page_problem(page) is None, page.title
        assert page.lines and page.pictures and page.rules
    assert pages(plugin) == got


@pytest.mark.parametrize("plugin", _plugins(), ids=lambda p: p.name)
def test_pictures_are_real_cards_and_known_signs(plugin: GamePlugin) -> None:
    """Every card code on a page is one the engine reads (so the face is the real card, not
    the "?" card); every sign is a glyph, a symbol of the game, a back or digits."""
    parse = CARD_PARSERS[plugin.name]
    for page in plugin.howto_pages():
        for code in page.cards:
            try:
                parse(code)
            except NotationError as exc:  # pragma: no cover - the assertion message
                pytest.fail(f"{plugin.name} page {page.title!r}: card {code!r}: {exc}")
        for pic in page.pictures:
            if pic.card:
                continue
            assert (
                pic.sign in GLYPHS or pic.sign in plugin.symbols or pic.sign == "back"
                or pic.sign.startswith("digits:")
            ), pic.sign


@pytest.mark.parametrize("plugin", _plugins(), ids=lambda p: p.name)
def test_rule_ids_on_pages_exist_in_the_rules(plugin: GamePlugin) -> None:
    """Every rule id a page names is one the game's engine implements (cited in its
    source and defined in its rules file, docs/rules/*.md), and the pages together explain
    the core rules (a turn, the end)."""
    pattern = r"\b(R[IT]-\d+(?:\.\d+)?)\b"
    folder = ROOT / "engine" / plugin.name.replace("-", "_")
    ids = set(re.findall(pattern, "".join(
        f.read_text(encoding="utf-8") for f in sorted(folder.glob("*.py")))))
    path = RULES / RULE_FILES[plugin.name]
    ids &= set(re.findall(pattern, path.read_text(encoding="utf-8")))
    named = {rule for page in plugin.howto_pages() for rule in page.rules}
    assert named <= ids, sorted(named - ids)
    core = {"riiing": {"RI-4.1", "RI-4.2", "RI-6.3", "RI-7.1"},
            "right-on-time": {"RT-3.1", "RT-3.2", "RT-5.1", "RT-6.2", "RT-7.1"}}
    assert core[plugin.name] <= named


class _BadPages(RiiingPlugin):
    """A plugin whose pages break the limits."""

    def howto_pages(self) -> tuple[HowtoPage, ...]:
        good = HowtoPage("Fine", ("One line.",), (Picture(card="7C/>"),))
        too_long = HowtoPage("Long", ("x" * 80,))
        too_many = HowtoPage("Many", tuple(f"line {i}" for i in range(MAX_LINES + 1)))
        no_picture = HowtoPage("Empty picture", ("ok",), (Picture(caption="nothing"),))
        return (too_long, good, too_many, no_picture)


class _BrokenPages(RiiingPlugin):
    """A plugin whose howto_pages raises."""

    def howto_pages(self) -> tuple[HowtoPage, ...]:
        raise RuntimeError("deck file missing")


def test_bad_pages_are_left_out_with_one_line_each(caplog: pytest.LogCaptureFixture) -> None:
    """A page over the limits is left out with one log line naming the game, the page and
    what is wrong; the good page stays."""
    with caplog.at_level(logging.WARNING, logger="partytable"):
        got = pages(_BadPages())
    assert [p.title for p in got] == ["Fine"]
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "how to play Riiing!: page 1 left out: line 1 has 80 characters (at most 52)",
        "how to play Riiing!: page 3 left out: 6 lines (at most 5)",
        "how to play Riiing!: page 4 left out: picture 1 has neither a card nor a sign",
    ]


def test_a_plugin_that_fails_gets_one_page_saying_so(caplog: pytest.LogCaptureFixture) -> None:
    """A plugin whose pages raise: one log line and one page that says there are no rules
    to show, so the TV is never empty."""
    with caplog.at_level(logging.WARNING, logger="partytable"):
        got = pages(_BrokenPages())
    assert len(got) == 1 and got[0].title == "Riiing!"
    assert "no rules" in got[0].lines[0].lower()
    assert [r.getMessage() for r in caplog.records] == [
        "how to play Riiing!: the pages could not be made: deck file missing"
    ]


def test_page_problem_names_what_is_wrong() -> None:
    """page_problem names the first thing wrong in one line."""
    assert page_problem("a page") == "a str, not a HowtoPage"
    assert page_problem(HowtoPage("  ", ())) == "no title"
    caption = HowtoPage("T", ("ok",), (Picture(sign="up", caption="x" * 17),))
    assert page_problem(caption) == "picture 1 caption has 17 characters (at most 16)"
    many = HowtoPage("T", ("ok",), tuple(Picture(sign="up") for _ in range(8)))
    assert page_problem(many) == "8 pictures (at most 7)"


def test_the_book_steps_and_wraps_around() -> None:
    """RIGHT past the last page comes back to the first; LEFT from the first goes to the
    last; the label says where the reader is."""
    book = HowtoBook(get_plugin("right-on-time"))
    n = len(book.pages)
    assert book.label == f"1/{n}"
    assert book.step(-1) == book.pages[-1] and book.label == f"{n}/{n}"
    assert book.step(1) == book.pages[0]
    for _ in range(n):
        book.step(1)
    assert book.index == 0


@pytest.mark.parametrize("plugin", _plugins(), ids=lambda p: p.name)
def test_every_line_and_caption_reads_at_full_size(plugin: GamePlugin) -> None:
    """No rule line shrinks below 60 px (15 px on a 480x270 frame) and no caption needs
    more than its two lines at 48 px (12 px at 480x270): nothing is cut with "..."."""
    text = Typesetter()
    width = 1920 - 2 * render_howto.MARGIN
    for page in plugin.howto_pages():
        for line in page.lines:
            size = text.fit_size(line, render_howto.LINE_PX, width, 1)
            assert size >= render_howto.LINE_MIN_PX, (page.title, line, size)
        _height, slot, _x0 = render_howto.layout_pictures(len(page.pictures), 600, 1000)
        for pic in page.pictures:
            wrapped = text.wrap(pic.caption, render_howto.CAPTION_PX, slot - 16, 2)
            assert " ".join(wrapped) == pic.caption, (page.title, pic.caption)


def _count(surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int]) -> int:
    """Pixels of ``colour`` (within 6 per channel) inside ``rect``."""
    area = surface.subsurface(rect.clip(surface.get_rect()))
    return int(pygame.mask.from_threshold(area, (*colour, 255), (7, 7, 7, 255)).count())


@pytest.mark.parametrize("plugin", _plugins(), ids=lambda p: p.name)
def test_pages_draw_their_cards_at_1920_and_scaled_to_480(
    plugin: GamePlugin, tmp_path: Path
) -> None:
    """Each page draws at 1920x1080 with its heading in yellow, paper (card faces) in the
    picture row and nothing outside the frame; scaled to 480x270 the same picture
    survives (paper where the cards are); PNGs of both sizes are written for a look."""
    text = Typesetter()
    cards = CardPainter(text)
    got = pages(plugin)
    for i, page in enumerate(got, 1):
        big = pygame.Surface((1920, 1080))
        rect = render_howto.draw_howto(
            big, plugin, page, number=i, count=len(got), hint="< > page   BACK: lobby",
            text=text, cards=cards,
        )
        assert rect == big.get_rect()
        assert _count(big, pygame.Rect(80, 10, 700, 80), YELLOW) > 2000  # HOW TO PLAY ...
        rows = pygame.Rect(0, 560, 1920, 440)
        assert _count(big, rows, PAPER) > 15_000 * len(page.pictures)
        assert _count(big, pygame.Rect(0, 0, 1920, 1080), BACKGROUND) > 1_000_000
        small = pygame.Surface((480, 270))
        render_howto.draw_howto(small, plugin, page, number=i, count=len(got), text=text,
                                cards=cards)
        assert _count(small, pygame.Rect(0, 140, 480, 110), PAPER) > 1000 * len(page.pictures)
        pygame.image.save(big, str(tmp_path / f"howto-{plugin.name}-{i}.png"))
        pygame.image.save(small, str(tmp_path / f"howto-{plugin.name}-{i}-480.png"))


def test_an_odd_surface_is_letterboxed_and_unknown_content_is_a_question_mark() -> None:
    """A 4:3 surface gets black bars above and below; a page with an unreadable card and an
    unknown sign still draws (their "?" faces), never raising."""
    plugin = get_plugin("riiing")
    page = HowtoPage("Odd", ("a line",), (Picture(card="ZZ/9"), Picture(sign="nope")))
    surface = pygame.Surface((800, 600))
    render_howto.draw_howto(surface, plugin, page)
    assert surface.get_at((400, 10))[:3] == BLACK  # the bar above the 16:9 frame
    assert surface.get_at((400, 300))[:3] != BLACK
    face = render_howto.picture_surface(plugin, page.pictures[1], 200, CardPainter(Typesetter()))
    assert face.get_size() == (140, 200)


def test_the_howto_screen_turns_pages_with_the_keys_and_back_closes_it() -> None:
    """RIGHT and SELECT turn a page on, LEFT back (wrapping to the last page), BACK closes
    the screen (the flow shows the lobby); a key with no book open closes it too."""
    screen = HowtoScreen()
    assert not screen.key(HandKey.RIGHT) and screen.book is None
    book = screen.open(get_plugin("right-on-time"))
    assert screen.book is book and book.index == 0 and len(book.pages) >= 2
    assert screen.key(HandKey.RIGHT) and book.index == 1
    assert screen.key(HandKey.SELECT) and book.index == 2 % len(book.pages)
    assert screen.key(HandKey.LEFT) and screen.key(HandKey.LEFT) and book.index == 0
    assert screen.key(HandKey.LEFT) and book.index == len(book.pages) - 1
    assert not screen.key(HandKey.BACK) and screen.book is None

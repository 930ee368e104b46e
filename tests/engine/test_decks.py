"""Decks are data (RI-1.5, RT-1.1, RT-1.2): a position names the bundled deck or holds its
cards inline and never names a file; only ``--deck-file`` on the command line reads one,
and only a small regular UTF-8 file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from engine._common import DECK_FILE_LIMIT, read_text_file
from engine.cli import main
from engine.core import NotationError
from engine.right_on_time.cards import read_deck_file as rot_read_deck_file
from engine.riiing.deck import default_deck, load_deck, read_deck_file

ROOT = Path(__file__).resolve().parents[2]
RIIING = get_game("riiing")
ROT = get_game("right-on-time")

SMALL_RIIING = [f"{n}{s}/{b}" for s in "ASCT" for n in range(1, 10) for b in ("E", "O")][:40]
"""A 40-card Riiing! printing (no two cards share a code)."""


def cli(*argv: str) -> tuple[int, str, str]:
    """Run engine.cli.main with empty stdin; returns (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), io.StringIO(""), out, err)
    return status, out.getvalue(), err.getvalue()


def held(game_name: str, obj: dict[str, Any]) -> Counter[str]:
    """The multiset of card codes a position object holds (hands, bonus, piles; a Right on
    Time ``J<n>`` counted as ``J``), read through the engine."""
    pos = get_game(game_name).parse_position(obj)
    return Counter(str(card) for card in pos.cards())


def test_riiing_deck_file_goes_inline_into_the_position(tmp_path: Path) -> None:
    """RI-1.5: `new riiing --deck-file FILE` deals exactly the file's cards and the position
    holds them inline as a list; the position then reads back with no file involved."""
    path = tmp_path / "mine.txt"
    path.write_text("# a smaller printing\n" + "\n".join(SMALL_RIIING) + "\n", encoding="utf-8")
    status, out, err = cli("new", "riiing", "--seats", "2", "--seed", "3", "--option",
                           "hand_size=5", "--deck-file", str(path))  # fmt: skip
    assert (status, err) == (0, "")
    obj = json.loads(out)
    assert obj["options"]["deck"] == SMALL_RIIING
    assert held("riiing", obj) == Counter(SMALL_RIIING)
    path.unlink()
    assert RIIING.parse_position(obj) == RIIING.new(2, 3, {"hand_size": 5, "deck": SMALL_RIIING})


def test_rot_deck_file_goes_inline_into_the_position(tmp_path: Path) -> None:
    """RT-1.2: `new right-on-time --deck-file FILE` (CODE COUNT lines) deals the file's
    cards; the position writes them inline, and `play` with the same file plays them."""
    path = tmp_path / "mine.txt"
    path.write_text("# another printing\n1 6\n4 6\nJ 2\nD7 2\nZ2 2\nN 2\n", encoding="utf-8")
    expected = Counter({"1": 6, "4": 6, "J": 2, "D7": 2, "Z2": 2, "N": 2})
    status, out, err = cli("new", "right-on-time", "--seats", "3", "--seed", "9", "--deck-file",
                           str(path))  # fmt: skip
    assert (status, err) == (0, "")
    obj = json.loads(out)
    assert Counter(obj["options"]["deck"]) == expected and held("right-on-time", obj) == expected
    status, out, err = cli("play", "right-on-time", "--seats", "3", "--seed", "9", "--bots",
                           "random", "--deck-file", str(path))  # fmt: skip
    assert status == 0 and err == "" and out.splitlines()[-1].startswith("winner: ")


def test_the_standard_deck_is_named_not_listed() -> None:
    """A position from the bundled deck names it: riiing writes deck 'standard'; Right on
    Time leaves deck out (its rules name no deck option) and reads 'standard' back."""
    r = RIIING.position_json(RIIING.new(3, 1))
    assert r["options"]["deck"] == "standard"
    t = ROT.position_json(ROT.new(3, 1))
    assert "deck" not in t["options"]
    t["options"]["deck"] = "standard"
    assert ROT.parse_position(t) == ROT.new(3, 1)
    assert load_deck("standard") == default_deck()


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
def test_a_position_never_opens_a_file(game: str, tmp_path: Path) -> None:
    """Option deck naming an existing, valid deck file is refused: a position is data."""
    path = tmp_path / "deck.txt"
    path.write_text("\n".join(SMALL_RIIING) if game == "riiing" else "1 9\n", encoding="utf-8")
    obj = get_game(game).position_json(get_game(game).new(2, 1))
    obj["options"]["deck"] = str(path)
    with pytest.raises(NotationError, match="no bundled deck") as info:
        get_game(game).parse_position(obj)
    assert "position field 'options" in str(info.value)
    with pytest.raises(NotationError, match="no bundled deck"):
        get_game(game).new(2, 1, {"deck": str(path)})


def test_inline_riiing_decks_are_checked_card_by_card() -> None:
    """RI-1.5: an inline deck's bad code is named by its place; too few cards to deal is
    the RI-2.1 error; the bundled deck still holds 96."""
    with pytest.raises(NotationError, match=r"^option deck: card 2: bad card code '7C/Q'"):
        RIIING.new(2, 1, {"deck": ["7C/>", "P/E", "7C/Q"]})
    with pytest.raises(NotationError, match=r"\(RI-2.1\)$"):
        RIIING.new(2, 1, {"deck": SMALL_RIIING[:10]})
    assert len(load_deck("standard")) == 96


def test_deck_file_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO given as --deck-file is refused before it is opened: the real command line
    returns at once (it would block forever on open otherwise)."""
    fifo = tmp_path / "deck.fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "engine", "new", "riiing", "--seats", "2", "--seed", "1",
         "--deck-file", str(fifo)],
        cwd=ROOT, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr


def test_deck_file_limits(tmp_path: Path) -> None:
    """--deck-file: larger than 64 KiB, not UTF-8, a count in non-ASCII digits, a bad code,
    a symlink to a device: one NotationError naming the file or line each."""
    big = tmp_path / "big.txt"
    big.write_text("# padding\n" * (DECK_FILE_LIMIT // 10 + 1), encoding="utf-8")
    with pytest.raises(NotationError, match="larger than 65536 bytes"):
        read_deck_file(str(big))
    latin = tmp_path / "latin.txt"
    latin.write_bytes("7C/>  # caf\u00e9\n".encode("latin-1"))
    with pytest.raises(NotationError, match="not UTF-8 text"):
        read_deck_file(str(latin))
    superscript = tmp_path / "sup.txt"
    superscript.write_text("7 \u00b2\n", encoding="utf-8")
    with pytest.raises(NotationError, match=r"line 1: expected 'CODE COUNT', got '7 ²'"):
        rot_read_deck_file(str(superscript))
    bad = tmp_path / "bad.txt"
    bad.write_text("7C/>\n7C/Q\n", encoding="utf-8")
    with pytest.raises(NotationError, match=r"bad.txt' line 2: bad card code '7C/Q'"):
        read_deck_file(str(bad))
    link = tmp_path / "zero.txt"
    link.symlink_to("/dev/zero")
    with pytest.raises(NotationError, match="not a regular file"):
        read_text_file(str(link), DECK_FILE_LIMIT, "--deck-file")


def test_deck_file_and_deck_option_together_are_refused(tmp_path: Path) -> None:
    """--deck-file and --option deck=... name two decks: one error line."""
    path = tmp_path / "d.txt"
    path.write_text("1 60\n", encoding="utf-8")
    status, out, err = cli("new", "right-on-time", "--seats", "2", "--seed", "1",
                           "--option", "deck=standard", "--deck-file", str(path))  # fmt: skip
    assert (status, out) == (2, "") and err.count("\n") == 1 and "not both" in err

"""``scripts.compare_frames``: the pixel-for-pixel comparison of two folders of frames."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from scripts.compare_frames import differences


def _frames(folder: Path, colour: tuple[int, int, int]) -> None:
    (folder / "riiing").mkdir(parents=True)
    Image.new("RGB", (8, 4), colour).save(folder / "riiing" / "table-0000.png")
    summary = {"games": [{"winner": 1, "frames": str(folder / "riiing")}]}
    (folder / "summary.json").write_text(json.dumps(summary))


def test_equal_folders_have_no_differences(tmp_path: Path) -> None:
    _frames(tmp_path / "a", (10, 20, 30))
    _frames(tmp_path / "b", (10, 20, 30))
    assert differences(tmp_path / "a", tmp_path / "b") == []


def test_one_opaque_pixel_of_another_colour_is_a_difference(tmp_path: Path) -> None:
    _frames(tmp_path / "a", (10, 20, 30))
    _frames(tmp_path / "b", (10, 20, 30))
    frame = tmp_path / "a" / "riiing" / "table-0000.png"
    with Image.open(frame) as im:
        changed = im.copy()
    changed.putpixel((5, 2), (10, 20, 31))
    changed.save(frame)
    assert differences(tmp_path / "a", tmp_path / "b") == [
        "pixels differ in (5, 2, 6, 3): riiing/table-0000.png"]


def test_a_missing_frame_and_another_summary_are_named(tmp_path: Path) -> None:
    _frames(tmp_path / "a", (1, 1, 1))
    _frames(tmp_path / "b", (1, 1, 1))
    (tmp_path / "a" / "riiing" / "table-0000.png").unlink()
    summary = {"games": [{"winner": 2, "frames": str(tmp_path / "a" / "riiing")}]}
    (tmp_path / "a" / "summary.json").write_text(json.dumps(summary))
    assert differences(tmp_path / "a", tmp_path / "b") == [
        "missing: riiing/table-0000.png", "differs: summary.json"]

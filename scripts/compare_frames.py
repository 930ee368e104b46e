"""Headless frames of seeds 1-3, saved once and compared pixel for pixel later.

A restructuring must not change a single pixel of what ``make run`` draws where no display
exists.  This script plays the headless games (``python -m device --headless``, both games,
SDL's dummy video driver) for each seed into ``DIR/seed-N/`` and, with ``--against REF``,
compares every PNG frame with the same file under ``REF``: same set of files, same size,
same RGBA bytes.  ``summary.json`` is compared too, less the fields that name the run's own
folder.

Usage::

    python -m scripts.compare_frames --out /tmp/frames-before
    python -m scripts.compare_frames --out /tmp/frames-after --against /tmp/frames-before

Exit status 0 when every frame matches (or when only ``--out`` was given), 1 on the first
report of a difference (every differing file is listed, one line each), 2 on a run that
failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

SEEDS = (1, 2, 3)
"""The seeds whose games are compared."""


def play(seed: int, out: Path) -> None:
    """Play the headless games of ``seed`` into ``out`` (a new folder).

    Raises ``subprocess.CalledProcessError`` when the run fails."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    subprocess.run(
        [sys.executable, "-m", "device", "--headless", "--seed", str(seed), "--out", str(out)],
        check=True, env=env, stdout=subprocess.DEVNULL,
    )


def _summary(path: Path) -> Any:
    """``summary.json`` at ``path`` with every string that names a folder of the run itself
    (``/tmp/.../seed-1/riiing``) cut to its last part (``riiing``)."""
    root = str(path.parent)

    def strip(obj: Any) -> Any:
        if isinstance(obj, dict):
            return {k: strip(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [strip(v) for v in obj]
        if isinstance(obj, str) and obj.startswith(root):
            return obj[len(root):]
        return obj

    return strip(json.loads(path.read_text(encoding="utf-8")))


def differences(new: Path, ref: Path) -> list[str]:
    """One line per file that differs between the folders ``new`` and ``ref`` (PNG frames by
    their RGBA pixels, ``summary.json`` by its content); ``[]`` when they match."""
    lines: list[str] = []
    new_files = {p.relative_to(new) for p in new.rglob("*") if p.suffix in (".png", ".json")
                 and "state" not in p.relative_to(new).parts}
    ref_files = {p.relative_to(ref) for p in ref.rglob("*") if p.suffix in (".png", ".json")
                 and "state" not in p.relative_to(ref).parts}
    for rel in sorted(ref_files - new_files):
        lines.append(f"missing: {rel}")
    for rel in sorted(new_files - ref_files):
        lines.append(f"extra: {rel}")
    for rel in sorted(new_files & ref_files):
        if rel.suffix == ".json":
            if _summary(new / rel) != _summary(ref / rel):
                lines.append(f"differs: {rel}")
            continue
        with Image.open(new / rel) as a, Image.open(ref / rel) as b:
            if a.size != b.size:
                lines.append(f"size {a.size} != {b.size}: {rel}")
                continue
            pa, pb = a.convert("RGBA"), b.convert("RGBA")
            if pa.tobytes() != pb.tobytes():
                box = ImageChops.difference(pa, pb).getbbox(alpha_only=False)
                lines.append(f"pixels differ in {box}: {rel}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the script (see the module docstring); returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m scripts.compare_frames")
    parser.add_argument("--out", type=Path, required=True, help="a new folder for the frames")
    parser.add_argument("--against", type=Path, help="frames saved earlier to compare with")
    args = parser.parse_args(argv)
    frames = 0
    for seed in SEEDS:
        folder = args.out / f"seed-{seed}"
        try:
            play(seed, folder)
        except subprocess.CalledProcessError as err:
            print(f"seed {seed}: the headless run failed (exit {err.returncode})")
            return 2
        frames += sum(1 for _ in folder.rglob("*.png"))
    print(f"{frames} frames of seeds {', '.join(map(str, SEEDS))} in {args.out}")
    if args.against is None:
        return 0
    lines = differences(args.out, args.against)
    for line in lines:
        print(line)
    if lines:
        print(f"{len(lines)} files differ from {args.against}")
        return 1
    print(f"every frame and summary matches {args.against} pixel for pixel")
    return 0


if __name__ == "__main__":
    sys.exit(main())

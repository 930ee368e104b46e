"""Right on Time's "How to play" pages (``device.flow.howto``): the rules in a few short lines,
from ``docs/rules/right-on-time.md`` (the device's rules win over the printed rulebook where
they differ; the rule ids are on each page and in the comments), with pictures of the
cards (RT-1.1: numbers 1-7, Joker ``J``, Zurück auf Null ``N``, Du bist! ``D<n>``, Ziehen!
``Z<n>``).
"""

from __future__ import annotations

from device.render.howto_model import HowtoPage, card_pictures, sign_pictures

LAY = HowtoPage(
    "Lay cards",
    (
        "On your turn lay cards on the top card:",  # RT-3
        "ONE card higher than the top card, or",  # RT-3.1
        "TWO cards, each as high or lower; you",  # RT-3.2
        "choose which of the two ends on top.",  # RT-3.2
        "Can't lay? Show your card and draw 1.",  # RT-5.1
    ),
    card_pictures(("4", "top card"), ("6", "ONE higher"), ("2", "or TWO:"), ("4", "4 or less")),
    ("RT-3.1", "RT-3.2", "RT-5.1"),
)

SPECIAL = HowtoPage(
    "Special cards",
    (
        "JOKER: any number 1-7; never alone on a 7.",  # RT-3.4
        "NULL: on any card, always alone; counts 0.",  # RT-3.3
        "DU BIST!: choose who plays next.",  # RT-4.1
        "ZIEHEN!: choose who draws a card (or you).",  # RT-4.2
        "Both count their number, alone or in two.",  # RT-3.5
    ),
    card_pictures(("J", "JOKER 1-7"), ("N", "NULL = 0"), ("D3", "DU BIST!"), ("Z5", "ZIEHEN!")),
    ("RT-3.3", "RT-3.4", "RT-3.5", "RT-4.1", "RT-4.2"),
)

WINNING = HowtoPage(
    "Win the round: go out SECOND",
    (
        "Don't lay your last card first!",  # RT-6.2
        "The SECOND seat out wins the round: 1 point.",  # RT-6.2
        "First out: no point, a bonus card instead.",  # RT-6.3, RT-6.4
        "First to 3 points wins the match.",  # RT-7.1 (option target_points)
        "2 players: when one is out, the other gets 1 turn.",  # RT-9.2
    ),
    sign_pictures(("digits:1st", "no point"), ("back", "bonus card"), ("digits:2nd", "1 point!")),
    ("RT-6.2", "RT-6.3", "RT-6.4", "RT-7.1", "RT-9.2"),
)

PAGES: tuple[HowtoPage, ...] = (LAY, SPECIAL, WINNING)
"""The pages in reading order: laying, the special cards, winning a round and the match."""

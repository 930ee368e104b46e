"""Riiing!'s "How to play" pages (``device.flow.howto``): the rules in a few short lines, from
``docs/rules/riiing.md`` (the device's rules win over the printed rulebook where they differ;
the rule ids are on each page and in the comments), with pictures of the conditions and
the special cards.

Pictures name card codes of the default deck (RI-1.3: any back; a face shows the front
only) and signs: the table's condition glyphs and the game's symbols
(:mod:`device.games.riiing.ri_icons`).
"""

from __future__ import annotations

from device.render.howto_model import HowtoPage, card_pictures, sign_pictures

LAY = HowtoPage(
    "Lay a card",
    (
        "Be the first with no cards left.",  # RI-7.1
        "Play 1 card that meets the condition:",  # RI-4.1
        "the back of the draw pile's top card.",  # RI-3.1
        "HIGHER, LOWER, SAME: than the last card.",  # RI-3.2
        "No card fits? Draw 1. Then the next seat.",  # RI-4.2
    ),
    sign_pictures(
        ("up", "HIGHER"), ("down", "LOWER"), ("equal", "SAME NUMBER"), ("C", "SAME SYMBOL"),
        ("even", "EVEN"), ("odd", "ODD"), ("digits:2 5 8", "ONE OF"),
    ),
    ("RI-3.1", "RI-3.2", "RI-4.1", "RI-4.2", "RI-7.1"),
)

SPECIAL = HowtoPage(
    "Special cards",
    (
        "Play them on any turn, whatever it says.",  # RI-5.1
        "TOAST!: the next must play a TOAST, or draw",  # RI-5.2, RI-5.3
        "cards until a TOAST comes and play it.",  # RI-5.3
        "PHONE: the next plays a PHONE too, or",  # RI-5.4
        "takes 1 card for every PHONE in a row.",  # RI-5.4
    ),
    card_pictures(
        ("!A/>", "ALARM!"), ("!S/<", "SOAP!"), ("!C/E", "COFFEE!"), ("!T/O", "TOAST!"),
        ("P/=", "PHONE"),
    ),
    ("RI-5.1", "RI-5.2", "RI-5.3", "RI-5.4"),
)

RIIING = HowtoPage(
    "RIIING!  Slap!",
    (
        "A RIIING! shows on the draw pile: SLAP!",  # RI-6.1, RI-6.2
        "Fastest slap drops all cards of its symbol.",  # RI-6.3
        "Slap when there is none: draw 1 card.",  # RI-6.5 (option false_slap_penalty)
        "Nobody slaps in 8 seconds: play goes on.",  # RI-6.4 (option slap_timeout_s)
    ),
    sign_pictures(("C", "RIIING! COFFEE"))
    + card_pictures(("4C/>", "drop"), ("9C/O", "drop"), ("!C/E", "drop"), ("7T/<", "keep")),
    ("RI-6.1", "RI-6.2", "RI-6.3", "RI-6.4", "RI-6.5"),
)

PAGES: tuple[HowtoPage, ...] = (LAY, SPECIAL, RIIING)
"""The pages in reading order: a turn and the conditions, the special cards, RIIING!."""

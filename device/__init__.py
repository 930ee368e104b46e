"""partytable's device application: the only layer that knows both ``engine`` (the rules)
and ``drivers`` (the hardware).

Its parts, lowest first; each folder's package docstring says what lives there and which
other parts it may import (``tests/device/test_layout.py`` holds them to it, with no circle
of imports, type-only ones included):

- ``common/``: the phases, the words every screen uses, the TV's notices.
- ``reactor/``: the device loop, its events and queue, its timers.
- ``render/``: the TV (the table scene, a game's face on it, How to play pages).
- ``hands/``: the handhelds, game-free (keys, hand composer, 128x64 screen, menu, seats).
- ``slaps/``: the slap path (the arbiter, the slap race, the margin).
- ``games/``: the game plugins and their registry; the only code that knows a game.
- ``store/``: the game session and the game database.
- ``flow/``: the game flow and its phases.
- ``config/``: the config file.
- ``modes/``: the start-up modes (hardware, simulator, headless, emulator, self-test,
  fault screen, history) and what they share.

At the top: :mod:`device.console` (the object graph of one running console and the TV's
model, from the flow's snapshot) and :mod:`device.main` (``python -m device``: picks the
mode).
"""

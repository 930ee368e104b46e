"""The handhelds, game-free: the four keys and the screen model a hand composer fills
(:mod:`~device.hands.composer`), the 128x64 hand screen drawn from that model with PIL
(:mod:`~device.hands.screen`), the hold-BACK menu (:mod:`~device.hands.menu`) and the seats
at the table, each a slap button and one handheld (:mod:`~device.hands.seats`).

May import: device.common, device.render.
"""

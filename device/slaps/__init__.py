"""The slap path: which seat slapped first, fairly (docs/architecture.md "Slap
arbitration").  :mod:`~device.slaps.arbiter` decides a window from the presses' edge
stamps, :mod:`~device.slaps.race` runs one table's windows (the wake-up race RI-2.3, the
RIIING! windows RI-6.2-6.6, false slaps RI-6.5) on the loop's timers, and
:mod:`~device.slaps.margin` collects the losers' slaps for the winner's margin on the TV.

May import: device.common, device.reactor.
"""

"""What every part of the device shares and nothing else defines: the game flow's phases
(:mod:`~device.common.phase`), the words every screen uses for seats, numbers and margins
(:mod:`~device.common.words`) and the TV's notices on the banner strip
(:mod:`~device.common.notices`).

May import: engine.
"""

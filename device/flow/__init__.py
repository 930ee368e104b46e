"""The game flow: lobby -> wake-up race -> play -> game over -> lobby, with the How to play
pages, the demo game and the restore offer beside it (docs/architecture.md "Game flow").

:class:`~device.flow.game_flow.GameFlow` is the one object the console talks to: it hands
each input to the handler of the phase in force and gives the console a read-only
:class:`~device.flow.snapshot.FlowSnapshot` of what the TV and the hand screens draw.  The
handlers, each with the state only its phase needs, know the shared parts and the moves
between phases (:class:`~device.flow.parts.FlowParts`), never the flow above them:
:mod:`~device.flow.lobby_phase` (the lobby's keys, :mod:`~device.flow.lobby`'s menu and
choices, :mod:`~device.flow.leaderboard`), :mod:`~device.flow.howto` (How to play),
:mod:`~device.flow.attract` (the demo game), :mod:`~device.flow.restore_phase` (a restored
game held with :mod:`~device.flow.restore_offer`), :mod:`~device.flow.wakeup` (RI-2.3),
:mod:`~device.flow.play` (with :mod:`~device.flow.slap_display` and
:mod:`~device.flow.round_hold`) and :mod:`~device.flow.game_over`.

May import: device.common, device.reactor, device.slaps, device.hands, device.render,
device.games, device.store.
"""

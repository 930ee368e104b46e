"""Renderers: the TV's table scene and the handhelds' hand screens.

- :mod:`device.render.model`: the frozen values the device loop hands the renderers
  (``TableModel``, ``SeatBadge``, ``LobbyModel``, ``RoundEnd``).
- :mod:`device.render.table`: ``TableScene``, the table display for both games (pygame-ce),
  built from :mod:`~device.render.table_zones` (each frame's zones from the model),
  :mod:`~device.render.layout` (zones, letterbox), :mod:`~device.render.zones`
  (what each zone shows and how it is painted), :mod:`~device.render.cards`,
  :mod:`~device.render.icons` (shape-coded symbols), :mod:`~device.render.figures` (icons
  with one definition for the TV and the hand screens), :mod:`~device.render.text`,
  :mod:`~device.render.anim` (animation timing), :mod:`~device.render.palette`
  (Okabe-Ito colours) and :mod:`~device.render.cache` (surface caches bounded by bytes).
- :mod:`device.render.hand`: the 128x64 hand screens (PIL).

Importing this package imports nothing heavy; each module imports what it needs.
"""

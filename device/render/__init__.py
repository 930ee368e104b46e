"""The TV's renderers: what the table display shows, drawn with pygame-ce.

- :mod:`device.render.model`: the frozen values the device hands the renderers
  (``TableModel``, ``SeatBadge``, ``LobbyModel``, ``RoundEnd``, ``HowtoShown``).
- :mod:`device.render.face`: what the renderers ask of a game (``TableFace``, its
  ``PublicView`` and the ``SceneTools`` a game's zones may use); a game's plugin is one.
- :mod:`device.render.table`: ``TableScene``, the table display for every game, with
  :mod:`~device.render.table_zones` (each frame's zones from the model),
  :mod:`~device.render.layout` (zones, letterbox), :mod:`~device.render.zones` (what each
  zone shows and how it is painted), :mod:`~device.render.cards`,
  :mod:`~device.render.icons` (shape-coded symbols), :mod:`~device.render.figures` (icons
  with one definition for the TV and the hand screens), :mod:`~device.render.text`,
  :mod:`~device.render.anim` (animation timing), :mod:`~device.render.palette`
  (Okabe-Ito colours) and :mod:`~device.render.cache` (surface caches bounded by bytes).
- :mod:`device.render.howto_model` and :mod:`device.render.howto_page`: a "How to play"
  page as values, and drawn.

Importing this package imports nothing heavy; each module imports what it needs.

May import: device.common.
"""

"""What the console keeps: one game being played with its computer players and device RNG
(:mod:`~device.store.session`), and the game database on SQLite, safe against power cuts:
:mod:`~device.store.game_db` (``GameDB``: start-up, the old journal carried over, tonight's
leaderboard) on :mod:`~device.store.game_rows` (the games' rows written and read),
:mod:`~device.store.db_schema` (the schema and ``StateError``),
:mod:`~device.store.db_recovery` (a damaged or read-only file, the WAL rebuild) and
:mod:`~device.store.records` (a game's header and records); the old JSON-lines journal read
once (:mod:`~device.store.legacy_journal`) and small files replaced whole, such as
``lobby.json`` (:mod:`~device.store.atomic_file`).

May import: device.common, device.slaps, device.hands, device.games.
"""

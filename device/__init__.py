"""partytable's device application: config, the event loop, game flow, slap arbitration,
controllers, renderers and persistence.  The only layer that knows both ``engine`` and
``drivers``."""

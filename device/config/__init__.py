"""The config file (``/etc/partytable/config.toml``): read and checked before any hardware
is touched (docs/architecture.md "Configuration"); every problem is one line naming its key.

:mod:`~device.config.schema` describes the file as frozen dataclasses whose fields carry each
key's check, default and unit once; :mod:`~device.config.table_reader` is the one generic
reader that walks them; :mod:`~device.config.checks` holds the checks across keys (pin
clashes, the I2C/SPI mux, the header's pin budget, seat counts); :mod:`~device.config.loader`
finds, reads and prints a config (``check-config``).

May import: device.games.
"""

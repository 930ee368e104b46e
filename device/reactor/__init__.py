"""The device loop after Klipper's reactor: one thread owns all state and blocks on one
queue until the next event or timer (:mod:`~device.reactor.loop`), the events driver
threads post (:mod:`~device.reactor.events`) and the loop's timers at CLOCK_MONOTONIC
nanosecond deadlines (:mod:`~device.reactor.timers`).

May import: drivers.
"""

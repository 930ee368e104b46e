"""The start-up modes of ``python -m device`` (docs/architecture.md "Modes of the same
program"): the console on a Raspberry Pi (:mod:`~device.modes.hardware`), the simulator
window (:mod:`~device.modes.sim`), the headless computer games (:mod:`~device.modes.headless`),
the emulated serial handheld (:mod:`~device.modes.emulator`), the builder's self-test
(:mod:`~device.modes.selftest`), the fault screen (:mod:`~device.modes.fault_screen`) and
the ``history`` command (:mod:`~device.modes.history`), with what they share: the command
line (:mod:`~device.modes.cli`), the presenters that put frames on a screen
(:mod:`~device.modes.present`), the sound player (:mod:`~device.modes.sound`) and sd_notify
(:mod:`~device.modes.notify`).

May import: drivers, every part of device except device.main.
"""

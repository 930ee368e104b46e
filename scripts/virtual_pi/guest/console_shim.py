"""The virtual Pi's console: ``python -m device`` with two changes for a VM, nothing else.

- GPIO: Debian's amd64 kernel has no GPIO chip to stand in for the Pi's header
  (``CONFIG_GPIO_SIM`` and ``CONFIG_GPIO_MOCKUP`` are off), while a seat with a serial
  handheld needs its ``slap_pin``.  ``drivers.pin_factory.open_pin_factory`` is replaced by
  one that returns gpiozero's ``MockFactory``: the slap pins exist and never change.  The
  serial handheld's link (``drivers.serial_handheld``) is the real one, on a real
  ``/dev/ttyACM*``.
- Keys: every KEY the link decides on is logged at INFO, one line each, so a test can match
  the handheld's sent-key log against what the console applied:
  ``vpi-key seat=<n> seq=<s> key=<name> down=<0|1> applied=<0|1>`` (``applied=0``: a
  duplicate or a gap, not applied; the driver's own lines say which).

Run as ``python console_shim.py [python -m device's arguments]``; logging needs ``-v``.
"""

from __future__ import annotations

import sys
from typing import Any


def install() -> None:
    """Patch the pin factory and the KEY hook (see the module docstring)."""
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    import drivers.pin_factory as pin_factory
    import drivers.serial_handheld as serial_handheld

    def mock_factory(*args: Any, **kwargs: Any) -> Any:
        return MockFactory()

    pin_factory.open_pin_factory = mock_factory
    original = serial_handheld.SerialHandhelds._key

    def key(self: Any, link: Any, state: Any, seq: int, msg: Any, t_ns: int,
            calls: Any) -> None:
        before = state.keys_applied
        original(self, link, state, seq, msg, t_ns, calls)
        serial_handheld.log.info("vpi-key seat=%d seq=%d key=%s down=%d applied=%d",
                                 state.seat + 1, seq, msg.key, int(msg.down),
                                 state.keys_applied - before)

    serial_handheld.SerialHandhelds._key = key  # type: ignore[method-assign,assignment]


def main() -> int:
    """Install the patches, then run the console with this command line."""
    install()
    from device.main import main as device_main

    return device_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())

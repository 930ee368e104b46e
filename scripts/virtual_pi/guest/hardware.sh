#!/bin/sh
# The virtual Pi's header, made at boot by virtual-pi-hardware.service before
# partytable.service: the gpio-sim chip labelled as a Pi 4's header chip (gpiosim.py setup:
# the module, the chip, a Pi's Revision in /proc/cpuinfo for gpiozero).  Prints what it made.
set -u
d=/usr/local/lib/partytable-vpi
python3 "$d/gpiosim.py" setup --module "/lib/modules/$(uname -r)/extra/gpio-sim.ko"
echo "i2c: $(for a in /sys/class/i2c-dev/*; do printf '%s=%s ' "${a##*/}" "$(cat "$a/name")"; done)"
echo "sound: $(head -n 1 /proc/asound/cards)"

#!/bin/sh
# The appliance test's handheld plugged in after READY (scripts/appliance/harness.py): a USB
# gadget with the MicroPython board's ids and one CDC ACM function on the kernel's dummy_hcd
# (docs/hardware-facts.md: a real cdc_acm /dev/ttyACM0, as a Pico gives), then the node opened from
# inside partytable.service's own cgroup, where the unit's device policy applies.
#
#   sh hotplug.sh plug     # prints key=value lines: node, group, mode, by_id, open
#   sh hotplug.sh unplug   # the pulled cable (an empty UDC)
set -eu
g=/sys/kernel/config/usb_gadget/handheld
case ${1:-} in
unplug)
    [ ! -e "$g/UDC" ] || echo "" >"$g/UDC"
    exit 0
    ;;
plug) ;;
*) echo "usage: sh hotplug.sh plug|unplug" >&2; exit 2 ;;
esac
# configfs is a module in Debian's kernel: /sys/kernel/config appears when it is loaded
modprobe configfs
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
modprobe dummy_hcd
modprobe libcomposite
modprobe usb_f_acm
mkdir -p "$g/strings/0x409" "$g/configs/c.1" "$g/functions/acm.usb0"
echo 0x2e8a >"$g/idVendor"
echo 0x0005 >"$g/idProduct"
echo MicroPython >"$g/strings/0x409/manufacturer"
echo "Board in FS mode" >"$g/strings/0x409/product"
echo appliance0 >"$g/strings/0x409/serialnumber"
[ -e "$g/configs/c.1/acm.usb0" ] || ln -s "$g/functions/acm.usb0" "$g/configs/c.1/"
ls /sys/class/udc | head -n 1 >"$g/UDC"
i=0
while [ ! -c /dev/ttyACM0 ]; do
    i=$((i + 1))
    if [ $i -gt 200 ]; then echo "node=none"; exit 1; fi
    sleep 0.1
done
udevadm settle --timeout=20 || true
echo "node=/dev/ttyACM0"
echo "group=$(stat -c %G /dev/ttyACM0)"
echo "mode=$(stat -c %a /dev/ttyACM0)"
echo "by_id=$(ls /dev/serial/by-id/ 2>/dev/null | tr '\n' ' ')"
echo "class=$(awk '$2 == "ttyACM" { print $1 }' /proc/devices)"
cg=/sys/fs/cgroup$(systemctl show -p ControlGroup --value partytable.service)
# shellcheck disable=SC2016
sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 -c "
import os
try:
    os.close(os.open(\"/dev/ttyACM0\", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
    print(\"open=ok\")
except OSError as err:
    print(\"open=\" + err.strerror)
"' sh "$cg"

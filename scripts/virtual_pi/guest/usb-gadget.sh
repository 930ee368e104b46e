#!/bin/sh
# The virtual Pi's serial handheld on real USB (gadget_handheld.py next to this file): a
# configfs gadget with the MicroPython board's ids and one CDC ACM function on the kernel's
# dummy_hcd, as scripts/appliance/guest/hotplug.sh makes it, under a gadget name of its own
# (vpi-handheld) and a serial number given here.  The console's side is the host's cdc_acm
# /dev/ttyACM<n> with the by-id name usb-MicroPython_Board_in_FS_mode_<serial>-if00; the
# handheld's side is the function's /dev/ttyGS<n>.
#
#   sh usb-gadget.sh setup [SERIAL]   # make the gadget (not bound); prints tty=/dev/ttyGS<n>
#   sh usb-gadget.sh bind             # plug the cable: the first UDC; prints node=, by_id=
#   sh usb-gadget.sh unbind           # pull the cable (an empty UDC)
#   sh usb-gadget.sh status           # bound=<udc or empty>, tty=, by_id=
#   sh usb-gadget.sh remove           # unbind and take the gadget apart
set -eu
g=/sys/kernel/config/usb_gadget/vpi-handheld
serial=${2:-7669727470693031}
by_id=/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_${serial}-if00
gs_tty() {
    n=$(cat "$g/functions/acm.usb0/port_num" 2>/dev/null || echo 0)
    echo "/dev/ttyGS$n"
}
case ${1:-} in
setup)
    # configfs is a module in Debian's kernel: /sys/kernel/config appears when it is loaded
    modprobe configfs
    mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
    modprobe dummy_hcd
    modprobe libcomposite
    modprobe usb_f_acm
    modprobe cdc_acm
    mkdir -p "$g/strings/0x409" "$g/configs/c.1/strings/0x409" "$g/functions/acm.usb0"
    echo 0x2e8a >"$g/idVendor"
    echo 0x0005 >"$g/idProduct"
    echo MicroPython >"$g/strings/0x409/manufacturer"
    echo "Board in FS mode" >"$g/strings/0x409/product"
    echo "$serial" >"$g/strings/0x409/serialnumber"
    echo "CDC ACM" >"$g/configs/c.1/strings/0x409/configuration"
    [ -e "$g/configs/c.1/acm.usb0" ] || ln -s "$g/functions/acm.usb0" "$g/configs/c.1/"
    echo "tty=$(gs_tty)"
    ;;
bind)
    [ -n "$(cat "$g/UDC")" ] || ls /sys/class/udc | head -n 1 >"$g/UDC"
    i=0
    while [ ! -e "$by_id" ]; do
        i=$((i + 1))
        if [ $i -gt 200 ]; then echo "by_id=none"; exit 1; fi
        sleep 0.05
    done
    echo "node=$(readlink -f "$by_id")"
    echo "by_id=$by_id"
    ;;
unbind)
    [ -z "$(cat "$g/UDC" 2>/dev/null)" ] || echo "" >"$g/UDC"
    ;;
status)
    echo "bound=$(cat "$g/UDC" 2>/dev/null)"
    echo "tty=$(gs_tty)"
    echo "by_id=$(ls /dev/serial/by-id/ 2>/dev/null | tr '\n' ' ')"
    ;;
remove)
    [ -d "$g" ] || exit 0
    [ -z "$(cat "$g/UDC")" ] || echo "" >"$g/UDC"
    rm -f "$g/configs/c.1/acm.usb0"
    rmdir "$g/configs/c.1/strings/0x409" "$g/configs/c.1" "$g/functions/acm.usb0" \
        "$g/strings/0x409" "$g"
    ;;
*) echo "usage: sh usb-gadget.sh setup [SERIAL]|bind [SERIAL]|unbind|status|remove" >&2; exit 2 ;;
esac

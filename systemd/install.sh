#!/bin/sh
# partytable: `make install` and `make uninstall` (systemd/README.md has the layout).
#
#   sh systemd/install.sh install      # as root, from a checkout of the repository
#   sh systemd/install.sh uninstall
#   sh systemd/install.sh files        # the source files install copies, one a line
#   sh systemd/install.sh readonly-check   # is this box's layout ready for a read-only root?
#
# Environment:
#   DESTDIR   install into this root instead of the running system (absolute path; the test and
#             an image build use it): no apt, no udev reload, `systemctl --root`, `systemd-sysusers
#             --root`; root is not needed
#   NO_APT=1  skip the apt-get step (the packages below must then be there already)
#   PYTHON3   the interpreter the venv is built from (default /usr/bin/python3, Debian's: a
#             python under /root or /home would be hidden from the service by ProtectHome=)
#   PIP_*     pip's own settings (a wheel cache, an index) reach pip unchanged
#
# What it lays down (both steps are idempotent: a second run changes nothing and succeeds):
#   /opt/partytable/{engine,drivers,device,docs}/...  the source as `git ls-files` ships it
#   /opt/partytable/{pyproject.toml,README.md,constraints.txt}
#   /opt/partytable/.venv                        python3 -m venv + pip install -c constraints.txt
#                                                of pyproject's dependencies; partytable.pth in its
#                                                site-packages points at /opt/partytable
#   /etc/systemd/system/partytable.service       enabled (multi-user.target.wants/)
#   /etc/sysusers.d/partytable.conf              the user partytable and its groups
#   /etc/udev/rules.d/99-partytable.rules        serial handhelds; GPIO/I2C/SPI groups
#   /etc/modules-load.d/partytable.conf          drivers of the unit's device classes, at boot
#   /etc/systemd/system.conf.d/partytable.conf   systemd feeds the hardware watchdog
#   /boot/firmware/config.txt                    on a Pi only (when it exists): three lines
#                                                that turn the watchdog on, added once
#   /etc/partytable/config.toml                  from device/config.toml, only when absent
# Uninstall removes all of it (config.txt's three lines too) but /etc/partytable/config.toml,
# /var/lib/partytable (the party's games) and the user and groups.  Every failure is one line
# naming what is missing.  On a read-only root (an overlay: what is written is gone at the
# next boot) install refuses to run and says how to turn the overlay off first.

set -eu

PREFIX=/opt/partytable
UNIT=partytable.service
UNIT_DIR=/etc/systemd/system
SYSUSERS=/etc/sysusers.d/partytable.conf
RULES=/etc/udev/rules.d/99-partytable.rules
MODULES=/etc/modules-load.d/partytable.conf
MANAGER_CONF=/etc/systemd/system.conf.d/partytable.conf
FIRMWARE_CONFIG=/boot/firmware/config.txt
# the first of the three lines install adds to config.txt (uninstall takes out exactly them)
FIRMWARE_MARK="# partytable: the hardware watchdog that systemd feeds (make uninstall removes these 3 lines)"
CONFIG=/etc/partytable/config.toml
STATE=/var/lib/partytable
# Run-time packages on Raspberry Pi OS / Debian Bookworm (docs/hardware-facts.md, "pygame-ce"): the
# pygame-ce wheel bundles its SDL, but SDL's kmsdrm driver dlopens Mesa's GBM, EGL and GLES
# (libgbm.so.1, libEGL.so.1, libGLESv2.so.2; libegl-mesa0 and libgl1-mesa-dri are the Mesa
# vendor library and the vc4/v3d drivers they load, which --no-install-recommends would leave
# out), libdrm.so.2 and libudev.so.1 (evdev input); its ALSA audio dlopens libasound.so.2;
# alsa-utils (aplay, speaker-test, amixer) checks the TV's sound.  util-linux has setterm
# (ExecStartPre).  python3-venv builds the venv; ca-certificates lets pip reach its index.
APT_PACKAGES="python3 python3-venv ca-certificates libgbm1 libegl1 libegl-mesa0 libgles2
libgl1-mesa-dri libdrm2 libudev1 libasound2 alsa-utils util-linux"

SRC=$(cd "$(dirname "$0")/.." && pwd)
DESTDIR=${DESTDIR:-}
PYTHON3=${PYTHON3:-/usr/bin/python3}
D=$DESTDIR
V=$D$PREFIX/.venv
SOURCE_ITEMS="engine drivers device docs pyproject.toml README.md constraints.txt"
# directories this install created (removed again by uninstall when empty)
CREATED=$D$PREFIX/.created-dirs

say() { printf '%s\n' "$*"; }
die() { printf 'make %s: %s\n' "${ACTION:-install}" "$*" >&2; exit 1; }

# live: DESTDIR is empty and systemd runs this machine (not a chroot or an image tree)
live() { [ -z "$D" ] && [ -d /run/systemd/system ]; }

# mkdirs DIR: mkdir -p, writing each directory it had to create into the created-dirs list
mkdirs() {
    [ -d "$1" ] && return 0
    mkdirs "$(dirname "$1")"
    mkdir -m 0755 "$1"
    case $1 in
        "$D"/*) NEW_DIRS="$NEW_DIRS${1#"$D"}
" ;;
    esac
}

# put SRC DEST: install SRC as DEST (mode 0644) unless DEST already has its content and mode
put() {
    mkdirs "$(dirname "$2")"
    if [ -f "$2" ] && cmp -s "$1" "$2" && [ "$(stat -c %a "$2")" = 644 ]; then
        return 1
    fi
    install -m 0644 "$1" "$2"
}

need_root() {
    if [ -z "$D" ] && [ "$(id -u)" != 0 ]; then
        printf 'make %s needs root (sudo make %s)\n' "$ACTION" "$ACTION" >&2
        exit 1
    fi
    case $D in
        ""|/*) ;;
        *) die "DESTDIR must be an absolute path, got '$D'" ;;
    esac
    [ "$D" != / ] || die "DESTDIR=/ is the running system: leave DESTDIR empty"
}

need_tool() {
    command -v "$1" >/dev/null 2>&1 || die "$1 is missing (it comes with $2)"
}

# ---------------------------------------------------------------------------------------------

apt_step() {
    if [ -n "$D" ] || [ "${NO_APT:-}" = 1 ]; then
        why="DESTDIR is set"
        [ -n "$D" ] || why="NO_APT=1"
        say "apt: skipped ($why); the box needs: $(echo $APT_PACKAGES)"
        return 0
    fi
    need_tool apt-get "Debian; without apt set NO_APT=1 and install: $(echo $APT_PACKAGES)"
    need_tool dpkg-query dpkg
    missing=
    for p in $APT_PACKAGES; do
        s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
        case $s in ii*) ;; *) missing="$missing $p" ;; esac
    done
    if [ -z "$missing" ]; then
        say "apt: all $(echo $APT_PACKAGES | wc -w) packages are installed"
        return 0
    fi
    say "apt: installing$missing"
    apt-get update -qq || die "apt-get update failed (no network? a broken sources.list?)"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
        || die "apt-get install$missing failed"
}

python_step() {
    [ -x "$PYTHON3" ] || die "$PYTHON3 is missing (apt-get install python3 python3-venv)"
    "$PYTHON3" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "$("$PYTHON3" --version 2>&1) is too old: partytable needs Python 3.11+"
    "$PYTHON3" -c 'import venv, ensurepip' 2>/dev/null \
        || die "$PYTHON3 has no venv/ensurepip module (apt-get install python3-venv)"
}

# The source files that ship: what git tracks under engine/ drivers/ device/ and the docs/ the
# README points to (a copy of the repository without .git: every file there but bytecode),
# and three top-level files.
shipped() {
    if command -v git >/dev/null 2>&1 \
        && git -c safe.directory="$SRC" -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
        git -c safe.directory="$SRC" -C "$SRC" ls-files -- engine drivers device docs
    else
        (cd "$SRC" && find engine drivers device docs -type f ! -path '*/__pycache__/*' \
            ! -name '*.pyc' ! -name '.lgd-nfy*' | LC_ALL=C sort)
    fi
    printf '%s\n' pyproject.toml README.md constraints.txt
}

# shipped, less what is missing from the work tree (`files` prints this)
shipped_files() {
    shipped | (cd "$SRC" && while IFS= read -r f; do [ ! -f "$f" ] || printf '%s\n' "$f"; done)
}

# Copy the source to a staging tree, compile it (checked-hash .pyc: the same bytes on every
# run, valid while the source is unchanged; the unit sets PYTHONDONTWRITEBYTECODE and the
# system is read-only to it, so what is compiled here is what it imports), then replace the
# installed copy only if anything differs.
source_step() {
    stage=$(mktemp -d)
    shipped_files >"$stage.list"
    n=$(wc -l <"$stage.list")
    (cd "$SRC" && xargs -d '\n' cp --parents -t "$stage" -- <"$stage.list") \
        || { rm -rf "$stage" "$stage.list"; die "cannot copy the source from $SRC"; }
    rm -f "$stage.list"
    for f in engine/__init__.py drivers/__init__.py device/__main__.py; do
        [ -f "$stage/$f" ] || {
            rm -rf "$stage"
            die "$SRC/$f is missing: run make install from the repository"
        }
    done
    PYTHONHASHSEED=0 "$PYTHON3" -m compileall -q --invalidation-mode checked-hash -s "$stage" \
        -p "$PREFIX" "$stage/engine" "$stage/drivers" "$stage/device" >/dev/null \
        || { rm -rf "$stage"; die "python3 -m compileall failed on the source (a syntax error?)"; }
    find "$stage" -type d -exec chmod 0755 {} + && find "$stage" -type f -exec chmod 0644 {} +
    same=yes
    for item in $SOURCE_ITEMS; do
        if [ -e "$stage/$item" ] || [ -e "$D$PREFIX/$item" ]; then
            diff -r -q -x __pycache__ "$stage/$item" "$D$PREFIX/$item" >/dev/null 2>&1 \
                || same=no
        fi
    done
    if [ $same = yes ]; then
        rm -rf "$stage"
        say "source: $PREFIX is up to date ($n files)"
        return 0
    fi
    mkdirs "$D$PREFIX"
    for item in $SOURCE_ITEMS; do
        rm -rf "$D$PREFIX/$item"
        [ ! -e "$stage/$item" ] || cp -R "$stage/$item" "$D$PREFIX/$item"
    done
    rm -rf "$stage"
    CHANGED=yes
    say "source: $n files to $PREFIX"
}

# The venv: runtime dependencies from pyproject.toml at the versions of constraints.txt.  A
# stamp records what it was built from; when that changes (new pins, new dependencies, another
# Python) it is built anew, so the box holds exactly the pinned set and nothing left over.
venv_step() {
    reqs=$("$PYTHON3" -c 'import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["dependencies"]))' "$SRC/pyproject.toml") \
        || die "cannot read [project] dependencies from $SRC/pyproject.toml"
    [ -f "$SRC/constraints.txt" ] || die "$SRC/constraints.txt is missing (make constraints)"
    stamp=$(printf '%s\n# constraints.txt\n%s\n# python\n%s\n' "$reqs" \
        "$(cat "$SRC/constraints.txt")" "$("$PYTHON3" -c 'import sys; print(sys.version)')")
    if [ -x "$V/bin/python" ] && [ -f "$V/.partytable-stamp" ] \
        && [ "$(cat "$V/.partytable-stamp")" = "$stamp" ]; then
        say "venv: $PREFIX/.venv is up to date"
        return 0
    fi
    rm -rf "$V"
    mkdirs "$D$PREFIX"
    say "venv: building $PREFIX/.venv (pip install -c constraints.txt)"
    "$PYTHON3" -m venv "$V" || die "$PYTHON3 -m venv $V failed"
    tmp=$(mktemp)
    printf '%s\n' "$reqs" >"$tmp"
    "$V/bin/python" -m pip install -qq --no-input --disable-pip-version-check \
        --root-user-action=ignore -c "$SRC/constraints.txt" -r "$tmp" \
        || { rm -f "$tmp"; rm -rf "$V"; die "pip install into $PREFIX/.venv failed (see above)"; }
    rm -f "$tmp"
    site=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    # relative to site-packages (site.addpackage joins it), so the venv works under DESTDIR too
    rel=$(echo "${site#"$V"/}" | sed 's|[^/][^/]*|..|g')
    printf '%s\n' "$rel/.." >"$site/partytable.pth"
    chmod 0644 "$site/partytable.pth"
    printf '%s\n' "$stamp" >"$V/.partytable-stamp"
    CHANGED=yes
}

unit_step() {
    if put "$SRC/systemd/$UNIT" "$D$UNIT_DIR/$UNIT"; then
        CHANGED=yes
        say "unit: $UNIT_DIR/$UNIT"
    fi
    mkdirs "$D$UNIT_DIR/multi-user.target.wants"
    if [ -n "$D" ]; then
        systemctl --root="$D" --quiet enable "$UNIT" \
            || die "systemctl --root=$D enable $UNIT failed"
    else
        live && systemctl daemon-reload
        systemctl --quiet enable "$UNIT" || die "systemctl enable $UNIT failed"
    fi
    say "unit: $UNIT enabled (multi-user.target.wants)"
}

sysusers_step() {
    if put "$SRC/systemd/partytable.sysusers" "$D$SYSUSERS"; then
        say "users: $SYSUSERS"
    fi
    # systemd-sysusers rewrites nothing when all is there, but still touches /etc: skip it then
    want=$(awk '$1 == "m" && $2 == "partytable" { print $3 }' "$D$SYSUSERS" | LC_ALL=C sort)
    if ! grep -q '^partytable:' "$D/etc/passwd" 2>/dev/null \
        || [ "$(id_groups | tr ' ' '\n' | LC_ALL=C sort)" != "$want" ]; then
        if [ -n "$D" ]; then
            systemd-sysusers --root="$D" partytable.conf || die "systemd-sysusers --root=$D failed"
        else
            systemd-sysusers partytable.conf || die "systemd-sysusers failed"
        fi
    fi
    say "users: partytable in $(id_groups)"
}

# the groups partytable is a member of, by /etc/group, space-separated
id_groups() {
    [ -f "$D/etc/group" ] || return 0
    awk -F: '$4 ~ /(^|,)partytable(,|$)/ { printf "%s%s", s, $1; s = " " }' "$D/etc/group"
}

udev_step() {
    if put "$SRC/systemd/99-partytable.rules" "$D$RULES"; then
        say "udev: $RULES"
    fi
    if [ -z "$D" ] && command -v udevadm >/dev/null 2>&1 && udevadm control --ping 2>/dev/null; then
        udevadm control --reload || die "udevadm control --reload failed"
        udevadm trigger --action=change --subsystem-match=tty --subsystem-match=gpio \
            --subsystem-match=i2c-dev --subsystem-match=spidev || true
        say "udev: rules reloaded"
    else
        say "udev: not running here; the rules apply from the next boot"
    fi
}

# The drivers of the unit's device classes (systemd/partytable.modules), loaded at boot: systemd
# resolves DeviceAllow=char-<class> when the service starts, so a class whose driver comes later
# stays denied.  spidev only where the kernel has it (Raspberry Pi OS: yes, Debian's amd64: no),
# so systemd-modules-load never fails on a missing module.
modules_step() {
    tmp=$(mktemp)
    cat "$SRC/systemd/partytable.modules" >"$tmp"
    for f in "$D"/lib/modules/*/kernel/drivers/spi/spidev.ko*; do
        if [ -e "$f" ]; then
            printf '%s\n%s\n' "# spi: the SPI hand displays (this kernel has spidev)" spidev >>"$tmp"
            break
        fi
    done
    if put "$tmp" "$D$MODULES"; then
        CHANGED=yes
        say "modules: $MODULES"
        if live; then
            systemctl restart systemd-modules-load.service \
                || say "modules: systemd-modules-load failed (journalctl -u systemd-modules-load)"
        fi
    fi
    rm -f "$tmp"
    say "modules: $(grep -v '^#' "$D$MODULES" | grep -v '^$' | tr '\n' ' ')loaded at boot"
}

# The hardware watchdog: systemd (PID 1) feeds /dev/watchdog0 (partytable-watchdog.conf); on a
# Raspberry Pi (a /boot/firmware/config.txt) the firmware turns the watchdog on, three lines
# added at the end once (an `[all]` section, so no [pi4]-style filter above applies to them).
watchdog_step() {
    if put "$SRC/systemd/partytable-watchdog.conf" "$D$MANAGER_CONF"; then
        say "watchdog: $MANAGER_CONF"
        if live; then
            systemctl daemon-reexec || say "watchdog: systemctl daemon-reexec failed: from the next boot"
        fi
    fi
    fw=$D$FIRMWARE_CONFIG
    if [ ! -f "$fw" ]; then
        say "watchdog: systemd feeds /dev/watchdog0 where there is one (no $FIRMWARE_CONFIG: not a Raspberry Pi)"
    elif grep -qxF "$FIRMWARE_MARK" "$fw"; then
        say "watchdog: $FIRMWARE_CONFIG turns it on"
    elif grep -Eq '^[[:space:]]*dtparam=watchdog=on[[:space:]]*$' "$fw"; then
        say "watchdog: $FIRMWARE_CONFIG turns it on already (dtparam=watchdog=on): left as it is"
    else
        [ ! -s "$fw" ] || [ "$(tail -c 1 "$fw" | od -An -c | tr -d ' ')" = '\n' ] || echo >>"$fw"
        printf '%s\n[all]\ndtparam=watchdog=on\n' "$FIRMWARE_MARK" >>"$fw"
        say "watchdog: $FIRMWARE_CONFIG turns it on from the next boot (dtparam=watchdog=on)"
    fi
}

# config.txt without install's three lines (the mark, [all], dtparam=watchdog=on)
firmware_unmark() {
    fw=$D$FIRMWARE_CONFIG
    [ -f "$fw" ] && grep -qxF "$FIRMWARE_MARK" "$fw" || return 1
    tmp=$(mktemp)
    awk -v mark="$FIRMWARE_MARK" '
        skip == 2 && $0 == "[all]" { skip = 1; next }
        skip == 1 && $0 == "dtparam=watchdog=on" { skip = 0; next }
        { skip = 0 }
        $0 == mark { skip = 2; next }
        { print }' "$fw" >"$tmp"
    cat "$tmp" >"$fw"
    rm -f "$tmp"
}

# What holds PATH: "TARGET SOURCE FSTYPE OPTIONS" of its mount (findmnt, util-linux)
mount_of() {
    findmnt -n -r -o TARGET,SOURCE,FSTYPE,OPTIONS --target "$1" 2>/dev/null | tail -n 1
}

# A read-only root (an overlay) keeps nothing written to it: install would be lost at the next
# boot, so it stops and says so.
overlay_guard() {
    live || return 0
    command -v findmnt >/dev/null 2>&1 || return 0
    set -- $(mount_of /)
    [ "${3:-}" = overlay ] || return 0
    die "/ is a read-only root (an overlay): what install writes is gone at the next boot; turn the overlay off (sudo raspi-config nonint do_overlayfs 1, or overlayroot=disabled), reboot, install, turn it on again (systemd/README.md, \"A read-only root\")"
}

# readonly-check: does the layout keep the party's games with a read-only root?  Exit 0: the
# root is an overlay and the state directory is on a writable persistent mount of its own;
# exit 1 otherwise, with one line saying what to do (systemd/README.md, "A read-only root").
readonly_check() {
    need_tool findmnt util-linux
    state=$STATE
    [ -d "$state" ] || state=$(dirname "$state")
    set -- $(mount_of /)
    root_fs=${3:-?}
    set -- $(mount_of "$state")
    target=${1:-/} source=${2:-?} fstype=${3:-?} options=${4:-}
    case ",$options," in *,ro,*) ro=yes ;; *) ro=no ;; esac
    if [ "$root_fs" = overlay ]; then
        if [ "$target" = / ] || [ "$fstype" = overlay ] || [ "$fstype" = tmpfs ] \
            || [ "$fstype" = ramfs ]; then
            say "readonly-check: / is an overlay and $STATE is on it (in RAM): the games are lost at every power-off; give $STATE a partition of its own in /etc/fstab (systemd/README.md, \"A read-only root\")"
            return 1
        fi
        if [ $ro = yes ]; then
            say "readonly-check: $STATE is on $source ($fstype) mounted read-only: the console cannot keep its games; mount it rw in /etc/fstab"
            return 1
        fi
        say "readonly-check: ok: / is a read-only overlay, $STATE is on $source ($fstype, rw, mounted at $target): the games survive a pulled plug"
        return 0
    fi
    if [ "$target" = / ]; then
        say "readonly-check: / is writable ($root_fs) and holds $STATE: for a read-only root, first give $STATE a partition of its own in /etc/fstab, then turn the overlay on (sudo raspi-config nonint do_overlayfs 0; systemd/README.md, \"A read-only root\")"
    else
        say "readonly-check: / is writable ($root_fs); $STATE is on $source ($fstype, mounted at $target): ready, turn the overlay on (sudo raspi-config nonint do_overlayfs 0) and reboot"
    fi
    return 1
}

config_step() {
    if [ -e "$D$CONFIG" ] || [ -L "$D$CONFIG" ]; then
        say "config: kept $CONFIG"
    else
        mkdirs "$(dirname "$D$CONFIG")"
        install -m 0644 "$SRC/device/config.toml" "$D$CONFIG"
        say "config: $CONFIG (the bundled 4-seat build: edit it for yours)"
    fi
    # from / with PYTHONPATH unset, as systemd starts it: the installed device, not this checkout
    if ! problems=$(cd / && env -u PYTHONPATH "$V/bin/python" -m device check-config \
        "$D$CONFIG" 2>&1 >/dev/null); then
        say "config: $CONFIG has problems, the service will show them on the TV" \
            "(fix them, then: systemctl restart partytable):"
        printf '%s\n' "$problems"
    fi
}

do_install() {
    need_root
    need_tool systemctl systemd
    need_tool systemd-sysusers systemd
    need_tool install coreutils
    need_tool cmp diffutils
    need_tool diff diffutils
    overlay_guard
    NEW_DIRS=
    CHANGED=no
    umask 022
    apt_step
    python_step
    source_step
    venv_step
    sysusers_step
    udev_step
    modules_step
    watchdog_step
    config_step
    unit_step
    if [ -n "$NEW_DIRS" ]; then
        printf '%s' "$NEW_DIRS" >>"$CREATED"
        chmod 0644 "$CREATED"
    fi
    if live && [ $CHANGED = yes ] && systemctl --quiet is-active "$UNIT"; then
        systemctl try-restart "$UNIT" && say "unit: restarted $UNIT on the new files"
    fi
    if live; then
        say "installed: partytable starts at every boot (now: systemctl start partytable)"
    else
        say "installed into ${D:-this system}: partytable starts at its next boot"
    fi
}

# ---------------------------------------------------------------------------------------------

do_uninstall() {
    need_root
    need_tool systemctl systemd
    removed=
    created=
    [ -f "$CREATED" ] && created=$(cat "$CREATED")
    if [ -e "$D$UNIT_DIR/$UNIT" ]; then
        if [ -n "$D" ]; then
            systemctl --root="$D" --quiet disable "$UNIT" \
                || die "systemctl --root=$D disable $UNIT failed"
        elif live; then
            systemctl --quiet disable --now "$UNIT" || die "systemctl disable --now $UNIT failed"
        else
            systemctl --quiet disable "$UNIT" || die "systemctl disable $UNIT failed"
        fi
    fi
    for f in "$UNIT_DIR/multi-user.target.wants/$UNIT" "$UNIT_DIR/$UNIT" "$SYSUSERS" "$RULES" \
        "$MODULES" "$MANAGER_CONF"; do
        if [ -e "$D$f" ] || [ -L "$D$f" ]; then
            rm -f "$D$f"
            removed="$removed $f"
        fi
    done
    if [ -e "$D$PREFIX" ]; then
        rm -rf "$D$PREFIX"
        removed="$removed $PREFIX"
    fi
    if firmware_unmark; then
        removed="$removed $FIRMWARE_CONFIG's watchdog lines"
    fi
    # the directories install made, deepest first, where they are empty now
    printf '%s\n' "$created" | sort -r | while IFS= read -r dir; do
        [ -n "$dir" ] && rmdir "$D$dir" 2>/dev/null || true
    done
    if live; then
        case $removed in
            *"$MANAGER_CONF"*) systemctl daemon-reexec || true ;;
            *) systemctl daemon-reload ;;
        esac
    fi
    if [ -z "$D" ] && command -v udevadm >/dev/null 2>&1 && udevadm control --ping 2>/dev/null; then
        udevadm control --reload || true
    fi
    if [ -n "$removed" ]; then
        say "removed:$removed"
    else
        say "removed: nothing (partytable was not installed)"
    fi
    say "kept: $CONFIG, $STATE (the party's games) and the partytable user and groups"
}

ACTION=${1:-}
case $ACTION in
    install) do_install ;;
    uninstall) do_uninstall ;;
    files) shipped_files ;;
    readonly-check) readonly_check ;;
    *) echo "usage: sh systemd/install.sh install|uninstall|files|readonly-check (files: what install copies)" >&2
       exit 2 ;;
esac

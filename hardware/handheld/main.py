# partytable's serial handheld: what MicroPython runs at power-up (README.md beside it).
#
# Ctrl-C goes off before anything else runs.  USB is up before this file runs, the Pi PINGs
# every 250 ms and every PING holds the byte 0x03 (Ctrl-C): MicroPython compiles this file
# with Ctrl-C off and turns it on just before the first statement (shared/runtime/pyexec.c,
# parse_compile_execute), so a 0x03 that arrives while anything else runs first (imports,
# the OLED's setup) raises KeyboardInterrupt, the board drops to the REPL, and the next
# PING's 0x04 soft-reboots it.  So: no docstring, no other statement, before the call.
import micropython

micropython.kbd_intr(-1)

# The firmware itself is precompiled (make firmware: build/handheld/*.mpy), so the board
# loads bytecode instead of compiling about 60 KB of source at every boot.  A .py of the same name
# on the board would be imported instead of its .mpy: copy only what README.md lists.
try:
    import firmware
except Exception as exc:  # e.g. .mpy files built for another MicroPython (README.md)
    micropython.kbd_intr(3)
    text = f"main.py: cannot import the firmware: {type(exc).__name__}: {exc}\n"
    try:
        with open("crash.txt") as f:
            same = f.read() == text
    except OSError:
        same = False
    if not same:
        try:
            with open("crash.txt", "w") as f:
                f.write(text)
        except OSError:
            pass
    raise
firmware.run()

"""The virtual Raspberry Pi (``make virtual-pi``): the appliance VM with simulated hardware on
the kernel's own drivers, and a game played through them.

``python -m scripts.virtual_pi`` (from the repository root, as root) boots the appliance's
Debian Bookworm VM (:mod:`scripts.appliance`) with the TV on ``virtio-gpu`` (KMS/DRM), the slap
buttons and handheld keys on ``gpio-sim`` lines (a module built out of tree,
:mod:`.gpio_sim`), the wired OLEDs on ``i2c-stub``, a serial handheld as a USB gadget on
``dummy_hcd`` and the sound into ``snd-aloop``; the host presses buttons and keys through the
guest agent and checks what the console did.  docs/hardware-facts.md, "A virtual Raspberry Pi",
says what each simulator gives and what it leaves out.
"""

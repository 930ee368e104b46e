"""The virtual Pi's USB handheld without a VM: the host's command lines and parsers
(``scripts/virtual_pi/usb.py``), the key check and pull timings, and the guest handheld's
command handling (``guest/gadget_handheld.py``) on a gadget folder that is only files."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.virtual_pi import usb
from scripts.virtual_pi.guest import gadget_handheld
from scripts.virtual_pi.usb import ConsoleKey, Event, JournalLine, SentKey, UsbError


# ------------------------------------------------------------------ command lines
def test_the_by_id_name_is_udevs_name_for_micropythons_strings() -> None:
    assert usb.by_id_path("e6614103e7455d2f") == (
        "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614103e7455d2f-if00")


@pytest.mark.parametrize("serial", ["", "a b", "x/y", "a" * 33])
def test_a_serial_that_cannot_be_a_file_name_part_is_refused(serial: str) -> None:
    with pytest.raises(ValueError, match="serial"):
        usb.by_id_path(serial)


def test_the_seat_names_the_handheld_by_its_by_id_path_and_passes_the_config_check(
        tmp_path: Path) -> None:
    from device.config.loader import parse_config

    text = ('[display]\ndriver = "dummy"\n[paths]\nstate_dir = "/var/lib/partytable"\n'
            + usb.serial_seat_toml("abc123", slap_pin=17)
            + '[[seat]]\n[seat.handheld]\nkind = "none"\n')
    config = parse_config(text, "test.toml")
    handheld = config.seats[0].handheld
    assert handheld.kind == "serial"
    assert getattr(handheld, "id") == usb.by_id_path("abc123")  # noqa: B009
    assert config.seats[0].slap_pin == 17


def test_a_key_command_runs_the_client_on_the_socket() -> None:
    assert usb.key_argv("SELECT") == [usb.PYTHON, "-S", f"{usb.GUEST_DIR}/gadget_handheld.py",
                                      "ctl", "--socket", usb.SOCKET, "key", "select"]


def test_a_key_the_handheld_lacks_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'menu'"):
        usb.key_argv("menu")


@pytest.mark.parametrize("words", [(), ("key", ""), ("key", "sel ect")])
def test_a_command_word_that_would_split_is_refused(words: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        usb.ctl_argv(*words)


def test_the_handheld_starts_as_a_transient_unit_bound_at_once() -> None:
    argv = usb.start_argv("abc")
    assert argv[:2] == ["systemd-run", f"--unit={usb.UNIT}"]
    assert argv[argv.index("--id") + 1] == "abc"
    assert argv[-1] == "--plug"
    assert "--plug" not in usb.start_argv("abc", plug=False)


def test_only_the_gadget_scripts_actions_are_built() -> None:
    assert usb.gadget_argv("unbind", "abc")[-2:] == ["unbind", "abc"]
    with pytest.raises(ValueError, match="'rebind'"):
        usb.gadget_argv("rebind")


def test_a_written_file_arrives_byte_for_byte_with_its_mode(tmp_path: Path) -> None:
    dest = tmp_path / "sub" / "f.sh"
    data = bytes(range(256))
    argv = usb.write_file_argv(str(dest), data, 0o755)
    assert base64.b64decode(argv[-2]) == data
    subprocess.run([sys.executable, *argv[1:]], check=True)
    assert dest.read_bytes() == data
    assert dest.stat().st_mode & 0o777 == 0o755


def test_every_guest_file_is_in_the_repository() -> None:
    for source in usb.GUEST_FILES:
        assert (usb.REPO / source).is_file(), source


# ------------------------------------------------------------------ parsing answers
STATUS = {"ok": True, "id": "x", "bound": True, "tty_open": True, "state": "session",
          "sessions": 2, "frames": 9, "frames_changed": 3, "last_frame_hash": "00ff",
          "last_frame_at": 12.5, "keys_sent": 4, "pending": 0, "next_key_seq": 8,
          "skipped": 0, "lost_by_power": 0, "keys_dropped": 0, "reopens": 2, "bad": {},
          "last_error": "", "boot_id": 7, "events": 5, "auto_s": 0.0, "now": 13}


def test_a_status_answer_reads_into_its_fields() -> None:
    status = usb.parse_status("noise\n" + json.dumps(STATUS) + "\n")
    assert status.connected and status.frames == 9 and status.now == 13.0
    assert status.next_key_seq == 8 and status.bad == {}


def test_a_status_with_a_mistyped_field_names_it() -> None:
    with pytest.raises(UsbError, match="'frames'"):
        usb.parse_status(json.dumps({**STATUS, "frames": "9"}))


@pytest.mark.parametrize(("text", "says"), [
    ("", "no answer"), ("nope", "not JSON"), ("[1]", "not an object"),
    ('{"ok": false, "error": "key: \'x\' is not one of left"}', "is not one of"),
])
def test_a_bad_or_refused_answer_is_one_line_naming_why(text: str, says: str) -> None:
    with pytest.raises(UsbError, match=says):
        usb.parse_reply(text, "key x")


def test_the_key_and_event_logs_parse() -> None:
    keys = usb.parse_keys(json.dumps({"ok": True, "keys": [
        {"n": 0, "key": "left", "down_seq": 0, "up_seq": 1, "t": 1.5, "boot_id": 3}]}))
    assert keys == [SentKey(0, "left", 0, 1, 1.5, 3)]
    events = usb.parse_events(json.dumps({"ok": True, "events": [
        {"i": 0, "what": "plug", "t": 2, "udc": "dummy_udc.0"}]}))
    assert events == [Event(0, "plug", 2.0)]


def test_journal_json_lines_become_monotonic_seconds_and_binary_messages_are_skipped() -> None:
    text = "\n".join([
        json.dumps({"MESSAGE": "INFO hello", "__MONOTONIC_TIMESTAMP": "2500000"}),
        json.dumps({"MESSAGE": [104, 105], "__MONOTONIC_TIMESTAMP": "2600000"}),
        "not json"])
    assert usb.parse_journal(text) == [JournalLine(2.5, "INFO hello")]


def _line(t: float, message: str) -> JournalLine:
    return JournalLine(t, message)


JOURNAL = [
    _line(1.0, "INFO seat 1 serial handheld usb-M-if00: connected on /dev/ttyACM0 (id x, "
               "firmware 'vpi-usb-1', protocol 1)"),
    _line(1.1, "INFO seat 1 serial handheld usb-M-if00: KEY seq 0 left down applied"),
    _line(1.2, "INFO seat 1 serial handheld usb-M-if00: KEY seq 1 left up applied"),
    _line(2.05, "INFO seat 1 serial handheld usb-M-if00: unplugged from /dev/ttyACM0 (read "
                "failed: [Errno 5] Input/output error)"),
    _line(4.6, "INFO seat 1 serial handheld usb-M-if00: connected on /dev/ttyACM1 (id x, "
               "firmware 'vpi-usb-1', protocol 1)"),
    _line(4.7, "INFO seat 1 serial handheld usb-M-if00: KEY seq 1 already applied (a "
               "resend): not applied again (1 so far)"),
]


def test_the_console_key_lines_are_read_in_order() -> None:
    assert usb.console_keys(JOURNAL) == [
        ConsoleKey(1.1, 1, 0, "left", True, True), ConsoleKey(1.2, 1, 1, "left", False, True)]


def test_the_link_lines_are_told_apart() -> None:
    assert [x.t for x in usb.link_lines(JOURNAL, "connected")] == [1.0, 4.6]
    assert [x.t for x in usb.link_lines(JOURNAL, "gone")] == [2.05]


SENT = [SentKey(0, "left", 0, 1, 1.0, 3), SentKey(1, "right", 2, 3, 1.3, 3)]


def _decided(*rows: tuple[int, str, bool, bool]) -> list[ConsoleKey]:
    return [ConsoleKey(0.0, 1, seq, key, down, applied) for seq, key, down, applied in rows]


def test_every_edge_applied_once_in_order_is_no_problem_whatever_the_refused_resends() -> None:
    decided = _decided((0, "left", True, True), (1, "left", False, True),
                       (1, "left", False, False), (2, "right", True, True),
                       (3, "right", False, True))
    assert usb.check_keys(SENT, decided) == []


def test_a_lost_a_doubled_an_unsent_and_a_wrong_edge_are_each_named() -> None:
    decided = _decided((0, "left", True, True), (0, "left", True, True),
                       (2, "left", True, True), (9, "back", True, True))
    problems = usb.check_keys(SENT, decided)
    assert any("more than once: [0]" in p for p in problems)
    assert any("never applied: seqs [1, 3]" in p for p in problems)
    assert any("never sent: [9]" in p for p in problems)
    assert any("another key or direction: seqs [2]" in p for p in problems)


def test_edges_applied_out_of_order_are_named() -> None:
    decided = _decided((1, "left", False, True), (0, "left", True, True),
                       (2, "right", True, True), (3, "right", False, True))
    assert usb.check_keys(SENT, decided) == [
        "KEY edges applied out of the order they were pressed"]


def test_a_pull_is_timed_from_unplug_to_gone_and_from_plug_to_back() -> None:
    events = [Event(0, "session", 0.9), Event(1, "unplug", 2.0), Event(2, "plug", 4.0),
              Event(3, "session", 4.5), Event(4, "frame", 4.8), Event(5, "unplug", 9.0)]
    timings = usb.pull_timings(events, JOURNAL)
    assert len(timings) == 1  # the second unplug has no plug after it
    t = timings[0]
    assert t.gone_s == pytest.approx(0.05)
    assert t.session_s == pytest.approx(0.5)
    assert t.frame_s == pytest.approx(0.8)
    assert t.connected_s == pytest.approx(0.6)


def test_nearest_rank_percentiles() -> None:
    values = [float(v) for v in range(1, 101)]
    assert usb.percentile(values, 50) == 50.0
    assert usb.percentile(values, 99) == 99.0
    assert usb.percentile([3.0, 1.0, 2.0], 99) == 3.0
    with pytest.raises(ValueError):
        usb.percentile([], 50)


# ------------------------------------------------------------------ the guest handheld
@pytest.fixture
def handheld(tmp_path: Path) -> gadget_handheld.Handheld:
    gadget = tmp_path / "gadget"
    gadget.mkdir()
    (gadget / "UDC").write_text("\n")
    core = gadget_handheld.load_core()
    return gadget_handheld.Handheld(core, "abc123", gadget=str(gadget),
                                    tty_path=str(tmp_path / "no-tty"))


def test_a_pressed_key_logs_both_edges_with_their_seqs(
        handheld: gadget_handheld.Handheld) -> None:
    first = handheld.command("key SELECT")
    second = handheld.command("key left")
    assert (first["key"], first["down_seq"], first["up_seq"]) == ("select", 0, 1)
    assert (second["down_seq"], second["up_seq"]) == (2, 3)
    logged = handheld.command("keys 1")["keys"]
    assert [k["n"] for k in logged] == [1]
    assert handheld.command("status")["pending"] == 4


def test_a_full_queue_refuses_a_press_without_taking_a_seq(
        handheld: gadget_handheld.Handheld) -> None:
    for _ in range(16):
        assert handheld.command("key left")["queued"] is True
    assert handheld.command("key left")["queued"] is False
    status = handheld.command("status")
    assert status["keys_sent"] == 16 and status["skipped"] == 1
    assert status["next_key_seq"] == 0


def test_pulling_with_power_restarts_the_core_and_counts_the_lost_edges(
        handheld: gadget_handheld.Handheld) -> None:
    handheld.command("key back")
    reply = handheld.command("unplug power")
    assert reply["lost"] == 2
    assert handheld.core.pending_keys() == []
    assert handheld.command("key back")["down_seq"] == 0  # a new boot's counter
    assert handheld.command("status")["lost_by_power"] == 2
    assert [e["what"] for e in handheld.command("events")["events"]] == ["unplug"]


@pytest.mark.parametrize(("line", "says"), [
    ("", "empty command"), ("key menu", "'menu' is not one of"),
    ("auto x", "auto:"), ("auto 100", "not 0..60"), ("auto 1 up", "'up' is not a key"),
    ("dance", "unknown command 'dance'"), ("keys x", "keys:"),
])
def test_a_bad_command_is_answered_with_one_line_naming_it(
        handheld: gadget_handheld.Handheld, line: str, says: str) -> None:
    reply = handheld.command(line)
    assert reply["ok"] is False and says in reply["error"]


def test_the_unbound_handheld_says_hello_into_nothing_and_opens_no_tty(
        handheld: gadget_handheld.Handheld) -> None:
    handheld.pump(100.0)
    status = handheld.command("status")
    assert status["bound"] is False and status["tty_open"] is False
    assert status["state"] == "waiting"

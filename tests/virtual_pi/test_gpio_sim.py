"""The virtual Pi's GPIO pieces that need no VM: the irq_sim patch, the module's cache key,
the guest tool's pulls and sequences, the fairness plan and its summary."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from scripts.appliance.image import BuildError
from scripts.virtual_pi import gpio_sim
from scripts.virtual_pi.guest import fairness, gpiosim

IRQ_SIM = """\
static void irq_sim_handle_irq(struct irq_work *work)
{
\twhile (!bitmap_empty(work_ctx->pending, work_ctx->irq_count)) {
\t\toffset = find_next_bit(work_ctx->pending, work_ctx->irq_count, offset);
\t\tclear_bit(offset, work_ctx->pending);
\t\tirqnum = irq_find_mapping(work_ctx->domain, offset);
\t\thandle_simple_irq(irq_to_desc(irqnum));
\t}
}
"""


# ------------------------------------------------------------------ the module build
def test_the_patch_calls_the_exported_generic_handle_irq_instead_of_irq_to_desc() -> None:
    patched = gpio_sim.patch_irq_sim(IRQ_SIM)
    assert "\t\tgeneric_handle_irq(irqnum);\n" in patched
    assert "irq_to_desc" not in patched
    assert patched.replace("generic_handle_irq(irqnum)",
                           "handle_simple_irq(irq_to_desc(irqnum))") == IRQ_SIM


def test_the_patch_refuses_a_source_without_the_call_or_with_another_irq_to_desc() -> None:
    with pytest.raises(ValueError, match="found 0"):
        gpio_sim.patch_irq_sim("static int x;\n")
    with pytest.raises(ValueError, match="found 2"):
        gpio_sim.patch_irq_sim(IRQ_SIM + IRQ_SIM)
    with pytest.raises(ValueError, match="another irq_to_desc"):
        gpio_sim.patch_irq_sim(IRQ_SIM + "desc = irq_to_desc(irq);\n")


def test_the_module_is_keyed_on_the_trees_kernel_and_the_builder(tmp_path: Path) -> None:
    boot = tmp_path / "rootfs" / "boot"
    boot.mkdir(parents=True)
    (boot / "vmlinuz-6.1.0-50-amd64").write_bytes(b"")
    kver = gpio_sim.kernel_version(tmp_path / "rootfs")
    assert kver == "6.1.0-50-amd64"
    folder = gpio_sim.module_dir(tmp_path, kver)
    assert folder.name == f"gpio-sim-6.1.0-50-amd64-b{gpio_sim.BUILDER}"
    script = gpio_sim.build_script(kver)
    assert "linux-headers-6.1.0-50-amd64" in script and "linux-source-6.1" in script


def test_a_cached_module_is_returned_without_building(tmp_path: Path) -> None:
    rootfs = tmp_path / "appliance" / "base-x" / "rootfs"
    (rootfs / "boot").mkdir(parents=True)
    (rootfs / "boot" / "vmlinuz-6.1.0-50-amd64").write_bytes(b"")
    cache = tmp_path / "vpi"
    done = gpio_sim.module_dir(cache, "6.1.0-50-amd64")
    done.mkdir(parents=True)
    (done / "gpio-sim.ko").write_bytes(b"\x7fELF")
    said: list[str] = []
    assert gpio_sim.ensure_gpio_sim(rootfs, cache, said.append) == done / "gpio-sim.ko"
    assert said and "cached" in said[0]


def test_a_tree_without_a_kernel_or_the_appliance_cache_itself_is_one_build_error(
        tmp_path: Path) -> None:
    rootfs = tmp_path / "appliance" / "base-x" / "rootfs"
    rootfs.mkdir(parents=True)
    with pytest.raises(BuildError, match="no kernel in"):
        gpio_sim.ensure_gpio_sim(rootfs, tmp_path / "vpi", print)
    (rootfs / "boot").mkdir()
    (rootfs / "boot" / "vmlinuz-6.1.0-50-amd64").write_bytes(b"")
    with pytest.raises(BuildError, match="is the appliance cache"):
        gpio_sim.ensure_gpio_sim(rootfs, tmp_path / "appliance", print)


def test_the_wheel_is_downloaded_for_cpython_311_on_x86_64_binary_only(tmp_path: Path) -> None:
    argv = gpio_sim.lgpio_wheel_argv(tmp_path, "python3")
    assert argv[:4] == ["python3", "-m", "pip", "download"]
    for flag in ("--only-binary=:all:", "--no-deps", "lgpio==0.2.2.0"):
        assert flag in argv
    assert argv[argv.index("--platform") + 1] == "manylinux_2_34_x86_64"
    assert argv[argv.index("--python-version") + 1] == "3.11"


# ------------------------------------------------------------------ the guest tool
def test_the_chip_looks_like_a_pi_4s_header_to_the_projects_chip_lookup() -> None:
    from drivers.pin_factory import find_header_chip

    assert gpiosim.LINES == 58
    assert find_header_chip({0: "gpio-sim.0-node0", 3: gpiosim.LABEL}) == 3


def test_a_press_is_the_line_pulled_down_and_a_release_pulled_up() -> None:
    assert gpiosim.pull_for(True) == "pull-down"
    assert gpiosim.pull_for(False) == "pull-up"
    assert gpiosim.ACTIONS["press"] == "pull-down"
    assert gpiosim.ACTIONS["release"] == "pull-up"


def test_a_lines_pull_is_under_the_chips_sysfs_device() -> None:
    chip = Path("/sys/devices/platform/gpio-sim.0/gpiochip0")
    assert gpiosim.pull_path(chip, 17) == chip / "sim_gpio17" / "pull"


def test_a_sequence_reads_lines_actions_and_times_with_units_in_time_order() -> None:
    steps = gpiosim.parse_sequence("25=press@1ms, 17=press@0 5=pull-up@200us 7=release@2500ns "
                                   "17=release@0.05s 25=pull-down@3")
    assert steps == (
        gpiosim.Step(0, 17, "pull-down"),
        gpiosim.Step(2_500, 7, "pull-up"),
        gpiosim.Step(200_000, 5, "pull-up"),
        gpiosim.Step(1_000_000, 25, "pull-down"),
        gpiosim.Step(3_000_000, 25, "pull-down"),
        gpiosim.Step(50_000_000, 17, "pull-up"),
    )
    assert gpiosim.parse_sequence(gpiosim.format_sequence(steps)) == steps


def test_steps_at_the_same_time_keep_the_order_written() -> None:
    steps = gpiosim.parse_sequence("7=release@5ms 17=release@5ms 5=release@5ms")
    assert [s.line for s in steps] == [7, 17, 5]


@pytest.mark.parametrize(("spec", "names"), [
    ("", "empty sequence"),
    ("17=press", "17=press"),
    ("17=slap@1ms", "action must be one of"),
    ("58=press@0", "line '58'"),
    ("17=press@1min", "17=press@1min"),
])
def test_a_bad_sequence_is_one_line_naming_the_item(spec: str, names: str) -> None:
    with pytest.raises(gpiosim.UsageError, match=names):
        gpiosim.parse_sequence(spec)


def test_bad_command_lines_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert gpiosim.main(["press", "x"]) == 2
    assert gpiosim.main(["pull", "17", "sideways"]) == 2
    assert gpiosim.main([]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("gpiosim: ") for line in err)
    assert "line 'x'" in err[0] and "pull 'sideways'" in err[1]


def test_cpuinfo_gets_a_revision_line_only_when_it_has_none() -> None:
    text = gpiosim.with_revision("processor\t: 0\nmodel name\t: QEMU\n")
    assert text is not None and text.endswith("\n\nRevision\t: c03112\n")
    assert gpiosim.with_revision("Revision\t: c03111\n") is None


# ------------------------------------------------------------------ the fairness run
def test_the_plan_covers_every_gap_and_seat_count_in_both_orders() -> None:
    plans = fairness.plan_windows(408, random.Random(1))
    assert len(plans) == 408
    combos = {(p.gap_ns, len(p.order)) for p in plans}
    assert combos == {(g, n) for g in fairness.GAPS_NS for n in (2, 3, 4)}
    for first, second in zip(plans[::2], plans[1::2], strict=True):
        assert second.order == first.order[::-1] and second.gap_ns == first.gap_ns
    assert all(len(set(p.order)) == len(p.order) for p in plans)


def test_a_windows_spec_presses_each_seat_a_gap_apart_and_releases_all_after_the_hold() -> None:
    plan = fairness.WindowPlan((2, 0, 3), 5_000_000)
    steps = gpiosim.parse_sequence(plan.spec(hold_ns=60_000_000))
    presses = [(s.at_ns, s.line) for s in steps if s.pull == "pull-down"]
    releases = {(s.at_ns, s.line) for s in steps if s.pull == "pull-up"}
    assert presses == [(0, 5), (5_000_000, 17), (10_000_000, 7)]
    assert releases == {(70_000_000, 5), (70_000_000, 17), (70_000_000, 7)}


def _window(order: tuple[int, ...], gap_ns: int, presses: dict[int, int],
            callbacks: list[int], arbiter: int | None, error: str | None = None
            ) -> fairness.WindowResult:
    return fairness.WindowResult(
        fairness.WindowPlan(order, gap_ns), presses=presses,
        callbacks=[(s, presses.get(s, 0), presses.get(s, 0) + 100_000) for s in callbacks],
        arbiter=arbiter, writes={s: (t - 30_000, t - 20_000) for s, t in presses.items()},
        error=error)


def test_the_summary_counts_the_shares_right_per_gap_and_overall() -> None:
    results = [
        # 0.2 ms: timestamps right, callbacks in the wrong order
        _window((0, 1), 200_000, {0: 1_000, 1: 201_000}, [1, 0], 0),
        # 0.2 ms: both right
        _window((1, 0), 200_000, {1: 1_000, 0: 201_000}, [1, 0], 1),
        # 1 ms: both right; 1 ms: failed (not counted in the shares)
        _window((2, 3), 1_000_000, {2: 5_000, 3: 1_005_000}, [2, 3], 2),
        _window((3, 2), 1_000_000, {3: 5_000}, [3], None, error="not settled"),
    ]
    summary = fairness.summarise(results)
    fast, slow, overall = summary["0.2ms"], summary["1ms"], summary["all"]
    assert isinstance(fast, dict) and isinstance(slow, dict) and isinstance(overall, dict)
    assert (fast["windows"], fast["failed"]) == (2, 0)
    assert fast["arbiter_correct"] == fast["earliest_correct"] == 1.0
    assert fast["first_callback_correct"] == 0.5
    assert (slow["windows"], slow["failed"], slow["arbiter_correct"]) == (2, 1, 1.0)
    assert overall["windows"] == 4 and overall["first_callback_correct"] == pytest.approx(2 / 3,
                                                                                         abs=1e-4)
    assert fast["stamp_after_write"] == {"median_us": 30.0, "max_us": 30.0}
    assert fast["callback_after_stamp"] == {"median_us": 100.0, "max_us": 100.0}


def test_a_window_with_no_press_has_no_winner_and_the_summary_of_none_is_empty_shares() -> None:
    empty = _window((0, 1), 5_000_000, {}, [], None, error="not settled")
    assert empty.earliest is None and empty.first_callback is None
    shares = fairness.summarise([empty])["5ms"]
    assert isinstance(shares, dict) and shares["arbiter_correct"] is None
    assert empty.to_json()["error"] == "not settled"

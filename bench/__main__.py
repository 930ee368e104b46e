"""``python -m bench``: run every benchmark and print its lines.

Each module exposes ``run() -> list[str]``; a failing module prints one error line and
the others still run.
"""

from __future__ import annotations

import importlib
import sys
import time

MODULES = (
    "bench.bench_rlcard",
    "bench.bench_engine",
    "bench.bench_rot",
    "bench.bench_strength",
    "bench.bench_render",
    "bench.bench_arbiter",
    "bench.bench_fairness",
    "bench.bench_serial",
    "bench.bench_idle",
    "bench.bench_startup",
)


def main() -> int:
    """Run each benchmark module in turn; exit status 1 if any failed."""
    failed = 0
    for name in MODULES:
        print(f"== {name}")
        t0 = time.perf_counter()
        try:
            lines = importlib.import_module(name).run()
        except Exception as err:  # a benchmark must not hide the others
            failed += 1
            print(f"   error: {type(err).__name__}: {err}")
            continue
        for line in lines:
            print(f"   {line}")
        print(f"   ({time.perf_counter() - t0:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

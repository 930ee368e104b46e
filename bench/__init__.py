"""Benchmarks (``make bench``): figures are printed beside a baseline measured in the same
run, never asserted (CI machines are noisy)."""

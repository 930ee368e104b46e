"""The words every screen of the device uses for the same things (screens.md: text in words,
not only symbols): seat names counted from 1 and Riiing! symbols as one word."""

from __future__ import annotations

SYMBOL_WORDS: dict[str, str] = {
    "A": "ALARM",
    "S": "SOAP",
    "C": "COFFEE",
    "T": "TOAST",
    "P": "PHONE",
}
"""Riiing! symbol letter (notation: A S C T, P for the Phone, RI-1.1) -> the word people read."""


def seat_name(seat: int) -> str:
    """``"Seat 3"`` for seat index 2: people count from 1, the notation from 0.

    >>> seat_name(0)
    'Seat 1'
    """
    return f"Seat {seat + 1}"

"""Numbers the user types (rates, sizes), and numbers as tcpdiag writes them.

Rates are decimal (1G = 10^9 bit/s, as link speeds are quoted). Writing numbers is the
engine's job (analyse/units.rs): `fmt` calls it, so every surface reads alike.
"""

from __future__ import annotations

import re

from tcpdiag import _native

_PREFIX = {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9, "t": 1e12, "T": 1e12}
_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)\s*(?:bit/s|bps|b/s|bit|b)?\s*$")


def parse_rate(text: str) -> float:
    """'1G', '250M', '2.5Gbit/s', '100000' → bit/s. Raises ValueError on anything else."""
    m = _RATE.match(text)
    if not m or float(m.group(1)) <= 0:
        raise ValueError(f"not a rate: {text!r} (examples: 1G, 250M, 2.5Gbit/s)")
    return float(m.group(1)) * _PREFIX[m.group(2)]


def fmt(unit: str, x: float | None) -> str:
    """A number as every surface writes it (the engine's one formatter, analyse/units.rs):
    `unit` is bytes, size, rate, ms, seconds, percent or count; None reads "?"."""
    if x is None:
        return "?"
    return _native.format_number(unit, float(x))


_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)\s*[bB]?\s*$")


def parse_size(text: str) -> int:
    """'100k', '1M', '65535' → bytes (decimal prefixes). Raises ValueError."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (examples: 100k, 1M, 65535)")
    return int(float(m.group(1)) * _PREFIX[m.group(2)])

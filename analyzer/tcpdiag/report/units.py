"""Numbers as an engineer reads them: rates in bit/s with SI prefixes, sizes in bytes.

Rates are decimal (1G = 10^9 bit/s, as link speeds are quoted); sizes keep exact bytes
next to the rounded figure because buffer sysctls take bytes.
"""

from __future__ import annotations

import re

_PREFIX = {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9, "t": 1e12, "T": 1e12}
_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)\s*(?:bit/s|bps|b/s|bit|b)?\s*$")


def parse_rate(text: str) -> float:
    """'1G', '250M', '2.5Gbit/s', '100000' → bit/s. Raises ValueError on anything else."""
    m = _RATE.match(text)
    if not m or float(m.group(1)) <= 0:
        raise ValueError(f"not a rate: {text!r} (examples: 1G, 250M, 2.5Gbit/s)")
    return float(m.group(1)) * _PREFIX[m.group(2)]


def rate(bps: float | None) -> str:
    """bit/s → '15.7 Mbit/s'."""
    if bps is None:
        return "?"
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3g} {unit}" if bps / scale < 100 else f"{bps / scale:.0f} {unit}"
    return f"{bps:.0f} bit/s"


def size(n: float | None) -> str:
    """Bytes → '2.4 MB' (decimal, as tshark's statistics)."""
    if n is None:
        return "?"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}" if n / scale < 100 else f"{n / scale:.0f} {unit}"
    return f"{n:.0f} B"


def exact(n: float | None) -> str:
    """Bytes → '80,480 B'."""
    return "?" if n is None else f"{int(round(n)):,} B"


def ms(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x:.3g} ms" if x < 100 else f"{x:.0f} ms"


def seconds(x: float) -> str:
    return f"{x:.3g} s" if x < 100 else f"{x:.0f} s"


_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)\s*[bB]?\s*$")


def parse_size(text: str) -> int:
    """'100k', '1M', '65535' → bytes (decimal prefixes). Raises ValueError."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (examples: 100k, 1M, 65535)")
    return int(float(m.group(1)) * _PREFIX[m.group(2)])

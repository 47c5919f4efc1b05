"""The ceiling arithmetic behind a verdict: window ÷ RTT, and the window a rate needs.

A window-limited flow cannot beat window/RTT whatever the link; a path-limited one is
judged against its bandwidth-delay product at the base (minimum) RTT. Buffer needs are
lower bounds (rate × base RTT): queueing only adds to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tcpdiag.report import units

#: Primary findings whose throughput is capped by a window the receiver advertised.
RWND_FINDINGS = ("rwnd_limited", "rwnd_static", "wscale_missing")
#: Rates quoted when the user gave no --target-rate: what each would need on this path.
REFERENCE_RATES = (100e6, 1e9)


@dataclass
class Ceiling:
    #: What caps the flow: "rwnd" (receive window), "sndbuf" (send buffer) or "path".
    limit: str
    window_bytes: int | None
    rtt_ms: float | None
    min_rtt_ms: float | None
    ceiling_bps: float | None
    observed_bps: float
    bdp_bytes: int | None
    target_bps: float | None
    needed_bytes: int | None
    lines: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("limit", "window_bytes", "rtt_ms", "min_rtt_ms", "ceiling_bps",
                                              "observed_bps", "bdp_bytes", "target_bps", "needed_bytes",
                                              "lines")}


def _need(rate_bps: float, rtt_ms: float) -> int:
    return int(rate_bps / 8 * rtt_ms / 1e3 + 0.5)


def compute(primary_id: str, values: dict[str, Any], facts: dict[str, Any],
            target_bps: float | None = None) -> Ceiling:
    """The arithmetic for one flow, from its primary finding's values and the flow facts."""
    rtt = facts.get("srtt_ms") or facts.get("mean_rtt_ms")
    base = facts.get("min_rtt_ms") or rtt
    observed = float(facts.get("goodput_bps") or 0.0)
    window: int | None = None
    limit = "path"
    if primary_id in RWND_FINDINGS:
        limit, window = "rwnd", int(values.get("rwnd") or facts.get("rwnd_max") or 0) or None
    elif primary_id == "sndbuf_limited":
        limit, window = "sndbuf", int(values.get("flight") or 0) or None
    c = Ceiling(limit, window, rtt, base, None, observed, None, target_bps, None)
    if not rtt or not base:
        c.lines.append("no RTT sample: no ceiling arithmetic")
        return c
    c.bdp_bytes = _need(observed, base)
    if window:
        c.ceiling_bps = window * 8 / (rtt / 1e3)
        name = "rwnd" if limit == "rwnd" else "send buffer (flight)"
        used = f" (observed {units.rate(observed)}, {observed / c.ceiling_bps:.0%} of it)" if observed else ""
        c.lines.append(f"{name} {units.exact(window)} ÷ {units.ms(rtt)} RTT = {units.rate(c.ceiling_bps)} "
                       f"ceiling{used}")
    else:
        flight = values.get("flight")
        c.lines.append(f"observed {units.rate(observed)} × {units.ms(base)} min RTT = BDP "
                       f"{units.exact(c.bdp_bytes)}")
        if isinstance(flight, int) and c.bdp_bytes and flight > 1.5 * c.bdp_bytes:
            c.lines.append(f"{units.exact(flight)} in flight is {flight / c.bdp_bytes:.1f}× that BDP: "
                           "the excess waits in the bottleneck queue")
    buffer = "send buffer" if limit == "sndbuf" else "window"
    if target_bps:
        c.needed_bytes = _need(target_bps, base)
        c.lines.append(f"for {units.rate(target_bps)} this path needs ≥ {units.exact(c.needed_bytes)} of {buffer} "
                       f"({units.rate(target_bps)} × {units.ms(base)} min RTT)")
    elif window:
        needs = ", ".join(f"{units.rate(r)} needs ≥ {units.size(_need(r, base))}" for r in REFERENCE_RATES)
        c.lines.append(f"at {units.ms(base)} min RTT: {needs} of {buffer} (--target-rate to size yours)")
    return c

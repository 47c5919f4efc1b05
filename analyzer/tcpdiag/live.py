"""Live capture: verdicts of the active flows, refreshed while packets arrive.

    >>> from tcpdiag.live import LiveRun
    >>> run = LiveRun("eth0", filter="tcp port 443")
    >>> for snapshot in run.snapshots(refresh=2.0, duration=30): print(snapshot.rows())
    >>> final = run.finish()            # every flow judged, as tcpdiag.analyze returns

Needs libpcap (Debian `libpcap0.8`) and the right to capture (root or CAP_NET_RAW).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator

from tcpdiag import _native
from tcpdiag.analysis import FlowVerdict


@dataclass
class Snapshot:
    """Active flows and the verdict each would get if the capture stopped now."""

    elapsed_s: float
    flows: dict[str, list[Any]]
    verdicts: dict[int, FlowVerdict]
    stats: dict[str, Any]

    def rows(self) -> list[dict[str, Any]]:
        out = []
        f = self.flows
        for i, stream in enumerate(f["stream"]):
            v = self.verdicts.get(stream)
            if v is None:
                continue
            out.append({
                "stream": stream,
                "a": f"{f['a_addr'][i]}:{f['a_port'][i]}",
                "b": f"{f['b_addr'][i]}:{f['b_port'][i]}",
                "packets": f["packets_ab"][i] + f["packets_ba"][i],
                "verdict": v.primary.id,
                "message": v.primary.message,
                "goodput_bps": v.facts.get("goodput_bps"),
            })
        return out


class LiveRun:
    """One live capture session on an interface."""

    def __init__(self, iface: str, *, filter: str | None = None, snaplen: int = 262_144,
                 vantage: str | None = None, idle_timeout: float | None = 300.0, close_grace: float = 1.0) -> None:
        self.iface = iface
        self._s = _native.LiveSession(iface, filter, snaplen, vantage, idle_timeout, close_grace)
        self._t0 = time.monotonic()

    def snapshot(self) -> Snapshot:
        raw = self._s.snapshot()
        verdicts = {v["stream"]: FlowVerdict.from_native(v) for v in raw["verdicts"]}
        return Snapshot(time.monotonic() - self._t0, raw["flows"], verdicts, raw["stats"])

    def snapshots(self, refresh: float = 2.0, duration: float | None = None) -> Iterator[Snapshot]:
        """Captures in slices of `refresh` seconds, yielding a snapshot after each, until
        `duration` (or forever; stop with Ctrl-C / KeyboardInterrupt)."""
        end = None if duration is None else self._t0 + duration
        while True:
            left = refresh if end is None else min(refresh, end - time.monotonic())
            if left <= 0:
                return
            # Short slices so Ctrl-C is seen promptly between them.
            stop = time.monotonic() + left
            while time.monotonic() < stop:
                self._s.run_for(min(0.25, max(0.0, stop - time.monotonic())))
            yield self.snapshot()

    def finish(self) -> dict:
        """Ends the capture; the result dict of `_native.analyze_scaled` (flows, stats,
        verdicts, engine)."""
        return self._s.finish()

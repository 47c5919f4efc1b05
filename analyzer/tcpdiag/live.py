"""Live capture: verdicts of the active flows, refreshed while packets arrive.

    >>> from tcpdiag.live import LiveRun
    >>> run = LiveRun("eth0", filter="tcp port 443")
    >>> for snapshot in run.snapshots(refresh=2.0, duration=30): print(snapshot.rows())
    >>> final = run.finish()            # every flow judged: flows and findings tables

Needs libpcap (Debian `libpcap0.8`) and the right to capture (root or CAP_NET_RAW).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator

import pyarrow as pa

from tcpdiag import _native, tables


@dataclass
class Snapshot:
    """Active flows and the verdict each would get if the capture stopped now (the flows
    table with its verdict columns)."""

    elapsed_s: float
    flows: pa.Table
    stats: dict[str, Any]

    def rows(self) -> list[dict[str, Any]]:
        cols = ["stream", "a_addr", "a_port", "b_addr", "b_port", "packets_ab", "packets_ba", "verdict", "message",
                "goodput_bps"]
        return self.flows.select(cols).to_pylist()


@dataclass
class Final:
    """Every flow of the capture judged: the flows table with its verdicts, the findings."""

    flows: pa.Table
    findings: pa.Table
    stats: dict[str, Any]


class LiveRun:
    """One live capture session on an interface."""

    def __init__(self, iface: str, *, filter: str | None = None, snaplen: int = 262_144,
                 vantage: str | None = None, idle_timeout: float | None = 300.0, close_grace: float = 1.0) -> None:
        self.iface = iface
        self._s = _native.LiveSession(iface, filter, snaplen, vantage, idle_timeout, close_grace)
        self._t0 = time.monotonic()

    def snapshot(self) -> Snapshot:
        raw = self._s.snapshot()
        return Snapshot(time.monotonic() - self._t0, tables.table(raw["flows"], "verdict"), raw["stats"])

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

    def finish(self) -> Final:
        """Ends the capture and judges every flow."""
        raw = self._s.finish()
        return Final(tables.table(raw["flows"], "verdict"), tables.table(raw["findings"], "findings"), raw["stats"])

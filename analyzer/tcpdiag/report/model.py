"""What the reports show of each flow, as plain data: the engine's row of the flows table
and its findings, in the order a reader wants them (worst first). The text, JSON and HTML
reporters all render this one model; none of them computes or words a verdict.

Only shown flows become objects: a capture of a million short flows costs a count here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from tcpdiag import tables
from tcpdiag.selection import DEFAULT_MIN_BYTES, order

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis, Finding



@dataclass
class Endpoint:
    addr: str
    port: int

    def __str__(self) -> str:
        return f"[{self.addr}]:{self.port}" if ":" in self.addr else f"{self.addr}:{self.port}"


@dataclass
class FlowReport:
    """One flow as the reports show it: `row` is its row of the flows table."""

    rank: int
    row: dict[str, Any]
    findings: list["Finding"]

    @property
    def stream(self) -> int:
        return self.row["stream"]

    @property
    def primary(self) -> "Finding":
        return self.findings[0]

    @property
    def sender(self) -> Endpoint:
        side = "a" if self.row["data_dir"] == 0 else "b"
        return Endpoint(self.row[f"{side}_addr"], self.row[f"{side}_port"])

    @property
    def receiver(self) -> Endpoint:
        side = "b" if self.row["data_dir"] == 0 else "a"
        return Endpoint(self.row[f"{side}_addr"], self.row[f"{side}_port"])

    @property
    def payload_bytes(self) -> int:
        return self.row["payload_ab" if self.row["data_dir"] == 0 else "payload_ba"]

    @property
    def options(self) -> dict[str, Any]:
        return {k: self.row[k] for k in ("handshake", "wscale_in_effect", "wscale_a", "wscale_b", "mss_a", "mss_b",
                                         "sack_permitted", "timestamps", "ecn")}


@dataclass
class Shown:
    """The flows a report shows, worst first, and how many it leaves out."""

    reports: list[FlowReport]
    total: int
    #: Flows left out: short ones (less data than `min_bytes`), or those --flow did not name.
    hidden: int
    min_bytes: int = DEFAULT_MIN_BYTES


def build(analysis: "Analysis", *, min_bytes: int = DEFAULT_MIN_BYTES, show_all: bool = False,
          streams: Iterable[int] | None = None) -> Shown:
    """The shown flows (all, `streams`, or those with at least `min_bytes` of data), worst
    first, with rank numbers over every flow."""
    flows = analysis.flow_batches
    idx = order(flows)
    rank = [0] * len(idx)
    for r, i in enumerate(idx, 1):
        rank[i] = r
    if streams is not None:
        named = set(streams)
        wanted = [s in named for s in tables.column(flows, "stream")]
    elif show_all:
        wanted = [True] * len(idx)
    else:
        wanted = [d >= min_bytes for d in tables.column(flows, "data_bytes")]
    shown = [i for i in idx if wanted[i]]
    reports = [FlowReport(rank[i], v.row, v.findings) for i, v in zip(shown, analysis.verdicts.at(shown))]
    return Shown(reports, len(idx), wanted.count(False), min_bytes)

"""`tcpdiag.compare(a, b)`: one transfer seen in two captures, as data.

From one capture the analysis says *what* limited a flow; from two (client and server, or
either and a middlebox) the engine says *where*: losses between the capture points or
outside them, reordering introduced between them, each direction's one-way delay, and the
header fields a middlebox changed. It matches the flows of the two captures (also through
NAT and ISN randomisation), aligns their clocks, and words every localisation finding from
the catalogue; this module only holds what it returned. Reporters are functions over a
`Comparison` (tcpdiag.report.compare).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from tcpdiag import _native, tables
from tcpdiag.analysis import typed_values
from tcpdiag.errors import CaptureError

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class PairFinding:
    """One localisation finding of a pair, with evidence frames in both captures."""

    id: str
    field: str
    severity: str
    share: float
    message: str
    remedy: str
    frames_a: list[int]
    frames_b: list[int]
    values: dict[str, Any]
    units: dict[str, str]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "PairFinding":
        values, units = typed_values(row["values"])
        return cls(row["id"], row["field"], row["severity"], row["share"], row["message"], row["remedy"],
                   list(row["frames_a"]), list(row["frames_b"]), values, units)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "field": self.field, "severity": self.severity, "share": self.share,
                "message": self.message, "remedy": self.remedy or None, "frames_a": list(self.frames_a),
                "frames_b": list(self.frames_b), "values": dict(self.values), "units": dict(self.units)}


@dataclass(frozen=True)
class Pair:
    """One flow of A and/or B: its row of the pairs table, its two directions (matched
    pairs only: client → server first) and its findings (primary first)."""

    row: dict[str, Any]
    directions: list[dict[str, Any]]
    findings: list[PairFinding]

    @property
    def number(self) -> int:
        return self.row["pair"]

    @property
    def matched(self) -> bool:
        return self.row["stream_a"] is not None and self.row["stream_b"] is not None


class Comparison:
    """Two captures of the same transfer compared (see the module doc).

    `pair_table`, `direction_table`, `finding_table` and `fate_table` are the engine's Arrow
    tables (docs/tables.md); `pairs`, `directions`, `findings` and `fates` are pandas views.
    `a` and `b` are each capture's own scan (stats, damage); `flows_a` / `flows_b` their
    single-capture diagnosis (the verdict flows table)."""

    def __init__(self, a: str, b: str, *, names: tuple[str, str] | None = None, vantage: str | None = None,
                 target_rate: str | float | None = None, fates: bool = False, errors: str = "raise") -> None:
        from tcpdiag.units import parse_rate

        self.paths = (a, b)
        target_bps = parse_rate(target_rate) if isinstance(target_rate, str) else target_rate
        raw = _native.compare(a, b, vantage, target_bps, names, fates)
        if "pairs" not in raw:
            # A capture could not be opened: its error, nothing compared.
            for path, side in ((a, raw["a"]), (b, raw["b"])):
                if side.get("error") is not None:
                    tables.check(tables.result(path, side), "raise")
            raise CaptureError(f"{a} and {b}", "nothing compared")
        self.a = tables.check(tables.result(a, raw["a"]), errors)
        self.b = tables.check(tables.result(b, raw["b"]), errors)
        self.names: tuple[str, str] = tuple(raw["names"])  # type: ignore[assignment]
        #: B's clock minus A's: offset, bounds and uncertainty (ns), drift (ppm), basis.
        self.clock: dict[str, Any] = raw["clock"]
        self.pair_table: pa.Table = tables.table(raw["pairs"], "pairs")
        self.direction_table: pa.Table = tables.table(raw["directions"], "directions")
        self.finding_table: pa.Table = tables.table(raw["findings"], "pair_findings")
        self.fate_table: pa.Table | None = tables.table(raw["fates"], "fates") if raw["fates"] is not None else None
        self.flows_a: pa.Table = self.a.flows
        self.flows_b: pa.Table = self.b.flows
        self.matched: int = raw["matched"]

    @property
    def only_a(self) -> int:
        """Flows seen in capture A only."""
        return sum(1 for s in self.pair_table.column("stream_b").to_pylist() if s is None)

    @property
    def only_b(self) -> int:
        return sum(1 for s in self.pair_table.column("stream_a").to_pylist() if s is None)

    @property
    def translated(self) -> int:
        """Matched pairs whose addresses or sequence numbers differ between the captures."""
        return sum(1 for s in self.pair_table.column("matched_by").to_pylist() if s == "translated")

    def pair(self, number: int) -> Pair:
        row = tables.rows(self.pair_table.slice(number, 1))[0]
        dirs = [d for d in tables.rows(self._rows_of(self.direction_table, number))]
        found = [PairFinding.from_row(r) for r in self._rows_of(self.finding_table, number).to_pylist()]
        return Pair(row, sorted(dirs, key=lambda d: d["dir"]), found)

    def pair_list(self) -> list[Pair]:
        """Every pair, matched ones first (A's stream order), then A only, then B only."""
        return [self.pair(i) for i in range(self.pair_table.num_rows)]

    @staticmethod
    def _rows_of(t: pa.Table, number: int) -> pa.Table:
        import pyarrow.compute as pc

        return t.filter(pc.equal(t.column("pair"), number))

    @cached_property
    def pairs(self) -> "pd.DataFrame":
        from tcpdiag.api import frame

        return frame(self.pair_table)

    @cached_property
    def directions(self) -> "pd.DataFrame":
        from tcpdiag.api import frame

        return frame(self.direction_table)

    @cached_property
    def findings(self) -> "pd.DataFrame":
        from tcpdiag.api import frame

        return frame(self.finding_table)

    @cached_property
    def fates(self) -> "pd.DataFrame":
        """One row per segment of the matched flows (needs `fates=True`)."""
        from tcpdiag.api import frame

        if self.fate_table is None:
            raise ValueError("the per-segment fates were not kept: compare(a, b, fates=True)")
        return frame(self.fate_table)


def compare(a: str, b: str, **kwargs: Any) -> Comparison:
    """Compares two captures of the same transfer (see `Comparison`)."""
    return Comparison(a, b, **kwargs)

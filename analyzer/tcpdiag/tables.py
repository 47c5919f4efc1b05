"""The tables of a capture as Arrow tables, straight from the core (no pandas).

The core declares every table's columns once (analyzer/core/src/emit/schema.rs); here they
arrive as `pyarrow` record batches without a copy. The CLI uses this module so that it
imports without pandas; `tcpdiag.api` turns the same tables into DataFrames. pyarrow is
imported on first use (~0.2 s with the NumPy it loads): the terminal and JSON reports read
their few rows straight from the native batches (`column`, `Batch.rows`) and never need it.
"""

from __future__ import annotations

import os
import stat
import warnings
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, Iterator

from tcpdiag import _native
from tcpdiag.errors import CaptureDamagedError, CaptureError, CaptureWarning, NotACaptureError, from_native

if TYPE_CHECKING:
    import pyarrow as pa


def table(batches: Any, name: str | None = None) -> pa.Table:
    """Native batches (one, or a list: Arrow PyCapsule interface) as a pyarrow Table,
    without a copy; `name` gives the schema of an empty list."""
    import pyarrow as pa

    if not isinstance(batches, list):
        batches = [batches]
    if not batches:
        assert name is not None, "an empty table needs its schema's name"
        return empty(name)
    return pa.Table.from_batches([pa.record_batch(b) for b in batches])


def column_names(name: str) -> list[str]:
    """The columns of the table `name` (see `schema`), without pyarrow."""
    return _native.schemas()[name].column_names


def column(batches: list[_native.Batch], name: str) -> list[Any]:
    """One column of the engine's batches (a table in pieces) as a list, without pyarrow."""
    out: list[Any] = []
    for b in batches:
        out += b.column(name)
    return out


def empty(name: str) -> pa.Table:
    """The table `name` without rows. (`Schema.empty_table` imports pandas: ~0.2 s.)"""
    import pyarrow as pa

    return pa.Table.from_batches([], schema=schema(name))


def rows(t: pa.Table) -> list[dict[str, Any]]:
    """The rows of a (small) table as dicts; times as int nanoseconds since the epoch
    (pyarrow would give datetimes or pandas Timestamps, dropping or keeping the ns)."""
    import pyarrow as pa

    times = [i for i, f in enumerate(t.schema) if pa.types.is_timestamp(f.type)]
    for i in times:
        # A view of the same 64-bit values: a cast would load pyarrow.compute (~40 ms).
        ns = pa.chunked_array([c.view(pa.int64()) for c in t.column(i).chunks], pa.int64())
        t = t.set_column(i, t.schema.field(i).name, ns)
    return t.to_pylist()


@cache
def schema(name: str) -> pa.Schema:
    """A table's declared schema: flows, verdict, findings, packets, analysis, sacks,
    events or series. Each field's metadata holds its `doc`."""
    import pyarrow as pa

    return pa.record_batch(_native.schemas()[name]).schema


def doc(field: pa.Field) -> str:
    return (field.metadata or {}).get(b"doc", b"").decode()


@dataclass
class ScanResult:
    """One pass over a capture: the flows table, decoder statistics and the damage, if any."""

    file: str
    #: The flows table as the engine's batches; `flows` is the same as a pyarrow Table.
    flow_batches: list[_native.Batch]
    #: The schema of `flows` when it has no batch ("flows", or "verdict" after a diagnosis).
    flows_schema: str
    stats: dict[str, Any]
    error: CaptureError | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def flows(self) -> pa.Table:
        return table(self.flow_batches, self.flows_schema)

    @property
    def partial(self) -> bool:
        return isinstance(self.error, CaptureDamagedError)

    def warnings(self) -> list[str]:
        """Lines about frames that were read but could not be analysed."""
        s, out = self.stats, []
        for linktype, frames, first in s.get("unknown_linktypes", []):
            out.append(f"{self.file}: frame {first}: link type {linktype} not supported ({frames} frames skipped)")
        if s.get("undecodable"):
            frame, why = s["first_undecodable"]
            out.append(f"{self.file}: frame {frame}: {why} ({s['undecodable']} frames with a cut or malformed "
                       "TCP/IP header skipped)")
        return out

    def nothing_decodable(self) -> CaptureError | None:
        """An error when the capture held frames but none tcpdiag can decode (only unknown
        link types): an empty result would look like "no TCP here", which is not true."""
        s = self.stats
        if s.get("tcp_segments") or s.get("not_tcp") or not s.get("unknown_linktypes"):
            return None
        linktype, frames, first = s["unknown_linktypes"][0]
        return NotACaptureError(self.file, f"frame {first}: link type {linktype} not supported "
                                f"({frames} frames), nothing to analyse", kind="unsupported")


def result(file: str, raw: dict) -> ScanResult:
    """A native result dict (`flows` batch, `stats`, `error`) as a ScanResult; other keys
    (findings, engine, write_error …) go to `extra`."""
    flows_schema = "verdict" if "findings" in raw else "flows"
    batches = raw.get("flows", [])
    res = ScanResult(file, batches if isinstance(batches, list) else [batches], flows_schema, raw["stats"])
    res.extra = {k: v for k, v in raw.items() if k not in ("flows", "stats", "error")}
    if raw["error"] is not None:
        res.error = from_native(file, raw["error"], partial=res)
    return res


def rereadable(path: str) -> bool:
    """True when `path` can be read a second time: a regular file. Standard input, a FIFO
    and a shell's `<(...)` (`/dev/fd/N`) give their bytes once. Looks at the path with
    `stat` only: opening a FIFO to find out would consume its writer."""
    if path == "-":
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # a missing file: the reading itself reports it


def check(res: ScanResult, errors: str) -> ScanResult:
    """Applies the caller's policy: raise on any damage, or warn and keep partial results.

    Inputs that yield nothing (missing file, not a capture) always raise.
    """
    err = res.error or res.nothing_decodable()
    if err is None:
        return res
    if not isinstance(err, CaptureDamagedError) or errors == "raise":
        raise err
    warnings.warn(f"{err}; results cover the {err.frames_read} frames before it", CaptureWarning, stacklevel=3)
    return res


def scan_flows(path: str) -> ScanResult:
    """Reads the capture once and returns the flows table (errors are in `.error`)."""
    return result(path, _native.scan_flows(path))


def write_packets_csv(path: str, out: str, analysis: bool = False) -> ScanResult:
    """Streams the packets table of `path` to the CSV file `out` ("-" = stdout), with the
    analysis columns when `analysis` is true (`.extra["write_error"]` if writing failed)."""
    return result(path, _native.write_packets_csv(path, out, analysis))


def write_annotations(path: str, out: str) -> ScanResult:
    """Writes the Wireshark plugin's annotations of `path` (the engine's per-packet notes
    and flow verdicts, docs/wireshark.md) to the file `out`."""
    return result(path, _native.write_annotations(path, out))


def series_spec(flows: pa.Table) -> tuple:
    """What `PacketChunks(series=…)` needs from a diagnosis' flows table to make each
    flow's series: streams, data directions, rate windows."""
    return tuple(flows.column(c).to_pylist() for c in ("stream", "data_dir", "rate_window_s"))


#: Seconds of capture time after which an idle flow is judged and its state dropped
#: (None: never; flows are judged whole).
DEFAULT_IDLE_TIMEOUT = None
#: Seconds after which a closed flow without data (RST, or FIN both ways) is judged.
DEFAULT_CLOSE_GRACE = 1.0


def analyze_scaled(path: str | list[str], vantage: str | None = None, *, jobs: int = 1,
                  filter: str | None = None, idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                  close_grace: float = DEFAULT_CLOSE_GRACE, target_bps: float | None = None) -> dict:
    """`_native.analyze_scaled` (several threads, merged pieces, filters, idle eviction:
    docs/scaling.md) with the failing piece named in the result's `file`."""
    paths = [path] if isinstance(path, str) else list(path)
    raw = _native.analyze_scaled(paths, jobs, vantage, filter, idle_timeout, close_grace, target_bps)
    err = raw.get("error")
    raw["file"] = paths[err.get("input", 0)] if err else capture_label(paths)
    return raw


def capture_label(paths: list[str]) -> str:
    return paths[0] if len(paths) == 1 else "+".join(paths)


class PacketChunks:
    """Iterates the packets table in chunks: dicts of pyarrow tables (`packets`; with
    `analysis` also `sacks`, `events` and, for the flows in `series`, `series`);
    `.result` after the end."""

    def __init__(self, path: str, chunk_rows: int = 1_000_000, analysis: bool = False,
                 vantage: str | None = None, series: tuple | None = None) -> None:
        self.path = path
        self._it = _native.PacketChunks(path, chunk_rows, analysis, vantage, series)
        self.result: ScanResult | None = None

    def __iter__(self) -> Iterator[dict[str, pa.Table]]:
        for chunk in self._it:
            yield {name: table(b) for name, b in chunk.items()}
        self.result = result(self.path, self._it.result())

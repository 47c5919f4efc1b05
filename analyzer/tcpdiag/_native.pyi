"""The private seam to the Rust core (analyzer/native). Checked against the built module by
`python -m mypy.stubtest tcpdiag._native` in the tests.

Tables cross as `Batch` (Arrow record batches, read with `pyarrow.record_batch`); their
columns are declared once in analyzer/core/src/emit/schema.rs (`schemas()`). Capture
problems come back in the result's `error` dict, never as exceptions.
"""

from typing import Any, Iterator, TypedDict

__version__: str

class ErrorDict(TypedDict):
    kind: str  # io, empty, not_a_capture, unsupported, truncated, corrupt
    message: str
    detail: str
    offset: int | None
    frames_read: int

class Batch:
    """One Arrow record batch (Arrow PyCapsule interface)."""

    @property
    def num_rows(self) -> int: ...
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...
    def __arrow_c_schema__(self) -> object: ...
    @property
    def column_names(self) -> list[str]: ...
    def rows(self, offset: int = 0, length: int = ...) -> list[dict[str, Any]]:
        """Rows as dicts, as pyarrow's `to_pylist` gives them (times: int ns), without pyarrow."""
    def column(self, name: str) -> list[Any]:
        """One column's values, without pyarrow."""

def worst_first(batches: list[Batch]) -> list[int]:
    """Row numbers of a diagnosis' flows table (its batches in order), worst flow first."""

class PacketChunks:
    """The packets table in chunks: dicts of batches, `packets` and, when analysed, `sacks`,
    `events` and (for the flows `series` names) `series`."""

    def __init__(
        self,
        path: str,
        chunk_rows: int = 1_000_000,
        analysis: bool = False,
        vantage: str | None = None,
        series: tuple[list[int], list[int], list[float]] | None = None,
    ) -> None: ...
    def __iter__(self) -> Iterator[dict[str, Batch]]: ...
    def __next__(self) -> dict[str, Batch]: ...
    def result(self) -> dict[str, Any] | None: ...

class LiveSession:
    def __init__(
        self,
        iface: str,
        filter: str | None = None,
        snaplen: int = 262_144,
        vantage: str | None = None,
        idle_timeout: float | None = 300.0,
        close_grace: float = 1.0,
    ) -> None: ...
    def run_for(self, seconds: float) -> None: ...
    def snapshot(self) -> dict[str, Any]: ...
    def finish(self) -> dict[str, Any]: ...

def scan_flows(path: str) -> dict[str, Any]:
    """`{"flows": Batch, "stats": dict, "error": ErrorDict | None}`."""

def analyze(path: str, vantage: str | None = None, target_bps: float | None = None) -> dict[str, Any]:
    """`{"flows": Batch (with the verdict columns), "findings": Batch, "stats", "error"}`."""

def analyze_scaled(
    paths: list[str],
    jobs: int = 1,
    vantage: str | None = None,
    filter: str | None = None,
    idle_timeout: float | None = None,
    close_grace: float = 1.0,
    target_bps: float | None = None,
) -> dict[str, Any]:
    """As `analyze`, plus `"engine"`; an error dict also names the failing `"input"`."""

def compare(
    path_a: str,
    path_b: str,
    vantage: str | None = None,
    target_bps: float | None = None,
    names: tuple[str, str] | None = None,
    fates: bool = False,
) -> dict[str, Any]:
    """`{"a": analyze's dict for A, "b": for B, and, when both opened: "pairs", "directions",
    "findings", "fates" (Batch, None unless asked), "clock" (dict), "matched", "names"}`;
    when a capture cannot be opened, its dict holds the error and the other is empty."""

def schemas() -> dict[str, Batch]: ...
def format_number(unit: str, x: float) -> str: ...
def write_packets_csv(path: str, out: str, analysis: bool = False) -> dict[str, Any]: ...
def write_annotations(path: str, out: str, vantage: str | None = None) -> dict[str, Any]: ...
def etl_set_component(component: str | None = None) -> None: ...
def etl_is_trace(path: str) -> bool: ...
def etl_convert(path: str, out: str, compat: bool = False, component: str | None = None) -> dict[str, Any]: ...
def etl_components(path: str) -> dict[str, Any]: ...
def etl_tcpip_events(path: str) -> dict[str, Any]: ...

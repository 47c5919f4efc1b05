"""Windows ETL traces (pktmon, `netsh trace capture=yes`): observation point, conversion to
pcapng, and Windows' own TCP sender state from Microsoft-Windows-TCPIP events.

    >>> import tcpdiag, tcpdiag.etl
    >>> tcpdiag.flows("PktMon.etl")                       # ETL is read like any capture
    >>> with tcpdiag.etl.component("all"):                # every PktMon copy (duplicates!)
    ...     tcpdiag.packets("PktMon.etl")
    >>> tcpdiag.etl.tcpip_events("NetTrace.etl")          # one row per TCPIP event
    >>> tcpdiag.analyze("NetTrace.etl").windows_state(0)  # Windows' cwnd beside ours

PktMon logs each packet once per stack component it crosses. By default ("auto") each IP
flow is read at the component that logged its first packet, so copies never look like
retransmissions; see docs/etl.md.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from tcpdiag import _native
from tcpdiag.errors import CaptureDamagedError, from_native

#: Values `component` / `--etl-component` take besides a component id or name.
COMPONENT_CHOICES = ("auto", "all", "first")

#: TCPIP properties that describe the sender state, in report order (manifest names).
SENDER_STATE = ("Cwnd", "SndWnd", "RcvWnd", "SRtt", "RttVar", "RTO", "MinRtt", "BytesSent", "SeqNo", "SndUna",
                "SndNxt", "SndMax", "RexmitCount", "SsThresh")


def set_component(choice: str | int | None) -> None:
    """Sets, for every following read of an ETL trace, which PktMon copies are read:
    "auto" (default), "all", "first", a component id, or text matching one component's
    name or description."""
    _native.etl_set_component(None if choice is None else str(choice))


@contextlib.contextmanager
def component(choice: str | int | None) -> Iterator[None]:
    """`set_component` for the duration of a `with` block."""
    set_component(choice)
    try:
        yield
    finally:
        set_component(None)


def is_trace(path: str) -> bool:
    """True when tcpdiag reads `path` as an ETL trace (decided by content)."""
    return bool(_native.etl_is_trace(path))


def components(path: str) -> list[tuple[int, str, str]]:
    """PktMon components the trace names: (id, name, description)."""
    raw = _native.etl_components(path)
    if raw["error"] is not None:
        raise from_native(path, raw["error"])
    return [tuple(c) for c in raw["components"]]


def convert(path: str, out: str, *, compat: str | None = None, component: str | int | None = None,
            errors: str = "raise") -> dict[str, Any]:
    """Writes the packets of an ETL trace to the pcapng file `out`.

    `compat="etl2pcapng"` reproduces microsoft/etl2pcapng's output (its bugs included);
    the default mode fixes them (docs/etl.md). Returns `frames`, `interfaces`, `stats`.
    A damaged trace raises `CaptureDamagedError` after writing every packet before the
    damage; `errors="warn"` warns instead, `errors="return"` leaves it in `["error"]`.
    An input that cannot be opened always raises (and nothing is written).
    """
    if compat not in (None, "etl2pcapng"):
        raise ValueError(f"unknown compatibility mode {compat!r}: only 'etl2pcapng'")
    # The native side opens the input once and says when it is not an ETL trace.
    raw = _native.etl_convert(path, out, compat is not None, None if component is None else str(component))
    err = raw["error"]
    if err is not None:
        exc = from_native(path, err, partial=raw)
        opened = bool(raw["stats"])
        if not opened or not isinstance(exc, CaptureDamagedError) or errors == "raise":
            raise exc
        if errors == "return":
            return raw
        import warnings

        from tcpdiag.errors import CaptureWarning

        warnings.warn(f"{exc}; {raw['frames']} packets written", CaptureWarning, stacklevel=2)
    return raw


def _events_raw(path: str) -> dict[str, Any]:
    raw = _native.etl_tcpip_events(path)
    if raw["error"] is not None and not raw["columns"]:
        raise from_native(path, raw["error"])
    return raw


def tcpip_events(path: str):
    """Microsoft-Windows-TCPIP events of an ETL trace, one row each (pandas DataFrame).

    Columns: `ts` (UTC), `event_id`, `event` (task name), `pid`, `tid`, `tcb`, the
    connection's `local_addr`, `local_port`, `remote_addr`, `remote_port` (from the Tcb,
    see docs/etl.md; empty when no event names it), then every property of the events
    under its manifest name (`Cwnd`, `SndWnd`, `SRtt`, `RTO`, `BytesSent` …), empty where
    an event lacks it. Decoded with the schemas the trace embeds.
    """
    import pandas as pd

    raw = _events_raw(path)
    cols = dict(raw["columns"])
    if not cols:
        cols = {k: [] for k in ("ts_ns", "event_id", "event", "pid", "tid", "tcb", "local_addr", "local_port",
                                "remote_addr", "remote_port")}
    ts = cols.pop("ts_ns")
    for name, values in cols.items():
        if name not in ("event", "local_addr", "remote_addr") and all(v is None or isinstance(v, int) for v in values):
            big = name == "tcb" or any(v is not None and v >= 1 << 63 for v in values)
            cols[name] = pd.array(values, dtype="UInt64" if big else "Int64")
    df = pd.DataFrame(cols)
    df.insert(0, "ts", pd.to_datetime(pd.Series(ts, dtype="int64"), unit="ns", utc=True))
    return df


def windows_state(analysis: Any, stream: int):
    """Windows' own sender state (TCPIP events) for one flow of `analysis`, as a DataFrame:
    the `tcpip_events` rows whose connection is the flow's 4-tuple, in either direction,
    with `sender` = "a" or "b" (the flow endpoint that is Windows' local side). Empty when
    the trace has no TCPIP events for the flow (or is not an ETL trace)."""
    # Cached on the analysis: several flows of one trace read its events once.
    cache = analysis.__dict__.setdefault("_etl_tcpip", {})
    if "df" not in cache:
        # The first pass said what the capture was: no second opening to find out.
        cache["df"] = tcpip_events(analysis.path) if analysis.stats.get("format") == "etl" else None
    df = cache["df"]
    if stream not in analysis.verdicts:
        raise KeyError(f"no flow {stream} in {analysis.path}")
    row = analysis.verdicts[stream].row
    if df is None or df.empty:
        import pandas as pd

        return pd.DataFrame(columns=["ts", "event_id", "event", "sender"])
    a = (row["a_addr"], row["a_port"])
    b = (row["b_addr"], row["b_port"])
    local = list(zip(df["local_addr"], df["local_port"]))
    remote = list(zip(df["remote_addr"], df["remote_port"]))
    sender = ["a" if (l, r) == (a, b) else "b" if (l, r) == (b, a) else None for l, r in zip(local, remote)]
    out = df.assign(sender=sender)
    out = out[out["sender"].notna()].dropna(axis=1, how="all")
    return out.reset_index(drop=True)

"""The Python API: capture tables as pandas DataFrames.

    >>> import tcpdiag
    >>> tcpdiag.flows("samples/clean_bulk.sender.pcap")          # one row per tcp.stream
    >>> tcpdiag.packets("samples/clean_bulk.sender.pcap")        # one row per TCP segment

`errors="raise"` (default) raises `CaptureDamagedError` for a truncated/corrupt capture,
with the readable part in `.partial`; `errors="warn"` returns that part with a
`CaptureWarning`.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pandas as pd

from tcpdiag import tables

_FLOW_DTYPES = {
    "stream": "int64", "a_port": "uint16", "b_port": "uint16",
    "first_frame": "int64", "last_frame": "int64",
    "packets_ab": "int64", "packets_ba": "int64", "bytes_ab": "int64", "bytes_ba": "int64",
    "payload_ab": "int64", "payload_ba": "int64",
    "syn_frame_a": "Int64", "syn_frame_b": "Int64", "mss_a": "UInt16", "mss_b": "UInt16",
    "wscale_a": "UInt8", "wscale_b": "UInt8",
    "handshake": "bool", "wscale_in_effect": "boolean", "sack_permitted": "boolean",
    "timestamps": "boolean", "ecn": "boolean",
    "fin_a": "bool", "fin_b": "bool", "rst_a": "bool", "rst_b": "bool",
    "duration_s": "float64",
}


def flows_frame(columns: dict[str, list]) -> pd.DataFrame:
    df = pd.DataFrame(columns, columns=list(tables.FLOW_COLUMNS))
    df = df.astype(_FLOW_DTYPES)
    starts = pd.Series(columns["start"], dtype="float64")
    # Corrupt captures can carry times beyond datetime64[ns] (past 2262): those become NaT.
    starts = starts.where(starts.abs() < 9.2e9)
    df["start"] = pd.to_datetime(starts, unit="s", utc=True).astype("datetime64[ns, UTC]")
    return df.set_index("stream", drop=False).rename_axis(None)


def flows(path: str, *, errors: str = "raise") -> pd.DataFrame:
    """One row per TCP flow (Wireshark `tcp.stream`), columns as in `tables.FLOW_COLUMNS`."""
    res = tables.check(tables.scan_flows(path), errors)
    return flows_frame(res.flows)


def packets_frame(chunk: dict) -> pd.DataFrame:
    addrs = pd.Index(chunk["addrs"], dtype="object")
    cols = {
        "frame": chunk["frame"].astype(np.int64),
        "stream": chunk["stream"].astype(np.int64),
        "dir": chunk["dir"],
        "ts": pd.to_datetime(chunk["ts_ns"], unit="ns", utc=True),
        "src": pd.Categorical.from_codes(chunk["src"].astype(np.int64), categories=addrs),
        "sport": chunk["sport"],
        "dst": pd.Categorical.from_codes(chunk["dst"].astype(np.int64), categories=addrs),
        "dport": chunk["dport"],
        "seq_raw": chunk["seq_raw"],
        "ack_raw": chunk["ack_raw"],
        "tcp_len": chunk["tcp_len"],
        "flags": chunk["flags"],
        "win_raw": chunk["win_raw"],
    }
    return pd.DataFrame(cols)


def iter_packets(path: str, *, chunk_rows: int = 1_000_000, errors: str = "raise") -> Iterator[pd.DataFrame]:
    """The packets table in DataFrames of at most `chunk_rows` rows (bounded memory)."""
    chunks = tables.PacketChunks(path, chunk_rows)
    for chunk in chunks:
        yield packets_frame(chunk)
    assert chunks.result is not None
    tables.check(chunks.result, errors)


def join_chunks(parts: list[pd.DataFrame], empty: pd.DataFrame) -> pd.DataFrame:
    """One table from per-chunk frames (`empty` when there are none)."""
    if not parts:
        return empty
    df = pd.concat(parts, ignore_index=True)
    for col in ("src", "dst"):  # categories differ per chunk; concat leaves object
        df[col] = df[col].astype("category")
    return df


def packets(path: str, *, errors: str = "raise") -> pd.DataFrame:
    """One row per TCP segment; columns as in `tables.PACKET_COLUMNS`."""
    return join_chunks(list(iter_packets(path, errors=errors)), packets_frame(_EMPTY_CHUNK))


_EMPTY_CHUNK = {
    "frame": np.empty(0, np.uint64), "stream": np.empty(0, np.uint32), "dir": np.empty(0, np.uint8),
    "ts_ns": np.empty(0, np.int64), "src": np.empty(0, np.uint32), "sport": np.empty(0, np.uint16),
    "dst": np.empty(0, np.uint32), "dport": np.empty(0, np.uint16), "seq_raw": np.empty(0, np.uint32),
    "ack_raw": np.empty(0, np.uint32), "tcp_len": np.empty(0, np.uint32), "flags": np.empty(0, np.uint16),
    "win_raw": np.empty(0, np.uint16), "addrs": [],
}


def analysis_frame(chunk: dict | None) -> pd.DataFrame:
    """Packets with the analysis columns (see docs/tables.md); codes become categories."""
    from tcpdiag.analysis import CWND_CONFIDENCE, EVIDENCE, LIMIT_STATES, RETRANS_KINDS, RWND_BASIS

    if chunk is None:
        chunk = dict(_EMPTY_CHUNK)
        for name, dtype in _ANALYSIS_DTYPES.items():
            chunk[name] = np.empty(0, dtype)
    df = packets_frame(chunk)
    coded = {"limit": LIMIT_STATES, "retrans": RETRANS_KINDS, "spurious_by": EVIDENCE,
             "rwnd_basis": RWND_BASIS, "cwnd_conf": CWND_CONFIDENCE}
    for name in _ANALYSIS_DTYPES:
        col = chunk[name]
        if name in coded:
            df[name] = pd.Categorical.from_codes(col.astype(np.int64), categories=coded[name])
        elif name in ("rtt_ns", "reorder_ns"):
            df[name] = pd.array(np.where(col < 0, 0, col), dtype="Int64")
            df.loc[col < 0, name] = pd.NA
        else:
            df[name] = col
    return df


_ANALYSIS_DTYPES = {
    "data_dir": np.uint8, "rwnd": np.uint64, "rwnd_basis": np.uint8, "in_flight": np.uint64,
    "unacked": np.uint64, "sacked": np.uint64, "cwnd": np.uint64, "cwnd_conf": np.uint8, "limit": np.uint8,
    "retrans": np.uint8, "retrans_of": np.uint64, "dsack": np.bool_, "spurious_of": np.uint64,
    "spurious_by": np.uint8, "reorder_packets": np.uint32, "reorder_bytes": np.uint32, "reorder_ns": np.int64,
    "lost_before": np.uint32, "dup_ack": np.uint32, "zero_window": np.bool_, "zero_window_probe": np.bool_,
    "window_full": np.bool_, "keepalive": np.bool_, "duplicate": np.bool_, "rtt_ns": np.int64,
}

"""Per-flow views of the packets table for series, events and graphs: one pass over the
capture gives the analysis columns and the SACK side table; sequence numbers become
relative to each direction's first sequence number and are unwrapped past 4 GiB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tcpdiag import _native

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

_WRAP = 1 << 32
_HALF = 1 << 31


def _load(a: "Analysis") -> None:
    """Reads the packets table and the SACK blocks in one pass (the cached `packets`
    property is filled too, so it does not read the capture again)."""
    from tcpdiag.api import analysis_frame, join_chunks

    chunks = _native.PacketChunks(a.path, 1_000_000, True, a.vantage)
    parts, sacks = [], []
    for c in chunks:
        parts.append(analysis_frame(c) if "packets" not in a.__dict__ else None)
        rows = np.asarray(c.get("sack_row", np.empty(0, np.uint32)), dtype=np.int64)
        sacks.append(pd.DataFrame({
            "frame": np.asarray(c["frame"], dtype=np.int64)[rows],
            "stream": np.asarray(c["stream"], dtype=np.int64)[rows],
            "left_raw": np.asarray(c.get("sack_left", np.empty(0, np.uint32))),
            "right_raw": np.asarray(c.get("sack_right", np.empty(0, np.uint32))),
        }))
    if "packets" not in a.__dict__:
        a.__dict__["packets"] = join_chunks([p for p in parts if p is not None], analysis_frame(None))
    sack = pd.concat(sacks, ignore_index=True) if sacks else pd.DataFrame(
        {"frame": np.empty(0, np.int64), "stream": np.empty(0, np.int64), "left_raw": np.empty(0, np.uint32), "right_raw": np.empty(0, np.uint32)})
    a.__dict__["_report_sack"] = sack


def sack_table(a: "Analysis") -> pd.DataFrame:
    """SACK blocks of every ACK: frame, left_raw, right_raw (first block first)."""
    if "_report_sack" not in a.__dict__:
        _load(a)
    return a.__dict__["_report_sack"]


def packets(a: "Analysis") -> pd.DataFrame:
    if "_report_sack" not in a.__dict__:
        _load(a)
    return a.packets


def unwrap(raw: np.ndarray, base: int) -> np.ndarray:
    """Raw 32-bit sequence numbers (in capture order) → 64-bit offsets from `base`; a step
    of more than 2 GiB backwards is taken as a wrap, as every TCP analyser does."""
    rel = (raw.astype(np.int64) - base) % _WRAP
    if len(rel) < 2:
        return rel
    step = np.diff(rel)
    fix = np.where(step < -_HALF, _WRAP, np.where(step > _HALF, -_WRAP, 0))
    return rel + np.concatenate(([0], np.cumsum(fix)))


@dataclass
class FlowPackets:
    """One flow's rows split by role, times in seconds since the flow's first packet."""

    stream: int
    data_dir: int
    t0: pd.Timestamp
    rows: pd.DataFrame       # every row of the flow, with `t`
    data: pd.DataFrame       # segments with payload in the data direction, with `seq`, `end`
    acks: pd.DataFrame       # rows from the receiver, with `ack` (relative)
    sack: pd.DataFrame       # SACK blocks of those ACKs: frame, t, left, right, dsack
    base: int                # the data direction's first raw sequence number


def flow_packets(a: "Analysis", stream: int, rows: pd.DataFrame | None = None,
                 sack: pd.DataFrame | None = None) -> FlowPackets:
    """One flow's packets; `rows`/`sack` are that flow's slices when the caller has them."""
    if rows is None:
        df = packets(a)
        rows = df[df["stream"] == stream]
    v = a.verdicts[stream]
    dd = v.data_dir
    rows = rows.sort_values("frame", kind="stable")
    t0 = rows["ts"].iloc[0] if len(rows) else pd.Timestamp(0, tz="UTC")
    rows = rows.assign(t=(rows["ts"] - t0).dt.total_seconds().to_numpy())
    fwd = rows[rows["dir"] == dd]
    syn = fwd[(fwd["flags"].to_numpy() & 2) != 0]
    # Relative numbering starts at the SYN (data at 1, as Wireshark), else at the first seq.
    base = int((syn if len(syn) else fwd)["seq_raw"].iloc[0]) if len(fwd) else 0
    seq = unwrap(fwd["seq_raw"].to_numpy(), base)
    fwd = fwd.assign(seq=seq, end=seq + fwd["tcp_len"].to_numpy().astype(np.int64))
    data = fwd[fwd["tcp_len"].to_numpy() > 0]
    rev = rows[rows["dir"] != dd]
    acked = rev[(rev["flags"].to_numpy() & 16) != 0]
    acks = acked.assign(ack=unwrap(acked["ack_raw"].to_numpy(), base))
    if sack is None:
        sack = sack_table(a)
        sack = sack[sack["stream"] == stream]
    s = sack[sack["frame"].isin(acks["frame"])]
    ack_at = acks.set_index("frame")
    ack64 = ack_at["ack"].reindex(s["frame"]).to_numpy()
    ack_raw = ack_at["ack_raw"].reindex(s["frame"]).to_numpy().astype(np.int64)

    def rel(edge: np.ndarray) -> np.ndarray:  # the edge's offset from the ACK, signed
        return ack64 + ((edge.astype(np.int64) - ack_raw + _HALF) % _WRAP) - _HALF

    left, right = rel(s["left_raw"].to_numpy()), rel(s["right_raw"].to_numpy())
    first = ~s["frame"].duplicated().to_numpy()
    # The engine flags DSACK ACKs (RFC 2883 §4); the duplicate range is the first block.
    dsack = first & ack_at["dsack"].reindex(s["frame"]).to_numpy(dtype=bool)
    sack = pd.DataFrame({"frame": s["frame"].to_numpy(), "t": ack_at["t"].reindex(s["frame"]).to_numpy(),
                         "left": left, "right": right, "dsack": dsack})
    return FlowPackets(stream, dd, t0, rows, data, acks, sack, base)

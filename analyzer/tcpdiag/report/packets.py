"""One flow's packets as the time-sequence graph draws them: sequence numbers relative to
the data direction's first one (Wireshark's relative numbers) and unwrapped past 4 GiB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

_WRAP = 1 << 32
_HALF = 1 << 31


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
    events: pd.DataFrame     # the engine's packet events of the flow: frame, kind, message


def flow_packets(a: "Analysis", stream: int, rows: pd.DataFrame | None = None,
                 sack: pd.DataFrame | None = None) -> FlowPackets:
    """One flow's packets; `rows`/`sack` are that flow's slices when the caller has them."""
    if rows is None:
        df = a.packets
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
        sack = a.sacks
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
    ev = a.events
    ev = ev[(ev["stream"].to_numpy() == stream) & (ev["scope"] == "packet").to_numpy()][["frame", "kind", "message"]]
    return FlowPackets(stream, dd, t0, rows, data, acks, sack, base, ev)

"""`Analysis.series(flow)`: the flow's state over time, one row per packet that describes
the data direction (its data segments and the receiver's ACKs).

Columns (docs/api.md lists them with their dtypes):
    frame          int64     frame number
    time           datetime64[ns, UTC]
    t              float64   seconds since the flow's first packet
    in_flight      int64     bytes in flight after this packet (RFC 6675 pipe)
    rwnd           int64     receive window limiting the data direction, bytes
    cwnd           float64   cwnd estimate or lower bound, bytes (NaN: unknown)
    cwnd_conf      category  none | bound | estimate
    limit          category  limit state (unknown, rwnd, zero_window, recovery, cwnd, sndbuf, app)
    throughput_bps float64   bits sent (retransmissions included) in the trailing window ÷ window
    goodput_bps    float64   bits newly acknowledged in the trailing window ÷ window
    rtt_ms         float64   RTT sample carried by this ACK (NaN: none)
The trailing window is one smoothed RTT, at least 1/200 of the flow's duration (`window_s`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tcpdiag.report.packets import FlowPackets, flow_packets

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

SERIES_DTYPES = {
    "frame": "int64", "time": "datetime64[ns, UTC]", "t": "float64", "in_flight": "int64", "rwnd": "int64",
    "cwnd": "float64", "cwnd_conf": "category", "limit": "category", "throughput_bps": "float64",
    "goodput_bps": "float64", "rtt_ms": "float64",
}


def default_window(a: "Analysis", stream: int, duration: float) -> float:
    srtt = a.verdicts[stream].facts.get("srtt_ms") or 0.0
    return max(srtt / 1e3, duration / 200, 1e-3)


def _trailing_rate(t: np.ndarray, ev_t: np.ndarray, ev_bytes: np.ndarray, window: float) -> np.ndarray:
    """bits/s of the events (ev_t sorted) in (t − window, t] at each t."""
    cum = np.concatenate(([0], np.cumsum(ev_bytes, dtype=np.float64)))
    hi = np.searchsorted(ev_t, t, side="right")
    lo = np.searchsorted(ev_t, t - window, side="right")
    return (cum[hi] - cum[lo]) * 8 / window


def build(a: "Analysis", stream: int, window_s: float | None = None, fp: FlowPackets | None = None) -> pd.DataFrame:
    fp = fp or flow_packets(a, stream)
    rows = fp.rows[fp.rows["data_dir"] == fp.data_dir]
    t = rows["t"].to_numpy()
    duration = float(fp.rows["t"].iloc[-1]) if len(fp.rows) else 0.0
    window = window_s or default_window(a, stream, duration)
    sent = _trailing_rate(t, fp.data["t"].to_numpy(), fp.data["tcp_len"].to_numpy(), window)
    ack = np.maximum.accumulate(fp.acks["ack"].to_numpy()) if len(fp.acks) else np.empty(0, np.int64)
    newly = np.diff(ack, prepend=ack[0] if len(ack) else 0)
    good = _trailing_rate(t, fp.acks["t"].to_numpy(), newly, window)
    conf = rows["cwnd_conf"]
    cwnd = rows["cwnd"].to_numpy().astype(np.float64)
    cwnd[conf.cat.codes.to_numpy() == conf.cat.categories.get_loc("none")] = np.nan
    rtt = rows["rtt_ns"].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan) / 1e6
    return pd.DataFrame({
        "frame": rows["frame"].to_numpy(np.int64),
        "time": rows["ts"].array,
        "t": t,
        "in_flight": rows["in_flight"].to_numpy(np.int64),
        "rwnd": rows["rwnd"].to_numpy(np.int64),
        "cwnd": cwnd,
        "cwnd_conf": conf.array,
        "limit": rows["limit"].array,
        "throughput_bps": sent,
        "goodput_bps": good,
        "rtt_ms": rtt,
    })

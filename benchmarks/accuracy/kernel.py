"""The engine's per-packet state against the kernel's TCP_INFO samples at the sender.

Used by the sweep eval and by tests/test_engine_samples.py (the 12 named samples): one
definition of "within 1 MSS" and of "cwnd-limited".

Alignment. A TCP_INFO sample is the kernel's state at one instant inside the getsockopt
call; sweep runs stamp both ends of the call (`t0_ns`, `t_ns`), older samples only the end.
Capture stamps use the same clock. The engine's candidate states for a sample are its state
after each packet stamped inside [t0, t], plus its state just before t0: the sample agrees
when any candidate does. Without `t0_ns` that is the state after the last packet ≤ t.

cwnd-limited: the kernel had a full congestion window out (flight ≥ cwnd − 1) and the
peer's window left room for one more segment.
"""

from __future__ import annotations

import numpy as np



def kernel_flight(info: dict) -> np.ndarray:
    """Packets in flight as the kernel counts them (tcp_packets_in_flight)."""
    return (np.array(info["unacked"]) - np.array(info["sacked"]) - np.array(info["lost"])
            + np.array(info["retrans"]))


def kernel_flight_bytes(info: dict, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bytes in flight as the kernel counts them, as the narrowest range the counters allow.
    The unacknowledged bytes are exact (SND.NXT − SND.UNA = bytes_sent − bytes_retrans −
    bytes_acked + 1, RFC 4898 counters: bytes_acked counts the SYN's sequence number,
    bytes_sent does not — an idle sender reads −1 without the correction). The SACKed, lost
    and retransmitted segments are packet counts: each holds at most an MSS, so the flight
    is at least the unacked bytes less an MSS per such mark, and at most an MSS per packet
    in flight. With full segments the two meet; a short segment among them (a write's
    tail, resent after a timeout) leaves the range as wide as it is short. Packets × MSS
    alone would count every short segment in flight as a full one: over a flight of many
    such it errs by several MSS."""
    packets = kernel_flight(info)
    if not all(k in info for k in ("bytes_sent", "bytes_retrans", "bytes_acked")):
        return packets * m, packets * m
    unacked = (np.array(info["bytes_sent"], dtype=np.float64) - np.array(info["bytes_retrans"])
               - np.array(info["bytes_acked"]) + 1).clip(min=0)
    marks = np.array(info["sacked"]) + np.array(info["lost"]) - np.array(info["retrans"])
    low = (unacked - marks * m).clip(min=0)
    high = np.minimum(unacked, packets.clip(min=0) * m)
    return low, np.maximum(low, high)


def _mss(info: dict, mss: int | None) -> np.ndarray:
    n = len(info["t_ns"])
    return np.array(info["snd_mss"], dtype=np.float64) if "snd_mss" in info \
        else np.full(n, float(mss))


def flight_agreement(ts_ns: np.ndarray, in_flight: np.ndarray, info: dict,
                     mss: int | None = None, start_ns: int | None = None) -> dict:
    """Share of busy samples (kernel unacked > 0, at or after `start_ns`) where the engine's
    bytes in flight are within 1 MSS of the kernel's (of the range its counters allow)."""
    t1 = np.array(info["t_ns"], dtype=np.int64)
    t0 = np.array(info.get("t0_ns") or info["t_ns"], dtype=np.int64)
    m = _mss(info, mss)
    low, high = kernel_flight_bytes(info, m)
    lo = np.searchsorted(ts_ns, t0, side="left") - 1
    hi = np.searchsorted(ts_ns, t1, side="right") - 1
    busy = (np.array(info["unacked"]) > 0) & (hi >= 0)
    if start_ns is not None:
        busy &= (t0 >= start_ns) & (lo >= 0)
    errors = []
    for i in np.flatnonzero(busy):
        cands = in_flight[max(lo[i], 0):hi[i] + 1]
        off = np.maximum(low[i] - cands, cands - high[i]).clip(min=0)
        errors.append(np.min(off) / m[i])
    err = np.array(errors)
    return {"samples": int(busy.sum()),
            "within_1mss": float((err <= 1).mean()) if len(err) else None,
            "worst_mss": float(err.max()) if len(err) else None}


def cwnd_limited(info: dict, mss: int | None = None) -> np.ndarray:
    """Samples where the congestion window limited sending (see the module doc)."""
    un = np.array(info["unacked"])
    return (un > 0) & (kernel_flight(info) >= np.array(info["snd_cwnd"]) - 1) \
        & ((un + 1) * _mss(info, mss) <= np.array(info["snd_wnd"]))


def cwnd_errors(ts_ns: np.ndarray, cwnd: np.ndarray, info: dict, mss: int | None = None,
                start_ns: int | None = None) -> np.ndarray:
    """|estimate − snd_cwnd × MSS| / (snd_cwnd × MSS) at every cwnd-limited sample (the
    engine's state after the last packet ≤ t; no estimate counts as 100 % off)."""
    t1 = np.array(info["t_ns"], dtype=np.int64)
    m = _mss(info, mss)
    limited = cwnd_limited(info, mss)
    at = np.searchsorted(ts_ns, t1, side="right") - 1
    limited &= at >= 0
    if start_ns is not None:
        limited &= t1 >= start_ns
    true = np.array(info["snd_cwnd"], dtype=np.float64)[limited] * m[limited]
    return np.abs(cwnd[at[limited]] - true) / true

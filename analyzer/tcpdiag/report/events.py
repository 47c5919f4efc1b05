"""`Analysis.events`: one row per finding event — every packet-scope finding of the
catalogue that a packet carries, and each flow finding at its first evidence frame.

Columns: frame (int64), stream (int64), time (datetime64[ns, UTC]), kind (category: a
catalogue id), scope ("packet" | "flow"), related_frame (Int64: the original of a
retransmission, the ACK that proved it spurious, the ACK a duplicate repeats), detail
(the catalogue message filled in).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

from tcpdiag.catalogue import FINDINGS
from tcpdiag.report.packets import packets, sack_table

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

COLUMNS = ["frame", "stream", "time", "kind", "scope", "related_frame", "detail"]


def _fill(kind: str, n: int, values: Callable[[int], dict[str, Any]]) -> list[str]:
    from tcpdiag.analysis import format_message

    template = FINDINGS[kind]["message"]
    return [format_message(template, values(i)) for i in range(n)]


def _part(kind: str, rows: pd.DataFrame, related: np.ndarray | None, detail: list[str]) -> pd.DataFrame:
    return pd.DataFrame({
        "frame": rows["frame"].to_numpy(np.int64), "stream": rows["stream"].to_numpy(np.int64),
        "time": rows["ts"].to_numpy(), "kind": kind, "scope": "packet",
        "related_frame": related if related is not None else np.zeros(len(rows), np.int64), "detail": detail,
    })


def _bases(df: pd.DataFrame, a: "Analysis") -> dict[int, int]:
    """Each flow's first sequence number in its data direction (the SYN's when captured)."""
    data_dir = df["stream"].map({s: v.data_dir for s, v in a.verdicts.items()}).to_numpy()
    fwd = df[df["dir"].to_numpy() == data_dir]
    syn = fwd[(fwd["flags"].to_numpy() & 2) != 0].drop_duplicates("stream")
    first = fwd.drop_duplicates("stream")
    out = dict(zip(first["stream"].astype(int), first["seq_raw"].astype(int)))
    out.update(zip(syn["stream"].astype(int), syn["seq_raw"].astype(int)))
    return out


def build(a: "Analysis") -> pd.DataFrame:
    df = packets(a)
    parts = []
    by_frame = df.set_index("frame")

    r = df[df["retrans"] != ""]
    orig, kinds = r["retrans_of"].to_numpy(np.int64), r["retrans"].astype(str).to_numpy()
    parts.append(_part("retransmission", r, orig,
                       _fill("retransmission", len(r), lambda i: {"orig_frame": int(orig[i]), "kind": kinds[i]})))

    s = df[df["spurious_of"] > 0]
    rx = s["spurious_of"].to_numpy(np.int64)
    rx_rows = by_frame.loc[rx]
    ev_frames, ev_by = s["frame"].to_numpy(np.int64), s["spurious_by"].astype(str).to_numpy()
    rx_orig = rx_rows["retrans_of"].to_numpy(np.int64)
    spur = pd.DataFrame({"frame": rx, "stream": s["stream"].to_numpy(), "ts": rx_rows["ts"].to_numpy()})
    parts.append(_part("spurious_retransmission", spur, ev_frames, _fill(
        "spurious_retransmission", len(s),
        lambda i: {"orig_frame": int(rx_orig[i]), "evidence": ev_by[i].upper(), "evidence_frame": int(ev_frames[i])})))

    d = df[df["dsack"]]
    first = sack_table(a).drop_duplicates("frame").set_index("frame")
    edges = first.reindex(d["frame"])
    base = _bases(df, a)
    b = np.array([base.get(int(x), 0) for x in d["stream"].to_numpy()], dtype=np.int64)
    # Relative to the data direction's ISN, as Wireshark shows tcp.options.sack_le.
    left = (edges["left_raw"].to_numpy(np.int64) - b) % (1 << 32)
    right = (edges["right_raw"].to_numpy(np.int64) - b) % (1 << 32)
    parts.append(_part("dsack", d, None, _fill("dsack", len(d), lambda i: {"left": left[i], "right": right[i]})))

    ro = df[df["reorder_ns"].notna() | (df["reorder_packets"] > 0)]
    rack = {st: (v.facts.get("min_rtt_ms") or 0) / 4 for st, v in a.verdicts.items()}
    rp, rb = ro["reorder_packets"].to_numpy(), ro["reorder_bytes"].to_numpy()
    rns = ro["reorder_ns"].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
    rst = ro["stream"].to_numpy()
    parts.append(_part("reordering", ro, None, _fill("reordering", len(ro), lambda i: {
        "extent_packets": int(rp[i]), "extent_bytes": int(rb[i]), "extent_ms": float(rns[i] / 1e6),
        "rack_ms": float(rack.get(int(rst[i]), 0))})))

    lo = df[df["lost_before"] > 0]
    gap = lo["lost_before"].to_numpy()
    parts.append(_part("lost_segment", lo, None, _fill("lost_segment", len(lo), lambda i: {"gap": int(gap[i])})))

    dup = df[df["dup_ack"] > 0]
    # The ACK a duplicate repeats: the latest non-duplicate ACK of the same direction.
    key = df["stream"].to_numpy(np.int64) * 2 + df["dir"].to_numpy(np.int64)
    last = pd.Series(np.where(df["dup_ack"].to_numpy() == 0, df["frame"].to_numpy(), np.nan)).groupby(key).ffill()
    of = last[dup.index].fillna(0).to_numpy(np.int64)
    cnt = dup["dup_ack"].to_numpy()
    parts.append(_part("duplicate_ack", dup, of, _fill("duplicate_ack", len(dup),
                                                       lambda i: {"count": int(cnt[i]), "orig_frame": int(of[i])})))

    for kind in ("zero_window", "zero_window_probe"):
        z = df[df[kind]]
        parts.append(_part(kind, z, None, _fill(kind, len(z), lambda i: {})))

    w = df[df["window_full"]]
    fl, rw = w["in_flight"].to_numpy(), w["rwnd"].to_numpy()
    parts.append(_part("window_full", w, None, _fill("window_full", len(w),
                                                     lambda i: {"in_flight": int(fl[i]), "rwnd": int(rw[i])})))

    flows = []
    ts = by_frame["ts"]
    for stream, v in a.verdicts.items():
        for f in v.findings:
            fr = f.frames[0] if f.frames else 0
            flows.append({"frame": fr, "stream": stream, "time": ts.get(fr, pd.NaT), "kind": f.id, "scope": "flow",
                          "related_frame": 0, "detail": f.message})
    parts.append(pd.DataFrame(flows, columns=COLUMNS))

    out = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else \
        pd.DataFrame({c: [] for c in COLUMNS})
    out = out.sort_values(["frame", "kind"], kind="stable", ignore_index=True)
    out["time"] = pd.to_datetime(out["time"], utc=True)
    out["related_frame"] = out["related_frame"].astype("Int64").mask(out["related_frame"] == 0)
    out["kind"] = out["kind"].astype(pd.CategoricalDtype(list(FINDINGS)))
    out["scope"] = out["scope"].astype(pd.CategoricalDtype(["packet", "flow"]))
    return out[COLUMNS].astype({"frame": "int64", "stream": "int64", "detail": "string"})

"""What the emulator's own log proves: per-direction fates, the exact dropped and held-back
data segments, and which retransmissions were necessary (their bytes had been dropped) or
spurious (every byte had already been forwarded)."""

import bisect
import csv
import gzip

from samples.generate.emulator import (DROP_ACK, DROP_LIST, DROP_LOSS, DROP_QUEUE, FORWARDED,
                                       REORDERED, WRITE_FAILED)

DROPS = (DROP_QUEUE, DROP_LOSS, DROP_LIST, DROP_ACK, WRITE_FAILED)
FATE_NAMES = {FORWARDED: "forwarded", REORDERED: "reordered", DROP_QUEUE: "queue_drop",
              DROP_LOSS: "random_loss", DROP_LIST: "drop_list", DROP_ACK: "ack_loss",
              WRITE_FAILED: "write_failed"}


def load(path: str) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [{k: (v if k in ("dir", "fate") else int(v)) for k, v in row.items()}
                for row in csv.DictReader(f)]


class Intervals:
    """Merged half-open byte ranges, enough to ask 'was all of [a, b) forwarded before?'."""

    def __init__(self):
        self.starts, self.ends = [], []

    def add(self, a: int, b: int) -> None:
        i = bisect.bisect_left(self.ends, a)
        j = bisect.bisect_right(self.starts, b)
        if i < j:
            a, b = min(a, self.starts[i]), max(b, self.ends[j - 1])
        self.starts[i:j], self.ends[i:j] = [a], [b]

    def covers(self, a: int, b: int) -> bool:
        i = bisect.bisect_right(self.starts, a) - 1
        return i >= 0 and self.ends[i] >= b


def percentiles(values: list[int], scale: float = 1e-3) -> dict:
    """Lateness summary in microseconds."""
    if not values:
        return {"n": 0}
    v = sorted(values)

    def at(q):
        return round(v[min(len(v) - 1, int(q * len(v)))] * scale, 1)

    return {"n": len(v), "p50_us": at(0.5), "p99_us": at(0.99), "p999_us": at(0.999),
            "max_us": round(v[-1] * scale, 1), "over_500us": sum(x > 500_000 for x in v),
            "over_1ms": sum(x > 1_000_000 for x in v)}


def summarise(rows: list[dict], data_dir: str, isn: int, with_times: bool = False) -> dict:
    """Per-direction counts, data-direction event lists, retransmission truth (with each
    retransmission's time and kind if `with_times`), lateness."""
    out = {"directions": {}}
    for d in sorted({r["dir"] for r in rows}):
        mine = [r for r in rows if r["dir"] == d]
        counts = {name: sum(r["fate"] == f for r in mine) for f, name in FATE_NAMES.items()}
        counts["packets"] = len(mine)
        counts["tcp_packets"] = sum(r["seq"] >= 0 for r in mine)
        counts["tcp_payload_packets"] = sum(r["len"] > 0 and r["seq"] >= 0 for r in mine)
        out["directions"][d] = counts
    data = [r for r in rows if r["dir"] == data_dir and r["len"] > 0 and r["seq"] >= 0]
    events = {"t_in_ns": [], "t_out_ns": [], "seq": [], "rel_seq": [], "len": [], "fate": []}
    forwarded, highest = Intervals(), 0
    retx = {"total": 0, "necessary": 0, "spurious": 0}
    spurious_seqs, retx_times, retx_kinds = [], [], []
    for r in data:
        rel = (r["seq"] - isn - 1) % 2**32
        end = rel + r["len"]
        if r["fate"] != FORWARDED:
            for k, v in (("t_in_ns", r["t_in_ns"]), ("t_out_ns", r["t_out_ns"]),
                         ("seq", r["seq"]), ("rel_seq", rel),
                         ("len", r["len"]), ("fate", FATE_NAMES[r["fate"]])):
                events[k].append(v)
        if rel < highest:
            retx["total"] += 1
            kind = "spurious" if forwarded.covers(rel, end) else "necessary"
            retx[kind] += 1
            retx_times.append(r["t_in_ns"])
            retx_kinds.append(kind)
            if kind == "spurious":
                spurious_seqs.append(rel)
        highest = max(highest, end)
        if r["fate"] not in DROPS:
            forwarded.add(rel, end)
    out["data_events"] = events
    out["retransmissions"] = {**retx, "spurious_rel_seq": spurious_seqs}
    if with_times:
        out["retransmissions"].update(t_in_ns=retx_times, kind=retx_kinds)
    out["delivery_lateness"] = percentiles([r["late_ns"] for r in rows if r["fate"] not in DROPS])
    return out

"""Display downsampling that keeps what the eye sees: per pixel-wide time bucket the first,
last, lowest and highest point of a line (the M4 rule), so spikes and dips survive. Event
markers are never downsampled: callers plot those in full.
"""

from __future__ import annotations

import numpy as np

#: Buckets across a graph's width: about one per horizontal pixel of a report graph.
BUCKETS = 1500


def buckets(x: np.ndarray, n: int, lo: float | None = None, hi: float | None = None) -> np.ndarray:
    lo = float(x.min()) if lo is None else lo
    hi = float(x.max()) if hi is None else hi
    span = hi - lo or 1.0
    return np.minimum(((x - lo) / span * n).astype(np.int64), n - 1)


def m4(x: np.ndarray, y: np.ndarray, n: int = BUCKETS) -> np.ndarray:
    """Indices (sorted) of the points to draw for a line of (x sorted, y); NaNs dropped."""
    ok = np.flatnonzero(~np.isnan(y))
    if len(ok) <= 4 * n:
        return ok
    xs, ys = x[ok], y[ok]
    b = buckets(xs, n)
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    ends = np.r_[starts[1:], len(b)] - 1
    order = np.lexsort((ys, b))  # by bucket, then value: a bucket's min first, max last
    keep = np.unique(np.concatenate([starts, ends, order[starts], order[ends]]))
    return ok[keep]


def ranges(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, n: int = BUCKETS) -> tuple[np.ndarray, ...]:
    """Vertical bars (x, lo..hi) merged per bucket into one bar from the lowest `lo` to the
    highest `hi` (a burst of segments becomes one bar); returned as (x, lo, hi)."""
    if len(x) <= 2 * n:
        return x, lo, hi
    b = buckets(x, n)
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    return x[starts], np.minimum.reduceat(lo, starts), np.maximum.reduceat(hi, starts)


def segments(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[list, list]:
    """Bars as one polyline broken by None: x, x, None / lo, hi, None (one trace, fast)."""
    xs = np.empty(len(x) * 3, dtype=object)
    ys = np.empty(len(x) * 3, dtype=object)
    xs[0::3], xs[1::3], xs[2::3] = x, x, None
    ys[0::3], ys[1::3], ys[2::3] = lo, hi, None
    return xs.tolist(), ys.tolist()

"""The reports read the flows and findings tables from the engine's batches without pyarrow
(`Batch.rows`, `Batch.column`, `worst_first`): the same values pyarrow reads, the same
worst-first order, and a CLI that never imports pyarrow or numpy for its report."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")

from tcpdiag import _native, tables  # noqa: E402
from tcpdiag.analysis import Analysis  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").glob("*.pcap.gz"))


def same(a, b) -> bool:
    """Equal, with NaN equal to NaN (pyarrow and the batch both give float('nan'))."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def lexsorted(t: pa.Table) -> list[int]:
    """The documented order, worst first: severity, share of time, data, then stream."""
    sev = ["chat", "note", "warn", "error"]
    keys = [(-sev.index(r["severity"]), -r["verdict_share"], -r["data_bytes"], r["stream"]) for r in t.to_pylist()]
    return sorted(range(len(keys)), key=keys.__getitem__)


@pytest.mark.parametrize("capture", SAMPLES[:8], ids=lambda p: p.name)
def test_rows_are_what_pyarrow_reads(capture):
    a = Analysis(str(capture), errors="warn")
    assert a.flow_batches and a.finding_batches
    for batches, t in ((a.flow_batches, a.flow_table), (a.finding_batches, a.finding_table)):
        native = [r for b in batches for r in b.rows()]
        assert same(native, tables.rows(t))
        for name in ("stream", "severity") if t is a.flow_table else ("stream", "values"):
            assert same(tables.column(batches, name), [r[name] for r in tables.rows(t)])


def test_rows_take_a_slice_and_clamp_it():
    a = Analysis(str(SAMPLES[0]), errors="warn")
    b = a.finding_batches[0]
    whole = b.rows()
    assert same(b.rows(1, 2), whole[1:3])
    assert b.rows(len(whole) + 5, 3) == [] and same(b.rows(1, 10**9), whole[1:])
    with pytest.raises(KeyError):
        b.column("no_such_column")


def test_worst_first_is_the_documented_order():
    flows = [Analysis(str(p), errors="warn") for p in SAMPLES[:6]]
    batches = [b for a in flows for b in a.flow_batches]
    t = tables.table(batches, "verdict")
    assert _native.worst_first(batches) == lexsorted(t)
    assert _native.worst_first([]) == []


def test_the_report_imports_neither_pyarrow_nor_numpy():
    code = ("import sys; from tcpdiag.cli.main import main\n"
            "try: main()\n"
            "except SystemExit: pass\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pyarrow', 'numpy', 'pandas'))\n"
            "print('HEAVY', heavy)")
    for args in (["analyze", str(SAMPLES[0])], ["analyze", "--json", "--all", str(SAMPLES[0])],
                 ["analyze", "--flow", "0", str(SAMPLES[0])]):
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin"}, cwd=ROOT)
        assert r.stdout.strip().endswith("HEAVY []"), (args, r.stdout[-500:], r.stderr[-2000:])

"""tcpdiag's primary verdict on every committed sweep run equals the kernel's label, at every
vantage (sender, receiver, middle) and on the cut captures (handshake missing, labels over
the captured interval).

The runs are samples/sweep/<seed>/, a representative subset of the tuning seed range
(samples/sweep/SEEDS.md); the full held-out evaluation is `python3 -m benchmarks.accuracy`
(docs/accuracy.md). The engine's answer is read through benchmarks/accuracy/engine.py, the one
place that maps engine ids to kernel labels; an abstention counts as wrong. The cases known
to be wrong today are listed, each with why, in samples/sweep/known_wrong.json: they must stay
wrong until fixed (strict), and no other case may go wrong.
"""

import glob
import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from benchmarks.accuracy import engine  # noqa: E402

SUBSET = os.path.join(REPO, "samples", "sweep")
VANTAGES = ("sender", "receiver", "middle")


def _known_wrong() -> dict:
    path = os.path.join(SUBSET, "known_wrong.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("_")}


def _cases():
    known = _known_wrong()
    out = []
    for p in sorted(glob.glob(os.path.join(SUBSET, "*", "truth.json"))):
        with open(p) as f:
            t = json.load(f)
        for interval in t["labels"]:
            for v in VANTAGES:
                case = f"{t['seed']}-{interval}-{v}"
                marks = [pytest.mark.xfail(strict=True, reason=known[case])] if case in known else []
                out.append(pytest.param(t, interval, v, id=case, marks=marks))
    return out


@pytest.mark.parametrize("truth,interval,vantage", _cases())
def test_primary_verdict_equals_the_kernel_label(truth, interval, vantage):
    key = vantage if interval == "full" else f"{vantage}_cut"
    capture = os.path.join(SUBSET, str(truth["seed"]), truth["files"][key])
    sender = tuple(truth["captures"][vantage]["as_seen"]["sender"])
    got = engine.analyze(engine.tcpdiag_exe(), capture, sender)
    kernel = truth["labels"][interval]
    assert not got.abstained and got.family == kernel["primary"], (
        f"kernel {kernel['label']} (rwnd {kernel['evidence']['rwnd_limited_share']}, sndbuf "
        f"{kernel['evidence']['sndbuf_limited_share']}, app "
        f"{kernel['evidence']['app_limited_sample_share']}); tcpdiag {got.engine_id}: "
        f"{got.message}")

"""The Wireshark plugin under real tshark equals `tcpdiag packets --analysis`, frame for
frame, on every sample and corpus capture — in one pass and with -2 — and never raises a
Lua error, even on damaged captures.

Frames allowed to differ are the documented exceptions (docs/wireshark.md), each found by
a rule in tests/plugin_compare.py or below. tshark runs are spread over all cores.
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import plugin_compare as pc
from conftest import CORPUS, SAMPLES, corpus_captures, corpus_id

SAMPLE_CAPTURES = sorted(SAMPLES.glob("*.pcap.gz"))
CORPUS_CAPTURES = corpus_captures()
# Formats tshark reads and tcpdiag does not (docs/conformance.md).
# Frames where Wireshark itself shows a different TCP segment (docs/conformance.md).
KNOWN = {
    "the-tcpdump-group_tcpdump/tests/bigtcp-ipv6.pcap": {
        1: "IPv6 payload length 0 without a Jumbo option: tshark 4.0 shows no TCP length"},
}
EXACT_NS_SPAN = 2**53 / 1e9    # seconds a double holds in exact nanoseconds


def _id(p: Path) -> str:
    return f"samples/{p.name}" if p.parent == SAMPLES else corpus_id(p)


def _known(path: Path, engine: dict[int, dict[str, str]]) -> dict[int, str]:
    known = dict(KNOWN.get(_id(path), {}))
    # A flow whose timestamps lie more than 2^53 ns apart (a bogus clock in one frame):
    # the plugin's times are doubles, the engine's 64-bit integers.
    span: dict[str, list[float]] = {}
    for r in engine.values():
        t = float(r["ts"])
        lo, hi = span.get(r["stream"], [t, t])
        span[r["stream"]] = [min(lo, t), max(hi, t)]
    wide = {s for s, (lo, hi) in span.items() if hi - lo > EXACT_NS_SPAN}
    for frame, r in engine.items():
        if r["stream"] in wide:
            known[frame] = "flow timestamps more than 2^53 ns (104 days) apart"
    return known


def _run(job: tuple[Path, str]):
    path, mode = job
    rows, stderr = pc.tshark_plugin_rows(path, two_pass=(mode == "two-pass"), extra=["_ws.lua.error"])
    engine, rc = pc.engine_rows(path)
    result = pc.compare(rows, engine, _known(path, engine))
    lua_errors = [(f, v[-1]) for f, v in rows.items() if v[-1]]
    return result, lua_errors, stderr, rc


_JOBS: dict = {}


@pytest.fixture(scope="session")
def plugin_runs(tshark):
    """Starts every (capture, mode) run at once on a process pool; tests wait for theirs."""
    if not _JOBS:
        pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 2)
        for path in SAMPLE_CAPTURES + CORPUS_CAPTURES:
            for mode in ("one-pass", "two-pass"):
                _JOBS[(path, mode)] = pool.submit(_run, (path, mode))
        pool.shutdown(wait=False)
    return _JOBS


def _check(plugin_runs, path: Path, mode: str) -> None:
    result, lua_errors, stderr, rc = plugin_runs[(path, mode)].result()
    assert rc in (0, 5), f"tcpdiag packets exited {rc}"
    assert "Lua" not in stderr, stderr
    assert not lua_errors, lua_errors[:5]
    assert not result.mismatches, (f"{len(result.mismatches)} of {result.frames} frames differ "
                                   f"(engine, plugin); first: {result.mismatches[:5]}")


@pytest.mark.parametrize("mode", ["one-pass", "two-pass"])
@pytest.mark.parametrize("path", SAMPLE_CAPTURES, ids=_id)
def test_plugin_equals_engine_on_samples(path, mode, plugin_runs):
    _check(plugin_runs, path, mode)


@pytest.mark.parametrize("mode", ["one-pass", "two-pass"])
@pytest.mark.parametrize("path", CORPUS_CAPTURES, ids=corpus_id)
def test_plugin_equals_engine_on_corpus(path, mode, plugin_runs, corpus):
    _check(plugin_runs, path, mode)


@pytest.mark.parametrize("name", ["reordering.sender", "small_rcvbuf.receiver", "wscale_off.sender",
                                  "slow_reader.receiver", "app_limited.receiver", "random_loss.sender"])
def test_verdict_on_every_packet_after_the_first_pass(name, tshark):
    """With a first pass (tshark -2 -R tcp), each TCP frame carries its flow's verdict,
    the one `tcpdiag.analyze` gives."""
    import tcpdiag

    path = SAMPLES / f"{name}.pcap.gz"
    rows, stderr = pc.tshark_plugin_rows(path, two_pass=True, read_filter="tcp",
                                         extra=["tcpdiag.flow.verdict", "tcpdiag.flow.vantage"])
    verdicts = tcpdiag.analyze(str(path)).verdicts
    n = len(pc.COLUMNS) + len(pc.CONTEXT)
    engine, _ = pc.engine_rows(path)
    result = pc.compare(rows, engine)
    assert result.frames > 1000 and not result.mismatches, result.mismatches[:5]
    for frame, v in rows.items():
        stream = int(v[n - 1])
        assert (v[n], v[n + 1]) == (verdicts[stream].primary.id, verdicts[stream].vantage), frame


def test_one_pass_shows_no_verdict(tshark):
    rows, _ = pc.tshark_plugin_rows(SAMPLES / "reordering.sender.pcap.gz", extra=["tcpdiag.flow.verdict"])
    assert rows and not any(v[-1] for v in rows.values())


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", ["reordering.sender", "random_loss.receiver", "small_rcvbuf.receiver",
                                  "clean_bulk_ipv6.sender"])
def test_no_lua_error_on_fuzzed_captures(name, seed, tshark, tmp_path):
    fuzzed = tmp_path / "fuzzed.pcap"
    subprocess.run(["editcap", "-E", "0.02", "--seed", str(seed), str(SAMPLES / f"{name}.pcap.gz"), str(fuzzed)],
                   check=True, capture_output=True)
    for two_pass in (False, True):
        cmd = [tshark, "-n", "-r", str(fuzzed), "-X", f"lua_script:{pc.PLUGIN}", "-Y", "_ws.lua.error",
               "-T", "fields", "-e", "frame.number", "-e", "_ws.lua.error"] + (["-2"] if two_pass else [])
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert res.stdout.strip() == "" and "Lua" not in res.stderr, (res.stdout[:2000], res.stderr[:2000])


def test_fields_and_experts_registered(tshark):
    """Every analysis column and every catalogue entry is a field tshark accepts."""
    from tcpdiag.catalogue import FINDINGS

    names = [f"tcpdiag.{c}" for c in pc.COLUMNS] + [e["field"] for e in FINDINGS.values()]
    res = subprocess.run([tshark, "-r", str(SAMPLES / "reordering.sender.pcap.gz"), "-c", "3",
                          "-X", f"lua_script:{pc.PLUGIN}", "-T", "fields"] + [x for n in names for x in ("-e", n)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and len(res.stdout.splitlines()) == 3, res.stderr

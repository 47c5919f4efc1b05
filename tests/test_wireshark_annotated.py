"""The plugin's annotated mode (`tcpdiag wireshark annotate`, docs/wireshark.md): under
real tshark it shows the engine's values frame for frame, the verdicts already in one
pass, and exactly the tree the Lua analysis builds — so the two modes cannot drift.
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import plugin_compare as pc
from conftest import SAMPLES, corpus_captures, corpus_id

SAMPLE_CAPTURES = sorted(SAMPLES.glob("*.pcap.gz"))
CORPUS_CAPTURES = corpus_captures()


def _annotated_rows(job: tuple[Path, Path]):
    path, out = job
    ann = pc.annotate(path, out)
    rows, stderr = pc.tshark_plugin_rows(path, annotations=ann, extra=["_ws.lua.error", "tcpdiag.flow.verdict"])
    engine, rc = pc.engine_rows(path)
    return pc.compare(rows, engine), rows, stderr, rc


_JOBS: dict = {}


@pytest.fixture(scope="session")
def annotated_runs(tshark, tmp_path_factory):
    if not _JOBS:
        tmp = tmp_path_factory.mktemp("annotations")
        pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 2)
        for i, path in enumerate(SAMPLE_CAPTURES + CORPUS_CAPTURES):
            _JOBS[path] = pool.submit(_annotated_rows, (path, tmp / f"{i}.lua"))
        pool.shutdown(wait=False)
    return _JOBS


def _check(annotated_runs, path: Path) -> dict[int, list[str]]:
    result, rows, stderr, rc = annotated_runs[path].result()
    assert rc in (0, 5), f"tcpdiag packets exited {rc}"
    assert "Lua" not in stderr and "tcpdiag:" not in stderr, stderr
    assert not any(v[-2] for v in rows.values()), "Lua errors"
    assert not result.mismatches, (f"{len(result.mismatches)} of {result.frames} frames differ "
                                   f"(engine, plugin); first: {result.mismatches[:5]}")
    return rows


@pytest.mark.parametrize("path", SAMPLE_CAPTURES, ids=lambda p: p.name)
def test_annotated_fields_equal_engine_with_verdicts_in_one_pass(path, annotated_runs):
    import tcpdiag

    rows = _check(annotated_runs, path)
    verdicts = tcpdiag.analyze(str(path)).verdicts
    n = len(pc.COLUMNS)
    tcp = {f: v for f, v in rows.items() if v[n + 1]}
    assert len(tcp) > 100
    for frame, v in tcp.items():
        assert v[-1] == verdicts[int(v[n + 1])].primary.id, frame


@pytest.mark.parametrize("path", CORPUS_CAPTURES, ids=corpus_id)
def test_annotated_fields_equal_engine_on_corpus(path, annotated_runs, corpus):
    _check(annotated_runs, path)


def _verbose(tshark: str, path: Path, *extra: str) -> str:
    # -R: a first pass with a tree, so the Lua analysis runs there and the second pass
    # (the one printed) shows the verdicts as annotated mode does.
    cmd = [tshark, "-n", "-r", str(path), "-X", f"lua_script:{pc.PLUGIN}", "-2", "-R", "frame", "-V", *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and "Lua" not in res.stderr, res.stderr[-2000:]
    return res.stdout


@pytest.mark.parametrize("name", ["reordering.sender", "random_loss.sender", "wscale_off.receiver",
                                  "slow_reader.receiver", "small_rcvbuf.sender"])
def test_annotated_tree_is_the_lua_tree(name, tshark, tmp_path):
    """tshark -2 -V: every line of every packet (labels, experts, verdicts) is the same
    whether the plugin analysed in Lua or read the engine's annotations."""
    path = SAMPLES / f"{name}.pcap.gz"
    ann = pc.annotate(path, tmp_path / "a.lua")
    lua = _verbose(tshark, path).splitlines()
    annotated = _verbose(tshark, path, "-X", f"lua_script1:annotations={ann}").splitlines()
    assert sum("tcpdiag" in line for line in lua) > 1000
    diff = [(i, a, b) for i, (a, b) in enumerate(zip(lua, annotated)) if a != b]
    assert len(lua) == len(annotated) and not diff, diff[:5]


def test_preference_names_the_annotations_too(tshark, tmp_path):
    import tcpdiag

    path = SAMPLES / "small_rcvbuf.sender.pcap.gz"
    ann = pc.annotate(path, tmp_path / "a.lua")
    res = subprocess.run([tshark, "-n", "-r", str(path), "-X", f"lua_script:{pc.PLUGIN}",
                          "-o", f"tcpdiag.annotations:{ann}", "-T", "fields", "-e", "tcpdiag.flow.verdict"],
                         capture_output=True, text=True, timeout=300)
    want = {v.primary.id for v in tcpdiag.analyze(str(path)).verdicts.values()}
    assert set(res.stdout.split()) == want, (res.stdout[:500], res.stderr)


def test_annotations_of_another_capture_are_refused(tshark, tmp_path):
    """The first frame's time (and every frame's length) gives another capture's
    annotations away: one line, no values, no Lua error."""
    ann = pc.annotate(SAMPLES / "small_rcvbuf.sender.pcap.gz", tmp_path / "a.lua")
    rows, stderr = pc.tshark_plugin_rows(SAMPLES / "reordering.sender.pcap.gz", annotations=ann,
                                         extra=["tcpdiag.annotations_mismatch", "_ws.lua.error"])
    assert "not this capture's" in stderr and stderr.count("tcpdiag:") == 1, stderr
    assert not any(any(v[:len(pc.COLUMNS)]) or v[-1] for v in rows.values())
    assert sum(bool(v[-2]) for v in rows.values()) == 1, "one expert info for the GUI"


def test_unusable_annotations_leave_a_message_and_the_lua_analysis(tshark, tmp_path):
    bad = tmp_path / "bad.lua"
    bad.write_text("os.execute('touch " + str(tmp_path / "ran") + "')\nreturn 42\n")
    path = SAMPLES / "small_rcvbuf.sender.pcap.gz"
    rows, stderr = pc.tshark_plugin_rows(path, annotations=bad, extra=["_ws.lua.error"])
    assert "not tcpdiag annotations" in stderr and not any(v[-1] for v in rows.values()), stderr
    assert not (tmp_path / "ran").exists(), "the annotations file reached Lua's os library"
    engine, _ = pc.engine_rows(path)
    result = pc.compare(rows, engine)
    assert result.frames > 100 and not result.mismatches, result.mismatches[:5]


def _tcpdiag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*pc.tcpdiag_exe(), *args], capture_output=True, text=True, timeout=300)


def test_annotate_writes_beside_the_capture_by_default(tmp_path):
    capture = tmp_path / "c.pcap.gz"
    capture.write_bytes((SAMPLES / "small_rcvbuf.sender.pcap.gz").read_bytes())
    res = _tcpdiag("wireshark", "annotate", str(capture))
    assert res.returncode == 0, res.stderr
    out = tmp_path / "c.pcap.gz.tcpdiag.lua"
    assert out.is_file() and f"tcpdiag.annotations:{out}" in res.stderr


def test_annotate_bad_input_and_unwritable_output_are_one_line(tmp_path):
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"not a capture at all")
    res = _tcpdiag("wireshark", "annotate", str(junk), "-o", str(tmp_path / "x.lua"))
    assert res.returncode == 4 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    res = _tcpdiag("wireshark", "annotate", str(SAMPLES / "small_rcvbuf.sender.pcap.gz"),
                   "-o", str(tmp_path / "no" / "such" / "dir" / "x.lua"))
    assert res.returncode == 6 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "Traceback" not in res.stderr

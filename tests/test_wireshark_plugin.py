"""The Wireshark plugin under real tshark — the host's 4.0 (Lua 5.2) and the chroots'
4.4 / 4.6 (Lua 5.4), each run as an unprivileged user (tests/tsharks.py) — shows the
engine's annotations: `tcpdiag packets --analysis` frame for frame and the events
table's expert infos on every sample and corpus capture, in one pass and with -2; each
flow's verdict on its frames (its texts as the CLI, JSON and HTML print them:
tests/test_surfaces.py); never a Lua error, even on damaged captures; and, without
annotations for the capture, one clear sentence.
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import plugin_compare as pc
import tsharks
from conftest import FINDINGS, SAMPLES, corpus_captures, corpus_id

FOUND, MISSING = tsharks.discover()
TSHARKS = [pytest.param(t, id=str(t)) for t in FOUND] + [
    pytest.param(None, id=name, marks=pytest.mark.skip(reason=why)) for name, why in MISSING]
SAMPLE_CAPTURES = sorted(SAMPLES.glob("*.pcap.gz"))
CORPUS_CAPTURES = corpus_captures()
MODES = ["one-pass", "two-pass"]
#: The fields asked beside the analysis columns; `_ws.lua.error` last.
EXTRA = ["tcp.stream", "tcpdiag.flow.verdict", "_ws.expert.message", *pc.EVENT_EXPERTS, "_ws.lua.error"]
AT_EXPERTS = len(pc.COLUMNS) + 2


def _id(p: Path) -> str:
    return f"samples/{p.name}" if p.parent == SAMPLES else corpus_id(p)


def _capture_job(path: Path) -> dict:
    """Annotates one capture, then runs every tshark on it in both modes."""
    ann = pc.annotate(path)
    engine, rc = pc.engine_rows(path)
    events = pc.engine_events(path)
    out = {"rc": rc}
    for ts in FOUND:
        for mode in MODES:
            rows, stderr = pc.plugin_rows(ts, path, ann, two_pass=mode == "two-pass", extra=EXTRA)
            out[(ts, mode)] = (pc.compare(rows, engine), pc.event_mismatches(rows, AT_EXPERTS, events), rows, stderr,
                               engine)
    return out


_JOBS: dict = {}


@pytest.fixture(scope="session")
def plugin_runs():
    """Starts every capture's runs at once on a process pool; tests wait for theirs."""
    if not FOUND:
        pytest.skip("no tshark to test the plugin with")
    if not _JOBS:
        tsharks.staging()   # made before the workers start, shared with them
        pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 2)
        for path in SAMPLE_CAPTURES + CORPUS_CAPTURES:
            _JOBS[path] = pool.submit(_capture_job, path)
        pool.shutdown(wait=False)
    return _JOBS


def _check(plugin_runs, ts, path: Path, mode: str) -> tuple[dict, dict]:
    job = plugin_runs[path].result()
    result, events, rows, stderr, engine = job[(ts, mode)]
    assert job["rc"] in (0, 5), f"tcpdiag packets exited {job['rc']}"
    assert "Lua" not in stderr and "tcpdiag:" not in stderr, stderr[-2000:]
    assert not any(v[-1] for v in rows.values()), "Lua errors"
    assert not result.mismatches, (f"{len(result.mismatches)} of {result.frames} frames differ "
                                   f"(engine, plugin); first: {result.mismatches[:5]}")
    assert not events, (f"{len(events)} frames' expert infos differ from the events table "
                        f"(frame, engine's messages, tcpdiag.analysis.* shown); first: {events[:5]}")
    return rows, engine


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", SAMPLE_CAPTURES, ids=_id)
@pytest.mark.parametrize("ts", TSHARKS)
def test_fields_equal_engine_and_every_frame_has_its_verdict_on_samples(ts, path, mode, plugin_runs):
    import tcpdiag

    rows, engine = _check(plugin_runs, ts, path, mode)
    verdicts = tcpdiag.analyze(str(path)).verdicts
    n = len(pc.COLUMNS)
    assert len(engine) > 100
    for frame, e in engine.items():
        assert rows[frame][n + 1] == verdicts[int(e["stream"])].primary.id, frame


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", CORPUS_CAPTURES, ids=corpus_id)
@pytest.mark.parametrize("ts", TSHARKS)
def test_fields_equal_engine_on_corpus(ts, path, mode, plugin_runs, corpus):
    _check(plugin_runs, ts, path, mode)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", ["reordering.sender", "random_loss.receiver", "small_rcvbuf.receiver",
                                  "clean_bulk_ipv6.sender"])
@pytest.mark.parametrize("ts", TSHARKS)
def test_no_lua_error_on_fuzzed_captures(ts, name, seed, tmp_path):
    fuzzed = tmp_path / "fuzzed.pcap"
    subprocess.run(["editcap", "-E", "0.02", "--seed", str(seed), str(SAMPLES / f"{name}.pcap.gz"), str(fuzzed)],
                   check=True, capture_output=True)
    ann = pc.annotate(fuzzed)
    for extra in ([], ["-2"]):
        res = ts.run(["-n", "-r", tsharks.stage(fuzzed), *pc.plugin_args(ann), "-Y", "_ws.lua.error",
                      "-T", "fields", "-e", "frame.number", "-e", "_ws.lua.error", *extra], timeout=600)
        assert res.stdout.strip() == "" and "Lua" not in res.stderr, (res.stdout[:2000], res.stderr[:2000])


@pytest.mark.parametrize("ts", TSHARKS)
def test_without_annotations_it_says_once_how_to_get_them(ts):
    path = SAMPLES / "small_rcvbuf.sender.pcap.gz"
    for two_pass in (False, True):
        rows, stderr = pc.plugin_rows(ts, path, None, two_pass=two_pass, extra=["tcpdiag.annotations_missing"])
        lines = [line for line in stderr.splitlines() if "tcpdiag" in line]
        assert len(lines) == 1 and "tcpdiag wireshark CAPTURE" in lines[0], stderr
        assert not any(any(v[:len(pc.COLUMNS)]) for v in rows.values()), "values without annotations"
        assert [f for f, v in rows.items() if v[-1]] == [1], "one expert info, on the first TCP frame"


@pytest.mark.parametrize("ts", TSHARKS)
def test_without_annotations_the_first_tcp_frame_carries_the_message(ts, tmp_path):
    """A capture that starts with other traffic: the message sits on its first TCP frame."""
    import struct

    from pcapbuild import checksum, handshake_and_data, pcap

    segs = handshake_and_data(3)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    udp = segs[0].frame()[:14] + ip + struct.pack("!HHHH", 5353, 5353, 8, 0)
    capture = tmp_path / "udp_first.pcap"
    capture.write_bytes(pcap([(segs[0].ts - 1, udp)] + [(s.ts, s.frame()) for s in segs]))
    rows, stderr = pc.plugin_rows(ts, capture, None, extra=["tcpdiag.annotations_missing"])
    assert [f for f, v in rows.items() if v[-1]] == [2], rows


@pytest.mark.parametrize("ts", TSHARKS)
def test_annotations_of_another_capture_are_refused_once(ts):
    ann = pc.annotate(SAMPLES / "small_rcvbuf.sender.pcap.gz")
    rows, stderr = pc.plugin_rows(ts, SAMPLES / "reordering.sender.pcap.gz", ann,
                                  extra=["tcpdiag.annotations_mismatch", "tcpdiag.flow.verdict", "_ws.lua.error"])
    assert "not this capture's" in stderr and stderr.count("tcpdiag:") == 1, stderr
    assert not any(any(v[:len(pc.COLUMNS)]) or v[-2] or v[-1] for v in rows.values()), "values shown"
    assert sum(bool(v[-3]) for v in rows.values()) == 1, "one expert info for the GUI"


@pytest.mark.parametrize("ts", TSHARKS)
def test_a_file_that_is_not_annotations_is_refused_and_never_run(ts):
    """A Lua program instead of annotations, or a header that calls Lua's libraries: one
    line, nothing shown, and the code never reaches io or os."""
    attempt = "(io and io.stdout:write('RAN\\n')) or (os and os.execute('echo RAN'))"
    program = tsharks.scratch("program.lua")
    program.write_text(f"{attempt}\nreturn 42\n")
    magic = "-- tcpdiag annotations for the Wireshark plugin (docs/wireshark.md); generated, do not edit\n"
    fmt = re.search(r"^local FORMAT = (\d+)$", pc.PLUGIN.read_text(), re.M).group(1)
    header = f"return {{ format = {fmt}, x = {attempt} }}"
    hostile = tsharks.scratch("hostile.lua")
    hostile.write_text(f"{magic}\n{header}\n-- header at byte {len(magic) + 1:016}\n")
    for f in (program, hostile):
        rows, stderr = pc.plugin_rows(ts, SAMPLES / "small_rcvbuf.sender.pcap.gz", f, extra=["_ws.lua.error"])
        assert "cannot use these annotations" in stderr and stderr.count("tcpdiag:") == 1, stderr
        assert not any(any(v[:len(pc.COLUMNS)]) or v[-1] for v in rows.values())
        res = ts.run(["-n", "-r", tsharks.stage(SAMPLES / "small_rcvbuf.sender.pcap.gz"), *pc.plugin_args(f), "-c", "5"])
        assert "RAN" not in res.stdout, "the annotations file reached Lua's io or os library"


@pytest.mark.parametrize("ts", TSHARKS)
def test_the_preference_names_the_annotations_too(ts):
    import tcpdiag

    path = SAMPLES / "small_rcvbuf.sender.pcap.gz"
    rows, stderr = pc.plugin_rows(ts, path, pc.annotate(path), preference=True, extra=["tcpdiag.flow.verdict"])
    want = {v.primary.id for v in tcpdiag.analyze(str(path)).verdicts.values()}
    assert {v[-1] for v in rows.values()} == want, stderr


@pytest.mark.parametrize("ts", TSHARKS)
def test_every_field_and_expert_is_registered(ts):
    """Every analysis column and every catalogue entry of one capture is a field tshark
    accepts (pair findings come from two captures, `tcpdiag compare`: not the plugin's)."""
    single = [e["field"] for e in FINDINGS.values() if e["scope"] != "pair"]
    names = [f"tcpdiag.{c}" for c in pc.COLUMNS] + single + [
        "tcpdiag.flow", "tcpdiag.flow.verdict", "tcpdiag.flow.finding", "tcpdiag.flow.shares",
        "tcpdiag.flow.transfer", "tcpdiag.flow.ceiling", "tcpdiag.flow.control", "tcpdiag.annotations_missing"]
    res = ts.run(["-r", tsharks.stage(SAMPLES / "reordering.sender.pcap.gz"), "-c", "3", *pc.plugin_args(),
                  "-T", "fields", *[x for n in names for x in ("-e", n)]], timeout=120)
    assert res.returncode == 0 and len(res.stdout.splitlines()) == 3, res.stderr


GLOBALS_CHECK = Path(__file__).with_name("lua_globals.lua")


@pytest.mark.parametrize("ts", TSHARKS)
def test_the_plugin_creates_no_global(ts):
    """tests/lua_globals.lua, loaded before and after the plugin, names every global that
    appears while it loads and dissects."""
    path = SAMPLES / "reordering.sender.pcap.gz"
    check = tsharks.stage(GLOBALS_CHECK)
    res = ts.run(["-n", "-r", tsharks.stage(path), "-X", f"lua_script:{check}",
                  *pc.plugin_args(pc.annotate(path), script=2), "-X", f"lua_script:{check}", "-T", "fields", "-e", "frame.number"])
    lines = [line for line in res.stdout.splitlines() if line.startswith("globals:")]
    assert lines and all(line == "globals: none new" for line in lines), (lines, res.stderr[-1000:])


@pytest.mark.parametrize("luac", ["luac5.2", "luac5.3", "luac5.4"])
def test_the_plugin_compiles_on_every_lua_and_names_no_unknown_global(luac):
    """Lua 5.2 – 5.4 compile it; its bytecode writes no global and reads only Lua's and
    Wireshark's names."""
    import shutil

    if shutil.which(luac) is None:
        pytest.skip(f"{luac} not installed")
    listing = subprocess.run([luac, "-p", "-l", "-l", str(pc.PLUGIN)], capture_output=True, text=True, check=True)
    writes = re.findall(r"SETTABUP.*_ENV \"(\w+)\"", listing.stdout)
    reads = set(re.findall(r"GETTABUP.*_ENV \"(\w+)\"", listing.stdout))
    allowed = {"Proto", "ProtoField", "ProtoExpert", "Field", "Pref", "base", "expert", "frametype", "Struct",
               "Int64", "TextWindow", "register_postdissector", "register_menu", "gui_enabled",
               "MENU_TOOLS_UNSORTED", "io", "math", "string", "table", "type", "tostring", "tonumber", "ipairs",
               "pairs", "load", "pcall"}
    assert not writes, writes
    assert reads <= allowed, reads - allowed

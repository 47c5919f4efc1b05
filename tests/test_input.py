"""Every input is read once, as a stream, whatever it is: a FIFO, a shell's process
substitution, standard input, a file compressed with gzip, zstd, xz or bzip2 (several
members or frames concatenated, layers nested), a NetMon or ETL trace arriving through a
pipe (held in memory for random access, up to a bound). Through the CLI and the Python API.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import shutil
import subprocess
import sys
import threading

import pytest

import etlbuild
import formatbuild as fb
import tcpdiag
from conftest import run_tcpdiag, tcpdiag_exe
from pcapbuild import handshake_and_data, pcap_of

EXIT_NOT_CAPTURE = 4


def pcap_bytes() -> bytes:
    return pcap_of(handshake_and_data(n_data=6))


def zstd(data: bytes) -> bytes:
    exe = shutil.which("zstd")
    if exe is None:
        pytest.fail("the zstd command is needed (tools/test.sh installs it)")
    return subprocess.run([exe, "-q", "-c"], input=data, capture_output=True, check=True).stdout


COMPRESS = {"gz": gzip.compress, "zst": zstd, "xz": lzma.compress, "bz2": bz2.compress}


def flows_json(*args: str, stdin: bytes | None = None) -> dict:
    r = run_tcpdiag("flows", "--format", "json", *args, stdin=stdin)
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


def expected() -> dict:
    doc = flows_json("-", stdin=pcap_bytes())
    assert doc["stats"]["frames"] == 10 and len(doc["flows"]) == 1
    return doc


def fifo_with_writer(tmp_path, data: bytes | None, name: str = "fifo") -> tuple[str, threading.Thread]:
    """A FIFO and a thread that opens it for writing, writes `data` (nothing if None) and
    closes it: the reader must see the bytes, or a clean end."""
    path = tmp_path / name
    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as w:
            if data:
                w.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return str(path), t


@pytest.mark.parametrize("kind", ["pcap", *COMPRESS])
def test_fifo_reads_every_format_once(tmp_path, kind):
    data = pcap_bytes() if kind == "pcap" else COMPRESS[kind](pcap_bytes())
    path, t = fifo_with_writer(tmp_path, data)
    doc = flows_json(path)
    t.join(5)
    assert doc["flows"] == expected()["flows"]


def test_fifo_whose_writer_closes_without_writing_ends_cleanly(tmp_path):
    path, t = fifo_with_writer(tmp_path, None)
    r = subprocess.run([*tcpdiag_exe(), "flows", path], capture_output=True, timeout=30)
    t.join(5)
    lines = r.stderr.decode().strip().splitlines()
    assert r.returncode == EXIT_NOT_CAPTURE
    assert len(lines) == 1 and "empty input" in lines[0] and path in lines[0], lines


def test_fifo_through_the_python_api(tmp_path):
    path, t = fifo_with_writer(tmp_path, gzip.compress(pcap_bytes()))
    df = tcpdiag.flows(path)
    t.join(5)
    assert len(df) == 1 and int(df["packets_ab"].iloc[0]) == expected()["flows"][0]["packets_ab"]
    path, t = fifo_with_writer(tmp_path, None, "empty")
    with pytest.raises(tcpdiag.NotACaptureError, match="empty input"):
        tcpdiag.flows(path)
    t.join(5)


def test_process_substitution(tmp_path):
    p = tmp_path / "c.pcap.xz"
    p.write_bytes(lzma.compress(pcap_bytes()))
    cmd = f"{' '.join(tcpdiag_exe())} flows --format json <(xzcat {p})"
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout)["flows"] == expected()["flows"]


def test_pipe_by_dev_fd_through_the_python_api():
    rfd, wfd = os.pipe()

    def write() -> None:
        with os.fdopen(wfd, "wb") as w:
            w.write(bz2.compress(pcap_bytes()))

    t = threading.Thread(target=write, daemon=True)
    t.start()
    try:
        df = tcpdiag.packets(f"/dev/fd/{rfd}")
    finally:
        os.close(rfd)
        t.join(5)
    assert len(df) == 10


@pytest.mark.parametrize("kind", COMPRESS)
def test_each_compression_from_a_file_and_stdin(tmp_path, kind):
    data = COMPRESS[kind](pcap_bytes())
    p = tmp_path / f"c.pcap.{kind}"
    p.write_bytes(data)
    want = expected()["flows"]
    assert flows_json(str(p))["flows"] == want
    assert flows_json("-", stdin=data)["flows"] == want
    assert len(tcpdiag.flows(str(p))) == 1


@pytest.mark.parametrize("kind", COMPRESS)
def test_concatenated_members_read_as_one_capture(tmp_path, kind):
    # A pcap cut in two, each half compressed on its own and the results concatenated
    # (`cat a.gz b.gz`): the members decompress to one stream.
    whole = pcap_bytes()
    half = len(whole) // 2
    p = tmp_path / f"two.pcap.{kind}"
    p.write_bytes(COMPRESS[kind](whole[:half]) + COMPRESS[kind](whole[half:]))
    assert flows_json(str(p))["flows"] == expected()["flows"]
    assert len(tcpdiag.packets(str(p))) == 10


def test_nested_layers_are_peeled(tmp_path):
    # A pcapng (written by editcap, not by tcpdiag) in gzip in zstd in bzip2.
    ng = tmp_path / "c.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", "-", str(ng)], input=pcap_bytes(), check=True, capture_output=True)
    p = tmp_path / "c.pcapng.gz.zst.bz2"
    p.write_bytes(bz2.compress(zstd(gzip.compress(ng.read_bytes()))))
    doc = flows_json(str(p))
    assert doc["flows"] == expected()["flows"] and doc["stats"]["format"] == "pcapng"
    assert len(tcpdiag.packets(str(p))) == 10


def test_stdin_through_the_python_api():
    code = "import tcpdiag; print(len(tcpdiag.packets('-')))"
    r = subprocess.run([sys.executable, "-c", code], input=zstd(pcap_bytes()), capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().strip() == "10"


def test_truncated_compressed_stream_keeps_frames_before(tmp_path):
    data = lzma.compress(pcap_bytes())
    p = tmp_path / "cut.pcap.xz"
    p.write_bytes(data[: len(data) - 40])
    r = run_tcpdiag("flows", "--format", "json", str(p))
    lines = r.stderr.decode().strip().splitlines()
    assert r.returncode in (4, 5) and len(lines) == 1 and str(p) in lines[0], lines


@pytest.mark.parametrize("via", ["fifo", "stdin", "xz"])
def test_netmon_from_a_stream_is_held_in_memory(tmp_path, via):
    segs = handshake_and_data(n_data=6)
    data = fb.netmon([(s.ts, len(s.frame()), s.frame()) for s in segs], version=(2, 3))
    if via == "fifo":
        path, t = fifo_with_writer(tmp_path, data)
        doc = flows_json(path)
        t.join(5)
    elif via == "stdin":
        doc = flows_json("-", stdin=data)
    else:
        p = tmp_path / "n.cap.xz"
        p.write_bytes(lzma.compress(data))
        doc = flows_json(str(p))
    assert doc["flows"] == expected()["flows"]
    assert doc["stats"]["format"] == "netmon"


def test_stream_past_the_memory_bound_is_one_clear_line(tmp_path):
    segs = handshake_and_data(n_data=6)
    data = fb.netmon([(s.ts, len(s.frame()), s.frame()) for s in segs], version=(2, 3))
    r = subprocess.run([*tcpdiag_exe(), "flows", "-"], input=data, capture_output=True, timeout=60,
                       env={**os.environ, "TCPDIAG_BUFFER_LIMIT_MB": "0"})
    lines = r.stderr.decode().strip().splitlines()
    assert r.returncode == EXIT_NOT_CAPTURE and len(lines) == 1, lines
    assert "random access" in lines[0] and "TCPDIAG_BUFFER_LIMIT_MB" in lines[0]


def test_etl_trace_through_a_pipe(tmp_path):
    trace = etlbuild.tcp_transfer_trace()
    p = tmp_path / "t.etl"
    p.write_bytes(trace)
    want = flows_json(str(p))
    path, t = fifo_with_writer(tmp_path, gzip.compress(trace))
    got = flows_json(path)
    t.join(5)
    assert got["flows"] == want["flows"] and got["stats"]["format"] == "etl"


def test_analyze_reads_a_fifo_once_and_spools_it_for_tables(tmp_path):
    path, t = fifo_with_writer(tmp_path, pcap_bytes())
    out = tmp_path / "tables"
    r = run_tcpdiag("analyze", path, "--all", "--csv", str(out), "-q")
    t.join(5)
    assert r.returncode == 0, r.stderr.decode()
    assert (out / "packets.csv").read_text().count("\n") == 11


def test_second_pass_over_a_pipe_is_a_clear_error(tmp_path):
    path, t = fifo_with_writer(tmp_path, pcap_bytes())
    a = tcpdiag.analyze(path)
    t.join(5)
    assert len(a.flows) == 1
    with pytest.raises(tcpdiag.CaptureError, match="gives its bytes once"):
        a.packets  # noqa: B018

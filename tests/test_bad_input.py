"""Bad input: one clear line naming the file, where, and what is wrong; a distinct exit code;
partial results when the start of the file is readable. Never a traceback or a hang."""

from __future__ import annotations

import gzip
import json
import struct

import pytest

from conftest import run_tcpdiag
from pcapbuild import handshake_and_data, pcap_of

EXIT_IO, EXIT_NOT_CAPTURE, EXIT_DAMAGED = 3, 4, 5


def one_line(stderr: bytes) -> str:
    text = stderr.decode()
    assert "Traceback" not in text and "panicked" not in text, text
    lines = [l for l in text.splitlines() if l.strip()]
    assert len(lines) == 1, text
    return lines[0]


@pytest.fixture
def good(tmp_path):
    p = tmp_path / "good.pcap"
    p.write_bytes(pcap_of(handshake_and_data()))
    return p


def test_text_file_is_not_a_capture(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello, this is not a capture\n")
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_NOT_CAPTURE
    line = one_line(r.stderr)
    assert str(p) in line and "not a pcap" in line and "offset 0" in line


def test_empty_file(tmp_path):
    p = tmp_path / "empty.pcap"
    p.write_bytes(b"")
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_NOT_CAPTURE
    assert "empty" in one_line(r.stderr)


def test_missing_file(tmp_path):
    r = run_tcpdiag("flows", str(tmp_path / "nope.pcap"))
    assert r.returncode == EXIT_IO
    assert "nope.pcap" in one_line(r.stderr)


def test_wrong_magic(good, tmp_path):
    p = tmp_path / "magic.pcap"
    p.write_bytes(b"\xde\xad\xbe\xef" + good.read_bytes()[4:])
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_NOT_CAPTURE
    assert "de ad be ef" in one_line(r.stderr)


def test_truncated_mid_record_keeps_frames_before(good, tmp_path):
    data = good.read_bytes()
    p = tmp_path / "cut.pcap"
    p.write_bytes(data[:-30])  # inside the last record (7 frames in all)
    r = run_tcpdiag("flows", "--format", "json", str(p))
    assert r.returncode == EXIT_DAMAGED
    line = one_line(r.stderr)
    assert str(p) in line and "after frame 6" in line and "truncated" in line
    doc = json.loads(r.stdout)
    assert doc["stats"]["frames"] == 6
    assert doc["flows"][0]["packets_ab"] == 5


def test_absurd_record_length_is_corrupt_not_allocated(good, tmp_path):
    data = bytearray(good.read_bytes())
    # First record header starts at 24; incl_len at +8.
    struct.pack_into("<I", data, 24 + 8, 0xFFFFFF00)
    p = tmp_path / "absurd.pcap"
    p.write_bytes(bytes(data))
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_DAMAGED
    line = one_line(r.stderr)
    assert "offset 24" in line and "corrupt" in line


def test_pcapng_corrupt_block_length(tmp_path):
    shb = struct.pack("<IIIHHq", 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1) + struct.pack("<I", 28)
    idb = struct.pack("<IIHHI", 1, 20, 1, 0, 65535) + struct.pack("<I", 20)
    bad = struct.pack("<II", 6, 0x7FFFFFF1) + b"\0" * 16
    p = tmp_path / "bad.pcapng"
    p.write_bytes(shb + idb + bad)
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_DAMAGED
    line = one_line(r.stderr)
    assert "offset 48" in line and "corrupt" in line


def test_unknown_link_type_only(tmp_path):
    p = tmp_path / "user0.pcap"
    p.write_bytes(pcap_of(handshake_and_data(), linktype=147))
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_NOT_CAPTURE
    line = one_line(r.stderr)
    assert "link type 147" in line and "frame 1" in line


def test_truncated_gzip(good, tmp_path):
    z = gzip.compress(good.read_bytes())
    p = tmp_path / "cut.pcap.gz"
    p.write_bytes(z[: len(z) - 12])
    r = run_tcpdiag("flows", str(p))
    assert r.returncode in (EXIT_DAMAGED,)
    assert str(p) in one_line(r.stderr)


def test_stdin_is_read_with_dash(good):
    r = run_tcpdiag("flows", "--format", "json", "-", stdin=good.read_bytes())
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["flows"][0]["packets_ab"] == 5


@pytest.mark.parametrize("cut", range(0, 120, 7))
def test_every_early_cut_is_clean(good, tmp_path, cut):
    p = tmp_path / "c.pcap"
    p.write_bytes(good.read_bytes()[:cut])
    r = run_tcpdiag("flows", str(p))
    assert r.returncode in (0, EXIT_NOT_CAPTURE, EXIT_DAMAGED)
    if r.returncode:
        one_line(r.stderr)

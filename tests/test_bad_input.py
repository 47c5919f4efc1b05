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


# ---- every message is words: no Rust Debug text, no Python repr ----------------------

#: What a Debug representation or a repr looks like inside a message.
DEBUG_SYNTAX = ("{", "}", "Some(", "None", "needed:", "available:", "Truncated", "Corrupt(", "Malformed(",
                "Error {", "kind:", "Layer", "b'", "\\x")


def damaged_inputs() -> dict[str, bytes]:
    """The damaged-input set: each format and compression cut, corrupted or foreign, and
    captures whose frames do not decode (the warning lines)."""
    import bz2
    import lzma

    import etlbuild
    import formatbuild as fb

    good = pcap_of(handshake_and_data())
    segs = handshake_and_data()
    frames = [(s.ts, len(s.frame()), s.frame()) for s in segs]
    cut_headers = [(t, wire, data[:30]) for t, wire, data in frames]  # IP header cut
    bad_tcp = bytearray(good)
    bad_tcp[24 + 16 + 14 + 20 + 12] = 0x10  # data offset 1 in the first frame
    absurd = bytearray(good)
    struct.pack_into("<I", absurd, 24 + 8, 0xFFFFFF00)
    etl = etlbuild.tcp_transfer_trace()
    netmon = fb.netmon(frames, version=(2, 3))
    return {
        "empty": b"",
        "text": b"hello, this is not a capture\n",
        "pcap-cut": good[:-30],
        "pcap-absurd-length": bytes(absurd),
        "pcap-cut-headers": pcap_of([]) + b"".join(
            struct.pack("<IIII", int(t), 0, len(d), w) + d for t, w, d in cut_headers),
        "pcap-bad-data-offset": bytes(bad_tcp),
        "pcap-unknown-linktype": pcap_of(segs, linktype=147),
        "gz-cut": gzip.compress(good)[:-12],
        "gz-damaged": gzip.compress(good)[:10] + b"\xff" * 20 + gzip.compress(good)[30:],
        "xz-cut": lzma.compress(good)[:-20],
        "bz2-damaged": bz2.compress(good)[:12] + b"\x00" * 30 + bz2.compress(good)[42:],
        "gz-of-text": gzip.compress(b"hello world, not a capture"),
        "snoop-cut": fb.snoop(frames)[:-25],
        "snoop-version": fb.snoop(frames, version=9),
        "snoop-datalink": fb.snoop(frames, datalink=77),
        "peek-cut": fb.peek_classic(frames)[:-25],
        "netmon-cut": netmon[:-45],
        "netmon-table-past-end": netmon[:24] + (10 ** 9).to_bytes(4, "little") + netmon[28:],
        "netmon-version": netmon[:5] + b"\x03" + netmon[6:],
        "netmon-network": fb.netmon(frames, version=(2, 3), frame_networks=[1, 0x1234] + [1] * (len(frames) - 2)),
        "etl-cut": etl[:-100],
        "etl-garbage": etl[:200] + b"\xff" * 300,
    }


@pytest.mark.parametrize("name", list(damaged_inputs()))
def test_messages_are_words_not_debug_text(name, tmp_path):
    p = tmp_path / (f"{name}.etl" if name.startswith("etl") else f"{name}.cap")
    p.write_bytes(damaged_inputs()[name])
    for cmd in (["flows"], ["packets", "--analysis", "-o", str(tmp_path / "p.csv")], ["analyze", "--all"]):
        r = run_tcpdiag(*cmd, str(p))
        text = r.stderr.decode()
        assert "Traceback" not in text and "panicked" not in text, text
        for line in text.splitlines():
            assert str(p) in line, line
            bad = [s for s in DEBUG_SYNTAX if s in line.replace(str(p), "")]
            assert not bad, f"{cmd[0]}: {bad} in: {line}"
    import warnings

    import tcpdiag

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tcpdiag.flows(str(p), errors="warn")
        except tcpdiag.CaptureError as e:
            caught.append(warnings.WarningMessage(str(e), UserWarning, "", 0))
    for w in caught:
        msg = str(w.message).replace(str(p), "")
        assert not [s for s in DEBUG_SYNTAX if s in msg], msg

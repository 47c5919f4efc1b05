"""Writes captures in the formats beside pcap, byte by byte from their documentation, for
tests that check tshark reads them as tcpdiag does: Sun snoop (RFC 1761), Peek classic
(format versions 5, 6 and 7) and Microsoft Network Monitor 1.x and 2.x (the "Capture File
Format" of the Network Monitor 3 help).

Independent of tcpdiag's readers on purpose. Frames are `(time, wire_length, bytes)`;
`bytes` shorter than `wire_length` is a frame cut by the snapshot length.

    python3 tests/formatbuild.py OUT_DIR   # one file per format and version, for a look
"""

from __future__ import annotations

import datetime as dt
import struct
import sys
from pathlib import Path

Frame = tuple[float, int, bytes]

#: Seconds from 1904-01-01 (Peek's epoch) to 1970-01-01.
MAC_EPOCH = 2_082_844_800
#: 100-ns intervals from 1601-01-01 (FILETIME's epoch) to 1970-01-01.
FILETIME_EPOCH = 116_444_736_000_000_000


def _us(t: float) -> int:
    return round(t * 1e6)


# ---- snoop ------------------------------------------------------------------------


def snoop(frames: list[Frame], *, datalink: int = 4, version: int = 2) -> bytes:
    """RFC 1761: "snoop\\0\\0\\0", version, datalink (4 = Ethernet); records padded to 4."""
    out = bytearray(b"snoop\0\0\0" + struct.pack(">II", version, datalink))
    drops = 0
    for t, wire, data in frames:
        pad = -(24 + len(data)) % 4
        us = _us(t)
        out += struct.pack(">IIIIII", wire, len(data), 24 + len(data) + pad, drops, us // 10**6, us % 10**6)
        out += data + b"\0" * pad
    return bytes(out)


# ---- Peek classic -------------------------------------------------------------------


def peek_classic(frames: list[Frame], *, version: int = 7) -> bytes:
    """Master header (version, status), the V5-V7 secondary header (file length, packet
    count, reference time since 1904, media type 0 = Ethernet, physical medium 0 = native,
    zero reserved words), then records: V5/V6 with a millisecond offset from the reference
    time, V7 with microseconds since 1904 and records padded to an even length."""
    ref = int(frames[0][0]) if frames else 0
    body = bytearray()
    for t, wire, data in frames:
        slice_len = len(data) if len(data) < wire else 0  # 0: the whole packet
        if version == 7:
            body += struct.pack(">HHHBBQ", 0, wire, slice_len, 0, 0x01, _us(t) + MAC_EPOCH * 10**6)
            body += data + b"\0" * (len(data) % 2)
        else:
            ms = round((t - ref) * 1000)
            body += struct.pack(">HHBBIHHH8sH", wire, slice_len, 0, 0, ms, 0, 0, 0, b"", 0)
            body += data
    header = struct.pack(">BB", version, 0) + struct.pack(
        ">IIIIIIIII12x", 50 + len(body), len(frames), ref + MAC_EPOCH, 0, 0, 0, 0, 0, 0)
    return header + bytes(body)


# ---- Network Monitor ------------------------------------------------------------------


def _systemtime(t: float) -> bytes:
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return struct.pack("<8H", d.year, d.month, (d.weekday() + 1) % 7, d.day, d.hour, d.minute, d.second,
                       d.microsecond // 1000)


def netmon(frames: list[Frame], *, version: tuple[int, int] = (2, 3), network: int = 1,
           frame_networks: list[int] | None = None, table_order: list[int] | None = None,
           hole: int = 0) -> bytes:
    """A NetMon file: the 128-byte header ("RTSS" for 1.x, "GMBU" for 2.x; version; network
    type; the capture start as a SYSTEMTIME — UTC here; frame table offset and length),
    the frame records, then the frame table of 32-bit record offsets.

    1.x records: ms since the start (u32), wire and captured lengths (u16). 2.x: µs
    (u64), lengths (u32); from 2.1 a trailer follows the data: the frame's network type
    (`frame_networks`, default `network`), from 2.2 a process index, from 2.3 the UTC time
    as a FILETIME and a time zone index.

    `table_order` lists record indexes in frame-table order (the table, not the file,
    gives the order); `hole` bytes of junk precede every record."""
    major, minor = version
    start = frames[0][0] if frames else 1_700_000_000.0
    start_ms = int(start * 1000) / 1000  # SYSTEMTIME keeps milliseconds
    records, offsets = bytearray(), []
    for i, (t, wire, data) in enumerate(frames):
        records += b"\xee" * hole
        offsets.append(128 + len(records))
        if major == 1:
            records += struct.pack("<IHH", round((t - start_ms) * 1000), wire, len(data)) + data
            continue
        records += struct.pack("<QII", round((t - start_ms) * 1e6), wire, len(data)) + data
        net = (frame_networks or [network] * len(frames))[i]
        if minor == 1:
            records += struct.pack("<H", net)
        elif minor == 2:
            records += struct.pack("<HI", net, 0)
        elif minor >= 3:
            records += struct.pack("<HIQB", net, 0, round(t * 1e7) + FILETIME_EPOCH, 0)
    order = table_order if table_order is not None else list(range(len(frames)))
    table = b"".join(struct.pack("<I", offsets[i]) for i in order)
    magic = b"RTSS" if major == 1 else b"GMBU"
    header = magic + struct.pack("<BBH", minor, major, network) + _systemtime(start_ms)
    header += struct.pack("<II", 128 + len(records), len(table)) + b"\0" * 32
    header += b"\0" * (128 - len(header))
    return header + bytes(records) + table


def _demo(out: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from pcapbuild import handshake_and_data

    frames = [(s.ts, len(s.frame()), s.frame()) for s in handshake_and_data()]
    out.mkdir(parents=True, exist_ok=True)
    (out / "demo.snoop").write_bytes(snoop(frames))
    for v in (5, 6, 7):
        (out / f"demo-v{v}.peek").write_bytes(peek_classic(frames, version=v))
    for v in ((1, 1), (2, 0), (2, 1), (2, 2), (2, 3)):
        (out / f"demo-{v[0]}.{v[1]}.cap").write_bytes(netmon(frames, version=v))


if __name__ == "__main__":
    _demo(Path(sys.argv[1]))

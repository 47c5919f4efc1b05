"""A small writer of synthetic Windows ETL traces for tests (the layout tcpdiag-etl reads:
see etl/README.md). Not a general ETL writer: one header buffer, then event buffers of
EVENT_HEADER records, optionally Plain-LZ77 "compressed" with literal runs only.

    python3 tests/etlbuild.py --seeds fuzz/seeds/etl     # regenerates the fuzz seeds
"""

from __future__ import annotations

import struct
import sys
import uuid
from pathlib import Path

from pcapbuild import checksum

PKTMON = uuid.UUID("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac").bytes_le
NDIS = uuid.UUID("2ed6006e-4729-4609-b423-3ee7bcd678ef").bytes_le
TCPIP = uuid.UUID("2f07e2ee-15db-40f1-90ef-9d7ba282188a").bytes_le
EVENT_METADATA = uuid.UUID("bbccf6c1-6cd1-48c4-80ff-839482e37671").bytes_le

PERF_FREQ = 10_000_000
START_FT = 133_624_981_150_000_000  # a FILETIME in June 2024
START_QPC = 5_000_000
FILETIME_UNIX_EPOCH = 116_444_736_000_000_000
START_NS = (START_FT - FILETIME_UNIX_EPOCH) * 100
BUFFER_HEADER_LEN = 0x48

# TDH in-types used here
UINT16, UINT32, UINT64, BINARY, POINTER, UNICODESTRING = 6, 8, 10, 14, 16, 1
PARAM_LENGTH = 2


def _pad8(b: bytes) -> bytes:
    return b + b"\0" * (-len(b) % 8)


def buffer_header(size: int, saved: int, proc: int = 0, flags: int = 0, ty: int = 0) -> bytes:
    h = bytearray(BUFFER_HEADER_LEN)
    struct.pack_into("<II", h, 0, size, saved)
    h[0x28] = proc
    struct.pack_into("<I", h, 0x2C, 3)
    struct.pack_into("<IHH", h, 0x30, saved, flags, ty)
    return bytes(h)


def header_buffer(buffer_size: int = 4096, buffers_written: int = 2, ptr64: bool = True) -> bytes:
    """The first buffer: a SYSTEM record (HookId 0) holding TRACE_LOGFILE_HEADER (QPC clock)."""
    shift = 8 if ptr64 else 0
    p = bytearray(0x110 + shift)
    struct.pack_into("<IB", p, 0, buffer_size, 10)
    struct.pack_into("<I", p, 0x0C, 2)
    struct.pack_into("<I", p, 0x24, buffers_written)
    struct.pack_into("<I", p, 0x2C, 8 if ptr64 else 4)
    tail = 0xF0 + shift
    struct.pack_into("<qqII", p, tail + 8, PERF_FREQ, START_FT, 1, 0)
    p += "Test\0".encode("utf-16-le")
    rec = bytearray(0x20)
    struct.pack_into("<HBBH", rec, 0, 2, 0x02 if ptr64 else 0x01, 0xC0, 0x20 + len(p))
    struct.pack_into("<q", rec, 0x10, START_QPC)
    rec = _pad8(bytes(rec) + bytes(p))
    return (buffer_header(buffer_size, BUFFER_HEADER_LEN + len(rec), ty=4) + rec).ljust(buffer_size, b"\xff")


def event_record(provider: bytes, eid: int, keyword: int, qpc: int, payload: bytes, pid: int = 4, tid: int = 8,
                 ptr64: bool = True) -> bytes:
    """An EVENT_HEADER record; `qpc` is the raw timestamp (START_QPC + ticks of 100 ns)."""
    r = bytearray(0x50)
    struct.pack_into("<HBB", r, 0, 0x50 + len(payload), 0x13 if ptr64 else 0x12, 0xC0)
    struct.pack_into("<IIq", r, 8, tid, pid, qpc)
    r[24:40] = provider
    struct.pack_into("<H", r, 40, eid)
    struct.pack_into("<Q", r, 48, keyword)
    return bytes(r) + payload


def lz77_literals(data: bytes) -> bytes:
    """Plain LZ77 (MS-XCA 2.3) with no matches: a zero flag word before every 32 bytes."""
    out = bytearray()
    for i in range(0, len(data), 32):
        out += b"\0\0\0\0" + data[i:i + 32]
    return bytes(out)


def event_buffer(records: list[bytes], proc: int = 0, compressed: bool = False, buffer_size: int = 4096) -> bytes:
    data = b"".join(_pad8(r) for r in records)
    saved = BUFFER_HEADER_LEN + len(data)
    if compressed:
        c = lz77_literals(data)
        return buffer_header(BUFFER_HEADER_LEN + len(c), saved, proc, flags=0x40) + c
    assert saved <= buffer_size, "records do not fit the buffer"
    return (buffer_header(buffer_size, saved, proc) + data).ljust(buffer_size, b"\0")


def schema_record(provider: bytes, eid: int, task: str, props: list[tuple]) -> bytes:
    """A relogger schema event (EventMetadata class type 32): TRACE_EVENT_INFO with
    properties (name, in-type, flags, count, length)."""
    t = bytearray(112 + 24 * len(props))
    t[0:16] = provider
    struct.pack_into("<H", t, 32, eid)
    struct.pack_into("<I", t, 68, len(t))
    t += (task + "\0").encode("utf-16-le")
    struct.pack_into("<II", t, 100, len(props), len(props))
    for i, (name, ty, flags, count, length) in enumerate(props):
        at = 112 + 24 * i
        struct.pack_into("<IIH", t, at, flags, len(t), ty)
        struct.pack_into("<HH", t, at + 16, count, length)
        t += (name + "\0").encode("utf-16-le")
    r = bytearray(0x30)
    struct.pack_into("<HBBB", r, 0, 0x30 + len(t), 0x14, 0xC0, 32)
    struct.pack_into("<q", r, 16, START_QPC)
    r[24:40] = EVENT_METADATA
    return bytes(r) + bytes(t)


def trace(records: list[bytes], compressed: bool = False, per_buffer: int = 20) -> bytes:
    """Header buffer plus event buffers of up to `per_buffer` records (CPU 0)."""
    chunks = [records[i:i + per_buffer] for i in range(0, len(records), per_buffer)] or [[]]
    size = 1 << max(12, (max(sum(len(_pad8(r)) for r in c) for c in chunks) + BUFFER_HEADER_LEN - 1).bit_length())
    return header_buffer(size, 1 + len(chunks)) + b"".join(event_buffer(c, 0, compressed, size) for c in chunks)


def pktmon_packet(frame: bytes, component: int, group: int, dir_tag: int, appearance: int = 1) -> bytes:
    """PktMon event 160 payload (Ethernet frame, not truncated)."""
    head = struct.pack("<QHHHHHHH", group, 1, appearance, dir_tag, 1, component, 1, 0)
    return head + struct.pack("<IIHH", 0, 0, len(frame), len(frame)) + frame


# ---- TCP over Ethernet ----------------------------------------------------------

MAC_A, MAC_B = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")


def tcp_frame(src: tuple[str, int], dst: tuple[str, int], seq: int, ack: int, flags: int, payload: bytes = b"",
              win: int = 65535, mss: int | None = None) -> bytes:
    ip_src, ip_dst = (bytes(int(x) for x in a.split(".")) for a in (src[0], dst[0]))
    opts = struct.pack("!BBH", 2, 4, mss) if mss else b""
    tcp = struct.pack("!HHIIBBHHH", src[1], dst[1], seq, ack, (5 + len(opts) // 4) << 4, flags, win, 0, 0) + opts + payload
    pseudo = ip_src + ip_dst + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, ip_src, ip_dst)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    macs = (MAC_B + MAC_A) if src[0].endswith(".1") else (MAC_A + MAC_B)
    return macs + b"\x08\x00" + ip + tcp


CLIENT, SERVER = ("10.0.0.1", 50000), ("10.0.0.2", 443)


def _sockaddr(a: tuple[str, int]) -> bytes:
    return struct.pack("<H", 2) + struct.pack("!H", a[1]) + bytes(int(x) for x in a[0].split(".")) + b"\0" * 8


def tcp_transfer_trace(compressed: bool = True, segments: int = 6, tcb: int = 0xFFFF_A000_0000_1230) -> bytes:
    """A PktMon trace of one TCP transfer (client 10.0.0.1 sends `segments` × 1000 bytes),
    every packet logged twice (component 2 then 1, as PktMon does), with Microsoft-
    Windows-TCPIP events: TcpConnectTcbComplete (1033) and a TcpDataTransferSend (1332,
    Cwnd growing by 1460) per data segment."""
    life = [("LocalAddressLength", UINT32, 0, 1, 0), ("LocalAddress", BINARY, PARAM_LENGTH, 1, 0),
            ("RemoteAddressLength", UINT32, 0, 1, 0), ("RemoteAddress", BINARY, PARAM_LENGTH, 1, 2),
            ("Status", UINT32, 0, 1, 0), ("ProcessId", UINT32, 0, 1, 0), ("Compartment", UINT32, 0, 1, 0),
            ("Tcb", POINTER, 0, 1, 0)]
    send = [("Tcb", POINTER, 0, 1, 0), ("Cwnd", UINT32, 0, 1, 0), ("SndWnd", UINT32, 0, 1, 0),
            ("BytesSent", UINT32, 0, 1, 0), ("SeqNo", UINT32, 0, 1, 0)]
    recs = [schema_record(TCPIP, 1033, "TcpConnectTcbComplete", life),
            schema_record(TCPIP, 1332, "TcpDataTransferSend", send)]
    t = START_QPC + 1000
    group = 100

    def both(frame: bytes, outbound: bool) -> None:
        nonlocal t, group
        group += 1
        comps = (2, 1) if outbound else (1, 2)
        for i, comp in enumerate(comps):
            tag = (4 if comp == 1 else 2) if outbound else (3 if comp == 1 else 1)
            recs.append(event_record(PKTMON, 160, 0x10, t, pktmon_packet(frame, comp, group, tag, i + 1)))
            t += 5
        t += 100

    isn_c, isn_s = 1000, 5000
    both(tcp_frame(CLIENT, SERVER, isn_c, 0, 0x02, mss=1460), True)
    both(tcp_frame(SERVER, CLIENT, isn_s, isn_c + 1, 0x12, mss=1460), False)
    both(tcp_frame(CLIENT, SERVER, isn_c + 1, isn_s + 1, 0x10), True)
    life_payload = (struct.pack("<I", 16) + _sockaddr(CLIENT) + struct.pack("<I", 16) + _sockaddr(SERVER)
                    + struct.pack("<III", 0, 1234, 1) + struct.pack("<Q", tcb))
    recs.append(event_record(TCPIP, 1033, 0, t, life_payload))
    seq = isn_c + 1
    for i in range(segments):
        recs.append(event_record(TCPIP, 1332, 0, t, struct.pack("<QIIII", tcb, 14600 + 1460 * i, 65535, 1000, seq)))
        t += 10
        both(tcp_frame(CLIENT, SERVER, seq, isn_s + 1, 0x18, b"x" * 1000), True)
        seq += 1000
        both(tcp_frame(SERVER, CLIENT, isn_s + 1, seq, 0x10), False)
    return trace(recs, compressed)


def write_seeds(folder: Path) -> None:
    """Tiny fuzz seeds: header only, a PktMon trace (plain and compressed), TCPIP events,
    an ndiscap fragment pair, a truncated trace."""
    folder.mkdir(parents=True, exist_ok=True)
    frame = tcp_frame(CLIENT, SERVER, 1, 0, 0x02)
    pkt = [event_record(PKTMON, 160, 0x10, START_QPC + 10, pktmon_packet(frame, 1, 7, 1))]
    frag = lambda kw, b: event_record(NDIS, 1001, kw, START_QPC + 20, struct.pack("<III", 3, 3, len(b)) + b)
    ndis = [frag(0x4000_0000 | 0x2_0000_0000, frame[:30]), frag(0x8000_0000 | 0x2_0000_0000, frame[30:])]
    seeds = {
        "header_only.etl": header_buffer(512, 1),
        "pktmon.etl": trace(pkt, False),
        "pktmon_lz77.etl": trace(pkt, True),
        "ndiscap_fragments.etl": trace(ndis, True),
        "tcpip.etl": tcp_transfer_trace(True, segments=1),
        "truncated.etl": trace(pkt, False)[:-100],
    }
    for name, data in seeds.items():
        (folder / name).write_bytes(data)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--seeds":
        write_seeds(Path(sys.argv[2]))
    else:
        sys.exit(__doc__)

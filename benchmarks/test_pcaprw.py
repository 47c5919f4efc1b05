"""Checks of the capture rewriter (run: python3 -m pytest benchmarks/test_pcaprw.py)."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pcaprw


def _csum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _frame(payload: bytes = b"hello") -> bytearray:
    """An Ethernet/IPv4/TCP frame with correct IP and TCP checksums."""
    src, dst = 0x0A4D0001, 0x0A4D0002
    tcp = bytearray(struct.pack("!HHIIBBHHH", 40000, 5001, 123456, 654321, 0x50, 0x18, 512, 0, 0))
    pseudo = struct.pack("!IIBBH", src, dst, 0, 6, len(tcp) + len(payload))
    struct.pack_into("!H", tcp, 16, _csum(pseudo + bytes(tcp) + payload))
    ip = bytearray(struct.pack("!BBHHHBBHII", 0x45, 0, 20 + len(tcp) + len(payload), 1, 0, 64, 6,
                               0, src, dst))
    struct.pack_into("!H", ip, 10, _csum(bytes(ip)))
    return bytearray(bytes(12) + b"\x08\x00") + ip + tcp + payload


def _valid(frame: bytearray, payload_len: int) -> bool:
    ip, tcp = pcaprw.tcp_offsets(frame)  # type: ignore[misc]
    src, dst = frame[ip + 12:ip + 16], frame[ip + 16:ip + 20]
    seg = bytes(frame[tcp:])
    pseudo = bytes(src) + bytes(dst) + struct.pack("!BBH", 0, 6, len(seg))
    return _csum(bytes(frame[ip:tcp])) == 0 and _csum(pseudo + seg) == 0 and len(seg) == 20 + payload_len


def test_rewrite_keeps_checksums_valid() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        f = _frame()
        delta = rng.getrandbits(24)
        new_ports = (rng.getrandbits(16), rng.getrandbits(16))
        ds, da = rng.getrandbits(32), rng.getrandbits(32)
        assert pcaprw.rewrite_tcp(f, addr_map=lambda a: (a + delta) & 0xFFFFFFFF,
                                  port_map=lambda s, d: new_ports, seq_delta=lambda _l: (ds, da))
        assert _valid(f, 5)


def test_rewrite_leaves_non_tcp_untouched() -> None:
    f = _frame()
    f[12:14] = b"\x86\xdd"
    before = bytes(f)
    assert not pcaprw.rewrite_tcp(f, addr_map=lambda a: a + 1)
    assert bytes(f) == before


def test_write_read_roundtrip_ns(tmp_path: Path) -> None:
    hdr = pcaprw.PcapHeader("<", True, 128, pcaprw.LINKTYPE_ETHERNET)
    path = tmp_path / "x.pcap"
    with pcaprw.PcapWriter(str(path), hdr) as w:
        w.write(pcaprw.Packet(1_700_000_000_123_456_789, 59, _frame()))
    got_hdr, pkts = pcaprw.read_packets(str(path))
    (p,) = list(pkts)
    assert got_hdr == hdr and p.ts == 1_700_000_000_123_456_789 and p.data == _frame()
    s = pcaprw.summarize(str(path))
    assert (s.packets, s.flows) == (1, 1)

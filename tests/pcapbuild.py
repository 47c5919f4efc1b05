"""Builds small captures byte by byte for tests: frames from one template, one field changed.

Independent of tcpdiag's own writer on purpose, so reader bugs cannot cancel out.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

ETH_IPV4 = 0x0800


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


@dataclass(frozen=True)
class Seg:
    """A TCP segment over IPv4 over Ethernet. `payload` bytes are zeros."""

    src: str = "10.0.0.1"
    dst: str = "10.0.0.2"
    sport: int = 40000
    dport: int = 80
    seq: int = 1000
    ack: int = 0
    flags: int = 0x10
    window: int = 65535
    payload: int = 0
    options: bytes = b""
    ts: float = 1_700_000_000.0

    def but(self, **kw) -> "Seg":
        return replace(self, **kw)

    def frame(self) -> bytes:
        opts = self.options + b"\0" * (-len(self.options) % 4)
        tcp_len = 20 + len(opts)
        tcp = struct.pack("!HHIIBBHHH", self.sport, self.dport, self.seq & 0xFFFFFFFF, self.ack & 0xFFFFFFFF,
                          (tcp_len // 4) << 4, self.flags & 0xFF, self.window, 0, 0) + opts + b"\0" * self.payload
        total = 20 + len(tcp)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 1, 0, 64, 6, 0, _ip(self.src), _ip(self.dst))
        ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
        eth = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + struct.pack("!H", ETH_IPV4)
        return eth + ip + tcp


def _ip(s: str) -> bytes:
    return bytes(int(x) for x in s.split("."))


def mss(v: int) -> bytes:
    return struct.pack("!BBH", 2, 4, v)


def wscale(shift: int) -> bytes:
    return struct.pack("!BBB", 3, 3, shift) + b"\x01"


def pcap(frames: list[tuple[float, bytes]], *, linktype: int = 1, snaplen: int = 65535, nanos: bool = False,
         big_endian: bool = False) -> bytes:
    e = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanos else 0xA1B2C3D4
    out = bytearray(struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype))
    for ts, data in frames:
        # Whole microseconds, so µs and ns files carry the same instants.
        micros = round(ts * 1e6)
        sec, frac = divmod(micros, 1_000_000)
        frac *= 1000 if nanos else 1
        cap = data[:snaplen]
        out += struct.pack(e + "IIII", sec, frac, len(cap), len(data)) + cap
    return bytes(out)


def pcap_of(segs: list[Seg], **kw) -> bytes:
    return pcap([(s.ts, s.frame()) for s in segs], **kw)


def handshake_and_data(n_data: int = 3, mss_bytes: int = 1448) -> list[Seg]:
    """Client 10.0.0.1:40000 sends n_data segments to 10.0.0.2:80 after a full handshake."""
    c = Seg(ts=1_700_000_000.0)
    s = c.but(src="10.0.0.2", dst="10.0.0.1", sport=80, dport=40000, seq=5000)
    segs = [
        c.but(flags=0x02, seq=999, options=mss(1460) + wscale(7)),
        s.but(flags=0x12, seq=4999, ack=1000, ts=c.ts + 0.01, options=mss(1460) + wscale(7)),
        c.but(flags=0x10, ack=5000, ts=c.ts + 0.02),
    ]
    for i in range(n_data):
        segs.append(c.but(flags=0x18, ack=5000, seq=1000 + i * mss_bytes, payload=mss_bytes, ts=c.ts + 0.03 + i * 0.001))
    segs.append(s.but(flags=0x10, seq=5000, ack=1000 + n_data * mss_bytes, ts=c.ts + 0.05))
    return segs

"""Streaming classic-pcap reader, writer and IPv4/TCP rewriter for the benchmark captures.

Only what the benchmark needs: classic pcap (µs or ns, either byte order), Ethernet link type,
IPv4 + TCP. Packets that are not Ethernet/IPv4/TCP pass through unchanged.

Checksums: when addresses, ports, sequence or acknowledgement numbers are rewritten, the IPv4
header checksum and the TCP checksum are *updated incrementally* (RFC 1624, eqn. 3) from the
changed 16-bit words only. A checksum that was valid stays valid; one that was not (e.g. a
partial checksum captured before offload) stays wrong by the same amount. The benchmark captures
are taken with TX checksum offload off, so their checksums are valid and remain so.
"""

from __future__ import annotations

import heapq
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

MAGIC_US = 0xA1B2C3D4
MAGIC_NS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1

ETH_LEN = 14
ETHERTYPE_IPV4 = 0x0800
IPPROTO_TCP = 6

# IPv4 header fields (offsets from the start of the IP header).
IP_CSUM = 10
IP_SRC = 12
IP_DST = 16
# TCP header fields (offsets from the start of the TCP header).
TCP_SPORT = 0
TCP_DPORT = 2
TCP_SEQ = 4
TCP_ACK = 8
TCP_FLAGS = 13
TCP_CSUM = 16


@dataclass(frozen=True)
class PcapHeader:
    """Global header: byte order, timestamp resolution, snaplen and link type."""

    endian: str  # "<" or ">"
    nanos: bool
    snaplen: int
    linktype: int

    @property
    def ticks_per_sec(self) -> int:
        return 1_000_000_000 if self.nanos else 1_000_000

    def pack(self) -> bytes:
        magic = MAGIC_NS if self.nanos else MAGIC_US
        return struct.pack(self.endian + "IHHiIII", magic, 2, 4, 0, 0, self.snaplen, self.linktype)


@dataclass
class Packet:
    """One record: timestamp in ticks of the file's resolution, original length, bytes."""

    ts: int
    origlen: int
    data: bytearray


def read_header(f: BinaryIO) -> PcapHeader:
    raw = f.read(24)
    if len(raw) < 24:
        raise ValueError("not a pcap file: shorter than the 24-byte global header")
    for endian in ("<", ">"):
        (magic,) = struct.unpack(endian + "I", raw[:4])
        if magic in (MAGIC_US, MAGIC_NS):
            _, _, _, _, snaplen, linktype = struct.unpack(endian + "HHiIII", raw[4:])
            return PcapHeader(endian, magic == MAGIC_NS, snaplen, linktype & 0x0FFFFFFF)
    raise ValueError("not a classic pcap file (pcapng? convert with editcap -F pcap)")


def read_packets(path: str, bufsize: int = 1 << 20) -> tuple[PcapHeader, Iterator[Packet]]:
    """Open `path` and return its header and a lazy iterator over its records."""
    f = open(path, "rb", buffering=bufsize)
    hdr = read_header(f)
    rec = struct.Struct(hdr.endian + "IIII")
    scale = hdr.ticks_per_sec

    def gen() -> Iterator[Packet]:
        with f:
            while True:
                raw = f.read(16)
                if len(raw) < 16:
                    return
                sec, frac, incl, orig = rec.unpack(raw)
                data = f.read(incl)
                if len(data) < incl:
                    return  # truncated last record
                yield Packet(sec * scale + frac, orig, bytearray(data))

    return hdr, gen()


class PcapWriter:
    """Buffered classic-pcap writer; counts packets and bytes written."""

    def __init__(self, path: str, hdr: PcapHeader, bufsize: int = 4 << 20) -> None:
        self.hdr = hdr
        self._f = open(path, "wb", buffering=bufsize)
        self._f.write(hdr.pack())
        self._rec = struct.Struct(hdr.endian + "IIII")
        self._scale = hdr.ticks_per_sec
        self.packets = 0

    def write(self, pkt: Packet) -> None:
        sec, frac = divmod(pkt.ts, self._scale)
        self._f.write(self._rec.pack(sec, frac, len(pkt.data), pkt.origlen))
        self._f.write(pkt.data)
        self.packets += 1

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> PcapWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tcp_offsets(data: bytearray | bytes) -> tuple[int, int] | None:
    """(ip_offset, tcp_offset) for an untagged Ethernet/IPv4/TCP frame, else None."""
    if len(data) < ETH_LEN + 20 or data[12] != 0x08 or data[13] != 0x00:
        return None
    ip = ETH_LEN
    if data[ip] >> 4 != 4 or data[ip + 9] != IPPROTO_TCP:
        return None
    tcp = ip + (data[ip] & 0x0F) * 4
    if len(data) < tcp + 20:
        return None
    return ip, tcp


def flow_key(data: bytearray | bytes) -> tuple[bytes, bytes] | None:
    """Direction-independent 4-tuple key of a TCP/IPv4 frame (for counting flows)."""
    off = tcp_offsets(data)
    if off is None:
        return None
    ip, tcp = off
    a = bytes(data[ip + IP_SRC : ip + IP_SRC + 4]) + bytes(data[tcp : tcp + 2])
    b = bytes(data[ip + IP_DST : ip + IP_DST + 4]) + bytes(data[tcp + 2 : tcp + 4])
    return (a, b) if a <= b else (b, a)


def _fold(s: int) -> int:
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def csum_update(csum: int, old: bytes, new: bytes) -> int:
    """RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') over the 16-bit words of old/new."""
    s = (~csum) & 0xFFFF
    for i in range(0, len(old), 2):
        s += (~((old[i] << 8) | old[i + 1])) & 0xFFFF
        s += (new[i] << 8) | new[i + 1]
    return (~_fold(s)) & 0xFFFF


_U32 = struct.Struct("!I")
_U16 = struct.Struct("!H")


def rewrite_tcp(
    data: bytearray,
    addr_map: Callable[[int], int] | None = None,
    port_map: Callable[[int, int], tuple[int, int]] | None = None,
    seq_delta: Callable[[bool], tuple[int, int]] | None = None,
) -> bool:
    """Rewrite an Ethernet/IPv4/TCP frame in place; returns False (untouched) if not TCP/IPv4.

    addr_map(ip) -> ip is applied to both addresses. port_map(sport, dport) -> (sport, dport).
    seq_delta(is_from_low_port_side) -> (add to seq, add to ack), modulo 2**32.
    """
    off = tcp_offsets(data)
    if off is None:
        return False
    ip, tcp = off
    old_ip = bytes(data[ip + IP_SRC : ip + IP_DST + 4])
    old_tcp = bytes(data[tcp : tcp + 12])
    if addr_map is not None:
        src = addr_map(_U32.unpack_from(data, ip + IP_SRC)[0])
        dst = addr_map(_U32.unpack_from(data, ip + IP_DST)[0])
        _U32.pack_into(data, ip + IP_SRC, src)
        _U32.pack_into(data, ip + IP_DST, dst)
    sport, dport = _U16.unpack_from(data, tcp)[0], _U16.unpack_from(data, tcp + 2)[0]
    if port_map is not None:
        nsport, ndport = port_map(sport, dport)
        _U16.pack_into(data, tcp, nsport)
        _U16.pack_into(data, tcp + 2, ndport)
    if seq_delta is not None:
        dseq, dack = seq_delta(sport < dport)
        seq = _U32.unpack_from(data, tcp + TCP_SEQ)[0]
        ack = _U32.unpack_from(data, tcp + TCP_ACK)[0]
        _U32.pack_into(data, tcp + TCP_SEQ, (seq + dseq) & 0xFFFFFFFF)
        if data[tcp + TCP_FLAGS] & 0x10:  # ACK field only meaningful with the ACK flag
            _U32.pack_into(data, tcp + TCP_ACK, (ack + dack) & 0xFFFFFFFF)
    new_ip = bytes(data[ip + IP_SRC : ip + IP_DST + 4])
    new_tcp = bytes(data[tcp : tcp + 12])
    if new_ip != old_ip:
        c = _U16.unpack_from(data, ip + IP_CSUM)[0]
        _U16.pack_into(data, ip + IP_CSUM, csum_update(c, old_ip, new_ip))
    if new_ip != old_ip or new_tcp != old_tcp:
        # The TCP checksum covers the pseudo-header (both addresses) and the header words.
        c = _U16.unpack_from(data, tcp + TCP_CSUM)[0]
        _U16.pack_into(data, tcp + TCP_CSUM, csum_update(c, old_ip + old_tcp, new_ip + new_tcp))
    return True


def merge_by_time(streams: Iterable[Iterator[Packet]]) -> Iterator[Packet]:
    """k-way merge of time-ordered packet streams (stable: ties keep stream order)."""
    return heapq.merge(*streams, key=lambda p: p.ts)


@dataclass
class Summary:
    packets: int
    flows: int
    tcp_packets: int
    first_ts: int
    last_ts: int
    ticks_per_sec: int

    @property
    def duration_s(self) -> float:
        return (self.last_ts - self.first_ts) / self.ticks_per_sec


def summarize(path: str) -> Summary:
    """Count records and distinct TCP 4-tuples (unordered) in a classic pcap."""
    hdr, pkts = read_packets(path)
    flows: set[tuple[bytes, bytes]] = set()
    n = ntcp = 0
    first = last = 0
    for p in pkts:
        if n == 0:
            first = p.ts
        last = p.ts
        n += 1
        k = flow_key(p.data)
        if k is not None:
            ntcp += 1
            flows.add(k)
    return Summary(n, len(flows), ntcp, first, last, hdr.ticks_per_sec)

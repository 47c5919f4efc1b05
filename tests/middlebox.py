"""A synthetic middlebox for tests: rewrites a raw-IPv4 pcap (the samples' format) as a box
between the client and this capture point would have — NAT of the client's address and
port, a shift of the client's sequence numbers (ISN randomisation, with the ACKs and SACK
blocks coming back translated), the window-scale option stripped from the client's SYN, the
SYN's MSS clamped. Its truth is known because it is applied here. Checksums are not
recomputed (tcpdiag does not check them; the captures are cut at 128 bytes anyway).
"""

from __future__ import annotations

import gzip
import struct
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Box:
    client: tuple[str, int]
    nat_to: tuple[str, int] | None = None
    isn_shift: int = 0
    strip_wscale: bool = False
    clamp_mss: int | None = None
    #: False: a box that shifts sequence numbers but forgets the SACK blocks (a known bug).
    translate_sack: bool = True


def _ip(s: str) -> bytes:
    return bytes(int(x) for x in s.split("."))


def _options(tcp: bytearray, start: int, end: int, box: Box) -> None:
    """Strips window scale (to NOPs) and clamps MSS inside a SYN's options, in place."""
    i = start
    while i < end:
        kind = tcp[i]
        if kind == 0:
            return
        if kind == 1:
            i += 1
            continue
        if i + 1 >= end:
            return
        n = tcp[i + 1]
        if n < 2 or i + n > end:
            return
        if kind == 3 and box.strip_wscale:
            tcp[i:i + n] = b"\x01" * n
        elif kind == 2 and n == 4 and box.clamp_mss is not None:
            mss = struct.unpack_from("!H", tcp, i + 2)[0]
            struct.pack_into("!H", tcp, i + 2, min(mss, box.clamp_mss))
        elif kind == 5 and box.isn_shift and box.translate_sack:
            # SACK blocks from the server acknowledge the client's bytes: translate them.
            for j in range(i + 2, i + n, 4):
                v = struct.unpack_from("!I", tcp, j)[0]
                struct.pack_into("!I", tcp, j, (v + box.isn_shift) % (1 << 32))
        i += n


def rewrite(src: Path, dst: Path, box: Box) -> None:
    """Writes `src` (raw-IPv4 pcap, gzipped or not) as seen behind `box`, to `dst` (plain pcap)."""
    raw = gzip.decompress(src.read_bytes()) if src.suffix == ".gz" else src.read_bytes()
    out = bytearray(raw[:24])
    endian = "<" if raw[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    cip, cport = _ip(box.client[0]), box.client[1]
    at = 24
    while at + 16 <= len(raw):
        _, _, caplen, _ = struct.unpack_from(endian + "IIII", raw, at)
        pkt = bytearray(raw[at + 16:at + 16 + caplen])
        out += raw[at:at + 16]
        if len(pkt) >= 40 and pkt[0] >> 4 == 4 and pkt[9] == 6:
            ihl = (pkt[0] & 15) * 4
            t = ihl
            sport, dport = struct.unpack_from("!HH", pkt, t)
            from_client = pkt[12:16] == cip and sport == cport
            to_client = pkt[16:20] == cip and dport == cport
            if from_client or to_client:
                if box.nat_to is not None:
                    nip, nport = _ip(box.nat_to[0]), box.nat_to[1]
                    if from_client:
                        pkt[12:16] = nip
                        struct.pack_into("!H", pkt, t, nport)
                    else:
                        pkt[16:20] = nip
                        struct.pack_into("!H", pkt, t + 2, nport)
                seq, ack = struct.unpack_from("!II", pkt, t + 4)
                flags = pkt[t + 13]
                if from_client:
                    struct.pack_into("!I", pkt, t + 4, (seq + box.isn_shift) % (1 << 32))
                elif flags & 0x10:
                    struct.pack_into("!I", pkt, t + 8, (ack + box.isn_shift) % (1 << 32))
                doff = (pkt[t + 12] >> 4) * 4
                end = min(t + doff, len(pkt))
                if from_client and flags & 0x02:
                    _options(pkt, t + 20, end, box)
                elif to_client:
                    _options(pkt, t + 20, end, Box(box.client, isn_shift=box.isn_shift, translate_sack=box.translate_sack))
        out += pkt
        at += 16 + caplen
    dst.write_bytes(bytes(out))

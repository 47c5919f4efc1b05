"""Captures derived from real ones by rewriting: the 1M-flow scan and time-shifted replicas.

Both stream through pcaprw (memory does not grow with the output) and update IP and TCP
checksums incrementally (RFC 1624), so valid checksums stay valid.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pcaprw
from lab import CLOSED_PORT, IP_CLIENT, PORT


def ip_int(s: str) -> int:
    a, b, c, d = (int(x) for x in s.split("."))
    return a << 24 | b << 16 | c << 8 | d


def build_scan(out: Path, template: Path, nflows: int, open_every: int, gap_us: int) -> dict:
    """A SYN-scan-like capture of `nflows` short flows rewritten from one real handshake pair.

    Template (capture_template): open port  SYN, SYN/ACK, ACK, RST|ACK (SO_LINGER 0 abort);
    closed port  SYN, RST|ACK. Flow i is "open" when i % open_every == 0 and then emits SYN,
    SYN/ACK and the client's RST|ACK (the template's bare ACK is dropped, as in a SYN scan);
    otherwise SYN, RST|ACK. Flow i starts at template start + i * gap_us and keeps the
    template's relative timing. Rewritten per flow: target address 10.100.0.0 + i // 60000,
    client source port 1024 + i % 60000 (so all 4-tuples differ), and the client ISN (seq of
    client packets, ack of server packets) shifted by a random 32-bit value (seed 1). IP and TCP
    checksums are updated incrementally (RFC 1624): valid in the template, valid here.
    Flows overlap in time, so one stream per template position is generated and the streams
    are merged by timestamp.
    """
    hdr, pkts = pcaprw.read_packets(str(template))
    tmpl = [p for p in pkts if pcaprw.tcp_offsets(p.data)]
    open_conv: list[pcaprw.Packet] = []
    closed_conv: list[pcaprw.Packet] = []
    for p in tmpl:
        _, tcp = pcaprw.tcp_offsets(p.data)  # type: ignore[misc]
        ports = {int.from_bytes(p.data[tcp:tcp + 2], "big"),
                 int.from_bytes(p.data[tcp + 2:tcp + 4], "big")}
        flags = p.data[tcp + pcaprw.TCP_FLAGS]
        if PORT in ports:
            if flags == 0x10:  # the bare ACK completing the handshake: a scanner never sends it
                continue
            open_conv.append(p)
        elif CLOSED_PORT in ports:
            closed_conv.append(p)
    if [len(open_conv), len(closed_conv)] != [3, 2]:
        raise RuntimeError(f"unexpected template: {len(open_conv)} open, "
                           f"{len(closed_conv)} closed packets")
    rng = random.Random(1)
    isn = [rng.getrandbits(32) for _ in range(nflows)]
    client = ip_int(IP_CLIENT)
    gap = gap_us * hdr.ticks_per_sec // 1_000_000

    def position(j: int) -> Iterator[pcaprw.Packet]:
        """Packet j of every flow that has one, in flow order (hence in time order)."""
        for i in range(nflows):
            conv = open_conv if i % open_every == 0 else closed_conv
            if j >= len(conv):
                continue
            p = conv[j]
            d = bytearray(p.data)
            _, tcp = pcaprw.tcp_offsets(d)  # type: ignore[misc]
            from_client = int.from_bytes(d[tcp:tcp + 2], "big") not in (PORT, CLOSED_PORT)
            target = ip_int("10.100.0.0") + i // 60000
            sport = 1024 + i % 60000
            pcaprw.rewrite_tcp(
                d,
                addr_map=lambda a: a if a == client else target,
                port_map=lambda s, dp: (sport, dp) if from_client else (s, sport),
                seq_delta=lambda _low: (isn[i], 0) if from_client else (0, isn[i]),
            )
            yield pcaprw.Packet(tmpl[0].ts + i * gap + (p.ts - conv[0].ts), p.origlen, d)

    with pcaprw.PcapWriter(str(out), hdr) as w:
        for p in pcaprw.merge_by_time(position(j) for j in range(3)):
            w.write(p)
    return {"open_every": open_every, "gap_us": gap_us, "template_packets": len(tmpl)}


def replicate(out: Path, source: Path, copies: int, offset_s: float, sequential: bool) -> dict:
    """Copies of every flow of `source` with distinct 4-tuples and time offsets, merged by time.

    Copy k adds k to the third octet of both addresses (carrying into the second), i.e.
    10.77.0.x -> 10.77+k//256.k%256.x, so every copy is a new set of 4-tuples; its timestamps are
    shifted by k*offset_s (sequential=True: by k times the source duration, one copy after
    another, so the number of concurrent flows stays that of the source while the file grows).
    Checksums are updated incrementally (RFC 1624). Streaming: memory is O(copies).
    """
    first = last = None
    hdr, pkts = pcaprw.read_packets(str(source))
    for p in pkts:
        first = p.ts if first is None else first
        last = p.ts
    assert first is not None and last is not None
    tps = hdr.ticks_per_sec
    step = (last - first + tps // 100) if sequential else int(offset_s * tps)

    def stream(k: int) -> Iterator[pcaprw.Packet]:
        _, ps = pcaprw.read_packets(str(source))
        shift = k * step
        delta = k << 8
        for p in ps:
            if k:
                pcaprw.rewrite_tcp(p.data, addr_map=lambda a: a + delta)
            p.ts += shift
            yield p

    if sequential:
        merged: Iterator[pcaprw.Packet] = (p for k in range(copies) for p in stream(k))
    else:
        merged = pcaprw.merge_by_time(stream(k) for k in range(copies))
    with pcaprw.PcapWriter(str(out), hdr) as w:
        for p in merged:
            w.write(p)
    return {"source": source.name, "copies": copies,
            "offset_s": step / tps, "sequential": sequential}

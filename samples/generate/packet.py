"""Just enough IPv4/IPv6 + TCP header decoding to label packets in logs and summaries."""

import ipaddress
import struct
from typing import NamedTuple, Optional

IPPROTO_TCP = 6

# TCP flag bits (RFC 9293 header, byte 13).
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


class TcpSeg(NamedTuple):
    src: str
    dst: str
    sport: int
    dport: int
    ip_id: int  # 0 for IPv6 (no identification field in the fixed header)
    seq: int
    ack: int
    flags: int
    win: int  # raw 16-bit window field, unscaled
    payload: int  # TCP payload length from the IP length fields, not the captured bytes
    options: bytes  # TCP options bytes (may be cut short by the snap length)


def parse_ip_tcp(pkt: bytes) -> Optional[TcpSeg]:
    """Decode a raw IP packet (no link header); None if it is not TCP or too short."""
    if len(pkt) < 1:
        return None
    version = pkt[0] >> 4
    if version == 4 and len(pkt) >= 20:
        ihl = (pkt[0] & 0x0F) * 4
        total_len, ip_id = struct.unpack_from("!HH", pkt, 2)
        if pkt[9] != IPPROTO_TCP:
            return None
        src, dst = ipaddress.IPv4Address(pkt[12:16]), ipaddress.IPv4Address(pkt[16:20])
        tcp_at, ip_payload = ihl, total_len - ihl
    elif version == 6 and len(pkt) >= 40:
        # Extension headers are not followed: the generator never emits them.
        payload_len = struct.unpack_from("!H", pkt, 4)[0]
        if pkt[6] != IPPROTO_TCP:
            return None
        src, dst = ipaddress.IPv6Address(pkt[8:24]), ipaddress.IPv6Address(pkt[24:40])
        ip_id, tcp_at, ip_payload = 0, 40, payload_len
    else:
        return None
    if len(pkt) < tcp_at + 20:
        return None
    sport, dport, seq, ack, off_flags, win = struct.unpack_from("!HHIIHH", pkt, tcp_at)
    data_off = (off_flags >> 12) * 4
    options = pkt[tcp_at + 20:tcp_at + data_off]
    return TcpSeg(str(src), str(dst), sport, dport, ip_id, seq, ack, off_flags & 0x3F, win,
                  ip_payload - data_off, options)

"""Linux `struct tcp_info` (include/uapi/linux/tcp.h, kernel 6.x) read with getsockopt(TCP_INFO).

The struct only ever grows at its end, and the kernel copies min(len, sizeof) bytes, so fields
past the returned length are simply absent (older kernels) rather than garbage.
"""

import socket
import struct

# (name, struct format char) in declaration order; '<' packing matches the C layout because
# every field is naturally aligned in the kernel's definition.
_FIELDS = [
    ("state", "B"), ("ca_state", "B"), ("retransmits", "B"), ("probes", "B"),
    ("backoff", "B"), ("options", "B"), ("_wscale", "B"), ("_flags", "B"),
    ("rto", "I"), ("ato", "I"), ("snd_mss", "I"), ("rcv_mss", "I"),
    ("unacked", "I"), ("sacked", "I"), ("lost", "I"), ("retrans", "I"), ("fackets", "I"),
    ("last_data_sent", "I"), ("last_ack_sent", "I"), ("last_data_recv", "I"),
    ("last_ack_recv", "I"),
    ("pmtu", "I"), ("rcv_ssthresh", "I"), ("rtt", "I"), ("rttvar", "I"),
    ("snd_ssthresh", "I"), ("snd_cwnd", "I"), ("advmss", "I"), ("reordering", "I"),
    ("rcv_rtt", "I"), ("rcv_space", "I"), ("total_retrans", "I"),
    ("pacing_rate", "Q"), ("max_pacing_rate", "Q"), ("bytes_acked", "Q"),
    ("bytes_received", "Q"), ("segs_out", "I"), ("segs_in", "I"),
    ("notsent_bytes", "I"), ("min_rtt", "I"), ("data_segs_in", "I"), ("data_segs_out", "I"),
    ("delivery_rate", "Q"),
    ("busy_time", "Q"), ("rwnd_limited", "Q"), ("sndbuf_limited", "Q"),
    ("delivered", "I"), ("delivered_ce", "I"),
    ("bytes_sent", "Q"), ("bytes_retrans", "Q"), ("dsack_dups", "I"), ("reord_seen", "I"),
    ("rcv_ooopack", "I"), ("snd_wnd", "I"), ("rcv_wnd", "I"), ("rehash", "I"),
    ("total_rto", "H"), ("total_rto_recoveries", "H"), ("total_rto_time", "I"),
    ("received_ce", "I"), ("delivered_e1_bytes", "I"), ("delivered_e0_bytes", "I"),
    ("delivered_ce_bytes", "I"), ("received_e1_bytes", "I"), ("received_e0_bytes", "I"),
    ("received_ce_bytes", "I"), ("accecn_fail_mode", "H"), ("accecn_opt_seen", "H"),
]

# tcpi_options bits (TCPI_OPT_*).
OPT_TIMESTAMPS, OPT_SACK, OPT_WSCALE, OPT_ECN = 1, 2, 4, 8

BUFFER_LEN = 512


def _layout():
    offsets, offset = [], 0
    for name, fmt in _FIELDS:
        size = struct.calcsize("<" + fmt)
        assert offset % size == 0, name  # natural alignment, as in the C struct
        offsets.append((name, fmt, offset))
        offset += size
    return offsets


_LAYOUT = _layout()


def parse(raw: bytes) -> dict:
    """Decode the bytes getsockopt returned; fields beyond them are left out."""
    info = {}
    for name, fmt, offset in _LAYOUT:
        if offset + struct.calcsize("<" + fmt) > len(raw):
            break
        info[name] = struct.unpack_from("<" + fmt, raw, offset)[0]
    # Bitfields on little-endian: the first declared field takes the low bits.
    wscale = info.pop("_wscale")
    info["snd_wscale"] = wscale & 0x0F
    info["rcv_wscale"] = wscale >> 4
    flags = info.pop("_flags")
    info["delivery_rate_app_limited"] = flags & 0x01
    info["fastopen_client_fail"] = (flags >> 1) & 0x03
    return info


def read(sock: socket.socket) -> dict:
    return parse(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, BUFFER_LEN))

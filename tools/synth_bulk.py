#!/usr/bin/env python3
"""Writes a synthetic one-flow bulk transfer for scale tests of the report and graphs.

`python3 tools/synth_bulk.py OUT.pcap PACKETS [--retransmit-every N]`

Raw-IP pcap, headers only: a handshake (window scale 7, SACK permitted), then data
segments of 1448 B at 100 Mbit/s with an ACK every second segment 40 ms later (window
4 MiB), and every N-th segment sent again 50 ms after the original (a retransmission
event the graphs must show). Timing is idealised; this exercises size, not diagnosis.
"""

from __future__ import annotations

import argparse
import struct

import numpy as np

MSS = 1448
RATE_BPS = 100e6
RTT_S = 0.040
T0 = 1_700_000_000.0
A, B = bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2])
SPORT, DPORT = 40000, 5201
ISN_A, ISN_B = 1_000_000, 7_000_000


def _ip_tcp(src: bytes, dst: bytes, sport: int, dport: int, seq: int, ack: int, flags: int, win: int,
            payload: int, opts: bytes = b"") -> bytes:
    opts += b"\0" * (-len(opts) % 4)
    hl = 20 + len(opts)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, (hl // 4) << 4, flags,
                      win, 0, 0) + opts
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + hl + payload, 0, 0x4000, 64, 6, 0, src, dst)
    return ip + tcp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("packets", type=int)
    ap.add_argument("--retransmit-every", type=int, default=20_000)
    args = ap.parse_args()

    n_data = max(int(args.packets * 2 / 3), 4)
    gap = MSS * 8 / RATE_BPS
    t_data = T0 + 0.1 + np.arange(n_data) * gap
    seq = ISN_A + 1 + np.arange(n_data, dtype=np.int64) * MSS
    rows = []  # (time, kind, index)
    rows += [(t, 0, i) for i, t in enumerate(t_data)]
    acked = np.arange(1, n_data, 2)
    rows += [(t_data[i] + RTT_S, 1, i) for i in acked]
    rx = np.arange(args.retransmit_every, n_data, args.retransmit_every)
    rows += [(t_data[i] + 0.050, 2, i) for i in rx]
    rows.sort()

    ws, sack_ok = b"\x01\x03\x03\x07", b"\x04\x02"
    with open(args.out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 96, 101))

        def put(t: float, pkt: bytes, wire_len: int) -> None:
            sec = int(t)
            f.write(struct.pack("<IIII", sec, int(round((t - sec) * 1e6)), len(pkt), wire_len))
            f.write(pkt)

        syn = _ip_tcp(A, B, SPORT, DPORT, ISN_A, 0, 0x02, 64240, 0, b"\x02\x04\x05\xb4" + ws + sack_ok)
        put(T0, syn, len(syn))
        synack = _ip_tcp(B, A, DPORT, SPORT, ISN_B, ISN_A + 1, 0x12, 65160, 0, b"\x02\x04\x05\xb4" + ws + sack_ok)
        put(T0 + RTT_S / 2, synack, len(synack))
        ack = _ip_tcp(A, B, SPORT, DPORT, ISN_A + 1, ISN_B + 1, 0x10, 502, 0)
        put(T0 + RTT_S, ack, len(ack))
        win = (4 << 20) >> 7
        for t, kind, i in rows:
            if kind == 1:
                p = _ip_tcp(B, A, DPORT, SPORT, ISN_B + 1, int(seq[i]) + MSS, 0x10, win, 0)
                put(t, p, len(p))
            else:
                p = _ip_tcp(A, B, SPORT, DPORT, int(seq[i]), ISN_B + 1, 0x10, 502, MSS)
                put(t, p, len(p) + MSS)


if __name__ == "__main__":
    main()

"""Userspace link emulator between two TUN devices, one per direction of a path.

Per direction, in the order a packet meets them:

  ingress      the packet is read from the TUN; in a2b the middlebox (middlebox.py, off
               unless configured) may rewrite it
  loss         payload-carrying segments dropped at random (`loss`, seeded) or by ordinal
               (`drop_data_nth`, 1-based over payload segments, retransmissions included);
               pure ACKs (no payload, no SYN/FIN/RST) dropped at random (`ack_loss`)
  bottleneck   `rate_mbit` serialising whole IP packets, with a tail-drop FIFO of
               `queue_bytes`
  delay/2      the first half of the one-way `delay_ms`
  MIDPOINT     where the middle capture is taken (`middle_pcap`): the packet as it leaves
               the first half of the delay, stamped with that exact scheduled time
  delay/2      the second half
  egress       written to the other TUN; in b2a the middlebox may rewrite it first

The middlebox thus sits at the sender's end of the path: the middle capture and the receiver
see what it made of the sender's packets, and the receiver's packets as the receiver sent
them. The per-packet log always shows a packet as the emulator read it from its TUN.

`loss_at` = "after_mid" moves random data loss past the midpoint (the middle capture sees the
packet, the receiver does not); `reorder` holds a fraction of payload segments back
`reorder_extra_ms` longer, after the midpoint by default (`reorder_at` = "before_mid": before
it, so the middle capture sees them late too).

Run as its own process (`python3 -m samples.generate.emulator CONFIG.json`): it opens the
TUNs, prints "ready", forwards until SIGTERM, then writes its per-packet log, the middle
capture, the middlebox log and a summary. It runs SCHED_FIFO with the cyclic GC off because a
normal-priority Python loop on a loaded box delivers a few percent of packets more than 1 ms
late (see LAB-NOTES).
"""

import gc
import gzip
import heapq
import json
import os
import random
import select
import signal
import struct
import sys
import time
from collections import deque

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate import middlebox, pcap
from samples.generate.tun import open_tun

# Fates in the log.
FORWARDED, REORDERED, DROP_QUEUE, DROP_LOSS, DROP_LIST = "F", "R", "Q", "L", "D"
DROP_ACK, WRITE_FAILED = "A", "X"

# epoll timeouts are whole milliseconds, so waits shorter than this are slept precisely
# in small steps instead (checking the devices between steps).
_COARSE_WAIT_S = 0.002
_FINE_STEP_S = 0.0002

LOG_HEADER = "dir,t_in_ns,t_out_ns,late_ns,fate,ip_id,seq,ack,len,flags,win,size,t_mid_ns"
MIDDLE_SNAPLEN = 128  # as the tcpdump captures
_SYN_FIN_RST = 0x07

_V4 = struct.Struct("!xxHH3xB")  # total length, identification, protocol (byte 9)
_TCP = struct.Struct("!4xIIBBH")  # seq, ack, data offset byte, flags, window


def parse(pkt: bytes):
    """(ip_id, seq, ack, payload length, flags, window) of a raw IPv4/IPv6 TCP packet, or
    None. Only the fields the log needs: this runs once per packet on the hot path."""
    v = pkt[0] >> 4 if pkt else 0
    if v == 4 and len(pkt) >= 40:
        total, ip_id, proto = _V4.unpack_from(pkt)
        at = (pkt[0] & 0x0F) * 4
        ip_payload = total - at
    elif v == 6 and len(pkt) >= 60:
        if pkt[6] != 6:
            return None
        ip_id, proto, at = 0, 6, 40
        ip_payload = (pkt[4] << 8) | pkt[5]
    else:
        return None
    if proto != 6 or len(pkt) < at + 20:
        return None
    seq, ack, off, flags, win = _TCP.unpack_from(pkt, at)
    return ip_id, seq, ack, ip_payload - (off >> 4) * 4, flags & 0x3F, win


class Direction:
    """One way of the path (see the module doc for the order of the stages)."""

    def __init__(self, name: str, cfg: dict, seed: int):
        self.name = name
        self.delay = cfg.get("delay_ms", 0) / 1000
        rate = cfg.get("rate_mbit", 0)
        self.byte_time = 8 / (rate * 1e6) if rate else 0.0
        self.queue_limit = cfg.get("queue_bytes", 0) or None
        self.loss = cfg.get("loss", 0.0)
        self.loss_after_mid = cfg.get("loss_at", "before_mid") == "after_mid"
        self.ack_loss = cfg.get("ack_loss", 0.0)
        self.reorder = cfg.get("reorder", 0.0)
        self.reorder_extra = cfg.get("reorder_extra_ms", 0) / 1000
        self.reorder_before_mid = cfg.get("reorder_at", "after_mid") == "before_mid"
        self.drop_nth = set(cfg.get("drop_data_nth", []))
        # Separate streams so changing one knob does not reshuffle the other's choices.
        self.loss_rng = random.Random(f"{seed}-{name}-loss")
        self.reorder_rng = random.Random(f"{seed}-{name}-reorder")
        self.ack_rng = random.Random(f"{seed}-{name}-ackloss")
        self.busy_until = 0.0
        self.busy_s = 0.0  # time the bottleneck spent serialising
        self.in_queue = deque()  # (serialisation end time, size) of packets not yet sent
        self.queued_bytes = 0
        self.data_seen = 0

    def admit(self, now: float, size: int, payload: int, flags: int):
        """Return (fate, due time or None, midpoint time or None)."""
        lost_later = False
        if payload > 0:
            self.data_seen += 1
            if self.data_seen in self.drop_nth:
                return DROP_LIST, None, None
            if self.loss and self.loss_rng.random() < self.loss:
                if not self.loss_after_mid:
                    return DROP_LOSS, None, None
                lost_later = True
        elif self.ack_loss and flags & 0x10 and not flags & _SYN_FIN_RST \
                and self.ack_rng.random() < self.ack_loss:
            return DROP_ACK, None, None
        if self.byte_time:
            while self.in_queue and self.in_queue[0][0] <= now:
                self.queued_bytes -= self.in_queue.popleft()[1]
            if self.queue_limit is not None and self.queued_bytes + size > self.queue_limit:
                return DROP_QUEUE, None, None
            end = max(now, self.busy_until) + size * self.byte_time
            self.busy_s += size * self.byte_time
            self.busy_until = end
            self.in_queue.append((end, size))
            self.queued_bytes += size
        else:
            end = now
        mid = end + self.delay / 2
        if lost_later:
            return DROP_LOSS, None, mid
        if payload > 0 and self.reorder and self.reorder_rng.random() < self.reorder:
            extra = self.reorder_extra
            return REORDERED, end + self.delay + extra, mid + extra * self.reorder_before_mid
        return FORWARDED, end + self.delay, mid


def run(cfg: dict) -> None:
    fds = {name: open_tun(dev) for name, dev in (("a", cfg["tun_a"]), ("b", cfg["tun_b"]))}
    # Direction "a2b" carries what device a's namespace transmits towards device b.
    dirs = {"a": Direction("a2b", cfg["a2b"], cfg["seed"]),
            "b": Direction("b2a", cfg["b2a"], cfg["seed"])}
    out_fd = {"a": fds["b"], "b": fds["a"]}
    box = middlebox.Middlebox(cfg["middlebox"]) if cfg.get("middlebox") else None
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(cfg.get("rt_priority", 50)))
        realtime = True
    except OSError:
        realtime = False
    gc.disable()

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    ep = select.epoll()
    fd_side = {}
    for side, fd in fds.items():
        ep.register(fd, select.EPOLLIN)
        fd_side[fd] = side

    mono_to_real = time.time_ns() - time.monotonic_ns()
    log = []  # rows: [dir, t_in, t_out, late, fate, ip_id, seq, ack, len, flags, win, size, mid]
    middle = [] if cfg.get("middle_pcap") else None  # (t_mid, n, bytes, length)
    rewrites = []  # (dir, t_in_ns, ip_id, field, old, new)
    heap = []  # (due, n, side, packet, log row)
    n = write_errors = 0
    print("ready", flush=True)

    def rewrite(pkt: bytes, direction: str, t_ns: int, ip_id: int) -> bytes:
        buf = bytearray(pkt)
        for field, old, new in box.rewrite(buf, direction):
            rewrites.append((direction, t_ns, ip_id, field, old, new))
        return bytes(buf)

    def receive(side: str, now: float):
        nonlocal n
        fd, d = fds[side], dirs[side]
        t_in = int(now * 1e9) + mono_to_real
        while True:
            try:
                pkt = os.read(fd, 65536)
            except BlockingIOError:
                return
            seg = parse(pkt)
            if box and seg and side == "a":
                pkt = rewrite(pkt, "a2b", t_in, seg[0])
            if seg:
                ip_id, seq, ack, payload, flags, win = seg
            else:
                ip_id = seq = ack = flags = win = -1
                payload = 0
            fate, due, mid = d.admit(now, len(pkt), payload, flags if seg else 0)
            t_mid = int(mid * 1e9) + mono_to_real if mid is not None else 0
            row = [d.name, t_in, 0, 0, fate, ip_id, seq, ack, payload if seg else len(pkt),
                   flags, win, len(pkt), t_mid]
            log.append(row)
            n += 1
            if middle is not None and mid is not None and seg:
                middle.append((t_mid, n, pkt[:MIDDLE_SNAPLEN], len(pkt)))
            if due is not None:
                heapq.heappush(heap, (due, n, side, pkt, row))

    while not stop:
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            due, _, side, pkt, row = heapq.heappop(heap)
            if box and side == "b" and row[5] >= 0:
                pkt = rewrite(pkt, "b2a", int(now * 1e9) + mono_to_real, row[5])
            try:
                os.write(out_fd[side], pkt)
            except OSError:
                # The far device is not up yet (IPv6 chatter during setup): nothing to deliver to.
                row[4] = WRITE_FAILED
                write_errors += 1
                continue
            sent = time.monotonic()
            row[2] = int(sent * 1e9) + mono_to_real
            row[3] = int((sent - due) * 1e9)
            now = sent
        wait = heap[0][0] - now if heap else 0.05
        if wait > _COARSE_WAIT_S:
            events = ep.poll(min(wait - 0.001, 0.05))
        else:
            if wait > 0:
                time.sleep(min(wait, _FINE_STEP_S))
            events = ep.poll(0)
        now = time.monotonic()
        for fd, _ in events:
            receive(fd_side[fd], now)

    with gzip.open(cfg["log"], "wt", compresslevel=6) as f:
        f.write(LOG_HEADER + "\n")
        for row in log:
            f.write(",".join(map(str, row)) + "\n")
    if middle is not None:
        middle.sort()
        pcap.write(cfg["middle_pcap"], ((t, b, length) for t, _, b, length in middle),
                   MIDDLE_SNAPLEN)
    if cfg.get("middlebox_log"):
        with gzip.open(cfg["middlebox_log"], "wt", compresslevel=6) as f:
            f.write("dir,t_in_ns,ip_id,field,old,new\n")
            for r in rewrites:
                f.write(",".join(map(str, r)) + "\n")
    summary = {"realtime_sched": realtime, "undelivered_at_stop": len(heap),
               "write_errors": write_errors, "rewrites": len(rewrites),
               "bottleneck_busy_s": {d.name: round(d.busy_s, 6) for d in dirs.values()}}
    with open(cfg["summary"], "w") as f:
        json.dump(summary, f)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        run(json.load(f))

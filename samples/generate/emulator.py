"""Userspace link emulator between two TUN devices, one per direction of a path.

Each direction is a bottleneck of `rate_mbit` with a FIFO of `queue_bytes` (tail drop), then
a fixed one-way `delay_ms`. Before the queue, payload-carrying segments may be dropped at
random (`loss`, seeded) or by their ordinal (`drop_data_nth`, 1-based over payload segments
in that direction, retransmissions included). After the queue a `reorder` fraction of payload
segments is held back `reorder_extra_ms` longer, so later segments overtake them.

Run as its own process (`python3 -m samples.generate.emulator CONFIG.json`): it opens the
TUNs, prints "ready", forwards until SIGTERM, then writes its per-packet log and a summary.
It runs SCHED_FIFO with the cyclic GC off because a normal-priority Python loop on a loaded
box delivers a few percent of packets more than 1 ms late (see LAB-NOTES).
"""

import gc
import gzip
import heapq
import json
import os
import random
import select
import signal
import sys
import time
from collections import deque

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate.packet import parse_ip_tcp
from samples.generate.tun import open_tun

# Fates in the log.
FORWARDED, REORDERED, DROP_QUEUE, DROP_LOSS, DROP_LIST = "F", "R", "Q", "L", "D"
WRITE_FAILED = "X"

# epoll timeouts are whole milliseconds, so waits shorter than this are slept precisely
# in small steps instead (checking the devices between steps).
_COARSE_WAIT_S = 0.002
_FINE_STEP_S = 0.0002

LOG_HEADER = "dir,t_in_ns,t_out_ns,late_ns,fate,ip_id,seq,ack,len,flags,win"


class Direction:
    """One way of the path: seeded loss, drop list, rate + byte-bounded FIFO, delay, reorder."""

    def __init__(self, name: str, cfg: dict, seed: int):
        self.name = name
        self.delay = cfg.get("delay_ms", 0) / 1000
        rate = cfg.get("rate_mbit", 0)
        self.byte_time = 8 / (rate * 1e6) if rate else 0.0
        self.queue_limit = cfg.get("queue_bytes", 0) or None
        self.loss = cfg.get("loss", 0.0)
        self.reorder = cfg.get("reorder", 0.0)
        self.reorder_extra = cfg.get("reorder_extra_ms", 0) / 1000
        self.drop_nth = set(cfg.get("drop_data_nth", []))
        # Separate streams so changing one knob does not reshuffle the other's choices.
        self.loss_rng = random.Random(f"{seed}-{name}-loss")
        self.reorder_rng = random.Random(f"{seed}-{name}-reorder")
        self.busy_until = 0.0
        self.in_queue = deque()  # (serialisation end time, size) of packets not yet sent
        self.queued_bytes = 0
        self.data_seen = 0

    def admit(self, now: float, size: int, has_payload: bool):
        """Return (fate, due time or None)."""
        if has_payload:
            self.data_seen += 1
            if self.data_seen in self.drop_nth:
                return DROP_LIST, None
            if self.loss and self.loss_rng.random() < self.loss:
                return DROP_LOSS, None
        if self.byte_time:
            while self.in_queue and self.in_queue[0][0] <= now:
                self.queued_bytes -= self.in_queue.popleft()[1]
            if self.queue_limit is not None and self.queued_bytes + size > self.queue_limit:
                return DROP_QUEUE, None
            end = max(now, self.busy_until) + size * self.byte_time
            self.busy_until = end
            self.in_queue.append((end, size))
            self.queued_bytes += size
        else:
            end = now
        due = end + self.delay
        if has_payload and self.reorder and self.reorder_rng.random() < self.reorder:
            return REORDERED, due + self.reorder_extra
        return FORWARDED, due


def run(cfg: dict) -> None:
    fds = {name: open_tun(dev) for name, dev in (("a", cfg["tun_a"]), ("b", cfg["tun_b"]))}
    # Direction "a2b" carries what device a's namespace transmits towards device b.
    dirs = {"a": Direction("a2b", cfg["a2b"], cfg["seed"]),
            "b": Direction("b2a", cfg["b2a"], cfg["seed"])}
    out_fd = {"a": fds["b"], "b": fds["a"]}
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
    log = []  # rows: [dir, t_in, t_out, late, fate, ip_id, seq, ack, len, flags, win]
    heap = []  # (due, n, side, packet, log row)
    n = write_errors = 0
    print("ready", flush=True)

    def receive(side: str, now: float):
        nonlocal n
        fd, d = fds[side], dirs[side]
        while True:
            try:
                pkt = os.read(fd, 65536)
            except BlockingIOError:
                return
            seg = parse_ip_tcp(pkt)
            has_payload = bool(seg and seg.payload > 0)
            fate, due = d.admit(now, len(pkt), has_payload)
            row = [d.name, int(now * 1e9) + mono_to_real, 0, 0, fate,
                   seg.ip_id if seg else -1, seg.seq if seg else -1, seg.ack if seg else -1,
                   seg.payload if seg else len(pkt), seg.flags if seg else -1,
                   seg.win if seg else -1]
            log.append(row)
            if due is not None:
                n += 1
                heapq.heappush(heap, (due, n, side, pkt, row))

    while not stop:
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            due, _, side, pkt, row = heapq.heappop(heap)
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

    with gzip.open(cfg["log"], "wt", compresslevel=9) as f:
        f.write(LOG_HEADER + "\n")
        for row in log:
            f.write(",".join(map(str, row)) + "\n")
    summary = {"realtime_sched": realtime, "undelivered_at_stop": len(heap),
               "write_errors": write_errors}
    with open(cfg["summary"], "w") as f:
        json.dump(summary, f)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        run(json.load(f))

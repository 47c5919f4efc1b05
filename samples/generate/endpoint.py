"""The two applications of a scenario, run inside their namespaces with `ip netns exec`.

receiver: listens (SO_RCVBUF set before listen() so the SYN/ACK's window scale reflects it),
reads until EOF, optionally pausing to let its window close, and samples its own TCP_INFO.
sender: connects with the chosen congestion control, writes for a fixed time in one of three
styles, and samples TCP_INFO every few milliseconds with CLOCK_REALTIME stamps (the clock
tcpdump stamps packets with, so samples and packets line up directly).
"""

import argparse
import json
import os
import select
import socket
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate import tcp_info

CHUNK = 256 * 1024
PAYLOAD = bytes(range(256)) * (CHUNK // 256)
DRAIN_TIMEOUT_S = 20.0


class Sampler:
    def __init__(self, sock: socket.socket, period_s: float):
        self.sock, self.period = sock, period_s
        self.next_at = 0.0
        self.rows = []

    def maybe(self, force: bool = False) -> dict | None:
        now = time.monotonic()
        if not force and now < self.next_at:
            return None
        self.next_at = now + self.period
        row = tcp_info.read(self.sock)
        row["t_ns"] = time.time_ns()
        self.rows.append(row)
        return row

    def wait_s(self) -> float:
        return max(0.0, self.next_at - time.monotonic())

    def columns(self) -> dict:
        keys = list(self.rows[0]) if self.rows else []
        return {k: [r[k] for r in self.rows] for k in keys}


def _family(addr: str) -> int:
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def _endpoints(sock: socket.socket) -> dict:
    local, peer = sock.getsockname(), sock.getpeername()
    return {"local": [local[0], local[1]], "peer": [peer[0], peer[1]]}


def _write_out(path: str, doc: dict) -> None:
    with open(path, "w") as f:
        json.dump(doc, f)


def receiver(a) -> None:
    lsock = socket.socket(_family(a.addr), socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.rcvbuf:
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    lsock.bind((a.addr, a.port))
    lsock.listen(1)
    print("ready", flush=True)
    sock, _ = lsock.accept()
    ends = _endpoints(sock)
    sock.setblocking(False)
    sampler = Sampler(sock, a.sample_ms / 1000)
    start = time.monotonic()
    received = 0
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    pause_from, pause_to = a.pause_at, a.pause_at + a.pause_for
    while True:
        sampler.maybe()
        elapsed = time.monotonic() - start
        if a.pause_for and pause_from <= elapsed < pause_to:
            # Not reading: the receive queue fills and the advertised window closes.
            time.sleep(min(sampler.wait_s(), pause_to - elapsed) + 1e-4)
            continue
        if not poller.poll(sampler.wait_s() * 1000 + 1):
            continue
        try:
            data = sock.recv(a.read_size)
        except BlockingIOError:
            continue
        if not data:
            break
        received += len(data)
        if a.read_delay_ms:
            time.sleep(a.read_delay_ms / 1000)
    sampler.maybe(force=True)
    doc = {"role": "receiver", "bytes": received, **ends,
           "rcvbuf_effective": sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
           "tcp_info": sampler.columns()}
    sock.close()
    _write_out(a.out, doc)


def sender(a) -> None:
    sock = socket.socket(_family(a.addr), socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.cc.encode())
    if a.sndbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, a.sndbuf)
    sock.connect((a.addr, a.port))
    ends = _endpoints(sock)
    sock.setblocking(False)
    sampler = Sampler(sock, a.sample_ms / 1000)
    poller = select.poll()
    poller.register(sock, select.POLLOUT)
    start = time.monotonic()
    sent = 0
    chunk_left, idle_until = a.chunk, 0.0
    attempts_blocked = 0
    while time.monotonic() - start < a.duration:
        sampler.maybe()
        now = time.monotonic()
        if a.mode == "paced" and now < idle_until:
            time.sleep(min(sampler.wait_s(), idle_until - now) + 1e-4)
            continue
        wait_ms = sampler.wait_s() * 1000 + 1
        if a.mode == "pressure":
            # Try send() even when poll() says not writable: only a write that finds the buffer
            # full starts the kernel's SNDBUF_LIMITED chrono (see LAB-NOTES).
            wait_ms = min(wait_ms, 1)
        writable = poller.poll(wait_ms)
        if not writable and a.mode != "pressure":
            continue
        want = CHUNK if a.mode != "paced" else min(CHUNK, chunk_left)
        try:
            n = sock.send(PAYLOAD[:want])
        except BlockingIOError:
            attempts_blocked += 1
            continue
        sent += n
        if a.mode == "paced":
            chunk_left -= n
            if chunk_left == 0:
                chunk_left, idle_until = a.chunk, time.monotonic() + a.gap_ms / 1000
    sampler.maybe(force=True)
    write_end_ns = time.time_ns()
    sock.shutdown(socket.SHUT_WR)
    # Keep sampling until everything written is acknowledged, so the last sample holds the
    # connection's final counters.
    deadline = time.monotonic() + DRAIN_TIMEOUT_S
    while time.monotonic() < deadline:
        time.sleep(sampler.wait_s())
        row = sampler.maybe()
        if row and row["unacked"] == 0 and row["notsent_bytes"] == 0:
            break
    sock.setblocking(True)
    sock.settimeout(DRAIN_TIMEOUT_S)
    try:
        while sock.recv(4096):
            pass
    except OSError:
        pass
    sampler.maybe(force=True)
    doc = {"role": "sender", "bytes": sent, **ends, "blocked_sends": attempts_blocked,
           "write_end_ns": write_end_ns,
           "sndbuf_effective": sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
           "congestion_control": sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                                                 16).rstrip(b"\0").decode(),
           "tcp_info": sampler.columns()}
    sock.close()
    _write_out(a.out, doc)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="role", required=True)
    r = sub.add_parser("receiver")
    s = sub.add_parser("sender")
    for q in (r, s):
        q.add_argument("--addr", required=True)
        q.add_argument("--port", type=int, default=5201)
        q.add_argument("--out", required=True)
    r.add_argument("--rcvbuf", type=int, default=0)
    r.add_argument("--read-size", type=int, default=CHUNK)
    r.add_argument("--read-delay-ms", type=float, default=0)
    r.add_argument("--pause-at", type=float, default=0)
    r.add_argument("--pause-for", type=float, default=0)
    r.add_argument("--sample-ms", type=float, default=50)
    s.add_argument("--cc", default="cubic")
    s.add_argument("--sndbuf", type=int, default=0)
    s.add_argument("--duration", type=float, default=3.0)
    s.add_argument("--mode", choices=("bulk", "pressure", "paced"), default="bulk")
    s.add_argument("--chunk", type=int, default=CHUNK)
    s.add_argument("--gap-ms", type=float, default=0)
    s.add_argument("--sample-ms", type=float, default=10)
    a = p.parse_args(argv)
    (receiver if a.role == "receiver" else sender)(a)


if __name__ == "__main__":
    main()

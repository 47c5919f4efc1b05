"""The two applications of a run, started inside their namespaces with `ip netns exec`.

`sender` is always the data sender and `receiver` the data receiver; which of them connects is
a choice (`--listen` on the sender, `--connect` on the receiver: request/response puts the data
sender on the server side). Both sample their own TCP_INFO every few milliseconds with
CLOCK_REALTIME stamps taken just before and just after getsockopt (`t0_ns`, `t_ns`), the clock
tcpdump stamps packets with, so samples and packets line up directly; the kernel's snapshot is
taken at one instant between the two stamps.

Writers (sender `--mode`):
  bulk      write whenever poll() says writable (the old default)
  pressure  bulk, but also retry send() at least every millisecond when not writable: only a
            write that finds the buffer full starts the kernel's SNDBUF_LIMITED chrono
  paced     write `--chunk` bytes, idle `--gap-ms`, repeat (pressure retries while writing)
  periodic  every `--period-ms` add `--chunk` bytes to a backlog; write the backlog with
            pressure retries (offered load = chunk / period, exactly)
  rr        server side of request/response: read a `--request`-byte request, write a
            `--response`-byte response, until the client closes
Readers (receiver): read as fast as data comes; or at most `--read-rate-mbit` for the first
`--slow-for` seconds (a slow reader; then it drains at full speed so the run can end); or
pause (`--pause-at`, `--pause-for`); or `--mode rr`: the client that sends requests and reads
whole responses, `--think-ms` apart, for `--duration` seconds.
"""

import argparse
import fcntl
import json
import os
import select
import socket
import struct
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate import tcp_info

CHUNK = 256 * 1024
PAYLOAD = bytes(range(256)) * (CHUNK // 256)
DRAIN_TIMEOUT_S = 20.0
SIOCINQ = 0x541B  # FIONREAD: bytes in the receive queue not yet read by the application
TCP_CC_INFO = 26  # include/uapi/linux/tcp.h; struct tcp_bbr_info for bbr
BBR_INFO = struct.Struct("<5I")
PRESSURE_RETRY_MS = 1


class Sampler:
    """TCP_INFO every `period_s`, plus the socket's buffer size (the kernel's current
    sk_sndbuf / sk_rcvbuf, which autotuning grows), the unread receive queue, and BBR's
    gains when the socket runs bbr."""

    def __init__(self, sock: socket.socket, period_s: float, side: str, cc: str = ""):
        self.sock, self.period, self.side = sock, period_s, side
        self.bbr = cc == "bbr"
        self.next_at = 0.0
        self.rows = []

    def maybe(self, force: bool = False) -> dict | None:
        now = time.monotonic()
        if not force and now < self.next_at:
            return None
        self.next_at = now + self.period
        t0 = time.time_ns()
        raw = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, tcp_info.BUFFER_LEN)
        t1 = time.time_ns()
        row = tcp_info.parse(raw)
        row["t0_ns"], row["t_ns"] = t0, t1
        if self.side == "sender":
            row["sk_sndbuf"] = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
            if self.bbr:
                info = self.sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, BBR_INFO.size)
                if len(info) >= BBR_INFO.size:
                    lo, hi, min_rtt, pacing_gain, cwnd_gain = BBR_INFO.unpack(info[:BBR_INFO.size])
                    row.update(bbr_bw=(hi << 32) | lo, bbr_min_rtt=min_rtt,
                               bbr_pacing_gain=pacing_gain, bbr_cwnd_gain=cwnd_gain)
        else:
            row["sk_rcvbuf"] = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
            row["inq"] = struct.unpack("i", fcntl.ioctl(self.sock, SIOCINQ, b"\0" * 4))[0]
        self.rows.append(row)
        return row

    def wait_s(self) -> float:
        return max(0.0, self.next_at - time.monotonic())

    def columns(self) -> dict:
        keys = list(self.rows[0]) if self.rows else []
        return {k: [r.get(k) for r in self.rows] for k in keys}


def _family(addr: str) -> int:
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def _endpoints(sock: socket.socket) -> dict:
    local, peer = sock.getsockname(), sock.getpeername()
    return {"local": [local[0], local[1]], "peer": [peer[0], peer[1]]}


def _write_out(path: str, doc: dict) -> None:
    with open(path, "w") as f:
        json.dump(doc, f)


def _open(a, buf_opt: int, buf: int, cc: str | None, listen: bool) -> socket.socket:
    """A connected socket; buffers (and the congestion control) set before listen()/connect()
    so the SYN's window scale reflects them."""
    s = socket.socket(_family(a.addr), socket.SOCK_STREAM)
    if cc:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    if buf:
        s.setsockopt(socket.SOL_SOCKET, buf_opt, buf)
    if not listen:
        s.connect((a.addr, a.port))
        return s
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((a.addr, a.port))
    s.listen(1)
    print("ready", flush=True)
    conn, _ = s.accept()
    s.close()
    return conn


class Writer:
    """Sends from a backlog of bytes the application wants written."""

    def __init__(self, sock: socket.socket, sampler: Sampler, pressure: bool):
        self.sock, self.sampler, self.pressure = sock, sampler, pressure
        self.poller = select.poll()
        self.poller.register(sock, select.POLLOUT)
        self.sent = self.blocked = 0

    def write_some(self, want: int, limit_s: float) -> int:
        """Wait (at most `limit_s`, and never past the next sample) for room, then send up
        to `want` bytes; returns what was sent."""
        wait_ms = min(self.sampler.wait_s(), limit_s) * 1000 + 1
        if self.pressure:
            wait_ms = min(wait_ms, PRESSURE_RETRY_MS)
        if not self.poller.poll(wait_ms) and not self.pressure:
            return 0
        try:
            n = self.sock.send(PAYLOAD[:min(want, CHUNK)])
        except BlockingIOError:
            self.blocked += 1
            return 0
        self.sent += n
        return n


def _read_request(sock, sampler, size: int) -> bool:
    """Read one whole request; False at EOF."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    got = 0
    while got < size:
        sampler.maybe()
        if not poller.poll(sampler.wait_s() * 1000 + 1):
            continue
        try:
            data = sock.recv(size - got)
        except BlockingIOError:
            continue
        if not data:
            return False
        got += len(data)
    return True


def sender(a) -> None:
    sock = _open(a, socket.SO_SNDBUF, a.sndbuf, a.cc, a.listen)
    ends = _endpoints(sock)
    sock.setblocking(False)
    sampler = Sampler(sock, a.sample_ms / 1000, "sender", a.cc)
    w = Writer(sock, sampler, a.mode != "bulk")
    start = time.monotonic()
    requests = 0
    if a.mode == "rr":
        while _read_request(sock, sampler, a.request):
            requests += 1
            left = a.response
            while left:
                sampler.maybe()
                left -= w.write_some(left, 1.0)
    else:
        backlog = a.chunk if a.mode == "paced" else 0
        idle_until, next_tick = 0.0, start
        while (now := time.monotonic()) - start < a.duration:
            sampler.maybe()
            if a.mode == "periodic":
                while next_tick <= now:
                    backlog += a.chunk
                    next_tick += a.period_ms / 1000
                if not backlog:
                    time.sleep(min(sampler.wait_s(), next_tick - now) + 1e-4)
                    continue
            elif a.mode == "paced" and now < idle_until:
                time.sleep(min(sampler.wait_s(), idle_until - now) + 1e-4)
                continue
            want = backlog if a.mode in ("paced", "periodic") else CHUNK
            n = w.write_some(want, a.duration - (now - start))
            if a.mode in ("paced", "periodic"):
                backlog -= n
                if a.mode == "paced" and backlog == 0:
                    backlog, idle_until = a.chunk, time.monotonic() + a.gap_ms / 1000
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
    doc = {"role": "sender", "bytes": w.sent, **ends, "blocked_sends": w.blocked,
           "requests": requests, "write_end_ns": write_end_ns,
           "sndbuf_effective": sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
           "congestion_control": sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                                                 16).rstrip(b"\0").decode(),
           "tcp_info": sampler.columns()}
    sock.close()
    _write_out(a.out, doc)


def _rr_client(sock, sampler, a) -> int:
    """Requests and whole responses for `duration` seconds; returns bytes received."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    start, received = time.monotonic(), 0
    request = b"q" * a.request
    while time.monotonic() - start < a.duration:
        sock.setblocking(True)
        sock.sendall(request)
        sock.setblocking(False)
        left = a.response
        while left:
            sampler.maybe()
            if not poller.poll(sampler.wait_s() * 1000 + 1):
                continue
            try:
                data = sock.recv(min(left, a.read_size))
            except BlockingIOError:
                continue
            if not data:
                return received
            left -= len(data)
            received += len(data)
        think_until = time.monotonic() + a.think_ms / 1000
        while (now := time.monotonic()) < think_until:
            sampler.maybe()
            time.sleep(min(sampler.wait_s(), think_until - now) + 1e-4)
    sock.shutdown(socket.SHUT_WR)
    return received


def receiver(a) -> None:
    sock = _open(a, socket.SO_RCVBUF, a.rcvbuf, None, not a.connect)
    ends = _endpoints(sock)
    sock.setblocking(False)
    sampler = Sampler(sock, a.sample_ms / 1000, "receiver")
    start = time.monotonic()
    received = _rr_client(sock, sampler, a) if a.mode == "rr" else 0
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    pause_from, pause_to = a.pause_at, a.pause_at + a.pause_for
    rate = a.read_rate_mbit * 1e6 / 8
    next_read = 0.0
    while True:
        sampler.maybe()
        now = time.monotonic()
        elapsed = now - start
        if a.pause_for and pause_from <= elapsed < pause_to:
            # Not reading: the receive queue fills and the advertised window closes.
            time.sleep(min(sampler.wait_s(), pause_to - elapsed) + 1e-4)
            continue
        slow = rate and elapsed < a.slow_for
        if slow and now < next_read:
            time.sleep(min(sampler.wait_s(), next_read - now) + 1e-4)
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
        if slow:
            next_read = max(now, next_read) + len(data) / rate
        if a.read_delay_ms:
            time.sleep(a.read_delay_ms / 1000)
    sampler.maybe(force=True)
    doc = {"role": "receiver", "bytes": received, **ends,
           "rcvbuf_effective": sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
           "tcp_info": sampler.columns()}
    sock.close()
    _write_out(a.out, doc)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="role", required=True)
    r = sub.add_parser("receiver")
    s = sub.add_parser("sender")
    for q in (r, s):
        q.add_argument("--addr", required=True)
        q.add_argument("--port", type=int, default=5201)
        q.add_argument("--out", required=True)
        q.add_argument("--duration", type=float, default=3.0)
        q.add_argument("--request", type=int, default=100, help="rr: request bytes")
        q.add_argument("--response", type=int, default=65536, help="rr: response bytes")
    r.add_argument("--connect", action="store_true", help="connect instead of listening")
    r.add_argument("--mode", choices=("sink", "rr"), default="sink")
    r.add_argument("--rcvbuf", type=int, default=0)
    r.add_argument("--read-size", type=int, default=CHUNK)
    r.add_argument("--read-delay-ms", type=float, default=0)
    r.add_argument("--read-rate-mbit", type=float, default=0)
    r.add_argument("--slow-for", type=float, default=0)
    r.add_argument("--think-ms", type=float, default=0)
    r.add_argument("--pause-at", type=float, default=0)
    r.add_argument("--pause-for", type=float, default=0)
    r.add_argument("--sample-ms", type=float, default=50)
    s.add_argument("--listen", action="store_true", help="listen instead of connecting")
    s.add_argument("--cc", default="cubic")
    s.add_argument("--sndbuf", type=int, default=0)
    s.add_argument("--mode", choices=("bulk", "pressure", "paced", "periodic", "rr"),
                   default="bulk")
    s.add_argument("--chunk", type=int, default=CHUNK)
    s.add_argument("--gap-ms", type=float, default=0)
    s.add_argument("--period-ms", type=float, default=10)
    s.add_argument("--sample-ms", type=float, default=10)
    a = p.parse_args(argv)
    (receiver if a.role == "receiver" else sender)(a)


if __name__ == "__main__":
    main()

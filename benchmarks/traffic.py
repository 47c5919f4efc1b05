"""Traffic endpoints for the benchmark captures; run inside a network namespace.

    serve PORT                 sink/source server (run in the server namespace)
    send HOST PORT PLAN.json   run the flows of a plan (run in the client namespace)
    probe HOST OPEN CLOSED     one handshake to an open port (aborted with RST) and one to a
                               closed port, for the SYN-scan template

Each connection starts with a 17-byte request: mode (b"U" upload / b"D" download), byte count,
and seconds (float). Upload: the client sends; download: the server sends. A flow ends after
`bytes` bytes, or after `seconds` if bytes is 0. `rate` in the plan (bytes/s, 0 = unlimited)
makes the writer application-limited: it writes 64 KiB chunks on a fixed schedule.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time

REQ = struct.Struct("!cQd")
CHUNK = 256 * 1024
PACED_CHUNK = 64 * 1024
_BUF = bytes(CHUNK)


def _pump_out(sock: socket.socket, nbytes: int, seconds: float, rate: float) -> int:
    """Write until nbytes are sent (nbytes > 0) or seconds pass; paced when rate > 0."""
    sent = 0
    start = time.monotonic()
    deadline = start + seconds if nbytes == 0 else float("inf")
    view = memoryview(_BUF)
    while True:
        now = time.monotonic()
        if nbytes and sent >= nbytes or now >= deadline:
            return sent
        chunk = PACED_CHUNK if rate > 0 else CHUNK
        if nbytes:
            chunk = min(chunk, nbytes - sent)
        if rate > 0:
            due = start + sent / rate
            if due > now:
                time.sleep(min(due - now, max(0.0, deadline - now)))
                continue
        sock.sendall(view[:chunk])
        sent += chunk


def _drain(sock: socket.socket) -> int:
    got = 0
    while True:
        b = sock.recv(1 << 20)
        if not b:
            return got
        got += len(b)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        b = sock.recv(n - len(buf))
        if not b:
            raise ConnectionError("peer closed during request")
        buf += b
    return buf


def _serve_one(conn: socket.socket) -> None:
    with conn:
        try:
            mode, nbytes, seconds = REQ.unpack(_recv_exact(conn, REQ.size))
            if mode == b"U":
                _drain(conn)
            else:
                _pump_out(conn, nbytes, seconds, 0.0)
                conn.shutdown(socket.SHUT_WR)
                _drain(conn)
        except OSError:
            pass


def serve(port: int) -> None:
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1024)
    print("ready", flush=True)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=_serve_one, args=(conn,), daemon=True).start()


def _client_flow(host: str, port: int, flow: dict, t0: float, out: list) -> None:
    time.sleep(max(0.0, t0 + flow["start"] - time.monotonic()))
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if flow.get("cc"):
            try:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, flow["cc"].encode())
            except OSError:
                pass
        s.connect((host, port))
        mode = flow["mode"]
        s.sendall(REQ.pack(mode.encode(), flow["bytes"], flow["seconds"]))
        if mode == "U":
            n = _pump_out(s, flow["bytes"], flow["seconds"], flow.get("rate", 0.0))
            s.shutdown(socket.SHUT_WR)
            _drain(s)
        else:
            n = _drain(s)
        out.append({"id": flow["id"], "bytes": n, "cc": flow.get("cc")})
    except OSError as e:
        out.append({"id": flow["id"], "error": str(e)})
    finally:
        s.close()


def send(host: str, port: int, plan_path: str) -> None:
    with open(plan_path) as f:
        plan = json.load(f)
    t0 = time.monotonic() + 0.2
    out: list = []
    threads = [
        threading.Thread(target=_client_flow, args=(host, port, fl, t0, out)) for fl in plan["flows"]
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    json.dump(out, sys.stdout)


def probe(host: str, open_port: int, closed_port: int) -> None:
    """SYN, SYN/ACK, ACK, RST to the open port (SO_LINGER 0); SYN, RST/ACK to the closed one."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.connect((host, open_port))
    time.sleep(0.05)
    s.close()
    time.sleep(0.05)
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        c.connect((host, closed_port))
    except ConnectionRefusedError:
        pass
    c.close()
    time.sleep(0.05)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "serve":
        serve(int(sys.argv[2]))
    elif cmd == "send":
        send(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif cmd == "probe":
        probe(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(f"unknown command {cmd!r}")

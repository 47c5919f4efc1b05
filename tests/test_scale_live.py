"""`tcpdiag live` on a veth pair between two network namespaces made here, with a real
kernel TCP transfer across it: a receiver with a small SO_RCVBUF must be called
receive-window limited while the capture runs. Needs root and iproute2; skipped otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import tcpdiag_exe, veth_pair

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("ip"), reason="needs root and iproute2")

RECEIVER = textwrap.dedent("""
    import socket, sys
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)   # before listen: shapes the SYN's window
    s.bind(("10.99.7.2", 5201)); s.listen(1)
    print("ready", flush=True)
    c, _ = s.accept()
    while c.recv(65536):
        pass
""")

SENDER = textwrap.dedent("""
    import socket, sys, time
    c = socket.create_connection(("10.99.7.2", 5201))
    end = time.monotonic() + float(sys.argv[1])
    buf = b"x" * 65536
    while time.monotonic() < end:
        c.sendall(buf)
    c.shutdown(socket.SHUT_WR); c.recv(1); c.close()
""")


@pytest.fixture
def veth():
    with veth_pair("tdlive", ("10.99.7.1", "10.99.7.2")) as (ns, dev):
        if shutil.which("ethtool"):  # MSS-sized segments on the wire, as on a real NIC without offloads
            for n, d in zip(ns, dev):
                subprocess.run(["ip", "netns", "exec", n, "ethtool", "-K", d, "tso", "off", "gso", "off", "gro", "off"],
                               capture_output=True)
        yield ns, dev


def test_live_small_rcvbuf_is_receive_window_limited(veth) -> None:
    (ns_s, ns_r), (dev_s, _) = veth
    rx = subprocess.Popen(["ip", "netns", "exec", ns_r, sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    try:
        assert rx.stdout.readline().strip() == "ready"
        live = subprocess.Popen(["ip", "netns", "exec", ns_s, *tcpdiag_exe(), "live", "-i", dev_s,
                                 "--filter", "tcp port 5201", "--refresh", "1", "--duration", "7"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)  # capture running before the SYN
        subprocess.run(["ip", "netns", "exec", ns_s, sys.executable, "-c", SENDER, "4"], check=True, timeout=60)
        out, err = live.communicate(timeout=60)
    finally:
        rx.kill()
    assert live.returncode == 0, err
    refresh_lines = [ln for ln in out.splitlines() if ln.startswith("  stream") and "->" in ln]
    final = out[out.index("final:"):]
    # Seen while the transfer ran, not only in the final report:
    before_final = out[:out.index("final:")]
    assert "10.99.7.2:5201" in before_final, out
    window_verdicts = ("rwnd_limited", "rwnd_static", "rwnd_autotune_ceiling", "rwnd_slow_reader",
                       "zero_window_stall")
    assert any(v in before_final for v in window_verdicts), out
    assert "10.99.7.1" in final and ("rwnd" in final or "zero_window" in final), out
    assert refresh_lines

"""A capture on the sending host behind its own shaper: a veth pair between two network
namespaces made here, `tc tbf` on the sender's egress, the kernel's offloads as they come
(TSO), tcpdump on the sender's veth — after the qdisc, where a host's capture is taken. A
bulk sender that always has data (its own TCP_INFO says so: never application-limited)
fills the shaper; the queue sits between TCP and the tap, and the capture must not read
the one segment outstanding there as an application with nothing to send.
Needs root, iproute2 and tcpdump; skipped otherwise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, tcpdiag_exe

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("tcpdump"),
                                reason="needs root, iproute2 and tcpdump")

RATE_MBIT = 50
ADDR = ("10.99.8.1", "10.99.8.2")


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True)


def in_ns(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, *args]


@pytest.fixture
def shaped_pair():
    tag = f"{os.getpid() % 100000}"
    ns = (f"tdhq-s{tag}", f"tdhq-r{tag}")
    dev = (f"tdhs{tag}", f"tdhr{tag}")
    try:
        for n in ns:
            sh("ip", "netns", "add", n)
            sh("ip", "-n", n, "link", "set", "lo", "up")
        sh("ip", "link", "add", dev[0], "netns", ns[0], "type", "veth", "peer", "name", dev[1], "netns", ns[1])
        for n, d, addr in zip(ns, dev, ADDR):
            sh("ip", "-n", n, "addr", "add", addr + "/24", "dev", d)
            sh("ip", "-n", n, "link", "set", d, "up")
        sh(*in_ns(ns[0], "tc", "qdisc", "add", "dev", dev[0], "root", "tbf", "rate", f"{RATE_MBIT}mbit",
                  "burst", "32k", "limit", "400k"))
        yield ns, dev
    finally:
        for n in ns:
            subprocess.run(["ip", "netns", "del", n], capture_output=True)


def endpoint(ns: str, role: str, out: Path, *extra: str) -> list[str]:
    return in_ns(ns, sys.executable, "-m", "samples.generate.endpoint", role, "--addr", ADDR[1],
                 "--out", str(out), "--duration", "3", *extra)


def test_a_bulk_sender_behind_its_hosts_shaper_is_bandwidth_limited(shaped_pair, tmp_path) -> None:
    (ns_s, ns_r), (dev_s, _) = shaped_pair
    pcap, tx = tmp_path / "sender.pcap", tmp_path / "tx.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cap = subprocess.Popen(in_ns(ns_s, "tcpdump", "-i", dev_s, "-s", "128", "-U", "-w", str(pcap),
                                 "--time-stamp-precision", "nano", "tcp"), stderr=subprocess.PIPE)
    rx = subprocess.Popen(endpoint(ns_r, "receiver", tmp_path / "rx.json"), cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, text=True)
    try:
        assert rx.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # tcpdump running before the SYN
        subprocess.run(endpoint(ns_s, "sender", tx, "--cc", "cubic", "--mode", "pressure"), cwd=ROOT, env=env,
                       check=True, timeout=60, capture_output=True)
        rx.wait(timeout=60)
        time.sleep(0.5)
    finally:
        rx.kill()
        cap.terminate()
        cap.wait(timeout=10)
    info = json.loads(tx.read_text())["tcp_info"]
    # The truth, from the kernel and the set-up: never application-limited, the shaper full.
    assert not any(info["delivery_rate_app_limited"][1:-1])
    seconds = (info["t_ns"][-1] - info["t_ns"][0]) / 1e9
    assert info["bytes_acked"][-1] * 8 / seconds >= 0.8 * RATE_MBIT * 1e6

    out = subprocess.run([*tcpdiag_exe(), "analyze", "--json", str(pcap)], capture_output=True, text=True, check=True)
    flow = json.loads(out.stdout)["flows"][0]
    ids = [flow["verdict"]["id"]] + [f["id"] for f in flow.get("findings") or []]
    assert ids[0] == "bandwidth_limited", ids
    assert not [i for i in ids if i.startswith("app_")], ids
    # The round trip includes the wait in the shaper (a millisecond or more at this rate),
    # not only the microseconds from the tap to the receiver and back.
    assert flow["rtt"]["avg_ms"] >= 1.0, flow["rtt"]

"""The capture lab: two network namespaces joined by a veth pair, kernel TCP flows, tcpdump.

Client namespace tdbench-c (10.77.0.1, veth tdb-c) and server namespace tdbench-s (10.77.0.2,
veth tdb-s); TSO/GSO/GRO and TX checksum offload off on both ends (MSS-sized segments, valid
checksums); optional `tc tbf` rate limit on both egresses; tcpdump -s 128 on tdb-c. Flows are run
by traffic.py inside the namespaces. Everything is torn down in a `finally`.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRAFFIC = HERE / "traffic.py"

NS_CLIENT, NS_SERVER = "tdbench-c", "tdbench-s"
DEV_CLIENT, DEV_SERVER = "tdb-c", "tdb-s"
IP_CLIENT, IP_SERVER = "10.77.0.1", "10.77.0.2"
PORT = 5001
CLOSED_PORT = 5002
SNAPLEN = 128
MSS = 1448  # 1500 MTU - 20 IP - 20 TCP - 12 timestamps option
PKTS_PER_DATA_SEG = 1.1  # measured: ~1 ACK per 10 data segments under tbf (ACKs coalesce)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def need(tool: str, package: str) -> None:
    if shutil.which(tool):
        return
    log(f"{tool} missing: apt-get install -y {package}")
    subprocess.run(["apt-get", "install", "-y", "-q", package], check=False)
    if not shutil.which(tool):
        sys.exit(f"{tool} is required (Debian package {package})")


# ---------------------------------------------------------------------------------------------
# Namespaces


@contextmanager
def lab(rate_mbit: int) -> Iterator[None]:
    """Client and server namespaces joined by a veth pair, offloads off, tbf on both egresses."""
    teardown()
    try:
        run("ip", "netns", "add", NS_CLIENT)
        run("ip", "netns", "add", NS_SERVER)
        run("ip", "link", "add", DEV_CLIENT, "netns", NS_CLIENT, "type", "veth",
            "peer", "name", DEV_SERVER, "netns", NS_SERVER)
        for ns, dev, addr in ((NS_CLIENT, DEV_CLIENT, IP_CLIENT), (NS_SERVER, DEV_SERVER, IP_SERVER)):
            nx = ("ip", "netns", "exec", ns)
            run(*nx, "ip", "link", "set", "lo", "up")
            run(*nx, "ip", "addr", "add", f"{addr}/24", "dev", dev)
            run(*nx, "ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off")
            run(*nx, "ip", "link", "set", dev, "up")
            if rate_mbit:
                run(*nx, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{rate_mbit}mbit",
                    "burst", "256kb", "latency", "20ms")
        yield
    finally:
        teardown()


def teardown() -> None:
    for ns in (NS_CLIENT, NS_SERVER):
        run("ip", "netns", "del", ns, check=False)


def nsexec(ns: str, *cmd: str) -> list[str]:
    return ["ip", "netns", "exec", ns, *cmd]


@contextmanager
def server() -> Iterator[None]:
    p = subprocess.Popen(nsexec(NS_SERVER, sys.executable, str(TRAFFIC), "serve", str(PORT)),
                         stdout=subprocess.PIPE, text=True)
    try:
        if p.stdout is None or p.stdout.readline().strip() != "ready":
            raise RuntimeError("traffic server did not start")
        yield
    finally:
        p.terminate()
        p.wait(timeout=10)


@dataclass
class TcpdumpStats:
    captured: int
    received: int
    dropped_kernel: int


@contextmanager
def tcpdump(out: Path, nanos: bool) -> Iterator[list[TcpdumpStats]]:
    """tcpdump on the client veth; yields a list that holds its exit statistics afterwards."""
    cmd = nsexec(NS_CLIENT, "tcpdump", "-i", DEV_CLIENT, "-n", "-s", str(SNAPLEN), "-B", "131072",
                 "--time-stamp-precision", "nano" if nanos else "micro", "-w", str(out), "tcp")
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    assert p.stderr is not None
    line = p.stderr.readline()
    if "listening on" not in line:
        p.kill()
        raise RuntimeError(f"tcpdump did not start: {line.strip()}")
    stats: list[TcpdumpStats] = []
    try:
        yield stats
    finally:
        # Stop only once tcpdump has written everything: its buffer timeout is 1 s (TPACKET_V3
        # hands over partial blocks after it) and it may lag behind on a busy disk. Packets left
        # in the ring at SIGINT are counted as received but never written.
        size, still = -1, 0.0
        for _ in range(300):
            time.sleep(0.5)
            now = out.stat().st_size if out.exists() else 0
            still = still + 0.5 if now == size else 0.0
            size = now
            if still >= 2.0:
                break
        p.send_signal(signal.SIGINT)
        err = p.stderr.read()
        p.wait(timeout=60)

        def num(label: str) -> int:
            m = re.search(r"(\d+) packets? " + label, err)
            return int(m.group(1)) if m else -1

        stats.append(TcpdumpStats(num("captured"), num("received by filter"),
                                  num("dropped by kernel")))


# ---------------------------------------------------------------------------------------------
# Recipes


def bulk_plan(nflows: int, target_packets: int, rate_mbit: int, seed: int) -> dict:
    """Mixed flows whose data adds up to ~target_packets (+15%) at MSS-sized segments.

    Per flow, drawn from `seed`: direction (2/3 upload, 1/3 download), congestion control
    (bbr or cubic), start time (staggered over the first 40% of the expected run), and kind:
    bulk (a share of the byte budget, log-uniform weights, so sizes span ~2 orders of magnitude)
    or paced (every 5th flow: the application writes 64 KiB chunks at 2-20 Mbit/s for a fixed
    time: app-limited).
    """
    rng = random.Random(seed)
    budget = target_packets * 1.15 / PKTS_PER_DATA_SEG * MSS
    expected_s = budget * 8 / (rate_mbit * 1e6)
    flows = []
    weights = [10 ** rng.uniform(0, 2) for _ in range(nflows)]
    paced = [i % 5 == 4 for i in range(nflows)]
    wsum = sum(w for w, p in zip(weights, paced) if not p)
    for i in range(nflows):
        start = round(rng.uniform(0, 0.4 * expected_s), 3)
        f = {"id": i, "start": start, "mode": "U" if rng.random() < 2 / 3 else "D",
             "cc": rng.choice(["bbr", "cubic"]), "bytes": 0, "seconds": 0.0, "rate": 0.0}
        if paced[i]:
            f.update(mode="U", seconds=round(rng.uniform(0.3, 0.6) * expected_s, 2),
                     rate=rng.uniform(2, 20) * 1e6 / 8)
        else:
            f["bytes"] = int(budget * weights[i] / wsum)
        flows.append(f)
    return {"seed": seed, "expected_s": expected_s, "flows": flows}


def capture_bulk(out: Path, nflows: int, target: int, rate_mbit: int, seed: int,
                 nanos: bool) -> dict:
    """Capture the plan's flows; retried at half the rate while tcpdump drops packets."""
    for attempt in range(3):
        res = _capture_bulk_once(out, nflows, target, rate_mbit, seed, nanos)
        st = res["tcpdump"]
        if st["dropped_kernel"] == 0 and st["received"] == st["captured"] >= target:
            break
        log(f"  tcpdump: {res['tcpdump']} (target {target:,} packets); retrying at {rate_mbit // 2} Mbit/s")
        rate_mbit //= 2
    res["rate_mbit_used"] = rate_mbit
    res["attempts"] = attempt + 1
    return res


def _capture_bulk_once(out: Path, nflows: int, target: int, rate_mbit: int, seed: int,
                       nanos: bool) -> dict:
    plan = bulk_plan(nflows, target, rate_mbit, seed)
    log(f"  {nflows} flows, ~{plan['expected_s']:.0f} s at {rate_mbit} Mbit/s")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as pf:
        json.dump(plan, pf)
    try:
        with lab(rate_mbit), server(), tcpdump(out, nanos) as stats:
            t = time.monotonic()
            res = subprocess.run(nsexec(NS_CLIENT, sys.executable, str(TRAFFIC), "send",
                                        IP_SERVER, str(PORT), pf.name),
                                 capture_output=True, text=True, check=True)
            elapsed = time.monotonic() - t
    finally:
        os.unlink(pf.name)
    results = json.loads(res.stdout)
    errors = [r for r in results if "error" in r]
    if errors:
        raise RuntimeError(f"flows failed: {errors[:3]}")
    st = stats[0]
    return {"tcpdump": vars(st), "run_s": round(elapsed, 1),
            "app_bytes": sum(r["bytes"] for r in results), "plan": plan}


def capture_template(out: Path) -> dict:
    """One real aborted handshake (open port) and one refused one (closed port)."""
    with lab(0), server(), tcpdump(out, nanos=False) as stats:
        subprocess.run(nsexec(NS_CLIENT, sys.executable, str(TRAFFIC), "probe", IP_SERVER,
                              str(PORT), str(CLOSED_PORT)), check=True)
    return {"tcpdump": vars(stats[0])}

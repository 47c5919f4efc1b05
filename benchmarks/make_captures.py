#!/usr/bin/env python3
"""Build the benchmark captures in benchmarks/data/ from real Linux kernel TCP flows.

    sudo python3 benchmarks/make_captures.py            # bulk-1m, bulk-1m.pcapng, bulk-5m, scan-1m
    sudo python3 benchmarks/make_captures.py --huge     # also huge (multi-GB, for memory vs length)
    python3 benchmarks/make_captures.py --list          # what exists, from the .meta.json files

Every capture gets a FILE.meta.json sidecar (recipe, parameters, packets, flows, bytes, tcpdump
drop count, how it was made). A capture whose file and sidecar exist, whose size matches the
sidecar and whose recipe version and parameters are unchanged is skipped.

Real flows: two network namespaces joined by a veth pair, TSO/GSO/GRO and TX checksum offload
off (so the capture holds MSS-sized segments with valid checksums), a `tc tbf` rate limit on both
veth egresses to keep tcpdump lossless, and N concurrent kernel TCP connections (bbr and cubic,
uploads and downloads, bulk and application-paced, staggered starts). tcpdump (snaplen 128) runs
on the client-side veth. See README.md for the exact recipes.
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(HERE))
import pcaprw  # noqa: E402

DATA = HERE / "data"
TRAFFIC = HERE / "traffic.py"
RECIPE_VERSION = 1

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


def ip_int(s: str) -> int:
    a, b, c, d = (int(x) for x in s.split("."))
    return a << 24 | b << 16 | c << 8 | d


def build_scan(out: Path, template: Path, nflows: int, open_every: int, gap_us: int) -> dict:
    """A SYN-scan-like capture of `nflows` short flows rewritten from one real handshake pair.

    Template (capture_template): open port  SYN, SYN/ACK, ACK, RST|ACK (SO_LINGER 0 abort);
    closed port  SYN, RST|ACK. Flow i is "open" when i % open_every == 0 and then emits SYN,
    SYN/ACK and the client's RST|ACK (the template's bare ACK is dropped, as in a SYN scan);
    otherwise SYN, RST|ACK. Flow i starts at template start + i * gap_us and keeps the
    template's relative timing. Rewritten per flow: target address 10.100.0.0 + i // 60000,
    client source port 1024 + i % 60000 (so all 4-tuples differ), and the client ISN (seq of
    client packets, ack of server packets) shifted by a random 32-bit value (seed 1). IP and TCP
    checksums are updated incrementally (RFC 1624): valid in the template, valid here.
    Flows overlap in time, so one stream per template position is generated and the streams
    are merged by timestamp.
    """
    hdr, pkts = pcaprw.read_packets(str(template))
    tmpl = [p for p in pkts if pcaprw.tcp_offsets(p.data)]
    open_conv: list[pcaprw.Packet] = []
    closed_conv: list[pcaprw.Packet] = []
    for p in tmpl:
        _, tcp = pcaprw.tcp_offsets(p.data)  # type: ignore[misc]
        ports = {int.from_bytes(p.data[tcp:tcp + 2], "big"),
                 int.from_bytes(p.data[tcp + 2:tcp + 4], "big")}
        flags = p.data[tcp + pcaprw.TCP_FLAGS]
        if PORT in ports:
            if flags == 0x10:  # the bare ACK completing the handshake: a scanner never sends it
                continue
            open_conv.append(p)
        elif CLOSED_PORT in ports:
            closed_conv.append(p)
    if [len(open_conv), len(closed_conv)] != [3, 2]:
        raise RuntimeError(f"unexpected template: {len(open_conv)} open, "
                           f"{len(closed_conv)} closed packets")
    rng = random.Random(1)
    isn = [rng.getrandbits(32) for _ in range(nflows)]
    client = ip_int(IP_CLIENT)
    gap = gap_us * hdr.ticks_per_sec // 1_000_000

    def position(j: int) -> Iterator[pcaprw.Packet]:
        """Packet j of every flow that has one, in flow order (hence in time order)."""
        for i in range(nflows):
            conv = open_conv if i % open_every == 0 else closed_conv
            if j >= len(conv):
                continue
            p = conv[j]
            d = bytearray(p.data)
            _, tcp = pcaprw.tcp_offsets(d)  # type: ignore[misc]
            from_client = int.from_bytes(d[tcp:tcp + 2], "big") not in (PORT, CLOSED_PORT)
            target = ip_int("10.100.0.0") + i // 60000
            sport = 1024 + i % 60000
            pcaprw.rewrite_tcp(
                d,
                addr_map=lambda a: a if a == client else target,
                port_map=lambda s, dp: (sport, dp) if from_client else (s, sport),
                seq_delta=lambda _low: (isn[i], 0) if from_client else (0, isn[i]),
            )
            yield pcaprw.Packet(tmpl[0].ts + i * gap + (p.ts - conv[0].ts), p.origlen, d)

    with pcaprw.PcapWriter(str(out), hdr) as w:
        for p in pcaprw.merge_by_time(position(j) for j in range(3)):
            w.write(p)
    return {"open_every": open_every, "gap_us": gap_us, "template_packets": len(tmpl)}


def replicate(out: Path, source: Path, copies: int, offset_s: float, sequential: bool) -> dict:
    """Copies of every flow of `source` with distinct 4-tuples and time offsets, merged by time.

    Copy k adds k to the third octet of both addresses (carrying into the second), i.e.
    10.77.0.x -> 10.77+k//256.k%256.x, so every copy is a new set of 4-tuples; its timestamps are
    shifted by k*offset_s (sequential=True: by k times the source duration, one copy after
    another, so the number of concurrent flows stays that of the source while the file grows).
    Checksums are updated incrementally (RFC 1624). Streaming: memory is O(copies).
    """
    first = last = None
    hdr, pkts = pcaprw.read_packets(str(source))
    for p in pkts:
        first = p.ts if first is None else first
        last = p.ts
    assert first is not None and last is not None
    tps = hdr.ticks_per_sec
    step = (last - first + tps // 100) if sequential else int(offset_s * tps)

    def stream(k: int) -> Iterator[pcaprw.Packet]:
        _, ps = pcaprw.read_packets(str(source))
        shift = k * step
        delta = k << 8
        for p in ps:
            if k:
                pcaprw.rewrite_tcp(p.data, addr_map=lambda a: a + delta)
            p.ts += shift
            yield p

    if sequential:
        merged: Iterator[pcaprw.Packet] = (p for k in range(copies) for p in stream(k))
    else:
        merged = pcaprw.merge_by_time(stream(k) for k in range(copies))
    with pcaprw.PcapWriter(str(out), hdr) as w:
        for p in merged:
            w.write(p)
    return {"source": source.name, "copies": copies,
            "offset_s": step / tps, "sequential": sequential}


# ---------------------------------------------------------------------------------------------
# Idempotent build


def meta_path(p: Path) -> Path:
    return p.with_name(p.name + ".meta.json")


def up_to_date(p: Path, params: dict) -> bool:
    m = meta_path(p)
    if not p.exists() or not m.exists():
        return False
    meta = json.loads(m.read_text())
    return (meta.get("recipe_version") == RECIPE_VERSION and meta.get("params") == params
            and meta.get("bytes") == p.stat().st_size)


def finish(tmp: Path, dest: Path, recipe: str, params: dict, how: str, extra: dict) -> dict:
    s = pcaprw.summarize(str(tmp)) if tmp.suffix == ".pcap" else None
    meta = {"file": dest.name, "recipe": recipe, "recipe_version": RECIPE_VERSION,
            "params": params, "how": how, "bytes": tmp.stat().st_size,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **extra}
    if s is not None:
        meta.update(packets=s.packets, flows=s.flows, tcp_packets=s.tcp_packets,
                    duration_s=round(s.duration_s, 3),
                    ts_precision="ns" if s.ticks_per_sec == 10**9 else "us")
    os.replace(tmp, dest)
    meta_path(dest).write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def report(meta: dict, skipped: bool) -> None:
    drops = meta.get("tcpdump", {}).get("dropped_kernel", "n/a")
    print(f"{'kept ' if skipped else 'made '} {meta['file']:<22} {meta.get('packets', 0):>10,} pkts "
          f"{meta.get('flows', 0):>9,} flows {meta['bytes'] / 1e6:>9.1f} MB  "
          f"tcpdump drops: {drops}  ({meta['recipe']})", flush=True)


def build(name: str, recipe: str, params: dict, how: str, fn) -> dict:
    dest = DATA / name
    if up_to_date(dest, params):
        meta = json.loads(meta_path(dest).read_text())
        report(meta, True)
        return meta
    log(f"building {name} ({recipe}) ...")
    tmp = dest.with_name(dest.stem + ".tmp" + dest.suffix)
    t = time.monotonic()
    try:
        extra = fn(tmp)
        extra["build_s"] = round(time.monotonic() - t, 1)
        meta = finish(tmp, dest, recipe, params, how, extra)
    finally:
        tmp.unlink(missing_ok=True)
    report(meta, False)
    return meta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--huge", action="store_true", help="also build huge.pcap (multi-GB)")
    ap.add_argument("--huge-copies", type=int, default=24,
                    help="sequential copies of bulk-1m in huge.pcap (default 24: ~4 GB, ~28M packets)")
    ap.add_argument("--rate-mbit", type=int, default=800,
                    help="tbf rate on each veth egress (default 800; halved on tcpdump drops)")
    ap.add_argument("--b-method", choices=["capture", "replicate"], default="capture",
                    help="bulk-5m: capture 5M packets directly (default) or replicate bulk-1m")
    ap.add_argument("--list", action="store_true", help="print the sidecars of existing captures")
    args = ap.parse_args()

    if args.list:
        for m in sorted(DATA.glob("*.meta.json")):
            report(json.loads(m.read_text()), True)
        return
    if os.geteuid() != 0:
        sys.exit("needs root (network namespaces, tcpdump)")
    for tool, pkg in (("tcpdump", "tcpdump"), ("ethtool", "ethtool"), ("tc", "iproute2"),
                      ("editcap", "wireshark-common")):
        need(tool, pkg)
    DATA.mkdir(parents=True, exist_ok=True)

    pa = {"flows": 24, "target_packets": 1_050_000, "rate_mbit": args.rate_mbit, "seed": 1, "ts": "us"}
    a = build("bulk-1m.pcap", "capture", pa,
              "kernel TCP flows over veth between two netns, tcpdump -s 128 on the client veth",
              lambda tmp: capture_bulk(tmp, pa["flows"], pa["target_packets"], pa["rate_mbit"],
                                       pa["seed"], nanos=False))

    def to_pcapng(tmp: Path) -> dict:
        run("editcap", "-F", "pcapng", str(DATA / "bulk-1m.pcap"), str(tmp))
        return {k: a[k] for k in ("packets", "flows", "tcp_packets", "duration_s") if k in a}

    build("bulk-1m.pcapng", "editcap -F pcapng bulk-1m.pcap", {"source_bytes": a["bytes"]},
          "editcap -F pcapng of bulk-1m.pcap", to_pcapng)

    if args.b_method == "capture":
        pb = {"flows": 120, "target_packets": 5_100_000, "rate_mbit": args.rate_mbit, "seed": 2,
              "ts": "ns"}
        build("bulk-5m.pcap", "capture", pb,
              "kernel TCP flows over veth between two netns, tcpdump -s 128 on the client veth",
              lambda tmp: capture_bulk(tmp, pb["flows"], pb["target_packets"], pb["rate_mbit"],
                                       pb["seed"], nanos=True))
    else:
        pb = {"source_bytes": a["bytes"], "copies": 5, "offset_s": 1.7}
        build("bulk-5m.pcap", "replicate", pb,
              "5 time-shifted copies of bulk-1m.pcap with distinct addresses, merged by time",
              lambda tmp: replicate(tmp, DATA / "bulk-1m.pcap", 5, 1.7, sequential=False))

    tmpl = DATA / "handshake-template.pcap"
    build("handshake-template.pcap", "capture", {"probe": 1},
          "one aborted handshake to an open port and one refused handshake, tcpdump -s 128",
          capture_template)
    ps = {"flows": 1_000_000, "open_every": 10, "gap_us": 10, "rev": 2, "template_bytes": tmpl.stat().st_size}
    build("scan-1m.pcap", "rewrite handshake-template.pcap", ps,
          "1M SYN-scan flows rewritten from one real handshake pair (see build_scan)",
          lambda tmp: build_scan(tmp, tmpl, ps["flows"], ps["open_every"], ps["gap_us"]))

    if args.huge:
        ph = {"source_bytes": a["bytes"], "copies": args.huge_copies}
        build("huge.pcap", "replicate sequential", ph,
              f"{args.huge_copies} copies of bulk-1m.pcap one after another, distinct addresses",
              lambda tmp: replicate(tmp, DATA / "bulk-1m.pcap", args.huge_copies, 0.0,
                                    sequential=True))


if __name__ == "__main__":
    main()

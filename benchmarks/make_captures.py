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
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pcaprw  # noqa: E402
from derive import build_scan, replicate  # noqa: E402
from lab import capture_bulk, capture_template, log, need  # noqa: E402

DATA = HERE / "data"
RECIPE_VERSION = 1


def run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


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

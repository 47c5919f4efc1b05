"""Runs the sweep never makes: a veth pair with the bottleneck on the sender's own host.

The sweep (`sweep.py`) puts a userspace emulator between two TUNs: no offloads, no qdisc
holding segments before the sender's tap, a path with propagation delay. A capture taken on
a real sending host differs: its egress qdisc (here `tc tbf`, the shaper) holds what TCP
sent before the tap sees it, TSO hands the tap super-segments, and the receiver may sit
microseconds away. Each seed draws one transfer from the space below; the label comes from
the sender's TCP_INFO and the shaper's rate only (rules in `label`).

    sudo python3 -m samples.generate.veth --seeds 1-30 --out DIR     # ~6 s a run
    python3 -m benchmarks.accuracy.veth DIR                          # scores tcpdiag on them

Needs root, iproute2 (`ip`, `tc`) and tcpdump; without them: `skipped: why`, exit 0.
"""

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# The label's thresholds are the sweep's (one place: label.py).
from samples.generate.label import (APP_WITH_SNDBUF, CLEAR, FULL_LINK, MIXED, OFFER_ROOM, OFFER_SERVED, SHARE,
                                    mostly_dsacked)
from samples.generate.capture import Capture, whole
from samples.generate.netns import sh

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NS = ("tdveth-snd", "tdveth-rcv")
DEV = ("tdveth0", "tdveth1")
ADDR = ("10.56.0.1", "10.56.0.2")
SECONDS = 3.0
# The shaper counts whole 1,514 B frames; TCP's payload is 1,448 B of each.
PAYLOAD_SHARE = 1448 / 1514

RATES_MBIT = (10, 20, 50, 100, 200, 400, 800)
# Seeds from here may also draw no shaper (rate 0): the veth runs at the pace of the CPUs
# (a few Gbit/s here), as a transfer on a LAN or loopback does; a paced writer or a slow
# reader then takes its rate from NOMINAL_MBIT.
UNSHAPED_FROM = 1000
NOMINAL_MBIT = 1000
CCS = ("cubic", "reno", "bbr")
QUEUE_MS = (0.5, 2, 5, 20, 50)
STORIES = ("bulk", "bulk", "rcvbuf", "sndbuf", "periodic", "slow_reader")
BUFFERS = (8192, 16384, 32768, 65536)



def draw(seed: int) -> dict:
    """One run of the space, fully specified by its seed."""
    rng = random.Random(seed)
    rate = rng.choice(RATES_MBIT if seed < UNSHAPED_FROM else RATES_MBIT + (0,))
    base = rate or NOMINAL_MBIT
    spec = {"seed": seed, "rate_mbit": rate, "cc": rng.choice(CCS), "queue_ms": rng.choice(QUEUE_MS),
            "story": rng.choice(STORIES), "tso": rng.choice((True, False)), "sender": [], "receiver": []}
    spec["queue_kb"] = max(16, int(rate * 1e6 / 8 * spec["queue_ms"] / 1e3 / 1024))
    if spec["story"] == "rcvbuf":
        spec["receiver"] = ["--rcvbuf", str(rng.choice(BUFFERS))]
    elif spec["story"] == "sndbuf":
        spec["sender"] = ["--sndbuf", str(rng.choice(BUFFERS))]
    elif spec["story"] == "periodic":
        load, period = rng.uniform(0.2, 0.7), rng.choice((5, 10, 20))
        spec["offered"] = load
        spec["sender"] = ["--mode", "periodic", "--chunk", str(int(base * 1e6 / 8 * load * period / 1e3)),
                          "--period-ms", str(period)]
    elif spec["story"] == "slow_reader":
        spec["receiver"] = ["--read-rate-mbit", f"{base * rng.uniform(0.2, 0.6):.1f}", "--slow-for", str(SECONDS)]
    if spec["story"] != "periodic":
        spec["sender"] = ["--mode", "pressure", *spec["sender"]]
    return spec


def label(spec: dict, tx: dict, rx: dict | None = None) -> dict:
    """Family from both ends' TCP_INFO and the shaper's rate: rwnd (the chrono; for BBR, whose
    pacing check hides window-bound time from it, the share of samples with data behind a
    full window; below a full link, the share of receiver samples whose unread queue held
    the advertised window — BBR paces at the rate a slow reader drains), sndbuf (the
    chrono), app (the share of samples flagged delivery_rate_app_limited) each if ≥ 0.5, in
    that order, or app for a periodic writer that offered ≤ 0.8 of the shaper's rate and
    had ≥ 90 % of it acknowledged (the flag clears at each burst's first ACK; clear with
    sndbuf < 0.2); else bandwidth if the shaper carried ≥ 85 % of its rate (never without
    one: the CPUs set the pace then, no link); else reorder if the receiver sent DSACKs for at
    least half the resends (the kernel's dsack_dups: they were spurious); else loss if
    anything was resent. Clear when the deciding share is ≥ 0.65 (bandwidth, reorder and loss: every
    other share ≤ 0.35). The sweep's rules (label.py), less what needs the emulator's log."""
    i = tx["tcp_info"]
    busy = max(i["busy_time"][-1] - i["busy_time"][0], 1)
    samples = [k for k, un in enumerate(i["unacked"]) if un > 0]
    full = sum((i["unacked"][k] + 1) * i["snd_mss"][k] > i["snd_wnd"][k] for k in samples) / max(len(samples), 1)
    shares = {
        "rwnd": max((i["rwnd_limited"][-1] - i["rwnd_limited"][0]) / busy, full if tx["congestion_control"] == "bbr" else 0.0),
        "sndbuf": (i["sndbuf_limited"][-1] - i["sndbuf_limited"][0]) / busy,
        "app": sum(i["delivery_rate_app_limited"][1:-1]) / max(len(i["delivery_rate_app_limited"]) - 2, 1),
    }
    seconds = (i["t_ns"][-1] - i["t_ns"][0]) / 1e9
    shaped = spec["rate_mbit"] > 0
    payload_rate = (spec["rate_mbit"] or NOMINAL_MBIT) * 1e6 * PAYLOAD_SHARE
    # Of the shaper's rate; unshaped, of the nominal rate a paced writer's offer is a share of.
    carried = (i["bytes_acked"][-1] - i["bytes_acked"][0]) * 8 / seconds / payload_rate
    if rx and (not shaped or carried < FULL_LINK):
        r = rx["tcp_info"]
        backlog = sum(q > 2 * 1448 and q >= w for q, w in zip(r["inq"], r["rcv_wnd"]))
        shares["rwnd"] = max(shares["rwnd"], backlog / max(len(r["inq"]), 1))
    family = next((k for k in ("rwnd", "sndbuf", "app") if shares[k] >= SHARE), None)
    offered = spec.get("offered")
    if family is None and offered and offered <= OFFER_ROOM and carried >= OFFER_SERVED * offered:
        family, clear = "app", shares["sndbuf"] < APP_WITH_SNDBUF
    elif family:
        clear = shares[family] >= CLEAR
    else:
        resent = i["total_retrans"][-1]
        spurious = resent and mostly_dsacked(i["dsack_dups"][-1], resent)
        family = ("bandwidth" if shaped and carried >= FULL_LINK else "reorder" if spurious
                  else "loss" if resent else "none")
        clear = family != "none" and max(shares.values()) <= MIXED
    return {"family": family, "clear": clear, "shares": shares, "carried": carried, "retrans": i["total_retrans"][-1]}


def ns_cmd(ns: str, *args: str) -> list[str]:
    """`args` as a command run inside namespace `ns`."""
    return ["ip", "netns", "exec", ns, *args]


@contextlib.contextmanager
def veth_pair(ns: tuple[str, str], dev: tuple[str, str], addrs: tuple[str, str]):
    """Namespaces `ns` made here (any left over from an earlier run deleted first), joined
    by the veth pair `dev` with `addrs` (/24), every link up; deleted again after."""
    def delete() -> None:
        for n in ns:
            sh("ip", "netns", "del", n, check=False)

    delete()
    try:
        for n in ns:
            sh("ip", "netns", "add", n)
            sh("ip", "-n", n, "link", "set", "lo", "up")
        sh("ip", "link", "add", dev[0], "netns", ns[0], "type", "veth", "peer", "name", dev[1], "netns", ns[1])
        for n, d, a in zip(ns, dev, addrs):
            sh("ip", "-n", n, "addr", "add", a + "/24", "dev", d)
            sh("ip", "-n", n, "link", "set", d, "up")
        yield ns, dev
    finally:
        delete()


def endpoint(ns: str, role: str, out: str, args: list[str]) -> list[str]:
    return ns_cmd(ns, sys.executable, "-m", "samples.generate.endpoint", role, "--addr", ADDR[1], "--out", out,
                 "--duration", str(SECONDS), *args)


def run(spec: dict, out: str) -> dict:
    """Makes the pair, runs the transfer, writes `out`/{sender,receiver}.pcap and truth.json."""
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=ROOT)
    with veth_pair(NS, DEV, ADDR):
        offload = "on" if spec["tso"] else "off"
        if shutil.which("ethtool"):
            for n, d in zip(NS, DEV):
                sh(*ns_cmd(n, "ethtool", "-K", d, "tso", offload, "gso", offload, "gro", offload), check=False)
        if spec["rate_mbit"]:
            sh(*ns_cmd(NS[0], "tc", "qdisc", "add", "dev", DEV[0], "root", "tbf", "rate", f"{spec['rate_mbit']}mbit",
                       "burst", "32k", "limit", f"{spec['queue_kb']}k"))
        # Capture (capture.py): immediate mode and SIGINT, or the file misses the transfer's end.
        caps, rx = [], None
        try:
            for n, d, side in zip(NS, DEV, ("sender", "receiver")):
                caps.append(Capture(n, d, os.path.join(out, f"{side}.pcap")))
            rx = subprocess.Popen(endpoint(NS[1], "receiver", os.path.join(out, "rx.json"), spec["receiver"]),
                                  cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
            rx.stdout.readline()  # "ready"
            subprocess.run(endpoint(NS[0], "sender", os.path.join(out, "tx.json"), ["--cc", spec["cc"], *spec["sender"]]),
                           cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
            rx.wait(timeout=120)
            stats = {side: c.stop() for side, c in zip(("sender", "receiver"), caps)}
        finally:
            if rx and rx.poll() is None:
                rx.kill()
            for c in caps:
                c.kill()
    if not all(whole(st) for st in stats.values()):
        raise RuntimeError(f"tcpdump incomplete: {stats}")
    with open(os.path.join(out, "tx.json")) as f, open(os.path.join(out, "rx.json")) as g:
        tx, rx = json.load(f), json.load(g)
    truth = {"spec": spec, "label": label(spec, tx, rx), "sender": tx["local"], "congestion_control": tx["congestion_control"],
             "tcpdump": stats}
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f)
    return truth


def seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", required=True, help="e.g. 1-30 or 1,5,9")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    missing = [t for t in ("ip", "tc", "tcpdump") if not shutil.which(t)]
    if os.geteuid() != 0 or missing:
        print(f"skipped: {'needs root' if os.geteuid() != 0 else 'missing ' + ', '.join(missing)}")
        return
    failed = 0
    for s in seeds(a.seeds):
        d = os.path.join(a.out, str(s))
        if os.path.exists(os.path.join(d, "truth.json")):
            continue
        try:
            t = run(draw(s), d)
        except (subprocess.SubprocessError, OSError, ValueError, RuntimeError) as e:  # one run lost, not the range
            failed += 1
            print(f"{s}: failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
            continue
        lab = t["label"]
        print(f"{s}: {t['spec']['story']} {t['spec']['rate_mbit']} Mbit/s {t['spec']['cc']} "
              f"queue {t['spec']['queue_ms']} ms -> {lab['family']}{'' if lab['clear'] else ' (not clear)'}", flush=True)
    if failed:
        sys.exit(f"{failed} runs failed")


if __name__ == "__main__":
    main()

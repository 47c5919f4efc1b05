"""How fast the Python emulator keeps honest time here: `python3 -m samples.generate.capacity`.

Runs a bulk cubic transfer over a clean path (20 ms RTT, FIFO of 2 BDP, MTU 1500, all three
captures, everything at real-time priority exactly as a sweep run) at each rate, and prints
per run the goodput, the data packets per second, the emulator's delivery and ingress
lateness, the machine's load and whether the sweep's honesty checks pass. The sweep's top
rate (space.py MAX_DATA_PPS) is set from this with a margin. Needs root, like the sweep.
"""

import argparse
import os
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate import netns, run, runner, space, sweep_truth

RTT_MS, QUEUE_BDP, DURATION_S = 20, 2, 3.0


def draw_for(rate: float, mtu: int = 1500) -> dict:
    bdp = rate * 1e6 / 8 * RTT_MS / 1000
    link = {"delay_ms": RTT_MS / 2, "rate_mbit": rate, "queue_bytes": int(QUEUE_BDP * bdp)}
    spec = {"seed": 1, "family": "ipv4", "mtu": mtu, "cc": "cubic", "duration_s": DURATION_S,
            "listen": "receiver", "a2b": link, "b2a": dict(link), "middlebox": None,
            "middle_capture": True,
            "sender": {"sysctls": {"net.ipv4.tcp_wmem": space.DEFAULT_WMEM}, "gso_max_size": 1500,
                       "app": {"mode": "pressure", "sample_ms": space.SAMPLE_MS}},
            "receiver": {"sysctls": {}, "gso_max_size": None,
                         "app": {"sample_ms": space.SAMPLE_MS}}}
    drawn = {"space_version": space.SPACE_VERSION, "story": "capacity", "rate_mbit": rate,
             "rtt_ms": RTT_MS, "bdp_bytes": int(bdp), "queue_bdp": QUEUE_BDP, "cut_at_s": None}
    return {"spec": spec, "drawn": drawn}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rates", default="100,200,300,400,500,600", help="Mbit/s, comma-separated")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("--prefix", default="tdcap")
    a = p.parse_args(argv)
    names = netns.Names(a.prefix)
    reason = run.unavailable_reason(names)
    if reason:
        print(f"skipped: {reason}")
        return 0
    print("| rate Mbit/s | goodput Mbit/s | data pkts/s | delivery p99 µs | > 1 ms | "
          "ingress > 1 ms | max late µs | load | honest |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for rate in (float(r) for r in a.rates.split(",")):
        for _ in range(a.repeat):
            d = draw_for(rate, a.mtu)
            load = os.getloadavg()[0]
            with tempfile.TemporaryDirectory(prefix="tdcap-") as work:
                doc = sweep_truth.build(d, runner.execute(d["spec"], work, names))
            lat, ing = doc["emulator"]["delivery_lateness"], doc["emulator"]["ingress_lateness"]
            span = DURATION_S
            pps = doc["captures"]["sender"]["data_packets"] / span
            problems = [x for x in doc["honesty"]["problems"] if "lateness" in x or "tcpdump" in x
                        or "TUN" in x]
            print(f"| {rate:g} | {doc['result']['goodput_mbit']:.1f} | {pps:,.0f} | "
                  f"{lat['p99_us']} | {lat['over_1ms']}/{lat['n']} | {ing['over_1ms']} | "
                  f"{max(lat['max_us'], ing['max_us'])} | {load:.1f} | "
                  f"{'yes' if not problems else 'no: ' + '; '.join(problems)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Scores tcpdiag on runs of `samples.generate.veth` (a shaper on the sender's own host):
the primary verdict's family against the kernel label, at the sender's and the receiver's
veth, every wrong case listed.

    python3 -m benchmarks.accuracy.veth DIR [--json OUT]

The label cannot tell a slow-start overshoot from later losses (the shaper logs no drop
times), so a loss-limited label takes either verdict.
"""

import argparse
import json
import os
import sys

from benchmarks.accuracy import engine
from samples.generate import veth

# veth label family → engine families that answer it.
ANSWERS = {
    "rwnd": {"rwnd-limited"},
    "sndbuf": {"sndbuf-limited"},
    "app": {"app-limited"},
    "bandwidth": {"bandwidth-limited"},
    "loss": {"loss-limited", "slow-start-overshoot"},
    "reorder": {"reorder-limited"},
    # Nothing the kernel counts limited it and the link was not full: the congestion
    # window (one still in slow start, or one that says it found no cause) or nothing.
    "none": {"not-limited", "cwnd-limited", "slow-start-limited"},
}
VANTAGES = ("sender", "receiver")


def score(root: str) -> dict:
    exe = engine.tcpdiag_exe()
    runs = sorted((d for d in os.listdir(root) if os.path.exists(os.path.join(root, d, "truth.json"))), key=int)
    cases, stale = [], []
    for name in runs:
        with open(os.path.join(root, name, "truth.json")) as f:
            truth = json.load(f)
        # Runs made before their captures were stopped whole (no tcpdump statistics) may miss
        # the transfer's last second: not scored.
        if "tcpdump" not in truth:
            stale.append(int(name))
            continue
        # Labelled now, by today's rules (truth.json keeps the label of the day it was made).
        ends = []
        for side in ("tx", "rx"):
            with open(os.path.join(root, name, f"{side}.json")) as f:
                ends.append(json.load(f))
        lab = veth.label(truth["spec"], *ends)
        for vantage in VANTAGES:
            v = engine.analyze(exe, os.path.join(root, name, f"{vantage}.pcap"), tuple(truth["sender"]))
            cases.append({"seed": truth["spec"]["seed"], "vantage": vantage, "story": truth["spec"]["story"],
                          "rate_mbit": truth["spec"]["rate_mbit"], "cc": truth["congestion_control"],
                          "queue_ms": truth["spec"]["queue_ms"], "label": lab["family"], "clear": lab["clear"],
                          "engine": v.engine_id, "right": v.family in ANSWERS[lab["family"]],
                          "findings": list(v.findings)})
    summary = {}
    for vantage in VANTAGES:
        mine = [c for c in cases if c["vantage"] == vantage]
        clear = [c for c in mine if c["clear"]]
        summary[vantage] = {"right": sum(c["right"] for c in mine), "runs": len(mine),
                            "clear_right": sum(c["right"] for c in clear), "clear": len(clear)}
    return {"engine": engine.engine_version(exe), "summary": summary, "cases": cases, "stale": stale}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("--json", help="write every case here")
    a = p.parse_args(argv)
    result = score(a.dir)
    for vantage, s in result["summary"].items():
        print(f"{vantage:9} right {s['right']}/{s['runs']}; clear labels {s['clear_right']}/{s['clear']}")
    if result["stale"]:
        print(f"not scored: {len(result['stale'])} runs made before captures were stopped whole (regenerate them)")
    for c in result["cases"]:
        if not c["right"]:
            print(f"  wrong: {c['seed']} {c['vantage']}: {c['story']} {c['rate_mbit']} Mbit/s {c['cc']} queue "
                  f"{c['queue_ms']} ms, label {c['label']}{'' if c['clear'] else ' (not clear)'}, engine {c['engine']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())

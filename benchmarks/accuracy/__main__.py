"""The accuracy eval: the installed tcpdiag over a sweep directory, scored against kernel truth.

    python3 -m benchmarks.accuracy --sweep DIR --seeds held_out      # → docs/accuracy.md
    python3 -m benchmarks.accuracy --sweep DIR --seeds tuning        # tune on this one

Runs `tcpdiag` on every run's sender, receiver and middle capture (and their cut variants),
compares with the run's kernel label (samples/generate/label.py), and writes
benchmarks/results/accuracy-<date>-<range>.json and, for the held-out range (or --md),
the Markdown report. Not a test and not timed: an eval you run after generating the sweep
(python3 -m samples.generate.sweep). Reports only; the exit code is 0 unless it cannot run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from benchmarks.accuracy import engine, report, score  # noqa: E402
from samples.generate.sweep import SEEDS_FILE, parse_seeds  # noqa: E402


def _range_kind(name: str) -> tuple[str, str]:
    with open(SEEDS_FILE) as f:
        ranges = json.load(f)["ranges"]
    if name in ranges:
        lo, hi = ranges[name]["seeds"]
        return name, f"seeds {lo}–{hi}"
    return "custom", name


def _engine_commit() -> str:
    """The last commit that changed the engine's sources (not this eval or the samples)."""
    out = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h", "--", "analyzer",
                          "catalogue", "etl", "Cargo.toml", "Cargo.lock"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sweep", required=True, help="directory the sweep generator wrote")
    p.add_argument("--seeds", required=True, help="range name from samples/sweep/seeds.json "
                   "(tuning, held_out) or ranges like 1000-1099")
    p.add_argument("--md", help="Markdown report (default: docs/accuracy.md for held_out)")
    p.add_argument("--json", help="result JSON (default: benchmarks/results/accuracy-DATE-RANGE.json)")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--engine-git", help="the commit the installed tcpdiag was built from, when "
                   "it is not this checkout's (default: the checkout's last engine commit)")
    p.add_argument("--before", help="an earlier result JSON of the same range: its summary is "
                   "shown beside this one (before/after an engine change)")
    a = p.parse_args(argv)
    kind, span = _range_kind(a.seeds)
    seeds = parse_seeds(a.seeds)
    exe = engine.tcpdiag_exe()
    runs, truths = {"honest": 0, "dishonest": 0, "missing": 0}, {}
    dishonest, missing = [], []
    for seed in seeds:
        t = score.load_truth(os.path.join(a.sweep, str(seed)))
        if t is None:
            missing.append(seed)
        elif not t["generated"]["honest"]:
            dishonest.append({"seed": seed, "problems": t["honesty"]["problems"]})
        else:
            truths[seed] = t
    runs.update(honest=len(truths), dishonest=len(dishonest), missing=len(missing))
    print(f"{len(truths)} honest runs, {len(dishonest)} dishonest, {len(missing)} missing",
          flush=True)

    def one(seed):
        return score.evaluate_run(exe, os.path.join(a.sweep, str(seed)), truths[seed])

    cases = []
    with ThreadPoolExecutor(max(1, a.jobs)) as pool:
        for i, got in enumerate(pool.map(one, sorted(truths)), 1):
            cases += got
            if i % 20 == 0:
                print(f"  {i}/{len(truths)} runs", flush=True)
    summary = score.summarise(cases, runs)
    unclear = []
    for seed, t in sorted(truths.items()):
        for interval, lab in t["labels"].items():
            if lab["clear"]:
                continue
            at_sender = next(c for c in cases if c["seed"] == seed and c["interval"] == interval
                             and c["vantage"] == "sender")
            unclear.append({"seed": seed, "interval": interval, "label": lab["label"],
                            "why": lab["unclear_why"],
                            "engine_sender": at_sender["engine"]["engine_id"],
                            "conditions": score.conditions(t)})
    stories = {}
    for t in truths.values():
        row = stories.setdefault(t["story"], {})
        lab = t["labels"]["full"]
        key = lab["primary"] if lab["clear"] else "(not clear)"
        row[key] = row.get(key, 0) + 1
    for c in cases:
        c.get("cwnd", {}).pop("errors", None)
    today = datetime.date.today().isoformat()
    command = "python3 -m benchmarks.accuracy " + " ".join(argv if argv is not None else sys.argv[1:])
    doc = {"command": command, "date": today, "range": a.seeds, "range_kind": kind,
           "seed_span": span, "engine": f"{engine.engine_version(exe)}, engine sources at git {a.engine_git or _engine_commit()}",
           "summary": summary, "stories": stories,
           "wrong": [[c["seed"], c["interval"], c["vantage"]] for c in cases
                     if c["kernel"]["clear"] and not c["right"]],
           "conditions": {str(seed): score.conditions(t) for seed, t in sorted(truths.items())},
           "unclear": unclear, "dishonest": dishonest, "missing": missing, "cases": cases}
    if a.before:
        with open(a.before) as f:
            old = json.load(f)
        # Its remedy sub-types over today's families (an older file may have counted fewer).
        before = dict(old["summary"], remedy_subtype=score.remedy_subtype(
            [c for c in old["cases"] if c["kernel"]["clear"]]))
        doc["before"] = {"engine": old["engine"], "file": os.path.relpath(a.before, ROOT),
                         "summary": before}
    out = a.json or os.path.join(ROOT, "benchmarks", "results",
                                 f"accuracy-{today}-{a.seeds.replace(',', '_')}.json")
    with open(out, "w") as f:  # everything but the cases first, then one case per line
        head = {k: v for k, v in doc.items() if k != "cases"}
        f.write(json.dumps(head, indent=1)[:-2] + ',\n "cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print(f"JSON: {out}")
    md = a.md if a.md is not None else (os.path.join(ROOT, "docs", "accuracy.md")
                                        if kind.startswith("held_out") else None)
    if md:
        with open(md, "w") as f:
            f.write(report.markdown(doc))
        print(f"Markdown: {md}")
    for k, v in summary["by_vantage"].items():
        print(f"{k:18} {v['right']}/{v['n']} right ({v['accuracy']:.1%})" if v["n"] else k)
    return 0


if __name__ == "__main__":
    sys.exit(main())

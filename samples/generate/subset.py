"""Pick the committed subset from a generated tuning sweep and copy it into samples/sweep/:
`python3 -m samples.generate.subset --sweep DIR [--runs 24] [--max-mb 12]`; then SEEDS.md's
generated blocks are rewritten (alone: `--doc`).

Only honest runs of the tuning range whose labels are clear qualify. For the rarest feature
not yet covered (every kernel label and rwnd/sndbuf/app sub-type, each label of a cut
capture, every congestion control, IPv6, a small MTU, a middlebox, RACK off, ACK loss,
request/response) the smallest run having it is taken, then the smallest runs of the least
represented labels until `--runs` or the size budget is reached. Prints the Markdown table
SEEDS.md shows.
"""

import argparse
import json
import os
import shutil
import sys
import textwrap

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate.sweep import parse_seeds

SUBSET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sweep")
CUT_RUNS = 3


def _size(run_dir: str) -> int:
    return sum(os.path.getsize(os.path.join(run_dir, f)) for f in os.listdir(run_dir))


def features(t: dict) -> set[str]:
    s, d = t["spec"], t["drawn"]
    full = t["labels"]["full"]
    out = {f"label:{full['primary']}", f"cc:{s['cc']}"}
    if full["subtype"]:
        out.add(f"label:{full['label']}")
    if "cut" in t["labels"]:
        out.add(f"cut-label:{t['labels']['cut']['primary']}")
    for flag, on in (("ipv6", s["family"] == "ipv6"), ("small-mtu", s["mtu"] < 1500),
                     ("middlebox", bool(s.get("middlebox"))), ("rack-off", not d.get("rack", True)),
                     ("ack-loss", bool(s["b2a"].get("ack_loss"))),
                     ("request-response", s.get("listen") == "sender")):
        if on:
            out.add(flag)
    return out


def candidates(sweep: str) -> list[dict]:
    out = []
    for seed in parse_seeds("tuning"):
        p = os.path.join(sweep, str(seed), "truth.json")
        if not os.path.exists(p):
            continue
        with open(p) as f:
            t = json.load(f)
        if t["generated"]["honest"] and all(lab["clear"] for lab in t["labels"].values()):
            out.append({"seed": seed, "truth": t, "size": _size(os.path.dirname(p)),
                        "features": features(t)})
    return sorted(out, key=lambda c: (c["size"], c["seed"]))


def choose(cands: list[dict], runs: int, budget: int) -> list[dict]:
    """Rarest feature first: the smallest run having it (and whatever else it covers); then
    the smallest runs of the least represented labels, then cut runs, up to `runs`."""
    wanted = set().union(*(c["features"] for c in cands)) if cands else set()
    picked, used = [], 0
    while wanted and len(picked) < runs:
        rarest = min(wanted, key=lambda f: (sum(f in c["features"] for c in cands), f))
        c = next((c for c in cands if c not in picked and rarest in c["features"]
                  and used + c["size"] <= budget), None)
        wanted.discard(rarest)
        if c is None:
            continue
        picked.append(c)
        used += c["size"]
        wanted -= c["features"]
    while len(picked) < runs or sum("cut" in c["truth"]["labels"] for c in picked) < CUT_RUNS:
        counts = {}
        for c in picked:
            counts[c["truth"]["labels"]["full"]["primary"]] = \
                counts.get(c["truth"]["labels"]["full"]["primary"], 0) + 1
        need_cut = sum("cut" in c["truth"]["labels"] for c in picked) < CUT_RUNS
        rest = [c for c in cands if c not in picked and used + c["size"] <= budget
                and (not need_cut or "cut" in c["truth"]["labels"])]
        if not rest:
            break
        c = min(rest, key=lambda c: (counts.get(c["truth"]["labels"]["full"]["primary"], 0),
                                     c["size"]))
        picked.append(c)
        used += c["size"]
    return sorted(picked, key=lambda c: c["seed"])


def table(picked: list[dict]) -> str:
    lines = ["| seed | story | kernel label (cut) | CC | rate Mbit/s | RTT ms | notes | size |",
             "|---|---|---|---|---:|---:|---|---:|"]
    for c in picked:
        t = c["truth"]
        lab = t["labels"]["full"]["label"]
        if "cut" in t["labels"]:
            lab += f" ({t['labels']['cut']['label']})"
        notes = sorted(f for f in c["features"] if ":" not in f)
        lines.append(f"| {c['seed']} | {t['story']} | {lab} | {t['spec']['cc']} | "
                     f"{t['drawn']['rate_mbit']:g} | {t['drawn']['rtt_ms']:g} | "
                     f"{', '.join(notes)} | {c['size'] / 1e6:.2f} MB |")
    lines.append(f"\n{len(picked)} runs, {sum(c['size'] for c in picked) / 1e6:.1f} MB.")
    return "\n".join(lines)


DOC = os.path.join(SUBSET, "SEEDS.md")


def committed() -> list[dict]:
    out = []
    for name in sorted(os.listdir(SUBSET), key=lambda n: (len(n), n)):
        p = os.path.join(SUBSET, name, "truth.json")
        if name.isdigit() and os.path.exists(p):
            with open(p) as f:
                t = json.load(f)
            out.append({"seed": int(name), "truth": t, "size": _size(os.path.dirname(p)),
                        "features": features(t)})
    return out


def generated_blocks() -> dict:
    """SEEDS.md's generated parts: the space, the label rules, the committed subset."""
    from samples.generate import label, space
    rules = textwrap.dedent(label.__doc__.split("\n\n", 3)[3]).strip("\n")
    return {"space": space.markdown(), "rules": f"```\n{rules}\n```", "subset": table(committed())}


def render_doc(text: str) -> str:
    """`text` with every <!-- NAME --> ... <!-- /NAME --> block regenerated."""
    for name, body in generated_blocks().items():
        start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        i, j = text.index(start) + len(start), text.index(end)
        text = text[:i] + "\n" + body + "\n" + text[j:]
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sweep", help="a generated sweep holding the tuning range")
    p.add_argument("--runs", type=int, default=24)
    p.add_argument("--max-mb", type=float, default=12)
    p.add_argument("--dry-run", action="store_true", help="print the choice, copy nothing")
    p.add_argument("--doc", action="store_true",
                   help="only regenerate SEEDS.md's generated blocks from the committed runs")
    a = p.parse_args(argv)
    if a.doc:
        with open(DOC) as f:
            text = f.read()
        with open(DOC, "w") as f:
            f.write(render_doc(text))
        return 0
    if not a.sweep:
        p.error("--sweep DIR is needed to choose a subset")
    picked = choose(candidates(a.sweep), a.runs, int(a.max_mb * 1e6))
    if not a.dry_run:
        for name in os.listdir(SUBSET):
            if name.isdigit():
                shutil.rmtree(os.path.join(SUBSET, name))
        for c in picked:
            src = os.path.join(a.sweep, str(c["seed"]))
            shutil.copytree(src, os.path.join(SUBSET, str(c["seed"])))
        with open(DOC) as f:
            text = f.read()
        with open(DOC, "w") as f:
            f.write(render_doc(text))
    print(table(picked))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Scores `tcpdiag compare` against the lab's own truth: the link emulator's log of every
packet it dropped or held back, and the middlebox's log of every rewrite.

    python3 benchmarks/compare_eval.py DIR...            # run directories, or a directory of them
    python3 benchmarks/compare_eval.py samples           # the committed NAME.{sender,receiver,…} samples

A run is captures at the ends (and, for sweep runs, in the middle of the emulated path) plus
`emulator.csv.gz` (fate F forwarded, R held back, Q queue drop, L random loss, D drop list, A
ACK-path loss) and, when a middlebox was drawn, `middlebox.csv.gz`. For every pair of
vantages the truth says where each dropped data segment was lost: the emulator sits between
sender and receiver; the middle capture is taken after the bottleneck FIFO (queue drops are
before it) and the truth records whether random loss was drawn before or after it. So:

| pair (A, B)        | dropped before the middle | dropped after the middle |
|--------------------|---------------------------|--------------------------|
| sender, receiver   | lost_between              | lost_between             |
| sender, middle     | lost_between              | lost_after               |
| middle, receiver   | lost_before               | lost_between             |

Each truth drop is looked up among the comparison's loss rows of the data direction by its
relative sequence range (a multiset: a segment dropped twice needs two rows). It is *right*
when a row of the expected kind covers it, *wrong* when only a row of another kind does,
*missed* when none. Rows no drop explains are *extra*. The same bytes lost twice before
the first capture leave a trace only in the IPv4 identification, so distinct lost ranges
are scored too (`ranges`). Reordering: the share of the segments held back between the
pair's points that the comparison reports reordered between them. Rewrites: every middlebox
field (wscale stripped, MSS clamped, address and ISN rewritten) must have its finding.
Speed: compare's wall time against analysing both captures, each measured in this process.

Report only; it tunes nothing. Prints one line per run and pair, then the totals (and
`--json FILE` writes them).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DROPS = {"Q", "L", "D"}
#: Expected fate by (pair, where the drop happened).
EXPECTED = {
    ("sender", "receiver"): {"before_mid": "lost_between", "after_mid": "lost_between", None: "lost_between"},
    ("sender", "middle"): {"before_mid": "lost_between", "after_mid": "lost_after"},
    ("middle", "receiver"): {"before_mid": "lost_before", "after_mid": "lost_between"},
}
#: Pairs whose points a hold-back lies between, by where it happened.
REORDER_BETWEEN = {"before_mid": {("sender", "receiver"), ("sender", "middle")},
                   "after_mid": {("sender", "receiver"), ("middle", "receiver")}, None: {("sender", "receiver")}}
#: Middlebox field → the finding that must report it.
REWRITE_FINDING = {"syn.wscale": "option_stripped", "synack.wscale": "option_stripped", "syn.mss": "mss_clamped",
                   "synack.mss": "mss_clamped", "src": "address_translated", "dst": "address_translated",
                   "seq": "isn_shifted"}
LOSS_FATES = ("lost_between", "lost_before", "lost_after")


@dataclass
class Run:
    name: str
    captures: dict[str, Path]
    emulator: Path
    middlebox: Path | None = None
    truth: dict[str, Any] = field(default_factory=dict)


def runs_in(path: Path) -> list[Run]:
    """Run directories (`DIR/<seed>/sender.pcap.gz` …) or the samples layout
    (`NAME.sender.pcap.gz` …) under `path`."""
    if (path / "emulator.csv.gz").exists():
        caps = {v: path / f"{v}.pcap.gz" for v in ("sender", "middle", "receiver") if (path / f"{v}.pcap.gz").exists()}
        mb = path / "middlebox.csv.gz"
        truth = json.loads((path / "truth.json").read_text()) if (path / "truth.json").exists() else {}
        return [Run(path.name, caps, path / "emulator.csv.gz", mb if mb.exists() else None, truth)]
    out: list[Run] = []
    for emu in sorted(path.glob("*.emulator.csv.gz")):
        name = emu.name[: -len(".emulator.csv.gz")]
        caps = {v: path / f"{name}.{v}.pcap.gz" for v in ("sender", "middle", "receiver")
                if (path / f"{name}.{v}.pcap.gz").exists()}
        t = path / f"{name}.truth.json"
        out.append(Run(name, caps, emu, None, json.loads(t.read_text()) if t.exists() else {}))
    for sub in sorted(p for p in path.iterdir() if p.is_dir()):
        if (sub / "emulator.csv.gz").exists():
            out += runs_in(sub)
    return out


@dataclass
class Truth:
    """The data direction's dropped and held-back segments, relative to its ISN."""

    sender_connects: bool
    drops: list[tuple[int, int, str | None]]  # (rel_seq, len, where)
    held: list[tuple[int, int]]
    ack_losses: int
    #: Where the hold-back happened: before_mid, after_mid or None (not said).
    reorder_at: str | None = None


def read_truth(run: Run) -> Truth:
    mp = run.truth.get("emulator", {}).get("middle_position", {}).get("a2b", {})
    loss_at, reorder_at = mp.get("loss_at"), mp.get("reorder_at")
    isn = None
    sender_connects = True
    drops, held, ack_losses = [], [], 0
    with gzip.open(run.emulator, "rt") as f:
        for r in csv.DictReader(f):
            if r["dir"] != "a2b" or r["seq"] == "-1":
                if r["dir"] == "b2a" and r["fate"] == "A":
                    ack_losses += 1
                continue
            flags, seq, n = int(r["flags"]), int(r["seq"]), int(r["len"])
            if isn is None and flags & 2:
                isn, sender_connects = seq, not flags & 0x10
            if isn is None or n == 0:
                continue
            rel = (seq - isn) % (1 << 32)
            if r["fate"] in DROPS:
                drops.append((rel, n, "before_mid" if r["fate"] == "Q" else loss_at))
            elif r["fate"] == "R":
                held.append((rel, n))
    return Truth(sender_connects, drops, held, ack_losses, reorder_at)


def rewrites(run: Run) -> set[str]:
    if run.middlebox is None:
        return set()
    with gzip.open(run.middlebox, "rt") as f:
        return {REWRITE_FINDING[r["field"]] for r in csv.DictReader(f) if r["field"] in REWRITE_FINDING}


def score_pair(c: Any, truth: Truth, pair: tuple[str, str], expected_rewrites: set[str]) -> dict[str, Any]:
    """Scores one comparison `c` (tcpdiag.Comparison with fates) of the vantages `pair`."""
    fates = c.fate_table
    main = Counter(fates.column("pair").to_pylist()).most_common(1)
    out: dict[str, Any] = {"pair": "↔".join(pair), "matched": c.matched, "drops": len(truth.drops)}
    if not main:
        out.update(right=0, wrong=0, missed=len(truth.drops), extra=0, held=len(truth.held), held_found=0,
                   rewrites_expected=sorted(expected_rewrites), rewrites_missing=sorted(expected_rewrites))
        return out
    p = main[0][0]
    data_dir = 0 if truth.sender_connects else 1
    rows = [r for r in fates.select(["pair", "dir", "rel_seq", "len", "fate", "late_ms"]).to_pylist()
            if r["pair"] == p and r["dir"] == data_dir]
    losses = defaultdict(list)  # fate → [(start, end, used)]
    for r in rows:
        if r["fate"] in LOSS_FATES:
            losses[r["fate"]].append([r["rel_seq"], r["rel_seq"] + r["len"], False])
    kinds = Counter()
    table = EXPECTED[pair]
    for rel, n, where in truth.drops:
        want = table.get(where)
        if want is None:
            kinds["unscored"] += 1
            continue

        def take(fate: str) -> bool:
            for row in losses[fate]:
                if not row[2] and row[0] < rel + n and rel < row[1]:
                    row[2] = True
                    return True
            return False

        if take(want):
            kinds["right"] += 1
        elif any(take(f) for f in LOSS_FATES if f != want):
            kinds["wrong"] += 1
        else:
            kinds["missed"] += 1
    extra = sum(1 for f in LOSS_FATES for row in losses[f] if not row[2])
    # Distinct lost ranges: the same bytes lost again before the first capture leave no
    # trace but the IPv4 identification (absent in IPv6), so also score each range once.
    distinct = Counter()
    for rel, n, where in set(truth.drops):
        want = table.get(where)
        if want is None:
            continue
        hit = [f for f in LOSS_FATES for row in losses[f] if row[0] < rel + n and rel < row[1]]
        distinct["right" if want in hit else "wrong" if hit else "missed"] += 1
    late = {(r["rel_seq"], r["len"]) for r in rows if r["late_ms"] is not None}
    held = truth.held if pair in REORDER_BETWEEN[truth.reorder_at] else []
    held_found = sum(1 for h in held if h in late)
    found_ids = set(c.finding_table.column("id").to_pylist())
    out.update(right=kinds["right"], wrong=kinds["wrong"], missed=kinds["missed"], unscored=kinds["unscored"],
               ranges=sum(distinct.values()), ranges_right=distinct["right"],
               extra=extra, held=len(held), held_found=held_found,
               rewrites_expected=sorted(expected_rewrites), rewrites_missing=sorted(expected_rewrites - found_ids))
    return out


def evaluate(run: Run, pairs: list[tuple[str, str]] | None = None, timing: bool = False) -> list[dict[str, Any]]:
    import tcpdiag

    truth = read_truth(run)
    mb = rewrites(run)
    results = []
    for pair in pairs or list(EXPECTED):
        if not all(v in run.captures for v in pair):
            continue
        a, b = (str(run.captures[v]) for v in pair)
        t0 = time.perf_counter()
        c = tcpdiag.compare(a, b, fates=True, errors="warn")
        t_cmp = time.perf_counter() - t0
        # Rewrites happen before the middle: between sender and either other vantage.
        r = score_pair(c, truth, pair, mb if pair[0] == "sender" else set())
        r["run"] = run.name
        r["compare_s"] = t_cmp
        if timing:
            t0 = time.perf_counter()
            tcpdiag.analyze(a, errors="warn")
            tcpdiag.analyze(b, errors="warn")
            r["analyse_both_s"] = time.perf_counter() - t0
        results.append(r)
    return results


def totals(results: list[dict[str, Any]]) -> dict[str, Any]:
    by_pair: dict[str, dict[str, Any]] = {}
    for r in results:
        t = by_pair.setdefault(r["pair"], Counter())
        for k in ("drops", "right", "wrong", "missed", "unscored", "extra", "ranges", "ranges_right", "held",
                  "held_found", "compare_s", "analyse_both_s"):
            t[k] += r.get(k, 0)
        t["runs"] += 1
        t["rewrites_expected"] += len(r["rewrites_expected"])
        t["rewrites_missing"] += len(r["rewrites_missing"])
        t["unmatched_runs"] += r["matched"] == 0
    out = {}
    for pair, t in by_pair.items():
        scored = t["right"] + t["wrong"] + t["missed"]
        out[pair] = dict(t, right_share=t["right"] / scored if scored else None,
                         ranges_right_share=t["ranges_right"] / t["ranges"] if t["ranges"] else None,
                         held_share=t["held_found"] / t["held"] if t["held"] else None)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--timing", action="store_true", help="also time analysing both captures")
    ap.add_argument("--json", type=Path, help="write the per-run results and totals here")
    args = ap.parse_args(argv)
    runs = [r for p in args.paths for r in runs_in(p)]
    if not runs:
        print("no run directories found", file=sys.stderr)
        return 2
    results = []
    for run in runs:
        for r in evaluate(run, timing=args.timing):
            results.append(r)
            print(f"{r['run']:>24} {r['pair']:>18}: drops {r['drops']:5} right {r['right']:5} wrong {r['wrong']:3} "
                  f"missed {r['missed']:3} extra {r['extra']:3}  ranges {r.get('ranges_right', 0)}/{r.get('ranges', 0)}  "
                  f"held {r['held_found']}/{r['held']}  "
                  f"rewrites missing {r['rewrites_missing'] or '-'}  {r['compare_s']:.2f}s", flush=True)
    tot = totals(results)
    print(json.dumps(tot, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"results": results, "totals": tot}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

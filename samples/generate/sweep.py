"""Generate sweep runs: `python3 -m samples.generate.sweep --seeds A-B --out DIR [-j1]`.

Each seed is drawn from the declared space (space.py), run through the emulator with real
kernel TCP, and written to DIR/<seed>/ (captures at the sender, the receiver and the path's
midpoint, cut variants, the emulator's logs, truth.json). Finished seeds (truth.json present)
are skipped, so an interrupted sweep resumes. A run whose timing or captures cannot be
trusted is redone, up to ATTEMPTS times; every attempt's problems are recorded, and a run
still dishonest after the last attempt is written with `generated.honest` false (the eval
lists it, never silently drops it).

Needs root, /dev/net/tun, ip and tcpdump; elsewhere it prints "skipped: why" and exits 0.
The seed ranges that fix the tuning / held-out split are in samples/sweep/seeds.json.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate import emulog, netns, run, runner, space, sweep_truth, truth

ATTEMPTS = 3
SEEDS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "sweep", "seeds.json")


def parse_seeds(text: str) -> list[int]:
    """"1-5,9" → [1, 2, 3, 4, 5, 9]; a name from seeds.json ("tuning", "held_out") too."""
    if os.path.exists(SEEDS_FILE):
        with open(SEEDS_FILE) as f:
            named = json.load(f)["ranges"]
        if text in named:
            lo, hi = named[text]["seeds"]
            return list(range(lo, hi + 1))
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def one(seed: int, out: str, names: netns.Names, log) -> dict:
    d = space.draw(seed)
    attempts = []
    for attempt in range(1, ATTEMPTS + 1):
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"{names.prefix}-{seed}-") as work:
            try:
                raw = runner.execute(d["spec"], work, names)
                doc = sweep_truth.build(d, raw)
            except Exception as e:  # a crashed endpoint or emulator: try again
                attempts.append({"attempt": attempt, "problems": [f"run failed: {e}"[:500]],
                                 "elapsed_s": round(time.monotonic() - t0, 1)})
                log(f"{seed} attempt {attempt} failed: {e}"[:300])
                continue
            problems = doc["honesty"]["problems"]
            attempts.append({"attempt": attempt, "problems": problems,
                             "elapsed_s": round(time.monotonic() - t0, 1)})
            if not problems or attempt == ATTEMPTS:
                return sweep_truth.write_run(doc, raw, os.path.join(out, str(seed)), attempts)
            log(f"{seed} attempt {attempt} rejected: {'; '.join(problems)}"[:300])
    raise RuntimeError(f"seed {seed}: every attempt failed: {attempts}")


def finished(out: str, seed: int) -> bool:
    """A run is done when its truth.json exists and was drawn by today's space; a stale one
    (space.py changed since) is redone."""
    path = os.path.join(out, str(seed), "truth.json")
    if not os.path.exists(path):
        return False
    with open(path) as f:
        t = json.load(f)
    if space.draw(seed) == {"spec": t["spec"], "drawn": t["drawn"]}:
        return True
    print(f"{seed}: drawn by an older space, redone", flush=True)
    shutil.rmtree(os.path.dirname(path))
    return False


def relabel(seeds: list[int], out: str) -> int:
    for seed in seeds:
        path = os.path.join(out, str(seed), "truth.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            doc = json.load(f)
        rows = emulog.load(os.path.join(out, str(seed), doc["files"]["emulator_log"]))
        before = {k: v["label"] for k, v in doc["labels"].items()}
        doc["labels"] = sweep_truth.compute_labels(doc, rows)
        after = {k: v["label"] for k, v in doc["labels"].items()}
        with open(path + ".tmp", "w") as f:
            f.write(truth._dump(doc) + "\n")
        os.replace(path + ".tmp", path)
        if before != after:
            print(f"{seed}: {before} -> {after}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", required=True,
                   help="seed ranges like 1000-1099,2000 or a range name from seeds.json")
    p.add_argument("--out", required=True, help="directory of run directories")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="runs at once (default 1: on a 2-core machine more makes runs "
                        "dishonest)")
    p.add_argument("--prefix", default="tdsw", help="namespace/device name prefix")
    p.add_argument("--relabel", action="store_true",
                   help="recompute the labels of finished runs (after a change to label.py); "
                        "no root needed")
    a = p.parse_args(argv)
    seeds = parse_seeds(a.seeds)
    if a.relabel:
        return relabel(seeds, a.out)
    base = netns.Names(a.prefix)
    reason = run.unavailable_reason(base)
    if reason:
        print(f"skipped: {reason}")
        return 0
    os.makedirs(a.out, exist_ok=True)
    todo = [s for s in seeds if not finished(a.out, s)]
    print(f"{len(seeds) - len(todo)} of {len(seeds)} seeds already done; {len(todo)} to run",
          flush=True)
    lock = threading.Lock()
    logf = open(os.path.join(a.out, "sweep.log"), "a")

    def log(msg: str) -> None:
        with lock:
            line = f"{time.strftime('%H:%M:%S')} {msg}"
            print(line, flush=True)
            logf.write(line + "\n")
            logf.flush()

    failed = []
    queue = list(todo)
    started = time.monotonic()

    def worker(k: int) -> None:
        names = netns.Names(f"{a.prefix}{k}") if a.jobs > 1 else base
        while True:
            with lock:
                if not queue:
                    return
                seed = queue.pop(0)
            t0 = time.monotonic()
            try:
                doc = one(seed, a.out, names, log)
            except Exception as e:
                failed.append(seed)
                log(f"{seed} FAILED: {e}"[:400])
                continue
            full = doc["labels"]["full"]
            cut = doc["labels"].get("cut")
            log(f"{seed} {doc['story']:22} -> {full['label']:32} "
                f"{'clear' if full['clear'] else 'unclear'}"
                f"{' cut=' + cut['label'] if cut else ''} "
                f"{'honest' if doc['generated']['honest'] else 'DISHONEST'} "
                f"attempts={len(doc['generated']['attempts'])} "
                f"{time.monotonic() - t0:.0f}s")

    # SIGTERM unwinds like Ctrl-C, so a run's namespaces and processes are cleaned up.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if a.jobs <= 1:
        worker(0)
    else:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(a.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    log(f"done: {len(todo) - len(failed)} runs in {time.monotonic() - started:.0f} s"
        f"{'; failed seeds ' + ','.join(map(str, failed)) if failed else ''}")
    logf.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Dumps what tcpdiag says about a set of captures, so two builds can be compared byte for byte.

    python3 benchmarks/identity.py dump OUT_DIR [--tcpdiag PATH] [--big FILE ...]
    python3 benchmarks/identity.py diff OLD_DIR NEW_DIR

For every capture under samples/ (and each --big file) `dump` writes the SHA-256 of
`tcpdiag analyze --json --all`, `tcpdiag analyze --json --all -j 2`, `tcpdiag flows --format csv`
and `tcpdiag packets --analysis` (CSV) into OUT_DIR/digests.json; small outputs (samples)
are kept in full too, so `diff` can show the first differing line. A speed-up must leave
every digest unchanged. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEEP_BELOW = 4 << 20  # outputs kept in full when smaller than this

VIEWS = {
    "analyze": ["analyze", "--json", "--all", "{file}"],
    "analyze-j2": ["analyze", "--json", "--all", "-j", "2", "{file}"],
    "flows": ["flows", "--format", "csv", "{file}"],
    "packets": ["packets", "--analysis", "{file}"],
}


def captures() -> list[Path]:
    pats = ("*.pcap", "*.pcap.gz", "*.pcapng", "*.pcapng.gz", "*.etl", "*.snoop", "*.cap")
    found = {p for pat in pats for p in (ROOT / "samples").rglob(pat)}
    return sorted(found)


def dump(out: Path, tcpdiag: str, big: list[str], samples: bool = True) -> None:
    out.mkdir(parents=True, exist_ok=True)
    digests: dict[str, dict[str, str]] = {}
    for cap in [*(captures() if samples else []), *map(Path, big)]:
        name = str(cap.relative_to(ROOT)) if cap.is_relative_to(ROOT) else str(cap)
        digests[name] = {}
        for view, args in VIEWS.items():
            cmd = [tcpdiag, *(str(cap) if a == "{file}" else a for a in args)]
            p = subprocess.run(cmd, capture_output=True)
            h = hashlib.sha256(p.stdout)
            h.update(f"exit {p.returncode}".encode())
            digests[name][view] = h.hexdigest()
            if len(p.stdout) < KEEP_BELOW:
                keep = out / "full" / (name.replace("/", "__") + "." + view)
                keep.parent.mkdir(exist_ok=True)
                keep.write_bytes(p.stdout)
        # Written after every capture: an interrupted dump keeps what it did.
        (out / "digests.json").write_text(json.dumps(digests, indent=1, sort_keys=True))
        print(f"{name}: done", file=sys.stderr)


def diff(old: Path, new: Path) -> int:
    a = json.loads((old / "digests.json").read_text())
    b = json.loads((new / "digests.json").read_text())
    bad = 0
    for name in sorted(set(a) | set(b)):
        for view in VIEWS:
            x, y = a.get(name, {}).get(view), b.get(name, {}).get(view)
            if x == y:
                continue
            bad += 1
            print(f"DIFFERS {name} {view}")
            fa = old / "full" / (name.replace("/", "__") + "." + view)
            fb = new / "full" / (name.replace("/", "__") + "." + view)
            if fa.exists() and fb.exists():
                la, lb = fa.read_text().splitlines(), fb.read_text().splitlines()
                for i, (u, v) in enumerate(zip(la, lb)):
                    if u != v:
                        print(f"  line {i + 1}:\n  - {u[:300]}\n  + {v[:300]}")
                        break
                else:
                    print(f"  lengths {len(la)} vs {len(lb)}")
    checked = sum(len(v) for v in b.values())
    print(f"{checked} outputs compared, {bad} differ")
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--tcpdiag", default=str(ROOT / ".venv/bin/tcpdiag"))
    d.add_argument("--big", action="append", default=[], help="a further capture (repeatable)")
    d.add_argument("--no-samples", action="store_true", help="only the --big captures")
    f = sub.add_parser("diff")
    f.add_argument("old", type=Path)
    f.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.out, args.tcpdiag, args.big, not args.no_samples)
    else:
        sys.exit(diff(args.old, args.new))


if __name__ == "__main__":
    main()

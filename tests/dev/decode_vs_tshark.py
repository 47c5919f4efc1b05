#!/usr/bin/env python3
"""Dev check: our decoder vs tshark, frame by frame, over a directory of captures.

Not a unit test: needs tshark (4.0) and the shared corpus, which is not in the repository.
tshark supplies each frame's raw bytes (`-T json -x`, `frame_raw`), its encapsulation and
wire length, and the reference fields; `decode_hex` (analyzer/core/examples) decodes the
same bytes. The ingest layer is not involved, so this isolates the decode layer.

    CARGO_TARGET_DIR=/work/target-decode cargo build --release -p tcpdiag-core --example decode_hex
    python3 tests/dev/decode_vs_tshark.py /work/shared/corpus [--bin PATH] [-v]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

# Wireshark WTAP_ENCAP_* -> LINKTYPE_* for the encapsulations we decode.
WTAP_TO_LINKTYPE = {1: 1, 4: 9, 6: 10, 7: 101, 15: 0, 20: 105, 25: 113, 174: 108, 210: 276}
FIELDS = ["frame.number", "frame.encap_type", "frame.len", "frame.protocols",
          "tcp.srcport", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.len",
          "tcp.flags", "tcp.window_size_value", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst"]
COMPARED = ["sport", "dport", "seq", "ack", "len", "flags", "window", "src", "dst"]
RAW_RE = re.compile(r'"frame_raw":\s*\[\s*"([0-9a-f]*)"')
CAPTURE_EXT = (".pcap", ".pcapng", ".gz", ".snp", ".dmp", ".epeek", ".cap")


def tshark_fields(path):
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def tshark_raw(path):
    out = subprocess.run(["tshark", "-n", "-r", path, "-T", "json", "-x"],
                         capture_output=True, text=True).stdout
    return RAW_RE.findall(out)


def last(v):
    return v.split(",")[-1] if v else ""


def reference(row):
    d = dict(zip(FIELDS, row + [""] * (len(FIELDS) - len(row))))
    if not d["tcp.srcport"]:
        return d, None
    ref = {
        "sport": last(d["tcp.srcport"]), "dport": last(d["tcp.dstport"]),
        "seq": last(d["tcp.seq_raw"]), "ack": last(d["tcp.ack_raw"]),
        "len": last(d["tcp.len"]),
        "flags": str(int(last(d["tcp.flags"]), 16)) if d["tcp.flags"] else "",
        "window": last(d["tcp.window_size_value"]),
        "v4": (last(d["ip.src"]), last(d["ip.dst"])),
        "v6": (last(d["ipv6.src"]), last(d["ipv6.dst"])),
        "layers": d["tcp.srcport"].count(",") + 1,
    }
    return d, ref


def compare_file(path, binary, verbose):
    rows = tshark_fields(path)
    raws = tshark_raw(path)
    if len(rows) != len(raws):
        return {"error": f"tshark gave {len(rows)} field rows but {len(raws)} raw frames"}, []
    lines, skipped = [], collections.Counter()
    for row, raw in zip(rows, raws):
        encap = int(row[1]) if row[1].lstrip("-").isdigit() else -1
        lt = WTAP_TO_LINKTYPE.get(encap, 4294967295)
        lines.append(f"{lt} {row[2]} {raw}")
    out = subprocess.run([binary], input="\n".join(lines) + "\n", capture_output=True,
                         text=True).stdout.splitlines()
    stats = collections.Counter(frames=len(rows))
    notes = []
    for row, ours in zip(rows, out):
        d, ref = reference(row)
        o = ours.split("\t")
        num, protos = d["frame.number"], d["frame.protocols"]
        if ref is None and o[0] == "other":
            stats["both_not_tcp"] += 1
            continue
        if ref is None:
            stats["extra_ours"] += 1
            notes.append((f"ours-only", num, protos, ours))
            continue
        if o[0] == "other":
            if {"icmp", "icmpv6"} & set(protos.split(":")):
                kind = "icmp-quoted"
            elif "Fragment" in ours:
                kind = "ip-fragment"
            else:
                kind = "missing-ours"
            stats[kind] += 1
            notes.append((kind, num, protos, ours))
            continue
        got = dict(zip(["src", "dst", "sport", "dport", "seq", "ack", "len", "flags", "window", "depth"], o[1:]))
        want_ip = ref["v4"] if ":" not in got["src"] else ref["v6"]
        want = dict(ref, src=want_ip[0], dst=want_ip[1])
        bad = [k for k in COMPARED if got[k] != want[k]]
        if ref["layers"] > 1:
            stats["multi_tcp_layers"] += 1
        if bad:
            stats["field-mismatch"] += 1
            notes.append(("field-mismatch", num, protos,
                          " ".join(f"{k}: ours={got[k]} tshark={want[k]}" for k in bad)))
        else:
            stats["match"] += 1
    return stats, notes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--bin", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"),
                                                  "release/examples/decode_hex"))
    ap.add_argument("-v", action="store_true", help="print every differing frame")
    args = ap.parse_args()
    files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(args.root) for f in fs
                   if f.endswith(CAPTURE_EXT))
    total = collections.Counter()
    for path in files:
        stats, notes = compare_file(path, args.bin, args.v)
        rel = os.path.relpath(path, args.root)
        if "error" in stats:
            print(f"{rel}: ERROR {stats['error']}")
            continue
        total.update(stats)
        total["files"] += 1
        diffs = {k: v for k, v in stats.items() if k not in ("frames", "match", "both_not_tcp")}
        print(f"{rel}: frames={stats['frames']} match={stats['match']} {diffs if diffs else ''}")
        shown = collections.Counter()
        for kind, num, protos, what in notes:
            shown[kind] += 1
            if args.v or shown[kind] <= 3:
                print(f"    {kind} frame {num} [{protos}] {what}")
    print("TOTAL", dict(total))


if __name__ == "__main__":
    sys.exit(main())

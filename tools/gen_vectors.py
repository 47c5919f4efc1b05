#!/usr/bin/env python3
"""Generates the shared test vectors of the Wireshark plugin (tests/vectors/).

For each vector: a capture (a sample, cut to its first frames), the per-frame fields the
plugin reads from Wireshark (`NAME.input.tsv.gz`, extracted with tshark), what the Rust
engine says about each frame (`NAME.expected.csv.gz`, `tcpdiag packets --analysis`) and
each flow's verdict (`NAME.verdicts.json`, `tcpdiag.analyze`). The Lua core must reproduce
the last two from the first (tests/test_wireshark_vectors.py).

    python3 tools/gen_vectors.py            # regenerate the committed sample vectors
    python3 tools/gen_vectors.py --check    # exit 1 if they differ from the engine now

Generated files: do not edit; regenerate after any change to analyzer/core/src/analyse/.
Corpus vectors are made the same way at test time (`make_vector`), never committed.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "vectors"

# name: (capture, frames kept). Kept small; each shows one analysis family.
SAMPLE_VECTORS = {
    "reordering.sender": ("samples/reordering.sender.pcap.gz", 2905),      # DSACK, spurious, RACK
    "reordering.receiver": ("samples/reordering.receiver.pcap.gz", 2905),  # late originals
    "random_loss.sender": ("samples/random_loss.sender.pcap.gz", 2637),    # fast/rto/tlp, SACK pipe
    "random_loss.receiver": ("samples/random_loss.receiver.pcap.gz", 2622),  # lagged view, gaps
    "small_rcvbuf.sender": ("samples/small_rcvbuf.sender.pcap.gz", 3000),  # rwnd limited
    "wscale_off.receiver": ("samples/wscale_off.receiver.pcap.gz", 3000),  # not negotiated
    "slow_reader.sender": ("samples/slow_reader.sender.pcap.gz", 6184),    # zero windows, probes
    "app_limited.sender": ("samples/app_limited.sender.pcap.gz", 4082),    # app limited
    # The handshake cut off: window scale inferred from the flight.
    "small_rcvbuf.midstream": ("samples/small_rcvbuf.receiver.pcap.gz", (200, 2600)),
}

#: What the plugin extracts per frame, in this order (wireshark-plugin/tcpdiag.lua, "extractors").
TSHARK_FIELDS = [
    "frame.number", "frame.time_epoch", "tcp.stream", "frame.protocols", "ip.src", "ip.dst", "ipv6.src",
    "ipv6.dst", "tcp.srcport", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.ack", "tcp.len", "tcp.flags",
    "tcp.window_size_value", "tcp.options.mss_val", "tcp.options.wscale.shift", "tcp.options.sack_le",
    "tcp.options.sack_re", "tcp.options.timestamp.tsval", "tcp.options.timestamp.tsecr", "ip.id",
    "ip.flags.mf", "ip.frag_offset", "ipv6.fraghdr.offset", "ipv6.fraghdr.more",
]
INPUT_COLUMNS = ["frame", "time", "stream", "kind", "src", "sport", "dst", "dport", "seq", "ack", "len", "flags",
                 "window", "mss", "wscale", "sack", "tsval", "tsecr", "ipv", "ip_id"]
MAX_SACK_BLOCKS = 4


def tshark_exe() -> str:
    exe = shutil.which("tshark")
    if exe is None:
        raise SystemExit("tshark not found (apt-get install tshark)")
    return exe


def tcpdiag_exe() -> list[str]:
    venv = ROOT / ".venv" / "bin" / "tcpdiag"
    if venv.exists():
        return [str(venv)]
    here = Path(sys.executable).parent / "tcpdiag"
    return [str(here)] if here.exists() else [sys.executable, "-m", "tcpdiag.cli"]


def _last(v: str) -> str:
    return v.split(",")[-1] if v else ""


def frame_kind(protocols: list[str], streams: str, frag: bool) -> str:
    """tcp: analysed; quoted: a TCP header inside an ICMP error (opens a flow, nothing
    else); skip: what the engine does not analyse (several TCP layers, IP fragments)."""
    if "icmp" in protocols or "icmpv6" in protocols:
        return "quoted"
    if "," in streams or frag:
        return "skip"
    return "tcp"


def input_rows(capture: Path) -> list[list[str]]:
    """One input row per frame with TCP, as the plugin sees it (raw SACK edges)."""
    cmd = [tshark_exe(), "-n", "-r", str(capture), "-Y", "tcp", "-T", "fields", "-E", "separator=/t",
           "-E", "occurrence=a", "-E", "aggregator=,"] + [x for f in TSHARK_FIELDS for x in ("-e", f)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900).stdout
    rows = []
    for line in out.splitlines():
        v = dict(zip(TSHARK_FIELDS, line.split("\t")))
        protocols = v["frame.protocols"].split(":")
        # The innermost network layer carries the TCP segment.
        net = [p for p in protocols[:protocols.index("tcp")] if p in ("ip", "ipv6")] if "tcp" in protocols else []
        v6 = bool(net) and net[-1] == "ipv6"
        src = _last(v["ipv6.src"] if v6 else v["ip.src"])
        dst = _last(v["ipv6.dst"] if v6 else v["ip.dst"])
        frag = (_last(v["ip.flags.mf"]) in ("1", "True") or _last(v["ip.frag_offset"]) not in ("", "0")
                or _last(v["ipv6.fraghdr.offset"]) not in ("", "0") or _last(v["ipv6.fraghdr.more"]) in ("1", "True"))
        kind = frame_kind(protocols, v["tcp.stream"], frag)
        sack = ""
        if v["tcp.options.sack_le"] and v["tcp.ack"]:
            off = int(_last(v["tcp.ack_raw"])) - int(_last(v["tcp.ack"]))
            les = v["tcp.options.sack_le"].split(",")[:MAX_SACK_BLOCKS]
            res = v["tcp.options.sack_re"].split(",")[:MAX_SACK_BLOCKS]
            sack = ",".join(f"{(int(a) + off) % 2**32}:{(int(b) + off) % 2**32}" for a, b in zip(les, res))
        flags = _last(v["tcp.flags"])
        rows.append([
            v["frame.number"], v["frame.time_epoch"], _last(v["tcp.stream"]), kind, src, _last(v["tcp.srcport"]),
            dst, _last(v["tcp.dstport"]), _last(v["tcp.seq_raw"]), _last(v["tcp.ack_raw"]), _last(v["tcp.len"]),
            str(int(flags, 16)) if flags else "0", _last(v["tcp.window_size_value"]), _last(v["tcp.options.mss_val"]),
            _last(v["tcp.options.wscale.shift"]), sack, _last(v["tcp.options.timestamp.tsval"]),
            _last(v["tcp.options.timestamp.tsecr"]), "6" if v6 else "4", "" if v6 else _last(v["ip.id"]),
        ])
    return rows


def input_tsv(capture: Path) -> str:
    buf = io.StringIO()
    buf.write("\t".join(INPUT_COLUMNS) + "\n")
    for r in input_rows(capture):
        buf.write("\t".join(r) + "\n")
    return buf.getvalue()


def expected_csv(capture: Path) -> str:
    res = subprocess.run([*tcpdiag_exe(), "packets", "--analysis", str(capture)], capture_output=True, text=True,
                         timeout=900)
    if res.returncode not in (0, 5):
        raise RuntimeError(f"tcpdiag packets --analysis {capture}: {res.stderr.strip()}")
    return res.stdout


def verdicts(capture: Path) -> list[dict]:
    """Each flow's findings as tcpdiag.analyze gives them (id, share, frames, message)."""
    code = (
        "import json, sys, tcpdiag\n"
        "a = tcpdiag.analyze(sys.argv[1], errors='ignore')\n"
        "out = [{'stream': v.stream, 'data_dir': v.data_dir, 'vantage': v.vantage,"
        " 'findings': [{'id': f.id, 'share': f.share, 'frames': f.frames, 'message': f.message}"
        " for f in v.findings]} for v in a.verdicts.values()]\n"
        "json.dump(out, sys.stdout, indent=1)\n"
    )
    py = ROOT / ".venv" / "bin" / "python"
    res = subprocess.run([str(py) if py.exists() else sys.executable, "-c", code, str(capture)],
                         capture_output=True, text=True, timeout=900)
    if res.returncode != 0:
        raise RuntimeError(res.stderr)
    return json.loads(res.stdout)


def vector_capture(name: str, tmp: Path) -> tuple[Path, int | None]:
    """The capture a committed vector was made from, and the last frame it covers (None:
    all of it). A prefix is the sample itself (the analysis is causal)."""
    src, frames = SAMPLE_VECTORS[name]
    if isinstance(frames, int):
        return ROOT / src, frames
    pcap = VECTORS / f"{name}.pcap.gz"
    return pcap, None


def cut(src: Path, frames, dst: Path) -> Path:
    """The capture reduced to frames `frames` (a count from 1, or an inclusive range)."""
    lo, hi = (1, frames) if isinstance(frames, int) else frames
    subprocess.run(["editcap", "-r", str(src), str(dst), f"{lo}-{hi}"], check=True,
                   capture_output=True)
    return dst


def make_vector(capture: Path) -> dict[str, str]:
    """The three parts of a vector for one capture (used for corpus files at test time)."""
    return {
        "input": input_tsv(capture),
        "expected": expected_csv(capture),
        "verdicts": json.dumps(verdicts(capture), indent=1) + "\n",
    }


def _gz(text: str) -> bytes:
    return gzip.compress(text.encode(), mtime=0)


def generate(check: bool) -> int:
    VECTORS.mkdir(parents=True, exist_ok=True)
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (src, frames) in SAMPLE_VECTORS.items():
            pcap = cut(ROOT / src, frames, Path(tmp) / f"{name}.pcap")
            parts = make_vector(pcap)
            files = {
                VECTORS / f"{name}.input.tsv.gz": _gz(parts["input"]),
                VECTORS / f"{name}.expected.csv.gz": _gz(parts["expected"]),
                VECTORS / f"{name}.verdicts.json": parts["verdicts"].encode(),
            }
            if not isinstance(frames, int):
                # Renumbered frames: keep the cut capture (a prefix is re-cut from the sample).
                files[VECTORS / f"{name}.pcap.gz"] = gzip.compress(pcap.read_bytes(), mtime=0)
            for path, data in files.items():
                if check:
                    old = path.read_bytes() if path.exists() else b""
                    if path.name.endswith(".gz"):
                        same = old and gzip.decompress(old) == gzip.decompress(data)
                    else:
                        same = old == data
                    if not same:
                        stale.append(path.name)
                else:
                    path.write_bytes(data)
    if stale:
        print("stale vectors (run python3 tools/gen_vectors.py):", *stale, file=sys.stderr)
        return 1
    return 0


def read_expected(path: Path) -> list[dict[str, str]]:
    text = gzip.decompress(path.read_bytes()).decode() if path.name.endswith(".gz") else path.read_text()
    return list(csv.DictReader(io.StringIO(text)))


if __name__ == "__main__":
    sys.exit(generate("--check" in sys.argv))

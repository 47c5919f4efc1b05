"""One sweep run's raw material → its directory: captures at three vantages (and cut
variants), the emulator's logs, and truth.json (spec, labels, kernel series, honesty)."""

import datetime
import gzip
import os
import platform
import shutil

from samples.generate import emulog, label, pcap, run, truth
from samples.generate.emulog import percentiles
from samples.generate.packet import ACK, SYN, parse_ip_tcp

VANTAGES = ("sender", "receiver", "middle")
MAX_SAMPLE_GAP_MS = 50  # a TCP_INFO sampler starved longer than this is not trusted
SENDER_FIELDS = [
    "t0_ns", "t_ns", "state", "ca_state", "options", "snd_wscale", "rcv_wscale",
    "delivery_rate_app_limited", "snd_mss", "pmtu", "unacked", "sacked", "lost", "retrans",
    "rtt", "min_rtt", "snd_ssthresh", "snd_cwnd", "reordering", "total_retrans",
    "bytes_sent", "bytes_acked", "bytes_retrans", "notsent_bytes", "busy_time", "rwnd_limited",
    "sndbuf_limited", "dsack_dups", "reord_seen", "snd_wnd", "total_rto", "probes",
    "pacing_rate", "delivery_rate", "sk_sndbuf", "bbr_bw", "bbr_pacing_gain", "bbr_cwnd_gain",
]
RECEIVER_FIELDS = ["t0_ns", "t_ns", "state", "options", "rcv_wnd", "inq", "sk_rcvbuf",
                   "rcv_space", "rcv_ssthresh", "bytes_received", "rcv_ooopack"]


def _read(path: str):
    return [(ts, seg) for ts, _, raw in pcap.read(path) if (seg := parse_ip_tcp(raw))]


def handshake(cap) -> dict:
    """Both handshake segments of a capture, who sent each and its options (as captured)."""
    out = {}
    for name, want in (("syn", SYN), ("synack", SYN | ACK)):
        seg = next((s for _, s in cap if s.flags & (SYN | ACK) == want), None)
        if seg is None:
            out[name] = {"wscale": None, "mss": None, "seen": False}
            continue
        opts = truth._options(seg.options)
        out[name] = {"seen": True, "src": [seg.src, seg.sport], "dst": [seg.dst, seg.dport],
                     "isn": seg.seq, "mss": int.from_bytes(opts[2], "big") if 2 in opts else None,
                     "wscale": opts[3][0] if 3 in opts else None,
                     "sack_permitted": 4 in opts, "timestamps": 8 in opts}
    return out


def _data_sender(hs: dict, listen: str) -> tuple[list, int]:
    """(address as seen, ISN) of the data sender in one capture's handshake."""
    seg = hs["synack"] if listen == "sender" else hs["syn"]
    return seg["src"], seg["isn"]


def kernel_series(snd: dict) -> dict:
    """What the eval compares against, per sender TCP_INFO sample: bytes in flight
    ((unacked − sacked − lost + retrans) × snd_mss), cwnd in bytes, and whether the window
    limited sending (flight ≥ cwnd − 1 and the peer's window not binding)."""
    out = {k: snd[k] for k in ("t0_ns", "t_ns", "ca_state", "snd_wnd", "busy_time",
                               "rwnd_limited", "sndbuf_limited")}
    flight, cwnd, limited = [], [], []
    for i in range(len(snd["t_ns"])):
        mss = snd["snd_mss"][i]
        pkts = snd["unacked"][i] - snd["sacked"][i] - snd["lost"][i] + snd["retrans"][i]
        flight.append(pkts * mss)
        cwnd.append(snd["snd_cwnd"][i] * mss)
        limited.append(int(snd["unacked"][i] > 0 and pkts >= snd["snd_cwnd"][i] - 1
                           and (snd["unacked"][i] + 1) * mss <= snd["snd_wnd"][i]))
    return {**out, "in_flight_bytes": flight, "cwnd_bytes": cwnd, "cwnd_limited": limited}


def middle_position(spec: dict) -> dict:
    return {d: {"after": "the bottleneck FIFO and the first half of the one-way delay",
                "delay_to_mid_ms": round(spec[d]["delay_ms"] / 2, 3),
                "delay_after_mid_ms": round(spec[d]["delay_ms"] / 2, 3),
                "reorder_at": spec[d].get("reorder_at", "after_mid") if spec[d].get("reorder")
                else None,
                "loss_at": spec[d].get("loss_at", "before_mid") if spec[d].get("loss") else None}
            for d in ("a2b", "b2a")}


def build(draw: dict, raw: dict) -> dict:
    spec, drawn = draw["spec"], draw["drawn"]
    listen = spec.get("listen", "receiver")
    snd, rcv = raw["sender"]["tcp_info"], raw["receiver"]["tcp_info"]
    caps = {"sender": _read(raw["paths"]["snd_pcap"]),
            "receiver": _read(raw["paths"]["rcv_pcap"]),
            "middle": _read(raw["paths"]["mid_pcap"])}
    hs = {v: handshake(c) for v, c in caps.items()}
    seen = {}
    for v in VANTAGES:
        src, isn = _data_sender(hs[v], listen)
        other = hs[v]["syn"]["dst"] if listen == "receiver" else hs[v]["synack"]["dst"]
        seen[v] = {"sender": src, "receiver": other, "sender_isn": isn}
    rows = emulog.load(raw["paths"]["emu_log"])
    emu = emulog.summarise(rows, "a2b", seen["sender"]["sender_isn"], with_times=True)
    a2b = [r for r in rows if r["dir"] == "a2b"]
    b2a = [r for r in rows if r["dir"] == "b2a"]
    s_ip, r_ip = seen["sender"]["sender"][0], seen["receiver"]["receiver"][0]
    emu["ingress_lateness"] = percentiles(truth.match_lateness(caps["sender"], a2b, s_ip, True)
                                          + truth.match_lateness(caps["receiver"], b2a, r_ip, True))
    emu["egress_lateness"] = percentiles(
        truth.match_lateness(caps["receiver"], a2b, seen["receiver"]["sender"][0], False)
        + truth.match_lateness(caps["sender"], b2a, seen["sender"]["receiver"][0], False))
    emu.update(raw["emulator"])
    emu["middle_position"] = middle_position(spec)

    data_src = {v: seen[v]["sender"][0] for v in VANTAGES}
    captures = {}
    for v, cap in caps.items():
        captures[v] = {"packets": len(cap),
                       "data_packets": sum(s.payload > 0 for _, s in cap if s.src == data_src[v]),
                       "first_ns": cap[0][0] if cap else None, "last_ns": cap[-1][0] if cap else None,
                       "as_seen": seen[v], "handshake": hs[v]}
        if v != "middle":
            captures[v].update(tcpdump=raw["tcpdump"][v], tun_link=raw["links"][v])
    captures["middle"]["in_emulator_log"] = sum(1 for r in rows if r["t_mid_ns"] and r["seq"] >= 0)
    at_rcv = [(ts, s.payload) for ts, s in caps["receiver"] if s.src == data_src["receiver"]
              and s.payload > 0]
    span = (at_rcv[-1][0] - at_rcv[0][0]) / 1e9 if len(at_rcv) > 1 else 0
    goodput = round(raw["receiver"]["bytes"] * 8 / span / 1e6, 3) if span else 0.0

    write_end = raw["sender"]["write_end_ns"]
    gaps = [(b - a) / 1e6 for a, b in zip(snd["t_ns"], snd["t_ns"][1:])
            if b <= write_end]
    doc = {
        "seed": spec["seed"], "space_version": drawn["space_version"],
        "story": drawn["story"], "drawn": drawn, "spec": spec,
        "flow": {"family": spec["family"], "listen": listen, "mss": snd["snd_mss"][-1],
                 "congestion_control": raw["sender"]["congestion_control"],
                 "as_seen": seen},
        "effective": {"sndbuf": raw["sender"]["sndbuf_effective"],
                      "rcvbuf": raw["receiver"]["rcvbuf_effective"],
                      "sysctls": raw["sysctls"]},
        "result": {"bytes_written": raw["sender"]["bytes"],
                   "bytes_received": raw["receiver"]["bytes"], "goodput_mbit": goodput,
                   "blocked_sends": raw["sender"]["blocked_sends"],
                   "requests": raw["sender"].get("requests", 0), "write_end_ns": write_end,
                   "max_sample_gap_ms": round(max(gaps, default=0), 1)},
        "captures": captures,
        "emulator": emu,
        "series": kernel_series(snd),
        "tcp_info": {"sender": truth.pick_columns(snd, SENDER_FIELDS),
                     "receiver": truth.pick_columns(rcv, RECEIVER_FIELDS)},
    }
    doc["labels"] = compute_labels(doc, rows)
    doc["honesty"] = {"problems": problems(doc)}
    return doc


def compute_labels(doc: dict, rows: list[dict]) -> dict:
    """The labels of the whole connection and, for a cut run, of the cut interval, from the
    truth document and the emulator log alone (so they can be checked and recomputed)."""
    snd = doc["tcp_info"]["sender"]
    ctx = {"snd": snd, "rcv": doc["tcp_info"]["receiver"], "spec": doc["spec"],
           "drawn": doc["drawn"], "sysctls": doc["effective"]["sysctls"],
           "write_end_ns": doc["result"]["write_end_ns"], "emu": doc["emulator"],
           "handshake": {v: doc["captures"][v]["handshake"] for v in ("sender", "receiver")},
           "link_busy": lambda a, b: label.link_busy(rows, doc["spec"]["a2b"], a, b)}
    start, end = snd["t_ns"][0], snd["t_ns"][-1]
    intervals = {"full": (start, end)}
    if doc["drawn"].get("cut_at_s") is not None:
        intervals["cut"] = (start + int(doc["drawn"]["cut_at_s"] * 1e9), end)
    out = {}
    for name, (a, b) in intervals.items():
        e = label.evidence(ctx, a, b)
        out[name] = {**label.label(e, doc["spec"], doc["drawn"]), "start_ns": a, "end_ns": b,
                     "evidence": e}
    return out


def problems(doc: dict) -> list[str]:
    """run.py's timing and capture checks, plus what a sweep run must also get right."""
    out = run.honesty_problems(doc)
    mid = doc["captures"]["middle"]
    if mid["packets"] != mid["in_emulator_log"]:
        out.append(f"middle capture has {mid['packets']} packets, the emulator passed "
                   f"{mid['in_emulator_log']} TCP packets through the midpoint")
    if doc["result"]["bytes_received"] != doc["result"]["bytes_written"]:
        out.append(f"received {doc['result']['bytes_received']} of "
                   f"{doc['result']['bytes_written']} bytes written")
    if doc["result"]["max_sample_gap_ms"] > MAX_SAMPLE_GAP_MS:
        out.append(f"sender TCP_INFO sampling stalled {doc['result']['max_sample_gap_ms']} ms")
    full = doc["labels"]["full"]
    if full["primary"] == "app-limited" and full["subtype"] == "writer":
        out.append("a bulk writer looked application-limited to the kernel")
    if not all(hs["syn"]["seen"] and hs["synack"]["seen"]
               for hs in (c["handshake"] for c in doc["captures"].values())):
        out.append("a capture lacks a handshake segment")
    return out


def _gzip_to(src: str, dest: str) -> None:
    with open(src, "rb") as f, open(dest, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as g:
        shutil.copyfileobj(f, g)


def _cut(src: str, dest: str, t_cut: int) -> int:
    tmp = dest + ".tmp"
    n = pcap.write(tmp, ((ts, data, length) for ts, length, data in pcap.read(src)
                         if ts >= t_cut), 128)
    _gzip_to(tmp, dest)
    os.remove(tmp)
    return n


def write_run(doc: dict, raw: dict, outdir: str, attempts: list) -> dict:
    """Write the run's files into `outdir` (created); truth.json last, so its presence
    marks a finished run."""
    os.makedirs(outdir, exist_ok=True)
    files = {}
    for v, key in (("sender", "snd_pcap"), ("receiver", "rcv_pcap"), ("middle", "mid_pcap")):
        files[v] = f"{v}.pcap.gz"
        _gzip_to(raw["paths"][key], os.path.join(outdir, files[v]))
        if "cut" in doc["labels"]:
            name = f"{v}.cut.pcap.gz"
            doc["captures"][v]["cut_packets"] = _cut(raw["paths"][key],
                                                     os.path.join(outdir, name),
                                                     doc["labels"]["cut"]["start_ns"])
            files[f"{v}_cut"] = name
    shutil.copyfile(raw["paths"]["emu_log"], os.path.join(outdir, "emulator.csv.gz"))
    files["emulator_log"] = "emulator.csv.gz"
    if os.path.exists(raw["paths"]["box_log"]):
        shutil.copyfile(raw["paths"]["box_log"], os.path.join(outdir, "middlebox.csv.gz"))
        files["middlebox_log"] = "middlebox.csv.gz"
    doc["files"] = files
    doc["generated"] = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kernel": platform.release(), "python": platform.python_version(),
        "attempts": attempts, "honest": not doc["honesty"]["problems"]}
    tmp = os.path.join(outdir, "truth.json.tmp")
    with open(tmp, "w") as f:
        f.write(truth._dump(doc) + "\n")
    os.replace(tmp, os.path.join(outdir, "truth.json"))
    return doc

"""Turn one run's raw material into the committed sample: captures, emulator log, truth.json."""

import datetime
import gzip
import json
import os
import platform
import shutil
from collections import defaultdict, deque

from samples.generate import emulog, pcap, verdict
from samples.generate.emulog import percentiles
from samples.generate.packet import ACK, SYN, parse_ip_tcp

# Header-only captures shrink ~5x under gzip; tshark, Wireshark and tcpdiag read .pcap.gz
# directly (tcpdump: `zcat F | tcpdump -r -`). mtime=0 keeps regenerated files byte-stable.
GZIP_MTIME = 0
DATA_DIR, ACK_DIR = "a2b", "b2a"  # emulator directions: a = sender's TUN

SENDER_FIELDS = [
    "t_ns", "state", "ca_state", "retransmits", "probes", "backoff", "options", "snd_wscale",
    "rcv_wscale", "delivery_rate_app_limited", "rto", "snd_mss", "rcv_mss", "unacked", "sacked",
    "lost", "retrans", "rtt", "rttvar", "snd_ssthresh", "snd_cwnd", "reordering",
    "total_retrans", "pacing_rate", "bytes_acked", "segs_out", "segs_in", "notsent_bytes",
    "min_rtt", "data_segs_out", "delivery_rate", "busy_time", "rwnd_limited", "sndbuf_limited",
    "delivered", "bytes_sent", "bytes_retrans", "dsack_dups", "reord_seen", "snd_wnd",
    "total_rto", "total_rto_recoveries",
]
RECEIVER_FIELDS = [
    "t_ns", "state", "options", "snd_wscale", "rcv_wscale", "ato", "rcv_mss", "rcv_ssthresh",
    "rcv_rtt", "rcv_space", "bytes_received", "segs_in", "data_segs_in", "rcv_ooopack",
    "rcv_wnd", "last_data_recv",
]


def _options(raw: bytes) -> dict:
    """TCP options by kind (RFC 9293 3.2): MSS=2, window scale=3, SACK-permitted=4, TS=8."""
    out, i = {}, 0
    while i < len(raw):
        kind = raw[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(raw) or raw[i + 1] < 2:
            break
        out[kind] = raw[i + 2:i + raw[i + 1]]
        i += raw[i + 1]
    return out


def _handshake(segs) -> dict:
    syn = next(s for _, s in segs if s.flags & SYN and not s.flags & ACK)
    synack = next(s for _, s in segs if s.flags & SYN and s.flags & ACK)
    out = {"isn_sender": syn.seq, "isn_receiver": synack.seq}
    for name, seg in (("syn", syn), ("synack", synack)):
        opts = _options(seg.options)
        out[name] = {"mss": int.from_bytes(opts[2], "big") if 2 in opts else None,
                     "wscale": opts[3][0] if 3 in opts else None,
                     "sack_permitted": 4 in opts, "timestamps": 8 in opts}
    return out


def _read_capture(path: str):
    return [(ts, seg) for ts, _, raw in pcap.read(path) if (seg := parse_ip_tcp(raw))]


def match_lateness(capture, rows, src: str, cap_is_before: bool) -> list[int]:
    """Time between a packet's capture stamp and the emulator's read/write of the same packet."""
    # (ip_id, seq, ack, len, flags) tells packets apart; repeats are matched first-in first-out.
    pending = defaultdict(deque)
    for ts, s in capture:
        if s.src == src:
            pending[(s.ip_id, s.seq, s.ack, s.payload, s.flags)].append(ts)
    out = []
    for r in rows:
        q = pending.get((r["ip_id"], r["seq"], r["ack"], r["len"], r["flags"]))
        if not q:
            continue
        if cap_is_before:
            out.append(r["t_in_ns"] - q.popleft())
        elif r["t_out_ns"]:
            out.append(q.popleft() - r["t_out_ns"])
    return out


def pick_columns(series: dict, fields: list[str]) -> dict:
    return {k: series[k] for k in fields if k in series}


def _gzip_to(src: str, dest: str) -> str:
    with open(src, "rb") as f, open(dest, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=GZIP_MTIME) as g:
        shutil.copyfileobj(f, g)
    return dest


def build(sc, raw: dict) -> dict:
    snd, rcv = raw["sender"], raw["receiver"]
    s_ip, s_port = snd["local"]
    r_ip, r_port = snd["peer"]
    snd_cap = _read_capture(raw["paths"]["snd_pcap"])
    rcv_cap = _read_capture(raw["paths"]["rcv_pcap"])
    hs = _handshake(snd_cap)
    rows = emulog.load(raw["paths"]["emu_log"])
    emu = emulog.summarise(rows, DATA_DIR, hs["isn_sender"])
    a2b = [r for r in rows if r["dir"] == DATA_DIR]
    b2a = [r for r in rows if r["dir"] == ACK_DIR]
    emu["ingress_lateness"] = percentiles(
        match_lateness(snd_cap, a2b, s_ip, True) + match_lateness(rcv_cap, b2a, r_ip, True))
    emu["egress_lateness"] = percentiles(
        match_lateness(rcv_cap, a2b, s_ip, False) + match_lateness(snd_cap, b2a, r_ip, False))
    emu.update(raw["emulator"])

    data_at_rcv = [ts for ts, s in rcv_cap if s.src == s_ip and s.payload > 0]
    span = (data_at_rcv[-1] - data_at_rcv[0]) / 1e9 if len(data_at_rcv) > 1 else 0
    goodput = round(rcv["bytes"] * 8 / span / 1e6, 2) if span else 0.0
    captures = {}
    for side, cap in (("sender", snd_cap), ("receiver", rcv_cap)):
        captures[side] = {
            "packets": len(cap),
            "data_packets": sum(s.payload > 0 for _, s in cap if s.src == s_ip),
            "first_ns": cap[0][0], "last_ns": cap[-1][0],
            "tcpdump": raw["tcpdump"][side], "tun_link": raw["links"][side]}

    final_snd = {k: v[-1] for k, v in snd["tcp_info"].items()}
    exp = verdict.expected(verdict.evidence(
        snd["tcp_info"], rcv["tcp_info"], emu, snd["write_end_ns"], sc.data.get("rate_mbit", 0),
        goodput))
    return {
        "scenario": sc.name,
        "story": sc.story,
        "intended": sc.intended,
        "flow": {"family": "ipv6" if sc.ipv6 else "ipv4",
                 "sender": {"ip": s_ip, "port": s_port, "role": "client (sends the SYN)"},
                 "receiver": {"ip": r_ip, "port": r_port, "role": "server"},
                 "mss": final_snd["snd_mss"], "handshake": hs},
        "params": {"duration_s": sc.duration_s, "congestion_control": snd["congestion_control"],
                   "data_link": sc.data, "ack_link": sc.acks, "seed": sc.seed,
                   "sender": sc.sender, "receiver": sc.receiver,
                   "sender_gso_max_size": sc.sender_gso_max_size,
                   "sndbuf_effective": snd["sndbuf_effective"],
                   "rcvbuf_effective": rcv["rcvbuf_effective"],
                   "sysctls": raw["sysctls"]},
        "result": {"bytes_written": snd["bytes"], "bytes_received": rcv["bytes"],
                   "goodput_mbit": goodput, "blocked_sends": snd["blocked_sends"],
                   "write_end_ns": snd["write_end_ns"]},
        "expected": exp,
        "captures": captures,
        "emulator": emu,
        "tcp_info": {"sender": pick_columns(snd["tcp_info"], SENDER_FIELDS),
                     "receiver": pick_columns(rcv["tcp_info"], RECEIVER_FIELDS)},
        "final_tcp_info": {"sender": final_snd,
                           "receiver": {k: v[-1] for k, v in rcv["tcp_info"].items()}},
    }


def _dump(value, indent: int = 0) -> str:
    """JSON with one key per line but scalar arrays on a single line: diffable, compact."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad} "{k}": {_dump(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[" + ", ".join(_dump(v, indent + 1) for v in value) + "]"
    return json.dumps(value)


def write_sample(sc, raw: dict, outdir: str, command: str, attempt: int = 1) -> dict:
    doc = build(sc, raw)
    base = os.path.join(outdir, sc.name)
    files = {"sender_capture": _gzip_to(raw["paths"]["snd_pcap"], base + ".sender.pcap.gz"),
             "receiver_capture": _gzip_to(raw["paths"]["rcv_pcap"], base + ".receiver.pcap.gz"),
             "emulator_log": base + ".emulator.csv.gz"}
    shutil.copyfile(raw["paths"]["emu_log"], files["emulator_log"])
    if sc.middle_capture:
        files["middle_capture"] = _gzip_to(raw["paths"]["mid_pcap"], base + ".middle.pcap.gz")
    if sc.middlebox:
        files["middlebox_log"] = base + ".middlebox.csv.gz"
        shutil.copyfile(raw["paths"]["box_log"], files["middlebox_log"])
    doc["files"] = {k: os.path.basename(v) for k, v in files.items()}
    doc["generated"] = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kernel": platform.release(), "python": platform.python_version(), "command": command,
        "attempt": attempt}
    with open(base + ".truth.json", "w") as f:
        f.write(_dump(doc) + "\n")
    return doc


def one_line(doc: dict) -> str:
    e = doc["expected"]["evidence"]
    lat = doc["emulator"]["delivery_lateness"]
    return (f"goodput={e['goodput_mbit']}Mb/s rwnd={e['rwnd_limited_share']} "
            f"sndbuf={e['sndbuf_limited_share']} app={e['app_limited_sample_share']} "
            f"retrans={e['total_retrans']} dsack={e['dsack_dups']} reord={e['reord_seen']} "
            f"drops={e['emulator_data_drops']} ss_qdrops={e['queue_drops_in_first_slow_start']} "
            f"zw={e['sender_zero_window_samples']}/{e['receiver_zero_window_samples']} "
            f"late_p99={lat.get('p99_us')}us >1ms={lat.get('over_1ms')}")

"""The declared space of the sweep, and the seeded draw of one run from it.

    python3 -m samples.generate.space            # the space as Markdown (SEEDS.md has it)
    python3 -m samples.generate.space --seed 7   # one draw as JSON

Every dimension is declared once below with its range and distribution; `draw(seed)` reads
them and nothing else. A draw first picks a STORY (the one limit the run is built to show),
then the path, then what the story needs, then the dimensions every run has, and with
`MIXTURE` chance a second, milder impairment. The story is only an intention: the label a run
is scored against comes from the kernel (label.py), and a run whose kernel label differs is
kept as what the kernel says.

The same seed gives the same run only under the same SPACE_VERSION (recorded in every
truth); change the version whenever a change here changes any draw.
"""

import argparse
import json
import math
import random
import sys

from samples.generate import netns

SPACE_VERSION = 1


def _num(x: float) -> str:
    return f"{x:,.0f}" if x >= 1000 else f"{x:g}"


class LogUniform:
    def __init__(self, lo: float, hi: float):
        self.lo, self.hi = lo, hi

    def draw(self, rng: random.Random, lo: float | None = None, hi: float | None = None) -> float:
        lo, hi = max(self.lo, lo or self.lo), min(self.hi, hi or self.hi)
        return math.exp(rng.uniform(math.log(lo), math.log(max(lo, hi))))

    def __str__(self):
        return f"log-uniform {_num(self.lo)}–{_num(self.hi)}"


class Uniform(LogUniform):
    def draw(self, rng: random.Random, lo: float | None = None, hi: float | None = None) -> float:
        return rng.uniform(self.lo, self.hi)

    def __str__(self):
        return f"uniform {_num(self.lo)}–{_num(self.hi)}"


class Choice:
    def __init__(self, weights: dict):
        self.weights = weights

    def draw(self, rng: random.Random):
        return rng.choices(list(self.weights), list(self.weights.values()))[0]

    def __str__(self):
        total = sum(self.weights.values())
        return ", ".join(f"{k} {v / total:.0%}" for k, v in self.weights.items())


class Chance:
    def __init__(self, p: float):
        self.p = p

    def draw(self, rng: random.Random) -> bool:
        return rng.random() < self.p

    def __str__(self):
        return f"{self.p:.0%} of runs"


# ---- the space ------------------------------------------------------------------------------
# (dimension, distribution, what it sets); the Markdown table is generated from this list.

STORY = Choice({
    "bandwidth": 12, "slow-start-overshoot": 8, "loss": 10, "reorder": 12,
    "rwnd:so_rcvbuf": 8, "rwnd:rmem_max": 7, "rwnd:no_wscale": 8, "rwnd:slow_reader": 8,
    "sndbuf:so_sndbuf": 7, "sndbuf:wmem_max": 6, "app:periodic": 9, "app:request_response": 7,
})
# The Python emulator keeps honest time up to ~400 Mbit/s of 1500-byte packets on this 2-core
# VM with three captures running (samples/sweep/SEEDS.md, `python3 -m samples.generate.capacity`);
# the bound is packets per second, so small MTUs get a proportionally lower top rate.
MAX_DATA_PPS = 25_000
RATE_MBIT = LogUniform(1, 300)
RTT_MS = LogUniform(2, 300)
MAX_BDP_BYTES = 8_000_000  # rate × RTT above this would need minutes of transfer (and GBs)
DATA_SHARE_OF_RTT = Uniform(0.3, 0.7)  # one-way data delay ÷ RTT: the ACK path's share varies
QUEUE_BDP = LogUniform(0.1, 10)  # bottleneck FIFO in BDPs (at least 2 packets)
CC = Choice({"cubic": 40, "reno": 20, "bbr": 40})
FAMILY = Choice({"ipv4": 85, "ipv6": 15})
SMALL_MTU = Chance(0.15)
SMALL_MTU_BYTES = Choice({576: 1, 1000: 1, 1280: 1})  # IPv6 needs at least 1280
RACK_OFF = Chance(0.10)  # net.ipv4.tcp_recovery=0 on the sender (RACK stays on from Linux 6.17)
RACK_OFF_REORDER = Chance(0.50)  # ... in reorder and loss stories
ACK_LOSS = Chance(0.15)
ACK_LOSS_RATE = LogUniform(0.01, 0.3)  # pure ACKs only
CUT = Chance(0.30)  # captures also written starting mid-stream, handshake cut off
CUT_AT = Uniform(0.2, 0.6)  # share of the writing time before the cut
MIDDLEBOX_MSS = Chance(0.05)
CLAMP_MSS = Choice({536: 1, 900: 1, 1200: 1})
MIDDLEBOX_NAT_ISN = Chance(0.05)  # NAT + shifted ISNs: invisible to one capture, exercised
MIDDLEBOX_MAX_PPS = 4_000  # its per-packet rewrites cost the emulator ~14 µs a packet
MIXTURE = Chance(0.25)  # a second, milder impairment on top of the story
MIX_KIND = Choice({"reorder": 1, "loss": 1, "rcvbuf": 1})
# Story knobs
OVERSHOOT_QUEUE_BDP = LogUniform(0.1, 0.3)
OVERSHOOT_CC = Choice({"cubic": 45, "reno": 35, "bbr": 20})
BULK_QUEUE_BDP = LogUniform(0.5, 10)
LOSS_RATE = LogUniform(0.001, 0.03)
LOSS_QUEUE_BDP = LogUniform(0.5, 4)
# The loss story's rate is at least twice what makes the Mathis bound (MSS/RTT × 1.22/√p)
# half the link rate, so the loss can limit the flow; capped at LOSS_MAX.
LOSS_MAX = 0.05
LOSS_AT = Choice({"before_mid": 1, "after_mid": 1})
REORDER_RATE = LogUniform(0.005, 0.05)
REORDER_EXTRA_RTT = LogUniform(0.5, 3)  # hold-back in RTTs (at least 1 ms)
REORDER_QUEUE_BDP = LogUniform(0.5, 1.5)
REORDER_AT = Choice({"after_mid": 1, "before_mid": 1})
RCVBUF_BDP = LogUniform(0.05, 0.4)  # SO_RCVBUF (before the kernel doubles it) in BDPs
RMEM_MAX_BDP = LogUniform(0.1, 0.6)  # tcp_rmem max in BDPs
WSCALE_OFF = Choice({"sender_sysctl": 1, "receiver_sysctl": 1, "strip_syn": 1,
                     "strip_synack": 1})
STRIP_SYNACK_RCVBUF = 65536
READ_RATE_SHARE = LogUniform(0.1, 0.6)  # slow reader: read rate ÷ link rate
READ_SIZE = Choice({4096: 1, 16384: 1, 65536: 1, 262144: 1})
SNDBUF_BDP = LogUniform(0.05, 0.4)
WMEM_MAX_BDP = LogUniform(0.1, 0.5)
# A smaller send buffer drains in less time than the writer takes to wake up and refill it,
# and the kernel then calls the sender application-limited: not the story.
MIN_SNDBUF = 16384
PERIODIC_CHUNK = LogUniform(1024, 1_048_576)
PERIOD_MS = (1.0, 1000.0)  # the period is chunk ÷ load, kept inside this (the chunk follows)
OFFERED_LOAD = Uniform(0.1, 0.7)  # periodic writer: chunk ÷ period as a share of the link
RR_RESPONSE = LogUniform(1024, 2_097_152)
RR_REQUEST = LogUniform(64, 2048)
RR_THINK_MS = Choice({0: 1, 5: 1, 20: 1, 50: 1})
MIX_REORDER_RATE = LogUniform(0.002, 0.01)
MIX_REORDER_EXTRA_RTT = LogUniform(0.05, 0.25)
MIX_LOSS_RATE = LogUniform(0.0001, 0.002)
MIX_RCVBUF_BDP = LogUniform(0.6, 1.5)
# Durations: long enough for steady state (30 RTTs, and 4 × the rounds slow start needs to
# reach the BDP), at least 3 s, at most 15 s.
DURATION_RTTS, DURATION_SS_FACTOR, DURATION_MIN_S, DURATION_MAX_S = 30, 4, 3.0, 15.0
STORY_MIN_BDP_PKTS = {"slow-start-overshoot": 40, "rwnd:so_rcvbuf": 30, "rwnd:rmem_max": 30,
                      "rwnd:no_wscale": 90, "sndbuf:so_sndbuf": 60, "sndbuf:wmem_max": 60,
                      "reorder": 8, "loss": 20}
SAMPLE_MS = 10  # TCP_INFO at both ends
# With 1-MSS skbs (gso_max_size 1500) a send buffer holds ~0.6 of its size in payload, so the
# default 4 MiB tcp_wmem maximum would bind on large-BDP paths in every story, unseen by the
# kernel's chrono; every sender gets room unless its story caps tcp_wmem.
DEFAULT_WMEM = "4096 16384 67108864"

DIMENSIONS = [
    ("story", STORY, "the one limit the run is built to show (the kernel decides the label)"),
    ("rate", RATE_MBIT, f"Mbit/s, both directions; at most {MAX_DATA_PPS:,} data packets/s "
     "at the drawn MTU"),
    ("RTT", RTT_MS, f"ms base RTT; rate × RTT ≤ {MAX_BDP_BYTES / 1e6:g} MB "
     "(redrawn together until it fits, and until the story's minimum BDP is met)"),
    ("data share of RTT", DATA_SHARE_OF_RTT, "one-way delay of the data direction; the ACK "
     "path has the rest"),
    ("bottleneck FIFO", QUEUE_BDP, "BDP, both directions (bandwidth story: "
     f"{BULK_QUEUE_BDP}; overshoot story: {OVERSHOOT_QUEUE_BDP}); at least 2 packets"),
    ("congestion control", CC, f"overshoot story: {OVERSHOOT_CC}"),
    ("family", FAMILY, ""),
    ("small MTU", SMALL_MTU, f"MTU {SMALL_MTU_BYTES} on both TUNs (IPv6: 1280)"),
    ("RACK off", RACK_OFF, f"net.ipv4.tcp_recovery=0 at the sender ({RACK_OFF_REORDER} in "
     "reorder/loss stories); from Linux 6.17 on (this VM: 6.18) RACK stays on regardless, "
     "the RFC 6675 fallback being gone"),
    ("ACK-path loss", ACK_LOSS, f"{ACK_LOSS_RATE} of pure ACKs"),
    ("cut capture", CUT, f"captures also written from {CUT_AT} of the writing time on, "
     "handshake cut off; labels over that interval"),
    ("MSS clamp", MIDDLEBOX_MSS, f"middlebox clamps the SYNs' MSS to {CLAMP_MSS}"),
    ("NAT + ISN shift", MIDDLEBOX_NAT_ISN, "middlebox NATs the sender (when it connects) and "
     "shifts both ISNs "
     f"(only where the data rate is ≤ {MIDDLEBOX_MAX_PPS:,} packets/s)"),
    ("mixture", MIXTURE, f"a second, milder impairment: {MIX_KIND} (reorder {MIX_REORDER_RATE}"
     f" held {MIX_REORDER_EXTRA_RTT} RTT; loss {MIX_LOSS_RATE}; SO_RCVBUF {MIX_RCVBUF_BDP} BDP)"),
    ("loss story", LOSS_RATE, f"of data segments, {LOSS_AT}, at least twice the rate that "
     f"puts the Mathis bound at half the link (at most {LOSS_MAX:.0%}); FIFO {LOSS_QUEUE_BDP} "
     "BDP"),
    ("reorder story", REORDER_RATE, f"of data segments held back {REORDER_EXTRA_RTT} RTT, "
     f"{REORDER_AT}; FIFO {REORDER_QUEUE_BDP} BDP"),
    ("rwnd:so_rcvbuf story", RCVBUF_BDP, "BDP of SO_RCVBUF at the receiver, before listen()"),
    ("rwnd:rmem_max story", RMEM_MAX_BDP, "BDP: the receiver's net.ipv4.tcp_rmem maximum"),
    ("rwnd:no_wscale story", WSCALE_OFF, "how window scaling is lost (strip_synack: the "
     f"receiver also locks SO_RCVBUF at {STRIP_SYNACK_RCVBUF:,} B, so the shift the sender "
     "ignores is 1)"),
    ("rwnd:slow_reader story", READ_RATE_SHARE, f"of the link rate read, in {READ_SIZE}-byte "
     "reads, for the writing time"),
    ("sndbuf:so_sndbuf story", SNDBUF_BDP, f"BDP of SO_SNDBUF at the sender (at least "
     f"{MIN_SNDBUF:,} B)"),
    ("sndbuf:wmem_max story", WMEM_MAX_BDP, "BDP: the sender's net.ipv4.tcp_wmem maximum (at "
     f"least {2 * MIN_SNDBUF:,} B)"),
    ("app:periodic story", PERIODIC_CHUNK, f"bytes written every period; offered load "
     f"{OFFERED_LOAD} of the link; period {PERIOD_MS[0]:g}–{PERIOD_MS[1]:g} ms (the chunk "
     "shrinks to keep the load)"),
    ("app:request_response story", RR_RESPONSE, f"bytes per response (the data); request "
     f"{RR_REQUEST} B; think {RR_THINK_MS} ms; the data receiver connects"),
    ("duration", None, f"max({DURATION_MIN_S:g} s, {DURATION_RTTS} RTT, {DURATION_SS_FACTOR} × "
     f"slow-start rounds × RTT), at most {DURATION_MAX_S:g} s"),
]

# Everything not drawn, the same in every run.
FIXED = {
    "sender writes": "bulk writers retry send() every 1 ms when the buffer is full "
                     "(the kernel's sndbuf_limited chrono only counts then)",
    "sender TUN": "gso_max_size 1500 (SO_SNDBUF / tcp_wmem limits hold on TUN only then)",
    "TCP_INFO": f"every {SAMPLE_MS} ms at both ends",
    "sender tcp_wmem": f"{DEFAULT_WMEM} unless the story caps it (the default 4 MiB maximum "
                       "binds unseen on large-BDP paths with 1-MSS skbs)",
    "captures": "sender and receiver TUN (tcpdump, snaplen 128, ns), middle (emulator)",
}


def _ip_overhead(family: str) -> int:
    return 60 if family == "ipv6" else 40  # IP + TCP headers (no options) per packet


def _duration(rtt_s: float, bdp_pkts: float) -> float:
    ss_rounds = math.log2(max(bdp_pkts, 10) / 10) + 2
    d = max(DURATION_MIN_S, DURATION_RTTS * rtt_s, DURATION_SS_FACTOR * ss_rounds * rtt_s)
    return round(min(d, DURATION_MAX_S), 2)


def draw(seed: int) -> dict:
    """One fully specified run: the run spec (runner.py) plus what was drawn and why."""
    rng = random.Random(f"tcpdiag-sweep-{SPACE_VERSION}-{seed}")
    story = STORY.draw(rng)
    family = FAMILY.draw(rng)
    mtu = 1500
    if SMALL_MTU.draw(rng):
        mtu = 1280 if family == "ipv6" else SMALL_MTU_BYTES.draw(rng)
    mss = mtu - _ip_overhead(family) - 12  # timestamps are on
    top = min(RATE_MBIT.hi, MAX_DATA_PPS * mtu * 8 / 1e6)
    need = STORY_MIN_BDP_PKTS.get(story, 0) * mtu
    for _ in range(1000):
        rate = round(RATE_MBIT.draw(rng, hi=top), 3)
        rtt = round(RTT_MS.draw(rng), 2)
        bdp = rate * 1e6 / 8 * rtt / 1000
        if need <= bdp <= MAX_BDP_BYTES:
            break
    share = DATA_SHARE_OF_RTT.draw(rng)
    d_data = round(rtt * share, 3)
    d_ack = round(rtt - d_data, 3)
    cc = OVERSHOOT_CC.draw(rng) if story == "slow-start-overshoot" else CC.draw(rng)
    q_dist = {"bandwidth": BULK_QUEUE_BDP, "loss": LOSS_QUEUE_BDP, "reorder": REORDER_QUEUE_BDP,
              "slow-start-overshoot": OVERSHOOT_QUEUE_BDP}.get(story, QUEUE_BDP)
    q_bdp = q_dist.draw(rng)
    queue = int(max(q_bdp * bdp, 2 * mtu))
    duration = _duration(rtt / 1000, bdp / mtu)
    a2b = {"delay_ms": d_data, "rate_mbit": rate, "queue_bytes": queue}
    b2a = {"delay_ms": d_ack, "rate_mbit": rate, "queue_bytes": queue}
    snd_sys, rcv_sys, box = {"net.ipv4.tcp_wmem": DEFAULT_WMEM}, {}, {}
    snd_app = {"mode": "pressure", "sample_ms": SAMPLE_MS}
    rcv_app = {"sample_ms": SAMPLE_MS}
    listen = "receiver"
    knobs = {}

    if story == "loss":
        mathis_half = (2 * 1.22 * mss * 8 / (rtt / 1000 * rate * 1e6)) ** 2
        p = min(LOSS_MAX, max(LOSS_RATE.draw(rng), 2 * mathis_half))
        a2b.update(loss=round(p, 5), loss_at=LOSS_AT.draw(rng))
    elif story == "reorder":
        a2b.update(reorder=round(REORDER_RATE.draw(rng), 4),
                   reorder_extra_ms=round(max(1.0, REORDER_EXTRA_RTT.draw(rng) * rtt), 2),
                   reorder_at=REORDER_AT.draw(rng))
    elif story == "rwnd:so_rcvbuf":
        rcv_app["rcvbuf"] = max(4096, int(RCVBUF_BDP.draw(rng) * bdp))
    elif story == "rwnd:rmem_max":
        top_rmem = max(16384, int(RMEM_MAX_BDP.draw(rng) * bdp))
        rcv_sys["net.ipv4.tcp_rmem"] = f"4096 {min(131072, top_rmem)} {top_rmem}"
    elif story == "rwnd:no_wscale":
        how = knobs["wscale_off"] = WSCALE_OFF.draw(rng)
        if how == "sender_sysctl":
            snd_sys["net.ipv4.tcp_window_scaling"] = 0
        elif how == "receiver_sysctl":
            rcv_sys["net.ipv4.tcp_window_scaling"] = 0
        else:
            box["strip_wscale"] = how.removeprefix("strip_")
        if how == "strip_synack":
            # The receiver still scales its window, the sender reads it unscaled: with the
            # default tcp_rmem maximum the shift is ~10 and the sender would see less than a
            # segment and need minutes to drain. A locked 64 KiB SO_RCVBUF makes the shift 1.
            rcv_app["rcvbuf"] = STRIP_SYNACK_RCVBUF
    elif story == "rwnd:slow_reader":
        rcv_app.update(read_rate_mbit=round(READ_RATE_SHARE.draw(rng) * rate, 3),
                       read_size=READ_SIZE.draw(rng), slow_for=duration)
    elif story == "sndbuf:so_sndbuf":
        snd_app["sndbuf"] = max(MIN_SNDBUF, int(SNDBUF_BDP.draw(rng) * bdp))
    elif story == "sndbuf:wmem_max":
        top_wmem = max(2 * MIN_SNDBUF, int(WMEM_MAX_BDP.draw(rng) * bdp))
        snd_sys["net.ipv4.tcp_wmem"] = f"4096 {min(16384, top_wmem)} {top_wmem}"
    elif story == "app:periodic":
        chunk = int(PERIODIC_CHUNK.draw(rng))
        load = OFFERED_LOAD.draw(rng)
        period = min(PERIOD_MS[1], max(PERIOD_MS[0], chunk * 8 / (load * rate * 1e6) * 1000))
        chunk = max(1, min(chunk, int(load * rate * 1e6 / 8 * period / 1000)))  # keep the load
        snd_app.update(mode="periodic", chunk=chunk, period_ms=round(period, 3))
        knobs["offered_load_mbit"] = round(chunk * 8 / period / 1000, 3)
    elif story == "app:request_response":
        listen = "sender"
        snd_app.update(mode="rr", request=int(RR_REQUEST.draw(rng)),
                       response=int(RR_RESPONSE.draw(rng)))
        rcv_app.update(mode="rr", request=snd_app["request"], response=snd_app["response"],
                       think_ms=RR_THINK_MS.draw(rng))

    rack_off = (RACK_OFF_REORDER if story in ("reorder", "loss") else RACK_OFF).draw(rng)
    if rack_off:
        snd_sys["net.ipv4.tcp_recovery"] = 0
    if ACK_LOSS.draw(rng):
        b2a["ack_loss"] = round(ACK_LOSS_RATE.draw(rng), 4)
    cut = round(CUT_AT.draw(rng) * duration, 3) if CUT.draw(rng) else None
    if MIDDLEBOX_MSS.draw(rng):
        box["clamp_mss"] = CLAMP_MSS.draw(rng)
    if MIDDLEBOX_NAT_ISN.draw(rng) and rate * 1e6 / 8 / mtu <= MIDDLEBOX_MAX_PPS:
        box["isn_offset"] = {"a2b": rng.randrange(1, 2**32), "b2a": rng.randrange(1, 2**32)}
        v6 = family == "ipv6"
        nat = {"inside": (netns.ADDR6 if v6 else netns.ADDR4)["sender"],
               "outside": netns.NAT6 if v6 else netns.NAT4,
               "port_offset": rng.randrange(1, 2**16)}
        if listen == "receiver":  # a source NAT in front of the side that connects
            box["nat"] = nat
    mix = MIX_KIND.draw(rng) if MIXTURE.draw(rng) else None
    if mix == "reorder" and "reorder" not in a2b:
        a2b.update(reorder=round(MIX_REORDER_RATE.draw(rng), 4),
                   reorder_extra_ms=round(max(1.0, MIX_REORDER_EXTRA_RTT.draw(rng) * rtt), 2),
                   reorder_at=REORDER_AT.draw(rng))
    elif mix == "loss" and "loss" not in a2b:
        a2b.update(loss=round(MIX_LOSS_RATE.draw(rng), 5), loss_at=LOSS_AT.draw(rng))
    elif mix == "rcvbuf" and "rcvbuf" not in rcv_app:
        rcv_app["rcvbuf"] = max(4096, int(MIX_RCVBUF_BDP.draw(rng) * bdp))
    else:
        mix = None

    spec = {"seed": seed, "family": family, "mtu": mtu, "cc": cc, "duration_s": duration,
            "listen": listen, "a2b": a2b, "b2a": b2a, "middlebox": box or None,
            "middle_capture": True,
            "sender": {"sysctls": snd_sys, "gso_max_size": 1500, "app": snd_app},
            "receiver": {"sysctls": rcv_sys, "gso_max_size": None, "app": rcv_app}}
    drawn = {"space_version": SPACE_VERSION, "story": story, "mixture": mix,
             "rate_mbit": rate, "rtt_ms": rtt, "bdp_bytes": int(bdp), "mss_expected": mss,
             "queue_bdp": round(queue / bdp, 3) if bdp else None, "rack": not rack_off,
             "cut_at_s": cut, **knobs}
    return {"spec": spec, "drawn": drawn}


def markdown() -> str:
    lines = ["| dimension | distribution | what it sets |", "|---|---|---|"]
    for name, dist, what in DIMENSIONS:
        lines.append(f"| {name} | {dist or '(derived)'} | {what} |")
    lines += ["", "Fixed in every run:", ""]
    lines += [f"- **{k}**: {v}" for k, v in FIXED.items()]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, action="append", help="print this seed's draw (JSON)")
    a = p.parse_args(argv)
    if not a.seed:
        print(f"Space version {SPACE_VERSION}.\n")
        print(markdown())
        return 0
    for s in a.seed:
        print(json.dumps(draw(s), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The expected verdict, derived only from the kernel's TCP_INFO and the emulator's log.

Rules (also in samples/README.md, which is their documentation; keep the two in step):
each rule fires independently; the verdict is the first firing rule in PRECEDENCE, the others
are listed in `also`.
"""

INFINITE_SSTHRESH = 0x7FFFFFFF
OPT_WSCALE = 4

PRECEDENCE = [
    "rwnd-limited:zero-window",
    "rwnd-limited:no-window-scaling",
    "rwnd-limited:static-buffer",
    "rwnd-limited",
    "sndbuf-limited",
    "app-limited",
    "reorder-limited",
    "slow-start-overshoot",
    "loss-limited",
    "bandwidth-limited",
]

SHARE = 0.5  # a chrono or flag share above this names the limit
OVERSHOOT_BURST = 5  # queue drops before the first ssthresh reduction
STATIC_GROWTH = 1.10  # peak window after the first second vs. within it
FULL_LINK = 0.85  # goodput share of the bottleneck's payload capacity: the link is the limit


def _share(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def evidence(snd: dict, rcv: dict, emu: dict, write_end_ns: int, rate_mbit: float,
             goodput_mbit: float) -> dict:
    """Figures the rules read. `snd`/`rcv` are TCP_INFO columns, `emu` the emulator summary."""
    last = {k: v[-1] for k, v in snd.items()}
    t = snd["t_ns"]
    t0 = t[0]
    writing = [i for i, ts in enumerate(t) if ts <= write_end_ns and snd["bytes_sent"][i] > 0]
    est = [i for i in range(len(t)) if snd["state"][i] == 1]  # TCP_ESTABLISHED
    ss_end = next((t[i] for i in range(len(t)) if snd["snd_ssthresh"][i] < INFINITE_SSTHRESH),
                  None)
    ev = emu["data_events"]
    queue_drops = [ts for ts, f in zip(ev["t_in_ns"], ev["fate"]) if f == "queue_drop"]
    drops = [ts for ts, f in zip(ev["t_in_ns"], ev["fate"]) if f != "reordered"]
    one_s = t0 + 1_000_000_000
    early = [snd["snd_wnd"][i] for i in writing if t[i] <= one_s]
    late = [snd["snd_wnd"][i] for i in writing if t[i] > one_s]
    rtts = [snd["rtt"][i] for i in writing if snd["rtt"][i]]
    # Payload the bottleneck can carry: it serialises whole IP packets of pmtu bytes.
    capacity = rate_mbit * last["snd_mss"] / last["pmtu"] if last["pmtu"] else 0.0
    bdp = rate_mbit * 1e6 / 8 * last["min_rtt"] / 1e6
    return {
        "busy_time_us": last["busy_time"],
        "rwnd_limited_us": last["rwnd_limited"],
        "sndbuf_limited_us": last["sndbuf_limited"],
        "rwnd_limited_share": _share(last["rwnd_limited"], last["busy_time"]),
        "sndbuf_limited_share": _share(last["sndbuf_limited"], last["busy_time"]),
        "app_limited_sample_share": _share(
            sum(snd["delivery_rate_app_limited"][i] for i in writing), len(writing)),
        "window_scaling": bool(last["options"] & OPT_WSCALE),
        "snd_wscale": last["snd_wscale"], "rcv_wscale": last["rcv_wscale"],
        "peak_snd_wnd_first_s": max(early, default=0),
        "peak_snd_wnd_after_first_s": max(late, default=0),
        "sender_zero_window_samples": sum(snd["snd_wnd"][i] == 0 for i in est),
        "receiver_zero_window_samples": sum(w == 0 for w, s in zip(rcv["rcv_wnd"], rcv["state"])
                                            if s == 1),
        "max_probes": max(snd["probes"]),
        "total_retrans": last["total_retrans"],
        "bytes_retrans": last["bytes_retrans"],
        "dsack_dups": last["dsack_dups"],
        "reord_seen": last["reord_seen"],
        "receiver_rcv_ooopack": rcv["rcv_ooopack"][-1],
        "total_rto": last.get("total_rto", 0),
        "emulator_data_drops": len(drops),
        "emulator_queue_drops": len(queue_drops),
        "emulator_reordered": sum(f == "reordered" for f in ev["fate"]),
        "retransmissions_spurious": emu["retransmissions"]["spurious"],
        "retransmissions_necessary": emu["retransmissions"]["necessary"],
        "first_ssthresh_ns": ss_end,
        "queue_drops_in_first_slow_start": sum(ts <= ss_end for ts in queue_drops) if ss_end else
        len(queue_drops),
        "drops_after_first_slow_start": sum(ts > ss_end for ts in drops) if ss_end else 0,
        "min_rtt_us": last["min_rtt"],
        "max_srtt_us": max(rtts, default=0),
        "srtt_inflation": round(max(rtts, default=0) / last["min_rtt"], 2) if last["min_rtt"]
        else 0,
        "max_cwnd": max(snd["snd_cwnd"][i] for i in writing) if writing else 0,
        "max_flight_over_bdp": round(max(snd["unacked"]) * last["snd_mss"] / bdp, 2) if bdp else 0,
        "goodput_mbit": goodput_mbit,
        "link_rate_mbit": rate_mbit,
        "link_payload_capacity_mbit": round(capacity, 2),
        "link_utilisation": round(goodput_mbit / capacity, 3) if capacity else 0.0,
    }


def rules(e: dict) -> dict:
    """Which labels fire, each with the one-line reason."""
    fired = {}
    if e["sender_zero_window_samples"] or e["receiver_zero_window_samples"]:
        fired["rwnd-limited:zero-window"] = "snd_wnd==0 (sender) or rcv_wnd==0 (receiver) sampled"
    if e["rwnd_limited_share"] > SHARE:
        if not e["window_scaling"]:
            fired["rwnd-limited:no-window-scaling"] = "rwnd_limited/busy > 0.5, no TCPI_OPT_WSCALE"
        elif e["peak_snd_wnd_after_first_s"] <= STATIC_GROWTH * e["peak_snd_wnd_first_s"]:
            fired["rwnd-limited:static-buffer"] = "rwnd_limited/busy > 0.5, window stops growing"
        else:
            fired["rwnd-limited"] = "rwnd_limited/busy > 0.5"
    if e["sndbuf_limited_share"] > SHARE:
        fired["sndbuf-limited"] = "sndbuf_limited/busy > 0.5"
    if e["app_limited_sample_share"] > SHARE and e["sndbuf_limited_share"] < 0.2 \
            and e["rwnd_limited_share"] < SHARE:
        fired["app-limited"] = "delivery_rate_app_limited in > 50% of samples while writing"
    full = e["link_utilisation"] >= FULL_LINK
    if e["dsack_dups"] and e["dsack_dups"] >= e["total_retrans"] / 2 and e["emulator_reordered"] \
            and e["retransmissions_spurious"] > e["retransmissions_necessary"] and not full:
        fired["reorder-limited"] = "DSACKs for >= half the retransmissions, emulator confirms " \
            "they resent bytes it had forwarded, link not full"
    if e["queue_drops_in_first_slow_start"] >= OVERSHOOT_BURST:
        fired["slow-start-overshoot"] = ">= 5 queue drops before ssthresh was first set"
    if e["retransmissions_necessary"] and e["total_retrans"] and not full \
            and (e["drops_after_first_slow_start"] or "slow-start-overshoot" not in fired):
        fired["loss-limited"] = "emulator dropped data, sender retransmitted it, link not full"
    if full and not any(k.startswith(("rwnd", "sndbuf", "app")) for k in fired):
        fired["bandwidth-limited"] = "goodput >= 85% of the bottleneck's payload capacity"
    return fired


def expected(e: dict) -> dict:
    fired = rules(e)
    order = [label for label in PRECEDENCE if label in fired]
    return {"verdict": order[0] if order else "undetermined", "also": order[1:],
            "reasons": fired, "evidence": e}

"""The label of a sweep run, from the kernel's counters and the generator's own settings only.

One label per captured interval (the whole connection, or from a cut capture's first instant):
a primary limit with a sub-type where the remedy depends on it, the other limits that also
fired ("also"), whether the label is clear, and every figure used. Chronos are differences
between the TCP_INFO samples inside the interval, so a cut capture is judged on what it holds.

The rules (samples/sweep/SEEDS.md shows this text, generated from here):

  shares   rwnd = Δtcpi_rwnd_limited / Δtcpi_busy_time, or the share of busy samples with
           unsent data behind a full peer window ((unacked + 1) × MSS > snd_wnd) if larger
           (bbr's pacing check hides window-bound time from the chrono), or the share of
           receiver samples whose unread queue (SIOCINQ) held ≥ the advertised window if the
           link was not full (bbr paces at the rate a slow reader drains); sndbuf =
           Δtcpi_sndbuf_limited / Δtcpi_busy_time; app = share of the sender's samples while
           the application wrote with tcpi_delivery_rate_app_limited, or the idle share
           1 − Δtcpi_busy_time / Δwall time if larger (the flag clears at the first ACK of
           each burst, so a sender idling between short responses is rarely flagged)
  family   rwnd-limited if rwnd ≥ 0.5; else sndbuf-limited if sndbuf ≥ 0.5; else
           app-limited if app ≥ 0.5, or a periodic writer offered ≤ 0.8 of the link's
           payload capacity, ≥ 90 % of its offered load was acknowledged while it wrote
           (the generator's offered load; bbr's pacing hides it from the flag) and it was
           ahead of TCP by more than two writes (unsent bytes) in under half of its writing
           samples (not clear above 0.35: an average delivered from a backlog is TCP's
           pace, not the writer's), and sndbuf < 0.2; else the congestion window limited,
           and why (first that holds):
             reorder-limited   DSACKs for ≥ half the retransmissions, the emulator held data
                               back and more retransmissions were spurious than necessary,
                               link not full
             slow-start-overshoot  ≥ 5 queue drops before the first slow start ended
                               (ssthresh first set and not undone back to infinite; bbr:
                               pacing gain leaves startup's), at
                               least as many as after it, link not full
             bandwidth-limited the bottleneck busy ≥ 85% of the time after the first slow
                               start (emulator)
             loss-limited      the emulator dropped data and the sender resent it
           and if none holds but app ≥ 0.2 (and sndbuf < 0.2): app-limited (nothing else
           held the sender back)
  clear    the deciding share is ≥ 0.65 (for the congestion window: rwnd, sndbuf and app
           all ≤ 0.35), a reason rule held, and the interval holds ≥ 20 TCP_INFO samples;
           otherwise the label is given but marked not clear, with why
  sub-types  rwnd-limited: no_wscale (TCPI_OPT_WSCALE absent at the sender; which SYN lacked
           it, and whether it was stripped on the way) / slow_reader (the receiving
           application left ≥ its advertised window unread in ≥ half the receiver's samples;
           zero windows or not) / so_rcvbuf (the receiver set SO_RCVBUF) / rmem_max (the
           receive buffer reached the namespace's tcp_rmem maximum) / autotuning (still
           growing); sndbuf-limited: so_sndbuf / wmem_max / autotuning; app-limited: periodic
           / request_response / writer (a bulk writer that did not keep up: a dishonest run)
"""

INFINITE_SSTHRESH = 0x7FFFFFFF
OPT_WSCALE = 4
BBR_STARTUP_GAIN = 739  # 2.885 << 8, tcp_bbr.c bbr_high_gain
TCP_ESTABLISHED = 1

SHARE = 0.5
CLEAR = 0.65
MIXED = 0.35
APP_WITH_SNDBUF = 0.2
OVERSHOOT_BURST = 5
FULL_LINK = 0.85
BUFFER_AT_MAX = 0.95
ALSO_SHARE = 0.2
OFFER_SERVED = 0.9
OFFER_ROOM = 0.8
FAMILIES = ["rwnd-limited", "sndbuf-limited", "app-limited", "reorder-limited",
            "slow-start-overshoot", "bandwidth-limited", "loss-limited"]


def _share(part: float, whole: float) -> float:
    return round(part / whole, 3) if whole else 0.0


def _window(t_ns: list[int], start: int, end: int) -> list[int]:
    return [i for i, t in enumerate(t_ns) if start <= t <= end]


def _rmem_max(sysctl: str) -> int:
    return int(sysctl.split()[2]) if sysctl and len(sysctl.split()) == 3 else 0


def first_slow_start_end(snd: dict, cc: str) -> int | None:
    """When the first slow start (bbr: STARTUP) ended, from the kernel's own state."""
    t = snd["t_ns"]
    if cc == "bbr" and snd.get("bbr_pacing_gain"):
        started = False
        for i, g in enumerate(snd["bbr_pacing_gain"]):
            started |= g == BBR_STARTUP_GAIN
            if started and g != BBR_STARTUP_GAIN:
                return t[i]
        return None
    # ssthresh first set and kept: a recovery whose resends all proved needless is undone
    # (ssthresh back to infinite), and the first slow start goes on after it.
    ss = snd["snd_ssthresh"]
    last_open = max((i for i, th in enumerate(ss) if th >= INFINITE_SSTHRESH), default=-1)
    return t[last_open + 1] if last_open + 1 < len(ss) else None


def link_busy(rows: list[dict], cfg: dict, start: int, end: int) -> float:
    """Share of [start, end] the a2b bottleneck spent serialising (emulator log)."""
    rate = cfg.get("rate_mbit", 0)
    if not rate or end <= start:
        return 0.0
    half = cfg.get("delay_ms", 0) * 1e6 / 2
    extra = cfg.get("reorder_extra_ms", 0) * 1e6 if cfg.get("reorder_at") == "before_mid" else 0
    byte_ns = 8e3 / rate
    busy = 0.0
    for r in rows:
        if r["dir"] != "a2b" or not r.get("t_mid_ns"):
            continue
        ser_end = r["t_mid_ns"] - half - (extra if r["fate"] == "R" else 0)
        if start <= ser_end <= end:
            busy += r["size"] * byte_ns
    return round(min(1.0, busy / (end - start)), 3)


def evidence(run: dict, start: int, end: int) -> dict:
    """Every figure the rules read, over the samples in [start, end]. `run` holds `snd`, `rcv`
    (TCP_INFO columns), `spec`, `drawn`, `sysctls` (per side), `write_end_ns`, `emu`
    (emulog.summarise with times), `handshake` (sweep_truth.handshake of the sender's and the
    receiver's capture) and `link_busy(start, end)` (link_busy over the emulator log)."""
    snd, rcv, spec = run["snd"], run["rcv"], run["spec"]
    idx = _window(snd["t_ns"], start, end)
    first, last = idx[0], idx[-1]

    def delta(key):
        return snd[key][last] - snd[key][first]

    mss = snd["snd_mss"][last]
    busy = delta("busy_time")
    wall_us = (snd["t_ns"][last] - snd["t_ns"][first]) / 1e3
    writing = [i for i in idx if snd["t_ns"][i] <= run["write_end_ns"] and snd["bytes_sent"][i]]
    cc = spec["cc"]
    ss_end = first_slow_start_end(snd, cc)
    ev = run["emu"]["data_events"]
    in_iv = [k for k, ts in enumerate(ev["t_in_ns"]) if start <= ts <= end]
    queue_drops = [ev["t_in_ns"][k] for k in in_iv if ev["fate"][k] == "queue_drop"]
    drops = [ev["t_in_ns"][k] for k in in_iv if ev["fate"][k] != "reordered"]
    retx = run["emu"]["retransmissions"]
    retx_t = [(t, kind) for t, kind in zip(retx["t_in_ns"], retx["kind"]) if start <= t <= end]
    steady_from = max(start, ss_end or start)
    rcv_idx = [i for i in _window(rcv["t_ns"], start, min(end, run["write_end_ns"]))
               if rcv["state"][i] == TCP_ESTABLISHED]
    backlog = [i for i in rcv_idx
               if rcv["inq"][i] > 2 * mss and rcv["inq"][i] >= rcv["rcv_wnd"][i]]
    rcv_app, snd_app = spec["receiver"]["app"], spec["sender"]["app"]
    offered = run["drawn"].get("offered_load_mbit")
    chunk = snd_app.get("chunk", 0) if snd_app.get("mode") == "periodic" else 0
    capacity = spec["a2b"].get("rate_mbit", 0) * mss / snd["pmtu"][last] if snd["pmtu"][last] \
        else 0.0
    w = [i for i in idx if snd["t_ns"][i] <= run["write_end_ns"]]
    span_s = (snd["t_ns"][w[-1]] - snd["t_ns"][w[0]]) / 1e9 if len(w) > 1 else 0.0
    acked = snd["bytes_acked"][w[-1]] - snd["bytes_acked"][w[0]] if len(w) > 1 else 0
    rmem_max = _rmem_max(run["sysctls"]["receiver"].get("net.ipv4.tcp_rmem", ""))
    wmem_max = _rmem_max(run["sysctls"]["sender"].get("net.ipv4.tcp_wmem", ""))
    rcvbufs = [rcv["sk_rcvbuf"][i] for i in rcv_idx] or [0]
    sndbufs = [snd["sk_sndbuf"][i] for i in idx]
    hs = run["handshake"]
    busy_idx = [i for i in idx if snd["state"][i] == TCP_ESTABLISHED
                and (snd["unacked"][i] or snd["notsent_bytes"][i])]
    window_full = [i for i in busy_idx if snd["notsent_bytes"][i]
                   and (snd["unacked"][i] + 1) * mss > snd["snd_wnd"][i]]
    return {
        "interval_s": round((end - start) / 1e9, 3),
        "samples": len(idx),
        "busy_time_us": busy,
        "idle_share": round(max(0.0, 1 - busy / wall_us), 3) if wall_us else 0.0,
        "rwnd_limited_share": _share(delta("rwnd_limited"), busy),
        "sndbuf_limited_share": _share(delta("sndbuf_limited"), busy),
        "window_full_sample_share": _share(len(window_full), len(busy_idx)),
        "app_limited_sample_share": _share(
            sum(snd["delivery_rate_app_limited"][i] for i in writing), len(writing)),
        "window_scaling": bool(snd["options"][last] & OPT_WSCALE),
        "receiver_window_scaling": bool(rcv["options"][-1] & OPT_WSCALE),
        "snd_wscale": snd["snd_wscale"][last], "rcv_wscale": snd["rcv_wscale"][last],
        "syn_wscale_at_sender": hs["sender"]["syn"]["wscale"],
        "synack_wscale_at_sender": hs["sender"]["synack"]["wscale"],
        "syn_wscale_at_receiver": hs["receiver"]["syn"]["wscale"],
        "synack_wscale_at_receiver": hs["receiver"]["synack"]["wscale"],
        "zero_window_samples": sum(snd["snd_wnd"][i] == 0 for i in idx
                                   if snd["state"][i] == TCP_ESTABLISHED)
        + sum(rcv["rcv_wnd"][i] == 0 for i in rcv_idx),
        "reader_backlog_share": _share(len(backlog), len(rcv_idx)),
        "read_rate_mbit": rcv_app.get("read_rate_mbit", 0),
        "so_rcvbuf": rcv_app.get("rcvbuf", 0),
        "so_sndbuf": snd_app.get("sndbuf", 0),
        "rmem_max": rmem_max, "max_sk_rcvbuf": max(rcvbufs),
        "wmem_max": wmem_max, "max_sk_sndbuf": max(sndbufs),
        "writer": snd_app.get("mode", "bulk"),
        "offered_load_mbit": offered,
        "offered_share_of_capacity": round(offered / capacity, 3) if offered and capacity
        else None,
        "offered_delivered_share": round(acked * 8 / (offered * 1e6 * span_s), 3)
        if offered and span_s else None,
        "writes_behind_share": _share(sum(snd["notsent_bytes"][i] > 2 * chunk for i in writing),
                                      len(writing)) if chunk else None,
        "total_retrans": delta("total_retrans"),
        "dsack_dups": delta("dsack_dups"),
        "reord_seen": delta("reord_seen"),
        "emulator_data_drops": len(drops),
        "emulator_queue_drops": len(queue_drops),
        "emulator_reordered": sum(ev["fate"][k] == "reordered" for k in in_iv),
        "retransmissions_spurious": sum(k == "spurious" for _, k in retx_t),
        "retransmissions_necessary": sum(k == "necessary" for _, k in retx_t),
        "first_slow_start_end_ns": ss_end,
        "slow_start_in_interval": bool(ss_end is None or ss_end >= start),
        "queue_drops_in_first_slow_start": sum(ts <= ss_end for ts in queue_drops) if ss_end
        else len(queue_drops),
        "queue_drops_after_first_slow_start": sum(ts > ss_end for ts in queue_drops) if ss_end
        else 0,
        "drops_after_first_slow_start": sum(ts > ss_end for ts in drops) if ss_end else 0,
        "link_busy_share": run["link_busy"](start, end),
        "link_busy_share_after_slow_start": run["link_busy"](steady_from, end),
        "min_rtt_us": snd["min_rtt"][last],
        "max_srtt_us": max((snd["rtt"][i] for i in idx), default=0),
        "max_cwnd": max((snd["snd_cwnd"][i] for i in idx), default=0),
        "mss": mss,
        "cc": cc,
    }


def mostly_dsacked(dsack_dups: int, total_retrans: int) -> bool:
    """The receiver reported DSACKs for at least half the resends: they were spurious."""
    return dsack_dups > 0 and 2 * dsack_dups >= total_retrans


def _cwnd_reason(e: dict) -> tuple[str | None, str]:
    full = e["link_busy_share_after_slow_start"] >= FULL_LINK
    if mostly_dsacked(e["dsack_dups"], e["total_retrans"]) and e["emulator_reordered"] \
            and e["retransmissions_spurious"] > e["retransmissions_necessary"] and not full:
        return "reorder-limited", "DSACKs for >= half the retransmissions, the emulator " \
            "confirms they resent bytes it had forwarded, link not full"
    burst = e["queue_drops_in_first_slow_start"]
    if e["slow_start_in_interval"] and burst >= OVERSHOOT_BURST and not full \
            and burst >= e["drops_after_first_slow_start"]:
        return "slow-start-overshoot", f"{burst} queue drops before the first slow start ended"
    if full:
        return "bandwidth-limited", f"bottleneck busy {e['link_busy_share_after_slow_start']:.0%}" \
            " after the first slow start"
    if e["retransmissions_necessary"] and e["total_retrans"]:
        return "loss-limited", "the emulator dropped data and the sender retransmitted it"
    return None, (f"congestion window limited but no cause: link busy "
                  f"{e['link_busy_share_after_slow_start']:.0%}, no necessary retransmission")


def _also(e: dict) -> list[str]:
    fired = []
    if rwnd_share(e) >= ALSO_SHARE:
        fired.append("rwnd-limited")
    if e["sndbuf_limited_share"] >= ALSO_SHARE:
        fired.append("sndbuf-limited")
    if app_share(e) >= SHARE and e["sndbuf_limited_share"] < APP_WITH_SNDBUF:
        fired.append("app-limited")
    if e["dsack_dups"] and e["emulator_reordered"] \
            and e["retransmissions_spurious"] > e["retransmissions_necessary"]:
        fired.append("reorder-limited")
    if e["slow_start_in_interval"] and e["queue_drops_in_first_slow_start"] >= OVERSHOOT_BURST:
        fired.append("slow-start-overshoot")
    if e["link_busy_share_after_slow_start"] >= FULL_LINK:
        fired.append("bandwidth-limited")
    if e["retransmissions_necessary"] and e["total_retrans"]:
        fired.append("loss-limited")
    return fired


def _rwnd_subtype(e: dict, spec: dict, drawn: dict) -> tuple[str, dict]:
    if not e["window_scaling"]:
        box = (spec.get("middlebox") or {}).get("strip_wscale")
        missing = "syn" if e["syn_wscale_at_receiver"] is None else "synack"
        return "no_wscale", {"missing_in": missing, "stripped_on_path": bool(box),
                             "receiver_believes_scaling": e["receiver_window_scaling"]}
    if e["reader_backlog_share"] >= SHARE:
        return "slow_reader", {"zero_window": e["zero_window_samples"] > 0,
                               "read_rate_mbit": e["read_rate_mbit"]}
    if e["so_rcvbuf"]:
        return "so_rcvbuf", {"so_rcvbuf": e["so_rcvbuf"]}
    if e["rmem_max"] and e["max_sk_rcvbuf"] >= BUFFER_AT_MAX * e["rmem_max"]:
        return "rmem_max", {"rmem_max": e["rmem_max"]}
    return "autotuning", {"max_sk_rcvbuf": e["max_sk_rcvbuf"], "rmem_max": e["rmem_max"]}


def _sndbuf_subtype(e: dict) -> tuple[str, dict]:
    if e["so_sndbuf"]:
        return "so_sndbuf", {"so_sndbuf": e["so_sndbuf"]}
    if e["wmem_max"] and e["max_sk_sndbuf"] >= BUFFER_AT_MAX * e["wmem_max"]:
        return "wmem_max", {"wmem_max": e["wmem_max"]}
    return "autotuning", {"max_sk_sndbuf": e["max_sk_sndbuf"], "wmem_max": e["wmem_max"]}


def _app_subtype(e: dict) -> tuple[str, dict]:
    kind = {"periodic": "periodic", "rr": "request_response", "paced": "periodic"}
    return kind.get(e["writer"], "writer"), {"offered_load_mbit": e["offered_load_mbit"]}


def rwnd_share(e: dict) -> float:
    """The rwnd chrono, or if larger the share of busy samples with data waiting behind a
    full peer window (a pacing sender, bbr, stops at the pacing check before the window check,
    so its chrono counts window-bound time as busy), or, when the link is not full, the share
    of receiver samples with a reader backlog (bbr paces at the rate the reader drains, so
    neither of the first two sees the window)."""
    backlog = e["reader_backlog_share"] if e["link_busy_share_after_slow_start"] < FULL_LINK \
        else 0.0
    return max(e["rwnd_limited_share"], e["window_full_sample_share"], backlog)


def app_share(e: dict) -> float:
    """The share of samples flagged delivery_rate_app_limited, or if larger the share of the
    time the sender had nothing unsent or unacknowledged (1 − Δbusy_time / Δwall time): the
    flag clears with the first ACK of each burst, so a request/response sender idling
    between short responses is rarely flagged when sampled."""
    return max(e["app_limited_sample_share"], e["idle_share"])


def served(e: dict) -> float:
    """1.0 when a paced (periodic) writer offered at most 0.8 of the link's payload capacity
    and the kernel acknowledged ≥ 90 % of what it offered while writing, while it was seldom
    more than two writes ahead of TCP: the network carried everything the application gave
    it, as it gave it. (Under bbr's pacing the app-limited flag is rarely
    set: unsent data waits for its pacing slot, and the kernel only flags a write that finds
    less than one MSS unsent.)"""
    ok = e.get("offered_delivered_share") is not None \
        and e["offered_delivered_share"] >= OFFER_SERVED \
        and e["offered_share_of_capacity"] <= OFFER_ROOM \
        and writes_behind(e) < SHARE
    return 1.0 if ok else 0.0


def writes_behind(e: dict) -> float:
    """The share of a periodic writer's samples with more than two of its writes unsent: the
    application ahead of TCP, its data waiting on the congestion window (or the peer's), so
    that what it offered was delivered on average from a backlog, at TCP's pace."""
    return e.get("writes_behind_share") or 0.0


def label(e: dict, spec: dict, drawn: dict) -> dict:
    rwnd, sndbuf, app = rwnd_share(e), e["sndbuf_limited_share"], app_share(e)
    unclear = []
    if rwnd >= SHARE:
        family, deciding, why = "rwnd-limited", rwnd, "rwnd-limited >= half the busy time"
        subtype, detail = _rwnd_subtype(e, spec, drawn)
    elif sndbuf >= SHARE:
        family, deciding, why = "sndbuf-limited", sndbuf, "sndbuf_limited/busy >= 0.5"
        subtype, detail = _sndbuf_subtype(e)
    elif (app >= SHARE or served(e)) and sndbuf < APP_WITH_SNDBUF:
        family, deciding, why = ("app-limited", max(app, served(e)),
                                 "the link had room and the paced application's whole offered "
                                 "load was delivered" if served(e) else "flagged "
                                 "delivery_rate_app_limited or idle at least half the time")
        subtype, detail = _app_subtype(e)
        if app < SHARE and writes_behind(e) > MIXED:
            unclear.append(f"the writer was more than two writes ahead of TCP in "
                           f"{writes_behind(e):.0%} of its samples")
        if rwnd > MIXED:
            unclear.append(f"rwnd-limited {rwnd:.0%} of the busy time too")
    else:
        family, why = _cwnd_reason(e)
        subtype, detail = None, {}
        if family is None and app >= ALSO_SHARE and sndbuf < APP_WITH_SNDBUF:
            # Nothing held the sender back but its application: it idled, the link did not fill.
            family, why = "app-limited", f"no other limit and the sender idle or app-limited " \
                f"{app:.0%} of the time"
            subtype, detail = _app_subtype(e)
        elif family is None:
            unclear.append(why)
        for name, share in (("rwnd", rwnd), ("sndbuf", sndbuf),
                            ("app", app if family != "app-limited" else 0)):
            if share > MIXED:
                unclear.append(f"{name} share {share:.0%} (neither dominant nor negligible)")
        deciding = 1.0
    if family and family in ("rwnd-limited", "sndbuf-limited", "app-limited") \
            and deciding < CLEAR:
        unclear.append(f"{family} only {deciding:.0%}")
    if e["samples"] < 20:
        unclear.append(f"only {e['samples']} TCP_INFO samples in the interval")
    also = [f for f in _also(e) if f != family]
    name = family or "undetermined"
    return {"label": f"{name}:{subtype}" if subtype else name, "primary": name,
            "subtype": subtype, "detail": detail, "also": also, "clear": not unclear,
            "unclear_why": "; ".join(unclear) or None, "reason": why}

"""Score the engine's answers against the kernel labels: one case per (run, interval, vantage),
then confusion matrices, accuracies, share/in-flight/cwnd agreement and the lists of wrong,
unclear and dishonest runs."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter, defaultdict
from dataclasses import asdict

import numpy as np

from benchmarks.accuracy import engine, kernel
from samples.generate import label

VANTAGES = ("sender", "receiver", "middle")
FAMILIES = ["rwnd-limited", "sndbuf-limited", "app-limited", "reorder-limited",
            "slow-start-overshoot", "loss-limited", "bandwidth-limited"]
REMEDY_FAMILIES = ("rwnd-limited", "sndbuf-limited", "app-limited")  # the remedy hangs on the sub-type
SHARE_TOLERANCE = 0.10
FLIGHT_TARGET = 0.99
CWND_TARGET = 0.10
ACCURACY_TARGET = 0.95


def load_truth(run_dir: str) -> dict | None:
    path = os.path.join(run_dir, "truth.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def conditions(t: dict) -> str:
    """The run's conditions in one line, for the list of wrong cases."""
    d, s = t["drawn"], t["spec"]
    parts = [f"story {d['story']}", f"{d['rate_mbit']:g} Mbit/s", f"RTT {d['rtt_ms']:g} ms",
             f"FIFO {d['queue_bdp']:g} BDP", s["cc"], s["family"]]
    if s["mtu"] != 1500:
        parts.append(f"MTU {s['mtu']}")
    a2b, b2a = s["a2b"], s["b2a"]
    if a2b.get("loss"):
        parts.append(f"loss {a2b['loss']:.2%} {a2b.get('loss_at', 'before_mid')}")
    if a2b.get("reorder"):
        parts.append(f"reorder {a2b['reorder']:.1%} +{a2b['reorder_extra_ms']:g} ms "
                     f"{a2b.get('reorder_at', 'after_mid')}")
    if b2a.get("ack_loss"):
        parts.append(f"ACK loss {b2a['ack_loss']:.1%}")
    if not d.get("rack", True):
        parts.append("RACK off")
    for side in ("sender", "receiver"):
        app = s[side]["app"]
        for k in ("sndbuf", "rcvbuf", "read_rate_mbit", "read_size", "chunk", "period_ms",
                  "response", "think_ms"):
            if k in app and not (k == "read_size" and "read_rate_mbit" not in app):
                parts.append(f"{side} {k}={app[k]}")
        for k, v in s[side]["sysctls"].items():
            parts.append(f"{side} {k.removeprefix('net.ipv4.')}={v}")
    if s.get("middlebox"):
        parts.append("middlebox " + ",".join(sorted(s["middlebox"])))
    if d.get("mixture"):
        parts.append(f"mixture {d['mixture']}")
    return "; ".join(parts)


def evaluate_run(exe: list[str], run_dir: str, t: dict) -> list[dict]:
    """Every case of one run: each interval (full, cut) at each vantage."""
    cases = []
    for interval, lab in t["labels"].items():
        start = lab["start_ns"] if interval == "cut" else None
        for v in VANTAGES:
            key = v if interval == "full" else f"{v}_cut"
            path = os.path.join(run_dir, t["files"][key])
            sender = tuple(t["captures"][v]["as_seen"]["sender"])
            ans = engine.analyze(exe, path, sender)
            case = {"seed": t["seed"], "interval": interval, "vantage": v,
                    "capture": os.path.relpath(path, os.path.dirname(run_dir)),
                    "kernel": {k: lab[k] for k in ("label", "primary", "subtype", "detail",
                                                   "also", "clear", "unclear_why")},
                    "kernel_shares": {"rwnd": lab["evidence"]["rwnd_limited_share"],
                                      "sndbuf": lab["evidence"]["sndbuf_limited_share"],
                                      "app": lab["evidence"]["app_limited_sample_share"]},
                    "engine": asdict(ans), "cc": t["spec"]["cc"], "story": t["story"]}
            case["right"] = not ans.abstained and ans.family == lab["primary"]
            case["subtype_right"] = case["right"] and ans.subtype == lab["subtype"] \
                if lab["subtype"] else None
            if v == "sender":
                case.update(_sender_checks(exe, path, ans, sender, t, lab, start))
            cases.append(case)
    return cases


def _sender_checks(exe, path, ans, sender, t, lab, start) -> dict:
    out = {}
    for name, mine in (("rwnd", ans.rwnd_share), ("sndbuf", ans.sndbuf_share)):
        k = lab["evidence"][f"{name}_limited_share"]
        out[f"{name}_share_error"] = None if mine is None else round(abs(mine - k), 3)
    # Against the label's rwnd share too (the chrono, or window-full samples / reader backlog
    # where bbr's pacing hides the window from the chrono).
    out["rwnd_share_error_vs_label"] = None if ans.rwnd_share is None else \
        round(abs(ans.rwnd_share - label.rwnd_share(lab["evidence"])), 3)
    if ans.stream < 0:
        return out
    try:
        p = engine.packets(exe, path, ans, sender)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        out["packets_error"] = str(e)[:300]
        return out
    info = t["tcp_info"]["sender"]
    out["flight"] = kernel.flight_agreement(p.ts_ns, p.in_flight, info, start_ns=start)
    err = kernel.cwnd_errors(p.ts_ns, p.cwnd, info, start_ns=start)
    out["cwnd"] = {"samples": int(len(err)),
                   "median_error": round(float(np.median(err)), 4) if len(err) else None,
                   "errors": [round(float(x), 4) for x in err]}
    return out


def matrix(cases: list[dict]) -> dict:
    """kernel primary → engine family → count."""
    m = defaultdict(Counter)
    for c in cases:
        col = c["engine"]["family"] if not c["engine"]["abstained"] else \
            f"({c['engine']['engine_id']})"
        m[c["kernel"]["primary"]][col] += 1
    return {k: dict(v) for k, v in m.items()}


def _acc(cases: list[dict]) -> dict:
    n = len(cases)
    right = sum(c["right"] for c in cases)
    return {"n": n, "right": right, "accuracy": round(right / n, 4) if n else None}


def summarise(cases: list[dict], runs: dict) -> dict:
    clear = [c for c in cases if c["kernel"]["clear"]]
    out = {"runs": dict(runs), "cases": len(cases),
           "clear_cases": len(clear), "by_vantage": {}, "matrices": {}}
    for interval in ("full", "cut"):
        for v in VANTAGES:
            mine = [c for c in clear if c["interval"] == interval and c["vantage"] == v]
            if mine:
                key = v if interval == "full" else f"{v} (cut)"
                out["by_vantage"][key] = _acc(mine)
                out["by_vantage"][key]["inferred_vantage_right"] = round(
                    sum(c["engine"]["vantage"] == v for c in mine) / len(mine), 4)
                out["matrices"][key] = matrix(mine)
    out["remedy_subtype"] = remedy_subtype(clear)
    snd = [c for c in cases if c["vantage"] == "sender"]
    for name in ("rwnd", "sndbuf", "rwnd_vs_label"):
        key = f"{name}_share_error" if name != "rwnd_vs_label" else "rwnd_share_error_vs_label"
        errs = [c[key] for c in snd if c.get(key) is not None]
        out[f"{name}_share"] = {
            "runs": len(errs), "within": sum(e <= SHARE_TOLERANCE for e in errs),
            "share_within": round(sum(e <= SHARE_TOLERANCE for e in errs) / len(errs), 4)
            if errs else None,
            "missing": sum(c.get(key) is None for c in snd)}
    out["share_outliers"] = sorted(
        ({"seed": c["seed"], "interval": c["interval"], "kernel": c["kernel_shares"],
          "engine": {"rwnd": c["engine"]["rwnd_share"], "sndbuf": c["engine"]["sndbuf_share"]},
          "cc": c["cc"], "label": c["kernel"]["label"]}
         for c in snd if max(c.get("rwnd_share_error") or 0, c.get("sndbuf_share_error") or 0)
         > SHARE_TOLERANCE),
        key=lambda r: (r["seed"], r["interval"]))
    fl = [c for c in snd if c.get("flight", {}).get("within_1mss") is not None]
    out["flight"] = {"runs": len(fl),
                     "runs_meeting_target": sum(c["flight"]["within_1mss"] >= FLIGHT_TARGET
                                                for c in fl),
                     "median_run_share": round(float(np.median(
                         [c["flight"]["within_1mss"] for c in fl])), 4) if fl else None,
                     "worst": sorted(({"seed": c["seed"], "interval": c["interval"],
                                       **{k: c["flight"][k] for k in ("within_1mss", "samples",
                                                                       "worst_mss")}}
                                      for c in fl), key=lambda r: r["within_1mss"])[:15]}
    # Congestion control: answered (not "unknown") and right, per vantage, full and cut.
    out["cc"] = {}
    for v in VANTAGES:
        mine = [c for c in cases if c["vantage"] == v]
        said = [c for c in mine if c["engine"].get("cc", "unknown") != "unknown"]
        out["cc"][v] = {"cases": len(mine), "answered": len(said),
                        "right": sum(c["engine"]["cc"] == c["cc"] for c in said),
                        "by_cc": {cc: {"n": len(g), "answered": sum(c["engine"]["cc"] != "unknown" for c in g),
                                       "right": sum(c["engine"]["cc"] == cc for c in g)}
                                  for cc, g in _group(mine, lambda c: c["cc"]).items()},
                        "wrong": [{"seed": c["seed"], "interval": c["interval"], "cc": c["cc"],
                                   "engine": c["engine"]["cc"], "evidence": c["engine"]["cc_evidence"]}
                                  for c in said if c["engine"]["cc"] != c["cc"]]}
    out["slowest"] = sorted(({"capture": c["capture"], "elapsed_s": c["engine"]["elapsed_s"],
                              "engine_id": c["engine"]["engine_id"]} for c in cases),
                            key=lambda r: -r["elapsed_s"])[:5]
    out["cwnd"] = {}
    for cc, group in _group([c for c in snd if c.get("cwnd", {}).get("samples")],
                            lambda c: c["cc"]).items():
        pooled = [e for c in group for e in c["cwnd"]["errors"]]
        meds = [c["cwnd"]["median_error"] for c in group]
        out["cwnd"][cc] = {"runs": len(group), "samples": len(pooled),
                           "pooled_median_error": round(float(np.median(pooled)), 4),
                           "runs_median_within": sum(m <= CWND_TARGET for m in meds),
                           "median_of_run_medians": round(float(np.median(meds)), 4)}
    return out


def remedy_subtype(clear: list[dict]) -> dict:
    """How often the remedy's sub-type was right, over clear cases of REMEDY_FAMILIES (also
    recomputed for a --before file, so both sides count the same families)."""
    sub = [c for c in clear if c["kernel"]["primary"] in REMEDY_FAMILIES]

    def right(cases):
        return sum(bool(c["subtype_right"]) for c in cases)

    return {
        "families": list(REMEDY_FAMILIES),
        "n": len(sub), "right": (n_right := right(sub)),
        "accuracy": round(n_right / len(sub), 4) if sub else None,
        "by_kernel_subtype": {k: {"n": len(g), "right": right(g)}
                              for k, g in _group(sub, lambda c: c["kernel"]["label"]).items()},
        "by_family": {k: {"n": len(g), "right": right(g),
                          "named": sum(c["engine"]["subtype"] is not None for c in g)}
                      for k, g in _group(sub, lambda c: c["kernel"]["primary"]).items()}}


def _group(items, key) -> dict:
    g = defaultdict(list)
    for x in items:
        g[key(x)].append(x)
    return dict(sorted(g.items()))

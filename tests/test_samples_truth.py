"""The committed ground-truth samples agree with themselves and with their captures.

Independent of tcpdiag: captures are read with the generator's stdlib pcap reader and with
tshark (when installed); the kernel counters a scenario's story rests on are checked against
the thresholds samples/README.md states.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
from collections import Counter

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from samples.generate import emulog, pcap, verdict  # noqa: E402
from samples.generate.packet import SYN, parse_ip_tcp  # noqa: E402

SAMPLES = os.path.join(REPO, "samples")
TRUTHS = sorted(glob.glob(os.path.join(SAMPLES, "*.truth.json")))
NAMES = [os.path.basename(p)[: -len(".truth.json")] for p in TRUTHS]
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")


def load(name: str) -> dict:
    with open(os.path.join(SAMPLES, f"{name}.truth.json")) as f:
        return json.load(f)


def capture_path(truth: dict, side: str) -> str:
    return os.path.join(SAMPLES, truth["files"][f"{side}_capture"])


def read_segments(path: str):
    """(capture stamp ns, decoded TCP segment) of every TCP packet of a capture."""
    return [(ts, s) for ts, _, raw in pcap.read(path) if (s := parse_ip_tcp(raw))]


def segments(truth: dict, side: str):
    return read_segments(capture_path(truth, side))


def tshark_fields(path: str, display_filter: str, *fields: str) -> list[list[str]]:
    cmd = [TSHARK, "-n", "-r", path, "-Y", display_filter, "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def kernel(truth: dict, side: str = "sender") -> dict:
    return truth["final_tcp_info"][side]


def share(part: str, truth: dict) -> float:
    k = kernel(truth)
    return k[part] / k["busy_time"]


def test_samples_exist():
    assert len(NAMES) >= 11, NAMES


# --- every sample ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_files_named_in_truth_exist(name):
    truth = load(name)
    for f in truth["files"].values():
        assert os.path.exists(os.path.join(SAMPLES, f)), f


@pytest.mark.parametrize("name", NAMES)
def test_tcp_info_series_are_columns_of_equal_length_in_time_order(name):
    truth = load(name)
    for side, cols in truth["tcp_info"].items():
        lengths = {len(v) for v in cols.values()}
        assert len(lengths) == 1, (side, lengths)
        t = cols["t_ns"]
        assert t == sorted(t)
        assert cols["t_ns"][-1] == kernel(truth, side)["t_ns"]


@pytest.mark.parametrize("name", NAMES)
def test_flow_four_tuple_is_the_only_flow_in_both_captures(name):
    truth = load(name)
    fl = truth["flow"]
    s, r = fl["sender"], fl["receiver"]
    ends = {(s["ip"], s["port"]), (r["ip"], r["port"])}
    for side in ("sender", "receiver"):
        segs = segments(truth, side)
        assert len(segs) == truth["captures"][side]["packets"]
        assert all({(x.src, x.sport), (x.dst, x.dport)} == ends for _, x in segs)
        first = segs[0][1]
        assert first.flags & SYN and (first.src, first.sport) == (s["ip"], s["port"])


@pytest.mark.parametrize("name", NAMES)
def test_capture_timing_was_honest(name):
    truth = load(name)
    for side in ("sender", "receiver"):
        td = truth["captures"][side]["tcpdump"]
        assert td["dropped_by_kernel"] == 0 and td["captured"] == td["received_by_filter"]
    lat = truth["emulator"]["delivery_lateness"]
    assert lat["over_1ms"] <= 0.005 * lat["n"] and lat["max_us"] <= 10_000


@pytest.mark.parametrize("name", NAMES)
def test_emulator_log_accounts_for_every_captured_data_segment(name):
    truth = load(name)
    rows = emulog.load(os.path.join(SAMPLES, truth["files"]["emulator_log"]))
    data = [r for r in rows if r["dir"] == "a2b" and r["len"] > 0 and r["seq"] >= 0]
    sender_ip = truth["flow"]["sender"]["ip"]
    sent = Counter(s.seq for _, s in segments(truth, "sender") if s.src == sender_ip and s.payload)
    arrived = Counter(s.seq for _, s in segments(truth, "receiver")
                      if s.src == sender_ip and s.payload)
    assert sent == Counter(r["seq"] for r in data)
    assert arrived == Counter(r["seq"] for r in data if r["fate"] in ("F", "R"))


@pytest.mark.parametrize("name", NAMES)
def test_expected_verdict_follows_from_committed_counters(name):
    truth = load(name)
    exp = truth["expected"]
    again = verdict.expected(exp["evidence"])
    assert (again["verdict"], again["also"]) == (exp["verdict"], exp["also"])
    assert exp["verdict"] == truth["intended"]


@needs_tshark
@pytest.mark.parametrize("name", NAMES)
def test_tshark_reads_both_captures(name):
    truth = load(name)
    fl = truth["flow"]
    ip = "ipv6" if fl["family"] == "ipv6" else "ip"
    flt = (f"{ip}.src=={fl['sender']['ip']} && tcp.srcport=={fl['sender']['port']} && "
           f"{ip}.dst=={fl['receiver']['ip']} && tcp.dstport=={fl['receiver']['port']}")
    for side in ("sender", "receiver"):
        rows = tshark_fields(capture_path(truth, side), flt, "frame.number")
        assert rows, side


# --- each story, in the kernel's own counters ------------------------------------------------

def test_small_rcvbuf_is_rwnd_limited_by_a_window_that_never_grows():
    t = load("small_rcvbuf")
    assert share("rwnd_limited", t) > 0.5
    wnd = t["tcp_info"]["sender"]["snd_wnd"]
    assert max(wnd) < 128 * 1024  # 64 KiB SO_RCVBUF, doubled by the kernel, minus overhead
    assert kernel(t)["options"] & 4  # scaling was negotiated: the buffer, not the option, binds


@needs_tshark
def test_wscale_off_synack_lacks_window_scale_and_window_stays_under_64k():
    t = load("wscale_off")
    k = kernel(t)
    assert not k["options"] & 4 and k["snd_wscale"] == 0 and k["rcv_wscale"] == 0
    assert share("rwnd_limited", t) > 0.5
    assert max(t["tcp_info"]["sender"]["snd_wnd"]) <= 65535
    path = capture_path(t, "sender")
    syn = tshark_fields(path, "tcp.flags.syn==1 && tcp.flags.ack==0", "tcp.options.wscale.shift")
    synack = tshark_fields(path, "tcp.flags.syn==1 && tcp.flags.ack==1",
                           "tcp.options.wscale.shift")
    assert syn[0][0] != ""  # the sender offered scaling
    assert synack[0][0] == ""  # the receiver, with scaling disabled, did not


def test_small_sndbuf_is_send_buffer_limited():
    t = load("small_sndbuf")
    assert share("sndbuf_limited", t) > 0.5
    assert share("rwnd_limited", t) < 0.1


def test_app_limited_marks_most_samples_app_limited():
    t = load("app_limited")
    s = t["tcp_info"]["sender"]
    end = t["result"]["write_end_ns"]
    flags = [f for f, ts, b in zip(s["delivery_rate_app_limited"], s["t_ns"], s["bytes_sent"])
             if ts <= end and b]
    assert sum(flags) / len(flags) > 0.5
    assert share("sndbuf_limited", t) < 0.2 and share("rwnd_limited", t) < 0.5


@pytest.mark.parametrize("name", ["reordering", "reorder_rcvbuf"])
def test_reordering_retransmissions_are_spurious_and_dsacked(name):
    t = load(name)
    k = kernel(t)
    emu = t["emulator"]
    assert emu["directions"]["a2b"]["reordered"] > 0
    assert emu["directions"]["a2b"]["queue_drop"] == emu["directions"]["a2b"]["random_loss"] == 0
    assert k["total_retrans"] > 0 and k["dsack_dups"] >= k["total_retrans"] / 2
    assert emu["retransmissions"]["spurious"] == emu["retransmissions"]["total"]


def test_reorder_rcvbuf_is_also_rwnd_limited():
    assert share("rwnd_limited", load("reorder_rcvbuf")) > 0.5


def test_random_loss_drops_are_retransmitted():
    t = load("random_loss")
    ev = t["emulator"]["data_events"]
    dropped = [s for s, f in zip(ev["seq"], ev["fate"]) if f == "random_loss"]
    assert dropped
    sender_ip = t["flow"]["sender"]["ip"]
    seen = Counter(s.seq for _, s in segments(t, "sender") if s.src == sender_ip and s.payload)
    assert all(seen[s] >= 2 for s in dropped)
    assert kernel(t)["total_retrans"] >= len(set(dropped))


def test_shallow_buffer_first_slow_start_ends_in_a_burst_of_queue_drops():
    t = load("shallow_buffer")
    s = t["tcp_info"]["sender"]
    first_set = next(ts for ts, th in zip(s["t_ns"], s["snd_ssthresh"])
                     if th < verdict.INFINITE_SSTHRESH)
    ev = t["emulator"]["data_events"]
    burst = [ts for ts, f in zip(ev["t_in_ns"], ev["fate"])
             if f == "queue_drop" and ts <= first_set]
    assert len(burst) >= verdict.OVERSHOOT_BURST


def test_slow_reader_window_reaches_zero_on_the_wire_and_in_the_kernel():
    t = load("slow_reader")
    assert 0 in t["tcp_info"]["sender"]["snd_wnd"]
    assert 0 in t["tcp_info"]["receiver"]["rcv_wnd"]
    rcv_ip = t["flow"]["receiver"]["ip"]
    zero = [s for _, s in segments(t, "receiver") if s.src == rcv_ip and s.win == 0]
    assert zero


@pytest.mark.parametrize("name", ["clean_bulk", "bandwidth_limited", "clean_bulk_ipv6"])
def test_bulk_flows_fill_the_bottleneck(name):
    e = load(name)["expected"]["evidence"]
    assert e["link_utilisation"] >= 0.85
    assert e["rwnd_limited_share"] < 0.1 and e["sndbuf_limited_share"] < 0.1


def test_bandwidth_limited_queue_inflates_rtt_without_loss():
    e = load("bandwidth_limited")["expected"]["evidence"]
    assert e["emulator_data_drops"] == 0
    assert e["srtt_inflation"] >= 2 and e["max_flight_over_bdp"] >= 2

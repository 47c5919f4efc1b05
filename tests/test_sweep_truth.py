"""The committed sweep subset (samples/sweep/<seed>/) agrees with itself and its captures.

Independent of tcpdiag: captures are read with the generator's stdlib reader (and tshark when
installed); labels are recomputed from the truth and the emulator log alone and must equal
the stored ones; the middle capture must be exactly the packets the emulator passed through
the path's midpoint, at the times it scheduled them.
"""

import glob
import json
import os
import sys
from collections import Counter

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))
from samples.generate import emulog, label, run, space, subset, sweep_truth  # noqa: E402
from samples.generate.packet import SYN  # noqa: E402
from test_samples_truth import needs_tshark, read_segments, tshark_fields  # noqa: E402

SUBSET = os.path.join(REPO, "samples", "sweep")
RUNS = sorted(int(os.path.basename(os.path.dirname(p)))
              for p in glob.glob(os.path.join(SUBSET, "*", "truth.json")))
VANTAGES = ("sender", "receiver", "middle")


def load(seed: int) -> dict:
    with open(os.path.join(SUBSET, str(seed), "truth.json")) as f:
        return json.load(f)


def path(t: dict, key: str) -> str:
    return os.path.join(SUBSET, str(t["seed"]), t["files"][key])


def rows(t: dict) -> list[dict]:
    return emulog.load(path(t, "emulator_log"))


def isn_shift(t: dict) -> int:
    """How far the middlebox moved the data sender's sequence numbers (0 without one)."""
    return ((t["spec"].get("middlebox") or {}).get("isn_offset") or {}).get("a2b", 0)


def data_seqs(t: dict, key: str, vantage: str) -> Counter:
    src = t["captures"][vantage]["as_seen"]["sender"][0]
    return Counter(s.seq for _, s in read_segments(path(t, key)) if s.src == src and s.payload)


def test_subset_covers_every_label_vantage_cc_and_cut():
    truths = [load(s) for s in RUNS]
    assert 15 <= len(truths) <= 30
    primaries = {t["labels"]["full"]["primary"] for t in truths}
    assert primaries >= {"rwnd-limited", "sndbuf-limited", "app-limited", "reorder-limited",
                         "slow-start-overshoot", "loss-limited", "bandwidth-limited"}
    assert {t["spec"]["cc"] for t in truths} == {"cubic", "reno", "bbr"}
    assert any("cut" in t["labels"] for t in truths)
    assert all(set(VANTAGES) <= set(t["files"]) for t in truths)


def test_seeds_md_generated_parts_are_current():
    with open(subset.DOC) as f:
        text = f.read()
    assert subset.render_doc(text) == text, "run: python3 -m samples.generate.subset --doc"


def test_subset_comes_from_the_tuning_range_only():
    with open(os.path.join(SUBSET, "seeds.json")) as f:
        lo, hi = json.load(f)["ranges"]["tuning"]["seeds"]
    assert all(lo <= s <= hi for s in RUNS)


@pytest.mark.parametrize("seed", RUNS)
def test_spec_is_the_draw_of_its_seed(seed):
    t = load(seed)
    assert t["space_version"] == space.SPACE_VERSION
    assert space.draw(seed) == {"spec": t["spec"], "drawn": t["drawn"]}


@pytest.mark.parametrize("seed", RUNS)
def test_run_was_honest(seed):
    t = load(seed)
    assert t["generated"]["honest"] and not t["honesty"]["problems"]
    assert not run.honesty_problems(t)
    assert t["result"]["bytes_received"] == t["result"]["bytes_written"] > 0


@pytest.mark.parametrize("seed", RUNS)
def test_tcp_info_columns_are_aligned_and_stamped_around_the_call(seed):
    t = load(seed)
    for side, cols in t["tcp_info"].items():
        assert len({len(v) for v in cols.values()}) == 1, side
        assert cols["t_ns"] == sorted(cols["t_ns"])
        assert all(a <= b for a, b in zip(cols["t0_ns"], cols["t_ns"]))


@pytest.mark.parametrize("seed", RUNS)
def test_each_capture_holds_the_one_flow_as_seen_at_its_vantage(seed):
    t = load(seed)
    for v in VANTAGES:
        seen = t["captures"][v]["as_seen"]
        ends = {tuple(seen["sender"]), tuple(seen["receiver"])}
        segs = read_segments(path(t, v))
        assert len(segs) == t["captures"][v]["packets"]
        assert all({(s.src, s.sport), (s.dst, s.dport)} == ends for _, s in segs), v
        assert segs[0][1].flags & SYN
        if v == "middle":  # written in time order by construction (tcpdump's may swap by µs)
            assert [ts for ts, _ in segs] == sorted(ts for ts, _ in segs)


@pytest.mark.parametrize("seed", [s for s in RUNS if "cut" in load(s)["labels"]])
def test_cut_captures_are_the_full_ones_from_the_cut_on(seed):
    t = load(seed)
    start = t["labels"]["cut"]["start_ns"]
    for v in VANTAGES:
        full = read_segments(path(t, v))
        cut = read_segments(path(t, f"{v}_cut"))
        assert cut == [(ts, s) for ts, s in full if ts >= start]
        assert cut and not any(s.flags & SYN for _, s in cut)


@pytest.mark.parametrize("seed", RUNS)
def test_emulator_log_accounts_for_every_data_segment_at_every_vantage(seed):
    t = load(seed)
    data = [r for r in rows(t) if r["dir"] == "a2b" and r["len"] > 0 and r["seq"] >= 0]
    shift = isn_shift(t)

    def moved(rs):
        return Counter((r["seq"] + shift) % 2**32 for r in rs)

    assert data_seqs(t, "sender", "sender") == Counter(r["seq"] for r in data)
    assert data_seqs(t, "receiver", "receiver") == moved(r for r in data if r["fate"] in "FR")
    assert data_seqs(t, "middle", "middle") == moved(r for r in data if r["t_mid_ns"])


@pytest.mark.parametrize("seed", RUNS)
def test_middle_capture_is_stamped_with_the_emulators_midpoint_times(seed):
    t = load(seed)
    mids = sorted(r["t_mid_ns"] for r in rows(t) if r["t_mid_ns"] and r["seq"] >= 0)
    assert [ts for ts, _ in read_segments(path(t, "middle"))] == mids


@pytest.mark.parametrize("seed", RUNS)
def test_labels_follow_from_the_truth_and_the_log(seed):
    t = load(seed)
    again = sweep_truth.compute_labels(t, rows(t))
    assert again == t["labels"]
    full = t["labels"]["full"]
    assert full["clear"], full["unclear_why"]
    e = full["evidence"]
    if full["primary"] == "rwnd-limited":
        assert label.rwnd_share(e) >= label.SHARE
    elif full["primary"] == "sndbuf-limited":
        assert e["sndbuf_limited_share"] >= label.SHARE
    elif full["primary"] == "bandwidth-limited":
        assert e["link_busy_share_after_slow_start"] >= label.FULL_LINK


@pytest.mark.parametrize("seed", RUNS)
def test_kernel_series_is_the_tcp_info_arithmetic(seed):
    t = load(seed)
    info, ser = t["tcp_info"]["sender"], t["series"]
    for i in range(0, len(info["t_ns"]), 7):
        pkts = info["unacked"][i] - info["sacked"][i] - info["lost"][i] + info["retrans"][i]
        assert ser["in_flight_bytes"][i] == pkts * info["snd_mss"][i]
        assert ser["cwnd_bytes"][i] == info["snd_cwnd"][i] * info["snd_mss"][i]


@needs_tshark
@pytest.mark.parametrize("seed", RUNS)
def test_tshark_reads_the_captures_the_generator_wrote_itself(seed):
    t = load(seed)
    for key in ("middle", "middle_cut", "sender_cut"):
        if key in t["files"]:
            got = tshark_fields(path(t, key), "tcp", "frame.number")
            counts = t["captures"][key.split("_")[0]]
            assert len(got) == counts["cut_packets" if key.endswith("_cut") else "packets"], key

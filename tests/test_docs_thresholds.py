"""The prose of docs/verdicts.md and docs/engine.md states the engine's thresholds; the
constants in analyse/*.rs are the one source. Each phrase below is rebuilt from the
constants and must appear in the doc (line breaks aside), so a changed threshold fails here
until its prose says the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ANALYSE = ROOT / "analyzer" / "core" / "src" / "analyse"
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 8: "eight", 10: "ten", 16: "sixteen"}


def constants() -> dict[str, float]:
    out = {}
    for rs in ANALYSE.glob("*.rs"):
        for name, value in re.findall(r"^(?:pub(?:\(\w+\))? )?const (\w+): \w+ = ([0-9_.]+);", rs.read_text(), re.M):
            out[name] = float(value.replace("_", ""))
    return out


def pct(x: float) -> str:
    return f"{x * 100:g}"


def times(x: float) -> str:
    return f"{x:g}"


def us(ns: float) -> str:
    return f"{ns / 1e3:g}"


def ms(ns: float) -> str:
    return f"{ns / 1e6:g}"


def seconds(ns: float) -> str:
    return f"{ns / 1e9:g}"


def word(x: float) -> str:
    return WORDS[int(x)]


def one_in(mask: float) -> str:
    """A keep mask (a power of two less one) as the prose's "one … in N"."""
    return WORDS[int(mask) + 1]


def twice(x: float) -> str:
    assert x == 2, "the prose says twice"
    return "twice"


def half(x: float) -> str:
    assert x == 0.5, "the prose says half"
    return "half"


def an_eighth(x: float) -> str:
    assert x == 0.125, "the prose says an eighth"
    return "an eighth"


#: (doc, phrase with {0}, {1}… filled from (constant, rendering) in order)
PHRASES = [
    ("verdicts.md", "{0}th percentile of the delivery rate over {1:g} ACKs",
     [("CAPACITY_PERCENTILE", pct), ("SPAN_EVENTS", float)]),
    ("verdicts.md", "where it holds ≥ {0} % of those samples and is at least {1}× that percentile",
     [("PAIR_MIN_SHARE", pct), ("PAIR_FLOOR", times)]),
    ("verdicts.md", "first came within {0} % of that rate, delivered ≥ {1} % of it",
     [("NEAR_CAPACITY", pct), ("FULL_LINK", pct)]),
    ("verdicts.md", "about one such pair in {0} is kept", [("ARRIVAL_KEEP_MASK", one_in)]),
    ("verdicts.md", "covers ≥ {0} % of its delivery time or {1} mean RTTs",
     [("STRETCH_SHARE", pct), ("STRETCH_RTTS", word)]),
    ("verdicts.md", "mean RTT ≥ {0}× its minimum", [("QUEUE_SIGN", times)]),
    ("verdicts.md", "or its congestion window held it {0} the busy time or more with no send-buffer plateau",
     [("CWND_HELD", half)]),
    ("verdicts.md", "a flight held flat by either window {0} the busy time or more on a link whose packet pairs timed it",
     [("CWND_HELD", half)]),
    ("verdicts.md", "an RTT ≥ {0}× its minimum stands in", [("QUEUE_INFLATION", times)]),
    ("verdicts.md", "spent less time in pauses of {0} ms or more with nothing outstanding", [("MIN_PAUSE_NS", ms)]),
    ("verdicts.md", "where that capacity is {0}× or more what the flow sustained over windows of {1} ms (their {2}th percentile, once there are {3} of them) and no packet-pair cluster within {0}× of the 16-ACK percentile",
     [("BURST_OVER_SUSTAINED", times), ("SUSTAIN_NS", ms), ("CAPACITY_PERCENTILE", pct), ("SUSTAIN_WINDOWS", times)]),
    ("verdicts.md", "delivered in its median window at least {0} % of that rate", [("STEADY_WINDOWS", pct)]),
    ("verdicts.md", "(at most {0} of)", [("SLOW_READER_FILL", half)]),
    ("engine.md", "within {0} RTTs", [("DRY_RTTS", word)]),
    ("engine.md", "flat within ±{0} % for {1} RTTs", [("FLAT_BAND", pct), ("FLAT_RTTS", word)]),
    ("engine.md", "a dip below the band for at most {0} RTT too", [("DIP_RTTS", word)]),
    ("engine.md", "the window binds ≥ {0} % of busy time", [("MIN_SHARE", pct)]),
    ("engine.md", "averaged at most {0} the largest", [("SLOW_READER_FILL", half)]),
    ("verdicts.md", "recovery took over {0} % of the busy time, when more than {1} % of the segments were lost",
     [("LOSS_RECOVERY_SHARE", pct), ("LOSS_RATE", pct)]),
    ("verdicts.md", "the congestion window held the sender {0} the busy time or more", [("CWND_HELD", half)]),
    ("verdicts.md", "their Mathis figure is more than {0}× the flow's goodput", [("KEPT_DOWN_MATHIS", times)]),
    ("engine.md", "its Mathis figure within {0}× the goodput", [("KEPT_DOWN_MATHIS", times)]),
    ("verdicts.md", "The congestion window held the sender {0} the busy time or more, and none of its causes",
     [("CWND_HELD", half)]),
    ("verdicts.md", "never under {0}× its best for {1} round trips", [("GROWTH", times), ("FLAT_ROUNDS", word)]),
    ("findings.md", "it never stayed under {0}× its best for {1} round trips", [("GROWTH", times), ("FLAT_ROUNDS", word)]),
    ("engine.md", "for {0} the busy time or more, bound or not", [("SLOW_READER_HELD", half)]),
    ("verdicts.md", "or less for {0} the busy time or more is a slow reader", [("SLOW_READER_HELD", half)]),
    ("engine.md", "SYN scale {0} or more shifts above", [("SPARE_SHIFTS", word)]),
    ("verdicts.md", "needed {0} or more shifts fewer than the SYN offered", [("SPARE_SHIFTS", word)]),
    ("engine.md", "holds at least {0} the genuine losses", [("OVERSHOOT_LOSS_SHARE", half)]),
    ("engine.md", "{0} or more of them lost", [("OVERSHOOT_MIN_LOSSES", word)]),
    ("engine.md", "{0} round trips in a row under {1}× the best before it",
     [("FLAT_ROUNDS", word), ("GROWTH", times)]),
    ("verdicts.md", "after it spanned {0} µs", [("SHORT_TRAIN_NS", us)]),
    ("engine.md", "and at least {0} of them, were proved spurious", [("MIN_SPURIOUS", times)]),
    ("engine.md", "and its first {0} are credited to it", [("FLAT_RTTS", word)]),
    ("engine.md", "to within {0} segments of the W_max that loss set", [("WMAX_REACH", word)]),
    ("engine.md", "is proven flat only after {0} s there", [("CUBIC_FLAT_NS", seconds)]),
    ("engine.md", "below {0} Reno, up to {1} CUBIC, from {2} no cut",
     [("RENO_CUBIC_SPLIT", times), ("CUBIC_CUT_MAX", times), ("NO_CUT", times)]),
    ("engine.md", "neither within {0} µs of an ACK nor within {1} µs of the previous segment",
     [("ON_ACK_NS", us), ("BACK_TO_BACK_NS", us)]),
    ("engine.md", "≥ {0} % paced, ≤ {1} % ACK-clocked", [("PACED_SHARE", pct), ("CLOCKED_SHARE", pct)]),
    ("engine.md", "A floor under {0} ms puts its end beside the capture point", [("TURNAROUND_NS", ms)]),
    ("engine.md", "a floor {0} times the other", [("DOMINANCE", word)]),
    ("engine.md", "rwnd (less than {0} segments of usable window under a window whose scale is known",
     [("DEFER_SEGMENTS", word)]),
    ("engine.md", "an inferred window that never reached {0} segments", [("INFERRED_BINDING_SEGMENTS", word)]),
    ("engine.md", "(away from the sender, {0} more: the rebuilt flight's slack", [("ESTIMATE_SLACK_SEGMENTS", word)]),
    ("engine.md", "the tick only on a round trip of at least {0} ticks", [("REBUILT_TICKS_MIN", word)]),
    ("engine.md", "its last {0} units leaving at one rate, at least {1} % of the gaps between them within {2} % of their median per byte and as many more than {3} µs after the last ACK",
     [("STEADY_UNITS", word), ("STEADY_SHARE", pct), ("STEADY_BAND", pct), ("PACING_UNIT_NS", us)]),
    ("engine.md", "segments less than {0} µs apart with no ACK between", [("PACING_UNIT_NS", us)]),
    ("engine.md", "{0} segments trailing it by {1} ms or more", [("WAITED_SEGMENTS", times), ("WAIT_NS", ms)]),
    ("engine.md", "past {0} ms only waited ones do. When {1} % of at least {2} segments",
     [("LATE_NS", ms), ("LATE_SHARE", pct), ("LATE_MIN_SEGMENTS", times)]),
    ("engine.md", "at least {0} steps, half of them exact, {1} % within {2} of the next expected",
     [("MIN_STEPS", times), ("NEAR_SHARE", pct), ("MAX_SKIP", times)]),
    ("engine.md", "with the initial TTL of {0} its own host shows", [("LINUX_TTL", times)]),
    ("engine.md", "whose IDs step so over its first {0} packets", [("JUDGED_PACKETS", times)]),
    ("engine.md", "the median of the last {0} pairs of units", [("PACING_PAIRS", word)]),
    ("engine.md", "answered only more than {0} µs later", [("PACING_UNIT_NS", us)]),
    ("engine.md", "the gaps of the last {0} units allow", [("BOUND_UNITS", word)]),
    ("engine.md", "the highest delivery rate of the last {0} round trips", [("BW_FILTER_ROUNDS", word)]),
    ("engine.md", "A sender that never showed {0} such pairs keeps no clock", [("PACING_PAIRS", word)]),
    ("engine.md", "the sender paused at least {0} times — nothing outstanding for {1} ms or more",
     [("APP_PAUSES", word), ("MIN_PAUSE_NS", ms)]),
    ("engine.md", "idle at least {0} % of the transfer and never more than {1} of it without a pause",
     [("APP_IDLE_SHARE", pct), ("APP_RUN_SHARE", half)]),
    ("verdicts.md", "paused at least {0} times, idle at least {1} % of the transfer and never more than {2} of it",
     [("APP_PAUSES", word), ("APP_IDLE_SHARE", pct), ("APP_RUN_SHARE", half)]),
    ("verdicts.md", "requests and sat in such pauses less than {0} % of the transfer",
     [("APP_IDLE_SHARE", pct)]),
    ("engine.md", "decides: at most {0} below the first segment seen above it", [("NEXT_ID_SLACK", times)]),
    # tables.md is generated from emit/schema.rs, whose column text states these too.
    ("tables.md", "the densest cluster of packet-pair rates at {0}× that or more",
     [("PAIR_FLOOR", times)]),
    ("tables.md", "over a train of ACKs closer than {0} µs", [("MIN_SPAN_NS", us)]),
    ("engine.md", "after new data from its peer at least {0} times", [("APP_ANSWERS", word)]),
    ("verdicts.md", "it resumed after a request (new data from the peer since its own last) at least {0} times",
     [("APP_ANSWERS", word)]),
    ("engine.md", "a short segment within {0} of the window of its edge whose next short one ends on the grid",
     [("SPLIT_EDGE_SHARE", an_eighth)]),
    ("verdicts.md", "when the receiver's window reached at least {0} B, half the field's cap",
     [("UNSCALED_CAP_NEAR", lambda x: f"{int(x):,}")]),
    # findings.md is generated from catalogue/findings.toml, whose doc text states them too.
    ("findings.md", "it resumed after new data from its peer (a request) at least {0} times", [("APP_ANSWERS", word)]),
    ("findings.md", "Named when the receiver's window reached at least {0} B, half that cap",
     [("UNSCALED_CAP_NEAR", lambda x: f"{int(x):,}")]),
    ("findings.md", "nothing outstanding for {0} ms or more, no request from the peer) at least {1}, idle at least {2} % of the transfer and never more than {3} of it without a pause",
     [("MIN_PAUSE_NS", ms), ("APP_PAUSES", twice), ("APP_IDLE_SHARE", pct), ("APP_RUN_SHARE", half)]),
]


@pytest.mark.parametrize("doc,phrase,consts", PHRASES, ids=[p[1][:40] for p in PHRASES])
def test_the_docs_state_the_engines_thresholds(doc, phrase, consts):
    values = constants()
    text = " ".join((ROOT / "docs" / doc).read_text().split())
    want = phrase.format(*(render(values[name]) for name, render in consts))
    assert want in text, f"docs/{doc} should say “{want}” (from {', '.join(n for n, _ in consts)})"

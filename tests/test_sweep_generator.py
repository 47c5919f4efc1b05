"""The sweep generator's parts that need no root: the middlebox's rewrites, the emulator's
header parser and path stages, the middle capture's pcap writer, the declared space and the
label rules (samples/generate/)."""

import ipaddress
import json
import os
import struct
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from samples.generate import emulator, label, middlebox, packet, pcap, space  # noqa: E402
from samples.generate.sweep import SEEDS_FILE, parse_seeds  # noqa: E402

SYN, ACK = 0x02, 0x10
SND4, RCV4, NAT4 = "10.55.0.1", "10.55.0.2", "10.55.0.77"
SND6, RCV6 = "fd00:55::1", "fd00:55::2"
MSS_1460 = bytes([2, 4, 0x05, 0xB4])
WSCALE_7 = bytes([1, 3, 3, 7])  # NOP, window scale 7
TS = bytes([1, 1, 8, 10]) + struct.pack("!II", 1000, 0)
SACK_PERM = bytes([4, 2])


def segment(src=SND4, dst=RCV4, sport=40000, dport=5201, seq=1000, ack=0, flags=ACK,
            options=b"", payload=0) -> bytearray:
    """A raw IPv4/IPv6 TCP packet with valid checksums (the template every test changes)."""
    options += b"\0" * (-len(options) % 4)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (5 + len(options) // 4) << 4, flags,
                      65535, 0, 0) + options + bytes(payload)
    s, d = ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed
    if len(s) == 16:
        ip = struct.pack("!IHBB", 6 << 28, len(tcp), 6, 64) + s + d
    else:
        ip = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(tcp), 7, 0, 64, 6, 0) + s + d
    pkt = bytearray(ip + tcp)
    middlebox.fix_checksums(pkt)
    return pkt


def checksums_valid(pkt: bytearray) -> bool:
    again = bytearray(pkt)
    middlebox.fix_checksums(again)
    return again == pkt


def options_of(pkt: bytearray) -> dict:
    seg = packet.parse_ip_tcp(bytes(pkt))
    out, i, raw = {}, 0, seg.options
    while i < len(raw) and raw[i]:
        if raw[i] == 1:
            i += 1
            continue
        out[raw[i]] = raw[i + 2:i + raw[i + 1]]
        i += raw[i + 1]
    return out


# --- middlebox -------------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [(SND4, RCV4), (SND6, RCV6)])
def test_syn_strip_wscale_leaves_nops_and_valid_checksum(src, dst):
    syn = segment(src, dst, flags=SYN, options=MSS_1460 + SACK_PERM + WSCALE_7)
    done = middlebox.rewrite(syn, "a2b", {"strip_wscale": "syn"})
    assert done == [("syn.wscale", 7, "stripped")]
    assert 3 not in options_of(syn) and 2 in options_of(syn)
    assert checksums_valid(syn)


def test_synack_strip_leaves_syn_alone():
    syn = segment(flags=SYN, options=WSCALE_7)
    assert middlebox.rewrite(syn, "a2b", {"strip_wscale": "synack"}) == []
    synack = segment(RCV4, SND4, 5201, 40000, flags=SYN | ACK, options=WSCALE_7)
    assert middlebox.rewrite(synack, "b2a", {"strip_wscale": "synack"})
    assert 3 not in options_of(synack) and checksums_valid(synack)


def test_mss_clamp_lowers_only_larger_mss():
    syn = segment(flags=SYN, options=MSS_1460)
    assert middlebox.rewrite(syn, "a2b", {"clamp_mss": 536}) == [("syn.mss", 1460, 536)]
    assert options_of(syn)[2] == struct.pack("!H", 536) and checksums_valid(syn)
    small = segment(flags=SYN, options=bytes([2, 4, 0x01, 0x00]))
    assert middlebox.rewrite(small, "a2b", {"clamp_mss": 536}) == []


@pytest.mark.parametrize("src,dst,outside", [(SND4, RCV4, NAT4), (SND6, RCV6, "fd00:55::77")])
def test_nat_and_isn_shift_round_trip_with_sack(src, dst, outside):
    cfg = {"nat": {"inside": src, "outside": outside, "port_offset": 391},
           "isn_offset": {"a2b": 100_000, "b2a": 2**32 - 5}}
    box = middlebox.Middlebox(cfg)
    data = segment(src, dst, seq=2**32 - 10, ack=500, options=TS, payload=100)
    box.rewrite(data, "a2b")
    seg = packet.parse_ip_tcp(bytes(data))
    assert (seg.src, seg.sport) == (outside, 40391)
    assert seg.seq == (2**32 - 10 + 100_000) % 2**32 and seg.ack == 505
    assert checksums_valid(data)
    sack = bytes([1, 1, 5, 10]) + struct.pack("!II", seg.seq, seg.seq + 100)
    reply = segment(dst, outside, 5201, 40391, seq=495, ack=seg.seq + 100,
                    options=TS + sack)
    box.rewrite(reply, "b2a")
    back = packet.parse_ip_tcp(bytes(reply))
    assert (back.dst, back.dport) == (src, 40000)
    assert back.ack == (2**32 - 10 + 100) % 2**32 and back.seq == 490
    assert options_of(reply)[5] == struct.pack("!II", 2**32 - 10, (2**32 - 10 + 100) % 2**32)
    assert checksums_valid(reply)


def test_unaligned_sack_blocks_keep_the_checksum_valid():
    sack = bytes([1, 5, 10]) + struct.pack("!II", 1000, 2000)
    reply = segment(RCV4, SND4, 5201, 40000, seq=5, ack=1000, options=sack)
    done = middlebox.rewrite(reply, "b2a", {"isn_offset": {"a2b": 7}})
    assert [f for f, _, _ in done] == ["ack", "sack", "sack"]
    assert checksums_valid(reply)


# --- emulator --------------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst,flags,payload", [
    (SND4, RCV4, SYN, 0), (SND4, RCV4, ACK, 1448), (SND6, RCV6, ACK | 0x08, 1428),
    (RCV6, SND6, SYN | ACK, 0)])
def test_emulator_parser_agrees_with_the_generator_decoder(src, dst, flags, payload):
    pkt = bytes(segment(src, dst, seq=77, ack=99, flags=flags, options=TS, payload=payload))
    ref = packet.parse_ip_tcp(pkt)
    assert emulator.parse(pkt) == (ref.ip_id, ref.seq, ref.ack, ref.payload, ref.flags, ref.win)


def test_emulator_parser_skips_what_is_not_tcp():
    udp = bytearray(segment())
    udp[9] = 17
    assert emulator.parse(bytes(udp)) is None and emulator.parse(b"") is None


def test_loss_after_mid_reaches_the_midpoint_but_not_the_receiver():
    d = emulator.Direction("a2b", {"delay_ms": 10, "loss": 1.0, "loss_at": "after_mid"}, 1)
    fate, due, mid = d.admit(0.0, 1500, 1448, ACK)
    assert (fate, due) == (emulator.DROP_LOSS, None) and mid == pytest.approx(0.005)


def test_reorder_before_mid_delays_the_midpoint_too():
    cfg = {"delay_ms": 10, "reorder": 1.0, "reorder_extra_ms": 30}
    late = emulator.Direction("a2b", {**cfg, "reorder_at": "before_mid"}, 1).admit(0.0, 100, 48, 0)
    after = emulator.Direction("a2b", cfg, 1).admit(0.0, 100, 48, 0)
    assert late[0] == after[0] == emulator.REORDERED
    assert late[1] == after[1] == pytest.approx(0.040)
    assert (late[2], after[2]) == (pytest.approx(0.035), pytest.approx(0.005))


def test_ack_loss_drops_pure_acks_only():
    d = emulator.Direction("b2a", {"ack_loss": 1.0}, 1)
    assert d.admit(0.0, 52, 0, ACK)[0] == emulator.DROP_ACK
    assert d.admit(0.0, 52, 0, ACK | 0x01)[0] == emulator.FORWARDED  # FIN
    assert d.admit(0.0, 1500, 1448, ACK)[0] == emulator.FORWARDED  # data


def test_fifo_tail_drops_whole_packets_and_counts_busy_time():
    d = emulator.Direction("a2b", {"rate_mbit": 12, "queue_bytes": 3000}, 1)
    fates = [d.admit(0.0, 1500, 1448, ACK)[0] for _ in range(3)]
    assert fates == [emulator.FORWARDED, emulator.FORWARDED, emulator.DROP_QUEUE]
    assert d.busy_s == pytest.approx(2 * 1500 * 8 / 12e6)


def test_middle_pcap_round_trips_through_the_reader(tmp_path):
    recs = [(1_795_000_000_123_456_789, bytes(segment(payload=1448))[:128], 1500),
            (1_795_000_000_223_456_789, bytes(segment(flags=SYN)), 40)]
    path = str(tmp_path / "m.pcap")
    assert pcap.write(path, recs, 128) == 2
    assert [(ts, data, length) for ts, length, data in pcap.read(path)] == recs


# --- the declared space ----------------------------------------------------------------------

DRAWS = [space.draw(s) for s in range(1000, 1400)]


def test_a_seed_always_draws_the_same_run():
    assert space.draw(1234) == space.draw(1234)
    assert json.loads(json.dumps(space.draw(1234))) == space.draw(1234)


def test_every_story_and_congestion_control_is_drawn():
    assert {d["drawn"]["story"] for d in DRAWS} == set(space.STORY.weights)
    assert {d["spec"]["cc"] for d in DRAWS} == {"cubic", "reno", "bbr"}
    assert any(d["drawn"]["cut_at_s"] for d in DRAWS)
    assert any(d["spec"]["middlebox"] for d in DRAWS)


@pytest.mark.parametrize("i", range(0, 400, 7))
def test_draw_stays_inside_the_declared_space(i):
    d = DRAWS[i]
    spec, drawn = d["spec"], d["drawn"]
    rate, rtt, mtu = drawn["rate_mbit"], drawn["rtt_ms"], spec["mtu"]
    assert space.RATE_MBIT.lo <= rate <= space.RATE_MBIT.hi
    assert rate * 1e6 / 8 / mtu <= space.MAX_DATA_PPS * 1.001
    assert space.RTT_MS.lo <= rtt <= space.RTT_MS.hi
    assert spec["a2b"]["delay_ms"] + spec["b2a"]["delay_ms"] == pytest.approx(rtt, abs=0.01)
    assert drawn["bdp_bytes"] <= space.MAX_BDP_BYTES
    assert spec["a2b"]["queue_bytes"] >= 2 * mtu
    assert space.DURATION_MIN_S <= spec["duration_s"] <= space.DURATION_MAX_S
    assert spec["family"] == "ipv4" or mtu >= 1280
    if drawn["cut_at_s"] is not None:
        assert 0 < drawn["cut_at_s"] < spec["duration_s"]


def test_seed_ranges_are_disjoint_and_the_held_out_ranges_are_big_enough():
    with open(SEEDS_FILE) as f:
        ranges = json.load(f)["ranges"]
    seeds = {name: set(parse_seeds(name)) for name in ranges}
    names = sorted(seeds)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not seeds[a] & seeds[b], (a, b)
    held = [name for name in ranges if name.startswith("held_out")]
    assert held and all(len(seeds[h]) >= 150 and ranges[h]["use"].startswith("report only") for h in held)


# --- label rules -----------------------------------------------------------------------------

QUIET = {  # a cwnd-limited run that filled the link: every other rule stays silent
    "rwnd_limited_share": 0.0, "window_full_sample_share": 0.0, "sndbuf_limited_share": 0.0,
    "app_limited_sample_share": 0.05, "idle_share": 0.0, "window_scaling": True, "receiver_window_scaling": True,
    "syn_wscale_at_receiver": 7, "reader_backlog_share": 0.0, "zero_window_samples": 0,
    "read_rate_mbit": 0, "so_rcvbuf": 0, "so_sndbuf": 0, "rmem_max": 6_291_456,
    "max_sk_rcvbuf": 1_000_000, "wmem_max": 4_194_304, "max_sk_sndbuf": 1_000_000,
    "writer": "pressure", "offered_load_mbit": None, "offered_share_of_capacity": None,
    "offered_delivered_share": None, "total_retrans": 0, "dsack_dups": 0,
    "emulator_reordered": 0, "retransmissions_spurious": 0, "retransmissions_necessary": 0,
    "slow_start_in_interval": True, "queue_drops_in_first_slow_start": 0,
    "drops_after_first_slow_start": 0, "link_busy_share_after_slow_start": 0.97, "samples": 300,
}
SPEC = {"middlebox": None}


@pytest.mark.parametrize("change,expected", [
    ({}, "bandwidth-limited"),
    ({"rwnd_limited_share": 0.9, "so_rcvbuf": 65536}, "rwnd-limited:so_rcvbuf"),
    ({"rwnd_limited_share": 0.2, "window_full_sample_share": 0.8, "so_rcvbuf": 65536},
     "rwnd-limited:so_rcvbuf"),  # bbr: the pacing check hides window-bound time
    ({"rwnd_limited_share": 0.9, "window_scaling": False}, "rwnd-limited:no_wscale"),
    ({"rwnd_limited_share": 0.9, "reader_backlog_share": 0.9}, "rwnd-limited:slow_reader"),
    ({"reader_backlog_share": 0.9, "link_busy_share_after_slow_start": 0.2},
     "rwnd-limited:slow_reader"),  # bbr paces at the reader's rate: only the backlog shows it
    ({"rwnd_limited_share": 0.9, "rmem_max": 200_000, "max_sk_rcvbuf": 200_000},
     "rwnd-limited:rmem_max"),
    ({"rwnd_limited_share": 0.9}, "rwnd-limited:autotuning"),
    ({"sndbuf_limited_share": 0.9, "so_sndbuf": 32768}, "sndbuf-limited:so_sndbuf"),
    ({"sndbuf_limited_share": 0.9, "wmem_max": 100_000, "max_sk_sndbuf": 100_000},
     "sndbuf-limited:wmem_max"),
    ({"app_limited_sample_share": 0.9, "writer": "periodic"}, "app-limited:periodic"),
    ({"writer": "periodic", "offered_load_mbit": 20.8, "offered_share_of_capacity": 0.15,
      "offered_delivered_share": 0.99, "link_busy_share_after_slow_start": 0.15},
     "app-limited:periodic"),  # bbr paced: never flagged, but everything offered got through
    ({"idle_share": 0.45, "link_busy_share_after_slow_start": 0.03, "writer": "rr"},
     "app-limited:request_response"),  # idle between short responses, rarely flagged
    ({"link_busy_share_after_slow_start": 0.4, "total_retrans": 20, "dsack_dups": 18,
      "emulator_reordered": 30, "retransmissions_spurious": 18, "retransmissions_necessary": 2},
     "reorder-limited"),
    ({"link_busy_share_after_slow_start": 0.6, "total_retrans": 12,
      "queue_drops_in_first_slow_start": 12, "retransmissions_necessary": 12},
     "slow-start-overshoot"),
    ({"link_busy_share_after_slow_start": 0.6, "total_retrans": 30, "retransmissions_necessary": 30,
      "drops_after_first_slow_start": 30}, "loss-limited"),
])
def test_label_rule_table(change, expected):
    got = label.label({**QUIET, **change}, SPEC, {})
    assert got["label"] == expected and got["clear"], got


PERIODIC_SERVED = {"writer": "periodic", "offered_load_mbit": 20.3, "offered_share_of_capacity": 0.53,
                   "offered_delivered_share": 0.97, "link_busy_share_after_slow_start": 0.53,
                   "app_limited_sample_share": 0.03, "total_retrans": 28, "retransmissions_necessary": 28,
                   "queue_drops_in_first_slow_start": 23, "drops_after_first_slow_start": 5}


def test_a_periodic_writer_whose_load_came_out_of_a_backlog_was_held_by_tcp():
    # cubic regrowing after a slow-start overshoot: the kernel flagged 3 % of samples app-limited
    # and 90 KB (25 writes) waited unsent in nearly every sample; the load was delivered on average
    got = label.label({**QUIET, **PERIODIC_SERVED, "writes_behind_share": 0.99}, SPEC, {})
    assert got["label"] == "slow-start-overshoot" and got["clear"], got


def test_a_periodic_writer_often_behind_is_not_clearly_the_limit():
    served = label.label({**QUIET, **PERIODIC_SERVED, "writes_behind_share": 0.2}, SPEC, {})
    assert served["label"] == "app-limited:periodic" and served["clear"], served
    mixed = label.label({**QUIET, **PERIODIC_SERVED, "writes_behind_share": 0.45}, SPEC, {})
    assert mixed["label"] == "app-limited:periodic" and not mixed["clear"]
    assert "two writes ahead" in mixed["unclear_why"]


def test_a_recovery_undone_does_not_end_the_first_slow_start():
    # TCP_INFO every 10 ms: ssthresh set by a fast retransmit at 1.21 s, back to infinite
    # when its resend proved needless (Linux's undo), set for good by the losses at 2.15 s.
    inf = label.INFINITE_SSTHRESH
    snd = {"t_ns": [int(s * 1e9) for s in (0.0, 1.21, 1.24, 2.15, 2.16)],
           "snd_ssthresh": [inf, 149, inf, 1055, 1055]}
    assert label.first_slow_start_end(snd, "reno") == int(2.15e9)
    assert label.first_slow_start_end({**snd, "snd_ssthresh": [inf] * 5}, "reno") is None


def test_cwnd_limited_without_a_cause_is_given_as_not_clear():
    got = label.label({**QUIET, "link_busy_share_after_slow_start": 0.5}, SPEC, {})
    assert got["label"] == "undetermined" and not got["clear"]
    assert "no cause" in got["unclear_why"]


def test_a_mixed_share_makes_the_label_not_clear():
    got = label.label({**QUIET, "rwnd_limited_share": 0.55, "so_rcvbuf": 65536}, SPEC, {})
    assert got["label"] == "rwnd-limited:so_rcvbuf" and not got["clear"]
    assert "bandwidth-limited" in got["also"]


def test_window_scaling_lost_names_the_syn_that_lacked_it():
    got = label.label({**QUIET, "rwnd_limited_share": 0.9, "window_scaling": False,
                       "syn_wscale_at_receiver": None}, {"middlebox": {"strip_wscale": "syn"}}, {})
    assert got["detail"] == {"missing_in": "syn", "stripped_on_path": True,
                             "receiver_believes_scaling": True}

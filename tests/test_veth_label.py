"""The veth runs' label rules (samples/generate/veth.py) on TCP_INFO columns written by hand:
which share decides, when the shaper's rate makes a full link, when a label is not clear."""

from samples.generate import veth

MSS = 1448


def columns(n: int = 10, *, rwnd=0, sndbuf=0, app=0, acked_mbit=0.0, retrans=0, dsacks=0, window_full=False) -> dict:
    """n samples 100 ms apart over a busy second: chronos as shares of busy time, the app flag
    on `app` of the n − 2 inner samples, bytes acknowledged at `acked_mbit`."""
    busy = [k * 100_000 for k in range(n)]
    share = lambda s: [int(b * s) for b in busy]
    flags = [0] + [1 if k < app * (n - 2) else 0 for k in range(n - 2)] + [0]
    return {"congestion_control": "bbr" if window_full else "cubic", "tcp_info": {
        "t_ns": [k * 100_000_000 for k in range(n)], "busy_time": busy, "rwnd_limited": share(rwnd),
        "sndbuf_limited": share(sndbuf), "delivery_rate_app_limited": flags,
        "bytes_acked": [int(acked_mbit * 1e6 / 8 * k / 10) for k in range(n)],
        "total_retrans": [retrans] * n, "dsack_dups": [dsacks] * n, "unacked": [10] * n, "snd_mss": [MSS] * n,
        "snd_wnd": [5 * MSS if window_full else 1 << 20] * n}}


SPEC = {"rate_mbit": 100}


def test_the_receive_window_decides_first_and_bbrs_full_window_counts_as_its_chrono() -> None:
    assert veth.label(SPEC, columns(rwnd=0.9, acked_mbit=95))["family"] == "rwnd"
    # BBR's pacing check hides window-bound time from the chrono: samples behind a full window.
    assert veth.label(SPEC, columns(acked_mbit=95, window_full=True))["family"] == "rwnd"


def test_a_full_shaper_is_bandwidth_and_an_emptier_one_that_lost_is_loss() -> None:
    full = veth.label(SPEC, columns(acked_mbit=0.9 * 100 * veth.PAYLOAD_SHARE))
    assert (full["family"], full["clear"]) == ("bandwidth", True)
    assert veth.label(SPEC, columns(acked_mbit=40, retrans=30))["family"] == "loss"
    assert veth.label(SPEC, columns(acked_mbit=40))["family"] == "none"


def test_resends_the_receiver_reported_twice_are_reordering_not_loss() -> None:
    # The kernel's dsack_dups: DSACKs for 30 of 40 resends, so they were spurious.
    assert veth.label(SPEC, columns(acked_mbit=40, retrans=40, dsacks=30))["family"] == "reorder"
    assert veth.label(SPEC, columns(acked_mbit=40, retrans=40, dsacks=10))["family"] == "loss"


def test_without_a_shaper_no_link_is_full() -> None:
    # A veth at the pace of the CPUs: 4 Gbit/s carried is no shaper's rate.
    unshaped = {"rate_mbit": 0}
    assert veth.label(unshaped, columns(acked_mbit=4000))["family"] == "none"
    assert veth.label(unshaped, columns(acked_mbit=4000, app=0.9))["family"] == "app"
    assert veth.draw(1003)["rate_mbit"] == 0 and all(veth.draw(s)["rate_mbit"] for s in range(veth.UNSHAPED_FROM))


def test_a_share_between_the_thresholds_decides_but_is_not_clear() -> None:
    lab = veth.label(SPEC, columns(app=0.6, acked_mbit=40))
    assert (lab["family"], lab["clear"]) == ("app", False)
    lab = veth.label(SPEC, columns(sndbuf=0.4, acked_mbit=95))
    assert (lab["family"], lab["clear"]) == ("bandwidth", False)


def test_a_seed_is_one_run() -> None:
    assert veth.draw(17) == veth.draw(17)
    assert {veth.draw(s)["story"] for s in range(60)} == set(veth.STORIES)


def test_a_reader_that_leaves_the_window_unread_below_a_full_link_is_the_windows() -> None:
    rx = {"tcp_info": {"inq": [0, 40_000, 60_000, 60_000, 0], "rcv_wnd": [60_000, 40_000, 20_000, 0, 60_000]}}
    assert veth.label(SPEC, columns(acked_mbit=30), rx)["family"] == "rwnd"
    # At a full link the shaper, not the reader, set the pace.
    assert veth.label(SPEC, columns(acked_mbit=0.9 * 100 * veth.PAYLOAD_SHARE), rx)["family"] == "bandwidth"


def test_a_periodic_writer_whose_load_was_carried_is_the_applications() -> None:
    # Offered 40 % of the shaper, 39 % carried: the application's pace, though the kernel's
    # flag (cleared at each burst's first ACK) was up on few samples.
    spec = {"rate_mbit": 100, "offered": 0.4}
    lab = veth.label(spec, columns(app=0.2, acked_mbit=0.39 * 100 * veth.PAYLOAD_SHARE))
    assert (lab["family"], lab["clear"]) == ("app", True)
    # Half of it carried: something else held it.
    assert veth.label(spec, columns(app=0.2, acked_mbit=0.2 * 100 * veth.PAYLOAD_SHARE, retrans=5))["family"] == "loss"

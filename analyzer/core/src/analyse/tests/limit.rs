//! What limits the sender at a moment (the idea of Linux's chrono counters).

use super::*;
use crate::analyse::catalogue::FindingId;
use crate::analyse::notes::LimitState;

#[test]
fn a_full_receive_window_limits_the_sender() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(0));
    t.seg(40_200, B).rel_ack(1).win(4 * MSS as u16).send();
    let mut n = None;
    for k in 0..4 {
        n = Some(t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send());
    }
    let n = n.unwrap();
    assert!(n.window_full);
    assert_eq!(n.limit, LimitState::Rwnd);
}

#[test]
fn a_full_receive_window_in_loss_recovery_is_the_windows_time() {
    // A window of 8 segments, all sent; segment 2 is lost. B acknowledges 1 and SACKs 3–5,
    // A resends 2, then B SACKs 6–8: A is in recovery with nothing left the window allows.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(0));
    t.seg(40_200, B).rel_ack(1).win(8 * MSS as u16).send();
    for k in 0..8 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    t.seg(81_000, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + 5 * MSS)]).win(8 * MSS as u16).send();
    t.seg(81_100, A).data(1 + MSS, MSS).send();
    let n = t.seg(82_000, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + 8 * MSS)]).win(8 * MSS as u16).send();
    // Linux counts this in tcpi_rwnd_limited: new data waits on the window, not on recovery.
    assert_eq!(n.limit, LimitState::Rwnd);
}

#[test]
fn a_first_flight_sent_before_any_ack_is_not_a_send_buffer_plateau() {
    // Slow start's initial window, before any ACK could time a round: nothing was flat yet.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    for k in 0..10u32 {
        let n = t.seg(41_000 + k as i64, A).data(1 + k * MSS, MSS).send();
        assert_ne!(n.limit, LimitState::Sndbuf, "segment {k}");
    }
}

#[test]
fn nothing_outstanding_is_idle() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.seg(41_000, A).data(1, MSS).send();
    let n = t.seg(81_000, B).rel_ack(1 + MSS).send();
    assert_eq!(n.limit, LimitState::Idle);
}

#[test]
fn a_zero_window_stops_the_sender() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.seg(41_000, A).data(1, MSS).send();
    let n = t.seg(81_000, B).rel_ack(1 + MSS).win(0).send();
    assert_eq!(n.limit, LimitState::ZeroWindow);
}

/// A sender at its own capture point writing a chunk of nine segments and `tail` more
/// bytes every 2 ms, for 800 ms of a 40 ms RTT; each chunk is acknowledged 40 ms after it
/// left. The flight stays flat at 20 chunks. Returns the limit state at the end.
fn steady_writer(tail: u32) -> LimitState {
    steady_writer_trace(tail).1
}

fn steady_writer_trace(tail: u32) -> (Trace, LimitState) {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let chunk = 9 * MSS + tail;
    let mut state = LimitState::Unknown;
    for k in 0..400u32 {
        let at = 41_000 + k as i64 * 2_000;
        if k >= 20 {
            t.seg(at, B).rel_ack(1 + (k - 19) * chunk).send();
        }
        for i in 0..9 {
            state = t
                .seg(at + i, A)
                .data(1 + k * chunk + i as u32 * MSS, MSS)
                .send()
                .limit;
        }
        if tail > 0 {
            state = t
                .seg(at + 9, A)
                .data(1 + k * chunk + 9 * MSS, tail)
                .send()
                .limit;
        }
    }
    (t, state)
}

#[test]
fn a_flat_flight_with_full_segments_only_is_a_send_buffer() {
    assert_eq!(steady_writer(0), LimitState::Sndbuf);
}

#[test]
fn a_plateau_held_long_after_its_proof_was_the_buffers_from_its_start() {
    // Flat from the first ACK (40 ms) to the end (841 ms): 20 RTTs. Proven a send-buffer
    // plateau after 8 of them; still flat at 16, so the first 8 were the buffer's too, as
    // Linux's sndbuf_limited chrono counts them.
    let (t, _) = steady_writer_trace(0);
    let lim = &t.fs.limits[A];
    let sndbuf = lim.state_ns[LimitState::Sndbuf as usize] as f64 / lim.busy_ns() as f64;
    assert!(sndbuf > 0.9, "{sndbuf}");
}

#[test]
fn a_flat_flight_whose_writes_end_short_is_the_application() {
    // Every chunk ends in a 500 B segment: the queue ran dry each time.
    assert_eq!(steady_writer(500), LimitState::App);
}

#[test]
fn the_limiting_window_is_the_one_in_force_not_the_largest() {
    // A reader that stops reading: 8 segments of window once, then 2 a round for nine
    // rounds of 40 ms, each filled at once.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(0));
    t.seg(40_200, B).rel_ack(1).win(8 * MSS as u16).send();
    let mut next = 1;
    for k in 0..8 {
        t.seg(41_000 + k, A).data(next, MSS).send();
        next += MSS;
    }
    for round in 1..10i64 {
        let at = 41_000 + round * 40_000;
        t.seg(at, B).rel_ack(next).win(2 * MSS as u16).send();
        for k in 0..2 {
            let n = t.seg(at + 10 + k, A).data(next, MSS).send();
            next += MSS;
            assert_eq!(n.limit, LimitState::Rwnd);
        }
    }
    let w = t.fs.limits[A].limiting_rwnd().unwrap();
    assert!(
        (2 * MSS as u64..(3.2 * MSS as f64) as u64).contains(&w),
        "{w}"
    );
    assert_eq!(t.fs.rwnd_max[A], 8 * MSS as u64);
    // A quarter of the window it had open before, nine rounds in ten: a slow reader.
    let fill = t.fs.limits[A].limiting_rwnd_fill().unwrap();
    assert!((0.25..0.45).contains(&fill), "{fill}");
}

#[test]
fn a_plateau_less_than_a_segment_under_the_window_is_the_windows() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    // B's window: 2,042 × 128 = 180 segments + 736 B, never changing.
    t.seg(40_200, B).rel_ack(1).win(2042).send();
    for k in 0..180u32 {
        t.seg(41_000 + k as i64, A).data(1 + k * MSS, MSS).send();
    }
    // Each ACK frees one segment; A sends the next 90 µs later (its writer wakes up):
    // between the two it has a segment less than the window allows out, on a flat flight.
    for k in 0..6_000u32 {
        let at = 81_000 + k as i64 * 100;
        t.seg(at, B).rel_ack(1 + (k + 1) * MSS).win(2042).send();
        t.seg(at + 90, A).data(1 + (180 + k) * MSS, MSS).send();
    }
    // The plateau's top leaves 736 B of window: no room for another segment, so the
    // window, not a send buffer, holds the flight (RFC 9293's usable window at its level)
    // from when the flight is proven flat on (15 % only at the moments it was full).
    let lim = &t.fs.limits[A];
    let share = |s: LimitState| lim.state_ns[s as usize] as f64 / lim.busy_ns() as f64;
    assert!(share(LimitState::Rwnd) > 0.7, "rwnd {}", share(LimitState::Rwnd));
    assert!(share(LimitState::Sndbuf) < 0.1, "sndbuf {}", share(LimitState::Sndbuf));
}

#[test]
fn a_plateau_met_before_any_round_trip_is_measured_is_still_a_send_buffer() {
    // Mid-stream, no handshake: a writer keeps 20–21 chunks of 9 segments in flight, RTT
    // 40 ms. The first ACK shows the 20 chunks sent before the capture; the flight wobbles
    // by a chunk before any RTT is measured (the unseen chunks give no sample), then again
    // from 250 ms: the same band as in the plateau's first round, not a window opening.
    let mut t = Trace::new();
    let chunk = 9 * MSS;
    let mut state = LimitState::Unknown;
    for k in 100..500u32 {
        let at = k as i64 * 2_000;
        let wobbles = (106..119).contains(&k) || k >= 126;
        let lag = if wobbles && k % 2 == 1 { 21 } else { 20 };
        if k > 100 {
            t.seg(at, B).rel_ack(1 + (k - lag) * chunk).send();
        }
        for i in 0..9 {
            state = t.seg(at + 1 + i, A).data(1 + k * chunk + i as u32 * MSS, MSS).send().limit;
        }
    }
    assert_eq!(state, LimitState::Sndbuf);
}

/// A sender at its own capture point writing `segments(k)` full segments as chunk `k`, one
/// chunk every 2 ms for 800 ms, each acknowledged 40 ms (one RTT) after it left: the flight
/// is the last twenty chunks. Returns the limit state after the last chunk.
fn chunked_writer(segments: impl Fn(u32) -> u32) -> LimitState {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let mut ends = Vec::new();
    let mut next = 1;
    let mut state = LimitState::Unknown;
    for k in 0..400u32 {
        let at = 41_000 + k as i64 * 2_000;
        if k >= 20 {
            t.seg(at, B).rel_ack(ends[k as usize - 20]).send();
        }
        for i in 0..segments(k) {
            state = t.seg(at + i as i64, A).data(next, MSS).send().limit;
            next += MSS;
        }
        ends.push(next);
    }
    state
}

#[test]
fn a_send_buffer_plateau_survives_a_one_round_dip() {
    // BBR's drain phase: one round (chunks 300–319) at 7 of the 9 segments, then back.
    assert_eq!(chunked_writer(|k| if (300..320).contains(&k) { 7 } else { 9 }), LimitState::Sndbuf);
}

#[test]
fn a_flight_that_stays_lower_starts_a_new_stretch() {
    // A cwnd cut to two thirds for the last five rounds: not yet proven flat at its new level.
    assert_ne!(chunked_writer(|k| if k >= 300 { 6 } else { 9 }), LimitState::Sndbuf);
}

#[test]
fn a_flight_that_empties_between_responses_is_no_send_buffer_plateau() {
    // A 9-segment response every 50 ms over a 40 ms RTT, acknowledged in two halves: the
    // flight's samples are flat, but a send buffer never empties.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let mut state = LimitState::Unknown;
    for k in 0..24u32 {
        let at = 41_000 + k as i64 * 50_000;
        let base = 1 + k * 9 * MSS;
        for i in 0..9 {
            state = t.seg(at + i, A).data(base + i as u32 * MSS, MSS).send().limit;
        }
        t.seg(at + 40_000, B).rel_ack(base + 4 * MSS).send();
        t.seg(at + 40_500, B).rel_ack(base + 9 * MSS).send();
    }
    assert_ne!(state, LimitState::Sndbuf);
}

/// A capture at the receiver B that began mid-transfer (no handshake: the window scale,
/// 10, is inferred from the flight), RTT 5 ms. Each round B receives a burst of
/// `segments(r)` segments 100 µs apart, acknowledges the burst 30 µs after its last
/// segment advertising `raw(r)` (× 1024), and the next burst, sent on that ACK, arrives
/// 5 ms later. Returns the trace and the limit state of each segment of each round.
fn receiver_bursts(rounds: u32, segments: impl Fn(u32) -> u32, raw: impl Fn(u32) -> u16) -> (Trace, Vec<Vec<LimitState>>) {
    let mut t = Trace::new();
    let b_ms = |at: i64| (5_000 + at / 1_000) as u32;
    let a_ms = |at: i64| (1_000 + (at - 2_500) / 1_000) as u32;
    let mut ack_at = 0i64;
    t.seg(ack_at, B).rel_ack(1).win(raw(0)).ts(b_ms(ack_at), a_ms(ack_at)).send();
    let mut next = 1;
    let mut states = Vec::new();
    for r in 0..rounds {
        let mut round = Vec::new();
        let mut last_tsval = 0;
        for i in 0..segments(r) {
            let at = ack_at + 5_000 + i as i64 * 100;
            last_tsval = a_ms(at);
            round.push(t.seg(at, A).data(next, MSS).ts(last_tsval, b_ms(ack_at)).send().limit);
            next += MSS;
        }
        ack_at += 5_000 + (segments(r) as i64 - 1) * 100 + 30;
        t.seg(ack_at, B).rel_ack(next).win(raw(r + 1)).ts(b_ms(ack_at), last_tsval).send();
        states.push(round);
    }
    (t, states)
}

#[test]
fn but_bytes_outstanding_above_the_inferred_window_say_its_scale_is_larger() {
    // Three rounds of 39 segments under 59 × 1024 = 60,416 B (the scale inferred as 10),
    // then 24 segments a round against a window read as 31 × 1024 = 31,744 B: 34,752 B
    // outstanding, more than a segment above it (within the inference's allowance for a
    // rebuilt flight's noise, so the shift stays 10), says the scale is larger (31 << 11):
    // the window did not bind the sends, and the flat flight is not the window's.
    let (t, states) = receiver_bursts(43, |r| if r < 3 { 39 } else { 24 }, |r| if r < 3 { 59 } else { 31 });
    assert_eq!(t.fs.inferred_shift[B], Some(10));
    assert!(states[42].contains(&LimitState::Sndbuf), "{:?}", states[42]);
    assert!(!states[42][..20].contains(&LimitState::Rwnd), "{:?}", states[42]);
}

#[test]
fn a_paced_sender_under_a_window_held_at_a_quarter_of_its_peak_is_held_by_its_reader() {
    // BBR pacing at the reader's rate: a segment every 5 ms over a 40 ms round trip, so
    // eight out and the window never full. B offers 64 KiB, then, its application reading
    // slowly, 16 KiB for the rest of the transfer: unread data fills the rest of its buffer.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let mut events = Vec::new();
    for k in 0..400u32 {
        let sent = 40_200 + k as i64 * 5_000;
        events.push((sent, k, true));
        events.push((sent + 40_000, k, false));
    }
    events.sort();
    for (at, k, data) in events {
        if data {
            t.seg(at, A).data(1 + k * MSS, MSS).send();
        } else {
            let raw = if k < 40 { 512 } else { 128 };
            t.seg(at, B).rel_ack(1 + (k + 1) * MSS).win(raw).send();
        }
    }
    let v = t.verdict();
    assert_eq!(v.state_ns[LimitState::Rwnd as usize], 0, "never window-bound");
    assert_eq!(v.findings[0].id, FindingId::RwndSlowReader);
    assert!(v.findings[0].share > 0.8, "held down ~90 % of the busy time: {}", v.findings[0].share);
}

/// An ACK-clocked sender holding `windows[r]` segments in flight in round r
/// ([`Trace::ack_clocked_rounds`]) under a window it never fills. Returns the send-buffer
/// share of the busy time at the end.
fn sndbuf_share_of_rounds(windows: &[u32]) -> f64 {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.ack_clocked_rounds(41_000, u16::MAX, windows);
    let lim = &t.fs.limits[A];
    let state_ns = lim.final_state_ns();
    state_ns[LimitState::Sndbuf as usize] as f64 / lim.busy_ns() as f64
}

#[test]
fn a_plateau_the_flight_grows_out_of_was_a_congestion_window_at_rest() {
    // CUBIC near W_max: 24 rounds flat at 20 segments (proven, and credited from its start
    // at 16), then a segment more each round: a send buffer at its size adds nothing.
    let mut windows = vec![20; 24];
    windows.extend(21..=30);
    let share = sndbuf_share_of_rounds(&windows);
    assert!(share < 0.05, "{share}");
}

#[test]
fn a_plateau_whose_level_wanders_up_and_back_stays_the_send_buffers() {
    // One round three segments over the band (how writes pack into the buffer varies),
    // then flat at the old level again: still the buffer.
    let mut windows = vec![20; 24];
    windows.push(23);
    windows.extend([20; 12]);
    let share = sndbuf_share_of_rounds(&windows);
    assert!(share > 0.6, "{share}");
}

#[test]
fn a_plateau_whose_level_wanders_above_within_the_band_stays_the_send_buffers() {
    // 100 segments a round, one round 8 over (inside the band), then 100 again: what
    // counts as growth is the last rounds' top, not the highest the stretch ever reached.
    let mut windows = vec![100; 10];
    windows.push(108);
    windows.extend([100; 19]);
    let share = sndbuf_share_of_rounds(&windows);
    assert!(share > 0.6, "{share}");
}

#[test]
fn a_plateau_grown_out_of_then_cut_by_a_loss_and_back_at_its_level_stays_the_send_buffers() {
    // One round three segments over, then a loss's cut to 14 for three rounds, 17 for two,
    // then flat at the old level again: neither the fall nor the climb back settled
    // anything; the return shows the buffer.
    let mut windows = vec![20; 24];
    windows.push(23);
    windows.extend([14; 3]);
    windows.extend([17; 2]);
    windows.extend([20; 12]);
    let share = sndbuf_share_of_rounds(&windows);
    assert!(share > 0.6, "{share}");
}

/// A at the sender under B's window of 10 segments on a 40 ms path: its first 10 segments
/// `paced` (one every 2 ms on its own clock, as BBR's startup paces them) or in one burst;
/// then 40 rounds in which each of B's five ACKs a round (8 ms apart) takes two segments
/// and A sends two more `reply_us` later, filling the window again.
fn held_by_a_full_window(paced: bool, reply_us: i64) -> crate::analyse::verdict::FlowVerdict {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(0));
    t.seg(40_200, B).rel_ack(1).win(10 * MSS as u16).send();
    let start = 41_000;
    for k in 0..10u32 {
        let at = start + if paced { 2_000 } else { 10 } * k as i64;
        t.seg(at, A).data(1 + k * MSS, MSS).send();
    }
    let mut next = 10u32;
    for r in 0..40 {
        for i in 0..5 {
            let at = start + 40_000 * (r + 1) + 8_000 * i;
            t.seg(at, B).rel_ack(1 + (next - 8) * MSS).win(10 * MSS as u16).send();
            for j in 0..2 {
                t.seg(at + reply_us + j, A).data(1 + next * MSS, MSS).send();
                next += 1;
            }
        }
    }
    t.verdict()
}

#[test]
fn a_full_window_counts_as_linux_counts_it_only_once_a_pacing_clock_ran_out() {
    // Paced at 1,448 B per 2 ms, each ACK's two segments hold the clock 4 ms, less the
    // half Linux forgives a send that came late: 2 ms of every 8 the window was full, the
    // sender busy in Linux's chronos (rwnd_limited about 75%).
    let v = held_by_a_full_window(true, 20);
    let rwnd = v.share(LimitState::Rwnd);
    assert!((0.70..0.80).contains(&rwnd), "rwnd share {rwnd}");
    let paced = v.rwnd_paced_ns as f64 / v.busy_ns as f64;
    assert!((0.20..0.30).contains(&paced), "paced {paced}");
    // The window findings count the whole window-full time: the window set the pace.
    assert!(matches!(v.findings[0].id, FindingId::RwndLimited | FindingId::RwndStatic), "{:?}", v.findings);
    assert!(v.findings[0].share > 0.95, "{:?}", v.findings[0]);
    assert!(v.time_line().contains("pacing clock"), "{}", v.time_line());
}

#[test]
fn a_sender_that_bursts_on_each_ack_keeps_no_clock() {
    let v = held_by_a_full_window(false, 20);
    assert!(v.share(LimitState::Rwnd) > 0.95, "{}", v.time_line());
    assert_eq!(v.rwnd_paced_ns, 0);
}

#[test]
fn a_full_window_answered_a_millisecond_late_was_held_by_a_clock() {
    // No pacing in its first flight, but every ACK that opens the full window is answered
    // 1 ms later: its clock, not the ACK, released the data queued behind the window. The
    // units leave 8 ms apart, so the clock runs 8 ms a unit and each next ACK finds it
    // still running: busy nearly all the time in Linux's chronos.
    let v = held_by_a_full_window(false, 1_000);
    assert!(v.share(LimitState::Rwnd) < 0.2, "{}", v.time_line());
    assert!(matches!(v.findings[0].id, FindingId::RwndLimited | FindingId::RwndStatic), "{:?}", v.findings);
}

/// A at the sender under B's window of 11,128 B (raw, scale 0), sending 524-byte
/// segments (a 576-byte path MTU): 20 of them leave 648 B of room, more than a segment.
fn twenty_small_segments_under(window: u16, paced: bool) -> LimitState {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(0));
    t.seg(40_200, B).rel_ack(1).win(window).send();
    let mut n = None;
    for k in 0..20u32 {
        let at = 41_000 + if paced { 2_000 } else { 1 } * k as i64;
        n = Some(t.seg(at, A).data(1 + k * 524, 524).send());
    }
    n.unwrap().limit
}

#[test]
fn less_room_than_two_segments_is_a_full_window() {
    // Linux holds back a unit (two segments at least) the window cannot take whole, paced
    // (a segment every 2 ms) or not.
    assert_eq!(twenty_small_segments_under(11_128, false), LimitState::Rwnd);
    assert_eq!(twenty_small_segments_under(11_128, true), LimitState::Rwnd);
    // With room for two, the window did not stop it.
    assert_ne!(twenty_small_segments_under(11_128 + 524, false), LimitState::Rwnd);
}

#[test]
fn a_window_whose_scale_was_fitted_to_one_segment_does_not_bind_it() {
    // A capture at the sender that began mid-transfer (no handshake): one segment out at a
    // time, each sent 100 µs after the ACK of the one before, under a window field of 1.
    // The smallest scale that holds the flight is 11 (2,048 B) — but 12, 13 … hold it as
    // well, and any window under two segments is within a segment of any one segment out:
    // touching it says nothing about what held the sender.
    let mut t = Trace::new();
    let mut states = Vec::new();
    for k in 0..40u32 {
        let at = k as i64 * 40_100;
        states.push(t.seg(at, A).rel_seq(1 + k * MSS).len(MSS).rel_ack(1).send().limit);
        t.seg(at + 40_000, B).rel_seq(1).rel_ack(1 + (k + 1) * MSS).win(1).send();
    }
    assert_eq!(t.fs.inferred_shift[B], Some(11));
    assert!(states.iter().all(|&l| l != LimitState::Rwnd), "{states:?}");
}

#[test]
fn time_held_by_an_inferred_window_later_proven_larger_was_not_the_windows() {
    // A capture at the sender that began mid-transfer (no handshake), RTT 40 ms, window
    // field 10. For 20 rounds A keeps 7 segments (10,136 B) out: the smallest scale that
    // holds them is 10 (10,240 B), and they fill that window to its edge. Then A keeps 9 out
    // (13,032 B): the scale is at least 11, so the window was never under 20,480 B and the
    // 7 segments never filled it.
    let mut t = Trace::new();
    let mut sent = 0u32;
    let mut rwnd_before = 0;
    for r in 0..40u32 {
        let at = r as i64 * 40_100;
        if r > 0 {
            t.seg(at, B).rel_seq(1).rel_ack(1 + sent * MSS).win(10).send();
        }
        if r == 20 {
            assert_eq!(t.fs.inferred_shift[B], Some(10));
            rwnd_before = t.fs.limits[A].state_ns[LimitState::Rwnd as usize];
        }
        for i in 0..if r < 20 { 7 } else { 9 } {
            t.seg(at + 100 + i as i64, A).rel_seq(1 + sent * MSS).len(MSS).rel_ack(1).send();
            sent += 1;
        }
    }
    assert_eq!(t.fs.inferred_shift[B], Some(11));
    let lim = &t.fs.limits[A];
    assert!(rwnd_before > 500_000_000, "{rwnd_before}");
    assert_eq!(lim.state_ns[LimitState::Rwnd as usize], 0);
    assert!(lim.state_ns[LimitState::Cwnd as usize] >= rwnd_before);
}

#[test]
fn a_flat_flight_a_pacing_sender_keeps_on_its_own_clock_is_not_a_send_buffer() {
    // BBR at a full bottleneck: a unit of two segments every 4 ms, on its clock (no ACK
    // between the first ten), then each a millisecond after the ACK of the unit ten before
    // (40 ms RTT) — not in answer to it. Flat at twenty segments for 20 round trips.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let mut last = LimitState::Unknown;
    for k in 0..200u32 {
        let at = 41_000 + k as i64 * 4_000;
        if k >= 10 {
            t.seg(at - 1_000, B).rel_ack(1 + (k - 9) * 2 * MSS).send();
        }
        for i in 0..2 {
            last = t.seg(at + i, A).data(1 + (2 * k + i as u32) * MSS, MSS).send().limit;
        }
    }
    let lim = &t.fs.limits[A];
    let sndbuf = lim.state_ns[LimitState::Sndbuf as usize] as f64 / lim.busy_ns() as f64;
    assert_eq!(last, LimitState::Cwnd);
    assert!(sndbuf < 0.1, "{sndbuf}");
}

#[test]
fn away_from_the_sender_a_recovery_lasts_until_its_last_ack_has_reached_the_sender() {
    // At the receiver B, RTT 40 ms. Segment 2 of 4 is lost; B acknowledges 1 and SACKs 3–4;
    // A's resend arrives a round trip later and B acknowledges everything at once. A leaves
    // recovery only when that ACK reaches it, and B sees the effect (A's next data) one
    // ACK→data delay later: the 40 ms between are recovery, not a congestion window.
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7));
    for k in 0..4u32 {
        if k != 1 {
            t.seg(40_200 + k as i64 * 100, A).data(1 + k * MSS, MSS).send();
            t.seg(40_210 + k as i64 * 100, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + (k + 1) * MSS)]).send();
        }
    }
    t.seg(80_600, A).data(1 + MSS, MSS).send();
    t.seg(80_610, B).rel_ack(1 + 4 * MSS).send();
    t.seg(120_700, A).data(1 + 4 * MSS, MSS).send();
    let v = t.verdict();
    let recovery_ms = v.state_ns[LimitState::Recovery as usize] as f64 / 1e6;
    assert!(recovery_ms >= 39.0, "recovery {recovery_ms} ms, states {:?}", v.state_ns);
}

/// A's reply to B's 100-byte request in two writes sent back to back from `at`: 10 segments
/// and 500 B (the first write's end), then 10 segments and 300 B; B acknowledges every
/// second segment 2 µs after it when `acks` (a capture at B). The states of the second write.
fn reply_in_two_pieces(t: &mut Trace, at: i64, acks: bool) -> Vec<LimitState> {
    let mut next = 1;
    let mut second = Vec::new();
    for (p, tail) in [500, 300].into_iter().enumerate() {
        let start = at + p as i64 * 200;
        for k in 0..11 {
            let n = if k < 10 { MSS } else { tail };
            let state = t.seg(start + k as i64 * 10, A).data(next, n).rel_ack(101).send().limit;
            if p == 1 {
                second.push(state);
            }
            next += n;
            if acks && (k % 2 == 1 || k == 10) {
                t.seg(start + k as i64 * 10 + 2, B).rel_ack(next).send();
            }
        }
    }
    second
}

#[test]
fn a_reply_written_in_pieces_is_not_the_applications_time_at_each_pieces_end() {
    // At A, RTT 40 ms. The second write follows the first before any ACK could have
    // prompted it: A's queue was not dry, and its segments wait on the window as any bulk
    // sender's do.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.seg(41_000, B).data(1, 100).rel_ack(1).send();
    let second = reply_in_two_pieces(&mut t, 41_100, false);
    assert!(!second[..10].contains(&LimitState::App), "{second:?}");
}

#[test]
fn a_reply_to_a_new_request_ends_the_wait_on_the_application() {
    // At A, RTT 40 ms. A's first reply ends with a short segment; B acknowledges it, asks
    // again, and A's second reply leaves at once: written, its queue no longer dry, so its
    // segments are not the application's time for two round trips after the first's end.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.seg(41_000, B).data(1, 100).rel_ack(1).send();
    t.seg(41_100, A).data(1, MSS).rel_ack(101).send();
    t.seg(41_110, A).data(1 + MSS, 500).rel_ack(101).send();
    t.seg(81_200, B).data(101, 100).rel_ack(1 + MSS + 500).send();
    let states: Vec<_> =
        (0..10u32).map(|k| t.seg(81_300 + k as i64 * 10, A).data(1 + MSS + 500 + k * MSS, MSS).rel_ack(201).send().limit).collect();
    assert!(!states[1..].contains(&LimitState::App), "{states:?}");
}

#[test]
fn at_the_receiver_a_reply_written_in_pieces_is_not_the_applications_time_either() {
    // The same reply captured at B, RTT 40 ms: B acknowledges as segments arrive, so an ACK
    // always precedes the second piece here; but A could act on none sent after the first
    // piece's end before the second arrived (that takes an ACK→data delay).
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7));
    t.seg(40_200, B).data(1, 100).rel_ack(1).send();
    let second = reply_in_two_pieces(&mut t, 80_300, true);
    assert!(!second[..10].contains(&LimitState::App), "{second:?}");
}

#[test]
fn away_from_the_sender_a_pause_is_timed_from_an_empty_queue() {
    // At the receiver B: 40 ms from B to A and back (the handshake's), a 10 Mbit/s link
    // (1448 B every 1,158 µs). A keeps 60 segments out, 29.5 ms of them queued: each data
    // segment echoes B's ACK of 60 segments before, 69.5 ms earlier. After 200 segments A's
    // application pauses 200 ms; its next segment meets an empty queue.
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7));
    let arrival = |k: i64| 40_200 + k * 1_158;
    for k in 0..200i64 {
        let ecr = if k >= 60 { 1_000 + k as u32 - 60 } else { 1 };
        t.seg(arrival(k), A).data(1 + k as u32 * MSS, MSS).ts(10 + k as u32, ecr).send();
        t.seg(arrival(k) + 10, B).rel_ack(1 + (k as u32 + 1) * MSS).ts(1_000 + k as u32, 10 + k as u32).send();
    }
    let idle_ns = |t: &Trace| t.fs.limits[A].state_ns[LimitState::Idle as usize];
    let before = idle_ns(&t);
    t.seg(arrival(199) + 10 + 200_000 + 40_000 + 1_158, A).data(1 + 200 * MSS, MSS).ts(400, 1_199).send();
    // The pause's idle: the gap less the loop with no queue (40 ms, a segment's 1.16 ms on
    // the link, a timestamp tick), not less the 69.5 ms the queued segments took.
    let idle_ms = (idle_ns(&t) - before) as f64 / 1e6;
    assert!((197.0..=201.0).contains(&idle_ms), "idle {idle_ms} ms");
}

/// Captured on A's own host after a shaper at 10 Mbit/s (1448 B every 1,158 µs), B beside
/// the tap (its ACKs 10 µs after each segment): TCP keeps 10 segments out, 9 of them
/// waiting in the host's queue, each sent when the ACK of the one 10 before arrived. The
/// handshake places the tap at A; the TSvals, stamped as TCP sent, trail it by the wait.
fn behind_a_host_shaper(t: &mut Trace, segments: u32) -> Vec<LimitState> {
    t.handshake(5, 5, Some(7));
    let seen = |k: u32| 1_000 + k as i64 * 1_158;
    let sent = |k: u32| if k < 10 { 900 } else { seen(k - 10) + 10 };
    let ms = |us: i64| 10_000 + (us / 1_000) as u32;
    (0..segments)
        .map(|k| {
            let ecr = if k < 10 { 1 } else { 500 + ms(seen(k - 10) + 10) };
            let limit = t.seg(seen(k), A).data(1 + k * MSS, MSS).ts(ms(sent(k)), ecr).send().limit;
            t.seg(seen(k) + 10, B).rel_ack(1 + (k + 1) * MSS).ts(500 + ms(seen(k) + 10), ms(sent(k))).send();
            limit
        })
        .collect()
}

#[test]
fn behind_a_queue_on_the_senders_host_the_tap_sees_no_idle_application() {
    let mut t = Trace::new();
    let states = behind_a_host_shaper(&mut t, 600);
    // Once the TSvals have shown the wait (50 ms of a 1 kHz count, 16 segments), the
    // sender is read one wait back, as at any point downstream: 10 segments out, no
    // application. (Read as at TCP, it was one writing a segment at a time.)
    let late = &states[100..];
    assert!(!late.contains(&LimitState::App) && !late.contains(&LimitState::Idle), "{late:?}");
    let view = t.fs.senders[A].view(1_000 + 600 * 1_158_000);
    assert!(view.unacked >= 9 * MSS as u64, "{} B out, a2d {}", view.unacked, t.fs.senders[A].a2d_ns());
    assert!(t.fs.senders[A].a2d_ns() > 10_000_000);
}

#[test]
fn a_queue_that_forms_on_the_senders_host_mid_transfer_is_read_from_then_on() {
    // On A's host, B beside the tap: 300 segments one every 1,158 µs, each acknowledged
    // 10 µs after it, stamped as seen; then a shaper's queue forms and the next 300 are
    // seen 10 ms after TCP stamped them. From then on A is read 10 ms back — from the
    // state the tap saw when the queue showed, not from the handshake's: read from there,
    // all 300 segments acknowledged before would count as in flight.
    let mut t = Trace::new();
    t.handshake(5, 5, Some(7));
    let ms = |us: i64| 10_000 + (us / 1_000) as u32;
    let mut flights = Vec::new();
    for k in 0..600u32 {
        let seen = 1_000 + k as i64 * 1_158;
        let sent = if k < 300 { seen } else { seen - 10_000 };
        t.seg(seen, A).data(1 + k * MSS, MSS).ts(ms(sent), 1).send();
        t.seg(seen + 10, B).rel_ack(1 + (k + 1) * MSS).ts(500 + ms(seen + 10), ms(sent)).send();
        flights.push(t.fs.senders[A].view(seen * 1_000 + 20_000).unacked);
    }
    assert!(t.fs.senders[A].a2d_ns() > 5_000_000, "a2d {}", t.fs.senders[A].a2d_ns());
    let most = flights.iter().max().copied().unwrap_or(0);
    assert!(most <= 20 * MSS as u64, "{most} B out at most");
}

#[test]
fn at_the_senders_tcp_the_same_flow_is_an_ack_clocked_one() {
    // The tap before the queue: each segment seen as TCP stamps it.
    let mut t = Trace::new();
    t.handshake(5, 5, Some(7));
    let ms = |us: i64| 10_000 + (us / 1_000) as u32;
    for k in 0..600u32 {
        let at = if k < 10 { 900 + k as i64 } else { 1_000 + (k - 10) as i64 * 1_158 + 10 };
        t.seg(at, A).data(1 + k * MSS, MSS).ts(ms(at), 1).send();
        t.seg(at + 11_580, B).rel_ack(1 + (k + 1) * MSS).ts(500 + ms(at + 11_580), ms(at)).send();
    }
    assert!(t.fs.senders[A].at_sender());
}

#[test]
fn behind_a_queue_on_the_senders_host_a_segment_cut_at_the_windows_edge_ends_no_write() {
    // After the flow above, B's window closes to 100 << 7 = 12,800 B past its last ACK, and
    // A fills it to the edge: eight segments and 1,216 B. Seen 10 ms later, behind the queue,
    // the flight rebuilt for it (known to a tick) may not reach the edge; the edge is known.
    let mut t = Trace::new();
    behind_a_host_shaper(&mut t, 600);
    let ack_at = 1_000 + 600 * 1_158;
    t.seg(ack_at, B).rel_ack(1 + 600 * MSS).win(100).ts(20_000, 10_700).send();
    let first = 1 + 600 * MSS;
    for k in 0..8u32 {
        t.seg(ack_at + 10_000 + k as i64 * 1_158, A).data(first + k * MSS, MSS).ts(10_000 + 695, 20_000).send();
    }
    t.seg(ack_at + 10_000 + 8 * 1_158, A).data(first + 8 * MSS, 12_800 - 8 * MSS).ts(10_000 + 695, 20_000).send();
    assert!(!t.fs.limits[A].write_ended());
    // A short segment anywhere else ends a write.
    let mut t = Trace::new();
    behind_a_host_shaper(&mut t, 600);
    t.seg(ack_at, B).rel_ack(1 + 600 * MSS).win(100).ts(20_000, 10_700).send();
    t.seg(ack_at + 10_000, A).data(first, 700).ts(10_000 + 695, 20_000).send();
    assert!(t.fs.limits[A].write_ended());
}

/// Captured on A's own host after a token-bucket shaper at 100 Mbit/s with a short queue:
/// bursts of four segments back to back every 463 µs, the j-th burst stamped `wait_us(j)`
/// before the tap saw it; B beside the tap acknowledges each 10 µs after it, so between
/// bursts nothing is outstanding here. Returns A's idle and unseen time, ms.
fn bursts_from_a_short_host_queue(wait_us: impl Fn(u32) -> i64) -> (f64, f64) {
    let mut t = Trace::new();
    t.handshake(5, 5, Some(7));
    let ms = |us: i64| 10_000 + (us / 1_000) as u32;
    for j in 0..1_000u32 {
        for k in 0..4u32 {
            let n = j * 4 + k;
            let seen = 1_000 + j as i64 * 463 + k as i64;
            let sent = seen - wait_us(j);
            t.seg(seen, A).data(1 + n * MSS, MSS).ts(ms(sent), 1).send();
            t.seg(seen + 10, B).rel_ack(1 + (n + 1) * MSS).ts(500 + ms(seen + 10), ms(sent)).send();
        }
    }
    let l = &t.fs.limits[A];
    (l.state_ns[LimitState::Idle as usize] as f64 / 1e6, l.unseen_ns as f64 / 1e6)
}

#[test]
fn behind_a_short_queue_on_the_senders_host_the_gaps_between_bursts_are_not_idle() {
    // Waits of 0–0.7 ms, under the 2 ms a single segment must show: a quarter of the
    // segments trail the stamps' floor by 1.2 ms, which none seen as TCP sent it does.
    // Each gap (~450 µs) is then taken back up to the mean wait (~0.35 ms).
    let (idle_ms, unseen_ms) = bursts_from_a_short_host_queue(|j| (j % 8) as i64 * 100);
    let (idle_as_sent_ms, _) = bursts_from_a_short_host_queue(|_| 0);
    assert!(idle_ms < 0.4 * idle_as_sent_ms, "idle {idle_ms} ms of {idle_as_sent_ms}, unseen {unseen_ms} ms");
    assert!(unseen_ms > 200.0, "idle {idle_ms} ms, unseen {unseen_ms} ms");
}

#[test]
fn bursts_seen_as_tcp_sent_them_leave_their_gaps_idle() {
    // The same bursts stamped as seen: an application writing four segments at a time.
    let (idle_ms, unseen_ms) = bursts_from_a_short_host_queue(|_| 0);
    assert!(idle_ms > 400.0 && unseen_ms == 0.0, "idle {idle_ms} ms, unseen {unseen_ms} ms");
}

/// On A's host (the handshake leaves at once), B 1 ms away: 40 segments each acknowledged
/// in turn, then 210 ms with all acknowledged and nothing asked, then one more full segment
/// after `unseen` packets from A the tap never saw. Returns A's idle time, ms.
fn pause_at_the_senders_host(unseen: u16) -> f64 {
    let mut t = Trace::new();
    t.handshake(1_000, 5, Some(7));
    for k in 0..40u32 {
        t.seg(2_000 + k as i64 * 1_000, A).data(1 + k * MSS, MSS).send();
        t.seg(3_000 + k as i64 * 1_000, B).rel_ack(1 + (k + 1) * MSS).send();
    }
    t.seg(253_000, A).data(1 + 40 * MSS, MSS).after_unseen(unseen).send();
    t.seg(254_000, B).rel_ack(1 + 41 * MSS).send();
    t.seg(255_000, A).data(1 + 41 * MSS, MSS).send();
    t.fs.limits[A].state_ns[LimitState::Idle as usize] as f64 / 1e6
}

#[test]
fn at_the_senders_host_a_pause_after_packets_that_never_reached_the_tap_is_its_timer() {
    // Its IPv4 IDs skip five packets: sent, dropped before the tap (a full qdisc), and A
    // waited on its retransmission timer (Linux's least: 200 ms) to send again.
    assert!(pause_at_the_senders_host(5) < 10.0, "idle {} ms", pause_at_the_senders_host(5));
}

#[test]
fn at_the_senders_host_a_pause_with_every_packet_seen_stays_idle() {
    assert!(pause_at_the_senders_host(0) > 200.0, "idle {} ms", pause_at_the_senders_host(0));
}

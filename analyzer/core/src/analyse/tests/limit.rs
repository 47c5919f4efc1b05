//! What limits the sender at a moment (the idea of Linux's chrono counters).

use super::*;
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

/// `grew_past_floor` skips its division below two segments of growth: it must answer as the
/// float formula does everywhere, at the edge of the shortcut and past 2^53 too.
#[test]
fn the_growth_test_answers_as_its_float_formula() {
    use crate::analyse::limit::grew_past_floor;
    let formula = |peak: u64, first: u64, elapsed: i64, srtt: i64, mss: u64| {
        let rounds = elapsed as f64 / srtt.max(1) as f64;
        peak as f64 >= first as f64 + (2.0f64).max(rounds * 0.25) * mss as f64
    };
    let mss = [536u64, 1448, 8948, u32::MAX as u64];
    let first = [0u64, 1, 14_480, (1 << 53) - 3000, (1 << 53) - 2896, 1 << 53, (1 << 60) + 1, u64::MAX - 10];
    let elapsed = [-5_000_000i64, 0, 1, 39_999_999, 40_000_000, 320_000_000, 1 << 50, i64::MAX];
    let srtt = [0i64, 1, 40_000_000, i64::MAX];
    let mut checked = 0;
    for &m in &mss {
        for &f in &first {
            let least = f.saturating_add(2 * m);
            let peaks = [f, least.saturating_sub(1), least, least.saturating_add(1), least.saturating_add(64 * m), u64::MAX];
            for &p in &peaks {
                for &e in &elapsed {
                    for &r in &srtt {
                        assert_eq!(grew_past_floor(p, f, e, r, m), formula(p, f, e, r, m), "peak {p} first {f} elapsed {e} srtt {r} mss {m}");
                        checked += 1;
                    }
                }
            }
        }
    }
    // Both answers occur: a peak two segments up early in a stretch grew, later it did not.
    assert!(grew_past_floor(14_480 + 2 * 1448, 14_480, 0, 40_000_000, 1448));
    assert!(!grew_past_floor(14_480 + 2 * 1448, 14_480, 400_000_000, 40_000_000, 1448));
    assert!(!grew_past_floor(14_480 + 2 * 1448 - 1, 14_480, 0, 40_000_000, 1448));
    assert_eq!(checked, 4 * 8 * 6 * 8 * 4);
}

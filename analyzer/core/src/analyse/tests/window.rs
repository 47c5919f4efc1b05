//! The receive window (RFC 7323 §2): scaled only when both SYNs carry the option; without
//! a handshake a lower bound on the shift comes from the flight it allows.

use super::*;
use crate::analyse::window::RwndBasis;

#[test]
fn both_syns_with_window_scale_scale_the_window() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let n = t.seg(41_000, B).rel_ack(1).win(1_000).send();
    assert_eq!((n.data_dir, n.rwnd, n.rwnd_basis), (A as u8, 128_000, Some(RwndBasis::Known)));
}

#[test]
fn synack_without_window_scale_leaves_every_window_unscaled() {
    let mut t = Trace::new();
    t.seg(0, A).rel_seq(0).flags(flags::SYN).syn_options(Some(7)).send();
    t.seg(40_000, B).rel_seq(0).rel_ack(1).flags(flags::SYN | flags::ACK).syn_options(None).send();
    t.seg(40_100, A).rel_ack(1).send();
    let n = t.seg(41_000, B).rel_ack(1).win(65_535).send();
    assert_eq!((n.rwnd, n.rwnd_basis), (65_535, Some(RwndBasis::NotNegotiated)));
}

#[test]
fn without_handshake_flight_above_the_raw_window_proves_a_shift() {
    let mut t = Trace::new();
    t.seg(0, B).rel_ack(1).win(1_000).send();
    let mut last = None;
    for k in 0..10 {
        last = Some(t.seg(100 + k, A).data(1 + k as u32 * MSS, MSS).send());
    }
    // 14,480 B in flight under a raw window of 1,000: the shift is at least 4.
    let n = last.unwrap();
    assert_eq!(t.fs.inferred_shift[B], Some(4));
    assert_eq!((n.rwnd, n.rwnd_basis), (16_000, Some(RwndBasis::Inferred)));
}

#[test]
fn acks_seen_before_the_first_data_each_count_at_their_own_time() {
    // A capture begun mid-stream in the middle of the path, on a run of B's ACKs: one a
    // millisecond, each acknowledging two more segments under a window of 15,928 B (11
    // segments, scale unseen). A sends two segments on each, seen here 8.8 ms later. The
    // first data seen (segments 11 and 12, sent on the second ACK) had 11 segments
    // outstanding at A, not the 13 the first ACK alone would leave: no larger scale.
    let mut t = Trace::new();
    for k in 0..6u32 {
        t.seg(k as i64 * 1_000, B).rel_ack(1 + 2 * k * MSS).win(15_928).ts(5_000 + k, 900).send();
    }
    let mut last = None;
    for k in 1..6u32 {
        for i in [2 * k + 9, 2 * k + 10] {
            let at = k as i64 * 1_000 + 8_800 + (i % 2) as i64 * 10;
            last = Some(t.seg(at, A).data(1 + i * MSS, MSS).ts(1_000 + k, 5_000 + k).send());
        }
    }
    let n = last.unwrap();
    assert_eq!(t.fs.inferred_shift[B], None);
    assert_eq!((n.unacked, n.rwnd), (11 * MSS as u64, 15_928));
}

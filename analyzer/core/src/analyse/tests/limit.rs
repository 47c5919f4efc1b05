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

//! Bytes in flight (RFC 6675 pipe): sent − cumulatively acknowledged − SACKed − deemed
//! lost, at the capture point; on pure ACKs too.

use super::*;

/// A client-side capture (the sender of A's data): SYN/ACK after the whole RTT of 40 ms.
fn at_sender() -> Trace {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t
}

#[test]
fn handshake_ack_has_nothing_in_flight() {
    let mut t = Trace::new();
    t.seg(0, A).rel_seq(0).flags(flags::SYN).syn_options(Some(7)).send();
    t.seg(40_000, B).rel_seq(0).rel_ack(1).flags(flags::SYN | flags::ACK).syn_options(Some(7)).send();
    let n = t.seg(40_100, A).rel_ack(1).send();
    // The pure ACK describes B's direction: B's SYN is acknowledged, nothing is outstanding.
    assert_eq!((n.data_dir, n.unacked, n.in_flight), (B as u8, 0, 0));
}

#[test]
fn data_stays_in_flight_until_acked() {
    let mut t = at_sender();
    for k in 0..4 {
        let n = t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
        assert_eq!(n.in_flight, (k as u64 + 1) * MSS as u64);
    }
    let n = t.seg(81_000, B).rel_ack(1 + 2 * MSS).send();
    assert_eq!((n.data_dir, n.unacked, n.in_flight), (A as u8, 2 * MSS as u64, 2 * MSS as u64));
}

#[test]
fn sacked_bytes_leave_the_pipe_and_a_young_hole_stays_in_it() {
    let mut t = at_sender();
    for k in 0..4 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    // Segment 2 missing: B acknowledges segment 1 and SACKs 3–4.
    let n = t.seg(81_000, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + 4 * MSS)]).send();
    assert_eq!((n.unacked, n.sacked), (3 * MSS as u64, 2 * MSS as u64));
    // Two SACKed segments are below DupThresh and the hole is younger than an RTT: in flight.
    assert_eq!(n.in_flight, MSS as u64);
}

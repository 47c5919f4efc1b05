//! What data below SND.MAX is: a retransmission (and which trigger), the same packet seen
//! twice, a late original, a keep-alive or a zero-window probe.

use super::*;
use crate::analyse::notes::RetransKind;

fn four_segments_sent() -> Trace {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    for k in 0..4 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    t
}

#[test]
fn resend_after_duplicate_acks_is_a_fast_retransmission_of_the_first_copy() {
    let mut t = four_segments_sent();
    // Segment 2 lost: the ACK of segment 1, then one duplicate per segment above the hole.
    t.seg(81_000, B).rel_ack(1 + MSS).send();
    for k in 0..2 {
        let n = t.seg(81_001 + k, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + (3 + k as u32) * MSS)]).send();
        assert_eq!((n.dup_ack, n.dup_ack_of), (k as u32 + 1, 8));
    }
    let n = t.seg(81_100, A).data(1 + MSS, MSS).send();
    assert_eq!((n.retrans, n.retrans_of), (RetransKind::Fast, 5));
}

#[test]
fn resend_after_an_rto_of_silence_is_an_rto_retransmission() {
    let mut t = four_segments_sent();
    // Nothing heard for 400 ms (RTO floor 200 ms): the first segment again.
    let n = t.seg(441_000, A).data(1, MSS).send();
    assert_eq!(n.retrans, RetransKind::Rto);
}

#[test]
fn the_same_packet_twice_is_a_duplicate_not_a_retransmission() {
    let mut t = four_segments_sent();
    let n = t.seg(41_010, A).data(1 + 3 * MSS, MSS).same_ip_id().send();
    assert!(n.duplicate);
    assert_eq!(n.retrans, RetransKind::None);
}

#[test]
fn an_original_with_an_older_timestamp_arriving_late_is_reordering() {
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7)); // at the receiver: data follows its ACK by an RTT
    t.seg(40_200, A).data(1, MSS).ts(10, 1).send();
    t.seg(40_300, A).data(1 + 2 * MSS, MSS).ts(12, 1).send();
    let n = t.seg(43_300, A).data(1 + MSS, MSS).ts(11, 1).send();
    assert_eq!(n.retrans, RetransKind::None);
    let r = n.reorder.expect("late original");
    assert_eq!((r.packets, r.bytes, r.late_ns), (1, MSS, 3_000_000));
}

#[test]
fn one_byte_just_below_what_is_acknowledged_is_a_keepalive() {
    let mut t = four_segments_sent();
    t.seg(81_000, B).rel_ack(1 + 4 * MSS).send();
    let n = t.seg(2_000_000, A).data(4 * MSS, 1).send();
    assert!(n.keepalive);
    assert_eq!(n.retrans, RetransKind::None);
}

#[test]
fn one_byte_at_the_edge_of_a_zero_window_is_a_probe() {
    let mut t = four_segments_sent();
    let n = t.seg(81_000, B).rel_ack(1 + 4 * MSS).win(0).send();
    assert!(n.zero_window);
    let n = t.seg(300_000, A).data(1 + 4 * MSS, 1).send();
    assert!(n.zero_window_probe);
    // The probe again: still a probe, not a retransmission.
    let n = t.seg(700_000, A).data(1 + 4 * MSS, 1).send();
    assert!(n.zero_window_probe && n.retrans == RetransKind::None);
}

#[test]
fn a_loss_in_the_first_round_after_the_handshake_ends_the_first_slow_start() {
    // The initial window overflows a tiny bottleneck queue: its second segment is lost.
    // No round has been counted yet, let alone one that doubled, but a connection seen from
    // its SYN has been in slow start since (ssthresh starts infinite, RFC 5681 §3.1).
    let mut t = four_segments_sent();
    t.seg(81_000, B).rel_ack(1 + MSS).send();
    for k in 0..2 {
        t.seg(81_001 + k, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + (3 + k as u32) * MSS)]).send();
    }
    t.seg(81_100, A).data(1 + MSS, MSS).send();
    assert!(t.fs.senders[A].recoveries[0].in_slow_start);
}

#[test]
fn a_connection_seen_from_its_syn_is_in_slow_start_at_its_first_loss_however_its_rounds_grew() {
    // Past a bottleneck already full the rounds stop growing (arrivals at the link's rate):
    // four segments a round for six rounds, then the first loss. ssthresh was still
    // infinite, so it ends the first slow start (RFC 5681 §3.1), as the kernel counts it.
    let mut t = four_segments_sent();
    for r in 1..=6u32 {
        let t0 = 41_000 + r as i64 * 40_000;
        t.seg(t0, B).rel_ack(1 + 4 * r * MSS).send();
        for k in 0..4 {
            t.seg(t0 + 1 + k as i64, A).data(1 + (4 * r + k) * MSS, MSS).send();
        }
    }
    t.seg(321_000, B).rel_ack(1 + 25 * MSS).send();
    for k in 0..2 {
        t.seg(321_001 + k, B).rel_ack(1 + 25 * MSS).sack(&[(1 + 26 * MSS, 1 + (27 + k as u32) * MSS)]).send();
    }
    t.seg(321_100, A).data(1 + 25 * MSS, MSS).send();
    assert!(t.fs.senders[A].recoveries[0].in_slow_start);
}

#[test]
fn a_first_loss_without_the_handshake_needs_a_doubling_round_to_end_a_slow_start() {
    // The same losses in a capture that starts mid-transfer: nothing says the sender was
    // still in slow start.
    let mut t = Trace::new();
    for k in 0..4 {
        t.seg(1_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    t.seg(41_000, B).rel_ack(1 + MSS).send();
    for k in 0..2 {
        t.seg(41_001 + k, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + (3 + k as u32) * MSS)]).send();
    }
    t.seg(41_100, A).data(1 + MSS, MSS).send();
    assert!(!t.fs.senders[A].recoveries[0].in_slow_start);
}

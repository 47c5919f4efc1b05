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
fn a_late_original_stamped_in_the_highest_ones_tick_is_told_by_its_ip_id() {
    // At the receiver of an 800 Mbit/s flow: 70 segments leave in one millisecond, all
    // stamped 10. The fourth overtakes the second and third (two receive queues on the
    // host); their IPv4 IDs, two and one below the fourth's, say they left just before it.
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7));
    t.seg(40_200, A).data(1, MSS).ts(10, 1).send();
    t.seg(40_215, A).data(1 + 3 * MSS, MSS).ts(10, 1).after_unseen(2).send();
    for (k, back) in [(1, 2), (2, 1)] {
        let n = t.seg(40_217 + k as i64, A).data(1 + k * MSS, MSS).ts(10, 1).sent_before(back).send();
        assert_eq!(n.retrans, RetransKind::None);
        assert!(n.reorder.is_some(), "late original");
    }
}

#[test]
fn a_resend_overtaken_by_new_data_in_the_same_tick_is_still_a_retransmission() {
    // The second segment is lost before the receiver. Within the tick, the sender resends
    // it, then sends the sixth; the sixth arrives first. The resend's ID is one below the
    // sixth's, but far above the third's, the first segment seen above it: it left a
    // round trip after that one.
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7));
    t.seg(40_200, A).data(1, MSS).ts(10, 1).send();
    for k in 2..5u32 {
        let skip = if k == 2 { 1 } else { 0 };
        t.seg(40_200 + k as i64, A).data(1 + k * MSS, MSS).ts(10, 1).after_unseen(skip).send();
    }
    t.seg(40_300, A).data(1 + 5 * MSS, MSS).ts(10, 1).after_unseen(1).send();
    let n = t.seg(40_301, A).data(1 + MSS, MSS).ts(10, 1).sent_before(1).send();
    assert_ne!(n.retrans, RetransKind::None);
    assert!(n.reorder.is_none());
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

/// At the receiver B of a 40 ms path (20 ms each way): A's segments 1–`n` arrive 100 µs
/// apart from 60 ms, but for those in `lost`; B acknowledges each arrival (SACKing above a
/// hole). Returns the trace.
fn seen_at_the_receiver(n: u32, lost: &[u32]) -> Trace {
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7));
    let mut have = vec![false; n as usize + 1];
    for k in 1..=n {
        if lost.contains(&k) {
            continue;
        }
        let at = 60_000 + k as i64 * 100;
        t.seg(at, A).data(1 + (k - 1) * MSS, MSS).send();
        have[k as usize] = true;
        acknowledge(&mut t, at + 10, &have);
    }
    t
}

/// B's ACK of the segments it `have`s: cumulative up to the first hole, SACKing what is above.
fn acknowledge(t: &mut Trace, at: i64, have: &[bool]) {
    let upto = (1..have.len()).find(|&k| !have[k]).unwrap_or(have.len()) as u32;
    let above: Vec<(u32, u32)> = (upto as usize + 1..have.len()).filter(|&k| have[k]).map(|k| (1 + (k as u32 - 1) * MSS, 1 + k as u32 * MSS)).collect();
    t.seg(at, B).rel_ack(1 + (upto - 1) * MSS).sack(&above[above.len().saturating_sub(3)..]).send();
}

#[test]
fn away_from_the_sender_a_recovery_lasts_until_what_was_sent_before_it_is_acknowledged() {
    // Segments 3 and 7 and the flight's last two, 11 and 12, are lost. A resends 3 (its
    // recovery runs to 12, all it had sent), then sends new data, 13, then resends 7; last
    // it resends 11 and 12. B saw nothing beyond 10 when 3 came back, but 13 shows where
    // A's new data began: its ACK up to 10 does not end the recovery; all five resends are
    // one recovery's, as they were at A.
    let mut t = seen_at_the_receiver(12, &[3, 7, 11, 12]);
    let mut have = vec![true; 14];
    for k in [3, 7, 11, 12, 13] {
        have[k] = false;
    }
    let mut arrive = |t: &mut Trace, at: i64, k: u32| {
        t.seg(at, A).data(1 + (k - 1) * MSS, MSS).send();
        have[k as usize] = true;
        acknowledge(t, at + 10, &have);
    };
    arrive(&mut t, 100_500, 3);
    arrive(&mut t, 100_600, 13);
    arrive(&mut t, 110_000, 7);
    arrive(&mut t, 141_000, 11);
    arrive(&mut t, 141_100, 12);
    let recs = &t.fs.senders[A].recoveries;
    assert_eq!(recs.iter().map(|r| r.retransmissions).collect::<Vec<_>>(), vec![4]);
}

#[test]
fn away_from_the_sender_a_resend_seen_within_an_ack_turn_of_the_recoverys_end_is_its_own() {
    // Segment 3 is lost: A resends it, then 5 as well (needlessly: B has it). B gets the
    // resend of 3 and acknowledges all 8: at B the recovery is over. The resend of 5 comes
    // 100 µs later: A sent it 20 ms before that ACK could reach it, in the same recovery.
    let mut t = seen_at_the_receiver(8, &[3]);
    t.seg(100_500, A).data(1 + 2 * MSS, MSS).send();
    t.seg(100_510, B).rel_ack(1 + 8 * MSS).send();
    t.seg(100_600, A).data(1 + 4 * MSS, MSS).send();
    let recs = &t.fs.senders[A].recoveries;
    assert_eq!(recs.iter().map(|r| r.retransmissions).collect::<Vec<_>>(), vec![2]);
}

//! Bytes in flight (RFC 6675 pipe): sent − cumulatively acknowledged − SACKed − deemed
//! lost, at the capture point; on pure ACKs too.

use super::*;
use crate::analyse::vantage::Vantage;

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

#[test]
fn an_ack_that_sacks_and_acks_times_racks_clock_by_the_segment_it_acks() {
    let mut t = at_sender();
    // Segments 1–2 leave at 41 ms, 3–4 at 55 ms; segment 2 is held up.
    for (k, at) in [(0, 41_000), (1, 41_000), (2, 55_000), (3, 55_000)] {
        t.seg(at, A).data(1 + k * MSS, MSS).send();
    }
    // At 90 ms B acknowledges 1 (a 49 ms round trip) and SACKs 3 (35 ms). Linux tags the
    // SACKed segment first and the acknowledged one last, so RACK's RTT is 49 ms: segment
    // 2, sent 49 ms ago, has a reordering window (min RTT / 4) left before it counts as
    // lost. Timed by segment 3's 35 ms it would be lost already.
    let n = t.seg(90_000, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + 3 * MSS)]).send();
    assert_eq!((n.unacked, n.sacked), (3 * MSS as u64, MSS as u64));
    assert_eq!(n.in_flight, 2 * MSS as u64);
}

#[test]
fn a_delivered_resend_marks_the_originals_sent_before_it_lost_above_every_sack() {
    let mut t = at_sender();
    for k in 0..4 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    // Only segment 2 arrives: B SACKs it, and A resends 1.
    t.seg(81_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 2 * MSS)]).send();
    t.seg(81_100, A).data(1, MSS).send();
    // The resend is delivered after 41 ms: B acknowledges 1–2, nothing SACKed above.
    // Segments 3–4 left 40 ms before the resend and are not back: RACK deems them lost
    // though no SACK lies above them (in recovery, with no reordering seen, without a
    // reordering window).
    let n = t.seg(122_100, B).rel_ack(1 + 2 * MSS).send();
    assert_eq!((n.unacked, n.sacked, n.in_flight), (2 * MSS as u64, 0, 0));
}

#[test]
fn a_timeout_marks_all_outstanding_lost_and_its_resends_refill_the_pipe() {
    let mut t = at_sender();
    for k in 0..5 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    // Nothing comes back. At 300 ms, past the 200 ms RTO floor, A resends segment 1:
    // Linux marks all five lost at the timeout, and only the resend is in the network.
    let n = t.seg(300_000, A).data(1, MSS).send();
    assert_eq!((n.unacked, n.in_flight), (5 * MSS as u64, MSS as u64));
    // B acknowledges it. Segments 2–5 stay lost, not SACKed and not resent: none in flight.
    let n = t.seg(340_000, B).rel_ack(1 + MSS).send();
    assert_eq!((n.unacked, n.in_flight), (4 * MSS as u64, 0));
    // Slow start after the timeout resends them two at a time.
    t.seg(340_100, A).data(1 + MSS, MSS).send();
    let n = t.seg(340_200, A).data(1 + 2 * MSS, MSS).send();
    assert_eq!(n.in_flight, 2 * MSS as u64);
    // Once SND.UNA passes what was outstanding at the timeout, the mark is gone.
    let n = t.seg(380_000, B).rel_ack(1 + 5 * MSS).send();
    assert_eq!((n.unacked, n.in_flight), (0, 0));
    let n = t.seg(380_100, A).data(1 + 5 * MSS, MSS).send();
    assert_eq!(n.in_flight, MSS as u64);
}

#[test]
fn with_no_reordering_seen_rack_marks_holes_lost_without_a_settling_time() {
    let mut t = at_sender();
    // Segments 1–7, one every 2 ms; 2, 4 and 6 are dropped (a queue overflowing in
    // slow start drops every other packet).
    for k in 0..7 {
        t.seg(41_000 + 2_000 * k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    // B acknowledges 1 at 82 ms, then at 97 ms SACKs 3, 5 and 7 (7 was sent at 53 ms).
    t.seg(82_000, B).rel_ack(1 + MSS).send();
    let sacks = [(1 + 2 * MSS, 1 + 3 * MSS), (1 + 4 * MSS, 1 + 5 * MSS), (1 + 6 * MSS, 1 + 7 * MSS)];
    let n = t.seg(97_000, B).rel_ack(1 + MSS).sack(&sacks).send();
    assert_eq!((n.unacked, n.sacked), (6 * MSS as u64, 3 * MSS as u64));
    // Only hole 2 has DupThresh SACKed segments above it, but every hole was sent before
    // segment 7 got through and over an RTT ago: RACK (RFC 8985 §6.2, no reordering seen,
    // DupThresh SACKed) gives them no min_RTT/4 grace. Linux counts the same: nothing in flight.
    assert_eq!(n.in_flight, 0);
}

#[test]
fn a_paced_sender_is_still_at_the_capture_point() {
    // The handshake's ACK leaves 0.1 ms after the SYN/ACK: the capture is at A.
    let mut t = at_sender();
    // A paces (BBR at a low rate): each segment leaves 5 ms after the ACK it echoes.
    t.seg(45_000, A).data(1, MSS).ts(100, 50).send();
    t.seg(85_000, B).rel_ack(1 + MSS).ts(60, 100).send();
    t.seg(90_000, A).data(1 + MSS, MSS).ts(105, 60).send();
    t.seg(91_000, A).data(1 + 2 * MSS, MSS).ts(106, 60).send();
    let n = t.seg(130_000, B).rel_ack(1 + 2 * MSS).ts(70, 105).send();
    // The 5 ms wait is A's own, not a path between A and the capture point: the flight
    // after this ACK is what the capture point sees outstanding, not a view rebuilt 5 ms back.
    assert!(t.fs.senders[A].at_sender());
    assert_eq!((n.unacked, n.in_flight), (MSS as u64, MSS as u64));
}

#[test]
fn without_a_handshake_one_send_right_on_its_ack_places_the_capture_at_the_sender() {
    // A capture that starts mid-transfer at A, a paced sender: most segments leave 5 ms
    // after the ACK they echo, which alone would read as 5 ms between A and the capture.
    let mut t = Trace::new();
    t.seg(0, A).data(1, MSS).ts(100, 50).send();
    t.seg(40_000, B).rel_ack(1 + MSS).ts(60, 100).send();
    t.seg(45_000, A).data(1 + MSS, MSS).ts(105, 60).send();
    t.seg(46_000, A).data(1 + 2 * MSS, MSS).ts(106, 60).send();
    assert!(!t.fs.senders[A].at_sender());
    // Then a window-bound moment: the next ACK's send leaves 30 µs after it. No path
    // between A and a capture point turns around that fast.
    t.seg(85_000, B).rel_ack(1 + 2 * MSS).ts(65, 105).send();
    t.seg(85_030, A).data(1 + 3 * MSS, MSS).ts(145, 65).send();
    assert!(t.fs.senders[A].at_sender());
    let n = t.seg(86_000, B).rel_ack(1 + 3 * MSS).ts(66, 106).send();
    assert_eq!((n.unacked, n.in_flight), (MSS as u64, MSS as u64));
}

#[test]
fn a_retransmission_lost_again_leaves_the_pipe_once_a_later_send_got_through() {
    let mut t = at_sender();
    for k in 0..5 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    // Segment 2 dropped: B acknowledges 1 and SACKs 3–5; A resends 2 and sends 6 and 7.
    t.seg(81_000, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + 5 * MSS)]).send();
    let n = t.seg(81_100, A).data(1 + MSS, MSS).send();
    assert_eq!(n.in_flight, MSS as u64, "the resent copy is in flight");
    t.seg(82_000, A).data(1 + 5 * MSS, MSS).send();
    t.seg(82_001, A).data(1 + 6 * MSS, MSS).send();
    // An RTT later B SACKs 6–7 but still misses 2: the copy sent before them was lost too
    // (RFC 8985 §6.2: RACK times retransmissions by their last sending).
    let n = t.seg(122_100, B).rel_ack(1 + MSS).sack(&[(1 + 2 * MSS, 1 + 7 * MSS)]).send();
    assert_eq!((n.unacked, n.sacked, n.in_flight), (6 * MSS as u64, 5 * MSS as u64, 0));
}

/// Segments 2–8 from 83 ms, one every 2 ms; 3, 5 and 7 are dropped; at 139 ms B
/// acknowledges 2 and SACKs 4, 6 and 8 (8 was sent at 95 ms: RACK's RTT is 44 ms).
fn three_holes_after(t: &mut Trace) -> PacketNotes {
    for k in 0..7 {
        t.seg(83_000 + 2_000 * k, A).data(1 + (1 + k as u32) * MSS, MSS).send();
    }
    let sacks = [(1 + 3 * MSS, 1 + 4 * MSS), (1 + 5 * MSS, 1 + 6 * MSS), (1 + 7 * MSS, 1 + 8 * MSS)];
    t.seg(139_000, B).rel_ack(1 + 2 * MSS).sack(&sacks).send()
}

/// At the sender, segment 1 arrives after segment 2: SACKed first, then acknowledged at
/// 82 ms with no resend — reordering seen (Linux reord_seen).
fn one_original_late() -> Trace {
    let mut t = at_sender();
    t.seg(41_000, A).data(1, MSS).send();
    t.seg(41_001, A).data(1 + MSS, MSS).send();
    t.seg(81_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 2 * MSS)]).send();
    t.seg(82_000, B).rel_ack(1 + 2 * MSS).send();
    t
}

#[test]
fn a_hole_filled_by_its_original_gives_rack_a_reordering_window() {
    let mut t = one_original_late();
    let n = three_holes_after(&mut t);
    // Reordering seen (Linux reord_seen): RACK waits min_RTT/4 = 10 ms past the RTT, so only
    // segment 3 (sent at 85 ms) is lost; 5 and 7 are still in flight.
    assert_eq!(n.in_flight, 2 * MSS as u64);
}

#[test]
fn an_original_left_unresent_long_past_racks_rtt_widens_its_window() {
    let mut t = at_sender();
    t.seg(41_000, A).data(1, MSS).send();
    t.seg(41_001, A).data(1 + MSS, MSS).send();
    // Segment 1 is held back 70 ms: B SACKs 2 at 81 ms and again at 111 ms, and A never
    // resends 1. At 111 ms it trailed RACK's RTT (40 ms, segment 2's) by 30 ms and A had
    // not deemed it lost: A's window was wider than 30 ms (a capture that began after
    // the D-SACKs which widened it shows only this).
    t.seg(81_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 2 * MSS)]).send();
    t.seg(111_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 2 * MSS)]).send();
    t.seg(112_000, B).rel_ack(1 + 2 * MSS).send();
    let n = three_holes_after(&mut t);
    // RACK now waits 30 ms past the RTT, not min_RTT/4 = 10 ms: segment 3 (sent at 85 ms)
    // is still in flight beside 5 and 7.
    assert_eq!(n.in_flight, 3 * MSS as u64);
}

#[test]
fn a_round_trip_of_dsacks_widens_racks_window_by_one_step() {
    // Reordering seen (RACK's window: min_RTT/4, 10 ms).
    let mut t = one_original_late();
    // Segments 3–5 resent at once, needlessly: three D-SACKs in one round trip.
    for k in 2..5 {
        t.seg(83_000 + k as i64, A).data(1 + k * MSS, MSS).send();
    }
    for k in 2..5 {
        t.seg(84_000 + k as i64, A).data(1 + k * MSS, MSS).send();
    }
    t.seg(100_000, A).data(1 + 5 * MSS, MSS).send(); // segment 6, dropped
    t.seg(123_000, B).rel_ack(1 + 5 * MSS).send();
    for k in 2..5 {
        t.seg(123_100 + k as i64, B).rel_ack(1 + 5 * MSS).sack(&[(1 + k * MSS, 1 + (k + 1) * MSS)]).send();
    }
    t.seg(130_000, A).data(1 + 6 * MSS, MSS).send();
    t.seg(130_001, A).data(1 + 7 * MSS, MSS).send();
    // At 170 ms B SACKs 7–8 (sent at 130 ms: RACK's RTT 40 ms). Linux widened the window by
    // one step for that round, to 20 ms: segment 6, sent 30 ms before them, is lost.
    // (A step per D-SACK would make it 40 ms and keep 6 in flight.)
    let n = t.seg(170_000, B).rel_ack(1 + 5 * MSS).sack(&[(1 + 6 * MSS, 1 + 8 * MSS)]).send();
    assert_eq!((n.unacked, n.sacked, n.in_flight), (3 * MSS as u64, 2 * MSS as u64, 0));
}

/// At the sender, segment 1 resent too early, then D-SACKed: the sender learns the resend
/// was spurious. No reordering seen.
fn one_spurious_resend() -> Trace {
    let mut t = at_sender();
    t.seg(41_000, A).data(1, MSS).send();
    t.seg(41_001, A).data(1 + MSS, MSS).send();
    t.seg(80_000, A).data(1, MSS).send();
    t.seg(81_000, B).rel_ack(1 + 2 * MSS).send();
    t.seg(82_000, B).rel_ack(1 + 2 * MSS).sack(&[(1, 1 + MSS)]).send();
    t
}

#[test]
fn a_dsack_alone_is_no_reordering_seen() {
    let mut t = one_spurious_resend();
    let n = three_holes_after(&mut t);
    // A D-SACK widens RACK's window, yet with DupThresh SACKed and no reordering the sender
    // itself detected, Linux marks every hole sent before segment 8 lost at once.
    assert_eq!(n.in_flight, 0);
}

#[test]
fn a_dsack_before_any_reordering_seen_leaves_racks_window_as_it_was() {
    // The D-SACK came with no reordering seen: Linux does not widen RACK's window for it
    // (not a spurious recovery RACK's haste caused).
    let mut t = one_spurious_resend();
    // Segments 3 and 4 at 83 ms (3 is dropped), 5 at 100 ms; at 140 ms B SACKs 4–5. Two
    // segments above the hole, no recovery: RACK waits min RTT / 4 = 10 ms past 5's 40 ms
    // RTT, so 3, sent 57 ms ago, is lost (with the window widened a step, 20 ms, not yet).
    t.seg(83_000, A).data(1 + 2 * MSS, MSS).send();
    t.seg(83_001, A).data(1 + 3 * MSS, MSS).send();
    t.seg(100_000, A).data(1 + 4 * MSS, MSS).send();
    let n = t.seg(140_000, B).rel_ack(1 + 2 * MSS).sack(&[(1 + 3 * MSS, 1 + 5 * MSS)]).send();
    assert_eq!((n.unacked, n.sacked), (3 * MSS as u64, 2 * MSS as u64));
    assert_eq!(n.in_flight, 0);
}

/// A capture begun mid-transfer at A, whose writer sends one segment `wait_us` after each
/// ACK and never at once; B's ACK echoes each segment `ack_us` after it passes. Returns the
/// notes of the last segment.
fn stop_and_wait(t: &mut Trace, rounds: u32, ack_us: i64, wait_us: i64) -> PacketNotes {
    let mut now = 0;
    let mut n = t.seg(now, A).data(1, MSS).ts(100, 50).send();
    for k in 1..=rounds {
        now += ack_us;
        t.seg(now, B).rel_ack(1 + k * MSS).ts(50 + k, 99 + k).send();
        now += wait_us;
        n = t.seg(now, A).data(1 + k * MSS, MSS).ts(100 + k, 50 + k).send();
    }
    n
}

#[test]
fn a_writer_that_waits_after_every_ack_is_at_the_capture_point_when_the_ack_turn_is_far_slower() {
    // A's writer waits 3 ms after each ACK; B's ACKs come back a whole 40 ms round trip
    // after the data. Three turns do not tell yet...
    let mut t = Trace::new();
    stop_and_wait(&mut t, 3, 40_000, 3_000);
    assert_eq!(t.fs.senders[A].echo_vantage(), None);
    // ...ten do: 3 ms against 40 ms is A's own wait, not 3 ms of path between A and the
    // capture point, and the segment just sent is all A has outstanding.
    let mut t = Trace::new();
    let n = stop_and_wait(&mut t, 10, 40_000, 3_000);
    assert_eq!(t.fs.senders[A].echo_vantage(), Some(Vantage::SenderSide));
    assert_eq!(t.fs.senders[A].a2d_ns(), 0);
    assert_eq!((n.unacked, n.in_flight), (MSS as u64, MSS as u64));
}

#[test]
fn comparable_ack_and_data_turns_place_the_capture_in_the_middle() {
    // 20 ms to B and back, 20 ms to A and back: A acts on what the capture point saw 20 ms
    // earlier.
    let mut t = Trace::new();
    stop_and_wait(&mut t, 10, 20_000, 20_000);
    assert_eq!(t.fs.senders[A].echo_vantage(), Some(Vantage::Middle));
    assert_eq!(t.fs.senders[A].a2d_ns(), 20_000_000);
}

#[test]
fn an_ack_right_behind_its_data_places_the_capture_at_the_receiver() {
    // Mid-transfer, no handshake. At B the ACK of a pair leaves 30 µs after the data it
    // echoes; in the middle it would come back a round trip (here 5 ms) later.
    let mut at_b = Trace::new();
    at_b.seg(0, A).data(1, MSS).ts(100, 50).send();
    at_b.seg(30, B).rel_ack(1 + MSS).ts(60, 100).send();
    assert_eq!(at_b.fs.senders[A].echo_vantage(), Some(Vantage::ReceiverSide));
    let mut mid = Trace::new();
    mid.seg(0, A).data(1, MSS).ts(100, 50).send();
    mid.seg(5_000, B).rel_ack(1 + MSS).ts(60, 100).send();
    assert_eq!(mid.fs.senders[A].echo_vantage(), None);
}

#[test]
fn a_capture_begun_mid_stream_counts_what_was_sent_before_it_as_in_flight() {
    // No handshake: the first data seen starts 10 segments past what B has acknowledged.
    let mut t = Trace::new();
    let n = t.seg(0, A).data(1 + 10 * MSS, MSS).send();
    assert_eq!(n.in_flight, MSS as u64);
    // B's first ACK shows those 10 segments unacknowledged: sent before the capture began.
    let n = t.seg(1_000, B).rel_ack(1).send();
    assert_eq!((n.unacked, n.in_flight), (11 * MSS as u64, 11 * MSS as u64));
    let n = t.seg(2_000, B).rel_ack(1 + 4 * MSS).send();
    assert_eq!(n.in_flight, 7 * MSS as u64);
    // Their send times are unknown: no RTT sample from them.
    assert_eq!(n.rtt_ns, None);
}

/// A capture at A that began mid-transfer: segments 1–2 are captured, B acknowledges 1
/// after 10 ms and A sends 2 at once on that ACK (the capture is at A).
fn at_sender_mid_stream() -> Trace {
    let mut t = Trace::new();
    t.seg(0, A).data(1, MSS).ts(100, 50).send();
    t.seg(10_000, B).rel_ack(1 + MSS).ts(60, 100).send();
    t.seg(10_020, A).data(1 + MSS, MSS).ts(101, 60).send();
    t
}

#[test]
fn new_data_sent_past_a_hole_deemed_lost_shows_reordering_seen_before_the_capture() {
    let mut t = at_sender_mid_stream();
    for k in 2..6 {
        t.seg(10_030 + k as i64, A).data(1 + k * MSS, MSS).ts(102, 60).send();
    }
    // Segment 3 is held up: B acknowledges 2 and SACKs 4–6. With DupThresh SACKed above it
    // and no reordering seen, RACK deems 3 lost at once...
    let n = t.seg(20_100, B).rel_ack(1 + 2 * MSS).sack(&[(1 + 3 * MSS, 1 + 6 * MSS)]).ts(70, 102).send();
    assert_eq!((n.unacked, n.sacked, n.in_flight), (4 * MSS as u64, 3 * MSS as u64, 0));
    // ...but A sends segment 7 on that ACK instead of resending 3: it had seen reordering
    // before the capture began, and gives 3 RACK's window (min RTT / 4). Both are in flight.
    let n = t.seg(20_120, A).data(1 + 6 * MSS, MSS).ts(112, 70).send();
    assert_eq!(n.in_flight, 2 * MSS as u64);
}

#[test]
fn new_data_past_holes_the_sender_knew_of_before_the_capture_shows_nothing() {
    // Segments 1–4 left before the capture began; B's first ACK SACKs 2–4, so A knew of the
    // hole at 1 before the capture and may have resent it then: sending 6 instead says
    // nothing about its reordering window. Segment 1 stays lost.
    let mut t = Trace::new();
    t.seg(0, A).data(1 + 4 * MSS, MSS).ts(100, 50).send();
    t.seg(10_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 4 * MSS)]).ts(60, 90).send();
    let n = t.seg(10_020, A).data(1 + 5 * MSS, MSS).ts(101, 60).send();
    assert_eq!((n.unacked, n.sacked, n.in_flight), (6 * MSS as u64, 3 * MSS as u64, 2 * MSS as u64));
    // B acknowledges everything (a 10 ms round trip). A sends 7–10; 7 is lost, 8–10 SACKed:
    // with no reordering seen RACK deems 7 lost at once, nothing is in flight.
    t.seg(20_000, B).rel_ack(1 + 6 * MSS).ts(70, 101).send();
    for k in 6..10 {
        t.seg(20_020 + k as i64, A).data(1 + k * MSS, MSS).ts(111, 70).send();
    }
    let n = t.seg(30_050, B).rel_ack(1 + 6 * MSS).sack(&[(1 + 7 * MSS, 1 + 10 * MSS)]).ts(80, 111).send();
    assert_eq!((n.unacked, n.sacked, n.in_flight), (4 * MSS as u64, 3 * MSS as u64, 0));
}

#[test]
fn an_ack_seen_before_any_data_places_the_unseen_flight_below_it() {
    let mut t = Trace::new();
    t.seg(0, B).rel_ack(1).send();
    let n = t.seg(500, A).data(1 + 3 * MSS, MSS).send();
    assert_eq!((n.unacked, n.in_flight), (4 * MSS as u64, 4 * MSS as u64));
}

/// Two recoveries back to back, as Linux runs them: the ACK that ends the first (it covers
/// everything sent before it began) already shows a hole lost above it, so the kernel
/// enters the second on that ACK, its retrans_stamp still the first recovery's resend.
fn second_recovery_at_once() -> Trace {
    let mut t = at_sender();
    for k in 0..8 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).ts(100, 1).send();
    }
    // Segment 1 is lost: B SACKs 2–8, A resends 1 (recovery 1, up to segment 8) and sends
    // 9–14, of which 10 and 14 are lost.
    t.seg(81_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 8 * MSS)]).ts(50, 100).send();
    t.seg(81_100, A).data(1, MSS).ts(200, 50).send();
    for k in 8..14 {
        t.seg(81_200 + k, A).data(1 + k as u32 * MSS, MSS).ts(201, 50).send();
    }
    // The resend and 9 arrive, 11–13 above the hole at 10: recovery 1 is over and
    // DupThresh deems 10 lost on the same ACK. A resends 10 (recovery 2, up to 14) and
    // sends 15–19, of which 15 is lost.
    t.seg(121_200, B).rel_ack(1 + 9 * MSS).sack(&[(1 + 10 * MSS, 1 + 13 * MSS)]).ts(90, 200).send();
    t.seg(121_700, A).data(1 + 9 * MSS, MSS).ts(300, 90).send();
    for k in 14..19 {
        t.seg(121_800 + k, A).data(1 + k as u32 * MSS, MSS).ts(301, 90).send();
    }
    t
}

#[test]
fn a_recovery_that_follows_another_at_once_keeps_its_retransmission_stamp() {
    let mut t = second_recovery_at_once();
    // A partial ACK (14 still missing) echoing 201: older than recovery 2's resend (300),
    // not than the stamp Linux kept from recovery 1 (200). So no delayed original, no
    // reordering: with 16–19 SACKed above it, DupThresh deems 15 lost at once (as do
    // RACK's clock and recovery's zero reordering window), and 14 with it. Nothing is in
    // flight. Read as reordering, 15 would wait out a reordering window: 1 MSS in flight.
    let n = t.seg(161_800, B).rel_ack(1 + 13 * MSS).sack(&[(1 + 15 * MSS, 1 + 19 * MSS)]).ts(130, 201).send();
    assert_eq!((n.unacked, n.sacked), (6 * MSS as u64, 4 * MSS as u64));
    assert_eq!(n.in_flight, 0);
}

#[test]
fn a_partial_ack_echoing_a_send_older_than_the_first_resend_is_reordering() {
    let mut t = second_recovery_at_once();
    // Echoing 100, from before recovery 1's resend: the hole was filled by a delayed
    // original (Linux tcp_try_undo_partial). Reordering seen: RACK waits a reordering
    // window (min RTT / 4 = 10 ms) past its RTT, so 15, sent 40 ms ago, is still in flight.
    let n = t.seg(161_800, B).rel_ack(1 + 13 * MSS).sack(&[(1 + 15 * MSS, 1 + 19 * MSS)]).ts(130, 100).send();
    assert_eq!((n.unacked, n.sacked), (6 * MSS as u64, 4 * MSS as u64));
    assert_eq!(n.in_flight, MSS as u64);
}

#[test]
fn an_original_late_while_resends_wait_on_the_window_does_not_widen_racks_window() {
    let mut t = at_sender();
    for k in 0..10 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).send();
    }
    // Segment 1 is lost, 2 held up. B SACKs 3–10: both holes are lost by DupThresh. A
    // resends 1 but not 2 (its reduced window has no room: resends wait), and sends
    // nothing new. B SACKs the same again at 95 ms.
    t.seg(81_000, B).rel_ack(1).sack(&[(1 + 2 * MSS, 1 + 10 * MSS)]).send();
    t.seg(81_100, A).data(1, MSS).send();
    t.seg(95_000, B).rel_ack(1).sack(&[(1 + 2 * MSS, 1 + 10 * MSS)]).send();
    // 2 was never resent, and arrives: reordering seen. Not resent by 95 ms says nothing of
    // RACK's window (trailing RACK's RTT by 14 ms then would make it wider than 14 ms):
    // the window held it, and the last new data left at 41 ms, before any deadline.
    t.seg(121_100, B).rel_ack(1 + 10 * MSS).send();
    for k in 10..14 {
        t.seg(121_200 + k as i64, A).data(1 + k * MSS, MSS).send();
    }
    // 11 is lost; 12–14 are SACKed after 40 ms, and again 12 ms later. RACK's window is
    // min RTT / 4 = 10 ms: 11 is lost by now (with a 14 ms window it would not be yet).
    t.seg(161_300, B).rel_ack(1 + 10 * MSS).sack(&[(1 + 11 * MSS, 1 + 14 * MSS)]).send();
    let n = t.seg(173_300, B).rel_ack(1 + 10 * MSS).sack(&[(1 + 11 * MSS, 1 + 14 * MSS)]).send();
    assert_eq!((n.unacked, n.sacked), (4 * MSS as u64, 3 * MSS as u64));
    assert_eq!(n.in_flight, 0);
}

#[test]
fn a_dsack_for_one_resend_leaves_a_partial_ack_free_to_show_reordering() {
    let mut t = at_sender();
    // Segments 1–9 at 41 ms (TSval 100): 1 is held up on the path, 2 a little, 3 and 9
    // are dropped.
    for k in 0..9 {
        t.seg(41_000 + k, A).data(1 + k as u32 * MSS, MSS).ts(100, 1).send();
    }
    // B SACKs 4–8: 1–3 are lost by DupThresh, and A resends them (TSval 200; the recovery
    // runs up to 9). The original 2 gets there first, then the resends of 2 (D-SACKed:
    // needless) and 3. The resend of 1 is dropped.
    t.seg(81_000, B).rel_ack(1).sack(&[(1 + 3 * MSS, 1 + 8 * MSS)]).ts(50, 100).send();
    for k in 0..3 {
        t.seg(81_100 + k as i64, A).data(1 + k * MSS, MSS).ts(200, 50).send();
    }
    t.seg(85_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 2 * MSS), (1 + 3 * MSS, 1 + 8 * MSS)]).ts(55, 100).send();
    let dsack = [(1 + MSS, 1 + 2 * MSS), (1 + MSS, 1 + 2 * MSS), (1 + 3 * MSS, 1 + 8 * MSS)];
    t.seg(121_100, B).rel_ack(1).sack(&dsack).ts(90, 100).send();
    t.seg(121_200, B).rel_ack(1).sack(&[(1 + MSS, 1 + 8 * MSS)]).ts(90, 100).send();
    // The original 1 arrives: a partial ACK echoing 100, older than the first resend. One
    // D-SACK of three resends does not undo the recovery (Linux undo_retrans is 2), so the
    // sender reads a delayed original: reordering seen.
    t.seg(150_000, B).rel_ack(1 + 8 * MSS).ts(120, 100).send();
    // Segments 10–12 at 150.1 ms, 10 dropped; B SACKs 11–12 at 195 ms. RACK now waits
    // min RTT / 4 = 10 ms past its RTT (44.9 ms): 10, sent 44.9 ms ago, is still in flight
    // (9, sent long before, is lost). Without reordering seen it would wait nothing.
    for k in 9..12 {
        t.seg(150_100 + k as i64, A).data(1 + k * MSS, MSS).ts(300, 120).send();
    }
    let n = t.seg(195_000, B).rel_ack(1 + 8 * MSS).sack(&[(1 + 10 * MSS, 1 + 12 * MSS)]).ts(160, 300).send();
    assert_eq!((n.unacked, n.sacked), (4 * MSS as u64, 2 * MSS as u64));
    assert_eq!(n.in_flight, MSS as u64);
}

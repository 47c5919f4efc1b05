//! Delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation): a sample is the
//! path's only when the segment it delivered was sent with data queued behind it.

use super::*;

/// `n` exchanges 40 ms apart: A sends `segments` segments of `len` bytes, B acknowledges
/// them 20 ms later.
fn exchanges(n: u32, segments: u32, len: u32) -> Trace {
    let mut t = Trace::new();
    t.handshake(20_000, 100, Some(7));
    let mut seq = 1;
    for k in 0..n {
        let at = 30_000 + k as i64 * 40_000;
        for i in 0..segments {
            t.seg(at + i as i64 * 100, A).data(seq, len).send();
            seq += len;
        }
        t.seg(at + 20_000, B).rel_ack(seq).send();
    }
    t
}

#[test]
fn responses_shorter_than_a_segment_show_the_application_not_the_path() {
    let t = exchanges(100, 1, 1204);
    assert_eq!(t.fs.senders[A].delivery.capacity_bps(0.9, false), None);
}

#[test]
fn an_idle_sender_is_application_limited_even_with_full_segments() {
    // 8 full segments every 40 ms, all acknowledged before the next 8: the sender sat idle
    // between them, as Linux flags it.
    let t = exchanges(100, 8, MSS);
    assert_eq!(t.fs.senders[A].delivery.capacity_bps(0.9, false), None);
}

#[test]
fn a_sender_that_never_runs_out_shows_the_path() {
    // Bulk: a full segment leaves as each ACK frees one, 8 always in flight.
    let mut t = Trace::new();
    t.handshake(20_000, 100, Some(7));
    for k in 0..400u32 {
        let at = 30_000 + k as i64 * 1_000;
        if k >= 8 {
            t.seg(at, B).rel_ack(1 + (k - 7) * MSS).send();
        }
        t.seg(at + 10, A).data(1 + k * MSS, MSS).send();
    }
    let rate = t.fs.senders[A].delivery.capacity_bps(0.9, false).expect("a rate");
    // One segment a millisecond: 11.6 Mbit/s, within the histogram's bin.
    assert!((rate / 11.584e6 - 1.0).abs() < 0.1, "{rate}");
}

#[test]
fn a_window_short_of_the_path_shows_the_link_in_its_pairs() {
    // A window of 12 segments on a path of 14 ms at one segment a millisecond (11.6 Mbit/s):
    // each round's ACKs come a millisecond apart, each releasing a segment, then the link
    // sits idle 2 ms. Every 16-ACK stretch spans an idle gap (about 0.88 of the link); each
    // ACK over the gap before it times the link itself.
    let mut t = Trace::new();
    t.handshake(20_000, 100, Some(7));
    let mut sent = 0u32;
    for k in 0..12u32 {
        t.seg(30_000 + k as i64 * 10, A).data(1 + k * MSS, MSS).send();
        sent += 1;
    }
    for round in 0..30i64 {
        for i in 0..12i64 {
            let at = 44_000 + round * 14_000 + i * 1_000;
            let acked = (round * 12 + i + 1) as u32;
            t.seg(at, B).rel_ack(1 + acked * MSS).send();
            t.seg(at + 10, A).data(1 + sent * MSS, MSS).send();
            sent += 1;
        }
    }
    let rate = t.fs.senders[A].delivery.capacity_bps(0.9, false).expect("a rate");
    assert!((rate / 11.584e6 - 1.0).abs() < 0.05, "{rate}");
}

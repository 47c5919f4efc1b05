//! Whole-flow verdicts from traces long enough to have time shares.

use super::*;
use crate::analyse::catalogue::FindingId;
use crate::analyse::finding::Value;
use crate::analyse::notes::LimitState;
use crate::analyse::vantage::Vantage;

/// Reno in congestion avoidance over a 40 ms path it does not fill: each ACK releases a
/// segment, each round adds one. Segments `lost` (a run within one round, or none) are
/// dropped: the segments after them are SACKed by duplicate ACKs, the third of which resends
/// them; the ACKs in recovery release nothing, so the window comes back at the segments sent
/// before the loss (about half).
fn reno_rounds(rounds: u32, lost: std::ops::Range<u32>) -> Trace {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    reno_burst(&mut t, 41_000, 1, rounds, lost);
    t
}

/// [`reno_rounds`]' data from `first_us`, its segment k at relative sequence number
/// `base + k·MSS`. Returns when the last round's ACKs are due and the segments sent.
fn reno_burst(t: &mut Trace, first_us: i64, base: u32, rounds: u32, lost: std::ops::Range<u32>) -> (i64, u32) {
    const RTT: i64 = 40_000;
    let seq = |k: u32| base + k * MSS;
    let mut next = 0u32;
    let mut flight = Vec::new();
    for _ in 0..10 {
        t.seg(first_us, A).data(seq(next), MSS).send();
        flight.push(next);
        next += 1;
    }
    let mut recovered_to = None;
    for r in 1..=rounds as i64 {
        let start = first_us + r * RTT;
        let sent = std::mem::take(&mut flight);
        if let Some(end) = recovered_to.take() {
            // The resent segment arrived: one ACK covers it and everything SACKed.
            t.seg(start - 50, B).rel_ack(seq(end)).send();
        }
        let mut hole = None;
        for (i, &k) in sent.iter().enumerate() {
            let at = start + i as i64 * 100;
            if lost.contains(&k) {
                hole.get_or_insert((k, 0));
                continue;
            }
            match hole.as_mut() {
                Some((h, dups)) => {
                    t.seg(at, B).rel_ack(seq(*h)).sack(&[(seq(lost.end), seq(k + 1))]).send();
                    *dups += 1;
                    if *dups == 3 {
                        for (j, l) in lost.clone().enumerate() {
                            t.seg(at + 10 + j as i64, A).data(seq(l), MSS).send();
                        }
                    }
                }
                None => {
                    t.seg(at, B).rel_ack(seq(k + 1)).send();
                    t.seg(at + 10, A).data(seq(next), MSS).send();
                    flight.push(next);
                    next += 1;
                }
            }
        }
        match hole {
            Some(_) => recovered_to = sent.last().map(|&k| k + 1),
            None => {
                let at = start + sent.len() as i64 * 100 + 20;
                t.seg(at, A).data(seq(next), MSS).send();
                flight.push(next);
                next += 1;
            }
        }
    }
    (first_us + (rounds as i64 + 1) * RTT, next)
}

#[test]
fn one_loss_that_keeps_reno_below_a_link_it_never_fills_limits_it() {
    // About 4,000 segments and one loss (p = 0.03 %, recovery one round of 80): the window
    // spends the rest of the transfer regrowing a segment a round.
    let v = reno_rounds(80, 200..201).verdict();
    assert_eq!(v.retrans_segments, 1);
    assert_eq!(v.findings[0].id, FindingId::LossLimited, "{:?}", v.findings);
}

/// The loss finding's Mathis estimate, in bit/s.
fn mathis_bps(v: &FlowVerdict) -> f64 {
    let f = v.findings.iter().find(|f| f.id == FindingId::LossLimited).expect("a loss finding");
    match f.values.iter().find(|(k, _)| *k == "mathis") {
        Some((_, Value::Rate(bps))) => *bps,
        other => panic!("mathis: {other:?}"),
    }
}

#[test]
fn four_segments_lost_from_one_window_are_one_loss_event_to_the_mathis_estimate() {
    // One window halved once, whether it lost one segment or four: Mathis's p counts the
    // halvings (loss events), not the segments resent.
    let (one, four) = (reno_rounds(80, 200..201).verdict(), reno_rounds(80, 200..204).verdict());
    assert_eq!((one.retrans_segments, four.retrans_segments), (1, 4));
    let ratio = mathis_bps(&four) / mathis_bps(&one);
    assert!((0.95..1.05).contains(&ratio), "{ratio}: {:?} / {:?}", four.findings, one.findings);
}

#[test]
fn without_the_loss_the_same_flow_is_not_loss_limited() {
    let v = reno_rounds(80, 0..0).verdict();
    assert!(v.findings.iter().all(|f| f.id != FindingId::LossLimited), "{:?}", v.findings);
}

#[test]
fn a_window_held_for_no_cause_the_capture_shows_says_so_rather_than_not_limited() {
    // The same Reno flow with no loss: its window held it all along (it grows a segment a
    // round), the link its packet pairs timed at ~116 Mbit/s was never near full, and
    // nothing was lost. Not "nothing to fix": the window, for no cause seen.
    let v = reno_rounds(80, 0..0).verdict();
    assert_eq!(v.primary().id, FindingId::CwndLimited, "{:?}", v.findings);
    assert!(v.primary().share >= 0.5);
    let m = v.primary().message();
    assert!(m.contains("not seen full") && m.contains("0% of segments retransmitted"), "{m}");
}

/// A connection captured from its SYN that sends `rounds` rounds of slow start over a
/// 40 ms path and ends: ten segments, then each ACK (one per segment) releasing two.
fn slow_start_only(rounds: u32) -> FlowVerdict {
    const RTT: i64 = 40_000;
    let mut t = Trace::new();
    t.handshake(RTT, 100, Some(7));
    let mut next = 0u32;
    let mut flight: Vec<u32> = Vec::new();
    for k in 0..10u32 {
        t.seg(41_000 + k as i64 * 10, A).data(1 + k * MSS, MSS).send();
        flight.push(k);
        next += 1;
    }
    for r in 1..=rounds as i64 {
        let start = 41_000 + r * RTT;
        let sent = std::mem::take(&mut flight);
        let last = r == rounds as i64;
        for (i, &k) in sent.iter().enumerate() {
            let at = start + i as i64 * 30;
            t.seg(at, B).rel_ack(1 + (k + 1) * MSS).send();
            if !last {
                for j in 0..2 {
                    t.seg(at + 10 + j, A).data(1 + next * MSS, MSS).send();
                    flight.push(next);
                    next += 1;
                }
            }
        }
    }
    t.verdict()
}

#[test]
fn a_transfer_that_ends_in_its_first_slow_start_is_bound_by_round_trips() {
    // 10, 20, 40 … 640 segments: 1,270 segments (1.8 MB) in eight round trips, no loss,
    // the link never near full: its round trips, not a cause the window answered, set its time.
    let v = slow_start_only(8);
    assert_eq!(v.primary().id, FindingId::SlowStartLimited, "{:?}", v.findings);
    let m = v.primary().message();
    assert!(m.contains("the window still growing"), "{m}");
}

/// A connection captured from its SYN whose 20-segment initial burst overflows a small
/// queue: segments 10.. 10+`lost` are dropped, the rest SACKed, the drops resent in one
/// recovery, then 20 clean rounds of 20 segments over the 40 ms path.
fn first_burst_losing(lost: u32) -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    burst_losing(&mut t, 41_000, 0, lost);
    t.verdict()
}

/// [`first_burst_losing`]'s burst and rounds from `first_us`, its segments counted from
/// segment `base` (relative sequence number `1 + base·MSS`).
fn burst_losing(t: &mut Trace, first_us: i64, base: u32, lost: u32) {
    const RTT: i64 = 40_000;
    let seq = |k: u32| 1 + (base + k) * MSS;
    for k in 0..20u32 {
        t.seg(first_us + k as i64, A).data(seq(k), MSS).send();
    }
    let mut at = first_us + RTT;
    for k in 0..20u32 {
        let dropped = (10..10 + lost).contains(&k);
        if k < 10 {
            t.seg(at, B).rel_ack(seq(k + 1)).send();
        } else if !dropped {
            t.seg(at, B).rel_ack(seq(10)).sack(&[(seq(10 + lost), seq(k + 1))]).send();
        }
        at += 100;
    }
    for k in 10..10 + lost {
        t.seg(at, A).data(seq(k), MSS).send();
        at += 10;
    }
    t.seg(at + RTT, B).rel_ack(seq(20)).send();
    let mut next = 20u32;
    at += RTT + 100;
    for _ in 0..20 {
        for k in 0..20u32 {
            t.seg(at + k as i64 * 100, A).data(seq(next + k), MSS).send();
        }
        for k in 0..20u32 {
            t.seg(at + RTT + k as i64 * 100, B).rel_ack(seq(next + k + 1)).send();
        }
        next += 20;
        at += RTT + 2_100;
    }
}

#[test]
fn five_segments_lost_at_the_end_of_the_first_slow_start_are_an_overshoot() {
    let v = first_burst_losing(5);
    assert!(v.findings.iter().any(|f| f.id == FindingId::SlowStartOvershoot), "{:?}", v.findings);
}

#[test]
fn a_needless_resend_undone_before_them_does_not_end_the_first_slow_start() {
    // The first round's segment 1 is resent at once and B's first ACK D-SACKs it: a recovery
    // whose one resend proved needless, which Linux undoes (ssthresh back to infinite). The
    // next round's burst then loses five: those end the first slow start.
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    for k in 0..10u32 {
        t.seg(41_000 + k as i64, A).data(1 + k * MSS, MSS).send();
    }
    t.seg(41_050, A).data(1, MSS).send();
    t.seg(81_000, B).rel_ack(1 + MSS).sack(&[(1, 1 + MSS)]).send();
    for k in 1..10u32 {
        t.seg(81_000 + k as i64 * 100, B).rel_ack(1 + (k + 1) * MSS).send();
    }
    burst_losing(&mut t, 83_000, 10, 5);
    let v = t.verdict();
    assert_eq!(v.retrans_segments, 6);
    assert!(v.findings.iter().any(|f| f.id == FindingId::SlowStartOvershoot), "{:?}", v.findings);
}

#[test]
fn four_are_a_few_losses_not_an_overshoot() {
    let v = first_burst_losing(4);
    assert!(v.findings.iter().all(|f| f.id != FindingId::SlowStartOvershoot), "{:?}", v.findings);
}

/// A capture begun mid-transfer (no handshake): B advertises `raw` in every ACK; A has
/// `windows[r]` segments in flight in round r ([`Trace::ack_clocked_rounds`]).
fn rounds_without_handshake(raw: u16, windows: &[u32]) -> FlowVerdict {
    let mut t = Trace::new();
    t.seg(0, B).rel_ack(1).win(raw).send();
    t.ack_clocked_rounds(1_000, raw, windows);
    t.verdict()
}

/// The window held full for twenty rounds.
fn window_bound_without_handshake(raw: u16) -> FlowVerdict {
    rounds_without_handshake(raw, &[raw as u32 / MSS; 21])
}

#[test]
fn a_scale_proven_late_is_not_a_window_that_grew() {
    // Raw window 34 (34,816 B at the receiver's shift of 10). Ten rounds at 12 segments
    // prove a shift of 9 only (17,408 B); the flight then fills the window for twenty
    // rounds, proving 10 a third of the way in. Same raw window throughout: one window,
    // not one that grew, held the sender (the capture began mid-transfer, so whether a
    // static buffer or an autotuning maximum set it, it cannot tell).
    let mut windows = vec![12; 10];
    windows.extend([24; 20]);
    let v = rounds_without_handshake(34, &windows);
    assert_eq!(v.findings[0].id, FindingId::RwndLimited, "{:?}", v.findings[0].id);
    assert_eq!(v.rwnd_max, 34 << 10);
}

#[test]
fn a_window_held_at_the_unscaled_maximum_without_a_handshake_is_scaling_not_in_effect() {
    let v = window_bound_without_handshake(u16::MAX);
    assert_eq!(v.findings[0].id, FindingId::WscaleMissing);
}

#[test]
fn a_window_held_below_it_is_not() {
    let v = window_bound_without_handshake(60_000);
    assert!(v.findings[0].id != FindingId::WscaleMissing, "{:?}", v.findings[0].id);
    assert_eq!(v.findings[0].id, FindingId::RwndLimited, "{:?}", v.findings[0].id);
}

/// Neither SYN offers window scaling; B then advertises `raw` while A keeps it full for
/// twenty rounds.
fn window_bound_unscaled(raw: u16) -> FlowVerdict {
    let mut t = Trace::new();
    t.seg(0, A).rel_seq(0).flags(flags::SYN).send();
    t.seg(1_000, B).rel_seq(0).rel_ack(1).flags(flags::SYN | flags::ACK).win(raw).send();
    t.seg(2_000, A).rel_ack(1).send();
    t.ack_clocked_rounds(3_000, raw, &[raw as u32 / MSS; 21]);
    t.verdict()
}

#[test]
fn a_window_held_near_the_unscaled_cap_is_scaling_not_in_effect() {
    let v = window_bound_unscaled(64_240);
    assert_eq!(v.findings[0].id, FindingId::WscaleMissing, "{:?}", v.findings);
}

#[test]
fn an_8_kb_window_without_scaling_is_the_receivers_buffer_first() {
    // The field could say 65,535 B; the receiver never offered more than 8,192.
    let v = window_bound_unscaled(8_192);
    assert!(v.findings.iter().all(|f| f.id != FindingId::WscaleMissing), "{:?}", v.findings);
    assert!(matches!(v.findings[0].id, FindingId::RwndStatic | FindingId::RwndLimited), "{:?}", v.findings);
}

/// Both SYNs offer a window scale of 1 as captured here; B then advertises `raw` (so
/// 2 × `raw` B) while A keeps `windows[r]` segments in flight in round r.
fn rounds_after_scaled_handshake(raw: u16, windows: &[u32]) -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(40_000, 10, Some(1));
    t.ack_clocked_rounds(41_000, raw, windows);
    t.verdict()
}

/// A ramps up (10, 20 segments), then holds 28 segments (40,544 B) for twenty rounds
/// under B's field `raw`.
fn held_at_28_segments(raw: u16) -> FlowVerdict {
    let mut windows = vec![10, 20];
    windows.extend([28; 20]);
    rounds_after_scaled_handshake(raw, &windows)
}

#[test]
fn a_flight_held_at_the_window_field_unscaled_is_a_scale_stripped_past_the_capture() {
    // Field 40,544 (81,088 B at shift 1): 28 segments is exactly the field — A never got
    // B's scale.
    let v = held_at_28_segments(40_544);
    assert_eq!(v.findings[0].id, FindingId::WscaleMissing, "{:?}", v.findings);
    assert_eq!(v.rwnd_max, 40_544, "the window the sender read");
}

#[test]
fn a_flight_that_once_went_past_the_field_got_the_scale() {
    // Three rounds at 30 segments (43,440 B, over the field) prove the shift in use; the
    // flight then flat at 28 is a send buffer's, under a window of 81,088 B.
    let mut windows = vec![10, 20, 30, 30, 30];
    windows.extend([28; 20]);
    let v = rounds_after_scaled_handshake(40_544, &windows);
    assert_eq!(v.findings[0].id, FindingId::SndbufLimited, "{:?}", v.findings);
}

#[test]
fn a_flight_held_well_under_the_field_is_not_the_window() {
    let v = held_at_28_segments(60_000);
    assert_eq!(v.findings[0].id, FindingId::SndbufLimited, "{:?}", v.findings);
}

/// Window scale 7 (a 102,400 B window from raw 800): A opens its cwnd over 25 rounds, then
/// B's reader falls behind and its window is held at 32,000 B (raw 250) for 20 rounds while
/// A keeps `segments` in flight — below the window's edge, as a pacing sender does.
fn reader_falls_behind(segments: u32) -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(40_000, 10, Some(7));
    let mut rounds: Vec<(u16, u32)> = (0..25).map(|r| (800, 10 + 2 * r)).collect();
    rounds.extend([(250, segments); 20]);
    t.ack_clocked_rounds_under(41_000, &rounds);
    t.verdict()
}

#[test]
fn a_sender_keeping_most_of_a_held_down_window_in_flight_is_paced_by_the_reader() {
    // 20 segments (28,960 B) of 32,000: never a segment short of the edge, never stopped
    // by it — but held down less than half the busy time, so only that pace tells.
    let v = reader_falls_behind(20);
    assert_eq!(v.findings[0].id, FindingId::RwndSlowReader, "{:?}", v.findings);
}

#[test]
fn the_peak_a_held_window_is_stated_against_is_the_one_before_it_not_a_later_one() {
    // The reader falls behind (the window from 102,400 B down to 32,000 B), then catches up:
    // three rounds under 256,000 B. "32,000 B open, 31 % of the 102,400 B advertised
    // before", not of the 256,000 B that came after.
    let mut t = Trace::new();
    t.handshake(40_000, 10, Some(7));
    let mut rounds: Vec<(u16, u32)> = (0..25).map(|r| (800, 10 + 2 * r)).collect();
    rounds.extend([(250, 20); 20]);
    rounds.extend([(2_000, 30); 3]);
    t.ack_clocked_rounds_under(41_000, &rounds);
    let v = t.verdict();
    let f = v.findings.iter().find(|f| f.id == FindingId::RwndSlowReader).expect("a slow reader");
    let value = |name: &str| f.values.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone());
    let (Some(Value::Bytes(open)), Some(Value::Share(fill)), Some(Value::Bytes(peak))) = (value("rwnd"), value("fill"), value("peak")) else {
        panic!("{:?}", f.values)
    };
    assert_eq!(peak, 800 << 7, "{:?}", f.values);
    assert!((open as f64 / peak as f64 - fill).abs() < 0.05, "{:?}", f.values);
}

#[test]
fn one_keeping_a_small_part_of_it_is_held_by_something_else() {
    // 10 segments (14,480 B), under half that window: the sender's own limit.
    let v = reader_falls_behind(10);
    assert!(v.findings.iter().all(|f| f.id != FindingId::RwndSlowReader), "{:?}", v.findings);
}

/// A writer handing its socket a chunk every second, three times: each goes out as 18
/// rounds of Reno losing its 40th segment, then the chunk's last `tail` bytes, and is all
/// acknowledged about 0.2 s before the next. With `request`, B asks for each chunk after
/// the first during that pause (a response loop, not a writer's own clock).
fn chunks_every_second(tail: u32, request: bool) -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let mut base = 1;
    for c in 0..3 {
        let first = 41_000 + c * 1_000_000;
        if request && c > 0 {
            t.seg(first - 20_000, B).rel_seq(1 + (c as u32 - 1) * 100).rel_ack(base).len(100).send();
        }
        let (acks_due, sent) = reno_burst(&mut t, first, base, 18, 40..41);
        let top = base + sent * MSS;
        t.seg(acks_due, B).rel_ack(top).send();
        t.seg(acks_due + 10, A).data(top, tail).send();
        t.seg(acks_due + 40_010, B).rel_ack(top + tail).send();
        base = top + tail;
    }
    t.verdict()
}

#[test]
fn a_writer_whose_every_chunk_is_delivered_before_the_next_is_application_limited() {
    // Idle 0.4 s of 2.8 (0.14 of the time): its losses and its window's regrowth held each
    // chunk back, never the transfer.
    let v = chunks_every_second(700, false);
    assert_eq!(v.findings[0].id, FindingId::AppSlowWriter, "{:?}", v.findings);
    assert!(v.findings.iter().any(|f| f.id == FindingId::LossLimited), "{:?}", v.findings);
}

/// Six writes from A, each five full segments sent together over a 40 ms path and
/// acknowledged 100 ms later (a 60 ms queue at the bottleneck), the next 250 ms after the
/// last: no capacity measured (one ACK a burst), the smoothed RTT 1.8× its floor, nothing
/// outstanding more than half the time.
fn queued_bursts_then_idle() -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let (mut at, mut top) = (41_000, 1);
    for _ in 0..6 {
        for k in 0..5 {
            t.seg(at + k as i64 * 10, A).data(top + k * MSS, MSS).send();
        }
        top += 5 * MSS;
        t.seg(at + 100_000, B).rel_ack(top).send();
        at += 250_000;
    }
    t.verdict()
}

#[test]
fn bursts_that_queue_then_leave_the_link_idle_did_not_fill_it() {
    let v = queued_bursts_then_idle();
    assert_eq!(v.findings[0].id, FindingId::AppSlowWriter, "{:?}", v.findings);
    assert!(v.findings.iter().all(|f| f.id != FindingId::BandwidthLimited), "{:?}", v.findings);
}

#[test]
fn segments_each_acknowledged_before_the_next_leaves_a_shaper_still_fill_it() {
    // Past a shaper on A's host: a two-segment GSO packet every 30 µs (its rate), each
    // acknowledged 5 µs later, the handshake's round trip 2 µs. Nothing is outstanding
    // five sixths of the time, in 25 µs gaps: no pause, and the queue (RTT 2.5× its floor)
    // fills the link. Nor are those gaps the writer's idle time: no application finding.
    let mut t = Trace::new();
    t.handshake(2, 2, Some(7));
    for k in 0..2_000u32 {
        let at = 100 + k as i64 * 30;
        t.seg(at, A).data(1 + 2 * k * MSS, 2 * MSS).send();
        t.seg(at + 5, B).rel_ack(1 + 2 * (k + 1) * MSS).send();
    }
    let v = t.verdict();
    assert_eq!(v.findings[0].id, FindingId::BandwidthLimited, "{:?}", v.findings);
    assert!(v.findings.iter().all(|f| f.id != FindingId::AppSlowWriter), "{:?}", v.findings);
}

/// Six bursts from A over a 40 ms path, each five segments and a 700 B tail, acknowledged
/// 40 ms later and followed 50 ms after that by the next. With `asked`, B sends a 100 B
/// request just before each burst (a server answering); without, A writes on its own clock.
fn six_bursts(asked: bool) -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let (mut at, mut top, mut request) = (41_000, 1, 1);
    for _ in 0..6 {
        if asked {
            t.seg(at, B).rel_seq(request).rel_ack(top).len(100).send();
            request += 100;
        }
        for k in 0..5 {
            t.seg(at + 100 + k as i64 * 10, A).data(top + k * MSS, MSS).send();
        }
        t.seg(at + 160, A).data(top + 5 * MSS, 700).send();
        top += 5 * MSS + 700;
        t.seg(at + 40_200, B).rel_seq(request).rel_ack(top).send();
        at += 90_000;
    }
    t.verdict()
}

#[test]
fn bursts_each_sent_after_a_request_from_the_peer_are_answers() {
    let v = six_bursts(true);
    assert_eq!(v.findings[0].id, FindingId::AppRequestResponse, "{:?}", v.findings);
    assert_eq!(v.findings[0].value("answers"), Some(&Value::Int(6)));
}

#[test]
fn the_same_bursts_nobody_asked_for_are_the_writers_own() {
    let v = six_bursts(false);
    assert_eq!(v.findings[0].id, FindingId::AppSlowWriter, "{:?}", v.findings);
    assert_eq!(v.findings[0].value("pauses"), Some(&Value::Int(5)), "one between each two bursts");
}

#[test]
fn pauses_a_request_ends_are_the_request_loops() {
    let v = chunks_every_second(700, true);
    assert_eq!(v.findings[0].id, FindingId::LossLimited, "{:?}", v.findings);
}

#[test]
fn pauses_after_a_full_segment_may_be_a_lost_tails_timeout() {
    let v = chunks_every_second(MSS, false);
    assert_eq!(v.findings[0].id, FindingId::LossLimited, "{:?}", v.findings);
}

/// Bulk data held at a flat 14 segments on a link of one segment a millisecond: the first
/// 14 leave a millisecond apart, then each ACK (14.5 ms after its segment) releases one.
/// The link never idles and the round trip never grows: all a capture shows of a queue
/// whose floor it may not have seen. `handshake`: the connection's opening is captured,
/// its round trip the same 14.5 ms (no queue at all).
fn flat_flight_on_a_full_link(handshake: bool, vantage: Vantage) -> FlowVerdict {
    let mut t = Trace::new();
    if handshake {
        t.handshake(14_500, 100, Some(7));
    }
    let sent_at = |k: i64| 20_000 + k * 1_000 + if k >= 14 { 510 } else { 0 };
    for k in 0..14 {
        t.seg(sent_at(k), A).data(1 + k as u32 * MSS, MSS).send();
    }
    for k in 0..400i64 {
        t.seg(20_000 + (k + 14) * 1_000 + 500, B).rel_ack(1 + (k as u32 + 1) * MSS).send();
        t.seg(sent_at(k + 14), A).data(1 + (k as u32 + 14) * MSS, MSS).send();
    }
    let summary = t.summary.clone().expect("segments");
    judge(&t.fs, &summary, JudgeOptions { vantage: Some(vantage), target_bps: None })
}

#[test]
fn away_from_the_sender_a_flat_flight_on_a_link_timed_full_mid_transfer_is_the_links() {
    let v = flat_flight_on_a_full_link(false, Vantage::ReceiverSide);
    assert_eq!(v.primary().id, FindingId::BandwidthLimited);
}

#[test]
fn with_the_round_trips_floor_seen_and_no_queue_above_it_the_flat_flight_stays_the_buffers() {
    let v = flat_flight_on_a_full_link(true, Vantage::ReceiverSide);
    assert_eq!(v.primary().id, FindingId::SndbufLimited);
    // At the sender its own departures tell a send buffer's plateau from a pacing clock's.
    let v = flat_flight_on_a_full_link(false, Vantage::SenderSide);
    assert_eq!(v.primary().id, FindingId::SndbufLimited);
}

/// [`flat_flight_on_a_full_link`] at the sender (seen from its SYN if `handshake`), with
/// segment 200 dropped once. The buffer holds every unacknowledged byte, so nothing new
/// leaves until the hole is filled: the ACKs after it repeat its sequence number with
/// SACKs, the third resends it, and the first ACK a round trip later frees the buffer,
/// refilled at once. The link serves a segment a millisecond (no queue under the buffer's
/// 14 segments on the path's 14.5 ms), or one every 1.35 ms to segments `slower` (others'
/// traffic shares it): a queue of about 4.5 ms stands.
fn flat_flight_losing_one(slower: std::ops::Range<u32>, handshake: bool) -> FlowVerdict {
    const LOST: u32 = 200;
    const BUFFER: u32 = 14;
    let mut t = Trace::new();
    if handshake {
        t.handshake(14_500, 100, Some(7));
    }
    let mut sent: Vec<i64> = (0..14).map(|k| 20_000 + k * 1_000).collect();
    for (k, &at) in sent.iter().enumerate() {
        t.seg(at, A).data(1 + k as u32 * MSS, MSS).send();
    }
    let mut link_free = 0;
    let mut ack_at = |k: u32, sent_at: i64| {
        link_free = (sent_at + 14_500).max(link_free + if slower.contains(&k) { 1_350 } else { 1_000 });
        link_free
    };
    let hole = 1 + LOST * MSS;
    let (mut dups, mut resend_acked_at, mut recovered) = (0, None, false);
    let mut k = 0u32;
    while sent.len() < 800 {
        let (at, acked) = if k as usize == sent.len() {
            // Everything outstanding is SACKed: the resend's ACK covers it all.
            recovered = true;
            (resend_acked_at.take().expect("resent"), k)
        } else {
            let at = ack_at(k, sent[k as usize]);
            k += 1;
            if k - 1 < LOST || recovered {
                (at, k)
            } else {
                if k - 1 > LOST {
                    t.seg(at, B).rel_ack(hole).sack(&[(hole + MSS, 1 + k * MSS)]).send();
                    dups += 1;
                }
                if dups == 3 && resend_acked_at.is_none() {
                    t.seg(at + 5, A).data(hole, MSS).send();
                    resend_acked_at = Some(ack_at(LOST, at + 5));
                }
                continue;
            }
        };
        t.seg(at, B).rel_ack(1 + acked * MSS).send();
        while (sent.len() as u32) < acked + BUFFER {
            let next = sent.len() as u32;
            t.seg(at + 10, A).data(1 + next * MSS, MSS).send();
            sent.push(at + 10);
        }
    }
    let summary = t.summary.clone().expect("segments");
    judge(&t.fs, &summary, JudgeOptions { vantage: Some(Vantage::SenderSide), target_bps: None })
}

#[test]
fn a_drop_with_the_round_trip_at_its_floor_is_no_sign_of_a_full_link() {
    // The flight's own rate is all its ACKs show: one random loss does not make it the link's.
    let v = flat_flight_losing_one(0..0, true);
    assert_eq!(v.retrans_segments, 1);
    assert_eq!(v.primary().id, FindingId::SndbufLimited);
}

#[test]
fn a_drop_from_a_queue_standing_above_the_floor_is_a_tail_drop() {
    // 4.5 ms of queue on a 14.5 ms path (1.31×) when the segment was dropped, though not
    // on average nor at the end (it stood from segment 150 to 260).
    let v = flat_flight_losing_one(150..260, true);
    assert_eq!(v.retrans_segments, 1);
    assert_eq!(v.primary().id, FindingId::BandwidthLimited);
    // Its flat flight was the full link's pace, not the buffer's, in the shares too.
    assert_eq!(v.state_ns[LimitState::Sndbuf as usize], 0);
    assert!(!v.findings.iter().any(|f| f.id == FindingId::SndbufLimited));
}

#[test]
fn begun_mid_transfer_a_drop_still_counts_as_the_queues() {
    // The least RTT a capture without the handshake saw may be a standing queue's: no floor
    // to hold the drop's round trip against.
    let v = flat_flight_losing_one(0..0, false);
    assert_eq!(v.primary().id, FindingId::BandwidthLimited);
}

/// Four chunks seen at the receiver B over a 40 ms path (timestamps on: the capture point
/// times the 40 ms from its ACK to the data that ACK released). Each chunk is three rounds
/// of four full segments, then a 700 B tail, then 100 ms with nothing to send. With
/// `tail_lost`, each tail is dropped before B and resent on the sender's timeout: B sees the
/// chunk's last full segment, 300 ms of silence, then the tail.
fn chunks_seen_at_the_receiver(tail_lost: bool) -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(100, 40_000, Some(7));
    let ms = |us: i64| (us / 1_000) as u32;
    let (mut at, mut top, mut echo) = (40_200i64, 1u32, 0u32);
    for _ in 0..4 {
        for _ in 0..3 {
            for k in 0..4 {
                let sent = at + k * 100;
                t.seg(sent, A).data(top, MSS).ts(1_000 + ms(sent), echo).send();
                top += MSS;
                t.seg(sent + 10, B).rel_ack(top).ts(5_000 + ms(sent), 1_000 + ms(sent)).send();
            }
            echo = 5_000 + ms(at + 300);
            at += 40_000;
        }
        let tail_at = if tail_lost { at - 40_000 + 300_000 } else { at };
        t.seg(tail_at, A).data(top, 700).ts(1_000 + ms(tail_at), echo).send();
        top += 700;
        t.seg(tail_at + 10, B).rel_ack(top).ts(5_000 + ms(tail_at), 1_000 + ms(tail_at)).send();
        echo = 5_000 + ms(tail_at);
        at = tail_at + 100_000;
    }
    let summary = t.summary.clone().expect("segments");
    judge(&t.fs, &summary, JudgeOptions { vantage: Some(Vantage::ReceiverSide), target_bps: None })
}

#[test]
fn away_from_the_sender_a_timeout_long_silence_after_a_full_segment_is_a_lost_tails() {
    // Nothing looked outstanding at B while the sender waited on its timer: that time is
    // its recovery, not the application's.
    let v = chunks_seen_at_the_receiver(true);
    let ns = |s: LimitState| v.state_ns[s as usize];
    assert!(ns(LimitState::Recovery) >= 4 * 200_000_000, "{}", v.time_line());
    assert!(ns(LimitState::Idle) < 4 * 150_000_000, "{}", v.time_line());
    // The same silences after each chunk's short tail are the writer's own.
    let v = chunks_seen_at_the_receiver(false);
    assert_eq!(v.state_ns[LimitState::Recovery as usize], 0, "{}", v.time_line());
    assert_eq!(v.primary().id, FindingId::AppSlowWriter, "{:?}", v.findings);
}

/// A connection captured from its SYN sends a first burst of 30 segments over a 40 ms path;
/// the link returns their ACKs `spacing_us` apart; segments 20–24 are dropped at its queue
/// (the survivors' ACKs keep the link's pace, SACKing above the hole), resent in one
/// recovery; then 20 rounds ACK-clocked at 20 segments. (Not [`first_burst_losing`]'s
/// rounds of segments 100 µs apart: those leave on the sender's own timer, read as BBR's
/// pacing, and BBR has no HyStart.)
fn first_burst_acked_at(spacing_us: i64) -> FlowVerdict {
    const RTT: i64 = 40_000;
    let mut t = Trace::new();
    t.handshake(RTT, 100, Some(7));
    for k in 0..30u32 {
        t.seg(41_000 + k as i64, A).data(1 + k * MSS, MSS).send();
    }
    let mut at = 41_000 + RTT;
    for k in (0..20u32).chain(25..30) {
        if k < 20 {
            t.seg(at, B).rel_ack(1 + (k + 1) * MSS).send();
        } else {
            t.seg(at, B).rel_ack(1 + 20 * MSS).sack(&[(1 + 25 * MSS, 1 + (k + 1) * MSS)]).send();
        }
        at += spacing_us;
    }
    for k in 20..25u32 {
        t.seg(at, A).data(1 + k * MSS, MSS).send();
        at += 10;
    }
    t.seg(at + RTT, B).rel_ack(1 + 30 * MSS).send();
    // Then ACK-clocked: each ACK releases the next segment, 20 in flight.
    let mut sent: Vec<i64> = (0..20).map(|k| at + RTT + 100 + k * 100).collect();
    for (k, &s) in sent.iter().enumerate() {
        t.seg(s, A).data(1 + (30 + k as u32) * MSS, MSS).send();
    }
    for k in 0..400usize {
        let ack = sent[k] + RTT;
        t.seg(ack, B).rel_ack(1 + (31 + k as u32) * MSS).send();
        t.seg(ack + 10, A).data(1 + (50 + k as u32) * MSS, MSS).send();
        sent.push(ack + 10);
    }
    t.verdict()
}

#[test]
fn hystarts_ack_train_ends_slow_start_before_the_drops() {
    // ACKs 1.5 ms apart for more than half the 40 ms round trip: CUBIC's HyStart set
    // ssthresh there, so the five drops after it are not the slow start's overshoot.
    let v = first_burst_acked_at(1_500);
    assert!(v.findings.iter().all(|f| f.id != FindingId::SlowStartOvershoot), "{:?}", v.findings);
    // 2.5 ms apart the train breaks at once: the drops end the slow start.
    let v = first_burst_acked_at(2_500);
    assert!(v.findings.iter().any(|f| f.id == FindingId::SlowStartOvershoot), "{:?}", v.findings);
}

/// [`rounds_after_scaled_handshake`] captured at the receiver B: A's rounds arrive 100 µs
/// apart, B acknowledges each segment 10 µs after it, and what an ACK released arrives
/// 40 ms after it.
fn receiver_rounds_after_scaled_handshake(raw: u16, windows: &[u32]) -> FlowVerdict {
    let mut t = Trace::new();
    t.handshake(10, 40_000, Some(1));
    let mut next = 1u32;
    for (r, &w) in windows.iter().enumerate() {
        let start = 40_100 + r as i64 * 40_000;
        for i in 0..w {
            let at = start + i as i64 * 100;
            t.seg(at, A).data(next, MSS).send();
            next += MSS;
            t.seg(at + 10, B).rel_ack(next).win(raw).send();
        }
    }
    t.verdict()
}

#[test]
fn away_from_the_sender_one_round_past_the_field_is_the_rebuilt_flights_noise() {
    // Held at 28 segments (the field, 40,544 B) but for one round of 31: rebuilt from ACKs
    // a turn late, the flight passes the field by an ACK's worth now and then. One round
    // above it does not prove the scale in use; two do.
    let mut windows = vec![10, 20, 28, 28, 31];
    windows.extend([28; 20]);
    let v = receiver_rounds_after_scaled_handshake(40_544, &windows);
    assert_eq!(v.findings[0].id, FindingId::WscaleMissing, "{:?}", v.findings);
    let mut windows = vec![10, 20, 28, 28, 31, 31];
    windows.extend([28; 20]);
    let v = receiver_rounds_after_scaled_handshake(40_544, &windows);
    assert_ne!(v.findings[0].id, FindingId::WscaleMissing, "{:?}", v.findings);
}

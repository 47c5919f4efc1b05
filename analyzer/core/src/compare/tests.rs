//! Whole comparisons of small traces: capture A at the client, B at the server, a 10 ms path
//! each way between them, B's clock 500 ms ahead. Each test writes what A saw and what B saw
//! and checks where the comparison puts the difference.

use super::fates::DirStats;
use super::matching::How;
use super::trace::{source, Point};
use super::{compare, CompareOptions, Comparison, Pair};
use crate::analyse::catalogue::FindingId;

const A: Point = Point::CLIENT;
const B: Point = Point { clock_ms: 500.0, ..Point::CLIENT };

fn run(at_a: &Point, a: &[&str], at_b: &Point, b: &[&str]) -> Comparison {
    compare(source(at_a, a), source(at_b, b), &CompareOptions { fates: true, ..Default::default() })
}

fn only_pair(c: &Comparison) -> &Pair {
    assert_eq!(c.matched(), 1, "one flow matched");
    &c.pairs[0]
}

fn up(p: &Pair) -> &DirStats {
    &p.dirs[0]
}

fn ids(p: &Pair) -> Vec<FindingId> {
    p.findings.iter().map(|f| f.id).collect()
}

/// The client's handshake and four 1000-byte segments, as the client's capture sees them.
const HANDSHAKE_A: [&str; 3] = [
    "0  > S  seq 0 mss 1460 ws 7 id 1",
    "20 < SA seq 0 ack 1 mss 1460 ws 7 id 100",
    "20 > A  seq 1 ack 1 id 2",
];
const HANDSHAKE_B: [&str; 3] = [
    "10 > S  seq 0 mss 1460 ws 7 id 1",
    "10 < SA seq 0 ack 1 mss 1460 ws 7 id 100",
    "30 > A  seq 1 ack 1 id 2",
];

fn with(head: &[&'static str], rest: &[&'static str]) -> Vec<&'static str> {
    head.iter().chain(rest).copied().collect()
}

#[test]
fn a_segment_seen_at_the_client_only_was_lost_between_the_points() {
    let a = with(&HANDSHAKE_A, &[
        "21 > PA seq 1 ack 1 len 1000 id 3",
        "22 > PA seq 1001 ack 1 len 1000 id 4",
        "23 > PA seq 2001 ack 1 len 1000 id 5", // never reaches B
        "24 > PA seq 3001 ack 1 len 1000 id 6",
        "41 < A  seq 1 ack 1001 id 101",
        "42 < A  seq 1 ack 2001 id 102",
        "44 < A  seq 1 ack 2001 sack 3001-4001 id 103",
        "45 > PA seq 2001 ack 1 len 1000 id 7",
        "65 < A  seq 1 ack 4001 id 104",
    ]);
    let b = with(&HANDSHAKE_B, &[
        "31 > PA seq 1 ack 1 len 1000 id 3",
        "31 < A  seq 1 ack 1001 id 101",
        "32 > PA seq 1001 ack 1 len 1000 id 4",
        "32 < A  seq 1 ack 2001 id 102",
        "34 > PA seq 3001 ack 1 len 1000 id 6",
        "34 < A  seq 1 ack 2001 sack 3001-4001 id 103",
        "55 > PA seq 2001 ack 1 len 1000 id 7",
        "55 < A  seq 1 ack 4001 id 104",
    ]);
    let c = run(&A, &a, &B, &b);
    let p = only_pair(&c);
    assert_eq!(p.matched.unwrap().how, How::Same);
    assert!((c.clock.offset_ns - 500_000_000).abs() < 1_000, "B is 500 ms ahead: {:?}", c.clock);
    assert_eq!(c.clock.uncertainty_ns(), 10_000_000, "bounded by the 10 ms path each way");
    let s = up(p);
    assert!(s.a_upstream, "data leaves the client's capture first");
    assert_eq!((s.lost_between, s.lost_before, s.lost_after), (1, 0, 0));
    assert_eq!(s.owd.unwrap().min, 10_000_000);
    let f = &p.findings[0];
    assert_eq!(f.id, FindingId::LossBetweenPoints);
    assert_eq!(f.frames, vec![6], "A's frame of the lost segment");
    assert_eq!(f.frames_b, vec![10], "B's frame of its retransmission");
    assert_eq!(p.dirs[1].losses(), 0, "no ACK lost");
}

#[test]
fn a_retransmission_without_its_original_was_lost_before_the_first_point() {
    // The client's host dropped 2001:3001 before its capture saw it.
    let a = with(&HANDSHAKE_A, &[
        "21 > PA seq 1 ack 1 len 1000 id 3",
        "22 > PA seq 1001 ack 1 len 1000 id 4",
        "24 > PA seq 3001 ack 1 len 1000 id 6",
        "41 < A  seq 1 ack 1001 id 101",
        "42 < A  seq 1 ack 2001 id 102",
        "44 < A  seq 1 ack 2001 sack 3001-4001 id 103",
        "45 > PA seq 2001 ack 1 len 1000 id 7",
        "65 < A  seq 1 ack 4001 id 104",
    ]);
    let b = with(&HANDSHAKE_B, &[
        "31 > PA seq 1 ack 1 len 1000 id 3",
        "31 < A  seq 1 ack 1001 id 101",
        "32 > PA seq 1001 ack 1 len 1000 id 4",
        "32 < A  seq 1 ack 2001 id 102",
        "34 > PA seq 3001 ack 1 len 1000 id 6",
        "34 < A  seq 1 ack 2001 sack 3001-4001 id 103",
        "55 > PA seq 2001 ack 1 len 1000 id 7",
        "55 < A  seq 1 ack 4001 id 104",
    ]);
    let c = run(&A, &a, &B, &b);
    let p = only_pair(&c);
    assert_eq!((up(p).lost_between, up(p).lost_before, up(p).lost_after), (0, 1, 0));
    assert_eq!(p.findings[0].id, FindingId::LossBeforeFirstPoint);
    assert_eq!(p.findings[0].frames, vec![10], "the retransmission at A");
}

#[test]
fn a_segment_the_server_captured_but_never_acknowledged_was_lost_after_the_second_point() {
    // B sees 2001:3001 arrive, yet the server's ACKs keep asking for it: its host dropped it.
    let a = with(&HANDSHAKE_A, &[
        "21 > PA seq 1 ack 1 len 1000 id 3",
        "22 > PA seq 1001 ack 1 len 1000 id 4",
        "23 > PA seq 2001 ack 1 len 1000 id 5",
        "24 > PA seq 3001 ack 1 len 1000 id 6",
        "41 < A  seq 1 ack 1001 id 101",
        "42 < A  seq 1 ack 2001 id 102",
        "44 < A  seq 1 ack 2001 sack 3001-4001 id 103",
        "45 > PA seq 2001 ack 1 len 1000 id 7",
        "65 < A  seq 1 ack 4001 id 104",
    ]);
    let b = with(&HANDSHAKE_B, &[
        "31 > PA seq 1 ack 1 len 1000 id 3",
        "31 < A  seq 1 ack 1001 id 101",
        "32 > PA seq 1001 ack 1 len 1000 id 4",
        "32 < A  seq 1 ack 2001 id 102",
        "33 > PA seq 2001 ack 1 len 1000 id 5",
        "34 > PA seq 3001 ack 1 len 1000 id 6",
        "34 < A  seq 1 ack 2001 sack 3001-4001 id 103",
        "55 > PA seq 2001 ack 1 len 1000 id 7",
        "55 < A  seq 1 ack 4001 id 104",
    ]);
    let c = run(&A, &a, &B, &b);
    let p = only_pair(&c);
    assert_eq!((up(p).lost_between, up(p).lost_before, up(p).lost_after), (0, 0, 1));
    let f = &p.findings[0];
    assert_eq!(f.id, FindingId::LossAfterSecondPoint);
    assert_eq!((f.frames.clone(), f.frames_b.clone()), (vec![6], vec![8]), "the segment in both captures");
}

#[test]
fn a_segment_overtaken_between_the_points_is_reordering_introduced_there() {
    let a = with(&HANDSHAKE_A, &[
        "21 > PA seq 1 ack 1 len 1000 id 3",
        "22 > PA seq 1001 ack 1 len 1000 id 4", // held 5 ms on the way
        "23 > PA seq 2001 ack 1 len 1000 id 5",
        "24 > PA seq 3001 ack 1 len 1000 id 6",
        "41 < A  seq 1 ack 1001 id 101",
        "43 < A  seq 1 ack 1001 sack 2001-3001 id 102",
        "44 < A  seq 1 ack 1001 sack 2001-4001 id 103",
        "47 < A  seq 1 ack 4001 id 104",
    ]);
    let b = with(&HANDSHAKE_B, &[
        "31 > PA seq 1 ack 1 len 1000 id 3",
        "31 < A  seq 1 ack 1001 id 101",
        "33 > PA seq 2001 ack 1 len 1000 id 5",
        "33 < A  seq 1 ack 1001 sack 2001-3001 id 102",
        "34 > PA seq 3001 ack 1 len 1000 id 6",
        "34 < A  seq 1 ack 1001 sack 2001-4001 id 103",
        "37 > PA seq 1001 ack 1 len 1000 id 4",
        "37 < A  seq 1 ack 4001 id 104",
    ]);
    let c = run(&A, &a, &B, &b);
    let p = only_pair(&c);
    let s = up(p);
    assert_eq!(s.losses(), 0);
    assert_eq!((s.reordered, s.late), (1, 1), "one segment, ≥ 3 ms late");
    assert_eq!(s.max_late_ns, 4_000_000, "arrived 4 ms after the first segment sent after it");
    assert!(ids(p).contains(&FindingId::ReorderBetweenPoints));
    let r = c.fates.iter().find(|r| r.dir == 0 && r.frame_a == 5).unwrap();
    assert_eq!((r.frame_b, r.owd_ns, r.late_ns), (10, 15_000_000, 4_000_000));
}

#[test]
fn nat_and_isn_randomisation_are_matched_and_reported() {
    // Between the points a box rewrites the client's address and port and shifts its ISN.
    let natted = Point { client: ([192, 0, 2, 7], 61_000), isn_client: 3_000_000_000, ..B };
    let a = with(&HANDSHAKE_A, &[
        "21 > PA seq 1 ack 1 len 1000 id 3 ts 11",
        "22 > PA seq 1001 ack 1 len 1000 id 4 ts 12",
        "41 < A  seq 1 ack 1001 id 101",
        "42 < A  seq 1 ack 2001 id 102",
    ]);
    let b = with(&HANDSHAKE_B, &[
        "31 > PA seq 1 ack 1 len 1000 id 3 ts 11",
        "31 < A  seq 1 ack 1001 id 101",
        "32 > PA seq 1001 ack 1 len 1000 id 4 ts 12",
        "32 < A  seq 1 ack 2001 id 102",
    ]);
    let c = run(&A, &a, &natted, &b);
    let p = only_pair(&c);
    let m = p.matched.unwrap();
    assert_eq!(m.how, How::Translated);
    assert_eq!(m.shift[0], 3_000_000_000u32.wrapping_sub(1_000), "client → server sequence shift");
    assert_eq!(m.shift[1], 0, "the server's numbers untouched");
    assert_eq!(p.dirs[0].delivered, 4, "every segment paired across the rewrite");
    let found = ids(p);
    assert!(found.contains(&FindingId::AddressTranslated), "{found:?}");
    assert!(found.contains(&FindingId::IsnShifted), "{found:?}");
    let nat = p.findings.iter().find(|f| f.id == FindingId::AddressTranslated).unwrap();
    assert!(nat.message().contains("10.0.0.1:40000") && nat.message().contains("192.0.2.7:61000"), "{}", nat.message());
}

#[test]
fn window_scale_stripped_and_mss_clamped_in_the_syn() {
    let a = with(&HANDSHAKE_A, &["21 > PA seq 1 ack 1 len 1000 id 3", "41 < A seq 1 ack 1001 id 101"]);
    let b = [
        "10 > S  seq 0 mss 1400 id 1", // ws 7 gone, MSS lowered
        "10 < SA seq 0 ack 1 mss 1460 ws 7 id 100",
        "30 > A  seq 1 ack 1 id 2",
        "31 > PA seq 1 ack 1 len 1000 id 3",
        "31 < A  seq 1 ack 1001 id 101",
    ];
    let c = run(&A, &a, &B, &b);
    let p = only_pair(&c);
    let found = ids(p);
    assert!(found.contains(&FindingId::OptionStripped), "{found:?}");
    assert!(found.contains(&FindingId::MssClamped), "{found:?}");
    let strip = p.findings.iter().find(|f| f.id == FindingId::OptionStripped).unwrap();
    assert!(strip.message().contains("Window scale") || strip.message().contains("window scale"), "{}", strip.message());
    assert_eq!((strip.frames.clone(), strip.frames_b.clone()), (vec![1], vec![1]), "the SYN in both captures");
    assert!(p.findings.iter().all(|f| f.id != FindingId::PathClean));
}

#[test]
fn one_segment_at_the_client_is_two_at_the_server() {
    // TSO-sized segment at A, cut in two on the way.
    let a = with(&HANDSHAKE_A, &["21 > PA seq 1 ack 1 len 2000 id 3", "42 < A seq 1 ack 2001 id 101"]);
    let b = with(&HANDSHAKE_B, &[
        "31 > A  seq 1 ack 1 len 1000 id 3",
        "31 > PA seq 1001 ack 1 len 1000 id 3",
        "32 < A  seq 1 ack 2001 id 101",
    ]);
    let c = run(&A, &a, &B, &b);
    let p = only_pair(&c);
    assert_eq!((up(p).split, up(p).merged, up(p).losses()), (1, 0, 0));
    assert!(ids(p).contains(&FindingId::SegmentsResized));
}

#[test]
fn a_clean_path_says_so_with_both_delays() {
    let a = with(&HANDSHAKE_A, &["21 > PA seq 1 ack 1 len 1000 id 3", "41 < A seq 1 ack 1001 id 101"]);
    let b = with(&HANDSHAKE_B, &["31 > PA seq 1 ack 1 len 1000 id 3", "31 < A seq 1 ack 1001 id 101"]);
    let c = run(&A, &a, &B, &b);
    let p = only_pair(&c);
    assert_eq!(ids(p), vec![FindingId::PathClean]);
    assert_eq!(c.fates.len(), 5, "every segment of both directions has a row");
}

#[test]
fn captures_of_different_transfers_have_no_flow_in_common() {
    let other = Point { client: ([10, 9, 9, 9], 50_000), isn_client: 77, isn_server: 88, ..B };
    let a = with(&HANDSHAKE_A, &["21 > PA seq 1 ack 1 len 1000 id 3", "41 < A seq 1 ack 1001 id 101"]);
    let b = with(&HANDSHAKE_B, &["31 > PA seq 1 ack 1 len 700 id 900", "31 < A seq 1 ack 701 id 901"]);
    let c = run(&A, &a, &other, &b);
    assert_eq!(c.matched(), 0);
    assert_eq!(c.pairs.len(), 2, "each flow reported as seen in one capture only");
    assert!(c.pairs.iter().all(|p| p.findings.iter().any(|f| f.id == FindingId::FlowOneSide)));
}

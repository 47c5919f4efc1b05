//! Proof that a retransmission was not needed: a D-SACK covering it (RFC 2883, RFC 3708),
//! or an ACK echoing the original's timestamp (Eifel, RFC 3522).

use super::*;
use crate::analyse::notes::{Evidence, RetransKind};
use crate::analyse::catalogue::FindingId;

#[test]
fn a_dsack_of_the_resent_bytes_proves_the_retransmission_spurious() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.seg(41_000, A).data(1, MSS).send();
    let rx = t.seg(441_000, A).data(1, MSS).send(); // frame 5, an RTO retransmission
    assert_eq!(rx.retrans, RetransKind::Rto);
    // The original had arrived: the ACK covers it and D-SACKs the copy.
    let n = t.seg(481_000, B).rel_ack(1 + MSS).sack(&[(1, 1 + MSS)]).send();
    assert!(n.dsack);
    assert_eq!(n.dsack_edges, (1, 1 + MSS));
    assert_eq!((n.spurious_of, n.spurious_by, n.spurious_orig), (5, Evidence::Dsack, 4));
}

#[test]
fn an_ack_echoing_the_originals_timestamp_proves_the_retransmission_spurious() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.seg(41_000, A).data(1, MSS).ts(100, 1).send();
    t.seg(441_000, A).data(1, MSS).ts(500, 1).send();
    // The ACK echoes 100, the original's TSval: the original got through.
    let n = t.seg(442_000, B).rel_ack(1 + MSS).ts(2, 100).send();
    assert_eq!((n.spurious_of, n.spurious_by), (5, Evidence::Eifel));
}

#[test]
fn an_echo_proves_only_the_segment_at_the_left_edge_not_the_retransmissions_above_it() {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    t.seg(41_000, A).data(1, MSS).ts(100, 1).send();
    t.seg(41_010, A).data(1 + MSS, MSS).ts(101, 1).send();
    // RTO: both resent; the second copy arrives and is SACKed, the first original is late.
    t.seg(441_000, A).data(1, MSS).ts(500, 1).send();
    t.seg(441_010, A).data(1 + MSS, MSS).ts(501, 1).send();
    t.seg(481_000, B).rel_ack(1).sack(&[(1 + MSS, 1 + 2 * MSS)]).ts(2, 100).send();
    // The late original fills the hole: the ACK echoes its TSval (the left edge's), which
    // says nothing of the second segment, received as its retransmission.
    let n = t.seg(482_000, B).rel_ack(1 + 2 * MSS).ts(3, 100).send();
    assert_eq!((n.spurious_of, n.spurious_by), (6, Evidence::Eifel));
    assert_eq!(t.fs.senders[A].spurious, 1);
}

/// A bulk transfer of 60 segments, 8 in flight, with `spurious` retransmissions the
/// receiver D-SACKs with the next ACK (their originals had arrived).
fn bulk_with_spurious(spurious: u32) -> Trace {
    let mut t = Trace::new();
    t.handshake(40_000, 100, Some(7));
    let mut dsack = None;
    for k in 0..60u32 {
        let at = 41_000 + k as i64 * 5_000;
        if k >= 8 {
            let ack = t.seg(at, B).rel_ack(1 + (k - 7) * MSS);
            match dsack.take() {
                Some(j) => ack.sack(&[(1 + j * MSS, 1 + (j + 1) * MSS)]).send(),
                None => ack.send(),
            };
        }
        t.seg(at + 10, A).data(1 + k * MSS, MSS).send();
        if (10..10 + spurious).contains(&k) {
            // Segment k − 7, the oldest outstanding, sent again needlessly.
            t.seg(at + 20, A).data(1 + (k - 7) * MSS, MSS).send();
            dsack = Some(k - 7);
        }
    }
    t
}

#[test]
fn one_spurious_retransmission_is_no_reordering_pattern() {
    let v = bulk_with_spurious(1).verdict();
    assert_eq!(v.spurious, 1);
    assert!(v.findings.iter().all(|f| f.id != FindingId::ReorderLimited), "{:?}", v.findings);
}

#[test]
fn dupthresh_spurious_retransmissions_are_reordering_mistaken_for_loss() {
    let v = bulk_with_spurious(3).verdict();
    assert_eq!(v.spurious, 3);
    assert!(v.findings.iter().any(|f| f.id == FindingId::ReorderLimited), "{:?}", v.findings);
}

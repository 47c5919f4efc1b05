//! The receiver's acknowledgements as the downstream capture saw them: what they prove
//! about the receiver having (or not having) a range of bytes at a given time.
//!
//! Positions are sequence numbers of the data direction, unwrapped from the direction's
//! base ([`Unwrap`]); SACK edges are placed next to the cumulative ACK of their segment.

use super::side::{Side, Unwrap};

/// One ACK from the receiver, seen at the downstream capture.
#[derive(Debug, Clone, Copy)]
struct Ack {
    t: i64,
    /// Cumulative acknowledgement, as a position.
    cum: i64,
    /// Highest cumulative acknowledgement up to this ACK.
    cum_max: i64,
    /// Index of the segment (for its SACK blocks and frame).
    seg: u32,
}

/// ACKs scanned at most for one question (a loss episode rarely spans more).
const SCAN_LIMIT: usize = 50_000;

pub struct AckTimeline<'a> {
    side: &'a Side,
    acks: Vec<Ack>,
    /// Raw sequence number of position 0.
    base: u32,
}

impl<'a> AckTimeline<'a> {
    /// The ACK-carrying segments of `list` (the reverse direction at the downstream capture),
    /// `base` the raw sequence number that is position 0 of the data direction there, `to_a`
    /// mapping that capture's times to A's clock.
    pub fn new(side: &'a Side, list: &[u32], base: u32, to_a: impl Fn(i64) -> i64) -> AckTimeline<'a> {
        let mut u = Unwrap::new(base);
        let mut cum_max = i64::MIN;
        let mut acks: Vec<Ack> = Vec::with_capacity(list.len());
        for &i in list {
            let s = side.seg(i);
            if s.flags & crate::decode::flags::ACK == 0 {
                continue;
            }
            let cum = u.pos(s.ack);
            cum_max = cum_max.max(cum);
            acks.push(Ack { t: to_a(s.ts_ns), cum, cum_max, seg: i });
        }
        // Capture order is time order but for stamps that step back: keep the timeline sorted.
        if acks.windows(2).any(|w| w[1].t < w[0].t) {
            acks.sort_by_key(|a| a.t);
            let mut m = i64::MIN;
            for a in &mut acks {
                m = m.max(a.cum);
                a.cum_max = m;
            }
        }
        AckTimeline { side, acks, base }
    }

    /// SACK blocks of an ACK as positions.
    fn blocks(&self, a: &Ack) -> impl Iterator<Item = (i64, i64)> + '_ {
        let s = self.side.seg(a.seg);
        let (ack_raw, cum) = (s.ack, a.cum);
        self.side.cap.sack_blocks(s).iter().map(move |&(l, r)| {
            let near = |edge: u32| cum + edge.wrapping_sub(ack_raw) as i32 as i64;
            (near(l), near(r))
        })
    }

    fn first_at(&self, t: i64) -> usize {
        self.acks.partition_point(|a| a.t < t)
    }

    /// The cumulative ACK had passed `end` before time `t`.
    pub fn acked_before(&self, end: i64, t: i64) -> bool {
        let i = self.first_at(t);
        i > 0 && self.acks[i - 1].cum_max >= end
    }

    /// The first ACK in [from, until) whose cumulative ACK or one SACK block covers
    /// [start, end): its frame.
    pub fn covered(&self, start: i64, end: i64, from: i64, until: i64) -> Option<u64> {
        let i = self.first_at(from);
        for a in self.acks[i..].iter().take(SCAN_LIMIT) {
            if a.t >= until {
                break;
            }
            if a.cum >= end || self.blocks(a).any(|(l, r)| l <= start && r >= end) {
                return Some(self.side.seg(a.seg).frame);
            }
        }
        None
    }

    /// The first D-SACK (RFC 2883: a first SACK block at or below the cumulative ACK, or
    /// inside the second block) in [from, until) that overlaps [start, end): its frame.
    pub fn dsack(&self, start: i64, end: i64, from: i64, until: i64) -> Option<u64> {
        let i = self.first_at(from);
        for a in self.acks[i..].iter().take(SCAN_LIMIT) {
            if a.t >= until {
                break;
            }
            let mut b = self.blocks(a);
            let Some(first) = b.next() else { continue };
            let dup = first.1 <= a.cum || b.next().is_some_and(|second| second.0 <= first.0 && first.1 <= second.1);
            if dup && first.0 < end && first.1 > start {
                return Some(self.side.seg(a.seg).frame);
            }
        }
        None
    }

    /// Time from `t` until the cumulative ACK passes `end` (the receiver side's delay to
    /// acknowledge data seen at this capture at time `t`).
    pub fn delay_to_ack(&self, end: i64, t: i64) -> Option<i64> {
        let i = self.first_at(t);
        let j = i + self.acks[i..].partition_point(|a| a.cum_max < end);
        self.acks.get(j).map(|a| a.t - t)
    }

    pub fn base(&self) -> u32 {
        self.base
    }
}

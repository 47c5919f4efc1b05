//! The SACK scoreboard (RFC 6675 §3, §4): which bytes above SND.UNA the receiver holds.
//!
//! Kept as sorted, disjoint, non-adjacent ranges [start, end). Every SACK block seen
//! since the last cumulative-ACK advance is merged in; ranges at or below SND.UNA are
//! dropped when it moves (a reneging receiver would be forgotten, as most stacks do).

use crate::flow::SeqNumber;

/// RFC 6675 §2 DupThresh: segments delivered above a hole that deem it lost.
pub const DUP_THRESH: u32 = 3;

#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    ranges: Vec<(SeqNumber, SeqNumber)>,
    /// The bytes in `ranges`, kept as they change: read several times a packet.
    sacked: u32,
}

impl Scoreboard {
    /// Merges a SACK block. Returns the number of bytes newly marked.
    pub fn add(&mut self, start: SeqNumber, end: SeqNumber, una: SeqNumber) -> u32 {
        let start = start.max(una);
        if end <= start {
            return 0;
        }
        let before = self.sacked_bytes();
        let mut s = start;
        let mut e = end;
        // Remove every range that overlaps or touches [s, e) and widen [s, e) over it.
        let mut i = 0;
        while i < self.ranges.len() {
            let (rs, re) = self.ranges[i];
            if re < s || rs > e {
                i += 1;
                continue;
            }
            s = s.min(rs);
            e = e.max(re);
            self.ranges.remove(i);
        }
        let at = self.ranges.iter().position(|&(rs, _)| rs > s).unwrap_or(self.ranges.len());
        self.ranges.insert(at, (s, e));
        self.sacked = self.sum_ranges();
        self.sacked - before
    }

    /// Forgets everything at or below the new cumulative ACK.
    pub fn advance(&mut self, una: SeqNumber) {
        if self.ranges.is_empty() {
            return;
        }
        self.ranges.retain_mut(|r| {
            if r.1 <= una {
                return false;
            }
            r.0 = r.0.max(una);
            true
        });
        self.sacked = self.sum_ranges();
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.sacked = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    #[inline]
    pub fn sacked_bytes(&self) -> u32 {
        self.sacked
    }

    fn sum_ranges(&self) -> u32 {
        self.ranges.iter().map(|&(s, e)| e.distance_from(s) as u32).sum()
    }

    /// Highest SACKed sequence number (RFC 6675 "HighACK" side of the scoreboard).
    pub fn highest(&self) -> Option<SeqNumber> {
        self.ranges.last().map(|r| r.1)
    }

    /// Whether [start, end) is entirely SACKed.
    pub fn covers(&self, start: SeqNumber, end: SeqNumber) -> bool {
        self.ranges.iter().any(|&(s, e)| s <= start && end <= e)
    }

    /// Bytes SACKed above `seq`, and the number of distinct SACKed ranges above it.
    pub fn above(&self, seq: SeqNumber) -> (u32, u32) {
        let mut bytes = 0;
        let mut n = 0;
        for &(s, e) in &self.ranges {
            if e <= seq {
                continue;
            }
            bytes += e.distance_from(s.max(seq)) as u32;
            n += 1;
        }
        (bytes, n)
    }

    /// RFC 6675 §4 IsLost(seq): more than (DupThresh − 1) × SMSS bytes SACKed above it.
    pub fn is_lost(&self, seq: SeqNumber, smss: u32) -> bool {
        let (bytes, _) = self.above(seq);
        bytes > (DUP_THRESH - 1) * smss
    }

    /// Unsacked holes between `una` and the highest SACKed byte, in order, each with the
    /// bytes SACKed below it and above the previous hole.
    pub fn holes_with_blocks(&self, una: SeqNumber) -> impl Iterator<Item = (SeqNumber, SeqNumber, u32)> + '_ {
        let mut prev = una;
        let mut pending = 0u32;
        self.ranges.iter().filter_map(move |&(s, e)| {
            let hole = (prev < s).then(|| (prev, s, std::mem::take(&mut pending)));
            pending += e.distance_from(s) as u32;
            prev = prev.max(e);
            hole
        })
    }

    /// Unsacked holes between `una` and the highest SACKed byte, in order.
    pub fn holes(&self, una: SeqNumber) -> impl Iterator<Item = (SeqNumber, SeqNumber)> + '_ {
        let mut prev = una;
        self.ranges.iter().filter_map(move |&(s, e)| {
            let hole = (prev < s).then_some((prev, s));
            prev = prev.max(e);
            hole
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: u32) -> SeqNumber {
        SeqNumber(n)
    }

    #[test]
    fn blocks_merge_when_touching() {
        let mut sb = Scoreboard::default();
        assert_eq!(sb.add(s(200), s(300), s(100)), 100);
        assert_eq!(sb.add(s(400), s(500), s(100)), 100);
        assert_eq!(sb.add(s(300), s(400), s(100)), 100);
        assert_eq!(sb.ranges, vec![(s(200), s(500))]);
        assert_eq!(sb.add(s(250), s(450), s(100)), 0);
    }

    #[test]
    fn cumulative_ack_trims_and_drops() {
        let mut sb = Scoreboard::default();
        sb.add(s(200), s(300), s(100));
        sb.add(s(400), s(500), s(100));
        sb.advance(s(450));
        assert_eq!(sb.ranges, vec![(s(450), s(500))]);
        assert_eq!(sb.sacked_bytes(), 50);
    }

    #[test]
    fn block_below_una_is_ignored() {
        let mut sb = Scoreboard::default();
        assert_eq!(sb.add(s(50), s(90), s(100)), 0);
        assert!(sb.is_empty());
    }

    #[test]
    fn is_lost_needs_more_than_two_mss_above() {
        let mut sb = Scoreboard::default();
        sb.add(s(1100), s(3100), s(100)); // 2000 B = 2 MSS of 1000
        assert!(!sb.is_lost(s(100), 1000));
        sb.add(s(3100), s(3101), s(100));
        assert!(sb.is_lost(s(100), 1000));
    }

    #[test]
    fn bytes_above_each_hole_match_is_lost() {
        let mut sb = Scoreboard::default();
        sb.add(s(100), s(150), s(100)); // a block at una: no hole below it
        sb.add(s(200), s(300), s(100));
        sb.add(s(400), s(2500), s(100));
        sb.add(s(2600), s(2700), s(100));
        let mut above = sb.sacked_bytes();
        for (hs, _, below) in sb.holes_with_blocks(s(100)) {
            above -= below;
            assert_eq!(above, sb.above(hs).0, "hole at {hs:?}");
        }
        let starts: Vec<_> = sb.holes_with_blocks(s(100)).map(|h| (h.0, h.1)).collect();
        assert_eq!(starts, sb.holes(s(100)).collect::<Vec<_>>());
    }

    #[test]
    fn holes_between_blocks() {
        let mut sb = Scoreboard::default();
        sb.add(s(200), s(300), s(100));
        sb.add(s(400), s(500), s(100));
        let h: Vec<_> = sb.holes(s(100)).collect();
        assert_eq!(h, vec![(s(100), s(200)), (s(300), s(400))]);
    }

    #[test]
    fn works_across_sequence_wrap() {
        let mut sb = Scoreboard::default();
        let una = SeqNumber(u32::MAX - 1000);
        sb.add(una + 500, una + 1500, una);
        sb.add(una + 1500, una + 2500, una);
        assert_eq!(sb.sacked_bytes(), 2000);
        sb.advance(una + 2000);
        assert_eq!(sb.sacked_bytes(), 500);
    }
}

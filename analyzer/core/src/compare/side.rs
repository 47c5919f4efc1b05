//! One capture ready to be compared: its segments grouped by flow and direction, and per
//! flow the facts the matching needs (first SYN of each direction, who is the client).

use super::record::{Capture, Seg, SynOpts};
use crate::flow::SeqNumber;

/// Per flow: where its handshake is.
#[derive(Debug, Clone, Copy, Default)]
pub struct FlowFacts {
    /// Index (into `segs`) of the first SYN of each direction (0 = from endpoint A).
    pub syn: [Option<u32>; 2],
}

impl FlowFacts {
    /// The direction whose SYN carried no ACK: the client's (the side that connected).
    pub fn client_dir(&self, segs: &[Seg]) -> Option<usize> {
        (0..2).find(|&d| self.syn[d].is_some_and(|i| segs[i as usize].flags & crate::decode::flags::ACK == 0))
    }
}

pub struct Side {
    pub cap: Capture,
    /// Segment indices grouped by (flow, direction), capture order within a group.
    order: Vec<u32>,
    /// Start of each (flow, direction) group in `order`; one more entry than groups.
    starts: Vec<u32>,
    pub facts: Vec<FlowFacts>,
}

impl Side {
    /// Groups the segments by flow and direction (a counting sort: two passes, no hashing).
    pub fn new(cap: Capture) -> Side {
        let flows = cap.scan.flows.len();
        let mut starts = vec![0u32; 2 * flows + 1];
        let mut facts = vec![FlowFacts::default(); flows];
        for (i, s) in cap.segs.iter().enumerate() {
            let g = 2 * s.flow as usize + s.dir();
            starts[g + 1] += 1;
            let f = &mut facts[s.flow as usize];
            if s.syn() && f.syn[s.dir()].is_none() {
                f.syn[s.dir()] = Some(i as u32);
            }
        }
        for g in 1..starts.len() {
            starts[g] += starts[g - 1];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; cap.segs.len()];
        for (i, s) in cap.segs.iter().enumerate() {
            let g = 2 * s.flow as usize + s.dir();
            order[next[g] as usize] = i as u32;
            next[g] += 1;
        }
        Side { cap, order, starts, facts }
    }

    /// Indices of the segments of `flow` in direction `dir`, in capture order.
    #[inline]
    pub fn of(&self, flow: u32, dir: usize) -> &[u32] {
        let g = 2 * flow as usize + dir;
        &self.order[self.starts[g] as usize..self.starts[g + 1] as usize]
    }

    #[inline]
    pub fn seg(&self, i: u32) -> &Seg {
        &self.cap.segs[i as usize]
    }

    /// The capture back, its grouping dropped.
    pub fn into_capture(self) -> Capture {
        self.cap
    }

    pub fn flows(&self) -> usize {
        self.facts.len()
    }

    /// The options of the first SYN of `flow` in `dir`.
    pub fn syn_opts(&self, flow: u32, dir: usize) -> Option<(u32, SynOpts)> {
        let i = self.facts[flow as usize].syn[dir]?;
        self.cap.syn_opts(i).map(|o| (i, o))
    }
}

/// Raw sequence numbers → positions that keep growing across the 2^32 wrap: each number is
/// placed relative to the highest seen so far with wrapping order ([`SeqNumber`]).
#[derive(Debug, Clone, Copy)]
pub struct Unwrap {
    raw: u32,
    pos: i64,
}

impl Unwrap {
    /// `base` becomes position 0.
    pub fn new(base: u32) -> Unwrap {
        Unwrap { raw: base, pos: 0 }
    }

    /// The position of `seq`; the reference moves forward to the highest seen.
    #[inline]
    pub fn pos(&mut self, seq: u32) -> i64 {
        let d = SeqNumber(seq).distance_from(SeqNumber(self.raw)) as i64;
        let p = self.pos + d;
        if d > 0 {
            self.raw = seq;
            self.pos = p;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_keep_growing_across_the_wrap() {
        let mut u = Unwrap::new(u32::MAX - 99);
        assert_eq!(u.pos(u32::MAX - 99), 0);
        assert_eq!(u.pos(u32::MAX), 99);
        assert_eq!(u.pos(50), 150);
        assert_eq!(u.pos(u32::MAX - 49), 50, "an older number keeps its place");
        assert_eq!(u.pos(1000), 1100);
    }
}

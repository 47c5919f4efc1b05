//! The same segment in both captures, for one direction of a matched flow.
//!
//! A segment's identity is what no router changes and a translating middlebox changes by a
//! known amount: sequence number (shifted), payload length, SYN/FIN/RST, acknowledgement
//! number (shifted by the peer direction's shift), and, when the flow keeps them across the
//! captures, the IPv4 identification and the TCP timestamp value, which tell a
//! retransmission from its original. Segments with equal identities (a retransmission sent
//! in the same millisecond over IPv6, duplicate ACKs) are paired in order when both captures
//! hold as many of them, else by time once the clocks are aligned ([`DirMatch::resolve`]).
//! Segments left over are paired with several of the other capture's when their bytes tile
//! exactly (split or merged between the captures: TSO, GRO, resegmentation).

use ahash::AHashMap;

use super::side::Side;
use crate::decode::flags;

/// No counterpart.
pub const NONE: u32 = u32::MAX;

/// Segments of one direction of a matched flow in both captures, paired.
#[derive(Debug, Default)]
pub struct DirMatch {
    /// Per segment of A's list: the position of its counterpart in B's list (the first piece
    /// when split), or [`NONE`].
    pub a_to_b: Vec<u32>,
    /// Per segment of B's list: its counterpart in A's list (the first piece when merged).
    pub b_to_a: Vec<u32>,
    /// A positions whose bytes arrived as this many B segments (split).
    pub split: AHashMap<u32, u16>,
    /// B positions made of this many A segments (merged).
    pub merged: AHashMap<u32, u16>,
    /// Groups of equal identities with different counts in the two captures, for
    /// [`resolve`](Self::resolve): (A positions, B positions), each in capture order.
    deferred: Vec<(Vec<u32>, Vec<u32>)>,
}

/// What is compared of one direction: A's and B's segment lists and how numbers map.
pub struct DirView<'a> {
    pub a: &'a Side,
    pub b: &'a Side,
    /// Indices into A's / B's segments (capture order).
    pub la: &'a [u32],
    pub lb: &'a [u32],
    /// Sequence number at B = at A + `shift`; acknowledgement at B = at A + `ack_shift`.
    pub shift: u32,
    pub ack_shift: u32,
    /// The IPv4 identification / TCP timestamp value is the same in both captures.
    pub ip_id_kept: bool,
    pub tsval_kept: bool,
}

/// SYN, FIN and RST: part of a segment's identity.
const ID_FLAGS: u16 = flags::SYN | flags::FIN | flags::RST;

impl DirView<'_> {
    /// The identity of a segment at A (`at_a`) or at B, in B's numbers.
    #[inline]
    fn identity(&self, i: u32, at_a: bool) -> u128 {
        let (s, shift, ack_shift) = if at_a { (self.a.seg(i), self.shift, self.ack_shift) } else { (self.b.seg(i), 0, 0) };
        let seq = s.seq.wrapping_add(shift) as u128;
        let ack = if s.flags & flags::ACK != 0 { s.ack.wrapping_add(ack_shift) } else { 0 } as u128;
        let len = ((s.len & 0x00ff_ffff) | ((s.flags & ID_FLAGS) as u32) << 24) as u128;
        let mut mark = 0u32;
        if self.tsval_kept && s.has_ts() {
            mark = s.tsval.rotate_left(16);
        }
        if self.ip_id_kept && s.v4() {
            mark ^= s.ip_id as u32;
        }
        seq << 96 | len << 64 | ack << 32 | mark as u128
    }
}

impl DirMatch {
    /// Pairs the segments whose identities are unambiguous, and splits/merges. Groups that
    /// need the clocks wait for [`resolve`](Self::resolve).
    pub fn new(v: &DirView<'_>) -> DirMatch {
        let mut m = DirMatch { a_to_b: vec![NONE; v.la.len()], b_to_a: vec![NONE; v.lb.len()], ..Default::default() };
        let mut ka: Vec<(u128, u32)> = v.la.iter().enumerate().map(|(p, &i)| (v.identity(i, true), p as u32)).collect();
        let mut kb: Vec<(u128, u32)> = v.lb.iter().enumerate().map(|(p, &i)| (v.identity(i, false), p as u32)).collect();
        ka.sort_unstable();
        kb.sort_unstable();
        let (mut i, mut j) = (0, 0);
        while i < ka.len() && j < kb.len() {
            let k = ka[i].0;
            match k.cmp(&kb[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let i2 = i + ka[i..].iter().take_while(|x| x.0 == k).count();
                    let j2 = j + kb[j..].iter().take_while(|x| x.0 == k).count();
                    if i2 - i == j2 - j {
                        for (x, y) in ka[i..i2].iter().zip(&kb[j..j2]) {
                            m.link(x.1, y.1);
                        }
                    } else {
                        m.deferred.push((ka[i..i2].iter().map(|x| x.1).collect(), kb[j..j2].iter().map(|x| x.1).collect()));
                    }
                    i = i2;
                    j = j2;
                }
            }
        }
        m
    }

    #[inline]
    fn link(&mut self, pa: u32, pb: u32) {
        self.a_to_b[pa as usize] = pb;
        self.b_to_a[pb as usize] = pa;
    }

    /// Pairs the ambiguous groups by time: each segment of the downstream capture with the
    /// latest unpaired one of the upstream capture that left no later than it arrived
    /// (`to_a` maps B's times to A's clock, `tol_ns` absorbs the clock's uncertainty). Then
    /// pairs the segments left whose bytes tile exactly (split, merged).
    pub fn resolve(&mut self, v: &DirView<'_>, a_upstream: bool, to_a: impl Fn(i64) -> i64, tol_ns: i64) {
        for (ga, gb) in std::mem::take(&mut self.deferred) {
            let ta = |p: u32| v.a.seg(v.la[p as usize]).ts_ns;
            let tb = |p: u32| to_a(v.b.seg(v.lb[p as usize]).ts_ns);
            // Downstream segments in order, each taking the latest upstream one before it.
            let (down, up): (&[u32], &[u32]) = if a_upstream { (&gb, &ga) } else { (&ga, &gb) };
            let (t_down, t_up): (&dyn Fn(u32) -> i64, &dyn Fn(u32) -> i64) = if a_upstream { (&tb, &ta) } else { (&ta, &tb) };
            let mut used = vec![false; up.len()];
            for &d in down {
                let arrival = t_down(d);
                let pick = (0..up.len()).rev().find(|&k| !used[k] && t_up(up[k]) <= arrival + tol_ns);
                if let Some(k) = pick {
                    used[k] = true;
                    if a_upstream { self.link(up[k], d) } else { self.link(d, up[k]) }
                }
            }
        }
        self.tile(v);
    }

    /// Leftover data segments whose bytes are exactly several leftover segments of the
    /// other capture.
    fn tile(&mut self, v: &DirView<'_>) {
        let free_b = starts(v.b, v.lb, &self.b_to_a, 0);
        for pa in 0..v.la.len() as u32 {
            if self.a_to_b[pa as usize] != NONE {
                continue;
            }
            let s = v.a.seg(v.la[pa as usize]);
            if let Some(pieces) = chain(v.b, v.lb, &free_b, &self.b_to_a, s.seq.wrapping_add(v.shift), s.len) {
                self.split.insert(pa, pieces.len() as u16);
                self.a_to_b[pa as usize] = pieces[0];
                for p in pieces {
                    self.b_to_a[p as usize] = pa;
                }
            }
        }
        let free_a = starts(v.a, v.la, &self.a_to_b, v.shift);
        for pb in 0..v.lb.len() as u32 {
            if self.b_to_a[pb as usize] != NONE {
                continue;
            }
            let s = v.b.seg(v.lb[pb as usize]);
            if let Some(pieces) = chain(v.a, v.la, &free_a, &self.a_to_b, s.seq, s.len) {
                self.merged.insert(pb, pieces.len() as u16);
                self.b_to_a[pb as usize] = pieces[0];
                for p in pieces {
                    self.a_to_b[p as usize] = pb;
                }
            }
        }
    }
}

/// Unpaired data segments by their first sequence number (in B's numbers: + `shift`).
fn starts(s: &Side, list: &[u32], paired: &[u32], shift: u32) -> AHashMap<u32, Vec<u32>> {
    let mut by: AHashMap<u32, Vec<u32>> = AHashMap::new();
    for (p, &i) in list.iter().enumerate() {
        let g = s.seg(i);
        if paired[p] == NONE && g.len > 0 {
            by.entry(g.seq.wrapping_add(shift)).or_default().push(p as u32);
        }
    }
    by
}

/// Unpaired segments that start at `seq` and follow each other to cover exactly `len`
/// bytes in at least two pieces.
fn chain(s: &Side, list: &[u32], by_start: &AHashMap<u32, Vec<u32>>, paired: &[u32], seq: u32, len: u32) -> Option<Vec<u32>> {
    let mut pieces = Vec::new();
    let mut at = seq;
    let end = seq.wrapping_add(len);
    while at != end {
        let p = *by_start.get(&at)?.iter().find(|&&p| paired[p as usize] == NONE && !pieces.contains(&p))?;
        let g = s.seg(list[p as usize]);
        let left = end.wrapping_sub(at);
        if g.len > left {
            return None;
        }
        pieces.push(p);
        at = at.wrapping_add(g.len);
    }
    (pieces.len() >= 2).then_some(pieces)
}

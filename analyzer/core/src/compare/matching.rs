//! Which flow of capture B is which flow of capture A, also through NAT (addresses and
//! ports rewritten) and through middleboxes that shift sequence numbers (ISN randomisation).
//!
//! Candidates come first from equal endpoints (the usual case: nothing rewrites them, port
//! reuse gives several), then, for flows still unmatched, from marks that no NAT rewrites: the
//! TCP timestamp value and the IPv4 identification of a flow's first segments. Every
//! candidate is verified on its segments: per direction the sequence shift between the
//! captures is found (the SYNs' ISNs, else the most frequent difference between segments of
//! equal length and equal marks), and a sample of one capture's segments must be found in
//! the other at the shifted sequence number with the same length. The best verified
//! candidates are paired one to one.

use ahash::AHashMap;

use super::side::Side;
use crate::decode::Addr;

/// How a pair was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Same endpoints and sequence numbers in both captures.
    Same,
    /// Endpoints or sequence numbers differ (NAT, ISN randomisation): found by its segments.
    Translated,
}

impl How {
    pub const NAMES: [&'static str; 2] = ["same", "translated"];
}

/// One flow of A paired with one flow of B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowMatch {
    pub a: u32,
    pub b: u32,
    /// True when B's flow direction 0 carries A's flow direction 1 (B saw the other endpoint first).
    pub flip: bool,
    /// Per direction of A's flow: sequence number at B = at A + shift (mod 2^32).
    pub shift: [u32; 2],
    /// Share of the sampled segments found in the other capture (0..1).
    pub score: f64,
    pub how: How,
    /// Per direction of A's flow: the IPv4 identification / TCP timestamp value of a segment
    /// is the same in both captures (no middlebox rewrites it), so it tells retransmissions
    /// apart.
    pub ip_id_kept: [bool; 2],
    pub tsval_kept: [bool; 2],
}

/// Segments sampled per flow direction to verify a candidate.
const SAMPLES: usize = 64;
/// Segments per direction whose marks index a flow.
const MARKS_B: usize = 24;
const MARKS_A: usize = 8;
/// A mark shared by more flows than this says nothing.
const MARK_FANOUT: usize = 4;
/// Segments per direction compared to find the sequence shift.
const SHIFT_WINDOW: usize = 32;
/// Below this share of sampled segments found, a candidate is not the same flow.
const MIN_SCORE: f64 = 0.5;

type Endpoint = (Addr, u16);

fn tuple(e1: Endpoint, e2: Endpoint) -> (Endpoint, Endpoint) {
    if e1 <= e2 { (e1, e2) } else { (e2, e1) }
}

/// The flows of A paired with flows of B (each flow in at most one pair), A's stream order.
pub fn match_flows(a: &Side, b: &Side) -> Vec<FlowMatch> {
    let mut found: Vec<FlowMatch> = Vec::new();
    // 1. Same endpoints.
    let mut by_tuple: AHashMap<(Endpoint, Endpoint), Vec<u32>> = AHashMap::new();
    for f in &b.cap.scan.flows {
        by_tuple.entry(tuple(f.a, f.b)).or_default().push(f.stream);
    }
    for fa in &a.cap.scan.flows {
        let Some(cands) = by_tuple.get(&tuple(fa.a, fa.b)) else { continue };
        for &fb in cands {
            let flip = b.cap.scan.flows[fb as usize].a != fa.a;
            if let Some(m) = verify(a, fa.stream, b, fb, flip) {
                found.push(m);
            }
        }
    }
    let mut pairs = assign(found, a.flows(), b.flows());
    // 2. The rest, through their marks.
    let mut a_free = vec![true; a.flows()];
    let mut b_free = vec![true; b.flows()];
    for m in &pairs {
        a_free[m.a as usize] = false;
        b_free[m.b as usize] = false;
    }
    let mut index: AHashMap<u64, Vec<(u32, u8)>> = AHashMap::new();
    for fb in (0..b.flows() as u32).filter(|&f| b_free[f as usize]) {
        for d in 0..2 {
            for mark in marks(b, fb, d, MARKS_B) {
                let e = index.entry(mark).or_default();
                if e.len() <= MARK_FANOUT && !e.contains(&(fb, d as u8)) {
                    e.push((fb, d as u8));
                }
            }
        }
    }
    let mut found = Vec::new();
    for fa in (0..a.flows() as u32).filter(|&f| a_free[f as usize]) {
        let mut votes: AHashMap<(u32, bool), u32> = AHashMap::new();
        for d in 0..2 {
            for mark in marks(a, fa, d, MARKS_A) {
                match index.get(&mark) {
                    Some(hits) if hits.len() <= MARK_FANOUT => {
                        for &(fb, db) in hits {
                            *votes.entry((fb, db as usize != d)).or_default() += 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        for ((fb, flip), _) in votes.into_iter().filter(|&(_, n)| n >= 2) {
            if let Some(mut m) = verify(a, fa, b, fb, flip) {
                m.how = How::Translated;
                found.push(m);
            }
        }
    }
    for m in &mut found {
        m.score -= 1e-9; // on a tie, equal endpoints win
    }
    for m in assign(found, a.flows(), b.flows()).into_iter().filter(|m| a_free[m.a as usize] && b_free[m.b as usize]) {
        pairs.push(m);
    }
    pairs.sort_by_key(|m| m.a);
    pairs
}

/// Best first, each flow once.
fn assign(mut cands: Vec<FlowMatch>, na: usize, nb: usize) -> Vec<FlowMatch> {
    cands.sort_by(|x, y| y.score.total_cmp(&x.score).then(x.a.cmp(&y.a)).then(x.b.cmp(&y.b)));
    let (mut ua, mut ub) = (vec![false; na], vec![false; nb]);
    let mut out = Vec::new();
    for m in cands {
        if !ua[m.a as usize] && !ub[m.b as usize] {
            ua[m.a as usize] = true;
            ub[m.b as usize] = true;
            out.push(m);
        }
    }
    out
}

/// Marks of the first `n` segments of a flow direction that survive NAT and ISN rewriting:
/// the timestamp value and the IPv4 identification, each with the segment's length.
fn marks(s: &Side, flow: u32, dir: usize, n: usize) -> impl Iterator<Item = u64> + '_ {
    s.of(flow, dir).iter().take(n).flat_map(move |&i| {
        let g = s.seg(i);
        let len = (g.len & 0xffff) as u64;
        let ts = g.has_ts().then(|| 1 << 62 | (g.tsval as u64) << 16 | len);
        let id = (g.v4() && g.ip_id != 0).then(|| 2 << 62 | (g.ip_id as u64) << 16 | len);
        ts.into_iter().chain(id)
    })
}

/// The sequence shifts and the share of segments found, when `fa` and `fb` are one flow.
fn verify(a: &Side, fa: u32, b: &Side, fb: u32, flip: bool) -> Option<FlowMatch> {
    let mut shift = [0u32; 2];
    for (d, shift_d) in shift.iter_mut().enumerate() {
        let db = d ^ flip as usize;
        let (sa, sb) = (a.of(fa, d), b.of(fb, db));
        if !sa.is_empty() && !sb.is_empty() {
            *shift_d = seq_shift(a, sa, b, sb, a.facts[fa as usize].syn[d], b.facts[fb as usize].syn[db])?;
        }
    }
    let (mut ip_id_kept, mut tsval_kept) = ([false; 2], [false; 2]);
    let (mut found, mut sampled) = (0usize, 0usize);
    for d in 0..2 {
        let db = d ^ flip as usize;
        let (sa, sb) = (a.of(fa, d), b.of(fb, db));
        if sa.is_empty() || sb.is_empty() {
            continue;
        }
        let (s, ack) = (shift[d], shift[d ^ 1]);
        let x = sample(a, sa, b, sb, s, ack);
        let y = sample(b, sb, a, sa, s.wrapping_neg(), ack.wrapping_neg());
        let best = if x.found * y.n >= y.found * x.n { x } else { y };
        found += best.found;
        sampled += best.n;
        // Kept when (nearly) every sampled pair agrees: retransmissions found under the
        // original's key may disagree.
        ip_id_kept[d] = best.id_pairs > 0 && best.id_same * 10 >= best.id_pairs * 9;
        tsval_kept[d] = best.ts_pairs > 0 && best.ts_same * 10 >= best.ts_pairs * 9;
    }
    if sampled == 0 {
        return None;
    }
    let score = found as f64 / sampled as f64;
    let how = if shift == [0, 0] { How::Same } else { How::Translated };
    (score >= MIN_SCORE).then_some(FlowMatch { a: fa, b: fb, flip, shift, score, how, ip_id_kept, tsval_kept })
}

/// What a sample of one capture's segments found in the other.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    n: usize,
    found: usize,
    /// Found segments carrying an IPv4 identification on both sides, and how many agree.
    id_pairs: usize,
    id_same: usize,
    ts_pairs: usize,
    ts_same: usize,
}

/// How many of (up to [`SAMPLES`], evenly spread) segments of `xs` appear in `ys` with the
/// same length at the shifted sequence and acknowledgement numbers, and whether their marks
/// agree.
fn sample(x: &Side, xs: &[u32], y: &Side, ys: &[u32], shift: u32, ack_shift: u32) -> Sample {
    // Key → (first segment with it, how many share it).
    let mut first: AHashMap<u128, (u32, u32)> = AHashMap::with_capacity(ys.len());
    for &i in ys {
        let g = y.seg(i);
        first.entry(key(g.seq, g.len, g.ack)).or_insert((i, 0)).1 += 1;
    }
    let step = (xs.len() / SAMPLES).max(1);
    let mut s = Sample::default();
    for &i in xs.iter().step_by(step) {
        let g = x.seg(i);
        s.n += 1;
        let Some(&(j, n)) = first.get(&key(g.seq.wrapping_add(shift), g.len, g.ack.wrapping_add(ack_shift))) else { continue };
        s.found += 1;
        if n > 1 {
            continue; // duplicate ACKs, retransmissions: which copy is which is unknown
        }
        let h = y.seg(j);
        if g.v4() && h.v4() && (g.ip_id != 0 || h.ip_id != 0) {
            s.id_pairs += 1;
            s.id_same += (g.ip_id == h.ip_id) as usize;
        }
        if g.has_ts() && h.has_ts() {
            s.ts_pairs += 1;
            s.ts_same += (g.tsval == h.tsval) as usize;
        }
    }
    s
}

#[inline]
fn key(seq: u32, len: u32, ack: u32) -> u128 {
    (seq as u128) << 64 | (len as u128) << 32 | ack as u128
}

/// Sequence number at B minus at A for one direction: from the SYNs when both captured
/// one; else the most common difference between segments of equal length among the first
/// ones, counting pairs whose timestamp value or IPv4 identification also agree four times.
/// No rewrite (0) wins when it is at least half as common as the best.
fn seq_shift(a: &Side, sa: &[u32], b: &Side, sb: &[u32], syn_a: Option<u32>, syn_b: Option<u32>) -> Option<u32> {
    if let (Some(x), Some(y)) = (syn_a, syn_b) {
        return Some(b.seg(y).seq.wrapping_sub(a.seg(x).seq));
    }
    let pick = |s: &Side, list: &[u32]| -> Vec<u32> {
        let data: Vec<u32> = list.iter().copied().filter(|&i| s.seg(i).len > 0).take(SHIFT_WINDOW).collect();
        if data.is_empty() { list.iter().copied().take(SHIFT_WINDOW).collect() } else { data }
    };
    let (xa, xb) = (pick(a, sa), pick(b, sb));
    let mut weights: AHashMap<u32, u32> = AHashMap::new();
    for &i in &xa {
        let p = a.seg(i);
        for &j in &xb {
            let q = b.seg(j);
            if p.len != q.len {
                continue;
            }
            let ts = p.has_ts() && q.has_ts();
            let id = p.v4() && q.v4() && p.ip_id != 0;
            let strong = (ts && p.tsval == q.tsval) || (id && p.ip_id == q.ip_id);
            let contradicted = (ts && p.tsval != q.tsval) && !(id && p.ip_id == q.ip_id);
            if contradicted {
                continue;
            }
            *weights.entry(q.seq.wrapping_sub(p.seq)).or_default() += if strong { 4 } else { 1 };
        }
    }
    let (&best, &w) = weights.iter().max_by_key(|&(s, w)| (*w, std::cmp::Reverse(*s)))?;
    Some(if weights.get(&0).is_some_and(|&w0| 2 * w0 >= w) { 0 } else { best })
}

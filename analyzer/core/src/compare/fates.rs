//! What happened to each segment of one direction between the two capture points.
//!
//! The capture the direction meets first is upstream (U), the other downstream (D). Walking
//! U's segments in capture order (the order they left U):
//!
//! - seen at both: `delivered` between the points, with its one-way delay; unless the
//!   receiver, as D saw its ACKs, did not have the bytes when their next transmission passed
//!   D and sent no D-SACK for them later: `lost_after` D;
//! - seen at U only: `lost_between`, unless the receiver acknowledged its bytes before their
//!   next transmission could reach it: then it crossed D's point unrecorded
//!   (`not_captured` at D);
//! - packets the sender sent that U never saw: `lost_before` U. When the IPv4
//!   identifications at U step by one ([`ipid`](super::ipid)), each missing number is one
//!   such packet (its bytes: the hole it leaves in the sequence space, else the bytes of the
//!   packet after it, sent again); otherwise, bytes below the highest sequence number
//!   already seen at U that U sees for the first time, in a retransmission, and that D did
//!   not see before either (one row per such retransmission);
//! - seen at D only: `not_captured` at U;
//! - seen while the other capture was not running: `outside`.
//!
//! A segment is reordered between the points when a segment that left U after it reaches D
//! before it; its lateness is its arrival minus the earliest such arrival.

use super::acks::AckTimeline;
use super::clock::Clock;
use super::segments::{DirMatch, NONE};
use super::side::{Side, Unwrap};

/// What happened to one segment between the capture points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Fate {
    Delivered,
    LostBetween,
    LostBefore,
    LostAfter,
    NotCapturedA,
    NotCapturedB,
    Outside,
}

impl Fate {
    pub const NAMES: [&'static str; 7] =
        ["delivered", "lost_between", "lost_before", "lost_after", "not_captured_a", "not_captured_b", "outside"];
}

/// Lateness at or above which reordering counts as "late" in the finding (ms scale, as in
/// "2 % of segments arrive ≥ 3 ms late").
pub const LATE_NS: i64 = 3_000_000;
/// How far below a retransmission (in MSS) the holes its lost predecessors filled can be.
const RECOVERY_REACH: i64 = 64;
/// How long after a transmission a D-SACK for it still counts, beyond four times D's
/// delay to the receiver and back.
const DSACK_WAIT_NS: i64 = 1_000_000_000;
/// Evidence frames kept per kind of fate.
const EVIDENCE: usize = 5;

/// One row of the fates table (88 bytes: a comparison of two 1M-packet captures holds two
/// million). Absent values are sentinels; the accessors give Options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FateRow {
    pub pair: u32,
    /// Sequence space occupied (payload, +1 for SYN and FIN).
    pub len: u32,
    /// Frame in A / in B (0: not seen there).
    pub frame_a: u64,
    pub frame_b: u64,
    /// Capture times, each in its own capture's clock (`NO_TIME`: not seen there).
    pub ts_a: i64,
    pub ts_b: i64,
    /// Sequence number relative to the direction's ISN, in A's numbers (as Wireshark's
    /// relative numbers at A).
    pub rel_seq: i64,
    /// One-way delay between the points (`NO_TIME`: not seen at both).
    pub owd_ns: i64,
    /// Reordered between the points: how late it arrived (0: in order).
    pub late_ns: i64,
    /// Frames that decided the fate (the retransmission repairing a loss, the ACK proving
    /// the receiver got it), in A and in B (0: none).
    pub evidence_a: u64,
    pub evidence_b: u64,
    /// Counterparts in the other capture (split or merged when above 1).
    pub pieces: u16,
    /// 0 = client → server, 1 = server → client.
    pub dir: u8,
    pub fate: Fate,
    /// Bytes the upstream capture had already seen the sender go past.
    pub retrans: bool,
}

/// "Not seen there" for a time.
pub const NO_TIME: i64 = i64::MIN;

impl FateRow {
    fn some(x: u64) -> Option<u64> {
        (x != 0).then_some(x)
    }
    pub fn frame_a(&self) -> Option<u64> {
        Self::some(self.frame_a)
    }
    pub fn frame_b(&self) -> Option<u64> {
        Self::some(self.frame_b)
    }
    pub fn evidence_a(&self) -> Option<u64> {
        Self::some(self.evidence_a)
    }
    pub fn evidence_b(&self) -> Option<u64> {
        Self::some(self.evidence_b)
    }
    pub fn ts_a(&self) -> Option<i64> {
        (self.ts_a != NO_TIME).then_some(self.ts_a)
    }
    pub fn ts_b(&self) -> Option<i64> {
        (self.ts_b != NO_TIME).then_some(self.ts_b)
    }
    pub fn owd_ns(&self) -> Option<i64> {
        (self.owd_ns != NO_TIME).then_some(self.owd_ns)
    }
    pub fn late_ns(&self) -> Option<i64> {
        (self.late_ns > 0).then_some(self.late_ns)
    }
}

/// One-way delay statistics of a direction, ns.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Owd {
    pub min: i64,
    pub p50: i64,
    pub p95: i64,
    pub max: i64,
    pub samples: u64,
}

/// Frames showing one kind of fate: (in A, in B), each may be absent.
pub type Frames = Vec<(Option<u64>, Option<u64>)>;

/// Counts of one direction of a pair.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirStats {
    pub a_upstream: bool,
    pub seen_a: u64,
    pub seen_b: u64,
    /// Data segments (carrying sequence space) seen upstream while both captures ran.
    pub data_sent: u64,
    pub delivered: u64,
    pub lost_between: u64,
    pub lost_before: u64,
    pub lost_after: u64,
    pub acks_lost: u64,
    pub not_captured_a: u64,
    pub not_captured_b: u64,
    pub outside: u64,
    pub split: u64,
    pub merged: u64,
    /// Segments seen at both, reordered between the points, and how many ≥ [`LATE_NS`].
    pub reordered: u64,
    pub late: u64,
    pub max_late_ns: i64,
    pub owd: Option<Owd>,
    pub ev_between: Frames,
    pub ev_before: Frames,
    pub ev_after: Frames,
    pub ev_gap: Frames,
    pub ev_reorder: Frames,
    pub ev_resized: Frames,
}

impl DirStats {
    pub fn losses(&self) -> u64 {
        self.lost_between + self.lost_before + self.lost_after
    }
}

/// Everything one direction's walk needs.
pub struct DirInput<'a> {
    pub a: &'a Side,
    pub b: &'a Side,
    pub la: &'a [u32],
    pub lb: &'a [u32],
    /// The reverse direction (the receiver's ACKs) in A and in B.
    pub ra: &'a [u32],
    pub rb: &'a [u32],
    pub m: &'a DirMatch,
    /// Sequence number at B = at A + shift.
    pub shift: u32,
    /// The IPv4 identification is the same in both captures.
    pub ip_id_kept: bool,
    pub a_upstream: bool,
    pub clock: &'a Clock,
    pub pair: u32,
    pub dir: u8,
    /// Keep a row per segment (the fates table), not only the counts.
    pub keep_rows: bool,
}

/// Merged byte ranges seen so far.
#[derive(Default)]
struct Coverage {
    ranges: std::collections::BTreeMap<i64, i64>,
}

impl Coverage {
    /// The parts of [s, e) not covered.
    fn gaps(&self, s: i64, e: i64) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        if e <= s {
            return out;
        }
        let mut at = s;
        if let Some((_, &end)) = self.ranges.range(..=s).next_back() {
            at = at.max(end);
        }
        for (&l, &r) in self.ranges.range(s..e) {
            if l > at {
                out.push((at, l.min(e)));
            }
            at = at.max(r);
        }
        if at < e {
            out.push((at, e));
        }
        out
    }

    fn add(&mut self, s: i64, e: i64) {
        let (mut s, mut e) = (s, e);
        if let Some((&l, &r)) = self.ranges.range(..=s).next_back() {
            if r >= s {
                s = l;
                e = e.max(r);
            }
        }
        let inside: Vec<i64> = self.ranges.range(s..=e).map(|(&l, _)| l).collect();
        for l in inside {
            e = e.max(self.ranges.remove(&l).unwrap_or(e));
        }
        self.ranges.insert(s, e);
    }
}

/// Data segments of one capture by position, for "the next transmission of these bytes".
struct Transmissions {
    /// (start, end, time in A's clock, position in the list), by start.
    by_start: Vec<(i64, i64, i64, u32)>,
    longest: i64,
}

impl Transmissions {
    fn new(pos: &[i64], lens: &[u32], times: &[i64]) -> Transmissions {
        let mut by_start: Vec<(i64, i64, i64, u32)> = (0..pos.len())
            .filter(|&p| lens[p] > 0)
            .map(|p| (pos[p], pos[p] + lens[p] as i64, times[p], p as u32))
            .collect();
        by_start.sort_unstable();
        let longest = by_start.iter().map(|x| x.1 - x.0).max().unwrap_or(0);
        Transmissions { by_start, longest }
    }

    /// The earliest transmission overlapping [s, e) after time `t` that passes `keep`.
    fn next_after(&self, s: i64, e: i64, t: i64, keep: impl Fn(u32) -> bool) -> Option<(i64, u32)> {
        let from = self.by_start.partition_point(|x| x.0 < s - self.longest);
        self.by_start[from..]
            .iter()
            .take_while(|x| x.0 < e)
            .filter(|x| x.1 > s && x.2 > t && keep(x.3))
            .map(|x| (x.2, x.3))
            .min()
    }

    /// A transmission overlapping [s, e) before time `t` that passes `keep`.
    fn any_before(&self, s: i64, e: i64, t: i64, keep: impl Fn(u32) -> bool) -> bool {
        let from = self.by_start.partition_point(|x| x.0 < s - self.longest);
        self.by_start[from..].iter().take_while(|x| x.0 < e).any(|x| x.1 > s && x.2 < t && keep(x.3))
    }
}

/// One capture's view of the direction: segments, positions, times in A's clock.
struct View<'a> {
    side: &'a Side,
    list: &'a [u32],
    pos: Vec<i64>,
    lens: Vec<u32>,
    t: Vec<i64>,
}

impl<'a> View<'a> {
    fn new(side: &'a Side, list: &'a [u32], base: u32, to_a: &dyn Fn(i64) -> i64) -> View<'a> {
        let mut u = Unwrap::new(base);
        let pos = list.iter().map(|&i| u.pos(side.seg(i).seq)).collect();
        let lens = list.iter().map(|&i| side.seg(i).seq_len()).collect();
        let t = list.iter().map(|&i| to_a(side.seg(i).ts_ns)).collect();
        View { side, list, pos, lens, t }
    }

    fn frame(&self, p: u32) -> u64 {
        self.side.seg(self.list[p as usize]).frame
    }
}

/// Walks one direction: its rows, appended to `rows`, and its counts.
pub fn walk(x: &DirInput<'_>, rows: &mut Vec<FateRow>) -> DirStats {
    let clock = x.clock;
    let b_to_a = |t: i64| clock.b_to_a(t);
    let same = |t: i64| t;
    // Position 0 is the ISN as Wireshark's relative numbers have it: the upstream capture's
    // SYN, else one below its first segment (in A's numbers).
    let isn = |s: &super::record::Seg| if s.syn() { s.seq } else { s.seq.wrapping_sub(1) };
    let base_a = match (x.la.first(), x.lb.first()) {
        (Some(&i), _) if x.a.seg(i).syn() || x.a_upstream || x.lb.is_empty() => isn(x.a.seg(i)),
        (_, Some(&j)) => isn(x.b.seg(j)).wrapping_sub(x.shift),
        (Some(&i), None) => isn(x.a.seg(i)),
        (None, None) => return DirStats::default(),
    };
    let base_b = base_a.wrapping_add(x.shift);
    let va = View::new(x.a, x.la, base_a, &same);
    let vb = View::new(x.b, x.lb, base_b, &b_to_a);
    // Upstream / downstream views and links.
    let (u, d, u_to_d, d_to_u) = if x.a_upstream { (&va, &vb, &x.m.a_to_b, &x.m.b_to_a) } else { (&vb, &va, &x.m.b_to_a, &x.m.a_to_b) };
    let (d_side, d_rev, d_base, d_to_a): (&Side, &[u32], u32, &dyn Fn(i64) -> i64) =
        if x.a_upstream { (x.b, x.rb, base_b, &b_to_a) } else { (x.a, x.ra, base_a, &same) };
    let acks = AckTimeline::new(d_side, d_rev, d_base, d_to_a);
    let tx_d = Transmissions::new(&d.pos, &d.lens, &d.t);
    let frames = |up: Option<u32>, down: Option<u32>| -> (Option<u64>, Option<u64>) {
        let fu = up.map(|p| u.frame(p));
        let fd = down.map(|p| d.frame(p));
        if x.a_upstream { (fu, fd) } else { (fd, fu) }
    };

    // Spans (A's clock) of the two captures and the smallest one-way delay, for "outside".
    let span = |s: &Side, to_a: &dyn Fn(i64) -> i64| s.cap.span_ns.map(|(f, l)| (to_a(f), to_a(l)));
    let (span_u, span_d) = if x.a_upstream { (span(x.a, &same), span(x.b, &b_to_a)) } else { (span(x.b, &b_to_a), span(x.a, &same)) };
    let mut owds: Vec<i64> = (0..u.list.len()).filter(|&p| u_to_d[p] != NONE).map(|p| d.t[u_to_d[p] as usize] - u.t[p]).collect();
    owds.sort_unstable();
    let owd_min = owds.first().copied().unwrap_or(0).max(0);
    let tol = clock.uncertainty_ns().max(0) + 1_000_000;
    let arrives_inside = |t_u: i64| span_d.is_none_or(|(f, l)| t_u + owd_min >= f - tol && t_u + owd_min <= l - tol);
    let left_inside = |t_d: i64| span_u.is_none_or(|(f, l)| t_d - owd_min >= f + tol && t_d - owd_min <= l + tol);

    // The receiver side's smallest delay to acknowledge, seen from D (over every data
    // segment: a sample misses the immediate ACKs of loss recovery and overstates it). An
    // ACK seen sooner than that after the next transmission passed D cannot be that
    // transmission's: about half of it is the slack of "acknowledged before the next
    // transmission reached the receiver".
    let rtt_d = (0..d.list.len())
        .filter(|&p| d.lens[p] > 0)
        .filter_map(|p| acks.delay_to_ack(d.pos[p] + d.lens[p] as i64, d.t[p]))
        .min()
        .unwrap_or(0)
        .max(0);
    // Receivers answer some segments within microseconds and others tens of them later:
    // near the receiver (a delay to ACK under 1 ms) only an ACK seen before the next
    // transmission proves the first one arrived.
    let slack = (rtt_d - 1_000_000).max(0) / 2;
    // A D-SACK proves the receiver got a second copy: of a segment held back beyond D for
    // up to several round trips and sent again meanwhile, it comes that much later.
    let dsack_window = 4 * rtt_d + DSACK_WAIT_NS;

    let mut st = DirStats { a_upstream: x.a_upstream, seen_a: x.la.len() as u64, seen_b: x.lb.len() as u64, ..Default::default() };
    let mut cov = Coverage::default();
    let mut highest: Option<i64> = None;
    let row = |frame: (Option<u64>, Option<u64>), t: (Option<i64>, Option<i64>), pos: i64, len: u32, fate: Fate| FateRow {
        pair: x.pair,
        dir: x.dir,
        frame_a: frame.0.unwrap_or(0),
        frame_b: frame.1.unwrap_or(0),
        ts_a: t.0.unwrap_or(NO_TIME),
        ts_b: t.1.unwrap_or(NO_TIME),
        rel_seq: pos,
        len,
        fate,
        owd_ns: NO_TIME,
        late_ns: 0,
        pieces: 1,
        retrans: false,
        evidence_a: 0,
        evidence_b: 0,
    };
    let set_evidence = |r: &mut FateRow, ev: (Option<u64>, Option<u64>)| {
        r.evidence_a = ev.0.unwrap_or(0);
        r.evidence_b = ev.1.unwrap_or(0);
    };
    let raw_t = |v: &View<'_>, p: u32| v.side.seg(v.list[p as usize]).ts_ns;
    let times = |up: Option<u32>, down: Option<u32>| -> (Option<i64>, Option<i64>) {
        let tu = up.map(|p| raw_t(u, p));
        let td = down.map(|p| raw_t(d, p));
        if x.a_upstream { (tu, td) } else { (td, tu) }
    };
    let d_only = |q: u32| d_to_u[q as usize] == NONE;
    let keep = |list: &mut Frames, f: (Option<u64>, Option<u64>)| {
        if list.len() < EVIDENCE {
            list.push(f);
        }
    };

    // Reordering between the points: later departures arriving first.
    let mut late_u = vec![0i64; u.list.len()];
    let mut earliest_later = i64::MAX;
    for p in (0..u.list.len()).rev() {
        let q = u_to_d[p];
        if q == NONE {
            continue;
        }
        let arrival = d.t[q as usize];
        if arrival > earliest_later {
            let late = arrival - earliest_later;
            late_u[p] = late;
            st.reordered += 1;
            if late >= LATE_NS {
                st.late += 1;
            }
            st.max_late_ns = st.max_late_ns.max(late);
            if st.ev_reorder.len() < EVIDENCE {
                st.ev_reorder.push(frames(Some(p as u32), Some(q)));
            }
        }
        earliest_later = earliest_later.min(arrival);
    }
    st.ev_reorder.reverse();

    // Packets missing from U's numbering, by the position of the packet after the gap.
    let id_gaps = identification_gaps(u, d);
    let mut gap_at: Vec<(u32, u32, u32)> = id_gaps.iter().flatten().map(|g| (g.after, g.before, g.missing)).collect();
    gap_at.sort_unstable();
    let d_ids = (x.ip_id_kept && !gap_at.is_empty()).then(|| {
        let mut m: ahash::AHashMap<u16, Vec<i64>> = ahash::AHashMap::new();
        for (q, &i) in d.list.iter().enumerate() {
            m.entry(d.side.seg(i).ip_id).or_default().push(d.t[q]);
        }
        m
    });
    let owd_max = owds.last().copied().unwrap_or(0);
    let mss = u.list.iter().map(|&i| u.side.seg(i).len).max().unwrap_or(1).max(1) as i64;
    let has_ts = u.list.iter().all(|&i| u.side.seg(i).has_ts() || u.side.seg(i).syn());
    // Bytes the identification gaps placed: the holes they leave are not counted again.
    let mut placed = Coverage::default();
    // Originals held back before U: data segments whose timestamp is older than one U saw
    // before them. A hole they fill (even after a retransmission did) was no loss.
    let mut held_before_u = Coverage::default();
    if has_ts {
        let mut top: Option<u32> = None;
        for (j, &i) in u.list.iter().enumerate() {
            let v = u.side.seg(i).tsval;
            match top {
                Some(t) if (v.wrapping_sub(t) as i32) < 0 => {
                    if u.lens[j] > 0 {
                        held_before_u.add(u.pos[j], u.pos[j] + u.lens[j] as i64);
                    }
                }
                _ => top = Some(v),
            }
        }
    }
    let mut next_gap = 0usize;

    // Upstream rows, and the originals lost before U.
    for p in 0..u.list.len() as u32 {
        let pi = p as usize;
        let (s, len, t) = (u.pos[pi], u.lens[pi], u.t[pi]);
        let e = s + len as i64;
        let q = u_to_d[pi];
        let inside = q != NONE || arrives_inside(t);
        if len > 0 && inside {
            st.data_sent += 1;
        }
        // Missing identifications just before this packet: what they carried was lost
        // before U, unless D saw it (U missed it: counted below).
        while next_gap < gap_at.len() && gap_at[next_gap].0 < p {
            next_gap += 1;
        }
        while next_gap < gap_at.len() && gap_at[next_gap].0 == p {
            let (_, before, missing) = gap_at[next_gap];
            next_gap += 1;
            if !inside {
                continue;
            }
            let h = highest.unwrap_or(s);
            let k = missing as usize;
            // Cut [from, to) into at most k pieces of at most one MSS.
            let chunks = |from: i64, to: i64| -> Vec<(i64, i64)> {
                (0..k).map(|j| (from + j as i64 * mss, (from + (j as i64 + 1) * mss).min(to))).filter(|c| c.0 < c.1).collect()
            };
            let pieces: Vec<(i64, i64)> = if len == 0 {
                Vec::new() // pure ACKs or window probes: no bytes to place
            } else if s > h {
                chunks(h, s) // a hole in the sequence space: the missing packets carried it
            } else if s == h {
                vec![(s, e); k] // earlier transmissions of these bytes (a tail lost, maybe twice)
            } else {
                // A retransmission: the missing packets were retransmissions of bytes U never
                // saw just below these (recovery goes up the holes), else new data at `h` (up
                // to where U later sees the sequence jump past it).
                let unseen: Vec<(i64, i64)> = cov.gaps((s - RECOVERY_REACH * mss).max(0), s);
                if let Some(&(_, top)) = unseen.last() {
                    let mut pieces: Vec<(i64, i64)> = unseen
                        .iter()
                        .rev()
                        .flat_map(|&(a, b)| {
                            let n = ((b - a + mss - 1) / mss).max(1);
                            (0..n).rev().map(move |j| (a + j * mss, (a + (j + 1) * mss).min(b)))
                        })
                        .take(k)
                        .collect();
                    pieces.retain(|c| c.1 <= top);
                    pieces
                } else {
                    let n = u.list.len();
                    let jump = (pi + 1..n.min(pi + 65)).find(|&j| u.lens[j] > 0 && u.pos[j] > h).map(|j| u.pos[j]);
                    chunks(h, jump.unwrap_or(h + k as i64 * mss))
                }
            };
            let first_id = u.side.seg(u.list[before as usize]).ip_id;
            let t_from = u.t[before as usize] - tol;
            let t_until = t + owd_max + tol;
            for (k, (ps, pe)) in pieces.into_iter().enumerate() {
                let id = first_id.wrapping_add(1 + k as u16);
                let seen_d = match &d_ids {
                    Some(m) => m.get(&id).is_some_and(|ts| ts.iter().any(|&td| td >= t_from && td <= t_until)),
                    None => tx_d.any_before(ps, pe, t + owd_min + tol, d_only),
                };
                if seen_d || pe <= ps {
                    continue;
                }
                placed.add(ps, pe);
                let mut r = row((None, None), (None, None), ps, (pe - ps) as u32, Fate::LostBefore);
                let ev = frames(Some(p), (q != NONE).then_some(q));
                set_evidence(&mut r, ev);
                r.retrans = true;
                if x.keep_rows {
                    rows.push(r);
                }
                st.lost_before += 1;
                keep(&mut st.ev_before, ev);
            }
        }
        let mut retrans = false;
        if len > 0 {
            if let Some(h) = highest {
                retrans = s < h;
                let mut hole: Vec<(i64, i64)> =
                    cov.gaps(s, e.min(h)).into_iter().flat_map(|(a, b)| held_before_u.gaps(a, b)).collect();
                if id_gaps.is_some() {
                    // Holes the identification gaps did not explain (their bytes placed
                    // elsewhere) are still losses before U.
                    hole = hole.into_iter().flat_map(|(a, b)| placed.gaps(a, b)).collect();
                }
                if inside && !hole.is_empty() {
                    let (hs, he) = (hole[0].0, hole[hole.len() - 1].1);
                    // Seen at D before this retransmission: U missed it, counted below.
                    if !tx_d.any_before(hs, he, t + owd_min + tol, d_only) {
                        let mut r = row((None, None), (None, None), hs, (he - hs) as u32, Fate::LostBefore);
                        let ev = frames(Some(p), (q != NONE).then_some(q));
                        set_evidence(&mut r, ev);
                        r.retrans = true;
                        if x.keep_rows {
                            rows.push(r);
                        }
                        st.lost_before += 1;
                        keep(&mut st.ev_before, ev);
                    }
                }
            }
            cov.add(s, e);
            highest = Some(highest.map_or(e, |h| h.max(e)));
        }
        let mut r = row(frames(Some(p), (q != NONE).then_some(q)), times(Some(p), (q != NONE).then_some(q)), s, len, Fate::Delivered);
        r.retrans = retrans;
        if q != NONE {
            let qi = q as usize;
            r.owd_ns = d.t[qi] - t;
            r.late_ns = late_u[pi];
            st.delivered += 1;
            let pieces = if x.a_upstream { x.m.split.get(&p).copied() } else { x.m.merged.get(&p).copied() };
            let merged_into = if x.a_upstream { x.m.merged.get(&q).copied() } else { x.m.split.get(&q).copied() };
            if let Some(n) = pieces.or(merged_into) {
                r.pieces = n;
                if pieces.is_some() {
                    st.split += 1;
                } else {
                    st.merged += 1;
                }
                keep(&mut st.ev_resized, frames(Some(p), Some(q)));
            }
            // Seen at D, yet the receiver did not have it when it was sent again.
            if len > 0 && !acks.acked_before(e, d.t[qi]) {
                let next = tx_d.next_after(s, e, d.t[qi], |_| true);
                if let Some((t_next, q2)) = next {
                    let had = acks.covered(s, e, d.t[qi], t_next + slack).is_some()
                        || acks.dsack(s, e, t_next, t_next + dsack_window).is_some();
                    if !had {
                        r.fate = Fate::LostAfter;
                        set_evidence(&mut r, frames(None, Some(q2)));
                        st.lost_after += 1;
                        keep(&mut st.ev_after, frames(Some(p), Some(q)));
                    }
                }
            }
        } else if !inside {
            r.fate = Fate::Outside;
            st.outside += 1;
        } else if len == 0 {
            r.fate = Fate::LostBetween;
            st.acks_lost += 1;
        } else {
            // The receiver acknowledged these bytes before their next transmission could
            // reach it: the segment crossed D's point unrecorded.
            let arrival = t + owd_min;
            let next = tx_d.next_after(s, e, arrival, |_| true);
            let until = next.map_or(i64::MAX, |(tn, _)| tn.saturating_add(slack));
            let proof = if acks.acked_before(e, t) {
                // A duplicate of bytes the receiver had: only a D-SACK shows it arrived.
                acks.dsack(s, e, arrival, arrival.saturating_add(dsack_window))
            } else {
                acks.covered(s, e, arrival, until)
            };
            match proof {
                Some(ack_frame) => {
                    r.fate = if x.a_upstream { Fate::NotCapturedB } else { Fate::NotCapturedA };
                    if x.a_upstream { r.evidence_b = ack_frame } else { r.evidence_a = ack_frame }
                    if x.a_upstream { st.not_captured_b += 1 } else { st.not_captured_a += 1 }
                    keep(&mut st.ev_gap, frames(Some(p), None));
                }
                None => {
                    r.fate = Fate::LostBetween;
                    st.lost_between += 1;
                    set_evidence(&mut r, frames(None, next.map(|n| n.1)));
                    keep(&mut st.ev_between, frames(Some(p), next.map(|n| n.1)));
                }
            }
        }
        if x.keep_rows {
            rows.push(r);
        }
    }

    // Downstream segments with no upstream counterpart.
    for q in 0..d.list.len() as u32 {
        let qi = q as usize;
        if d_to_u[qi] != NONE {
            continue;
        }
        let mut r = row(frames(None, Some(q)), times(None, Some(q)), d.pos[qi], d.lens[qi], Fate::Outside);
        if left_inside(d.t[qi]) {
            r.fate = if x.a_upstream { Fate::NotCapturedA } else { Fate::NotCapturedB };
            if x.a_upstream { st.not_captured_a += 1 } else { st.not_captured_b += 1 }
            if d.lens[qi] > 0 {
                keep(&mut st.ev_gap, frames(None, Some(q)));
            }
        } else {
            st.outside += 1;
        }
        if x.keep_rows {
            rows.push(r);
        }
    }

    if !owds.is_empty() {
        let at = |q: f64| owds[((owds.len() - 1) as f64 * q).round() as usize];
        st.owd = Some(Owd { min: owds[0], p50: at(0.5), p95: at(0.95), max: owds[owds.len() - 1], samples: owds.len() as u64 });
    }
    st
}

/// The gaps in U's IPv4 identifications for this direction, when they are one sender's
/// sequential counter: every packet IPv4, and none longer than D's longest (a TSO packet
/// seen at the sender steps the counter by its segments).
fn identification_gaps(u: &View<'_>, d: &View<'_>) -> Option<Vec<super::ipid::Gap>> {
    let segs = || u.list.iter().map(|&i| u.side.seg(i));
    if !segs().all(|s| s.v4()) {
        return None;
    }
    let longest = |v: &View<'_>| v.list.iter().map(|&i| v.side.seg(i).len).max().unwrap_or(0);
    if d.list.is_empty() || longest(u) > longest(d) {
        return None;
    }
    let ids: Vec<u16> = segs().map(|s| s.ip_id).collect();
    super::ipid::gaps(&ids)
}

#[cfg(test)]
mod tests {
    use super::Coverage;

    #[test]
    fn coverage_reports_the_gaps_and_merges() {
        let mut c = Coverage::default();
        c.add(0, 10);
        c.add(20, 30);
        assert_eq!(c.gaps(5, 25), vec![(10, 20)]);
        c.add(10, 20);
        assert!(c.gaps(0, 30).is_empty());
        assert_eq!(c.gaps(25, 40), vec![(30, 40)]);
        c.add(35, 36);
        assert_eq!(c.gaps(25, 40), vec![(30, 35), (36, 40)]);
    }
}

//! `tcpdiag compare A B`: one transfer seen in two captures (client and server, or either
//! and a middlebox). From one capture the analysis says *what* limited a flow; from two,
//! this says *where*: losses between the capture points or outside them, reordering
//! introduced between them, the one-way delay of each direction, and every header field a
//! middlebox changed.
//!
//! Along the data flow:
//! [`record`] reads each capture once (both at a time, one thread each), keeping every
//! segment compactly while the single-capture analysis judges its flows; [`side`] groups
//! them by flow and direction; [`matching`] pairs the flows of A and B (also through NAT
//! and ISN randomisation); [`segments`] pairs their segments; [`clock`] aligns the two
//! clocks from both directions' smallest delays; [`fates`] says what happened to each
//! segment between the points; [`rewrites`] finds the changed header fields; [`localise`]
//! words it all as catalogue findings with evidence frames in both captures.

pub mod acks;
pub mod clock;
pub mod fates;
pub mod ipid;
pub mod localise;
pub mod matching;
pub mod record;
pub mod rewrites;
pub mod segments;
pub mod side;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod trace;

use crate::analyse::finding::Finding;
use crate::analyse::verdict::JudgeOptions;
use crate::decode::Addr;
use crate::ingest::FrameSource;

use clock::{Clock, FlowTimes};
use fates::{DirInput, DirStats, FateRow};
use matching::FlowMatch;
use record::Capture;
use rewrites::{Rewrites, Seen};
use segments::{DirMatch, DirView, NONE};
use side::Side;

/// What the caller chooses.
#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    pub judge: JudgeOptions,
    /// Names of the two captures in the findings' words ("A", "B" unless given).
    pub names: Option<[String; 2]>,
    /// Keep the fate of every segment (the fates table), not only the counts.
    pub fates: bool,
}

/// One flow of A and/or B, and what happened to it between the capture points.
#[derive(Debug, Clone)]
pub struct Pair {
    /// tcp.stream in A and in B (one is None for a flow seen in one capture only).
    pub a: Option<u32>,
    pub b: Option<u32>,
    pub matched: Option<FlowMatch>,
    /// The direction (0/1) of A's flow and of B's flow that goes client → server.
    pub client_dir_a: usize,
    pub client_dir_b: usize,
    /// Client and server endpoints as each capture saw them.
    pub client: [Option<(Addr, u16)>; 2],
    pub server: [Option<(Addr, u16)>; 2],
    /// Per direction, 0 = client → server, 1 = server → client.
    pub dirs: [DirStats; 2],
    pub rewrites: [Rewrites; 2],
    pub findings: Vec<Finding>,
}

/// The comparison of two captures.
pub struct Comparison {
    pub a: Capture,
    pub b: Capture,
    pub clock: Clock,
    /// Matched flows first (A's stream order), then flows of A only, then of B only.
    pub pairs: Vec<Pair>,
    pub fates: Vec<FateRow>,
    pub names: [String; 2],
}

impl Comparison {
    /// Flows seen in both captures.
    pub fn matched(&self) -> usize {
        self.pairs.iter().filter(|p| p.matched.is_some()).count()
    }
}

/// Reads both captures (each once, at the same time on two threads) and compares them.
pub fn compare(a: Box<dyn FrameSource>, b: Box<dyn FrameSource>, opts: &CompareOptions) -> Comparison {
    let judge = opts.judge;
    let (ca, cb) = std::thread::scope(|s| {
        let other = s.spawn(move || Capture::read(b, judge));
        let ca = Capture::read(a, judge);
        (ca, other.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    });
    compare_captures(ca, cb, opts)
}

/// Compares two captures already read.
pub fn compare_captures(ca: Capture, cb: Capture, opts: &CompareOptions) -> Comparison {
    let names = opts.names.clone().unwrap_or_else(|| ["A".to_string(), "B".to_string()]);
    let (a, b) = (Side::new(ca), Side::new(cb));
    let matches = matching::match_flows(&a, &b);

    // Segments of each matched flow and direction (of A's flow), paired.
    let mut dms: Vec<[DirMatch; 2]> = Vec::with_capacity(matches.len());
    let mut times: Vec<FlowTimes> = Vec::with_capacity(matches.len());
    for m in &matches {
        let mut pair_dm: [DirMatch; 2] = Default::default();
        let mut pair_t: FlowTimes = Default::default();
        for d in 0..2 {
            let v = view(&a, &b, m, d);
            let dm = DirMatch::new(&v);
            pair_t[d] = dm
                .a_to_b
                .iter()
                .enumerate()
                .filter(|(_, &q)| q != NONE)
                .map(|(p, &q)| (a.seg(v.la[p]).ts_ns, b.seg(v.lb[q as usize]).ts_ns))
                .collect();
            pair_dm[d] = dm;
        }
        dms.push(pair_dm);
        times.push(pair_t);
    }
    let (clock, orient) = clock::estimate(&times);
    drop(times);

    let mut pairs = Vec::with_capacity(a.flows() + b.flows());
    let mut fates = Vec::new();
    for (k, (m, dm)) in matches.iter().zip(dms.iter_mut()).enumerate() {
        let pair_index = pairs.len() as u32;
        let a_up0 = orient[k].unwrap_or(true);
        let tol = clock.uncertainty_ns().max(0) + 1_000_000;
        for d in 0..2 {
            let v = view(&a, &b, m, d);
            dm[d].resolve(&v, a_up0 == (d == 0), |t| clock.b_to_a(t), tol);
        }
        let client_dir_a = client_dir(&a, m.a, &b, m.b, m.flip);
        let client_dir_b = client_dir_a ^ m.flip as usize;
        let mut dirs: [DirStats; 2] = Default::default();
        let mut rw: [Rewrites; 2] = Default::default();
        for (c, (stats, rewrites)) in dirs.iter_mut().zip(rw.iter_mut()).enumerate() {
            let d = client_dir_a ^ c; // A's direction carrying canonical direction c
            let a_upstream = a_up0 == (d == 0);
            let v = view(&a, &b, m, d);
            let input = DirInput {
                a: &a,
                b: &b,
                la: v.la,
                lb: v.lb,
                ra: a.of(m.a, d ^ 1),
                rb: b.of(m.b, (d ^ 1) ^ m.flip as usize),
                m: &dm[d],
                shift: m.shift[d],
                ip_id_kept: m.ip_id_kept[d],
                a_upstream,
                clock: &clock,
                pair: pair_index,
                dir: c as u8,
                keep_rows: opts.fates,
            };
            *stats = fates::walk(&input, &mut fates);
            let (up, down, lu, ld, u_to_d) =
                if a_upstream { (&a, &b, v.la, v.lb, &dm[d].a_to_b) } else { (&b, &a, v.lb, v.la, &dm[d].b_to_a) };
            let peer = m.shift[d ^ 1];
            *rewrites = rewrites::find(&Seen {
                up,
                down,
                lu,
                ld,
                u_to_d,
                peer_shift: if a_upstream { peer } else { peer.wrapping_neg() },
                a_upstream,
            });
        }
        let ends = |s: &Side, f: u32, client_dir: usize| {
            let fl = &s.cap.scan.flows[f as usize];
            if client_dir == 0 { (fl.a, fl.b) } else { (fl.b, fl.a) }
        };
        let (ca_, sa_) = ends(&a, m.a, client_dir_a);
        let (cb_, sb_) = ends(&b, m.b, client_dir_b);
        pairs.push(Pair {
            a: Some(m.a),
            b: Some(m.b),
            matched: Some(*m),
            client_dir_a,
            client_dir_b,
            client: [Some(ca_), Some(cb_)],
            server: [Some(sa_), Some(sb_)],
            dirs,
            rewrites: rw,
            findings: Vec::new(),
        });
    }
    drop(dms);
    // Flows seen in one capture only.
    let mut in_a = vec![false; a.flows()];
    let mut in_b = vec![false; b.flows()];
    for m in &matches {
        in_a[m.a as usize] = true;
        in_b[m.b as usize] = true;
    }
    for (side, seen, is_a) in [(&a, &in_a, true), (&b, &in_b, false)] {
        for f in (0..side.flows() as u32).filter(|&f| !seen[f as usize]) {
            if side.of(f, 0).is_empty() && side.of(f, 1).is_empty() {
                continue; // seen only quoted in ICMP errors
            }
            let fl = &side.cap.scan.flows[f as usize];
            let cd = side.facts[f as usize].client_dir(&side.cap.segs).unwrap_or(0);
            let (c, s) = if cd == 0 { (fl.a, fl.b) } else { (fl.b, fl.a) };
            let (client, server) = if is_a { ([Some(c), None], [Some(s), None]) } else { ([None, Some(c)], [None, Some(s)]) };
            pairs.push(Pair {
                a: is_a.then_some(f),
                b: (!is_a).then_some(f),
                matched: None,
                client_dir_a: cd,
                client_dir_b: cd,
                client,
                server,
                dirs: Default::default(),
                rewrites: Default::default(),
                findings: Vec::new(),
            });
        }
    }
    let mut cmp = Comparison { a: a.into_capture(), b: b.into_capture(), clock, pairs, fates, names };
    localise::all(&mut cmp);
    cmp
}

/// Direction `d` of A's flow in `m` and its counterpart in B.
fn view<'a>(a: &'a Side, b: &'a Side, m: &FlowMatch, d: usize) -> DirView<'a> {
    DirView {
        a,
        b,
        la: a.of(m.a, d),
        lb: b.of(m.b, d ^ m.flip as usize),
        shift: m.shift[d],
        ack_shift: m.shift[d ^ 1],
        ip_id_kept: m.ip_id_kept[d],
        tsval_kept: m.tsval_kept[d],
    }
}

/// The direction of A's flow that goes client → server: the one whose SYN carries no ACK,
/// in A, else in B; else A's direction 0 (the first segment's sender).
fn client_dir(a: &Side, fa: u32, b: &Side, fb: u32, flip: bool) -> usize {
    if let Some(d) = a.facts[fa as usize].client_dir(&a.cap.segs) {
        return d;
    }
    if let Some(d) = b.facts[fb as usize].client_dir(&b.cap.segs) {
        return d ^ flip as usize;
    }
    0
}

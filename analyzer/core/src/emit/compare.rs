//! The tables of a comparison (`tcpdiag compare`): pairs, directions, fates and pair
//! findings (schema::PAIR, DIRECTION, FATE, PAIR_FINDING) as Arrow record batches.

use arrow_array::RecordBatch;
use arrow_schema::ArrowError;

use super::columns::*;
use super::flows_table::{finding_names, severity_code, SEVERITIES};
use super::schema::{self, DIRECTION, FATE, PAIR, PAIR_FINDING};
use crate::analyse::catalogue::FindingId;
use crate::analyse::finding::Finding;
use crate::compare::fates::{FateRow, Fate, NO_TIME};
use crate::compare::matching::How;
use crate::compare::{Comparison, Pair};
use crate::decode::Addr;

pub const POSITIONS: [&str; 3] = ["client_side", "server_side", "unknown"];
pub const UPSTREAM: [&str; 2] = ["a", "b"];

fn endpoint(e: Option<(Addr, u16)>) -> Option<String> {
    e.map(|(a, p)| match a.to_ip() {
        std::net::IpAddr::V4(v4) => format!("{v4}:{p}"),
        std::net::IpAddr::V6(v6) => format!("[{v6}]:{p}"),
    })
}

/// Where capture A sits on the pair's path.
pub fn a_position(p: &Pair) -> u8 {
    match p.matched {
        Some(_) if p.dirs[0].seen_a + p.dirs[0].seen_b > 0 => !p.dirs[0].a_upstream as u8,
        Some(_) if p.dirs[1].seen_a + p.dirs[1].seen_b > 0 => p.dirs[1].a_upstream as u8,
        _ => 2,
    }
}

fn primary(p: &Pair) -> Option<&Finding> {
    p.findings.first()
}

pub fn pairs_batch(c: &Comparison) -> Result<RecordBatch, ArrowError> {
    let ps = &c.pairs;
    let names = finding_names();
    let no_finding = FindingId::PathClean;
    batch(schema::schema(&[PAIR]), vec![
        u32s((0..ps.len() as u32).collect()),
        opt_u32s(ps.iter().map(|p| p.a).collect()),
        opt_u32s(ps.iter().map(|p| p.b).collect()),
        opt_codes(ps.iter().map(|p| p.matched.map(|m| m.how as u8)).collect(), &How::NAMES),
        opt_f64s(ps.iter().map(|p| p.matched.map(|m| m.score)).collect()),
        opt_strs(ps.iter().map(|p| endpoint(p.client[0]))),
        opt_strs(ps.iter().map(|p| endpoint(p.server[0]))),
        opt_strs(ps.iter().map(|p| endpoint(p.client[1]))),
        opt_strs(ps.iter().map(|p| endpoint(p.server[1]))),
        codes(ps.iter().map(a_position).collect(), &POSITIONS),
        codes(ps.iter().map(|p| primary(p).map_or(no_finding, |f| f.id) as u8).collect(), &names),
        codes(ps.iter().map(|p| severity_code(primary(p).map_or(no_finding, |f| f.id).entry().severity)).collect(), &SEVERITIES),
        words(ps.iter().map(|p| primary(p).map(|f| f.message()).unwrap_or_default())),
        u8s(ps.iter().map(|p| p.findings.len().min(255) as u8).collect()),
    ])
}

pub fn directions_batch(c: &Comparison) -> Result<RecordBatch, ArrowError> {
    let rows: Vec<(u32, usize, &Pair)> = c
        .pairs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.matched.is_some())
        .flat_map(|(i, p)| (0..2).map(move |d| (i as u32, d, p)))
        .collect();
    let st = |f: &dyn Fn(&crate::compare::fates::DirStats) -> u64| u64s(rows.iter().map(|r| f(&r.2.dirs[r.1])).collect());
    let rw = |f: &dyn Fn(&crate::compare::rewrites::Rewrites) -> u64| u64s(rows.iter().map(|r| f(&r.2.rewrites[r.1])).collect());
    let owd = |f: &dyn Fn(&crate::compare::fates::Owd) -> i64| {
        opt_f64s(rows.iter().map(|r| r.2.dirs[r.1].owd.map(|o| f(&o) as f64 / 1e6)).collect())
    };
    let shift = |r: &(u32, usize, &Pair)| {
        let m = r.2.matched.expect("matched");
        let s = m.shift[r.2.client_dir_a ^ r.1];
        if r.2.dirs[r.1].a_upstream { s } else { s.wrapping_neg() }
    };
    batch(schema::schema(&[DIRECTION]), vec![
        u32s(rows.iter().map(|r| r.0).collect()),
        u8s(rows.iter().map(|r| r.1 as u8).collect()),
        codes(rows.iter().map(|r| !r.2.dirs[r.1].a_upstream as u8).collect(), &UPSTREAM),
        st(&|d| d.seen_a),
        st(&|d| d.seen_b),
        st(&|d| d.data_sent),
        st(&|d| d.delivered),
        st(&|d| d.lost_between),
        st(&|d| d.lost_before),
        st(&|d| d.lost_after),
        st(&|d| d.acks_lost),
        st(&|d| d.not_captured_a),
        st(&|d| d.not_captured_b),
        st(&|d| d.outside),
        st(&|d| d.split),
        st(&|d| d.merged),
        st(&|d| d.reordered),
        st(&|d| d.late),
        f64s(rows.iter().map(|r| r.2.dirs[r.1].max_late_ns as f64 / 1e6).collect()),
        owd(&|o| o.min),
        owd(&|o| o.p50),
        owd(&|o| o.p95),
        owd(&|o| o.max),
        opt_u8s(rows.iter().map(|r| r.2.rewrites[r.1].hops).collect()),
        u32s(rows.iter().map(shift).collect()),
        rw(&|w| w.window_changed),
        rw(&|w| w.dscp_changed),
        rw(&|w| w.ecn_bleached),
        rw(&|w| w.ce_marked),
    ])
}

pub fn fates_batch(rows: &[FateRow]) -> Result<RecordBatch, ArrowError> {
    let ms = |x: Option<i64>| x.map(|n| n as f64 / 1e6);
    let time = |t: i64| (t != NO_TIME).then_some(t);
    batch(schema::schema(&[FATE]), vec![
        u32s(rows.iter().map(|r| r.pair).collect()),
        u8s(rows.iter().map(|r| r.dir).collect()),
        opt_u64s(rows.iter().map(|r| r.frame_a()).collect()),
        opt_u64s(rows.iter().map(|r| r.frame_b()).collect()),
        opt_times(rows.iter().map(|r| time(r.ts_a)).collect()),
        opt_times(rows.iter().map(|r| time(r.ts_b)).collect()),
        i64s(rows.iter().map(|r| r.rel_seq).collect()),
        u32s(rows.iter().map(|r| r.len).collect()),
        codes(rows.iter().map(|r| r.fate as u8).collect(), &Fate::NAMES),
        opt_f64s(rows.iter().map(|r| ms(r.owd_ns())).collect()),
        opt_f64s(rows.iter().map(|r| ms(r.late_ns())).collect()),
        u16s(rows.iter().map(|r| r.pieces).collect()),
        bools(rows.iter().map(|r| r.retrans).collect()),
        opt_u64s(rows.iter().map(|r| r.evidence_a()).collect()),
        opt_u64s(rows.iter().map(|r| r.evidence_b()).collect()),
    ])
}

pub fn pair_findings_batch(c: &Comparison) -> Result<RecordBatch, ArrowError> {
    let rows: Vec<(u32, &Pair, u8, &Finding)> = c
        .pairs
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.findings.iter().enumerate().map(move |(k, f)| (i as u32, p, k.min(255) as u8, f)))
        .collect();
    let names = finding_names();
    batch(schema::schema(&[PAIR_FINDING]), vec![
        u32s(rows.iter().map(|r| r.0).collect()),
        opt_u32s(rows.iter().map(|r| r.1.a).collect()),
        opt_u32s(rows.iter().map(|r| r.1.b).collect()),
        u8s(rows.iter().map(|r| r.2).collect()),
        codes(rows.iter().map(|r| r.3.id as u8).collect(), &names),
        words(rows.iter().map(|r| r.3.entry().field)),
        codes(rows.iter().map(|r| severity_code(r.3.entry().severity)).collect(), &SEVERITIES),
        f64s(rows.iter().map(|r| r.3.share).collect()),
        words(rows.iter().map(|r| r.3.message())),
        words(rows.iter().map(|r| r.3.remedy())),
        frame_lists(rows.iter().map(|r| r.3.frames.as_slice())),
        frame_lists(rows.iter().map(|r| r.3.frames_b.as_slice())),
        value_lists(rows.iter().map(|r| r.3.values.as_slice())),
    ])
}

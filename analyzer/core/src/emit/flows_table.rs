//! The flows table (schema::FLOW, plus schema::VERDICT after a diagnosis) and the findings
//! table (schema::FINDING) as Arrow record batches.

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::ArrowError;

use super::columns::*;
use super::schema::{self, FINDING, FLOW, VERDICT};
use crate::analyse::catalogue::Severity;
use crate::analyse::congestion::CongestionControl;
use crate::analyse::vantage::Vantage;
use crate::analyse::verdict::FlowVerdict;
use crate::analyse::window::RwndBasis;
use crate::analyse::LimitState;
use crate::flow::FlowSummary;

pub const SEVERITIES: [&str; 4] = ["chat", "note", "warn", "error"];
pub const VANTAGES: [&str; 4] = ["unknown", "sender", "receiver", "middle"];
pub const CEILING_LIMITS: [&str; 3] = ["rwnd", "sndbuf", "path"];

pub fn severity_code(s: Severity) -> u8 {
    s as u8
}

/// Every catalogue id, in catalogue order: the categories of `verdict`, `id` and `kind`.
pub fn finding_names() -> Vec<&'static str> {
    crate::analyse::catalogue::FindingId::ALL.iter().map(|f| f.name()).collect()
}

/// The flow columns (schema::FLOW) of `flows`.
pub fn flow_columns(flows: &[FlowSummary]) -> Vec<ArrayRef> {
    let side = |i: usize, f: &dyn Fn(&crate::flow::SideSummary) -> u64| -> ArrayRef {
        u64s(flows.iter().map(|x| f(&x.sides[i])).collect())
    };
    vec![
        u32s(flows.iter().map(|f| f.stream).collect()),
        strs(flows.iter().map(|f| f.a.0.to_ip().to_string())),
        u16s(flows.iter().map(|f| f.a.1).collect()),
        strs(flows.iter().map(|f| f.b.0.to_ip().to_string())),
        u16s(flows.iter().map(|f| f.b.1).collect()),
        u64s(flows.iter().map(|f| f.first_frame).collect()),
        u64s(flows.iter().map(|f| f.last_frame).collect()),
        // Saturated stamps (past 2262) are not times.
        opt_times(flows.iter().map(|f| Some(f.first_ts_ns).filter(|&t| t != i64::MAX && t != i64::MIN)).collect()),
        f64s(flows.iter().map(|f| f.duration_ns() as f64 / 1e9).collect()),
        side(0, &|s| s.packets),
        side(1, &|s| s.packets),
        side(0, &|s| s.frame_bytes),
        side(1, &|s| s.frame_bytes),
        side(0, &|s| s.payload_bytes),
        side(1, &|s| s.payload_bytes),
        bools(flows.iter().map(|f| f.handshake_seen()).collect()),
        opt_u64s(flows.iter().map(|f| f.sides[0].syn_frame).collect()),
        opt_u64s(flows.iter().map(|f| f.sides[1].syn_frame).collect()),
        opt_u16s(flows.iter().map(|f| f.sides[0].syn.mss).collect()),
        opt_u16s(flows.iter().map(|f| f.sides[1].syn.mss).collect()),
        opt_u8s(flows.iter().map(|f| f.sides[0].syn.wscale).collect()),
        opt_u8s(flows.iter().map(|f| f.sides[1].syn.wscale).collect()),
        opt_bools(flows.iter().map(|f| f.wscale_in_effect()).collect()),
        opt_bools(flows.iter().map(|f| f.sack_permitted()).collect()),
        opt_bools(flows.iter().map(|f| f.timestamps()).collect()),
        opt_bools(flows.iter().map(|f| f.ecn()).collect()),
        bools(flows.iter().map(|f| f.sides[0].fin_seen).collect()),
        bools(flows.iter().map(|f| f.sides[1].fin_seen).collect()),
        bools(flows.iter().map(|f| f.sides[0].rst_seen).collect()),
        bools(flows.iter().map(|f| f.sides[1].rst_seen).collect()),
    ]
}

/// The trailing window of a flow's series rates (emit/series.rs), seconds.
pub fn rate_window_s(v: &FlowVerdict) -> f64 {
    (v.srtt_ns.unwrap_or(0) as f64 / 1e9).max(v.duration_s / 200.0).max(1e-3)
}

/// The verdict columns (schema::VERDICT) of `v`.
pub fn verdict_columns(v: &[FlowVerdict]) -> Vec<ArrayRef> {
    let ms = |x: Option<i64>| x.map(|n| n as f64 / 1e6);
    let share = |st: LimitState| f64s(v.iter().map(|x| x.share(st)).collect());
    let names = finding_names();
    let rwnd_basis: Vec<&str> = RwndBasis::ALL.iter().map(|b| b.name()).collect();
    vec![
        codes(v.iter().map(|x| x.primary().id as u8).collect(), &names),
        codes(v.iter().map(|x| severity_code(x.primary().entry().severity)).collect(), &SEVERITIES),
        f64s(v.iter().map(|x| x.primary().share).collect()),
        words(v.iter().map(|x| x.primary().message())),
        words(v.iter().map(|x| x.primary().remedy())),
        frame_lists(v.iter().map(|x| x.primary().frames.as_slice())),
        codes(v.iter().map(|x| vantage_code(x.vantage)).collect(), &VANTAGES),
        u8s(v.iter().map(|x| x.data_dir as u8).collect()),
        f64s(v.iter().map(|x| x.busy_ns as f64 / 1e9).collect()),
        share(LimitState::Rwnd),
        share(LimitState::ZeroWindow),
        share(LimitState::Recovery),
        share(LimitState::Cwnd),
        share(LimitState::Sndbuf),
        share(LimitState::App),
        f64s(v.iter().map(|x| x.state_ns[LimitState::Idle as usize] as f64 / 1e9).collect()),
        opt_f64s(v.iter().map(|x| ms(x.min_rtt_ns)).collect()),
        opt_f64s(v.iter().map(|x| ms(x.srtt_ns)).collect()),
        opt_f64s(v.iter().map(|x| ms(x.mean_rtt_ns)).collect()),
        u32s(v.iter().map(|x| x.mss).collect()),
        u64s(v.iter().map(|x| x.data_bytes).collect()),
        f64s(v.iter().map(|x| x.goodput_bps).collect()),
        opt_f64s(v.iter().map(|x| x.capacity_bps).collect()),
        opt_u64s(v.iter().map(|x| x.rwnd_min).collect()),
        u64s(v.iter().map(|x| x.rwnd_max).collect()),
        opt_codes(v.iter().map(|x| x.rwnd_basis.map(|b| b as u8)).collect(), &rwnd_basis),
        u64s(v.iter().map(|x| x.retrans_segments).collect()),
        u64s(v.iter().map(|x| x.spurious).collect()),
        u64s(v.iter().map(|x| x.dsacks).collect()),
        u64s(v.iter().map(|x| x.reorder_events).collect()),
        f64s(v.iter().map(|x| x.max_reorder_ns as f64 / 1e6).collect()),
        u32s(v.iter().map(|x| x.recoveries as u32).collect()),
        u64s(v.iter().map(|x| x.zero_windows).collect()),
        u64s(v.iter().map(|x| x.lost_before_bytes).collect()),
        codes(v.iter().map(|x| x.cc.name as u8).collect(), &CongestionControl::ALL.map(CongestionControl::name)),
        words(v.iter().map(|x| x.cc.line())),
        opt_codes(v.iter().map(|x| x.ceiling.as_ref().map(|c| c.limit as u8)).collect(), &CEILING_LIMITS),
        opt_u64s(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.window_bytes)).collect()),
        opt_f64s(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.rtt).map(|r| r.rtt_ms)).collect()),
        opt_f64s(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.rtt).map(|r| r.min_rtt_ms)).collect()),
        opt_words(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.rtt).map(|r| r.source))),
        opt_f64s(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.ceiling_bps)).collect()),
        opt_u64s(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.bdp_bytes)).collect()),
        opt_f64s(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.target_bps)).collect()),
        opt_u64s(v.iter().map(|x| x.ceiling.as_ref().and_then(|c| c.needed_bytes)).collect()),
        text_lists(v.iter().map(|x| x.ceiling.as_ref().map(|c| c.lines()).unwrap_or_default())),
        words(v.iter().map(|x| x.transfer_line())),
        words(v.iter().map(|x| x.time_line())),
        u8s(v.iter().map(|x| x.findings.len().min(255) as u8).collect()),
        f64s(v.iter().map(limited_s).collect()),
        f64s(v.iter().map(rate_window_s).collect()),
    ]
}

/// Seconds the primary finding explains (the fleet's sort key).
fn limited_s(v: &FlowVerdict) -> f64 {
    if v.primary().id == crate::analyse::catalogue::FindingId::NotLimited {
        return 0.0;
    }
    v.busy_ns as f64 / 1e9 * v.primary().share.min(1.0)
}

pub fn vantage_code(v: Vantage) -> u8 {
    v as u8
}

/// The flows table; with `verdicts` (one per flow, same order) the diagnosis columns too.
pub fn flows_batch(flows: &[FlowSummary], verdicts: Option<&[FlowVerdict]>) -> Result<RecordBatch, ArrowError> {
    let mut cols = flow_columns(flows);
    match verdicts {
        Some(v) => {
            assert_eq!(v.len(), flows.len(), "one verdict per flow");
            cols.extend(verdict_columns(v));
            batch(schema::schema(&[FLOW, VERDICT]), cols)
        }
        None => batch(schema::schema(&[FLOW]), cols),
    }
}

/// The findings columns (schema::FINDING) of the verdicts of `streams`.
pub fn findings_columns(streams: &[u32], verdicts: &[FlowVerdict]) -> Vec<ArrayRef> {
    let rows: Vec<(u32, u8, &crate::analyse::finding::Finding)> = streams
        .iter()
        .zip(verdicts)
        .flat_map(|(&s, v)| v.findings.iter().enumerate().map(move |(i, x)| (s, i.min(255) as u8, x)))
        .collect();
    let names = finding_names();
    vec![
        u32s(rows.iter().map(|r| r.0).collect()),
        u8s(rows.iter().map(|r| r.1).collect()),
        codes(rows.iter().map(|r| r.2.id as u8).collect(), &names),
        words(rows.iter().map(|r| r.2.entry().field)),
        codes(rows.iter().map(|r| severity_code(r.2.entry().severity)).collect(), &SEVERITIES),
        f64s(rows.iter().map(|r| r.2.share).collect()),
        words(rows.iter().map(|r| r.2.message())),
        words(rows.iter().map(|r| r.2.remedy())),
        frame_lists(rows.iter().map(|r| r.2.frames.as_slice())),
        value_lists(rows.iter().map(|r| r.2.values.as_slice())),
    ]
}

/// The findings table: every finding of every flow, in flow order, primary first.
pub fn findings_batch(flows: &[FlowSummary], verdicts: &[FlowVerdict]) -> Result<RecordBatch, ArrowError> {
    let streams: Vec<u32> = flows.iter().map(|f| f.stream).collect();
    batch(schema::schema(&[FINDING]), findings_columns(&streams, verdicts))
}

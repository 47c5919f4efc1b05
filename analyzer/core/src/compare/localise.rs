//! The localisation findings of each flow: where its segments were lost, reordered, delayed
//! or rewritten, as catalogue entries with their numbers and evidence frames in both
//! captures. Only decisions and values here; the words are the catalogue's.

use super::fates::{DirStats, Frames};
use super::rewrites::SynChange;
use super::{Comparison, Pair};
use crate::analyse::catalogue::FindingId;
use crate::analyse::finding::{Finding, Value};
use crate::decode::Addr;

/// A direction's delay must grow at least this much, and four times more than the other
/// direction's, to locate the queue.
const QUEUE_GROWTH_NS: i64 = 5_000_000;

const DIRS: [&str; 2] = ["client → server", "server → client"];
const WHO: [&str; 2] = ["client", "server"];
const HANDSHAKE: [&str; 2] = ["SYN", "SYN/ACK"];

/// Every pair's findings, worst first.
pub fn all(c: &mut Comparison) {
    let labels = [format!("capture {}", c.names[0]), format!("capture {}", c.names[1])];
    let spans = [c.a.span_ns, c.b.span_ns.map(|(f, l)| (c.clock.b_to_a(f), c.clock.b_to_a(l)))];
    let mut pairs = std::mem::take(&mut c.pairs);
    for p in &mut pairs {
        let mut out = if p.matched.is_some() { matched(p, &labels) } else { one_side(c, p, &labels, &spans) };
        out.sort_by(|x, y| y.entry().severity.cmp(&x.entry().severity).then(y.share.total_cmp(&x.share)));
        p.findings = out;
    }
    c.pairs = pairs;
}

fn text(s: impl Into<String>) -> Value {
    Value::text(s.into())
}

fn split(frames: &Frames) -> (Vec<u64>, Vec<u64>) {
    (frames.iter().filter_map(|f| f.0).collect(), frames.iter().filter_map(|f| f.1).collect())
}

fn endpoint(e: (Addr, u16)) -> String {
    match e.0.to_ip() {
        std::net::IpAddr::V4(v4) => format!("{v4}:{}", e.1),
        std::net::IpAddr::V6(v6) => format!("[{v6}]:{}", e.1),
    }
}

fn matched(p: &Pair, labels: &[String; 2]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut problems = 0usize;
    for c in 0..2 {
        let st = &p.dirs[c];
        let rw = &p.rewrites[c];
        let (up, down) = if st.a_upstream { (0, 1) } else { (1, 0) };
        let (first, second) = (&labels[up], &labels[down]);
        let dir = || text(DIRS[c]);
        let losses = st.losses();
        for (id, n, ev) in [
            (FindingId::LossBetweenPoints, st.lost_between, &st.ev_between),
            (FindingId::LossBeforeFirstPoint, st.lost_before, &st.ev_before),
            (FindingId::LossAfterSecondPoint, st.lost_after, &st.ev_after),
        ] {
            if n == 0 {
                continue;
            }
            let (fa, fb) = split(ev);
            let share = n as f64 / losses as f64;
            out.push(Finding::pair(id, share, fa, fb, vec![
                ("dir", dir()),
                ("lost", Value::Int(n as i64)),
                ("loss_rate", Value::Share(n as f64 / st.data_sent.max(1) as f64)),
                ("share", Value::Share(share)),
                ("first", text(first.clone())),
                ("second", text(second.clone())),
            ]));
            problems += 1;
        }
        for (count, lab) in [(st.not_captured_a, &labels[0]), (st.not_captured_b, &labels[1])] {
            if count == 0 {
                continue;
            }
            let (fa, fb) = split(&st.ev_gap);
            out.push(Finding::pair(FindingId::CaptureGap, count as f64 / (st.seen_a.max(st.seen_b).max(1)) as f64, fa, fb, vec![
                ("dir", dir()),
                ("count", Value::Int(count as i64)),
                ("where", text(lab.clone())),
            ]));
        }
        if st.reordered > 0 {
            let (fa, fb) = split(&st.ev_reorder);
            let share = st.reordered as f64 / st.delivered.max(1) as f64;
            out.push(Finding::pair(FindingId::ReorderBetweenPoints, share, fa, fb, vec![
                ("dir", dir()),
                ("share", Value::Share(share)),
                ("count", Value::Int(st.reordered as i64)),
                ("extent", Value::Ms(st.max_late_ns as f64 / 1e6)),
                ("late_3ms", Value::Share(st.late as f64 / st.delivered.max(1) as f64)),
                ("first", text(first.clone())),
                ("second", text(second.clone())),
            ]));
            problems += 1;
        }
        if let (Some(o), Some(other)) = (st.owd, p.dirs[1 - c].owd) {
            let (growth, other_growth) = (o.p95 - o.min, other.p95 - other.min);
            if growth >= QUEUE_GROWTH_NS && other_growth * 4 <= growth {
                out.push(Finding::pair(FindingId::QueueOnPath, 1.0, vec![], vec![], vec![
                    ("dir", dir()),
                    ("min", Value::Ms(o.min as f64 / 1e6)),
                    ("high", Value::Ms(o.p95 as f64 / 1e6)),
                    ("other_dir", text(DIRS[1 - c])),
                    ("other_growth", Value::Ms(other_growth as f64 / 1e6)),
                ]));
                problems += 1;
            }
        }
        let rewrite = |out: &mut Vec<Finding>, id: FindingId, share: f64, ex: (u64, u64), mut values: Vec<(&'static str, Value)>| {
            values.push(("first", text(first.clone())));
            values.push(("second", text(second.clone())));
            out.push(Finding::pair(id, share, vec![ex.0], vec![ex.1], values));
        };
        for (change, ex) in &rw.syn {
            let mut values = vec![("who", text(WHO[c])), ("segment", text(HANDSHAKE[c]))];
            let id = match *change {
                SynChange::Stripped { option } => {
                    values.push(("option", text(capitalised(option))));
                    FindingId::OptionStripped
                }
                SynChange::Rewritten { option, up, down } => {
                    values.push(("option", text(capitalised(option))));
                    values.push(("value_up", Value::Int(up as i64)));
                    values.push(("value_down", Value::Int(down as i64)));
                    FindingId::OptionRewritten
                }
                SynChange::MssClamped { up, down } => {
                    values.push(("mss_up", Value::Bytes(up as u64)));
                    values.push(("mss_down", Value::Bytes(down as u64)));
                    FindingId::MssClamped
                }
            };
            rewrite(&mut out, id, 1.0, *ex, values);
            problems += 1;
        }
        let compared = rw.compared.max(1) as f64;
        if let (n @ 1.., Some(ex)) = (rw.ts_stripped, rw.ts_example) {
            let values = vec![("who", text(WHO[c])), ("segment", text("segments")), ("option", text("Timestamps"))];
            rewrite(&mut out, FindingId::OptionStripped, n as f64 / compared, ex, values);
            problems += 1;
        }
        if let (n @ 1.., Some(ex)) = (rw.sack_stripped, rw.sack_example) {
            let values = vec![("who", text(WHO[c])), ("segment", text("ACKs")), ("option", text("SACK blocks"))];
            rewrite(&mut out, FindingId::OptionStripped, n as f64 / compared, ex, values);
            problems += 1;
        }
        if let (n @ 1.., Some(ex)) = (rw.sack_untranslated, rw.sack_example) {
            rewrite(&mut out, FindingId::SackNotTranslated, 1.0, ex, vec![("dir", dir()), ("count", Value::Int(n as i64))]);
            problems += 1;
        }
        if let Some((wu, wd, ex)) = rw.window_example {
            let share = rw.window_changed as f64 / compared;
            let values = vec![("dir", dir()), ("share", Value::Share(share)), ("win_up", Value::Int(wu as i64)), ("win_down", Value::Int(wd as i64))];
            rewrite(&mut out, FindingId::WindowRewritten, share, ex, values);
            problems += 1;
        }
        if let Some((tu, td, ex)) = rw.ttl_example {
            let values = vec![("dir", dir()), ("ttl_up", Value::Int(tu as i64)), ("ttl_down", Value::Int(td as i64))];
            rewrite(&mut out, FindingId::TtlRewritten, 1.0, ex, values);
            problems += 1;
        }
        if let Some((du, dd, ex)) = rw.dscp_example {
            let share = rw.dscp_changed as f64 / compared;
            let values = vec![("dir", dir()), ("dscp_up", Value::Int(du as i64)), ("dscp_down", Value::Int(dd as i64))];
            rewrite(&mut out, FindingId::DscpRewritten, share, ex, values);
            problems += 1;
        }
        if let Some((_, ex)) = rw.ecn_example {
            let share = rw.ecn_bleached as f64 / compared;
            rewrite(&mut out, FindingId::EcnBleached, share, ex, vec![("dir", dir()), ("count", Value::Int(rw.ecn_bleached as i64))]);
            problems += 1;
        }
        if let Some(ex) = rw.ce_example {
            let share = rw.ce_marked as f64 / compared;
            rewrite(&mut out, FindingId::CeMarkedBetween, share, ex, vec![("dir", dir()), ("count", Value::Int(rw.ce_marked as i64))]);
        }
        if let Some(m) = p.matched {
            let d = p.client_dir_a ^ c;
            let shift = if st.a_upstream { m.shift[d] } else { m.shift[d].wrapping_neg() };
            if shift != 0 {
                out.push(Finding::pair(FindingId::IsnShifted, 1.0, vec![], vec![], vec![
                    ("dir", dir()),
                    ("shift", Value::Int(shift as i64)),
                    ("first", text(first.clone())),
                    ("second", text(second.clone())),
                ]));
            }
        }
        if st.split + st.merged > 0 {
            let (fa, fb) = split(&st.ev_resized);
            out.push(Finding::pair(FindingId::SegmentsResized, (st.split + st.merged) as f64 / st.delivered.max(1) as f64, fa, fb, vec![
                ("dir", dir()),
                ("split", Value::Int(st.split as i64)),
                ("merged", Value::Int(st.merged as i64)),
                ("first", text(first.clone())),
                ("second", text(second.clone())),
            ]));
        }
    }
    for (who, ends) in [(0, &p.client), (1, &p.server)] {
        if let [Some(x), Some(y)] = ends {
            if x != y {
                out.push(Finding::pair(FindingId::AddressTranslated, 1.0, vec![], vec![], vec![
                    ("who", text(WHO[who])),
                    ("addr_a", text(endpoint(*x))),
                    ("addr_b", text(endpoint(*y))),
                    ("first", text(labels[0].clone())),
                    ("second", text(labels[1].clone())),
                ]));
            }
        }
    }
    if problems == 0 && out.iter().all(|f| !matches!(f.id, FindingId::CaptureGap)) {
        let owd = |d: &DirStats| d.owd.map_or(text("unknown"), |o| Value::Ms(o.p50 as f64 / 1e6));
        out.push(Finding::pair(FindingId::PathClean, 0.0, vec![], vec![], vec![
            ("first", text(labels[0].clone())),
            ("second", text(labels[1].clone())),
            ("owd_0", owd(&p.dirs[0])),
            ("dir_0", text(DIRS[0])),
            ("owd_1", owd(&p.dirs[1])),
            ("dir_1", text(DIRS[1])),
        ]));
    }
    out
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_ascii_lowercase() => f.to_ascii_uppercase().to_string() + c.as_str(),
        _ => s.to_string(),
    }
}

/// A flow seen in one capture only: why, as far as the captures tell.
fn one_side(c: &Comparison, p: &Pair, labels: &[String; 2], spans: &[Option<(i64, i64)>; 2]) -> Vec<Finding> {
    let (i, stream) = match (p.a, p.b) {
        (Some(s), _) => (0, s),
        (_, Some(s)) => (1, s),
        _ => return Vec::new(),
    };
    let cap = if i == 0 { &c.a } else { &c.b };
    let fl = &cap.scan.flows[stream as usize];
    let packets = fl.sides[0].packets + fl.sides[1].packets;
    let to_a = |t: i64| if i == 0 { t } else { c.clock.b_to_a(t) };
    let (first, last) = (to_a(fl.first_ts_ns), to_a(fl.last_ts_ns));
    let other = &labels[1 - i];
    // Only SYNs, from one side, never answered.
    let syn_only = fl.sides.iter().all(|s| s.payload_bytes == 0 && !s.fin_seen)
        && fl.sides[0].syn_frame.is_some()
        && fl.sides[1].packets == 0;
    let reason = match spans[1 - i] {
        Some((f, l)) if last < f || first > l => format!("{other} was not capturing at that time"),
        None => format!("{other} holds no frame"),
        _ if syn_only => format!("its SYNs never appear in {other}: blocked between the captures, or routed another way"),
        _ => format!("none of its segments appears in {other}: it takes another path, or a middlebox rewrites it beyond recognition"),
    };
    let frames = vec![fl.first_frame];
    let (fa, fb) = if i == 0 { (frames, vec![]) } else { (vec![], frames) };
    vec![Finding::pair(FindingId::FlowOneSide, 1.0, fa, fb, vec![
        ("where", text(labels[i].clone())),
        ("packets", Value::Int(packets as i64)),
        ("reason", text(reason)),
    ])]
}

//! The per-flow verdict: time shares per limit state, the findings they support with
//! their evidence and arithmetic, and one primary finding. Finding ids and wording live
//! in catalogue/findings.toml; this module only decides which apply and with what values.

use super::flow_state::FlowState;
use super::notes::LimitState;
use super::vantage::Vantage;
use super::window::RwndBasis;
use crate::flow::FlowSummary;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Num(f64),
    Text(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Catalogue id (catalogue/findings.toml).
    pub id: &'static str,
    /// Share of the busy time this finding explains (0..1), for ranking.
    pub share: f64,
    /// Frames that show it (open in Wireshark with `frame.number == N`).
    pub frames: Vec<u64>,
    pub values: Vec<(&'static str, Value)>,
}

#[derive(Debug, Clone)]
pub struct FlowVerdict {
    pub data_dir: usize,
    pub vantage: Vantage,
    pub busy_ns: i64,
    pub state_ns: [i64; LimitState::ALL.len()],
    pub min_rtt_ns: Option<i64>,
    pub srtt_ns: Option<i64>,
    pub mean_rtt_ns: Option<i64>,
    pub mss: u32,
    pub data_bytes: u64,
    pub goodput_bps: f64,
    pub rwnd_min: Option<u64>,
    pub rwnd_max: u64,
    pub rwnd_basis: Option<RwndBasis>,
    pub retrans_segments: u64,
    pub spurious: u64,
    pub dsacks: u64,
    pub reorder_events: u64,
    pub max_reorder_ns: i64,
    pub recoveries: usize,
    pub zero_windows: u64,
    pub lost_before_bytes: u64,
    /// Findings, the primary first.
    pub findings: Vec<Finding>,
}

/// Below this much new data (in segments) a flow is too small to judge.
const MIN_SEGMENTS: u64 = 20;
/// A limit state must cover this share of the busy time to be a finding.
const MIN_SHARE: f64 = 0.25;
/// Windows at or above this are autotuning ceilings rather than a static SO_RCVBUF.
const STATIC_RWND_MAX: u64 = 4 << 20;
/// RTT inflation (smoothed ÷ minimum) that shows a standing bottleneck queue.
const QUEUE_INFLATION: f64 = 1.5;

fn mbit(bps: f64) -> String {
    format!("{:.1} Mbit/s", bps / 1e6)
}

/// How late reordered data was: measured directly (late originals, holes filled without a
/// retransmission), or, for retransmissions proven spurious, at least the time the sender
/// waited before resending less one round trip (the original was still missing then).
fn reorder_extent_ns(s: &super::sender::Sender) -> i64 {
    let min_rtt = s.rtt.min_ns.unwrap_or(0);
    let proven = s
        .retransmission_log()
        .filter(|r| r.proven as u8 != 0)
        .filter_map(|r| r.orig_ts_ns.map(|o| r.ts_ns - o - min_rtt))
        .max()
        .unwrap_or(0);
    s.max_reorder.late_ns.max(proven).max(0)
}

pub fn judge(fs: &FlowState, summary: &FlowSummary, vantage_override: Option<Vantage>) -> FlowVerdict {
    let dd = fs.data_dir();
    let s = &fs.senders[dd];
    let lim = &fs.limits[dd];
    let busy = lim.busy_ns().max(1);
    let share = |st: LimitState| lim.state_ns[st as usize] as f64 / busy as f64;
    let vantage = vantage_override.unwrap_or_else(|| match fs.handshake.vantage(dd) {
        Vantage::Unknown => fs.delays.vantage(dd),
        v => v,
    });
    let start = s.first_data_ns.unwrap_or(fs.first_ts);
    let end = s.last_ack_ns.max(s.last_send_ns);
    let secs = (end - start).max(1) as f64 / 1e9;
    let goodput = s.data_bytes as f64 * 8.0 / secs;
    let rtt = s.rtt.srtt_ns.or(s.rtt.mean_ns());
    let rtt_s = rtt.unwrap_or(0) as f64 / 1e9;
    let rtt_ms = Value::Num(rtt_s * 1e3);
    let mut v = FlowVerdict {
        data_dir: dd,
        vantage,
        busy_ns: lim.busy_ns(),
        state_ns: lim.state_ns,
        min_rtt_ns: s.rtt.min_ns,
        srtt_ns: s.rtt.srtt_ns,
        mean_rtt_ns: s.rtt.mean_ns(),
        mss: s.mss,
        data_bytes: s.data_bytes,
        goodput_bps: goodput,
        rwnd_min: fs.rwnd_min[dd],
        rwnd_max: fs.rwnd_max[dd],
        rwnd_basis: fs.rwnd_basis[dd],
        retrans_segments: s.retrans_segments,
        spurious: s.spurious,
        dsacks: s.dsacks,
        reorder_events: s.reorder_events,
        max_reorder_ns: reorder_extent_ns(s),
        recoveries: s.recoveries.len(),
        zero_windows: s.zero_windows,
        lost_before_bytes: s.lost_before_bytes,
        findings: Vec::new(),
    };
    let mss = s.mss.max(1) as u64;
    // In typical segments: TSO/GRO super-segments must not raise the bar.
    if s.data_bytes < MIN_SEGMENTS * mss.min(1460) || rtt.is_none() {
        v.findings.push(Finding {
            id: "not_limited",
            share: 1.0,
            frames: vec![summary.first_frame],
            values: vec![("reason", Value::Text(format!("too little data to judge ({} B)", s.data_bytes)))],
        });
        return v;
    }
    let mut f = Vec::new();

    // Receive window: zero windows, scaling absent, static buffer, or simply too small.
    let rwnd_share = share(LimitState::Rwnd) + share(LimitState::ZeroWindow);
    let rwnd = fs.rwnd_max[dd];
    let ceiling = |w: u64| Value::Text(mbit(w as f64 * 8.0 / rtt_s.max(1e-9)));
    if s.zero_windows > 0 && share(LimitState::ZeroWindow) > 0.05 {
        // A closed window is the cause of the rwnd limit around it: rank it above the
        // other window findings; above missing scaling too once it is closed most of
        // the busy time.
        let zw = share(LimitState::ZeroWindow);
        f.push(Finding {
            id: "zero_window_stall",
            share: rwnd_share.max(zw) + if zw >= 0.5 { 0.03 } else { 0.01 },
            frames: vec![lim.first_frame[LimitState::ZeroWindow as usize]],
            values: vec![
                ("count", Value::Int(s.zero_windows as i64)),
                ("stall_ms", Value::Num(lim.state_ns[LimitState::ZeroWindow as usize] as f64 / 1e6)),
                ("share", Value::Num(100.0 * share(LimitState::ZeroWindow))),
            ],
        });
    }
    if rwnd_share >= MIN_SHARE {
        // Time at a zero window counts here too: a flow whose window was only ever closed
        // has no frame in the rwnd state, so its first zero-window frame stands for it.
        let first = match lim.first_frame[LimitState::Rwnd as usize] {
            0 => lim.first_frame[LimitState::ZeroWindow as usize],
            n => n,
        };
        let frames = vec![first];
        let base = vec![("rwnd", Value::Int(rwnd as i64)), ("rtt_ms", rtt_ms.clone()), ("ceiling", ceiling(rwnd))];
        let wscale_off = summary.wscale_in_effect() == Some(false);
        // A static SO_RCVBUF: the window reached its maximum early (the kernel's first
        // ramp) and never grew again while the sender kept it full.
        let transfer = (end - start).max(1);
        let fixed = fs.rwnd_grew_ns[dd] - start < transfer / 4 && rwnd < STATIC_RWND_MAX;
        let (id, mut values) = if wscale_off && rwnd <= 65_535 {
            let who = match (summary.sides[0].syn.wscale, summary.sides[1].syn.wscale) {
                (None, None) => "neither SYN offered it",
                (None, _) => "the client's SYN lacks the option",
                _ => "the server's SYN/ACK lacks the option",
            };
            ("wscale_missing", [base.clone(), vec![("who", Value::Text(who.into()))]].concat())
        } else if fixed {
            ("rwnd_static", base.clone())
        } else {
            ("rwnd_limited", base.clone())
        };
        values.push(("share", Value::Num(100.0 * rwnd_share)));
        // Scaling off is the configuration fault behind the zero-window stalls' window too.
        let share = rwnd_share + if id == "wscale_missing" { 0.02 } else { 0.0 };
        f.push(Finding { id, share, frames, values });
    }

    // A standing queue (RTT well above its minimum) means the bottleneck is full: losses
    // there are its tail drops, not the cause of the slowness.
    let inflation = match (s.rtt.srtt_ns, s.rtt.min_ns) {
        (Some(a), Some(b)) if b > 0 => a as f64 / b as f64,
        _ => 1.0,
    };
    let queue_full = inflation >= QUEUE_INFLATION;

    // Retransmissions: spurious ones point at reordering, genuine ones at loss.
    let genuine = s.retrans_segments.saturating_sub(s.spurious);
    let loss_share = share(LimitState::Recovery) + share(LimitState::Cwnd) * 0.5;
    let spurious_recoveries = s.recoveries.iter().filter(|r| r.spurious > 0).count();
    if s.spurious > 0 && s.spurious * 2 >= s.retrans_segments {
        f.push(Finding {
            id: "reorder_limited",
            share: loss_share.max(0.3),
            frames: s.retransmission_log().filter(|r| r.proven as u8 != 0).take(3).map(|r| r.frame).collect(),
            values: vec![
                ("spurious", Value::Int(s.spurious as i64)),
                ("retrans", Value::Int(s.retrans_segments as i64)),
                ("cuts", Value::Int(spurious_recoveries as i64)),
                ("extent_ms", Value::Num(reorder_extent_ns(s) as f64 / 1e6)),
                ("rack_ms", Value::Num(s.rtt.min_ns.unwrap_or(0) as f64 / 4e6)),
            ],
        });
    }
    // The first slow start ended in a burst of losses; when that burst holds most of the
    // genuine losses, it — not a lossy path — explains them.
    let mut overshoot_explains_losses = false;
    if let Some(first) = s.recoveries.first() {
        let genuine_first = first.retransmissions.saturating_sub(first.spurious) as u64;
        if first.in_slow_start && first.retransmissions >= 4 && first.spurious * 2 < first.retransmissions {
            overshoot_explains_losses = genuine_first * 10 >= genuine * 7;
            let explained = if overshoot_explains_losses { loss_share + 0.01 } else { share(LimitState::Recovery) };
            f.push(Finding {
                id: "slow_start_overshoot",
                share: explained.max(MIN_SHARE + 0.01),
                frames: vec![first.start_frame],
                values: vec![
                    ("lost", Value::Int(first.retransmissions as i64)),
                    ("frame", Value::Int(first.start_frame as i64)),
                ],
            });
        }
    }
    if genuine > 0 && s.data_segments > 0 {
        let p = genuine as f64 / s.data_segments as f64;
        let mathis = (mss as f64 * 8.0 / rtt_s.max(1e-9)) * 1.22 / p.sqrt();
        if !overshoot_explains_losses && (share(LimitState::Recovery) > 0.1 || p > 0.001) {
            f.push(Finding {
                id: "loss_limited",
                share: if queue_full { loss_share.min(0.2) } else { loss_share },
                frames: s.retransmission_log().filter(|r| r.proven as u8 == 0).take(3).map(|r| r.frame).collect(),
                values: vec![
                    ("loss_pct", Value::Num(100.0 * p)),
                    ("recoveries", Value::Int(s.recoveries.len() as i64)),
                    ("mathis", Value::Text(mbit(mathis))),
                    ("rtt_ms", rtt_ms.clone()),
                ],
            });
        }
    }

    // Sender-side limits.
    if share(LimitState::Sndbuf) >= MIN_SHARE {
        f.push(Finding {
            id: "sndbuf_limited",
            share: share(LimitState::Sndbuf),
            frames: vec![lim.first_frame[LimitState::Sndbuf as usize]],
            values: vec![
                ("share", Value::Num(100.0 * share(LimitState::Sndbuf))),
                ("flight", Value::Int(fs.cwnd[dd].value as i64)),
                ("rwnd", Value::Int(rwnd as i64)),
                ("ceiling", ceiling(fs.cwnd[dd].value)),
            ],
        });
    }
    // The application's share counts its idle time too: of the whole transfer.
    let idle = lim.state_ns[LimitState::Idle as usize];
    let app_share = (lim.state_ns[LimitState::App as usize] + idle) as f64 / (busy + idle).max(1) as f64;
    if app_share >= MIN_SHARE {
        f.push(Finding {
            id: "app_limited",
            share: app_share,
            frames: vec![lim.first_frame[LimitState::App as usize].max(lim.first_frame[LimitState::Idle as usize])],
            values: vec![
                ("share", Value::Num(100.0 * app_share)),
                ("flight", Value::Int(fs.cwnd[dd].value as i64)),
            ],
        });
    }
    if share(LimitState::Cwnd) >= MIN_SHARE {
        if queue_full {
            f.push(Finding {
                id: "bandwidth_limited",
                share: share(LimitState::Cwnd) + share(LimitState::Recovery),
                frames: vec![lim.first_frame[LimitState::Cwnd as usize]],
                values: vec![
                    ("throughput", Value::Text(mbit(goodput))),
                    ("flight", Value::Int(fs.cwnd[dd].value as i64)),
                    ("min_rtt_ms", Value::Num(s.rtt.min_ns.unwrap_or(0) as f64 / 1e6)),
                    ("rtt_ms", rtt_ms.clone()),
                ],
            });
        }
    }
    if f.is_empty() {
        f.push(Finding {
            id: "not_limited",
            share: 0.0,
            frames: vec![summary.first_frame],
            values: vec![("reason", Value::Text("no limit state dominated the transfer".into()))],
        });
    }
    // A window that binds most of the busy time is the first thing to fix, whatever the
    // application does between transfers.
    let rank = |x: &Finding| {
        let window = matches!(x.id, "wscale_missing" | "rwnd_static" | "rwnd_limited" | "zero_window_stall");
        x.share + if window && x.share >= 0.5 { 1.0 } else { 0.0 }
    };
    f.sort_by(|a, b| rank(b).partial_cmp(&rank(a)).unwrap_or(std::cmp::Ordering::Equal));
    // The small bonuses above only order the findings; the share reported is of busy time.
    // A limit state never entered has no first frame (0): the flow's first frame stands in.
    for x in &mut f {
        x.share = x.share.clamp(0.0, 1.0);
        x.frames.retain(|&n| n != 0);
        if x.frames.is_empty() {
            x.frames.push(summary.first_frame);
        }
    }
    v.findings = f;
    v
}

#[cfg(test)]
mod tests {
    use super::super::catalogue::FINDING_IDS;

    #[test]
    fn every_finding_id_used_here_is_in_the_catalogue() {
        let src = include_str!("verdict.rs");
        let mut n = 0;
        for part in src.split("id: \"").skip(1) {
            let id = &part[..part.find('"').unwrap()];
            assert!(FINDING_IDS.contains(&id), "{id} missing from catalogue/findings.toml");
            n += 1;
        }
        assert!(n >= 9);
    }
}

//! The per-flow verdict: time shares per limit state, the findings they support with
//! their evidence and arithmetic, and one primary finding. Finding ids and wording live
//! in catalogue/findings.toml; this module only decides which apply and with what values.

use super::catalogue::FindingId;
use super::ceiling::{Ceiling, Limit, PathRtt};
use super::congestion::{CcInference, CongestionControl};
use super::delivery::DeliveryRate;
use super::finding::{Finding, Value};
use super::limit::{LimitTracker, Pauses};
use super::flow_state::FlowState;
use super::notes::LimitState;
use super::units;
use super::vantage::Vantage;
use super::rtt::RttEstimator;
use super::window::{RwndBasis, Scaling, MAX_SHIFT};
use crate::flow::FlowSummary;

/// What the caller decides for every flow: a vantage forced by the user, and the rate the
/// ceiling arithmetic should size buffers for.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct JudgeOptions {
    pub vantage: Option<Vantage>,
    pub target_bps: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct FlowVerdict {
    pub data_dir: usize,
    pub vantage: Vantage,
    pub busy_ns: i64,
    /// Time per state as Linux's chronos count it (limit.rs `chrono_state_ns`): the time
    /// the window was full while the sender's pacing clock still ran is busy there, here
    /// the congestion controller's, and `rwnd_paced_ns` says how much that was. The window
    /// findings count it as the window's: the pacing rate follows the delivery rate the
    /// window allows.
    pub state_ns: [i64; LimitState::ALL.len()],
    pub rwnd_paced_ns: i64,
    /// Time the sender had data outstanding that the capture point did not yet see (on
    /// the bottleneck before it, in a short queue on the sender's host): neither idle nor
    /// any state's here, outside the busy time the shares divide.
    pub unseen_ns: i64,
    pub min_rtt_ns: Option<i64>,
    pub srtt_ns: Option<i64>,
    pub mean_rtt_ns: Option<i64>,
    pub mss: u32,
    pub data_bytes: u64,
    pub goodput_bps: f64,
    /// The bottleneck's rate as the densest delivery stretches show it (delivery.rs).
    pub capacity_bps: Option<f64>,
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
    /// The sender's congestion control as its behaviour shows it (congestion.rs).
    pub cc: CcInference,
    /// Findings, the primary first.
    pub findings: Vec<Finding>,
    /// The arithmetic behind the primary finding (none for a flow too small to judge).
    pub ceiling: Option<Ceiling>,
    /// Seconds from the flow's first to its last packet.
    pub duration_s: f64,
}

impl FlowVerdict {
    pub fn primary(&self) -> &Finding {
        &self.findings[0]
    }

    /// "12.3 MB in 3.1 s = 31.7 Mbit/s goodput; RTT min 40 ms / avg 42 ms; 9 retransmissions"
    /// ("no RTT measured" where no segment was timed: no "?" for a figure not had).
    pub fn transfer_line(&self) -> String {
        let ms = |n: i64| units::ms(n as f64 / 1e6);
        let rtt = match (self.min_rtt_ns, self.mean_rtt_ns) {
            (Some(min), Some(avg)) => format!("RTT min {} / avg {}", ms(min), ms(avg)),
            (Some(min), None) => format!("RTT min {}", ms(min)),
            _ => "no RTT measured".to_string(),
        };
        format!(
            "{} in {} = {} goodput; {rtt}; {} retransmissions",
            units::size(self.data_bytes as f64),
            units::seconds(self.duration_s),
            units::rate(self.goodput_bps),
            units::grouped(self.retrans_segments as i64)
        )
    }

    /// "receive window 95%, application 4% of 3.1 s busy": the busy states by share of the
    /// busy time, then the idle time (not a share of the busy time: the sender had nothing
    /// outstanding then).
    pub fn time_line(&self) -> String {
        let mut states: Vec<(LimitState, f64)> = LimitState::ALL
            .iter()
            .filter(|st| st.busy())
            .map(|&st| (st, self.share(st)))
            .filter(|&(_, x)| x >= SHOWN_SHARE)
            .collect();
        states.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        let mut line = if states.is_empty() {
            "no busy time measured".to_string()
        } else {
            let parts: Vec<String> = states.iter().map(|(st, x)| format!("{} {}", st.words(), units::percent(*x))).collect();
            format!("{} of {} busy", parts.join(", "), units::seconds(self.busy_ns as f64 / 1e9))
        };
        let paced = self.rwnd_paced_ns as f64 / self.busy_ns.max(1) as f64;
        if paced >= SHOWN_SHARE {
            line += &format!(
                "; the receive window full a further {} while the sender's pacing clock ran (congestion window time, as Linux counts it)",
                units::percent(paced)
            );
        }
        let idle = self.state_ns[LimitState::Idle as usize];
        if idle as f64 >= SHOWN_SHARE * (self.busy_ns + idle) as f64 {
            line += &format!("; idle (nothing outstanding) {}", units::seconds(idle as f64 / 1e9));
        }
        if self.unseen_ns as f64 >= SHOWN_SHARE * (self.busy_ns + idle + self.unseen_ns) as f64 {
            line += &format!("; data outstanding before this capture point saw it {}", units::seconds(self.unseen_ns as f64 / 1e9));
        }
        line
    }

    /// Share of the busy time spent in `state` (0 for the states outside busy time).
    pub fn share(&self, state: LimitState) -> f64 {
        if !state.busy() {
            return 0.0;
        }
        self.state_ns[state as usize] as f64 / self.busy_ns.max(1) as f64
    }
}

/// Below this much new data (in segments) a flow is too small to judge.
const MIN_SEGMENTS: u64 = 20;
/// Reordering mistaken for loss is a pattern, not one late segment: at least DupThresh
/// (RFC 5681 §3.2) retransmissions proven spurious, a single one costs at most one cwnd cut
/// that Linux undoes on the D-SACK.
const MIN_SPURIOUS: u64 = 3;
/// A limit state must cover this share of the busy time to be a finding.
const MIN_SHARE: f64 = 0.25;
/// Windows at or above this are autotuning ceilings rather than a static SO_RCVBUF.
const STATIC_RWND_MAX: u64 = 4 << 20;
/// Without window scaling the field caps the window at 65,535 B; a receiver whose window
/// never reached half of that was held by its own buffer first (an 8 KB socket buffer is
/// the fix before scaling is).
const UNSCALED_CAP_NEAR: u64 = 32_768;
/// The first recovery, at the end of slow start, explains the flow's losses when it holds at
/// least this share of the genuine ones: the overshoot was at least as big as the rest.
const OVERSHOOT_LOSS_SHARE: f64 = 0.5;
/// A burst, not a stray drop or two at slow start's end: this many segments resent in that
/// first recovery.
const OVERSHOOT_MIN_LOSSES: u32 = 5;
/// Genuine losses count on their own when recovery took more than this share of the busy
/// time, or more than this share of the segments was lost.
const LOSS_RECOVERY_SHARE: f64 = 0.1;
const LOSS_RATE: f64 = 0.001;
/// A reader held the sender when the window was held at half its peak or less (at least
/// as much unread data as room offered) for this share of the busy time, or when the window
/// that limited the sender was that low on average ([`SLOW_READER_FILL`]).
const SLOW_READER_HELD: f64 = 0.5;

/// The window a slow reader held open, and its share of the largest advertised before it:
/// while held down when that was most of the busy time or when it paced the sender
/// (`paced`), else while it limited the sender if it was low then. `None`: no reader held
/// the sender.
fn slow_reader(lim: &LimitTracker, held_share: f64, paced: bool, peak: u64) -> Option<(u64, f64, u64)> {
    if held_share >= SLOW_READER_HELD || paced {
        return lim.held_down_rwnd();
    }
    let fill = lim.limiting_rwnd_fill().filter(|&f| f <= SLOW_READER_FILL)?;
    Some((lim.limiting_rwnd().unwrap_or(peak), fill, lim.limiting_rwnd_peak().unwrap_or(peak)))
}

/// A receive window whose SYN scale is this many shifts above the smallest that expresses
/// the largest window advertised stopped at a maximum the stack did not plan for. A buffer
/// fixed before the handshake stays within one: the shift is the smallest that covers the
/// buffer, and the kernel advertises at least half of its buffer.
const SPARE_SHIFTS: u8 = 2;
/// The capacity estimate: this percentile of the delivery-rate samples (delivery.rs).
pub(super) const CAPACITY_PERCENTILE: f64 = 0.9;
/// A window held at or below this share of the largest one advertised before it, while it
/// limited the sender, was full of data the receiving application had not read.
const SLOW_READER_FILL: f64 = 0.5;
/// RTT inflation (smoothed ÷ minimum) that shows a standing bottleneck queue.
const QUEUE_INFLATION: f64 = 1.5;
/// Smoothed RTT over its minimum that shows a queue at all.
const QUEUE_SIGN: f64 = 1.25;
/// A flow delivering at least this share of the bottleneck's rate kept it full.
const FULL_LINK: f64 = 0.85;
/// A capacity this much above what the flow sustained over 100 ms windows, and above its
/// own 16-ACK percentile, timed a token bucket's bursts (delivery.rs `SUSTAIN_NS`).
const BURST_OVER_SUSTAINED: f64 = 1.2;
/// ... and the median window at least this share of that rate: the flow kept the queue.
const STEADY_WINDOWS: f64 = 0.9;
/// The congestion window held the sender this share of its busy time: its pace was the
/// path's when it was also at its top rate.
const CWND_HELD: f64 = 0.5;
/// Losses whose Mathis figure is more than this multiple of the flow's rate did not keep
/// its window down. (Of the 37 loss findings on the tuning runs' sender captures the
/// figure was at most 7.2× the goodput where loss was the primary finding, 13.5× once as
/// a secondary one; a bulk flow on a veth with one loss in 96,000 segments: 170×.)
const KEPT_DOWN_MATHIS: f64 = 10.0;
/// On a full link, reordering costs nothing the path could have given: its finding is held
/// to this share, below any primary. (A flat flight's time there is the path's.)
const FULL_LINK_SECONDARY: f64 = 0.2;
/// "Near the bottleneck's rate": where a slow start or startup has ended.
const NEAR_CAPACITY: f64 = 0.8;
/// That stretch stands for the flow when it covers this share of its delivery time, or
/// this many round trips: a long path's slow start (seconds of doubling) may leave a
/// shorter share after it, yet rounds enough to show the queue's steady state.
const STRETCH_SHARE: f64 = 0.3;
const STRETCH_RTTS: f64 = 5.0;

/// Whether losses whose Mathis figure is `mathis_bps` could have held down the window of a
/// flow that carried `goodput` (with no RTT to work the figure out, they may have).
fn losses_could_hold(mathis_bps: Option<f64>, goodput: f64) -> bool {
    mathis_bps.is_none_or(|m| m <= KEPT_DOWN_MATHIS * goodput)
}

/// The rate of a token bucket (a `tc` shaper, a policer) the capacity `c` timed the bursts
/// of, if it did. A bucket lets bursts through at the line's rate between refills: trains
/// time the line, not the bucket, and packet pairs with them unless a pair cluster agrees
/// with the 16-ACK percentile. Behind a queue that never drained (the caller's: a queue
/// stood and nothing was resent — each recovery, spurious ones too, cuts the window and
/// drains it) the bottleneck was busy throughout, at one rate in every window: what the
/// flow sustained over 100 ms windows, most of them within `STEADY_WINDOWS` of the busiest.
fn bucket_rate(d: &DeliveryRate, c: f64, downstream: bool) -> Option<f64> {
    let corroborated = d.capacity_from_pairs(CAPACITY_PERCENTILE, downstream)
        && d.percentile_bps(CAPACITY_PERCENTILE).is_some_and(|p| c <= p * BURST_OVER_SUSTAINED);
    let l = d.sustained_bps(CAPACITY_PERCENTILE)?;
    let steady = d.sustained_bps(0.5).is_some_and(|m| m >= l * STEADY_WINDOWS);
    (c > l * BURST_OVER_SUSTAINED && !corroborated && steady).then_some(l)
}

/// Whether the stretch after the flow first came near the capacity (`share` of its
/// delivery time, `span_ns` long) stands for it, on a path of `rtt_ms` (mean) if known.
fn steady_stretch_stands(share: f64, span_ns: i64, rtt_ms: Option<f64>) -> bool {
    share >= STRETCH_SHARE || rtt_ms.is_some_and(|r| span_ns as f64 >= STRETCH_RTTS * r * 1e6)
}
/// The application, not the path, set the transfer's pace when the sender paused
/// (limit.rs, `MIN_PAUSE_NS`: nothing outstanding, all it sent acknowledged) at least
/// `APP_PAUSES` times, idle for at least `APP_IDLE_SHARE` of the transfer, and never went
/// longer than `APP_RUN_SHARE` of it without a pause: the path kept delivering everything it
/// was given, whatever slowed each burst. A sender with a backlog (bulk data behind a loss,
/// a full link or a send buffer) never empties.
const APP_PAUSES: u32 = 2;
const APP_IDLE_SHARE: f64 = 0.1;
const APP_RUN_SHARE: f64 = 0.5;
/// Whether the application paced the transfer `[start, end]`: its `pauses`, `paused_ns` of
/// idle time in them. Gaps shorter than `MIN_PAUSE_NS` count for nothing: past a shaper the
/// capture point does not see, each segment is acknowledged before the next leaves it.
fn app_paced(pauses: &Pauses, paused_ns: i64, start: i64, end: i64) -> bool {
    let transfer = (end - start).max(1);
    pauses.count >= APP_PAUSES
        && paused_enough(paused_ns, transfer)
        && pauses.longest_run_ns(start, end) as f64 <= APP_RUN_SHARE * transfer as f64
}
/// Whether `paused_ns` in pauses is the `APP_IDLE_SHARE` of a `transfer_ns` long transfer
/// an application's pace needs.
fn paused_enough(paused_ns: i64, transfer_ns: i64) -> bool {
    paused_ns as f64 >= APP_IDLE_SHARE * transfer_ns as f64
}
/// Who set an application's pace: its peer's requests when the sender answered new data
/// from the peer at least `APP_ANSWERS` times and at least as often as it paused with
/// nothing asked; its own writes when it answered at most once (a download's one request)
/// or paused unasked at least twice as often as it answered. Between the two: not told.
const APP_ANSWERS: u32 = 3;
/// Limit states below this share are left out of the time line.
const SHOWN_SHARE: f64 = 0.005;

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

/// The values a finding's sentences are filled from, less those this capture could not
/// give: their clause is left out of the sentence (finding.rs `fill`), not shown as "?".
fn known(values: Vec<(&'static str, Option<Value>)>) -> Vec<(&'static str, Value)> {
    values.into_iter().filter_map(|(name, v)| v.map(|v| (name, v))).collect()
}

/// The end-to-end round trip of the data direction, and where it came from: the ACK clock
/// with the capture point's ACK→data delay added (known from timestamp echoes or the
/// handshake), the ACK clock alone at the sender, or the handshake. At a receiver or in the
/// middle without any of these, the ACKs only time the capture point's side of the path: no
/// end-to-end RTT, and no ceiling is claimed.
fn path_rtt(fs: &FlowState, dd: usize, vantage: Vantage) -> Option<(PathRtt, Option<&RttEstimator>)> {
    let s = &fs.senders[dd];
    fn from<'a>(e: &'a RttEstimator, source: &'static str) -> Option<(PathRtt, Option<&'a RttEstimator>)> {
        let p = PathRtt { rtt_ms: e.mean_ns()? as f64 / 1e6, min_rtt_ms: e.min_ns? as f64 / 1e6, source };
        Some((p, Some(e)))
    }
    if s.e2e.samples > 0 {
        let source = if s.a2d.samples > 0 { "ACKs and timestamp echoes" } else { "ACKs and the handshake" };
        return from(&s.e2e, source);
    }
    if vantage == Vantage::SenderSide && s.rtt.samples > 0 {
        return from(&s.rtt, "ACKs at the sender");
    }
    let h = fs.handshake.rtt_ns()? as f64 / 1e6;
    Some((PathRtt { rtt_ms: h, min_rtt_ms: h, source: "the handshake" }, None))
}

/// The shift the receiver's windows are scaled by, when its handshake was captured and
/// scaling is in effect, if it is at least [`SPARE_SHIFTS`] above the smallest shift that
/// expresses `window`: a stack picks the smallest shift that covers the largest buffer it
/// plans for (Linux: an SO_RCVBUF set before the handshake, else the autotuning maximum), so
/// a window that never needed it stopped at a maximum the stack did not plan for.
fn spare_scale(fs: &FlowState, dd: usize, window: u64) -> Option<u8> {
    // The windows limiting direction dd are advertised by the other side.
    let Some(Scaling::Negotiated(shift)) = fs.scaling[1 - dd] else { return None };
    let needed = (0..=MAX_SHIFT).find(|&s| (u16::MAX as u64) << s >= window).unwrap_or(MAX_SHIFT);
    (shift >= needed + SPARE_SHIFTS).then_some(shift)
}

fn ms(ns: i64) -> Value {
    Value::Ms(ns as f64 / 1e6)
}

pub fn judge(fs: &FlowState, summary: &FlowSummary, opts: JudgeOptions) -> FlowVerdict {
    let dd = fs.data_dir();
    let s = &fs.senders[dd];
    let lim = &fs.limits[dd];
    // The window's time includes the window-full time a pacing clock ran (above).
    let state_ns = lim.final_state_ns();
    let chrono_ns = lim.chrono_state_ns();
    let busy = lim.busy_ns().max(1);
    let share = |st: LimitState| state_ns[st as usize] as f64 / busy as f64;
    let vantage = opts.vantage.unwrap_or_else(|| match fs.handshake.vantage(dd) {
        Vantage::Unknown => s.echo_vantage().unwrap_or_else(|| fs.delays.vantage(dd)),
        v => v,
    });
    let start = s.first_data_ns.unwrap_or(fs.first_ts);
    let end = s.last_ack_ns.max(s.last_send_ns);
    let transfer = (end - start).max(1);
    let secs = transfer as f64 / 1e9;
    let goodput = s.data_bytes as f64 * 8.0 / secs;
    let chosen = path_rtt(fs, dd, vantage);
    let path = chosen.map(|(p, _)| p);
    let rtt = path.map(|p| Value::Ms(p.rtt_ms));
    // The application's share counts its idle time too: of the whole transfer. Only its
    // pauses (`MIN_PAUSE_NS`): past a shaper the capture point does not see, each segment
    // is acknowledged before the next leaves it, and a link kept full shows nothing
    // outstanding between them.
    let idle = state_ns[LimitState::Idle as usize];
    let paused = lim.pauses.idle_ns.min(idle);
    let app_share_of = |app_ns: i64| (app_ns + paused) as f64 / (busy + paused).max(1) as f64;
    let mut app_share = app_share_of(state_ns[LimitState::App as usize]);
    // The flow's RTT figures are the path's, not the capture point's side of it.
    let ns = |ms: f64| (ms * 1e6) as i64;
    let mut v = FlowVerdict {
        data_dir: dd,
        vantage,
        busy_ns: lim.busy_ns(),
        state_ns: chrono_ns,
        rwnd_paced_ns: state_ns[LimitState::Rwnd as usize] - chrono_ns[LimitState::Rwnd as usize],
        unseen_ns: lim.unseen_ns,
        min_rtt_ns: path.map(|p| ns(p.min_rtt_ms)),
        srtt_ns: chosen.and_then(|(_, e)| e?.srtt_ns),
        mean_rtt_ns: path.map(|p| ns(p.rtt_ms)),
        mss: s.mss,
        data_bytes: s.data_bytes,
        goodput_bps: goodput,
        capacity_bps: s.delivery.capacity_bps(CAPACITY_PERCENTILE, vantage == Vantage::ReceiverSide),
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
        cc: fs.cc[dd].infer(
            |i| s.recoveries.get(i).is_some_and(|r| r.spurious > 0),
            vantage == Vantage::SenderSide,
            share(LimitState::Sndbuf) >= MIN_SHARE,
        ),
        findings: Vec::new(),
        ceiling: None,
        duration_s: summary.duration_ns() as f64 / 1e9,
    };
    let mss = s.mss.max(1) as u64;
    // In typical segments: TSO/GRO super-segments must not raise the bar.
    if s.data_bytes < MIN_SEGMENTS * mss.min(1460) {
        let values = vec![("reason", Value::text("too little data to judge")), ("data", Value::Bytes(s.data_bytes))];
        v.findings.push(Finding::new(FindingId::NotLimited, 1.0, vec![summary.first_frame], values));
        return v;
    }
    let mut f = Vec::new();

    // Receive window: zero windows, scaling absent, static buffer, or simply too small.
    let rwnd_share = share(LimitState::Rwnd) + share(LimitState::ZeroWindow);
    // Busy time with the window held at half its peak or less. A pacing sender (BBR) sends
    // at the rate the reader drains and seldom fills the window it leaves, so this, not the
    // window-bound time, shows a reader setting the pace.
    let held_share = lim.held_down.ns as f64 / busy as f64;
    // Busy time a held-down window paced the sender without stopping it (limit.rs,
    // HELD_WINDOW_FILL): the reader's too, though not window-bound time.
    let paced_share = lim.reader_paced_ns as f64 / busy as f64;
    let reader_share = (rwnd_share + paced_share).max(held_share);
    // The reader, not the window's edge, brings the window findings past their threshold.
    let reader_paced = rwnd_share < MIN_SHARE && rwnd_share + paced_share >= MIN_SHARE;
    let rwnd = fs.rwnd_max[dd];
    let rwnd_ceiling = Ceiling::compute(Limit::Rwnd, Some(rwnd), None, path, goodput, opts.target_bps);
    let ceiling_value = |c: &Ceiling| c.ceiling_bps.map(Value::Rate);
    // The largest window seen, stated as above a flight only where it was: a scale
    // inferred away from the sender is a lower bound the flight may have passed.
    let rwnd_above = |flight: u64| (rwnd > flight).then_some(Value::Bytes(rwnd));
    if s.zero_windows > 0 && share(LimitState::ZeroWindow) > 0.05 {
        // A closed window is the cause of the rwnd limit around it: rank it above the
        // other window findings; above missing scaling too once it is closed most of
        // the busy time.
        let zw = share(LimitState::ZeroWindow);
        f.push(Finding::new(
            FindingId::ZeroWindowStall,
            rwnd_share.max(zw) + if zw >= 0.5 { 0.03 } else { 0.01 },
            vec![lim.first_frame[LimitState::ZeroWindow as usize]],
            vec![
                ("count", Value::Int(s.zero_windows as i64)),
                ("stall", ms(state_ns[LimitState::ZeroWindow as usize])),
                ("share", Value::Share(zw)),
            ],
        ));
    }
    if rwnd_share >= MIN_SHARE || held_share >= SLOW_READER_HELD || reader_paced {
        // Time at a zero window counts here too: a flow whose window was only ever closed
        // has no frame in the rwnd state, so its first zero-window frame stands for it.
        let first = match lim.first_frame[LimitState::Rwnd as usize] {
            0 => lim.first_frame[LimitState::ZeroWindow as usize],
            n => n,
        };
        let frames = vec![first];
        let mut values = known(vec![
            ("rwnd", Some(Value::Bytes(rwnd))),
            ("rtt", rtt.clone()),
            ("ceiling", ceiling_value(&rwnd_ceiling)),
            ("share", Some(Value::Share(rwnd_share))),
        ]);
        let wscale_off = summary.wscale_in_effect() == Some(false);
        // Handshake not captured: a window that held the sender at exactly 65,535 B with no
        // flight ever proving a shift is the field's maximum unscaled.
        let unscaled_max = summary.wscale_in_effect().is_none()
            && fs.scaling[1 - dd] == Some(Scaling::Unknown { min_shift: 0 })
            && rwnd == u16::MAX as u64;
        // A static SO_RCVBUF: the window reached its maximum early (the kernel's first
        // ramp) and never grew again while the sender kept it full. Only in a capture from
        // the handshake: begun mid-transfer, the window may have grown before it, up to an
        // autotuning maximum, and which of the two held it the capture cannot tell.
        let fixed = s.syn_seen && fs.rwnd_grew_ns[dd] - start < transfer / 4 && rwnd < STATIC_RWND_MAX;
        // Both SYNs carry the option here, yet the sender stopped at the field unscaled.
        let stripped = matches!(fs.scaling[1 - dd], Some(Scaling::Stripped(_)));
        let capped = wscale_off && (UNSCALED_CAP_NEAR..=u16::MAX as u64).contains(&rwnd);
        let id = if !reader_paced && (capped || unscaled_max || stripped) {
            let who = match (summary.sides[0].syn.wscale, summary.sides[1].syn.wscale) {
                _ if unscaled_max => "handshake not captured; the window stayed at 65,535 B, the most an unscaled window offers — or one scaled by 0: a receive buffer of 64 KB or less when the connection opened",
                _ if stripped && dd == 0 => "both SYNs carry it here, but the sender's flight stopped at the window field unscaled: the server's SYN/ACK loses the option between this capture point and the client",
                _ if stripped => "both SYNs carry it here, but the sender's flight stopped at the window field unscaled: the client's SYN loses the option between this capture point and the server",
                (None, None) => "neither SYN offered it",
                (None, _) => "the client's SYN lacks the option",
                _ => "the server's SYN/ACK lacks the option",
            };
            values.push(("who", Value::text(who)));
            FindingId::WscaleMissing
        } else if let Some((open, fill, peak)) = slow_reader(lim, held_share, reader_paced, rwnd) {
            // The reader's pace, not window ÷ RTT, set the rate: no ceiling to state. The
            // window shown is the one open while it held the sender, and the peak the one it
            // was a share of then, not the largest of the flow.
            values = vec![
                ("share", Value::Share(reader_share)),
                ("rwnd", Value::Bytes(open)),
                ("fill", Value::Share(fill)),
                ("peak", Value::Bytes(peak)),
            ];
            FindingId::RwndSlowReader
        } else if let Some(shift) = spare_scale(fs, dd, rwnd) {
            // The receiver's stack sized its SYN's window scale for a buffer several times
            // larger than the window ever got: its buffer stopped at a configured maximum
            // (a static SO_RCVBUF set before the handshake shapes the scale to itself).
            values.push(("shift", Value::Int(shift as i64)));
            values.push(("room", Value::Bytes((u16::MAX as u64) << shift)));
            FindingId::RwndAutotuneCeiling
        } else if fixed {
            FindingId::RwndStatic
        } else {
            FindingId::RwndLimited
        };
        // Scaling off is the configuration fault behind the zero-window stalls' window too.
        let share = match id {
            FindingId::WscaleMissing => rwnd_share + 0.02,
            FindingId::RwndSlowReader => reader_share,
            _ => rwnd_share,
        };
        f.push(Finding::new(id, share, frames, values));
    }

    // A standing queue (RTT well above its minimum) means the bottleneck is full: losses
    // there are its tail drops, not the cause of the slowness.
    let inflation = match (s.rtt.srtt_ns, s.rtt.min_ns) {
        (Some(a), Some(b)) if b > 0 => a as f64 / b as f64,
        _ => 1.0,
    };
    let queue_full = inflation >= QUEUE_INFLATION;
    // A measured capacity needs a sign that the bottleneck, not the sender, set the pace
    // (`link_full` below): its queue (RTT above its floor) or its tail drops. A drop is a
    // tail drop when a queue stood as it began (one with the RTT at its floor is the
    // path's own: a random loss) — told only where the capture saw the path's floor, its
    // handshake: begun mid-transfer, the least RTT seen may be a standing queue's.
    let mean_over_min = path.map_or(inflation, |p| p.rtt_ms / p.min_rtt_ms.max(1e-3));
    let floor_seen = fs.handshake.rtt_ns().is_some();
    let tail_drops = s.recoveries.iter().any(|r| {
        r.retransmissions > r.spurious
            && (!floor_seen || r.rtt_over_floor.is_none_or(|q| q as f64 >= QUEUE_SIGN))
    });
    let queue_signs = mean_over_min >= QUEUE_SIGN || tail_drops;
    // Where a queue stood, nothing was resent and the application did not pace the flow,
    // a token bucket's rate may stand in for the rate its bursts timed.
    if queue_signs && s.retrans_segments == 0 && app_share < MIN_SHARE {
        if let Some(rate) = v.capacity_bps.and_then(|c| bucket_rate(&s.delivery, c, vantage == Vantage::ReceiverSide)) {
            v.capacity_bps = Some(rate);
        }
    }
    // How busy the flow kept the bottleneck once it first came near its rate (after slow
    // start), or since its rate stopped growing short of it (startup.rs: a loss's cut,
    // then a slow climb or a stall); the whole transfer's rate when that stretch is too
    // short to stand for it.
    let steady_rate = v
        .capacity_bps
        .and_then(|c| s.delivery.rate_since_near(c, NEAR_CAPACITY, s.startup.end_point()))
        .filter(|&(_, share, span_ns)| steady_stretch_stands(share, span_ns, path.map(|p| p.rtt_ms)))
        .map_or(goodput, |(r, _, _)| r);
    // The bottleneck carries every copy that crosses it: a spurious retransmission's data
    // twice, a dropped copy never.
    let carried_rate = steady_rate * (1.0 + s.spurious_bytes as f64 / s.data_bytes.max(1) as f64);
    let link_busy = v.capacity_bps.map(|c| (carried_rate / c).min(1.0));
    // A full bottleneck explains the flow's pace: its losses are tail drops, its
    // reordering and its slow start's end cost it nothing the path could have given.
    // The RTT's growth stands in only where no capacity could be measured: a queue may
    // be someone else's. A measured one needs `queue_signs` (above), since a sender that
    // never bursts shows its own rate in every stretch of ACKs.
    // So does a sender its congestion window held most of the time at its top rate: a
    // window the path could carry more of would have grown (Reno, CUBIC) or been probed
    // past (BBR). (A capture that starts mid-transfer may never see the queue's floor.)
    // Not when its flight also sat flat for long: a send buffer's plateau paces it too.
    let window_held = share(LimitState::Cwnd) >= CWND_HELD && share(LimitState::Sndbuf) < MIN_SHARE;
    // Away from the sender, where no flat flight can be told the congestion window's or the
    // buffer's, in a capture begun mid-transfer (the RTT's floor unseen, so a standing
    // queue shows no growth): a flight held flat most of the time on a link packet pairs
    // timed is the link's when it ran that link full.
    let flat_on_timed_link = vantage != Vantage::SenderSide
        && fs.handshake.rtt_ns().is_none()
        && s.delivery.capacity_from_pairs(CAPACITY_PERCENTILE, vantage == Vantage::ReceiverSide)
        && share(LimitState::Cwnd) + share(LimitState::Sndbuf) >= CWND_HELD;
    // Without a measured capacity, a queue says the link was full while the flow sent —
    // not over a transfer spent mostly in pauses with nothing outstanding (a writer's
    // bursts queue at the bottleneck, then the link idles between them). Gaps under a
    // millisecond are no such pause: past a shaper whose queue the capture point does not
    // see, each segment is acknowledged before the next leaves it, and a full link shows
    // nothing outstanding most of the time. (`paused`: the pauses' idle time, as every rule
    // here reads it.)
    let busy_mostly = paused < lim.busy_ns();
    let link_full = link_busy.map_or(queue_full && busy_mostly, |b| b >= FULL_LINK && (queue_signs || window_held || flat_on_timed_link));
    // On a full link a flat flight is the path's pace, not the buffer's: a larger buffer
    // would only lengthen the queue (BBR's flight, held at twice its estimate of the path's
    // BDP, looks the same). Its time is the congestion window's, in the shares shown too.
    // So is the time it had nothing to send, up to the time data was outstanding before
    // this capture point saw it (`unseen_ns`: in a queue the point does not see, a shaper's
    // on the sender's host or the bottleneck's), where the sender hardly paused (`paused`,
    // the idle time in gaps of `MIN_PAUSE_NS` that the application's share counts, under the
    // `APP_IDLE_SHARE` of the transfer an application's pace needs) and answered no
    // requests: what it handed TCP then sat in that queue, which the link drained as fast
    // as it could. A request loop, or a writer on its own clock, pauses between its bursts;
    // one whose next write comes before its last is acknowledged waits on its own clock
    // far longer than its segments wait on the link.
    let hardly_paused = !paused_enough(paused, transfer) && lim.answers <= 1;
    let mut state_ns = state_ns;
    if link_full {
        for times in [&mut state_ns, &mut v.state_ns] {
            times[LimitState::Cwnd as usize] += std::mem::take(&mut times[LimitState::Sndbuf as usize]);
            if hardly_paused {
                let queued = times[LimitState::App as usize].min(lim.unseen_ns);
                times[LimitState::App as usize] -= queued;
                times[LimitState::Cwnd as usize] += queued;
            }
        }
        app_share = app_share_of(state_ns[LimitState::App as usize]);
    }
    let share = |st: LimitState| state_ns[st as usize] as f64 / busy as f64;

    // Retransmissions: spurious ones point at reordering, genuine ones at loss.
    let genuine = s.retrans_segments.saturating_sub(s.spurious);
    let loss_share = share(LimitState::Recovery) + share(LimitState::Cwnd) * 0.5;
    let spurious_recoveries = s.recoveries.iter().filter(|r| r.spurious > 0).count();
    if s.spurious >= MIN_SPURIOUS && s.spurious * 2 >= s.retrans_segments {
        f.push(Finding::new(
            FindingId::ReorderLimited,
            if link_full { loss_share.min(FULL_LINK_SECONDARY) } else { loss_share.max(0.3) },
            s.retransmission_log().filter(|r| r.proven as u8 != 0).take(3).map(|r| r.frame).collect(),
            vec![
                ("spurious", Value::Int(s.spurious as i64)),
                ("retrans", Value::Int(s.retrans_segments as i64)),
                ("cuts", Value::Int(spurious_recoveries as i64)),
                ("extent", ms(reorder_extent_ns(s))),
                ("rack", ms(s.rtt.min_ns.unwrap_or(0) / 4)),
            ],
        ));
    }
    // The first slow start ended in a burst of losses; when that burst holds most of the
    // genuine losses, it — not a lossy path — explains them.
    let mut overshoot_explains_losses = false;
    // The recovery that ended the first slow start: the first not undone.
    if let Some(first) = s.recoveries.iter().find(|r| !r.undone()) {
        // A BBR sender keeps STARTUP's gain through several recoveries, until its delivery
        // rate stops growing (startup.rs): what it sent until then is its overshoot. (For any
        // sender, the rounds until then would charge a loss-based one's random losses after
        // its first loss, its window already cut, to its slow start.)
        // Only in a capture from the connection's SYN: begun mid-transfer, the watch would
        // start counting rounds there, long after STARTUP may have ended.
        let startup_after_first = s.syn_seen && s.startup.ended.is_some_and(|(_, end)| end > first.point);
        let (lost, needless) = if v.cc.name == CongestionControl::Bbr && startup_after_first {
            (s.startup_losses.lost, s.startup_losses.needless)
        } else {
            (first.retransmissions, first.spurious)
        };
        let genuine_first = lost.saturating_sub(needless) as u64;
        // CUBIC's HyStart may have ended the slow start before that loss (its ACK train
        // spanned half the RTT: hystart.rs): the losses are then congestion avoidance's.
        // Not Reno's or BBR's, which have no HyStart.
        let hystart_before = s.hystart.exited_ns.is_some_and(|t| t < first.start_ns)
            && matches!(v.cc.name, CongestionControl::Cubic | CongestionControl::Unknown);
        if first.in_slow_start && !hystart_before && lost >= OVERSHOOT_MIN_LOSSES && needless * 2 < lost {
            overshoot_explains_losses = genuine_first as f64 >= genuine as f64 * OVERSHOOT_LOSS_SHARE;
            let explained = if overshoot_explains_losses && !link_full { loss_share + 0.01 } else { share(LimitState::Recovery) };
            f.push(Finding::new(
                FindingId::SlowStartOvershoot,
                explained.max(MIN_SHARE + 0.01),
                vec![first.start_frame],
                vec![("lost", Value::Int(genuine_first as i64)), ("frame", Value::Frame(first.start_frame))],
            ));
        }
    }
    if genuine > 0 && s.data_segments > 0 {
        let p = genuine as f64 / s.data_segments as f64;
        // Mathis et al.: MSS/RTT · 1.22/√p, the rate such loss allows (unknown without an
        // RTT). Its p is the rate of loss events, one per window that lost anything (the
        // model's cycle ends at one halving), not of lost segments: a burst dropped from one
        // window cut it once. (Over the sweep's loss-limited flows, goodput ran at up to
        // 120× the figure from the segment rate, a tenth of them above 17×; from the event
        // rate at most 8×, a tenth above 3.3×, the median 1×.)
        let events = s.recoveries.iter().filter(|r| !r.undone()).count().max(1);
        let p_event = (events as f64 / s.data_segments as f64).min(p);
        let mathis_bps = path.map(|r| mss as f64 * 8.0 / (r.rtt_ms / 1e3) * 1.22 / p_event.sqrt());
        let mathis = mathis_bps.map(Value::Rate);
        // On a full link the losses are the queue's: no finding of their own. Elsewhere they
        // count when recovery took real time, when they were frequent, or when the
        // congestion window held the sender most of the time below a link it did not fill:
        // what kept the window down was its answer to them (CUBIC and Reno regrow slowly on
        // a long path, so a handful of losses hold them there for seconds) — not when they
        // allow an order of magnitude more than the flow carried.
        let window_kept_down = share(LimitState::Cwnd) >= CWND_HELD && losses_could_hold(mathis_bps, goodput);
        if !overshoot_explains_losses && !link_full && (share(LimitState::Recovery) > LOSS_RECOVERY_SHARE || p > LOSS_RATE || window_kept_down) {
            f.push(Finding::new(
                FindingId::LossLimited,
                loss_share,
                s.retransmission_log().filter(|r| r.proven as u8 == 0).take(3).map(|r| r.frame).collect(),
                known(vec![
                    ("loss", Some(Value::Share(p))),
                    ("recoveries", Some(Value::Int(s.recoveries.len() as i64))),
                    ("mathis", mathis),
                    ("rtt", rtt.clone()),
                ]),
            ));
        }
    }

    // Sender-side limits.
    let flight = fs.cwnd[dd].value;
    let sndbuf_ceiling = Ceiling::compute(Limit::Sndbuf, Some(flight), None, path, goodput, opts.target_bps);
    if share(LimitState::Sndbuf) >= MIN_SHARE {
        f.push(Finding::new(
            FindingId::SndbufLimited,
            share(LimitState::Sndbuf),
            vec![lim.first_frame[LimitState::Sndbuf as usize]],
            known(vec![
                ("share", Some(Value::Share(share(LimitState::Sndbuf)))),
                ("flight", Some(Value::Bytes(flight))),
                ("rwnd", rwnd_above(flight)),
                ("ceiling", ceiling_value(&sndbuf_ceiling)),
            ]),
        ));
    }
    let pauses = lim.pauses;
    let app_paced = app_paced(&pauses, paused, start, end);
    if app_share >= MIN_SHARE || app_paced {
        let answers = lim.answers;
        let (id, mut values) = if answers >= APP_ANSWERS && answers >= pauses.count {
            (FindingId::AppRequestResponse, known(vec![("answers", Some(Value::Int(answers as i64))), ("rtt", rtt.clone())]))
        } else if answers <= 1 || pauses.count >= 2 * answers {
            (FindingId::AppSlowWriter, vec![("rate", Value::Rate(goodput)), ("flight", Value::Bytes(flight))])
        } else {
            (FindingId::AppLimited, vec![("flight", Value::Bytes(flight))])
        };
        values.insert(0, ("share", Value::Share(app_share)));
        values.push(("pauses", Value::Int(pauses.count as i64)));
        f.push(Finding::new(
            id,
            app_share,
            vec![lim.first_frame[LimitState::App as usize].max(lim.first_frame[LimitState::Idle as usize])],
            values,
        ));
    }
    // On a full link a flat flight is the path's too (counted as the window's above).
    let path_share = share(LimitState::Cwnd) + share(LimitState::Recovery);
    if path_share >= MIN_SHARE && link_full {
        f.push(Finding::new(
            FindingId::BandwidthLimited,
            path_share,
            vec![lim.first_frame[LimitState::Cwnd as usize]],
            known(vec![
                ("throughput", Some(Value::Rate(carried_rate))),
                ("busy", link_busy.map(Value::Share)),
                ("capacity", v.capacity_bps.map(Value::Rate)),
                // Without a capacity, the queue is the evidence the link was full (`link_full`).
                ("inflation", v.capacity_bps.is_none().then_some(Value::Num(inflation))),
                ("flight", Some(Value::Bytes(flight))),
                // The path's floor, not the capture point's side of it (a receiver's ACK delay).
                ("min_rtt", path.map(|p| Value::Ms(p.min_rtt_ms))),
                ("rtt", rtt.clone()),
            ]),
        ));
    }
    // The congestion window held the sender, and nothing above says why: say so, with
    // what was looked for, rather than "not limited". Unless the transfer ended in its
    // first slow start (seen from its SYN: no loss and no HyStart ended it, its delivery
    // rate never stopped growing and its last rounds still grew by half): round trips set
    // its time.
    let cwnd_share = share(LimitState::Cwnd) + share(LimitState::Recovery);
    if f.is_empty() && cwnd_share >= CWND_HELD {
        let slow_start_to_the_end = s.syn_seen
            && s.recoveries.iter().all(|r| r.undone())
            && s.hystart.exited_ns.is_none()
            && s.startup.ended.is_none()
            && s.rounds_still_growing();
        let (id, values) = match path.filter(|p| p.rtt_ms > 0.0 && slow_start_to_the_end) {
            Some(p) => (
                FindingId::SlowStartLimited,
                vec![
                    ("data", Value::Bytes(s.data_bytes)),
                    ("rounds", Value::Int((summary.duration_ns() as f64 / 1e6 / p.rtt_ms).round() as i64)),
                    ("rtt", Value::Ms(p.rtt_ms)),
                ],
            ),
            None => (
                FindingId::CwndLimited,
                vec![
                    ("share", Value::Share(cwnd_share)),
                    ("bottleneck", Value::text(match (link_busy, v.capacity_bps) {
                        (Some(b), Some(c)) => format!("the bottleneck not seen full ({} of the {} measured)", units::percent(b), units::rate(c)),
                        _ => "no bottleneck rate measured".to_string(),
                    })),
                    ("loss", Value::Share(genuine as f64 / s.data_segments.max(1) as f64)),
                ],
            ),
        };
        f.push(Finding::new(id, cwnd_share, vec![lim.first_frame[LimitState::Cwnd as usize]], values));
    }
    if f.is_empty() {
        f.push(Finding::new(
            FindingId::NotLimited,
            0.0,
            vec![summary.first_frame],
            vec![("reason", Value::text("no limit state dominated the transfer")), ("data", Value::Bytes(s.data_bytes))],
        ));
    }
    // A window that binds most of the busy time is the first thing to fix, whatever the
    // application does between transfers; then an application that paced the transfer,
    // whatever slowed its bursts.
    let rank = |x: &Finding| {
        let paced = app_paced && matches!(x.id, FindingId::AppLimited | FindingId::AppRequestResponse | FindingId::AppSlowWriter);
        let window = matches!(
            x.id,
            FindingId::WscaleMissing
                | FindingId::RwndStatic
                | FindingId::RwndAutotuneCeiling
                | FindingId::RwndLimited
                | FindingId::RwndSlowReader
                | FindingId::ZeroWindowStall
        );
        x.share + if window && x.share >= 0.5 { 2.0 } else if paced { 1.0 } else { 0.0 }
    };
    f.sort_by(|a, b| rank(b).partial_cmp(&rank(a)).unwrap_or(std::cmp::Ordering::Equal));
    v.ceiling = match f[0].id {
        FindingId::WscaleMissing
        | FindingId::RwndStatic
        | FindingId::RwndAutotuneCeiling
        | FindingId::RwndLimited
        | FindingId::ZeroWindowStall => Some(rwnd_ceiling),
        FindingId::SndbufLimited => Some(sndbuf_ceiling),
        // The path's own limits: the rate it carried against its bandwidth-delay product.
        FindingId::BandwidthLimited | FindingId::LossLimited | FindingId::SlowStartOvershoot | FindingId::ReorderLimited => {
            Some(Ceiling::compute(Limit::Path, None, Some(flight), path, goodput, opts.target_bps))
        }
        // An application (the sender's or a slow reader) set the rate, or nothing did: no
        // ceiling to state.
        _ => None,
    };
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
    use super::*;

    /// A flow whose data goes A → B, with the shifts of A's and B's windows.
    fn scaled(client: Scaling, server: Scaling) -> FlowState {
        let mut fs = FlowState::default();
        fs.scaling = [Some(client), Some(server)];
        fs
    }

    #[test]
    fn a_receiver_scale_chosen_for_a_far_bigger_buffer_marks_its_autotuning_ceiling() {
        // B's SYN/ACK: shift 7 (its stack planned for up to 8 MB); its window never
        // passed 13,568 B (tcp_rmem max 23,900).
        let fs = scaled(Scaling::Negotiated(7), Scaling::Negotiated(7));
        assert_eq!(spare_scale(&fs, 0, 13_568), Some(7));
        // 175,232 B needs shift 2: five to spare.
        assert_eq!(spare_scale(&fs, 0, 175_232), Some(7));
    }

    #[test]
    fn a_buffer_set_before_the_handshake_shapes_the_scale_to_itself() {
        // SO_RCVBUF 86,386 B: shift 1, window 106,542 B (needs shift 1).
        assert_eq!(spare_scale(&scaled(Scaling::Negotiated(7), Scaling::Negotiated(1)), 0, 106_542), None);
        // SO_RCVBUF 550,924 B: shift 4, window 678,624 B (needs 4).
        let fs = scaled(Scaling::Negotiated(7), Scaling::Negotiated(4));
        assert_eq!(spare_scale(&fs, 0, 678_624), None);
        // One shift to spare is still a buffer set before the handshake (a window advertised
        // at half its buffer).
        assert_eq!(spare_scale(&fs, 0, 400_000), None);
        // Shift 0 covers every buffer up to 65,535 B: a 2,896 B window says nothing more.
        assert_eq!(spare_scale(&scaled(Scaling::Negotiated(7), Scaling::Negotiated(0)), 0, 2_896), None);
    }

    #[test]
    fn the_scale_read_is_the_receivers_and_only_when_scaling_is_in_effect() {
        // Data B → A: A's windows limit it.
        assert_eq!(spare_scale(&scaled(Scaling::Negotiated(1), Scaling::Negotiated(7)), 1, 13_568), None);
        assert_eq!(spare_scale(&scaled(Scaling::Negotiated(7), Scaling::Negotiated(1)), 1, 13_568), Some(7));
        // Scaling not negotiated, or the handshake not captured: no scale in effect to read.
        let off = scaled(Scaling::NotNegotiated, Scaling::NotNegotiated);
        assert_eq!(spare_scale(&off, 0, 13_568), None);
        let cut = scaled(Scaling::Unknown { min_shift: 7 }, Scaling::Unknown { min_shift: 7 });
        assert_eq!(spare_scale(&cut, 0, 13_568), None);
    }

    #[test]
    fn losses_that_allow_far_more_than_the_flow_carried_did_not_hold_its_window() {
        // One loss event in 96,000 segments on a 0.069 ms round trip: Mathis allows
        // 63 Gbit/s; the flow carried 371 Mbit/s.
        let mathis = 1448.0 * 8.0 / 0.069e-3 * 1.22 * 96_000f64.sqrt();
        assert!(!losses_could_hold(Some(mathis), 371e6));
        // Reno's own sawtooth sits near its figure (1.7× the goodput in the trace tests).
        assert!(losses_could_hold(Some(22.3e6), 14.5e6));
        assert!(losses_could_hold(None, 14.5e6));
    }

    #[test]
    fn a_writer_paces_a_transfer_by_its_pauses_not_by_a_shapers_gaps() {
        const MS: i64 = 1_000_000;
        // 63 ms: two pauses of 2 ms after a write's tail, at 21 and 42 ms. Its other idle
        // time, 35 ms in 25 µs gaps between segments each acknowledged before the next
        // left a shaper, is no pause: 4 ms of pauses is 6 % of the transfer.
        let p = Pauses { idle_ns: 4 * MS, count: 2, first_from: 21 * MS, last_to: 44 * MS, longest_between_ns: 19 * MS };
        assert!(!app_paced(&p, 4 * MS, 0, 63 * MS));
        // The same two pauses at 4 ms each (13 %) pace it.
        let p = Pauses { idle_ns: 8 * MS, last_to: 46 * MS, longest_between_ns: 17 * MS, ..p };
        assert!(app_paced(&p, 8 * MS, 0, 63 * MS));
    }

    #[test]
    fn a_long_path_s_slow_start_leaves_rounds_enough_to_judge_the_link() {
        const S: i64 = 1_000_000_000;
        // 290 ms path (470 ms with its queue): slow start took 7.6 s of 10.4; the 2.8 s
        // after it, six rounds, stand for the flow though only 27 % of its time.
        assert!(steady_stretch_stands(0.27, 2_800_000_000, Some(470.0)));
        // Two rounds of a 5 ms path's stretch do not, nor one with no RTT to count rounds.
        assert!(!steady_stretch_stands(0.05, 10_000_000, Some(5.0)));
        assert!(!steady_stretch_stands(0.27, 3 * S, None));
        // A third of the transfer always does.
        assert!(steady_stretch_stands(0.3, 1, None));
    }
}

//! Which congestion control drove the sender, from what it did on the wire.
//!
//! Two witnesses:
//! - **The cut after a loss** (any vantage: the flight is rebuilt from ACKs). When a
//!   genuine fast recovery ends, a loss-based sender settles at β × the window it had:
//!   Reno β = 0.5 (RFC 5681 §3.2), CUBIC β = 0.7 (RFC 9438 §4.6); BBR keeps its model of
//!   the path and restores the window it had (BBRv1 `bbr_set_cwnd_to_recover_or_restore`).
//!   The ratio is the first ACK-clocked flight after the recovery over the ACK-clocked
//!   cwnd estimate when it began. Recoveries later proven spurious (undone), ended by a
//!   timeout, or with the receive window or the application binding either side say
//!   nothing and are left out.
//! - **Pacing** (only at the sender, where departure times are the sender's own). An
//!   ACK-clocked sender (Reno, CUBIC without a pacing qdisc) sends what an ACK opens as the
//!   ACK arrives, the rest of a burst right behind; a pacing sender (BBR) sends on its own
//!   timer, each segment (or pair) its size over the pacing rate after the last. The share
//!   of departures that follow neither an ACK nor a segment within a few tens of µs tells
//!   them apart. Only departures while cwnd (or pacing) held the sender count: a window or
//!   an application that holds it times the sends itself. Above a few hundred Mbit/s a
//!   pacing gap is as short as a burst's and the witness falls silent.
//!
//! A cut settles it (CUBIC paced by the fq qdisc is still CUBIC); no cut with ACK-clocked
//! bursts contradicts itself, and with neither witness the answer is "cannot tell".

use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CongestionControl {
    #[default]
    Unknown = 0,
    Reno = 1,
    Cubic = 2,
    Bbr = 3,
}

impl CongestionControl {
    pub const ALL: [CongestionControl; 4] =
        [CongestionControl::Unknown, CongestionControl::Reno, CongestionControl::Cubic, CongestionControl::Bbr];
    pub fn name(self) -> &'static str {
        match self {
            CongestionControl::Unknown => "unknown",
            CongestionControl::Reno => "reno",
            CongestionControl::Cubic => "cubic",
            CongestionControl::Bbr => "bbr",
        }
    }
}

/// The window a genuine loss leaves CUBIC (RFC 9438 §4.6): what cwnd.rs settles at after
/// a recovery.
pub const CUBIC_BETA: f64 = 0.7;
/// Cut ratios below this are Reno's (measured at the sender: 0.49–0.52), up to
/// [`CUBIC_CUT_MAX`] CUBIC's (0.60–0.73); from [`NO_CUT`] on, no cut. A paced BBR flight
/// after a recovery may read anywhere from 0.67 to 1, so a CUBIC-sized cut names CUBIC only
/// when the departures were not paced, no cut names BBR only when they were not
/// ACK-clocked, and a cut between the two names BBR when they were paced.
const RENO_CUBIC_SPLIT: f64 = 0.56;
const CUBIC_CUT_MAX: f64 = 0.78;
const NO_CUT: f64 = 0.85;
/// Recoveries whose cut is needed before the cut witness speaks.
const MIN_CUTS: usize = 2;
/// The first ACK-clocked flight after a recovery must come within this many RTTs of its
/// end (later, growth since has blurred the cut).
const CUT_READ_RTTS: i64 = 2;
/// A departure this soon after an ACK arrived was sent on that ACK; one this soon after
/// the previous departure was part of its burst (a pacing gap is longer below a few
/// hundred Mbit/s).
const ON_ACK_NS: i64 = 50_000;
const BACK_TO_BACK_NS: i64 = 25_000;
/// Share of departures on the sender's own timer (neither on an ACK nor in a burst): at or
/// above [`PACED_SHARE`] paced, at or below [`CLOCKED_SHARE`] ACK-clocked.
const PACED_SHARE: f64 = 0.3;
const CLOCKED_SHARE: f64 = 0.12;
/// Departures needed before the pacing witness speaks.
const MIN_DEPARTURES: u64 = 200;
/// Cuts remembered (a flow with more recoveries than this has said enough).
const MAX_CUTS: usize = 256;

/// A recovery that ended, waiting for the first ACK-clocked flight after it.
#[derive(Debug, Clone, Copy)]
struct Pending {
    recovery: usize,
    cwnd_before: u64,
    end_ns: i64,
}

/// One direction's evidence, gathered per packet (cheap: a few compares and adds).
#[derive(Debug, Clone, Default)]
pub struct CcWitness {
    /// The recovery in progress and the ACK-clocked cwnd estimate when it began.
    began: Option<(usize, u64)>,
    pending: Option<Pending>,
    /// (recovery index, flight after ÷ cwnd before)
    cuts: Vec<(usize, f32)>,
    last_ack_ns: Option<i64>,
    last_send_ns: Option<i64>,
    departures: u64,
    own_timer: u64,
}

impl CcWitness {
    /// Recovery `recovery` began; `cwnd_before`: the cwnd estimate then, if ACK-clocked.
    pub fn recovery_began(&mut self, recovery: usize, cwnd_before: Option<u64>) {
        self.began = cwnd_before.filter(|&c| c > 0).map(|c| (recovery, c));
        self.pending = None;
    }

    /// A recovery ended; `usable`: it was a fast recovery (not a timeout) with the
    /// receive window not holding the flight before it.
    pub fn recovery_ended(&mut self, recovery: usize, end_ns: i64, usable: bool) {
        self.pending = match self.began.take() {
            Some((r, cwnd_before)) if r == recovery && usable => Some(Pending { recovery, cwnd_before, end_ns }),
            _ => None,
        };
    }

    /// A new cwnd estimate from ACK-clocked sends (not window- or application-bound).
    pub fn clocked_flight(&mut self, flight: u64, ts: i64, srtt: Option<i64>) {
        let Some(p) = self.pending else { return };
        if srtt.is_some_and(|r| ts - p.end_ns > CUT_READ_RTTS * r) {
            self.pending = None;
            return;
        }
        if self.cuts.len() < MAX_CUTS {
            self.cuts.push((p.recovery, (flight as f64 / p.cwnd_before as f64) as f32));
        }
        self.pending = None;
    }

    /// The window or the application bound the sender before the cut could be read.
    pub fn cut_unreadable(&mut self) {
        self.pending = None;
    }

    /// An ACK reached the sender (call only at the sender).
    pub fn ack_arrived(&mut self, ts: i64) {
        self.last_ack_ns = Some(ts);
    }

    /// New data left the sender (call only at the sender); `counted`: a full segment
    /// while cwnd or pacing, not a window or the application, held the sender.
    pub fn departure(&mut self, ts: i64, counted: bool) {
        if counted {
            let on_ack = self.last_ack_ns.is_some_and(|a| ts - a <= ON_ACK_NS);
            let in_burst = self.last_send_ns.is_some_and(|d| ts - d <= BACK_TO_BACK_NS);
            self.departures += 1;
            self.own_timer += (!on_ack && !in_burst) as u64;
        }
        self.last_send_ns = Some(ts);
    }

    /// The answer, given which recoveries were later proven spurious. Only at the sender
    /// (`at_sender`) are the flight and the departure times the sender's own: elsewhere a
    /// flight rebuilt from ACKs blurs the cut, and the path retimes departures. `own_limits`:
    /// a send buffer held the sender for a share worth a finding, and the writer it wakes,
    /// not a pacing timer, timed the sends. (An application's own pauses do not count: the
    /// departures it times are not counted as cwnd's or pacing's.)
    pub fn infer(&self, spurious: impl Fn(usize) -> bool, at_sender: bool, own_limits: bool) -> CcInference {
        if !at_sender {
            return CcInference { away: true, ..Default::default() };
        }
        let cuts: Vec<f64> = self.cuts.iter().filter(|(r, _)| !spurious(*r)).map(|&(_, c)| c as f64).collect();
        let median_cut = median(&cuts);
        let cut = median_cut.filter(|_| cuts.len() >= MIN_CUTS);
        let timer = (self.departures >= MIN_DEPARTURES).then(|| self.own_timer as f64 / self.departures as f64);
        let paced = timer.filter(|_| !own_limits).is_some_and(|s| s >= PACED_SHARE);
        let clocked = timer.is_some_and(|s| s <= CLOCKED_SHARE);
        let name = match cut {
            Some(m) if m < RENO_CUBIC_SPLIT => CongestionControl::Reno,
            Some(m) if m <= CUBIC_CUT_MAX && !paced => CongestionControl::Cubic,
            Some(m) if m >= NO_CUT && !clocked => CongestionControl::Bbr,
            // Paced, and its flight after a loss above any CUBIC cut: BBR's recovery, which
            // conserves packets for a round and then restores its window.
            Some(m) if m > CUBIC_CUT_MAX && paced => CongestionControl::Bbr,
            Some(_) => CongestionControl::Unknown,
            None if paced => CongestionControl::Bbr,
            // ACK-clocked without a loss to measure: Reno or CUBIC, which one unknown.
            None => CongestionControl::Unknown,
        };
        CcInference { name, cuts: cuts.len(), median_cut, own_timer: timer, clocked, away: false }
    }
}

/// What the witnesses say, with the figures behind it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CcInference {
    pub name: CongestionControl,
    /// Genuine recoveries whose cut was read, and the median cut.
    pub cuts: usize,
    pub median_cut: Option<f64>,
    /// Share of departures sent on the sender's own timer, neither on an ACK nor in a
    /// burst (at the sender only).
    pub own_timer: Option<f64>,
    /// Departures were ACK-clocked (a loss-based controller without pacing).
    pub clocked: bool,
    /// The capture point is away from the sender: no witness applies.
    pub away: bool,
}

impl CcInference {
    /// "CUBIC-like: flight after 3 genuine recoveries 0.71 of cwnd before; 4% of segments sent on the sender's own timer"
    pub fn line(&self) -> String {
        let mut out = match self.name {
            CongestionControl::Unknown if self.away => {
                return "cannot tell from this vantage: only at the sender are departure times and flight the sender's own".to_string()
            }
            CongestionControl::Unknown if self.clocked && self.median_cut.is_none() => {
                "Reno or CUBIC (ACK-clocked, no loss to tell which)".to_string()
            }
            CongestionControl::Unknown => "cannot tell".to_string(),
            c => format!("{}-like", match c {
                CongestionControl::Reno => "Reno",
                CongestionControl::Cubic => "CUBIC",
                _ => "BBR",
            }),
        };
        let mut why = Vec::new();
        if let Some(m) = self.median_cut {
            let mut s = format!("flight after {} genuine recover{} {:.2} of cwnd before", self.cuts, if self.cuts == 1 { "y" } else { "ies" }, m);
            if self.cuts < MIN_CUTS {
                s += " (too few to weigh)";
            }
            why.push(s);
        }
        if let Some(b) = self.own_timer {
            why.push(format!("{:.0}% of segments sent on the sender's own timer, not on an ACK", b * 100.0));
        }
        if why.is_empty() {
            why.push("no genuine loss recovery to measure, too few departures while cwnd held the sender".to_string());
        }
        let _ = write!(out, ": {}", why.join("; "));
        out
    }
}

fn median(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    Some(s[s.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// Two recoveries of a 100-segment flight, each followed by an ACK-clocked flight.
    fn cut_twice(after: u64) -> CcWitness {
        let mut w = CcWitness::default();
        for (i, t) in [(0usize, 100 * MS), (1, 300 * MS)] {
            w.recovery_began(i, Some(144_800));
            w.recovery_ended(i, t, true);
            w.clocked_flight(after, t + 20 * MS, Some(40 * MS));
        }
        w
    }

    #[test]
    fn a_window_cut_to_seven_tenths_is_cubic() {
        let i = cut_twice(101_360).infer(|_| false, true, false);
        assert_eq!((i.name, i.cuts), (CongestionControl::Cubic, 2));
    }

    #[test]
    fn a_window_halved_is_reno_and_one_kept_is_bbr() {
        assert_eq!(cut_twice(72_400).infer(|_| false, true, false).name, CongestionControl::Reno);
        assert_eq!(cut_twice(143_352).infer(|_| false, true, false).name, CongestionControl::Bbr);
    }

    #[test]
    fn undone_recoveries_and_a_single_cut_say_nothing() {
        // Both recoveries proven spurious: the window was restored, not kept by design.
        assert_eq!(cut_twice(143_352).infer(|_| true, true, false).name, CongestionControl::Unknown);
        let mut w = CcWitness::default();
        w.recovery_began(0, Some(144_800));
        w.recovery_ended(0, 0, true);
        w.clocked_flight(101_360, 20 * MS, Some(40 * MS));
        assert_eq!(w.infer(|_| false, true, false).name, CongestionControl::Unknown);
        // A cwnd only bounded when the recovery began (window- or application-bound).
        let mut w = CcWitness::default();
        for i in 0..2 {
            w.recovery_began(i, None);
            w.recovery_ended(i, 0, true);
            w.clocked_flight(101_360, 20 * MS, Some(40 * MS));
        }
        assert!(w.cuts.is_empty());
    }

    #[test]
    fn a_flight_read_long_after_the_recovery_is_no_cut() {
        let mut w = CcWitness::default();
        w.recovery_began(0, Some(144_800));
        w.recovery_ended(0, 0, true);
        // Three RTTs later: the window has grown since.
        w.clocked_flight(120_000, 120 * MS, Some(40 * MS));
        assert!(w.cuts.is_empty());
    }

    /// ACKs every 1 ms, each answered `on_ack` µs later by two segments 5 µs apart.
    fn clocked(w: &mut CcWitness, on_ack: i64) {
        for i in 0..300 {
            w.ack_arrived(i * MS);
            w.departure(i * MS + on_ack * 1_000, true);
            w.departure(i * MS + on_ack * 1_000 + 5_000, true);
        }
    }

    /// A segment every 116 µs (100 Mbit/s), ACKs every 1 ms in between.
    fn paced(w: &mut CcWitness) {
        for i in 0..600 {
            if i % 8 == 3 {
                w.ack_arrived(i * 116_000 - 40_000);
            }
            w.departure(i * 116_000, true);
        }
    }

    #[test]
    fn sends_on_each_ack_are_ack_clocked_and_sends_on_a_timer_paced() {
        let mut c = CcWitness::default();
        clocked(&mut c, 10);
        let i = c.infer(|_| false, true, false);
        assert_eq!((i.name, i.clocked, i.own_timer), (CongestionControl::Unknown, true, Some(0.0)));
        let mut p = CcWitness::default();
        paced(&mut p);
        assert_eq!(p.infer(|_| false, true, false).name, CongestionControl::Bbr);
    }

    #[test]
    fn away_from_the_sender_or_with_a_writer_timing_the_sends_there_is_no_pacing_witness() {
        let mut p = CcWitness::default();
        paced(&mut p);
        assert!(p.infer(|_| false, false, false).away);
        assert_eq!(p.infer(|_| false, false, false).name, CongestionControl::Unknown);
        // A send buffer refilled by its application's writes times the sends itself.
        assert_eq!(p.infer(|_| false, true, true).name, CongestionControl::Unknown);
    }

    #[test]
    fn departures_a_window_or_an_application_timed_do_not_count() {
        let mut w = CcWitness::default();
        for i in 0..600 {
            w.departure(i * 116_000, false);
        }
        assert_eq!(w.infer(|_| false, true, false).own_timer, None);
    }

    #[test]
    fn witnesses_that_disagree_give_no_answer() {
        // A CUBIC-sized cut, but paced departures: a BBR flight may read so after a loss.
        let mut w = cut_twice(101_360);
        paced(&mut w);
        assert_eq!(w.infer(|_| false, true, false).name, CongestionControl::Unknown);
        // Reno's halving is nobody else's.
        let mut w = cut_twice(72_400);
        paced(&mut w);
        assert_eq!(w.infer(|_| false, true, false).name, CongestionControl::Reno);
        // Paced, and a flight after the loss above any CUBIC cut (0.82): BBR's.
        let mut w = cut_twice(118_736);
        paced(&mut w);
        assert_eq!(w.infer(|_| false, true, false).name, CongestionControl::Bbr);
        // The same cut ACK-clocked: neither CUBIC's nor a pacing sender's.
        let mut w = cut_twice(118_736);
        clocked(&mut w, 10);
        assert_eq!(w.infer(|_| false, true, false).name, CongestionControl::Unknown);
        // No cut, yet every segment sent on an ACK.
        let mut w = cut_twice(143_352);
        clocked(&mut w, 10);
        assert_eq!(w.infer(|_| false, true, false).name, CongestionControl::Unknown);
    }
}

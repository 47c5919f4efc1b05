//! A pacing sender's release clock, kept as Linux keeps it (tcp_wstamp_ns): each segment
//! sent moves the earliest departure of the next by its length over the pacing rate, less
//! up to half of that when the socket had waited past its release time
//! (tcp_update_skb_after_send's credit). Linux tests that clock before the receiver's
//! window (tcp_write_xmit: tcp_pacing_check, then tcp_snd_wnd_test), so a full window
//! counts in its rwnd_limited chrono only once the clock has run out; until then the
//! sender is busy.
//!
//! The rate is read from the sends. Segments sent close together left as one unit (BBR
//! hands the device units of about a millisecond of data at its pacing rate, two segments
//! at least: tcp_bbr.c bbr_tso_segs_goal; the capture shows them split). A unit left on the
//! clock when no ACK came since the last, or when an ACK that opened a full window was
//! answered only a unit's spacing later; the gap since the last unit is then that unit's
//! length over the rate, less the credit it took. A sender that does not pace (CUBIC or
//! Reno without the fq qdisc) sends bursts on ACKs, so it shows no such pairs and keeps no
//! clock. A pacing sender's rate is at least what the path delivered to it lately (BBR
//! paces at its bandwidth estimate, the highest delivery rate of the last ten round trips,
//! times a gain of 1 most of the time: pairs sampled in startup are often long stale once
//! the window holds it), and its clock never slower than the gaps of its last units allow.
//! Only at the sender are departures its own.

use super::delivery::RoundRate;

/// Segments this close together, with no ACK between them, left as one unit.
const PACING_UNIT_NS: i64 = 200_000;
/// Pairs the rate is the median of: one odd gap (the application late with a write) does
/// not move it. A sender keeps a clock only once it showed this many.
const PACING_PAIRS: usize = 5;
/// Units whose gaps bound the interval from above: every unit leaves at or after its
/// release, so the gap since the last one (plus the credit that one took) is at least its
/// interval. The lowest of the last few catches a clock running faster than its pairs
/// showed (BBR's gain cycles, and its bandwidth estimate moves, between them).
const BOUND_UNITS: usize = 8;
/// Round trips BBR's bandwidth filter spans (tcp_bbr.c bbr_bw_rtts).
const BW_FILTER_ROUNDS: usize = 10;
/// A pacing sender whose last `STEADY_UNITS` units left at one rate — at least
/// `STEADY_SHARE` of the gaps between them within `STEADY_BAND` of their median per byte —
/// and on its own clock — as many leaving more than `PACING_UNIT_NS` after the last ACK,
/// not in answer to it — is held by that clock. A send buffer's flight leaves as ACKs free
/// room: in answer to them, in trains a round trip apart.
const STEADY_UNITS: usize = 16;
const STEADY_BAND: f64 = 0.25;
const STEADY_SHARE: f64 = 0.75;

#[derive(Debug, Clone, Default)]
pub struct PacingClock {
    last_send_ns: Option<i64>,
    acked_since_send: bool,
    /// When the last ACK came, and whether the receiver's window was full then (data
    /// queued behind it: a sender that does not pace answers such an ACK at once).
    last_ack_ns: i64,
    ack_at_full_window: bool,
    /// The unit under way: when it left, its bytes, the release time it left against and
    /// whether that was known (set with a rate known; else no credit is taken).
    unit_ns: i64,
    unit_len: u64,
    unit_release_before: i64,
    release_known: bool,
    /// Whether `release_ns` was set with a rate known.
    release_rated: bool,
    ns_per_byte: [f64; PACING_PAIRS],
    samples: usize,
    /// The pacing interval per byte from the pairs and the delivery rate ([`Self::rate_now`]),
    /// kept as its inputs change; the upper bounds the last units set on it; and the
    /// interval in force, the lower of the two.
    paced_per_byte: f64,
    bounds: [f64; BOUND_UNITS],
    bounded: usize,
    interval_per_byte: f64,
    /// Delivery rate per round trip (bytes/ns) over the last BW_FILTER_ROUNDS, and the round
    /// under way.
    round_rates: [f64; BW_FILTER_ROUNDS],
    rounds: usize,
    round: RoundRate,
    /// When the clock releases the next unit.
    pub release_ns: i64,
    /// The gaps between the last units' starts, per byte of the earlier unit.
    gaps: [f64; STEADY_UNITS],
    gap_count: usize,
    /// Whether each of the last units left in answer to an ACK.
    answered: [bool; STEADY_UNITS],
    /// [`Self::steady`], worked out as each unit begins.
    steady: bool,
}

impl PacingClock {
    /// An ACK reached the sender at `ts`, `delivered()` bytes acknowledged or SACKed so
    /// far, `window_full`: the receiver's window held it then. A send after it may be the
    /// ACK's, not the clock's.
    #[inline]
    pub fn ack_arrived(&mut self, ts: i64, window_full: bool, delivered: impl FnOnce() -> u64, srtt: Option<i64>) {
        self.acked_since_send = true;
        (self.last_ack_ns, self.ack_at_full_window) = (ts, window_full);
        let Some(r) = srtt else { return };
        if let Some(rate) = self.round.at(ts, r, delivered) {
            self.close_round(rate);
        }
    }

    /// A round trip ended: its delivery rate joins the filter.
    #[inline(never)]
    fn close_round(&mut self, rate: f64) {
        self.round_rates[self.rounds % BW_FILTER_ROUNDS] = rate;
        self.rounds += 1;
        self.paced_per_byte = self.rate_now();
    }

    /// A segment of `len` payload bytes left at `ts`; `srtt`: the sender's smoothed round
    /// trip then. A gap of more than half of it is no pacing interval but a timer's (a tail
    /// loss probe, a retransmission timeout) or the application's.
    #[inline]
    pub fn sent(&mut self, ts: i64, len: u32, srtt: Option<i64>) {
        let had_unit = self.last_send_ns.is_some();
        let on_clock = had_unit && !self.acked_since_send;
        // An ACK that opened a full window, answered only a unit's spacing later: the
        // clock, not the ACK, sent what was queued.
        let released = self.acked_since_send && self.ack_at_full_window && ts - self.last_ack_ns > PACING_UNIT_NS;
        if on_clock && self.last_send_ns.is_some_and(|t| ts - t <= PACING_UNIT_NS) {
            self.unit_len += len as u64;
        } else {
            let sampled = (on_clock || released) && had_unit && srtt.is_some_and(|r| 2 * (ts - self.unit_ns) <= r);
            if sampled || (had_unit && self.paced_per_byte > 0.0) {
                self.learn(ts, sampled);
            }
            if had_unit {
                let i = self.gap_count % STEADY_UNITS;
                self.gaps[i] = (ts - self.unit_ns) as f64 / self.unit_len.max(1) as f64;
                self.answered[i] = self.acked_since_send && ts - self.last_ack_ns <= PACING_UNIT_NS;
                self.gap_count += 1;
                self.steady = self.steady_now();
            }
            self.release_known = self.release_rated;
            (self.unit_ns, self.unit_len, self.unit_release_before) = (ts, len as u64, self.release_ns);
        }
        self.release_ns = if self.interval_per_byte > 0.0 {
            // Linux sends no unit before its release time: one that left earlier shows the
            // clock was slower than the sender's, and is where its clock stood.
            let len_ns = self.interval_per_byte * self.unit_len as f64;
            self.unit_ns + (len_ns - self.credit().min(len_ns / 2.0)) as i64
        } else {
            self.unit_ns
        };
        self.release_rated = self.samples >= PACING_PAIRS;
        self.last_send_ns = Some(ts);
        self.acked_since_send = false;
    }

    /// What the unit under way, followed by one leaving at `ts`, tells of the interval:
    /// exactly it when `sampled` (on the clock), at least it otherwise (a bound, kept once
    /// there is a clock to bound).
    #[inline(never)]
    fn learn(&mut self, ts: i64, sampled: bool) {
        let interval = self.interval_before(ts);
        if sampled {
            self.ns_per_byte[self.samples % PACING_PAIRS] = interval;
            self.samples += 1;
            self.paced_per_byte = self.rate_now();
        }
        self.bounds[self.bounded % BOUND_UNITS] = interval;
        self.bounded += 1;
        let bound = self.bounds[..self.bounded.min(BOUND_UNITS)].iter().fold(f64::MAX, |m, &x| m.min(x));
        self.interval_per_byte = self.paced_per_byte.min(bound);
    }

    /// The interval per byte of the unit under way, were the next leaving at `ts` on its
    /// release: the gap between them is L − min(L/2, credit), for the first's L = its
    /// length ÷ rate. On the clock it is that interval; after an ACK, at least it.
    fn interval_before(&self, ts: i64) -> f64 {
        let gap = (ts - self.unit_ns).max(0) as f64;
        let credit = self.credit();
        let interval = if credit < gap { gap + credit } else { 2.0 * gap };
        interval / self.unit_len.max(1) as f64
    }

    /// How long past its release time the unit under way left (Linux forgives up to half
    /// an interval of it).
    fn credit(&self) -> f64 {
        if self.release_known { (self.unit_ns - self.unit_release_before).max(0) as f64 } else { 0.0 }
    }

    /// Whether a pacing sender's last units left at one steady rate (see [`STEADY_UNITS`]).
    /// A sender that keeps no clock sends on ACKs: their spacing, not its own.
    #[inline]
    pub fn steady(&self) -> bool {
        self.steady
    }

    #[inline(never)]
    fn steady_now(&self) -> bool {
        if self.samples < PACING_PAIRS || self.gap_count < STEADY_UNITS {
            return false;
        }
        let mut v = self.gaps;
        v.sort_by(f64::total_cmp);
        let median = v[STEADY_UNITS / 2];
        let within = v.iter().filter(|&&g| (g - median).abs() <= STEADY_BAND * median).count();
        let own = self.answered.iter().filter(|&&a| !a).count();
        let enough = |n: usize| n as f64 >= STEADY_SHARE * STEADY_UNITS as f64;
        enough(within) && enough(own)
    }

    /// The pacing interval per byte: the median of the last pairs, or the highest recent
    /// delivery rate's if faster; 0 (no clock) before the sender showed it paces.
    fn rate_now(&self) -> f64 {
        if self.samples < PACING_PAIRS {
            return 0.0;
        }
        let mut v = self.ns_per_byte;
        v.sort_by(f64::total_cmp);
        let bw = self.round_rates[..self.rounds.min(BW_FILTER_ROUNDS)].iter().fold(0.0f64, |m, &x| m.max(x));
        if bw > 0.0 { v[PACING_PAIRS / 2].min(1.0 / bw) } else { v[PACING_PAIRS / 2] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const SRTT: Option<i64> = Some(100 * MS);

    /// Segments of 1,000 B sent at these times (ms); `true`: an ACK came just before.
    fn clock(sends: &[(bool, i64)]) -> PacingClock {
        let mut c = PacingClock::default();
        for &(ack, t) in sends {
            if ack {
                c.ack_arrived(t * MS, false, || 0, None);
            }
            c.sent(t * MS, 1000, SRTT);
        }
        c
    }

    /// 1,000 B every 2 ms (4 Mbit/s) from 0 to 10 ms: five pairs on the clock.
    const PACED: [(bool, i64); 6] = [(true, 0), (false, 2), (false, 4), (false, 6), (false, 8), (false, 10)];

    fn after_paced(more: &[(bool, i64)]) -> PacingClock {
        clock(&[&PACED[..], more].concat())
    }

    #[test]
    fn a_sender_on_its_clock_releases_the_next_segment_one_interval_on() {
        assert_eq!(after_paced(&[(false, 12)]).release_ns, 14 * MS);
    }

    #[test]
    fn a_send_long_past_its_release_time_takes_half_an_interval_of_credit() {
        // Released at 12 ms, an ACK at 30 ms sends one segment at once, the next 1 ms on.
        assert_eq!(after_paced(&[(true, 30)]).release_ns, 31 * MS);
        assert_eq!(after_paced(&[(true, 30), (false, 31)]).release_ns, 33 * MS);
    }

    #[test]
    fn one_late_write_does_not_move_the_rate() {
        // 38 ms late, it leaves at once and the next half an interval later.
        assert_eq!(after_paced(&[(false, 50), (false, 51), (false, 53)]).release_ns, 55 * MS);
    }

    #[test]
    fn sends_on_acks_keep_no_clock() {
        let c = clock(&[(true, 0), (true, 10), (true, 20)]);
        assert_eq!(c.release_ns, 20 * MS);
    }

    #[test]
    fn fewer_pairs_than_the_median_needs_keep_no_clock() {
        assert_eq!(clock(&PACED[..5]).release_ns, 8 * MS);
    }

    #[test]
    fn gaps_longer_than_half_a_round_trip_are_timers_not_pacing() {
        let c = clock(&[(true, 0), (false, 60), (false, 120), (false, 180), (false, 240), (false, 300), (false, 360)]);
        assert_eq!(c.release_ns, 360 * MS);
    }

    #[test]
    fn segments_sent_close_together_are_one_unit_on_the_clock() {
        // Pairs of 1,000 B, 50 µs apart, every 4 ms.
        let mut c = PacingClock::default();
        for t in 0..6 {
            c.sent(t * 4 * MS, 1000, SRTT);
            c.sent(t * 4 * MS + 50_000, 1000, SRTT);
        }
        assert_eq!(c.release_ns, 24 * MS);
    }

    #[test]
    fn the_clock_runs_at_least_as_fast_as_the_path_lately_delivered() {
        // Paced at 4 Mbit/s in startup; then 2,000 B a millisecond delivered over a round.
        let mut c = after_paced(&[]);
        c.ack_arrived(100 * MS, false, || 0, SRTT);
        c.ack_arrived(200 * MS, false, || 200_000, SRTT);
        c.sent(200 * MS, 1000, SRTT);
        // 1,000 B at 16 Mbit/s is 0.5 ms, less its credit (half of it).
        assert_eq!(c.release_ns, 200 * MS + 250_000);
    }

    /// `PACED`, then twenty units of 1,000 B, 2 ms apart but every third gap `long`, each
    /// after an ACK that came `ack_before` earlier.
    fn paced_then_acked(ack_before: i64, long: i64) -> PacingClock {
        let mut c = after_paced(&[]);
        let mut t = 10 * MS;
        for k in 0..20 {
            t += if k % 3 == 2 { long } else { 2 * MS };
            c.ack_arrived(t - ack_before, false, || 0, None);
            c.sent(t, 1000, SRTT);
        }
        c
    }

    #[test]
    fn units_leaving_at_one_rate_on_the_senders_own_clock_are_a_steady_pace() {
        // ACKs a millisecond before each unit: the clock, not the ACK, sent it.
        assert!(paced_then_acked(MS, 2 * MS).steady());
    }

    #[test]
    fn units_sent_in_answer_to_acks_are_the_acks_pace_not_the_senders() {
        assert!(!paced_then_acked(50_000, 2 * MS).steady());
    }

    #[test]
    fn units_in_trains_a_round_trip_apart_are_no_steady_pace() {
        // Every third gap 12 ms: trains of three units, then the wait for the next ACKs.
        assert!(!paced_then_acked(MS, 12 * MS).steady());
    }

    #[test]
    fn a_sender_that_keeps_no_clock_has_no_steady_pace() {
        let mut c = PacingClock::default();
        for k in 0..30 {
            c.ack_arrived(k * 2 * MS, false, || 0, None);
            c.sent(k * 2 * MS + MS, 1000, SRTT);
        }
        assert!(!c.steady());
    }
}

//! Where the first slow start ended, as BBR's STARTUP decides it (tcp_bbr.c,
//! bbr_check_full_bw_reached): once the delivery rate of three round trips in a row stayed
//! under 1.25× the best before them, the pipe is full. BBR keeps its 2.89× gain through the
//! losses until then, so its overshoot spans several recoveries; CUBIC and Reno end slow
//! start at their first loss, cut the window, and lose no new data in the rounds after it —
//! for them the first recovery, reached first or not much later, is the end that matters.
//! Seen from any vantage: the rate is bytes acknowledged or SACKed per round trip.

use super::delivery::RoundRate;
use crate::flow::SeqNumber;

/// Growth that keeps STARTUP going (bbr_full_bw_thresh), and the rounds without it that end
/// it (bbr_full_bw_cnt).
const GROWTH: f64 = 1.25;
const FLAT_ROUNDS: u8 = 3;

#[derive(Debug, Clone, Copy, Default)]
pub struct StartupWatch {
    round: RoundRate,
    full_rate: f64,
    flat: u8,
    /// When the pipe was found full, and the highest sequence sent by then (`max`, as the
    /// caller passes it).
    pub ended: Option<(i64, SeqNumber)>,
    /// The bytes delivered by then.
    delivered_at_end: u64,
}

impl StartupWatch {
    /// A delivery at `ts`: `delivered` bytes so far, `round_ns` the round trip, `app_limited`:
    /// the sample is the application's pace (BBR skips those), `max`: SND.MAX now.
    #[inline]
    pub fn on_delivered(&mut self, ts: i64, delivered: u64, round_ns: Option<i64>, app_limited: bool, max: SeqNumber) {
        if self.ended.is_some() {
            return;
        }
        let Some(round) = round_ns else { return };
        let Some(rate) = self.round.at(ts, round, || delivered) else { return };
        if app_limited {
            return;
        }
        if rate >= self.full_rate * GROWTH {
            (self.full_rate, self.flat) = (rate, 0);
        } else {
            self.flat += 1;
            if self.flat >= FLAT_ROUNDS {
                self.end(ts, delivered, max);
            }
        }
    }

    /// The sender stalled at `ts` (a timeout's wait) with its rate still growing as far as
    /// the watch could see: the stall ends the first slow start, as BBR's own rounds do
    /// (each flat) and a loss-based sender's cut does.
    pub fn stalled(&mut self, ts: i64, delivered: u64, max: SeqNumber) {
        if self.ended.is_none() {
            self.end(ts, delivered, max);
        }
    }

    fn end(&mut self, ts: i64, delivered: u64, max: SeqNumber) {
        self.ended = Some((ts, max));
        self.delivered_at_end = delivered;
    }

    /// Where the pipe was found full, as the delivery meter counts: (time, bytes delivered).
    pub fn end_point(&self) -> Option<(i64, u64)> {
        self.ended.map(|(ts, _)| (ts, self.delivered_at_end))
    }
}

/// Segments sent in STARTUP and resent (each once, however often its resends were lost
/// too): what a BBR sender's overshoot lost, and of those how many D-SACKs proved needless.
#[derive(Debug, Clone, Copy, Default)]
pub struct StartupLosses {
    pub lost: u32,
    pub needless: u32,
}

impl StartupLosses {
    /// A segment `seq` resent for the first time: whether it was sent in STARTUP (its end
    /// not known yet, or after it).
    pub fn resent(&mut self, seq: SeqNumber, watch: &StartupWatch) -> bool {
        let in_startup = watch.ended.map_or(true, |(_, end)| seq < end);
        self.lost += in_startup as u32;
        in_startup
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: i64 = 10_000_000;

    /// One delivery per round trip: the bytes delivered in each round.
    fn watch(rounds: &[u64]) -> StartupWatch {
        let mut w = StartupWatch::default();
        let mut d = 0;
        w.on_delivered(0, 0, Some(RTT), false, SeqNumber(0));
        for (i, &r) in rounds.iter().enumerate() {
            d += r;
            w.on_delivered((i as i64 + 1) * RTT, d, Some(RTT), false, SeqNumber(d as u32));
        }
        w
    }

    #[test]
    fn doubling_rounds_keep_startup_going() {
        assert_eq!(watch(&[10, 20, 40, 80, 160]).ended, None);
    }

    #[test]
    fn three_rounds_under_a_quarter_more_end_it_at_the_third() {
        // The pipe full at 100 per round: its losses slow it, the rate never grows again.
        let w = watch(&[10, 20, 40, 80, 100, 90, 110, 100, 100]);
        assert_eq!(w.ended, Some((8 * RTT, SeqNumber(550))));
        assert_eq!(w.end_point(), Some((8 * RTT, 550)));
    }

    #[test]
    fn a_round_a_quarter_faster_starts_the_count_again() {
        assert_eq!(watch(&[10, 20, 40, 45, 50, 70, 75, 80]).ended, None);
    }

    #[test]
    fn a_bbr_sender_s_overshoot_runs_to_startup_s_end() {
        // STARTUP ended with 300 sent.
        let (mut w, mut o) = (StartupWatch::default(), StartupLosses::default());
        for seq in [10, 20, 30, 150, 160] {
            assert!(o.resent(SeqNumber(seq), &w)); // before the end was known: sent in it
        }
        w.ended = Some((0, SeqNumber(300)));
        assert!(!o.resent(SeqNumber(400), &w)); // sent after STARTUP: the path's loss
        assert!(o.resent(SeqNumber(170), &w)); // sent in STARTUP, resent later
        assert_eq!(o.lost, 6);
    }

    #[test]
    fn the_application_s_rounds_do_not_count() {
        let mut w = StartupWatch::default();
        w.on_delivered(0, 0, Some(RTT), false, SeqNumber(0));
        for i in 1..=5 {
            w.on_delivered(i * RTT, i as u64 * 10, Some(RTT), true, SeqNumber(0));
        }
        assert_eq!(w.ended, None);
    }
}

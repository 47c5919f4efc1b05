//! Where CUBIC's HyStart ended the first slow start before any loss (Linux tcp_cubic.c, its
//! ACK-train detector). Once the window is at least 16 segments, in each round trip of slow
//! start (a round ends when what was sent at its start is acknowledged), ACKs that keep
//! coming at most 2 ms apart for more than half the least RTT since the round began (an
//! unpaced sender's threshold) show the flight has reached the path's BDP: HyStart sets
//! ssthresh to the window there, and losses after it are congestion avoidance's, not the
//! slow start's overshoot. (Reno has no HyStart; BBR's STARTUP ignores it.)
//!
//! Linux's other detector, a round's least RTT an eighth above the floor, is left out: read
//! from the capture's RTT samples it fired on dev-sweep flows whose kernel never left slow
//! start before their drops (6 overshoots lost, none gained).

use crate::flow::seq::SeqNumber;

/// tcp_cubic.c: hystart_low_window, hystart_ack_delta_us.
const LOW_WINDOW_SEGMENTS: u64 = 16;
const ACK_DELTA_NS: i64 = 2_000_000;

#[derive(Debug, Clone, Copy, Default)]
pub struct HyStart {
    /// The round under way ends when this is acknowledged (the highest sent at its start).
    round_end: Option<SeqNumber>,
    round_start_ns: i64,
    last_ack_ns: i64,
    /// The most ever outstanding (the window is at least that).
    peak: u64,
    /// When the ACK train ended slow start, if it did.
    pub exited_ns: Option<i64>,
}

impl HyStart {
    /// An ACK at `ts` that timed a round trip (Linux runs HyStart on those), the least RTT
    /// seen counting it `floor_ns`, with `una` acknowledged and `max` the highest sent; call
    /// only before the first loss. (Linux gates on the window, which in slow start is at
    /// least the most ever outstanding.)
    pub fn sample(&mut self, floor_ns: i64, ts: i64, una: SeqNumber, max: SeqNumber, mss: u32) {
        if self.exited_ns.is_some() {
            return;
        }
        self.peak = self.peak.max(max.distance_from(una).max(0) as u64);
        if self.peak < LOW_WINDOW_SEGMENTS * mss as u64 {
            return;
        }
        if self.round_end.is_none_or(|e| una > e) {
            (self.round_end, self.round_start_ns, self.last_ack_ns) = (Some(max), ts, ts);
        }
        if ts - self.last_ack_ns <= ACK_DELTA_NS {
            self.last_ack_ns = ts;
            if ts - self.round_start_ns > floor_ns / 2 {
                self.exited_ns = Some(ts);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// `n` ACKs `spacing_us` apart on a 40 ms path, one round, `n` segments sent in it.
    fn train(n: i64, spacing_us: i64) -> Option<i64> {
        let mut h = HyStart::default();
        let max = SeqNumber(n as u32 * 1448);
        for k in 0..n {
            h.sample(40 * MS, k * spacing_us * 1_000, SeqNumber(k as u32 * 1448), max, 1448);
        }
        h.exited_ns
    }

    #[test]
    fn acks_a_millisecond_apart_for_more_than_half_the_floor_end_slow_start() {
        assert_eq!(train(30, 1_000), Some(21 * MS));
        // Twenty span 19 ms: under half the 40 ms floor.
        assert_eq!(train(20, 1_000), None);
    }

    #[test]
    fn a_gap_over_2_ms_breaks_the_train() {
        assert_eq!(train(30, 2_500), None);
    }
}

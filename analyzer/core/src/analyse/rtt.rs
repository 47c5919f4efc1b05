//! Round-trip time samples and the smoothed estimator of RFC 6298 §2.
//!
//! Samples are Karn-safe (RFC 6298 §3): an ACK is timed only against a segment that was
//! never retransmitted. At the sender the sample is the path RTT; elsewhere it covers
//! only the part of the path between the capture point and the receiver and back.

/// Linux's least retransmission timeout (TCP_RTO_MIN).
pub const MIN_RTO: i64 = 200_000_000;

#[derive(Debug, Clone, Copy, Default)]
pub struct RttEstimator {
    pub srtt_ns: Option<i64>,
    pub rttvar_ns: i64,
    pub min_ns: Option<i64>,
    pub samples: u64,
    sum_ns: i128,
}

impl RttEstimator {
    pub fn sample(&mut self, rtt_ns: i64) {
        // Beyond ten minutes a "round trip" is a clock jump, not a measurement.
        const MAX_RTT_NS: i64 = 600_000_000_000;
        // A round trip of 0 is the capture clock's resolution, not a measurement.
        if !(1..=MAX_RTT_NS).contains(&rtt_ns) {
            return;
        }
        self.samples += 1;
        self.sum_ns += rtt_ns as i128;
        self.min_ns = Some(self.min_ns.map_or(rtt_ns, |m| m.min(rtt_ns)));
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(rtt_ns);
                self.rttvar_ns = rtt_ns / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3 with alpha = 1/8, beta = 1/4. Every term is non-negative
                // (samples are at least 1 ns): divided unsigned, the divisions are shifts.
                self.rttvar_ns = ((3 * self.rttvar_ns + (srtt - rtt_ns).abs()) as u64 / 4) as i64;
                self.srtt_ns = Some(((7 * srtt + rtt_ns) as u64 / 8) as i64);
            }
        }
    }

    pub fn mean_ns(&self) -> Option<i64> {
        (self.samples > 0).then(|| (self.sum_ns / self.samples as i128) as i64)
    }

    /// RFC 6298 §2 RTO with Linux's 200 ms floor (not RFC's 1 s: Linux is what we meet).
    pub fn rto_ns(&self) -> i64 {
        match self.srtt_ns {
            Some(s) => (s + 4 * self.rttvar_ns).max(MIN_RTO),
            None => 1_000_000_000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_sets_srtt_and_half_var() {
        let mut r = RttEstimator::default();
        r.sample(100);
        assert_eq!((r.srtt_ns, r.rttvar_ns, r.min_ns), (Some(100), 50, Some(100)));
        r.sample(200);
        assert_eq!(r.srtt_ns, Some(112));
        assert_eq!(r.min_ns, Some(100));
        assert_eq!(r.mean_ns(), Some(150));
    }

    #[test]
    fn rto_has_linux_floor() {
        let mut r = RttEstimator::default();
        r.sample(1_000_000);
        assert_eq!(r.rto_ns(), 200_000_000);
    }
}

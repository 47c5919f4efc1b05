//! The congestion-window estimate. cwnd is never on the wire; what is visible is the
//! flight the sender builds between ACK arrivals. When sends are ACK-clocked and stop
//! short of the receive window, that flight *is* cwnd; when the window or the
//! application stopped the sender first, it is only a lower bound — reported as such.

use super::congestion::CUBIC_BETA;
use super::notes::CwndConfidence;

#[derive(Debug, Clone, Default)]
pub struct CwndEstimator {
    /// Highest flight reached by sends since the last ACK arrival.
    peak: u64,
    sends_since_ack: u32,
    pub value: u64,
    pub confidence: CwndConfidence,
}

impl CwndEstimator {
    /// After a data segment left with `flight` bytes now in flight.
    pub fn on_send(&mut self, flight: u64) {
        self.peak = self.peak.max(flight);
        self.sends_since_ack += 1;
    }

    /// An ACK arrived. `window_bound`: the sends were stopped by the receive window
    /// (flight + MSS > rwnd). `app_bound`: the sender was not ACK-clocked. Returns what
    /// the sends since the last ACK showed: an estimate, a bound, or nothing.
    pub fn on_ack(&mut self, flight_after: u64, window_bound: bool, app_bound: bool) -> Option<CwndConfidence> {
        let mut shown = None;
        if self.sends_since_ack > 0 && self.peak > 0 {
            shown = Some(if window_bound || app_bound { CwndConfidence::Bound } else { CwndConfidence::Estimate });
            if window_bound || app_bound {
                if self.confidence != CwndConfidence::Estimate || self.peak > self.value {
                    self.value = self.value.max(self.peak);
                    self.confidence = CwndConfidence::Bound;
                }
            } else {
                self.value = self.peak;
                self.confidence = CwndConfidence::Estimate;
            }
        }
        self.peak = flight_after;
        self.sends_since_ack = 0;
        shown
    }

    /// A recovery ended: cwnd settles at β·(flight when it began), β = 0.7 (CUBIC), or
    /// back at that flight when every retransmission proved spurious (undo).
    pub fn on_recovery_end(&mut self, flight_before: u64, undone: bool) {
        self.peak = 0;
        self.sends_since_ack = 0;
        if flight_before == 0 {
            // Nothing was known in flight (a capture point past the losses): no new figure.
            return;
        }
        self.value = if undone { flight_before } else { (flight_before as f64 * CUBIC_BETA) as u64 };
    }

    /// The flight now: cwnd is at least that, and equals it during recovery.
    pub fn floor(&mut self, flight: u64, in_recovery: bool) {
        if flight == 0 {
            return;
        }
        if in_recovery || flight > self.value {
            self.value = flight;
            if self.confidence == CwndConfidence::None {
                self.confidence = CwndConfidence::Bound;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_clocked_peak_is_an_estimate() {
        let mut c = CwndEstimator::default();
        c.on_send(10_000);
        c.on_send(20_000);
        c.on_ack(15_000, false, false);
        assert_eq!((c.value, c.confidence), (20_000, CwndConfidence::Estimate));
    }

    #[test]
    fn window_bound_peak_is_only_a_bound() {
        let mut c = CwndEstimator::default();
        c.on_send(65_535);
        c.on_ack(60_000, true, false);
        assert_eq!((c.value, c.confidence), (65_535, CwndConfidence::Bound));
    }
}

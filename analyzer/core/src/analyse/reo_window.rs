//! RACK's reordering window in steps of min_RTT/4, widened as Linux widens it
//! (tcp_rack_update_reo_wnd, RFC 8985 §6.2): by one step per round trip in which a D-SACK
//! arrives, not per D-SACK, and back to one step after [`PERSIST_RECOVERIES`] recoveries
//! with no D-SACK. Counting every D-SACK widened it to the smoothed RTT after a single
//! burst of spurious resends, and losses the kernel had marked stayed in flight here.

/// Recoveries without a D-SACK the widened window survives (TCP_RACK_RECOVERY_THRESH).
pub const PERSIST_RECOVERIES: u8 = 16;
/// The most steps Linux keeps (a u8).
const MAX_STEPS: u32 = 0xFF;

#[derive(Debug, Clone, Copy)]
pub struct ReoWindow {
    steps: u32,
    /// A D-SACK arrived and has not been taken yet (Linux rack.dsack_seen).
    dsack_pending: bool,
    /// When the window last widened: a D-SACK counts again only for an ACK delivering
    /// data sent after then (the round trip Linux measures with rack.last_delivered).
    widened_at_ns: Option<i64>,
    persist: u8,
}

impl Default for ReoWindow {
    fn default() -> Self {
        ReoWindow { steps: 1, dsack_pending: false, widened_at_ns: None, persist: 0 }
    }
}

impl ReoWindow {
    /// Steps of min_RTT/4 in the window.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    pub fn on_dsack(&mut self) {
        self.dsack_pending = true;
    }

    /// An ACK at `now` that delivered data, the newest of it sent at `newest_sent_ns` (a
    /// time at the capture point; `lag` is how much later than the sender it sees data
    /// sent in answer to an ACK).
    pub fn on_delivery(&mut self, newest_sent_ns: i64, lag: i64, now: i64) {
        if self.widened_at_ns.is_some_and(|w| newest_sent_ns < w + lag) {
            self.dsack_pending = false; // a D-SACK of the round already counted
        }
        if self.dsack_pending {
            self.steps = (self.steps + 1).min(MAX_STEPS);
            self.dsack_pending = false;
            self.widened_at_ns = Some(now);
            self.persist = PERSIST_RECOVERIES;
        } else if self.persist == 0 {
            self.steps = 1;
        }
    }

    /// A recovery ended; `undone`: all its resends proved spurious (Linux undoes it, and
    /// a D-SACK undo gives the window one more recovery).
    pub fn on_recovery_end(&mut self, undone: bool) {
        self.persist = if undone { (self.persist + 1).min(PERSIST_RECOVERIES) } else { self.persist.saturating_sub(1) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn a_burst_of_dsacks_in_one_round_widens_by_one_step() {
        let mut w = ReoWindow::default();
        // Five D-SACKs on ACKs delivering data sent before the first of them (100 ms).
        for k in 0..5 {
            w.on_dsack();
            w.on_delivery(50 * MS + k, 0, 100 * MS + k * MS);
        }
        assert_eq!(w.steps(), 2);
        // A D-SACK for data sent after the window widened: the next round, one more step.
        w.on_dsack();
        w.on_delivery(120 * MS, 0, 200 * MS);
        assert_eq!(w.steps(), 3);
    }

    #[test]
    fn sixteen_recoveries_without_a_dsack_bring_the_window_back_to_one_step() {
        let mut w = ReoWindow::default();
        w.on_dsack();
        w.on_delivery(0, 0, MS);
        for _ in 0..PERSIST_RECOVERIES - 1 {
            w.on_recovery_end(false);
            w.on_delivery(10 * MS, 0, 20 * MS);
        }
        assert_eq!(w.steps(), 2);
        w.on_recovery_end(false);
        w.on_delivery(30 * MS, 0, 40 * MS);
        assert_eq!(w.steps(), 1);
    }

    #[test]
    fn a_pure_dsack_waits_for_the_next_delivery() {
        let mut w = ReoWindow::default();
        w.on_dsack(); // a duplicate ACK carrying only the D-SACK: no rate sample yet
        assert_eq!(w.steps(), 1);
        w.on_delivery(5 * MS, 0, 10 * MS);
        assert_eq!(w.steps(), 2);
    }
}

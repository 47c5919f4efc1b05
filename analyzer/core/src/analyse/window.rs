//! The receive window in bytes (RFC 7323 §2): the window field shifted by the shift the
//! *advertising* side sent in its SYN, in effect only when both SYNs carried the option.
//!
//! Three cases users must be able to tell apart:
//! - `Negotiated(shift)`: both SYNs seen with the option;
//! - `NotNegotiated`: a captured SYN lacks it — the window is capped at 65,535 B, which is
//!   itself a finding;
//! - `Unknown`: the handshake was not captured. A lower bound on the shift is inferred
//!   from data in flight above the raw window (a sender never exceeds the window), and
//!   the resulting rwnd is marked inferred.
//! - `Stripped(shift)`: both SYNs carried the option where the capture was made, but the
//!   sender kept its flight at the field's unscaled value: a middlebox between this
//!   capture point and the sender removed the option from the receiver's SYN, so the
//!   sender reads every window unscaled (RFC 7323 §2.2: both SYNs or neither).

/// RFC 7323 §2.3: shifts above 14 are treated as 14.
pub const MAX_SHIFT: u8 = 14;

/// Noise allowed on a flight estimated away from the sender before it proves a larger
/// shift: two segments plus an eighth of the window.
pub(super) const ESTIMATE_SLACK_SEGMENTS: u64 = 2;
const ESTIMATE_SLACK_DIVISOR: u64 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaling {
    Negotiated(u8),
    NotNegotiated,
    /// Handshake not captured; the shift is at least `min_shift` (0 until data proves more).
    Unknown { min_shift: u8 },
    /// Negotiated with this shift at the capture point, ignored by the sender.
    Stripped(u8),
}

/// How a reported rwnd is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum RwndBasis {
    /// Shift from the captured handshake (or no scaling negotiated).
    Known = 0,
    /// Scaling absent: the 16-bit field is the window.
    NotNegotiated = 1,
    /// A lower bound from an inferred shift.
    Inferred = 2,
}

impl RwndBasis {
    pub const ALL: [RwndBasis; 3] = [RwndBasis::Known, RwndBasis::NotNegotiated, RwndBasis::Inferred];
    pub fn name(self) -> &'static str {
        match self {
            RwndBasis::Known => "known",
            RwndBasis::NotNegotiated => "not_negotiated",
            RwndBasis::Inferred => "inferred",
        }
    }
}

impl Scaling {
    /// From the two SYN options (`None` for a SYN not captured).
    pub fn from_syns(mine: Option<Option<u8>>, peer: Option<Option<u8>>) -> Scaling {
        match (mine, peer) {
            (Some(Some(m)), Some(Some(_))) => Scaling::Negotiated(m.min(MAX_SHIFT)),
            (Some(None), _) | (_, Some(None)) => Scaling::NotNegotiated,
            _ => Scaling::Unknown { min_shift: 0 },
        }
    }

    /// rwnd in bytes for a window field, and how it is known. SYN windows are never scaled.
    pub fn rwnd(&self, window: u16, is_syn: bool) -> (u64, RwndBasis) {
        let w = window as u64;
        if is_syn {
            return (w, RwndBasis::Known);
        }
        match *self {
            Scaling::Negotiated(s) => (w << s, RwndBasis::Known),
            Scaling::NotNegotiated | Scaling::Stripped(_) => (w, RwndBasis::NotNegotiated),
            Scaling::Unknown { min_shift } => (w << min_shift, RwndBasis::Inferred),
        }
    }

    /// Raises the inferred shift so that `window << shift` covers `in_flight` bytes that
    /// the peer had outstanding when this window was in force. Returns the new shift when
    /// it grew. `estimated`: the flight is not the sender's own count but rebuilt away
    /// from it (ACKs seen one ACK→data delay earlier), which may run a TSval tick of ACKs
    /// long; a shift raised on that noise would double the window, so it needs a margin.
    /// A FIN's sequence number may lie one past the window (it takes no room in the
    /// receiver's buffer: Linux sends it on the data that fills the window).
    pub fn infer_from_flight(&mut self, window: u16, in_flight: u64, mss: u64, estimated: bool) -> Option<u8> {
        let Scaling::Unknown { min_shift } = self else { return None };
        if window == 0 {
            return None;
        }
        let covers = |w: u64| {
            let slack = if estimated {
                ESTIMATE_SLACK_SEGMENTS * mss + w / ESTIMATE_SLACK_DIVISOR
            } else {
                0
            };
            w + slack + 1 >= in_flight
        };
        let mut s = *min_shift;
        while s < MAX_SHIFT && !covers((window as u64) << s) {
            s += 1;
        }
        (s > *min_shift).then(|| {
            *min_shift = s;
            s
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_syns_with_option_scale() {
        let s = Scaling::from_syns(Some(Some(7)), Some(Some(9)));
        assert_eq!(s.rwnd(100, false), (12800, RwndBasis::Known));
        assert_eq!(s.rwnd(100, true), (100, RwndBasis::Known));
    }

    #[test]
    fn one_syn_without_option_disables_scaling() {
        let s = Scaling::from_syns(Some(Some(7)), Some(None));
        assert_eq!(s, Scaling::NotNegotiated);
        assert_eq!(s.rwnd(65535, false), (65535, RwndBasis::NotNegotiated));
    }

    #[test]
    fn shift_above_14_is_clamped() {
        assert_eq!(Scaling::from_syns(Some(Some(15)), Some(Some(0))), Scaling::Negotiated(14));
    }

    #[test]
    fn missing_handshake_infers_lower_bound() {
        let mut s = Scaling::from_syns(None, None);
        assert_eq!(s.infer_from_flight(1000, 500, 100, false), None);
        assert_eq!(s.infer_from_flight(1000, 7000, 100, false), Some(3));
        assert_eq!(s.rwnd(1000, false), (8000, RwndBasis::Inferred));
        assert_eq!(s.infer_from_flight(1000, 7000, 100, false), None);
    }

    #[test]
    fn a_fin_one_past_the_window_proves_no_shift() {
        // 62,264 B of data fills the window to its edge; the FIN on its last segment ends
        // one byte beyond.
        let mut s = Scaling::Unknown { min_shift: 0 };
        assert_eq!(s.infer_from_flight(62_264, 62_265, 1448, false), None);
        assert_eq!(s.infer_from_flight(62_264, 62_266, 1448, false), Some(1));
    }

    #[test]
    fn an_estimated_flight_a_little_over_the_window_is_noise() {
        // A window of 8,000 B (shift 3) filled: the receiver's rebuilt flight may read
        // 9,100 B; that is not a shift of 4.
        let mut s = Scaling::Unknown { min_shift: 3 };
        assert_eq!(s.infer_from_flight(1000, 9_100, 100, true), None);
        assert_eq!(s.infer_from_flight(1000, 9_100, 100, false), Some(4));
        let mut s = Scaling::Unknown { min_shift: 3 };
        assert_eq!(s.infer_from_flight(1000, 12_000, 100, true), Some(4));
    }
}

//! The ceiling arithmetic behind a verdict: window ÷ RTT, and the window a rate needs.
//!
//! A window-limited flow cannot beat window/RTT whatever the link; a path-limited one is
//! judged against its bandwidth-delay product at the base (minimum) RTT. Buffer needs are
//! lower bounds (rate × base RTT): queueing only adds to them.

use super::units;

/// What caps the flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A window the receiver advertised.
    Rwnd,
    /// The sender's buffer (the flight it holds).
    Sndbuf,
    /// Nothing the endpoints set: the path itself.
    Path,
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Limit::Rwnd => "rwnd",
            Limit::Sndbuf => "sndbuf",
            Limit::Path => "path",
        }
    }
}

/// Rates quoted when the user gave no target: what each would need on this path.
const REFERENCE_RATES: [f64; 2] = [100e6, 1e9];

/// The round-trip time a ceiling is computed with, and where it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathRtt {
    /// Smoothed (or mean) RTT, ms: what the window had to cover.
    pub rtt_ms: f64,
    /// The lowest RTT seen, ms: the path without queueing.
    pub min_rtt_ms: f64,
    /// How it was measured, in words ("ACKs at the sender", …).
    pub source: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ceiling {
    pub limit: Limit,
    pub window_bytes: Option<u64>,
    /// None when no end-to-end RTT could be measured: then no ceiling is stated.
    pub rtt: Option<PathRtt>,
    pub ceiling_bps: Option<f64>,
    pub observed_bps: f64,
    pub bdp_bytes: Option<u64>,
    pub target_bps: Option<f64>,
    pub needed_bytes: Option<u64>,
    /// Bytes in flight, compared with the BDP when the path limits.
    pub flight: Option<u64>,
    /// The RTT measured here is longer than the window allows at the rate observed (a
    /// host that was slow to answer the handshake, a clock step): no ceiling is stated.
    pub rtt_contradicted: bool,
}

/// Observed rates may exceed a ceiling by this much before the RTT behind it is doubted:
/// the rate and the RTT are measured over different spans of the transfer.
const RATE_NOISE: f64 = 1.10;

fn need(rate_bps: f64, rtt_ms: f64) -> u64 {
    (rate_bps / 8.0 * rtt_ms / 1e3).round() as u64
}

/// Window ÷ RTT in bit/s.
pub fn window_rate(window: u64, rtt_ms: f64) -> f64 {
    window as f64 * 8.0 / (rtt_ms / 1e3).max(1e-9)
}

impl Ceiling {
    /// The arithmetic for a flow limited by `limit` (with its `window` for rwnd/sndbuf).
    /// `flight`: bytes in flight to compare with the BDP when the path limits.
    pub fn compute(
        limit: Limit,
        window: Option<u64>,
        flight: Option<u64>,
        rtt: Option<PathRtt>,
        observed_bps: f64,
        target_bps: Option<f64>,
    ) -> Ceiling {
        let window = window.filter(|&w| w > 0 && limit != Limit::Path);
        // A window carries at most window ÷ min RTT: a faster observed rate disproves the RTT.
        let rtt_contradicted = matches!((window, rtt), (Some(w), Some(r)) if window_rate(w, r.min_rtt_ms) * RATE_NOISE < observed_bps);
        let rtt = rtt.filter(|_| !rtt_contradicted);
        let base = rtt.map(|r| r.min_rtt_ms);
        Ceiling {
            limit,
            window_bytes: window,
            rtt,
            ceiling_bps: rtt.and(window).map(|w| window_rate(w, rtt.unwrap().rtt_ms)),
            observed_bps,
            bdp_bytes: base.map(|b| need(observed_bps, b)),
            target_bps,
            needed_bytes: base.zip(target_bps).map(|(b, t)| need(t, b)),
            flight: flight.filter(|_| limit == Limit::Path),
            rtt_contradicted,
        }
    }

    /// The arithmetic in words, one step a line.
    pub fn lines(&self) -> Vec<String> {
        let Some(r) = self.rtt else {
            if self.rtt_contradicted {
                return vec![format!(
                    "{} carried {}, more than the round trip measured here allows: no ceiling arithmetic",
                    units::bytes(self.window_bytes.unwrap_or(0)),
                    units::rate(self.observed_bps)
                )];
            }
            return vec!["no end-to-end RTT measured from this capture: no ceiling arithmetic".into()];
        };
        let mut lines = Vec::new();
        let base = r.min_rtt_ms;
        let observed = self.observed_bps;
        if let (Some(w), Some(ceiling)) = (self.window_bytes, self.ceiling_bps) {
            let name = if self.limit == Limit::Rwnd { "rwnd" } else { "send buffer (flight)" };
            let used = if observed > 0.0 {
                format!(" (observed {}, {} of it)", units::rate(observed), units::percent(observed / ceiling))
            } else {
                String::new()
            };
            lines.push(format!("{name} {} ÷ {} RTT = {} ceiling{used}", units::bytes(w), units::ms(r.rtt_ms), units::rate(ceiling)));
        } else {
            let bdp = self.bdp_bytes.unwrap_or(0);
            lines.push(format!("observed {} × {} min RTT = BDP {}", units::rate(observed), units::ms(base), units::bytes(bdp)));
            if let Some(f) = self.flight.filter(|&f| bdp > 0 && f as f64 > 1.5 * bdp as f64) {
                lines.push(format!(
                    "{} in flight is {:.1}× that BDP: the excess waits in the bottleneck queue",
                    units::bytes(f),
                    f as f64 / bdp as f64
                ));
            }
        }
        let buffer = if self.limit == Limit::Sndbuf { "send buffer" } else { "window" };
        if let (Some(t), Some(n)) = (self.target_bps, self.needed_bytes) {
            lines.push(format!(
                "for {} this path needs ≥ {} of {buffer} ({} × {} min RTT)",
                units::rate(t),
                units::bytes(n),
                units::rate(t),
                units::ms(base)
            ));
        } else if self.window_bytes.is_some() {
            let needs: Vec<String> = REFERENCE_RATES
                .iter()
                .map(|&rate| format!("{} needs ≥ {}", units::rate(rate), units::size(need(rate, base) as f64)))
                .collect();
            lines.push(format!("at {} min RTT: {} of {buffer} (--target-rate to size yours)", units::ms(base), needs.join(", ")));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtt(ms: f64) -> Option<PathRtt> {
        Some(PathRtt { rtt_ms: ms, min_rtt_ms: ms, source: "test" })
    }

    #[test]
    fn rwnd_ceiling_is_window_over_rtt() {
        let c = Ceiling::compute(Limit::Rwnd, Some(80_000), None, rtt(40.0), 15e6, None);
        assert_eq!(c.ceiling_bps, Some(16e6));
        assert_eq!(c.lines()[0], "rwnd 80,000 B ÷ 40 ms RTT = 16 Mbit/s ceiling (observed 15 Mbit/s, 94% of it)");
        assert_eq!(c.lines()[1], "at 40 ms min RTT: 100 Mbit/s needs ≥ 500 kB, 1 Gbit/s needs ≥ 5 MB of window (--target-rate to size yours)");
    }

    #[test]
    fn target_rate_gives_the_buffer_needed() {
        let c = Ceiling::compute(Limit::Rwnd, Some(80_000), None, rtt(40.0), 15e6, Some(1e9));
        assert_eq!(c.needed_bytes, Some(5_000_000));
    }

    #[test]
    fn path_limit_compares_flight_with_bdp() {
        let c = Ceiling::compute(Limit::Path, None, Some(400_000), rtt(40.0), 20e6, None);
        assert_eq!(c.bdp_bytes, Some(100_000));
        assert!(c.lines()[1].starts_with("400,000 B in flight is 4.0× that BDP"));
    }

    #[test]
    fn without_rtt_no_ceiling_is_claimed() {
        let c = Ceiling::compute(Limit::Rwnd, Some(65_535), None, None, 1e6, None);
        assert_eq!((c.ceiling_bps, c.bdp_bytes), (None, None));
        assert!(c.lines()[0].contains("no ceiling"));
    }
}

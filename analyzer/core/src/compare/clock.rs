//! Aligning the clocks of two captures taken on different hosts.
//!
//! For a segment that travels from A's side to B's, `t_B − t_A = θ + δ` (θ: B's clock minus
//! A's, δ ≥ 0: the one-way delay between the capture points); for one travelling from B's
//! side to A's, `t_B − t_A = θ − δ'`. So every segment seen in both captures bounds θ, from
//! above or from below, whatever the delays, as no delay is negative. Per flow, the capture
//! that sees a direction first is upstream for it: the direction with the larger smallest
//! difference travels from A to B. The bounds of all flows together give an interval; the
//! estimate is its middle, which assumes the smallest one-way delays of the two directions
//! are equal; its half-width is the uncertainty, which holds whatever the asymmetry.
//!
//! When no constant offset fits every segment (clocks drifting apart over a long capture), a
//! drift is fitted to the middle of the bounds of successive windows of the capture and
//! kept when it makes the bounds agree better.

/// Where the offset comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// Both directions of at least one flow: bounded.
    BothDirections,
    /// Both directions, but no single offset (nor a drift) fits every flow: the median of
    /// the flows' estimates, without a guaranteed bound.
    Inconsistent,
    /// Segments of one direction only: the offset assumes the smallest delay is zero.
    OneDirection,
    /// No segment seen in both captures.
    None,
}

impl Basis {
    pub const NAMES: [&'static str; 4] = ["both_directions", "inconsistent", "one_direction", "none"];
    pub fn name(self) -> &'static str {
        Basis::NAMES[self as usize]
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// B's clock minus A's at `t_ref_ns`, ns.
    pub offset_ns: i64,
    /// The offset lies in [lower, upper] at `t_ref_ns` (when `basis` is BothDirections).
    pub lower_ns: i64,
    pub upper_ns: i64,
    /// How fast B's clock runs against A's, parts per million (0: no drift fitted).
    pub drift_ppm: f64,
    /// A time (A's clock) the offset and bounds refer to.
    pub t_ref_ns: i64,
    pub basis: Basis,
    /// Flows whose two directions bracket the offset.
    pub flows: u32,
}

impl Clock {
    pub const NONE: Clock =
        Clock { offset_ns: 0, lower_ns: 0, upper_ns: 0, drift_ppm: 0.0, t_ref_ns: 0, basis: Basis::None, flows: 0 };

    /// B's clock minus A's at A-time `t_a`.
    #[inline]
    pub fn offset_at(&self, t_a: i64) -> i64 {
        self.offset_ns + (self.drift_ppm * 1e-6 * (t_a - self.t_ref_ns) as f64) as i64
    }

    /// A time of B's clock in A's clock.
    #[inline]
    pub fn b_to_a(&self, t_b: i64) -> i64 {
        t_b - self.offset_at(t_b - self.offset_ns)
    }

    /// Half the width of the bound: how far the offset may be from its estimate.
    pub fn uncertainty_ns(&self) -> i64 {
        (self.upper_ns - self.lower_ns) / 2
    }
}

/// Per matched flow, per direction of A's flow: times (at A, at B) of segments seen in
/// both captures.
pub type FlowTimes = [Vec<(i64, i64)>; 2];

/// The clock, and per flow whether A is upstream for its direction 0 (None: no segment of
/// the flow was seen in both captures).
pub fn estimate(flows: &[FlowTimes]) -> (Clock, Vec<Option<bool>>) {
    let mins: Vec<[Option<i64>; 2]> = flows.iter().map(|f| [min_diff(&f[0]), min_diff(&f[1])]).collect();
    let mut orient: Vec<Option<bool>> = mins
        .iter()
        .map(|m| match m {
            [Some(d0), Some(d1)] if d0 != d1 => Some(d0 > d1),
            _ => None,
        })
        .collect();
    let both = orient.iter().filter(|o| o.is_some()).count() as u32;
    let t_ref = reference_time(flows);
    let clock = if both == 0 {
        one_direction(&mins, t_ref)
    } else {
        let mut drift = 0.0;
        let mut b = bracket(flows, &orient, 0.0, t_ref);
        if b.0 > b.1 {
            let fitted = fit_drift(flows, &orient, t_ref);
            let b2 = bracket(flows, &orient, fitted, t_ref);
            if b2.0 - b2.1 < b.0 - b.1 {
                drift = fitted;
                b = b2;
            }
        }
        let (lo, hi) = (b.0.min(b.1), b.0.max(b.1));
        Clock {
            offset_ns: lo + (hi - lo) / 2,
            lower_ns: lo,
            upper_ns: hi,
            drift_ppm: drift,
            t_ref_ns: t_ref,
            basis: if b.0 <= b.1 { Basis::BothDirections } else { Basis::Inconsistent },
            flows: both,
        }
    };
    // Flows seen one way only: upstream is the capture that sees their segments first.
    for (i, o) in orient.iter_mut().enumerate() {
        if o.is_none() {
            *o = match mins[i] {
                [Some(d0), _] => Some(d0 >= clock.offset_ns),
                [None, Some(d1)] => Some(d1 < clock.offset_ns),
                [None, None] => None,
            };
        }
    }
    (clock, orient)
}

/// Smallest `t_B − t_A`.
fn min_diff(times: &[(i64, i64)]) -> Option<i64> {
    times.iter().map(|&(ta, tb)| tb - ta).min()
}

/// (largest `t_B − t_A` of a segment travelling B → A, smallest of one travelling A → B)
/// after removing a drift (ppm) around `t_ref`: the offset lies between them.
fn bracket(flows: &[FlowTimes], orient: &[Option<bool>], drift_ppm: f64, t_ref: i64) -> (i64, i64) {
    let (mut lo, mut hi) = (i64::MIN, i64::MAX);
    for (f, o) in flows.iter().zip(orient) {
        let Some(a_up0) = *o else { continue };
        for (d, times) in f.iter().enumerate() {
            let a_to_b = a_up0 == (d == 0);
            for &(ta, tb) in times {
                let x = tb - ta - (drift_ppm * 1e-6 * (ta - t_ref) as f64) as i64;
                if a_to_b {
                    hi = hi.min(x);
                } else {
                    lo = lo.max(x);
                }
            }
        }
    }
    (lo, hi)
}

/// The middle of the span of A-times the flows cover.
fn reference_time(flows: &[FlowTimes]) -> i64 {
    let all = flows.iter().flat_map(|f| f.iter().flat_map(|d| d.iter().map(|x| x.0)));
    let (lo, hi) = all.fold((i64::MAX, i64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    if lo > hi { 0 } else { lo + (hi - lo) / 2 }
}

/// Windows the capture is cut into to follow a drift.
const DRIFT_WINDOWS: usize = 16;

/// The drift (ppm) of the middle of each window's bracket: per window, the smallest
/// difference of the segments travelling A → B and the largest of those travelling B → A.
fn fit_drift(flows: &[FlowTimes], orient: &[Option<bool>], t_ref: i64) -> f64 {
    let all = flows.iter().flat_map(|f| f.iter().flat_map(|d| d.iter().map(|x| x.0)));
    let (lo, hi) = all.fold((i64::MAX, i64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    if lo >= hi {
        return 0.0;
    }
    let width = ((hi - lo) / DRIFT_WINDOWS as i64).max(1);
    let mut ab = [i64::MAX; DRIFT_WINDOWS];
    let mut ba = [i64::MIN; DRIFT_WINDOWS];
    for (f, o) in flows.iter().zip(orient) {
        let Some(a_up0) = *o else { continue };
        for (d, times) in f.iter().enumerate() {
            let a_to_b = a_up0 == (d == 0);
            for &(ta, tb) in times {
                let w = (((ta - lo) / width) as usize).min(DRIFT_WINDOWS - 1);
                if a_to_b {
                    ab[w] = ab[w].min(tb - ta);
                } else {
                    ba[w] = ba[w].max(tb - ta);
                }
            }
        }
    }
    let points: Vec<(f64, f64)> = (0..DRIFT_WINDOWS)
        .filter(|&w| ab[w] != i64::MAX && ba[w] != i64::MIN)
        .map(|w| ((lo + width * w as i64 + width / 2 - t_ref) as f64, (ab[w] as f64 + ba[w] as f64) / 2.0))
        .collect();
    if points.len() < 3 {
        return 0.0;
    }
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 { 0.0 } else { sxy / sxx * 1e6 }
}

/// Only one direction of any flow: the offset that makes the smallest delay zero, taking
/// the capture that saw the flows' segments first as upstream.
fn one_direction(mins: &[[Option<i64>; 2]], t_ref: i64) -> Clock {
    let Some(d) = mins.iter().flat_map(|m| m.iter().flatten()).copied().min() else { return Clock::NONE };
    Clock { offset_ns: d, lower_ns: d, upper_ns: d, drift_ppm: 0.0, t_ref_ns: t_ref, basis: Basis::OneDirection, flows: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// A flow with `n` segments each way: A → B takes `ab` ms (+ queueing), B → A `ba` ms,
    /// B's clock is `theta` ms ahead (plus `drift_ppm`).
    fn flow(n: i64, ab: i64, ba: i64, theta: i64, drift_ppm: f64, queue: impl Fn(i64) -> i64) -> FlowTimes {
        let b_clock = |t: i64| t + theta * MS + (drift_ppm * 1e-6 * t as f64) as i64;
        let fwd = (0..n).map(|i| (i * 10 * MS, b_clock(i * 10 * MS + ab * MS + queue(i)))).collect();
        let back = (0..n).map(|i| {
            let sent_b = i * 10 * MS + 5 * MS;
            (sent_b + ba * MS + queue(i), b_clock(sent_b))
        }).collect();
        [fwd, back]
    }

    #[test]
    fn symmetric_path_gives_the_offset_within_its_bound() {
        let (c, orient) = estimate(&[flow(100, 20, 20, 3_700, 0.0, |i| (i % 7) * MS)]);
        assert_eq!(c.basis, Basis::BothDirections);
        assert_eq!(c.offset_ns, 3_700 * MS);
        assert_eq!((c.lower_ns, c.upper_ns), (3_680 * MS, 3_720 * MS));
        assert_eq!(orient, vec![Some(true)], "A sees direction 0 first");
    }

    #[test]
    fn asymmetric_path_stays_inside_the_bound() {
        // 5 ms one way, 35 ms back: the estimate is off by 15 ms, the bound still holds.
        let (c, _) = estimate(&[flow(50, 5, 35, -250, 0.0, |_| 0)]);
        assert_eq!(c.offset_ns, -250 * MS - 15 * MS, "the middle assumes equal delays: (5 - 35) / 2 ms off");
        assert!(c.lower_ns <= -250 * MS && -250 * MS <= c.upper_ns);
        assert_eq!(c.uncertainty_ns(), 20 * MS);
    }

    #[test]
    fn flows_in_opposite_orientations_narrow_the_bound() {
        // Second flow: its client is on B's side (direction 0 travels B → A).
        let mut f2 = flow(50, 10, 10, 40, 0.0, |_| 0);
        f2.swap(0, 1);
        let (c, orient) = estimate(&[flow(50, 10, 10, 40, 0.0, |_| 0), f2]);
        assert_eq!(orient, vec![Some(true), Some(false)]);
        assert_eq!(c.offset_ns, 40 * MS);
    }

    #[test]
    fn drifting_clocks_are_followed() {
        // 200 ppm over 100 s is 20 ms: more than the 4 ms path can absorb.
        let (c, _) = estimate(&[flow(10_000, 2, 2, 0, 200.0, |_| 0)]);
        assert_eq!(c.basis, Basis::BothDirections);
        assert!((c.drift_ppm - 200.0).abs() < 2.0, "{}", c.drift_ppm);
        let mid = c.t_ref_ns;
        assert!((c.offset_at(mid) - (200e-6 * mid as f64) as i64).abs() < MS);
    }

    #[test]
    fn one_direction_assumes_the_smallest_delay_is_zero() {
        let f = flow(20, 7, 7, 100, 0.0, |_| 0);
        let (c, orient) = estimate(&[[f[0].clone(), vec![]]]);
        assert_eq!(c.basis, Basis::OneDirection);
        assert_eq!(c.offset_ns, 107 * MS);
        assert_eq!(orient, vec![Some(true)]);
    }
}

//! A queue between the sender's TCP and the capture point, on the sender's own host.
//!
//! A capture taken on the sending host is read as taken at the sender: its handshake
//! leaves at once. But when the host's egress is the bottleneck (a `tc` shaper, a NIC
//! slower than the path, a full device queue), segments wait in its qdisc after TCP sent
//! them and before the tap sees them: TCP's flight holds them, the capture does not, and
//! data then follows the ACK it answers by that wait. Read as the sender's, that flight
//! is a segment or two on a veth path, an application that never wrote.
//!
//! The segments say so themselves. Linux stamps TSval when TCP sends a segment (with
//! earliest-departure pacing, at its planned departure), on a 1 kHz clock (RFC 7323 §5.4;
//! since Linux 4.13). At the sender, capture time minus TSval stays within a tick of its
//! least; after a queue it grows by the time waited there. A sender whose clock does not
//! run at 1 kHz gives no witness.

use super::limit::TS_TICK_NS;

/// The sender's clock runs at 1 kHz when its count, over at least [`RATE_SPAN_NS`], comes
/// to between these shares of the milliseconds elapsed. A wait only slows the count as
/// seen (a segment stamped before it is seen later), by the wait's share of the time
/// elapsed; never speeds it. Other clocks are far off: 100, 250 or 300 Hz count a third
/// as fast or less, microsecond clocks a thousand times faster.
const RATE_MIN: f64 = 0.6;
const RATE_MAX: f64 = 1.03;
const RATE_SPAN_NS: i64 = 50_000_000;
/// A clock not yet seen at 1 kHz after this long never will be: the witness stops.
const RATE_GIVE_UP_NS: i64 = 1_000_000_000;
/// A wait beyond the tick's rounding (a segment seen as TCP sent it trails its stamp by
/// under a tick, 1 ms, plus the capture's own delay): two ticks. On the sweep's sender
/// captures no segment trailed by more than 1.06 ms but one (2.2 ms), of 24 runs checked.
pub const WAIT_NS: i64 = 2_000_000;
/// Segments that must have waited that long: one late wake-up is not a queue.
const WAITED_SEGMENTS: u32 = 16;
/// The running mean of the wait moves an eighth of the way to each segment's (each
/// segment's own is known to a tick only).
const WAIT_GAIN: i64 = 8;
/// Waits shorter than [`WAIT_NS`] show only in numbers: a segment seen as TCP sent it
/// trails the floor by its place in the tick, under 1 ms (plus the capture's own
/// microseconds); one that waited w trails by w more. Past [`LATE_NS`] only waited ones
/// do; when [`LATE_SHARE`] of at least [`LATE_MIN_SEGMENTS`] segments on a 1 kHz clock
/// do, they waited. (Shaped veth senders, 0.5–5 ms queues: 12–37 % of segments past it;
/// the sweep's TUN senders: none on 38 of 40 checked, 0.3 and 2.4 % on two.)
const LATE_NS: i64 = 1_200_000;
const LATE_SHARE: f64 = 0.06;
const LATE_MIN_SEGMENTS: u32 = 200;
/// The short wait's running mean moves a 64th of the way to each segment's: one segment's
/// place in the tick is noise of ±½ ms.
const SHORT_WAIT_GAIN: i64 = 64;

#[derive(Debug, Clone, Copy, Default)]
pub struct HostQueue {
    /// The first data segment's TSval and capture time: the clocks' common origin.
    origin: Option<(u32, i64)>,
    /// The least (capture time − TSval) since the origin, in ns.
    floor_ns: i64,
    /// Segments seen waiting at least [`WAIT_NS`] past that floor.
    waited: u32,
    /// `Some(true)` once the clock is seen to run at 1 kHz; `Some(false)`: it does not,
    /// and nothing is read from it.
    clock_ok: Option<bool>,
    /// Once segments are shown to wait: how long they have lately.
    wait_ns: Option<i64>,
    /// Segments counted on a 1 kHz clock, those past [`LATE_NS`], and the running mean of
    /// their excess less half a tick: the wait of queues too short for [`WAIT_NS`].
    counted: u32,
    late: u32,
    short_wait_ns: i64,
}

impl HostQueue {
    /// How long segments wait between TCP and the capture point lately, once shown to.
    #[inline]
    pub fn wait_ns(&self) -> Option<i64> {
        self.wait_ns
    }

    /// How long segments lately waited in a queue too short for [`Self::wait_ns`], once
    /// enough of them are seen to have waited at all (only what the capture point saw as
    /// idle reads it: a wait known to ±½ ms cannot rebuild a flight).
    pub fn short_wait_ns(&self) -> Option<i64> {
        let shown = self.wait_ns.is_none()
            && self.counted >= LATE_MIN_SEGMENTS
            && self.late as f64 >= LATE_SHARE * self.counted as f64;
        shown.then_some(self.short_wait_ns.max(0))
    }

    /// A data segment stamped `tsval` seen at `ts`. True when it moved [`Self::wait_ns`].
    #[inline]
    pub fn on_data(&mut self, tsval: u32, ts: i64) -> bool {
        match self.waited_for(tsval, ts) {
            Some(wait) => {
                self.wait_ns = Some(self.wait_ns.map_or(wait, |m| m + (wait - m) / WAIT_GAIN));
                true
            }
            None => false,
        }
    }

    /// Once segments are shown to have waited, how long this one did (the tick's rounding
    /// adds 0–1 ms to what the stamps show: half of it is taken off).
    #[inline]
    fn waited_for(&mut self, tsval: u32, ts: i64) -> Option<i64> {
        let Some((v0, t0)) = self.origin else {
            self.origin = Some((tsval, ts));
            return None;
        };
        if self.clock_ok == Some(false) {
            return None;
        }
        let ticks = tsval.wrapping_sub(v0) as i32 as i64;
        let elapsed = ts - t0;
        let offset = elapsed - ticks * TS_TICK_NS;
        self.floor_ns = self.floor_ns.min(offset);
        if self.clock_ok.is_none() && elapsed >= RATE_SPAN_NS {
            let rate = ticks as f64 * 1e6 / elapsed as f64;
            if rate > RATE_MAX || (rate < RATE_MIN && elapsed >= RATE_GIVE_UP_NS) {
                self.clock_ok = Some(false);
            } else if rate >= RATE_MIN {
                self.clock_ok = Some(true);
            }
        }
        let excess = offset - self.floor_ns;
        if excess >= WAIT_NS {
            self.waited = self.waited.saturating_add(1);
        }
        if self.clock_ok == Some(true) {
            self.counted = self.counted.saturating_add(1);
            self.late = self.late.saturating_add((excess >= LATE_NS) as u32);
            self.short_wait_ns += (excess - TS_TICK_NS / 2 - self.short_wait_ns) / SHORT_WAIT_GAIN;
        }
        (self.clock_ok == Some(true) && self.waited >= WAITED_SEGMENTS).then_some((excess - TS_TICK_NS / 2).max(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// Segments every 0.1 ms for 400 ms, TSval on a 1 kHz clock that reads `tsval_at(t)`;
    /// each seen `wait(t)` after it was stamped.
    fn run(tsval_at: impl Fn(i64) -> u32, wait: impl Fn(i64) -> i64) -> bool {
        let mut q = HostQueue::default();
        let mut seen = false;
        for k in 0..4_000 {
            let sent = 1_000 * MS + k * MS / 10;
            seen |= q.on_data(tsval_at(sent), sent + wait(sent));
        }
        seen
    }

    #[test]
    fn segments_seen_as_tcp_sent_them_show_no_queue() {
        assert!(!run(|t| (t / MS) as u32, |_| 0));
        // Rounding of the tick either side is no wait.
        assert!(!run(|t| (t / MS) as u32 + 7, |t| (t % 3) * MS / 3));
    }

    #[test]
    fn a_queue_building_after_tcp_is_seen() {
        // An empty queue for 100 ms, then 5 ms of wait.
        assert!(run(|t| (t / MS) as u32, |t| if t < 1_100 * MS { 0 } else { 5 * MS }));
    }

    #[test]
    fn a_queue_standing_from_the_start_is_seen() {
        // 30 ms of wait from the second segment on: over 50 ms the count reads 60 % of
        // the time elapsed, a 1 kHz clock's.
        assert!(run(|t| (t / MS) as u32, |t| if t == 1_000 * MS { 0 } else { 30 * MS }));
    }

    #[test]
    fn a_clock_not_at_one_kilohertz_gives_no_witness() {
        // 250 and 300 Hz: the offset grows 3 ms every 4 ms elapsed, which is no queue.
        assert!(!run(|t| (t / (4 * MS)) as u32, |_| 0));
        assert!(!run(|t| (t / (4 * MS)) as u32, |t| if t < 1_100 * MS { 0 } else { 5 * MS }));
        assert!(!run(|t| (t * 3 / (10 * MS)) as u32, |_| 0));
        // Nor one counting faster (a queue cannot make it).
        assert!(!run(|t| (t * 11 / (10 * MS)) as u32, |t| if t < 1_100 * MS { 0 } else { 5 * MS }));
    }

    /// Like `run`, the short wait read at the end, if shown.
    fn short_wait(tsval_at: impl Fn(i64) -> u32, wait: impl Fn(i64) -> i64) -> Option<i64> {
        let mut q = HostQueue::default();
        for k in 0..4_000 {
            let sent = 1_000 * MS + k * MS / 10;
            q.on_data(tsval_at(sent), sent + wait(sent));
        }
        q.short_wait_ns()
    }

    #[test]
    fn a_wait_shorter_than_two_ticks_shows_in_how_many_segments_trail() {
        // Waits of 0–0.9 ms (a shaper's bucket lets some segments straight through, which
        // sets the floor): none trails by 2 ms, but over a quarter trail by 1.2 ms; the
        // mean, less half a tick, gives the mean wait (0.45 ms) back.
        let sawtooth = |t: i64| (t / (MS / 10)) % 10 * MS / 10;
        let w = short_wait(|t| (t / MS) as u32, sawtooth).expect("shown");
        assert!((3 * MS / 10..=6 * MS / 10).contains(&w), "{w}");
        // No wait, or a clock not at 1 kHz: none.
        assert_eq!(short_wait(|t| (t / MS) as u32, |_| 0), None);
        assert_eq!(short_wait(|t| (t / (4 * MS)) as u32, sawtooth), None);
        // A few late wake-ups are not a queue either.
        assert_eq!(short_wait(|t| (t / MS) as u32, |t| if (t / MS) % 50 == 0 { MS } else { 0 }), None);
    }

    #[test]
    fn a_few_late_segments_are_not_a_queue() {
        assert!(!run(|t| (t / MS) as u32, |t| if (t / MS) % 100 == 0 && t % MS == 0 { 10 * MS } else { 0 }));
    }
}

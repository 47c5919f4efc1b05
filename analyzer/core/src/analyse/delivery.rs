//! How fast the path delivers: rate samples over short runs of ACKs (bytes newly
//! acknowledged or SACKed per unit of time, the quantity BBR calls the delivery rate),
//! kept as a coarse histogram. Its upper percentile estimates the bottleneck's capacity:
//! a train of segments leaves the bottleneck at its rate whatever the sender's window,
//! so even a flow that never filled the link shows it in its densest stretches. The
//! flow's own rate over that capacity is how busy it kept the bottleneck — counted, as
//! the bottleneck's busy time is, from when the flow first came near that rate (the end
//! of its slow start or startup), not from its first packet.
//!
//! A flow that never fills the link (a window of two segments, a shallow queue dropping
//! everything above it) delivers at its own rate in every 16-ACK stretch, so that
//! percentile is its rate, not the link's. Its ACKs still come in pairs spaced by the
//! bottleneck: each ACK's bytes over the gap since the previous one (a packet pair) sit in
//! a cluster at the link's rate. That cluster is the capacity wherever it shows: the
//! percentile runs high with ACK jitter on a full link and low where the flow left the
//! link idle between bursts, while a pair times one serialisation. On a fast link a
//! pair's gap is too short to time (below `MIN_SPAN_NS`); a train of such ACKs — a burst
//! of a small window or send buffer leaving the bottleneck back to back — is timed instead
//! once it spans that long.
//!
//! At the receiver the data segments themselves arrive as the bottleneck let them go: a
//! segment's bytes over the gap since the one before it is the same packet pair, read
//! before the receiver's delayed ACKs fold two arrivals (and the idle gap between a small
//! window's bursts) into one sample. Only there: upstream of the bottleneck (a sender, a
//! middlebox before it) data leaves spaced by a faster link or by the sender itself.

/// ACK events a rate sample spans: enough to smooth delayed and stretch ACKs.
const SPAN_EVENTS: usize = 16;
/// Shorter spans are timer noise (interrupt coalescing, capture timestamps).
const MIN_SPAN_NS: i64 = 200_000;
/// A train of ACKs a long gap ended before it spanned `MIN_SPAN_NS` is still timed when it
/// spans this long: a small buffer's burst of a few segments on a fast link, its ACKs
/// closer than `MIN_SPAN_NS` and then a round trip's silence. Interrupt coalescing hands
/// over ACKs a few µs apart, well below it.
const SHORT_TRAIN_NS: i64 = 50_000;
/// Histogram bins per factor of two, from 1 kbit/s up.
const BINS_PER_OCTAVE: f64 = 8.0;
const BINS: usize = 8 * 28;
const FLOOR_BPS: f64 = 1e3;
/// A cluster of packet-pair samples believed as the link's rate: this many samples and
/// this share of them, and no slower than this share of the 16-ACK percentile (a cluster
/// well below it is the sender's own spacing, not the bottleneck's).
const PAIR_MIN_SAMPLES: u32 = 16;
const PAIR_MIN_SHARE: f64 = 0.1;
const PAIR_FLOOR: f64 = 0.8;
/// Windows of at least this long time what the flow sustained: a token bucket's bursts
/// (a `tc` shaper, a policer) leave at the line's rate between refills, so trains and
/// 16-ACK spans time the line; over a window of `SUSTAIN_NS` a bucket of depth B adds at
/// most B / `SUSTAIN_NS` to its rate (32 kB: 2.6 Mbit/s).
const SUSTAIN_NS: i64 = 100_000_000;
/// Windows needed before what they sustained is read: a second of transfer.
const SUSTAIN_WINDOWS: u32 = 10;
/// Data arrivals: about one timed pair in four kept (`draw & mask == 0`). A cluster is a
/// share of the pairs, so a random subsample finds the same one, at a quarter of the cost.
const ARRIVAL_KEEP_MASK: u32 = 3;

#[derive(Debug, Clone)]
struct Meter {
    ring: [(i64, u64); SPAN_EVENTS],
    next: usize,
    filled: bool,
    /// Rates over `SPAN_EVENTS` ACKs.
    spans: Histogram,
    /// One ACK's bytes over the gap since the one before: packet-pair rates. Its `last` is
    /// the last delivery.
    pairs: Pairs,
    /// (bin, ts, delivered) each time the highest sample reached a new bin: when the
    /// flow first came near a rate, and how much it had delivered by then.
    climbs: Vec<(u16, i64, u64)>,
    /// The last delivery before the first slow start ended in a loss, if it did.
    slow_start_end: Option<(i64, u64)>,
    /// Where the current window of at least `SUSTAIN_NS` began, and the rates of those
    /// closed (allocated at the first: shorter flows never need it).
    sustain_from: (i64, u64),
    sustained: Option<Box<Histogram>>,
}

/// Packet-pair rates of a stream of events (ACKs, or data arrivals): each event's bytes
/// over the gap since the one before; gaps too short to time are timed together as a train.
#[derive(Debug, Clone)]
struct Pairs {
    rates: Histogram,
    /// The last event: when, and the bytes counted so far.
    last: (i64, u64),
    /// Where the current train of events less than `MIN_SPAN_NS` apart began.
    train: (i64, u64),
    /// Keep about one timed pair in `keep_mask + 1`, drawn at random (the others are only
    /// counted through): a rate sample costs a division, and data arrives with every other
    /// packet. Drawn, not every n-th: a small window's pairs repeat with a period of a few,
    /// and a fixed stride would keep only one kind.
    keep_mask: u32,
    draw: u32,
}

impl Pairs {
    /// `keep_mask`: 0 keeps every pair, 3 one in four (a power of two less one).
    fn new(ts: i64, total: u64, keep_mask: u32) -> Pairs {
        Pairs { rates: Histogram::EMPTY, last: (ts, total), train: (ts, total), keep_mask, draw: 0x9e37_79b9 }
    }

    /// A timed pair of `bytes` over `span_ns`, kept as `keep_mask` says.
    #[inline]
    fn sample(&mut self, bytes: u64, span_ns: i64) {
        // xorshift32: fixed seed, so every run keeps the same pairs.
        self.draw ^= self.draw << 13;
        self.draw ^= self.draw >> 17;
        self.draw ^= self.draw << 5;
        if self.draw & self.keep_mask == 0 {
            self.rates.add(bytes, span_ns);
        }
    }

    /// An event at `ts` with `total` bytes counted so far; `skip`: its gap is not the
    /// path's (an application's pause is in it), so it only starts a new train.
    #[inline]
    fn on_event(&mut self, ts: i64, total: u64, skip: bool) {
        let (t_prev, d_prev) = self.last;
        // A gap long enough to time is a pair of its own and starts a train; shorter ones
        // are timed together once the train spans that long.
        let long_gap = ts - t_prev >= MIN_SPAN_NS;
        let (t0, d0) = if long_gap { (t_prev, d_prev) } else { self.train };
        let (train_t, train_d) = self.train;
        if long_gap && t_prev - train_t >= SHORT_TRAIN_NS && d_prev > train_d {
            self.sample(d_prev - train_d, t_prev - train_t);
        }
        if skip {
            self.train = (ts, total);
        } else if ts - t0 >= MIN_SPAN_NS {
            if total > d0 {
                self.sample(total - d0, ts - t0);
            }
            self.train = (ts, total);
        }
        self.last = (ts, total);
    }

    /// The mean of the pair rates in the fastest cluster above `above` that holds enough
    /// samples to be a rate and not noise: of the runs of adjacent bins whose three-bin
    /// windows all hold enough, the fastest run's densest window. No pair leaves the
    /// bottleneck faster than its rate; a slower cluster apart from it is the sender's own
    /// spacing (BBR pacing below the link) or idle gaps, however dense.
    fn cluster_bps(&self, above: f64) -> Option<f64> {
        let b = &self.rates.counts;
        let first = bin_of(above) + 1;
        let around = |i: usize| i.saturating_sub(1).max(first)..=(i + 1).min(BINS - 1);
        let count = |i: usize| around(i).map(|j| b[j]).sum::<u32>();
        let enough = |n: u32| n >= PAIR_MIN_SAMPLES && n as f64 >= self.rates.samples as f64 * PAIR_MIN_SHARE;
        // A window wholly above the highest sample holds none: the search starts below.
        let top = (first..=(self.rates.highest + 1).min(BINS - 1)).rev().find(|&i| enough(count(i)))?;
        let bottom = (first..=top).rev().take_while(|&i| enough(count(i))).last().unwrap_or(top);
        let best = (bottom..=top).max_by_key(|&i| (count(i), std::cmp::Reverse(i))).unwrap_or(top);
        Some(self.rates.mean(around(best)))
    }
}

/// Rate samples by bin, with each bin's rates summed: a bin spans 9 %, its samples' mean
/// is the rate.
#[derive(Debug, Clone)]
struct Histogram {
    counts: [u32; BINS],
    sums: [f64; BINS],
    samples: u32,
    /// The highest bin holding a sample (0 when none does).
    highest: usize,
}

impl Histogram {
    const EMPTY: Histogram = Histogram { counts: [0; BINS], sums: [0.0; BINS], samples: 0, highest: 0 };

    /// A sample of `bytes` delivered over `span_ns`; its bin.
    fn add(&mut self, bytes: u64, span_ns: i64) -> usize {
        let bps = bytes as f64 * 8e9 / span_ns as f64;
        let bin = bin_of(bps);
        self.counts[bin] += 1;
        self.sums[bin] += bps;
        self.samples += 1;
        self.highest = self.highest.max(bin);
        bin
    }

    /// The mean rate of the samples in bins `bins`.
    fn mean(&self, bins: std::ops::RangeInclusive<usize>) -> f64 {
        let n: u32 = self.counts[bins.clone()].iter().sum();
        self.sums[bins].iter().sum::<f64>() / n as f64
    }

    /// The rate `q` of the samples are at or below (the mean of its bin's samples).
    fn percentile(&self, q: f64) -> Option<f64> {
        let want = (self.samples as f64 * q).ceil() as u32;
        let mut seen = 0;
        for (i, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= want {
                return Some(self.mean(i..=i));
            }
        }
        None
    }
}

/// Bytes delivered per round trip: a round closes at the first delivery a round trip after
/// it began, and the next begins there.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundRate {
    /// The round under way: when it began and what had been delivered then.
    from: Option<(i64, u64)>,
}

impl RoundRate {
    /// At `ts`, rounds of `round_ns`: the rate (bytes/ns) of the round this closed, if it
    /// closed one. `delivered` (bytes so far) is read only when a round closes or the first
    /// begins.
    #[inline]
    pub fn at(&mut self, ts: i64, round_ns: i64, delivered: impl FnOnce() -> u64) -> Option<f64> {
        match self.from {
            Some((t0, _)) if ts - t0 < round_ns => None,
            from => {
                let d = delivered();
                self.from = Some((ts, d));
                from.map(|(t0, d0)| d.saturating_sub(d0) as f64 / (ts - t0) as f64)
            }
        }
    }
}

/// Allocated at the first delivery (and the first data segment): flows that carry no data
/// cost two pointers.
#[derive(Debug, Clone, Default)]
pub struct DeliveryRate {
    meter: Option<Box<Meter>>,
    /// Data segments as they reached the capture point: packet pairs of their own.
    arrivals: Option<Box<Pairs>>,
}

impl DeliveryRate {
    /// `delivered`: cumulative bytes acknowledged or SACKed, seen at `ts`. An
    /// `app_limited` sample (the segment it delivered was sent while the sender had run out
    /// of data) moves the spans on but is not a rate of the path: the application's pauses
    /// are in it.
    pub fn on_delivered(&mut self, ts: i64, delivered: u64, app_limited: bool) {
        let m = self.meter.get_or_insert_with(|| {
            Box::new(Meter {
                ring: [(0, 0); SPAN_EVENTS],
                next: 0,
                filled: false,
                spans: Histogram::EMPTY,
                pairs: Pairs::new(ts, delivered, 0),
                climbs: Vec::new(),
                slow_start_end: None,
                sustain_from: (ts, delivered),
                sustained: None,
            })
        });
        m.pairs.on_event(ts, delivered, app_limited);
        // Every delivery counts here, an application's pauses too: they only lower the
        // windows they fall in, and the percentile read is of the busiest.
        let (t0, d0) = m.sustain_from;
        if ts - t0 >= SUSTAIN_NS {
            m.sustained.get_or_insert_with(|| Box::new(Histogram::EMPTY)).add(delivered - d0, ts - t0);
            m.sustain_from = (ts, delivered);
        }
        if m.filled && !app_limited {
            let (t0, d0) = m.ring[m.next];
            let span = ts - t0;
            if span >= MIN_SPAN_NS && delivered > d0 {
                let bin = m.spans.add(delivered - d0, span);
                if m.climbs.last().map_or(true, |c| (c.0 as usize) < bin) {
                    m.climbs.push((bin as u16, ts, delivered));
                }
            }
        }
        m.ring[m.next] = (ts, delivered);
        m.next = (m.next + 1) % SPAN_EVENTS;
        m.filled |= m.next == 0;
    }

    /// A data segment of `bytes` reached the capture point at `ts` (each copy that did,
    /// retransmissions too: each crossed the bottleneck).
    #[inline]
    pub fn on_arrival(&mut self, ts: i64, bytes: u32) {
        let a = self.arrivals.get_or_insert_with(|| Box::new(Pairs::new(ts, 0, ARRIVAL_KEEP_MASK)));
        let total = a.last.1 + bytes as u64;
        a.on_event(ts, total, false);
    }

    /// The rate `q` of the samples are at or below (the mean of its bin's samples), if any
    /// were taken.
    pub fn percentile_bps(&self, q: f64) -> Option<f64> {
        let m = self.meter.as_ref().filter(|m| m.spans.samples >= SPAN_EVENTS as u32)?;
        m.spans.percentile(q)
    }

    /// The rate `q` of the windows of at least `SUSTAIN_NS` stayed at or below, once
    /// there are `SUSTAIN_WINDOWS` of them.
    pub fn sustained_bps(&self, q: f64) -> Option<f64> {
        let h = self.meter.as_ref()?.sustained.as_ref().filter(|h| h.samples >= SUSTAIN_WINDOWS)?;
        h.percentile(q)
    }

    /// The bottleneck's rate: the densest cluster of packet-pair samples, unless it is
    /// well below the `q` percentile of the 16-ACK samples (or there is none): then that
    /// percentile. `downstream`: the capture point is past the bottleneck (the receiver),
    /// so the data's own arrivals time it too, and the faster of the two clusters is the
    /// link's (delayed ACKs only ever slow a pair down).
    pub fn capacity_bps(&self, q: f64, downstream: bool) -> Option<f64> {
        self.capacity(q, downstream).map(|(rate, _)| rate)
    }

    /// Whether packet pairs, not only stretches of ACKs, timed the capacity: the link's own
    /// serialisation, which a sender pacing itself never shows.
    pub fn capacity_from_pairs(&self, q: f64, downstream: bool) -> bool {
        self.capacity(q, downstream).is_some_and(|(_, pairs)| pairs)
    }

    /// The capacity, and whether a packet-pair cluster gave it.
    fn capacity(&self, q: f64, downstream: bool) -> Option<(f64, bool)> {
        let spans = self.percentile_bps(q)?;
        // Never below the rate half the stretches sustained: the link carried that, so a
        // cluster under it times something else (the sender's own spacing).
        let above = spans * PAIR_FLOOR;
        let acks = self.meter.as_ref().and_then(|m| m.pairs.cluster_bps(above));
        let data = self.arrivals.as_ref().filter(|_| downstream).and_then(|a| a.cluster_bps(above));
        Some(match acks.into_iter().chain(data).reduce(f64::max) {
            Some(p) => (p.max(self.percentile_bps(0.5).unwrap_or(0.0)), true),
            None => (spans, false),
        })
    }

    /// The first slow start ended (its first loss): busy time counts from here.
    pub fn slow_start_ended(&mut self) {
        if let Some(m) = self.meter.as_mut() {
            m.slow_start_end.get_or_insert(m.pairs.last);
        }
    }

    /// The mean delivery rate from the first time a sample came within `near` of `rate`
    /// — or from the end of slow start, when later — to the last delivery, with the share
    /// of the delivery time that span covers and its length (ns). A slow start's bursts
    /// leave the bottleneck at its rate rounds before they fill it: the rounds between are
    /// not its busy time. Where the first slow start ended before the flow came near that
    /// rate (`ended`: the meter's point when its rate stopped growing, startup.rs) the span
    /// starts there instead: a loss cut it short, and the climb back is the loss's time.
    pub fn rate_since_near(&self, rate: f64, near: f64, ended: Option<(i64, u64)>) -> Option<(f64, f64, i64)> {
        let m = self.meter.as_ref()?;
        let near_at = m.climbs.iter().find(|c| bin_middle(c.0 as usize) >= rate * near).map(|c| (c.1, c.2))?;
        let (t0, d0) = match ended {
            Some(e) if e.0 < near_at.0 => e,
            _ => m.slow_start_end.filter(|e| e.0 > near_at.0).unwrap_or(near_at),
        };
        let (t1, d1) = m.pairs.last;
        let first = m.climbs.first().map_or(t0, |c| c.1.min(t0));
        (t1 > t0).then(|| ((d1 - d0) as f64 * 8e9 / (t1 - t0) as f64, (t1 - t0) as f64 / (t1 - first).max(1) as f64, t1 - t0))
    }
}

/// The histogram bin of a rate: ⌊8·log2(bps / 1 kbit/s)⌋, below the top bin.
fn bin_of_log2(bps: f64) -> usize {
    (((bps / FLOOR_BPS).max(1.0).log2() * BINS_PER_OCTAVE) as usize).min(BINS - 1)
}

/// Where the bins of an octave start above its first, 2^(i/8) for i = 1..=8.
const BIN_STEPS: [f64; 8] = [
    1.0905077326652577, 1.189207115002721, 1.2968395546510096, std::f64::consts::SQRT_2,
    1.5422108254079407, 1.681792830507429, 1.8340080864093424, 2.0,
];
/// Edges of `BIN_STEPS` at or below 1 + c/16, for c = 0..16.
const EDGES_BELOW_SIXTEENTH: [u8; 16] = [0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6, 7, 7];
/// Closer than this (relative) to a bin's edge, `bin_of_log2` decides: the float log2's
/// error (an ulp) is far below it, so elsewhere both give the same bin.
const EDGE_HAIR: f64 = 1e-9;

/// Per bin of an octave, the fractions a hair clear of its lower and upper edge.
const CLEAR_ABOVE: [f64; 8] = {
    let mut a = [1.0 + EDGE_HAIR; 8];
    let mut i = 1;
    while i < 8 {
        a[i] = BIN_STEPS[i - 1] * (1.0 + EDGE_HAIR);
        i += 1;
    }
    a
};
const CLEAR_BELOW: [f64; 8] = {
    let mut a = [0.0; 8];
    let mut i = 0;
    while i < 8 {
        a[i] = BIN_STEPS[i] * (1.0 - EDGE_HAIR);
        i += 1;
    }
    a
};

/// [`bin_of_log2`] without a log2 per rate sample (two per ACK that delivered): the octave
/// from the float's exponent, the bin within it from the seven edges between.
fn bin_of(bps: f64) -> usize {
    let y = (bps / FLOOR_BPS).max(1.0); // a NaN rate gives 1 here, as in bin_of_log2
    let bits = y.to_bits();
    let octave = (bits >> 52) as usize - 1023; // y >= 1: sign 0, exponent >= 1023
    if octave >= BINS / 8 {
        return bin_of_log2(bps); // the top bin or beyond (or infinite)
    }
    let m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52)); // y / 2^octave, in [1, 2)
    // Edges are more than 1/16 apart: the top four bits of the fraction leave one to test.
    let mut within = EDGES_BELOW_SIXTEENTH[(bits >> 48) as usize & 15] as usize;
    within += (m >= BIN_STEPS[within]) as usize;
    if m < CLEAR_ABOVE[within] || m > CLEAR_BELOW[within] {
        return bin_of_log2(bps);
    }
    8 * octave + within
}

fn bin_middle(i: usize) -> f64 {
    FLOOR_BPS * 2f64.powf((i as f64 + 0.5) / BINS_PER_OCTAVE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_without_log2_are_the_log2_bins() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rates = vec![0.0, 1.0, 999.0, 1e3, 1e15, 1e300, f64::INFINITY, f64::NAN, f64::MIN_POSITIVE];
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            rates.push(10f64.powf(2.0 + (x % 1_000_000) as f64 * 1.3e-5)); // 100 b/s to 1 Pb/s
        }
        // Every edge, and the floats next to it.
        for k in 0..BINS + 8 {
            let edge = FLOOR_BPS * 2f64.powf(k as f64 / BINS_PER_OCTAVE);
            for d in -3i64..=3 {
                rates.push(f64::from_bits((edge.to_bits() as i64 + d) as u64));
                rates.push(edge * (1.0 + d as f64 * 1e-10));
                rates.push(edge * (1.0 + d as f64 * 1e-8));
            }
        }
        for r in rates {
            assert_eq!(bin_of(r), bin_of_log2(r), "{r:e}");
        }
    }

    #[test]
    fn steady_acks_give_their_rate() {
        // 1448 B acknowledged every 116 µs: 100 Mbit/s.
        let mut r = DeliveryRate::default();
        for i in 0..200u64 {
            r.on_delivered(i as i64 * 115_840, i * 1448, false);
        }
        let p = r.percentile_bps(0.9).unwrap();
        assert!((100e6 / 1.05..100e6 * 1.05).contains(&p), "{p}");
    }

    #[test]
    fn a_token_bucket_s_bursts_time_the_line_and_its_windows_the_bucket() {
        // 20 Mbit/s with a 32 kB bucket, 2 s: every 12.7 ms a burst of 22 segments acked
        // 10 µs apart (the line beyond it). Trains read the line; 100 ms windows the bucket.
        let mut r = DeliveryRate::default();
        let (mut delivered, period) = (0u64, 22 * 1448 * 8 * 1_000_000_000 / 20_000_000);
        for burst in 0..157i64 {
            for k in 0..22i64 {
                delivered += 1448;
                r.on_delivered(burst * period + k * 10_000, delivered, false);
            }
        }
        assert!(r.capacity_bps(0.9, false).unwrap() > 500e6, "{:?}", r.capacity_bps(0.9, false));
        let sustained = r.sustained_bps(0.9).unwrap();
        assert!((19e6..22e6).contains(&sustained), "{sustained}");
        // A FIFO at 20 Mbit/s, busy throughout: both read its rate.
        let mut f = DeliveryRate::default();
        for i in 0..3_500u64 {
            f.on_delivered(i as i64 * 579_200, (i + 1) * 1448, false);
        }
        let (p, s) = (f.capacity_bps(0.9, false).unwrap(), f.sustained_bps(0.9).unwrap());
        assert!((19e6..21e6).contains(&p) && (19e6..21e6).contains(&s), "{p} {s}");
    }

    #[test]
    fn a_second_of_windows_before_what_they_sustained_is_read() {
        let mut r = DeliveryRate::default();
        for i in 0..1_000u64 {
            r.on_delivered(i as i64 * 579_200, (i + 1) * 1448, false); // 0.58 s
        }
        assert_eq!(r.sustained_bps(0.9), None);
    }

    #[test]
    fn the_busy_rate_is_counted_from_when_the_flow_came_near_it() {
        // 1 s at 10 Mbit/s (a slow start, coarsely), then 1 s at 100 Mbit/s.
        let mut r = DeliveryRate::default();
        let mut d = 0u64;
        for i in 0..1000i64 {
            d += 1250;
            r.on_delivered(i * 1_000_000, d, false);
        }
        for i in 0..8634i64 {
            d += 1448;
            r.on_delivered(1_000_000_000 + i * 115_840, d, false);
        }
        let cap = r.percentile_bps(0.9).unwrap();
        let (rate, span, _) = r.rate_since_near(cap, 0.8, None).unwrap();
        assert!((95e6..105e6).contains(&rate), "{rate}");
        assert!((0.45..0.55).contains(&span), "{span}");
    }

    #[test]
    fn a_rate_near_a_bin_s_edge_is_its_samples_not_the_bin_s_middle() {
        // 101.5 Mbit/s, an ACK per two segments (228 µs apart): the bin holding it spans
        // 101.0-110.1 Mbit/s, its middle 105.5.
        let mut r = DeliveryRate::default();
        for i in 0..2000u64 {
            r.on_delivered((i as f64 * 2896.0 * 8e9 / 101.5e6) as i64, i * 2896, false);
        }
        let cap = r.capacity_bps(0.9, false).unwrap();
        assert!((101.5e6 * 0.99..101.5e6 * 1.01).contains(&cap), "{cap}");
    }

    /// `rounds` bursts, one every `period` ns, of `acks` ACKs of 2,896 B `gap` ns apart.
    fn bursts(rounds: i64, period: i64, acks: i64, gap: i64) -> DeliveryRate {
        let mut r = DeliveryRate::default();
        let mut d = 0u64;
        for round in 0..rounds {
            for k in 0..acks {
                d += 2896;
                r.on_delivered(round * period + k * gap, d, false);
            }
        }
        r
    }

    #[test]
    fn a_burst_of_two_acks_then_silence_times_the_link() {
        // 156 Mbit/s link, a small send buffer: each millisecond two ACKs 148 µs apart
        // (the link's spacing), then nothing until the next burst.
        let r = bursts(1000, 1_000_000, 2, 148_500);
        let cap = r.capacity_bps(0.9, false).unwrap();
        assert!((150e6..162e6).contains(&cap), "{cap}");
    }

    #[test]
    fn the_busy_rate_is_counted_from_the_end_of_slow_start() {
        // 100 Mbit/s: slow start's rounds of 16-ACK bursts at the link's rate, the link idle
        // half of each round (1 s), then the loss that ended it and 2 s of a full link.
        let mut r = DeliveryRate::default();
        let (mut t, mut d) = (0i64, 0u64);
        for _ in 0..100 {
            for _ in 0..32 {
                t += 115_840;
                d += 1448;
                r.on_delivered(t, d, false);
            }
            t += 32 * 115_840;
        }
        r.slow_start_ended();
        for _ in 0..17_000 {
            t += 115_840;
            d += 1448;
            r.on_delivered(t, d, false);
        }
        let cap = r.capacity_bps(0.9, false).unwrap();
        let (rate, _, _) = r.rate_since_near(cap, 0.8, None).unwrap();
        assert!((97e6..103e6).contains(&rate), "{rate}");
    }

    #[test]
    fn a_slow_start_ended_short_of_the_link_starts_its_busy_time() {
        // 100 Mbit/s: 0.1 s of slow start at 10 Mbit/s cut short by a loss, 1.4 s of a
        // segment every 200 ms (its timer's pace), then 2 s of a full link.
        let mut r = DeliveryRate::default();
        let (mut t, mut d) = (0i64, 0u64);
        for _ in 0..86 {
            t += 1_158_400;
            d += 1448;
            r.on_delivered(t, d, false);
        }
        let ended = Some((t, d)); // where the rate stopped growing, near enough
        for _ in 0..7 {
            t += 200_000_000;
            d += 1448;
            r.on_delivered(t, d, false);
        }
        for _ in 0..17_265 {
            t += 115_840;
            d += 1448;
            r.on_delivered(t, d, false);
        }
        let cap = r.capacity_bps(0.9, false).unwrap();
        let (full, _, _) = r.rate_since_near(cap, 0.8, None).unwrap();
        assert!((97e6..103e6).contains(&full), "{full}");
        let (rate, share, _) = r.rate_since_near(cap, 0.8, ended).unwrap();
        assert!((55e6..60e6).contains(&rate), "{rate}");
        assert!(share > 0.95, "{share}");
    }

    #[test]
    fn a_two_segment_window_still_shows_the_link_in_its_ack_pairs() {
        // 21.6 Mbit/s link, 3.8 ms RTT, two segments a round: the second ACK of each round
        // comes 536 µs (one 1,448 B segment at the link's rate) after the first.
        let mut r = DeliveryRate::default();
        let mut d = 0u64;
        for round in 0..400i64 {
            let t = round * 3_800_000;
            d += 1448;
            r.on_delivered(t, d, false);
            d += 1448;
            r.on_delivered(t + 536_000, d, false);
        }
        let spans = r.percentile_bps(0.9).unwrap();
        assert!(spans < 7e6, "{spans}"); // the flow's own rate
        let cap = r.capacity_bps(0.9, false).unwrap();
        assert!((20e6..23.5e6).contains(&cap), "{cap}");
    }

    /// 1.66 Mbit/s link, 576 B packets (2.77 ms each), 5.7 ms RTT: a window of two segments
    /// arrives as a pair 2.77 ms apart every 11.6 ms, and the receiver's delayed ACK answers
    /// each pair once.
    fn two_segment_rounds_at_the_receiver() -> DeliveryRate {
        let mut r = DeliveryRate::default();
        let mut d = 0u64;
        for round in 0..300i64 {
            let t = round * 11_620_000;
            r.on_arrival(t, 536);
            r.on_arrival(t + 2_770_000, 536);
            d += 1072;
            r.on_delivered(t + 2_770_000, d, false);
        }
        r
    }

    #[test]
    fn delayed_acks_hide_the_link_that_the_data_s_arrivals_show() {
        let r = two_segment_rounds_at_the_receiver();
        let acks_only = r.capacity_bps(0.9, false).unwrap();
        assert!((700e3..780e3).contains(&acks_only), "{acks_only}"); // the flow's own rate
        let cap = r.capacity_bps(0.9, true).unwrap();
        assert!((1.5e6..1.7e6).contains(&cap), "{cap}");
        assert!(r.capacity_from_pairs(0.9, true));
    }

    #[test]
    fn a_send_buffer_s_bursts_on_a_fast_link_show_it_in_ack_trains() {
        // 191 Mbit/s link, 7.4 ms RTT, a 16 KB send buffer: one burst a round, its ACKs
        // (one per two segments) 121 µs apart, too close to time one by one.
        let r = bursts(300, 7_400_000, 6, 121_300);
        let spans = r.percentile_bps(0.9).unwrap();
        assert!(spans < 30e6, "{spans}"); // the flow's own rate
        let cap = r.capacity_bps(0.9, false).unwrap();
        assert!((180e6..205e6).contains(&cap), "{cap}");
    }

    #[test]
    fn a_sender_pacing_below_the_link_leaves_the_link_its_fastest_cluster() {
        // 10 Mbit/s link, an ACK per 1448 B segment. A sender pacing at 60 % of it (BBR
        // below its estimate): twelve segments 1.93 ms apart, then four that queued at the
        // bottleneck and left it back to back, 1.16 ms apart. The pacing's pairs are three
        // times as many; the link's are the fastest that are many enough.
        let mut r = DeliveryRate::default();
        let (mut t, mut d) = (0i64, 0u64);
        for i in 0..1600i64 {
            t += if i % 16 < 12 { 1_930_667 } else { 1_158_400 };
            d += 1448;
            r.on_delivered(t, d, false);
        }
        let cap = r.capacity_bps(0.9, false).unwrap();
        assert!((9.5e6..10.5e6).contains(&cap), "{cap}");
    }

    #[test]
    fn a_full_link_with_jittery_acks_keeps_its_rate() {
        // 100 Mbit/s, an ACK per two segments, gaps jittering ±30 %.
        let mut r = DeliveryRate::default();
        let (mut t, mut d) = (0i64, 0u64);
        for i in 0..5000i64 {
            t += 231_680 * (70 + (i * 37 % 61)) / 100;
            d += 2896;
            r.on_delivered(t, d, false);
        }
        let cap = r.capacity_bps(0.9, false).unwrap();
        assert!((95e6..115e6).contains(&cap), "{cap}");
    }

    #[test]
    fn too_few_acks_say_nothing() {
        let mut r = DeliveryRate::default();
        for i in 0..20u64 {
            r.on_delivered(i as i64 * 1_000_000, i * 1448, false);
        }
        assert_eq!(r.percentile_bps(0.9), None);
    }

    #[test]
    fn samples_of_an_application_limited_sender_give_no_rate() {
        // One 1204 B response per 40 ms exchange: only the application's rate is in them.
        let mut r = DeliveryRate::default();
        for i in 0..100u64 {
            r.on_delivered(i as i64 * 40_000_000, i * 1204, true);
        }
        assert_eq!(r.capacity_bps(0.9, false), None);
    }
}

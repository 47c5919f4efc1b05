//! The limit state of a direction at each packet, and the time spent in each — the idea
//! of Linux's tcp_info chrono counters (busy, rwnd_limited, sndbuf_limited), extended
//! with zero window, recovery, cwnd and application states.

use super::cwnd::CwndEstimator;
use super::notes::{LimitState, RetransKind};
use super::pacing::PacingClock;
use super::rtt::MIN_RTO;
use super::sender::{Sender, View, AT_SENDER_NS};
use super::window::ESTIMATE_SLACK_SEGMENTS;

/// A flight that stayed within ±`FLAT_BAND` of one level for `FLAT_RTTS` round trips,
/// not cut by a loss, is a sender-side buffer limit: cwnd would have grown (RFC 5681 §3.1).
const FLAT_BAND: f64 = 0.12;
pub(super) const FLAT_RTTS: i64 = 8;
/// A plateau still flat this many round trips after it began had been the buffer's from its
/// start: its first FLAT_RTTS are credited to the send buffer too.
const PLATEAU_CREDIT_RTTS: i64 = 2 * FLAT_RTTS;
/// A flight below the plateau's band for at most this many round trips is a dip, not a new
/// level: BBR's drain phase paces one round at 0.75 of its rate. A cut congestion window
/// (CUBIC's β = 0.7, Reno's ½, a timeout's one segment) stays down for many rounds.
const DIP_RTTS: i64 = 1;
/// CUBIC's window W(t) = C·(t−K)³ + W_max (RFC 9438 §4.2, C = 0.4, in segments) stays
/// within WMAX_REACH segments of W_max while |t−K| < ∛(WMAX_REACH/C) s: 3.9 s flat whatever the
/// round trip, at the cwnd it lost at (or (1+β)/2 of it after fast convergence, §4.7). A
/// flight that grew back up to such a level is proven flat only once it outlasts that.
const WMAX_REACH: u64 = 3;
const CUBIC_FLAT_NS: i64 = 3_920_000_000;
/// Growth per round that shows a congestion window still opening inside that band: Reno
/// adds a segment a round, CUBIC at least about half of one (its TCP-friendly region);
/// a send buffer adds nothing. Below it — and two segments of ACK-timing noise — flat.
const CWND_GROWTH_PER_RTT: f64 = 0.25;
/// A full send buffer, or data queued behind a full cwnd, never runs dry: a sender that
/// sent the short tail of a write (nothing queued behind it) within this many round trips
/// is waiting on its application — at any vantage, since segment sizes travel.
const DRY_RTTS: i64 = 2;
/// A window held down (a slow reader's) is all any sender may send: one that keeps at
/// least this share (3/4) of it in flight is paced by the reader even when it never
/// touches the edge (BBR paces at the rate it is delivered) — not the window-bound time of
/// Linux's rwnd_limited chrono, which counts only sends the window stopped.
const HELD_WINDOW_FILL: (u64, u64) = (3, 4);
/// A pause is idle time (nothing outstanding, every byte sent acknowledged) of at least
/// this long: shorter spells are an ACK-clocked sender's turnaround between an ACK that
/// took all it had sent and the data that ACK released.
pub(super) const MIN_PAUSE_NS: i64 = 1_000_000;
/// Linux holds back a unit the receiver's window cannot take whole (tcp_tso_should_defer,
/// which then counts the sender rwnd-limited), and its units are at least this many
/// segments (tcp_min_tso_segs; BBR's too above 1.2 Mbit/s). Less room than that is a full
/// window — not under a window whose scale was inferred (a lower bound: its edge is not
/// known).
const DEFER_SEGMENTS: u64 = 2;
/// The timestamp clock's tick (Linux's TSval counts milliseconds).
pub(super) const TS_TICK_NS: i64 = 1_000_000;
/// Ticks a round trip must span for a flight rebuilt from timestamp echoes to be read
/// within a tick of ACKs of the window: on a shorter one that tick is half the window or
/// more, and the rebuilt flight cannot tell a full window from one with room.
const REBUILT_TICKS_MIN: i64 = 2;
/// Round trips after a retransmission timeout during which slow start may still hold the
/// sender near the one-segment loss window (RFC 5681 §3.1).
const LOSS_WINDOW_RTTS: i64 = 2;

#[derive(Debug, Clone, Default)]
pub struct LimitTracker {
    pub state: LimitState,
    /// The state once the ACKs seen so far reach the sender; away from the sender the
    /// time after `lag_ns` of silence belongs to it (e.g. an idle application).
    settled: LimitState,
    lag_ns: i64,
    /// The same delay with no queue on the path: the one that ends a pause, as the ACK
    /// that began it reached the sender past a drained queue and the data ending it met
    /// an empty one.
    idle_lag_ns: i64,
    /// Time charged per state since this direction's last new data.
    since_data: [i64; LimitState::ALL.len()],
    pub state_ns: [i64; LimitState::ALL.len()],
    last_ts: Option<i64>,
    /// Level and start of the current flat stretch of flight estimates.
    flat_level: u64,
    flat_since: i64,
    /// Highest flight in the stretch's first round, and in its last two (the one under way
    /// and the one before): a buffer's level wanders with how writes pack into it, up and
    /// back; an opening cwnd keeps what it gained.
    flat_first_peak: u64,
    /// When the stretch was found: its first round is watched from there, also when it
    /// began earlier (a level that stayed low began when the flight first fell).
    first_round_from: i64,
    flat_peak: u64,
    round_peak: u64,
    round_start: i64,
    /// Time in the cwnd state when the flat stretch began, and whether the stretch's
    /// unproven start was already credited to the send buffer.
    flat_cwnd_ns: i64,
    flat_credited: bool,
    /// Time in the send-buffer state when the flat stretch began, and whether the stretch
    /// was proven a plateau.
    flat_sndbuf_ns: i64,
    flat_proven: bool,
    /// Send-buffer time of a plateau the flight grew out of, and that plateau's band,
    /// pending what the flight does next (`end_stretch`).
    grown_out_ns: i64,
    grown_out_band: (f64, f64),
    /// When the flight fell below the stretch's band, while it has not come back.
    dip_since: Option<i64>,
    /// The cwnd estimate when the last loss recovery began (not undone as spurious), and
    /// its value when the stretch began: where CUBIC's window comes back to rest.
    lost_at: Option<u64>,
    flat_wmax: Option<u64>,
    /// When the stretch's flight first came within reach of that W_max.
    wmax_reached: Option<i64>,
    /// When the sender last sent the short tail of a write with nothing behind it.
    ran_dry_ns: Option<i64>,
    /// The window in force and the largest advertised before it.
    rwnd_now: u64,
    rwnd_peak: u64,
    /// The window over the time in the rwnd state: the window that limited the sender (a
    /// slow reader's is well below the largest advertised).
    rwnd_limited: WindowTime,
    /// Whether the window in force is at most half the largest advertised before it (the
    /// receiver holds at least as much unread data as it offers room for: Linux advertises
    /// its free buffer), and the window over the busy time it was.
    rwnd_held: bool,
    /// `state` is Rwnd or `rwnd_held`: a one-state gap adds to a window integral (kept
    /// with them, so the usual gap tests one flag).
    integrates_window: bool,
    pub held_down: WindowTime,
    /// Whether the sender, held by cwnd or a flat flight as decided, keeps most of a
    /// held-down window in flight (`HELD_WINDOW_FILL`), and the time it did.
    reader_paced: bool,
    pub reader_paced_ns: i64,
    /// Time per state when the flight first reached the edge of a window field read
    /// unscaled (`unscaled_edge_reached`).
    unscaled_edge_from: Option<[i64; LimitState::ALL.len()]>,
    /// Frames where the rwnd state was entered (evidence), a few kept.
    pub first_frame: [u64; LimitState::ALL.len()],
    /// Pauses (`MIN_PAUSE_NS`): the idle time charged so far, the one under way, and
    /// where they fell in the transfer.
    idle_seen_ns: i64,
    pause_ns: i64,
    pause_from: i64,
    pause_after_tail: bool,
    /// The data that ended the pause under way followed packets sent and never seen here.
    pause_sent_unseen: bool,
    /// When a pause just ended began, if it was read as the sender's wait on its
    /// retransmission timer after a loss this capture point never saw (taken by
    /// [`Self::take_unseen_loss`]).
    unseen_loss_from: Option<i64>,
    pub pauses: Pauses,
    /// When the peer last sent new data (a request this sender may answer).
    peer_data_ns: i64,
    /// Bursts of new data sent after new data from the peer that came since this side's
    /// own last: answers to requests (a request loop's count; a bulk download's one).
    pub answers: u32,
    /// Whether the newest data seen, and the data before it, ended a write; when the
    /// newest came.
    tail_last: bool,
    tail_before: bool,
    data_ns: i64,
    /// The sender's pacing clock (at the sender only), and the rwnd-state time it had not
    /// yet run out: busy time in Linux's chronos, which test the clock first.
    pub pacing: PacingClock,
    pub rwnd_paced_ns: i64,
    /// Idle time taken back as data outstanding before the capture point saw it
    /// (`outstanding_unseen`): busy for the sender, in no limit state seen here.
    pub unseen_ns: i64,
}

/// The transfer's pauses after a write's tail that the sender ended on its own — how
/// many, when the first began and the last ended, and the longest stretch between two of
/// them. Not a pause ended by a request (data from its peer during it): the request loop's
/// pace is the path's response time too. Not one after a full-sized segment: away from the
/// sender, a burst whose tail was lost on the way looks all acknowledged while the sender
/// waits for its retransmission timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pauses {
    /// Idle time in gaps of at least [`MIN_PAUSE_NS`], whatever ended them.
    pub idle_ns: i64,
    pub count: u32,
    pub first_from: i64,
    pub last_to: i64,
    pub longest_between_ns: i64,
}

impl Pauses {
    /// The longest stretch of the transfer `[start, end]` without a pause.
    pub fn longest_run_ns(&self, start: i64, end: i64) -> i64 {
        if self.count == 0 {
            return end - start;
        }
        self.longest_between_ns.max(self.first_from - start).max(end - self.last_to)
    }
}

/// Within a few round trips of a retransmission timeout, whose loss window of one segment
/// slow start is still growing back.
fn after_timeout(s: &Sender, ts: i64) -> bool {
    let srtt = s.rtt.srtt_ns.unwrap_or(0);
    s.recoveries.last().is_some_and(|r| r.kind == RetransKind::Rto && r.end_ns.map_or(true, |e| ts - e <= LOSS_WINDOW_RTTS * srtt))
}

/// Where CUBIC's window rests after a loss at cwnd `lost_at`: that cwnd, or (1+β)/2 of it
/// after fast convergence.
fn wmax_levels(lost_at: u64) -> [f64; 2] {
    let w = lost_at as f64;
    [w, w * (1.0 + super::congestion::CUBIC_BETA) / 2.0]
}

/// `level` is within reach of either resting level.
fn at_wmax(level: u64, lost_at: u64, mss: u64) -> bool {
    wmax_levels(lost_at).iter().any(|w| (level as f64 - w).abs() <= (WMAX_REACH * mss) as f64)
}

/// `level` is out of reach below both: a flight that starts there has to grow back.
fn below_wmax(level: u64, lost_at: u64, mss: u64) -> bool {
    (level as f64) < wmax_levels(lost_at)[1] - (WMAX_REACH * mss) as f64
}

/// Moves up to `ns` (not below zero) of time from state `from` to `to`; returns how much
/// moved.
fn move_time(times: &mut [i64; LimitState::ALL.len()], from: LimitState, to: LimitState, ns: i64) -> i64 {
    let moved = ns.min(times[from as usize]).max(0);
    times[from as usize] -= moved;
    times[to as usize] += moved;
    moved
}

/// A window integrated over time: how long, and its mean, the mean of the largest window
/// advertised before it, and its mean share of that over that time.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowTime {
    pub ns: i64,
    byte_ns: f64,
    peak_ns: f64,
    fill_ns: f64,
}

impl WindowTime {
    fn add(&mut self, dt: i64, window: u64, peak: u64) {
        self.ns += dt;
        self.byte_ns += window as f64 * dt as f64;
        self.peak_ns += peak as f64 * dt as f64;
        self.fill_ns += window as f64 / peak.max(1) as f64 * dt as f64;
    }

    fn mean_peak(&self) -> Option<u64> {
        (self.ns > 0).then(|| (self.peak_ns / self.ns as f64) as u64)
    }

    fn mean(&self) -> Option<u64> {
        (self.ns > 0).then(|| (self.byte_ns / self.ns as f64) as u64)
    }

    fn mean_fill(&self) -> Option<f64> {
        (self.ns > 0).then(|| self.fill_ns / self.ns as f64)
    }
}

/// How far a flight rebuilt away from the sender may fall short of the one it had: a
/// timestamp tick of ACKs (the window's share of a round trip a tick is), and two segments
/// besides. Not the tick on a round trip of under [`REBUILT_TICKS_MIN`] ticks (a LAN's, a
/// data centre's): there it would be most of the window, and every flight would read full.
fn rebuilt_slack(w: u64, mss: u64, srtt_ns: Option<i64>) -> u64 {
    let ticks = srtt_ns.filter(|&r| r >= REBUILT_TICKS_MIN * TS_TICK_NS);
    ESTIMATE_SLACK_SEGMENTS * mss + ticks.map_or(0, |r| w * TS_TICK_NS as u64 / r as u64)
}

/// A window whose scale was inferred is a lower bound fitted to the flight: the smallest
/// shift that holds it, where any larger one would too. Away from the sender, fitted to the
/// rebuilt flight with room for its noise, bytes outstanding more than a segment above it
/// say the scale is larger, not that the window held them. And one that never reached
/// `INFERRED_BINDING_SEGMENTS` segments cannot be shown to bind: any full segment out is
/// within a segment of it, so the full-window test holds whatever held the sender (a
/// request's single segment, a loss-limited cwnd of one or two). Away from the sender the
/// rebuilt flight's slack (`ESTIMATE_SLACK_SEGMENTS`) comes on top: a window fitted to a
/// flight of three or four segments there is the flight's own largest, read back.
pub(super) fn inferred_window_unproven(outstanding: u64, w: u64, peak: u64, mss: u64, inferred: bool, at_sender: bool) -> bool {
    let binding = INFERRED_BINDING_SEGMENTS + if at_sender { 0 } else { ESTIMATE_SLACK_SEGMENTS };
    inferred && peak.max(w) < binding * mss || above_inferred_window(outstanding, w, mss, inferred, at_sender)
}

/// Bytes outstanding more than a segment above a window inferred away from the sender.
fn above_inferred_window(outstanding: u64, w: u64, mss: u64, inferred: bool, at_sender: bool) -> bool {
    inferred && !at_sender && outstanding > w + mss
}

pub(super) const INFERRED_BINDING_SEGMENTS: u64 = 2;

/// The receiver's window for a decision, and whether its scale was inferred (a lower bound
/// fitted to the flight) rather than read from the handshake.
#[derive(Clone, Copy)]
struct Window {
    bytes: Option<u64>,
    inferred: bool,
    /// The largest window advertised before.
    peak: u64,
}

impl LimitTracker {
    /// Charges the time since the previous packet to the state then in force.
    #[inline(always)]
    pub fn charge(&mut self, ts: i64) {
        if let Some(prev) = self.last_ts {
            if ts > prev && self.state == self.settled {
                // One state for the whole gap (the usual case, inlined): no split.
                let dt = ts - prev;
                self.state_ns[self.state as usize] += dt;
                self.since_data[self.state as usize] += dt;
                if self.integrates_window {
                    self.charge_window(dt, ts);
                }
            } else if ts > prev {
                self.charge_split(ts - prev);
            }
        }
        self.last_ts = Some(ts);
    }

    /// Whether the gap ending at `ts` is charged as idle past the floor of the no-queue
    /// delay: then [`Self::set_idle_lag`] must be given the delay itself first.
    #[inline(always)]
    pub fn idle_lag_needed(&self, ts: i64) -> bool {
        self.settled == LimitState::Idle && self.state != self.settled && self.last_ts.is_some_and(|p| ts - p > self.idle_lag_ns)
    }

    pub fn set_idle_lag(&mut self, lag: i64) {
        self.idle_lag_ns = lag;
    }

    /// The window integrals of a one-state gap (out of line: most gaps have neither).
    fn charge_window(&mut self, dt: i64, ts: i64) {
        if self.state == LimitState::Rwnd {
            self.rwnd_limited.add(dt, self.rwnd_now, self.rwnd_peak);
            self.rwnd_paced_ns += (self.pacing.release_ns.min(ts) - (ts - dt)).max(0);
        }
        if self.rwnd_held && self.state.busy() {
            self.held_down.add(dt, self.rwnd_now, self.rwnd_peak);
            self.reader_paced_ns += self.reader_paced as i64 * dt;
        }
    }

    /// A gap of `dt` split between the state now (its first `lag_ns`) and the settled one.
    fn charge_split(&mut self, dt: i64) {
        let lag = if self.settled == LimitState::Idle { self.idle_lag_ns } else { self.lag_ns };
        let now_state = dt.min(lag);
        self.state_ns[self.state as usize] += now_state;
        self.state_ns[self.settled as usize] += dt - now_state;
        self.since_data[self.state as usize] += now_state;
        self.since_data[self.settled as usize] += dt - now_state;
        let limited = (self.state == LimitState::Rwnd) as i64 * now_state
            + (self.settled == LimitState::Rwnd) as i64 * (dt - now_state);
        if self.rwnd_held {
            let busy = self.state.busy() as i64 * now_state + self.settled.busy() as i64 * (dt - now_state);
            self.held_down.add(busy, self.rwnd_now, self.rwnd_peak);
            self.reader_paced_ns += self.reader_paced as i64 * now_state;
        }
        if limited > 0 {
            self.rwnd_limited.add(limited, self.rwnd_now, self.rwnd_peak);
        }
    }

    /// New data of this direction was seen at `ts`; `ends_write`: it was a write's short tail.
    pub fn data_seen(&mut self, ends_write: bool, last_ack_ns: i64, ts: i64) {
        self.answers += (self.peer_data_ns > self.data_ns) as u32;
        // A full segment after the queue ran dry that answers what the peer has sent since,
        // or, in a conversation, comes before any ACK could have prompted it (the next piece
        // of a reply written in pieces): the application wrote again; its queue is not dry.
        let conversation = self.answers > 0;
        if !ends_write && self.ran_dry_ns.is_some_and(|dry| self.peer_data_ns > dry || conversation && last_ack_ns < dry) {
            self.ran_dry_ns = None;
        }
        self.since_data = Default::default();
        self.tail_before = self.tail_last;
        self.tail_last = ends_write;
        self.data_ns = ts;
    }

    /// The last new data was not a whole number of segments: the sender's queue ran dry
    /// there (a write ended).
    pub fn write_ended(&self) -> bool {
        self.tail_last
    }

    /// The sender's queue ran dry at `ts`: it sent a write's short tail. A send buffer that
    /// holds the flight is never drained by its writer: whatever was flat until now was not
    /// one (as at a pause, in `update`).
    pub fn ran_dry(&mut self, ts: i64) {
        self.ran_dry_ns = Some(ts);
        self.flat_level = 0;
        self.dip_since = None;
    }

    /// The short segment taken for the sender's queue running dry was cut by the window
    /// (its rest came next): the queue never ran dry.
    pub fn dry_was_window(&mut self) {
        self.ran_dry_ns = None;
    }

    /// Moves the time charged since the last new data to `to` (known only afterwards,
    /// e.g. that the sender had run out of data).
    pub fn reassign_since_data(&mut self, to: LimitState) {
        let skip = [LimitState::Unknown, LimitState::ZeroWindow, LimitState::Rwnd, LimitState::Recovery, LimitState::Idle];
        for st in LimitState::ALL {
            if skip.contains(&st) || st == to {
                continue;
            }
            let t = std::mem::take(&mut self.since_data[st as usize]);
            self.state_ns[st as usize] -= t;
            self.state_ns[to as usize] += t;
        }
    }

    /// Feeds a fresh sample for plateau detection: the cwnd estimate `flight` and the bytes
    /// not yet cumulatively acknowledged. The send buffer holds those, SACKed ones too, so
    /// the higher of the two must stay in the band; the flight must stop growing (SACKed
    /// bytes come and go with reordering). In a loss recovery (`recovering`) the bytes
    /// outstanding rising past the band with the flight fallen below it show no growth: a
    /// full send buffer keeps new data back while SACKs drain the flight, and Linux merges
    /// the SACKed segments (tcp_shift_skb_data), freeing room in it. A congestion window
    /// keeps the flight up and sends past the level instead.
    pub fn on_flight_sample(&mut self, flight: u64, unacked: u64, recovering: bool, ts: i64, srtt: Option<i64>, mss: u64) {
        let level = flight.max(unacked);
        let lo = self.flat_level as f64 * (1.0 - FLAT_BAND);
        let hi = self.flat_level as f64 * (1.0 + FLAT_BAND);
        let f = level as f64;
        if self.grown_out_ns > 0 && !self.flat_proven && f >= self.grown_out_band.0 && f <= self.grown_out_band.1 {
            // Back at the old plateau's level: the buffer's level wanders (with how writes
            // pack into it); it had not grown.
            self.grown_out_ns = 0;
        }
        if self.flat_level > 0 && f < lo {
            let since = *self.dip_since.get_or_insert(ts);
            if srtt.is_some_and(|r| ts - since <= DIP_RTTS * r) {
                return;
            }
        }
        if self.flat_level == 0 || f < lo || f > hi {
            self.end_stretch(self.flat_level > 0 && f > hi && !(recovering && (flight as f64) < lo), ts, srtt, mss);
            // A level that stayed low began when the flight first fell.
            let start = if f < lo { self.dip_since.unwrap_or(ts) } else { ts };
            self.dip_since = None;
            self.flat_level = level;
            self.flat_since = start;
            // Only a flight that has to grow back to W_max rests there as CUBIC does; one back
            // at its old level at once was not cut.
            self.flat_wmax = self.lost_at.filter(|&w| below_wmax(level, w, mss));
            self.wmax_reached = None;
            self.flat_first_peak = flight;
            self.first_round_from = ts;
            self.flat_peak = flight;
            self.round_peak = flight;
            self.round_start = start;
            self.flat_cwnd_ns = self.state_ns[LimitState::Cwnd as usize];
            self.flat_sndbuf_ns = self.state_ns[LimitState::Sndbuf as usize];
            self.flat_credited = false;
            self.flat_proven = false;
            return;
        }
        self.dip_since = None;
        // Until a round trip is measured the stretch is still in its first round.
        if srtt.map_or(true, |r| ts - self.first_round_from <= r) {
            self.flat_first_peak = self.flat_first_peak.max(flight);
        }
        if srtt.is_some_and(|r| ts - self.round_start > r) {
            self.flat_peak = self.round_peak;
            self.round_peak = 0;
            self.round_start = ts;
        }
        self.round_peak = self.round_peak.max(flight);
        if self.wmax_reached.is_none() && self.flat_wmax.is_some_and(|w| at_wmax(flight, w, mss)) {
            self.wmax_reached = Some(ts);
        }
    }

    /// A loss recovery began with the cwnd estimate at `cwnd`.
    pub fn loss_began(&mut self, cwnd: u64) {
        self.lost_at = Some(cwnd);
    }

    /// The last recovery was undone (all its retransmissions spurious): no window was cut.
    pub fn loss_undone(&mut self) {
        self.lost_at = None;
    }

    /// The stretch's top: the highest flight of its last two rounds.
    fn top(&self) -> u64 {
        self.flat_peak.max(self.round_peak)
    }

    /// The flight kept growing inside the flat band, as an opening cwnd does.
    fn still_growing(&self, ts: i64, srtt: i64, mss: u64) -> bool {
        let rounds = (ts - self.flat_since) as f64 / srtt.max(1) as f64;
        let floor = (2.0f64).max(rounds * CWND_GROWTH_PER_RTT) * mss as f64;
        self.top() as f64 >= self.flat_first_peak as f64 + floor
    }

    /// The flight has stayed in one band, not growing as an opening cwnd does, for
    /// FLAT_RTTS round trips. No flight sample yet (the first round trips): nothing has
    /// been flat. The float test of growth runs last: it decides only old stretches.
    fn plateau_held(&self, ts: i64, srtt: i64, mss: u64) -> bool {
        self.flat_level != 0
            && ts - self.flat_since >= FLAT_RTTS * srtt
            && !self.wmax_reached.is_some_and(|t| ts - t < CUBIC_FLAT_NS)
            && !self.still_growing(ts, srtt, mss)
    }

    /// Decides the state after a packet. `rwnd`: the receiver's window for this
    /// direction (None if never advertised).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn update(
        &mut self,
        s: &Sender,
        view: &View,
        settled: &View,
        cwnd: &CwndEstimator,
        rwnd: Option<u64>,
        window_inferred: bool,
        ts: i64,
        frame: u64,
    ) -> LimitState {
        let plateau_held = |srtt: i64| self.plateau_held(ts, srtt, s.mss.max(536) as u64);
        let w = Window { bytes: rwnd, inferred: window_inferred, peak: self.rwnd_peak };
        let steady = s.at_sender() && self.pacing.steady();
        // Away from the sender, a recovery lasts until the ACK that ended it has reached the
        // sender, as the state now is that of one ACK→data delay ago: the settled state is not.
        let recovering = s.in_recovery_as_seen(ts);
        let state = Self::decide(s, view, cwnd, w, ts, &plateau_held, self.ran_dry_ns, steady, recovering);
        // The settled decision differs only in the flight and window it reads: with the
        // same ones (always at the sender, where the settled view is the view) it is `state`.
        let settled_w = Window { bytes: settled.rwnd, ..w };
        let same_inputs = settled.unacked == view.unacked && settled_w.bytes == w.bytes && recovering == s.in_recovery();
        let settled_state = if same_inputs {
            state
        } else {
            Self::decide_apart(s, settled, cwnd, settled_w, ts, &plateau_held, self.ran_dry_ns, steady, s.in_recovery())
        };
        if state == LimitState::Idle {
            // A send buffer never empties: whatever was flat before the pause was not it.
            self.end_stretch(false, ts, s.rtt.srtt_ns, s.mss.max(536) as u64);
            self.flat_level = 0;
            self.dip_since = None;
        }
        self.lag_ns = s.a2d_ns();
        // Its floor only: the whole of it reads the capacity, which only a gap longer than
        // the floor needs ([`Self::idle_lag_needed`]).
        self.idle_lag_ns = if settled_state == LimitState::Idle { s.base_a2d_floor_ns() } else { self.lag_ns };
        self.settled = if self.lag_ns == 0 { state } else { settled_state };
        self.follow_pause(ts);
        self.rwnd_now = rwnd.unwrap_or(0);
        self.rwnd_peak = self.rwnd_peak.max(self.rwnd_now);
        self.rwnd_held = rwnd.is_some_and(|w| 2 * w <= self.rwnd_peak);
        self.reader_paced = self.rwnd_held
            && matches!(state, LimitState::Cwnd | LimitState::Sndbuf)
            && view.unacked * HELD_WINDOW_FILL.1 >= self.rwnd_now * HELD_WINDOW_FILL.0;
        self.flat_proven |= state == LimitState::Sndbuf;
        if state == LimitState::Sndbuf
            && !self.flat_credited
            && s.rtt.srtt_ns.is_some_and(|r| ts - self.flat_since >= PLATEAU_CREDIT_RTTS * r)
        {
            self.credit_plateau();
        }
        if state != self.state && self.first_frame[state as usize] == 0 {
            self.first_frame[state as usize] = frame;
        }
        self.state = state;
        self.integrates_window = state == LimitState::Rwnd || self.rwnd_held;
        state
    }

    /// Whether idle time was charged since this direction's last new data.
    pub fn idle_since_data(&self) -> bool {
        self.since_data[LimitState::Idle as usize] > 0
    }

    /// New data reached the capture point `unseen_ns` after the sender had it outstanding:
    /// the idle time last charged in that while was not idle (Linux's busy chrono runs
    /// while a packet is out), nor any limit this point saw: unknown.
    pub fn outstanding_unseen(&mut self, unseen_ns: i64) {
        let (idle, unknown) = (LimitState::Idle, LimitState::Unknown);
        let moved = move_time(&mut self.since_data, idle, unknown, unseen_ns);
        self.unseen_ns += move_time(&mut self.state_ns, idle, unknown, moved);
        self.idle_seen_ns = self.idle_seen_ns.min(self.state_ns[idle as usize]);
    }

    /// Idle time charged in the gap before `ts` extends the pause under way; a gap without
    /// any ends it.
    #[inline]
    fn follow_pause(&mut self, ts: i64) {
        let idle_ns = self.state_ns[LimitState::Idle as usize];
        if idle_ns > self.idle_seen_ns {
            let gap = idle_ns - self.idle_seen_ns;
            if self.pause_ns == 0 {
                self.begin_pause(ts - gap, ts);
            }
            self.pause_ns += gap;
            self.idle_seen_ns = idle_ns;
        } else if self.pause_ns > 0 {
            self.end_pause();
        }
    }

    /// A pause found at `ts`, begun at `from`: notes whether the data it follows (not the
    /// data ending it, when it did) ended a write.
    #[inline(never)]
    fn begin_pause(&mut self, from: i64, ts: i64) {
        self.pause_from = from;
        self.pause_after_tail = if self.data_ns == ts { self.tail_before } else { self.tail_last };
    }

    /// New data after idle followed packets its sender sent that never reached the capture
    /// point (`ip_ids.rs`): the pause it ends may be the sender's wait on its timer.
    pub fn sent_unseen(&mut self) {
        self.pause_sent_unseen = true;
    }

    /// When the pause the last update ended began, if it was read as a timeout after a
    /// loss this capture point never saw; cleared by asking.
    #[inline]
    pub fn take_unseen_loss(&mut self) -> Option<i64> {
        self.unseen_loss_from.take()
    }

    /// The peer sent new data at `ts`.
    pub fn peer_spoke(&mut self, ts: i64) {
        self.peer_data_ns = ts;
    }

    #[inline(never)]
    fn end_pause(&mut self) {
        let (from, to) = (self.pause_from, self.pause_from + self.pause_ns);
        self.pause_ns = 0;
        let sent_unseen = std::mem::take(&mut self.pause_sent_unseen);
        // Away from the sender, a pause after a full segment that lasted Linux's least
        // retransmission timeout, with no request from the peer to end it, is a lost
        // tail's timeout: the tail never reached the capture point, so nothing looked
        // outstanding here while the sender waited on its timer (in recovery, busy in its
        // own chrono).
        // So too where the data ending it followed packets sent and never seen here.
        let away = self.lag_ns >= AT_SENDER_NS || sent_unseen;
        if away && !self.pause_after_tail && self.peer_data_ns < from && to - from >= MIN_RTO {
            let moved = move_time(&mut self.state_ns, LimitState::Idle, LimitState::Recovery, to - from);
            self.idle_seen_ns -= moved;
            self.unseen_loss_from = Some(from);
            return;
        }
        if to - from >= MIN_PAUSE_NS {
            self.pauses.idle_ns += to - from;
        }
        if to - from < MIN_PAUSE_NS || self.peer_data_ns >= from || !self.pause_after_tail {
            return;
        }
        let p = &mut self.pauses;
        if p.count == 0 {
            p.first_from = from;
        } else {
            p.longest_between_ns = p.longest_between_ns.max(from - p.last_to);
        }
        p.count += 1;
        p.last_to = to;
    }

    /// [`Self::decide`] out of line, for the rare second decision (the settled state).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn decide_apart(s: &Sender, view: &View, cwnd: &CwndEstimator, window: Window, ts: i64, plateau_held: &impl Fn(i64) -> bool, ran_dry_ns: Option<i64>, steady: bool, recovering: bool) -> LimitState {
        Self::decide(s, view, cwnd, window, ts, plateau_held, ran_dry_ns, steady, recovering)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn decide(s: &Sender, view: &View, cwnd: &CwndEstimator, window: Window, ts: i64, plateau_held: &impl Fn(i64) -> bool, ran_dry_ns: Option<i64>, steady: bool, recovering: bool) -> LimitState {
        let rwnd = window.bytes;
        if !s.started || s.data_segments == 0 {
            return LimitState::Unknown;
        }
        let mss = s.mss.max(536) as u64;
        let unacked = view.unacked;
        if rwnd == Some(0) {
            return LimitState::ZeroWindow;
        }
        // RFC 9293 §3.8.6.2.1: usable window = SND.UNA + SND.WND − SND.NXT; less than one
        // segment left means the receiver's window stops the sender. Linux stops with less
        // than a unit left ([`DEFER_SEGMENTS`]), so under a window whose scale is known less
        // than two segments is full; under an inferred one exactly one left is counted too
        // (counting it as room took 5–17 points of rwnd time off cut captures of
        // rwnd-limited sweep runs).
        //
        // Not a window whose scale was inferred and never shown to bind: more than a
        // segment outstanding above it, or never two segments (`inferred_window_unproven`).
        // Away from the sender the flight is rebuilt from ACKs matched by timestamp echoes:
        // it may run a tick of ACKs behind, and two segments besides (`rebuilt_slack`).
        let rebuilt = !s.at_sender() && !window.inferred;
        if let Some(w) = rwnd {
            let full = if window.inferred {
                unacked + mss >= w
            } else if rebuilt {
                unacked + rebuilt_slack(w, mss, s.rtt.srtt_ns) >= w
            } else {
                unacked + DEFER_SEGMENTS * mss > w
            };
            if full && !inferred_window_unproven(unacked, w, window.peak, mss, window.inferred, s.at_sender()) {
                return LimitState::Rwnd;
            }
        }
        // In loss recovery too (checked after the window, as Linux's tcp_write_xmit tests
        // the receiver's window for new data whatever state the sender is in: a full window
        // there runs its rwnd_limited chrono).
        if recovering {
            return LimitState::Recovery;
        }
        if unacked == 0 {
            return LimitState::Idle;
        }
        // A sender that just sent all it had waits on its application, whatever cwnd is:
        // with data queued behind a full cwnd its segments would be full-sized. (Worked
        // out here, where it is read: most packets are decided before.)
        let dry = match (ran_dry_ns, s.rtt.srtt_ns) {
            (Some(t), Some(r)) => ts - t <= DRY_RTTS * r,
            (dried, None) => dried.is_some(),
            (None, _) => false,
        };
        if dry {
            return LimitState::App;
        }
        // No congestion window holds a sender to one segment: RFC 5681's initial window is
        // two or more (Linux ten, BBR keeps four), and only the loss window after a timeout
        // is one. Nor does a send buffer: Linux's smallest (SOCK_MIN_SNDBUF) holds two. A
        // lone segment outstanding otherwise is all the application gave, flat or not.
        if unacked <= mss && !after_timeout(s, ts) {
            return LimitState::App;
        }
        if let Some(srtt) = s.rtt.srtt_ns {
            // A loss inside the stretch does not end it by itself: a window the loss cut
            // (CUBIC's β, Reno's ½, a timeout) takes the flight out of the band for longer
            // than a dip; a flight back at its level at once was never the cwnd's.
            if plateau_held(srtt) {
                // A plateau whose top leaves less than a unit of the window free is the
                // window's (the usable-window test above, at the plateau's level; under an
                // inferred window too, once the flight has stayed flat at its edge), within
                // the rebuilt flight's slack away from the sender — not for a window inferred
                // from that very flight (its scale unseen): any flat flight would sit at it.
                // Flat at its edge for eight rounds, even a window under two segments is the
                // window's.
                let slack = |w: u64| if rebuilt { rebuilt_slack(w, mss, Some(srtt)) } else { DEFER_SEGMENTS * mss - 1 };
                if rwnd.is_some_and(|w| cwnd.value + slack(w) >= w && !above_inferred_window(cwnd.value, w, mss, window.inferred, s.at_sender())) {
                    return LimitState::Rwnd;
                }
                // A flight flat under a pacing sender's steady pace (its units leaving at
                // one rate on its own clock) is held by that clock, the congestion
                // controller's. (Only at the sender are departures its own.)
                if steady {
                    return LimitState::Cwnd;
                }
                // Dips below the plateau's top between ACKs are the buffer refilling (its
                // application writes into the room each ACK frees), not the sender pacing.
                return LimitState::Sndbuf;
            }
        }
        // cwnd held the sender: at its estimate, or with room in it left unused by a queue
        // that never ran dry (the congestion controller's pacing: BBR sends below its
        // cwnd; or a cwnd already smaller than estimated).
        LimitState::Cwnd
    }

    /// The mean window while the receiver's window limited the sender, if it ever did.
    pub fn limiting_rwnd(&self) -> Option<u64> {
        self.rwnd_limited.mean().filter(|_| self.rwnd_limited.byte_ns > 0.0)
    }

    /// While the window was held down (above): its mean, its mean share of the largest
    /// advertised before it, and the mean of that largest one (not the flow's largest: a
    /// window that opens wide once the reader catches up, after, is no part of it).
    pub fn held_down_rwnd(&self) -> Option<(u64, f64, u64)> {
        Some((self.held_down.mean()?, self.held_down.mean_fill()?, self.held_down.mean_peak()?))
    }

    /// While the window limited the sender, the mean of the largest one advertised before.
    pub fn limiting_rwnd_peak(&self) -> Option<u64> {
        self.rwnd_limited.mean_peak()
    }

    /// While the window limited the sender, its mean share of the largest window the
    /// receiver had advertised up to then: about 1 for a buffer at its size (static or
    /// still growing), low for one holding data its application has not read.
    pub fn limiting_rwnd_fill(&self) -> Option<f64> {
        self.rwnd_limited.mean_fill()
    }

    /// A plateau held long past its proof: the buffer held the flight from the stretch's
    /// start, as Linux's sndbuf_limited chrono counts it, not only once it was proven.
    fn credit_plateau(&mut self) {
        let (cwnd, sndbuf) = (LimitState::Cwnd, LimitState::Sndbuf);
        let since_flat = self.state_ns[cwnd as usize] - self.flat_cwnd_ns;
        let moved = move_time(&mut self.state_ns, cwnd, sndbuf, since_flat);
        move_time(&mut self.since_data, cwnd, sndbuf, moved);
        self.flat_credited = true;
    }

    /// The flat stretch ends; `rose`: the flight rose above its band. It grew if so, or if it
    /// grew inside the band as an opening cwnd does. A send buffer at its size adds nothing, so a plateau the
    /// flight grew out of and never came back to, without being flat again at once, was a
    /// congestion window at rest: CUBIC's sits within a segment of W_max for ~2.7 s
    /// whatever the round trip (0.4·t³ < 1 segment for |t| < 1.36 s), which is more than
    /// FLAT_RTTS rounds on a path under ~340 ms when its TCP-friendly growth does not
    /// catch up first. Its send-buffer time goes back to cwnd.
    fn end_stretch(&mut self, rose: bool, ts: i64, srtt: Option<i64>, mss: u64) {
        let grew = self.flat_level > 0 && (rose || srtt.is_some_and(|r| self.still_growing(ts, r, mss)));
        if !grew || (self.grown_out_ns > 0 && (self.flat_level as f64) < self.grown_out_band.0) {
            // A fall (a loss's cut, a pause), or growth from below back up toward it, settles
            // nothing about a plateau the flight grew out of before: coming back to its level
            // later still shows it a buffer's.
            return;
        }
        let pending = std::mem::take(&mut self.grown_out_ns);
        if !self.flat_proven && pending > 0 {
            let moved = move_time(&mut self.state_ns, LimitState::Sndbuf, LimitState::Cwnd, pending);
            move_time(&mut self.since_data, LimitState::Sndbuf, LimitState::Cwnd, moved);
        }
        if grew && self.flat_proven {
            let level = self.flat_level as f64;
            self.grown_out_ns = (self.state_ns[LimitState::Sndbuf as usize] - self.flat_sndbuf_ns).max(0);
            self.grown_out_band = (level * (1.0 - FLAT_BAND), level * (1.0 + FLAT_BAND));
        }
    }

    /// The sender's flight first reached the edge of the window field read unscaled: if its
    /// scale turns out never to have reached the sender, the window held it from here.
    pub fn unscaled_edge_reached(&mut self) {
        self.unscaled_edge_from = Some(self.state_ns);
    }

    /// The receiver's window, read unscaled by a sender that never got its scale (the
    /// window seen here was `shift` larger), held the sender since its flight first reached
    /// that edge: the time charged since to the congestion window, the send buffer or the
    /// application (short segments cut at that edge look like a write's tail) was the
    /// window's, as Linux's rwnd_limited chrono counts it; the windows kept become the
    /// sender's reading of them.
    pub fn held_by_unscaled_window(&mut self, shift: u8, window: u64) {
        self.rwnd_now >>= shift;
        self.rwnd_peak = (self.rwnd_peak >> shift).max(window);
        let from = self.unscaled_edge_from.take().unwrap_or(self.state_ns);
        let mut moved = 0;
        for st in [LimitState::Cwnd, LimitState::Sndbuf, LimitState::App] {
            let since = self.state_ns[st as usize] - from[st as usize];
            let m = move_time(&mut self.state_ns, st, LimitState::Rwnd, since);
            move_time(&mut self.since_data, st, LimitState::Rwnd, m);
            moved += m;
        }
        self.rwnd_limited.add(moved, window, self.rwnd_peak);
        // Whatever stretch was flat was the window's; the window holds the sender from here.
        (self.flat_level, self.grown_out_ns, self.flat_proven, self.dip_since) = (0, 0, false, None);
        self.ran_dry_ns = None;
    }

    /// A flight above the window proved its inferred scale too small: the window was at
    /// least twice what it was read as, so the flight it held, no larger than that, never
    /// filled it. Every window-bound time so far was charged under an inferred scale (one
    /// handshake not captured leaves the scale unknown for good), each smaller than this
    /// one: all of it was the congestion controller's (what else held the sender then, the
    /// capture cannot go back to tell).
    pub fn inferred_scale_raised(&mut self) {
        let rwnd = LimitState::Rwnd as usize;
        let all = self.state_ns[rwnd];
        let moved = move_time(&mut self.state_ns, LimitState::Rwnd, LimitState::Cwnd, all);
        move_time(&mut self.since_data, LimitState::Rwnd, LimitState::Cwnd, moved);
        (self.rwnd_limited, self.rwnd_paced_ns, self.first_frame[rwnd]) = (WindowTime::default(), 0, 0);
    }

    /// Time per state at the end: a plateau the flight grew out of and had not come back
    /// to, nor been flat again, when the capture ended was a congestion window at rest.
    pub fn final_state_ns(&self) -> [i64; LimitState::ALL.len()] {
        let mut state_ns = self.state_ns;
        if self.grown_out_ns > 0 && !self.flat_proven {
            move_time(&mut state_ns, LimitState::Sndbuf, LimitState::Cwnd, self.grown_out_ns);
        }
        state_ns
    }

    /// Time per state as Linux's chronos count it: time the window was full before the
    /// sender's pacing clock ran out was busy, here the congestion controller's (pacing.rs).
    pub fn chrono_state_ns(&self) -> [i64; LimitState::ALL.len()] {
        let mut state_ns = self.final_state_ns();
        move_time(&mut state_ns, LimitState::Rwnd, LimitState::Cwnd, self.rwnd_paced_ns);
        state_ns
    }

    /// Time with data outstanding (Linux's busy time): all but unknown and idle.
    pub fn busy_ns(&self) -> i64 {
        self.state_ns.iter().sum::<i64>()
            - self.state_ns[LimitState::Unknown as usize]
            - self.state_ns[LimitState::Idle as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flight flat (not growing) since `since`, as `decide` asks about it at `ts`.
    fn flat_since(ts: i64, since: i64) -> impl Fn(i64) -> bool {
        move |srtt| ts - since >= FLAT_RTTS * srtt
    }

    /// A flight flat for ten 40 ms round trips, four segments under a 1 MB window, no loss,
    /// as the capture point sees it `lag_ms` of ACK→data delay away from the sender.
    fn plateau_under_window(lag_ms: i64, inferred: bool) -> LimitState {
        plateau_leaving(4 * 1448, lag_ms, inferred)
    }

    /// The same, leaving `room` bytes of the window unused.
    fn plateau_leaving(room: u64, lag_ms: i64, inferred: bool) -> LimitState {
        flight_leaving(room, lag_ms, inferred, 400_000_000)
    }

    /// A flight of `flight` bytes (not SACKed) under a window of `w`, flat for `flat_ns`,
    /// seen `lag_ns` from the sender on a round trip of `srtt_ns`.
    fn flight_in_window(w: u64, flight: u64, lag_ns: i64, srtt_ns: i64, inferred: bool, flat_ns: i64) -> LimitState {
        let mss = 1448u64;
        let mut s = Sender::default();
        (s.started, s.data_segments, s.mss) = (true, 1000, mss as u32);
        s.set_a2d_hint(lag_ns);
        s.rtt.srtt_ns = Some(srtt_ns);
        let mut cwnd = CwndEstimator::default();
        cwnd.value = flight;
        let view = View { in_flight: flight, unacked: flight, sacked: 0, rwnd: Some(w) };
        let ts = 1_000_000_000;
        LimitTracker::decide(&s, &view, &cwnd, Window { bytes: Some(w), inferred, peak: 0 }, ts, &flat_since(ts, ts - flat_ns), None, false, s.in_recovery())
    }

    /// A flight leaving `room` bytes of a 1 MB window, flat for `flat_ns`, seen `lag_ms`
    /// from the sender on a 40 ms round trip.
    fn flight_leaving(room: u64, lag_ms: i64, inferred: bool, flat_ns: i64) -> LimitState {
        let w = 1_000_000u64;
        flight_in_window(w, w - room, lag_ms * 1_000_000, 40_000_000, inferred, flat_ns)
    }

    /// A flight of `flight` bytes against a 113,920 B window, seen 40 ms from the sender.
    fn flight_against_window(flight: u64, inferred: bool) -> LimitState {
        flight_in_window(113_920, flight, 40_000_000, 42_000_000, inferred, 40_000_000)
    }

    #[test]
    fn sacked_bytes_in_the_buffer_do_not_make_a_plateau_grow() {
        // 700 kB outstanding over a 183 ms RTT for twenty rounds; every fourth round a
        // reordering hole leaves 60 kB SACKed in the buffer (outstanding 760 kB, flight
        // 640 kB) until it fills.
        let rtt = 183_000_000;
        let mut lim = LimitTracker::default();
        for k in 0..80i64 {
            let hole = k % 16 == 8;
            let (level, flight) = if hole { (760_000, 640_000) } else { (700_000, 700_000) };
            lim.on_flight_sample(flight, level, false, k * rtt / 4, Some(rtt), 1448);
        }
        assert_eq!(lim.flat_since, 0);
        assert!(!lim.still_growing(80 * rtt / 4, rtt, 1448));
    }

    #[test]
    fn a_write_that_ran_dry_ends_a_flat_stretch() {
        // Answers that overlap keep 500 kB outstanding, flat for ten 40 ms rounds; then one
        // ends in a short tail: the queue drained, so no buffer held that level. The stretch
        // starts again: eight more rounds before a plateau is held.
        let (mss, rtt) = (1448u64, 40_000_000i64);
        let mut lim = LimitTracker::default();
        for k in 0..=10i64 {
            lim.on_flight_sample(500_000, 500_000, false, k * rtt, Some(rtt), mss);
        }
        assert!(lim.plateau_held(10 * rtt, rtt, mss));
        lim.ran_dry(10 * rtt + 1);
        lim.on_flight_sample(500_000, 500_000, false, 11 * rtt, Some(rtt), mss);
        assert!(!lim.plateau_held(11 * rtt, rtt, mss));
        assert_eq!(lim.flat_since, 11 * rtt);
    }

    /// Flight samples over a 100 ms path, one a round, of `segments` 1,448 B segments each,
    /// after a loss at a cwnd of 100 segments (CUBIC's W_max after fast convergence: 85).
    /// Returns whether the flight was held flat after each.
    fn after_a_loss_at_100(segments: &[u64]) -> Vec<bool> {
        let (mss, rtt) = (1448u64, 100_000_000i64);
        let mut lim = LimitTracker::default();
        lim.loss_began(100 * mss);
        let mut held = Vec::new();
        for (r, &n) in segments.iter().enumerate() {
            let ts = r as i64 * rtt;
            lim.on_flight_sample(n * mss, n * mss, false, ts, Some(rtt), mss);
            held.push(lim.plateau_held(ts, rtt, mss));
        }
        held
    }

    #[test]
    fn cubics_rest_is_the_time_its_curve_stays_within_reach_of_wmax() {
        // C = 0.4 segments per second cubed (RFC 9438 §5.1); the constant is rounded to 10 ms.
        let rest_s = 2.0 * (WMAX_REACH as f64 / 0.4).cbrt();
        assert!((CUBIC_FLAT_NS as f64 / 1e9 - rest_s).abs() < 0.01, "{rest_s}");
    }

    #[test]
    fn a_flight_grown_back_to_cubics_wmax_rests_there_before_it_is_a_plateau() {
        // Cut to 70, back up a segment a round to 85, then flat: 30 rounds (3 s) flat is
        // within CUBIC's 3.9 s near W_max; 10 more are past it.
        let mut flight: Vec<u64> = (70..=85).collect();
        flight.extend([85; 40]);
        let held = after_a_loss_at_100(&flight);
        assert!(!held[..16 + 30].iter().any(|&h| h), "proven within CUBIC's rest");
        assert!(held[flight.len() - 1], "flat past it");
    }

    #[test]
    fn a_level_found_after_a_fall_is_judged_on_its_first_round_as_watched() {
        // 100 segments, then down to a buffer's 80–87 (samples a quarter round apart, the
        // level wandering with how writes pack): the stretch is found a round after the fall
        // began, at a sample of 84. Ten rounds on it is flat; measured from that one sample,
        // 87 would read as three segments of growth.
        let (mss, rtt) = (1448u64, 100_000_000i64);
        let mut lim = LimitTracker::default();
        let mut ts = 0;
        for _ in 0..8 {
            lim.on_flight_sample(100 * mss, 100 * mss, false, ts, Some(rtt), mss);
            ts += rtt / 4;
        }
        for _ in 0..10 {
            for n in [80, 84, 87, 81] {
                lim.on_flight_sample(n * mss, n * mss, false, ts, Some(rtt), mss);
                ts += rtt / 4;
            }
        }
        assert!(lim.plateau_held(ts, rtt, mss));
    }

    /// 64 segments outstanding over a 200 ms path, flat for ten rounds and proven a send
    /// buffer's; then a sample in a loss recovery. Returns the send-buffer time the stretch's
    /// end set aside as grown out of (a congestion window's, should the flight not return).
    fn recovery_after_a_plateau(flight_segments: u64, unacked_segments: u64) -> i64 {
        let (mss, rtt) = (1448u64, 200_000_000i64);
        let mut lim = LimitTracker::default();
        for k in 0..=10i64 {
            lim.on_flight_sample(64 * mss, 64 * mss, false, k * rtt, Some(rtt), mss);
        }
        lim.flat_proven = true;
        lim.state_ns[LimitState::Sndbuf as usize] = 2 * rtt;
        lim.on_flight_sample(flight_segments * mss, unacked_segments * mss, true, 11 * rtt, Some(rtt), mss);
        lim.grown_out_ns
    }

    #[test]
    fn a_send_buffer_drained_by_sacks_in_a_recovery_did_not_grow() {
        // The flight falls to 48 segments as SACKs come back and nothing new leaves (the
        // buffer is full), while the bytes outstanding rise to 76 (SACKed segments merged,
        // room freed): the stretch ends, with no growth.
        assert_eq!(recovery_after_a_plateau(48, 76), 0);
        // A congestion window keeps the flight at 64 and sends past the level: it grew.
        assert!(recovery_after_a_plateau(64, 76) > 0);
    }

    #[test]
    fn a_flight_back_at_its_level_at_once_was_not_cut() {
        // Back at 100 segments right after the loss (BBR, or a send buffer under a cwnd the
        // loss cut to more than it holds): proven after FLAT_RTTS rounds as before.
        let held = after_a_loss_at_100(&[100; 12]);
        assert!(held[FLAT_RTTS as usize + 1]);
    }

    #[test]
    fn a_flight_above_an_inferred_window_says_its_scale_is_larger() {
        // Window scale unseen (a cut capture): 445 << 8 fitted to a rebuilt flight of
        // 117,288 B — the sender's real window was 445 << 10.
        assert_ne!(flight_against_window(117_288, true), LimitState::Rwnd);
        // At the inferred window, or a known one, the window holds the sender.
        assert_eq!(flight_against_window(113_920, true), LimitState::Rwnd);
        assert_eq!(flight_against_window(117_288, false), LimitState::Rwnd);
    }

    fn one_segment_out(recovery: Option<RetransKind>) -> LimitState {
        let mut s = Sender::default();
        (s.started, s.data_segments, s.mss) = (true, 40, 1153);
        s.rtt.srtt_ns = Some(12_000_000);
        let ts = 1_000_000_000;
        if let Some(kind) = recovery {
            s.recoveries.push(super::super::sender::Recovery {
                start_frame: 1, start_ns: ts - 30_000_000, end_ns: Some(ts - 10_000_000), point: Default::default(), kind,
                retransmissions: 1, spurious: 0, flight_before: 1153, in_slow_start: false, rtt_over_floor: None, first_tsval: None, partially_undone: false, dsacked: 0, new_data_seen: false,
            });
        }
        let view = View { in_flight: 1153, unacked: 1153, sacked: 0, rwnd: Some(65_535) };
        LimitTracker::decide(&s, &view, &CwndEstimator::default(), Window { bytes: Some(65_535), inferred: false, peak: 0 }, ts, &flat_since(ts, ts), None, false, s.in_recovery())
    }

    #[test]
    fn a_lone_segment_outstanding_is_the_applications_not_a_congestion_windows() {
        // A 1,153 B response waiting for the next request: no cwnd is one segment.
        assert_eq!(one_segment_out(None), LimitState::App);
        assert_eq!(one_segment_out(Some(RetransKind::Fast)), LimitState::App);
    }

    #[test]
    fn except_in_the_loss_window_after_a_timeout() {
        assert_eq!(one_segment_out(Some(RetransKind::Rto)), LimitState::Cwnd);
    }

    #[test]
    fn at_the_sender_a_plateau_four_segments_under_the_window_is_a_send_buffer() {
        assert_eq!(plateau_under_window(0, false), LimitState::Sndbuf);
    }

    #[test]
    fn at_the_sender_a_plateau_under_two_segments_below_the_window_is_the_windows() {
        // Each ACK frees two segments and two go out, leaving 1.8: Linux holds back a unit
        // of two the window cannot take whole (rwnd-limited), with its scale seen or not.
        let room = 18 * 1448 / 10;
        assert_eq!(plateau_leaving(room, 0, false), LimitState::Rwnd);
        assert_eq!(plateau_leaving(room, 0, true), LimitState::Rwnd);
        assert_eq!(plateau_leaving(2 * 1448, 0, true), LimitState::Sndbuf);
    }

    #[test]
    fn one_short_segment_out_round_after_round_is_the_applications_not_a_send_buffer() {
        // A request/response exchange seen away from the sender, its one 1,296-byte answer
        // a round trip: flat for ten rounds, yet no buffer holds a sender to one segment.
        assert_eq!(plateau_leaving(1_000_000 - 1_296, 40, false), LimitState::App);
    }

    #[test]
    fn away_from_the_sender_it_is_the_window_seen_a_timestamp_tick_late() {
        // At the receiver, 40 ms from the sender: 1 MB / 40 ms is 25 kB a millisecond of
        // ACKs the rebuilt flight may lag by.
        assert_eq!(plateau_under_window(40, false), LimitState::Rwnd);
    }

    /// A flight leaving `room` bytes of a 1 MB window, not flat, seen `lag_ms` from the sender.
    fn rising_flight_leaving(room: u64, lag_ms: i64) -> LimitState {
        flight_leaving(room, lag_ms, false, 0)
    }

    #[test]
    fn away_from_the_sender_a_window_full_but_for_a_tick_of_acks_is_full() {
        // Four segments under a 1 MB window: at the sender room for more; at the receiver,
        // 40 ms away, within the 25 kB of ACKs a tick of echoes may hide.
        assert_eq!(rising_flight_leaving(4 * 1448, 0), LimitState::Cwnd);
        assert_eq!(rising_flight_leaving(4 * 1448, 40), LimitState::Rwnd);
        assert_eq!(rising_flight_leaving(40_000, 40), LimitState::Cwnd);
    }

    #[test]
    fn on_a_sub_millisecond_path_a_tick_of_acks_is_no_slack() {
        // 50 kB under a 1.14 MB window, the receiver 5 ms from the sender (a host queue) on
        // a 0.78 ms round trip: a tick of ACKs would be 1.46 MB, more than the window. Two
        // segments short of it is full there too.
        let (w, lag, srtt) = (1_142_784u64, 5_000_000, 780_000);
        assert_eq!(flight_in_window(w, 50_000, lag, srtt, false, 0), LimitState::Cwnd);
        assert_eq!(flight_in_window(w, w - 1448, lag, srtt, false, 0), LimitState::Rwnd);
    }

    #[test]
    fn not_when_the_window_was_inferred_from_that_flight() {
        assert_eq!(plateau_under_window(40, true), LimitState::Sndbuf);
    }

    #[test]
    fn a_window_fitted_to_three_segments_binds_them_only_where_the_flight_is_the_senders_own() {
        // A window scale inferred from a flight of three 1,448-byte segments: 5,068 B.
        let (mss, w) = (1_448, 5_068);
        assert!(!inferred_window_unproven(3 * mss, w, w, mss, true, true));
        // Rebuilt away from the sender, the flight's slack (two segments) is as large as
        // the room the window leaves: it cannot be told from a cwnd of three.
        assert!(inferred_window_unproven(3 * mss, w, w, mss, true, false));
        // A window read from the handshake binds wherever it is seen.
        assert!(!inferred_window_unproven(3 * mss, w, w, mss, false, false));
    }
}

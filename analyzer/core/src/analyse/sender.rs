//! One direction's sender state as seen from the capture point: SND.UNA, SND.MAX, the
//! outstanding segments, the SACK scoreboard, duplicate ACKs, recovery and the recent
//! retransmissions that a later D-SACK or timestamp echo may prove spurious.
//!
//! Data segments of the direction go to [`Sender::on_data`]; ACKs from the other side go
//! to [`Sender::on_ack`]. Both fill in the packet's [`PacketNotes`].

use std::collections::VecDeque;

use super::dsack::dsack;
use super::hystart::HyStart;
use super::host_queue::HostQueue;
use super::notes::{Evidence, PacketNotes, Reorder, RetransKind};
use super::ring::Ring;
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, DUP_THRESH};
use super::startup::{StartupLosses, StartupWatch};
use super::vantage::{self, Vantage};
use crate::decode::{flags, TcpSegment};
use crate::flow::SeqNumber;

/// IPv4 IDs from a late original to the first segment seen above it: the packets that
/// overtook it, the segments of a GSO packet, a resend or two between them.
const NEXT_ID_SLACK: u16 = 64;

/// A transmission of new data still unacknowledged.
#[derive(Debug, Clone, Copy)]
struct Sent {
    seq: SeqNumber,
    end: SeqNumber,
    /// 0: sent before the capture began (its send time is unknown).
    frame: u64,
    ts_ns: i64,
    syn: bool,
    /// Times these bytes were sent again.
    retrans: u16,
    last_retrans_frame: u64,
    last_retrans_tsval: Option<u32>,
    last_retrans_ns: i64,
    /// Sent while an application-limited bubble was still in flight: its delivery rate is
    /// the application's, not the path's.
    app_limited: bool,
    /// Its IPv4 ID (0: none, or not seen).
    ip_id: u16,
}

/// What [`Sender::advance`] makes of the plain records an ACK covers at the front: how
/// many, the newest send time among them (with its application-limited mark: the later
/// record of equal times), and the send time of the last one (the RTT sample).
struct PlainPrefix {
    count: usize,
    newest: (i64, bool),
    last_ts_ns: i64,
}

/// A retransmission kept for a while after it was acknowledged, so a late D-SACK or a
/// timestamp echo can still prove it spurious.
#[derive(Debug, Clone, Copy)]
pub struct RetransRecord {
    pub seq: SeqNumber,
    pub end: SeqNumber,
    pub frame: u64,
    pub orig_frame: u64,
    /// When the original was sent, if captured.
    pub orig_ts_ns: Option<i64>,
    pub ts_ns: i64,
    pub kind: RetransKind,
    pub tsval: Option<u32>,
    pub proven: Evidence,
    /// The recovery episode it belongs to (index into `Sender::recoveries`).
    pub recovery: usize,
    /// The first resend of a segment sent in STARTUP (see [`StartupLosses`]).
    pub in_startup: bool,
}

/// A loss-recovery episode (RFC 6675 §5 / RFC 6298 §5): from the first retransmission
/// until SND.UNA passes the highest sequence sent at its start.
#[derive(Debug, Clone, Copy)]
pub struct Recovery {
    pub start_frame: u64,
    pub start_ns: i64,
    pub end_ns: Option<i64>,
    pub point: SeqNumber,
    pub kind: RetransKind,
    pub retransmissions: u32,
    pub spurious: u32,
    /// In flight just before the recovery began (a cwnd lower bound at that moment).
    pub flight_before: u64,
    /// Part of the first slow start (every earlier recovery undone, flight still doubling).
    pub in_slow_start: bool,
    /// The round trip when it began over its floor until then (end-to-end where known):
    /// verdict.rs counts a drop as a tail drop only if a queue stood then.
    pub rtt_over_floor: Option<f32>,
    /// The sender's retrans_stamp when it began: the timestamp its first retransmission
    /// carried, or an earlier recovery's that it followed with a retransmission outstanding.
    pub(super) first_tsval: Option<u32>,
    /// Linux's undo_marker is gone: a partial ACK it took as a delayed original, with no
    /// resend left unacknowledged, undid the recovery (tcp_try_undo_partial).
    pub(super) partially_undone: bool,
    /// Its resends a D-SACK showed needless (Linux counts undo_retrans down by these alone).
    pub(super) dsacked: u32,
    /// New data was seen since it began: the first begins at the sender's SND.NXT when it
    /// began (see `on_data`).
    pub(super) new_data_seen: bool,
}

impl Recovery {
    /// Every resend of it proved needless (Linux undoes such a recovery's window cut).
    pub fn undone(&self) -> bool {
        self.retransmissions > 0 && self.spurious >= self.retransmissions
    }

    /// Every resend of it proved needless by a D-SACK: Linux's undo_retrans counts only
    /// those, so only these undo it on their own (tcp_try_undo_dsack).
    fn dsack_undone(&self) -> bool {
        self.retransmissions > 0 && self.dsacked >= self.retransmissions
    }
}

const RETRANS_MEMORY: usize = 4096;
/// Recent (seq, end, IPv4 ID) triples, for telling duplicates from retransmissions.
const RECENT_MEMORY: usize = 64;
/// Bound on pending timestamp echoes and state snapshots (about one round trip's worth).
const ECHO_MEMORY: usize = 1 << 16;
/// The peer's timestamps are kept this long past twice the ACK→data delay, the newest
/// always: this side's next data echoes the one its host received last. (A side that
/// sends no data never takes them: unbounded, they filled ECHO_MEMORY, 1 MiB a flow.)
const PEER_TSVAL_SPAN_NS: i64 = 1_000_000_000;
/// ACK→data samples the robust minimum is taken over.
const A2D_RECENT: usize = 32;
/// Right edges of the peer's window remembered behind a host queue: 64 ACKs, 128
/// segments (15 ms at 100 Mbit/s), past such a queue's usual wait.
const RIGHT_EDGES: usize = 64;
/// Below this ACK→data delay the capture point is at the sender: use the state as is.
pub(super) const AT_SENDER_NS: i64 = 1_000_000;
/// The least time between two workings-out of the capacity for `link_bps`.
const LINK_BPS_REFRESH_NS: i64 = 100_000_000;

/// How long `bytes` take on a link of `bps`.
fn on_link_ns(bytes: u32, bps: f64) -> i64 {
    (bytes as f64 * 8e9 / bps.max(1.0)) as i64
}

#[derive(Debug, Clone, Copy, Default)]
struct Snapshot {
    ts: i64,
    una: SeqNumber,
    sacked: u32,
    rwnd: Option<u64>,
}

/// The sender's state as the capture point reconstructs it for "now".
#[derive(Debug, Clone, Copy, Default)]
pub struct View {
    pub in_flight: u64,
    pub unacked: u64,
    pub sacked: u64,
    pub rwnd: Option<u64>,
}

#[derive(Debug, Default)]
pub struct Sender {
    pub started: bool,
    /// The first sequence number seen (the SYN's when captured): Wireshark's base for
    /// relative sequence numbers.
    pub base: SeqNumber,
    pub una: SeqNumber,
    pub max: SeqNumber,
    /// Segment size: the largest payload seen, capped by the peer's MSS option when it
    /// was captured (TSO/GRO super-segments must not inflate it).
    pub mss: u32,
    pub mss_option: Option<u32>,
    outstanding: VecDeque<Sent>,
    /// [seq, end) of the outstanding records sent more than once, in sequence order, with
    /// when they were last sent: what the loss count leaves out without walking every record.
    resent: VecDeque<(SeqNumber, SeqNumber, i64)>,
    /// RACK (RFC 8985 §6.1): when the most recently sent of the delivered segments was sent,
    /// and the round trip the latest delivery took.
    rack_xmit_ns: Option<i64>,
    rack_rtt_ns: i64,
    /// Reordering as the sender detects it (Linux's reord_seen): an ACK or SACK delivering
    /// a segment never sent again from below the highest SACKed byte.
    reord_seen: u64,
    /// The least RACK reordering window the sender itself must have had: it delivered an
    /// original it never resent this long past RACK's RTT (see `note_reordering`).
    reo_floor_ns: i64,
    /// The first ACKs of the capture (those before its first data and the first after it)
    /// SACKed data: the sender knew of holes, and acted on them, before the capture.
    /// `None` until an ACK after the first data; false once no hole is left.
    holes_predate_capture: Option<bool>,
    reo: super::reo_window::ReoWindow,
    pub scoreboard: Scoreboard,
    /// Bytes cumulatively acknowledged (SND.UNA's progress), for the delivery rate.
    acked_total: u64,
    pub delivery: super::delivery::DeliveryRate,
    retransmissions: VecDeque<RetransRecord>,
    pub recoveries: Vec<Recovery>,
    in_recovery: bool,
    pub dupacks: u32,
    last_ack_frame: u64,
    last_ack_window: u16,
    /// When the receiver first reported data above SND.UNA (a hole opened).
    hole_since: Option<i64>,
    /// The timestamp the first retransmission since the sender last stood clear of them
    /// carried (Linux's retrans_stamp): a recovery that follows another at once, with
    /// holes still open, keeps its predecessor's, as the kernel keeps it.
    retrans_stamp: Option<Option<u32>>,
    pub rtt: RttEstimator,
    /// The samples known to span the whole path: taken once the capture point's
    /// ACK→data delay was known (from the handshake or timestamp echoes) and added in.
    pub e2e: RttEstimator,
    pub last_send_ns: i64,
    /// When data above SND.MAX was last sent (not a resend).
    last_new_data_ns: i64,
    pub last_ack_ns: i64,
    max_tsval: Option<u32>,
    max_ip_id: Option<u16>,
    /// Consecutive RTOs without progress (back-off count).
    pub rto_backoff: u32,
    // Counters for the verdict.
    pub data_segments: u64,
    pub data_bytes: u64,
    pub retrans_segments: u64,
    pub retrans_bytes: u64,
    pub spurious: u64,
    /// Bytes of the retransmissions proven spurious: copies that crossed the path twice.
    pub spurious_bytes: u64,
    pub dsacks: u64,
    pub reorder_events: u64,
    pub max_reorder: Reorder,
    pub lost_before_bytes: u64,
    pub zero_windows: u64,
    pub probes: u64,
    /// Time of the first new data segment.
    pub first_data_ns: Option<i64>,
    /// The two halves of the round trip as seen from the capture point, measured by
    /// timestamp echoes (RFC 7323 §4.3): data → the ACK echoing it, and an ACK → the data
    /// echoing it. At the sender the second is ~0; at the receiver the first is.
    pub d2a: RttEstimator,
    pub a2d: RttEstimator,
    /// From the handshake when timestamps are off: ACK → data delay at the capture point.
    /// Set through [`Self::set_a2d_hint`], which keeps `lag_ns` current.
    a2d_hint_ns: Option<i64>,
    /// The last ACK→data samples (ring) for a robust minimum.
    /// Allocated with the first sample: most flows of a scan never echo a timestamp.
    a2d_recent: Option<Box<[i64; A2D_RECENT]>>,
    a2d_recent_min: Option<i64>,
    a2d_next: usize,
    /// [`Self::a2d_ns`] and [`Self::at_sender_for_good`], recomputed when the echo floors
    /// or the hint change (they are read several times a packet, the inputs move
    /// once a round trip at most).
    lag_ns: i64,
    lag_for_good: bool,
    /// Whether segments wait between TCP and the capture point on the sender's own host,
    /// and once they do, how long lately (`host_queue.rs`).
    host_queue: HostQueue,
    /// When the capacity was last worked out for [`Self::link_bps`], and what it was.
    link_bps_at: (i64, Option<f64>),
    sent_tsvals: Ring<(u32, i64)>,
    /// The peer has SACKed something: RACK and RFC 6675 loss marking apply.
    sack_seen: bool,
    /// A retransmission timeout's mark (Linux tcp_timeout_mark_lost): every byte below
    /// the first number not SACKed is lost, and copies sent before the second (its time)
    /// with it; until SND.UNA passes it or the timeout proves spurious.
    rto_lost: Option<(SeqNumber, i64)>,
    peer_tsvals: Ring<(u32, i64)>,
    /// What the sender knew (SND.UNA, SACKed bytes, rwnd) at recent times: away from the
    /// sender, its state now is what the capture point saw one ACK→data delay ago.
    history: Ring<Snapshot>,
    /// The peer's latest window for this direction.
    pub rwnd: Option<u64>,
    /// Highest flight in each of the last few round trips (slow-start detection).
    rounds: VecDeque<u64>,
    /// The last RECENT_MEMORY new or resent segments (seq, end, IPv4 ID), a ring (order
    /// does not matter to `is_duplicate`): allocated with the first, as a deque was.
    recent: Option<Box<[(SeqNumber, SeqNumber, u16); RECENT_MEMORY]>>,
    recent_len: usize,
    recent_next: usize,
    /// The byte zero-window probes carry.
    probe_seq: Option<SeqNumber>,
    pending_syn_rtt: Option<i64>,
    /// A capture that starts mid-stream: the ACKs seen before any data, with their times
    /// (the first one's, and each later one that advanced, at most [`EARLY_ACK_MEMORY`]).
    /// What the first leaves unacknowledged below the first data seen was sent before the
    /// capture began and is in flight; the later ones acknowledged part of it.
    early_acks: Vec<(SeqNumber, i64)>,
    /// Delivery-rate samples are the application's until this much has been delivered:
    /// what was in flight when the sender last ran out of data (the draft on delivery
    /// rate estimation, §3.3; Linux's tp->app_limited).
    app_limited_until: Option<u64>,
    /// The last new data was a write's short tail.
    ran_dry: bool,
    /// Behind a host queue, the right edges (ACK + window) the peer advertised last: a
    /// short segment ending on one filled the window, it did not end a write, though seen
    /// many ACKs later, when the flight rebuilt for it (a wait known to a tick) may no
    /// longer reach the edge.
    right_edges: Ring<SeqNumber>,
    /// The newest-sent segment this ACK delivered: when sent, and whether app-limited.
    newest_delivered: Option<(i64, bool)>,
    acks_applied: bool,
    /// The capture saw this direction's SYN: it begins at the connection's start.
    pub(super) syn_seen: bool,
    round_start: i64,
    round_max: u64,
    /// Where BBR's STARTUP would have ended, and what was lost of what it sent.
    pub startup: StartupWatch,
    /// Where CUBIC's HyStart would have ended the first slow start before its first loss.
    pub hystart: HyStart,
    pub startup_losses: StartupLosses,
}

/// ACKs kept from before a capture's first data (about a round trip's worth at most).
const EARLY_ACK_MEMORY: usize = 256;

/// The most data taken as sent before a capture began: beyond any receive window in use
/// (10 Gbit/s × 50 ms); a first ACK further back is an old, reordered one.
const MAX_UNSEEN_FLIGHT: i32 = 64 << 20;

/// A segment that ends a write: data short of a whole number of segments, no FIN — with
/// data queued behind it the sender would have filled it.
fn ends_write(payload_len: u32, mss: u32, fin: bool) -> bool {
    // (A full segment, the usual case, skips the division.)
    payload_len > 0 && payload_len != mss && payload_len % mss.max(1) != 0 && !fin
}

fn ts_older(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// Pops TSvals up to `ecr` and returns when `ecr` itself was first seen, if it was.
fn take_echo(pending: &mut Ring<(u32, i64)>, ecr: u32) -> Option<i64> {
    let mut found = None;
    while let Some(&(v, t)) = pending.front() {
        if ts_older(ecr, v) {
            break;
        }
        if v == ecr {
            found = Some(t);
        }
        pending.pop_front();
    }
    found
}

impl Sender {
    /// Bytes sent and not cumulatively acknowledged.
    pub fn unacked(&self) -> u64 {
        if !self.started {
            return 0;
        }
        self.max.distance_from(self.una).max(0) as u64
    }

    /// RFC 6675 pipe with RACK loss marking (RFC 8985 §6): unacked bytes that are neither
    /// SACKed nor deemed lost. A hole below the highest SACKed byte is lost when it was
    /// sent more than RTT + reo_wnd ago (a later segment got through), or — while no
    /// reordering has been seen — when DupThresh segments are SACKed above it.
    /// Retransmitted bytes count as in flight again.
    #[inline]
    pub fn pipe(&self, now: i64) -> u64 {
        let unacked = self.unacked();
        if self.scoreboard.is_empty() && self.rto_lost.is_none() && !self.tail_may_be_lost() {
            return unacked; // nothing SACKed, nothing deemed lost: the usual case, inlined
        }
        self.pipe_with_holes(unacked, now)
    }

    /// Whether RACK may deem lost bytes above every SACK: only with SACK in use and the
    /// oldest outstanding byte sent before the newest delivered one (a resend delivered
    /// ahead of originals sent before it), as RACK's deadline is never later.
    #[inline]
    fn tail_may_be_lost(&self) -> bool {
        self.sack_seen && self.outstanding.front().is_some_and(|x| self.rack_xmit_ns.map_or(true, |r| x.ts_ns < r))
    }

    fn pipe_with_holes(&self, unacked: u64, now: i64) -> u64 {
        let sacked = self.scoreboard.sacked_bytes() as u64;
        unacked.saturating_sub(sacked + self.lost_bytes(now))
    }

    /// RACK's reordering window (RFC 8985 §6.2): min_RTT/4 in steps widened by D-SACKs
    /// (`reo_window.rs`), or as wide as the sender showed its own to be; never above SRTT.
    pub fn reo_wnd_ns(&self) -> i64 {
        let base = self.rtt.min_ns.unwrap_or(0) / 4;
        let widened = (base * self.reo.steps() as i64).max(self.reo_floor_ns);
        widened.min(self.rtt.srtt_ns.unwrap_or(widened))
    }

    /// The reordering window RACK marks losses with: none while no reordering has been seen
    /// once in recovery or with DupThresh segments SACKed (RFC 8985 §6.2; Linux's
    /// tcp_rack_reo_wnd), else [`Self::reo_wnd_ns`].
    fn loss_reo_wnd_ns(&self) -> i64 {
        if !self.reordering_seen() && (self.in_recovery || self.dupthresh_sacked(self.scoreboard.sacked_bytes())) {
            0
        } else {
            self.reo_wnd_ns()
        }
    }

    /// RFC 6675 IsLost: more than DupThresh − 1 segments' worth SACKed (above a hole).
    fn dupthresh_sacked(&self, sacked: u32) -> bool {
        sacked > (DUP_THRESH - 1) * self.mss.max(1)
    }

    /// Reordering the sender itself detected (Linux's reord_seen): a hole filled by its
    /// original or an original arriving late. RACK and DupThresh then give reordering room.
    /// A D-SACK only widens RACK's window (`reo_wnd_ns`): a sender that has seen its
    /// retransmissions arrive twice still marks losses at once in recovery.
    fn reordering_seen(&self) -> bool {
        self.reord_seen > 0
    }

    /// Whether [s, e), below `fack` (the highest byte SACKed before this ACK), holds a
    /// hole's bytes sent only once: delivering them now means they came out of order
    /// (Linux tcp_check_sack_reordering; it takes an ACK's SACK blocks lowest first).
    /// Gives when the first of them was sent (records are in sequence and sending order,
    /// so the first found is the earliest).
    fn original_filling_hole(&self, s: SeqNumber, e: SeqNumber, fack: Option<SeqNumber>) -> Option<i64> {
        let e = e.min(fack?);
        self.scoreboard.holes(self.una).take_while(|h| h.0 < e).find_map(|(hs, he)| {
            let (a, b) = (hs.max(s), he.min(e));
            if a >= b {
                return None;
            }
            self.outstanding.range(self.first_ending_after(a)..).take_while(|x| x.seq < b).find(|x| self.never_resent(x)).map(|x| x.ts_ns)
        })
    }

    /// Reordering the sender detected: an original sent at `sent` delivered out of order,
    /// never resent. At its previous ACK RACK had not deemed it lost, so its reordering
    /// window was wider than the time by which that segment then trailed RACK's RTT
    /// (RFC 8985 §6.2). In recovery, not resent shows less — resends deemed lost wait on
    /// the window — so there only the last new data sent says it (Linux resends what it
    /// deems lost before anything new). A capture that starts mid-stream misses the
    /// D-SACKs that widened the window; this is what it shows instead.
    fn note_reordering(&mut self, sent: i64) {
        self.reord_seen += 1;
        if self.rack_xmit_ns.map_or(true, |x| x <= sent) {
            return; // nothing sent after it was delivered first: no RACK clock ran on it
        }
        let last_ack = self.last_ack_ns + self.loop_lag_ns();
        let waited = if self.in_recovery { last_ack.min(self.last_new_data_ns) } else { last_ack } - sent;
        self.reo_floor_ns = self.reo_floor_ns.max(waited - self.rack_rtt_ns);
    }

    /// Sent only once, as far as the capture shows: while holes the sender knew of before
    /// the capture remain, what it sent before the capture may have been resent then too.
    fn never_resent(&self, x: &Sent) -> bool {
        x.retrans == 0 && (x.frame != 0 || self.holes_predate_capture != Some(true))
    }

    /// The send time of the lowest original (never resent, not SACKed) in a hole that the
    /// loss count deems lost at `now`: Linux would resend it before sending anything new.
    fn lost_original_unresent(&self, now: i64) -> Option<i64> {
        let deadline = self.rack_deadline(now);
        let reordering_seen = self.reordering_seen();
        let mut sacked_above = self.scoreboard.sacked_bytes();
        for (hs, he, below) in self.scoreboard.holes_with_blocks(self.una) {
            sacked_above = sacked_above.saturating_sub(below);
            let dupthresh = !reordering_seen && self.dupthresh_sacked(sacked_above);
            let first = self.outstanding.range(self.first_ending_after(hs)..).take_while(|x| x.seq < he).find(|x| self.never_resent(x));
            if let Some(x) = first {
                // Sent later, with fewer bytes SACKed above: no original past it is lost if it is not.
                return (dupthresh || x.ts_ns <= deadline).then_some(x.ts_ns);
            }
        }
        None
    }

    /// New data left while the loss count held an original lost and not resent (Linux
    /// resends what it deems lost before anything new, F-RTO's probe after a timeout
    /// aside): in a capture that began mid-stream, the sender had seen reordering before
    /// it did, and its window was wider than the time by which that original then trailed
    /// RACK's RTT. (From the handshake on, what showed the sender reordering is seen.)
    fn note_loss_not_acted_on(&mut self, now: i64) {
        if self.syn_seen || self.rto_lost.is_some() || self.scoreboard.is_empty() || !self.at_sender_for_good() {
            return;
        }
        if let Some(sent) = self.lost_original_unresent(now) {
            self.reord_seen += 1;
            self.reo_floor_ns = self.reo_floor_ns.max(now - sent - self.rack_rtt_ns);
        }
    }

    /// RACK (RFC 8985 §6.2): a segment not delivered is lost once it was sent before the
    /// most recently sent delivered one and an RTT plus the reordering window has passed
    /// since. Before any delivery, the smoothed RTT stands in.
    fn rack_deadline(&self, now: i64) -> i64 {
        let reo = self.loss_reo_wnd_ns();
        match self.rack_xmit_ns {
            Some(xmit) => xmit.min(now - self.rack_rtt_ns - reo),
            None => now - self.rtt.srtt_ns.unwrap_or(i64::MAX / 4) - reo,
        }
    }

    /// A delivered segment (cumulatively ACKed or newly SACKed) last sent at `xmit`. A
    /// retransmission delivered sooner than the path's minimum RTT was its original's.
    fn rack_advance(&mut self, xmit: i64, resent: bool, now: i64) {
        let rtt = now - xmit + self.loop_lag_ns();
        if resent && rtt < self.rtt.min_ns.unwrap_or(0) {
            return;
        }
        self.rack_rtt_ns = rtt;
        if self.rack_xmit_ns.map_or(true, |x| xmit >= x) {
            self.rack_xmit_ns = Some(xmit);
        }
    }

    fn lost_bytes(&self, now: i64) -> u64 {
        if !self.sack_seen && self.rto_lost.is_none() {
            return 0; // RACK and IsLost both need SACK; a timeout's mark does not
        }
        let reordering_seen = self.reordering_seen();
        let deadline = self.rack_deadline(now);
        // Records are appended as first sent, so those sent before the deadline are a
        // prefix: RACK's lost bytes in a hole end where that prefix ends.
        let timed_out = self.outstanding.partition_point(|x| x.ts_ns <= deadline);
        let time_edge = timed_out.checked_sub(1).map_or(self.una, |i| self.outstanding[i].end);
        // RACK marks any segment sent before the last one delivered, not only holes below
        // a SACK: above the highest SACKed byte too (originals a delivered retransmission
        // was sent after). There, one sent at the same instant came later in sequence.
        let tail_from = self.scoreboard.highest().map_or(self.una, |h| h.max(self.una));
        let (rto_edge, rto_at) = self.rto_lost.map_or((self.una, i64::MIN), |(e, at)| (e.max(self.una), at));
        // Where a hole's lost bytes end unless DupThresh takes all of it (a timeout's mark
        // reaches past RACK's; the minimum with a hole's end distributes over the two).
        let time_edge = time_edge.max(rto_edge);
        // The tail, past the highest SACK: rarely reached (the newest delivered segment is
        // usually the highest SACKed one), so its own edge is found only then.
        let tail = (tail_from < time_edge).then(|| {
            let strict = match self.outstanding.partition_point(|x| x.ts_ns < deadline) {
                0 => self.una,
                n => self.outstanding[n - 1].end,
            };
            // (Every SACKed byte is below the tail: none is above it.)
            (tail_from, self.max, u32::MAX, strict.max(rto_edge))
        });
        // Holes come in sequence order: the bytes SACKed above a hole (RFC 6675 IsLost) are
        // what is left of the total once the blocks below it are counted off.
        let mut sacked_above = self.scoreboard.sacked_bytes();
        let mut resent = self.resent.iter().peekable();
        let mut lost = 0u64;
        let holes = self.scoreboard.holes_with_blocks(self.una).map(|(hs, he, below)| (hs, he, below, time_edge));
        for (hs, he, below, time_edge) in holes.chain(tail) {
            sacked_above = sacked_above.saturating_sub(below);
            let dupthresh = !reordering_seen && self.dupthresh_sacked(sacked_above);
            let edge = if dupthresh { he } else { he.min(time_edge) };
            if edge <= hs {
                // Neither rule reaches this hole, nor (fewer bytes above, later sends) any above it.
                break;
            }
            lost += edge.distance_from(hs) as u64;
            // Bytes sent again are in flight again, until RACK deems that copy lost too.
            while let Some(&&(rs, re, sent)) = resent.peek() {
                if rs >= edge {
                    break;
                }
                // (A copy sent before a timeout that marked it lost is lost with it.)
                if sent > deadline && (sent >= rto_at || rs >= rto_edge) {
                    lost -= re.min(edge).distance_from(rs.max(hs)).max(0) as u64;
                }
                if re > edge {
                    break;
                }
                resent.next();
            }
        }
        lost
    }

    /// Index of the first outstanding record ending after `seq` (records are in sequence
    /// order: they are appended only at the highest byte sent).
    fn first_ending_after(&self, seq: SeqNumber) -> usize {
        self.outstanding.partition_point(|x| x.end <= seq)
    }

    fn retransmitted(&self, s: SeqNumber, e: SeqNumber) -> bool {
        self.outstanding.range(self.first_ending_after(s)..).take_while(|x| x.seq < e).any(|x| x.retrans > 0)
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// The latest ACK seen here that the sender could have acted on by the time its segment
    /// seen at `now` left: away from the sender, its ACKs reach it and its answer comes
    /// back one ACK→data delay after the capture point saw them.
    #[inline]
    pub fn last_ack_acted_on_ns(&self, now: i64) -> i64 {
        self.last_ack_ns.min(now - self.loop_lag_ns())
    }

    /// In recovery as the sender stands for a segment seen at `now` (see [`Self::view`]):
    /// away from it, until the ACK that ended the recovery has had its ACK→data delay.
    #[inline]
    pub fn in_recovery_as_seen(&self, now: i64) -> bool {
        self.in_recovery || self.recoveries.last().and_then(|r| r.end_ns).is_some_and(|end| now - self.loop_lag_ns() < end)
    }

    /// From `from` the sender waited on its retransmission timer for packets the capture
    /// point never saw (limit.rs reads it from the pause and the IPv4 IDs it skipped): its
    /// rate stopped growing there, though the samples of the stall look like the
    /// application's (nothing was outstanding here) and count for nothing in the watch.
    pub fn stalled_on_unseen_loss(&mut self, from: i64) {
        self.startup.stalled(from, self.delivered(), self.max);
    }

    /// A segment carrying data (or SYN/FIN) in this direction.
    #[inline]
    pub fn on_data(&mut self, seg: &TcpSegment, frame: u64, ts: i64, peer_rwnd: u64, notes: &mut PacketNotes) {
        let syn = seg.flags & flags::SYN != 0;
        let fin = seg.flags & flags::FIN != 0;
        let len = seg.payload_len + syn as u32 + fin as u32;
        let seq = SeqNumber(seg.seq);
        let end = seq + len;
        let tsval = seg.options.timestamps.map(|t| t.0);
        if seg.payload_len > self.mss && self.mss_option.map_or(true, |o| seg.payload_len <= o) {
            self.mss = seg.payload_len;
        }
        if !self.started {
            self.started = true;
            self.base = seq;
            self.una = seq;
            self.max = seq;
            self.syn_seen = syn;
            let early = std::mem::take(&mut self.early_acks);
            if let Some(&(first, _)) = early.first() {
                self.adopt_unseen_flight(first, ts);
                self.replay_early_acks(&early, seq);
            }
        }
        if len == 0 {
            // A pure ACK's sequence number is the sender's SND.NXT: beyond SND.MAX it shows
            // data sent but not captured (Wireshark: "previous segment not captured").
            if seq > self.max && seg.flags & flags::RST == 0 {
                let gap = seq.distance_from(self.max) as u32;
                notes.lost_before = gap;
                self.lost_before_bytes += gap as u64;
                self.max = seq;
            }
            return;
        }
        self.note_echoes_on_data(seg, ts);
        // RFC 9293 §3.8.6.1: a one-byte probe at the window edge while the peer's window
        // is zero; repeats of the same byte are probes too (Wireshark: ZeroWindowProbe).
        if seg.payload_len == 1 && peer_rwnd == 0 && (seq == self.max || Some(seq) == self.probe_seq) {
            // SND.MAX stays put: the probed byte is sent again as data once the window
            // opens, and that is not a retransmission (same as Wireshark).
            notes.zero_window_probe = true;
            self.probes += 1;
            self.probe_seq = Some(seq);
            self.last_send_ns = ts;
            return;
        }
        // Only data below SND.MAX can be a copy of a packet already seen.
        if seq < self.max && self.is_duplicate(seq, end, seg) {
            notes.duplicate = true;
            return;
        }
        // Arrivals time the bottleneck only past it (delivery.rs); at the sender they are
        // its own departures, never read.
        if !self.at_sender() {
            self.delivery.on_arrival(ts, seg.payload_len);
        }
        if seq >= self.max {
            if seq > self.max {
                // Bytes the capture point never saw: lost upstream or dropped by the capture.
                let gap = seq.distance_from(self.max) as u32;
                notes.lost_before = gap;
                self.lost_before_bytes += gap as u64;
            }
            // The recovery ends once SND.UNA passes what was sent before it began (Linux's
            // high_seq). Away from the sender the highest byte seen then falls short when the
            // flight's last segments were lost on the way; the first new data sent in recovery
            // begins at high_seq, and arrives after the resend that began it.
            if self.in_recovery {
                if let Some(rec) = self.recoveries.last_mut().filter(|r| !r.new_data_seen) {
                    rec.new_data_seen = true;
                    rec.point = rec.point.max(seq);
                }
            }
            if seg.payload_len > 0 {
                self.note_loss_not_acted_on(ts);
            }
            self.remember(seq, end, seg);
            // Idle only counts at the sender: elsewhere what it has outstanding is seen late
            // (at the receiver everything is acknowledged as it arrives).
            let idle = self.unacked() == 0 && self.at_sender();
            if (self.ran_dry || idle) && seg.payload_len > 0 {
                // A write begun with the sender out of data: until what was in flight is
                // delivered, rate samples show the application (Linux
                // tcp_rate_check_app_limited, called as a write starts).
                let mark = self.delivered() + self.unacked();
                self.app_limited_until = Some(self.app_limited_until.map_or(mark, |m| m.max(mark)));
            }
            self.outstanding.push_back(Sent {
                seq, end, frame, ts_ns: ts, syn, retrans: 0, last_retrans_frame: 0, last_retrans_tsval: None, last_retrans_ns: 0,
                app_limited: self.app_limited_until.is_some(), ip_id: if seg.ip_version == 4 { seg.ip_id } else { 0 },
            });
            self.max = end;
            self.ran_dry = self.ends_a_write(seg.payload_len, end, fin);
            self.note_order(seg);
            self.data_segments += 1;
            self.data_bytes += seg.payload_len as u64;
            self.note_round(ts, seg.payload_len);
            if seg.payload_len > 0 && self.first_data_ns.is_none() {
                self.first_data_ns = Some(ts);
            }
            self.last_send_ns = ts;
            self.last_new_data_ns = ts;
            return;
        }
        // Below SND.MAX: a keep-alive, a late original, or a retransmission.
        // Keep-alive (RFC 9293 §3.8.4): at most one byte, just below what is acknowledged
        // or, as Wireshark tests, just below the highest byte sent.
        let plain = seg.flags & (flags::SYN | flags::FIN | flags::RST) == 0;
        if plain && seg.payload_len <= 1 && ((end <= self.una && end.distance_from(self.una) >= -1) || seq + 1 == self.max) {
            notes.keepalive = true;
            return;
        }
        if self.is_late_original(seg, end) {
            notes.reorder = Some(self.late_extent(end, ts));
            self.reorder_events += 1;
            self.widen_reorder(notes.reorder.unwrap());
            return;
        }
        self.remember(seq, end, seg);
        let kind = self.classify(seq, end, ts);
        // The flight a recovery starts from (only then: pipe walks the scoreboard).
        let pipe_before = if self.in_recovery { 0 } else { self.pipe(ts) };
        let (orig_frame, orig_ts_ns, first_resend) = self.mark_retransmitted(seq, end, frame, ts, tsval);
        self.retrans_segments += 1;
        self.retrans_bytes += seg.payload_len as u64;
        notes.retrans = kind;
        notes.retrans_of = orig_frame;
        let stamp = *self.retrans_stamp.get_or_insert(tsval);
        // Away from the sender, a resend seen less than an ACK→data delay after the ACK that
        // ended the recovery left before that ACK reached the sender: it is that recovery's.
        let late_resend = !self.in_recovery && kind != RetransKind::Rto && self.in_recovery_as_seen(ts);
        if !self.in_recovery && !late_resend {
            self.in_recovery = true;
            // A connection captured from its SYN is in its first slow start until its first
            // loss (ssthresh starts infinite, RFC 5681 §3.1), whether or not its rounds show
            // the doubling: a loss in its first two rounds comes before any round could, and
            // past a bottleneck already full arrivals stop growing. (CUBIC's HyStart may end
            // it sooner: the verdict reads that from hystart.rs.) Captured mid-transfer, only
            // a round that grew 1.5× says slow start was still on.
            // A recovery whose every resend proved needless was undone (Linux restores the
            // ssthresh it had, RFC 3522 / RFC 2883 undo): the sender is back in that slow start.
            let slow_start_on = self.recoveries.iter().all(Recovery::undone);
            let in_slow_start = slow_start_on && (self.syn_seen || ended_slow_start(&self.rounds));
            // The first loss of a connection seen from its SYN ends its first slow start for
            // the delivery meter, whether or not the rounds before it showed the doubling
            // (past a bottleneck already full, slow start sends at twice its rate: no round
            // grows). Undone or not: its ramp to the link's rate is behind it.
            if self.recoveries.is_empty() && (self.syn_seen || in_slow_start) {
                self.delivery.slow_start_ended();
            }
            self.recoveries.push(Recovery {
                start_frame: frame, start_ns: ts, end_ns: None, point: self.max, kind,
                retransmissions: 0, spurious: 0, flight_before: pipe_before, in_slow_start,
                rtt_over_floor: self.rtt_over_floor(), first_tsval: stamp, partially_undone: false, dsacked: 0, new_data_seen: false,
            });
        }
        let rec = self.recoveries.len() - 1;
        self.recoveries[rec].retransmissions += 1;
        let in_startup = first_resend && self.startup_losses.resent(seq, &self.startup);
        if kind == RetransKind::Rto {
            self.rto_backoff += 1;
            // Linux marks everything outstanding lost at a timeout (all of it was sent an
            // RTO ago, more than RACK's RTT), this retransmission's copy aside.
            self.rto_lost = Some((self.max, ts));
        }
        if self.retransmissions.len() == RETRANS_MEMORY {
            self.retransmissions.pop_front();
        }
        self.retransmissions.push_back(RetransRecord {
            seq, end, frame, orig_frame, orig_ts_ns, ts_ns: ts, kind, tsval, proven: Evidence::None, recovery: rec,
            in_startup,
        });
        self.last_send_ns = ts;
    }

    #[inline(always)]
    fn note_echoes_on_data(&mut self, seg: &TcpSegment, ts: i64) {
        let Some((val, ecr)) = seg.options.timestamps else { return };
        if self.sent_tsvals.newest().map_or(true, |(v, _)| ts_older(v, val)) {
            if self.sent_tsvals.len() == ECHO_MEMORY {
                self.sent_tsvals.pop_front();
            }
            self.sent_tsvals.push_back((val, ts));
        }
        if let Some(t) = take_echo(&mut self.peer_tsvals, ecr) {
            self.note_a2d_sample(ts - t);
            self.refresh_lag_at(ts);
        }
        // Read while the capture point looks to be at the sender, and once shown, for good.
        if (self.lag_for_good || self.host_queue.wait_ns().is_some()) && self.host_queue.on_data(val, ts) {
            self.refresh_lag_at(ts);
        }
    }

    fn note_a2d_sample(&mut self, a2d: i64) {
        self.a2d.sample(a2d);
        if !(0..=600_000_000_000).contains(&a2d) {
            return; // a clock jump, as RttEstimator::sample says
        }
        // A ring of the last samples; slots not yet filled hold i64::MAX.
        let ring = self.a2d_recent.get_or_insert_with(|| Box::new([i64::MAX; A2D_RECENT]));
        let evicted = std::mem::replace(&mut ring[self.a2d_next], a2d);
        self.a2d_next = (self.a2d_next + 1) % A2D_RECENT;
        // The minimum moves only when the new sample is below it or the one it replaced
        // was it: only then is the ring scanned.
        self.a2d_recent_min = Some(match self.a2d_recent_min {
            Some(m) if a2d <= m => a2d,
            Some(m) if evicted != m => m,
            _ => ring.iter().copied().min().unwrap_or(i64::MAX),
        });
    }

    #[inline(always)]
    fn note_echoes_on_ack(&mut self, seg: &TcpSegment, ts: i64) {
        let Some((val, ecr)) = seg.options.timestamps else { return };
        if let Some(t) = take_echo(&mut self.sent_tsvals, ecr) {
            let floor = self.d2a.min_ns;
            self.d2a.sample(ts - t);
            // The echo floors place the capture point (`echo_vantage`): the lag moves with
            // this one's floor, and once there are enough of them to compare.
            if self.d2a.min_ns != floor || self.d2a.samples == vantage::MIN_ECHOES {
                self.refresh_lag_at(ts);
            }
        }
        if self.peer_tsvals.newest().map_or(true, |(v, _)| ts_older(v, val)) {
            let keep_from = ts - 2 * self.a2d_ns() - PEER_TSVAL_SPAN_NS;
            while self.peer_tsvals.len() > 1 && self.peer_tsvals.front().is_some_and(|&(_, t)| t < keep_from) {
                self.peer_tsvals.pop_front();
            }
            if self.peer_tsvals.len() == ECHO_MEMORY {
                self.peer_tsvals.pop_front();
            }
            self.peer_tsvals.push_back((val, ts));
        }
    }

    /// The handshake showed the ACK→data delay: take it, and the SYN's RTT sample kept
    /// waiting for it.
    pub fn set_a2d_hint(&mut self, hint: i64) {
        if self.a2d_hint_ns.is_some() {
            return;
        }
        self.a2d_hint_ns = Some(hint);
        self.refresh_lag();
        if let Some(part) = self.pending_syn_rtt.take() {
            let r = part + self.loop_lag_ns();
            self.rtt.sample(r);
            self.e2e.sample(r);
        }
    }

    /// ACK → data delay at the capture point (0 at the sender).
    #[inline]
    pub fn a2d_ns(&self) -> i64 {
        self.lag_ns
    }

    /// The least the ACK → data delay with no queue on the path can be (0 at the sender),
    /// never above the recent delay: the least seen (or the handshake's) and a timestamp
    /// tick more (an echo pairs data with any ACK of the tick it echoes).
    pub fn base_a2d_floor_ns(&self) -> i64 {
        let lag = self.a2d_ns();
        if self.host_queue.wait_ns().is_some() {
            // The host's queue holds what the sender sent in answer for the whole wait, out
            // of the capture's sight: nothing coming sooner shows no data to send.
            return lag;
        }
        let least = [self.a2d.min_ns, self.a2d_hint_ns].into_iter().flatten().filter(|&b| b >= 0).min();
        match least {
            Some(b) if lag > 0 => lag.min(b + super::limit::TS_TICK_NS),
            _ => lag,
        }
    }

    /// The ACK → data delay with no queue on the path: [`Self::base_a2d_floor_ns`] and a
    /// full segment's time on the bottleneck (the handshake's small segments skip it; slow
    /// links take milliseconds), never above the recent delay. Without a capacity yet, the
    /// recent delay. (Reads the capacity: for a gap that needs it.)
    pub fn base_a2d_ns(&self) -> i64 {
        let (lag, floor) = (self.a2d_ns(), self.base_a2d_floor_ns());
        if floor == lag {
            return lag;
        }
        let Some(bps) = self.delivery.capacity_bps(super::verdict::CAPACITY_PERCENTILE, false) else { return lag };
        let segment_ns = on_link_ns(self.mss.max(1), bps);
        lag.min(floor + segment_ns)
    }

    /// How long a new segment of `len` bytes had been outstanding before the capture point
    /// saw it, where it can be told: its time on the bottleneck, when the point sees it
    /// past that link (away from the sender, or where the least round trip seen is
    /// shorter than a full segment's time on the bottleneck, which a tap before it would
    /// see in every round trip); its wait in a short queue on the sender's host
    /// (`HostQueue::short_wait_ns`). (Reads the capacity: call only for a gap that needs it.)
    pub fn outstanding_unseen_ns(&mut self, len: u32, ts: i64) -> Option<i64> {
        let on_link = self.link_bps(ts).and_then(|bps| {
            let past = !self.at_sender() || self.rtt.min_ns.is_some_and(|m| m < on_link_ns(self.mss, bps));
            past.then(|| on_link_ns(len, bps))
        });
        on_link.into_iter().chain(self.host_queue.short_wait_ns()).max()
    }

    /// The bottleneck's capacity as [`Self::outstanding_unseen_ns`] reads it: worked out
    /// again at most once a round trip, 100 ms at least; it moves slowly, and the working
    /// out walks its histograms.
    fn link_bps(&mut self, ts: i64) -> Option<f64> {
        let (at, bps) = self.link_bps_at;
        if at == 0 || ts - at >= self.rtt.srtt_ns.unwrap_or(0).max(LINK_BPS_REFRESH_NS) {
            self.link_bps_at = (ts, self.delivery.capacity_bps(super::verdict::CAPACITY_PERCENTILE, false));
            return self.link_bps_at.1;
        }
        bps
    }

    /// The part of a round trip the capture point does not see (ACK → data, away from the
    /// sender); none at the sender, where that delay is its own processing.
    #[inline]
    fn loop_lag_ns(&self) -> i64 {
        let lag = self.a2d_ns();
        if lag >= AT_SENDER_NS { lag } else { 0 }
    }

    fn refresh_lag(&mut self) {
        self.lag_ns = self.compute_a2d_ns();
        self.lag_for_good = self.host_queue.wait_ns().is_none() && (self.a2d_hint_ns.is_some_and(|h| h < AT_SENDER_NS) || self.turns_around_at_once());
    }

    /// [`Self::refresh_lag`] at `ts`. At the sender no snapshot is kept: when the capture
    /// point turns out to lag it after all (a host queue found mid-transfer), the history
    /// starts again from the state now — the oldest one kept would be the handshake's, and
    /// a view falling back to it would read everything sent since as in flight.
    fn refresh_lag_at(&mut self, ts: i64) {
        let was_for_good = self.lag_for_good;
        self.refresh_lag();
        if was_for_good && !self.lag_for_good && self.started {
            while self.history.pop_front().is_some() {}
            self.push_snapshot(ts);
        }
    }

    fn compute_a2d_ns(&self) -> i64 {
        // Segments that waited after TCP sent them (a queue on the sender's host before
        // the tap): neither the handshake nor a quick turn places the point at TCP's
        // sending any more; the sender acted on what the point saw that wait ago. (The
        // ACK → data echoes would give the least wait, not the usual one: a shaper's
        // bucket lets a segment through at once now and then.)
        if let Some(wait) = self.host_queue.wait_ns() {
            return wait;
        }
        // A handshake that shows the capture point at the sender settles it: the handshake's
        // ACK leaves as soon as the SYN/ACK arrives, while a data segment may wait after an
        // ACK for its pacing slot (BBR at a low rate: milliseconds) or its application.
        if let Some(h) = self.a2d_hint_ns.filter(|&h| h < AT_SENDER_NS) {
            return h.max(0);
        }
        // So do, without a handshake, the echo floors: a data segment sent at once on its
        // ACK (an ACK-clocked send, or a paced one whose slot had passed), or ACK→data turns
        // far quicker than data→ACK ones (what is left of them is the sender's own wait for
        // its application or pacing slot). The flow's vantage is the same call, so the
        // report and the model agree on where the capture point is.
        if self.echo_vantage() == Some(Vantage::SenderSide) {
            return 0;
        }
        // A data segment may echo an older ACK (TS.Recent does not move on out-of-order
        // data, RFC 7323 §4.3), which only inflates samples: take the minimum of the
        // recent ones, which still follows a growing queue.
        self.a2d_recent_min.or(self.a2d_hint_ns).unwrap_or(0).max(0)
    }

    /// Some data segment left within [`vantage::TURNAROUND_NS`] of the ACK it echoes: the
    /// capture point is next to this sender, for good.
    pub fn turns_around_at_once(&self) -> bool {
        self.a2d.min_ns.is_some_and(|m| m < vantage::TURNAROUND_NS)
    }

    /// One of the last four rounds grew its flight by half or more over the one before:
    /// slow start was still doubling then.
    pub fn rounds_still_growing(&self) -> bool {
        ended_slow_start(&self.rounds)
    }

    /// Where the timestamp echoes seen so far place the capture point on this sender's
    /// path ([`vantage::from_echo_floors`]); `None` without enough of them.
    pub fn echo_vantage(&self) -> Option<Vantage> {
        vantage::from_echo_floors(&self.a2d, &self.d2a)
    }

    /// A segment of `payload_len` bytes ending at `end` was a write's short tail: not a
    /// whole number of segments, no FIN ([`ends_write`]), and not cut by the window —
    /// behind a host queue, ending on a right edge the peer advertised lately.
    pub(super) fn ends_a_write(&self, payload_len: u32, end: SeqNumber, fin: bool) -> bool {
        ends_write(payload_len, self.mss, fin) && !(0..self.right_edges.len()).any(|i| self.right_edges.get(i) == Some(&end))
    }

    /// The capture point is at (or within a millisecond of) this sender.
    pub fn at_sender(&self) -> bool {
        self.a2d_ns() < AT_SENDER_NS
    }

    /// The peer advertised a new window for this direction.
    pub fn note_rwnd(&mut self, rwnd: u64, ts: i64) {
        self.rwnd = Some(rwnd);
        self.snapshot(ts);
    }

    /// The windows noted so far were scaled by a shift this sender turned out not to apply
    /// (the option stripped on its way to it): what it read was the field itself.
    pub fn unscale_rwnd(&mut self, shift: u8) {
        self.rwnd = self.rwnd.map(|w| w >> shift);
        self.history.update_all(|s| s.rwnd = s.rwnd.map(|w| w >> shift));
    }

    /// The capture point is at this sender for good: a handshake or a data segment sent at
    /// once on its ACK showed it, and neither is ever taken back (`a2d_ns` stays under
    /// [`AT_SENDER_NS`]), so views never look back.
    fn at_sender_for_good(&self) -> bool {
        self.lag_for_good
    }

    #[inline]
    fn snapshot(&mut self, ts: i64) {
        // Before this direction sent anything there is no SND.UNA to remember (a window
        // advertised in the peer's SYN comes first): a view then falls back to now. At the
        // sender no view ever reads one.
        if !self.started || self.at_sender_for_good() {
            return;
        }
        self.push_snapshot(ts);
    }

    fn push_snapshot(&mut self, ts: i64) {
        let snap = Snapshot { ts, una: self.una, sacked: self.scoreboard.sacked_bytes(), rwnd: self.rwnd };
        // Views look back one ACK→data delay: keep twice that (and a millisecond).
        let keep_from = ts - 2 * self.a2d_ns() - AT_SENDER_NS;
        while self.history.get(1).is_some_and(|s| s.ts < keep_from) {
            self.history.pop_front();
        }
        // A second snapshot at the same instant (an ACK's window, then its SND.UNA) replaces
        // the first: a view never picks the earlier of two with the same time.
        if self.history.back().is_some_and(|s| s.ts == ts) {
            self.history.replace_back(snap);
            return;
        }
        if self.history.len() == ECHO_MEMORY {
            self.history.pop_front();
        }
        self.history.push_back(snap);
    }

    /// The sender's flight, unacked bytes and window as they stand for a segment seen
    /// now. At the sender that is the state as is; elsewhere the sender acts on ACKs the
    /// capture point saw one ACK→data delay earlier.
    #[inline(always)]
    pub fn view(&mut self, now: i64) -> View {
        self.view_lagged(now, self.a2d_ns())
    }

    /// The state once every ACK seen so far has reached the sender.
    #[inline]
    pub fn settled_view(&mut self, now: i64) -> View {
        self.view_lagged(now, 0)
    }

    // Inlined: returned through memory, its fields were read back before their stores
    // had landed (a stall that was a quarter of `FlowState::on_segment`).
    #[inline(always)]
    fn view_lagged(&mut self, now: i64, lag: i64) -> View {
        if lag < AT_SENDER_NS || !self.started {
            let unacked = self.unacked();
            return View {
                in_flight: self.pipe(now),
                unacked,
                sacked: self.scoreboard.sacked_bytes() as u64,
                rwnd: self.rwnd,
            };
        }
        let then = now - lag;
        while self.history.get(1).is_some_and(|s| s.ts <= then) {
            self.history.pop_front();
        }
        // None that old: the oldest kept. Views pop what they pass, so when the ACK→data
        // delay grows (a queue building) the next view looks back past the front by as much;
        // the state now would read a window's worth of flight as none outstanding.
        let snap = match self.history.front() {
            Some(s) => *s,
            None => Snapshot { ts: then, una: self.una, sacked: 0, rwnd: None },
        };
        let unacked = self.max.distance_from(snap.una).max(0) as u64;
        View {
            in_flight: unacked.saturating_sub(snap.sacked as u64),
            unacked,
            sacked: snap.sacked as u64,
            rwnd: snap.rwnd.or(self.rwnd),
        }
    }

    /// The same bytes with the same IPv4 ID as a recent segment: one packet seen twice
    /// (capture duplicates, switch mirroring), neither a retransmission nor reordering —
    /// a retransmission is a new packet with a new ID.
    fn is_duplicate(&self, seq: SeqNumber, end: SeqNumber, seg: &TcpSegment) -> bool {
        seg.ip_version == 4
            && seg.ip_id != 0
            && self.recent.as_ref().is_some_and(|ring| {
                ring[..self.recent_len].iter().any(|&(s, e, id)| s == seq && e == end && id == seg.ip_id)
            })
    }

    fn remember(&mut self, seq: SeqNumber, end: SeqNumber, seg: &TcpSegment) {
        let ring = self.recent.get_or_insert_with(|| Box::new([(SeqNumber(0), SeqNumber(0), 0); RECENT_MEMORY]));
        ring[self.recent_next] = (seq, end, seg.ip_id);
        self.recent_next = (self.recent_next + 1) % RECENT_MEMORY;
        self.recent_len = (self.recent_len + 1).min(RECENT_MEMORY);
    }

    /// The round-trip estimator of the path: the end-to-end one where it has a sample, as
    /// away from the sender the capture point's own ACK clock times only part of the path.
    fn path_rtt(&self) -> &RttEstimator {
        if self.e2e.srtt_ns.is_some() { &self.e2e } else { &self.rtt }
    }

    /// The round trip ([`Self::path_rtt`]'s smoothed one).
    fn round_ns(&self) -> Option<i64> {
        self.path_rtt().srtt_ns
    }

    /// The smoothed round trip over the least seen so far, from the same estimator.
    fn rtt_over_floor(&self) -> Option<f32> {
        let r = self.path_rtt();
        Some((r.srtt_ns? as f64 / r.min_ns?.max(1) as f64) as f32)
    }

    /// Counts new data per round trip (SRTT-long buckets, [`Self::round_ns`]): it doubles
    /// each round in slow start and grows by one segment in congestion avoidance, seen from
    /// any vantage.
    fn note_round(&mut self, ts: i64, bytes: u32) {
        if ts - self.round_start >= self.round_ns().unwrap_or(i64::MAX) {
            if self.rounds.len() == 4 {
                self.rounds.pop_front();
            }
            self.rounds.push_back(self.round_max);
            self.round_start = ts;
            self.round_max = 0;
        }
        self.round_max += bytes as u64;
    }

    fn note_order(&mut self, seg: &TcpSegment) {
        if let Some((v, _)) = seg.options.timestamps {
            if self.max_tsval.map_or(true, |m| ts_older(m, v)) {
                self.max_tsval = Some(v);
            }
        }
        if seg.ip_version == 4 && seg.ip_id != 0 {
            self.max_ip_id = Some(seg.ip_id);
        }
    }

    /// A segment below SND.MAX that was sent before the highest one: its timestamp (or
    /// IPv4 ID, from stacks that increment it per packet) is older. Only possible when
    /// the capture point is after the place where packets were reordered. A stamp from the
    /// same tick as the highest one's cannot tell (at 800 Mbit/s a millisecond holds 70
    /// segments, and a resend may share it too): then it is a late original when the first
    /// segment seen above it left just after it — its IPv4 ID at most [`NEXT_ID_SLACK`]
    /// above. A resend leaves a round trip after the originals above it, with a higher ID.
    fn is_late_original(&self, seg: &TcpSegment, end: SeqNumber) -> bool {
        if let (Some((v, _)), Some(max)) = (seg.options.timestamps, self.max_tsval) {
            if v != max {
                return ts_older(v, max);
            }
            let i = self.outstanding.partition_point(|s| s.seq < end);
            return seg.ip_version == 4
                && seg.ip_id != 0
                && self.outstanding.get(i).is_some_and(|next| {
                    let d = next.ip_id.wrapping_sub(seg.ip_id);
                    next.ip_id != 0 && (1..=NEXT_ID_SLACK).contains(&d)
                });
        }
        if let (4, Some(max)) = (seg.ip_version, self.max_ip_id) {
            if seg.ip_id != 0 {
                let back = max.wrapping_sub(seg.ip_id);
                return back > 0 && back < 1024;
            }
        }
        false
    }

    fn late_extent(&self, end: SeqNumber, ts: i64) -> Reorder {
        let bytes = self.max.distance_from(end).max(0) as u32;
        let overtaken = self.outstanding.get(self.outstanding.partition_point(|s| s.seq < end)).map(|s| s.ts_ns);
        Reorder { packets: bytes.div_ceil(self.mss.max(1)), bytes, late_ns: overtaken.map_or(0, |t| ts - t) }
    }

    fn widen_reorder(&mut self, r: Reorder) {
        let m = &mut self.max_reorder;
        m.packets = m.packets.max(r.packets);
        m.bytes = m.bytes.max(r.bytes);
        m.late_ns = m.late_ns.max(r.late_ns);
    }

    /// Which trigger explains a retransmission of [seq, end) at `ts`.
    fn classify(&self, seq: SeqNumber, end: SeqNumber, ts: i64) -> RetransKind {
        let quiet = ts - self.last_ack_ns.max(self.last_send_ns);
        let rto = self.rtt.rto_ns();
        // Same rule as Linux's RTO floor: silence of about an RTO means the timer fired.
        if quiet >= rto * 3 / 4 {
            return RetransKind::Rto;
        }
        if self.dupacks > 0 || !self.scoreboard.is_empty() {
            return RetransKind::Fast;
        }
        // RFC 8985 §7.2: PTO = 2·SRTT; the probe resends the last segment.
        if let Some(srtt) = self.rtt.srtt_ns {
            if end == self.max && quiet >= srtt && seq >= self.una {
                return RetransKind::Tlp;
            }
        }
        RetransKind::Other
    }

    /// Marks the outstanding segments [seq, end) resent. Returns the frame and time that
    /// first carried `seq` (0 and `None` if not captured), and whether this is its first
    /// resend (none of them resent before; away from the sender a lost original may have
    /// left nothing on record).
    fn mark_retransmitted(&mut self, seq: SeqNumber, end: SeqNumber, frame: u64, ts: i64, tsval: Option<u32>) -> (u64, Option<i64>, bool) {
        let mut orig = (0, None);
        let mut resent_before = false;
        let first = self.first_ending_after(seq);
        for s in self.outstanding.range_mut(first..) {
            if s.seq >= end {
                break;
            }
            if s.end > seq {
                if orig.0 == 0 {
                    orig = (s.frame, (s.frame != 0).then_some(s.ts_ns));
                }
                let at = self.resent.partition_point(|r| r.0 < s.seq);
                resent_before |= s.retrans > 0;
                if s.retrans == 0 {
                    self.resent.insert(at, (s.seq, s.end, ts));
                } else if let Some(r) = self.resent.get_mut(at) {
                    r.2 = ts;
                }
                s.retrans = s.retrans.saturating_add(1);
                s.last_retrans_frame = frame;
                s.last_retrans_tsval = tsval;
                s.last_retrans_ns = ts;
            }
        }
        (orig.0, orig.1, !resent_before)
    }

    /// An ACK from the other side, acknowledging this direction's data.
    #[inline]
    pub fn on_ack(&mut self, seg: &TcpSegment, frame: u64, ts: i64, notes: &mut PacketNotes) {
        if seg.flags & flags::ACK == 0 {
            return;
        }
        if let (Some(w), Some(_)) = (self.rwnd, self.host_queue.wait_ns()) {
            let edge = SeqNumber(seg.ack) + w.min(u32::MAX as u64) as u32;
            if self.right_edges.newest() != Some(edge) {
                if self.right_edges.len() == RIGHT_EDGES {
                    self.right_edges.pop_front();
                }
                self.right_edges.push_back(edge);
            }
        }
        self.newest_delivered = None;
        let ack = SeqNumber(seg.ack);
        let blocks = seg.options.sack_blocks();
        let mut sack_blocks = blocks;
        if let Some((l, r)) = dsack(ack, blocks) {
            // Reported whether or not this direction's data was captured.
            notes.dsack = true;
            notes.dsack_edges = if self.started {
                (l.distance_from(self.base) as u32, r.distance_from(self.base) as u32)
            } else {
                (l.0, r.0)
            };
            self.dsacks += 1;
            // Linux widens RACK's window only for a D-SACK after reordering was seen
            // (tcp_dsack_seen: a spurious resend RACK's own haste may have caused). Before
            // the capture began that is unknown: there every D-SACK counts.
            if self.reordering_seen() || !self.syn_seen {
                self.reo.on_dsack();
            }
            self.prove(l, r, Evidence::Dsack, notes);
            sack_blocks = &blocks[1..];
        }
        if !self.started {
            if !sack_blocks.is_empty() {
                self.holes_predate_capture = Some(true);
            }
            // Each ACK that advanced is kept with its time, and its timestamp too: the first
            // data seen may echo it (the ACK→data delay, before any data was acknowledged).
            match self.early_acks.last() {
                Some(&(last, _)) if ack <= last => {}
                _ if self.early_acks.len() == EARLY_ACK_MEMORY => *self.early_acks.last_mut().unwrap() = (ack, ts),
                _ => {
                    self.early_acks.push((ack, ts));
                    self.note_echoes_on_ack(seg, ts);
                }
            }
            return;
        }
        if !self.acks_applied {
            self.adopt_unseen_flight(ack, ts);
        }
        self.holes_predate_capture.get_or_insert(!sack_blocks.is_empty());
        self.note_echoes_on_ack(seg, ts);
        // An ACK beyond SND.MAX covers data not captured (yet: TSO/GRO captures may show
        // the ACK first). SND.MAX stays the highest byte *seen sent*, so that data is new
        // when it shows up, as in Wireshark.
        let advanced = ack > self.una;
        let fack = self.scoreboard.highest();
        // (Nothing SACKed, no hole to fill: the usual ACK skips the scan.)
        if let Some(sent) = (advanced && fack.is_some()).then(|| self.original_filling_hole(self.una, ack, fack)).flatten() {
            self.note_reordering(sent);
        }
        let acked = if advanced { self.advance(ack, ts, seg, notes) } else { None };
        let mut new_sack = false;
        for &(l, r) in sack_blocks {
            if let Some(sent) = self.original_filling_hole(SeqNumber(l), SeqNumber(r), fack) {
                self.note_reordering(sent);
            }
            self.sack_seen = true;
            if self.scoreboard.add(SeqNumber(l), SeqNumber(r), self.una) > 0 {
                new_sack = true;
                self.rack_on_sacked(SeqNumber(l), SeqNumber(r), ts);
            }
        }
        if self.scoreboard.is_empty() {
            self.holes_predate_capture = Some(false);
        }
        if new_sack && self.hole_since.is_none() {
            self.hole_since = Some(ts);
        }
        // RACK's RTT is the last delivered segment's: Linux tags SACKed segments first,
        // then the cumulatively ACKed ones (tcp_sacktag_write_queue, then
        // tcp_clean_rtx_queue), so an ACK that does both times its RTT by the ACKed one.
        if let Some((xmit, resent)) = acked {
            self.rack_advance(xmit, resent, ts);
        }
        // Same as Wireshark tcp.analysis.duplicate_ack: no data, same ACK, same window.
        let pure = seg.payload_len == 0 && seg.flags & (flags::SYN | flags::FIN | flags::RST) == 0;
        if !advanced && pure && ack == self.una && seg.window == self.last_ack_window && self.unacked() > 0 {
            self.dupacks += 1;
            notes.dup_ack = self.dupacks;
            notes.dup_ack_of = self.last_ack_frame;
        } else if advanced || !pure || seg.window != self.last_ack_window {
            if advanced {
                self.dupacks = 0;
            }
            self.last_ack_frame = frame;
        }
        self.last_ack_window = seg.window;
        self.last_ack_ns = ts;
        if self.retrans_stamp.is_some() && !self.in_recovery && !self.retransmission_outstanding(ts) {
            self.retrans_stamp = None;
        }
        if let Some((sent, _)) = self.newest_delivered {
            self.reo.on_delivery(sent, self.loop_lag_ns(), ts);
        }
        if advanced || new_sack {
            self.snapshot(ts);
            // SACKed bytes leave the scoreboard as SND.UNA passes them: counted once.
            let delivered = self.delivered();
            let app_limited = self.newest_delivered.is_some_and(|d| d.1);
            self.delivery.on_delivered(ts, delivered, app_limited);
            self.startup.on_delivered(ts, delivered, self.round_ns(), app_limited, self.max);
            if self.app_limited_until.is_some_and(|mark| delivered >= mark) {
                self.app_limited_until = None;
            }
        }
    }

    /// Whether a retransmission still stands between the sender and a clean slate (Linux
    /// tcp_any_retrans_done, which keeps retrans_stamp): a resent segment neither ACKed nor
    /// SACKed — or a hole deemed lost, which starts the next recovery on this very ACK
    /// (tcp_time_to_recover) before the kernel could clear the stamp.
    fn retransmission_outstanding(&self, now: i64) -> bool {
        Self::resend_unacknowledged(&self.resent, &self.scoreboard)
            || !self.scoreboard.is_empty() && self.lost_bytes(now) > 0
    }

    /// A resend neither ACKed nor SACKed (Linux's retrans_out above zero). Takes the two
    /// fields, not `self`: it is read while a recovery is borrowed for writing.
    fn resend_unacknowledged(resent: &VecDeque<(SeqNumber, SeqNumber, i64)>, scoreboard: &Scoreboard) -> bool {
        resent.iter().any(|&(s, e, _)| !scoreboard.covers(s, e))
    }

    /// Bytes acknowledged or SACKed so far (the delivery rate's C.delivered).
    pub fn delivered(&self) -> u64 {
        self.acked_total + self.scoreboard.sacked_bytes() as u64
    }

    /// A rate sample's flags come from the newest-sent segment it delivered (Linux
    /// tcp_rate_skb_delivered).
    fn note_delivered(&mut self, sent_ns: i64, app_limited: bool) {
        if self.newest_delivered.map_or(true, |d| sent_ns >= d.0) {
            self.newest_delivered = Some((sent_ns, app_limited));
        }
    }

    /// RACK's clock from a SACK block that delivered new bytes: the last record in it (sent
    /// last of the originals) and every retransmission in it.
    fn rack_on_sacked(&mut self, l: SeqNumber, r: SeqNumber, ts: i64) {
        let top = self.first_ending_after(r - 1);
        if let Some(s) = self.outstanding.get(top).filter(|s| s.seq < r && s.retrans == 0) {
            let (sent, app_limited) = (s.ts_ns, s.app_limited);
            self.rack_advance(sent, false, ts);
            self.note_delivered(sent, app_limited);
        }
        let from = self.resent.partition_point(|x| x.1 <= l);
        let latest = self.resent.range(from..).take_while(|x| x.0 < r).map(|x| x.2).max();
        if let Some(sent) = latest {
            self.rack_advance(sent, true, ts);
        }
    }

    /// The outstanding records at the front that `ack` covers and that the loop of
    /// `advance` takes the plain way: sent once, not a SYN, sent within the capture.
    #[inline]
    fn acked_plain_prefix(&self, ack: SeqNumber) -> PlainPrefix {
        let mut p = PlainPrefix { count: 0, newest: (i64::MIN, false), last_ts_ns: 0 };
        for s in &self.outstanding {
            if s.end > ack || s.retrans > 0 || s.syn || s.frame == 0 {
                break;
            }
            p.count += 1;
            // `>=`: of equal send times the later record counts, as in the loop.
            if s.ts_ns >= p.newest.0 {
                p.newest = (s.ts_ns, s.app_limited);
            }
            p.last_ts_ns = s.ts_ns;
        }
        p
    }

    /// SND.UNA moves to `ack`. Gives the send time of the newest segment it delivered
    /// (and whether that was a resend), for RACK once the ACK's SACK blocks are taken.
    fn advance(&mut self, ack: SeqNumber, ts: i64, seg: &TcpSegment, notes: &mut PacketNotes) -> Option<(i64, bool)> {
        let old_una = self.una;
        self.acked_total += ack.distance_from(old_una).max(0) as u64;
        self.una = ack;
        self.rto_backoff = 0;
        if self.rto_lost.is_some_and(|(e, _)| ack >= e) {
            self.rto_lost = None;
        }
        // Sender-view reordering: a hole that the receiver reported (data SACKed above
        // it) filled without any of its bytes being retransmitted.
        if let Some(since) = self.hole_since {
            let hole_end = self.scoreboard.holes(old_una).next().map(|h| h.1);
            if let Some(hole_end) = hole_end.filter(|&e| e <= ack) {
                if !self.retransmitted(old_una, hole_end) {
                    let (bytes, _) = self.scoreboard.above(hole_end);
                    let r = Reorder { packets: bytes.div_ceil(self.mss.max(1)), bytes, late_ns: ts - since };
                    notes.reorder = Some(r);
                    self.reorder_events += 1;
                    self.widen_reorder(r);
                }
            }
        }
        self.scoreboard.advance(ack);
        self.hole_since = if self.scoreboard.is_empty() { None } else { self.hole_since };
        let tsecr = seg.options.timestamps.map(|t| t.1);
        let mut rtt_sample = None;
        let mut delivered: Option<(i64, bool)> = None;
        // The usual records first, in one pass without popping each: what the loop below
        // would make of them (newest send time delivered, the RTT of the last one) is
        // worked out from the prefix as a whole.
        let plain = self.acked_plain_prefix(ack);
        if plain.count > 0 {
            self.outstanding.drain(..plain.count);
            delivered = Some((plain.newest.0, false));
            self.note_delivered(plain.newest.0, plain.newest.1);
            rtt_sample = Some(ts - plain.last_ts_ns);
        }
        while let Some(front) = self.outstanding.front() {
            if front.end > ack {
                break;
            }
            let s = self.outstanding.pop_front().unwrap();
            if s.retrans > 0 && self.resent.front().is_some_and(|r| r.1 <= ack) {
                self.resent.pop_front();
            }
            let xmit = if s.retrans > 0 { (s.last_retrans_ns, true) } else { (s.ts_ns, false) };
            if delivered.map_or(true, |d| xmit.0 >= d.0) {
                delivered = Some(xmit);
            }
            self.note_delivered(xmit.0, s.app_limited);
            let lag_known = self.a2d.samples > 0 || self.a2d_hint_ns.is_some();
            if s.retrans == 0 && s.syn && !lag_known {
                // A SYN answered before the handshake shows where the capture point is:
                // kept until it does (away from the sender it is only part of the RTT).
                self.pending_syn_rtt = Some(ts - s.ts_ns);
            } else if s.retrans == 0 && s.frame != 0 {
                // Karn (RFC 6298 §3): time only never-retransmitted segments; the last one
                // this ACK covers gives the sample.
                rtt_sample = Some(ts - s.ts_ns);
            } else if let (Some(ecr), Some(rtv)) = (tsecr, s.last_retrans_tsval) {
                // Eifel (RFC 3522 §3.2): the ACK echoes a timestamp older than the
                // retransmission's, so the original got through. The echo is that of the
                // segment at the old SND.UNA only (RFC 7323 §4.3: TS.Recent moves only on
                // a segment at the left edge): segments above it, received earlier, may
                // have been retransmissions the echo says nothing about.
                if s.seq <= old_una && ts_older(ecr, rtv) {
                    self.prove(s.seq, s.end, Evidence::Eifel, notes);
                }
            }
        }
        if let Some(r) = rtt_sample {
            // The capture point sees data → ACK; away from the sender the rest of the loop
            // is ACK → data (at the sender that delay is its own processing: left out).
            let r = r + self.loop_lag_ns();
            self.rtt.sample(r);
            if self.a2d.samples > 0 || self.a2d_hint_ns.is_some() {
                self.e2e.sample(r);
            }
            // HyStart times the ACKs as they reach the sender: only there are they timed as
            // it saw them (on the way back past a middle point they may bunch or spread).
            if self.recoveries.is_empty() && self.at_sender() {
                let floor = self.rtt.min_ns.unwrap_or(r);
                self.hystart.sample(floor, ts, self.una, self.max, self.mss);
            }
            notes.rtt_ns = Some(r);
        }
        if self.in_recovery {
            if let Some(rec) = self.recoveries.last_mut() {
                // A partial ACK echoing a timestamp from before the first retransmission:
                // a hole filled with its delayed original (Linux tcp_try_undo_partial), while
                // the recovery can still be undone (undo_marker: not once D-SACKs proved
                // every resend needless, nor once such an ACK undid it).
                if ack < rec.point && !rec.dsack_undone() && !rec.partially_undone && tsecr.zip(rec.first_tsval).is_some_and(|(ecr, first)| ts_older(ecr, first)) {
                    self.reord_seen += 1;
                    rec.partially_undone = !Self::resend_unacknowledged(&self.resent, &self.scoreboard);
                }
                if ack >= rec.point {
                    rec.end_ns = Some(ts);
                    self.in_recovery = false;
                    self.reo.on_recovery_end(rec.undone());
                }
            }
        }
        delivered
    }

    /// The first ACK of a capture that began mid-stream, below the first data seen: the
    /// bytes between were sent before the capture and are in flight (the kernel counts
    /// them). They enter as segment-sized records with no known send time, sent before
    /// anything captured.
    fn adopt_unseen_flight(&mut self, ack: SeqNumber, ts: i64) {
        self.acks_applied = true;
        let unseen = self.una.distance_from(ack);
        if self.syn_seen || unseen <= 0 || unseen > MAX_UNSEEN_FLIGHT {
            return;
        }
        let step = self.mss.max(536);
        let mut end = self.una;
        while end > ack {
            let seq = if end.distance_from(ack) > step as i32 { end - step } else { ack };
            self.outstanding.push_front(Sent {
                seq, end, frame: 0, ts_ns: ts - 1, syn: false, retrans: 0, last_retrans_frame: 0,
                last_retrans_tsval: None, last_retrans_ns: 0, app_limited: false, ip_id: 0,
            });
            end = seq;
        }
        self.una = ack;
    }

    /// The ACKs seen before the first data, after the first placed the unseen flight: each
    /// later one acknowledged part of it at its own time (not beyond the first data seen:
    /// what lies above that was not captured). They enter the history a view looks back
    /// into, as the sender received them one ACK→data delay after the capture point.
    fn replay_early_acks(&mut self, early: &[(SeqNumber, i64)], first_seq: SeqNumber) {
        for &(ack, t) in early {
            if ack > self.una && ack <= first_seq {
                self.acked_total += ack.distance_from(self.una) as u64;
                while let Some(front) = self.outstanding.front_mut() {
                    if front.end > ack {
                        front.seq = front.seq.max(ack);
                        break;
                    }
                    self.outstanding.pop_front();
                }
                self.una = ack;
            }
            if self.history.len() < ECHO_MEMORY {
                self.history.push_back(Snapshot { ts: t, una: self.una, sacked: 0, rwnd: self.rwnd });
            }
        }
    }

    /// Marks the retransmissions of [l, r) spurious on evidence from this ACK. Rare: kept
    /// out of line, or its walk's setup is hoisted into every ACK's loop.
    #[cold]
    #[inline(never)]
    fn prove(&mut self, l: SeqNumber, r: SeqNumber, how: Evidence, notes: &mut PacketNotes) {
        // The latest unproven retransmission overlapping [l, r). Most D-SACKs match none
        // (duplicates of originals): the search runs over the deque's two slices, not its
        // iterator, as it often walks every record.
        // (Spelled as the records to pass over: sequence order is not symmetric at 2^31.)
        let pass = |x: &RetransRecord| x.proven != Evidence::None || x.end <= l || r <= x.seq;
        let hit = |x: &RetransRecord| !pass(x);
        let (older, newer) = self.retransmissions.as_slices();
        let Some(at) = newer.iter().rposition(hit).map(|i| older.len() + i).or_else(|| older.iter().rposition(hit)) else {
            return;
        };
        let rec = &mut self.retransmissions[at];
        rec.proven = how;
        if how == Evidence::Eifel && rec.kind == RetransKind::Rto {
            // Linux undoes a timeout the echo shows spurious, its loss marks with it.
            self.rto_lost = None;
        }
        self.spurious += 1;
        self.spurious_bytes += rec.end.distance_from(rec.seq).max(0) as u64;
        if let Some(recovery) = self.recoveries.get_mut(rec.recovery) {
            recovery.spurious += 1;
            recovery.dsacked += (how == Evidence::Dsack) as u32;
        }
        self.startup_losses.needless += rec.in_startup as u32;
        if notes.spurious_of == 0 {
            notes.spurious_of = rec.frame;
            notes.spurious_by = how;
            notes.spurious_orig = rec.orig_frame;
            notes.spurious_ts = rec.ts_ns;
        }
    }

    pub fn retransmission_log(&self) -> impl Iterator<Item = &RetransRecord> {
        self.retransmissions.iter()
    }
}

/// Slow start doubles what is sent each round; congestion avoidance adds one segment
/// (RFC 5681 §3.1). A first loss after ≥ 1.5× growth between consecutive rounds ended a
/// slow start. Any of the last three pairs counts: away from the sender the loss shows a
/// round later (the retransmission arrives after the round spent in recovery), and past
/// the bottleneck the rounds stop growing once its queue starts to fill, a round or two
/// before it overflows.
fn ended_slow_start(rounds: &VecDeque<u64>) -> bool {
    let grew = |(before, after): (u64, u64)| before > 0 && after * 2 >= before * 3;
    rounds.iter().copied().zip(rounds.iter().copied().skip(1)).any(grew)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_ends_in_a_doubling_seen_one_round_late() {
        let rounds = |r: &[u64]| r.iter().copied().collect::<VecDeque<u64>>();
        // At the sender: 10, 20, 40 segments, then the loss.
        assert!(ended_slow_start(&rounds(&[10, 20, 40])));
        // At the receiver the retransmission arrives after a round of recovery (PRR sends
        // about half): 20, 40, then 21.
        assert!(ended_slow_start(&rounds(&[20, 40, 21])));
        // At the receiver of a flow through a bottleneck: arrivals grow at the link's rate
        // once its queue builds (80, 138, 177 kB), then the loss round.
        assert!(ended_slow_start(&rounds(&[80, 138, 177, 111])));
        // Congestion avoidance: a segment a round.
        assert!(!ended_slow_start(&rounds(&[40, 41, 42])));
        assert!(!ended_slow_start(&rounds(&[40])));
    }

    #[test]
    fn a_view_looking_back_further_than_the_last_reads_the_oldest_state_kept() {
        // At a receiver 200 ms (ACK→data) from the sender, SND.UNA advanced 1,000 B a
        // millisecond for 300 ms with 700 kB sent beyond it.
        let ms = 1_000_000;
        let mut s = Sender { started: true, mss: 1_000, ..Default::default() };
        s.set_a2d_hint(200 * ms);
        for k in 0..300 {
            s.una = SeqNumber(1 + k * 1_000);
            s.push_snapshot(k as i64 * ms);
        }
        s.max = SeqNumber(1 + 1_000_000);
        assert_eq!(s.view_lagged(300 * ms, 200 * ms).unacked, 900_000);
        // The delay grew (a queue building): the next view looks back to 51 ms, past what
        // the last one left. The oldest state kept (100 ms) is nearest, not the present.
        assert_eq!(s.view_lagged(301 * ms, 250 * ms).unacked, 900_000);
    }

    /// The loss count as RFC 6675 (IsLost), RFC 8985 (RACK) and Linux's timeout mark define
    /// it, walking every record of every hole: what `lost_bytes` must equal without the walk.
    fn lost_by_walking(s: &Sender, now: i64) -> u64 {
        let reordering_seen = s.reordering_seen();
        let deadline = s.rack_deadline(now);
        let mut lost = 0;
        let tail_from = s.scoreboard.highest().map_or(s.una, |h| h.max(s.una));
        let tail = (tail_from < s.max).then_some((tail_from, s.max));
        let (rto_edge, rto_at) = s.rto_lost.map_or((s.una, i64::MIN), |(e, at)| (e.max(s.una), at));
        for (hs, he) in s.scoreboard.holes(s.una).chain(tail) {
            let dupthresh = !reordering_seen && s.scoreboard.is_lost(hs, s.mss);
            // Above every SACK, a segment sent at RACK's instant came after it in sequence.
            let sent_before = |t: i64| if hs == tail_from { t < deadline } else { t <= deadline };
            for seg in s.outstanding.iter().filter(|x| x.end > hs && x.seq < he) {
                let by_rto = seg.end <= rto_edge;
                let resent_lost = seg.retrans > 0 && (seg.last_retrans_ns <= deadline || by_rto && seg.last_retrans_ns < rto_at);
                if (dupthresh || sent_before(seg.ts_ns) || by_rto) && (seg.retrans == 0 || resent_lost) {
                    lost += seg.end.min(he).distance_from(seg.seq.max(hs)) as u64;
                }
            }
        }
        lost
    }

    #[test]
    fn loss_count_equals_a_walk_of_every_record() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15; // xorshift: the same cases every run
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..300 {
            let mut s = Sender { mss: 1000, una: SeqNumber(u32::MAX - 20_000), ..Default::default() };
            s.rtt.srtt_ns = Some(50_000_000);
            s.rtt.min_ns = Some(40_000_000);
            if next(3) == 0 {
                s.reo.on_dsack(); // a window widened by a step
                s.reo.on_delivery(0, 0, 0);
            }
            s.reord_seen = next(3) / 2;
            let n = 1 + next(60) as u32;
            for i in 0..n {
                let seq = s.una + i * 1000;
                let retrans = u16::from(next(6) == 0);
                let resent_at = n as i64 * 2_000_000 + next(100_000_000) as i64;
                s.outstanding.push_back(Sent {
                    seq, end: seq + 1000, frame: i as u64 + 1, ts_ns: i as i64 * 2_000_000, syn: false,
                    retrans, last_retrans_frame: 0, last_retrans_tsval: None, last_retrans_ns: resent_at,
                    app_limited: false, ip_id: 0,
                });
                if retrans > 0 {
                    s.resent.push_back((seq, seq + 1000, resent_at));
                }
                if next(3) == 0 {
                    // SACK blocks that need not fall on segment edges.
                    let (a, b) = (seq + next(500) as u32, seq + 500 + next(4500) as u32);
                    s.scoreboard.add(a, b, s.una);
                }
            }
            s.max = s.una + n * 1000;
            s.sack_seen = !s.scoreboard.is_empty() || next(2) == 0; // blocks only come with SACK
            if next(3) == 0 {
                // A timeout's mark, on a segment edge, and when it fired.
                s.rto_lost = Some((s.una + next(n as u64 + 1) as u32 * 1000, n as i64 * 2_000_000 + next(100_000_000) as i64));
            }
            if next(2) == 0 {
                // RACK's clock from a delivery: the latest-sent delivered segment and its RTT.
                s.rack_xmit_ns = Some(next(n as u64 * 2_000_000) as i64);
                s.rack_rtt_ns = 30_000_000 + next(40_000_000) as i64;
            }
            let now = next(n as u64 * 2_000_000 + 200_000_000) as i64;
            assert_eq!(s.lost_bytes(now), lost_by_walking(&s, now), "{:?} at {now}", s.scoreboard);
        }
    }
}

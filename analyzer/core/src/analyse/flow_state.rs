//! Both directions of one flow: the sender states, the window scaling of each side, the
//! cwnd estimators and limit trackers, and handshake timing for the vantage point.

use super::congestion::CcWitness;
use super::cwnd::CwndEstimator;
use super::ip_ids::IpIds;
use super::limit::{inferred_window_unproven, LimitTracker, FLAT_RTTS};
use super::notes::{CwndConfidence, LimitState, PacketNotes};
use super::sender::Sender;
use super::vantage::HandshakeTimes;
use super::window::{RwndBasis, Scaling, ESTIMATE_SLACK_SEGMENTS};
use crate::decode::{flags, TcpSegment};
use crate::flow::SeqNumber;

const MAX_TS_NS: i64 = 1 << 62;
/// Away from the sender a short segment within this share of the window of its edge (the
/// rebuilt flight's error, a few ticks of ACKs on a long fast path) may have been cut by
/// the window.
const SPLIT_EDGE_SHARE: f64 = 0.125;

/// Whether a short segment ending at `end` is the rest of one begun at `from` that the
/// receiver's window cut: Linux sends what fits (tcp_write_wakeup) and the rest once the
/// window opens, so the two end on the grid of whole segments the first began on. A
/// write's tail and the next write's end there only by chance (and away from the window).
fn split_rest(from: SeqNumber, end: SeqNumber, mss: u32) -> bool {
    mss > 0 && end.distance_from(from) > 0 && end.distance_from(from) as u32 % mss == 0
}

#[derive(Debug, Default)]
pub struct FlowState {
    pub senders: [Sender; 2],
    /// `Some(opt)` once that side's SYN was seen: its window-scale option.
    syn_wscale: [Option<Option<u8>>; 2],
    /// Scaling of the windows each side advertises.
    pub scaling: [Option<Scaling>; 2],
    /// Receive window limiting each direction's sender, in bytes (advertised by the peer).
    pub rwnd_for: [Option<u64>; 2],
    pub rwnd_basis: [Option<RwndBasis>; 2],
    last_window_raw: [u16; 2],
    /// Range of rwnd values that limited each direction after the handshake.
    pub rwnd_min: [Option<u64>; 2],
    pub rwnd_max: [u64; 2],
    /// When each direction's limiting rwnd last grew past its maximum by > 5 %.
    pub rwnd_grew_ns: [i64; 2],
    pub inferred_shift: [Option<u8>; 2],
    /// Per direction: its window's scale was negotiated as seen here (shift > 0) and its
    /// sender has not yet had more outstanding than the field unscaled allows — whether it
    /// got the scale is still open.
    scale_unproven: [bool; 2],
    /// Round trips in which that sender's flight reached the field's unscaled edge, and
    /// when it last did.
    edge_rounds: [u8; 2],
    edge_reached_ns: [i64; 2],
    /// Away from the sender: when its rebuilt flight was first seen above the field's edge
    /// by more than the rebuild's noise (one round above it is noise; two prove the scale).
    above_edge_ns: [Option<i64>; 2],
    pub cwnd: [CwndEstimator; 2],
    /// Evidence of each direction's congestion control.
    pub cc: [CcWitness; 2],
    pub limits: [LimitTracker; 2],
    /// Each direction's IPv4 IDs: packets sent that never reached the capture point.
    ip_ids: [IpIds; 2],
    pub handshake: HandshakeTimes,
    /// ACK→data and data→ACK delays, for the vantage point without a handshake.
    pub delays: super::vantage::DelayStats,
    /// A short segment was cut at the window's edge: the next short one not at the edge
    /// is the rest of it (Linux sends it once the window opens), not the end of a write.
    split_at_edge: [bool; 2],
    /// Away from the sender, where a window's edge is known only roughly: where a short
    /// segment near the window began (taken for a write's tail for now). The next short
    /// segment may show it cut by the window ([`split_rest`]).
    split_from: [Option<SeqNumber>; 2],
    /// The handshake's ACK→data delays were handed to both senders (they keep the first).
    hints_given: bool,
    pub first_ts: i64,
    pub last_ts: i64,
    pub packets: u64,
}

impl FlowState {
    fn scaling_of(&mut self, side: usize) -> Scaling {
        *self.scaling[side].get_or_insert_with(|| Scaling::from_syns(None, None))
    }

    pub fn on_segment(&mut self, seg: &TcpSegment, d: usize, frame: u64, ts: i64) -> PacketNotes {
        let mut notes = PacketNotes::default();
        self.on_segment_into(seg, d, frame, ts, &mut notes);
        notes
    }

    /// [`Self::on_segment`] writing the packet's notes into `notes` (reset first), so a
    /// caller that keeps one buffer does not copy 184 bytes out per packet.
    pub fn on_segment_into(&mut self, seg: &TcpSegment, d: usize, frame: u64, ts: i64, notes: &mut PacketNotes) {
        self.step(seg, d, frame, ts, notes, true);
    }

    /// [`Self::on_segment_into`] for a caller that wants the verdict only: the state moves
    /// exactly as there, and the note fields nothing else reads (vantage, cwnd, RACK
    /// window, window full, rwnd basis, inferred shift) are left unset.
    pub fn on_segment_state(&mut self, seg: &TcpSegment, d: usize, frame: u64, ts: i64, notes: &mut PacketNotes) {
        self.step(seg, d, frame, ts, notes, false);
    }

    #[inline(always)]
    fn step(&mut self, seg: &TcpSegment, d: usize, frame: u64, ts: i64, notes: &mut PacketNotes, full: bool) {
        // Timestamps from damaged files can be anything: keep them where differences and
        // multiples of RTTs cannot overflow (1970 to 2116).
        let ts = ts.clamp(0, MAX_TS_NS);
        let r = 1 - d;
        let syn = seg.flags & flags::SYN != 0;
        if self.packets == 0 {
            self.first_ts = ts;
        }
        self.packets += 1;
        self.last_ts = self.last_ts.max(ts);
        for (l, sender) in self.limits.iter_mut().zip(&self.senders) {
            if l.idle_lag_needed(ts) {
                l.set_idle_lag(sender.base_a2d_ns());
            }
            l.charge(ts);
        }
        self.handshake.on_segment(seg.flags, d, ts);
        if !self.hints_given {
            // Set once: a sender keeps the first hint it is given.
            if let Some(hints) = self.handshake.ack_to_data_ns() {
                for (side, hint) in hints.into_iter().enumerate() {
                    self.senders[side].set_a2d_hint(hint);
                }
                self.hints_given = true;
            }
        }
        self.delays.on_segment(seg, d, ts);
        if seg.ip_version == 4 {
            self.ip_ids[d].on_packet(seg.ip_id, seg.ttl, seg.payload_len, self.senders[d].mss);
        }
        if syn && self.syn_wscale[d].is_none() {
            self.syn_wscale[d] = Some(seg.options.wscale);
            if let Some(mss) = seg.options.mss {
                // The peer's MSS option bounds what this side may send it (RFC 9293 §3.7.1).
                // A cap, not the size: options (timestamps) come out of it.
                self.senders[r].mss_option = Some(mss as u32);
            }
            // Either SYN being seen can settle the scaling of both sides.
            for side in 0..2 {
                let known = Scaling::from_syns(self.syn_wscale[side], self.syn_wscale[1 - side]);
                if !matches!(known, Scaling::Unknown { .. }) {
                    self.scaling[side] = Some(known);
                    self.scale_unproven[1 - side] = matches!(known, Scaling::Negotiated(s) if s > 0);
                }
            }
        }

        if full {
            *notes = PacketNotes::default();
        } else {
            // Verdict only: nothing reads the notes but this step, which reads back only
            // these three before writing them (and in_flight/unacked, always written first).
            // Resetting them alone spares clearing 184 bytes a packet.
            notes.retrans = super::notes::RetransKind::None;
            notes.reorder = None;
            notes.spurious_of = 0;
        }
        // The window this packet advertises limits the other direction's sender.
        let (rwnd, basis) = self.scaling_of(d).rwnd(seg.window, syn);
        if seg.flags & flags::RST == 0 {
            self.senders[r].note_rwnd(rwnd, ts);
            self.rwnd_for[r] = Some(rwnd);
            self.rwnd_basis[r] = Some(basis);
            self.last_window_raw[d] = seg.window;
            if !syn && self.senders[r].started {
                self.rwnd_min[r] = Some(self.rwnd_min[r].map_or(rwnd, |m| m.min(rwnd)));
                if rwnd * 20 > self.rwnd_max[r] * 21 {
                    self.rwnd_grew_ns[r] = ts;
                }
                self.rwnd_max[r] = self.rwnd_max[r].max(rwnd);
            }
        }
        // Same as Wireshark tcp.analysis.zero_window.
        if seg.window == 0 && seg.flags & (flags::SYN | flags::FIN | flags::RST) == 0 {
            notes.zero_window = full;
            self.senders[r].zero_windows += 1;
        }

        let recovering = self.senders[r].in_recovery();
        self.senders[r].on_ack(seg, frame, ts, notes);
        if recovering && !self.senders[r].in_recovery() {
            // Recovery over: cwnd = ssthresh = β·cwnd at its start (RFC 9438 §4.6, β = 0.7
            // for CUBIC), or restored when it was undone as spurious (RFC 3708).
            let recoveries = &self.senders[r].recoveries;
            if let Some(rec) = recoveries.last() {
                let undone = rec.spurious > 0 && rec.spurious == rec.retransmissions;
                self.cwnd[r].on_recovery_end(rec.flight_before, undone);
                if undone {
                    self.limits[r].loss_undone();
                }
                // The cut says nothing after a timeout (cwnd restarts from one segment) or
                // when the receive window, not cwnd, held the flight before it.
                let mss = self.senders[r].mss.max(536) as u64;
                let window_held = self.rwnd_for[r].is_some_and(|w| rec.flight_before + 2 * mss >= w);
                let usable = rec.kind != super::notes::RetransKind::Rto && !window_held;
                self.cc[r].recovery_ended(recoveries.len() - 1, ts, usable);
            }
        }
        if seg.flags & flags::ACK != 0 && self.senders[r].at_sender() {
            self.cc[r].ack_arrived(ts);
            let sender = &self.senders[r];
            let full = self.limits[r].state == LimitState::Rwnd;
            self.limits[r].pacing.ack_arrived(ts, full, || sender.delivered(), sender.rtt.srtt_ns);
        }
        let peer_rwnd = self.rwnd_for[d].unwrap_or(u64::MAX);
        let recoveries_before = self.senders[d].recoveries.len();
        self.senders[d].on_data(seg, frame, ts, peer_rwnd, notes);
        if self.senders[d].recoveries.len() > recoveries_before {
            let clocked = self.cwnd[d].confidence == CwndConfidence::Estimate;
            self.cc[d].recovery_began(recoveries_before, clocked.then_some(self.cwnd[d].value));
            self.limits[d].loss_began(self.cwnd[d].value);
        }

        if seg.payload_len > 0 && notes.retrans == super::notes::RetransKind::None && notes.reorder.is_none() {
            let end = SeqNumber(seg.seq) + seg.payload_len;
            let ends = self.senders[d].ends_a_write(seg.payload_len, end, seg.flags & flags::FIN != 0);
            let rest = ends && self.split_from[d].take().is_some_and(|from| split_rest(from, end, self.senders[d].mss));
            // A gap that began with a partial segment is the application's: it had no more
            // to send, wherever the capture point is (time shares only; notes stay causal);
            // the window's, when this is the rest of that segment.
            if self.limits[d].write_ended() {
                self.limits[d].reassign_since_data(if rest { LimitState::Rwnd } else { LimitState::App });
            }
            if rest {
                self.limits[d].dry_was_window();
            }
            // Packets sent before this one that never reached the capture point (dropped
            // on the way, as by a full qdisc on the sender's host): a pause this data ends
            // may be the sender's wait on its timer.
            if self.ip_ids[d].unseen_before_last(self.senders[d].mss) > 0 && self.limits[d].idle_since_data() {
                self.limits[d].sent_unseen();
            }
            // Data outstanding a while before the capture point saw it (on the bottleneck
            // before it, in a short queue on the sender's host) ends the idle gap before it
            // that much sooner (not after a write's tail: that gap is the application's).
            if self.limits[d].idle_since_data() && !self.limits[d].write_ended() {
                if let Some(ns) = self.senders[d].outstanding_unseen_ns(seg.payload_len, ts) {
                    self.limits[d].outstanding_unseen(ns);
                }
            }
            self.limits[d].data_seen(ends && !rest, self.senders[d].last_ack_acted_on_ns(ts), ts);
            self.limits[r].peer_spoke(ts);
        }
        let carries_data = seg.payload_len > 0 || seg.flags & (flags::SYN | flags::FIN) != 0;
        let dd = if carries_data { d } else { r };
        notes.data_dir = dd as u8;

        // Handshake not captured: flight above the raw window proves a larger shift. Away
        // from the sender the flight is the one it had, rebuilt from ACKs seen earlier
        // (a receiver's own unacked bytes are a segment or two whatever the window).
        if let Some(Scaling::Unknown { min_shift }) = self.scaling[r] {
            let mut raw = self.last_window_raw[r];
            let away = !self.senders[d].at_sender();
            let flight_d = if away {
                // That flight was sent under the window of then, which may since have shrunk.
                let then = self.senders[d].view(ts);
                let raw_then = then.rwnd.map_or(0, |w| (w >> min_shift).min(u16::MAX as u64) as u16);
                raw = raw.max(raw_then);
                then.unacked
            } else {
                self.senders[d].unacked()
            };
            let mss = self.senders[d].mss.max(536) as u64;
            if let Some(shift) = self.scaling[r].as_mut().and_then(|s| s.infer_from_flight(raw, flight_d, mss, away)) {
                self.inferred_shift[r] = Some(shift);
                // The windows seen so far were advertised under that shift too: a larger
                // shift found late is not a window that grew.
                let up = shift - min_shift;
                if full {
                    notes.inferred_shift = Some((shift, flight_d));
                }
                let w = self.rescale_windows(d, raw, |w| w << up);
                self.limits[d].inferred_scale_raised();
                // The sender's own idea of its window, and what limits it, follow.
                self.senders[d].note_rwnd(w, ts);
            }
        }

        // The row's rwnd is the window that limits the row's flight.
        if full {
            notes.rwnd_basis = self.rwnd_basis[dd];
        }
        let view = self.senders[dd].view(ts);
        let view_at_sender = self.senders[dd].at_sender();
        notes.in_flight = view.in_flight;
        notes.unacked = view.unacked;
        notes.sacked = view.sacked;
        let rwnd_dd = view.rwnd.or(self.rwnd_for[dd]);
        notes.rwnd = rwnd_dd.unwrap_or(0);
        let mss = self.senders[dd].mss.max(536) as u64;
        // The window bound the sends unless its scale was inferred and never shown to bind
        // (more than a segment above it — the scale is larger — or under two segments).
        let inferred = self.rwnd_basis[dd] == Some(RwndBasis::Inferred);
        let window_bound = rwnd_dd.is_some_and(|w| {
            notes.unacked + mss >= w && !inferred_window_unproven(notes.unacked, w, self.rwnd_max[dd], mss, inferred, view_at_sender)
        });
        // A short segment that does not end at the window's edge was all the sender had
        // (one that fills the window to its edge is cut by the window, not by the writer).
        if dd == d
            && seg.payload_len > 0
            && notes.retrans == super::notes::RetransKind::None
            && self.limits[d].write_ended()
        {
            if window_bound {
                self.split_at_edge[d] = true;
            } else if !std::mem::take(&mut self.split_at_edge[d]) {
                self.limits[d].ran_dry(ts);
                let near_edge = rwnd_dd.is_some_and(|w| (notes.unacked + mss) as f64 >= w as f64 * (1.0 - SPLIT_EDGE_SHARE));
                if !view_at_sender && near_edge {
                    self.split_from[d] = Some(SeqNumber(seg.seq));
                }
            }
        }
        if carries_data && dd == d && seg.payload_len > 0 {
            if let Some(w) = rwnd_dd.filter(|_| full) {
                // Same idea as Wireshark tcp.analysis.window_full: this segment used the
                // last of the receiver's window.
                notes.window_full = w > 0 && notes.unacked >= w;
            }
            if view_at_sender {
                self.limits[dd].pacing.sent(ts, seg.payload_len, self.senders[dd].rtt.srtt_ns);
            }
            if notes.retrans == super::notes::RetransKind::None {
                self.cwnd[dd].on_send(notes.in_flight);
                // Departure times are the sender's own only at the sender.
                if view_at_sender {
                    let held_by_cwnd = self.limits[dd].state == LimitState::Cwnd;
                    self.cc[dd].departure(ts, held_by_cwnd && seg.payload_len >= self.senders[dd].mss);
                }
            }
        } else if seg.flags & flags::ACK != 0 && self.senders[dd].started {
            let app_bound = notes.unacked == 0;
            let before = self.cwnd[dd].confidence;
            match self.cwnd[dd].on_ack(notes.in_flight, window_bound, app_bound) {
                Some(CwndConfidence::Estimate) => {
                    self.cc[dd].clocked_flight(self.cwnd[dd].value, ts, self.senders[dd].rtt.srtt_ns)
                }
                Some(_) => self.cc[dd].cut_unreadable(),
                None => {}
            }
            if self.cwnd[dd].confidence == CwndConfidence::Estimate && before != CwndConfidence::None {
                let recovering = self.senders[dd].in_recovery_as_seen(ts);
                self.limits[dd].on_flight_sample(self.cwnd[dd].value, notes.unacked, recovering, ts, self.senders[dd].rtt.srtt_ns, self.senders[dd].mss.max(536) as u64);
            }
        }
        // cwnd is never below what is in flight; in recovery PRR (RFC 6937) keeps it at
        // the flight as it walks down to ssthresh.
        if view_at_sender {
            self.cwnd[dd].floor(notes.in_flight, self.senders[dd].in_recovery());
        }
        if full {
            notes.cwnd = self.cwnd[dd].value;
            notes.cwnd_conf = self.cwnd[dd].confidence;
        }
        // At the sender the view is the settled state already.
        // (Borrowed, not copied: reading a just-written view back whole stalls.)
        let away;
        let settled = if view_at_sender { &view } else { away = self.senders[dd].settled_view(ts); &away };
        notes.limit = self.limits[dd].update(&self.senders[dd], &view, settled, &self.cwnd[dd], rwnd_dd, inferred, ts, frame);
        if let Some(from) = self.limits[dd].take_unseen_loss() {
            self.senders[dd].stalled_on_unseen_loss(from);
        }
        if self.scale_unproven[dd] {
            self.check_scale_reached_sender(dd, notes.unacked, view.rwnd, ts);
        }
        if full {
            notes.rack_ns = self.senders[dd].rtt.min_ns.unwrap_or(0) / 4;
            notes.vantage = self.handshake.vantage(dd);
        }
    }

    /// The scale of the windows limiting direction `d` turned out other than the one they
    /// were read with (inferred larger late, or stripped before the sender): the range seen
    /// so far is `rescale`d, and the window in force is `raw` under the scale now known.
    fn rescale_windows(&mut self, d: usize, raw: u16, rescale: impl Fn(u64) -> u64) -> u64 {
        self.rwnd_max[d] = rescale(self.rwnd_max[d]);
        self.rwnd_min[d] = self.rwnd_min[d].map(&rescale);
        let (w, basis) = self.scaling[1 - d].expect("set before a rescale").rwnd(raw, false);
        self.rwnd_for[d] = Some(w);
        self.rwnd_basis[d] = Some(basis);
        w
    }

    /// RFC 7323 §2.2: a window scale is in effect only if both SYNs carried the option. Both
    /// did here, but a middlebox between here and the sender may have removed it from the
    /// receiver's SYN: the sender then reads each window field unscaled. More outstanding
    /// than the field allows proves the scale in use; a flight that instead reaches the
    /// field's edge (within a segment under it) in as many round trips as a plateau needs
    /// (slow start passes the edge once) and never more proves it never arrived. `window_then`: the window (as scaled here) in force when the flight was sent.
    #[inline(never)]
    fn check_scale_reached_sender(&mut self, dd: usize, unacked: u64, window_then: Option<u64>, ts: i64) {
        let peer = 1 - dd;
        let Some(Scaling::Negotiated(shift)) = self.scaling[peer] else {
            self.scale_unproven[dd] = false;
            return;
        };
        let sender = &self.senders[dd];
        let mss = sender.mss.max(536) as u64;
        let raw = (self.last_window_raw[peer] as u64).max(window_then.map_or(0, |w| (w >> shift).min(u16::MAX as u64)));
        // Away from the sender the flight is rebuilt from ACKs seen earlier: a segment or two
        // of noise. More than that above the field proves the scale in use.
        let slack = if sender.at_sender() { 0 } else { ESTIMATE_SLACK_SEGMENTS * mss };
        if unacked > raw + slack {
            // Rebuilt from ACKs matched a turn late, the flight can pass the edge by an ACK's
            // worth once; a flight above it again a round trip later had the scale.
            let first = *self.above_edge_ns[dd].get_or_insert(ts);
            if sender.at_sender() || sender.rtt.srtt_ns.is_some_and(|r| ts - first >= r) {
                self.scale_unproven[dd] = false;
            }
            return;
        }
        // The edge: within a segment under the field, never above it (a flight a little above
        // is noise at best, not the field holding it). Only a field well above that noise can
        // be told apart from flight near it (one of a few dozen bytes, under a large scale,
        // is below any flight).
        let Some(srtt) = sender.rtt.srtt_ns else { return };
        if raw < 4 * mss || unacked > raw || unacked + mss < raw || ts - self.edge_reached_ns[dd] < srtt {
            return;
        }
        if self.edge_rounds[dd] == 0 {
            self.limits[dd].unscaled_edge_reached();
        }
        self.edge_reached_ns[dd] = ts;
        self.edge_rounds[dd] += 1;
        // As many round trips at that edge as a flat flight needs to be a plateau.
        if (self.edge_rounds[dd] as i64) < FLAT_RTTS {
            return;
        }
        self.scale_unproven[dd] = false;
        self.scaling[peer] = Some(Scaling::Stripped(shift));
        self.rescale_windows(dd, raw as u16, |w| w >> shift);
        self.senders[dd].unscale_rwnd(shift);
        self.limits[dd].held_by_unscaled_window(shift, raw);
    }

    /// The direction that carried more payload: the one the verdict is about.
    pub fn data_dir(&self) -> usize {
        if self.senders[1].data_bytes > self.senders[0].data_bytes { 1 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_the_window_cut_ends_on_its_grid_with_its_rest() {
        let from = SeqNumber(4_000_000_000);
        // 256 B sent into the window's last room, the other 632 once it opened.
        assert!(split_rest(from, from + 888, 888));
        // A TSO burst's rest: whole segments, then the tail of the original 3-segment skb.
        assert!(split_rest(from, from + 3 * 888, 888));
        // Writes of 1,000 B: a 112 B tail, then the next write's 888 and 112 — off the
        // grid. (Writes of 1.5 segments would land on it: only a short segment near the
        // window's edge is ever taken for a split's first half.)
        assert!(!split_rest(from, from + 112 + 1000, 888));
        assert!(!split_rest(from, from, 888));
    }
}

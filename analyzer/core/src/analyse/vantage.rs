//! Where the capture was taken, per direction: at the data sender, at the receiver, or in
//! the middle. At the sender, flight and cwnd are exact; elsewhere they are estimates.
//!
//! Two witnesses: the handshake (near the client, SYN→SYN/ACK spans the whole RTT and
//! SYN/ACK→ACK almost nothing; near the server the reverse), and, without a handshake,
//! the delays of data→ACK versus ACK→data (the sender answers ACKs at once; the receiver
//! answers data at once).

use super::rtt::RttEstimator;
use crate::decode::{flags, TcpSegment};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Vantage {
    #[default]
    Unknown = 0,
    SenderSide = 1,
    ReceiverSide = 2,
    Middle = 3,
}

impl Vantage {
    pub fn name(self) -> &'static str {
        match self {
            Vantage::Unknown => "unknown",
            Vantage::SenderSide => "sender",
            Vantage::ReceiverSide => "receiver",
            Vantage::Middle => "middle",
        }
    }
    pub fn parse(s: &str) -> Option<Vantage> {
        Some(match s {
            "sender" => Vantage::SenderSide,
            "receiver" => Vantage::ReceiverSide,
            "middle" => Vantage::Middle,
            "unknown" | "auto" => Vantage::Unknown,
            _ => return None,
        })
    }
}

/// One side's gaps must exceed the other's by this factor to place the capture point.
const DOMINANCE: i64 = 4;

#[derive(Debug, Clone, Copy, Default)]
pub struct HandshakeTimes {
    syn: Option<(usize, i64)>,
    synack: Option<i64>,
    ack: Option<i64>,
}

impl HandshakeTimes {
    #[inline]
    pub fn on_segment(&mut self, f: u16, dir: usize, ts: i64) {
        if self.ack.is_some() {
            return; // complete (the ACK is set last): every packet after it, skipped at once
        }
        let syn_ack = flags::SYN | flags::ACK;
        match (self.syn, f & syn_ack) {
            (None, x) if x == flags::SYN => self.syn = Some((dir, ts)),
            // A SYN sent again (its timer ran out, unanswered): the SYN/ACK that follows
            // answers the latest — timing it from the first would add the SYN's timeout
            // (1–3 s) to every delay read from the handshake.
            (Some((c, _)), x) if x == flags::SYN && dir == c && self.synack.is_none() => self.syn = Some((dir, ts)),
            (Some((c, _)), x) if x == syn_ack && dir != c && self.synack.is_none() => self.synack = Some(ts),
            (Some((c, _)), x) if x == flags::ACK && dir == c && self.synack.is_some() && self.ack.is_none() => {
                self.ack = Some(ts)
            }
            _ => {}
        }
    }

    /// ACK→data delays at the capture point per direction (index = data sender side),
    /// once the handshake is complete: the client's data follows the server's ACKs after
    /// the SYN/ACK→ACK gap; the server's data follows the client's after SYN→SYN/ACK.
    pub fn ack_to_data_ns(&self) -> Option<[i64; 2]> {
        let (Some((client, syn)), Some(synack), Some(ack)) = (self.syn, self.synack, self.ack) else {
            return None;
        };
        let mut out = [0; 2];
        out[client] = ack - synack;
        out[1 - client] = synack - syn;
        Some(out)
    }

    /// The handshake's round trip (SYN → SYN/ACK → ACK), wherever the capture point is: at
    /// the client it is SYN→SYN/ACK, at the server SYN/ACK→ACK, in the middle both parts.
    pub fn rtt_ns(&self) -> Option<i64> {
        let (Some((_, syn)), Some(_), Some(ack)) = (self.syn, self.synack, self.ack) else { return None };
        Some(ack - syn).filter(|&r| r > 0)
    }

    /// Vantage relative to the sender of direction `data_dir`.
    pub fn vantage(&self, data_dir: usize) -> Vantage {
        let (Some((client, syn)), Some(synack), Some(ack)) = (self.syn, self.synack, self.ack) else {
            return Vantage::Unknown;
        };
        let (g1, g2) = (synack - syn, ack - synack);
        let near_client = if g1 > DOMINANCE * g2.max(1) {
            Some(true)
        } else if g2 > DOMINANCE * g1.max(1) {
            Some(false)
        } else {
            None
        };
        match near_client {
            None => Vantage::Middle,
            Some(nc) if nc == (data_dir == client) => Vantage::SenderSide,
            Some(_) => Vantage::ReceiverSide,
        }
    }
}

/// Echoes each floor needs before two floors are compared: a first few can all carry a
/// delayed ACK or an application's wait.
pub const MIN_ECHOES: u64 = 8;
/// A floor this low proves its end is beside the capture point: anywhere else the turn
/// takes at least the round trip between the capture point and that end (a millisecond
/// or more on any path with a middle).
pub const TURNAROUND_NS: i64 = 200_000;

/// Where the capture point sits, from the floors of the two timestamp-echo turns
/// (RFC 7323 §4.3) of one direction: ACK → the data echoing it is the round trip capture
/// point → sender → capture point plus the sender's wait (its application, its pacing);
/// data → the ACK echoing it, the round trip to the receiver plus its delayed ACK. A floor
/// under [`TURNAROUND_NS`] proves its end is beside the capture point; otherwise a floor
/// [`DOMINANCE`] times the other places the point near the other's end, and comparable
/// floors put it in the middle. Echoes cannot tell a sender's own wait from path: a sender
/// that never turns at once (an application's timer, pacing at a low rate) but whose
/// quickest turn is a fraction of the receiver's is taken as beside the capture point, as
/// is a point within a fifth of the round trip of it. `None` without enough echoes.
pub fn from_echo_floors(a2d: &RttEstimator, d2a: &RttEstimator) -> Option<Vantage> {
    let below = |e: &RttEstimator| e.min_ns.is_some_and(|m| m < TURNAROUND_NS);
    if below(a2d) {
        return Some(Vantage::SenderSide);
    }
    if below(d2a) {
        return Some(Vantage::ReceiverSide);
    }
    if a2d.samples < MIN_ECHOES || d2a.samples < MIN_ECHOES {
        return None;
    }
    let (a, d) = (a2d.min_ns?, d2a.min_ns?);
    Some(if d > DOMINANCE * a {
        Vantage::SenderSide
    } else if a > DOMINANCE * d {
        Vantage::ReceiverSide
    } else {
        Vantage::Middle
    })
}

/// Median-able delay samples, bounded: the first `CAP` of each kind.
const CAP: usize = 2048;

#[derive(Debug, Clone, Default)]
pub struct DelayStats {
    /// Per direction: time from a peer ACK to the next data segment of this direction.
    ack_to_data: [Vec<i64>; 2],
    /// Per direction: time from a data segment to the next ACK from the peer.
    data_to_ack: [Vec<i64>; 2],
    last_data: [Option<i64>; 2],
    last_ack: [Option<i64>; 2],
    /// Which of the four sample lists hold `CAP` samples (bits `A2D << d`, `D2A << d`):
    /// read every packet, one byte instead of two vector lengths.
    full: u8,
}

const A2D: u8 = 1;
const D2A: u8 = 4;

impl DelayStats {
    #[inline]
    pub fn on_segment(&mut self, seg: &TcpSegment, d: usize, ts: i64) {
        let r = 1 - d;
        // A kind of delay whose samples are all taken needs its start times no more.
        if seg.payload_len > 0 && self.full & (A2D << d) == 0 {
            if let Some(a) = self.last_ack[d].take() {
                self.push_a2d(d, ts - a);
            }
        }
        if seg.payload_len > 0 && self.full & (D2A << d) == 0 {
            self.last_data[d].get_or_insert(ts);
        }
        if seg.flags & flags::ACK != 0 && seg.payload_len == 0 {
            if self.full & (D2A << r) == 0 {
                if let Some(t) = self.last_data[r].take() {
                    self.push_d2a(r, ts - t);
                }
            }
            if self.full & (A2D << r) == 0 {
                self.last_ack[r] = Some(ts);
            }
        }
    }

    fn push_a2d(&mut self, d: usize, x: i64) {
        if push(&mut self.ack_to_data[d], x) {
            self.full |= A2D << d;
        }
    }

    fn push_d2a(&mut self, d: usize, x: i64) {
        if push(&mut self.data_to_ack[d], x) {
            self.full |= D2A << d;
        }
    }

    pub fn vantage(&self, data_dir: usize) -> Vantage {
        let (Some(a2d), Some(d2a)) = (median(&self.ack_to_data[data_dir]), median(&self.data_to_ack[data_dir])) else {
            return Vantage::Unknown;
        };
        if d2a > DOMINANCE * a2d.max(1) {
            Vantage::SenderSide
        } else if a2d > DOMINANCE * d2a.max(1) {
            Vantage::ReceiverSide
        } else {
            Vantage::Middle
        }
    }
}

/// Keeps a sample while fewer than `CAP` are kept; true once `CAP` are.
fn push(v: &mut Vec<i64>, x: i64) -> bool {
    if v.len() < CAP && x >= 0 {
        v.push(x);
    }
    v.len() >= CAP
}

fn median(v: &[i64]) -> Option<i64> {
    if v.len() < 8 {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_unstable();
    Some(s[s.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn hs(g1: i64, g2: i64) -> HandshakeTimes {
        let mut h = HandshakeTimes::default();
        h.on_segment(flags::SYN, 0, 0);
        h.on_segment(flags::SYN | flags::ACK, 1, g1);
        h.on_segment(flags::ACK, 0, g1 + g2);
        h
    }

    #[test]
    fn a_syn_sent_again_is_the_one_its_synack_answers() {
        // The client's SYN went unanswered; sent again 3 s later, its SYN/ACK came 18 ms
        // after that: the path's round trip is 18 ms, not 3 s.
        let mut h = HandshakeTimes::default();
        h.on_segment(flags::SYN, 0, 0);
        h.on_segment(flags::SYN, 0, 3_000 * MS);
        h.on_segment(flags::SYN | flags::ACK, 1, 3_018 * MS);
        h.on_segment(flags::ACK, 0, 3_018 * MS + MS / 10);
        assert_eq!(h.rtt_ns(), Some(18 * MS + MS / 10));
    }

    #[test]
    fn client_side_capture_sees_rtt_before_synack() {
        let h = hs(40 * MS, MS / 10);
        assert_eq!(h.vantage(0), Vantage::SenderSide);
        assert_eq!(h.vantage(1), Vantage::ReceiverSide);
    }

    #[test]
    fn server_side_capture_sees_rtt_after_synack() {
        assert_eq!(hs(MS / 10, 40 * MS).vantage(0), Vantage::ReceiverSide);
    }

    #[test]
    fn balanced_gaps_mean_middle() {
        assert_eq!(hs(20 * MS, 25 * MS).vantage(0), Vantage::Middle);
    }
}

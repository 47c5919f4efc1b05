//! The flow table: assigns each TCP segment to a flow numbered exactly as Wireshark numbers
//! `tcp.stream`, so users can move between tcpdiag and `tcp.stream eq N`.
//!
//! Wireshark's rules (epan/dissectors/packet-tcp.c, 4.x), reproduced here:
//! - a segment joins the latest conversation with the same address/port pair, in either
//!   direction; a new pair opens a new conversation, numbered in order of first appearance;
//! - port reuse: a SYN without ACK whose sequence number differs from the base sequence
//!   number recorded for its direction opens a new conversation (a SYN with the same ISN
//!   is a retransmission and stays);
//! - the base sequence number of a direction is set by its first segment with a known
//!   length (the SYN's ISN, else seq − 1), or, from the other side, by the first ACK
//!   (ack − 1); segments inside ICMP errors or IP fragments join a conversation but set
//!   nothing.

use ahash::AHashMap;

use super::key::{Direction, FlowKey};
use super::seq::SeqNumber;
use super::summary::FlowSummary;
use crate::decode::{flags, Addr, TcpSegment};

/// Per-direction state needed only for numbering.
#[derive(Debug, Clone, Copy, Default)]
struct BaseSeq {
    set: bool,
    value: SeqNumber,
}

/// Where a segment landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// Index into [`FlowTable::flows`], equal to the Wireshark stream number.
    pub flow: u32,
    pub dir: Direction,
    /// This segment opened the flow.
    pub opened: bool,
}

/// Slots of the recent-flow cache (a power of two).
const RECENT_SLOTS: usize = 64;

/// The cache slot of an endpoint pair, the same in either direction: from the sums of its
/// ports and of its addresses' last four bytes (sums, not XORs: x.1 ^ x.2 is 3 for any x).
#[inline]
fn recent_slot(a: &(Addr, u16), b: &(Addr, u16)) -> usize {
    let low = |x: &Addr| u32::from_le_bytes([x.0[12], x.0[13], x.0[14], x.0[15]]);
    let h = low(&a.0).wrapping_add(low(&b.0)) ^ (a.1 as u32 + b.1 as u32) << 15;
    (h.wrapping_mul(0x9E37_79B1) >> (32 - RECENT_SLOTS.trailing_zeros())) as usize
}

#[derive(Default)]
pub struct FlowTable {
    latest: AHashMap<FlowKey, u32>,
    /// The flow placed last: bulk captures repeat the same flow many times in a row.
    last: Option<u32>,
    /// The latest flow of recent endpoint pairs, one per slot of their ports (flow + 1, 0:
    /// empty): interleaved flows are found without building and hashing their key. Each
    /// flow opened is written to its slot, so a flow found there is the latest of its pair.
    recent: Option<Box<[u32; RECENT_SLOTS]>>,
    flows: Vec<FlowSummary>,
    base: Vec<[BaseSeq; 2]>,
}

impl FlowTable {
    pub fn new() -> FlowTable {
        FlowTable::default()
    }

    /// Places one segment. `has_length` is false for segments quoted in ICMP errors and
    /// for IP fragments, whose length Wireshark does not know.
    #[inline(always)]
    pub fn place(&mut self, seg: &TcpSegment, frame: u64, ts_ns: i64, frame_len: u32, has_length: bool) -> Placement {
        // The flow placed last, recognised by its endpoints in either order (it is the
        // latest flow of its key): the key is neither built nor hashed.
        let slot = recent_slot(&(seg.src, seg.sport), &(seg.dst, seg.dport));
        let known = self.last.and_then(|f| self.endpoints_match(f, seg)).or_else(|| {
            let f = self.recent.as_ref()?[slot].checked_sub(1)?;
            self.endpoints_match(f, seg)
        });
        let key;
        let (mut flow, mut opened, mut dir) = match known {
            Some((f, dir)) => {
                key = None;
                (f, false, dir)
            }
            None => {
                let k = FlowKey::of(seg);
                key = Some(k);
                let (f, opened) = match self.latest.get(&k) {
                    Some(&f) => (f, false),
                    None => (self.open(k, seg, frame, ts_ns), true),
                };
                self.recent.get_or_insert_with(|| Box::new([0; RECENT_SLOTS]))[slot] = f + 1;
                (f, opened, self.direction(f, seg))
            }
        };

        let syn_only = seg.flags & (flags::SYN | flags::ACK) == flags::SYN;
        let base = self.base[flow as usize][dir.index()];
        if !opened && syn_only && base.set && base.value != SeqNumber(seg.seq) {
            // Same as Wireshark TCP_A_REUSED_PORTS: a new connection on the same ports.
            flow = self.open(key.unwrap_or_else(|| FlowKey::of(seg)), seg, frame, ts_ns);
            opened = true;
            dir = Direction::AtoB;
        }

        if has_length {
            let sides = &mut self.base[flow as usize];
            let fwd = &mut sides[dir.index()];
            if !fwd.set {
                let isn = if seg.flags & flags::SYN != 0 { seg.seq } else { seg.seq.wrapping_sub(1) };
                *fwd = BaseSeq { set: true, value: SeqNumber(isn) };
            }
            let rev = &mut sides[dir.reverse().index()];
            if !rev.set && seg.flags & flags::ACK != 0 {
                *rev = BaseSeq { set: true, value: SeqNumber(seg.ack.wrapping_sub(1)) };
            }
        }

        self.flows[flow as usize].record(seg, dir, frame, ts_ns, frame_len);
        self.last = Some(flow);
        Placement { flow, dir, opened }
    }

    /// A TCP header quoted in an ICMP error: it finds (or opens) its flow, as in
    /// Wireshark, but changes nothing else.
    pub fn place_quoted(&mut self, seg: &TcpSegment, frame: u64, ts_ns: i64) -> u32 {
        let key = FlowKey::of(seg);
        match self.latest.get(&key) {
            Some(&f) => f,
            None => {
                let id = self.open(key, seg, frame, ts_ns);
                let f = &mut self.flows[id as usize];
                f.last_frame = frame;
                id
            }
        }
    }

    fn open(&mut self, key: FlowKey, seg: &TcpSegment, frame: u64, ts_ns: i64) -> u32 {
        let id = self.flows.len() as u32;
        self.flows.push(FlowSummary::new(id, seg, frame, ts_ns));
        self.base.push([BaseSeq::default(); 2]);
        self.latest.insert(key, id);
        if let Some(recent) = self.recent.as_mut() {
            // The new flow is now the latest of its pair: an older one cached there is not.
            recent[recent_slot(&key.lo, &key.hi)] = id + 1;
        }
        id
    }

    /// `f` joins the endpoints of `seg`, and in which direction. Field by field, ports
    /// first: no endpoint tuples are built, and most mismatches stop at a port.
    #[inline]
    fn endpoints_match(&self, f: u32, seg: &TcpSegment) -> Option<(u32, Direction)> {
        let flow = &self.flows[f as usize];
        let (a, b) = (&flow.a, &flow.b);
        if a.1 == seg.sport && b.1 == seg.dport && a.0 == seg.src && b.0 == seg.dst {
            Some((f, Direction::AtoB))
        } else if a.1 == seg.dport && b.1 == seg.sport && a.0 == seg.dst && b.0 == seg.src {
            Some((f, Direction::BtoA))
        } else {
            None
        }
    }

    #[inline]
    fn direction(&self, flow: u32, seg: &TcpSegment) -> Direction {
        if self.flows[flow as usize].a == (seg.src, seg.sport) {
            Direction::AtoB
        } else {
            Direction::BtoA
        }
    }

    pub fn flows(&self) -> &[FlowSummary] {
        &self.flows
    }

    pub fn into_flows(self) -> Vec<FlowSummary> {
        self.flows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{Addr, TcpOptions};

    /// Client 10.0.0.1:40000 → server 10.0.0.2:80; tests change one field at a time.
    fn seg(from_client: bool, flags: u16, seq: u32, ack: u32, len: u32) -> TcpSegment {
        let (c, s) = (Addr::v4([10, 0, 0, 1]), Addr::v4([10, 0, 0, 2]));
        let (src, dst, sport, dport) = if from_client { (c, s, 40000, 80) } else { (s, c, 80, 40000) };
        TcpSegment {
            src, dst, ip_version: 4, tos: 0, ttl: 64, ip_id: 0, sport, dport, seq, ack, flags,
            window: 1000, header_len: 20, payload_len: len, payload_captured: 0,
            options: TcpOptions::default(), tunnel_depth: 0, in_icmp_error: false,
        }
    }
    const SYN: u16 = flags::SYN;
    const SYNACK: u16 = flags::SYN | flags::ACK;
    const ACK: u16 = flags::ACK;

    fn place_all(t: &mut FlowTable, segs: &[TcpSegment]) -> Vec<u32> {
        segs.iter().enumerate().map(|(i, s)| t.place(s, i as u64 + 1, i as i64, 60, true).flow).collect()
    }

    #[test]
    fn handshake_both_directions_share_one_flow() {
        let mut t = FlowTable::new();
        let ids = place_all(&mut t, &[seg(true, SYN, 100, 0, 0), seg(false, SYNACK, 900, 101, 0), seg(true, ACK, 101, 901, 0)]);
        assert_eq!(ids, vec![0, 0, 0]);
        let f = &t.flows()[0];
        assert_eq!(f.a.1, 40000);
        assert_eq!(f.sides[0].packets, 2);
        assert_eq!(f.sides[1].packets, 1);
        assert!(f.handshake_seen());
    }

    #[test]
    fn syn_retransmitted_with_same_isn_stays_in_flow() {
        let mut t = FlowTable::new();
        let ids = place_all(&mut t, &[seg(true, SYN, 100, 0, 0), seg(true, SYN, 100, 0, 0)]);
        assert_eq!(ids, vec![0, 0]);
    }

    #[test]
    fn syn_with_new_isn_reuses_ports_as_new_flow() {
        let mut t = FlowTable::new();
        let ids = place_all(&mut t, &[
            seg(true, SYN, 100, 0, 0), seg(false, SYNACK, 900, 101, 0), seg(true, flags::FIN | ACK, 101, 901, 0),
            seg(true, SYN, 5000, 0, 0), seg(false, SYNACK, 7000, 5001, 0),
        ]);
        assert_eq!(ids, vec![0, 0, 0, 1, 1]);
        assert_eq!(t.flows()[1].first_frame, 4);
    }

    #[test]
    fn interleaved_flows_join_the_latest_of_their_pair() {
        // Two clients of one server, interleaved (the recent-flow cache finds them, not
        // `last`); the first reuses its ports while the other was placed last.
        let other = |mut s: TcpSegment| {
            if s.src == Addr::v4([10, 0, 0, 1]) { s.src = Addr::v4([10, 0, 0, 3]) } else { s.dst = Addr::v4([10, 0, 0, 3]) }
            s
        };
        let mut t = FlowTable::new();
        let ids = place_all(&mut t, &[
            seg(true, SYN, 100, 0, 0), other(seg(true, SYN, 300, 0, 0)), seg(false, SYNACK, 900, 101, 0),
            other(seg(false, SYNACK, 700, 301, 0)), seg(true, SYN, 5000, 0, 0), other(seg(true, ACK, 301, 701, 0)),
            seg(false, SYNACK, 7000, 5001, 0), other(seg(true, ACK, 301, 701, 10)), seg(true, ACK, 5001, 7001, 0),
        ]);
        assert_eq!(ids, vec![0, 1, 0, 1, 2, 1, 2, 1, 2]);
    }

    #[test]
    fn midstream_base_seq_is_seq_minus_one() {
        // First segment seen is data with seq 1000: base = 999; a later SYN with ISN 999
        // is then taken as a retransmission, as Wireshark does.
        let mut t = FlowTable::new();
        let ids = place_all(&mut t, &[seg(true, ACK, 1000, 50, 10), seg(true, SYN, 999, 0, 0), seg(true, SYN, 1, 0, 0)]);
        assert_eq!(ids, vec![0, 0, 1]);
    }

    #[test]
    fn base_seq_learned_from_peer_ack() {
        // The server's ACK (ack 101) sets the client's base to 100 before any client segment.
        let mut t = FlowTable::new();
        let ids = place_all(&mut t, &[seg(false, ACK, 900, 101, 0), seg(true, SYN, 100, 0, 0), seg(true, SYN, 555, 0, 0)]);
        assert_eq!(ids, vec![0, 0, 1]);
    }

    #[test]
    fn segment_without_length_sets_no_base() {
        let mut t = FlowTable::new();
        let a = seg(true, ACK, 1000, 50, 10);
        t.place(&a, 1, 0, 60, false);
        let ids: Vec<u32> = [seg(true, SYN, 5, 0, 0)].iter().map(|s| t.place(s, 2, 1, 60, true).flow).collect();
        assert_eq!(ids, vec![0]);
    }

    #[test]
    fn synack_with_new_isn_does_not_open_flow() {
        let mut t = FlowTable::new();
        let ids = place_all(&mut t, &[seg(true, SYN, 100, 0, 0), seg(false, SYNACK, 900, 101, 0), seg(false, SYNACK, 12345, 101, 0)]);
        assert_eq!(ids, vec![0, 0, 0]);
    }

    #[test]
    fn wscale_absent_on_one_syn_is_known_not_in_effect() {
        let mut t = FlowTable::new();
        let mut syn = seg(true, SYN, 100, 0, 0);
        syn.options.wscale = Some(7);
        t.place(&syn, 1, 0, 60, true);
        assert_eq!(t.flows()[0].wscale_in_effect(), None);
        t.place(&seg(false, SYNACK, 900, 101, 0), 2, 1, 60, true);
        assert_eq!(t.flows()[0].wscale_in_effect(), Some(false));
    }
}

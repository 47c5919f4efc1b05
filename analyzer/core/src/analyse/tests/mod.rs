//! Tests that read like packet traces: a few segments in, the engine's notes and state
//! out (the smoltcp/Zeek habit). One file per rule family; every trace uses [`Trace`].
//!
//! Conventions: endpoint A (10.0.0.1:40000) is the client, B (10.0.0.2:443) the server;
//! the capture point is wherever the test says; times are microseconds; sequence and
//! acknowledgement numbers are relative to each side's ISN, as Wireshark shows them
//! (the SYN is 0, the first data byte 1).

mod delivery;
mod flight;
mod limit;
mod retransmission;
mod spurious;
mod verdict;
mod window;

use super::notes::PacketNotes;
use super::verdict::{judge, FlowVerdict, JudgeOptions};
use super::FlowState;
use crate::decode::{flags, Addr, TcpOptions, TcpSegment};
use crate::flow::{Direction, FlowSummary};

pub const A: usize = 0;
pub const B: usize = 1;
pub const MSS: u32 = 1448;
const ISN: [u32; 2] = [1_000_000, 7_000_000];

/// One flow fed segment by segment, with relative numbering.
pub struct Trace {
    pub fs: FlowState,
    summary: Option<FlowSummary>,
    frame: u64,
    ip_id: [u16; 2],
}

impl Trace {
    pub fn new() -> Trace {
        Trace { fs: FlowState::default(), summary: None, frame: 0, ip_id: [100, 500] }
    }

    /// The flow's verdict as the engine would give it now.
    pub fn verdict(&self) -> FlowVerdict {
        judge(&self.fs, self.summary.as_ref().expect("a segment was sent"), JudgeOptions::default())
    }

    /// An ACK-clocked A over a 40 ms path from `first_us`: `windows[r]` segments in flight
    /// in round r, each of B's ACKs (advertising `raw`) for the round before releasing one,
    /// and a window that grew sending the rest at the round's end.
    pub fn ack_clocked_rounds(&mut self, first_us: i64, raw: u16, windows: &[u32]) {
        let rounds: Vec<(u16, u32)> = windows.iter().map(|&w| (raw, w)).collect();
        self.ack_clocked_rounds_under(first_us, &rounds);
    }

    /// [`Self::ack_clocked_rounds`] with B advertising `rounds[r].0` in round r's ACKs.
    pub fn ack_clocked_rounds_under(&mut self, first_us: i64, rounds: &[(u16, u32)]) {
        const RTT: i64 = 40_000;
        let mut next = 0u32;
        let mut flight = Vec::new();
        for (r, &(raw, w)) in rounds.iter().enumerate() {
            let start = first_us + r as i64 * RTT;
            let sent = std::mem::take(&mut flight);
            for (i, &k) in sent.iter().enumerate() {
                let at = start + i as i64 * 100;
                self.seg(at, B).rel_ack(1 + (k + 1) * MSS).win(raw).send();
                if (i as u32) < w {
                    self.seg(at + 10, A).data(1 + next * MSS, MSS).send();
                    flight.push(next);
                    next += 1;
                }
            }
            while (flight.len() as u32) < w {
                self.seg(start + sent.len() as i64 * 100 + 20 + flight.len() as i64, A).data(1 + next * MSS, MSS).send();
                flight.push(next);
                next += 1;
            }
        }
    }

    /// A segment from `from` at `at_us`; fill it in, then [`Seg::send`].
    pub fn seg(&mut self, at_us: i64, from: usize) -> Seg<'_> {
        let seg = TcpSegment {
            src: Addr::v4(if from == A { [10, 0, 0, 1] } else { [10, 0, 0, 2] }),
            dst: Addr::v4(if from == A { [10, 0, 0, 2] } else { [10, 0, 0, 1] }),
            ip_version: 4,
            tos: 0,
            ttl: 64,
            ip_id: 0,
            sport: if from == A { 40_000 } else { 443 },
            dport: if from == A { 443 } else { 40_000 },
            seq: ISN[from].wrapping_add(1),
            ack: ISN[1 - from].wrapping_add(1),
            flags: flags::ACK,
            window: 65_535,
            header_len: 32,
            payload_len: 0,
            payload_captured: 0,
            options: TcpOptions::default(),
            tunnel_depth: 0,
            in_icmp_error: false,
        };
        Seg { trace: self, from, at_us, seg, new_ip_id: true, ids_back: 0 }
    }

    /// SYN (A, at 0), SYN/ACK (B, after `gap1_us`), ACK (A, `gap2_us` later), both SYNs
    /// with MSS 1460, SACK permitted and window scale `wscale` (None: no option).
    pub fn handshake(&mut self, gap1_us: i64, gap2_us: i64, wscale: Option<u8>) {
        self.seg(0, A).rel_seq(0).flags(flags::SYN).syn_options(wscale).send();
        self.seg(gap1_us, B).rel_seq(0).rel_ack(1).flags(flags::SYN | flags::ACK).syn_options(wscale).send();
        self.seg(gap1_us + gap2_us, A).rel_ack(1).send();
    }
}

/// A segment under construction.
pub struct Seg<'a> {
    trace: &'a mut Trace,
    from: usize,
    at_us: i64,
    seg: TcpSegment,
    new_ip_id: bool,
    ids_back: u16,
}

impl Seg<'_> {
    pub fn rel_seq(mut self, rel: u32) -> Self {
        self.seg.seq = ISN[self.from].wrapping_add(rel);
        self
    }
    pub fn rel_ack(mut self, rel: u32) -> Self {
        self.seg.ack = ISN[1 - self.from].wrapping_add(rel);
        self
    }
    pub fn len(mut self, n: u32) -> Self {
        self.seg.payload_len = n;
        self
    }
    /// `n` full segments' worth of payload starting at relative `rel`.
    pub fn data(self, rel: u32, n: u32) -> Self {
        self.rel_seq(rel).len(n)
    }
    pub fn flags(mut self, f: u16) -> Self {
        self.seg.flags = f;
        self
    }
    pub fn win(mut self, raw: u16) -> Self {
        self.seg.window = raw;
        self
    }
    /// SACK blocks, relative to the receiving side's data (the other side's ISN).
    pub fn sack(mut self, blocks: &[(u32, u32)]) -> Self {
        let base = ISN[1 - self.from];
        for (i, &(l, r)) in blocks.iter().enumerate() {
            self.seg.options.sack[i] = (base.wrapping_add(l), base.wrapping_add(r));
        }
        self.seg.options.sack_count = blocks.len() as u8;
        self
    }
    pub fn ts(mut self, val: u32, ecr: u32) -> Self {
        self.seg.options.timestamps = Some((val, ecr));
        self
    }
    /// `n` packets from this side before this one never reached the capture point (their
    /// IPv4 IDs are skipped).
    pub fn after_unseen(self, n: u16) -> Self {
        self.trace.ip_id[self.from] = self.trace.ip_id[self.from].wrapping_add(n);
        self
    }
    /// The IPv4 ID of the previous segment from this side again (the same packet seen twice).
    pub fn same_ip_id(mut self) -> Self {
        self.new_ip_id = false;
        self
    }
    /// An IPv4 ID `n` below the previous segment's from this side: a packet sent before the
    /// last `n` it arrives after.
    pub fn sent_before(mut self, n: u16) -> Self {
        self.new_ip_id = false;
        self.ids_back = n;
        self
    }
    fn syn_options(mut self, wscale: Option<u8>) -> Self {
        self.seg.options.mss = Some(1460);
        self.seg.options.wscale = wscale;
        self.seg.options.sack_permitted = true;
        self
    }

    /// Hands the segment to the flow; returns the notes of this packet.
    pub fn send(self) -> PacketNotes {
        let Seg { trace, from, at_us, mut seg, new_ip_id, ids_back } = self;
        if new_ip_id {
            trace.ip_id[from] = trace.ip_id[from].wrapping_add(1);
        }
        seg.ip_id = trace.ip_id[from].wrapping_sub(ids_back);
        trace.frame += 1;
        let ts = 1_700_000_000_000_000_000 + at_us * 1_000;
        let dir = if from == A { Direction::AtoB } else { Direction::BtoA };
        trace.summary.get_or_insert_with(|| FlowSummary::new(0, &seg, 1, ts)).record(&seg, dir, trace.frame, ts, 66 + seg.payload_len);
        trace.fs.on_segment(&seg, from, trace.frame, ts)
    }
}

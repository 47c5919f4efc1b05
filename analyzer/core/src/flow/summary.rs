//! What the flows table reports per flow: endpoints, times, counts and the options each
//! side offered in its SYN.

use super::key::Direction;
use crate::decode::{flags, Addr, TcpSegment};

/// Options a side offered in its SYN or SYN/ACK (RFC 9293, RFC 7323, RFC 2018, RFC 3168).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynOptions {
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: bool,
    /// ECN setup: SYN with ECE and CWR, or SYN/ACK with ECE (RFC 3168 §6.1.1).
    pub ecn: bool,
}

/// Per-direction counters and handshake facts.
#[derive(Debug, Clone, Copy, Default)]
pub struct SideSummary {
    pub packets: u64,
    /// Sum of frame lengths on the wire (as `tshark -z conv,tcp` counts bytes).
    pub frame_bytes: u64,
    /// Sum of TCP payload lengths (`tcp.len`).
    pub payload_bytes: u64,
    /// Frame of this side's SYN (or SYN/ACK), first one seen.
    pub syn_frame: Option<u64>,
    pub syn: SynOptions,
    pub fin_seen: bool,
    pub rst_seen: bool,
}

/// One flow: a Wireshark `tcp.stream`.
#[derive(Debug, Clone)]
pub struct FlowSummary {
    /// Equal to Wireshark's `tcp.stream`.
    pub stream: u32,
    /// Endpoint A: source of the flow's first segment.
    pub a: (Addr, u16),
    pub b: (Addr, u16),
    pub first_frame: u64,
    pub last_frame: u64,
    pub first_ts_ns: i64,
    pub last_ts_ns: i64,
    pub sides: [SideSummary; 2],
}

impl FlowSummary {
    pub fn new(stream: u32, seg: &TcpSegment, frame: u64, ts_ns: i64) -> FlowSummary {
        FlowSummary {
            stream,
            a: (seg.src, seg.sport),
            b: (seg.dst, seg.dport),
            first_frame: frame,
            last_frame: frame,
            first_ts_ns: ts_ns,
            last_ts_ns: ts_ns,
            sides: [SideSummary::default(); 2],
        }
    }

    pub fn record(&mut self, seg: &TcpSegment, dir: Direction, frame: u64, ts_ns: i64, frame_len: u32) {
        self.last_frame = frame;
        self.last_ts_ns = self.last_ts_ns.max(ts_ns);
        let side = &mut self.sides[dir.index()];
        side.packets += 1;
        side.frame_bytes += frame_len as u64;
        side.payload_bytes += seg.payload_len as u64;
        side.fin_seen |= seg.flags & flags::FIN != 0;
        side.rst_seen |= seg.flags & flags::RST != 0;
        if seg.flags & flags::SYN != 0 && side.syn_frame.is_none() {
            side.syn_frame = Some(frame);
            let ece_cwr = flags::ECE | flags::CWR;
            side.syn = SynOptions {
                mss: seg.options.mss,
                wscale: seg.options.wscale,
                sack_permitted: seg.options.sack_permitted,
                timestamps: seg.options.timestamps.is_some(),
                ecn: if seg.flags & flags::ACK != 0 {
                    seg.flags & ece_cwr == flags::ECE
                } else {
                    seg.flags & ece_cwr == ece_cwr
                },
            };
        }
    }

    /// Both SYNs captured.
    pub fn handshake_seen(&self) -> bool {
        self.sides[0].syn_frame.is_some() && self.sides[1].syn_frame.is_some()
    }

    /// Whether both sides offered an option: `Some(false)` as soon as one captured SYN
    /// lacks it, `Some(true)` when both SYNs carry it, `None` when that is unknown because a
    /// SYN was not captured.
    fn negotiated(&self, offered: impl Fn(&SynOptions) -> bool) -> Option<bool> {
        let mut all = true;
        for side in &self.sides {
            match side.syn_frame {
                Some(_) if !offered(&side.syn) => return Some(false),
                Some(_) => {}
                None => all = false,
            }
        }
        all.then_some(true)
    }

    /// Window scaling is in effect only when both SYNs carry the option (RFC 7323 §2.2).
    pub fn wscale_in_effect(&self) -> Option<bool> {
        self.negotiated(|o| o.wscale.is_some())
    }

    pub fn sack_permitted(&self) -> Option<bool> {
        self.negotiated(|o| o.sack_permitted)
    }

    pub fn timestamps(&self) -> Option<bool> {
        self.negotiated(|o| o.timestamps)
    }

    pub fn ecn(&self) -> Option<bool> {
        self.negotiated(|o| o.ecn)
    }

    pub fn duration_ns(&self) -> i64 {
        self.last_ts_ns - self.first_ts_ns
    }
}

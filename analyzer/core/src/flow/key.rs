//! The bidirectional flow key: the two (address, port) endpoints in canonical order.

use crate::decode::{Addr, TcpSegment};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub lo: (Addr, u16),
    pub hi: (Addr, u16),
}

impl FlowKey {
    /// The same key for both directions of a connection.
    #[inline]
    pub fn of(seg: &TcpSegment) -> FlowKey {
        let s = (seg.src, seg.sport);
        let d = (seg.dst, seg.dport);
        if s <= d {
            FlowKey { lo: s, hi: d }
        } else {
            FlowKey { lo: d, hi: s }
        }
    }
}

/// Direction of a segment within its flow: from endpoint A (the source of the flow's
/// first segment, the TCP client when the handshake was captured) or from B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    AtoB = 0,
    BtoA = 1,
}

impl Direction {
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub fn reverse(self) -> Direction {
        match self {
            Direction::AtoB => Direction::BtoA,
            Direction::BtoA => Direction::AtoB,
        }
    }
}

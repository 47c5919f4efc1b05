//! The bidirectional flow key: the two (address, port) endpoints in canonical order.

use crate::decode::{Addr, TcpSegment};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
        // (address, port) order, compared as integers: the byte-wise array comparison
        // was a tenth of placing a segment.
        let (a, b) = (u128::from_be_bytes(seg.src.0), u128::from_be_bytes(seg.dst.0));
        if (a, seg.sport) <= (b, seg.dport) {
            FlowKey { lo: s, hi: d }
        } else {
            FlowKey { lo: d, hi: s }
        }
    }
}

/// Hashes the key as two integers and the ports in one word.
impl std::hash::Hash for FlowKey {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u128(u128::from_ne_bytes(self.lo.0 .0));
        h.write_u128(u128::from_ne_bytes(self.hi.0 .0));
        h.write_u32(((self.lo.1 as u32) << 16) | self.hi.1 as u32);
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

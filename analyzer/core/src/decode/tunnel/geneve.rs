//! Generic Network Virtualization Encapsulation (Geneve, RFC 8926), UDP port 6081.

use crate::decode::{be16, ethernet, Layer, Span, Step, Stop, TcpSegment};

/// Ver (2 bits) + option length in 4-byte words (6 bits).
const VER_OPT_LEN: usize = 0;
const PROTOCOL_TYPE: usize = 2; // ..4
const BASE_HEADER_LEN: usize = 8;
/// Transparent Ethernet Bridging: the payload is an Ethernet frame.
const PROTO_ETHERNET: u16 = 0x6558;

/// `depth` already counts this tunnel.
#[inline]
pub(crate) fn geneve(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(BASE_HEADER_LEN, Layer::Tunnel)?;
    if span.data[VER_OPT_LEN] >> 6 != 0 {
        return Err(Stop::malformed(Layer::Tunnel, "Geneve version is not 0"));
    }
    // Options are variable-length TLVs we do not need: skip them as a block.
    let header_len = BASE_HEADER_LEN + ((span.data[VER_OPT_LEN] & 0x3F) as usize) * 4;
    span.need(header_len, Layer::Tunnel)?;
    let proto = be16(span.data, PROTOCOL_TYPE);
    let inner = span.advance(header_len);
    match proto {
        PROTO_ETHERNET => ethernet::ethernet(inner, depth, out),
        _ => ethernet::ethertype(proto, inner, depth, out),
    }
}

//! Virtual eXtensible LAN (RFC 7348) and its Generic Protocol Extension (VXLAN-GPE,
//! draft-ietf-nvo3-vxlan-gpe), on UDP 4789 and 4790.

use crate::decode::{ethernet, ipv4, ipv6, Layer, Span, Step, Stop, TcpSegment};

/// Flags (1), reserved / GPE next protocol at byte 3, VNI (3), reserved (1).
const HEADER_LEN: usize = 8;
const GPE_NEXT_PROTOCOL: usize = 3;
const GPE_IPV4: u8 = 1;
const GPE_IPV6: u8 = 2;
const GPE_ETHERNET: u8 = 3;

/// `depth` already counts this tunnel.
#[inline]
pub(crate) fn vxlan(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(HEADER_LEN, Layer::Tunnel)?;
    ethernet::ethernet(span.advance(HEADER_LEN), depth, out)
}

#[inline]
pub(crate) fn vxlan_gpe(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(HEADER_LEN, Layer::Tunnel)?;
    let inner = span.advance(HEADER_LEN);
    match span.data[GPE_NEXT_PROTOCOL] {
        GPE_IPV4 => ipv4::ipv4(inner, depth, out),
        GPE_IPV6 => ipv6::ipv6(inner, depth, out),
        GPE_ETHERNET => ethernet::ethernet(inner, depth, out),
        _ => Err(Stop::not_tcp(Layer::Tunnel)),
    }
}

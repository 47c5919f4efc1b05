//! The Point-to-Point Protocol (RFC 1661) and PPP over Ethernet sessions (RFC 2516).

use super::{be16, ipv4, ipv6, Layer, Span, Step, Stop, TcpSegment};

/// HDLC-like framing (RFC 1662) address and control bytes, often present on LINKTYPE_PPP.
const HDLC_ADDRESS_CONTROL: [u8; 2] = [0xFF, 0x03];
const PROTO_IPV4: u16 = 0x0021;
const PROTO_IPV6: u16 = 0x0057;

/// PPPoE session header: ver/type (1), code (1), session id (2), length (2).
const PPPOE_HEADER_LEN: usize = 6;
const PPPOE_LENGTH: usize = 4; // ..6

/// A PPP frame: optional address/control, then a protocol field that Protocol-Field-
/// Compression (RFC 1661 §6.5) may shorten to one byte (odd first byte).
#[inline]
pub(crate) fn ppp(mut span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(2, Layer::Link)?;
    if span.data[..2] == HDLC_ADDRESS_CONTROL {
        span = span.advance(2);
        span.need(1, Layer::Link)?;
    }
    let (proto, len) = if span.data[0] & 1 == 1 {
        (span.data[0] as u16, 1)
    } else {
        span.need(2, Layer::Link)?;
        (be16(span.data, 0), 2)
    };
    protocol(proto, span.advance(len), depth, out)
}

/// A PPPoE session frame (EtherType 0x8864); its length field bounds the PPP frame.
#[inline]
pub(crate) fn pppoe_session(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(PPPOE_HEADER_LEN + 2, Layer::Link)?;
    let len = be16(span.data, PPPOE_LENGTH) as usize;
    let proto = be16(span.data, PPPOE_HEADER_LEN);
    let ppp = span.advance(PPPOE_HEADER_LEN).limit(len);
    protocol(proto, ppp.advance(2), depth, out)
}

#[inline]
fn protocol(proto: u16, span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    match proto {
        PROTO_IPV4 => ipv4::ipv4(span, depth, out),
        PROTO_IPV6 => ipv6::ipv6(span, depth, out),
        // LCP, IPCP, compressed or encrypted (MPPE) datagrams...
        _ => Err(Stop::not_tcp(Layer::Link)),
    }
}

//! What IPv4 and IPv6 share: the facts a segment keeps, and the dispatch on the IP
//! protocol number (IANA "Assigned Internet Protocol Numbers").
//!
//! ICMP and ICMPv6 errors quote the IP and TCP headers of the packet that caused them.
//! Wireshark dissects those quoted headers and gives them a `tcp.stream` (opening a new
//! one if needed), so we decode them too but mark the segment `in_icmp_error`: it takes
//! part in stream numbering and nothing else.

use super::{ipv4, ipv6, tcp, tunnel, Addr, Layer, Span, Step, Stop, TcpSegment};

pub(crate) const PROTO_ICMP: u8 = 1;
pub(crate) const PROTO_IPV4: u8 = 4;
pub(crate) const PROTO_TCP: u8 = 6;
pub(crate) const PROTO_UDP: u8 = 17;
pub(crate) const PROTO_IPV6: u8 = 41;
pub(crate) const PROTO_GRE: u8 = 47;
pub(crate) const PROTO_ICMPV6: u8 = 58;
/// ICMP header before the quoted datagram (RFC 792, RFC 4443 §3).
const ICMP_HEADER_LEN: usize = 8;

/// The IP header fields a [`super::TcpSegment`] carries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IpFacts {
    pub src: Addr,
    pub dst: Addr,
    pub version: u8,
    pub tos: u8,
    pub ttl: u8,
    pub ip_id: u16,
}

/// Raw IP link types: the version nibble says which header follows.
#[inline]
pub(crate) fn by_version(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(1, Layer::Network)?;
    match span.data[0] >> 4 {
        4 => ipv4::ipv4(span, depth, out),
        6 => ipv6::ipv6(span, depth, out),
        _ => Err(Stop::not_tcp(Layer::Network)),
    }
}

/// The IP payload (`span` already limited to the IP length) by protocol number.
#[inline(always)]
pub(crate) fn payload(proto: u8, ip: &IpFacts, span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    // TCP, the usual case, is one compare instead of a way through the match.
    if proto == PROTO_TCP {
        return tcp::tcp(ip, span, depth, out);
    }
    match proto {
        PROTO_IPV4 | PROTO_IPV6 | PROTO_GRE | PROTO_UDP => tunnel::by_protocol(proto, span, depth, out),
        PROTO_ICMP | PROTO_ICMPV6 => icmp_error(proto, span, depth, out),
        _ => Err(Stop::not_tcp(Layer::Transport)),
    }
}

/// The TCP header quoted by an ICMP error (v4 types 3, 4, 5, 11, 12; v6 types 1–4).
fn icmp_error(proto: u8, span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    let not_tcp = || Stop::not_tcp(Layer::Transport);
    let kind = *span.data.first().ok_or_else(not_tcp)?;
    let is_error = match proto {
        PROTO_ICMP => matches!(kind, 3 | 4 | 5 | 11 | 12),
        _ => (1..=4).contains(&kind),
    };
    if !is_error || span.data.len() < ICMP_HEADER_LEN || depth >= super::MAX_TUNNEL_DEPTH {
        return Err(not_tcp());
    }
    by_version(span.advance(ICMP_HEADER_LEN), depth + 1, out).map_err(|_| not_tcp())?;
    out.in_icmp_error = true;
    out.tunnel_depth = depth;
    Ok(())
}

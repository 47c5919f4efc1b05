//! What IPv4 and IPv6 share: the facts a segment keeps, and the dispatch on the IP
//! protocol number (IANA "Assigned Internet Protocol Numbers").
//!
//! ICMP and ICMPv6 errors quote the IP and TCP headers of the packet that caused them;
//! Wireshark dissects those quoted headers (so `tcp.srcport` has a value on an ICMP
//! frame), but they are not segments of the flow, so we return `Other{NotTcp}` for them.

use super::{ipv4, ipv6, tcp, tunnel, Addr, Layer, Span, Step, Stop};

pub(crate) const PROTO_IPV4: u8 = 4;
pub(crate) const PROTO_TCP: u8 = 6;
pub(crate) const PROTO_UDP: u8 = 17;
pub(crate) const PROTO_IPV6: u8 = 41;
pub(crate) const PROTO_GRE: u8 = 47;

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
pub(crate) fn by_version(span: Span<'_>, depth: u8) -> Step {
    span.need(1, Layer::Network)?;
    match span.data[0] >> 4 {
        4 => ipv4::ipv4(span, depth),
        6 => ipv6::ipv6(span, depth),
        _ => Err(Stop::not_tcp(Layer::Network)),
    }
}

/// The IP payload (`span` already limited to the IP length) by protocol number.
#[inline]
pub(crate) fn payload(proto: u8, ip: &IpFacts, span: Span<'_>, depth: u8) -> Step {
    match proto {
        PROTO_TCP => tcp::tcp(ip, span, depth),
        PROTO_IPV4 | PROTO_IPV6 | PROTO_GRE | PROTO_UDP => tunnel::by_protocol(proto, span, depth),
        _ => Err(Stop::not_tcp(Layer::Transport)),
    }
}

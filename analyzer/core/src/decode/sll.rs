//! Linux "cooked" capture headers: SLL (LINKTYPE_LINUX_SLL, 16 bytes) and SLL2
//! (LINKTYPE_LINUX_SLL2, 20 bytes), written by `tcpdump -i any`.

use super::{be16, ethernet, llc, tunnel, Layer, Span, Step, Stop, TcpSegment};

mod v1 {
    pub const HATYPE: usize = 2; // ..4
    pub const PROTOCOL: usize = 14; // ..16
    pub const HEADER_LEN: usize = 16;
}

mod v2 {
    pub const PROTOCOL: usize = 0; // ..2
    pub const HATYPE: usize = 8; // ..10
    pub const HEADER_LEN: usize = 20;
}

/// ARPHRD_ values that change what the protocol field means.
const ARPHRD_IPGRE: u16 = 778;
const ARPHRD_NETLINK: u16 = 824;
/// Protocol values below 0x600 are Linux `ETH_P_*` pseudo types; 0x0004 is raw 802.2.
const LINUX_ETH_P_802_2: u16 = 0x0004;

#[inline]
pub(crate) fn sll(span: Span<'_>, out: &mut TcpSegment) -> Step {
    span.need(v1::HEADER_LEN, Layer::Link)?;
    let (hatype, proto) = (be16(span.data, v1::HATYPE), be16(span.data, v1::PROTOCOL));
    payload(hatype, proto, span.advance(v1::HEADER_LEN), out)
}

#[inline]
pub(crate) fn sll2(span: Span<'_>, out: &mut TcpSegment) -> Step {
    span.need(v2::HEADER_LEN, Layer::Link)?;
    let (hatype, proto) = (be16(span.data, v2::HATYPE), be16(span.data, v2::PROTOCOL));
    payload(hatype, proto, span.advance(v2::HEADER_LEN), out)
}

#[inline]
fn payload(hatype: u16, proto: u16, span: Span<'_>, out: &mut TcpSegment) -> Step {
    match hatype {
        ARPHRD_NETLINK => Err(Stop::not_tcp(Layer::Link)),
        // A GRE device: the kernel removed the GRE header; the protocol field is its
        // protocol type (Wireshark looks it up in the GRE table).
        ARPHRD_IPGRE => tunnel::gre::payload_type(proto, false, span, 0, out),
        _ if proto == LINUX_ETH_P_802_2 => llc::llc(span, 0, out),
        _ if proto < 0x0600 => Err(Stop::not_tcp(Layer::Link)),
        _ => ethernet::ethertype(proto, span, 0, out),
    }
}

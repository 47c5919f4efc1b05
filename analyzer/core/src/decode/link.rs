//! Link-layer header types (tcpdump.org LINKTYPE_ values): dispatch to the first header.

use super::{ethernet, ieee80211, ip, llc, null, ppp, sll, Layer, Span, Step, Stop, StopReason, TcpSegment};

/// The LINKTYPE_ values the decoder follows (tcpdump.org `linktypes.html`).
pub mod linktype {
    /// BSD loopback: 4-byte address family in the capturing host's byte order.
    pub const NULL: u32 = 0;
    pub const ETHERNET: u32 = 1;
    /// PPP without HDLC framing (RFC 1661), address/control bytes optional.
    pub const PPP: u32 = 9;
    pub const FDDI: u32 = 10;
    /// `DLT_RAW` as numbered on some BSDs (12, 14) and in LINKTYPE_ space (101).
    pub const RAW_BSD: u32 = 12;
    pub const RAW_OPENBSD: u32 = 14;
    pub const PPP_HDLC: u32 = 50;
    /// PPPoE session frames without Ethernet header (RFC 2516).
    pub const PPP_ETHER: u32 = 51;
    pub const RAW: u32 = 101;
    pub const IEEE802_11: u32 = 105;
    /// OpenBSD loopback: like NULL but the address family is in network byte order.
    pub const LOOP: u32 = 108;
    pub const LINUX_SLL: u32 = 113;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    pub const LINUX_SLL2: u32 = 276;
}

/// FDDI: frame control (1) + destination (6) + source (6), then 802.2 LLC.
const FDDI_HEADER_LEN: usize = 13;

// Link → Ethernet → IPv4 → TCP is inlined whole (`inline(always)` on each): one function
// per frame instead of five calls that each pass a `Step` back up. A tunnel stays a call
// (`tunnel::by_protocol`), which keeps the recursion through it finite.
#[inline(always)]
pub(crate) fn link(lt: u32, span: Span<'_>, out: &mut TcpSegment) -> Step {
    match lt {
        linktype::ETHERNET => ethernet::ethernet(span, 0, out),
        linktype::LINUX_SLL => sll::sll(span, out),
        linktype::LINUX_SLL2 => sll::sll2(span, out),
        linktype::NULL => null::null(span, false, out),
        linktype::LOOP => null::null(span, true, out),
        linktype::RAW | linktype::RAW_BSD | linktype::RAW_OPENBSD => ip::by_version(span, 0, out),
        linktype::IPV4 => super::ipv4::ipv4(span, 0, out),
        linktype::IPV6 => super::ipv6::ipv6(span, 0, out),
        linktype::PPP | linktype::PPP_HDLC => ppp::ppp(span, 0, out),
        linktype::PPP_ETHER => ppp::pppoe_session(span, 0, out),
        linktype::FDDI => {
            span.need(FDDI_HEADER_LEN, Layer::Link)?;
            llc::llc(span.advance(FDDI_HEADER_LEN), 0, out)
        }
        linktype::IEEE802_11 => ieee80211::data_frame(span, 0, out),
        other => Err(Stop {
            layer: Layer::Link,
            reason: StopReason::UnknownLinkType(other),
        }),
    }
}

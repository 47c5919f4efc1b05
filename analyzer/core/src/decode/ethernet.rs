//! Ethernet II / IEEE 802.3 frames and the shims between them and IP: IEEE 802.1Q VLAN
//! tags, 802.1ad (QinQ) service tags incl. the pre-standard 0x9100/0x9200, MPLS label
//! stacks (RFC 3032) and PPPoE sessions (RFC 2516). None of these count as a tunnel.

use super::{be16, ipv4, ipv6, llc, ppp, Layer, Span, Step, Stop, TcpSegment};

pub(super) const ETHERTYPE: usize = 12; // ..14
pub(super) const HEADER_LEN: usize = 14;
/// Type/length values up to 1500 are an 802.3 length, followed by 802.2 LLC.
const MAX_802_3_LEN: u16 = 1500;

pub(crate) const IPV4: u16 = 0x0800;
pub(crate) const IPV6: u16 = 0x86DD;
const VLAN: u16 = 0x8100;
const QINQ: u16 = 0x88A8;
const QINQ_OLD: u16 = 0x9100;
const QINQ_OLD2: u16 = 0x9200;
const MPLS_UNICAST: u16 = 0x8847;
const MPLS_MULTICAST: u16 = 0x8848;
const PPPOE_SESSION: u16 = 0x8864;

/// VLAN tag: TCI (2) + inner type/length (2).
const VLAN_TAG_LEN: usize = 4;
const VLAN_INNER_TYPE: usize = 2;
/// MPLS label stack entry: label (20) TC (3) S (1) TTL (8); S marks the last entry.
const MPLS_ENTRY_LEN: usize = 4;
const MPLS_BOTTOM_BYTE: usize = 2;
const MPLS_BOTTOM_BIT: u8 = 0x01;

/// An Ethernet II (or 802.3) frame; Wireshark's default of no FCS is assumed (a trailing
/// FCS is cut off by the IP length anyway).
#[inline(always)]
pub(crate) fn ethernet(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(HEADER_LEN, Layer::Link)?;
    let et = be16(span.data, ETHERTYPE);
    ethertype(et, span.advance(HEADER_LEN), depth, out)
}

/// Follows an EtherType (also used by SLL, GRE and Geneve) through tags to IP.
#[inline(always)]
pub(crate) fn ethertype(mut et: u16, mut span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    // IPv4 untagged, the usual case, is one compare instead of a way through the match.
    if et == IPV4 {
        return ipv4::ipv4(span, depth, out);
    }
    // Each tag consumes 4 captured bytes, so the loop ends on any input.
    loop {
        match et {
            IPV4 => return ipv4::ipv4(span, depth, out),
            IPV6 => return ipv6::ipv6(span, depth, out),
            VLAN | QINQ | QINQ_OLD | QINQ_OLD2 => {
                span.need(VLAN_TAG_LEN, Layer::Link)?;
                et = be16(span.data, VLAN_INNER_TYPE);
                span = span.advance(VLAN_TAG_LEN);
            }
            MPLS_UNICAST | MPLS_MULTICAST => return mpls(span, depth, out),
            PPPOE_SESSION => return ppp::pppoe_session(span, depth, out),
            len if len <= MAX_802_3_LEN => return llc::llc(span.limit(len as usize), depth, out),
            _ => return Err(Stop::not_tcp(Layer::Link)),
        }
    }
}

/// MPLS carries no payload type: like Wireshark, guess IP from the first nibble after the
/// bottom of the stack. Pseudowires (first nibble 0, RFC 4385 control word) are not followed.
fn mpls(mut span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    loop {
        span.need(MPLS_ENTRY_LEN, Layer::Link)?;
        let bottom = span.data[MPLS_BOTTOM_BYTE] & MPLS_BOTTOM_BIT != 0;
        span = span.advance(MPLS_ENTRY_LEN);
        if bottom {
            break;
        }
    }
    span.need(1, Layer::Network)?;
    match span.data[0] >> 4 {
        4 => ipv4::ipv4(span, depth, out),
        6 => ipv6::ipv6(span, depth, out),
        _ => Err(Stop::not_tcp(Layer::Link)),
    }
}

//! The common frame (Ethernet II, IPv4 not fragmented, TCP without SYN) decoded only as far
//! as the flows table reads it: addresses, ports, sequence and acknowledgment numbers,
//! flags and payload length (`FlowTable::place`, `FlowSummary::record`).
//!
//! Contract: `flow_fields` either writes those fields exactly as [`super::decode_into`]
//! would, or returns false having decided nothing, and the caller decodes the frame in
//! full. Everything else (other link types, tags, IPv6, tunnels, ICMP, fragments, any
//! length or field the full decoder would question, and SYNs, whose options the summary
//! keeps) takes the full path. The other fields of `seg` (TTL, window, options, ...) keep
//! an earlier frame's values, so only a caller that reads no more than the table may use it.

use super::ip::PROTO_TCP;
use super::{be16, be32, ethernet, flags, ipv4, tcp, Addr, TcpSegment};

/// Link type 1 (Ethernet) frames of the common shape: see the module contract.
#[inline]
pub fn flow_fields(linktype: u32, data: &[u8], origlen: u32, seg: &mut TcpSegment) -> bool {
    if linktype != super::linktype::ETHERNET || data.len() < ethernet::HEADER_LEN + ipv4::MIN_HEADER_LEN + tcp::MIN_HEADER_LEN {
        return false;
    }
    if be16(data, ethernet::ETHERTYPE) != ethernet::IPV4 {
        return false;
    }
    // Lengths on the wire, as `Span` keeps them: never below what was captured.
    let eth_wire = (origlen as usize).max(data.len()) - ethernet::HEADER_LEN;
    let ip = &data[ethernet::HEADER_LEN..];
    // The fixed headers as arrays: their fields are then read without a bounds check each.
    let Some(iph) = ip.first_chunk::<{ ipv4::MIN_HEADER_LEN }>() else { return false };
    let ver_ihl = iph[ipv4::VERSION_IHL];
    let ip_header_len = ((ver_ihl & 0x0F) as usize) * 4;
    if ver_ihl >> 4 != 4 || ip_header_len < ipv4::MIN_HEADER_LEN || ip.len() < ip_header_len + tcp::MIN_HEADER_LEN {
        return false;
    }
    let ip_wire = match be16(iph, ipv4::TOTAL_LEN) as usize {
        0 => eth_wire, // TSO on the capturing host
        n if n < ip_header_len => return false,
        n => eth_wire.min(n),
    };
    if be16(iph, ipv4::FLAGS_FRAG_OFFSET) & (ipv4::FLAG_MORE_FRAGMENTS | ipv4::FRAG_OFFSET_MASK) != 0 || iph[ipv4::PROTOCOL] != PROTO_TCP {
        return false;
    }
    // The TCP header: the IP payload limited to the IP length, 20 bytes of it captured.
    let captured = ip.len().min(ip_wire);
    if captured < ip_header_len + tcp::MIN_HEADER_LEN {
        return false;
    }
    let Some(t) = ip[ip_header_len..].first_chunk::<{ tcp::MIN_HEADER_LEN }>() else { return false };
    let tcp_wire = ip_wire - ip_header_len;
    let off_flags = be16(t, tcp::DATA_OFFSET_FLAGS);
    let header_len = ((off_flags >> 12) as usize) * 4;
    let seg_flags = off_flags & tcp::FLAGS_MASK;
    if header_len < tcp::MIN_HEADER_LEN || header_len > tcp_wire || seg_flags & flags::SYN != 0 {
        return false;
    }
    seg.src = Addr::v4([iph[ipv4::SRC], iph[ipv4::SRC + 1], iph[ipv4::SRC + 2], iph[ipv4::SRC + 3]]);
    seg.dst = Addr::v4([iph[ipv4::DST], iph[ipv4::DST + 1], iph[ipv4::DST + 2], iph[ipv4::DST + 3]]);
    seg.sport = be16(t, tcp::SRC_PORT);
    seg.dport = be16(t, tcp::DST_PORT);
    seg.seq = be32(t, tcp::SEQ);
    seg.ack = be32(t, tcp::ACK);
    seg.flags = seg_flags;
    seg.payload_len = (tcp_wire - header_len) as u32;
    seg.in_icmp_error = false;
    true
}

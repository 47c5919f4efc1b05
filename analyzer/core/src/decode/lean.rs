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

use super::{be16, be32, flags, Addr, TcpSegment};

const ETH_HEADER_LEN: usize = 14;
const ETHERTYPE: usize = 12; // ..14
const IPV4: u16 = 0x0800;

/// Offsets in the IPv4 header (RFC 791).
mod ipv4 {
    pub const VERSION_IHL: usize = 0;
    pub const TOTAL_LEN: usize = 2; // ..4
    pub const FLAGS_FRAG_OFFSET: usize = 6; // ..8
    pub const PROTOCOL: usize = 9;
    pub const SRC: usize = 12; // ..16
    pub const DST: usize = 16; // ..20
    pub const MIN_HEADER_LEN: usize = 20;
    /// More-fragments flag and fragment offset.
    pub const FRAGMENT_BITS: u16 = 0x3FFF;
    pub const PROTO_TCP: u8 = 6;
}

/// Offsets in the TCP header (RFC 9293 §3.1).
mod tcp {
    pub const SRC_PORT: usize = 0; // ..2
    pub const DST_PORT: usize = 2; // ..4
    pub const SEQ: usize = 4; // ..8
    pub const ACK: usize = 8; // ..12
    pub const DATA_OFFSET_FLAGS: usize = 12; // ..14
    pub const MIN_HEADER_LEN: usize = 20;
    pub const FLAGS_MASK: u16 = 0x0FFF;
}

/// Link type 1 (Ethernet) frames of the common shape: see the module contract.
#[inline]
pub fn flow_fields(linktype: u32, data: &[u8], origlen: u32, seg: &mut TcpSegment) -> bool {
    if linktype != super::linktype::ETHERNET || data.len() < ETH_HEADER_LEN + ipv4::MIN_HEADER_LEN + tcp::MIN_HEADER_LEN {
        return false;
    }
    if be16(data, ETHERTYPE) != IPV4 {
        return false;
    }
    // Lengths on the wire, as `Span` keeps them: never below what was captured.
    let eth_wire = (origlen as usize).max(data.len()) - ETH_HEADER_LEN;
    let ip = &data[ETH_HEADER_LEN..];
    let ver_ihl = ip[ipv4::VERSION_IHL];
    let ip_header_len = ((ver_ihl & 0x0F) as usize) * 4;
    if ver_ihl >> 4 != 4 || ip_header_len < ipv4::MIN_HEADER_LEN || ip.len() < ip_header_len + tcp::MIN_HEADER_LEN {
        return false;
    }
    let ip_wire = match be16(ip, ipv4::TOTAL_LEN) as usize {
        0 => eth_wire, // TSO on the capturing host
        n if n < ip_header_len => return false,
        n => eth_wire.min(n),
    };
    if be16(ip, ipv4::FLAGS_FRAG_OFFSET) & ipv4::FRAGMENT_BITS != 0 || ip[ipv4::PROTOCOL] != ipv4::PROTO_TCP {
        return false;
    }
    // The TCP header: the IP payload limited to the IP length, 20 bytes of it captured.
    let captured = ip.len().min(ip_wire);
    if captured < ip_header_len + tcp::MIN_HEADER_LEN {
        return false;
    }
    let t = &ip[ip_header_len..];
    let tcp_wire = ip_wire - ip_header_len;
    let off_flags = be16(t, tcp::DATA_OFFSET_FLAGS);
    let header_len = ((off_flags >> 12) as usize) * 4;
    let seg_flags = off_flags & tcp::FLAGS_MASK;
    if header_len < tcp::MIN_HEADER_LEN || header_len > tcp_wire || seg_flags & flags::SYN != 0 {
        return false;
    }
    seg.src = Addr::v4([ip[ipv4::SRC], ip[ipv4::SRC + 1], ip[ipv4::SRC + 2], ip[ipv4::SRC + 3]]);
    seg.dst = Addr::v4([ip[ipv4::DST], ip[ipv4::DST + 1], ip[ipv4::DST + 2], ip[ipv4::DST + 3]]);
    seg.sport = be16(t, tcp::SRC_PORT);
    seg.dport = be16(t, tcp::DST_PORT);
    seg.seq = be32(t, tcp::SEQ);
    seg.ack = be32(t, tcp::ACK);
    seg.flags = seg_flags;
    seg.payload_len = (tcp_wire - header_len) as u32;
    seg.in_icmp_error = false;
    true
}

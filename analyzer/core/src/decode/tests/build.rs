//! Frame builders for tests: each wraps a payload in one header with sane defaults, so a
//! test is "template, one field changed, decode, compare".

pub const MAC_A: [u8; 6] = [0x00, 0x0c, 0x29, 0xaa, 0xbb, 0xcc];
pub const MAC_B: [u8; 6] = [0x00, 0x0c, 0x29, 0xdd, 0xee, 0xff];
pub const V4_A: [u8; 4] = [192, 168, 0, 1];
pub const V4_B: [u8; 4] = [192, 168, 0, 2];
pub const V6_A: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
pub const V6_B: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];

pub const SPORT: u16 = 50000;
pub const DPORT: u16 = 443;
pub const SEQ: u32 = 1000;
pub const ACK: u32 = 2000;
pub const WINDOW: u16 = 501;
/// NOP, NOP, timestamps (1, 2): the options of most data segments.
pub const TS_OPTIONS: [u8; 12] = [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];

/// A TCP header (ACK|PSH, timestamps) followed by `payload_len` bytes of 0x61.
pub fn tcp(payload_len: usize) -> Vec<u8> {
    tcp_with(&TS_OPTIONS, 0x018, payload_len)
}

pub fn tcp_with(options: &[u8], flags: u16, payload_len: usize) -> Vec<u8> {
    assert!(options.len().is_multiple_of(4));
    let data_offset = (20 + options.len()) / 4;
    let mut h = Vec::new();
    h.extend(SPORT.to_be_bytes());
    h.extend(DPORT.to_be_bytes());
    h.extend(SEQ.to_be_bytes());
    h.extend(ACK.to_be_bytes());
    h.extend(((data_offset as u16) << 12 | flags).to_be_bytes());
    h.extend(WINDOW.to_be_bytes());
    h.extend([0, 0, 0, 0]); // checksum, urgent pointer
    h.extend(options);
    h.extend(std::iter::repeat_n(0x61, payload_len));
    h
}

/// IPv4 header (no options) with a correct total length, DF set, id 0x1c46, TTL 64.
pub fn ipv4(proto: u8, payload: &[u8]) -> Vec<u8> {
    let mut h = vec![0x45, 0x00];
    h.extend(((20 + payload.len()) as u16).to_be_bytes());
    h.extend([0x1c, 0x46, 0x40, 0x00, 64, proto, 0, 0]);
    h.extend(V4_A);
    h.extend(V4_B);
    h.extend(payload);
    h
}

/// IPv6 header (traffic class 0x0b, hop limit 57) with a correct payload length.
pub fn ipv6(next: u8, payload: &[u8]) -> Vec<u8> {
    let mut h = vec![0x60, 0xb0, 0, 0];
    h.extend((payload.len() as u16).to_be_bytes());
    h.extend([next, 57]);
    h.extend(V6_A);
    h.extend(V6_B);
    h.extend(payload);
    h
}

/// A generic IPv6 extension header (8 bytes, padded with a PadN option).
pub fn ext6(next: u8, payload: &[u8]) -> Vec<u8> {
    let mut h = vec![next, 0, 1, 4, 0, 0, 0, 0];
    h.extend(payload);
    h
}

pub fn ethernet(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend(MAC_B);
    h.extend(MAC_A);
    h.extend(ethertype.to_be_bytes());
    h.extend(payload);
    h
}

/// A 4-byte tag (VLAN, QinQ, MPLS entry, ...) before `payload`.
pub fn tag(bytes: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut h = bytes.to_vec();
    h.extend(payload);
    h
}

pub fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend(sport.to_be_bytes());
    h.extend(dport.to_be_bytes());
    h.extend(((8 + payload.len()) as u16).to_be_bytes());
    h.extend([0, 0]);
    h.extend(payload);
    h
}

/// GRE with the given flags word, protocol type and optional fields (already encoded).
pub fn gre(flags: u16, proto: u16, fields: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend(flags.to_be_bytes());
    h.extend(proto.to_be_bytes());
    h.extend(fields);
    h.extend(payload);
    h
}

pub fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// The reference frame: Ethernet / IPv4 / TCP with timestamps and 100 payload bytes.
pub fn eth_v4_tcp() -> Vec<u8> {
    ethernet(0x0800, &ipv4(6, &tcp(100)))
}

/// Decodes a whole frame (wire length = captured length) and expects a segment.
pub fn seg(linktype: u32, frame: &[u8]) -> crate::decode::TcpSegment {
    match crate::decode::decode(linktype, frame, frame.len() as u32) {
        crate::decode::Decoded::Tcp(s) => s,
        other => panic!("expected a TCP segment, got {other:?}"),
    }
}

/// Decodes a whole frame and expects it to stop.
pub fn stop(linktype: u32, frame: &[u8]) -> (crate::decode::Layer, crate::decode::StopReason) {
    match crate::decode::decode(linktype, frame, frame.len() as u32) {
        crate::decode::Decoded::Other { layer, reason } => (layer, reason),
        crate::decode::Decoded::Tcp(s) => panic!("expected no segment, got {s:?}"),
    }
}

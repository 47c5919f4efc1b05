//! Generic Routing Encapsulation: RFC 2784 with the key and sequence number extensions
//! of RFC 2890, the source routing of RFC 1701, and the enhanced GRE (version 1) of
//! PPTP (RFC 2637). The payload type is an EtherType, plus the vendor types Wireshark
//! follows: ERSPAN (Cisco) and Aruba's tunnelled 802.11 frames.

use super::{enter, erspan};
use crate::decode::{be16, ethernet, ieee80211, ppp, Layer, Span, Step, Stop, TcpSegment};

const FLAGS_VERSION: usize = 0; // ..2
const PROTOCOL_TYPE: usize = 2; // ..4
const BASE_HEADER_LEN: usize = 4;

const FLAG_CHECKSUM: u16 = 0x8000;
const FLAG_ROUTING: u16 = 0x4000;
const FLAG_KEY: u16 = 0x2000;
const FLAG_SEQUENCE: u16 = 0x1000;
/// Version 1 (PPTP) only: an acknowledgment number follows the sequence number.
const FLAG_ACK: u16 = 0x0080;
const VERSION_MASK: u16 = 0x0007;
/// Each optional field (checksum+offset, key, sequence, ack) is 4 bytes.
const FIELD_LEN: usize = 4;
/// RFC 1701 Source Route Entry: address family (2), offset (1), length (1), routing
/// information; a zero length ends the list.
const SRE_HEADER_LEN: usize = 4;
const SRE_LENGTH: usize = 3;

const PROTO_ETHERNET: u16 = 0x6558;
const PROTO_ERSPAN_1_2: u16 = 0x88BE;
const PROTO_ERSPAN_3: u16 = 0x22EB;
const PROTO_ARUBA_80211: u16 = 0x8200;
const PROTO_PPP: u16 = 0x880B;

/// `depth` does not yet count this tunnel.
#[inline]
pub(crate) fn gre(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    let depth = enter(depth)?;
    span.need(BASE_HEADER_LEN, Layer::Tunnel)?;
    let flags = be16(span.data, FLAGS_VERSION);
    let proto = be16(span.data, PROTOCOL_TYPE);
    let present = |flag: u16| if flags & flag != 0 { FIELD_LEN } else { 0 };
    let mut len = match flags & VERSION_MASK {
        0 => {
            // RFC 1701: checksum and offset are present if either C or R is set.
            let csum = if flags & (FLAG_CHECKSUM | FLAG_ROUTING) != 0 {
                FIELD_LEN
            } else {
                0
            };
            BASE_HEADER_LEN + csum + present(FLAG_KEY) + present(FLAG_SEQUENCE)
        }
        // PPTP: the key field (payload length, call id) is always there.
        1 => BASE_HEADER_LEN + FIELD_LEN + present(FLAG_SEQUENCE) + present(FLAG_ACK),
        _ => return Err(Stop::not_tcp(Layer::Tunnel)),
    };
    if flags & VERSION_MASK == 0 && flags & FLAG_ROUTING != 0 {
        // Each entry is at least 4 bytes, so this ends on any input.
        loop {
            span.need(len + SRE_HEADER_LEN, Layer::Tunnel)?;
            let sre_len = span.data[len + SRE_LENGTH] as usize;
            len += SRE_HEADER_LEN + sre_len;
            if sre_len == 0 {
                break;
            }
        }
    }
    span.need(len, Layer::Tunnel)?;
    payload_type(proto, flags & FLAG_SEQUENCE != 0, span.advance(len), depth, out)
}

/// The GRE payload by protocol type. Also used for Linux cooked captures on GRE devices,
/// where the kernel has removed the GRE header but kept its protocol type.
#[inline]
pub(crate) fn payload_type(proto: u16, has_sequence: bool, inner: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    match proto {
        PROTO_ETHERNET => ethernet::ethernet(inner, depth, out),
        PROTO_ERSPAN_1_2 => erspan::type_1_2(inner, has_sequence, depth, out),
        PROTO_ERSPAN_3 => erspan::type_3(inner, depth, out),
        PROTO_ARUBA_80211 => ieee80211::data_frame(inner, depth, out),
        PROTO_PPP => ppp::ppp(inner, depth, out),
        _ => ethernet::ethertype(proto, inner, depth, out),
    }
}

//! Encapsulated Remote SPAN (draft-foschiano-erspan-03): mirrored frames in GRE.
//! Type I has no header of its own, type II an 8-byte one (GRE 0x88BE, sequence bit
//! set), type III 12 bytes plus an optional 8-byte platform subheader (GRE 0x22EB).

use crate::decode::{ethernet, ip, Layer, Span, Step, Stop, TcpSegment};

const TYPE_2_HEADER_LEN: usize = 8;
const TYPE_3_HEADER_LEN: usize = 12;
const TYPE_3_PLATFORM_LEN: usize = 8;
/// Type III byte 10: P (1), frame type (5), hardware id high bits (2);
/// byte 11: hardware id low bits (4), D (1), granularity (2), O (1).
const TYPE_3_FRAME_TYPE: usize = 10;
const TYPE_3_FLAGS: usize = 11;
const TYPE_3_OPTIONAL: u8 = 0x01;
const FRAME_TYPE_ETHERNET: u8 = 0;
const FRAME_TYPE_IP: u8 = 2;

/// `depth` already counts the GRE tunnel; ERSPAN is part of it.
#[inline]
pub(crate) fn type_1_2(span: Span<'_>, has_sequence: bool, depth: u8, out: &mut TcpSegment) -> Step {
    if !has_sequence {
        return ethernet::ethernet(span, depth, out);
    }
    span.need(TYPE_2_HEADER_LEN, Layer::Tunnel)?;
    ethernet::ethernet(span.advance(TYPE_2_HEADER_LEN), depth, out)
}

#[inline]
pub(crate) fn type_3(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(TYPE_3_HEADER_LEN, Layer::Tunnel)?;
    let mut len = TYPE_3_HEADER_LEN;
    if span.data[TYPE_3_FLAGS] & TYPE_3_OPTIONAL != 0 {
        len += TYPE_3_PLATFORM_LEN;
    }
    span.need(len, Layer::Tunnel)?;
    let inner = span.advance(len);
    match (span.data[TYPE_3_FRAME_TYPE] >> 2) & 0x1F {
        FRAME_TYPE_ETHERNET => ethernet::ethernet(inner, depth, out),
        FRAME_TYPE_IP => ip::by_version(inner, depth, out),
        _ => Err(Stop::not_tcp(Layer::Tunnel)),
    }
}

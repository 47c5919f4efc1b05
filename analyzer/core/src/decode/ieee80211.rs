//! IEEE 802.11 data frames (802.11-2020 §9.3.2.1), as carried by Aruba's GRE tunnels
//! and LINKTYPE_IEEE802_11. Only unprotected data frames with an LLC/SNAP body lead to IP.

use super::{llc, Layer, Span, Step, Stop, StopReason, TcpSegment};

const FRAME_CONTROL: usize = 0; // ..2
const FC_FLAGS: usize = 1;
/// Frame control (2), duration (2), three addresses (18), sequence control (2).
const BASE_HEADER_LEN: usize = 24;
const ADDR4_LEN: usize = 6;
const QOS_CONTROL_LEN: usize = 2;
const HT_CONTROL_LEN: usize = 4;

const TYPE_DATA: u8 = 2;
/// Subtype bits: 0x8 = QoS variant, 0x4 = no body (Null, CF-Ack/Poll only).
const SUBTYPE_QOS: u8 = 0x8;
const SUBTYPE_NO_BODY: u8 = 0x4;
const FLAG_TO_DS: u8 = 0x01;
const FLAG_FROM_DS: u8 = 0x02;
const FLAG_PROTECTED: u8 = 0x40;
/// With QoS, the +HTC/Order bit means a 4-byte HT Control field follows QoS Control.
const FLAG_ORDER: u8 = 0x80;
/// QoS Control bit 7: the body is an A-MSDU (subframes), not one LLC frame.
const QOS_AMSDU: u8 = 0x80;

#[inline]
pub(crate) fn data_frame(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(BASE_HEADER_LEN, Layer::Link)?;
    let fc0 = span.data[FRAME_CONTROL];
    let flags = span.data[FC_FLAGS];
    let (frame_type, subtype) = ((fc0 >> 2) & 0x3, fc0 >> 4);
    if frame_type != TYPE_DATA || subtype & SUBTYPE_NO_BODY != 0 {
        return Err(Stop::not_tcp(Layer::Link));
    }
    let mut len = BASE_HEADER_LEN;
    if flags & (FLAG_TO_DS | FLAG_FROM_DS) == FLAG_TO_DS | FLAG_FROM_DS {
        len += ADDR4_LEN;
    }
    if subtype & SUBTYPE_QOS != 0 {
        span.need(len + QOS_CONTROL_LEN, Layer::Link)?;
        if span.data[len] & QOS_AMSDU != 0 {
            return Err(Stop::not_tcp(Layer::Link));
        }
        len += QOS_CONTROL_LEN;
        if flags & FLAG_ORDER != 0 {
            len += HT_CONTROL_LEN;
        }
    }
    if flags & FLAG_PROTECTED != 0 {
        return Err(Stop {
            layer: Layer::Link,
            reason: StopReason::Encrypted,
        });
    }
    span.need(len, Layer::Link)?;
    llc::llc(span.advance(len), depth, out)
}

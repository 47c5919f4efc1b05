//! GPRS Tunnelling Protocol, user plane (GTPv1-U, 3GPP TS 29.281 §5), UDP port 2152:
//! how mobile networks carry subscriber IP packets between base station and core.

use crate::decode::{be16, ip, Layer, Span, Step, Stop, TcpSegment};

const FLAGS: usize = 0;
const MESSAGE_TYPE: usize = 1;
const LENGTH: usize = 2; // ..4, bytes after the mandatory header
const MANDATORY_LEN: usize = 8;
/// Sequence number (2), N-PDU number (1), next extension header type (1): present when
/// any of E, S, PN is set.
const OPTIONAL_LEN: usize = 4;

const VERSION_1: u8 = 1;
const FLAG_PROTOCOL_TYPE_GTP: u8 = 0x10;
const FLAGS_E_S_PN: u8 = 0x07;
/// G-PDU: the message carries a user packet (T-PDU).
const MESSAGE_G_PDU: u8 = 0xFF;

/// `depth` already counts this tunnel.
#[inline]
pub(crate) fn gtp_u(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(MANDATORY_LEN, Layer::Tunnel)?;
    let flags = span.data[FLAGS];
    if flags >> 5 != VERSION_1 || flags & FLAG_PROTOCOL_TYPE_GTP == 0 {
        return Err(Stop::not_tcp(Layer::Tunnel));
    }
    if span.data[MESSAGE_TYPE] != MESSAGE_G_PDU {
        return Err(Stop::not_tcp(Layer::Tunnel)); // echo, error indication, end marker
    }
    let span = span.limit(MANDATORY_LEN + be16(span.data, LENGTH) as usize);
    let mut len = MANDATORY_LEN;
    if flags & FLAGS_E_S_PN != 0 {
        len += OPTIONAL_LEN;
        span.need(len, Layer::Tunnel)?;
        // Extension headers: length in 4-byte units (incl. itself), next type last.
        // Each is at least 4 bytes; a zero length is malformed and would not advance.
        let mut next = span.data[len - 1];
        while next != 0 {
            span.need(len + 1, Layer::Tunnel)?;
            let ext_len = span.data[len] as usize * 4;
            if ext_len == 0 {
                return Err(Stop::malformed(
                    Layer::Tunnel,
                    "GTP extension header length 0",
                ));
            }
            span.need(len + ext_len, Layer::Tunnel)?;
            next = span.data[len + ext_len - 1];
            len += ext_len;
        }
    }
    span.need(len, Layer::Tunnel)?;
    ip::by_version(span.advance(len), depth, out)
}

//! Internet Protocol version 4 header (RFC 791).
//!
//! Lengths follow Wireshark: the datagram is the total length, shrunk to what was on the
//! wire, and a total length of 0 means the host captured before TCP segmentation
//! offload filled it in, so the datagram runs to the end of the frame (`ip.len` shows the
//! same). Fragments stop decoding: Wireshark reassembles and shows TCP only on the last
//! fragment; we do not reassemble, so first (MF set) and later fragments are `Fragment`.

use super::ip::{self, IpFacts};
use super::{be16, Addr, Layer, Span, Step, Stop, StopReason, TcpSegment};

pub(super) const VERSION_IHL: usize = 0;
const TOS: usize = 1;
pub(super) const TOTAL_LEN: usize = 2; // ..4
const IDENT: usize = 4; // ..6
pub(super) const FLAGS_FRAG_OFFSET: usize = 6; // ..8
const TTL: usize = 8;
pub(super) const PROTOCOL: usize = 9;
pub(super) const SRC: usize = 12; // ..16
pub(super) const DST: usize = 16; // ..20
pub(super) const MIN_HEADER_LEN: usize = 20;

pub(super) const FLAG_MORE_FRAGMENTS: u16 = 0x2000;
pub(super) const FRAG_OFFSET_MASK: u16 = 0x1FFF;

#[inline(always)]
pub(crate) fn ipv4(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(MIN_HEADER_LEN, Layer::Network)?;
    let d = span.data;
    if d[VERSION_IHL] >> 4 != 4 {
        return Err(Stop::malformed(
            Layer::Network,
            "IPv4 version field is not 4",
        ));
    }
    let header_len = ((d[VERSION_IHL] & 0x0F) as usize) * 4;
    if header_len < MIN_HEADER_LEN {
        return Err(Stop::malformed(
            Layer::Network,
            "IPv4 header length below 20",
        ));
    }
    span.need(header_len, Layer::Network)?;
    let total_len = match be16(d, TOTAL_LEN) as usize {
        0 => span.wire, // TSO on the capturing host
        n if n < header_len => {
            return Err(Stop::malformed(
                Layer::Network,
                "IPv4 total length below header length",
            ))
        }
        n => n,
    };
    let frag = be16(d, FLAGS_FRAG_OFFSET);
    if frag & (FLAG_MORE_FRAGMENTS | FRAG_OFFSET_MASK) != 0 {
        return Err(Stop {
            layer: Layer::Network,
            reason: StopReason::Fragment,
        });
    }
    let facts = IpFacts {
        src: Addr::v4([d[SRC], d[SRC + 1], d[SRC + 2], d[SRC + 3]]),
        dst: Addr::v4([d[DST], d[DST + 1], d[DST + 2], d[DST + 3]]),
        version: 4,
        tos: d[TOS],
        ttl: d[TTL],
        ip_id: be16(d, IDENT),
    };
    let proto = d[PROTOCOL];
    ip::payload(proto, &facts, span.limit(total_len).advance(header_len), depth, out)
}

//! Internet Protocol version 6 header (RFC 8200) and its extension header chain.
//!
//! Payload length 0 has two meanings. With a Hop-by-Hop Jumbo Payload option (RFC 2675,
//! written by Linux BIG TCP up to 6.2) the option holds the length. Without one (BIG TCP
//! since Linux 6.3 strips the option before taps see the packet; TSO on the capturing
//! host) the payload runs to the end of the frame, as for IPv4 total length 0.
//! Wireshark 4.0 shows no TCP for the latter ("payload length equals 0 (maybe TSO)"); we
//! decode it deliberately, because these super-segments are exactly what the analysis
//! must see.

use super::ip::{self, IpFacts};
use super::{be16, be32, Addr, Layer, Span, Step, Stop, StopReason, TcpSegment};

const VERSION_CLASS: usize = 0; // version (4 bits), traffic class (8), flow label (20)
const PAYLOAD_LEN: usize = 4; // ..6
const NEXT_HEADER: usize = 6;
const HOP_LIMIT: usize = 7;
const SRC: usize = 8; // ..24
const DST: usize = 24; // ..40
const HEADER_LEN: usize = 40;

const HOP_BY_HOP: u8 = 0;
const ROUTING: u8 = 43;
const FRAGMENT: u8 = 44;
const ESP: u8 = 50;
const AH: u8 = 51;
const NO_NEXT_HEADER: u8 = 59;
const DEST_OPTIONS: u8 = 60;
const MOBILITY: u8 = 135;
const HIP: u8 = 139;
const SHIM6: u8 = 140;

/// Fragment header: next (1), reserved (1), offset (13 bits) res (2) M (1), ident (4).
const FRAGMENT_HEADER_LEN: usize = 8;
const FRAG_OFFSET_FLAGS: usize = 2; // ..4
const FRAG_OFFSET_MASK: u16 = 0xFFF8;
const FRAG_MORE: u16 = 0x0001;

/// Hop-by-Hop options: Pad1 has no length byte; Jumbo Payload is type 0xC2, 4 bytes.
const OPT_PAD1: u8 = 0;
const OPT_JUMBO: u8 = 0xC2;
const OPT_JUMBO_LEN: u8 = 4;

#[inline]
pub(crate) fn ipv6(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(HEADER_LEN, Layer::Network)?;
    let d = span.data;
    if d[VERSION_CLASS] >> 4 != 6 {
        return Err(Stop::malformed(
            Layer::Network,
            "IPv6 version field is not 6",
        ));
    }
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src.copy_from_slice(&d[SRC..SRC + 16]);
    dst.copy_from_slice(&d[DST..DST + 16]);
    let facts = IpFacts {
        src: Addr::v6(src),
        dst: Addr::v6(dst),
        version: 6,
        tos: (d[VERSION_CLASS] << 4) | (d[VERSION_CLASS + 1] >> 4),
        ttl: d[HOP_LIMIT],
        ip_id: 0,
    };
    let payload_len = be16(d, PAYLOAD_LEN) as usize;
    let mut next = d[NEXT_HEADER];
    // Jumbo Payload is only valid in a Hop-by-Hop header right after the fixed header.
    let datagram_len = if payload_len == 0 {
        match jumbo_payload_len(next, &d[HEADER_LEN..]) {
            Some(jumbo) => HEADER_LEN.saturating_add(jumbo),
            None => span.wire,
        }
    } else {
        HEADER_LEN + payload_len
    };
    // Walk the extension headers; each is at least 8 bytes, so the loop is bounded.
    let mut off = HEADER_LEN;
    loop {
        let len = match next {
            HOP_BY_HOP | ROUTING | DEST_OPTIONS | MOBILITY | HIP | SHIM6 => {
                span.need(off + 2, Layer::Network)?;
                (span.data[off + 1] as usize + 1) * 8
            }
            AH => {
                span.need(off + 2, Layer::Network)?;
                (span.data[off + 1] as usize + 2) * 4
            }
            FRAGMENT => {
                span.need(off + FRAGMENT_HEADER_LEN, Layer::Network)?;
                let f = be16(span.data, off + FRAG_OFFSET_FLAGS);
                // An atomic fragment (offset 0, M clear) is a whole datagram.
                if f & (FRAG_OFFSET_MASK | FRAG_MORE) != 0 {
                    return Err(Stop {
                        layer: Layer::Network,
                        reason: StopReason::Fragment,
                    });
                }
                FRAGMENT_HEADER_LEN
            }
            ESP => {
                return Err(Stop {
                    layer: Layer::Network,
                    reason: StopReason::Encrypted,
                })
            }
            NO_NEXT_HEADER => return Err(Stop::not_tcp(Layer::Network)),
            _ => break,
        };
        span.need(off + len, Layer::Network)?;
        next = span.data[off];
        off += len;
    }
    let span = span.limit(datagram_len);
    if off > span.wire {
        return Err(Stop::malformed(
            Layer::Network,
            "IPv6 extension headers exceed payload length",
        ));
    }
    ip::payload(next, &facts, span.advance(off), depth, out)
}

/// The Jumbo Payload length if `next` is a Hop-by-Hop header (captured in `ext`) that
/// carries one. Malformed option lists just mean "no jumbo".
#[inline]
fn jumbo_payload_len(next: u8, ext: &[u8]) -> Option<usize> {
    if next != HOP_BY_HOP || ext.len() < 2 {
        return None;
    }
    let end = ((ext[1] as usize + 1) * 8).min(ext.len());
    let mut i = 2;
    while i < end {
        let opt = ext[i];
        if opt == OPT_PAD1 {
            i += 1;
            continue;
        }
        let len = *ext.get(i + 1)? as usize;
        if opt == OPT_JUMBO && len == OPT_JUMBO_LEN as usize && i + 6 <= end {
            return Some(be32(ext, i + 2) as usize);
        }
        i += 2 + len;
    }
    None
}

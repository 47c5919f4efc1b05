//! BSD loopback encapsulation (LINKTYPE_NULL, LINKTYPE_LOOP): a 4-byte address family.
//!
//! NULL stores the family in the capturing host's byte order, which the file does not
//! record; like Wireshark we take whichever order gives a value below 0x10000. LOOP
//! (OpenBSD) is always network order. AF_INET6 differs by OS: 24 (NetBSD, OpenBSD,
//! BSD/OS, also what Npcap writes), 28 (FreeBSD), 30 (macOS/iOS), 10 (Linux).

use super::{ipv4, ipv6, Layer, Span, Step, Stop, TcpSegment};

const HEADER_LEN: usize = 4;
const AF_INET: u32 = 2;
const AF_INET6_LINUX: u32 = 10;
const AF_INET6_BSD: u32 = 24;
const AF_INET6_FREEBSD: u32 = 28;
const AF_INET6_DARWIN: u32 = 30;

#[inline]
pub(crate) fn null(span: Span<'_>, network_order: bool, out: &mut TcpSegment) -> Step {
    span.need(HEADER_LEN, Layer::Link)?;
    let raw = [span.data[0], span.data[1], span.data[2], span.data[3]];
    let af = if network_order {
        u32::from_be_bytes(raw)
    } else {
        let le = u32::from_le_bytes(raw);
        if le > 0xFFFF {
            le.swap_bytes()
        } else {
            le
        }
    };
    let next = span.advance(HEADER_LEN);
    match af {
        AF_INET => ipv4::ipv4(next, 0, out),
        AF_INET6_LINUX | AF_INET6_BSD | AF_INET6_FREEBSD | AF_INET6_DARWIN => ipv6::ipv6(next, 0, out),
        _ => Err(Stop::not_tcp(Layer::Link)),
    }
}

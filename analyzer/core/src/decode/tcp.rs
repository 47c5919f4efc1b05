//! Transmission Control Protocol header (RFC 9293 §3.1).
//!
//! `payload_len` is the IP payload length minus the TCP header length, the value
//! Wireshark shows as `tcp.len`. It can exceed any MSS (TSO/GRO super-segments captured
//! on the host, BIG TCP) and is never clamped or rejected.

use super::ip::IpFacts;
use super::{be16, be32, Layer, Span, Step, Stop, TcpOptions, TcpSegment};

pub(super) const SRC_PORT: usize = 0; // ..2
pub(super) const DST_PORT: usize = 2; // ..4
pub(super) const SEQ: usize = 4; // ..8
pub(super) const ACK: usize = 8; // ..12
/// Data offset (4 bits), then the 12 flag bits ending at byte 13.
pub(super) const DATA_OFFSET_FLAGS: usize = 12; // ..14
const WINDOW: usize = 14; // ..16
pub(super) const MIN_HEADER_LEN: usize = 20;
pub(super) const FLAGS_MASK: u16 = 0x0FFF;

/// `span` is the IP payload, limited to the IP length.
#[inline(always)]
pub(crate) fn tcp(ip: &IpFacts, span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(MIN_HEADER_LEN, Layer::Transport)?;
    let d = span.data;
    let off_flags = be16(d, DATA_OFFSET_FLAGS);
    let header_len = ((off_flags >> 12) as usize) * 4;
    if header_len < MIN_HEADER_LEN {
        return Err(Stop::malformed(Layer::Transport, "TCP data offset below 5"));
    }
    if header_len > span.wire {
        return Err(Stop::malformed(
            Layer::Transport,
            "TCP header longer than IP payload",
        ));
    }
    // Headers-only captures often cut the options (snaplen 64 with timestamps): the
    // fixed header is enough for the segment; parse the options that were captured and
    // say the rest is missing, as Wireshark still shows the fixed fields.
    let captured_header = header_len.min(d.len());
    *out = TcpSegment {
        src: ip.src,
        dst: ip.dst,
        ip_version: ip.version,
        tos: ip.tos,
        ttl: ip.ttl,
        ip_id: ip.ip_id,
        sport: be16(d, SRC_PORT),
        dport: be16(d, DST_PORT),
        seq: be32(d, SEQ),
        ack: be32(d, ACK),
        flags: off_flags & FLAGS_MASK,
        window: be16(d, WINDOW),
        header_len: header_len as u8,
        payload_len: (span.wire - header_len) as u32,
        payload_captured: d.len().saturating_sub(header_len) as u32,
        options: TcpOptions::default(),
        tunnel_depth: depth,
        in_icmp_error: false,
    };
    // Parsed in place: built apart and copied in, the options were read back before
    // their stores had landed (two fifths of this function's time).
    let options = &mut out.options;
    if captured_header > MIN_HEADER_LEN {
        options.parse_into(&d[MIN_HEADER_LEN..captured_header]);
    }
    options.truncated = captured_header < header_len;
    if options.truncated {
        options.malformed = false; // an option cut by the capture is not malformed
    }
    Ok(())
}

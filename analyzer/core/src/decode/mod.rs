//! ② decode: one frame's bytes → the TCP segment inside it (through link layers,
//! IPv4/IPv6 and tunnels), under a written contract:
//!
//! - every length is checked once, before the fields it guards are read; no panics on any
//!   input (fuzzed: `fuzz/fuzz_targets/decode.rs`);
//! - payload length comes from the IP lengths, never from the captured length, because
//!   headers-only captures (snaplen 64–128) are the norm;
//! - decoding is lax: when it stops, `Decoded::Other` says at which layer and why, so
//!   "not TCP" differs from "TCP header not captured".
//!
//! Layers are one file each and hand a [`Span`] (captured bytes + on-the-wire length)
//! down the chain: `link` → `ethernet`/`sll`/`null`/`ppp`/... → `ipv4`/`ipv6` → `ip`
//! (protocol dispatch) → `tcp`, with `tunnel/` looping back to a link or IP layer.
//! Recursion only happens through a tunnel, and tunnels are capped at
//! [`MAX_TUNNEL_DEPTH`], so stack use is bounded on any input.

use std::net::IpAddr;

mod ethernet;
mod ieee80211;
mod ip;
mod ipv4;
mod ipv6;
pub mod lean;
mod link;
mod llc;
mod null;
mod ppp;
mod sll;
mod tcp;
pub mod tcp_options;
mod tunnel;

#[cfg(test)]
mod tests;

pub use link::linktype;
pub use tcp_options::TcpOptions;

/// Tunnels nested deeper than this are reported as malformed rather than followed.
pub const MAX_TUNNEL_DEPTH: u8 = 8;

/// Decodes one frame of link type `linktype` (a LINKTYPE_ value from tcpdump.org) down to
/// its innermost TCP segment. `origlen` is the frame's length on the wire; when it is
/// shorter than `data` (a broken writer) the captured length is used instead.
///
/// Never panics, never allocates.
#[inline]
pub fn decode(linktype: u32, data: &[u8], origlen: u32) -> Decoded {
    let mut seg = TcpSegment::default();
    match decode_into(linktype, data, origlen, &mut seg) {
        Ok(()) => Decoded::Tcp(seg),
        Err((layer, reason)) => Decoded::Other { layer, reason },
    }
}

/// [`decode`] into a segment the caller keeps and reuses frame after frame, so no
/// segment is built and moved per frame. On `Ok` every field of `seg` is this frame's;
/// on `Err` (where decoding stopped, and why) `seg` holds no meaning.
#[inline]
pub fn decode_into(linktype: u32, data: &[u8], origlen: u32, seg: &mut TcpSegment) -> Result<(), (Layer, StopReason)> {
    let span = Span {
        data,
        wire: (origlen as usize).max(data.len()),
    };
    link::link(linktype, span, seg).map_err(|Stop { layer, reason }| (layer, reason))
}

/// The bytes of one layer onwards: what was captured (`data`) and how many bytes the
/// layer occupied on the wire (`wire`, never less than `data.len()`). Lower layers shrink
/// `wire` to the length they declare (IP total length, UDP length), as Wireshark shrinks
/// its tvb, so Ethernet padding never counts as payload.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span<'a> {
    pub data: &'a [u8],
    pub wire: usize,
}

impl<'a> Span<'a> {
    /// Fails with `Truncated` unless `n` bytes of this layer were captured.
    #[inline(always)]
    pub fn need(&self, n: usize, layer: Layer) -> Result<(), Stop> {
        if self.data.len() < n {
            return Err(Stop::truncated(layer, n, self.data.len()));
        }
        Ok(())
    }

    /// Skips a header of `n` bytes. Callers have checked `n <= data.len()` with `need`;
    /// the `get` keeps this panic-free even if one forgets.
    #[inline(always)]
    pub fn advance(self, n: usize) -> Span<'a> {
        Span {
            data: self.data.get(n..).unwrap_or(&[]),
            wire: self.wire.saturating_sub(n),
        }
    }

    /// Shrinks the layer to `len` bytes on the wire (a declared length); never grows it.
    #[inline(always)]
    pub fn limit(self, len: usize) -> Span<'a> {
        let wire = self.wire.min(len);
        Span {
            data: &self.data[..self.data.len().min(wire)],
            wire,
        }
    }
}

/// Why and where decoding stopped (the `Other` half of [`Decoded`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stop {
    pub layer: Layer,
    pub reason: StopReason,
}

impl Stop {
    #[cold]
    pub fn truncated(layer: Layer, needed: usize, available: usize) -> Stop {
        Stop {
            layer,
            reason: StopReason::Truncated { needed, available },
        }
    }
    #[cold]
    pub fn malformed(layer: Layer, why: &'static str) -> Stop {
        Stop {
            layer,
            reason: StopReason::Malformed(why),
        }
    }
    #[cold]
    pub fn not_tcp(layer: Layer) -> Stop {
        Stop {
            layer,
            reason: StopReason::NotTcp,
        }
    }
}

/// What every layer returns: the innermost segment was written to the layer's `out`, or
/// where decoding stopped.
pub(crate) type Step = Result<(), Stop>;

/// Big-endian reads at fixed offsets. Callers check the length first; with the offset a
/// constant the compiler then drops the bounds check.
#[inline(always)]
pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline(always)]
pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// An IP address pair as decoded, kept compact: IPv4 addresses are stored IPv4-mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Addr(pub [u8; 16]);

impl Addr {
    pub fn v4(b: [u8; 4]) -> Addr {
        let mut a = [0u8; 16];
        a[10] = 0xff;
        a[11] = 0xff;
        a[12..].copy_from_slice(&b);
        Addr(a)
    }
    pub fn v6(b: [u8; 16]) -> Addr {
        Addr(b)
    }
    pub fn to_ip(&self) -> IpAddr {
        let v6 = std::net::Ipv6Addr::from(self.0);
        match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        }
    }
}

/// TCP header flag bits as in the header's 12 flag bits (`tcp.flags` in Wireshark).
pub mod flags {
    pub const FIN: u16 = 0x001;
    pub const SYN: u16 = 0x002;
    pub const RST: u16 = 0x004;
    pub const PSH: u16 = 0x008;
    pub const ACK: u16 = 0x010;
    pub const URG: u16 = 0x020;
    pub const ECE: u16 = 0x040;
    pub const CWR: u16 = 0x080;
    pub const AE: u16 = 0x100;
}

/// A decoded TCP segment with the IP facts the analysis needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TcpSegment {
    pub src: Addr,
    pub dst: Addr,
    pub ip_version: u8,
    /// IPv4 TOS / IPv6 traffic class; the low two bits are ECN.
    pub tos: u8,
    pub ttl: u8,
    /// IPv4 identification (0 for IPv6), to tell duplicates from retransmissions.
    pub ip_id: u16,
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    /// 12 flag bits as `tcp.flags` (see [`flags`]).
    pub flags: u16,
    /// The raw 16-bit window field, before any scaling (`tcp.window_size_value`).
    pub window: u16,
    /// TCP header length in bytes (data offset × 4).
    pub header_len: u8,
    /// Payload bytes on the wire, from the IP lengths (`tcp.len`). May exceed the MSS for
    /// TSO/GRO super-segments; never derived from the captured length unless the IP length
    /// is zero (TSO on the capturing host), as Wireshark does.
    pub payload_len: u32,
    /// Payload bytes actually present in the capture.
    pub payload_captured: u32,
    pub options: TcpOptions,
    /// Number of tunnel encapsulations removed to reach this segment (0 = not tunnelled).
    pub tunnel_depth: u8,
    /// A header quoted inside an ICMP error, not a segment of the flow: it only takes
    /// part in `tcp.stream` numbering, as in Wireshark.
    pub in_icmp_error: bool,
}

/// Where decoding stopped when no TCP segment came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Link,
    Network,
    Tunnel,
    Transport,
}

/// Why decoding stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// A protocol we do not follow (ARP, UDP without a tunnel, ICMP, ...): not an error.
    NotTcp,
    /// A link type the decoder does not know.
    UnknownLinkType(u32),
    /// The header at this layer is longer than what was captured.
    Truncated { needed: usize, available: usize },
    /// A header field with an impossible value (e.g. IHL < 5, data offset < 5).
    Malformed(&'static str),
    /// A non-first IP fragment, or a first fragment whose TCP header Wireshark would not
    /// dissect without reassembly.
    Fragment,
    /// Payload that cannot be read: IPsec ESP, an 802.11 frame with the Protected bit.
    Encrypted,
}

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Layer::Link => "link-layer",
            Layer::Network => "IP",
            Layer::Tunnel => "tunnel",
            Layer::Transport => "TCP",
        })
    }
}

impl StopReason {
    /// Why decoding stopped at `layer`, in words: "TCP header cut by the snapshot length
    /// (needs 20 bytes, 12 captured)".
    pub fn describe(&self, layer: Layer) -> String {
        match self {
            StopReason::NotTcp => format!("not TCP (at the {layer} layer)"),
            StopReason::UnknownLinkType(lt) => format!("link type {lt} not supported"),
            StopReason::Truncated { needed, available } => {
                format!("{layer} header cut by the snapshot length (needs {needed} bytes, {available} captured)")
            }
            StopReason::Malformed(what) => what.to_string(),
            StopReason::Fragment => "IP fragment (not reassembled)".to_string(),
            StopReason::Encrypted => format!("encrypted payload (at the {layer} layer)"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    Tcp(TcpSegment),
    Other { layer: Layer, reason: StopReason },
}

//! User Datagram Protocol header (RFC 768), followed only to reach UDP tunnels.

use super::{enter, geneve, gtp, vxlan};
use crate::decode::{be16, Layer, Span, Step, Stop, TcpSegment};

const SRC_PORT: usize = 0; // ..2
const DST_PORT: usize = 2; // ..4
const LENGTH: usize = 4; // ..6
const HEADER_LEN: usize = 8;

/// IANA-assigned tunnel ports.
const PORT_VXLAN: u16 = 4789;
const PORT_VXLAN_GPE: u16 = 4790;
const PORT_GENEVE: u16 = 6081;
const PORT_GTP_U: u16 = 2152;

#[inline]
pub(crate) fn udp(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(HEADER_LEN, Layer::Transport)?;
    let (sport, dport) = (be16(span.data, SRC_PORT), be16(span.data, DST_PORT));
    let len = match be16(span.data, LENGTH) as usize {
        0 => span.wire, // jumbogram (RFC 2675 §4) or offloaded length
        n if n < HEADER_LEN => return Err(Stop::malformed(Layer::Transport, "UDP length below 8")),
        n => n,
    };
    let payload = span.limit(len).advance(HEADER_LEN);
    // Wireshark tries the lower port first; tunnels sit on the well-known side.
    for port in [sport.min(dport), sport.max(dport)] {
        match port {
            PORT_VXLAN => return vxlan::vxlan(payload, enter(depth)?, out),
            PORT_VXLAN_GPE => return vxlan::vxlan_gpe(payload, enter(depth)?, out),
            PORT_GENEVE => return geneve::geneve(payload, enter(depth)?, out),
            PORT_GTP_U => return gtp::gtp_u(payload, enter(depth)?, out),
            _ => {}
        }
    }
    Err(Stop::not_tcp(Layer::Transport))
}

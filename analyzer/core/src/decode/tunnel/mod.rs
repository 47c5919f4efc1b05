//! Tunnels: encapsulations whose payload is another link-layer frame or IP datagram.
//! We analyse the *innermost* TCP segment; `TcpSegment::tunnel_depth` counts the
//! encapsulations removed on the way (IP-in-IP, 6in4, GRE, VXLAN, Geneve, GTP-U: one
//! each).
//! When tunnels nest, tshark prints one comma-separated value per TCP layer; ours is the
//! last of them.

pub(crate) mod erspan;
pub(crate) mod geneve;
pub(crate) mod gre;
pub(crate) mod gtp;
mod udp;
pub(crate) mod vxlan;

use super::ip::{PROTO_GRE, PROTO_IPV4, PROTO_IPV6, PROTO_UDP};
use super::{ipv4, ipv6, Layer, Span, Step, Stop, TcpSegment, MAX_TUNNEL_DEPTH};

/// An IP payload that may be a tunnel: IPv4-in-IP (RFC 2003), IPv6-in-IPv4 (RFC 4213,
/// "6in4") or IPv6-in-IPv6 (RFC 2473), GRE, or UDP carrying VXLAN/Geneve/GTP-U.
/// Never inlined: the layers above are (`link.rs`), and this call ends that chain.
#[inline(never)]
pub(crate) fn by_protocol(proto: u8, span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    match proto {
        PROTO_UDP => udp::udp(span, depth, out),
        PROTO_IPV4 => ipv4::ipv4(span, enter(depth)?, out),
        PROTO_IPV6 => ipv6::ipv6(span, enter(depth)?, out),
        PROTO_GRE => gre::gre(span, depth, out),
        _ => Err(Stop::not_tcp(Layer::Transport)),
    }
}

/// The depth inside one more tunnel; refuses to go past [`MAX_TUNNEL_DEPTH`], which also
/// bounds recursion (every recursive path passes through here).
#[inline(always)]
pub(crate) fn enter(depth: u8) -> Result<u8, Stop> {
    if depth >= MAX_TUNNEL_DEPTH {
        return Err(Stop::malformed(Layer::Tunnel, "tunnels nested too deep"));
    }
    Ok(depth + 1)
}

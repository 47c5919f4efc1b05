//! IEEE 802.2 LLC with a SNAP header (RFC 1042): how IP rides on 802.3, FDDI and 802.11.

use super::{be16, ethernet, Layer, Span, Step, Stop, TcpSegment};

/// DSAP 0xAA, SSAP 0xAA, control 0x03 (UI), then the SNAP OUI and an EtherType.
const SNAP_SAPS_CONTROL: [u8; 3] = [0xAA, 0xAA, 0x03];
const OUI: usize = 3; // ..6
const ETHERTYPE: usize = 6; // ..8
const SNAP_LEN: usize = 8;
/// OUI 00-00-00 (RFC 1042) and 00-00-F8 (802.1H bridge tunnel) both carry EtherTypes.
const OUI_RFC1042: [u8; 3] = [0, 0, 0];
const OUI_BRIDGE_TUNNEL: [u8; 3] = [0, 0, 0xF8];

#[inline]
pub(crate) fn llc(span: Span<'_>, depth: u8, out: &mut TcpSegment) -> Step {
    span.need(SNAP_LEN, Layer::Link)?;
    let d = span.data;
    let oui = [d[OUI], d[OUI + 1], d[OUI + 2]];
    if d[..3] != SNAP_SAPS_CONTROL || (oui != OUI_RFC1042 && oui != OUI_BRIDGE_TUNNEL) {
        // Plain LLC (STP, NetBIOS, IPX...): never TCP.
        return Err(Stop::not_tcp(Layer::Link));
    }
    let et = be16(d, ETHERTYPE);
    if et <= 1500 {
        return Err(Stop::not_tcp(Layer::Link));
    }
    ethernet::ethertype(et, span.advance(SNAP_LEN), depth, out)
}

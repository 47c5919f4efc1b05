//! The direction-free IP flow of a captured frame (protocol, the two address/port
//! endpoints in sorted order), found through Ethernet, 802.11 data or raw IP framing.
//!
//! Used only to choose one observation point per flow; anything unparsed is `None`.

/// LINKTYPE_ETHERNET, LINKTYPE_IEEE802_11, LINKTYPE_RAW.
pub const LINKTYPE_ETHERNET: u32 = 1;
pub const LINKTYPE_RAW: u32 = 101;
pub const LINKTYPE_IEEE802_11: u32 = 105;

/// Protocol and the two endpoints, smaller first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub protocol: u8,
    pub a: ([u8; 16], u16),
    pub b: ([u8; 16], u16),
}

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86DD;
const ETHERTYPE_VLAN: u16 = 0x8100;
const ETHERTYPE_QINQ: u16 = 0x88A8;

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The IP packet inside a frame of `linktype`, with its ethertype (IPv4 or IPv6 only).
pub fn ip_packet(linktype: u32, frame: &[u8]) -> Option<(u16, &[u8])> {
    let (ethertype, ip) = match linktype {
        LINKTYPE_ETHERNET => {
            let mut at = 12;
            let mut t = be16(frame, at)?;
            while t == ETHERTYPE_VLAN || t == ETHERTYPE_QINQ {
                at += 4;
                t = be16(frame, at)?;
            }
            (t, frame.get(at + 2..)?)
        }
        LINKTYPE_IEEE802_11 => dot11_payload(frame)?,
        LINKTYPE_RAW => match frame.first()? >> 4 {
            4 => (ETHERTYPE_IPV4, frame),
            6 => (ETHERTYPE_IPV6, frame),
            _ => return None,
        },
        _ => return None,
    };
    matches!(ethertype, ETHERTYPE_IPV4 | ETHERTYPE_IPV6).then_some((ethertype, ip))
}

/// The flow of a frame of `linktype`, if it carries IPv4 or IPv6.
pub fn flow_key(linktype: u32, frame: &[u8]) -> Option<FlowKey> {
    let (ethertype, ip) = ip_packet(linktype, frame)?;
    let (protocol, src, dst, l4) = match ethertype {
        ETHERTYPE_IPV4 => {
            let ihl = (*ip.first()? & 0x0F) as usize * 4;
            let frag_offset = be16(ip, 6)? & 0x1FFF;
            let mut s = [0u8; 16];
            let mut d = [0u8; 16];
            s[..4].copy_from_slice(ip.get(12..16)?);
            d[..4].copy_from_slice(ip.get(16..20)?);
            let l4 = if frag_offset == 0 { ip.get(ihl..) } else { None };
            (*ip.get(9)?, s, d, l4)
        }
        ETHERTYPE_IPV6 => {
            let mut s = [0u8; 16];
            let mut d = [0u8; 16];
            s.copy_from_slice(ip.get(8..24)?);
            d.copy_from_slice(ip.get(24..40)?);
            let (mut next, mut at) = (*ip.get(6)?, 40usize);
            // Hop-by-hop, routing and destination options: skip to the transport header.
            while matches!(next, 0 | 43 | 60) {
                next = *ip.get(at)?;
                at += (*ip.get(at + 1)? as usize + 1) * 8;
            }
            (next, s, d, ip.get(at..))
        }
        _ => return None,
    };
    let ports = match (protocol, l4) {
        (6 | 17 | 132, Some(t)) => be16(t, 0).zip(be16(t, 2)),
        _ => None,
    };
    let (sp, dp) = ports.unwrap_or((0, 0));
    let (x, y) = ((src, sp), (dst, dp));
    let (a, b) = if x <= y { (x, y) } else { (y, x) };
    Some(FlowKey { protocol, a, b })
}

/// True when `f` parses as an 802.11 data frame carrying LLC/SNAP.
pub fn is_dot11_data(f: &[u8]) -> bool {
    dot11_payload(f).is_some()
}

/// True when `f` looks like an Ethernet II frame carrying IPv4, IPv6, ARP or a VLAN tag
/// (the ethertype at 12 and, for IP, the version nibble agree).
pub fn is_ethernet(f: &[u8]) -> bool {
    matches!(
        (be16(f, 12), f.get(14).map(|b| b >> 4)),
        (Some(ETHERTYPE_IPV4), Some(4))
            | (Some(ETHERTYPE_IPV6), Some(6))
            | (Some(0x0806 | ETHERTYPE_VLAN | ETHERTYPE_QINQ | 0x888E | 0x88CC), _)
    )
}

/// Ethertype and payload of an 802.11 data frame with an LLC/SNAP header.
fn dot11_payload(f: &[u8]) -> Option<(u16, &[u8])> {
    let fc0 = *f.first()?;
    let fc1 = *f.get(1)?;
    let (ftype, subtype) = ((fc0 >> 2) & 3, fc0 >> 4);
    if ftype != 2 || subtype & 0x4 != 0 {
        return None; // not data, or a null-data frame
    }
    let mut at = 24;
    if fc1 & 0x03 == 0x03 {
        at += 6; // four-address frame
    }
    if subtype & 0x8 != 0 {
        at += 2; // QoS control
        if fc1 & 0x80 != 0 {
            at += 4; // HT control
        }
    }
    let llc = f.get(at..at + 8)?;
    if llc[..6] != [0xAA, 0xAA, 0x03, 0x00, 0x00, 0x00] {
        return None;
    }
    Some((u16::from_be_bytes([llc[6], llc[7]]), f.get(at + 8..)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions_share_one_key() {
        let mut ip = vec![0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        ip.extend_from_slice(&[0x04, 0xD2, 0x00, 0x50]); // 1234 → 80
        let mut rev = ip.clone();
        rev[12..20].copy_from_slice(&[10, 0, 0, 2, 10, 0, 0, 1]);
        rev[20..24].copy_from_slice(&[0x00, 0x50, 0x04, 0xD2]);
        let k = flow_key(LINKTYPE_RAW, &ip).unwrap();
        assert_eq!(Some(k), flow_key(LINKTYPE_RAW, &rev));
        let mut eth = vec![0u8; 12];
        eth.extend_from_slice(&[0x81, 0x00, 0, 5, 0x08, 0x00]);
        eth.extend_from_slice(&ip);
        assert_eq!(Some(k), flow_key(LINKTYPE_ETHERNET, &eth));
        let mut wifi = vec![0x88, 0x02];
        wifi.extend_from_slice(&[0u8; 24]);
        wifi.extend_from_slice(&[0xAA, 0xAA, 3, 0, 0, 0, 0x08, 0x00]);
        wifi.extend_from_slice(&ip);
        assert_eq!(Some(k), flow_key(LINKTYPE_IEEE802_11, &wifi));
        assert_eq!(flow_key(LINKTYPE_RAW, &ip[..10]), None);
    }
}

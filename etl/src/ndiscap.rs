//! Microsoft-Windows-NDIS-PacketCapture (ndiscap, `netsh trace capture=yes`): packet
//! fragments (1001), Wi-Fi receive metadata (1002) and Hyper-V switch fragments (1003).
//!
//! The event keyword carries the media and the framing of a packet across events:
//! a packet is the fragments from one with `PACKET_START` to one with `PACKET_END`
//! (Windows 8.1 and later log every packet as a single event with both).

use std::collections::HashMap;

use crate::builtin::ndis_event;
use crate::flowkey::{LINKTYPE_ETHERNET, LINKTYPE_IEEE802_11, LINKTYPE_RAW};
use crate::packet::{Direction, Observation, PacketEvent, WlanMetadata};
use crate::schema::Fields;

/// Keyword bits of the ndiscap manifest.
pub mod keyword {
    pub const MEDIA_WIRELESS_WAN: u64 = 0x200;
    pub const MEDIA_NATIVE_802_11: u64 = 0x1_0000;
    pub const PACKET_START: u64 = 0x4000_0000;
    pub const PACKET_END: u64 = 0x8000_0000;
    pub const SEND: u64 = 0x1_0000_0000;
    pub const RECEIVE: u64 = 0x2_0000_0000;
}

/// Largest packet reassembled; longer ones are dropped (etl2pcapng's limit too).
pub const MAX_PACKET: usize = 65_535;
/// Unfinished packets kept at once; more means the END events are missing.
const MAX_PENDING: usize = 256;

/// Fragments waiting for their `PACKET_END`, keyed by (thread, LowerIfIndex).
#[derive(Debug, Default)]
pub struct Reassembly {
    pending: HashMap<(u32, u32), Vec<u8>>,
    /// The last 1002 metadata, attached to the next packet (as etl2pcapng does).
    wlan: Option<WlanMetadata>,
}

/// Media keyword → LINKTYPE: mobile broadband is raw IP, native Wi-Fi is 802.11.
pub fn linktype(kw: u64) -> u32 {
    if kw & keyword::MEDIA_NATIVE_802_11 != 0 {
        LINKTYPE_IEEE802_11
    } else if kw & keyword::MEDIA_WIRELESS_WAN != 0 {
        LINKTYPE_RAW
    } else {
        LINKTYPE_ETHERNET
    }
}

impl Reassembly {
    /// Feeds one ndiscap event; returns a packet when one is complete.
    pub fn event(&mut self, id: u16, kw: u64, thread_id: u32, f: &Fields<'_, '_>) -> Result<Option<PacketEvent>, &'static str> {
        let lower = f.uint("LowerIfIndex").ok_or("LowerIfIndex missing")? as u32;
        let miniport = f.uint("MiniportIfIndex").unwrap_or(lower as u64) as u32;
        if id == ndis_event::PACKET_METADATA {
            self.wlan = f.bytes("Metadata").and_then(WlanMetadata::parse);
            return Ok(None);
        }
        let fragment = f.bytes("Fragment").ok_or("Fragment missing")?;
        let key = (thread_id, lower);
        let mut data = self.pending.remove(&key).unwrap_or_default();
        if kw & keyword::PACKET_START != 0 {
            data.clear();
        }
        if data.len() + fragment.len() > MAX_PACKET {
            return Err("reassembled packet longer than 65535 bytes");
        }
        data.extend_from_slice(fragment);
        if kw & keyword::PACKET_END == 0 {
            if self.pending.len() >= MAX_PENDING {
                self.pending.clear(); // END events missing: forget stale fragments
            }
            self.pending.insert(key, data);
            return Ok(None);
        }
        let linktype = linktype(kw);
        if linktype == LINKTYPE_IEEE802_11 && data.len() > 1 {
            // ndiscap logs Wi-Fi frames decrypted: clear Protected so readers don't decrypt.
            data[1] &= !0x40;
        }
        let observation = if id == ndis_event::VMSWITCH_PACKET_FRAGMENT {
            let (vlan_id, rss_hash) = f.bytes("OOBData").map(oob_vlan_and_hash).unwrap_or((0, 0));
            Observation::VmSwitch {
                miniport_if_index: miniport,
                lower_if_index: lower,
                source_port_id: f.uint("SourcePortId").unwrap_or(0) as u32,
                source_port_name: f.string("SourcePortName").unwrap_or_default(),
                source_nic_name: f.string("SourceNicName").unwrap_or_default(),
                source_nic_type: f.string("SourceNicType").unwrap_or_default(),
                vlan_id,
                destination_count: f.uint("DestinationCount").unwrap_or(0) as u32,
                rss_hash,
            }
        } else {
            Observation::Ndis { miniport_if_index: miniport, lower_if_index: lower }
        };
        let direction = if kw & keyword::SEND != 0 {
            Direction::Outbound
        } else if kw & keyword::RECEIVE != 0 {
            Direction::Inbound
        } else {
            Direction::Unknown
        };
        Ok(Some(PacketEvent {
            origlen: inferred_length(linktype, &data).max(data.len() as u32),
            data,
            linktype,
            direction,
            observation,
            packet_id: None,
            drop: None,
            wlan: self.wlan.take(),
            relabelled: false,
        }))
    }
}

/// ndiscap does not record truncation: recover the wire length from the IP header
/// (total length for IPv4, payload length + 40 for IPv6), plus the link header.
pub fn inferred_length(linktype: u32, d: &[u8]) -> u32 {
    let be = |at: usize| d.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]) as u32);
    let ip_at = match linktype {
        LINKTYPE_ETHERNET => match be(12) {
            Some(0x0800) | Some(0x86DD) => 14,
            _ => return 0,
        },
        LINKTYPE_RAW => 0,
        _ => return 0,
    };
    match d.get(ip_at).map(|b| b >> 4) {
        Some(4) if d.len() >= ip_at + 20 => be(ip_at + 2).map_or(0, |n| n + ip_at as u32),
        Some(6) if d.len() >= ip_at + 40 => be(ip_at + 4).map_or(0, |n| n + 40 + ip_at as u32),
        _ => 0,
    }
}

/// VLAN id and RSS hash from a NET_BUFFER_LIST info array (`NetBufferListInfo[]`, one
/// 8-byte slot per entry): slot 4 `Ieee8021QNetBufferListInfo` (VLAN id in bits 4–15),
/// slot 8 `NetBufferListHashValue`.
fn oob_vlan_and_hash(oob: &[u8]) -> (u16, u32) {
    const SLOT: usize = 8;
    const IEEE8021Q: usize = 4;
    const HASH_VALUE: usize = 8;
    let slot = |i: usize| oob.get(i * SLOT..i * SLOT + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).unwrap_or(0);
    (((slot(IEEE8021Q) >> 4) & 0xFFF) as u16, slot(HASH_VALUE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_ipv4_recovers_wire_length() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0, 0x05, 0xDC]);
        f.resize(60, 0);
        assert_eq!(inferred_length(LINKTYPE_ETHERNET, &f), 1500 + 14);
        // raw IP: no link header to add (etl2pcapng adds 14 here, a known bug).
        assert_eq!(inferred_length(LINKTYPE_RAW, &f[14..]), 1500);
    }
}

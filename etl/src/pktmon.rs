//! Microsoft-Windows-PktMon events: packet logs (160), drops (170) and the component
//! rundown (20, 30, 65, 66, 70, 73) that names the stack components packets cross.
//!
//! PktMon logs a packet once per component it crosses, all copies sharing `PktGroupId`
//! and numbered by `AppearanceCount`. `PacketType` gives the framing: 1 Ethernet,
//! 2 Wi-Fi (802.11 frames), 3 IP (no link header); other types are not frames.

use std::collections::BTreeMap;

use crate::builtin::{pktmon_event, PKTMON};
use crate::flowkey::{self, LINKTYPE_ETHERNET, LINKTYPE_IEEE802_11, LINKTYPE_RAW};
use crate::packet::{Direction, DropInfo, Observation, PacketEvent};
use crate::schema::{Fields, ValueMaps};

/// A stack component as the rundown events describe it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Component {
    pub id: u16,
    /// `ComponentType` map value (1 NDIS, 2 Miniport, 3 Filter, 4 Protocol, …).
    pub kind: u16,
    pub name: String,
    pub description: String,
    pub mac: Option<Vec<u8>>,
    pub ipv4: Vec<[u8; 4]>,
    pub ipv6: Vec<[u8; 16]>,
    /// (`PropertyType`, value) pairs of event 30 (IfIndex, MiniportIfIndex, NdisMedium …).
    pub properties: Vec<(u16, u32)>,
    pub vmswitch_name: Option<String>,
}

/// PktMon `PacketType` → LINKTYPE, as etl2pcapng maps it.
pub fn linktype(packet_type: u16) -> Option<u32> {
    match packet_type {
        1 => Some(LINKTYPE_ETHERNET),
        2 => Some(LINKTYPE_IEEE802_11),
        3 => Some(LINKTYPE_RAW),
        _ => None,
    }
}

/// `PacketDirectionTag` → direction: In/Rx/Ingress travel up from the wire.
pub fn direction(dir_tag: u16) -> Direction {
    match dir_tag {
        1 | 3 | 5 => Direction::Inbound,
        2 | 4 | 6 => Direction::Outbound,
        _ => Direction::Unknown,
    }
}

/// Turns a 160 or 170 event into a packet; `None` for non-frame packet types.
pub fn packet(id: u16, f: &Fields<'_, '_>, maps: &ValueMaps) -> Result<Option<PacketEvent>, &'static str> {
    let u16f = |n: &str| f.uint(n).map(|v| v as u16).ok_or("PktMon packet field missing");
    let packet_type = u16f("PacketType")?;
    let Some(mut linktype) = linktype(packet_type) else {
        return Ok(None);
    };
    let payload = f.bytes("Payload").ok_or("PktMon payload missing")?;
    // Components above a native Wi-Fi miniport log Ethernet frames still typed "WiFi".
    let relabelled = linktype == LINKTYPE_IEEE802_11 && !flowkey::is_dot11_data(payload) && flowkey::is_ethernet(payload);
    if relabelled {
        linktype = LINKTYPE_ETHERNET;
    }
    let original = f.uint("OriginalPayloadSize").unwrap_or(payload.len() as u64) as u32;
    let dir_tag = u16f("DirTag")?;
    let drop = (id == pktmon_event::PACKET_DROP).then(|| {
        let reason = f.uint("DropReason").unwrap_or(0) as u32;
        let location = f.uint("DropLocation").unwrap_or(0) as u32;
        DropInfo {
            reason,
            location,
            reason_name: maps.lookup(PKTMON, "DropReason", reason).map(str::to_string),
            location_name: maps.lookup(PKTMON, "DropLocation", location).map(str::to_string),
        }
    });
    Ok(Some(PacketEvent {
        data: payload.to_vec(),
        origlen: original.max(payload.len() as u32),
        linktype,
        direction: direction(dir_tag),
        observation: Observation::PktMon {
            component: u16f("ComponentId")?,
            edge: u16f("EdgeId").unwrap_or(0),
            filter: u16f("FilterId").unwrap_or(0),
            dir_tag,
            appearance: u16f("AppearanceCount").unwrap_or(0),
            packet_number: u16f("PktNumber").unwrap_or(0),
        },
        packet_id: f.uint("PktGroupId"),
        drop,
        wlan: None,
        relabelled,
    }))
}

/// Applies a component rundown event to the component table; ignores other ids.
pub fn component_event(id: u16, f: &Fields<'_, '_>, components: &mut BTreeMap<u16, Component>) {
    let key = if id == pktmon_event::COMPONENT { "Id" } else { "ComponentId" };
    let Some(cid) = f.uint(key).map(|v| v as u16) else { return };
    let c = components.entry(cid).or_insert_with(|| Component { id: cid, ..Component::default() });
    match id {
        pktmon_event::COMPONENT => {
            c.kind = f.uint("Type").unwrap_or(0) as u16;
            c.name = f.string("Name").unwrap_or_default();
            c.description = f.string("Description").unwrap_or_default();
        }
        pktmon_event::COMPONENT_PROPERTY => {
            if let (Some(t), Some(v)) = (f.uint("Type"), f.uint("Value")) {
                if c.properties.len() < 64 {
                    c.properties.push((t as u16, v as u32));
                }
            }
        }
        pktmon_event::COMPONENT_IPV4 => {
            if let Some(a) = f.bytes("IpAddress").and_then(|b| <[u8; 4]>::try_from(b).ok()) {
                if !c.ipv4.contains(&a) && c.ipv4.len() < 64 {
                    c.ipv4.push(a);
                }
            }
        }
        pktmon_event::COMPONENT_IPV6 => {
            if let Some(a) = f.bytes("IpAddress").and_then(|b| <[u8; 16]>::try_from(b).ok()) {
                if !c.ipv6.contains(&a) && c.ipv6.len() < 64 {
                    c.ipv6.push(a);
                }
            }
        }
        pktmon_event::COMPONENT_HW_ADDR => c.mac = f.bytes("Value").map(<[u8]>::to_vec),
        pktmon_event::COMPONENT_VMSWITCH_NAME => c.vmswitch_name = f.string("Value"),
        _ => {}
    }
}

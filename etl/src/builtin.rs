//! Providers this crate knows, and built-in layouts of their packet events for files
//! that carry no embedded schema (sessions written directly, e.g. `netsh trace`).
//!
//! The PktMon layouts equal the `TRACE_EVENT_INFO` embedded in every corpus file
//! (Windows builds 19042–26200, all version 0). The NDIS-PacketCapture layouts follow the
//! provider's manifest field order (MiniportIfIndex, LowerIfIndex, FragmentSize, Fragment …).
//! An embedded schema always wins over these.

use crate::bytes::Guid;
use crate::schema::{in_type::*, Amount, Property, Schema};

/// Microsoft-Windows-NDIS-PacketCapture (ndiscap, `netsh trace capture=yes`).
pub const NDIS_PACKET_CAPTURE: Guid =
    Guid::from_fields(0x2ED6006E, 0x4729, 0x4609, [0xB4, 0x23, 0x3E, 0xE7, 0xBC, 0xD6, 0x78, 0xEF]);
/// Microsoft-Windows-PktMon.
pub const PKTMON: Guid = Guid::from_fields(0x4D4F80D9, 0xC8BD, 0x4D73, [0xBB, 0x5B, 0x19, 0xC9, 0x04, 0x02, 0xC5, 0xAC]);
/// Microsoft-Windows-TCPIP.
pub const TCPIP: Guid = Guid::from_fields(0x2F07E2EE, 0x15DB, 0x40F1, [0x90, 0xEF, 0x9D, 0x7B, 0xA2, 0x82, 0x18, 0x8A]);

/// NDIS-PacketCapture event ids.
pub mod ndis_event {
    pub const PACKET_FRAGMENT: u16 = 1001;
    pub const PACKET_METADATA: u16 = 1002;
    pub const VMSWITCH_PACKET_FRAGMENT: u16 = 1003;
}

/// PktMon event ids.
pub mod pktmon_event {
    pub const COMPONENT: u16 = 20;
    pub const COMPONENT_PROPERTY: u16 = 30;
    pub const COMPONENT_GUID: u16 = 40;
    pub const COMPONENT_IPV4: u16 = 65;
    pub const COMPONENT_IPV6: u16 = 66;
    pub const COMPONENT_HW_ADDR: u16 = 70;
    pub const COMPONENT_VMSWITCH_NAME: u16 = 73;
    pub const PACKET_FILTER: u16 = 100;
    pub const PACKET: u16 = 160;
    pub const PACKET_DROP: u16 = 170;
}

/// Length of a property in a built-in layout.
enum L {
    /// Implied by the type (integers) or NUL-terminated (strings).
    Implied,
    Fixed(u16),
    /// Given by the property at this index.
    From(u16),
}

fn schema(provider: Guid, id: u16, props: &[(&str, u16, L)]) -> Schema {
    let properties: Vec<Property> = props
        .iter()
        .map(|(name, t, l)| Property {
            name: name.to_string(),
            in_type: *t,
            out_type: 0,
            count: Amount::Fixed(1),
            length: match l {
                L::Implied => Amount::Fixed(0),
                L::Fixed(n) => Amount::Fixed(*n),
                L::From(i) => Amount::FromProperty(*i),
            },
            members: None,
            map_name: None,
        })
        .collect();
    Schema {
        provider,
        id,
        version: 0,
        provider_name: String::new(),
        task_name: String::new(),
        top_level: properties.len(),
        properties,
    }
}

/// Layouts used when the file embeds none for that (provider, id).
pub fn schemas() -> Vec<Schema> {
    use L::*;
    let pktmon_packet = [
        ("PktGroupId", UINT64, Implied),
        ("PktNumber", UINT16, Implied),
        ("AppearanceCount", UINT16, Implied),
        ("DirTag", UINT16, Implied),
        ("PacketType", UINT16, Implied),
        ("ComponentId", UINT16, Implied),
        ("EdgeId", UINT16, Implied),
        ("FilterId", UINT16, Implied),
        ("DropReason", UINT32, Implied),
        ("DropLocation", UINT32, Implied),
        ("OriginalPayloadSize", UINT16, Implied),
        ("LoggedPayloadSize", UINT16, Implied),
        ("Payload", BINARY, From(11)),
    ];
    let comp = |rest: (&'static str, u16, L)| [("ComponentId", UINT16, Implied), ("Type", UINT16, Implied), rest];
    vec![
        schema(PKTMON, pktmon_event::PACKET, &pktmon_packet),
        schema(PKTMON, pktmon_event::PACKET_DROP, &pktmon_packet),
        schema(
            PKTMON,
            pktmon_event::COMPONENT,
            &[("Id", UINT16, Implied), ("Type", UINT16, Implied), ("Name", UNICODESTRING, Implied), ("Description", UNICODESTRING, Implied)],
        ),
        schema(PKTMON, pktmon_event::COMPONENT_PROPERTY, &comp(("Value", UINT32, Implied))),
        schema(PKTMON, pktmon_event::COMPONENT_IPV4, &comp(("IpAddress", UINT32, Implied))),
        schema(PKTMON, pktmon_event::COMPONENT_IPV6, &comp(("IpAddress", BINARY, Fixed(16)))),
        schema(
            PKTMON,
            pktmon_event::COMPONENT_HW_ADDR,
            &[("ComponentId", UINT16, Implied), ("Type", UINT16, Implied), ("Size", UINT32, Implied), ("Value", BINARY, From(2))],
        ),
        schema(PKTMON, pktmon_event::COMPONENT_VMSWITCH_NAME, &comp(("Value", UNICODESTRING, Implied))),
        schema(
            NDIS_PACKET_CAPTURE,
            ndis_event::PACKET_FRAGMENT,
            &[
                ("MiniportIfIndex", UINT32, Implied),
                ("LowerIfIndex", UINT32, Implied),
                ("FragmentSize", UINT32, Implied),
                ("Fragment", BINARY, From(2)),
            ],
        ),
        schema(
            NDIS_PACKET_CAPTURE,
            ndis_event::PACKET_METADATA,
            &[
                ("MiniportIfIndex", UINT32, Implied),
                ("LowerIfIndex", UINT32, Implied),
                ("MetadataSize", UINT32, Implied),
                ("Metadata", BINARY, From(2)),
            ],
        ),
        schema(
            NDIS_PACKET_CAPTURE,
            ndis_event::VMSWITCH_PACKET_FRAGMENT,
            &[
                ("MiniportIfIndex", UINT32, Implied),
                ("LowerIfIndex", UINT32, Implied),
                ("SourcePortId", UINT32, Implied),
                ("SourcePortName", UNICODESTRING, Implied),
                ("SourceNicName", UNICODESTRING, Implied),
                ("SourceNicType", UNICODESTRING, Implied),
                ("DestinationCount", UINT32, Implied),
                ("FragmentSize", UINT32, Implied),
                ("Fragment", BINARY, From(7)),
            ],
        ),
    ]
}

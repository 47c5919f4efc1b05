//! A packet as the ETL packet providers describe it, before it becomes a frame.

/// Which way the packet travelled, as pcapng `epb_flags` bits 0–1 encode it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    #[default]
    Unknown,
    Inbound,
    Outbound,
}

impl Direction {
    /// `epb_flags` direction bits: 0 unknown, 1 inbound, 2 outbound.
    pub fn epb_flags(self) -> u32 {
        match self {
            Direction::Unknown => 0,
            Direction::Inbound => 1,
            Direction::Outbound => 2,
        }
    }
}

/// Where in the network stack the packet was logged.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Observation {
    /// A PktMon component (a miniport, filter or protocol binding) and its edge.
    PktMon {
        component: u16,
        edge: u16,
        filter: u16,
        /// `PacketDirectionTag`: 1 In, 2 Out, 3 Rx, 4 Tx, 5 Ingress, 6 Egress.
        dir_tag: u16,
        /// 1 for the first component that logged this packet, 2 for the next, …
        appearance: u16,
        packet_number: u16,
    },
    /// An NDIS interface: the miniport and the (filter) interface above it that logged.
    Ndis { miniport_if_index: u32, lower_if_index: u32 },
    /// A Hyper-V switch port (event 1003).
    VmSwitch { lower_if_index: u32, source_port_id: u32, source_port_name: String, source_nic_name: String },
}

impl Observation {
    /// A number identifying the observation point within its provider.
    pub fn point(&self) -> u32 {
        match self {
            Observation::PktMon { component, .. } => *component as u32,
            Observation::Ndis { lower_if_index, .. } => *lower_if_index,
            Observation::VmSwitch { source_port_id, .. } => *source_port_id,
        }
    }
}

/// A PktMon drop (event 170): why and where the stack discarded the packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropInfo {
    pub reason: u32,
    pub location: u32,
    /// From the file's `DropReason` value map, when present.
    pub reason_name: Option<String>,
    pub location_name: Option<String>,
}

/// One complete packet (fragments already joined) with its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketEvent {
    pub data: Vec<u8>,
    /// Length on the wire; larger than `data.len()` when the capture truncated it.
    pub origlen: u32,
    pub linktype: u32,
    pub direction: Direction,
    pub observation: Observation,
    pub packet_id: Option<u64>,
    pub drop: Option<DropInfo>,
    /// Extra text for the frame comment (e.g. Wi-Fi receive metadata).
    pub note: Option<String>,
    /// A PktMon "WiFi" packet whose bytes are an Ethernet frame, given LINKTYPE_ETHERNET.
    pub relabelled: bool,
}

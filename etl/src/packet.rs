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
    /// A Hyper-V switch port (event 1003). `vlan_id` and `rss_hash` come from the event's
    /// NET_BUFFER_LIST out-of-band data, when the schema names it (`OOBData`).
    VmSwitch {
        miniport_if_index: u32,
        lower_if_index: u32,
        source_port_id: u32,
        source_port_name: String,
        source_nic_name: String,
        source_nic_type: String,
        vlan_id: u16,
        destination_count: u32,
        rss_hash: u32,
    },
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
    /// Wi-Fi receive metadata (ndiscap 1002) logged just before this packet.
    pub wlan: Option<WlanMetadata>,
    /// A PktMon "WiFi" packet whose bytes are an Ethernet frame, given LINKTYPE_ETHERNET.
    pub relabelled: bool,
}

/// `DOT11_EXTSTA_RECV_CONTEXT`, as ndiscap logs it in event 1002 (64-bit layout, 48 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WlanMetadata {
    pub receive_flags: u32,
    /// `DOT11_PHY_TYPE`: 4 802.11a … 7 802.11n, 8 802.11ac, 10 802.11ax.
    pub phy_type: u32,
    pub center_frequency_mhz: u32,
    pub mpdus_received: u16,
    pub rssi_dbm: i32,
    pub data_rate: u8,
}

impl WlanMetadata {
    pub const LEN: usize = 48;
    pub const PHY_NAMES: [&'static str; 11] =
        ["Unknown", "FHSS", "DSSS", "IrBaseband", "802.11a", "802.11b", "802.11g", "802.11n", "802.11ac", "802.11ad", "802.11ax"];

    pub fn parse(m: &[u8]) -> Option<WlanMetadata> {
        if m.len() != Self::LEN {
            return None;
        }
        let u32at = |at: usize| u32::from_le_bytes([m[at], m[at + 1], m[at + 2], m[at + 3]]);
        Some(WlanMetadata {
            receive_flags: u32at(4),
            phy_type: u32at(8),
            center_frequency_mhz: u32at(12),
            mpdus_received: u16::from_le_bytes([m[16], m[17]]),
            rssi_dbm: u32at(20) as i32,
            data_rate: m[24],
        })
    }

    pub fn phy_name(&self) -> &'static str {
        Self::PHY_NAMES.get(self.phy_type as usize).copied().unwrap_or("Unknown")
    }

    /// The comment text of the default conversion.
    pub fn describe(&self) -> String {
        format!(
            "Wi-Fi receive: flags 0x{:x}, PHY {}, channel centre {} MHz, {} MPDUs, RSSI {} dBm, rate {}",
            self.receive_flags,
            self.phy_name(),
            self.center_frequency_mhz,
            self.mpdus_received,
            self.rssi_dbm,
            self.data_rate
        )
    }
}

//! What the reader returns: frames with their ETL metadata, interfaces, and options.

use std::collections::BTreeMap;

use tcpdiag_core::ingest::{Frame, FrameOptions};

use crate::packet::{Direction, DropInfo, Observation, PacketEvent, WlanMetadata};
use crate::pktmon::Component;

/// PktMon logs each packet once per component it crosses; which copies to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ObservationFilter {
    /// Every copy (what `pktmon etl2pcap` and etl2pcapng write).
    All,
    /// Per IP flow (both directions), only the observation point that logged the flow's
    /// first packet; non-IP frames share one point. Each packet then appears once, so
    /// copies do not look like retransmissions. The default.
    #[default]
    FirstPerFlow,
    /// Only PktMon copies with `AppearanceCount` 1 (the first component each packet met:
    /// the miniport for received packets, the top of the stack for sent ones).
    FirstAppearance,
    /// Only this observation point (PktMon component id or NDIS LowerIfIndex).
    Point(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderOptions {
    pub observation: ObservationFilter,
    /// Keep PktMon drop events (170) whatever the observation filter says.
    pub keep_drops: bool,
    /// Read the file once for schemas and component names before the first frame.
    pub prescan_metadata: bool,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions { observation: ObservationFilter::default(), keep_drops: true, prescan_metadata: true }
    }
}

/// What one interface stands for: interfaces are one per (key, link type).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InterfaceKey {
    PktMonComponent(u16),
    IfIndex { miniport: u32, lower: u32 },
    VmSwitchPort { lower: u32, port: u32 },
}

impl InterfaceKey {
    pub fn of(o: &Observation) -> InterfaceKey {
        match o {
            Observation::PktMon { component, .. } => InterfaceKey::PktMonComponent(*component),
            Observation::Ndis { miniport_if_index, lower_if_index } => {
                InterfaceKey::IfIndex { miniport: *miniport_if_index, lower: *lower_if_index }
            }
            Observation::VmSwitch { lower_if_index, source_port_id, .. } => {
                InterfaceKey::VmSwitchPort { lower: *lower_if_index, port: *source_port_id }
            }
        }
    }
}

/// An interface for a pcapng IDB: link type, name and addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtlInterface {
    pub id: u32,
    pub key: InterfaceKey,
    pub linktype: u32,
    pub name: String,
    pub description: String,
    pub mac: Option<Vec<u8>>,
    pub ipv4: Vec<[u8; 4]>,
    pub ipv6: Vec<[u8; 16]>,
}

impl EtlInterface {
    pub(crate) fn new(id: u32, key: InterfaceKey, linktype: u32, components: &BTreeMap<u16, Component>) -> Self {
        let mut i =
            EtlInterface { id, key: key.clone(), linktype, name: String::new(), description: String::new(), mac: None, ipv4: vec![], ipv6: vec![] };
        match key {
            InterfaceKey::PktMonComponent(c) => {
                i.name = format!("pktmon:{c}");
                if let Some(comp) = components.get(&c) {
                    i.description = format!("{} {}", comp.name, comp.description).trim().to_string();
                    i.mac = comp.mac.clone();
                    i.ipv4 = comp.ipv4.clone();
                    i.ipv6 = comp.ipv6.clone();
                }
            }
            InterfaceKey::IfIndex { miniport, lower } => {
                i.name = format!("ifindex:{lower}");
                if miniport != lower {
                    i.description = format!("filter over IfIndex {miniport}");
                }
            }
            InterfaceKey::VmSwitchPort { lower, port } => i.name = format!("vmswitch:{lower}:{port}"),
        }
        i
    }
}

/// One packet read from an ETL file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtlFrame {
    /// 1-based, in output order.
    pub number: u64,
    pub ts_ns: i64,
    pub origlen: u32,
    pub interface: u32,
    pub linktype: u32,
    pub data: Vec<u8>,
    /// Direction bits, packet id, drop verdict and a comment naming the observation point.
    pub options: FrameOptions,
    pub direction: Direction,
    pub observation: Observation,
    pub packet_id: Option<u64>,
    pub drop: Option<DropInfo>,
    pub process_id: u32,
    pub thread_id: u32,
    pub processor: u16,
    /// The event's keyword (ndiscap: media, framing and direction bits).
    pub keyword: u64,
    /// A PktMon packet typed Wi-Fi whose bytes are Ethernet, given LINKTYPE 1 here.
    pub relabelled: bool,
    /// Wi-Fi receive metadata (ndiscap 1002) logged just before this packet.
    pub wlan: Option<WlanMetadata>,
}

/// `epb_verdict` as etl2pcapng writes a drop: type 2 (eBPF XDP), value XDP_DROP (1).
pub const VERDICT_DROP: [u8; 9] = [2, 1, 0, 0, 0, 0, 0, 0, 0];

impl EtlFrame {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        number: u64,
        ts_ns: i64,
        interface: u32,
        pe: PacketEvent,
        process_id: u32,
        thread_id: u32,
        processor: u16,
        keyword: u64,
        components: &BTreeMap<u16, Component>,
    ) -> EtlFrame {
        let mut comment = match &pe.observation {
            Observation::PktMon { component, edge, dir_tag, appearance, .. } => {
                let name = components.get(component).map(|c| c.name.as_str()).unwrap_or("");
                let tag = ["None", "In", "Out", "Rx", "Tx", "Ingress", "Egress"].get(*dir_tag as usize).unwrap_or(&"?");
                format!("PktMon component {component} {name} edge {edge} {tag} appearance {appearance}")
            }
            Observation::Ndis { .. } => String::new(),
            Observation::VmSwitch { source_port_id, source_port_name, source_nic_name, source_nic_type, vlan_id, .. } => {
                format!("Hyper-V switch port {source_port_id} {source_port_name} NIC {source_nic_name} ({source_nic_type}) VLAN {vlan_id}")
            }
        };
        if process_id != 0 || thread_id != 0 {
            comment = format!("{comment} PID={process_id} TID={thread_id}").trim().to_string();
        }
        if let Some(d) = &pe.drop {
            let why = d.reason_name.as_deref().unwrap_or("?");
            comment.push_str(&format!("; dropped: {why} (reason {}, location 0x{:x})", d.reason, d.location));
        }
        if let Some(w) = &pe.wlan {
            comment.push_str("; ");
            comment.push_str(&w.describe());
        }
        let options = FrameOptions {
            comments: if comment.is_empty() { vec![] } else { vec![comment] },
            flags: (pe.direction != Direction::Unknown).then(|| pe.direction.epb_flags()),
            packet_id: pe.packet_id,
            verdicts: if pe.drop.is_some() { vec![VERDICT_DROP.to_vec()] } else { vec![] },
            ..FrameOptions::default()
        };
        EtlFrame {
            number,
            ts_ns,
            origlen: pe.origlen,
            interface,
            linktype: pe.linktype,
            data: pe.data,
            options,
            direction: pe.direction,
            observation: pe.observation,
            packet_id: pe.packet_id,
            drop: pe.drop,
            process_id,
            thread_id,
            processor,
            keyword,
            relabelled: pe.relabelled,
            wlan: pe.wlan,
        }
    }

    /// The frame as the ingest pipeline sees pcap and pcapng frames.
    pub fn frame(&self) -> Frame<'_> {
        Frame {
            number: self.number,
            ts_ns: self.ts_ns,
            caplen: self.data.len() as u32,
            origlen: self.origlen,
            interface: self.interface,
            linktype: self.linktype,
            data: &self.data,
            options: Some(&self.options),
        }
    }
}

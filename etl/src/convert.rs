//! ETL → pcapng, written with `tcpdiag_core::ingest::PcapngWriter`, in two modes.
//!
//! * [`Mode::Default`]: one interface per observation point and link type (PktMon
//!   component, NDIS interface, Hyper-V port) named with the component's name, MAC and
//!   addresses; nanosecond timestamps; direction from PktMon's `DirTag`; the wire length
//!   of raw-IP packets from the IP header; every comment kept; PktMon "Wi-Fi" packets that
//!   hold Ethernet frames written as Ethernet. The observation-point filter applies
//!   (`ComponentChoice`), so PktMon copies do not become false retransmissions.
//! * [`Mode::Etl2pcapng`]: what microsoft/etl2pcapng 1.12 writes, for tools that compare
//!   against it: every copy; interfaces keyed and sorted as it does (PktMon: component and
//!   packet type; ndiscap: LowerIfIndex; vNIC: port and VLAN) and named `eth:N:0`,
//!   `wifi:N`, `mbb:N`, `vNIC:…`; snaplen 65535; microsecond timestamps; EPB options
//!   flags, packet id, verdict, process/thread (option 8) and comment in its order — with
//!   its bugs: direction from the ndiscap send keyword (every PktMon packet inbound),
//!   raw-IP original length 14 bytes too long, comments of 256 bytes or more dropped.
//!   Not reproduced: its systemd-journal blocks for non-packet events, and the stale link
//!   type it gives PktMon packets of unknown type (we skip them, as pktmon does).

use std::collections::HashMap;
use std::io::{self, Read, Seek, Write};

use tcpdiag_core::ingest::{IngestError, InterfaceInfo, PcapngWriter, TsResolution};

use crate::flowkey::{LINKTYPE_ETHERNET, LINKTYPE_IEEE802_11, LINKTYPE_RAW};
use crate::frame::{EtlFrame, EtlInterface, ObservationFilter, ReaderOptions, VERDICT_DROP};
use crate::ndiscap::keyword;
use crate::packet::{Observation, WlanMetadata};
use crate::reader::EtlReader;
use crate::source::ComponentChoice;
use crate::stats::EtlStats;

/// pcapng option codes written here beyond `FrameOptions`.
mod opt {
    pub const COMMENT: u16 = 1;
    pub const EPB_FLAGS: u16 = 2;
    pub const EPB_PACKETID: u16 = 5;
    pub const EPB_VERDICT: u16 = 7;
    /// Process and thread id (two u32), as etl2pcapng writes them.
    pub const EPB_PROCESS: u16 = 8;
    pub const IF_IPV4: u16 = 4;
    pub const IF_IPV6: u16 = 5;
    pub const IF_MAC: u16 = 6;
}

/// etl2pcapng's snap length and largest packet.
const ETL2PCAPNG_SNAPLEN: u32 = 65_535;
/// etl2pcapng formats comments into 256 bytes; longer ones fail and are dropped.
const ETL2PCAPNG_COMMENT_MAX: usize = 255;
/// `sizeof(ETHERNET_HEADER)`, which etl2pcapng adds to raw-IP lengths too.
const ETHERNET_HEADER_LEN: u32 = 14;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Default,
    Etl2pcapng,
}

#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    pub mode: Mode,
    /// Observation point (default mode only; etl2pcapng mode writes every copy).
    pub component: ComponentChoice,
}

/// What a conversion wrote, and the damage that stopped it, if any.
#[derive(Debug, Clone, Default)]
pub struct ConvertSummary {
    pub frames: u64,
    pub interfaces: u32,
    /// Comments etl2pcapng would drop (256 bytes or more), in that mode.
    pub comments_dropped: u64,
    pub stats: EtlStats,
    /// Truncated or corrupt input after `frames` packets: the output holds those.
    pub error: Option<IngestError>,
}

#[derive(Debug)]
pub enum ConvertError {
    /// The input could not be opened at all (nothing written but the section header).
    Input(IngestError),
    Output(io::Error),
}

impl From<io::Error> for ConvertError {
    fn from(e: io::Error) -> Self {
        ConvertError::Output(e)
    }
}

/// Converts the trace `open` opens (called twice in etl2pcapng mode: interfaces first,
/// as it does) to pcapng on `out`.
pub fn convert<R: Read + Seek, W: Write>(
    mut open: impl FnMut(ReaderOptions) -> Result<EtlReader<R>, IngestError>,
    out: W,
    o: &ConvertOptions,
) -> Result<(ConvertSummary, W), ConvertError> {
    match o.mode {
        Mode::Default => {
            let mut r = open(ReaderOptions::default()).map_err(ConvertError::Input)?;
            let filter = o.component.resolve(r.components()).map_err(|e| {
                ConvertError::Input(IngestError::new(tcpdiag_core::ingest::IngestErrorKind::Unsupported(e), 0, 0))
            })?;
            r.set_observation(filter);
            default_mode(r, out)
        }
        Mode::Etl2pcapng => {
            let every = ReaderOptions { observation: ObservationFilter::All, keep_drops: true, prescan_metadata: true };
            let first = open(every).map_err(ConvertError::Input)?;
            let ifaces = CompatInterfaces::collect(first);
            let second = open(every).map_err(ConvertError::Input)?;
            compat_mode(second, ifaces, out)
        }
    }
}

/// Converts the file at `path`.
pub fn convert_file<W: Write>(path: &std::path::Path, out: W, o: &ConvertOptions) -> Result<(ConvertSummary, W), ConvertError> {
    convert(|opts| EtlReader::open_with(path, opts), out, o)
}

// ---- default mode -------------------------------------------------------------

fn default_mode<R: Read + Seek, W: Write>(mut r: EtlReader<R>, out: W) -> Result<(ConvertSummary, W), ConvertError> {
    let mut w = PcapngWriter::new(out)?;
    let mut s = ConvertSummary::default();
    loop {
        let f = match r.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => {
                s.error = Some(e);
                break;
            }
        };
        while s.interfaces <= f.interface {
            let all = r.interfaces();
            let Some(i) = all.get(s.interfaces as usize) else { break };
            write_default_idb(&mut w, i)?;
            s.interfaces += 1;
        }
        let ids = process_option(&f);
        let extra: Vec<(u16, &[u8])> = ids.as_ref().map(|b| (opt::EPB_PROCESS, &b[..])).into_iter().collect();
        w.write_packet_with(f.interface, f.ts_ns, &f.data, f.origlen, Some(&f.options), &extra)?;
        s.frames += 1;
    }
    s.stats = r.stats();
    Ok((s, w.into_inner()))
}

fn write_default_idb<W: Write>(w: &mut PcapngWriter<W>, i: &EtlInterface) -> io::Result<u32> {
    let mut info = InterfaceInfo::new(i.linktype, 0);
    info.name = Some(i.name.clone());
    info.description = (!i.description.is_empty()).then(|| i.description.clone());
    info.ts_resolution = TsResolution::NANOS;
    let addrs = address_options(i.mac.as_deref(), &i.ipv4, &i.ipv6);
    let extra: Vec<(u16, &[u8])> = addrs.iter().map(|(c, v)| (*c, &v[..])).collect();
    w.add_interface_with(&info, &extra)
}

/// `if_MACaddr`, then one `if_IPv4addr` (address, mask 255.255.255.255) and one
/// `if_IPv6addr` (address, prefix 128) per address, as etl2pcapng encodes them.
fn address_options(mac: Option<&[u8]>, v4: &[[u8; 4]], v6: &[[u8; 16]]) -> Vec<(u16, Vec<u8>)> {
    let mut v = Vec::new();
    if let Some(m) = mac.filter(|m| m.len() == 6) {
        v.push((opt::IF_MAC, m.to_vec()));
    }
    for a in v4 {
        v.push((opt::IF_IPV4, [&a[..], &[0xFF; 4]].concat()));
    }
    for a in v6 {
        v.push((opt::IF_IPV6, [&a[..], &[128]].concat()));
    }
    v
}

fn process_option(f: &EtlFrame) -> Option<[u8; 8]> {
    (f.process_id != 0).then(|| {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&f.process_id.to_le_bytes());
        b[4..].copy_from_slice(&f.thread_id.to_le_bytes());
        b
    })
}

// ---- etl2pcapng mode ----------------------------------------------------------

/// How etl2pcapng tells interfaces apart.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CompatKey {
    /// PktMon: component id and the link type its `PacketType` gives.
    PktMon { component: u16, linktype: u32 },
    /// ndiscap 1001: the LowerIfIndex alone (the first packet's media wins).
    Ndis { lower: u32 },
    /// ndiscap 1003: LowerIfIndex, VLAN and switch port.
    VmNic { lower: u32, vlan: u16, port: u32 },
}

#[derive(Debug, Clone)]
struct CompatIface {
    key: CompatKey,
    miniport: u32,
    lower: u32,
    linktype: u32,
    /// vNIC strings of the first packet: (nic type, nic name, port name).
    vnic: Option<(String, String, String)>,
}

fn compat_key(f: &EtlFrame) -> CompatKey {
    match &f.observation {
        Observation::PktMon { component, .. } => CompatKey::PktMon { component: *component, linktype: compat_linktype(f) },
        Observation::Ndis { lower_if_index, .. } => CompatKey::Ndis { lower: *lower_if_index },
        Observation::VmSwitch { lower_if_index, vlan_id, source_port_id, .. } => {
            CompatKey::VmNic { lower: *lower_if_index, vlan: *vlan_id, port: *source_port_id }
        }
    }
}

/// The link type etl2pcapng gives a frame: PktMon's declared type, Wi-Fi included.
fn compat_linktype(f: &EtlFrame) -> u32 {
    if f.relabelled {
        LINKTYPE_IEEE802_11
    } else {
        f.linktype
    }
}

struct CompatInterfaces {
    list: Vec<CompatIface>,
    index: HashMap<CompatKey, u32>,
    /// Names, descriptions and addresses of PktMon components (from the rundown).
    components: std::collections::BTreeMap<u16, crate::pktmon::Component>,
}

impl CompatInterfaces {
    /// Pass 1: every interface a packet uses, then etl2pcapng's order. Damage is left
    /// for pass 2 to report.
    fn collect<R: Read + Seek>(mut r: EtlReader<R>) -> CompatInterfaces {
        let mut seen: HashMap<CompatKey, usize> = HashMap::new();
        let mut list: Vec<CompatIface> = Vec::new();
        while let Ok(Some(f)) = r.next_frame() {
            let key = compat_key(&f);
            if seen.contains_key(&key) {
                continue;
            }
            let (miniport, lower, vnic) = match &f.observation {
                // PktMon interfaces have no IfIndex: NET_IFINDEX_UNSPECIFIED (0).
                Observation::PktMon { component, .. } => (0, *component as u32, None),
                Observation::Ndis { miniport_if_index, lower_if_index } => (*miniport_if_index, *lower_if_index, None),
                Observation::VmSwitch {
                    miniport_if_index, lower_if_index, source_nic_type, source_nic_name, source_port_name, ..
                } => (
                    *miniport_if_index,
                    *lower_if_index,
                    Some((source_nic_type.clone(), source_nic_name.clone(), source_port_name.clone())),
                ),
            };
            seen.insert(key.clone(), list.len());
            list.push(CompatIface { key, miniport, lower, linktype: compat_linktype(&f), vnic });
        }
        // MiniportIfIndex, then the miniport itself before the filters above it, then
        // LowerIfIndex; etl2pcapng leaves other ties to qsort: link type, port, VLAN here.
        list.sort_by(|a, b| {
            let (am, bm) = (a.lower == a.miniport, b.lower == b.miniport);
            a.miniport.cmp(&b.miniport).then(bm.cmp(&am)).then(a.lower.cmp(&b.lower)).then_with(|| tie(&a.key).cmp(&tie(&b.key)))
        });
        let index = list.iter().enumerate().map(|(i, x)| (x.key.clone(), i as u32)).collect();
        CompatInterfaces { list, index, components: r.components().clone() }
    }

    fn write<W: Write>(&self, w: &mut PcapngWriter<W>) -> io::Result<()> {
        for i in &self.list {
            let mut info = InterfaceInfo::new(i.linktype, ETL2PCAPNG_SNAPLEN);
            let (mut name, mut desc) = (String::new(), String::new());
            let mut addrs = Vec::new();
            match &i.key {
                CompatKey::PktMon { component, .. } => {
                    if let Some(c) = self.components.get(component) {
                        name = c.name.clone();
                        desc = c.description.clone();
                        // etl2pcapng keeps the last address of each kind.
                        let v4: Vec<[u8; 4]> = c.ipv4.last().copied().into_iter().collect();
                        let v6: Vec<[u8; 16]> = c.ipv6.last().copied().into_iter().collect();
                        addrs = address_options(c.mac.as_deref(), &v4, &v6);
                    }
                }
                CompatKey::Ndis { lower } | CompatKey::VmNic { lower, .. } => {
                    let vlan = match i.key {
                        CompatKey::VmNic { vlan, .. } => vlan,
                        _ => 0,
                    };
                    name = match (i.linktype, &i.vnic) {
                        (LINKTYPE_ETHERNET, Some((ty, _, port))) => format!("vNIC:{ty}:{port}:{lower}:{}", vlan as i16),
                        (LINKTYPE_ETHERNET, None) => format!("eth:{lower}:0"),
                        (LINKTYPE_IEEE802_11, _) => format!("wifi:{lower}"),
                        (LINKTYPE_RAW, _) => format!("mbb:{lower}"),
                        _ => String::new(),
                    };
                    if i.lower != i.miniport {
                        desc = format!("LWF over IfIndex {}", i.miniport);
                    }
                    if vlan != 0 {
                        desc.push_str(&format!(" VlanID={} ", vlan as i16));
                    }
                }
            }
            // etl2pcapng prints names into 256 bytes (255 characters kept).
            info.name = (!name.is_empty()).then(|| truncate_bytes(name, ETL2PCAPNG_COMMENT_MAX));
            info.description = (!desc.is_empty()).then(|| truncate_bytes(desc, ETL2PCAPNG_COMMENT_MAX));
            let extra: Vec<(u16, &[u8])> = addrs.iter().map(|(c, v)| (*c, &v[..])).collect();
            w.add_interface_with(&info, &extra)?;
        }
        Ok(())
    }
}

fn tie(k: &CompatKey) -> (u32, u32, u16) {
    match k {
        CompatKey::PktMon { linktype, .. } => (*linktype, 0, 0),
        CompatKey::Ndis { .. } => (0, 0, 0),
        CompatKey::VmNic { port, vlan, .. } => (0, *port, *vlan),
    }
}

fn truncate_bytes(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

fn compat_mode<R: Read + Seek, W: Write>(
    mut r: EtlReader<R>,
    ifaces: CompatInterfaces,
    out: W,
) -> Result<(ConvertSummary, W), ConvertError> {
    let mut w = PcapngWriter::new(out)?;
    ifaces.write(&mut w)?;
    let mut s = ConvertSummary { interfaces: ifaces.list.len() as u32, ..ConvertSummary::default() };
    loop {
        let f = match r.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => {
                s.error = Some(e);
                break;
            }
        };
        let Some(&iface) = ifaces.index.get(&compat_key(&f)) else { continue };
        let info = &ifaces.list[iface as usize];
        let flags = if f.keyword & keyword::SEND != 0 { 2u32 } else { 1 };
        let flags = flags.to_le_bytes();
        let packet_id = f.packet_id.filter(|&id| id != 0).map(u64::to_le_bytes);
        let process = process_option(&f);
        let mut comment = compat_comment(&f, info);
        if comment.len() > ETL2PCAPNG_COMMENT_MAX {
            comment.clear();
            s.comments_dropped += 1;
        }
        let mut o: Vec<(u16, &[u8])> = vec![(opt::EPB_FLAGS, &flags)];
        if let Some(id) = &packet_id {
            o.push((opt::EPB_PACKETID, id));
        }
        if f.drop.is_some() {
            o.push((opt::EPB_VERDICT, &VERDICT_DROP));
        }
        if let Some(p) = &process {
            o.push((opt::EPB_PROCESS, p));
        }
        if !comment.is_empty() {
            o.push((opt::COMMENT, comment.as_bytes()));
        }
        w.write_packet_with(iface, f.ts_ns, &f.data, compat_origlen(&f), None, &o)?;
        s.frames += 1;
    }
    s.stats = r.stats();
    Ok((s, w.into_inner()))
}

/// etl2pcapng's original length: PktMon's `OriginalPayloadSize`; for ndiscap, the IP
/// length plus 14 — Ethernet header or not (the raw-IP bug) — when larger than captured.
fn compat_origlen(f: &EtlFrame) -> u32 {
    let total = f.data.len() as u32;
    if matches!(f.observation, Observation::PktMon { .. }) {
        return f.origlen;
    }
    let d = &f.data;
    let be = |at: usize| d.get(at..at + 2).map_or(0, |b| u16::from_be_bytes([b[0], b[1]]) as u32);
    let inferred = match f.linktype {
        LINKTYPE_ETHERNET if d.len() >= 14 + 20 && be(12) == 0x0800 => be(16) + ETHERNET_HEADER_LEN,
        LINKTYPE_ETHERNET if d.len() >= 14 + 40 && be(12) == 0x86DD => be(18) + 40 + ETHERNET_HEADER_LEN,
        LINKTYPE_RAW if d.len() >= 20 && d[0] >> 4 == 4 => be(2) + ETHERNET_HEADER_LEN,
        LINKTYPE_RAW if d.len() >= 20 && d[0] >> 4 == 6 => be(4) + 40 + ETHERNET_HEADER_LEN,
        _ => 0,
    };
    inferred.max(total)
}

/// etl2pcapng's comment: none for PktMon; for ndiscap the process and thread, with the
/// Wi-Fi metadata or the vNIC details when there are some.
fn compat_comment(f: &EtlFrame, info: &CompatIface) -> String {
    let (pid, tid) = (f.process_id as i32, f.thread_id as i32);
    if let Some(w) = &f.wlan {
        // DOT11_PHY_TYPE names as etl2pcapng spells them.
        const PHY: [&str; 11] =
            ["Unknown", "Fhss", "Dsss", "IrBaseband", "802.11a", "802.11b", "802.11g", "802.11n", "802.11ac", "802.11ad", "802.11ax"];
        let phy = PHY.get(w.phy_type as usize).copied().unwrap_or(PHY[0]);
        return wlan_comment(pid, tid, w, phy);
    }
    match &f.observation {
        Observation::PktMon { .. } => String::new(),
        Observation::Ndis { .. } => format!("PID={pid} TID={tid}"),
        Observation::VmSwitch { destination_count, rss_hash, .. } => {
            let (ty, nic, port) = info.vnic.clone().unwrap_or_default();
            let (vlan, port_id) = match info.key {
                CompatKey::VmNic { vlan, port, .. } => (vlan as i16, port as i32),
                _ => (0, 0),
            };
            let dst = if *destination_count > 0 { format!(" DstNicCount={}", *destination_count as i32) } else { String::new() };
            format!(
                "PID={pid} TID={tid} VlanId={vlan} SrcPortId={port_id} SrcNicType={ty} SrcNicName={nic} SrcPortName={port}{dst} HashValue={rss_hash:08x}"
            )
        }
    }
}

fn wlan_comment(pid: i32, tid: i32, w: &WlanMetadata, phy: &str) -> String {
    format!(
        "PID={pid} TID={tid} Packet Metadata: ReceiveFlags:0x{:x}, PhyType:{phy}, CenterCh:{}, NumMPDUsReceived:{}, RSSI:{}, DataRate:{}",
        w.receive_flags, w.center_frequency_mhz, w.mpdus_received, w.rssi_dbm, w.data_rate
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_on_a_character_boundary() {
        assert_eq!(truncate_bytes("é".repeat(200), 255).len(), 254);
        assert_eq!(truncate_bytes("abc".into(), 255), "abc");
    }
}

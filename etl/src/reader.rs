//! `EtlReader`: an ETL file → packet frames in timestamp order, with interfaces,
//! PktMon components and reading statistics.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use tcpdiag_core::ingest::{IngestError, IngestErrorKind, RandomAccess};

use crate::buffer::{buffer_type, BufferHeader, BUFFER_HEADER_LEN};
use crate::builtin::{self, ndis_event, pktmon_event, NDIS_PACKET_CAPTURE, PKTMON, TCPIP};
use crate::bytes::Guid;
use crate::container::{Container, EventRecord, MAX_BUFFER_LEN};
use crate::frame::{EtlFrame, EtlInterface, InterfaceKey, ObservationFilter, ReaderOptions};
use crate::logfile::{Clock, LogfileHeader};
use crate::ndiscap::Reassembly;
use crate::packet::{Observation, PacketEvent};
use crate::pktmon::{self, Component};
use crate::record::{parse_record, HeaderKind, Parsed};
use crate::schema::{Schema, ValueMaps, EVENT_METADATA, METADATA_TYPE_EVENT_INFO, METADATA_TYPE_MAP_INFO};
use crate::stats::EtlStats;
use crate::tcpip::TcpipTable;

/// Reads packets from an ETL trace. See the crate documentation for the format.
pub struct EtlReader<R = BufReader<File>> {
    container: Container<R>,
    header: LogfileHeader,
    clock: Clock,
    options: ReaderOptions,
    embedded: HashMap<(Guid, u16, u8), Schema>,
    builtin: HashMap<(Guid, u16), Schema>,
    maps: ValueMaps,
    components: BTreeMap<u16, Component>,
    interfaces: Vec<(InterfaceKey, u32)>,
    interface_ids: HashMap<(InterfaceKey, u32), u32>,
    reassembly: Reassembly,
    flow_points: HashMap<Option<crate::flowkey::FlowKey>, (u8, u32)>,
    tcpip: TcpipTable,
    /// Reader-level counters, merged with the container's in [`EtlReader::stats`].
    counts: EtlStats,
    finished: bool,
}

fn kind_at(kind: IngestErrorKind, offset: u64) -> IngestError {
    IngestError::new(kind, offset, 0)
}

impl EtlReader<BufReader<File>> {
    /// Opens an ETL file with the default [`ReaderOptions`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IngestError> {
        Self::open_with(path, ReaderOptions::default())
    }

    pub fn open_with(path: impl AsRef<Path>, options: ReaderOptions) -> Result<Self, IngestError> {
        let f = File::open(path).map_err(|e| kind_at(IngestErrorKind::Io(e.to_string()), 0))?;
        EtlReader::from_reader(BufReader::with_capacity(1 << 16, f), options)
    }
}

impl EtlReader<BufReader<RandomAccess>> {
    /// Reads an opened input's random-access view (`Input::into_random_access`).
    pub fn from_random_access(ra: RandomAccess, options: ReaderOptions) -> Result<Self, IngestError> {
        EtlReader::from_reader(BufReader::with_capacity(1 << 16, ra), options)
    }
}

impl<R: Read + Seek> EtlReader<R> {
    /// Reads from any seekable source (a file, or a `Cursor` over bytes).
    pub fn from_reader(mut src: R, options: ReaderOptions) -> Result<Self, IngestError> {
        let io = |e: std::io::Error| kind_at(IngestErrorKind::Io(e.to_string()), 0);
        let len = src.seek(SeekFrom::End(0)).map_err(io)?;
        if len == 0 {
            return Err(kind_at(IngestErrorKind::Empty, 0));
        }
        let mut first = [0u8; BUFFER_HEADER_LEN + 8];
        let n = (len as usize).min(first.len());
        src.seek(SeekFrom::Start(0)).and_then(|_| src.read_exact(&mut first[..n])).map_err(io)?;
        sniff(&first[..n], len)?;
        let mut container = Container::index(src)?;
        let (at, data) = container.first_buffer()?;
        let Ok(Parsed::Record(h)) = parse_record(&data) else {
            return Err(kind_at(IngestErrorKind::Corrupt("first record of the file is unreadable".into()), at));
        };
        let payload = data.get(h.payload_offset..h.size).unwrap_or(&[]);
        let ptr64 = matches!(h.kind, HeaderKind::System { ptr64: true });
        let header = LogfileHeader::parse(payload, ptr64).ok_or_else(|| {
            kind_at(IngestErrorKind::Corrupt("TRACE_LOGFILE_HEADER too short".into()), at + BUFFER_HEADER_LEN as u64)
        })?;
        let clock = Clock::new(&header, h.timestamp.unwrap_or(0));
        // A file cut exactly at a buffer boundary: the header knows how many were written.
        if (header.buffers_written as u64) > container.stats.buffers {
            container.defer(kind_at(IngestErrorKind::Truncated { needed: BUFFER_HEADER_LEN as u64, available: 0 }, len));
        }
        container.stats.events_lost = header.events_lost as u64;
        container.stats.buffers_lost = header.buffers_lost as u64;
        let builtin = builtin::schemas().into_iter().map(|s| ((s.provider, s.id), s)).collect();
        let mut r = EtlReader {
            container,
            header,
            clock,
            options,
            embedded: HashMap::new(),
            builtin,
            maps: ValueMaps::default(),
            components: BTreeMap::new(),
            interfaces: Vec::new(),
            interface_ids: HashMap::new(),
            reassembly: Reassembly::default(),
            flow_points: HashMap::new(),
            tcpip: TcpipTable::default(),
            counts: EtlStats::default(),
            finished: false,
        };
        if r.options.prescan_metadata {
            r.prescan();
        }
        Ok(r)
    }

    /// Reads every event once for schemas, value maps and component names, then rewinds.
    fn prescan(&mut self) {
        while let Some(ev) = self.container.next_event() {
            let (h, p) = (ev.header, ev.payload);
            if matches!(h.kind, HeaderKind::Full { .. }) && h.provider == EVENT_METADATA {
                learn_metadata(&mut self.embedded, &mut self.maps, h.descriptor.opcode, p);
            } else if h.provider == PKTMON && is_component_event(h.descriptor.id) {
                if let Some(s) = schema_for(&self.embedded, &self.builtin, &ev) {
                    if let Ok(f) = s.layout(p, h.pointer_size()) {
                        pktmon::component_event(h.descriptor.id, &f, &mut self.components);
                    }
                }
            }
        }
        self.container.restart();
        self.container.stats.events_lost = self.header.events_lost as u64;
        self.container.stats.buffers_lost = self.header.buffers_lost as u64;
    }

    /// The next packet in timestamp order; `Ok(None)` at the end. Damage found on the
    /// way is returned once, after every readable frame.
    pub fn next_frame(&mut self) -> Result<Option<EtlFrame>, IngestError> {
        if self.finished {
            return Ok(None);
        }
        loop {
            let Some(ev) = self.container.next_event() else {
                self.finished = true;
                return match self.container.deferred.take() {
                    Some(mut e) => {
                        e.frames_read = self.counts.frames;
                        Err(e)
                    }
                    None => Ok(None),
                };
            };
            let (h, payload) = (ev.header, ev.payload);
            let stats = &mut self.counts;
            if matches!(h.kind, HeaderKind::Full { .. }) && h.provider == EVENT_METADATA {
                if learn_metadata(&mut self.embedded, &mut self.maps, h.descriptor.opcode, payload) {
                    stats.schemas += 1;
                }
                continue;
            }
            if !matches!(h.kind, HeaderKind::Event { .. }) {
                continue;
            }
            let id = h.descriptor.id;
            let is_packet = match h.provider {
                PKTMON => id == pktmon_event::PACKET || id == pktmon_event::PACKET_DROP,
                NDIS_PACKET_CAPTURE => matches!(id, ndis_event::PACKET_FRAGMENT | ndis_event::VMSWITCH_PACKET_FRAGMENT),
                _ => false,
            };
            let wanted = is_packet
                || (h.provider == PKTMON && is_component_event(id))
                || (h.provider == NDIS_PACKET_CAPTURE && id == ndis_event::PACKET_METADATA)
                || h.provider == TCPIP;
            if !wanted {
                continue;
            }
            let Some(schema) = schema_for(&self.embedded, &self.builtin, &ev) else { continue };
            stats.packet_events += is_packet as u64;
            let Ok(f) = schema.layout(payload, h.pointer_size()) else {
                stats.malformed_packet_events += is_packet as u64;
                continue;
            };
            let decoded = match h.provider {
                PKTMON if is_packet => pktmon::packet(id, &f, &self.maps),
                PKTMON => {
                    pktmon::component_event(id, &f, &mut self.components);
                    continue;
                }
                NDIS_PACKET_CAPTURE => self.reassembly.event(id, h.descriptor.keyword, h.thread_id, &f),
                _ => {
                    self.tcpip.add(&ev, &f, self.clock.to_unix_ns(ev.raw_ts));
                    continue;
                }
            };
            let pe = match decoded {
                Ok(Some(pe)) => pe,
                Ok(None) => continue,
                Err(_) => {
                    stats.malformed_packet_events += 1;
                    continue;
                }
            };
            let provider_tag = if h.provider == PKTMON { 1 } else { 2 };
            if !keep(&self.options, &mut self.flow_points, provider_tag, &pe) {
                stats.frames_filtered += 1;
                continue;
            }
            stats.frames += 1;
            stats.wifi_typed_ethernet += pe.relabelled as u64;
            stats.drops += pe.drop.is_some() as u64;
            let number = stats.frames;
            let (ts_ns, pid, tid, cpu) = (self.clock.to_unix_ns(ev.raw_ts), h.process_id, h.thread_id, ev.processor);
            let key = InterfaceKey::of(&pe.observation);
            let n = self.interfaces.len() as u32;
            let interface = *self.interface_ids.entry((key.clone(), pe.linktype)).or_insert(n);
            if interface == n {
                self.interfaces.push((key, pe.linktype));
            }
            return Ok(Some(EtlFrame::new(number, ts_ns, interface, pe, pid, tid, cpu, h.descriptor.keyword, &self.components)));
        }
    }

    /// Interfaces seen so far (one per observation point and link type), in id order.
    pub fn interfaces(&self) -> Vec<EtlInterface> {
        self.interfaces
            .iter()
            .enumerate()
            .map(|(i, (k, lt))| EtlInterface::new(i as u32, k.clone(), *lt, &self.components))
            .collect()
    }

    pub fn stats(&self) -> EtlStats {
        let c = &self.counts;
        EtlStats {
            packet_events: c.packet_events,
            frames: c.frames,
            frames_filtered: c.frames_filtered,
            drops: c.drops,
            schemas: self.embedded.len() as u64,
            malformed_packet_events: c.malformed_packet_events,
            wifi_typed_ethernet: c.wifi_typed_ethernet,
            ..self.container.stats.clone()
        }
    }

    /// Changes the observation-point filter; call before the first frame (e.g. once the
    /// component names, known after the metadata pre-scan, chose a point).
    pub fn set_observation(&mut self, filter: ObservationFilter) {
        self.options.observation = filter;
        self.flow_points.clear();
    }

    pub fn options(&self) -> &ReaderOptions {
        &self.options
    }

    pub fn header(&self) -> &LogfileHeader {
        &self.header
    }

    /// PktMon components named by the rundown events (complete from the start when
    /// `prescan_metadata` is on).
    pub fn components(&self) -> &BTreeMap<u16, Component> {
        &self.components
    }

    /// Schemas embedded in the file, by (provider, event id, version).
    pub fn embedded_schemas(&self) -> impl Iterator<Item = &Schema> {
        self.embedded.values()
    }

    /// Microsoft-Windows-TCPIP events read so far, decoded with the embedded schemas.
    pub fn tcpip(&self) -> &TcpipTable {
        &self.tcpip
    }
}

fn is_component_event(id: u16) -> bool {
    use pktmon_event::*;
    matches!(id, COMPONENT | COMPONENT_PROPERTY | COMPONENT_IPV4 | COMPONENT_IPV6 | COMPONENT_HW_ADDR | COMPONENT_VMSWITCH_NAME)
}

/// Stores a schema (class type 32) or value map (33); true for a new schema.
fn learn_metadata(embedded: &mut HashMap<(Guid, u16, u8), Schema>, maps: &mut ValueMaps, class_type: u8, p: &[u8]) -> bool {
    match class_type {
        METADATA_TYPE_EVENT_INFO => match Schema::from_trace_event_info(p) {
            Some(s) => embedded.insert((s.provider, s.id, s.version), s).is_none(),
            None => false,
        },
        METADATA_TYPE_MAP_INFO => {
            maps.add_map_event(p);
            false
        }
        _ => false,
    }
}

fn schema_for<'s>(
    embedded: &'s HashMap<(Guid, u16, u8), Schema>,
    builtin: &'s HashMap<(Guid, u16), Schema>,
    ev: &EventRecord<'_>,
) -> Option<&'s Schema> {
    let d = ev.header.descriptor;
    embedded.get(&(ev.header.provider, d.id, d.version)).or_else(|| builtin.get(&(ev.header.provider, d.id)))
}

/// The observation-point filter (see [`ObservationFilter`]).
fn keep(
    o: &ReaderOptions,
    flow_points: &mut HashMap<Option<crate::flowkey::FlowKey>, (u8, u32)>,
    provider: u8,
    pe: &PacketEvent,
) -> bool {
    if pe.drop.is_some() && o.keep_drops {
        return true;
    }
    match o.observation {
        ObservationFilter::All => true,
        ObservationFilter::Point(p) => pe.observation.point() == p,
        ObservationFilter::FirstAppearance => !matches!(pe.observation, Observation::PktMon { appearance, .. } if appearance > 1),
        ObservationFilter::FirstPerFlow => {
            if flow_points.len() >= 1 << 20 {
                flow_points.clear(); // bound memory on huge traces: choose again
            }
            let key = crate::flowkey::flow_key(pe.linktype, &pe.data);
            let point = (provider, pe.observation.point());
            *flow_points.entry(key).or_insert(point) == point
        }
    }
}

/// Bytes [`looks_like_etl`] needs: the buffer header and the first record's marker.
pub const SNIFF_LEN: usize = BUFFER_HEADER_LEN + 8;

/// True when `first` (the first [`SNIFF_LEN`] bytes of a file) starts an ETL trace: a
/// header buffer (`BufferType` 4, uncompressed, plausible size) whose first record is a
/// system record with HookId 0 (the log file header). Used to pick a reader by content.
pub fn looks_like_etl(first: &[u8]) -> bool {
    first.len() >= SNIFF_LEN && sniff(first, u64::MAX).is_ok()
}

/// Checks that the first bytes are an ETL header buffer holding the log file header.
fn sniff(b: &[u8], len: u64) -> Result<(), IngestError> {
    let magic = [0, 1, 2, 3].map(|i| b.get(i).copied().unwrap_or(0));
    let not_etl = || kind_at(IngestErrorKind::NotACapture { magic }, 0);
    let Some(h) = BufferHeader::parse(b) else {
        let plausible = u32::from_le_bytes(magic) as usize;
        return if (BUFFER_HEADER_LEN..=MAX_BUFFER_LEN).contains(&plausible) {
            Err(kind_at(IngestErrorKind::Truncated { needed: BUFFER_HEADER_LEN as u64 + 8, available: len }, 0))
        } else {
            Err(not_etl())
        };
    };
    let size_ok = (BUFFER_HEADER_LEN..=MAX_BUFFER_LEN).contains(&(h.buffer_size as usize));
    if !size_ok || h.buffer_type != buffer_type::HEADER || h.is_compressed() {
        return Err(not_etl());
    }
    if let Some(m) = b.get(BUFFER_HEADER_LEN..BUFFER_HEADER_LEN + 8) {
        let is_system = matches!(m[2], 1 | 2) && m[3] & 0xC0 == 0xC0;
        if !is_system || m[6] != 0 || m[7] != 0 {
            return Err(not_etl());
        }
    } else {
        return Err(kind_at(IngestErrorKind::Truncated { needed: BUFFER_HEADER_LEN as u64 + 8, available: len }, 0));
    }
    Ok(())
}

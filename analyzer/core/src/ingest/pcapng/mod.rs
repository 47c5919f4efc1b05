//! pcapng (draft-ietf-opsawg-pcapng): sections of blocks. This file keeps per-section
//! state and walks blocks to the next packet; `block.rs` checks the framing, and each
//! block type that carries data has its own file.
//!
//! Interfaces are numbered across the whole file (sections concatenated), while packet
//! blocks name them by their index within their section. (tshark 4.0's
//! `frame.interface_id` prints that section-local index.)

pub mod block;
pub mod enhanced_packet;
pub mod interface_description;
pub mod options;
pub mod packet;
pub mod section_header;
pub mod simple_packet;

use super::byte_order::ByteOrder;
use super::interface::{max_caplen, InterfaceInfo};
use super::source::ByteSource;
use super::{FrameOptions, IngestError};
use block::{
    block_header, block_name, skip_block, take_block, CUSTOM_COPY, CUSTOM_NO_COPY,
    SYSTEMD_JOURNAL_EXPORT,
};

/// A packet-carrying block (EPB, SPB or PB) as its parser sees it.
pub struct PacketBlock<'a> {
    /// Index within the section.
    pub interface_id: u32,
    /// `None` for SPB, which has no timestamp.
    pub ts_ticks: Option<u64>,
    pub origlen: u32,
    pub data: &'a [u8],
    /// Raw option bytes after the (padded) data.
    pub options: &'a [u8],
    /// PB `drops_count`, when known.
    pub drop_count: Option<u64>,
}

/// A packet after interface lookup and timestamp conversion.
pub struct Packet<'a> {
    /// Index across the whole file.
    pub interface: u32,
    pub ts_ns: i64,
    pub origlen: u32,
    pub data: &'a [u8],
    /// `FrameOptions` were filled for this packet.
    pub has_options: bool,
}

/// Reader state: the current section's byte order and where its interfaces start.
#[derive(Debug, Clone)]
pub struct PcapngState {
    order: ByteOrder,
    sections: u32,
    /// Index (across the file) of the current section's first interface.
    first_iface: usize,
    pending: Option<BlockHead>,
    /// Records skipped since last asked that Wireshark nevertheless numbers as frames.
    other_records: u64,
}

impl PcapngState {
    pub fn new() -> Self {
        PcapngState {
            order: ByteOrder::Little,
            sections: 0,
            first_iface: 0,
            pending: None,
            other_records: 0,
        }
    }

    /// Takes the count of records that Wireshark numbers as frames but that carry no
    /// packet (custom and systemd journal blocks), skipped since the last call.
    pub fn take_other_records(&mut self) -> u64 {
        std::mem::take(&mut self.other_records)
    }

    /// Byte order of the current section.
    pub fn byte_order(&self) -> ByteOrder {
        self.order
    }
}

impl Default for PcapngState {
    fn default() -> Self {
        PcapngState::new()
    }
}

/// Where the next packet block starts: found by `advance`, consumed by `read_packet`.
#[derive(Debug, Clone, Copy)]
struct BlockHead {
    block_type: u32,
    len: u32,
    start: u64,
}

/// Reads blocks up to (not into) the next packet block; `Ok(false)` at a clean end of
/// file. SHBs and IDBs on the way update `st` and `ifaces`; other blocks are skipped.
/// Called once when the file is opened, so the first section's interfaces are known
/// before the first frame.
pub fn advance(
    st: &mut PcapngState,
    src: &mut ByteSource,
    ifaces: &mut Vec<InterfaceInfo>,
) -> Result<bool, IngestError> {
    if st.pending.is_some() {
        return Ok(true);
    }
    loop {
        let start = src.offset();
        let Some((block_type, len, order)) = block_header(st, src)? else {
            return Ok(false);
        };
        match block_type {
            enhanced_packet::BLOCK_TYPE | simple_packet::BLOCK_TYPE | packet::BLOCK_TYPE => {
                st.pending = Some(BlockHead {
                    block_type,
                    len,
                    start,
                });
                return Ok(true);
            }
            section_header::BLOCK_TYPE => {
                let body = take_block(src, block_type, len, order)?;
                section_header::parse(body, order).map_err(|k| IngestError::new(k, start, 0))?;
                st.order = order;
                st.sections += 1;
                st.first_iface = ifaces.len();
            }
            interface_description::BLOCK_TYPE => {
                let body = take_block(src, block_type, len, order)?;
                let section = st.sections.saturating_sub(1);
                let iface = interface_description::parse(body, order, section)
                    .map_err(|k| IngestError::new(k, start, 0))?;
                ifaces.push(iface);
            }
            // Wireshark 4 shows these as frames of their own: counting them keeps frame
            // numbers equal to its frame.number.
            CUSTOM_COPY | CUSTOM_NO_COPY | SYSTEMD_JOURNAL_EXPORT => {
                skip_block(src, block_type, len, order)?;
                st.other_records += 1;
            }
            _ => skip_block(src, block_type, len, order)?,
        }
    }
}

/// Reads the next packet; `Ok(None)` at a clean end of file.
pub fn read_packet<'a>(
    st: &mut PcapngState,
    src: &'a mut ByteSource,
    ifaces: &mut Vec<InterfaceInfo>,
    opts: &mut FrameOptions,
) -> Result<Option<Packet<'a>>, IngestError> {
    if !advance(st, src, ifaces)? {
        return Ok(None);
    }
    let Some(BlockHead {
        block_type,
        len,
        start,
    }) = st.pending.take()
    else {
        return Ok(None);
    };
    let order = st.order;
    let section_ifaces = ifaces.len() - st.first_iface;
    let first = ifaces.get(st.first_iface).map_or(0, |i| i.snaplen);
    let body = take_block(src, block_type, len, order)?;
    let block = match block_type {
        enhanced_packet::BLOCK_TYPE => enhanced_packet::parse(body, order),
        packet::BLOCK_TYPE => packet::parse(body, order),
        _ => simple_packet::parse(body, order, first),
    }
    .map_err(|k| IngestError::new(k, start, 0))?;
    if block.interface_id as usize >= section_ifaces {
        let what = format!(
            "{} refers to interface {}, but its section describes {section_ifaces}",
            block_name(block_type),
            block.interface_id
        );
        return Err(IngestError::corrupt(what, start));
    }
    let index = st.first_iface + block.interface_id as usize;
    let Some(iface) = ifaces.get(index) else {
        return Err(IngestError::corrupt(
            "interface lookup failed".into(),
            start,
        ));
    };
    let max = max_caplen(iface.linktype);
    if block.data.len() > max as usize {
        let what = format!(
            "{} captured length {} exceeds the maximum {max} for link type {}",
            block_name(block_type),
            block.data.len(),
            iface.linktype
        );
        return Err(IngestError::corrupt(what, start));
    }
    let mut has_options =
        options::read_frame_options(block.options, order, opts, &block_name(block_type))
            .map_err(|k| IngestError::new(k, start, 0))?;
    if let Some(drops) = block.drop_count {
        opts.drop_count = Some(drops);
        has_options = true;
    }
    Ok(Some(Packet {
        interface: index as u32,
        ts_ns: block.ts_ticks.map_or(0, |t| iface.ts_ns(t)),
        origlen: block.origlen,
        data: block.data,
        has_options,
    }))
}

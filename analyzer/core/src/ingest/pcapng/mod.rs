//! pcapng (draft-ietf-opsawg-pcapng): a sequence of blocks framed by a type and a total
//! length repeated at the end. This file frames blocks and keeps per-section state; each
//! block type that carries data has its own file.
//!
//! Interfaces are numbered across the whole file (sections concatenated), as Wireshark
//! does, while packet blocks name them by their index within their section.

pub mod enhanced_packet;
pub mod interface_description;
pub mod options;
pub mod packet;
pub mod section_header;
pub mod simple_packet;

use super::byte_order::ByteOrder;
use super::interface::{max_caplen, InterfaceInfo};
use super::source::{ByteSource, MAX_FILL};
use super::{FrameOptions, IngestError};

/// Block framing: type, total length, body, total length again.
mod field {
    pub const TOTAL_LENGTH: usize = 4;
    pub const BODY: usize = 8;
}
/// Type and both length words: the smallest possible block.
const BLOCK_OVERHEAD: u32 = 12;
/// Largest block accepted; longer lengths are corruption, not data.
pub const MAX_BLOCK_LEN: u32 = MAX_FILL as u32;

/// Blocks that are recognised only to be skipped (named in error messages).
const NAME_RESOLUTION: u32 = 4;
const INTERFACE_STATISTICS: u32 = 5;
const DECRYPTION_SECRETS: u32 = 10;
const CUSTOM_COPY: u32 = 0x0000_0bad;
const CUSTOM_NO_COPY: u32 = 0x4000_0bad;
const SYSTEMD_JOURNAL_EXPORT: u32 = 9;

fn block_name(block_type: u32) -> String {
    match block_type {
        section_header::BLOCK_TYPE => "Section Header Block".into(),
        interface_description::BLOCK_TYPE => "Interface Description Block".into(),
        packet::BLOCK_TYPE => "Packet Block".into(),
        simple_packet::BLOCK_TYPE => "Simple Packet Block".into(),
        NAME_RESOLUTION => "Name Resolution Block".into(),
        INTERFACE_STATISTICS => "Interface Statistics Block".into(),
        enhanced_packet::BLOCK_TYPE => "Enhanced Packet Block".into(),
        DECRYPTION_SECRETS => "Decryption Secrets Block".into(),
        CUSTOM_COPY | CUSTOM_NO_COPY => "Custom Block".into(),
        SYSTEMD_JOURNAL_EXPORT => "systemd Journal Export Block".into(),
        t => format!("block of type 0x{t:08x}"),
    }
}

fn min_block_len(block_type: u32) -> u32 {
    match block_type {
        section_header::BLOCK_TYPE => section_header::MIN_BLOCK_LEN,
        interface_description::BLOCK_TYPE => interface_description::MIN_BLOCK_LEN,
        packet::BLOCK_TYPE => packet::MIN_BLOCK_LEN,
        simple_packet::BLOCK_TYPE => simple_packet::MIN_BLOCK_LEN,
        enhanced_packet::BLOCK_TYPE => enhanced_packet::MIN_BLOCK_LEN,
        _ => BLOCK_OVERHEAD,
    }
}

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
        PcapngState { order: ByteOrder::Little, sections: 0, first_iface: 0, pending: None, other_records: 0 }
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

/// Type and total length of the block at the current offset, checked; `None` at a clean end.
fn block_header(
    st: &PcapngState,
    src: &mut ByteSource,
) -> Result<Option<(u32, u32, ByteOrder)>, IngestError> {
    let start = src.offset();
    let have = src.fill(BLOCK_OVERHEAD as usize).map_err(|e| IngestError::io(e, start))?;
    if have == 0 {
        // A gzip stream cut inside a member ends at a block boundary only by chance.
        if src.cut_short() {
            return Err(IngestError::truncated(BLOCK_OVERHEAD as usize, 0, start));
        }
        return Ok(None);
    }
    if have < BLOCK_OVERHEAD as usize {
        return Err(IngestError::truncated(BLOCK_OVERHEAD as usize, have, start));
    }
    let h = src.peek(BLOCK_OVERHEAD as usize);
    // The SHB type reads the same in both orders; its byte-order magic decides the order
    // of its own length field and of the section it opens.
    let order = if st.order.u32(h, 0) == section_header::BLOCK_TYPE {
        let at = section_header::BYTE_ORDER_MAGIC_AT;
        let bom = [h[at], h[at + 1], h[at + 2], h[at + 3]];
        section_header::byte_order(bom).ok_or_else(|| {
            let what = format!(
                "Section Header Block byte-order magic {:02x}{:02x}{:02x}{:02x} is neither 1a2b3c4d nor 4d3c2b1a",
                bom[0], bom[1], bom[2], bom[3]
            );
            IngestError::corrupt(what, start)
        })?
    } else {
        st.order
    };
    let block_type = order.u32(h, 0);
    let len = order.u32(h, field::TOTAL_LENGTH);
    let bad = if len < min_block_len(block_type) {
        Some(format!("is below the minimum {}", min_block_len(block_type)))
    } else if len % 4 != 0 {
        Some("is not a multiple of 4".to_string())
    } else if len > MAX_BLOCK_LEN {
        Some(format!("exceeds the maximum {MAX_BLOCK_LEN}"))
    } else {
        None
    };
    if let Some(why) = bad {
        let what = format!("{} total length {len} {why}", block_name(block_type));
        return Err(IngestError::corrupt(what, start));
    }
    Ok(Some((block_type, len, order)))
}

/// Consumes the whole block and returns its body, after checking the trailing length.
fn take_block<'a>(
    src: &'a mut ByteSource,
    block_type: u32,
    len: u32,
    order: ByteOrder,
) -> Result<&'a [u8], IngestError> {
    let start = src.offset();
    let have = src.fill(len as usize).map_err(|e| IngestError::io(e, start))?;
    if have < len as usize {
        return Err(IngestError::truncated(len as usize, have, start));
    }
    let block = src.take(len as usize);
    let trailer_at = block.len().saturating_sub(4);
    check_trailer(order.u32(block, trailer_at), block_type, len, start)?;
    Ok(block.get(field::BODY..trailer_at).unwrap_or_default())
}

fn check_trailer(trailer: u32, block_type: u32, len: u32, start: u64) -> Result<(), IngestError> {
    if trailer == len {
        return Ok(());
    }
    let what = format!(
        "{} trailing total length {trailer} differs from the leading {len}",
        block_name(block_type)
    );
    Err(IngestError::corrupt(what, start))
}

/// Skips a block without buffering it, checking its trailing length.
fn skip_block(src: &mut ByteSource, block_type: u32, len: u32, order: ByteOrder) -> Result<(), IngestError> {
    let start = src.offset();
    let body_and_head = len as u64 - 4;
    let skipped = src.skip(body_and_head).map_err(|e| IngestError::io(e, start))?;
    let have = src.fill(4).map_err(|e| IngestError::io(e, start))?;
    if skipped < body_and_head || have < 4 {
        let available = skipped as usize + have.min(4);
        return Err(IngestError::truncated(len as usize, available, start));
    }
    check_trailer(order.u32(src.take(4), 0), block_type, len, start)
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
                st.pending = Some(BlockHead { block_type, len, start });
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
    let Some(BlockHead { block_type, len, start }) = st.pending.take() else {
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
        return Err(IngestError::corrupt("interface lookup failed".into(), start));
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
    let mut has_options = options::read_frame_options(block.options, order, opts, &block_name(block_type))
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

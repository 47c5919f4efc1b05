//! Section Header Block (SHB): starts each section and fixes its byte order; a file may
//! hold several sections, each with its own interfaces and byte order.

use crate::ingest::byte_order::ByteOrder;
use crate::ingest::IngestErrorKind;

pub const BLOCK_TYPE: u32 = 0x0a0d_0d0a;
/// Written in the section's byte order, so its bytes tell that order.
pub const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
pub const MIN_BLOCK_LEN: u32 = 28;

/// Body field offsets.
mod field {
    pub const BYTE_ORDER_MAGIC: usize = 0;
    pub const VERSION_MAJOR: usize = 4;
    pub const VERSION_MINOR: usize = 6;
    pub const SECTION_LENGTH: usize = 8;
}
/// Offset of the byte-order magic from the start of the block.
pub const BYTE_ORDER_MAGIC_AT: usize = 8;

/// Byte order of the section whose byte-order magic is `bom`.
pub fn byte_order(bom: [u8; 4]) -> Option<ByteOrder> {
    if u32::from_le_bytes(bom) == BYTE_ORDER_MAGIC {
        Some(ByteOrder::Little)
    } else if u32::from_be_bytes(bom) == BYTE_ORDER_MAGIC {
        Some(ByteOrder::Big)
    } else {
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionHeader {
    pub version_major: u16,
    pub version_minor: u16,
    /// Bytes in the section after this block; -1 when the writer did not know.
    pub section_length: i64,
}

/// Parses the body (block length already checked ≥ `MIN_BLOCK_LEN`). Version 1.x only:
/// 1.0 is current, 1.2 was written by some old tools with the same layout.
pub fn parse(body: &[u8], order: ByteOrder) -> Result<SectionHeader, IngestErrorKind> {
    debug_assert_eq!(order.u32(body, field::BYTE_ORDER_MAGIC), BYTE_ORDER_MAGIC);
    let shb = SectionHeader {
        version_major: order.u16(body, field::VERSION_MAJOR),
        version_minor: order.u16(body, field::VERSION_MINOR),
        section_length: order.u64(body, field::SECTION_LENGTH) as i64,
    };
    if shb.version_major != 1 {
        let what = format!("pcapng version {}.{}", shb.version_major, shb.version_minor);
        return Err(IngestErrorKind::Unsupported(what));
    }
    Ok(shb)
}

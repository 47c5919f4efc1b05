//! General block structure: every pcapng block is a type, a total length, a body padded
//! to 32 bits and the total length again. Framing is checked here once for all blocks:
//! both lengths equal, a multiple of 4, at least the type's minimum, at most the cap.

use super::{
    enhanced_packet, interface_description, packet, section_header, simple_packet, PcapngState,
};
use crate::ingest::byte_order::ByteOrder;
use crate::ingest::source::{ByteSource, MAX_FILL};
use crate::ingest::IngestError;

/// Block framing: type, total length, body, total length again.
mod field {
    pub const TOTAL_LENGTH: usize = 4;
    pub const BODY: usize = 8;
}
/// Type and both length words: the smallest possible block.
pub const BLOCK_OVERHEAD: u32 = 12;
/// Largest block accepted; longer lengths are corruption, not data.
pub const MAX_BLOCK_LEN: u32 = MAX_FILL as u32;

/// Blocks that carry no packet: skipped (named in error messages). Custom and systemd
/// journal blocks still take a frame number, as in Wireshark.
const NAME_RESOLUTION: u32 = 4;
const INTERFACE_STATISTICS: u32 = 5;
const DECRYPTION_SECRETS: u32 = 10;
pub const CUSTOM_COPY: u32 = 0x0000_0bad;
pub const CUSTOM_NO_COPY: u32 = 0x4000_0bad;
pub const SYSTEMD_JOURNAL_EXPORT: u32 = 9;

/// The spec's name of a block type, for error messages.
pub fn block_name(block_type: u32) -> String {
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

/// Type and total length of the block at the current offset, checked; `None` at a clean end.
pub fn block_header(
    st: &PcapngState,
    src: &mut ByteSource,
) -> Result<Option<(u32, u32, ByteOrder)>, IngestError> {
    let start = src.offset();
    let have = src
        .fill(BLOCK_OVERHEAD as usize)
        .map_err(|e| IngestError::io(e, start))?;
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
    let order = if st.byte_order().u32(h, 0) == section_header::BLOCK_TYPE {
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
        st.byte_order()
    };
    let block_type = order.u32(h, 0);
    let len = order.u32(h, field::TOTAL_LENGTH);
    let bad = if len < min_block_len(block_type) {
        Some(format!(
            "is below the minimum {}",
            min_block_len(block_type)
        ))
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
pub fn take_block(
    src: &mut ByteSource,
    block_type: u32,
    len: u32,
    order: ByteOrder,
) -> Result<&[u8], IngestError> {
    let start = src.offset();
    let have = src
        .fill(len as usize)
        .map_err(|e| IngestError::io(e, start))?;
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
pub fn skip_block(
    src: &mut ByteSource,
    block_type: u32,
    len: u32,
    order: ByteOrder,
) -> Result<(), IngestError> {
    let start = src.offset();
    let body_and_head = len as u64 - 4;
    let skipped = src
        .skip(body_and_head)
        .map_err(|e| IngestError::io(e, start))?;
    let have = src.fill(4).map_err(|e| IngestError::io(e, start))?;
    if skipped < body_and_head || have < 4 {
        let available = skipped as usize + have.min(4);
        return Err(IngestError::truncated(len as usize, available, start));
    }
    check_trailer(order.u32(src.take(4), 0), block_type, len, start)
}

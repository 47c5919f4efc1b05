//! Simple Packet Block (SPB): a packet with only its original length, captured on the
//! section's first interface, without timestamp or options.

use super::PacketBlock;
use crate::ingest::byte_order::ByteOrder;
use crate::ingest::IngestErrorKind;

pub const BLOCK_TYPE: u32 = 3;
pub const MIN_BLOCK_LEN: u32 = 16;

/// Body field offsets.
mod field {
    pub const ORIGLEN: usize = 0;
    pub const DATA: usize = 4;
}

/// Parses the body (block length already checked ≥ `MIN_BLOCK_LEN`). The captured length
/// is not stored: it is the original length cut to the interface's snaplen (0 = none).
/// A block too short for it is corrupt (as in Wireshark); extra room is padding.
pub fn parse(
    body: &[u8],
    order: ByteOrder,
    snaplen: u32,
) -> Result<PacketBlock<'_>, IngestErrorKind> {
    let origlen = order.u32(body, field::ORIGLEN);
    let room = body.len().saturating_sub(field::DATA);
    let mut caplen = origlen as usize;
    if snaplen != 0 {
        caplen = caplen.min(snaplen as usize);
    }
    if caplen > room {
        let what = format!(
            "Simple Packet Block of {} bytes is too short for {caplen} bytes of packet data",
            body.len() + 12
        );
        return Err(IngestErrorKind::Corrupt(what));
    }
    Ok(PacketBlock {
        interface_id: 0,
        ts_ticks: None,
        origlen,
        data: body
            .get(field::DATA..field::DATA + caplen)
            .unwrap_or_default(),
        options: &[],
        drop_count: None,
    })
}

//! Enhanced Packet Block (EPB): one packet with interface, 64-bit timestamp, captured and
//! original lengths, and options (comments, flags, drop count, packet id, queue, verdict).

use super::PacketBlock;
use crate::ingest::byte_order::ByteOrder;
use crate::ingest::IngestErrorKind;

pub const BLOCK_TYPE: u32 = 6;
pub const MIN_BLOCK_LEN: u32 = 32;

/// Body field offsets.
mod field {
    pub const INTERFACE_ID: usize = 0;
    pub const TS_HIGH: usize = 4;
    pub const TS_LOW: usize = 8;
    pub const CAPLEN: usize = 12;
    pub const ORIGLEN: usize = 16;
    pub const DATA: usize = 20;
}

/// Parses the body (block length already checked ≥ `MIN_BLOCK_LEN`).
pub fn parse(body: &[u8], order: ByteOrder) -> Result<PacketBlock<'_>, IngestErrorKind> {
    let caplen = order.u32(body, field::CAPLEN);
    let room = body.len().saturating_sub(field::DATA);
    if caplen as usize > room {
        let what = format!(
            "Enhanced Packet Block captured length {caplen} exceeds the {room} bytes of its block"
        );
        return Err(IngestErrorKind::Corrupt(what));
    }
    let data_end = field::DATA + caplen as usize;
    let ts = (order.u32(body, field::TS_HIGH) as u64) << 32 | order.u32(body, field::TS_LOW) as u64;
    Ok(PacketBlock {
        interface_id: order.u32(body, field::INTERFACE_ID),
        ts_ticks: Some(ts),
        origlen: order.u32(body, field::ORIGLEN),
        data: body.get(field::DATA..data_end).unwrap_or_default(),
        options: body.get(data_end.next_multiple_of(4)..).unwrap_or_default(),
        drop_count: None,
    })
}

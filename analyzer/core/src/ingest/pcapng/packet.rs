//! Packet Block (PB, obsolete): the EPB's predecessor, with a 16-bit interface id and a
//! 16-bit drop count. Still written by old tools, so still read.

use super::PacketBlock;
use crate::ingest::byte_order::ByteOrder;
use crate::ingest::IngestErrorKind;

pub const BLOCK_TYPE: u32 = 2;
pub const MIN_BLOCK_LEN: u32 = 32;

/// Body field offsets.
mod field {
    pub const INTERFACE_ID: usize = 0;
    pub const DROPS_COUNT: usize = 2;
    pub const TS_HIGH: usize = 4;
    pub const TS_LOW: usize = 8;
    pub const CAPLEN: usize = 12;
    pub const ORIGLEN: usize = 16;
    pub const DATA: usize = 20;
}

/// `drops_count` value meaning "not known".
const DROPS_UNKNOWN: u16 = 0xffff;

/// Parses the body (block length already checked ≥ `MIN_BLOCK_LEN`).
pub fn parse(body: &[u8], order: ByteOrder) -> Result<PacketBlock<'_>, IngestErrorKind> {
    let caplen = order.u32(body, field::CAPLEN);
    let room = body.len().saturating_sub(field::DATA);
    if caplen as usize > room {
        let what =
            format!("Packet Block captured length {caplen} exceeds the {room} bytes of its block");
        return Err(IngestErrorKind::Corrupt(what));
    }
    let data_end = field::DATA + caplen as usize;
    let ts = (order.u32(body, field::TS_HIGH) as u64) << 32 | order.u32(body, field::TS_LOW) as u64;
    let drops = order.u16(body, field::DROPS_COUNT);
    Ok(PacketBlock {
        interface_id: order.u16(body, field::INTERFACE_ID) as u32,
        ts_ticks: Some(ts),
        origlen: order.u32(body, field::ORIGLEN),
        data: body.get(field::DATA..data_end).unwrap_or_default(),
        options: body.get(data_end.next_multiple_of(4)..).unwrap_or_default(),
        drop_count: (drops != DROPS_UNKNOWN).then_some(drops as u64),
    })
}

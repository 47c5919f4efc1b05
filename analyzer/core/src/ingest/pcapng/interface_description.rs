//! Interface Description Block (IDB): link type, snapshot length and timestamp units of
//! one interface; packet blocks refer to it by its index within the section.

use super::options::{self, Options};
use crate::ingest::byte_order::ByteOrder;
use crate::ingest::interface::{InterfaceInfo, TsResolution};
use crate::ingest::IngestErrorKind;

pub const BLOCK_TYPE: u32 = 1;
pub const MIN_BLOCK_LEN: u32 = 20;

/// Body field offsets.
mod field {
    pub const LINKTYPE: usize = 0;
    pub const SNAPLEN: usize = 4;
    pub const OPTIONS: usize = 8;
}

pub const IF_NAME: u16 = 2;
pub const IF_DESCRIPTION: u16 = 3;
pub const IF_TSRESOL: u16 = 9;
pub const IF_FCSLEN: u16 = 13;
pub const IF_TSOFFSET: u16 = 14;

/// Parses the body (block length already checked ≥ `MIN_BLOCK_LEN`).
pub fn parse(
    body: &[u8],
    order: ByteOrder,
    section: u32,
) -> Result<InterfaceInfo, IngestErrorKind> {
    let mut iface = InterfaceInfo::new(
        order.u16(body, field::LINKTYPE) as u32,
        order.u32(body, field::SNAPLEN),
    );
    iface.section = section;
    let opts = body.get(field::OPTIONS..).unwrap_or_default();
    let mut opts = Options::new(opts, order);
    for opt in &mut opts {
        match opt.code {
            IF_NAME => iface.name = Some(options::text(opt.value)),
            IF_DESCRIPTION => iface.description = Some(options::text(opt.value)),
            IF_TSRESOL => {
                let byte = opt.value.first().copied().unwrap_or(6);
                // Units finer than 2^-63 or 10^-19 s do not fit a u64 count per second.
                iface.ts_resolution = TsResolution::from_tsresol(byte).ok_or_else(|| {
                    IngestErrorKind::Unsupported(format!("if_tsresol 0x{byte:02x} (too fine)"))
                })?;
            }
            IF_FCSLEN => iface.fcs_len = opt.value.first().copied(),
            IF_TSOFFSET => {
                if let Some(s) = options::u64_value(opt.value, order) {
                    iface.ts_offset_s = s as i64;
                }
            }
            _ => {}
        }
    }
    opts.check("Interface Description Block")?;
    Ok(iface)
}

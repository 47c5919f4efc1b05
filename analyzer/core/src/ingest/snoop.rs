//! Sun snoop (RFC 1761): a 16-byte file header, then packet records, all big-endian.
//! Shomiti/Finisar Surveyor wrote the same layout (versions 3-5) with a trailer in the
//! record padding and their own meaning for the datalink numbers.

use super::interface::{InterfaceInfo, TsResolution};
use super::source::ByteSource;
use super::{IngestError, IngestErrorKind};

pub const MAGIC: &[u8; 8] = b"snoop\0\0\0";
const FILE_HEADER_LEN: usize = 16;
/// File header field offsets (after the 8-byte identification pattern).
mod file_header {
    pub const VERSION: usize = 8;
    pub const DATALINK: usize = 12;
}

pub const RECORD_HEADER_LEN: usize = 24;
/// Record header field offsets.
mod record {
    pub const ORIGINAL_LENGTH: usize = 0;
    pub const INCLUDED_LENGTH: usize = 4;
    pub const RECORD_LENGTH: usize = 8;
    pub const TS_SECONDS: usize = 16;
    pub const TS_MICROSECONDS: usize = 20;
}
/// Padding at least this long in the first record is a Shomiti trailer.
const SHOMITI_TRAILER_LEN: u32 = 16;
/// Largest packet accepted (as Wireshark: 256 KiB).
const MAX_PACKET: u32 = 256 << 10;
/// Solaris' private datalink types have this bit set.
const PRIVATE: u32 = 0x8000_0000;

const LINKTYPE_NULL: u32 = 0;
const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_IEEE802_5: u32 = 6;
const LINKTYPE_FDDI: u32 = 10;
const LINKTYPE_IP_OVER_FC: u32 = 122;
/// SunATM's 4-byte pseudo-header (flags, VPI, VCI) is what snoop's DL_IPATM carries.
const LINKTYPE_SUNATM: u32 = 123;
const LINKTYPE_IPNET: u32 = 226;

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The LINKTYPE_ of a snoop datalink number (RFC 1761 and Solaris' `dlpi.h`).
fn linktype(datalink: u32, shomiti: bool) -> Option<u32> {
    if shomiti {
        return match datalink {
            0 | 4 | 10 | 12 | 19 => Some(LINKTYPE_ETHERNET),
            2 | 11 | 13 | 14 => Some(LINKTYPE_IEEE802_5),
            8 => Some(LINKTYPE_FDDI),
            _ => None,
        };
    }
    match datalink {
        0 | 4 => Some(LINKTYPE_ETHERNET),
        2 => Some(LINKTYPE_IEEE802_5),
        8 => Some(LINKTYPE_FDDI),
        9 | 14 => Some(LINKTYPE_NULL),
        16 => Some(LINKTYPE_IP_OVER_FC),
        18 => Some(LINKTYPE_SUNATM),
        d if d == PRIVATE | 5 => Some(LINKTYPE_IPNET),
        _ => None,
    }
}

/// Reads the file header (the magic was recognised).
pub fn read_header(src: &mut ByteSource) -> Result<InterfaceInfo, IngestError> {
    let have = src.fill(FILE_HEADER_LEN + RECORD_HEADER_LEN).map_err(|e| IngestError::io(e, 0))?;
    if have < FILE_HEADER_LEN {
        return Err(IngestError::truncated(FILE_HEADER_LEN, have, 0));
    }
    let h = src.peek(FILE_HEADER_LEN + RECORD_HEADER_LEN);
    let version = be32(h, file_header::VERSION);
    if !(2..=5).contains(&version) {
        let what = format!("snoop version {version} (versions 2 to 5 are read)");
        return Err(IngestError::new(IngestErrorKind::Unsupported(what), 0, 0));
    }
    let datalink = be32(h, file_header::DATALINK);
    // Only the padding of the first record tells Shomiti's files from Sun's.
    let shomiti = h.len() >= FILE_HEADER_LEN + RECORD_HEADER_LEN && {
        let r = &h[FILE_HEADER_LEN..];
        let padding = be32(r, record::RECORD_LENGTH)
            .checked_sub(RECORD_HEADER_LEN as u32 + be32(r, record::INCLUDED_LENGTH));
        padding.is_some_and(|p| p >= SHOMITI_TRAILER_LEN)
    };
    let Some(lt) = linktype(datalink, shomiti) else {
        let what = format!("snoop datalink type {datalink}{}", if shomiti { " (Shomiti)" } else { "" });
        return Err(IngestError::new(IngestErrorKind::Unsupported(what), 0, 0));
    };
    src.take(FILE_HEADER_LEN);
    let mut iface = InterfaceInfo::new(lt, 0);
    iface.ts_resolution = TsResolution::MICROS;
    if shomiti && lt == LINKTYPE_ETHERNET {
        iface.fcs_len = Some(4);
    }
    Ok(iface)
}

/// One record, borrowed from the source.
pub struct Record<'a> {
    pub ts_ns: i64,
    pub origlen: u32,
    pub data: &'a [u8],
}

/// Reads the next record; `Ok(None)` at a clean end of file.
pub fn read_record(src: &mut ByteSource) -> Result<Option<Record<'_>>, IngestError> {
    let start = src.offset();
    let have = src.fill(RECORD_HEADER_LEN).map_err(|e| IngestError::io(e, start))?;
    if have == 0 {
        if src.cut_short() {
            return Err(IngestError::truncated(RECORD_HEADER_LEN, 0, start));
        }
        return Ok(None);
    }
    if have < RECORD_HEADER_LEN {
        return Err(IngestError::truncated(RECORD_HEADER_LEN, have, start));
    }
    let h = src.peek(RECORD_HEADER_LEN);
    let orig = be32(h, record::ORIGINAL_LENGTH);
    let incl = be32(h, record::INCLUDED_LENGTH);
    let rec_len = be32(h, record::RECORD_LENGTH);
    let ts_ns = be32(h, record::TS_SECONDS) as i64 * 1_000_000_000 + be32(h, record::TS_MICROSECONDS) as i64 * 1_000;
    let bad = if incl > MAX_PACKET {
        Some(format!("snoop record included length {incl} exceeds the maximum {MAX_PACKET}"))
    } else if (rec_len as u64) < RECORD_HEADER_LEN as u64 + incl as u64 {
        Some(format!("snoop record length {rec_len} is shorter than its header and {incl} captured bytes"))
    } else if rec_len > MAX_PACKET + 4096 {
        Some(format!("snoop record length {rec_len} exceeds the maximum {}", MAX_PACKET + 4096))
    } else {
        None
    };
    if let Some(what) = bad {
        return Err(IngestError::corrupt(what, start));
    }
    let total = rec_len as usize;
    let have = src.fill(total).map_err(|e| IngestError::io(e, start))?;
    // The padding after the last record may be missing; the packet itself may not.
    let needed = RECORD_HEADER_LEN + incl as usize;
    if have < needed {
        return Err(IngestError::truncated(needed, have, start));
    }
    let rec = src.take(total.min(have));
    Ok(Some(Record { ts_ns, origlen: orig, data: &rec[RECORD_HEADER_LEN..needed] }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datalink_numbers_map_to_linktypes() {
        assert_eq!(linktype(4, false), Some(LINKTYPE_ETHERNET));
        assert_eq!(linktype(0, false), Some(LINKTYPE_ETHERNET));
        assert_eq!(linktype(PRIVATE | 5, false), Some(LINKTYPE_IPNET));
        assert_eq!(linktype(10, false), None);
        assert_eq!(linktype(10, true), Some(LINKTYPE_ETHERNET));
    }
}

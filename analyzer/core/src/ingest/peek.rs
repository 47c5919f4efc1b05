//! WildPackets EtherPeek / AiroPeek / TokenPeek "classic" files, format versions 5, 6 and
//! 7 (EtherPeek before 6.0, AiroPeek before 2.0): big-endian, no magic number. A 2-byte
//! master header (version, status), a 48-byte secondary header, then packet records.
//!
//! Versions 5 and 6 time packets in milliseconds from the file's reference time; version 7
//! in microseconds since 1904-01-01 (the Macintosh epoch), and pads records to an even
//! length.

use super::interface::{InterfaceInfo, TsResolution};
use super::source::ByteSource;
use super::{IngestError, IngestErrorKind};

pub const HEADER_LEN: usize = 50;
/// Header field offsets: master header, then the V5-V7 secondary header.
mod header {
    pub const VERSION: usize = 0;
    pub const TIME_DATE: usize = 2 + 8;
    pub const MEDIA_TYPE: usize = 2 + 20;
    pub const PHYS_MEDIUM: usize = 2 + 24;
    pub const RESERVED: std::ops::Range<usize> = 2 + 36..2 + 48;
}
/// EtherHelp wrote EtherPeek files with this bit set in the version.
const ETHERHELP_BIT: u8 = 0x80;

/// Record header (V5, V6): the timestamp is a 32-bit number aligned on 16 bits.
mod record56 {
    pub const LEN: usize = 26;
    pub const LENGTH: usize = 0;
    pub const SLICE_LENGTH: usize = 2;
    pub const TIMESTAMP_MS: usize = 6;
}
/// Record header (V7).
mod record7 {
    pub const LEN: usize = 16;
    pub const LENGTH: usize = 2;
    pub const SLICE_LENGTH: usize = 4;
    pub const TIMESTAMP_US: usize = 8;
}
/// Seconds from 1904-01-01 to 1970-01-01.
const MAC_EPOCH_OFFSET_S: i64 = 2_082_844_800;

const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_IEEE802_5: u32 = 6;

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The link type a header describes, `None` for a header that is not a Peek classic one
/// (there is no magic number: version, reserved words and media must all fit).
fn linktype_of(h: &[u8]) -> Option<u32> {
    if h.len() < HEADER_LEN || !matches!(h[header::VERSION] & !ETHERHELP_BIT, 5..=7) {
        return None;
    }
    if h[header::RESERVED].iter().any(|&b| b != 0) {
        return None;
    }
    match (be32(h, header::PHYS_MEDIUM), be32(h, header::MEDIA_TYPE)) {
        (0, 0) => Some(LINKTYPE_ETHERNET),
        (0, 1) => Some(LINKTYPE_IEEE802_5),
        // 802.11 with AiroPeek's radio header: recognised, not read.
        (1, 0) => Some(u32::MAX),
        _ => None,
    }
}

/// True when `head` is a Peek classic file header.
pub fn detect(head: &[u8]) -> bool {
    linktype_of(head).is_some()
}

#[derive(Debug, Clone)]
pub struct PeekState {
    version: u8,
    /// V5/V6 timestamps count from here.
    reference_ns: i64,
}

pub fn read_header(src: &mut ByteSource) -> Result<(PeekState, InterfaceInfo), IngestError> {
    let have = src.fill(HEADER_LEN).map_err(|e| IngestError::io(e, 0))?;
    if have < HEADER_LEN {
        return Err(IngestError::truncated(HEADER_LEN, have, 0));
    }
    let h = src.peek(HEADER_LEN);
    let linktype = linktype_of(h).ok_or_else(|| IngestError::corrupt("Peek classic file header".into(), 0))?;
    if linktype == u32::MAX {
        let what = "AiroPeek 802.11 capture (Peek classic with radio headers)".to_string();
        return Err(IngestError::new(IngestErrorKind::Unsupported(what), 0, 0));
    }
    let st = PeekState {
        version: h[header::VERSION] & !ETHERHELP_BIT,
        reference_ns: (be32(h, header::TIME_DATE) as i64 - MAC_EPOCH_OFFSET_S) * 1_000_000_000,
    };
    src.take(HEADER_LEN);
    let mut iface = InterfaceInfo::new(linktype, 0);
    iface.ts_resolution = TsResolution::MICROS;
    Ok((st, iface))
}

pub struct Record<'a> {
    pub ts_ns: i64,
    pub origlen: u32,
    pub data: &'a [u8],
}

/// Reads the next record; `Ok(None)` at a clean end of file.
pub fn read_record<'a>(st: &PeekState, src: &'a mut ByteSource) -> Result<Option<Record<'a>>, IngestError> {
    let start = src.offset();
    let hlen = if st.version == 7 { record7::LEN } else { record56::LEN };
    let have = src.fill(hlen).map_err(|e| IngestError::io(e, start))?;
    if have == 0 {
        if src.cut_short() {
            return Err(IngestError::truncated(hlen, 0, start));
        }
        return Ok(None);
    }
    if have < hlen {
        return Err(IngestError::truncated(hlen, have, start));
    }
    let h = src.peek(hlen);
    let (length, slice, ts_ns) = if st.version == 7 {
        let us = u64::from_be_bytes(h[record7::TIMESTAMP_US..record7::TIMESTAMP_US + 8].try_into().unwrap_or_default());
        let ns = (us as i128 - MAC_EPOCH_OFFSET_S as i128 * 1_000_000) * 1_000;
        let ns = ns.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        (be16(h, record7::LENGTH), be16(h, record7::SLICE_LENGTH), ns)
    } else {
        let ms = be32(h, record56::TIMESTAMP_MS) as i64;
        (be16(h, record56::LENGTH), be16(h, record56::SLICE_LENGTH), st.reference_ns + ms * 1_000_000)
    };
    // A slice length of 0 means the whole packet was kept.
    let caplen = if slice == 0 { length } else { slice } as usize;
    // V7 records are padded to an even length.
    let padding = usize::from(st.version == 7 && caplen % 2 == 1);
    let total = hlen + caplen + padding;
    let have = src.fill(total).map_err(|e| IngestError::io(e, start))?;
    if have < hlen + caplen {
        return Err(IngestError::truncated(hlen + caplen, have, start));
    }
    let rec = src.take(total.min(have));
    Ok(Some(Record { ts_ns, origlen: length as u32, data: &rec[hlen..hlen + caplen] }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(version: u8, media: u32, phys: u32) -> Vec<u8> {
        let mut h = vec![0u8; HEADER_LEN];
        h[0] = version;
        h[header::MEDIA_TYPE..header::MEDIA_TYPE + 4].copy_from_slice(&media.to_be_bytes());
        h[header::PHYS_MEDIUM..header::PHYS_MEDIUM + 4].copy_from_slice(&phys.to_be_bytes());
        h
    }

    #[test]
    fn header_fields_decide_recognition() {
        assert!(detect(&header(5, 0, 0)));
        assert!(detect(&header(0x87, 1, 0)));
        assert!(!detect(&header(4, 0, 0)));
        assert!(!detect(&header(6, 2, 0)));
        let mut reserved = header(6, 0, 0);
        reserved[HEADER_LEN - 1] = 1;
        assert!(!detect(&reserved));
        assert!(!detect(&header(6, 0, 0)[..40]));
    }
}

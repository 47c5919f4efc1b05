//! Trace record headers: the first bytes of each event in a buffer say which header
//! layout follows (`TRACE_HEADER_TYPE_*`), and each layout says where the size is.
//!
//! A record is one header plus payload; the next record starts at the next multiple of
//! 8. Every layout is parsed far enough to know its size, so unknown events are skipped
//! rather than ending the buffer. Layouts (offsets in bytes):
//!
//! | type | header | size at | timestamp at | identity |
//! |---|---|---|---|---|
//! | SYSTEM32/64 (1, 2) | 32 | 4 | 16 | HookId (group, type) at 6 |
//! | COMPACT32/64 (3, 4) | 24 | 4 | 16 | HookId at 6 |
//! | PERFINFO32/64 (0x10, 0x11) | 16 | 4 | 8 | HookId at 6 |
//! | FULL_HEADER32/64 (0x0A, 0x14) `EVENT_TRACE_HEADER` | 48 | 0 | 16 | GUID at 24, type at 4 |
//! | INSTANCE32/64 (0x0B, 0x15) | 72 | 0 | 16 | GUID at 24 |
//! | EVENT_HEADER32/64 (0x12, 0x13) `EVENT_HEADER` | 80 + extended items | 0 | 16 | provider at 24, descriptor at 40 |
//! | message (WPP, marker 0x9x) | 8 + optional fields | 0 | in optional fields | — |

use crate::bytes::{align8, guid_at, i64_at, u16_at, u32_at, u64_at, u8_at, Guid};

/// `TRACE_HEADER_TYPE_*` and the message form, as found in a record's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeaderKind {
    System { ptr64: bool },
    Compact { ptr64: bool },
    PerfInfo { ptr64: bool },
    Full { ptr64: bool },
    Instance { ptr64: bool },
    Event { ptr64: bool },
    /// A WPP `MESSAGE_TRACE_HEADER` record.
    Message,
    /// Timed, error or WNODE headers: sized, never decoded.
    Other(u8),
}

/// `EVENT_DESCRIPTOR`; for classic (`EVENT_TRACE_HEADER`) events, `opcode` is the class
/// type, and for kernel system events `id` is the HookId.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventDescriptor {
    pub id: u16,
    pub version: u8,
    pub channel: u8,
    pub level: u8,
    pub opcode: u8,
    pub task: u16,
    pub keyword: u64,
}

/// `EVENT_HEADER_FLAG_*` bits.
pub mod event_flag {
    pub const EXTENDED_INFO: u16 = 0x0001;
    pub const PRIVATE_SESSION: u16 = 0x0002;
    pub const STRING_ONLY: u16 = 0x0004;
    pub const TRACE_MESSAGE: u16 = 0x0008;
    pub const NO_CPUTIME: u16 = 0x0010;
    pub const HEADER_32_BIT: u16 = 0x0020;
    pub const HEADER_64_BIT: u16 = 0x0040;
    pub const CLASSIC_HEADER: u16 = 0x0100;
    pub const PROCESSOR_INDEX: u16 = 0x0200;
}

/// One parsed record header. Offsets are relative to the record's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    pub kind: HeaderKind,
    /// Exact record size (header, extended items, payload), before 8-byte alignment.
    pub size: usize,
    /// Raw clock value, when the layout carries one.
    pub timestamp: Option<i64>,
    pub thread_id: u32,
    pub process_id: u32,
    pub provider: Guid,
    pub descriptor: EventDescriptor,
    /// `EVENT_HEADER` flags (0 for other layouts).
    pub flags: u16,
    /// Number of `EVENT_HEADER_EXTENDED_DATA_ITEM`s before the payload.
    pub extended_items: u16,
    pub payload_offset: usize,
}

impl RecordHeader {
    /// Pointer width of the writer, from the header type and the event flags.
    pub fn pointer_size(&self) -> usize {
        if self.flags & event_flag::HEADER_32_BIT != 0 {
            return 4;
        }
        if self.flags & event_flag::HEADER_64_BIT != 0 {
            return 8;
        }
        match self.kind {
            HeaderKind::System { ptr64 }
            | HeaderKind::Compact { ptr64 }
            | HeaderKind::PerfInfo { ptr64 }
            | HeaderKind::Full { ptr64 }
            | HeaderKind::Instance { ptr64 }
            | HeaderKind::Event { ptr64 } => {
                if ptr64 {
                    8
                } else {
                    4
                }
            }
            _ => 8,
        }
    }

    /// Bytes from this record's start to the next record's start.
    pub fn stride(&self) -> usize {
        align8(self.size).unwrap_or(usize::MAX)
    }
}

/// What the bytes at a record position are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Record(RecordHeader),
    /// Zero or 0xFF fill: the buffer's events ended.
    End,
}

const EVENT_HEADER_LEN: usize = 0x50;
const EXT_ITEM_HEADER_LEN: usize = 8;
const EXT_LINKAGE: u16 = 0x0001;

/// Parses the record header at the start of `b` (the rest of the buffer).
pub fn parse_record(b: &[u8]) -> Result<Parsed, &'static str> {
    let Some(marker) = u32_at(b, 0) else {
        return Ok(Parsed::End);
    };
    if marker == 0 || marker == u32::MAX {
        return Ok(Parsed::End);
    }
    let header_type = (marker >> 16) as u8;
    let marker_flags = (marker >> 24) as u8;
    let size_at_0 = (marker & 0xFFFF) as usize;
    let mut h = RecordHeader {
        kind: HeaderKind::Other(header_type),
        size: size_at_0,
        timestamp: None,
        thread_id: 0,
        process_id: 0,
        provider: Guid::default(),
        descriptor: EventDescriptor::default(),
        flags: 0,
        extended_items: 0,
        payload_offset: 0,
    };
    let hdr_len;
    if marker_flags & 0xC0 == 0xC0 {
        let kind = match header_type {
            0x01 | 0x02 => HeaderKind::System { ptr64: header_type == 0x02 },
            0x03 | 0x04 => HeaderKind::Compact { ptr64: header_type == 0x04 },
            0x10 | 0x11 => HeaderKind::PerfInfo { ptr64: header_type == 0x11 },
            0x0A | 0x14 => HeaderKind::Full { ptr64: header_type == 0x14 },
            0x0B | 0x15 => HeaderKind::Instance { ptr64: header_type == 0x15 },
            0x12 | 0x13 => HeaderKind::Event { ptr64: header_type == 0x13 },
            0x0C..=0x0E => HeaderKind::Other(header_type),
            _ => return Err("unknown trace header type"),
        };
        h.kind = kind;
        hdr_len = match kind {
            HeaderKind::System { .. } | HeaderKind::Compact { .. } | HeaderKind::PerfInfo { .. } => {
                h.size = u16_at(b, 4).ok_or("record header cut short")? as usize;
                h.descriptor.id = u16_at(b, 6).ok_or("record header cut short")?;
                match kind {
                    HeaderKind::System { .. } => 0x20,
                    HeaderKind::Compact { .. } => 0x18,
                    _ => 0x10,
                }
            }
            HeaderKind::Full { .. } | HeaderKind::Instance { .. } => {
                h.descriptor.opcode = u8_at(b, 4).unwrap_or(0);
                h.descriptor.level = u8_at(b, 5).unwrap_or(0);
                h.descriptor.version = u16_at(b, 6).unwrap_or(0) as u8;
                if matches!(kind, HeaderKind::Full { .. }) {
                    0x30
                } else {
                    0x48
                }
            }
            HeaderKind::Event { .. } => EVENT_HEADER_LEN,
            _ => 4,
        };
    } else if marker_flags & 0xD0 == 0x90 {
        h.kind = HeaderKind::Message;
        hdr_len = 8;
    } else {
        return Err("record marker is not a trace header");
    }
    if h.size < hdr_len || h.size > b.len() {
        return Err("record size outside the buffer");
    }
    let r = &b[..h.size];
    match h.kind {
        HeaderKind::System { .. } | HeaderKind::Compact { .. } => {
            h.thread_id = u32_at(r, 8).unwrap_or(0);
            h.process_id = u32_at(r, 12).unwrap_or(0);
            h.timestamp = i64_at(r, 16);
        }
        HeaderKind::PerfInfo { .. } => h.timestamp = i64_at(r, 8),
        HeaderKind::Full { .. } | HeaderKind::Instance { .. } => {
            h.thread_id = u32_at(r, 8).unwrap_or(0);
            h.process_id = u32_at(r, 12).unwrap_or(0);
            h.timestamp = i64_at(r, 16);
            h.provider = guid_at(r, 24).unwrap_or_default();
        }
        HeaderKind::Event { .. } => {
            h.flags = u16_at(r, 4).unwrap_or(0);
            h.thread_id = u32_at(r, 8).unwrap_or(0);
            h.process_id = u32_at(r, 12).unwrap_or(0);
            h.timestamp = i64_at(r, 16);
            h.provider = guid_at(r, 24).unwrap_or_default();
            h.descriptor = EventDescriptor {
                id: u16_at(r, 40).unwrap_or(0),
                version: u8_at(r, 42).unwrap_or(0),
                channel: u8_at(r, 43).unwrap_or(0),
                level: u8_at(r, 44).unwrap_or(0),
                opcode: u8_at(r, 45).unwrap_or(0),
                task: u16_at(r, 46).unwrap_or(0),
                keyword: u64_at(r, 48).unwrap_or(0),
            };
        }
        HeaderKind::Message => {
            h.timestamp = message_timestamp(r);
        }
        HeaderKind::Other(_) => {}
    }
    let mut payload = hdr_len;
    if matches!(h.kind, HeaderKind::Event { .. }) && h.flags & event_flag::EXTENDED_INFO != 0 {
        loop {
            let ext_flags = u16_at(r, payload + 4).ok_or("extended data item cut short")?;
            let data_size = u16_at(r, payload + 6).ok_or("extended data item cut short")? as usize;
            payload = align8(payload + EXT_ITEM_HEADER_LEN + data_size).ok_or("extended data overflows")?;
            h.extended_items = h.extended_items.saturating_add(1);
            if payload > r.len() {
                return Err("extended data runs past the record");
            }
            if ext_flags & EXT_LINKAGE == 0 {
                break;
            }
        }
    }
    h.payload_offset = payload;
    Ok(Parsed::Record(h))
}

/// A WPP message's optional fields come in a fixed order after the 8-byte header:
/// sequence (u32), GUID or component id, timestamp (u64), system info.
fn message_timestamp(r: &[u8]) -> Option<i64> {
    const SEQUENCE: u16 = 0x01;
    const GUID: u16 = 0x02;
    const COMPONENT_ID: u16 = 0x04;
    const TIMESTAMP: u16 = 0x08;
    let options = u16_at(r, 6)?;
    let mut at = 8;
    if options & SEQUENCE != 0 {
        at += 4;
    }
    if options & GUID != 0 {
        at += 16;
    } else if options & COMPONENT_ID != 0 {
        at += 4;
    }
    if options & TIMESTAMP != 0 {
        return i64_at(r, at);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_header_with_two_extended_items() {
        let mut r = vec![0u8; 0x50];
        r[2] = 0x13;
        r[3] = 0xC0;
        r[4] = event_flag::EXTENDED_INFO as u8;
        r[16..24].copy_from_slice(&1234i64.to_le_bytes());
        r[40..42].copy_from_slice(&160u16.to_le_bytes());
        // item 1: linkage set, 4 data bytes (padded to 8); item 2: last, 8 bytes.
        r.extend_from_slice(&[0, 0, 1, 0, 1, 0, 4, 0, 9, 9, 9, 9, 0, 0, 0, 0]);
        r.extend_from_slice(&[0, 0, 2, 0, 0, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        r.extend_from_slice(b"PAY");
        let n = r.len() as u16;
        r[0..2].copy_from_slice(&n.to_le_bytes());
        let Parsed::Record(h) = parse_record(&r).unwrap() else { panic!() };
        assert_eq!(h.extended_items, 2);
        assert_eq!(&r[h.payload_offset..h.size], b"PAY");
        assert_eq!((h.timestamp, h.descriptor.id, h.pointer_size()), (Some(1234), 160, 8));
        assert_eq!(h.stride(), 0x50 + 32 + 8);
    }

    #[test]
    fn fill_ends_and_garbage_errs() {
        assert_eq!(parse_record(&[0xFF; 16]), Ok(Parsed::End));
        assert_eq!(parse_record(&[0; 3]), Ok(Parsed::End));
        assert!(parse_record(&[8, 0, 0x77, 0xC0, 0, 0, 0, 0]).is_err());
        // size larger than what is left
        assert!(parse_record(&[0x60, 0, 0x13, 0xC0, 0, 0, 0, 0]).is_err());
    }
}

//! `WMI_BUFFER_HEADER`: the 72-byte header in front of every ETL buffer.
//!
//! An ETL file is a sequence of buffers. Uncompressed files use one fixed size (the
//! `BufferSize` of the first buffer, also in `TRACE_LOGFILE_HEADER`); in compressed
//! (relogged) files each buffer's `BufferSize` is its size on disk, so the walk always
//! advances by the current buffer's own `BufferSize`. Events inside one buffer were
//! written by one processor and are in time order.

use crate::bytes::{i64_at, u16_at, u32_at, u64_at, u8_at};

/// `sizeof(WMI_BUFFER_HEADER)`.
pub const BUFFER_HEADER_LEN: usize = 0x48;

mod field {
    pub const BUFFER_SIZE: usize = 0x00;
    pub const SAVED_OFFSET: usize = 0x04;
    pub const TIMESTAMP: usize = 0x10;
    pub const SEQUENCE: usize = 0x18;
    pub const CLIENT_CONTEXT: usize = 0x28; // ProcessorNumber u8, Alignment u8, LoggerId u16
    pub const LOGGER_ID: usize = 0x2A;
    pub const OFFSET: usize = 0x30;
    pub const BUFFER_FLAG: usize = 0x34;
    pub const BUFFER_TYPE: usize = 0x36;
}

/// `ETW_BUFFER_FLAG_*` bits of `BufferFlag`.
pub mod flag {
    pub const FLUSH_MARKER: u16 = 0x0001;
    pub const EVENTS_LOST: u16 = 0x0002;
    pub const BUFFER_LOST: u16 = 0x0004;
    pub const RTBACKUP_CORRUPT: u16 = 0x0008;
    pub const RTBACKUP: u16 = 0x0010;
    /// `ClientContext` holds an 11-bit processor index instead of a byte.
    pub const PROC_INDEX: u16 = 0x0020;
    /// The payload after the header is Plain LZ77 compressed ([`crate::xpress`]).
    pub const COMPRESSED: u16 = 0x0040;
}

/// `ETW_BUFFER_TYPE_*` values of `BufferType`.
pub mod buffer_type {
    pub const GENERIC: u16 = 0;
    pub const RUNDOWN: u16 = 1;
    pub const CTX_SWAP: u16 = 2;
    pub const REFTIME: u16 = 3;
    /// The first buffer, holding the `TRACE_LOGFILE_HEADER` event.
    pub const HEADER: u16 = 4;
    pub const BATCHED: u16 = 5;
    pub const EMPTY_MARKER: u16 = 6;
    pub const DBG_INFO: u16 = 7;
}

/// The fields of one `WMI_BUFFER_HEADER` that a reader needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferHeader {
    /// Bytes this buffer occupies in the file, header included.
    pub buffer_size: u32,
    /// End of the event data (header included); for compressed buffers the
    /// decompressed size plus the header.
    pub saved_offset: u32,
    /// `Offset` at flush time; usually equal to `saved_offset`.
    pub offset: u32,
    /// Flush time (FILETIME or raw clock, depending on the session).
    pub timestamp: i64,
    pub sequence: u64,
    /// Processor whose events fill this buffer.
    pub processor: u16,
    pub logger_id: u16,
    pub flags: u16,
    pub buffer_type: u16,
}

impl BufferHeader {
    /// Reads the header from the first [`BUFFER_HEADER_LEN`] bytes of `b`.
    pub fn parse(b: &[u8]) -> Option<BufferHeader> {
        if b.len() < BUFFER_HEADER_LEN {
            return None;
        }
        let flags = u16_at(b, field::BUFFER_FLAG)?;
        let processor = if flags & flag::PROC_INDEX != 0 {
            u16_at(b, field::CLIENT_CONTEXT)? & 0x07FF
        } else {
            u8_at(b, field::CLIENT_CONTEXT)? as u16
        };
        Some(BufferHeader {
            buffer_size: u32_at(b, field::BUFFER_SIZE)?,
            saved_offset: u32_at(b, field::SAVED_OFFSET)?,
            offset: u32_at(b, field::OFFSET)?,
            timestamp: i64_at(b, field::TIMESTAMP)?,
            sequence: u64_at(b, field::SEQUENCE)?,
            processor,
            logger_id: u16_at(b, field::LOGGER_ID)?,
            flags,
            buffer_type: u16_at(b, field::BUFFER_TYPE)?,
        })
    }

    pub fn is_compressed(&self) -> bool {
        self.flags & flag::COMPRESSED != 0
    }

    /// Length of the event data after the header: decompressed length for compressed
    /// buffers, else the filled part of the buffer. `None` when the fields contradict.
    pub fn payload_len(&self) -> Option<usize> {
        let saved_fits = self.saved_offset as usize >= BUFFER_HEADER_LEN && self.saved_offset <= self.buffer_size;
        let end = if self.is_compressed() || saved_fits {
            self.saved_offset
        } else if self.offset as usize >= BUFFER_HEADER_LEN && self.offset <= self.buffer_size {
            self.offset
        } else {
            return None;
        };
        (end as usize).checked_sub(BUFFER_HEADER_LEN)
    }
}

//! Why a capture could not be read (further), and where.

use std::fmt;

/// What went wrong. Each kind maps to one CLI exit code (see `docs/exit-codes.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IngestErrorKind {
    /// The file could not be opened or read (OS error text).
    Io(String),
    /// Zero bytes.
    Empty,
    /// The first bytes match no supported capture format.
    NotACapture { magic: [u8; 4] },
    /// A supported format with an unsupported version or feature.
    Unsupported(String),
    /// The file ends inside a header or record.
    Truncated { needed: u64, available: u64 },
    /// A length, count or field value that the format forbids.
    Corrupt(String),
}

/// An error positioned in the input: byte `offset` of the (decompressed) stream and the
/// last frame read before it, so a user can open the damage in a hex editor or Wireshark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestError {
    pub kind: IngestErrorKind,
    /// Byte offset of the header or record that failed, in the decompressed stream.
    pub offset: u64,
    /// Number of frames read successfully before the error.
    pub frames_read: u64,
}

impl IngestError {
    pub fn new(kind: IngestErrorKind, offset: u64, frames_read: u64) -> Self {
        IngestError {
            kind,
            offset,
            frames_read,
        }
    }

    /// The file ends `available` bytes into a record or header that needs `needed`.
    pub(crate) fn truncated(needed: usize, available: usize, offset: u64) -> Self {
        let kind = IngestErrorKind::Truncated {
            needed: needed as u64,
            available: available as u64,
        };
        IngestError::new(kind, offset, 0)
    }

    pub(crate) fn corrupt(what: String, offset: u64) -> Self {
        IngestError::new(IngestErrorKind::Corrupt(what), offset, 0)
    }

    /// A read failure. Decompressors report damaged data as `InvalidData`/`InvalidInput`:
    /// that is a corrupt file, not an OS problem.
    pub(crate) fn io(e: std::io::Error, offset: u64) -> Self {
        let kind = match e.kind() {
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput => {
                IngestErrorKind::Corrupt(format!("compressed data: {e}"))
            }
            _ => IngestErrorKind::Io(e.to_string()),
        };
        IngestError::new(kind, offset, 0)
    }

    /// True when frames before the damage were read: results are partial, not absent.
    pub fn is_partial(&self) -> bool {
        self.frames_read > 0
    }
}

impl fmt::Display for IngestErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IngestErrorKind::Io(e) => write!(f, "cannot read: {e}"),
            IngestErrorKind::Empty => write!(f, "empty input (no bytes), not a capture"),
            IngestErrorKind::NotACapture { magic } => write!(
                f,
                "not a pcap, pcapng, snoop, Peek, NetMon or ETL capture, plain or gzip/zstd/xz/bzip2-compressed (first bytes {:02x} {:02x} {:02x} {:02x})",
                magic[0], magic[1], magic[2], magic[3]
            ),
            IngestErrorKind::Unsupported(what) => write!(f, "unsupported: {what}"),
            IngestErrorKind::Truncated { needed, available } => write!(
                f,
                "truncated: record needs {needed} bytes, only {available} left"
            ),
            IngestErrorKind::Corrupt(what) => write!(f, "corrupt: {what}"),
        }
    }
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}", self.offset)?;
        if self.frames_read > 0 {
            write!(f, " (after frame {})", self.frames_read)?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for IngestError {}

//! Random access for the formats that need it (NetMon's frame table, ETL's per-CPU
//! buffers): the regular file itself, or — for a pipe or a decompressed stream — the whole
//! stream held in memory, up to a bound, with a clear error past it.

use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::sync::Arc;

use super::source::ByteSource;
use super::{IngestError, IngestErrorKind};

/// Default bound on a stream held in memory; `TCPDIAG_BUFFER_LIMIT_MB` changes it.
pub const DEFAULT_LIMIT: u64 = 1 << 30;

/// A seekable view of the whole input.
pub enum RandomAccess {
    File(File),
    Memory(Cursor<Shared>),
}

/// Bytes held once, read through several cursors.
#[derive(Clone)]
pub struct Shared(Arc<Vec<u8>>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl RandomAccess {
    /// Bytes held in memory (tests, fuzzing).
    pub fn memory(bytes: Vec<u8>) -> RandomAccess {
        RandomAccess::Memory(Cursor::new(Shared(Arc::new(bytes))))
    }

    /// A second view of the same input, for a reader that reads it twice (not a second
    /// opening: the same open file, or the same bytes).
    pub fn try_clone(&self) -> io::Result<RandomAccess> {
        Ok(match self {
            RandomAccess::File(f) => RandomAccess::File(f.try_clone()?),
            RandomAccess::Memory(c) => RandomAccess::Memory(Cursor::new(c.get_ref().clone())),
        })
    }
}

impl Read for RandomAccess {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            RandomAccess::File(f) => f.read(buf),
            RandomAccess::Memory(c) => c.read(buf),
        }
    }
}

impl Seek for RandomAccess {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            RandomAccess::File(f) => f.seek(to),
            RandomAccess::Memory(c) => c.seek(to),
        }
    }
}

/// The bound in bytes: `TCPDIAG_BUFFER_LIMIT_MB` (MiB) or [`DEFAULT_LIMIT`].
pub fn limit() -> u64 {
    std::env::var("TCPDIAG_BUFFER_LIMIT_MB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_LIMIT, |mb| mb.saturating_mul(1 << 20))
}

/// Reads what is left of `src` (from its start: nothing was consumed yet) into memory, up
/// to `limit` bytes. `what` names the format for the error past the bound.
pub fn buffer(mut src: ByteSource, limit: u64, what: &str) -> Result<RandomAccess, IngestError> {
    let mut all = Vec::new();
    loop {
        let have = src.fill(1 << 20).map_err(|e| IngestError::io(e, src.offset()))?;
        if have == 0 {
            break;
        }
        if all.len() as u64 + have as u64 > limit {
            let what = format!(
                "{what} needs random access; from a pipe or a compressed file it is held in memory, \
                 up to {} MiB (TCPDIAG_BUFFER_LIMIT_MB), and this one is larger: decompress it to a file first",
                limit >> 20
            );
            return Err(IngestError::new(IngestErrorKind::Unsupported(what), all.len() as u64, 0));
        }
        all.extend_from_slice(src.take(have));
    }
    // A stream cut short (a truncated gzip member) ends here: the format's reader finds the
    // damage at the end of these bytes, after the frames before it.
    Ok(RandomAccess::memory(all))
}

//! The input, opened once: a path (a regular file, a FIFO, `/dev/fd/N` from a shell's
//! process substitution, a device) or `-` for standard input, its compression layers
//! peeled off as they are recognised (a `.gz` of a `.zst` of a pcapng), and the format
//! decided from the bytes already read. Nothing is opened, read or even looked at twice,
//! so a pipe works exactly like a file.
//!
//! A plain regular file is read through a moving memory map ([`ByteSource::mapped`]);
//! everything else as a stream. Formats that need random access (NetMon, ETL) get the
//! regular file itself, or the stream held in memory up to a bound
//! ([`super::random_access`]).

use std::fs::File;
use std::io::{Cursor, Read};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::compression::Compression;
use super::random_access::{self, RandomAccess};
use super::read_ahead::ReadAhead;
use super::source::{ByteSource, CountingReader};
use super::{netmon, pcap, pcapng, peek, snoop, IngestError, IngestErrorKind};

/// Bytes looked at to recognise a format: a NetMon file header is the longest needed
/// (an ETL buffer header and first record marker, 80 bytes, fit as well).
pub const SNIFF_LEN: usize = 128;
/// Compression layers peeled at most (a gzip quine would otherwise never end).
const MAX_LAYERS: usize = 4;

/// The container format, as found in the first bytes of the (decompressed) stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Pcap(pcap::PcapMagic),
    Pcapng,
    Snoop,
    PeekClassic,
    NetMon,
    /// None of ours (an ETL trace is recognised by the ETL crate from [`Input::head`]).
    Unknown,
}

impl Format {
    pub fn detect(head: &[u8]) -> Format {
        if let Some(m) = head.get(..4).and_then(|h| pcap::detect([h[0], h[1], h[2], h[3]])) {
            Format::Pcap(m)
        } else if head.get(..4).is_some_and(|h| u32::from_le_bytes([h[0], h[1], h[2], h[3]]) == pcapng::section_header::BLOCK_TYPE) {
            Format::Pcapng
        } else if head.starts_with(snoop::MAGIC) {
            Format::Snoop
        } else if netmon::detect(head) {
            Format::NetMon
        } else if peek::detect(head) {
            Format::PeekClassic
        } else {
            Format::Unknown
        }
    }
}

/// One input, open, with its first bytes buffered and nothing consumed yet.
pub struct Input {
    src: ByteSource,
    /// The regular file under `src` while no decompressor stands between (random access).
    file: Option<File>,
    layers: Vec<Compression>,
    raw_bytes: Arc<AtomicU64>,
}

fn io_error(e: std::io::Error) -> IngestError {
    IngestError::io(e, 0)
}

impl Input {
    /// Opens `path` (`-` is standard input) and peels its compression layers.
    pub fn open(path: &Path) -> Result<Input, IngestError> {
        if path.as_os_str() == "-" {
            return Input::from_read(Box::new(std::io::stdin()));
        }
        let file = File::open(path).map_err(io_error)?;
        // The open file's own metadata (fstat): a FIFO is not opened a second time to ask.
        let meta = file.metadata().map_err(io_error)?;
        if meta.is_dir() {
            return Err(IngestError::new(IngestErrorKind::Io("is a directory".into()), 0, 0));
        }
        let raw_bytes = Arc::new(AtomicU64::new(0));
        let regular = meta.is_file();
        if regular && meta.len() > 0 && !compressed_at_start(&file) {
            if let Some(src) = ByteSource::mapped(&file, raw_bytes.clone()) {
                return Input::layered(src, Some(file), raw_bytes);
            }
        }
        // Streamed: a pipe, a device, a compressed file (or TCPDIAG_NO_MMAP). A regular
        // file keeps a second handle to the same open file for random access.
        let random = if regular { file.try_clone().ok() } else { None };
        let src = ByteSource::new(Box::new(CountingReader::new(file, raw_bytes.clone())));
        Input::layered(src, random, raw_bytes)
    }

    /// Any byte stream (standard input, a socket, bytes in memory).
    pub fn from_read(r: Box<dyn Read + Send>) -> Result<Input, IngestError> {
        let raw_bytes = Arc::new(AtomicU64::new(0));
        let src = ByteSource::new(Box::new(CountingReader::new(r, raw_bytes.clone())));
        Input::layered(src, None, raw_bytes)
    }

    fn layered(mut src: ByteSource, mut file: Option<File>, raw_bytes: Arc<AtomicU64>) -> Result<Input, IngestError> {
        let mut layers = Vec::new();
        loop {
            let have = src.fill(SNIFF_LEN).map_err(|e| IngestError::io(e, 0))?;
            if have == 0 {
                if src.cut_short() {
                    return Err(IngestError::truncated(4, 0, 0));
                }
                return Err(IngestError::new(IngestErrorKind::Empty, 0, 0));
            }
            let Some(c) = Compression::detect(src.peek(SNIFF_LEN)) else { break };
            if layers.len() == MAX_LAYERS {
                let what = format!("more than {MAX_LAYERS} nested compression layers");
                return Err(IngestError::new(IngestErrorKind::Unsupported(what), 0, 0));
            }
            let (pending, inner) = src.into_parts();
            let decoded = c.decoder(Box::new(Cursor::new(pending).chain(inner)));
            src = ByteSource::new(ReadAhead::spawn(decoded));
            src.set_lenient_eof(true);
            layers.push(c);
            file = None;
        }
        Ok(Input { src, file, layers, raw_bytes })
    }

    /// The first bytes of the (decompressed) stream, up to [`SNIFF_LEN`].
    pub fn head(&self) -> &[u8] {
        self.src.peek(SNIFF_LEN)
    }

    pub fn format(&self) -> Format {
        Format::detect(self.head())
    }

    /// Compression layers, outermost first.
    pub fn compression(&self) -> &[Compression] {
        &self.layers
    }

    /// Counts the bytes read from the file itself (before decompression), for progress.
    pub fn raw_bytes(&self) -> Arc<AtomicU64> {
        self.raw_bytes.clone()
    }

    /// The error for an input that is no format we read (`head` too short to tell is a
    /// truncated capture when it starts like one).
    pub fn unknown_format(&self) -> IngestError {
        let head = self.head();
        if head.len() < 4 && starts_like_a_capture(head) {
            return IngestError::truncated(4, head.len(), 0);
        }
        let mut magic = [0u8; 4];
        for (m, b) in magic.iter_mut().zip(head) {
            *m = *b;
        }
        IngestError::new(IngestErrorKind::NotACapture { magic }, 0, 0)
    }

    pub(crate) fn into_parts(self) -> (ByteSource, Option<File>, Vec<Compression>, Arc<AtomicU64>) {
        (self.src, self.file, self.layers, self.raw_bytes)
    }

    /// The whole input with random access, for `what` (a format name in the error past the
    /// bound): the regular file itself, or the stream held in memory.
    pub fn into_random_access(self, what: &str) -> Result<RandomAccess, IngestError> {
        match self.file {
            Some(f) => Ok(RandomAccess::File(f)),
            None => random_access::buffer(self.src, random_access::limit(), what),
        }
    }
}

/// The file starts with a compression magic: read as a stream, not mapped. A positional
/// read on the open file, which moves nothing.
fn compressed_at_start(file: &File) -> bool {
    let mut head = [0u8; 8];
    #[cfg(unix)]
    let n = std::os::unix::fs::FileExt::read_at(file, &mut head, 0).unwrap_or(0);
    #[cfg(not(unix))]
    let n = 0;
    Compression::detect(&head[..n]).is_some()
}

/// `head` (1 to 3 bytes) is the start of a magic we know.
fn starts_like_a_capture(head: &[u8]) -> bool {
    let pcap_magics = [pcap::MAGIC_MICROS, pcap::MAGIC_NANOS, pcap::MAGIC_MODIFIED]
        .iter()
        .flat_map(|m| [m.to_le_bytes(), m.to_be_bytes()])
        .chain([pcapng::section_header::BLOCK_TYPE.to_le_bytes()]);
    pcap_magics.into_iter().any(|m| m.starts_with(head))
        || snoop::MAGIC.starts_with(head)
        || netmon::MAGICS.iter().any(|m| m.starts_with(head))
        || Compression::is_prefix_of_magic(head)
}

//! ① ingest: capture files (pcap, pcapng, gzip-compressed, standard input) → frames.
//!
//! `CaptureReader` sniffs the format from the first bytes and then reads one record per
//! `next_frame` call into a reused buffer: memory stays bounded by the largest record.

pub mod byte_order;
pub mod error;
pub mod frame;
pub mod interface;
pub mod merge;
pub mod pcap;
pub mod pcapng;
pub mod source;
pub mod writer;

pub use error::{IngestError, IngestErrorKind};
pub use frame::{Frame, FrameOptions};
pub use interface::{InterfaceInfo, TsResolution};
pub use writer::{PcapWriter, PcapngWriter};

use std::fs::File;
use std::io::{Cursor, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use byte_order::ByteOrder;
use source::{ByteSource, CountingReader};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Bytes looked at to recognise a format (snoop's magic is the longest).
const SNIFF_LEN: usize = 8;
const SNOOP_MAGIC: &[u8; 8] = b"snoop\0\0\0";
const NETMON2_MAGIC: &[u8; 4] = b"GMBU";

/// The container, as found in the first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    /// Classic pcap: nanosecond magic or not, file byte order, Kuznetsov's modified records.
    Pcap {
        nanos: bool,
        big_endian: bool,
        modified: bool,
    },
    Pcapng,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureFormat {
    pub kind: FormatKind,
    /// The file was gzip-compressed.
    pub compressed: bool,
}

enum State {
    Pcap(pcap::PcapState),
    Pcapng(pcapng::PcapngState),
}

/// Reads frames from a pcap or pcapng capture, gzip-compressed or not.
pub struct CaptureReader {
    src: ByteSource,
    state: State,
    format: CaptureFormat,
    interfaces: Vec<InterfaceInfo>,
    /// Options of the current frame, reused between frames.
    options: FrameOptions,
    frames: u64,
    /// After an error or the end, `next_frame` returns `Ok(None)`.
    done: bool,
    raw_bytes: Arc<AtomicU64>,
}

impl CaptureReader {
    /// Opens a capture file; `-` is standard input.
    pub fn open(path: &Path) -> Result<CaptureReader, IngestError> {
        if path.as_os_str() == "-" {
            return CaptureReader::from_read(Box::new(std::io::stdin()));
        }
        let file = File::open(path).map_err(|e| IngestError::io(e, 0))?;
        let raw_bytes = Arc::new(AtomicU64::new(0));
        match ByteSource::mapped(&file, raw_bytes.clone()) {
            Some(src) => CaptureReader::from_source(src, raw_bytes),
            None => CaptureReader::from_read(Box::new(file)),
        }
    }

    /// Reads a capture from any byte stream.
    pub fn from_read(r: Box<dyn Read + Send>) -> Result<CaptureReader, IngestError> {
        let raw_bytes = Arc::new(AtomicU64::new(0));
        let src = ByteSource::new(Box::new(CountingReader::new(r, raw_bytes.clone())));
        CaptureReader::from_source(src, raw_bytes)
    }

    /// `raw_bytes` counts what `src` consumed of the file, for progress.
    fn from_source(mut src: ByteSource, raw_bytes: Arc<AtomicU64>) -> Result<CaptureReader, IngestError> {
        let mut compressed = false;
        let mut magic = sniff(&mut src)?;
        if magic.starts_with(&GZIP_MAGIC) {
            let (pending, inner) = src.into_parts();
            let decoder = flate2::read::MultiGzDecoder::new(Cursor::new(pending).chain(inner));
            src = ByteSource::new(Box::new(decoder));
            src.set_lenient_eof(true);
            compressed = true;
            magic = sniff(&mut src)?;
        }
        let head = [magic[0], magic[1], magic[2], magic[3]];
        let mut interfaces = Vec::new();
        let (state, kind) = if let Some(m) = pcap::detect(head) {
            let (st, iface) = pcap::read_header(&mut src, m)?;
            interfaces.push(iface);
            let kind = FormatKind::Pcap {
                nanos: m.nanos,
                big_endian: m.order == ByteOrder::Big,
                modified: m.modified,
            };
            (State::Pcap(st), kind)
        } else if u32::from_le_bytes(head) == pcapng::section_header::BLOCK_TYPE {
            let mut st = pcapng::PcapngState::new();
            pcapng::advance(&mut st, &mut src, &mut interfaces)?;
            (State::Pcapng(st), FormatKind::Pcapng)
        } else {
            return Err(unknown_format(&magic));
        };
        Ok(CaptureReader {
            src,
            state,
            format: CaptureFormat { kind, compressed },
            interfaces,
            options: FrameOptions::default(),
            frames: 0,
            done: false,
            raw_bytes,
        })
    }

    /// The next frame, `Ok(None)` at the end. After an error, further calls return
    /// `Ok(None)`.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        if self.done {
            return Ok(None);
        }
        let result = match &mut self.state {
            State::Pcap(st) => pcap::read_record(st, &mut self.src).map(|r| {
                r.map(|r| pcapng::Packet {
                    interface: 0,
                    ts_ns: r.ts_ns,
                    origlen: r.origlen,
                    data: r.data,
                    has_options: false,
                })
            }),
            State::Pcapng(st) => {
                pcapng::read_packet(st, &mut self.src, &mut self.interfaces, &mut self.options)
            }
        };
        if let State::Pcapng(st) = &mut self.state {
            self.frames += st.take_other_records();
        }
        match result {
            Ok(Some(p)) => {
                self.frames += 1;
                let linktype = self
                    .interfaces
                    .get(p.interface as usize)
                    .map_or(0, |i| i.linktype);
                Ok(Some(Frame {
                    number: self.frames,
                    ts_ns: p.ts_ns,
                    caplen: p.data.len() as u32,
                    origlen: p.origlen,
                    interface: p.interface,
                    linktype,
                    data: p.data,
                    options: p.has_options.then_some(&self.options),
                }))
            }
            Ok(None) => {
                self.done = true;
                Ok(None)
            }
            Err(mut e) => {
                self.done = true;
                e.frames_read = self.frames;
                Err(e)
            }
        }
    }

    pub fn format(&self) -> CaptureFormat {
        self.format
    }

    /// Interfaces seen so far: pcap has one; pcapng's list grows as blocks are read (the
    /// first section's interfaces are known once the reader is open).
    pub fn interfaces(&self) -> &[InterfaceInfo] {
        &self.interfaces
    }

    /// Bytes consumed from the file itself (compressed bytes for gzip), for progress.
    pub fn input_bytes_read(&self) -> u64 {
        self.raw_bytes.load(Ordering::Relaxed)
    }

    /// Number of the last frame returned (Wireshark also numbers custom and systemd
    /// journal blocks, which are skipped here).
    pub fn frames_read(&self) -> u64 {
        self.frames
    }
}

/// The first bytes of the stream; errors for an empty or too short one.
fn sniff(src: &mut ByteSource) -> Result<Vec<u8>, IngestError> {
    let have = src.fill(SNIFF_LEN).map_err(|e| IngestError::io(e, 0))?;
    let head = src.peek(SNIFF_LEN).to_vec();
    if have == 0 {
        if src.cut_short() {
            return Err(IngestError::truncated(4, 0, 0));
        }
        return Err(IngestError::new(IngestErrorKind::Empty, 0, 0));
    }
    if head.starts_with(&GZIP_MAGIC) {
        return Ok(head);
    }
    if have < 4 {
        // A cut-off magic is a truncated capture; anything else is not a capture at all.
        let mut padded = [0u8; 4];
        padded[..have].copy_from_slice(&head);
        let prefix_of_known = [pcap::MAGIC_MICROS, pcap::MAGIC_NANOS, pcap::MAGIC_MODIFIED]
            .iter()
            .flat_map(|m| [m.to_le_bytes(), m.to_be_bytes()])
            .chain([
                pcapng::section_header::BLOCK_TYPE.to_le_bytes(),
                [GZIP_MAGIC[0], GZIP_MAGIC[1], 0, 0],
            ])
            .any(|m| m.starts_with(&head));
        if prefix_of_known {
            return Err(IngestError::truncated(4, have, 0));
        }
        return Err(IngestError::new(
            IngestErrorKind::NotACapture { magic: padded },
            0,
            0,
        ));
    }
    Ok(head)
}

fn unknown_format(head: &[u8]) -> IngestError {
    let what = if head.starts_with(SNOOP_MAGIC) {
        Some("Sun snoop capture; convert it with `editcap -F pcapng`")
    } else if head.starts_with(NETMON2_MAGIC) {
        Some("Microsoft Network Monitor capture; convert it with `editcap -F pcapng`")
    } else {
        None
    };
    let kind = match what {
        Some(w) => IngestErrorKind::Unsupported(w.to_string()),
        None => {
            let mut magic = [0u8; 4];
            for (m, b) in magic.iter_mut().zip(head) {
                *m = *b;
            }
            IngestErrorKind::NotACapture { magic }
        }
    };
    IngestError::new(kind, 0, 0)
}

/// Anything that yields frames: capture files here, Windows ETL traces in `tcpdiag-etl`.
/// The pipeline reads through this, so every input format shares one analysis.
pub trait FrameSource: Send {
    /// The next frame; `Ok(None)` at the end, and after an error.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError>;
    /// Raw input bytes consumed so far (for progress against the file size).
    fn input_bytes_read(&self) -> u64;
}

/// A boxed source is a source, so a reader chosen at run time goes wherever one is taken.
impl<T: FrameSource + ?Sized> FrameSource for Box<T> {
    #[inline]
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        (**self).next_frame()
    }
    fn input_bytes_read(&self) -> u64 {
        (**self).input_bytes_read()
    }
}

impl FrameSource for CaptureReader {
    #[inline]
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        CaptureReader::next_frame(self)
    }
    fn input_bytes_read(&self) -> u64 {
        CaptureReader::input_bytes_read(self)
    }
}

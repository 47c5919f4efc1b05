//! ① ingest: capture files → frames. The input is opened once ([`input::Input`]): a file,
//! a pipe or standard input, decompressed (gzip, zstd, xz, bzip2, nested), and its format
//! recognised from the bytes already read: pcap, pcapng, snoop, Peek classic, NetMon
//! (ETL traces are read by the `tcpdiag-etl` crate from the same `Input`).
//!
//! `CaptureReader` then reads one record per `next_frame` call into a reused buffer:
//! memory stays bounded by the largest record (NetMon's frame table and a NetMon file
//! read from a pipe are the exceptions, see `netmon.rs`).

pub mod byte_order;
pub mod compression;
pub mod error;
pub mod frame;
pub mod input;
pub mod interface;
pub mod merge;
pub mod netmon;
pub mod pcap;
pub mod pcapng;
pub mod peek;
pub mod random_access;
pub mod read_ahead;
pub mod snoop;
pub mod source;
pub mod writer;
pub mod zstd_frames;

pub use compression::Compression;
pub use error::{IngestError, IngestErrorKind};
pub use frame::{Frame, FrameOptions};
pub use input::{Format, Input};
pub use interface::{InterfaceInfo, TsResolution};
pub use random_access::RandomAccess;
pub use writer::{PcapWriter, PcapngWriter};

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use byte_order::ByteOrder;
use source::ByteSource;

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
    Snoop,
    PeekClassic,
    NetMon,
}

impl FormatKind {
    /// The format's name in tables and JSON: pcap, pcapng, snoop, peekclassic, netmon.
    pub fn name(self) -> &'static str {
        match self {
            FormatKind::Pcap { .. } => "pcap",
            FormatKind::Pcapng => "pcapng",
            FormatKind::Snoop => "snoop",
            FormatKind::PeekClassic => "peekclassic",
            FormatKind::NetMon => "netmon",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureFormat {
    pub kind: FormatKind,
    /// The file was compressed (the outermost layer, when several).
    pub compressed: bool,
    pub compression: Option<Compression>,
}

enum State {
    Pcap(pcap::PcapState),
    Pcapng(pcapng::PcapngState),
    Snoop,
    Peek(peek::PeekState),
    NetMon(Box<netmon::NetmonState>),
}

/// Reads frames from a capture in any format and compression `Input` recognises.
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
        CaptureReader::from_input(Input::open(path)?)
    }

    /// Reads a capture from any byte stream.
    pub fn from_read(r: Box<dyn Read + Send>) -> Result<CaptureReader, IngestError> {
        CaptureReader::from_input(Input::from_read(r)?)
    }

    /// The reader for an opened input; an error when its format is none of ours.
    pub fn from_input(input: Input) -> Result<CaptureReader, IngestError> {
        let format = input.format();
        if format == Format::Unknown {
            return Err(input.unknown_format());
        }
        let compression = input.compression().first().copied();
        if format == Format::NetMon {
            let raw_bytes = input.raw_bytes();
            let counted = (compression.is_none()).then(|| raw_bytes.clone());
            let ra = input.into_random_access("a Network Monitor capture")?;
            let (st, ifaces) = netmon::open(ra, counted)?;
            return Ok(CaptureReader::with(
                ByteSource::new(Box::new(std::io::empty())),
                State::NetMon(Box::new(st)),
                FormatKind::NetMon,
                compression,
                ifaces,
                raw_bytes,
            ));
        }
        let (mut src, _, _, raw_bytes) = input.into_parts();
        let mut interfaces = Vec::new();
        let (state, kind) = match format {
            Format::Pcap(m) => {
                let (st, iface) = pcap::read_header(&mut src, m)?;
                interfaces.push(iface);
                let kind = FormatKind::Pcap { nanos: m.nanos, big_endian: m.order == ByteOrder::Big, modified: m.modified };
                (State::Pcap(st), kind)
            }
            Format::Pcapng => {
                let mut st = pcapng::PcapngState::new();
                pcapng::advance(&mut st, &mut src, &mut interfaces)?;
                (State::Pcapng(st), FormatKind::Pcapng)
            }
            Format::Snoop => {
                interfaces.push(snoop::read_header(&mut src)?);
                (State::Snoop, FormatKind::Snoop)
            }
            Format::PeekClassic => {
                let (st, iface) = peek::read_header(&mut src)?;
                interfaces.push(iface);
                (State::Peek(st), FormatKind::PeekClassic)
            }
            Format::NetMon | Format::Unknown => unreachable!("handled above"),
        };
        Ok(CaptureReader::with(src, state, kind, compression, interfaces, raw_bytes))
    }

    fn with(
        src: ByteSource,
        state: State,
        kind: FormatKind,
        compression: Option<Compression>,
        interfaces: Vec<InterfaceInfo>,
        raw_bytes: Arc<AtomicU64>,
    ) -> CaptureReader {
        CaptureReader {
            src,
            state,
            format: CaptureFormat { kind, compressed: compression.is_some(), compression },
            interfaces,
            options: FrameOptions::default(),
            frames: 0,
            done: false,
            raw_bytes,
        }
    }

    /// The next frame, `Ok(None)` at the end. After an error, further calls return
    /// `Ok(None)`.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        if self.done {
            return Ok(None);
        }
        let whole = |ts_ns, origlen, data| pcapng::Packet { interface: 0, ts_ns, origlen, data, has_options: false };
        let result = match &mut self.state {
            State::Pcap(st) => pcap::read_buffered_record(st, &mut self.src).map(|r| r.map(|r| whole(r.ts_ns, r.origlen, r.data))),
            State::Pcapng(st) => {
                let r = pcapng::read_packet(st, &mut self.src, &mut self.interfaces, &mut self.options);
                self.frames += st.take_other_records();
                r
            }
            State::Snoop => snoop::read_record(&mut self.src).map(|r| r.map(|r| whole(r.ts_ns, r.origlen, r.data))),
            State::Peek(st) => peek::read_record(st, &mut self.src).map(|r| r.map(|r| whole(r.ts_ns, r.origlen, r.data))),
            State::NetMon(st) => netmon::read_frame(st, &mut self.interfaces),
        };
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

    /// [`next_frame`](Self::next_frame) with its usual case inlined where it is called: a
    /// classic pcap record buffered whole (most records of a mapped file) is taken without
    /// a call, a match over the formats or a frame returned through memory. Every other
    /// case goes to `next_frame`, which decides it as before.
    #[inline(always)]
    pub fn next_frame_inline(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        if let (State::Pcap(st), false) = (&self.state, self.done) {
            if let Some(r) = pcap::whole_record(st, self.src.buffered()) {
                self.frames += 1;
                let linktype = self.interfaces.first().map_or(0, |i| i.linktype);
                let data = self.src.take(r.total).get(st.record_header_len()..).unwrap_or_default();
                return Ok(Some(Frame {
                    number: self.frames,
                    ts_ns: r.ts_ns,
                    caplen: data.len() as u32,
                    origlen: r.origlen,
                    interface: 0,
                    linktype,
                    data,
                    options: None,
                }));
            }
        }
        self.next_frame()
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

/// Anything that yields frames: capture files here, Windows ETL traces in `tcpdiag-etl`.
/// The pipeline reads through this, so every input format shares one analysis.
pub trait FrameSource: Send {
    /// The next frame; `Ok(None)` at the end, and after an error.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError>;
    /// Raw input bytes consumed so far (for progress against the file size).
    fn input_bytes_read(&self) -> u64;
    /// The capture format, as `FormatKind::name` says it ("" when not one file).
    fn format_name(&self) -> &'static str {
        ""
    }
    /// The capture reader this source is, if it is one: a scan loop then reads its
    /// records inline ([`CaptureReader::next_frame_inline`]) instead of one call each.
    fn as_capture_reader(&mut self) -> Option<&mut CaptureReader> {
        None
    }
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
    fn format_name(&self) -> &'static str {
        (**self).format_name()
    }
    fn as_capture_reader(&mut self) -> Option<&mut CaptureReader> {
        (**self).as_capture_reader()
    }
}

impl FrameSource for CaptureReader {
    /// Inline where the reader's type is known (the engine's loop, merged pieces): the
    /// usual record is then read without a call.
    #[inline]
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        CaptureReader::next_frame_inline(self)
    }
    fn input_bytes_read(&self) -> u64 {
        CaptureReader::input_bytes_read(self)
    }
    fn format_name(&self) -> &'static str {
        self.format.kind.name()
    }
    fn as_capture_reader(&mut self) -> Option<&mut CaptureReader> {
        Some(self)
    }
}

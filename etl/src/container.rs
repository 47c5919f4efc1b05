//! The ETL container: buffers → per-processor event streams → one stream in time order.
//!
//! `open` walks the buffer headers once (72 bytes per buffer, then a seek) and queues each
//! buffer's file offset on its processor's stream. Reading is a k-way merge over the
//! processor streams, keyed by raw timestamp: each stream holds only its current buffer,
//! so memory is bounded by (processors × buffer size), whatever the file size.
//!
//! Damage is deferred: a buffer that cannot be read or decompressed, or a record that
//! cannot be parsed, is skipped and counted; everything readable is still delivered and
//! the first damage is reported once the stream ends.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io::{Read, Seek, SeekFrom};

use tcpdiag_core::ingest::{IngestError, IngestErrorKind};

use crate::buffer::{flag, BufferHeader, BUFFER_HEADER_LEN};
use crate::record::{parse_record, Parsed, RecordHeader};
use crate::stats::EtlStats;
use crate::xpress::decompress_lz77;

/// Largest buffer accepted (on disk or decompressed); ETW's own maximum is 16 MiB.
pub const MAX_BUFFER_LEN: usize = 64 << 20;

#[derive(Debug, Clone, Copy)]
struct BufferRef {
    file_offset: u64,
    header: BufferHeader,
}

/// One processor's buffers and the position in its current buffer.
struct CpuStream {
    processor: u16,
    /// Every buffer of this processor, in file order (kept for [`Container::restart`]).
    all: Vec<BufferRef>,
    queue: VecDeque<BufferRef>,
    data: Vec<u8>,
    buffer_offset: u64,
    pos: usize,
    /// The record at `pos`, already parsed (the stream's head in the merge).
    head: Option<RecordHeader>,
    last_ts: i64,
}

/// One event of the merged stream. `payload` borrows the reader until its next call.
#[derive(Debug, Clone, Copy)]
pub struct EventRecord<'a> {
    pub header: RecordHeader,
    /// Raw clock value (inherited from the previous record when the layout has none).
    pub raw_ts: i64,
    /// Bytes after the header and extended data items.
    pub payload: &'a [u8],
    pub processor: u16,
    /// File offset of the buffer holding this record.
    pub buffer_offset: u64,
    /// Offset of the record in the buffer's (decompressed) event data.
    pub record_offset: usize,
}

pub struct Container<R> {
    src: R,
    streams: Vec<CpuStream>,
    heap: BinaryHeap<Reverse<(i64, u64, usize, usize)>>,
    /// Stream whose head was returned last; advanced at the next call.
    pending: Option<usize>,
    started: bool,
    scratch: Vec<u8>,
    last_emitted: i64,
    pub stats: EtlStats,
    pub deferred: Option<IngestError>,
}

fn err(kind: IngestErrorKind, offset: u64) -> IngestError {
    IngestError::new(kind, offset, 0)
}

impl<R: Read + Seek> Container<R> {
    /// Indexes the buffers of `src`. Fails only when nothing at all is readable.
    pub fn index(mut src: R) -> Result<Container<R>, IngestError> {
        let file_len = src.seek(SeekFrom::End(0)).map_err(|e| err(IngestErrorKind::Io(e.to_string()), 0))?;
        let mut c = Container {
            src,
            streams: Vec::new(),
            heap: BinaryHeap::new(),
            pending: None,
            started: false,
            scratch: Vec::new(),
            last_emitted: i64::MIN,
            stats: EtlStats::default(),
            deferred: None,
        };
        let mut by_cpu: HashMap<u16, usize> = HashMap::new();
        let mut offset = 0u64;
        let mut hdr = [0u8; BUFFER_HEADER_LEN];
        while offset < file_len {
            let left = file_len - offset;
            if left < BUFFER_HEADER_LEN as u64 {
                c.defer(err(IngestErrorKind::Truncated { needed: BUFFER_HEADER_LEN as u64, available: left }, offset));
                break;
            }
            c.src.seek(SeekFrom::Start(offset)).and_then(|_| c.src.read_exact(&mut hdr)).map_err(|e| err(IngestErrorKind::Io(e.to_string()), offset))?;
            let Some(h) = BufferHeader::parse(&hdr) else { break };
            let size = h.buffer_size as u64;
            if size < BUFFER_HEADER_LEN as u64 || size > MAX_BUFFER_LEN as u64 {
                c.defer(err(IngestErrorKind::Corrupt(format!("buffer size {size} outside 72..64 MiB")), offset));
                break;
            }
            if size > left {
                c.defer(err(IngestErrorKind::Truncated { needed: size, available: left }, offset));
                break;
            }
            c.stats.buffers += 1;
            c.stats.compressed_buffers += h.is_compressed() as u64;
            c.stats.buffers_flagged_lost += (h.flags & (flag::EVENTS_LOST | flag::BUFFER_LOST) != 0) as u64;
            let n = c.streams.len();
            let idx = *by_cpu.entry(h.processor).or_insert(n);
            if idx == n {
                c.streams.push(CpuStream {
                    processor: h.processor,
                    all: Vec::new(),
                    queue: VecDeque::new(),
                    data: Vec::new(),
                    buffer_offset: 0,
                    pos: 0,
                    head: None,
                    last_ts: i64::MIN,
                });
            }
            c.streams[idx].all.push(BufferRef { file_offset: offset, header: h });
            offset += size;
        }
        c.restart();
        Ok(c)
    }

    /// Rewinds to the first event (after a metadata pre-scan); counters restart too.
    pub fn restart(&mut self) {
        for s in &mut self.streams {
            s.queue = s.all.iter().copied().collect();
            s.data.clear();
            s.pos = 0;
            s.head = None;
            s.last_ts = i64::MIN;
        }
        self.heap.clear();
        self.pending = None;
        self.started = false;
        self.last_emitted = i64::MIN;
        let (buffers, compressed, lost) =
            (self.stats.buffers, self.stats.compressed_buffers, self.stats.buffers_flagged_lost);
        self.stats = EtlStats { buffers, compressed_buffers: compressed, buffers_flagged_lost: lost, ..EtlStats::default() };
    }

    /// Reads and decompresses the first buffer only, for the log file header.
    pub fn first_buffer(&mut self) -> Result<(u64, Vec<u8>), IngestError> {
        let first = self
            .streams
            .iter()
            .filter_map(|s| s.queue.front())
            .min_by_key(|b| b.file_offset)
            .copied()
            .ok_or_else(|| self.deferred.clone().unwrap_or_else(|| err(IngestErrorKind::Empty, 0)))?;
        let mut out = Vec::new();
        self.load(first, &mut out)?;
        Ok((first.file_offset, out))
    }

    pub(crate) fn defer(&mut self, e: IngestError) {
        if self.deferred.is_none() {
            self.deferred = Some(e);
        }
    }

    /// Reads one buffer's event data into `out` (decompressing when flagged).
    fn load(&mut self, b: BufferRef, out: &mut Vec<u8>) -> Result<(), IngestError> {
        let h = b.header;
        let size = h.buffer_size as usize;
        let payload_len = h.payload_len().filter(|&n| n <= MAX_BUFFER_LEN).ok_or_else(|| {
            err(IngestErrorKind::Corrupt(format!("buffer saved offset {} does not fit its size {}", h.saved_offset, size)), b.file_offset)
        })?;
        let io = |e: std::io::Error| err(IngestErrorKind::Io(e.to_string()), b.file_offset);
        self.src.seek(SeekFrom::Start(b.file_offset + BUFFER_HEADER_LEN as u64)).map_err(io)?;
        if h.is_compressed() {
            self.scratch.resize(size - BUFFER_HEADER_LEN, 0);
            self.src.read_exact(&mut self.scratch).map_err(io)?;
            decompress_lz77(&self.scratch, payload_len, out).map_err(|e| {
                err(IngestErrorKind::Corrupt(format!("compressed buffer: {e}")), b.file_offset)
            })?;
            if out.len() != payload_len {
                return Err(err(
                    IngestErrorKind::Corrupt(format!("buffer decompressed to {} bytes, header says {payload_len}", out.len())),
                    b.file_offset,
                ));
            }
        } else {
            out.resize(payload_len, 0);
            self.src.read_exact(out).map_err(io)?;
        }
        Ok(())
    }

    /// Moves stream `i` to its next record, loading later buffers as needed.
    fn advance(&mut self, i: usize) {
        loop {
            let s = &mut self.streams[i];
            if let Some(h) = s.head.take() {
                s.pos = s.pos.saturating_add(h.stride());
            }
            if s.pos < s.data.len() {
                match parse_record(&s.data[s.pos..]) {
                    Ok(Parsed::Record(h)) => {
                        let ts = h.timestamp.unwrap_or(s.last_ts);
                        s.last_ts = ts;
                        s.head = Some(h);
                        let key = (ts, s.buffer_offset, s.pos, i);
                        self.heap.push(Reverse(key));
                        return;
                    }
                    Ok(Parsed::End) => {}
                    Err(what) => {
                        let (off, pos) = (s.buffer_offset, s.pos);
                        self.stats.corrupt_records += 1;
                        self.defer(err(
                            IngestErrorKind::Corrupt(format!("{what} (record at byte {pos} of the buffer's event data)")),
                            off,
                        ));
                    }
                }
            }
            // Current buffer done: load the next one of this processor.
            let Some(b) = self.streams[i].queue.pop_front() else {
                self.streams[i].data = Vec::new();
                return;
            };
            let mut data = std::mem::take(&mut self.streams[i].data);
            match self.load(b, &mut data) {
                Ok(()) => {
                    self.stats.buffers_read += 1;
                    self.stats.file_bytes_read += b.header.buffer_size as u64;
                    self.stats.decompressed_bytes += data.len() as u64;
                }
                Err(e) => {
                    self.stats.corrupt_buffers += 1;
                    self.defer(e);
                    data.clear();
                }
            }
            let s = &mut self.streams[i];
            s.data = data;
            s.pos = 0;
            s.buffer_offset = b.file_offset;
        }
    }

    /// The next event in timestamp order, or `None` at the end of every stream.
    pub fn next_event(&mut self) -> Option<EventRecord<'_>> {
        if !self.started {
            self.started = true;
            for i in 0..self.streams.len() {
                self.advance(i);
            }
        }
        if let Some(i) = self.pending.take() {
            self.advance(i);
        }
        let Reverse((ts, _, _, i)) = self.heap.pop()?;
        self.pending = Some(i);
        self.stats.events += 1;
        if ts < self.last_emitted {
            self.stats.out_of_order += 1;
        }
        self.last_emitted = self.last_emitted.max(ts);
        let s = &self.streams[i];
        let h = s.head?;
        let rec = s.data.get(s.pos..s.pos + h.size)?;
        Some(EventRecord {
            header: h,
            raw_ts: ts,
            payload: rec.get(h.payload_offset..).unwrap_or(&[]),
            processor: s.processor,
            buffer_offset: s.buffer_offset,
            record_offset: s.pos,
        })
    }
}

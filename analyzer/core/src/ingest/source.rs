//! Byte source: a buffered reader over any `Read` (file, gzip decoder, standard input) that
//! hands out the next N bytes of the stream as one borrowed slice.
//!
//! Contract: the buffer grows only to the largest record asked for, and callers check every
//! length against a cap *before* asking, so memory is bounded by that cap, never by the
//! file size. Reads are large (1 MiB) so the cost per record is one comparison.
//!
//! A plain file is instead mapped into memory a window at a time ([`ByteSource::mapped`]):
//! frames are then read where the page cache holds them, without the kernel copying every
//! byte into a buffer first (that copy was a fifth of the single-thread reading time).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use memmap2::{Mmap, MmapOptions};

/// Bytes requested from the inner reader per call: big enough that system calls and
/// decompressor calls vanish from the per-frame cost.
const CHUNK: usize = 1 << 20;

/// Largest amount `fill` will ever buffer; callers refuse larger records with `Corrupt`
/// before asking, this is the last line of defence against a missed check.
pub const MAX_FILL: usize = 64 << 20;

/// Bytes of a mapped file visible at once: large enough that remapping is rare, small
/// enough that the mapped pages (counted in the resident size) stay far below the file:
/// 16 MiB was a third of the one-thread engine's peak (36 → 23 MB on bulk-5m, same time).
const WINDOW: usize = 4 << 20;

/// A file read through a moving memory map instead of `read`.
struct FileMap {
    file: File,
    len: u64,
    /// Bytes mapped at least (`WINDOW`; smaller in tests, to cross windows).
    window: usize,
    map: Option<Mmap>,
    /// File offset of the map's first byte.
    start: u64,
    /// Mapped bytes so far, for progress (as `CountingReader` counts read bytes).
    count: Arc<AtomicU64>,
}

/// The next bytes of a stream, with their absolute offset.
pub struct ByteSource {
    inner: Box<dyn Read + Send>,
    buf: Vec<u8>,
    /// When set, bytes come from this map, not from `inner` and `buf`.
    map: Option<FileMap>,
    /// `bytes()[pos..end]` holds bytes read but not yet consumed.
    pos: usize,
    end: usize,
    /// Stream offset of `buf[pos]`.
    offset: u64,
    eof: bool,
    /// A decompressor's "unexpected end of file" ends the stream instead of failing it, so
    /// the frames before the cut are still read; `cut_short` remembers it happened.
    lenient_eof: bool,
    cut_short: bool,
}

impl ByteSource {
    pub fn new(inner: Box<dyn Read + Send>) -> Self {
        ByteSource::with_pending(inner, Vec::new())
    }

    /// A source whose first bytes are `pending` (already read from `inner` by someone else).
    pub fn with_pending(inner: Box<dyn Read + Send>, pending: Vec<u8>) -> Self {
        let end = pending.len();
        let mut buf = zeroed(CHUNK.max(end));
        buf[..end].copy_from_slice(&pending);
        ByteSource {
            inner,
            buf,
            map: None,
            pos: 0,
            end,
            offset: 0,
            eof: false,
            lenient_eof: false,
            cut_short: false,
        }
    }

    /// A regular file read through a memory map, or `None` when it cannot be mapped (not a
    /// regular file, empty, or `TCPDIAG_NO_MMAP` set); `count` follows the mapped bytes.
    /// The caller maps only files that are not compressed (`input.rs`).
    ///
    /// A file truncated by another process while it is mapped ends the process with SIGBUS
    /// (tshark reads with `read` and sees a short file): `TCPDIAG_NO_MMAP=1` reads that way.
    pub fn mapped(file: &File, count: Arc<AtomicU64>) -> Option<Self> {
        if std::env::var_os("TCPDIAG_NO_MMAP").is_some() {
            return None;
        }
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() == 0 {
            return None;
        }
        let file = file.try_clone().ok()?;
        let mut s = ByteSource::new(Box::new(io::empty()));
        s.buf = Vec::new();
        s.map = Some(FileMap { file, len: meta.len(), window: WINDOW, map: None, start: 0, count });
        Some(s)
    }

    /// The bytes `pos` and `end` index: the map's window, or the read buffer.
    #[inline]
    fn bytes(&self) -> &[u8] {
        match &self.map {
            Some(FileMap { map: Some(m), .. }) => m,
            _ => &self.buf,
        }
    }

    /// Treat `UnexpectedEof` from the inner reader (a truncated gzip member) as the end.
    pub fn set_lenient_eof(&mut self, on: bool) {
        self.lenient_eof = on;
    }

    /// True when the stream ended through a tolerated `UnexpectedEof`.
    pub fn cut_short(&self) -> bool {
        self.cut_short
    }

    /// Absolute offset of the next unconsumed byte.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Buffers at least `n` bytes unless the stream ends first; returns how many bytes are
    /// buffered (may exceed `n`; less than `n` only at the end of the stream).
    #[inline]
    pub fn fill(&mut self, n: usize) -> io::Result<usize> {
        let have = self.end - self.pos;
        if have >= n {
            return Ok(have);
        }
        self.fill_slow(n.min(MAX_FILL))
    }

    #[cold]
    fn fill_slow(&mut self, n: usize) -> io::Result<usize> {
        if self.map.is_some() {
            return self.remap(n);
        }
        if self.eof {
            return Ok(self.end - self.pos);
        }
        // Moving the unconsumed tail (shorter than one record) to the front lets the next
        // read use the whole buffer.
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        while self.end < n {
            if self.end == self.buf.len() {
                // Grow only as data arrives, so a header claiming a huge record in a short
                // file costs no more memory than the file holds.
                let mut grown = zeroed((self.buf.len() * 2).clamp(CHUNK, n));
                grown[..self.end].copy_from_slice(&self.buf[..self.end]);
                self.buf = grown;
            }
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                // A misbehaving reader claiming more than the slice cannot move `end` out.
                Ok(k) => self.end = (self.end + k).min(self.buf.len()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if self.lenient_eof && e.kind() == io::ErrorKind::UnexpectedEof => {
                    self.eof = true;
                    self.cut_short = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(self.end)
    }

    /// Moves the window to start at the next unconsumed byte, holding at least `n` bytes
    /// unless the file ends first.
    fn remap(&mut self, n: usize) -> io::Result<usize> {
        let m = self.map.as_mut().expect("mapped source");
        let have = self.end - self.pos;
        let left = m.len.saturating_sub(self.offset);
        if have as u64 >= left {
            return Ok(have); // the window already reaches the end of the file
        }
        let len = n.max(m.window).min(usize::try_from(left).unwrap_or(usize::MAX));
        m.map = None; // unmap first: at most one window is resident
        // SAFETY: the map is only read, and only through `bytes()`; the file is not written
        // by this process (truncation by another process is the SIGBUS documented above).
        let map = unsafe { MmapOptions::new().offset(self.offset).len(len).populate().map(&m.file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        m.start = self.offset;
        m.count.store(self.offset + len as u64, Ordering::Relaxed);
        m.map = Some(map);
        self.pos = 0;
        self.end = len;
        Ok(len)
    }

    /// The next `n` buffered bytes (fewer if fewer are buffered), without consuming them.
    #[inline]
    pub fn peek(&self, n: usize) -> &[u8] {
        let stop = self.pos + n.min(self.end - self.pos);
        &self.bytes()[self.pos..stop]
    }

    /// Every buffered, unconsumed byte, without asking for more.
    #[inline]
    pub fn buffered(&self) -> &[u8] {
        &self.bytes()[self.pos..self.end]
    }

    /// Consumes and returns the next `n` buffered bytes (fewer if fewer are buffered).
    #[inline]
    pub fn take(&mut self, n: usize) -> &[u8] {
        let start = self.pos;
        let n = n.min(self.end - self.pos);
        self.pos += n;
        self.offset += n as u64;
        &self.bytes()[start..start + n]
    }

    /// Consumes `n` bytes without buffering them all; returns how many were there.
    pub fn skip(&mut self, n: u64) -> io::Result<u64> {
        let mut left = n;
        loop {
            let have = (self.end - self.pos) as u64;
            let step = have.min(left);
            self.take(step as usize);
            left -= step;
            if left == 0 {
                return Ok(n);
            }
            // Ask for one chunk at a time: skipping never grows the buffer.
            if self.fill(CHUNK.min(left as usize))? == 0 {
                return Ok(n - left);
            }
        }
    }

    /// The buffered, unconsumed bytes and the inner reader, to stack a decoder on top.
    pub fn into_parts(mut self) -> (Vec<u8>, Box<dyn Read + Send>) {
        if let Some(mut m) = self.map.take() {
            let pending = m.map.as_ref().map_or(Vec::new(), |w| w[self.pos..self.end].to_vec());
            let resume = m.start + self.end as u64;
            return match m.file.seek(SeekFrom::Start(resume)) {
                Ok(_) => (pending, Box::new(CountingReader::new(m.file, m.count))),
                Err(e) => (pending, Box::new(FailingReader(Some(e)))),
            };
        }
        self.buf.truncate(self.end);
        self.buf.drain(..self.pos);
        (self.buf, self.inner)
    }
}

/// A zero-filled buffer from the allocator's zeroed pages (`calloc`): no per-byte loop,
/// and untouched pages cost nothing, which keeps short inputs (and fuzzing) cheap.
fn zeroed(len: usize) -> Vec<u8> {
    vec![0; len]
}

/// A reader whose first read fails with the error it holds (a seek that failed).
struct FailingReader(Option<io::Error>);

impl Read for FailingReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

/// Counts the bytes read from the file itself, so a progress bar can compare them with
/// the file size even when a decompressor sits in between.
pub struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> CountingReader<R> {
    pub fn new(inner: R, count: Arc<AtomicU64>) -> Self {
        CountingReader { inner, count }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader handing out at most 3 bytes per call, to exercise refills.
    struct Dribble(Vec<u8>, usize);
    impl Read for Dribble {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(3).min(self.0.len() - self.1);
            buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }

    fn dribble(len: usize) -> ByteSource {
        ByteSource::new(Box::new(Dribble((0..len).map(|i| i as u8).collect(), 0)))
    }

    #[test]
    fn dribbling_reader_fills_whole_record() {
        let mut s = dribble(100);
        assert!(s.fill(10).unwrap() >= 10);
        assert_eq!(s.take(10), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(s.offset(), 10);
        assert_eq!(s.fill(200).unwrap(), 90);
        assert_eq!(s.take(200).len(), 90);
        assert_eq!(s.fill(1).unwrap(), 0);
    }

    #[test]
    fn skip_past_end_reports_what_was_there() {
        let mut s = dribble(50);
        s.fill(5).unwrap();
        assert_eq!(s.skip(20).unwrap(), 20);
        assert_eq!(s.offset(), 20);
        assert_eq!(s.skip(100).unwrap(), 30);
        assert_eq!(s.offset(), 50);
    }

    #[test]
    fn large_record_grows_buffer_once() {
        let mut s = dribble(3 * CHUNK);
        s.take(0);
        assert_eq!(s.fill(2 * CHUNK).unwrap(), 2 * CHUNK);
        assert_eq!(s.buf.len(), 2 * CHUNK);
        let mut short = dribble(10);
        assert_eq!(short.fill(MAX_FILL).unwrap(), 10);
        assert_eq!(short.buf.len(), CHUNK);
        assert_eq!(s.take(2 * CHUNK).len(), 2 * CHUNK);
        assert_eq!(s.skip(u64::MAX).unwrap(), CHUNK as u64);
    }

    /// A temporary file holding `data`, mapped with a small window.
    fn mapped(data: &[u8], window: usize) -> (ByteSource, Arc<AtomicU64>) {
        let path = std::env::temp_dir().join(format!("tcpdiag-map-{}-{window}", std::process::id()));
        std::fs::write(&path, data).unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap(); // the open file stays readable
        let count = Arc::new(AtomicU64::new(0));
        let mut s = ByteSource::mapped(&file, count.clone()).expect("a regular file maps");
        s.map.as_mut().unwrap().window = window;
        (s, count)
    }

    #[test]
    fn mapped_file_reads_as_the_stream_does() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let (mut m, count) = mapped(&data, 4096);
        let mut r = ByteSource::new(Box::new(Dribble(data.clone(), 0)));
        // Records of many sizes, several longer than the window, crossing window edges.
        for n in (1..200).chain([5000, 9000, 4096, 4097]).cycle().take(600) {
            let (a, b) = (m.fill(n).unwrap().min(n), r.fill(n).unwrap().min(n));
            assert_eq!(a, b);
            assert_eq!(m.peek(n), r.peek(n));
            assert_eq!(m.take(n), r.take(n));
            assert_eq!(m.offset(), r.offset());
            assert!(count.load(Ordering::Relaxed) >= m.offset());
            if a == 0 {
                break;
            }
        }
        assert_eq!(m.offset(), data.len() as u64);
        assert_eq!(m.fill(1).unwrap(), 0);
    }

    #[test]
    fn mapped_file_hands_over_to_a_stream_where_it_stood() {
        let data: Vec<u8> = (0..20_000u32).map(|i| i as u8).collect();
        let (mut m, _) = mapped(&data, 4096);
        m.fill(10).unwrap();
        m.take(10);
        let (pending, mut rest) = m.into_parts();
        let mut all = pending;
        rest.read_to_end(&mut all).unwrap();
        assert_eq!(all, &data[10..]);
    }

    #[test]
    fn only_regular_nonempty_files_map() {
        let dir = std::env::temp_dir().join(format!("tcpdiag-nomap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let count = Arc::new(AtomicU64::new(0));
        let empty = dir.join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(ByteSource::mapped(&File::open(&empty).unwrap(), count.clone()).is_none());
        assert!(ByteSource::mapped(&File::open(&dir).unwrap(), count).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pending_bytes_come_first() {
        let mut s = ByteSource::with_pending(Box::new(Dribble(vec![9, 9], 0)), vec![1, 2]);
        assert_eq!(s.fill(4).unwrap(), 4);
        assert_eq!(s.take(4), &[1, 2, 9, 9]);
    }
}

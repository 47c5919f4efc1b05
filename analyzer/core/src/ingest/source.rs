//! Byte source: a buffered reader over any `Read` (file, gzip decoder, standard input) that
//! hands out the next N bytes of the stream as one borrowed slice.
//!
//! Contract: the buffer grows only to the largest record asked for, and callers check every
//! length against a cap *before* asking, so memory is bounded by that cap, never by the
//! file size. Reads are large (1 MiB) so the cost per record is one comparison.

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bytes requested from the inner reader per call: big enough that system calls and
/// decompressor calls vanish from the per-frame cost.
const CHUNK: usize = 1 << 20;

/// Largest amount `fill` will ever buffer; callers refuse larger records with `Corrupt`
/// before asking, this is the last line of defence against a missed check.
pub const MAX_FILL: usize = 64 << 20;

/// The next bytes of a stream, with their absolute offset.
pub struct ByteSource {
    inner: Box<dyn Read + Send>,
    buf: Vec<u8>,
    /// `buf[pos..end]` holds bytes read but not yet consumed.
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
            pos: 0,
            end,
            offset: 0,
            eof: false,
            lenient_eof: false,
            cut_short: false,
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

    /// The next `n` buffered bytes (fewer if fewer are buffered), without consuming them.
    #[inline]
    pub fn peek(&self, n: usize) -> &[u8] {
        let stop = self.pos + n.min(self.end - self.pos);
        &self.buf[self.pos..stop]
    }

    /// Consumes and returns the next `n` buffered bytes (fewer if fewer are buffered).
    #[inline]
    pub fn take(&mut self, n: usize) -> &[u8] {
        let start = self.pos;
        let n = n.min(self.end - self.pos);
        self.pos += n;
        self.offset += n as u64;
        &self.buf[start..start + n]
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

    #[test]
    fn pending_bytes_come_first() {
        let mut s = ByteSource::with_pending(Box::new(Dribble(vec![9, 9], 0)), vec![1, 2]);
        assert_eq!(s.fill(4).unwrap(), 4);
        assert_eq!(s.take(4), &[1, 2, 9, 9]);
    }
}

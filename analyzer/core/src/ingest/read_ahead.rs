//! Read-ahead: a stream (a decompressor) read on a thread of its own, a few chunks ahead
//! of the frame reader, so that decompressing and reading frames use two cores.
//!
//! Memory is bounded: at most `DEPTH` chunks of `CHUNK` bytes wait in the channel. The
//! thread stops at the end of the stream, after its first error (handed on in order), or
//! as soon as the reader is dropped.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread;

const CHUNK: usize = 1 << 20;
const DEPTH: usize = 4;

pub struct ReadAhead {
    rx: Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
}

impl ReadAhead {
    /// Starts reading `inner` on a new thread; falls back to reading it in place (on the
    /// caller's thread) when no thread can be started.
    pub fn spawn(inner: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
        let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(DEPTH);
        let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(inner)));
        let theirs = slot.clone();
        let started = thread::Builder::new().name("tcpdiag-decompress".into()).spawn(move || {
            let Some(mut inner) = theirs.lock().ok().and_then(|mut s| s.take()) else { return };
            loop {
                let mut chunk = vec![0u8; CHUNK];
                let mut filled = 0;
                let result = loop {
                    match inner.read(&mut chunk[filled..]) {
                        Ok(0) => break Ok(()),
                        Ok(n) => {
                            filled += n;
                            if filled == CHUNK {
                                break Ok(());
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => break Err(e),
                    }
                };
                chunk.truncate(filled);
                let end = filled < CHUNK;
                if !chunk.is_empty() && tx.send(Ok(chunk)).is_err() {
                    return; // the reader is gone
                }
                if let Err(e) = result {
                    let _ = tx.send(Err(e));
                    return;
                }
                if end {
                    return;
                }
            }
        });
        if started.is_err() {
            if let Some(inner) = slot.lock().ok().and_then(|mut s| s.take()) {
                return inner;
            }
        }
        Box::new(ReadAhead { rx, current: Vec::new(), pos: 0, done: false })
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    self.current = chunk;
                    self.pos = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out `data` then fails with `err`.
    struct ThenFail(std::io::Cursor<Vec<u8>>, Option<io::ErrorKind>);
    impl Read for ThenFail {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => self.1.take().map_or(Ok(0), |k| Err(io::Error::new(k, "cut"))),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn bytes_then_the_error_arrive_in_order() {
        let data: Vec<u8> = (0..3 * CHUNK + 17).map(|i| (i % 251) as u8).collect();
        let mut r = ReadAhead::spawn(Box::new(ThenFail(std::io::Cursor::new(data.clone()), Some(io::ErrorKind::UnexpectedEof))));
        let mut got = vec![0u8; data.len()];
        r.read_exact(&mut got).unwrap();
        assert_eq!(got, data);
        assert_eq!(r.read(&mut [0u8; 8]).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(r.read(&mut [0u8; 8]).unwrap(), 0);
    }

    #[test]
    fn dropping_the_reader_stops_the_thread() {
        let endless = io::repeat(7);
        let mut r = ReadAhead::spawn(Box::new(endless));
        let mut b = [0u8; 10];
        r.read_exact(&mut b).unwrap();
        drop(r); // the thread's next send fails and it returns
    }
}

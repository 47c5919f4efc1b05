//! Several captures read as one, frames in timestamp order: rotated pieces of one capture
//! (`tcpdump -C`/`-G`), or captures of one network taken at several points.
//!
//! Frame numbering: frames are numbered 1, 2, … in merged order, exactly as Wireshark
//! numbers the file `mergecap -w merged.pcapng a b c` writes (chronological merge; frames
//! with equal timestamps come from the earlier-listed file first; within a file, frames keep
//! their order even when timestamps step back). A piece's own frame numbers are not kept.

use super::{CaptureReader, Frame, FrameSource, IngestError};

/// A frame copied out of its reader, waiting for its turn.
#[derive(Default)]
struct Head {
    ts_ns: i64,
    origlen: u32,
    interface: u32,
    linktype: u32,
    data: Vec<u8>,
}

/// The k-way merge of several captures by frame timestamp: capture readers, or any frame
/// sources (an ETL trace among pcap pieces).
pub struct MergedSource<R: FrameSource = CaptureReader> {
    readers: Vec<R>,
    heads: Vec<Option<Head>>,
    /// Buffer of the frame last returned (swapped with a head, never reallocated per frame).
    current: Head,
    number: u64,
    started: bool,
    /// An error met while reading ahead; returned once the frames before it are out.
    pending_error: Option<(usize, IngestError)>,
    failed: Option<usize>,
    done: bool,
}

impl<R: FrameSource> MergedSource<R> {
    pub fn new(readers: Vec<R>) -> MergedSource<R> {
        let n = readers.len();
        MergedSource {
            readers,
            heads: (0..n).map(|_| None).collect(),
            current: Head::default(),
            number: 0,
            started: false,
            pending_error: None,
            failed: None,
            done: false,
        }
    }

    /// Index of the input whose error ended the merge.
    pub fn failed_input(&self) -> Option<usize> {
        self.failed
    }

    /// Reads input `i`'s next frame into `buf`; false at its end or error.
    fn refill(&mut self, i: usize, mut buf: Head) -> Option<Head> {
        match self.readers[i].next_frame() {
            Ok(Some(f)) => {
                buf.ts_ns = f.ts_ns;
                buf.origlen = f.origlen;
                buf.interface = f.interface;
                buf.linktype = f.linktype;
                buf.data.clear();
                buf.data.extend_from_slice(f.data);
                Some(buf)
            }
            Ok(None) => None,
            Err(e) => {
                if self.pending_error.is_none() {
                    self.failed = Some(i);
                    self.pending_error = Some((i, e));
                }
                None
            }
        }
    }
}

impl<R: FrameSource> FrameSource for MergedSource<R> {
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        if self.done {
            return Ok(None);
        }
        if !self.started {
            self.started = true;
            for i in 0..self.readers.len() {
                self.heads[i] = self.refill(i, Head::default());
            }
        }
        // An input that failed stops the merge where its frames stop, so the result is
        // that of the frames before the damage, as for a single capture.
        if self.pending_error.is_some() {
            self.done = true;
            let (_, mut e) = self.pending_error.take().unwrap();
            e.frames_read = self.number;
            return Err(e);
        }
        let mut best: Option<usize> = None;
        for (i, h) in self.heads.iter().enumerate() {
            if let Some(h) = h {
                if best.is_none_or(|b| h.ts_ns < self.heads[b].as_ref().unwrap().ts_ns) {
                    best = Some(i);
                }
            }
        }
        let Some(i) = best else {
            self.done = true;
            return Ok(None);
        };
        let head = self.heads[i].take().unwrap();
        let spare = std::mem::replace(&mut self.current, head);
        self.heads[i] = self.refill(i, spare);
        self.number += 1;
        let c = &self.current;
        Ok(Some(Frame {
            number: self.number,
            ts_ns: c.ts_ns,
            caplen: c.data.len() as u32,
            origlen: c.origlen,
            interface: c.interface,
            linktype: c.linktype,
            data: &c.data,
            options: None,
        }))
    }

    fn input_bytes_read(&self) -> u64 {
        self.readers.iter().map(|r| r.input_bytes_read()).sum()
    }

    /// The pieces' format when they share one, else "".
    fn format_name(&self) -> &'static str {
        let first = self.readers.first().map_or("", |r| r.format_name());
        if self.readers.iter().all(|r| r.format_name() == first) {
            first
        } else {
            ""
        }
    }
}

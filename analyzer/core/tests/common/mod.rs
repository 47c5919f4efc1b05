//! Helpers shared by the ingest tests: read a capture from bytes into owned frames.
#![allow(dead_code)]

use std::io::Cursor;

use tcpdiag_core::ingest::{CaptureReader, FrameOptions, IngestError};

/// A frame copied out of the reader's buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owned {
    pub number: u64,
    pub ts_ns: i64,
    pub origlen: u32,
    pub interface: u32,
    pub linktype: u32,
    pub data: Vec<u8>,
    pub options: Option<FrameOptions>,
}

/// Frames up to the end or the first error, and that error.
pub fn read_all(bytes: &[u8]) -> (Vec<Owned>, Option<IngestError>) {
    let mut r = match CaptureReader::from_read(Box::new(Cursor::new(bytes.to_vec()))) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e)),
    };
    drain(&mut r)
}

pub fn drain(r: &mut CaptureReader) -> (Vec<Owned>, Option<IngestError>) {
    let mut frames = Vec::new();
    loop {
        match r.next_frame() {
            Ok(Some(f)) => {
                assert_eq!(f.caplen as usize, f.data.len());
                frames.push(Owned {
                    number: f.number,
                    ts_ns: f.ts_ns,
                    origlen: f.origlen,
                    interface: f.interface,
                    linktype: f.linktype,
                    data: f.data.to_vec(),
                    options: f.options.cloned(),
                })
            }
            Ok(None) => return (frames, None),
            Err(e) => {
                // After an error the reader is finished.
                assert!(matches!(r.next_frame(), Ok(None)));
                return (frames, Some(e));
            }
        }
    }
}

/// A recognisable packet of `len` bytes.
pub fn packet(seed: u8, len: usize) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add(i as u8)).collect()
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

//! Helpers shared by the integration tests: read a capture from bytes into owned frames,
//! build raw-IP TCP segments.
#![allow(dead_code)]

use std::io::Cursor;
use std::path::{Path, PathBuf};

use tcpdiag_core::ingest::{CaptureReader, Frame, FrameOptions, IngestError};

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
    drain_with(r, CaptureReader::next_frame)
}

/// [`drain`] reading each frame with `next`: `next_frame`, or the scan loop's
/// `next_frame_inline`.
pub fn drain_with(
    r: &mut CaptureReader,
    next: for<'a> fn(&'a mut CaptureReader) -> Result<Option<Frame<'a>>, IngestError>,
) -> (Vec<Owned>, Option<IngestError>) {
    let mut frames = Vec::new();
    loop {
        match next(r) {
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
                assert!(matches!(next(r), Ok(None)));
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

/// Raw-IP TCP segment 10.0.0.1:sport → 10.0.0.2:80 (or back).
pub fn raw_tcp(back: bool, sport: u16, flags: u8, seq: u32, ack: u32, len: usize) -> Vec<u8> {
    let mut ip = vec![0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
    let total = (20 + 20 + len) as u16;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    if back {
        ip[12..16].copy_from_slice(&[10, 0, 0, 2]);
        ip[16..20].copy_from_slice(&[10, 0, 0, 1]);
    }
    let (s, d) = if back { (80, sport) } else { (sport, 80) };
    let mut tcp = vec![0u8; 20];
    tcp[0..2].copy_from_slice(&s.to_be_bytes());
    tcp[2..4].copy_from_slice(&d.to_be_bytes());
    tcp[4..8].copy_from_slice(&seq.to_be_bytes());
    tcp[8..12].copy_from_slice(&ack.to_be_bytes());
    tcp[12] = 5 << 4;
    tcp[13] = flags;
    tcp[14..16].copy_from_slice(&65535u16.to_be_bytes());
    ip.extend(tcp);
    ip.extend(std::iter::repeat_n(0u8, len));
    ip
}

/// The real captures under samples/ (`*.pcap.gz`), in name order.
pub fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".pcap.gz"))
        .collect();
    v.sort();
    v
}

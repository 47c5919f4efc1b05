//! The fuzzing entry point, shared by `fuzz/fuzz_targets/etl.rs` (libFuzzer) and the
//! stable replay test `tests/fuzz_replay.rs`: any bytes as an ETL file (every frame,
//! the TCPIP table, both conversions) and as Plain LZ77 and LZ77+Huffman streams.
//! Nothing may panic, hang or allocate past the caps.

use std::io::Cursor;

use crate::convert::{convert, ConvertOptions, Mode};
use crate::reader::EtlReader;
use crate::xpress::decompress_lz77;
use crate::xpress_huffman::decompress_huffman;
use crate::{ObservationFilter, ReaderOptions};

/// Largest output the decompressors are asked for (one 64 KiB ETW buffer).
const MAX_OUT: usize = 1 << 16;

pub fn exercise(data: &[u8]) {
    let opts = ReaderOptions { observation: ObservationFilter::All, ..ReaderOptions::default() };
    if let Ok(mut r) = EtlReader::from_reader(Cursor::new(data), opts) {
        let mut last = i64::MIN;
        let mut n = 0;
        while let Ok(Some(f)) = r.next_frame() {
            n += 1;
            assert_eq!(f.number, n);
            assert_eq!(f.frame().caplen as usize, f.data.len());
            assert!(f.origlen as usize >= f.data.len());
            last = last.max(f.ts_ns);
        }
        let conns = r.tcpip().connections();
        assert_eq!(r.tcpip().resolve(&conns).len(), r.tcpip().rows.len());
        for mode in [Mode::Default, Mode::Etl2pcapng] {
            let o = ConvertOptions { mode, ..ConvertOptions::default() };
            let _ = convert(|ro| EtlReader::from_reader(Cursor::new(data), ro), Vec::new(), &o);
        }
    }
    let mut out = Vec::new();
    if decompress_lz77(data, MAX_OUT, &mut out).is_ok() {
        assert!(out.len() <= MAX_OUT);
    }
    if decompress_huffman(data, MAX_OUT, &mut out).is_ok() {
        assert!(out.len() <= MAX_OUT);
    }
}

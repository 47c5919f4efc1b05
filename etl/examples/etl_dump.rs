//! Prints a summary of ETL files: `cargo run -p tcpdiag-etl --example etl_dump -- FILE…`
use tcpdiag_etl::{EtlReader, ObservationFilter, ReaderOptions};

fn main() {
    for path in std::env::args().skip(1) {
        let t = std::time::Instant::now();
        let opts = ReaderOptions { observation: ObservationFilter::All, ..ReaderOptions::default() };
        let mut r = match EtlReader::open_with(&path, opts) {
            Ok(r) => r,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
        let mut n = 0u64;
        let mut trunc = 0u64;
        let mut lt = std::collections::BTreeMap::new();
        let res = loop {
            match r.next_frame() {
                Ok(Some(f)) => {
                    n += 1;
                    trunc += (f.origlen as usize > f.data.len()) as u64;
                    *lt.entry(f.linktype).or_insert(0u64) += 1;
                }
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        println!("{path}: {n} frames, {trunc} truncated, linktypes {lt:?}, {:?}, err {res:?}", t.elapsed());
        println!("  {:?}", r.stats());
        println!("  interfaces {}, components {}", r.interfaces().len(), r.components().len());
    }
}

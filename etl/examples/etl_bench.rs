//! Conversion speed: `cargo run --release -p tcpdiag-etl --example etl_bench -- FILE [COPIES]`.
//! With COPIES > 1, the event buffers are repeated COPIES times (in memory) to make a
//! larger trace with the same content.
use std::io::Cursor;
use std::time::Instant;

use tcpdiag_etl::{EtlReader, ObservationFilter, ReaderOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let copies: usize = args.next().map(|c| c.parse().unwrap()).unwrap_or(1);
    let file = std::fs::read(&path).unwrap();
    let first = u32::from_le_bytes(file[0..4].try_into().unwrap()) as usize;
    let mut bytes = file[..first].to_vec();
    for _ in 0..copies {
        bytes.extend_from_slice(&file[first..]);
    }
    for (label, opts) in [
        ("default (prescan, first-per-flow)", ReaderOptions::default()),
        ("every copy, no prescan", ReaderOptions { observation: ObservationFilter::All, prescan_metadata: false, ..Default::default() }),
    ] {
        let mut best = f64::MAX;
        let mut frames = 0;
        for _ in 0..5 {
            let t = Instant::now();
            let mut r = EtlReader::from_reader(Cursor::new(&bytes), opts).unwrap();
            frames = 0u64;
            while let Ok(Some(f)) = r.next_frame() {
                frames += f.data.len() as u64 / f.data.len().max(1) as u64;
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        let mb = bytes.len() as f64 / 1e6;
        println!("{label}: {mb:.1} MB, {frames} frames, {:.1} ms, {:.0} MB/s, {:.2} Mframes/s", best * 1e3, mb / best, frames as f64 / best / 1e6);
    }
}
